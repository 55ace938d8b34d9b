/*
 * Capture benchmark: how fast the injection library's decoder turns CUPTI activity buffers
 * into a finished store, on one core. Builds 4 MB buffers of what a training step launches
 * (per launch a cudaLaunchKernel record and its kernel, 64 distinct mangled kernel names, a
 * copy and its cudaMemcpyAsync every 10 launches) and decodes them as the decoder thread does,
 * walking each buffer with the stand-in libcupti's cuptiActivityGetNextRecord.
 * Usage: tk_cupti_bench STORE RECORDS. Prints records/s and launches/s of the decoding alone.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <tracekit/error.h>

#include "cupti_decode.h"
#include "fake_cupti.h"

#define BUFFER_BYTES (4u << 20)

static double now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: %s STORE RECORDS\n", argv[0]);
		return 2;
	}
	long long want = atoll(argv[2]);
	const struct tkcap_cupti_api *api;
	char err[1024];
	setenv("TRACEKIT_LIBCUPTI", TK_FAKE_CUPTI, 1);
	if (tkcap_cupti_load(&api, err, sizeof(err)) != 0) {
		fprintf(stderr, "%s\n", err);
		return 3;
	}
	static char names[64][64];
	for (int i = 0; i < 64; i++)
		snprintf(names[i], sizeof(names[i]), "_Z%dkernel_%02dPfS_i", i < 10 ? 9 : 10, i);

	tk_writer *w = NULL;
	struct tkcap_host_writer *hw = NULL;
	struct tkcap_cupti_decoder *d = NULL;
	struct tk_trace_options o;
	int64_t pid;
	tk_trace_options_init(&o);
	int rc = tk_writer_create(argv[1], &w);
	if (rc == TK_OK)
		rc = tkcap_store_setup(w, "cupti", &o, &pid);
	if (rc == TK_OK)
		rc = tkcap_host_writer_create(w, pid, 1, &hw);
	if (rc == TK_OK)
		rc = tkcap_cupti_decoder_create(w, pid, hw, api, &d);
	if (rc != TK_OK) {
		fprintf(stderr, "cannot create %s\n", argv[1]);
		return 3;
	}
	struct tkc_device5 dev;
	fake_h100(&dev, 0, "Bench H100");

	uint8_t *buf = aligned_alloc(8, BUFFER_BYTES);
	size_t used = 0;
	memcpy(buf, &dev, sizeof(dev));
	used = sizeof(dev);
	long long records = 1, launches = 0;
	uint64_t t = 1767225600000000000ull;
	uint32_t corr = 0;
	double decode_s = 0;
	while (records < want && rc == TK_OK) {
		size_t need = sizeof(struct tkc_api) * 2 + sizeof(struct tkc_kernel10) +
			      sizeof(struct tkc_memcpy6);
		if (used + need > BUFFER_BYTES) {
			double t0 = now_s();
			rc = tkcap_cupti_decode_buffer(d, buf, used);
			decode_s += now_s() - t0;
			used = 0;
		}
		struct tkc_api a;
		memset(&a, 0, sizeof(a));
		a.kind = TKC_KIND_RUNTIME;
		a.cbid = 211; /* cudaLaunchKernel */
		a.start = t;
		a.end = t + 3000;
		a.threadId = 4242;
		a.correlationId = ++corr;
		memcpy(buf + used, &a, sizeof(a));
		used += sizeof(a);
		struct tkc_kernel10 k;
		memset(&k, 0, sizeof(k));
		k.kind = TKC_KIND_CONCURRENT_KERNEL;
		k.name = names[launches % 64];
		k.start = t + 5000;
		k.end = t + 5000 + 20000 + launches % 7 * 1000;
		k.streamId = 7 + (uint32_t)(launches % 3);
		k.correlationId = corr;
		k.gridX = 264;
		k.gridY = k.gridZ = 1;
		k.blockX = 256;
		k.blockY = k.blockZ = 1;
		k.registersPerThread = 32 + launches % 5 * 16;
		memcpy(buf + used, &k, sizeof(k));
		used += sizeof(k);
		records += 2;
		launches++;
		t += 30000;
		if (launches % 10 == 0) {
			a.cbid = 41; /* cudaMemcpyAsync */
			a.start = t;
			a.end = t + 2000;
			a.correlationId = ++corr;
			memcpy(buf + used, &a, sizeof(a));
			used += sizeof(a);
			struct tkc_memcpy6 m;
			memset(&m, 0, sizeof(m));
			m.kind = TKC_KIND_MEMCPY;
			m.copyKind = TKC_COPY_HTOD;
			m.srcKind = TKC_MEM_PINNED;
			m.dstKind = TKC_MEM_DEVICE;
			m.bytes = 1 << 20;
			m.start = t + 3000;
			m.end = t + 13000;
			m.streamId = 7;
			m.correlationId = corr;
			memcpy(buf + used, &m, sizeof(m));
			used += sizeof(m);
			records += 2;
			t += 15000;
		}
	}
	double t0 = now_s();
	if (rc == TK_OK && used)
		rc = tkcap_cupti_decode_buffer(d, buf, used);
	if (rc == TK_OK)
		rc = tkcap_cupti_decoder_finish(d);
	tkcap_cupti_decoder_free(d);
	tkcap_host_writer_free(hw);
	if (rc == TK_OK) {
		tk_error *e = tk_error_new();
		rc = tk_writer_finish(w, e);
		snprintf(err, sizeof(err), "%s", tk_error_message(e));
		tk_error_free(e);
	} else {
		tk_writer_abort(w);
	}
	decode_s += now_s() - t0;
	free(buf);
	if (rc != TK_OK) {
		fprintf(stderr, "decoding failed: %s\n", err);
		return 3;
	}
	printf("%lld records (%lld launches) decoded into a finished store in %.3f s: %.0f "
	       "records/s, %.0f launches/s\n",
	       records, launches, decode_s, records / decode_s, launches / decode_s);
	return 0;
}

/*
 * Benchmark input generator: writes a synthetic .xplane.pb with N events shaped like a JAX GPU
 * trace (a GPU plane with 4 streams of kernels carrying kernel_details/hlo_op/correlation_id
 * stats by ref_value, a host plane with the matching cudaLaunchKernel calls, a Task Environment
 * plane). Deterministic. Usage: tk_xplane_gen OUT.xplane.pb N
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct buf {
	uint8_t *p;
	size_t n, cap;
};

static void put(struct buf *b, const void *d, size_t n)
{
	if (b->n + n > b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 4096;
		while (cap < b->n + n)
			cap *= 2;
		b->p = realloc(b->p, cap);
		if (!b->p) {
			fprintf(stderr, "tk_xplane_gen: out of memory\n");
			exit(3);
		}
		b->cap = cap;
	}
	memcpy(b->p + b->n, d, n);
	b->n += n;
}

static void varint(struct buf *b, uint64_t v)
{
	uint8_t t[10];
	int n = 0;
	do {
		t[n] = (uint8_t)(v & 0x7f);
		v >>= 7;
		if (v)
			t[n] |= 0x80;
		n++;
	} while (v);
	put(b, t, (size_t)n);
}

static void vfield(struct buf *b, unsigned f, uint64_t v)
{
	varint(b, (uint64_t)f << 3);
	varint(b, v);
}

static void lfield(struct buf *b, unsigned f, const void *d, size_t n)
{
	varint(b, (uint64_t)f << 3 | 2);
	varint(b, n);
	put(b, d, n);
}

static void sfield(struct buf *b, unsigned f, const char *s)
{
	lfield(b, f, s, strlen(s));
}

/* A map<int64, XStatMetadata> entry. */
static void stat_md(struct buf *plane, int64_t id, const char *name)
{
	struct buf m = {0}, e = {0};
	vfield(&m, 1, (uint64_t)id);
	sfield(&m, 2, name);
	vfield(&e, 1, (uint64_t)id);
	lfield(&e, 2, m.p, m.n);
	lfield(plane, 5, e.p, e.n);
	free(m.p);
	free(e.p);
}

static void event_md(struct buf *plane, int64_t id, const char *name)
{
	struct buf m = {0}, e = {0};
	vfield(&m, 1, (uint64_t)id);
	sfield(&m, 2, name);
	vfield(&e, 1, (uint64_t)id);
	lfield(&e, 2, m.p, m.n);
	lfield(plane, 4, e.p, e.n);
	free(m.p);
	free(e.p);
}

static void stat_int(struct buf *ev, int64_t md, int64_t v)
{
	struct buf s = {0};
	vfield(&s, 1, (uint64_t)md);
	vfield(&s, 4, (uint64_t)v);
	lfield(ev, 4, s.p, s.n);
	free(s.p);
}

static void stat_ref(struct buf *ev, int64_t md, uint64_t ref)
{
	uint8_t t[8] = {0x08, (uint8_t)md, 0x38, (uint8_t)ref};
	if (md > 127 || ref > 127)
		abort();
	lfield(ev, 4, t, 4);
}

enum {
	SM_KD = 1,
	SM_CORR = 2,
	SM_HLO = 3,
	SM_MOD = 4,
	SM_START = 5,
	SM_CLOCK = 6,
	SM_CORES = 7,
	SM_REF0 = 20,
	NK = 40,
	STREAMS = 4
};

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: tk_xplane_gen OUT.xplane.pb N\n");
		return 2;
	}
	long long n = atoll(argv[2]);
	FILE *f = fopen(argv[1], "wb");
	if (!f || n < 2) {
		fprintf(stderr, "tk_xplane_gen: cannot write '%s' (or N < 2)\n", argv[1]);
		return 2;
	}
	long long kernels = n / 2, launches = n - kernels;
	struct buf plane = {0}, line = {0}, ev = {0}, space = {0};
	char name[128];

	/* GPU plane: 4 streams of kernels. */
	vfield(&plane, 1, 0);
	sfield(&plane, 2, "/device:GPU:0");
	for (int s = 0; s < STREAMS; s++) {
		long long per = kernels / STREAMS + (s < kernels % STREAMS);
		line.n = 0;
		vfield(&line, 1, (uint64_t)(7 + s));
		snprintf(name, sizeof(name), "Stream #%d(Kernel)", 7 + s);
		sfield(&line, 2, name);
		vfield(&line, 3, 1000);
		for (long long i = 0; i < per; i++) {
			long long k = i * STREAMS + s;
			ev.n = 0;
			vfield(&ev, 1, (uint64_t)(1 + k % NK));
			vfield(&ev, 2, (uint64_t)(i * 5000000 + 123000));
			vfield(&ev, 3, (uint64_t)(1000000 + (k % 97) * 31000));
			stat_int(&ev, SM_CORR, k + 1);
			stat_ref(&ev, SM_KD, (uint64_t)(SM_REF0 + k % NK));
			stat_ref(&ev, SM_HLO, (uint64_t)(SM_REF0 + NK + k % NK));
			lfield(&line, 4, ev.p, ev.n);
		}
		lfield(&plane, 3, line.p, line.n);
	}
	for (int k = 0; k < NK; k++) {
		snprintf(name, sizeof(name), "void kernel_%d<float, %d>(float*, int)", k, k % 4);
		event_md(&plane, 1 + k, name);
	}
	stat_md(&plane, SM_KD, "kernel_details");
	stat_md(&plane, SM_CORR, "correlation_id");
	stat_md(&plane, SM_HLO, "hlo_op");
	stat_md(&plane, SM_CLOCK, "clock_rate");
	stat_md(&plane, SM_CORES, "core_count");
	for (int k = 0; k < NK; k++) {
		snprintf(name, sizeof(name),
			 "regs:%d static_shared:0 dynamic_shared:%d grid:%d,1,1 "
			 "block:256,1,1 occ_pct:50.0",
			 32 + k, k * 128, 80 * (k + 1));
		stat_md(&plane, SM_REF0 + k, name);
		snprintf(name, sizeof(name), "fusion.%d", k);
		stat_md(&plane, SM_REF0 + NK + k, name);
	}
	{
		struct buf s = {0};
		vfield(&s, 1, SM_CLOCK);
		vfield(&s, 4, 1980000);
		lfield(&plane, 6, s.p, s.n);
		s.n = 0;
		vfield(&s, 1, SM_CORES);
		vfield(&s, 4, 132);
		lfield(&plane, 6, s.p, s.n);
		free(s.p);
	}
	lfield(&space, 1, plane.p, plane.n);
	fwrite(space.p, 1, space.n, f);
	space.n = 0;

	/* Host plane: one thread of cudaLaunchKernel calls with the same correlation ids. */
	plane.n = 0;
	sfield(&plane, 2, "/host:CPU");
	line.n = 0;
	vfield(&line, 1, 4242);
	sfield(&line, 2, "python/4242");
	vfield(&line, 3, 1000);
	for (long long i = 0; i < launches; i++) {
		ev.n = 0;
		vfield(&ev, 1, 1);
		vfield(&ev, 2, (uint64_t)(i * 1250000));
		vfield(&ev, 3, 900000);
		stat_int(&ev, SM_CORR, i + 1);
		lfield(&line, 4, ev.p, ev.n);
	}
	lfield(&plane, 3, line.p, line.n);
	event_md(&plane, 1, "cudaLaunchKernel");
	stat_md(&plane, SM_CORR, "correlation_id");
	lfield(&space, 1, plane.p, plane.n);

	/* Task Environment: the clock. */
	plane.n = 0;
	sfield(&plane, 2, "Task Environment");
	stat_md(&plane, SM_START, "profile_start_time");
	{
		struct buf s = {0};
		vfield(&s, 1, SM_START);
		vfield(&s, 3, 1767225600000000000ull);
		lfield(&plane, 6, s.p, s.n);
		free(s.p);
	}
	lfield(&space, 1, plane.p, plane.n);
	sfield(&space, 4, "benchhost");
	fwrite(space.p, 1, space.n, f);
	int bad = ferror(f) | (fclose(f) != 0);
	free(plane.p);
	free(line.p);
	free(ev.p);
	free(space.p);
	if (bad) {
		fprintf(stderr, "tk_xplane_gen: write error on '%s'\n", argv[1]);
		return 3;
	}
	printf("wrote %s: %lld events (%lld kernels, %lld launches)\n", argv[1], n, kernels,
	       launches);
	return 0;
}

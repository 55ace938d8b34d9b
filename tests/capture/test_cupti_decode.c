/*
 * The CUPTI record decoder without a GPU: hand-built CUDA 13 activity records (Kernel10,
 * Memcpy6, Memset4, Memory4, API, Synchronization2, Marker2, Device5) in one buffer, walked by
 * the fake libcupti's cuptiActivityGetNextRecord (tests/capture/fake), decoded into a store
 * whose rows are asserted exactly; where the build found a CUDA toolkit, the real libcupti
 * walks and names the same buffer and the store must be identical. Skipped with a message when
 * capture is not built (TK_WITH_CUPTI=OFF).
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include <tk_config.h>
#include <tracekit/error.h>
#include <tracekit/store.h>

#include "tk_test.h"

#if !TK_HAVE_CUPTI

Test(cupti_decode, skipped_without_cupti)
{
	cr_skip_test("capture is not built (TK_WITH_CUPTI=OFF)");
}

#else

#include <dlfcn.h>

#include "cupti_decode.h"
#include "fake_cupti.h"

#define T0 1767225600000000000ull

static char *dir, *db;
static uint8_t *buf;
static size_t off;

static void setup(void)
{
	dir = tkt_mkdtemp();
	db = tkt_path(dir, "c.db");
	buf = aligned_alloc(8, 1 << 16);
	memset(buf, 0, 1 << 16);
	off = 0;
}

static void teardown(void)
{
	tkt_rmdir(dir);
	free(dir);
	free(db);
	free(buf);
}

TestSuite(cupti_decode, .init = setup, .fini = teardown);

static void *rec(size_t size)
{
	void *r = buf + off;
	off += size;
	return r;
}

static void add_device(uint32_t id)
{
	fake_h100(rec(sizeof(struct tkc_device5)), id, "NVIDIA H100 80GB HBM3");
}

static void add_api(uint32_t kind, uint32_t cbid, uint64_t start, uint64_t end, uint32_t tid,
		    uint32_t corr)
{
	struct tkc_api *a = rec(sizeof(*a));
	a->kind = kind;
	a->cbid = cbid;
	a->start = start;
	a->end = end;
	a->processId = 77;
	a->threadId = tid;
	a->correlationId = corr;
}

static void add_kernel(const char *name, uint64_t start, uint64_t end, uint32_t stream,
		       uint32_t corr, int regs, int smem)
{
	struct tkc_kernel10 *k = rec(sizeof(*k));
	k->kind = TKC_KIND_CONCURRENT_KERNEL;
	k->name = name;
	k->start = start;
	k->end = end;
	k->deviceId = 0;
	k->streamId = stream;
	k->correlationId = corr;
	k->gridX = 264;
	k->gridY = 2;
	k->gridZ = 1;
	k->blockX = 128;
	k->blockY = 1;
	k->blockZ = 1;
	k->registersPerThread = (uint16_t)regs;
	k->staticSharedMemory = smem;
	k->dynamicSharedMemory = 1024;
}

/* The whole synthetic session; records deliberately out of order where CUPTI may be. */
static void build_buffer(void)
{
	add_device(0);
	/* kernel before its launch API record (different buffers in real life) */
	add_kernel("_Z6vecAddPfS_i", T0 + 1000, T0 + 6000, 7, 11, 32, 0);
	add_api(TKC_KIND_RUNTIME, FAKE_CBID_RT_LAUNCH_KERNEL, T0 + 100, T0 + 900, 4242, 11);
	add_api(TKC_KIND_RUNTIME, FAKE_CBID_RT_LAUNCH_KERNEL, T0 + 7000, T0 + 7500, 4242, 12);
	add_kernel("plain_c_kernel", T0 + 8000, T0 + 9000, 7, 12, 128, 32768);

	struct tkc_memcpy6 *m = rec(sizeof(*m));
	m->kind = TKC_KIND_MEMCPY;
	m->copyKind = TKC_COPY_HTOD;
	m->srcKind = TKC_MEM_PAGEABLE;
	m->dstKind = TKC_MEM_DEVICE;
	m->flags = TKC_FLAG_MEMCPY_ASYNC;
	m->bytes = 1 << 20;
	m->start = T0 + 10000;
	m->end = T0 + 12000;
	m->streamId = 7;
	m->correlationId = 13;
	add_api(TKC_KIND_RUNTIME, FAKE_CBID_RT_MEMCPY_ASYNC, T0 + 9500, T0 + 9800, 4242, 13);

	add_api(TKC_KIND_DRIVER, FAKE_CBID_DRV_MEMSET_D8_ASYNC, T0 + 12500, T0 + 12600, 4243, 14);
	struct tkc_memset4 *s = rec(sizeof(*s));
	s->kind = TKC_KIND_MEMSET;
	s->value = 0;
	s->bytes = 4096;
	s->start = T0 + 13000;
	s->end = T0 + 13100;
	s->streamId = 9;
	s->correlationId = 14;
	s->memoryKind = TKC_MEM_DEVICE;

	add_api(TKC_KIND_RUNTIME, FAKE_CBID_RT_MALLOC, T0 + 50, T0 + 90, 4242, 10);
	struct tkc_memory4 *a = rec(sizeof(*a));
	a->kind = TKC_KIND_MEMORY2;
	a->memoryOperationType = TKC_MEMORY_OP_ALLOCATION;
	a->memoryKind = TKC_MEM_DEVICE;
	a->correlationId = 10;
	a->address = 0x7f0000000000ull;
	a->bytes = 1 << 22;
	a->timestamp = T0 + 80;
	a->deviceId = 0;
	struct tkc_memory4 *f = rec(sizeof(*f));
	*f = *a;
	f->memoryOperationType = TKC_MEMORY_OP_RELEASE;
	f->correlationId = 0;
	f->timestamp = T0 + 20000;

	add_api(TKC_KIND_RUNTIME, FAKE_CBID_RT_STREAM_SYNCHRONIZE, T0 + 14000, T0 + 15000, 4242,
		15);
	struct tkc_sync2 *y = rec(sizeof(*y));
	y->kind = TKC_KIND_SYNCHRONIZATION;
	y->type = TKC_SYNC_STREAM_SYNCHRONIZE;
	y->start = T0 + 14100;
	y->end = T0 + 14900;
	y->correlationId = 15;
	y->streamId = 7;
	y->cudaEventId = TKC_SYNC_INVALID_VALUE;

	struct tkc_marker2 *ms = rec(sizeof(*ms));
	ms->kind = TKC_KIND_MARKER;
	ms->flags = TKC_FLAG_MARKER_START;
	ms->timestamp = T0 + 40;
	ms->id = 5;
	ms->objectKind = TKC_OBJECT_THREAD;
	ms->objectId.pt.processId = 77;
	ms->objectId.pt.threadId = 4242;
	ms->name = "train step";
	struct tkc_marker2 *me = rec(sizeof(*me));
	*me = *ms;
	me->flags = TKC_FLAG_MARKER_END;
	me->timestamp = T0 + 16000;
	me->name = NULL;

	/* a kernel CUPTI could not time: counted, not stored */
	add_kernel("untimed", 0, 0, 7, 16, 32, 0);
}

/* The fake libcupti through the injection library's own loader. */
static const struct tkcap_cupti_api *fake_api(void)
{
	const struct tkcap_cupti_api *api;
	char err[512];
	setenv("TRACEKIT_LIBCUPTI", TK_FAKE_CUPTI, 1);
	cr_assert_eq(tkcap_cupti_load(&api, err, sizeof(err)), 0, "%s", err);
	return api;
}

static int decode_with(const char *path, const struct tkcap_cupti_api *api)
{
	tk_writer *w = NULL;
	struct tkcap_host_writer *hw = NULL;
	struct tkcap_cupti_decoder *d = NULL;
	struct tk_trace_options o;
	int64_t process_id;
	tk_trace_options_init(&o);
	int rc = tk_writer_create(path, &w);
	if (rc == TK_OK)
		rc = tkcap_store_setup(w, "cupti", &o, &process_id);
	if (rc == TK_OK)
		rc = tkcap_host_writer_create(w, process_id, 77, &hw);
	if (rc == TK_OK)
		rc = tkcap_cupti_decoder_create(w, process_id, hw, api, &d);
	if (rc == TK_OK)
		rc = tkcap_cupti_decode_buffer(d, buf, off);
	if (rc == TK_OK)
		rc = tkcap_cupti_decoder_finish(d);
	tkcap_cupti_decoder_free(d);
	tkcap_host_writer_free(hw);
	if (rc != TK_OK) {
		cr_log_error("decode failed: %s", tk_writer_errmsg(w));
		tk_writer_abort(w);
		return rc;
	}
	rc = tk_writer_finish(w, tkt_err());
	if (rc != TK_OK)
		cr_log_error("finish failed: %s", tkt_errmsg());
	return rc;
}

static int decode_into(const char *path)
{
	return decode_with(path, fake_api());
}

static void expect_rows(const char *sql, const char *want)
{
	char *got = tkt_rows(db, sql);
	cr_expect_str_eq(got, want, "%s\n--- got:\n%s\n--- want:\n%s", sql, got, want);
	free(got);
}

Test(cupti_decode, the_fake_record_walker_steps_over_every_record)
{
	build_buffer();
	const struct tkcap_cupti_api *api = fake_api();
	struct tkc_record *r = NULL;
	int n = 0;
	tkc_result st;
	while ((st = api->ActivityGetNextRecord(buf, off, &r)) == TKC_SUCCESS)
		n++;
	cr_expect_eq(n, 17);
	cr_expect_eq(st, TKC_ERROR_MAX_LIMIT_REACHED);
	r = NULL; /* a buffer cut inside its last record ends before it */
	for (n = 0; api->ActivityGetNextRecord(buf, off - 8, &r) == TKC_SUCCESS;)
		n++;
	cr_expect_eq(n, 16);
}

Test(cupti_decode, the_real_libcupti_walks_and_names_the_same_records)
{
#ifndef TK_REAL_CUPTI
	cr_skip_test("no CUDA toolkit was found at build time: only the fake libcupti is tested");
#else
	build_buffer();
	void *h = dlopen(TK_REAL_CUPTI, RTLD_NOW | RTLD_LOCAL);
	cr_assert(h, "%s", dlerror());
	struct tkcap_cupti_api real = {.handle = h};
	*(void **)&real.ActivityGetNextRecord = dlsym(h, "cuptiActivityGetNextRecord");
	*(void **)&real.GetCallbackName = dlsym(h, "cuptiGetCallbackName");
	cr_assert(real.ActivityGetNextRecord && real.GetCallbackName);
	struct tkc_record *r = NULL;
	int n = 0;
	tkc_result st;
	while ((st = real.ActivityGetNextRecord(buf, off, &r)) == TKC_SUCCESS)
		n++;
	cr_expect_eq(n, 17, "our record sizes are CUPTI's: it found %d records", n);
	cr_expect_eq(st, TKC_ERROR_MAX_LIMIT_REACHED);
	char *other = tkt_path(dir, "real.db");
	cr_assert_eq(decode_with(db, fake_api()), TK_OK);
	cr_assert_eq(decode_with(other, &real), TK_OK);
	cr_expect_eq(tkt_store_digest(db), tkt_store_digest(other),
		     "the real and the fake libcupti give different stores");
	free(other);
	/* (not closed: CUPTI's allocations stay reachable from its globals until exit) */
#endif
}

Test(cupti_decode, kernels_keep_names_times_and_launch_config)
{
	build_buffer();
	cr_assert_eq(decode_into(db), TK_OK);
	expect_rows("SELECT name, mangled_name, ts_ns - 1767225600000000000, dur_ns, stream_id,"
		    " device_id, correlation_id, grid_x, grid_y, grid_z, block_x, block_y, block_z,"
		    " registers, static_smem, dynamic_smem, round(blocks_per_sm, 4),"
		    " round(warps_per_sm, 4) FROM kernels ORDER BY ts_ns",
		    "vecAdd(float*, float*, int)|_Z6vecAddPfS_i|1000|5000|7|0|11|264|2|1|128|1|1|"
		    "32|0|1024|4.0|16.0\n"
		    "plain_c_kernel|NULL|8000|1000|7|0|12|264|2|1|128|1|1|128|32768|1024|4.0|16.0");
	/* H100: 32 regs x 128 threads -> 16 blocks/SM (2048 threads) = 100%; 128 regs -> 4 blocks
	 * (registers), 25%: the calculator with carveout DEFAULT */
	expect_rows("SELECT name, occupancy FROM kernels ORDER BY ts_ns",
		    "vecAdd(float*, float*, int)|1.0\nplain_c_kernel|0.25");
	expect_rows("SELECT count(*) FROM kernels WHERE name = 'untimed'", "0");
	expect_rows("SELECT value FROM meta WHERE key = 'cupti.invalid_timestamps'", "1");
}

Test(cupti_decode, copies_sets_and_memory_records)
{
	build_buffer();
	cr_assert_eq(decode_into(db), TK_OK);
	expect_rows(
	    "SELECT name, ts_ns - 1767225600000000000, dur_ns, bytes, copy_kind, src_kind,"
	    " dst_kind, src_device_id, dst_device_id, stream_id FROM memcpys",
	    "Memcpy HtoD (Pageable -> Device)|10000|2000|1048576|H2D|pageable|device|NULL|0|7");
	expect_rows("SELECT name, ts_ns - 1767225600000000000, dur_ns, bytes, value, mem_kind,"
		    " stream_id FROM memsets",
		    "Memset (Device)|13000|100|4096|0|device|9");
	expect_rows(
	    "SELECT kind, ts_ns - 1767225600000000000, device_id,"
	    " pid = (SELECT pid FROM processes), address, bytes,"
	    " mem_kind, allocator, op_event_id IS NOT NULL FROM memory_events ORDER BY ts_ns",
	    "alloc|80|0|1|139637976727552|4194304|device|cuda|1\n"
	    "free|20000|0|1|139637976727552|4194304|device|cuda|0");
	expect_rows("SELECT a.name FROM memory_events m JOIN api_calls a ON a.id = m.op_event_id",
		    "cudaMalloc");
}

Test(cupti_decode, api_calls_syncs_markers_and_launch_flows)
{
	build_buffer();
	cr_assert_eq(decode_into(db), TK_OK);
	expect_rows("SELECT name, api, ts_ns - 1767225600000000000, dur_ns, tid, correlation_id"
		    " FROM api_calls ORDER BY ts_ns",
		    "cudaMalloc|runtime|50|40|4242|10\n"
		    "cudaLaunchKernel|runtime|100|800|4242|11\n"
		    "cudaLaunchKernel|runtime|7000|500|4242|12\n"
		    "cudaMemcpyAsync|runtime|9500|300|4242|13\n"
		    "cuMemsetD8Async|driver|12500|100|4243|14\n"
		    "cudaStreamSynchronize|runtime|14000|1000|4242|15");
	/* launch flows, whichever of the pair came first */
	expect_rows("SELECT f.kind, sa.str, sd.str, a.correlation_id FROM flows f"
		    " JOIN events a ON a.id = f.src_event_id JOIN events d ON d.id = f.dst_event_id"
		    " JOIN strings sa ON sa.id = a.name_id JOIN strings sd ON sd.id = d.name_id"
		    " ORDER BY a.correlation_id",
		    "launch|cudaLaunchKernel|vecAdd(float*, float*, int)|11\n"
		    "launch|cudaLaunchKernel|plain_c_kernel|12\n"
		    "launch|cudaMemcpyAsync|Memcpy HtoD (Pageable -> Device)|13\n"
		    "launch|cuMemsetD8Async|Memset (Device)|14");
	/* the sync sits on the thread of its API call */
	expect_rows("SELECT s.str, e.ts_ns - 1767225600000000000, e.dur_ns, t.tid FROM events e"
		    " JOIN strings s ON s.id = e.name_id JOIN tracks t ON t.id = e.track_id"
		    " WHERE e.kind = 12",
		    "Stream synchronize|14100|800|4242");
	expect_rows(
	    "SELECT name, category, ts_ns - 1767225600000000000, dur_ns, tid FROM annotations",
	    "train step|nvtx|40|15960|4242");
	expect_rows("SELECT kind, s.str, tid, stream_id, device_id FROM tracks t"
		    " LEFT JOIN strings s ON s.id = t.name_id ORDER BY t.id",
		    "stream|Stream #7|NULL|7|0\nthread|thread 4242|4242|NULL|NULL\n"
		    "thread|thread 4243|4243|NULL|NULL\nstream|Stream #9|NULL|9|0");
}

Test(cupti_decode, device_properties_and_counts)
{
	build_buffer();
	cr_assert_eq(decode_into(db), TK_OK);
	expect_rows(
	    "SELECT d.id, ordinal, kind, s.str, vendor, compute_capability, sm_count,"
	    " clock_hz, memory_bytes, memory_bandwidth_bps, max_threads_per_sm,"
	    " max_regs_per_sm, max_smem_per_sm FROM devices d JOIN strings s ON s.id = d.name_id",
	    "0|0|gpu|NVIDIA H100 80GB HBM3|nvidia|9.0|132|1980000000|85520809984|"
	    "3352320000000|2048|65536|233472");
	expect_rows("SELECT key, value FROM meta WHERE key LIKE 'cupti.%' ORDER BY key",
		    "cupti.api_calls|6\ncupti.devices|1\ncupti.dropped_records|0\ncupti.flows|4\n"
		    "cupti.invalid_timestamps|1\ncupti.kernels|2\ncupti.markers|1\n"
		    "cupti.memcpys|1\ncupti.memory_records|2\ncupti.memsets|1\n"
		    "cupti.outside_window|0\ncupti.overheads|0\ncupti.records|17\ncupti.syncs|1\n"
		    "cupti.unhandled_records|0");
}

Test(cupti_decode, windows_keep_only_records_that_start_inside)
{
	build_buffer();
	tk_writer *w = NULL;
	struct tkcap_host_writer *hw = NULL;
	struct tkcap_cupti_decoder *d = NULL;
	int64_t pid;
	struct tk_trace_options o;
	tk_trace_options_init(&o);
	cr_assert_eq(tk_writer_create(db, &w), TK_OK);
	cr_assert_eq(tkcap_store_setup(w, "cupti", &o, &pid), TK_OK);
	cr_assert_eq(tkcap_host_writer_create(w, pid, 77, &hw), TK_OK);
	cr_assert_eq(tkcap_cupti_decoder_create(w, pid, hw, fake_api(), &d), TK_OK);
	tkcap_cupti_decoder_gate(d, 1);
	tkcap_cupti_decoder_window(d, 1, (int64_t)T0 + 7000);
	tkcap_cupti_decoder_window(d, 0, (int64_t)T0 + 11000);
	cr_assert_eq(tkcap_cupti_decode_buffer(d, buf, off), TK_OK);
	cr_assert_eq(tkcap_cupti_decoder_finish(d), TK_OK);
	tkcap_cupti_decoder_free(d);
	tkcap_host_writer_free(hw);
	cr_assert_eq(tk_writer_finish(w, tkt_err()), TK_OK, "%s", tkt_errmsg());
	expect_rows("SELECT name FROM intervals ORDER BY ts_ns",
		    "cudaLaunchKernel\nplain_c_kernel\ncudaMemcpyAsync\n"
		    "Memcpy HtoD (Pageable -> Device)");
	expect_rows("SELECT count(*) FROM flows", "2");
}

#endif

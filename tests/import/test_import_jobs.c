/*
 * Tests of parallel import (tk_import_files(), store/parallel.c, store/recorder.c): with 2, 4 or 8
 * jobs the store has the same bytes as with one, the warnings come in the same order, and the
 * first failing file in input order fails the import with the message of one job; the recording
 * writer replayed equals the direct calls (every call, ids mapped, with earlier files before it,
 * and a producer larger than its queue's bound); `tracekit import --jobs` leaves nothing at -o
 * on a failure.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tracekit/error.h>
#include <tracekit/import.h>
#include <tracekit/store.h>
#include <zlib.h>

#include "store/parallel.h"
#include "tk_test.h"

#define DATA TK_SOURCE_DIR "/tests/data/"
#define REAL DATA "real/"

/* Warnings collected in order, one per line. */
struct warnings {
	char text[1 << 16];
	size_t len;
};

static void collect(void *ctx, const char *message)
{
	struct warnings *w = ctx;
	int n = snprintf(w->text + w->len, sizeof(w->text) - w->len, "%s\n", message);
	if (n > 0 && (size_t)n < sizeof(w->text) - w->len)
		w->len += (size_t)n;
}

TKT_TMPDIR_FIXTURE;

TestSuite(import_jobs, .init = setup, .fini = teardown);

/* Finish @w after a fill that returned @rc, or abort it; @rc, the writer's message in @msg. */
static int end_store(tk_writer *w, int rc, char *msg, size_t msg_len)
{
	snprintf(msg, msg_len, "%s", tk_writer_errmsg(w));
	if (rc == TK_OK)
		cr_assert_eq(tk_writer_finish(w, NULL), TK_OK);
	else
		tk_writer_abort(w);
	return rc;
}

/* Import @files into a store at @name under dir with @jobs; the status, its message in @msg. */
static int import_all(const char *name, const struct tk_import_file *files, size_t n, int jobs,
		      struct warnings *warn, char *msg, size_t msg_len)
{
	char *path = tkt_path(dir, name);
	tk_writer *w = NULL;
	struct tk_import_options o;
	tk_import_options_init(&o);
	o.warn = collect;
	o.warn_ctx = warn;
	int rc = tk_writer_create(path, &w);
	cr_assert_eq(rc, TK_OK);
	rc = end_store(w, tk_import_files(w, files, n, jobs, &o), msg, msg_len);
	free(path);
	return rc;
}

/* The stores @a and @b under dir have the same bytes. */
static void expect_same_store(const char *a, const char *b)
{
	char *pa = tkt_path(dir, a), *pb = tkt_path(dir, b);
	size_t na, nb;
	char *da = tkt_slurp(pa, &na), *db = tkt_slurp(pb, &nb);
	cr_assert(da && db);
	cr_expect(na == nb && !memcmp(da, db, na), "stores %s and %s differ", a, b);
	free(da);
	free(db);
	free(pa);
	free(pb);
}

/* Vendored inputs of every kind: Kineto JSON plain and gzip, Chrome JSON with warnings, the
 * host files of XPlane runs; file_index as `tracekit import` gives them. */
static const struct tk_import_file mixed[] = {
    {DATA "json/kineto_small.json", TK_FORMAT_UNKNOWN, 0},
    {REAL "kineto/kineto/tb_plugin/samples/resnet50_num_workers_0/"
	  "worker0.1623143089861.pt.trace.json.gz",
     TK_FORMAT_CHROME_JSON, 1},
    {DATA "json/chrome_generic.json", TK_FORMAT_CHROME_JSON, 2},
    {REAL "kineto/HolisticTraceAnalysis/tests/data/trace_filter/sampled_rank-0.json.gz",
     TK_FORMAT_UNKNOWN, 3},
    {REAL "xplane/logdir/plugins/profile/jax08_mi300x_gemm/tw003.xplane.pb", TK_FORMAT_XPLANE, 4},
    {REAL "xplane/logdir/plugins/profile/xprof_tpu_v6e_inference/tpu_inference_2.xplane.pb",
     TK_FORMAT_XPLANE, 4},
    {REAL "kineto/HolisticTraceAnalysis/tests/data/trace_filter/sampled_rank-1.json.gz",
     TK_FORMAT_CHROME_JSON, 5},
};
#define NMIXED (sizeof(mixed) / sizeof(mixed[0]))

Test(import_jobs, every_number_of_jobs_writes_the_same_store_and_warnings)
{
	static struct warnings w1, wn;
	char msg[512];
	cr_assert_eq(import_all("j1.db", mixed, NMIXED, 1, &w1, msg, sizeof(msg)), TK_OK, "%s",
		     msg);
	cr_assert(strstr(w1.text, "chrome_generic.json"), "the inputs warn: %s", w1.text);
	static const int jobs[] = {2, 4, 8};
	for (size_t k = 0; k < sizeof(jobs) / sizeof(jobs[0]); k++) {
		char name[32];
		memset(&wn, 0, sizeof(wn));
		snprintf(name, sizeof(name), "j%d.db", jobs[k]);
		cr_assert_eq(import_all(name, mixed, NMIXED, jobs[k], &wn, msg, sizeof(msg)), TK_OK,
			     "%s", msg);
		expect_same_store("j1.db", name);
		cr_expect_str_eq(wn.text, w1.text, "warnings with %d jobs", jobs[k]);
	}
}

/* A truncated copy of a trace: its first @n bytes. */
static char *truncated(const char *src, const char *name, size_t n)
{
	size_t len;
	char *text = tkt_slurp(src, &len);
	cr_assert(text && len > n);
	char *path = tkt_path(dir, name);
	tkt_spit(path, text, n);
	free(text);
	return path;
}

Test(import_jobs, the_first_failing_file_in_input_order_fails_the_import_as_with_one_job)
{
	char *cut = truncated(DATA "json/kineto_small.json", "cut.json", 3000);
	const struct tk_import_file files[] = {
	    mixed[2],
	    {cut, TK_FORMAT_CHROME_JSON, 1},
	    mixed[3],
	    {DATA "json/bad_nesting.json", TK_FORMAT_CHROME_JSON, 3},
	};
	static struct warnings w1, w4;
	char m1[512], m4[512];
	int rc1 = import_all("e1.db", files, 4, 1, &w1, m1, sizeof(m1));
	int rc4 = import_all("e4.db", files, 4, 4, &w4, m4, sizeof(m4));
	cr_assert_eq(rc1, TK_EFORMAT, "%s", m1);
	cr_assert(strstr(m1, "cut.json") && strstr(m1, "truncated"), "%s", m1);
	cr_expect_eq(rc4, rc1);
	cr_expect_str_eq(m4, m1);
	cr_expect_str_eq(w4.text, w1.text);
	char *p = tkt_path(dir, "e4.db");
	cr_expect(!tkt_exists(p));
	free(p);
	free(cut);
}

Test(import_jobs, the_cli_fails_alike_and_leaves_nothing_at_the_output)
{
	char *cut = truncated(DATA "json/kineto_small.json", "cut.json", 3000);
	char *out = tkt_path(dir, "out.db");
	struct tkt_run r[2];
	for (int k = 0; k < 2; k++)
		r[k] = tkt_tracekit("import", mixed[0].path, cut, mixed[2].path,
				    DATA "json/bad_nesting.json", "-o", out, "--jobs",
				    k ? "4" : "1", NULL);
	cr_expect_eq(r[0].code, 2, "%s", r[0].err);
	cr_expect_eq(r[1].code, 2, "%s", r[1].err);
	cr_expect_str_eq(r[1].err, r[0].err);
	cr_expect(strstr(r[0].err, "cut.json"), "%s", r[0].err);
	cr_expect(!tkt_exists(out));
	tkt_run_free(&r[0]);
	tkt_run_free(&r[1]);
	free(out);
	free(cut);
}

/* The text of gzip file @path, *@len bytes. */
static char *gunzip(const char *path, size_t *len)
{
	gzFile f = gzopen(path, "rb");
	cr_assert(f);
	size_t cap = 1 << 20, n = 0;
	char *text = malloc(cap);
	int got;
	while (text && (got = gzread(f, text + n, (unsigned)(cap - n))) > 0)
		if ((n += (size_t)got) == cap)
			text = realloc(text, cap *= 2);
	cr_assert(text);
	gzclose(f);
	*len = n;
	return text;
}

/*
 * One file imported alone with 2 jobs (parsed on a worker against a recording writer, replayed
 * here) and with 1: the same status, message, warnings and store bytes, with and without
 * --salvage.
 */
static void expect_one_file_alike(const char *path, int salvage)
{
	const struct tk_import_file f = {path, TK_FORMAT_UNKNOWN, 0};
	static struct warnings w1, w2;
	char m1[512], m2[512];
	memset(&w1, 0, sizeof(w1));
	memset(&w2, 0, sizeof(w2));
	char *p1 = tkt_path(dir, "one1.db"), *p2 = tkt_path(dir, "one2.db");
	int rc[2];
	for (int k = 0; k < 2; k++) {
		tk_writer *w = NULL;
		struct tk_import_options o;
		tk_import_options_init(&o);
		o.warn = collect;
		o.warn_ctx = k ? &w2 : &w1;
		o.salvage = salvage;
		remove(k ? p2 : p1);
		cr_assert_eq(tk_writer_create(k ? p2 : p1, &w), TK_OK);
		rc[k] =
		    end_store(w, tk_import_files(w, &f, 1, k ? 2 : 1, &o), k ? m2 : m1, sizeof(m1));
	}
	cr_expect_eq(rc[1], rc[0], "%s (salvage %d): %s / %s", path, salvage, m1, m2);
	cr_expect_str_eq(m2, m1, "%s (salvage %d)", path, salvage);
	cr_expect_str_eq(w2.text, w1.text, "%s (salvage %d)", path, salvage);
	if (rc[0] == TK_OK)
		expect_same_store("one1.db", "one2.db");
	free(p1);
	free(p2);
}

Test(import_jobs, one_file_with_two_jobs_writes_what_one_job_writes)
{
	static const char *const inputs[] = {
	    DATA "json/kineto_small.json",
	    DATA "json/chrome_generic.json",
	    DATA "json/bad_escape.json",
	    DATA "json/bad_huge_ts.json",
	    DATA "json/bad_literal.json",
	    DATA "json/bad_negative_dur.json",
	    DATA "json/bad_nesting.json",
	    DATA "json/bad_number.json",
	    DATA "json/bad_trailing.json",
	    DATA "json/bad_truncated.json",
	    REAL "kineto/HolisticTraceAnalysis/tests/data/trace_filter/sampled_rank-0.json.gz",
	    REAL "kineto/kineto/tb_plugin/samples/resnet50_num_workers_0/"
		 "worker0.1623143089861.pt.trace.json.gz",
	};
	for (size_t i = 0; i < sizeof(inputs) / sizeof(inputs[0]); i++)
		for (int salvage = 0; salvage < 2; salvage++)
			expect_one_file_alike(inputs[i], salvage);
	/* a real trace (many batches of events) cut in its middle, plain and gzip */
	const char *big = REAL "kineto/HolisticTraceAnalysis/tests/data/trace_filter/"
			       "sampled_rank-0.json.gz";
	size_t len, zlen;
	char *text = gunzip(big, &len), *z = tkt_slurp(big, &zlen);
	static const double cuts[] = {0.3, 0.77};
	for (size_t k = 0; k < sizeof(cuts) / sizeof(cuts[0]); k++) {
		char *plain = tkt_path(dir, "cut.json"), *gz = tkt_path(dir, "cut.json.gz");
		tkt_spit(plain, text, (size_t)(cuts[k] * (double)len));
		tkt_spit(gz, z, (size_t)(cuts[k] * (double)zlen));
		for (int salvage = 0; salvage < 2; salvage++) {
			expect_one_file_alike(plain, salvage);
			expect_one_file_alike(gz, salvage);
		}
		free(plain);
		free(gz);
	}
	/* a negative dur far into the file: the mapping fails (or, salvaging, stops) while the
	 * writer replays what came before */
	char *at = NULL;
	for (char *q = text + len * 2 / 3; !at && (q = strstr(q, "\"dur\": ")) != NULL; q++)
		if (q[7] >= '1' && q[7] <= '9')
			at = q + 7;
	cr_assert(at, "no dur in the last third of %s", big);
	at[-1] = '-';
	char *neg = tkt_path(dir, "neg.json");
	tkt_spit(neg, text, len);
	for (int salvage = 0; salvage < 2; salvage++)
		expect_one_file_alike(neg, salvage);
	free(neg);
	free(text);
	free(z);
}

/* ---- the recorder through tkw_parallel(), with producers that make every writer call ---- */

#define BIG_EVENTS 600000 /* producer 2: about 60 MiB of records, beyond its queue's bound */

/* Producer @i: interned and literal strings, processes, devices, tracks, events of every kind
 * with details, flows and args between them, counters, memory events, meta, a warning; and a
 * failure when @fail is that producer. */
struct calls {
	size_t fail;
};

static int produce(void *ctx, size_t i, tk_writer *w, tkw_warn_fn warn, void *warn_ctx)
{
	const struct calls *c = ctx;
	int64_t proc, dev, thread, stream, counter, ev[6];
	char name[64];
	snprintf(name, sizeof(name), "file %zu", i);
	tk_writer_add_source(w, "test", name, i % 2 ? "host-b" : NULL, (int64_t)i);
	uint32_t k1 = tk_writer_intern(w, "kernel_a"), k2 = tk_writer_intern(w, name);
	uint32_t cat = tk_writer_intern(w, "kernel");
	struct tk_process_info p = {100 + (int64_t)i, "python", "host", (int64_t)i};
	tk_writer_add_process(w, &p, &proc);
	struct tk_device_info d = {.ordinal = 0,
				   .name = "H100",
				   .process_id = proc,
				   .rank = TK_NONE,
				   .sm_count = 132,
				   .clock_hz = TK_NONE,
				   .memory_bytes = TK_NONE,
				   .memory_bandwidth_bps = TK_NONE,
				   .peak_flops = -1,
				   .max_threads_per_sm = TK_NONE,
				   .max_regs_per_sm = TK_NONE,
				   .max_smem_per_sm = TK_NONE};
	tk_writer_add_device(w, &d, &dev);
	struct tk_track_info th = {TK_TRACK_THREAD, "main", proc, TK_NONE, 7, TK_NONE, NULL};
	struct tk_track_info st = {TK_TRACK_STREAM, "Stream 7", proc, dev, TK_NONE, 7, NULL};
	struct tk_track_info ct = {TK_TRACK_COUNTER, "mem", proc, dev, TK_NONE, TK_NONE, "bytes"};
	tk_writer_add_track(w, &th, &thread);
	tk_writer_add_track(w, &st, &stream);
	tk_writer_add_track(w, &ct, &counter);
	int64_t t0 = 1000 * (int64_t)i;
	struct tk_event e = {
	    thread, TK_EV_RUNTIME_API, "cudaLaunchKernel", 0, "cuda_runtime", 0, t0, 5, 1};
	tk_writer_add_event(w, &e, &ev[0]);
	struct tk_event ke = {stream, TK_EV_KERNEL, NULL, k1, NULL, cat, t0 + 10, 20, 1};
	struct tk_kernel_info ki = {.mangled_name = NULL,
				    .grid = {1, 2, 3},
				    .block = {128, 1, 1},
				    .registers = 32,
				    .static_smem = TK_NONE,
				    .dynamic_smem = 0,
				    .occupancy = 0.5,
				    .blocks_per_sm = -1,
				    .warps_per_sm = -1,
				    .mangled_name_id = k2};
	tk_writer_add_kernel(w, &ke, &ki, &ev[1]);
	struct tk_event ce = {stream, TK_EV_MEMCPY, "Memcpy HtoD", 0, NULL, 0, t0 + 40, 8, TK_NONE};
	struct tk_copy_info cp = {4096, TK_COPY_H2D, TK_MEM_PINNED, TK_MEM_DEVICE, TK_NONE, dev};
	tk_writer_add_copy(w, &ce, &cp, &ev[2]);
	struct tk_event se = {stream, TK_EV_MEMSET, "Memset", 0, NULL, 0, t0 + 50, 2, TK_NONE};
	struct tk_set_info si = {256, 0, TK_MEM_DEVICE};
	tk_writer_add_set(w, &se, &si, &ev[3]);
	struct tk_event pe = {thread, TK_EV_STEP, "ProfilerStep#1", 0, NULL, 0, t0, 60, TK_NONE};
	tk_writer_add_step(w, &pe, 1, &ev[4]);
	struct tk_event xe = {stream, TK_EV_XLA_OP, "fusion.1", 0, NULL, 0, t0 + 70, 3, TK_NONE};
	tk_writer_add_event(w, &xe, &ev[5]);
	struct tk_op_info op = {"fusion", "jit_f", NULL, "elementwise", 3, 1000, TK_NONE};
	tk_writer_add_op_details(w, ev[5], &op);
	tk_writer_add_flow(w, "launch", ev[0], ev[1]);
	tk_writer_add_flow(w, name, ev[4], ev[2]);
	tk_writer_add_arg_int(w, ev[1], "stream", 7);
	tk_writer_add_arg_real(w, ev[1], "occupancy %", 50.5);
	tk_writer_add_arg_text(w, ev[2], name, "pinned");
	tk_writer_add_counter(w, counter, t0 + 1, 12.5);
	struct tk_memory_event m = {.ts_ns = t0 + 3,
				    .device_id = dev,
				    .process_id = proc,
				    .address = 0x1000,
				    .bytes = 512,
				    .mem_kind = TK_MEM_DEVICE,
				    .allocator = i % 2 ? "caching" : NULL,
				    .op_event_id = ev[1],
				    .bytes_in_use = TK_NONE,
				    .bytes_reserved = TK_NONE,
				    .allocator_id = i % 2 ? 0 : k1,
				    .bytes_available = TK_NONE,
				    .peak_bytes_in_use = TK_NONE,
				    .requested_bytes = TK_NONE,
				    .fragmentation = -1,
				    .op_name = name};
	tk_writer_add_memory_event(w, &m);
	tk_writer_set_meta_text(w, "last file", name);
	tk_writer_set_meta_int(w, "files", (int64_t)i + 1);
	warn(warn_ctx, name);
	for (int64_t k = 0; i == 2 && k < BIG_EVENTS; k++) {
		struct tk_event b = {thread, TK_EV_HOST_OP, NULL, k % 3 ? k1 : k2, "op",
				     0,	     t0 + k,	    1,	  TK_NONE};
		tk_writer_add_event(w, &b, NULL);
	}
	if (i == c->fail)
		return tk_writer_fail(w, TK_EFORMAT, "'%s': broken at byte %zu", name, i);
	return tk_writer_status(w);
}

/* Run 5 producers with @jobs into the store @name under dir; its status and message. */
static int run_producers(const char *name, int jobs, size_t fail, struct warnings *warn, char *msg,
			 size_t msg_len)
{
	char *path = tkt_path(dir, name);
	tk_writer *w = NULL;
	struct calls c = {fail};
	cr_assert_eq(tk_writer_create(path, &w), TK_OK);
	int rc = end_store(w, tkw_parallel(w, 5, jobs, produce, &c, collect, warn), msg, msg_len);
	free(path);
	return rc;
}

Test(import_jobs, replayed_recordings_equal_the_direct_calls)
{
	static struct warnings w1, w3;
	char m[512];
	cr_assert_eq(run_producers("p1.db", 1, SIZE_MAX, &w1, m, sizeof(m)), TK_OK, "%s", m);
	cr_assert_eq(run_producers("p3.db", 3, SIZE_MAX, &w3, m, sizeof(m)), TK_OK, "%s", m);
	expect_same_store("p1.db", "p3.db");
	cr_expect_str_eq(w3.text, "file 0\nfile 1\nfile 2\nfile 3\nfile 4\n");
	cr_expect_str_eq(w1.text, w3.text);
	/* the ids of the fourth producer went to its own rows */
	char *p = tkt_path(dir, "p3.db");
	cr_expect_eq(tkt_query_int(p, "SELECT count(*) FROM flows f JOIN events s ON s.id = "
				      "f.src_event_id JOIN tracks t ON t.id = s.track_id JOIN "
				      "processes q ON q.id = t.process_id WHERE q.pid = 103"),
		     2);
	cr_expect_eq(tkt_query_int(p, "SELECT count(*) FROM flows f JOIN events s ON s.id = "
				      "f.src_event_id JOIN events d ON d.id = f.dst_event_id JOIN "
				      "tracks t ON t.id = d.track_id JOIN processes q ON q.id = "
				      "t.process_id WHERE f.kind = 'file 3' AND s.kind = 11 AND "
				      "d.kind = 6 AND q.pid = 103"),
		     1);
	cr_expect_eq(tkt_query_int(p, "SELECT count(*) FROM events"), 5 * 6 + BIG_EVENTS);
	free(p);
}

Test(import_jobs, a_producer_failure_fails_as_with_one_job_and_stops_the_others)
{
	static struct warnings w1, w3;
	char m1[512], m3[512];
	int rc1 = run_producers("f1.db", 1, 1, &w1, m1, sizeof(m1));
	int rc3 = run_producers("f3.db", 3, 1, &w3, m3, sizeof(m3));
	cr_assert_eq(rc1, TK_EFORMAT);
	cr_expect_str_eq(m1, "'file 1': broken at byte 1");
	cr_expect_eq(rc3, rc1);
	cr_expect_str_eq(m3, m1);
	cr_expect_str_eq(w3.text, "file 0\nfile 1\n");
	cr_expect_str_eq(w1.text, w3.text);
}

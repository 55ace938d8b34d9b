/*
 * Tests of the XPlane importer and `tracekit ls`: every corpus file imports with the figures an
 * independent decoder gives, hand-checked kernels, a two-host run, hand-built fixtures (every
 * column path, ref/gzip stats, flows, memory), and bad input (exit 2, file and byte offset named,
 * no store left).
 *
 * Independent figures: tests/tools/xplane_walk.py, a ~150-line Python wire-format walker that
 * shares no code with the importer (run: python3 tests/tools/xplane_walk.py --kernels 2 FILE).
 * Its "events" count every XEvent; the store's interval events are that minus the memory events
 * (MemoryAllocation/MemoryDeallocation host events become memory_records, not intervals).
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include <tracekit/tracekit.h>
#include <unistd.h>

#include "tk_test.h"
#define TK_XPLANE_NO_STATE
#include "../../import/xplane_internal.h" /* xp_corr: the pending correlation-id table */

TKT_TMPDIR_FIXTURE;

TestSuite(xplane, .init = setup, .fini = teardown);
/* Tests on traces of the corpus that tests/data/real does not vendor (tk_test.h). */
TestSuite(full_corpus, .init = setup, .fini = teardown);

#define PROFILE "xplane/logdir/plugins/profile/"
#define DATA TK_SOURCE_DIR "/tests/data/xplane/"

static void expect_contains(const char *hay, const char *needle)
{
	cr_expect(strstr(hay, needle) != NULL, "expected '%s' in:\n%s", needle, hay);
}

/* Import @in into dir/<name>.db through the CLI; returns the store path (malloc'd). */
static char *import(const char *in, const char *name)
{
	char *db = tkt_path(dir, name);
	struct tkt_run r = tkt_tracekit("import", in, "-o", db, NULL);
	cr_assert_eq(r.code, 0, "import %s: exit %d\n%s%s", in, r.code, r.out, r.err);
	tkt_run_free(&r);
	return db;
}

static int64_t q(const char *db, const char *sql)
{
	return tkt_query_int(db, sql);
}

/* Figures from tests/tools/xplane_walk.py (see the header comment). */
struct corpus_case {
	const char *rel, *host;
	int64_t planes, lines, xevents, kernels, copies, memsets, memory, devices, flows;
};

static const struct corpus_case cases[] = {
    /* planes=11 lines=7 events=4623 kernels=75 copies=0 memsets=0 memory=170 */
    {PROFILE "jax08_mi300x_elementwise/tw003.xplane.pb", "tw003", 11, 7, 4623, 75, 0, 0, 170, 8,
     75},
    /* planes=11 lines=7 events=3782 kernels=54 copies=0 memsets=0 memory=162 */
    {PROFILE "jax08_mi300x_gemm/tw003.xplane.pb", "tw003", 11, 7, 3782, 54, 0, 0, 162, 8, 54},
    /* planes=9 lines=37 events=23128 kernels=1330 copies=226 memsets=0 memory=2493 */
    {PROFILE "tf24_gpu_v100_multiworker/34.83.195.179_6003.xplane.pb", "34.83.195.179_6003", 9, 37,
     23128, 1330, 226, 0, 2493, 8, 1556},
    /* planes=7 lines=142 events=26723 kernels=0 copies=0 memsets=0 memory=906 */
    {PROFILE "xprof_tpu_v6e_inference/tpu_inference_2.xplane.pb", "tpu_inference_2", 7, 142, 26723,
     0, 0, 0, 906, 4, 0},
};

static void check_case(const struct corpus_case *c)
{
	char *in = tkt_real(c->rel), sql[512];
	char *db = import(in, "c.db");
	snprintf(sql, sizeof(sql), "SELECT value FROM meta WHERE key = 'xplane.%s.planes'",
		 c->host);
	cr_expect_eq(q(db, sql), c->planes, "planes of %s", c->rel);
	snprintf(sql, sizeof(sql), "SELECT value FROM meta WHERE key = 'xplane.%s.events'",
		 c->host);
	cr_expect_eq(q(db, sql), c->xevents, "XEvents of %s", c->rel);
	cr_expect_eq(q(db, "SELECT count(*) FROM tracks"), c->lines, "lines of %s", c->rel);
	cr_expect_eq(q(db, "SELECT count(*) FROM events"), c->xevents - c->memory, "%s", c->rel);
	cr_expect_eq(q(db, "SELECT count(*) FROM kernels"), c->kernels, "kernels of %s", c->rel);
	cr_expect_eq(q(db, "SELECT count(*) FROM memcpys"), c->copies, "copies of %s", c->rel);
	cr_expect_eq(q(db, "SELECT count(*) FROM memsets"), c->memsets, "memsets of %s", c->rel);
	cr_expect_eq(q(db, "SELECT count(*) FROM memory_events"), c->memory, "memory of %s",
		     c->rel);
	cr_expect_eq(q(db, "SELECT count(*) FROM devices"), c->devices, "devices of %s", c->rel);
	cr_expect_eq(q(db, "SELECT count(*) FROM flows WHERE kind = 'launch'"), c->flows, "%s",
		     c->rel);
	cr_expect_eq(q(db, "SELECT count(*) FROM processes"), 1);
	free(db);
	free(in);
}

Test(full_corpus, corpus_mi300x_elementwise_counts)
{
	check_case(&cases[0]);
}
Test(xplane, corpus_mi300x_gemm_counts)
{
	check_case(&cases[1]);
}
Test(full_corpus, corpus_tf24_v100_counts)
{
	check_case(&cases[2]);
}
Test(xplane, corpus_tpu_v6e_counts)
{
	check_case(&cases[3]);
}

/*
 * Kernels checked by hand against the raw decode (xplane_walk.py --kernels 2): name, start
 * (profile_start_time + line timestamp_ns + offset_ps / 1000), duration (duration_ps / 1000),
 * grid and block from kernel_details.
 */
struct kernel_case {
	const char *rel, *name;
	int64_t ts, dur, stream, grid[3], block[3], regs;
};

static const struct kernel_case kernels[] = {
    /* ROCm variant: " grid:1,1,1 block:512,1,1 private_mem:0 group_mem:0 occ_pct:0" */
    {PROFILE "jax08_mi300x_gemm/tw003.xplane.pb",
     "__amd_rocclr_copyBuffer.kd",
     1771595650219196550LL,
     4320,
     16,
     {1, 1, 1},
     {512, 1, 1},
     TK_NONE},
    {PROFILE "jax08_mi300x_gemm/tw003.xplane.pb",
     "wrapped_broadcast.kd",
     1771595650219320070LL,
     5840,
     16,
     {256, 1, 1},
     {256, 1, 1},
     TK_NONE},
    {PROFILE "jax08_mi300x_elementwise/tw003.xplane.pb",
     "loop_convert_fusion.kd",
     1771595667256854615LL,
     121840,
     16,
     {65536, 1, 1},
     {256, 1, 1},
     TK_NONE},
    /* TF 2020 variant: "regs:38 shm:0 grid:160,1,1 block:1024,1,1"; no Task Environment */
    {PROFILE "tf24_gpu_v100_multiworker/34.83.195.179_6003.xplane.pb",
     "void tensorflow::functor::FillPhiloxRandomKernelLaunch%",
     1921299828LL,
     57343,
     134,
     {160, 1, 1},
     {1024, 1, 1},
     38},
    {PROFILE "tf24_gpu_v100_multiworker/34.83.195.179_6003.xplane.pb",
     "void tensorflow::functor::FillPhiloxRandomKernelLaunch%",
     2568855601LL,
     23551,
     142,
     {160, 1, 1},
     {1024, 1, 1},
     38},
};

/* Check the kernels of the vendored files (@vendored) or of the others; how many were checked. */
static int check_kernels(int vendored)
{
	int n = 0;
	for (size_t i = 0; i < sizeof(kernels) / sizeof(kernels[0]); i++) {
		const struct kernel_case *k = &kernels[i];
		char sql[1024], name[32];
		if (tkt_vendored(k->rel) != vendored)
			continue;
		char *in = tkt_real(k->rel);
		n++;
		snprintf(name, sizeof(name), "k%zu.db", i);
		char *db = import(in, name);
		snprintf(
		    sql, sizeof(sql),
		    "SELECT count(*) FROM kernels WHERE name LIKE '%s' AND ts_ns = %lld AND "
		    "dur_ns = %lld AND stream_id = %lld AND grid_x = %lld AND grid_y = %lld AND "
		    "grid_z = %lld AND block_x = %lld AND block_y = %lld AND block_z = %lld AND "
		    "registers IS %s",
		    k->name, (long long)k->ts, (long long)k->dur, (long long)k->stream,
		    (long long)k->grid[0], (long long)k->grid[1], (long long)k->grid[2],
		    (long long)k->block[0], (long long)k->block[1], (long long)k->block[2],
		    k->regs == TK_NONE ? "NULL" : "38");
		cr_expect_eq(q(db, sql), 1, "kernel %zu (%s at %lld) not found as decoded", i,
			     k->name, (long long)k->ts);
		free(db);
		free(in);
	}
	return n;
}

Test(xplane, corpus_kernels_match_the_raw_decode)
{
	tkt_check_split(check_kernels, "file with kernel cases");
}

Test(full_corpus, corpus_kernels_match_the_raw_decode)
{
	tkt_check_split(check_kernels, "file with kernel cases");
}

Test(xplane, corpus_tpu_ops_carry_flops_and_modules)
{
	char *in = tkt_real(cases[3].rel);
	char *db = import(in, "tpu.db");
	/* XLA Ops 1504 on TPU:0, 1503 on each of TPU:1..3; Async XLA Ops 600 on TPU:0, their
	 * own kind (xplane_walk.py). */
	cr_expect_eq(q(db, "SELECT count(*) FROM events WHERE kind = 8"), 1504 + 3 * 1503);
	cr_expect_eq(
	    q(db, "SELECT count(*) FROM events e JOIN tracks t ON t.id = e.track_id JOIN strings s "
		  "ON s.id = t.name_id WHERE e.kind = 15 AND s.str = 'Async XLA Ops'"),
	    600);
	cr_expect_eq(q(db, "SELECT count(*) FROM events WHERE kind = 15"), 600);
	/* memory: one series per TPU by each event's index_on_host (no allocator name) */
	cr_expect_eq(q(db,
		       "SELECT count(DISTINCT m.device_id) FROM memory_records m JOIN devices d "
		       "ON d.id = m.device_id WHERE d.kind = 'tpu'"),
		     4);
	cr_expect_eq(q(db, "SELECT count(*) FROM memory_records WHERE device_id IS NULL"), 0);
	cr_expect_eq(q(db, "SELECT count(*) FROM events WHERE kind = 9"), 105 + 3 * 103);
	cr_expect_gt(q(db, "SELECT count(*) FROM op_details WHERE flops > 0"), 0);
	cr_expect_eq(q(db, "SELECT count(*) FROM devices WHERE kind = 'tpu' AND vendor = 'google' "
			   "AND peak_flops > 0"),
		     4);
	cr_expect_eq(q(db, "SELECT count(*) FROM meta WHERE key = 'clock' AND "
			   "value = 'unix_epoch'"),
		     1);
	free(db);
	free(in);
}

Test(xplane, tiny_fixture_maps_every_column)
{
	char *db = import(DATA "tiny.xplane.pb", "tiny.db");
	const int64_t t0 = 1767225600000000000LL;
	/* Kernel: line timestamp 1000 ns + offset 2,000,000 ps; 5,000,500 ps truncates to 5000 ns. */
	cr_expect_eq(
	    q(db, "SELECT count(*) FROM kernels WHERE name = 'void k<float>(float*)' AND "
		  "dur_ns = 5000 AND grid_x = 10 AND grid_y = 2 AND grid_z = 1 AND block_x = 128 "
		  "AND registers = 32 AND static_smem = 1024 AND dynamic_smem = 2048 AND "
		  "occupancy = 0.625 AND stream_id = 7 AND correlation_id = 77"),
	    1);
	cr_expect_eq(q(db, "SELECT ts_ns FROM kernels"), t0 + 3000);
	cr_expect_eq(q(db,
		       "SELECT count(*) FROM memcpys WHERE bytes = 4096 AND copy_kind = 'H2D' AND "
		       "src_kind = 'pinned' AND dst_kind = 'device' AND dst_device_id = 0"),
		     1);
	cr_expect_eq(
	    q(db, "SELECT count(*) FROM memsets WHERE bytes = 256 AND mem_kind = 'device'"), 1);
	cr_expect_eq(q(db, "SELECT count(*) FROM api_calls WHERE name = 'cudaLaunchKernel' AND "
			   "api = 'runtime' AND tid = 4242"),
		     2);
	cr_expect_eq(q(db, "SELECT count(*) FROM flows f JOIN api_calls a ON a.id = f.src_event_id "
			   "JOIN intervals d ON d.id = f.dst_event_id WHERE a.correlation_id = "
			   "d.correlation_id AND f.kind = 'launch'"),
		     2);
	cr_expect_eq(q(db,
		       "SELECT count(*) FROM memory_events WHERE kind = 'alloc' AND device_id = 0 "
		       "AND allocator = 'GPU_0_bfc' AND bytes = 4096 AND address = 12513024 AND "
		       "bytes_in_use = 8192 AND mem_kind = 'device'"),
		     1);
	/* Metadata-level stats (hlo_op, flops) and a gzip compressed_str_value. */
	cr_expect_eq(q(db, "SELECT count(*) FROM op_details o JOIN strings s ON s.id = o.hlo_op_id "
			   "WHERE s.str = 'fusion.1' AND o.flops = 1000"),
		     1);
	cr_expect_eq(q(db, "SELECT count(*) FROM args a JOIN strings k ON k.id = a.key_id WHERE "
			   "k.str = 'note' AND a.value = 'hello gzip'"),
		     1);
	/* A uint64 above INT64_MAX is kept exactly, as text. */
	cr_expect_eq(q(db, "SELECT count(*) FROM args a JOIN strings k ON k.id = a.key_id WHERE "
			   "k.str = 'big' AND a.value = '9223372036854775808'"),
		     1);
	cr_expect_eq(
	    q(db, "SELECT count(*) FROM devices WHERE vendor = 'nvidia' AND sm_count = 108 AND "
		  "clock_hz = 1410000000 AND compute_capability = '8.0' AND host_id IS NOT NULL"),
	    1);
	cr_expect_eq(q(db, "SELECT count(*) FROM meta WHERE key = 'xplane.warnings' AND "
			   "value = 'Detected GPU events dropped: 3'"),
		     1);
	cr_expect_eq(q(db, "SELECT count(*) FROM meta WHERE key = 'clock' AND "
			   "value = 'unix_epoch'"),
		     1);
	free(db);
}

Test(xplane, xspace_warnings_reach_stderr)
{
	char *db = tkt_path(dir, "w.db");
	struct tkt_run r = tkt_tracekit("import", DATA "tiny.xplane.pb", "-o", db, NULL);
	cr_expect_eq(r.code, 0);
	expect_contains(r.err, "warning");
	expect_contains(r.err, "Detected GPU events dropped: 3");
	tkt_run_free(&r);
	free(db);
}

/* Copy @src to @dst (small files). */
static void copy_file(const char *src, const char *dst)
{
	FILE *in = fopen(src, "rb"), *out = fopen(dst, "wb");
	char buf[65536];
	size_t n;
	cr_assert(in && out, "cannot copy %s to %s", src, dst);
	while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
		cr_assert_eq(fwrite(buf, 1, n, out), n);
	fclose(in);
	cr_assert_eq(fclose(out), 0);
}

static char *make_logdir(const char *src, const char *run, const char *const *hosts, int n)
{
	char *logdir = tkt_path(dir, "logdir"), path[4096];
	snprintf(path, sizeof(path), "%s/plugins", logdir);
	mkdir(logdir, 0755);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/plugins/profile", logdir);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/plugins/profile/%s", logdir, run);
	mkdir(path, 0755);
	for (int i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/plugins/profile/%s/%s.xplane.pb", logdir, run,
			 hosts[i]);
		copy_file(src, path);
	}
	return logdir;
}

Test(xplane, two_hosts_of_a_run_stay_distinct)
{
	static const char *const hosts[] = {"hostA", "hostB"};
	char *logdir = make_logdir(DATA "tiny.xplane.pb", "2026_01_01_00_00_00", hosts, 2);
	char *db = import(logdir, "multi.db");
	cr_expect_eq(q(db, "SELECT count(*) FROM sources"), 2);
	cr_expect_eq(q(db, "SELECT count(DISTINCT host_id) FROM processes"), 2);
	cr_expect_eq(q(db, "SELECT count(*) FROM processes"), 2);
	cr_expect_eq(q(db, "SELECT count(DISTINCT id) FROM devices"), 2);
	cr_expect_eq(q(db, "SELECT count(DISTINCT host_id) FROM devices"), 2);
	cr_expect_eq(q(db, "SELECT count(*) FROM devices d JOIN processes p ON p.id = d.process_id "
			   "WHERE p.host_id = d.host_id"),
		     2);
	cr_expect_eq(q(db, "SELECT count(*) FROM kernels"), 2);
	cr_expect_eq(q(db, "SELECT count(DISTINCT device_id) FROM kernels"), 2);
	cr_expect_eq(q(db, "SELECT count(*) FROM flows"),
		     4); /* each host's launches matched in it */
	/* Memory events name the device of their own host. */
	cr_expect_eq(q(db, "SELECT count(DISTINCT device_id) FROM memory_events"), 2);
	free(db);
	free(logdir);
}

Test(xplane, corpus_run_under_two_host_names)
{
	static const char *const hosts[] = {"worker0", "worker1"};
	char *in = tkt_real(cases[1].rel);
	char *logdir = make_logdir(in, "run", hosts, 2);
	char *db = import(logdir, "multi.db");
	cr_expect_eq(q(db, "SELECT count(*) FROM devices"), 16);
	cr_expect_eq(q(db, "SELECT count(DISTINCT device_id) FROM kernels"), 2);
	cr_expect_eq(q(db, "SELECT count(*) FROM kernels"), 2 * 54);
	cr_expect_eq(q(db, "SELECT count(*) FROM flows"), 2 * 54);
	free(db);
	free(logdir);
	free(in);
}

/* Bad input: exit 2, a message naming the file and the byte offset, and no store. */
static void expect_refused(const char *in, const char *what)
{
	char *db = tkt_path(dir, "bad.db");
	struct tkt_run r = tkt_tracekit("import", in, "-o", db, NULL);
	cr_expect_eq(r.code, 2, "%s: exit %d\n%s", in, r.code, r.err);
	expect_contains(r.err, in);
	expect_contains(r.err, what);
	cr_expect(!tkt_exists(db), "a store was left at %s", db);
	cr_expect_eq(tkt_count_entries(dir), 0, "files left in %s", dir);
	tkt_run_free(&r);
	free(db);
}

/* Offsets from tests/tools/make_xplane_fixtures.py, which wrote the files. */
Test(xplane, truncated_file_is_refused)
{
	expect_refused(DATA "truncated.xplane.pb",
		       "byte 1: length 800 of field 1 of XSpace runs past the end");
}

Test(xplane, length_past_end_is_refused)
{
	expect_refused(DATA "line_past_end.xplane.pb", "byte 18: length 1000 of field 3 of XPlane");
}

Test(xplane, negative_duration_is_refused)
{
	expect_refused(DATA "negative_duration.xplane.pb", "byte 36: negative duration_ps");
}

Test(xplane, bad_gzip_is_refused)
{
	expect_refused(DATA "bad_gzip.xplane.pb",
		       "byte 104: compressed_str_value of stat 'note' is not valid gzip");
}

/* Detection already refuses these (first byte is no XSpace tag); the importer itself is below. */
Test(xplane, absurd_varint_is_refused)
{
	expect_refused(DATA "long_varint.xplane.pb", "byte 0:");
}

Test(xplane, group_wire_type_is_refused)
{
	expect_refused(DATA "group.xplane.pb", "byte 0:");
}

Test(xplane, corrupt_corpus_file_is_refused)
{
	char *in = tkt_real("xplane/corrupt/tpu_inference_2.utf8-mangled.xplane.pb");
	expect_refused(in, "byte 1: length 28501368332271 of field 1 of XSpace runs past the end");
	free(in);
}

/* The library itself (not the CLI's detection) on the absurd varint and the group. */
static void expect_library_refuses(const char *in, const char *what)
{
	char *db = tkt_path(dir, "lib.db");
	tk_writer *w = NULL;
	cr_assert_eq(tk_writer_create(db, &w), TK_OK);
	cr_expect_eq(tk_import_xplane(w, in, NULL), TK_EFORMAT);
	expect_contains(tk_writer_errmsg(w), what);
	tk_writer_abort(w);
	cr_expect(!tkt_exists(db));
	free(db);
}

Test(xplane, library_reports_varint_and_wire_type)
{
	expect_library_refuses(
	    DATA "long_varint.xplane.pb",
	    "byte 0: expected a field tag (varint of at most 10 bytes) in XSpace");
	expect_library_refuses(DATA "group.xplane.pb",
			       "byte 0: unsupported wire type 3 for field 5");
}

Test(xplane, every_prefix_of_the_fixture_is_refused_or_imported_cleanly)
{
	/* Truncating anywhere must give TK_OK (a cut on a message boundary) or TK_EFORMAT. */
	FILE *f = fopen(DATA "tiny.xplane.pb", "rb");
	static unsigned char buf[4096];
	cr_assert(f);
	size_t n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	char *cut = tkt_path(dir, "cut.xplane.pb"), *db = tkt_path(dir, "cut.db");
	for (size_t len = 1; len < n; len++) {
		FILE *o = fopen(cut, "wb");
		cr_assert_eq(fwrite(buf, 1, len, o), len);
		fclose(o);
		tk_writer *w = NULL;
		cr_assert_eq(tk_writer_create(db, &w), TK_OK);
		int rc = tk_import_xplane(w, cut, NULL);
		cr_expect(rc == TK_OK || rc == TK_EFORMAT, "prefix %zu: rc %d", len, rc);
		if (rc == TK_EFORMAT)
			expect_contains(tk_writer_errmsg(w), "byte ");
		tk_writer_abort(w);
	}
	free(cut);
	free(db);
}

Test(xplane, directory_without_runs_is_refused)
{
	char *empty = tkt_path(dir, "empty");
	char *db = tkt_path(dir, "e.db");
	mkdir(empty, 0755);
	struct tkt_run r = tkt_tracekit("import", empty, "-o", db, NULL);
	cr_expect_eq(r.code, 2);
	expect_contains(r.err, "no profile runs found");
	expect_contains(r.err, empty);
	cr_expect(!tkt_exists(db));
	tkt_run_free(&r);
	r = tkt_tracekit("ls", empty, NULL);
	cr_expect_eq(r.code, 2);
	expect_contains(r.err, "no profile runs found");
	tkt_run_free(&r);
	free(db);
	free(empty);
}

/*
 * The runs of the corpus logdir, of which tests/data/real vendors some: host, size as `ls` shows
 * it (bytes from the corpus README: 211241, 110057, 3039638, 862707), and the span from the Task
 * Environment plane, read independently (tests/tools/xplane_walk.py prints start=;
 * profile_stop_time with the same walker):
 *   jax08_mi300x_elementwise 1771595667255705724 .. 1771595667270530383 (14.824659 ms)
 *   jax08_mi300x_gemm        1771595650217823548 .. 1771595650231005056 (13.181508 ms)
 *   xprof_tpu_v6e_inference  1741722099081044120 .. 1741722197726153802 (98.645 s)
 *   tf24_gpu_v100_multiworker: no Task Environment, line timestamps relative (237916..245747 ns)
 *   -> no span.
 * UTC by Python's datetime.utcfromtimestamp: 2026-02-20 13:54:27, 2026-02-20 13:54:10,
 * 2025-03-11 19:41:39.
 */
static const struct {
	const char *run, *host, *size;
	int64_t start, end;
	const char *utc, *dur;
} spans[] = {
    {"jax08_mi300x_elementwise", "tw003", "206.3 KiB", 1771595667255705724LL, 1771595667270530383LL,
     "2026-02-20 13:54:27", "14.8 ms"},
    {"jax08_mi300x_gemm", "tw003", "107.5 KiB", 1771595650217823548LL, 1771595650231005056LL,
     "2026-02-20 13:54:10", "13.2 ms"},
    {"xprof_tpu_v6e_inference", "tpu_inference_2", "842.5 KiB", 1741722099081044120LL,
     1741722197726153802LL, "2025-03-11 19:41:39", "98.6 s"},
    {"tf24_gpu_v100_multiworker", "34.83.195.179_6003", "2.9 MiB", TK_NONE, TK_NONE, NULL, NULL},
};
#define NSPANS (sizeof(spans) / sizeof(spans[0]))

/* 1 when the logdir @logdir has the run @run (the vendored one has some of the corpus runs). */
static int has_run(const char *logdir, const char *run)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/plugins/profile/%s", logdir, run);
	return tkt_exists(path);
}

/* The row of `tracekit ls` output @out that starts with run @name (malloc'd), or NULL. */
static char *ls_row(const char *out, const char *name)
{
	size_t n = strlen(name);
	for (const char *p = out; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
		if (!strncmp(p, name, n) && p[n] == ' ') {
			const char *e = strchr(p, '\n');
			return strndup(p, e ? (size_t)(e - p) : strlen(p));
		}
	}
	return NULL;
}

Test(xplane, ls_lists_the_corpus_runs_newest_first)
{
	char *logdir = tkt_real("xplane/logdir");
	struct tkt_run r = tkt_tracekit("ls", logdir, NULL);
	cr_expect_eq(r.code, 0, "%s", r.err);
	int present = 0;
	for (size_t i = 0; i < NSPANS; i++) {
		char *row = ls_row(r.out, spans[i].run);
		if (!has_run(logdir, spans[i].run)) {
			cr_expect_null(row, "%s is listed but not in %s", spans[i].run, logdir);
			free(row);
			continue;
		}
		present++;
		cr_assert(row, "no row for %s in:\n%s", spans[i].run, r.out);
		expect_contains(row, spans[i].host);
		expect_contains(row, spans[i].size);
		free(row);
	}
	cr_expect_gt(present, 0, "no known run in %s", logdir);
	tkt_run_free(&r);
	free(logdir);
}

Test(xplane, ls_orders_runs_by_time_and_import_takes_the_newest)
{
	static const char *const hosts[] = {"h"};
	char *logdir = make_logdir(DATA "tiny.xplane.pb", "2026_01_01_00_00_00", hosts, 1);
	char path[4096];
	/* An older run: same file, modification time set back a day. */
	snprintf(path, sizeof(path), "%s/plugins/profile/2025_12_31_00_00_00", logdir);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/plugins/profile/2025_12_31_00_00_00/old.xplane.pb",
		 logdir);
	copy_file(DATA "tiny.xplane.pb", path);
	struct timespec old[2] = {{time(NULL) - 86400, 0}, {time(NULL) - 86400, 0}};
	cr_assert_eq(utimensat(AT_FDCWD, path, old, 0), 0);
	struct tkt_run r = tkt_tracekit("ls", logdir, NULL);
	cr_expect_eq(r.code, 0);
	char *newer = strstr(r.out, "2026_01_01_00_00_00"), *older = strstr(r.out, "2025_12_31");
	cr_expect(newer && older && newer < older, "newest first:\n%s", r.out);
	tkt_run_free(&r);
	char *db = import(logdir, "newest.db");
	cr_expect_eq(q(db, "SELECT count(*) FROM processes p JOIN strings s ON s.id = p.host_id "
			   "WHERE s.str = 'h'"),
		     1);
	free(db);
	free(logdir);
}

Test(xplane, list_runs_reads_the_profiled_span)
{
	char *logdir = tkt_real("xplane/logdir");
	struct tk_xplane_run *runs = NULL;
	int n = 0, present = 0;
	cr_assert_eq(tk_xplane_list_runs(logdir, &runs, &n, tkt_err()), TK_OK, "%s", tkt_errmsg());
	for (size_t i = 0; i < NSPANS; i++)
		present += has_run(logdir, spans[i].run);
	cr_assert_eq(n, present);
	for (size_t i = 0; i < NSPANS; i++) {
		if (!has_run(logdir, spans[i].run))
			continue;
		int found = 0;
		for (int j = 0; j < n; j++) {
			if (strcmp(runs[j].name, spans[i].run))
				continue;
			found = 1;
			cr_expect_eq(runs[j].start_ns, spans[i].start, "start of %s: %lld",
				     spans[i].run, (long long)runs[j].start_ns);
			cr_expect_eq(runs[j].end_ns, spans[i].end, "end of %s: %lld", spans[i].run,
				     (long long)runs[j].end_ns);
		}
		cr_expect(found, "run %s not listed", spans[i].run);
	}
	tk_xplane_runs_free(runs, n);
	free(logdir);
}

Test(xplane, ls_prints_start_and_duration)
{
	char *logdir = tkt_real("xplane/logdir");
	struct tkt_run r = tkt_tracekit("ls", logdir, NULL);
	cr_expect_eq(r.code, 0, "%s", r.err);
	expect_contains(r.out, "start (UTC)");
	expect_contains(r.out, "duration");
	for (size_t i = 0; i < NSPANS; i++) {
		if (!has_run(logdir, spans[i].run))
			continue;
		char *row = ls_row(r.out, spans[i].run);
		cr_assert(row, "no row for %s in:\n%s", spans[i].run, r.out);
		if (spans[i].utc) {
			expect_contains(row, spans[i].utc);
			expect_contains(row, spans[i].dur);
		} else {
			/* Unknown span: "-" in both columns, right after the run name. */
			const char *p = row + strlen(spans[i].run);
			while (*p == ' ')
				p++;
			cr_expect(!strncmp(p, "- ", 2), "start should be '-': %s", row);
			p++;
			while (*p == ' ')
				p++;
			cr_expect(!strncmp(p, "- ", 2), "duration should be '-': %s", row);
		}
		free(row);
	}
	tkt_run_free(&r);
	free(logdir);
}

Test(xplane, ls_leaves_the_span_of_a_corrupt_file_blank)
{
	/* Three runs: tiny (start only: 2026-01-01 00:00:00, no profile_stop_time), a truncated
	 * file, and the corrupt corpus file. Listing succeeds; the bad runs show '-'. */
	static const char *const hosts[] = {"good"};
	char *logdir = make_logdir(DATA "tiny.xplane.pb", "2026_01_01_00_00_00", hosts, 1);
	char path[4096];
	snprintf(path, sizeof(path), "%s/plugins/profile/truncated", logdir);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/plugins/profile/truncated/t.xplane.pb", logdir);
	copy_file(DATA "truncated.xplane.pb", path);
	char *corrupt = tkt_real("xplane/corrupt/tpu_inference_2.utf8-mangled.xplane.pb");
	snprintf(path, sizeof(path), "%s/plugins/profile/mangled", logdir);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/plugins/profile/mangled/m.xplane.pb", logdir);
	copy_file(corrupt, path);
	struct tkt_run r = tkt_tracekit("ls", logdir, NULL);
	cr_expect_eq(r.code, 0, "%s", r.err);
	char *row = ls_row(r.out, "2026_01_01_00_00_00");
	cr_assert(row, "%s", r.out);
	expect_contains(row, "2026-01-01 00:00:00");
	free(row);
	static const char *const bad[] = {"truncated", "mangled"};
	for (int i = 0; i < 2; i++) {
		row = ls_row(r.out, bad[i]);
		cr_assert(row, "no row for %s:\n%s", bad[i], r.out);
		const char *p = row + strlen(bad[i]);
		while (*p == ' ')
			p++;
		cr_expect(!strncmp(p, "- ", 2), "start should be '-': %s", row);
		free(row);
	}
	tkt_run_free(&r);
	struct tk_xplane_run *runs = NULL;
	int n = 0;
	cr_assert_eq(tk_xplane_list_runs(logdir, &runs, &n, tkt_err()), TK_OK, "%s", tkt_errmsg());
	cr_expect_eq(n, 3);
	for (int j = 0; j < n; j++) {
		int good = !strcmp(runs[j].name, "2026_01_01_00_00_00");
		cr_expect_eq(runs[j].start_ns, good ? 1767225600000000000LL : TK_NONE, "%s",
			     runs[j].name);
		cr_expect_eq(runs[j].end_ns, TK_NONE, "%s", runs[j].name);
	}
	tk_xplane_runs_free(runs, n);
	free(corrupt);
	free(logdir);
}

/* A pseudo-random sequence (xorshift64), for scattered ids. */
static uint64_t next_rand(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

Test(xplane, pending_correlation_ids_keep_every_id_in_pages_or_map)
{
	struct xp_corr c;
	int64_t v;
	memset(&c, 0, sizeof(c));
	/* Dense ids interleaved over 4 streams (1 in 4 per stream, as the importer meets them). */
	const int64_t n = 200000;
	for (int s = 0; s < 4; s++)
		for (int64_t k = 0; k < n / 4; k++)
			cr_assert_eq(xp_corr_put(&c, k * 4 + s + 1, 1000 + 2 * (s * n + k) + 1),
				     TK_OK);
	cr_expect_eq(c.map.t.n, 0, "dense ids should all live in pages (%zu in the map)",
		     c.map.t.n);
	cr_expect_eq(c.direct, (size_t)n);
	cr_expect_leq(c.allocated, (size_t)(n / XP_CORR_PAGE + 1));
	for (int s = 0; s < 4; s++)
		for (int64_t k = 0; k < n / 4; k++) {
			cr_assert(xp_corr_get(&c, k * 4 + s + 1, &v));
			cr_assert_eq(v, 1000 + 2 * (s * n + k) + 1);
		}
	cr_expect(!xp_corr_get(&c, 0, &v));
	cr_expect(!xp_corr_get(&c, n + 1, &v));
	/* Values below the base, or too far above it for 32 bits, and odd ids go to the map. */
	static const int64_t odd[] = {INT64_MIN,	INT64_MIN + 1,	  -5,
				      (int64_t)1 << 31, (int64_t)1 << 40, INT64_MAX};
	for (size_t i = 0; i < sizeof(odd) / sizeof(odd[0]); i++)
		cr_assert_eq(xp_corr_put(&c, odd[i], (int64_t)i), TK_OK);
	cr_assert_eq(xp_corr_put(&c, n + 10, 1000 + ((int64_t)1 << 34)), TK_OK);
	cr_expect_eq(c.map.t.n,
		     7); /* INT64_MIN and INT64_MIN + 1 too: the map has no reserved keys */
	for (size_t i = 0; i < sizeof(odd) / sizeof(odd[0]); i++) {
		cr_assert(xp_corr_get(&c, odd[i], &v), "id %lld", (long long)odd[i]);
		cr_expect_eq(v, (int64_t)i);
	}
	cr_assert(xp_corr_get(&c, n + 10, &v));
	cr_expect_eq(v, 1000 + ((int64_t)1 << 34));
	/* An id moved from the map into a page lives in one place. */
	cr_assert_eq(xp_corr_put(&c, n + 10, 1002), TK_OK);
	cr_assert(xp_corr_get(&c, n + 10, &v));
	cr_expect_eq(v, 1002);
	xp_corr_del(&c, n + 10);
	cr_expect(!xp_corr_get(&c, n + 10, &v));
	/* Matching every id gives every page back. */
	for (int64_t id = 1; id <= n; id++)
		xp_corr_del(&c, id);
	for (size_t i = 0; i < sizeof(odd) / sizeof(odd[0]); i++)
		xp_corr_del(&c, odd[i]);
	cr_expect_eq(c.direct, 0);
	cr_expect_eq(c.allocated, 0);
	cr_expect(!xp_corr_get(&c, 5, &v));
	cr_expect(!xp_corr_get(&c, INT64_MIN, &v));
	/* Scattered ids: found again, and pages stay bounded (at most one per CORR_MIN_FILL = 8). */
	uint64_t x = 88172645463325252ull;
	for (int i = 0; i < 100000; i++)
		cr_assert_eq(xp_corr_put(&c, (int64_t)(next_rand(&x) & 0x7fffffff), 5000 + i),
			     TK_OK);
	cr_expect_leq(c.allocated * XP_CORR_PAGE, 8 * (c.direct + 1) + 256 * XP_CORR_PAGE);
	x = 88172645463325252ull;
	for (int i = 0; i < 100000; i++) {
		int64_t id = (int64_t)(next_rand(&x) & 0x7fffffff);
		cr_assert(xp_corr_get(&c, id, &v), "scattered id %lld", (long long)id);
	}
	xp_corr_free(&c);
}

/*
 * Spans of the two hand-built fixtures (tests/tools/make_xplane_fixtures.py, span_fixtures()):
 * span.xplane.pb: Task Environment start 1767225600000000005 (uint64), stop 1767225601234567890
 * (int64, its stat metadata after the stats); abs_lines.xplane.pb: no Task Environment, absolute
 * line timestamps 1767225600000000000 and 1767225602500000000. A run of both files spans the
 * earliest start and the latest end.
 */
Test(xplane, ls_span_from_task_environment_and_from_line_timestamps)
{
	static const char *const host[] = {"h"};
	char *logdir = make_logdir(DATA "span.xplane.pb", "env", host, 1), path[4096];
	snprintf(path, sizeof(path), "%s/plugins/profile/lines", logdir);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/plugins/profile/lines/h.xplane.pb", logdir);
	copy_file(DATA "abs_lines.xplane.pb", path);
	snprintf(path, sizeof(path), "%s/plugins/profile/both", logdir);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/plugins/profile/both/h1.xplane.pb", logdir);
	copy_file(DATA "abs_lines.xplane.pb", path);
	snprintf(path, sizeof(path), "%s/plugins/profile/both/h2.xplane.pb", logdir);
	copy_file(DATA "span.xplane.pb", path);
	struct tk_xplane_run *runs = NULL;
	int n = 0;
	cr_assert_eq(tk_xplane_list_runs(logdir, &runs, &n, tkt_err()), TK_OK, "%s", tkt_errmsg());
	cr_assert_eq(n, 3);
	for (int i = 0; i < n; i++) {
		const struct tk_xplane_run *r = &runs[i];
		int env = !strcmp(r->name, "env");
		cr_expect_eq(r->start_ns, env ? 1767225600000000005LL : 1767225600000000000LL, "%s",
			     r->name);
		cr_expect_eq(r->end_ns, env ? 1767225601234567890LL : 1767225602500000000LL, "%s",
			     r->name);
	}
	tk_xplane_runs_free(runs, n);
	struct tkt_run r = tkt_tracekit("ls", logdir, NULL);
	cr_expect_eq(r.code, 0, "%s", r.err);
	char *row = ls_row(r.out, "env");
	cr_assert(row, "%s", r.out);
	expect_contains(row, "2026-01-01 00:00:00");
	expect_contains(row, "1.2 s"); /* 1.234567885 s */
	free(row);
	row = ls_row(r.out, "lines");
	cr_assert(row, "%s", r.out);
	expect_contains(row, "2026-01-01 00:00:00");
	expect_contains(row, "2.5 s");
	free(row);
	tkt_run_free(&r);
	free(logdir);
}

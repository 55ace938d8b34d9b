/*
 * The roofline (analysis_roofline), the compute_throughput KPI, the memory_bandwidth KPI from
 * the perf model, and the low_compute_efficiency finding: on the hand-made trace
 * tests/data/analyze/op_perf_nested.json with peaks given on the command line (so every figure
 * is known by construction: the arithmetic is in the comments), and on the vendored 2021
 * ResNet-50 trace (a V100: the built-in peaks, record_shapes on), where the bandwidth KPI must
 * have a value.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tk_analyze_store.h"

TestSuite(roofline, .init = tkt_analyze_setup, .fini = tkt_analyze_teardown, .timeout = 300);
/* Tests on traces of the corpus that tests/data/real does not vendor (tk_test.h). */
TestSuite(full_corpus, .init = tkt_analyze_setup, .fini = tkt_analyze_teardown, .timeout = 900);

static void nested(const char *peak_flops, const char *peak_bw)
{
	const char *trace = TK_SOURCE_DIR "/tests/data/analyze/op_perf_nested.json";
	tkt_ok(tkt_tracekit("import", trace, "-o", tkt_db, NULL));
	tkt_ok(tkt_tracekit("analyze", tkt_db, "--peak-flops", peak_flops, "--peak-bandwidth",
			    peak_bw, NULL));
}

static double q(const char *sql)
{
	return tkt_query_double(tkt_db, sql);
}

/*
 * Two GEMM groups launch device work (op_perf_nested.json, see tests/analyze/test_op_perf.c):
 * aten::linear x [4,8] W [16,8] b [16]: 2*4*16*8 + 4*16 = 1088 FLOPs; bytes (4*8 + 16*8 + 16 +
 * 4*16) * 4 = 960; its kernels 8 000 ns. aten::addmm b [16] x [4,8] W [8,16]: the same 1088 and
 * 960, 7 000 ns. With fp32 peak 100 TFLOP/s and 1 TB/s: intensity 1088/960 = 1.1333 FLOP/B,
 * ridge 100e12/1e12 = 100 FLOP/B, so both are memory-bound; linear achieves 1088/8e-6 =
 * 1.36e8 FLOP/s: 1.36e-6 of the peak; its roof is 1.1333 * 1e12 = 1.1333e12 FLOP/s, so
 * roof_share = 1.36e8 / 1.1333e12 = 1.2e-4; bandwidth 960/8e-6 = 1.2e8 B/s = 1.2e-4 of 1 TB/s.
 */
Test(roofline, figures_known_by_construction)
{
	nested("fp32=100T", "1T");
	tkt_expect_rows(tkt_db,
			"SELECT device_id, name, dtype, category, calls, device_ns, flops, bytes, "
			"bound FROM analysis_roofline ORDER BY device_ns DESC",
			"0|aten::linear|fp32|gemm|1|8000|1088|960|memory\n"
			"0|aten::addmm|fp32|gemm|1|7000|1088|960|memory");
	const char *l = "FROM analysis_roofline WHERE name = 'aten::linear'";
	char sql[256];
#define AT(col) (snprintf(sql, sizeof(sql), "SELECT %s %s", col, l), q(sql))
	cr_expect_float_eq(AT("achieved_flops"), 1.36e8, 1e-3);
	cr_expect_float_eq(AT("achieved_bps"), 1.2e8, 1e-3);
	cr_expect_float_eq(AT("intensity"), 1088.0 / 960.0, 1e-12);
	cr_expect_float_eq(AT("peak_flops"), 1e14, 1);
	cr_expect_float_eq(AT("peak_bandwidth_bps"), 1e12, 1);
	cr_expect_float_eq(AT("ridge"), 100.0, 1e-9);
	cr_expect_float_eq(AT("peak_share"), 1.36e-6, 1e-15);
	cr_expect_float_eq(AT("bandwidth_share"), 1.2e-4, 1e-13);
	cr_expect_float_eq(AT("roof_share"), 1.36e8 / (1088.0 / 960.0 * 1e12), 1e-13);
#undef AT
	/* the report's per-category rows: both groups are gemm fp32: 2176 FLOPs in 15 000 ns =
	 * 1.4507e8 FLOP/s, time-weighted share of the peak 2176 / (15e-6 * 1e14) = 1.4507e-6 */
	struct tkt_run r = tkt_tracekit("report", tkt_db, "--format", "json", NULL);
	cr_assert_eq(r.code, 0, "%s", r.err);
	char *json = tkt_path(tkt_dir, "report.json");
	tkt_spit(json, r.out, strlen(r.out));
	tkt_run_free(&r);
	char *doc = tkt_slurp(json, NULL);
	cr_assert(doc);
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	cr_assert_eq(sqlite3_open(":memory:", &db), SQLITE_OK);
	cr_assert_eq(
	    sqlite3_prepare_v2(db,
			       "SELECT json_extract(value, '$.category') || '|' || "
			       "json_extract(value, '$.dtype') || '|' || json_extract(value, "
			       "'$.groups') || '|' || json_extract(value, '$.device_ns'), "
			       "json_extract(value, '$.peak_share'), json_extract(value, "
			       "'$.achieved_flops') FROM json_each(?1, "
			       "'$.roofline_categories.rows')",
			       -1, &st, NULL),
	    SQLITE_OK);
	sqlite3_bind_text(st, 1, doc, -1, SQLITE_STATIC);
	cr_assert_eq(sqlite3_step(st), SQLITE_ROW, "no roofline_categories row");
	cr_expect_str_eq((const char *)sqlite3_column_text(st, 0), "gemm|fp32|2|15000");
	cr_expect_float_eq(sqlite3_column_double(st, 1), 2176 / (15000e-9 * 1e14), 1e-15);
	cr_expect_float_eq(sqlite3_column_double(st, 2), 2176 / 15000e-9, 1e-3);
	cr_expect_eq(sqlite3_step(st), SQLITE_DONE, "one category row");
	sqlite3_finalize(st);
	sqlite3_close(db);
	free(doc);
	free(json);
	/* a peak 1000x lower (0.1 TFLOP/s) puts the ridge at 0.1 FLOP/B: compute-bound */
	nested("fp32=0.1T", "1T");
	cr_expect_eq(tkt_query_int(tkt_db, "SELECT count(*) FROM analysis_roofline WHERE bound = "
					   "'compute'"),
		     2);
}

/*
 * compute_throughput = sum(flops / peak) / sum(device_ns): (2 * 1088 / 1e14) s of peak work in
 * 15 000 ns = 2.176e-11 / 1.5e-5 = 1.4507e-6, as a percentage 1.4507e-4; bad (< 30 %).
 * memory_bandwidth (no op states its bytes: the perf model's) = 1920 B in 15 000 ns =
 * 1.28e8 B/s of 1e12: 0.0128 %, bad, window 'trace'.
 */
Test(roofline, compute_and_bandwidth_kpis)
{
	nested("fp32=100T", "1T");
	cr_expect_float_eq(q("SELECT value FROM analysis_kpi WHERE kpi = 'compute_throughput'"),
			   100.0 * 2 * 1088 / 1e14 / 15000e-9, 1e-12);
	tkt_expect_rows(tkt_db,
			"SELECT kpi, band, window FROM analysis_kpi WHERE kpi IN "
			"('compute_throughput', 'memory_bandwidth') ORDER BY kpi",
			"compute_throughput|bad|trace\nmemory_bandwidth|bad|trace");
	cr_expect_float_eq(q("SELECT value FROM analysis_kpi WHERE kpi = 'memory_bandwidth'"),
			   100.0 * 1920 / 15000e-9 / 1e12, 1e-12);
	/* without flags the fixture's A100-SXM4-80GB gets the table's fp32 19.5 TFLOP/s */
	tkt_ok(tkt_tracekit("analyze", tkt_db, NULL));
	cr_expect_float_eq(q("SELECT value FROM analysis_kpi WHERE kpi = 'compute_throughput'"),
			   100.0 * 2 * 1088 / 19.5e12 / 15000e-9, 1e-12);
}

/* GPUs the trace does not name have no peak: n-a, and the note says why. */
Test(roofline, no_peak_is_n_a)
{
	char *trace = tkt_real("kineto/HolisticTraceAnalysis/tests/data/trace_filter/"
			       "sampled_rank-0.json.gz");
	tkt_ok(tkt_tracekit("import", trace, "-o", tkt_db, NULL));
	tkt_ok(tkt_tracekit("analyze", tkt_db, NULL));
	free(trace);
	cr_expect_gt(tkt_query_int(tkt_db, "SELECT count(*) FROM analysis_roofline WHERE category "
					   "= 'gemm' AND peak_flops IS NULL"),
		     0);
	tkt_expect_rows(tkt_db,
			"SELECT band, value IS NULL, note LIKE 'n/a: no modelled op%' FROM "
			"analysis_kpi WHERE kpi = 'compute_throughput'",
			"n-a|1|1");
}

/*
 * low_compute_efficiency: the GEMMs run at 1.45e-4 % of the fp32 peak (< 25 %) for 15 000 ns,
 * 38.5 % (>= 30 %: high) of the device's launched time; the finding names the category, the dtype, the share and the
 * worst groups (by the time they lose: device_ns * (1 - peak_share), linear first), and the
 * fp32 fix (a tensor-core dtype).
 */
Test(roofline, low_compute_efficiency_names_the_worst_groups)
{
	nested("fp32=100T", "1T");
	int64_t launched =
	    tkt_query_int(tkt_db, "SELECT sum(device_ns) FROM analysis_launch_stats");
	cr_assert_gt(launched, 15000);
	tkt_expect_rows(
	    tkt_db,
	    "SELECT rule, severity, json_extract(evidence, '$.category'), "
	    "json_extract(evidence, '$.dtype'), json_extract(evidence, '$.device_ns'), "
	    "json_extract(evidence, '$.top[0].name'), json_extract(evidence, "
	    "'$.top[1].name'), fix LIKE '%bf16 or fp16 autocast%' FROM analysis_findings "
	    "WHERE rule = 'low_compute_efficiency'",
	    "low_compute_efficiency|high|gemm|fp32|15000|aten::linear|aten::addmm|1");
	cr_expect_float_eq(q("SELECT json_extract(evidence, '$.share_pct') FROM analysis_findings "
			     "WHERE rule = 'low_compute_efficiency'"),
			   100.0 * 15000 / (double)launched, 1e-9);
	/* at 0.0000001 T (100 kFLOP/s) the same GEMMs run at 136000 %: no finding */
	nested("fp32=0.0000001T", "1T");
	cr_expect_eq(tkt_query_int(tkt_db, "SELECT count(*) FROM analysis_findings WHERE rule = "
					   "'low_compute_efficiency'"),
		     0);
}

/* A real trace with shapes on a known device: the bandwidth and compute KPIs have values. */
Test(roofline, resnet50_v100_kpis_have_values)
{
	char *trace = tkt_real("kineto/kineto/tb_plugin/samples/resnet50_num_workers_0/"
			       "worker0.1623143089861.pt.trace.json.gz");
	tkt_ok(tkt_tracekit("import", trace, "-o", tkt_db, NULL));
	tkt_ok(tkt_tracekit("analyze", tkt_db, NULL));
	free(trace);
	cr_expect_eq(tkt_query_int(tkt_db,
				   "SELECT count(*) FROM analysis_kpi WHERE kpi IN "
				   "('memory_bandwidth', 'compute_throughput') AND value > 0"),
		     2);
	/* the roofline rows agree with the op model's and the peaks' tables */
	cr_expect_eq(tkt_query_int(tkt_db,
				   "SELECT count(*) FROM analysis_roofline r JOIN "
				   "analysis_op_perf p ON p.name = r.name AND p.input_dims "
				   "IS r.input_dims AND p.dtype IS r.dtype AND p.device_ns = "
				   "r.device_ns WHERE p.flops <> r.flops"),
		     0);
	cr_expect_eq(tkt_query_int(tkt_db, "SELECT count(*) FROM analysis_roofline WHERE dtype = "
					   "'fp32' AND abs(peak_flops - (SELECT peak_flops FROM "
					   "analysis_device_peaks WHERE dtype = 'fp32')) > 0"),
		     0);
}

/*
 * Every Kineto trace of the corpus recorded with shapes ("Input Dims") on an A100 or H100: the
 * memory bandwidth KPI has a value (from the perf model: PyTorch ops state no bytes; the
 * torch.compile'd triton_example through its Inductor kernel's arguments). Found by content, not
 * by a list, so a trace added later counts.
 */
Test(full_corpus, bandwidth_kpi_on_every_a100_h100_trace_with_shapes)
{
	char cmd[4096], rel[1024];
	snprintf(
	    cmd, sizeof(cmd),
	    "cd '%s' && find kineto -type f \\( -name '*.json' -o -name '*.json.gz' \\) | "
	    "LC_ALL=C sort | while read f; do zcat -f \"$f\" | grep -q -m1 '\"Input Dims\"' && "
	    "echo \"$f\"; done",
	    tkt_corpus_dir());
	FILE *list = popen(cmd, "r");
	cr_assert_not_null(list);
	int checked = 0;
	while (fgets(rel, sizeof(rel), list)) {
		rel[strcspn(rel, "\n")] = '\0';
		char *trace = tkt_corpus(rel);
		struct tkt_run r = tkt_tracekit("import", trace, "-o", tkt_db, NULL);
		free(trace);
		int code = r.code;
		tkt_run_free(&r);
		if (code != 0)
			continue; /* not a trace import takes (tests/import covers those) */
		tkt_ok(tkt_tracekit("analyze", tkt_db, NULL));
		if (!tkt_query_int(tkt_db,
				   "SELECT count(*) FROM devices d JOIN strings s ON s.id = "
				   "d.name_id WHERE s.str LIKE '%A100%' OR s.str LIKE '%H100%'"))
			continue;
		checked++;
		cr_expect_eq(tkt_query_int(tkt_db,
					   "SELECT count(*) FROM analysis_kpi WHERE kpi = "
					   "'memory_bandwidth' AND "
					   "value IS NULL AND device_id IN (SELECT d.id FROM "
					   "devices d JOIN strings s ON s.id = d.name_id WHERE "
					   "s.str LIKE '%A100%' OR s.str LIKE '%H100%')"),
			     0, "%s: a memory_bandwidth KPI without a value", rel);
	}
	pclose(list);
	cr_expect_geq(checked, 2, "only %d A100/H100 traces with shapes in the corpus", checked);
}

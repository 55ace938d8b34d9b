/*
 * The op performance model's tables (analyze/op_perf.c: analysis_op_perf, _summary,
 * _unmodelled) and the memory bandwidth figure it offers the KPI (tka_op_perf_bandwidth): on a
 * hand-made Kineto trace whose answer is known by construction (tests/data/analyze/
 * op_perf_nested.json: which nested op counts, CPU calls, refused and unmodelled ops), and on two
 * real vendored traces against tests/data/analyze/op_perf_figures.py, which recomputes the GEMM
 * (and cuDNN convolution backward) FLOPs and their subtree device time from the raw JSON; its
 * output is in tests/data/analyze/op_perf/ (regenerate with the script).
 */
#include <criterion/criterion.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze_internal.h"
#include "tk_analyze_store.h"

TestSuite(op_perf, .init = tkt_analyze_setup, .fini = tkt_analyze_teardown, .timeout = 300);

static void import_analyze(const char *trace)
{
	tkt_ok(tkt_tracekit("import", trace, "-o", tkt_db, NULL));
	tkt_ok(tkt_tracekit("analyze", tkt_db, NULL));
}

/* tka_op_perf_bandwidth() of @device on the analysed store tkt_db, called directly (XLA rows
 * need nothing from the analysis run; host-op rows need its process-to-device links, so those
 * are read from the KPI: bandwidth() below). */
static void api_bandwidth(int64_t device, int64_t *bytes, int64_t *ns)
{
	sqlite3 *db = NULL;
	char err[256] = "";
	cr_assert_eq(sqlite3_open_v2(tkt_db, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	struct tka_ctx c = {.db = db, .err = err, .errlen = sizeof(err)};
	cr_assert_eq(tka_op_perf_bandwidth(&c, device, bytes, ns), TK_OK, "%s", err);
	sqlite3_close(db);
}

/* The memory bandwidth KPI's figures from the perf model (tka_op_perf_bandwidth(): bytes and
 * ns in the KPI's detail) of @device on the analysed store tkt_db; -1 when it has none. */
static void bandwidth(int64_t device, int64_t *bytes, int64_t *ns)
{
	char sql[512];
	static const char *const key[] = {"bytes", "ns"};
	int64_t *out[] = {bytes, ns};
	for (int i = 0; i < 2; i++) {
		snprintf(sql, sizeof(sql),
			 "SELECT coalesce((SELECT json_extract(detail, '$.%s') FROM analysis_kpi "
			 "WHERE kpi = 'memory_bandwidth' AND device_id = %lld AND "
			 "json_extract(detail, '$.source') = 'perf_model'), -1)",
			 key[i], (long long)device);
		*out[i] = tkt_query_int(tkt_db, sql);
	}
}
/*
 * op_perf_nested.json, one thread, by construction:
 * - aten::linear x [4,8], W [16,8], b [16] encloses aten::t and aten::addmm (which launches a
 *   5 us kernel) and itself launches a 3 us kernel: the linear counts (outermost), 2*4*16*8 +
 *   4*16 = 1 088 FLOPs, 4*(32 + 128 + 16 + 64) = 960 bytes, 2 device ops, 8 000 ns; the addmm
 *   and aten::t inside it add nothing and are not listed as unmodelled;
 * - an aten::linear with five args (more than the op has) is refused; the aten::addmm inside it
 *   counts: 1 088 FLOPs, 960 bytes, 7 000 ns;
 * - aten::index (no formula) launches 11 us directly; an aten::mm without args 13 us;
 * - an aten::mm [2,3] x [3,4] launches nothing (CPU): 48 FLOPs, 104 bytes, launched = 0.
 * Launched 8 + 7 + 11 + 13 = 39 us, modelled 15 us; FLOPs and bytes of launching calls 2 176 and
 * 1 920; 1 920 B / 15 000 ns = 0.128 GB/s.
 */
Test(op_perf, nested_ops_count_once_by_construction)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/tests/data/analyze/op_perf_nested.json", TK_SOURCE_DIR);
	import_analyze(path);
	tkt_expect_rows(
	    tkt_db,
	    "SELECT level, name, input_dims, launched, model, dtype, calls, flops, bytes, "
	    "device_ops, device_ns, flops_per_s, intensity FROM analysis_op_perf "
	    "ORDER BY device_ns DESC, name",
	    "host_op|aten::linear|[[4,8],[16,8],[16]]|1|gemm|fp32|1|1088|960|2|8000|"
	    "136000000.0|1.13333333333333\n"
	    "host_op|aten::addmm|[[16],[4,8],[8,16],[],[]]|1|gemm|fp32|1|1088|960|1|7000|"
	    "155428571.428571|1.13333333333333\n"
	    "host_op|aten::mm|[[2,3],[3,4]]|0|gemm|fp32|1|48|104|0|0|NULL|"
	    "0.461538461538462");
	tkt_expect_rows(tkt_db,
			"SELECT name, reason, calls, device_ops, device_ns FROM "
			"analysis_op_perf_unmodelled ORDER BY device_ns DESC, name",
			"aten::mm|no shapes recorded (record_shapes off)|1|1|13000\n"
			"aten::index|no model for this op|1|1|11000\n"
			"aten::linear|more args than the op has|1|0|0");
	tkt_expect_rows(tkt_db,
			"SELECT level, launched_ns, modelled_ns, modelled_share, flops, bytes, "
			"bytes_per_s FROM analysis_op_perf_summary",
			"host_op|39000|15000|0.384615384615385|2176|1920|128000000.0");
	int64_t b, ns;
	bandwidth(0, &b, &ns);
	cr_expect_eq(b, 1920);
	cr_expect_eq(ns, 15000);
	bandwidth(7, &b, &ns); /* no such device */
	cr_expect_eq(b, -1);
	cr_expect_eq(ns, -1);
}

/* The GEMM rows of a real trace against the script's figures; the summary's identities. */
static void expect_figures(const char *rel, const char *figures)
{
	char *trace = tkt_real(rel), path[4096];
	import_analyze(trace);
	snprintf(path, sizeof(path), "%s/tests/data/analyze/op_perf/%s", TK_SOURCE_DIR, figures);
	char *want = tkt_slurp(path, NULL);
	cr_assert(want, "%s is missing", path);
	size_t n = strlen(want);
	if (n && want[n - 1] == '\n')
		want[n - 1] = '\0';
	tkt_expect_rows(
	    tkt_db,
	    "SELECT name, input_dims, input_types, sum(calls), sum(flops), "
	    "sum(device_ops), sum(device_ns) FROM analysis_op_perf WHERE name IN "
	    "('aten::mm', 'aten::addmm', 'aten::bmm', 'aten::baddbmm', 'aten::matmul', "
	    "'aten::linear', 'aten::cudnn_convolution_backward') "
	    "GROUP BY name, input_dims, input_types ORDER BY name, input_dims, input_types",
	    want);
	/* every launch under a host op is once in launched_ns: the direct time of the op level */
	cr_expect_eq(tkt_query_int(tkt_db, "SELECT sum(launched_ns) FROM analysis_op_perf_summary "
					   "WHERE level = 'host_op'"),
		     tkt_query_int(tkt_db, "SELECT sum(direct_ns) FROM analysis_op_gpu_time WHERE "
					   "level = 'host_op'"));
	cr_expect_eq(tkt_query_int(tkt_db, "SELECT sum(modelled_ns) FROM analysis_op_perf_summary "
					   "WHERE level = 'host_op'"),
		     tkt_query_int(tkt_db, "SELECT sum(device_ns) FROM analysis_op_perf WHERE "
					   "level = 'host_op'"));
	cr_expect_eq(tkt_query_int(tkt_db, "SELECT sum(launched_ns - modelled_ns) FROM "
					   "analysis_op_perf_summary WHERE level = 'host_op'"),
		     tkt_query_int(tkt_db, "SELECT sum(device_ns) FROM analysis_op_perf_unmodelled "
					   "WHERE level = 'host_op'"));
	free(want);
	free(trace);
}

/*
 * sampled_rank-0 (correlation ids only): 174 GEMM groups; its aten::linear calls record the
 * inputs of earlier calls too (TorchScript), so they are refused and the aten::addmm inside
 * counts. Modelled share 78 409 000 of 607 225 000 launched ns (12.9 %): the rest is NCCL and
 * embedding lookups.
 */
Test(op_perf, sampled_rank_gemms_agree_with_python)
{
	expect_figures(
	    "kineto/HolisticTraceAnalysis/tests/data/trace_filter/sampled_rank-0.json.gz",
	    "sampled_rank-0.txt");
	cr_expect_eq(tkt_query_int(tkt_db, "SELECT count(*) FROM analysis_op_perf_unmodelled WHERE "
					   "name = 'aten::linear' AND reason = 'more args than "
					   "the op has'"),
		     1);
	tkt_expect_rows(
	    tkt_db,
	    "SELECT launched_ns, modelled_ns FROM analysis_op_perf_summary WHERE level = "
	    "'host_op'",
	    "607225000|78409000");
}

/*
 * The 2021 ResNet-50 sample (launch flows, legacy spelling): forward convolutions carry no
 * stride or padding (refused: "convolution parameters not recorded"), the backward ones are
 * modelled from grad_output; aten::linear counts, never the aten::addmm inside it.
 */
Test(op_perf, resnet50_convolution_backward_and_linear_agree_with_python)
{
	expect_figures("kineto/kineto/tb_plugin/samples/resnet50_num_workers_0/"
		       "worker0.1623143089861.pt.trace.json.gz",
		       "resnet50.txt");
	cr_expect_eq(tkt_query_int(tkt_db, "SELECT count(*) FROM analysis_op_perf WHERE name = "
					   "'aten::addmm'"),
		     0);
	tkt_expect_rows(tkt_db,
			"SELECT reason, calls FROM analysis_op_perf_unmodelled WHERE name = "
			"'aten::cudnn_convolution'",
			"convolution parameters not recorded|318");
	/* one process drives the only device: the KPI's figure is the process's */
	int64_t b, ns;
	bandwidth(0, &b, &ns);
	cr_expect_eq(ns, tkt_query_int(tkt_db, "SELECT modelled_ns FROM analysis_op_perf_summary"));
	cr_expect_eq(b, tkt_query_int(tkt_db, "SELECT bytes FROM analysis_op_perf_summary"));
}

/*
 * XLA on TPU: every XLA op carries flops and bytes accessed; per device the table's totals are
 * those of the device's xla_op events, and the KPI's figure is the device's hlo_op row.
 */
Test(op_perf, xla_cost_stats_per_device)
{
	char *trace = tkt_real("xplane/logdir/plugins/profile/xprof_tpu_v6e_inference/"
			       "tpu_inference_2.xplane.pb");
	import_analyze(trace);
	char *want =
	    tkt_rows(tkt_db, "SELECT t.device_id, sum(o.flops), sum(o.bytes_accessed), "
			     "sum(e.dur_ns), count(*) FROM events e JOIN tracks t ON t.id = "
			     "e.track_id JOIN op_details o ON o.event_id = e.id WHERE "
			     "e.kind = 8 GROUP BY t.device_id ORDER BY t.device_id");
	tkt_expect_rows(
	    tkt_db,
	    "SELECT p.device_id, p.f, p.b, p.ns, p.n FROM (SELECT device_id, sum(flops) AS f, "
	    "sum(bytes) AS b, sum(device_ns) AS ns, sum(calls) AS n FROM analysis_op_perf WHERE "
	    "level = 'hlo_op' GROUP BY device_id) p ORDER BY p.device_id",
	    want);
	free(want);
	cr_expect_eq(tkt_query_int(tkt_db, "SELECT count(*) FROM analysis_op_perf_unmodelled "
					   "WHERE level = 'hlo_op'"),
		     0);
	int64_t b, ns;
	api_bandwidth(1, &b, &ns);
	cr_expect_eq(ns,
		     tkt_query_int(tkt_db, "SELECT sum(e.dur_ns) FROM events e JOIN tracks t "
					   "ON t.id = e.track_id WHERE e.kind = 8 AND t.device_id "
					   "= 1"));
	cr_expect_eq(b, tkt_query_int(tkt_db,
				      "SELECT sum(o.bytes_accessed) FROM events e JOIN "
				      "tracks t ON t.id = e.track_id JOIN op_details o ON "
				      "o.event_id = e.id WHERE e.kind = 8 AND t.device_id = 1"));
	free(trace);
}

/* XLA on GPU without cost stats: every HLO op listed as unmodelled, no bandwidth figure. */
Test(op_perf, xla_gpu_without_cost_stats_is_unmodelled)
{
	char *trace = tkt_real("xplane/logdir/plugins/profile/jax08_mi300x_gemm/tw003.xplane.pb");
	import_analyze(trace);
	cr_expect_eq(tkt_query_int(tkt_db, "SELECT count(*) FROM analysis_op_perf WHERE level = "
					   "'hlo_op'"),
		     0);
	cr_expect_eq(tkt_query_int(tkt_db, "SELECT sum(device_ns) FROM analysis_op_perf_unmodelled "
					   "WHERE level = 'hlo_op'"),
		     tkt_query_int(tkt_db, "SELECT sum(total_ns) FROM analysis_op_profile WHERE "
					   "level = 'hlo_op'"));
	int64_t b, ns;
	bandwidth(0, &b, &ns);
	cr_expect_eq(b, -1);
	free(trace);
}

/*
 * GPU time per CPU op and per annotation (analysis_op_gpu_time) on real Kineto traces, against
 * tests/data/analyze/op_gpu_figures.py, which follows each device op's correlation id to its
 * launching call and takes the enclosing ops on that call's thread from the raw JSON; its printed
 * figures are in tests/data/analyze/op_gpu/ (regenerate them with the script; per step with
 * --steps NAME.steps into NAME.per_step.txt: analysis_op_gpu_steps). Two traces carry
 * launch flows (ns_resolution, nccl_data), one only correlation ids (sampled_rank-0).
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tk_analyze_store.h"

TestSuite(op_gpu_time, .init = tkt_analyze_setup, .fini = tkt_analyze_teardown, .timeout = 300);

/*
 * Per step: the step intervals are tracekit's (NAME.steps holds analysis_steps as the script got
 * them: checked first), the attribution of each launched device op to its step and owning
 * annotation is the script's (NAME.per_step.txt); every step's rows add up to a share of 1.
 */
static void expect_per_step(const char *name)
{
	char file[300];
	snprintf(file, sizeof(file), "%s.steps", name);
	char *want = tkt_figures("analyze/op_gpu", file);
	tkt_expect_rows(
	    tkt_db, "SELECT start_ns || '|' || end_ns FROM analysis_steps ORDER BY start_ns", want);
	free(want);
	snprintf(file, sizeof(file), "%s.per_step.txt", name);
	want = tkt_figures("analyze/op_gpu", file);
	tkt_expect_rows(
	    tkt_db,
	    "SELECT step, coalesce(name, ''), ops, device_ns FROM analysis_op_gpu_steps "
	    "ORDER BY step, coalesce(name, '')",
	    want);
	free(want);
	cr_expect_eq(tkt_query_int(tkt_db, "SELECT count(*) FROM (SELECT step FROM "
					   "analysis_op_gpu_steps GROUP BY device_id, step "
					   "HAVING abs(sum(step_share) - 1) > 1e-9)"),
		     0, "a step's shares do not add up to 1");
}

/* The trace @rel against @name.txt (per name), then per step. */
static void expect_figures(const char *rel, const char *name)
{
	char *trace = tkt_real(rel), figures[300];
	snprintf(figures, sizeof(figures), "%s.txt", name);
	tkt_ok(tkt_tracekit("import", trace, "-o", tkt_db, NULL));
	tkt_ok(tkt_tracekit("analyze", tkt_db, NULL));
	char *want = tkt_figures("analyze/op_gpu", figures);
	tkt_expect_rows(tkt_db,
			"SELECT level, name, calls, direct_ops, direct_ns, subtree_ops, subtree_ns "
			"FROM analysis_op_gpu_time ORDER BY level, name",
			want);
	/* every launched device op is attributed once directly per level, or to none */
	cr_expect_leq(
	    tkt_query_int(tkt_db, "SELECT max(s) FROM (SELECT sum(direct_ns) AS s FROM "
				  "analysis_op_gpu_time GROUP BY process_id, level)"),
	    tkt_query_int(tkt_db, "SELECT sum(dur_ns) FROM events WHERE kind IN (5, 6, 7)"));
	free(want);
	free(trace);
	expect_per_step(name);
}

Test(op_gpu_time, launch_flows_ns_resolution_agrees_with_python)
{
	expect_figures("kineto/HolisticTraceAnalysis/tests/data/ns_resolution_trace/"
		       "rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz",
		       "ns_resolution");
	/* host ops carry their category (docs/metrics.md, "Categories"); annotations none */
	tkt_expect_rows(
	    tkt_db,
	    "SELECT name, category FROM analysis_op_gpu_time WHERE name IN "
	    "('aten::cudnn_convolution', 'aten::cudnn_batch_norm', 'aten::add_', 'aten::mm', "
	    "'aten::mean', 'DistributedDataParallel.forward') ORDER BY name",
	    "DistributedDataParallel.forward|NULL\n"
	    "aten::add_|elementwise\n"
	    "aten::cudnn_batch_norm|norm\n"
	    "aten::cudnn_convolution|conv\n"
	    "aten::mean|reduction\n"
	    "aten::mm|gemm");
}

Test(op_gpu_time, launch_flows_nccl_data_agrees_with_python)
{
	expect_figures(
	    "kineto/HolisticTraceAnalysis/tests/data/nccl_parser_config/nccl_data.json.gz",
	    "nccl_data");
}

Test(op_gpu_time, correlation_ids_sampled_rank_agrees_with_python)
{
	expect_figures(
	    "kineto/HolisticTraceAnalysis/tests/data/trace_filter/sampled_rank-0.json.gz",
	    "sampled_rank-0");
}

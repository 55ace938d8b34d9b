/*
 * `tracekit baseline` and `tracekit check` end to end, on stores whose answer is known by
 * construction: a real trace against itself; copies of it with one kernel stretched by SQL;
 * reruns of one synthetic workload that differ only by run-to-run noise (synth --jitter), with and
 * without a planted slowdown; traces of other hardware, and with no device work; bounds; the
 * output formats (JSON and Markdown goldens, JUnit XML, GitHub annotations); bad baselines.
 */
#include <criterion/criterion.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tk_analyze_store.h"

TestSuite(check_cli, .init = tkt_analyze_setup, .fini = tkt_analyze_teardown, .timeout = 600);
TestSuite(full_corpus, .init = tkt_analyze_setup, .fini = tkt_analyze_teardown, .timeout = 600);

#define NS_RES                                                         \
	"kineto/HolisticTraceAnalysis/tests/data/ns_resolution_trace/" \
	"rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz"
#define NCCL "kineto/HolisticTraceAnalysis/tests/data/nccl_parser_config/nccl_data.json.gz"
#define NO_GPU "kineto/HolisticTraceAnalysis/tests/data/rank_non_gpu/rank_non_gpu.json.gz"
#define TRITON "kineto/HolisticTraceAnalysis/tests/data/triton_example/triton_example.json.gz"
#define CONTROL "kineto/HolisticTraceAnalysis/tests/data/trace_diff/control/control.json.gz"
#define V100_TEST "kineto/HolisticTraceAnalysis/tests/data/trace_diff/test/test.json.gz"
#define WINOGRAD "cudnn_infer_volta_scudnn_winograd_128x128_ldg1_ldg4_relu_tile148t_nt_v1"

/* Import the real trace @rel into @name in the test directory and analyse it. */
static char *store_of(const char *rel, const char *name)
{
	char *trace = tkt_real(rel), *path = tkt_path(tkt_dir, name);
	tkt_ok(tkt_tracekit("import", trace, "-o", path, NULL));
	tkt_ok(tkt_tracekit("analyze", path, NULL));
	free(trace);
	return path;
}

/* A copy of the store @from named @name with @sql run on it, analysed again. */
static char *variant(const char *from, const char *name, const char *sql)
{
	char *path = tkt_path(tkt_dir, name), cmd[4200];
	snprintf(cmd, sizeof(cmd), "cp '%s' '%s'", from, path);
	cr_assert_eq(system(cmd), 0);
	tkt_exec_sql(path, sql);
	tkt_ok(tkt_tracekit("analyze", path, NULL));
	return path;
}

/* synth of one GPU, @steps steps, seed 5, jitter @jitter ("0": none), analysed. */
static char *synth(const char *name, const char *steps, const char *jitter)
{
	char *path = tkt_path(tkt_dir, name);
	tkt_ok(tkt_tracekit("synth", "-o", path, "--events", "40000", "--devices", "1", "--steps",
			    steps, "--seed", "5", "--jitter", jitter, NULL));
	tkt_ok(tkt_tracekit("analyze", path, NULL));
	return path;
}

/* Scale every event of @path after its first step's start by @f (times and durations). */
static void slow_down(const char *path, const char *f, const char *where)
{
	char sql[1024];
	snprintf(
	    sql, sizeof(sql),
	    "CREATE TEMP TABLE t0 AS SELECT min(start_ns) AS t FROM analysis_steps%s;"
	    "UPDATE events SET ts_ns = (SELECT t FROM t0) + CAST((ts_ns - (SELECT t FROM t0)) * %s"
	    " AS INTEGER), dur_ns = CAST(dur_ns * %s AS INTEGER)"
	    " WHERE ts_ns >= (SELECT t FROM t0);",
	    where, f, f);
	tkt_exec_sql(path, sql);
	tkt_ok(tkt_tracekit("analyze", path, NULL));
}

/* One value of @sql over the JSON text @json bound as ?1 (an in-memory SQLite). */
static double jq(const char *json, const char *sql)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	cr_assert_eq(sqlite3_open(":memory:", &db), SQLITE_OK);
	cr_assert_eq(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK, "%s: %s", sql,
		     sqlite3_errmsg(db));
	sqlite3_bind_text(st, 1, json, -1, SQLITE_STATIC);
	cr_assert_eq(sqlite3_step(st), SQLITE_ROW, "%s", sql);
	double v = sqlite3_column_type(st, 0) == SQLITE_NULL ? -1 : sqlite3_column_double(st, 0);
	sqlite3_finalize(st);
	sqlite3_close(db);
	return v;
}

Test(check_cli, the_same_trace_as_baseline_and_input_passes)
{
	char *s = store_of(NS_RES, "ns.db"), *b = tkt_path(tkt_dir, "b.json");
	tkt_ok(tkt_tracekit("baseline", s, "-o", b, NULL));
	struct tkt_run r = tkt_tracekit("check", s, "--baseline", b, NULL);
	cr_expect_eq(r.code, 0, "%s%s", r.out, r.err);
	cr_expect(!strncmp(r.out, "tracekit check: PASS", 20), "%s", r.out);
	tkt_run_free(&r);
	/* the baseline may be the store itself, and the input a trace file imported on the fly */
	char *trace = tkt_real(NS_RES);
	r = tkt_tracekit("check", trace, "--baseline", s, "--format", "json", NULL);
	cr_expect_eq(r.code, 0, "%s%s", r.out, r.err);
	cr_expect_eq(jq(r.out, "SELECT json_extract(?1, '$.regressions')"), 0);
	cr_expect_eq(jq(r.out, "SELECT count(*) FROM json_each(?1, '$.gates') g WHERE "
			       "json_extract(g.value, '$.status') = 'fail'"),
		     0);
	tkt_run_free(&r);
	free(trace);
	free(s);
	free(b);
}

Test(check_cli, a_kernel_stretched_by_a_fifth_fails_naming_it_and_by_2_percent_passes)
{
	char *s = store_of(NS_RES, "ns.db");
	char sql[512];
	snprintf(sql, sizeof(sql),
		 "UPDATE events SET dur_ns = dur_ns * %%d / 100 WHERE name_id = (SELECT id FROM "
		 "strings WHERE str = '%s')",
		 WINOGRAD);
	char up20[600], up2[600];
	snprintf(up20, sizeof(up20), sql, 120);
	snprintf(up2, sizeof(up2), sql, 102);
	char *s20 = variant(s, "ns20.db", up20), *s2 = variant(s, "ns2.db", up2);
	/* per step, the kernel's time in the baseline: the independent figure */
	int64_t per_step = tkt_query_int(
	    s, "SELECT sum(total_ns) / (SELECT count(*) FROM analysis_steps) FROM analysis_step_ops"
	       " WHERE level = 'kernel' AND name = '" WINOGRAD "'");
	cr_assert_gt(per_step, 1000000);
	struct tkt_run r = tkt_tracekit("check", s20, "--baseline", s, "--format", "json", NULL);
	cr_expect_eq(r.code, 1, "%s%s", r.out, r.err);
	cr_expect_eq(jq(r.out, "SELECT json_extract(?1, '$.regressions')"), 1, "%s", r.out);
	const char *one = "SELECT %s FROM json_each(?1, '$.gates') g WHERE "
			  "json_extract(g.value, '$.status') = 'fail'";
	char q[512];
	snprintf(q, sizeof(q), one, "json_extract(g.value, '$.subject') = '" WINOGRAD "'");
	cr_expect_eq(jq(r.out, q), 1, "%s", r.out);
	snprintf(q, sizeof(q), one, "json_extract(g.value, '$.delta')");
	double delta = jq(r.out, q);
	/* 5 steps, every call of it 20 % longer: exactly a fifth of its time per step */
	cr_expect(delta > 0.199 * (double)per_step && delta < 0.201 * (double)per_step,
		  "delta %.0f vs %lld", delta, (long long)per_step);
	snprintf(q, sizeof(q), one, "json_extract(g.value, '$.p_value')");
	cr_expect_lt(jq(r.out, q), 0.01);
	tkt_run_free(&r);
	/* the text opens with the verdict and names the kernel */
	r = tkt_tracekit("check", s20, "--baseline", s, NULL);
	cr_expect_eq(r.code, 1);
	cr_expect(
	    !strncmp(r.out, "tracekit check: FAIL (1 regression): kernel cudnn_infer_volta", 61),
	    "%s", r.out);
	cr_expect(strstr(r.out, "+20.0 %") != NULL, "%s", r.out);
	tkt_run_free(&r);
	r = tkt_tracekit("check", s2, "--baseline", s, "--gate", "kernel:*:+5%", NULL);
	cr_expect_eq(r.code, 0, "%s%s", r.out, r.err);
	tkt_run_free(&r);
	/* the other way round it is an improvement: reported, and the check passes */
	r = tkt_tracekit("check", s, "--baseline", s20, "--format", "json", NULL);
	cr_expect_eq(r.code, 0, "%s%s", r.out, r.err);
	cr_expect_eq(jq(r.out, "SELECT json_extract(?1, '$.improvements')"), 1, "%s", r.out);
	snprintf(q, sizeof(q),
		 "SELECT json_extract(g.value, '$.subject') = '" WINOGRAD "' FROM json_each(?1, "
		 "'$.gates') g WHERE json_extract(g.value, '$.status') = 'improved'");
	cr_expect_eq(jq(r.out, q), 1, "%s", r.out);
	tkt_run_free(&r);
	free(s);
	free(s20);
	free(s2);
}

Test(check_cli, reruns_with_only_noise_pass_and_a_planted_slowdown_fails)
{
	char *a = synth("a.db", "20", "1"), *b = synth("b.db", "20", "2"),
	     *c = synth("c.db", "20", "3"), *base = tkt_path(tkt_dir, "base.json");
	tkt_ok(tkt_tracekit("baseline", a, b, "-o", base, NULL));
	struct tkt_run r = tkt_tracekit("check", c, "--baseline", base, "--format", "json", NULL);
	cr_expect_eq(r.code, 0, "noise raised an alarm: %s%s", r.out, r.err);
	cr_expect_eq(jq(r.out, "SELECT json_extract(?1, '$.baseline.runs')"), 2);
	cr_expect_eq(jq(r.out, "SELECT json_extract(?1, '$.baseline.steps')"), 40);
	tkt_run_free(&r);
	/* the same workload 6 % slower in every step: a regression, with high confidence */
	char *slow = variant(c, "slow.db", "SELECT 1");
	slow_down(slow, "1.06", "");
	r = tkt_tracekit("check", slow, "--baseline", base, "--format", "json", NULL);
	cr_expect_eq(r.code, 1, "%s%s", r.out, r.err);
	const char *st = "SELECT json_extract(g.value, '$.%s') FROM json_each(?1, '$.gates') g "
			 "WHERE json_extract(g.value, '$.gate') = 'step_time:+5%%'";
	char q[512];
	snprintf(q, sizeof(q), st, "p_value");
	cr_expect_lt(jq(r.out, q), 0.001, "%s", r.out);
	snprintf(q, sizeof(q), st, "low_confidence");
	cr_expect_eq(jq(r.out, q), 0);
	snprintf(q, sizeof(q), st, "change");
	double change = jq(r.out, q);
	cr_expect(change > 0.055 && change < 0.065, "change %f", change);
	tkt_run_free(&r);
	free(a);
	free(b);
	free(c);
	free(slow);
	free(base);
}

Test(check_cli, three_steps_are_low_confidence_and_one_slow_step_of_three_is_no_regression)
{
	char *a = synth("a.db", "3", "1"), *c = synth("c.db", "3", "3");
	char *slow = variant(c, "slow.db", "SELECT 1"), *one = variant(c, "one.db", "SELECT 1");
	slow_down(slow, "1.06", "");
	/* only the last step slower: from its start on */
	slow_down(one, "1.06", " WHERE start_ns = (SELECT max(start_ns) FROM analysis_steps)");
	struct tkt_run r = tkt_tracekit("check", slow, "--baseline", a, "--format", "json", NULL);
	const char *st = "SELECT json_extract(g.value, '$.%s') FROM json_each(?1, '$.gates') g "
			 "WHERE json_extract(g.value, '$.gate') = 'step_time:+5%%'";
	char q[512];
	snprintf(q, sizeof(q), st, "low_confidence");
	cr_expect_eq(jq(r.out, q), 1, "%s", r.out);
	cr_expect_eq(r.code, 1, "decided on the threshold: %s%s", r.out, r.err);
	tkt_run_free(&r);
	r = tkt_tracekit("check", slow, "--baseline", a, NULL);
	cr_expect(strstr(r.out, "(low confidence)") != NULL, "%s", r.out);
	tkt_run_free(&r);
	r = tkt_tracekit("check", one, "--baseline", a, "--gate", "step_time:+5%", NULL);
	cr_expect_eq(r.code, 0, "the median of three moved by one slow step: %s", r.out);
	tkt_run_free(&r);
	free(a);
	free(c);
	free(slow);
	free(one);
}

Test(check_cli, other_hardware_and_no_device_work_are_not_comparable)
{
	char *v100 = store_of(NS_RES, "v100.db"), *a100 = store_of(NCCL, "a100.db");
	struct tkt_run r = tkt_tracekit("check", a100, "--baseline", v100, NULL);
	cr_expect_eq(r.code, 2, "%s%s", r.out, r.err);
	cr_expect(strstr(r.out, "NOT COMPARABLE: different hardware: the baseline ran on 1 x Tesla "
				"V100-SXM2-32GB, the input on 1 x NVIDIA A100-PG509-200") != NULL,
		  "%s", r.out);
	tkt_run_free(&r);
	r = tkt_tracekit("check", a100, "--baseline", v100, "--allow-different-hardware", NULL);
	cr_expect(r.code == 0 || r.code == 1, "compared anyway: %d %s%s", r.code, r.out, r.err);
	cr_expect(strstr(r.out, "different hardware, compared as asked") != NULL, "%s", r.out);
	tkt_run_free(&r);
	/* the same GPU model, other kernels: another workload, the largest kernels of each named */
	char *triton = store_of(TRITON, "triton.db");
	r = tkt_tracekit("check", triton, "--baseline", a100, NULL);
	cr_expect_eq(r.code, 2, "%s%s", r.out, r.err);
	cr_expect(strstr(r.out, "NOT COMPARABLE: different workloads: only 0 % of the baseline's "
				"kernel time is in kernels the input runs") != NULL,
		  "%s", r.out);
	cr_expect(strstr(r.out, "baseline only: ncclKernel_AllReduce") != NULL, "%s", r.out);
	tkt_run_free(&r);
	free(triton);
	char *trace = tkt_real(NO_GPU);
	r = tkt_tracekit("check", trace, "--baseline", v100, "--format", "json", NULL);
	cr_expect_eq(r.code, 2, "%s%s", r.out, r.err);
	cr_expect(strstr(r.out, "\"verdict\": \"not_comparable\"") != NULL, "%s", r.out);
	cr_expect(strstr(r.out, "has no device work") != NULL, "%s", r.out);
	tkt_run_free(&r);
	free(trace);
	free(v100);
	free(a100);
}

Test(check_cli, bounds_need_no_baseline)
{
	char *s = store_of(NS_RES, "ns.db");
	double mean =
	    (double)tkt_query_int(s, "SELECT CAST(mean_ns AS INTEGER) FROM analysis_step_stats");
	cr_assert(mean > 90e6 && mean < 100e6, "%f", mean);
	struct tkt_run r = tkt_tracekit("check", s, "--max", "step_time.mean=150ms", NULL);
	cr_expect_eq(r.code, 0, "%s%s", r.out, r.err);
	tkt_run_free(&r);
	r = tkt_tracekit("check", s, "--max", "step_time.mean=50ms", "--format", "json", NULL);
	cr_expect_eq(r.code, 1, "%s%s", r.out, r.err);
	double cur = jq(r.out, "SELECT json_extract(g.value, '$.input') FROM json_each(?1, "
			       "'$.gates') g");
	cr_expect(cur > mean - 1 && cur < mean + 1, "%f vs %f", cur, mean);
	tkt_run_free(&r);
	r = tkt_tracekit("check", s, "--gate", "step_time:+5%", NULL);
	cr_expect_eq(r.code, 2, "a relative gate needs a baseline: %s", r.err);
	tkt_run_free(&r);
	free(s);
}

Test(full_corpus, the_77_ms_steps_of_trace_diff_control_pass_150ms_and_fail_50ms)
{
	char *s = store_of(CONTROL, "control.db");
	double mean =
	    (double)tkt_query_int(s, "SELECT CAST(mean_ns AS INTEGER) FROM analysis_step_stats");
	cr_assert(mean > 76e6 && mean < 79e6, "%f", mean);
	struct tkt_run r = tkt_tracekit("check", s, "--max", "step_time.mean=150ms", NULL);
	cr_expect_eq(r.code, 0, "%s%s", r.out, r.err);
	tkt_run_free(&r);
	r = tkt_tracekit("check", s, "--max", "step_time.mean=50ms", NULL);
	cr_expect_eq(r.code, 1, "%s%s", r.out, r.err);
	tkt_run_free(&r);
	/* and its V100 pair is other hardware */
	char *v = store_of(V100_TEST, "test.db");
	r = tkt_tracekit("check", v, "--baseline", s, NULL);
	cr_expect_eq(r.code, 2, "%s%s", r.out, r.err);
	cr_expect(strstr(r.out, "different hardware") != NULL, "%s", r.out);
	tkt_run_free(&r);
	free(s);
	free(v);
}

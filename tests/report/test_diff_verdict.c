/*
 * `tracekit diff`: the step-time rows and the better/worse verdicts, on synthetic stores whose
 * changes are known by construction: a copy of a store with one kernel's durations halved, one
 * kernel's doubled and the host steps stretched by a fifth (then analysed again), and the same
 * workload rerun with only run-to-run timing noise (synth --jitter), which must raise no verdict.
 * The diff's figures are checked against the analysis tables of each store.
 */
#include <criterion/criterion.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tk_analyze_store.h"

TestSuite(diff_verdict, .init = tkt_analyze_setup, .fini = tkt_analyze_teardown, .timeout = 300);

/* The largest GEMM of the synthetic workload (halved) and its layer-norm kernel (doubled). */
#define SHRUNK "sm90_xmma_gemm_bf16bf16_bf16f32_f32_nn_n_%"
#define STRETCHED "void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<%"

static char *synth(const char *name, const char *jitter, const char *devices)
{
	char *path = tkt_path(tkt_dir, name);
	struct tkt_run r = tkt_tracekit("synth", "-o", path, "--events", "30000", "--seed", "3",
					"--devices", devices, "--jitter", jitter, NULL);
	cr_assert_eq(r.code, 0, "%s", r.err);
	tkt_run_free(&r);
	r = tkt_tracekit("analyze", path, NULL);
	cr_assert_eq(r.code, 0, "%s", r.err);
	tkt_run_free(&r);
	return path;
}

/* `tracekit diff A B --format json`, held in an in-memory database as ?1 with A and B attached. */
struct diff {
	struct tkt_run r;
	sqlite3 *db;
};

static struct diff run_diff(const char *a, const char *b)
{
	struct diff d;
	d.r = tkt_tracekit("diff", a, b, "--format", "json", NULL);
	cr_assert_eq(d.r.code, 0, "%s", d.r.err);
	cr_assert_eq(sqlite3_open(":memory:", &d.db), SQLITE_OK);
	char sql[2200];
	snprintf(sql, sizeof(sql), "ATTACH DATABASE '%s' AS a; ATTACH DATABASE '%s' AS b", a, b);
	cr_assert_eq(sqlite3_exec(d.db, sql, NULL, NULL, NULL), SQLITE_OK);
	return d;
}

static void diff_free(struct diff *d)
{
	sqlite3_close(d->db);
	tkt_run_free(&d->r);
}

/* One value of @sql, where ?1 is the diff's JSON; NULL results read as -1. */
static double q(const struct diff *d, const char *sql)
{
	sqlite3_stmt *st = NULL;
	cr_assert_eq(sqlite3_prepare_v2(d->db, sql, -1, &st, NULL), SQLITE_OK, "%s: %s", sql,
		     sqlite3_errmsg(d->db));
	sqlite3_bind_text(st, 1, d->r.out, -1, SQLITE_STATIC);
	cr_assert_eq(sqlite3_step(st), SQLITE_ROW, "%s", sql);
	double v = sqlite3_column_type(st, 0) == SQLITE_NULL ? -1 : sqlite3_column_double(st, 0);
	sqlite3_finalize(st);
	return v;
}

/* The rows of section @s of the diff, each as r.value. */
#define ROWS(s) "FROM json_each(?1, '$." s ".rows') r"

/* Steps in the diff that differ from analysis_step_stats of A and B: none. */
static void expect_step_rows_equal_the_analysis(const struct diff *d)
{
	static const char *const cols[][2] = {
	    {"steps", "steps"},
	    {"step_time_median", "median_ns"},
	    {"step_time_mean", "mean_ns"},
	    {"host_step_time_median", "host_median_ns"},
	    {"host_step_time_mean", "host_mean_ns"},
	};
	for (size_t i = 0; i < 5; i++) {
		char sql[1024];
		snprintf(sql, sizeof(sql),
			 "SELECT count(*) " ROWS(
			     "steps") " JOIN a.analysis_step_stats x"
				      " ON x.device_id = json_extract(r.value, '$.device_id')"
				      " JOIN b.analysis_step_stats y ON y.device_id = x.device_id"
				      " WHERE json_extract(r.value, '$.metric') = '%s'"
				      " AND json_extract(r.value, '$.a') = x.%s"
				      " AND json_extract(r.value, '$.b') = y.%s",
			 cols[i][0], cols[i][1], cols[i][1]);
		cr_expect_eq(q(d, sql), q(d, "SELECT count(*) FROM a.analysis_step_stats"), "%s",
			     cols[i][0]);
	}
	cr_expect_eq(q(d, "SELECT count(*) " ROWS("steps")),
		     5 * q(d, "SELECT count(*) FROM a.analysis_step_stats"));
}

Test(diff_verdict, changes_known_by_construction)
{
	char *a = synth("a.db", "0", "1");
	char *b = tkt_path(tkt_dir, "b.db");
	struct tkt_run r = tkt_tracekit("synth", "-o", b, "--events", "30000", "--seed", "3",
					"--devices", "1", NULL);
	cr_assert_eq(r.code, 0, "%s", r.err);
	tkt_run_free(&r);
	tkt_exec_sql(b, "UPDATE events SET dur_ns = dur_ns / 2 WHERE kind = 5 AND name_id IN"
			" (SELECT id FROM strings WHERE str LIKE '" SHRUNK "');"
			"UPDATE events SET dur_ns = dur_ns * 2 WHERE kind = 5 AND name_id IN"
			" (SELECT id FROM strings WHERE str LIKE '" STRETCHED "');"
			"UPDATE events SET dur_ns = dur_ns * 6 / 5 WHERE kind = 11");
	r = tkt_tracekit("analyze", b, NULL);
	cr_assert_eq(r.code, 0, "%s", r.err);
	tkt_run_free(&r);

	struct diff d = run_diff(a, b);
	expect_step_rows_equal_the_analysis(&d);
	/* host steps a fifth longer: worse; device steps (the device-side annotations) unchanged */
	cr_expect_eq(q(&d,
		       "SELECT avg(y.host_mean_ns / x.host_mean_ns) FROM a.analysis_step_stats x"
		       " JOIN b.analysis_step_stats y USING (device_id)") > 1.15,
		     1);
	cr_expect_eq(q(&d,
		       "SELECT count(*) " ROWS(
			   "steps") " WHERE json_extract(r.value,"
				    " '$.metric') LIKE 'host_step_time_%' AND json_extract(r.value,"
				    " '$.verdict') = 'worse'"),
		     2);
	cr_expect_eq(q(&d, "SELECT count(*) " ROWS(
			       "steps") " WHERE json_extract(r.value,"
					" '$.metric') LIKE 'step_time_%' AND json_extract(r.value,"
					" '$.verdict') IS NOT NULL"),
		     0);
	/* the halved GEMM is better, the doubled layer norm worse, by their kernel totals */
	cr_expect_eq(
	    q(&d, "SELECT json_extract(r.value, '$.verdict') = 'better' " ROWS(
		      "kernels") " WHERE json_extract(r.value, '$.name') LIKE '" SHRUNK "'"),
	    1);
	cr_expect_eq(
	    q(&d, "SELECT json_extract(r.value, '$.verdict') = 'worse' " ROWS(
		      "kernels") " WHERE json_extract(r.value, '$.name') LIKE '" STRETCHED "'"),
	    1);
	cr_expect_eq(q(&d, "SELECT json_extract(r.value, '$.b_total_ns') = (SELECT sum(total_ns)"
			   " FROM b.analysis_kernel_stats WHERE name LIKE '" STRETCHED "') " ROWS(
			       "kernels") " WHERE json_extract(r.value, '$.name') LIKE '" STRETCHED
					  "'"),
		     1);
	/* halving the largest kernel opens idle time the doubled small one cannot fill: the
	 * analysis says utilization fell, and the diff calls that worse (device time and KPI) */
	cr_expect_eq(q(&d,
		       "SELECT y.utilization < x.utilization - 0.05 FROM"
		       " a.analysis_device_time x JOIN b.analysis_device_time y USING (device_id)"
		       " WHERE x.selected = 1 AND y.selected = 1"),
		     1);
	cr_expect_eq(
	    q(&d, "SELECT json_extract(r.value, '$.verdict') = 'worse' " ROWS(
		      "device_time") " WHERE json_extract(r.value, '$.metric') = 'utilization'"),
	    1);
	cr_expect_eq(
	    q(&d, "SELECT json_extract(r.value, '$.verdict') = 'worse' " ROWS(
		      "kpis") " WHERE json_extract(r.value, '$.metric') = 'gpu_utilization'"),
	    1);
	/* neutral metrics get no verdict even when flagged; every row has the key */
	cr_expect_eq(
	    q(&d, "SELECT count(*) " ROWS(
		      "device_time") " WHERE json_extract(r.value,"
				     " '$.metric') IN ('window', 'busy', 'compute', 'comm') AND"
				     " json_extract(r.value, '$.verdict') IS NOT NULL"),
	    0);
	cr_expect_eq(q(&d, "SELECT count(*) " ROWS(
			       "device_time") " WHERE json_extract(r.value,"
					      " '$.metric') = 'busy' AND json_extract(r.value, "
					      "'$.flag') = 'down'"),
		     1);
	const char *const secs[] = {"steps", "kpis", "device_time", "ops", "kernels"};
	for (size_t i = 0; i < 5; i++) {
		char sql[256];
		snprintf(sql, sizeof(sql),
			 "SELECT count(*) FROM json_each(?1, '$.%s.rows') r WHERE"
			 " json_type(r.value, '$.verdict') IS NULL",
			 secs[i]);
		cr_expect_eq(q(&d, sql), 0, "%s rows without a verdict key", secs[i]);
	}
	/* the summary counts the verdicts of every row */
	cr_expect_eq(q(&d, "SELECT json_extract(?1, '$.summary.worse')"),
		     q(&d,
		       "SELECT count(*) FROM (SELECT value FROM json_each(?1, '$.steps.rows')"
		       " UNION ALL SELECT value FROM json_each(?1, '$.kpis.rows') UNION ALL"
		       " SELECT value FROM json_each(?1, '$.device_time.rows') UNION ALL SELECT"
		       " value FROM json_each(?1, '$.ops.rows') UNION ALL SELECT value FROM"
		       " json_each(?1, '$.kernels.rows')) WHERE json_extract(value, '$.verdict')"
		       " = 'worse'"));
	cr_expect_geq(q(&d, "SELECT json_extract(?1, '$.summary.better')"), 1);
	diff_free(&d);
	free(a);
	free(b);
}

/*
 * The same workload with fresh run-to-run noise (synth --jitter, two ranks): no verdict at the
 * default 5 % on step times, KPIs, utilization, idle, ops or kernels. The one exception is time
 * spent waiting in collectives (exposed_comm, the all-reduce kernels) on the rank that waits for
 * the straggler: a difference of two ranks' progress, it moves by 5-15 % with noise alone
 * (docs/reports.md, "Better or worse").
 */
Test(diff_verdict, noise_raises_no_verdict)
{
	char *none = synth("none.db", "0", "2");
	const char *jitters[] = {"1", "2", "5"};
	for (int i = 0; i < 3; i++) {
		char name[16];
		snprintf(name, sizeof(name), "j%s.db", jitters[i]);
		char *j = synth(name, jitters[i], "2");
		struct diff d = run_diff(none, j);
		expect_step_rows_equal_the_analysis(&d);
		cr_expect_eq(q(&d,
			       "SELECT count(*) FROM (SELECT value FROM json_each(?1,"
			       " '$.steps.rows') UNION ALL SELECT value FROM json_each(?1,"
			       " '$.kpis.rows') UNION ALL SELECT value FROM json_each(?1,"
			       " '$.device_time.rows') UNION ALL SELECT value FROM json_each(?1,"
			       " '$.ops.rows') UNION ALL SELECT value FROM json_each(?1,"
			       " '$.kernels.rows')) WHERE json_extract(value, '$.verdict') IS NOT"
			       " NULL AND coalesce(json_extract(value, '$.metric'), '') <>"
			       " 'exposed_comm' AND coalesce(json_extract(value, '$.name'), '')"
			       " NOT LIKE 'ncclDevKernel%'"),
			     0, "jitter %s", jitters[i]);
		cr_expect_leq(q(&d, "SELECT json_extract(?1, '$.summary.worse') +"
				    " json_extract(?1, '$.summary.better')"),
			      3, "jitter %s", jitters[i]);
		/* the timing did move */
		cr_expect_eq(q(&d,
			       "SELECT count(*) " ROWS("steps") " WHERE json_extract(r.value,"
								" '$.metric') = 'step_time_mean' "
								"AND json_extract(r.value, '$.rel')"
								" <> 0"),
			     2);
		diff_free(&d);
		free(j);
	}
	free(none);
}

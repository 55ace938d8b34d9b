/*
 * The baseline file's figures against an independent computation from the raw events: on a
 * two-GPU synthetic store, every per-step sample (step time: the longest device's k-th step;
 * device-op time and one kernel's time: the mean over devices of the summed durations of the
 * device operations that start inside each device's k-th step) recomputed in SQL from events,
 * and analysis_step_ops checked the same way per device, step and name. Also: two runs keep
 * their samples apart, and runs on other devices are refused.
 */
#include <criterion/criterion.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tk_analyze_store.h"

TestSuite(baseline, .init = tkt_analyze_setup, .fini = tkt_analyze_teardown, .timeout = 300);

static char *synth(const char *name, const char *devices, const char *jitter)
{
	char *path = tkt_path(tkt_dir, name);
	tkt_ok(tkt_tracekit("synth", "-o", path, "--events", "30000", "--devices", devices,
			    "--steps", "6", "--seed", "9", "--jitter", jitter, NULL));
	tkt_ok(tkt_tracekit("analyze", path, NULL));
	return path;
}

/* The device's k-th step ([start, end)) by start, and the device ops, from the raw tables. */
#define STEPS                                                                                     \
	"WITH st AS (SELECT device_id, row_number() OVER (PARTITION BY device_id ORDER BY "       \
	"start_ns, step_event_id) - 1 AS k, start_ns, end_ns, dur_ns FROM analysis_steps), "      \
	"ops AS (SELECT t.device_id AS device_id, e.ts_ns AS ts, e.dur_ns AS dur, s.str AS name " \
	"FROM events e JOIN tracks t ON t.id = e.track_id JOIN strings s ON s.id = e.name_id "    \
	"WHERE t.device_id IS NOT NULL AND e.kind IN (5, 6, 7)), "                                \
	"per AS (SELECT st.device_id AS d, st.k AS k, sum(ops.dur) AS ns FROM st JOIN ops ON "    \
	"ops.device_id = st.device_id AND ops.ts >= st.start_ns AND ops.ts < st.end_ns %s "       \
	"GROUP BY st.device_id, st.k) "

/* Expect the baseline samples at JSON path @jpath (run 0) to equal @sql's rows (k order). */
static void expect_samples(const char *store, const char *json, const char *jpath, const char *sql)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	cr_assert_eq(sqlite3_open(store, &db), SQLITE_OK);
	char q[4096];
	snprintf(q, sizeof(q),
		 "WITH want AS (%s), got AS (SELECT key AS k, value AS v FROM json_each(?1, '%s')) "
		 "SELECT (SELECT count(*) FROM want), (SELECT count(*) FROM got), (SELECT count(*) "
		 "FROM want JOIN got USING (k) WHERE abs(want.v - got.v) <= 1e-6 * abs(want.v) + "
		 "1e-6)",
		 sql, jpath);
	cr_assert_eq(sqlite3_prepare_v2(db, q, -1, &st, NULL), SQLITE_OK, "%s: %s", q,
		     sqlite3_errmsg(db));
	sqlite3_bind_text(st, 1, json, -1, SQLITE_STATIC);
	cr_assert_eq(sqlite3_step(st), SQLITE_ROW);
	int want = sqlite3_column_int(st, 0), got = sqlite3_column_int(st, 1),
	    same = sqlite3_column_int(st, 2);
	cr_expect_gt(want, 0, "%s: no steps", jpath);
	cr_expect_eq(got, want, "%s: %d samples, want %d", jpath, got, want);
	cr_expect_eq(same, want, "%s: %d of %d samples equal the raw computation", jpath, same,
		     want);
	sqlite3_finalize(st);
	sqlite3_close(db);
}

Test(baseline, per_step_samples_equal_a_computation_from_the_raw_events)
{
	char *s = synth("two.db", "2", "0"), *b = tkt_path(tkt_dir, "b.json");
	tkt_ok(tkt_tracekit("baseline", s, "-o", b, NULL));
	char *json = tkt_slurp(b, NULL);
	char sql[4096];
	/* step time: the longest device's k-th step */
	snprintf(sql, sizeof(sql), STEPS "SELECT k, max(dur_ns) AS v FROM st GROUP BY k ORDER BY k",
		 "");
	expect_samples(s, json, "$.metrics.step_time.samples[0]", sql);
	/* device-op time: mean over the devices of the ops that start in their k-th step */
	snprintf(sql, sizeof(sql), STEPS "SELECT k, avg(ns) AS v FROM per GROUP BY k ORDER BY k",
		 "");
	expect_samples(s, json, "$.metrics.kernel_time.samples[0]", sql);
	/* the largest kernel: the same restricted to its name */
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	cr_assert_eq(sqlite3_open(":memory:", &db), SQLITE_OK);
	cr_assert_eq(
	    sqlite3_prepare_v2(db, "SELECT json_extract(?1, '$.kernels[0].name')", -1, &st, NULL),
	    SQLITE_OK);
	sqlite3_bind_text(st, 1, json, -1, SQLITE_STATIC);
	cr_assert_eq(sqlite3_step(st), SQLITE_ROW);
	char *name = strdup((const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	sqlite3_close(db);
	char cond[1024], *q = sqlite3_mprintf("AND ops.name = %Q", name);
	snprintf(cond, sizeof(cond), "%s", q);
	sqlite3_free(q);
	snprintf(sql, sizeof(sql),
		 STEPS "SELECT st.k AS k, coalesce(sum(per.ns), 0) / (SELECT count(DISTINCT "
		       "device_id) FROM st s2 WHERE s2.k = st.k) AS v FROM (SELECT DISTINCT k FROM "
		       "st) st LEFT JOIN per ON per.k = st.k GROUP BY st.k ORDER BY st.k",
		 cond);
	expect_samples(s, json, "$.kernels[0].samples[0]", sql);
	/* analysis_step_ops per device, step and name against the raw events */
	snprintf(
	    sql, sizeof(sql),
	    "WITH st AS (SELECT device_id, row_number() OVER (PARTITION BY device_id ORDER BY "
	    "start_ns, step_event_id) - 1 AS k, start_ns, end_ns FROM analysis_steps), "
	    "raw AS (SELECT st.device_id AS d, st.k AS k, e.name_id AS n, count(*) AS c, "
	    "sum(e.dur_ns) AS ns FROM st JOIN tracks t ON t.device_id = st.device_id JOIN events e "
	    "ON e.track_id = t.id AND e.kind IN (5, 6, 7) AND e.ts_ns >= st.start_ns AND "
	    "e.ts_ns < st.end_ns GROUP BY 1, 2, 3), "
	    "ana AS (SELECT device_id AS d, step_index AS k, (SELECT id FROM strings WHERE str = "
	    "name) AS n, calls AS c, total_ns AS ns FROM analysis_step_ops WHERE level = "
	    "'kernel') "
	    "SELECT (SELECT count(*) FROM raw) - (SELECT count(*) FROM raw JOIN ana USING (d, k, "
	    "n, c, ns)) + (SELECT count(*) FROM ana) - (SELECT count(*) FROM raw)");
	cr_expect_eq(tkt_query_int(s, sql), 0, "analysis_step_ops differs from the raw events");
	cr_expect_gt(tkt_query_int(s, "SELECT count(*) FROM analysis_step_ops"), 100);
	free(name);
	free(json);
	free(s);
	free(b);
}

Test(baseline, two_runs_keep_their_samples_apart_and_other_devices_are_refused)
{
	char *a = synth("a.db", "1", "1"), *c = synth("c.db", "1", "2"),
	     *two = synth("two.db", "2", "0");
	char *b = tkt_path(tkt_dir, "b.json");
	tkt_ok(tkt_tracekit("baseline", a, c, "-o", b, NULL));
	char *json = tkt_slurp(b, NULL);
	cr_expect(strstr(json, "\"runs\": [\n    {\"input\": \"a.db\", \"steps\": 6,") != NULL,
		  "%.300s", json);
	expect_samples(
	    a, json, "$.metrics.step_time.samples[0]",
	    "SELECT row_number() OVER (ORDER BY start_ns, step_event_id) - 1 AS k, dur_ns "
	    "AS v FROM analysis_steps");
	expect_samples(
	    c, json, "$.metrics.step_time.samples[1]",
	    "SELECT row_number() OVER (ORDER BY start_ns, step_event_id) - 1 AS k, dur_ns "
	    "AS v FROM analysis_steps");
	struct tkt_run r = tkt_tracekit("baseline", a, two, "-o", b, NULL);
	cr_expect_eq(r.code, 2, "%s", r.err);
	cr_expect(strstr(r.err, "not runs of one benchmark: 1 x NVIDIA H100 80GB HBM3 against 2 x "
				"NVIDIA H100 80GB HBM3") != NULL,
		  "%s", r.err);
	tkt_run_free(&r);
	free(json);
	free(a);
	free(c);
	free(two);
	free(b);
}

/*
 * Tests of `tracekit synth --jitter`: jitter 0 is the unjittered output byte for byte; a jitter
 * seed reruns the same workload (same events, names, launch configurations, flows, allocations,
 * calls per step) with fresh run-to-run timing noise of about 2 % per device op, which keeps the
 * streams free of overlaps and moves the step times by far less than a regression gate flags.
 * Stores are written through the command line and compared by SQL with the other one attached.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tk_analyze_store.h"

TestSuite(synth_jitter, .init = tkt_analyze_setup, .fini = tkt_analyze_teardown, .timeout = 300);

/* `tracekit synth --events 30000 --seed 1` (two devices) with --jitter @jitter (NULL: none). */
static char *gen(const char *name, const char *jitter)
{
	char *path = tkt_path(tkt_dir, name);
	struct tkt_run r =
	    jitter ? tkt_tracekit("synth", "-o", path, "--events", "30000", "--seed", "1",
				  "--jitter", jitter, NULL)
		   : tkt_tracekit("synth", "-o", path, "--events", "30000", "--seed", "1", NULL);
	cr_assert_eq(r.code, 0, "synth --jitter %s: %s", jitter ? jitter : "(none)", r.err);
	tkt_run_free(&r);
	return path;
}

/* Store @a with @b attached as "b". */
static sqlite3 *open_pair(const char *a, const char *b)
{
	sqlite3 *db = NULL;
	cr_assert_eq(sqlite3_open_v2(a, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	char sql[1200];
	snprintf(sql, sizeof(sql), "ATTACH DATABASE '%s' AS b", b);
	cr_assert_eq(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK, "%s", sqlite3_errmsg(db));
	return db;
}

static double num(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st = NULL;
	cr_assert_eq(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK, "%s: %s", sql,
		     sqlite3_errmsg(db));
	cr_assert_eq(sqlite3_step(st), SQLITE_ROW, "%s", sql);
	double v = sqlite3_column_double(st, 0);
	sqlite3_finalize(st);
	return v;
}

/* @x with every "S." replaced by @schema and a dot, into @out. */
static void in_schema(char *out, size_t n, const char *x, const char *schema)
{
	size_t o = 0;
	for (; *x && o + 8 < n; x++) {
		if (x[0] == 'S' && x[1] == '.') {
			o += (size_t)snprintf(out + o, n - o, "%s.", schema);
			x++;
		} else {
			out[o++] = *x;
		}
	}
	out[o] = '\0';
}

/* Rows of the query @x ("S." the store) in one store and not in the other, both ways. */
static double asym(sqlite3 *db, const char *x)
{
	char a[1024], b[1024], sql[4400];
	in_schema(a, sizeof(a), x, "main");
	in_schema(b, sizeof(b), x, "b");
	snprintf(sql, sizeof(sql),
		 "SELECT (SELECT count(*) FROM (SELECT * FROM (%s) EXCEPT SELECT * FROM (%s)))"
		 " + (SELECT count(*) FROM (SELECT * FROM (%s) EXCEPT SELECT * FROM (%s)))",
		 a, b, b, a);
	return num(db, sql);
}

/* What stays put under jitter: "S." is the store (main in one half, b in the other). */
static const char *const same[] = {
    "SELECT * FROM S.strings",
    "SELECT id, track_id, kind, name_id, category_id, correlation_id FROM S.events",
    "SELECT * FROM S.kernel_details",
    "SELECT * FROM S.copy_details",
    "SELECT * FROM S.set_details",
    "SELECT * FROM S.flows",
    "SELECT * FROM S.tracks",
    "SELECT * FROM S.devices",
    "SELECT * FROM S.step_details",
    "SELECT id, kind, device_id, process_id, address, bytes, op_event_id, bytes_in_use,"
    " bytes_reserved FROM S.memory_records",
    /* events per kind and name */
    "SELECT e.kind, s.str, count(*) FROM S.events e JOIN S.strings s ON s.id = e.name_id"
    " GROUP BY e.kind, s.str",
    /* kernels launched from inside each host step, by name (the steps materialized first:
     * flows has no index to start from the steps) */
    "WITH st AS MATERIALIZED (SELECT id, track_id, ts_ns, dur_ns FROM S.events WHERE kind = 11)"
    " SELECT st.id, k.name_id, count(*) FROM S.flows f JOIN S.events api"
    " ON api.id = f.src_event_id JOIN S.events k ON k.id = f.dst_event_id AND k.kind = 5"
    " CROSS JOIN st WHERE st.track_id = api.track_id AND api.ts_ns >= st.ts_ns"
    " AND api.ts_ns < st.ts_ns + st.dur_ns GROUP BY st.id, k.name_id",
};

/* The unjittered store of --events 30000 --seed 1 as the generator wrote it before --jitter
 * existed (figures printed by sqlite3 on a store of the build before the change). */
Test(synth_jitter, zero_is_the_unjittered_output)
{
	char *none = gen("none.db", NULL), *zero = gen("zero.db", "0");
	cr_expect_eq(tkt_store_digest(none), tkt_store_digest(zero));
	cr_expect_eq(tkt_query_int(zero, "SELECT count(*) FROM events"), 19924);
	cr_expect_eq(tkt_query_int(zero, "SELECT sum(dur_ns) FROM events"), 19722587794LL);
	cr_expect_eq(tkt_query_int(zero, "SELECT sum(ts_ns - 1767225600000000000) FROM events"),
		     47211136832165LL);
	cr_expect_eq(
	    tkt_query_int(zero, "SELECT sum(ts_ns - 1767225600000000000) FROM memory_records"),
	    11683083156119LL);
	cr_expect_eq(tkt_query_int(zero, "SELECT count(*) FROM meta WHERE key = 'synth.jitter'"),
		     0);
	free(none);
	free(zero);
}

/* Same workload, other timing: structure identical, durations moved by about 2 %. */
static void expect_same_workload(const char *a, const char *b)
{
	sqlite3 *db = open_pair(a, b);
	for (size_t i = 0; i < sizeof(same) / sizeof(same[0]); i++)
		cr_expect_eq(asym(db, same[i]), 0, "differs between %s and %s: %s", a, b, same[i]);
	cr_expect_eq(num(db, "SELECT count(*) FROM main.events"),
		     num(db, "SELECT count(*) FROM b.events"));
	/* nearly every device op's duration moved */
	double moved = num(db, "SELECT avg(x.dur_ns <> y.dur_ns) FROM main.events x JOIN b.events y"
			       " USING (id) WHERE x.kind IN (5, 6, 7)");
	cr_expect_gt(moved, 0.9, "%.3f of the device ops moved", moved);
	/*
	 * Per-kernel totals over many calls stay within 6 %. All-reduces are left out: their time
	 * includes the wait for the other rank, a difference of two ranks' progress whose relative
	 * noise is larger (as in real runs).
	 */
	double worst =
	    num(db, "SELECT max(abs(tb * 1.0 / ta - 1)) FROM (SELECT x.name_id, count(*) AS n,"
		    " sum(x.dur_ns) AS ta, sum(y.dur_ns) AS tb FROM main.events x JOIN b.events y"
		    " USING (id) JOIN main.strings s ON s.id = x.name_id WHERE x.kind = 5"
		    " AND s.str NOT LIKE 'ncclDevKernel%' GROUP BY x.name_id) WHERE n >= 50");
	cr_expect_lt(worst, 0.06, "a kernel's total moved by %.4f", worst);
	cr_expect_gt(worst, 0.0);
	sqlite3_stmt *st = NULL;
	cr_assert_eq(
	    sqlite3_prepare_v2(db,
			       "SELECT x.dur_ns, y.dur_ns FROM main.events x JOIN b.events y"
			       " USING (id) JOIN main.strings s ON s.id = x.name_id"
			       " WHERE x.kind IN (5, 6, 7) AND s.str NOT LIKE 'ncclDevKernel%'"
			       " AND x.dur_ns > 0",
			       -1, &st, NULL),
	    SQLITE_OK);
	double sum = 0, sum2 = 0;
	int64_t n = 0;
	while (sqlite3_step(st) == SQLITE_ROW) {
		double l = log(sqlite3_column_double(st, 1) / sqlite3_column_double(st, 0));
		sum += l;
		sum2 += l * l;
		n++;
	}
	sqlite3_finalize(st);
	cr_assert_gt(n, 1000);
	double mean = sum / n, sd = sqrt(sum2 / n - mean * mean);
	cr_expect(sd > 0.01 && sd < 0.03, "spread of the per-op ratios %.4f", sd);
	cr_expect_lt(fabs(mean), 0.005, "mean log ratio %.4f", mean);
	sqlite3_close(db);
}

Test(synth_jitter, same_workload_fresh_timing)
{
	char *none = gen("none.db", NULL), *j1 = gen("j1.db", "1"), *j2 = gen("j2.db", "2");
	char *j1b = gen("j1b.db", "1");
	cr_expect_eq(tkt_store_digest(j1), tkt_store_digest(j1b),
		     "same seed and jitter, same content");
	cr_expect_neq(tkt_store_digest(j1), tkt_store_digest(j2));
	cr_expect_eq(tkt_query_int(j2, "SELECT value FROM meta WHERE key = 'synth.jitter'"), 2);
	expect_same_workload(none, j1);
	expect_same_workload(none, j2);
	expect_same_workload(j1, j2);
	free(none);
	free(j1);
	free(j2);
	free(j1b);
}

/* Device ops that start before the previous one on their stream has ended. */
#define OVERLAPS                                                                                   \
	"SELECT count(*) FROM (SELECT e.ts_ns AS ts, lag(e.ts_ns + e.dur_ns) OVER (PARTITION BY"   \
	" e.track_id ORDER BY e.ts_ns, e.id) AS prev_end FROM events e JOIN tracks t"              \
	" ON t.id = e.track_id WHERE t.kind = 'stream' AND e.kind IN (5, 6, 7)) WHERE prev_end > " \
	"ts"

Test(synth_jitter, timeline_stays_consistent)
{
	char *none = gen("none.db", NULL), *j3 = gen("j3.db", "3");
	cr_expect_eq(tkt_query_int(none, OVERLAPS), 0);
	cr_expect_eq(tkt_query_int(j3, OVERLAPS), 0);
	/* steps of a rank stay in order and apart; device work starts after its launch */
	const char *bad_steps =
	    "SELECT count(*) FROM (SELECT e.ts_ns AS ts, d.step_num AS num, lag(e.ts_ns + e.dur_ns)"
	    " OVER (PARTITION BY e.track_id ORDER BY d.step_num) AS prev_end FROM events e"
	    " JOIN step_details d ON d.event_id = e.id) WHERE prev_end > ts";
	cr_expect_eq(tkt_query_int(j3, bad_steps), 0);
	cr_expect_eq(tkt_query_int(j3, "SELECT count(*) FROM flows f JOIN events a ON a.id ="
				       " f.src_event_id JOIN events d ON d.id = f.dst_event_id"
				       " WHERE d.ts_ns < a.ts_ns + 1000 OR a.correlation_id IS NOT"
				       " d.correlation_id"),
		     0);
	free(none);
	free(j3);
}

Test(synth_jitter, step_time_moves_less_than_3_percent)
{
	char *none = gen("none.db", NULL), *j4 = gen("j4.db", "4");
	const char *paths[] = {none, j4};
	for (int i = 0; i < 2; i++) {
		struct tkt_run r = tkt_tracekit("analyze", paths[i], NULL);
		cr_assert_eq(r.code, 0, "%s", r.err);
		tkt_run_free(&r);
	}
	sqlite3 *db = open_pair(none, j4);
	cr_expect_eq(num(db, "SELECT count(*) FROM main.analysis_step_stats"), 2);
	double worst =
	    num(db, "SELECT max(abs(y.mean_ns / x.mean_ns - 1)) FROM"
		    " main.analysis_step_stats x JOIN b.analysis_step_stats y USING (device_id)"
		    " WHERE x.steps = y.steps");
	cr_expect_lt(worst, 0.03, "mean device step time moved by %.4f", worst);
	cr_expect_gt(worst, 0.0);
	sqlite3_close(db);
	free(none);
	free(j4);
}

/*
 * A job's store analysed one source (rank) at a time (analyze/partition.c) gives the analysis
 * tables of one pass over every rank, row for row and in the same order: on a generated 4-rank
 * job on two hosts (launch flows, steps, collectives, a planted clock offset), with and without
 * --align-clocks and with several threads, on the two- and four-rank fixtures linked by
 * correlation ids, on HTA's two sampled ranks and on three XPlane hosts (full corpus). A store whose events or launch flows do not keep to their ranks is analysed
 * in one pass (the same tables again), and a broken event in a later rank fails as one pass
 * fails.
 */
#include <criterion/criterion.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tracekit/tracekit.h>

#include "tk_analyze_store.h"
#include "tk_test.h"

TestSuite(analyze_split, .init = tkt_analyze_setup, .fini = tkt_analyze_teardown, .timeout = 600);
TestSuite(full_corpus, .init = tkt_analyze_setup, .fini = tkt_analyze_teardown, .timeout = 600);

/* tk_analyze() on a copy of @from named @name; its status, message into @msg (len 1024). */
static int analyze_copy(const char *from, const char *name, int one_pass, int jobs, int align,
			char **copy, char *msg)
{
	struct tk_analyze_options o;
	tk_analyze_options_init(&o);
	o.one_pass = one_pass;
	o.jobs = jobs;
	o.align_clocks = align;
	*copy = tkt_copy(from, name);
	int rc = tk_analyze(*copy, &o, tkt_err());
	snprintf(msg, 1024, "%s", rc == TK_OK ? "" : tkt_errmsg());
	return rc;
}

/* The sources analysed one at a time (meta analysis_parts), 0 after one pass. */
static int64_t parts(const char *path)
{
	return tkt_query_int(path, "SELECT coalesce((SELECT CAST(value AS INTEGER) FROM meta "
				   "WHERE key = 'analysis_parts'), 0)");
}

/* Every analysis table of @a and @b holds the same rows in the same (rowid) order; the rows
 * of @a in all. */
static int64_t expect_same_analysis(const char *a, const char *b, const char *what)
{
	char *tables = tkt_rows(a, "SELECT name FROM sqlite_master WHERE type = 'table' AND name "
				   "GLOB 'analysis_*' ORDER BY name");
	int64_t rows = 0, n = 0;
	for (char *t = strtok(tables, "\n"); t; t = strtok(NULL, "\n"), n++) {
		char sql[160];
		snprintf(sql, sizeof(sql), "SELECT * FROM %s ORDER BY rowid", t);
		char *x = tkt_rows(a, sql), *y = tkt_rows(b, sql);
		cr_expect(strcmp(x, y) == 0, "%s: %s differs from one pass", what, t);
		snprintf(sql, sizeof(sql), "SELECT count(*) FROM %s", t);
		rows += tkt_query_int(a, sql);
		free(x);
		free(y);
	}
	free(tables);
	cr_assert_geq(n, 30, "only %lld analysis tables", (long long)n);
	return rows;
}

/*
 * The store @path analysed in one pass, then split with 1, 2 and 3 threads (with and without
 * --align-clocks): the same tables, @nparts sources one at a time; *@rows: the analysis rows.
 */
static void expect_split_same(const char *path, int64_t nparts, int64_t min_rows)
{
	static const int jobs[] = {1, 2, 3};
	for (int align = 0; align < 2; align++) {
		char *one, *split, msg[1024], name[64];
		snprintf(name, sizeof(name), "one%d.db", align);
		cr_assert_eq(analyze_copy(path, name, 1, 1, align, &one, msg), TK_OK, "%s", msg);
		cr_expect_eq(parts(one), 0, "one pass recorded parts");
		for (size_t j = 0; j < sizeof(jobs) / sizeof(jobs[0]); j++) {
			snprintf(name, sizeof(name), "split%d_%d.db", align, jobs[j]);
			cr_assert_eq(analyze_copy(path, name, 0, jobs[j], align, &split, msg),
				     TK_OK, "%s", msg);
			cr_expect_eq(parts(split), nparts, "jobs %d: %lld parts, want %lld",
				     jobs[j], (long long)parts(split), (long long)nparts);
			snprintf(name, sizeof(name), "jobs %d, align %d", jobs[j], align);
			int64_t rows = expect_same_analysis(split, one, name);
			cr_expect_geq(rows, min_rows, "%s: %lld analysis rows", name,
				      (long long)rows);
			/* the split store analysed again in one pass: the meta key goes */
			char *again;
			cr_assert_eq(analyze_copy(split, "again.db", 1, 1, align, &again, msg),
				     TK_OK, "%s", msg);
			cr_expect_eq(parts(again), 0);
			free(again);
			free(split);
		}
		free(one);
	}
}

/* A generated job of @ranks ranks of about @events events each on hosts of 2 ranks with a
 * planted clock offset, imported: its store path. */
static char *job_store(int ranks, int events)
{
	char *dir = tkt_path(tkt_dir, "ranks"), *db = tkt_path(tkt_dir, "job.db");
	char cmd[8400];
	snprintf(cmd, sizeof(cmd),
		 "'%s' '%s' %d %d --per-host 2 --offset-us 300 --slow-rank 1 --slow-pct 20 "
		 ">/dev/null",
		 TK_JOB_GEN, dir, ranks, events);
	cr_assert_eq(system(cmd), 0, "%s", cmd);
	tkt_ok(tkt_tracekit("import", dir, "-o", db, NULL));
	free(dir);
	return db;
}

Test(analyze_split, job_flows_steps_collectives)
{
	char *db = job_store(4, 20000);
	/* what the split must get right is there: launch flows, steps, collectives on 2 hosts */
	cr_assert_gt(tkt_query_int(db, "SELECT count(*) FROM flows WHERE kind = 'launch'"), 1000);
	cr_assert_eq(tkt_query_int(db, "SELECT count(*) FROM sources"), 4);
	expect_split_same(db, 4, 20000);
	char *one, msg[1024];
	cr_assert_eq(analyze_copy(db, "check.db", 0, 1, 1, &one, msg), TK_OK, "%s", msg);
	cr_expect_eq(tkt_query_int(one, "SELECT count(*) FROM analysis_comm_ranks"), 4);
	cr_expect_eq(tkt_query_int(one, "SELECT count(*) FROM analysis_clock_offsets WHERE "
					"offset_ns IS NOT NULL"),
		     2);
	cr_expect_eq(tkt_query_int(one, "SELECT rank FROM analysis_balance_slowest"), 1);
	/* kernel stats ranked across the ranks: 1..n by total time */
	cr_expect_eq(tkt_query_int(one, "SELECT count(*) FROM analysis_kernel_stats k JOIN "
					"analysis_kernel_stats n ON n.rank = k.rank + 1 WHERE "
					"n.total_ns > k.total_ns"),
		     0);
	cr_expect_eq(tkt_query_int(one, "SELECT count(DISTINCT device_id) FROM "
					"analysis_kernel_stats WHERE rank <= 4"),
		     4, "the first ranks are spread over the devices");
	free(one);
	free(db);
}

/* Two and four ranks whose launches are linked by correlation id (no flows). */
Test(analyze_split, fixtures_by_correlation)
{
	static const struct {
		const char *dir;
		const char *files[4];
		int64_t parts;
	} fx[] = {
	    {"merge/lag", {"rank0.json", "rank1.json"}, 2},
	    {"analyze/balance", {"rank0.json", "rank1.json", "rank2.json", "rank3.json"}, 4},
	};
	for (size_t i = 0; i < sizeof(fx) / sizeof(fx[0]); i++) {
		const char *args[8] = {"import"};
		char *paths[4] = {NULL};
		int n = 1;
		for (int k = 0; k < 4 && fx[i].files[k]; k++) {
			char d[256];
			snprintf(d, sizeof(d), "%s/tests/data/%s", TK_SOURCE_DIR, fx[i].dir);
			args[n++] = paths[k] = tkt_path(d, fx[i].files[k]);
		}
		char *db = tkt_path(tkt_dir, "fixture.db");
		args[n++] = "-o";
		args[n++] = db;
		tkt_ok(tkt_tracekitv(n, args));
		cr_assert_eq(tkt_query_int(db, "SELECT count(*) FROM flows"), 0);
		expect_split_same(db, fx[i].parts, 50);
		for (int k = 0; k < 4; k++)
			free(paths[k]);
		remove(db);
		free(db);
	}
}

/* Real ranks: HTA's two sampled ranks of one job and three unrelated traces (vendored), and
 * XPlane hosts of three runs (XLA ops and modules, HLO ops with cost stats, TPU and GPU
 * planes) taken as one job. */
Test(analyze_split, real_ranks)
{
	char *dir = tkt_real("kineto/HolisticTraceAnalysis/tests/data/trace_filter");
	char *db = tkt_path(tkt_dir, "hta.db");
	tkt_ok(tkt_tracekit("import", dir, "-o", db, NULL));
	expect_split_same(db, 2, 1000);
	free(dir);
	free(db);
	/* three unrelated traces as one job: memory records, a CPU-only rank, NCCL kernels */
	static const char *const rel[][2] = {
	    {"kineto/HolisticTraceAnalysis/tests/data/nccl_parser_config", "nccl_data.json.gz"},
	    {"kineto/HolisticTraceAnalysis/tests/data/cpu_only",
	     "rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz"},
	    {"kineto/kineto/tb_plugin/samples/resnet50_num_workers_0",
	     "worker0.1623143089861.pt.trace.json.gz"}};
	char *path[3];
	db = tkt_path(tkt_dir, "mixed.db");
	for (int i = 0; i < 3; i++) {
		char r[256];
		snprintf(r, sizeof(r), "%s/%s", rel[i][0], rel[i][1]);
		path[i] = tkt_real(r);
	}
	tkt_ok(tkt_tracekit("import", path[0], path[1], path[2], "-o", db, NULL));
	cr_assert_gt(tkt_query_int(db, "SELECT count(*) FROM memory_records"), 1000);
	expect_split_same(db, 3, 1000);
	for (int i = 0; i < 3; i++)
		free(path[i]);
	free(db);
}

Test(full_corpus, xplane_hosts_as_ranks)
{
	static const char *const rel[] = {
	    "xplane/logdir/plugins/profile/jax08_mi300x_gemm/tw003.xplane.pb",
	    "xplane/logdir/plugins/profile/xprof_tpu_v6e_inference/tpu_inference_2.xplane.pb",
	    "xplane/logdir/plugins/profile/tf24_gpu_v100_multiworker/34.83.195.179_6003.xplane.pb"};
	char *path[3], *db = tkt_path(tkt_dir, "xplane.db");
	for (int i = 0; i < 3; i++)
		path[i] = tkt_real(rel[i]);
	tkt_ok(tkt_tracekit("import", path[0], path[1], path[2], "-o", db, NULL));
	expect_split_same(db, 3, 1000);
	for (int i = 0; i < 3; i++)
		free(path[i]);
	free(db);
}

/* A store changed by @sql after the import: split analysis falls back to one pass (no parts
 * recorded) and gives one pass's tables. */
static void expect_fallback(const char *db, const char *name, const char *sql)
{
	char *changed = tkt_copy(db, name), *one, *split, msg[1024];
	tkt_store_exec(changed, sql);
	cr_assert_eq(analyze_copy(changed, "fb_one.db", 1, 1, 0, &one, msg), TK_OK, "%s", msg);
	cr_assert_eq(analyze_copy(changed, "fb_split.db", 0, 2, 0, &split, msg), TK_OK, "%s", msg);
	cr_expect_eq(parts(split), 0, "%s: split although %s", name, sql);
	expect_same_analysis(split, one, name);
	free(changed);
	free(one);
	free(split);
}

Test(analyze_split, falls_back_when_ranks_mix)
{
	char *db = job_store(3, 6000);
	/* a host op of rank 0 moved onto a thread of rank 1 */
	expect_fallback(
	    db, "event.db",
	    "UPDATE events SET track_id = (SELECT min(id) FROM tracks WHERE process_id = "
	    "2 AND device_id IS NULL) WHERE id = (SELECT max(e.id) FROM events e JOIN "
	    "tracks t ON t.id = e.track_id WHERE t.process_id = 1 AND t.device_id IS "
	    "NULL)");
	/* a launch flow of rank 0 that ends at a kernel of rank 1 */
	expect_fallback(
	    db, "flow.db",
	    "UPDATE flows SET dst_event_id = (SELECT min(e.id) FROM events e JOIN tracks "
	    "t ON t.id = e.track_id WHERE t.process_id = 2 AND t.device_id IS NOT NULL) "
	    "WHERE id = (SELECT min(id) FROM flows WHERE kind = 'launch')");
	/* rank 2's process said to be of rank 0's source: a source's processes apart */
	expect_fallback(db, "source.db", "UPDATE processes SET source_id = 1 WHERE id = 3");
	/* a device of rank 2 driven by rank 0's process: the ids no longer go rank by rank */
	expect_fallback(
	    db, "device.db",
	    "UPDATE devices SET process_id = 1 WHERE id = (SELECT max(id) FROM devices)");
	free(db);
}

/* A write-ahead log beside the store: its pages are not read directly, so one pass through SQL
 * (SQLite finds no valid log header in the stray file and reads the store as it is). */
Test(analyze_split, falls_back_beside_a_log)
{
	char *db = job_store(3, 6000), *one, msg[1024];
	cr_assert_eq(analyze_copy(db, "log_one.db", 1, 1, 0, &one, msg), TK_OK, "%s", msg);
	char *copy = tkt_copy(db, "log_split.db"), wal[4200];
	snprintf(wal, sizeof(wal), "%s-wal", copy);
	tkt_spit(wal, "not a log", 9);
	struct tk_analyze_options o;
	tk_analyze_options_init(&o);
	o.jobs = 2;
	cr_assert_eq(tk_analyze(copy, &o, tkt_err()), TK_OK, "%s", tkt_errmsg());
	remove(wal);
	cr_expect_eq(parts(copy), 0, "split beside a log");
	expect_same_analysis(copy, one, "beside a log");
	free(copy);
	free(one);
	free(db);
}

Test(analyze_split, broken_event_in_a_later_rank)
{
	char *db = job_store(3, 6000), *one, *split, msg1[1024], msg2[1024];
	int64_t id = tkt_query_int(db, "SELECT max(id) FROM events");
	char sql[160];
	snprintf(sql, sizeof(sql), "UPDATE events SET ts_ns = 'late' WHERE id = %lld",
		 (long long)id);
	tkt_store_exec(db, sql);
	cr_assert_eq(analyze_copy(db, "bad_one.db", 1, 1, 0, &one, msg1), TK_EFORMAT);
	cr_assert_eq(analyze_copy(db, "bad_split.db", 0, 1, 0, &split, msg2), TK_EFORMAT);
	char want[96];
	snprintf(want, sizeof(want), "table events, row id %lld: ts_ns is not an integer",
		 (long long)id);
	cr_expect(strstr(msg1, want), "one pass: %s", msg1);
	cr_expect(strstr(msg2, want), "split: %s", msg2);
	cr_expect(strstr(msg2, "reading the events of"), "split: %s", msg2);
	/* nothing written: the store is as it was */
	cr_expect_eq(tkt_store_digest(split), tkt_store_digest(db));
	free(one);
	free(split);
	free(db);
}

/*
 * `analyze --jobs N` (analyze/event_jobs.c): the events read by N threads give the same store,
 * analysis tables included, row for row, as one thread: on a synthetic 4-rank store of several
 * id ranges, on the 4-rank comm fixture, and on a store whose event ids are sparse (ranges of
 * very different sizes). A reader's failure (a bad row in a late range) gives the same status
 * and message as one thread, and leaves the store as it was; so does a failure of an analysis
 * on a worker (analysis_jobs.c: memory). The pass reads the rows straight from the file's pages
 * (event_pass.c, tscan.h), or through SQL on the readers when a log beside the store makes it
 * decline: the same tables and the same failures. The per-item work of the analyses after the
 * pass (device_jobs.c: queue length per device, GPU time per op per host thread) writes the same
 * rows in the same order with 1 to 4 threads, and an item's failure is the one one thread
 * reports.
 * No timing is asserted.
 */
#include <criterion/criterion.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tracekit/tracekit.h>

#include "analyze/analyze_internal.h"

#include "tk_analyze_store.h"

TestSuite(analyze_jobs, .init = tkt_analyze_setup, .fini = tkt_analyze_teardown, .timeout = 600);

#define FIX TK_SOURCE_DIR "/tests/data/analyze/comm/"

/* tk_analyze() on @path with @jobs threads; its status, and its message into @msg. */
static int analyze_jobs(const char *path, int jobs, char *msg, size_t len)
{
	struct tk_analyze_options o;
	tk_analyze_options_init(&o);
	o.jobs = jobs;
	int rc = tk_analyze(path, &o, tkt_err());
	snprintf(msg, len, "%s", rc == TK_OK ? "" : tkt_errmsg());
	return rc;
}

/*
 * As analyze_jobs(), with the events read through SQL (by reader threads when @jobs > 1): a
 * write-ahead log beside the store makes the pass decline to read the file's pages directly
 * (tscan.h); SQLite finds no valid log header in it, reads the store as it is and removes it.
 */
static int analyze_jobs_sql(const char *path, int jobs, char *msg, size_t len)
{
	char wal[4200];
	snprintf(wal, sizeof(wal), "%s-wal", path);
	tkt_spit(wal, "not a log", 9);
	int rc = analyze_jobs(path, jobs, msg, len);
	remove(wal);
	return rc;
}

/*
 * Analyse copies of @path with 1, 2, 3 and 4 threads (3: ranges not a multiple of the readers),
 * the events read from the file's pages and through SQL, each twice (the second run replaces
 * the first one's tables), and expect the same store digest, analysis tables included;
 * @min_rows: rows the analysis tables must hold in all (so the comparison is not of empty
 * tables).
 */
static void expect_same_tables(const char *path, int64_t min_rows)
{
	/* jobs 0: the cores, which reads a store this small on the calling thread */
	static const struct {
		int jobs, sql;
	} runs[] = {{1, 0}, {2, 0}, {0, 0}, {1, 1}, {2, 1}, {3, 1}, {4, 1}, {0, 1}};
	uint64_t first = 0;
	for (size_t i = 0; i < sizeof(runs) / sizeof(runs[0]); i++) {
		char name[32], msg[1024];
		int jobs = runs[i].jobs;
		int (*run)(const char *, int, char *, size_t) =
		    runs[i].sql ? analyze_jobs_sql : analyze_jobs;
		snprintf(name, sizeof(name), "jobs%d%s.db", jobs, runs[i].sql ? "sql" : "");
		char *copy = tkt_copy(path, name);
		cr_assert_eq(run(copy, jobs, msg, sizeof(msg)), TK_OK, "jobs %d: %s", jobs, msg);
		uint64_t d = tkt_store_digest(copy);
		if (i == 0) {
			first = d;
			char *rows = tkt_rows(copy, "SELECT name FROM sqlite_master WHERE type = "
						    "'table' AND name GLOB 'analysis_*'");
			int64_t total = 0;
			for (char *t = strtok(rows, "\n"); t; t = strtok(NULL, "\n")) {
				char sql[160];
				snprintf(sql, sizeof(sql), "SELECT count(*) FROM %s", t);
				total += tkt_query_int(copy, sql);
			}
			free(rows);
			cr_assert_geq(total, min_rows, "only %lld analysis rows", (long long)total);
		}
		cr_expect_eq(d, first, "--jobs %d (sql %d) gives another store than --jobs 1", jobs,
			     runs[i].sql);
		/* again on the analysed store: its old tables are dropped in the transaction the
		 * readers read beside */
		cr_assert_eq(run(copy, jobs, msg, sizeof(msg)), TK_OK, "jobs %d, again: %s", jobs,
			     msg);
		cr_expect_eq(tkt_store_digest(copy), first, "--jobs %d (sql %d) again", jobs,
			     runs[i].sql);
		free(copy);
	}
}

/* A synthetic store of @devices ranks and about @events records, at @name. */
static char *synth_store(const char *name, const char *devices, const char *events)
{
	char *path = tkt_path(tkt_dir, name);
	struct tkt_run r =
	    tkt_tracekit("synth", "-o", path, "--events", events, "--devices", devices, NULL);
	tkt_ok(r);
	return path;
}

/* 500000 records: the events' ids span several ranges of 65536, spread over the readers; 4
 * devices and 8 host threads, the items of the per-device and per-thread analyses. */
Test(analyze_jobs, synthetic_four_ranks_same_tables)
{
	char *path = synth_store("synth.db", "4", "500000");
	cr_assert_gt(tkt_query_int(path, "SELECT max(id) FROM events"), 4 * 65536);
	cr_assert_eq(tkt_query_int(path, "SELECT count(*) FROM devices"), 4);
	cr_assert_eq(tkt_query_int(path, "SELECT count(*) FROM tracks WHERE kind = 'thread'"), 8);
	expect_same_tables(path, 1000);
	/* the memory analysis (a worker's with jobs > 1) wrote rows, compared above */
	char *last = tkt_path(tkt_dir, "jobs0.db");
	cr_assert_gt(tkt_query_int(last, "SELECT (SELECT count(*) FROM analysis_memory) * "
					 "(SELECT count(*) FROM analysis_memory_timeline) * "
					 "(SELECT count(*) FROM analysis_memory_live_at_peak)"),
		     0);
	/* and the per-item analyses (device_jobs.c) wrote rows for every device, compared above */
	cr_assert_eq(tkt_query_int(last, "SELECT count(DISTINCT device_id) FROM "
					 "analysis_queue_timeline"),
		     4);
	cr_assert_gt(tkt_query_int(last, "SELECT count(*) FROM analysis_op_gpu_time"), 10);
	cr_assert_gt(tkt_query_int(last, "SELECT count(*) FROM analysis_op_gpu_steps"), 10);
	free(last);
	free(path);
}

Test(analyze_jobs, comm_fixture_same_tables)
{
	char p[4][512];
	for (int r = 0; r < 4; r++)
		snprintf(p[r], sizeof(p[r]), FIX "rank%d.json", r);
	struct tkt_run run = tkt_tracekit("import", p[0], p[1], p[2], p[3], "-o", tkt_db, NULL);
	tkt_ok(run);
	expect_same_tables(tkt_db, 10);
}

/*
 * Ids far apart (the second half moved up by 2^50, past what 4096 ranges of 65536 cover): the
 * ranges widen to at most 4096 of them, most empty, one holding the moved events; the events
 * come out in the same order. The kernels' details move with their events.
 */
Test(analyze_jobs, sparse_ids_same_tables)
{
	char *path = synth_store("sparse.db", "2", "100000");
	tkt_store_exec(path, "UPDATE kernel_details SET event_id = event_id + (1 << 50) "
			     "WHERE event_id > 50000;"
			     "UPDATE op_details SET event_id = event_id + (1 << 50) "
			     "WHERE event_id > 50000;"
			     "UPDATE flows SET src_event_id = src_event_id + (1 << 50) "
			     "WHERE src_event_id > 50000;"
			     "UPDATE flows SET dst_event_id = dst_event_id + (1 << 50) "
			     "WHERE dst_event_id > 50000;"
			     "UPDATE events SET id = id + (1 << 50) WHERE id > 50000;");
	expect_same_tables(path, 1000);
	free(path);
}

/*
 * A bad row in the last range (its ts_ns text): every number of threads fails with exit 2's
 * status and the message one thread gives, naming the row; the store is left as it was (its
 * digest), with no analysis tables.
 */
Test(analyze_jobs, reader_failure_same_message_store_unchanged)
{
	char *path = synth_store("bad.db", "4", "300000");
	int64_t max = tkt_query_int(path, "SELECT max(id) FROM events");
	char sql[128], want[1024] = "";
	snprintf(sql, sizeof(sql), "UPDATE events SET ts_ns = 'x' WHERE id = %lld",
		 (long long)(max - 10));
	tkt_store_exec(path, sql);
	uint64_t before = tkt_store_digest(path);
	for (int jobs = 1; jobs <= 4; jobs++) {
		char msg[1024];
		cr_assert_eq(
		    (jobs > 1 ? analyze_jobs_sql : analyze_jobs)(path, jobs, msg, sizeof(msg)),
		    TK_EFORMAT, "jobs %d: %s", jobs, msg);
		cr_assert(strstr(msg, "table events, row id"), "jobs %d: %s", jobs, msg);
		if (jobs == 1)
			snprintf(want, sizeof(want), "%s", msg);
		cr_expect_str_eq(msg, want, "jobs %d", jobs);
		cr_expect_eq(tkt_store_digest(path), before, "jobs %d changed the store", jobs);
	}
	struct tkt_run r = tkt_tracekit("analyze", "--jobs", "2", path, NULL);
	cr_expect_eq(r.code, 2, "%s", r.err);
	cr_expect(strstr(r.err, want), "%s", r.err);
	tkt_run_free(&r);
	cr_expect_eq(tkt_query_int(path, "SELECT count(*) FROM sqlite_master WHERE name GLOB "
					 "'analysis_*'"),
		     0);
	free(path);
}

/* A hook's failure while the readers are ahead (the duration sum past 2^63 on an early row):
 * the readers are stopped and joined (no leak under ASan), same message as one thread. */
Test(analyze_jobs, pass_failure_stops_the_readers)
{
	char *path = synth_store("sum.db", "2", "300000");
	tkt_store_exec(path, "UPDATE events SET dur_ns = 2305843009213693952, ts_ns = 0 "
			     "WHERE id BETWEEN 100 AND 103"); /* 2^61 each: past 2^63 at 103 */
	char want[1024], msg[1024];
	cr_assert_eq(analyze_jobs(path, 1, want, sizeof(want)), TK_EFORMAT, "%s", want);
	cr_assert(strstr(want, "row id 103: dur_ns: the events' durations add up"), "%s", want);
	for (int jobs = 2; jobs <= 4; jobs++) {
		cr_assert_eq(analyze_jobs_sql(path, jobs, msg, sizeof(msg)), TK_EFORMAT, "%s", msg);
		cr_expect_str_eq(msg, want, "jobs %d", jobs);
	}
	free(path);
}

/*
 * A bad row that only the memory analysis reads (analysis_jobs.c: a worker's with jobs > 1, from
 * the start of the pass): the same status and message as one thread, at the memory analysis's
 * place, and the store left as it was, with no analysis tables; the worker's read lock released
 * (a lock left would hang the rollback, the suite's timeout).
 */
Test(analyze_jobs, worker_failure_same_message_store_unchanged)
{
	char *path = synth_store("mem.db", "4", "300000");
	tkt_store_exec(path, "UPDATE memory_records SET bytes = 'x' WHERE id = "
			     "(SELECT max(id) FROM memory_records)");
	uint64_t before = tkt_store_digest(path);
	char want[1024] = "";
	for (int jobs = 1; jobs <= 4; jobs++) {
		char msg[1024];
		cr_assert_eq(analyze_jobs(path, jobs, msg, sizeof(msg)), TK_EFORMAT, "jobs %d: %s",
			     jobs, msg);
		cr_assert(strstr(msg, "memory analysis of"), "jobs %d: %s", jobs, msg);
		cr_assert(strstr(msg, "table memory_records, row id"), "jobs %d: %s", jobs, msg);
		if (jobs == 1)
			snprintf(want, sizeof(want), "%s", msg);
		cr_expect_str_eq(msg, want, "jobs %d", jobs);
		cr_expect_eq(tkt_store_digest(path), before, "jobs %d changed the store", jobs);
	}
	cr_expect_eq(tkt_query_int(path, "SELECT count(*) FROM sqlite_master WHERE name GLOB "
					 "'analysis_*'"),
		     0);
	free(path);
}

/* Text in a details column (the store's rules say a number or NULL): the pass reads the rows from
 * the file's pages on one thread (tscan.h) and through SQL on the readers; both fail with exit
 * 2's status and the same message, naming the table, row and column. */
Test(analyze_jobs, text_in_details_same_message)
{
	static const char *const cases[][2] = {
	    {"UPDATE kernel_details SET grid_y = 'x' WHERE event_id = (SELECT max(event_id) FROM "
	     "kernel_details)",
	     "table kernel_details, row id %lld: grid_y is not a number"},
	    {"INSERT INTO op_details (event_id, hlo_module_id) VALUES ((SELECT max(id) FROM "
	     "events), x'00')",
	     "table op_details, row id %lld: hlo_module_id is not a number"},
	};
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		char *path = synth_store(k ? "bad_od.db" : "bad_kd.db", "2", "300000");
		const char *table = k ? "op_details" : "kernel_details";
		char sql[128], want[256], msg[1024];
		tkt_store_exec(path, cases[k][0]);
		snprintf(sql, sizeof(sql), "SELECT max(event_id) FROM %s", table);
		int64_t id = tkt_query_int(path, sql);
		cr_assert_gt(id, 0, "no %s", table);
		snprintf(want, sizeof(want), cases[k][1], (long long)id);
		for (int jobs = 1; jobs <= 3; jobs++) {
			cr_assert_eq((jobs > 1 ? analyze_jobs_sql : analyze_jobs)(path, jobs, msg,
										  sizeof(msg)),
				     TK_EFORMAT, "%s, jobs %d: %s", table, jobs, msg);
			cr_expect(strstr(msg, want), "%s, jobs %d: %s", table, jobs, msg);
		}
		free(path);
	}
}

/* ---- tka_each() alone (device_jobs.c) ---- */

#define EACH_ITEMS 9

/* Item i writes 3 (i + 1) rows of every type into t, each followed by a row of u; item @fail
 * (when < EACH_ITEMS) fails after its second row, as a hostile store value would. */
struct each_arg {
	size_t fail;
};

static int each_item(struct tka_ctx *c, const void *arg, size_t i, struct tka_rows *r)
{
	const struct each_arg *a = arg;
	char text[64];
	for (size_t k = 0; k < 3 * (i + 1); k++) {
		if (i == a->fail && k == 2)
			return tka_fail(c, TK_EFORMAT, "item %zu: a value out of range", i);
		snprintf(text, sizeof(text), "item %zu row %zu", i, k);
		tka_row_begin(r, 0);
		tka_row_int(r, (int64_t)i);
		tka_row_int(r, (int64_t)k);
		tka_row_double(r, (double)k / 7.0);
		tka_row_text(r, text);
		if (k % 2)
			tka_row_null(r);
		else
			tka_row_int(r, (int64_t)(i * 1000 + k));
		int rc = tka_row_end(r);
		if (rc != TK_OK)
			return rc;
		tka_row_begin(r, 1);
		tka_row_int(r, (int64_t)(i * 100 + k));
		if ((rc = tka_row_end(r)) != TK_OK)
			return rc;
	}
	return TK_OK;
}

/* tka_each() of EACH_ITEMS items on @jobs threads into a new store @name: its status, message
 * into @msg, and the rows of both tables in rowid order (malloc). */
static int each_run(const char *name, int jobs, size_t fail, char *msg, size_t len, char **rows)
{
	char *path = tkt_path(tkt_dir, name);
	sqlite3 *db = NULL;
	cr_assert_eq(sqlite3_open(path, &db), SQLITE_OK);
	cr_assert_eq(sqlite3_exec(db,
				  "CREATE TABLE t (item, k, x, txt, v); CREATE TABLE u (x); BEGIN",
				  NULL, NULL, NULL),
		     SQLITE_OK);
	struct tka_ctx c = {.db = db, .jobs = jobs, .err = msg, .errlen = len};
	struct tka_writer w = {{NULL, NULL}, {"writing t", "writing u"}};
	cr_assert_eq(tka_prepare(&c, "INSERT INTO t VALUES (?1, ?2, ?3, ?4, ?5)", &w.st[0]), TK_OK);
	cr_assert_eq(tka_prepare(&c, "INSERT INTO u VALUES (?1)", &w.st[1]), TK_OK);
	struct each_arg a = {fail};
	msg[0] = '\0';
	int rc = tka_each(&c, EACH_ITEMS, &w, each_item, &a);
	sqlite3_finalize(w.st[0]);
	sqlite3_finalize(w.st[1]);
	cr_assert_eq(sqlite3_exec(db, "COMMIT", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
	*rows = tkt_rows(path, "SELECT 't', item, k, x, txt, v FROM t UNION ALL "
			       "SELECT 'u', rowid, x, NULL, NULL, NULL FROM u");
	free(path);
	return rc;
}

/* The same rows in the same order (both tables' rowids) on 1 to 4 threads. */
Test(analyze_jobs, each_same_rows_in_item_order)
{
	char msg[256], name[32], *want = NULL;
	for (int jobs = 1; jobs <= 4; jobs++) {
		char *rows;
		snprintf(name, sizeof(name), "each%d.db", jobs);
		cr_assert_eq(each_run(name, jobs, EACH_ITEMS, msg, sizeof(msg), &rows), TK_OK,
			     "jobs %d: %s", jobs, msg);
		if (!want)
			want = rows;
		cr_expect_str_eq(rows, want, "jobs %d", jobs);
		if (rows != want)
			free(rows);
	}
	cr_assert(strstr(want, "item 8 row 26"), "%s", want);
	free(want);
}

/* Item 4 fails: on every number of threads the status and message of one thread, and the
 * rows one thread wrote before it (items 0 to 3, item 4's first two). */
Test(analyze_jobs, each_failure_as_one_thread)
{
	char msg[256], want_msg[256], name[32], *want = NULL;
	for (int jobs = 1; jobs <= 4; jobs++) {
		char *rows;
		snprintf(name, sizeof(name), "eachf%d.db", jobs);
		cr_assert_eq(each_run(name, jobs, 4, msg, sizeof(msg), &rows), TK_EFORMAT,
			     "jobs %d: %s", jobs, msg);
		if (!want) {
			want = rows;
			snprintf(want_msg, sizeof(want_msg), "%s", msg);
		}
		cr_expect_str_eq(msg, want_msg, "jobs %d", jobs);
		cr_expect_str_eq(rows, want, "jobs %d", jobs);
		if (rows != want)
			free(rows);
	}
	cr_expect_str_eq(want_msg, "item 4: a value out of range");
	cr_assert(strstr(want, "item 4 row 1") && !strstr(want, "item 4 row 2") &&
		      !strstr(want, "item 5"),
		  "%s", want);
	free(want);
}

/* A damaged page of the events table (garbage over the cells at the end of its root page): the read from
 * the file's pages and the SQL readers both stop with exit 2's status, naming the events. */
Test(analyze_jobs, damaged_events_page_is_bad_input)
{
	char *path = synth_store("damaged.db", "2", "200000");
	int64_t root = tkt_query_int(path, "SELECT rootpage FROM sqlite_master WHERE name = "
					   "'events'"),
		size = tkt_query_int(path, "PRAGMA page_size");
	cr_assert_gt(root, 1);
	FILE *f = fopen(path, "r+b");
	cr_assert_not_null(f);
	unsigned char junk[64];
	memset(junk, 0xff, sizeof(junk));
	cr_assert_eq(fseek(f, (long)(root * size - (int64_t)sizeof(junk)), SEEK_SET), 0);
	cr_assert_eq(fwrite(junk, 1, sizeof(junk), f), sizeof(junk));
	fclose(f);
	for (int jobs = 1; jobs <= 2; jobs++) {
		char msg[1024];
		cr_expect_eq(analyze_jobs(path, jobs, msg, sizeof(msg)), TK_EFORMAT, "jobs %d: %s",
			     jobs, msg);
		cr_expect(strstr(msg, "reading the events of"), "jobs %d: %s", jobs, msg);
		cr_expect_eq(analyze_jobs_sql(path, jobs, msg, sizeof(msg)), TK_EFORMAT,
			     "sql, jobs %d: %s", jobs, msg);
		cr_expect(strstr(msg, "events"), "sql, jobs %d: %s", jobs, msg);
	}
	free(path);
}

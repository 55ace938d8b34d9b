/*
 * Tests of the direct table scan (store/tscan.c): on tables SQLite itself wrote (small pages so
 * the trees are deep, records that spill into overflow chains, every integer size, reals, NULLs,
 * a column added after rows existed, rows deleted so pages have free blocks) every row and value
 * equals what SQL returns; a WAL file makes it decline; damaged files give an error, never a
 * crash; a writer-built synth store scans to the same rows as SQL.
 */
#include <criterion/criterion.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tracekit/error.h>

#include "tk_test.h"
#include "tscan.h"

TKT_TMPDIR_FIXTURE;

TestSuite(tscan, .init = setup, .fini = teardown);

static void exec(sqlite3 *db, const char *sql)
{
	char *e = NULL;
	cr_assert_eq(sqlite3_exec(db, sql, NULL, NULL, &e), SQLITE_OK, "%s: %s", sql, e ? e : "");
}

/* A table with every kind of value, built by SQLite with 512-byte pages. */
static char *make_db(int nrows)
{
	char *path = tkt_path(dir, "t.db");
	sqlite3 *db;
	cr_assert_eq(sqlite3_open(path, &db), SQLITE_OK);
	exec(db, "PRAGMA page_size = 512; PRAGMA journal_mode = DELETE;"
		 "CREATE TABLE t (id INTEGER PRIMARY KEY, a INTEGER, b REAL, c TEXT, d BLOB);"
		 "BEGIN");
	sqlite3_stmt *st;
	cr_assert_eq(
	    sqlite3_prepare_v2(db, "INSERT INTO t VALUES (?1, ?2, ?3, ?4, ?5)", -1, &st, NULL),
	    SQLITE_OK);
	static const int64_t ints[] = {0,
				       1,
				       -1,
				       127,
				       -128,
				       32767,
				       -32768,
				       8388607,
				       -8388608,
				       2147483647,
				       -2147483648LL,
				       140737488355327LL,
				       -140737488355328LL,
				       INT64_MAX,
				       INT64_MIN};
	char text[3000];
	for (int i = 1; i <= nrows; i++) {
		sqlite3_bind_int64(st, 1, (int64_t)i * 3); /* rowids with gaps */
		if (i % 7 == 0)
			sqlite3_bind_null(st, 2);
		else
			sqlite3_bind_int64(st, 2, ints[i % 15] + (i % 15 > 12 ? 0 : i));
		if (i % 5 == 0)
			sqlite3_bind_null(st, 3);
		else
			sqlite3_bind_double(st, 3, i * 0.25 - 100.5);
		size_t len = (size_t)(i % 97 == 0 ? 2500 : i % 13); /* some spill over pages */
		for (size_t k = 0; k < len; k++)
			text[k] = (char)('a' + (k + (size_t)i) % 26);
		sqlite3_bind_text(st, 4, text, (int)len, SQLITE_TRANSIENT);
		if (i % 3)
			sqlite3_bind_blob(st, 5, text, (int)(len / 2), SQLITE_TRANSIENT);
		else
			sqlite3_bind_null(st, 5);
		cr_assert_eq(sqlite3_step(st), SQLITE_DONE);
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
	exec(db, "COMMIT; DELETE FROM t WHERE id % 11 = 0;" /* free blocks, merged pages */
		 "ALTER TABLE t ADD COLUMN e INTEGER DEFAULT NULL;"
		 "UPDATE t SET e = id * 2 WHERE id % 4 = 0;");
	sqlite3_close(db);
	return path;
}

/* Scan @path's table t and compare every row with SQL. */
static void compare(const char *path, int64_t want_rows)
{
	sqlite3 *db;
	cr_assert_eq(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	static const char *const cols[] = {"id", "a", "b", "c", "d", "e", NULL};
	struct tks_tscan *ts;
	char err[256] = "";
	cr_assert_eq(tks_tscan_open(&ts, db, path, "t", cols, err, sizeof(err)), TK_OK, "%s", err);
	sqlite3_stmt *st;
	cr_assert_eq(
	    sqlite3_prepare_v2(db, "SELECT id, a, b, c, d, e FROM t ORDER BY id", -1, &st, NULL),
	    SQLITE_OK);
	int64_t rows = 0;
	int r;
	while ((r = tks_tscan_next(ts)) == 1) {
		cr_assert_eq(sqlite3_step(st), SQLITE_ROW, "scan has more rows than SQL");
		rows++;
		cr_assert_eq(tks_tscan_rowid(ts), sqlite3_column_int64(st, 0));
		cr_assert_eq(tks_tscan_int(ts, 0), sqlite3_column_int64(st, 0));
		for (int c = 1; c < 6; c++) {
			int t = sqlite3_column_type(st, c);
			enum tks_tscan_type want = t == SQLITE_NULL	 ? TK_TS_NULL
						   : t == SQLITE_INTEGER ? TK_TS_INT
						   : t == SQLITE_FLOAT	 ? TK_TS_REAL
						   : t == SQLITE_TEXT	 ? TK_TS_TEXT
									 : TK_TS_BLOB;
			cr_assert_eq(tks_tscan_type(ts, c), want, "row %lld column %d",
				     (long long)rows, c);
			if (want == TK_TS_INT)
				cr_assert_eq(tks_tscan_int(ts, c), sqlite3_column_int64(st, c));
			if (want == TK_TS_REAL)
				cr_assert(tks_tscan_real(ts, c) == sqlite3_column_double(st, c));
			if (want == TK_TS_TEXT || want == TK_TS_BLOB) {
				size_t len;
				const char *p = tks_tscan_text(ts, c, &len);
				cr_assert_eq(len, (size_t)sqlite3_column_bytes(st, c));
				cr_assert(len == 0 || !memcmp(p, sqlite3_column_blob(st, c), len));
			}
		}
	}
	cr_assert_eq(r, 0, "%s", err);
	cr_assert_eq(sqlite3_step(st), SQLITE_DONE, "SQL has more rows than the scan");
	cr_assert_eq(rows, want_rows);
	sqlite3_finalize(st);
	tks_tscan_close(ts);
	sqlite3_close(db);
}

Test(tscan, every_value_equals_sql_on_a_deep_tree_with_overflow)
{
	char *path = make_db(20000);
	int64_t n = tkt_query_int(path, "SELECT count(*) FROM t");
	cr_assert_gt(n, 18000);
	cr_assert_gt(tkt_query_int(path, "SELECT max(length(path)) FROM dbstat WHERE name = 't'"),
		     7, "expected interior levels");
	cr_assert_gt(tkt_query_int(path, "SELECT count(*) FROM dbstat WHERE name = 't' AND "
					 "pagetype = 'overflow'"),
		     100);
	compare(path, n);
	free(path);
}

Test(tscan, empty_table_and_unknown_names)
{
	char *path = tkt_path(dir, "e.db");
	sqlite3 *db;
	cr_assert_eq(sqlite3_open(path, &db), SQLITE_OK);
	exec(db, "CREATE TABLE t (id INTEGER PRIMARY KEY, a INTEGER)");
	static const char *const cols[] = {"a", NULL}, *const bad[] = {"nope", NULL};
	struct tks_tscan *ts;
	char err[256];
	cr_assert_eq(tks_tscan_open(&ts, db, path, "t", cols, err, sizeof(err)), TK_OK, "%s", err);
	cr_expect_eq(tks_tscan_next(ts), 0);
	tks_tscan_close(ts);
	cr_expect_eq(tks_tscan_open(&ts, db, path, "t", bad, err, sizeof(err)), TK_EINVAL);
	cr_expect(strstr(err, "nope") != NULL, "%s", err);
	cr_expect_eq(tks_tscan_open(&ts, db, path, "missing", cols, err, sizeof(err)), TK_EINVAL);
	tks_tscan_close(NULL);
	sqlite3_close(db);
	free(path);
}

Test(tscan, declines_when_a_write_ahead_log_is_there)
{
	char *path = tkt_path(dir, "w.db");
	sqlite3 *db;
	cr_assert_eq(sqlite3_open(path, &db), SQLITE_OK);
	exec(db, "PRAGMA journal_mode = WAL; CREATE TABLE t (id INTEGER PRIMARY KEY, a INTEGER);"
		 "INSERT INTO t VALUES (1, 2)");
	static const char *const cols[] = {"a", NULL};
	struct tks_tscan *ts = NULL;
	char err[256];
	cr_expect_eq(tks_tscan_open(&ts, db, path, "t", cols, err, sizeof(err)), 1);
	cr_expect_null(ts);
	sqlite3_close(db);
	free(path);
}

/* Damage byte ranges of a copy of the file; the scan ends with 0 or -1, never a crash. */
Test(tscan, damaged_pages_give_an_error_not_a_crash)
{
	char *path = make_db(3000);
	char *copy = tkt_path(dir, "bad.db");
	FILE *f = fopen(path, "rb");
	cr_assert_not_null(f);
	fseek(f, 0, SEEK_END);
	long size = ftell(f);
	unsigned char *data = malloc((size_t)size);
	fseek(f, 0, SEEK_SET);
	cr_assert_eq(fread(data, 1, (size_t)size, f), (size_t)size);
	fclose(f);
	static const char *const cols[] = {"id", "a", "b", "c", "d", "e", NULL};
	uint32_t x = 7;
	int errors = 0;
	for (int round = 0; round < 300; round++) {
		unsigned char *d = malloc((size_t)size);
		memcpy(d, data, (size_t)size);
		/* leave page 1 (the schema) alone so SQLite can still find the table */
		for (int k = 0; k < 8; k++) {
			x = x * 1664525u + 1013904223u;
			long at = 512 + (long)(x % (uint32_t)(size - 512));
			d[at] = (unsigned char)(x >> 24);
		}
		f = fopen(copy, "wb");
		fwrite(d, 1, (size_t)size, f);
		fclose(f);
		free(d);
		sqlite3 *db;
		cr_assert_eq(sqlite3_open_v2(copy, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
		struct tks_tscan *ts;
		char err[256] = "";
		int rc = tks_tscan_open(&ts, db, copy, "t", cols, err, sizeof(err));
		if (rc == TK_OK) {
			int r;
			while ((r = tks_tscan_next(ts)) == 1)
				for (int c = 0; c < 6; c++) {
					size_t len;
					(void)tks_tscan_int(ts, c);
					(void)tks_tscan_real(ts, c);
					(void)tks_tscan_text(ts, c, &len);
				}
			if (r < 0) {
				errors++;
				cr_expect(strstr(err, "page") != NULL, "%s", err);
			}
			tks_tscan_close(ts);
		} else
			errors++;
		sqlite3_close(db);
	}
	cr_expect_gt(errors, 50, "damage should be noticed often");
	free(data);
	free(copy);
	free(path);
}

Test(tscan, writer_built_store_scans_like_sql)
{
	char *db = tkt_path(dir, "s.db");
	struct tkt_run r = tkt_tracekit("synth", "-o", db, "--events", "30000", "--devices", "2",
					"--seed", "3", NULL);
	cr_assert_eq(r.code, 0, "%s", r.err);
	tkt_run_free(&r);
	sqlite3 *h;
	cr_assert_eq(sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	static const char *const cols[] = {"id",     "track_id",       "ts_ns",
					   "dur_ns", "correlation_id", NULL};
	struct tks_tscan *ts;
	char err[256];
	cr_assert_eq(tks_tscan_open(&ts, h, db, "events", cols, err, sizeof(err)), TK_OK, "%s",
		     err);
	sqlite3_stmt *st;
	cr_assert_eq(sqlite3_prepare_v2(h,
					"SELECT id, track_id, ts_ns, dur_ns, correlation_id FROM "
					"events ORDER BY id",
					-1, &st, NULL),
		     SQLITE_OK);
	int64_t n = 0;
	while (tks_tscan_next(ts) == 1) {
		cr_assert_eq(sqlite3_step(st), SQLITE_ROW);
		for (int c = 0; c < 5; c++) {
			cr_assert_eq(tks_tscan_type(ts, c) == TK_TS_NULL,
				     sqlite3_column_type(st, c) == SQLITE_NULL);
			cr_assert_eq(tks_tscan_int(ts, c), sqlite3_column_int64(st, c));
		}
		n++;
	}
	cr_assert_eq(sqlite3_step(st), SQLITE_DONE);
	cr_expect_eq(n, tkt_query_int(db, "SELECT count(*) FROM events"));
	sqlite3_finalize(st);
	tks_tscan_close(ts);
	sqlite3_close(h);
	free(db);
}

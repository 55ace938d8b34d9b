/*
 * Tests of the direct page output (store/pages.c, store/batch.c): trees built with small pages so
 * that they get several interior levels and overflow chains, then opened with SQLite, which must
 * find them intact (integrity_check) and read back every row exactly.
 */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <tracekit/error.h>
#include <tracekit/store.h>

#include "batch.h"
#include "pages.h"
#include "tk_test.h"

/* Create @path with one table t(id INTEGER PRIMARY KEY, a INTEGER, s TEXT, r REAL); its root. */
static uint32_t make_db(const char *path, int page_size, uint32_t *npages)
{
	sqlite3 *db = NULL;
	char sql[256];
	cr_assert_eq(sqlite3_open(path, &db), SQLITE_OK);
	snprintf(sql, sizeof(sql),
		 "PRAGMA page_size = %d; PRAGMA journal_mode = OFF;"
		 "CREATE TABLE t (id INTEGER PRIMARY KEY, a INTEGER NOT NULL, s TEXT, r REAL);"
		 "CREATE TABLE u (k INTEGER, v);",
		 page_size);
	cr_assert_eq(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
	*npages = (uint32_t)tkt_query_int(path, "PRAGMA page_count");
	uint32_t root =
	    (uint32_t)tkt_query_int(path, "SELECT rootpage FROM sqlite_schema WHERE name = 't'");
	sqlite3_close(db);
	return root;
}

static char *text_of(int64_t i)
{
	/* every 97th row carries a long text (overflow chains of several pages) */
	size_t len = i % 97 == 0 ? (size_t)(i % 5000) + 600 : (size_t)(i % 23);
	char *s = malloc(len + 1);
	for (size_t k = 0; k < len; k++)
		s[k] = (char)('a' + (i + (int64_t)k) % 26);
	s[len] = '\0';
	return s;
}

static void check_string(sqlite3 *db, const char *sql, const char *want)
{
	sqlite3_stmt *st = NULL;
	cr_assert_eq(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
	cr_assert_eq(sqlite3_step(st), SQLITE_ROW);
	cr_expect_str_eq((const char *)sqlite3_column_text(st, 0), want, "%s", sql);
	sqlite3_finalize(st);
}

Test(pages, deep_tree_with_overflow_reads_back_exactly)
{
	char *dir = tkt_mkdtemp(), *path = tkt_path(dir, "p.db");
	uint32_t npages, root = make_db(path, 512, &npages);
	sqlite3 *db = NULL;
	struct tks_pages pages;
	struct tks_batch b;
	cr_assert_eq(sqlite3_open(path, &db), SQLITE_OK);
	cr_assert_eq(tks_batch_describe(&b, db, "t", 4), SQLITE_OK, "%s", b.err);
	sqlite3_close(db);
	cr_assert_eq(b.root, root);
	cr_assert_eq(b.ipk, 0);
	cr_assert(b.direct);
	cr_assert_eq(tks_pages_open(&pages, path, 512, npages), 0);
	cr_assert_eq(tks_batch_start(&b, &pages, dir, 1000), 0);
	const int64_t n = 200000;
	for (int64_t i = 1; i <= n; i++) {
		/* rowids with gaps and large values: 3 i, and one near 2^62 at the end */
		int64_t id = i == n ? ((int64_t)1 << 62) : 3 * i;
		struct tks_cell *row = tks_batch_row(&b);
		tks_cell_int(&row[0], id);
		tks_cell_int(&row[1], i % 7 == 0 ? -i * 1000003 : i);
		char *s = text_of(i);
		if (i % 11)
			cr_assert_eq(tks_batch_text(&b, &row[2], s), SQLITE_OK);
		free(s);
		if (i % 3 == 0)
			tks_cell_real(&row[3], i / 4.0);
		else if (i % 3 == 1)
			tks_cell_real(&row[3], (double)i); /* integral: stored as an integer */
		int e;
		cr_assert_eq(tks_batch_add(&b, &e), SQLITE_OK, "%s", b.err);
	}
	/* a rowid not above the last one is kept for SQL */
	struct tks_cell *row = tks_batch_row(&b);
	tks_cell_int(&row[0], 2);
	tks_cell_int(&row[1], 42);
	int e;
	cr_assert_eq(tks_batch_add(&b, &e), SQLITE_OK);
	cr_assert_eq(b.nkept, 1);
	/* NOT NULL is enforced */
	row = tks_batch_row(&b);
	tks_cell_int(&row[0], ((int64_t)1 << 62) + 1);
	cr_assert_eq(tks_batch_add(&b, &e), SQLITE_CONSTRAINT);
	cr_assert(strstr(b.err, "NOT NULL constraint failed: t.a"), "%s", b.err);
	cr_assert_eq(tks_batch_finish_pages(&b), 0);
	cr_assert_eq(tks_pages_close(&pages), 0);
	cr_assert_eq(sqlite3_open(path, &db), SQLITE_OK);
	cr_assert_eq(tks_batch_flush_sql(&b, db), SQLITE_OK, "%s", b.err);
	tks_batch_free(&b);
	sqlite3_close(db);

	cr_assert_eq(sqlite3_open(path, &db), SQLITE_OK);
	check_string(db, "PRAGMA integrity_check", "ok");
	sqlite3_close(db);
	cr_expect_eq(tkt_query_int(path, "SELECT count(*) FROM t"), n + 1);
	cr_expect_eq(tkt_query_int(path, "SELECT a FROM t WHERE id = 2"), 42);
	cr_expect_eq(tkt_query_int(path, "SELECT max(id) FROM t"), (int64_t)1 << 62);
	/* every value reads back: sums computed here the same way */
	int64_t sum_a = 0, sum_len = 0, n_null = 0;
	double sum_r = 0;
	for (int64_t i = 1; i <= n; i++) {
		sum_a += i % 7 == 0 ? -i * 1000003 : i;
		if (i % 11) {
			char *s = text_of(i);
			sum_len += (int64_t)strlen(s);
			free(s);
		} else
			n_null++;
		sum_r += i % 3 == 0 ? i / 4.0 : i % 3 == 1 ? (double)i : 0;
	}
	cr_expect_eq(tkt_query_int(path, "SELECT sum(a) FROM t WHERE id > 2"), sum_a);
	cr_expect_eq(tkt_query_int(path, "SELECT sum(length(s)) FROM t"), sum_len);
	cr_expect_eq(tkt_query_int(path, "SELECT count(*) FROM t WHERE s IS NULL AND id > 2"),
		     n_null);
	cr_expect_eq(tkt_query_int(path, "SELECT CAST(sum(r) * 4 AS INTEGER) FROM t"),
		     (int64_t)(sum_r * 4));
	cr_expect_eq(tkt_query_int(path, "SELECT count(*) FROM t WHERE typeof(r) = 'integer'"), 0,
		     "a REAL column reads back as real");
	/* a long text exactly: row 97 * 40 */
	int64_t i = 97 * 40;
	char *want = text_of(i), sql[96];
	snprintf(sql, sizeof(sql), "SELECT s FROM t WHERE id = %lld", (long long)(3 * i));
	cr_assert_eq(sqlite3_open(path, &db), SQLITE_OK);
	check_string(db, sql, want);
	sqlite3_close(db);
	free(want);
	/* the tree is deep: 512-byte pages and 200 k rows need three interior levels */
	cr_expect_geq(tkt_query_int(path, "SELECT max(length(path)) FROM dbstat WHERE name = 't'"
					  " AND pagetype = 'internal'"),
		      9, "expected at least three interior levels");
	cr_expect_gt(tkt_query_int(path, "SELECT count(*) FROM dbstat WHERE name = 't'"
					 " AND pagetype = 'overflow'"),
		     100);
	free(path);
	tkt_rmdir(dir);
	free(dir);
}

Test(pages, table_without_rowid_column_and_untyped_values)
{
	char *dir = tkt_mkdtemp(), *path = tkt_path(dir, "u.db");
	uint32_t npages;
	make_db(path, 1024, &npages);
	sqlite3 *db = NULL;
	struct tks_pages pages;
	struct tks_batch b;
	cr_assert_eq(sqlite3_open(path, &db), SQLITE_OK);
	cr_assert_eq(tks_batch_describe(&b, db, "u", 2), SQLITE_OK, "%s", b.err);
	sqlite3_close(db);
	cr_assert_eq(b.ipk, -1);
	cr_assert_eq(tks_pages_open(&pages, path, 1024, npages), 0);
	cr_assert_eq(tks_batch_start(&b, &pages, dir, 1000), 0);
	for (int i = 0; i < 3000; i++) {
		struct tks_cell *row = tks_batch_row(&b);
		tks_cell_int(&row[0], INT64_MIN + i); /* extreme integers survive */
		if (i % 3 == 0)
			tks_cell_real(&row[1], 2.0); /* untyped column: stays real */
		else if (i % 3 == 1)
			tks_cell_int(&row[1], INT64_MAX - i);
		else
			cr_assert_eq(tks_batch_text(&b, &row[1], ""), SQLITE_OK);
		int e;
		cr_assert_eq(tks_batch_add(&b, &e), SQLITE_OK, "%s", b.err);
	}
	cr_assert_eq(tks_batch_finish_pages(&b), 0);
	cr_assert_eq(tks_pages_close(&pages), 0);
	tks_batch_free(&b);
	cr_assert_eq(sqlite3_open(path, &db), SQLITE_OK);
	check_string(db, "PRAGMA integrity_check", "ok");
	sqlite3_close(db);
	cr_expect_eq(tkt_query_int(path, "SELECT count(*) FROM u"), 3000);
	cr_expect_eq(tkt_query_int(path, "SELECT max(rowid) FROM u"), 3000);
	cr_expect_eq(tkt_query_int(path, "SELECT k FROM u WHERE rowid = 1"), INT64_MIN);
	cr_expect_eq(tkt_query_int(path, "SELECT count(*) FROM u WHERE typeof(v) = 'real'"), 1000);
	cr_expect_eq(tkt_query_int(path, "SELECT count(*) FROM u WHERE v = ''"), 1000);
	cr_expect_eq(tkt_query_int(path, "SELECT v FROM u WHERE rowid = 2"), INT64_MAX - 1);
	free(path);
	tkt_rmdir(dir);
	free(dir);
}

Test(pages, varints_match_sqlite)
{
	/* SQLite's own varint examples: 1 byte to 127, 2 to 16383, 9 bytes above 2^56 */
	unsigned char buf[9];
	cr_expect_eq(tks_varint_put(buf, 127), 1);
	cr_expect_eq(buf[0], 0x7f);
	cr_expect_eq(tks_varint_put(buf, 128), 2);
	cr_expect(buf[0] == 0x81 && buf[1] == 0x00);
	cr_expect_eq(tks_varint_put(buf, 16383), 2);
	cr_expect_eq(tks_varint_put(buf, 16384), 3);
	cr_expect_eq(tks_varint_len((uint64_t)1 << 56), 9);
	cr_expect_eq(tks_varint_put(buf, UINT64_MAX), 9);
	for (int i = 0; i < 9; i++)
		cr_expect_eq(buf[i], 0xff);
	cr_expect_eq(tks_varint_len(((uint64_t)1 << 56) - 1), 8);
}

Test(pages, writer_rows_out_of_order_and_meta_rewrites_go_through_sql)
{
	char *dir = tkt_mkdtemp(), *path = tkt_path(dir, "w.db");
	tk_writer *w = NULL;
	cr_assert_eq(tk_writer_create(path, &w), TK_OK);
	struct tk_process_info p = {1, "proc", "host", 0};
	int64_t pid, tid, ev[3];
	cr_assert_eq(tk_writer_add_process(w, &p, &pid), TK_OK);
	struct tk_track_info t = {TK_TRACK_THREAD, "main", pid, TK_NONE, 7, TK_NONE, NULL};
	cr_assert_eq(tk_writer_add_track(w, &t, &tid), TK_OK);
	for (int i = 0; i < 3; i++) {
		struct tk_event e = {tid, TK_EV_XLA_OP, "op", 0, NULL, 0, 1000 + i, 10, TK_NONE};
		cr_assert_eq(tk_writer_add_event(w, &e, &ev[i]), TK_OK);
	}
	struct tk_op_info op = {"fusion.3", NULL, NULL, NULL, TK_NONE, 300, TK_NONE};
	cr_assert_eq(tk_writer_add_op_details(w, ev[2], &op), TK_OK);
	op.hlo_op = "fusion.1";
	op.flops = 100;
	cr_assert_eq(tk_writer_add_op_details(w, ev[0], &op), TK_OK); /* below the last rowid */
	cr_assert_eq(tk_writer_set_meta_text(w, "clock", "first"), TK_OK);
	cr_assert_eq(tk_writer_set_meta_text(w, "clock", "unix_epoch"), TK_OK);
	cr_assert_eq(tk_writer_finish(w, tkt_err()), TK_OK, "%s", tkt_errmsg());
	cr_expect_eq(tkt_query_int(path, "SELECT count(*) FROM op_details"), 2);
	cr_expect_eq(tkt_query_int(path, "SELECT flops FROM op_details WHERE event_id = 1"), 100);
	cr_expect_eq(tkt_query_int(path, "SELECT flops FROM op_details WHERE event_id = 3"), 300);
	cr_expect_eq(tkt_query_int(path, "SELECT count(*) FROM meta WHERE key = 'clock'"
					 " AND value = 'unix_epoch'"),
		     1);
	cr_expect_eq(tkt_query_int(path, "SELECT count(*) FROM meta WHERE key = 'clock'"), 1);
	sqlite3 *db = NULL;
	cr_assert_eq(sqlite3_open(path, &db), SQLITE_OK);
	check_string(db, "PRAGMA integrity_check", "ok");
	sqlite3_close(db);

	/* the same op details twice is refused at finish, naming the constraint */
	char *path2 = tkt_path(dir, "dup.db");
	cr_assert_eq(tk_writer_create(path2, &w), TK_OK);
	cr_assert_eq(tk_writer_add_process(w, &p, &pid), TK_OK);
	cr_assert_eq(tk_writer_add_track(w, &t, &tid), TK_OK);
	struct tk_event e = {tid, TK_EV_XLA_OP, "op", 0, NULL, 0, 1000, 10, TK_NONE};
	cr_assert_eq(tk_writer_add_event(w, &e, &ev[0]), TK_OK);
	cr_assert_eq(tk_writer_add_op_details(w, ev[0], &op), TK_OK);
	cr_assert_eq(tk_writer_add_op_details(w, ev[0], &op), TK_OK);
	cr_expect_neq(tk_writer_finish(w, tkt_err()), TK_OK);
	cr_expect(strstr(tkt_errmsg(), "UNIQUE") != NULL, "%s", tkt_errmsg());
	cr_expect_not(tkt_exists(path2));
	cr_expect_eq(tkt_count_entries(dir), 1, "no temporary file is left behind");
	free(path2);
	free(path);
	tkt_rmdir(dir);
	free(dir);
}

Test(pages, synthetic_store_passes_integrity_check)
{
	char *dir = tkt_mkdtemp(), *path = tkt_path(dir, "s.db");
	struct tkt_run r =
	    tkt_tracekit("synth", "-o", path, "--events", "300000", "--seed", "3", NULL);
	cr_assert_eq(r.code, 0, "%s", r.err);
	tkt_run_free(&r);
	sqlite3 *db = NULL;
	cr_assert_eq(sqlite3_open(path, &db), SQLITE_OK);
	check_string(db, "PRAGMA integrity_check", "ok");
	sqlite3_close(db);
	free(path);
	tkt_rmdir(dir);
	free(dir);
}

Test(pages, index_built_from_sorted_runs_matches_the_table)
{
	char *dir = tkt_mkdtemp(), *path = tkt_path(dir, "x.db");
	sqlite3 *db = NULL;
	cr_assert_eq(sqlite3_open(path, &db), SQLITE_OK);
	cr_assert_eq(
	    sqlite3_exec(db,
			 "PRAGMA page_size = 512; PRAGMA journal_mode = OFF;"
			 "CREATE TABLE x (id INTEGER PRIMARY KEY, k INTEGER, ts INTEGER NOT "
			 "NULL, v TEXT);"
			 "CREATE INDEX x_by_k ON x(k, ts); CREATE UNIQUE INDEX x_by_v ON x(v);"
			 "CREATE INDEX x_by_v2 ON x(v);",
			 NULL, NULL, NULL),
	    SQLITE_OK);
	struct tks_batch b;
	int by_writer;
	cr_assert_eq(tks_batch_describe(&b, db, "x", 4), SQLITE_OK, "%s", b.err);
	cr_assert_eq(tks_batch_plan_index(&b, db, "x_by_v", &by_writer), SQLITE_OK);
	cr_expect_eq(by_writer, 0, "a UNIQUE index is left to SQLite");
	cr_assert_eq(tks_batch_plan_index(&b, db, "x_by_v2", &by_writer), SQLITE_OK);
	cr_expect_eq(by_writer, 0, "a text key is left to SQLite");
	cr_assert_eq(tks_batch_plan_index(&b, db, "x_by_k", &by_writer), SQLITE_OK);
	cr_assert_eq(by_writer, 1);
	sqlite3_close(db);
	uint32_t npages = (uint32_t)tkt_query_int(path, "PRAGMA page_count");
	struct tks_pages pages;
	cr_assert_eq(tks_pages_open(&pages, path, 512, npages), 0);
	cr_assert_eq(tks_batch_start(&b, &pages, dir, 1000), 0);
	const int n = 100000;
	int64_t n_k5 = 0, n_null = 0;
	for (int i = 1; i <= n; i++) {
		struct tks_cell *row = tks_batch_row(&b);
		tks_cell_int(&row[0], i);
		/* keys out of order across runs; NULLs and negative values; runs of equal keys */
		int64_t k = (i * 7919) % 13 - 3, ts = ((int64_t)i * 104729) % 100003 - 50000;
		if (i % 17 == 0)
			n_null++;
		else {
			tks_cell_int(&row[1], k);
			n_k5 += k == 5;
		}
		/* the first run arrives sorted; the extremes make the spilled deltas wrap */
		if (i % 101 == 0)
			ts = i % 202 ? INT64_MIN : INT64_MAX;
		tks_cell_int(&row[2], i < 3000 ? 1000 : ts);
		char v[32];
		snprintf(v, sizeof(v), "v%d", i);
		cr_assert_eq(tks_batch_text(&b, &row[3], v), SQLITE_OK);
		int e;
		cr_assert_eq(tks_batch_add(&b, &e), SQLITE_OK, "%s", b.err);
	}
	cr_expect_gt(b.ix.nruns, 50);
	cr_assert_eq(tks_batch_finish_pages(&b), 0);
	cr_assert_eq(tks_pages_close(&pages), 0);
	tks_batch_free(&b);
	cr_assert_eq(sqlite3_open(path, &db), SQLITE_OK);
	cr_assert_eq(sqlite3_exec(db, "REINDEX x_by_v; REINDEX x_by_v2", NULL, NULL, NULL),
		     SQLITE_OK);
	check_string(db, "PRAGMA integrity_check", "ok"); /* checks every index entry */
	sqlite3_close(db);
	cr_expect_eq(tkt_query_int(path, "SELECT count(*) FROM x INDEXED BY x_by_k WHERE k = 5"),
		     n_k5);
	cr_expect_eq(
	    tkt_query_int(path, "SELECT count(*) FROM x INDEXED BY x_by_k WHERE k IS NULL"),
	    n_null);
	cr_expect_eq(tkt_query_int(path, "SELECT count(*) FROM x INDEXED BY x_by_k"
					 " WHERE k = -3 AND ts BETWEEN -100 AND 100"),
		     tkt_query_int(path, "SELECT count(*) FROM x NOT INDEXED"
					 " WHERE k = -3 AND ts BETWEEN -100 AND 100"));
	cr_expect_eq(tkt_query_int(path, "SELECT count(*) FROM x INDEXED BY x_by_k"
					 " WHERE k = 2 AND ts = 9223372036854775807"),
		     tkt_query_int(path, "SELECT count(*) FROM x NOT INDEXED"
					 " WHERE k = 2 AND ts = 9223372036854775807"));
	cr_expect_gt(
	    tkt_query_int(path, "SELECT count(*) FROM x WHERE ts = -9223372036854775807 - 1"), 400);
	cr_expect_gt(tkt_query_int(path, "SELECT max(length(path)) FROM dbstat WHERE name = "
					 "'x_by_k' AND pagetype = 'internal'"),
		     4, "expected at least two interior levels");
	free(path);
	tkt_rmdir(dir);
	free(dir);
}

/* A store past 1 GiB: the page that holds SQLite's lock bytes is skipped (with 65536-byte pages
 * it is page 16385; a sparse file of 16383 pages stands for the store written so far). */
Test(pages, the_lock_byte_page_is_never_allocated)
{
	char path[] = "/tmp/tk_test_pages_lockXXXXXX";
	int fd = mkstemp(path);
	cr_assert_geq(fd, 0);
	uint32_t ps = 65536, lock = TKS_LOCK_BYTE / ps + 1;
	cr_assert_eq(ftruncate(fd, (off_t)(lock - 2) * ps), 0);
	close(fd);
	struct tks_pages p;
	cr_assert_eq(tks_pages_open(&p, path, ps, lock - 2), 0);
	cr_assert_eq(tks_pages_alloc(&p), lock - 1);
	cr_assert_eq(tks_pages_alloc(&p), lock + 1, "page %u holds the lock bytes", lock);
	cr_assert_eq(tks_pages_alloc(&p), lock + 2);
	unsigned char *page = calloc(1, ps);
	cr_assert_not_null(page);
	cr_assert_eq(tks_pages_put(&p, lock + 1, page), 0);
	cr_assert_eq(tks_pages_put(&p, lock + 2, page), 0);
	cr_assert_eq(tks_pages_close(&p), 0);
	struct stat sb;
	cr_assert_eq(stat(path, &sb), 0);
	cr_assert_eq((uint64_t)sb.st_size, (uint64_t)(lock + 2) * ps);
	free(page);
	unlink(path);
}

/*
 * The store's connection modes (tk_store_open_mode): read-only and streaming handles refuse
 * writes, the streaming and read-write ones carry no SQLite mutex, the read-write one writes and
 * refuses a newer or foreign file with the messages the analysis has always given, and the
 * exporters still stream through theirs.
 */
#include <criterion/criterion.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tracekit/export.h>
#include <tracekit/tracekit.h>

#include "tk_test.h"
#include "tscan.h"

static char *dir, *db;

static void setup(void)
{
	dir = tkt_mkdtemp();
	db = tkt_path(dir, "t.db");
	cr_assert_eq(tkt_write_fixture(db), TK_OK);
}

static void teardown(void)
{
	tkt_rmdir(dir);
	free(dir);
	free(db);
}

TestSuite(store_modes, .init = setup, .fini = teardown);

/* Run @sql on the store at @path with a plain connection (what another tool may do). */
static void edit(const char *path, const char *sql)
{
	sqlite3 *h;
	cr_assert_eq(sqlite3_open(path, &h), SQLITE_OK);
	cr_assert_eq(sqlite3_exec(h, sql, NULL, NULL, NULL), SQLITE_OK, "%s", sql);
	sqlite3_close(h);
}

Test(store_modes, read_only_modes_refuse_writes)
{
	static const enum tk_store_mode modes[] = {TK_STORE_READ, TK_STORE_STREAM};
	uint64_t before = tkt_store_digest(db);
	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		tk_store *s = NULL;
		cr_assert_eq(tk_store_open_mode(db, modes[i], &s), TK_OK, "%s", tk_store_errmsg(s));
		sqlite3 *h = tk_store_sqlite(s);
		cr_expect_neq(sqlite3_exec(h, "DELETE FROM events", NULL, NULL, NULL), SQLITE_OK,
			      "mode %d deleted", (int)modes[i]);
		cr_expect_neq(sqlite3_exec(h, "INSERT INTO meta (key, value) VALUES ('x', 1)", NULL,
					   NULL, NULL),
			      SQLITE_OK, "mode %d inserted", (int)modes[i]);
		cr_expect_neq(sqlite3_exec(h, "CREATE TABLE analysis_x (a)", NULL, NULL, NULL),
			      SQLITE_OK, "mode %d created a table", (int)modes[i]);
		tk_store_close(s);
	}
	cr_assert_eq(tkt_store_digest(db), before, "a read-only handle changed the store");
}

Test(store_modes, only_the_shared_mode_locks_every_call)
{
	if (!sqlite3_threadsafe())
		cr_skip_test("SQLite is built without mutexes");
	static const struct {
		enum tk_store_mode mode;
		int mutex;
	} want[] = {{TK_STORE_READ, 1}, {TK_STORE_STREAM, 0}, {TK_STORE_READ_WRITE, 0}};
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		tk_store *s = NULL;
		cr_assert_eq(tk_store_open_mode(db, want[i].mode, &s), TK_OK, "%s",
			     tk_store_errmsg(s));
		cr_expect_eq(sqlite3_db_mutex(tk_store_sqlite(s)) != NULL, want[i].mutex,
			     "mode %d: mutex %s", (int)want[i].mode,
			     want[i].mutex ? "missing" : "set");
		cr_expect_eq(tk_store_schema_version(s), TK_STORE_SCHEMA_VERSION);
		tk_store_close(s);
	}
}

/* The first integer of @sql on @h. */
static int64_t int_of(sqlite3 *h, const char *sql)
{
	sqlite3_stmt *st = NULL;
	cr_assert_eq(sqlite3_prepare_v2(h, sql, -1, &st, NULL), SQLITE_OK, "%s", sql);
	cr_assert_eq(sqlite3_step(st), SQLITE_ROW, "%s", sql);
	int64_t v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

Test(store_modes, read_write_mode_writes_in_the_callers_transaction)
{
	tk_store *s = NULL;
	cr_assert_eq(tk_store_open_mode(db, TK_STORE_READ_WRITE, &s), TK_OK, "%s",
		     tk_store_errmsg(s));
	sqlite3 *h = tk_store_sqlite(s);
	cr_expect_eq(int_of(h, "PRAGMA cache_size"), -8192);
	cr_expect_eq(int_of(h, "PRAGMA query_only"), 0);
	cr_assert_eq(sqlite3_exec(h,
				  "BEGIN IMMEDIATE; CREATE TABLE analysis_x (a); "
				  "INSERT INTO analysis_x VALUES (42); COMMIT",
				  NULL, NULL, NULL),
		     SQLITE_OK, "%s", sqlite3_errmsg(h));
	tk_store_close(s);
	cr_expect_eq(tkt_query_int(db, "SELECT a FROM analysis_x"), 42);
	/* still a store every mode opens */
	cr_assert_eq(tk_store_open(db, &s), TK_OK, "%s", tk_store_errmsg(s));
	cr_expect_eq(int_of(tk_store_sqlite(s), "PRAGMA query_only"), 1);
	tk_store_close(s);
}

/* @path opened in every mode fails with @status and exactly @msg. */
static void expect_refused(const char *path, int status, const char *msg)
{
	static const enum tk_store_mode modes[] = {TK_STORE_READ, TK_STORE_STREAM,
						   TK_STORE_READ_WRITE};
	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		tk_store *s = NULL;
		cr_expect_eq(tk_store_open_mode(path, modes[i], &s), status, "mode %d: %s",
			     (int)modes[i], tk_store_errmsg(s));
		cr_expect_str_eq(tk_store_errmsg(s), msg, "mode %d", (int)modes[i]);
		tk_store_close(s);
	}
	/* the analysis (and its command) say the same, with exit code 2 */
	cr_expect_eq(tk_analyze(path, NULL, tkt_err()), status);
	cr_expect_str_eq(tkt_errmsg(), msg);
	struct tkt_run r = tkt_tracekit("analyze", path, NULL);
	cr_expect_eq(r.code, 2, "exit %d: %s", r.code, r.err);
	char line[1200];
	snprintf(line, sizeof(line), "tracekit: %s\n", msg);
	cr_expect_str_eq(r.err, line);
	tkt_run_free(&r);
}

Test(store_modes, every_mode_refuses_a_newer_store_with_todays_message)
{
	edit(db, "PRAGMA user_version = 99");
	uint64_t before = tkt_store_digest(db);
	char msg[1024];
	snprintf(msg, sizeof(msg),
		 "store '%s' has schema version 99, newer than this tracekit supports (%d): "
		 "upgrade tracekit to read it",
		 db, TK_STORE_SCHEMA_VERSION);
	expect_refused(db, TK_EVERSION, msg);
	cr_expect_eq(tkt_store_digest(db), before, "a refused store was written");
}

Test(store_modes, every_mode_refuses_a_foreign_file_with_todays_message)
{
	char *plain = tkt_path(dir, "plain.db"), msg[1024];
	edit(plain, "CREATE TABLE x (a); INSERT INTO x VALUES (1)");
	snprintf(msg, sizeof(msg), "'%s' is not a tracekit store (no schema version or meta table)",
		 plain);
	expect_refused(plain, TK_EFORMAT, msg);
	cr_expect_eq(tkt_query_int(plain, "SELECT count(*) FROM sqlite_master"), 1);

	char *text = tkt_path(dir, "notes.txt");
	static const char junk[] =
	    "this is not a database, but it is long enough to look like a header......\n";
	tkt_spit(text, junk, sizeof(junk) - 1);
	snprintf(msg, sizeof(msg), "'%s' is not a tracekit store: file is not a database", text);
	expect_refused(text, TK_EFORMAT, msg);
	size_t n = 0;
	char *after = tkt_slurp(text, &n);
	cr_expect(after && n == sizeof(junk) - 1 && !memcmp(after, junk, n),
		  "a foreign file was written");
	free(after);
	free(text);
	free(plain);
}

Test(store_modes, an_unknown_mode_is_refused)
{
	tk_store *s = NULL;
	cr_expect_eq(tk_store_open_mode(db, (enum tk_store_mode)42, &s), TK_EINVAL);
	cr_expect(strstr(tk_store_errmsg(s), "mode 42") != NULL, "%s", tk_store_errmsg(s));
	tk_store_close(s);
}

Test(store_modes, the_streaming_connection_scans_tables_directly)
{
	tk_store *s = NULL;
	cr_assert_eq(tk_store_open_mode(db, TK_STORE_STREAM, &s), TK_OK, "%s", tk_store_errmsg(s));
	static const char *const cols[] = {"id", "ts_ns", NULL};
	struct tks_tscan *ts = NULL;
	char err[256] = "";
	/* TK_OK, not 1 (declined: SQL instead): the file's pages are read straight */
	cr_assert_eq(tks_tscan_open(&ts, tk_store_sqlite(s), db, "events", cols, err, sizeof(err)),
		     TK_OK, "%s", err);
	int64_t rows = 0, last = -1;
	int r;
	while ((r = tks_tscan_next(ts)) == 1) {
		cr_expect_gt(tks_tscan_rowid(ts), last);
		last = tks_tscan_rowid(ts);
		rows++;
	}
	cr_expect_eq(r, 0, "%s", err);
	cr_expect_eq(rows, tkt_query_int(db, "SELECT count(*) FROM events"));
	tks_tscan_close(ts);
	tk_store_close(s);
}

Test(store_modes, exports_stream_beside_other_handles)
{
	/* a shared read-only handle and a streaming one at once, as a program may hold */
	tk_store *s = NULL;
	cr_assert_eq(tk_store_open(db, &s), TK_OK, "%s", tk_store_errmsg(s));
	static const enum tk_export_format formats[] = {TK_EXPORT_CHROME, TK_EXPORT_PERFETTO};
	static const char *const names[] = {"out.json", "out.pftrace"};
	for (size_t i = 0; i < 2; i++) {
		tk_exporter *x = NULL;
		struct tk_export_options o;
		tk_export_options_init(&o);
		o.format = formats[i];
		char *out = tkt_path(dir, names[i]);
		cr_assert_eq(tk_exporter_create(&x), TK_OK);
		cr_assert_eq(tk_exporter_run(x, db, out, &o), TK_OK, "%s", tk_exporter_errmsg(x));
		struct tk_export_stats st;
		tk_exporter_stats(x, &st);
		cr_expect_eq(st.events, tkt_query_int(db, "SELECT count(*) FROM events"), "%s",
			     names[i]);
		cr_expect(tkt_exists(out));
		tk_exporter_destroy(x);
		free(out);
	}
	tk_store_close(s);
}

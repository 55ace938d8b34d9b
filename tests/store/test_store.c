/* Store module tests: round trip of every table and view, interning, atomic finish, versions. */
#include <criterion/criterion.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <string.h>
#include <tracekit/tracekit.h>

#include "intern.h"
#include "tk_test.h"

static char *dir, *db;

static void setup(void)
{
	dir = tkt_mkdtemp();
	db = tkt_path(dir, "t.db");
}

static void teardown(void)
{
	tkt_rmdir(dir);
	free(dir);
	free(db);
}

TestSuite(store, .init = setup, .fini = teardown);

/* Text of the first column of the first row of @sql, "" for NULL. */
static char *query_text(const char *sql)
{
	sqlite3 *h;
	sqlite3_stmt *st;
	cr_assert_eq(sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	cr_assert_eq(sqlite3_prepare_v2(h, sql, -1, &st, NULL), SQLITE_OK, "%s: %s", sql,
		     sqlite3_errmsg(h));
	cr_assert_eq(sqlite3_step(st), SQLITE_ROW, "%s returned no row", sql);
	const unsigned char *t = sqlite3_column_text(st, 0);
	char *r = strdup(t ? (const char *)t : "");
	sqlite3_finalize(st);
	sqlite3_close(h);
	return r;
}

static void expect_text(const char *sql, const char *want)
{
	char *got = query_text(sql);
	cr_expect_str_eq(got, want, "%s\n got: %s\nwant: %s", sql, got, want);
	free(got);
}

static void expect_int(const char *sql, int64_t want)
{
	cr_expect_eq(tkt_query_int(db, sql), want, "%s: got %lld, want %lld", sql,
		     (long long)tkt_query_int(db, sql), (long long)want);
}

Test(store, fixture_round_trips_every_table)
{
	cr_assert_eq(tkt_write_fixture(db), TK_OK);
	expect_int("PRAGMA user_version", TK_STORE_SCHEMA_VERSION);
	expect_int("SELECT value FROM meta WHERE key = 'schema_version'", TK_STORE_SCHEMA_VERSION);
	expect_int("SELECT value FROM meta WHERE key = 'trace_start_ns'", TKT_T0);
	expect_int("SELECT value FROM meta WHERE key = 'trace_end_ns'", TKT_T0 + 200000);
	expect_text("SELECT value FROM meta WHERE key = 'clock'", "unix_epoch");
	expect_text("SELECT format || '|' || host || '|' || rank FROM sources", "synth|host-a|0");
	expect_text(
	    "SELECT p.pid || '|' || n.str || '|' || h.str || '|' || p.rank FROM processes p "
	    "JOIN strings n ON n.id = p.name_id JOIN strings h ON h.id = p.host_id",
	    "4242|python train.py|host-a|0");
	expect_text(
	    "SELECT d.id || '|' || d.kind || '|' || n.str || '|' || d.sm_count || '|' || "
	    "d.memory_bytes || '|' || d.memory_bandwidth_bps || '|' || d.peak_flops || '|' || "
	    "d.compute_capability || '|' || d.max_smem_per_sm FROM devices d JOIN strings n ON "
	    "n.id = d.name_id",
	    "0|gpu|NVIDIA H100 80GB "
	    "HBM3|132|85899345920|3350000000000|989000000000000.0|9.0|233472");
	expect_int("SELECT count(*) FROM tracks", 3);
	expect_text("SELECT group_concat(kind, ',') FROM (SELECT kind FROM tracks ORDER BY id)",
		    "thread,stream,counter");
	expect_int("SELECT count(*) FROM events", 8);
	expect_int("SELECT count(*) FROM strings WHERE str = 'aten::linear'", 1);
	expect_int("SELECT count(*) FROM flows WHERE kind = 'launch' AND src_event_id = 2 AND "
		   "dst_event_id = 3",
		   1);
	expect_int("SELECT count(*) FROM counters", 2);
	expect_int("SELECT sum(value) FROM counters", 4096);
	expect_int("SELECT count(*) FROM args WHERE event_id = 3", 3);
	expect_text(
	    "SELECT typeof(value) FROM args a JOIN strings s ON s.id = a.key_id WHERE s.str = "
	    "'queued'",
	    "integer");
	expect_text("SELECT value FROM args a JOIN strings s ON s.id = a.key_id WHERE s.str = "
		    "'est. achieved occupancy %'",
		    "75.5");
	expect_text(
	    "SELECT value FROM args a JOIN strings s ON s.id = a.key_id WHERE s.str = 'context'",
	    "ctx <1> & \"two\"");
	expect_text(
	    "SELECT h.str || '|' || m.str || '|' || program_id || '|' || f.str || '|' || c.str "
	    "|| '|' || flops || '|' || bytes_accessed FROM op_details o JOIN strings h ON h.id = "
	    "o.hlo_op_id JOIN strings m ON m.id = o.hlo_module_id JOIN strings f ON f.id = "
	    "o.framework_op_id JOIN strings c ON c.id = o.op_category_id WHERE event_id = 8",
	    "fusion.1|jit_train_step|7|dense/MatMul|fusion|123456789|4096");
}

Test(store, views_resolve_names_and_relative_times)
{
	cr_assert_eq(tkt_write_fixture(db), TK_OK);
	expect_text("SELECT name FROM kernels", TKT_ODD_NAME);
	expect_text(
	    "SELECT mangled_name || '|' || ts_ns || '|' || ts_rel_ns || '|' || dur_ns || '|' || "
	    "end_ns || '|' || device_id || '|' || stream_id || '|' || pid || '|' || "
	    "correlation_id FROM kernels",
	    "_Z1kIfEvv|1767225600000010000|10000|7000|1767225600000017000|0|7|4242|100");
	expect_text(
	    "SELECT grid_x || ',' || grid_y || ',' || grid_z || '|' || block_x || ',' || "
	    "block_y || ',' || block_z || '|' || registers || '|' || static_smem || '|' || "
	    "dynamic_smem || '|' || occupancy || '|' || blocks_per_sm || '|' || warps_per_sm "
	    "FROM kernels",
	    "120,2,1|256,1,1|32|1024|2048|0.75|1.5|12.0");
	expect_text(
	    "SELECT name || '|' || bytes || '|' || copy_kind || '|' || src_kind || '|' || "
	    "dst_kind || '|' || ts_rel_ns || '|' || dur_ns || '|' || gb_per_s FROM memcpys",
	    "Memcpy HtoD (Pinned -> Device)|1048576|H2D|pinned|device|20000|100000|10.48576");
	expect_text(
	    "SELECT name || '|' || bytes || '|' || value || '|' || mem_kind || '|' || stream_id "
	    "FROM memsets",
	    "Memset (Device)|256|0|device|7");
	expect_text(
	    "SELECT name || '|' || api || '|' || pid || '|' || tid || '|' || correlation_id || "
	    "'|' || ts_rel_ns FROM api_calls",
	    "cudaLaunchKernel|runtime|4242|7|100|1000");
	expect_text("SELECT name || '|' || kind || '|' || category || '|' || dur_ns FROM host_ops",
		    "aten::linear|host_op|cpu_op|50000");
	expect_text(
	    "SELECT name || '|' || category || '|' || ts_rel_ns || '|' || tid FROM annotations",
	    "## forward ##|user_annotation|500|7");
	expect_text(
	    "SELECT step_num || '|' || name || '|' || ts_rel_ns || '|' || dur_ns FROM steps",
	    "3|ProfilerStep#3|0|200000");
	expect_text(
	    "SELECT group_concat(kind || ':' || bytes || ':' || ts_rel_ns || ':' || device_id || "
	    "':' || pid || ':' || allocator || ':' || mem_kind || ':' || coalesce(op_name, '-') "
	    "|| ':' || bytes_in_use, ',') FROM (SELECT * FROM memory_events ORDER BY id)",
	    "alloc:4096:1000:0:4242:caching:device:aten::linear:4096,"
	    "free:4096:150000:0:4242:caching:device:-:0");
	expect_text("SELECT name || '|' || value || '|' || unit || '|' || ts_rel_ns FROM "
		    "counter_samples ORDER BY ts_ns LIMIT 1",
		    "GPU memory allocated|4096.0|bytes|1000");
	expect_text("SELECT group_concat(kind, ',') FROM (SELECT kind FROM intervals ORDER BY id)",
		    "host_op,runtime_api,kernel,memcpy,memset,step,annotation,xla_op");
}

Test(store, fixture_memcpy_src_kind_is_pinned)
{
	/* The fixture copies from pinned memory; the view must say so. */
	cr_assert_eq(tkt_write_fixture(db), TK_OK);
	expect_text("SELECT src_kind FROM memcpys", "pinned");
}

Test(store, interning_stores_each_string_once)
{
	tk_writer *w = NULL;
	cr_assert_eq(tk_writer_create(db, &w), TK_OK);
	uint32_t a = tk_writer_intern(w, "alpha"), b = tk_writer_intern(w, "beta");
	cr_assert_neq(a, 0);
	cr_assert_neq(a, b);
	cr_assert_eq(tk_writer_intern(w, "alpha"), a);
	cr_assert_eq(tk_writer_intern(w, ""), tk_writer_intern(w, ""));
	int64_t proc, trk;
	struct tk_process_info p = {1, "alpha", NULL, TK_NONE};
	cr_assert_eq(tk_writer_add_process(w, &p, &proc), TK_OK);
	struct tk_track_info t = {TK_TRACK_THREAD, "beta", proc, TK_NONE, 1, TK_NONE, NULL};
	cr_assert_eq(tk_writer_add_track(w, &t, &trk), TK_OK);
	for (int i = 0; i < 1000; i++) {
		struct tk_event ev = {
		    trk, TK_EV_HOST_OP, i % 2 ? "alpha" : NULL, b, NULL, 0, i * 10, 5, TK_NONE};
		cr_assert_eq(tk_writer_add_event(w, &ev, NULL), TK_OK, "%s", tk_writer_errmsg(w));
	}
	/* an empty text arg (the first text in its batch) stays an empty string, not NULL */
	cr_assert_eq(tk_writer_add_arg_text(w, 1, "note", ""), TK_OK);
	cr_assert_eq(tk_writer_finish(w, tkt_err()), TK_OK, "%s", tkt_errmsg());
	expect_int("SELECT count(*) FROM args WHERE value = '' AND typeof(value) = 'text'", 1);
	expect_int("SELECT count(*) FROM strings", 4);
	expect_int("SELECT count(DISTINCT str) FROM strings", 4);
	expect_int("SELECT count(*) FROM intervals WHERE name = 'alpha'", 500);
	expect_int("SELECT count(*) FROM intervals WHERE name = 'beta'", 500);
}

Test(store, intern_table_survives_growth)
{
	struct tks_intern t;
	tks_intern_init(&t);
	char s[32];
	int added;
	for (int i = 0; i < 100000; i++) {
		snprintf(s, sizeof(s), "name-%d", i);
		cr_assert_eq(tks_intern_lookup(&t, s, strlen(s), &added), (uint32_t)i + 1);
		cr_assert_eq(added, 1);
	}
	for (int i = 0; i < 100000; i += 997) {
		snprintf(s, sizeof(s), "name-%d", i);
		cr_assert_eq(tks_intern_lookup(&t, s, strlen(s), &added), (uint32_t)i + 1);
		cr_assert_eq(added, 0);
	}
	/* embedded NUL and prefix strings are distinct */
	uint32_t x = tks_intern_lookup(&t, "ab\0c", 4, &added);
	uint32_t y = tks_intern_lookup(&t, "ab", 2, &added);
	cr_assert_neq(x, y);
	tks_intern_free(&t);
}

Test(store, failure_midway_leaves_nothing_at_target)
{
	tk_writer *w = NULL;
	cr_assert_eq(tk_writer_create(db, &w), TK_OK);
	int64_t proc, trk;
	struct tk_process_info p = {1, "p", NULL, TK_NONE};
	cr_assert_eq(tk_writer_add_process(w, &p, &proc), TK_OK);
	struct tk_track_info t = {TK_TRACK_THREAD, "t", proc, TK_NONE, 1, TK_NONE, NULL};
	cr_assert_eq(tk_writer_add_track(w, &t, &trk), TK_OK);
	for (int i = 0; i < 5000; i++) {
		struct tk_event ev = {trk, TK_EV_HOST_OP, "op", 0, NULL, 0, i * 10, 5, TK_NONE};
		cr_assert_eq(tk_writer_add_event(w, &ev, NULL), TK_OK);
	}
	/* a temporary file exists beside the target while loading, the target does not */
	cr_assert_eq(tkt_count_entries(dir), 1);
	cr_assert_not(tkt_exists(db));
	struct tk_event bad = {trk + 5, TK_EV_HOST_OP, "op", 0, NULL, 0, 0, 5, TK_NONE};
	cr_assert_eq(tk_writer_add_event(w, &bad, NULL), TK_EINVAL);
	cr_assert(strstr(tk_writer_errmsg(w), "track") != NULL, "%s", tk_writer_errmsg(w));
	/* the failure is sticky */
	struct tk_event good = {trk, TK_EV_HOST_OP, "op", 0, NULL, 0, 0, 5, TK_NONE};
	cr_assert_eq(tk_writer_add_event(w, &good, NULL), TK_EINVAL);
	cr_assert_eq(tk_writer_finish(w, tkt_err()), TK_EINVAL);
	cr_assert(strstr(tkt_errmsg(), "track 6") != NULL, "%s", tkt_errmsg());
	cr_assert_not(tkt_exists(db));
	cr_assert_eq(tkt_count_entries(dir), 0, "temporary file left behind");
}

Test(store, failed_rewrite_keeps_the_old_store)
{
	cr_assert_eq(tkt_write_fixture(db), TK_OK);
	uint64_t before = tkt_store_digest(db);
	tk_writer *w = NULL;
	cr_assert_eq(tk_writer_create(db, &w), TK_OK);
	struct tk_event ev = {1, TK_EV_HOST_OP, "op", 0, NULL, 0, 0, -1, TK_NONE};
	cr_assert_eq(tk_writer_add_event(w, &ev, NULL), TK_EINVAL);
	tk_writer_abort(w);
	cr_assert_eq(tkt_store_digest(db), before);
	cr_assert_eq(tkt_count_entries(dir), 1);
}

Test(store, rename_failure_leaves_no_temporary)
{
	char *sub = tkt_path(dir, "target-is-a-dir");
	cr_assert_eq(mkdir(sub, 0700), 0);
	char *inner = tkt_path(sub, "keep");
	FILE *f = fopen(inner, "w");
	fclose(f);
	tk_writer *w = NULL;
	cr_assert_eq(tk_writer_create(sub, &w), TK_OK);
	cr_assert_eq(tk_writer_finish(w, tkt_err()), TK_EIO);
	cr_assert(strstr(tkt_errmsg(), sub) != NULL, "%s", tkt_errmsg());
	cr_assert_eq(tkt_count_entries(dir), 1, "temporary file left behind");
	cr_assert(tkt_exists(inner));
	free(inner);
	free(sub);
}

Test(store, create_in_missing_directory_fails_cleanly)
{
	char *p = tkt_path(dir, "no/such/dir/s.db");
	tk_writer *w = NULL;
	cr_assert_eq(tk_writer_create(p, &w), TK_EIO);
	cr_assert(strstr(tk_writer_errmsg(w), p) != NULL, "%s", tk_writer_errmsg(w));
	tk_writer_abort(w);
	free(p);
}

Test(store, invalid_records_are_refused_with_a_message)
{
	tk_writer *w = NULL;
	cr_assert_eq(tk_writer_create(db, &w), TK_OK);
	struct tk_track_info t = {TK_TRACK_STREAM, "s", 3, TK_NONE, TK_NONE, 7, NULL};
	cr_assert_eq(tk_writer_add_track(w, &t, NULL), TK_EINVAL);
	cr_assert(strstr(tk_writer_errmsg(w), "process 3") != NULL, "%s", tk_writer_errmsg(w));
	tk_writer_abort(w);
	cr_assert_eq(tkt_count_entries(dir), 0);
}

Test(store, newer_schema_version_is_refused)
{
	cr_assert_eq(tkt_write_fixture(db), TK_OK);
	sqlite3 *h;
	cr_assert_eq(sqlite3_open(db, &h), SQLITE_OK);
	cr_assert_eq(sqlite3_exec(h, "PRAGMA user_version = 99", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(h);
	tk_store *s = NULL;
	cr_assert_eq(tk_store_open(db, &s), TK_EVERSION);
	cr_assert(strstr(tk_store_errmsg(s), "newer") != NULL, "%s", tk_store_errmsg(s));
	cr_assert(strstr(tk_store_errmsg(s), "99") != NULL, "%s", tk_store_errmsg(s));
	tk_store_close(s);
}

Test(store, open_reads_meta_and_refuses_foreign_files)
{
	cr_assert_eq(tkt_write_fixture(db), TK_OK);
	tk_store *s = NULL;
	cr_assert_eq(tk_store_open(db, &s), TK_OK, "%s", tk_store_errmsg(s));
	cr_assert_eq(tk_store_schema_version(s), TK_STORE_SCHEMA_VERSION);
	char buf[64];
	cr_assert_eq(tk_store_meta_text(s, "clock", buf, sizeof(buf)), TK_OK);
	cr_assert_str_eq(buf, "unix_epoch");
	cr_assert_eq(tk_store_meta_text(s, "no such key", buf, sizeof(buf)), TK_ENOTFOUND);
	/* read-only: writes fail */
	cr_assert_neq(sqlite3_exec(tk_store_sqlite(s), "DELETE FROM events", NULL, NULL, NULL),
		      SQLITE_OK);
	tk_store_close(s);
	tk_store_close(NULL);

	char *text = tkt_path(dir, "notes.txt");
	FILE *f = fopen(text, "w");
	fputs("this is not a database, but it is long enough to look like a header......\n", f);
	fclose(f);
	cr_assert_eq(tk_store_open(text, &s), TK_EFORMAT);
	cr_assert(strstr(tk_store_errmsg(s), "not a tracekit store") != NULL, "%s",
		  tk_store_errmsg(s));
	tk_store_close(s);

	char *plain = tkt_path(dir, "plain.db");
	sqlite3 *h;
	cr_assert_eq(sqlite3_open(plain, &h), SQLITE_OK);
	sqlite3_exec(h, "CREATE TABLE x(a)", NULL, NULL, NULL);
	sqlite3_close(h);
	cr_assert_eq(tk_store_open(plain, &s), TK_EFORMAT);
	tk_store_close(s);

	char *missing = tkt_path(dir, "missing.db");
	cr_assert_eq(tk_store_open(missing, &s), TK_EIO);
	cr_assert(strstr(tk_store_errmsg(s), missing) != NULL, "%s", tk_store_errmsg(s));
	tk_store_close(s);
	cr_assert_not(tkt_exists(missing), "opening must not create a file");
	free(text);
	free(plain);
	free(missing);
}

Test(store, status_codes_map_to_exit_codes)
{
	cr_assert_eq(tk_exit_code(TK_OK), 0);
	cr_assert_eq(tk_exit_code(TK_EFORMAT), 2);
	cr_assert_eq(tk_exit_code(TK_EVERSION), 2);
	cr_assert_eq(tk_exit_code(TK_ENOMEM), 3);
	cr_assert_str_eq(tk_strerror(TK_EVERSION), "unsupported store version");
	cr_assert_str_eq(tk_strerror(12345), "unknown status");
}

/* Write an empty store at db, then run @sql on it with the schema writable. */
static void reshape(const char *sql)
{
	tk_writer *w = NULL;
	cr_assert_eq(tk_writer_create(db, &w), TK_OK);
	cr_assert_eq(tk_writer_finish(w, tkt_err()), TK_OK, "%s", tkt_errmsg());
	sqlite3 *h;
	char *msg = NULL;
	cr_assert_eq(sqlite3_open(db, &h), SQLITE_OK);
	cr_assert_eq(sqlite3_exec(h, sql, NULL, NULL, &msg), SQLITE_OK, "%s: %s", sql, msg);
	sqlite3_close(h);
}

Test(store, open_refuses_a_store_of_another_shape)
{
	static const char *const edits[] = {
	    "ALTER TABLE events ADD COLUMN extra INTEGER",
	    "ALTER TABLE args RENAME COLUMN value TO v",
	    "DROP VIEW kernels; CREATE VIEW kernels AS SELECT 1 AS id",
	    "DROP INDEX events_by_track",
	    /* a type changed inside the stored text, past SQLite's own checks */
	    "PRAGMA writable_schema = ON; UPDATE sqlite_master SET sql = replace(sql, "
	    "'INTEGER NOT NULL,    -- duration', 'TEXT NOT NULL,    -- duration') "
	    "WHERE name = 'events'",
	};
	for (size_t i = 0; i < sizeof(edits) / sizeof(edits[0]); i++) {
		reshape(edits[i]);
		tk_store *s = NULL;
		cr_expect_eq(tk_store_open(db, &s), TK_EFORMAT, "opened after: %s", edits[i]);
		cr_expect(strstr(tk_store_errmsg(s), "breaks the schema") &&
			      strstr(tk_store_errmsg(s), db),
			  "after %s: %s", edits[i], tk_store_errmsg(s));
		tk_store_close(s);
	}
}

Test(store, open_accepts_reworded_comments_and_spacing)
{
	/* comments and line breaks of the stored CREATE text changed; the SQL is the same */
	reshape("PRAGMA writable_schema = ON; UPDATE sqlite_master SET sql = "
		"replace(replace(sql, '--', '-- reworded:'), char(10), char(10) || '   ') "
		"WHERE name IN ('events', 'kernels')");
	tk_store *s = NULL;
	cr_expect_eq(tk_store_open(db, &s), TK_OK, "%s", tk_store_errmsg(s));
	tk_store_close(s);
}

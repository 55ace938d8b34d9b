/*
 * The analyze driver: opens a store read-write, resolves the device peaks (peaks.c), reads every
 * event once (event_pass.c: the timeline, op profile, kernel stats and KPI inputs are built from
 * that one pass, its rows read from the file's pages; with jobs > 1 the analyses of store tables
 * only run on workers beside it, analysis_jobs.c), then runs every
 * analysis in order inside one transaction (so a failure leaves the store as it was; with
 * jobs > 1 the per-device ones compute on that many threads, device_jobs.c). The tables are
 * schemas/analysis.sql's, created here before the first.
 */
#include <tracekit/analyze.h>
#include <tracekit/error.h>
#include <tracekit/store.h>
#include <tracekit/version.h>

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "analyze_internal.h"
#include "tk_schema.h"
#include "util/cpus.h"

/* schemas/analysis.sql, embedded at build time (CMakeLists.txt): every analysis table. */
extern const char tka_analysis_sql[];

void tk_analyze_options_init(struct tk_analyze_options *o)
{
	if (!o)
		return;
	memset(o, 0, sizeof(*o));
	o->window = TK_WINDOW_AUTO;
	o->small_kernel_ns = 100000;
	o->jobs = 1;
}

int tka_fail(struct tka_ctx *c, int status, const char *fmt, ...)
{
	if (c->err && c->errlen) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(c->err, c->errlen, fmt, ap);
		va_end(ap);
	}
	/* A damaged store is bad input wherever SQLite finds it, whatever the caller assumed. */
	if (status == TK_EINTERNAL && c->db) {
		int e = sqlite3_errcode(c->db);
		if (e == SQLITE_CORRUPT || e == SQLITE_NOTADB)
			status = TK_EFORMAT;
	}
	return status;
}

int tka_sql_status(struct tka_ctx *c)
{
	int e = sqlite3_errcode(c->db);
	/* SQLITE_READONLY once the write transaction has begun: the file is writable, so it is
	 * the store's own header (a file format write version SQLite will not write) */
	if (e == SQLITE_CORRUPT || e == SQLITE_NOTADB || e == SQLITE_READONLY ||
	    (e == SQLITE_ERROR && (!strcmp(sqlite3_errmsg(c->db), "integer overflow") ||
				   !strcmp(sqlite3_errmsg(c->db), "JSON cannot hold BLOB values") ||
				   !strcmp(sqlite3_errmsg(c->db), "malformed JSON"))))
		return TK_EFORMAT;
	return e == SQLITE_NOMEM ? TK_ENOMEM : TK_EINTERNAL;
}

int tka_exec(struct tka_ctx *c, const char *what, const char *sql)
{
	char *msg = NULL;
	if (sqlite3_exec(c->db, sql, NULL, NULL, &msg) != SQLITE_OK) {
		int rc = tka_fail(c, tka_sql_status(c), "%s: %s", what, msg ? msg : "SQLite error");
		sqlite3_free(msg);
		return rc;
	}
	return TK_OK;
}

int tka_prepare(struct tka_ctx *c, const char *sql, sqlite3_stmt **st)
{
	if (sqlite3_prepare_v2(c->db, sql, -1, st, NULL) != SQLITE_OK)
		return tka_fail(c, TK_EINTERNAL, "cannot prepare '%.80s...': %s", sql,
				sqlite3_errmsg(c->db));
	return TK_OK;
}

int64_t tka_col_or_none(sqlite3_stmt *st, int i)
{
	return sqlite3_column_type(st, i) == SQLITE_NULL ? TK_NONE : sqlite3_column_int64(st, i);
}

/*
 * The analyses, in order. cross_rank: it compares ranks, so it runs again on a job summary
 * (tracekit merge --summary), whose other tables are the ranks' own, copied; tables: the tables
 * it writes, which a summary's analysis drops and creates again (space-separated). worker: the
 * tables of an analysis that reads store tables only (no state of the pass, no analysis table),
 * which jobs > 1 computes on a worker thread (analysis_jobs.c), from the start of the pass.
 */
enum { PART = 1, END = 2 }; /* a split analysis (partition.c) runs it per part, at the end */
static const struct {
	const char *name;
	int (*run)(struct tka_ctx *c);
	int cross_rank;
	const char *tables;
	const char *worker;
	int split;
} analyses[] = {
    {"device time", tka_device_time, 0, NULL, NULL, PART},
    {"idle gaps", tka_gaps, 0, NULL, NULL, PART},
    {"steps", tka_steps, 0, NULL, NULL, PART},
    {"step ops", tka_step_ops, 0, NULL, NULL, PART},
    {"communication", tka_comm, 1, "analysis_comm analysis_comm_ranks analysis_clock_offsets", NULL,
     END},
    /* load balance across ranks: after device time, steps and comm, whose tables it reads */
    {"load balance", tka_balance, 1,
     "analysis_balance_ranks analysis_balance analysis_balance_slowest", NULL, END},
    {"op profile", tka_op_profile, 0, NULL, NULL, PART},
    {"gpu time per op", tka_op_gpu_time, 0, NULL, NULL, PART},
    {"categories", tka_categories, 0, NULL, NULL, PART},
    /* after gpu time per op: its per-call figures */
    {"op performance model", tka_op_perf, 0, NULL, NULL, PART},
    /* after the model and the peaks; before kpi */
    {"roofline", tka_roofline, 0, NULL, NULL, PART | END},
    {"kernel stats", tka_kernel_stats, 0, NULL, NULL, PART | END},
    /* memory_records, events, tracks, strings */
    {"memory", tka_memory, 0, NULL,
     "analysis_memory analysis_memory_timeline analysis_memory_live_at_peak "
     "analysis_memory_histogram",
     END},
    {"kpi", tka_kpi, 0, NULL, NULL, PART | END},
    {"launch stats", tka_launch_stats, 0, NULL, NULL, PART},
    {"queue length", tka_queue_length, 0, NULL, NULL, PART},
    {"findings", tka_findings, 0, NULL, NULL, END},
};
#define N_ANALYSES (sizeof(analyses) / sizeof(analyses[0]))

int tka_table_sql(struct tka_ctx *c, const char *name, size_t len, const char **sql, size_t *n)
{
	char head[96];
	if (len + 20 >= sizeof(head))
		return tka_fail(c, TK_EINTERNAL, "table name too long");
	snprintf(head, sizeof(head), "\nCREATE TABLE %.*s (", (int)len, name);
	const char *a = strstr(tka_analysis_sql, head), *b = a ? strstr(a, "\n);") : NULL;
	if (!b)
		return tka_fail(c, TK_EINTERNAL, "no table %.*s in analysis.sql", (int)len, name);
	*sql = a;
	*n = (size_t)(b + 3 - a);
	return TK_OK;
}

/* Drop the table @name and create it again from schemas/analysis.sql (its CREATE TABLE). */
static int recreate_table(struct tka_ctx *c, const char *name, size_t len)
{
	char sql[160];
	const char *a = NULL;
	size_t n = 0;
	int rc = tka_table_sql(c, name, len, &a, &n);
	if (rc != TK_OK)
		return rc;
	snprintf(sql, sizeof(sql), "DROP TABLE IF EXISTS %.*s", (int)len, name);
	rc = tka_exec(c, "dropping a cross-rank table", sql);
	char *create = rc == TK_OK ? sqlite3_mprintf("%.*s", (int)n, a) : NULL;
	if (rc == TK_OK && !create)
		rc = tka_fail(c, TK_ENOMEM, "out of memory");
	if (rc == TK_OK)
		rc = tka_exec(c, "creating a cross-rank table", create);
	sqlite3_free(create);
	return rc;
}

/* A job summary: the cross-rank tables made again, on windows from the copied tables. */
static int run_summary(struct tka_ctx *c, const char **step)
{
	int rc = TK_OK;
	for (size_t i = 0; i < N_ANALYSES && rc == TK_OK; i++) {
		for (const char *t = analyses[i].tables; rc == TK_OK && t && *t;) {
			size_t len = strcspn(t, " ");
			rc = recreate_table(c, t, len);
			t += len + (t[len] == ' ');
		}
	}
	if (rc == TK_OK && (rc = tka_pass_run(c)) == TK_OK)
		rc = tka_summary_windows(c);
	for (size_t i = 0; i < N_ANALYSES && rc == TK_OK; i++) {
		if (!analyses[i].cross_rank)
			continue;
		*step = analyses[i].name;
		rc = analyses[i].run(c);
	}
	/* the findings that compare ranks, over the job's tables; the others are the ranks' own */
	if (rc == TK_OK) {
		*step = "cross-rank findings";
		rc = tka_findings_cross_rank(c);
	}
	return rc;
}

/*
 * No page of the open transaction written to the file until release_pages() (the dropped
 * tables' pages freed as they are). SQLite's own spill threshold is 1 page ("spill a dirty page
 * whenever the cache is short of room"); PRAGMA cache_spill reads back the cache's size
 * instead, and setting that value back would keep up to a cache's worth of dirty pages pinned,
 * leaving no room for the clean ones: every page read after the pass would be read from the
 * file again (5 M-event store: 12 times the reads, +0.5 s of system time). So it is set back to 1.
 */
static int hold_pages(struct tka_ctx *c)
{
	return tka_exec(c, "cannot start the analysis", "PRAGMA cache_spill = 2147483647");
}

static int release_pages(struct tka_ctx *c)
{
	return tka_exec(c, "after reading the events", "PRAGMA cache_spill = 1");
}

/* ---- a job's store, part by part (partition.c) ---- */

/*
 * Rows of @table in the order of @key (SQL over its columns), each group of equal keys in the
 * order the parts wrote it: the order one pass over the whole store writes them in.
 */
static int reorder(struct tka_ctx *c, const char *table, const char *key)
{
	char *sql = sqlite3_mprintf(
	    "CREATE TEMP TABLE _tk_reorder AS SELECT * FROM %s ORDER BY %s, rowid; "
	    "DELETE FROM %s; INSERT INTO %s SELECT * FROM temp._tk_reorder ORDER BY rowid; "
	    "DROP TABLE temp._tk_reorder;",
	    table, key, table, table);
	if (!sql)
		return tka_fail(c, TK_ENOMEM, "out of memory");
	int rc = tka_exec(c, table, sql);
	sqlite3_free(sql);
	return rc;
}

/* The tables whose rows of one part are not together in one pass's order. */
static int reorder_tables(struct tka_ctx *c)
{
	int rc = reorder(c, "analysis_op_profile",
			 "CASE level WHEN 'hlo_op' THEN 1 WHEN 'idle' THEN 2 ELSE 0 END, "
			 "device_id IS NULL, device_id, process_id");
	if (rc == TK_OK)
		rc = reorder(c, "analysis_op_perf", "level = 'hlo_op', device_id");
	if (rc == TK_OK)
		rc = reorder(c, "analysis_op_perf_unmodelled", "level = 'hlo_op', device_id");
	if (rc == TK_OK)
		rc = reorder(c, "analysis_op_perf_summary", "level = 'hlo_op', device_id");
	/* GPU time per op: by the group each row's name was met in (op_gpu_time.c, merge) */
	if (rc == TK_OK)
		rc = reorder(c, "analysis_op_gpu_time",
			     "(SELECT o.grp FROM temp._tk_split_order o WHERE o.rid = "
			     "analysis_op_gpu_time.rowid)");
	if (rc == TK_OK)
		rc = tka_exec(c, "the job's tables", "DROP TABLE temp._tk_split_order");
	return rc;
}

/* tk_part(i) in SQL: the ranges of the part analysed (analyze_internal.h, TKA_SQL_EV_LO). */
static void part_fn(sqlite3_context *cx, int argc, sqlite3_value **argv)
{
	const struct tka_ctx *c = sqlite3_user_data(cx);
	const struct tka_part *p = c->part;
	int i = argc == 1 ? sqlite3_value_int(argv[0]) : -1;
	int64_t v = i == 0   ? (p ? p->ev_lo : INT64_MIN)
		    : i == 1 ? (p ? p->ev_hi : INT64_MAX)
		    : i == 2 ? (p ? p->dev_lo : INT64_MIN)
			     : (p ? p->dev_hi : INT64_MAX);
	sqlite3_result_int64(cx, v);
}

/* The analyses of each part in turn, then those over every part. */
static int run_split(struct tka_ctx *c, const struct tka_parts *ps, const char **step)
{
	int rc = TK_OK;
	for (size_t k = 0; k < ps->n && rc == TK_OK; k++) {
		c->part = &ps->v[k];
		*step = NULL; /* reading the events */
		if ((rc = tka_pass_run(c)) != TK_OK)
			break;
		for (size_t i = 0; i < N_ANALYSES && rc == TK_OK; i++) {
			if (!(analyses[i].split & PART))
				continue;
			*step = analyses[i].name;
			rc = analyses[i].run(c);
		}
		if (rc == TK_OK)
			rc = tka_split_keep(c);
		if (rc == TK_OK)
			rc = tka_op_gpu_keep(c);
		tka_pass_next_part(c);
	}
	if (rc != TK_OK)
		return rc;
	c->part = NULL;
	c->split_end = 1;
	tka_split_timeline(c);
	*step = "the job's tables";
	if ((rc = reorder_tables(c)) != TK_OK)
		return rc;
	for (size_t i = 0; i < N_ANALYSES && rc == TK_OK; i++) {
		if (!(analyses[i].split & END))
			continue;
		*step = analyses[i].name;
		rc = analyses[i].run(c);
	}
	return rc;
}

/*
 * Analyse the store part by part when it splits (partition.c): *@done 1 when it did (rc the
 * outcome), 0 when the whole store is to be analysed in one pass (nothing written).
 */
static int try_split(struct tka_ctx *c, const char **step, int *done)
{
	struct tka_parts ps;
	sqlite3_stmt *q = NULL;
	int rc;
	*done = 0;
	*step = "rank by rank";
	if (c->opt->one_pass || (rc = tka_parts_find(c, &ps)) != TK_OK)
		return c->opt->one_pass ? TK_OK : rc;
	if (ps.n < 2)
		return TK_OK;
	if (!(c->split = tka_split_new())) {
		rc = tka_fail(c, TK_ENOMEM, "out of memory");
		goto out;
	}
	if ((rc = tka_prepare(c, "SELECT EXISTS (SELECT 1 FROM flows WHERE kind = 'launch')",
			      &q)) != TK_OK)
		goto out;
	c->split->launch_flows = sqlite3_step(q) == SQLITE_ROW && sqlite3_column_int(q, 0);
	sqlite3_finalize(q); /* no read left open: the analyses drop their temp tables */
	q = NULL;
	if ((rc = tka_exec(c, "cannot start the analysis",
			   "SAVEPOINT tk_split; CREATE TEMP TABLE _tk_split_order (rid INTEGER "
			   "PRIMARY KEY, grp INTEGER)")) != TK_OK)
		goto out;
	/* pages written as they spill from here: no reader beside this connection after it */
	c->no_readers = 1;
	if ((rc = tka_exec(c, "cannot start the analysis", "PRAGMA cache_spill = 1")) != TK_OK)
		goto out;
	rc = run_split(c, &ps, step);
	if (rc == TKA_NOT_SPLIT) { /* an event or flow outside its part: one pass after all */
		tka_pass_free(c);
		c->part = NULL;
		c->split_end = 0;
		tka_split_free(c->split);
		c->split = NULL;
		*step = "";
		rc = tka_exec(c, "cannot start the analysis",
			      "ROLLBACK TO tk_split; RELEASE tk_split");
		goto out;
	}
	*done = 1;
	c->parts = ps.n;
	if (rc == TK_OK)
		rc = tka_exec(c, "cannot start the analysis", "RELEASE tk_split");
out:
	sqlite3_finalize(q);
	tka_parts_free(&ps);
	return rc;
}

/* Start the analyses that run on workers (job[i] for analysis i); *n: how many. Whatever the
 * store's size, as the per-item analyses' threads (device_jobs.c): on a small one
 * (df_index_resolver, 123 k events) they still save 0.015 s (memory) and 0.01 s (per item). */
static int start_workers(struct tka_ctx *c, struct tka_ajob **job, size_t *n, const char **step)
{
	int rc = TK_OK;
	for (size_t i = 0; rc == TK_OK && i < N_ANALYSES; i++) {
		if (!analyses[i].worker)
			continue;
		*step = analyses[i].name;
		if ((rc = tka_ajob_start(c, analyses[i].run, analyses[i].worker, &job[i])) == TK_OK)
			++*n;
	}
	return rc;
}

int tk_analyze(const char *path, const struct tk_analyze_options *o, tk_error *err)
{
	struct tk_analyze_options defaults;
	char msg[1024] = ""; /* the analyses' message: the root cause */
	enum { IN_BEGIN = 1, IN_TABLES, IN_PEAKS, IN_EVENTS, IN_ANALYSIS } where = 0; /* context */
	const char *step = "";
	struct tka_ctx c = {.opt = o, .err = msg, .errlen = sizeof(msg)};
	struct tka_ajob *job[N_ANALYSES] = {NULL}; /* the analyses on workers (jobs > 1) */
	size_t running = 0;			   /* workers started */
	tk_store *s = NULL;
	int rc, in_txn = 0;
	tk_error_clear(err);
	if (!o) {
		tk_analyze_options_init(&defaults);
		c.opt = &defaults;
	}
	c.path = path;
	c.jobs = c.opt->jobs > 0 ? c.opt->jobs : tku_cpu_count();
	c.jobs_auto = c.opt->jobs <= 0;
	/* Checked to be a tracekit store of a supported version, then opened read-write. */
	rc = tk_store_open_mode(path, TK_STORE_READ_WRITE, &s);
	if (rc != TK_OK) {
		tk_error_copy(err, tk_store_error(s)); /* the store's causes, as they are */
		if (!tk_error_cause_count(err))
			tka_fail(&c, rc, "%s", tk_store_errmsg(s));
		goto out;
	}
	c.db = tk_store_sqlite(s);
	rc = tka_exec(&c, "cannot start the analysis", "BEGIN IMMEDIATE");
	if (rc != TK_OK) {
		rc = tka_fail(&c, TK_EIO, "%s", sqlite3_errmsg(c.db));
		where = IN_BEGIN;
		goto out;
	}
	in_txn = 1;
	char flag[8];
	if (tk_store_meta_text(s, "job_summary", flag, sizeof(flag)) == TK_OK) {
		where = IN_ANALYSIS;
		step = "job summary";
		c.jobs = 1; /* a summary's few events: read here, beside nothing */
		if ((rc = run_summary(&c, &step)) != TK_OK)
			goto out;
		goto version;
	}
	/* The previous analysis's tables are dropped without zeroing their pages (Debian's SQLite
	 * turns secure_delete on: a re-analysis would journal and rewrite every page of them, and
	 * what they held is derived from the store, nothing to erase); whatever --jobs, so the
	 * file comes out the same. The event readers (jobs > 1) read the store on their own
	 * connections beside this transaction's RESERVED lock, which a page written to the file
	 * before the commit would make EXCLUSIVE: until the pass is over, changed pages stay in
	 * memory (no spill). */
	if ((rc = tka_exec(&c, "cannot start the analysis", "PRAGMA secure_delete = OFF")) !=
		TK_OK ||
	    (c.jobs > 1 && (rc = hold_pages(&c)) != TK_OK)) {
		where = IN_TABLES;
		goto out;
	}
	/* Every analysis table, created once from schemas/analysis.sql: the analyses only insert. */
	if (sqlite3_exec(c.db, TK_SQL_ANALYSIS_DROP, NULL, NULL, NULL) != SQLITE_OK ||
	    sqlite3_exec(c.db, tka_analysis_sql, NULL, NULL, NULL) != SQLITE_OK) {
		rc = tka_fail(&c, tka_sql_status(&c), "%s", sqlite3_errmsg(c.db));
		where = IN_TABLES;
		goto out;
	}
	/* The part analysed (partition.c), for the analyses' SQL: everything unless split. */
	if (sqlite3_create_function(c.db, "tk_part", 1, SQLITE_UTF8, &c, part_fn, NULL, NULL) !=
	    SQLITE_OK) {
		rc = tka_fail(&c, TK_ENOMEM, "%s", sqlite3_errmsg(c.db));
		where = IN_TABLES;
		goto out;
	}
	/* The device peaks first: a bad device file fails before the events are read, and every
	 * analysis can read the peaks. */
	if ((rc = tka_peaks(&c)) != TK_OK) {
		where = IN_PEAKS;
		goto out;
	}
	/* The analyses of store tables only start on their workers: they read beside this
	 * transaction as the event readers do, so pages stay held until they are done. */
	int split = 0;
	if ((rc = try_split(&c, &step, &split)) != TK_OK || split) {
		if (rc != TK_OK) {
			where = step ? IN_ANALYSIS : IN_EVENTS; /* NULL: a rank's events */
			goto out;
		}
		goto version;
	}
	if (c.jobs > 1 && !c.no_readers &&
	    (rc = start_workers(&c, job, &running, &step)) != TK_OK) {
		where = IN_ANALYSIS;
		goto out;
	}
	/* Every event once, for the timeline, the op profile, kernel stats and the KPIs. */
	rc = tka_pass_run(&c);
	for (size_t i = 0; rc == TK_OK && i < N_ANALYSES; i++)
		tka_ajob_wait(job[i]);
	if (rc == TK_OK && c.jobs > 1 && !c.no_readers)
		rc = release_pages(&c);
	if (rc != TK_OK) {
		where = IN_EVENTS;
		goto out;
	}
	for (size_t i = 0; i < N_ANALYSES; i++) {
		if (job[i]) /* its rows copied here, or its failure, as one thread gives them */
			rc = tka_ajob_finish(&c, job[i]);
		else
			rc = analyses[i].run(&c);
		if (rc != TK_OK) {
			step = analyses[i].name;
			where = IN_ANALYSIS;
			goto out;
		}
	}
version:;
	char version_sql[256];
	/* analysis_parts: the sources analysed one at a time; absent after one pass */
	if (c.parts > 1)
		snprintf(
		    version_sql, sizeof(version_sql),
		    "INSERT OR REPLACE INTO meta (key, value) VALUES ('analysis_version', %d), "
		    "('analysis_parts', %zu)",
		    TK_ANALYSIS_VERSION, c.parts);
	else
		snprintf(
		    version_sql, sizeof(version_sql),
		    "INSERT OR REPLACE INTO meta (key, value) VALUES ('analysis_version', %d); "
		    "DELETE FROM meta WHERE key = 'analysis_parts'",
		    TK_ANALYSIS_VERSION);
	if ((rc = tka_exec(&c, "recording the analysis version", version_sql)) != TK_OK)
		goto out;
	rc = tka_exec(&c, "cannot commit the analysis", "COMMIT");
	if (rc == TK_OK)
		in_txn = 0;
out:
	if (rc != TK_OK && !tk_error_cause_count(err)) {
		tk_error_push_from(err,
				   where == IN_BEGIN || where == IN_TABLES ? "sqlite" : "analyze",
				   rc, "%s", msg);
		if (where == IN_TABLES)
			tk_error_push_from(err, "analyze", rc,
					   "cannot create the analysis tables of '%s'", path);
		else if (where == IN_BEGIN)
			tk_error_push_from(err, "analyze", rc, "cannot write to store '%s'", path);
		else if (where == IN_PEAKS)
			tk_error_push_from(err, "analyze", rc, "device peaks of '%s'", path);
		else if (where == IN_EVENTS)
			tk_error_push_from(err, "analyze", rc, "reading the events of '%s' failed",
					   path);
		else if (where == IN_ANALYSIS)
			tk_error_push_from(err, "analyze", rc, "%s analysis of '%s' failed", step,
					   path);
	}
	for (size_t i = 0; i < N_ANALYSES; i++)
		tka_ajob_free(job[i]);
	if (in_txn)
		sqlite3_exec(c.db, "ROLLBACK", NULL, NULL, NULL);
	tka_pass_free(&c); /* and the timeline */
	tka_split_free(c.split);
	tk_store_close(s);
	return rc;
}

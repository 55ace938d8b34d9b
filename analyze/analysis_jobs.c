/*
 * An analysis computed on a worker thread (tk_analyze_options.jobs > 1): one whose inputs are
 * store tables only (not the pass's in-memory state, not an analysis table of the same run).
 * The worker opens its own read-only connection (as the event readers do, event_jobs.c: the
 * analysis transaction holds RESERVED and writes no page to the file until the workers are
 * done), creates TEMP tables of the analysis's tables' shapes (schemas/analysis.sql; SQLite
 * resolves an unqualified name to temp first), and runs the analysis function unchanged there,
 * beside the main thread's pass and analyses. At the analysis's place in the order, the main
 * thread takes its result: the worker's status and message as they are, or its rows copied into
 * the main connection's tables in rowid order, so the store is the one --jobs 1 writes. The
 * worker ends its read transaction once done (its TEMP tables stay): until then the analysis
 * transaction may not write a page to the file, and pages held long leave no room in its cache
 * for the clean ones (analysis.c, hold_pages), so tk_analyze waits for it after the pass.
 * Memory: the worker's output rows (one analysis's tables) and a connection's page cache.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tracekit/store.h>

#include "analyze_internal.h"

#define TKA_AJOB_MAX_COLS 128 /* columns of an analysis table, at most */

struct tka_ajob {
	int (*run)(struct tka_ctx *c);
	const char *tables; /* space-separated */
	const char *path;
	const struct tk_analyze_options *opt;
	pthread_t th;
	int started;
	pthread_mutex_t mu; /* guards db and stop, for the interrupt */
	int stop;
	tk_store *s;
	sqlite3 *db; /* set once open; closed by tka_ajob_free() after the join */
	int rc;
	char msg[1024];
};

/* CREATE TEMP TABLE for each of the job's tables, from schemas/analysis.sql. */
static int create_temp(struct tka_ctx *c, const char *tables)
{
	int rc = TK_OK;
	for (const char *t = tables; rc == TK_OK && *t;) {
		size_t len = strcspn(t, " ");
		const char *a = NULL;
		size_t n = 0;
		if ((rc = tka_table_sql(c, t, len, &a, &n)) != TK_OK)
			break;
		/* a: "\nCREATE TABLE name (...\n);" */
		char *sql = sqlite3_mprintf("CREATE TEMP TABLE %.*s", (int)(n - 14), a + 14);
		rc = sql ? tka_exec(c, "creating a worker's table", sql)
			 : tka_fail(c, TK_ENOMEM, "out of memory");
		sqlite3_free(sql);
		t += len + (t[len] == ' ');
	}
	return rc;
}

static void *job_run(void *arg)
{
	struct tka_ajob *j = arg;
	struct tka_ctx c = {
	    .opt = j->opt, .path = j->path, .jobs = 1, .err = j->msg, .errlen = sizeof(j->msg)};
	tk_store *s = NULL;
	int rc = tk_store_open_mode(j->path, TK_STORE_STREAM, &s);
	pthread_mutex_lock(&j->mu);
	j->s = s;
	if (rc == TK_OK)
		j->db = tk_store_sqlite(s);
	if (rc == TK_OK && j->stop)
		rc = TK_EINTERNAL;
	pthread_mutex_unlock(&j->mu);
	if (rc != TK_OK) {
		snprintf(j->msg, sizeof(j->msg), "%s", tk_store_errmsg(s));
		goto out;
	}
	c.db = j->db;
	/* the connection is read-only (the store cannot change); its TEMP tables are writable */
	if ((rc = tka_exec(&c, "starting a worker", "PRAGMA query_only = 0; BEGIN")) == TK_OK &&
	    (rc = create_temp(&c, j->tables)) == TK_OK && (rc = j->run(&c)) == TK_OK)
		rc = tka_exec(&c, "ending a worker's reading", "COMMIT"); /* TEMP rows stay */
	if (rc != TK_OK) /* no read lock left behind: its failure is in msg */
		sqlite3_exec(c.db, "ROLLBACK", NULL, NULL, NULL);
out:
	j->rc = rc;
	return NULL;
}

int tka_ajob_start(struct tka_ctx *c, int (*run)(struct tka_ctx *c), const char *tables,
		   struct tka_ajob **out)
{
	struct tka_ajob *j = calloc(1, sizeof(*j));
	*out = j;
	if (!j)
		return tka_fail(c, TK_ENOMEM, "out of memory");
	pthread_mutex_init(&j->mu, NULL);
	j->run = run;
	j->tables = tables;
	j->path = c->path;
	j->opt = c->opt;
	if (pthread_create(&j->th, NULL, job_run, j))
		return tka_fail(c, TK_ENOMEM, "cannot start a thread for an analysis");
	j->started = 1;
	return TK_OK;
}

/* Copy the worker's table @t (@len bytes of the name) into the main connection's, in order. */
static int copy_table(struct tka_ctx *c, struct tka_ajob *j, const char *t, size_t len)
{
	sqlite3_stmt *q = NULL, *ins = NULL;
	char *sql = sqlite3_mprintf("SELECT * FROM temp.%.*s ORDER BY rowid", (int)len, t);
	int rc = TK_OK, step = SQLITE_DONE;
	if (!sql || sqlite3_prepare_v2(j->db, sql, -1, &q, NULL) != SQLITE_OK) {
		rc = tka_fail(c, sql ? TK_EINTERNAL : TK_ENOMEM, "reading a worker's %.*s: %s",
			      (int)len, t, sqlite3_errmsg(j->db));
		goto out;
	}
	int n = sqlite3_column_count(q);
	sqlite3_free(sql);
	char marks[2 * TKA_AJOB_MAX_COLS];
	for (int i = 0; i < n && i < TKA_AJOB_MAX_COLS; i++)
		memcpy(marks + 2 * i, ",?", 2);
	sql = sqlite3_mprintf("INSERT INTO main.%.*s VALUES (%.*s)", (int)len, t, 2 * n - 1,
			      marks + 1);
	if (n < 1 || n > TKA_AJOB_MAX_COLS)
		rc = tka_fail(c, TK_EINTERNAL, "%.*s: %d columns", (int)len, t, n);
	else if (!sql)
		rc = tka_fail(c, TK_ENOMEM, "out of memory");
	else
		rc = tka_prepare(c, sql, &ins);
	while (rc == TK_OK && (step = sqlite3_step(q)) == SQLITE_ROW) {
		for (int i = 0; i < n; i++)
			sqlite3_bind_value(ins, i + 1, sqlite3_column_value(q, i));
		if (sqlite3_step(ins) != SQLITE_DONE)
			rc = tka_fail(c, tka_sql_status(c), "writing %.*s: %s", (int)len, t,
				      sqlite3_errmsg(c->db));
		sqlite3_reset(ins);
	}
	if (rc == TK_OK && step != SQLITE_DONE)
		rc = tka_fail(c, TK_EINTERNAL, "reading a worker's %.*s: %s", (int)len, t,
			      sqlite3_errmsg(j->db));
out:
	sqlite3_free(sql);
	sqlite3_finalize(q);
	sqlite3_finalize(ins);
	return rc;
}

static void close_store(struct tka_ajob *j)
{
	pthread_mutex_lock(&j->mu);
	tk_store_close(j->s);
	j->s = NULL;
	j->db = NULL;
	pthread_mutex_unlock(&j->mu);
}

void tka_ajob_wait(struct tka_ajob *j)
{
	if (j && j->started) {
		pthread_join(j->th, NULL);
		j->started = 0;
	}
}

int tka_ajob_finish(struct tka_ctx *c, struct tka_ajob *j)
{
	tka_ajob_wait(j);
	if (j->rc != TK_OK) { /* the analysis's own status and message, as one thread gives */
		if (c->err && c->errlen)
			snprintf(c->err, c->errlen, "%s", j->msg);
		return j->rc;
	}
	int rc = TK_OK;
	for (const char *t = j->tables; rc == TK_OK && *t;) {
		size_t len = strcspn(t, " ");
		rc = copy_table(c, j, t, len);
		t += len + (t[len] == ' ');
	}
	close_store(j);
	return rc;
}

void tka_ajob_free(struct tka_ajob *j)
{
	if (!j)
		return;
	pthread_mutex_lock(&j->mu);
	j->stop = 1;
	if (j->db)
		sqlite3_interrupt(j->db);
	pthread_mutex_unlock(&j->mu);
	if (j->started)
		pthread_join(j->th, NULL);
	close_store(j);
	pthread_mutex_destroy(&j->mu);
	free(j);
}

/*
 * Per-item work of the analyses after the pass on c->jobs threads (docs/architecture.md,
 * "Parallel analysis"): an analysis that computes per device (or per host thread) from the
 * pass's in-memory state hands tka_each() one function per item. With one thread the items run
 * here in order and their rows go straight into the write connection's statements, as before.
 * With more, the items run on up to c->jobs threads (this one included), each on a copy of the
 * context with no connection and its own message, recording its rows as typed values; then this
 * thread replays the rows of item 0, 1, ... into the prepared statements, in the order one
 * thread writes them, up to the first item that failed, whose status and message it returns: the
 * store and the failure are those of one thread. Shared state is read-only while items run.
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze_internal.h"

/* A recorded value: a row's start (i: the statement), a bound value, or a row's end. */
enum { V_START, V_END, V_NULL, V_INT, V_REAL, V_TEXT };

struct tka_val {
	int type;
	union {
		int64_t i; /* V_START: statement; V_INT; V_TEXT: offset in text */
		double d;
	} u;
};

/* One item's outcome with jobs > 1. */
struct item {
	struct tka_rows rows;
	int rc;
	char *msg; /* its failure's message (malloc), NULL when none or no memory for it */
};

struct each {
	struct tka_ctx *c;
	const struct tka_writer *w;
	tka_item_fn fn;
	const void *arg;
	struct item *it;
	size_t n, next;
	size_t failed;	    /* the first item known to have failed (n: none): later ones skip */
	pthread_mutex_t mu; /* guards next and failed */
};

static void push(struct tka_rows *r, int type, int64_t i, double d)
{
	if (r->nomem)
		return;
	if (TKU_GROW(r->v, r->cap, r->n + 1, 64) != TK_OK) {
		r->nomem = 1;
		return;
	}
	r->v[r->n].type = type;
	if (type == V_REAL)
		r->v[r->n].u.d = d;
	else
		r->v[r->n].u.i = i;
	r->n++;
}

void tka_row_begin(struct tka_rows *r, int stmt)
{
	if (!r->direct) {
		push(r, V_START, stmt, 0);
		return;
	}
	r->cur = r->w->st[stmt];
	r->what = r->w->what[stmt];
	r->param = 1;
	sqlite3_reset(r->cur);
	sqlite3_clear_bindings(r->cur);
}

void tka_row_null(struct tka_rows *r)
{
	if (r->direct)
		sqlite3_bind_null(r->cur, r->param++);
	else
		push(r, V_NULL, 0, 0);
}

void tka_row_int(struct tka_rows *r, int64_t v)
{
	if (r->direct)
		sqlite3_bind_int64(r->cur, r->param++, v);
	else
		push(r, V_INT, v, 0);
}

void tka_row_double(struct tka_rows *r, double v)
{
	if (r->direct)
		sqlite3_bind_double(r->cur, r->param++, v);
	else
		push(r, V_REAL, 0, v);
}

void tka_row_text(struct tka_rows *r, const char *s)
{
	if (r->direct) {
		sqlite3_bind_text(r->cur, r->param++, s, -1, SQLITE_TRANSIENT);
		return;
	}
	size_t len = strlen(s) + 1;
	if (r->nomem || TKU_GROW(r->text, r->text_cap, r->ntext + len, 256) != TK_OK) {
		r->nomem = 1;
		return;
	}
	memcpy(r->text + r->ntext, s, len);
	push(r, V_TEXT, (int64_t)r->ntext, 0);
	r->ntext += len;
}

/* The failure of statement @st (its message prefix @what) on the write connection. */
static int step_failed(struct tka_ctx *c, const char *what)
{
	return tka_fail(c, tka_sql_status(c), "%s: %s", what, sqlite3_errmsg(c->db));
}

int tka_row_end(struct tka_rows *r)
{
	if (!r->direct) {
		push(r, V_END, 0, 0);
		return r->nomem ? tka_fail(r->c, TK_ENOMEM, "out of memory") : TK_OK;
	}
	if (sqlite3_step(r->cur) != SQLITE_DONE)
		return step_failed(r->c, r->what);
	return TK_OK;
}

/* The recorded rows of @r into @w's statements on @c's connection; a row begun and not ended
 * (its item failed there) is not written. */
static int replay(struct tka_ctx *c, const struct tka_writer *w, const struct tka_rows *r)
{
	sqlite3_stmt *st = NULL;
	const char *what = "";
	int p = 1;
	for (size_t k = 0; k < r->n; k++) {
		const struct tka_val *v = &r->v[k];
		switch (v->type) {
		case V_START:
			st = w->st[v->u.i];
			what = w->what[v->u.i];
			p = 1;
			sqlite3_reset(st);
			sqlite3_clear_bindings(st);
			break;
		case V_END:
			if (sqlite3_step(st) != SQLITE_DONE)
				return step_failed(c, what);
			break;
		case V_NULL:
			sqlite3_bind_null(st, p++);
			break;
		case V_INT:
			sqlite3_bind_int64(st, p++, v->u.i);
			break;
		case V_REAL:
			sqlite3_bind_double(st, p++, v->u.d);
			break;
		default:
			sqlite3_bind_text(st, p++, r->text + v->u.i, -1, SQLITE_STATIC);
			break;
		}
	}
	return TK_OK;
}

/* Take items and run them until none is left (or a failed one precedes what is left). */
static void *work(void *arg)
{
	struct each *e = arg;
	char msg[1024];
	for (;;) {
		pthread_mutex_lock(&e->mu);
		size_t i = e->next < e->failed ? e->next++ : e->n;
		pthread_mutex_unlock(&e->mu);
		if (i >= e->n)
			break;
		struct item *it = &e->it[i];
		struct tka_ctx ic = *e->c; /* its own message; no connection off the main thread */
		ic.db = NULL;
		ic.err = msg;
		ic.errlen = sizeof(msg);
		msg[0] = '\0';
		it->rows = (struct tka_rows){.c = &ic, .w = e->w};
		it->rc = e->fn(&ic, e->arg, i, &it->rows);
		it->rows.c = NULL;
		if (it->rc != TK_OK) {
			it->msg = strdup(msg);
			pthread_mutex_lock(&e->mu);
			if (i < e->failed)
				e->failed = i;
			pthread_mutex_unlock(&e->mu);
		}
	}
	return NULL;
}

int tka_jobs_for(const struct tka_ctx *c, size_t n)
{
	int jobs = c->jobs;
	return n < (size_t)jobs ? (int)n : jobs;
}

int tka_each(struct tka_ctx *c, size_t n, const struct tka_writer *w, tka_item_fn fn,
	     const void *arg)
{
	int rc = TK_OK, jobs = tka_jobs_for(c, n);
	if (jobs <= 1) { /* as one thread always did: in order, each row written as it is made */
		struct tka_rows r = {.c = c, .w = w, .direct = 1};
		for (size_t i = 0; i < n && rc == TK_OK; i++)
			rc = fn(c, arg, i, &r);
		return rc;
	}
	struct each e = {.c = c, .w = w, .fn = fn, .arg = arg, .n = n, .failed = n};
	pthread_t th[TKA_EACH_MAX_THREADS];
	int started = 0;
	if (!(e.it = calloc(n, sizeof(*e.it))))
		return tka_fail(c, TK_ENOMEM, "out of memory");
	pthread_mutex_init(&e.mu, NULL);
	if (jobs > TKA_EACH_MAX_THREADS)
		jobs = TKA_EACH_MAX_THREADS;
	/* a thread that cannot start leaves its items to the others */
	for (int t = 1; t < jobs; t++)
		if (pthread_create(&th[started], NULL, work, &e) == 0)
			started++;
	work(&e);
	for (int t = 0; t < started; t++)
		pthread_join(th[t], NULL);
	pthread_mutex_destroy(&e.mu);
	for (size_t i = 0; i < n && rc == TK_OK; i++) {
		struct item *it = &e.it[i];
		if (w)
			rc = replay(c, w, &it->rows);
		if (rc == TK_OK && it->rc != TK_OK)
			rc = tka_fail(c, it->rc, "%s", it->msg ? it->msg : "out of memory");
	}
	for (size_t i = 0; i < n; i++) {
		free(e.it[i].rows.v);
		free(e.it[i].rows.text);
		free(e.it[i].msg);
	}
	free(e.it);
	return rc;
}

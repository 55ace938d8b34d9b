/*
 * The events of the shared pass (event_pass.c) read through SQL by several threads
 * (tk_analyze_options.jobs), when the pass cannot read them from the file's pages (a
 * write-ahead log beside the store):
 * reading and checking the rows (SQLite's decoding, the op_details and kernel_details merges) is
 * most of the pass, and the users' hooks are cheap. The ids are cut into ranges (at most
 * EVJ_RANGES of them, each of at least EVJ_MIN_SPAN ids); reader k reads ranges k, k + N,
 * k + 2N, ... on its own read-only connection to the store (the analysis' transaction holds a
 * RESERVED lock, beside which SQLite lets other connections read the committed store; the pass
 * reads only store tables, which the transaction does not change) and queues its events in
 * batches; the calling thread takes the ranges in order, so every hook sees the events in id
 * order, exactly as one reader would give them. A reader's failure is queued after its last
 * good event, so the pass fails where one reader would have. Memory: EVJ_DEPTH batches of
 * EVJ_BATCH events per reader, whatever the store's size.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tracekit/store.h>

#include "analyze_internal.h"

/*
 * A range must fit in a reader's queue: while the calling thread takes range k from reader
 * k mod N, the others read ahead only as far as their queues go, so ranges longer than a queue
 * would make the readers take turns instead of reading at once (the first version: 65,536 ids
 * per range, 4 batches queued, and no gain). Ids are dense in a store the importers wrote, so
 * EVJ_SPAN ids are at most EVJ_SPAN events; a range's seek costs three b-tree descents, cheap
 * beside its 2,048 events, and EVJ_RANGES bounds them when ids are sparse.
 */
#define EVJ_BATCH 1024	    /* events per batch */
#define EVJ_DEPTH 8	    /* batches a reader may have queued: 4 ranges of dense ids */
#define EVJ_SPAN 2048	    /* ids per range, at least */
#define EVJ_RANGES 65536    /* ranges, at most (ids may be sparse in a hostile store) */
#define EVJ_MAX_READERS 256 /* a bound on the threads, whatever was asked */
_Static_assert(EVJ_SPAN <= EVJ_DEPTH * EVJ_BATCH / 2, "a range of dense ids fits a queue twice");
/*
 * With jobs the cores (not asked for), a store of fewer event ids than TKA_AUTO_MIN_IDS is read
 * on the calling thread: its reading takes under about 0.1 s on one core, so two readers could
 * save a few hundredths, no more than their connections' opening and checking of the schema and
 * the threads' start cost (df_index_resolver, 123 k events: 0.25 s CPU with and without readers).
 */

struct batch {
	struct tka_ev ev[EVJ_BATCH];
	size_t n;
	int last; /* the last batch of its range */
	int rc;	  /* TK_OK, or the reader's failure after ev[n - 1] (the message in the reader) */
};

struct reader {
	struct tka_evjobs *j;
	pthread_t th;
	size_t index;
	struct batch *ring; /* EVJ_DEPTH batches: count of them from head are queued */
	size_t head, count;
	char msg[1024];
};

struct tka_evjobs {
	pthread_mutex_t mu;
	pthread_cond_t cond; /* broadcast whenever a batch is queued or taken, and on stop */
	int stop;
	const char *path;
	const struct tka_pass *pass;
	const struct tk_analyze_options *opt;
	int64_t min;
	uint64_t span;
	size_t nranges, nreaders, started;
	struct reader *r;
	/* the calling thread's side */
	size_t range;	   /* the range being handed out */
	struct batch *cur; /* its batch being handed out (queued until done), or NULL */
	size_t pos;
};

/* Range @k as [*lo, *hi]; the last one ends at INT64_MAX (the ids past max(id) read then). */
static void range_of(const struct tka_evjobs *j, size_t k, int64_t *lo, int64_t *hi)
{
	uint64_t a = (uint64_t)j->min + (uint64_t)k * j->span;
	*lo = (int64_t)a;
	*hi = k + 1 == j->nranges ? INT64_MAX : (int64_t)(a + j->span - 1);
}

/* A free batch of @r to fill, NULL when stopped. */
static struct batch *batch_take(struct reader *r)
{
	struct tka_evjobs *j = r->j;
	struct batch *b = NULL;
	pthread_mutex_lock(&j->mu);
	while (!j->stop && r->count == EVJ_DEPTH)
		pthread_cond_wait(&j->cond, &j->mu);
	if (!j->stop)
		b = &r->ring[(r->head + r->count) % EVJ_DEPTH];
	pthread_mutex_unlock(&j->mu);
	return b;
}

static void batch_queue(struct reader *r)
{
	pthread_mutex_lock(&r->j->mu);
	r->count++;
	pthread_cond_broadcast(&r->j->cond);
	pthread_mutex_unlock(&r->j->mu);
}

/* Queue a failure @rc (message in r->msg) as the next batch, empty. */
static void fail_queue(struct reader *r, int rc)
{
	struct batch *b = batch_take(r);
	if (!b)
		return;
	b->n = 0;
	b->last = 1;
	b->rc = rc;
	batch_queue(r);
}

static void *reader_run(void *arg)
{
	struct reader *r = arg;
	struct tka_evjobs *j = r->j;
	struct tka_ctx c = {.opt = j->opt, .err = r->msg, .errlen = sizeof(r->msg)};
	struct tka_evcur cur = {0};
	tk_store *s = NULL;
	int rc = tk_store_open_mode(j->path, TK_STORE_STREAM, &s);
	if (rc != TK_OK) {
		snprintf(r->msg, sizeof(r->msg), "%s", tk_store_errmsg(s));
		fail_queue(r, rc);
		goto out;
	}
	c.db = tk_store_sqlite(s);
	/* one read transaction for every range: the lock taken and the cache checked once */
	if ((rc = tka_exec(&c, "reading events", "BEGIN")) != TK_OK ||
	    (rc = tka_evcur_open(&c, j->pass, &cur)) != TK_OK) {
		fail_queue(r, rc);
		goto out;
	}
	for (size_t k = r->index; k < j->nranges; k += j->nreaders) {
		int64_t lo, hi;
		int got = 1;
		range_of(j, k, &lo, &hi);
		tka_evcur_seek(&c, &cur, lo, hi);
		while (got) {
			struct batch *b = batch_take(r);
			if (!b)
				goto out; /* stopped */
			b->n = 0;
			b->rc = TK_OK;
			while (b->n < EVJ_BATCH &&
			       (b->rc = tka_evcur_next(&c, &cur, &b->ev[b->n], &got)) == TK_OK &&
			       got)
				b->n++;
			b->last = !got || b->rc != TK_OK;
			batch_queue(r);
			if (b->rc != TK_OK)
				goto out;
		}
	}
out:
	tka_evcur_close(&cur);
	tk_store_close(s);
	return NULL;
}

int tka_evjobs_start(struct tka_ctx *c, const struct tka_pass *p, struct tka_evjobs **out)
{
	struct tka_evjobs *j = calloc(1, sizeof(*j));
	sqlite3_stmt *st = NULL;
	int rc;
	*out = j;
	if (!j)
		return tka_fail(c, TK_ENOMEM, "out of memory");
	pthread_mutex_init(&j->mu, NULL);
	pthread_cond_init(&j->cond, NULL);
	j->path = c->path;
	j->pass = p;
	j->opt = c->opt;
	if ((rc = tka_prepare(c, "SELECT min(id), max(id) FROM events", &st)) != TK_OK)
		return rc;
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) == SQLITE_INTEGER) {
		int64_t min = sqlite3_column_int64(st, 0), max = sqlite3_column_int64(st, 1);
		uint64_t width = (uint64_t)max - (uint64_t)min; /* ids in the store: width + 1 */
		j->min = min;
		j->span = width / EVJ_RANGES + 1;
		if (j->span < EVJ_SPAN)
			j->span = EVJ_SPAN;
		j->nranges = (size_t)(width / j->span) + 1;
	}
	sqlite3_finalize(st);
	if (c->jobs_auto && (!j->nranges || (j->nranges - 1) * j->span < TKA_AUTO_MIN_IDS)) {
		tka_evjobs_stop(j);
		*out = NULL;
		return TK_OK;
	}
	j->nreaders = (size_t)c->jobs < j->nranges ? (size_t)c->jobs : j->nranges;
	if (j->nreaders > EVJ_MAX_READERS)
		j->nreaders = EVJ_MAX_READERS;
	if (j->nreaders && !(j->r = calloc(j->nreaders, sizeof(*j->r))))
		return tka_fail(c, TK_ENOMEM, "out of memory");
	for (size_t i = 0; i < j->nreaders; i++) {
		struct reader *r = &j->r[i];
		r->j = j;
		r->index = i;
		if (!(r->ring = malloc(EVJ_DEPTH * sizeof(*r->ring))))
			return tka_fail(c, TK_ENOMEM, "out of memory");
	}
	for (; j->started < j->nreaders; j->started++)
		if (pthread_create(&j->r[j->started].th, NULL, reader_run, &j->r[j->started]))
			return tka_fail(c, TK_ENOMEM, "cannot start a thread to read the events");
	return TK_OK;
}

int tka_evjobs_next(struct tka_ctx *c, struct tka_evjobs *j, const struct tka_ev **e)
{
	for (;;) {
		struct batch *b = j->cur;
		if (b && j->pos < b->n) {
			*e = &b->ev[j->pos++];
			return TK_OK;
		}
		if (b) { /* handed out: give it back */
			struct reader *r = &j->r[j->range % j->nreaders];
			if (b->rc != TK_OK) {
				*e = NULL;
				return tka_fail(c, b->rc, "%s", r->msg);
			}
			int last = b->last; /* the reader may refill b once it is given back */
			pthread_mutex_lock(&j->mu);
			r->head = (r->head + 1) % EVJ_DEPTH;
			r->count--;
			pthread_cond_broadcast(&j->cond);
			pthread_mutex_unlock(&j->mu);
			j->cur = NULL;
			j->range += last;
		}
		if (j->range >= j->nranges) {
			*e = NULL;
			return TK_OK;
		}
		struct reader *r = &j->r[j->range % j->nreaders];
		pthread_mutex_lock(&j->mu);
		while (r->count == 0)
			pthread_cond_wait(&j->cond, &j->mu);
		j->cur = &r->ring[r->head];
		pthread_mutex_unlock(&j->mu);
		j->pos = 0;
	}
}

void tka_evjobs_stop(struct tka_evjobs *j)
{
	if (!j)
		return;
	pthread_mutex_lock(&j->mu);
	j->stop = 1;
	pthread_cond_broadcast(&j->cond);
	pthread_mutex_unlock(&j->mu);
	for (size_t i = 0; i < j->started; i++)
		pthread_join(j->r[i].th, NULL);
	for (size_t i = 0; j->r && i < j->nreaders; i++)
		free(j->r[i].ring);
	free(j->r);
	pthread_cond_destroy(&j->cond);
	pthread_mutex_destroy(&j->mu);
	free(j);
}

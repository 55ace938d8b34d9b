/*
 * tkw_parallel(): producers on worker threads against recorders (recorder.h), replayed by the
 * calling thread into the real writer in producer order. Each producer in flight has a slot: a
 * queue of recorded chunks the replay takes from the front. Producers are claimed in order, and
 * only while fewer than the number of slots are between claimed and replayed, so the producer the
 * replay waits for has always been claimed, and memory is bounded by slots x TKW_PIPE_BYTES plus
 * the producers' own working sets. One mutex guards the slots; chunks are handed over whole
 * (TKW_CHUNK_BYTES), so it is taken about once per chunk.
 */
#include "parallel.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#include "recorder.h"
#include "writer_internal.h"

struct engine;

struct slot {
	struct engine *e;
	size_t file; /* the producer it holds, SIZE_MAX when free */
	tk_writer *rec;
	struct tkw_chunk *head, *tail;
	size_t bytes; /* recorded and not yet replayed */
	int done;     /* the producer has returned: rec is final */
	int rc;	      /* TK_OK, or why no recorder could be made */
};

struct engine {
	pthread_mutex_t mu;
	pthread_cond_t to_main, to_workers;
	size_t n, next_claim, next_replay;
	size_t nslots;
	int stop;
	struct slot *slots;
	tkw_produce_fn produce;
	void *ctx;
};

/* The recorders' sink: queue @c on its slot, blocking while the slot holds too much. */
static int sink(void *ctx, struct tkw_chunk *c)
{
	struct slot *s = ctx;
	struct engine *e = s->e;
	pthread_mutex_lock(&e->mu);
	c->next = NULL;
	if (s->tail)
		s->tail->next = c;
	else
		s->head = c;
	s->tail = c;
	s->bytes += c->len;
	pthread_cond_broadcast(&e->to_main);
	while (s->bytes > TKW_PIPE_BYTES && !e->stop)
		pthread_cond_wait(&e->to_workers, &e->mu);
	int stop = e->stop;
	pthread_mutex_unlock(&e->mu);
	return stop ? -1 : 0;
}

static void *worker(void *arg)
{
	struct engine *e = arg;
	pthread_mutex_lock(&e->mu);
	for (;;) {
		while (!e->stop && e->next_claim < e->n &&
		       e->next_claim >= e->next_replay + e->nslots)
			pthread_cond_wait(&e->to_workers, &e->mu);
		if (e->stop || e->next_claim >= e->n)
			break;
		size_t i = e->next_claim++;
		struct slot *s = &e->slots[i % e->nslots];
		s->file = i;
		pthread_mutex_unlock(&e->mu);
		tk_writer *rec = NULL;
		int rc = tkw_rec_create(sink, s, &rec);
		if (rc == TK_OK) {
			e->produce(e->ctx, i, rec, tkw_rec_warn, rec);
			tkw_rec_flush(rec);
		}
		pthread_mutex_lock(&e->mu);
		s->rec = rec;
		s->rc = rc;
		s->done = 1;
		pthread_cond_broadcast(&e->to_main);
	}
	pthread_mutex_unlock(&e->mu);
	return NULL;
}

/* Replay producer @i into @w as its chunks come; returns @w's status. */
static int replay(struct engine *e, size_t i, tk_writer *w, tkw_warn_fn warn, void *warn_ctx)
{
	struct slot *s = &e->slots[i % e->nslots];
	struct tkw_replay r;
	int rc = TK_OK;
	tkw_replay_start(&r, w, warn, warn_ctx);
	for (;;) {
		pthread_mutex_lock(&e->mu);
		while (!(s->file == i && (s->head || s->done)))
			pthread_cond_wait(&e->to_main, &e->mu);
		struct tkw_chunk *c = s->head;
		if (c) {
			if (!(s->head = c->next))
				s->tail = NULL;
			s->bytes -= c->len;
			pthread_cond_broadcast(&e->to_workers);
		}
		pthread_mutex_unlock(&e->mu);
		if (!c)
			break;
		rc = tkw_replay_chunk(&r, w, c);
		free(c);
		if (rc != TK_OK)
			break;
	}
	if (rc == TK_OK && s->rc != TK_OK)
		tkw_fail(w, s->rc, "out of memory");
	rc = tkw_replay_end(&r, w, rc == TK_OK ? s->rec : NULL);
	if (rc != TK_OK)
		return rc; /* the slot stays as it is: the producer may still run */
	pthread_mutex_lock(&e->mu);
	tkw_rec_free(s->rec);
	s->rec = NULL;
	s->file = SIZE_MAX;
	s->done = 0;
	e->next_replay = i + 1;
	pthread_cond_broadcast(&e->to_workers);
	pthread_mutex_unlock(&e->mu);
	return rc;
}

/* The producers one after the other on @w itself. */
static int sequential(tk_writer *w, size_t n, tkw_produce_fn produce, void *ctx, tkw_warn_fn warn,
		      void *warn_ctx)
{
	int rc = tk_writer_status(w);
	for (size_t i = 0; i < n && rc == TK_OK; i++)
		rc = produce(ctx, i, w, warn, warn_ctx);
	return rc;
}

int tkw_parallel(tk_writer *w, size_t n, int jobs, tkw_produce_fn produce, void *ctx,
		 tkw_warn_fn warn, void *warn_ctx)
{
	if (jobs <= 1 || n == 0 || tk_writer_status(w) != TK_OK)
		return sequential(w, n, produce, ctx, warn, warn_ctx);
	struct engine e = {.n = n, .produce = produce, .ctx = ctx};
	e.nslots = (size_t)jobs < n ? (size_t)jobs : n;
	pthread_t *threads = calloc(e.nslots, sizeof(*threads));
	e.slots = calloc(e.nslots, sizeof(*e.slots));
	size_t started = 0;
	int rc = TK_OK;
	if (!threads || !e.slots) {
		free(threads);
		free(e.slots);
		return tkw_fail(w, TK_ENOMEM, "out of memory");
	}
	for (size_t k = 0; k < e.nslots; k++) {
		e.slots[k].e = &e;
		e.slots[k].file = SIZE_MAX;
	}
	pthread_mutex_init(&e.mu, NULL);
	pthread_cond_init(&e.to_main, NULL);
	pthread_cond_init(&e.to_workers, NULL);
	while (started < e.nslots && pthread_create(&threads[started], NULL, worker, &e) == 0)
		started++;
	if (!started)
		rc = sequential(w, n, produce, ctx, warn, warn_ctx);
	for (size_t i = 0; i < n && started && rc == TK_OK; i++)
		rc = replay(&e, i, w, warn, warn_ctx);
	pthread_mutex_lock(&e.mu);
	e.stop = 1;
	pthread_cond_broadcast(&e.to_workers);
	pthread_mutex_unlock(&e.mu);
	for (size_t k = 0; k < started; k++)
		pthread_join(threads[k], NULL);
	for (size_t k = 0; k < e.nslots; k++) {
		tkw_chunks_free(e.slots[k].head);
		tkw_rec_free(e.slots[k].rec);
	}
	pthread_cond_destroy(&e.to_workers);
	pthread_cond_destroy(&e.to_main);
	pthread_mutex_destroy(&e.mu);
	free(threads);
	free(e.slots);
	return rc;
}

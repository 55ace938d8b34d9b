/*
 * Pass 2 of the Chrome/Kineto JSON importer on two threads (tk_import_options.jobs >= 2): a
 * parse-ahead thread reads the file (the same walk, lexer and parsers as one thread) and hands
 * over each event it parsed, and the calling thread maps them into the store in file order, so
 * that parsing the text and building the store overlap. What the mapping thread does is what one
 * thread does: every event in order with its traceEvents index, an element that is no object
 * counted where it came, and a break of the input (bad JSON; a --salvage stop) acted on where the
 * walk met it, after every event before it. The store, the warnings and the failures are those
 * of one thread.
 *
 * The events travel in AH_BATCHES batches of at most AH_EVENTS events or AH_BYTES bytes (an
 * event's args and text, copied out of the parser's buffer), the parse side filling one while
 * the mapping side works through another. Memory: the batches (about AH_BATCHES * AH_BYTES, one
 * event past that at most: CJ_MAX_EVENT_BYTES), a batch's room given back once it held more than
 * AH_KEEP_BYTES.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tracekit/error.h>

#include "chrome_json_internal.h"
#include "util/vec.h"

#define AH_BATCHES 4
#define AH_EVENTS 512
#define AH_BYTES ((size_t)256 << 10)
#define AH_KEEP_BYTES ((size_t)1 << 20)

enum { AH_END_WALK = 1, AH_END_BREAK, AH_END_NOMEM };

#define AH_STOP (-1000) /* the mapping side stopped: the walk ends, nothing more is handed over */

/* One element of the events array: an event (its args and text at offsets in the block), or
 * one that is no object (skip). */
struct ah_item {
	struct cj_event e; /* args and arena filled in when the batch is taken */
	size_t args_off, arena_off;
	int64_t index; /* its place in traceEvents: the walk's n_read when it came */
	int skip;
};

struct ah_batch {
	struct ah_item *v;
	size_t n, cap;
	char *block;
	size_t blen, bcap;
	/* the last batch: how the walk ended (AH_END_*) */
	int end, walk_rc;
	uint64_t line, col;
	int64_t n_read;
	char msg[256];
};

struct cj_ahead {
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct ah_batch b[AH_BATCHES];
	uint64_t pub, rel; /* batches handed over; given back by the mapping side */
	int stop;	   /* the mapping side is done: the parse side stops */
	struct cj_ctx pc;  /* the parse side's context: no writer, no maps */
	struct cj_event pe;
	struct tku_json_lex lx;
};

/* The parse side's batch being filled. */
static struct ah_batch *filling(struct cj_ahead *a)
{
	return &a->b[a->pub % AH_BATCHES];
}

/* Hand the batch over and wait for the next to fill: TK_OK, or AH_STOP. */
static int publish(struct cj_ahead *a)
{
	int rc = TK_OK;
	pthread_mutex_lock(&a->mu);
	a->pub++;
	pthread_cond_broadcast(&a->cv);
	while (!a->stop && a->pub - a->rel >= AH_BATCHES)
		pthread_cond_wait(&a->cv, &a->mu);
	if (a->stop)
		rc = AH_STOP;
	pthread_mutex_unlock(&a->mu);
	if (rc == TK_OK) { /* a batch the mapping side has given back: empty it */
		struct ah_batch *b = filling(a);
		b->n = b->blen = 0;
		b->end = 0;
		if (b->bcap > AH_KEEP_BYTES) {
			free(b->block);
			b->block = NULL;
			b->bcap = 0;
		}
	}
	return rc;
}

static struct ah_item *new_item(struct cj_ahead *a, int64_t index)
{
	struct ah_batch *b = filling(a);
	if (TKU_GROW(b->v, b->cap, b->n + 1, 64) != TK_OK)
		return NULL;
	struct ah_item *it = &b->v[b->n++];
	it->index = index;
	it->skip = 0;
	return it;
}

/* Room for @n more block bytes (8-aligned); the offset, or SIZE_MAX out of memory. */
static size_t take(struct ah_batch *b, size_t n)
{
	size_t at = (b->blen + 7) & ~(size_t)7;
	if (tku_grow((void **)&b->block, &b->bcap, at + (n ? n : 1), 1, 4096) != TK_OK)
		return SIZE_MAX;
	b->blen = at + n;
	return at;
}

/* A full batch goes to the mapping side. */
static int after_add(struct cj_ahead *a)
{
	struct ah_batch *b = filling(a);
	return b->n >= AH_EVENTS || b->blen >= AH_BYTES ? publish(a) : TK_OK;
}

int cj_ahead_put(struct cj_ahead *a, const struct cj_event *e, int64_t index)
{
	struct ah_item *it = new_item(a, index);
	if (!it)
		return cj_ahead_nomem(a);
	struct ah_batch *b = filling(a);
	size_t args = take(b, e->nargs * sizeof(*e->args));
	size_t text = args == SIZE_MAX ? SIZE_MAX : take(b, e->alen);
	if (text == SIZE_MAX) {
		b->n--;
		return cj_ahead_nomem(a);
	}
	if (e->nargs)
		memcpy(b->block + args, e->args, e->nargs * sizeof(*e->args));
	if (e->alen)
		memcpy(b->block + text, e->arena, e->alen);
	it->e = *e;
	it->e.cap_args = e->nargs;
	it->e.acap = e->alen;
	it->args_off = args;
	it->arena_off = text;
	return after_add(a);
}

int cj_ahead_skip(struct cj_ahead *a, int64_t index)
{
	struct ah_item *it = new_item(a, index);
	if (!it)
		return cj_ahead_nomem(a);
	it->skip = 1;
	return after_add(a);
}

/* The walk's end, told in the last batch; a status that ends the walk. */
static int end_walk(struct cj_ahead *a, int how, uint64_t line, uint64_t col, const char *msg,
		    int64_t n_read)
{
	struct ah_batch *b = filling(a);
	if (b->end) /* the first reason stands (a failure while unwinding from it) */
		return CJ_BREAK;
	b->end = how;
	b->line = line;
	b->col = col;
	b->n_read = n_read;
	snprintf(b->msg, sizeof(b->msg), "%s", msg ? msg : "");
	return CJ_BREAK;
}

int cj_ahead_break(struct cj_ahead *a, uint64_t line, uint64_t col, const char *msg, int64_t n_read)
{
	return end_walk(a, AH_END_BREAK, line, col, msg, n_read);
}

int cj_ahead_nomem(struct cj_ahead *a)
{
	return end_walk(a, AH_END_NOMEM, 0, 0, NULL, a->pc.n_read);
}

static void *parse_side(void *arg)
{
	struct cj_ahead *a = arg;
	int rc = cj_walk_events(&a->pc, &a->lx, &a->pe, 2);
	if (rc == AH_STOP)
		return NULL;
	struct ah_batch *b = filling(a);
	if (!b->end) {
		b->end = AH_END_WALK;
		b->walk_rc = rc; /* TK_OK, or CJ_BREAK where pass 1 broke */
		b->n_read = a->pc.n_read;
	}
	publish(a);
	return NULL;
}

/* Map the events of batch @b in order; the walk's status once the last batch is done. */
static int map_batch(struct cj_ctx *c, struct ah_batch *b, int *done)
{
	for (size_t i = 0; i < b->n; i++) {
		struct ah_item *it = &b->v[i];
		if (it->skip) {
			c->n_skipped++;
			continue;
		}
		it->e.args = (struct cj_arg *)(void *)(b->block + it->args_off);
		it->e.arena = b->block + it->arena_off;
		c->n_read = it->index;
		int rc = cj_map_event(c, &it->e);
		if (rc != TK_OK) {
			*done = 1;
			return rc;
		}
	}
	if (!b->end)
		return TK_OK;
	*done = 1;
	c->n_read = b->n_read;
	if (b->end == AH_END_BREAK)
		return cj_break(c, b->line, b->col, b->msg);
	if (b->end == AH_END_NOMEM)
		return tk_writer_fail(c->w, TK_ENOMEM, "out of memory");
	return b->walk_rc;
}

static void ahead_free(struct cj_ahead *a)
{
	for (int i = 0; i < AH_BATCHES; i++) {
		free(a->b[i].v);
		free(a->b[i].block);
	}
	cj_event_free(&a->pe);
	tku_json_lex_close(&a->lx);
	free(a);
}

int cj_ahead_pass(struct cj_ctx *c)
{
	struct cj_ahead *a = calloc(1, sizeof(*a));
	int rc = TK_OK, done = 0;
	if (!a)
		return tk_writer_fail(c->w, TK_ENOMEM, "out of memory");
	if (tku_json_lex_open(&a->lx, c->path) != 0) {
		rc = tk_writer_fail_cause(c->w, TK_EIO, "json", a->lx.msg, "cannot read '%s'",
					  c->path);
		goto out;
	}
	/* what the walk reads of the context: the file, the options, pass 1's break */
	a->pc.path = c->path;
	a->pc.o = c->o;
	a->pc.broke = c->broke;
	a->pc.brk_events = c->brk_events;
	a->pc.bare = c->bare;
	a->pc.ahead = a;
	pthread_mutex_init(&a->mu, NULL);
	pthread_cond_init(&a->cv, NULL);
	if (pthread_create(&a->thread, NULL, parse_side, a) != 0) {
		/* no thread to be had: this one walks and maps, as with jobs 1 */
		rc = cj_walk_events(c, &a->lx, &a->pe, 2);
		goto out;
	}
	while (!done) {
		pthread_mutex_lock(&a->mu);
		while (a->pub == a->rel)
			pthread_cond_wait(&a->cv, &a->mu);
		pthread_mutex_unlock(&a->mu);
		rc = map_batch(c, &a->b[a->rel % AH_BATCHES], &done);
		pthread_mutex_lock(&a->mu);
		a->rel++;
		if (done)
			a->stop = 1;
		pthread_cond_broadcast(&a->cv);
		pthread_mutex_unlock(&a->mu);
	}
	pthread_join(a->thread, NULL);
out:
	if (a->pc.ahead) { /* the lock was made */
		pthread_cond_destroy(&a->cv);
		pthread_mutex_destroy(&a->mu);
	}
	ahead_free(a);
	return rc;
}

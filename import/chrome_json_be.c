/*
 * Chrome/Kineto JSON importer, B/E pairs: 'B'/'E' per (pid, tid), async 'b'/'e' per (pid, cat,
 * id). An open 'B' waits for its 'E' as one allocation of its own size (its parsed fields, args
 * and text), linked to the open event below it on its thread and into one list of all open events
 * in the order they began; a thread with nothing open holds nothing. Memory is bounded: at most
 * CJ_MAX_OPEN open events and CJ_MAX_OPEN_BYTES bytes of them at once (past either, the oldest
 * open event is stored as it would be at the end of the file: duration 0, arg incomplete = 1),
 * and at most CJ_MAX_BE_DEPTH open on one thread (deeper is bad input).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tracekit/error.h>

#include "chrome_json_internal.h"

struct cj_open {
	struct cj_open *below, *above; /* the open events under and over it on its thread */
	struct cj_open *older, *newer; /* all open events, in the order they began */
	int64_t ts_ns;
	uint64_t line, col;
	size_t cost;		     /* bytes: this allocation, and its thread key in the map */
	uint32_t depth, nargs, alen; /* depth: 1 at the bottom of its thread */
	struct cj_val cat, name, pid, tid, bind_id;
	struct cj_arg args[]; /* nargs, then alen bytes of arena text, then the key */
};

static char *open_key(struct cj_open *o)
{
	return (char *)(o->args + o->nargs) + o->alen;
}

/* The event @o holds, as a view into it (valid while @o lives). */
static void open_view(struct cj_open *o, struct cj_event *e)
{
	memset(e, 0, sizeof(*e)); /* every value CJV_NONE */
	e->cat = o->cat;
	e->name = o->name;
	e->pid = o->pid;
	e->tid = o->tid;
	e->bind_id = o->bind_id;
	e->args = o->args;
	e->nargs = e->cap_args = o->nargs;
	e->arena = (char *)(o->args + o->nargs);
	e->alen = e->acap = o->alen;
	e->line = o->line;
	e->col = o->col;
	e->ts_ns = o->ts_ns;
}

/* Take @o out of the list of open events and off its thread (the map entry is the caller's). */
static void unlink_open(struct cj_ctx *c, struct cj_open *o)
{
	if (o->older)
		o->older->newer = o->newer;
	else
		c->open_oldest = o->newer;
	if (o->newer)
		o->newer->older = o->older;
	else
		c->open_newest = o->older;
	if (o->below)
		o->below->above = o->above;
	if (o->above)
		o->above->below = o->below;
	c->n_open--;
	c->open_bytes -= o->cost;
}

/* Store @o with duration 0 and incomplete = 1 (never closed, or closed early by the bound). */
static int emit_incomplete(struct cj_ctx *c, struct cj_open *o)
{
	struct cj_event v;
	int64_t id;
	open_view(o, &v);
	int rc = cj_emit_interval(c, &v, o->ts_ns, 0, NULL, 0, &id);
	if (rc == TK_OK)
		rc = tk_writer_add_arg_int(c->w, id, "incomplete", 1);
	return rc;
}

/* Past the bound: the oldest open event (the bottom of its thread) is stored now. */
static int evict_oldest(struct cj_ctx *c)
{
	struct cj_open *o = c->open_oldest;
	if (!o->above)
		cj_smap_del(&c->open_by_key, open_key(o)); /* its thread has nothing else open */
	unlink_open(c, o);
	c->n_evicted++;
	int rc = emit_incomplete(c, o);
	free(o);
	return rc;
}

/* A new open event for @e, at @ts, over @below (or NULL); NULL when out of memory. */
static struct cj_open *open_new(const struct cj_event *e, int64_t ts, const char *key,
				struct cj_open *below)
{
	size_t keylen = strlen(key);
	size_t bytes =
	    sizeof(struct cj_open) + e->nargs * sizeof(struct cj_arg) + e->alen + keylen + 1;
	struct cj_open *o = malloc(bytes);
	if (!o)
		return NULL;
	o->below = below;
	o->above = o->older = o->newer = NULL;
	o->ts_ns = ts;
	o->line = e->line;
	o->col = e->col;
	o->cost = bytes + keylen + 1 + 48; /* the map's copy of the key, its slot */
	o->depth = below ? below->depth + 1 : 1;
	o->nargs = (uint32_t)e->nargs;
	o->alen = (uint32_t)e->alen;
	o->cat = e->cat;
	o->name = e->name;
	o->pid = e->pid;
	o->tid = e->tid;
	o->bind_id = e->bind_id;
	if (e->nargs)
		memcpy(o->args, e->args, e->nargs * sizeof(*e->args));
	if (e->alen)
		memcpy((char *)(o->args + o->nargs), e->arena, e->alen);
	memcpy(open_key(o), key, keylen + 1);
	return o;
}

/* The pairing key of @e into @key: "<pid>\x1f<tid>", or "<pid>\x1fa\x1f<cat>\x1f<id>" (async). */
static int be_key(struct cj_ctx *c, const struct cj_event *e, int async, char *key, size_t len)
{
	int n = cj_pid_key(e, e->pid, key, len / 2);
	if (n < 0 || n >= (int)len / 2)
		return cj_fail(c, e, "pid too long");
	key[n] = '\x1f';
	int m;
	if (async) {
		struct cj_val idv = e->id.type != CJV_NONE ? e->id : e->id2;
		m = snprintf(key + n + 1, len / 2 - 1, "a\x1f%s\x1f%s",
			     e->cat.type == CJV_STR ? cj_str(e, e->cat) : "",
			     idv.type != CJV_NONE ? cj_str(e, idv) : "");
	} else {
		m = cj_pid_key(e, e->tid, key + n + 1, len / 2 - 1);
	}
	if (m < 0 || m >= (int)len / 2 - 1)
		return cj_fail(c, e, "tid, cat or id too long");
	return TK_OK;
}

int cj_be(struct cj_ctx *c, struct cj_event *e, int64_t ts, int is_begin, int async)
{
	char key[600];
	int rc = be_key(c, e, async, key, sizeof(key));
	if (rc != TK_OK)
		return rc;
	int64_t *head = cj_smap_get(&c->open_by_key, key);
	struct cj_open *top = head ? (struct cj_open *)(intptr_t)*head : NULL;
	if (!is_begin) {
		if (!top) {
			c->n_unmatched_end++;
			return TK_OK;
		}
		if (top->below)
			*head = (int64_t)(intptr_t)top->below;
		else
			cj_smap_del(&c->open_by_key, key);
		unlink_open(c, top);
		struct cj_event b;
		open_view(top, &b);
		rc = cj_emit_interval(c, &b, top->ts_ns, ts >= top->ts_ns ? ts - top->ts_ns : 0, e,
				      0, NULL);
		free(top);
		return rc;
	}
	if (top && top->depth >= CJ_MAX_BE_DEPTH)
		return cj_fail(c, e, "more than %d nested 'B' events on one thread",
			       CJ_MAX_BE_DEPTH);
	struct cj_open *o = open_new(e, ts, key, top);
	if (!o)
		return tk_writer_fail(c->w, TK_ENOMEM, "out of memory");
	if (cj_smap_put(&c->open_by_key, key, (int64_t)(intptr_t)o) != 0) {
		free(o);
		return tk_writer_fail(c->w, TK_ENOMEM, "out of memory");
	}
	if (top)
		top->above = o;
	o->older = c->open_newest;
	if (c->open_newest)
		c->open_newest->newer = o;
	else
		c->open_oldest = o;
	c->open_newest = o;
	c->n_open++;
	c->open_bytes += o->cost;
	/* the bound: older open events are stored now (the new one always stays) */
	while (rc == TK_OK && c->open_oldest != o &&
	       (c->n_open > CJ_MAX_OPEN || c->open_bytes > CJ_MAX_OPEN_BYTES))
		rc = evict_oldest(c);
	return rc;
}

int cj_be_finish(struct cj_ctx *c)
{
	int rc = TK_OK;
	while (c->open_oldest && rc == TK_OK) {
		struct cj_open *o = c->open_oldest;
		unlink_open(c, o);
		rc = emit_incomplete(c, o);
		c->n_unclosed++;
		free(o);
	}
	cj_smap_free(&c->open_by_key);
	return rc;
}

void cj_be_free(struct cj_ctx *c)
{
	while (c->open_oldest) {
		struct cj_open *o = c->open_oldest;
		unlink_open(c, o);
		free(o);
	}
	cj_smap_free(&c->open_by_key);
}

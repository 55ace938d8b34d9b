/*
 * Chrome/Kineto JSON importer, flows. A flow point ('s' start, 't'/'f' end)
 * binds to the slice on its own pid/tid that starts at the point's ts (Kineto writes ac2g and
 * fwdbwd points at exactly the start of the API call / kernel / op; 'bp' is accepted either
 * way). Events seen recently are indexed by (track, ts); a point whose slice has not come yet
 * waits in a bounded pending list; an end whose start is unknown waits in a bounded list per
 * flow id. One 's' may have many 'f'. (B/E pairs: chrome_json_be.c.)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tracekit/error.h>

#include "chrome_json_internal.h"
#include "util/fnv.h"

static int emit_flow(struct cj_ctx *c, int64_t fa, int64_t src, int64_t dst)
{
	size_t cat = (size_t)(fa >> 1);
	const char *kind = cat < c->ncats ? c->cat_names[cat] : "flow";
	if (!strcmp(kind, "ac2g"))
		kind = "launch";
	else if (!kind[0])
		kind = "flow";
	return tk_writer_add_flow(c->w, kind, src, dst);
}

/* Point (fa, fb) of kind @is_src is bound to event @ev. */
static int bind(struct cj_ctx *c, int64_t fa, int64_t fb, int is_src, int64_t ev)
{
	int64_t *v = cj_pmap_get(&c->flows, fa, fb);
	int rc = TK_OK;
	if (is_src) {
		if (v && *v < 0) {
			for (int64_t i = -*v - 1; i >= 0 && rc == TK_OK; i = c->dsts[i].next)
				rc = emit_flow(c, fa, ev, c->dsts[i].dst);
			*v = ev;
			return rc;
		}
		if (v) {
			*v = ev;
			return TK_OK;
		}
		if (c->flows.count >= CJ_MAX_FLOWS) {
			cj_pmap_clear(&c->flows);
			c->n_flow_dropped++;
		}
		if (cj_pmap_put(&c->flows, fa, fb, ev) != 0)
			return tk_writer_fail(c->w, TK_ENOMEM, "out of memory");
		return TK_OK;
	}
	if (v && *v > 0)
		return emit_flow(c, fa, *v, ev);
	if (c->ndsts >= CJ_MAX_PENDING) {
		c->n_flow_dropped++;
		return TK_OK;
	}
	if (c->ndsts == c->cap_dsts) {
		size_t cap = c->cap_dsts ? c->cap_dsts * 2 : 256;
		struct cj_dst *d = realloc(c->dsts, cap * sizeof(*d));
		if (!d)
			return tk_writer_fail(c->w, TK_ENOMEM, "out of memory");
		c->dsts = d;
		c->cap_dsts = cap;
	}
	c->dsts[c->ndsts].dst = ev;
	c->dsts[c->ndsts].next = v ? -*v - 1 : -1;
	if (cj_pmap_put(&c->flows, fa, fb, -(int64_t)c->ndsts - 1) != 0)
		return tk_writer_fail(c->w, TK_ENOMEM, "out of memory");
	c->ndsts++;
	return TK_OK;
}

/* The flow key of id @idv of @e: (category index * 2 + id is a string, id or its hash). */
static int flow_key(struct cj_ctx *c, const struct cj_event *e, struct cj_val idv, int64_t *fa,
		    int64_t *fb)
{
	const char *cat = e->cat.type == CJV_STR ? cj_str(e, e->cat) : "";
	/* as a C string, like the category map's keys: a "\u0000" inside ends it there (the
	 * remembered name is that copy, so comparing the JSON length would read past it) */
	size_t len = strlen(cat);
	int64_t *ci = NULL, cat_ix;
	if (c->flow_cat && len == c->flow_cat_len && !memcmp(cat, c->flow_cat, len))
		cat_ix = c->flow_cat_ix; /* the same category as the last flow point */
	else if ((ci = cj_smap_get(&c->cat_ids, cat)) != NULL) {
		cat_ix = *ci;
	} else {
		char **n = realloc(c->cat_names, (c->ncats + 1) * sizeof(*n));
		if (!n)
			return tk_writer_fail(c->w, TK_ENOMEM, "out of memory");
		c->cat_names = n;
		if (!(n[c->ncats] = strdup(cat)) ||
		    cj_smap_put(&c->cat_ids, cat, (int64_t)c->ncats) != 0)
			return tk_writer_fail(c->w, TK_ENOMEM, "out of memory");
		cat_ix = (int64_t)c->ncats++;
	}
	c->flow_cat = c->cat_names[cat_ix];
	c->flow_cat_len = len;
	c->flow_cat_ix = cat_ix;
	int is_str = idv.type != CJV_NUM || cj_int(cj_str(e, idv), fb) != 0;
	if (is_str)
		*fb = (int64_t)tku_fnv1a64_step_str(TKU_FNV64_TK_OFFSET, cj_str(e, idv));
	*fa = cat_ix * 2 + is_str;
	return TK_OK;
}

static int top_true(const struct cj_event *e, const char *key)
{
	for (size_t i = 0; i < e->nargs; i++)
		if (e->args[i].top && !strcmp(e->arena + e->args[i].key, key))
			return e->args[i].v.type == CJV_TRUE;
	return 0;
}

/*
 * Flow events v2: a slice ('X', or 'B' when its 'E' comes) with "bind_id" and "flow_in": true
 * ends the flow of that id (from the last slice with "flow_out" for it), and with
 * "flow_out": true starts one; both: it continues the chain. Keyed by (cat, bind_id) as v1.
 */
int cj_flow_v2(struct cj_ctx *c, const struct cj_event *e, int64_t id)
{
	int in = top_true(e, "flow_in"), out = top_true(e, "flow_out"), rc = TK_OK;
	if (!in && !out)
		return TK_OK;
	int64_t fa, fb;
	if ((rc = flow_key(c, e, e->bind_id, &fa, &fb)) != TK_OK)
		return rc;
	if (in)
		rc = bind(c, fa, fb, 0, id);
	if (rc == TK_OK && out)
		rc = bind(c, fa, fb, 1, id);
	return rc;
}

int cj_flow_point(struct cj_ctx *c, struct cj_event *e, int64_t ts)
{
	int64_t track;
	int is_gpu, rc;
	struct cj_proc *p;
	struct cj_val idv = e->id.type != CJV_NONE ? e->id : e->id2;
	if (idv.type == CJV_NONE || idv.type == CJV_NULL) {
		c->n_flow_unbound++;
		return TK_OK;
	}
	if ((rc = cj_track_for(c, e, &track, &is_gpu, &p)) != TK_OK)
		return rc;
	int64_t fa, fb;
	if ((rc = flow_key(c, e, idv, &fa, &fb)) != TK_OK)
		return rc;
	int is_src = cj_str(e, e->ph)[0] == 's';
	int64_t *ev = cj_pmap_get(&c->recent, track, ts);
	if (ev)
		return bind(c, fa, fb, is_src, *ev >> 1);
	/* the slice has not been seen yet: wait for it */
	if (c->npend >= CJ_MAX_PENDING) {
		c->n_flow_dropped++;
		return TK_OK;
	}
	if (c->npend == c->cap_pend) {
		size_t cap = c->cap_pend ? c->cap_pend * 2 : 256;
		struct cj_fpoint *np = realloc(c->pend, cap * sizeof(*np));
		if (!np)
			return tk_writer_fail(c->w, TK_ENOMEM, "out of memory");
		c->pend = np;
		c->cap_pend = cap;
	}
	int64_t *head = cj_pmap_get(&c->pend_at, track, ts);
	struct cj_fpoint *fp = &c->pend[c->npend];
	fp->track = track;
	fp->ts = ts;
	fp->fa = fa;
	fp->fb = fb;
	fp->is_src = is_src;
	fp->next = head ? *head : -1;
	if (cj_pmap_put(&c->pend_at, track, ts, (int64_t)c->npend) != 0)
		return tk_writer_fail(c->w, TK_ENOMEM, "out of memory");
	c->npend++;
	c->live_pend++;
	return TK_OK;
}

int cj_flow_event_added(struct cj_ctx *c, int64_t track, int64_t ts, int64_t id, int has_corr)
{
	if (!c->has_flows)
		return TK_OK; /* pass 1 saw no flow point: nothing will bind */
	/* a new key past the bound starts the index afresh */
	if (c->recent.count >= CJ_MAX_RECENT && !cj_pmap_get(&c->recent, track, ts))
		cj_pmap_clear(&c->recent);
	int added;
	int64_t *old = cj_pmap_at(&c->recent, track, ts, id * 2 + has_corr, &added);
	if (!old)
		return tk_writer_fail(c->w, TK_ENOMEM, "out of memory");
	if (!added && (!(*old & 1) || has_corr))
		*old = id * 2 + has_corr;
	if (!c->live_pend)
		return TK_OK;
	int64_t *head = cj_pmap_get(&c->pend_at, track, ts);
	if (!head)
		return TK_OK;
	int rc = TK_OK;
	for (int64_t i = *head; i >= 0 && rc == TK_OK; i = c->pend[i].next) {
		rc = bind(c, c->pend[i].fa, c->pend[i].fb, c->pend[i].is_src, id);
		c->live_pend--;
	}
	cj_pmap_del(&c->pend_at, track, ts);
	if (!c->live_pend) {
		c->npend = 0;
		cj_pmap_clear(&c->pend_at);
	}
	return rc;
}

void cj_flow_free(struct cj_ctx *c)
{
	cj_pmap_free(&c->recent);
	cj_pmap_free(&c->pend_at);
	cj_pmap_free(&c->flows);
	free(c->pend);
	free(c->dsts);
	for (size_t i = 0; i < c->ncats; i++)
		free(c->cat_names[i]);
	free(c->cat_names);
	cj_smap_free(&c->cat_ids);
}

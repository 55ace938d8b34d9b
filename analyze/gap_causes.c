/*
 * What the gap causes need beyond the launches (docs/metrics.md, "Idle gaps"): the host-side
 * synchronizations (blocking API calls, sync events on host threads), collected by the shared
 * pass over the events, and the host thread that launched the op after each queued gap long
 * enough to be a sync gap, found at the end of the pass for those ops only (a scan of the launch
 * flows, or an indexed probe per op by correlation id). tka_gap_sync() then names the
 * synchronization on that thread that overlaps the gap, by binary search.
 */
#include "intervals.h"

#include <stdlib.h>
#include <string.h>
#include <tracekit/store.h>

/* A name id set: sorted ids of the strings an SQL query selects. */
struct id_set {
	int64_t *v;
	size_t n;
};

/* What the pass collects. */
struct tka_gc_state {
	struct id_set blocking; /* runtime/driver API names that block (TKA_BLOCKING_API_NAMES) */
	struct id_set waits;	/* names of stream waits, which do not block the host thread */
	struct tka_sync *v;	/* the synchronizations, in load order until the end */
	size_t n, cap;
};

/* A queued gap whose launching thread is looked for. */
struct cand {
	int64_t op_id, launch_ts, process; /* the op after the gap, its launch, its process */
	struct tka_gap_launch *slot;	   /* where the thread goes */
};

static int load_ids(struct tka_ctx *c, const char *sql, struct id_set *s)
{
	sqlite3_stmt *st = NULL;
	size_t cap = 0;
	int rc = tka_prepare(c, sql, &st), step = SQLITE_DONE;
	while (rc == TK_OK && (step = sqlite3_step(st)) == SQLITE_ROW) {
		if (TKU_GROW(s->v, cap, s->n + 1, 16) != TK_OK) {
			rc = tka_fail(c, TK_ENOMEM, "out of memory");
			break;
		}
		s->v[s->n++] = sqlite3_column_int64(st, 0);
	}
	if (rc == TK_OK && step != SQLITE_DONE)
		rc = tka_fail(c, tka_sql_status(c), "reading strings: %s", sqlite3_errmsg(c->db));
	sqlite3_finalize(st);
	return rc;
}

static int has_id(const struct id_set *s, int64_t id)
{
	size_t lo = 0, hi = s->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (s->v[mid] < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < s->n && s->v[lo] == id;
}

int tka_gap_causes_begin(struct tka_ctx *c)
{
	struct tka_gc_state *s = calloc(1, sizeof(*s));
	int rc;
	if (!s)
		return tka_fail(c, TK_ENOMEM, "out of memory");
	c->gc = s;
	if ((rc = load_ids(
		 c, "SELECT id FROM strings WHERE " TKA_BLOCKING_API_NAMES("str") " ORDER BY id",
		 &s->blocking)) != TK_OK)
		return rc;
	return load_ids(c, "SELECT id FROM strings WHERE str LIKE '%wait%event%' ORDER BY id",
			&s->waits);
}

int tka_gap_causes_event(struct tka_ctx *c, const struct tka_ev *e)
{
	struct tka_gc_state *s = c->gc;
	if (e->kind == TK_EV_RUNTIME_API || e->kind == TK_EV_DRIVER_API) {
		if (!has_id(&s->blocking, e->name_id))
			return TK_OK;
	} else if (e->kind != TK_EV_SYNC || has_id(&s->waits, e->name_id)) {
		return TK_OK;
	}
	if (e->track < 1 || e->track > c->pass->ntracks || !c->pass->tracks[e->track].exists ||
	    c->pass->tracks[e->track].device_id != TK_NONE)
		return TK_OK; /* Kineto's cuda_sync rows sit on device tracks: their API call counts */
	if (TKU_GROW(s->v, s->cap, s->n + 1, 256) != TK_OK)
		return tka_fail(c, TK_ENOMEM, "out of memory");
	struct tka_sync *y = &s->v[s->n++];
	y->track = e->track;
	y->ts = e->ts;
	y->end = e->dur > 0 && e->ts <= INT64_MAX - e->dur ? e->ts + e->dur : e->ts;
	y->id = e->id;
	y->name_id = e->name_id;
	return TK_OK;
}

static int sync_cmp(const void *pa, const void *pb)
{
	const struct tka_sync *a = pa, *b = pb;
	if (a->track != b->track)
		return a->track < b->track ? -1 : 1;
	if (a->ts != b->ts)
		return a->ts < b->ts ? -1 : 1;
	return (a->id > b->id) - (a->id < b->id);
}

static int cand_cmp(const void *pa, const void *pb)
{
	const struct cand *a = pa, *b = pb;
	return (a->op_id > b->op_id) - (a->op_id < b->op_id);
}

/*
 * The queued gaps of @d that may be sync gaps (the rules of tka_gaps_each: launched at or before
 * the interval began, and not shorter than TKA_KERNEL_WAIT_NS; before the first busy span, any
 * launch before it), into d->gap_launch and, when @out is set, @out[0..).
 */
static size_t device_cands(struct tka_ctx *c, struct tka_device *d, struct cand *out)
{
	size_t n = 0;
	for (size_t j = 0; j < d->busy.n; j++) {
		const struct tka_op *op = &d->ops[d->busy_first[j]];
		int64_t fe = d->busy.v[j].start;
		if (op->launch_ts == TKA_NO_LAUNCH ||
		    (j > 0 && (op->launch_ts > d->busy.v[j - 1].end ||
			       fe - d->busy.v[j - 1].end < TKA_KERNEL_WAIT_NS)) ||
		    (j == 0 && op->launch_ts >= fe))
			continue;
		if (out) {
			struct tka_gap_launch *g = &d->gap_launch[n];
			g->j = j;
			g->track = TK_NONE;
			out[n].op_id = op->id;
			out[n].launch_ts = op->launch_ts;
			out[n].process =
			    c->pass->tracks[d->streams[op->stream].track_id].process_id;
			out[n].slot = g;
		}
		n++;
	}
	return n;
}

/* Flows mode: the source of each candidate's launch flow that starts at its launch time. */
static int threads_by_flows(struct tka_ctx *c, struct cand *v, size_t n)
{
	sqlite3_stmt *fl = NULL, *ev = NULL;
	int rc, step = SQLITE_DONE;
	qsort(v, n, sizeof(*v), cand_cmp);
	if ((rc = tka_prepare(c,
			      "SELECT dst_event_id, src_event_id FROM flows WHERE kind = 'launch' "
			      "AND id BETWEEN ?1 AND ?2",
			      &fl)) != TK_OK ||
	    (rc = tka_prepare(c, "SELECT track_id, ts_ns FROM events WHERE id = ?", &ev)) != TK_OK)
		goto out;
	sqlite3_bind_int64(fl, 1, c->part ? c->part->fl_lo : INT64_MIN); /* the part's flows */
	sqlite3_bind_int64(fl, 2, c->part ? c->part->fl_hi : INT64_MAX);
	while ((step = sqlite3_step(fl)) == SQLITE_ROW) {
		struct cand key = {.op_id = sqlite3_column_int64(fl, 0)};
		struct cand *k = bsearch(&key, v, n, sizeof(*v), cand_cmp);
		if (!k || k->slot->track != TK_NONE)
			continue;
		sqlite3_reset(ev);
		sqlite3_bind_int64(ev, 1, sqlite3_column_int64(fl, 1));
		if (sqlite3_step(ev) == SQLITE_ROW && sqlite3_column_int64(ev, 1) == k->launch_ts)
			k->slot->track = sqlite3_column_int64(ev, 0);
	}
	if (step != SQLITE_DONE)
		rc = tka_fail(c, tka_sql_status(c), "reading launch flows: %s",
			      sqlite3_errmsg(c->db));
out:
	sqlite3_finalize(fl);
	sqlite3_finalize(ev);
	return rc;
}

/*
 * Correlation mode: the host thread holding a runtime/driver API call with the op's correlation
 * id that starts at its launch time, in a compatible process (the same one first).
 */
static int threads_by_corr(struct tka_ctx *c, struct cand *v, size_t n)
{
	sqlite3_stmt *q = NULL;
	int rc = tka_prepare(
	    c,
	    "SELECT e.track_id FROM events o CROSS JOIN tracks t CROSS JOIN events e"
	    " ON e.track_id = t.id AND e.ts_ns = ?2 WHERE o.id = ?1 AND t.device_id IS NULL"
	    " AND (t.process_id IS NULL OR ?3 IS NULL OR t.process_id = ?3)"
	    " AND e.kind IN (" TK_SQL_EV_API_CALLS ") AND e.correlation_id = o.correlation_id"
	    " ORDER BY t.process_id IS ?3 DESC, e.id LIMIT 1",
	    &q);
	for (size_t i = 0; rc == TK_OK && i < n; i++) {
		sqlite3_reset(q);
		sqlite3_bind_int64(q, 1, v[i].op_id);
		sqlite3_bind_int64(q, 2, v[i].launch_ts);
		if (v[i].process == TK_NONE)
			sqlite3_bind_null(q, 3);
		else
			sqlite3_bind_int64(q, 3, v[i].process);
		int step = sqlite3_step(q);
		if (step == SQLITE_ROW)
			v[i].slot->track = sqlite3_column_int64(q, 0);
		else if (step != SQLITE_DONE)
			rc = tka_fail(c, tka_sql_status(c), "finding launching threads: %s",
				      sqlite3_errmsg(c->db));
	}
	sqlite3_finalize(q);
	return rc;
}

int tka_gap_causes_end(struct tka_ctx *c)
{
	struct tka_gc_state *s = c->gc;
	struct tka_timeline *tl = c->tl;
	struct cand *v = NULL;
	size_t n = 0;
	int rc = TK_OK;
	if (!tl || s->n == 0)
		return TK_OK; /* no synchronization: no sync gap, nothing to look for */
	qsort(s->v, s->n, sizeof(*s->v), sync_cmp);
	if (!(tl->syncs.max_end = malloc(s->n * sizeof(*tl->syncs.max_end))))
		return tka_fail(c, TK_ENOMEM, "out of memory");
	for (size_t k = 0; k < s->n; k++)
		tl->syncs.max_end[k] = k > 0 && s->v[k - 1].track == s->v[k].track &&
					       tl->syncs.max_end[k - 1] > s->v[k].end
					   ? tl->syncs.max_end[k - 1]
					   : s->v[k].end;
	tl->syncs.v = s->v;
	tl->syncs.n = s->n;
	s->v = NULL;
	s->n = s->cap = 0;
	for (size_t i = 0; i < tl->ndev; i++) {
		struct tka_device *d = &tl->dev[i];
		d->syncs = &tl->syncs;
		size_t k = device_cands(c, d, NULL);
		if (k && !(d->gap_launch = malloc(k * sizeof(*d->gap_launch))))
			return tka_fail(c, TK_ENOMEM, "out of memory");
		d->ngap_launch = k;
		n += k;
	}
	if (n == 0 || tl->launch_source == 0)
		return TK_OK;
	if (!(v = malloc(n * sizeof(*v))))
		return tka_fail(c, TK_ENOMEM, "out of memory");
	for (size_t i = 0, at = 0; i < tl->ndev; i++)
		at += device_cands(c, &tl->dev[i], v + at);
	rc = tl->launch_source == 1 ? threads_by_flows(c, v, n) : threads_by_corr(c, v, n);
	free(v);
	return rc;
}

void tka_gap_causes_free(struct tka_gc_state *s)
{
	if (!s)
		return;
	free(s->blocking.v);
	free(s->waits.v);
	free(s->v);
	free(s);
}

const struct tka_sync *tka_gap_sync(const struct tka_device *d, size_t j, int64_t start,
				    int64_t end)
{
	const struct tka_syncs *y = d->syncs;
	size_t lo = 0, hi = d->ngap_launch;
	while (lo < hi) { /* the gap's launching thread */
		size_t mid = lo + (hi - lo) / 2;
		if (d->gap_launch[mid].j < j)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!y || lo == d->ngap_launch || d->gap_launch[lo].j != j ||
	    d->gap_launch[lo].track == TK_NONE)
		return NULL;
	int64_t track = d->gap_launch[lo].track;
	lo = 0;
	hi = y->n;
	while (lo < hi) { /* first synchronization after (track, end) */
		size_t mid = lo + (hi - lo) / 2;
		if (y->v[mid].track < track || (y->v[mid].track == track && y->v[mid].ts < end))
			lo = mid + 1;
		else
			hi = mid;
	}
	const struct tka_sync *best = NULL;
	int64_t best_len = 0;
	for (size_t k = lo; k-- > 0 && y->v[k].track == track && y->max_end[k] > start;) {
		int64_t a = y->v[k].ts > start ? y->v[k].ts : start;
		int64_t b = y->v[k].end < end ? y->v[k].end : end;
		if (b - a > 0 && b - a >= best_len) { /* walking back: >= keeps the earliest */
			best = &y->v[k];
			best_len = b - a;
		}
	}
	return best;
}

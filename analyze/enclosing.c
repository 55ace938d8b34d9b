/*
 * The enclosing host op of given times (docs/metrics.md, "analysis_memory_live_at_peak"): for
 * each time t, the innermost host op (kind 1) on a host thread of a process whose interval
 * contains t (ts <= t < ts + dur): latest start, then shortest, then highest id. The memory
 * analysis asks it for the allocations live at a peak that name no op.
 *
 * Workload: one sweep per host track of the process over its host ops up to the last time, in
 * (ts, id) order from the events_by_track index, with a heap of the ops begun so far (an op is
 * dropped once it has ended: the times only grow). O((ops + times) log) per process, whatever
 * the op durations (the query per time it replaces scanned the ops of the longest op's span).
 */
#include <stdlib.h>

#include <tracekit/store.h>

#include "analyze_internal.h"
#include "checked.h"

/* A host op that may enclose a time. */
struct hop {
	int64_t id, ts, end, dur;
};

/* 1 when @a is more inner than @b: later start, then shorter, then higher id. */
static int hop_inner(const struct hop *a, const struct hop *b)
{
	if (a->ts != b->ts)
		return a->ts > b->ts;
	if (a->dur != b->dur)
		return a->dur < b->dur;
	return a->id > b->id;
}

/* Max-heap of host ops by hop_inner(). */
struct hheap {
	struct hop *v;
	size_t n, cap;
};

static int hheap_push(struct hheap *h, const struct hop *x)
{
	if (TKU_GROW(h->v, h->cap, h->n + 1, 256) != TK_OK)
		return TK_ENOMEM;
	size_t i = h->n++;
	while (i > 0 && hop_inner(x, &h->v[(i - 1) / 2])) {
		h->v[i] = h->v[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	h->v[i] = *x;
	return TK_OK;
}

static void hheap_pop(struct hheap *h)
{
	struct hop x = h->v[--h->n];
	size_t i = 0;
	for (;;) {
		size_t k = 2 * i + 1;
		if (k >= h->n)
			break;
		if (k + 1 < h->n && hop_inner(&h->v[k + 1], &h->v[k]))
			k++;
		if (!hop_inner(&h->v[k], &x))
			break;
		h->v[i] = h->v[k];
		i = k;
	}
	if (h->n)
		h->v[i] = x;
}

/* The innermost op of @h containing @t into @best, when more inner than it. */
static void hheap_answer(struct hheap *h, int64_t t, struct hop *best)
{
	while (h->n && h->v[0].end <= t) /* ended before t, so before every later time too */
		hheap_pop(h);
	if (h->n && (best->id == TK_NONE || hop_inner(&h->v[0], best)))
		*best = h->v[0];
}

/* A time to look up and where it came from. */
struct query {
	int64_t t;
	size_t at;
};

static int cmp_query(const void *pa, const void *pb)
{
	const struct query *a = pa, *b = pb;
	if (a->t != b->t)
		return a->t < b->t ? -1 : 1;
	return (a->at > b->at) - (a->at < b->at);
}

/* Sweep the host ops of track @track against the sorted queries @q, improving @best. */
static int sweep_track(struct tka_ctx *c, sqlite3_stmt *ops, int64_t track, const struct query *q,
		       size_t n, struct hop *best, struct hheap *h)
{
	size_t k = 0;
	int step;
	h->n = 0;
	sqlite3_reset(ops);
	sqlite3_bind_int64(ops, 1, track);
	sqlite3_bind_int64(ops, 2, q[n - 1].t);
	while ((step = sqlite3_step(ops)) == SQLITE_ROW) {
		struct hop x = {sqlite3_column_int64(ops, 0), sqlite3_column_int64(ops, 1), 0,
				sqlite3_column_int64(ops, 2)};
		for (; k < n && q[k].t < x.ts; k++) /* every op starting at or before t is in */
			hheap_answer(h, q[k].t, &best[k]);
		if (x.dur <= 0)
			continue;		     /* contains no time */
		if (tk_add_ovf(x.ts, x.dur, &x.end)) /* dur > 0: only past INT64_MAX */
			x.end = INT64_MAX;
		if (hheap_push(h, &x) != TK_OK)
			return tka_fail(c, TK_ENOMEM, "out of memory in the memory analysis");
	}
	if (step != SQLITE_DONE)
		return tka_fail(c, TK_EINTERNAL, "reading host ops: %s", sqlite3_errmsg(c->db));
	for (; k < n; k++)
		hheap_answer(h, q[k].t, &best[k]);
	return TK_OK;
}

int tka_enclosing_ops(struct tka_ctx *c, int64_t process, int64_t *ts, size_t n)
{
	sqlite3_stmt *trk = NULL, *ops = NULL;
	struct hheap h = {NULL, 0, 0};
	struct query *q = NULL;
	struct hop *best = NULL;
	int rc = TK_OK;
	if (n == 0)
		return TK_OK;
	q = malloc(n * sizeof(*q));
	best = malloc(n * sizeof(*best));
	if (!q || !best) {
		rc = tka_fail(c, TK_ENOMEM, "out of memory in the memory analysis");
		goto out;
	}
	for (size_t k = 0; k < n; k++) {
		q[k].t = ts[k];
		q[k].at = k;
		best[k].id = TK_NONE;
	}
	qsort(q, n, sizeof(*q), cmp_query);
	if (process != TK_NONE &&
	    (rc = tka_prepare(c,
			      "SELECT id FROM tracks WHERE process_id = ? AND device_id IS NULL "
			      "ORDER BY id",
			      &trk)) == TK_OK &&
	    (rc = tka_prepare(c,
			      "SELECT id, ts_ns, dur_ns FROM events WHERE track_id = ?1 AND kind "
			      "= " TK_SQL_EV_HOST_OP " AND ts_ns <= ?2 ORDER BY ts_ns, id",
			      &ops)) == TK_OK) {
		sqlite3_bind_int64(trk, 1, process);
		while (rc == TK_OK && sqlite3_step(trk) == SQLITE_ROW)
			rc = sweep_track(c, ops, sqlite3_column_int64(trk, 0), q, n, best, &h);
	}
	for (size_t k = 0; rc == TK_OK && k < n; k++)
		ts[q[k].at] = best[k].id;
out:
	sqlite3_finalize(trk);
	sqlite3_finalize(ops);
	free(q);
	free(best);
	free(h.v);
	return rc;
}

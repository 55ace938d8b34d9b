/*
 * Op profile (analysis_op_profile, analysis_hlo_op_kernels): per op and level (host op, kernel,
 * XLA op, XLA module, framework op, async XLA op; also runtime/driver API calls and sync waits;
 * and the HLO op device ops carry, XLA on GPU, with the kernels it ran as) its occurrences,
 * total and self time, average/min/max and share of the device's busy time, plus one IDLE row
 * per device. Definitions: docs/metrics.md.
 *
 * Self time is the time during which an event is the innermost open event of its track (the one
 * that started last). It is found by one sweep per track in start order. To avoid a random-access
 * index scan of every event, the shared pass over the events (event_pass.c) hands them over once
 * in load (rowid) order, into a small reorder buffer per track (a heap by start, then id: sources
 * often write a parent after its children). A track where an event comes later than the buffer
 * can absorb is swept again on its own and its first results are dropped: the events from the
 * late one on are kept from the pass (up to COLLECT_EVENTS in all), the ones before are read
 * again by id (a range of rows no longer than twice the track's events), and all are sorted in
 * start, then id order, the order of the index. A track beyond those bounds is read again
 * whole through the index. While the first HISTORY_EVENTS events of the pass (all tracks
 * together) are kept as they come, a late track's events before the late one are taken from
 * there instead of read again (a trace of that size: nothing is read twice).
 */
#include <stdlib.h>
#include <string.h>

#include <tracekit/store.h>

#include "analyze_internal.h"
#include "../util/map.h"
#include "../util/sort.h"

/* One open event on a track's stack. */
struct open_ev {
	int64_t ts, end, self;
	int64_t name_id, cat_id, module_id; /* cat_id/module_id 0 = none */
	int64_t id;			    /* events.id: the order among events of one start */
	int kind;
};

/* Events a track's reorder buffer holds back before the earliest is swept. */
#define REORDER_EVENTS 8192

/* Events of unsorted tracks kept from the pass, all tracks together (72 MiB). */
#define COLLECT_EVENTS (1u << 20)

/* Events kept in load order from the start of the pass, all tracks together (8 MiB of events;
 * their arrays, grown by doubling, take 16 MiB at most): past that, only the histories of tracks
 * already found unsorted stay. */
#define HISTORY_EVENTS (1u << 17)

/* Sweep state of one track. */
struct track_sweep {
	struct open_ev *st; /* open events, outermost first */
	size_t n, cap;
	struct open_ev *buf; /* reorder buffer: a min-heap by (ts, id) of nbuf events */
	size_t nbuf, bcap;
	int64_t now, last_ts; /* sweep time; start of the last event swept */
	int seen, unsorted;
	int64_t first_id, count;    /* events.id of its first event; its events, in all */
	int64_t first_late, before; /* unsorted: events.id of the late event; events before it */
	int collecting;	      /* unsorted: the pass keeps its events from first_late on in buf */
	struct open_ev *hist; /* its events in load order up to the late one (history kept) */
	size_t nhist, hcap;
};

/* Aggregate of one (track, kind, name, category, module) group. */
struct group {
	int64_t key[5]; /* track_id, kind, name_id, cat_id, module_id */
	int64_t n, total, self, min, max;
};

/* Annotations and steps label work; they are not ops and take no part in nesting. */
static int nests(int kind)
{
	return kind != TK_EV_ANNOTATION && kind != TK_EV_STEP;
}

static int profiled(int kind)
{
	return kind == TK_EV_HOST_OP || kind == TK_EV_KERNEL || kind == TK_EV_XLA_OP ||
	       kind == TK_EV_XLA_MODULE || kind == TK_EV_FRAMEWORK_OP ||
	       kind == TK_EV_RUNTIME_API || kind == TK_EV_DRIVER_API || kind == TK_EV_SYNC ||
	       kind == TK_EV_ASYNC_XLA_OP;
}

/* Add one finished event of @track to its group. */
static int groups_add(struct tku_table *G, int64_t track, const struct open_ev *e)
{
	int64_t k[5] = {track, e->kind, e->name_id, e->cat_id, e->module_id};
	int added;
	struct group *g = tku_table_at(G, k, &added);
	if (!g)
		return TK_ENOMEM;
	int64_t dur = e->end - e->ts;
	if (added)
		g->min = g->max = dur;
	g->n++;
	g->total += dur;
	g->self += e->self;
	if (dur < g->min)
		g->min = dur;
	if (dur > g->max)
		g->max = dur;
	return TK_OK;
}

/* Credit the time up to @t to the innermost open events, finishing those that end by @t. */
static int sweep_advance(struct tku_table *G, int64_t track, struct track_sweep *s, int64_t t)
{
	while (s->n) {
		struct open_ev *top = &s->st[s->n - 1];
		if (top->end > s->now) {
			int64_t e = top->end < t ? top->end : t;
			top->self += e - s->now;
			s->now = e;
			if (top->end > t)
				break;
		}
		if (profiled(top->kind) && groups_add(G, track, top) != TK_OK)
			return TK_ENOMEM;
		s->n--;
	}
	if (s->now < t)
		s->now = t;
	return TK_OK;
}

/* Open @e at its start (the sweep has been advanced to it). */
static int sweep_push(struct track_sweep *s, const struct open_ev *e)
{
	if (TKU_GROW(s->st, s->cap, s->n + 1, 16) != TK_OK)
		return TK_ENOMEM;
	/* Among events that start together the longer one is the outer one. */
	size_t i = s->n;
	while (i > 0 && s->st[i - 1].ts == e->ts && s->st[i - 1].end < e->end)
		i--;
	memmove(&s->st[i + 1], &s->st[i], (s->n - i) * sizeof(*e));
	s->st[i] = *e;
	s->n++;
	return TK_OK;
}

/* Feed one event of track @track; events of a track must come in start order. */
static int sweep_event(struct tku_table *G, int64_t track, struct track_sweep *s,
		       const struct open_ev *e)
{
	int rc;
	if (!s->seen) {
		s->seen = 1;
		s->now = e->ts;
	}
	s->last_ts = e->ts;
	if ((rc = sweep_advance(G, track, s, e->ts)) != TK_OK)
		return rc;
	return sweep_push(s, e);
}

static int sweep_finish(struct tku_table *G, int64_t track, struct track_sweep *s)
{
	return sweep_advance(G, track, s, INT64_MAX);
}

/* The index's order of a track's events: by start, then id. */
static int ev_before(const struct open_ev *a, const struct open_ev *b)
{
	return a->ts < b->ts || (a->ts == b->ts && a->id < b->id);
}

/* Sweep the earliest buffered event of @s (the heap's root). */
static int buffer_release(struct tku_table *G, int64_t track, struct track_sweep *s)
{
	struct open_ev *h = s->buf, e = h[0], last = h[--s->nbuf];
	size_t i = 0, n = s->nbuf;
	for (;;) { /* sift the last event down from the root */
		size_t k = 2 * i + 1;
		if (k >= n)
			break;
		if (k + 1 < n && ev_before(&h[k + 1], &h[k]))
			k++;
		if (!ev_before(&h[k], &last))
			break;
		h[i] = h[k];
		i = k;
	}
	if (n)
		h[i] = last;
	return sweep_event(G, track, s, &e);
}

/* Keep @e of an unsorted track @s from the pass (*@kept: events kept in all); 0 when the cap
 * is reached, and the track then is read again whole. */
static int collect(struct track_sweep *s, const struct open_ev *e, size_t *kept)
{
	if (*kept >= COLLECT_EVENTS) {
		s->collecting = 0;
		return TK_OK;
	}
	if (TKU_GROW(s->buf, s->bcap, s->nbuf + 1, 64) != TK_OK)
		return TK_ENOMEM;
	s->buf[s->nbuf++] = *e;
	++*kept;
	return TK_OK;
}

/*
 * Put @e (in load order) into the reorder buffer of @s, sweeping the earliest when it is full.
 * Marks the track unsorted when @e starts before an event already swept: its buffer then keeps
 * the events from @e on (collect()), while @kept allows.
 */
static int buffer_add(struct tku_table *G, int64_t track, struct track_sweep *s,
		      const struct open_ev *e, size_t *kept)
{
	if (s->unsorted)
		return s->collecting ? collect(s, e, kept) : TK_OK;
	if (s->seen && e->ts < s->last_ts) {
		s->unsorted = s->collecting = 1;
		s->first_late = e->id;
		s->before = s->count - 1;
		s->nbuf = 0; /* read again with the events before @e */
		return collect(s, e, kept);
	}
	if (TKU_GROW(s->buf, s->bcap, s->nbuf + 1, 64) != TK_OK)
		return TK_ENOMEM;
	struct open_ev *h = s->buf;
	size_t i = s->nbuf++;
	while (i > 0 && ev_before(e, &h[(i - 1) / 2])) { /* sift up */
		h[i] = h[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	h[i] = *e;
	if (s->nbuf > REORDER_EVENTS)
		return buffer_release(G, track, s);
	return TK_OK;
}

static int buffer_finish(struct tku_table *G, int64_t track, struct track_sweep *s)
{
	int rc = TK_OK;
	while (rc == TK_OK && s->nbuf)
		rc = buffer_release(G, track, s);
	if (rc == TK_OK && s->seen)
		rc = sweep_finish(G, track, s);
	return rc;
}

static void row_event(sqlite3_stmt *q, struct open_ev *e)
{
	e->id = sqlite3_column_int64(q, 0);
	e->kind = sqlite3_column_int(q, 1);
	e->name_id = sqlite3_column_int64(q, 2);
	e->cat_id = sqlite3_column_int64(q, 3);
	e->ts = sqlite3_column_int64(q, 4);
	int64_t dur = sqlite3_column_int64(q, 5);
	e->end = dur > 0 && e->ts <= INT64_MAX - dur ? e->ts + dur : e->ts;
	e->self = 0;
	e->module_id = 0;
}

/* Drop every group of @track (its load order turned out not to be its start order). */
static void groups_drop_track(struct tku_table *G, int64_t track)
{
	for (size_t i = 0; i < G->n; i++) {
		struct group *g = tku_table_elem(G, i);
		if (g->key[0] == track)
			g->key[1] =
			    -1; /* kept as a tombstone (found by no lookup); skipped when written */
	}
}

/* What the pass over the events builds for the op profile. */
struct tka_op_state {
	struct tku_table G;    /* of struct group */
	struct track_sweep *T; /* by track id, [0, ntracks] */
	int64_t ntracks;
	size_t kept;	/* events of unsorted tracks kept from the pass (COLLECT_EVENTS at most) */
	size_t nhist;	/* events in the tracks' histories (HISTORY_EVENTS at most) */
	int no_history; /* the histories outgrew HISTORY_EVENTS: no track gets one any more */
};

void tka_op_profile_free(struct tka_op_state *s)
{
	if (!s)
		return;
	for (int64_t t = 0; s->T && t <= s->ntracks; t++) {
		free(s->T[t].st);
		free(s->T[t].buf);
		free(s->T[t].hist);
	}
	free(s->T);
	tku_table_free(&s->G);
	free(s);
}

int tka_op_profile_begin(struct tka_ctx *c)
{
	struct tka_op_state *s = calloc(1, sizeof(*s));
	if (!s)
		return tka_fail(c, TK_ENOMEM, "out of memory in the op profile");
	c->ops = s;
	s->G = (struct tku_table)TKU_TABLE_INIT(struct group, 5);
	s->ntracks = c->pass->ntracks;
	s->T = calloc((size_t)s->ntracks + 1, sizeof(*s->T));
	if (!s->T || tku_map_reserve(&s->G.map, 512) != 0)
		return tka_fail(c, TK_ENOMEM, "out of memory in the op profile");
	c->pass->want_op_details = 1;
	return TK_OK;
}

static void history_free(struct track_sweep *ts)
{
	free(ts->hist);
	ts->hist = NULL;
	ts->nhist = ts->hcap = 0;
}

/* The histories are full: only those of tracks found unsorted stay (they are complete). */
static void history_stop(struct tka_op_state *s)
{
	s->no_history = 1;
	for (int64_t t = 1; t <= s->ntracks; t++)
		if (!s->T[t].unsorted)
			history_free(&s->T[t]);
}

/* Keep @e in the history of @ts (a track not yet found unsorted). */
static int history_add(struct tka_op_state *s, struct track_sweep *ts, const struct open_ev *e)
{
	if (s->nhist >= HISTORY_EVENTS) {
		history_stop(s);
		return TK_OK;
	}
	if (TKU_GROW(ts->hist, ts->hcap, ts->nhist + 1, 256) != TK_OK)
		return TK_ENOMEM;
	ts->hist[ts->nhist++] = *e;
	s->nhist++;
	return TK_OK;
}

/* One event in load order (op_details merged in by the pass) into its track's reorder buffer. */
int tka_op_profile_event(struct tka_ctx *c, const struct tka_ev *ev)
{
	struct tka_op_state *s = c->ops;
	if (ev->track < 1 || ev->track > s->ntracks || !nests(ev->kind))
		return TK_OK; /* no track to report it on, or a label */
	struct track_sweep *ts = &s->T[ev->track];
	if (!ts->count++)
		ts->first_id = ev->id;
	if (ts->unsorted && !ts->collecting)
		return TK_OK;
	struct open_ev e;
	e.id = ev->id;
	e.kind = ev->kind;
	e.name_id = ev->name_id;
	e.cat_id = ev->has_op && ev->op_cat ? ev->op_cat : ev->cat_id;
	e.module_id = ev->has_op ? ev->op_module : 0;
	e.ts = ev->ts;
	e.end = ev->dur > 0 && e.ts <= INT64_MAX - ev->dur ? e.ts + ev->dur : e.ts;
	e.self = 0;
	if ((!ts->unsorted && !s->no_history && history_add(s, ts, &e) != TK_OK) ||
	    buffer_add(&s->G, ev->track, ts, &e, &s->kept) != TK_OK)
		return tka_fail(c, TK_ENOMEM, "out of memory in the op profile");
	return TK_OK;
}

int tka_op_profile_end(struct tka_ctx *c)
{
	struct tka_op_state *s = c->ops;
	for (int64_t t = 1; t <= s->ntracks; t++) {
		struct track_sweep *ts = &s->T[t];
		if (ts->unsorted)
			continue;
		history_free(ts); /* a sorted track needs none */
		if (buffer_finish(&s->G, t, ts) != TK_OK)
			return tka_fail(c, TK_ENOMEM, "out of memory in the op profile");
	}
	return TK_OK;
}

static int cmp_ev(const void *pa, const void *pb)
{
	const struct open_ev *a = pa, *b = pb;
	return ev_before(a, b) ? -1 : ev_before(b, a);
}

TKU_SORT_DEFINE(sort_evs, struct open_ev, ev_before)

/* Sweep the events buffered for track @t, sorted in (start, id) order first. */
static int sweep_buffered(struct tka_ctx *c, struct tku_table *G, int64_t t, struct track_sweep *s)
{
	if (s->nbuf > 1 && sort_evs(s->buf, s->nbuf) != 0)
		qsort(s->buf, s->nbuf, sizeof(*s->buf), cmp_ev);
	for (size_t k = 0; k < s->nbuf; k++)
		if (sweep_event(G, t, s, &s->buf[k]) != TK_OK)
			return tka_fail(c, TK_ENOMEM, "out of memory in the op profile");
	return TK_OK;
}

/* The columns pass_unsorted() reads: as the pass gives them, op_details merged in. */
#define UNSORTED_COLS                                                                    \
	"SELECT e.id, e.kind, e.name_id, coalesce(o.op_category_id, e.category_id, 0), " \
	"e.ts_ns, e.dur_ns, coalesce(o.hlo_module_id, 0) FROM events e LEFT JOIN "       \
	"op_details o ON o.event_id = e.id "

/* The events of @q (UNSORTED_COLS) that nest, each to @fn (sweep_event() or appended to the
 * buffer of @s). */
static int
read_rows(struct tka_ctx *c, sqlite3_stmt *q, struct tku_table *G, int64_t t, struct track_sweep *s,
	  int (*fn)(struct tku_table *G, int64_t t, struct track_sweep *s, const struct open_ev *e))
{
	int rc = TK_OK, step;
	while ((step = sqlite3_step(q)) == SQLITE_ROW) {
		struct open_ev e;
		row_event(q, &e);
		e.module_id = sqlite3_column_int64(q, 6);
		if (nests(e.kind) && (rc = fn(G, t, s, &e)) != TK_OK)
			return rc == TK_ENOMEM ? tka_fail(c, rc, "out of memory in the op profile")
					       : rc;
	}
	if (step != SQLITE_DONE)
		return tka_fail(c, TK_EINTERNAL, "reading events: %s", sqlite3_errmsg(c->db));
	return TK_OK;
}

static int to_buffer(struct tku_table *G, int64_t t, struct track_sweep *s, const struct open_ev *e)
{
	(void)G;
	(void)t;
	if (TKU_GROW(s->buf, s->bcap, s->nbuf + 1, 64) != TK_OK)
		return TK_ENOMEM;
	s->buf[s->nbuf++] = *e;
	return TK_OK;
}

/*
 * Sweep the tracks whose load order was not start order again: the events before the late one
 * read by id beside the ones the pass kept, all sorted in (start, id) order; or, beyond the
 * bounds (module comment), every event of the track through the index, in that order.
 */
static int pass_unsorted(struct tka_ctx *c, struct tku_table *G, struct track_sweep *T,
			 int64_t ntracks)
{
	sqlite3_stmt *byid = NULL, *byix = NULL;
	int rc = TK_OK;
	for (int64_t t = 1; t <= ntracks && rc == TK_OK; t++) {
		struct track_sweep *s = &T[t];
		if (!s->unsorted)
			continue;
		groups_drop_track(G, t);
		s->n = 0;
		s->seen = 0;
		/* first_late > first_id (ids come in order): unsigned, the span of any two ids fits */
		int by_id =
		    s->collecting && s->before <= (int64_t)COLLECT_EVENTS &&
		    (uint64_t)s->first_late - (uint64_t)s->first_id <= 2 * (uint64_t)s->count;
		/* the events before the late one, all in its history (the late one is its last) */
		int kept = s->collecting && s->hist && (int64_t)s->nhist == s->before + 1;
		if (kept) {
			for (int64_t k = 0; rc == TK_OK && k < s->before; k++)
				if (to_buffer(G, t, s, &s->hist[k]) != TK_OK)
					rc = tka_fail(c, TK_ENOMEM,
						      "out of memory in the op profile");
			history_free(s);
			if (rc == TK_OK)
				rc = sweep_buffered(c, G, t, s);
		} else if (!by_id) {
			if (!byix)
				rc = tka_prepare(
				    c, UNSORTED_COLS "WHERE e.track_id = ?1 ORDER BY e.ts_ns, e.id",
				    &byix);
			if (rc != TK_OK)
				break;
			sqlite3_reset(byix);
			sqlite3_bind_int64(byix, 1, t);
			rc = read_rows(c, byix, G, t, s, sweep_event);
		} else {
			/* +track_id: by the rows' ids, not through the track's index */
			if (!byid)
				rc = tka_prepare(c,
						 UNSORTED_COLS "WHERE e.id >= ?2 AND e.id < ?3 AND "
							       "+e.track_id = ?1",
						 &byid);
			if (rc != TK_OK)
				break;
			sqlite3_reset(byid);
			sqlite3_bind_int64(byid, 1, t);
			sqlite3_bind_int64(byid, 2, s->first_id);
			sqlite3_bind_int64(byid, 3, s->first_late);
			rc = read_rows(c, byid, G, t, s, to_buffer);
			if (rc == TK_OK)
				rc = sweep_buffered(c, G, t, s);
		}
		if (rc == TK_OK && sweep_finish(G, t, s) != TK_OK)
			rc = tka_fail(c, TK_ENOMEM, "out of memory in the op profile");
		free(s->buf); /* the next track's room */
		s->buf = NULL;
		s->nbuf = s->bcap = 0;
	}
	sqlite3_finalize(byid);
	sqlite3_finalize(byix);
	return rc;
}

static int write_track_groups(struct tka_ctx *c, const struct tku_table *G)
{
	sqlite3_stmt *ins = NULL;
	int rc = tka_exec(c, "op profile",
			  "DROP TABLE IF EXISTS temp._op_track;"
			  "CREATE TEMP TABLE _op_track (track_id INTEGER, kind INTEGER, name_id "
			  "INTEGER, cat_id INTEGER, module_id INTEGER, n INTEGER, total INTEGER, "
			  "self INTEGER, mn INTEGER, mx INTEGER)");
	if (rc == TK_OK)
		rc =
		    tka_prepare(c, "INSERT INTO temp._op_track VALUES (?,?,?,?,?,?,?,?,?,?)", &ins);
	for (size_t i = 0; rc == TK_OK && i < G->n; i++) {
		const struct group *g = tku_table_elem(G, i);
		if (g->key[1] < 0)
			continue;
		for (int k = 0; k < 5; k++) {
			if (k >= 3 && !g->key[k])
				sqlite3_bind_null(ins, k + 1);
			else
				sqlite3_bind_int64(ins, k + 1, g->key[k]);
		}
		sqlite3_bind_int64(ins, 6, g->n);
		sqlite3_bind_int64(ins, 7, g->total);
		sqlite3_bind_int64(ins, 8, g->self);
		sqlite3_bind_int64(ins, 9, g->min);
		sqlite3_bind_int64(ins, 10, g->max);
		if (sqlite3_step(ins) != SQLITE_DONE)
			rc = tka_fail(c, TK_EINTERNAL, "writing the op profile: %s",
				      sqlite3_errmsg(c->db));
		sqlite3_reset(ins);
	}
	sqlite3_finalize(ins);
	return rc;
}

/* Name of the busy-time source: analysis_device_time when the device-time analysis wrote it. */
static int have_table(struct tka_ctx *c, const char *name)
{
	sqlite3_stmt *q = NULL;
	int found = 0;
	if (sqlite3_prepare_v2(c->db,
			       "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", -1,
			       &q, NULL) == SQLITE_OK) {
		sqlite3_bind_text(q, 1, name, -1, SQLITE_STATIC);
		found = sqlite3_step(q) == SQLITE_ROW;
	}
	sqlite3_finalize(q);
	return found;
}

TKA_WRITES(TK_NCOLS_ANALYSIS_OP_PROFILE, 13, "analysis_op_profile");
TKA_WRITES(TK_NCOLS_ANALYSIS_HLO_OP_KERNELS, 7, "analysis_hlo_op_kernels");

static int write_profile(struct tka_ctx *c)
{
	int dt = have_table(c, "analysis_device_time");
	int rc =
	    tka_exec(c, "op profile",
		     dt ? "CREATE TEMP TABLE _op_busy AS SELECT device_id, busy_ns, idle_ns FROM "
			  "analysis_device_time WHERE \"window\" = 'device' AND device_id "
			  "BETWEEN " TKA_SQL_DEV_LO " AND " TKA_SQL_DEV_HI
			: "CREATE TEMP TABLE _op_busy (device_id INTEGER, busy_ns INTEGER, idle_ns "
			  "INTEGER)");
	if (rc != TK_OK)
		return rc;
	rc = tka_exec(
	    c, "op profile",
	    "INSERT INTO analysis_op_profile (" TK_COLS_ANALYSIS_OP_PROFILE ") "
	    "SELECT k.name, g.device_id, g.process_id, m.str, ca.str, coalesce(s.str, ''), g.n, "
	    "  g.total, g.self, "
	    "  CAST(g.total AS REAL) / g.n, g.mn, g.mx, "
	    "  CASE WHEN b.busy_ns > 0 AND g.kind <> " TK_SQL_EV_ASYNC_XLA_OP
	    " THEN CAST(g.total AS REAL) / b.busy_ns END "
	    "FROM (SELECT o.kind, t.device_id, CASE WHEN t.device_id IS NULL THEN t.process_id END "
	    "        AS process_id, o.module_id, o.cat_id, o.name_id, sum(o.n) AS n, "
	    "        sum(o.total) AS total, sum(o.self) AS self, min(o.mn) AS mn, max(o.mx) AS mx "
	    "      FROM temp._op_track o JOIN tracks t ON t.id = o.track_id "
	    "      GROUP BY 1, 2, 3, 4, 5, 6) g "
	    "JOIN event_kinds k ON k.id = g.kind "
	    "JOIN strings s ON s.id = g.name_id "
	    "LEFT JOIN strings m ON m.id = g.module_id "
	    "LEFT JOIN strings ca ON ca.id = g.cat_id "
	    "LEFT JOIN temp._op_busy b ON g.device_id IS NOT NULL AND b.device_id = g.device_id "
	    "ORDER BY g.device_id IS NULL, g.device_id, g.process_id, g.total DESC, s.str;"
	    /* HLO ops of GPU traces (XLA on GPU): the device ops that carry one, by HLO op
	     * (op_details outside: CROSS JOIN keeps SQLite from going through every event of
	     * the part for the few, or none, that have details) */
	    "CREATE TEMP TABLE _op_hlo AS SELECT t.device_id AS device_id, o.hlo_module_id AS "
	    "  module_id, o.hlo_op_id AS hlo_id, e.name_id AS name_id, count(*) AS n, "
	    "  sum(e.dur_ns) AS total, min(e.dur_ns) AS mn, max(e.dur_ns) AS mx, "
	    "  max(o.op_category_id) AS cat_id "
	    "FROM op_details o CROSS JOIN events e ON e.id = o.event_id "
	    "JOIN tracks t ON t.id = e.track_id "
	    "WHERE o.hlo_op_id IS NOT NULL AND e.kind IN (" TK_SQL_EV_DEVICE_OPS
	    ") AND t.device_id IS NOT NULL AND o.event_id BETWEEN " TKA_SQL_EV_LO
	    " AND " TKA_SQL_EV_HI " GROUP BY 1, 2, 3, 4;"
	    "INSERT INTO analysis_op_profile (" TK_COLS_ANALYSIS_OP_PROFILE ") "
	    "SELECT 'hlo_op', g.device_id, NULL, m.str, ca.str, coalesce(h.str, ''), g.n, g.total, "
	    "  g.total, "
	    "  CAST(g.total AS REAL) / g.n, g.mn, g.mx, "
	    "  CASE WHEN b.busy_ns > 0 THEN CAST(g.total AS REAL) / b.busy_ns END "
	    "FROM (SELECT device_id, module_id, hlo_id, max(cat_id) AS cat_id, sum(n) AS n, "
	    "        sum(total) AS total, min(mn) AS mn, max(mx) AS mx FROM temp._op_hlo "
	    "      GROUP BY 1, 2, 3) g "
	    "JOIN strings h ON h.id = g.hlo_id "
	    "LEFT JOIN strings m ON m.id = g.module_id "
	    "LEFT JOIN strings ca ON ca.id = g.cat_id "
	    "LEFT JOIN temp._op_busy b ON b.device_id = g.device_id "
	    "ORDER BY g.device_id, g.total DESC, h.str, m.str;"
	    "INSERT INTO analysis_hlo_op_kernels (" TK_COLS_ANALYSIS_HLO_OP_KERNELS ") "
	    "SELECT k.device_id, m.str, h.str, s.str, k.n, k.total, "
	    "  CASE WHEN a.total > 0 THEN CAST(k.total AS REAL) / a.total ELSE 0 END "
	    "FROM temp._op_hlo k "
	    "JOIN (SELECT device_id, module_id, hlo_id, sum(total) AS total FROM temp._op_hlo "
	    "      GROUP BY 1, 2, 3) a ON a.device_id = k.device_id AND a.hlo_id = k.hlo_id AND "
	    "  a.module_id IS k.module_id "
	    "JOIN strings h ON h.id = k.hlo_id JOIN strings s ON s.id = k.name_id "
	    "LEFT JOIN strings m ON m.id = k.module_id "
	    "ORDER BY k.device_id, a.total DESC, h.str, m.str, k.total DESC, s.str;"
	    "DROP TABLE temp._op_hlo;"
	    "INSERT INTO analysis_op_profile (" TK_COLS_ANALYSIS_OP_PROFILE ") "
	    "SELECT 'idle', device_id, NULL, NULL, NULL, 'IDLE', NULL, idle_ns, idle_ns, NULL, "
	    "  NULL, NULL, NULL FROM temp._op_busy WHERE idle_ns IS NOT NULL ORDER BY device_id;"
	    "DROP TABLE temp._op_busy; DROP TABLE temp._op_track;");
	return rc;
}

int tka_op_profile(struct tka_ctx *c)
{
	int rc = tka_pass_run(c); /* feeds the sweeps of every track read in load order */
	if (rc == TK_OK && !c->ops)
		rc = tka_fail(c, TK_EINTERNAL, "the op profile was already written");
	if (rc != TK_OK)
		return rc;
	struct tka_op_state *s = c->ops;
	rc = pass_unsorted(c, &s->G, s->T, s->ntracks);
	if (rc == TK_OK)
		rc = write_track_groups(c, &s->G);
	if (rc == TK_OK)
		rc = write_profile(c);
	tka_op_profile_free(s);
	c->ops = NULL;
	return rc;
}

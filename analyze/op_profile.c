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
 * in load (rowid) order, into a small reorder buffer per track (sources often write a parent
 * after its children); a track where an event comes later than the buffer can absorb is swept
 * again on its own, in index order, and its first results are dropped.
 */
#include <stdlib.h>
#include <string.h>

#include <tracekit/store.h>

#include "analyze_internal.h"
#include "../util/map.h"

/* One open event on a track's stack. */
struct open_ev {
	int64_t ts, end, self;
	int64_t name_id, cat_id, module_id; /* cat_id/module_id 0 = none */
	int kind;
};

/* Events a track's reorder buffer holds back before the earliest is swept. */
#define REORDER_EVENTS 8192

/* Sweep state of one track. */
struct track_sweep {
	struct open_ev *st; /* open events, outermost first */
	size_t n, cap;
	struct open_ev *buf; /* reorder buffer: buf[head, head + nbuf) in start order */
	size_t head, nbuf, bcap;
	int64_t now, last_ts; /* sweep time; start of the last event swept */
	int seen, unsorted;
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

/* Sweep the earliest buffered event of @s. */
static int buffer_release(struct tku_table *G, int64_t track, struct track_sweep *s)
{
	struct open_ev e = s->buf[s->head];
	s->head++;
	s->nbuf--;
	return sweep_event(G, track, s, &e);
}

/*
 * Put @e (in load order) into the reorder buffer of @s, sweeping the earliest when it is full.
 * Marks the track unsorted when @e starts before an event already swept.
 */
static int buffer_add(struct tku_table *G, int64_t track, struct track_sweep *s,
		      const struct open_ev *e)
{
	if (s->seen && e->ts < s->last_ts) {
		s->unsorted = 1;
		return TK_OK;
	}
	if (s->head + s->nbuf == s->bcap) {
		if (s->head > 0) {
			memmove(s->buf, s->buf + s->head, s->nbuf * sizeof(*e));
			s->head = 0;
		} else if (TKU_GROW(s->buf, s->bcap, s->nbuf + 1, 64) != TK_OK) {
			return TK_ENOMEM;
		}
	}
	/* Insert after every buffered event that starts at or before it (keeps load order). */
	struct open_ev *b = s->buf + s->head;
	size_t lo = 0, hi = s->nbuf;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (b[mid].ts <= e->ts)
			lo = mid + 1;
		else
			hi = mid;
	}
	memmove(&b[lo + 1], &b[lo], (s->nbuf - lo) * sizeof(*e));
	b[lo] = *e;
	s->nbuf++;
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
};

void tka_op_profile_free(struct tka_op_state *s)
{
	if (!s)
		return;
	for (int64_t t = 0; s->T && t <= s->ntracks; t++) {
		free(s->T[t].st);
		free(s->T[t].buf);
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

/* One event in load order (op_details merged in by the pass) into its track's reorder buffer. */
int tka_op_profile_event(struct tka_ctx *c, const struct tka_ev *ev)
{
	struct tka_op_state *s = c->ops;
	if (ev->track < 1 || ev->track > s->ntracks || !nests(ev->kind))
		return TK_OK; /* no track to report it on, or a label */
	struct track_sweep *ts = &s->T[ev->track];
	if (ts->unsorted)
		return TK_OK;
	struct open_ev e;
	e.kind = ev->kind;
	e.name_id = ev->name_id;
	e.cat_id = ev->has_op && ev->op_cat ? ev->op_cat : ev->cat_id;
	e.module_id = ev->has_op ? ev->op_module : 0;
	e.ts = ev->ts;
	e.end = ev->dur > 0 && e.ts <= INT64_MAX - ev->dur ? e.ts + ev->dur : e.ts;
	e.self = 0;
	if (buffer_add(&s->G, ev->track, ts, &e) != TK_OK)
		return tka_fail(c, TK_ENOMEM, "out of memory in the op profile");
	return TK_OK;
}

int tka_op_profile_end(struct tka_ctx *c)
{
	struct tka_op_state *s = c->ops;
	for (int64_t t = 1; t <= s->ntracks; t++)
		if (!s->T[t].unsorted && buffer_finish(&s->G, t, &s->T[t]) != TK_OK)
			return tka_fail(c, TK_ENOMEM, "out of memory in the op profile");
	return TK_OK;
}

/* Sweep the tracks whose load order was not start order again, in index order. */
static int pass_unsorted(struct tka_ctx *c, struct tku_table *G, struct track_sweep *T,
			 int64_t ntracks)
{
	sqlite3_stmt *q = NULL;
	int rc = TK_OK, step;
	for (int64_t t = 1; t <= ntracks && rc == TK_OK; t++) {
		if (!T[t].unsorted)
			continue;
		groups_drop_track(G, t);
		struct track_sweep *s = &T[t];
		s->n = s->nbuf = s->head = 0;
		s->seen = 0;
		if (!q)
			rc = tka_prepare(c,
					 "SELECT e.track_id, e.kind, e.name_id, "
					 "coalesce(o.op_category_id, e.category_id, 0), e.ts_ns, "
					 "e.dur_ns, coalesce(o.hlo_module_id, 0) FROM events e "
					 "LEFT JOIN op_details o ON o.event_id = e.id "
					 "WHERE e.track_id = ? ORDER BY e.ts_ns",
					 &q);
		if (rc != TK_OK)
			break;
		sqlite3_reset(q);
		sqlite3_bind_int64(q, 1, t);
		while ((step = sqlite3_step(q)) == SQLITE_ROW) {
			struct open_ev e;
			row_event(q, &e);
			e.module_id = sqlite3_column_int64(q, 6);
			if (!nests(e.kind))
				continue;
			if ((rc = sweep_event(G, t, s, &e)) != TK_OK)
				break;
		}
		if (rc == TK_OK && step != SQLITE_DONE)
			rc = tka_fail(c, TK_EINTERNAL, "reading events: %s", sqlite3_errmsg(c->db));
		else if (rc == TK_OK)
			rc = sweep_finish(G, t, s);
		if (rc == TK_ENOMEM)
			tka_fail(c, rc, "out of memory in the op profile");
	}
	sqlite3_finalize(q);
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
			  "analysis_device_time WHERE \"window\" = 'device'"
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
	    /* HLO ops of GPU traces (XLA on GPU): the device ops that carry one, by HLO op */
	    "CREATE TEMP TABLE _op_hlo AS SELECT t.device_id AS device_id, o.hlo_module_id AS "
	    "  module_id, o.hlo_op_id AS hlo_id, e.name_id AS name_id, count(*) AS n, "
	    "  sum(e.dur_ns) AS total, min(e.dur_ns) AS mn, max(e.dur_ns) AS mx, "
	    "  max(o.op_category_id) AS cat_id "
	    "FROM op_details o JOIN events e ON e.id = o.event_id "
	    "JOIN tracks t ON t.id = e.track_id "
	    "WHERE o.hlo_op_id IS NOT NULL AND e.kind IN (" TK_SQL_EV_DEVICE_OPS
	    ") AND t.device_id IS NOT NULL "
	    "GROUP BY 1, 2, 3, 4;"
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

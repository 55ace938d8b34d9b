/*
 * Idle gaps (docs/metrics.md, "Idle gaps"): every maximal not-busy interval of each device inside
 * its selected window, with its cause (host_bound, kernel_wait, sync, dependency, unknown: from
 * the launch of the device operation that ends it and the synchronizations on its launching
 * thread, intervals.c and gap_causes.c), the call that explains a sync gap, and the operations
 * before and after (analysis_gaps); and per stream HTA's idle categories host_wait / kernel_wait /
 * other, with overlaps counted apart (analysis_gap_summary); and per device, cause and decade of
 * length the gaps' count, total and longest (analysis_gap_buckets: what the reports sum, and what
 * a job summary keeps whole when it keeps only the longest gaps). Built from the shared timeline
 * in linear sweeps.
 */
#include "intervals.h"

#include <tracekit/store.h>

#include <stdlib.h>
#include <string.h>

/* Decades of gap length: [0, 1 us), [1, 10) us, ..., [0.1, 1) s, >= 1 s. */
#define N_BUCKET 8
#define N_CAUSE (TKA_GAP_UNKNOWN + 1)

struct gap_bucket {
	int64_t gaps, total, longest;
};

struct gap_writer {
	struct tka_ctx *c;
	sqlite3_stmt *ins;
	const struct tka_device *d;
	struct tka_names *names; /* the ops' and synchronizations' names */
	struct gap_bucket b[N_CAUSE][N_BUCKET];
};

/* The lower bound of bucket @k in ns. */
static int64_t bucket_lo(int k)
{
	int64_t lo = 0;
	for (int i = 0; i < k; i++)
		lo = lo ? lo * 10 : 1000;
	return lo;
}

static void add_bucket(struct gap_writer *gw, const struct tka_gap *g)
{
	int64_t dur = g->end - g->start;
	int k = 0;
	while (k + 1 < N_BUCKET && dur >= bucket_lo(k + 1))
		k++;
	struct gap_bucket *b =
	    &gw->b[g->cause >= 0 && g->cause < N_CAUSE ? g->cause : TKA_GAP_UNKNOWN][k];
	b->gaps++;
	b->total += dur;
	if (dur > b->longest)
		b->longest = dur;
}

/* Bind name @id to parameter @i of @ins (NULL when the store has none). */
static int bind_name(struct gap_writer *gw, int i, int64_t id)
{
	const char *s = NULL;
	int rc = tka_name(gw->c, gw->names, id, &s);
	if (rc == TK_OK)
		sqlite3_bind_text(gw->ins, i, s, -1, SQLITE_STATIC);
	return rc;
}

static int write_gap(void *arg, const struct tka_gap *g)
{
	struct gap_writer *gw = arg;
	const struct tka_device *d = gw->d;
	sqlite3_stmt *ins = gw->ins;
	int i = 1, rc = TK_OK;
	add_bucket(gw, g);
	sqlite3_reset(ins);
	sqlite3_bind_int64(ins, i++, d->device_id);
	sqlite3_bind_text(ins, i++, tka_window_name(d), -1, SQLITE_STATIC);
	sqlite3_bind_int64(ins, i++, g->start);
	sqlite3_bind_int64(ins, i++, g->end);
	sqlite3_bind_int64(ins, i++, g->end - g->start);
	sqlite3_bind_text(ins, i++, tka_gap_cause_name(g->cause), -1, SQLITE_STATIC);
	if (g->next != SIZE_MAX && d->ops[g->next].launch_ts != TKA_NO_LAUNCH)
		sqlite3_bind_int64(ins, i++, d->ops[g->next].launch_ts);
	else
		sqlite3_bind_null(ins, i++);
	const size_t ends[2] = {g->prev, g->next};
	for (int k = 0; k < 2; k++) {
		if (ends[k] == SIZE_MAX) {
			sqlite3_bind_null(ins, i++);
			sqlite3_bind_null(ins, i++);
		} else {
			sqlite3_bind_int64(ins, i++, d->ops[ends[k]].id);
			if ((rc = bind_name(gw, i++, d->ops[ends[k]].name_id)) != TK_OK)
				return rc;
		}
	}
	if (g->by) {
		sqlite3_bind_int64(ins, i++, g->by->id);
		if ((rc = bind_name(gw, i++, g->by->name_id)) != TK_OK)
			return rc;
	} else {
		sqlite3_bind_null(ins, i++);
		sqlite3_bind_null(ins, i++);
	}
	if (sqlite3_step(ins) != SQLITE_DONE)
		return tka_fail(gw->c, TK_EINTERNAL, "writing analysis_gaps: %s",
				sqlite3_errmsg(gw->c->db));
	return TK_OK;
}

enum { CAT_HOST, CAT_KERNEL, CAT_OTHER, CAT_OVERLAP, N_CAT };
static const char *const cat_names[N_CAT] = {"host_wait", "kernel_wait", "other", "overlap"};

struct cat_sum {
	int64_t count, total, min, max;
};

struct stream_state {
	int seen;
	int64_t max_end;
	struct cat_sum cat[N_CAT];
};

static void add_cat(struct cat_sum *s, int64_t v)
{
	if (s->count == 0 || v < s->min)
		s->min = v;
	if (s->count == 0 || v > s->max)
		s->max = v;
	s->count++;
	s->total += v;
}

/* 1 when @ts lies inside a span of @w (w sorted; @hint advances monotonically with ts). */
static int in_window(const struct tka_spans *w, size_t *hint, int64_t ts)
{
	while (*hint < w->n && w->v[*hint].end <= ts)
		(*hint)++;
	return *hint < w->n && w->v[*hint].start <= ts;
}

/* Per-stream HTA categories over consecutive operations of each stream. */
static int stream_summary(struct tka_ctx *c, sqlite3_stmt *ins, const struct tka_device *d)
{
	struct stream_state *st = calloc(d->nstreams ? d->nstreams : 1, sizeof(*st));
	size_t hint = 0;
	int rc = TK_OK;
	if (!st)
		return tka_fail(c, TK_ENOMEM, "out of memory");
	for (size_t k = 0; k < d->nops; k++) {
		const struct tka_op *op = &d->ops[k];
		struct stream_state *s = &st[op->stream];
		if (s->seen && in_window(d->window, &hint, op->ts)) {
			int64_t gap = op->ts - s->max_end;
			if (gap < 0)
				add_cat(&s->cat[CAT_OVERLAP], -gap);
			else if (op->launch_ts != TKA_NO_LAUNCH && op->launch_ts > s->max_end)
				add_cat(&s->cat[CAT_HOST], gap);
			else if (gap < TKA_KERNEL_WAIT_NS)
				add_cat(&s->cat[CAT_KERNEL], gap);
			else
				add_cat(&s->cat[CAT_OTHER], gap);
		}
		if (!s->seen || op->end > s->max_end)
			s->max_end = op->end;
		s->seen = 1;
	}
	for (size_t i = 0; i < d->nstreams; i++) {
		for (int k = 0; k < N_CAT; k++) {
			const struct cat_sum *cs = &st[i].cat[k];
			if (cs->count == 0)
				continue;
			int j = 1;
			sqlite3_reset(ins);
			sqlite3_bind_int64(ins, j++, d->device_id);
			sqlite3_bind_int64(ins, j++, d->streams[i].track_id);
			if (d->streams[i].stream_id == TK_NONE)
				sqlite3_bind_null(ins, j++);
			else
				sqlite3_bind_int64(ins, j++, d->streams[i].stream_id);
			sqlite3_bind_text(ins, j++, tka_window_name(d), -1, SQLITE_STATIC);
			sqlite3_bind_text(ins, j++, cat_names[k], -1, SQLITE_STATIC);
			sqlite3_bind_int64(ins, j++, cs->count);
			sqlite3_bind_int64(ins, j++, cs->total);
			sqlite3_bind_int64(ins, j++, cs->min);
			sqlite3_bind_int64(ins, j++, cs->max);
			if (sqlite3_step(ins) != SQLITE_DONE) {
				rc = tka_fail(c, TK_EINTERNAL, "writing analysis_gap_summary: %s",
					      sqlite3_errmsg(c->db));
				goto out;
			}
		}
	}
out:
	free(st);
	return rc;
}

/* The non-empty buckets of one device into analysis_gap_buckets. */
static int write_buckets(struct tka_ctx *c, sqlite3_stmt *ins, const struct gap_writer *gw)
{
	for (int cause = 0; cause < N_CAUSE; cause++) {
		for (int k = 0; k < N_BUCKET; k++) {
			const struct gap_bucket *b = &gw->b[cause][k];
			if (!b->gaps)
				continue;
			int j = 1;
			sqlite3_reset(ins);
			sqlite3_bind_int64(ins, j++, gw->d->device_id);
			sqlite3_bind_text(ins, j++, tka_window_name(gw->d), -1, SQLITE_STATIC);
			sqlite3_bind_text(ins, j++, tka_gap_cause_name(cause), -1, SQLITE_STATIC);
			sqlite3_bind_int64(ins, j++, bucket_lo(k));
			if (k + 1 < N_BUCKET)
				sqlite3_bind_int64(ins, j++, bucket_lo(k + 1));
			else
				sqlite3_bind_null(ins, j++);
			sqlite3_bind_int64(ins, j++, b->gaps);
			sqlite3_bind_int64(ins, j++, b->total);
			sqlite3_bind_int64(ins, j++, b->longest);
			if (sqlite3_step(ins) != SQLITE_DONE)
				return tka_fail(c, TK_EINTERNAL, "writing analysis_gap_buckets: %s",
						sqlite3_errmsg(c->db));
		}
	}
	return TK_OK;
}

/* analysis_gaps: every column but id (the rowid, the gap number). */
TKA_WRITES(TK_NCOLS_ANALYSIS_GAPS, 1 + 13, "analysis_gaps");
TKA_WRITES(TK_NCOLS_ANALYSIS_GAP_SUMMARY, 9, "analysis_gap_summary");
TKA_WRITES(TK_NCOLS_ANALYSIS_GAP_BUCKETS, 8, "analysis_gap_buckets");

int tka_gaps(struct tka_ctx *c)
{
	const struct tka_timeline *tl;
	sqlite3_stmt *ins = NULL, *sum = NULL, *bins = NULL;
	struct gap_writer *gw = NULL;
	struct tka_names names;
	int rc;
	tka_names_init(&names);
	if ((rc = tka_timeline_get(c, &tl)) != TK_OK ||
	    (rc = tka_prepare(
		 c,
		 "INSERT INTO analysis_gaps (device_id, window, start_ns, end_ns, dur_ns,"
		 " cause, launch_ts_ns, prev_event_id, prev_name, next_event_id, "
		 "next_name, explained_by_event_id, explained_by_name)"
		 " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
		 &ins)) != TK_OK ||
	    (rc = tka_prepare(c,
			      "INSERT INTO analysis_gap_summary (" TK_COLS_ANALYSIS_GAP_SUMMARY
			      ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
			      &sum)) != TK_OK ||
	    (rc = tka_prepare(c,
			      "INSERT INTO analysis_gap_buckets (" TK_COLS_ANALYSIS_GAP_BUCKETS
			      ") VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
			      &bins)) != TK_OK)
		goto out;
	if (!(gw = malloc(sizeof(*gw)))) {
		rc = tka_fail(c, TK_ENOMEM, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < tl->ndev; i++) {
		memset(gw, 0, sizeof(*gw));
		gw->c = c;
		gw->ins = ins;
		gw->d = &tl->dev[i];
		gw->names = &names;
		if ((rc = tka_gaps_each(&tl->dev[i], tl->dev[i].window, write_gap, gw)) != TK_OK ||
		    (rc = write_buckets(c, bins, gw)) != TK_OK ||
		    (rc = stream_summary(c, sum, &tl->dev[i])) != TK_OK)
			goto out;
	}
out:
	tka_names_free(&names);
	free(gw);
	sqlite3_finalize(ins);
	sqlite3_finalize(sum);
	sqlite3_finalize(bins);
	return rc;
}

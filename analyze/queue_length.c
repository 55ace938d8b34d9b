/*
 * Queue length per stream over time (analysis_queue_length, analysis_queue_timeline;
 * docs/metrics.md, "Queue length"), HTA's queue length view: how many device operations a
 * stream holds that were launched and have not finished (length), and of those how many have not
 * started (waiting, HTA's queue length), from the launches the timeline links. Per device: one
 * sort of the +1/-1 steps by (stream, time) and a sweep per stream, one sort by time and a sweep
 * for the whole device; the selected window's figures (maximum, time-weighted means, the share
 * with nothing in flight, the longest such stretch) and 1000 buckets over the window for charts.
 * The devices are computed on c->jobs threads, their rows written in device order (device_jobs.c).
 */
#include "checked.h"
#include "intervals.h"

#include <stdlib.h>
#include <string.h>
#include <tracekit/store.h>

#include "util/sort.h"

#define NBUCKETS 1000 /* timeline buckets per device window */

/* A step of a stream's counts at time t: length (in flight) and waiting (not started). */
struct qev {
	int64_t t;
	uint32_t stream;
	int32_t dlen, dwait;
};

static int by_stream_time(const void *pa, const void *pb)
{
	const struct qev *a = pa, *b = pb;
	if (a->stream != b->stream)
		return a->stream < b->stream ? -1 : 1;
	return (a->t > b->t) - (a->t < b->t);
}

static int by_time(const void *pa, const void *pb)
{
	const struct qev *a = pa, *b = pb;
	return (a->t > b->t) - (a->t < b->t);
}

#define STREAM_TIME_BEFORE(a, b) (by_stream_time((a), (b)) < 0)
#define TIME_BEFORE(a, b) ((a)->t < (b)->t)
TKU_SORT_DEFINE(sort_stream_time, struct qev, STREAM_TIME_BEFORE)
TKU_SORT_DEFINE(sort_time, struct qev, TIME_BEFORE)

/* Timeline buckets of one series over [start, start + nb * width), the last one cut at end. */
struct buckets {
	int64_t start, end, width;
	int nb;
	int64_t max_len[NBUCKETS], max_wait[NBUCKETS];
	double len_int[NBUCKETS];
};

/* The figures of one series over the window. */
struct qsum {
	int64_t max_len, max_wait, len_int, wait_int, nonempty_ns, waiting_ns;
	int64_t longest_empty, longest_start; /* longest_start TK_NONE when none */
	int bad;			      /* an integral overflowed */
};

/* The window pieces of the empty stretch [a, b): the longest one so far into @o. */
static void empty_run(const struct tka_spans *w, int64_t a, int64_t b, struct qsum *o)
{
	size_t lo = 0, hi = w->n;
	while (lo < hi) { /* the first span that ends after a */
		size_t mid = lo + (hi - lo) / 2;
		if (w->v[mid].end <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t k = lo; k < w->n && w->v[k].start < b; k++) {
		int64_t s = w->v[k].start > a ? w->v[k].start : a;
		int64_t e = w->v[k].end < b ? w->v[k].end : b;
		if (e - s > o->longest_empty) {
			o->longest_empty = e - s;
			o->longest_start = s;
		}
	}
}

/* Length @L and waiting @W held over [a, b) (L > 0). */
static void segment(const struct tka_spans *w, struct buckets *bk, int64_t a, int64_t b, int64_t L,
		    int64_t W, struct qsum *o)
{
	int64_t ov = tka_spans_len_in(w, a, b), x;
	if (ov > 0) {
		o->max_len = L > o->max_len ? L : o->max_len;
		o->max_wait = W > o->max_wait ? W : o->max_wait;
		o->nonempty_ns += ov;
		if (W > 0)
			o->waiting_ns += ov;
		if (tk_mul_ovf(L, ov, &x) || tk_add_ovf(o->len_int, x, &o->len_int) ||
		    tk_mul_ovf(W, ov, &x) || tk_add_ovf(o->wait_int, x, &o->wait_int))
			o->bad = 1;
	}
	if (!bk || bk->nb == 0)
		return;
	a = a > bk->start ? a : bk->start;
	b = b < bk->end ? b : bk->end;
	if (a >= b)
		return;
	for (int64_t k = (a - bk->start) / bk->width; k <= (b - 1 - bk->start) / bk->width; k++) {
		int64_t bs = bk->start + k * bk->width, be = bs + bk->width;
		int64_t s = a > bs ? a : bs, e = b < be ? b : be;
		if (e <= s)
			continue;
		bk->len_int[k] += (double)L * (double)(e - s);
		bk->max_len[k] = L > bk->max_len[k] ? L : bk->max_len[k];
		bk->max_wait[k] = W > bk->max_wait[k] ? W : bk->max_wait[k];
	}
}

/* Sweep the steps @ev (n, sorted by time) of one series. */
static void sweep(const struct qev *ev, size_t n, const struct tka_spans *w, struct buckets *bk,
		  struct qsum *o)
{
	int64_t L = 0, W = 0, prev = 0, zero_from = INT64_MIN;
	memset(o, 0, sizeof(*o));
	o->longest_start = TK_NONE;
	if (bk) {
		memset(bk->max_len, 0, sizeof(bk->max_len));
		memset(bk->max_wait, 0, sizeof(bk->max_wait));
		memset(bk->len_int, 0, sizeof(bk->len_int));
	}
	for (size_t i = 0; i < n;) {
		int64_t t = ev[i].t, was = L;
		if (L > 0 && t > prev)
			segment(w, bk, prev, t, L, W, o);
		for (; i < n && ev[i].t == t; i++) {
			L += ev[i].dlen;
			W += ev[i].dwait;
		}
		if (was == 0 && L > 0)
			empty_run(w, zero_from, t, o);
		else if (was > 0 && L == 0)
			zero_from = t;
		prev = t;
	}
	empty_run(w, zero_from, INT64_MAX, o);
}

/* The writer's statements. */
enum { W_SUM, W_TL };

static void row_share(struct tka_rows *r, int64_t part, int64_t whole)
{
	if (whole > 0)
		tka_row_double(r, (double)part / (double)whole);
	else
		tka_row_null(r);
}

/* One row of analysis_queue_length and the series' buckets. */
static int write_series(struct tka_ctx *c, struct tka_rows *r, const struct tka_device *d,
			const struct tka_stream *st, int64_t ops, int64_t launched,
			const struct qsum *o, const struct buckets *bk)
{
	int64_t wns = tka_spans_len(d->window);
	int rc;
	if (o->bad)
		return tka_fail(c, TK_EFORMAT, "device %lld: queue length integral overflows",
				(long long)d->device_id);
	tka_row_begin(r, W_SUM);
	tka_row_int(r, d->device_id);
	if (st) {
		tka_row_int(r, st->track_id);
		if (st->stream_id != TK_NONE)
			tka_row_int(r, st->stream_id);
		else
			tka_row_null(r);
	} else {
		tka_row_null(r);
		tka_row_null(r);
	}
	tka_row_text(r, tka_window_name(d));
	tka_row_int(r, wns);
	tka_row_int(r, ops);
	tka_row_int(r, launched);
	tka_row_int(r, o->max_len);
	row_share(r, o->len_int, wns);
	tka_row_int(r, wns - o->nonempty_ns);
	row_share(r, wns - o->nonempty_ns, wns);
	tka_row_int(r, o->longest_empty);
	if (o->longest_start != TK_NONE)
		tka_row_int(r, o->longest_start);
	else
		tka_row_null(r);
	tka_row_int(r, o->max_wait);
	row_share(r, o->wait_int, wns);
	row_share(r, o->waiting_ns, wns);
	if ((rc = tka_row_end(r)) != TK_OK)
		return rc;
	for (int k = 0; k < bk->nb; k++) {
		int64_t bs = bk->start + k * bk->width;
		int64_t be = bs + bk->width < bk->end ? bs + bk->width : bk->end;
		tka_row_begin(r, W_TL);
		tka_row_int(r, d->device_id);
		if (st)
			tka_row_int(r, st->track_id);
		else
			tka_row_null(r);
		tka_row_int(r, k);
		tka_row_int(r, bs);
		tka_row_int(r, be);
		tka_row_int(r, bk->max_len[k]);
		tka_row_double(r, bk->len_int[k] / (double)(be - bs));
		tka_row_int(r, bk->max_wait[k]);
		if ((rc = tka_row_end(r)) != TK_OK)
			return rc;
	}
	return TK_OK;
}

/* The +1/-1 steps of @d's operations into @ev (room for 3 per op); their count. */
static size_t steps_of(const struct tka_device *d, struct qev *ev, int64_t *ops, int64_t *launched)
{
	size_t n = 0;
	for (size_t k = 0; k < d->nops; k++) {
		const struct tka_op *op = &d->ops[k];
		int queued = op->launch_ts != TKA_NO_LAUNCH && op->launch_ts < op->ts;
		int64_t from = queued ? op->launch_ts : op->ts;
		ops[op->stream]++;
		launched[op->stream] += op->launch_ts != TKA_NO_LAUNCH;
		if (from < op->end) {
			ev[n++] = (struct qev){from, op->stream, 1, queued};
			ev[n++] = (struct qev){op->end, op->stream, -1, 0};
		}
		if (queued)
			ev[n++] = (struct qev){op->ts, op->stream, 0, -1};
	}
	return n;
}

/* The series of device @i of the timeline @arg: its streams', then the whole device's. */
static int device_queues(struct tka_ctx *c, const void *arg, size_t i, struct tka_rows *r)
{
	const struct tka_device *d = &((const struct tka_timeline *)arg)->dev[i];
	struct buckets *bk = malloc(sizeof(*bk));
	struct qev *ev = malloc((d->nops ? d->nops : 1) * 3 * sizeof(*ev));
	int64_t *cnt = calloc(2 * (d->nstreams ? d->nstreams : 1), sizeof(*cnt));
	int64_t *ops = cnt, *launched = cnt + d->nstreams, all = 0, all_launched = 0;
	struct qsum o;
	int rc = TK_OK;
	if (!bk || !ev || !cnt) {
		rc = tka_fail(c, TK_ENOMEM, "out of memory");
		goto out;
	}
	size_t n = steps_of(d, ev, ops, launched);
	const struct tka_spans *w = d->window;
	bk->nb = 0;
	if (w->n && w->v[w->n - 1].end > w->v[0].start) {
		bk->start = w->v[0].start;
		bk->end = w->v[w->n - 1].end;
		bk->width = (bk->end - bk->start) / NBUCKETS + 1;
		bk->nb = (int)((bk->end - bk->start + bk->width - 1) / bk->width);
	}
	if (n > 1 && sort_stream_time(ev, n) != 0)
		qsort(ev, n, sizeof(*ev), by_stream_time);
	for (size_t a = 0, s = 0; s < d->nstreams && rc == TK_OK; s++) {
		size_t b = a;
		while (b < n && ev[b].stream == s)
			b++;
		all += ops[s];
		all_launched += launched[s];
		if (ops[s]) {
			sweep(ev + a, b - a, w, bk, &o);
			rc = write_series(c, r, d, &d->streams[s], ops[s], launched[s], &o, bk);
		}
		a = b;
	}
	if (rc != TK_OK)
		goto out;
	if (n > 1 && sort_time(ev, n) != 0)
		qsort(ev, n, sizeof(*ev), by_time);
	sweep(ev, n, w, bk, &o);
	rc = write_series(c, r, d, NULL, all, all_launched, &o, bk);
out:
	free(bk);
	free(ev);
	free(cnt);
	return rc;
}

TKA_WRITES(TK_NCOLS_ANALYSIS_QUEUE_LENGTH, 16, "analysis_queue_length");
TKA_WRITES(TK_NCOLS_ANALYSIS_QUEUE_TIMELINE, 8, "analysis_queue_timeline");

int tka_queue_length(struct tka_ctx *c)
{
	const struct tka_timeline *tl = NULL;
	struct tka_writer w = {{NULL, NULL},
			       {"writing the queue length", "writing the queue length"}};
	int rc = tka_timeline_get(c, &tl);
	if (rc == TK_OK)
		rc =
		    tka_prepare(c,
				"INSERT INTO analysis_queue_length (" TK_COLS_ANALYSIS_QUEUE_LENGTH
				") VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, "
				"?14, ?15, ?16)",
				&w.st[W_SUM]);
	if (rc == TK_OK)
		rc = tka_prepare(
		    c,
		    "INSERT INTO analysis_queue_timeline (" TK_COLS_ANALYSIS_QUEUE_TIMELINE
		    ") VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
		    &w.st[W_TL]);
	/* per device on c->jobs threads, the rows written here in device order */
	if (rc == TK_OK)
		rc = tka_each(c, tl->ndev, &w, device_queues, tl);
	sqlite3_finalize(w.st[W_SUM]);
	sqlite3_finalize(w.st[W_TL]);
	return rc;
}

/*
 * Building the timeline the time-based analyses share (intervals.h) from the pass over the
 * events (event_pass.c): the device operations of each device track are collected in load order
 * into the track's slice of the device's array (sized by a count on the events_by_track index),
 * merged into (ts, id) order from their ascending runs (a track loaded in start order is one
 * run), classified by the communication name rule and linked to the start of their launching API
 * call; then unions per class, steps (step_windows.c) and windows. Launches: the launch flows are read first, sorted by source event,
 * and their source times picked up as the pass goes by (no join); without launch flows, the API
 * calls' correlation ids are collected and matched in memory.
 */
#include "checked.h"
#include "intervals.h"

#include <stdlib.h>
#include <string.h>
#include <tracekit/store.h>

/* A device track as the builder sees it: where its operations go. */
struct tl_track {
	int32_t dev;	    /* index into the builder's devices, -1: not a device op track */
	uint16_t stream;    /* index into the device's streams */
	size_t off, n, cap; /* its kernels/copies/sets: dev ops [off, off + n), room for cap */
	struct tka_op *xla; /* its XLA ops, in load order */
	size_t nxla, capxla;
};

/*
 * A launch flow: the op it launched (dst), the start, track and duration of its source event.
 * Until the pass reaches the source, ts holds the source's event id; a flow whose source never
 * comes gets dst = INT64_MIN. tl_api: an API call that may have launched a device op by
 * correlation id.
 */
struct launch {
	int64_t dst, ts, track, dur;
};
struct tl_api {
	int64_t corr, proc, ts, track, dur;
};

struct tka_tl_builder {
	struct tka_timeline *tl; /* every device (with or without operations) until the end */
	struct tl_track *trk;	 /* by track id, [0, ntrk] */
	int64_t ntrk;
	uint8_t *name_cls; /* per name id: 0 not looked up, 1 compute, 2 comm */
	size_t name_cap;
	int64_t name_slots; /* ids a name may have: tk_id_cap(rows of strings) + 1; 0 unknown yet */
	sqlite3_stmt *name_st;
	struct launch *flows; /* launch flows, by source event id while the pass runs */
	size_t nflows, fpos;
	int flow_mode;	    /* the store has launch flows: launches come from them (else by
			  correlation id); a part of a job without any still has no launches */
	struct tl_api *api; /* correlation mode: API calls with a correlation id */
	size_t napi, capi;
};

static int name_is_comm(struct tka_ctx *c, struct tka_tl_builder *b, int64_t id, int *comm)
{
	if (id < 0 || (uint64_t)id >= b->name_cap) {
		size_t old = b->name_cap;
		if (b->name_slots == 0) { /* ids bounded by the rows (checked.h), learnt once */
			sqlite3_stmt *st = NULL;
			int rc = tka_prepare(c, "SELECT count(*) FROM strings", &st);
			if (rc != TK_OK)
				return rc;
			b->name_slots =
			    tk_id_cap(sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int64(st, 0)
								     : 0) +
			    1;
			sqlite3_finalize(st);
		}
		if (!tk_id_ok(id, b->name_slots))
			return tka_fail(c, TK_EFORMAT, "table events, name id %lld: %s",
					(long long)id, TK_ID_RANGE_MSG);
		if (TKU_GROW(b->name_cls, b->name_cap, (size_t)id + 1, 1024) != TK_OK)
			return tka_fail(c, TK_ENOMEM, "out of memory");
		memset(b->name_cls + old, 0, b->name_cap - old);
	}
	if (!b->name_cls[id]) {
		int rc;
		if (!b->name_st && (rc = tka_prepare(c, "SELECT str FROM strings WHERE id = ?",
						     &b->name_st)) != TK_OK)
			return rc;
		sqlite3_reset(b->name_st);
		sqlite3_bind_int64(b->name_st, 1, id);
		const char *s = NULL;
		if (sqlite3_step(b->name_st) == SQLITE_ROW)
			s = (const char *)sqlite3_column_text(b->name_st, 0);
		b->name_cls[id] = tka_is_comm_name(s) ? 2 : 1;
	}
	*comm = b->name_cls[id] == 2;
	return TK_OK;
}

static int op_less(const struct tka_op *a, const struct tka_op *b)
{
	return a->ts < b->ts || (a->ts == b->ts && a->id < b->id);
}

/*
 * Sort ops[0..n), made of the ascending runs ops[bounds[i]..bounds[i+1]) (bounds[nruns] = n), by
 * merging adjacent runs pairwise until one is left: O(n log nruns) moves, into one extra array.
 * @bounds is overwritten.
 */
static int merge_runs(struct tka_op **ops, size_t n, size_t *bounds, size_t nruns)
{
	if (nruns <= 1)
		return TK_OK;
	struct tka_op *src = *ops, *dst = malloc(n * sizeof(*dst));
	if (!dst)
		return TK_ENOMEM;
	while (nruns > 1) {
		size_t out = 0;
		for (size_t r = 0; r < nruns; r += 2) {
			size_t lo = bounds[r], mid = bounds[r + 1];
			size_t hi = r + 2 <= nruns ? bounds[r + 2] : mid, i = lo, j = mid, k = lo;
			if (r + 1 == nruns)
				mid = hi = bounds[nruns]; /* the odd run out is copied as it is */
			while (i < mid && j < hi)
				dst[k++] = op_less(&src[j], &src[i]) ? src[j++] : src[i++];
			memcpy(dst + k, src + i, (mid - i) * sizeof(*dst));
			k += mid - i;
			memcpy(dst + k, src + j, (hi - j) * sizeof(*dst));
			bounds[out++] = lo;
		}
		bounds[out] = n;
		nruns = out;
		struct tka_op *t = src;
		src = dst;
		dst = t;
	}
	free(dst);
	*ops = src;
	return TK_OK;
}

/* Append to @bounds the starts of the ascending runs of ops[lo..hi) (lo < hi). */
static size_t add_runs(const struct tka_op *ops, size_t lo, size_t hi, size_t *bounds, size_t nruns)
{
	bounds[nruns++] = lo;
	for (size_t k = lo + 1; k < hi; k++)
		if (op_less(&ops[k], &ops[k - 1]))
			bounds[nruns++] = k;
	return nruns;
}

/* ---- begin: devices, their tracks and the room for their operations; launch flows ---- */

static int add_device_tracks(struct tka_ctx *c, struct tka_tl_builder *b, sqlite3_stmt *trk,
			     sqlite3_stmt *count, struct tka_device *d, int32_t di)
{
	size_t cap = 0, total = 0;
	int step;
	sqlite3_reset(trk);
	sqlite3_bind_int64(trk, 1, d->device_id);
	while ((step = sqlite3_step(trk)) == SQLITE_ROW) {
		if (TKU_GROW(d->streams, cap, d->nstreams + 1, 8) != TK_OK)
			return tka_fail(c, TK_ENOMEM, "out of memory");
		d->streams[d->nstreams].track_id = sqlite3_column_int64(trk, 0);
		d->streams[d->nstreams].stream_id = tka_col_or_none(trk, 1);
		d->nstreams++;
	}
	if (step != SQLITE_DONE)
		return tka_fail(c, TK_EINTERNAL, "reading tracks: %s", sqlite3_errmsg(c->db));
	if (d->nstreams > UINT16_MAX)
		return tka_fail(c, TK_EFORMAT, "device %lld has more than %d tracks",
				(long long)d->device_id, UINT16_MAX);
	for (size_t s = 0; s < d->nstreams; s++) {
		int64_t id = d->streams[s].track_id;
		size_t n = 0;
		sqlite3_reset(count); /* every event of the track: an upper bound of its ops */
		sqlite3_bind_int64(count, 1, id);
		if (sqlite3_step(count) == SQLITE_ROW)
			n = (size_t)sqlite3_column_int64(count, 0);
		if (id < 1 || id > b->ntrk || b->trk[id].dev >= 0)
			continue;
		b->trk[id].dev = di;
		b->trk[id].stream = (uint16_t)s;
		b->trk[id].off = total;
		b->trk[id].cap = n;
		total += n;
	}
	if (total && !(d->ops = malloc(total * sizeof(*d->ops))))
		return tka_fail(c, TK_ENOMEM, "out of memory");
	return TK_OK;
}

static int load_devices(struct tka_ctx *c, struct tka_tl_builder *b)
{
	sqlite3_stmt *dev = NULL, *trk = NULL, *count = NULL;
	int rc, step;
	if ((rc = tka_prepare(c,
			      "SELECT d.id, d.process_id, coalesce(d.rank, p.rank) FROM devices d"
			      " LEFT JOIN processes p ON p.id = d.process_id WHERE d.id BETWEEN ?1 "
			      "AND ?2 ORDER BY d.id",
			      &dev)) != TK_OK ||
	    (rc = tka_prepare(c,
			      "SELECT id, stream_id FROM tracks WHERE device_id = ? AND kind <> "
			      "'counter' ORDER BY id",
			      &trk)) != TK_OK ||
	    (rc = tka_prepare(c, "SELECT count(*) FROM events WHERE track_id = ?", &count)) !=
		TK_OK)
		goto out;
	sqlite3_bind_int64(dev, 1, c->part ? c->part->dev_lo : INT64_MIN);
	sqlite3_bind_int64(dev, 2, c->part ? c->part->dev_hi : INT64_MAX);
	while ((step = sqlite3_step(dev)) == SQLITE_ROW) {
		struct tka_timeline *tl = b->tl;
		if (TKU_GROW(tl->dev, tl->dev_cap, tl->ndev + 1, 8) != TK_OK) {
			rc = tka_fail(c, TK_ENOMEM, "out of memory");
			goto out;
		}
		struct tka_device *d = &tl->dev[tl->ndev++];
		memset(d, 0, sizeof(*d));
		d->device_id = sqlite3_column_int64(dev, 0);
		d->process_id = tka_col_or_none(dev, 1);
		d->rank = tka_col_or_none(dev, 2);
		if (tl->ndev > INT32_MAX) {
			rc = tka_fail(c, TK_EFORMAT, "too many devices");
			goto out;
		}
		if ((rc = add_device_tracks(c, b, trk, count, d, (int32_t)(tl->ndev - 1))) != TK_OK)
			goto out;
	}
	if (step != SQLITE_DONE)
		rc = tka_fail(c, TK_EINTERNAL, "reading devices: %s", sqlite3_errmsg(c->db));
out:
	sqlite3_finalize(dev);
	sqlite3_finalize(trk);
	sqlite3_finalize(count);
	return rc;
}

static int flow_by_src(const void *pa, const void *pb)
{
	const struct launch *a = pa, *b = pb; /* ts holds the source event id here */
	if (a->ts != b->ts)
		return a->ts < b->ts ? -1 : 1;
	return (a->dst > b->dst) - (a->dst < b->dst);
}

/*
 * The launch flows (source id, dst), sorted by source; 0 of them: correlation mode. Of a part
 * of a job, those of its flows' ids, each of its events at both ends (else TKA_NOT_SPLIT).
 */
static int load_flows(struct tka_ctx *c, struct tka_tl_builder *b)
{
	sqlite3_stmt *st = NULL;
	size_t cap = 0;
	int rc, step, sorted = 1;
	const struct tka_part *part = c->part;
	rc =
	    tka_prepare(c,
			"SELECT src_event_id, dst_event_id FROM flows WHERE kind = 'launch' AND id "
			"BETWEEN ?1 AND ?2",
			&st);
	if (rc == TK_OK) {
		sqlite3_bind_int64(st, 1, part ? part->fl_lo : INT64_MIN);
		sqlite3_bind_int64(st, 2, part ? part->fl_hi : INT64_MAX);
	}
	while (rc == TK_OK && (step = sqlite3_step(st)) == SQLITE_ROW) {
		if (part) {
			int64_t src = sqlite3_column_int64(st, 0),
				dst = sqlite3_column_int64(st, 1);
			if (src < part->ev_lo || src > part->ev_hi || dst < part->ev_lo ||
			    dst > part->ev_hi) {
				rc = TKA_NOT_SPLIT;
				break;
			}
		}
		if (TKU_GROW(b->flows, cap, b->nflows + 1, 4096) != TK_OK) {
			rc = tka_fail(c, TK_ENOMEM, "out of memory");
			break;
		}
		struct launch *f = &b->flows[b->nflows];
		f->ts = sqlite3_column_int64(st, 0);
		f->dst = sqlite3_column_int64(st, 1);
		f->track = 0;
		f->dur = 0;
		if (b->nflows > 0 && flow_by_src(f - 1, f) > 0)
			sorted = 0;
		b->nflows++;
	}
	if (rc == TK_OK && step != SQLITE_DONE)
		rc = tka_fail(c, TK_EINTERNAL, "reading launches: %s", sqlite3_errmsg(c->db));
	sqlite3_finalize(st);
	if (rc == TK_OK && !sorted)
		qsort(b->flows, b->nflows, sizeof(*b->flows), flow_by_src);
	return rc;
}

void tka_timeline_builder_free(struct tka_tl_builder *b)
{
	if (!b)
		return;
	tka_timeline_free(b->tl);
	for (int64_t i = 0; b->trk && i <= b->ntrk; i++)
		free(b->trk[i].xla);
	free(b->trk);
	free(b->name_cls);
	sqlite3_finalize(b->name_st);
	free(b->flows);
	free(b->api);
	free(b);
}

int tka_timeline_begin(struct tka_ctx *c)
{
	struct tka_tl_builder *b = calloc(1, sizeof(*b));
	int rc;
	if (!b || !(b->tl = calloc(1, sizeof(*b->tl)))) {
		free(b);
		return tka_fail(c, TK_ENOMEM, "out of memory");
	}
	c->tlb = b;
	b->ntrk = c->pass->ntracks;
	if (!(b->trk = calloc((size_t)b->ntrk + 1, sizeof(*b->trk))))
		return tka_fail(c, TK_ENOMEM, "out of memory");
	for (int64_t i = 0; i <= b->ntrk; i++)
		b->trk[i].dev = -1;
	if ((rc = load_devices(c, b)) != TK_OK || (rc = load_flows(c, b)) != TK_OK)
		return rc;
	b->flow_mode = c->split ? c->split->launch_flows : b->nflows > 0;
	b->tl->launch_source = b->flow_mode ? 1 : 2;
	if (!b->flow_mode)
		c->pass->want_corr = 1;
	return TK_OK;
}

/* ---- each event ---- */

static int add_api(struct tka_ctx *c, struct tka_tl_builder *b, const struct tka_ev *e)
{
	if (TKU_GROW(b->api, b->capi, b->napi + 1, 4096) != TK_OK)
		return tka_fail(c, TK_ENOMEM, "out of memory");
	b->api[b->napi++] =
	    (struct tl_api){e->corr, c->pass->tracks[e->track].process_id, e->ts, e->track, e->dur};
	return TK_OK;
}

static int add_op(struct tka_ctx *c, struct tka_tl_builder *b, struct tl_track *t,
		  const struct tka_ev *e)
{
	struct tka_device *d = &b->tl->dev[t->dev];
	struct tka_op op;
	int64_t dur = e->dur < 0 ? 0 : e->dur;
	int rc;
	op.id = e->id;
	op.ts = e->ts;
	op.end = op.ts > INT64_MAX - dur ? INT64_MAX : op.ts + dur;
	op.name_id = (uint32_t)e->name_id;
	/* correlation mode: the correlation id waits here until the end resolves it */
	op.launch_ts = b->flow_mode ? TKA_NO_LAUNCH : e->corr;
	op.launch_track = 0;
	op.launch_dur = 0;
	op.stream = t->stream;
	op.kind = (uint8_t)e->kind;
	if (e->kind == TK_EV_MEMCPY) {
		op.cls = TKA_MEMCPY;
	} else if (e->kind == TK_EV_MEMSET) {
		op.cls = TKA_COMPUTE;
	} else {
		int comm = 0;
		if ((rc = name_is_comm(c, b, op.name_id, &comm)) != TK_OK)
			return rc;
		op.cls = comm ? TKA_COMM : TKA_COMPUTE;
	}
	if (e->kind == TK_EV_XLA_OP) {
		if (TKU_GROW(t->xla, t->capxla, t->nxla + 1, 256) != TK_OK)
			return tka_fail(c, TK_ENOMEM, "out of memory");
		t->xla[t->nxla++] = op;
		return TK_OK;
	}
	if (t->n == t->cap)
		return tka_fail(
		    c, TK_EFORMAT, /* counted through events_by_track: a damaged index */
		    "track %lld has more events than its index holds", (long long)e->track);
	d->ops[t->off + t->n++] = op;
	return TK_OK;
}

int tka_timeline_event(struct tka_ctx *c, const struct tka_ev *e)
{
	struct tka_tl_builder *b = c->tlb;
	if (b->flow_mode) { /* pick up the start of every launch flow's source */
		struct launch *f = b->flows;
		for (; b->fpos < b->nflows && f[b->fpos].ts < e->id; b->fpos++)
			f[b->fpos].dst = INT64_MIN; /* no such source event */
		for (; b->fpos < b->nflows && f[b->fpos].ts == e->id; b->fpos++) {
			f[b->fpos].ts = e->ts;
			f[b->fpos].track = e->track;
			f[b->fpos].dur = e->dur;
		}
	} else if ((e->kind == TK_EV_RUNTIME_API || e->kind == TK_EV_DRIVER_API) &&
		   e->corr != TK_NONE && e->track >= 1 && e->track <= b->ntrk &&
		   c->pass->tracks[e->track].exists) {
		int rc = add_api(c, b, e);
		if (rc != TK_OK)
			return rc;
	}
	if (e->kind == TK_EV_ANNOTATION)
		return tka_step_marks_event(c, e);
	if (e->kind < TK_EV_KERNEL || e->kind > TK_EV_XLA_OP || e->track < 1 ||
	    e->track > b->ntrk || b->trk[e->track].dev < 0)
		return TK_OK;
	return add_op(c, b, &b->trk[e->track], e);
}

/* ---- end: each device's operations in order, launches, steps, unions ---- */

/* Number of ascending runs of ops[lo..hi). */
static size_t count_runs(const struct tka_op *ops, size_t lo, size_t hi)
{
	size_t n = lo < hi;
	for (size_t k = lo + 1; k < hi; k++)
		n += op_less(&ops[k], &ops[k - 1]);
	return n;
}

/*
 * Gather @d's operations into d->ops in (ts, id) order: the kernels, copies and sets of its
 * tracks (each track's slice moved down in place), else its XLA ops; then one merge of all the
 * ascending runs (a track in start order is one run; one out of order adds a run per descent).
 */
static int collect_device(struct tka_ctx *c, struct tka_tl_builder *b, struct tka_device *d,
			  int32_t di)
{
	size_t n = 0, nx = 0, nruns = 0, *bounds = NULL;
	int rc = TK_OK;
	for (size_t s = 0; s < d->nstreams; s++) { /* kernels, copies, sets: compact in place */
		int64_t id = d->streams[s].track_id;
		struct tl_track *t = id >= 1 && id <= b->ntrk ? &b->trk[id] : NULL;
		if (!t || t->dev != di)
			continue;
		nx += t->nxla;
		if (t->n)
			memmove(d->ops + n, d->ops + t->off, t->n * sizeof(*d->ops));
		t->off = n;
		n += t->n;
	}
	if (n == 0 && nx > 0) { /* no kernel, copy or set: the device's XLA ops stand in */
		free(d->ops);
		if (!(d->ops = malloc(nx * sizeof(*d->ops))))
			return tka_fail(c, TK_ENOMEM, "out of memory");
		for (size_t s = 0; s < d->nstreams; s++) {
			int64_t id = d->streams[s].track_id;
			struct tl_track *t = id >= 1 && id <= b->ntrk ? &b->trk[id] : NULL;
			if (!t || t->dev != di)
				continue;
			if (t->nxla)
				memcpy(d->ops + n, t->xla, t->nxla * sizeof(*d->ops));
			t->off = n;
			t->n = t->nxla;
			n += t->nxla;
		}
	}
	d->nops = n;
	for (size_t s = 0; s < d->nstreams; s++) {
		int64_t id = d->streams[s].track_id;
		struct tl_track *t = id >= 1 && id <= b->ntrk ? &b->trk[id] : NULL;
		if (t && t->dev == di)
			nruns += count_runs(d->ops, t->off, t->off + t->n);
	}
	if (nruns <= 1)
		return TK_OK;
	if (!(bounds = malloc((nruns + 1) * sizeof(*bounds))))
		return tka_fail(c, TK_ENOMEM, "out of memory");
	nruns = 0;
	for (size_t s = 0; s < d->nstreams; s++) {
		int64_t id = d->streams[s].track_id;
		struct tl_track *t = id >= 1 && id <= b->ntrk ? &b->trk[id] : NULL;
		if (t && t->dev == di && t->n)
			nruns = add_runs(d->ops, t->off, t->off + t->n, bounds, nruns);
	}
	bounds[nruns] = n;
	if (merge_runs(&d->ops, n, bounds, nruns) != TK_OK)
		rc = tka_fail(c, TK_ENOMEM, "out of memory");
	free(bounds);
	return rc;
}

/* Every device's operations; devices without any are dropped. */
static int collect_devices(struct tka_ctx *c, struct tka_tl_builder *b)
{
	struct tka_timeline *tl = b->tl;
	size_t keep = 0;
	int rc = TK_OK;
	for (size_t i = 0; i < tl->ndev; i++) {
		struct tka_device *d = &tl->dev[i];
		if (rc == TK_OK)
			rc = collect_device(c, b, d, (int32_t)i);
		if (rc != TK_OK || d->nops == 0) {
			free(d->ops);
			free(d->streams);
			continue;
		}
		tl->dev[keep++] = *d;
	}
	tl->ndev = keep;
	return rc;
}

static int launch_cmp(const void *pa, const void *pb)
{
	const struct launch *a = pa, *b = pb;
	if (a->dst != b->dst)
		return a->dst < b->dst ? -1 : 1;
	return a->ts < b->ts ? -1 : a->ts > b->ts;
}

/*
 * The first index of v[0..n) (sorted by dst) with dst >= @id, or n: galloping from @from, then
 * a binary search, so O(log distance) when the answer is near.
 */
static size_t launch_find(const struct launch *v, size_t n, int64_t id, size_t from)
{
	size_t lo, hi, step = 1;
	if (from > n)
		from = n;
	if (from < n && v[from].dst < id) { /* the answer lies after from */
		size_t p = from + 1;
		lo = p;
		while (p < n && v[p].dst < id) {
			lo = p + 1;
			step *= 2;
			p = from + step < n ? from + step : n;
		}
		hi = p;
	} else { /* at or before from */
		hi = from;
		for (;;) {
			if (hi < step) {
				lo = 0;
				break;
			}
			if (v[hi - step].dst < id) {
				lo = hi - step + 1;
				break;
			}
			hi -= step;
			step *= 2;
		}
	}
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (v[mid].dst < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Each operation's earliest launch among the flows whose source event was seen. */
static int flow_launches(struct tka_ctx *c, struct tka_tl_builder *b)
{
	struct tka_timeline *tl = b->tl;
	struct launch *v = b->flows;
	size_t n = 0;
	int sorted = 1;
	for (size_t i = b->fpos; i < b->nflows; i++) /* sources after the last event */
		v[i].dst = INT64_MIN;
	for (size_t i = 0; i < b->nflows; i++) { /* the flows whose source was seen, in place */
		if (v[i].dst == INT64_MIN)
			continue;
		v[n] = v[i];
		if (n > 0 && launch_cmp(&v[n - 1], &v[n]) > 0)
			sorted = 0;
		n++;
	}
	if (n == 0)
		tl->launch_source = 0;
	if (!sorted)
		qsort(v, n, sizeof(*v), launch_cmp);
	for (size_t i = 0; i < tl->ndev; i++) {
		struct tka_device *d = &tl->dev[i];
		size_t at = 0; /* operations in time order come roughly in id order: search near */
		for (size_t k = 0; k < d->nops; k++) {
			at = launch_find(v, n, d->ops[k].id, at); /* the earliest launch of it */
			if (at < n && v[at].dst == d->ops[k].id) {
				d->ops[k].launch_ts = v[at].ts;
				d->ops[k].launch_track = v[at].track;
				d->ops[k].launch_dur = v[at].dur;
			}
		}
	}
	return TK_OK;
}

static int api_cmp(const void *pa, const void *pb)
{
	const struct tl_api *a = pa, *b = pb;
	if (a->corr != b->corr)
		return a->corr < b->corr ? -1 : 1;
	if (a->proc != b->proc)
		return a->proc < b->proc ? -1 : 1;
	return (a->ts > b->ts) - (a->ts < b->ts);
}

/* First API call with (corr, proc) in the sorted list (its earliest), or NULL. */
static const struct tl_api *api_find(const struct tl_api *v, size_t n, int64_t corr, int64_t proc)
{
	struct tl_api key = {corr, proc, INT64_MIN, 0, 0};
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (api_cmp(&v[mid], &key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && v[lo].corr == corr && v[lo].proc == proc ? &v[lo] : NULL;
}

/*
 * Correlation mode (no launch flow in the store): each operation's launch is the earliest
 * runtime/driver API call with its correlation id in a compatible process (either process
 * unknown, or the same). The id waits in launch_ts until here.
 */
static int corr_launches(struct tka_ctx *c, struct tka_tl_builder *b)
{
	struct tka_timeline *tl = b->tl;
	struct tl_api *v = b->api, *any = NULL; /* any: per correlation id, the earliest call */
	size_t n = b->napi, nany = 0, matched = 0;
	if (n > 1)
		qsort(v, n, sizeof(*v), api_cmp);
	if (n && !(any = malloc(n * sizeof(*any))))
		return tka_fail(c, TK_ENOMEM, "out of memory");
	for (size_t i = 0; i < n; i++) {
		if (nany && any[nany - 1].corr == v[i].corr) {
			if (v[i].ts < any[nany - 1].ts) {
				any[nany - 1].ts = v[i].ts;
				any[nany - 1].track = v[i].track;
				any[nany - 1].dur = v[i].dur;
			}
		} else {
			any[nany] = v[i];
			any[nany++].proc = TK_NONE;
		}
	}
	for (size_t i = 0; i < tl->ndev; i++) {
		struct tka_device *d = &tl->dev[i];
		for (size_t k = 0; k < d->nops; k++) {
			struct tka_op *op = &d->ops[k];
			int64_t corr = op->launch_ts, track = d->streams[op->stream].track_id;
			int64_t proc = c->pass->tracks[track].process_id;
			const struct tl_api *a = NULL, *x;
			op->launch_ts = TKA_NO_LAUNCH;
			if (corr == TK_NONE)
				continue;
			if (proc == TK_NONE) {
				a = api_find(any, nany, corr, TK_NONE);
			} else {
				a = api_find(v, n, corr, TK_NONE);
				if ((x = api_find(v, n, corr, proc)) && (!a || x->ts < a->ts))
					a = x;
			}
			if (a) {
				op->launch_ts = a->ts;
				op->launch_track = a->track;
				op->launch_dur = a->dur;
				matched++;
			}
		}
	}
	free(any);
	if (!matched)
		tl->launch_source = 0;
	return TK_OK;
}

/* Unions per class and of everything, with the first and last operation of each busy span. */
static int build_unions(struct tka_device *d)
{
	size_t cap = 0;
	for (size_t k = 0; k < d->nops; k++) {
		const struct tka_op *op = &d->ops[k];
		if (op->end <= op->ts)
			continue;
		struct tka_spans *cls = op->cls == TKA_COMM	? &d->comm
					: op->cls == TKA_MEMCPY ? &d->copy
								: &d->compute;
		if (tka_spans_add(cls, op->ts, op->end) != TK_OK)
			return TK_ENOMEM;
		size_t n = d->busy.n;
		if (n > 0 && op->ts <= d->busy.v[n - 1].end) {
			if (op->end >= d->busy.v[n - 1].end) {
				d->busy.v[n - 1].end = op->end;
				d->busy_last[n - 1] = k;
			}
			continue;
		}
		if (tka_spans_add(&d->busy, op->ts, op->end) != TK_OK)
			return TK_ENOMEM;
		if (d->busy.n > cap) { /* busy_first and busy_last follow the capacity of busy */
			cap = d->busy.cap;
			size_t *f = tku_reallocn(d->busy_first, cap, sizeof(*f));
			if (!f)
				return TK_ENOMEM;
			d->busy_first = f;
			size_t *l = tku_reallocn(d->busy_last, cap, sizeof(*l));
			if (!l)
				return TK_ENOMEM;
			d->busy_last = l;
		}
		d->busy_first[n] = d->busy_last[n] = k;
	}
	if (d->nops > 0) {
		int64_t end = d->ops[0].end;
		for (size_t k = 1; k < d->nops; k++)
			if (d->ops[k].end > end)
				end = d->ops[k].end;
		if (tka_spans_add(&d->device_window, d->ops[0].ts, end) != TK_OK)
			return TK_ENOMEM;
	}
	for (size_t k = 0; k < d->nsteps; k++)
		if (tka_spans_add(&d->step_window, d->steps[k].ts, d->steps[k].end) != TK_OK)
			return TK_ENOMEM;
	return TK_OK;
}

int tka_timeline_end(struct tka_ctx *c)
{
	struct tka_tl_builder *b = c->tlb;
	struct tka_timeline *tl = b->tl;
	int rc;
	if ((rc = collect_devices(c, b)) != TK_OK ||
	    (rc = b->flow_mode ? flow_launches(c, b) : corr_launches(c, b)) != TK_OK ||
	    (rc = tka_steps_load(c, tl)) != TK_OK)
		return rc;
	for (size_t i = 0; i < tl->ndev; i++) {
		struct tka_device *d = &tl->dev[i];
		if (build_unions(d) != TK_OK)
			return tka_fail(c, TK_ENOMEM, "out of memory");
		d->selected_steps = c->opt->window != TK_WINDOW_DEVICE && d->nsteps > 0;
		d->window = d->selected_steps ? &d->step_window : &d->device_window;
	}
	c->tl = tl;
	b->tl = NULL;
	tka_timeline_builder_free(b);
	c->tlb = NULL;
	return TK_OK;
}

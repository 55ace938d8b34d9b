/*
 * The timeline the time-based analyses share (intervals.h): device operations read per device
 * track in index order, merged by (ts, id), classified by the communication name rule, linked to
 * the start of their launching API call, unions per class, steps and windows; plus span-set
 * arithmetic and the gap iterator. Workload: one pass over the device tracks' events, one over
 * the launch flows, one over the steps; everything after that is linear sweeps in memory.
 */
#include "intervals.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <tracekit/store.h>

/* ---- span sets ---- */

int tka_spans_add(struct tka_spans *s, int64_t start, int64_t end)
{
	if (end <= start)
		return TK_OK;
	if (s->n > 0 && start <= s->v[s->n - 1].end) {
		if (end > s->v[s->n - 1].end)
			s->v[s->n - 1].end = end;
		return TK_OK;
	}
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 64;
		struct tka_span *v = realloc(s->v, cap * sizeof(*v));
		if (!v)
			return TK_ENOMEM;
		s->v = v;
		s->cap = cap;
	}
	s->v[s->n].start = start;
	s->v[s->n].end = end;
	s->n++;
	return TK_OK;
}

void tka_spans_free(struct tka_spans *s)
{
	if (!s)
		return;
	free(s->v);
	memset(s, 0, sizeof(*s));
}

int64_t tka_spans_len(const struct tka_spans *s)
{
	int64_t t = 0;
	for (size_t i = 0; i < s->n; i++)
		t += s->v[i].end - s->v[i].start;
	return t;
}

int64_t tka_spans_overlap(const struct tka_spans *a, const struct tka_spans *b)
{
	int64_t t = 0;
	size_t i = 0, j = 0;
	while (i < a->n && j < b->n) {
		int64_t lo = a->v[i].start > b->v[j].start ? a->v[i].start : b->v[j].start;
		int64_t hi = a->v[i].end < b->v[j].end ? a->v[i].end : b->v[j].end;
		if (hi > lo)
			t += hi - lo;
		if (a->v[i].end < b->v[j].end)
			i++;
		else
			j++;
	}
	return t;
}

int64_t tka_spans_len_in(const struct tka_spans *s, int64_t start, int64_t end)
{
	size_t lo = 0, hi = s->n;
	int64_t t = 0;
	while (lo < hi) { /* first span that ends after start */
		size_t mid = lo + (hi - lo) / 2;
		if (s->v[mid].end <= start)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i < s->n && s->v[i].start < end; i++) {
		int64_t a = s->v[i].start > start ? s->v[i].start : start;
		int64_t b = s->v[i].end < end ? s->v[i].end : end;
		if (b > a)
			t += b - a;
	}
	return t;
}

int tka_spans_minus(const struct tka_spans *a, const struct tka_spans *b, struct tka_spans *out)
{
	size_t j = 0;
	out->n = 0;
	for (size_t i = 0; i < a->n; i++) {
		int64_t cur = a->v[i].start, end = a->v[i].end;
		while (j < b->n && b->v[j].end <= cur)
			j++;
		for (size_t k = j; k < b->n && b->v[k].start < end; k++) {
			if (b->v[k].start > cur && tka_spans_add(out, cur, b->v[k].start) != TK_OK)
				return TK_ENOMEM;
			if (b->v[k].end > cur)
				cur = b->v[k].end;
		}
		if (cur < end && tka_spans_add(out, cur, end) != TK_OK)
			return TK_ENOMEM;
	}
	return TK_OK;
}

/* ---- names ---- */

static int contains_ci(const char *s, const char *word)
{
	size_t n = strlen(word);
	for (; *s; s++) {
		size_t i = 0;
		while (i < n && s[i] && tolower((unsigned char)s[i]) == word[i])
			i++;
		if (i == n)
			return 1;
	}
	return 0;
}

int tka_is_comm_name(const char *name)
{
	static const char *const words[] = {
	    "nccl",	      "rccl",	       "all-reduce",	     "allreduce",
	    "all_reduce",     "all-gather",    "allgather",	     "all_gather",
	    "reduce-scatter", "reducescatter", "reduce_scatter",     "all-to-all",
	    "alltoall",	      "all_to_all",    "collective-permute", "collectivepermute",
	};
	if (!name)
		return 0;
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (contains_ci(name, words[i]))
			return 1;
	return 0;
}

const char *tka_window_name(const struct tka_device *d)
{
	return d->selected_steps ? "steps" : "device";
}

const char *tka_gap_cause_name(int cause)
{
	return cause == TKA_GAP_HOST ? "host_bound" : cause == TKA_GAP_SYNC ? "sync" : "unknown";
}

/* ---- building ---- */

struct builder {
	struct tka_ctx *c;
	sqlite3_stmt *name_st, *count_st;
	uint8_t *name_cls; /* per name id: 0 not looked up, 1 compute, 2 comm */
	size_t name_cap;
};

static int name_is_comm(struct builder *b, uint32_t id, int *comm)
{
	if (id >= b->name_cap) {
		size_t cap = b->name_cap ? b->name_cap : 1024;
		while (cap <= id)
			cap *= 2;
		uint8_t *v = realloc(b->name_cls, cap);
		if (!v)
			return tka_fail(b->c, TK_ENOMEM, "out of memory");
		memset(v + b->name_cap, 0, cap - b->name_cap);
		b->name_cls = v;
		b->name_cap = cap;
	}
	if (!b->name_cls[id]) {
		int rc;
		if (!b->name_st && (rc = tka_prepare(b->c, "SELECT str FROM strings WHERE id = ?",
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

static int op_cmp(const void *pa, const void *pb)
{
	const struct tka_op *a = pa, *b = pb;
	return op_less(a, b) ? -1 : op_less(b, a);
}

/*
 * Merge the sorted runs ops[bounds[i]..bounds[i+1]) (bounds[nruns] = n) into one sorted array:
 * one pass choosing the least head (few runs: one per stream), or a sort when there are many.
 */
static int merge_runs(struct tka_op **ops, size_t n, const size_t *bounds, size_t nruns)
{
	if (nruns <= 1)
		return TK_OK;
	if (nruns > 16) { /* many streams: a sort costs less than scanning every head */
		qsort(*ops, n, sizeof(**ops), op_cmp);
		return TK_OK;
	}
	struct tka_op *src = *ops, *dst = malloc(n * sizeof(*dst));
	size_t *head = malloc(nruns * sizeof(*head));
	if (!dst || !head) {
		free(dst);
		free(head);
		return TK_ENOMEM;
	}
	for (size_t r = 0; r < nruns; r++)
		head[r] = bounds[r];
	for (size_t k = 0; k < n; k++) {
		size_t best = SIZE_MAX;
		for (size_t r = 0; r < nruns; r++)
			if (head[r] < bounds[r + 1] &&
			    (best == SIZE_MAX || op_less(&src[head[r]], &src[head[best]])))
				best = r;
		dst[k] = src[head[best]++];
	}
	free(head);
	free(src);
	*ops = dst;
	return TK_OK;
}

struct op_buf {
	struct tka_op *v;
	size_t n, cap;
};

static int op_push(struct op_buf *b, const struct tka_op *op)
{
	if (b->n == b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 1024;
		struct tka_op *v = realloc(b->v, cap * sizeof(*v));
		if (!v)
			return TK_ENOMEM;
		b->v = v;
		b->cap = cap;
	}
	b->v[b->n++] = *op;
	return TK_OK;
}

/* Read the operations of device @d's tracks (kernels, copies, sets; else XLA ops). */
static int load_ops(struct builder *b, struct tka_device *d, sqlite3_stmt *ev)
{
	struct op_buf main = {0}, xla = {0};
	size_t *bm = NULL, *bx = NULL;
	int rc = TK_OK;
	bm = malloc((d->nstreams + 2) * sizeof(*bm));
	bx = malloc((d->nstreams + 2) * sizeof(*bx));
	if (!bm || !bx) {
		rc = tka_fail(b->c, TK_ENOMEM, "out of memory");
		goto out;
	}
	size_t nrm = 0, nrx = 0, total = 0;
	for (size_t s = 0; s < d->nstreams; s++) { /* reserve once: rows on the tracks, at most */
		sqlite3_reset(b->count_st);
		sqlite3_bind_int64(b->count_st, 1, d->streams[s].track_id);
		if (sqlite3_step(b->count_st) == SQLITE_ROW)
			total += (size_t)sqlite3_column_int64(b->count_st, 0);
	}
	if (total && !(main.v = malloc(total * sizeof(*main.v)))) {
		rc = tka_fail(b->c, TK_ENOMEM, "out of memory");
		goto out;
	}
	main.cap = total;
	for (size_t s = 0; s < d->nstreams; s++) {
		size_t m0 = main.n, x0 = xla.n;
		sqlite3_reset(ev);
		sqlite3_bind_int64(ev, 1, d->streams[s].track_id);
		int step;
		while ((step = sqlite3_step(ev)) == SQLITE_ROW) {
			struct tka_op op;
			int kind = sqlite3_column_int(ev, 3);
			int64_t dur = sqlite3_column_int64(ev, 2);
			op.id = sqlite3_column_int64(ev, 0);
			op.ts = sqlite3_column_int64(ev, 1);
			if (dur < 0)
				dur = 0;
			op.end = op.ts > INT64_MAX - dur ? INT64_MAX : op.ts + dur;
			op.name_id = (uint32_t)sqlite3_column_int64(ev, 4);
			op.launch_ts = TKA_NO_LAUNCH;
			op.stream = (uint16_t)s;
			op.kind = (uint8_t)kind;
			if (kind == TK_EV_MEMCPY) {
				op.cls = TKA_MEMCPY;
			} else if (kind == TK_EV_MEMSET) {
				op.cls = TKA_COMPUTE;
			} else {
				int comm = 0;
				if ((rc = name_is_comm(b, op.name_id, &comm)) != TK_OK)
					goto out;
				op.cls = comm ? TKA_COMM : TKA_COMPUTE;
			}
			if (op_push(kind == TK_EV_XLA_OP ? &xla : &main, &op) != TK_OK) {
				rc = tka_fail(b->c, TK_ENOMEM, "out of memory");
				goto out;
			}
		}
		if (step != SQLITE_DONE) {
			rc = tka_fail(b->c, TK_EINTERNAL, "reading device events: %s",
				      sqlite3_errmsg(b->c->db));
			goto out;
		}
		if (main.n > m0)
			bm[nrm++] = m0;
		if (xla.n > x0)
			bx[nrx++] = x0;
	}
	struct op_buf *use = main.n > 0 ? &main : &xla;
	size_t *bounds = main.n > 0 ? bm : bx, nruns = main.n > 0 ? nrm : nrx;
	bounds[nruns] = use->n;
	if (merge_runs(&use->v, use->n, bounds, nruns) != TK_OK) {
		rc = tka_fail(b->c, TK_ENOMEM, "out of memory");
		goto out;
	}
	d->ops = use->v;
	d->nops = use->n;
	use->v = NULL;
out:
	free(main.v);
	free(xla.v);
	free(bm);
	free(bx);
	return rc;
}

struct launch {
	int64_t dst, ts;
};

static int launch_cmp(const void *pa, const void *pb)
{
	const struct launch *a = pa, *b = pb;
	if (a->dst != b->dst)
		return a->dst < b->dst ? -1 : 1;
	return a->ts < b->ts ? -1 : a->ts > b->ts;
}

/* The launch start of every linked device operation: launch flows, else correlation ids. */
static int load_launches(struct builder *b, struct tka_timeline *tl)
{
	static const char *const flows_sql =
	    "SELECT f.dst_event_id, s.ts_ns FROM flows f JOIN events s ON s.id = f.src_event_id"
	    " WHERE f.kind = 'launch'";
	static const char *const corr_sql =
	    "SELECT d.id, a.ts_ns FROM events d JOIN tracks dt ON dt.id = d.track_id"
	    " JOIN events a ON a.correlation_id = d.correlation_id JOIN tracks at ON at.id = "
	    "a.track_id"
	    " WHERE d.kind IN (5, 6, 7, 8) AND dt.device_id IS NOT NULL AND d.correlation_id IS "
	    "NOT "
	    "NULL"
	    " AND a.kind IN (2, 3) AND (dt.process_id IS NULL OR at.process_id IS NULL OR"
	    " at.process_id = dt.process_id)";
	sqlite3_stmt *st = NULL;
	struct launch *v = NULL;
	int64_t *dense = NULL;
	size_t n = 0, cap = 0;
	int rc, sorted = 1, step;
	rc = tka_prepare(b->c, "SELECT EXISTS (SELECT 1 FROM flows WHERE kind = 'launch')", &st);
	if (rc != TK_OK)
		goto out;
	tl->launch_source = sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int(st, 0) ? 1 : 2;
	sqlite3_finalize(st);
	st = NULL;
	if ((rc = tka_prepare(b->c, tl->launch_source == 1 ? flows_sql : corr_sql, &st)) != TK_OK)
		goto out;
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		if (n == cap) {
			size_t nc = cap ? cap * 2 : 4096;
			struct launch *nv = realloc(v, nc * sizeof(*nv));
			if (!nv) {
				rc = tka_fail(b->c, TK_ENOMEM, "out of memory");
				goto out;
			}
			v = nv;
			cap = nc;
		}
		v[n].dst = sqlite3_column_int64(st, 0);
		v[n].ts = sqlite3_column_int64(st, 1);
		if (n > 0 && launch_cmp(&v[n - 1], &v[n]) > 0)
			sorted = 0;
		n++;
	}
	if (step != SQLITE_DONE) {
		rc = tka_fail(b->c, TK_EINTERNAL, "reading launches: %s", sqlite3_errmsg(b->c->db));
		goto out;
	}
	if (n == 0)
		tl->launch_source = 0;
	if (!sorted)
		qsort(v, n, sizeof(*v), launch_cmp);
	/* A direct table by event id when it is not much larger than the list, else search. */
	int64_t max_dst = n ? v[n - 1].dst : 0;
	if (n && max_dst > 0 && (uint64_t)max_dst <= 8 * (uint64_t)n + (1u << 20)) {
		dense = malloc(((size_t)max_dst + 1) * sizeof(*dense));
		if (dense) {
			for (int64_t i = 0; i <= max_dst; i++)
				dense[i] = TKA_NO_LAUNCH;
			for (size_t i = n; i-- > 0;) /* the earliest launch of a dst wins */
				if (v[i].dst >= 0)
					dense[v[i].dst] = v[i].ts;
		}
	}
	for (size_t i = 0; i < tl->ndev; i++) {
		struct tka_device *d = &tl->dev[i];
		for (size_t k = 0; k < d->nops; k++) {
			int64_t id = d->ops[k].id;
			if (dense) {
				if (id >= 0 && id <= max_dst)
					d->ops[k].launch_ts = dense[id];
				continue;
			}
			size_t lo = 0, hi = n; /* first entry with dst >= id: the earliest launch */
			while (lo < hi) {
				size_t mid = lo + (hi - lo) / 2;
				if (v[mid].dst < id)
					lo = mid + 1;
				else
					hi = mid;
			}
			if (lo < n && v[lo].dst == id)
				d->ops[k].launch_ts = v[lo].ts;
		}
	}
out:
	sqlite3_finalize(st);
	free(v);
	free(dense);
	return rc;
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
		if (d->busy.n > cap) {
			cap = d->busy.cap;
			size_t *f = realloc(d->busy_first, cap * sizeof(*f));
			if (!f)
				return TK_ENOMEM;
			d->busy_first = f;
			size_t *l = realloc(d->busy_last, cap * sizeof(*l));
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

/* Every step event with the device or process of its track, sorted by (ts, id). */
struct step_row {
	struct tka_step s;
	int64_t device_id, process_id; /* TK_NONE when NULL */
};

static int64_t col_or_none(sqlite3_stmt *st, int i)
{
	return sqlite3_column_type(st, i) == SQLITE_NULL ? TK_NONE : sqlite3_column_int64(st, i);
}

static int load_steps(struct builder *b, struct tka_timeline *tl)
{
	sqlite3_stmt *st = NULL;
	struct step_row *v = NULL;
	size_t n = 0, cap = 0;
	int rc, step;
	rc = tka_prepare(b->c,
			 "SELECT sd.event_id, sd.step_num, e.ts_ns, e.dur_ns, t.device_id, "
			 "t.process_id FROM step_details sd JOIN events e ON e.id = sd.event_id"
			 " JOIN tracks t ON t.id = e.track_id WHERE e.kind = 11"
			 " ORDER BY e.ts_ns, e.id",
			 &st);
	if (rc != TK_OK)
		goto out;
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		if (n == cap) {
			size_t nc = cap ? cap * 2 : 64;
			struct step_row *nv = realloc(v, nc * sizeof(*nv));
			if (!nv) {
				rc = tka_fail(b->c, TK_ENOMEM, "out of memory");
				goto out;
			}
			v = nv;
			cap = nc;
		}
		int64_t dur = sqlite3_column_int64(st, 3);
		v[n].s.event_id = sqlite3_column_int64(st, 0);
		v[n].s.step_num = col_or_none(st, 1);
		v[n].s.ts = sqlite3_column_int64(st, 2);
		v[n].s.end = v[n].s.ts + (dur > 0 ? dur : 0);
		v[n].device_id = col_or_none(st, 4);
		v[n].process_id = col_or_none(st, 5);
		n++;
	}
	if (step != SQLITE_DONE) {
		rc = tka_fail(b->c, TK_EINTERNAL, "reading steps: %s", sqlite3_errmsg(b->c->db));
		goto out;
	}
	for (size_t i = 0; i < tl->ndev; i++) {
		struct tka_device *d = &tl->dev[i];
		for (int pass = 0; pass < 2 && d->nsteps == 0; pass++) {
			for (size_t k = 0; k < n; k++) {
				int mine = pass == 0 ? v[k].device_id == d->device_id
						     : v[k].device_id == TK_NONE &&
							   d->process_id != TK_NONE &&
							   v[k].process_id == d->process_id;
				if (!mine)
					continue;
				if (!d->steps && !(d->steps = malloc(n * sizeof(*d->steps)))) {
					rc = tka_fail(b->c, TK_ENOMEM, "out of memory");
					goto out;
				}
				d->steps[d->nsteps++] = v[k].s;
			}
		}
	}
out:
	sqlite3_finalize(st);
	free(v);
	return rc;
}

static int build(struct tka_ctx *c, struct tka_timeline *tl)
{
	struct builder b = {c, NULL, NULL, NULL, 0};
	sqlite3_stmt *dev = NULL, *trk = NULL, *ev = NULL;
	int rc, step;
	if ((rc = tka_prepare(c,
			      "SELECT d.id, d.process_id, coalesce(d.rank, p.rank) FROM devices d"
			      " LEFT JOIN processes p ON p.id = d.process_id ORDER BY d.id",
			      &dev)) != TK_OK ||
	    (rc = tka_prepare(c,
			      "SELECT id, stream_id FROM tracks WHERE device_id = ? AND kind <> "
			      "'counter' ORDER BY id",
			      &trk)) != TK_OK ||
	    (rc = tka_prepare(
		 c,
		 "SELECT id, ts_ns, dur_ns, kind, name_id FROM events WHERE track_id = ?"
		 " AND kind IN (5, 6, 7, 8) ORDER BY ts_ns, id",
		 &ev)) != TK_OK ||
	    (rc = tka_prepare(c, "SELECT count(*) FROM events WHERE track_id = ?", &b.count_st)) !=
		TK_OK)
		goto out;
	while ((step = sqlite3_step(dev)) == SQLITE_ROW) {
		struct tka_device d;
		memset(&d, 0, sizeof(d));
		d.device_id = sqlite3_column_int64(dev, 0);
		d.process_id = col_or_none(dev, 1);
		d.rank = col_or_none(dev, 2);
		sqlite3_reset(trk);
		sqlite3_bind_int64(trk, 1, d.device_id);
		size_t cap = 0;
		while ((step = sqlite3_step(trk)) == SQLITE_ROW) {
			if (d.nstreams == cap) {
				cap = cap ? cap * 2 : 8;
				struct tka_stream *v = realloc(d.streams, cap * sizeof(*v));
				if (!v) {
					free(d.streams);
					rc = tka_fail(c, TK_ENOMEM, "out of memory");
					goto out;
				}
				d.streams = v;
			}
			d.streams[d.nstreams].track_id = sqlite3_column_int64(trk, 0);
			d.streams[d.nstreams].stream_id = col_or_none(trk, 1);
			d.nstreams++;
		}
		if (d.nstreams > UINT16_MAX) {
			free(d.streams);
			rc = tka_fail(c, TK_EINTERNAL, "device %lld has more than %d tracks",
				      (long long)d.device_id, UINT16_MAX);
			goto out;
		}
		if ((rc = load_ops(&b, &d, ev)) != TK_OK) {
			free(d.streams);
			goto out;
		}
		if (d.nops == 0) {
			free(d.streams);
			free(d.ops);
			continue;
		}
		struct tka_device *v = realloc(tl->dev, (tl->ndev + 1) * sizeof(*v));
		if (!v) {
			free(d.streams);
			free(d.ops);
			rc = tka_fail(c, TK_ENOMEM, "out of memory");
			goto out;
		}
		tl->dev = v;
		tl->dev[tl->ndev++] = d;
	}
	if (step != SQLITE_DONE) {
		rc = tka_fail(c, TK_EINTERNAL, "reading devices: %s", sqlite3_errmsg(c->db));
		goto out;
	}
	if ((rc = load_launches(&b, tl)) != TK_OK || (rc = load_steps(&b, tl)) != TK_OK)
		goto out;
	for (size_t i = 0; i < tl->ndev; i++) {
		struct tka_device *d = &tl->dev[i];
		if (build_unions(d) != TK_OK) {
			rc = tka_fail(c, TK_ENOMEM, "out of memory");
			goto out;
		}
		enum tk_window w = c->opt->window;
		d->selected_steps = w != TK_WINDOW_DEVICE && d->nsteps > 0;
		d->window = d->selected_steps ? &d->step_window : &d->device_window;
	}
out:
	sqlite3_finalize(dev);
	sqlite3_finalize(trk);
	sqlite3_finalize(ev);
	sqlite3_finalize(b.name_st);
	sqlite3_finalize(b.count_st);
	free(b.name_cls);
	return rc;
}

int tka_timeline_get(struct tka_ctx *c, const struct tka_timeline **out)
{
	int rc = TK_OK;
	if (!c->tl) {
		struct tka_timeline *tl = calloc(1, sizeof(*tl));
		if (!tl)
			return tka_fail(c, TK_ENOMEM, "out of memory");
		if ((rc = build(c, tl)) != TK_OK) {
			tka_timeline_free(tl);
			return rc;
		}
		c->tl = tl;
	}
	*out = c->tl;
	return rc;
}

void tka_timeline_free(struct tka_timeline *tl)
{
	if (!tl)
		return;
	for (size_t i = 0; i < tl->ndev; i++) {
		struct tka_device *d = &tl->dev[i];
		free(d->ops);
		free(d->streams);
		free(d->busy_first);
		free(d->busy_last);
		free(d->steps);
		tka_spans_free(&d->busy);
		tka_spans_free(&d->compute);
		tka_spans_free(&d->comm);
		tka_spans_free(&d->copy);
		tka_spans_free(&d->device_window);
		tka_spans_free(&d->step_window);
	}
	free(tl->dev);
	free(tl);
}

/* ---- gaps ---- */

int tka_gaps_each(const struct tka_device *d, const struct tka_spans *window,
		  int (*fn)(void *arg, const struct tka_gap *g), void *arg)
{
	size_t j = 0; /* free interval j lies between busy span j-1 and busy span j */
	if (window->n > 0) {
		size_t hi = d->busy.n; /* first busy span that ends after the window starts */
		while (j < hi) {
			size_t mid = j + (hi - j) / 2;
			if (d->busy.v[mid].end <= window->v[0].start)
				j = mid + 1;
			else
				hi = mid;
		}
	}
	for (size_t w = 0; w < window->n; w++) {
		int64_t ws = window->v[w].start, we = window->v[w].end;
		while (j < d->busy.n && d->busy.v[j].end <= ws)
			j++;
		for (; j <= d->busy.n; j++) {
			int64_t fs = j == 0 ? INT64_MIN : d->busy.v[j - 1].end;
			int64_t fe = j == d->busy.n ? INT64_MAX : d->busy.v[j].start;
			if (fs >= we)
				break;
			struct tka_gap g;
			g.start = fs > ws ? fs : ws;
			g.end = fe < we ? fe : we;
			if (g.end > g.start) {
				g.prev = j == 0 ? SIZE_MAX : d->busy_last[j - 1];
				g.next = j == d->busy.n ? SIZE_MAX : d->busy_first[j];
				if (g.next == SIZE_MAX || d->ops[g.next].launch_ts == TKA_NO_LAUNCH)
					g.cause = TKA_GAP_UNKNOWN;
				else if (d->ops[g.next].launch_ts > g.start)
					g.cause = TKA_GAP_HOST;
				else
					g.cause = TKA_GAP_SYNC;
				int rc = fn(arg, &g);
				if (rc != TK_OK)
					return rc;
			}
			if (fe > we)
				break; /* this free interval continues into the next window span */
		}
	}
	return TK_OK;
}

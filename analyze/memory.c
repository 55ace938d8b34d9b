/*
 * Memory timeline (analysis_memory and its companions analysis_memory_timeline,
 * analysis_memory_live_at_peak, analysis_memory_histogram): per device, process and allocator the
 * bytes in use over time, the peak and when, the live allocations at the peak with the op that
 * made them, an allocation size histogram and the fragmentation where reported.
 * Definitions: docs/metrics.md ("Memory").
 *
 * Pass 1 reads every memory record once in (device, time, id) order and keeps, per series, the
 * live allocations (address -> allocation), both candidate values of bytes in use (reported and
 * summed), their peaks, the downsampled timeline and the histogram. Pass 2 replays each series up
 * to its peak record to list the allocations live there, and enclosing.c finds the host op
 * around those that name no op (one sweep per host track, not a query per allocation).
 */
#include <stdlib.h>
#include <string.h>

#include <tracekit/store.h>

#include "analyze_internal.h"
#include "checked.h"
#include "../util/map.h"

#define NONE INT64_MIN
#define TL_BUCKETS 1000 /* timeline buckets per device span */

struct alloc {
	int64_t addr; /* key */
	int64_t bytes, id, ts, op_event_id, op_name_id;
};

/* Live allocations, by address. */
struct liveset {
	struct tku_table t; /* of struct alloc */
	int64_t bytes;
};

struct bucket {
	int64_t records, max, max_ts, min, last;
};

/* One value series (reported or summed) of a memory series. */
struct valser {
	int64_t n; /* records that gave a value */
	int64_t peak, peak_ts, peak_id, peak_seq, last;
	struct bucket *b; /* TL_BUCKETS */
};

struct series {
	int64_t device_id, process_id, allocator_id; /* NONE for NULL */
	int64_t records, allocs, frees, unmatched, with_reported;
	int64_t first_ts, last_ts, seq, dev_first, width;
	int64_t reported_peak; /* max peak_bytes_in_use, NONE when none */
	double max_frag;       /* < 0 when none reported */
	struct liveset live;
	struct valser rep, sum;
	int64_t hist_n[65], hist_bytes[65]; /* [0]: size 0; [k + 1]: sizes in [2^k, 2^(k+1)) */
	int basis_summed;		    /* chosen basis */
};

struct mem {
	struct series *s;
	size_t n, cap;
};

static void live_init(struct liveset *L)
{
	L->t = (struct tku_table)TKU_TABLE_INIT(struct alloc, 1);
	L->bytes = 0;
}

/* Remove the allocation at @addr when live; 1 when it was. */
static int live_remove(struct liveset *L, int64_t addr)
{
	struct alloc x;
	if (!tku_table_del(&L->t, &addr, &x))
		return 0;
	L->bytes -= x.bytes;
	return 1;
}

static int live_add(struct liveset *L, const struct alloc *x)
{
	struct alloc *a = tku_table_at(&L->t, &x->addr, NULL);
	if (!a)
		return TK_ENOMEM;
	if (tk_add_ovf(L->bytes, x->bytes, &L->bytes))
		return TK_EFORMAT; /* bytes in use past 2^63 */
	*a = *x;
	return TK_OK;
}

/* One record as read. */
struct rec {
	int64_t id, ts, address, bytes, in_use, peak_rep, op_event_id, op_name_id;
	int is_free;
	double frag;
};

/*
 * Apply @r to the live set of @s (docs: "Summed bytes in use"). Allocations with no address get
 * a unique negative key (never matched by a free).
 */
static int apply(struct series *s, const struct rec *r)
{
	if (!r->is_free) {
		struct alloc a = {r->address, r->bytes,	      r->id,
				  r->ts,      r->op_event_id, r->op_name_id};
		if (r->address == NONE)
			a.addr = -1 - r->id;
		else
			live_remove(&s->live, r->address);
		return live_add(&s->live, &a);
	}
	if (r->address == NONE || !live_remove(&s->live, r->address))
		s->unmatched++;
	return TK_OK;
}

static void value_add(struct series *s, struct valser *v, int64_t val, const struct rec *r)
{
	if (!v->n++ || val > v->peak) {
		v->peak = val;
		v->peak_ts = r->ts;
		v->peak_id = r->id;
		v->peak_seq = s->seq;
	}
	v->last = val;
	int64_t k = (r->ts - s->dev_first) / s->width;
	struct bucket *b = &v->b[k < 0 ? 0 : k >= TL_BUCKETS ? TL_BUCKETS - 1 : k];
	if (!b->records || val > b->max) {
		b->max = val;
		b->max_ts = r->ts;
	}
	if (!b->records || val < b->min)
		b->min = val;
	b->last = val;
	b->records++;
}

static int series_add(struct series *s, const struct rec *r)
{
	int rc = apply(s, r);
	if (rc != TK_OK)
		return rc;
	s->records++;
	s->seq++;
	if (s->records == 1)
		s->first_ts = r->ts;
	s->last_ts = r->ts;
	if (r->is_free) {
		s->frees++;
	} else {
		s->allocs++;
		int k = 0;
		if (r->bytes > 0)
			for (uint64_t b = (uint64_t)r->bytes; b > 1; b >>= 1)
				k++;
		int idx = r->bytes > 0 ? k + 1 : 0;
		s->hist_n[idx]++;
		if (tk_add_ovf(s->hist_bytes[idx], r->bytes, &s->hist_bytes[idx]))
			return TK_EFORMAT;
	}
	if (r->in_use != NONE) {
		s->with_reported++;
		value_add(s, &s->rep, r->in_use, r);
	}
	value_add(s, &s->sum, s->live.bytes, r);
	if (r->peak_rep != NONE && (s->reported_peak == NONE || r->peak_rep > s->reported_peak))
		s->reported_peak = r->peak_rep;
	if (r->frag >= 0 && r->frag > s->max_frag)
		s->max_frag = r->frag;
	return TK_OK;
}

static int64_t col_or_none(sqlite3_stmt *q, int i)
{
	return sqlite3_column_type(q, i) == SQLITE_NULL ? NONE : sqlite3_column_int64(q, i);
}

/* The series of (device, process, allocator) of the current row, created when new. */
static struct series *series_for(struct mem *M, const int64_t *key, int64_t dev_first,
				 int64_t dev_last)
{
	for (size_t i = M->n; i-- > 0;)
		if (!memcmp(&M->s[i].device_id, key, 3 * sizeof(int64_t)))
			return &M->s[i];
	if (TKU_GROW(M->s, M->cap, M->n + 1, 8) != TK_OK)
		return NULL;
	struct series *s = &M->s[M->n];
	memset(s, 0, sizeof(*s));
	live_init(&s->live);
	s->rep.b = calloc(TL_BUCKETS, sizeof(struct bucket));
	s->sum.b = calloc(TL_BUCKETS, sizeof(struct bucket));
	if (!s->rep.b || !s->sum.b) {
		free(s->rep.b);
		free(s->sum.b);
		return NULL;
	}
	M->n++;
	s->device_id = key[0];
	s->process_id = key[1];
	s->allocator_id = key[2];
	s->reported_peak = NONE;
	s->max_frag = -1;
	s->dev_first = dev_first;
	/* ceil((span + 1) / buckets): every record time falls in [0, TL_BUCKETS) */
	s->width = (dev_last - dev_first) / TL_BUCKETS + 1;
	return s;
}

static const char *const read_sql =
    "SELECT device_id, process_id, allocator_id, id, ts_ns, kind = 'free', address, bytes, "
    "bytes_in_use, peak_bytes_in_use, op_event_id, op_name_id, fragmentation "
    "FROM memory_records WHERE device_id IS ?1 AND ts_ns <= ?2 ORDER BY ts_ns, id";

/* Read the current row of @q into @key and @r: NULL, or what breaks the store's rules. */
static const char *read_rec(sqlite3_stmt *q, int64_t *key, struct rec *r)
{
	key[0] = col_or_none(q, 0);
	key[1] = col_or_none(q, 1);
	key[2] = col_or_none(q, 2);
	r->id = sqlite3_column_int64(q, 3);
	r->ts = sqlite3_column_int64(q, 4);
	r->is_free = sqlite3_column_int(q, 5);
	r->address = col_or_none(q, 6);
	r->bytes = sqlite3_column_int64(q, 7);
	r->in_use = col_or_none(q, 8);
	r->peak_rep = col_or_none(q, 9);
	r->op_event_id = col_or_none(q, 10);
	r->op_name_id = col_or_none(q, 11);
	r->frag = sqlite3_column_type(q, 12) == SQLITE_NULL ? -1 : sqlite3_column_double(q, 12);
	if (sqlite3_column_type(q, 4) != SQLITE_INTEGER || !tk_time_ok(r->ts))
		return "ts_ns out of range or not an integer";
	if (sqlite3_column_type(q, 7) != SQLITE_INTEGER || r->bytes < 0)
		return "bytes negative or not an integer";
	if (r->id < 0)
		return TK_ID_RANGE_MSG;
	return NULL;
}

/* A failed series_add() for record @r: out of memory, or sums past int64. */
static int add_failed(struct tka_ctx *c, int rc, const struct rec *r)
{
	if (rc == TK_EFORMAT)
		return tka_fail(c, rc, "table memory_records, row id %lld: bytes add up past 2^63",
				(long long)r->id);
	return tka_fail(c, TK_ENOMEM, "out of memory in the memory analysis");
}

/* Pass 1 over the records of one device (@dev: NONE for host memory). */
static int pass1_device(struct tka_ctx *c, struct mem *M, sqlite3_stmt *q, int64_t dev,
			int64_t first, int64_t last)
{
	int step, rc = TK_OK;
	sqlite3_reset(q);
	if (dev == NONE)
		sqlite3_bind_null(q, 1);
	else
		sqlite3_bind_int64(q, 1, dev);
	sqlite3_bind_int64(q, 2, INT64_MAX);
	while ((step = sqlite3_step(q)) == SQLITE_ROW) {
		int64_t key[3];
		struct rec r;
		const char *bad = read_rec(q, key, &r);
		if (bad)
			return tka_fail(c, TK_EFORMAT, "table memory_records, row id %lld: %s",
					(long long)r.id, bad);
		struct series *s = series_for(M, key, first, last);
		if (!s)
			return tka_fail(c, TK_ENOMEM, "out of memory in the memory analysis");
		if ((rc = series_add(s, &r)) != TK_OK)
			return add_failed(c, rc, &r);
	}
	if (step != SQLITE_DONE)
		rc = tka_fail(c, TK_EINTERNAL, "reading memory records: %s", sqlite3_errmsg(c->db));
	return rc;
}

static int step_done(struct tka_ctx *c, sqlite3_stmt *st)
{
	int rc = sqlite3_step(st) == SQLITE_DONE
		     ? TK_OK
		     : tka_fail(c, TK_EINTERNAL, "writing the memory analysis: %s",
				sqlite3_errmsg(c->db));
	sqlite3_reset(st);
	return rc;
}

static void bind_opt(sqlite3_stmt *st, int i, int64_t v)
{
	if (v == NONE)
		sqlite3_bind_null(st, i);
	else
		sqlite3_bind_int64(st, i, v);
}

static int cmp_alloc(const void *a, const void *b)
{
	const struct alloc *x = a, *y = b;
	if (x->bytes != y->bytes)
		return x->bytes > y->bytes ? -1 : 1;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return (x->id > y->id) - (x->id < y->id);
}

/* Pass 2 for @s: replay to the peak record, then write the live allocations there. */
static int write_live(struct tka_ctx *c, struct series *s, int64_t sid, sqlite3_stmt *q,
		      sqlite3_stmt *ins, sqlite3_stmt *opq, int64_t *nlive, int64_t *live_bytes)
{
	const struct valser *v = s->basis_summed ? &s->sum : &s->rep;
	struct series r;
	struct alloc *a = NULL;
	int64_t *enc = NULL;
	int step, rc = TK_OK;
	memset(&r, 0, sizeof(r));
	live_init(&r.live);
	sqlite3_reset(q);
	bind_opt(q, 1, s->device_id);
	sqlite3_bind_int64(q, 2, v->peak_ts);
	while ((step = sqlite3_step(q)) == SQLITE_ROW) {
		int64_t key[3];
		struct rec rr;
		read_rec(q, key, &rr);
		if (memcmp(key, &s->device_id, sizeof(key)))
			continue;
		if (apply(&r, &rr) != TK_OK) {
			rc = tka_fail(c, TK_ENOMEM, "out of memory in the memory analysis");
			goto out;
		}
		if (rr.id == v->peak_id)
			break;
	}
	*nlive = (int64_t)r.live.t.n;
	*live_bytes = r.live.bytes;
	size_t n = 0;
	a = malloc((r.live.t.n ? r.live.t.n : 1) * sizeof(*a));
	if (!a) {
		rc = tka_fail(c, TK_ENOMEM, "out of memory in the memory analysis");
		goto out;
	}
	for (size_t i = 0; i < r.live.t.n; i++)
		a[n++] = *(const struct alloc *)tku_table_elem(&r.live.t, i);
	qsort(a, n, sizeof(*a), cmp_alloc);
	size_t *need = malloc((n ? n : 1) * sizeof(*need)), nneed = 0;
	enc = malloc((n ? n : 1) * sizeof(*enc));
	if (!need || !enc) {
		free(need);
		rc = tka_fail(c, TK_ENOMEM, "out of memory in the memory analysis");
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		enc[i] = NONE;
		if (s->process_id != NONE && a[i].op_event_id == NONE && a[i].op_name_id == NONE)
			need[nneed++] = i;
	}
	for (size_t k = 0; k < nneed; k++) /* the times to look up, in place of their indexes */
		enc[k] = a[need[k]].ts;
	rc = tka_enclosing_ops(c, s->process_id, enc, nneed);
	for (size_t k = nneed; k-- > 0;) { /* enc[k] is the op of need[k] >= k: move it there */
		int64_t op = enc[k];
		enc[k] = NONE;
		enc[need[k]] = op;
	}
	free(need);
	for (size_t i = 0; rc == TK_OK && i < n; i++) {
		const char *src = NULL;
		int64_t op = a[i].op_event_id;
		if (op != NONE)
			src = "record";
		else if (a[i].op_name_id == NONE && (op = enc[i]) != NONE)
			src = "enclosing";
		sqlite3_bind_int64(ins, 1, sid);
		sqlite3_bind_int64(ins, 2, (int64_t)i + 1);
		sqlite3_bind_int64(ins, 3, a[i].id);
		bind_opt(ins, 4, a[i].addr < 0 && a[i].addr == -1 - a[i].id ? NONE : a[i].addr);
		sqlite3_bind_int64(ins, 5, a[i].bytes);
		sqlite3_bind_int64(ins, 6, a[i].ts);
		bind_opt(ins, 7, op);
		sqlite3_bind_null(ins, 8);
		if (op != NONE) {
			sqlite3_bind_int64(opq, 1, op);
			if (sqlite3_step(opq) == SQLITE_ROW)
				sqlite3_bind_text(ins, 8, (const char *)sqlite3_column_text(opq, 0),
						  -1, SQLITE_TRANSIENT);
			sqlite3_reset(opq);
		} else if (a[i].op_name_id != NONE) {
			src = "name";
		}
		if (src)
			sqlite3_bind_text(ins, 9, src, -1, SQLITE_STATIC);
		else
			sqlite3_bind_null(ins, 9);
		sqlite3_bind_int64(ins, 10, a[i].op_name_id == NONE ? 0 : a[i].op_name_id);
		rc = step_done(c, ins);
	}
out:
	free(a);
	free(enc);
	tku_table_free(&r.live.t);
	return rc;
}

/* analysis_memory's last column (fragmentation_source) is NULL here: set by the UPDATE below. */
TKA_WRITES(TK_NCOLS_ANALYSIS_MEMORY, 22, "analysis_memory");
TKA_WRITES(TK_NCOLS_ANALYSIS_MEMORY_TIMELINE, 9, "analysis_memory_timeline");
TKA_WRITES(TK_NCOLS_ANALYSIS_MEMORY_LIVE_AT_PEAK, 9, "analysis_memory_live_at_peak");
TKA_WRITES(TK_NCOLS_ANALYSIS_MEMORY_HISTOGRAM, 5, "analysis_memory_histogram");

static int write_series(struct tka_ctx *c, struct mem *M)
{
	sqlite3_stmt *ms = NULL, *tl = NULL, *lv = NULL, *hi = NULL, *q = NULL, *pk = NULL;
	sqlite3_stmt *opq = NULL;
	int rc = tka_prepare(c,
			     "INSERT INTO analysis_memory (" TK_COLS_ANALYSIS_MEMORY
			     ") VALUES (?,?,?,(SELECT str FROM strings "
			     "WHERE id = ?),?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,NULL)",
			     &ms);
	if (rc == TK_OK)
		rc = tka_prepare(
		    c,
		    "INSERT INTO analysis_memory_timeline (" TK_COLS_ANALYSIS_MEMORY_TIMELINE
		    ") VALUES (?,?,?,?,?,?,?,?,?)",
		    &tl);
	if (rc == TK_OK)
		rc = tka_prepare(c,
				 "INSERT INTO analysis_memory_live_at_peak "
				 "(" TK_COLS_ANALYSIS_MEMORY_LIVE_AT_PEAK
				 ") VALUES (?1,?2,?3,?4,?5,?6,?7,"
				 "coalesce(?8, (SELECT str FROM strings WHERE id = ?10)),?9)",
				 &lv);
	if (rc == TK_OK)
		rc = tka_prepare(
		    c,
		    "INSERT INTO analysis_memory_histogram (" TK_COLS_ANALYSIS_MEMORY_HISTOGRAM
		    ") VALUES (?,?,?,?,?)",
		    &hi);
	if (rc == TK_OK)
		rc = tka_prepare(c, read_sql, &q);
	if (rc == TK_OK)
		rc = tka_prepare(
		    c, "SELECT bytes_reserved, fragmentation FROM memory_records WHERE id = ?",
		    &pk);
	if (rc == TK_OK)
		rc = tka_prepare(c,
				 "SELECT s.str FROM events e JOIN strings s ON s.id = e.name_id "
				 "WHERE e.id = ?",
				 &opq);
	for (size_t i = 0; rc == TK_OK && i < M->n; i++) {
		struct series *s = &M->s[i];
		int64_t sid = (int64_t)i + 1, nlive = 0, live_bytes = 0;
		s->basis_summed = s->with_reported != s->records;
		const struct valser *v = s->basis_summed ? &s->sum : &s->rep;
		rc = write_live(c, s, sid, q, lv, opq, &nlive, &live_bytes);
		if (rc != TK_OK)
			break;
		sqlite3_bind_int64(ms, 1, sid);
		bind_opt(ms, 2, s->device_id);
		bind_opt(ms, 3, s->process_id);
		bind_opt(ms, 4, s->allocator_id);
		sqlite3_bind_text(ms, 5, s->basis_summed ? "summed" : "reported", -1,
				  SQLITE_STATIC);
		sqlite3_bind_int64(ms, 6, s->records);
		sqlite3_bind_int64(ms, 7, s->allocs);
		sqlite3_bind_int64(ms, 8, s->frees);
		sqlite3_bind_int64(ms, 9, s->unmatched);
		sqlite3_bind_int64(ms, 10, s->first_ts);
		sqlite3_bind_int64(ms, 11, s->last_ts);
		sqlite3_bind_int64(ms, 12, v->peak);
		sqlite3_bind_int64(ms, 13, v->peak_ts);
		sqlite3_bind_int64(ms, 14, v->peak_id);
		sqlite3_bind_int64(ms, 15, v->last);
		sqlite3_bind_int64(ms, 16, nlive);
		sqlite3_bind_int64(ms, 17, live_bytes);
		sqlite3_bind_null(ms, 18);
		sqlite3_bind_null(ms, 20);
		sqlite3_bind_int64(pk, 1, v->peak_id);
		if (sqlite3_step(pk) == SQLITE_ROW) {
			if (sqlite3_column_type(pk, 0) != SQLITE_NULL)
				sqlite3_bind_int64(ms, 18, sqlite3_column_int64(pk, 0));
			if (sqlite3_column_type(pk, 1) != SQLITE_NULL)
				sqlite3_bind_double(ms, 20, sqlite3_column_double(pk, 1));
		}
		sqlite3_reset(pk);
		bind_opt(ms, 19, s->reported_peak);
		if (s->max_frag >= 0)
			sqlite3_bind_double(ms, 21, s->max_frag);
		else
			sqlite3_bind_null(ms, 21);
		rc = step_done(c, ms);
		for (int k = 0; rc == TK_OK && k < TL_BUCKETS; k++) {
			const struct bucket *b = &v->b[k];
			if (!b->records)
				continue;
			int64_t start = s->dev_first + (int64_t)k * s->width;
			sqlite3_bind_int64(tl, 1, sid);
			sqlite3_bind_int64(tl, 2, k);
			sqlite3_bind_int64(tl, 3, start);
			sqlite3_bind_int64(tl, 4, start + s->width);
			sqlite3_bind_int64(tl, 5, b->records);
			sqlite3_bind_int64(tl, 6, b->max);
			sqlite3_bind_int64(tl, 7, b->max_ts);
			sqlite3_bind_int64(tl, 8, b->min);
			sqlite3_bind_int64(tl, 9, b->last);
			rc = step_done(c, tl);
		}
		for (int k = 0; rc == TK_OK && k < 65; k++) {
			if (!s->hist_n[k])
				continue;
			int64_t lo = k == 0 ? 0 : (int64_t)1 << (k - 1);
			sqlite3_bind_int64(hi, 1, sid);
			sqlite3_bind_int64(hi, 2, lo);
			if (k == 0)
				sqlite3_bind_int64(hi, 3, 1);
			else if (k < 63)
				sqlite3_bind_int64(hi, 3, lo * 2);
			else
				sqlite3_bind_null(hi, 3);
			sqlite3_bind_int64(hi, 4, s->hist_n[k]);
			sqlite3_bind_int64(hi, 5, s->hist_bytes[k]);
			rc = step_done(c, hi);
		}
	}
	sqlite3_finalize(ms);
	sqlite3_finalize(tl);
	sqlite3_finalize(lv);
	sqlite3_finalize(hi);
	sqlite3_finalize(q);
	sqlite3_finalize(pk);
	sqlite3_finalize(opq);
	return rc;
}

/* The int64 result of @st (?1, if any, bound to @dev; NONE: NULL), or NONE when NULL. */
static int64_t one_value(sqlite3_stmt *st, int64_t dev)
{
	int64_t v = NONE;
	sqlite3_reset(st);
	if (sqlite3_bind_parameter_count(st) > 0 && dev == NONE)
		sqlite3_bind_null(st, 1);
	else if (sqlite3_bind_parameter_count(st) > 0)
		sqlite3_bind_int64(st, 1, dev);
	if (sqlite3_step(st) == SQLITE_ROW)
		v = col_or_none(st, 0);
	sqlite3_reset(st);
	return v;
}

/*
 * Pass 1 over every device's records (host memory first, then by device id). The devices and
 * their first and last record times come from seeks on memory_records_by_device: a GROUP BY
 * would read the whole index.
 */
static int pass1(struct tka_ctx *c, struct mem *M)
{
	sqlite3_stmt *q = NULL, *first = NULL, *next = NULL, *lo = NULL, *hi = NULL;
	int rc = tka_prepare(c, read_sql, &q);
	if (rc == TK_OK)
		rc = tka_prepare(c,
				 "SELECT min(device_id) FROM memory_records WHERE device_id IS NOT "
				 "NULL",
				 &first);
	if (rc == TK_OK)
		rc = tka_prepare(
		    c, "SELECT min(device_id) FROM memory_records WHERE device_id > ?1", &next);
	/* Clamped to +-2^62 (NULL stays NULL): a time out of range, which would read as NONE, is
	 * then caught below (store/checked.h) instead of hiding the device's records. */
	if (rc == TK_OK)
		rc = tka_prepare(c,
				 "SELECT max((SELECT min(ts_ns) FROM memory_records WHERE "
				 "device_id IS ?1), -4611686018427387904)",
				 &lo);
	if (rc == TK_OK)
		rc = tka_prepare(c,
				 "SELECT min((SELECT max(ts_ns) FROM memory_records WHERE "
				 "device_id IS ?1), 4611686018427387904)",
				 &hi);
	for (int64_t dev = NONE, host = 1; rc == TK_OK; host = 0) {
		if (!host && (dev = one_value(dev == NONE ? first : next, dev)) == NONE)
			break; /* no device after the last one */
		int64_t a = one_value(lo, dev), b = one_value(hi, dev);
		if (a != NONE && b != NONE && (!tk_time_ok(a) || !tk_time_ok(b) || b < a))
			rc = tka_fail(c, TK_EFORMAT,
				      "table memory_records, device_id %lld: ts_ns out of range or "
				      "not an integer",
				      (long long)dev);
		else if (a != NONE && b != NONE)
			rc = pass1_device(c, M, q, dev, a, b);
	}
	sqlite3_finalize(q);
	sqlite3_finalize(first);
	sqlite3_finalize(next);
	sqlite3_finalize(lo);
	sqlite3_finalize(hi);
	return rc;
}

int tka_memory(struct tka_ctx *c)
{
	struct mem M = {NULL, 0, 0};
	int rc = pass1(c, &M);
	if (rc == TK_OK)
		rc = write_series(c, &M);
	if (rc == TK_OK)
		rc = tka_exec(
		    c, "memory fragmentation",
		    "UPDATE analysis_memory SET fragmentation_source = 'reported' WHERE "
		    "fragmentation_at_peak IS NOT NULL;"
		    "UPDATE analysis_memory SET fragmentation_at_peak = "
		    "CAST(reserved_at_peak - peak_bytes AS REAL) / reserved_at_peak, "
		    "fragmentation_source = 'computed' WHERE fragmentation_at_peak IS NULL "
		    "AND reserved_at_peak > 0 AND reserved_at_peak >= peak_bytes");
	for (size_t i = 0; i < M.n; i++) {
		tku_table_free(&M.s[i].live.t);
		free(M.s[i].rep.b);
		free(M.s[i].sum.b);
	}
	free(M.s);
	return rc;
}

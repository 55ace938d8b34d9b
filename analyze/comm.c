/*
 * Communication across ranks (docs/metrics.md, "Communication across ranks"): every
 * communication kernel of every device is matched with the same collective on the other devices,
 * by (process group, sequence number) when the trace carries both, else by call order among the
 * kernels of the same name, process group and message size, re-synchronized on the rule that the
 * members of one collective run at the same time. Per member its skew, its wait (bounded by its
 * own duration) and whether it started last by a significant margin (analysis_comm); per device
 * its matched and unmatched collectives, how often it was late, its wait inside the window
 * (never more than its communication time) and the straggler flag (analysis_comm_ranks).
 * Communication kernels come from the shared timeline (intervals.c). The matched collectives
 * also give each host's clock offset (clock.c); with --align-clocks the members are shifted by
 * their host's offset and matched again, so skews, waits and stragglers compare aligned times
 * (docs/metrics.md, "clock offsets between hosts").
 */
#include "clock.h"
#include "intervals.h"

#include <stdlib.h>
#include <string.h>
#include <tracekit/store.h>

#include "checked.h"
#include "util/comm_args.h"
#include "util/map.h"

/* A skew is significant from this floor (ns) and from 1/TKA_SKEW_DIV of the collective's median
 * duration up (docs: "late"). */
#define TKA_SKEW_FLOOR_NS 10000
#define TKA_SKEW_DIV 10

enum { BY_NONE = 0, BY_SEQ = 1, BY_ORDER = 2 };

/* One communication kernel of one device. */
struct member {
	int64_t start, end, seq, nelems; /* seq, nelems: TK_NONE when absent */
	int64_t skew, wait, thr, instance;
	const char *pg, *dtype, *coll; /* interned in struct strs, or NULL */
	uint32_t name_id, dev;	       /* dev: index in tl->dev */
	size_t op;		       /* index in tl->dev[dev].ops */
	int members, last, by;
	int cls; /* 0: matched by (pg, seq); 1: by order */
};

/* Distinct text values (process group names, dtypes): few, so a plain list. */
struct strs {
	char **v;
	size_t n, cap;
};

static const char *strs_intern(struct strs *s, const char *v)
{
	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->v[i], v))
			return s->v[i];
	if (TKU_GROW(s->v, s->cap, s->n + 1, 16) != TK_OK || !(s->v[s->n] = strdup(v)))
		return NULL;
	return s->v[s->n++];
}

static void strs_free(struct strs *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i]);
	free(s->v);
}

static int cmp_str(const char *a, const char *b)
{
	if (!a || !b)
		return a ? 1 : b ? -1 : 0;
	return a == b ? 0 : strcmp(a, b);
}

static int cmp_i64(int64_t a, int64_t b)
{
	return a < b ? -1 : a > b;
}

/* Matching order: class, then its key ((pg, seq), or (name, pg, nelems, dtype)), device, start. */
static int cmp_key(const struct member *a, const struct member *b)
{
	int s;
	if (a->cls != b->cls)
		return a->cls < b->cls ? -1 : 1;
	if (a->cls == 0) {
		if ((s = cmp_str(a->pg, b->pg)))
			return s;
		return cmp_i64(a->seq, b->seq);
	}
	if (a->name_id != b->name_id)
		return a->name_id < b->name_id ? -1 : 1;
	if ((s = cmp_str(a->pg, b->pg)) || (s = cmp_i64(a->nelems, b->nelems)))
		return s;
	return cmp_str(a->dtype, b->dtype);
}

static int cmp_member(const void *pa, const void *pb)
{
	const struct member *a = pa, *b = pb;
	int s = cmp_key(a, b);
	if (s)
		return s;
	if (a->dev != b->dev)
		return a->dev < b->dev ? -1 : 1;
	return cmp_i64((int64_t)a->op, (int64_t)b->op);
}

/* Device order, then time order (the order of tl->dev[].ops). */
static int cmp_dev_op(const void *pa, const void *pb)
{
	const struct member *a = pa, *b = pb;
	if (a->dev != b->dev)
		return a->dev < b->dev ? -1 : 1;
	return cmp_i64((int64_t)a->op, (int64_t)b->op);
}

/* a − b, saturated at INT64_MAX (a >= b; a hostile store may hold any two timestamps). */
static int64_t diff_sat(int64_t a, int64_t b)
{
	int64_t r;
	return tk_sub_ovf(a, b, &r) ? INT64_MAX : r;
}

/* t − o, saturated both ways. */
static int64_t shift_sat(int64_t t, int64_t o)
{
	int64_t r;
	return tk_sub_ovf(t, o, &r) ? (o < 0 ? INT64_MAX : INT64_MIN) : r;
}

static int cmp_dur(const void *pa, const void *pb)
{
	return cmp_i64(*(const int64_t *)pa, *(const int64_t *)pb);
}

/* What the matching needs besides the members: scratch sized for one member per device. */
struct matcher {
	struct member *m;
	size_t *grp;	     /* indexes in m of the group being formed */
	int64_t *durs;	     /* their durations, to sort */
	size_t *head, *stop; /* order matching: per device of a key run, next and end index */
	int64_t next_instance;
};

/* Make the members m[grp[0..n)] (n >= 2, one per device) one collective. */
static void form_group(struct matcher *x, size_t n, int by)
{
	int64_t lo = INT64_MAX, hi = INT64_MIN;
	for (size_t k = 0; k < n; k++) {
		const struct member *p = &x->m[x->grp[k]];
		lo = p->start < lo ? p->start : lo;
		hi = p->start > hi ? p->start : hi;
		x->durs[k] = p->end - p->start;
	}
	qsort(x->durs, n, sizeof(*x->durs), cmp_dur);
	int64_t med = x->durs[(n - 1) / 2]; /* the lower middle value */
	int64_t thr = med / TKA_SKEW_DIV + (med % TKA_SKEW_DIV != 0);
	thr = thr > TKA_SKEW_FLOOR_NS ? thr : TKA_SKEW_FLOOR_NS;
	int64_t spread = diff_sat(hi, lo), inst = ++x->next_instance;
	for (size_t k = 0; k < n; k++) {
		struct member *p = &x->m[x->grp[k]];
		int64_t dur = p->end - p->start;
		p->by = by;
		p->instance = inst;
		p->members = (int)n;
		int64_t behind = diff_sat(hi, p->start);
		p->skew = diff_sat(p->start, lo);
		p->wait = behind < dur ? behind : dur;
		p->thr = thr;
		p->last = p->start == hi && spread > 0 && spread >= thr;
	}
}

/* Members m[a, b) share one (pg, seq): the first kernel of each device is its member. */
static void match_seq(struct matcher *x, size_t a, size_t b)
{
	size_t n = 0;
	for (size_t k = a; k < b; k++)
		if (k == a || x->m[k].dev != x->m[k - 1].dev)
			x->grp[n++] = k;
	if (n >= 2)
		form_group(x, n, BY_SEQ);
}

/*
 * Members m[a, b) share one order key, sorted by device then time. The heads of the devices
 * (their earliest kernels not yet taken) are one collective when they all overlap (the latest
 * start S is not after the earliest end); otherwise the heads that ended before S cannot belong
 * to the collective of the head that started at S nor to any later one of its device: when at
 * least two of them overlap each other they are one collective (the others lack it), else the one
 * that ended first is left unmatched.
 */
static void match_order(struct matcher *x, size_t a, size_t b)
{
	size_t nd = 0;
	for (size_t k = a; k < b; k++)
		if (k == a || x->m[k].dev != x->m[k - 1].dev) {
			x->head[nd] = k;
			if (nd > 0)
				x->stop[nd - 1] = k;
			nd++;
		}
	x->stop[nd - 1] = b;
	for (;;) {
		int64_t S = INT64_MIN, E = INT64_MAX;
		size_t live = 0, first_end = SIZE_MAX;
		for (size_t d = 0; d < nd; d++) {
			if (x->head[d] == x->stop[d])
				continue;
			const struct member *p = &x->m[x->head[d]];
			live++;
			S = p->start > S ? p->start : S;
			if (p->end < E) {
				E = p->end;
				first_end = d;
			}
		}
		if (live < 2)
			break;
		size_t n = 0;
		int64_t es = INT64_MIN, ee = INT64_MAX;
		for (size_t d = 0; d < nd; d++) {
			if (x->head[d] == x->stop[d])
				continue;
			const struct member *p = &x->m[x->head[d]];
			if (S <= E || p->end < S) {
				x->grp[n++] = d;
				es = p->start > es ? p->start : es;
				ee = p->end < ee ? p->end : ee;
			}
		}
		if (n >= 2 && es <= ee) {
			for (size_t k = 0; k < n; k++) {
				size_t d = x->grp[k];
				x->grp[k] = x->head[d]++;
			}
			form_group(x, n, BY_ORDER);
		} else {
			x->head[first_end]++; /* left unmatched */
		}
	}
}

/* The args of a kernel that identify its collective (and its kind: coll); 0 when none of them
 * is in the store. */
struct arg_keys {
	int64_t pg, seq, nelems, dtype, coll;
};

static int read_args(struct tka_ctx *c, sqlite3_stmt *q, const struct arg_keys *k, struct strs *str,
		     struct member *p, int64_t event_id)
{
	int rc = TK_OK;
	sqlite3_reset(q);
	sqlite3_bind_int64(q, 1, event_id);
	while (rc == TK_OK && sqlite3_step(q) == SQLITE_ROW) {
		int64_t key = sqlite3_column_int64(q, 0);
		int type = sqlite3_column_type(q, 1);
		const char *text = (const char *)sqlite3_column_text(q, 1);
		if ((key == k->seq || key == k->nelems) && type == SQLITE_INTEGER) {
			*(key == k->seq ? &p->seq : &p->nelems) = sqlite3_column_int64(q, 1);
		} else if ((key == k->seq || key == k->nelems) && type == SQLITE_TEXT && text) {
			char *end;
			long long v = strtoll(text, &end, 10);
			if (end != text && !*end)
				*(key == k->seq ? &p->seq : &p->nelems) = v;
		} else if ((key == k->pg || key == k->dtype || key == k->coll) &&
			   type != SQLITE_NULL && text) {
			const char *v = strs_intern(str, text);
			if (!v)
				rc = tka_fail(c, TK_ENOMEM, "out of memory");
			*(key == k->pg ? &p->pg : key == k->dtype ? &p->dtype : &p->coll) = v;
		}
	}
	return rc;
}

/* Per device sums over its members in the window (docs: analysis_comm_ranks). */
struct rank_sum {
	int64_t n, unmatched, last, skew, max_skew, late_skew;
	double expected;
};

static int write_member(struct tka_ctx *c, sqlite3_stmt *ins, const struct tka_device *d,
			const struct member *p, int in_window)
{
	const struct tka_op *op = &d->ops[p->op];
	int i = 1, matched = p->by != BY_NONE;
	sqlite3_reset(ins);
	sqlite3_bind_int64(ins, i++, d->device_id);
	if (d->rank == TK_NONE)
		sqlite3_bind_null(ins, i++);
	else
		sqlite3_bind_int64(ins, i++, d->rank);
	sqlite3_bind_int64(ins, i++, p->name_id);
	if (p->pg)
		sqlite3_bind_text(ins, i++, p->pg, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(ins, i++);
	if (p->seq != TK_NONE)
		sqlite3_bind_int64(ins, i++, p->seq);
	else
		sqlite3_bind_null(ins, i++);
	if (p->nelems != TK_NONE)
		sqlite3_bind_int64(ins, i++, p->nelems);
	else
		sqlite3_bind_null(ins, i++);
	if (p->dtype)
		sqlite3_bind_text(ins, i++, p->dtype, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(ins, i++);
	if (matched) {
		sqlite3_bind_text(ins, i++, p->by == BY_SEQ ? "seq" : "order", -1, SQLITE_STATIC);
		sqlite3_bind_int64(ins, i++, p->instance);
	} else {
		sqlite3_bind_null(ins, i++);
		sqlite3_bind_null(ins, i++);
	}
	sqlite3_bind_int64(ins, i++, op->id);
	sqlite3_bind_int64(ins, i++, op->ts);
	sqlite3_bind_int64(ins, i++, op->end - op->ts);
	sqlite3_bind_int(ins, i++, in_window);
	sqlite3_bind_int(ins, i++, matched ? p->members : 1);
	if (matched) {
		sqlite3_bind_int64(ins, i++, p->skew);
		sqlite3_bind_int64(ins, i++, p->wait);
		sqlite3_bind_int64(ins, i++, p->thr);
	} else {
		for (int k = 0; k < 3; k++)
			sqlite3_bind_null(ins, i++);
	}
	sqlite3_bind_int(ins, i++, matched && p->last);
	if (sqlite3_step(ins) != SQLITE_DONE)
		return tka_fail(c, TK_EINTERNAL, "writing analysis_comm: %s",
				sqlite3_errmsg(c->db));
	return TK_OK;
}

static int write_rank(struct tka_ctx *c, sqlite3_stmt *rk, const struct tka_device *d,
		      const struct rank_sum *r, const struct tka_spans *wait)
{
	double share = r->n ? (double)r->last / (double)r->n : 0.0,
	       expected = r->n ? r->expected / (double)r->n : 0.0;
	int j = 1;
	sqlite3_reset(rk);
	sqlite3_bind_int64(rk, j++, d->device_id);
	if (d->rank == TK_NONE)
		sqlite3_bind_null(rk, j++);
	else
		sqlite3_bind_int64(rk, j++, d->rank);
	sqlite3_bind_int64(rk, j++, r->n);
	sqlite3_bind_int64(rk, j++, r->unmatched);
	sqlite3_bind_int64(rk, j++, r->last);
	sqlite3_bind_double(rk, j++, share);
	sqlite3_bind_double(rk, j++, expected);
	sqlite3_bind_int64(rk, j++, r->skew);
	sqlite3_bind_int64(rk, j++, r->max_skew);
	sqlite3_bind_int64(rk, j++, r->late_skew);
	sqlite3_bind_int64(rk, j++, tka_spans_overlap(&d->comm, d->window));
	sqlite3_bind_int64(rk, j++, tka_spans_overlap(wait, d->window));
	sqlite3_bind_int(rk, j++, r->last >= 3 && share > 1.5 * expected);
	if (sqlite3_step(rk) != SQLITE_DONE)
		return tka_fail(c, TK_EINTERNAL, "writing analysis_comm_ranks: %s",
				sqlite3_errmsg(c->db));
	return TK_OK;
}

TKA_WRITES(TK_NCOLS_ANALYSIS_COMM, 18, "analysis_comm");
TKA_WRITES(TK_NCOLS_ANALYSIS_COMM_RANKS, 13, "analysis_comm_ranks");

/* Write every member and, when at least two devices communicate, every device's sums. */
static int write_all(struct tka_ctx *c, const struct tka_timeline *tl, struct member *m, size_t nm)
{
	sqlite3_stmt *ins = NULL, *rk = NULL;
	struct tka_spans wait = {0};
	size_t ndevs = 0;
	int rc;
	if ((rc = tka_prepare(c,
			      "INSERT INTO analysis_comm (" TK_COLS_ANALYSIS_COMM
			      ") VALUES (?, ?, (SELECT str FROM strings "
			      "WHERE id = ?), ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
			      &ins)) != TK_OK ||
	    (rc = tka_prepare(c,
			      "INSERT INTO analysis_comm_ranks (" TK_COLS_ANALYSIS_COMM_RANKS
			      ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
			      &rk)) != TK_OK)
		goto out;
	if (nm > 1)
		qsort(m, nm, sizeof(*m), cmp_dev_op);
	for (size_t k = 0; k < nm; k++)
		ndevs += k == 0 || m[k].dev != m[k - 1].dev;
	for (size_t a = 0; a < nm;) {
		const struct tka_device *d = &tl->dev[m[a].dev];
		struct rank_sum r = {0};
		size_t b = a;
		wait.n = 0;
		for (; b < nm && m[b].dev == m[a].dev; b++) {
			const struct member *p = &m[b];
			int64_t ts = d->ops[p->op].ts; /* on the store's clock, as the window */
			int in = ts < INT64_MAX && tka_spans_len_in(d->window, ts, ts + 1) > 0;
			if ((rc = write_member(c, ins, d, p, in)) != TK_OK)
				goto out;
			if (p->by != BY_NONE &&
			    (rc = tka_spans_add(&wait, ts, ts + p->wait)) != TK_OK) {
				rc = tka_fail(c, rc, "out of memory");
				goto out;
			}
			if (!in)
				continue;
			if (p->by == BY_NONE) {
				r.unmatched++;
				continue;
			}
			r.n++;
			r.last += p->last;
			r.skew += p->skew;
			r.max_skew = p->skew > r.max_skew ? p->skew : r.max_skew;
			r.late_skew += p->last ? p->skew : 0;
			r.expected += 1.0 / (double)p->members;
		}
		if (ndevs >= 2 && (rc = write_rank(c, rk, d, &r, &wait)) != TK_OK)
			goto out;
		a = b;
	}
out:
	tka_spans_free(&wait);
	sqlite3_finalize(ins);
	sqlite3_finalize(rk);
	return rc;
}

/* The key ids of the identifying args; 0 for a name the store does not hold. */
static int arg_keys(struct tka_ctx *c, struct arg_keys *k)
{
	sqlite3_stmt *q = NULL;
	int rc =
	    tka_prepare(c, "SELECT id, str FROM strings WHERE str IN (" TKU_COMM_ARG_KEYS ")", &q);
	memset(k, 0, sizeof(*k));
	while (rc == TK_OK && sqlite3_step(q) == SQLITE_ROW) {
		const char *s = (const char *)sqlite3_column_text(q, 1);
		int64_t id = sqlite3_column_int64(q, 0);
		if (!s)
			continue;
		if (!strcmp(s, "Process Group Name"))
			k->pg = id;
		else if (!strcmp(s, "Seq"))
			k->seq = id;
		else if (!strcmp(s, "In msg nelems"))
			k->nelems = id;
		else if (!strcmp(s, "Collective name"))
			k->coll = id;
		else
			k->dtype = id;
	}
	sqlite3_finalize(q);
	return rc;
}

/* Match every member of m[0..nm) (sorted by cmp_member), afresh. */
static void match_all(struct matcher *x, size_t nm)
{
	x->next_instance = 0;
	for (size_t k = 0; k < nm; k++) {
		struct member *p = &x->m[k];
		p->by = BY_NONE;
		p->instance = p->skew = p->wait = p->thr = 0;
		p->members = p->last = 0;
	}
	for (size_t a = 0; a < nm;) {
		size_t b = a + 1;
		while (b < nm && cmp_key(&x->m[a], &x->m[b]) == 0)
			b++;
		if (x->m[a].cls == 0)
			match_seq(x, a, b);
		else
			match_order(x, a, b);
		a = b;
	}
}

/* 1 when the members of the collective of @p end together (clock.h): by its "Collective name"
 * arg, else by its kernel name (looked up once per name in @kinds). */
static int ends_together(struct tka_ctx *c, sqlite3_stmt *nameq, struct tku_table *kinds,
			 const struct member *p, int *out)
{
	if (p->coll) {
		*out = tka_clock_kind(p->coll);
		return TK_OK;
	}
	int64_t key = p->name_id;
	int added;
	int64_t *e = tku_table_at(kinds, &key, &added);
	if (!e)
		return tka_fail(c, TK_ENOMEM, "out of memory");
	if (added) {
		sqlite3_reset(nameq);
		sqlite3_bind_int64(nameq, 1, key);
		e[1] = sqlite3_step(nameq) == SQLITE_ROW &&
		       tka_clock_kind((const char *)sqlite3_column_text(nameq, 0));
	}
	*out = (int)e[1];
	return TK_OK;
}

/*
 * Estimate the hosts' clock offsets from the collectives matched by sequence number (the only
 * matching that does not rest on the clocks), write the hosts' offsets and, with
 * --align-clocks, shift each member by its host's offset and match again: call order then pairs
 * on aligned times (docs/metrics.md, "clock offsets between hosts").
 */
static int align(struct tka_ctx *c, const struct tka_timeline *tl, struct matcher *x, size_t nm)
{
	struct tka_clock_sample *s = malloc((nm ? nm : 1) * sizeof(*s));
	int64_t *off = malloc((tl->ndev ? tl->ndev : 1) * sizeof(*off));
	struct tku_table kinds = TKU_TABLE_INIT(int64_t[2], 1);
	sqlite3_stmt *nameq = NULL;
	int rc, apply = c->opt->align_clocks, any = 0;
	if (!s || !off) {
		rc = tka_fail(c, TK_ENOMEM, "out of memory");
		goto out;
	}
	if ((rc = tka_prepare(c, "SELECT str FROM strings WHERE id = ?", &nameq)) != TK_OK)
		goto out;
	for (size_t k = 0; k < nm; k++) {
		const struct member *p = &x->m[k];
		int et = 0;
		if (p->by == BY_SEQ && (rc = ends_together(c, nameq, &kinds, p, &et)) != TK_OK)
			goto out;
		s[k] = (struct tka_clock_sample){p->by == BY_SEQ ? p->instance : 0, p->end, p->dev,
						 et};
	}
	if ((rc = tka_clock_offsets(c, tl, s, nm, apply, off)) != TK_OK)
		goto out;
	for (size_t k = 0; k < nm; k++) {
		struct member *p = &x->m[k];
		int64_t o = off[p->dev];
		if (!o ||
		    !tk_time_ok(o)) /* a hostile store's offset beyond any time: not applied */
			continue;
		any = 1;
		p->start = shift_sat(p->start, o);
		p->end = shift_sat(p->end, o);
	}
	if (any)
		match_all(x, nm);
out:
	sqlite3_finalize(nameq);
	tku_table_free(&kinds);
	free(s);
	free(off);
	return rc;
}

int tka_comm(struct tka_ctx *c)
{
	const struct tka_timeline *tl;
	sqlite3_stmt *argq = NULL;
	struct matcher x = {0};
	struct strs str = {0};
	struct arg_keys keys;
	size_t nm = 0, cap = 0;
	int rc;
	if ((rc = tka_timeline_get(c, &tl)) != TK_OK || (rc = arg_keys(c, &keys)) != TK_OK ||
	    (rc = tka_prepare(c, "SELECT key_id, value FROM args WHERE event_id = ?", &argq)) !=
		TK_OK)
		goto out;
	int any_key = keys.pg || keys.seq || keys.nelems || keys.dtype;
	size_t n1 = tl->ndev + 1;
	x.grp = malloc(n1 * sizeof(*x.grp));
	x.head = malloc(n1 * sizeof(*x.head));
	x.stop = malloc(n1 * sizeof(*x.stop));
	x.durs = malloc(n1 * sizeof(*x.durs));
	if (!x.grp || !x.head || !x.stop || !x.durs) {
		rc = tka_fail(c, TK_ENOMEM, "out of memory");
		goto out;
	}
	/* Every communication kernel with the args that identify its collective. */
	for (size_t i = 0; i < tl->ndev; i++) {
		const struct tka_device *d = &tl->dev[i];
		for (size_t k = 0; k < d->nops; k++) {
			if (d->ops[k].cls != TKA_COMM)
				continue;
			if (TKU_GROW(x.m, cap, nm + 1, 256) != TK_OK) {
				rc = tka_fail(c, TK_ENOMEM, "out of memory");
				goto out;
			}
			struct member *p = &x.m[nm++];
			memset(p, 0, sizeof(*p));
			p->start = d->ops[k].ts;
			p->end = d->ops[k].end;
			p->seq = p->nelems = TK_NONE;
			p->name_id = d->ops[k].name_id;
			p->dev = (uint32_t)i;
			p->op = k;
			if (any_key &&
			    (rc = read_args(c, argq, &keys, &str, p, d->ops[k].id)) != TK_OK)
				goto out;
			p->cls = !(p->pg && p->seq != TK_NONE);
		}
	}
	if (nm > 1)
		qsort(x.m, nm, sizeof(*x.m), cmp_member);
	match_all(&x, nm);
	if ((rc = align(c, tl, &x, nm)) != TK_OK)
		goto out;
	rc = write_all(c, tl, x.m, nm);
out:
	sqlite3_finalize(argq);
	strs_free(&str);
	free(x.m);
	free(x.grp);
	free(x.head);
	free(x.stop);
	free(x.durs);
	return rc;
}

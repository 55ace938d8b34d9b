/*
 * Device time per step and per name (docs/metrics.md, "Device time per step"): for every step of
 * every device, the device operations that start inside the step grouped by name (level kernel:
 * kernels, copies, sets, XLA ops on devices that run no kernels) and by the HLO op they carry
 * (level hlo_op, op_details.hlo_op_id), with their calls and summed durations. This is what the
 * regression gate compares step by step (`tracekit baseline`, `tracekit check`: a kernel's time
 * per step, its calls per step).
 */
#include "checked.h"
#include "intervals.h"

#include <stdlib.h>
#include <string.h>
#include <tracekit/store.h>

/* One operation of a step: the name (or HLO op) string id and its duration. */
struct named {
	int64_t name_id, dur;
};

/* (events.id, op_details.hlo_op_id) of every event that carries an HLO op, by events.id. */
struct hlo_map {
	int64_t (*v)[2];
	size_t n;
};

static int cmp_named(const void *a, const void *b)
{
	const struct named *x = a, *y = b;
	return x->name_id < y->name_id ? -1 : x->name_id > y->name_id;
}

static int load_hlo(struct tka_ctx *c, struct hlo_map *m)
{
	sqlite3_stmt *st = NULL;
	size_t cap = 0;
	int rc = tka_prepare(c,
			     "SELECT event_id, hlo_op_id FROM op_details WHERE hlo_op_id IS NOT "
			     "NULL AND event_id BETWEEN ?1 AND ?2 ORDER BY event_id",
			     &st);
	if (rc == TK_OK) { /* of the events of the part analysed */
		sqlite3_bind_int64(st, 1, tka_ev_lo(c));
		sqlite3_bind_int64(st, 2, tka_ev_hi(c));
	}
	while (rc == TK_OK) {
		int s = sqlite3_step(st);
		if (s == SQLITE_DONE)
			break;
		if (s != SQLITE_ROW) {
			rc = tka_fail(c, tka_sql_status(c), "reading op_details: %s",
				      sqlite3_errmsg(c->db));
			break;
		}
		if (TKU_GROW(m->v, cap, m->n + 1, 1024) != TK_OK) {
			rc = tka_fail(c, TK_ENOMEM, "out of memory");
			break;
		}
		m->v[m->n][0] = sqlite3_column_int64(st, 0);
		m->v[m->n][1] = sqlite3_column_int64(st, 1);
		m->n++;
	}
	sqlite3_finalize(st);
	return rc;
}

/* The HLO op string id of event @id, or 0 when it carries none. */
static int64_t hlo_of(const struct hlo_map *m, int64_t id)
{
	size_t lo = 0, hi = m->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (m->v[mid][0] < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < m->n && m->v[lo][0] == id ? m->v[lo][1] : 0;
}

/* Index of the first op of @d that starts at or after @ts. */
static size_t first_op(const struct tka_device *d, int64_t ts)
{
	size_t lo = 0, hi = d->nops;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (d->ops[mid].ts < ts)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Group @v (n entries) by name and insert one row per name for step @k of @d at @level. */
static int write_groups(struct tka_ctx *c, sqlite3_stmt *ins, const struct tka_device *d, size_t k,
			const char *level, struct named *v, size_t n)
{
	if (!n) /* a step without device work: no rows (and v may be NULL) */
		return TK_OK;
	qsort(v, n, sizeof(*v), cmp_named);
	const struct tka_step *s = &d->steps[k];
	for (size_t i = 0; i < n;) {
		size_t j = i;
		int64_t total = 0;
		for (; j < n && v[j].name_id == v[i].name_id; j++)
			if (tk_add_ovf(total, v[j].dur, &total))
				return tka_fail(c, TK_EFORMAT,
						"device %lld, step %zu: the durations of one name "
						"add up beyond 2^63 ns",
						(long long)d->device_id, k);
		sqlite3_reset(ins);
		sqlite3_bind_int64(ins, 1, d->device_id);
		sqlite3_bind_int64(ins, 2, (int64_t)k);
		if (s->step_num == TK_NONE)
			sqlite3_bind_null(ins, 3);
		else
			sqlite3_bind_int64(ins, 3, s->step_num);
		sqlite3_bind_text(ins, 4, level, -1, SQLITE_STATIC);
		sqlite3_bind_int64(ins, 5, v[i].name_id);
		sqlite3_bind_int64(ins, 6, (int64_t)(j - i));
		sqlite3_bind_int64(ins, 7, total);
		if (sqlite3_step(ins) != SQLITE_DONE)
			return tka_fail(c, tka_sql_status(c), "writing analysis_step_ops: %s",
					sqlite3_errmsg(c->db));
		i = j;
	}
	return TK_OK;
}

static int one_device(struct tka_ctx *c, sqlite3_stmt *ins, const struct tka_device *d,
		      const struct hlo_map *hlo, struct named **buf, size_t *cap)
{
	int rc = TK_OK;
	for (size_t k = 0; k < d->nsteps && rc == TK_OK; k++) {
		const struct tka_step *s = &d->steps[k];
		size_t from = first_op(d, s->ts), to = from;
		while (to < d->nops && d->ops[to].ts < s->end)
			to++;
		size_t n = to - from;
		if (TKU_GROW(*buf, *cap, n, 64) != TK_OK)
			return tka_fail(c, TK_ENOMEM, "out of memory");
		struct named *v = *buf;
		for (size_t i = 0; i < n; i++) {
			const struct tka_op *op = &d->ops[from + i];
			v[i].name_id = op->name_id;
			v[i].dur = op->end - op->ts;
		}
		rc = write_groups(c, ins, d, k, "kernel", v, n);
		if (rc != TK_OK || !hlo->n)
			continue;
		size_t m = 0;
		for (size_t i = 0; i < n; i++) {
			const struct tka_op *op = &d->ops[from + i];
			int64_t h = hlo_of(hlo, op->id);
			if (h) {
				v[m].name_id = h;
				v[m++].dur = op->end - op->ts;
			}
		}
		rc = write_groups(c, ins, d, k, "hlo_op", v, m);
	}
	return rc;
}

TKA_WRITES(TK_NCOLS_ANALYSIS_STEP_OPS, 7, "analysis_step_ops");

int tka_step_ops(struct tka_ctx *c)
{
	const struct tka_timeline *tl;
	sqlite3_stmt *ins = NULL;
	struct hlo_map hlo = {NULL, 0};
	struct named *buf = NULL;
	size_t cap = 0;
	int rc;
	if ((rc = tka_timeline_get(c, &tl)) != TK_OK || (rc = load_hlo(c, &hlo)) != TK_OK ||
	    (rc = tka_prepare(c,
			      "INSERT INTO analysis_step_ops (" TK_COLS_ANALYSIS_STEP_OPS
			      ") VALUES (?1, ?2, ?3, ?4, coalesce((SELECT "
			      "str FROM strings WHERE id = ?5), ''), ?6, ?7)",
			      &ins)) != TK_OK)
		goto out;
	for (size_t i = 0; i < tl->ndev && rc == TK_OK; i++)
		rc = one_device(c, ins, &tl->dev[i], &hlo, &buf, &cap);
out:
	sqlite3_finalize(ins);
	free(hlo.v);
	free(buf);
	return rc;
}

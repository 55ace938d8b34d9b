/*
 * Device time by category (docs/metrics.md, "Device time by category"): every device operation
 * of the shared timeline put in its category by the rules of category_rules.c (its kind, name,
 * and the HLO op and XLA category op_details gives it), then per device the operations and
 * their summed durations per category over the selected window and over each step
 * (analysis_categories). The rules run once per distinct string (name, HLO op, XLA category:
 * a byte per string id remembers the answer); each scope is one forward scan of the device's
 * operations, which the timeline keeps in start order.
 */
#include "checked.h"
#include "intervals.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tracekit/store.h>

/* What the analysis holds while it runs. */
struct cstate {
	int64_t (*det)[3]; /* op_details (event_id, op_category_id, hlo_op_id) by event_id */
	size_t ndet;
	/* per string id: low 4 bits the name rule's category + 1 (tka_device_name_rule), high 4
	 * bits the XLA category rule's; 0 not looked up yet, NO_RULE no rule matches */
	uint8_t *memo;
	int64_t slots;	   /* string ids that may index memo: tk_id_slots() of the strings table */
	sqlite3_stmt *str; /* SELECT str FROM strings WHERE id = ? */
	sqlite3_stmt *ins;
	uint8_t *cats; /* the category of each op of the current device */
	size_t catcap;
};

#define NO_RULE 15

/* op_details rows of the store that carry an XLA category or an HLO op, by event_id (counted
 * first: one allocation). */
static int load_details(struct tka_ctx *c, struct cstate *s)
{
	char where[192], sql[320]; /* of the events of the part analysed */
	snprintf(where, sizeof(where),
		 "FROM op_details WHERE (op_category_id IS NOT NULL OR hlo_op_id IS NOT NULL) AND "
		 "event_id BETWEEN %lld AND %lld",
		 (long long)tka_ev_lo(c), (long long)tka_ev_hi(c));
	sqlite3_stmt *st = NULL;
	int64_t n = 0;
	snprintf(sql, sizeof(sql), "SELECT count(*) %s", where);
	int rc = tka_prepare(c, sql, &st), step = SQLITE_DONE;
	if (rc == TK_OK && sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	st = NULL;
	if (rc != TK_OK || n <= 0)
		return rc;
	if (!(s->det = malloc((size_t)n * sizeof(*s->det))))
		return tka_fail(c, TK_ENOMEM, "out of memory");
	snprintf(sql, sizeof(sql),
		 "SELECT event_id, coalesce(op_category_id, 0), coalesce(hlo_op_id, 0) %s "
		 "ORDER BY event_id",
		 where);
	rc = tka_prepare(c, sql, &st);
	while (rc == TK_OK && s->ndet < (size_t)n && (step = sqlite3_step(st)) == SQLITE_ROW) {
		for (int i = 0; i < 3; i++)
			s->det[s->ndet][i] = sqlite3_column_int64(st, i);
		s->ndet++;
	}
	if (rc == TK_OK && step != SQLITE_DONE && step != SQLITE_ROW)
		rc =
		    tka_fail(c, tka_sql_status(c), "reading op_details: %s", sqlite3_errmsg(c->db));
	sqlite3_finalize(st);
	return rc;
}

static int cmp_event(const void *key, const void *row)
{
	int64_t a = *(const int64_t *)key, b = ((const int64_t *)row)[0];
	return a < b ? -1 : a > b;
}

/* The string ids bounded as the store's rules have them, and the memo over them. */
static int memo_open(struct tka_ctx *c, struct cstate *s)
{
	sqlite3_stmt *st = NULL;
	int rc = tka_prepare(c, "SELECT count(*), coalesce(max(id), 0) FROM strings", &st);
	if (rc != TK_OK)
		return rc;
	s->slots = sqlite3_step(st) == SQLITE_ROW
		       ? tk_id_slots(sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1))
		       : 1;
	sqlite3_finalize(st);
	if (!(s->memo = calloc((size_t)s->slots, 1)))
		return tka_fail(c, TK_ENOMEM, "out of memory");
	return tka_prepare(c, "SELECT str FROM strings WHERE id = ?", &s->str);
}

/* The category the rule @xla (0: name rule, 1: XLA category rule) gives string @id; -1 none. */
static int rule_of(struct cstate *s, int64_t id, int xla)
{
	if (!tk_id_ok(id, s->slots) || !id)
		return -1;
	uint8_t *m = &s->memo[id];
	int v = xla ? *m >> 4 : *m & 15;
	if (!v) {
		const char *t = NULL;
		sqlite3_reset(s->str);
		sqlite3_bind_int64(s->str, 1, id);
		if (sqlite3_step(s->str) == SQLITE_ROW)
			t = (const char *)sqlite3_column_text(s->str, 0);
		int cat = xla ? tka_xla_category_rule(t) : tka_device_name_rule(t);
		v = cat < 0 ? NO_RULE : cat + 1;
		*m = (uint8_t)(xla ? (*m & 15) | (v << 4) : (*m & 0xF0) | v);
	}
	return v == NO_RULE ? -1 : v - 1;
}

/* The category of device op @op: tka_device_op_category() with each step cached by string. */
static int category_of(struct cstate *s, const struct tka_op *op)
{
	if (op->kind == TK_EV_MEMCPY || op->kind == TK_EV_MEMSET)
		return tka_device_op_category(op->kind, NULL, NULL, NULL);
	const int64_t *det =
	    s->ndet ? bsearch(&op->id, s->det, s->ndet, sizeof(*s->det), cmp_event) : NULL;
	int cat = rule_of(s, op->name_id, 0);
	if (cat < 0 && det)
		cat = rule_of(s, det[2], 0);
	if (cat < 0 && det)
		cat = rule_of(s, det[1], 1);
	return cat >= 0 ? cat : TKA_CAT_OTHER;
}

/* Per-category sums of one scope. */
struct sums {
	int64_t ops[TKA_NCAT], ns[TKA_NCAT];
};

/* Add the ops of @d starting in [start, end) to @m; *@from: an op index at or before the first
 * of them (scopes come in order of start, so the caller's cursor only moves forward). */
static int add_range(struct tka_ctx *c, const struct cstate *s, const struct tka_device *d,
		     int64_t start, int64_t end, size_t *from, struct sums *m)
{
	while (*from < d->nops && d->ops[*from].ts < start)
		(*from)++;
	for (size_t i = *from; i < d->nops && d->ops[i].ts < end; i++) {
		int k = s->cats[i];
		m->ops[k]++;
		if (tk_add_ovf(m->ns[k], d->ops[i].end - d->ops[i].ts, &m->ns[k]))
			return tka_fail(c, TK_EFORMAT,
					"device %lld: the durations of one category add up beyond "
					"2^63 ns",
					(long long)d->device_id);
	}
	return TK_OK;
}

/* One row per category with operations in the scope. */
static int write_scope(struct tka_ctx *c, struct cstate *s, const struct tka_device *d,
		       const struct tka_step *step, size_t k, const struct sums *m)
{
	int64_t total = 0;
	for (int i = 0; i < TKA_NCAT; i++)
		if (tk_add_ovf(total, m->ns[i], &total))
			return tka_fail(c, TK_EFORMAT, "device %lld: device time beyond 2^63 ns",
					(long long)d->device_id);
	for (int i = 0; i < TKA_NCAT; i++) {
		if (!m->ops[i])
			continue;
		sqlite3_stmt *ins = s->ins;
		sqlite3_reset(ins);
		sqlite3_bind_int64(ins, 1, d->device_id);
		sqlite3_bind_text(ins, 2, step ? "step" : "window", -1, SQLITE_STATIC);
		if (step) {
			sqlite3_bind_null(ins, 3);
			sqlite3_bind_int64(ins, 4, (int64_t)k);
			if (step->step_num == TK_NONE)
				sqlite3_bind_null(ins, 5);
			else
				sqlite3_bind_int64(ins, 5, step->step_num);
		} else {
			sqlite3_bind_text(ins, 3, tka_window_name(d), -1, SQLITE_STATIC);
			sqlite3_bind_null(ins, 4);
			sqlite3_bind_null(ins, 5);
		}
		sqlite3_bind_text(ins, 6, tka_category_name(i), -1, SQLITE_STATIC);
		sqlite3_bind_int64(ins, 7, m->ops[i]);
		sqlite3_bind_int64(ins, 8, m->ns[i]);
		if (total > 0)
			sqlite3_bind_double(ins, 9, (double)m->ns[i] / (double)total);
		else
			sqlite3_bind_null(ins, 9);
		if (sqlite3_step(ins) != SQLITE_DONE)
			return tka_fail(c, tka_sql_status(c), "writing analysis_categories: %s",
					sqlite3_errmsg(c->db));
	}
	return TK_OK;
}

static int one_device(struct tka_ctx *c, struct cstate *s, const struct tka_device *d)
{
	int rc = TK_OK;
	if (TKU_GROW(s->cats, s->catcap, d->nops, 256) != TK_OK)
		return tka_fail(c, TK_ENOMEM, "out of memory");
	for (size_t i = 0; i < d->nops; i++)
		s->cats[i] = (uint8_t)category_of(s, &d->ops[i]);
	struct sums m;
	size_t from = 0;
	memset(&m, 0, sizeof(m));
	for (size_t i = 0; i < d->window->n && rc == TK_OK; i++)
		rc = add_range(c, s, d, d->window->v[i].start, d->window->v[i].end, &from, &m);
	if (rc == TK_OK)
		rc = write_scope(c, s, d, NULL, 0, &m);
	from = 0;
	for (size_t k = 0; k < d->nsteps && rc == TK_OK; k++) { /* steps sorted by start */
		memset(&m, 0, sizeof(m));
		rc = add_range(c, s, d, d->steps[k].ts, d->steps[k].end, &from, &m);
		if (rc == TK_OK)
			rc = write_scope(c, s, d, &d->steps[k], k, &m);
	}
	return rc;
}

TKA_WRITES(TK_NCOLS_ANALYSIS_CATEGORIES, 9, "analysis_categories");

int tka_categories(struct tka_ctx *c)
{
	const struct tka_timeline *tl;
	struct cstate s;
	int rc;
	memset(&s, 0, sizeof(s));
	if ((rc = tka_timeline_get(c, &tl)) != TK_OK || (rc = load_details(c, &s)) != TK_OK ||
	    (rc = memo_open(c, &s)) != TK_OK ||
	    (rc = tka_prepare(c,
			      "INSERT INTO analysis_categories (" TK_COLS_ANALYSIS_CATEGORIES
			      ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
			      &s.ins)) != TK_OK)
		goto out;
	for (size_t i = 0; i < tl->ndev && rc == TK_OK; i++)
		rc = one_device(c, &s, &tl->dev[i]);
out:
	sqlite3_finalize(s.str);
	sqlite3_finalize(s.ins);
	free(s.det);
	free(s.memo);
	free(s.cats);
	return rc;
}

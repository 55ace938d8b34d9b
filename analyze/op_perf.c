/*
 * Op performance model (docs/metrics.md, "Op performance model"): the FLOPs and bytes of every
 * modelled PyTorch op call (perf_model.c, from its record_shapes args) against the device time
 * of everything it launched (its whole subtree, from analysis_op_gpu_time's per-call figures),
 * grouped per process by op name, shapes, dtypes and concrete inputs; and per device the XLA ops
 * with the cost stats of the trace (op_details.flops, bytes_accessed). A modelled op inside
 * another one that is counted adds nothing (the outermost counts). Per process and device the
 * share of launched device time that is modelled, and the unmodelled ops by device time.
 */
#include "checked.h"
#include "intern.h"
#include "perf_model.h"

#include <stdlib.h>
#include <string.h>
#include <tracekit/store.h>

#include "analyze_internal.h"

/* A group of modelled calls (one row of analysis_op_perf). */
struct grp {
	int64_t process, name_id;
	char *dims, *types, *conc; /* as stored, NULL when absent */
	int launched;
	const char *model, *dtype, *note;
	int64_t calls, flops, bytes, ops, ns;
};

/* Unmodelled calls of one (process, name, reason). */
struct unm {
	int64_t process, name_id;
	const char *reason;
	int64_t calls, ops, ns;
};

/* Per process: launched and modelled device time, flops and bytes of launching calls. */
struct proc {
	int64_t process, launched_ns, modelled_ns, flops, bytes;
};

/* An op name: its text (the names cache's) and whether it has a formula. */
struct nm {
	const char *name;
	int has;
};

/* A table keyed by bytes: tks_intern ids index @v (elements of @size bytes). */
struct table {
	struct tks_intern keys;
	void *v;
	size_t n, cap, size;
};

/* The element of key @key (@len bytes), zeroed when new (*@added); NULL when out of memory. */
static void *slot(struct table *t, const void *key, size_t len, int *added)
{
	uint32_t id = tks_intern_lookup(&t->keys, key, len, added);
	if (!id)
		return NULL;
	if (*added) {
		if (tku_grow(&t->v, &t->cap, t->n + 1, t->size, 64) != TK_OK)
			return NULL;
		memset((char *)t->v + t->n * t->size, 0, t->size);
		t->n++;
	}
	return (char *)t->v + (size_t)(id - 1) * t->size;
}

struct state {
	struct table g, u, p, names; /* groups, unmodelled, processes, names' formula flags */
	struct tka_names text;	     /* the names' texts */
	char *key;
	size_t keycap;
};

static char *dup_text(const unsigned char *s)
{
	if (!s)
		return NULL;
	size_t n = strlen((const char *)s) + 1;
	char *d = malloc(n);
	if (d)
		memcpy(d, s, n);
	return d;
}

/* The name @id in *@out: its text and formula flag (each looked up once). */
static int name_of(struct tka_ctx *c, struct state *s, int64_t id, const struct nm **out)
{
	int added, rc = TK_OK;
	struct nm *n = slot(&s->names, &id, sizeof(id), &added);
	*out = n;
	if (!n)
		return tka_fail(c, TK_ENOMEM, "out of memory");
	if (added && (rc = tka_name(c, &s->text, id, &n->name)) == TK_OK)
		n->has = n->name && tka_pm_has_model(n->name);
	return rc;
}

/* A growable key buffer holding @parts (NULL parts marked apart from empty ones). */
static int make_key(struct state *s, const void *head, size_t hlen, const char *const *parts,
		    int np, size_t *len)
{
	size_t need = hlen;
	for (int i = 0; i < np; i++)
		need += 2 + (parts[i] ? strlen(parts[i]) : 0);
	if (TKU_GROW(s->key, s->keycap, need, 64) != TK_OK)
		return -1;
	memcpy(s->key, head, hlen);
	size_t at = hlen;
	for (int i = 0; i < np; i++) {
		s->key[at++] = parts[i] ? 1 : 0;
		size_t l = parts[i] ? strlen(parts[i]) : 0;
		memcpy(s->key + at, parts[i] ? parts[i] : "", l);
		at += l;
		s->key[at++] = 0;
	}
	*len = at;
	return 0;
}

/* Count one call: a modelled one into its group, else into the unmodelled list. */
static int count_call(struct state *s, int64_t process, int64_t name_id, const char *const *args,
		      const struct tka_pm *r, const struct tka_og_inst *in, int inside,
		      int *counted)
{
	int64_t h[2] = {process, name_id}, dops = in ? in->direct_ops : 0,
		dns = in ? in->direct_ns : 0, sops = in ? in->subtree_ops : 0,
		sns = in ? in->subtree_ns : 0;
	size_t len;
	int added;
	struct proc *p = slot(&s->p, &process, sizeof(process), &added);
	if (!p)
		return -1;
	p->process = process;
	*counted = 0;
	if (inside) /* its device time is in the counted op's subtree */
		return 0;
	if (r->status == TKA_PM_OK) {
		struct grp *g;
		int launched = sops > 0;
		const char *parts[4] = {args[0], args[1], args[3], launched ? "1" : "0"};
		int64_t f, b, mn;
		if (make_key(s, h, sizeof(h), parts, 4, &len) ||
		    !(g = slot(&s->g, s->key, len, &added)))
			return -1;
		if (added) {
			g->process = process, g->name_id = name_id, g->launched = launched;
			g->model = r->model, g->dtype = r->dtype, g->note = r->note;
			if ((args[0] && !(g->dims = dup_text((const unsigned char *)args[0]))) ||
			    (args[1] && !(g->types = dup_text((const unsigned char *)args[1]))) ||
			    (args[3] && !(g->conc = dup_text((const unsigned char *)args[3]))))
				return -1;
		}
		if (!tk_add_ovf(g->flops, r->flops, &f) && !tk_add_ovf(g->bytes, r->bytes, &b) &&
		    !tk_add_ovf(p->modelled_ns, sns, &mn)) {
			g->calls++, g->flops = f, g->bytes = b, g->ops += sops, g->ns += sns;
			p->modelled_ns = mn;
			p->launched_ns += sns;
			if (launched && !tk_add_ovf(p->flops, r->flops, &f) &&
			    !tk_add_ovf(p->bytes, r->bytes, &b))
				p->flops = f, p->bytes = b;
			*counted = 1;
			return 0;
		}
	}
	const char *reason = r->status == TKA_PM_OK ? "sizes out of range" : r->reason;
	const char *parts[1] = {reason};
	struct unm *u;
	if (make_key(s, h, sizeof(h), parts, 1, &len) || !(u = slot(&s->u, s->key, len, &added)))
		return -1;
	u->process = process, u->name_id = name_id, u->reason = reason;
	u->calls++, u->ops += dops, u->ns += dns;
	p->launched_ns += dns;
	return 0;
}

/* One open host op on the thread being read: its end and whether a counted op encloses it or
 * is it. */
struct open {
	int64_t end;
	int claimed;
};

static const char *text_col(sqlite3_stmt *st, int i)
{
	return sqlite3_column_type(st, i) == SQLITE_TEXT ? (const char *)sqlite3_column_text(st, i)
							 : NULL;
}

/* The shape args of host op @id: for each of the four keys @key (those @has: in the store) the first
 * value by rowid, copied when it is text, else NULL (@val, freed by the caller). Read only for
 * the ops a model may cover, so a trace of many unmodelled ops does not pay four lookups each. */
static int read_shape_args(struct tka_ctx *c, sqlite3_stmt *aq, int64_t id, const int64_t *key,
			   const int *has, char **val)
{
	int seen[4] = {0}, step, rc = TK_OK;
	if (!has[0] && !has[1] && !has[2] && !has[3])
		return TK_OK; /* no op of the store has shapes (record_shapes off) */
	sqlite3_reset(aq);
	sqlite3_bind_int64(aq, 1, id);
	while (rc == TK_OK && (step = sqlite3_step(aq)) == SQLITE_ROW) {
		int64_t k = sqlite3_column_int64(aq, 0);
		for (int i = 0; i < 4; i++) {
			if (seen[i] || !has[i] || k != key[i])
				continue;
			seen[i] = 1;
			const char *t = text_col(aq, 1);
			if (t && !(val[i] = strdup(t)))
				rc = tka_fail(c, TK_ENOMEM, "out of memory");
		}
	}
	if (rc == TK_OK && step != SQLITE_DONE)
		rc = tka_fail(c, tka_sql_status(c), "reading the args of host op %lld: %s",
			      (long long)id, sqlite3_errmsg(c->db));
	return rc;
}

/* The host ops of every thread in time order (enclosing first), with their shape args: the ones
 * the pass collected for GPU time per op, already in that order (tka_host_ops()); reading them
 * from the store again cost a scan of every event and a sort (df_index_resolver: 0.04 of its
 * 0.25 s of analysis). */
static int read_host_ops(struct tka_ctx *c, struct state *s)
{
	static const char *const keys[4] = {"Input Dims", "Input type", "Input Strides",
					    "Concrete Inputs"};
	sqlite3_stmt *kq = NULL, *aq = NULL;
	const struct tka_host_op *h = NULL;
	struct open *stack = NULL;
	size_t top = 0, cap = 0, nh = 0;
	int64_t track = TK_NONE, key[4] = {0};
	int has[4] = {0};
	int rc = tka_host_ops(c, &h, &nh);
	if (rc == TK_OK)
		rc = tka_prepare(
		    c, "SELECT key_id, value FROM args WHERE event_id = ?1 ORDER BY rowid", &aq);
	if (rc == TK_OK)
		rc = tka_prepare(c, "SELECT id FROM strings WHERE str = ?", &kq);
	for (int i = 0; rc == TK_OK && i < 4; i++) { /* a key the store lacks matches nothing */
		sqlite3_reset(kq);
		sqlite3_bind_text(kq, 1, keys[i], -1, SQLITE_STATIC);
		if ((has[i] = sqlite3_step(kq) == SQLITE_ROW))
			key[i] = sqlite3_column_int64(kq, 0);
	}
	for (size_t k = 0; rc == TK_OK && k < nh; k++) {
		const struct tka_host_op *x = &h[k];
		int64_t id = x->id, ts = x->ts, name_id = x->name_id;
		int64_t proc = c->pass->tracks[x->track].process_id; /* a tracks row: the pass's */
		if (x->track != track)
			track = x->track, top = 0;
		while (top && stack[top - 1].end <= ts)
			top--;
		int inside = top && stack[top - 1].claimed, counted = 0;
		struct tka_pm r = {.status = TKA_PM_NONE, .reason = "no model for this op"};
		char *args[4] = {NULL, NULL, NULL, NULL};
		if (!inside) {
			const struct nm *n = NULL;
			if ((rc = name_of(c, s, name_id, &n)) == TK_OK && n->has &&
			    (rc = read_shape_args(c, aq, id, key, has, args)) == TK_OK)
				tka_perf_model(n->name, args[0], args[1], args[2], args[3], &r);
		}
		if (rc == TK_OK && count_call(s, proc, name_id, (const char *const *)args, &r,
					      tka_op_gpu_instance(c, id), inside, &counted))
			rc = tka_fail(c, TK_ENOMEM, "out of memory");
		for (int i = 0; i < 4; i++)
			free(args[i]);
		if (rc != TK_OK)
			break;
		if (TKU_GROW(stack, cap, top + 1, 64) != TK_OK) {
			rc = tka_fail(c, TK_ENOMEM, "out of memory");
			break;
		}
		stack[top++] = (struct open){x->end, inside || counted};
	}
	sqlite3_finalize(aq);
	sqlite3_finalize(kq);
	free(stack);
	return rc;
}

static void bind_id(sqlite3_stmt *st, int i, int64_t v)
{
	if (v == TK_NONE)
		sqlite3_bind_null(st, i);
	else
		sqlite3_bind_int64(st, i, v);
}

static void bind_rate(sqlite3_stmt *st, int i, int64_t num, int64_t den, double scale)
{
	if (den > 0)
		sqlite3_bind_double(st, i, (double)num / (double)den * scale);
	else
		sqlite3_bind_null(st, i);
}

static int step_done(struct tka_ctx *c, sqlite3_stmt *st)
{
	if (sqlite3_step(st) != SQLITE_DONE)
		return tka_fail(c, tka_sql_status(c), "writing the op performance model: %s",
				sqlite3_errmsg(c->db));
	sqlite3_reset(st);
	return TK_OK;
}

#define NAME_SQL "coalesce((SELECT str FROM strings WHERE id = ?4), '')"

TKA_WRITES(TK_NCOLS_ANALYSIS_OP_PERF, 22, "analysis_op_perf");
TKA_WRITES(TK_NCOLS_ANALYSIS_OP_PERF_UNMODELLED, 8, "analysis_op_perf_unmodelled");
TKA_WRITES(TK_NCOLS_ANALYSIS_OP_PERF_SUMMARY, 10, "analysis_op_perf_summary");

static int write_host(struct tka_ctx *c, struct state *s)
{
	sqlite3_stmt *g = NULL, *u = NULL, *p = NULL;
	int rc = tka_prepare(c,
			     "INSERT INTO analysis_op_perf (" TK_COLS_ANALYSIS_OP_PERF
			     ") VALUES ('host_op', ?1, NULL, " NAME_SQL
			     ", NULL, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, "
			     "?18, ?19, ?20, ?21)",
			     &g);
	if (rc == TK_OK)
		rc = tka_prepare(
		    c,
		    "INSERT INTO analysis_op_perf_unmodelled (" TK_COLS_ANALYSIS_OP_PERF_UNMODELLED
		    ") VALUES ('host_op', ?1, "
		    "NULL, " NAME_SQL ", ?5, ?6, ?7, ?8)",
		    &u);
	if (rc == TK_OK)
		rc = tka_prepare(
		    c,
		    "INSERT INTO analysis_op_perf_summary (" TK_COLS_ANALYSIS_OP_PERF_SUMMARY
		    ") VALUES ('host_op', ?1, NULL, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
		    &p);
	for (size_t i = 0; rc == TK_OK && i < s->g.n; i++) {
		const struct grp *x = (const struct grp *)s->g.v + i;
		bind_id(g, 1, x->process);
		sqlite3_bind_int64(g, 4, x->name_id);
		sqlite3_bind_text(g, 5, x->dims, -1, SQLITE_STATIC);
		sqlite3_bind_text(g, 6, x->types, -1, SQLITE_STATIC);
		sqlite3_bind_text(g, 7, x->conc, -1, SQLITE_STATIC);
		sqlite3_bind_int(g, 8, x->launched);
		sqlite3_bind_text(g, 9, x->model, -1, SQLITE_STATIC);
		sqlite3_bind_text(g, 10, x->dtype, -1, SQLITE_STATIC);
		sqlite3_bind_int64(g, 11, x->calls);
		sqlite3_bind_int64(g, 12, x->flops);
		sqlite3_bind_int64(g, 13, x->bytes);
		sqlite3_bind_double(g, 14, (double)x->flops / (double)x->calls);
		sqlite3_bind_double(g, 15, (double)x->bytes / (double)x->calls);
		sqlite3_bind_int64(g, 16, x->ops);
		sqlite3_bind_int64(g, 17, x->ns);
		bind_rate(g, 18, x->flops, x->ns, 1e9);
		bind_rate(g, 19, x->bytes, x->ns, 1e9);
		bind_rate(g, 20, x->flops, x->bytes, 1);
		sqlite3_bind_text(g, 21, x->note, -1, SQLITE_STATIC);
		rc = step_done(c, g);
	}
	for (size_t i = 0; rc == TK_OK && i < s->u.n; i++) {
		const struct unm *x = (const struct unm *)s->u.v + i;
		bind_id(u, 1, x->process);
		sqlite3_bind_int64(u, 4, x->name_id);
		sqlite3_bind_text(u, 5, x->reason, -1, SQLITE_STATIC);
		sqlite3_bind_int64(u, 6, x->calls);
		sqlite3_bind_int64(u, 7, x->ops);
		sqlite3_bind_int64(u, 8, x->ns);
		rc = step_done(c, u);
	}
	for (size_t i = 0; rc == TK_OK && i < s->p.n; i++) {
		const struct proc *x = (const struct proc *)s->p.v + i;
		bind_id(p, 1, x->process);
		sqlite3_bind_int64(p, 2, x->launched_ns);
		sqlite3_bind_int64(p, 3, x->modelled_ns);
		bind_rate(p, 4, x->modelled_ns, x->launched_ns, 1);
		sqlite3_bind_int64(p, 5, x->flops);
		sqlite3_bind_int64(p, 6, x->bytes);
		bind_rate(p, 7, x->flops, x->modelled_ns, 1e9);
		bind_rate(p, 8, x->bytes, x->modelled_ns, 1e9);
		rc = step_done(c, p);
	}
	sqlite3_finalize(g);
	sqlite3_finalize(u);
	sqlite3_finalize(p);
	return rc;
}

/*
 * XLA: the device operations that carry an HLO op (kernels, copies, sets; XLA ops on devices
 * that run none of those), by device, module and HLO op, with the cost stats of the trace. A
 * group is modelled when every one of its operations has both flops and bytes_accessed.
 */
static const char *const hlo_sql =
    "CREATE TEMP TABLE _pf_kdev AS SELECT DISTINCT t.device_id AS device_id FROM events e "
    "  JOIN tracks t ON t.id = e.track_id WHERE e.kind IN (" TK_SQL_EV_DEVICE_OPS ") AND "
    "  t.device_id IS NOT NULL AND e.id BETWEEN " TKA_SQL_EV_LO " AND " TKA_SQL_EV_HI ";"
    "CREATE TEMP TABLE _pf_hlo AS SELECT t.device_id AS device_id, o.hlo_module_id AS mid, "
    "  o.hlo_op_id AS hid, count(*) AS n, sum(o.flops) AS f, sum(o.bytes_accessed) AS b, "
    "  count(o.flops) AS nf, count(o.bytes_accessed) AS nb, sum(e.dur_ns) AS ns "
    "FROM op_details o JOIN events e ON e.id = o.event_id JOIN tracks t ON t.id = e.track_id "
    "WHERE o.hlo_op_id IS NOT NULL AND t.device_id IS NOT NULL AND (e.kind IN "
    "(" TK_SQL_EV_DEVICE_OPS ") OR (e.kind = " TK_SQL_EV_XLA_OP " AND t.device_id NOT IN "
    "(SELECT device_id FROM temp._pf_kdev))) AND o.event_id BETWEEN " TKA_SQL_EV_LO
    " AND " TKA_SQL_EV_HI " "
    "GROUP BY 1, 2, 3;"
    "INSERT INTO analysis_op_perf (" TK_COLS_ANALYSIS_OP_PERF
    ") SELECT 'hlo_op', NULL, g.device_id, h.str, m.str, NULL, NULL, "
    "  NULL, 1, 'xla', NULL, g.n, g.f, g.b, CAST(g.f AS REAL) / g.n, CAST(g.b AS REAL) / g.n, "
    "  g.n, g.ns, CASE WHEN g.ns > 0 THEN g.f * 1e9 / g.ns END, "
    "  CASE WHEN g.ns > 0 THEN g.b * 1e9 / g.ns END, "
    "  CASE WHEN g.b > 0 THEN CAST(g.f AS REAL) / g.b END, NULL "
    "FROM temp._pf_hlo g JOIN strings h ON h.id = g.hid LEFT JOIN strings m ON m.id = g.mid "
    "WHERE g.nf = g.n AND g.nb = g.n ORDER BY g.device_id, g.ns DESC, h.str, m.str;"
    "INSERT INTO analysis_op_perf_unmodelled (" TK_COLS_ANALYSIS_OP_PERF_UNMODELLED
    ") SELECT 'hlo_op', NULL, g.device_id, h.str, "
    "  CASE WHEN g.nf = 0 AND g.nb = 0 THEN 'no cost stats (flops, bytes accessed) in the "
    "trace' ELSE 'cost stats on some of its operations only' END, g.n, g.n, g.ns "
    "FROM temp._pf_hlo g JOIN strings h ON h.id = g.hid "
    "WHERE g.nf < g.n OR g.nb < g.n ORDER BY g.device_id, g.ns DESC, h.str;"
    "INSERT INTO analysis_op_perf_summary (" TK_COLS_ANALYSIS_OP_PERF_SUMMARY
    ") SELECT 'hlo_op', NULL, device_id, sum(ns), "
    "  sum(CASE WHEN nf = n AND nb = n THEN ns ELSE 0 END), "
    "  CASE WHEN sum(ns) > 0 THEN CAST(sum(CASE WHEN nf = n AND nb = n THEN ns ELSE 0 END) AS "
    "REAL) / sum(ns) END, "
    "  sum(CASE WHEN nf = n AND nb = n THEN f ELSE 0 END), "
    "  sum(CASE WHEN nf = n AND nb = n THEN b ELSE 0 END), NULL, NULL "
    "FROM temp._pf_hlo GROUP BY device_id ORDER BY device_id;"
    "UPDATE analysis_op_perf_summary SET flops_per_s = flops * 1e9 / modelled_ns, "
    "  bytes_per_s = bytes * 1e9 / modelled_ns WHERE level = 'hlo_op' AND modelled_ns > 0;"
    "DROP TABLE temp._pf_hlo; DROP TABLE temp._pf_kdev;";

/* *@any: some op_details row names an HLO op (else hlo_sql writes nothing: its scan of every
 * event for the devices with kernels is left out). */
static int any_hlo_op(struct tka_ctx *c, int *any)
{
	sqlite3_stmt *st = NULL;
	int rc = tka_prepare(c,
			     "SELECT 1 FROM op_details WHERE hlo_op_id IS NOT NULL AND event_id "
			     "BETWEEN " TKA_SQL_EV_LO " AND " TKA_SQL_EV_HI " LIMIT 1",
			     &st);
	if (rc == TK_OK) {
		int step = sqlite3_step(st);
		*any = step == SQLITE_ROW;
		if (step != SQLITE_ROW && step != SQLITE_DONE)
			rc = tka_fail(c, tka_sql_status(c), "reading op_details: %s",
				      sqlite3_errmsg(c->db));
	}
	sqlite3_finalize(st);
	return rc;
}

static void free_state(struct state *s)
{
	for (size_t i = 0; i < s->g.n; i++) {
		struct grp *g = (struct grp *)s->g.v + i;
		free(g->dims);
		free(g->types);
		free(g->conc);
	}
	tka_names_free(&s->text);
	struct table *t[4] = {&s->g, &s->u, &s->p, &s->names};
	for (int i = 0; i < 4; i++) {
		free(t[i]->v);
		tks_intern_free(&t[i]->keys);
	}
	free(s->key);
}

int tka_op_perf(struct tka_ctx *c)
{
	struct state s = {.g.size = sizeof(struct grp),
			  .u.size = sizeof(struct unm),
			  .p.size = sizeof(struct proc),
			  .names.size = sizeof(struct nm)};
	int rc, hlo = 0;
	tks_intern_init(&s.g.keys);
	tks_intern_init(&s.u.keys);
	tks_intern_init(&s.p.keys);
	tks_intern_init(&s.names.keys);
	tka_names_init(&s.text);
	rc = read_host_ops(c, &s);
	tka_host_ops_release(c); /* the last reader of the host ops and their instances */
	if (rc == TK_OK)
		rc = write_host(c, &s);
	if (rc == TK_OK && (rc = any_hlo_op(c, &hlo)) == TK_OK && hlo)
		rc = tka_exec(c, "the XLA ops' cost stats", hlo_sql);
	free_state(&s);
	return rc;
}

int tka_op_perf_bandwidth(struct tka_ctx *c, int64_t device_id, int64_t *bytes, int64_t *ns)
{
	sqlite3_stmt *st = NULL;
	int rc = tka_prepare(c,
			     "SELECT level, process_id, device_id, bytes, modelled_ns FROM "
			     "analysis_op_perf_summary",
			     &st);
	int64_t b = 0, t = 0;
	int step = SQLITE_DONE;
	*bytes = *ns = -1;
	while (rc == TK_OK && (step = sqlite3_step(st)) == SQLITE_ROW) {
		const char *level = (const char *)sqlite3_column_text(st, 0);
		int hlo = level && !strcmp(level, "hlo_op");
		int64_t dev =
		    hlo ? tka_col_or_none(st, 2) : tka_process_device(c, tka_col_or_none(st, 1));
		if (dev != device_id || dev == TK_NONE)
			continue;
		if (tk_add_ovf(b, sqlite3_column_int64(st, 3), &b) ||
		    tk_add_ovf(t, sqlite3_column_int64(st, 4), &t))
			rc = tka_fail(c, TK_EFORMAT, "modelled bytes or time beyond 2^63");
	}
	if (rc == TK_OK && step != SQLITE_DONE)
		rc = tka_fail(c, tka_sql_status(c), "reading the op performance summary: %s",
			      sqlite3_errmsg(c->db));
	sqlite3_finalize(st);
	if (rc == TK_OK && t > 0) {
		*bytes = b;
		*ns = t;
	}
	return rc;
}

/*
 * The summary of runs the regression gate compares (docs/baseline.md): built from analysed
 * stores, one store per run, reading only their analysis_* tables. Per-step samples of device
 * and host step time, busy, communication and exposed communication time, device-op time; per
 * run the KPIs and the memory peak; per kernel (device op by name) and per HLO op their calls
 * and device time per step. With several devices, a step's device time is the mean over the
 * devices that have that step (the k-th step of each device), its step time the longest.
 * A store without steps counts as one step per run: its selected window.
 */
#include "check_internal.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <tracekit/analyze.h>
#include <tracekit/error.h>
#include <tracekit/store.h>
#include <tracekit/version.h>

#include "intern.h"
#include "message.h"
#include "util/vec.h"

/* One (item, run, step) figure before the series are assembled. */
struct cell {
	uint32_t item;
	uint32_t run;
	int64_t step;
	int64_t calls, ns;
};

struct level {
	struct tks_intern names; /* name -> item id (from 1) */
	struct cell *cells;
	size_t ncells, capcells;
};

struct run_shape {
	int64_t nsteps; /* steps of the run (1 without steps: its window) */
	double *ndev;	/* [nsteps]: devices that have each step */
	struct tkc_model *models;
	size_t nmodels, models_cap;
};

struct tkc_builder {
	struct tkc_summary s;
	struct level lv[2]; /* kernel, hlo_op */
	struct run_shape *shape;
	size_t nshape;				/* runs added (shape has one entry each) */
	size_t runs_cap, shape_cap, memory_cap; /* of s.runs, shape, s.memory */
	double sample_share;			/* items from this share up are sampled, */
	size_t sample_max;			/* the largest this many of them */
	int some_steps;				/* a run with steps was added */
	const char *path;			/* the store being read, for messages */
	char *err;
	size_t errlen;
};

static int fail(struct tkc_builder *b, int rc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int fail(struct tkc_builder *b, int rc, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	if (b->err && b->errlen)
		vsnprintf(b->err, b->errlen, fmt, ap);
	va_end(ap);
	return rc;
}

static int oom(struct tkc_builder *b)
{
	return fail(b, TK_ENOMEM, "out of memory");
}

/* Grow *@p (of *@cap elements of @size bytes) to hold @need; 0 or -1. */
static int grow(void **p, size_t *cap, size_t need, size_t size)
{
	return tku_grow(p, cap, need, size, 8) == TK_OK ? 0 : -1;
}

static int sql_fail(struct tkc_builder *b, sqlite3 *db, const char *path)
{
	return fail(b, TK_EFORMAT, "store '%s': cannot read its analysis: %s", path,
		    sqlite3_errmsg(db));
}

/* Run @sql on @db and hand each row to @row; TK_OK or a failure with its message. */
static int each_row(struct tkc_builder *b, sqlite3 *db, const char *path, const char *sql,
		    int (*row)(struct tkc_builder *b, sqlite3_stmt *st, void *arg), void *arg)
{
	sqlite3_stmt *st = NULL;
	int rc = TK_OK, s;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return sql_fail(b, db, path);
	while (rc == TK_OK && (s = sqlite3_step(st)) == SQLITE_ROW)
		rc = row(b, st, arg);
	if (rc == TK_OK && s != SQLITE_DONE)
		rc = sql_fail(b, db, path);
	sqlite3_finalize(st);
	return rc;
}

static char *col_text(sqlite3_stmt *st, int i)
{
	const unsigned char *t = sqlite3_column_text(st, i);
	return strdup(t ? (const char *)t : "");
}

/* ---- one run ---- */

struct run_ctx {
	size_t run;
	int64_t ndevices;
	/* per step index (grown as rows come): the aggregates over devices */
	double *step_max, *host_max, *busy, *comm, *xcomm;
	int *has_host;
	size_t nsteps, cap;
};

static int model_row(struct tkc_builder *b, sqlite3_stmt *st, void *arg)
{
	struct run_shape *sh = arg;
	if (TKU_GROW(sh->models, sh->models_cap, sh->nmodels + 1, 4) != TK_OK)
		return oom(b);
	struct tkc_model *m = sh->models;
	m[sh->nmodels].count = sqlite3_column_int64(st, 1);
	if (!(m[sh->nmodels].model = col_text(st, 0)))
		return oom(b);
	sh->nmodels++;
	return TK_OK;
}

static int step_row(struct tkc_builder *b, sqlite3_stmt *st, void *arg)
{
	struct run_ctx *r = arg;
	int64_t k = sqlite3_column_int64(st, 0);
	if (k < 0 || k > 100000000)
		return fail(b, TK_EFORMAT, "analysis_steps: a step index out of range");
	size_t need = (size_t)k + 1;
	if (need > r->cap) {
		size_t nc = tku_grow_cap(r->cap, need, sizeof(double), 64);
		if (!nc)
			return oom(b);
		double **arrs[] = {&r->step_max, &r->host_max, &r->busy, &r->comm, &r->xcomm};
		for (size_t i = 0; i < sizeof(arrs) / sizeof(arrs[0]); i++) {
			double *p = tku_reallocn(*arrs[i], nc, sizeof(double));
			if (!p)
				return oom(b);
			memset(p + r->cap, 0, (nc - r->cap) * sizeof(double));
			*arrs[i] = p;
		}
		int *h = tku_reallocn(r->has_host, nc, sizeof(int));
		if (!h)
			return oom(b);
		memset(h + r->cap, 0, (nc - r->cap) * sizeof(int));
		r->has_host = h;
		double *nd = tku_reallocn(b->shape[r->run].ndev, nc, sizeof(double));
		if (!nd)
			return oom(b);
		memset(nd + r->cap, 0, (nc - r->cap) * sizeof(double));
		b->shape[r->run].ndev = nd;
		r->cap = nc;
	}
	if (need > r->nsteps)
		r->nsteps = need;
	double dur = sqlite3_column_double(st, 1);
	if (dur > r->step_max[k])
		r->step_max[k] = dur;
	if (sqlite3_column_type(st, 2) != SQLITE_NULL) {
		double h = sqlite3_column_double(st, 2);
		if (!r->has_host[k] || h > r->host_max[k])
			r->host_max[k] = h;
		r->has_host[k] = 1;
	}
	r->busy[k] += sqlite3_column_double(st, 3);
	r->comm[k] += sqlite3_column_double(st, 4);
	r->xcomm[k] += sqlite3_column_double(st, 5);
	b->shape[r->run].ndev[k] += 1;
	return TK_OK;
}

static int kpi_row(struct tkc_builder *b, sqlite3_stmt *st, void *arg)
{
	struct run_ctx *r = arg;
	char key[128];
	const unsigned char *kpi = sqlite3_column_text(st, 0), *unit = sqlite3_column_text(st, 1);
	snprintf(key, sizeof(key), "kpi.%s", kpi ? (const char *)kpi : "");
	if (!unit || !tkc_known_unit((const char *)unit))
		return TK_OK; /* a KPI in a unit no gate knows (a damaged store): not compared */
	struct tkc_series *m = tkc_summary_metric(&b->s, key, unit ? (const char *)unit : "", 0);
	if (!m || tkc_series_add(m, r->run, sqlite3_column_double(st, 2)) != TK_OK)
		return oom(b);
	return TK_OK;
}

static int memory_row(struct tkc_builder *b, sqlite3_stmt *st, void *arg)
{
	(void)arg;
	char *dev = col_text(st, 0);
	int64_t peak = sqlite3_column_int64(st, 1);
	if (!dev)
		return oom(b);
	for (size_t i = 0; i < b->s.nmemory; i++)
		if (!strcmp(b->s.memory[i].device, dev)) {
			if (peak > b->s.memory[i].peak_bytes)
				b->s.memory[i].peak_bytes = peak;
			free(dev);
			return TK_OK;
		}
	if (TKU_GROW(b->s.memory, b->memory_cap, b->s.nmemory + 1, 4) != TK_OK) {
		free(dev);
		return oom(b);
	}
	struct tkc_memory *v = b->s.memory;
	v[b->s.nmemory].device = dev;
	v[b->s.nmemory++].peak_bytes = peak;
	return TK_OK;
}

struct item_ctx {
	size_t run;
	int level;
};

static int item_row(struct tkc_builder *b, sqlite3_stmt *st, void *arg)
{
	struct item_ctx *ic = arg;
	struct level *lv = &b->lv[ic->level];
	const char *name = (const char *)sqlite3_column_text(st, 0);
	int added;
	if (!name)
		name = "";
	uint32_t id = tks_intern_lookup(&lv->names, name, strlen(name), &added);
	if (!id || grow((void **)&lv->cells, &lv->capcells, lv->ncells + 1, sizeof(*lv->cells)))
		return oom(b);
	struct cell *c = &lv->cells[lv->ncells++];
	c->item = id - 1;
	c->run = (uint32_t)ic->run;
	c->step = sqlite3_column_int64(st, 1);
	c->calls = sqlite3_column_int64(st, 2);
	c->ns = sqlite3_column_int64(st, 3);
	if (c->step < 0 || c->step >= b->shape[ic->run].nsteps)
		return fail(b, TK_EFORMAT,
			    "store '%s': analysis_step_ops: step index %lld out of range", b->path,
			    (long long)c->step);
	return TK_OK;
}

static int one_value(sqlite3 *db, const char *sql, int64_t *out)
{
	sqlite3_stmt *st = NULL;
	int ok = sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK &&
		 sqlite3_step(st) == SQLITE_ROW;
	if (ok)
		*out = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return ok ? 0 : -1;
}

static int one_text(sqlite3 *db, const char *sql, char *buf, size_t len)
{
	sqlite3_stmt *st = NULL;
	int ok = sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK &&
		 sqlite3_step(st) == SQLITE_ROW;
	if (ok) {
		const unsigned char *t = sqlite3_column_text(st, 0);
		snprintf(buf, len, "%s", t ? (const char *)t : "");
	}
	sqlite3_finalize(st);
	return ok ? 0 : -1;
}

#define DEVICE_MODEL "coalesce((SELECT str FROM strings WHERE id = d.name_id), d.kind)"
#define WORKING_DEVICES "d.id IN (SELECT device_id FROM analysis_device_time)"

/* The step samples of one run into the summary's per-step metrics. */
static int add_steps(struct tkc_builder *b, struct run_ctx *r)
{
	struct tkc_summary *s = &b->s;
	int any_host = 0;
	for (size_t k = 0; k < r->nsteps; k++)
		any_host |= r->has_host[k];
	/* create every series first: creating one moves the others (the array grows) */
	static const char *const keys[] = {"step_time", "busy", "comm", "comm.exposed",
					   "host_step_time"};
	struct tkc_series *m[5] = {NULL};
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < (any_host ? 5u : 4u); i++)
			if (!(m[i] = tkc_summary_metric(s, keys[i], "ns", 1)))
				return oom(b);
	struct tkc_series *mt = m[0], *mb = m[1], *mc = m[2], *mx = m[3], *mh = m[4];
	for (size_t k = 0; k < r->nsteps; k++) {
		double nd = b->shape[r->run].ndev[k];
		if (nd <= 0)
			continue;
		if (tkc_series_add(mt, r->run, r->step_max[k]) ||
		    tkc_series_add(mb, r->run, r->busy[k] / nd) ||
		    tkc_series_add(mc, r->run, r->comm[k] / nd) ||
		    tkc_series_add(mx, r->run, r->xcomm[k] / nd) ||
		    (mh && r->has_host[k] && tkc_series_add(mh, r->run, r->host_max[k])))
			return oom(b);
	}
	return TK_OK;
}

static int add_run(struct tkc_builder *b, sqlite3 *db, const char *path, size_t run)
{
	struct tkc_run *ru = &b->s.runs[run];
	struct run_ctx r = {.run = run};
	struct run_shape *sh = &b->shape[run];
	int64_t nstep_rows = 0, v = 0;
	int rc;
	if (one_value(db, "SELECT value FROM meta WHERE key = 'analysis_version'", &v) || v < 3) {
		rc =
		    fail(b, TK_EVERSION,
			 "store '%s' has no analysis by this tracekit (%s): run 'tracekit analyze' "
			 "on it",
			 path, tk_version());
		goto out;
	}
	if (one_value(db,
		      "SELECT coalesce(sum(ops), 0) FROM analysis_device_time WHERE window = "
		      "'device'",
		      &ru->device_ops) ||
	    one_value(db, "SELECT count(*) FROM analysis_steps", &nstep_rows) ||
	    one_value(db,
		      "SELECT count(DISTINCT coalesce(d.rank, p.rank)) FROM devices d LEFT JOIN "
		      "processes p ON p.id = d.process_id WHERE " WORKING_DEVICES,
		      &v) ||
	    one_text(db,
		     "SELECT CASE count(DISTINCT window) WHEN 0 THEN '' WHEN 1 THEN max(window) "
		     "ELSE 'mixed' END FROM analysis_device_time WHERE selected = 1",
		     ru->window, sizeof(ru->window)) ||
	    one_text(db,
		     "SELECT CASE count(DISTINCT source) WHEN 0 THEN '' WHEN 1 THEN max(source) "
		     "ELSE 'mixed' END FROM analysis_step_stats",
		     ru->step_source, sizeof(ru->step_source))) {
		rc = sql_fail(b, db, path);
		goto out;
	}
	if (run == 0 || v > b->s.ranks)
		b->s.ranks = v;
	if ((rc = each_row(b, db, path,
			   "SELECT " DEVICE_MODEL ", count(*) FROM devices d WHERE " WORKING_DEVICES
			   " GROUP BY 1 ORDER BY 1",
			   model_row, sh)) != TK_OK)
		goto out;
	if (nstep_rows > 0) {
		b->some_steps = 1;
		rc = each_row(b, db, path,
			      "SELECT row_number() OVER (PARTITION BY device_id ORDER BY start_ns, "
			      "step_event_id) - 1, dur_ns, host_dur_ns, busy_ns, comm_ns, "
			      "exposed_comm_ns FROM analysis_steps",
			      step_row, &r);
	} else { /* no steps: the selected window of every device is the one "step" */
		b->s.has_steps = 0;
		rc = each_row(b, db, path,
			      "SELECT 0, window_ns, NULL, busy_ns, comm_ns, exposed_comm_ns FROM "
			      "analysis_device_time WHERE selected = 1",
			      step_row, &r);
	}
	if (rc != TK_OK)
		goto out;
	sh->nsteps = (int64_t)r.nsteps;
	ru->steps = nstep_rows > 0 ? (int64_t)r.nsteps : 0;
	if ((rc = add_steps(b, &r)) != TK_OK ||
	    (rc = each_row(b, db, path,
			   "SELECT kpi, unit, avg(value) FROM analysis_kpi WHERE value IS NOT NULL "
			   "GROUP BY kpi, unit ORDER BY min(rowid)",
			   kpi_row, &r)) != TK_OK ||
	    (rc = each_row(b, db, path,
			   "SELECT CASE lower(d.kind) WHEN 'gpu' THEN 'GPU' WHEN 'tpu' THEN 'TPU' "
			   "ELSE d.kind END || ' ' || d.id, max(m.peak_bytes) FROM analysis_memory "
			   "m JOIN devices d ON d.id = m.device_id GROUP BY d.id ORDER BY d.id",
			   memory_row, NULL)) != TK_OK)
		goto out;
	int64_t peak;
	if (!one_value(db,
		       "SELECT max(peak_bytes) FROM analysis_memory WHERE device_id IS NOT NULL "
		       "HAVING count(*) > 0",
		       &peak)) {
		struct tkc_series *m = tkc_summary_metric(&b->s, "memory.peak", "bytes", 0);
		if (!m || tkc_series_add(m, run, (double)peak) != TK_OK) {
			rc = oom(b);
			goto out;
		}
	}
	for (int l = 0; l < 2 && rc == TK_OK; l++) {
		struct item_ctx ic = {run, l};
		const char *with_steps =
		    l == 0 ? "SELECT name, step_index, sum(calls), sum(total_ns) FROM "
			     "analysis_step_ops WHERE level = 'kernel' GROUP BY name, step_index"
			   : "SELECT name, step_index, sum(calls), sum(total_ns) FROM "
			     "analysis_step_ops WHERE level = 'hlo_op' GROUP BY name, step_index";
		const char *without =
		    l == 0 ? "SELECT name, 0, sum(occurrences), sum(total_ns) FROM "
			     "analysis_op_profile WHERE device_id IS NOT NULL AND level IN "
			     "('kernel', 'memcpy', 'memset', 'xla_op') GROUP BY name"
			   : "SELECT name, 0, sum(occurrences), sum(total_ns) FROM "
			     "analysis_op_profile WHERE device_id IS NOT NULL AND level = 'hlo_op' "
			     "GROUP BY name";
		rc = each_row(b, db, path, nstep_rows > 0 ? with_steps : without, item_row, &ic);
	}
out:
	free(r.step_max);
	free(r.host_max);
	free(r.busy);
	free(r.comm);
	free(r.xcomm);
	free(r.has_host);
	return rc;
}

int tkc_builder_new(double sample_share, size_t sample_max, struct tkc_builder **out)
{
	struct tkc_builder *b = calloc(1, sizeof(*b));
	*out = b;
	if (!b)
		return TK_ENOMEM;
	b->sample_share = sample_share;
	b->sample_max = sample_max;
	b->s.has_steps = 1;
	tks_intern_init(&b->lv[0].names);
	tks_intern_init(&b->lv[1].names);
	if (!(b->s.tracekit_version = strdup(tk_version())))
		return TK_ENOMEM;
	b->s.analysis_version = TK_ANALYSIS_VERSION;
	return TK_OK;
}

void tkc_builder_free(struct tkc_builder *b)
{
	if (!b)
		return;
	tkc_summary_free(&b->s);
	for (int l = 0; l < 2; l++) {
		tks_intern_free(&b->lv[l].names);
		free(b->lv[l].cells);
	}
	for (size_t i = 0; i < b->nshape; i++) {
		free(b->shape[i].ndev);
		for (size_t j = 0; j < b->shape[i].nmodels; j++)
			free(b->shape[i].models[j].model);
		free(b->shape[i].models);
	}
	free(b->shape);
	free(b);
}

int tkc_builder_add_store(struct tkc_builder *b, const char *path, const char *label, char *err,
			  size_t errlen)
{
	tk_store *st = NULL;
	b->err = err;
	b->errlen = errlen;
	tks_fmt(err, errlen, "%s", "");
	size_t run = b->s.nruns;
	if (TKU_GROW(b->s.runs, b->runs_cap, run + 1, 4) != TK_OK ||
	    TKU_GROW(b->shape, b->shape_cap, run + 1, 4) != TK_OK)
		return oom(b);
	struct tkc_run *runs = b->s.runs;
	struct run_shape *sh = b->shape;
	memset(&runs[run], 0, sizeof(runs[run]));
	memset(&sh[run], 0, sizeof(sh[run]));
	b->s.nruns++;
	b->nshape++;
	b->path = path;
	const char *base = strrchr(label, '/');
	if (!(runs[run].input = strdup(base ? base + 1 : label)))
		return oom(b);
	int rc = tk_store_open(path, &st);
	if (rc != TK_OK) {
		tks_fmt(err, errlen, "%s", tk_store_errmsg(st));
		goto out;
	}
	rc = add_run(b, tk_store_sqlite(st), path, run);
out:
	tk_store_close(st);
	return rc;
}

static int cmp_model(const void *a, const void *b)
{
	return strcmp(((const struct tkc_model *)a)->model, ((const struct tkc_model *)b)->model);
}

static int cmp_item(const void *a, const void *b)
{
	const struct tkc_item *x = a, *y = b;
	if (x->ns_per_step != y->ns_per_step)
		return x->ns_per_step < y->ns_per_step ? 1 : -1;
	return strcmp(x->name, y->name);
}

/* Items by time per step, descending (ties by name), through an array of pointers. */
static int cmp_order(const void *a, const void *b)
{
	return cmp_item(*(struct tkc_item *const *)a, *(struct tkc_item *const *)b);
}

/* Device-steps of every run together, and the offset of each run's first step sample. */
static double device_steps(const struct tkc_builder *b)
{
	double n = 0;
	for (size_t r = 0; r < b->s.nruns; r++)
		for (int64_t k = 0; k < b->shape[r].nsteps; k++)
			n += b->shape[r].ndev[k];
	return n;
}

/* Build the items of level @l: totals, shares, per-step series for those above the share. */
static int build_items(struct tkc_builder *b, int l, struct tkc_item **out, size_t *nout)
{
	struct level *lv = &b->lv[l];
	size_t n = lv->names.count;
	double dsteps = device_steps(b), total = 0;
	struct tkc_item *v = calloc(n ? n : 1, sizeof(*v));
	int64_t *calls = calloc(n ? n : 1, sizeof(*calls));
	double *ns = calloc(n ? n : 1, sizeof(*ns));
	struct tkc_item **order = NULL;
	size_t *run_off = calloc(b->s.nruns + 1, sizeof(*run_off));
	int rc = TK_OK;
	if (!v || !calls || !ns || !run_off) {
		rc = oom(b);
		goto out;
	}
	for (size_t r = 0; r < b->s.nruns; r++)
		run_off[r + 1] = run_off[r] + (size_t)b->shape[r].nsteps;
	for (size_t i = 0; i < lv->ncells; i++) {
		calls[lv->cells[i].item] += lv->cells[i].calls;
		ns[lv->cells[i].item] += (double)lv->cells[i].ns;
	}
	for (size_t i = 0; i < lv->names.count; i++)
		total += ns[i];
	/* names: the interned strings in id order */
	for (size_t i = 0; i < lv->names.count; i++) {
		const struct tks_intern_entry *e = &lv->names.ents[i];
		struct tkc_item *it = &v[i];
		if (!(it->name = malloc(e->len + 1))) {
			rc = oom(b);
			goto out;
		}
		memcpy(it->name, lv->names.arena + e->off, e->len);
		it->name[e->len] = '\0';
		it->calls_per_step = dsteps > 0 ? (double)calls[i] / dsteps : 0;
		it->ns_per_step = dsteps > 0 ? ns[i] / dsteps : 0;
		it->share = total > 0 ? ns[i] / total : 0;
	}
	/* the sampled items: from the sample share up, the sample_max largest */
	order = malloc((n ? n : 1) * sizeof(*order));
	if (!order) {
		rc = oom(b);
		goto out;
	}
	size_t nsampled = 0;
	for (size_t i = 0; i < n; i++)
		if (v[i].share >= b->sample_share && v[i].ns_per_step > 0)
			order[nsampled++] = &v[i];
	qsort(order, nsampled, sizeof(*order), cmp_order);
	if (nsampled > b->sample_max)
		nsampled = b->sample_max;
	for (size_t i = 0; i < nsampled; i++) { /* the per-step matrix, zeros where absent */
		struct tkc_item *it = order[i];
		if (!(it->s.key = strdup(it->name)) ||
		    !(it->s.v =
			  calloc(run_off[b->s.nruns] ? run_off[b->s.nruns] : 1, sizeof(double))) ||
		    !(it->s.runs = calloc(b->s.nruns, sizeof(size_t)))) {
			rc = oom(b);
			goto out;
		}
		snprintf(it->s.unit, sizeof(it->s.unit), "ns");
		it->s.per_step = 1;
		it->s.n = run_off[b->s.nruns];
		it->s.nruns = b->s.nruns;
		for (size_t r = 0; r < b->s.nruns; r++)
			it->s.runs[r] = (size_t)b->shape[r].nsteps;
	}
	for (size_t i = 0; i < lv->ncells; i++) {
		const struct cell *c = &lv->cells[i];
		struct tkc_item *it = &v[c->item];
		if (!it->s.v)
			continue;
		it->s.v[run_off[c->run] + (size_t)c->step] += (double)c->ns;
	}
	for (size_t i = 0; i < nsampled; i++) { /* sums over devices -> mean per device */
		struct tkc_item *it = order[i];
		for (size_t r = 0; r < b->s.nruns; r++)
			for (int64_t k = 0; k < b->shape[r].nsteps; k++) {
				double nd = b->shape[r].ndev[k];
				it->s.v[run_off[r] + (size_t)k] /= nd > 0 ? nd : 1;
			}
	}
	qsort(v, n, sizeof(*v), cmp_item);
out:
	free(calls);
	free(ns);
	free(order);
	free(run_off);
	if (rc != TK_OK) {
		for (size_t i = 0; v && i < n; i++) {
			free(v[i].name);
			tkc_series_free(&v[i].s);
		}
		free(v);
		v = NULL;
		n = 0;
	}
	*out = v;
	*nout = n;
	return rc;
}

/* The per-step device-op time: the sum over the kernel level's cells, per step. */
static int add_kernel_time(struct tkc_builder *b)
{
	struct tkc_series *m = tkc_summary_metric(&b->s, "kernel_time", "ns", 1);
	size_t off = 0, total = 0;
	for (size_t r = 0; r < b->s.nruns; r++)
		total += (size_t)b->shape[r].nsteps;
	double *v = calloc(total ? total : 1, sizeof(*v));
	size_t *run_off = calloc(b->s.nruns + 1, sizeof(*run_off));
	int rc = TK_OK;
	if (!m || !v || !run_off) {
		rc = oom(b);
		goto out;
	}
	for (size_t r = 0; r < b->s.nruns; r++)
		run_off[r + 1] = run_off[r] + (size_t)b->shape[r].nsteps;
	for (size_t i = 0; i < b->lv[0].ncells; i++) {
		const struct cell *c = &b->lv[0].cells[i];
		v[run_off[c->run] + (size_t)c->step] += (double)c->ns;
	}
	for (size_t r = 0; r < b->s.nruns && rc == TK_OK; r++)
		for (int64_t k = 0; k < b->shape[r].nsteps && rc == TK_OK; k++) {
			double nd = b->shape[r].ndev[k];
			if (nd > 0)
				rc = tkc_series_add(m, r, v[off] / nd);
			off++;
		}
	if (rc != TK_OK)
		rc = oom(b);
out:
	free(v);
	free(run_off);
	return rc;
}

int tkc_builder_finish(struct tkc_builder *b, struct tkc_summary *out, char *err, size_t errlen)
{
	b->err = err;
	b->errlen = errlen;
	int rc = TK_OK;
	memset(out, 0, sizeof(*out));
	if (!b->s.nruns)
		return fail(b, TK_EINVAL, "no runs");
	if (b->some_steps && !b->s.has_steps)
		return fail(b, TK_EINVAL,
			    "some runs have steps and some have none: they are not runs of one "
			    "benchmark profiled the same way");
	for (size_t r = 1; r < b->s.nruns; r++)
		if (!tkc_models_equal(b->shape[0].models, b->shape[0].nmodels, b->shape[r].models,
				      b->shape[r].nmodels)) {
			char x[512], y[512];
			tkc_models_text(b->shape[0].models, b->shape[0].nmodels, x, sizeof(x));
			tkc_models_text(b->shape[r].models, b->shape[r].nmodels, y, sizeof(y));
			tks_fmt(err, errlen,
				"runs '%s' and '%s' are not runs of one benchmark: %s against %s",
				b->s.runs[0].input, b->s.runs[r].input, x, y);
			return TK_EINVAL;
		}
	b->s.models = b->shape[0].models;
	b->s.nmodels = b->shape[0].nmodels;
	b->shape[0].models = NULL;
	b->shape[0].nmodels = 0;
	if (b->s.nmodels)
		qsort(b->s.models, b->s.nmodels, sizeof(*b->s.models), cmp_model);
	for (size_t i = 0; i < b->s.nmodels; i++)
		b->s.devices += b->s.models[i].count;
	if ((rc = add_kernel_time(b)) != TK_OK ||
	    (rc = build_items(b, 0, &b->s.kernels, &b->s.nkernels)) != TK_OK ||
	    (rc = build_items(b, 1, &b->s.ops, &b->s.nops)) != TK_OK)
		return rc;
	*out = b->s;
	memset(&b->s, 0, sizeof(b->s));
	return TK_OK;
}

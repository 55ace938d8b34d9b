/*
 * The regression gate's decision (docs/check.md): are the input and the baseline comparable,
 * and for every gate, did the input regress? A relative gate fails only when the change of the
 * per-step median passes the gate's threshold (and the baseline's own run-to-run spread), is at
 * least the minimum absolute change, and is significant by a one-sided Mann-Whitney U test on
 * the per-step samples at TKC_ALPHA; with too few samples for the test to ever reach TKC_ALPHA
 * it is decided on the threshold alone and marked low confidence. Absolute gates compare a
 * statistic of the input with a bound. Computes; prints nothing (report/check_out.c does).
 */
#include "check_internal.h"

#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tracekit/error.h>

#include "message.h"
#include "util/vec.h"

const struct tkc_series *tkc_summary_find(const struct tkc_summary *s, const char *key)
{
	for (size_t i = 0; s && i < s->nmetrics; i++)
		if (!strcmp(s->metrics[i].key, key))
			return &s->metrics[i];
	return NULL;
}

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

double tkc_stat(const struct tkc_series *s, const char *stat)
{
	if (!s || !s->n)
		return NAN;
	if (!stat || !strcmp(stat, "median"))
		return tkc_median(s->v, s->n);
	double acc = s->v[0];
	if (!strcmp(stat, "mean")) {
		acc = 0;
		for (size_t i = 0; i < s->n; i++)
			acc += s->v[i];
		return acc / (double)s->n;
	}
	if (!strcmp(stat, "p90")) {
		double *c = malloc(s->n * sizeof(*c));
		if (!c)
			return NAN;
		memcpy(c, s->v, s->n * sizeof(*c));
		qsort(c, s->n, sizeof(*c), cmp_dbl);
		double v = c[(9 * s->n + 9) / 10 - 1];
		free(c);
		return v;
	}
	for (size_t i = 1; i < s->n; i++)
		if (!strcmp(stat, "min") ? s->v[i] < acc : s->v[i] > acc)
			acc = s->v[i];
	return acc;
}

void tkc_result_free(struct tkc_result *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->n; i++)
		free(r->v[i].subject);
	free(r->v);
	memset(r, 0, sizeof(*r));
}

static struct tkc_outcome *add(struct tkc_result *r, const struct tkc_gate *g, const char *subject,
			       int item, const char *unit)
{
	if (TKU_GROW(r->v, r->cap, r->n + 1, 16) != TK_OK)
		return NULL;
	struct tkc_outcome *o = &r->v[r->n];
	memset(o, 0, sizeof(*o));
	if (!(o->subject = strdup(subject)))
		return NULL;
	r->n++;
	o->gate = g;
	o->item = item;
	snprintf(o->unit, sizeof(o->unit), "%s", unit);
	o->base = o->cur = o->change = o->delta = o->p = NAN;
	return o;
}

/* The smallest absolute change that counts for a subject in @unit (docs/check.md). */
static double min_abs(const char *unit, int item)
{
	if (!strcmp(unit, "ns"))
		return item ? TKC_MIN_ITEM_NS : TKC_MIN_NS;
	if (!strcmp(unit, "bytes"))
		return TKC_MIN_BYTES;
	if (!strcmp(unit, "%"))
		return TKC_MIN_PT;
	return 0;
}

/* The baseline's run-to-run spread: the largest |median of one run / pooled median - 1|. */
static double run_spread(const struct tkc_series *s, double pooled)
{
	double worst = 0;
	size_t at = 0;
	if (s->nruns < 2 || !(pooled != 0))
		return 0;
	for (size_t r = 0; r < s->nruns; r++) {
		if (s->runs[r]) {
			double m = tkc_median(s->v + at, s->runs[r]);
			double d = fabs(m / pooled - 1);
			if (d > worst)
				worst = d;
		}
		at += s->runs[r];
	}
	return worst;
}

/* Evaluate a relative gate on two series. */
static void relative(struct tkc_outcome *o, const struct tkc_gate *g, const struct tkc_series *b,
		     const struct tkc_series *c)
{
	o->nbase = b ? b->n : 0;
	o->ncur = c ? c->n : 0;
	if (!b || !b->n || !c || !c->n) {
		o->status = TKC_SKIPPED;
		snprintf(o->why, sizeof(o->why), "%s",
			 !b || !b->n ? "not in the baseline" : "not in the input");
		return;
	}
	o->base = tkc_median(b->v, b->n);
	o->cur = tkc_median(c->v, c->n);
	o->delta = o->cur - o->base;
	o->change = o->base != 0 ? o->delta / fabs(o->base) : NAN;
	o->noise = run_spread(b, o->base);
	double amount = g->amount;
	/* the move in the bad direction, in the gate's unit */
	double move = g->unit == TKC_UNIT_PCT ? o->change : o->delta;
	if (g->unit == TKC_UNIT_PCT) {
		if (o->base == 0)
			move = o->cur == 0 ? 0 : (o->cur > 0 ? INFINITY : -INFINITY);
		if (o->noise > amount)
			amount = o->noise;
	}
	o->limit = amount;
	double bad = g->sign * move, floor_abs = min_abs(o->unit, o->item);
	int big = fabs(o->delta) >= floor_abs;
	o->low_confidence = tkc_min_p(b->n, c->n) > TKC_ALPHA;
	if (bad > amount && big) {
		o->p = g->sign > 0 ? tkc_mann_whitney(b->v, b->n, c->v, c->n)
				   : tkc_mann_whitney(c->v, c->n, b->v, b->n);
		if (o->low_confidence || o->p <= TKC_ALPHA) {
			o->status = TKC_FAIL;
			snprintf(o->why, sizeof(o->why), "%s",
				 o->low_confidence
				     ? "low confidence: too few samples for the test, "
				       "decided on the threshold"
				     : "significant");
		} else {
			o->status = TKC_PASS;
			snprintf(o->why, sizeof(o->why), "within noise: p = %.2g", o->p);
		}
	} else if (-bad > amount && big) {
		o->p = g->sign > 0 ? tkc_mann_whitney(c->v, c->n, b->v, b->n)
				   : tkc_mann_whitney(b->v, b->n, c->v, c->n);
		o->status = o->low_confidence || o->p <= TKC_ALPHA ? TKC_IMPROVED : TKC_PASS;
		snprintf(o->why, sizeof(o->why), "%s",
			 o->status == TKC_PASS ? "within noise"
			 : o->low_confidence   ? "low confidence: decided on the threshold"
					       : "significant");
	} else {
		o->status = TKC_PASS;
		snprintf(o->why, sizeof(o->why), "%s",
			 bad > amount	      ? "below the minimum change that counts"
			 : amount > g->amount ? "within the baseline's run-to-run spread"
					      : "within the threshold");
	}
}

/* Evaluate an absolute gate on the input's series. */
static void absolute(struct tkc_outcome *o, const struct tkc_gate *g, const struct tkc_series *c)
{
	o->ncur = c ? c->n : 0;
	o->limit = g->amount;
	if (!c || !c->n) {
		o->status = TKC_SKIPPED;
		snprintf(o->why, sizeof(o->why), "not in the input");
		return;
	}
	o->cur = tkc_stat(c, g->stat);
	o->delta = o->cur - g->amount;
	int fail = g->kind == TKC_GATE_MAX ? o->cur > g->amount : o->cur < g->amount;
	o->status = fail ? TKC_FAIL : TKC_PASS;
	snprintf(o->why, sizeof(o->why), "%s of %zu %s %s the bound", g->stat ? g->stat : "median",
		 c->n, c->per_step ? "steps" : "runs", fail ? "crosses" : "is within");
}

/* The items of one list by name, to find one in O(log n) (lists hold every kernel name). */
struct name_ix {
	const struct tkc_item **v;
	size_t n;
};

static int by_name(const void *a, const void *b)
{
	return strcmp((*(const struct tkc_item *const *)a)->name,
		      (*(const struct tkc_item *const *)b)->name);
}

static int ix_build(struct name_ix *ix, const struct tkc_item *v, size_t n)
{
	ix->n = 0;
	if (!(ix->v = malloc((n ? n : 1) * sizeof(*ix->v))))
		return TK_ENOMEM;
	for (size_t i = 0; i < n; i++)
		ix->v[i] = &v[i];
	ix->n = n;
	if (n > 1)
		qsort(ix->v, n, sizeof(*ix->v), by_name);
	return TK_OK;
}

static const struct tkc_item *find_item(const struct name_ix *ix, const char *name)
{
	size_t lo = 0, hi = ix->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(ix->v[mid]->name, name);
		if (!c)
			return ix->v[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* Name indexes of the kernels and ops of both sides (the baseline's empty without one). */
struct indexes {
	struct name_ix bk, bo, ck, co;
};

/* A kernel/op gate: every item of the baseline that matches (default gates: above the share),
 * then the items only the input has, listed. */
static int item_gate(struct tkc_result *r, const struct tkc_gate *g, const struct tkc_summary *b,
		     const struct tkc_summary *c, const struct name_ix *bix,
		     const struct name_ix *cix)
{
	int is_op = !strcmp(g->metric, "op");
	const struct tkc_item *bv = is_op ? b->ops : b->kernels, *cv = is_op ? c->ops : c->kernels;
	size_t bn = is_op ? b->nops : b->nkernels, cn = is_op ? c->nops : c->nkernels;
	const char *pat = g->pattern ? g->pattern : "*";
	for (size_t i = 0; i < bn; i++) {
		const struct tkc_item *x = &bv[i];
		if (fnmatch(pat, x->name, 0) != 0 || (g->is_default && x->share < TKC_GATE_SHARE))
			continue;
		/* a glob covers the items the baseline sampled; a name given in full is reported
		 * even when it has no samples */
		if (!x->s.n && strpbrk(pat, "*?["))
			continue;
		const struct tkc_item *y = find_item(cix, x->name);
		struct tkc_outcome *o = add(r, g, x->name, is_op ? 2 : 1, "ns");
		if (!o)
			return TK_ENOMEM;
		if (g->kind != TKC_GATE_REL) {
			absolute(o, g, y && y->s.n ? &y->s : NULL);
		} else if (!y) {
			o->status = TKC_GONE;
			o->base = x->ns_per_step;
			o->cur = 0;
			o->delta = -x->ns_per_step;
			o->change = -1;
			snprintf(o->why, sizeof(o->why), "only in the baseline");
		} else if (!x->s.n || !y->s.n) {
			o->status = TKC_SKIPPED;
			o->base = x->ns_per_step;
			o->cur = y->ns_per_step;
			snprintf(o->why, sizeof(o->why),
				 "no per-step samples (below %.1f %% of "
				 "device-op time)",
				 100 * TKC_SAMPLE_SHARE);
		} else {
			relative(o, g, &x->s, &y->s);
		}
	}
	if (g->kind != TKC_GATE_REL)
		return TK_OK;
	for (size_t i = 0; i < cn; i++) { /* new: only in the input */
		const struct tkc_item *y = &cv[i];
		if (fnmatch(pat, y->name, 0) != 0 || (g->is_default && y->share < TKC_GATE_SHARE) ||
		    find_item(bix, y->name))
			continue;
		struct tkc_outcome *o = add(r, g, y->name, is_op ? 2 : 1, "ns");
		if (!o)
			return TK_ENOMEM;
		o->status = TKC_NEW;
		o->base = 0;
		o->cur = o->delta = y->ns_per_step;
		snprintf(o->why, sizeof(o->why), "only in the input");
	}
	return TK_OK;
}

/* Share of @a's kernel time in kernels @b also runs. */
static double overlap(const struct tkc_summary *a, const struct name_ix *b)
{
	double all = 0, both = 0;
	for (size_t i = 0; i < a->nkernels; i++) {
		all += a->kernels[i].ns_per_step;
		if (find_item(b, a->kernels[i].name))
			both += a->kernels[i].ns_per_step;
	}
	return all > 0 ? both / all : 1;
}

/* The largest kernels of @a that @b lacks, as "name (1.2 ms/step), ..." into @buf. */
static void missing(const struct tkc_summary *a, const struct name_ix *b, char *buf, size_t len)
{
	size_t at = 0, shown = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < a->nkernels && shown < 3 && at < len; i++) {
		if (find_item(b, a->kernels[i].name))
			continue;
		int k = snprintf(buf + at, len - at, "%s%.60s%s (%.3g us/step)", shown ? ", " : "",
				 a->kernels[i].name, strlen(a->kernels[i].name) > 60 ? "..." : "",
				 a->kernels[i].ns_per_step / 1e3);
		if (k < 0)
			break;
		at += (size_t)k;
		shown++;
	}
}

static int64_t steps_of(const struct tkc_summary *s)
{
	int64_t n = 0;
	for (size_t i = 0; i < s->nruns; i++)
		n += s->runs[i].steps;
	return n;
}

/* The comparability rules; r->comparable = 0 with the reason when one fails. */
static void comparable(struct tkc_result *r, const struct tkc_summary *b,
		       const struct tkc_summary *c, const struct indexes *ix, int allow_hw)
{
	r->comparable = 1;
	for (size_t i = 0; i < c->nruns; i++)
		if (c->runs[i].device_ops == 0) {
			r->comparable = 0;
			tks_fmt(
			    r->reason, sizeof(r->reason),
			    "'%s' has no device work: an empty capture is never a pass (did the "
			    "profiled code return before the device finished, or profiling stop "
			    "too early?)",
			    c->runs[i].input);
			return;
		}
	if (!b)
		return;
	if (b->has_steps != c->has_steps) {
		r->comparable = 0;
		tks_fmt(r->reason, sizeof(r->reason),
			"%s: profile both with the same steps (the step time of one cannot be "
			"compared with a whole window of the other)",
			c->has_steps ? "the baseline has no steps and the input has"
				     : "the input has no steps in its window and the baseline has");
		return;
	}
	if (!tkc_models_equal(b->models, b->nmodels, c->models, c->nmodels)) {
		char x[400], y[400];
		tkc_models_text(b->models, b->nmodels, x, sizeof(x));
		tkc_models_text(c->models, c->nmodels, y, sizeof(y));
		if (!allow_hw) {
			r->comparable = 0;
			tks_fmt(r->reason, sizeof(r->reason),
				"different hardware: the baseline ran on %s, the input on %s "
				"(--allow-different-hardware compares anyway)",
				x, y);
			return;
		}
		tks_fmt(r->hardware, sizeof(r->hardware), "baseline on %s, input on %s", x, y);
	}
	r->overlap_base = overlap(b, &ix->ck);
	r->overlap_cur = overlap(c, &ix->bk);
	if (!allow_hw && (r->overlap_base < TKC_MIN_OVERLAP || r->overlap_cur < TKC_MIN_OVERLAP)) {
		char mb[400], mc[400];
		missing(b, &ix->ck, mb, sizeof(mb));
		missing(c, &ix->bk, mc, sizeof(mc));
		r->comparable = 0;
		tks_fmt(
		    r->reason, sizeof(r->reason),
		    "different workloads: only %.0f %% of the baseline's kernel time is in kernels "
		    "the input runs, and %.0f %% of the input's in kernels the baseline runs "
		    "(at least %.0f %% each way); baseline only: %s; input only: %s",
		    100 * r->overlap_base, 100 * r->overlap_cur, 100 * TKC_MIN_OVERLAP,
		    *mb ? mb : "none", *mc ? mc : "none");
	}
}

/* The likely cause of a time regression: the kernels that grew most per step, and new ones. */
static void likely_cause(struct tkc_result *r, const struct name_ix *b, const struct tkc_summary *c)
{
	size_t cap = sizeof(r->causes) / sizeof(r->causes[0]);
	r->ncauses = 0;
	for (size_t i = 0; i < c->nkernels; i++) {
		const struct tkc_item *y = &c->kernels[i];
		const struct tkc_item *x = find_item(b, y->name);
		double base = x ? x->ns_per_step : 0, grow = y->ns_per_step - base;
		if (grow < TKC_MIN_ITEM_NS)
			continue;
		/* insert by growth, keeping the largest cap */
		size_t at = r->ncauses;
		while (at > 0 && r->causes[at - 1].cur_ns - r->causes[at - 1].base_ns < grow)
			at--;
		if (at >= cap)
			continue;
		size_t last = r->ncauses < cap ? r->ncauses : cap - 1;
		for (size_t k = last; k > at; k--)
			r->causes[k] = r->causes[k - 1];
		r->causes[at].name = y->name;
		r->causes[at].base_ns = base;
		r->causes[at].cur_ns = y->ns_per_step;
		if (r->ncauses < cap)
			r->ncauses++;
	}
}

int tkc_compare(const struct tkc_summary *base, const struct tkc_summary *cur,
		const struct tkc_gates *gates, int allow_hw, struct tkc_result *r, char *err,
		size_t errlen)
{
	memset(r, 0, sizeof(*r));
	tks_fmt(err, errlen, "%s", "");
	r->has_baseline = base != NULL;
	r->cur_runs = cur->nruns;
	r->cur_steps = steps_of(cur);
	if (base) {
		r->base_runs = base->nruns;
		r->base_steps = steps_of(base);
	}
	for (size_t i = 0; i < gates->n; i++)
		if (!base && gates->v[i].kind == TKC_GATE_REL) {
			tks_fmt(err, errlen,
				"the gate '%s' compares with a baseline: give one with "
				"--baseline, or use --max/--min",
				gates->v[i].text);
			return TK_EINVAL;
		}
	struct indexes ix = {{NULL, 0}, {NULL, 0}, {NULL, 0}, {NULL, 0}};
	int rc = TK_ENOMEM;
	if (ix_build(&ix.ck, cur->kernels, cur->nkernels) != TK_OK ||
	    ix_build(&ix.co, cur->ops, cur->nops) != TK_OK ||
	    ix_build(&ix.bk, base ? base->kernels : NULL, base ? base->nkernels : 0) != TK_OK ||
	    ix_build(&ix.bo, base ? base->ops : NULL, base ? base->nops : 0) != TK_OK)
		goto out;
	rc = TK_OK;
	comparable(r, base, cur, &ix, allow_hw);
	if (!r->comparable)
		goto out;
	for (size_t i = 0; i < gates->n && rc == TK_OK; i++) {
		const struct tkc_gate *g = &gates->v[i];
		if (!strcmp(g->metric, "kernel") || !strcmp(g->metric, "op")) {
			/* without a baseline (bounds only) the input's own items are gated */
			int op = !strcmp(g->metric, "op");
			const struct name_ix *bix =
			    base ? (op ? &ix.bo : &ix.bk) : (op ? &ix.co : &ix.ck);
			rc = item_gate(r, g, base ? base : cur, cur, bix, op ? &ix.co : &ix.ck);
			continue;
		}
		const struct tkc_series *cs = tkc_summary_find(cur, g->metric);
		const struct tkc_series *bs = base ? tkc_summary_find(base, g->metric) : NULL;
		const char *unit = cs ? cs->unit : bs ? bs->unit : "";
		struct tkc_outcome *o = add(r, g, g->metric, 0, unit);
		if (!o) {
			rc = TK_ENOMEM;
			break;
		}
		if (g->kind == TKC_GATE_REL)
			relative(o, g, bs, cs);
		else
			absolute(o, g, cs);
		/* a default gate on a metric the workload does not have (no communication) */
		if (o->status == TKC_SKIPPED && g->is_default && bs && cs && !bs->n && !cs->n)
			snprintf(o->why, sizeof(o->why), "neither side has it");
	}
	for (size_t i = 0; i < r->n && rc == TK_OK; i++) {
		enum tkc_status s = r->v[i].status;
		r->regressions += s == TKC_FAIL;
		r->improvements += s == TKC_IMPROVED;
		r->passed += s == TKC_PASS;
		r->skipped += s == TKC_SKIPPED;
	}
	int time_failed = 0; /* a step-level time regressed: name the kernels behind it */
	for (size_t i = 0; i < r->n; i++)
		time_failed |= r->v[i].status == TKC_FAIL && !r->v[i].item &&
			       !strcmp(r->v[i].unit, "ns") && strncmp(r->v[i].subject, "kpi.", 4);
	if (base && time_failed)
		likely_cause(r, &ix.bk, cur);
out:
	free(ix.bk.v);
	free(ix.bo.v);
	free(ix.ck.v);
	free(ix.co.v);
	if (rc != TK_OK)
		tks_fmt(err, errlen, "out of memory");
	return rc;
}

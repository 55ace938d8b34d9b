/*
 * The baseline file (docs/baseline.md): a summary of runs (check_internal.h) as small, stable,
 * versioned JSON, written key by key in a fixed order, and read back with every value checked
 * (the file is input like any other: a wrong type, a missing key, a count that does not add up
 * is TK_EFORMAT naming the file, the place and the key path; another version is TK_EVERSION).
 */
#include "util/utf8.h"
#include "check_internal.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <tracekit/error.h>
#include <tracekit/text.h>

#include "util/buf.h"
#include "util/escape.h"
#include "util/fmt.h"
#include "util/json_dom.h"
#include "message.h"

#define BASELINE_MAX_BYTES (256u << 20) /* a baseline file larger than this is refused */

/* ---- writing ---- */

/* A sample: integral values as integers, the others as the shortest round-trip real. */
static void num(struct tku_buf *b, double v)
{
	if (isfinite(v) && v == floor(v) && fabs(v) < 9007199254740992.0)
		tku_printf(b, "%.0f", v);
	else
		tku_fmt_json_real(b, v);
}

static void series_samples(struct tku_buf *b, const struct tkc_series *s)
{
	size_t at = 0;
	tku_puts(b, "[");
	for (size_t r = 0; r < s->nruns; r++) {
		tku_puts(b, r ? ", [" : "[");
		for (size_t i = 0; i < s->runs[r] && at < s->n; i++, at++) {
			if (i)
				tku_puts(b, ", ");
			num(b, s->v[at]);
		}
		tku_puts(b, "]");
	}
	tku_puts(b, "]");
}

static void items(struct tku_buf *b, const char *key, const struct tkc_item *v, size_t n)
{
	tku_printf(b, ",\n  \"%s\": [", key);
	for (size_t i = 0; i < n; i++) {
		tku_puts(b, i ? ",\n    {\"name\": " : "\n    {\"name\": ");
		tku_esc_json(b, v[i].name);
		tku_puts(b, ", \"calls_per_step\": ");
		num(b, v[i].calls_per_step);
		tku_puts(b, ", \"ns_per_step\": ");
		num(b, v[i].ns_per_step);
		tku_puts(b, ", \"share\": ");
		num(b, v[i].share);
		if (v[i].s.n && v[i].share >= TKC_SAMPLE_SHARE && i < TKC_SAMPLE_MAX) {
			tku_puts(b, ", \"samples\": ");
			series_samples(b, &v[i].s);
		}
		tku_puts(b, "}");
	}
	tku_puts(b, n ? "\n  ]" : "]");
}

int tkc_baseline_write(FILE *out, const struct tkc_summary *s)
{
	struct tku_buf b = {0};
	tku_printf(&b, "{\n  \"format\": \"tracekit-baseline\",\n  \"version\": %d,\n",
		   TKC_BASELINE_VERSION);
	tku_puts(&b, "  \"tracekit_version\": ");
	tku_esc_json(&b, s->tracekit_version ? s->tracekit_version : "");
	tku_printf(&b, ",\n  \"analysis_version\": %lld,\n  \"runs\": [",
		   (long long)s->analysis_version);
	for (size_t i = 0; i < s->nruns; i++) {
		const struct tkc_run *r = &s->runs[i];
		tku_puts(&b, i ? ",\n    {\"input\": " : "\n    {\"input\": ");
		tku_esc_json(&b, r->input);
		tku_printf(&b, ", \"steps\": %lld, \"window\": ", (long long)r->steps);
		tku_esc_json(&b, r->window);
		tku_puts(&b, ", \"step_source\": ");
		tku_esc_json(&b, r->step_source);
		tku_printf(&b, ", \"device_ops\": %lld}", (long long)r->device_ops);
	}
	tku_printf(&b,
		   "\n  ],\n  \"workload\": {\n    \"devices\": %lld,\n    \"ranks\": %lld,\n"
		   "    \"has_steps\": %s,\n    \"models\": [",
		   (long long)s->devices, (long long)s->ranks, s->has_steps ? "true" : "false");
	for (size_t i = 0; i < s->nmodels; i++) {
		tku_puts(&b, i ? ", {\"model\": " : "{\"model\": ");
		tku_esc_json(&b, s->models[i].model);
		tku_printf(&b, ", \"count\": %lld}", (long long)s->models[i].count);
	}
	tku_puts(&b, "]\n  },\n  \"metrics\": {");
	for (size_t i = 0; i < s->nmetrics; i++) {
		const struct tkc_series *m = &s->metrics[i];
		tku_puts(&b, i ? ",\n    " : "\n    ");
		tku_esc_json(&b, m->key);
		tku_puts(&b, ": {\"unit\": ");
		tku_esc_json(&b, m->unit);
		tku_printf(&b, ", \"per\": \"%s\", \"samples\": ", m->per_step ? "step" : "run");
		series_samples(&b, m);
		tku_puts(&b, "}");
	}
	tku_puts(&b, s->nmetrics ? "\n  }" : "}");
	items(&b, "kernels", s->kernels, s->nkernels);
	items(&b, "ops", s->ops, s->nops);
	tku_puts(&b, ",\n  \"memory\": [");
	for (size_t i = 0; i < s->nmemory; i++) {
		tku_puts(&b, i ? ", {\"device\": " : "{\"device\": ");
		tku_esc_json(&b, s->memory[i].device);
		tku_printf(&b, ", \"peak_bytes\": %lld}", (long long)s->memory[i].peak_bytes);
	}
	tku_puts(&b, "]\n}\n");
	int rc = tku_flush(out, &b);
	free(b.p);
	return rc;
}

/* ---- reading ---- */

struct rd {
	const char *path;
	char *err;
	size_t errlen;
	size_t nruns;
};

static int bad(struct rd *r, const struct tku_json_value *at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int bad(struct rd *r, const struct tku_json_value *at, const char *fmt, ...)
{
	char what[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	tks_fmt(r->err, r->errlen, "baseline '%s': line %llu, column %llu: %s", r->path,
		(unsigned long long)(at ? at->line : 0), (unsigned long long)(at ? at->col : 0),
		what);
	return TK_EFORMAT;
}

/* Member @key of object @o with type @t; NULL after the message when absent or mistyped. */
static const struct tku_json_value *need(struct rd *r, const struct tku_json_value *o,
					 const char *where, const char *key, enum tku_json_type t,
					 int *rc)
{
	static const char *const names[] = {"null",	"a boolean", "a number",
					    "a string", "an array",  "an object"};
	const struct tku_json_value *v = tku_json_get(o, key);
	if (*rc != TK_OK)
		return NULL;
	if (!v)
		*rc = bad(r, o, "%s: the key \"%s\" is missing", where, key);
	else if (v->type != t)
		*rc = bad(r, v, "%s.%s: expected %s", where, key, names[t]);
	return *rc == TK_OK ? v : NULL;
}

/* A count: an integral number in [0, 2^53). */
static int64_t count_of(struct rd *r, const struct tku_json_value *v, const char *where, int *rc)
{
	if (*rc != TK_OK || !v)
		return 0;
	if (!(v->num >= 0 && v->num < 9007199254740992.0 && v->num == floor(v->num))) {
		*rc = bad(r, v, "%s: expected a count (a whole number >= 0)", where);
		return 0;
	}
	return (int64_t)v->num;
}

static char *dup_str(struct rd *r, const struct tku_json_value *v, int *rc)
{
	if (*rc != TK_OK || !v)
		return NULL;
	char *s = strdup(v->str);
	if (!s)
		*rc = TK_ENOMEM;
	(void)r;
	return s;
}

/* @v: an array of nruns arrays of finite numbers -> @s. */
static int read_samples(struct rd *r, const struct tku_json_value *v, const char *where,
			struct tkc_series *s)
{
	if (v->type != TKU_JSON_ARRAY || v->n != r->nruns)
		return bad(r, v, "%s.samples: expected an array of %zu arrays (one per run)", where,
			   r->nruns);
	for (size_t k = 0; k < v->n; k++) {
		const struct tku_json_value *a = &v->items[k];
		if (a->type != TKU_JSON_ARRAY)
			return bad(r, a, "%s.samples[%zu]: expected an array of numbers", where, k);
		for (size_t i = 0; i < a->n; i++) {
			const struct tku_json_value *x = &a->items[i];
			if (x->type != TKU_JSON_NUMBER || !isfinite(x->num) || fabs(x->num) > 1e300)
				return bad(r, x, "%s.samples[%zu][%zu]: expected a number", where,
					   k, i);
			if (tkc_series_add(s, k, x->num) != TK_OK)
				return TK_ENOMEM;
		}
		if (a->n == 0 && tkc_series_reach(s, k) != TK_OK) /* an empty run still counts */
			return TK_ENOMEM;
	}
	return TK_OK;
}

struct named_ix {
	const char *name;
	size_t i;
};

static int cmp_named_ix(const void *pa, const void *pb)
{
	const struct named_ix *a = pa, *b = pb;
	int c = strcmp(a->name, b->name);
	return c ? c : (a->i > b->i) - (a->i < b->i);
}

/*
 * Each name at most once among the @n entries of array @key (@a): the gate looks kernels, ops
 * and memory up by name, so a name given twice would compare one entry with another (found by
 * the check fuzz target: a baseline regressed against itself). @name(i) gives entry i's name.
 */
static int unique_names(struct rd *r, const struct tku_json_value *a, const char *key, size_t n,
			const char *(*name)(const void *, size_t), const void *v)
{
	int rc = TK_OK;
	if (n < 2)
		return TK_OK;
	struct named_ix *x = malloc(n * sizeof(*x));
	if (!x)
		return TK_ENOMEM;
	for (size_t i = 0; i < n; i++)
		x[i] = (struct named_ix){name(v, i), i};
	qsort(x, n, sizeof(*x), cmp_named_ix);
	for (size_t i = 1; i < n && rc == TK_OK; i++)
		if (!strcmp(x[i - 1].name, x[i].name))
			rc = bad(r, &a->items[x[i].i], "%s[%zu]: the same name as %s[%zu]", key,
				 x[i].i, key, x[i - 1].i);
	free(x);
	return rc;
}

static const char *item_name(const void *v, size_t i)
{
	return ((const struct tkc_item *)v)[i].name;
}

static const char *memory_name(const void *v, size_t i)
{
	return ((const struct tkc_memory *)v)[i].device;
}

static int read_items(struct rd *r, const struct tku_json_value *root, const char *key,
		      struct tkc_item **out, size_t *nout)
{
	int rc = TK_OK;
	const struct tku_json_value *a = need(r, root, "baseline", key, TKU_JSON_ARRAY, &rc);
	if (rc != TK_OK)
		return rc;
	struct tkc_item *v = calloc(a->n ? a->n : 1, sizeof(*v));
	if (!v)
		return TK_ENOMEM;
	*out = v;
	*nout = a->n;
	for (size_t i = 0; i < a->n && rc == TK_OK; i++) {
		char where[64];
		snprintf(where, sizeof(where), "%s[%zu]", key, i);
		const struct tku_json_value *o = &a->items[i];
		if (o->type != TKU_JSON_OBJECT) {
			rc = bad(r, o, "%s: expected an object", where);
			break;
		}
		v[i].name = dup_str(r, need(r, o, where, "name", TKU_JSON_STRING, &rc), &rc);
		const struct tku_json_value *c = need(r, o, where, "calls_per_step",
						      TKU_JSON_NUMBER, &rc),
					    *ns = need(r, o, where, "ns_per_step", TKU_JSON_NUMBER,
						       &rc),
					    *sh = need(r, o, where, "share", TKU_JSON_NUMBER, &rc);
		if (rc != TK_OK)
			break;
		if (!(c->num >= 0 && ns->num >= 0 && sh->num >= 0 && sh->num <= 1 &&
		      c->num < 1e18 && ns->num < 1e21)) {
			rc = bad(r, o,
				 "%s: calls_per_step, ns_per_step and share must be >= 0 (share "
				 "<= 1)",
				 where);
			break;
		}
		v[i].calls_per_step = c->num;
		v[i].ns_per_step = ns->num;
		v[i].share = sh->num;
		const struct tku_json_value *smp = tku_json_get(o, "samples");
		if (smp) {
			if (!(v[i].s.key = strdup(v[i].name))) {
				rc = TK_ENOMEM;
				break;
			}
			snprintf(v[i].s.unit, sizeof(v[i].s.unit), "ns");
			v[i].s.per_step = 1;
			rc = read_samples(r, smp, where, &v[i].s);
		}
	}
	if (rc == TK_OK)
		rc = unique_names(r, a, key, a->n, item_name, v);
	return rc;
}

static int read_runs(struct rd *r, const struct tku_json_value *root, struct tkc_summary *s)
{
	int rc = TK_OK;
	const struct tku_json_value *a = need(r, root, "baseline", "runs", TKU_JSON_ARRAY, &rc);
	if (rc != TK_OK)
		return rc;
	if (a->n == 0)
		return bad(r, a, "runs: a baseline has at least one run");
	if (!(s->runs = calloc(a->n, sizeof(*s->runs))))
		return TK_ENOMEM;
	s->nruns = r->nruns = a->n;
	for (size_t i = 0; i < a->n && rc == TK_OK; i++) {
		char where[64];
		snprintf(where, sizeof(where), "runs[%zu]", i);
		const struct tku_json_value *o = &a->items[i];
		if (o->type != TKU_JSON_OBJECT)
			return bad(r, o, "%s: expected an object", where);
		struct tkc_run *ru = &s->runs[i];
		ru->input = dup_str(r, need(r, o, where, "input", TKU_JSON_STRING, &rc), &rc);
		ru->steps =
		    count_of(r, need(r, o, where, "steps", TKU_JSON_NUMBER, &rc), where, &rc);
		ru->device_ops =
		    count_of(r, need(r, o, where, "device_ops", TKU_JSON_NUMBER, &rc), where, &rc);
		const struct tku_json_value *w = need(r, o, where, "window", TKU_JSON_STRING, &rc),
					    *src = need(r, o, where, "step_source", TKU_JSON_STRING,
							&rc);
		if (rc == TK_OK) {
			snprintf(ru->window, sizeof(ru->window), "%s", w->str);
			snprintf(ru->step_source, sizeof(ru->step_source), "%s", src->str);
		}
	}
	return rc;
}

static int read_workload(struct rd *r, const struct tku_json_value *root, struct tkc_summary *s)
{
	int rc = TK_OK;
	const struct tku_json_value *w =
	    need(r, root, "baseline", "workload", TKU_JSON_OBJECT, &rc);
	const struct tku_json_value *dev = need(r, w, "workload", "devices", TKU_JSON_NUMBER, &rc),
				    *ranks = need(r, w, "workload", "ranks", TKU_JSON_NUMBER, &rc),
				    *hs = need(r, w, "workload", "has_steps", TKU_JSON_BOOL, &rc),
				    *models = need(r, w, "workload", "models", TKU_JSON_ARRAY, &rc);
	s->devices = count_of(r, dev, "workload.devices", &rc);
	s->ranks = count_of(r, ranks, "workload.ranks", &rc);
	if (rc != TK_OK)
		return rc;
	s->has_steps = hs->b;
	if (!(s->models = calloc(models->n ? models->n : 1, sizeof(*s->models))))
		return TK_ENOMEM;
	s->nmodels = models->n;
	int64_t total = 0;
	for (size_t i = 0; i < models->n && rc == TK_OK; i++) {
		char where[64];
		snprintf(where, sizeof(where), "workload.models[%zu]", i);
		const struct tku_json_value *o = &models->items[i];
		if (o->type != TKU_JSON_OBJECT)
			return bad(r, o, "%s: expected an object", where);
		s->models[i].model =
		    dup_str(r, need(r, o, where, "model", TKU_JSON_STRING, &rc), &rc);
		s->models[i].count =
		    count_of(r, need(r, o, where, "count", TKU_JSON_NUMBER, &rc), where, &rc);
		total += s->models[i].count;
		if (rc == TK_OK && i && strcmp(s->models[i - 1].model, s->models[i].model) >= 0)
			rc = bad(r, o, "%s: models must be sorted by name, each once", where);
	}
	if (rc == TK_OK && total != s->devices)
		rc = bad(r, models,
			 "workload: the models' counts add up to %lld, not devices (%lld)",
			 (long long)total, (long long)s->devices);
	return rc;
}

static int read_metrics(struct rd *r, const struct tku_json_value *root, struct tkc_summary *s)
{
	int rc = TK_OK;
	const struct tku_json_value *m = need(r, root, "baseline", "metrics", TKU_JSON_OBJECT, &rc);
	for (size_t i = 0; rc == TK_OK && i < m->n; i++) {
		char where[160];
		snprintf(where, sizeof(where), "metrics.%.120s", m->keys[i]);
		const struct tku_json_value *o = &m->items[i];
		if (o->type != TKU_JSON_OBJECT)
			return bad(r, o, "%s: expected an object", where);
		if (!tku_utf8_valid(m->keys[i], strlen(m->keys[i])))
			return bad(r, o, "metrics: a metric name that is not UTF-8");
		const struct tku_json_value *unit = need(r, o, where, "unit", TKU_JSON_STRING, &rc),
					    *per = need(r, o, where, "per", TKU_JSON_STRING, &rc),
					    *smp =
						need(r, o, where, "samples", TKU_JSON_ARRAY, &rc);
		if (rc != TK_OK)
			break;
		if (strcmp(per->str, "step") && strcmp(per->str, "run"))
			return bad(r, per, "%s.per: expected \"step\" or \"run\"", where);
		if (!tkc_known_unit(unit->str) || strlen(unit->str) != unit->len)
			return bad(r, unit, "%s.unit: expected \"ns\", \"bytes\" or \"%%\"", where);
		struct tkc_series *x =
		    tkc_summary_metric(s, m->keys[i], unit->str, !strcmp(per->str, "step"));
		if (!x)
			return TK_ENOMEM;
		if (x->n)
			return bad(r, o, "%s: the metric is given twice", where);
		rc = read_samples(r, smp, where, x);
	}
	return rc;
}

static int read_memory(struct rd *r, const struct tku_json_value *root, struct tkc_summary *s)
{
	int rc = TK_OK;
	const struct tku_json_value *a = need(r, root, "baseline", "memory", TKU_JSON_ARRAY, &rc);
	if (rc != TK_OK)
		return rc;
	if (!(s->memory = calloc(a->n ? a->n : 1, sizeof(*s->memory))))
		return TK_ENOMEM;
	s->nmemory = a->n;
	for (size_t i = 0; i < a->n && rc == TK_OK; i++) {
		char where[64];
		snprintf(where, sizeof(where), "memory[%zu]", i);
		const struct tku_json_value *o = &a->items[i];
		if (o->type != TKU_JSON_OBJECT)
			return bad(r, o, "%s: expected an object", where);
		s->memory[i].device =
		    dup_str(r, need(r, o, where, "device", TKU_JSON_STRING, &rc), &rc);
		s->memory[i].peak_bytes =
		    count_of(r, need(r, o, where, "peak_bytes", TKU_JSON_NUMBER, &rc), where, &rc);
	}
	if (rc == TK_OK)
		rc = unique_names(r, a, "memory", a->n, memory_name, s->memory);
	return rc;
}

int tkc_baseline_read(const char *path, struct tkc_summary *s, char *err, size_t errlen)
{
	struct tku_json_value *root = NULL;
	struct rd r = {path, err, errlen, 0};
	memset(s, 0, sizeof(*s));
	int rc = tku_json_parse_file(path, BASELINE_MAX_BYTES, &root, err, errlen);
	if (rc != TK_OK)
		goto out;
	if (root->type != TKU_JSON_OBJECT) {
		rc = bad(&r, root, "expected a JSON object (a tracekit baseline)");
		goto out;
	}
	const struct tku_json_value *fmt =
					need(&r, root, "baseline", "format", TKU_JSON_STRING, &rc),
				    *ver =
					need(&r, root, "baseline", "version", TKU_JSON_NUMBER, &rc);
	if (rc != TK_OK)
		goto out;
	if (strcmp(fmt->str, "tracekit-baseline")) {
		rc = bad(&r, fmt, "format is not \"tracekit-baseline\": not a tracekit baseline");
		goto out;
	}
	if (ver->num != TKC_BASELINE_VERSION) {
		tks_fmt(err, errlen,
			"baseline '%s' has version %g; this tracekit reads version %d: make the "
			"baseline again with 'tracekit baseline'",
			path, ver->num, TKC_BASELINE_VERSION);
		rc = TK_EVERSION;
		goto out;
	}
	const struct tku_json_value *tv = need(&r, root, "baseline", "tracekit_version",
					       TKU_JSON_STRING, &rc),
				    *av = need(&r, root, "baseline", "analysis_version",
					       TKU_JSON_NUMBER, &rc);
	s->tracekit_version = dup_str(&r, tv, &rc);
	s->analysis_version = count_of(&r, av, "analysis_version", &rc);
	if (rc == TK_OK)
		rc = read_runs(&r, root, s);
	if (rc == TK_OK)
		rc = read_workload(&r, root, s);
	if (rc == TK_OK)
		rc = read_metrics(&r, root, s);
	if (rc == TK_OK)
		rc = read_items(&r, root, "kernels", &s->kernels, &s->nkernels);
	if (rc == TK_OK)
		rc = read_items(&r, root, "ops", &s->ops, &s->nops);
	if (rc == TK_OK)
		rc = read_memory(&r, root, s);
	if (rc == TK_ENOMEM)
		tks_fmt(err, errlen, "out of memory reading baseline '%s'", path);
out:
	tku_json_free(root);
	if (rc != TK_OK)
		tkc_summary_free(s);
	return rc;
}

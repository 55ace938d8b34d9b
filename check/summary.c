/*
 * The summary of runs (check_internal.h): its metric series, device models, and freeing them;
 * shared by the builder (baseline.c), the baseline file reader (baseline_json.c) and the
 * comparison (compare.c).
 */
#include "check_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tracekit/error.h>

#include "util/vec.h"

void tkc_series_free(struct tkc_series *s)
{
	if (!s)
		return;
	free(s->key);
	free(s->v);
	free(s->runs);
	memset(s, 0, sizeof(*s));
}

void tkc_summary_free(struct tkc_summary *s)
{
	if (!s)
		return;
	free(s->tracekit_version);
	for (size_t i = 0; i < s->nruns; i++)
		free(s->runs[i].input);
	free(s->runs);
	for (size_t i = 0; i < s->nmodels; i++)
		free(s->models[i].model);
	free(s->models);
	for (size_t i = 0; i < s->nmetrics; i++)
		tkc_series_free(&s->metrics[i]);
	free(s->metrics);
	for (size_t i = 0; i < s->nkernels; i++) {
		free(s->kernels[i].name);
		tkc_series_free(&s->kernels[i].s);
	}
	free(s->kernels);
	for (size_t i = 0; i < s->nops; i++) {
		free(s->ops[i].name);
		tkc_series_free(&s->ops[i].s);
	}
	free(s->ops);
	for (size_t i = 0; i < s->nmemory; i++)
		free(s->memory[i].device);
	free(s->memory);
	memset(s, 0, sizeof(*s));
}

/* The series of metric @key (created empty with @unit, @per_step when new), or NULL (ENOMEM). */
struct tkc_series *tkc_summary_metric(struct tkc_summary *s, const char *key, const char *unit,
				      int per_step)
{
	for (size_t i = 0; i < s->nmetrics; i++)
		if (!strcmp(s->metrics[i].key, key))
			return &s->metrics[i];
	if (TKU_GROW(s->metrics, s->metrics_cap, s->nmetrics + 1, 16) != TK_OK)
		return NULL;
	struct tkc_series *m = &s->metrics[s->nmetrics];
	memset(m, 0, sizeof(*m));
	if (!(m->key = strdup(key)))
		return NULL;
	snprintf(m->unit, sizeof(m->unit), "%s", unit);
	m->per_step = per_step;
	s->nmetrics++;
	return m;
}

int tkc_series_reach(struct tkc_series *m, size_t run)
{
	if (run < m->nruns)
		return TK_OK;
	if (TKU_GROW(m->runs, m->runs_cap, run + 1, 4) != TK_OK)
		return TK_ENOMEM;
	for (size_t i = m->nruns; i <= run; i++)
		m->runs[i] = 0;
	m->nruns = run + 1;
	return TK_OK;
}

/* Append sample @x of run @run (runs are added in order) to @m. */
int tkc_series_add(struct tkc_series *m, size_t run, double x)
{
	if (tkc_series_reach(m, run) != TK_OK || TKU_GROW(m->v, m->cap, m->n + 1, 16) != TK_OK)
		return TK_ENOMEM;
	m->v[m->n++] = x;
	m->runs[run]++;
	return TK_OK;
}

/* "NVIDIA A100 x8" style text of a model list, for messages. */
void tkc_models_text(const struct tkc_model *m, size_t n, char *buf, size_t len)
{
	size_t at = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < n && at < len; i++) {
		int k = snprintf(buf + at, len - at, "%s%lld x %s", i ? ", " : "",
				 (long long)m[i].count, m[i].model);
		if (k < 0)
			break;
		at += (size_t)k;
	}
	if (!n)
		snprintf(buf, len, "no device with device work");
}

int tkc_models_equal(const struct tkc_model *a, size_t na, const struct tkc_model *b, size_t nb)
{
	if (na != nb)
		return 0;
	for (size_t i = 0; i < na; i++)
		if (a[i].count != b[i].count || strcmp(a[i].model, b[i].model))
			return 0;
	return 1;
}

int tkc_known_unit(const char *unit)
{
	return !strcmp(unit, "ns") || !strcmp(unit, "bytes") || !strcmp(unit, "%");
}

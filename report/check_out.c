/*
 * A check's result in its formats (docs/check.md, "Outputs"): text that opens with the verdict
 * (what regressed, by how much, with what confidence, and the likely cause), JSON with stable
 * keys, Markdown for a CI job summary, JUnit XML (one test case per gate) and GitHub Actions
 * annotations. Computes nothing: every figure comes from the result (check/compare.c).
 */
#include "check_out.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <tracekit/error.h>

#include "report_internal.h"

static const char *status_name(enum tkc_status s)
{
	switch (s) {
	case TKC_FAIL:
		return "fail";
	case TKC_IMPROVED:
		return "improved";
	case TKC_SKIPPED:
		return "skipped";
	case TKC_NEW:
		return "new";
	case TKC_GONE:
		return "gone";
	default:
		return "pass";
	}
}

static const char *verdict_name(const struct tkc_result *r)
{
	return !r->comparable ? "not_comparable" : r->regressions ? "regression" : "pass";
}

/* A metric key as people read it: "step time", "kpi gpu_utilization", "kernel <name>". */
static void subject(struct tkr_buf *b, const struct tkc_outcome *o, int width)
{
	if (o->item) {
		tkr_puts(b, o->item == 1 ? "kernel " : "op ");
		if (width > 0)
			tkr_short_name(b, o->subject, width);
		else
			tkr_puts(b, o->subject);
		return;
	}
	for (const char *p = o->subject; *p; p++)
		tkr_putn(b, *p == '_' ? " " : p, 1);
}

/* A value in the outcome's unit ("77.10 ms", "1.20 GiB", "81.3 %"); items per step. */
static void value(struct tkr_buf *b, const struct tkc_outcome *o, double v)
{
	if (isnan(v))
		tkr_puts(b, "n/a");
	else if (!strcmp(o->unit, "ns"))
		tkr_fmt_ns(b, v);
	else if (!strcmp(o->unit, "bytes"))
		tkr_fmt_bytes(b, v);
	else if (!strcmp(o->unit, "%"))
		tkr_printf(b, "%.1f %%", v);
	else
		tkr_printf(b, "%.4g", v);
	if (o->item && !isnan(v))
		tkr_puts(b, "/step");
}

/* "+7.8 %" (or "+2.1 pt" for percentages of a pt gate), the p-value and the sample counts. */
static void change(struct tkr_buf *b, const struct tkc_outcome *o)
{
	if (o->gate->unit == TKC_UNIT_PT && !isnan(o->delta))
		tkr_printf(b, "%+.1f pt", o->delta);
	else if (!isnan(o->change))
		tkr_printf(b, "%+.1f %%", 100 * o->change);
	else if (!isnan(o->delta)) {
		tkr_puts(b, o->delta >= 0 ? "+" : "");
		value(b, o, o->delta);
	} else
		tkr_puts(b, "n/a");
}

static void p_text(struct tkr_buf *b, double p)
{
	if (p < 0.001)
		tkr_puts(b, "p < 0.001");
	else
		tkr_printf(b, "p = %.3f", p);
}

/* One outcome on a line: "step time 77.10 ms -> 83.11 ms (+7.8 %, p < 0.001, 20 vs 20 steps)". */
static void outcome_line(struct tkr_buf *b, const struct tkc_outcome *o, int width)
{
	subject(b, o, width);
	tkr_puts(b, " ");
	if (o->gate->kind != TKC_GATE_REL) {
		value(b, o, o->cur);
		tkr_printf(b, " (%s ", o->gate->kind == TKC_GATE_MAX ? "max" : "min");
		value(b, o, o->limit);
		tkr_puts(b, ")");
		return;
	}
	if (o->status == TKC_NEW) {
		tkr_puts(b, "new: ");
		value(b, o, o->cur);
		return;
	}
	value(b, o, o->base);
	tkr_puts(b, " -> ");
	value(b, o, o->cur);
	if (o->status == TKC_SKIPPED)
		return;
	tkr_puts(b, " (");
	change(b, o);
	if (!isnan(o->p)) {
		tkr_puts(b, ", ");
		p_text(b, o->p);
	}
	if (o->nbase || o->ncur)
		tkr_printf(b, ", %zu vs %zu samples", o->nbase, o->ncur);
	tkr_puts(b, ")");
}

/* Cause @i: "kernel X +23.0 % (+1.10 ms/step)" or "new kernel Y 1.20 ms/step" (not escaped). */
static void cause_raw(struct tkr_buf *b, const struct tkc_result *r, size_t i, int width)
{
	double base = r->causes[i].base_ns, cur = r->causes[i].cur_ns;
	tkr_puts(b, base > 0 ? "kernel " : "new kernel ");
	if (width > 0)
		tkr_short_name(b, r->causes[i].name, width);
	else
		tkr_puts(b, r->causes[i].name);
	if (base > 0) {
		tkr_printf(b, " %+.1f %% (+", 100 * (cur / base - 1));
		tkr_fmt_ns(b, cur - base);
		tkr_puts(b, "/step)");
	} else {
		tkr_puts(b, " ");
		tkr_fmt_ns(b, cur);
		tkr_puts(b, "/step");
	}
}

static void cause(struct tkr_buf *b, const struct tkc_result *r, size_t i, int width)
{
	struct tkr_buf t = {0};
	cause_raw(&t, r, i, width);
	tkr_safe(b, t.p ? t.p : "");
	b->oom |= t.oom;
	free(t.p);
}

/* The headline: the verdict and, on a regression, the first failure with its likely cause. */
static void headline(struct tkr_buf *b, const struct tkc_result *r, int width)
{
	if (!r->comparable) {
		tkr_puts(b, "NOT COMPARABLE: ");
		tkr_safe(b, r->reason);
		return;
	}
	if (!r->regressions) {
		tkr_printf(b, "PASS (%zu checked, %zu improved, %zu skipped)", r->passed + r->improvements,
			   r->improvements, r->skipped);
		return;
	}
	const struct tkc_outcome *first = NULL;
	for (size_t i = 0; i < r->n && !first; i++)
		if (r->v[i].status == TKC_FAIL)
			first = &r->v[i];
	tkr_printf(b, "FAIL (%zu regression%s): ", r->regressions, r->regressions == 1 ? "" : "s");
	struct tkr_buf t = {0};
	subject(&t, first, width);
	tkr_safe(b, t.p ? t.p : "");
	free(t.p);
	tkr_puts(b, " ");
	change(b, first);
	tkr_puts(b, " (");
	if (first->low_confidence)
		tkr_puts(b, "low confidence");
	else if (!isnan(first->p))
		p_text(b, first->p);
	else
		tkr_puts(b, "bound");
	tkr_puts(b, ")");
	for (size_t i = 0; i < r->ncauses; i++) {
		tkr_puts(b, i ? ", " : ": ");
		cause(b, r, i, width);
	}
}

/* Whether text and Markdown list the outcome on its own line (passing kernels are counted). */
static int listed(const struct tkc_outcome *o)
{
	return !o->item || o->status != TKC_PASS;
}

static void runs_text(struct tkr_buf *b, const char *what, const struct tkc_summary *s)
{
	char models[512];
	tkc_models_text(s->models, s->nmodels, models, sizeof(models));
	tkr_printf(b, "%s: %zu run%s (", what, s->nruns, s->nruns == 1 ? "" : "s");
	for (size_t i = 0; i < s->nruns && i < 4; i++) {
		tkr_puts(b, i ? ", " : "");
		tkr_safe(b, s->runs[i].input);
	}
	tkr_puts(b, s->nruns > 4 ? ", ...), " : "), ");
	int64_t steps = 0;
	for (size_t i = 0; i < s->nruns; i++)
		steps += s->runs[i].steps;
	if (s->has_steps)
		tkr_printf(b, "%lld steps", (long long)steps);
	else
		tkr_puts(b, "no steps (whole windows)");
	tkr_puts(b, ", ");
	tkr_safe(b, models);
	tkr_puts(b, "\n");
}

static void write_text(struct tkr_buf *b, const struct tkr_check_view *v)
{
	const struct tkc_result *r = v->r;
	tkr_puts(b, "tracekit check: ");
	headline(b, r, 60);
	tkr_puts(b, "\n");
	if (v->base)
		runs_text(b, "baseline", v->base);
	runs_text(b, "input", v->cur);
	if (r->hardware[0]) {
		tkr_puts(b, "different hardware, compared as asked: ");
		tkr_safe(b, r->hardware);
		tkr_puts(b, "\n");
	}
	if (!r->comparable)
		return;
	tkr_puts(b, "\n");
	size_t quiet = 0;
	for (size_t i = 0; i < r->n; i++) {
		const struct tkc_outcome *o = &r->v[i];
		if (!listed(o)) {
			quiet++;
			continue;
		}
		struct tkr_buf t = {0};
		outcome_line(&t, o, 60);
		tkr_printf(b, "%-8s ", status_name(o->status));
		tkr_safe(b, o->gate->text);
		tkr_puts(b, "  ");
		tkr_safe(b, t.p ? t.p : "");
		b->oom |= t.oom;
		free(t.p);
		if (o->why[0] && o->status != TKC_NEW && o->status != TKC_GONE) {
			tkr_puts(b, ": ");
			tkr_safe(b, o->why);
		}
		tkr_puts(b, "\n");
	}
	if (quiet)
		tkr_printf(b, "pass     %zu kernel%s and op%s within their gates\n", quiet,
			   quiet == 1 ? "" : "s", quiet == 1 ? "" : "s");
}

/* ---- Markdown ---- */

static void write_md(struct tkr_buf *b, const struct tkr_check_view *v)
{
	const struct tkc_result *r = v->r;
	struct tkr_buf h = {0};
	headline(&h, r, 60);
	tkr_puts(b, "# tracekit check\n\n**");
	tkr_md_str(b, h.p ? h.p : "");
	b->oom |= h.oom;
	free(h.p);
	tkr_puts(b, "**\n\n");
	struct tkr_buf t = {0};
	if (v->base)
		runs_text(&t, "baseline", v->base);
	runs_text(&t, "input", v->cur);
	for (char *line = t.p; line && *line;) {
		char *nl = strchr(line, '\n');
		if (nl)
			*nl = '\0';
		tkr_puts(b, "- ");
		tkr_md_str(b, line);
		tkr_puts(b, "\n");
		line = nl ? nl + 1 : NULL;
	}
	b->oom |= t.oom;
	free(t.p);
	if (r->hardware[0]) {
		tkr_puts(b, "- different hardware, compared as asked: ");
		tkr_md_str(b, r->hardware);
		tkr_puts(b, "\n");
	}
	if (!r->comparable)
		return;
	tkr_puts(b, "\n| status | gate | subject | baseline | input | change | p | note |\n"
		    "|---|---|---|---:|---:|---:|---:|---|\n");
	size_t quiet = 0;
	for (size_t i = 0; i < r->n; i++) {
		const struct tkc_outcome *o = &r->v[i];
		if (!listed(o)) {
			quiet++;
			continue;
		}
		struct tkr_buf c[5] = {{0}};
		subject(&c[0], o, 60);
		value(&c[1], o, o->gate->kind == TKC_GATE_REL ? o->base : o->limit);
		value(&c[2], o, o->cur);
		if (o->gate->kind == TKC_GATE_REL && o->status != TKC_SKIPPED)
			change(&c[3], o);
		if (!isnan(o->p))
			p_text(&c[4], o->p);
		tkr_printf(b, "| %s%s%s | ", o->status == TKC_FAIL ? "**" : "",
			   status_name(o->status), o->status == TKC_FAIL ? "**" : "");
		tkr_md_str(b, o->gate->text);
		for (int k = 0; k < 5; k++) {
			tkr_puts(b, " | ");
			tkr_md_str(b, c[k].p ? c[k].p : "");
			b->oom |= c[k].oom;
			free(c[k].p);
		}
		tkr_puts(b, " | ");
		tkr_md_str(b, o->why);
		tkr_puts(b, " |\n");
	}
	if (quiet)
		tkr_printf(b, "\n%zu kernels and ops within their gates.\n", quiet);
}

/* ---- JSON ---- */

static void jnum(struct tkr_buf *b, double v)
{
	if (isnan(v) || isinf(v))
		tkr_puts(b, "null");
	else
		tkr_json_real(b, v);
}

static void jside(struct tkr_buf *b, const struct tkc_summary *s)
{
	if (!s) {
		tkr_puts(b, "null");
		return;
	}
	int64_t steps = 0;
	for (size_t i = 0; i < s->nruns; i++)
		steps += s->runs[i].steps;
	tkr_printf(b, "{\"runs\": %zu, \"steps\": %lld, \"has_steps\": %s, \"devices\": %lld, \"models\": [",
		   s->nruns, (long long)steps, s->has_steps ? "true" : "false", (long long)s->devices);
	for (size_t i = 0; i < s->nmodels; i++) {
		tkr_puts(b, i ? ", {\"model\": " : "{\"model\": ");
		tkr_json_str(b, s->models[i].model);
		tkr_printf(b, ", \"count\": %lld}", (long long)s->models[i].count);
	}
	tkr_puts(b, "], \"inputs\": [");
	for (size_t i = 0; i < s->nruns; i++) {
		tkr_puts(b, i ? ", " : "");
		tkr_json_str(b, s->runs[i].input);
	}
	tkr_puts(b, "]}");
}

static void write_json(struct tkr_buf *b, const struct tkr_check_view *v)
{
	const struct tkc_result *r = v->r;
	static const char *const kinds[] = {"relative", "max", "min"};
	tkr_printf(b, "{\n  \"format\": \"tracekit-check\",\n  \"version\": 1,\n  \"verdict\": \"%s\",\n",
		   verdict_name(r));
	tkr_puts(b, "  \"reason\": ");
	if (r->comparable)
		tkr_puts(b, "null");
	else
		tkr_json_str(b, r->reason);
	tkr_puts(b, ",\n  \"hardware\": ");
	if (r->hardware[0])
		tkr_json_str(b, r->hardware);
	else
		tkr_puts(b, "null");
	tkr_printf(b, ",\n  \"regressions\": %zu,\n  \"improvements\": %zu,\n  \"passed\": %zu,\n"
		      "  \"skipped\": %zu,\n  \"causes\": ",
		   r->regressions, r->improvements, r->passed, r->skipped);
	tkr_puts(b, "[");
	for (size_t i = 0; i < r->ncauses; i++) {
		tkr_puts(b, i ? ", {\"kernel\": " : "{\"kernel\": ");
		tkr_json_str(b, r->causes[i].name);
		tkr_puts(b, ", \"baseline_ns_per_step\": ");
		jnum(b, r->causes[i].base_ns);
		tkr_puts(b, ", \"input_ns_per_step\": ");
		jnum(b, r->causes[i].cur_ns);
		tkr_puts(b, "}");
	}
	tkr_puts(b, "]");
	tkr_puts(b, ",\n  \"baseline\": ");
	jside(b, v->base);
	tkr_puts(b, ",\n  \"input\": ");
	jside(b, v->cur);
	tkr_puts(b, ",\n  \"overlap\": ");
	if (v->base && r->comparable) {
		tkr_puts(b, "{\"baseline\": ");
		jnum(b, r->overlap_base);
		tkr_puts(b, ", \"input\": ");
		jnum(b, r->overlap_cur);
		tkr_puts(b, "}");
	} else {
		tkr_puts(b, "null");
	}
	tkr_puts(b, ",\n  \"gates\": [");
	for (size_t i = 0; i < r->n; i++) {
		const struct tkc_outcome *o = &r->v[i];
		tkr_puts(b, i ? ",\n    {\"gate\": " : "\n    {\"gate\": ");
		tkr_json_str(b, o->gate->text);
		tkr_printf(b, ", \"kind\": \"%s\", \"default\": %s, \"metric\": ", kinds[o->gate->kind],
			   o->gate->is_default ? "true" : "false");
		tkr_json_str(b, o->gate->metric);
		tkr_puts(b, ", \"subject\": ");
		tkr_json_str(b, o->subject);
		tkr_puts(b, ", \"unit\": ");
		tkr_json_str(b, o->unit);
		const char *names[] = {"baseline", "input", "change", "delta", "limit", "noise",
				       "p_value"};
		double vals[] = {o->base, o->cur, o->change, o->delta, o->limit, o->noise, o->p};
		for (int k = 0; k < 7; k++) {
			tkr_printf(b, ", \"%s\": ", names[k]);
			jnum(b, vals[k]);
		}
		tkr_printf(b, ", \"low_confidence\": %s, \"samples\": {\"baseline\": %zu, \"input\": %zu}, "
			      "\"status\": \"%s\", \"why\": ",
			   o->low_confidence ? "true" : "false", o->nbase, o->ncur,
			   status_name(o->status));
		tkr_json_str(b, o->why);
		tkr_puts(b, "}");
	}
	tkr_puts(b, r->n ? "\n  ]\n}\n" : "]\n}\n");
}

/* ---- JUnit XML ---- */

static void xml(struct tkr_buf *b, const char *s)
{
	struct tkr_buf t = {0};
	tkr_safe(&t, s);
	for (const char *p = t.p ? t.p : ""; *p; p++) {
		const char *e = *p == '&'    ? "&amp;"
				: *p == '<'  ? "&lt;"
				: *p == '>'  ? "&gt;"
				: *p == '"'  ? "&quot;"
				: *p == '\'' ? "&apos;"
					     : NULL;
		if (e)
			tkr_puts(b, e);
		else
			tkr_putn(b, p, 1);
	}
	b->oom |= t.oom;
	free(t.p);
}

static void write_junit(struct tkr_buf *b, const struct tkr_check_view *v)
{
	const struct tkc_result *r = v->r;
	size_t ngates = 0, failures = 0, skipped = 0;
	const struct tkc_gate *last = NULL;
	/* one test case per gate: outcomes of one gate are adjacent */
	for (size_t i = 0; i < r->n; i++)
		if (r->v[i].gate != last) {
			last = r->v[i].gate;
			ngates++;
			int fail = 0, all_skipped = 1;
			for (size_t j = i; j < r->n && r->v[j].gate == last; j++) {
				fail |= r->v[j].status == TKC_FAIL;
				all_skipped &= r->v[j].status == TKC_SKIPPED;
			}
			failures += fail;
			skipped += !fail && all_skipped;
		}
	if (!r->comparable) {
		ngates = failures = 1;
		skipped = 0;
	}
	tkr_printf(b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"tracekit check\" "
		      "tests=\"%zu\" failures=\"%zu\">\n  <testsuite name=\"tracekit check\" "
		      "tests=\"%zu\" failures=\"%zu\" skipped=\"%zu\">\n",
		   ngates, failures, ngates, failures, skipped);
	if (!r->comparable) {
		tkr_puts(b, "    <testcase classname=\"tracekit.check\" name=\"comparable\">\n"
			    "      <failure message=\"not comparable: ");
		xml(b, r->reason);
		tkr_puts(b, "\"/>\n    </testcase>\n  </testsuite>\n</testsuites>\n");
		return;
	}
	for (size_t i = 0; i < r->n;) {
		const struct tkc_gate *g = r->v[i].gate;
		size_t j = i, nfail = 0, nskip = 0;
		for (; j < r->n && r->v[j].gate == g; j++) {
			nfail += r->v[j].status == TKC_FAIL;
			nskip += r->v[j].status == TKC_SKIPPED;
		}
		tkr_puts(b, "    <testcase classname=\"tracekit.check\" name=\"");
		xml(b, g->text);
		tkr_puts(b, "\">\n");
		struct tkr_buf d = {0};
		for (size_t k = i; k < j; k++) {
			const struct tkc_outcome *o = &r->v[k];
			if (nfail && o->status != TKC_FAIL)
				continue;
			struct tkr_buf line = {0};
			tkr_printf(&line, "%s: ", status_name(o->status));
			outcome_line(&line, o, 0);
			tkr_printf(&line, ": %s", o->why);
			xml(&d, line.p ? line.p : "");
			tkr_puts(&d, "\n");
			d.oom |= line.oom;
			free(line.p);
		}
		if (nfail) {
			tkr_printf(b, "      <failure message=\"%zu regression%s\">", nfail,
				   nfail == 1 ? "" : "s");
			tkr_puts(b, d.p ? d.p : "");
			tkr_puts(b, "</failure>\n");
		} else if (nskip == j - i) {
			tkr_puts(b, "      <skipped message=\"");
			xml(b, r->v[i].why);
			tkr_puts(b, "\"/>\n");
		} else {
			tkr_puts(b, "      <system-out>");
			tkr_puts(b, d.p ? d.p : "");
			tkr_puts(b, "</system-out>\n");
		}
		b->oom |= d.oom;
		free(d.p);
		tkr_puts(b, "    </testcase>\n");
		i = j;
	}
	tkr_puts(b, "  </testsuite>\n</testsuites>\n");
}

/* ---- GitHub Actions annotations ---- */

/* Workflow-command data: %, CR and LF escaped (docs: "::error title=T::message"). */
static void gh(struct tkr_buf *b, const char *s, int property)
{
	for (; *s; s++) {
		if (*s == '%')
			tkr_puts(b, "%25");
		else if (*s == '\r')
			tkr_puts(b, "%0D");
		else if (*s == '\n')
			tkr_puts(b, "%0A");
		else if (property && *s == ':')
			tkr_puts(b, "%3A");
		else if (property && *s == ',')
			tkr_puts(b, "%2C");
		else
			tkr_putn(b, s, 1);
	}
}

static void write_github(struct tkr_buf *b, const struct tkr_check_view *v)
{
	const struct tkc_result *r = v->r;
	if (!r->comparable) {
		tkr_puts(b, "::error title=tracekit check: not comparable::");
		gh(b, r->reason, 0);
		tkr_puts(b, "\n");
		return;
	}
	for (size_t i = 0; i < r->n; i++) {
		const struct tkc_outcome *o = &r->v[i];
		if (o->status != TKC_FAIL && o->status != TKC_IMPROVED)
			continue;
		struct tkr_buf t = {0}, title = {0};
		outcome_line(&t, o, 0);
		tkr_printf(&t, ": %s", o->why);
		tkr_puts(&title, "tracekit check ");
		tkr_puts(&title, o->gate->text);
		tkr_puts(b, o->status == TKC_FAIL ? "::error title=" : "::notice title=");
		gh(b, title.p ? title.p : "", 1);
		tkr_puts(b, "::");
		gh(b, t.p ? t.p : "", 0);
		tkr_puts(b, "\n");
		b->oom |= t.oom | title.oom;
		free(t.p);
		free(title.p);
	}
}

int tkr_check_write(FILE *out, const struct tkr_check_view *v, enum tk_check_format f)
{
	struct tkr_buf b = {0};
	switch (f) {
	case TK_CHECK_JSON:
		write_json(&b, v);
		break;
	case TK_CHECK_MD:
		write_md(&b, v);
		break;
	case TK_CHECK_JUNIT:
		write_junit(&b, v);
		break;
	case TK_CHECK_GITHUB:
		write_github(&b, v);
		break;
	default:
		write_text(&b, v);
	}
	int rc = tkr_flush(out, &b);
	free(b.p);
	return rc;
}

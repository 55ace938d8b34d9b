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
static void subject(struct tku_buf *b, const struct tkc_outcome *o, int width)
{
	if (o->item) {
		tku_puts(b, o->item == 1 ? "kernel " : "op ");
		if (width > 0)
			tkr_short_name(b, o->subject, width);
		else
			tku_puts(b, o->subject);
		return;
	}
	for (const char *p = o->subject; *p; p++)
		tku_putn(b, *p == '_' ? " " : p, 1);
}

/* A value in the outcome's unit ("77.10 ms", "1.20 GiB", "81.3 %"); items per step. */
static void value(struct tku_buf *b, const struct tkc_outcome *o, double v)
{
	if (isnan(v))
		tku_puts(b, "n/a");
	else if (!strcmp(o->unit, "ns"))
		tku_fmt_ns(b, v);
	else if (!strcmp(o->unit, "bytes"))
		tku_fmt_bytes(b, v, 2, TKU_PIB);
	else if (!strcmp(o->unit, "%"))
		tku_printf(b, "%.1f %%", v);
	else
		tku_printf(b, "%.4g", v);
	if (o->item && !isnan(v))
		tku_puts(b, "/step");
}

/* "+7.8 %" (or "+2.1 pt" for percentages of a pt gate), the p-value and the sample counts. */
static void change(struct tku_buf *b, const struct tkc_outcome *o)
{
	if (o->gate->unit == TKC_UNIT_PT && !isnan(o->delta))
		tku_printf(b, "%+.1f pt", o->delta);
	else if (!isnan(o->change))
		tku_printf(b, "%+.1f %%", 100 * o->change);
	else if (!isnan(o->delta)) {
		tku_puts(b, o->delta >= 0 ? "+" : "");
		value(b, o, o->delta);
	} else
		tku_puts(b, "n/a");
}

static void p_text(struct tku_buf *b, double p)
{
	if (p < 0.001)
		tku_puts(b, "p < 0.001");
	else
		tku_printf(b, "p = %.3f", p);
}

/* One outcome on a line: "step time 77.10 ms -> 83.11 ms (+7.8 %, p < 0.001, 20 vs 20 steps)". */
static void outcome_line(struct tku_buf *b, const struct tkc_outcome *o, int width)
{
	subject(b, o, width);
	tku_puts(b, " ");
	if (o->gate->kind != TKC_GATE_REL) {
		value(b, o, o->cur);
		tku_printf(b, " (%s ", o->gate->kind == TKC_GATE_MAX ? "max" : "min");
		value(b, o, o->limit);
		tku_puts(b, ")");
		return;
	}
	if (o->status == TKC_NEW) {
		tku_puts(b, "new: ");
		value(b, o, o->cur);
		return;
	}
	value(b, o, o->base);
	tku_puts(b, " -> ");
	value(b, o, o->cur);
	if (o->status == TKC_SKIPPED)
		return;
	tku_puts(b, " (");
	change(b, o);
	if (!isnan(o->p)) {
		tku_puts(b, ", ");
		p_text(b, o->p);
	}
	if (o->nbase || o->ncur)
		tku_printf(b, ", %zu vs %zu samples", o->nbase, o->ncur);
	tku_puts(b, ")");
}

/* Cause @i: "kernel X +23.0 % (+1.10 ms/step)" or "new kernel Y 1.20 ms/step" (not escaped). */
static void cause_raw(struct tku_buf *b, const struct tkc_result *r, size_t i, int width)
{
	double base = r->causes[i].base_ns, cur = r->causes[i].cur_ns;
	tku_puts(b, base > 0 ? "kernel " : "new kernel ");
	if (width > 0)
		tkr_short_name(b, r->causes[i].name, width);
	else
		tku_puts(b, r->causes[i].name);
	if (base > 0) {
		tku_printf(b, " %+.1f %% (+", 100 * (cur / base - 1));
		tku_fmt_ns(b, cur - base);
		tku_puts(b, "/step)");
	} else {
		tku_puts(b, " ");
		tku_fmt_ns(b, cur);
		tku_puts(b, "/step");
	}
}

static void cause(struct tku_buf *b, const struct tkc_result *r, size_t i, int width)
{
	struct tku_buf t = {0};
	cause_raw(&t, r, i, width);
	tku_esc_terminal(b, t.p ? t.p : "");
	b->oom |= t.oom;
	free(t.p);
}

/* The headline: the verdict and, on a regression, the first failure with its likely cause. */
static void headline(struct tku_buf *b, const struct tkc_result *r, int width)
{
	if (!r->comparable) {
		tku_puts(b, "NOT COMPARABLE: ");
		tku_esc_terminal(b, r->reason);
		return;
	}
	if (!r->regressions) {
		tku_printf(b, "PASS (%zu checked, %zu improved, %zu skipped)",
			   r->passed + r->improvements, r->improvements, r->skipped);
		return;
	}
	const struct tkc_outcome *first = NULL;
	for (size_t i = 0; i < r->n && !first; i++)
		if (r->v[i].status == TKC_FAIL)
			first = &r->v[i];
	tku_printf(b, "FAIL (%zu regression%s): ", r->regressions, r->regressions == 1 ? "" : "s");
	struct tku_buf t = {0};
	subject(&t, first, width);
	tku_esc_terminal(b, t.p ? t.p : "");
	free(t.p);
	tku_puts(b, " ");
	change(b, first);
	tku_puts(b, " (");
	if (first->low_confidence)
		tku_puts(b, "low confidence");
	else if (!isnan(first->p))
		p_text(b, first->p);
	else
		tku_puts(b, "bound");
	tku_puts(b, ")");
	for (size_t i = 0; i < r->ncauses; i++) {
		tku_puts(b, i ? ", " : ": ");
		cause(b, r, i, width);
	}
}

/* Whether text and Markdown list the outcome on its own line (passing kernels are counted). */
static int listed(const struct tkc_outcome *o)
{
	return !o->item || o->status != TKC_PASS;
}

static void runs_text(struct tku_buf *b, const char *what, const struct tkc_summary *s)
{
	char models[512];
	tkc_models_text(s->models, s->nmodels, models, sizeof(models));
	tku_printf(b, "%s: %zu run%s (", what, s->nruns, s->nruns == 1 ? "" : "s");
	for (size_t i = 0; i < s->nruns && i < 4; i++) {
		tku_puts(b, i ? ", " : "");
		tku_esc_terminal(b, s->runs[i].input);
	}
	tku_puts(b, s->nruns > 4 ? ", ...), " : "), ");
	int64_t steps = 0;
	for (size_t i = 0; i < s->nruns; i++)
		steps += s->runs[i].steps;
	if (s->has_steps)
		tku_printf(b, "%lld steps", (long long)steps);
	else
		tku_puts(b, "no steps (whole windows)");
	tku_puts(b, ", ");
	tku_esc_terminal(b, models);
	tku_puts(b, "\n");
}

static void write_text(struct tku_buf *b, const struct tkr_check_view *v)
{
	const struct tkc_result *r = v->r;
	tku_puts(b, "tracekit check: ");
	headline(b, r, 60);
	tku_puts(b, "\n");
	if (v->base)
		runs_text(b, "baseline", v->base);
	runs_text(b, "input", v->cur);
	if (r->hardware[0]) {
		tku_puts(b, "different hardware, compared as asked: ");
		tku_esc_terminal(b, r->hardware);
		tku_puts(b, "\n");
	}
	if (!r->comparable)
		return;
	tku_puts(b, "\n");
	size_t quiet = 0;
	for (size_t i = 0; i < r->n; i++) {
		const struct tkc_outcome *o = &r->v[i];
		if (!listed(o)) {
			quiet++;
			continue;
		}
		struct tku_buf t = {0};
		outcome_line(&t, o, 60);
		tku_printf(b, "%-8s ", status_name(o->status));
		tku_esc_terminal(b, o->gate->text);
		tku_puts(b, "  ");
		tku_esc_terminal(b, t.p ? t.p : "");
		b->oom |= t.oom;
		free(t.p);
		if (o->why[0] && o->status != TKC_NEW && o->status != TKC_GONE) {
			tku_puts(b, ": ");
			tku_esc_terminal(b, o->why);
		}
		tku_puts(b, "\n");
	}
	if (quiet)
		tku_printf(b, "pass     %zu kernel%s and op%s within their gates\n", quiet,
			   quiet == 1 ? "" : "s", quiet == 1 ? "" : "s");
}

/* ---- Markdown ---- */

static void write_md(struct tku_buf *b, const struct tkr_check_view *v)
{
	const struct tkc_result *r = v->r;
	struct tku_buf h = {0};
	headline(&h, r, 60);
	tku_puts(b, "# tracekit check\n\n**");
	tku_esc_md(b, h.p ? h.p : "");
	b->oom |= h.oom;
	free(h.p);
	tku_puts(b, "**\n\n");
	struct tku_buf t = {0};
	if (v->base)
		runs_text(&t, "baseline", v->base);
	runs_text(&t, "input", v->cur);
	for (char *line = t.p; line && *line;) {
		char *nl = strchr(line, '\n');
		if (nl)
			*nl = '\0';
		tku_puts(b, "- ");
		tku_esc_md(b, line);
		tku_puts(b, "\n");
		line = nl ? nl + 1 : NULL;
	}
	b->oom |= t.oom;
	free(t.p);
	if (r->hardware[0]) {
		tku_puts(b, "- different hardware, compared as asked: ");
		tku_esc_md(b, r->hardware);
		tku_puts(b, "\n");
	}
	if (!r->comparable)
		return;
	tku_puts(b, "\n| status | gate | subject | baseline | input | change | p | note |\n"
		    "|---|---|---|---:|---:|---:|---:|---|\n");
	size_t quiet = 0;
	for (size_t i = 0; i < r->n; i++) {
		const struct tkc_outcome *o = &r->v[i];
		if (!listed(o)) {
			quiet++;
			continue;
		}
		struct tku_buf c[5] = {{0}};
		subject(&c[0], o, 60);
		value(&c[1], o, o->gate->kind == TKC_GATE_REL ? o->base : o->limit);
		value(&c[2], o, o->cur);
		if (o->gate->kind == TKC_GATE_REL && o->status != TKC_SKIPPED)
			change(&c[3], o);
		if (!isnan(o->p))
			p_text(&c[4], o->p);
		tku_printf(b, "| %s%s%s | ", o->status == TKC_FAIL ? "**" : "",
			   status_name(o->status), o->status == TKC_FAIL ? "**" : "");
		tku_esc_md(b, o->gate->text);
		for (int k = 0; k < 5; k++) {
			tku_puts(b, " | ");
			tku_esc_md(b, c[k].p ? c[k].p : "");
			b->oom |= c[k].oom;
			free(c[k].p);
		}
		tku_puts(b, " | ");
		tku_esc_md(b, o->why);
		tku_puts(b, " |\n");
	}
	if (quiet)
		tku_printf(b, "\n%zu kernels and ops within their gates.\n", quiet);
}

/* ---- JSON ---- */

static void jside(struct tku_buf *b, const struct tkc_summary *s)
{
	if (!s) {
		tku_puts(b, "null");
		return;
	}
	int64_t steps = 0;
	for (size_t i = 0; i < s->nruns; i++)
		steps += s->runs[i].steps;
	tku_printf(
	    b,
	    "{\"runs\": %zu, \"steps\": %lld, \"has_steps\": %s, \"devices\": %lld, \"models\": [",
	    s->nruns, (long long)steps, s->has_steps ? "true" : "false", (long long)s->devices);
	for (size_t i = 0; i < s->nmodels; i++) {
		tku_puts(b, i ? ", {\"model\": " : "{\"model\": ");
		tku_esc_json(b, s->models[i].model);
		tku_printf(b, ", \"count\": %lld}", (long long)s->models[i].count);
	}
	tku_puts(b, "], \"inputs\": [");
	for (size_t i = 0; i < s->nruns; i++) {
		tku_puts(b, i ? ", " : "");
		tku_esc_json(b, s->runs[i].input);
	}
	tku_puts(b, "]}");
}

static void write_json(struct tku_buf *b, const struct tkr_check_view *v)
{
	const struct tkc_result *r = v->r;
	static const char *const kinds[] = {"relative", "max", "min"};
	tku_printf(
	    b, "{\n  \"format\": \"tracekit-check\",\n  \"version\": 1,\n  \"verdict\": \"%s\",\n",
	    verdict_name(r));
	tku_puts(b, "  \"reason\": ");
	if (r->comparable)
		tku_puts(b, "null");
	else
		tku_esc_json(b, r->reason);
	tku_puts(b, ",\n  \"hardware\": ");
	if (r->hardware[0])
		tku_esc_json(b, r->hardware);
	else
		tku_puts(b, "null");
	tku_printf(b,
		   ",\n  \"regressions\": %zu,\n  \"improvements\": %zu,\n  \"passed\": %zu,\n"
		   "  \"skipped\": %zu,\n  \"causes\": ",
		   r->regressions, r->improvements, r->passed, r->skipped);
	tku_puts(b, "[");
	for (size_t i = 0; i < r->ncauses; i++) {
		tku_puts(b, i ? ", {\"kernel\": " : "{\"kernel\": ");
		tku_esc_json(b, r->causes[i].name);
		tku_puts(b, ", \"baseline_ns_per_step\": ");
		tku_fmt_json_real(b, r->causes[i].base_ns);
		tku_puts(b, ", \"input_ns_per_step\": ");
		tku_fmt_json_real(b, r->causes[i].cur_ns);
		tku_puts(b, "}");
	}
	tku_puts(b, "]");
	tku_puts(b, ",\n  \"baseline\": ");
	jside(b, v->base);
	tku_puts(b, ",\n  \"input\": ");
	jside(b, v->cur);
	tku_puts(b, ",\n  \"overlap\": ");
	if (v->base && r->comparable) {
		tku_puts(b, "{\"baseline\": ");
		tku_fmt_json_real(b, r->overlap_base);
		tku_puts(b, ", \"input\": ");
		tku_fmt_json_real(b, r->overlap_cur);
		tku_puts(b, "}");
	} else {
		tku_puts(b, "null");
	}
	tku_puts(b, ",\n  \"gates\": [");
	for (size_t i = 0; i < r->n; i++) {
		const struct tkc_outcome *o = &r->v[i];
		tku_puts(b, i ? ",\n    {\"gate\": " : "\n    {\"gate\": ");
		tku_esc_json(b, o->gate->text);
		tku_printf(b, ", \"kind\": \"%s\", \"default\": %s, \"metric\": ",
			   kinds[o->gate->kind], o->gate->is_default ? "true" : "false");
		tku_esc_json(b, o->gate->metric);
		tku_puts(b, ", \"subject\": ");
		tku_esc_json(b, o->subject);
		tku_puts(b, ", \"unit\": ");
		tku_esc_json(b, o->unit);
		const char *names[] = {"baseline", "input", "change", "delta",
				       "limit",	   "noise", "p_value"};
		double vals[] = {o->base, o->cur, o->change, o->delta, o->limit, o->noise, o->p};
		for (int k = 0; k < 7; k++) {
			tku_printf(b, ", \"%s\": ", names[k]);
			tku_fmt_json_real(b, vals[k]);
		}
		tku_printf(
		    b,
		    ", \"low_confidence\": %s, \"samples\": {\"baseline\": %zu, \"input\": %zu}, "
		    "\"status\": \"%s\", \"why\": ",
		    o->low_confidence ? "true" : "false", o->nbase, o->ncur,
		    status_name(o->status));
		tku_esc_json(b, o->why);
		tku_puts(b, "}");
	}
	tku_puts(b, r->n ? "\n  ]\n}\n" : "]\n}\n");
}

/* ---- JUnit XML ---- */

static void write_junit(struct tku_buf *b, const struct tkr_check_view *v)
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
	tku_printf(
	    b,
	    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"tracekit check\" "
	    "tests=\"%zu\" failures=\"%zu\">\n  <testsuite name=\"tracekit check\" "
	    "tests=\"%zu\" failures=\"%zu\" skipped=\"%zu\">\n",
	    ngates, failures, ngates, failures, skipped);
	if (!r->comparable) {
		tku_puts(b, "    <testcase classname=\"tracekit.check\" name=\"comparable\">\n"
			    "      <failure message=\"not comparable: ");
		tku_esc_xml(b, r->reason);
		tku_puts(b, "\"/>\n    </testcase>\n  </testsuite>\n</testsuites>\n");
		return;
	}
	for (size_t i = 0; i < r->n;) {
		const struct tkc_gate *g = r->v[i].gate;
		size_t j = i, nfail = 0, nskip = 0;
		for (; j < r->n && r->v[j].gate == g; j++) {
			nfail += r->v[j].status == TKC_FAIL;
			nskip += r->v[j].status == TKC_SKIPPED;
		}
		tku_puts(b, "    <testcase classname=\"tracekit.check\" name=\"");
		tku_esc_xml(b, g->text);
		tku_puts(b, "\">\n");
		struct tku_buf d = {0};
		for (size_t k = i; k < j; k++) {
			const struct tkc_outcome *o = &r->v[k];
			if (nfail && o->status != TKC_FAIL)
				continue;
			struct tku_buf line = {0};
			tku_printf(&line, "%s: ", status_name(o->status));
			outcome_line(&line, o, 0);
			tku_printf(&line, ": %s", o->why);
			tku_esc_xml(&d, line.p ? line.p : "");
			tku_puts(&d, "\n");
			d.oom |= line.oom;
			free(line.p);
		}
		if (nfail) {
			tku_printf(b, "      <failure message=\"%zu regression%s\">", nfail,
				   nfail == 1 ? "" : "s");
			tku_puts(b, d.p ? d.p : "");
			tku_puts(b, "</failure>\n");
		} else if (nskip == j - i) {
			tku_puts(b, "      <skipped message=\"");
			tku_esc_xml(b, r->v[i].why);
			tku_puts(b, "\"/>\n");
		} else {
			tku_puts(b, "      <system-out>");
			tku_puts(b, d.p ? d.p : "");
			tku_puts(b, "</system-out>\n");
		}
		b->oom |= d.oom;
		free(d.p);
		tku_puts(b, "    </testcase>\n");
		i = j;
	}
	tku_puts(b, "  </testsuite>\n</testsuites>\n");
}

/* ---- GitHub Actions annotations ---- */

/* Workflow-command data: %, CR and LF escaped (docs: "::error title=T::message"). */
static void gh(struct tku_buf *b, const char *s, int property)
{
	for (; *s; s++) {
		if (*s == '%')
			tku_puts(b, "%25");
		else if (*s == '\r')
			tku_puts(b, "%0D");
		else if (*s == '\n')
			tku_puts(b, "%0A");
		else if (property && *s == ':')
			tku_puts(b, "%3A");
		else if (property && *s == ',')
			tku_puts(b, "%2C");
		else
			tku_putn(b, s, 1);
	}
}

static void write_github(struct tku_buf *b, const struct tkr_check_view *v)
{
	const struct tkc_result *r = v->r;
	if (!r->comparable) {
		tku_puts(b, "::error title=tracekit check: not comparable::");
		gh(b, r->reason, 0);
		tku_puts(b, "\n");
		return;
	}
	for (size_t i = 0; i < r->n; i++) {
		const struct tkc_outcome *o = &r->v[i];
		if (o->status != TKC_FAIL && o->status != TKC_IMPROVED)
			continue;
		struct tku_buf t = {0}, title = {0};
		outcome_line(&t, o, 0);
		tku_printf(&t, ": %s", o->why);
		tku_puts(&title, "tracekit check ");
		tku_puts(&title, o->gate->text);
		tku_puts(b, o->status == TKC_FAIL ? "::error title=" : "::notice title=");
		gh(b, title.p ? title.p : "", 1);
		tku_puts(b, "::");
		gh(b, t.p ? t.p : "", 0);
		tku_puts(b, "\n");
		b->oom |= t.oom | title.oom;
		free(t.p);
		free(title.p);
	}
}

int tkr_check_write(FILE *out, const struct tkr_check_view *v, enum tk_check_format f)
{
	struct tku_buf b = {0};
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
	int rc = tku_flush(out, &b);
	free(b.p);
	return rc;
}

/*
 * The Markdown report, for CI summaries (GitHub-flavoured tables): every name escaped (|, <, >,
 * &, emphasis characters; control and bidi characters shown as \n, \x1b, \u{202E} so that a row
 * stays on one line; invalid UTF-8 as U+FFFD), names by their short labels (labels.c) fitted in
 * MD_NAME_WIDTH characters (in full with --full-names), findings' evidence in human units,
 * bands marked with a symbol, capped tables followed by how many rows were left out.
 */
#include "report_internal.h"

#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <tracekit/error.h>

#define MD_NAME_WIDTH 100

static const char *band_mark(const char *t)
{
	return !strcmp(t, "good")      ? "\xe2\x9c\x85 "
	       : !strcmp(t, "warning") ? "\xe2\x9a\xa0\xef\xb8\x8f "
	       : !strcmp(t, "bad")     ? "\xe2\x9d\x8c "
				       : "";
}

/* One cell's Markdown text. */
static void cell(struct tku_buf *b, const struct tkr_model *m, const struct tkr_section *s,
		 size_t r, int c)
{
	struct tku_buf v = {0}, sh = {0};
	tkr_format_cell(&v, m, s, r, c);
	const char *t = v.p ? v.p : "";
	if (s->def->cols[c].kind == TKR_BAND)
		tku_puts(b, band_mark(t));
	if (s->def->cols[c].kind == TKR_NAME && !m->full_names) {
		tkr_short_name(&sh, t, MD_NAME_WIDTH);
		t = sh.p ? sh.p : "";
	}
	tku_esc_md(b, t);
	b->oom |= v.oom | sh.oom;
	free(v.p);
	free(sh.p);
}

static const char *text_of(const struct tkr_section *s, size_t r, const char *key)
{
	int c = tkr_col(s, key);
	const struct tkr_cell *x = c >= 0 ? tkr_cell(s, r, c) : NULL;
	return x && x->type == SQLITE_TEXT ? x->s : NULL;
}

static void findings(struct tku_buf *b, const struct tkr_model *m, const struct tkr_section *s)
{
	int name_w = m->full_names ? 0 : MD_NAME_WIDTH;
	for (size_t r = 0; r < s->nrows; r++) {
		const char *sev = text_of(s, r, "severity");
		const struct tkr_ev *ev = r < m->nev ? &m->ev[r] : NULL;
		struct tku_buf where = {0}, sum = {0};
		int sc = tkr_col(s, "summary");
		tku_puts(b, "- **");
		tku_esc_md(b, sev ? sev : "-");
		tku_puts(b, "** ");
		tku_esc_md(b, text_of(s, r, "rule") ? text_of(s, r, "rule") : "-");
		if (tkr_where(&where, m, s, r)) {
			tku_puts(b, " (");
			tku_esc_md(b, where.p);
			tku_puts(b, ")");
		}
		tku_puts(b, ": ");
		if (sc >= 0)
			tkr_format_cell(&sum, m, s, r, sc);
		tku_esc_md(b, sum.p ? sum.p : "");
		tku_puts(b, "\n");
		b->oom |= where.oom | sum.oom;
		free(where.p);
		free(sum.p);
		for (size_t k = 0; ev && k <= ev->ntop; k++) {
			const struct tkr_ev_list *l = k ? &ev->top[k - 1] : &ev->main;
			struct tku_buf line = {0};
			if (!l->n)
				continue;
			tkr_evidence_line(&line, m, l, name_w, 0);
			tku_puts(b, !k ? "  - evidence: " : k == 1 ? "  - top: " : "; ");
			tku_esc_md(b, line.p ? line.p : "");
			if (!k || k == ev->ntop)
				tku_puts(b, "\n");
			b->oom |= line.oom;
			free(line.p);
		}
		if (text_of(s, r, "fix")) {
			tku_puts(b, "  - fix: ");
			tku_esc_md(b, text_of(s, r, "fix"));
			tku_puts(b, "\n");
		}
	}
}
static void table(struct tku_buf *b, const struct tkr_model *m, const struct tkr_section *s)
{
	if (s->def->style == TKR_KV) {
		tku_puts(b, "| | |\n|---|---|\n");
		for (int c = 0; c < s->ncols; c++) {
			if (!tkr_shown(s, c))
				continue;
			tku_puts(b, "| ");
			tku_esc_md(b, s->def->cols[c].title);
			tku_puts(b, " | ");
			cell(b, m, s, 0, c);
			tku_puts(b, " |\n");
		}
		return;
	}
	tku_puts(b, "|");
	for (int c = 0; c < s->ncols; c++) {
		if (tkr_shown(s, c)) {
			tku_puts(b, " ");
			tku_esc_md(b, s->def->cols[c].title);
			tku_puts(b, " |");
		}
	}
	tku_puts(b, "\n|");
	for (int c = 0; c < s->ncols; c++)
		if (tkr_shown(s, c))
			tku_puts(b, tkr_right_aligned(s->def->cols[c].kind) ? "---:|" : "---|");
	tku_puts(b, "\n");
	for (size_t r = 0; r < s->nrows; r++) {
		tku_puts(b, "|");
		for (int c = 0; c < s->ncols; c++) {
			if (!tkr_shown(s, c))
				continue;
			tku_puts(b, " ");
			cell(b, m, s, r, c);
			tku_puts(b, " |");
		}
		tku_puts(b, "\n");
	}
}

int tkr_write_md(FILE *out, const struct tkr_model *m, const struct tk_report_options *o)
{
	struct tku_buf b = {0};
	int rc = TK_OK, grouped = 0;
	(void)o;
	if (m->is_diff) {
		tku_puts(&b, "# tracekit diff\n\n- A (before): ");
		tku_esc_md(&b, m->path);
		tku_puts(&b, "\n- B (after): ");
		tku_esc_md(&b, m->path_b);
		tku_puts(&b, "\n");
	} else {
		tku_puts(&b, "# tracekit report: ");
		tku_esc_md(&b, m->path);
		tku_puts(&b, "\n");
	}
	if (m->verdict.ok) { /* the verdict first (verdict.c) */
		tku_puts(&b, "\n## Verdict\n\n");
		for (int i = 0; i < 3; i++) {
			if (!m->verdict.line[i])
				continue;
			tku_puts(&b, "- ");
			tku_esc_md(&b, m->verdict.line[i]);
			tku_puts(&b, "\n");
		}
	}
	for (size_t i = 0; i < m->nsections && rc == TK_OK; i++) {
		const struct tkr_section *s = &m->sections[i];
		if (s->def->style == TKR_CHART || !s->available || (!s->nrows && !s->def->empty))
			continue;
		if (s->def->group) {
			tku_printf(&b, "\n## ");
			tku_esc_md(&b, s->def->group);
			tku_puts(&b, "\n");
			grouped = 1;
		}
		tku_puts(&b, grouped ? "\n### " : "\n## ");
		tku_esc_md(&b, s->def->title);
		tku_puts(&b, "\n\n");
		if (!s->nrows) {
			tku_printf(&b, "_%s_\n", s->def->empty);
			continue;
		}
		if (s->def->style == TKR_FINDINGS)
			findings(&b, m, s);
		else
			table(&b, m, s);
		if (s->total > (int64_t)s->nrows)
			tku_printf(&b, "\n_Top %zu of %lld shown._\n", s->nrows,
				   (long long)s->total);
		rc = tku_flush(out, &b);
	}
	if (rc == TK_OK)
		rc = tku_flush(out, &b);
	free(b.p);
	return rc;
}

/*
 * The terminal report: aligned tables that fit a given width (the flexible name column takes what
 * the others leave, long C++ names shortened readably, or moved to a line of their own when too
 * little is left), ANSI colours for bands, severities and flags only when asked for, findings as
 * wrapped blocks. Every text from the store is escaped for the terminal (tku_esc_terminal(): no control
 * character, no bidi control, valid UTF-8), so colours are the only escape sequences written.
 * Prints the model; computes nothing.
 */
#include "report_internal.h"

#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <tracekit/error.h>
#include <tracekit/text.h>

#define MIN_FLEX 28 /* below this a flexible column goes on its own line */
#define MIN_TEXT 8  /* a text column is narrowed down to this (or its title) to fit the width */

#define BOLD "\033[1m"
#define DIM "\033[2m"
#define RED "\033[31m"
#define GREEN "\033[32m"
#define YELLOW "\033[33m"
#define RESET "\033[0m"

struct tw {
	struct tku_buf b;
	const struct tkr_model *m;
	int width, color;
};

static void color(struct tw *t, const char *code)
{
	if (t->color)
		tku_puts(&t->b, code);
}

/* The colour of a band, severity or flag cell, or NULL. */
static const char *cell_color(enum tkr_kind k, const char *text)
{
	if (k == TKR_BAND)
		return !strcmp(text, "good")	  ? GREEN
		       : !strcmp(text, "warning") ? YELLOW
		       : !strcmp(text, "bad")	  ? RED
						  : DIM;
	if (k == TKR_SEVERITY)
		return !strcmp(text, "high") ? RED : YELLOW;
	if (k == TKR_FLAG) /* a diff's verdict in the colours of the bands */
		return !strcmp(text, "worse") ? RED : !strcmp(text, "better") ? GREEN : YELLOW;
	return NULL;
}

static void spaces(struct tku_buf *b, int n)
{
	for (int i = 0; i < n; i++)
		tku_putn(b, " ", 1);
}

/* The length of the unit at @p ("ns", "µs", "GiB", ...) when it ends a word there, else 0. */
static size_t unit_word(const char *p)
{
	static const char *const units[] = {"ns",  "\xc2\xb5s", "ms",  "s",   "B",    "KiB",
					    "MiB", "GiB",	"TiB", "PiB", "GB/s", "TFLOP/s"};
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		size_t n = strlen(units[i]);
		if (!strncmp(p, units[i], n) && (!p[n] || strchr(" ,;)", p[n])))
			return strcspn(p, " ");
	}
	return 0;
}

/* @text (escaped as tku_esc_terminal() does) wrapped at spaces into lines of @width, the first after
 * @first_indent characters already written, the others indented by @indent. */
static void wrap(struct tku_buf *b, const char *text, int indent, int first_used, int width)
{
	int col = first_used, avail = width > indent + 20 ? width : indent + 20, start = 1;
	struct tku_buf safe = {0};
	tku_esc_terminal(&safe, text);
	b->oom |= safe.oom;
	const char *p = safe.p ? safe.p : "";
	while (*p) {
		const char *sp = strchr(p, ' ');
		size_t n = sp ? (size_t)(sp - p) : strlen(p), u;
		while (p[n] == ' ' && (u = unit_word(p + n + 1)) > 0)
			n += 1 + u; /* "42.00 µs" stays on one line */
		struct tku_buf word = {0};
		tku_putn(&word, p, n);
		int w = word.p ? tkr_width(word.p) : 0;
		if (!start && col + 1 + w > avail) {
			tku_puts(b, "\n");
			spaces(b, indent);
			col = indent;
		} else if (!start) {
			tku_puts(b, " ");
			col++;
		}
		start = 0;
		if (word.p)
			tku_puts(b, word.p);
		col += w;
		free(word.p);
		p += n;
		while (*p == ' ')
			p++;
	}
	tku_puts(b, "\n");
	free(safe.p);
}

static void heading(struct tw *t, const struct tkr_section *s)
{
	if (s->def->group) {
		tku_puts(&t->b, "\n");
		color(t, BOLD);
		tku_printf(&t->b, "== %s ==", s->def->group);
		color(t, RESET);
		tku_puts(&t->b, "\n");
	}
	tku_puts(&t->b, "\n");
	color(t, BOLD);
	tku_puts(&t->b, s->def->title);
	color(t, RESET);
	if (s->total > (int64_t)s->nrows)
		tku_printf(&t->b, " (top %zu of %lld)", s->nrows, (long long)s->total);
	tku_puts(&t->b, "\n");
}

static void kv(struct tw *t, const struct tkr_section *s)
{
	int kw = 0;
	for (int c = 0; c < s->ncols; c++)
		if (tkr_shown(s, c) && tkr_width(s->def->cols[c].title) > kw)
			kw = tkr_width(s->def->cols[c].title);
	for (int c = 0; c < s->ncols; c++) {
		if (!tkr_shown(s, c))
			continue;
		struct tku_buf v = {0};
		tkr_format_cell(&v, t->m, s, 0, c);
		tku_printf(&t->b, "  %s:", s->def->cols[c].title);
		spaces(&t->b, kw - tkr_width(s->def->cols[c].title) + 1);
		wrap(&t->b, v.p ? v.p : "", kw + 4, kw + 4, t->width);
		t->b.oom |= v.oom;
		free(v.p);
	}
}

static const char *text_of(const struct tkr_section *s, size_t r, const char *key)
{
	int c = tkr_col(s, key);
	const struct tkr_cell *cell = c >= 0 ? tkr_cell(s, r, c) : NULL;
	return cell && cell->type == SQLITE_TEXT ? cell->s : NULL;
}

/* The width names in evidence lines are fitted to (0 = --full-names: not fitted). */
static int ev_name_width(const struct tw *t, int indent)
{
	int w = t->width - indent;
	return t->m->full_names ? 0 : w < 24 ? 24 : w;
}

static void findings(struct tw *t, const struct tkr_section *s)
{
	for (size_t r = 0; r < s->nrows; r++) {
		const char *sev = text_of(s, r, "severity"), *rule = text_of(s, r, "rule");
		const struct tkr_ev *ev = r < t->m->nev ? &t->m->ev[r] : NULL;
		struct tku_buf where = {0};
		int sc = tkr_col(s, "summary");
		tku_puts(&t->b, "\n  ");
		color(t, cell_color(TKR_SEVERITY, sev ? sev : ""));
		tku_puts(&t->b, "[");
		tku_esc_terminal(&t->b, sev ? sev : "-");
		tku_puts(&t->b, "]");
		color(t, RESET);
		tku_puts(&t->b, " ");
		color(t, BOLD);
		tku_esc_terminal(&t->b, rule ? rule : "-");
		color(t, RESET);
		if (tkr_where(&where, t->m, s, r)) {
			tku_puts(&t->b, " (");
			tku_esc_terminal(&t->b, where.p);
			tku_puts(&t->b, ")");
		}
		t->b.oom |= where.oom;
		free(where.p);
		tku_puts(&t->b, "\n    ");
		struct tku_buf sum = {0};
		if (sc >= 0)
			tkr_format_cell(&sum, t->m, s, r, sc);
		wrap(&t->b, sum.p ? sum.p : "", 4, 4, t->width);
		t->b.oom |= sum.oom;
		free(sum.p);
		if (ev && ev->main.n) {
			struct tku_buf line = {0};
			tkr_evidence_line(&line, t->m, &ev->main, ev_name_width(t, 6), 0);
			tku_puts(&t->b, "    evidence: ");
			wrap(&t->b, line.p ? line.p : "", 6, 14, t->width);
			t->b.oom |= line.oom;
			free(line.p);
		}
		for (size_t k = 0; ev && k < ev->ntop; k++) {
			struct tku_buf line = {0};
			tkr_evidence_line(&line, t->m, &ev->top[k], ev_name_width(t, 9), 0);
			tku_puts(&t->b, k ? "         " : "    top: ");
			wrap(&t->b, line.p ? line.p : "", 11, 9, t->width);
			t->b.oom |= line.oom;
			free(line.p);
		}
		const char *fix = text_of(s, r, "fix");
		if (fix) {
			tku_puts(&t->b, "    fix: ");
			wrap(&t->b, fix, 6, 9, t->width);
		}
	}
}

/* Width of the line of columns @on (1 = on the line), with the indent and separators. */
static int line_width(const int *w, const int *on, int nc)
{
	int total = 0, n = 0;
	for (int k = 0; k < nc; k++)
		if (on[k])
			total += w[k], n++;
	return 2 + total + 2 * (n > 0 ? n - 1 : 0);
}

/* One cell padded to @width (numbers right-aligned, no padding after the last one). */
static void put_cell(struct tw *t, const struct tkr_col *col, const char *v, int width, int last)
{
	struct tku_buf cell = {0};
	if (col->flags & TKR_C_FLEX) {
		if (col->kind == TKR_NAME && !t->m->full_names)
			tkr_short_name(&cell, v ? v : "", width);
		else {
			tku_puts(&cell, v ? v : "");
			tkr_cut(&cell, width);
		}
	} else {
		tku_puts(&cell, v ? v : "");
		tkr_cut(&cell, width); /* a text column narrowed to fit */
	}
	const char *cv = cell.p ? cell.p : "";
	int pad = width - tkr_width(cv);
	const char *cc = cell_color(col->kind, cv);
	if (tkr_right_aligned(col->kind))
		spaces(&t->b, pad);
	if (cc && strcmp(cv, "-"))
		color(t, cc);
	tku_puts(&t->b, cv);
	if (cc && strcmp(cv, "-"))
		color(t, RESET);
	if (!tkr_right_aligned(col->kind) && !last)
		spaces(&t->b, pad);
	t->b.oom |= cell.oom;
	free(cell.p);
}

/* End a line without trailing spaces. */
static void end_line(struct tku_buf *b)
{
	while (b->len > 0 && b->p[b->len - 1] == ' ')
		b->len--;
	tku_puts(b, "\n");
}

static void table(struct tw *t, const struct tkr_section *s)
{
	int nc = 0, fixed = 0, nflex = 0, wrapmode = 0;
	int cols[64], w[64], on[64];
	for (int c = 0; c < s->ncols && nc < 64; c++)
		if (tkr_shown(s, c))
			cols[nc++] = c;
	char **text = calloc(s->nrows * (size_t)nc + 1, sizeof(*text));
	if (!text) {
		t->b.oom = 1;
		return;
	}
	for (int k = 0; k < nc; k++)
		w[k] = tkr_width(s->def->cols[cols[k]].title);
	for (size_t r = 0; r < s->nrows; r++) {
		for (int k = 0; k < nc; k++) {
			struct tku_buf v = {0};
			tkr_format_cell(&v, t->m, s, r, cols[k]);
			t->b.oom |= v.oom;
			text[r * (size_t)nc + (size_t)k] = v.p;
			int vw = v.p ? tkr_width(v.p) : 0;
			if (vw > w[k])
				w[k] = vw;
		}
	}
	for (int k = 0; k < nc; k++) {
		on[k] = 1;
		if (s->def->cols[cols[k]].flags & TKR_C_FLEX)
			nflex++;
		else
			fixed += w[k] + 2;
	}
	if (nflex) {
		int share = (t->width - 2 - fixed - 2 * (nflex - 1)) / nflex;
		wrapmode = share < MIN_FLEX;
		for (int k = 0; k < nc && t->m->full_names && !wrapmode; k++)
			wrapmode = s->def->cols[cols[k]].kind == TKR_NAME && w[k] > share;
		for (int k = 0; k < nc; k++) {
			if (!(s->def->cols[cols[k]].flags & TKR_C_FLEX))
				continue;
			if (wrapmode)
				on[k] = 0;
			else if (w[k] > share)
				w[k] = share;
		}
	}
	/* still too wide: leave out optional columns, rightmost first */
	for (int k = nc - 1; k >= 0 && line_width(w, on, nc) > t->width; k--)
		if (on[k] && (s->def->cols[cols[k]].flags & TKR_C_OPT))
			on[k] = 0;
	/* still too wide: narrow the widest text column, one character at a time */
	while (line_width(w, on, nc) > t->width) {
		int best = -1;
		for (int k = 0; k < nc; k++) {
			const struct tkr_col *col = &s->def->cols[cols[k]];
			int floor =
			    tkr_width(col->title) > MIN_TEXT ? tkr_width(col->title) : MIN_TEXT;
			if (on[k] && !tkr_right_aligned(col->kind) && w[k] > floor &&
			    (best < 0 || w[k] > w[best]))
				best = k;
		}
		if (best < 0)
			break;
		w[best]--;
	}
	int lastk = -1;
	for (int k = 0; k < nc; k++)
		if (on[k])
			lastk = k;
	/* header and rule */
	struct tku_buf rule = {0};
	tku_puts(&t->b, "  ");
	tku_puts(&rule, "  ");
	for (int k = 0, first = 1; k < nc; k++) {
		const struct tkr_col *col = &s->def->cols[cols[k]];
		if (!on[k])
			continue;
		if (!first) {
			tku_puts(&t->b, "  ");
			tku_puts(&rule, "  ");
		}
		first = 0;
		int pad = w[k] - tkr_width(col->title);
		if (tkr_right_aligned(col->kind))
			spaces(&t->b, pad);
		color(t, BOLD);
		tku_puts(&t->b, col->title);
		color(t, RESET);
		if (!tkr_right_aligned(col->kind) && k != lastk)
			spaces(&t->b, pad);
		for (int i = 0; i < w[k]; i++)
			tku_putn(&rule, "-", 1);
	}
	end_line(&t->b);
	tku_puts(&t->b, rule.p ? rule.p : "");
	end_line(&t->b);
	t->b.oom |= rule.oom;
	free(rule.p);
	for (size_t r = 0; r < s->nrows; r++) {
		tku_puts(&t->b, "  ");
		for (int k = 0, first = 1; k < nc; k++) {
			if (!on[k])
				continue;
			if (!first)
				tku_puts(&t->b, "  ");
			first = 0;
			put_cell(t, &s->def->cols[cols[k]], text[r * (size_t)nc + (size_t)k], w[k],
				 k == lastk);
		}
		end_line(&t->b);
		for (int k = 0; wrapmode && k < nc; k++) {
			const struct tkr_col *col = &s->def->cols[cols[k]];
			const char *v = text[r * (size_t)nc + (size_t)k];
			if (!(col->flags & TKR_C_FLEX))
				continue;
			int indent = 4 + tkr_width(col->title) + 2;
			tku_printf(&t->b, "    %s: ", col->title);
			if (col->kind == TKR_NAME) {
				if (t->m->full_names)
					tku_puts(&t->b, v ? v : "");
				else
					tkr_short_name(&t->b, v ? v : "", t->width - indent);
				end_line(&t->b);
			} else {
				wrap(&t->b, v ? v : "", indent, indent, t->width);
			}
		}
	}
	for (size_t i = 0; i < s->nrows * (size_t)nc; i++)
		free(text[i]);
	free(text);
}

int tkr_write_text(FILE *out, const struct tkr_model *m, const struct tk_report_options *o)
{
	struct tw t = {{0}, m, o->width, o->color};
	int rc = TK_OK;
	color(&t, BOLD);
	tku_puts(&t.b, m->is_diff ? "tracekit diff" : "tracekit report: ");
	if (!m->is_diff)
		tku_esc_terminal(&t.b, m->path);
	tku_puts(&t.b, "\n");
	color(&t, RESET);
	if (m->is_diff) {
		tku_puts(&t.b, "  A (before): ");
		tku_esc_terminal(&t.b, m->path);
		tku_puts(&t.b, "\n  B (after):  ");
		tku_esc_terminal(&t.b, m->path_b);
		tku_puts(&t.b, "\n");
	}
	if (m->verdict.ok) { /* the verdict first (verdict.c) */
		tku_puts(&t.b, "\n");
		color(&t, BOLD);
		tku_puts(&t.b, "Verdict");
		color(&t, RESET);
		tku_puts(&t.b, "\n");
		for (int i = 0; i < 3; i++) {
			if (!m->verdict.line[i])
				continue;
			spaces(&t.b, 2);
			wrap(&t.b, m->verdict.line[i], 4, 2, t.width);
		}
	}
	for (size_t i = 0; i < m->nsections && rc == TK_OK; i++) {
		const struct tkr_section *s = &m->sections[i];
		if (s->def->style == TKR_CHART || !s->available)
			continue;
		if (!s->nrows) {
			if (s->def->empty) {
				heading(&t, s);
				tku_printf(&t.b, "  (%s)\n", s->def->empty);
			}
			continue;
		}
		heading(&t, s);
		if (s->def->style == TKR_KV)
			kv(&t, s);
		else if (s->def->style == TKR_FINDINGS)
			findings(&t, s);
		else
			table(&t, s);
		rc = tku_flush(out, &t.b);
	}
	if (rc == TK_OK)
		rc = tku_flush(out, &t.b);
	free(t.b.p);
	return rc;
}

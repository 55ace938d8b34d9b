/*
 * The HTML report: one self-contained file (inline CSS, inline SVG charts from report_svg.c, a
 * small inline script that makes tables sortable; nothing is fetched), every name and text
 * HTML-escaped (tku_esc_html(): control and bidi characters shown as \x1b, \u{202E}). Tables
 * keep the raw value of each cell in data-v for sorting; names are shown by their short label
 * (labels.c) with the full name on hover (title), or in full with --full-names. The script marks <body data-tk-ready="1"> when it ran without an exception (the browser
 * test looks for it) and, with #tk-selftest in the URL, sorts every table by every column.
 */
#include "report_internal.h"

#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <tracekit/error.h>

static const char css[] =
    "body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',sans-serif;margin:0;color:#1d2330;"
    "background:#f6f7f9}"
    "header{background:#1d2330;color:#fff;padding:14px 24px}header h1{margin:0;font-size:20px}"
    "header p{margin:4px 0 0;color:#c5cad3;font-family:monospace;overflow-wrap:anywhere}"
    "nav{padding:8px 24px;background:#e9ecf1;font-size:13px}nav a{margin-right:12px;color:#2c5aa0}"
    "main{padding:8px 24px 40px;max-width:1400px}"
    "h2{margin:28px 0 6px;font-size:18px;border-bottom:2px solid #d5dae2;padding-bottom:3px}"
    "h3{margin:20px 0 6px;font-size:15px}.count{color:#6b7383;font-weight:normal;font-size:13px}"
    "table{border-collapse:collapse;background:#fff;font-size:12.5px;margin:4px 0}"
    "th,td{padding:3px 8px;border-bottom:1px solid #e3e6eb;text-align:left;vertical-align:top}"
    "th{background:#eef1f5;cursor:pointer;user-select:none;white-space:nowrap}"
    "th[aria-sort=ascending]::after{content:' \\25B2'}"
    "th[aria-sort=descending]::after{content:' \\25BC'}"
    "td.num,th.num{text-align:right;white-space:nowrap;font-variant-numeric:tabular-nums}"
    "td.name{font-family:monospace;font-size:12px;max-width:70ch;overflow-wrap:anywhere}"
    "table.kv th{cursor:default;text-align:left}"
    ".band-good{color:#17803d;font-weight:600}.band-warning{color:#a86b00;font-weight:600}"
    ".band-bad{color:#c62828;font-weight:600}.band-n-a{color:#8a90a0}"
    ".flag{color:#a86b00;font-weight:600}.flag-worse{color:#c62828;font-weight:600}"
    ".flag-better{color:#17803d;font-weight:600}"
    ".finding{background:#fff;border-left:4px solid #a86b00;padding:8px 12px;margin:8px 0}"
    ".finding.sev-high{border-color:#c62828}.finding h4{margin:0 0 4px;font-size:14px}"
    ".finding .sev{text-transform:uppercase;font-size:11px;padding:1px 6px;border-radius:3px;"
    "background:#a86b00;color:#fff;margin-right:6px}.finding.sev-high .sev{background:#c62828}"
    ".finding p{margin:3px 0}.finding .ev{color:#4a5263;font-size:12.5px}"
    ".finding ul{margin:3px 0;padding-left:20px;font-family:monospace;font-size:12px;"
    "overflow-wrap:anywhere}.empty{color:#6b7383;font-style:italic}"
    "svg.chart{background:#fff;border:1px solid #e3e6eb;margin:8px 0;max-width:100%;"
    "height:auto;font:11px sans-serif}svg.chart text{fill:#1d2330}"
    "svg.chart .axis{stroke:#b8bfcc;stroke-width:1}svg.chart .mono{font-family:monospace}"
    ".verdict{background:#fff;border-left:4px solid #2c5aa0;padding:4px 14px 8px;margin:12px 0}"
    ".verdict h2{border:0;margin:6px 0 2px}.verdict p{margin:3px 0;font-size:15px}"
    "footer{color:#6b7383;font-size:12px;padding:0 24px 24px}";

static const char script[] =
    "(function(){'use strict';\n"
    "function key(td){var v=td.getAttribute('data-v');return v===null?td.textContent:v;}\n"
    "function sortTable(t,col,dir){var tb=t.tBodies[0];if(!tb)return;\n"
    " var rows=Array.prototype.slice.call(tb.rows);\n"
    " var num=t.tHead.rows[0].cells[col].classList.contains('num');\n"
    " rows.sort(function(a,b){var x=key(a.cells[col]),y=key(b.cells[col]);\n"
    "  if(num){x=x===''?-Infinity:parseFloat(x);y=y===''?-Infinity:parseFloat(y);\n"
    "   return dir*((x>y)-(x<y));}\n"
    "  return dir*String(x).localeCompare(String(y));});\n"
    " rows.forEach(function(r){tb.appendChild(r);});}\n"
    "var tables=Array.prototype.slice.call(document.querySelectorAll('table.sortable'));\n"
    "tables.forEach(function(t){var ths=t.tHead.rows[0].cells;\n"
    " Array.prototype.forEach.call(ths,function(th,i){th.addEventListener('click',function(){\n"
    "  var d=th.getAttribute('aria-sort')==='ascending'?-1:1;\n"
    "  Array.prototype.forEach.call(ths,function(h){h.removeAttribute('aria-sort');});\n"
    "  th.setAttribute('aria-sort',d===1?'ascending':'descending');sortTable(t,i,d);});});});\n"
    "if(location.hash==='#tk-selftest'){var n=0;tables.forEach(function(t){\n"
    " for(var i=0;i<t.tHead.rows[0].cells.length;i++){t.tHead.rows[0].cells[i].click();\n"
    "  t.tHead.rows[0].cells[i].click();n++;}});\n"
    " document.body.setAttribute('data-tk-selftest','sorted '+n);}\n"
    "document.body.setAttribute('data-tk-ready','1');})();\n";

static void esc(struct tku_buf *b, const char *s)
{
	tku_esc_html(b, s ? s : "");
}

static const char *text_of(const struct tkr_section *s, size_t r, const char *key)
{
	int c = tkr_col(s, key);
	const struct tkr_cell *x = c >= 0 ? tkr_cell(s, r, c) : NULL;
	return x && x->type == SQLITE_TEXT ? x->s : NULL;
}

/* The raw value of a cell for data-v ("" for NULL). */
static void raw_value(struct tku_buf *b, const struct tkr_cell *cell)
{
	if (cell->type == SQLITE_INTEGER)
		tku_printf(b, "%lld", (long long)cell->i);
	else if (cell->type == SQLITE_FLOAT)
		tku_printf(b, "%.17g", cell->d);
	else if (cell->type == SQLITE_TEXT)
		esc(b, cell->s);
}

static void cell(struct tku_buf *b, const struct tkr_model *m, const struct tkr_section *s,
		 size_t r, int c)
{
	const struct tkr_col *col = &s->def->cols[c];
	const struct tkr_cell *x = tkr_cell(s, r, c);
	struct tku_buf v = {0};
	tkr_format_cell(&v, m, s, r, c);
	const char *t = v.p ? v.p : "";
	tku_puts(b, "<td");
	if (tkr_right_aligned(col->kind))
		tku_puts(b, " class=\"num\"");
	else if (col->kind == TKR_NAME)
		tku_puts(b, " class=\"name\"");
	else if (col->kind == TKR_BAND && x->type == SQLITE_TEXT)
		tku_printf(
		    b, " class=\"band-%s\"",
		    !strcmp(t, "good") || !strcmp(t, "warning") || !strcmp(t, "bad") ? t : "n-a");
	else if ((col->kind == TKR_FLAG || col->kind == TKR_SEVERITY) && x->type == SQLITE_TEXT)
		tku_puts(b, !strcmp(t, "worse")	   ? " class=\"flag-worse\""
			    : !strcmp(t, "better") ? " class=\"flag-better\""
						   : " class=\"flag\"");
	if (x->type != SQLITE_TEXT || tkr_right_aligned(col->kind)) {
		tku_puts(b, " data-v=\"");
		raw_value(b, x);
		tku_puts(b, "\"");
	}
	if (col->kind == TKR_NS && x->type == SQLITE_INTEGER)
		tku_printf(b, " title=\"%lld ns\"", (long long)x->i);
	if (col->kind == TKR_NAME && x->type == SQLITE_TEXT && strcmp(x->s, t)) {
		tku_puts(b, " title=\""); /* the full name on hover */
		esc(b, x->s);
		tku_puts(b, "\"");
	}
	tku_puts(b, ">");
	esc(b, t);
	tku_puts(b, "</td>");
	b->oom |= v.oom;
	free(v.p);
}

static void kv(struct tku_buf *b, const struct tkr_model *m, const struct tkr_section *s)
{
	tku_printf(b, "<table class=\"kv\" id=\"t-%s\">\n", s->def->key);
	for (int c = 0; c < s->ncols; c++) {
		if (!tkr_shown(s, c))
			continue;
		tku_puts(b, "<tr><th>");
		esc(b, s->def->cols[c].title);
		tku_puts(b, "</th>");
		cell(b, m, s, 0, c);
		tku_puts(b, "</tr>\n");
	}
	tku_puts(b, "</table>\n");
}

static void table(struct tku_buf *b, const struct tkr_model *m, const struct tkr_section *s)
{
	tku_printf(b, "<table class=\"sortable\" id=\"t-%s\">\n<thead><tr>", s->def->key);
	for (int c = 0; c < s->ncols; c++) {
		if (!tkr_shown(s, c))
			continue;
		tku_puts(b,
			 tkr_right_aligned(s->def->cols[c].kind) ? "<th class=\"num\">" : "<th>");
		esc(b, s->def->cols[c].title);
		tku_puts(b, "</th>");
	}
	tku_puts(b, "</tr></thead>\n<tbody>\n");
	for (size_t r = 0; r < s->nrows; r++) {
		tku_puts(b, "<tr>");
		for (int c = 0; c < s->ncols; c++)
			if (tkr_shown(s, c))
				cell(b, m, s, r, c);
		tku_puts(b, "</tr>\n");
	}
	tku_puts(b, "</tbody></table>\n");
}

static void findings(struct tku_buf *b, const struct tkr_model *m, const struct tkr_section *s)
{
	tku_printf(b, "<div id=\"t-%s\">\n", s->def->key);
	for (size_t r = 0; r < s->nrows; r++) {
		const char *sev = text_of(s, r, "severity");
		const struct tkr_ev *ev = r < m->nev ? &m->ev[r] : NULL;
		struct tku_buf where = {0}, sum = {0};
		int sc = tkr_col(s, "summary");
		tku_puts(b, "<div class=\"finding sev-");
		esc(b, sev ? sev : "medium");
		tku_puts(b, "\"><h4><span class=\"sev\">");
		esc(b, sev);
		tku_puts(b, "</span>");
		esc(b, text_of(s, r, "rule"));
		if (tkr_where(&where, m, s, r)) {
			tku_puts(b, " (");
			esc(b, where.p);
			tku_puts(b, ")");
		}
		tku_puts(b, "</h4><p>");
		if (sc >= 0)
			tkr_format_cell(&sum, m, s, r, sc);
		esc(b, sum.p);
		tku_puts(b, "</p>");
		b->oom |= where.oom | sum.oom;
		free(where.p);
		free(sum.p);
		if (ev && ev->main.n) {
			tku_puts(b, "<p class=\"ev\">evidence: ");
			tkr_evidence_line(b, m, &ev->main, 0, 1);
			tku_puts(b, "</p>");
		}
		if (ev && ev->ntop) {
			tku_puts(b, "<ul>");
			for (size_t k = 0; k < ev->ntop; k++) {
				tku_puts(b, "<li>");
				tkr_evidence_line(b, m, &ev->top[k], 0, 1);
				tku_puts(b, "</li>");
			}
			tku_puts(b, "</ul>");
		}
		tku_puts(b, "<p><b>Fix:</b> ");
		esc(b, text_of(s, r, "fix"));
		tku_puts(b, "</p></div>\n");
	}
	tku_puts(b, "</div>\n");
}

/* The verdict (verdict.c): three lines, the first coloured by the band of its KPI. */
static void verdict(struct tku_buf *b, const struct tkr_model *m)
{
	const struct tkr_verdict *v = &m->verdict;
	const struct tkr_section *k = tkr_find(m, "kpis");
	const char *band = k && v->kpi_row >= 0 ? text_of(k, (size_t)v->kpi_row, "band") : NULL;
	static const char *const cls[] = {"v-kpi", "v-bottleneck", "v-fix"};
	if (!v->ok)
		return;
	tku_puts(b, "<section id=\"s-verdict\" class=\"verdict\">\n<h2>Verdict</h2>\n");
	for (int i = 0; i < 3; i++) {
		if (!v->line[i])
			continue;
		tku_printf(b, "<p class=\"%s", cls[i]);
		if (!i && band)
			tku_printf(b, " band-%s",
				   !strcmp(band, "good") || !strcmp(band, "warning") ||
					   !strcmp(band, "bad")
				       ? band
				       : "n-a");
		tku_puts(b, "\">");
		esc(b, v->line[i]);
		tku_puts(b, "</p>\n");
	}
	tku_puts(b, "</section>\n");
}

static int shows(const struct tkr_section *s)
{
	return s->def->style != TKR_CHART && s->available && (s->nrows || s->def->empty);
}

int tkr_write_html(FILE *out, const struct tkr_model *m, const struct tk_report_options *o)
{
	struct tku_buf b = {0};
	int rc = TK_OK, grouped = 0;
	(void)o;
	tku_puts(&b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
		     "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
		     "<title>");
	tku_puts(&b, m->is_diff ? "tracekit diff: " : "tracekit report: ");
	esc(&b, m->path);
	if (m->is_diff) {
		tku_puts(&b, " vs ");
		esc(&b, m->path_b);
	}
	tku_printf(&b, "</title>\n<style>%s</style>\n</head>\n<body>\n<header><h1>%s</h1>", css,
		   m->is_diff ? "tracekit diff" : "tracekit report");
	if (m->is_diff) {
		tku_puts(&b, "<p>A (before): ");
		esc(&b, m->path);
		tku_puts(&b, "</p><p>B (after): ");
		esc(&b, m->path_b);
		tku_puts(&b, "</p>");
	} else {
		tku_puts(&b, "<p>");
		esc(&b, m->path);
		tku_puts(&b, "</p>");
	}
	tku_puts(&b, "</header>\n<nav>");
	if (m->verdict.ok)
		tku_puts(&b, "<a href=\"#s-verdict\">Verdict</a>");
	if (m->nutil)
		tku_puts(&b, "<a href=\"#s-timeline\">Device timeline</a>");
	for (size_t i = 0; i < m->nsections; i++) {
		const struct tkr_section *s = &m->sections[i];
		if (!shows(s) || (grouped && !s->def->group))
			continue;
		if (s->def->group)
			grouped = 1;
		tku_printf(&b, "<a href=\"#s-%s\">", s->def->key);
		esc(&b, s->def->group ? s->def->group : s->def->title);
		tku_puts(&b, "</a>");
	}
	tku_puts(&b, "</nav>\n<main>\n");
	verdict(&b, m);
	if (m->nutil) {
		tku_puts(&b, "<section id=\"s-timeline\">\n<h2>Device timeline</h2>\n");
		tkr_html_timeline(&b, m);
		tku_puts(&b, "</section>\n");
	}
	grouped = 0;
	for (size_t i = 0; i < m->nsections && rc == TK_OK; i++) {
		const struct tkr_section *s = &m->sections[i];
		if (!shows(s))
			continue;
		tku_printf(&b, "<section id=\"s-%s\">\n", s->def->key);
		if (s->def->group) {
			tku_puts(&b, "<h2>");
			esc(&b, s->def->group);
			tku_puts(&b, "</h2>\n");
			grouped = 1;
		}
		tku_puts(&b, grouped ? "<h3>" : "<h2>");
		esc(&b, s->def->title);
		if (s->total > (int64_t)s->nrows)
			tku_printf(&b, " <span class=\"count\">(top %zu of %lld)</span>", s->nrows,
				   (long long)s->total);
		tku_puts(&b, grouped ? "</h3>\n" : "</h2>\n");
		if (!s->nrows) {
			tku_puts(&b, "<p class=\"empty\">");
			esc(&b, s->def->empty);
			tku_puts(&b, "</p>\n");
		} else if (s->def->style == TKR_KV) {
			kv(&b, m, s);
		} else if (s->def->style == TKR_FINDINGS) {
			findings(&b, m, s);
		} else {
			table(&b, m, s);
		}
		tkr_html_chart(&b, m, s->def->key);
		tku_puts(&b, "</section>\n");
		rc = tku_flush(out, &b);
	}
	tku_puts(&b, "</main>\n<footer>Written by tracekit. Every number comes from the store's "
		     "analysis_* tables (docs/metrics.md); docs/reports.md describes each "
		     "section.</footer>\n<script>");
	tku_puts(&b, script);
	tku_puts(&b, "</script>\n</body>\n</html>\n");
	if (rc == TK_OK)
		rc = tku_flush(out, &b);
	free(b.p);
	return rc;
}

/*
 * The JSON report (docs/report-json.md): one object whose keys are the section keys; a table
 * section is {"available", "total", "rows"} with one object per row keyed by the analysis
 * columns, raw values (integer ns, ratios as stored), each device or process id followed by its
 * label and each name by its short label (labels.c); the one-row sections are plain objects.
 * Strings are escaped so that the output is also safe inside HTML; every string is valid UTF-8
 * (invalid bytes become U+FFFD), including inside the findings' evidence, which is embedded as
 * JSON after a check of its syntax. Charts are not included.
 */
#include "util/utf8.h"
#include "report_internal.h"

#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <tracekit/error.h>
#include <tracekit/text.h>

#define RAW_DEPTH 64 /* nesting embedded as JSON; deeper text goes in as a string */

static const char *ws(const char *p)
{
	while (*p == ' ' || *p == '\n' || *p == '\t' || *p == '\r')
		p++;
	return p;
}

static int hex4(const char *p, unsigned *v)
{
	*v = 0;
	for (int i = 0; i < 4; i++) {
		char c = p[i];
		int d = c >= '0' && c <= '9'   ? c - '0'
			: c >= 'a' && c <= 'f' ? c - 'a' + 10
			: c >= 'A' && c <= 'F' ? c - 'A' + 10
					       : -1;
		if (d < 0)
			return 0;
		*v = *v << 4 | (unsigned)d;
	}
	return 1;
}

/*
 * The JSON string at @p (its opening quote) copied to @b as written, except what would make the
 * document invalid: raw control characters become \u00XX, invalid UTF-8 bytes and lone
 * surrogate escapes \ufffd. Returns the position after its closing quote, NULL when malformed.
 */
static const char *raw_string(struct tku_buf *b, const char *p)
{
	tku_putn(b, "\"", 1);
	for (p++; *p != '"';) {
		unsigned v, lo;
		if (!*p)
			return NULL;
		if (*p == '\\' && p[1] == 'u') {
			if (!hex4(p + 2, &v))
				return NULL;
			if (v >= 0xD800 && v <= 0xDBFF && p[6] == '\\' && p[7] == 'u' &&
			    hex4(p + 8, &lo) && lo >= 0xDC00 && lo <= 0xDFFF) {
				tku_putn(b, p, 12); /* a surrogate pair */
				p += 12;
			} else {
				if (v >= 0xD800 && v <= 0xDFFF)
					tku_puts(b, "\\ufffd");
				else
					tku_putn(b, p, 6);
				p += 6;
			}
		} else if (*p == '\\') {
			if (!p[1] || !strchr("\"\\/bfnrt", p[1]))
				return NULL;
			tku_putn(b, p, 2);
			p += 2;
		} else if ((unsigned char)*p < 0x20) {
			tku_printf(b, "\\u%04x", (unsigned char)*p);
			p++;
		} else {
			uint32_t cp;
			size_t len = tku_utf8_next(p, strnlen(p, 4), &cp);
			if (cp == 0xFFFD && len == 1)
				tku_puts(b, "\\ufffd");
			else
				tku_putn(b, p, len);
			p += len;
		}
	}
	tku_putn(b, "\"", 1);
	return p + 1;
}

/* The JSON value at @p copied to @b (see raw_string()); NULL when malformed or too deep. */
static const char *raw_value(struct tku_buf *b, const char *p, int depth)
{
	p = ws(p);
	if (*p == '"')
		return raw_string(b, p);
	if (*p == '{' || *p == '[') {
		char close = *p == '{' ? '}' : ']';
		if (depth >= RAW_DEPTH)
			return NULL;
		tku_putn(b, p, 1);
		p = ws(p + 1);
		if (*p == close) {
			tku_putn(b, p, 1);
			return p + 1;
		}
		for (;;) {
			if (close == '}') {
				if (*(p = ws(p)) != '"' || !(p = raw_string(b, p)) ||
				    *(p = ws(p)) != ':')
					return NULL;
				tku_putn(b, p++, 1);
			}
			if (!(p = raw_value(b, p, depth + 1)))
				return NULL;
			p = ws(p);
			if (*p != ',' && *p != close)
				return NULL;
			tku_putn(b, p, 1);
			if (*p++ == close)
				return p;
		}
	}
	static const char *const words[] = {"true", "false", "null"};
	for (int i = 0; i < 3; i++)
		if (!strncmp(p, words[i], strlen(words[i]))) {
			tku_puts(b, words[i]);
			return p + strlen(words[i]);
		}
	/* a number: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? */
	const char *q = p + (*p == '-');
	if (*q == '0')
		q++;
	else if (*q >= '1' && *q <= '9')
		q += strspn(q, "0123456789");
	else
		return NULL;
	if (*q == '.') {
		if (!strchr("0123456789", q[1]) || !q[1])
			return NULL;
		q += 1 + strspn(q + 1, "0123456789");
	}
	if (*q == 'e' || *q == 'E') {
		q += 1 + (q[1] == '+' || q[1] == '-');
		if (!*q || !strchr("0123456789", *q))
			return NULL;
		q += strspn(q, "0123456789");
	}
	tku_putn(b, p, (size_t)(q - p));
	return q;
}

/*
 * Embed JSON text (the findings' evidence) as an object or array when it is one, kept as
 * written but made valid (raw_string()); anything else, or malformed text, as a JSON string.
 */
static void raw_json(struct tku_buf *b, const char *s)
{
	size_t mark = b->len;
	const char *p = ws(s), *end = NULL;
	if (*p == '{' || *p == '[')
		end = raw_value(b, p, 0);
	if (end && !*ws(end))
		return;
	if (!b->oom) {
		b->len = mark;
		if (b->p)
			b->p[mark] = '\0';
	}
	tku_esc_json(b, s);
}

static void value(struct tku_buf *b, const struct tkr_section *s, size_t r, int c)
{
	const struct tkr_cell *cell = tkr_cell(s, r, c);
	switch (cell->type) {
	case SQLITE_INTEGER:
		tku_printf(b, "%lld", (long long)cell->i);
		break;
	case SQLITE_FLOAT:
		tku_fmt_json_real(b, cell->d);
		break;
	case SQLITE_TEXT:
		if (s->def->cols[c].kind == TKR_JSON)
			raw_json(b, cell->s);
		else
			tku_esc_json(b, cell->s);
		break;
	default:
		tku_puts(b, "null");
	}
}

/*
 * The display field that follows column @c, or nothing: "device" after a device id ("GPU 1
 * (rank 1)"), "process" after a process id ("pid 2568503"), "<x>short_name" after a name column
 * "<x>name" ("<x>_short" after any other name column) with the short label of the name.
 */
static void label_field(struct tku_buf *b, const struct tkr_model *m, const struct tkr_section *s,
			size_t r, int c, const char *indent)
{
	const struct tkr_col *col = &s->def->cols[c];
	const struct tkr_cell *cell = tkr_cell(s, r, c);
	struct tku_buf key = {0}, v = {0};
	size_t n = strlen(col->key);
	if ((col->kind == TKR_DEVICE || col->kind == TKR_PROCESS) && n > 3 &&
	    !strcmp(col->key + n - 3, "_id")) {
		tku_putn(&key, col->key, n - 3);
		if (cell->type == SQLITE_INTEGER)
			tkr_id_label(&v, m, col->kind == TKR_PROCESS, cell->i);
	} else if (col->kind == TKR_NAME) {
		if (n >= 4 && !strcmp(col->key + n - 4, "name")) {
			tku_putn(&key, col->key, n - 4);
			tku_puts(&key, "short_name");
		} else {
			tku_printf(&key, "%s_short", col->key);
		}
		if (cell->type == SQLITE_TEXT) {
			struct tkr_model lm = *m;
			lm.full_names = 0; /* the label even with --full-names */
			tku_puts(&v, tkr_name_label(&lm, cell->s));
		}
	} else {
		return;
	}
	tku_printf(b, ",\n%s  ", indent);
	tku_esc_json(b, key.p ? key.p : "");
	tku_puts(b, ": ");
	if (v.p)
		tku_esc_json(b, v.p);
	else
		tku_puts(b, "null");
	b->oom |= key.oom | v.oom;
	free(key.p);
	free(v.p);
}

static void row(struct tku_buf *b, const struct tkr_model *m, const struct tkr_section *s, size_t r,
		const char *indent)
{
	int first = 1;
	tku_puts(b, "{");
	for (int c = 0; c < s->ncols; c++) {
		if (s->def->cols[c].flags & TKR_C_SHOW)
			continue;
		tku_printf(b, "%s\n%s  ", first ? "" : ",", indent);
		first = 0;
		tku_esc_json(b, s->def->cols[c].key);
		tku_puts(b, ": ");
		value(b, s, r, c);
		label_field(b, m, s, r, c, indent);
	}
	tku_printf(b, "\n%s}", indent);
}

/* "verdict": the three lines and what they name (docs/report-json.md). */
static void verdict(struct tku_buf *b, const struct tkr_model *m)
{
	const struct tkr_verdict *v = &m->verdict;
	const struct tkr_section *k = tkr_find(m, "kpis"), *f = tkr_find(m, "findings");
	static const char *const keys[] = {"headline", "bottleneck", "fix"};
	tku_puts(b, ",\n  \"verdict\": {");
	for (int i = 0; i < 3; i++) {
		tku_printf(b, "%s\n    \"%s\": ", i ? "," : "", keys[i]);
		if (v->line[i])
			tku_esc_json(b, v->line[i]);
		else
			tku_puts(b, "null");
	}
	tku_puts(b, ",\n    \"kpi\": ");
	if (k && v->kpi_row >= 0)
		row(b, m, k, (size_t)v->kpi_row, "    ");
	else
		tku_puts(b, "null");
	tku_printf(b, ",\n    \"kpi_devices\": %d,\n    \"finding\": ", v->kpi_devices);
	if (f && v->finding_row >= 0)
		row(b, m, f, (size_t)v->finding_row, "    ");
	else
		tku_puts(b, "null");
	if (v->finding_row >= 0)
		tku_printf(b, ",\n    \"tier\": %d", v->tier);
	else
		tku_puts(b, ",\n    \"tier\": null");
	tku_puts(b, "\n  }");
}

int tkr_write_json(FILE *out, const struct tkr_model *m, const struct tk_report_options *o)
{
	struct tku_buf b = {0};
	int rc = TK_OK;
	tku_printf(&b, "{\n  \"report\": \"%s\",\n  \"report_version\": 1,\n",
		   m->is_diff ? "diff" : "report");
	if (m->is_diff) {
		tku_puts(&b, "  \"a\": ");
		tku_esc_json(&b, m->path);
		tku_puts(&b, ",\n  \"b\": ");
		tku_esc_json(&b, m->path_b);
		tku_puts(&b, ",\n  \"threshold\": ");
		tku_fmt_json_real(&b, m->threshold);
	} else {
		tku_puts(&b, "  \"store\": ");
		tku_esc_json(&b, m->path);
	}
	tku_printf(&b, ",\n  \"top\": %d", o->top > 0 ? o->top : m->top);
	if (m->verdict.ok)
		verdict(&b, m);
	for (size_t i = 0; i < m->nsections && rc == TK_OK; i++) {
		const struct tkr_section *s = &m->sections[i];
		if (s->def->style == TKR_CHART)
			continue;
		tku_puts(&b, ",\n  ");
		tku_esc_json(&b, s->def->key);
		tku_puts(&b, ": ");
		if (s->def->style == TKR_KV) {
			if (s->available && s->nrows)
				row(&b, m, s, 0, "  ");
			else
				tku_puts(&b, "null");
			continue;
		}
		tku_printf(&b, "{\n    \"available\": %s,\n    \"total\": %lld,\n    \"rows\": [",
			   s->available ? "true" : "false", (long long)s->total);
		for (size_t r = 0; r < s->nrows; r++) {
			tku_puts(&b, r ? ", " : "");
			row(&b, m, s, r, "    ");
			if (b.len > 65536)
				rc = tku_flush(out, &b);
		}
		tku_puts(&b, "]\n  }");
	}
	tku_puts(&b, "\n}\n");
	if (rc == TK_OK)
		rc = tku_flush(out, &b);
	free(b.p);
	return rc;
}

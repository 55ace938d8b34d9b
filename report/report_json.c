/*
 * The JSON report (docs/report-json.md): one object whose keys are the section keys; a table
 * section is {"available", "total", "rows"} with one object per row keyed by the analysis
 * columns, raw values (integer ns, ratios as stored), each device or process id followed by its
 * label and each name by its short label (labels.c); the one-row sections are plain objects.
 * Strings are escaped so that the output is also safe inside HTML; every string is valid UTF-8
 * (invalid bytes become U+FFFD), including inside the findings' evidence, which is embedded as
 * JSON after a check of its syntax. Charts are not included.
 */
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
static const char *raw_string(struct tkr_buf *b, const char *p)
{
	tkr_putn(b, "\"", 1);
	for (p++; *p != '"'; ) {
		unsigned v, lo;
		if (!*p)
			return NULL;
		if (*p == '\\' && p[1] == 'u') {
			if (!hex4(p + 2, &v))
				return NULL;
			if (v >= 0xD800 && v <= 0xDBFF && p[6] == '\\' && p[7] == 'u' &&
			    hex4(p + 8, &lo) && lo >= 0xDC00 && lo <= 0xDFFF) {
				tkr_putn(b, p, 12); /* a surrogate pair */
				p += 12;
			} else {
				if (v >= 0xD800 && v <= 0xDFFF)
					tkr_puts(b, "\\ufffd");
				else
					tkr_putn(b, p, 6);
				p += 6;
			}
		} else if (*p == '\\') {
			if (!p[1] || !strchr("\"\\/bfnrt", p[1]))
				return NULL;
			tkr_putn(b, p, 2);
			p += 2;
		} else if ((unsigned char)*p < 0x20) {
			tkr_printf(b, "\\u%04x", (unsigned char)*p);
			p++;
		} else {
			uint32_t cp;
			size_t len = tk_utf8_next(p, strnlen(p, 4), &cp);
			if (cp == 0xFFFD && len == 1)
				tkr_puts(b, "\\ufffd");
			else
				tkr_putn(b, p, len);
			p += len;
		}
	}
	tkr_putn(b, "\"", 1);
	return p + 1;
}

/* The JSON value at @p copied to @b (see raw_string()); NULL when malformed or too deep. */
static const char *raw_value(struct tkr_buf *b, const char *p, int depth)
{
	p = ws(p);
	if (*p == '"')
		return raw_string(b, p);
	if (*p == '{' || *p == '[') {
		char close = *p == '{' ? '}' : ']';
		if (depth >= RAW_DEPTH)
			return NULL;
		tkr_putn(b, p, 1);
		p = ws(p + 1);
		if (*p == close) {
			tkr_putn(b, p, 1);
			return p + 1;
		}
		for (;;) {
			if (close == '}') {
				if (*(p = ws(p)) != '"' || !(p = raw_string(b, p)) || *(p = ws(p)) != ':')
					return NULL;
				tkr_putn(b, p++, 1);
			}
			if (!(p = raw_value(b, p, depth + 1)))
				return NULL;
			p = ws(p);
			if (*p != ',' && *p != close)
				return NULL;
			tkr_putn(b, p, 1);
			if (*p++ == close)
				return p;
		}
	}
	static const char *const words[] = {"true", "false", "null"};
	for (int i = 0; i < 3; i++)
		if (!strncmp(p, words[i], strlen(words[i]))) {
			tkr_puts(b, words[i]);
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
	tkr_putn(b, p, (size_t)(q - p));
	return q;
}

/*
 * Embed JSON text (the findings' evidence) as an object or array when it is one, kept as
 * written but made valid (raw_string()); anything else, or malformed text, as a JSON string.
 */
static void raw_json(struct tkr_buf *b, const char *s)
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
	tkr_json_str(b, s);
}

static void value(struct tkr_buf *b, const struct tkr_section *s, size_t r, int c)
{
	const struct tkr_cell *cell = tkr_cell(s, r, c);
	switch (cell->type) {
	case SQLITE_INTEGER:
		tkr_printf(b, "%lld", (long long)cell->i);
		break;
	case SQLITE_FLOAT:
		tkr_json_real(b, cell->d);
		break;
	case SQLITE_TEXT:
		if (s->def->cols[c].kind == TKR_JSON)
			raw_json(b, cell->s);
		else
			tkr_json_str(b, cell->s);
		break;
	default:
		tkr_puts(b, "null");
	}
}

/*
 * The display field that follows column @c, or nothing: "device" after a device id ("GPU 1
 * (rank 1)"), "process" after a process id ("pid 2568503"), "<x>short_name" after a name column
 * "<x>name" ("<x>_short" after any other name column) with the short label of the name.
 */
static void label_field(struct tkr_buf *b, const struct tkr_model *m, const struct tkr_section *s,
			size_t r, int c, const char *indent)
{
	const struct tkr_col *col = &s->def->cols[c];
	const struct tkr_cell *cell = tkr_cell(s, r, c);
	struct tkr_buf key = {0}, v = {0};
	size_t n = strlen(col->key);
	if ((col->kind == TKR_DEVICE || col->kind == TKR_PROCESS) && n > 3 &&
	    !strcmp(col->key + n - 3, "_id")) {
		tkr_putn(&key, col->key, n - 3);
		if (cell->type == SQLITE_INTEGER)
			tkr_id_label(&v, m, col->kind == TKR_PROCESS, cell->i);
	} else if (col->kind == TKR_NAME) {
		if (n >= 4 && !strcmp(col->key + n - 4, "name")) {
			tkr_putn(&key, col->key, n - 4);
			tkr_puts(&key, "short_name");
		} else {
			tkr_printf(&key, "%s_short", col->key);
		}
		if (cell->type == SQLITE_TEXT) {
			struct tkr_model lm = *m;
			lm.full_names = 0; /* the label even with --full-names */
			tkr_puts(&v, tkr_name_label(&lm, cell->s));
		}
	} else {
		return;
	}
	tkr_printf(b, ",\n%s  ", indent);
	tkr_json_str(b, key.p ? key.p : "");
	tkr_puts(b, ": ");
	if (v.p)
		tkr_json_str(b, v.p);
	else
		tkr_puts(b, "null");
	b->oom |= key.oom | v.oom;
	free(key.p);
	free(v.p);
}

static void row(struct tkr_buf *b, const struct tkr_model *m, const struct tkr_section *s,
		size_t r, const char *indent)
{
	int first = 1;
	tkr_puts(b, "{");
	for (int c = 0; c < s->ncols; c++) {
		if (s->def->cols[c].flags & TKR_C_SHOW)
			continue;
		tkr_printf(b, "%s\n%s  ", first ? "" : ",", indent);
		first = 0;
		tkr_json_str(b, s->def->cols[c].key);
		tkr_puts(b, ": ");
		value(b, s, r, c);
		label_field(b, m, s, r, c, indent);
	}
	tkr_printf(b, "\n%s}", indent);
}

/* "verdict": the three lines and what they name (docs/report-json.md). */
static void verdict(struct tkr_buf *b, const struct tkr_model *m)
{
	const struct tkr_verdict *v = &m->verdict;
	const struct tkr_section *k = tkr_find(m, "kpis"), *f = tkr_find(m, "findings");
	static const char *const keys[] = {"headline", "bottleneck", "fix"};
	tkr_puts(b, ",\n  \"verdict\": {");
	for (int i = 0; i < 3; i++) {
		tkr_printf(b, "%s\n    \"%s\": ", i ? "," : "", keys[i]);
		if (v->line[i])
			tkr_json_str(b, v->line[i]);
		else
			tkr_puts(b, "null");
	}
	tkr_puts(b, ",\n    \"kpi\": ");
	if (k && v->kpi_row >= 0)
		row(b, m, k, (size_t)v->kpi_row, "    ");
	else
		tkr_puts(b, "null");
	tkr_printf(b, ",\n    \"kpi_devices\": %d,\n    \"finding\": ", v->kpi_devices);
	if (f && v->finding_row >= 0)
		row(b, m, f, (size_t)v->finding_row, "    ");
	else
		tkr_puts(b, "null");
	if (v->finding_row >= 0)
		tkr_printf(b, ",\n    \"tier\": %d", v->tier);
	else
		tkr_puts(b, ",\n    \"tier\": null");
	tkr_puts(b, "\n  }");
}

int tkr_write_json(FILE *out, const struct tkr_model *m, const struct tk_report_options *o)
{
	struct tkr_buf b = {0};
	int rc = TK_OK;
	tkr_printf(&b, "{\n  \"report\": \"%s\",\n  \"report_version\": 1,\n",
		   m->is_diff ? "diff" : "report");
	if (m->is_diff) {
		tkr_puts(&b, "  \"a\": ");
		tkr_json_str(&b, m->path);
		tkr_puts(&b, ",\n  \"b\": ");
		tkr_json_str(&b, m->path_b);
		tkr_puts(&b, ",\n  \"threshold\": ");
		tkr_json_real(&b, m->threshold);
	} else {
		tkr_puts(&b, "  \"store\": ");
		tkr_json_str(&b, m->path);
	}
	tkr_printf(&b, ",\n  \"top\": %d", o->top > 0 ? o->top : m->top);
	if (m->verdict.ok)
		verdict(&b, m);
	for (size_t i = 0; i < m->nsections && rc == TK_OK; i++) {
		const struct tkr_section *s = &m->sections[i];
		if (s->def->style == TKR_CHART)
			continue;
		tkr_puts(&b, ",\n  ");
		tkr_json_str(&b, s->def->key);
		tkr_puts(&b, ": ");
		if (s->def->style == TKR_KV) {
			if (s->available && s->nrows)
				row(&b, m, s, 0, "  ");
			else
				tkr_puts(&b, "null");
			continue;
		}
		tkr_printf(&b, "{\n    \"available\": %s,\n    \"total\": %lld,\n    \"rows\": [",
			   s->available ? "true" : "false", (long long)s->total);
		for (size_t r = 0; r < s->nrows; r++) {
			tkr_puts(&b, r ? ", " : "");
			row(&b, m, s, r, "    ");
			if (b.len > 65536)
				rc = tkr_flush(out, &b);
		}
		tkr_puts(&b, "]\n  }");
	}
	tkr_puts(&b, "\n}\n");
	if (rc == TK_OK)
		rc = tkr_flush(out, &b);
	free(b.p);
	return rc;
}

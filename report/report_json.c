/*
 * The JSON report (docs/report-json.md): one object whose keys are the section keys; a table
 * section is {"available", "total", "rows"} with one object per row keyed by the analysis
 * columns, raw values (integer ns, ratios as stored); the one-row sections are plain objects.
 * Strings are escaped so that the output is also safe inside HTML. Charts are not included.
 */
#include "report_internal.h"

#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <tracekit/error.h>

/* Embed JSON text as is when it is an object or array, else as a string. */
static void raw_json(struct tkr_buf *b, const char *s)
{
	const char *p = s;
	while (*p == ' ' || *p == '\n' || *p == '\t' || *p == '\r')
		p++;
	if (*p == '{' || *p == '[')
		tkr_puts(b, s);
	else
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

static void row(struct tkr_buf *b, const struct tkr_section *s, size_t r, const char *indent)
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
	}
	tkr_printf(b, "\n%s}", indent);
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
	for (size_t i = 0; i < m->nsections && rc == TK_OK; i++) {
		const struct tkr_section *s = &m->sections[i];
		if (s->def->style == TKR_CHART)
			continue;
		tkr_puts(&b, ",\n  ");
		tkr_json_str(&b, s->def->key);
		tkr_puts(&b, ": ");
		if (s->def->style == TKR_KV) {
			if (s->available && s->nrows)
				row(&b, s, 0, "  ");
			else
				tkr_puts(&b, "null");
			continue;
		}
		tkr_printf(&b, "{\n    \"available\": %s,\n    \"total\": %lld,\n    \"rows\": [",
			   s->available ? "true" : "false", (long long)s->total);
		for (size_t r = 0; r < s->nrows; r++) {
			tkr_puts(&b, r ? ", " : "");
			row(&b, s, r, "    ");
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

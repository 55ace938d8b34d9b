/*
 * Result rows as an aligned table, CSV or JSON: the writer behind `tracekit query` and any
 * command that prints rows. Streams: table widths come from the first rows only, so memory stays
 * bounded however many rows a query returns.
 */
#include <tracekit/report.h>
#include <tracekit/error.h>
#include <tracekit/text.h>

#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_internal.h"
#include "message.h"

#define TABLE_SAMPLE_ROWS 1000

int tk_rows_format_parse(const char *name, enum tk_rows_format *out)
{
	if (!name)
		return TK_EINVAL;
	if (!strcmp(name, "table"))
		*out = TK_ROWS_TABLE;
	else if (!strcmp(name, "csv"))
		*out = TK_ROWS_CSV;
	else if (!strcmp(name, "json"))
		*out = TK_ROWS_JSON;
	else
		return TK_EINVAL;
	return TK_OK;
}

static void hex_blob(struct tku_buf *b, const unsigned char *p, int n)
{
	static const char hex[] = "0123456789abcdef";
	for (int i = 0; i < n; i++) {
		char h[2] = {hex[p[i] >> 4], hex[p[i] & 15]};
		tku_putn(b, h, 2);
	}
}

/* ---- JSON ---- */

static void json_string(struct tku_buf *b, const unsigned char *s, size_t n)
{
	size_t len;
	char *t = tku_text_convert((const char *)s, n, TKU_TEXT_JSON | TK_TEXT_HTML_SAFE, &len);
	if (t)
		tku_putn(b, t, len);
	else
		b->oom = 1;
	free(t);
}

static void json_value(struct tku_buf *b, sqlite3_stmt *st, int c)
{
	char num[64];
	switch (sqlite3_column_type(st, c)) {
	case SQLITE_NULL:
		tku_puts(b, "null");
		break;
	case SQLITE_INTEGER:
		snprintf(num, sizeof(num), "%lld", (long long)sqlite3_column_int64(st, c));
		tku_puts(b, num);
		break;
	case SQLITE_FLOAT: {
		double v = sqlite3_column_double(st, c);
		if (!isfinite(v)) {
			tku_puts(b, "null");
		} else {
			tku_fmt_real(v, num, sizeof(num));
			tku_puts(b, num);
		}
		break;
	}
	case SQLITE_BLOB:
		tku_putn(b, "\"", 1);
		hex_blob(b, sqlite3_column_blob(st, c), sqlite3_column_bytes(st, c));
		tku_putn(b, "\"", 1);
		break;
	default: {
		const unsigned char *t = sqlite3_column_text(st, c);
		json_string(b, t, (size_t)sqlite3_column_bytes(st, c));
	}
	}
}

/* ---- CSV ---- */

/* Plain text of a cell for CSV and table (NULL empty, reals shortest round-trip, blobs hex). */
static void cell_text(struct tku_buf *b, sqlite3_stmt *st, int c)
{
	char num[64];
	switch (sqlite3_column_type(st, c)) {
	case SQLITE_NULL:
		break;
	case SQLITE_FLOAT:
		tku_fmt_real(sqlite3_column_double(st, c), num, sizeof(num));
		tku_puts(b, num);
		break;
	case SQLITE_BLOB:
		hex_blob(b, sqlite3_column_blob(st, c), sqlite3_column_bytes(st, c));
		break;
	default:
		tku_putn(b, (const char *)sqlite3_column_text(st, c),
			 (size_t)sqlite3_column_bytes(st, c));
	}
}

/* ---- table ---- */

/* Table rendering of text: escaped for a terminal (tk_text_escape()), cut at max_width
 * characters with an ellipsis; *@width its display width. */
static void table_text(struct tku_buf *b, const unsigned char *s, size_t n, int max_width,
		       int *width)
{
	size_t len;
	char *t = tku_text_convert((const char *)s, n, TK_TEXT_TERMINAL, &len);
	if (!t) {
		b->oom = 1;
		return;
	}
	tku_putn(b, t, len);
	free(t);
	if (max_width > 0)
		tkr_cut(b, max_width);
	*width = b->p ? tkr_width(b->p) : 0;
}

struct cell {
	char *text;
	int width;
	int right; /* right-align numbers */
};

static int render_cell(sqlite3_stmt *st, int c, int max_width, struct cell *out)
{
	struct tku_buf raw = {0}, shown = {0};
	cell_text(&raw, st, c);
	table_text(&shown, (const unsigned char *)(raw.p ? raw.p : ""), raw.len, max_width,
		   &out->width);
	free(raw.p);
	if (raw.oom || shown.oom) {
		free(shown.p);
		return TK_ENOMEM;
	}
	out->text = shown.p ? shown.p : strdup("");
	int type = sqlite3_column_type(st, c);
	out->right = type == SQLITE_INTEGER || type == SQLITE_FLOAT;
	return out->text ? TK_OK : TK_ENOMEM;
}

static int put_padded(FILE *out, const struct cell *cell, int width, int last)
{
	int pad = width - cell->width;
	if (cell->right)
		fprintf(out, "%*s%s", pad > 0 ? pad : 0, "", cell->text);
	else if (last)
		fputs(cell->text, out);
	else
		fprintf(out, "%s%*s", cell->text, pad > 0 ? pad : 0, "");
	return fputs(last ? "\n" : "  ", out) < 0 ? TK_EIO : TK_OK;
}

static int write_table(FILE *out, sqlite3_stmt *st, int max_width, int *step_rc)
{
	int rc = TK_OK, ncol = sqlite3_column_count(st);
	size_t nrows = 0;
	struct cell *cells = calloc((size_t)ncol * (TABLE_SAMPLE_ROWS + 1), sizeof(*cells));
	int *width = calloc((size_t)ncol, sizeof(*width));
	if (!cells || !width) {
		rc = TK_ENOMEM;
		goto out;
	}
	for (int c = 0; c < ncol; c++) {
		const char *name = sqlite3_column_name(st, c);
		struct tku_buf b = {0};
		table_text(&b, (const unsigned char *)name, strlen(name), max_width,
			   &cells[c].width);
		cells[c].text = b.p ? b.p : strdup("");
		width[c] = cells[c].width;
	}
	while (nrows < TABLE_SAMPLE_ROWS && (*step_rc = sqlite3_step(st)) == SQLITE_ROW) {
		nrows++;
		for (int c = 0; c < ncol; c++) {
			struct cell *cell = &cells[nrows * (size_t)ncol + (size_t)c];
			if ((rc = render_cell(st, c, max_width, cell)) != TK_OK)
				goto out;
			if (cell->width > width[c])
				width[c] = cell->width;
		}
	}
	for (size_t r = 0; r <= nrows; r++) {
		for (int c = 0; c < ncol && rc == TK_OK; c++) {
			struct cell h = cells[r * (size_t)ncol + (size_t)c];
			if (r == 0)
				h.right = cells[(nrows ? 1 : 0) * (size_t)ncol + (size_t)c].right;
			rc = put_padded(out, &h, width[c], c == ncol - 1);
		}
		if (r == 0) {
			for (int c = 0; c < ncol; c++) {
				for (int k = 0; k < width[c]; k++)
					fputc('-', out);
				fputs(c == ncol - 1 ? "\n" : "  ", out);
			}
		}
	}
	if (nrows == TABLE_SAMPLE_ROWS) {
		while (rc == TK_OK && (*step_rc = sqlite3_step(st)) == SQLITE_ROW) {
			for (int c = 0; c < ncol && rc == TK_OK; c++) {
				struct cell cell = {0};
				if ((rc = render_cell(st, c, max_width, &cell)) == TK_OK)
					rc = put_padded(out, &cell, width[c], c == ncol - 1);
				free(cell.text);
			}
		}
	}
out:
	if (cells)
		for (size_t i = 0; i < (size_t)ncol * (nrows + 1); i++)
			free(cells[i].text);
	free(cells);
	free(width);
	return rc;
}

static int write_stream(FILE *out, sqlite3_stmt *st, enum tk_rows_format fmt, int *step_rc)
{
	int ncol = sqlite3_column_count(st);
	struct tku_buf b = {0};
	size_t nrows = 0;
	if (fmt == TK_ROWS_CSV) {
		for (int c = 0; c < ncol; c++) {
			const char *name = sqlite3_column_name(st, c);
			if (c)
				tku_putn(&b, ",", 1);
			tku_esc_csv(&b, name, strlen(name));
		}
		tku_putn(&b, "\n", 1);
	} else {
		tku_putn(&b, "[", 1);
	}
	while ((*step_rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (fmt == TK_ROWS_CSV) {
			for (int c = 0; c < ncol; c++) {
				struct tku_buf cell = {0};
				cell_text(&cell, st, c);
				if (c)
					tku_putn(&b, ",", 1);
				tku_esc_csv(&b, cell.p ? cell.p : "", cell.len);
				b.oom |= cell.oom;
				free(cell.p);
			}
			tku_putn(&b, "\n", 1);
		} else {
			tku_puts(&b, nrows ? ",\n{" : "\n{");
			for (int c = 0; c < ncol; c++) {
				const char *name = sqlite3_column_name(st, c);
				if (c)
					tku_putn(&b, ",", 1);
				json_string(&b, (const unsigned char *)name, strlen(name));
				tku_putn(&b, ":", 1);
				json_value(&b, st, c);
			}
			tku_putn(&b, "}", 1);
		}
		nrows++;
		if (b.len > 65536 || b.oom) {
			if (b.oom || fwrite(b.p, 1, b.len, out) != b.len)
				break;
			b.len = 0;
		}
	}
	if (fmt == TK_ROWS_JSON)
		tku_puts(&b, nrows ? "\n]\n" : "]\n");
	int rc = b.oom ? TK_ENOMEM : TK_OK;
	if (rc == TK_OK && b.len && fwrite(b.p, 1, b.len, out) != b.len)
		rc = TK_EIO;
	free(b.p);
	return rc;
}

int tk_rows_write_sqlite(FILE *out, sqlite3_stmt *st, const struct tk_rows_options *opt,
			 tk_error *err)
{
	int step_rc = SQLITE_DONE;
	tk_error_clear(err);
	int rc = opt->format == TK_ROWS_TABLE ? write_table(out, st, opt->max_width, &step_rc)
					      : write_stream(out, st, opt->format, &step_rc);
	if (rc == TK_OK && step_rc != SQLITE_DONE && step_rc != SQLITE_ROW)
		return tk_error_push_from(err, "sqlite", TK_EINVAL, "%s",
					  sqlite3_errmsg(sqlite3_db_handle(st)));
	if (rc == TK_OK && ferror(out))
		rc = TK_EIO;
	if (rc != TK_OK)
		tk_error_push_from(err, "report", rc, "%s",
				   rc == TK_EIO ? "cannot write output" : tk_strerror(rc));
	return rc;
}

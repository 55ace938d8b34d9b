/* Output writers shared by the commands: result rows as an aligned table, CSV or JSON. */
#ifndef TRACEKIT_REPORT_H
#define TRACEKIT_REPORT_H

#include <stddef.h>
#include <stdio.h>

struct sqlite3_stmt;

enum tk_rows_format { TK_ROWS_TABLE, TK_ROWS_CSV, TK_ROWS_JSON };

/** tk_rows_format_parse() - "table", "csv" or "json" into @out; TK_EINVAL otherwise. */
int tk_rows_format_parse(const char *name, enum tk_rows_format *out);

struct tk_rows_options {
	enum tk_rows_format format;
	int max_width; /* table: longest cell in characters before it is cut with "…"; 0 = no limit */
};

/**
 * tk_rows_write() - step @st to the end and write its rows to @out.
 *  - table: header, rule, aligned columns (widths from the first 1000 rows; the rest stream),
 *    numbers right-aligned, NULL empty, control characters shown as \n, \t, \xNN;
 *  - csv: RFC 4180 (header line; fields quoted when they hold a comma, quote, CR, LF or
 *    leading/trailing space; quotes doubled; NULL empty; lines end with \n);
 *  - json: an array of objects keyed by column name; NULL as null; text escaped so that the
 *    output is also safe inside HTML (<, >, & as \u003c, \u003e, \u0026); invalid UTF-8 bytes
 *    become U+FFFD; blobs as hex strings; non-finite reals as null.
 * Reals are written with the fewest digits that read back to the same double.
 * @return TK_OK, TK_EINVAL when stepping fails (message in @err), TK_EIO on a write error.
 */
int tk_rows_write(FILE *out, struct sqlite3_stmt *st, const struct tk_rows_options *opt, char *err,
		  size_t errlen);

#endif

/*
 * Reports: the report and the diff of analysed stores (text, HTML, JSON, Markdown), and the
 * writer of query result rows (aligned table, CSV, JSON) the commands share.
 */
#ifndef TRACEKIT_REPORT_H
#define TRACEKIT_REPORT_H

#include <stddef.h>
#include <stdio.h>
#include <tracekit/error.h>

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default)

struct sqlite3_stmt;

enum tk_rows_format { TK_ROWS_TABLE, TK_ROWS_CSV, TK_ROWS_JSON };

/** tk_rows_format_parse() - "table", "csv" or "json" into @out; TK_EINVAL otherwise. */
int tk_rows_format_parse(const char *name, enum tk_rows_format *out);

struct tk_rows_options {
	enum tk_rows_format format;
	int max_width; /* table: longest cell in characters before it is cut with "…"; 0 = no limit */
};

/*
 * ---- SQLite escape hatch ----
 * tk_rows_write_sqlite() writes the rows of any SQLite statement, e.g. one prepared on the
 * connection tk_store_sqlite() lends (include/tracekit/store.h): what `tracekit query` prints.
 */

/**
 * tk_rows_write_sqlite() - step the SQLite statement @st to the end and write its rows to @out.
 *  - table: header, rule, aligned columns (widths from the first 1000 rows; the rest stream),
 *    numbers right-aligned, NULL empty, text escaped for a terminal as tk_text_escape() does
 *    with TK_TEXT_TERMINAL (control characters as \n, \t, \x1b, \u{85}, bidi controls as
 *    \u{202E}, invalid UTF-8 bytes as U+FFFD; include/tracekit/text.h);
 *  - csv: RFC 4180 (header line; fields quoted when they hold a comma, quote, CR, LF or
 *    leading/trailing space; quotes doubled; NULL empty; lines end with \n); text as it is
 *    except invalid UTF-8 bytes, which become U+FFFD;
 *  - json: an array of objects keyed by column name; NULL as null; text escaped so that the
 *    output is also safe inside HTML (<, >, & as \u003c, \u003e, \u0026); invalid UTF-8 bytes
 *    become U+FFFD; blobs as hex strings; non-finite reals as null.
 * Reals are written with the fewest digits that read back to the same double.
 * @return TK_OK, TK_EINVAL when stepping fails (SQLite's message in @err, may be NULL), TK_EIO
 *         on a write error.
 */
int tk_rows_write_sqlite(FILE *out, struct sqlite3_stmt *st, const struct tk_rows_options *opt,
			 tk_error *err);

/* ---- reports (report/): `tracekit report` and `tracekit diff` ---- */

enum tk_report_format { TK_REPORT_TEXT, TK_REPORT_HTML, TK_REPORT_JSON, TK_REPORT_MD };

/** tk_report_format_parse() - "text", "html", "json" or "md" into @out; TK_EINVAL otherwise. */
int tk_report_format_parse(const char *name, enum tk_report_format *out);

struct tk_report_options {
	enum tk_report_format format;
	int width; /* text: columns to fit in (0 = 100) */
	int color; /* text: ANSI colours (the CLI sets it only on a TTY without --no-color) */
	int top;   /* rows per capped table (0 = 20) */
	double threshold; /* diff: relative change flagged, e.g. 0.05 for 5 % (0 = 0.05) */
	int full_names;	  /* names in full everywhere, not their short labels (--full-names) */
};

/** tk_report_options_init() - text, width 100, no colour, top 20, threshold 5 %. */
void tk_report_options_init(struct tk_report_options *o);

/**
 * tk_report_has_analysis() - whether the store at @path has analysis_* tables written by this
 * tracekit (*out = 1), by an older one (*out = 2: meta 'analysis_version' is not
 * TK_ANALYSIS_VERSION, the tables may lack columns the report reads) or none (*out = 0; also a
 * job summary from tk_merge() not analysed yet: its tables are the ranks'), so that a caller
 * can run tk_analyze() first.
 * @return TK_OK, or the tk_store_open() status with the store's causes in @err (may be NULL).
 */
int tk_report_has_analysis(const char *path, int *out, tk_error *err);

/**
 * tk_report_write() - write the report of the analysed store at @path to @out in @o's format
 * (docs/reports.md): trace summary, KPIs with bands, findings, device time, top ops and kernels,
 * idle gaps, memory, steps, communication. Every number comes from the store's analysis_* tables
 * (HTML's utilization-over-time chart is binned from the device events).
 * @return TK_OK; TK_EIO/TK_EFORMAT/TK_EVERSION when the store cannot be read, TK_EIO on a
 *         write error; the causes are in @err (may be NULL).
 */
int tk_report_write(FILE *out, const char *path, const struct tk_report_options *o, tk_error *err);

/**
 * tk_report_diff() - compare the analysed stores @a (before) and @b (after) and write the diff to
 * @out: KPIs, device time, top ops and kernels side by side with absolute and relative deltas,
 * new and vanished ops and kernels; changes beyond @o->threshold are flagged.
 * @return as tk_report_write().
 */
int tk_report_diff(FILE *out, const char *a, const char *b, const struct tk_report_options *o,
		   tk_error *err);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif

#endif

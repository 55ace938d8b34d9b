/*
 * Fuzz target: a mutated store. The bytes are written as a store file on tmpfs, opened with the
 * SQLite reader (tk_store_open, meta, the schema), every table read with the direct page reader
 * (tscan, every column of every row), then analysed (tk_analyze writes analysis_* tables back), the
 * report written to /dev/null and the store exported on tmpfs (one report format of four and one
 * export of Perfetto, Chrome JSON and an XPlane logdir per execution, by the input's length), and
 * merged into a job store (every event, or the job summary of the analysed store, by the length).
 * Every step must end in TK_OK or a bad-input status with a message.
 * Seeds: tiny synthetic and imported stores with 512-byte pages (scripts/fuzz.sh seeds).
 */
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>
#include <tracekit/analyze.h>
#include <tracekit/error.h>
#include <tracekit/export.h>
#include <tracekit/import.h>
#include <tracekit/report.h>
#include <tracekit/store.h>
#include <unistd.h>

#include "fuzz_util.h"
#include "tscan.h"

#define FZ_MAX_COLS 32
#define FZ_MAX_TABLES 64

/*
 * A damaged store read by analyze, report or export must give a bad-input status (exit 2),
 * SQLite's "database disk image is malformed" included (tests/fuzz/regress/store/). Building with
 * FZ_STRICT_STORE_STATUS=0 accepts an internal error that carries a message, to look past it.
 */
/* fuzz_store_read.c builds this file with FZ_STORE_READ_ONLY: the readers alone (open, meta,
 * schema, tscan), thousands of executions per second, for the campaign's 10^7 per reader. */
#ifndef FZ_STORE_READ_ONLY
#define FZ_STORE_READ_ONLY 0
#endif

#ifndef FZ_STRICT_STORE_STATUS
#define FZ_STRICT_STORE_STATUS 1
#endif

static void store_status(int rc, const char *msg, const char *what)
{
	if (!FZ_STRICT_STORE_STATUS && rc == TK_EINTERNAL) {
		fz_check(msg && *msg, what, "internal error without a message");
		return;
	}
	fz_status(rc, msg, what);
}

static FILE *devnull;
static volatile unsigned sink; /* keeps the reads of text bytes */

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc, (void)argv;
	devnull = fopen("/dev/null", "w");
	fz_check(devnull != NULL, "cannot open /dev/null", NULL);
	return 0;
}

/* Read one table with tscan (every column, every row) and check the row count against SQL. */
static void scan_table(sqlite3 *db, const char *path, const char *table)
{
	char sql[256], err[512] = "", cols_store[FZ_MAX_COLS][64];
	const char *cols[FZ_MAX_COLS + 1];
	int ncols = 0;
	sqlite3_stmt *st = NULL;
	sqlite3_snprintf((int)sizeof(sql), sql, "SELECT name FROM pragma_table_info(%Q)", table);
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
		sqlite3_finalize(st);
		return;
	}
	while (ncols < FZ_MAX_COLS && sqlite3_step(st) == SQLITE_ROW) {
		const unsigned char *n = sqlite3_column_text(st, 0);
		if (!n || strlen((const char *)n) >= sizeof(cols_store[0]))
			continue;
		strcpy(cols_store[ncols], (const char *)n);
		cols[ncols] = cols_store[ncols];
		ncols++;
	}
	sqlite3_finalize(st);
	cols[ncols] = NULL;
	if (!ncols)
		return;
	struct tks_tscan *ts = NULL;
	int rc = tks_tscan_open(&ts, db, path, table, cols, err, sizeof(err));
	if (rc != TK_OK) {
		fz_check(rc == 1 || (rc < 0 && err[0]), "tks_tscan_open status", err);
		tks_tscan_close(ts);
		return;
	}
	int r;
	while ((r = tks_tscan_next(ts)) > 0) {
		(void)tks_tscan_rowid(ts);
		for (int i = 0; i < ncols; i++) {
			size_t len = 0;
			const char *t;
			switch (tks_tscan_type(ts, i)) {
			case TK_TS_INT:
			case TK_TS_REAL:
				(void)tks_tscan_int(ts, i);
				(void)tks_tscan_real(ts, i);
				break;
			case TK_TS_TEXT:
			case TK_TS_BLOB:
				t = tks_tscan_text(ts, i, &len);
				for (size_t k = 0; t && k < len;
				     k++) /* every byte must be readable */
					sink += (unsigned char)t[k];
				break;
			default:
				break;
			}
		}
	}
	fz_check(r == 0 || err[0], "tks_tscan_next failed without a message", table);
	tks_tscan_close(ts);
}

static void read_store(const char *path)
{
	tk_store *s = NULL;
	char buf[256], tables[FZ_MAX_TABLES][64];
	int ntables = 0;
	int rc = tk_store_open(path, &s);
	if (rc != TK_OK) {
		fz_status(rc, tk_store_errmsg(s), "tk_store_open");
		tk_store_close(s);
		return;
	}
	tk_store_meta_text(s, "trace_start_ns", buf, sizeof(buf));
	tk_store_meta_text(s, "tracekit_version", buf, sizeof(buf));
	sqlite3 *db = tk_store_sqlite(s);
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(db, "SELECT name FROM sqlite_schema WHERE type = 'table'", -1, &st,
			       NULL) == SQLITE_OK)
		while (ntables < FZ_MAX_TABLES && sqlite3_step(st) == SQLITE_ROW) {
			const unsigned char *n = sqlite3_column_text(st, 0);
			if (n && strlen((const char *)n) < sizeof(tables[0]))
				strcpy(tables[ntables++], (const char *)n);
		}
	sqlite3_finalize(st);
	for (int i = 0; i < ntables; i++)
		scan_table(db, path, tables[i]);
	tk_store_close(s);
}

/*
 * Analysis, then one report format and one export per execution, chosen by the input's length
 * (@pick), so that the same input always takes the same path: every format still gets its share
 * of the inputs, at a third of the store openings per execution.
 */
static void analyze_report_export(const char *path, size_t pick)
{
	struct tk_analyze_options ao;
	struct tk_report_options ro;
	struct tk_export_options eo;
	tk_exporter *x = NULL;
	tk_analyze_options_init(&ao);
	int rc = tk_analyze(path, &ao, fz_err());
	store_status(rc, fz_errmsg(), "tk_analyze");
	if (rc == TK_OK) {
		int has = 0;
		rc = tk_report_has_analysis(path, &has, fz_err());
		store_status(rc, fz_errmsg(), "tk_report_has_analysis");
		tk_report_options_init(&ro);
		ro.format = (enum tk_report_format)(TK_REPORT_TEXT + (int)(pick % 4));
		rc = tk_report_write(devnull, path, &ro, fz_err());
		store_status(rc, fz_errmsg(), "tk_report_write");
	}
	struct tk_merge_options mo;
	tk_merge_options_init(&mo);
	mo.summary = (int)((pick / 12) % 2);
	const char *merged = fz_path("merged.db");
	rc = tk_merge(merged, &path, 1, &mo, NULL, fz_err());
	store_status(rc, fz_errmsg(), mo.summary ? "tk_merge --summary" : "tk_merge");
	unlink(merged);
	static const struct {
		enum tk_export_format format;
		const char *out;
	} exports[] = {{TK_EXPORT_PERFETTO, "out.pftrace"},
		       {TK_EXPORT_CHROME, "out.json"},
		       {TK_EXPORT_XPLANE, "logdir"}};
	size_t i = (pick / 4) % (sizeof(exports) / sizeof(exports[0]));
	const char *out = fz_path(exports[i].out);
	fz_check(tk_exporter_create(&x) == TK_OK, "tk_exporter_create", NULL);
	tk_export_options_init(&eo);
	eo.format = exports[i].format;
	eo.run = "run";
	rc = tk_exporter_run(x, path, out, &eo);
	store_status(rc, tk_exporter_errmsg(x), "tk_exporter_run");
	fz_rmtree(out);
	tk_exporter_destroy(x);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!devnull)
		LLVMFuzzerInitialize(NULL, NULL);
	const char *path = fz_path("store.db");
	const char *side[] = {"store.db-wal", "store.db-shm", "store.db-journal"};
	for (int i = 0; i < 3; i++)
		unlink(fz_path(side[i]));
	fz_write(path, data, size);
	read_store(path);
	if (!FZ_STORE_READ_ONLY)
		analyze_report_export(path, size);
	for (int i = 0; i < 3; i++)
		unlink(fz_path(side[i]));
	unlink(path);
	fz_sqlite_check("reading, analysing, reporting and exporting a store");
	return 0;
}

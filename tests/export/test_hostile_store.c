/*
 * A store is input like any other (issue 14, defect 4): a synthetic store corrupted with SQL in
 * one way per case (ids out of range, dangling references, bad times and durations, text in
 * integer columns, a bad trace start) goes through every command that reads it: export in the
 * three formats, analyze, report, info and query. Each must exit 0 or 2, never crash (a signal),
 * never exit 3; an exit 2 names the store; no temporary file is left and a refused export
 * writes no output. Where a case breaks a rule a command checks, the command must refuse it
 * with the message naming the table and the row (one bad row per case, so the row is known).
 */
#define _XOPEN_SOURCE 700 /* nftw */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <ftw.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tk_test.h"

enum { C_CHROME = 1, C_PERFETTO = 2, C_XPLANE = 4, C_ANALYZE = 8, C_REPORT = 16, C_NCMD = 7 };
#define C_EXPORTS (C_CHROME | C_PERFETTO | C_XPLANE)
#define C_ALL_READERS (C_EXPORTS | C_ANALYZE | C_REPORT)

struct corruption {
	const char *sql;
	unsigned refuse;  /* commands that must exit 2 ... */
	const char *what; /* ... with this in the message */
};

static const struct corruption cases[] = {
    /* the case, and ids used as array indexes */
    {"UPDATE tracks SET id = -100000000 WHERE id = 1", C_ALL_READERS,
     "table tracks, row id -100000000: id out of range"},
    {"UPDATE tracks SET id = 1099511627776 WHERE id = 1", C_ALL_READERS,
     "table tracks, row id 1099511627776: id out of range"},
    {"UPDATE devices SET id = -5 WHERE id = 1", C_CHROME | C_PERFETTO,
     "table devices, row id -5: id out of range"},
    {"UPDATE devices SET id = 1099511627776 WHERE id = 1", C_CHROME | C_PERFETTO,
     "table devices, row id 1099511627776: id out of range"},
    {"UPDATE processes SET id = -7 WHERE id = 1", C_CHROME | C_PERFETTO,
     "table processes, row id -7: id out of range"},
    {"UPDATE processes SET id = 1099511627776 WHERE id = 1", C_CHROME | C_PERFETTO,
     "table processes, row id 1099511627776: id out of range"},
    /* times and durations */
    {"UPDATE events SET dur_ns = -1000 WHERE id = 7", C_ALL_READERS,
     "table events, row id 7: dur_ns is negative"},
    {"UPDATE events SET dur_ns = -9223372036854775808 WHERE id = 7", C_ALL_READERS,
     "table events, row id 7: dur_ns is negative"},
    {"UPDATE events SET ts_ns = 9223372036854775000, dur_ns = 100000 WHERE id = 7", C_ALL_READERS,
     "table events, row id 7: ts_ns is out of range"},
    {"UPDATE events SET ts_ns = -9223372036854775808 WHERE id = 7", C_ALL_READERS,
     "table events, row id 7: ts_ns is out of range"},
    {"UPDATE events SET dur_ns = 9223372036854775807 WHERE id = 7", C_ALL_READERS,
     "table events, row id 7: ts_ns + dur_ns is out of range"},
    {"UPDATE memory_records SET ts_ns = -9223372036854775808 WHERE id = 3",
     C_CHROME | C_XPLANE | C_ANALYZE | C_REPORT, "table memory_records, "},
    {"UPDATE memory_records SET bytes = -9223372036854775808 WHERE id = 3",
     C_CHROME | C_ANALYZE | C_REPORT, "table memory_records, row id 3: "},
    {"UPDATE memory_records SET bytes = 9223372036854775807 WHERE id = 3", C_ANALYZE | C_REPORT,
     "table memory_records, row id "},
    {"UPDATE counters SET ts_ns = -9223372036854775808 WHERE rowid = 3", C_CHROME | C_PERFETTO,
     "table counters, row id 3: ts_ns out of range"},
    {"UPDATE meta SET value = '-9223372036854775808' WHERE key = 'trace_start_ns'",
     C_EXPORTS | C_REPORT, "table meta, trace_start_ns -9223372036854775808"},
    {"UPDATE copy_details SET bytes = 9223372036854775807", C_ANALYZE | C_REPORT,
     "integer overflow"},
    /* wrong types, values a cast would change */
    {"UPDATE events SET name_id = 'abc' WHERE id = 7", C_CHROME | C_PERFETTO | C_ANALYZE,
     "table events, row id 7: name_id is not an integer"},
    {"UPDATE events SET ts_ns = 'abc' WHERE id = 7", C_ALL_READERS,
     "table events, row id 7: ts_ns"},
    {"UPDATE events SET track_id = 'zz' WHERE id = 7", C_CHROME | C_PERFETTO | C_ANALYZE,
     "table events, row id 7: track_id is not an integer"},
    {"UPDATE events SET name_id = 99999999999 WHERE id = 7", C_CHROME | C_PERFETTO,
     "table events, row id 7: name_id or category_id out of range"},
    /* a store edited into another shape: readers prepare their SQL against the declared one */
    {"ALTER TABLE args RENAME COLUMN value TO v", C_ALL_READERS,
     "breaks the schema: table args is not as declared"},
    {"DROP VIEW kernels; CREATE VIEW kernels AS SELECT 1 AS id", C_ALL_READERS,
     "breaks the schema: view kernels is not as declared"},
    /* a kernel's name id near 2^32: the analysis classified names in an array by id (4 GiB) */
    {"UPDATE events SET name_id = 4294967180 WHERE id = (SELECT min(event_id) FROM "
     "kernel_details)",
     C_ANALYZE | C_REPORT, "name id 4294967180"},
    {"UPDATE events SET kind = -1 WHERE id = 7", C_CHROME | C_PERFETTO,
     "table events, row id 7: kind out of range"},
    {"UPDATE devices SET ordinal = 9223372036854775807", C_XPLANE,
     "table devices, row id 1: ordinal out of range"},
    /* dangling references and odd values: exported or analysed as they are, or refused */
    {"UPDATE events SET track_id = 99999 WHERE id % 7 = 0", 0, NULL},
    {"UPDATE events SET track_id = -9223372036854775808 WHERE id % 7 = 0", 0, NULL},
    {"UPDATE tracks SET device_id = 9223372036854775807 WHERE device_id IS NOT NULL", 0, NULL},
    {"UPDATE tracks SET device_id = -77 WHERE device_id IS NOT NULL", 0, NULL},
    {"UPDATE tracks SET process_id = 9223372036854775807", 0, NULL},
    {"UPDATE memory_records SET device_id = 9223372036854775807 WHERE id % 3 = 0", 0, NULL},
    {"UPDATE memory_records SET id = -id WHERE id % 2 = 0", 0, NULL},
    {"UPDATE memory_records SET ts_ns = 'x' WHERE id = 3", 0, NULL},
    {"UPDATE flows SET src_event_id = 9223372036854775807, "
     "dst_event_id = -9223372036854775808",
     0, NULL},
    {"UPDATE strings SET id = id + 4611686018427387904 WHERE id = (SELECT max(id) FROM strings)", 0,
     NULL},
    {"UPDATE kernel_details SET grid_x = -9223372036854775808, block_x = 9223372036854775807, "
     "registers = -5",
     0, NULL},
    {"UPDATE kernel_details SET static_smem = 9223372036854775807, "
     "dynamic_smem = 9223372036854775807 WHERE event_id = (SELECT min(event_id) FROM "
     "kernel_details)",
     C_CHROME | C_PERFETTO | C_ANALYZE | C_REPORT, "table kernel_details, row id "},
    {"UPDATE kernel_details SET registers = 1099511627776, occupancy = NULL", 0, NULL},
    {"UPDATE step_details SET step_num = -9223372036854775808", 0, NULL},
    {"UPDATE tracks SET stream_id = -9223372036854775808, tid = 9223372036854775807", 0, NULL},
    {"UPDATE events SET correlation_id = -9223372036854775808", 0, NULL},
    {"DELETE FROM devices", 0, NULL},
    {"DELETE FROM tracks WHERE id IN (2, 5)", 0, NULL},
};

#define NCASES (sizeof(cases) / sizeof(cases[0]))

/* Case indexes as the parameters: worker processes may map the strings elsewhere. */
ParameterizedTestParameters(hostile_store, every_reader_survives)
{
	static size_t idx[NCASES];
	for (size_t i = 0; i < NCASES; i++)
		idx[i] = i;
	return cr_make_param_array(size_t, idx, NCASES);
}

static int tmp_found;

static int find_tmp(const char *path, const struct stat *sb, int flag, struct FTW *f)
{
	(void)sb, (void)flag, (void)f;
	if (strstr(path, ".tmp-"))
		tmp_found = 1;
	return 0;
}

static void corrupt(const char *db, const char *sql)
{
	sqlite3 *h = NULL;
	char *msg = NULL;
	cr_assert_eq(sqlite3_open(db, &h), SQLITE_OK);
	cr_assert_eq(sqlite3_exec(h, sql, NULL, NULL, &msg), SQLITE_OK, "%s: %s", sql,
		     msg ? msg : "");
	sqlite3_close(h);
}

ParameterizedTest(size_t *ci, hostile_store, every_reader_survives)
{
	const struct corruption *c = &cases[*ci];
	char *dir = tkt_mkdtemp();
	char *db = tkt_path(dir, "s.db"), *json = tkt_path(dir, "o.json");
	char *pf = tkt_path(dir, "o.pftrace"), *logdir = tkt_path(dir, "logdir");
	char *rep = tkt_path(dir, "r.txt");
	struct tkt_run r = tkt_tracekit("synth", "-o", db, "--events", "2000", "--seed", "1", NULL);
	cr_assert_eq(r.code, 0, "synth: %s", r.err);
	tkt_run_free(&r);
	corrupt(db, c->sql);
	const char *const argv[C_NCMD][6] = {
	    {"export", db, "--format", "chrome", "-o", json},
	    {"export", db, "--format", "perfetto", "-o", pf},
	    {"export", db, "--format", "xplane", "-o", logdir},
	    {"analyze", db},
	    {"report", db, "-o", rep},
	    {"info", db},
	    {"query", db, "SELECT count(*) FROM kernels"},
	};
	static const int argc[C_NCMD] = {6, 6, 6, 2, 4, 2, 3};
	const char *const outs[C_NCMD] = {json, pf, logdir, NULL, NULL, NULL, NULL};
	for (int i = 0; i < C_NCMD; i++) {
		r = tkt_tracekitv(argc[i], argv[i]);
		const char *cmd = i < 3 ? argv[i][3] : argv[i][0];
		cr_expect(r.code == 0 || r.code == 2, "%s after '%s': exit %d\n%s", cmd, c->sql,
			  r.code, r.err);
		if (r.code == 2)
			cr_expect(strstr(r.err, db) != NULL, "%s after '%s': store not named:\n%s",
				  cmd, c->sql, r.err);
		if (r.code == 2 && outs[i])
			cr_expect(!tkt_exists(outs[i]), "%s after '%s': output left", cmd, c->sql);
		if (i < 5 && (c->refuse & (1u << i))) {
			cr_expect_eq(r.code, 2, "%s after '%s': exit %d, expected 2\n%s", cmd,
				     c->sql, r.code, r.err);
			cr_expect(strstr(r.err, c->what) != NULL,
				  "%s after '%s': expected '%s' in:\n%s", cmd, c->sql, c->what,
				  r.err);
		}
		tkt_run_free(&r);
		tmp_found = 0;
		nftw(dir, find_tmp, 16, FTW_PHYS);
		cr_expect(!tmp_found, "%s after '%s': a temporary file was left", cmd, c->sql);
	}
	tkt_rmdir(dir);
	free(dir);
	free(db);
	free(json);
	free(pf);
	free(logdir);
	free(rep);
}

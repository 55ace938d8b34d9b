/*
 * The XPlane round trip keeps the analysis: a store exported with `tracekit export --format
 * xplane` and imported back analyses to the same tables (every column but store ids: event,
 * record and track ids), compared with EXCEPT both ways, on a 2-rank synthetic store and real
 * Kineto traces; what cannot be kept (docs/export.md, "What a round trip changes") is asserted
 * row for row. Also: processes, hosts and device owners come back as they were.
 */
#include <criterion/criterion.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export_test.h"
#include "tk_test.h"

TKT_TMPDIR_FIXTURE;

TestSuite(xplane_roundtrip, .init = setup, .fini = teardown);

static const char *const tables[] = {"analysis_device_time",	"analysis_kpi",
				     "analysis_steps",		"analysis_step_stats",
				     "analysis_gaps",		"analysis_gap_summary",
				     "analysis_findings",	"analysis_comm",
				     "analysis_comm_ranks",	"analysis_op_profile",
				     "analysis_kernel_stats",	"analysis_memory",
				     "analysis_hlo_op_kernels", "analysis_memory_timeline"};

/* Rows of @table in one store and not the other (main: before, b: after), "A|..." / "B|...". */
static char *differences(sqlite3 *h, const char *table, int *n)
{
	char sql[4096], *cols = NULL, *out = calloc(1, 1);
	sqlite3_stmt *st;
	snprintf(
	    sql, sizeof(sql),
	    "SELECT group_concat(name, ', ') FROM pragma_table_info('%s') WHERE name NOT IN "
	    "('id', 'track_id') AND name NOT LIKE '%%event_id' AND name NOT LIKE '%%record_id'",
	    table);
	cr_assert_eq(sqlite3_prepare_v2(h, sql, -1, &st, NULL), SQLITE_OK, "%s", sqlite3_errmsg(h));
	cr_assert_eq(sqlite3_step(st), SQLITE_ROW);
	cols = strdup((const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	snprintf(sql, sizeof(sql),
		 "SELECT 'A', %s FROM main.%s EXCEPT SELECT 'A', %s FROM b.%s UNION ALL "
		 "SELECT * FROM (SELECT 'B', %s FROM b.%s EXCEPT SELECT 'B', %s FROM main.%s)",
		 cols, table, cols, table, cols, table, cols, table);
	cr_assert_eq(sqlite3_prepare_v2(h, sql, -1, &st, NULL), SQLITE_OK, "%s", sqlite3_errmsg(h));
	size_t len = 0;
	*n = 0;
	while (sqlite3_step(st) == SQLITE_ROW) {
		(*n)++;
		for (int i = 0; i < sqlite3_column_count(st); i++) {
			const char *v = (const char *)sqlite3_column_text(st, i);
			size_t k = strlen(v ? v : "NULL") + 3;
			out = realloc(out, len + k);
			len += (size_t)sprintf(out + len, "%s%s", i ? "|" : (len ? "\n" : ""),
					       v ? v : "NULL");
		}
	}
	sqlite3_finalize(st);
	free(cols);
	return out;
}

/*
 * Import @in (a trace, or NULL: @db is already a store), export to XPlane, import back, analyze
 * both; every analysis table equal but those named in @known, which must differ by exactly the
 * rows of the "table:rows" pairs there (the documented changes).
 */
static void round_trip(const char *in, const char *const *known)
{
	char *db = tkt_path(dir, "a.db"), *back = tkt_path(dir, "b.db"),
	     *ld = tkt_path(dir, "logs");
	if (in)
		RUN_OK("import", in, "-o", db);
	RUN_OK("export", db, "--format", "xplane", "-o", ld, "--run", "r");
	RUN_OK("import", ld, "-o", back);
	RUN_OK("analyze", db);
	RUN_OK("analyze", back);
	sqlite3 *h = NULL;
	cr_assert_eq(sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	char att[4200];
	snprintf(att, sizeof(att), "ATTACH '%s' AS b", back);
	cr_assert_eq(sqlite3_exec(h, att, NULL, NULL, NULL), SQLITE_OK, "%s", sqlite3_errmsg(h));
	for (size_t i = 0; i < sizeof(tables) / sizeof(tables[0]); i++) {
		int n, want = 0;
		for (const char *const *k = known; k && *k; k++) {
			size_t tl = strlen(tables[i]);
			if (!strncmp(*k, tables[i], tl) && (*k)[tl] == ':')
				want = atoi(*k + tl + 1);
		}
		char *d = differences(h, tables[i], &n);
		cr_expect_eq(n, want, "%s: %d rows differ after the round trip (want %d):\n%.2000s",
			     tables[i], n, want, d);
		free(d);
	}
	sqlite3_close(h);
	free(ld);
	free(db);
	free(back);
}

Test(xplane_roundtrip, two_rank_synthetic_store_keeps_every_analysis_table)
{
	char *db = tkt_path(dir, "a.db");
	RUN_OK("synth", "-o", db, "--events", "20000", "--devices", "2", "--seed", "1");
	round_trip(NULL, NULL);
	/* processes, ranks, the host and the owner of each device come back as they were */
	char *back = tkt_path(dir, "b.db");
	const char *who = "SELECT p.id, p.pid, s.str, h.str, p.rank FROM processes p LEFT JOIN "
			  "strings s ON s.id = p.name_id LEFT JOIN strings h ON h.id = p.host_id "
			  "ORDER BY p.id";
	expect_same_rows(db, back, "processes", who);
	char *rows = tkt_rows(back, who);
	cr_expect_str_eq(
	    rows, "1|4000|python train.py|synth-host|0\n2|4001|python train.py|synth-host|1");
	free(rows);
	expect_same_rows(
	    db, back, "device owners",
	    "SELECT id, ordinal, process_id, rank, max_threads_per_sm, max_regs_per_sm, "
	    "max_smem_per_sm FROM devices ORDER BY id");
	expect_same_rows(
	    db, back, "host threads' processes",
	    "SELECT process_id, tid, name_id IS NULL, count(*) FROM tracks t WHERE kind = "
	    "'thread' AND EXISTS (SELECT 1 FROM events e WHERE e.track_id = t.id) "
	    "GROUP BY 1, 2, 3 ORDER BY 1, 2");
	expect_same_rows(
	    db, back, "categories",
	    "SELECT c.str, count(*) FROM events e JOIN strings c ON c.id = e.category_id "
	    "GROUP BY 1 ORDER BY 1");
	free(back);
	free(db);
}

Test(xplane_roundtrip, rocm_kineto_trace_keeps_every_analysis_table)
{
	char *in = tkt_real("kineto/HolisticTraceAnalysis/tests/data/amd_trace/"
			    "mi250_minitoy_train_ROCm6_2_kineto.json.gz");
	round_trip(in, NULL);
	free(in);
}

Test(xplane_roundtrip, a100_kineto_trace_keeps_every_analysis_table)
{
	char *in = tkt_real("kineto/HolisticTraceAnalysis/tests/data/cupti_profiler/"
			    "benchmark_result_924719_1679055439_trace.json.gz");
	round_trip(in, NULL);
	free(in);
}

/* Kineto's occupancy of 0 for 2 kernel configurations: the JSON import already reads it as
 * unknown (as XPlane's occ_pct:0 is), so the round trip changes nothing either */
Test(xplane_roundtrip, alexnet_kineto_trace_keeps_every_analysis_table)
{
	char *in = tkt_real("kineto/HolisticTraceAnalysis/tests/data/critical_path/alexnet/"
			    "benchmark_result_2869224_1695835535_trace.json.gz");
	round_trip(in, NULL);
	free(in);
}

/*
 * Load balance across ranks (analysis_balance_ranks, analysis_balance, analysis_balance_slowest,
 * the rank_imbalance finding and the report's "Load balance across ranks" section;
 * docs/metrics.md "Load balance across ranks"): a hand-made 4-rank Kineto fixture whose every
 * figure is known by construction (tests/data/analyze/balance/make_fixture.py), with steps on
 * every rank (basis step) and without rank 3's (basis window); a single rank has no rows and no
 * section; the tables are computed from the analysis tables alone.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tracekit/tracekit.h>

#include "analyze/analyze_internal.h"
#include "tk_analyze_store.h"

TestSuite(analyze_balance, .init = tkt_analyze_setup, .fini = tkt_analyze_teardown, .timeout = 600);

#define FIX TK_SOURCE_DIR "/tests/data/analyze/balance/"

/* Import the fixture's rank files 0, 1, 2 and @last (rank 3's file) into tkt_db; analyze it. */
static void import_fixture(const char *last)
{
	struct tkt_run run = tkt_tracekit("import", FIX "rank0.json", FIX "rank1.json",
					  FIX "rank2.json", last, "-o", tkt_db, NULL);
	cr_assert_eq(run.code, 0, "import: %s", run.err);
	tkt_run_free(&run);
	tkt_analyze(tkt_db, TK_WINDOW_AUTO, -1);
}

/* Every metric row, values in us with 3 decimals (exact thirds show as .333). */
#define METRIC_ROWS                                                                               \
	"SELECT metric, members, printf('%.3f|%d|%d|%.3f|%.3f', max_ns / 1e3, max_rank, "         \
	"max_device_id, mean_ns / 1e3, min_ns / 1e3), CASE WHEN imbalance NOTNULL THEN "          \
	"printf('%.6f', imbalance) END, "                                                         \
	"printf('%.3f|%.3f|%.3f', slowest_ns / 1e3, others_ns / 1e3, extra_ns / 1e3), component " \
	"FROM analysis_balance ORDER BY rowid"

/*
 * Per step (us), each rank 3 identical steps (no outliers), selected window = the 3 steps:
 *        compute  exposed comm  exposed copy  other idle  | step   load = step - exposed comm
 *   r0   6000     1000          0             500         | 7500   6500
 *   r1   6000     3500          0             500         | 10000  6500   (planted exposed comm)
 *   r2   7500     1000          0             500         | 9000   8000   (planted compute)
 *   r3   6000     1000          300           200         | 7500   6500
 * Each all-reduce is A + 500 us long (500 overlap the compute kernel): comm = 3 (A + 500).
 * Rank 1 has the longest step, but rank 2 the largest load: rank 2 is the slowest (the others
 * would wait for it in a synchronous job). Load: mean 6875, max / mean = 8000 / 6875 = 1.163636;
 * rank 2's extra over the mean of the others (6500): 1500 = compute +1500, exposed copies
 * 0 - 100, host idle 0, other idle 500 - 400 = +100: the parts add up, compute the largest.
 * Collective wait (seq-matched, rank 2's all-reduce starts 1500 us after the others'): 3 x 1500
 * on ranks 0, 1, 3, 0 on rank 2. The rank_imbalance finding: 100 (1.163636 - 1) = 16.36 >= 10,
 * under 25: medium.
 */
Test(analyze_balance, four_ranks_per_step_every_figure_by_construction)
{
	import_fixture(FIX "rank3.json");
	tkt_expect_rows(
	    tkt_db,
	    "SELECT device_id, rank, host, window, window_ns, busy_ns, compute_ns, comm_ns, "
	    "exposed_comm_ns, exposed_memcpy_ns, idle_ns, wait_ns, steps, step_ns, "
	    "step_compute_ns, "
	    "step_exposed_comm_ns, step_exposed_memcpy_ns, step_host_idle_ns, step_other_idle_ns, "
	    "load_ns, slowest FROM analysis_balance_ranks ORDER BY rowid",
	    "0|0|node0|steps|22500000|21000000|18000000|4500000|3000000|0|1500000|4500000|3|"
	    "7500000.0|6000000.0|1000000.0|0.0|0.0|500000.0|6500000.0|0\n"
	    "1|1|node0|steps|30000000|28500000|18000000|12000000|10500000|0|1500000|4500000|3|"
	    "10000000.0|6000000.0|3500000.0|0.0|0.0|500000.0|6500000.0|0\n"
	    "2|2|node1|steps|27000000|25500000|22500000|4500000|3000000|0|1500000|0|3|"
	    "9000000.0|7500000.0|1000000.0|0.0|0.0|500000.0|8000000.0|1\n"
	    "3|3|node1|steps|22500000|21900000|18000000|4500000|3000000|900000|600000|4500000|3|"
	    "7500000.0|6000000.0|1000000.0|300000.0|0.0|200000.0|6500000.0|0");
	tkt_expect_rows(
	    tkt_db, METRIC_ROWS,
	    "window|4|30000.000|1|1|25500.000|22500.000|1.176471|27000.000|25000.000|"
	    "2000.000|0\n"
	    "busy|4|28500.000|1|1|24225.000|21000.000|1.176471|25500.000|23800.000|"
	    "1700.000|0\n"
	    "compute|4|22500.000|2|2|19125.000|18000.000|1.176471|22500.000|18000.000|"
	    "4500.000|0\n"
	    "comm|4|12000.000|1|1|6375.000|4500.000|1.882353|4500.000|7000.000|-2500.000|0\n"
	    "exposed_comm|4|10500.000|1|1|4875.000|3000.000|2.153846|3000.000|5500.000|"
	    "-2500.000|0\n"
	    "exposed_memcpy|4|900.000|3|3|225.000|0.000|4.000000|0.000|300.000|-300.000|0\n"
	    "idle|4|1500.000|0|0|1275.000|600.000|1.176471|1500.000|1200.000|300.000|0\n"
	    "wait|4|4500.000|0|0|3375.000|0.000|1.333333|0.000|4500.000|-4500.000|0\n"
	    "step|4|10000.000|1|1|8500.000|7500.000|1.176471|9000.000|8333.333|666.667|0\n"
	    "step_compute|4|7500.000|2|2|6375.000|6000.000|1.176471|7500.000|6000.000|"
	    "1500.000|1\n"
	    "step_exposed_comm|4|3500.000|1|1|1625.000|1000.000|2.153846|1000.000|1833.333|"
	    "-833.333|0\n"
	    "step_exposed_memcpy|4|300.000|3|3|75.000|0.000|4.000000|0.000|100.000|"
	    "-100.000|1\n"
	    "step_host_idle|4|0.000|0|0|0.000|0.000|NULL|0.000|0.000|0.000|1\n"
	    "step_other_idle|4|500.000|0|0|425.000|200.000|1.176471|500.000|400.000|"
	    "100.000|1\n"
	    "load|4|8000.000|2|2|6875.000|6500.000|1.163636|8000.000|6500.000|1500.000|0");
	/* the step identity per member, and the components' extras add up to the load's */
	tkt_expect_rows(
	    tkt_db,
	    "SELECT count(*) FROM analysis_balance_ranks WHERE step_ns <> step_compute_ns "
	    "+ step_exposed_comm_ns + step_exposed_memcpy_ns + step_host_idle_ns + "
	    "step_other_idle_ns OR load_ns <> step_ns - step_exposed_comm_ns",
	    "0");
	tkt_expect_rows(tkt_db,
			"SELECT printf('%.3f', sum(extra_ns) / 1e3) FROM analysis_balance WHERE "
			"component = 1",
			"1500.000");
	tkt_expect_rows(
	    tkt_db,
	    "SELECT device_id, rank, host, basis, load_ns, others_ns, extra_ns, printf('%.6f', "
	    "imbalance), component, component_ns, summary FROM analysis_balance_slowest",
	    "2|2|node1|step|8000000.0|6500000.0|1500000.0|1.163636|compute|1500000.0|rank 2 is the "
	    "slowest: +1500000 ns per step over the mean of the other ranks outside exposed "
	    "communication, 1500000 ns of it compute");
	tkt_expect_rows(
	    tkt_db,
	    "SELECT device_id, severity, printf('%.2f', metric), threshold, "
	    "json_extract(evidence, '$.component'), json_extract(evidence, "
	    "'$.top[0].name'), fix GLOB 'Rank 2 does more work*compute: give it the same "
	    "work*' FROM analysis_findings WHERE rule = 'rank_imbalance'",
	    "2|medium|16.36|10.0|compute|step_compute|1");
}

/*
 * Rank 3 without steps: basis window for every member (load = window - exposed comm). Rank 3's
 * selected window is its device window [0, 47300) us (3 steps 20000 us apart, the last ending at
 * 40000 + 7300): busy 3 x 7300 = 21900, idle 25400, load 47300 - 3000 = 44300; the others keep
 * their steps windows: loads 19500, 19500, 24000 (mean 21000). Rank 3 is the slowest by 23300:
 * compute 18000 - 19500 = -1500, exposed copies 900 - 0, idle 25400 - 1500 = +23900 (sum 23300);
 * idle the largest. No step metrics.
 */
Test(analyze_balance, a_rank_without_steps_compares_windows)
{
	import_fixture(FIX "nosteps_rank3.json");
	tkt_expect_rows(tkt_db,
			"SELECT device_id, window, steps, step_ns, load_ns, slowest FROM "
			"analysis_balance_ranks ORDER BY rowid",
			"0|steps|3|7500000.0|19500000.0|0\n1|steps|3|10000000.0|19500000.0|0\n"
			"2|steps|3|9000000.0|24000000.0|0\n3|device|0|NULL|44300000.0|1");
	tkt_expect_rows(tkt_db,
			"SELECT metric, printf('%.3f', extra_ns / 1e3), component FROM "
			"analysis_balance WHERE component = 1 OR metric = 'load' ORDER BY rowid",
			"compute|-1500.000|1\nexposed_memcpy|900.000|1\nidle|23900.000|1\n"
			"load|23300.000|0");
	tkt_expect_rows(tkt_db, "SELECT count(*) FROM analysis_balance WHERE metric GLOB 'step*'",
			"0");
	tkt_expect_rows(
	    tkt_db, "SELECT basis, component, component_ns, summary FROM analysis_balance_slowest",
	    "window|idle|23900000.0|rank 3 is the slowest: +23300000 ns in its window over "
	    "the mean of the other ranks outside exposed communication, 23900000 ns of it "
	    "idle");
}

/* One rank: no balance rows, no finding, no section in any format (JSON: null and empty). */
Test(analyze_balance, a_single_rank_has_no_rows_and_no_section)
{
	struct tkt_run run = tkt_tracekit("import", FIX "rank0.json", "-o", tkt_db, NULL);
	cr_assert_eq(run.code, 0, "import: %s", run.err);
	tkt_run_free(&run);
	tkt_analyze(tkt_db, TK_WINDOW_AUTO, -1);
	tkt_expect_rows(
	    tkt_db,
	    "SELECT (SELECT count(*) FROM analysis_balance_ranks), (SELECT count(*) FROM "
	    "analysis_balance), (SELECT count(*) FROM analysis_balance_slowest), (SELECT "
	    "count(*) FROM analysis_findings WHERE rule = 'rank_imbalance')",
	    "0|0|0|0");
	const char *fmts[] = {"text", "md", "html"};
	for (int i = 0; i < 3; i++) {
		run = tkt_tracekit("report", tkt_db, "--format", fmts[i], NULL);
		cr_assert_eq(run.code, 0, "%s: %s", fmts[i], run.err);
		cr_expect_null(strstr(run.out, "Load balance"), "%s shows the section", fmts[i]);
		cr_expect_null(strstr(run.out, "slowest"), "%s names a slowest rank", fmts[i]);
		tkt_run_free(&run);
	}
	run = tkt_tracekit("report", tkt_db, "--format", "json", NULL);
	cr_assert_eq(run.code, 0, "json: %s", run.err);
	cr_expect_not_null(strstr(run.out, "\"balance\": null"), "%s", run.out);
	cr_expect_not_null(strstr(run.out, "\"balance_ranks\": {\n    \"available\": true,\n"
					   "    \"total\": 0,"),
			   "balance_ranks not empty");
	tkt_run_free(&run);
}

/* The section in every format: the sentence (ns in human units but in JSON), the per-rank
 * table with the slowest flagged, the imbalance per metric. */
Test(analyze_balance, the_section_is_in_every_format)
{
	import_fixture(FIX "rank3.json");
	static const struct {
		const char *fmt, *want[4];
	} cases[] = {
	    {"text",
	     {"== Load balance across ranks ==",
	      "rank 2 is the slowest: +1.50 ms per step over the mean of the other", "slowest\n",
	      "1.164"}},
	    {"md",
	     {"## Load balance across ranks",
	      "rank 2 is the slowest: +1.50 ms per step over the mean of the other ranks outside "
	      "exposed communication, 1.50 ms of it compute",
	      "| slowest |", "1.164"}},
	    {"html",
	     {"<h2>Load balance across ranks</h2>",
	      "rank 2 is the slowest: +1.50 ms per step over the mean of the other ranks outside "
	      "exposed communication, 1.50 ms of it compute",
	      "Imbalance per metric", "1.164"}},
	    {"json",
	     {"\"summary\": \"rank 2 is the slowest: +1500000 ns per step over the mean of the "
	      "other ranks outside exposed communication, 1500000 ns of it compute\"",
	      "\"metric\": \"load\"", "\"slowest\": 1", "\"component\": \"compute\""}},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct tkt_run run = tkt_tracekit("report", tkt_db, "--format", cases[i].fmt,
						  "--width", "200", NULL);
		cr_assert_eq(run.code, 0, "%s: %s", cases[i].fmt, run.err);
		for (int k = 0; k < 4; k++)
			cr_expect_not_null(strstr(run.out, cases[i].want[k]), "%s lacks '%s'",
					   cases[i].fmt, cases[i].want[k]);
		tkt_run_free(&run);
	}
}

/*
 * The balance reads analysis tables only (a job summary store holds them without the events):
 * with every event deleted and rank 0's steps edited (6000 us more compute per step: load 12500
 * us against 8000 of rank 2; its compute extra 12000 - 6500 = 5500), tka_balance() alone makes
 * rank 0 the slowest, which no event says.
 */
Test(analyze_balance, computed_from_the_analysis_tables_alone)
{
	import_fixture(FIX "rank3.json");
	tkt_exec_sql(tkt_db, "DELETE FROM events; UPDATE analysis_steps SET dur_ns = dur_ns + "
			     "6000000, compute_ns = compute_ns + 6000000 WHERE device_id = 0;"
			     "DELETE FROM analysis_balance_ranks; DELETE FROM analysis_balance;"
			     "DELETE FROM analysis_balance_slowest");
	sqlite3 *db = NULL;
	char msg[256] = "";
	cr_assert_eq(sqlite3_open(tkt_db, &db), SQLITE_OK);
	struct tka_ctx c = {.db = db, .err = msg, .errlen = sizeof(msg)};
	cr_assert_eq(tka_balance(&c), TK_OK, "%s", msg);
	sqlite3_close(db);
	tkt_expect_rows(tkt_db,
			"SELECT device_id, load_ns, component, component_ns FROM "
			"analysis_balance_slowest",
			"0|12500000.0|compute|5500000.0");
}

/* A job summary (tracekit merge --summary: the ranks' analysis tables, not every event) gives the
 * same balance as the job store of every event (the test above). */
Test(analyze_balance, a_job_summary_gives_the_same_balance)
{
	char *st[4], *job = tkt_path(tkt_dir, "job.db");
	for (int r = 0; r < 4; r++) {
		char in[512], name[16];
		snprintf(in, sizeof(in), FIX "rank%d.json", r);
		snprintf(name, sizeof(name), "r%d.db", r);
		st[r] = tkt_path(tkt_dir, name);
		tkt_ok(tkt_tracekit("import", in, "-o", st[r], NULL));
		tkt_analyze(st[r], TK_WINDOW_AUTO, -1);
	}
	tkt_ok(tkt_tracekit("merge", st[0], st[1], st[2], st[3], "-o", job, "--summary", NULL));
	tkt_analyze(job, TK_WINDOW_AUTO, -1);
	tkt_expect_rows(job,
			"SELECT device_id, rank, printf('%.1f', step_ns), load_ns, slowest FROM "
			"analysis_balance_ranks ORDER BY rowid",
			"0|0|7500000.0|6500000.0|0\n1|1|10000000.0|6500000.0|0\n"
			"2|2|9000000.0|8000000.0|1\n3|3|7500000.0|6500000.0|0");
	tkt_expect_rows(
	    job,
	    "SELECT device_id, basis, extra_ns, component, summary FROM "
	    "analysis_balance_slowest",
	    "2|step|1500000.0|compute|rank 2 is the slowest: +1500000 ns per step over the "
	    "mean of the other ranks outside exposed communication, 1500000 ns of it "
	    "compute");
	for (int r = 0; r < 4; r++)
		free(st[r]);
	free(job);
}

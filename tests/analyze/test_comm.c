/*
 * Collectives across ranks (analysis_comm, analysis_comm_ranks, the straggler finding;
 * docs/metrics.md "Communication across ranks"): a hand-made 4-rank Kineto fixture whose every
 * figure is known by construction (tests/data/analyze/comm/make_fixture.py), with and without
 * sequence numbers; the wait bound on a synthetic 2-rank trace; and HTA's two sampled ranks
 * (trace_filter, vendored) against tests/data/analyze/comm_figures.py.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tracekit/tracekit.h>

#include "tk_analyze_store.h"

TestSuite(analyze_comm, .init = tkt_analyze_setup, .fini = tkt_analyze_teardown, .timeout = 600);

#define FIX TK_SOURCE_DIR "/tests/data/analyze/comm/"

/* Import the 4 fixture files "<prefix>rank<r>.json" into tkt_db and analyze it. */
static void import_fixture(const char *prefix)
{
	char p[4][512];
	for (int r = 0; r < 4; r++)
		snprintf(p[r], sizeof(p[r]), FIX "%srank%d.json", prefix, r);
	struct tkt_run run = tkt_tracekit("import", p[0], p[1], p[2], p[3], "-o", tkt_db, NULL);
	cr_assert_eq(run.code, 0, "import: %s", run.err);
	tkt_run_free(&run);
	tkt_analyze(tkt_db, TK_WINDOW_AUTO, -1);
}

#define RANK_COLS                                                                                \
	"SELECT device_id, rank, collectives, unmatched, times_last, total_skew_ns, "            \
	"max_skew_ns, late_skew_ns, comm_ns, total_wait_ns, straggler FROM analysis_comm_ranks " \
	"ORDER BY device_id"

/*
 * Times in us after the base; every collective is an all-reduce of process group "0"; its
 * members end together. The threshold is max(10 us, ceil(lower median member duration / 10)).
 *   seq 1: r0-r2 at 1000, r3 at 1200, end 2200: durations 1200 x3, 1000; median 1200, threshold
 *          120; spread 200 -> r3 last; r0-r2 wait 200.
 *   seq 2: 3000 / r3 3300, end 4300: threshold 130, spread 300 -> r3 last; others wait 300.
 *   seq 3: 5000 / r3 5150, end 6150: threshold 115, spread 150 -> r3 last; others wait 150.
 *   seq 4: r2 at 7005, the others 7000, end 8005: spread 5 < 10 us floor -> no one last (the
 *          tiny skew must not fire); r0, r1, r3 wait 5.
 *   seq 5: r1 at 9050, the others 9000, end 10050: spread 50 >= 10 us but < 105 (10 % of the
 *          1050 median) -> no one last; r0, r2, r3 wait 50.
 *   seq 6: 11000 / r3 11400, end 12400: threshold 140, spread 400 -> r3 last; others wait 400.
 *   seq 7: r1-r3 at 13000, end 14000 (r0's trace lacks it): 3 members, no skew.
 *   seq 8: r0 at 13500, r1-r3 at 14100, end 15100: durations 1600, 1000 x3; median 1000,
 *          threshold 100; spread 600 -> r1, r2, r3 all last (tied); r0 waits 600.
 *   r2 also has a kernel alone in process group "1" at [16000, 16100): unmatched.
 * Per rank: r0 waits 200+300+150+5+50+400+600 = 1705 of 8705 us of communication; r1
 * 200+300+150+5+400 = 1055 (skews 50 + 600); r2 200+300+150+50+400 = 1100 (skews 5 + 600);
 * r3 5+50 = 55, last in 1, 2, 3, 6, 8: 5 of 8 > 1.5 x chance (7 x 1/4 + 1/3) / 8 -> straggler.
 */
Test(analyze_comm, sequence_numbers_match_four_ranks)
{
	import_fixture("");
	tkt_expect_rows(tkt_db, RANK_COLS,
			"0|0|7|0|0|0|0|0|8705000|1705000|0\n"
			"1|1|8|0|1|650000|600000|600000|9055000|1055000|0\n"
			"2|2|8|1|1|605000|600000|600000|9200000|1100000|0\n"
			"3|3|8|0|5|1650000|600000|1650000|8055000|55000|1");
	/* rank 0's seq 8 waited for the others' seq 8, not their seq 7 */
	tkt_expect_rows(
	    tkt_db,
	    "SELECT seq, matched_by, members, skew_ns, wait_ns, threshold_ns, last FROM "
	    "analysis_comm WHERE device_id = 0 AND seq >= 7",
	    "8|seq|4|0|600000|100000|0");
	tkt_expect_rows(tkt_db,
			"SELECT seq, members, count(*), sum(last), min(skew_ns), max(skew_ns) FROM "
			"analysis_comm WHERE process_group = '0' GROUP BY seq ORDER BY seq",
			"1|4|4|1|0|200000\n2|4|4|1|0|300000\n3|4|4|1|0|150000\n4|4|4|0|0|5000\n"
			"5|4|4|0|0|50000\n6|4|4|1|0|400000\n7|3|3|0|0|0\n8|4|4|3|0|600000");
	tkt_expect_rows(tkt_db,
			"SELECT device_id, process_group, matched_by IS NULL, instance IS NULL, "
			"members, skew_ns IS NULL, wait_ns IS NULL, last FROM analysis_comm WHERE "
			"process_group = '1'",
			"2|1|1|1|1|1|1|0");
	/* the straggler finding names rank 3, its collective and its skew in human units */
	tkt_expect_rows(
	    tkt_db,
	    "SELECT device_id, severity, metric, summary FROM analysis_findings WHERE "
	    "rule = 'straggler'",
	    "3|medium|62.5|rank 3 (device 3) started last in 5 of its 8 matched "
	    "collectives (63%; chance 26%), by 330.0 us on average (largest 600.0 us): the "
	    "other ranks waited for it; most often in "
	    "ncclDevKernel_AllReduce_Sum_f32_RING_LL");
}

/*
 * The same kernels without "Seq": matched by call order (same name, group, size, dtype). Rank
 * 0's first kernel after seq 6 (its seq 8, [13500, 15100)) overlaps the others' seq 7
 * ([13000, 14000)), so order pairs them: rank 0 is blamed as last by 500 us (threshold 100) and
 * the others wait 500 there; their seq 8 becomes a 3-member collective without skew. Only the
 * sequence numbers (test above) pair it right.
 */
Test(analyze_comm, call_order_when_there_are_no_sequence_numbers)
{
	import_fixture("noseq_");
	tkt_expect_rows(tkt_db, RANK_COLS,
			"0|0|7|0|1|500000|500000|500000|8705000|1105000|0\n"
			"1|1|8|0|0|50000|50000|0|9055000|1555000|0\n"
			"2|2|8|1|0|5000|5000|0|9200000|1600000|0\n"
			"3|3|8|0|4|1050000|400000|1050000|8055000|555000|1");
	tkt_expect_rows(tkt_db, "SELECT DISTINCT matched_by FROM analysis_comm ORDER BY matched_by",
			"NULL\norder");
	tkt_expect_rows(
	    tkt_db,
	    "SELECT device_id, start_ns - 1700000000000000000, members, skew_ns, wait_ns, "
	    "last FROM analysis_comm WHERE instance = (SELECT instance FROM analysis_comm "
	    "WHERE device_id = 0 AND start_ns = 1700000000013500000) ORDER BY device_id",
	    "0|13500000|4|500000|0|1\n1|13000000|4|0|500000|0\n"
	    "2|13000000|4|0|500000|0\n3|13000000|4|0|500000|0");
}

/*
 * A synthetic 2-rank training trace: whatever the matching, a rank's wait lies inside its
 * collectives, so its total wait never exceeds its communication time (the demo showed 13.2 s
 * of wait against 345 ms of communication before the bound).
 */
Test(analyze_comm, wait_never_exceeds_communication_time)
{
	struct tkt_run run = tkt_tracekit("synth", "-o", tkt_db, "--events", "30000", "--devices",
					  "2", "--steps", "4", "--seed", "1", NULL);
	cr_assert_eq(run.code, 0, "synth: %s", run.err);
	tkt_run_free(&run);
	tkt_analyze(tkt_db, TK_WINDOW_AUTO, -1);
	cr_expect_eq(tkt_query_int(tkt_db, "SELECT count(*) FROM analysis_comm_ranks"), 2);
	cr_expect_eq(tkt_query_int(tkt_db,
				   "SELECT count(*) FROM analysis_comm_ranks WHERE "
				   "total_wait_ns > comm_ns OR comm_ns <> (SELECT comm_ns FROM "
				   "analysis_device_time d WHERE d.device_id = "
				   "analysis_comm_ranks.device_id AND d.selected = 1)"),
		     0);
	cr_expect_eq(tkt_query_int(tkt_db, "SELECT count(*) FROM analysis_comm WHERE wait_ns > "
					   "dur_ns OR wait_ns < 0"),
		     0);
}

/*
 * HTA's trace_filter sample: ranks 0 and 1 of a 128-rank job, SendRecv kernels without
 * collective args, some dropped by the sampling. Figures from
 * tests/data/analyze/comm_figures.py on the raw files: 5 collectives match (their members end
 * within 0.2 ms of each other), 5 kernels per rank are left unmatched.
 */
Test(analyze_comm, hta_sampled_ranks_agree_with_python)
{
	const char *rel = "kineto/HolisticTraceAnalysis/tests/data/trace_filter/sampled_rank-";
	char r0[256], r1[256];
	snprintf(r0, sizeof(r0), "%s0.json.gz", rel);
	snprintf(r1, sizeof(r1), "%s1.json.gz", rel);
	char *p0 = tkt_real(r0), *p1 = tkt_real(r1);
	struct tkt_run run = tkt_tracekit("import", p0, p1, "-o", tkt_db, NULL);
	free(p0);
	free(p1);
	cr_assert_eq(run.code, 0, "import: %s", run.err);
	tkt_run_free(&run);
	tkt_analyze(tkt_db, TK_WINDOW_DEVICE, -1);
	tkt_expect_rows(
	    tkt_db,
	    "SELECT device_id, collectives, unmatched, times_last, total_skew_ns, "
	    "max_skew_ns, late_skew_ns, comm_ns, total_wait_ns FROM analysis_comm_ranks "
	    "ORDER BY device_id",
	    "0|5|5|0|0|0|0|396199000|31865000\n"
	    "1|5|5|2|31865000|22328000|25630000|379053000|0");
	tkt_expect_rows(tkt_db,
			"SELECT device_id, start_ns, dur_ns, members, skew_ns, wait_ns, last FROM "
			"analysis_comm WHERE instance IS NOT NULL ORDER BY device_id, start_ns",
			"0|1682725898125052000|62783000|2|0|4859000|0\n"
			"0|1682725898295662000|11727000|2|0|3302000|0\n"
			"0|1682725898585321000|42496000|2|0|84000|0\n"
			"0|1682725899146327000|36158000|2|0|22328000|0\n"
			"0|1682725899185890000|63644000|2|0|1292000|0\n"
			"1|1682725898129911000|57924000|2|4859000|0|0\n"
			"1|1682725898298964000|8370000|2|3302000|0|1\n"
			"1|1682725898585405000|42744000|2|84000|0|0\n"
			"1|1682725899168655000|13838000|2|22328000|0|1\n"
			"1|1682725899187182000|62163000|2|1292000|0|0");
	cr_expect_eq(tkt_query_int(tkt_db, "SELECT count(*) FROM analysis_findings WHERE rule = "
					   "'straggler'"),
		     0);
}

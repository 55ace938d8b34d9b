/*
 * Clock offsets between hosts (analysis_clock_offsets, --align-clocks, the clock_offset finding;
 * docs/metrics.md "analysis_clock_offsets"): 2 hosts x 2 ranks of Kineto written by
 * tests/data/analyze/clock/make_fixture.py, host B's clock planted 3.5 ms ahead, rank 1 300 us
 * late in every collective. The figures are worked out by that script ("python3
 * make_fixture.py" prints them): per collective host B's lower-median end minus host A's is
 * 3500 us plus the difference of two end jitters (-3..+3 us each); over the 12 collectives the
 * median is 3501 us, the rank-based 95 % interval (ranks 2 and 9 of 0..11) spans 5 us: +/- 2.5 us.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tracekit/tracekit.h>

#include "tk_analyze_store.h"

TestSuite(analyze_clock, .init = tkt_analyze_setup, .fini = tkt_analyze_teardown, .timeout = 600);

#define FIX TK_SOURCE_DIR "/tests/data/analyze/clock/"

/* Import the fixture files "<prefix>rank<r>.json" for r in [0, n) into tkt_db. */
static void import_ranks(const char *prefix, int n)
{
	char p[4][512];
	for (int r = 0; r < 4; r++)
		snprintf(p[r], sizeof(p[r]), FIX "%srank%d.json", prefix, r);
	struct tkt_run run =
	    n == 4 ? tkt_tracekit("import", p[0], p[1], p[2], p[3], "-o", tkt_db, NULL)
		   : tkt_tracekit("import", p[0], p[1], "-o", tkt_db, NULL);
	cr_assert_eq(run.code, 0, "import: %s", run.err);
	tkt_run_free(&run);
}

/* tracekit analyze STORE -q [--align-clocks] */
static void analyze(int align)
{
	struct tkt_run run = align ? tkt_tracekit("analyze", tkt_db, "-q", "--align-clocks", NULL)
				   : tkt_tracekit("analyze", tkt_db, "-q", NULL);
	cr_assert_eq(run.code, 0, "analyze: %s", run.err);
	tkt_run_free(&run);
}

#define OFFSETS                                                                          \
	"SELECT host, reference_host, devices, offset_ns, uncertainty_ns, collectives, " \
	"via_host, applied FROM analysis_clock_offsets ORDER BY rowid"
#define STRAGGLERS \
	"SELECT device_id, times_last, straggler FROM analysis_comm_ranks ORDER BY device_id"

Test(analyze_clock, planted_offset_is_estimated_within_its_uncertainty)
{
	import_ranks("", 4);
	analyze(0);
	tkt_expect_rows(tkt_db, OFFSETS,
			"node-a|node-a|2|0|0|12|NULL|0\n"
			"node-b|node-a|2|3501000|2500|12|node-a|0");
	cr_expect_eq(tkt_query_int(tkt_db, "SELECT count(*) FROM analysis_clock_offsets WHERE "
					   "host = 'node-b' AND abs(offset_ns - 3500000) <= "
					   "uncertainty_ns AND uncertainty_ns <= 10000"),
		     1, "the planted 3.5 ms lies within the uncertainty, and that is small");
	/* on the clocks as stored host B's ranks start 3.5 ms "late" in every collective */
	tkt_expect_rows(tkt_db, STRAGGLERS, "0|0|0\n1|0|0\n2|12|1\n3|12|1");
	tkt_expect_rows(tkt_db,
			"SELECT rule, metric, threshold, json_extract(evidence, '$.host') FROM "
			"analysis_findings WHERE rule = 'clock_offset'",
			"clock_offset|3501.0|10.0|node-b");
}

Test(analyze_clock, aligned_clocks_name_the_late_rank)
{
	import_ranks("", 4);
	int64_t ts = tkt_query_int(tkt_db, "SELECT sum(ts_ns - 1700000000000000000) FROM events");
	analyze(1);
	tkt_expect_rows(tkt_db, OFFSETS,
			"node-a|node-a|2|0|0|12|NULL|1\n"
			"node-b|node-a|2|3501000|2500|12|node-a|1");
	/* rank 1 is 300 us late on the true clock; host B's ranks are not */
	tkt_expect_rows(tkt_db, STRAGGLERS, "0|0|0\n1|12|1\n2|0|0\n3|0|0");
	cr_expect_eq(tkt_query_int(tkt_db, "SELECT max(skew_ns) FROM analysis_comm WHERE "
					   "device_id IN (2, 3)"),
		     9000, "host B's skews are its 0..10 us start lag, not the offset");
	/* nothing is rewritten: the events and analysis_comm.start_ns keep the stored clock */
	cr_expect_eq(tkt_query_int(tkt_db, "SELECT sum(ts_ns - 1700000000000000000) FROM events"),
		     ts);
	cr_expect_eq(tkt_query_int(tkt_db, "SELECT count(*) FROM analysis_comm c JOIN events e "
					   "ON e.id = c.event_id WHERE c.start_ns <> e.ts_ns"),
		     0);
	cr_expect_eq(tkt_query_int(tkt_db, "SELECT count(*) FROM analysis_findings WHERE rule = "
					   "'clock_offset'"),
		     0, "no hint once applied");
}

Test(analyze_clock, one_host_has_no_rows)
{
	import_ranks("", 2); /* ranks 0 and 1: node-a only */
	analyze(1);
	cr_expect_eq(tkt_query_int(tkt_db, "SELECT count(*) FROM analysis_clock_offsets"), 0);
	tkt_expect_rows(tkt_db, STRAGGLERS, "0|0|0\n1|12|1");
}

/* Host A's ranks in process group "0", host B's in "1": no collective spans the hosts. */
Test(analyze_clock, hosts_without_a_shared_collective_get_no_estimate)
{
	import_ranks("apart_", 4);
	analyze(1);
	tkt_expect_rows(tkt_db, OFFSETS,
			"node-a|node-a|2|NULL|NULL|0|NULL|0\n"
			"node-b|node-a|2|NULL|NULL|0|NULL|0");
	tkt_expect_rows(tkt_db, STRAGGLERS, "0|0|0\n1|12|1\n2|0|0\n3|0|0");
}

/*
 * Without sequence numbers nothing is estimated: call order matches by time overlap, and with
 * host B 3.5 ms ahead and a collective every 2 ms it pairs host A's collective s + 1 with host B's
 * s (they overlap), which would alias the offset to -0.5 ms.
 */
Test(analyze_clock, no_estimate_without_sequence_numbers)
{
	import_ranks("noseq_", 4);
	analyze(1);
	tkt_expect_rows(tkt_db, OFFSETS,
			"node-a|node-a|2|NULL|NULL|0|NULL|0\n"
			"node-b|node-a|2|NULL|NULL|0|NULL|0");
}

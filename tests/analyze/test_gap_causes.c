/*
 * Tests of the idle gap causes (docs/metrics.md, "Idle gaps"): host_bound, kernel_wait, sync
 * (with the synchronization that explains it), dependency and unknown, on a hand-written Kineto
 * trace where each occurs with lengths known by construction (tests/data/analyze/gap_causes.json,
 * launches by correlation id, and gap_causes_flows.json, the same with ac2g launch flows), the
 * gpu_idle finding whose fix follows the cause with the most idle time, and real Kineto traces
 * against the figures tests/data/analyze/time_figures.py computes from the raw files.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include <tracekit/tracekit.h>

#include "tk_analyze_store.h"

#define DATA TK_SOURCE_DIR "/tests/data/analyze/"

TestSuite(gap_causes, .init = tkt_analyze_setup, .fini = tkt_analyze_teardown, .timeout = 600);
TestSuite(full_corpus, .init = tkt_analyze_setup, .fini = tkt_analyze_teardown, .timeout = 900);

static void import_analyze(const char *json)
{
	struct tkt_run r = tkt_tracekit("import", json, "-o", tkt_db, NULL);
	cr_assert_eq(r.code, 0, "import %s: exit %d\n%s", json, r.code, r.err);
	tkt_run_free(&r);
	tkt_analyze(tkt_db, TK_WINDOW_AUTO, -1);
}

/*
 * The fixture (us after 1700000000000000 us; stream 7 of device 0; thread 100 "main" launches
 * every op, thread 200 "other" only synchronizes):
 *   [1100,1150) 50  host_bound   elem_b launched at 1120, after the gap began
 *   [1200,1210) 10  kernel_wait  elem_c queued at 1130; the gap is under 30 us
 *   [1300,1400) 100 sync         gemm_d queued at 1140; main blocks in cudaStreamSynchronize
 *                                [1150,1395) (95 us of the gap; the nested cuStreamSynchronize
 *                                [1160,1390) overlaps less)
 *   [1450,1500) 50  dependency   gemm_e queued at 1396; the syncs during the gap are on the other
 *                                thread (cudaDeviceSynchronize) or the device track (Kineto's
 *                                Stream Sync row), and cudaStreamWaitEvent does not block main
 *   [1600,1700) 100 sync         the D2H copy queued at 1590 by the cudaMemcpy that blocks main
 *                                until 1720
 *   [1710,1800) 90  unknown      elem_f has no launching call (correlation 99)
 *   [1850,1880) 30  host_bound   elem_g launched at 1870: late, although main was in a
 *                                cudaDeviceSynchronize when the gap began
 *   [1900,1930) 30  dependency   elem_h queued at 1875: exactly 30 us is not kernel_wait
 *   [1950,1959) 9   kernel_wait  elem_i queued at 1880
 */
static const char *const fixture_rows =
    "1100000|50000|host_bound|1120000|elem_b|NULL|NULL|NULL\n"
    "1200000|10000|kernel_wait|1130000|elem_c|NULL|NULL|NULL\n"
    "1300000|100000|sync|1140000|gemm_d|cudaStreamSynchronize|cudaStreamSynchronize|100\n"
    "1450000|50000|dependency|1396000|gemm_e|NULL|NULL|NULL\n"
    "1600000|100000|sync|1590000|Memcpy DtoH (Device -> Pageable)|cudaMemcpy|cudaMemcpy|100\n"
    "1710000|90000|unknown|NULL|elem_f|NULL|NULL|NULL\n"
    "1850000|30000|host_bound|1870000|elem_g|NULL|NULL|NULL\n"
    "1900000|30000|dependency|1875000|elem_h|NULL|NULL|NULL\n"
    "1950000|9000|kernel_wait|1880000|elem_i|NULL|NULL|NULL";

#define FIXTURE_SQL                                                                              \
	"SELECT g.start_ns - 1700000000000000000, g.dur_ns, g.cause,"                            \
	" g.launch_ts_ns - 1700000000000000000, g.next_name, g.explained_by_name, a.name, a.tid" \
	" FROM analysis_gaps g LEFT JOIN api_calls a ON a.id = g.explained_by_event_id"          \
	" ORDER BY g.id"

Test(gap_causes, each_cause_by_correlation_ids)
{
	import_analyze(DATA "gap_causes.json");
	cr_expect_eq(tkt_query_int(tkt_db, "SELECT count(*) FROM flows"), 0);
	tkt_expect_rows(tkt_db, FIXTURE_SQL, fixture_rows);
}

Test(gap_causes, each_cause_by_launch_flows)
{
	import_analyze(DATA "gap_causes_flows.json");
	cr_expect_eq(tkt_query_int(tkt_db, "SELECT count(*) FROM flows WHERE kind = 'launch'"), 9);
	tkt_expect_rows(tkt_db, FIXTURE_SQL, fixture_rows);
}

/* Idle 469 of 970 us (48.4 %): sync has the most (200 us), so the fix names the call that
 * explains the most sync time (a tie of 100 us: the first by name). */
Test(gap_causes, gpu_idle_fix_follows_the_dominant_cause)
{
	import_analyze(DATA "gap_causes.json");
	tkt_expect_rows(
	    tkt_db,
	    "SELECT severity, summary, json_extract(evidence, '$.by_cause'),"
	    " json_extract(evidence, '$.sync_calls'), json_extract(evidence, "
	    "'$.top[0].explained_by'),"
	    " fix LIKE 'The device idles while the launching thread blocks in cudaMemcpy:%'"
	    " FROM analysis_findings WHERE rule = 'gpu_idle'",
	    "medium|device 0 is idle 48.4% of its device window (469000 ns); most idle time is "
	    "sync|{\"dependency\":80000,\"host_bound\":80000,\"kernel_wait\":19000,\"sync\":200000,"
	    "\"unknown\":90000}|[{\"name\":\"cudaMemcpy\",\"gaps\":1,\"idle_ns\":100000},"
	    "{\"name\":\"cudaStreamSynchronize\",\"gaps\":1,\"idle_ns\":100000}]|"
	    "cudaStreamSynchronize|1");
	/* the KPI's host-bound idle is the host_bound rows: 80 us of 970 */
	tkt_expect_rows(
	    tkt_db, "SELECT printf('%.4f', value) FROM analysis_kpi WHERE kpi = 'host_overhead'",
	    "8.2474");
}

/* The report names the call behind each sync gap: the text's largest gaps and the JSON rows. */
Test(gap_causes, report_shows_the_sync_call)
{
	import_analyze(DATA "gap_causes.json");
	struct tkt_run r = tkt_tracekit("report", tkt_db, "--no-color", "--width", "120", NULL);
	cr_assert_eq(r.code, 0, "report: exit %d\n%s", r.code, r.err);
	cr_expect_not_null(strstr(r.out, "100.00 µs  sync         cudaStreamSynchronize\n"), "%s",
			   r.out);
	cr_expect_not_null(strstr(r.out, "100.00 µs  sync         cudaMemcpy\n"), "%s", r.out);
	cr_expect_not_null(strstr(r.out, "host_bound  kernel_wait  sync  dependency  unknown"),
			   "%s", r.out);
	tkt_run_free(&r);
	r = tkt_tracekit("report", tkt_db, "--format", "json", NULL);
	cr_assert_eq(r.code, 0, "report: exit %d\n%s", r.code, r.err);
	cr_expect_not_null(strstr(r.out, "\"cause\": \"sync\""), "%s", r.out);
	cr_expect_not_null(strstr(r.out, "\"explained_by_name\": \"cudaStreamSynchronize\""), "%s",
			   r.out);
	tkt_run_free(&r);
}

/* HTA's trace_filter sample (rank 0): launches by correlation id, events sampled out, so queued
 * ops wait long with nothing to explain it. time_figures.py: host_bound 272 365832000,
 * kernel_wait 305 2708000, sync 0 0, dependency 355 309538000, unknown 1 4506000. */
Test(gap_causes, sampled_kineto_trace_agrees_with_python)
{
	tkt_import_corpus(
	    "kineto/HolisticTraceAnalysis/tests/data/trace_filter/sampled_rank-0.json.gz", tkt_db);
	/* time_figures.py's steps window is the host ProfilerStep intervals */
	tkt_analyze(tkt_db, TK_WINDOW_HOST_STEPS, -1);
	tkt_expect_rows(tkt_db,
			"SELECT cause, count(*), sum(dur_ns) FROM analysis_gaps GROUP BY cause "
			"ORDER BY cause",
			"dependency|355|309538000\nhost_bound|272|365832000\n"
			"kernel_wait|305|2708000\nunknown|1|4506000");
}

/* HTA's ns_resolution trace (V100, launch flows): its 5026 queued sub-30 us gaps are kernel_wait,
 * none sync. time_figures.py: host_bound 48 4835548, kernel_wait 5026 5251090. */
Test(gap_causes, ns_resolution_trace_short_queued_gaps_are_kernel_wait)
{
	tkt_import_corpus("kineto/HolisticTraceAnalysis/tests/data/ns_resolution_trace/"
			  "rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz",
			  tkt_db);
	/* time_figures.py's steps window is the host ProfilerStep intervals */
	tkt_analyze(tkt_db, TK_WINDOW_HOST_STEPS, -1);
	tkt_expect_rows(tkt_db,
			"SELECT cause, count(*), sum(dur_ns), max(dur_ns) FROM analysis_gaps "
			"GROUP BY cause ORDER BY cause",
			"host_bound|48|4835548|3488423\nkernel_wait|5026|5251090|22656");
}

/* HTA's negative_queue_length trace (A100, launch flows, CUDA graphs, D2H copies to pageable
 * memory): time_figures.py: host_bound 99 13801000, kernel_wait 5195 18521000, sync 11 26236000
 * (all 11 by cudaStreamSynchronize on the launching thread), dependency 216 541263000,
 * unknown 693 92781000. */
Test(full_corpus, negative_queue_trace_sync_gaps_agree_with_python)
{
	tkt_import_corpus(
	    "kineto/HolisticTraceAnalysis/tests/data/negative_queue_length_values_check/"
	    "rank0.json.gz",
	    tkt_db);
	/* time_figures.py's steps window is the host ProfilerStep intervals */
	tkt_analyze(tkt_db, TK_WINDOW_HOST_STEPS, -1);
	tkt_expect_rows(tkt_db,
			"SELECT cause, count(*), sum(dur_ns), group_concat(DISTINCT "
			"explained_by_name) FROM analysis_gaps GROUP BY cause ORDER BY cause",
			"dependency|216|541263000|NULL\nhost_bound|99|13801000|NULL\n"
			"kernel_wait|5195|18521000|NULL\nsync|11|26236000|cudaStreamSynchronize\n"
			"unknown|693|92781000|NULL");
	/* every sync gap names a call on the thread that launched the op after it */
	cr_expect_eq(
	    tkt_query_int(tkt_db,
			  "SELECT count(*) FROM analysis_gaps g JOIN events s ON s.id = "
			  "g.explained_by_event_id JOIN flows f ON f.dst_event_id = "
			  "g.next_event_id AND f.kind = 'launch' JOIN events l ON l.id = "
			  "f.src_event_id WHERE g.cause = 'sync' AND l.track_id = s.track_id "
			  "AND s.ts_ns < g.end_ns AND s.ts_ns + s.dur_ns > g.start_ns"),
	    11);
}

/*
 * Kernel launch statistics (analysis_launch_stats), queue length per stream
 * (analysis_queue_length, analysis_queue_timeline) and their findings (launch_queue_empty,
 * device_bound_queue) on hand-written Kineto traces whose figures are known by construction
 * (tests/data/analyze/launch/), with launch flows and with correlation ids only; and on three
 * real traces against tests/data/analyze/launch_figures.py, which computes both tables from the
 * raw JSON by the rules of docs/metrics.md (two traces with launch flows, one with correlation
 * ids only) and on edge.json, the cases those do not show (with its flows, and as
 * edge_noflows without them: grep -v ac2g edge.json). The script's printed figures are in
 * tests/data/analyze/launch/: NAME.txt (launch_figures.py TRACE), NAME.queue_device.txt (TRACE
 * --queue device) and NAME.queue.txt (TRACE --queue NAME.steps: the steps window, from the step
 * intervals tracekit placed, which NAME.steps holds as analysis_steps has them).
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tk_analyze_store.h"

TestSuite(launch_stats, .init = tkt_analyze_setup, .fini = tkt_analyze_teardown, .timeout = 300);

static char *fixture(const char *name)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/tests/data/analyze/launch/%s", TK_SOURCE_DIR, name);
	return strdup(path);
}

/* A copy of the trace @src without its ac2g flow lines, in the test's directory; its path. */
static char *without_flows(const char *src)
{
	char *text = tkt_slurp(src, NULL), *out = malloc(strlen(text) + 1), *o = out;
	cr_assert(text && out);
	for (char *line = text; *line;) {
		char *nl = strchr(line, '\n');
		size_t n = nl ? (size_t)(nl - line) + 1 : strlen(line);
		if (nl)
			*nl = '\0';
		int flow = strstr(line, "\"ac2g\"") != NULL;
		if (nl)
			*nl = '\n';
		if (!flow) {
			memcpy(o, line, n);
			o += n;
		}
		line += n;
	}
	/* the last kept event may end in a comma now: the flows were the last lines */
	*o = '\0';
	char *end = strstr(out, "\n  ]");
	cr_assert(end);
	if (end[-1] == ',')
		end[-1] = ' ';
	char *path = tkt_path(tkt_dir, "noflows.json");
	tkt_spit(path, out, (size_t)(o - out));
	free(text);
	free(out);
	return path;
}

/* Import @json (a copy without its ac2g flow lines when @no_flows) and analyse it. */
static void load(const char *name, int no_flows, const char *window)
{
	char *src = fixture(name);
	if (no_flows) {
		char *copy = without_flows(src);
		free(src);
		src = copy;
	}
	tkt_ok(tkt_tracekit("import", src, "-o", tkt_db, NULL));
	tkt_ok(tkt_tracekit("analyze", tkt_db, "--window", window, NULL));
	free(src);
}

#define LS_COLS                                                                                    \
	"SELECT kind, name, ops, launches, device_ns, call_total_ns, call_mean_ns, "               \
	"call_median_ns, call_p90_ns, call_max_ns, delay_mean_ns, delay_median_ns, "               \
	"delay_p90_ns, delay_max_ns, queue_mean_ns, queue_median_ns, queue_p90_ns, queue_max_ns, " \
	"call_outliers, delay_outliers, short_launches, short_share FROM analysis_launch_stats "   \
	"ORDER BY name"

#define QL_COLS                                                                                   \
	"SELECT stream_id, window, window_ns, ops, launched, max_length, mean_length, empty_ns, " \
	"empty_share, longest_empty_ns, longest_empty_start_ns - 1700000000000000000, "           \
	"max_waiting, mean_waiting, waiting_share FROM analysis_queue_length ORDER BY "           \
	"track_id IS NULL, stream_id"

/*
 * host_bound.json, times in us from T = 1700000000000000 us, one host thread, device 0:
 *   call [start, dur] -> kernel [start, end) on stream
 *   kA [0,5]->[10,20) s7   kA [6,4]->[20,30) s7   kB [11,60]->[72,73) s7   kB [75,5]->[81,83) s7
 *   kA [300,5]->[310,320) s7   kC [321,4]->[400,500) s7   kC [326,4]->[500,600) s7
 *   kC [331,4]->[600,700) s7   kD [336,4]->[340,450) s8
 * kA: calls 5,4,5 (total 14, mean 14/3, median 5, p90 5), delays 10,14,10, queue 5,10,5.
 * kB: calls 60 (> 50 us: an outlier) and 5, delays 61, 6, queue 1, 1; the second kernel runs
 * 2 us < its 5 us call (a short launch; the first's call is an outlier, so not short).
 * kC: calls 4, delays 79, 174, 269, queue 75, 170 and 265 (two > 100 us). kD: 4, 4, 0.
 * Window [10, 700) us = 690 us. Stream 7 in flight: 2 [10,11), 3 [11,20), 2 [20,30), 1 [30,73),
 * 0 [73,75), 1 [75,83), 0 [83,300), 1 [300,320), 0 [320,321), 1 [321,326), 2 [326,331),
 * 3 [331,500), 2 [500,600), 1 [600,700): integral 942 us, empty 220 us, longest [83,300).
 * Waiting: 1 [10,11), 2 [11,20), 1 [20,72), 1 [75,81), 1 [300,310), 1 [321,326), 2 [326,331),
 * 3 [331,400), 2 [400,500), 1 [500,600): integral 609, waiting 357 us. Stream 8: in flight
 * [336,450) (114 us), waiting [336,340), longest empty [10,336). The device: 4 at most (3 + 1 in
 * [336,340)), integral 1056, waiting integral 613, empty 220 us (31.9 %: launch_queue_empty,
 * high); the host ops around [83,300): outer_step [0,710) overlaps 217 us, aten::copy_ [100,280)
 * 180 us.
 */
static const char host_bound_ls[] =
    "kernel|kA|3|3|30000|14000|4666.66666666667|5000.0|5000|5000|11333.3333333333|10000.0|"
    "14000|14000|6666.66666666667|5000.0|10000|10000|0|0|0|0.0\n"
    "kernel|kB|2|2|3000|65000|32500.0|32500.0|60000|60000|33500.0|33500.0|61000|61000|1000.0|"
    "1000.0|1000|1000|1|0|1|0.5\n"
    "kernel|kC|3|3|300000|12000|4000.0|4000.0|4000|4000|174000.0|174000.0|269000|269000|"
    "170000.0|170000.0|265000|265000|0|2|0|0.0\n"
    "kernel|kD|1|1|110000|4000|4000.0|4000.0|4000|4000|4000.0|4000.0|4000|4000|0.0|0.0|0|0|"
    "0|0|0|0.0";

static const char host_bound_ql[] =
    "7|device|690000|8|8|3|1.36521739130435|220000|0.318840579710145|217000|83000|3|"
    "0.882608695652174|0.517391304347826\n"
    "8|device|690000|1|1|1|0.165217391304348|576000|0.834782608695652|326000|10000|1|"
    "0.00579710144927536|0.00579710144927536\n"
    "NULL|device|690000|9|9|4|1.5304347826087|220000|0.318840579710145|217000|83000|4|"
    "0.888405797101449|0.517391304347826";

static void expect_host_bound(void)
{
	tkt_expect_rows(tkt_db, LS_COLS, host_bound_ls);
	tkt_expect_rows(tkt_db, QL_COLS, host_bound_ql);
	/* the integrals exactly, not through the printed REALs */
	cr_expect_eq(tkt_query_int(tkt_db, "SELECT round(mean_length * window_ns) FROM "
					   "analysis_queue_length WHERE stream_id = 7"),
		     942000);
	cr_expect_eq(tkt_query_int(tkt_db, "SELECT round(mean_waiting * window_ns) FROM "
					   "analysis_queue_length WHERE track_id IS NULL"),
		     613000);
	/* the timeline: 999 buckets of 691 ns over [10, 700) us, the same maximum and integral */
	tkt_expect_rows(
	    tkt_db,
	    "SELECT count(*), min(start_ns) - 1700000000000000000, max(end_ns) - "
	    "1700000000000000000, max(max_length), max(max_waiting), "
	    "round(sum(mean_length * (end_ns - start_ns))) FROM analysis_queue_timeline "
	    "GROUP BY track_id ORDER BY track_id IS NULL, track_id",
	    "999|10000|700000|3|3|942000.0\n"
	    "999|10000|700000|1|1|114000.0\n"
	    "999|10000|700000|4|4|1056000.0");
}

Test(launch_stats, host_bound_trace_with_flows_has_the_figures_by_construction)
{
	load("host_bound.json", 0, "device");
	cr_expect_eq(tkt_query_int(tkt_db, "SELECT count(*) FROM flows WHERE kind = 'launch'"), 9);
	expect_host_bound();
}

Test(launch_stats, correlation_ids_alone_give_the_same_figures)
{
	load("host_bound.json", 1, "device");
	cr_expect_eq(tkt_query_int(tkt_db, "SELECT count(*) FROM flows"), 0);
	expect_host_bound();
}

Test(launch_stats, host_bound_stretch_fires_launch_queue_empty_with_the_host_ops)
{
	load("host_bound.json", 0, "device");
	tkt_expect_rows(
	    tkt_db,
	    "SELECT rule, severity, round(metric, 4), threshold, json_extract(evidence, "
	    "'$.empty_ns'), json_extract(evidence, '$.longest_empty_ns'), json_extract(evidence, "
	    "'$.longest_empty_start_ns') - 1700000000000000000, json_extract(evidence, "
	    "'$.top[0].name'), json_extract(evidence, '$.top[0].overlap_ns'), json_extract("
	    "evidence, '$.top[1].name'), json_extract(evidence, '$.top[1].overlap_ns'), "
	    "json_array_length(evidence, '$.top') FROM analysis_findings WHERE rule GLOB "
	    "'*queue*'",
	    "launch_queue_empty|high|31.8841|10.0|220000|217000|83000|outer_step|217000|"
	    "aten::copy_|180000|2");
	cr_expect(tkt_query_int(tkt_db, "SELECT count(*) FROM analysis_findings WHERE rule = "
					"'launch_queue_empty' AND fix LIKE '%CUDA graph%'") == 1);
}

/*
 * The host ops around the stretch are found from the longest host op of the process before it:
 * a 1 us op added on the same thread at [650, 651) us leaves outer_step [0, 710), which starts
 * 83 us before the stretch, the op with the most overlap (the search must reach back by the
 * longest op, not the shortest).
 */
Test(launch_stats, launch_queue_empty_reaches_back_to_the_longest_host_op)
{
	load("host_bound.json", 0, "device");
	tkt_exec_sql(tkt_db, "INSERT INTO strings (str) VALUES ('aten::empty');"
			     "INSERT INTO events (track_id, kind, name_id, category_id, ts_ns, "
			     "dur_ns) SELECT track_id, kind, (SELECT id FROM strings WHERE str = "
			     "'aten::empty'), category_id, 1700000000650000000, 1000 FROM events "
			     "WHERE kind = 1 ORDER BY id LIMIT 1");
	tkt_ok(tkt_tracekit("analyze", tkt_db, "--window", "device", NULL));
	cr_expect_eq(tkt_query_int(tkt_db, "SELECT min(max_ns) FROM analysis_op_profile WHERE "
					   "level = 'host_op'"),
		     1000);
	tkt_expect_rows(tkt_db,
			"SELECT json_extract(evidence, '$.top[0].name'), json_extract(evidence, "
			"'$.top[0].overlap_ns') FROM analysis_findings WHERE rule = "
			"'launch_queue_empty'",
			"outer_step|217000");
}

/*
 * device_bound.json: four 4 us calls at 0, 5, 10, 15 us launch kE [5,205), [205,405), [405,605),
 * [605,805) on stream 7: queue delays 1, 196, 391, 586 us (mean 293.5 >= 100), something waits
 * over [5,605) = 600 of the 800 us window (75 % >= 50: device_bound_queue), never empty.
 */
Test(launch_stats, deep_queue_fires_device_bound_queue_only)
{
	load("device_bound.json", 0, "device");
	tkt_expect_rows(tkt_db,
			"SELECT rule, severity, metric, json_extract(evidence, '$.max_waiting'), "
			"json_extract(evidence, '$.mean_queue_delay_ns'), json_extract(evidence, "
			"'$.top[0].name') FROM analysis_findings WHERE rule GLOB '*queue*'",
			"device_bound_queue|medium|75.0|3|293500.0|kE");
	tkt_expect_rows(tkt_db,
			"SELECT max_length, round(mean_length * window_ns), empty_ns, max_waiting "
			"FROM analysis_queue_length WHERE track_id IS NULL",
			"4|1985000.0|0|3");
}

/* ---- real traces against tests/data/analyze/launch_figures.py ---- */

/* Does the REAL text @got agree with @want to 1e-9 relative (both whole numbers)? */
static int near(const char *got, const char *want)
{
	char *ge, *we;
	double g = strtod(got, &ge), w = strtod(want, &we);
	if (ge == got || *ge || we == want || *we)
		return !strcmp(got, want); /* NULL against NULL */
	return fabs(g - w) <= 1e-9 * fmax(fabs(g), fabs(w));
}

/*
 * Every row of @sql against the file @name, field by field: columns marked 'r' in @types
 * (REAL: means, medians, shares) to 1e-9 relative, every other column exactly.
 */
static void expect_rows_near(const char *sql, const char *types, const char *name)
{
	char *got = tkt_rows(tkt_db, sql), *want = tkt_figures("analyze/launch", name);
	char *gs = NULL, *ws = NULL, *gl = strtok_r(got, "\n", &gs),
	     *wl = strtok_r(want, "\n", &ws);
	int row = 0;
	for (; gl && wl; gl = strtok_r(NULL, "\n", &gs), wl = strtok_r(NULL, "\n", &ws), row++) {
		char *gf = gl, *wf = wl;
		for (size_t col = 0; gf && wf; col++) {
			char *gn = strchr(gf, '|'), *wn = strchr(wf, '|');
			if (gn)
				*gn = '\0';
			if (wn)
				*wn = '\0';
			cr_assert_lt(col, strlen(types), "%s row %d: more columns than types", name,
				     row);
			int ok = types[col] == 'r' ? near(gf, wf) : !strcmp(gf, wf);
			cr_expect(ok, "%s row %d column %zu: got %s, want %s", name, row, col, gf,
				  wf);
			gf = gn ? gn + 1 : NULL;
			wf = wn ? wn + 1 : NULL;
		}
		cr_expect(!gf && !wf, "%s row %d: column count differs", name, row);
	}
	cr_expect(!gl && !wl, "%s: row count differs (after %d rows)", name, row);
	free(got);
	free(want);
}

#define LS_REAL                                                                                  \
	"SELECT (SELECT ordinal FROM devices WHERE id = device_id), kind, name, ops, launches, " \
	"device_ns, call_total_ns, call_mean_ns, call_median_ns, call_p90_ns, call_max_ns, "     \
	"delay_mean_ns, delay_median_ns, delay_p90_ns, delay_max_ns, queue_mean_ns, "            \
	"queue_median_ns, queue_p90_ns, queue_max_ns, call_outliers, delay_outliers, "           \
	"short_launches, short_share FROM analysis_launch_stats ORDER BY 1, kind, name"
#define LS_TYPES "ittiiiirriirriirriiiiir"

#define QL_REAL                                                                                    \
	"SELECT (SELECT ordinal FROM devices WHERE id = device_id), stream_id, window, "           \
	"window_ns, ops, launched, max_length, mean_length, empty_ns, empty_share, "               \
	"longest_empty_ns, longest_empty_start_ns, max_waiting, mean_waiting, waiting_share FROM " \
	"analysis_queue_length ORDER BY device_id, track_id IS NULL, stream_id"
#define QL_TYPES "iitiiiiririiirr"

/*
 * The trace at @path against NAME's figures: the launch statistics (no window), the queue
 * length over the default (steps) window, whose step intervals are checked first, and over
 * --window device. @flows: whether the store has launch flows.
 */
static void expect_script(const char *path, const char *name, int flows)
{
	char file[300];
	tkt_ok(tkt_tracekit("import", path, "-o", tkt_db, NULL));
	cr_expect_eq(tkt_query_int(tkt_db, "SELECT count(*) > 0 FROM flows WHERE kind = 'launch'"),
		     flows);
	tkt_ok(tkt_tracekit("analyze", tkt_db, NULL));
	snprintf(file, sizeof(file), "%s.txt", name);
	expect_rows_near(LS_REAL, LS_TYPES, file);
	snprintf(file, sizeof(file), "%s.steps", name);
	char *want = tkt_figures("analyze/launch", file);
	tkt_expect_rows(
	    tkt_db, "SELECT start_ns || '|' || end_ns FROM analysis_steps ORDER BY start_ns", want);
	free(want);
	snprintf(file, sizeof(file), "%s.queue.txt", name);
	expect_rows_near(QL_REAL, QL_TYPES, file);
	tkt_ok(tkt_tracekit("analyze", tkt_db, "--window", "device", NULL));
	snprintf(file, sizeof(file), "%s.queue_device.txt", name);
	expect_rows_near(QL_REAL, QL_TYPES, file);
}

/* The vendored real trace @rel against NAME's figures. */
static void expect_real(const char *rel, const char *name, int flows)
{
	char *trace = tkt_real(rel);
	expect_script(trace, name, flows);
	free(trace);
}

Test(launch_stats, launch_flows_ns_resolution_agrees_with_python)
{
	expect_real("kineto/HolisticTraceAnalysis/tests/data/ns_resolution_trace/"
		    "rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz",
		    "ns_resolution", 1);
}

Test(launch_stats, launch_flows_nccl_data_agrees_with_python)
{
	expect_real("kineto/HolisticTraceAnalysis/tests/data/nccl_parser_config/nccl_data.json.gz",
		    "nccl_data", 1);
}

Test(launch_stats, correlation_ids_sampled_rank_agrees_with_python)
{
	expect_real("kineto/HolisticTraceAnalysis/tests/data/trace_filter/sampled_rank-0.json.gz",
		    "sampled_rank-0", 0);
}

/*
 * edge.json: what the real traces do not show. kA [10,20) us is the end of two launch flows,
 * from its own call (3 us, 2 us long) and from an earlier one (1 us, 1 us): the earliest wins
 * (call 1 us, delay 9 us, queue 8 us); without flows its correlation id picks its own call.
 * kB starts 2 us before its call (delay -2 us, queue 0); kZ lasts 0 ns and waits [40,45) us;
 * kN has no launch; a 60 us memcpy call (an outlier), a memset queued 197 us (an outlier, and
 * short); a 0.5 ns call rounds to 1 ns. The device steps [5,50) and [150,420) us leave a hole
 * (kN runs in it) that splits the empty stretches.
 */
Test(launch_stats, edge_cases_with_flows_agree_with_python)
{
	char *trace = fixture("edge.json");
	expect_script(trace, "edge", 1);
	free(trace);
}

Test(launch_stats, edge_cases_by_correlation_id_agree_with_python)
{
	char *trace = fixture("edge.json"), *copy = without_flows(trace);
	expect_script(copy, "edge_noflows", 0);
	free(copy);
	free(trace);
}

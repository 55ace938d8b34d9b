/*
 * The verdict every report opens with (docs/metrics.md, "The verdict"): its three lines on the
 * report fixture (report_fixture.h), the demo store (scripts/demo.sh's synth) and two vendored
 * real traces, each expected line worked out from the analysis tables (queried here, beside the
 * figure the line must show); the no-finding and no-KPI wording; the JSON verdict object; and the
 * same lines in every format.
 */
#include <criterion/criterion.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tracekit/tracekit.h>

#include "report_fixture.h"

TestSuite(verdict, .init = tkt_analyze_setup, .fini = tkt_analyze_teardown, .timeout = 900);

#define RESNET                                                    \
	"kineto/kineto/tb_plugin/samples/resnet50_num_workers_0/" \
	"worker0.1623143089861.pt.trace.json.gz"
#define AMD                                                  \
	"kineto/HolisticTraceAnalysis/tests/data/amd_trace/" \
	"mi250_minitoy_train_ROCm6_2_kineto.json.gz"

/*
 * The finding the verdict must name, by the rule of docs/metrics.md written as SQL: tier (1 lost
 * device time, 2 spent badly, 3 the rest), then severity, then metric (largest), then id.
 */
#define PICK_SQL                                                                                  \
	"SELECT rule || '|' || coalesce(device_id, 'NULL') || '|' || printf('%.1f', metric)"      \
	" FROM analysis_findings f ORDER BY CASE WHEN rule IN ('gpu_idle', 'input_bound_steps',"  \
	" 'exposed_communication', 'host_device_copies', 'compilation_in_window', 'straggler')"   \
	" THEN 1 WHEN rule IN ('dominant_op', 'low_occupancy') THEN 2 ELSE 3 END,"                \
	" CASE severity WHEN 'high' THEN 0 ELSE 1 END, CASE WHEN rule = 'straggler' THEN 100.0 *" \
	" json_extract(evidence, '$.late_skew_ns') / (SELECT window_ns FROM analysis_device_time" \
	" t WHERE t.device_id = f.device_id AND t.selected = 1) ELSE metric END DESC, id LIMIT 1"
/* The device with the lowest utilization and its figure. */
#define LOWEST_SQL                                                                         \
	"SELECT device_id || '|' || printf('%.1f', value) || '|' || band || '|' || window" \
	" FROM analysis_kpi WHERE kpi = 'gpu_utilization' AND value IS NOT NULL"           \
	" ORDER BY value, device_id LIMIT 1"

/* The report of @path in @format, wide enough that no verdict line wraps (malloc'd). */
static char *report(const char *path, const char *format)
{
	struct tkt_run r =
	    tkt_tracekit("report", path, "--format", format, "--width", "1000", NULL);
	cr_assert_eq(r.code, 0, "report: exit %d\n%s", r.code, r.err);
	char *out = r.out;
	r.out = NULL;
	tkt_run_free(&r);
	return out;
}

/* Expect the text report of @path to open with the verdict @l1, @l2, @l3. */
static void expect_verdict(const char *path, const char *l1, const char *l2, const char *l3)
{
	char *out = report(path, "text"), want[4096];
	snprintf(want, sizeof(want), "\n\nVerdict\n  %s\n  %s\n  %s\n\nTrace\n", l1, l2, l3);
	const char *nl = strchr(out, '\n');
	cr_assert_not_null(nl);
	cr_expect_eq(strncmp(nl, want, strlen(want)), 0, "want:%s\ngot:\n%.1200s", want, out);
	free(out);
}

static void expect_sql(const char *path, const char *sql, const char *want)
{
	char *got = tkt_rows(path, sql);
	cr_expect_str_eq(got, want, "%s\n got: %s\nwant: %s", sql, got, want);
	free(got);
}

static void analyze(const char *path)
{
	struct tkt_run r = tkt_tracekit("analyze", path, NULL);
	cr_assert_eq(r.code, 0, "analyze: exit %d\n%s", r.code, r.err);
	tkt_run_free(&r);
}

static char *import_real(const char *rel, const char *name)
{
	char *src = tkt_real(rel), *db = tkt_path(tkt_dir, name);
	struct tkt_run r = tkt_tracekit("import", src, "-o", db, NULL);
	cr_assert_eq(r.code, 0, "import %s: exit %d\n%s", rel, r.code, r.err);
	tkt_run_free(&r);
	analyze(db);
	free(src);
	return db;
}

static const char fixture_l1[] =
    "Utilization 73.3% (warning: good > 80%) on GPU 0 (rank 0) over its steps window, the lowest "
    "of 2 devices";
static const char fixture_l2[] =
    "Biggest bottleneck: the host input pipeline (input_bound_steps): GPU 0 (rank 0) waits on "
    "the host 26.7% of its step time";
static const char fixture_l3[] =
    "Fix: Feed the device faster: more DataLoader workers with prefetching and pinned memory, "
    "preprocessing moved off the training loop, and input copies overlapped with the previous "
    "step.";

Test(verdict, fixture_names_the_lowest_device_and_the_lost_time_finding)
{
	rf_write_store(tkt_db);
	analyze(tkt_db);
	/*
	 * By construction (report_fixture.h): device 0 is busy 110 µs of its 150 µs steps window
	 * (73.3%, warning), device 1 174 of 194 µs (89.7%, good). Device 0's steps wait on the host
	 * 40 µs of 150 µs (input_bound_steps 26.7%, high) and it is idle 26.7% (gpu_idle, medium);
	 * the device and host steps of both devices disagree (step_time_mismatch, 36% medium and 50%
	 * high, but not a share of device time: tier 3). So the pick is input_bound_steps.
	 */
	expect_sql(tkt_db, LOWEST_SQL, "0|73.3|warning|steps");
	expect_sql(
	    tkt_db,
	    "SELECT rule || '|' || severity || '|' || printf('%.1f', metric) FROM"
	    " analysis_findings WHERE rule IN ('input_bound_steps', 'gpu_idle',"
	    " 'step_time_mismatch') ORDER BY id",
	    "gpu_idle|medium|26.7\ninput_bound_steps|high|26.7\nstep_time_mismatch|medium|36.0\n"
	    "step_time_mismatch|high|50.0");
	expect_sql(tkt_db, PICK_SQL, "input_bound_steps|0|26.7");
	expect_verdict(tkt_db, fixture_l1, fixture_l2, fixture_l3);
}

Test(verdict, every_format_opens_with_the_same_lines)
{
	rf_write_store(tkt_db);
	analyze(tkt_db);
	char *md = report(tkt_db, "md"), *html = report(tkt_db, "html"),
	     *json = report(tkt_db, "json");
	/* Markdown: a "Verdict" section first, one item per line (">" and "_" escaped) */
	const char *v =
	    strstr(md, "## Verdict\n\n- Utilization 73.3% (warning: good &gt; 80%) on GPU 0");
	cr_expect_not_null(v, "%.600s", md);
	cr_expect(v && v < strstr(md, "## Trace"));
	cr_expect_not_null(
	    strstr(md, "- Biggest bottleneck: the host input pipeline "
		       "(input\\_bound\\_steps): GPU 0 (rank 0) waits on the host 26.7%"));
	/* HTML: the verdict, then the device timeline, then the first section */
	const char *hv = strstr(html, "<section id=\"s-verdict\"");
	const char *ht = strstr(html, "<section id=\"s-timeline\"");
	const char *hs = strstr(html, "<section id=\"s-trace\"");
	cr_expect(hv && ht && hs && hv < ht && ht < hs);
	cr_expect_not_null(strstr(html,
				  "<p class=\"v-kpi band-warning\">Utilization 73.3% (warning: "
				  "good &gt; 80%) on GPU 0 (rank 0)"));
	cr_expect_not_null(strstr(html, "<p class=\"v-fix\">Fix: Feed the device faster:"));
	/* JSON: the lines and the rows they name */
	cr_expect_not_null(strstr(json, "\"verdict\": {\n    \"headline\": \"Utilization 73.3% "
					"(warning: good \\u003e 80%) on GPU 0 (rank 0)"));
	const char *k = strstr(json, "\"kpi\": {\n      \"device_id\": 0,");
	cr_expect_not_null(k, "%.2000s", json);
	cr_expect_not_null(strstr(json, "\"kpi_devices\": 2,\n    \"finding\": {\n      \"id\": "));
	const char *f = strstr(json, "\"kpi_devices\": 2");
	cr_expect(f && strstr(f, "\"rule\": \"input_bound_steps\"") &&
		  strstr(f, "\"rule\": \"input_bound_steps\"") < strstr(f, "\"tier\": 1"));
	free(md);
	free(html);
	free(json);
}

Test(verdict, no_finding_and_no_device_work_are_said)
{
	rf_write_store(tkt_db);
	analyze(tkt_db);
	tkt_exec_sql(tkt_db, "DELETE FROM analysis_findings; DELETE FROM analysis_kpi;");
	expect_verdict(
	    tkt_db,
	    "Utilization: unknown: the trace has no device work (no kernels, copies or XLA "
	    "ops)",
	    "Biggest bottleneck: none found: no rule fired (checked idle time, input-bound "
	    "steps, exposed communication, host-device copies, compilation, dominant ops, "
	    "occupancy, small kernels, synchronizing calls, stragglers and host against "
	    "device step time)",
	    "Fix: nothing to fix by these rules; the top kernels and the idle gaps below "
	    "show where the time goes.");
	char *json = report(tkt_db, "json");
	cr_expect_not_null(strstr(json, "\"kpi\": null,\n    \"kpi_devices\": 0,\n    \"finding\": "
					"null,\n    \"tier\": null"));
	free(json);
}

Test(verdict, ties_and_tiers_only_time_shares_come_first)
{
	/* only a tier-3 finding left: it is named, with its summary's figure */
	rf_write_store(tkt_db);
	analyze(tkt_db);
	tkt_exec_sql(tkt_db, "DELETE FROM analysis_findings WHERE rule <> 'step_time_mismatch';");
	expect_sql(tkt_db, PICK_SQL, "step_time_mismatch|1|50.0");
	char *out = report(tkt_db, "text");
	cr_expect_not_null(strstr(out,
				  "\n  Biggest bottleneck: device against host step time "
				  "(step_time_mismatch): the device and host step times of GPU 1 "
				  "(rank 1) are 50.0% apart\n  Fix: Judge the step by its device "
				  "time"),
			   "%.1500s", out);
	free(out);
}

Test(verdict, demo_store)
{
	char *db = tkt_path(tkt_dir, "demo.db");
	struct tkt_run r = tkt_tracekit("synth", "-o", db, "--events", "200000", "--devices", "2",
					"--steps", "10", "--seed", "1", NULL);
	cr_assert_eq(r.code, 0, "synth: %s", r.err);
	tkt_run_free(&r);
	analyze(db);
	/* both devices are busy 99.9% (device 0 the lower); the ranks meet in their all-reduces,
	 * rank 1 (the synthetic straggler, 6% slower) last in 99 of 110: rank 0 waits for it 27.9%
	 * of rank 1's window (tier 1 by its wait share), ahead of the two low_occupancy rows
	 * (tier 2); sync_api_calls does not fire (the host waits on saturated devices); launched
	 * work waits on both devices 99.96% of the window (device_bound_queue, tier 3) */
	expect_sql(db,
		   "SELECT device_id || '|' || printf('%.1f', value) FROM analysis_kpi"
		   " WHERE kpi = 'gpu_utilization' ORDER BY value",
		   "0|99.9\n1|99.9");
	expect_sql(db, LOWEST_SQL, "0|99.9|good|steps");
	expect_sql(db,
		   "SELECT rule || '|' || severity || '|' || printf('%.2f', metric) FROM"
		   " analysis_findings ORDER BY id",
		   "low_occupancy|medium|7.03\nlow_occupancy|medium|7.28\nstraggler|high|90.00\n"
		   "device_bound_queue|medium|99.96\ndevice_bound_queue|medium|99.96");
	expect_sql(db,
		   "SELECT printf('%.1f', 100.0 * json_extract(evidence, '$.late_skew_ns') /"
		   " (SELECT window_ns FROM analysis_device_time WHERE device_id = 1 AND selected ="
		   " 1)) FROM analysis_findings WHERE rule = 'straggler'",
		   "27.9");
	expect_sql(db, PICK_SQL, "straggler|1|90.0");
	expect_verdict(
	    db,
	    "Utilization 99.9% (good: > 80%) on GPU 0 (rank 0) over its steps window, the "
	    "lowest of 2 devices",
	    "Biggest bottleneck: a straggler rank (straggler): GPU 1 (rank 1) arrives last at "
	    "90.0% of its collectives: the other ranks wait for it 27.9% of its steps window",
	    "Fix: Find why this rank arrives late: compare its step breakdown with the other "
	    "ranks (input pipeline, host overhead, a slower or throttled GPU, more work on "
	    "this rank), balance the work across ranks and check its host for "
	    "interference.");
	free(db);
}

Test(verdict, real_resnet50_is_idle_host_bound)
{
	char *db = import_real(RESNET, "resnet.db");
	/* no steps: the device window; small_kernels (high) counts kernels, not time (tier 3), so
	 * gpu_idle (medium, 39.4% of the window, host_bound the largest cause) is the bottleneck */
	expect_sql(db, LOWEST_SQL, "0|60.6|warning|device");
	expect_sql(db, PICK_SQL, "gpu_idle|0|39.4");
	expect_sql(db,
		   "SELECT cause FROM analysis_gaps WHERE device_id = 0 GROUP BY cause"
		   " ORDER BY sum(dur_ns) DESC LIMIT 1",
		   "host_bound");
	expect_verdict(
	    db, "Utilization 60.6% (warning: good > 80%) on GPU 0 (rank 0) over its device window",
	    "Biggest bottleneck: idle device time (gpu_idle): GPU 0 (rank 0) is idle 39.4% of "
	    "its device window, most of it host_bound",
	    "Fix: The host launches work too slowly (each op is launched only after the "
	    "device went idle): cut launch overhead with CUDA graphs and torch.compile, "
	    "launch fewer and larger kernels (larger batches), and move data preparation "
	    "and other Python work off the launching thread.");
	free(db);
}

Test(verdict, real_amd_mi250_is_idle_host_bound)
{
	char *db = import_real(AMD, "amd.db");
	/* device 0 is the trace's GPU 2 (rank 0); gpu_idle 91.5% and input_bound_steps 86.9% are both
	 * high and tier 1: the larger share wins */
	expect_sql(db, LOWEST_SQL, "0|8.5|bad|steps");
	expect_sql(db, PICK_SQL, "gpu_idle|0|91.5");
	expect_verdict(
	    db, "Utilization 8.5% (bad: good > 80%) on GPU 2 (rank 0) over its steps window",
	    "Biggest bottleneck: idle device time (gpu_idle): GPU 2 (rank 0) is idle 91.5% of "
	    "its steps window, most of it host_bound",
	    "Fix: The host launches work too slowly (each op is launched only after the "
	    "device went idle): cut launch overhead with CUDA graphs and torch.compile, "
	    "launch fewer and larger kernels (larger batches), and move data preparation "
	    "and other Python work off the launching thread.");
	free(db);
}

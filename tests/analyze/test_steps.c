/*
 * Tests of where steps lie on the device (docs/metrics.md, "Steps on the device"; analysis_steps
 * source, host_* and lag columns, analysis_step_stats host figures, the step_time_mismatch
 * finding): small stores written with the public writer API whose every interval is known by
 * construction, and real Kineto traces (vendored in tests/data/real) against intervals computed
 * independently with Python (tests/data/analyze/step_figures.py).
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tracekit/tracekit.h>

#include "tk_analyze_store.h"

#define U 1000LL		 /* 1 us in ns */
#define T0 1000000000000000000LL /* base time of the fixtures */

TestSuite(analyze_steps, .init = tkt_analyze_setup, .fini = tkt_analyze_teardown, .timeout = 600);

static void op(tk_writer *w, int64_t thr, int64_t track, const char *name, int64_t ts, int64_t dur,
	       int64_t launch)
{
	tkt_launched_op(w, thr, track, TK_EV_KERNEL, name, T0 + ts * U, dur * U, T0 + launch * U);
}

/*
 * One GPU whose work runs behind the host. Host steps (ProfilerStep#N on the host thread):
 *   1 [0, 100)   launches A at 10 (runs [150, 180)) and B at 20 (runs [190, 210))
 *   2 [100, 200) launches C at 110 (runs [260, 310))
 *   3 [200, 300) launches D at 250 (runs [330, 370)); the device-side annotation
 *                ProfilerStep#3 on the stream says [320, 380)
 *   4 [300, 400) launches nothing
 * Device intervals: 1 launches [150, 260) (to where step 2 starts on the device), 2 launches
 * [260, 320) (to step 3's annotation), 3 device_annotation [320, 380), 4 host [300, 400).
 */
static void write_lagging_device(const char *path)
{
	tk_writer *w = NULL;
	int64_t proc, dev, thr, strm;
	tkt_one_gpu(path, &w, &proc, &dev, &thr, &strm);
	char name[32];
	for (int i = 1; i <= 4; i++) {
		snprintf(name, sizeof(name), "ProfilerStep#%d", i);
		struct tk_event st = {thr,     TK_EV_STEP, name, 0, NULL, 0, T0 + (i - 1) * 100 * U,
				      100 * U, TK_NONE};
		TKT_OK(tk_writer_add_step(w, &st, i, NULL));
	}
	op(w, thr, strm, "A", 150, 30, 10);
	op(w, thr, strm, "B", 190, 20, 20);
	op(w, thr, strm, "C", 260, 50, 110);
	op(w, thr, strm, "D", 330, 40, 250);
	struct tk_event a = {
	    strm, TK_EV_ANNOTATION, "ProfilerStep#3", 0,      "gpu_user_annotation",
	    0,	  T0 + 320 * U,	    60 * U,	      TK_NONE};
	TKT_OK(tk_writer_add_event(w, &a, NULL));
	/* an annotation that is not a step, and one whose number no host step has */
	a.name = "ProfilerStep#3x";
	TKT_OK(tk_writer_add_event(w, &a, NULL));
	a.name = "ProfilerStep#9";
	TKT_OK(tk_writer_add_event(w, &a, NULL));
	tkt_finish(w);
}

Test(analyze_steps, host_steps_are_placed_where_the_device_ran_them)
{
	write_lagging_device(tkt_db);
	tkt_analyze(tkt_db, TK_WINDOW_AUTO, -1);
	tkt_expect_rows(tkt_db,
			"SELECT step_num, source, (start_ns - 1000000000000000000) / 1000,"
			" (end_ns - 1000000000000000000) / 1000, dur_ns / 1000,"
			" (host_start_ns - 1000000000000000000) / 1000, host_dur_ns / 1000,"
			" lag_ns / 1000 FROM analysis_steps ORDER BY step_num",
			"1|launches|150|260|110|0|100|150\n"
			"2|launches|260|320|60|100|100|160\n"
			"3|device_annotation|320|380|60|200|100|120\n"
			"4|host|300|400|100|300|100|0");
	/* the steps window is the union of the device intervals: [150, 400) */
	tkt_expect_rows(tkt_db,
			"SELECT window, (start_ns - 1000000000000000000) / 1000,"
			" (end_ns - 1000000000000000000) / 1000, window_ns / 1000, spans"
			" FROM analysis_device_time WHERE selected = 1",
			"steps|150|400|250|1");
	/* device durations 110, 60, 60, 100: median 80; host all 100; lags 150 160 120 0 */
	tkt_expect_rows(tkt_db,
			"SELECT steps, median_ns / 1000, source, host_steps, host_mean_ns / 1000,"
			" host_median_ns / 1000, lag_median_ns / 1000 FROM analysis_step_stats",
			"4|80.0|mixed|4|100.0|100.0|135.0");
	/* the breakdown still adds up over the device intervals */
	cr_expect_eq(tkt_query_int(tkt_db, "SELECT count(*) FROM analysis_steps WHERE dur_ns <> "
					   "compute_ns + exposed_comm_ns + exposed_memcpy_ns + "
					   "host_idle_ns + other_idle_ns"),
		     0);
	/* 80 against 100 on the host: 20 % apart, the device waits for the host */
	tkt_expect_rows(
	    tkt_db,
	    "SELECT severity, metric, threshold, summary LIKE '%device 0 steps take 0.080 ms"
	    "%against 0.100 ms on the host (20.0% apart): the device finishes each step "
	    "early%' FROM analysis_findings WHERE rule = 'step_time_mismatch'",
	    "medium|20.0|10.0|1");
}

Test(analyze_steps, host_steps_window_keeps_the_host_intervals)
{
	write_lagging_device(tkt_db);
	tkt_analyze(tkt_db, TK_WINDOW_HOST_STEPS, -1);
	tkt_expect_rows(tkt_db,
			"SELECT step_num, source, (start_ns - 1000000000000000000) / 1000,"
			" dur_ns / 1000, lag_ns FROM analysis_steps ORDER BY step_num",
			"1|host|0|100|0\n2|host|100|100|0\n3|host|200|100|0\n4|host|300|100|0");
	tkt_expect_rows(
	    tkt_db, "SELECT window, window_ns / 1000 FROM analysis_device_time WHERE selected = 1",
	    "steps|400");
	cr_expect_eq(tkt_query_int(tkt_db, "SELECT count(*) FROM analysis_findings WHERE rule = "
					   "'step_time_mismatch'"),
		     0);
}

Test(analyze_steps, cli_window_host_steps)
{
	write_lagging_device(tkt_db);
	struct tkt_run r = tkt_tracekit("analyze", "-q", "--window", "host-steps", tkt_db, NULL);
	cr_expect_eq(r.code, 0, "%s", r.err);
	tkt_run_free(&r);
	cr_expect_eq(tkt_query_int(tkt_db, "SELECT count(*) FROM analysis_steps WHERE source = "
					   "'host'"),
		     4);
	r = tkt_tracekit("analyze", "-q", "--window", "hosts", tkt_db, NULL);
	cr_expect_eq(r.code, 2);
	cr_expect(strstr(r.err, "auto, device, steps or host-steps"), "%s", r.err);
	tkt_run_free(&r);
}

/* A device with its own steps (XPlane's Steps line): the device's time, no host interval. */
Test(analyze_steps, device_own_steps_have_no_host_interval)
{
	tk_writer *w = NULL;
	int64_t proc, dev, line, steps;
	cr_assert_eq(tk_writer_create(tkt_db, &w), TK_OK);
	struct tk_process_info p = {1, NULL, NULL, TK_NONE};
	TKT_OK(tk_writer_add_process(w, &p, &proc));
	struct tk_device_info d = {0,	    "tpu",   NULL,    NULL,    NULL,	proc,
				   TK_NONE, NULL,    TK_NONE, TK_NONE, TK_NONE, TK_NONE,
				   -1,	    TK_NONE, TK_NONE, TK_NONE};
	TKT_OK(tk_writer_add_device(w, &d, &dev));
	struct tk_track_info t = {TK_TRACK_DERIVED, "XLA Ops", proc, dev, TK_NONE, TK_NONE, NULL};
	TKT_OK(tk_writer_add_track(w, &t, &line));
	t.name = "Steps";
	TKT_OK(tk_writer_add_track(w, &t, &steps));
	struct tk_event st = {steps, TK_EV_STEP, "7", 0, NULL, 0, T0, 100 * U, TK_NONE};
	TKT_OK(tk_writer_add_step(w, &st, 7, NULL));
	struct tk_event e = {line, TK_EV_XLA_OP, "fusion.1", 0,	     NULL,
			     0,	   T0 + 10 * U,	 50 * U,     TK_NONE};
	TKT_OK(tk_writer_add_event(w, &e, NULL));
	tkt_finish(w);
	tkt_analyze(tkt_db, TK_WINDOW_AUTO, -1);
	tkt_expect_rows(tkt_db,
			"SELECT step_num, source, dur_ns, host_start_ns, host_dur_ns, lag_ns"
			" FROM analysis_steps",
			"7|device|100000|NULL|NULL|NULL");
	tkt_expect_rows(tkt_db,
			"SELECT source, host_steps, host_median_ns, lag_median_ns"
			" FROM analysis_step_stats",
			"device|0|NULL|NULL");
}

/* ---- real traces against tests/data/analyze/step_figures.py ---- */

#define HTA "kineto/HolisticTraceAnalysis/tests/data/"
#define STEP_ROWS                                                                                \
	"SELECT step_num, source, start_ns, end_ns, host_start_ns FROM analysis_steps ORDER BY " \
	"start_ns"

/* HTA's ns_resolution trace (V100): the host runs almost a step ahead of the GPU. */
Test(analyze_steps, kineto_ns_resolution_steps_agree_with_python)
{
	tkt_import_corpus(HTA "ns_resolution_trace/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz",
			  tkt_db);
	tkt_analyze(tkt_db, TK_WINDOW_AUTO, -1);
	tkt_expect_rows(tkt_db, STEP_ROWS,
			"101|launches|1712195495505582988|1712195495603246715|1712195495502094565\n"
			"102|launches|1712195495603246715|1712195495698983573|1712195495537248299\n"
			"103|launches|1712195495698983573|1712195495794554128|1712195495609361776\n"
			"104|launches|1712195495794554128|1712195495890218155|1712195495705090232\n"
			"105|launches|1712195495890218155|1712195495985612167|1712195495800674876");
}

/* HTA's nccl_data trace (A100): launch flows (ac2g) place three steps. */
Test(analyze_steps, kineto_nccl_steps_agree_with_python)
{
	tkt_import_corpus(HTA "nccl_parser_config/nccl_data.json.gz", tkt_db);
	tkt_analyze(tkt_db, TK_WINDOW_AUTO, -1);
	tkt_expect_rows(tkt_db, STEP_ROWS,
			"4|launches|1716423322422880181|1716423322644934992|1716423322416788066\n"
			"5|launches|1716423322644934992|1716423322864667147|1716423322639291351\n"
			"6|launches|1716423322864667147|1716423323083431186|1716423322859077781");
}

/* HTA's MI250 trace: step 1 has its GPU-side ProfilerStep#1, step 2 launched no device work. */
Test(analyze_steps, kineto_mi250_gpu_annotation_agrees_with_python)
{
	tkt_import_corpus(HTA "amd_trace/mi250_minitoy_train_ROCm6_2_kineto.json.gz", tkt_db);
	tkt_analyze(tkt_db, TK_WINDOW_AUTO, -1);
	tkt_expect_rows(tkt_db, STEP_ROWS,
			"1|device_annotation|1739836029603454205|1739836029604485573|"
			"1739836029603187439\n"
			"2|host|1739836029612512740|1739836029612561813|1739836029612512740");
}

/* The default (steps placed on the device) window end to end: device time and gap causes of the
 * real traces against time_figures.py --device-steps (which places steps with step_figures.py's
 * rule, re-implemented from docs/metrics.md). ns_resolution: the host steps window cut the
 * device's own work; over the device-placed steps the GPU is 98.4 % busy. */
Test(analyze_steps, kineto_ns_resolution_device_window_agrees_with_python)
{
	tkt_import_corpus(HTA "ns_resolution_trace/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz",
			  tkt_db);
	tkt_analyze(tkt_db, TK_WINDOW_AUTO, -1);
	tkt_expect_rows(tkt_db,
			"SELECT window, window_ns, busy_ns, idle_ns, compute_ns, memcpy_ns"
			" FROM analysis_device_time WHERE selected = 1",
			"steps|480029179|472454441|7574738|468739037|3715404");
	tkt_expect_rows(tkt_db,
			"SELECT cause, count(*), sum(dur_ns) FROM analysis_gaps GROUP BY cause"
			" ORDER BY cause",
			"host_bound|47|1347125\nkernel_wait|6047|6227613");
}

Test(analyze_steps, kineto_nccl_device_window_agrees_with_python)
{
	tkt_import_corpus(HTA "nccl_parser_config/nccl_data.json.gz", tkt_db);
	tkt_analyze(tkt_db, TK_WINDOW_AUTO, -1);
	tkt_expect_rows(
	    tkt_db,
	    "SELECT window, window_ns, busy_ns, idle_ns, compute_ns, comm_ns, memcpy_ns,"
	    " exposed_comm_ns, exposed_memcpy_ns FROM analysis_device_time"
	    " WHERE selected = 1",
	    "steps|660551005|157500014|503050991|116046564|46876493|2262781|39529327|"
	    "1924123");
	tkt_expect_rows(tkt_db,
			"SELECT cause, count(*), sum(dur_ns) FROM analysis_gaps GROUP BY cause"
			" ORDER BY cause",
			"host_bound|2440|501050857\nkernel_wait|1040|2000134");
}

/*
 * Tests of the time-based analyses (analysis_device_time, analysis_gaps, analysis_gap_summary,
 * analysis_steps, analysis_step_stats, analysis_comm, analysis_comm_ranks): small stores written
 * with the public writer API whose every figure is known by construction (overlapping streams,
 * a host-bound gap, a queued gap, a gap with no launch, a zero-length op, steps with a hole, two
 * ranks whose skews are too small to matter), and real Kineto traces (vendored in
 * tests/data/real) against
 * figures computed independently with Python (tests/data/analyze/time_figures.py).
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tracekit/tracekit.h>

#include "tk_analyze_store.h"

#define U 1000LL		 /* 1 us in ns */
#define T0 1000000000000000000LL /* base time of the fixtures */

TestSuite(analyze_time, .init = tkt_analyze_setup, .fini = tkt_analyze_teardown, .timeout = 600);

/* A device op at [ts, ts + dur) U on @track, launched at @launch U by an API call (none when
 * @launch is NO), as a kernel (kind 5), memcpy (6) or memset (7). */
#define NO INT64_MIN
static void op(tk_writer *w, int64_t thr, int64_t track, enum tk_event_kind kind, const char *name,
	       int64_t ts, int64_t dur, int64_t launch)
{
	tkt_launched_op(w, thr, track, kind, name, T0 + ts * U, dur * U,
			launch == NO ? TKT_NO_LAUNCH : T0 + launch * U);
}

/*
 * One device, streams 7 (S1) and 8 (S2), steps [0, 280) and [480, 1000) U on the host thread.
 * Event ids: steps 1, 2; then per op its API call (when launched) and the op:
 *   K1 gemm    S1 [0, 100)    launch -50  api 3  op 4
 *   K2 nccl    S2 [50, 250)   launch -40  api 5  op 6
 *   M1 memcpy  S1 [300, 400)  launch 280  api 7  op 8
 *   K3 gemm    S1 [500, 600)  launch 100  api 9  op 10
 *   MS memset  S2 [550, 700)  launch 120  api 11 op 12
 *   K4 elem    S1 [800, 900)  no launch          op 13
 *   Z  zero    S2 [750, 750)  no launch          op 14
 *   K5 gemm    S2 [880, 1000) launch 760  api 15 op 16
 *   K6 tiny    S1 [910, 930)  launch 700  api 17 op 18
 *   K7 tiny    S2 [990, 1000) launch 770  api 19 op 20
 * busy = [0,250) [300,400) [500,700) [800,1000); compute = [0,100) [500,700) [800,1000);
 * comm = [50,250); copies = [300,400).
 */
static void write_two_streams(const char *path)
{
	tk_writer *w = NULL;
	int64_t proc, dev, thr, s1, s2;
	tkt_one_gpu(path, &w, &proc, &dev, &thr, &s1);
	struct tk_track_info a = {TK_TRACK_STREAM, "Stream 8", proc, dev, TK_NONE, 8, NULL};
	TKT_OK(tk_writer_add_track(w, &a, &s2));
	struct tk_event st = {thr, TK_EV_STEP, "ProfilerStep#1", 0, NULL, 0, T0, 280 * U, TK_NONE};
	TKT_OK(tk_writer_add_step(w, &st, 1, NULL));
	st.name = "ProfilerStep#2";
	st.ts_ns = T0 + 480 * U;
	st.dur_ns = 520 * U;
	TKT_OK(tk_writer_add_step(w, &st, 2, NULL));
	const char *nccl = "ncclDevKernel_AllReduce_Sum_f32_RING_LL";
	op(w, thr, s1, TK_EV_KERNEL, "gemm", 0, 100, -50);
	op(w, thr, s2, TK_EV_KERNEL, nccl, 50, 200, -40);
	op(w, thr, s1, TK_EV_MEMCPY, "Memcpy HtoD", 300, 100, 280);
	op(w, thr, s1, TK_EV_KERNEL, "gemm", 500, 100, 100);
	op(w, thr, s2, TK_EV_MEMSET, "Memset", 550, 150, 120);
	op(w, thr, s1, TK_EV_KERNEL, "elem", 800, 100, NO);
	op(w, thr, s2, TK_EV_KERNEL, "zero", 750, 0, NO);
	op(w, thr, s2, TK_EV_KERNEL, "gemm", 880, 120, 760);
	op(w, thr, s1, TK_EV_KERNEL, "tiny", 910, 20, 700);
	op(w, thr, s2, TK_EV_KERNEL, "tiny", 990, 10, 770);
	tkt_finish(w);
}

Test(analyze_time, device_time_of_overlapping_streams_in_both_windows)
{
	write_two_streams(tkt_db);
	/* host-steps: the fixture's steps at their host intervals, holes and all */
	tkt_analyze(tkt_db, TK_WINDOW_HOST_STEPS, -1);
	/* device: [0,1000) 10 ops; busy 750, compute 500, comm 200, copies 100, exposed comm
	 * [100,250) = 150, exposed copies 100, idle 250. steps: [0,280) + [480,1000) = 800 U,
	 * 9 ops start inside (not M1); busy 250 + 200 + 200, copies 0. */
	tkt_expect_rows(
	    tkt_db, "SELECT * FROM analysis_device_time ORDER BY window",
	    "0|device|0|1000000000000000000|1000000000001000000|1000000|1|10|750000|500000|"
	    "200000|100000|150000|100000|250000|0.75\n"
	    "0|steps|1|1000000000000000000|1000000000001000000|800000|2|9|650000|500000|"
	    "200000|0|150000|0|150000|0.8125");
	/* busy = compute + exposed comm + exposed copies, in every row */
	cr_expect_eq(tkt_query_int(tkt_db,
				   "SELECT count(*) FROM analysis_device_time WHERE busy_ns <> "
				   "compute_ns + exposed_comm_ns + exposed_memcpy_ns"),
		     0);
}

Test(analyze_time, gaps_have_causes_and_neighbours)
{
	write_two_streams(tkt_db);
	tkt_analyze(tkt_db, TK_WINDOW_HOST_STEPS, -1);
	/* steps window: [250,280) host-bound (M1 launched at 280), [480,500) dependency (K3
	 * launched at 100, queued before the not-busy interval [400,500) began; the interval is
	 * 100 us long, so not kernel_wait although the piece in the window is 20 us, and no sync
	 * call is on the launching thread), [700,800) unknown (K4 has no launch; the zero-length
	 * op at 750 does not split it) */
	tkt_expect_rows(
	    tkt_db, "SELECT * FROM analysis_gaps ORDER BY id",
	    "1|0|steps|1000000000000250000|1000000000000280000|30000|host_bound|"
	    "1000000000000280000|6|ncclDevKernel_AllReduce_Sum_f32_RING_LL|8|Memcpy HtoD|NULL|"
	    "NULL\n"
	    "2|0|steps|1000000000000480000|1000000000000500000|20000|dependency|"
	    "1000000000000100000|8|Memcpy HtoD|10|gemm|NULL|NULL\n"
	    "3|0|steps|1000000000000700000|1000000000000800000|100000|unknown|NULL|12|"
	    "Memset|13|elem|NULL|NULL");
	tkt_expect_rows(tkt_db, "SELECT * FROM analysis_gap_summary",
			"0|2|7|steps|kernel_wait|1|10000|10000|10000\n"
			"0|2|7|steps|other|2|300000|100000|200000\n"
			"0|3|8|steps|host_wait|1|130000|130000|130000\n"
			"0|3|8|steps|other|2|350000|50000|300000\n"
			"0|3|8|steps|overlap|1|10000|10000|10000");
}

Test(analyze_time, window_device_rerun_replaces_the_tables)
{
	write_two_streams(tkt_db);
	tkt_analyze(tkt_db, TK_WINDOW_AUTO, -1);
	tkt_analyze(tkt_db, TK_WINDOW_DEVICE, -1);
	tkt_expect_rows(tkt_db, "SELECT window, selected FROM analysis_device_time ORDER BY window",
			"device|1\nsteps|0");
	tkt_expect_rows(
	    tkt_db,
	    "SELECT window, start_ns - 1000000000000000000, dur_ns, cause, prev_event_id,"
	    " next_event_id FROM analysis_gaps ORDER BY id",
	    "device|250000|50000|host_bound|6|8\n"
	    "device|400000|100000|dependency|8|10\n"
	    "device|700000|100000|unknown|12|13");
	/* M1 now starts inside the window: S1 gets its host_wait (launch 280 > end 100) */
	tkt_expect_rows(tkt_db,
			"SELECT stream_id, category, count, total_ns FROM analysis_gap_summary",
			"7|host_wait|1|200000\n7|kernel_wait|1|10000\n7|other|2|300000\n"
			"8|host_wait|1|130000\n8|other|2|350000\n8|overlap|1|10000");
	/* steps are analyzed whatever the window */
	cr_expect_eq(tkt_query_int(tkt_db, "SELECT count(*) FROM analysis_steps"), 2);
}

Test(analyze_time, steps_breakdown_adds_up_to_the_step)
{
	write_two_streams(tkt_db);
	tkt_analyze(tkt_db, TK_WINDOW_HOST_STEPS, -1);
	/* step 1 [0,280): compute [0,100), comm [50,250) of which [100,250) exposed, host-bound
	 * idle [250,280). step 2 [480,1000): compute [500,700) + [800,1000), other idle [480,500)
	 * (dependency) + [700,800) (unknown). */
	tkt_expect_rows(
	    tkt_db, "SELECT * FROM analysis_steps ORDER BY step_num",
	    "0|1|1|1000000000000000000|1000000000000280000|280000|250000|100000|200000|"
	    "150000|0|30000|0|0|host|1000000000000000000|1000000000000280000|280000|0\n"
	    "0|2|2|1000000000000480000|1000000000001000000|520000|400000|400000|0|0|0|0|"
	    "120000|0|host|1000000000000480000|1000000000001000000|520000|0");
	/* n = 2: median 400000, p90 the 2nd, stddev 120000, MAD 120000, threshold 760000 */
	tkt_expect_rows(
	    tkt_db, "SELECT * FROM analysis_step_stats",
	    "0|2|800000|400000.0|400000.0|520000|120000.0|280000|520000|120000.0|760000.0|0|"
	    "host|2|400000.0|400000.0|0.0");
	cr_expect_eq(tkt_query_int(tkt_db, "SELECT count(*) FROM analysis_steps WHERE dur_ns <> "
					   "compute_ns + exposed_comm_ns + exposed_memcpy_ns + "
					   "host_idle_ns + other_idle_ns"),
		     0);
}

/* One kernel under five steps of 100, 100, 100, 100 and 200 U: the last is an outlier. */
Test(analyze_time, slow_step_is_an_outlier)
{
	tk_writer *w = NULL;
	int64_t proc, dev, thr, s1;
	cr_assert_eq(tk_writer_create(tkt_db, &w), TK_OK);
	struct tk_process_info p = {1, NULL, NULL, TK_NONE};
	TKT_OK(tk_writer_add_process(w, &p, &proc));
	struct tk_device_info d = {0,	    "gpu",   NULL,    NULL,    NULL,	proc,
				   TK_NONE, NULL,    TK_NONE, TK_NONE, TK_NONE, TK_NONE,
				   -1,	    TK_NONE, TK_NONE, TK_NONE};
	TKT_OK(tk_writer_add_device(w, &d, &dev));
	struct tk_track_info t = {TK_TRACK_THREAD, NULL, proc, TK_NONE, 1, TK_NONE, NULL};
	TKT_OK(tk_writer_add_track(w, &t, &thr));
	struct tk_track_info a = {TK_TRACK_STREAM, NULL, proc, dev, TK_NONE, 7, NULL};
	TKT_OK(tk_writer_add_track(w, &a, &s1));
	const int64_t starts[] = {0, 100, 200, 300, 400, 600};
	for (int i = 0; i < 5; i++) {
		struct tk_event st = {thr,
				      TK_EV_STEP,
				      "step",
				      0,
				      NULL,
				      0,
				      T0 + starts[i] * U,
				      (starts[i + 1] - starts[i]) * U,
				      TK_NONE};
		TKT_OK(tk_writer_add_step(w, &st, i, NULL));
	}
	op(w, thr, s1, TK_EV_KERNEL, "k", 0, 600, NO);
	tkt_finish(w);
	tkt_analyze(tkt_db, TK_WINDOW_AUTO, -1);
	/* mean 120000, median 100000, p90 = 5th, stddev 40000, MAD 0, threshold
	 * 100000 + 3 * 1000 */
	tkt_expect_rows(tkt_db, "SELECT * FROM analysis_step_stats",
			"0|5|600000|120000.0|100000.0|200000|40000.0|100000|200000|0.0|103000.0|1|"
			"host|5|120000.0|100000.0|0.0");
	tkt_expect_rows(tkt_db,
			"SELECT step_num, outlier, busy_ns, other_idle_ns FROM analysis_steps",
			"0|0|100000|0\n1|0|100000|0\n2|0|100000|0\n3|0|100000|0\n4|1|200000|0");
}

/* Two ranks, five all-reduces in process group "0": rank 1 starts 5, 7, 3, 1 us late on the
 * first four, rank 0 2 us late on the fifth; one more all-reduce in group "1" on rank 0 only. */
Test(analyze_time, two_ranks_with_tiny_skews_and_no_straggler)
{
	tk_writer *w = NULL;
	int64_t proc[2], dev[2], thr[2], strm[2];
	cr_assert_eq(tk_writer_create(tkt_db, &w), TK_OK);
	for (int r = 0; r < 2; r++) {
		struct tk_process_info p = {1000 + r, "train", "h", r};
		TKT_OK(tk_writer_add_process(w, &p, &proc[r]));
		struct tk_device_info d = {r,  "gpu",	NULL,	 NULL,	  "h",	   proc[r],
					   r,  NULL,	TK_NONE, TK_NONE, TK_NONE, TK_NONE,
					   -1, TK_NONE, TK_NONE, TK_NONE};
		TKT_OK(tk_writer_add_device(w, &d, &dev[r]));
		struct tk_track_info t = {TK_TRACK_THREAD, NULL, proc[r], TK_NONE, 1,
					  TK_NONE,	   NULL};
		TKT_OK(tk_writer_add_track(w, &t, &thr[r]));
		struct tk_track_info s = {TK_TRACK_STREAM, NULL, proc[r], dev[r], TK_NONE, 9, NULL};
		TKT_OK(tk_writer_add_track(w, &s, &strm[r]));
	}
	const char *name = "ncclDevKernel_AllReduce_Sum_f32_RING_LL";
	const int64_t t0[] = {0, 100, 200, 300, 400}, t1[] = {5, 107, 203, 301, 398};
	for (int r = 0; r < 2; r++)
		for (int i = 0; i < 5; i++) {
			int64_t id = tkt_kernel(w, strm[r], name, T0 + (r ? t1[i] : t0[i]) * U,
						50 * U, TK_NONE);
			TKT_OK(tk_writer_add_arg_text(w, id, "Process Group Name", "0"));
		}
	int64_t id = tkt_kernel(w, strm[0], name, T0 + 500 * U, 50 * U, TK_NONE);
	TKT_OK(tk_writer_add_arg_text(w, id, "Process Group Name", "1"));
	tkt_finish(w);
	tkt_analyze(tkt_db, TK_WINDOW_AUTO, -1);
	/* Matched by call order (no Seq args); skews of 1-7 us are under the 10 us floor of a
	 * significant skew, so no one is last and there is no straggler; the pg "1" kernel is
	 * alone: unmatched. */
	tkt_expect_rows(
	    tkt_db,
	    "SELECT device_id, rank, collective = 'ncclDevKernel_AllReduce_Sum_f32_RING_LL',"
	    " process_group, matched_by, instance, event_id, start_ns - 1000000000000000000, "
	    "dur_ns,"
	    " members, skew_ns, wait_ns, threshold_ns, last FROM analysis_comm"
	    " ORDER BY instance IS NULL, instance, device_id",
	    "0|0|1|0|order|1|1|0|50000|2|0|5000|10000|0\n"
	    "1|1|1|0|order|1|6|5000|50000|2|5000|0|10000|0\n"
	    "0|0|1|0|order|2|2|100000|50000|2|0|7000|10000|0\n"
	    "1|1|1|0|order|2|7|107000|50000|2|7000|0|10000|0\n"
	    "0|0|1|0|order|3|3|200000|50000|2|0|3000|10000|0\n"
	    "1|1|1|0|order|3|8|203000|50000|2|3000|0|10000|0\n"
	    "0|0|1|0|order|4|4|300000|50000|2|0|1000|10000|0\n"
	    "1|1|1|0|order|4|9|301000|50000|2|1000|0|10000|0\n"
	    "0|0|1|0|order|5|5|400000|50000|2|2000|0|10000|0\n"
	    "1|1|1|0|order|5|10|398000|50000|2|0|2000|10000|0\n"
	    "0|0|1|1|NULL|NULL|11|500000|50000|1|NULL|NULL|NULL|0");
	tkt_expect_rows(tkt_db, "SELECT * FROM analysis_comm_ranks ORDER BY device_id",
			"0|0|5|1|0|0.0|0.5|2000|2000|0|300000|16000|0\n"
			"1|1|5|0|0|0.0|0.5|16000|7000|0|250000|2000|0");
	/* both devices: comm time is the union of their kernels, none of it overlapped */
	tkt_expect_rows(tkt_db,
			"SELECT device_id, comm_ns, exposed_comm_ns FROM analysis_device_time",
			"0|300000|300000\n1|250000|250000");
}

/* ---- real traces (tests/data/real) against tests/data/analyze/time_figures.py ---- */

/* HTA's nccl_data (A100, Kineto 2024, ac2g launch flows, NCCL kernels on stream 40). */
Test(analyze_time, kineto_nccl_trace_agrees_with_python)
{
	tkt_import_corpus("kineto/HolisticTraceAnalysis/tests/data/nccl_parser_config/"
			  "nccl_data.json.gz",
			  tkt_db);
	/* time_figures.py's steps window is the host ProfilerStep intervals */
	tkt_analyze(tkt_db, TK_WINDOW_HOST_STEPS, -1);
	tkt_expect_rows(
	    tkt_db,
	    "SELECT device_id, window, window_ns, busy_ns, idle_ns, compute_ns, comm_ns,"
	    " memcpy_ns, exposed_comm_ns, exposed_memcpy_ns FROM analysis_device_time"
	    " ORDER BY window",
	    "0|device|660551005|157500014|503050991|116046564|46876493|2262781|39529327|"
	    "1924123\n"
	    "0|steps|667105339|157500014|509605325|116046564|46876493|2262781|39529327|"
	    "1924123");
	tkt_expect_rows(
	    tkt_db,
	    "SELECT cause, count(*), sum(dur_ns) FROM analysis_gaps GROUP BY cause ORDER BY "
	    "cause",
	    "host_bound|2443|507022353\nkernel_wait|1040|2000134\nunknown|1|582838");
	tkt_expect_rows(
	    tkt_db,
	    "SELECT stream_id, category, count, total_ns FROM analysis_gap_summary ORDER BY "
	    "stream_id, category",
	    "7|host_wait|2613|540091317\n7|kernel_wait|1139|2150343\n"
	    "40|host_wait|20|583924256");
}

/* The 2021 TensorBoard-plugin ResNet-50 trace: integer-us timestamps, no launch flows (the
 * launch comes from correlation ids), no step events in the importer's sense. */
Test(analyze_time, legacy_kineto_trace_agrees_with_python)
{
	tkt_import_corpus("kineto/kineto/tb_plugin/samples/resnet50_num_workers_0/"
			  "worker0.1623143089861.pt.trace.json.gz",
			  tkt_db);
	tkt_analyze(tkt_db, TK_WINDOW_AUTO, -1);
	tkt_expect_rows(
	    tkt_db,
	    "SELECT device_id, window, window_ns, busy_ns, idle_ns, compute_ns, comm_ns,"
	    " memcpy_ns, exposed_comm_ns, exposed_memcpy_ns FROM analysis_device_time",
	    "0|device|996477000|603558000|392919000|592066000|0|11492000|0|11492000");
	tkt_expect_rows(
	    tkt_db,
	    "SELECT cause, count(*), sum(dur_ns) FROM analysis_gaps GROUP BY cause ORDER BY "
	    "cause",
	    "host_bound|852|382676000\nkernel_wait|7433|10243000");
	tkt_expect_rows(tkt_db, "SELECT category, count, total_ns FROM analysis_gap_summary",
			"host_wait|1488|382676000\nkernel_wait|7607|10243000");
}

/* A TPU-like device: only XLA ops on a derived line (a fusion with a nested op, an all-reduce
 * overlapping it), and an annotation that is not device work. */
Test(analyze_time, xla_ops_stand_in_for_kernels_without_any)
{
	tk_writer *w = NULL;
	int64_t proc, dev, line;
	cr_assert_eq(tk_writer_create(tkt_db, &w), TK_OK);
	struct tk_process_info p = {1, NULL, NULL, TK_NONE};
	TKT_OK(tk_writer_add_process(w, &p, &proc));
	struct tk_device_info d = {0,	    "tpu",   NULL,    NULL,    NULL,	proc,
				   TK_NONE, NULL,    TK_NONE, TK_NONE, TK_NONE, TK_NONE,
				   -1,	    TK_NONE, TK_NONE, TK_NONE};
	TKT_OK(tk_writer_add_device(w, &d, &dev));
	struct tk_track_info t = {TK_TRACK_DERIVED, "XLA Ops", proc, dev, TK_NONE, TK_NONE, NULL};
	TKT_OK(tk_writer_add_track(w, &t, &line));
	struct tk_event e = {line, TK_EV_XLA_OP, "fusion.1", 0, NULL, 0, T0, 100 * U, TK_NONE};
	TKT_OK(tk_writer_add_event(w, &e, NULL));
	e.name = "convolution.2";
	e.ts_ns = T0 + 10 * U;
	e.dur_ns = 10 * U;
	TKT_OK(tk_writer_add_event(w, &e, NULL));
	e.name = "all-reduce.3";
	e.ts_ns = T0 + 50 * U;
	e.dur_ns = 100 * U;
	TKT_OK(tk_writer_add_event(w, &e, NULL));
	e.kind = TK_EV_ANNOTATION;
	e.name = "region";
	e.ts_ns = T0 + 200 * U;
	TKT_OK(tk_writer_add_event(w, &e, NULL));
	tkt_finish(w);
	tkt_analyze(tkt_db, TK_WINDOW_AUTO, -1);
	tkt_expect_rows(
	    tkt_db,
	    "SELECT window, window_ns, ops, busy_ns, compute_ns, comm_ns, exposed_comm_ns, "
	    "idle_ns FROM analysis_device_time",
	    "device|150000|3|150000|100000|100000|50000|0");
	cr_expect_eq(tkt_query_int(tkt_db, "SELECT count(*) FROM analysis_gaps"), 0);
	tkt_expect_rows(
	    tkt_db, "SELECT value, note FROM analysis_kpi WHERE kpi = 'kernel_duration_median'",
	    "100000.0|median duration of the 3 XLA ops starting in the window; good > 1 ms, "
	    "warning 0.1-1 ms, bad < 0.1 ms");
}

/* Op profile and kernel stats on small stores whose answers are known by construction. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tracekit/tracekit.h>

#include "tk_analyze_store.h"

#define T0 TKT_T0

/*
 * Host thread: outer [0,100) holding inner [10,30), a launch [40,45) and inner [50,60), under an
 * annotation (a label: no part in nesting); p1 [200,210) and p2 [205,215) overlap partially;
 * eqlong [300,320) and eqshort [300,305) start together (short loaded first); late_child
 * [410,420) is loaded before its parent late_parent [400,500).
 * Device 0, stream 7: k [1000,1100), k [1200,1250), k2 [1250,1300), memcpy [1300,1400);
 * XLA Ops line: fusion.1 [1000,1100) of module jit_f, category fusion.
 */
static char *write_ops_store(char *dir)
{
	char *path = tkt_path(dir, "ops.db");
	tk_writer *w = NULL;
	cr_assert_eq(tk_writer_create(path, &w), TK_OK);
	int64_t proc, dev, thr, strm, xla;
	struct tk_process_info p = {10, "train", "h", 0};
	TKT_OK(tk_writer_add_process(w, &p, &proc));
	struct tk_device_info d = {0,	"gpu",	 "H100",  "nvidia", "h", proc,	  0,	   "9.0",
				   132, TK_NONE, TK_NONE, TK_NONE,  -1,	 TK_NONE, TK_NONE, TK_NONE};
	TKT_OK(tk_writer_add_device(w, &d, &dev));
	struct tk_track_info t1 = {TK_TRACK_THREAD, "main", proc, TK_NONE, 1, TK_NONE, NULL};
	struct tk_track_info t2 = {TK_TRACK_STREAM, "Stream #7", proc, dev, TK_NONE, 7, NULL};
	struct tk_track_info t3 = {TK_TRACK_DERIVED, "XLA Ops", proc, dev, TK_NONE, TK_NONE, NULL};
	TKT_OK(tk_writer_add_track(w, &t1, &thr));
	TKT_OK(tk_writer_add_track(w, &t2, &strm));
	TKT_OK(tk_writer_add_track(w, &t3, &xla));
	tkt_ev(w, thr, TK_EV_HOST_OP, "outer", "cpu_op", 0, 100);
	tkt_ev(w, thr, TK_EV_ANNOTATION, "## ann ##", NULL, 5, 90);
	tkt_ev(w, thr, TK_EV_HOST_OP, "inner", "cpu_op", 10, 20);
	tkt_ev(w, thr, TK_EV_RUNTIME_API, "cudaLaunchKernel", NULL, 40, 5);
	tkt_ev(w, thr, TK_EV_HOST_OP, "inner", "cpu_op", 50, 10);
	tkt_ev(w, thr, TK_EV_HOST_OP, "p1", "cpu_op", 200, 10);
	tkt_ev(w, thr, TK_EV_HOST_OP, "p2", "cpu_op", 205, 10);
	tkt_ev(w, thr, TK_EV_HOST_OP, "eqshort", "cpu_op", 300, 5);
	tkt_ev(w, thr, TK_EV_HOST_OP, "eqlong", "cpu_op", 300, 20);
	tkt_ev(w, thr, TK_EV_HOST_OP, "late_child", "cpu_op", 410, 10);
	tkt_ev(w, thr, TK_EV_HOST_OP, "late_parent", "cpu_op", 400, 100);
	struct tk_kernel_info ki = {NULL, {1, 1, 1}, {32, 1, 1}, 8, 0, 0, -1, -1, -1, 0};
	struct tk_event k1 = {strm, TK_EV_KERNEL, "k", 0, "kernel", 0, T0 + 1000, 100, 1};
	struct tk_event k2 = {strm, TK_EV_KERNEL, "k", 0, "kernel", 0, T0 + 1200, 50, 2};
	struct tk_event k3 = {strm, TK_EV_KERNEL, "k2", 0, "kernel", 0, T0 + 1250, 50, 3};
	TKT_OK(tk_writer_add_kernel(w, &k1, &ki, NULL));
	TKT_OK(tk_writer_add_kernel(w, &k2, &ki, NULL));
	TKT_OK(tk_writer_add_kernel(w, &k3, &ki, NULL));
	struct tk_event cp = {strm, TK_EV_MEMCPY, "Memcpy HtoD", 0, NULL, 0, T0 + 1300, 100, 4};
	struct tk_copy_info ci = {4096,		 TK_COPY_H2D, TK_MEM_PINNED,
				  TK_MEM_DEVICE, TK_NONE,     TK_NONE};
	TKT_OK(tk_writer_add_copy(w, &cp, &ci, NULL));
	int64_t x = tkt_ev(w, xla, TK_EV_XLA_OP, "fusion.1", NULL, 1000, 100);
	struct tk_op_info oi = {"fusion.1", "jit_f", NULL, "fusion", TK_NONE, TK_NONE, TK_NONE};
	TKT_OK(tk_writer_add_op_details(w, x, &oi));
	tkt_finish(w);
	return path;
}

#define OPQ(name)                                                                              \
	"SELECT level, device_id, process_id, module, category, name, occurrences, total_ns, " \
	"self_ns, avg_ns, min_ns, max_ns, device_share FROM analysis_op_profile WHERE name = " \
	"'" name "'"

Test(op_profile, self_time_nesting_overlaps_and_shares)
{
	char *dir = tkt_mkdtemp(), *path = write_ops_store(dir);
	tkt_analyze(path, TK_WINDOW_AUTO, -1);
	tkt_expect_rows(path, OPQ("outer"),
			"host_op|NULL|1|NULL|cpu_op|outer|1|100|65|100.0|100|100|NULL");
	tkt_expect_rows(path, OPQ("inner"),
			"host_op|NULL|1|NULL|cpu_op|inner|2|30|30|15.0|10|20|NULL");
	tkt_expect_rows(path, OPQ("cudaLaunchKernel"),
			"runtime_api|NULL|1|NULL|NULL|cudaLaunchKernel|1|5|5|5.0|5|5|NULL");
	tkt_expect_rows(path, OPQ("p1"), "host_op|NULL|1|NULL|cpu_op|p1|1|10|5|10.0|10|10|NULL");
	tkt_expect_rows(path, OPQ("p2"), "host_op|NULL|1|NULL|cpu_op|p2|1|10|10|10.0|10|10|NULL");
	tkt_expect_rows(path, OPQ("eqlong"),
			"host_op|NULL|1|NULL|cpu_op|eqlong|1|20|15|20.0|20|20|NULL");
	tkt_expect_rows(path, OPQ("eqshort"),
			"host_op|NULL|1|NULL|cpu_op|eqshort|1|5|5|5.0|5|5|NULL");
	tkt_expect_rows(path, OPQ("late_parent"),
			"host_op|NULL|1|NULL|cpu_op|late_parent|1|100|90|100.0|100|100|NULL");
	tkt_expect_rows(path, OPQ("late_child"),
			"host_op|NULL|1|NULL|cpu_op|late_child|1|10|10|10.0|10|10|NULL");
	/* device busy = [1000,1100) + [1200,1400) = 300 ns; window 400 ns; idle 100 ns */
	tkt_expect_rows(path, OPQ("k"), "kernel|0|NULL|NULL|kernel|k|2|150|150|75.0|50|100|0.5");
	tkt_expect_rows(path, OPQ("k2"),
			"kernel|0|NULL|NULL|kernel|k2|1|50|50|50.0|50|50|0.166666666666667");
	tkt_expect_rows(
	    path, OPQ("fusion.1"),
	    "xla_op|0|NULL|jit_f|fusion|fusion.1|1|100|100|100.0|100|100|0.333333333333333");
	tkt_expect_rows(path, OPQ("IDLE"),
			"idle|0|NULL|NULL|NULL|IDLE|NULL|100|100|NULL|NULL|NULL|NULL");
	/* annotations are not ops; memcpys are not in the op profile */
	cr_expect_eq(tkt_query_int(path, "SELECT count(*) FROM analysis_op_profile"), 13);
	/* on a track, the self times add up to the union of its (non-label) events */
	cr_expect_eq(tkt_query_int(path, "SELECT sum(self_ns) FROM analysis_op_profile WHERE "
					 "device_id IS NULL"),
		     100 + 15 + 20 + 100);
	/* re-runnable: the second run replaces the table */
	tkt_analyze(path, TK_WINDOW_AUTO, -1);
	cr_expect_eq(tkt_query_int(path, "SELECT count(*) FROM analysis_op_profile"), 13);
	free(path);
	tkt_rmdir(dir);
	free(dir);
}

/*
 * Parents written after their children, beyond the 8192 events a track's reorder buffer holds
 * (Kineto host threads: df_index_resolver's main thread has 40 050 events before its first late
 * one). Thread A: 10 000 children a_child [10i, 10i + 5), then a_parent [0, 100000), then 100
 * a_after [100000 + 10i, +5) and a_eqshort [200000, +5) loaded before a_eqlong [200000, +20):
 * swept again from the events before a_parent read by id and the ones after it kept from the
 * pass. Thread B: 9 000 children b_child [10i, +5), each followed by three c_op events of
 * thread C, then b_parent [0, 90000): its events are spread over more than twice their number of
 * ids, so it is read again whole through the index. A store this small is all in the op
 * profile's history of the pass (HISTORY_EVENTS, 131 072 events), so nothing is read again.
 * With @filler, 140 000 d_fill [10i, +5) of thread D come after thread A's: the history is
 * full before threads B and C start, so B is read again through the index, and thread E's 9 000
 * e_child [10i, +5) then e_parent [0, 90000) (its ids together) are read again by id; thread A's
 * history, complete when a_parent came, still serves.
 */
static char *write_late_store(char *dir, int filler)
{
	char *path = tkt_path(dir, "late.db");
	tk_writer *w = NULL;
	cr_assert_eq(tk_writer_create(path, &w), TK_OK);
	int64_t proc, a, b, thc;
	struct tk_process_info p = {10, "train", "h", 0};
	TKT_OK(tk_writer_add_process(w, &p, &proc));
	struct tk_track_info ta = {TK_TRACK_THREAD, "a", proc, TK_NONE, 1, TK_NONE, NULL};
	struct tk_track_info tb = {TK_TRACK_THREAD, "b", proc, TK_NONE, 2, TK_NONE, NULL};
	struct tk_track_info tc = {TK_TRACK_THREAD, "c", proc, TK_NONE, 3, TK_NONE, NULL};
	TKT_OK(tk_writer_add_track(w, &ta, &a));
	TKT_OK(tk_writer_add_track(w, &tb, &b));
	TKT_OK(tk_writer_add_track(w, &tc, &thc));
	for (int64_t i = 0; i < 10000; i++)
		tkt_ev(w, a, TK_EV_HOST_OP, "a_child", "cpu_op", 10 * i, 5);
	tkt_ev(w, a, TK_EV_HOST_OP, "a_parent", "cpu_op", 0, 100000);
	for (int64_t i = 0; i < 100; i++)
		tkt_ev(w, a, TK_EV_HOST_OP, "a_after", "cpu_op", 100000 + 10 * i, 5);
	tkt_ev(w, a, TK_EV_HOST_OP, "a_eqshort", "cpu_op", 200000, 5);
	tkt_ev(w, a, TK_EV_HOST_OP, "a_eqlong", "cpu_op", 200000, 20);
	int64_t d = 0, e = 0;
	if (filler) {
		struct tk_track_info td = {TK_TRACK_THREAD, "d", proc, TK_NONE, 4, TK_NONE, NULL};
		TKT_OK(tk_writer_add_track(w, &td, &d));
		for (int64_t i = 0; i < 140000; i++)
			tkt_ev(w, d, TK_EV_HOST_OP, "d_fill", "cpu_op", 10 * i, 5);
	}
	for (int64_t i = 0; i < 9000; i++) {
		tkt_ev(w, b, TK_EV_HOST_OP, "b_child", "cpu_op", 10 * i, 5);
		for (int64_t k = 0; k < 3; k++)
			tkt_ev(w, thc, TK_EV_HOST_OP, "c_op", "cpu_op", 30 * i + 10 * k, 5);
	}
	tkt_ev(w, b, TK_EV_HOST_OP, "b_parent", "cpu_op", 0, 90000);
	if (filler) {
		struct tk_track_info te = {TK_TRACK_THREAD, "e", proc, TK_NONE, 5, TK_NONE, NULL};
		TKT_OK(tk_writer_add_track(w, &te, &e));
		for (int64_t i = 0; i < 9000; i++)
			tkt_ev(w, e, TK_EV_HOST_OP, "e_child", "cpu_op", 10 * i, 5);
		tkt_ev(w, e, TK_EV_HOST_OP, "e_parent", "cpu_op", 0, 90000);
	}
	tkt_finish(w);
	return path;
}

/* The op profile rows of the ops named @prefix_*: name, occurrences, total, self, min, max. */
static void expect_ops(const char *path, const char *prefix, const char *want)
{
	char sql[256];
	snprintf(sql, sizeof(sql),
		 "SELECT name, occurrences, total_ns, self_ns, min_ns, max_ns FROM "
		 "analysis_op_profile WHERE name GLOB '%s_*' ORDER BY name",
		 prefix);
	tkt_expect_rows(path, sql, want);
}

static void expect_late_ops(const char *path)
{
	/* self time: each child's 5 ns, the parents the rest of their span */
	expect_ops(path, "a",
		   "a_after|100|500|500|5|5\n"
		   "a_child|10000|50000|50000|5|5\n"
		   "a_eqlong|1|20|15|20|20\n"
		   "a_eqshort|1|5|5|5|5\n"
		   "a_parent|1|100000|50000|100000|100000");
	expect_ops(path, "b",
		   "b_child|9000|45000|45000|5|5\n"
		   "b_parent|1|90000|45000|90000|90000");
	expect_ops(path, "c", "c_op|27000|135000|135000|5|5");
}

Test(op_profile, parents_written_after_the_reorder_window)
{
	char *dir = tkt_mkdtemp(), *path = write_late_store(dir, 0);
	tkt_analyze(path, TK_WINDOW_AUTO, -1);
	expect_late_ops(path);
	free(path);
	tkt_rmdir(dir);
	free(dir);
}

/* The same past the history's bound: read again through the index and by id. */
Test(op_profile, parents_written_late_past_the_history)
{
	char *dir = tkt_mkdtemp(), *path = write_late_store(dir, 1);
	tkt_analyze(path, TK_WINDOW_AUTO, -1);
	expect_late_ops(path);
	expect_ops(path, "d", "d_fill|140000|700000|700000|5|5");
	expect_ops(path, "e",
		   "e_child|9000|45000|45000|5|5\n"
		   "e_parent|1|90000|45000|90000|90000");
	free(path);
	tkt_rmdir(dir);
	free(dir);
}

/*
 * Device 0 (H100 limits: 2048 threads, 65536 registers, 233472 B shared memory per SM, cc 9.0):
 * k x3 (block 256, 32 regs) of 100, 300, 200 ns; k x2 (block 1024, 64 regs) of 10, 20 ns;
 * hmma_kernel with source occupancy 0.25 (x2: 0.25 over 30 ns and 0.5 over 10 ns); nodetail
 * without kernel_details.
 */
static char *write_kernel_store(char *dir)
{
	char *path = tkt_path(dir, "k.db");
	tk_writer *w = NULL;
	cr_assert_eq(tk_writer_create(path, &w), TK_OK);
	int64_t proc, dev, strm;
	struct tk_process_info p = {10, "train", "h", 0};
	TKT_OK(tk_writer_add_process(w, &p, &proc));
	struct tk_device_info d = {0,	"gpu",	 "H100",  "nvidia", "h", proc, 0,     "9.0",
				   132, TK_NONE, TK_NONE, TK_NONE,  -1,	 2048, 65536, 233472};
	TKT_OK(tk_writer_add_device(w, &d, &dev));
	struct tk_track_info t2 = {TK_TRACK_STREAM, "Stream #7", proc, dev, TK_NONE, 7, NULL};
	TKT_OK(tk_writer_add_track(w, &t2, &strm));
	struct tk_kernel_info a = {NULL, {10, 1, 1}, {256, 1, 1}, 32, 0, 0, -1, -1, -1, 0};
	struct tk_kernel_info b = {NULL, {4, 2, 1}, {1024, 1, 1}, 64, 1024, 0, -1, -1, -1, 0};
	struct tk_kernel_info h = {NULL, {8, 1, 1}, {128, 1, 1}, 255, 0, 49152, 0.25, -1, -1, 0};
	int64_t t = 0;
	const int64_t da[] = {100, 300, 200}, db[] = {10, 20};
	for (int i = 0; i < 3; i++, t += 1000) {
		struct tk_event e = {strm, TK_EV_KERNEL, "k", 0, NULL, 0, T0 + t, da[i], TK_NONE};
		TKT_OK(tk_writer_add_kernel(w, &e, &a, NULL));
	}
	for (int i = 0; i < 2; i++, t += 1000) {
		struct tk_event e = {strm, TK_EV_KERNEL, "k", 0, NULL, 0, T0 + t, db[i], TK_NONE};
		TKT_OK(tk_writer_add_kernel(w, &e, &b, NULL));
	}
	struct tk_event he = {strm, TK_EV_KERNEL, "volta_hmma_gemm", 0, NULL, 0, T0 + t,
			      30,   TK_NONE};
	TKT_OK(tk_writer_add_kernel(w, &he, &h, NULL));
	t += 1000;
	he.ts_ns = T0 + t;
	he.dur_ns = 10;
	h.occupancy = 0.5;
	TKT_OK(tk_writer_add_kernel(w, &he, &h, NULL));
	t += 1000;
	tkt_ev(w, strm, TK_EV_KERNEL, "nodetail", NULL, t, 7);
	tkt_finish(w);
	return path;
}

#define KQ "SELECT * FROM analysis_kernel_stats WHERE rank = "

Test(kernel_stats, groups_median_stddev_occupancy_tensor_cores)
{
	char *dir = tkt_mkdtemp(), *path = write_kernel_store(dir);
	tkt_analyze(path, TK_WINDOW_AUTO, -1);
	/* 256 threads = 8 warps: 8 blocks by threads, 65536 / (32 * 256) = 8 by registers -> 1.0;
	 * stddev = sqrt((100^2 + 100^2 + 0) / 3) */
	tkt_expect_rows(
	    path, KQ "1",
	    "1|0|k|10|1|1|256|1|1|32|0|0|0|3|600|200.0|100|300|200.0|81.6496580927726|1.0|"
	    "computed|0|NULL");
	/*
	 * The calculator's theoretical occupancy, with the source's figure beside it (its
	 * duration-weighted mean: (0.25 * 30 + 0.5 * 10) / 40 = 0.3125). 128 threads = 4 warps of
	 * 255 regs -> 8192 registers a warp (256-register units): 16384 / 8192 = 2 warps in each
	 * of 4 sub-partitions = 8 warps = 2 blocks; shared memory 49152 + 1024 reserved: 233472 /
	 * 50176 = 4 blocks. 2 blocks x 4 warps = 8 of 64 warps = 0.125.
	 */
	tkt_expect_rows(
	    path, KQ "2",
	    "2|0|volta_hmma_gemm|8|1|1|128|1|1|255|0|49152|49152|2|40|20.0|10|30|20.0|10.0|"
	    "0.125|computed|1|0.3125");
	/* 1024 threads = 32 warps: 2 blocks by threads, 65536 / (64 * 1024) = 1 by registers ->
	 * 0.5; even count: median is the mean of the two middle ones */
	tkt_expect_rows(
	    path, KQ "3",
	    "3|0|k|4|2|1|1024|1|1|64|1024|0|1024|2|30|15.0|10|20|15.0|5.0|0.5|computed|0|NULL");
	tkt_expect_rows(
	    path, KQ "4",
	    "4|0|nodetail|NULL|NULL|NULL|NULL|NULL|NULL|NULL|NULL|NULL|NULL|1|7|7.0|7|7|7.0|"
	    "0.0|NULL|NULL|0|NULL");
	cr_expect_eq(tkt_query_int(path, "SELECT count(*) FROM analysis_kernel_stats"), 4);
	cr_expect_eq(tkt_query_int(path, "SELECT sum(total_ns) FROM analysis_kernel_stats"),
		     tkt_query_int(path, "SELECT sum(dur_ns) FROM kernels"));
	free(path);
	tkt_rmdir(dir);
	free(dir);
}

/* Findings on small stores where each rule fires or does not by construction. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tracekit/tracekit.h>

#include "tk_analyze_store.h"

#define T0 TKT_T0

/* A kernel without kernel_details. */
static void kernel(tk_writer *w, int64_t track, const char *name, int64_t ts, int64_t dur)
{
	tkt_ev(w, track, TK_EV_KERNEL, name, NULL, ts, dur);
}

/*
 * Device 0: big [0,150) and small [900,1000): window 1000 ns, busy 250, idle 750 (75 %: gpu_idle,
 * high); big is 60 % of busy (dominant_op). Device 1: a [0,500) and b [500,1000): never idle, no op
 * above 50 %. Host: cudaDeviceSynchronize [0,600) and cudaLaunchKernel [700,710): the sync call is
 * 60 % of the 1000 ns trace, and device 0 is 25 % busy (sync_api_calls, high). Nothing else fires: 4 kernels are not "many",
 * no occupancy, copies, compilation, communication or steps.
 */
static char *write_store(char *dir, int saturated)
{
	char *path = tkt_path(dir, "f.db");
	tk_writer *w = NULL;
	cr_assert_eq(tk_writer_create(path, &w), TK_OK);
	int64_t proc, d0, d1, thr, s0, s1;
	struct tk_process_info p = {10, "train", "h", 0};
	TKT_OK(tk_writer_add_process(w, &p, &proc));
	struct tk_device_info d = {0,	"gpu",	 "H100",  "nvidia", "h", proc,	  0,	   "9.0",
				   132, TK_NONE, TK_NONE, TK_NONE,  -1,	 TK_NONE, TK_NONE, TK_NONE};
	TKT_OK(tk_writer_add_device(w, &d, &d0));
	d.ordinal = 1;
	TKT_OK(tk_writer_add_device(w, &d, &d1));
	struct tk_track_info t1 = {TK_TRACK_THREAD, "main", proc, TK_NONE, 1, TK_NONE, NULL};
	struct tk_track_info t2 = {TK_TRACK_STREAM, "Stream #7", proc, d0, TK_NONE, 7, NULL};
	struct tk_track_info t3 = {TK_TRACK_STREAM, "Stream #7", proc, d1, TK_NONE, 7, NULL};
	TKT_OK(tk_writer_add_track(w, &t1, &thr));
	TKT_OK(tk_writer_add_track(w, &t2, &s0));
	TKT_OK(tk_writer_add_track(w, &t3, &s1));
	tkt_ev(w, thr, TK_EV_RUNTIME_API, "cudaDeviceSynchronize", NULL, 0, 600);
	tkt_ev(w, thr, TK_EV_RUNTIME_API, "cudaLaunchKernel", NULL, 700, 10);
	kernel(w, s0, "big", 0, saturated ? 900 : 150);
	kernel(w, s0, "small", 900, 100);
	kernel(w, s1, "a", 0, 500);
	kernel(w, s1, "b", 500, 500);
	tkt_finish(w);
	return path;
}

static char *write_findings_store(char *dir)
{
	return write_store(dir, 0);
}

#define FQ "SELECT rule, severity, device_id, process_id, metric, threshold FROM analysis_findings "

Test(findings, rules_fire_by_construction)
{
	char *dir = tkt_mkdtemp(), *path = write_findings_store(dir);
	tkt_analyze(path, TK_WINDOW_AUTO, -1);
	cr_expect_eq(tkt_query_int(path, "SELECT count(*) FROM analysis_findings"), 3);
	tkt_expect_rows(path, FQ "WHERE id = 1", "gpu_idle|high|0|NULL|75.0|20.0");
	tkt_expect_rows(path, FQ "WHERE id = 2", "dominant_op|medium|0|NULL|60.0|50.0");
	tkt_expect_rows(path, FQ "WHERE id = 3", "sync_api_calls|high|NULL|1|60.0|1.0");
	tkt_expect_rows(
	    path,
	    "SELECT json_extract(evidence, '$.window_ns'), json_extract(evidence, '$.idle_ns'), "
	    "json_extract(evidence, '$.top[0].dur_ns') FROM analysis_findings WHERE id = 1",
	    "1000|750|750");
	tkt_expect_rows(
	    path,
	    "SELECT json_extract(evidence, '$.name'), json_extract(evidence, '$.total_ns'), "
	    "json_extract(evidence, '$.top[1].name') FROM analysis_findings WHERE id = 2",
	    "big|150|small");
	tkt_expect_rows(
	    path,
	    "SELECT json_extract(evidence, '$.calls'), json_extract(evidence, '$.total_ns'), "
	    "json_extract(evidence, '$.trace_ns'), json_extract(evidence, '$.top[0].name') "
	    "FROM analysis_findings WHERE id = 3",
	    "1|600|1000|cudaDeviceSynchronize");
	cr_expect_eq(tkt_query_int(path, "SELECT count(*) FROM analysis_findings WHERE summary = "
					 "'' OR fix = '' OR json_valid(evidence) = 0"),
		     0);
	free(path);
	tkt_rmdir(dir);
	free(dir);
}

/* The same host waiting 60 % of the trace in cudaDeviceSynchronize, but on devices busy all of
 * their window: the wait costs nothing, sync_api_calls does not fire (docs: busy >= 95 %). */
Test(findings, sync_calls_on_saturated_devices_do_not_fire)
{
	char *dir = tkt_mkdtemp(), *path = write_store(dir, 1);
	tkt_analyze(path, TK_WINDOW_AUTO, -1);
	cr_expect_eq(tkt_query_int(path, "SELECT count(*) FROM analysis_findings WHERE rule = "
					 "'sync_api_calls'"),
		     0);
	tkt_expect_rows(path, "SELECT device_id, utilization FROM analysis_device_time ORDER BY 1",
			"0|1.0\n1|1.0");
	free(path);
	tkt_rmdir(dir);
	free(dir);
}

/* JAX 0.8 on MI300X (vendored): the device idles 63.2% of its window, mostly host-bound; the
 * fix speaks of jit and lax (the device runs XLA: its kernels carry HLO ops), not torch.compile */
Test(findings, gpu_idle_fix_follows_the_framework)
{
	char *dir = tkt_mkdtemp(), *db = tkt_path(dir, "jax.db");
	char *in = tkt_real("xplane/logdir/plugins/profile/jax08_mi300x_gemm/tw003.xplane.pb");
	struct tkt_run r = tkt_tracekit("import", in, "-o", db, NULL);
	cr_assert_eq(r.code, 0, "%s", r.err);
	tkt_run_free(&r);
	tkt_analyze(db, TK_WINDOW_AUTO, -1);
	tkt_expect_rows(
	    db,
	    "SELECT severity, printf('%.1f', metric), fix LIKE 'The host dispatches work "
	    "too slowly%jit the whole step%lax.scan%', fix LIKE '%torch%' FROM "
	    "analysis_findings WHERE rule = 'gpu_idle'",
	    "high|63.2|1|0");
	free(in);
	free(db);
	tkt_rmdir(dir);
	free(dir);
}

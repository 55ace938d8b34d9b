/* Memory timeline on small stores whose answers are known by construction. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tracekit/tracekit.h>

#include "tk_analyze_store.h"

#define T0 TKT_T0

static void mem(tk_writer *w, int64_t ts, int is_free, int64_t dev, int64_t proc, int64_t addr,
		int64_t bytes, int64_t op_event, const char *op_name, int64_t in_use)
{
	struct tk_memory_event m = {
	    T0 + ts,  is_free, dev,	      proc,
	    addr,     bytes,   TK_MEM_DEVICE, "caching",
	    op_event, in_use,  TK_NONE,	      0,
	    TK_NONE,  TK_NONE, TK_NONE,	      in_use != TK_NONE ? 0.125 : -1,
	    op_name};
	TKT_OK(tk_writer_add_memory_event(w, &m));
}

/*
 * Device 0 (nothing reported, so bytes in use are summed): alloc A 100 B @10 (no op: the host op
 * aten::zeros [0,1000) encloses it), alloc B 300 B @20 (op_name aten::empty), free A @30, alloc C
 * 50 B @40 (op event aten::add), free of an unknown address @50. Values 100, 400, 300, 350, 350:
 * peak 400 at @20. Device 1 reports bytes_in_use 10, 50, 20 on every record: peak 50 at @200.
 */
static char *write_mem_store(char *dir)
{
	char *path = tkt_path(dir, "m.db");
	tk_writer *w = NULL;
	cr_assert_eq(tk_writer_create(path, &w), TK_OK);
	int64_t proc, d0, d1, thr, add;
	struct tk_process_info p = {10, "train", "h", 0};
	TKT_OK(tk_writer_add_process(w, &p, &proc));
	struct tk_device_info d = {0,	"gpu",	 "H100",  "nvidia", "h", proc,	  0,	   "9.0",
				   132, TK_NONE, TK_NONE, TK_NONE,  -1,	 TK_NONE, TK_NONE, TK_NONE};
	TKT_OK(tk_writer_add_device(w, &d, &d0));
	d.ordinal = 1;
	TKT_OK(tk_writer_add_device(w, &d, &d1));
	struct tk_track_info t1 = {TK_TRACK_THREAD, "main", proc, TK_NONE, 1, TK_NONE, NULL};
	TKT_OK(tk_writer_add_track(w, &t1, &thr));
	tkt_ev(w, thr, TK_EV_HOST_OP, "aten::zeros", NULL, 0, 1000);
	add = tkt_ev(w, thr, TK_EV_HOST_OP, "aten::add", NULL, 2000, 10);
	mem(w, 10, 0, d0, proc, 0x1000, 100, TK_NONE, NULL, TK_NONE);
	mem(w, 20, 0, d0, proc, 0x2000, 300, TK_NONE, "aten::empty", TK_NONE);
	mem(w, 30, 1, d0, proc, 0x1000, 100, TK_NONE, NULL, TK_NONE);
	mem(w, 40, 0, d0, proc, 0x3000, 50, add, NULL, TK_NONE);
	mem(w, 50, 1, d0, proc, 0x9000, 64, TK_NONE, NULL, TK_NONE);
	mem(w, 100, 0, d1, proc, 0x1000, 10, TK_NONE, NULL, 10);
	mem(w, 200, 0, d1, proc, 0x2000, 40, TK_NONE, NULL, 50);
	mem(w, 300, 1, d1, proc, 0x2000, 40, TK_NONE, NULL, 20);
	tkt_finish(w);
	return path;
}

Test(memory, summed_and_reported_peaks_live_allocations_histogram)
{
	char *dir = tkt_mkdtemp(), *path = write_mem_store(dir);
	char want[1024];
	tkt_analyze(path, TK_WINDOW_AUTO, -1);
	snprintf(want, sizeof(want),
		 "1|0|1|caching|summed|5|3|2|1|%lld|%lld|400|%lld|2|350|2|400|NULL|NULL|NULL|NULL|"
		 "NULL",
		 T0 + 10, T0 + 50, T0 + 20);
	tkt_expect_rows(path, "SELECT * FROM analysis_memory WHERE series_id = 1", want);
	snprintf(want, sizeof(want),
		 "2|1|1|caching|reported|3|2|1|0|%lld|%lld|50|%lld|7|20|2|50|NULL|NULL|0.125|0.125|"
		 "reported",
		 T0 + 100, T0 + 300, T0 + 200);
	tkt_expect_rows(path, "SELECT * FROM analysis_memory WHERE series_id = 2", want);
	snprintf(want, sizeof(want), "1|1|2|8192|300|%lld|NULL|aten::empty|name", T0 + 20);
	tkt_expect_rows(
	    path, "SELECT * FROM analysis_memory_live_at_peak WHERE series_id = 1 AND rank = 1",
	    want);
	snprintf(want, sizeof(want), "1|2|1|4096|100|%lld|1|aten::zeros|enclosing", T0 + 10);
	tkt_expect_rows(
	    path, "SELECT * FROM analysis_memory_live_at_peak WHERE series_id = 1 AND rank = 2",
	    want);
	cr_expect_eq(tkt_query_int(path, "SELECT count(*) FROM analysis_memory_live_at_peak"), 4);
	tkt_expect_rows(
	    path,
	    "SELECT group_concat(lo_bytes || '-' || hi_bytes || ':' || allocs || '/' || bytes, "
	    "' ') FROM (SELECT * FROM analysis_memory_histogram WHERE series_id = 1 ORDER BY "
	    "lo_bytes)",
	    "32-64:1/50 64-128:1/100 256-512:1/300");
	/* span 40 ns over 1000 buckets: width 1 ns, one record per bucket */
	snprintf(want, sizeof(want), "5|%lld|400|%lld|100|350|%lld", T0 + 10, T0 + 50, T0 + 51);
	tkt_expect_rows(
	    path,
	    "SELECT count(*), min(start_ns), max(max_bytes), max(max_ns), min(min_bytes), "
	    "(SELECT last_bytes FROM analysis_memory_timeline WHERE series_id = 1 ORDER BY "
	    "bucket DESC LIMIT 1), max(end_ns) FROM "
	    "analysis_memory_timeline WHERE series_id = 1",
	    want);
	free(path);
	tkt_rmdir(dir);
	free(dir);
}

/* A synthetic store's allocator reports bytes reserved but no fragmentation: it is computed at
 * the peak as (reserved - in use) / reserved (docs/metrics.md). */
Test(memory, fragmentation_computed_from_reserved_bytes)
{
	char *dir = tkt_mkdtemp(), *path = tkt_path(dir, "s.db");
	struct tkt_run r = tkt_tracekit("synth", "-o", path, "--events", "20000", "--devices", "1",
					"--steps", "3", "--seed", "1", NULL);
	cr_assert_eq(r.code, 0, "%s", r.err);
	tkt_run_free(&r);
	tkt_analyze(path, TK_WINDOW_AUTO, -1);
	cr_expect(tkt_query_int(path, "SELECT count(*) FROM analysis_memory WHERE "
				      "fragmentation_source = 'computed'") > 0);
	cr_expect_eq(
	    tkt_query_int(path,
			  "SELECT count(*) FROM analysis_memory WHERE fragmentation_source = "
			  "'computed' AND (reserved_at_peak IS NULL OR abs(fragmentation_at_peak "
			  "- (reserved_at_peak - peak_bytes) * 1.0 / reserved_at_peak) > 1e-15)"),
	    0);
	cr_expect_eq(tkt_query_int(path, "SELECT count(*) FROM analysis_memory WHERE "
					 "fragmentation_at_peak IS NOT NULL AND "
					 "fragmentation_source IS NULL"),
		     0);
	free(path);
	tkt_rmdir(dir);
	free(dir);
}

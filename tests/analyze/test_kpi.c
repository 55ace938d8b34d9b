/*
 * Tests of analysis_kpi (every KPI with its band, window and note, on a store whose figures are
 * known by construction: a host-bound and a sync gap, kernels of known durations, bytes accessed
 * against a known peak bandwidth, nested compile events, a device without peak bandwidth and a
 * device without any work) and of the `tracekit analyze` command line (--help, exit codes,
 * options, re-runs replacing the tables, the printed summary).
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tracekit/tracekit.h>

#include "tk_analyze_store.h"

#define U 1000LL
#define T0 1000000000000000000LL

TestSuite(analyze_kpi, .init = tkt_analyze_setup, .fini = tkt_analyze_teardown, .timeout = 600);

/* A kernel [ts, ts + dur) U on @track, launched at @launch U; its event id. */
static int64_t kernel(tk_writer *w, int64_t thr, int64_t track, const char *name, int64_t ts,
		      int64_t dur, int64_t launch)
{
	return tkt_launched_op(w, thr, track, TK_EV_KERNEL, name, T0 + ts * U, dur * U,
			       T0 + launch * U);
}

static void host(tk_writer *w, int64_t thr, const char *name, const char *cat, int64_t ts,
		 int64_t dur)
{
	tkt_event(w, thr, TK_EV_HOST_OP, name, cat, T0 + ts * U, dur * U, TK_NONE);
}

/*
 * Device 0 (peak 1e12 B/s, process 1): kernels big [0,2000) 1.6e9 bytes, small [2100,2150)
 * launched at 2050 (host-bound gap [2000,2100)), small [2150,2200), mid [2500,3000) 0.4e9
 * bytes launched at 100 (sync gap [2200,2500)); compile events of process 1: XlaCompile
 * [-5 s,-2 s) with backend_compile nested, "inductor" of category compile [10 ms, 10.5 ms),
 * and CompiledFunction (not a compile event). Device 1 (no peak, process 2): one 10 us kernel.
 * Device 2: no work at all.
 */
static void write_kpi_store(const char *path)
{
	tk_writer *w = NULL;
	int64_t proc[2], dev[3], thr[2], strm[2], id;
	cr_assert_eq(tk_writer_create(path, &w), TK_OK);
	for (int r = 0; r < 2; r++) {
		struct tk_process_info p = {1 + r, "p", "h", r};
		TKT_OK(tk_writer_add_process(w, &p, &proc[r]));
		struct tk_device_info d = {r,	    "gpu",   NULL,    NULL,
					   "h",	    proc[r], r,	      NULL,
					   TK_NONE, TK_NONE, TK_NONE, r ? TK_NONE : 1000000000000LL,
					   -1,	    TK_NONE, TK_NONE, TK_NONE};
		TKT_OK(tk_writer_add_device(w, &d, &dev[r]));
		struct tk_track_info t = {TK_TRACK_THREAD, NULL, proc[r], TK_NONE, 1,
					  TK_NONE,	   NULL};
		TKT_OK(tk_writer_add_track(w, &t, &thr[r]));
		struct tk_track_info s = {TK_TRACK_STREAM, NULL, proc[r], dev[r], TK_NONE, 7, NULL};
		TKT_OK(tk_writer_add_track(w, &s, &strm[r]));
	}
	struct tk_device_info d2 = {2,	     "gpu",   NULL,    NULL,	"h",	 TK_NONE,
				    TK_NONE, NULL,    TK_NONE, TK_NONE, TK_NONE, TK_NONE,
				    -1,	     TK_NONE, TK_NONE, TK_NONE};
	TKT_OK(tk_writer_add_device(w, &d2, &dev[2]));
	struct tk_op_info oi = {"fusion", "module", NULL, NULL, TK_NONE, TK_NONE, 1600000000LL};
	id = kernel(w, thr[0], strm[0], "big", 0, 2000, -10);
	TKT_OK(tk_writer_add_op_details(w, id, &oi));
	id = kernel(w, thr[0], strm[0], "small", 2100, 50, 2050);
	oi.bytes_accessed = TK_NONE;
	TKT_OK(tk_writer_add_op_details(w, id, &oi));
	kernel(w, thr[0], strm[0], "small", 2150, 50, 0);
	id = kernel(w, thr[0], strm[0], "mid", 2500, 500, 100);
	oi.bytes_accessed = 400000000LL;
	TKT_OK(tk_writer_add_op_details(w, id, &oi));
	kernel(w, thr[1], strm[1], "k", 0, 10, -5);
	host(w, thr[0], "XlaCompile", "cpu_op", -5000000, 3000000);
	host(w, thr[0], "backend_compile", "cpu_op", -4000000, 1000000);
	host(w, thr[0], "CompiledFunction", "cpu_op", 0, 1000);
	host(w, thr[0], "inductor", "compile", 10000, 500);
	tkt_finish(w);
}

Test(analyze_kpi, every_kpi_with_band_window_and_note)
{
	write_kpi_store(tkt_db);
	tkt_analyze(tkt_db, TK_WINDOW_AUTO, -1);
	tkt_expect_rows(
	    tkt_db,
	    "SELECT device_id, kpi, value, unit, band, window, note FROM analysis_kpi WHERE "
	    "device_id = 0 ORDER BY rowid",
	    "0|gpu_utilization|86.6666666666667|%|good|device|busy 2600000 ns of a 3000000 ns "
	    "window; good > 80%, warning 50-80%, bad < 50%\n"
	    "0|kernel_duration_median|275000.0|ns|warning|device|median duration of the 4 "
	    "kernels starting in the window; good > 1 ms, warning 0.1-1 ms, bad < 0.1 ms\n"
	    "0|small_kernel_share_count|50.0|%|n-a|device|2 of 4 kernels shorter than 100000 ns "
	    "(--small-kernel-us); no seed band\n"
	    "0|small_kernel_share_time|3.84615384615385|%|n-a|device|100000 of 2600000 ns of "
	    "kernels time is in kernels shorter than 100000 ns; no seed band\n"
	    "0|host_overhead|3.33333333333333|%|good|device|host-bound idle 100000 ns of a "
	    "3000000 ns window; good < 10%, warning 10-20%, bad > 20%\n"
	    "0|memory_bandwidth|80.0|%|good|device|2000000000 bytes accessed by 2 kernels in "
	    "2500000 ns of their time = 8e+11 B/s of 1000000000000 B/s peak (trace); good > 60%, "
	    "warning 40-60%, bad < 40%\n"
	    "0|compute_throughput|NULL|%|n-a|trace|n/a: no modelled op with FLOPs ran on the "
	    "device with a known peak for its dtype (record_shapes off, no modelled op, or peak "
	    "unknown)\n"
	    "0|compilation_time|3000500000.0|ns|warning|trace|union of 3 compile events (the "
	    "device's process) on the host; 0 ns of it inside the device window; good < 2 s, "
	    "warning 2-10 s, bad > 10 s");
	tkt_expect_rows(
	    tkt_db,
	    "SELECT device_id, kpi, value, unit, band, window, note FROM analysis_kpi WHERE "
	    "device_id = 1 ORDER BY rowid",
	    "1|gpu_utilization|100.0|%|good|device|busy 10000 ns of a 10000 ns window; "
	    "good > 80%, warning 50-80%, bad < 50%\n"
	    "1|kernel_duration_median|10000.0|ns|bad|device|median duration of the 1 "
	    "kernels starting in the window; good > 1 ms, warning 0.1-1 ms, bad < 0.1 ms\n"
	    "1|small_kernel_share_count|100.0|%|n-a|device|1 of 1 kernels shorter than "
	    "100000 ns (--small-kernel-us); no seed band\n"
	    "1|small_kernel_share_time|100.0|%|n-a|device|10000 of 10000 ns of kernels "
	    "time is in kernels shorter than 100000 ns; no seed band\n"
	    "1|host_overhead|0.0|%|good|device|host-bound idle 0 ns of a 10000 ns window; "
	    "good < 10%, warning 10-20%, bad > 20%\n"
	    "1|memory_bandwidth|NULL|%|n-a|device|n/a: the device's peak memory bandwidth "
	    "is unknown\n"
	    "1|compute_throughput|NULL|%|n-a|trace|n/a: no modelled op with FLOPs ran on the "
	    "device with a known peak for its dtype (record_shapes off, no modelled op, or peak "
	    "unknown)\n"
	    "1|compilation_time|NULL|ns|n-a|trace|n/a: no compile events in this device's "
	    "process");
	/* detail: the population each KPI is over, named, and the figures behind it */
	tkt_expect_rows(
	    tkt_db,
	    "SELECT kpi, detail FROM analysis_kpi WHERE device_id = 0 AND detail IS "
	    "NOT NULL AND kpi <> 'small_kernel_share_time' ORDER BY rowid",
	    "kernel_duration_median|{\"population\":\"kernels starting in the device "
	    "window\",\"kernels\":4,\"kernels_ns\":2600000}\n"
	    "small_kernel_share_count|{\"population\":\"kernels starting in the "
	    "device window\",\"kernels\":4,\"kernels_ns\":2600000,\"small\":2,"
	    "\"small_ns\":100000,\"threshold_ns\":100000,\"top\":[{\"name\":"
	    "\"small\",\"n\":2,\"ns\":100000}]}\n"
	    "memory_bandwidth|{\"population\":\"kernels starting in the device "
	    "window that state their bytes accessed\",\"ops\":2,\"bytes\":"
	    "2000000000,\"ns\":2500000,\"peak_bps\":1000000000000,\"peak_source\":\"trace\"}\n"
	    "compilation_time|{\"population\":\"compile events of the device's "
	    "process\",\"events\":3,\"total_ns\":3000500000,\"window\":"
	    "\"device\",\"events_in_window\":0,\"in_window_ns\":0,\"top\":[]}");
	cr_expect_eq(tkt_query_int(tkt_db, "SELECT count(*) FROM analysis_kpi k WHERE "
					   "json_extract(k.detail, '$.top[0].name') = 'small' "
					   "AND k.device_id = 0"),
		     2);
	/* the device without work has no rows; utilization equals analysis_device_time's */
	cr_expect_eq(tkt_query_int(tkt_db, "SELECT count(*) FROM analysis_kpi WHERE device_id = 2"),
		     0);
	cr_expect_eq(tkt_query_int(tkt_db,
				   "SELECT count(*) FROM analysis_kpi k JOIN "
				   "analysis_device_time t ON t.device_id = k.device_id AND "
				   "t.selected = 1 WHERE k.kpi = 'gpu_utilization' AND "
				   "k.value = 100.0 * t.utilization"),
		     2);
	/* host overhead re-derived from analysis_gaps */
	cr_expect_eq(tkt_query_int(tkt_db,
				   "SELECT sum(dur_ns) FROM analysis_gaps WHERE device_id = 0 "
				   "AND cause = 'host_bound'"),
		     100000);
}

Test(analyze_kpi, small_kernel_threshold_is_configurable)
{
	write_kpi_store(tkt_db);
	tkt_analyze(tkt_db, TK_WINDOW_AUTO,
		    1000000); /* 1 ms: big (2 ms) is the only one not small */
	tkt_expect_rows(
	    tkt_db,
	    "SELECT value, note FROM analysis_kpi WHERE device_id = 0 AND kpi LIKE "
	    "'small_kernel%' ORDER BY rowid",
	    "75.0|3 of 4 kernels shorter than 1000000 ns (--small-kernel-us); no seed band\n"
	    "23.0769230769231|600000 of 2600000 ns of kernels time is in kernels shorter "
	    "than 1000000 ns; no seed band");
}

/* ---- command line ---- */

Test(analyze_kpi, cli_help_and_usage_errors)
{
	struct tkt_run r = tkt_tracekit("analyze", "--help", NULL);
	cr_expect_eq(r.code, 0);
	cr_expect(
	    strstr(r.out, "usage: tracekit analyze STORE [--window auto|device|steps|host-steps]"),
	    "%s", r.out);
	tkt_run_free(&r);
	r = tkt_tracekit("help", "analyze", NULL);
	cr_expect_eq(r.code, 0);
	cr_expect(strstr(r.out, "--small-kernel-us N"), "%s", r.out);
	tkt_run_free(&r);
	const char *bad[][3] = {
	    {"analyze", NULL, NULL},
	    {"analyze", "--bogus", "x.db"},
	    {"analyze", "--window=sometimes", "x.db"},
	    {"analyze", "--small-kernel-us=-1", "x.db"},
	    {"analyze", "--small-kernel-us=ten", "x.db"},
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int n = bad[i][1] ? (bad[i][2] ? 3 : 2) : 1;
		r = tkt_tracekitv(n, bad[i]);
		cr_expect_eq(r.code, 2, "case %zu: exit %d", i, r.code);
		cr_expect(strstr(r.err, "tracekit analyze"), "case %zu: %s", i, r.err);
		tkt_run_free(&r);
	}
}

Test(analyze_kpi, cli_bad_store_exits_2_naming_the_file)
{
	char *missing = tkt_path(tkt_dir, "missing.db"), *text = tkt_path(tkt_dir, "notes.db");
	FILE *f = fopen(text, "w");
	fputs("not a database, just text\n", f);
	fclose(f);
	const char *files[] = {missing, text};
	for (int i = 0; i < 2; i++) {
		struct tkt_run r = tkt_tracekit("analyze", files[i], NULL);
		cr_expect_eq(r.code, 2, "%s: exit %d", files[i], r.code);
		cr_expect(strstr(r.err, files[i]), "message does not name %s: %s", files[i], r.err);
		cr_expect_str_eq(r.out, "");
		tkt_run_free(&r);
	}
	free(missing);
	free(text);
}

Test(analyze_kpi, cli_prints_a_summary_and_reruns_replace_the_tables)
{
	write_kpi_store(tkt_db);
	struct tkt_run r = tkt_tracekit("analyze", tkt_db, NULL);
	cr_assert_eq(r.code, 0, "exit %d: %s", r.code, r.err);
	const char *want[] = {"analyzed: ",	    "Devices (selected window; ms with 6 decimals)",
			      "3.000000",	    "86.7%",
			      "Idle gaps by cause", "0.100000",
			      "0.300000",	    "KPIs",
			      "gpu_utilization",    "memory_bandwidth",
			      "3000.500000 ms",	    "warning"};
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		cr_expect(strstr(r.out, want[i]), "summary lacks '%s':\n%s", want[i], r.out);
	cr_expect(!strstr(r.out, "Steps"), "no steps in this store:\n%s", r.out);
	/* findings (another analysis) are listed exactly when analysis_findings has rows */
	int64_t findings = tkt_query_int(tkt_db, "SELECT count(*) FROM analysis_findings");
	cr_expect_eq(strstr(r.out, "\nFindings\n") != NULL, findings > 0, "%lld findings:\n%s",
		     (long long)findings, r.out);
	tkt_run_free(&r);
	int64_t kpis = tkt_query_int(tkt_db, "SELECT count(*) FROM analysis_kpi");
	int64_t gaps = tkt_query_int(tkt_db, "SELECT count(*) FROM analysis_gaps");
	cr_expect_eq(kpis, 16);
	cr_expect_eq(gaps, 2);
	r = tkt_tracekit("analyze", "-q", "--window", "steps", "--small-kernel-us", "1000", tkt_db,
			 NULL);
	cr_expect_eq(r.code, 0, "exit %d: %s", r.code, r.err);
	cr_expect_str_eq(r.out, "");
	tkt_run_free(&r);
	cr_expect_eq(tkt_query_int(tkt_db, "SELECT count(*) FROM analysis_kpi"), kpis);
	cr_expect_eq(tkt_query_int(tkt_db, "SELECT count(*) FROM analysis_gaps"), gaps);
	/* no steps: --window steps falls back to the device window */
	cr_expect_eq(tkt_query_int(tkt_db,
				   "SELECT count(*) FROM analysis_device_time WHERE window = "
				   "'device' AND selected = 1"),
		     2);
	cr_expect_eq(tkt_query_int(tkt_db, "SELECT CAST(value AS INTEGER) FROM analysis_kpi WHERE "
					   "device_id = 0 AND kpi = 'small_kernel_share_count'"),
		     75);
}

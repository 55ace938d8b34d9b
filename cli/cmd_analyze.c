/* `tracekit analyze`: run every analysis on a store (replacing its analysis_* tables), then print
 * a short summary: per device the window, utilization and idle time, idle gaps by cause, the KPI
 * bands, step statistics, stragglers and the findings. */
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>
#include <tracekit/analyze.h>
#include <tracekit/error.h>
#include <tracekit/report.h>
#include <tracekit/store.h>

#include "cli.h"
#include "mpi_job.h"
#include "options.h"

static int run(int argc, char **argv);

const struct tk_cmd tk_cmd_analyze = {
    "analyze",
    "compute the analyses (device time, gaps, steps, KPIs, ...) into the store",
    "usage: tracekit analyze STORE [--window auto|device|steps|host-steps]\n"
    "                       [--small-kernel-us N] [--peak-flops [DTYPE=]VALUE]...\n"
    "                       [--peak-bandwidth VALUE] [--device-file FILE]\n"
    "                       [--align-clocks] [--jobs N] [--one-pass]\n"
    "       mpirun -np K tracekit analyze STORE... --mpi -o JOB [OPTION]...\n\n"
    "Computes every analysis (docs/metrics.md) from the store and writes the results back into\n"
    "it as analysis_* tables (device_peaks, device_time, gaps, gap_summary, steps, step_stats,\n"
    "comm, comm_ranks, clock_offsets, op_profile, kernel_stats, memory, kpi, findings),\n"
    "replacing those of an earlier run, in one transaction. Then prints a short summary: per\n"
    "device its window, utilization and idle time, its peaks (\"peak unknown\" when none is\n"
    "known), idle gaps by cause, the KPI bands, step times, stragglers, the hosts' clock\n"
    "offsets and findings.\n"
    "Times are printed in ms with 6 decimals (exact ns).\n\n"
    "Options:\n"
    "  --window W            window of each device's figures: auto (steps when the device has\n"
    "                        steps, else device; the default), device (first to last device\n"
    "                        operation), steps (union of the steps' device intervals: a host\n"
    "                        step (PyTorch ProfilerStep#N) is placed where the device ran it),\n"
    "                        host-steps (as steps, host steps kept at their host intervals)\n"
    "  --small-kernel-us N   small-kernel threshold in microseconds (default 100)\n"
    "  --peak-flops [DTYPE=]VALUE\n"
    "                        the dense peak FLOP/s of every device for DTYPE (fp64, fp32,\n"
    "                        tf32, bf16, fp16, fp8, int8; bf16 when not given), with an SI\n"
    "                        prefix: 989T, 1.979P; repeatable. Wins over the device file, the\n"
    "                        trace and the built-in table (docs/peaks.md)\n"
    "  --peak-bandwidth VALUE\n"
    "                        the peak memory bandwidth of every device in bytes/s: 3.35T\n"
    "  --device-file FILE    peaks by device name pattern, JSON (docs/peaks.md); wins over the\n"
    "                        trace and the built-in table\n"
    "  --align-clocks        compare the ranks' collectives (skew, wait, stragglers) on clocks\n"
    "                        aligned by each host's offset, estimated from the collectives'\n"
    "                        ends (always estimated and shown; the events are not rewritten)\n"
    "  --jobs N              threads for the analyses, 1..1024: the memory analysis beside\n"
    "                        the pass over the events, then the per-device and per-thread\n"
    "                        work on N threads (default: the cores this process may use; 1:\n"
    "                        everything on one thread); the tables are the same whatever N\n"
    "  --one-pass            read and analyse every rank of a job's store at once (memory\n"
    "                        grows with the ranks); by default a store of several sources is\n"
    "                        analysed one source (rank) at a time when its ids allow it\n"
    "                        (docs/scale.md); the tables are the same\n"
    "  -q, --quiet           print no summary\n"
    "  --mpi                 under mpirun or srun: the per-rank stores STORE... are shared out\n"
    "                        by bytes among the MPI processes; each analyses its stores and\n"
    "                        sends their summary to rank 0, which writes the job summary JOB\n"
    "                        and analyses it (docs/scale.md)\n"
    "  -o, --output JOB      --mpi: the job summary to write\n"
    "  -h, --help            this text\n\n"
    "Exit codes: 0 done, 2 usage error or a file that is not a (supported) tracekit store,\n"
    "3 internal error.\n",
    run,
};

struct section {
	const char *title;
	const char *sql;
};

static const struct section sections[] = {
    {"Devices (selected window; ms with 6 decimals)",
     "SELECT device_id AS device, window, printf('%.6f', window_ns / 1e6) AS window_ms,"
     " CASE WHEN utilization IS NULL THEN '-' ELSE printf('%.1f%%', 100.0 * utilization) END"
     " AS utilization,"
     " printf('%.6f', busy_ns / 1e6) AS busy_ms, printf('%.6f', idle_ns / 1e6) AS idle_ms,"
     " printf('%.6f', exposed_comm_ns / 1e6) AS exposed_comm_ms,"
     " printf('%.6f', exposed_memcpy_ns / 1e6) AS exposed_copy_ms"
     " FROM analysis_device_time WHERE selected = 1 ORDER BY device_id"},
    {"Device peaks (dense; docs/peaks.md)",
     "SELECT d.id AS device, coalesce(max(p.model), '-') AS model,"
     " coalesce(printf('%.1f', max(CASE p.dtype WHEN 'bf16' THEN p.peak_flops END) / 1e12),"
     " '-') AS bf16_tflops,"
     " coalesce(printf('%.1f', max(CASE p.dtype WHEN 'fp32' THEN p.peak_flops END) / 1e12),"
     " '-') AS fp32_tflops,"
     " coalesce(printf('%.1f', max(p.peak_bandwidth_bps) / 1e9), '-') AS bandwidth_gbps,"
     " CASE WHEN count(p.device_id) = 0 THEN 'peak unknown' ELSE"
     " coalesce(max(CASE p.dtype WHEN 'bf16' THEN p.flops_source END), '-') || ' / ' ||"
     " coalesce(max(p.bandwidth_source), '-') END AS source"
     " FROM devices d LEFT JOIN analysis_device_peaks p ON p.device_id = d.id"
     " GROUP BY d.id ORDER BY d.id"},
    {"Idle gaps by cause",
     "SELECT device_id AS device, sum(gaps) AS gaps,"
     " printf('%.6f', coalesce(sum(CASE cause WHEN 'host_bound' THEN total_ns END), 0) / 1e6)"
     " AS host_bound_ms,"
     " printf('%.6f', coalesce(sum(CASE cause WHEN 'kernel_wait' THEN total_ns END), 0) / 1e6)"
     " AS kernel_wait_ms,"
     " printf('%.6f', coalesce(sum(CASE cause WHEN 'sync' THEN total_ns END), 0) / 1e6)"
     " AS sync_ms,"
     " printf('%.6f', coalesce(sum(CASE cause WHEN 'dependency' THEN total_ns END), 0) / 1e6)"
     " AS dependency_ms,"
     " printf('%.6f', coalesce(sum(CASE cause WHEN 'unknown' THEN total_ns END), 0) / 1e6)"
     " AS unknown_ms,"
     " printf('%.6f', max(longest_ns) / 1e6) AS longest_ms"
     " FROM analysis_gap_buckets GROUP BY device_id ORDER BY device_id"},
    {"KPIs", "SELECT device_id AS device, kpi,"
	     " CASE WHEN value IS NULL THEN '-' WHEN unit = '%' THEN printf('%.1f%%', value)"
	     " ELSE printf('%.6f ms', value / 1e6) END AS value, band, window"
	     " FROM analysis_kpi ORDER BY device_id, rowid"},
    {"Steps",
     "SELECT device_id AS device, steps, printf('%.6f', mean_ns / 1e6) AS mean_ms,"
     " printf('%.6f', median_ns / 1e6) AS median_ms, printf('%.6f', p90_ns / 1e6) AS p90_ms,"
     " printf('%.6f', stddev_ns / 1e6) AS stddev_ms, outliers, source AS placed_by,"
     " CASE WHEN host_median_ns IS NULL THEN '-' ELSE printf('%.6f', host_median_ns / 1e6)"
     " END AS host_median_ms"
     " FROM analysis_step_stats ORDER BY device_id"},
    {"Collectives across ranks", "SELECT device_id AS device, rank, collectives, unmatched,"
				 " times_last, printf('%.1f%%', 100.0 * late_share) AS late_share,"
				 " printf('%.6f', max_skew_ns / 1e6) AS max_skew_ms,"
				 " printf('%.6f', total_wait_ns / 1e6) AS wait_ms,"
				 " printf('%.6f', comm_ns / 1e6) AS comm_ms,"
				 " CASE straggler WHEN 1 THEN 'straggler' ELSE '' END AS flag"
				 " FROM analysis_comm_ranks ORDER BY device_id"},
    {"Clock offsets between hosts",
     "SELECT host, CASE WHEN offset_ns IS NULL THEN 'not estimated' ELSE"
     " printf('%+.6f', offset_ns / 1e6) END AS offset_ms,"
     " CASE WHEN uncertainty_ns IS NULL THEN '-' ELSE printf('%.6f', uncertainty_ns / 1e6)"
     " END AS uncertainty_ms, collectives,"
     " CASE applied WHEN 1 THEN 'applied' ELSE '' END AS applied"
     " FROM analysis_clock_offsets ORDER BY rowid"},
    {"Findings", "SELECT rule, severity, device_id AS device, summary FROM analysis_findings"},
};

/* Print one section when its query runs and has rows (a missing table is skipped). */
static int print_section(sqlite3 *db, const struct section *sec, const char *path)
{
	sqlite3_stmt *st = NULL;
	tk_error *err = NULL;
	int rc = TK_EXIT_OK;
	if (sqlite3_prepare_v2(db, sec->sql, -1, &st, NULL) != SQLITE_OK)
		goto out; /* the table is absent (or another version of it): nothing to show */
	int step = sqlite3_step(st);
	if (step != SQLITE_ROW)
		goto out;
	sqlite3_reset(st);
	printf("\n%s\n", sec->title);
	struct tk_rows_options opt = {TK_ROWS_TABLE, 60};
	err = tk_error_new();
	if ((rc = tk_rows_write_sqlite(stdout, st, &opt, err)) != TK_OK) {
		tk_error_push_from(err, "cli", rc, "'%s'", path);
		rc = cli_fail_error(rc, err);
	}
out:
	tk_error_free(err);
	sqlite3_finalize(st);
	return rc;
}

static int summary(const char *path)
{
	tk_store *s = NULL;
	int rc = tk_store_open(path, &s);
	if (rc != TK_OK) {
		rc = cli_fail_error(rc, tk_store_error(s));
		goto out;
	}
	printf("analyzed: %s\n", path);
	for (size_t i = 0; i < sizeof(sections) / sizeof(sections[0]); i++)
		if ((rc = print_section(tk_store_sqlite(s), &sections[i], path)) != TK_EXIT_OK)
			goto out;
	rc = TK_EXIT_OK;
out:
	tk_store_close(s);
	return rc;
}

static int window_option(const struct tk_cmd *cmd, const char *value, void *arg)
{
	struct tk_analyze_options *o = arg;
	if (!strcmp(value, "auto"))
		o->window = TK_WINDOW_AUTO;
	else if (!strcmp(value, "device"))
		o->window = TK_WINDOW_DEVICE;
	else if (!strcmp(value, "steps"))
		o->window = TK_WINDOW_STEPS;
	else if (!strcmp(value, "host-steps"))
		o->window = TK_WINDOW_HOST_STEPS;
	else
		return cli_usage_error(
		    cmd, "--window expects auto, device, steps or host-steps, got '%s'", value);
	return TK_EXIT_OK;
}

static int small_kernel_option(const struct tk_cmd *cmd, const char *value, void *arg)
{
	struct tk_analyze_options *o = arg;
	int64_t us;
	int rc = cli_parse_int(cmd, "--small-kernel-us", value, 0, INT64_MAX / 1000, &us);
	if (rc == TK_EXIT_OK)
		o->small_kernel_ns = us * 1000;
	return rc;
}

static int peak_flops_option(const struct tk_cmd *cmd, const char *value, void *arg)
{
	tk_error *err = tk_error_new();
	int rc = tk_analyze_peak_flops_option(arg, value, err) == TK_OK
		     ? TK_EXIT_OK
		     : cli_usage_error(cmd, "%s", tk_error_message(err));
	tk_error_free(err);
	return rc;
}

static int peak_bandwidth_option(const struct tk_cmd *cmd, const char *value, void *arg)
{
	struct tk_analyze_options *o = arg;
	if (tk_peak_value_parse(value, &o->peak_bandwidth_bps) != TK_OK)
		return cli_usage_error(
		    cmd,
		    "--peak-bandwidth expects bytes/s with an optional k, M, G, T, "
		    "P or E (3.35T), above 0 and at most 1E; got '%.80s'",
		    value);
	return TK_EXIT_OK;
}

static int run(int argc, char **argv)
{
	const struct tk_cmd *cmd = &tk_cmd_analyze;
	struct tk_analyze_options o;
	int rc, first, quiet = 0, mpi = 0;
	const char *output = NULL;
	tk_analyze_options_init(&o);
	o.jobs = 0; /* the cores */
	const struct cli_opt opts[] = {
	    CLI_CALL("window", 0, window_option, &o),
	    CLI_CALL("small-kernel-us", 0, small_kernel_option, &o),
	    CLI_CALL("peak-flops", 0, peak_flops_option, &o),
	    CLI_CALL("peak-bandwidth", 0, peak_bandwidth_option, &o),
	    CLI_STR("device-file", 0, &o.device_file),
	    CLI_FLAG("align-clocks", 0, &o.align_clocks),
	    CLI_INT("jobs", &o.jobs, 1, 1024),
	    CLI_FLAG("one-pass", 0, &o.one_pass),
	    CLI_FLAG("quiet", 'q', &quiet),
	    CLI_FLAG("mpi", 0, &mpi),
	    CLI_STR("output", 'o', &output),
	    CLI_HELP,
	};
	if ((rc = cli_parse(cmd, argc, argv, opts, CLI_NOPTS(opts), 0, &first)) != CLI_GO_ON)
		return rc;
	if (mpi != !!output)
		return cli_usage_error(cmd, "--mpi and -o JOB go together");
	if (mpi && first >= argc)
		return cli_usage_error(cmd, "at least one store is required");
	if (mpi) {
		struct cli_mpi_job job = {.output = output,
					  .inputs = (const char *const *)argv + first,
					  .n = (size_t)(argc - first),
					  .ao = &o};
		return cli_mpi_run(&job);
	}
	if (argc - first != 1)
		return cli_usage_error(cmd, "expected one store");
	const char *path = argv[first];
	tk_error *err = tk_error_new();
	rc = tk_analyze(path, &o, err);
	if (rc != TK_OK) {
		if (!tk_error_cause_count(err))
			tk_error_push_from(err, "cli", rc, "%s", tk_strerror(rc));
		if (!strstr(tk_error_message(err), path)) /* say which store */
			tk_error_push_from(err, "cli", rc, "'%s'", path);
		rc = cli_fail_error(rc, err);
	}
	tk_error_free(err);
	if (rc != TK_OK)
		return rc;
	return quiet ? TK_EXIT_OK : summary(path);
}

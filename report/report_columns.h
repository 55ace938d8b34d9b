/*
 * The columns of each report section (report_sections.c): key (the JSON key of
 * docs/report-json.md: renaming one is a breaking change), heading, kind and flags. Data, not
 * declarations: included by report/report_sections.c alone, beside the SQL that fills them.
 */
#ifndef TKR_REPORT_COLUMNS_H
#define TKR_REPORT_COLUMNS_H

#include "report_internal.h"

#define END                             \
	{                               \
		NULL, NULL, TKR_TEXT, 0 \
	}
#define J TKR_C_JSON
#define S TKR_C_SHOW
#define F TKR_C_FLEX
#define O TKR_C_OPT

static const struct tkr_col c_trace[] = {
    {"source", "source", TKR_TEXT, 0},
    {"formats", "formats", TKR_TEXT, 0},
    {"sources", "sources", TKR_INT, 0},
    {"clock", "clock", TKR_TEXT, 0},
    {"start_ns", "start", TKR_UTC, 0},
    {"duration_ns", "duration", TKR_NS, 0},
    {"devices", "devices", TKR_INT, 0},
    {"processes", "processes", TKR_INT, 0},
    {"events", "events", TKR_INT, 0},
    {"window", "window", TKR_TEXT, 0},
    END,
};

static const struct tkr_col c_sources[] = {
    {"format", "format", TKR_TEXT, 0},
    {"host", "host", TKR_TEXT, 0},
    {"rank", "rank", TKR_INT, 0},
    {"path", "path", TKR_TEXT, F},
    END,
};

static const struct tkr_col c_devices[] = {
    {"device_id", "device", TKR_DEVICE, 0},
    {"kind", "kind", TKR_TEXT, 0},
    {"vendor", "vendor", TKR_TEXT, O},
    {"host", "host", TKR_TEXT, O},
    {"rank", "rank", TKR_INT, O},
    {"compute_capability", "cc", TKR_TEXT, O},
    {"sm_count", "SMs", TKR_INT, 0},
    {"memory_bytes", "memory", TKR_BYTES, 0},
    {"memory_bandwidth_bps", "trace bandwidth", TKR_BPS, J},
    {"peak_flops", "trace peak", TKR_FLOPS, J},
    {"peak_bf16_flops", "bf16 peak", TKR_FLOPS, 0},
    {"peak_fp32_flops", "fp32 peak", TKR_FLOPS, O},
    {"peak_bandwidth_bps", "bandwidth", TKR_BPS, 0},
    {"peak_source", "peaks from", TKR_TEXT, O},
    {"peak_model", "model", TKR_TEXT, O},
    {"name", "name", TKR_TEXT, F},
    END,
};

static const struct tkr_col c_kpis[] = {
    {"device_id", "device", TKR_DEVICE, 0},
    {"kpi", "kpi", TKR_TEXT, 0},
    {"value", "value", TKR_UVAL, 0},
    {"unit", "unit", TKR_TEXT, J},
    {"band", "band", TKR_BAND, 0},
    {"window", "window", TKR_TEXT, O},
    {"note", "how", TKR_TEXT, F | TKR_C_HUMAN},
    END,
};

static const struct tkr_col c_findings[] = {
    {"id", "id", TKR_INT, 0},
    {"rule", "rule", TKR_TEXT, 0},
    {"severity", "severity", TKR_SEVERITY, 0},
    {"device_id", "device", TKR_DEVICE, 0},
    {"process_id", "process", TKR_PROCESS, 0},
    {"metric", "metric", TKR_PCT, 0},
    {"threshold", "threshold", TKR_PCT, 0},
    {"summary", "summary", TKR_TEXT, TKR_C_HUMAN},
    {"evidence", "evidence", TKR_JSON, J},
    {"fix", "fix", TKR_TEXT, 0},
    {"wait_share", "wait share", TKR_PCT, J},
    END,
};

static const struct tkr_col c_device_time[] = {
    {"device_id", "device", TKR_DEVICE, 0},
    {"window", "window", TKR_TEXT, O},
    {"start_ns", "start", TKR_TS, J},
    {"end_ns", "end", TKR_TS, J},
    {"window_ns", "length", TKR_NS, 0},
    {"spans", "spans", TKR_INT, J},
    {"ops", "ops", TKR_INT, J},
    {"utilization", "util", TKR_RATIO, 0},
    {"busy_ns", "busy", TKR_NS, 0},
    {"compute_ns", "compute", TKR_NS, 0},
    {"comm_ns", "comm", TKR_NS, J},
    {"memcpy_ns", "copies", TKR_NS, J},
    {"exposed_comm_ns", "exposed comm", TKR_NS, 0},
    {"exposed_memcpy_ns", "exposed copy", TKR_NS, 0},
    {"idle_ns", "idle", TKR_NS, O},
    END,
};

static const struct tkr_col c_cat_split[] = {
    {"device_id", "device", TKR_DEVICE, 0},
    {"window", "window", TKR_TEXT, O},
    {"ops", "ops", TKR_INT, J},
    {"device_ns", "device time", TKR_NS, 0},
    {"split", "where it goes", TKR_TEXT, F},
    END,
};

static const struct tkr_col c_cat_steps[] = {
    {"device_id", "device", TKR_DEVICE, 0},
    {"step_index", "step index", TKR_INT, J},
    {"step_num", "step", TKR_INT, 0},
    {"ops", "ops", TKR_INT, J},
    {"device_ns", "device time", TKR_NS, 0},
    {"split", "where it goes", TKR_TEXT, F},
    END,
};

static const struct tkr_col c_categories[] = {
    {"device_id", "device", TKR_DEVICE, 0},
    {"window", "window", TKR_TEXT, J},
    {"category", "category", TKR_TEXT, 0},
    {"ops", "ops", TKR_INT, 0},
    {"device_ns", "device time", TKR_NS, 0},
    {"share", "share", TKR_RATIO, 0},
    END,
};

static const struct tkr_col c_hlo_ops[] = {
    {"device_id", "device", TKR_INT, 0},       {"module", "module", TKR_TEXT, O},
    {"category", "category", TKR_TEXT, J},     {"occurrences", "device ops", TKR_INT, 0},
    {"kernels", "kernels", TKR_INT, O},	       {"total_ns", "total", TKR_NS, 0},
    {"device_share", "of busy", TKR_RATIO, 0}, {"top_kernel", "top kernel", TKR_NAME, J},
    {"name", "HLO op", TKR_NAME, F},	       END,
};

static const struct tkr_col c_gpu_ops[] = {
    {"process_id", "process", TKR_PROCESS, O},
    {"calls", "calls", TKR_INT, 0},
    {"direct_ops", "ops", TKR_INT, 0},
    {"direct_ns", "direct", TKR_NS, 0},
    {"direct_share", "share", TKR_RATIO, 0},
    {"subtree_ops", "subtree ops", TKR_INT, J},
    {"subtree_ns", "subtree", TKR_NS, 0},
    {"category", "category", TKR_TEXT, O},
    {"name", "name", TKR_NAME, F},
    END,
};

static const struct tkr_col c_gpu_steps[] = {
    {"device_id", "device", TKR_DEVICE, 0},
    {"step", "step", TKR_INT, J},
    {"step_num", "step", TKR_INT, 0},
    {"process_id", "process", TKR_PROCESS, O},
    {"ops", "ops", TKR_INT, 0},
    {"device_ns", "GPU time", TKR_NS, 0},
    {"step_share", "of step", TKR_RATIO, 0},
    {"name", "annotation", TKR_NAME, J},
    {"owner", "annotation", TKR_NAME, S | F},
    END,
};

static const struct tkr_col c_ops[] = {
    {"level", "level", TKR_TEXT, 0},
    {"device_id", "device", TKR_DEVICE, J},
    {"process_id", "process", TKR_PROCESS, J},
    {"on_", "on", TKR_WHERE, S},
    {"module", "module", TKR_TEXT, J},
    {"category", "category", TKR_TEXT, J},
    {"occurrences", "calls", TKR_INT, 0},
    {"total_ns", "total", TKR_NS, 0},
    {"self_ns", "self", TKR_NS, 0},
    {"avg_ns", "avg", TKR_NS, O},
    {"min_ns", "min", TKR_NS, J},
    {"max_ns", "max", TKR_NS, J},
    {"device_share", "of busy", TKR_RATIO, O},
    {"name", "name", TKR_NAME, F},
    END,
};

static const struct tkr_col c_kernels[] = {
    {"rank", "rank", TKR_INT, J},
    {"device_id", "device", TKR_DEVICE, 0},
    {"occurrences", "calls", TKR_INT, 0},
    {"total_ns", "total", TKR_NS, 0},
    {"avg_ns", "avg", TKR_NS, J},
    {"median_ns", "median", TKR_NS, O},
    {"min_ns", "min", TKR_NS, J},
    {"max_ns", "max", TKR_NS, J},
    {"stddev_ns", "stddev", TKR_NS, J},
    {"grid_x", "grid_x", TKR_INT, J},
    {"grid_y", "grid_y", TKR_INT, J},
    {"grid_z", "grid_z", TKR_INT, J},
    {"block_x", "block_x", TKR_INT, J},
    {"block_y", "block_y", TKR_INT, J},
    {"block_z", "block_z", TKR_INT, J},
    {"grid", "grid", TKR_TEXT, S},
    {"block", "block", TKR_TEXT, S},
    {"registers", "regs", TKR_INT, O},
    {"static_smem", "static smem", TKR_BYTES, J},
    {"dynamic_smem", "dynamic smem", TKR_BYTES, J},
    {"shared_mem", "smem", TKR_BYTES, 0},
    {"occupancy", "occ", TKR_RATIO, 0},
    {"occupancy_source", "occ from", TKR_TEXT, O},
    {"source_occupancy", "src occ", TKR_RATIO, O},
    {"tensor_core", "tc", TKR_INT, J},
    {"name", "name", TKR_NAME, F},
    END,
};

static const struct tkr_col c_gap_causes[] = {
    {"device_id", "device", TKR_DEVICE, 0},
    {"cause", "cause", TKR_TEXT, 0},
    {"gaps", "gaps", TKR_INT, 0},
    {"total_ns", "total", TKR_NS, 0},
    {"longest_ns", "longest", TKR_NS, 0},
    {"window_share", "of window", TKR_RATIO, 0},
    END,
};

static const struct tkr_col c_gap_hist[] = {
    {"bucket", "length", TKR_TEXT, 0},
    {"lo_ns", "from", TKR_NS, J},
    {"hi_ns", "to", TKR_NS, J},
    {"gaps", "gaps", TKR_INT, 0},
    {"total_ns", "total", TKR_NS, 0},
    {"host_bound", "host_bound", TKR_INT, 0},
    {"kernel_wait", "kernel_wait", TKR_INT, O},
    {"sync", "sync", TKR_INT, O},
    {"dependency", "dependency", TKR_INT, O},
    {"unknown", "unknown", TKR_INT, O},
    END,
};

static const struct tkr_col c_gaps[] = {
    {"id", "id", TKR_INT, J},
    {"device_id", "device", TKR_DEVICE, 0},
    {"window", "window", TKR_TEXT, J},
    {"start_ns", "at", TKR_TS, O},
    {"end_ns", "end", TKR_TS, J},
    {"dur_ns", "length", TKR_NS, 0},
    {"cause", "cause", TKR_TEXT, 0},
    {"launch_ts_ns", "next launched", TKR_TS, J},
    {"prev_event_id", "prev id", TKR_INT, J},
    {"prev_name", "before", TKR_NAME, F},
    {"next_event_id", "next id", TKR_INT, J},
    {"next_name", "after", TKR_NAME, F},
    {"explained_by_event_id", "sync id", TKR_INT, J},
    {"explained_by_name", "sync call", TKR_NAME, O},
    END,
};

static const struct tkr_col c_memory[] = {
    {"series_id", "series", TKR_INT, 0},
    {"device_id", "device", TKR_DEVICE, 0},
    {"process_id", "process", TKR_PROCESS, J},
    {"basis", "basis", TKR_TEXT, 0},
    {"records", "records", TKR_INT, O},
    {"allocs", "allocs", TKR_INT, J},
    {"frees", "frees", TKR_INT, J},
    {"unmatched_frees", "unmatched frees", TKR_INT, J},
    {"first_ns", "first", TKR_TS, J},
    {"last_ns", "last", TKR_TS, J},
    {"peak_bytes", "peak", TKR_BYTES, 0},
    {"peak_ns", "peak at", TKR_TS, 0},
    {"peak_record_id", "peak record", TKR_INT, J},
    {"end_bytes", "at end", TKR_BYTES, O},
    {"live_at_peak", "live", TKR_INT, O},
    {"live_bytes_at_peak", "live bytes", TKR_BYTES, 0},
    {"reserved_at_peak", "reserved", TKR_BYTES, 0},
    {"reported_peak_bytes", "reported peak", TKR_BYTES, J},
    {"fragmentation_at_peak", "frag", TKR_RATIO, 0},
    {"max_fragmentation", "max fragmentation", TKR_RATIO, J},
    {"fragmentation_source", "frag from", TKR_TEXT, O},
    {"allocator", "allocator", TKR_TEXT, F},
    END,
};

static const struct tkr_col c_memory_live[] = {
    {"series_id", "series", TKR_INT, 0},
    {"device_id", "device", TKR_DEVICE, 0},
    {"rank", "rank", TKR_INT, J},
    {"record_id", "record", TKR_INT, J},
    {"address", "address", TKR_INT, J},
    {"bytes", "bytes", TKR_BYTES, 0},
    {"alloc_ns", "made at", TKR_TS, O},
    {"op_event_id", "op id", TKR_INT, J},
    {"op_source", "op from", TKR_TEXT, O},
    {"op_name", "op", TKR_NAME, F},
    END,
};

static const struct tkr_col c_chart_memory[] = {
    {"series_id", "series", TKR_INT, 0},
    {"slot", "slot", TKR_INT, 0},
    {"start_ns", "start", TKR_TS, 0},
    {"max_bytes", "max", TKR_BYTES, 0},
    END,
};

static const struct tkr_col c_step_stats[] = {
    {"device_id", "device", TKR_DEVICE, 0},
    {"steps", "steps", TKR_INT, 0},
    {"total_ns", "total", TKR_NS, J},
    {"mean_ns", "mean", TKR_NS, 0},
    {"median_ns", "median", TKR_NS, 0},
    {"p90_ns", "p90", TKR_NS, O},
    {"stddev_ns", "stddev", TKR_NS, O},
    {"min_ns", "min", TKR_NS, O},
    {"max_ns", "max", TKR_NS, O},
    {"mad_ns", "mad", TKR_NS, J},
    {"threshold_ns", "outlier >", TKR_NS, O},
    {"outliers", "outliers", TKR_INT, 0},
    {"source", "placed by", TKR_TEXT, 0},
    {"host_steps", "host steps", TKR_INT, J},
    {"host_mean_ns", "host mean", TKR_NS, J},
    {"host_median_ns", "host median", TKR_NS, 0},
    {"lag_median_ns", "device lag", TKR_NS, O},
    END,
};

static const struct tkr_col c_steps[] = {
    {"device_id", "device", TKR_DEVICE, 0},
    {"step_num", "step", TKR_INT, 0},
    {"step_event_id", "event", TKR_INT, J},
    {"start_ns", "start", TKR_TS, O},
    {"end_ns", "end", TKR_TS, J},
    {"dur_ns", "length", TKR_NS, 0},
    {"busy_ns", "busy", TKR_NS, J},
    {"compute_ns", "compute", TKR_NS, 0},
    {"comm_ns", "comm", TKR_NS, J},
    {"exposed_comm_ns", "exposed comm", TKR_NS, O},
    {"exposed_memcpy_ns", "exposed copy", TKR_NS, O},
    {"host_idle_ns", "host idle", TKR_NS, 0},
    {"other_idle_ns", "other idle", TKR_NS, O},
    {"outlier", "outlier", TKR_INT, J},
    {"source", "placed by", TKR_TEXT, 0},
    {"host_start_ns", "host start", TKR_TS, J},
    {"host_end_ns", "host end", TKR_TS, J},
    {"host_dur_ns", "host length", TKR_NS, 0},
    {"lag_ns", "device lag", TKR_NS, O},
    {"flag", "flag", TKR_FLAG, S},
    END,
};

static const struct tkr_col c_chart_steps[] = {
    {"device_id", "device", TKR_DEVICE, 0},
    {"step_num", "step", TKR_INT, 0},
    {"dur_ns", "length", TKR_NS, 0},
    {"outlier", "outlier", TKR_INT, 0},
    END,
};

static const struct tkr_col c_roofline[] = {
    {"device_id", "device", TKR_DEVICE, 0},
    {"level", "level", TKR_TEXT, J},
    {"process_id", "process", TKR_PROCESS, J},
    {"category", "category", TKR_TEXT, 0},
    {"dtype", "dtype", TKR_TEXT, 0},
    {"calls", "calls", TKR_INT, J},
    {"device_ns", "device time", TKR_NS, 0},
    {"flops", "FLOPs", TKR_INT, J},
    {"bytes", "bytes", TKR_INT, J},
    {"achieved_flops", "achieved", TKR_FLOPS, 0},
    {"achieved_bps", "bandwidth", TKR_BPS, O},
    {"intensity", "FLOP/B", TKR_REAL, 0},
    {"peak_flops", "peak", TKR_FLOPS, J},
    {"peak_bandwidth_bps", "peak bandwidth", TKR_BPS, J},
    {"ridge", "ridge", TKR_REAL, J},
    {"bound", "bound", TKR_TEXT, 0},
    {"peak_share", "of peak", TKR_RATIO, 0},
    {"bandwidth_share", "of bandwidth", TKR_RATIO, J},
    {"roof_share", "of roof", TKR_RATIO, O},
    {"input_dims", "input dims", TKR_TEXT, J},
    {"name", "name", TKR_NAME, J},
    {"op_", "op", TKR_NAME, S | F},
    END,
};

static const struct tkr_col c_roofline_cat[] = {
    {"device_id", "device", TKR_DEVICE, 0},
    {"category", "category", TKR_TEXT, 0},
    {"dtype", "dtype", TKR_TEXT, 0},
    {"groups", "groups", TKR_INT, O},
    {"device_ns", "device time", TKR_NS, 0},
    {"flops", "FLOPs", TKR_INT, J},
    {"bytes", "bytes", TKR_INT, J},
    {"achieved_flops", "achieved", TKR_FLOPS, 0},
    {"achieved_bps", "bandwidth", TKR_BPS, O},
    {"intensity", "FLOP/B", TKR_REAL, O},
    {"peak_share", "of peak", TKR_RATIO, 0},
    {"compute_bound_share", "compute-bound", TKR_RATIO, O},
    END,
};

static const struct tkr_col c_chart_roofs[] = {
    {"device_id", "device", TKR_DEVICE, 0},
    {"dtype", "dtype", TKR_TEXT, 0},
    {"peak_flops", "peak", TKR_FLOPS, 0},
    {"peak_bandwidth_bps", "bandwidth", TKR_BPS, 0},
    END,
};

static const struct tkr_col c_comm_time[] = {
    {"device_id", "device", TKR_DEVICE, 0},
    {"comm_ns", "comm", TKR_NS, 0},
    {"exposed_comm_ns", "exposed", TKR_NS, 0},
    {"overlapped_share", "overlapped", TKR_RATIO, 0},
    {"exposed_window_share", "exposed of window", TKR_RATIO, O},
    END,
};

static const struct tkr_col c_comm_ranks[] = {
    {"device_id", "device", TKR_DEVICE, 0},
    {"rank", "rank", TKR_INT, 0},
    {"collectives", "matched", TKR_INT, 0},
    {"unmatched", "unmatched", TKR_INT, O},
    {"times_last", "last", TKR_INT, 0},
    {"late_share", "late", TKR_RATIO, 0},
    {"expected_share", "by chance", TKR_RATIO, O},
    {"total_skew_ns", "total skew", TKR_NS, J},
    {"max_skew_ns", "max skew", TKR_NS, 0},
    {"total_wait_ns", "wait", TKR_NS, 0},
    {"comm_ns", "of comm", TKR_NS, O},
    {"late_skew_ns", "late skew", TKR_NS, O},
    {"straggler", "straggler", TKR_INT, J},
    {"flag", "flag", TKR_FLAG, S},
    END,
};

/* clock offsets between hosts (issue 19, part c) */
static const struct tkr_col c_clock_offsets[] = {
    {"host", "host", TKR_TEXT, 0},	  {"reference_host", "reference", TKR_TEXT, O},
    {"devices", "devices", TKR_INT, O},	  {"offset_ns", "offset", TKR_NS, 0},
    {"uncertainty_ns", "+/-", TKR_NS, 0}, {"collectives", "collectives", TKR_INT, 0},
    {"via_host", "via", TKR_TEXT, O},	  {"applied", "applied", TKR_INT, J},
    {"flag", "flag", TKR_FLAG, S},	  END,
};

static const struct tkr_col c_collectives[] = {
    {"process_group", "group", TKR_TEXT, O},
    {"devices", "devices", TKR_INT, 0},
    {"kernels", "kernels", TKR_INT, 0},
    {"unmatched", "unmatched", TKR_INT, O},
    {"total_ns", "total", TKR_NS, 0},
    {"max_skew_ns", "max skew", TKR_NS, 0},
    {"total_wait_ns", "total wait", TKR_NS, O},
    {"collective", "collective", TKR_NAME, F},
    END,
};

/* ---- load balance across ranks (analysis_balance*; docs/metrics.md) ---- */
static const struct tkr_col c_balance_slowest[] = {
    {"summary", "slowest", TKR_TEXT, TKR_C_HUMAN},
    {"device_id", "device", TKR_DEVICE, 0},
    {"rank", "rank", TKR_INT, J},
    {"host", "host", TKR_TEXT, J},
    {"basis", "basis", TKR_TEXT, 0},
    {"load_ns", "its load", TKR_NS, 0},
    {"others_ns", "others' mean load", TKR_NS, 0},
    {"extra_ns", "extra", TKR_NS, 0},
    {"imbalance", "load imbalance (max / mean)", TKR_REAL, 0},
    {"component", "mostly", TKR_TEXT, 0},
    {"component_ns", "of it", TKR_NS, 0},
    END,
};

static const struct tkr_col c_balance_ranks[] = {
    {"device_id", "device", TKR_DEVICE, 0},
    {"rank", "rank", TKR_INT, 0},
    {"host", "host", TKR_TEXT, O},
    {"window", "window", TKR_TEXT, J},
    {"steps", "steps", TKR_INT, O},
    {"step_ns", "step", TKR_NS, 0},
    {"load_ns", "load", TKR_NS, 0},
    {"window_ns", "window", TKR_NS, O},
    {"busy_ns", "busy", TKR_NS, O},
    {"compute_ns", "compute", TKR_NS, 0},
    {"comm_ns", "comm", TKR_NS, O},
    {"exposed_comm_ns", "exposed comm", TKR_NS, 0},
    {"exposed_memcpy_ns", "exposed copies", TKR_NS, O},
    {"idle_ns", "idle", TKR_NS, O},
    {"wait_ns", "comm wait", TKR_NS, O},
    {"step_compute_ns", "step compute", TKR_NS, J},
    {"step_exposed_comm_ns", "step exposed comm", TKR_NS, J},
    {"step_exposed_memcpy_ns", "step exposed copies", TKR_NS, J},
    {"step_host_idle_ns", "step host idle", TKR_NS, J},
    {"step_other_idle_ns", "step other idle", TKR_NS, J},
    {"slowest", "slowest", TKR_INT, J},
    {"flag", "flag", TKR_FLAG, S},
    END,
};

static const struct tkr_col c_balance_metrics[] = {
    {"metric", "metric", TKR_TEXT, 0},
    {"members", "ranks", TKR_INT, O},
    {"imbalance", "max / mean", TKR_REAL, 0},
    {"max_ns", "max", TKR_NS, 0},
    {"max_device_id", "max on", TKR_DEVICE, O},
    {"max_rank", "max rank", TKR_INT, J},
    {"mean_ns", "mean", TKR_NS, 0},
    {"min_ns", "min", TKR_NS, 0},
    {"slowest_ns", "slowest", TKR_NS, O},
    {"others_ns", "others", TKR_NS, O},
    {"extra_ns", "slowest - others", TKR_DNS, 0},
    {"component", "component", TKR_INT, J},
    END,
};

static const struct tkr_col c_launches[] = {
    {"device_id", "device", TKR_DEVICE, 0},
    {"kind", "kind", TKR_TEXT, J},
    {"ops", "ops", TKR_INT, J},
    {"launches", "launches", TKR_INT, 0},
    {"device_ns", "device time", TKR_NS, J},
    {"call_total_ns", "launch total", TKR_NS, 0},
    {"call_mean_ns", "call mean", TKR_NS, J},
    {"call_median_ns", "call median", TKR_NS, 0},
    {"call_p90_ns", "call p90", TKR_NS, O},
    {"call_max_ns", "call max", TKR_NS, O},
    {"delay_mean_ns", "delay mean", TKR_NS, J},
    {"delay_median_ns", "delay median", TKR_NS, 0},
    {"delay_p90_ns", "delay p90", TKR_NS, O},
    {"delay_max_ns", "delay max", TKR_NS, J},
    {"queue_mean_ns", "queue mean", TKR_NS, J},
    {"queue_median_ns", "queue median", TKR_NS, O},
    {"queue_p90_ns", "queue p90", TKR_NS, J},
    {"queue_max_ns", "queue max", TKR_NS, J},
    {"call_outliers", "calls > 50us", TKR_INT, O},
    {"delay_outliers", "queued > 100us", TKR_INT, O},
    {"short_launches", "short", TKR_INT, J},
    {"short_share", "shorter than call", TKR_RATIO, 0},
    {"name", "name", TKR_NAME, F},
    END,
};

static const struct tkr_col c_queues[] = {
    {"device_id", "device", TKR_DEVICE, 0},
    {"track_id", "track", TKR_INT, J},
    {"stream", "stream", TKR_TEXT, 0},
    {"stream_id", "stream id", TKR_INT, J},
    {"window", "window", TKR_TEXT, O},
    {"window_ns", "window length", TKR_NS, J},
    {"ops", "ops", TKR_INT, 0},
    {"launched", "launched", TKR_INT, J},
    {"max_length", "max", TKR_INT, 0},
    {"mean_length", "mean", TKR_REAL, 0},
    {"empty_share", "empty", TKR_RATIO, 0},
    {"empty_ns", "empty time", TKR_NS, J},
    {"longest_empty_ns", "longest empty", TKR_NS, 0},
    {"longest_empty_start_ns", "at", TKR_TS, O},
    {"max_waiting", "max waiting", TKR_INT, O},
    {"mean_waiting", "mean waiting", TKR_REAL, J},
    {"waiting_share", "waiting", TKR_RATIO, 0},
    END,
};

static const struct tkr_col c_chart_queue[] = {
    {"device_id", "device", TKR_DEVICE, 0}, {"track_id", "track", TKR_INT, 0},
    {"stream", "stream", TKR_TEXT, 0},	    {"start_ns", "start", TKR_TS, 0},
    {"max_length", "max", TKR_INT, 0},	    END,
};

static const struct tkr_col c_op_perf[] = {
    {"level", "level", TKR_TEXT, J},
    {"process_id", "process", TKR_PROCESS, J},
    {"device_id", "device", TKR_DEVICE, J},
    {"on_", "on", TKR_WHERE, S},
    {"model", "model", TKR_TEXT, O},
    {"dtype", "dtype", TKR_TEXT, O},
    {"calls", "calls", TKR_INT, 0},
    {"device_ns", "device time", TKR_NS, 0},
    {"flops_per_s", "FLOP/s", TKR_FLOPS, 0},
    {"bytes_per_s", "bandwidth", TKR_BPS, 0},
    {"intensity", "FLOP/B", TKR_REAL, 0},
    {"flops", "flops", TKR_INT, J},
    {"bytes", "bytes", TKR_INT, J},
    {"flops_per_call", "flops/call", TKR_REAL, J},
    {"bytes_per_call", "bytes/call", TKR_REAL, J},
    {"device_ops", "device ops", TKR_INT, J},
    {"module", "module", TKR_TEXT, J},
    {"input_dims", "shapes", TKR_TEXT, J},
    {"input_types", "types", TKR_TEXT, J},
    {"concrete_inputs", "concrete inputs", TKR_TEXT, J},
    {"note", "note", TKR_TEXT, J},
    {"name", "op", TKR_NAME, J},
    {"op_", "op (input dims)", TKR_TEXT, F | S},
    END,
};

static const struct tkr_col c_op_perf_summary[] = {
    {"level", "level", TKR_TEXT, J},
    {"process_id", "process", TKR_PROCESS, J},
    {"device_id", "device", TKR_DEVICE, J},
    {"on_", "on", TKR_WHERE, S},
    {"launched_ns", "device time", TKR_NS, 0},
    {"modelled_ns", "modelled", TKR_NS, 0},
    {"modelled_share", "share", TKR_RATIO, 0},
    {"flops", "flops", TKR_INT, J},
    {"bytes", "bytes", TKR_INT, J},
    {"flops_per_s", "FLOP/s", TKR_FLOPS, 0},
    {"bytes_per_s", "bandwidth", TKR_BPS, 0},
    END,
};

static const struct tkr_col c_op_unmodelled[] = {
    {"level", "level", TKR_TEXT, J},
    {"process_id", "process", TKR_PROCESS, J},
    {"device_id", "device", TKR_DEVICE, J},
    {"on_", "on", TKR_WHERE, S},
    {"calls", "calls", TKR_INT, 0},
    {"device_ops", "device ops", TKR_INT, O},
    {"device_ns", "device time", TKR_NS, 0},
    {"reason", "why", TKR_TEXT, 0},
    {"name", "op", TKR_NAME, F},
    END,
};

#undef END
#undef J
#undef S
#undef F
#undef O

#endif

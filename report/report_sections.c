/*
 * What a report shows (the diff's sections are in diff.c): each section is one SQL statement over the analysis_* tables
 * (docs/metrics.md defines every column) and its columns (report_columns.h). The column keys are
 * the JSON keys of docs/report-json.md: renaming one is a breaking change. The report's own
 * derivations are few and listed in docs/reports.md (gap histogram buckets, the per-cause gap
 * totals, communication overlap shares, the memory chart's downsampling).
 */
#include <string.h>

#include "report_internal.h"

#include "report_columns.h"

/* ---- report ---- */

/*
 * The split of a scope's device time (docs/reports.md, "Device time by category"): its largest
 * categories by device time (at most 4, each of at least 0.5 %), "GEMM 61 %, attention 18 %".
 * @scope: the condition that picks the scope's rows of analysis_categories x beside row a.
 */
#define CAT_SPLIT(scope)                                                                    \
	"(SELECT group_concat(label, ', ') FROM (SELECT CASE x.category WHEN 'gemm' THEN"   \
	" 'GEMM' ELSE x.category END || ' ' || printf('%.0f %%', 100.0 * x.share) AS label" \
	" FROM analysis_categories x WHERE x.device_id = a.device_id AND " scope            \
	" AND x.share >= 0.005 ORDER BY x.device_ns DESC, x.category LIMIT 4)) AS split"

#define STEP_COLS                                                                             \
	"device_id, step_num, step_event_id, start_ns, end_ns, dur_ns, busy_ns, compute_ns, " \
	"comm_ns, exposed_comm_ns, exposed_memcpy_ns, host_idle_ns, other_idle_ns, outlier, " \
	"source, host_start_ns, host_end_ns, host_dur_ns, lag_ns, "                           \
	"CASE outlier WHEN 1 THEN 'outlier' END AS flag FROM analysis_steps "

/* A job summary keeps only the longest gaps of each device (import/merge_tables.c): every gap is
 * counted in analysis_gap_buckets. */
const char *tkr_section_total_sql(const struct tkr_section_def *def)
{
	if (!strcmp(def->key, "gaps"))
		return "SELECT coalesce(sum(gaps), 0) FROM analysis_gap_buckets";
	return NULL;
}

const struct tkr_section_def tkr_report_sections[] = {
    {"trace", "Trace", NULL, TKR_KV, 1,
     "SELECT (SELECT value FROM meta WHERE key = 'source') AS source,"
     " (SELECT group_concat(f, ', ') FROM (SELECT DISTINCT format AS f FROM sources"
     "  ORDER BY format)) AS formats,"
     " (SELECT count(*) FROM sources) AS sources,"
     " (SELECT value FROM meta WHERE key = 'clock') AS clock,"
     " (SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'trace_start_ns') AS start_ns,"
     " (SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'trace_end_ns') -"
     " (SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'trace_start_ns') AS duration_ns,"
     " (SELECT count(*) FROM devices) AS devices,"
     " (SELECT count(*) FROM processes) AS processes,"
     " (SELECT count(*) FROM events) AS events,"
     " (SELECT group_concat(w, ', ') FROM (SELECT DISTINCT window AS w"
     "  FROM analysis_device_time WHERE selected = 1 ORDER BY w)) AS window",
     c_trace, NULL},
    {"sources", "Sources", NULL, TKR_TABLE, -1,
     "SELECT format, host, rank, path FROM sources ORDER BY id", c_sources, NULL},
    {"devices", "Devices", NULL, TKR_TABLE, -1,
     "SELECT d.id AS device_id, d.kind AS kind, d.vendor AS vendor, h.str AS host,"
     " d.rank AS rank, d.compute_capability AS compute_capability, d.sm_count AS sm_count,"
     " d.memory_bytes AS memory_bytes, d.memory_bandwidth_bps AS memory_bandwidth_bps,"
     " d.peak_flops AS peak_flops,"
     " (SELECT peak_flops FROM analysis_device_peaks p WHERE p.device_id = d.id"
     "  AND p.dtype = 'bf16') AS peak_bf16_flops,"
     " (SELECT peak_flops FROM analysis_device_peaks p WHERE p.device_id = d.id"
     "  AND p.dtype = 'fp32') AS peak_fp32_flops,"
     " (SELECT max(peak_bandwidth_bps) FROM analysis_device_peaks p"
     "  WHERE p.device_id = d.id) AS peak_bandwidth_bps,"
     " CASE WHEN NOT EXISTS (SELECT 1 FROM analysis_device_peaks p WHERE p.device_id = d.id)"
     "  THEN 'peak unknown' ELSE (SELECT group_concat(s, ', ') FROM (SELECT DISTINCT s FROM"
     "  (SELECT flops_source AS s, 0 AS k FROM analysis_device_peaks p"
     "  WHERE p.device_id = d.id AND p.dtype IN ('bf16', 'fp32') UNION ALL"
     "  SELECT bandwidth_source, 1 FROM analysis_device_peaks p WHERE p.device_id = d.id)"
     "  WHERE s IS NOT NULL ORDER BY s)) END AS peak_source,"
     " (SELECT max(model) FROM analysis_device_peaks p WHERE p.device_id = d.id) AS peak_model,"
     " n.str AS name FROM devices d"
     " LEFT JOIN strings n ON n.id = d.name_id LEFT JOIN strings h ON h.id = d.host_id"
     " ORDER BY d.id",
     c_devices, "no devices"},
    {"kpis", "KPIs", NULL, TKR_TABLE, 1000,
     "SELECT device_id, kpi, value, unit, band, window, note FROM analysis_kpi"
     " ORDER BY device_id, rowid",
     c_kpis, "no KPIs: the trace has no device work"},
    {"findings", "Findings", NULL, TKR_FINDINGS, 500,
     "SELECT id, rule, severity, device_id, process_id, metric, threshold, summary, evidence,"
     " fix, CASE WHEN rule = 'straggler' AND json_valid(evidence) THEN 100.0 *"
     " json_extract(evidence, '$.late_skew_ns') / nullif((SELECT window_ns FROM"
     " analysis_device_time t WHERE t.device_id = f.device_id AND t.selected = 1), 0)"
     " END AS wait_share"
     " FROM analysis_findings f"
     " ORDER BY CASE severity WHEN 'high' THEN 0 WHEN 'medium' THEN 1 ELSE 2 END, id",
     c_findings, "no findings: no rule fired"},
    {"device_time", "Device time (selected window)", NULL, TKR_TABLE, 1000,
     "SELECT device_id, window, start_ns, end_ns, window_ns, spans, ops, utilization,"
     " busy_ns, compute_ns, comm_ns, memcpy_ns, exposed_comm_ns, exposed_memcpy_ns, idle_ns"
     " FROM analysis_device_time WHERE selected = 1 ORDER BY device_id",
     c_device_time, "no device time: the trace has no device work"},
    {"category_split", "Device time by category", NULL, TKR_TABLE, 1000,
     "SELECT a.device_id AS device_id, a.window AS window, sum(a.ops) AS ops,"
     " sum(a.device_ns) AS device_ns, " CAT_SPLIT(
	 "x.scope = 'window'") " FROM analysis_categories a WHERE a.scope = 'window' GROUP BY "
			       "a.device_id"
			       " ORDER BY a.device_id",
     c_cat_split, "no device time by category: the trace has no device work"},
    {"categories", "Device time per category", NULL, TKR_TABLE, 1000,
     "SELECT device_id, window, category, ops, device_ns, share FROM analysis_categories"
     " WHERE scope = 'window' ORDER BY device_id, device_ns DESC, category",
     c_categories, NULL},
    {"category_steps", "Device time by category per step", NULL, TKR_TABLE, -1,
     "SELECT a.device_id AS device_id, a.step_index AS step_index, a.step_num AS step_num,"
     " sum(a.ops) AS ops, sum(a.device_ns) AS device_ns, " CAT_SPLIT(
	 "x.scope = 'step' AND x.step_index = a.step_index") " FROM analysis_categories a WHERE "
							     "a.scope = 'step'"
							     " GROUP BY a.device_id, a.step_index "
							     "ORDER BY a.device_id, a.step_index",
     c_cat_steps, NULL},
    {"ops", "Top ops by self time", NULL, TKR_TABLE, -1,
     "SELECT level, device_id, process_id, NULL AS on_, module, category, occurrences, total_ns, "
     "self_ns, avg_ns, min_ns, max_ns,"
     " device_share, name FROM analysis_op_profile WHERE level <> 'idle'"
     " ORDER BY self_ns DESC, total_ns DESC, name, level, device_id, process_id, module,"
     " category",
     c_ops, "no ops"},
    {"gpu_ops", "GPU time by operator", NULL, TKR_TABLE, -1,
     "SELECT process_id, calls, direct_ops, direct_ns, direct_share, subtree_ops, subtree_ns,"
     " category, name FROM analysis_op_gpu_time WHERE level = 'host_op' AND subtree_ops > 0"
     " ORDER BY direct_ns DESC, subtree_ns DESC, name, process_id",
     c_gpu_ops, NULL},
    {"gpu_annotations", "GPU time by annotation", NULL, TKR_TABLE, -1,
     "SELECT process_id, calls, direct_ops, direct_ns, direct_share, subtree_ops, subtree_ns,"
     " category, name FROM analysis_op_gpu_time WHERE level = 'annotation' AND subtree_ops > 0"
     " ORDER BY subtree_ns DESC, direct_ns DESC, name, process_id",
     c_gpu_ops, NULL},
    {"gpu_annotation_steps", "GPU time per step by annotation", NULL, TKR_TABLE, -1,
     "SELECT device_id, step, step_num, process_id, ops, device_ns, step_share, name,"
     " coalesce(name, '(no annotation)') AS owner"
     " FROM analysis_op_gpu_steps WHERE EXISTS (SELECT 1 FROM analysis_op_gpu_steps"
     " WHERE name IS NOT NULL) ORDER BY device_id, step, device_ns DESC, name, process_id",
     c_gpu_steps, NULL},
    {"hlo_ops", "Device time by HLO op", NULL, TKR_TABLE, -1,
     "SELECT p.device_id, p.module, p.category, p.occurrences,"
     " (SELECT count(*) FROM analysis_hlo_op_kernels k WHERE k.device_id = p.device_id"
     "  AND k.hlo_op = p.name AND k.module IS p.module) AS kernels, p.total_ns, p.device_share,"
     " (SELECT kernel FROM analysis_hlo_op_kernels k WHERE k.device_id = p.device_id"
     "  AND k.hlo_op = p.name AND k.module IS p.module ORDER BY total_ns DESC, kernel"
     "  LIMIT 1) AS top_kernel, p.name"
     " FROM analysis_op_profile p WHERE p.level = 'hlo_op'"
     " ORDER BY p.total_ns DESC, p.device_id, p.name, p.module",
     c_hlo_ops, NULL},
    {"op_perf_summary", "Modelled share of device time", "Op performance model", TKR_TABLE, 1000,
     "SELECT level, process_id, device_id, NULL AS on_, launched_ns, modelled_ns,"
     " modelled_share, flops, bytes, flops_per_s, bytes_per_s FROM analysis_op_perf_summary"
     " WHERE launched_ns > 0 ORDER BY level, device_id, process_id",
     c_op_perf_summary, "no device time launched from host ops or XLA ops"},
    {"op_perf", "Op groups by device time (FLOPs and bytes from the perf model)", NULL, TKR_TABLE,
     -1,
     "SELECT level, process_id, device_id, NULL AS on_, model, dtype, calls, device_ns,"
     " flops_per_s, bytes_per_s, intensity, flops, bytes, flops_per_call, bytes_per_call,"
     " device_ops, module, input_dims, input_types, concrete_inputs, note, name,"
     " name || coalesce(' ' || replace(input_dims, ',', ', '), '') AS op_"
     " FROM analysis_op_perf WHERE device_ns > 0"
     " ORDER BY device_ns DESC, name, input_dims, input_types, concrete_inputs, level,"
     " device_id, process_id, module",
     c_op_perf, NULL},
    {"roofline", "Top ops vs the hardware (roofline)", NULL, TKR_TABLE, -1,
     "SELECT device_id, level, process_id, category, dtype, calls, device_ns, flops, bytes,"
     " achieved_flops, achieved_bps, intensity, peak_flops, peak_bandwidth_bps, ridge, bound,"
     " peak_share, bandwidth_share, roof_share, input_dims, name,"
     " name || coalesce(' ' || replace(input_dims, ',', ', '), '') AS op_"
     " FROM analysis_roofline ORDER BY device_ns DESC, device_id, name, input_dims, dtype",
     c_roofline, NULL},
    {"roofline_categories", "Op categories vs the hardware", NULL, TKR_TABLE, 1000,
     "SELECT device_id, category, dtype, count(*) AS groups, sum(device_ns) AS device_ns,"
     " sum(flops) AS flops, sum(bytes) AS bytes,"
     " sum(flops) * 1e9 / sum(device_ns) AS achieved_flops,"
     " sum(bytes) * 1e9 / sum(device_ns) AS achieved_bps,"
     " CASE WHEN sum(bytes) > 0 THEN sum(flops) * 1.0 / sum(bytes) END AS intensity,"
     " CASE WHEN count(peak_flops) = count(*) THEN sum(flops) / sum(device_ns * 1e-9 *"
     " peak_flops) END AS peak_share,"
     " sum(CASE bound WHEN 'compute' THEN device_ns ELSE 0 END) * 1.0 / sum(device_ns) AS"
     " compute_bound_share"
     " FROM analysis_roofline GROUP BY device_id, category, dtype"
     " ORDER BY device_id, sum(device_ns) DESC, category, dtype",
     c_roofline_cat, NULL},
    {"chart_roofs", "Device roofs", NULL, TKR_CHART, 100,
     "SELECT p.device_id, p.dtype, p.peak_flops, p.peak_bandwidth_bps FROM"
     " analysis_device_peaks p WHERE p.peak_flops > 0 AND p.dtype IN (SELECT r.dtype FROM"
     " analysis_roofline r WHERE r.device_id = p.device_id) ORDER BY p.device_id, p.dtype",
     c_chart_roofs, NULL},
    {"op_unmodelled", "Unmodelled ops by device time", NULL, TKR_TABLE, -1,
     "SELECT level, process_id, device_id, NULL AS on_, calls, device_ops, device_ns, reason,"
     " name FROM analysis_op_perf_unmodelled WHERE device_ns > 0"
     " ORDER BY device_ns DESC, name, reason, level, device_id, process_id",
     c_op_unmodelled, NULL},
    {"kernels", "Top kernels by total time", NULL, TKR_TABLE, -1,
     "SELECT rank, device_id, occurrences, total_ns, avg_ns, median_ns, min_ns, max_ns,"
     " stddev_ns, grid_x, grid_y, grid_z, block_x, block_y, block_z,"
     " CASE WHEN grid_x IS NOT NULL THEN grid_x || 'x' || coalesce(grid_y, '?') || 'x' ||"
     " coalesce(grid_z, '?') END AS grid,"
     " CASE WHEN block_x IS NOT NULL THEN block_x || 'x' || coalesce(block_y, '?') || 'x' ||"
     " coalesce(block_z, '?') END AS block,"
     " registers, static_smem, dynamic_smem, shared_mem, occupancy, occupancy_source,"
     " source_occupancy,"
     " tensor_core, name FROM analysis_kernel_stats ORDER BY rank",
     c_kernels, "no kernels"},
    {"gap_causes", "Idle gaps by cause", "Idle gaps", TKR_TABLE, 1000,
     "SELECT g.device_id AS device_id, g.cause AS cause, sum(g.gaps) AS gaps,"
     " sum(g.total_ns) AS total_ns, max(g.longest_ns) AS longest_ns,"
     " sum(g.total_ns) * 1.0 / nullif(d.window_ns, 0) AS window_share"
     " FROM analysis_gap_buckets g LEFT JOIN analysis_device_time d"
     " ON d.device_id = g.device_id AND d.selected = 1 GROUP BY g.device_id, g.cause"
     " ORDER BY g.device_id, total_ns DESC, g.cause",
     c_gap_causes, "no idle gaps"},
    {"gap_histogram", "Idle gap lengths (all devices)", NULL, TKR_TABLE, 100,
     "WITH b(lo, hi, label) AS (VALUES (0, 1000, '< 1 \xc2\xb5s'),"
     " (1000, 10000, '1-10 \xc2\xb5s'), (10000, 100000, '10-100 \xc2\xb5s'),"
     " (100000, 1000000, '0.1-1 ms'), (1000000, 10000000, '1-10 ms'),"
     " (10000000, 100000000, '10-100 ms'), (100000000, 1000000000, '0.1-1 s'),"
     " (1000000000, NULL, '>= 1 s'))"
     " SELECT b.label AS bucket, b.lo AS lo_ns, b.hi AS hi_ns,"
     " coalesce(sum(g.gaps), 0) AS gaps, coalesce(sum(g.total_ns), 0) AS total_ns,"
     " coalesce(sum(CASE g.cause WHEN 'host_bound' THEN g.gaps END), 0) AS host_bound,"
     " coalesce(sum(CASE g.cause WHEN 'kernel_wait' THEN g.gaps END), 0) AS kernel_wait,"
     " coalesce(sum(CASE g.cause WHEN 'sync' THEN g.gaps END), 0) AS sync,"
     " coalesce(sum(CASE g.cause WHEN 'dependency' THEN g.gaps END), 0) AS dependency,"
     " coalesce(sum(CASE g.cause WHEN 'unknown' THEN g.gaps END), 0) AS unknown"
     " FROM b LEFT JOIN analysis_gap_buckets g ON g.lo_ns = b.lo"
     " WHERE EXISTS (SELECT 1 FROM analysis_gap_buckets)"
     " GROUP BY b.lo ORDER BY b.lo",
     c_gap_hist, NULL},
    {"gaps", "Largest idle gaps", NULL, TKR_TABLE, -1,
     "SELECT id, device_id, window, start_ns, end_ns, dur_ns, cause, launch_ts_ns,"
     " prev_event_id, prev_name, next_event_id, next_name, explained_by_event_id,"
     " explained_by_name FROM analysis_gaps"
     " ORDER BY dur_ns DESC, id",
     c_gaps, NULL},
    {"memory", "Memory series by peak", "Memory", TKR_TABLE, -1,
     "SELECT series_id, device_id, process_id, basis, records, allocs, frees,"
     " unmatched_frees, first_ns, last_ns, peak_bytes, peak_ns, peak_record_id, end_bytes,"
     " live_at_peak, live_bytes_at_peak, reserved_at_peak, reported_peak_bytes,"
     " fragmentation_at_peak, max_fragmentation, fragmentation_source, allocator"
     " FROM analysis_memory"
     " ORDER BY peak_bytes DESC, series_id",
     c_memory, "no memory records"},
    {"memory_live", "Largest allocations live at the peak", NULL, TKR_TABLE, -1,
     "SELECT l.series_id AS series_id, m.device_id AS device_id, l.rank AS rank,"
     " l.record_id AS record_id, l.address AS address, l.bytes AS bytes,"
     " l.alloc_ns AS alloc_ns, l.op_event_id AS op_event_id, l.op_source AS op_source,"
     " l.op_name AS op_name FROM analysis_memory_live_at_peak l"
     " JOIN analysis_memory m ON m.series_id = l.series_id"
     " ORDER BY l.bytes DESC, l.series_id, l.rank",
     c_memory_live, NULL},
    {"chart_memory", "Memory in use over time", NULL, TKR_CHART, 2000,
     "SELECT series_id, bucket / 4 AS slot, min(start_ns) AS start_ns,"
     " max(max_bytes) AS max_bytes FROM analysis_memory_timeline"
     " WHERE series_id IN (SELECT series_id FROM analysis_memory"
     " ORDER BY peak_bytes DESC, series_id LIMIT 8)"
     " GROUP BY series_id, slot ORDER BY series_id, slot",
     c_chart_memory, NULL},
    {"step_stats", "Step time", "Steps", TKR_TABLE, 1000,
     "SELECT device_id, steps, total_ns, mean_ns, median_ns, p90_ns, stddev_ns, min_ns,"
     " max_ns, mad_ns, threshold_ns, outliers, source, host_steps, host_mean_ns,"
     " host_median_ns, lag_median_ns FROM analysis_step_stats ORDER BY device_id",
     c_step_stats, "no steps: the trace marks none"},
    {"steps", "Steps", NULL, TKR_TABLE, -1,
     "SELECT " STEP_COLS "ORDER BY device_id, start_ns, step_event_id", c_steps, NULL},
    {"step_outliers", "Outlier steps (slowest first)", NULL, TKR_TABLE, -1,
     "SELECT " STEP_COLS "WHERE outlier = 1 ORDER BY dur_ns DESC, device_id, start_ns", c_steps,
     NULL},
    {"chart_steps", "Step times", NULL, TKR_CHART, 2000,
     "SELECT device_id, step_num, dur_ns, outlier FROM analysis_steps"
     " ORDER BY device_id, start_ns, step_event_id",
     c_chart_steps, NULL},
    {"comm_time", "Communication time (selected window)", "Communication", TKR_TABLE, 1000,
     "SELECT device_id, comm_ns, exposed_comm_ns,"
     " 1.0 - exposed_comm_ns * 1.0 / comm_ns AS overlapped_share,"
     " exposed_comm_ns * 1.0 / nullif(window_ns, 0) AS exposed_window_share"
     " FROM analysis_device_time WHERE selected = 1 AND comm_ns > 0 ORDER BY device_id",
     c_comm_time, "no communication kernels"},
    {"comm_ranks", "Collectives across ranks", NULL, TKR_TABLE, 1000,
     "SELECT device_id, rank, collectives, unmatched, times_last, late_share,"
     " expected_share, total_skew_ns, max_skew_ns, total_wait_ns, comm_ns, late_skew_ns,"
     " straggler,"
     " CASE straggler WHEN 1 THEN 'straggler' END AS flag FROM analysis_comm_ranks"
     " ORDER BY device_id",
     c_comm_ranks, NULL},
    /* clock offsets between hosts (issue 19, part c): docs/metrics.md "analysis_clock_offsets" */
    {"clock_offsets", "Clock offsets between hosts", NULL, TKR_TABLE, 1000,
     "SELECT host, reference_host, devices, offset_ns, uncertainty_ns, collectives,"
     " via_host, applied, CASE WHEN offset_ns IS NULL THEN 'not estimated' WHEN applied = 1"
     " THEN 'applied' END AS flag FROM analysis_clock_offsets ORDER BY rowid",
     c_clock_offsets, NULL},
    {"collectives", "Collectives by total time", NULL, TKR_TABLE, -1,
     "SELECT process_group, count(DISTINCT device_id) AS devices, count(*) AS kernels,"
     " count(*) - count(instance) AS unmatched,"
     " sum(dur_ns) AS total_ns, max(skew_ns) AS max_skew_ns, sum(wait_ns) AS total_wait_ns,"
     " collective FROM analysis_comm GROUP BY collective, process_group"
     " ORDER BY total_ns DESC, collective, process_group",
     c_collectives, NULL},
    /* ---- load balance across ranks (analysis_balance*: only with two ranks or more) ---- */
    {"balance", "Slowest rank", "Load balance across ranks", TKR_KV, 1,
     "SELECT summary, device_id, rank, host, basis, load_ns, others_ns, extra_ns, imbalance,"
     " component, component_ns FROM analysis_balance_slowest",
     c_balance_slowest, NULL},
    {"balance_ranks", "Per rank (step: mean device step; load: time outside exposed comm)", NULL,
     TKR_TABLE, 1000,
     "SELECT device_id, rank, host, window, steps, step_ns, load_ns, window_ns, busy_ns,"
     " compute_ns, comm_ns, exposed_comm_ns, exposed_memcpy_ns, idle_ns, wait_ns,"
     " step_compute_ns, step_exposed_comm_ns, step_exposed_memcpy_ns, step_host_idle_ns,"
     " step_other_idle_ns, slowest, CASE slowest WHEN 1 THEN 'slowest' END AS flag"
     " FROM analysis_balance_ranks ORDER BY rank, device_id",
     c_balance_ranks, NULL},
    {"balance_metrics", "Imbalance per metric", NULL, TKR_TABLE, 100,
     "SELECT metric, members, imbalance, max_ns, max_device_id, max_rank, mean_ns, min_ns,"
     " slowest_ns, others_ns, extra_ns, component FROM analysis_balance ORDER BY rowid",
     c_balance_metrics, NULL},
    {"launches", "Kernel launches (by launch overhead)", "Launches and queues", TKR_TABLE, -1,
     "SELECT device_id, kind, ops, launches, device_ns, call_total_ns, call_mean_ns,"
     " call_median_ns, call_p90_ns, call_max_ns, delay_mean_ns, delay_median_ns,"
     " delay_p90_ns, delay_max_ns, queue_mean_ns, queue_median_ns, queue_p90_ns,"
     " queue_max_ns, call_outliers, delay_outliers, short_launches, short_share, name"
     " FROM analysis_launch_stats ORDER BY call_total_ns DESC, device_id, name, kind",
     c_launches, "no launches: no device operation is linked to an API call"},
    {"queue_length", "Queue length by stream", NULL, TKR_TABLE, 1000,
     "SELECT device_id, track_id, CASE WHEN track_id IS NULL THEN 'all' ELSE"
     " CAST(coalesce(stream_id, 'track ' || track_id) AS TEXT) END AS stream, stream_id, window,"
     " window_ns, ops, launched, max_length, mean_length, empty_share, empty_ns,"
     " longest_empty_ns, longest_empty_start_ns, max_waiting, mean_waiting, waiting_share"
     " FROM analysis_queue_length ORDER BY device_id, track_id IS NOT NULL, ops DESC,"
     " track_id",
     c_queues, NULL},
    {"chart_queue", "Queue length over time", NULL, TKR_CHART, 4000,
     "SELECT q.device_id, q.track_id, CASE WHEN q.track_id IS NULL THEN 'all' ELSE"
     " CAST(coalesce(l.stream_id, 'track ' || q.track_id) AS TEXT) END AS stream, min(q.start_ns) "
     "AS"
     " start_ns, max(q.max_length) AS max_length FROM analysis_queue_timeline q"
     " JOIN analysis_queue_length l ON l.device_id = q.device_id AND l.track_id IS"
     " q.track_id WHERE q.device_id = (SELECT min(device_id) FROM analysis_queue_length)"
     " AND (q.track_id IS NULL OR q.track_id IN (SELECT track_id FROM analysis_queue_length"
     " WHERE device_id = q.device_id AND track_id IS NOT NULL ORDER BY ops DESC, track_id"
     " LIMIT 3)) GROUP BY q.device_id, q.track_id, q.bucket / 4"
     " ORDER BY q.track_id IS NOT NULL, q.track_id, start_ns",
     c_chart_queue, NULL},
};
const size_t tkr_report_nsections = sizeof(tkr_report_sections) / sizeof(tkr_report_sections[0]);

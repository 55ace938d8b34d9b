/*
 * Findings (analysis_findings): rules that name a bottleneck with the numbers behind it, the top
 * offenders and a fix. Each rule is one INSERT ... SELECT over the other analyses' tables (and a
 * few store tables), so every finding can be re-derived with the same SQL; a rule whose input
 * tables are missing is skipped. Rules and thresholds: docs/metrics.md ("Findings").
 */
#include <string.h>

#include "analyze_internal.h"

/* One rule: the tables it reads (space-separated) and its INSERT ... SELECT (?1 = small_kernel_ns). */
struct rule {
	const char *name, *needs, *sql;
};

/* Synchronous API calls among analysis_op_profile rows (docs: "sync_api_calls"). */
#define TKA_SYNC_COND                                                                             \
	"(level = 'sync' OR (level IN ('runtime_api', 'driver_api') AND " TKA_BLOCKING_API_NAMES( \
	    "name") "))"

/* sync_api_calls: the lowest utilization (selected window) of the devices of process
 * s.process_id; NULL when it has none. A host that waits on devices busy 95 % of the time or
 * more loses nothing (docs: "sync_api_calls"). */
#define TKA_PROC_MIN_UTIL                                                                  \
	"(SELECT min(t.utilization) FROM analysis_device_time t JOIN devices v ON v.id = " \
	"t.device_id WHERE t.selected = 1 AND v.process_id IS s.process_id)"

/* gpu_idle: 1 when device d.device_id runs XLA (HLO ops on its kernels, or XLA ops): its
 * fixes speak of jit and lax, not torch.compile (docs: "gpu_idle"). */
#define TKA_DEVICE_RUNS_XLA                                                                     \
	"EXISTS (SELECT 1 FROM analysis_op_profile WHERE device_id = d.device_id AND level IN " \
	"('hlo_op', 'xla_op'))"

/* gpu_idle: the gap cause with the most idle time on device d.device_id (docs: "gpu_idle"),
 * from the gaps' totals per cause and length (analysis_gap_buckets: a few rows per device where
 * analysis_gaps has one per gap). */
#define TKA_IDLE_TOP_CAUSE                                                                \
	"(SELECT cause FROM analysis_gap_buckets WHERE device_id = d.device_id GROUP BY " \
	"cause ORDER BY sum(total_ns) DESC, cause LIMIT 1)"

/* gpu_idle: whether device d.device_id has sync gaps, from their buckets (a few rows): its
 * sync calls are then found among its gaps (a scan of every gap of the device), else none. */
#define TKA_DEVICE_HAS_SYNC_GAPS                                                                \
	"EXISTS (SELECT 1 FROM analysis_gap_buckets WHERE device_id = d.device_id AND cause = " \
	"'sync')"

/* Long kernels at low occupancy (docs: "low_occupancy"). */
#define TKA_LOWOCC_COND \
	"occupancy IS NOT NULL AND occupancy < 0.25 AND median_ns >= 100000 AND tensor_core = 0"

/* A duration in ns as text in the unit that suits it (s, ms, us, ns). */
#define TKA_HUMAN_NS(x)                                                                       \
	"(CASE WHEN (" x ") >= 1e9 THEN printf('%.2f s', (" x ") / 1e9) WHEN (" x ") >= 1e6 " \
	"THEN printf('%.2f ms', (" x ") / 1e6) WHEN (" x ") >= 1e3 THEN printf('%.1f us', "   \
	"(" x ") / 1e3) ELSE printf('%d ns', (" x ")) END)"

/*
 * The KPI's detail.top ([{name, n, ns}], in its order) as the offenders'
 * [{name, occurrences, total_ns}], in a rule whose one analysis_kpi row has column detail.
 */
#define TKA_TOP_NAMES                                                                     \
	"(SELECT json_group_array(json_object('name', json_extract(j.value, '$.name'), "  \
	"'occurrences', json_extract(j.value, '$.n'), 'total_ns', json_extract(j.value, " \
	"'$.ns'))) FROM json_each(detail, '$.top') j)"

/*
 * launch_queue_empty: the host ops (5 at most) on host threads of device d's process that overlap
 * its longest stretch with nothing in flight, by overlap, then the shorter (the inner) first
 * (docs: "launch_queue_empty"). Each thread's ops through its (track, start) index, from the
 * longest host op of the process (the op profile's max_ns) before the stretch: no op that starts
 * earlier reaches into it (a scan of every event before).
 */
#define TKA_HOST_OPS_IN_EMPTY                                                                      \
	"(SELECT json_group_array(json_object('name', name, 'overlap_ns', ov, 'dur_ns', dur, "     \
	"'start_ns', ts)) FROM (SELECT s.str AS name, min(e.ts_ns + e.dur_ns, "                    \
	"d.longest_empty_start_ns + d.longest_empty_ns) - max(e.ts_ns, d.longest_empty_start_ns) " \
	"AS ov, e.dur_ns AS dur, e.ts_ns AS ts FROM tracks t CROSS JOIN events e ON "              \
	"t.id = e.track_id JOIN strings s ON s.id = e.name_id WHERE e.kind = " TK_SQL_EV_HOST_OP   \
	" AND t.device_id IS NULL AND "                                                            \
	"t.process_id = (SELECT process_id FROM devices WHERE id = d.device_id) AND e.ts_ns < "    \
	"d.longest_empty_start_ns + d.longest_empty_ns AND e.ts_ns >= d.longest_empty_start_ns - " \
	"(SELECT coalesce(max(max_ns), 0) FROM analysis_op_profile WHERE level = 'host_op' AND "   \
	"process_id = t.process_id) AND e.ts_ns + e.dur_ns > "                                     \
	"d.longest_empty_start_ns ORDER BY ov DESC, dur, e.id LIMIT 5))"

/* Every column but id (the rowid: the finding number). */
#define INS                                                                              \
	"INSERT INTO analysis_findings (rule, severity, device_id, process_id, metric, " \
	"threshold, summary, evidence, fix) "
TKA_WRITES(TK_NCOLS_ANALYSIS_FINDINGS, 1 + 9, "analysis_findings");

static const struct rule rules[] = {
    {"small_kernels", "analysis_kpi",
     INS "SELECT 'small_kernels', CASE WHEN k.value >= 80 THEN 'high' ELSE 'medium' END, "
	 "k.device_id, NULL, k.value, 50, "
	 "printf('%.1f%% of the %d %s on device %d run under %d us: launch overhead "
	 "dominates', k.value, json_extract(k.detail, '$.kernels'), "
	 "json_extract(k.detail, '$.population'), k.device_id, ?1 / 1000), "
	 "json_object('population', json_extract(k.detail, '$.population'), 'kernels', "
	 "json_extract(k.detail, '$.kernels'), 'small_kernels', json_extract(k.detail, "
	 "'$.small'), 'small_kernel_ns', ?1, 'small_share_count_pct', k.value, "
	 "'small_share_time_pct', (SELECT value FROM analysis_kpi WHERE device_id = "
	 "k.device_id AND kpi = 'small_kernel_share_time'), 'top', " TKA_TOP_NAMES "), "
	 "'Fuse small ops (torch.compile, XLA fusion, fused optimizers), capture repeated "
	 "launches in CUDA graphs, and batch work into fewer, larger kernels.' "
	 "FROM analysis_kpi k WHERE k.kpi = 'small_kernel_share_count' AND k.value >= 50 AND "
	 "json_extract(k.detail, '$.kernels') >= 100 ORDER BY k.device_id"},
    {"gpu_idle", "analysis_device_time analysis_gaps analysis_gap_buckets analysis_op_profile",
     INS "SELECT 'gpu_idle', CASE WHEN 100.0 * d.idle_ns / d.window_ns >= 50 THEN 'high' "
	 "ELSE 'medium' END, d.device_id, NULL, 100.0 * d.idle_ns / d.window_ns, 20, "
	 "printf('device %d is idle %.1f%% of its %s window (%d ns); most idle time is %s', "
	 "d.device_id, 100.0 * d.idle_ns / d.window_ns, d.window, d.idle_ns, "
	 "coalesce(" TKA_IDLE_TOP_CAUSE ", 'unattributed')), "
	 "json_patch(json_object('window', d.window, 'window_ns', d.window_ns, 'idle_ns', "
	 "d.idle_ns, 'idle_pct', 100.0 * d.idle_ns / d.window_ns, 'by_cause', (SELECT "
	 "json_group_object(cause, ns) FROM (SELECT cause, sum(total_ns) AS ns FROM "
	 "analysis_gap_buckets "
	 "WHERE device_id = d.device_id GROUP BY cause ORDER BY cause)), 'top', (SELECT "
	 "json_group_array(json_patch(json_object('start_ns', start_ns, 'dur_ns', dur_ns, "
	 "'cause', cause, 'before', prev_name, 'after', next_name), CASE WHEN explained_by_name "
	 "IS NULL THEN '{}' ELSE json_object('explained_by', explained_by_name) END)) FROM "
	 "(SELECT * FROM analysis_gaps WHERE id IN (SELECT id FROM analysis_gaps WHERE "
	 "device_id = d.device_id ORDER BY dur_ns DESC, start_ns LIMIT 5) ORDER BY dur_ns DESC, "
	 "start_ns))), CASE WHEN " TKA_DEVICE_HAS_SYNC_GAPS " THEN coalesce((SELECT "
	 "json_object('sync_calls', json_group_array("
	 "json_object('name', explained_by_name, 'gaps', n, 'idle_ns', ns))) FROM (SELECT "
	 "explained_by_name, count(*) AS n, sum(dur_ns) AS ns FROM analysis_gaps WHERE "
	 "device_id = d.device_id AND cause = 'sync' GROUP BY explained_by_name ORDER BY ns "
	 "DESC, explained_by_name LIMIT 5) HAVING count(*) > 0), '{}') ELSE '{}' END), "
	 "CASE " TKA_IDLE_TOP_CAUSE " "
	 "WHEN 'host_bound' THEN CASE WHEN " TKA_DEVICE_RUNS_XLA " THEN 'The host dispatches "
	 "work too slowly (each op is launched only after the device went idle): jit the whole "
	 "step rather than many small functions, replace Python loops of jitted calls with "
	 "lax.scan or fori_loop, keep arrays on the device, and prefetch input off the "
	 "dispatching thread.' ELSE 'The host launches work too slowly (each op is launched only "
	 "after the device went idle): cut launch overhead with CUDA graphs and torch.compile, "
	 "launch fewer and larger kernels (larger batches), and move data preparation and other "
	 "Python work off the launching thread.' END "
	 "WHEN 'kernel_wait' THEN 'Most idle time is launch latency between queued kernels "
	 "(gaps under 30 us with the next op already queued): fuse small kernels (torch.compile, "
	 "fused optimizers, XLA fusion) and capture the sequence in CUDA graphs.' "
	 "WHEN 'sync' THEN printf('The device idles while the launching thread blocks in %s: "
	 "remove that synchronization from the loop (.item(), .cpu(), .tolist(), printing a "
	 "tensor, cudaDeviceSynchronize), copy with non_blocking=True from pinned memory, and "
	 "read results once per step or less.', (SELECT explained_by_name FROM analysis_gaps "
	 "WHERE device_id = d.device_id AND cause = 'sync' GROUP BY explained_by_name ORDER BY "
	 "sum(dur_ns) DESC, explained_by_name LIMIT 1)) "
	 "WHEN 'dependency' THEN 'Queued work waits on something the trace does not show (an "
	 "event or stream wait on other work, another device or rank, the order inside a CUDA "
	 "graph): look at what runs on other streams, devices and ranks during the gaps listed, "
	 "and overlap independent work.' "
	 "ELSE 'Find what the device waits for in the gaps listed; link launches to device work "
	 "(correlation ids) to attribute them.' END "
	 "FROM analysis_device_time d WHERE d.selected = 1 AND d.window_ns > 0 AND "
	 "d.idle_ns * 100 >= 20 * d.window_ns ORDER BY d.device_id"},
    {"host_device_copies", "analysis_device_time",
     INS "SELECT 'host_device_copies', CASE WHEN 100.0 * c.ns / d.window_ns >= 20 THEN 'high' "
	 "ELSE 'medium' END, c.device_id, NULL, 100.0 * c.ns / d.window_ns, 5, "
	 "printf('host<->device copies on device %d take %.1f%% of its %s window (%d copies, "
	 "%d bytes; %d pageable)', c.device_id, 100.0 * c.ns / d.window_ns, d.window, c.n, "
	 "c.bytes, c.pageable), "
	 "json_object('copies', c.n, 'bytes', c.bytes, 'copy_ns', c.ns, 'window_ns', "
	 "d.window_ns, 'copy_pct', 100.0 * c.ns / d.window_ns, 'pageable_copies', c.pageable, "
	 "'pageable_bytes', c.pageable_bytes, 'pageable_ns', c.pageable_ns, 'top', (SELECT "
	 "json_group_array(json_object('name', name, 'copy_kind', kind, 'count', n, 'bytes', b, "
	 "'total_ns', ns)) FROM (SELECT s.str AS name, k.name AS kind, count(*) AS n, "
	 "sum(x.bytes) AS b, sum(e.dur_ns) AS ns FROM copy_details x JOIN events e ON e.id = "
	 "x.event_id JOIN tracks t ON t.id = e.track_id JOIN strings s ON s.id = e.name_id "
	 "JOIN copy_kinds k ON k.id = x.copy_kind WHERE t.device_id = c.device_id AND "
	 "x.copy_kind IN (1, 2) GROUP BY 1, 2 ORDER BY ns DESC, name LIMIT 5))), "
	 "'Use pinned host memory (pin_memory=True) with non_blocking copies, keep tensors on "
	 "the device between steps, and overlap the remaining copies with compute on another "
	 "stream.' "
	 "FROM (SELECT t.device_id, count(*) AS n, sum(x.bytes) AS bytes, sum(e.dur_ns) AS ns, "
	 "sum(x.src_mem_kind = 1 OR x.dst_mem_kind = 1) AS pageable, "
	 "sum(CASE WHEN x.src_mem_kind = 1 OR x.dst_mem_kind = 1 THEN x.bytes ELSE 0 END) AS "
	 "pageable_bytes, sum(CASE WHEN x.src_mem_kind = 1 OR x.dst_mem_kind = 1 THEN e.dur_ns "
	 "ELSE 0 END) AS pageable_ns FROM copy_details x JOIN events e ON e.id = x.event_id "
	 "JOIN tracks t ON t.id = e.track_id WHERE x.copy_kind IN (1, 2) AND t.device_id IS NOT "
	 "NULL GROUP BY t.device_id) c "
	 "JOIN analysis_device_time d ON d.device_id = c.device_id AND d.selected = 1 "
	 "WHERE d.window_ns > 0 AND (c.ns * 100 >= 5 * d.window_ns OR c.pageable_ns * 100 >= "
	 "d.window_ns) ORDER BY c.device_id"},
    {"dominant_op", "analysis_op_profile",
     INS "SELECT 'dominant_op', 'medium', o.device_id, NULL, 100 * o.device_share, 50, "
	 "printf('%s %s takes %.1f%% of device %d''s busy time (%d occurrences, %d ns)', "
	 "o.level, o.name, 100 * o.device_share, o.device_id, o.occurrences, o.total_ns), "
	 "json_object('level', o.level, 'name', o.name, 'occurrences', o.occurrences, "
	 "'total_ns', o.total_ns, 'share_pct', 100 * o.device_share, 'top', (SELECT "
	 "json_group_array(json_object('name', name, 'occurrences', occurrences, 'total_ns', "
	 "total_ns, 'share_pct', 100 * device_share)) FROM (SELECT * FROM analysis_op_profile "
	 "WHERE device_id = o.device_id AND level = o.level ORDER BY total_ns DESC, name "
	 "LIMIT 3))), "
	 "'Optimize this op first: check its occupancy and tensor-core use in the kernel stats, "
	 "try other algorithms, shapes or precisions, and see whether it runs more often than "
	 "needed.' "
	 "FROM analysis_op_profile o WHERE o.level IN ('kernel', 'xla_op') AND "
	 "o.device_share > 0.5 ORDER BY o.device_id, o.level, o.total_ns DESC"},
    {"sync_api_calls", "analysis_op_profile analysis_device_time",
     INS "SELECT 'sync_api_calls', CASE WHEN 100.0 * s.ns / m.span >= 10 THEN 'high' ELSE "
	 "'medium' END, NULL, s.process_id, 100.0 * s.ns / m.span, 1, "
	 "printf('synchronous API calls on process %d take %d ns (%.1f%% of the trace) in %d "
	 "calls', s.process_id, s.ns, 100.0 * s.ns / m.span, s.n), "
	 "json_object('calls', s.n, 'total_ns', s.ns, 'trace_ns', m.span, 'pct', "
	 "100.0 * s.ns / m.span, 'device_busy_pct', 100.0 * " TKA_PROC_MIN_UTIL ", "
	 "'top', (SELECT json_group_array(json_object('name', name, "
	 "'calls', occurrences, 'total_ns', total_ns)) FROM (SELECT name, sum(occurrences) AS "
	 "occurrences, sum(total_ns) AS total_ns FROM analysis_op_profile WHERE process_id IS "
	 "s.process_id AND " TKA_SYNC_COND " GROUP BY name ORDER BY total_ns DESC, name LIMIT "
	 "5))), "
	 "'Avoid host-device synchronization in the loop: use the Async copy and memset "
	 "variants, drop explicit device/stream synchronizes, and read results (.item(), "
	 ".cpu()) once per step or less.' "
	 "FROM (SELECT process_id, sum(occurrences) AS n, sum(total_ns) AS ns FROM "
	 "analysis_op_profile WHERE " TKA_SYNC_COND " GROUP BY process_id) s, "
	 "(SELECT (SELECT value FROM meta WHERE key = 'trace_end_ns') - (SELECT value FROM meta "
	 "WHERE key = 'trace_start_ns') AS span) m "
	 "WHERE m.span > 0 AND s.ns * 100 >= m.span AND coalesce(" TKA_PROC_MIN_UTIL ", 0) < "
	 "0.95 ORDER BY s.process_id"},
    {"compilation_in_window", "analysis_kpi analysis_device_time",
     INS "SELECT 'compilation_in_window', CASE WHEN 100.0 * c.ns / d.window_ns >= 10 THEN "
	 "'high' ELSE 'medium' END, d.device_id, NULL, 100.0 * c.ns / d.window_ns, 1, "
	 "printf('compilation takes %d ns inside the %s window of device %d (%.1f%%): %d of "
	 "the %d %s overlap it', c.ns, d.window, d.device_id, 100.0 * c.ns / d.window_ns, "
	 "json_extract(c.detail, '$.events_in_window'), json_extract(c.detail, '$.events'), "
	 "json_extract(c.detail, '$.population')), "
	 "json_object('population', json_extract(c.detail, '$.population'), 'events', "
	 "json_extract(c.detail, '$.events'), 'compile_total_ns', json_extract(c.detail, "
	 "'$.total_ns'), 'events_in_window', json_extract(c.detail, '$.events_in_window'), "
	 "'compile_ns', c.ns, 'window', d.window, 'window_ns', d.window_ns, 'pct', "
	 "100.0 * c.ns / d.window_ns, 'top', " TKA_TOP_NAMES "), "
	 "'Warm up before measuring (exclude the first steps), keep shapes static so that "
	 "graphs are not recompiled, and cache compiled programs.' "
	 "FROM (SELECT device_id, json_extract(detail, '$.in_window_ns') AS ns, detail FROM "
	 "analysis_kpi WHERE kpi = 'compilation_time' AND detail IS NOT NULL) c "
	 "JOIN analysis_device_time d ON d.device_id = c.device_id AND d.selected = 1 "
	 "WHERE d.window_ns > 0 AND c.ns * 100 >= d.window_ns ORDER BY d.device_id"},
    {"low_occupancy", "analysis_kernel_stats analysis_device_time",
     INS "SELECT 'low_occupancy', CASE WHEN 100.0 * k.ns / d.busy_ns >= 25 THEN 'high' ELSE "
	 "'medium' END, k.device_id, NULL, 100.0 * k.ns / d.busy_ns, 5, "
	 "printf('%d kernel configurations on device %d run at occupancy under 25%% for "
	 "%.1f%% of its busy time', k.n, k.device_id, 100.0 * k.ns / d.busy_ns), "
	 "json_object('configurations', k.n, 'total_ns', k.ns, 'busy_ns', d.busy_ns, "
	 "'pct', 100.0 * k.ns / d.busy_ns, 'top', (SELECT json_group_array(json_object("
	 "'name', name, 'occupancy', occupancy, 'source', occupancy_source, 'occurrences', "
	 "occurrences, 'total_ns', total_ns, 'median_ns', median_ns)) FROM (SELECT * FROM "
	 "analysis_kernel_stats WHERE device_id = k.device_id AND " TKA_LOWOCC_COND
	 " ORDER BY total_ns DESC LIMIT 5))), "
	 "'Raise occupancy: fewer registers per thread (launch bounds), less shared memory per "
	 "block, or block sizes that fit more blocks per SM; check the grid covers every SM.' "
	 "FROM (SELECT device_id, count(*) AS n, sum(total_ns) AS ns FROM "
	 "analysis_kernel_stats WHERE " TKA_LOWOCC_COND " GROUP BY device_id) k "
	 "JOIN analysis_device_time d ON d.device_id = k.device_id AND d.window = 'device' "
	 "WHERE d.busy_ns > 0 AND k.ns * 100 >= 5 * d.busy_ns ORDER BY k.device_id"},
    {"exposed_communication", "analysis_device_time",
     INS "SELECT 'exposed_communication', CASE WHEN 100.0 * d.exposed_comm_ns / d.window_ns "
	 ">= 25 THEN 'high' ELSE 'medium' END, d.device_id, NULL, 100.0 * d.exposed_comm_ns / "
	 "d.window_ns, 10, "
	 "printf('communication not overlapped by compute takes %.1f%% of the %s window of "
	 "device %d (%d of %d ns of communication)', 100.0 * d.exposed_comm_ns / d.window_ns, "
	 "d.window, d.device_id, d.exposed_comm_ns, d.comm_ns), "
	 "json_object('comm_ns', d.comm_ns, 'exposed_comm_ns', d.exposed_comm_ns, 'window', "
	 "d.window, 'window_ns', d.window_ns, 'pct', 100.0 * d.exposed_comm_ns / d.window_ns), "
	 "'Overlap communication with compute (DDP gradient buckets, FSDP prefetch, async "
	 "collectives), shrink what is exchanged (lower precision, fewer syncs), and check for "
	 "stragglers in analysis_comm_ranks.' "
	 "FROM analysis_device_time d WHERE d.selected = 1 AND d.window_ns > 0 AND "
	 "d.exposed_comm_ns * 100 >= 10 * d.window_ns ORDER BY d.device_id"},
    {"straggler", "analysis_comm_ranks analysis_comm",
     INS
     "SELECT 'straggler', CASE WHEN r.late_share >= 0.8 THEN 'high' ELSE 'medium' END, "
     "r.device_id, NULL, 100 * r.late_share, 150 * r.expected_share, "
     "printf('rank %s (device %d) started last in %d of its %d matched collectives (%.0f%%; "
     "chance %.0f%%), by %s on average (largest %s): the other ranks waited for it; most "
     "often in %s', coalesce(r.rank, '?'), r.device_id, r.times_last, r.collectives, "
     "100 * r.late_share, 100 * r.expected_share, " TKA_HUMAN_NS(
	 "r.late_skew_ns / "
	 "r.times_last") ", " TKA_HUMAN_NS("r.max_skew_ns") ", (SELECT collective FROM "
							    "analysis_comm WHERE device_id = "
							    "r.device_id AND last = 1 AND "
							    "in_window = 1 GROUP BY "
							    "collective ORDER BY count(*) DESC, "
							    "sum(skew_ns) DESC, collective LIMIT "
							    "1)), "
							    "json_object('rank', r.rank, "
							    "'collectives', r.collectives, "
							    "'times_last', r.times_last, "
							    "'late_share', r.late_share, "
							    "'expected_share', r.expected_share, "
							    "'late_skew_ns', "
							    "r.late_skew_ns, 'mean_late_skew_ns', "
							    "r.late_skew_ns / r.times_last, "
							    "'max_skew_ns', "
							    "r.max_skew_ns, 'top', (SELECT "
							    "json_group_array(json_object('"
							    "collective', collective, "
							    "'process_group', process_group, "
							    "'times_last', n, 'skew_ns', ns, "
							    "'max_skew_ns', mx)) "
							    "FROM (SELECT collective, "
							    "process_group, count(*) AS n, "
							    "sum(skew_ns) AS ns, "
							    "max(skew_ns) AS mx FROM analysis_comm "
							    "WHERE device_id = r.device_id AND "
							    "last = 1 AND "
							    "in_window = 1 GROUP BY collective, "
							    "process_group ORDER BY n DESC, ns "
							    "DESC, collective "
							    "LIMIT 5))), "
							    "'Find why this rank arrives late: "
							    "compare its step breakdown with the "
							    "other ranks "
							    "(input pipeline, host overhead, a "
							    "slower or throttled GPU, more work on "
							    "this rank), "
							    "balance the work across ranks and "
							    "check its host for interference. A "
							    "skew that is "
							    "the same in every collective can also "
							    "be a clock offset between hosts.' "
							    "FROM analysis_comm_ranks r WHERE "
							    "r.straggler = 1 ORDER BY r.device_id"},
    /* clock_offset (issue 19, part c): a host clock offset that distorts the straggler test */
    {"clock_offset", "analysis_clock_offsets",
     INS
     "SELECT 'clock_offset', 'medium', NULL, NULL, abs(o.offset_ns) / 1e3, "
     "max(10, 3 * o.uncertainty_ns / 1e3), "
     "printf('the clock of host %s is %s %s the clock of host %s (+/- %s, from %d "
     "collectives): ranks are compared on unaligned clocks', o.host, " TKA_HUMAN_NS(
	 "abs(o.offset_ns)") ", CASE WHEN o.offset_ns > 0 THEN 'ahead of' ELSE 'behind' END, "
			     "o.reference_host, " TKA_HUMAN_NS(
				 "o.uncertainty_ns") ", o.collectives), "
						     "json_object('host', o.host, "
						     "'reference_host', o.reference_host, "
						     "'offset_ns', "
						     "o.offset_ns, 'uncertainty_ns', "
						     "o.uncertainty_ns, 'collectives', "
						     "o.collectives), "
						     "'Run tracekit analyze --align-clocks: skews, "
						     "waits and stragglers are then measured on "
						     "clocks aligned by this offset (the events "
						     "are not rewritten).' "
						     "FROM analysis_clock_offsets o WHERE "
						     "o.applied = 0 AND o.offset_ns IS NOT NULL "
						     "AND "
						     "o.host <> o.reference_host AND "
						     "abs(o.offset_ns) >= 10000 AND "
						     "abs(o.offset_ns) >= 3 * "
						     "o.uncertainty_ns ORDER BY o.rowid"},
    {"input_bound_steps", "analysis_steps",
     INS "SELECT 'input_bound_steps', CASE WHEN 100.0 * s.host / s.dur >= 20 THEN 'high' "
	 "ELSE 'medium' END, s.device_id, NULL, 100.0 * s.host / s.dur, 10, "
	 "printf('device %d waits on the host for %.1f%% of its step time (%d ns over %d "
	 "steps)', s.device_id, 100.0 * s.host / s.dur, s.host, s.n), "
	 "json_object('steps', s.n, 'step_ns', s.dur, 'host_idle_ns', s.host, 'pct', "
	 "100.0 * s.host / s.dur, 'top', (SELECT json_group_array(json_object('step_num', "
	 "step_num, 'dur_ns', dur_ns, 'host_idle_ns', host_idle_ns)) FROM (SELECT * FROM "
	 "analysis_steps WHERE device_id = s.device_id ORDER BY host_idle_ns DESC, start_ns "
	 "LIMIT 5))), "
	 "'Feed the device faster: more DataLoader workers with prefetching and pinned memory, "
	 "preprocessing moved off the training loop, and input copies overlapped with the "
	 "previous step.' "
	 "FROM (SELECT device_id, count(*) AS n, sum(dur_ns) AS dur, sum(host_idle_ns) AS host "
	 "FROM analysis_steps GROUP BY device_id) s "
	 "WHERE s.dur > 0 AND s.host * 100 >= 10 * s.dur ORDER BY s.device_id"},
    {"step_time_mismatch", "analysis_step_stats",
     INS "SELECT 'step_time_mismatch', CASE WHEN s.diff >= 50 THEN 'high' ELSE 'medium' END, "
	 "s.device_id, NULL, s.diff, 10, "
	 "printf('device %d steps take %.3f ms (median, placed on the device by %s) against "
	 "%.3f ms on the host (%.1f%% apart): %s', s.device_id, s.median_ns / 1e6, "
	 "CASE s.source WHEN 'device_annotation' THEN 'its ProfilerStep annotations' WHEN "
	 "'launches' THEN 'the work each host step launched' ELSE 'several sources (see "
	 "analysis_steps)' "
	 "END, "
	 "s.host_median_ns / 1e6, s.diff, CASE WHEN s.median_ns > s.host_median_ns THEN 'the "
	 "host runs ahead and the GPU queue is deep, so host step times understate the step' "
	 "ELSE 'the device finishes each step early and waits for the host' END), "
	 "json_object('steps', s.steps, 'source', s.source, 'device_median_ns', s.median_ns, "
	 "'host_median_ns', s.host_median_ns, 'lag_median_ns', s.lag_median_ns, 'pct', s.diff), "
	 "CASE WHEN s.median_ns > s.host_median_ns THEN 'Judge the step by its device time "
	 "(this report''s step figures): the device is the bottleneck, so shorten the kernels "
	 "on the critical path (op profile) rather than the host code.' ELSE 'Cut the host''s "
	 "work per step: data loading off the training loop, less Python per step, CUDA graphs "
	 "or torch.compile to cut launch overhead.' END "
	 "FROM (SELECT *, 100.0 * abs(median_ns - host_median_ns) / host_median_ns AS diff "
	 "FROM analysis_step_stats WHERE host_steps > 0 AND source NOT IN ('host', 'device') "
	 "AND host_median_ns > 0) s WHERE s.diff >= 10 ORDER BY s.device_id"},
    {"launch_queue_empty", "analysis_queue_length analysis_op_profile",
     INS
     "SELECT 'launch_queue_empty', CASE WHEN d.empty_share >= 0.3 THEN 'high' ELSE 'medium' "
     "END, d.device_id, NULL, 100 * d.empty_share, 10, "
     "printf('device %d has nothing launched or running %.1f%% of its %s window (%s; the "
     "longest stretch %s): the host does not keep its launch queues filled', d.device_id, "
     "100 * d.empty_share, d.window, " TKA_HUMAN_NS("d.empty_ns") ", " TKA_HUMAN_NS(
	 "d.longest_empty_ns") "), "
			       "json_object('window', d.window, 'window_ns', d.window_ns, "
			       "'empty_ns', d.empty_ns, "
			       "'empty_pct', 100 * d.empty_share, 'longest_empty_ns', "
			       "d.longest_empty_ns, "
			       "'longest_empty_start_ns', d.longest_empty_start_ns, 'mean_length', "
			       "d.mean_length, "
			       "'ops', d.ops, 'launched', d.launched, 'top', " TKA_HOST_OPS_IN_EMPTY
			       "), "
			       "CASE WHEN " TKA_DEVICE_RUNS_XLA
			       " THEN 'Keep the device fed: jit the whole step "
			       "rather than many small functions, replace Python loops of jitted "
			       "calls with lax.scan "
			       "or fori_loop, and move input preparation off the dispatching "
			       "thread.' ELSE 'Keep the "
			       "launch queue filled: capture the step (or its repeated part) in a "
			       "CUDA graph "
			       "(torch.compile mode=\"reduce-overhead\"), launch fewer and larger "
			       "kernels (larger "
			       "batches, fusion), and move Python and data work off the launching "
			       "thread.' END "
			       "FROM analysis_queue_length d WHERE d.track_id IS NULL AND "
			       "d.window_ns > 0 AND "
			       "d.empty_ns * 10 >= d.window_ns AND d.launched > 0 AND d.launched * "
			       "2 >= d.ops "
			       "ORDER BY d.device_id"},
    {"device_bound_queue", "analysis_queue_length analysis_launch_stats",
     INS
     "SELECT 'device_bound_queue', 'medium', d.device_id, NULL, 100 * d.waiting_share, "
     "50, printf('launched work waits for device %d %.1f%% of its %s window (up to %d "
     "operations queued, %.1f on average; %s from the launch call''s end to the start on "
     "average): the device, not the host, sets the pace', d.device_id, 100 * "
     "d.waiting_share, d.window, d.max_waiting, d.mean_waiting, " TKA_HUMAN_NS(
	 "l.q") "), "
		"json_object('window', d.window, 'window_ns', d.window_ns, 'waiting_pct', 100 * "
		"d.waiting_share, 'max_waiting', d.max_waiting, 'mean_waiting', d.mean_waiting, "
		"'launches', l.n, 'mean_queue_delay_ns', l.q, 'top', (SELECT json_group_array("
		"json_object('name', name, 'launches', launches, 'mean_queue_delay_ns', "
		"queue_mean_ns, "
		"'device_ns', device_ns)) FROM (SELECT * FROM analysis_launch_stats WHERE "
		"device_id = "
		"d.device_id ORDER BY queue_mean_ns * launches DESC, name LIMIT 5))), "
		"'Not a host problem: the host runs ahead and launch overhead hides behind device "
		"work, so CUDA graphs or fewer launches will not shorten the step. Shorten the "
		"device "
		"work instead: the kernels with the most device time (op profile, kernel stats), "
		"their "
		"precision, fusion and occupancy.' "
		"FROM analysis_queue_length d JOIN (SELECT device_id, sum(launches) AS n, "
		"sum(queue_mean_ns * launches) / sum(launches) AS q FROM analysis_launch_stats "
		"GROUP "
		"BY device_id) l ON l.device_id = d.device_id WHERE d.track_id IS NULL AND "
		"d.window_ns > 0 AND d.waiting_share >= 0.5 AND l.q >= 100000 ORDER BY "
		"d.device_id"},
    {"low_compute_efficiency", "analysis_roofline analysis_launch_stats",
     INS
     "SELECT 'low_compute_efficiency', CASE WHEN r.eff < 25 AND r.share >= 30 THEN 'high' "
     "ELSE 'medium' END, r.device_id, NULL, r.eff, 40, "
     "printf('%s ops run at %.1f%% of the %s peak for %.1f%% of the launched device time of "
     "device %d (%s at %.3g TFLOP/s)', upper(r.category), r.eff, r.dtype, r.share, "
     "r.device_id, " TKA_HUMAN_NS(
	 "r.ns") ", r.flops * 1e-3 / r.ns), "
		 "json_object('category', r.category, 'dtype', r.dtype, 'efficiency_pct', r.eff, "
		 "'device_ns', r.ns, 'launched_ns', r.launched, 'share_pct', r.share, 'flops', "
		 "r.flops, "
		 "'groups', r.groups, 'top', (SELECT json_group_array(json_object('name', name, "
		 "'input_dims', input_dims, 'dtype', dtype, 'calls', calls, 'device_ns', "
		 "device_ns, "
		 "'tflops', achieved_flops * 1e-12, 'peak_pct', 100 * peak_share, 'bound', bound)) "
		 "FROM "
		 "(SELECT * FROM analysis_roofline x WHERE x.device_id = r.device_id AND "
		 "x.category = "
		 "r.category AND x.peak_share IS NOT NULL ORDER BY x.device_ns * (1 - "
		 "x.peak_share) "
		 "DESC, x.name LIMIT 3))), "
		 "CASE WHEN r.dtype IN ('fp32', 'fp64') THEN 'Run them in a tensor-core dtype: "
		 "bf16 or "
		 "fp16 autocast (torch.autocast, jax default_matmul_precision), or at least TF32 "
		 "(torch.backends.cuda.matmul.allow_tf32 = True): the ' || r.dtype || ' peak is a "
		 "fraction of the tensor-core one. Then ' ELSE '' END || 'Make the shapes "
		 "tile-friendly "
		 "(dimensions multiples of 8 for 16-bit types, of 64 ideally; avoid tiny or skinny "
		 "GEMMs), batch small ones (bmm, grouped GEMMs) and fuse what is memory-bound "
		 "around "
		 "them (torch.compile, XLA fusion); the worst groups are listed by the time they "
		 "lose.' "
		 "FROM (SELECT x.device_id, x.category, (SELECT dtype FROM analysis_roofline y "
		 "WHERE "
		 "y.device_id = x.device_id AND y.category = x.category AND y.peak_flops > 0 GROUP "
		 "BY "
		 "dtype ORDER BY sum(device_ns) DESC, dtype LIMIT 1) AS dtype, count(*) AS groups, "
		 "sum(x.device_ns) AS ns, sum(x.flops) AS flops, 100 * sum(x.flops) / "
		 "sum(x.device_ns "
		 "* 1e-9 * x.peak_flops) AS eff, l.ns AS launched, 100.0 * sum(x.device_ns) / l.ns "
		 "AS "
		 "share FROM analysis_roofline x JOIN (SELECT device_id, sum(device_ns) AS ns FROM "
		 "analysis_launch_stats GROUP BY device_id) l ON l.device_id = x.device_id WHERE "
		 "x.category IN ('gemm', 'conv', 'attention') AND x.peak_flops > 0 AND x.flops > 0 "
		 "AND l.ns > 0 GROUP BY x.device_id, x.category) r WHERE r.eff < 40 AND r.share >= "
		 "10 "
		 "ORDER BY r.device_id, r.ns DESC"},
    /* ---- load balance across ranks (balance.c): the slowest rank's extra load ---- */
    {"rank_imbalance", "analysis_balance_slowest analysis_balance",
     INS "SELECT 'rank_imbalance', CASE WHEN 100 * (b.imbalance - 1) >= 25 THEN 'high' ELSE "
	 "'medium' END, b.device_id, NULL, 100 * (b.imbalance - 1), 10, b.summary, "
	 "json_object('basis', b.basis, 'rank', b.rank, 'host', b.host, 'load_ns', b.load_ns, "
	 "'others_ns', b.others_ns, 'extra_ns', b.extra_ns, 'imbalance', b.imbalance, "
	 "'component', b.component, 'component_extra_ns', b.component_ns, 'top', (SELECT "
	 "json_group_array(json_object('name', metric, 'slowest_ns', slowest_ns, 'others_ns', "
	 "others_ns, 'extra_ns', extra_ns)) FROM (SELECT * FROM analysis_balance WHERE "
	 "component = 1 ORDER BY extra_ns DESC, rowid))), "
	 "printf('Rank %d does more work than the others, which wait for it in their "
	 "collectives. ', b.rank) || CASE b.component "
	 "WHEN 'compute' THEN 'Its extra time is compute: give it the same work (shard data by "
	 "tokens rather than samples, bucket variable-length batches, balance pipeline stages "
	 "and expert placement), and check its GPU (clocks, thermal throttling, a slower or "
	 "shared device).' "
	 "WHEN 'host_idle' THEN 'Its device waits for its host: look at that rank''s input "
	 "pipeline (dataloader workers, CPU affinity, storage) and host-side work per step.' "
	 "WHEN 'exposed_memcpy' THEN 'Its extra time is copies no compute hides: copy "
	 "non_blocking from pinned memory, and keep the data that rank copies on the device.' "
	 "ELSE 'Its device idles where the others work: look for synchronizations and waits on "
	 "that rank (the idle gaps of its device, by cause).' END "
	 "FROM analysis_balance_slowest b WHERE b.imbalance IS NOT NULL AND "
	 "100 * (b.imbalance - 1) >= 10"},
};

static int have_table(struct tka_ctx *c, const char *name, size_t len)
{
	sqlite3_stmt *q = NULL;
	int found = 0;
	if (sqlite3_prepare_v2(c->db,
			       "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", -1,
			       &q, NULL) == SQLITE_OK) {
		sqlite3_bind_text(q, 1, name, (int)len, SQLITE_STATIC);
		found = sqlite3_step(q) == SQLITE_ROW;
	}
	sqlite3_finalize(q);
	return found;
}

/* 1 when every table named in @needs exists. */
static int inputs_present(struct tka_ctx *c, const char *needs)
{
	for (const char *p = needs; *p;) {
		size_t n = strcspn(p, " ");
		if (n && !have_table(c, p, n))
			return 0;
		p += n;
		while (*p == ' ')
			p++;
	}
	return 1;
}

/* The rules that compare ranks: on a job summary (tracekit merge --summary) they run again over
 * the job's cross-rank tables, while the other findings are the ranks' own, copied. */
static const char *const cross_rank_rules[] = {"straggler", "clock_offset", "rank_imbalance"};

static int is_cross_rank(const char *name)
{
	for (size_t i = 0; i < sizeof(cross_rank_rules) / sizeof(cross_rank_rules[0]); i++)
		if (!strcmp(name, cross_rank_rules[i]))
			return 1;
	return 0;
}

/* Run the rules (@cross_rank_only: only those of cross_rank_rules). */
static int run_rules(struct tka_ctx *c, int cross_rank_only)
{
	sqlite3_stmt *st = NULL;
	int rc = TK_OK;
	for (size_t i = 0; rc == TK_OK && i < sizeof(rules) / sizeof(rules[0]); i++) {
		if (cross_rank_only && !is_cross_rank(rules[i].name))
			continue;
		if (!inputs_present(c, rules[i].needs))
			continue;
		if ((rc = tka_prepare(c, rules[i].sql, &st)) != TK_OK)
			break;
		if (sqlite3_bind_parameter_count(st) >= 1)
			sqlite3_bind_int64(st, 1, c->opt->small_kernel_ns);
		if (sqlite3_step(st) != SQLITE_DONE)
			rc = tka_fail(c, tka_sql_status(c), "finding rule %s: %s", rules[i].name,
				      sqlite3_errmsg(c->db));
		sqlite3_finalize(st);
		st = NULL;
	}
	return rc;
}

int tka_findings(struct tka_ctx *c)
{
	return run_rules(c, 0);
}

int tka_findings_cross_rank(struct tka_ctx *c)
{
	sqlite3_stmt *del = NULL;
	int rc = tka_prepare(c, "DELETE FROM analysis_findings WHERE rule = ?1", &del);
	for (size_t i = 0;
	     rc == TK_OK && i < sizeof(cross_rank_rules) / sizeof(cross_rank_rules[0]); i++) {
		sqlite3_reset(del);
		sqlite3_bind_text(del, 1, cross_rank_rules[i], -1, SQLITE_STATIC);
		if (sqlite3_step(del) != SQLITE_DONE)
			rc = tka_fail(c, tka_sql_status(c), "dropping the copied %s findings: %s",
				      cross_rank_rules[i], sqlite3_errmsg(c->db));
	}
	sqlite3_finalize(del);
	return rc == TK_OK ? run_rules(c, 1) : rc;
}

-- tracekit analysis schema: the single source of truth for the analysis_* tables that
-- `tracekit analyze` writes into a store (docs/metrics.md defines every figure; docs/store.md lists
-- the tables for SQL users).
--
-- The library embeds this file at build time (cmake/embed.cmake). tk_analyze() (analyze/analyze.c)
-- drops every table declared here and runs this file once, inside the analysis transaction; each
-- analysis then only inserts its rows. The build also generates tk_schema.h from this file
-- (schemas/schema_gen.c): each table's name and column list (TK_COLS_<TABLE>, TK_NCOLS_<TABLE>) for
-- the writers' INSERTs, whose static checks break the build when a column is added or removed.
--
-- Above each table: what it holds, where docs/metrics.md defines it, the file that writes it and
-- every other source file that names it (read by). tests/store/schema_links.sh checks both lists
-- against the source tree, and tests/store/schema_docs.sh checks docs/store.md against the columns.
-- Changing a table's columns changes its shape: bump TK_ANALYSIS_VERSION (include/tracekit/analyze.h).

-- analysis_device_peaks: Per device and dtype the dense peak FLOP/s, and per device the peak memory
-- bandwidth, resolved from the built-in table, the store's devices row and --device-file
-- (docs/peaks.md).
-- Defined in: docs/metrics.md, "analysis_device_peaks".
-- written by: analyze/peaks.c
-- read by: analyze/kpi.c, analyze/roofline.c, cli/cmd_analyze.c, report/report_sections.c
CREATE TABLE analysis_device_peaks (
  device_id INTEGER NOT NULL,   -- devices.id
  dtype TEXT,                   -- fp64, fp32, tf32, bf16, fp16, fp8 or int8; NULL on the one row of a device whose only known peak is its bandwidth
  peak_flops REAL,              -- dense peak of dtype, FLOP/s (int8: OP/s); NULL with dtype
  flops_source TEXT,            -- where peak_flops comes from: 'user' (--peak-flops or the device file), 'trace' (devices.peak_flops, taken as bf16) or 'table' (the built-in row named in model); NULL with dtype
  peak_bandwidth_bps INTEGER,   -- the device's peak memory bandwidth, bytes/s (the same on each of its rows); NULL when unknown
  bandwidth_source TEXT,        -- 'user', 'trace' (devices.memory_bandwidth_bps) or 'table'; NULL when unknown
  model TEXT,                   -- the matched model: the device file entry's "model", else the built-in row the device matched (docs/peaks.md); NULL when neither
  note TEXT NOT NULL            -- how the device was matched and what each source gave
);

-- analysis_device_time: Per device and window: the exact busy time and its compute, communication
-- and copy parts, exposed communication and copies, idle time and utilization.
-- Defined in: docs/metrics.md, "analysis_device_time".
-- written by: analyze/device_time.c
-- read by: analyze/balance.c, analyze/findings.c, analyze/op_profile.c, analyze/summary.c,
--          check/baseline.c, cli/cmd_analyze.c, report/diff.c, report/report_model.c,
--          report/report_sections.c
CREATE TABLE analysis_device_time (
  device_id INTEGER NOT NULL,         -- devices.id (devices without device work have no rows)
  window TEXT NOT NULL,               -- 'device': first op start to last op end; 'steps': union of the step intervals
  selected INTEGER NOT NULL,          -- 1 for the window the other analyses use (--window), else 0
  start_ns INTEGER,                   -- start of the window's first span, ns; NULL when the window is empty
  end_ns INTEGER,                     -- end of the window's last span, ns; NULL when empty
  window_ns INTEGER NOT NULL,         -- length of the window: sum of its spans' lengths
  spans INTEGER NOT NULL,             -- number of disjoint spans the window has
  ops INTEGER NOT NULL,               -- device operations that start inside the window
  busy_ns INTEGER NOT NULL,           -- |union of all operations ∩ window|
  compute_ns INTEGER NOT NULL,        -- |union of compute operations (non-comm kernels, memsets) ∩ window|
  comm_ns INTEGER NOT NULL,           -- |union of communication kernels ∩ window|
  memcpy_ns INTEGER NOT NULL,         -- |union of copies ∩ window|
  exposed_comm_ns INTEGER NOT NULL,   -- |(comm − compute) ∩ window|
  exposed_memcpy_ns INTEGER NOT NULL, -- |(copies − compute − comm) ∩ window|
  idle_ns INTEGER NOT NULL,           -- window_ns − busy_ns
  utilization REAL                    -- busy_ns / window_ns; NULL when window_ns = 0
);

-- analysis_gaps: Every maximal idle (not-busy) interval of each device inside its selected window,
-- with its cause and the events on either side.
-- Defined in: docs/metrics.md, "analysis_gaps".
-- written by: analyze/gaps.c
-- read by: analyze/findings.c, import/merge_tables.c, report/report_sections.c
CREATE TABLE analysis_gaps (
  id INTEGER PRIMARY KEY,      -- gap number, in (device_id, start_ns) order
  device_id INTEGER NOT NULL,  -- devices.id
  window TEXT NOT NULL,        -- the device's selected window ('device' or 'steps', see analysis_device_time)
  start_ns INTEGER NOT NULL,   -- start of the not-busy interval (clipped to the window)
  end_ns INTEGER NOT NULL,     -- its end (clipped to the window)
  dur_ns INTEGER NOT NULL,     -- end_ns − start_ns, > 0
  cause TEXT NOT NULL,         -- host_bound: next op launched after the not-busy interval began; else (queued) kernel_wait: the interval is < 30 us; sync: a blocking synchronization on the launching thread overlaps it; dependency: none does; unknown: no next op or no launch linked
  launch_ts_ns INTEGER,        -- start of the API call that launched the next op, NULL when none is linked
  prev_event_id INTEGER,       -- events.id of the op that ended the busy time before, NULL when none
  prev_name TEXT,              -- its name
  next_event_id INTEGER,       -- events.id of the op that starts the busy time after, NULL when none
  next_name TEXT,              -- its name
  explained_by_event_id INTEGER, -- sync: events.id of the synchronization (blocking API call or sync event) on the launching thread that overlaps the interval the most; else NULL
  explained_by_name TEXT       -- its name (cudaStreamSynchronize, cudaMemcpy, ...)
);

-- analysis_gap_buckets: The gaps of analysis_gaps per device, cause and decade of length: their
-- count, total and longest (what the reports' gap sections sum; a job summary keeps it whole).
-- Defined in: docs/metrics.md, "analysis_gap_buckets".
-- written by: analyze/gaps.c
-- read by: analyze/findings.c, cli/cmd_analyze.c, import/merge_tables.c,
--          report/report_sections.c
CREATE TABLE analysis_gap_buckets (
  device_id INTEGER NOT NULL,  -- devices.id
  window TEXT NOT NULL,        -- the device's selected window, as analysis_gaps.window
  cause TEXT NOT NULL,         -- analysis_gaps.cause
  lo_ns INTEGER NOT NULL,      -- the bucket holds the gaps with lo_ns <= dur_ns < hi_ns: 0, 1000, 10000, ..., 1000000000
  hi_ns INTEGER,               -- 10 * lo_ns (1000 for the first), NULL for the last (>= 1 s)
  gaps INTEGER NOT NULL,       -- analysis_gaps rows of the device, cause and bucket (> 0: empty buckets have no row)
  total_ns INTEGER NOT NULL,   -- the sum of their dur_ns
  longest_ns INTEGER NOT NULL  -- the greatest of their dur_ns
);

-- analysis_gap_summary: Idle time per stream in HTA's categories (host wait, kernel wait, other).
-- Defined in: docs/metrics.md, "analysis_gap_summary".
-- written by: analyze/gaps.c
-- read by: (none: there for SQL users)
CREATE TABLE analysis_gap_summary (
  device_id INTEGER NOT NULL,  -- devices.id
  track_id INTEGER NOT NULL,   -- tracks.id of the stream (or derived device line)
  stream_id INTEGER,           -- tracks.stream_id
  window TEXT NOT NULL,        -- the device's selected window
  category TEXT NOT NULL,      -- host_wait, kernel_wait (< 30 us), other, or overlap (next op started before the stream's previous ops ended)
  count INTEGER NOT NULL,      -- intervals in the category (zero-length ones included in host_wait/kernel_wait)
  total_ns INTEGER NOT NULL,   -- sum of their lengths (overlap: of the overlapped amounts, positive)
  min_ns INTEGER NOT NULL,     -- shortest
  max_ns INTEGER NOT NULL      -- longest
);

-- analysis_steps: Every step of each device, its duration split exactly into compute, exposed
-- communication, exposed copies, host-bound idle and other idle, with the host step beside it.
-- Defined in: docs/metrics.md, "analysis_steps, analysis_step_stats".
-- written by: analyze/steps.c
-- read by: analyze/balance.c, analyze/findings.c, analyze/summary.c, check/baseline.c,
--          export/perfetto_tracks.c, report/report_sections.c
CREATE TABLE analysis_steps (
  device_id INTEGER NOT NULL,         -- devices.id the breakdown is of
  step_event_id INTEGER NOT NULL,     -- events.id of the step
  step_num INTEGER,                   -- step_details.step_num, NULL when unknown
  start_ns INTEGER NOT NULL,          -- step start
  end_ns INTEGER NOT NULL,            -- step end
  dur_ns INTEGER NOT NULL,            -- end_ns − start_ns
  busy_ns INTEGER NOT NULL,           -- |device busy ∩ step|
  compute_ns INTEGER NOT NULL,        -- |compute ∩ step|
  comm_ns INTEGER NOT NULL,           -- |communication ∩ step| (overlapped or not)
  exposed_comm_ns INTEGER NOT NULL,   -- |(comm − compute) ∩ step|
  exposed_memcpy_ns INTEGER NOT NULL, -- |(copies − compute − comm) ∩ step|
  host_idle_ns INTEGER NOT NULL,      -- not-busy time in the step whose cause is host_bound
  other_idle_ns INTEGER NOT NULL,     -- the rest of the not-busy time (kernel_wait, sync, dependency, unknown)
  outlier INTEGER NOT NULL,           -- 1 when dur_ns > analysis_step_stats.threshold_ns (3 or more steps)
  source TEXT NOT NULL,               -- where start_ns/end_ns come from: device (a step on the device's own tracks), device_annotation (the device-side ProfilerStep#N), launches (the device work launched inside the host step), host (the host step)
  host_start_ns INTEGER,              -- the host step's start; NULL for a device's own step
  host_end_ns INTEGER,                -- the host step's end; NULL for a device's own step
  host_dur_ns INTEGER,                -- host_end_ns − host_start_ns (host step time)
  lag_ns INTEGER                      -- start_ns − host_start_ns: how far the device runs behind the host
);

-- analysis_step_stats: Per device the step-time statistics (mean, median, p90, stddev, MAD) and the
-- outlier rule.
-- Defined in: docs/metrics.md, "analysis_steps, analysis_step_stats".
-- written by: analyze/steps.c
-- read by: analyze/findings.c, check/baseline.c, cli/cmd_analyze.c, report/diff.c,
--          report/report_sections.c
CREATE TABLE analysis_step_stats (
  device_id INTEGER NOT NULL,   -- devices.id
  steps INTEGER NOT NULL,       -- number of steps
  total_ns INTEGER NOT NULL,    -- sum of dur_ns
  mean_ns REAL NOT NULL,        -- total_ns / steps
  median_ns REAL NOT NULL,      -- middle dur_ns (mean of the two middle ones when even)
  p90_ns INTEGER NOT NULL,      -- nearest rank: the ceil(0.9 * steps)-th smallest dur_ns
  stddev_ns REAL NOT NULL,      -- population standard deviation of dur_ns
  min_ns INTEGER NOT NULL,      -- shortest step
  max_ns INTEGER NOT NULL,      -- longest step
  mad_ns REAL NOT NULL,         -- median of |dur_ns − median_ns|
  threshold_ns REAL NOT NULL,   -- median_ns + 3 * max(mad_ns, median_ns / 100)
  outliers INTEGER NOT NULL,    -- steps with dur_ns > threshold_ns (0 when fewer than 3 steps)
  source TEXT NOT NULL,         -- the steps' source when they share one, else mixed
  host_steps INTEGER NOT NULL,  -- steps with a host interval
  host_mean_ns REAL,            -- mean host_dur_ns (host step time); NULL without host steps
  host_median_ns REAL,          -- median host_dur_ns
  lag_median_ns REAL            -- median lag_ns
);

-- analysis_step_ops: Device time per step and per name: the device operations that start inside
-- each step, grouped by name and by the HLO op they carry.
-- Defined in: docs/metrics.md, "analysis_step_ops".
-- written by: analyze/step_ops.c
-- read by: analyze/op_gpu_time.c, check/baseline.c, import/merge_tables.c
CREATE TABLE analysis_step_ops (
  device_id  INTEGER NOT NULL, -- devices.id
  step_index INTEGER NOT NULL, -- the step's place among the device's steps by start (analysis_steps order), from 0
  step_num   INTEGER,          -- step_details.step_num of the step, NULL when unknown
  level      TEXT NOT NULL,    -- 'kernel': device operations by name (kernels, copies, sets; XLA ops on devices without kernels); 'hlo_op': by the HLO op they carry
  name       TEXT NOT NULL,    -- the operation's name, or the HLO op's name
  calls      INTEGER NOT NULL, -- operations of that name that start inside the step
  total_ns   INTEGER NOT NULL  -- sum of their durations (whole durations, also when an operation ends after the step)
);

-- analysis_comm: Every collective, matched across the devices that ran it, with its duration,
-- bytes, bandwidth and the wait of the earliest rank. With --align-clocks, skews and waits compare
-- starts shifted by their host's analysis_clock_offsets.offset_ns; start_ns stays the store's time.
-- Defined in: docs/metrics.md, "analysis_comm, analysis_comm_ranks".
-- written by: analyze/comm.c
-- read by: analyze/findings.c, report/report_sections.c, analyze/analyze.c, import/merge.c
CREATE TABLE analysis_comm (
  device_id INTEGER NOT NULL,  -- devices.id of this member
  rank INTEGER,                -- devices.rank, else its process's rank; NULL when unknown
  collective TEXT NOT NULL,    -- kernel name of the collective
  process_group TEXT,          -- 'Process Group Name' arg of the kernel, NULL when absent
  seq INTEGER,                 -- 'Seq' arg of the kernel (sequence number in its process group), NULL when absent
  nelems INTEGER,              -- 'In msg nelems' arg, NULL when absent
  dtype TEXT,                  -- 'dtype' arg, NULL when absent
  matched_by TEXT,             -- 'seq' (process group and Seq), 'order' (call order), NULL when unmatched
  instance INTEGER,            -- number of the matched collective, shared by its members; NULL when unmatched
  event_id INTEGER NOT NULL,   -- events.id of the kernel
  start_ns INTEGER NOT NULL,   -- kernel start
  dur_ns INTEGER NOT NULL,     -- kernel duration
  in_window INTEGER NOT NULL,  -- 1 when start_ns lies in the device's selected window
  members INTEGER NOT NULL,    -- devices in this collective (1 when unmatched)
  skew_ns INTEGER,             -- start_ns − earliest start among the members; NULL when unmatched
  wait_ns INTEGER,             -- min(latest start among the members − start_ns, dur_ns); NULL when unmatched
  threshold_ns INTEGER,        -- significant spread: max(10 us, ceil(median member dur_ns / 10)); NULL when unmatched
  last INTEGER NOT NULL        -- 1 when this member started last and the spread (latest − earliest start) >= threshold_ns
);

-- analysis_comm_ranks: Per device the communication totals across ranks, and whether it is a
-- straggler.
-- Defined in: docs/metrics.md, "analysis_comm, analysis_comm_ranks".
-- written by: analyze/comm.c
-- read by: analyze/analyze.c, analyze/balance.c, analyze/findings.c, cli/cmd_analyze.c,
--          report/report_sections.c
CREATE TABLE analysis_comm_ranks (
  device_id INTEGER NOT NULL,  -- devices.id
  rank INTEGER,                -- as in analysis_comm
  collectives INTEGER NOT NULL,-- matched collectives it took part in, in_window = 1
  unmatched INTEGER NOT NULL,  -- its communication kernels in the window left unmatched
  times_last INTEGER NOT NULL, -- of the matched ones, how many it was late in (last = 1)
  late_share REAL NOT NULL,    -- times_last / collectives (0 when none)
  expected_share REAL NOT NULL,-- mean over its collectives of 1 / members (chance level; 0 when none)
  total_skew_ns INTEGER NOT NULL, -- sum of skew_ns (matched, in the window)
  max_skew_ns INTEGER NOT NULL,   -- largest skew_ns (same rows)
  late_skew_ns INTEGER NOT NULL,  -- sum of skew_ns where last = 1: the delay it imposed on the earliest member
  comm_ns INTEGER NOT NULL,       -- |communication kernels ∩ window| (as analysis_device_time)
  total_wait_ns INTEGER NOT NULL, -- |union of the members' wait intervals [start_ns, start_ns + wait_ns) ∩ window| <= comm_ns
  straggler INTEGER NOT NULL   -- 1 when times_last >= 3 and late_share > 1.5 * expected_share
);

-- analysis_clock_offsets: Per host the offset of its clock from the reference host's, estimated
-- from the ends of matched collectives, with its uncertainty and whether it was applied.
-- Defined in: docs/metrics.md, "analysis_clock_offsets".
-- written by: analyze/clock.c
-- read by: analyze/analyze.c, analyze/findings.c, cli/cmd_analyze.c, report/report_sections.c
CREATE TABLE analysis_clock_offsets (
  host TEXT NOT NULL,           -- host name (devices.host_id, else its process's host_id)
  reference_host TEXT NOT NULL, -- the host every offset is measured from: the host of the lowest rank
  devices INTEGER NOT NULL,     -- devices of this host with communication kernels
  offset_ns INTEGER,            -- this host's clock minus the reference host's clock (0 on the reference host); NULL when not estimated (no path of host pairs sharing >= 3 matched collectives)
  uncertainty_ns INTEGER,       -- half-width of the approximate 95 % rank-based confidence interval of the median, summed along the path from the reference host; NULL with offset_ns
  collectives INTEGER NOT NULL, -- matched collectives the estimate rests on (the fewest of its path's host pairs; on the reference host: those it shares with any host); 0 when not estimated
  via_host TEXT,                -- the host it was reached through (its parent in the spanning tree); NULL on the reference host and when not estimated
  applied INTEGER NOT NULL      -- 1 when --align-clocks shifted this host's members by -offset_ns in analysis_comm and analysis_comm_ranks
);

-- analysis_op_profile: Per op and level (host op, kernel, XLA op and module, framework op, API
-- calls, sync waits, HLO ops, idle) its occurrences, total and self time, min/avg/max and share of
-- busy time.
-- Defined in: docs/metrics.md, "Op profile".
-- written by: analyze/op_profile.c
-- read by: analyze/analyze.c, analyze/findings.c, check/baseline.c, report/diff.c,
--          report/report_sections.c
CREATE TABLE analysis_op_profile (
  level        TEXT NOT NULL, -- event_kinds.name: host_op, kernel, xla_op, xla_module, framework_op, runtime_api, driver_api, sync, async_xla_op; hlo_op (device ops grouped by the HLO op they carry); or idle
  device_id    INTEGER,       -- devices.id of the tracks the op ran on, NULL on host tracks
  process_id   INTEGER,       -- processes.id of the host tracks, NULL for device rows
  module       TEXT,          -- op_details.hlo_module of the events, NULL when none
  category     TEXT,          -- op_details.op_category, else events.category, NULL when none
  name         TEXT NOT NULL, -- event name ('IDLE' for the idle row)
  occurrences  INTEGER,       -- number of events (NULL for IDLE)
  total_ns     INTEGER NOT NULL, -- sum of durations (IDLE: the device's idle_ns)
  self_ns      INTEGER NOT NULL, -- sum of self times: time each event was the innermost open event of its track
  avg_ns       REAL,          -- total_ns / occurrences
  min_ns       INTEGER,       -- shortest duration
  max_ns       INTEGER,       -- longest duration
  device_share REAL           -- total_ns / busy_ns of the device (analysis_device_time, window 'device'); NULL on the host, for IDLE and async_xla_op (in flight, not busy), or when busy is unknown or 0
);

-- analysis_hlo_op_kernels: Per device and HLO op (XLA on GPU) the kernels it ran as, with their
-- share of its time.
-- Defined in: docs/metrics.md, "Op profile".
-- written by: analyze/op_profile.c
-- read by: report/report_sections.c
CREATE TABLE analysis_hlo_op_kernels (
  device_id   INTEGER NOT NULL, -- devices.id
  module      TEXT,             -- op_details.hlo_module, NULL when none
  hlo_op      TEXT NOT NULL,    -- op_details.hlo_op the device ops carry
  kernel      TEXT NOT NULL,    -- name of the device op (kernel, copy or set) it ran as
  occurrences INTEGER NOT NULL, -- device ops of that name for that HLO op
  total_ns    INTEGER NOT NULL, -- sum of their durations
  hlo_share   REAL NOT NULL     -- total_ns / the HLO op's total (its hlo_op row)
);

-- analysis_op_gpu_time: GPU time per CPU op and per annotation: the device time of everything each
-- host op or annotation launched (its own launches, and its whole subtree).
-- Defined in: docs/metrics.md, "GPU time by operator".
-- written by: analyze/op_gpu_time.c
-- read by: analyze/analyze.c, analyze/op_perf.c, report/report_sections.c
CREATE TABLE analysis_op_gpu_time (
  process_id   INTEGER,          -- processes.id of the host thread, NULL when unknown
  level        TEXT NOT NULL,    -- 'host_op' (CPU ops) or 'annotation' (user ranges: record_function, NVTX, TK_SCOPE, TraceMe)
  name         TEXT NOT NULL,    -- the op's or annotation's name
  calls        INTEGER NOT NULL, -- its events on the process's host threads
  direct_ops   INTEGER NOT NULL, -- device operations it launched as the innermost one
  direct_ns    INTEGER NOT NULL, -- their summed durations
  subtree_ops  INTEGER NOT NULL, -- device operations launched anywhere inside it (itself or what it calls; a name nested in itself counts once)
  subtree_ns   INTEGER NOT NULL, -- their summed durations
  direct_share REAL,             -- direct_ns / all launched device time of the process (NULL when that is 0)
  category     TEXT              -- host ops: what the op does (docs/metrics.md, "Categories": gemm, conv, attention, ...); NULL for annotations
);

-- analysis_op_gpu_steps: The same GPU time per op, per step.
-- Defined in: docs/metrics.md, "GPU time by operator".
-- written by: analyze/op_gpu_time.c
-- read by: report/report_sections.c
CREATE TABLE analysis_op_gpu_steps (
  device_id  INTEGER NOT NULL,   -- devices.id the launched device operations ran on
  step       INTEGER NOT NULL,   -- the step's index among the device's analysis_steps rows (in start order, from 0)
  step_num   INTEGER,            -- its step_num, NULL when unknown
  process_id INTEGER,            -- processes.id of the launching thread, NULL when unknown
  name       TEXT,               -- the innermost annotation open at the launch; NULL: none was open
  ops        INTEGER NOT NULL,   -- device operations it launched that start in the step
  device_ns  INTEGER NOT NULL,   -- their summed durations
  step_share REAL NOT NULL       -- device_ns / the summed durations of all launched device operations that start in the step on the device
);

-- analysis_categories: Device time by category (gemm, conv, attention, ...) per device, scope
-- (whole window or step) and category.
-- Defined in: docs/metrics.md, "Device time by category".
-- written by: analyze/categories.c
-- read by: report/report_sections.c
CREATE TABLE analysis_categories (
  device_id  INTEGER NOT NULL, -- devices.id
  scope      TEXT NOT NULL,    -- 'window': the device's selected window (analysis_device_time.selected = 1); 'step': one step of analysis_steps
  window     TEXT,             -- scope 'window': that window's name, 'device' or 'steps' (analysis_device_time.window); NULL for steps
  step_index INTEGER,          -- scope 'step': the step's place among the device's steps by start (analysis_steps order, as analysis_step_ops), from 0; NULL for the window
  step_num   INTEGER,          -- scope 'step': step_details.step_num, NULL when unknown and for the window
  category   TEXT NOT NULL,    -- gemm, conv, attention, norm, elementwise, reduction, comm, memcpy, memset or other (docs/metrics.md, "Categories")
  ops        INTEGER NOT NULL, -- device operations of the category that start inside the scope (> 0: categories without one have no row)
  device_ns  INTEGER NOT NULL, -- sum of their whole durations (device time spent, not busy time: overlapping operations count each)
  share      REAL              -- device_ns / the sum of device_ns over the scope's categories (the shares of a scope add up to 1); NULL when that sum is 0
);

-- analysis_categories by device, scope and step (the report reads a device's scopes in this order).
CREATE INDEX analysis_categories_by_scope ON analysis_categories (device_id, scope, step_index);

-- analysis_op_perf: The modelled FLOPs and bytes of op groups (PyTorch ops by name, shapes and
-- dtype; XLA ops) against the device time they launched.
-- Defined in: docs/metrics.md, "Op performance model".
-- written by: analyze/op_perf.c
-- read by: analyze/analyze.c, analyze/kpi.c, analyze/roofline.c, report/report_sections.c
CREATE TABLE analysis_op_perf (
  level           TEXT NOT NULL,    -- 'host_op' (PyTorch ops, modelled from their record_shapes args) or 'hlo_op' (XLA ops with the trace's cost stats)
  process_id      INTEGER,          -- host_op: processes.id of the op's thread (NULL when unknown); hlo_op: NULL
  device_id       INTEGER,          -- hlo_op: devices.id the ops ran on; host_op: NULL
  name            TEXT NOT NULL,    -- the op's name, or the HLO op's
  module          TEXT,             -- hlo_op: the HLO module, NULL when none; host_op: NULL
  input_dims      TEXT,             -- host_op: the 'Input Dims' arg as stored (compact JSON); with the next two, the group's shape key
  input_types     TEXT,             -- host_op: the 'Input type' arg as stored
  concrete_inputs TEXT,             -- host_op: the 'Concrete Inputs' arg as stored, NULL when the trace has none
  launched        INTEGER NOT NULL, -- 1: the calls launched device work; 0: they launched none (work on the CPU, or no work): no rates
  model           TEXT NOT NULL,    -- gemm, conv, attention, elementwise, reduction, normalization (host_op); xla (hlo_op: the trace's own figures)
  dtype           TEXT,             -- the dtype that sets the peak: the first input tensor's (fp32, tf32, bf16, fp16, fp8, fp64, int8, ...); NULL when unknown (hlo_op)
  calls           INTEGER NOT NULL, -- host_op: calls counted (not inside another counted modelled op); hlo_op: device operations
  flops           INTEGER NOT NULL, -- modelled floating-point operations of all calls
  bytes           INTEGER NOT NULL, -- modelled bytes read and written of all calls (a lower bound: each tensor once)
  flops_per_call  REAL NOT NULL,    -- flops / calls
  bytes_per_call  REAL NOT NULL,    -- bytes / calls
  device_ops      INTEGER NOT NULL, -- device operations the calls launched, their whole subtree (hlo_op: the device operations)
  device_ns       INTEGER NOT NULL, -- the summed durations of those device operations
  flops_per_s     REAL,             -- flops / device_ns x 1e9; NULL when device_ns = 0
  bytes_per_s     REAL,             -- bytes / device_ns x 1e9; NULL when device_ns = 0
  intensity       REAL,             -- flops / bytes (FLOP per byte); NULL when bytes = 0
  note            TEXT              -- a caveat of the model for these calls, or NULL
);

-- analysis_op_perf_summary: Per process and device the modelled share of device time and the
-- achieved rates.
-- Defined in: docs/metrics.md, "Op performance model".
-- written by: analyze/op_perf.c
-- read by: analyze/analyze.c, report/report_sections.c
CREATE TABLE analysis_op_perf_summary (
  level          TEXT NOT NULL,    -- 'host_op' (per process) or 'hlo_op' (per device)
  process_id     INTEGER,          -- host_op: processes.id (NULL when unknown)
  device_id      INTEGER,          -- hlo_op: devices.id
  launched_ns    INTEGER NOT NULL, -- host_op: device time launched from inside the process's host ops (each launch once, by its innermost op); hlo_op: the summed durations of the device operations that carry an HLO op
  modelled_ns    INTEGER NOT NULL, -- of it, launched inside counted modelled ops (host_op) or by HLO ops with cost stats (hlo_op)
  modelled_share REAL,             -- modelled_ns / launched_ns; NULL when launched_ns = 0
  flops          INTEGER NOT NULL, -- modelled FLOPs of the calls that launched device work
  bytes          INTEGER NOT NULL, -- modelled bytes of the same calls
  flops_per_s    REAL,             -- flops / modelled_ns x 1e9; NULL when modelled_ns = 0
  bytes_per_s    REAL              -- bytes / modelled_ns x 1e9 (the memory bandwidth KPI's achieved figure); NULL when modelled_ns = 0
);

-- analysis_op_perf_unmodelled: The op names the performance model could not read or has no model
-- for, by device time.
-- Defined in: docs/metrics.md, "Op performance model".
-- written by: analyze/op_perf.c
-- read by: analyze/analyze.c, report/report_sections.c
CREATE TABLE analysis_op_perf_unmodelled (
  level      TEXT NOT NULL,    -- 'host_op' or 'hlo_op'
  process_id INTEGER,          -- host_op: processes.id (NULL when unknown)
  device_id  INTEGER,          -- hlo_op: devices.id
  name       TEXT NOT NULL,    -- the op (HLO op) without figures
  reason     TEXT NOT NULL,    -- why: 'no model for this op', 'no shapes recorded (record_shapes off)', 'unreadable shapes', 'convolution parameters not recorded', ...
  calls      INTEGER NOT NULL, -- host_op: its calls not inside a counted modelled op; hlo_op: device operations
  device_ops INTEGER NOT NULL, -- device operations launched directly by those calls (innermost op; hlo_op: the operations)
  device_ns  INTEGER NOT NULL  -- their summed durations
);

-- analysis_roofline: Every modelled op group that launched device time, placed on its device with
-- its category, achieved FLOP/s and bandwidth, and the roof that bounds it.
-- Defined in: docs/metrics.md, "Roofline".
-- written by: analyze/roofline.c
-- read by: analyze/findings.c, analyze/kpi.c, report/report_sections.c
CREATE TABLE analysis_roofline (
  device_id     INTEGER NOT NULL, -- devices.id the group's device work ran on
  level         TEXT NOT NULL,    -- 'host_op' or 'hlo_op' (as analysis_op_perf)
  process_id    INTEGER,          -- host_op: processes.id; hlo_op: NULL
  name          TEXT NOT NULL,    -- the op (HLO op)
  input_dims    TEXT,             -- host_op: the group's Input Dims; hlo_op: NULL
  dtype         TEXT,             -- the dtype that sets the peak (host_op: the model's; hlo_op: bf16, the XLA default)
  category      TEXT NOT NULL,    -- docs/metrics.md, "Categories" (gemm, conv, ...)
  calls         INTEGER NOT NULL, -- calls (hlo_op: device operations)
  device_ns     INTEGER NOT NULL, -- device time launched by the calls (their subtree)
  flops         INTEGER NOT NULL, -- modelled FLOPs
  bytes         INTEGER NOT NULL, -- modelled bytes (a lower bound)
  achieved_flops REAL NOT NULL,   -- flops / device_ns x 1e9, FLOP/s
  achieved_bps  REAL NOT NULL,    -- bytes / device_ns x 1e9, bytes/s
  intensity     REAL,             -- flops / bytes, FLOP per byte; NULL when bytes = 0
  peak_flops    REAL,             -- the device's dense peak for dtype; NULL unknown
  peak_bandwidth_bps REAL,        -- the device's peak memory bandwidth; NULL unknown
  ridge         REAL,             -- peak_flops / peak_bandwidth_bps, FLOP per byte
  bound         TEXT,             -- 'compute' (intensity >= ridge) or 'memory'; NULL when either is unknown
  peak_share    REAL,             -- achieved_flops / peak_flops
  bandwidth_share REAL,           -- achieved_bps / peak_bandwidth_bps
  roof_share    REAL              -- achieved_flops / min(peak_flops, intensity x peak_bandwidth_bps): how close to the roof at its intensity; NULL when unknown
);

-- analysis_kernel_stats: Kernels grouped by device, name, grid, block, registers and shared memory,
-- with duration statistics, occupancy and tensor core use.
-- Defined in: docs/metrics.md, "Kernel stats".
-- written by: analyze/kernel_stats.c
-- read by: analyze/findings.c, report/diff.c, report/report_sections.c
CREATE TABLE analysis_kernel_stats (
  rank         INTEGER NOT NULL, -- 1 = largest total_ns (ties: device, name id, config)
  device_id    INTEGER,  -- devices.id of the kernels' tracks
  name         TEXT NOT NULL, -- kernel name (events.name)
  grid_x INTEGER, grid_y INTEGER, grid_z INTEGER,    -- kernel_details grid, NULL unknown
  block_x INTEGER, block_y INTEGER, block_z INTEGER, -- kernel_details block, NULL unknown
  registers    INTEGER,  -- registers per thread, NULL when unknown
  static_smem  INTEGER,  -- static shared memory per block, bytes, NULL when unknown
  dynamic_smem INTEGER,  -- dynamic shared memory per block, bytes, NULL when unknown
  shared_mem   INTEGER,  -- static_smem + dynamic_smem (a NULL one counts 0; NULL if both)
  occurrences  INTEGER NOT NULL, -- kernels in the group
  total_ns     INTEGER NOT NULL, -- sum of durations
  avg_ns       REAL NOT NULL,    -- total_ns / occurrences
  min_ns       INTEGER NOT NULL, -- shortest duration
  max_ns       INTEGER NOT NULL, -- longest duration
  median_ns    REAL NOT NULL,    -- middle duration; even count: mean of the two middle ones
  stddev_ns    REAL NOT NULL,    -- population standard deviation (divides by occurrences)
  occupancy    REAL,     -- 0..1: theoretical, computed by the project's calculator; else the source's figure; NULL when neither
  occupancy_source TEXT, -- 'computed', 'source' or NULL: where occupancy comes from
  tensor_core  INTEGER NOT NULL, -- 1 when the name matches a tensor-core pattern
  source_occupancy REAL  -- 0..1: the source's own figure (duration-weighted mean of its non-zero values), NULL when it has none
);

-- analysis_memory: Per device, process and allocator the bytes in use over time: the peak and when,
-- allocations, frees and fragmentation.
-- Defined in: docs/metrics.md, "Memory".
-- written by: analyze/memory.c
-- read by: analyze/analyze.c, check/baseline.c, report/report_sections.c, import/merge_tables.c
CREATE TABLE analysis_memory (
  series_id    INTEGER PRIMARY KEY, -- one (device, process, allocator) series, from 1
  device_id    INTEGER,  -- memory_records.device_id, NULL for host memory
  process_id   INTEGER,  -- memory_records.process_id
  allocator    TEXT,     -- allocator name, NULL when the source names none
  basis        TEXT NOT NULL, -- 'reported': bytes_in_use as the source reports it on every record; 'summed': live allocations made in the trace
  records      INTEGER NOT NULL, -- memory records of the series
  allocs       INTEGER NOT NULL, -- of which allocations
  frees        INTEGER NOT NULL, -- of which frees
  unmatched_frees INTEGER NOT NULL, -- frees with no live allocation at their address
  first_ns     INTEGER NOT NULL, -- time of the first record
  last_ns      INTEGER NOT NULL, -- time of the last record
  peak_bytes   INTEGER NOT NULL, -- greatest bytes in use after any record
  peak_ns      INTEGER NOT NULL, -- time of the first record that reached it
  peak_record_id INTEGER NOT NULL, -- memory_records.id of that record
  end_bytes    INTEGER NOT NULL, -- bytes in use after the last record
  live_at_peak INTEGER NOT NULL, -- allocations made in the trace and live at the peak
  live_bytes_at_peak INTEGER NOT NULL, -- their bytes (= peak_bytes when basis is summed)
  reserved_at_peak INTEGER, -- bytes_reserved reported on the peak record, NULL if none
  reported_peak_bytes INTEGER, -- max peak_bytes_in_use reported (allocator lifetime), NULL if none
  fragmentation_at_peak REAL, -- fragmentation on the peak record: as reported, else computed (see fragmentation_source); NULL if neither
  max_fragmentation REAL, -- max fragmentation reported, NULL if none
  fragmentation_source TEXT -- 'reported'; 'computed': (reserved_at_peak - peak_bytes) / reserved_at_peak, the share of reserved memory not in use (PyTorch's definition), when the source reports reserved bytes but no fragmentation; NULL when neither
);

-- analysis_memory_timeline: The bytes in use over time, downsampled, per device, process and
-- allocator.
-- Defined in: docs/metrics.md, "Memory".
-- written by: analyze/memory.c
-- read by: analyze/analyze.c, report/report_sections.c
CREATE TABLE analysis_memory_timeline (
  series_id  INTEGER NOT NULL, -- analysis_memory.series_id
  bucket     INTEGER NOT NULL, -- 0..999: equal slices of the device's record span
  start_ns   INTEGER NOT NULL, -- first ns of the bucket
  end_ns     INTEGER NOT NULL, -- first ns after the bucket
  records    INTEGER NOT NULL, -- records of the series in the bucket (empty buckets are left out)
  max_bytes  INTEGER NOT NULL, -- greatest bytes in use after a record in the bucket
  max_ns     INTEGER NOT NULL, -- time of the first record that reached max_bytes
  min_bytes  INTEGER NOT NULL, -- least bytes in use after a record in the bucket
  last_bytes INTEGER NOT NULL  -- bytes in use after the bucket's last record
);

-- analysis_memory_live_at_peak: The allocations live at each peak, with the host op that made them.
-- Defined in: docs/metrics.md, "Memory" and "analysis_memory_live_at_peak".
-- written by: analyze/memory.c
-- read by: analyze/analyze.c, analyze/enclosing.c, report/report_sections.c
CREATE TABLE analysis_memory_live_at_peak (
  series_id    INTEGER NOT NULL, -- analysis_memory.series_id
  rank         INTEGER NOT NULL, -- 1 = largest (ties: earlier allocation first)
  record_id    INTEGER NOT NULL, -- memory_records.id of the allocation
  address      INTEGER,  -- its address, NULL when not reported
  bytes        INTEGER NOT NULL, -- its size
  alloc_ns     INTEGER NOT NULL, -- when it was made
  op_event_id  INTEGER,  -- events.id of the op that made it (record's op, else the enclosing host op)
  op_name      TEXT,     -- that op's name, or the record's op_name
  op_source    TEXT      -- 'record', 'name', 'enclosing' or NULL when unknown
);

-- analysis_memory_histogram: Allocation sizes by power-of-two bucket.
-- Defined in: docs/metrics.md, "Memory".
-- written by: analyze/memory.c
-- read by: analyze/analyze.c
CREATE TABLE analysis_memory_histogram (
  series_id INTEGER NOT NULL, -- analysis_memory.series_id
  lo_bytes  INTEGER NOT NULL, -- smallest size of the bucket (0, 1, 2, 4, ...)
  hi_bytes  INTEGER,          -- first size above the bucket (1 for size 0; 2 * lo_bytes); NULL for the last
  allocs    INTEGER NOT NULL, -- allocations of a size in [lo_bytes, hi_bytes)
  bytes     INTEGER NOT NULL  -- their total size
);

-- analysis_kpi: Per device the KPI table with its seed bands: utilization, kernel durations, small
-- kernels, host overhead, memory bandwidth, compilation time.
-- Defined in: docs/metrics.md, "analysis_kpi".
-- written by: analyze/kpi.c
-- read by: analyze/findings.c, check/baseline.c, cli/cmd_analyze.c, report/diff.c,
--          report/report_sections.c
CREATE TABLE analysis_kpi (
  device_id INTEGER NOT NULL, -- devices.id
  kpi TEXT NOT NULL,          -- gpu_utilization, kernel_duration_median, small_kernel_share_count, small_kernel_share_time, host_overhead, memory_bandwidth, compute_throughput, compilation_time
  value REAL,                 -- the figure in unit; NULL when it cannot be known
  unit TEXT NOT NULL,         -- '%' or 'ns'
  band TEXT NOT NULL,         -- good, warning, bad, or n-a (no band, or value unknown)
  window TEXT NOT NULL,       -- 'device', 'steps' (the selected window) or 'trace'
  note TEXT NOT NULL,         -- how it was computed, or why it is n-a
  detail TEXT                 -- JSON: the figures behind value and the population it is over (docs/metrics.md, analysis_kpi); NULL when value is or the KPI has none
);

-- analysis_launch_stats: Per device, kind and name of device operation: the duration of the API
-- call that launched it and the delay from that call to the operation (HTA's kernel launch stats).
-- Defined in: docs/metrics.md, "Kernel launches".
-- written by: analyze/launch_stats.c
-- read by: analyze/findings.c, report/report_sections.c
CREATE TABLE analysis_launch_stats (
  device_id     INTEGER NOT NULL, -- devices.id of the operations
  kind          TEXT NOT NULL,    -- event_kinds.name: kernel, memcpy, memset (xla_op)
  name          TEXT NOT NULL,    -- the operations' name
  ops           INTEGER NOT NULL, -- operations of this device, kind and name
  launches      INTEGER NOT NULL, -- of which linked to a launching API call (the rows below are over these)
  device_ns     INTEGER NOT NULL, -- summed durations of the launched operations
  call_total_ns INTEGER NOT NULL, -- summed durations of their launch calls (a call that launched several operations counts for each)
  call_mean_ns  REAL NOT NULL,    -- launch call duration: mean
  call_median_ns REAL NOT NULL,   -- middle value (mean of the two middle ones when even)
  call_p90_ns   INTEGER NOT NULL, -- nearest rank: the ceil(0.9 n)-th smallest
  call_max_ns   INTEGER NOT NULL, -- longest
  delay_mean_ns REAL NOT NULL,    -- launch delay = op start - call start: mean
  delay_median_ns REAL NOT NULL,  -- its median (as above)
  delay_p90_ns  INTEGER NOT NULL, -- its p90 (as above)
  delay_max_ns  INTEGER NOT NULL, -- its largest
  queue_mean_ns REAL NOT NULL,    -- queue delay = max(0, op start - call end) (HTA's launch_delay): mean
  queue_median_ns REAL NOT NULL,  -- its median
  queue_p90_ns  INTEGER NOT NULL, -- its p90
  queue_max_ns  INTEGER NOT NULL, -- its largest
  call_outliers INTEGER NOT NULL, -- launches whose call took > 50 us (HTA's runtime_cutoff)
  delay_outliers INTEGER NOT NULL, -- launches whose queue delay is > 100 us (HTA's launch_delay_cutoff)
  short_launches INTEGER NOT NULL, -- launches whose call took <= 50 us and whose operation ran shorter than the call (HTA's short GPU kernels: launch overhead dominates)
  short_share   REAL NOT NULL     -- short_launches / launches
);

-- analysis_queue_length: Per stream the queue length statistics: how many launched operations it
-- holds that have not finished, and how many of those have not started.
-- Defined in: docs/metrics.md, "Queue length".
-- written by: analyze/queue_length.c
-- read by: analyze/findings.c, report/report_sections.c
CREATE TABLE analysis_queue_length (
  device_id    INTEGER NOT NULL, -- devices.id
  track_id     INTEGER,          -- tracks.id of the stream; NULL: the whole device (its streams added up)
  stream_id    INTEGER,          -- tracks.stream_id, NULL on the device row or when the track has none
  window       TEXT NOT NULL,    -- the device's selected window: device or steps
  window_ns    INTEGER NOT NULL, -- its length (the figures below are inside it)
  ops          INTEGER NOT NULL, -- device operations of the stream (whole trace)
  launched     INTEGER NOT NULL, -- of which linked to a launching API call
  max_length   INTEGER NOT NULL, -- most operations in flight (launched or running, not finished) at once, held for a positive time inside the window
  mean_length  REAL,             -- time-weighted mean of that count over the window (NULL when window_ns is 0)
  empty_ns     INTEGER NOT NULL, -- window time with no operation in flight
  empty_share  REAL,             -- empty_ns / window_ns (the share with length >= 1 is 1 - empty_share)
  longest_empty_ns INTEGER NOT NULL, -- the longest stretch of it (a window span clips a stretch)
  longest_empty_start_ns INTEGER, -- where that stretch starts (the earliest on a tie); NULL when there is none
  max_waiting  INTEGER NOT NULL, -- most operations launched but not started at once (HTA's queue length), held for a positive time inside the window
  mean_waiting REAL,             -- its time-weighted mean over the window
  waiting_share REAL             -- share of the window with at least one operation waiting
);

-- analysis_queue_timeline: The queue length of each stream over time, downsampled.
-- Defined in: docs/metrics.md, "Queue length".
-- written by: analyze/queue_length.c
-- read by: report/report_sections.c
CREATE TABLE analysis_queue_timeline (
  device_id   INTEGER NOT NULL, -- devices.id
  track_id    INTEGER,          -- tracks.id of the stream, NULL for the whole device
  bucket      INTEGER NOT NULL, -- 0..999: equal slices of the window's hull (first span start to last span end, holes included)
  start_ns    INTEGER NOT NULL, -- first ns of the bucket
  end_ns      INTEGER NOT NULL, -- first ns after it
  max_length  INTEGER NOT NULL, -- most operations in flight held for a positive time in the bucket
  mean_length REAL NOT NULL,    -- time-weighted mean of that count over the bucket
  max_waiting INTEGER NOT NULL  -- most operations waiting held for a positive time
);

-- analysis_findings: Findings: rules that name a bottleneck with the numbers behind it, the top
-- offenders and a fix (each rule one INSERT ... SELECT over the tables above).
-- Defined in: docs/metrics.md, "Findings".
-- written by: analyze/findings.c
-- read by: cli/cmd_analyze.c, report/report_sections.c
CREATE TABLE analysis_findings (
  id         INTEGER PRIMARY KEY, -- finding number, in rule order then device
  rule       TEXT NOT NULL, -- rule name (docs/metrics.md, 'Findings')
  severity   TEXT NOT NULL, -- high or medium, by the rule's documented bands
  device_id  INTEGER,       -- devices.id it is about, NULL for host-side findings
  process_id INTEGER,       -- processes.id for host-side findings, else NULL
  metric     REAL NOT NULL, -- the figure compared with the threshold (percent)
  threshold  REAL NOT NULL, -- the threshold it met (metric >= threshold fires)
  summary    TEXT NOT NULL, -- one sentence with the numbers
  evidence   TEXT NOT NULL, -- JSON object: the numbers behind it and the top offenders
  fix        TEXT NOT NULL  -- what to try
);

-- ---- load balance across ranks (analyze/balance.c) ----

-- analysis_balance_ranks: Per rank and device the window figures, the device step time and its
-- breakdown, the load (time not waiting in communication) and which member is the slowest;
-- only when at least two ranks have device work.
-- Defined in: docs/metrics.md, "Load balance across ranks".
-- written by: analyze/balance.c
-- read by: analyze/analyze.c, report/report_sections.c
CREATE TABLE analysis_balance_ranks (
  device_id INTEGER NOT NULL,          -- devices.id of the member
  rank INTEGER NOT NULL,               -- devices.rank, else its process's rank
  host TEXT,                           -- the device's host name, else its process's; NULL when unknown
  window TEXT NOT NULL,                -- its selected window ('device' or 'steps', analysis_device_time)
  window_ns INTEGER NOT NULL,          -- analysis_device_time.window_ns of that window
  busy_ns INTEGER NOT NULL,            -- busy_ns of that window
  compute_ns INTEGER NOT NULL,         -- compute_ns of that window
  comm_ns INTEGER NOT NULL,            -- comm_ns of that window
  exposed_comm_ns INTEGER NOT NULL,    -- exposed_comm_ns of that window
  exposed_memcpy_ns INTEGER NOT NULL,  -- exposed_memcpy_ns of that window
  idle_ns INTEGER NOT NULL,            -- idle_ns of that window
  wait_ns INTEGER,                     -- analysis_comm_ranks.total_wait_ns; NULL without that row
  steps INTEGER NOT NULL,              -- its steps that are not outliers (analysis_steps.outlier = 0)
  step_ns REAL,                        -- device step time: mean dur_ns of those steps; NULL without steps
  step_compute_ns REAL,                -- mean compute_ns of those steps
  step_exposed_comm_ns REAL,           -- mean exposed_comm_ns of those steps
  step_exposed_memcpy_ns REAL,         -- mean exposed_memcpy_ns of those steps
  step_host_idle_ns REAL,              -- mean host_idle_ns of those steps
  step_other_idle_ns REAL,             -- mean other_idle_ns of those steps
  load_ns REAL NOT NULL,               -- basis step: step_ns − step_exposed_comm_ns; basis window: window_ns − exposed_comm_ns
  slowest INTEGER NOT NULL             -- 1 on the member with the largest load_ns (ties: lower rank, then device)
);

-- analysis_balance: Per metric across the members: max, mean, min, imbalance (max / mean) and who
-- has the max; the slowest member's value against the mean of the others.
-- Defined in: docs/metrics.md, "Load balance across ranks".
-- written by: analyze/balance.c
-- read by: analyze/analyze.c, analyze/findings.c, report/report_sections.c
CREATE TABLE analysis_balance (
  metric TEXT NOT NULL,         -- window, busy, compute, comm, exposed_comm, exposed_memcpy, idle, wait; step, step_compute, step_exposed_comm, step_exposed_memcpy, step_host_idle, step_other_idle (basis step); load
  members INTEGER NOT NULL,     -- members with a value
  max_ns REAL NOT NULL,         -- largest value
  max_rank INTEGER NOT NULL,    -- rank of the member with it (ties: lower rank, then device)
  max_device_id INTEGER NOT NULL, -- devices.id of that member
  mean_ns REAL NOT NULL,        -- mean over the members with a value
  min_ns REAL NOT NULL,         -- smallest value
  imbalance REAL,               -- max_ns / mean_ns; NULL when mean_ns = 0
  slowest_ns REAL,              -- the slowest member's value (analysis_balance_ranks.slowest = 1); NULL when it has none
  others_ns REAL,               -- mean over the other members with a value; NULL when none has one
  extra_ns REAL,                -- slowest_ns − others_ns; NULL when either is NULL
  component INTEGER NOT NULL    -- 1 on the rows whose extra_ns add up to the load's: step_compute, step_exposed_memcpy, step_host_idle, step_other_idle (basis step) or compute, exposed_memcpy, idle (basis window)
);

-- analysis_balance_slowest: The slowest rank, its extra load over the mean of the others and the
-- component that makes up most of it, with a sentence saying so (one row).
-- Defined in: docs/metrics.md, "Load balance across ranks".
-- written by: analyze/balance.c
-- read by: analyze/analyze.c, analyze/findings.c, report/report_sections.c
CREATE TABLE analysis_balance_slowest (
  device_id INTEGER NOT NULL,   -- devices.id of the slowest member
  rank INTEGER NOT NULL,        -- its rank
  host TEXT,                    -- its host, NULL when unknown
  basis TEXT NOT NULL,          -- 'step' (every member has steps: figures per step) or 'window' (over the selected windows)
  load_ns REAL NOT NULL,        -- its load_ns
  others_ns REAL NOT NULL,      -- mean load_ns of the other members
  extra_ns REAL NOT NULL,       -- load_ns − others_ns
  imbalance REAL,               -- the load's max / mean across the members; NULL when the mean is 0
  component TEXT,               -- the component with the largest extra: compute, exposed_memcpy, host_idle, other_idle or idle; NULL when extra_ns <= 0
  component_ns REAL,            -- that component's extra (slowest − mean of the others); NULL with component
  summary TEXT NOT NULL         -- one sentence naming the slowest rank and its extra time (integer ns)
);

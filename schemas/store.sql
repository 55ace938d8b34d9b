-- tracekit store schema: the single source of truth for the layout of a .db store.
--
-- One SQLite file holds one trace: one capture session with any number of hosts, processes,
-- devices and ranks. The library embeds this file at build time and runs it when it creates a
-- store; docs/store.md is its reference for SQL users.
--
-- Rules that every writer follows:
--   * time is INTEGER nanoseconds; absolute (Unix epoch) when the source has a clock, and
--     meta.clock says which; never floating point;
--   * names are interned once in `strings`; tables hold string ids, the public views resolve them;
--   * one interval table (`events`) for everything with a start and a duration, on `tracks`;
--     kind-specific columns live in detail tables keyed by the event id;
--   * tables whose names start with `_` are private to tracekit.
--
-- Schema version: PRAGMA user_version (set by the library, see TK_STORE_SCHEMA_VERSION).
-- Indexes are created after a bulk load (see the `-- @indexes` section at the end).

-- Key/value facts about the whole store.
CREATE TABLE meta (
  key   TEXT PRIMARY KEY, -- name of the fact: schema_version, source, clock, trace_start_ns, ...
  value                   -- its value, stored with its natural type (integer, real or text)
);

-- Every interned string (names, categories, arg keys, hosts). Id 0 is never used: NULL means none.
CREATE TABLE strings (
  id  INTEGER PRIMARY KEY, -- string id, from 1
  str TEXT NOT NULL        -- the string, UTF-8 as the source gave it
);

-- Files or live sessions this store was built from.
CREATE TABLE sources (
  id     INTEGER PRIMARY KEY, -- source id, from 1
  format TEXT NOT NULL,       -- synth, xplane, kineto, chrome_json, cupti
  path   TEXT,                -- input file path as given, NULL for live capture or synth
  host   TEXT,                -- host name the source describes, when known
  rank   INTEGER              -- distributed rank of this source, when known
);

-- Lookup table for events.kind.
CREATE TABLE event_kinds (
  id          INTEGER PRIMARY KEY, -- the code stored in events.kind
  name        TEXT NOT NULL,       -- short name used in views and reports
  description TEXT NOT NULL        -- what events of this kind are
);
INSERT INTO event_kinds VALUES
  (1,  'host_op',         'host (CPU) operation: framework op, library call, compile step'),
  (2,  'runtime_api',     'CUDA/HIP runtime API call on a host thread'),
  (3,  'driver_api',      'CUDA/HIP driver API call on a host thread'),
  (4,  'annotation',      'user range: NVTX, TK_SCOPE, record_function, named scope (host or device track)'),
  (5,  'kernel',          'device kernel execution'),
  (6,  'memcpy',          'device memory copy (H2D, D2H, D2D, H2H, P2P)'),
  (7,  'memset',          'device memory set'),
  (8,  'xla_op',          'XLA/HLO op on a derived device line'),
  (9,  'xla_module',      'XLA module (program) execution on a derived device line'),
  (10, 'framework_op',    'framework op (TensorFlow op, aten op) on a derived line'),
  (11, 'step',            'training or inference step; step_details holds its number'),
  (12, 'sync',            'device synchronization wait (event, stream or context sync)'),
  (13, 'python_function', 'Python function frame from a stack-recording profiler'),
  (14, 'other',           'anything else the source carries; events.category keeps its class'),
  (15, 'async_xla_op',    'asynchronous XLA op (Async XLA Ops line: copy-start/done, async collectives), in flight while other ops run; not device busy time');
-- Sets of kinds the C code's SQL uses, as TK_SQL_EV_<NAME> in the generated tk_schema.h
-- (schemas/schema_gen.c; the single kinds are TK_SQL_EV_KERNEL and so on):
-- @kind-set device_ops: kernel memcpy memset
-- @kind-set api_calls: runtime_api driver_api

-- Lookup table for copy_details.copy_kind.
CREATE TABLE copy_kinds (
  id   INTEGER PRIMARY KEY, -- the code stored in copy_details.copy_kind
  name TEXT NOT NULL        -- H2D, D2H, D2D, H2H, P2P or unknown
);
INSERT INTO copy_kinds VALUES (0, 'unknown'), (1, 'H2D'), (2, 'D2H'), (3, 'D2D'), (4, 'H2H'), (5, 'P2P');

-- Lookup table for memory kinds (copy source/destination, memset target, allocations).
CREATE TABLE memory_kinds (
  id   INTEGER PRIMARY KEY, -- the code stored in *_mem_kind columns
  name TEXT NOT NULL        -- unknown, pageable, pinned, device, managed, array
);
INSERT INTO memory_kinds VALUES
  (0, 'unknown'), (1, 'pageable'), (2, 'pinned'), (3, 'device'), (4, 'managed'), (5, 'array');

-- Host processes (one per rank in most distributed traces).
CREATE TABLE processes (
  id      INTEGER PRIMARY KEY, -- process id in this store, from 1
  pid     INTEGER,             -- operating-system process id as the source gave it
  name_id INTEGER,             -- strings.id of the process name, NULL when unknown
  host_id INTEGER,             -- strings.id of the host name, NULL when unknown
  rank    INTEGER,             -- distributed rank, NULL when unknown
  source_id INTEGER            -- sources.id this process came from
);

-- Accelerators (GPU, TPU, ...) with the peak numbers analyses compare against.
-- Any capability the source does not state is NULL.
CREATE TABLE devices (
  id                 INTEGER PRIMARY KEY, -- device id in this store, from 0 (equals the ordinal on single-host traces)
  ordinal            INTEGER NOT NULL,    -- device index as the source numbers it on its host
  kind               TEXT NOT NULL,       -- gpu, tpu, cpu or a source-specific word
  name_id            INTEGER,             -- strings.id of the product name (e.g. 'NVIDIA H100 80GB HBM3')
  vendor             TEXT,                -- nvidia, amd, google, ...
  host_id            INTEGER,             -- strings.id of the host name
  process_id         INTEGER,             -- processes.id of the process that drove it, when one did
  rank               INTEGER,             -- distributed rank, NULL when unknown
  compute_capability TEXT,                -- e.g. '9.0' (CUDA) or 'gfx942' (ROCm)
  sm_count           INTEGER,             -- streaming multiprocessors / compute units / cores
  clock_hz           INTEGER,             -- core clock, Hz
  memory_bytes       INTEGER,             -- device memory size, bytes
  memory_bandwidth_bps INTEGER,           -- peak memory bandwidth, bytes per second
  peak_flops         REAL,                -- peak floating-point operations per second
  max_threads_per_sm INTEGER,             -- thread limit per SM, for occupancy computation
  max_regs_per_sm    INTEGER,             -- register file size per SM (32-bit registers)
  max_smem_per_sm    INTEGER,             -- shared memory per SM, bytes
  source_id          INTEGER              -- sources.id this device came from
);

-- Timelines events sit on: a host thread, a device stream, a derived line (XLA Ops, Steps, ...)
-- or a counter series.
CREATE TABLE tracks (
  id         INTEGER PRIMARY KEY, -- track id, from 1
  kind       TEXT NOT NULL,       -- thread, stream, derived or counter
  name_id    INTEGER,             -- strings.id of the track name (thread name, 'Stream #7', 'XLA Ops')
  process_id INTEGER,             -- processes.id for host threads, and for streams when the owning process is known
  device_id  INTEGER,             -- devices.id for streams and device-derived lines, NULL on the host
  tid        INTEGER,             -- operating-system thread id for host threads
  stream_id  INTEGER,             -- stream number as the source numbers it, for device streams
  unit       TEXT                 -- unit of a counter track's values (bytes, percent, ...)
);

-- The interval table: everything with a start and a duration.
CREATE TABLE events (
  id             INTEGER PRIMARY KEY, -- event id, from 1, in load order
  track_id       INTEGER NOT NULL,    -- tracks.id of the timeline it ran on
  kind           INTEGER NOT NULL,    -- event_kinds.id
  name_id        INTEGER NOT NULL,    -- strings.id of the name (demangled for kernels when known)
  category_id    INTEGER,             -- strings.id of the source's own category ('cpu_op', 'gpu_memcpy', ...)
  ts_ns          INTEGER NOT NULL,    -- start, ns (absolute when meta.clock = 'unix_epoch')
  dur_ns         INTEGER NOT NULL,    -- duration, ns, >= 0
  correlation_id INTEGER              -- links an API call to the device work it launched, NULL when none
);

-- Kernel launch configuration and resource use, one row per kernel event.
CREATE TABLE kernel_details (
  event_id        INTEGER PRIMARY KEY, -- events.id of the kernel
  mangled_name_id INTEGER,             -- strings.id of the mangled symbol, when the source gives both forms
  grid_x  INTEGER, grid_y  INTEGER, grid_z  INTEGER,   -- grid dimensions, blocks
  block_x INTEGER, block_y INTEGER, block_z INTEGER,   -- block dimensions, threads
  registers     INTEGER,               -- registers per thread
  static_smem   INTEGER,               -- static shared memory per block, bytes
  dynamic_smem  INTEGER,               -- dynamic shared memory per block, bytes
  occupancy     REAL,                  -- achieved or estimated occupancy, 0..1, as the source reports it
  blocks_per_sm REAL,                  -- blocks per SM, as the source reports it
  warps_per_sm  REAL                   -- warps per SM, as the source reports it
);

-- Memory copy details, one row per memcpy event.
CREATE TABLE copy_details (
  event_id      INTEGER PRIMARY KEY, -- events.id of the copy
  bytes         INTEGER NOT NULL,    -- bytes copied
  copy_kind     INTEGER NOT NULL,    -- copy_kinds.id
  src_mem_kind  INTEGER,             -- memory_kinds.id of the source memory
  dst_mem_kind  INTEGER,             -- memory_kinds.id of the destination memory
  src_device_id INTEGER,             -- devices.id of the source for D2D/P2P
  dst_device_id INTEGER              -- devices.id of the destination for D2D/P2P
);

-- Memory set details, one row per memset event.
CREATE TABLE set_details (
  event_id INTEGER PRIMARY KEY, -- events.id of the memset
  bytes    INTEGER NOT NULL,    -- bytes set
  value    INTEGER,             -- byte value written, when known
  mem_kind INTEGER              -- memory_kinds.id of the target memory
);

-- Op attributes analyses group by (XLA ops and modules, framework ops, kernels from XLA).
CREATE TABLE op_details (
  event_id       INTEGER PRIMARY KEY, -- events.id of the op, module or kernel
  hlo_op_id      INTEGER,             -- strings.id of the HLO op name
  hlo_module_id  INTEGER,             -- strings.id of the HLO module name
  program_id     INTEGER,             -- XLA program id
  framework_op_id INTEGER,            -- strings.id of the framework op ('tf_op', aten op) behind it
  op_category_id INTEGER,             -- strings.id of the op category ('convolution', 'fusion', ...)
  flops          INTEGER,             -- floating-point operations the op performs
  bytes_accessed INTEGER              -- bytes the op reads and writes
);

-- Step numbers, one row per step event.
CREATE TABLE step_details (
  event_id INTEGER PRIMARY KEY, -- events.id of the step
  step_num INTEGER NOT NULL     -- step number as the source counts it
);

-- Dependencies between events: launch -> kernel (via correlation id), and other source flows.
CREATE TABLE flows (
  id           INTEGER PRIMARY KEY, -- flow id, from 1
  kind         TEXT NOT NULL,       -- launch (API call -> device work) or the source's flow category
  src_event_id INTEGER NOT NULL,    -- events.id where the flow starts
  dst_event_id INTEGER NOT NULL     -- events.id where the flow ends
);

-- Counter samples (memory in use, power, clocks, ...) on tracks of kind 'counter'.
CREATE TABLE counters (
  track_id INTEGER NOT NULL, -- tracks.id of the counter series
  ts_ns    INTEGER NOT NULL, -- sample time, ns
  value    REAL NOT NULL     -- sample value, in tracks.unit
);

-- Allocations and frees (the public view over it is `memory_events`).
CREATE TABLE memory_records (
  id             INTEGER PRIMARY KEY, -- memory event id, from 1, in load order
  ts_ns          INTEGER NOT NULL,    -- time of the allocation or free, ns
  kind           TEXT NOT NULL,       -- alloc or free
  device_id      INTEGER,             -- devices.id whose memory it is, NULL for host memory
  process_id     INTEGER,             -- processes.id that made it
  address        INTEGER,             -- address of the block
  bytes          INTEGER NOT NULL,    -- size of the block, bytes (positive for frees too)
  mem_kind       INTEGER,             -- memory_kinds.id
  allocator_id   INTEGER,             -- strings.id of the allocator ('caching', 'BFC', 'cudaMalloc', ...)
  op_event_id    INTEGER,             -- events.id of the op that made it, when known
  bytes_in_use   INTEGER,             -- allocator's bytes in use after this event, when the source reports it
  bytes_reserved INTEGER,             -- allocator's bytes reserved after this event, when the source reports it
  bytes_available INTEGER,            -- allocator's bytes still available after this event, when reported
  peak_bytes_in_use INTEGER,          -- allocator's peak bytes in use so far, when reported
  requested_bytes INTEGER,            -- size the program asked for (bytes may be rounded up), when reported
  fragmentation  REAL,                -- allocator fragmentation 0..1 after this event, when reported
  op_name_id     INTEGER              -- strings.id of the op that made it when only its name is known
);

-- Free-form arguments: anything a source carries that has no column, so nothing is dropped.
CREATE TABLE args (
  event_id INTEGER NOT NULL, -- events.id the argument belongs to
  key_id   INTEGER NOT NULL, -- strings.id of the argument name
  value                      -- the value with its natural type (integer, real or text)
);

-- Public views: names resolved, ts_rel_ns relative to meta.trace_start_ns.

-- All intervals with their kind name.
CREATE VIEW intervals AS
SELECT e.id, k.name AS kind, s.str AS name, c.str AS category, e.ts_ns,
       e.ts_ns - (SELECT value FROM meta WHERE key = 'trace_start_ns') AS ts_rel_ns,
       e.dur_ns, e.ts_ns + e.dur_ns AS end_ns, e.track_id, t.device_id, t.stream_id,
       p.pid, t.tid, e.correlation_id
FROM events e
JOIN event_kinds k ON k.id = e.kind
JOIN strings s ON s.id = e.name_id
LEFT JOIN strings c ON c.id = e.category_id
JOIN tracks t ON t.id = e.track_id
LEFT JOIN processes p ON p.id = t.process_id;

CREATE VIEW kernels AS
SELECT e.id, s.str AS name, m.str AS mangled_name, e.ts_ns,
       e.ts_ns - (SELECT value FROM meta WHERE key = 'trace_start_ns') AS ts_rel_ns,
       e.dur_ns, e.ts_ns + e.dur_ns AS end_ns, t.device_id, t.stream_id, p.pid, t.tid,
       e.correlation_id, d.grid_x, d.grid_y, d.grid_z, d.block_x, d.block_y, d.block_z,
       d.registers, d.static_smem, d.dynamic_smem, d.occupancy, d.blocks_per_sm, d.warps_per_sm,
       e.track_id
FROM events e
JOIN strings s ON s.id = e.name_id
JOIN tracks t ON t.id = e.track_id
LEFT JOIN processes p ON p.id = t.process_id
LEFT JOIN kernel_details d ON d.event_id = e.id
LEFT JOIN strings m ON m.id = d.mangled_name_id
WHERE e.kind = 5;

CREATE VIEW memcpys AS
SELECT e.id, s.str AS name, e.ts_ns,
       e.ts_ns - (SELECT value FROM meta WHERE key = 'trace_start_ns') AS ts_rel_ns,
       e.dur_ns, e.ts_ns + e.dur_ns AS end_ns, t.device_id, t.stream_id, p.pid, t.tid,
       e.correlation_id, d.bytes, ck.name AS copy_kind, sk.name AS src_kind, dk.name AS dst_kind,
       d.src_device_id, d.dst_device_id,
       -- the trace's own figure when it states one (Kineto's "memory bandwidth (GB/s)",
       -- computed from exact ns even where the trace prints whole-us durations), else
       -- bytes / dur_ns (exact ns); gb_per_s_source says which
       coalesce((SELECT CAST(a.value AS REAL) FROM args a WHERE a.event_id = e.id
                  AND a.key_id = (SELECT id FROM strings WHERE str = 'memory bandwidth (GB/s)')
                  AND typeof(a.value) IN ('integer', 'real') AND a.value >= 0 LIMIT 1),
                CASE WHEN e.dur_ns > 0 THEN CAST(d.bytes AS REAL) / e.dur_ns END) AS gb_per_s,
       e.track_id,
       CASE WHEN (SELECT CAST(a.value AS REAL) FROM args a WHERE a.event_id = e.id
                  AND a.key_id = (SELECT id FROM strings WHERE str = 'memory bandwidth (GB/s)')
                  AND typeof(a.value) IN ('integer', 'real') AND a.value >= 0 LIMIT 1)
            IS NOT NULL THEN 'trace'
            WHEN e.dur_ns > 0 THEN 'bytes/dur_ns' END AS gb_per_s_source
FROM events e
JOIN strings s ON s.id = e.name_id
JOIN tracks t ON t.id = e.track_id
LEFT JOIN processes p ON p.id = t.process_id
LEFT JOIN copy_details d ON d.event_id = e.id
LEFT JOIN copy_kinds ck ON ck.id = d.copy_kind
LEFT JOIN memory_kinds sk ON sk.id = d.src_mem_kind
LEFT JOIN memory_kinds dk ON dk.id = d.dst_mem_kind
WHERE e.kind = 6;

CREATE VIEW memsets AS
SELECT e.id, s.str AS name, e.ts_ns,
       e.ts_ns - (SELECT value FROM meta WHERE key = 'trace_start_ns') AS ts_rel_ns,
       e.dur_ns, e.ts_ns + e.dur_ns AS end_ns, t.device_id, t.stream_id, p.pid, t.tid,
       e.correlation_id, d.bytes, d.value, mk.name AS mem_kind, e.track_id
FROM events e
JOIN strings s ON s.id = e.name_id
JOIN tracks t ON t.id = e.track_id
LEFT JOIN processes p ON p.id = t.process_id
LEFT JOIN set_details d ON d.event_id = e.id
LEFT JOIN memory_kinds mk ON mk.id = d.mem_kind
WHERE e.kind = 7;

CREATE VIEW api_calls AS
SELECT e.id, s.str AS name, CASE e.kind WHEN 2 THEN 'runtime' ELSE 'driver' END AS api, e.ts_ns,
       e.ts_ns - (SELECT value FROM meta WHERE key = 'trace_start_ns') AS ts_rel_ns,
       e.dur_ns, e.ts_ns + e.dur_ns AS end_ns, p.pid, t.tid, e.correlation_id, e.track_id
FROM events e
JOIN strings s ON s.id = e.name_id
JOIN tracks t ON t.id = e.track_id
LEFT JOIN processes p ON p.id = t.process_id
WHERE e.kind IN (2, 3);

CREATE VIEW host_ops AS
SELECT e.id, s.str AS name, k.name AS kind, c.str AS category, e.ts_ns,
       e.ts_ns - (SELECT value FROM meta WHERE key = 'trace_start_ns') AS ts_rel_ns,
       e.dur_ns, e.ts_ns + e.dur_ns AS end_ns, p.pid, t.tid, e.correlation_id, e.track_id
FROM events e
JOIN event_kinds k ON k.id = e.kind
JOIN strings s ON s.id = e.name_id
LEFT JOIN strings c ON c.id = e.category_id
JOIN tracks t ON t.id = e.track_id
LEFT JOIN processes p ON p.id = t.process_id
WHERE e.kind IN (1, 10, 13) AND t.device_id IS NULL;

CREATE VIEW annotations AS
SELECT e.id, s.str AS name, c.str AS category, e.ts_ns,
       e.ts_ns - (SELECT value FROM meta WHERE key = 'trace_start_ns') AS ts_rel_ns,
       e.dur_ns, e.ts_ns + e.dur_ns AS end_ns, t.device_id, t.stream_id, p.pid, t.tid,
       e.correlation_id, e.track_id
FROM events e
JOIN strings s ON s.id = e.name_id
LEFT JOIN strings c ON c.id = e.category_id
JOIN tracks t ON t.id = e.track_id
LEFT JOIN processes p ON p.id = t.process_id
WHERE e.kind = 4;

CREATE VIEW steps AS
SELECT e.id, d.step_num, s.str AS name, e.ts_ns,
       e.ts_ns - (SELECT value FROM meta WHERE key = 'trace_start_ns') AS ts_rel_ns,
       e.dur_ns, e.ts_ns + e.dur_ns AS end_ns, t.device_id, t.stream_id, p.pid, t.tid, e.track_id
FROM events e
JOIN strings s ON s.id = e.name_id
JOIN tracks t ON t.id = e.track_id
LEFT JOIN processes p ON p.id = t.process_id
LEFT JOIN step_details d ON d.event_id = e.id
WHERE e.kind = 11;

CREATE VIEW memory_events AS
SELECT m.id, m.kind, m.ts_ns,
       m.ts_ns - (SELECT value FROM meta WHERE key = 'trace_start_ns') AS ts_rel_ns,
       m.device_id, p.pid, m.address, m.bytes, mk.name AS mem_kind, a.str AS allocator,
       m.op_event_id, coalesce(o.str, n.str) AS op_name, m.bytes_in_use, m.bytes_reserved,
       m.bytes_available, m.peak_bytes_in_use, m.requested_bytes, m.fragmentation
FROM memory_records m
LEFT JOIN processes p ON p.id = m.process_id
LEFT JOIN memory_kinds mk ON mk.id = m.mem_kind
LEFT JOIN strings a ON a.id = m.allocator_id
LEFT JOIN events oe ON oe.id = m.op_event_id
LEFT JOIN strings o ON o.id = oe.name_id
LEFT JOIN strings n ON n.id = m.op_name_id;

CREATE VIEW counter_samples AS
SELECT t.id AS track_id, s.str AS name, c.ts_ns,
       c.ts_ns - (SELECT value FROM meta WHERE key = 'trace_start_ns') AS ts_rel_ns,
       c.value, t.unit, t.device_id, p.pid
FROM counters c
JOIN tracks t ON t.id = c.track_id
LEFT JOIN strings s ON s.id = t.name_id
LEFT JOIN processes p ON p.id = t.process_id;

-- @indexes: created by tk_writer_finish() after the bulk load, in one pass each.
CREATE UNIQUE INDEX strings_by_str ON strings(str);
CREATE INDEX events_by_track ON events(track_id, ts_ns);
CREATE INDEX args_by_event ON args(event_id);
CREATE INDEX counters_by_track ON counters(track_id, ts_ns);
CREATE INDEX memory_records_by_device ON memory_records(device_id, ts_ns);

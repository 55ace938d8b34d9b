/*
 * Tests of the synthetic trace generator: determinism, size control, option validation, and the
 * realism the demo and the analyses rely on (kernels of many sizes with runs of tiny ones, idle
 * gaps, copies both ways, balanced allocations, launch flows, steps, device peaks), checked with
 * SQL over stores written through the public API.
 */
#include <criterion/criterion.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tracekit/error.h>
#include <tracekit/store.h>
#include <tracekit/synth.h>

#include "tk_test.h"

/* Write a store at @dir/@name with @o; returns the malloc'd path. */
static char *write_store(const char *dir, const char *name, const struct tk_synth_options *o)
{
	char *path = tkt_path(dir, name);
	tk_writer *w = NULL;
	int rc = tk_writer_create(path, &w);
	cr_assert_eq(rc, TK_OK, "create: %s", tk_writer_errmsg(w));
	rc = tk_synth_write(w, o);
	cr_assert_eq(rc, TK_OK, "synth: %d %s", rc, tk_writer_errmsg(w));
	rc = tk_writer_finish(w, tkt_err());
	cr_assert_eq(rc, TK_OK, "finish: %s", tkt_errmsg());
	return path;
}

static struct tk_synth_options opts(int64_t events, uint64_t seed)
{
	struct tk_synth_options o;
	tk_synth_defaults(&o);
	o.events = events;
	o.seed = seed;
	return o;
}

/* A store in a fresh directory, with the options it was written with. */
struct fixture {
	char *dir, *path;
	struct tk_synth_options o;
};

static struct fixture make(int64_t events, int devices, int streams, int steps)
{
	struct fixture f;
	f.dir = tkt_mkdtemp();
	f.o = opts(events, 42);
	f.o.devices = devices;
	f.o.streams = streams;
	f.o.steps = steps;
	f.path = write_store(f.dir, "s.db", &f.o);
	return f;
}

static void drop(struct fixture *f)
{
	tkt_rmdir(f->dir);
	free(f->dir);
	free(f->path);
}

/* One integer from a query on the fixture's store. */
static int64_t q(const struct fixture *f, const char *sql)
{
	return tkt_query_int(f->path, sql);
}

static sqlite3 *open_db(const char *path)
{
	sqlite3 *db = NULL;
	cr_assert_eq(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	return db;
}

static sqlite3_stmt *prepare(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st = NULL;
	cr_assert_eq(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK, "%s: %s", sql,
		     sqlite3_errmsg(db));
	return st;
}

static int64_t records(const char *path)
{
	return tkt_query_int(path, "SELECT (SELECT count(*) FROM events) + "
				   "(SELECT count(*) FROM memory_records) + "
				   "(SELECT count(*) FROM counters)");
}

Test(synth, defaults)
{
	struct tk_synth_options o;
	memset(&o, 0xff, sizeof(o));
	tk_synth_defaults(&o);
	cr_assert_eq(o.events, 200000);
	cr_assert_eq(o.devices, 2);
	cr_assert_eq(o.streams, 4);
	cr_assert_eq(o.steps, 10);
	cr_assert_eq(o.seed, 1);
	cr_assert_eq(o.jitter_seed, 0);
}

Test(synth, determinism)
{
	char *dir = tkt_mkdtemp();
	struct tk_synth_options o = opts(20000, 7);
	char *a = write_store(dir, "a.db", &o);
	char *b = write_store(dir, "b.db", &o);
	o.seed = 8;
	char *c = write_store(dir, "c.db", &o);
	uint64_t da = tkt_store_digest(a), db = tkt_store_digest(b), dc = tkt_store_digest(c);
	cr_assert_eq(da, db, "same options and seed must give the same content");
	cr_assert_neq(da, dc, "another seed must give other content");
	free(a);
	free(b);
	free(c);
	tkt_rmdir(dir);
	free(dir);
}

Test(synth, size_is_near_the_target)
{
	static const struct {
		int64_t events;
		int devices, streams, steps;
	} cases[] = {
	    {20000, 2, 4, 10}, {50000, 2, 4, 10}, {30000, 1, 3, 5},
	    {40000, 4, 2, 3},  {25000, 3, 8, 2},  {20000, 1, 2, 50},
	};
	char *dir = tkt_mkdtemp();
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct tk_synth_options o = opts(cases[i].events, 3);
		o.devices = cases[i].devices;
		o.streams = cases[i].streams;
		o.steps = cases[i].steps;
		char *p = write_store(dir, "size.db", &o);
		int64_t n = records(p);
		cr_assert(n >= o.events * 9 / 10 && n <= o.events * 11 / 10,
			  "%lld records for a target of %lld (%d devices, %d streams, %d steps)",
			  (long long)n, (long long)o.events, o.devices, o.streams, o.steps);
		cr_assert_eq(tkt_query_int(p, "SELECT value FROM meta WHERE key = 'synth.events'"),
			     o.events);
		free(p);
	}
	tkt_rmdir(dir);
	free(dir);
}

Test(synth, small_targets_still_have_a_layer_per_step)
{
	struct fixture f = make(1, 1, 2, 1);
	cr_assert_gt(q(&f, "SELECT count(*) FROM kernels"), 20);
	cr_assert_eq(q(&f, "SELECT count(*) FROM steps"), 1);
	cr_assert_eq(q(&f, "SELECT value FROM meta WHERE key = 'synth.layers'"), 1);
	drop(&f);
}

Test(synth, rejects_bad_options)
{
	char *dir = tkt_mkdtemp();
	char *path = tkt_path(dir, "bad.db");
	struct tk_synth_options good = opts(1000, 1), bad[7];
	for (int i = 0; i < 7; i++)
		bad[i] = good;
	bad[0].devices = 0;
	bad[1].devices = 65;
	bad[2].streams = 1;
	bad[3].streams = 33;
	bad[4].steps = 0;
	bad[5].steps = 1000001;
	bad[6].events = 0;
	for (int i = 0; i < 7; i++) {
		tk_writer *w = NULL;
		cr_assert_eq(tk_writer_create(path, &w), TK_OK);
		cr_assert_eq(tk_synth_write(w, &bad[i]), TK_EINVAL, "case %d", i);
		cr_assert(strstr(tk_writer_errmsg(w), "synth options out of range") != NULL,
			  "case %d: %s", i, tk_writer_errmsg(w));
		/* nothing was written before the check */
		struct tk_writer_stats st;
		tk_writer_get_stats(w, &st);
		cr_assert_eq(st.events, 0);
		tk_writer_abort(w);
		cr_assert_not(tkt_exists(path));
	}
	tk_writer *w = NULL;
	cr_assert_eq(tk_writer_create(path, &w), TK_OK);
	cr_assert_eq(tk_synth_write(w, NULL), TK_EINVAL);
	cr_assert_eq(tk_synth_write(NULL, &good), TK_EINVAL);
	cr_assert_eq(tk_synth_write(w, &good), TK_OK, "%s", tk_writer_errmsg(w));
	tk_writer_abort(w);
	cr_assert_not(tkt_exists(path));
	free(path);
	tkt_rmdir(dir);
	free(dir);
}

Test(synth, propagates_writer_errors)
{
	char *dir = tkt_mkdtemp();
	char *path = tkt_path(dir, "failed.db");
	struct tk_synth_options o = opts(20000, 1);
	tk_writer *w = NULL;
	cr_assert_eq(tk_writer_create(path, &w), TK_OK);
	/* An event on a track that does not exist makes the writer fail (sticky). */
	struct tk_event ev = {.track_id = 99, .kind = TK_EV_HOST_OP, .name = "x", .dur_ns = 1};
	cr_assert_eq(tk_writer_add_event(w, &ev, NULL), TK_EINVAL);
	cr_assert_eq(tk_synth_write(w, &o), TK_EINVAL);
	cr_assert_str_not_empty(tk_writer_errmsg(w));
	tk_writer_abort(w);
	cr_assert_not(tkt_exists(path));
	free(path);
	tkt_rmdir(dir);
	free(dir);
}

Test(synth, kernels_of_many_sizes)
{
	struct fixture f = make(30000, 2, 4, 10);
	cr_assert_gt(q(&f, "SELECT count(*) FROM kernels WHERE dur_ns < 10000"), 0);
	cr_assert_gt(q(&f, "SELECT count(*) FROM kernels WHERE dur_ns > 1000000"), 0);
	int64_t lo = q(&f, "SELECT min(dur_ns) FROM kernels");
	int64_t hi = q(&f, "SELECT max(dur_ns) FROM kernels");
	cr_assert_gt(lo, 0);
	cr_assert_geq(hi, 1000 * lo, "kernel durations span %lld..%lld ns", (long long)lo,
		      (long long)hi);
	/* GEMMs, NCCL on stream 17, tiny optimizer kernels, names as C++ gives them. */
	cr_assert_gt(q(&f, "SELECT count(*) FROM kernels WHERE name LIKE 'sm90_%'"), 0);
	cr_assert_gt(q(&f, "SELECT count(*) FROM kernels WHERE name LIKE 'nccl%' "
			   "AND stream_id = 17"),
		     0);
	cr_assert_gt(q(&f, "SELECT count(*) FROM kernels WHERE name LIKE '%<%>%' "
			   "AND name LIKE '%&%' AND name LIKE '%,%'"),
		     0);
	cr_assert_gt(q(&f, "SELECT count(*) FROM kernels "
			   "WHERE mangled_name LIKE '_Z%'"),
		     0);
	cr_assert_eq(q(&f, "SELECT count(*) FROM kernels WHERE grid_x IS NULL OR "
			   "block_x IS NULL OR registers IS NULL OR occupancy IS NULL "
			   "OR occupancy <= 0 OR occupancy > 1"),
		     0);
	drop(&f);
}

Test(synth, runs_of_tiny_kernels)
{
	struct fixture f = make(20000, 2, 4, 10);
	sqlite3 *db = open_db(f.path);
	sqlite3_stmt *st =
	    prepare(db, "SELECT track_id, dur_ns FROM kernels ORDER BY track_id, ts_ns");
	int64_t track = -1, run = 0, best = 0;
	while (sqlite3_step(st) == SQLITE_ROW) {
		int64_t t = sqlite3_column_int64(st, 0), dur = sqlite3_column_int64(st, 1);
		if (t != track)
			run = 0;
		track = t;
		run = dur < 10000 ? run + 1 : 0;
		if (run > best)
			best = run;
	}
	sqlite3_finalize(st);
	sqlite3_close(db);
	cr_assert_geq(best, 5, "longest run of kernels under 10 us on one stream: %lld",
		      (long long)best);
	drop(&f);
}

Test(synth, idle_gaps_on_every_device)
{
	struct fixture f = make(20000, 2, 4, 10);
	sqlite3 *db = open_db(f.path);
	/* Device work of each device in start order, with its rank's step window. */
	sqlite3_stmt *st = prepare(
	    db, "SELECT i.device_id, i.ts_ns, i.end_ns, w.lo, w.hi FROM intervals i "
		"JOIN devices d ON d.id = i.device_id "
		"JOIN (SELECT p.id AS pid, min(s.ts_ns) AS lo, max(s.end_ns) AS hi FROM steps s "
		"      JOIN processes p ON p.pid = s.pid GROUP BY p.id) w ON w.pid = d.process_id "
		"WHERE i.kind IN ('kernel', 'memcpy', 'memset') ORDER BY i.device_id, i.ts_ns");
	int64_t dev = -1, busy_end = 0, big = 0;
	int devices_with_gap = 0;
	while (sqlite3_step(st) == SQLITE_ROW) {
		int64_t d = sqlite3_column_int64(st, 0), ts = sqlite3_column_int64(st, 1);
		int64_t end = sqlite3_column_int64(st, 2), lo = sqlite3_column_int64(st, 3);
		int64_t hi = sqlite3_column_int64(st, 4);
		if (d != dev) {
			devices_with_gap += big > 0;
			dev = d;
			busy_end = end;
			big = 0;
			continue;
		}
		/* A gap counts when it lies inside the step window. */
		if (ts - busy_end > 100000 && busy_end >= lo && ts <= hi)
			big++;
		if (end > busy_end)
			busy_end = end;
	}
	devices_with_gap += big > 0;
	sqlite3_finalize(st);
	sqlite3_close(db);
	cr_assert_eq(devices_with_gap, 2,
		     "devices with an idle gap > 100 us inside their steps: %d", devices_with_gap);
	drop(&f);
}

Test(synth, copies_both_ways)
{
	struct fixture f = make(20000, 2, 4, 10);
	for (int d = 0; d < 2; d++) {
		char sql[160];
		snprintf(sql, sizeof(sql),
			 "SELECT count(*) FROM memcpys WHERE copy_kind = 'H2D' AND device_id = %d",
			 d);
		cr_assert_gt(q(&f, sql), 0);
		snprintf(sql, sizeof(sql),
			 "SELECT count(*) FROM memcpys WHERE copy_kind = 'D2H' AND device_id = %d",
			 d);
		cr_assert_gt(q(&f, sql), 0);
	}
	cr_assert_gt(q(&f, "SELECT count(*) FROM memcpys WHERE copy_kind = 'D2H' "
			   "AND dst_kind = 'pageable' AND bytes = 4"),
		     0);
	cr_assert_gt(q(&f, "SELECT count(*) FROM memcpys WHERE copy_kind = 'H2D' "
			   "AND src_kind = 'pinned'"),
		     0);
	cr_assert_gt(q(&f, "SELECT count(*) FROM memsets"), 0);
	cr_assert_gt(q(&f, "SELECT count(*) FROM api_calls "
			   "WHERE name = 'cudaStreamSynchronize'"),
		     0);
	drop(&f);
}

/* A live allocation, for the balance check. */
struct live {
	int64_t addr, bytes;
};

Test(synth, allocations_balanced_by_frees)
{
	struct fixture f = make(30000, 2, 3, 6);
	cr_assert_eq(q(&f, "SELECT count(*) FROM (SELECT device_id, "
			   "sum(CASE kind WHEN 'alloc' THEN bytes ELSE -bytes END) AS s "
			   "FROM memory_events GROUP BY device_id) WHERE s != 0"),
		     0);
	cr_assert_eq(q(&f, "SELECT count(DISTINCT device_id) FROM memory_events"), 2);
	cr_assert_eq(q(&f, "SELECT count(*) FROM memory_events WHERE bytes < 512 "
			   "OR bytes > 268435456 OR address % 256 != 0 "
			   "OR allocator != 'caching' OR mem_kind != 'device'"),
		     0);
	cr_assert_eq(q(&f, "SELECT count(*) FROM counters"),
		     q(&f, "SELECT count(*) FROM memory_records"));
	cr_assert_gt(q(&f, "SELECT count(*) FROM memory_events "
			   "WHERE op_name = 'aten::linear'"),
		     0);

	sqlite3 *db = open_db(f.path);
	sqlite3_stmt *st = prepare(db, "SELECT device_id, kind, address, bytes, bytes_in_use "
				       "FROM memory_events ORDER BY device_id, ts_ns, id");
	size_t cap = 1024, n = 0;
	struct live *lv = malloc(cap * sizeof(*lv));
	int64_t dev = -1, in_use = 0, frees = 0;
	while (sqlite3_step(st) == SQLITE_ROW) {
		int64_t d = sqlite3_column_int64(st, 0);
		int is_free = strcmp((const char *)sqlite3_column_text(st, 1), "free") == 0;
		int64_t addr = sqlite3_column_int64(st, 2), bytes = sqlite3_column_int64(st, 3);
		/* Checked without an assertion per row: Criterion's stats make those slow. */
		if (d != dev) {
			if (n != 0)
				cr_assert_fail("device %lld ends with %zu live blocks",
					       (long long)dev, n);
			dev = d;
			in_use = 0;
		}
		if (is_free) {
			size_t i = 0;
			while (i < n && lv[i].addr != addr)
				i++;
			if (i == n)
				cr_assert_fail("free of %llx which is not live", (long long)addr);
			if (lv[i].bytes != bytes)
				cr_assert_fail("free of %llx with another size", (long long)addr);
			lv[i] = lv[--n];
			in_use -= bytes;
			frees++;
		} else {
			for (size_t i = 0; i < n; i++)
				if (addr + bytes > lv[i].addr && lv[i].addr + lv[i].bytes > addr)
					cr_assert_fail("allocation at %llx overlaps a live block",
						       (long long)addr);
			if (n == cap)
				lv = realloc(lv, (cap *= 2) * sizeof(*lv));
			lv[n++] = (struct live){addr, bytes};
			in_use += bytes;
		}
		if (sqlite3_column_int64(st, 4) != in_use)
			cr_assert_fail("bytes_in_use %lld, expected %lld",
				       (long long)sqlite3_column_int64(st, 4), (long long)in_use);
	}
	cr_assert_eq(n, 0, "allocations left live at the end");
	cr_assert_gt(frees, 0);
	free(lv);
	sqlite3_finalize(st);
	sqlite3_close(db);
	drop(&f);
}

Test(synth, every_device_op_has_a_launch)
{
	struct fixture f = make(20000, 2, 4, 10);
	static const char *const views[] = {"kernels", "memcpys", "memsets"};
	for (int i = 0; i < 3; i++) {
		char sql[512];
		snprintf(sql, sizeof(sql),
			 "SELECT count(*) FROM %s k WHERE k.correlation_id IS NULL OR NOT EXISTS ("
			 "SELECT 1 FROM flows f JOIN api_calls a ON a.id = f.src_event_id "
			 "WHERE f.dst_event_id = k.id AND f.kind = 'launch' "
			 "AND a.correlation_id = k.correlation_id AND a.ts_ns <= k.ts_ns)",
			 views[i]);
		cr_assert_eq(q(&f, sql), 0, "%s without a launch", views[i]);
	}
	cr_assert_eq(q(&f, "SELECT count(*) FROM api_calls"),
		     q(&f, "SELECT count(DISTINCT correlation_id) FROM api_calls"));
	cr_assert_eq(q(&f, "SELECT count(*) FROM flows"),
		     q(&f, "SELECT count(*) FROM events WHERE kind IN (5, 6, 7)"));
	/*
	 * Most launches sit inside a host op of the same thread: walk each thread in start order
	 * (host ops before API calls that start with them) keeping the furthest host op end.
	 */
	sqlite3 *db = open_db(f.path);
	sqlite3_stmt *st = prepare(db, "SELECT track_id, kind, ts_ns + dur_ns FROM events "
				       "WHERE kind IN (1, 2) ORDER BY track_id, ts_ns, kind");
	int64_t track = -1, op_end = 0, nested = 0, all = 0;
	while (sqlite3_step(st) == SQLITE_ROW) {
		int64_t t = sqlite3_column_int64(st, 0), end = sqlite3_column_int64(st, 2);
		if (t != track) {
			track = t;
			op_end = INT64_MIN;
		}
		if (sqlite3_column_int(st, 1) == TK_EV_HOST_OP) {
			if (end > op_end)
				op_end = end;
		} else {
			all++;
			nested += end <= op_end;
		}
	}
	sqlite3_finalize(st);
	sqlite3_close(db);
	cr_assert_gt(all, 0);
	cr_assert_gt(nested * 10, all * 9, "%lld of %lld API calls inside host ops",
		     (long long)nested, (long long)all);
	drop(&f);
}

Test(synth, steps_and_annotations)
{
	struct fixture f = make(20000, 2, 4, 10);
	cr_assert_eq(q(&f, "SELECT count(*) FROM steps"), 20);
	cr_assert_eq(q(&f, "SELECT count(*) FROM (SELECT pid FROM steps GROUP BY pid "
			   "HAVING min(step_num) = 0 AND max(step_num) = 9 AND "
			   "count(DISTINCT step_num) = 10)"),
		     2);
	cr_assert_eq(q(&f, "SELECT count(*) FROM steps "
			   "WHERE name != 'ProfilerStep#' || step_num"),
		     0);
	cr_assert_gt(q(&f, "SELECT count(*) FROM annotations "
			   "WHERE name = '## forward ##' AND device_id IS NULL"),
		     0);
	cr_assert_gt(q(&f, "SELECT count(*) FROM annotations "
			   "WHERE name = '## backward ##'"),
		     0);
	cr_assert_eq(q(&f, "SELECT count(*) FROM annotations WHERE stream_id = 7 "
			   "AND name LIKE 'ProfilerStep#%'"),
		     20);
	/* The warm-up compile: one long host op per rank before the first step. */
	cr_assert_eq(q(&f, "SELECT count(*) FROM host_ops h WHERE category = "
			   "'compile' AND dur_ns BETWEEN 1200000000 AND 1800000000 "
			   "AND end_ns <= (SELECT min(ts_ns) FROM steps s "
			   "WHERE s.pid = h.pid)"),
		     2);
	/* Data loading, sometimes long enough to starve the GPU. */
	cr_assert_gt(q(&f, "SELECT count(*) FROM host_ops "
			   "WHERE name = 'DataLoader.__next__' AND dur_ns > 3000000"),
		     0);
	drop(&f);
}

Test(synth, allreduce_overlaps_backward)
{
	struct fixture f = make(20000, 2, 4, 10);
	cr_assert_gt(q(&f, "SELECT count(*) FROM kernels n JOIN kernels c "
			   "ON c.device_id = n.device_id AND c.stream_id = 7 "
			   "AND c.ts_ns < n.end_ns AND c.end_ns > n.ts_ns "
			   "WHERE n.name LIKE 'ncclDevKernel_AllReduce%'"),
		     0);
	cr_assert_gt(q(&f, "SELECT count(*) FROM api_calls "
			   "WHERE name = 'cudaStreamWaitEvent'"),
		     0);
	drop(&f);
}

Test(synth, processes_devices_and_tracks)
{
	struct fixture f = make(20000, 3, 5, 4);
	cr_assert_eq(q(&f, "SELECT count(*) FROM devices d JOIN strings s "
			   "ON s.id = d.name_id WHERE s.str = 'NVIDIA H100 80GB HBM3' "
			   "AND kind = 'gpu' AND vendor = 'nvidia' "
			   "AND compute_capability = '9.0' AND sm_count = 132 "
			   "AND clock_hz = 1980000000 AND memory_bytes = 85899345920 "
			   "AND memory_bandwidth_bps = 3350000000000 "
			   "AND peak_flops = 989e12 AND max_threads_per_sm = 2048 "
			   "AND max_regs_per_sm = 65536 AND max_smem_per_sm = 233472 "
			   "AND process_id IS NOT NULL AND rank = ordinal"),
		     3);
	cr_assert_eq(q(&f, "SELECT count(*) FROM processes p JOIN strings s "
			   "ON s.id = p.name_id WHERE s.str = 'python train.py' "
			   "AND rank IS NOT NULL"),
		     3);
	cr_assert_eq(q(&f, "SELECT count(*) FROM tracks WHERE kind = 'stream'"), 15);
	cr_assert_eq(q(&f, "SELECT count(*) FROM tracks t JOIN strings s "
			   "ON s.id = t.name_id WHERE t.kind = 'stream' "
			   "AND s.str = 'Stream #' || t.stream_id"),
		     15);
	cr_assert_eq(q(&f, "SELECT count(DISTINCT stream_id) FROM tracks "
			   "WHERE stream_id IN (7, 13, 17)"),
		     3);
	cr_assert_eq(q(&f, "SELECT count(*) FROM tracks WHERE kind = 'counter' "
			   "AND unit = 'bytes' AND device_id IS NOT NULL"),
		     3);
	cr_assert_eq(q(&f, "SELECT count(*) FROM tracks WHERE kind = 'thread'"), 6);
	cr_assert_eq(q(&f, "SELECT count(*) FROM sources WHERE format = 'synth'"), 1);
	drop(&f);
}

Test(synth, times_are_sane)
{
	struct fixture f = make(20000, 2, 2, 10);
	cr_assert_eq(q(&f, "SELECT count(*) FROM events WHERE dur_ns < 0"), 0);
	cr_assert_geq(q(&f, "SELECT min(ts_rel_ns) FROM intervals"), 0);
	cr_assert_geq(q(&f, "SELECT min(ts_rel_ns) FROM memory_events"), 0);
	cr_assert_geq(q(&f, "SELECT min(ts_rel_ns) FROM counter_samples"), 0);
	cr_assert_eq(q(&f, "SELECT count(*) FROM events WHERE ts_ns + dur_ns > "
			   "(SELECT value FROM meta WHERE key = 'trace_end_ns')"),
		     0);
	cr_assert_geq(q(&f, "SELECT value FROM meta WHERE key = 'trace_start_ns'"),
		      1767225600000000000LL);
	cr_assert_eq(q(&f, "SELECT count(*) FROM meta WHERE (key = 'clock' AND "
			   "value = 'unix_epoch') OR (key = 'source' AND value = "
			   "'synth')"),
		     2);
	/* Device work never starts before its launch. */
	cr_assert_eq(q(&f, "SELECT count(*) FROM flows f JOIN events a "
			   "ON a.id = f.src_event_id JOIN events d "
			   "ON d.id = f.dst_event_id WHERE d.ts_ns < a.ts_ns"),
		     0);
	/* Work on one stream never overlaps. */
	cr_assert_eq(q(&f, "SELECT count(*) FROM (SELECT ts_ns, lag(ts_ns + dur_ns) "
			   "OVER (PARTITION BY track_id ORDER BY ts_ns) AS prev_end "
			   "FROM events WHERE kind IN (5, 6, 7)) WHERE ts_ns < prev_end"),
		     0);
	drop(&f);
}

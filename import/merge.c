/*
 * `tracekit merge`: per-rank (or per-host) stores into one job store (tk_merge()). A store is an
 * input here: it is opened read-only through the store's API and every row is checked like any
 * other input (ids must name rows of the input, times must be valid); a damaged store fails
 * with its path, table and row. Each input is replayed through the writer in the order an
 * import writes (sources with their processes and devices, tracks, events with their details,
 * op details, flows, counters, memory events, args, meta), ids remapped and strings re-interned,
 * so that `import A B` and `merge (import A) (import B)` hold the same content.
 *
 * With summary set, only what the cross-rank analyses need is kept (docs/scale.md): every
 * source, process, device and track, the step events, the communication kernels the input's
 * analysis found (analysis_comm) with the args that identify their collective and their op
 * details, meta, and a copy of the
 * input's analysis tables (merge_tables.c); meta 'job_summary' = 1 marks the store. Job
 * summaries given as inputs are kept whole (their events are the summary's already) and make a
 * job summary: the gather of `--mpi` merges one summary per MPI process. Memory is
 * one id map per input (8 bytes per row of its processes, devices, tracks and events).
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tracekit/analyze.h>
#include <tracekit/import.h>
#include <unistd.h>

#include "checked.h"
#include "util/comm_args.h"
#include "util/vec.h"
#include "merge_internal.h"
#include "outfile.h"

void tk_merge_options_init(struct tk_merge_options *o)
{
	if (o)
		memset(o, 0, sizeof(*o));
}

/* The input being replayed, with its string map. */
struct mg {
	tk_writer *w;
	struct mg_in *in;
	const struct tk_merge_options *o;
	uint32_t *str; /* old string id -> new, 0 when not interned yet */
	int64_t nstr;
};

/* Fail the writer for a bad row of the input (TK_ROW_FMT: path, table, row id). */
#define MG_FAIL(g, table, row, msg)                                                 \
	tk_writer_fail((g)->w, TK_EFORMAT, TK_ROW_FMT "%s", (g)->in->path, (table), \
		       (long long)(row), (msg))

static int sql_fail(struct mg *g, const char *what)
{
	int e = sqlite3_errcode(g->in->db);
	int rc = e == SQLITE_NOMEM ? TK_ENOMEM : TK_EFORMAT;
	return tk_writer_fail_cause(g->w, rc, "sqlite", sqlite3_errmsg(g->in->db),
				    "store '%s': cannot read %s", g->in->path, what);
}

/* Slots for the ids of @table (count and greatest id, bounded as checked.h says). */
static int map_init(struct mg *g, struct mg_map *m, const char *table, const char *idcol)
{
	char sql[160];
	sqlite3_stmt *st = NULL;
	snprintf(sql, sizeof(sql), "SELECT count(*), max(%s) FROM %s", idcol, table);
	int rc = TK_OK;
	if (sqlite3_prepare_v2(g->in->db, sql, -1, &st, NULL) != SQLITE_OK ||
	    sqlite3_step(st) != SQLITE_ROW) {
		rc = sql_fail(g, table);
		goto out;
	}
	int64_t rows = sqlite3_column_int64(st, 0);
	int64_t max = sqlite3_column_type(st, 1) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 1);
	m->slots = tk_id_slots(rows, max);
	if (!(m->v = malloc((size_t)m->slots * sizeof(*m->v)))) {
		rc = tk_writer_fail(g->w, TK_ENOMEM, "out of memory");
		goto out;
	}
	for (int64_t i = 0; i < m->slots; i++)
		m->v[i] = TK_NONE;
out:
	sqlite3_finalize(st);
	return rc;
}

/* Append @id -> @nid to the sparse map @m (ids come in ascending order). */
static int sparse_add(struct mg *g, struct mg_map *m, int64_t id, int64_t nid)
{
	if (m->n && m->keys[m->n - 1] >= id)
		return MG_FAIL(g, "events", id, "ids are not ascending");
	if (m->n == m->cap) {
		size_t cap = tku_grow_cap(m->cap, m->n + 1, sizeof(int64_t), 256);
		int64_t *k = cap ? tku_reallocn(m->keys, cap, sizeof(*k)) : NULL;
		if (k)
			m->keys = k;
		int64_t *v = k ? tku_reallocn(m->v, cap, sizeof(*v)) : NULL;
		if (!v)
			return tk_writer_fail(g->w, TK_ENOMEM, "out of memory");
		m->v = v;
		m->cap = cap;
	}
	m->keys[m->n] = id;
	m->v[m->n++] = nid;
	return TK_OK;
}

/* Read the input's strings (by id); each is interned into the job store when first used. */
static int strings_load(struct mg *g, char ***out)
{
	struct mg_map tmp = {0};
	sqlite3_stmt *st = NULL;
	int rc = map_init(g, &tmp, "strings", "id");
	free(tmp.v);
	if (rc != TK_OK)
		return rc;
	g->nstr = tmp.slots;
	char **s = calloc((size_t)g->nstr, sizeof(*s));
	g->str = calloc((size_t)g->nstr, sizeof(*g->str));
	*out = s;
	if (!s || !g->str)
		return tk_writer_fail(g->w, TK_ENOMEM, "out of memory");
	if (sqlite3_prepare_v2(g->in->db, "SELECT id, str FROM strings ORDER BY id", -1, &st,
			       NULL) != SQLITE_OK)
		return sql_fail(g, "strings");
	int r;
	while (rc == TK_OK && (r = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(st, 0);
		const char *t = (const char *)sqlite3_column_text(st, 1);
		if (!tk_id_ok(id, g->nstr) || id == 0 || !t)
			rc = MG_FAIL(g, "strings", id,
				     id == 0 || !t ? "no string" : TK_ID_RANGE_MSG);
		else if (!(s[id] = strdup(t)))
			rc = tk_writer_fail(g->w, TK_ENOMEM, "out of memory");
	}
	if (rc == TK_OK && r != SQLITE_DONE)
		rc = sql_fail(g, "strings");
	sqlite3_finalize(st);
	return rc;
}

/* The new id of string @id (column @col of @table, row @row): 0 for NULL (@nullable). */
static int str_id(struct mg *g, char **s, sqlite3_stmt *st, int col, const char *table, int64_t row,
		  uint32_t *out)
{
	*out = 0;
	if (sqlite3_column_type(st, col) == SQLITE_NULL)
		return TK_OK;
	int64_t id = sqlite3_column_int64(st, col);
	if (!tk_id_ok(id, g->nstr) || !s[id])
		return MG_FAIL(g, table, row, "string id is not in table strings");
	if (!g->str[id] && !(g->str[id] = tk_writer_intern(g->w, s[id])))
		return tk_writer_status(g->w);
	*out = g->str[id];
	return TK_OK;
}

static const char *str_of(char **s, int64_t nstr, sqlite3_stmt *st, int col)
{
	if (sqlite3_column_type(st, col) == SQLITE_NULL)
		return NULL;
	int64_t id = sqlite3_column_int64(st, col);
	return tk_id_ok(id, nstr) ? s[id] : NULL;
}

static int64_t opt(sqlite3_stmt *st, int col)
{
	return sqlite3_column_type(st, col) == SQLITE_NULL ? TK_NONE
							   : sqlite3_column_int64(st, col);
}

static double opt_real(sqlite3_stmt *st, int col)
{
	return sqlite3_column_type(st, col) == SQLITE_NULL ? -1.0 : sqlite3_column_double(st, col);
}

static const char *text(sqlite3_stmt *st, int col)
{
	return (const char *)sqlite3_column_text(st, col);
}

/* A reference @ref (TK_NONE stays TK_NONE) through @m; -1 when it names no row of the input. */
static int remap(const struct mg_map *m, int64_t ref, int64_t *out)
{
	*out = TK_NONE;
	if (ref == TK_NONE)
		return 0;
	*out = mg_get(m, ref);
	return *out == TK_NONE ? -1 : 0;
}

static int prepare(struct mg *g, const char *sql, sqlite3_stmt **st, const char *what)
{
	if (sqlite3_prepare_v2(g->in->db, sql, -1, st, NULL) != SQLITE_OK)
		return sql_fail(g, what);
	return TK_OK;
}

/* Sources, each followed by the processes and devices that came from it. */
static int put_entities(struct mg *g, char **s)
{
	sqlite3_stmt *src = NULL, *pr = NULL, *dv = NULL;
	int rc, r = SQLITE_DONE;
	if ((rc = map_init(g, &g->in->proc, "processes", "id")) != TK_OK ||
	    (rc = map_init(g, &g->in->dev, "devices", "id")) != TK_OK ||
	    (rc = prepare(g, "SELECT id, format, path, host, rank FROM sources ORDER BY id", &src,
			  "sources")) != TK_OK ||
	    (rc = prepare(g,
			  "SELECT id, pid, name_id, host_id, rank FROM processes WHERE source_id "
			  "IS ?1 OR (?1 IS NULL AND source_id NOT IN (SELECT id FROM sources)) "
			  "ORDER BY id",
			  &pr, "processes")) != TK_OK ||
	    (rc = prepare(g,
			  "SELECT id, ordinal, kind, name_id, vendor, host_id, process_id, rank, "
			  "compute_capability, sm_count, clock_hz, memory_bytes, "
			  "memory_bandwidth_bps, peak_flops, max_threads_per_sm, max_regs_per_sm, "
			  "max_smem_per_sm FROM devices WHERE source_id IS ?1 OR (?1 IS NULL AND "
			  "source_id NOT IN (SELECT id FROM sources)) ORDER BY id",
			  &dv, "devices")) != TK_OK)
		goto out;
	/* first the rows of no (known) source, then each source's */
	for (int first = 1; rc == TK_OK; first = 0) {
		if (!first) {
			if ((r = sqlite3_step(src)) != SQLITE_ROW)
				break;
			const char *fmt = text(src, 1);
			if ((rc = tk_writer_add_source(g->w, fmt ? fmt : "unknown", text(src, 2),
						       text(src, 3), opt(src, 4))) != TK_OK)
				break;
		}
		sqlite3_reset(pr);
		sqlite3_reset(dv);
		if (first) {
			sqlite3_bind_null(pr, 1);
			sqlite3_bind_null(dv, 1);
		} else {
			sqlite3_bind_int64(pr, 1, sqlite3_column_int64(src, 0));
			sqlite3_bind_int64(dv, 1, sqlite3_column_int64(src, 0));
		}
		while (rc == TK_OK && sqlite3_step(pr) == SQLITE_ROW) {
			int64_t id = sqlite3_column_int64(pr, 0), nid;
			struct tk_process_info p = {.pid = opt(pr, 1),
						    .name = str_of(s, g->nstr, pr, 2),
						    .host = str_of(s, g->nstr, pr, 3),
						    .rank = opt(pr, 4)};
			if (!tk_id_ok(id, g->in->proc.slots))
				rc = MG_FAIL(g, "processes", id, TK_ID_RANGE_MSG);
			else if ((rc = tk_writer_add_process(g->w, &p, &nid)) == TK_OK)
				g->in->proc.v[id] = nid;
		}
		while (rc == TK_OK && sqlite3_step(dv) == SQLITE_ROW) {
			int64_t id = sqlite3_column_int64(dv, 0), nid;
			struct tk_device_info d = {
			    .ordinal = sqlite3_column_int64(dv, 1),
			    .kind = text(dv, 2),
			    .name = str_of(s, g->nstr, dv, 3),
			    .vendor = text(dv, 4),
			    .host = str_of(s, g->nstr, dv, 5),
			    .rank = opt(dv, 7),
			    .compute_capability = text(dv, 8),
			    .sm_count = opt(dv, 9),
			    .clock_hz = opt(dv, 10),
			    .memory_bytes = opt(dv, 11),
			    .memory_bandwidth_bps = opt(dv, 12),
			    .peak_flops = opt_real(dv, 13),
			    .max_threads_per_sm = opt(dv, 14),
			    .max_regs_per_sm = opt(dv, 15),
			    .max_smem_per_sm = opt(dv, 16),
			};
			if (!tk_id_ok(id, g->in->dev.slots))
				rc = MG_FAIL(g, "devices", id, TK_ID_RANGE_MSG);
			else if (remap(&g->in->proc, opt(dv, 6), &d.process_id))
				rc = MG_FAIL(g, "devices", id, "process_id is not a process");
			else if ((rc = tk_writer_add_device(g->w, &d, &nid)) == TK_OK)
				g->in->dev.v[id] = nid;
		}
	}
	if (rc == TK_OK && r != SQLITE_DONE)
		rc = sql_fail(g, "sources");
out:
	sqlite3_finalize(src);
	sqlite3_finalize(pr);
	sqlite3_finalize(dv);
	return rc;
}

static int put_tracks(struct mg *g, char **s)
{
	static const char *const kinds[] = {"thread", "stream", "derived", "counter"};
	sqlite3_stmt *st = NULL;
	int rc;
	if ((rc = map_init(g, &g->in->track, "tracks", "id")) != TK_OK ||
	    (rc = prepare(g,
			  "SELECT id, kind, name_id, process_id, device_id, tid, stream_id, unit "
			  "FROM tracks ORDER BY id",
			  &st, "tracks")) != TK_OK)
		goto out;
	while (rc == TK_OK && sqlite3_step(st) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(st, 0), nid;
		const char *k = text(st, 1);
		struct tk_track_info t = {.kind = 4,
					  .name = str_of(s, g->nstr, st, 2),
					  .tid = opt(st, 5),
					  .stream_id = opt(st, 6),
					  .unit = text(st, 7)};
		for (int i = 0; i < 4 && k; i++)
			if (!strcmp(k, kinds[i]))
				t.kind = (enum tk_track_kind)i;
		if (!tk_id_ok(id, g->in->track.slots))
			rc = MG_FAIL(g, "tracks", id, TK_ID_RANGE_MSG);
		else if (t.kind == 4)
			rc = MG_FAIL(g, "tracks", id,
				     "kind is not thread, stream, derived or counter");
		else if (remap(&g->in->proc, opt(st, 3), &t.process_id) ||
			 remap(&g->in->dev, opt(st, 4), &t.device_id))
			rc = MG_FAIL(g, "tracks", id, "process_id or device_id names no row");
		else if ((rc = tk_writer_add_track(g->w, &t, &nid)) == TK_OK)
			g->in->track.v[id] = nid;
	}
out:
	sqlite3_finalize(st);
	return rc;
}

/* The events (every one, or the summary's) with their kernel, copy, set and step details. */
static int put_events(struct mg *g, char **s)
{
	sqlite3_stmt *st = NULL;
	int rc;
	char sql[1400];
	snprintf(sql, sizeof(sql),
		 "SELECT e.id, e.track_id, e.kind, e.name_id, e.category_id, e.ts_ns, e.dur_ns, "
		 "e.correlation_id, k.event_id, k.mangled_name_id, k.grid_x, k.grid_y, k.grid_z, "
		 "k.block_x, k.block_y, k.block_z, k.registers, k.static_smem, k.dynamic_smem, "
		 "k.occupancy, k.blocks_per_sm, k.warps_per_sm, c.event_id, c.bytes, c.copy_kind, "
		 "c.src_mem_kind, c.dst_mem_kind, c.src_device_id, c.dst_device_id, m.event_id, "
		 "m.bytes, m.value, m.mem_kind, p.event_id, p.step_num FROM events e "
		 "LEFT JOIN kernel_details k ON k.event_id = e.id "
		 "LEFT JOIN copy_details c ON c.event_id = e.id "
		 "LEFT JOIN set_details m ON m.event_id = e.id "
		 "LEFT JOIN step_details p ON p.event_id = e.id %s ORDER BY e.id",
		 g->o->summary && !g->in->is_summary
		     ? "WHERE e.kind = 11 OR e.id IN (SELECT event_id FROM analysis_comm)"
		     : "");
	if ((!g->o->summary && (rc = map_init(g, &g->in->event, "events", "id")) != TK_OK) ||
	    (rc = prepare(g, sql, &st, "events")) != TK_OK)
		goto out;
	int r;
	while (rc == TK_OK && (r = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(st, 0), nid = 0;
		struct tk_event ev = {.kind = (enum tk_event_kind)sqlite3_column_int(st, 2),
				      .ts_ns = sqlite3_column_int64(st, 5),
				      .dur_ns = sqlite3_column_int64(st, 6),
				      .correlation_id = opt(st, 7)};
		const char *bad = tk_span_check(ev.ts_ns, ev.dur_ns);
		ev.track_id = mg_get(&g->in->track, sqlite3_column_int64(st, 1));
		if (!g->o->summary && !tk_id_ok(id, g->in->event.slots))
			bad = TK_ID_RANGE_MSG;
		else if (ev.track_id == TK_NONE)
			bad = "track_id is not a track";
		if (bad) {
			rc = MG_FAIL(g, "events", id, bad);
			break;
		}
		if ((rc = str_id(g, s, st, 3, "events", id, &ev.name_id)) != TK_OK ||
		    (rc = str_id(g, s, st, 4, "events", id, &ev.category_id)) != TK_OK)
			break;
		if (ev.kind == TK_EV_KERNEL && sqlite3_column_type(st, 8) != SQLITE_NULL) {
			struct tk_kernel_info k = {.registers = opt(st, 16),
						   .static_smem = opt(st, 17),
						   .dynamic_smem = opt(st, 18),
						   .occupancy = opt_real(st, 19),
						   .blocks_per_sm = opt_real(st, 20),
						   .warps_per_sm = opt_real(st, 21)};
			for (int i = 0; i < 3; i++) {
				k.grid[i] = opt(st, 10 + i);
				k.block[i] = opt(st, 13 + i);
			}
			if ((rc = str_id(g, s, st, 9, "kernel_details", id, &k.mangled_name_id)) ==
			    TK_OK)
				rc = tk_writer_add_kernel(g->w, &ev, &k, &nid);
		} else if (ev.kind == TK_EV_MEMCPY && sqlite3_column_type(st, 22) != SQLITE_NULL) {
			struct tk_copy_info c = {
			    .bytes = sqlite3_column_int64(st, 23),
			    .copy_kind = (enum tk_copy_kind)sqlite3_column_int(st, 24),
			    .src_kind = (enum tk_mem_kind)sqlite3_column_int(st, 25),
			    .dst_kind = (enum tk_mem_kind)sqlite3_column_int(st, 26)};
			if (remap(&g->in->dev, opt(st, 27), &c.src_device_id) ||
			    remap(&g->in->dev, opt(st, 28), &c.dst_device_id))
				rc = MG_FAIL(g, "copy_details", id, "device id is not a device");
			else
				rc = tk_writer_add_copy(g->w, &ev, &c, &nid);
		} else if (ev.kind == TK_EV_MEMSET && sqlite3_column_type(st, 29) != SQLITE_NULL) {
			struct tk_set_info m = {.bytes = sqlite3_column_int64(st, 30),
						.value = opt(st, 31),
						.mem_kind =
						    (enum tk_mem_kind)sqlite3_column_int(st, 32)};
			rc = tk_writer_add_set(g->w, &ev, &m, &nid);
		} else if (ev.kind == TK_EV_STEP && sqlite3_column_type(st, 33) != SQLITE_NULL) {
			rc = tk_writer_add_step(g->w, &ev, sqlite3_column_int64(st, 34), &nid);
		} else {
			rc = tk_writer_add_event(g->w, &ev, &nid);
		}
		if (rc == TK_OK && g->o->summary)
			rc = sparse_add(g, &g->in->event, id, nid);
		else if (rc == TK_OK)
			g->in->event.v[id] = nid;
	}
	if (rc == TK_OK && r != SQLITE_DONE)
		rc = sql_fail(g, "events");
out:
	sqlite3_finalize(st);
	return rc;
}

/* Op details, flows and args of the events kept (rows of others are left out). */
static int put_event_rows(struct mg *g, char **s)
{
	sqlite3_stmt *op = NULL, *fl = NULL, *ar = NULL;
	int rc;
	if ((rc = prepare(g,
			  "SELECT event_id, hlo_op_id, hlo_module_id, framework_op_id, "
			  "op_category_id, program_id, flops, bytes_accessed FROM op_details "
			  "ORDER BY event_id",
			  &op, "op_details")) != TK_OK ||
	    (rc = prepare(g, "SELECT id, kind, src_event_id, dst_event_id FROM flows ORDER BY id",
			  &fl, "flows")) != TK_OK ||
	    (rc = prepare(g,
			  g->o->summary && !g->in->is_summary
			      ? "SELECT rowid, event_id, key_id, value FROM args WHERE key_id IN"
				" (SELECT id FROM strings WHERE str IN (" TKU_COMM_ARG_KEYS "))"
				" ORDER BY rowid"
			      : "SELECT rowid, event_id, key_id, value FROM args ORDER BY rowid",
			  &ar, "args")) != TK_OK)
		goto out;
	while (rc == TK_OK && sqlite3_step(op) == SQLITE_ROW) {
		int64_t ev = mg_get(&g->in->event, sqlite3_column_int64(op, 0));
		if (ev == TK_NONE)
			continue;
		struct tk_op_info o = {.hlo_op = str_of(s, g->nstr, op, 1),
				       .hlo_module = str_of(s, g->nstr, op, 2),
				       .framework_op = str_of(s, g->nstr, op, 3),
				       .op_category = str_of(s, g->nstr, op, 4),
				       .program_id = opt(op, 5),
				       .flops = opt(op, 6),
				       .bytes_accessed = opt(op, 7)};
		rc = tk_writer_add_op_details(g->w, ev, &o);
	}
	while (rc == TK_OK && sqlite3_step(fl) == SQLITE_ROW) {
		int64_t a = mg_get(&g->in->event, sqlite3_column_int64(fl, 2)),
			b = mg_get(&g->in->event, sqlite3_column_int64(fl, 3));
		const char *kind = text(fl, 1);
		if (a != TK_NONE && b != TK_NONE)
			rc = tk_writer_add_flow(g->w, kind ? kind : "", a, b);
	}
	while (rc == TK_OK && sqlite3_step(ar) == SQLITE_ROW) {
		int64_t row = sqlite3_column_int64(ar, 0);
		int64_t ev = mg_get(&g->in->event, sqlite3_column_int64(ar, 1));
		const char *key = str_of(s, g->nstr, ar, 2);
		if (ev == TK_NONE)
			continue;
		if (!key) {
			rc = MG_FAIL(g, "args", row, "key_id is not in table strings");
			break;
		}
		switch (sqlite3_column_type(ar, 3)) {
		case SQLITE_INTEGER:
			rc = tk_writer_add_arg_int(g->w, ev, key, sqlite3_column_int64(ar, 3));
			break;
		case SQLITE_FLOAT:
			rc = tk_writer_add_arg_real(g->w, ev, key, sqlite3_column_double(ar, 3));
			break;
		default:
			rc = tk_writer_add_arg_text(g->w, ev, key, text(ar, 3));
		}
	}
out:
	sqlite3_finalize(op);
	sqlite3_finalize(fl);
	sqlite3_finalize(ar);
	return rc;
}

/* Counters and memory events (the full merge only). */
static int put_samples(struct mg *g, char **s)
{
	sqlite3_stmt *ct = NULL, *mr = NULL;
	int rc;
	if ((rc = prepare(g, "SELECT rowid, track_id, ts_ns, value FROM counters ORDER BY rowid",
			  &ct, "counters")) != TK_OK ||
	    (rc =
		 prepare(g,
			 "SELECT id, ts_ns, kind, device_id, process_id, address, bytes, mem_kind, "
			 "allocator_id, op_event_id, bytes_in_use, bytes_reserved, "
			 "bytes_available, peak_bytes_in_use, requested_bytes, fragmentation, "
			 "op_name_id FROM memory_records ORDER BY id",
			 &mr, "memory_records")) != TK_OK)
		goto out;
	while (rc == TK_OK && sqlite3_step(ct) == SQLITE_ROW) {
		int64_t row = sqlite3_column_int64(ct, 0);
		int64_t t = mg_get(&g->in->track, sqlite3_column_int64(ct, 1));
		if (t == TK_NONE || !tk_time_ok(sqlite3_column_int64(ct, 2)))
			rc = MG_FAIL(g, "counters", row, "track_id or ts_ns is invalid");
		else
			rc = tk_writer_add_counter(g->w, t, sqlite3_column_int64(ct, 2),
						   sqlite3_column_double(ct, 3));
	}
	while (rc == TK_OK && sqlite3_step(mr) == SQLITE_ROW) {
		int64_t row = sqlite3_column_int64(mr, 0);
		const char *kind = text(mr, 2);
		struct tk_memory_event m = {
		    .ts_ns = sqlite3_column_int64(mr, 1),
		    .is_free = kind && !strcmp(kind, "free"),
		    .address = opt(mr, 5),
		    .bytes = sqlite3_column_int64(mr, 6),
		    .mem_kind = (enum tk_mem_kind)sqlite3_column_int(mr, 7),
		    .allocator = str_of(s, g->nstr, mr, 8),
		    .bytes_in_use = opt(mr, 10),
		    .bytes_reserved = opt(mr, 11),
		    .bytes_available = opt(mr, 12),
		    .peak_bytes_in_use = opt(mr, 13),
		    .requested_bytes = opt(mr, 14),
		    .fragmentation = opt_real(mr, 15),
		    .op_name = str_of(s, g->nstr, mr, 16),
		};
		if (!tk_time_ok(m.ts_ns) || remap(&g->in->dev, opt(mr, 3), &m.device_id) ||
		    remap(&g->in->proc, opt(mr, 4), &m.process_id) ||
		    remap(&g->in->event, opt(mr, 9), &m.op_event_id))
			rc = MG_FAIL(g, "memory_records", row, "a time or an id is invalid");
		else
			rc = tk_writer_add_memory_event(g->w, &m);
	}
out:
	sqlite3_finalize(ct);
	sqlite3_finalize(mr);
	return rc;
}

/* Meta facts but those the writer and the analysis write themselves; later inputs win. */
static int put_meta(struct mg *g)
{
	sqlite3_stmt *st = NULL;
	int rc = prepare(g,
			 "SELECT key, value FROM meta WHERE key NOT IN ('schema_version', "
			 "'tracekit_version', 'trace_start_ns', 'trace_end_ns', "
			 "'analysis_version', 'job_summary') ORDER BY rowid",
			 &st, "meta");
	while (rc == TK_OK && sqlite3_step(st) == SQLITE_ROW) {
		const char *key = text(st, 0);
		if (!key)
			continue;
		if (sqlite3_column_type(st, 1) == SQLITE_INTEGER)
			rc = tk_writer_set_meta_int(g->w, key, sqlite3_column_int64(st, 1));
		else if (sqlite3_column_type(st, 1) != SQLITE_NULL)
			rc = tk_writer_set_meta_text(g->w, key, text(st, 1));
	}
	sqlite3_finalize(st);
	return rc;
}

static int put_store(tk_writer *w, struct mg_in *in, const struct tk_merge_options *o)
{
	struct mg g = {.w = w, .in = in, .o = o};
	char **s = NULL;
	int rc;
	if ((rc = strings_load(&g, &s)) == TK_OK && (rc = put_entities(&g, s)) == TK_OK &&
	    (rc = put_tracks(&g, s)) == TK_OK && (rc = put_events(&g, s)) == TK_OK &&
	    (rc = put_event_rows(&g, s)) == TK_OK &&
	    (o->summary || (rc = put_samples(&g, s)) == TK_OK))
		rc = put_meta(&g);
	for (int64_t i = 0; s && i < g.nstr; i++)
		free(s[i]);
	free(s);
	free(g.str);
	return rc;
}

static void map_free(struct mg_map *m)
{
	free(m->v);
	free(m->keys);
	memset(m, 0, sizeof(*m));
}

/* The ranks a store states (sources, processes, devices), to refuse two stores of one rank. */
struct mg_rank {
	int64_t rank;
	size_t input;
};

static int cmp_rank(const void *pa, const void *pb)
{
	const struct mg_rank *a = pa, *b = pb;
	if (a->rank != b->rank)
		return a->rank < b->rank ? -1 : 1;
	return a->input < b->input ? -1 : a->input > b->input;
}

static int open_input(struct mg_in *in, const struct tk_merge_options *o, tk_error *err)
{
	int rc = tk_store_open(in->path, &in->s);
	if (rc != TK_OK) {
		tk_error_copy(err, tk_store_error(in->s));
		if (!tk_error_cause_count(err))
			tk_error_push_from(err, "merge", rc, "%s", tk_store_errmsg(in->s));
		tk_error_push_from(err, "merge", rc, "cannot merge '%s'", in->path);
		return rc;
	}
	in->db = tk_store_sqlite(in->s);
	char v[32];
	in->is_summary = tk_store_meta_text(in->s, "job_summary", v, sizeof(v)) == TK_OK;
	/* a summary's analysis tables are the copies it was made with: no analysis needed */
	if (o->summary && !in->is_summary &&
	    (tk_store_meta_text(in->s, "analysis_version", v, sizeof(v)) != TK_OK ||
	     atoi(v) != TK_ANALYSIS_VERSION))
		return tk_error_push_from(
		    err, "merge", TK_EINVAL,
		    "store '%s' has no current analysis: a job summary copies the analysis "
		    "tables of its inputs (run tracekit analyze on it first)",
		    in->path);
	return TK_OK;
}

static void close_input(struct mg_in *in)
{
	tk_store_close(in->s);
	in->s = NULL;
	in->db = NULL;
}

/* Read the ranks of input @i into @r; the same store given twice is refused. */
static int check_input(struct mg_in *in, size_t i, struct tk_input_id *ids, struct mg_rank **r,
		       size_t *nr, size_t *cap, tk_error *err)
{
	int rc = tk_import_input_id(in[i].path, &ids[i], err);
	if (rc != TK_OK)
		return rc;
	for (size_t j = 0; j < i; j++)
		if (tk_import_input_same(&ids[j], &ids[i], 0) != TK_INPUT_DIFFERENT)
			return tk_error_push_from(err, "merge", TK_EINVAL,
						  "inputs '%s' and '%s' are the same store: give "
						  "each store once",
						  in[j].path, in[i].path);
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(in[i].db,
			       "SELECT rank FROM sources WHERE rank IS NOT NULL UNION "
			       "SELECT rank FROM processes WHERE rank IS NOT NULL UNION "
			       "SELECT rank FROM devices WHERE rank IS NOT NULL",
			       -1, &st, NULL) != SQLITE_OK)
		return tk_error_push_from(err, "merge", TK_EFORMAT, "store '%s': %s", in[i].path,
					  sqlite3_errmsg(in[i].db));
	while (rc == TK_OK && sqlite3_step(st) == SQLITE_ROW) {
		if (TKU_GROW(*r, *cap, *nr + 1, 64) != TK_OK)
			rc = tk_error_push_from(err, "merge", TK_ENOMEM, "out of memory");
		else
			(*r)[(*nr)++] = (struct mg_rank){sqlite3_column_int64(st, 0), i};
	}
	sqlite3_finalize(st);
	return rc;
}

/* Every input is a store, given once, of ranks no other input has. */
static int check_inputs(struct mg_in *in, size_t n, const struct tk_merge_options *o, tk_error *err)
{
	struct tk_input_id *ids = calloc(n, sizeof(*ids));
	struct mg_rank *r = NULL;
	size_t nr = 0, cap = 0;
	int rc = ids ? TK_OK : tk_error_push_from(err, "merge", TK_ENOMEM, "out of memory");
	for (size_t i = 0; i < n && rc == TK_OK; i++) {
		if ((rc = open_input(&in[i], o, err)) == TK_OK)
			rc = check_input(in, i, ids, &r, &nr, &cap, err);
		close_input(&in[i]);
	}
	/* job summaries merge into a job summary; with full stores only under --summary */
	size_t sum = n, full = n;
	for (size_t i = n; i-- > 0;)
		*(in[i].is_summary ? &sum : &full) = i;
	if (rc == TK_OK && !o->summary && sum < n && full < n)
		rc = tk_error_push_from(err, "merge", TK_EINVAL,
					"'%s' is a job summary and '%s' is not: merge them with "
					"--summary (a job summary of both) or merge the per-rank "
					"stores",
					in[sum].path, in[full].path);
	if (rc == TK_OK && nr > 1)
		qsort(r, nr, sizeof(*r), cmp_rank);
	for (size_t k = 1; rc == TK_OK && k < nr; k++)
		if (r[k].rank == r[k - 1].rank && r[k].input != r[k - 1].input)
			rc = tk_error_push_from(
			    err, "merge", TK_EINVAL,
			    "stores '%s' and '%s' both hold rank %lld: each rank "
			    "may come from one store only",
			    in[r[k - 1].input].path, in[r[k].input].path, (long long)r[k].rank);
	free(ids);
	free(r);
	return rc;
}

/* The analysis tables of the summary, copied into the finished store at @tmp. */
static int finish_summary(const char *tmp, struct mg_in *in, size_t n, tk_error *err)
{
	tk_store *s = NULL;
	int rc = tk_store_open_mode(tmp, TK_STORE_READ_WRITE, &s);
	if (rc != TK_OK) {
		tk_error_copy(err, tk_store_error(s));
		goto out;
	}
	sqlite3 *db = tk_store_sqlite(s);
	if (sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK) {
		rc = tk_error_push_from(err, "sqlite", TK_EIO, "%s", sqlite3_errmsg(db));
		goto out;
	}
	if ((rc = tkm_copy_analysis(db, in, n, err)) == TK_OK &&
	    sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
		rc = tk_error_push_from(err, "sqlite", TK_EIO, "%s", sqlite3_errmsg(db));
	if (rc != TK_OK)
		sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
out:
	tk_store_close(s);
	return rc;
}

int tk_merge(const char *output, const char *const *inputs, size_t n,
	     const struct tk_merge_options *o, struct tk_writer_stats *st, tk_error *err)
{
	struct tk_merge_options defaults, summary;
	struct mg_in *in = NULL;
	tk_writer *w = NULL;
	char *tmp = NULL;
	int fd = -1, rc;
	tk_error_clear(err);
	if (st)
		memset(st, 0, sizeof(*st));
	if (!o) {
		tk_merge_options_init(&defaults);
		o = &defaults;
	}
	if (!output || !inputs || !n)
		return tk_error_push_from(err, "merge", TK_EINVAL, "no output or no input");
	if (!(in = calloc(n, sizeof(*in)))) {
		rc = tk_error_push_from(err, "merge", TK_ENOMEM, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < n; i++)
		in[i].path = inputs[i];
	if ((rc = check_inputs(in, n, o, err)) != TK_OK)
		goto out;
	size_t nsum = 0;
	for (size_t i = 0; i < n; i++)
		nsum += in[i].is_summary;
	if (nsum == n && !o->summary) { /* job summaries merge into a job summary */
		summary = *o;
		summary.summary = 1;
		o = &summary;
	}
	/* A summary is finished under a temporary name, its analysis tables added, then renamed. */
	const char *target = output;
	if (o->summary) {
		int e = tko_tmp_create(output, &tmp, &fd);
		if (e) {
			rc = tk_error_push_from(err, "os", TK_EIO, "cannot write '%s': %s", output,
						strerror(e));
			goto out;
		}
		target = tmp;
	}
	if ((rc = tk_writer_create(target, &w)) != TK_OK)
		goto writer_failed;
	if (o->summary && (rc = tk_writer_set_meta_int(w, "job_summary", 1)) != TK_OK)
		goto writer_failed;
	for (size_t i = 0; i < n; i++) {
		if ((rc = open_input(&in[i], o, tk_writer_error(w))) != TK_OK ||
		    (rc = put_store(w, &in[i], o)) != TK_OK) {
			close_input(&in[i]);
			goto writer_failed;
		}
		close_input(&in[i]);
		if (!o->summary)
			map_free(&in[i].event);
	}
	if (st)
		tk_writer_get_stats(w, st);
	rc = tk_writer_finish(w, err);
	w = NULL;
	if (rc != TK_OK)
		goto out;
	if (o->summary) {
		if ((rc = finish_summary(tmp, in, n, err)) != TK_OK)
			goto out;
		int e = tko_tmp_commit(fd, tmp, output);
		if (e) {
			rc = tk_error_push_from(err, "os", TK_EIO, "cannot write '%s': %s", output,
						strerror(e));
			goto out;
		}
		free(tmp);
		tmp = NULL;
	}
	goto out;
writer_failed:
	if (w) {
		rc = tk_writer_status(w) != TK_OK ? tk_writer_status(w) : rc;
		tk_error_copy(err, tk_writer_error(w));
	}
out:
	tk_writer_abort(w);
	if (tmp)
		unlink(tmp);
	if (fd >= 0)
		close(fd);
	free(tmp);
	for (size_t i = 0; in && i < n; i++) {
		close_input(&in[i]);
		map_free(&in[i].proc);
		map_free(&in[i].dev);
		map_free(&in[i].track);
		map_free(&in[i].event);
	}
	free(in);
	return rc;
}

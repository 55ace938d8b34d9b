/*
 * Perfetto export, tracks and counters: the TrackDescriptor packets (a process track per process,
 * a thread track per host thread, a track per device with its streams and derived lines as
 * children in stream order, counter tracks; extra lanes on demand), then the counter samples of
 * the store, memory in use per device and allocator (from allocations and frees that report it)
 * and, when `tracekit analyze` has run, device utilization per step.
 */
#include "util/utf8.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tracekit/error.h>
#include <tracekit/text.h>

#include "checked.h"
#include "perfetto_out.h"
#include "util/vec.h"

/* A TrackDescriptor: uuid, name, parent, and an optional process/thread/counter body. */
struct desc {
	uint64_t uuid, parent;
	const char *name;
	int64_t pid, tid; /* process (pid only) or thread (both) when set */
	int process, thread, counter, explicit_children;
	const char *unit;
	int64_t rank; /* sibling_order_rank, or TK_NONE */
};

static int descriptor(struct pf *f, const struct desc *d)
{
	uint8_t body[2048], sub[1024], *p = body, *q = sub;
	const char *name = d->name ? d->name : "", *u = d->unit ? d->unit : "";
	size_t nl = strlen(name), ul = strlen(u);
	char *own_name = NULL, *own_unit = NULL;
	/* proto3 strings are UTF-8: names cut into buffers above may end in half a character */
	if (ex_utf8(&name, &nl, &own_name) != TK_OK || ex_utf8(&u, &ul, &own_unit) != TK_OK) {
		free(own_name);
		return ex_fail(f->x, TK_ENOMEM, "out of memory");
	}
	nl = tku_utf8_prefix(name, nl, 900);
	ul = tku_utf8_prefix(u, ul, 100);
	p = pb_uint(p, 1, d->uuid);
	if (d->process) {
		q = pb_uint(q, 1, (uint64_t)d->pid);
		q = pb_bytes(q, 6, name, nl);
		p = pb_bytes(p, 3, sub, (size_t)(q - sub));
	} else if (d->thread) {
		q = pb_uint(q, 1, (uint64_t)d->pid);
		q = pb_uint(q, 2, (uint64_t)d->tid);
		q = pb_bytes(q, 5, name, nl);
		p = pb_bytes(p, 4, sub, (size_t)(q - sub));
	} else {
		p = pb_bytes(p, 2, name, nl);
		if (d->parent)
			p = pb_uint(p, 5, d->parent);
	}
	if (d->counter) {
		if (!strcmp(u, "bytes"))
			q = pb_uint(sub, 3, 3); /* UNIT_SIZE_BYTES */
		else
			q = pb_bytes(sub, 6, u, ul);
		p = pb_bytes(p, 8, sub, (size_t)(q - sub));
	}
	free(own_name);
	free(own_unit);
	if (d->explicit_children)
		p = pb_uint(p, 11, 3); /* child_ordering EXPLICIT */
	if (d->rank != TK_NONE)
		p = pb_uint(p, 12, (uint64_t)(int32_t)d->rank);
	if (!d->process && !d->thread)
		p = pb_uint(p, 15, 2); /* sibling_merge_behavior NONE: lanes stay apart */
	size_t n = (size_t)(p - body);
	uint8_t *o = ex_out_room(&f->out, n + 16);
	if (!o)
		return TK_EIO;
	uint8_t *r = pb_varint(pb_tag(o, 1, PB_LEN), n + 2 + pb_varint_size(n));
	r = pb_bytes(r, 60, body, n);
	f->out.len += (size_t)(r - o);
	return TK_OK;
}

int pf_lane_descriptor(struct pf *f, const struct pf_track *t, int64_t track, int lane)
{
	char name[600];
	snprintf(name, sizeof(name), "%s (lane %d)", ex_str(f->x, t->name_id), lane + 1);
	struct desc d = {.uuid = pf_lane_uuid(track, lane),
			 .parent = t->parent,
			 .name = name,
			 .rank = t->rank == TK_NONE ? TK_NONE : t->rank * PF_LANES + lane};
	return descriptor(f, &d);
}

static int64_t col(sqlite3_stmt *st, int i, int64_t dflt)
{
	return sqlite3_column_type(st, i) == SQLITE_NULL ? dflt : sqlite3_column_int64(st, i);
}

int pf_tracks(struct pf *f)
{
	struct tk_exporter *x = f->x;
	sqlite3_stmt *st = NULL;
	char name[600];
	int rc, step;
	int64_t nproc, ndev;
	/* Tracks by id, bounded by the rows (store/checked.h); ids are checked as they come. */
	if ((rc = ex_id_slots(x, "tracks", &f->ntracks)) != TK_OK ||
	    (rc = ex_id_slots(x, "processes", &nproc)) != TK_OK ||
	    (rc = ex_id_slots(x, "devices", &ndev)) != TK_OK ||
	    (rc = ex_prepare(x, "SELECT coalesce(max(id), 0) + 1 FROM strings", &st)) != TK_OK)
		return rc;
	if (sqlite3_step(st) == SQLITE_ROW) {
		int64_t n = sqlite3_column_int64(st, 0);
		/* ids past the bitmap are interned again on every use (perfetto_out.c: seen()) */
		f->nbits = n < 1			    ? 1
			   : (uint64_t)n > PF_MAX_NAME_BITS ? PF_MAX_NAME_BITS
							    : (uint64_t)n;
	}
	sqlite3_finalize(st);
	st = NULL;
	f->tracks = calloc((size_t)f->ntracks, sizeof(*f->tracks));
	f->names = calloc(f->nbits / 8 + 1, 1);
	f->cats = calloc(f->nbits / 8 + 1, 1);
	if (!f->tracks || !f->names || !f->cats)
		return ex_fail(x, TK_ENOMEM, "out of memory");
	/* processes */
	if ((rc = ex_prepare(x, "SELECT id, pid, coalesce(name_id, 0) FROM processes ORDER BY id",
			     &st)) != TK_OK)
		return rc;
	while (rc == TK_OK && (step = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(st, 0);
		if ((rc = ex_check_id(x, "processes", id, nproc)) != TK_OK)
			break;
		const char *n = ex_str(x, (uint32_t)sqlite3_column_int64(st, 2));
		struct desc d = {.uuid = PF_UUID_PROC + (uint64_t)id,
				 .name = n[0] ? n : "process",
				 .process = 1,
				 .pid = col(st, 1, 2000000 + id),
				 .rank = TK_NONE};
		rc = descriptor(f, &d);
	}
	sqlite3_finalize(st);
	if (rc == TK_OK && step != SQLITE_DONE)
		rc = ex_fail_sql(x, "processes");
	if (rc != TK_OK)
		return rc;
	/* devices */
	if ((rc = ex_prepare(
		 x, "SELECT id, ordinal, coalesce(name_id, 0), kind FROM devices ORDER BY id",
		 &st)) != TK_OK)
		return rc;
	while (rc == TK_OK && (step = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(st, 0);
		if ((rc = ex_check_id(x, "devices", id, ndev)) != TK_OK)
			break;
		const char *n = ex_str(x, (uint32_t)sqlite3_column_int64(st, 2));
		const char *kind = (const char *)sqlite3_column_text(st, 3);
		snprintf(name, sizeof(name), "%s %lld%s%s%s",
			 kind && !strcmp(kind, "tpu") ? "TPU" : "GPU",
			 (long long)sqlite3_column_int64(st, 1), n[0] ? " (" : "", n,
			 n[0] ? ")" : "");
		struct desc d = {.uuid = PF_UUID_DEV + (uint64_t)id,
				 .name = name,
				 .explicit_children = 1,
				 .rank = TK_NONE};
		rc = descriptor(f, &d);
	}
	sqlite3_finalize(st);
	if (rc == TK_OK && step != SQLITE_DONE)
		rc = ex_fail_sql(x, "devices");
	if (rc != TK_OK)
		return rc;
	/* tracks */
	if ((rc = ex_prepare(
		 x,
		 "SELECT t.id, t.kind, coalesce(t.name_id, 0), t.process_id, t.device_id, "
		 "t.tid, t.stream_id, p.pid, t.unit FROM tracks t LEFT JOIN processes p "
		 "ON p.id = t.process_id ORDER BY t.id",
		 &st)) != TK_OK)
		return rc;
	while (rc == TK_OK && (step = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(st, 0);
		if ((rc = ex_check_id(x, "tracks", id, f->ntracks)) != TK_OK)
			break;
		const char *kind = (const char *)sqlite3_column_text(st, 1);
		struct pf_track *t = &f->tracks[id];
		t->name_id = (uint32_t)sqlite3_column_int64(st, 2);
		int64_t proc = col(st, 3, 0), dev = col(st, 4, -1);
		const char *n = ex_str(x, t->name_id);
		struct desc d = {.uuid = PF_UUID_TRACK + (uint64_t)id, .rank = TK_NONE};
		t->parent = dev >= 0 ? PF_UUID_DEV + (uint64_t)dev
			    : proc   ? PF_UUID_PROC + (uint64_t)proc
				     : 0;
		t->rank = TK_NONE;
		if (kind && !strcmp(kind, "counter")) {
			d.counter = 1;
			d.unit = (const char *)sqlite3_column_text(st, 8);
			d.parent = t->parent;
			d.name = n[0] ? n : "counter";
			rc = descriptor(f, &d);
			continue;
		}
		t->has = 1;
		if (dev < 0 && kind && !strcmp(kind, "thread")) {
			d.thread = 1;
			/* a process id naming no process row: the pid of unknown processes */
			d.pid = col(st, 7, proc > 0 && proc < nproc ? 2000000 + proc : 3000000);
			d.tid = col(st, 5, 100000 + id);
			snprintf(name, sizeof(name), "%s", n[0] ? n : "thread");
		} else {
			d.parent = t->parent;
			int64_t sid = col(st, 6, TK_NONE);
			if (n[0])
				snprintf(name, sizeof(name), "%s", n);
			else if (sid != TK_NONE)
				snprintf(name, sizeof(name), "Stream #%lld", (long long)sid);
			else
				snprintf(name, sizeof(name), "track %lld", (long long)id);
			t->rank =
			    sid != TK_NONE && sid >= 0 && sid < (1 << 20) ? sid : (1 << 20) + id;
			d.rank = t->rank * PF_LANES;
			if (t->name_id == 0)
				t->name_id = 0; /* lanes fall back to the track's own name below */
		}
		d.name = name;
		rc = descriptor(f, &d);
	}
	sqlite3_finalize(st);
	if (rc == TK_OK && step != SQLITE_DONE)
		rc = ex_fail_sql(x, "tracks");
	return rc != TK_OK ? rc : f->out.failed ? TK_EIO : TK_OK;
}

/* The memory-in-use counter track of (device, allocator), described on first use. */
static int mem_track(struct pf *f, int64_t dev, uint32_t alloc, uint64_t *uuid)
{
	*uuid = PF_UUID_MEM + (((uint64_t)dev + 1) << 32) + alloc;
	for (size_t i = 0; i < f->nmem; i++)
		if (f->mem[i] == *uuid)
			return TK_OK;
	if (TKU_GROW(f->mem, f->capmem, f->nmem + 1, 16) != TK_OK)
		return ex_fail(f->x, TK_ENOMEM, "out of memory");
	f->mem[f->nmem++] = *uuid;
	char name[400];
	const char *a = ex_str(f->x, alloc);
	snprintf(name, sizeof(name), "Memory in use%s%s%s", a[0] ? " (" : "", a, a[0] ? ")" : "");
	struct desc d = {.uuid = *uuid,
			 .parent = dev >= 0 ? PF_UUID_DEV + (uint64_t)dev : 0,
			 .name = name,
			 .counter = 1,
			 .unit = "bytes",
			 .rank = -1};
	return descriptor(f, &d);
}

static const struct ex_table T_COUNTERS = {
    "counters", "rowid", {"track_id", "ts_ns", "value", NULL}, -1};
static const struct ex_table T_MEMORY = {
    "memory_records", "id", {"id", "ts_ns", "device_id", "allocator_id", "bytes_in_use", NULL}, 0};

int pf_counters(struct pf *f)
{
	struct tk_exporter *x = f->x;
	sqlite3_stmt *st = NULL;
	struct ex_cur c;
	int rc, r;
	/* counters has no rowid alias: its rows come in rowid order either way */
	if ((rc = ex_cur_open(x, &c, &T_COUNTERS, 0, NULL)) != TK_OK)
		return rc;
	for (int64_t row = 1; (r = ex_cur_step(x, &c)) == 1; row++) {
		if (!tk_time_ok(ex_cur_z(&c, 1))) {
			r = ex_fail_row(x, "counters", row, "ts_ns out of range");
			break;
		}
		pf_counter(f, PF_UUID_TRACK + (uint64_t)ex_cur_z(&c, 0), ex_cur_z(&c, 1),
			   ex_cur_null(&c, 2) ? 0 : ex_cur_r(&c, 2));
	}
	ex_cur_close(&c);
	if (r < 0)
		return TK_EFORMAT;
	if ((rc = ex_cur_open(x, &c, &T_MEMORY, 0, NULL)) != TK_OK)
		return rc;
	while (rc == TK_OK && (r = ex_cur_step(x, &c)) == 1) {
		if (ex_cur_null(&c, 4))
			continue;
		if (!tk_time_ok(ex_cur_z(&c, 1))) {
			rc =
			    ex_fail_row(x, "memory_records", ex_cur_z(&c, 0), "ts_ns out of range");
			break;
		}
		uint64_t uuid;
		rc = mem_track(f, ex_cur_null(&c, 2) ? -1 : ex_cur_z(&c, 2),
			       (uint32_t)ex_cur_z(&c, 3), &uuid);
		if (rc == TK_OK)
			pf_counter(f, uuid, ex_cur_z(&c, 1), (double)ex_cur_z(&c, 4));
		x->stats.memory_events++;
	}
	ex_cur_close(&c);
	if (rc == TK_OK && r < 0)
		rc = TK_EFORMAT;
	if (rc != TK_OK)
		return rc;
	/* Utilization per step, when the analyses have been computed. */
	if (sqlite3_prepare_v2(x->db,
			       "SELECT device_id, start_ns, end_ns, busy_ns, dur_ns FROM "
			       "analysis_steps ORDER BY device_id, start_ns",
			       -1, &st, NULL) == SQLITE_OK) {
		int64_t cur = -1, last_end = 0;
		while (sqlite3_step(st) == SQLITE_ROW) {
			int64_t dev = sqlite3_column_int64(st, 0);
			uint64_t uuid = PF_UUID_UTIL + (uint64_t)dev;
			if (dev != cur) {
				if (cur >= 0)
					pf_counter(f, PF_UUID_UTIL + (uint64_t)cur, last_end, 0);
				cur = dev;
				struct desc d = {.uuid = uuid,
						 .parent = PF_UUID_DEV + (uint64_t)dev,
						 .name = "Utilization per step (%)",
						 .counter = 1,
						 .unit = "%",
						 .rank = -2};
				if ((rc = descriptor(f, &d)) != TK_OK)
					break;
			}
			int64_t dur = sqlite3_column_int64(st, 4);
			pf_counter(f, uuid, sqlite3_column_int64(st, 1),
				   dur > 0
				       ? 100.0 * (double)sqlite3_column_int64(st, 3) / (double)dur
				       : 0);
			last_end = sqlite3_column_int64(st, 2);
		}
		if (cur >= 0 && rc == TK_OK)
			pf_counter(f, PF_UUID_UTIL + (uint64_t)cur, last_end, 0);
	}
	sqlite3_finalize(st);
	return rc != TK_OK ? rc : f->out.failed ? TK_EIO : TK_OK;
}

/*
 * Perfetto export: a native TrackEvent protobuf trace (.pftrace), hand-encoded (field numbers in
 * notes/perfetto.md §2). Track descriptors first: a process track per process, a thread track
 * per host thread, a track per device with its streams and derived lines as children, counter
 * tracks. Then every event as a SLICE_BEGIN / SLICE_END pair on one sequence with incremental
 * state: names and categories are interned with the store's string ids as iids (sent once, the
 * first time they are used), launch config / bytes / correlation as debug annotations, flows as
 * flow_ids / terminating_flow_ids (the store's flow ids). Slices that would not nest on their
 * track (kernels overlapping on one stream, out-of-order events) go to extra lane tracks. Counter
 * samples and memory in use (from allocations and frees) are counter tracks.
 *
 * Streamed from the merged event scan: memory is the per-track lane state and a bitmap of the
 * strings already interned, whatever the number of events.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tracekit/error.h>

#include "perfetto_out.h"

/* Fixed debug annotation name iids. */
static const char *const da_names[] = {NULL,	      "grid",		"block",     "registers",
				       "static_smem", "dynamic_smem",	"occupancy", "bytes",
				       "copy_kind",   "correlation_id", "step_num",  "hlo_op",
				       "hlo_module",  "stream",		"device"};
enum {
	DA_GRID = 1,
	DA_BLOCK,
	DA_REGS,
	DA_SSMEM,
	DA_DSMEM,
	DA_OCC,
	DA_BYTES,
	DA_COPY_KIND,
	DA_CORR,
	DA_STEP,
	DA_HLO_OP,
	DA_HLO_MODULE,
	DA_STREAM,
	DA_DEVICE,
	DA_N
};

static const char *const copy_names[] = {"unknown", "H2D", "D2H", "D2D", "H2H", "P2P"};

static const char *const kind_names[] = {
    "event",  "host_op",	 "runtime_api", "driver_api",  "annotation",   "kernel",
    "memcpy", "memset",		 "xla_op",	"xla_module",  "framework_op", "step",
    "sync",   "python_function", "other",	"async_xla_op"};

/* ---- lanes ---- */

/* The lane of @t that slice [ts, end] nests in (new lanes as needed); -1 on error. */
static int place(struct pf *f, struct pf_track *t, int64_t track, int64_t ts, int64_t end)
{
	for (int k = 0; k < t->nlanes; k++) {
		struct pf_lane *l = &t->lanes[k];
		if (ts < l->last_start)
			continue;
		unsigned d = l->depth;
		while (d > 0 && d <= PF_DEPTH && l->stack[d - 1] <= ts) {
			d--;
			l->last_start = ts; /* time has moved on in this lane */
		}
		l->depth = d;
		if (d == 0 || (d < PF_DEPTH && end <= l->stack[d - 1])) {
			l->stack[d] = end;
			l->depth = d + 1;
			l->last_start = ts;
			return k;
		}
	}
	if (t->nlanes < PF_LANES) {
		int k = t->nlanes++;
		if (k > 0 && pf_lane_descriptor(f, t, track, k) != TK_OK)
			return -1;
		struct pf_lane *l = &t->lanes[k];
		l->depth = 1;
		l->stack[0] = end;
		l->last_start = ts;
		return k;
	}
	f->misplaced++; /* more overlap than lanes: drawn on the last one */
	return PF_LANES - 1;
}

/* ---- encoding ---- */

static uint8_t *da_int(uint8_t *p, int name, int64_t v)
{
	uint8_t tmp[24], *q = pb_uint(tmp, 1, (uint64_t)name);
	q = pb_uint(q, 4, (uint64_t)v);
	return pb_bytes(p, 4, tmp, (size_t)(q - tmp));
}

static uint8_t *da_double(uint8_t *p, int name, double v)
{
	uint8_t tmp[24], *q = pb_uint(tmp, 1, (uint64_t)name);
	q = pb_double(q, 5, v);
	return pb_bytes(p, 4, tmp, (size_t)(q - tmp));
}

static uint8_t *da_str(uint8_t *p, int name, const char *s, size_t n)
{
	p = pb_tag(p, 4, PB_LEN);
	p = pb_varint(p, 1 + pb_varint_size((uint64_t)name) + 1 + pb_varint_size(n) + n);
	p = pb_uint(p, 1, (uint64_t)name);
	return pb_bytes(p, 6, s, n);
}

static char *put_dec(char *p, int64_t v)
{
	char b[24];
	int n = 0;
	uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
	do {
		b[n++] = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	if (v < 0)
		*p++ = '-';
	while (n)
		*p++ = b[--n];
	return p;
}

static uint8_t *da_dim3(uint8_t *p, int name, const int64_t v[3])
{
	char s[80], *q = s;
	for (int i = 0; i < 3; i++) {
		if (i)
			*q++ = ',';
		q = put_dec(q, v[i] == TK_NONE ? 1 : v[i]);
	}
	return da_str(p, name, s, (size_t)(q - s));
}

/* Interned data for a name or category not sent yet, appended to f->interned. */
static int intern(struct pf *f, uint32_t field, uint64_t iid, const char *s)
{
	size_t n = strlen(s);
	if (ex_buf_reserve(&f->interned, n + 32) != TK_OK)
		return TK_ENOMEM;
	uint8_t *p = f->interned.p + f->interned.len;
	p = pb_tag(p, field, PB_LEN);
	p = pb_varint(p, 1 + pb_varint_size(iid) + 1 + pb_varint_size(n) + n);
	p = pb_uint(p, 1, iid);
	p = pb_bytes(p, 2, s, n);
	f->interned.len = (size_t)(p - f->interned.p);
	return TK_OK;
}

/* 0 the first time @id is asked for (and always past the bitmap: interned again), else 1. */
static int seen(uint8_t *bits, size_t nbits, uint64_t id)
{
	if (id >= nbits)
		return 0;
	if (bits[id >> 3] & (1u << (id & 7)))
		return 1;
	bits[id >> 3] |= (uint8_t)(1u << (id & 7));
	return 0;
}

/* Write one TracePacket: timestamp, @te as its track_event, interned data, flags. */
static void packet(struct pf *f, int64_t ts, const uint8_t *te, size_t ten)
{
	size_t in = f->interned.len;
	size_t body = 1 + pb_varint_size((uint64_t)ts) + 2 + 1 + pb_varint_size(ten) + ten + 2;
	if (in)
		body += 1 + pb_varint_size(in) + in;
	uint8_t *p = ex_out_room(&f->out, body + 16);
	if (!p)
		return;
	uint8_t *q = pb_varint(pb_tag(p, 1, PB_LEN), body);
	q = pb_uint(q, 8, (uint64_t)ts);
	q = pb_uint(q, 10, PF_SEQ);
	q = pb_bytes(q, 11, te, ten);
	if (in)
		q = pb_bytes(q, 12, f->interned.p, in);
	q = pb_uint(q, 13, 2); /* SEQ_NEEDS_INCREMENTAL_STATE */
	f->out.len += (size_t)(q - p);
	f->interned.len = 0;
}

static int slice(struct pf *f, const struct ex_event *e)
{
	struct pf_track *t =
	    e->track_id > 0 && e->track_id < f->ntracks ? &f->tracks[e->track_id] : NULL;
	uint64_t uuid = PF_UUID_TRACK + (uint64_t)e->track_id;
	if (t && t->has) {
		int lane = place(f, t, e->track_id, e->ts, e->ts + e->dur);
		if (lane < 0)
			return TK_EIO;
		uuid = pf_lane_uuid(e->track_id, lane);
	}
	/* interning */
	uint64_t cat = e->cat_id ? e->cat_id : PF_KIND_CAT + (uint64_t)e->kind;
	if (!seen(f->names, f->nbits, e->name_id) &&
	    intern(f, 2, e->name_id, ex_str(f->x, e->name_id)) != TK_OK)
		return ex_fail(f->x, TK_ENOMEM, "out of memory");
	int cat_new =
	    e->cat_id ? !seen(f->cats, f->nbits, e->cat_id) : !f->kind_seen[e->kind & 15]++;
	if (cat_new &&
	    intern(f, 1, cat,
		   e->cat_id ? ex_str(f->x, e->cat_id)
			     : kind_names[e->kind >= 0 && e->kind < (int)(sizeof(kind_names) /
									  sizeof(kind_names[0]))
					      ? e->kind
					      : 0]) != TK_OK)
		return ex_fail(f->x, TK_ENOMEM, "out of memory");
	/* the BEGIN */
	struct ex_buf *b = &f->te;
	size_t need = 128 + 20 * (size_t)(e->nout + e->nin);
	const char *hlo = e->has_op && e->hlo_op ? ex_str(f->x, e->hlo_op) : NULL;
	const char *mod = e->has_op && e->hlo_module ? ex_str(f->x, e->hlo_module) : NULL;
	need += (hlo ? strlen(hlo) + 16 : 0) + (mod ? strlen(mod) + 16 : 0) + 256;
	if (ex_buf_reserve(b, need) != TK_OK)
		return ex_fail(f->x, TK_ENOMEM, "out of memory");
	uint8_t *p = b->p;
	p = pb_uint(p, 9, 1); /* TYPE_SLICE_BEGIN */
	p = pb_uint(p, 11, uuid);
	p = pb_uint(p, 10, e->name_id);
	p = pb_uint(p, 3, cat);
	if (e->corr != TK_NONE)
		p = da_int(p, DA_CORR, e->corr);
	if (e->has_kernel) {
		if (e->grid[0] != TK_NONE)
			p = da_dim3(p, DA_GRID, e->grid);
		if (e->block[0] != TK_NONE)
			p = da_dim3(p, DA_BLOCK, e->block);
		if (e->regs != TK_NONE)
			p = da_int(p, DA_REGS, e->regs);
		if (e->ssmem != TK_NONE)
			p = da_int(p, DA_SSMEM, e->ssmem);
		if (e->dsmem != TK_NONE)
			p = da_int(p, DA_DSMEM, e->dsmem);
		if (e->occ >= 0)
			p = da_double(p, DA_OCC, e->occ);
	}
	if (e->has_copy || e->has_set)
		p = da_int(p, DA_BYTES, e->bytes);
	if (e->has_copy) {
		const char *ck =
		    copy_names[e->copy_kind >= 0 && e->copy_kind < 6 ? e->copy_kind : 0];
		p = da_str(p, DA_COPY_KIND, ck, strlen(ck));
	}
	if (e->has_step)
		p = da_int(p, DA_STEP, e->step_num);
	if (hlo)
		p = da_str(p, DA_HLO_OP, hlo, strlen(hlo));
	if (mod)
		p = da_str(p, DA_HLO_MODULE, mod, strlen(mod));
	for (int i = 0; i < e->nout; i++)
		p = pb_fixed64(p, 47, (uint64_t)e->out[i].id);
	for (int i = 0; i < e->nin; i++)
		p = pb_fixed64(p, 48, (uint64_t)e->in[i].id);
	packet(f, e->ts, b->p, (size_t)(p - b->p));
	/* the END */
	uint8_t end[24], *q = pb_uint(end, 9, 2);
	q = pb_uint(q, 11, uuid);
	size_t en = (size_t)(q - end);
	size_t body = 1 + pb_varint_size((uint64_t)(e->ts + e->dur)) + 2 + 2 + en;
	uint8_t *o = ex_out_room(&f->out, body + 8);
	if (!o)
		return TK_EIO;
	uint8_t *r = pb_varint(pb_tag(o, 1, PB_LEN), body);
	r = pb_uint(r, 8, (uint64_t)(e->ts + e->dur));
	r = pb_uint(r, 10, PF_SEQ);
	r = pb_bytes(r, 11, end, en);
	f->out.len += (size_t)(r - o);
	f->x->stats.events++;
	f->x->stats.flows += e->nin;
	return f->out.failed ? TK_EIO : TK_OK;
}

void pf_counter(struct pf *f, uint64_t uuid, int64_t ts, double v)
{
	uint8_t te[32], *q = pb_uint(te, 9, 4); /* TYPE_COUNTER */
	q = pb_uint(q, 11, uuid);
	q = pb_double(q, 44, v);
	size_t n = (size_t)(q - te);
	size_t body = 1 + pb_varint_size((uint64_t)ts) + 2 + 2 + n;
	uint8_t *o = ex_out_room(&f->out, body + 8);
	if (!o)
		return;
	uint8_t *r = pb_varint(pb_tag(o, 1, PB_LEN), body);
	r = pb_uint(r, 8, (uint64_t)ts);
	r = pb_uint(r, 10, PF_SEQ);
	r = pb_bytes(r, 11, te, n);
	f->out.len += (size_t)(r - o);
	f->x->stats.counters++;
}

/* The first packet: clears incremental state and interns the debug annotation names. */
static int first_packet(struct pf *f)
{
	uint8_t buf[1024], *p = buf;
	for (int i = 1; i < DA_N; i++) {
		size_t n = strlen(da_names[i]);
		p = pb_tag(p, 3, PB_LEN);
		p = pb_varint(p, 2 + 2 + n);
		p = pb_uint(p, 1, (uint64_t)i);
		p = pb_bytes(p, 2, da_names[i], n);
	}
	size_t in = (size_t)(p - buf);
	size_t body = 2 + 1 + pb_varint_size(in) + in + 2 + 3;
	uint8_t *o = ex_out_room(&f->out, body + 8);
	if (!o)
		return TK_EIO;
	uint8_t *r = pb_varint(pb_tag(o, 1, PB_LEN), body);
	r = pb_uint(r, 10, PF_SEQ);
	r = pb_bytes(r, 12, buf, in);
	r = pb_uint(r, 13, 3); /* SEQ_INCREMENTAL_STATE_CLEARED | SEQ_NEEDS_INCREMENTAL_STATE */
	r = pb_uint(r, 87, 1); /* first_packet_on_sequence */
	f->out.len += (size_t)(r - o);
	return TK_OK;
}

static int events(struct pf *f)
{
	struct ex_scan s;
	struct ex_event e;
	int rc = ex_scan_open(f->x, &s), r = 0;
	while (rc == TK_OK && (r = ex_scan_next(&s, &e)) == 1)
		rc = slice(f, &e);
	if (rc == TK_OK && r != 0)
		rc = r;
	ex_scan_close(&s);
	return rc;
}

int ex_perfetto(struct tk_exporter *x, const char *path)
{
	struct pf *f = calloc(1, sizeof(*f));
	if (!f)
		return ex_fail(x, TK_ENOMEM, "out of memory");
	f->x = x;
	int rc = ex_out_open(x, &f->out, path, 0);
	if (rc != TK_OK)
		goto out;
	if ((rc = first_packet(f)) != TK_OK || (rc = pf_tracks(f)) != TK_OK ||
	    (rc = events(f)) != TK_OK || (rc = pf_counters(f)) != TK_OK)
		goto out;
	if (f->out.failed) {
		rc = TK_EIO;
		goto out;
	}
	snprintf(x->output, sizeof(x->output), "%s", path);
	rc = ex_out_commit(&f->out);
out:
	ex_out_abort(&f->out);
	ex_buf_free(&f->te);
	ex_buf_free(&f->interned);
	free(f->tracks);
	free(f->names);
	free(f->cats);
	free(f->mem);
	free(f);
	return rc;
}

/*
 * XPlane export, one host's XSpace: the Task Environment plane, a /device:... plane per device of
 * the host and the /host:CPU plane. Each store track becomes a line (device ops and other events
 * of a stream, or a thread's ops and its annotations, on separate lines, so a re-import gives
 * them back with their kinds); events are read per track in time order through the
 * events(track_id, ts_ns) index with their detail rows joined, and written one at a time. The
 * processes, each device's and line's process and the track a line came from travel as
 * tracekit_* stats (docs/export.md, "Processes and hosts") so that a re-import keeps them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tracekit/error.h>

#include "checked.h"
#include "tk_schema.h"
#include "xplane_out.h"

/* Which events of a track a line takes (?3 of EV_SQL). */
enum { SEL_ALL, SEL_DEVICE_OPS, SEL_NOT_DEVICE_OPS, SEL_NOT_ANNOTATIONS, SEL_ANNOTATIONS };

#define EV_SQL                                                                                    \
	"SELECT e.id, e.kind, e.name_id, e.ts_ns, e.dur_ns, e.correlation_id, "                   \
	"k.event_id IS NOT NULL, k.grid_x, k.grid_y, k.grid_z, k.block_x, k.block_y, k.block_z, " \
	"k.registers, k.static_smem, k.dynamic_smem, k.occupancy, coalesce(k.mangled_name_id, "   \
	"0), "                                                                                    \
	"c.event_id IS NOT NULL, c.bytes, c.copy_kind, coalesce(c.src_mem_kind, 0), "             \
	"coalesce(c.dst_mem_kind, 0), s.event_id IS NOT NULL, s.bytes, coalesce(s.mem_kind, 0), " \
	"st.step_num, o.event_id IS NOT NULL, coalesce(o.hlo_op_id, 0), "                         \
	"coalesce(o.hlo_module_id, 0), o.program_id, coalesce(o.framework_op_id, 0), "            \
	"coalesce(o.op_category_id, 0), o.flops, o.bytes_accessed, coalesce(e.category_id, 0) "   \
	"FROM events e LEFT JOIN kernel_details k ON k.event_id = e.id "                          \
	"LEFT JOIN copy_details c ON c.event_id = e.id LEFT JOIN set_details s ON s.event_id = "  \
	"e.id LEFT JOIN step_details st ON st.event_id = e.id LEFT JOIN op_details o ON "         \
	"o.event_id = e.id WHERE e.track_id = ?1 AND (CASE ?2 WHEN 0 THEN 1 WHEN 1 THEN e.kind "  \
	"IN (" TK_SQL_EV_DEVICE_OPS ") WHEN 2 THEN e.kind NOT IN (" TK_SQL_EV_DEVICE_OPS ") "     \
	"WHEN 3 THEN e.kind <> " TK_SQL_EV_ANNOTATION " ELSE e.kind = " TK_SQL_EV_ANNOTATION " "  \
	"END) ORDER BY e.ts_ns, e.id"

static const char *const mem_kind_names[] = {"unknown", "pageable", "pinned",
					     "device",	"managed",  "array"};

static const char *mem_kind_name(int k)
{
	return k >= 0 && k < 6 ? mem_kind_names[k] : "unknown";
}

struct host_ctx {
	struct xp_out *w;
	struct tk_exporter *x;
	sqlite3_stmt *ev, *args;
	struct xo_set line_ids;
	unsigned types;	 /* of the current stream line: bit per type word */
	int sel;	 /* the current line's SEL_ value */
	int64_t ntracks; /* slots for track ids (store/checked.h): line ids are made from them */
};

static int nomem(struct host_ctx *h)
{
	return ex_fail(h->x, TK_ENOMEM, "out of memory");
}

static int64_t ci(sqlite3_stmt *st, int i)
{
	return sqlite3_column_type(st, i) == SQLITE_NULL ? TK_NONE : sqlite3_column_int64(st, i);
}

static int stat_text(struct host_ctx *h, uint64_t md, uint32_t sid)
{
	if (!sid)
		return TK_OK;
	return xo_stat_str(&h->w->ev, 4, md, ex_str(h->x, sid));
}

static int stat_opt_int(struct ex_buf *b, uint64_t md, int64_t v)
{
	return v == TK_NONE ? TK_OK : xo_stat_int(b, 4, md, v);
}

/* kernel_details text in the CUPTI collector's format (unknown fields left out). */
static void kernel_details(sqlite3_stmt *st, char *buf, size_t n)
{
	size_t k = 0;
	static const char *const keys[3] = {"regs", "static_shared", "dynamic_shared"};
	for (int i = 0; i < 3; i++) {
		int64_t v = ci(st, 13 + i);
		if (v != TK_NONE)
			k += (size_t)snprintf(buf + k, n - k, "%s%s:%lld", k ? " " : "", keys[i],
					      (long long)v);
	}
	for (int d = 0; d < 2; d++) {
		int64_t v[3];
		int any = 0;
		for (int i = 0; i < 3; i++) {
			v[i] = ci(st, 7 + 3 * d + i);
			any |= v[i] != TK_NONE;
		}
		if (any)
			k += (size_t)snprintf(buf + k, n - k, "%s%s:%lld,%lld,%lld", k ? " " : "",
					      d ? "block" : "grid",
					      (long long)(v[0] == TK_NONE ? 1 : v[0]),
					      (long long)(v[1] == TK_NONE ? 1 : v[1]),
					      (long long)(v[2] == TK_NONE ? 1 : v[2]));
	}
	if (sqlite3_column_type(st, 16) != SQLITE_NULL)
		snprintf(buf + k, n - k, "%socc_pct:%.17g", k ? " " : "",
			 sqlite3_column_double(st, 16) * 100.0);
}

/* Bits of the `Stream #N(...)` type list. */
enum { T_KERNEL = 1, T_H2D = 2, T_D2H = 4, T_D2D = 8, T_P2P = 16, T_OTHER = 32, T_SET = 64 };

/* Encode the current row of h->ev as an XEvent of a line starting at @line_ts; write it. */
static int event(struct host_ctx *h, int64_t line_ts)
{
	struct xp_out *w = h->w;
	sqlite3_stmt *st = h->ev;
	struct ex_buf *b = &w->ev;
	int64_t id = sqlite3_column_int64(st, 0), off, durps;
	int kind = sqlite3_column_int(st, 1);
	uint32_t name_id = (uint32_t)sqlite3_column_int64(st, 2);
	int64_t ts = sqlite3_column_int64(st, 3), dur = sqlite3_column_int64(st, 4);
	const char *bad = sqlite3_column_type(st, 3) != SQLITE_INTEGER ||
				  sqlite3_column_type(st, 4) != SQLITE_INTEGER
			      ? "ts_ns or dur_ns is not an integer"
			      : tk_span_check(ts, dur);
	if (bad)
		return ex_fail_row(h->x, "events", id, bad);
	if (tk_sub_ovf(ts, line_ts, &off) || tk_mul_ovf(off, 1000, &off) ||
	    tk_mul_ovf(dur, 1000, &durps))
		return ex_fail_row(h->x, "events", id,
				   "time out of the XPlane picosecond range (int64 ps from the "
				   "line start)");
	b->len = 0;
	if (ex_buf_reserve(b, 40) != TK_OK)
		return nomem(h);
	uint8_t *p = pb_uint(b->p, 1, name_id);
	if (off)
		p = pb_uint(p, 2, (uint64_t)off);
	if (durps)
		p = pb_uint(p, 3, (uint64_t)durps);
	b->len = (size_t)(p - b->p);
	if (xo_set_add(&w->names, name_id) != TK_OK)
		return nomem(h);
	int rc = stat_opt_int(b, XS_CORRELATION_ID, ci(st, 5));
	/* what XPlane has no field for: the kind (a stream's device ops have theirs), category */
	if (rc == TK_OK && h->sel != SEL_DEVICE_OPS)
		rc = xo_stat_int(b, 4, XS_TK_KIND, kind);
	uint64_t cat = (uint64_t)sqlite3_column_int64(st, 35);
	if (rc == TK_OK && cat) {
		if (xo_set_add(&w->stat_keys, XO_ARG_MD + cat) != TK_OK)
			return nomem(h);
		rc = xo_stat_ref(b, 4, XS_TK_CATEGORY, XO_ARG_MD + cat);
	}
	char text[512];
	if (rc == TK_OK && sqlite3_column_int(st, 6)) {
		kernel_details(st, text, sizeof(text));
		rc = xo_stat_str(b, 4, XS_KERNEL_DETAILS, text);
		if (rc == TK_OK)
			rc = stat_text(h, XS_MANGLED_NAME, (uint32_t)sqlite3_column_int64(st, 17));
		h->types |= T_KERNEL;
	} else if (rc == TK_OK && kind == TK_EV_KERNEL) {
		h->types |= T_KERNEL;
	}
	if (rc == TK_OK && sqlite3_column_int(st, 18)) {
		int ck = sqlite3_column_int(st, 20);
		snprintf(text, sizeof(text), "kind_src:%s kind_dst:%s size:%lld async:1",
			 mem_kind_name(sqlite3_column_int(st, 21)),
			 mem_kind_name(sqlite3_column_int(st, 22)),
			 (long long)sqlite3_column_int64(st, 19));
		rc = xo_stat_str(b, 4, XS_MEMCPY_DETAILS, text);
		h->types |= ck == TK_COPY_H2D	? T_H2D
			    : ck == TK_COPY_D2H ? T_D2H
			    : ck == TK_COPY_D2D ? T_D2D
			    : ck == TK_COPY_P2P ? T_P2P
						: T_OTHER;
	}
	if (rc == TK_OK && sqlite3_column_int(st, 23)) {
		snprintf(text, sizeof(text), "kind:%s num_bytes:%lld async:1",
			 mem_kind_name(sqlite3_column_int(st, 25)),
			 (long long)sqlite3_column_int64(st, 24));
		rc = xo_stat_str(b, 4, XS_MEMSET_DETAILS, text);
		h->types |= T_SET;
	}
	if (rc == TK_OK && kind == TK_EV_STEP)
		rc = stat_opt_int(b, XS_STEP_NUM, ci(st, 26));
	if (rc == TK_OK && sqlite3_column_int(st, 27)) {
		rc = stat_text(h, XS_HLO_OP, (uint32_t)sqlite3_column_int64(st, 28));
		if (rc == TK_OK)
			rc = stat_text(h, XS_HLO_MODULE, (uint32_t)sqlite3_column_int64(st, 29));
		if (rc == TK_OK)
			rc = stat_opt_int(b, XS_PROGRAM_ID, ci(st, 30));
		if (rc == TK_OK)
			rc = stat_text(h, XS_TF_OP, (uint32_t)sqlite3_column_int64(st, 31));
		if (rc == TK_OK)
			rc = stat_text(h, XS_HLO_CATEGORY, (uint32_t)sqlite3_column_int64(st, 32));
		if (rc == TK_OK)
			rc = stat_opt_int(b, XS_FLOPS, ci(st, 33));
		if (rc == TK_OK)
			rc = stat_opt_int(b, XS_BYTES_ACCESSED, ci(st, 34));
	}
	if (rc == TK_OK && h->args) { /* everything else the source carried */
		sqlite3_reset(h->args);
		sqlite3_bind_int64(h->args, 1, id);
		while (rc == TK_OK && sqlite3_step(h->args) == SQLITE_ROW) {
			uint64_t md = XO_ARG_MD + (uint64_t)sqlite3_column_int64(h->args, 0);
			if (xo_set_add(&w->stat_keys, md) != TK_OK)
				return nomem(h);
			switch (sqlite3_column_type(h->args, 1)) {
			case SQLITE_INTEGER:
				rc = xo_stat_int(b, 4, md, sqlite3_column_int64(h->args, 1));
				break;
			case SQLITE_FLOAT:
				rc = xo_stat_double(b, 4, md, sqlite3_column_double(h->args, 1));
				break;
			case SQLITE_BLOB:
				rc = xo_stat_bytes(b, 4, md, 6, sqlite3_column_blob(h->args, 1),
						   (size_t)sqlite3_column_bytes(h->args, 1));
				break;
			case SQLITE_NULL:
				break;
			default:
				rc = xo_stat_str(b, 4, md,
						 (const char *)sqlite3_column_text(h->args, 1));
				break;
			}
		}
	}
	if (rc != TK_OK)
		return nomem(h);
	h->x->stats.events++;
	return xo_put_msg(w, 4, b->p, b->len);
}

/*
 * One line from track @track (events chosen by @sel): written only when it has events; @name is
 * its name, or for a stream line the `Stream #N` prefix its type list is added to.
 */
static int line(struct host_ctx *h, int64_t track, int sel, int64_t id, int64_t display_id,
		const char *name, int is_stream)
{
	struct xp_out *w = h->w;
	int rc = TK_OK, r;
	int64_t start = -1, line_ts = 0;
	h->types = 0;
	h->sel = sel;
	sqlite3_reset(h->ev);
	sqlite3_bind_int64(h->ev, 1, track);
	sqlite3_bind_int(h->ev, 2, sel);
	while ((r = sqlite3_step(h->ev)) == SQLITE_ROW) {
		if (start < 0) {
			line_ts = sqlite3_column_int64(h->ev, 3);
			if (!tk_time_ok(
				line_ts)) /* checked here: the line's start is written first */
				return ex_fail_row(h->x, "events", sqlite3_column_int64(h->ev, 0),
						   "ts_ns is out of range (more than 2^62 ns from "
						   "the epoch)");
			if ((start = xo_begin(w, 3)) < 0)
				return TK_EIO;
			uint8_t *p = ex_out_room(&w->out, 40);
			if (!p)
				return TK_EIO;
			uint8_t *q = pb_uint(p, 1, (uint64_t)id);
			if (display_id)
				q = pb_uint(q, 10, (uint64_t)display_id);
			q = pb_uint(q, 3, (uint64_t)(line_ts - w->base_ns));
			w->out.len += (size_t)(q - p);
		}
		if ((rc = event(h, line_ts)) != TK_OK)
			return rc;
	}
	if (r != SQLITE_DONE)
		return ex_fail_sql(h->x, "events");
	if (start < 0)
		return TK_OK;
	char full[600];
	if (is_stream) {
		static const char *const words[] = {"Kernel",	 "MemcpyH2D", "MemcpyD2H",
						    "MemcpyD2D", "MemcpyP2P", "MemcpyOther",
						    "Memset"};
		size_t k = (size_t)snprintf(full, sizeof(full), "%s(", name);
		for (int i = 0; i < 7; i++)
			if (h->types & (1u << i))
				k += (size_t)snprintf(full + k, sizeof(full) - k, "%s%s",
						      full[k - 1] == '(' ? "" : ",", words[i]);
		snprintf(full + k, sizeof(full) - k, ")");
	} else {
		snprintf(full, sizeof(full), "%s", name);
	}
	if ((rc = xo_put_str(w, 2, full)) != TK_OK)
		return rc;
	return xo_end(w, start);
}

/* A line id not yet used in the plane: @want when free, else a derived one. */
static int64_t line_id(struct host_ctx *h, int64_t want, int64_t fallback)
{
	uint64_t k = (uint64_t)want + 1;
	for (size_t j = (k * 0x9E3779B97F4A7C15ull) >> 20 & (h->line_ids.cap - 1); h->line_ids.cap;
	     j = (j + 1) & (h->line_ids.cap - 1)) {
		if (h->line_ids.k[j] == k)
			return xo_set_add(&h->line_ids, (uint64_t)fallback + 1), fallback;
		if (!h->line_ids.k[j])
			break;
	}
	xo_set_add(&h->line_ids, k);
	return want;
}

static int64_t derived_id(const char *name, int64_t track)
{
	static const struct {
		const char *n;
		int off;
	} known[] = {{"Steps", 0},	   {"Launch Stats", 1}, {"Framework Name Scope", 2},
		     {"Framework Ops", 3}, {"XLA Modules", 4},	{"XLA Ops", 5},
		     {"Source code", 7}};
	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (!strcmp(name, known[i].n))
			return 0xDEADBEEFll + known[i].off;
	return (2ll << 32) + track;
}

static int device_stats(struct host_ctx *h, sqlite3_stmt *d)
{
	struct ex_buf *b = &h->w->pstats;
	int rc = TK_OK;
	int64_t v;
	if ((v = ci(d, 6)) != TK_NONE)
		rc |= xo_stat_int(b, 6, XS_CORE_COUNT, v);
	if ((v = ci(d, 7)) != TK_NONE)
		rc |= xo_stat_int(b, 6, XS_CLOCK_RATE, v / 1000); /* kHz */
	if ((v = ci(d, 8)) != TK_NONE)
		rc |= xo_stat_int(b, 6, XS_MEMORY_SIZE, v);
	if ((v = ci(d, 9)) != TK_NONE) {
		rc |= xo_stat_int(b, 6, XS_MEMORY_BANDWIDTH, v);
		rc |= xo_stat_double(b, 6, XS_PEAK_HBM_BW, (double)v / 1e9);
	}
	if (sqlite3_column_type(d, 10) != SQLITE_NULL)
		rc |= xo_stat_double(b, 6, XS_PEAK_TFLOPS, sqlite3_column_double(d, 10) / 1e12);
	const char *cc = (const char *)sqlite3_column_text(d, 5);
	int ma, mi;
	if (cc && sscanf(cc, "%d.%d", &ma, &mi) == 2) {
		rc |= xo_stat_int(b, 6, XS_CC_MAJOR, ma);
		rc |= xo_stat_int(b, 6, XS_CC_MINOR, mi);
	}
	const char *vendor = (const char *)sqlite3_column_text(d, 4);
	if (vendor)
		rc |= xo_stat_str(b, 6, XS_DEVICE_VENDOR,
				  !strcmp(vendor, "nvidia")   ? "Nvidia"
				  : !strcmp(vendor, "amd")    ? "AMD"
				  : !strcmp(vendor, "google") ? "Google"
							      : vendor);
	uint32_t nid = (uint32_t)sqlite3_column_int64(d, 3);
	if (nid)
		rc |= xo_stat_str(b, 6, XS_GPU_DEVICE_NAME, ex_str(h->x, nid));
	static const int caps[3] = {XS_MAX_THREADS_PER_SM, XS_MAX_REGS_PER_SM, XS_MAX_SMEM_PER_SM};
	for (int i = 0; i < 3; i++)
		if ((v = ci(d, 11 + i)) != TK_NONE)
			rc |= xo_stat_int(b, 6, (uint64_t)caps[i], v);
	return rc ? nomem(h) : TK_OK;
}

/* Append @s to @b, with '\\', tab and newline escaped as \\, \t, \n when @esc; then @end
 * (0: nothing); @b is kept NUL-terminated. */
static int put_text(struct ex_buf *b, const char *s, int esc, char end)
{
	if (ex_buf_reserve(b, 2 * strlen(s) + 2) != TK_OK)
		return TK_ENOMEM;
	char *p = (char *)b->p + b->len;
	for (; *s; s++) {
		char c = !esc ? 0 : *s == '\t' ? 't' : *s == '\n' ? 'n' : *s == '\\' ? '\\' : 0;
		if (c) {
			*p++ = '\\';
			*p++ = c;
		} else {
			*p++ = *s;
		}
	}
	if (end)
		*p++ = end;
	*p = 0;
	b->len = (size_t)(p - (char *)b->p);
	return TK_OK;
}

/* Append "<line id> <process key> <track key>\n" to the host plane's line table (process key
 * -1: none; the track key: the store track the line's events came from). */
static int line_process(struct host_ctx *h, int64_t line, int64_t proc, int64_t track)
{
	char row[72];
	snprintf(row, sizeof(row), "%lld %lld %lld", (long long)line, (long long)proc,
		 (long long)track);
	return put_text(&h->w->lines, row, 0, '\n');
}

static int device_planes(struct host_ctx *h, int64_t host_id)
{
	struct xp_out *w = h->w;
	sqlite3_stmt *d = NULL, *t = NULL;
	struct xo_set ords = {0};
	int rc, r;
	if ((rc = ex_prepare(
		 h->x,
		 "SELECT id, ordinal, kind, coalesce(name_id, 0), vendor, "
		 "compute_capability, sm_count, clock_hz, memory_bytes, "
		 "memory_bandwidth_bps, peak_flops, max_threads_per_sm, max_regs_per_sm, "
		 "max_smem_per_sm, process_id, rank FROM devices WHERE coalesce(host_id, 0) = ? "
		 "ORDER BY id",
		 &d)) != TK_OK ||
	    (rc = ex_prepare(
		 h->x,
		 "SELECT t.id, t.kind, coalesce(t.name_id, 0), t.stream_id FROM tracks t "
		 "WHERE t.device_id = ? AND t.kind IN ('stream', 'derived') "
		 "ORDER BY t.kind = 'derived', t.stream_id, t.id",
		 &t)) != TK_OK)
		goto out;
	sqlite3_bind_int64(d, 1, host_id);
	while ((r = sqlite3_step(d)) == SQLITE_ROW) {
		int64_t dev = sqlite3_column_int64(d, 0), ord = sqlite3_column_int64(d, 1);
		size_t before = ords.n;
		if ((rc = xo_set_add(&ords, (uint64_t)ord + 1)) != TK_OK)
			goto out;
		while (ords.n ==
		       before) { /* ordinal taken on this host (several ranks): next free */
			if (tk_add_ovf(ord, 1, &ord)) {
				rc = ex_fail_row(h->x, "devices", dev, "ordinal out of range");
				goto out;
			}
			if ((rc = xo_set_add(&ords, (uint64_t)ord + 1)) != TK_OK)
				goto out;
		}
		const char *kind = (const char *)sqlite3_column_text(d, 2);
		char pname[128];
		if (kind && !strcmp(kind, "gpu"))
			snprintf(pname, sizeof(pname), "/device:GPU:%lld", (long long)ord);
		else if (kind && !strcmp(kind, "tpu"))
			snprintf(pname, sizeof(pname), "/device:TPU:%lld", (long long)ord);
		else
			snprintf(pname, sizeof(pname), "/device:CUSTOM:%.40s %lld",
				 kind ? kind : "device", (long long)ord);
		int64_t plane = xo_plane_begin(w, ord, pname);
		if (plane < 0) {
			rc = TK_EIO;
			goto out;
		}
		if ((rc = device_stats(h, d)) != TK_OK)
			goto out;
		/* the owning process, the rank and the store's ordinal when renumbered */
		struct ex_buf *ps = &w->pstats;
		int64_t v;
		if (((v = ci(d, 14)) != TK_NONE && xo_stat_int(ps, 6, XS_TK_PROCESS, v) != TK_OK) ||
		    ((v = ci(d, 15)) != TK_NONE && xo_stat_int(ps, 6, XS_TK_RANK, v) != TK_OK) ||
		    (ord != sqlite3_column_int64(d, 1) &&
		     xo_stat_int(ps, 6, XS_TK_ORDINAL, sqlite3_column_int64(d, 1)) != TK_OK)) {
			rc = nomem(h);
			goto out;
		}
		xo_set_clear(&h->line_ids);
		w->lines.len = 0;
		int64_t owner = ci(d, 14) == TK_NONE ? -1 : ci(d, 14);
		sqlite3_reset(t);
		sqlite3_bind_int64(t, 1, dev);
		while ((r = sqlite3_step(t)) == SQLITE_ROW) {
			int64_t track = sqlite3_column_int64(t, 0);
			if ((rc = ex_check_id(h->x, "tracks", track, h->ntracks)) != TK_OK)
				goto out;
			int stream = !strcmp((const char *)sqlite3_column_text(t, 1), "stream");
			const char *tname = ex_str(h->x, (uint32_t)sqlite3_column_int64(t, 2));
			char nm[512];
			if (stream) {
				int64_t sid = sqlite3_column_type(t, 3) == SQLITE_NULL
						  ? track
						  : sqlite3_column_int64(t, 3);
				snprintf(nm, sizeof(nm), "Stream #%lld", (long long)sid);
				int64_t lid = line_id(h, sid, (3ll << 32) + track);
				if ((rc = line(h, track, SEL_DEVICE_OPS, lid, 0, nm, 1)) != TK_OK)
					goto out;
				snprintf(nm, sizeof(nm), "Annotations (stream %lld)",
					 (long long)sid);
				if ((rc = line(h, track, SEL_NOT_DEVICE_OPS, (1ll << 32) + track, 0,
					       nm, 0)) != TK_OK)
					goto out;
				if (line_process(h, lid, owner, track) != TK_OK ||
				    line_process(h, (1ll << 32) + track, owner, track) != TK_OK) {
					rc = nomem(h);
					goto out;
				}
			} else {
				snprintf(nm, sizeof(nm), "%s", tname[0] ? tname : "Derived");
				int64_t lid =
				    line_id(h, derived_id(nm, track), (2ll << 32) + track);
				if ((rc = line(h, track, SEL_ALL, lid, 0, nm, 0)) != TK_OK)
					goto out;
			}
		}
		if (r != SQLITE_DONE) {
			rc = ex_fail_sql(h->x, "tracks");
			goto out;
		}
		if (w->lines.len && xo_stat_str(&w->pstats, 6, XS_TK_LINE_PROCESSES,
						(const char *)w->lines.p) != TK_OK) {
			rc = nomem(h);
			goto out;
		}
		if ((rc = xo_plane_end(w, plane)) != TK_OK)
			goto out;
	}
	if (r != SQLITE_DONE)
		rc = ex_fail_sql(h->x, "devices");
out:
	free(ords.k);
	sqlite3_finalize(d);
	sqlite3_finalize(t);
	return rc;
}

/* The MemoryAllocation / MemoryDeallocation line of the host plane. */
static int memory_line(struct host_ctx *h, int64_t host_id)
{
	struct xp_out *w = h->w;
	struct ex_buf *b = &w->ev;
	sqlite3_stmt *m = NULL;
	int rc, r;
	int64_t start = -1, line_ts = 0;
	if ((rc = ex_prepare(
		 h->x,
		 "SELECT m.ts_ns, m.kind = 'free', m.device_id, d.ordinal, m.address, m.bytes, "
		 "coalesce(m.allocator_id, 0), m.bytes_in_use, m.bytes_reserved, "
		 "m.bytes_available, "
		 "m.peak_bytes_in_use, m.requested_bytes, m.fragmentation, "
		 "coalesce(oe.name_id, m.op_name_id, 0), m.id, m.process_id FROM memory_records m "
		 "LEFT JOIN devices d ON d.id = m.device_id LEFT JOIN processes p ON p.id = "
		 "m.process_id LEFT JOIN events oe ON oe.id = m.op_event_id "
		 "WHERE coalesce(d.host_id, p.host_id, 0) = ? ORDER BY m.ts_ns, m.id",
		 &m)) != TK_OK)
		return rc;
	sqlite3_bind_int64(m, 1, host_id);
	while ((r = sqlite3_step(m)) == SQLITE_ROW) {
		int64_t ts = sqlite3_column_int64(m, 0), off;
		if (!tk_time_ok(ts)) {
			rc =
			    ex_fail_row(h->x, "memory_records", sqlite3_column_int64(m, 14),
					"ts_ns is out of range (more than 2^62 ns from the epoch)");
			goto out;
		}
		if (start < 0) {
			line_ts = ts;
			if ((start = xo_begin(w, 3)) < 0) {
				rc = TK_EIO;
				goto out;
			}
			uint8_t *p = ex_out_room(&w->out, 64);
			if (!p) {
				rc = TK_EIO;
				goto out;
			}
			uint8_t *q = pb_uint(p, 1, 0x7ffffffell);
			q = pb_bytes(q, 2, "Allocator Activity", 18);
			q = pb_uint(q, 3, (uint64_t)(line_ts - w->base_ns));
			w->out.len += (size_t)(q - p);
		}
		if (tk_sub_ovf(ts, line_ts, &off) || tk_mul_ovf(off, 1000, &off)) {
			rc = ex_fail_row(h->x, "memory_records", sqlite3_column_int64(m, 14),
					 "time out of the XPlane picosecond range");
			goto out;
		}
		uint64_t md = XO_MEM_MD + (uint64_t)sqlite3_column_int(m, 1);
		b->len = 0;
		if (ex_buf_reserve(b, 40) != TK_OK || xo_set_add(&w->names, md) != TK_OK) {
			rc = nomem(h);
			goto out;
		}
		uint8_t *p = pb_uint(b->p, 1, md);
		if (off)
			p = pb_uint(p, 2, (uint64_t)off);
		b->len = (size_t)(p - b->p);
		/* allocator_name: device memory names its device as XProf's GPU_<n>_bfc does */
		char alloc[300];
		const char *an = ex_str(h->x, (uint32_t)sqlite3_column_int64(m, 6));
		if (sqlite3_column_type(m, 2) != SQLITE_NULL) {
			char want[32];
			long long ord = sqlite3_column_int64(m, 3);
			snprintf(want, sizeof(want), "GPU_%lld_", ord);
			if (strstr(an, want))
				snprintf(alloc, sizeof(alloc), "%s", an);
			else
				snprintf(alloc, sizeof(alloc), "GPU_%lld_%s", ord,
					 an[0] ? an : "bfc");
		} else {
			snprintf(alloc, sizeof(alloc), "%s", an[0] ? an : "host");
		}
		rc = xo_stat_str(b, 4, XS_ALLOCATOR_NAME, alloc);
		if (rc == TK_OK && strcmp(alloc, an)) /* XProf names need the device: keep ours */
			rc = xo_stat_str(b, 4, XS_TK_ALLOCATOR, an);
		static const int cols[] = {4, 5, 7, 8, 9, 10, 11};
		static const int mds[] = {
		    XS_ADDR,	       XS_ALLOCATION_BYTES, XS_BYTES_ALLOCATED,
		    XS_BYTES_RESERVED, XS_BYTES_AVAILABLE,  XS_PEAK_BYTES_IN_USE,
		    XS_REQUESTED_BYTES};
		for (size_t i = 0; i < 7 && rc == TK_OK; i++)
			rc = stat_opt_int(b, (uint64_t)mds[i], ci(m, cols[i]));
		if (rc == TK_OK && sqlite3_column_type(m, 12) != SQLITE_NULL)
			rc = xo_stat_double(b, 4, XS_FRAGMENTATION, sqlite3_column_double(m, 12));
		if (rc == TK_OK)
			rc = stat_text(h, XS_TF_OP, (uint32_t)sqlite3_column_int64(m, 13));
		if (rc == TK_OK)
			rc = stat_opt_int(b, XS_TK_PROCESS, ci(m, 15));
		if (rc != TK_OK) {
			rc = nomem(h);
			goto out;
		}
		if ((rc = xo_put_msg(w, 4, b->p, b->len)) != TK_OK)
			goto out;
		h->x->stats.memory_events++;
	}
	if (r != SQLITE_DONE)
		rc = ex_fail_sql(h->x, "memory records");
	else if (start >= 0)
		rc = xo_end(w, start);
out:
	sqlite3_finalize(m);
	return rc;
}

/*
 * The Task Environment's process table: a row "key<TAB>pid<TAB>rank<TAB>name" per process of
 * the host (key: the store's process id; pid and rank empty when unknown; name escaped).
 */
static int process_table(struct host_ctx *h, int64_t host_id, struct ex_buf *b)
{
	sqlite3_stmt *p = NULL;
	int rc, r;
	b->len = 0;
	if (ex_buf_reserve(b, 1) != TK_OK)
		return nomem(h);
	b->p[0] = 0;
	if ((rc = ex_prepare(h->x,
			     "SELECT id, pid, rank, coalesce(name_id, 0) FROM processes WHERE "
			     "coalesce(host_id, 0) = ? ORDER BY id",
			     &p)) != TK_OK)
		return rc;
	sqlite3_bind_int64(p, 1, host_id);
	while ((r = sqlite3_step(p)) == SQLITE_ROW) {
		char row[80], pid[24] = "", rank[24] = "";
		if (sqlite3_column_type(p, 1) != SQLITE_NULL)
			snprintf(pid, sizeof(pid), "%lld", (long long)sqlite3_column_int64(p, 1));
		if (sqlite3_column_type(p, 2) != SQLITE_NULL)
			snprintf(rank, sizeof(rank), "%lld", (long long)sqlite3_column_int64(p, 2));
		snprintf(row, sizeof(row), "%lld\t%s\t%s\t", (long long)sqlite3_column_int64(p, 0),
			 pid, rank);
		if (put_text(b, row, 0, 0) != TK_OK ||
		    put_text(b, ex_str(h->x, (uint32_t)sqlite3_column_int64(p, 3)), 1, '\n') !=
			TK_OK) {
			rc = nomem(h);
			goto out;
		}
	}
	if (r != SQLITE_DONE)
		rc = ex_fail_sql(h->x, "processes");
out:
	sqlite3_finalize(p);
	return rc;
}

static int host_plane(struct host_ctx *h, int64_t host_id)
{
	struct xp_out *w = h->w;
	sqlite3_stmt *t = NULL;
	int rc, r;
	int64_t plane = xo_plane_begin(w, 0, "/host:CPU");
	if (plane < 0)
		return TK_EIO;
	xo_set_clear(&h->line_ids);
	w->lines.len = 0;
	if ((rc = ex_prepare(
		 h->x,
		 "SELECT t.id, coalesce(t.name_id, 0), t.tid, t.process_id FROM tracks t "
		 "LEFT JOIN "
		 "processes p ON p.id = t.process_id WHERE t.device_id IS NULL AND "
		 "t.kind <> 'counter' AND coalesce(p.host_id, 0) = ? ORDER BY t.id",
		 &t)) != TK_OK)
		return rc;
	sqlite3_bind_int64(t, 1, host_id);
	while ((r = sqlite3_step(t)) == SQLITE_ROW) {
		int64_t track = sqlite3_column_int64(t, 0);
		if ((rc = ex_check_id(h->x, "tracks", track, h->ntracks)) != TK_OK)
			goto out;
		int64_t tid =
		    sqlite3_column_type(t, 2) == SQLITE_NULL ? track : sqlite3_column_int64(t, 2);
		const char *tn = ex_str(h->x, (uint32_t)sqlite3_column_int64(t, 1));
		char nm[512];
		if (tn[0])
			snprintf(nm, sizeof(nm), "%s", tn);
		else
			snprintf(nm, sizeof(nm), "Thread %lld", (long long)tid);
		int64_t lid = line_id(h, tid, (4ll << 32) + track);
		if ((rc = line(h, track, SEL_NOT_ANNOTATIONS, lid, lid == tid ? 0 : tid, nm, 0)) !=
		    TK_OK)
			goto out;
		char nv[600];
		snprintf(nv, sizeof(nv), "%s/NVTX", nm);
		if ((rc = line(h, track, SEL_ANNOTATIONS, (5ll << 32) + track, tid, nv, 0)) !=
		    TK_OK)
			goto out;
		int64_t proc = ci(t, 3) == TK_NONE ? -1 : ci(t, 3);
		if (line_process(h, lid, proc, track) != TK_OK ||
		    line_process(h, (5ll << 32) + track, proc, track) != TK_OK) {
			rc = nomem(h);
			goto out;
		}
	}
	if (r != SQLITE_DONE) {
		rc = ex_fail_sql(h->x, "tracks");
		goto out;
	}
	if ((rc = memory_line(h, host_id)) != TK_OK)
		goto out;
	if (w->lines.len &&
	    xo_stat_str(&w->pstats, 6, XS_TK_LINE_PROCESSES, (const char *)w->lines.p) != TK_OK) {
		rc = nomem(h);
		goto out;
	}
	rc = xo_plane_end(w, plane);
out:
	sqlite3_finalize(t);
	return rc;
}

int ex_xplane_host(struct xp_out *w, int64_t host_id, const char *host)
{
	struct host_ctx h = {.w = w, .x = w->x};
	struct ex_buf table = {0};
	int rc;
	w->base_ns = w->x->epoch ? w->x->start_ns : 0;
	if ((rc = ex_id_slots(w->x, "tracks", &h.ntracks)) != TK_OK ||
	    (rc = ex_prepare(w->x, EV_SQL, &h.ev)) != TK_OK)
		goto out;
	if (w->x->has_args &&
	    (rc = ex_prepare(w->x, "SELECT key_id, value FROM args WHERE event_id = ?", &h.args)) !=
		TK_OK)
		goto out;
	/* Task Environment: the session's wall-clock start and stop. */
	int64_t plane = xo_plane_begin(w, 1000, "Task Environment");
	if (plane < 0) {
		rc = TK_EIO;
		goto out;
	}
	if (w->x->epoch && (xo_stat_int(&w->pstats, 6, XS_PROFILE_START, w->x->start_ns) != TK_OK ||
			    xo_stat_int(&w->pstats, 6, XS_PROFILE_STOP, w->x->end_ns) != TK_OK)) {
		rc = nomem(&h);
		goto out;
	}
	/* the store's host ("" for none) and processes: kept through a re-import */
	if ((rc = process_table(&h, host_id, &table)) != TK_OK)
		goto out;
	if (xo_stat_str(&w->pstats, 6, XS_TK_HOST,
			host_id ? ex_str(w->x, (uint32_t)host_id) : "") != TK_OK ||
	    xo_stat_str(&w->pstats, 6, XS_TK_PROCESSES, (const char *)table.p) != TK_OK) {
		rc = nomem(&h);
		goto out;
	}
	if ((rc = xo_plane_end(w, plane)) != TK_OK)
		goto out;
	if ((rc = device_planes(&h, host_id)) != TK_OK)
		goto out;
	if ((rc = host_plane(&h, host_id)) != TK_OK)
		goto out;
	uint8_t *p = ex_out_room(&w->out, strlen(host) + 8);
	if (!p) {
		rc = TK_EIO;
		goto out;
	}
	w->out.len += (size_t)(pb_bytes(p, 4, host, strlen(host)) - p);
	rc = w->out.failed ? TK_EIO : TK_OK;
out:
	sqlite3_finalize(h.ev);
	sqlite3_finalize(h.args);
	free(h.line_ids.k);
	ex_buf_free(&table);
	return rc;
}

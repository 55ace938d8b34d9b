/*
 * Internals of the XPlane importer, shared by import/xplane*.c: the bounded wire-format walker,
 * small int64 hash maps, stat names and the parsers of text-encoded stats.
 */
#ifndef TK_XPLANE_INTERNAL_H
#define TK_XPLANE_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <tracekit/import.h>
#include <tracekit/store.h>

#include "../schemas/xplane_stats.h"
#include "../util/map.h"

/* ---- wire walker (xplane_wire.c) ---- */

/* Protobuf wire types the format uses (groups, 3 and 4, are refused). */
enum { XP_VARINT = 0, XP_I64 = 1, XP_LEN = 2, XP_I32 = 5 };

/* Limits that keep hostile input from costing more than it should. */
#define XP_MAX_GUNZIP (64u << 20)  /* largest inflated compressed_str_value, bytes */
#define XP_RELEASE_STEP (1u << 20) /* give back mapped file pages every this many bytes */

/*
 * Where errors go: the writer (failed with TK_EFORMAT), the file and its first byte. A NULL
 * writer reads quietly: errors are only returned (tk_xplane_list_runs).
 */
struct xp_src {
	tk_writer *w;
	const char *path;
	const uint8_t *base;
};

/* A byte range still to read, inside one message. */
struct xp_cur {
	const uint8_t *p, *end;
};

/* One field: its number, wire type and value (v for varint/fixed, data+len for LEN). */
struct xp_field {
	uint32_t num;
	int wt;
	uint64_t v;
	const uint8_t *data;
	size_t len;
	const uint8_t *at; /* where the field's tag starts */
};

/*
 * xp_next() - read the next field of @c into @f. @what names the message for errors.
 * Returns 1 for a field, 0 at the end of the message, -1 after failing the writer with
 * "'<path>': byte <offset>: ...".
 */
int xp_next_slow(const struct xp_src *s, struct xp_cur *c, struct xp_field *f, const char *what);

/* Read a varint at *p (before end); 0 on success, -1 when longer than 10 bytes or cut short. */
static inline int xp_varint(const uint8_t **p, const uint8_t *end, uint64_t *out)
{
	const uint8_t *q = *p;
	uint64_t v = 0;
	if (q < end && *q < 0x80) { /* most tags and small values: one byte */
		*out = *q;
		*p = q + 1;
		return 0;
	}
	for (int i = 0; i < 10; i++) {
		if (q >= end)
			return -1;
		uint8_t b = *q++;
		if (i == 9 && b > 1)
			return -1;
		v |= (uint64_t)(b & 0x7f) << (7 * i);
		if (b < 0x80) {
			*p = q;
			*out = v;
			return 0;
		}
	}
	return -1;
}

/* The common case inline (a one-byte tag of a varint or length field that fits); the rest, and
 * every error, in xp_next_slow(). */
static inline int xp_next(const struct xp_src *s, struct xp_cur *c, struct xp_field *f,
			  const char *what)
{
	const uint8_t *p = c->p, *q;
	uint64_t v;
	if (p < c->end && *p < 0x80 && *p >= 8) {
		unsigned wt = *p & 7;
		q = p + 1;
		if ((wt == 0 || wt == 2) && xp_varint(&q, c->end, &v) == 0) {
			if (wt == 0) {
				f->at = p, f->num = *p >> 3, f->wt = 0, f->v = v;
				f->data = NULL, f->len = 0;
				c->p = q;
				return 1;
			}
			if (v <= (uint64_t)(c->end - q)) {
				f->at = p, f->num = *p >> 3, f->wt = 2, f->v = 0;
				f->data = q, f->len = (size_t)v;
				c->p = q + v;
				return 1;
			}
		}
	}
	return xp_next_slow(s, c, f, what);
}

/* xp_fail() - fail the writer with TK_EFORMAT at @at: "'<path>': byte <off>: <message>". */
int xp_fail(const struct xp_src *s, const uint8_t *at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* xp_want() - check that @f has wire type @wt, else fail naming the field of @what. */
int xp_want(const struct xp_src *s, const struct xp_field *f, int wt, const char *what);

/* ---- int64 -> int64 hash map with deletion (xplane_wire.c, over util/map.h) ---- */

struct xp_map {
	struct tku_table t; /* of struct xp_ent, by key; zeroed: empty */
};

struct xp_ent {
	int64_t key, val;
};

int xp_map_put(struct xp_map *m, int64_t key, int64_t val);	   /* TK_OK or TK_ENOMEM */
int xp_map_get(const struct xp_map *m, int64_t key, int64_t *val); /* 1 found, 0 not */
void xp_map_del(struct xp_map *m, int64_t key);
void xp_map_clear(struct xp_map *m); /* keep the storage */
void xp_map_free(struct xp_map *m);

/*
 * ---- pending correlation ids (xplane_wire.c) ----
 * The launches or device ops still waiting for their other side, correlation id -> value (event
 * id * 2 + side). Correlation ids are small, dense counters in practice (CUPTI, ROCm), so they
 * index pages of XP_CORR_PAGE 32-bit slots holding value - base + 1 (0: empty); a page is freed
 * when its last id is matched. Ids or values that do not fit, or that would leave pages mostly
 * empty, go to a hash map. About 4 bytes per pending id instead of 16-32 in the hash map.
 */
#define XP_CORR_PAGE 4096

struct xp_corr {
	uint32_t **pages; /* page i: ids [i * XP_CORR_PAGE, (i + 1) * XP_CORR_PAGE), or NULL */
	uint32_t *live;	  /* ids stored in each page */
	size_t npages;	  /* length of pages and live */
	size_t allocated; /* pages allocated */
	size_t direct;	  /* ids stored in pages */
	int64_t base;	  /* value origin, set by the first put */
	int has_base;
	struct xp_map map; /* the rest */
};

int xp_corr_put(struct xp_corr *c, int64_t id, int64_t val);	    /* TK_OK or TK_ENOMEM */
int xp_corr_get(const struct xp_corr *c, int64_t id, int64_t *val); /* 1 found, 0 not */
void xp_corr_del(struct xp_corr *c, int64_t id);
void xp_corr_free(struct xp_corr *c);

/* ---- stats (xplane_stats.c) ---- */

/* xp_stat_code() - the code of a stat name (schemas/xplane_stats.h), XS_OTHER when it has no
 * column. */
enum xs_stat xp_stat_code(const char *name);

struct xp_smd;

/* A decoded stat value. Text values point into the file, a metadata name or @buf storage. */
enum xp_val { XV_NONE, XV_DOUBLE, XV_UINT, XV_INT, XV_STR, XV_BYTES, XV_REF, XV_GZIP };

struct xp_stat {
	int64_t md; /* stat metadata id */
	enum xp_val type;
	union {
		double d;
		uint64_t u;
		int64_t i;
	};
	const uint8_t *data; /* XV_STR, XV_BYTES, XV_GZIP */
	size_t len;
	const uint8_t *at;	 /* where it is in the file, for errors */
	const struct xp_smd *sm; /* its stat metadata (set by the importer), or NULL */
};

/*
 * xp_stat_decode() - decode one XStat message (@data, @len, at file position) into @st.
 * Returns 0, or -1 after failing the writer.
 */
int xp_stat_decode(const struct xp_src *s, const uint8_t *data, size_t len, struct xp_stat *st);

/* Integer value of a numeric stat (int, uint, or double truncated); 0 when not numeric. */
int xp_stat_int(const struct xp_stat *st, int64_t *out);

/* Kernel launch parameters from a kernel_details string (all three known variants). */
void xp_parse_kernel_details(const char *s, struct tk_kernel_info *k);

/* Bytes and copy kind from memcpy_details / Memset_details text; kind from the event name. */
void xp_parse_memcpy_details(const char *s, const char *event_name, struct tk_copy_info *c);
void xp_parse_memset_details(const char *s, struct tk_set_info *m);

/*
 * xp_gunzip() - inflate a gzip (or zlib) stream of @len bytes into a NUL-terminated malloc'd
 * string, refusing more than XP_MAX_GUNZIP bytes. Returns NULL on bad or oversized input.
 */
char *xp_gunzip(const uint8_t *data, size_t len, size_t *out_len);

#ifndef TK_XPLANE_NO_STATE
/* ---- importer state (xplane.c: file; xplane_plane.c: planes, lines; xplane_event.c) ---- */

#include "xplane.pb-c.h"

typedef Tensorflow__Profiler__XPlane__EventMetadataEntry xp_em_entry;
typedef Tensorflow__Profiler__XPlane__StatMetadataEntry xp_sm_entry;

/* One event metadata of the current plane (protobuf-c message, freed at the end of the plane). */
struct xp_emd {
	xp_em_entry *e;
	uint32_t name_id;      /* interned name, 0 until first use */
	uint32_t disp_id;      /* interned display_name (XLA ops), 0 until first use */
	struct xp_stat *stats; /* its stats, decoded */
	size_t nstats;
};

/* One stat metadata of the current plane. */
struct xp_smd {
	xp_sm_entry *e;
	const char *name;
	enum xs_stat code;
};

/* Kinds of planes and lines, recognised by name. */
enum xp_plane_kind { XP_PLANE_HOST, XP_PLANE_DEVICE, XP_PLANE_TASK_ENV, XP_PLANE_METADATA };
enum xp_line_kind {
	XP_LINE_THREAD,
	XP_LINE_STREAM,
	XP_LINE_XLA_OPS,
	XP_LINE_ASYNC_XLA_OPS, /* Async XLA Ops: ops in flight, not busy time */
	XP_LINE_XLA_MODULES,
	XP_LINE_STEPS,
	XP_LINE_FRAMEWORK_OPS,
	XP_LINE_DERIVED_OTHER,
	XP_LINE_NVTX
};

struct xp_imp {
	struct xp_src src;
	const struct tk_import_options *o;
	char *host;	    /* host name (file name without .xplane.pb) */
	int64_t process_id; /* store process of this host (TK_NONE with tk_procs) */
	/* what tracekit's export recorded (xplane_procs.c), NULL when the file has none */
	char *tk_host;		      /* the store's host name, "" when it had none */
	char *tk_procs;		      /* the process table */
	struct xp_map proc_by_key;    /* process key of the file -> store process id */
	struct xp_map line_proc;      /* host line id -> store process id (current plane) */
	struct xp_map line_track;     /* host line id -> recorded track key (current plane) */
	struct xp_map track_by_key;   /* recorded track key -> store track id (current plane) */
	int64_t plane_process;	      /* store process of the current plane's tracks */
	int64_t start_ns;	      /* profile_start_time, or 0 */
	struct xp_map dev_by_ordinal; /* GPU/TPU ordinal on this host -> store device id */
	struct xp_corr corr;	      /* correlation id -> event id * 2 + (1 when device side) */
	/* current plane */
	enum xp_plane_kind pkind;
	const char *pname;
	int64_t device_id; /* store device of the plane, or TK_NONE */
	struct xp_emd *emd;
	size_t nemd, emd_cap;
	struct xp_smd *smd;
	size_t nsmd, smd_cap;
	struct xp_map em_index, sm_index; /* metadata id -> index into emd / smd */
	/* current line */
	enum xp_line_kind lkind;
	int64_t track_id, line_base_ns;
	int64_t step_seq;
	/* per-event scratch */
	struct xp_stat *st;
	size_t nst, st_cap;
	char *text;		   /* NUL-terminated copies of the event's text stats */
	size_t text_len, text_cap; /* reserved per event: never moves while texts are in use */
	char **gz;		   /* inflated compressed_str_values of the event */
	size_t ngz, gz_cap;
	const uint8_t *released;     /* mapped pages of the line before this were given back */
	struct xp_kd_slot *kd_cache; /* parsed kernel_details texts, XP_KD_SLOTS direct-mapped */
	int64_t events, nplanes, nlines,
	    nxevents; /* intervals written; planes, lines, XEvents read */
};

/* Kernels launched with one configuration repeat one kernel_details text: parse it once. */
#define XP_KD_SLOTS 512
#define XP_KD_MAX_TEXT 256 /* longer texts are parsed every time */
struct xp_kd_slot {
	uint64_t hash;
	size_t len; /* 0: empty */
	char text[XP_KD_MAX_TEXT];
	struct tk_kernel_info k;
};

/*
 * xp_kernel_details() - parse kernel_details text @s into @k (fields it lacks left as they are),
 * through @im's cache of recently seen texts.
 */
void xp_kernel_details(struct xp_imp *im, const char *s, struct tk_kernel_info *k);

/* xp_plane() - map one XPlane (@data, @len) into the writer; 0 or -1 after failing it. */
int xp_plane(struct xp_imp *im, const uint8_t *data, size_t len);

/* xp_task_env() - read the Task Environment plane: profile_start_time, its stats into meta. */
int xp_task_env(struct xp_imp *im, const uint8_t *data, size_t len);

/* xp_plane_reset() - free the current plane's metadata. */
void xp_plane_reset(struct xp_imp *im);

/*
 * ---- processes and hosts that tracekit's export recorded (xplane_procs.c) ----
 * xp_procs_add() - add the processes of im->tk_procs (or, without it, one process named after
 * the host) and the source; 0, or -1 after failing the writer.
 * xp_host_name() - the host of the file's processes and devices: the recorded one (NULL when
 * the store had none), else the file name.
 * xp_proc_of() - the store process of a recorded process key, TK_NONE when unknown.
 * xp_line_procs() - read the "line_id process_key track_key" rows of the host plane into
 * im->line_proc and im->line_track.
 */
int xp_procs_add(struct xp_imp *im);
const char *xp_host_name(const struct xp_imp *im);
int64_t xp_proc_of(const struct xp_imp *im, int64_t key);
int xp_line_procs(struct xp_imp *im, const char *text);

/* xp_event() - map one XEvent (@data, @len) of the current line into the writer; 0 or -1. */
int xp_event(struct xp_imp *im, const uint8_t *data, size_t len);

/* xp_smd_of() - the stat metadata with @id in the current plane, or NULL. */
const struct xp_smd *xp_smd_of(const struct xp_imp *im, int64_t id);

/* xp_stat_from_pb() - a protobuf-c XStat as an xp_stat (text still points into the message). */
void xp_stat_from_pb(const Tensorflow__Profiler__XStat *p, struct xp_stat *st);

/*
 * xp_stat_text() - the value of @st as NUL-terminated text in the event's text scratch (refs
 * resolved, gzip inflated); NULL when it has none. Valid until the next xp_text_reset().
 */
const char *xp_stat_text(struct xp_imp *im, const struct xp_stat *st);
void xp_text_reset(struct xp_imp *im);
/* xp_text_reserve() - make room for the texts of @n stats of total @bytes; TK_OK or TK_ENOMEM. */
int xp_text_reserve(struct xp_imp *im, size_t n, size_t bytes);
#endif
#endif

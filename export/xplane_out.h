/* XPlane export internals shared by xplane_out.c (files, outer messages) and xplane_host.c (planes). */
#ifndef TK_XPLANE_OUT_H
#define TK_XPLANE_OUT_H

#include "../schemas/xplane_stats.h"
#include "export_internal.h"

/* Stat metadata ids: the codes of the stats the exporter writes (XS_W in schemas/xplane_stats.h),
 * arg keys XO_ARG_MD + key string id. */
#define XO_ARG_MD (1ull << 32) /* stat metadata id of an arg key: + its string id */
#define XO_MEM_MD (1ull << 40) /* event metadata ids of MemoryAllocation (+0) / Deallocation (+1) */

/* An open-addressing set of nonzero 64-bit ids (the current plane's metadata ids). */
struct xo_set {
	uint64_t *k;
	size_t cap, n;
};
int xo_set_add(struct xo_set *s, uint64_t k);
void xo_set_clear(struct xo_set *s);

struct xp_out {
	struct tk_exporter *x;
	struct ex_out out;
	struct xo_set names, stat_keys; /* event / stat metadata ids used in the current plane */
	struct ex_buf ev;		/* one encoded XEvent */
	struct ex_buf pstats;		/* the current plane's stats */
	int64_t base_ns;		/* session start: line timestamps are relative to it */
	struct ex_buf lines;		/* the host plane's "line_id process_key" rows */
};

/* XStat encoders: one stat as field @field (4 in events, 6 in planes) appended to @b. */
int xo_stat_int(struct ex_buf *b, uint32_t field, uint64_t md, int64_t v);
int xo_stat_uint(struct ex_buf *b, uint32_t field, uint64_t md, uint64_t v);
int xo_stat_double(struct ex_buf *b, uint32_t field, uint64_t md, double v);
/* ref_value: the value is the name of the stat metadata @ref (declared in the plane). */
int xo_stat_ref(struct ex_buf *b, uint32_t field, uint64_t md, uint64_t ref);
int xo_stat_str(struct ex_buf *b, uint32_t field, uint64_t md, const char *s);
int xo_stat_bytes(struct ex_buf *b, uint32_t field, uint64_t md, int wire_field, const void *s,
		  size_t n);

/* Length-delimited field @field with a 5-byte length patched by xo_end(); -1 on error. */
int64_t xo_begin(struct xp_out *w, uint32_t field);
int xo_end(struct xp_out *w, int64_t start);
int xo_put_msg(struct xp_out *w, uint32_t field, const uint8_t *b, size_t n);
/* String field @field of the current message, made valid UTF-8 (ex_utf8()); a status. */
int xo_put_str(struct xp_out *w, uint32_t field, const char *s);
int64_t xo_plane_begin(struct xp_out *w, int64_t id, const char *name);
int xo_plane_end(struct xp_out *w, int64_t start);

/* One host's XSpace (xplane_host.c): host_id 0 = processes and devices without a host. */
int ex_xplane_host(struct xp_out *w, int64_t host_id, const char *host);

#endif

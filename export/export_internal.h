/*
 * Exporters' shared internals: the exporter handle, the buffered output file (temporary name,
 * renamed into place; optional gzip; back-patching of reserved lengths), protobuf wire helpers,
 * the string cache, and the merged event scan (events in rowid order with their detail rows and
 * flows, every table read by one forward cursor).
 */
#ifndef TK_EXPORT_INTERNAL_H
#define TK_EXPORT_INTERNAL_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <tracekit/export.h>
#include <tracekit/store.h>
#include <zlib.h>

#define EX_RESTART 100 /* internal: the fast scan met unsorted flows; run again with sorted ones */

struct tk_exporter {
	tk_error *err; /* the first failure of the run (tk_exporter_error()) */
	char output[4096];
	struct tk_export_stats stats;
	tk_store *store;
	sqlite3 *db; /* the store's connection (TK_STORE_STREAM: read-only, no mutex) */
	const char *store_path;
	int64_t start_ns, end_ns; /* trace bounds from meta (0 when absent) */
	int epoch;		  /* meta.clock = 'unix_epoch' */
	int has_args;		  /* the args table has rows */
	int sorted_flows;	  /* read flows through sorting statements (after EX_RESTART) */
	/* string cache: direct-mapped, id -> text */
	sqlite3_stmt *str_st;
	uint32_t *str_ids;
	char **str_txt;
};

/* Set the exporter's message (the first failure wins); returns @status. */
int ex_fail(struct tk_exporter *x, int status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* ex_fail() with the root cause @cause (from @module: "sqlite", "os", ...) under the message. */
int ex_fail_cause(struct tk_exporter *x, int status, const char *module, const char *cause,
		  const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* Fail with the SQLite message of the store; returns TK_EFORMAT. */
int ex_fail_sql(struct tk_exporter *x, const char *what);

/* Prepare @sql on the store (failing @x with a message on error). */
int ex_prepare(struct tk_exporter *x, const char *sql, sqlite3_stmt **st);

/* The text of string id @id ("" for 0 or unknown) as valid UTF-8 (invalid bytes as U+FFFD);
 * valid until the next call for a colliding id. */
const char *ex_str(struct tk_exporter *x, uint32_t id);

/* Make *@s (*@n bytes) valid UTF-8 for a protobuf string field: kept when it is, else pointed at
 * a repaired copy returned in *@owned (free it; NULL when none) and *@n updated. TK_ENOMEM. */
int ex_utf8(const char **s, size_t *n, char **owned);

/* Copy @in into @out (@n bytes) keeping [A-Za-z0-9._-], others as '_'; never empty, never "."/"..". */
void ex_sanitize(const char *in, char *out, size_t n);

/* ---- output file ---- */
struct ex_out {
	struct tk_exporter *x;
	int fd;
	char *path, *tmp;
	uint8_t *buf;
	size_t len, cap;
	int64_t flushed; /* bytes handed to the file (uncompressed) */
	int64_t written; /* bytes in the file */
	z_stream *z;
	int failed;
};

/* Open a temporary file beside @path (gzip when @gzip). */
int ex_out_open(struct tk_exporter *x, struct ex_out *o, const char *path, int gzip);
int ex_out_flush(struct ex_out *o);
/* Finish: flush, fsync, rename onto the target. On failure the temporary file is removed. */
int ex_out_commit(struct ex_out *o);
/* Drop the temporary file (NULL-safe, idempotent). */
void ex_out_abort(struct ex_out *o);
/* Overwrite @n bytes at uncompressed position @pos (plain files only). */
int ex_out_patch(struct ex_out *o, int64_t pos, const uint8_t *b, size_t n);

static inline int64_t ex_out_pos(const struct ex_out *o)
{
	return o->flushed + (int64_t)o->len;
}

/* Room for @n more bytes in the buffer (flushes); NULL after a failure. */
static inline uint8_t *ex_out_room(struct ex_out *o, size_t n)
{
	if (o->len + n > o->cap && ex_out_flush(o) != 0)
		return NULL;
	if (n > o->cap)
		return NULL;
	return o->buf + o->len;
}

static inline void ex_put(struct ex_out *o, const void *p, size_t n)
{
	if (o->len + n > o->cap) {
		if (ex_out_flush(o) != 0)
			return;
		if (n > o->cap) { /* huge: write through */
			const uint8_t *q = p;
			while (n && !o->failed) {
				size_t k = n < o->cap ? n : o->cap;
				memcpy(o->buf, q, k);
				o->len = k;
				ex_out_flush(o);
				q += k;
				n -= k;
			}
			return;
		}
	}
	memcpy(o->buf + o->len, p, n);
	o->len += n;
}

static inline void ex_puts(struct ex_out *o, const char *s)
{
	ex_put(o, s, strlen(s));
}

/* ---- protobuf wire ---- */
enum { PB_VARINT = 0, PB_I64 = 1, PB_LEN = 2 };

static inline uint8_t *pb_varint(uint8_t *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*p++ = (uint8_t)v;
	return p;
}

static inline size_t pb_varint_size(uint64_t v)
{
	size_t n = 1;
	while (v >= 0x80) {
		v >>= 7;
		n++;
	}
	return n;
}

static inline uint8_t *pb_tag(uint8_t *p, uint32_t field, int wt)
{
	return pb_varint(p, ((uint64_t)field << 3) | (uint64_t)wt);
}

static inline uint8_t *pb_uint(uint8_t *p, uint32_t field, uint64_t v)
{
	return pb_varint(pb_tag(p, field, PB_VARINT), v);
}

static inline uint8_t *pb_fixed64(uint8_t *p, uint32_t field, uint64_t v)
{
	p = pb_tag(p, field, PB_I64);
	for (int i = 0; i < 8; i++)
		*p++ = (uint8_t)(v >> (8 * i));
	return p;
}

static inline uint8_t *pb_double(uint8_t *p, uint32_t field, double d)
{
	uint64_t v;
	memcpy(&v, &d, sizeof(v));
	return pb_fixed64(p, field, v);
}

static inline uint8_t *pb_bytes(uint8_t *p, uint32_t field, const void *s, size_t n)
{
	p = pb_varint(pb_tag(p, field, PB_LEN), n);
	memcpy(p, s, n);
	return p + n;
}

/* A 5-byte (padded) varint, for lengths written before their message and patched after. */
static inline void pb_varint5(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)((v >> (7 * i)) & 0x7f) | 0x80;
	p[4] = (uint8_t)((v >> 28) & 0x7f);
}

/* A growable scratch buffer. */
struct ex_buf {
	uint8_t *p;
	size_t len, cap;
};
int ex_buf_reserve(struct ex_buf *b, size_t more);
void ex_buf_free(struct ex_buf *b);

/* ---- merged event scan (rowid order) ---- */
#define EX_MAX_FLOWS 16 /* flows per event endpoint kept; more are dropped (counted) */

struct ex_flow {
	int64_t id;
	char kind[32];
};

struct ex_event {
	int64_t id, track_id, ts, dur, corr; /* corr TK_NONE when NULL */
	int kind;
	uint32_t name_id, cat_id;
	int has_kernel;
	int64_t grid[3], block[3], regs, ssmem, dsmem; /* TK_NONE when NULL */
	double occ, bps, wps;			       /* < 0 when NULL */
	uint32_t mangled_id;
	int has_copy;
	int64_t bytes, src_dev, dst_dev; /* copy or set bytes */
	int copy_kind, src_kind, dst_kind;
	int has_set;
	int64_t set_value;
	int set_kind;
	int has_step;
	int64_t step_num;
	int has_op;
	uint32_t hlo_op, hlo_module, fw_op, op_cat;
	int64_t program_id, flops, bytes_accessed;
	int nout, nin; /* flows leaving / entering this event */
	struct ex_flow out[EX_MAX_FLOWS], in[EX_MAX_FLOWS];
};

/* A forward cursor over one table: read straight from its pages (store/tscan.c) when the store
 * allows it, else through an SQL statement. */
struct tks_tscan;
struct ex_cur {
	sqlite3_stmt *st;
	struct tks_tscan *ts;
	char err[256]; /* the direct read's message */
};

/* A table a cursor reads: its columns, and which of them the rows must come ordered by (the
 * direct read is used only when that column is the rowid); @order is the SQL fallback's. */
struct ex_table {
	const char *name, *order;
	const char *cols[16];
	int order_col;
};

/* Open @c on @t (through SQL only when @sql_only, ordered by @order or t->order); a status. */
int ex_cur_open(struct tk_exporter *x, struct ex_cur *c, const struct ex_table *t, int sql_only,
		const char *order);
/* 1 with a row, 0 at the end, < 0 on error (message in x). */
int ex_cur_step(struct tk_exporter *x, struct ex_cur *c);
void ex_cur_close(struct ex_cur *c); /* NULL-safe, idempotent */
int ex_cur_null(const struct ex_cur *c, int i);
int64_t ex_cur_z(const struct ex_cur *c, int i); /* integer, NULL as 0 */
int64_t ex_cur_i(const struct ex_cur *c, int i); /* integer, NULL as TK_NONE */
double ex_cur_r(const struct ex_cur *c, int i);	 /* real, NULL as -1 */
/* Text, NULL as @dflt, into @out (cut to @n - 1 bytes). */
void ex_cur_text(const struct ex_cur *c, int i, char *out, size_t n, const char *dflt);
/* Bit i set when column i (of the first @n, at most 32) holds an integer; *@nulls: NULL ones. */
uint32_t ex_cur_ints(const struct ex_cur *c, int n, uint32_t *nulls);

/* ---- rows that break the store's rules (store/checked.h) ---- */
/* Fail with TK_EFORMAT: "store 'PATH': table TABLE, row id ID: WHY". */
int ex_fail_row(struct tk_exporter *x, const char *table, int64_t id, const char *why);
/* Array slots for the ids of @table (tk_id_slots() of its row count and greatest id). */
int ex_id_slots(struct tk_exporter *x, const char *table, int64_t *slots);
/* TK_OK when @id of a row of @table may index an array of @slots, else the failure. */
int ex_check_id(struct tk_exporter *x, const char *table, int64_t id, int64_t slots);

struct ex_scan {
	struct tk_exporter *x;
	struct ex_cur ev, kd, cd, sd, st, od, fo, fi;
	int kd_ok, cd_ok, sd_ok, st_ok, od_ok, fo_ok, fi_ok; /* cursor has a current row */
	int64_t kd_key, cd_key, sd_key, st_key, od_key;	     /* current keys */
	int64_t last_fo, last_fi; /* flow cursors' current keys (sortedness check) */
	int64_t dropped_flows;
};

int ex_scan_open(struct tk_exporter *x, struct ex_scan *s);
/* 1 with *e filled, 0 at the end, < 0 on error, EX_RESTART when flows are not in event order. */
int ex_scan_next(struct ex_scan *s, struct ex_event *e);
void ex_scan_close(struct ex_scan *s);

/* ---- formats ---- */
int ex_xplane(struct tk_exporter *x, const char *logdir, const char *run);
int ex_chrome(struct tk_exporter *x, const char *path);
int ex_perfetto(struct tk_exporter *x, const char *path);

#endif

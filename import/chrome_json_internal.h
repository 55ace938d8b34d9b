/*
 * State shared by the files of the Chrome/Kineto JSON importer: chrome_json.c (the two passes
 * over the file), chrome_json_map.c (processes, devices, tracks, and one event into the store),
 * chrome_json_flow.c (flow binding), chrome_json_be.c (B/E matching), chrome_json_cache.c
 * (small caches on the per-event path). Events are parsed by chrome_json_fast.c / chrome_json_event.c. Not part of
 * the public API.
 */
#ifndef TK_CHROME_JSON_INTERNAL_H
#define TK_CHROME_JSON_INTERNAL_H

#include <stdint.h>
#include <tracekit/import.h>
#include <tracekit/store.h>

#include "chrome_json_event.h"
#include "chrome_json_hash.h"

#define TK_SKIP_EVENT 1	     /* internal: drop this event, not an error */
#define CJ_BREAK 2	     /* internal, --salvage: the input broke here; stop, keep the rest */
#define CJ_MAX_BE_DEPTH 1024 /* open B events per thread */
#define CJ_MAX_OPEN (256u << 10)	     /* open B events kept at once, all threads together */
#define CJ_MAX_OPEN_BYTES ((size_t)64 << 20) /* and the bytes they take */
#define CJ_MAX_RECENT (256u << 10)  /* (track, ts) -> event entries kept for flow binding */
#define CJ_MAX_PENDING (256u << 10) /* flow points waiting for their event */
#define CJ_MAX_FLOWS (512u << 10)   /* flow ids remembered */

struct cj_proc {
	char *key;    /* "i<int>" or "s<string>" */
	char *name;   /* process_name, or NULL */
	char *labels; /* process_labels, or NULL */
	int is_gpu;   /* a device (Kineto: pid = device index) */
	int has_events;
	int64_t pid;		       /* integer pid, or TK_NONE */
	int64_t process_id, device_id; /* store ids, TK_NONE until made */
};

struct cj_devprop {
	int64_t id, sms, mem, max_threads_sm, regs_sm, smem_sm;
	char *name;
	char cc[32];
};

struct cj_fpoint { /* a flow end waiting for the event it binds to */
	int64_t track, ts, fa, fb;
	int is_src;
	int64_t next;
};

struct cj_dst { /* a flow end whose start is not known yet */
	int64_t dst;
	int64_t next;
};

#define CJ_TCACHE 4	     /* (pid, tid) texts -> track; pid texts -> process */
#define CJ_CCACHE 8	     /* categories -> what they mean */
#define CJ_ICACHE 256	     /* names and categories -> string ids */
#define CJ_ICACHE_MAXLEN 512 /* longer ones are not cached */

struct cj_tcache {
	unsigned char pt, tt, plen, tlen; /* value types and lengths of pid, tid */
	char pid[24], tid[24];
	size_t proc; /* index in procs */
	int64_t track;
};

struct cj_catinfo {
	enum tk_event_kind kind;
	int is_device, is_host; /* a device category; a Kineto host category */
};

struct cj_ccache {
	unsigned char len;
	char txt[31];
	struct cj_catinfo info;
};

struct cj_icache {
	uint32_t id;
	size_t len, cap;
	char *s;
};

struct cj_open; /* an open 'B'/'b' event (chrome_json_be.c) */

/* What a trace's top-level keys say about where it came from: read by the importer's pass 1 and
 * by tk_rank_file_peek() through one function, cj_top_value(). */
struct cj_top {
	int64_t rank, world_size; /* distributedInfo's, or TK_NONE */
	int64_t base_ns;	  /* baseTimeNanoseconds (0 when absent) */
	int has_base, rank_from_file, is_kineto;
	char *host;    /* host_name, or NULL */
	char *backend; /* distributedInfo's backend, or NULL */
};

/* Traces whose first timestamp is past this (2001-09-09, in ns) are on the Unix epoch clock. */
#define CJ_EPOCH_MIN_NS 1000000000000000000LL
#define CJ_STOP 3 /* internal: a cj_walk callback is done with the file (not an error) */

/* The top level of a trace file, walked by cj_walk_top(): each callback returns TK_OK to go on,
 * anything else stops the walk and is returned. */
struct cj_walk {
	void *ctx;
	/* the value of the top-level key @key: its first token is next, not read yet */
	int (*key)(void *ctx, struct tku_json_lex *lx, const char *key);
	/* a top-level array (of events): its '[' was read */
	int (*bare)(void *ctx, struct tku_json_lex *lx);
	/* the lexer found bad input (lx->msg, err_line, err_col); out of memory */
	int (*fail)(void *ctx, struct tku_json_lex *lx);
	int (*nomem)(void *ctx);
};

struct cj_ctx {
	tk_writer *w;
	const char *path;
	const struct tk_import_options *o;
	struct cj_top top; /* pass 1: distributedInfo, host_name, baseTimeNanoseconds, ... */
	int has_flows;
	int bare,
	    has_events_key; /* pass 1: a top-level array; an object with a traceEvents array */
	int64_t n_phased;   /* pass 1: events with a "ph" */
	int64_t min_ts_ns;
	char *main_key; /* pid key of the main host process, or NULL */

	struct cj_proc *procs;
	size_t nprocs, cap_procs;
	struct cj_smap proc_by_key;  /* pid key -> index in procs */
	struct cj_smap tname_by_key; /* thread key -> index in tnames */
	char **tnames;
	size_t ntnames, cap_tnames;
	struct cj_smap track_by_key;   /* thread key -> track id */
	struct cj_smap counter_by_key; /* counter key -> track id */
	struct cj_devprop *props;
	size_t nprops, cap_props;
	struct cj_smap dev_by_ordinal; /* "<ordinal>" -> device id */
	struct cj_smap cat_ids;	       /* flow category -> index in cat_names */
	char **cat_names;
	size_t ncats, cap_cats;

	struct cj_pmap recent;	/* (track, ts) -> event id * 2 + has correlation */
	struct cj_pmap pend_at; /* (track, ts) -> first pending point */
	struct cj_fpoint *pend;
	size_t npend, cap_pend, live_pend;
	struct cj_pmap flows; /* (category, id) -> src event id (> 0) or -(first dst + 1) */
	struct cj_dst *dsts;
	size_t ndsts, cap_dsts;

	/* chrome_json_be.c: open B events, each in one allocation of its own size */
	struct cj_smap open_by_key;		   /* thread key -> its innermost open event */
	struct cj_open *open_oldest, *open_newest; /* all of them, in the order they began */
	size_t n_open, open_bytes;

	/* --salvage: the first break of the input (pass 2 can only find one at or before it).
	 * n_read counts the traceEvents elements read completely in the current pass; pass 2
	 * stops after brk_events of them, where pass 1 stopped. */
	int broke;
	int64_t n_read, brk_events;
	uint64_t brk_line, brk_col;
	char brk_msg[256];

	int64_t n_skipped, n_bad_time, n_flow_dropped, n_unclosed, n_unmatched_end, n_flow_unbound;
	int64_t n_evicted; /* open B events closed early by the bound on open events */
	int64_t n_slices, n_flow_points; /* pass 1: events that may become slices; flow points */
	char keybuf[1024];

	/* chrome_json_cache.c */
	struct cj_tcache tcache[CJ_TCACHE], pcache[CJ_TCACHE];
	unsigned ntcache, tcache_next, npcache, pcache_next;
	struct cj_ccache ccache[CJ_CCACHE];
	unsigned nccache, ccache_next;
	struct cj_icache icache[CJ_ICACHE];
	const char *flow_cat; /* the category of the last flow key, and its index */
	size_t flow_cat_len;
	int64_t flow_cat_ix;
};

/* chrome_json.c */
/* cj_walk_top() - walk the top level of the trace @lx reads: an object's keys, or a bare array;
 * then the end of the input. TK_OK, or what a callback returned. */
int cj_walk_top(struct tku_json_lex *lx, const struct cj_walk *w);
/* cj_top_value() - learn into @top from the top-level key @key whose value's first token @t
 * was read (an object value is read whole, through @e). 0, 1 when @key is none of those
 * cj_top knows (the value is still to be read or skipped), -1 on bad input (the lexer's
 * error), -2 out of memory. */
int cj_top_value(struct cj_top *top, struct tku_json_lex *lx, struct cj_event *e, const char *key,
		 enum tku_json_tok t);
void cj_top_free(struct cj_top *top);

/* chrome_json_map.c */
int cj_pid_key(const struct cj_event *e, struct cj_val v, char *buf, size_t len);
struct cj_proc *cj_proc_get(struct cj_ctx *c, const char *key, int create, int64_t pid);
int cj_map_event(struct cj_ctx *c, struct cj_event *e);
int cj_fail(struct cj_ctx *c, const struct cj_event *e, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
int cj_break(struct cj_ctx *c, uint64_t line, uint64_t col, const char *msg);
void cj_warn(struct cj_ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int cj_emit_interval(struct cj_ctx *c, const struct cj_event *e, int64_t ts, int64_t dur,
		     const struct cj_event *extra, int force_other, int64_t *out_id);
int cj_track_for(struct cj_ctx *c, const struct cj_event *e, int64_t *track, int *is_gpu,
		 struct cj_proc **proc);

/* chrome_json_cache.c */
/* cj_track_cached() - 1 with *@track and *@proc when @e's (pid, tid) was resolved recently. */
int cj_track_cached(struct cj_ctx *c, const struct cj_event *e, int64_t *track,
		    struct cj_proc **proc);
void cj_track_remember(struct cj_ctx *c, const struct cj_event *e, int64_t track,
		       const struct cj_proc *proc);
/* cj_proc_cached() - the process of @e's pid when it was resolved recently, or NULL. */
struct cj_proc *cj_proc_cached(struct cj_ctx *c, const struct cj_event *e);
void cj_proc_remember(struct cj_ctx *c, const struct cj_event *e, const struct cj_proc *proc);
/* cj_cat_info() - what category @cat (@len bytes, NUL-terminated) means. */
struct cj_catinfo cj_cat_info(struct cj_ctx *c, const char *cat, size_t len);
/* cj_intern() - tk_writer_intern() of @s (@len bytes, NUL-terminated), cached. */
uint32_t cj_intern(struct cj_ctx *c, const char *s, size_t len);
void cj_cache_free(struct cj_ctx *c);

/* chrome_json_flow.c */
int cj_flow_point(struct cj_ctx *c, struct cj_event *e, int64_t ts);
int cj_flow_v2(struct cj_ctx *c, const struct cj_event *e, int64_t id);
int cj_flow_event_added(struct cj_ctx *c, int64_t track, int64_t ts, int64_t id, int has_corr);
void cj_flow_free(struct cj_ctx *c);

/* chrome_json_be.c */
/* cj_be() - a 'B'/'b' (@is_begin) or 'E'/'e' event at @ts; @async: 'b'/'e', paired by id. */
int cj_be(struct cj_ctx *c, struct cj_event *e, int64_t ts, int is_begin, int async);
/* cj_be_finish() - the B events still open at the end, stored as incomplete. */
int cj_be_finish(struct cj_ctx *c);
void cj_be_free(struct cj_ctx *c);

#endif

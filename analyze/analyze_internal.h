/* Internal interface of the analyses: the shared context and one entry point per analysis file. */
#ifndef TK_ANALYZE_INTERNAL_H
#define TK_ANALYZE_INTERNAL_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>
#include <tracekit/analyze.h>
#include <tracekit/error.h>

#include "util/map.h"
#include "util/vec.h"
#include "tk_schema.h" /* generated from schemas/store.sql and analysis.sql */

/*
 * The writer of an analysis table states how many columns its INSERT writes (TK_NCOLS_<TABLE>
 * of tk_schema.h): the build fails when schemas/analysis.sql declares another number.
 */
#define TKA_WRITES(ncols, n, table) \
	_Static_assert((ncols) == (n), table ": the writer and schemas/analysis.sql disagree")

/* What every analysis gets: the store opened read-write inside one open transaction. */
struct tka_ctx {
	sqlite3 *db;
	const struct tk_analyze_options *opt;
	const char *path; /* the store's path (the event readers open their own connections) */
	int jobs;	  /* threads reading the events (event_jobs.c), >= 1 */
	int jobs_auto; /* jobs is the cores (options.jobs 0): no event readers for a small store */
	char *err;     /* message buffer of errlen bytes */
	size_t errlen;
	struct tka_pass *pass;	    /* the shared pass over the events (event_pass.c) */
	struct tka_timeline *tl;    /* per-device timeline (intervals.h), from the pass */
	struct tka_tl_builder *tlb; /* timeline.c: the timeline while the pass builds it */
	struct tka_op_state *ops;   /* op_profile.c: self-time sweeps fed by the pass */
	struct tka_ks_state *ks;    /* kernel_stats.c: kernel groups fed by the pass */
	struct tka_kpi_state *kpi;  /* kpi.c: compile intervals, bytes accessed, from the pass */
	struct tka_step_marks
	    *marks;		 /* step_windows.c: device-side step annotations, from the pass */
	struct tka_gc_state *gc; /* gap_causes.c: host-side synchronizations, from the pass */
	struct tka_og_state *og; /* op_gpu_time.c: launches and host intervals, from the pass */
	/* A job analysed part by part (partition.c): the part being analysed, NULL when the
	 * whole store is; split_end: the analyses over every part run now (after the parts). */
	const struct tka_part *part;
	int split_end;
	struct tka_split *split; /* what the parts leave for the end (analyze.c) */
	size_t parts;		 /* the parts analysed one at a time (0: one pass) */
	int no_readers; /* no reader connections beside this one: a split analysis wrote pages */
};

/* What the parts of a split analysis leave for the analyses at the end. */
struct tka_split {
	int launch_flows;	   /* the store has launch flows (timeline.c) */
	struct tka_timeline *keep; /* each device's communication ops and windows (comm.c) */
	int64_t (*pdev)[2];	   /* (process, device) pairs of every part (op_gpu_hosts.c) */
	size_t npdev, pdev_cap;
	struct tka_ks_state *ks; /* kernel_stats.c: the finished groups of every part */
	int64_t perf_mark;	 /* roofline.c: analysis_op_perf rows before this part's */
	int64_t compile_events;	 /* kpi.c: compile events of the parts so far */
};

/* ---- a job's store analysed part by part (partition.c) ---- */

/* One part: a source's processes, their devices and tracks, their events and launch flows. */
struct tka_part {
	int64_t dev_lo, dev_hi; /* devices.id range (dev_lo > dev_hi: none) */
	int64_t trk_lo, trk_hi; /* tracks.id range (trk_lo > trk_hi: none) */
	int64_t ev_lo, ev_hi;	/* events.id range (checked as the pass reads them) */
	int64_t fl_lo, fl_hi;	/* flows.id range (launch flows checked in the timeline) */
};
struct tka_parts {
	struct tka_part *v;
	size_t n;
};

/*
 * tka_parts_find() - the parts of the store in @c, in order; ps->n 0 when it does not split
 * (fewer than two sources, or its ids do not ascend with them).
 */
int tka_parts_find(struct tka_ctx *c, struct tka_parts *ps);
void tka_parts_free(struct tka_parts *ps);
/* tka_split_keep() - keep of each device of the part analysed what the analyses at the end
 * read (communication, clock offsets: its communication ops, their union and its windows) in
 * c->split->keep. */
int tka_split_keep(struct tka_ctx *c);
/* tka_split_order() - a part's row @rowid of analysis_op_gpu_time goes in group @group of
 * one pass's order (temp._tk_split_order; analyze.c reorders the table by it at the end). */
int tka_split_order(struct tka_ctx *c, int64_t rowid, int group);
/* tka_split_timeline() - the parts done: what they kept becomes c->tl, for the end. */
void tka_split_timeline(struct tka_ctx *c);
struct tka_split *tka_split_new(void);
void tka_split_free(struct tka_split *s);

/*
 * Returned by the pass (and the analyses it feeds) when an event or launch flow lies outside
 * the part being analysed: the analysis starts again over the whole store.
 */
#define TKA_NOT_SPLIT 1000

/*
 * The same ranges for SQL: tk_part(0..3) gives the events' low and high id, the devices' low
 * and high id of the part analysed, or of everything (a function tk_analyze() registers on its
 * connection).
 */
#define TKA_SQL_EV_LO "tk_part(0)"
#define TKA_SQL_EV_HI "tk_part(1)"
#define TKA_SQL_DEV_LO "tk_part(2)"
#define TKA_SQL_DEV_HI "tk_part(3)"

/* The id ranges of the part analysed (everything when the whole store is). */
static inline int64_t tka_ev_lo(const struct tka_ctx *c)
{
	return c->part ? c->part->ev_lo : INT64_MIN;
}
static inline int64_t tka_ev_hi(const struct tka_ctx *c)
{
	return c->part ? c->part->ev_hi : INT64_MAX;
}

/*
 * An SQL condition on the name column @col: the host API calls that block their thread until
 * the device catches up (synchronous copies and sets, every *Synchronize*). The sync_api_calls
 * finding and the sync gap cause use it (docs/metrics.md, "Idle gaps").
 */
#define TKA_BLOCKING_API_NAMES(col)                                                          \
	"(" col " IN ('cudaMemcpy', 'cudaMemcpy2D', 'cudaMemcpy3D', 'cudaMemcpyToSymbol', "  \
	"'cudaMemcpyFromSymbol', 'cudaMemset', 'cudaMemset2D', 'hipMemcpy', 'hipMemset', "   \
	"'cuMemcpy', 'cuMemcpyDtoH', 'cuMemcpyHtoD', 'cuMemcpyDtoH_v2', 'cuMemcpyHtoD_v2') " \
	"OR " col " GLOB '*Synchronize*')"

/* Free the timeline (intervals.c); tk_analyze calls it when the analyses are done. */
void tka_timeline_free(struct tka_timeline *tl);

/*
 * Names of strings rows by id, each read from the store once (names.c). tka_name() sets *@out to
 * the text of row @id, NULL when there is no such row or its str is NULL; valid until
 * tka_names_free() (which accepts a zeroed or freed cache).
 */
struct tka_names {
	struct tku_table t; /* by id: the names looked up */
	sqlite3_stmt *q;
};
void tka_names_init(struct tka_names *n);
int tka_name(struct tka_ctx *c, struct tka_names *n, int64_t id, const char **out);
void tka_names_free(struct tka_names *n);

/* ---- the shared pass over the events (event_pass.c) ---- */

/* A track as the pass users see it (tracks table), by track id. */
struct tka_track {
	int64_t device_id, process_id; /* TK_NONE when NULL */
	uint8_t exists, counter;       /* a tracks row has this id; its kind is 'counter' */
};

/* The pass: the tracks, and what its users asked it to read (set in their begin hook). */
struct tka_pass {
	struct tka_track *tracks; /* [0, ntracks]: index = tracks.id */
	int64_t ntracks;	  /* greatest tracks.id (0 when none) */
	int want_corr;		  /* read events.correlation_id */
	int want_op_details;	  /* merge op_details */
	int want_kernel_details;  /* merge kernel_details */
	int done;		  /* every event (of the part, c->part) has been read */
	/* a job analysed part by part: the reader goes on from part to part */
	struct tka_reader *rd; /* event_pass.c: the file's pages, open across the parts */
	int64_t total;	       /* the durations read so far, added up */
};

/* tka_pass_next_part() - the part's analyses are done: free what the pass's users and the
 * timeline hold, so that tka_pass_run() reads the next part (c->part) with them afresh. */
void tka_pass_next_part(struct tka_ctx *c);

/* The track @id of the pass, NULL when no tracks row has it (a hostile store's event may name
 * any id). */
static inline const struct tka_track *tka_pass_track(const struct tka_pass *p, int64_t id)
{
	return id >= 1 && id <= p->ntracks && p->tracks[id].exists ? &p->tracks[id] : NULL;
}

/* One event of the pass, in load (id) order, with its op_details and kernel_details. */
struct tka_ev {
	int64_t id, track, ts, dur;
	int64_t name_id, cat_id; /* cat_id 0 when NULL */
	int64_t corr;		 /* TK_NONE when NULL or not asked for */
	int kind;
	int has_op;		   /* has an op_details row (when asked for) */
	int64_t op_cat, op_module; /* its op_category_id, hlo_module_id; 0 when NULL */
	int64_t op_bytes;	   /* its bytes_accessed, TK_NONE when NULL */
	int has_kd;		   /* has a kernel_details row (when asked for) */
	int64_t kd[9];		   /* grid xyz, block xyz, registers, static_smem, dynamic_smem;
					 TK_NONE when NULL */
	double occupancy;	   /* kernel_details.occupancy, < 0 when NULL */
};

/*
 * tka_pass_run() - read every event once, in load order, and hand each to the analyses that
 * need it (timeline, op profile, kernel stats, KPI inputs). Runs once per
 * tk_analyze(); later calls return at once. Each user has a begin hook (prepares its state in
 * the ctx, may ask for more columns), an event hook and an end hook.
 */
int tka_pass_run(struct tka_ctx *c);

/* tka_pass_free() - free the pass, whatever its users still hold and the timeline (NULL states
 * are fine). */
void tka_pass_free(struct tka_ctx *c);

/*
 * A cursor over the events with ids in [lo, hi], in id order, each with its op_details and
 * kernel_details merged in as the pass asked (event_pass.c). Each row is checked against the
 * store's rules but for the sum of the durations and the kernels' shared memory sizes, which the
 * pass checks as it hands the events out in id order.
 * tka_evcur_open() prepares it on @c's connection, tka_evcur_seek() (re)starts it on a range,
 * tka_evcur_next() reads the next event into *@e (*@got 0 at the end of the range).
 */
struct tka_merge {
	sqlite3_stmt *st;
	int64_t id; /* event_id of the current row, INT64_MAX at the end */
};
struct tka_evcur {
	sqlite3_stmt *q;
	struct tka_merge od, kd;
	int corr; /* events.correlation_id is read */
};
int tka_evcur_open(struct tka_ctx *c, const struct tka_pass *p, struct tka_evcur *r);
int tka_evcur_seek(struct tka_ctx *c, struct tka_evcur *r, int64_t lo, int64_t hi);
int tka_evcur_next(struct tka_ctx *c, struct tka_evcur *r, struct tka_ev *e, int *got);
void tka_evcur_close(struct tka_evcur *r);

/* ---- analyses on worker threads (analysis_jobs.c) ---- */

/*
 * With jobs the cores (not asked for), the events of a store of fewer event ids than this are
 * read on the calling thread alone, and so are the per-item analyses (device_jobs.c): threads
 * and connections would cost what they could save (the analyses on workers start whatever the
 * size).
 */
#define TKA_AUTO_MIN_IDS 262144

/* The CREATE TABLE of analysis table @name (@len bytes) in schemas/analysis.sql: *@sql, *@n. */
int tka_table_sql(struct tka_ctx *c, const char *name, size_t len, const char **sql, size_t *n);

/*
 * tka_ajob_start() - run @run on a worker thread, on its own read-only connection, into TEMP
 * tables @tables (space-separated). tka_ajob_wait() waits for it to be done (its read lock
 * released). tka_ajob_finish() waits for it and copies its rows into c->db's tables in order,
 * or returns its status with its message in c->err. tka_ajob_free()
 * interrupts a worker still running and frees it (NULL accepted).
 */
struct tka_ajob;
int tka_ajob_start(struct tka_ctx *c, int (*run)(struct tka_ctx *c), const char *tables,
		   struct tka_ajob **out);
void tka_ajob_wait(struct tka_ajob *j);
int tka_ajob_finish(struct tka_ctx *c, struct tka_ajob *j);
void tka_ajob_free(struct tka_ajob *j);

/*
 * The events read by c->jobs threads, each on its own read-only connection to c->path, in
 * ranges of ids handed out in turn and given back in id order (event_jobs.c): the same events,
 * checks and messages as one tka_evcur over every id. tka_evjobs_next() sets *@e to the next
 * event (NULL at the end; valid until the next call); a reader's failure is returned where its
 * events stop, as tka_evcur would have returned it.
 */
struct tka_evjobs;
/* *@out NULL (and TK_OK) when c->jobs_auto and the store is too small for readers to pay. */
int tka_evjobs_start(struct tka_ctx *c, const struct tka_pass *p, struct tka_evjobs **out);
int tka_evjobs_next(struct tka_ctx *c, struct tka_evjobs *j, const struct tka_ev **e);
void tka_evjobs_stop(struct tka_evjobs *j);

/* ---- per-item work of the analyses after the pass on c->jobs threads (device_jobs.c) ---- */

/* The statements an analysis's items write rows into, and each one's failure message prefix
 * ("<what>: <SQLite's message>"). */
struct tka_writer {
	sqlite3_stmt *st[4];
	const char *what[4];
};

/*
 * The rows of one item: made with tka_row_begin(statement index in the writer), one
 * tka_row_int/double/text/null() per parameter in order (?1, ?2, ...), tka_row_end(). With one
 * thread (direct) each row is bound and written at once; else recorded, for the main thread.
 */
struct tka_val;
struct tka_rows {
	struct tka_ctx *c; /* the item's context (its message) */
	const struct tka_writer *w;
	int direct;
	/* direct: the row being bound */
	sqlite3_stmt *cur;
	const char *what;
	int param;
	/* recorded: the values, and the texts they point into */
	struct tka_val *v;
	size_t n, cap;
	char *text;
	size_t ntext, text_cap;
	int nomem;
};
void tka_row_begin(struct tka_rows *r, int stmt);
void tka_row_null(struct tka_rows *r);
void tka_row_int(struct tka_rows *r, int64_t v);
void tka_row_double(struct tka_rows *r, double v);
void tka_row_text(struct tka_rows *r, const char *s);
/* TK_OK, or the failure of writing the row (direct) or of recording it (out of memory). */
int tka_row_end(struct tka_rows *r);

/* An item's work: item @i, failures by tka_fail(@c, ...), rows (if any) into @rows. @c is the
 * item's own context: read c->tl, c->pass and the states; never c->db (NULL off the main
 * thread). */
typedef int (*tka_item_fn)(struct tka_ctx *c, const void *arg, size_t i, struct tka_rows *rows);

#define TKA_EACH_MAX_THREADS 64

/* The threads tka_each() uses for @n items: c->jobs, at most @n. */
int tka_jobs_for(const struct tka_ctx *c, size_t n);

/*
 * tka_each() - @fn for items 0 .. @n - 1 (@w: the statements of their rows, NULL when they
 * write none). One thread: in order, rows written as made, stopping at the first failure. More:
 * on tka_jobs_for() threads, this one included; then their rows written in item order up to the
 * first failed item, whose status and message are returned (as one thread returns them).
 */
int tka_each(struct tka_ctx *c, size_t n, const struct tka_writer *w, tka_item_fn fn,
	     const void *arg);

/* The pass users' hooks (each in its analysis' file) and the frees of their states. */
int tka_timeline_begin(struct tka_ctx *c);
int tka_timeline_event(struct tka_ctx *c, const struct tka_ev *e);
int tka_timeline_end(struct tka_ctx *c);
void tka_timeline_builder_free(struct tka_tl_builder *b);
int tka_op_profile_begin(struct tka_ctx *c);
int tka_op_profile_event(struct tka_ctx *c, const struct tka_ev *e);
int tka_op_profile_end(struct tka_ctx *c);
void tka_op_profile_free(struct tka_op_state *s);
int tka_kernel_stats_begin(struct tka_ctx *c);
int tka_kernel_stats_event(struct tka_ctx *c, const struct tka_ev *e);
int tka_kernel_stats_end(struct tka_ctx *c);
void tka_kernel_stats_free(struct tka_ks_state *s);
int tka_kpi_begin(struct tka_ctx *c);
int tka_kpi_event(struct tka_ctx *c, const struct tka_ev *e);
int tka_kpi_end(struct tka_ctx *c);
void tka_kpi_free(struct tka_kpi_state *s);
int tka_gap_causes_begin(struct tka_ctx *c);
int tka_gap_causes_event(struct tka_ctx *c, const struct tka_ev *e);
int tka_gap_causes_end(struct tka_ctx *c);
void tka_gap_causes_free(struct tka_gc_state *s);
int tka_op_gpu_time_begin(struct tka_ctx *c);
int tka_op_gpu_time_event(struct tka_ctx *c, const struct tka_ev *e);
int tka_op_gpu_time_end(struct tka_ctx *c);
void tka_op_gpu_time_free(struct tka_og_state *s);

/* A host op or annotation on a host thread, as the pass collected it (op_gpu_time.c). */
struct tka_host_op {
	int64_t ts, end, id;
	uint32_t track, name_id;
};

/*
 * tka_host_ops() - the host ops (kind host_op) on the host threads (tracks of no device), *@n
 * of them at *@ops, in thread (track id), start, longer first, then id order; valid once
 * tka_op_gpu_time() ran (TK_EINTERNAL before). The op performance model reads them here rather
 * than from the store again. tka_host_ops_release() - its last user done with them, they and
 * the instances (tka_op_gpu_instance()) are freed (a job's store: about 14 MiB per rank of 1 M
 * events fewer for the analyses after it); tka_process_device() still answers.
 */
int tka_host_ops(struct tka_ctx *c, const struct tka_host_op **ops, size_t *n);
void tka_host_ops_release(struct tka_ctx *c);

/* One host op or annotation (a host interval) with the device work it launched. */
struct tka_og_inst {
	int64_t event_id;		 /* events.id of the host op or annotation */
	int64_t direct_ops, direct_ns;	 /* launched with it as the innermost interval */
	int64_t subtree_ops, subtree_ns; /* launched while it was open on its thread */
};

/* The figures of host interval @event_id once tka_op_gpu_time() ran (later analyses use
 * them: the perf model); NULL for an event that is none or launched from no host thread. */
const struct tka_og_inst *tka_op_gpu_instance(const struct tka_ctx *c, int64_t event_id);

/* The one device the threads of @process launched device work onto (once tka_op_gpu_time()
 * ran); TK_NONE when it launched onto none or onto several. */
int64_t tka_process_device(const struct tka_ctx *c, int64_t process);

/* tka_op_gpu_keep() - a part of a job done: keep its pairs for tka_process_device() at the
 * end (c->split). */
int tka_op_gpu_keep(struct tka_ctx *c);

/* step_windows.c: the pass hands it every annotation; the timeline's end loads the steps with
 * their device intervals (and frees the marks). */
struct tka_timeline;
int tka_step_marks_event(struct tka_ctx *c, const struct tka_ev *e);
void tka_step_marks_free(struct tka_step_marks *m);
int tka_steps_load(struct tka_ctx *c, struct tka_timeline *tl);

/*
 * TKA_COMPILE_NAME() - SQL that is true when the text column @s is a name the source writes
 * for compilation (docs/metrics.md, "Compile events"): PyTorch's torch.compile phases
 * ("<phase> (dynamo_timed)"), JAX's backend_compile, TensorFlow's XlaCompile, and the XLA
 * compilers' C++ entry points ("...Compiler::...", "...::Compile"). Never a substring: a Python
 * frame of torch/compiler/__init__.py: is_compiling is no compile event.
 */
#define TKA_COMPILE_NAME(s)                                                     \
	"(" s " LIKE '% (dynamo_timed)' OR " s " GLOB 'backend_compile*' OR " s \
	" GLOB 'XlaCompile*' OR " s " GLOB '*Compiler::*' OR " s " GLOB '*::Compile')"

/* Event kinds that can be compile events: host ops, annotations, framework ops, other. */
#define TKA_COMPILE_KINDS "(1, 4, 10, 14)"

/* Record a failure message (printf-style) and return @status. */
int tka_fail(struct tka_ctx *c, int status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* The status of the connection's last SQLite error: TK_EFORMAT when the store's content caused
 * it (a damaged file, values that overflow SQL arithmetic), else TK_EINTERNAL. */
int tka_sql_status(struct tka_ctx *c);

/* Run SQL (one or more statements); on error the message names @what. */
int tka_exec(struct tka_ctx *c, const char *what, const char *sql);

/* Column @i of @st as an int64, TK_NONE when NULL. */
int64_t tka_col_or_none(sqlite3_stmt *st, int i);

/* Prepare one statement; on error the message names the SQL. */
int tka_prepare(struct tka_ctx *c, const char *sql, sqlite3_stmt **st);

/*
 * tka_enclosing_ops() - for each time ts[k], the events.id of the innermost host op on a host
 * thread of @process containing it (docs/metrics.md, "enclosing"), written over ts[k]; TK_NONE
 * when none (always, when @process is TK_NONE). enclosing.c.
 */
int tka_enclosing_ops(struct tka_ctx *c, int64_t process, int64_t *ts, size_t n);

/* tka_sort_i64() - sort v[0..n) ascending (qsort's order); @tmp: room for n values, or NULL
 * (then qsort). sort.c. */
void tka_sort_i64(int64_t *v, size_t n, int64_t *tmp);

/* ---- categories of device work (category_rules.c; docs/metrics.md, "Categories") ---- */

/* The categories, in the order of docs/metrics.md; tka_category_name() gives the stored name. */
enum tka_category {
	TKA_CAT_GEMM,	   /* "gemm": matrix multiplications (cuBLAS, CUTLASS, Tensile, XLA dot) */
	TKA_CAT_CONV,	   /* "conv": convolutions, implicit-GEMM ones included */
	TKA_CAT_ATTENTION, /* "attention": SDPA, flash, memory-efficient, fused MHA kernels */
	TKA_CAT_NORM,	   /* "norm": layer, batch, group, instance and RMS normalization */
	TKA_CAT_ELEMENTWISE, /* "elementwise": pointwise, indexing, layout and data movement kernels */
	TKA_CAT_REDUCTION, /* "reduction": reductions, softmax, scans, pooling, losses */
	TKA_CAT_COMM,	   /* "comm": collectives and point-to-point communication */
	TKA_CAT_MEMCPY,	   /* "memcpy": memory copies (runtime copies, DMA, XLA async copies) */
	TKA_CAT_MEMSET,	   /* "memset": memory sets (runtime sets, fill ops on the host) */
	TKA_CAT_OTHER,	   /* "other": no rule matched */
	TKA_NCAT
};

/** tka_category_name() - the stored name of category @cat ("other" when out of range). */
const char *tka_category_name(int cat);

/*
 * tka_device_op_category() - the category (enum tka_category) of a device operation of event
 * kind @kind (TK_EV_*) named @name, with the XLA op category @xla_category and the HLO op
 * @hlo_op it carries (op_details; NULL when none). tka_category_of_device_op(): its name.
 */
int tka_device_op_category(int kind, const char *name, const char *xla_category,
			   const char *hlo_op);
const char *tka_category_of_device_op(int kind, const char *name, const char *xla_category,
				      const char *hlo_op);

/*
 * The two steps tka_device_op_category() takes after the kind, for callers that cache them per
 * string: tka_device_name_rule() - the category the rules give a device op's name or HLO op
 * (communication, kernel and op rules); tka_xla_category_rule() - the one an XLA op category
 * gives. -1 when no rule matches (or @s is NULL or empty).
 */
int tka_device_name_rule(const char *s);
int tka_xla_category_rule(const char *s);

/*
 * tka_host_op_category() - the category of a host op (PyTorch aten op, autograd node, c10d
 * collective, ...) named @name by what the op does (NULL: other). tka_category_of_host_op():
 * its name.
 */
int tka_host_op_category(const char *name);
const char *tka_category_of_host_op(const char *name);
/* ---- device peaks (peaks.c, its table in peaks_table.c; docs/peaks.md) ---- */

/* A row of the built-in table: dense peaks of one device model. */
struct tka_peak_model {
	const char *model;	       /* the row's name as docs/peaks.md shows it */
	double tflops[TK_DTYPE_COUNT]; /* TFLOP/s (int8: TOPS) by enum tk_dtype; 0 = none */
	double tbps;		       /* peak memory bandwidth, TB/s (10^12 bytes/s) */
	int units;		       /* SMs / CUs of the whole device; 0 when not stated */
};

/* A matching rule: a device matches when its name matches @glob and every stated constraint
 * holds (a constraint on a figure the device does not state fails, except the vendor). */
struct tka_peak_rule {
	const char *glob; /* fnmatch glob on the name, case-insensitive; "" = the device has none */
	const char *vendor; /* devices.vendor must not differ from it (NULL: any) */
	const char *cc;	    /* devices.compute_capability equals it (NULL: any) */
	int units;	    /* devices.sm_count equals it (0: any) */
	int clock_mhz;	    /* devices.clock_hz / 1e6 rounded equals it (0: any) */
	double mem_min_gib,
	    mem_max_gib;   /* devices.memory_bytes in GiB, > min and <= max (0: any) */
	const char *model; /* the tka_peak_models row it picks */
	const char *note;  /* what the match assumes (NULL: the name says it all) */
};

/* Both end with an entry whose first member is NULL. */
extern const struct tka_peak_model tka_peak_models[];
extern const struct tka_peak_rule tka_peak_rules[];

/* What a device's identification gives the matcher (a devices row). */
struct tka_peak_device {
	const char *name, *vendor, *cc;	       /* NULL when unknown */
	int64_t units, clock_hz, memory_bytes; /* TK_NONE when unknown */
};

/* tka_peak_match() - the first rule of tka_peak_rules @d matches, NULL when none does. */
const struct tka_peak_rule *tka_peak_match(const struct tka_peak_device *d);

/* tka_peak_model_find() - the tka_peak_models row named @model, NULL when none is. */
const struct tka_peak_model *tka_peak_model_find(const char *model);

/* The resolved peaks of one device (analysis_device_peaks). */
struct tka_device_peak {
	double flops[TK_DTYPE_COUNT]; /* FLOP/s by dtype, 0 when unknown */
	int64_t bandwidth_bps;	      /* 0 when unknown */
	char bandwidth_source[8];     /* 'user', 'trace', 'table' or "" */
};

/*
 * tka_device_peak() - the peaks analysis_device_peaks holds for @device_id (tka_peaks has run:
 * it runs before the other analyses); everything 0 for a device without peaks.
 */
int tka_device_peak(struct tka_ctx *c, int64_t device_id, struct tka_device_peak *out);

/*
 * The analyses, in the order tk_analyze runs them (later ones may read earlier ones' tables).
 * Each fills its own analysis_* table(s), which tk_analyze created empty from
 * schemas/analysis.sql, and returns a TK_ status.
 */
int tka_peaks(struct tka_ctx *c);	/* peaks.c:        analysis_device_peaks (first) */
int tka_device_time(struct tka_ctx *c); /* device_time.c:  analysis_device_time */
int tka_gaps(struct tka_ctx *c);	/* gaps.c:         analysis_gaps, analysis_gap_summary */
int tka_steps(struct tka_ctx *c);	/* steps.c:        analysis_steps */
int tka_step_ops(struct tka_ctx *c);	/* step_ops.c:     analysis_step_ops */
int tka_comm(struct tka_ctx *c);	/* comm.c:         analysis_comm */
/* balance.c: analysis_balance_ranks, analysis_balance, analysis_balance_slowest (load balance
 * across ranks; reads only analysis tables, so it runs on job summary stores too) */
int tka_balance(struct tka_ctx *c);
/* summary.c: on a job summary, the windows of the timeline from the copied per-rank tables. */
int tka_summary_windows(struct tka_ctx *c);
int tka_op_profile(struct tka_ctx *c);	/* op_profile.c:   analysis_op_profile */
int tka_op_gpu_time(struct tka_ctx *c); /* op_gpu_time.c:  analysis_op_gpu_time */
int tka_categories(struct tka_ctx *c);	/* categories.c:   analysis_categories */
int tka_op_perf(struct tka_ctx *c);  /* op_perf.c:      analysis_op_perf, _summary, _unmodelled */
int tka_roofline(struct tka_ctx *c); /* roofline.c:     analysis_roofline */
int tka_kernel_stats(struct tka_ctx *c); /* kernel_stats.c: analysis_kernel_stats */
int tka_memory(struct tka_ctx *c);	 /* memory.c:       analysis_memory */
int tka_kpi(struct tka_ctx *c);		 /* kpi.c:          analysis_kpi */
int tka_launch_stats(struct tka_ctx *c); /* launch_stats.c: analysis_launch_stats */
int tka_queue_length(struct tka_ctx *c); /* queue_length.c: analysis_queue_length, _timeline */
int tka_findings(struct tka_ctx *c);	 /* findings.c:     analysis_findings */
/* findings.c: on a job summary, the cross-rank rules again over the job's tables */
int tka_findings_cross_rank(struct tka_ctx *c);

/*
 * tka_op_perf_bandwidth() - for the memory bandwidth KPI of device @device_id: the modelled
 * bytes (*@bytes) and the device time of the modelled ops (*@ns) once tka_op_perf() ran: its
 * hlo_op summary row, plus the host_op rows of the processes that launched onto it and onto
 * no other device (tka_process_device(): needs tka_op_gpu_time() to have run). Both -1 when
 * nothing modelled ran on the device.
 * op_perf.c; docs/metrics.md, "Op performance model".
 */
int tka_op_perf_bandwidth(struct tka_ctx *c, int64_t device_id, int64_t *bytes, int64_t *ns);

#endif

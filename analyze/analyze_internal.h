/* Internal interface of the analyses: the shared context and one entry point per analysis file. */
#ifndef TK_ANALYZE_INTERNAL_H
#define TK_ANALYZE_INTERNAL_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>
#include <tracekit/analyze.h>
#include <tracekit/error.h>

/* What every analysis gets: the store opened read-write inside one open transaction. */
struct tka_ctx {
	sqlite3 *db;
	const struct tk_analyze_options *opt;
	char *err; /* message buffer of errlen bytes */
	size_t errlen;
	struct tka_pass *pass;	    /* the shared pass over the events (event_pass.c) */
	struct tka_timeline *tl;    /* per-device timeline (intervals.h), from the pass */
	struct tka_tl_builder *tlb; /* timeline.c: the timeline while the pass builds it */
	struct tka_op_state *ops;   /* op_profile.c: self-time sweeps fed by the pass */
	struct tka_ks_state *ks;    /* kernel_stats.c: kernel groups fed by the pass */
	struct tka_kpi_state *kpi;  /* kpi.c: compile intervals, bytes accessed, from the pass */
	struct tka_step_marks *marks; /* step_windows.c: device-side step annotations, from the pass */
	struct tka_gc_state *gc;    /* gap_causes.c: host-side synchronizations, from the pass */
	struct tka_og_state *og;    /* op_gpu_time.c: launches and host intervals, from the pass */
};

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
	int done;		  /* every event has been read */
};

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

/* tka_pass_free() - free the pass and whatever its users still hold (NULL states are fine). */
void tka_pass_free(struct tka_ctx *c);

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

/* One host op or annotation (a host interval) with the device work it launched. */
struct tka_og_inst {
	int64_t event_id;		 /* events.id of the host op or annotation */
	int64_t direct_ops, direct_ns;	 /* launched with it as the innermost interval */
	int64_t subtree_ops, subtree_ns; /* launched while it was open on its thread */
};

/* The figures of host interval @event_id once tka_op_gpu_time() ran (later analyses use
 * them: the perf model); NULL for an event that is none or launched from no host thread. */
const struct tka_og_inst *tka_op_gpu_instance(const struct tka_ctx *c, int64_t event_id);

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
#define TKA_COMPILE_NAME(s)                                                                \
	"(" s " LIKE '% (dynamo_timed)' OR " s " GLOB 'backend_compile*' OR " s           \
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

/*
 * The analyses, in the order tk_analyze runs them (later ones may read earlier ones' tables).
 * Each replaces its own analysis_* table(s) and returns a TK_ status.
 */
int tka_device_time(struct tka_ctx *c);	 /* device_time.c:  analysis_device_time */
int tka_gaps(struct tka_ctx *c);	 /* gaps.c:         analysis_gaps, analysis_gap_summary */
int tka_steps(struct tka_ctx *c);	 /* steps.c:        analysis_steps */
int tka_step_ops(struct tka_ctx *c);	 /* step_ops.c:     analysis_step_ops */
int tka_comm(struct tka_ctx *c);	 /* comm.c:         analysis_comm */
int tka_op_profile(struct tka_ctx *c);	 /* op_profile.c:   analysis_op_profile */
int tka_op_gpu_time(struct tka_ctx *c);	 /* op_gpu_time.c:  analysis_op_gpu_time */
int tka_op_perf(struct tka_ctx *c);	 /* op_perf.c:      analysis_op_perf, _summary, _unmodelled */
int tka_kernel_stats(struct tka_ctx *c); /* kernel_stats.c: analysis_kernel_stats */
int tka_memory(struct tka_ctx *c);	 /* memory.c:       analysis_memory */
int tka_kpi(struct tka_ctx *c);		 /* kpi.c:          analysis_kpi */
int tka_findings(struct tka_ctx *c);	 /* findings.c:     analysis_findings */

/*
 * tka_op_perf_bandwidth() - for the memory bandwidth KPI of device @device_id: the modelled
 * bytes (*@bytes) and the device time of the modelled ops (*@ns) once tka_op_perf() ran: its
 * hlo_op summary row, plus the host_op row of the process that drove it (devices.process_id)
 * when that process drives no other device. Both -1 when nothing modelled ran on the device.
 * op_perf.c; docs/metrics.md, "Op performance model".
 */
int tka_op_perf_bandwidth(struct tka_ctx *c, int64_t device_id, int64_t *bytes, int64_t *ns);

#endif

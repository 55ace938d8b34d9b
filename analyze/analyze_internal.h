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
	struct tka_timeline *tl; /* per-device timeline (intervals.h), built on first use */
};

/* Free the timeline (intervals.c); tk_analyze calls it when the analyses are done. */
void tka_timeline_free(struct tka_timeline *tl);

/* Record a failure message (printf-style) and return @status. */
int tka_fail(struct tka_ctx *c, int status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Run SQL (one or more statements); on error the message names @what. */
int tka_exec(struct tka_ctx *c, const char *what, const char *sql);

/* Prepare one statement; on error the message names the SQL. */
int tka_prepare(struct tka_ctx *c, const char *sql, sqlite3_stmt **st);

/*
 * The analyses, in the order tk_analyze runs them (later ones may read earlier ones' tables).
 * Each replaces its own analysis_* table(s) and returns a TK_ status.
 */
int tka_device_time(struct tka_ctx *c);	 /* device_time.c:  analysis_device_time */
int tka_gaps(struct tka_ctx *c);	 /* gaps.c:         analysis_gaps, analysis_gap_summary */
int tka_steps(struct tka_ctx *c);	 /* steps.c:        analysis_steps */
int tka_comm(struct tka_ctx *c);	 /* comm.c:         analysis_comm */
int tka_op_profile(struct tka_ctx *c);	 /* op_profile.c:   analysis_op_profile */
int tka_kernel_stats(struct tka_ctx *c); /* kernel_stats.c: analysis_kernel_stats */
int tka_memory(struct tka_ctx *c);	 /* memory.c:       analysis_memory */
int tka_kpi(struct tka_ctx *c);		 /* kpi.c:          analysis_kpi */
int tka_findings(struct tka_ctx *c);	 /* findings.c:     analysis_findings */

#endif

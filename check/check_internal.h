/*
 * Internal interface of the regression gate (`tracekit baseline`, `tracekit check`): the summary
 * of one or more runs (a baseline, or the input being checked; baseline.c builds it from analysed
 * stores, baseline_json.c writes and reads it), the gates (gates.c parses them), the statistics
 * (stats.c) and the comparison (compare.c) whose result the writers print (check_out.c).
 * docs/baseline.md documents the baseline file, docs/check.md the gates and the rules. The types
 * that report/ reads too (summary, gates, result) are in check_result.h, check's interface.
 */
#ifndef TK_CHECK_INTERNAL_H
#define TK_CHECK_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "check_result.h"

#define TKC_BASELINE_VERSION 1 /* "version" of the baseline JSON this tracekit writes and reads */

void tkc_summary_free(struct tkc_summary *s); /* frees the members; NULL-safe */
void tkc_series_free(struct tkc_series *s);   /* frees the members; NULL-safe */

/* Kernels and ops keep per-step samples from this share of the device-op time up, at most
 * TKC_SAMPLE_MAX of them (the largest); the others are listed with their calls and time. */
#define TKC_SAMPLE_SHARE 0.001
#define TKC_SAMPLE_MAX 500

/* The series of metric @key in @s (appended empty, with @unit and @per_step, when new); NULL
 * when memory ran out. */
struct tkc_series *tkc_summary_metric(struct tkc_summary *s, const char *key, const char *unit,
				      int per_step);

/* Append sample @x of run @run to @m (runs in order); TK_OK or TK_ENOMEM. */
int tkc_series_add(struct tkc_series *m, size_t run, double x);

/* Make run @run of @m exist (runs up to it without samples are added empty); TK_OK or
 * TK_ENOMEM. */
int tkc_series_reach(struct tkc_series *m, size_t run);

/* 1 when @unit is one a metric may have: "ns", "bytes" or "%". */
int tkc_known_unit(const char *unit);

/*
 * Building a summary from analysed stores (baseline.c): one store per run, in order. A store
 * analysed by an older tracekit is refused (TK_EVERSION: analyse it again); runs whose device
 * models differ, or of which some have steps and some none, are refused by finish (TK_EINVAL).
 */
struct tkc_builder;
/* @sample_share: items from this share of device-op time up keep per-step samples (at most
 * TKC_SAMPLE_MAX of them; the input of a check samples more than a baseline keeps). */
int tkc_builder_new(double sample_share, size_t sample_max, struct tkc_builder **out);
int tkc_builder_add_store(struct tkc_builder *b, const char *path, const char *label, char *err,
			  size_t errlen);
int tkc_builder_finish(struct tkc_builder *b, struct tkc_summary *out, char *err, size_t errlen);
void tkc_builder_free(struct tkc_builder *b);

/*
 * tkc_baseline_write() - @s as baseline JSON (docs/baseline.md) to @out; items below
 * TKC_SAMPLE_SHARE (or beyond the TKC_SAMPLE_MAX largest) are written without samples.
 * TK_OK, TK_EIO, TK_ENOMEM.
 */
int tkc_baseline_write(FILE *out, const struct tkc_summary *s);

/*
 * tkc_baseline_read() - read a baseline file into @s (zeroed first; freed on failure).
 * TK_EFORMAT (message: file, line, column, key path), TK_EVERSION (another version), TK_EIO,
 * TK_ENOMEM.
 */
int tkc_baseline_read(const char *path, struct tkc_summary *s, char *err, size_t errlen);

/* ---- gates ---- */

/*
 * tkc_gate_parse() - parse one gate. @kind REL: "METRIC:+N%" / "METRIC:-Npt" / "METRIC:+VALUE"
 * (VALUE with a unit: ns, us, µs, ms, s, B, KB, KiB, MB, MiB, GB, GiB, TB, TiB) and
 * "kernel:GLOB:+N%" / "op:GLOB:+N%" (the glob may itself hold ':'; the amount is after the last
 * ':'). @kind MAX/MIN: "METRIC[.STAT]=VALUE" (VALUE as above, or a plain number in the
 * metric's unit; '%' allowed for kpi.*). Unknown metrics, statistics, units, a missing sign,
 * a non-finite or negative amount are errors naming the gate. Returns TK_OK or TK_EINVAL (the
 * message in @err).
 */
int tkc_gate_parse(const char *text, enum tkc_gate_kind kind, struct tkc_gate *out, char *err,
		   size_t errlen);

/*
 * tkc_gates_add() - parse @text as tkc_gate_parse() and append it to @g. TK_OK, TK_EINVAL,
 * TK_ENOMEM.
 */
int tkc_gates_add(struct tkc_gates *g, const char *text, enum tkc_gate_kind kind, char *err,
		  size_t errlen);

/*
 * tkc_gates_file() - append the gates of a gates file (JSON or TOML, told by content:
 * docs/check.md). Errors name the file and the line (and column) where it broke. Also reads the
 * file's options into *@allow_hw (allow_different_hardware, unchanged when absent).
 */
int tkc_gates_file(const char *path, struct tkc_gates *g, int *allow_hw, char *err, size_t errlen);

/* tkc_gates_defaults() - append the documented default gates (docs/check.md). */
int tkc_gates_defaults(struct tkc_gates *g, char *err, size_t errlen);

void tkc_gates_free(struct tkc_gates *g); /* frees the members; NULL-safe */

/*
 * tkc_value_parse() - "150ms", "70GiB", "80", "80%", "1.5e3us" into the base unit (ns, bytes, or
 * the number as is), with *@unit_out set to "ns", "bytes", "%" or "" (a bare number). TK_OK or
 * TK_EINVAL.
 */
int tkc_value_parse(const char *text, double *out, const char **unit_out);

/* ---- statistics (stats.c) ---- */

/* Median of @n values (copied and sorted; @v is left as it is); NaN when n = 0. */
double tkc_median(const double *v, size_t n);

/*
 * tkc_mann_whitney() - one-sided Mann-Whitney U test that the values @y tend to be greater than
 * @x. Exact (no ties, n_x * n_y <= 10^4... see stats.c) or the normal approximation with the tie
 * and continuity corrections. Returns the p-value in [0, 1]; 1 when either side is empty.
 */
double tkc_mann_whitney(const double *x, size_t nx, const double *y, size_t ny);

/* The smallest one-sided p-value any outcome can reach with these sample sizes: 1 / C(nx+ny, nx). */
double tkc_min_p(size_t nx, size_t ny);

/* ---- the comparison (compare.c) ---- */

#define TKC_ALPHA 0.01		/* one-sided significance level of the per-step test */
#define TKC_MIN_OVERLAP 0.5	/* comparable workloads share at least this much kernel time */
#define TKC_GATE_SHARE 0.01	/* default kernel/op gates cover items from this share up */
#define TKC_MIN_NS 10000.0	/* smallest change of a step-level time that counts: 10 us */
#define TKC_MIN_ITEM_NS 2000.0	/* ... of one kernel's or op's time per step: 2 us */
#define TKC_MIN_BYTES 1048576.0 /* ... of a memory peak: 1 MiB */
#define TKC_MIN_PT 0.5		/* ... of a '%' KPI: half a point */

/*
 * tkc_compare() - evaluate @gates on the input summary @cur against @base (NULL: only absolute
 * gates; relative ones are an error). Not comparable (r->comparable = 0) as docs/check.md says:
 * no device work in the input, steps on one side only, different device models or counts
 * (unless @allow_hw: then noted in r->hardware), kernel-set overlap under TKC_MIN_OVERLAP
 * (unless @allow_hw). TK_OK (whatever the verdict), TK_EINVAL (a relative gate without a
 * baseline, message in @err), TK_ENOMEM.
 */
int tkc_compare(const struct tkc_summary *base, const struct tkc_summary *cur,
		const struct tkc_gates *gates, int allow_hw, struct tkc_result *r, char *err,
		size_t errlen);
void tkc_result_free(struct tkc_result *r);

/* A statistic of a series' pooled samples: "mean", "median" (NULL), "p90" (nearest rank),
 * "min", "max"; NaN when it has none. */
double tkc_stat(const struct tkc_series *s, const char *stat);

/* The summary's metric @key, or NULL. */
const struct tkc_series *tkc_summary_find(const struct tkc_summary *s, const char *key);

#endif

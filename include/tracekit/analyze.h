/* Analyses: computed from a store and written back into it as analysis_* tables. */
#ifndef TRACEKIT_ANALYZE_H
#define TRACEKIT_ANALYZE_H

#include <stddef.h>
#include <stdint.h>
#include <tracekit/error.h>

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default)

/*
 * The shape of the analysis_* tables this tracekit writes, kept in meta 'analysis_version' by
 * tk_analyze(); bumped whenever an analysis table gains, loses or changes a column, so that a
 * report can tell an analysis by an older tracekit and run the analysis again (docs/store.md).
 */
#define TK_ANALYSIS_VERSION 7

/* Which window each device's figures are computed over (docs/metrics.md, "Windows"). */
enum tk_window {
	TK_WINDOW_AUTO = 0,   /* steps when the device's process has steps, else device */
	TK_WINDOW_DEVICE,     /* first device event's start to last device event's end */
	TK_WINDOW_STEPS,      /* union of the step intervals (devices without steps: device) */
	TK_WINDOW_HOST_STEPS, /* as STEPS, with host steps kept at their host intervals */
};

/* The data types a device peak is given for (docs/peaks.md): dense FLOP/s (int8: OP/s). */
enum tk_dtype {
	TK_DTYPE_FP64,
	TK_DTYPE_FP32,
	TK_DTYPE_TF32,
	TK_DTYPE_BF16,
	TK_DTYPE_FP16,
	TK_DTYPE_FP8,
	TK_DTYPE_INT8,
	TK_DTYPE_COUNT
};

struct tk_analyze_options {
	enum tk_window window;
	int64_t small_kernel_ns; /* small-kernel threshold, default 100000 (100 µs) */
	/* Peak overrides for every device of the store (docs/peaks.md, "Overrides"): they win
	 * over the device file, the trace and the built-in table. 0 = none. */
	double peak_flops[TK_DTYPE_COUNT]; /* dense FLOP/s per dtype */
	double peak_bandwidth_bps;	   /* bytes per second */
	const char *device_file;	   /* a device file (JSON, docs/peaks.md), or NULL */
	/* 1: compare the members of collectives on clocks aligned by each host's estimated offset
	 * (analysis_clock_offsets; docs/metrics.md). The events are not rewritten. 0 = as stored. */
	int align_clocks;
	/* threads for the analyses: 1 (the default) runs everything on the calling thread; N > 1
	 * runs the memory analysis beside the pass and the per-device and per-thread work on N
	 * threads; 0: as many as the process may use cores. The tables are the same. */
	int jobs;
	/* 1: read and analyse every rank of a job at once. 0 (the default): a store of several
	 * sources (a job's ranks) is analysed one source at a time when its ids allow it
	 * (docs/scale.md), so memory is that of the largest rank. The tables are the same. */
	int one_pass;
};

/** tk_analyze_options_init() - window AUTO, small kernels under 100 µs, no peak overrides,
 * jobs 1. */
void tk_analyze_options_init(struct tk_analyze_options *o);

/** tk_dtype_name() - "fp64", "fp32", "tf32", "bf16", "fp16", "fp8", "int8"; NULL when out of
 * range. */
const char *tk_dtype_name(enum tk_dtype t);

/**
 * tk_peak_value_parse() - a positive peak in the units of its flag: a number with an optional
 * SI prefix, k M G T P E (powers of 1000): "989T" = 989e12, "1.979P", "3.35e12".
 * @return TK_OK, or TK_EINVAL (@out untouched).
 */
int tk_peak_value_parse(const char *text, double *out);

/**
 * tk_analyze_peak_flops_option() - apply one --peak-flops argument to @o: "DTYPE=VALUE"
 * (DTYPE one of tk_dtype_name's) or a plain VALUE for bf16. A later one for the same dtype
 * replaces an earlier one. @return TK_OK, or TK_EINVAL with what was expected in @err (may be
 * NULL).
 */
int tk_analyze_peak_flops_option(struct tk_analyze_options *o, const char *arg, tk_error *err);

/**
 * tk_analyze() - run every analysis on the store at @path and replace its analysis_* tables, in
 * one transaction: on failure the store is left as it was.
 * @return TK_OK; TK_EIO / TK_EFORMAT / TK_EVERSION when the store cannot be opened for writing or
 *         is not a (supported) tracekit store; the causes are in @err (may be NULL): the store's
 *         or SQLite's message under what failed ("idle gaps analysis of 'a.db' failed").
 */
int tk_analyze(const char *path, const struct tk_analyze_options *o, tk_error *err);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif

#endif

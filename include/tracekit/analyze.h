/* Analyses: computed from a store and written back into it as analysis_* tables. */
#ifndef TRACEKIT_ANALYZE_H
#define TRACEKIT_ANALYZE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The shape of the analysis_* tables this tracekit writes, kept in meta 'analysis_version' by
 * tk_analyze(); bumped whenever an analysis table gains, loses or changes a column, so that a
 * report can tell an analysis by an older tracekit and run the analysis again (docs/store.md).
 */
#define TK_ANALYSIS_VERSION 4

/* Which window each device's figures are computed over (docs/metrics.md, "Windows"). */
enum tk_window {
	TK_WINDOW_AUTO = 0, /* steps when the device's process has steps, else device */
	TK_WINDOW_DEVICE,   /* first device event's start to last device event's end */
	TK_WINDOW_STEPS,    /* union of the step intervals (devices without steps: device) */
	TK_WINDOW_HOST_STEPS, /* as STEPS, with host steps kept at their host intervals */
};

struct tk_analyze_options {
	enum tk_window window;
	int64_t small_kernel_ns; /* small-kernel threshold, default 100000 (100 µs) */
};

/** tk_analyze_options_init() - window AUTO, small kernels under 100 µs. */
void tk_analyze_options_init(struct tk_analyze_options *o);

/**
 * tk_analyze() - run every analysis on the store at @path and replace its analysis_* tables, in
 * one transaction: on failure the store is left as it was.
 * @return TK_OK; TK_EIO / TK_EFORMAT / TK_EVERSION when the store cannot be opened for writing or
 *         is not a (supported) tracekit store; the message is copied into @err (@errlen bytes).
 */
int tk_analyze(const char *path, const struct tk_analyze_options *o, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif

#endif

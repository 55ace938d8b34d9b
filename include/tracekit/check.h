/*
 * The regression gate: a baseline of one or more runs of a benchmark (docs/baseline.md) and the
 * check of new runs against it with relative gates ("step_time:+5%"), absolute bounds
 * (--max step_time.mean=150ms) and the statistics that keep run-to-run noise from failing a build
 * (docs/check.md). What `tracekit baseline` and `tracekit check` run.
 */
#ifndef TRACEKIT_CHECK_H
#define TRACEKIT_CHECK_H

#include <stdio.h>
#include <tracekit/error.h>

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default)

/* A check: its baseline, its input runs, its gates, and after tk_check_run() its result. */
typedef struct tk_check tk_check;

/** tk_check_new() - an empty check. *@out is set even on failure; free it. TK_OK, TK_ENOMEM. */
int tk_check_new(tk_check **out);

/**
 * tk_check_error() - the error (status and causes) of the last failure on @c, empty when none;
 * NULL for NULL. Borrowed: valid until tk_check_free().
 */
tk_error *tk_check_error(tk_check *c);

/** tk_check_errmsg() - tk_error_message() of tk_check_error(): "" when none ("out of memory"
 * for NULL, the result of a failed tk_check_new()). */
const char *tk_check_errmsg(const tk_check *c);

/* Kinds of gate (docs/check.md, "Gates"). */
enum tk_gate_kind {
	TK_GATE_RELATIVE, /* "METRIC:+5%", "kernel:GLOB:+10%", "kpi.gpu_utilization:-3pt" */
	TK_GATE_MAX,	  /* "METRIC[.STAT]=VALUE": the input's statistic must not exceed VALUE */
	TK_GATE_MIN,	  /* "METRIC[.STAT]=VALUE": ... must not fall below VALUE */
};

/** tk_check_gate() - add a gate; TK_EINVAL naming it when it does not parse. */
int tk_check_gate(tk_check *c, const char *text, enum tk_gate_kind kind);

/** tk_check_gates_file() - add the gates of a gates file (JSON or TOML; docs/check.md). */
int tk_check_gates_file(tk_check *c, const char *path);

/** tk_check_allow_different_hardware() - compare runs on other devices (1) or refuse (0). */
void tk_check_allow_different_hardware(tk_check *c, int allow);

/**
 * tk_check_baseline_file() - use the baseline file @path (written by tk_check_write_baseline).
 * TK_EFORMAT naming the place it broke, TK_EVERSION, TK_EIO.
 */
int tk_check_baseline_file(tk_check *c, const char *path);

/**
 * tk_check_add_baseline_run() / tk_check_add_run() - add the analysed store @store as one run
 * of the baseline / of the input (@label: the file the user gave, for messages). Stores
 * analysed by an older tracekit are refused (TK_EVERSION: analyse them again).
 */
int tk_check_add_baseline_run(tk_check *c, const char *store, const char *label);
int tk_check_add_run(tk_check *c, const char *store, const char *label);

/**
 * tk_check_run() - compare the input runs with the baseline under the gates (the documented
 * defaults when none was added). TK_OK whatever the verdict; TK_EINVAL when the runs of one
 * side are not runs of one benchmark, or a relative gate has no baseline.
 */
int tk_check_run(tk_check *c);

/* Verdicts of tk_check_verdict(): the exit codes of `tracekit check`. */
enum tk_check_verdict {
	TK_CHECK_PASS = 0,	     /* no gate failed */
	TK_CHECK_REGRESSION = 1,     /* a gate failed */
	TK_CHECK_NOT_COMPARABLE = 2, /* the input cannot be compared with the baseline */
};

/** tk_check_verdict() - the verdict after tk_check_run(). */
enum tk_check_verdict tk_check_verdict(const tk_check *c);

/* Output formats of tk_check_write(). */
enum tk_check_format {
	TK_CHECK_TEXT,	 /* opens with the verdict, then one line per gate */
	TK_CHECK_JSON,	 /* stable keys (docs/check.md, "JSON") */
	TK_CHECK_MD,	 /* for a CI job summary or a merge-request note */
	TK_CHECK_JUNIT,	 /* JUnit XML: one test case per gate outcome */
	TK_CHECK_GITHUB, /* GitHub Actions annotations (::error::, ::warning::), one per line */
};

/** tk_check_format_parse() - "text", "json" or "md" into @out; TK_EINVAL otherwise. */
int tk_check_format_parse(const char *name, enum tk_check_format *out);

/** tk_check_write() - the result in @f to @out; TK_OK, TK_EIO, TK_ENOMEM. */
int tk_check_write(const tk_check *c, FILE *out, enum tk_check_format f);

/**
 * tk_check_write_baseline() - the input runs as a baseline file (docs/baseline.md) to @out:
 * what `tracekit baseline` writes, and `check --update-baseline`. TK_OK, TK_EINVAL (runs that
 * are not one benchmark), TK_EIO, TK_ENOMEM.
 */
int tk_check_write_baseline(tk_check *c, FILE *out);

/** tk_check_free() - free @c (NULL is fine). */
void tk_check_free(tk_check *c);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif

#endif

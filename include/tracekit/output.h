/*
 * Output paths: the check every writing command runs before it writes (never over one of its
 * inputs, never over a file of another kind), and a file stream written under a temporary name
 * beside its target and renamed into place when complete (what `report -o` and `diff -o` use;
 * stores and exports are written the same way by their writers).
 */
#ifndef TRACEKIT_OUTPUT_H
#define TRACEKIT_OUTPUT_H

#include <stddef.h>
#include <stdio.h>
#include <tracekit/error.h>

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default)

/* What a command writes: decides which existing file it may replace (docs/store.md). */
enum tk_output_kind {
	TK_OUTPUT_STORE,	 /* a tracekit store (import, synth, record, ...) */
	TK_OUTPUT_XPLANE_LOGDIR, /* a directory: empty, or a TensorBoard logdir */
	TK_OUTPUT_PERFETTO,	 /* a Perfetto protobuf trace as tracekit writes it */
	TK_OUTPUT_CHROME_JSON,	 /* Chrome JSON (plain or gzip) as tracekit writes it */
	TK_OUTPUT_REPORT_TEXT,	 /* a report or diff, one kind per format */
	TK_OUTPUT_REPORT_HTML,
	TK_OUTPUT_REPORT_JSON,
	TK_OUTPUT_REPORT_MD,
	TK_OUTPUT_BASELINE,   /* a baseline file (tracekit baseline, check --update-baseline) */
	TK_OUTPUT_CHECK_TEXT, /* a check's result, one kind per format */
	TK_OUTPUT_CHECK_JSON,
	TK_OUTPUT_CHECK_MD,
	TK_OUTPUT_CHECK_JUNIT,
};

/**
 * tk_output_check() - may a command that writes @kind write @output, given its inputs?
 * Refused (TK_EINVAL, with a message naming both paths in @err, may be NULL) when @output is the same file
 * (device and inode, through symbolic and hard links) as one of the @ninputs paths of @inputs,
 * and when it exists but is not what @kind is: a store command replaces only a tracekit store,
 * an export only a file (or logdir) tracekit exported in that format, a report only a tracekit
 * report or diff in the same format. An empty regular file may always be replaced; anything
 * that is not a regular file (a directory, a device, a FIFO) never, except an XPlane logdir.
 * Inputs that do not exist are skipped (the command reports them). Returns TK_OK, TK_EINVAL,
 * TK_EIO when the output cannot be inspected, or TK_ENOMEM.
 */
int tk_output_check(const char *output, const char *const *inputs, size_t ninputs,
		    enum tk_output_kind kind, tk_error *err);

/* A file written under "<path>.tmp-tk<pid>-XXXXXX" and renamed onto <path> by tk_output_commit. */
typedef struct tk_output tk_output;

/**
 * tk_output_open() - start writing @path: removes stale temporaries of dead processes beside it
 * and creates a new temporary file there. *@out is set even on failure (for the message); close
 * it with tk_output_close. Returns TK_OK, TK_EIO or TK_ENOMEM.
 */
int tk_output_open(const char *path, tk_output **out);

/** tk_output_stream() - the stream to write to (NULL when open failed). */
FILE *tk_output_stream(tk_output *o);

/** tk_output_temp_path() - the temporary file's path ("" when there is none, e.g. after commit). */
const char *tk_output_temp_path(const tk_output *o);

/**
 * tk_output_commit() - flush and fsync the temporary file and rename it onto the target (a
 * symbolic link at the target is replaced, never followed). On failure the temporary file is
 * removed and the target is left as it was. Returns TK_OK or TK_EIO.
 */
int tk_output_commit(tk_output *o);

/**
 * tk_output_error() - the error (status and causes) of the last failure on @o, empty when none;
 * NULL for NULL. Borrowed: valid until tk_output_close().
 */
tk_error *tk_output_error(tk_output *o);

/** tk_output_errmsg() - tk_error_message() of tk_output_error(): "" when none. */
const char *tk_output_errmsg(const tk_output *o);

/** tk_output_close() - remove the temporary file unless committed, and free @o (NULL-safe). */
void tk_output_close(tk_output *o);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif

#endif

/*
 * tracekit status codes and errors: every library call returns a status; the details are a
 * tk_error (a chain of causes) on the handle or in the caller's tk_error (see below).
 */
#ifndef TRACEKIT_ERROR_H
#define TRACEKIT_ERROR_H

#include <stdarg.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default)

/*
 * One list, expanded twice: into the enum and into tk_strerror()'s table.
 * TK_OK is 0; errors are negative. tk_exit_code() maps a status to the CLI's exit code.
 */
#define TK_ERRORS(X)                                    \
	X(TK_OK, 0, "success")                          \
	X(TK_EINVAL, -1, "invalid argument")            \
	X(TK_EIO, -2, "input/output error")             \
	X(TK_EFORMAT, -3, "malformed input")            \
	X(TK_EVERSION, -4, "unsupported store version") \
	X(TK_ENOTFOUND, -5, "not found")                \
	X(TK_ENOMEM, -6, "out of memory")               \
	X(TK_EINTERNAL, -7, "internal error")

enum tk_status {
#define TK_ERR_ENUM(name, value, text) name = value,
	TK_ERRORS(TK_ERR_ENUM)
#undef TK_ERR_ENUM
};

/** tk_strerror() - a static English phrase for a status code (never NULL). */
const char *tk_strerror(int status);

/**
 * tk_exit_code() - the CLI exit code for a status: 0 for TK_OK, 2 for bad usage or input
 * (TK_EINVAL, TK_EIO, TK_EFORMAT, TK_EVERSION, TK_ENOTFOUND), 3 for the rest.
 */
int tk_exit_code(int status);

/*
 * ---- errors with their causes ----
 *
 * The one error convention of the public API: a call returns its status (above), and the why is
 * a tk_error: a status and a chain of causes, each a message and the module that added it.
 *  - A call on a handle puts its error on that handle: tk_writer_error(), tk_store_error(),
 *    tk_exporter_error(), tk_check_error(), tk_output_error(); the importers, which append to a
 *    writer, put theirs on that writer (the rule: the message is on the handle you passed).
 *    Each handle's *_errmsg() is tk_error_message() of its error.
 *  - A call without a handle takes a `tk_error *err` as its last argument (NULL: no details);
 *    on failure it fills @err (after clearing it), on success it leaves @err empty.
 * A caller that wants to say what it was doing pushes a cause of its own onto the error instead
 * of copying the message aside:
 *
 *	tk_error *err = tk_error_new();
 *	if ((rc = tk_analyze(path, NULL, err)) != TK_OK) {
 *		tk_error_push(err, rc, "analysing the run of %s", name);
 *		fprintf(stderr, "%s\n", tk_error_message(err));
 *	}
 *	tk_error_free(err);
 *
 * Causes are numbered OUTERMOST FIRST: cause 0 is the last one pushed (what failed, as the
 * caller sees it), the last cause is the root cause (e.g. SQLite's own message).
 * tk_error_message() joins the causes in that order with ": ", which is how every tracekit
 * message reads ("cannot write store 'a.db' (commit): disk I/O error").
 * tk_error_status() is the status of the outermost cause that gave one (a cause pushed with
 * TK_OK keeps the status of the causes below it), so an outer layer may reclassify a failure.
 * An error belongs to one thread at a time; it never prints.
 */
typedef struct tk_error tk_error;

/** tk_error_new() - an empty error (status TK_OK, no cause); NULL when out of memory. */
tk_error *tk_error_new(void);

/** tk_error_free() - free @e (NULL is fine). */
void tk_error_free(tk_error *e);

/** tk_error_clear() - drop every cause of @e and reset its status to TK_OK (NULL is fine). */
void tk_error_clear(tk_error *e);

/**
 * tk_error_push() - add an outer cause to @e: what failed, inside what; @status < 0 becomes the
 * error's status, TK_OK keeps the status it had. @fmt is printf-like.
 * @return the error's status after the push (@status when @e is NULL). Out of memory: the
 *         cause is dropped and the status becomes TK_ENOMEM.
 */
int tk_error_push(tk_error *e, int status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/**
 * tk_error_push_from() - tk_error_push() naming the @module that adds the cause ("store",
 * "sqlite", "analyze", "cli", ...; NULL or "" for none).
 */
int tk_error_push_from(tk_error *e, const char *module, int status, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/** tk_error_vpush_from() - tk_error_push_from() with a va_list (for wrappers). */
int tk_error_vpush_from(tk_error *e, const char *module, int status, const char *fmt, va_list ap)
    __attribute__((format(printf, 4, 0)));

/**
 * tk_error_copy() - make @dst a copy of @src (its status and every cause), so that a caller can
 * keep a handle's error beyond the handle and add its own context above it. @src NULL or empty
 * clears @dst. @return the status of @dst after the copy.
 */
int tk_error_copy(tk_error *dst, const tk_error *src);

/** tk_error_status() - the error's status (see above); TK_OK when none or @e is NULL. */
int tk_error_status(const tk_error *e);

/** tk_error_cause_count() - the number of causes of @e (0 for NULL). */
size_t tk_error_cause_count(const tk_error *e);

/**
 * tk_error_cause() - the message of cause @i (0 = outermost); NULL when @i is out of range.
 * Borrowed: valid until @e changes.
 */
const char *tk_error_cause(const tk_error *e, size_t i);

/** tk_error_cause_module() - the module that added cause @i ("" when none named); NULL out of
 * range. */
const char *tk_error_cause_module(const tk_error *e, size_t i);

/** tk_error_cause_status() - the status given with cause @i (TK_OK when none); TK_OK out of
 * range. */
int tk_error_cause_status(const tk_error *e, size_t i);

/**
 * tk_error_message() - the causes joined outermost first with ": " (as "%s: %s" would); "" when
 * there is none or @e is NULL. Borrowed: valid until @e changes.
 */
const char *tk_error_message(const tk_error *e);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif

#endif

/* tracekit status codes: every library call returns one of these; details are on the handle. */
#ifndef TRACEKIT_ERROR_H
#define TRACEKIT_ERROR_H

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

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif

#endif

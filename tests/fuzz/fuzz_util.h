/*
 * Shared helpers of the fuzz targets (tests/fuzz/fuzz_*.c): a per-process scratch directory on
 * tmpfs, writing the input to a file there, removing trees, and checks that abort (so that the
 * fuzzer, or the replay driver under ctest, reports a broken promise as a crash).
 */
#ifndef TK_FUZZ_UTIL_H
#define TK_FUZZ_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <tracekit/error.h>

/* The libFuzzer entry points every target defines (LLVMFuzzerInitialize is optional). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

/* fz_dir() - this process's scratch directory (/dev/shm/tkfuzz-PID, else under $TMPDIR or
 * /tmp), created on first use and removed at exit. Aborts when it cannot be made. */
const char *fz_dir(void);

/* fz_path() - @name inside fz_dir(), in one of 4 rotating static buffers. */
const char *fz_path(const char *name);

/* fz_write() - write @n bytes to @path (created or truncated); aborts on failure.
 * fz_try_write() returns -1 instead (a path the input made impossible). */
void fz_write(const char *path, const void *data, size_t n);
int fz_try_write(const char *path, const void *data, size_t n);

/* fz_rmtree() - remove @path and everything under it (missing is fine). */
void fz_rmtree(const char *path);

/* fz_check() - abort with "fuzz check failed: @what (@detail)" on stderr unless @ok. */
void fz_check(int ok, const char *what, const char *detail);

/*
 * fz_status() - the promise every reader makes: TK_OK, or a known error status with a message
 * whose exit code is 2 (bad input), never 3 (internal error) or an unknown status.
 */
void fz_status(int rc, const char *msg, const char *what);

/* fz_err() - the process's tk_error for the library calls that take one (each clears it);
 * fz_errmsg() - its message. */
tk_error *fz_err(void);
const char *fz_errmsg(void);

/*
 * fz_sqlite_check() - abort unless every SQLite handle opened during the execution that just
 * ended (@what) was closed again: in the libFuzzer builds SQLite's memory is off ASan's books
 * (tests/fuzz/fuzz_sqlite.c), so this is the leak check for it. A no-op in the replay builds.
 */
void fz_sqlite_check(const char *what);

/* A reader of the fuzz input: bytes taken from the front, zeros once it runs out. */
struct fz_in {
	const uint8_t *p;
	size_t n;
};
uint8_t fz_u8(struct fz_in *in);
uint64_t fz_u64(struct fz_in *in, int bytes); /* little-endian, @bytes 1..8 */
/* fz_str() - up to @max bytes (length from the input) as a NUL-terminated string in @buf
 * (@max + 1 bytes); embedded NULs end it early. */
const char *fz_str(struct fz_in *in, char *buf, size_t max);

#endif

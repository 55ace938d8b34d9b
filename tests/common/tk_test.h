/* Shared helpers for the Criterion tests: temporary directories, running the CLI, store digests. */
#ifndef TK_TEST_H
#define TK_TEST_H

#include <stddef.h>
#include <stdint.h>
#include <tracekit/error.h>

/* A fresh temporary directory (removed with tkt_rmdir); the path is malloc'd. */
char *tkt_mkdtemp(void);
/* Remove a directory tree (best effort). */
void tkt_rmdir(const char *dir);
/* The per-test temporary directory of a test file: `dir`, made by setup() and removed by
 * teardown() (`TestSuite(name, .init = setup, .fini = teardown)`); the file includes criterion.h
 * and stdlib.h. */
#define TKT_TMPDIR_FIXTURE                               \
	static char *dir;                                \
	static void setup(void)                          \
	{                                                \
		cr_assert_not_null(dir = tkt_mkdtemp()); \
	}                                                \
	static void teardown(void)                       \
	{                                                \
		tkt_rmdir(dir);                          \
		free(dir);                               \
		dir = NULL;                              \
	}                                                \
	struct tkt_tmpdir_fixture_unused
/* Join dir and name into a malloc'd path. */
char *tkt_path(const char *dir, const char *name);
/* 1 when path exists. */
int tkt_exists(const char *path);
/* Number of entries in dir, not counting . and .. */
int tkt_count_entries(const char *dir);
/* The whole file @path, NUL-terminated, malloc'd (its length in *@len when not NULL); NULL when
 * it cannot be read. */
char *tkt_slurp(const char *path, size_t *len);
/* The figures file tests/data/@dir/@name (an independent script's output), malloc'd, without its final
 * newline (tkt_rows() joins rows without one); aborts the test when it is missing. */
char *tkt_figures(const char *dir, const char *name);
/* Write @n bytes of @data to @path (created or truncated); aborts the test on failure. */
void tkt_spit(const char *path, const void *data, size_t n);

/* The process's tk_error for library calls that take one (each call clears it first); never NULL.
 * One for the whole process: a test that calls the library from several threads gives each its
 * own tk_error_new(). */
tk_error *tkt_err(void);
/* tk_error_message(tkt_err()). */
const char *tkt_errmsg(void);

/* Result of running the tracekit binary. */
struct tkt_run {
	int code;  /* exit status, or -1 when it did not exit normally */
	char *out; /* captured stdout, NUL-terminated */
	char *err; /* captured stderr, NUL-terminated */
};

/* Run build/tracekit with the NULL-terminated argument list (argv[0] is added). */
struct tkt_run tkt_tracekit(const char *arg, ...);
/* Same with an argv array of n arguments. */
struct tkt_run tkt_tracekitv(int n, const char *const *args);
void tkt_run_free(struct tkt_run *r);
/* Assert that @r exited 0 (with its output in the message), then free it. */
void tkt_ok(struct tkt_run r);
/*
 * Start the tracekit binary with the NULL-terminated arguments @args, its output silenced, and
 * wait until an entry whose name starts with @prefix appears in @dir (polled, given up after 60 s
 * as a safety net: the test asserts on *@seen, not on time). Returns the child's pid (the caller
 * signals and reaps it).
 */
int tkt_spawn_until(const char *dir, const char *prefix, int *seen, const char *const *args);

/* A digest (FNV-1a 64) of every row of every table of a store, in table-name and rowid order. */
uint64_t tkt_store_digest(const char *path);

/* Run one integer-valued query on a store; aborts the test on error. */
int64_t tkt_query_int(const char *path, const char *sql);
/* The same for a real-valued query; NAN when the value is NULL. */
double tkt_query_double(const char *path, const char *sql);

/*
 * Every row of @sql on the store at @path as "c1|c2|...", rows joined by "\n", NULL as "NULL";
 * malloc'd. Aborts the test when the query cannot run.
 */
char *tkt_rows(const char *path, const char *sql);

/*
 * Real traces, by their path relative to the trace corpus (e.g. "kineto/.../nccl_data.json.gz").
 * The full corpus is TK_CORPUS_DIR (../shared/corpus unless configured with -DTK_CORPUS_DIR);
 * a subset is vendored, byte for byte under the same relative paths, in tests/data/real
 * (its README.md says which and where from). Tests that need a file that is not vendored belong
 * to the Criterion suite full_corpus: ctest runs that suite as its own entry
 * <module>/<test>:corpus, reported as skipped when the corpus is absent (tests/CMakeLists.txt).
 */

/* The path of @rel (malloc'd): in the full corpus when there, else the vendored copy, else NULL. */
char *tkt_corpus(const char *rel);
/*
 * tkt_corpus(@rel) for a test that needs it: when neither has it, a test of the full_corpus suite
 * is skipped with a message naming the file, any other test fails (it may use vendored files only).
 */
char *tkt_real(const char *rel);
/* 1 when @rel is vendored (tests/data/real/<rel> exists). */
int tkt_vendored(const char *rel);
/*
 * For a list of real traces checked by @check(vendored), which checks those of its files that
 * are vendored (1) or not (0) and returns how many: from a test outside the full_corpus suite,
 * check the vendored ones (failing when there is none); from a full_corpus test, the others
 * (skipped when every @what is vendored).
 */
void tkt_check_split(int (*check)(int vendored), const char *what);
/* The directory of the full corpus, and that of the vendored subset (tests/data/real). */
const char *tkt_corpus_dir(void);
const char *tkt_real_dir(void);

#endif

/*
 * Write a small store with one record of every kind and known values (see tk_fixture.c):
 * 1 source, 1 process (pid 4242, rank 0), 1 device (id 0), tracks 1 = host thread (tid 7),
 * 2 = stream 7, 3 = counter; events: 1 host op, 2 runtime API (corr 100), 3 kernel (corr 100,
 * name TKT_ODD_NAME), 4 memcpy H2D 1 MiB, 5 memset 256 B, 6 step #3, 7 annotation, 8 xla op with
 * op details; 1 flow 2->3; 2 counter samples; 2 memory events (alloc+free); 3 args on event 3.
 * Times are TKT_T0 plus small offsets. Returns the tk status of finish.
 */
#define TKT_T0 1767225600000000000LL
#define TKT_ODD_NAME "void k<float, \"q\">(a < b && c > d, 'x'), Ünïcødé ✓"
int tkt_write_fixture(const char *path);

/*
 * Shared helpers of the analysis tests (tests/analyze/test_*.c): a per-test directory and store
 * path, small stores written with the public writer API (events, kernels, launched device ops),
 * running the analyses, comparing query rows, importing real traces with the tracekit binary.
 */
#ifndef TK_ANALYZE_STORE_H
#define TK_ANALYZE_STORE_H

#include <stdint.h>
#include <tracekit/tracekit.h>

#include "tk_test.h"

/* Assert that a call on the writer named `w` in scope returned TK_OK (with its message). */
#define TKT_OK(call) cr_assert_eq((call), TK_OK, "%s: %s", #call, tk_writer_errmsg(w))

/* tkt_launched_op(): @launch_ns value for an op no API call launched. */
#define TKT_NO_LAUNCH INT64_MIN

/*
 * A fresh temporary directory (tkt_dir) and a store path in it (tkt_db), for suites declared
 * with .init = tkt_analyze_setup, .fini = tkt_analyze_teardown.
 */
extern char *tkt_dir, *tkt_db;

/* A copy of the file @from in tkt_dir named @name: its path (malloc'd). */
char *tkt_copy(const char *from, const char *name);
/* Run @sql on the store at @path, read-write (to damage or change it on purpose). */
void tkt_store_exec(const char *path, const char *sql);

void tkt_analyze_setup(void);
void tkt_analyze_teardown(void);

/* Run every analysis on @path: window @w, small-kernel threshold @small_ns (< 0: the default). */
void tkt_analyze(const char *path, enum tk_window w, int64_t small_ns);

/* Expect every row of @sql (tkt_rows() format: "a|b|NULL", rows joined by "\n") to be @want. */
void tkt_expect_rows(const char *path, const char *sql, const char *want);

/* Add an interval event (absolute ns times, no category id); its event id. */
int64_t tkt_event(tk_writer *w, int64_t track, enum tk_event_kind kind, const char *name,
		  const char *category, int64_t ts_ns, int64_t dur_ns, int64_t correlation_id);

/* tkt_event() at TKT_T0 + @ts (the fixture base time of tk_test.h), no correlation id. */
int64_t tkt_ev(tk_writer *w, int64_t track, enum tk_event_kind kind, const char *name,
	       const char *category, int64_t ts, int64_t dur_ns);

/* Add a kernel with grid 1x1x1, block 32x1x1 and nothing else known; its event id. */
int64_t tkt_kernel(tk_writer *w, int64_t track, const char *name, int64_t ts_ns, int64_t dur_ns,
		   int64_t correlation_id);

/*
 * A device op [ts_ns, ts_ns + dur_ns) on @track: a kernel (as tkt_kernel), a memcpy (1 MiB H2D,
 * pinned to device) or a memset (256 B of device memory). Unless @launch_ns is TKT_NO_LAUNCH, a
 * 2 us cudaLaunchKernel on host thread @thr at @launch_ns launches it (launch flow, same
 * correlation id). Correlation ids count 1, 2, ... per test process, one per call. Its event id.
 */
int64_t tkt_launched_op(tk_writer *w, int64_t thr, int64_t track, enum tk_event_kind kind,
			const char *name, int64_t ts_ns, int64_t dur_ns, int64_t launch_ns);

/* Finish the writer, asserting success. */
void tkt_finish(tk_writer *w);

/* Run @sql (one or more statements) on the store at @path; asserts it succeeds. */
void tkt_exec_sql(const char *path, const char *sql);

/*
 * A new store at @path with one process (pid 100 "train" on host "h"), its GPU 0 (device ids in
 * *@dev), its main thread (*@thr) and the GPU's stream 7 (*@strm); the writer in *@out.
 */
void tkt_one_gpu(const char *path, tk_writer **out, int64_t *proc, int64_t *dev, int64_t *thr,
		 int64_t *strm);

/*
 * Import the real trace @rel (tkt_real(): the corpus copy, else the vendored one; when neither
 * has it, a full_corpus test is skipped, any other fails) into @db with the tracekit binary,
 * asserting exit 0. Returns 1.
 */
int tkt_import_corpus(const char *rel, const char *db);

#endif

/*
 * Shared helpers of the analysis tests (tk_analyze_store.h): per-test directory, small stores
 * written with the public writer API, running the analyses, comparing rows, corpus imports.
 */
#include "tk_analyze_store.h"

#include <criterion/criterion.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>

char *tkt_dir, *tkt_db;

void tkt_analyze_setup(void)
{
	tkt_dir = tkt_mkdtemp();
	tkt_db = tkt_path(tkt_dir, "t.db");
}

void tkt_analyze_teardown(void)
{
	tkt_rmdir(tkt_dir);
	free(tkt_dir);
	free(tkt_db);
	tkt_dir = tkt_db = NULL;
}

void tkt_analyze(const char *path, enum tk_window w, int64_t small_ns)
{
	struct tk_analyze_options o;
	tk_analyze_options_init(&o);
	o.window = w;
	if (small_ns >= 0)
		o.small_kernel_ns = small_ns;
	int rc = tk_analyze(path, &o, tkt_err());
	cr_assert_eq(rc, TK_OK, "tk_analyze: %d %s", rc, tkt_errmsg());
}

void tkt_expect_rows(const char *path, const char *sql, const char *want)
{
	char *got = tkt_rows(path, sql);
	cr_expect_str_eq(got, want, "%s\n--- got ---\n%s\n--- want ---\n%s", sql, got, want);
	free(got);
}

int64_t tkt_event(tk_writer *w, int64_t track, enum tk_event_kind kind, const char *name,
		  const char *category, int64_t ts_ns, int64_t dur_ns, int64_t correlation_id)
{
	struct tk_event e = {track, kind, name, 0, category, 0, ts_ns, dur_ns, correlation_id};
	int64_t id = 0;
	TKT_OK(tk_writer_add_event(w, &e, &id));
	return id;
}

int64_t tkt_ev(tk_writer *w, int64_t track, enum tk_event_kind kind, const char *name,
	       const char *category, int64_t ts, int64_t dur_ns)
{
	return tkt_event(w, track, kind, name, category, TKT_T0 + ts, dur_ns, TK_NONE);
}

int64_t tkt_kernel(tk_writer *w, int64_t track, const char *name, int64_t ts_ns, int64_t dur_ns,
		   int64_t correlation_id)
{
	struct tk_event e = {track, TK_EV_KERNEL, name, 0, NULL, 0, ts_ns, dur_ns, correlation_id};
	struct tk_kernel_info k = {NULL,    {1, 1, 1}, {32, 1, 1}, TK_NONE, TK_NONE,
				   TK_NONE, -1,	       -1,	   -1,	    0};
	int64_t id = 0;
	TKT_OK(tk_writer_add_kernel(w, &e, &k, &id));
	return id;
}

int64_t tkt_launched_op(tk_writer *w, int64_t thr, int64_t track, enum tk_event_kind kind,
			const char *name, int64_t ts_ns, int64_t dur_ns, int64_t launch_ns)
{
	static int64_t corr = 1;
	int64_t api = 0, id = 0;
	if (launch_ns != TKT_NO_LAUNCH)
		api = tkt_event(w, thr, TK_EV_RUNTIME_API, "cudaLaunchKernel", NULL, launch_ns,
				2000, corr);
	struct tk_event e = {track, kind, name, 0, NULL, 0, ts_ns, dur_ns, corr};
	if (kind == TK_EV_KERNEL) {
		id = tkt_kernel(w, track, name, ts_ns, dur_ns, corr);
	} else if (kind == TK_EV_MEMCPY) {
		struct tk_copy_info ci = {1 << 20,	 TK_COPY_H2D, TK_MEM_PINNED,
					  TK_MEM_DEVICE, TK_NONE,     TK_NONE};
		TKT_OK(tk_writer_add_copy(w, &e, &ci, &id));
	} else {
		struct tk_set_info si = {256, 0, TK_MEM_DEVICE};
		TKT_OK(tk_writer_add_set(w, &e, &si, &id));
	}
	corr++;
	if (launch_ns != TKT_NO_LAUNCH)
		TKT_OK(tk_writer_add_flow(w, "launch", api, id));
	return id;
}

void tkt_finish(tk_writer *w)
{
	cr_assert_eq(tk_writer_finish(w, tkt_err()), TK_OK, "%s", tkt_errmsg());
}

void tkt_exec_sql(const char *path, const char *sql)
{
	sqlite3 *db = NULL;
	char *msg = NULL;
	cr_assert_eq(sqlite3_open(path, &db), SQLITE_OK);
	int rc = sqlite3_exec(db, sql, NULL, NULL, &msg);
	cr_assert_eq(rc, SQLITE_OK, "%s: %s", sql, msg ? msg : "?");
	sqlite3_free(msg);
	sqlite3_close(db);
}

void tkt_one_gpu(const char *path, tk_writer **out, int64_t *proc, int64_t *dev, int64_t *thr,
		 int64_t *strm)
{
	tk_writer *w = NULL; /* the name TKT_OK reports on */
	cr_assert_eq(tk_writer_create(path, &w), TK_OK);
	*out = w;
	TKT_OK(tk_writer_add_source(w, "synth", NULL, "h", 0));
	struct tk_process_info p = {100, "train", "h", 0};
	TKT_OK(tk_writer_add_process(w, &p, proc));
	struct tk_device_info d = {0,  "gpu",	"GPU",	 "nvidia", "h",	    *proc,
				   0,  NULL,	TK_NONE, TK_NONE,  TK_NONE, TK_NONE,
				   -1, TK_NONE, TK_NONE, TK_NONE};
	TKT_OK(tk_writer_add_device(w, &d, dev));
	struct tk_track_info t = {TK_TRACK_THREAD, "main", *proc, TK_NONE, 1, TK_NONE, NULL};
	TKT_OK(tk_writer_add_track(w, &t, thr));
	struct tk_track_info s = {TK_TRACK_STREAM, "Stream 7", *proc, *dev, TK_NONE, 7, NULL};
	TKT_OK(tk_writer_add_track(w, &s, strm));
}

int tkt_import_corpus(const char *rel, const char *db)
{
	char *p = tkt_real(rel);
	struct tkt_run r = tkt_tracekit("import", p, "-o", db, NULL);
	cr_assert_eq(r.code, 0, "import %s: exit %d\n%s", p, r.code, r.err);
	tkt_run_free(&r);
	free(p);
	return 1;
}

char *tkt_copy(const char *from, const char *name)
{
	size_t n;
	char *data = tkt_slurp(from, &n), *to = tkt_path(tkt_dir, name);
	tkt_spit(to, data, n);
	free(data);
	return to;
}

void tkt_store_exec(const char *path, const char *sql)
{
	sqlite3 *db = NULL;
	cr_assert_eq(sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL), SQLITE_OK);
	cr_assert_eq(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK, "%s: %s", sql,
		     sqlite3_errmsg(db));
	sqlite3_close(db);
}

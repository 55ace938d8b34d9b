/*
 * The host annotation API end to end: examples/annotate_demo run under `tracekit record` (and
 * directly, with the TRACEKIT_* variables), then its store's scopes, nesting, steps, windows,
 * counters and allocations asserted; and in this process, a scope racing a window's end.
 */
#include <criterion/criterion.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <tracekit/annotate.h>
#include <tracekit/error.h>

#include "tk_test.h"

extern char **environ;

static char *dir, *db;

static void setup(void)
{
	dir = tkt_mkdtemp();
	db = tkt_path(dir, "a.db");
	unsetenv("TRACEKIT_CUPTI_LIBRARY");
}

static void teardown(void)
{
	tkt_rmdir(dir);
	free(dir);
	free(db);
}

TestSuite(annotate, .init = setup, .fini = teardown);

static void expect_rows(const char *sql, const char *want)
{
	char *got = tkt_rows(db, sql);
	cr_expect_str_eq(got, want, "%s\n--- got:\n%s\n--- want:\n%s", sql, got, want);
	free(got);
}

static void record(const char *steps, const char *a1, const char *a2, const char *a3,
		   const char *a4)
{
	const char *args[] = {"record",		"-o",	   db,	 a1, a2, a3, a4, "--",
			      TK_ANNOTATE_DEMO, "--steps", steps};
	const char *argv[16];
	int n = 0;
	for (size_t i = 0; i < sizeof(args) / sizeof(args[0]); i++)
		if (args[i])
			argv[n++] = args[i];
	struct tkt_run r = tkt_tracekitv(n, argv);
	cr_assert_eq(r.code, 0, "exit %d\nstdout: %s\nstderr: %s", r.code, r.out, r.err);
	cr_expect(strstr(r.err, "tracekit: wrote ") != NULL, "stderr: %s", r.err);
	cr_expect(strstr(r.out, "annotate_demo: ") != NULL, "stdout: %s", r.out);
	tkt_run_free(&r);
}

/* Run the demo directly, with @env ("K=V", NULL-terminated) added and @arg (a store, or NULL). */
static int run_demo(const char *const *env, const char *arg)
{
	for (const char *const *e = env; *e; e++)
		putenv((char *)*e);
	char *argv[] = {(char *)TK_ANNOTATE_DEMO, (char *)arg, NULL};
	pid_t pid;
	int status = -1;
	int rc = posix_spawn(&pid, TK_ANNOTATE_DEMO, NULL, NULL, argv, environ);
	for (const char *const *e = env; *e; e++) {
		char name[64];
		snprintf(name, sizeof(name), "%.*s", (int)strcspn(*e, "="), *e);
		unsetenv(name);
	}
	if (rc != 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

Test(annotate, scopes_nest_on_their_thread_track)
{
	record("5", NULL, NULL, NULL, NULL);
	expect_rows("SELECT name, category, count(*) FROM annotations GROUP BY name ORDER BY name",
		    "backward|scope|5\nforward|scope|5\nload_batch|function|5\nmatmul|scope|15\n"
		    "prefetch|scope|5\nstep_done|marker|5\ntrain_step|scope|5");
	/* one main thread track and one prefetch track, both of this process */
	expect_rows("SELECT count(DISTINCT track_id), count(DISTINCT tid), count(DISTINCT pid)"
		    " FROM annotations",
		    "2|2|1");
	expect_rows("SELECT count(*) FROM annotations WHERE name = 'prefetch' AND tid = (SELECT"
		    " tid FROM annotations WHERE name = 'train_step' LIMIT 1)",
		    "0");
	/* every child lies inside a parent of the expected name on the same track */
	static const char *const pairs[][2] = {{"forward", "train_step"},
					       {"backward", "train_step"},
					       {"load_batch", "train_step"},
					       {"step_done", "train_step"}};
	for (size_t i = 0; i < 4; i++) {
		char sql[512];
		snprintf(sql, sizeof(sql),
			 "SELECT count(*) FROM annotations c WHERE c.name = '%s' AND NOT EXISTS"
			 " (SELECT 1 FROM annotations p WHERE p.name = '%s' AND p.track_id ="
			 " c.track_id AND p.ts_ns <= c.ts_ns AND c.end_ns <= p.end_ns)",
			 pairs[i][0], pairs[i][1]);
		expect_rows(sql, "0");
	}
	expect_rows("SELECT count(*) FROM annotations c WHERE c.name = 'matmul' AND NOT EXISTS"
		    " (SELECT 1 FROM annotations p WHERE p.name IN ('forward', 'backward') AND"
		    " p.track_id = c.track_id AND p.ts_ns <= c.ts_ns AND c.end_ns <= p.end_ns)",
		    "0");
	/* matmul(n) spins n * 100 us */
	expect_rows("SELECT count(*) FROM annotations WHERE name = 'matmul' AND dur_ns < 100000",
		    "0");
	expect_rows("SELECT value FROM meta WHERE key = 'clock'", "unix_epoch");
}

Test(annotate, steps_counters_and_allocations)
{
	record("5", NULL, NULL, NULL, NULL);
	expect_rows("SELECT step_num, name FROM steps ORDER BY step_num",
		    "0|step 0\n1|step 1\n2|step 2\n3|step 3\n4|step 4");
	/* steps follow each other: step n ends where step n+1 starts */
	expect_rows("SELECT count(*) FROM steps a JOIN steps b ON b.step_num = a.step_num + 1"
		    " WHERE a.end_ns != b.ts_ns",
		    "0");
	/* each train_step lies in its step */
	expect_rows("SELECT count(*) FROM annotations c WHERE c.name = 'train_step' AND NOT EXISTS"
		    " (SELECT 1 FROM steps s WHERE s.ts_ns <= c.ts_ns AND c.end_ns <= s.end_ns)",
		    "0");
	expect_rows("SELECT s.str, t.kind, c.value FROM counters c JOIN tracks t ON t.id ="
		    " c.track_id JOIN strings s ON s.id = t.name_id ORDER BY c.ts_ns",
		    "loss|counter|1.0\nloss|counter|0.5\nloss|counter|0.333333333333333\n"
		    "loss|counter|0.25\nloss|counter|0.2");
	expect_rows(
	    "SELECT allocator, kind, count(*), sum(bytes), count(DISTINCT device_id),"
	    " mem_kind FROM memory_events GROUP BY allocator, kind ORDER BY allocator, kind",
	    "grad_pool|alloc|5|5242880|0|pageable\ngrad_pool|free|5|5242880|0|pageable\n"
	    "prefetch_pool|alloc|5|20480|0|pageable\nprefetch_pool|free|5|20480|0|pageable");
	expect_rows("SELECT count(*) FROM memory_events WHERE pid IS NULL OR address IS NULL", "0");
}

Test(annotate, a_step_window_keeps_only_its_steps_and_their_scopes)
{
	record("6", "--start-step", "2", "--steps", "2");
	expect_rows("SELECT step_num FROM steps ORDER BY step_num", "2\n3");
	expect_rows("SELECT value FROM meta WHERE key IN ('capture.start_step', 'capture.steps')"
		    " ORDER BY key",
		    "2\n2");
	expect_rows("SELECT name, count(*) FROM annotations WHERE name != 'prefetch'"
		    " GROUP BY name ORDER BY name",
		    "backward|2\nforward|2\nload_batch|2\nmatmul|6\nstep_done|2\ntrain_step|2");
	/* nothing starts before step 2 or after step 3 ended */
	expect_rows("SELECT count(*) FROM annotations WHERE ts_ns < (SELECT min(ts_ns) FROM steps)"
		    " OR ts_ns > (SELECT max(end_ns) FROM steps)",
		    "0");
	expect_rows("SELECT count(*) FROM annotations c WHERE c.name != 'prefetch' AND"
		    " c.end_ns > (SELECT max(end_ns) FROM steps)",
		    "0");
	expect_rows(
	    "SELECT group_concat(value, ',') FROM (SELECT value FROM counters ORDER BY ts_ns)",
	    "0.333333333333333,0.25");
}

Test(annotate, windows_from_the_environment_without_the_cli)
{
	const char *env[] = {"TRACEKIT_EVERY=3", "TRACEKIT_STEPS=1", "TRACEKIT_MAX_PROFILES=2",
			     NULL};
	int code = run_demo(env, db); /* the store named on the command line */
	cr_assert_eq(code, 0);
	expect_rows("SELECT step_num FROM steps ORDER BY step_num", "0\n3");
	expect_rows("SELECT count(*) FROM annotations WHERE name = 'train_step'", "2");
	expect_rows("SELECT format FROM sources", "tracekit");
}

Test(annotate, tracekit_output_alone_starts_a_session)
{
	char out[4096];
	snprintf(out, sizeof(out), "TRACEKIT_OUTPUT=%s", db);
	const char *env[] = {out, NULL};
	cr_assert_eq(run_demo(env, NULL), 0);
	expect_rows("SELECT count(*) FROM steps", "5");
	expect_rows("SELECT count(*) FROM annotations WHERE name = 'matmul'", "15");
}

Test(annotate, no_output_means_no_tracing)
{
	const char *env[] = {NULL};
	cr_assert_eq(run_demo(env, NULL), 0);
	cr_expect(!tkt_exists(db));
}

/*
 * A thread that read the tracing flag (tk_scope_begin's inline check) just before another
 * thread's tk_step() closed the window, and its clock just after, calls tk__scope_begin() once
 * the window is closed: that interleaving, replayed in order here, must not write a scope that
 * starts after the window. The one opened inside the window is written.
 */
Test(annotate, a_scope_that_starts_after_its_window_closed_is_not_written)
{
	struct tk_trace_options o;
	tk_trace_options_init(&o);
	o.start_step = 0;
	o.steps = 1;
	cr_assert_eq(tk_trace_begin(db, &o), TK_OK, "%s", tk_trace_errmsg());
	tk_step(0);
	cr_assert(tk_trace_active());
	struct tk_scope in = tk_scope_begin("inside");
	tk_scope_end(&in);
	tk_step(1); /* the window closes */
	struct tk_scope late = tk__scope_begin("late", 0);
	tk__scope_end(&late);
	cr_assert_eq(tk_trace_end(), TK_OK, "%s", tk_trace_errmsg());
	expect_rows("SELECT group_concat(name) FROM annotations", "inside");
	expect_rows("SELECT count(*) FROM steps", "1");
}

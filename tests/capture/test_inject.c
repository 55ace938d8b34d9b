/*
 * The CUPTI injection library end to end with no GPU: `tracekit record` runs a fake CUDA
 * program (tests/capture/fake/fake_app.c) that loads the injection as the driver does and emits
 * device activity through the fake libcupti; the stores are asserted (kernels, copies, flows,
 * steps, windows switching CUPTI on a step ahead and off after, a crash, dropped records, an
 * unusable libcupti). Also: with no GPU or no driver the program keeps running and its exit
 * code, with one clear message; examples/cuda_demo under `record` when nvcc built it (on a
 * machine with a GPU that run must record kernels and copies instead).
 */
#include <criterion/criterion.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tk_test.h"

static char *dir, *db;

static void setup(void)
{
	dir = tkt_mkdtemp();
	db = tkt_path(dir, "i.db");
}

static void teardown(void)
{
	tkt_rmdir(dir);
	free(dir);
	free(db);
}

TestSuite(inject, .init = setup, .fini = teardown);

__attribute__((unused)) static void expect_contains(const char *hay, const char *needle)
{
	cr_expect(strstr(hay, needle) != NULL, "expected '%s' in:\n%s", needle, hay);
}

Test(inject, cuda_program_under_record_keeps_running_and_its_exit_code)
{
#ifndef TK_CUDA_DEMO
	cr_skip_test("examples/cuda_demo was not built (no nvcc found)");
#else
	struct tkt_run r = tkt_tracekit("record", "-o", db, "--", TK_CUDA_DEMO, "2", NULL);
	void *drv = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
	if (drv && r.code == 0) { /* a GPU: the run must have been traced */
		dlclose(drv);
		cr_expect(tkt_exists(db), "stderr: %s", r.err);
		cr_expect_geq(tkt_query_int(db, "SELECT count(*) FROM kernels"), 2 * 22);
		cr_expect_geq(tkt_query_int(db, "SELECT count(*) FROM memcpys"), 2 * 2);
		cr_expect_geq(tkt_query_int(db, "SELECT count(*) FROM flows"), 2 * 22);
	} else {
		if (drv)
			dlclose(drv);
		cr_expect_eq(r.code, 3, "exit %d\nstdout: %s\nstderr: %s", r.code, r.out, r.err);
		expect_contains(r.err, "cuda_demo: ");
		if (!drv)
			expect_contains(r.err,
					"no CUDA driver (libcuda.so.1 cannot be loaded): the "
					"program ran untraced on the device side");
		expect_contains(r.err, "no store was written");
	}
	tkt_run_free(&r);
#endif
}

Test(inject, initialize_injection_without_a_device_says_so_and_returns)
{
#ifndef TK_CUPTI_LIB
	cr_skip_test("the CUPTI injection library was not built (CUPTI not found)");
#else
	int fds[2];
	cr_assert_eq(pipe(fds), 0);
	unsetenv("CUDA_HOME");
	unsetenv("CUDA_PATH");
#ifdef TK_REAL_CUPTI
	setenv("TRACEKIT_LIBCUPTI", TK_REAL_CUPTI, 1); /* a real libcupti, and no driver */
#else
	unsetenv("TRACEKIT_LIBCUPTI");
#endif
	fflush(NULL);
	pid_t pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) { /* no assertions in the child: it reports through its exit code */
		dup2(fds[1], 2);
		close(fds[0]);
		setenv("TRACEKIT_OUTPUT", db, 1);
		void *h = dlopen(TK_CUPTI_LIB, RTLD_NOW | RTLD_LOCAL);
		if (!h)
			_exit(10);
		int (*init)(void);
		*(void **)&init = dlsym(h, "InitializeInjection");
		if (!init || !dlsym(h, "InitializeInjectionNvtx2") ||
		    !dlsym(h, "tkcap_cupti_host_hooks"))
			_exit(11);
		if (init() != 1 || init() != 1) /* a second call is harmless */
			_exit(12);
		exit(42); /* the program's own exit code, through atexit */
	}
	close(fds[1]);
	char err[4096];
	size_t n = 0;
	ssize_t k;
	while (n < sizeof(err) - 1 && (k = read(fds[0], err + n, sizeof(err) - 1 - n)) > 0)
		n += (size_t)k;
	err[n] = 0;
	close(fds[0]);
	int status;
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert(WIFEXITED(status));
	void *drv = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
	if (drv) { /* a driver (and maybe a GPU): only the exit code is certain */
		dlclose(drv);
		cr_expect_eq(WEXITSTATUS(status), 42, "stderr: %s", err);
		return;
	}
	cr_expect_eq(WEXITSTATUS(status), 42, "stderr: %s", err);
#ifdef TK_REAL_CUPTI
	expect_contains(err,
			"tracekit: CUPTI activity tracing is unavailable (cuptiActivityEnable: ");
#else
	if (access("/usr/local/cuda/lib64/libcupti.so.13", R_OK) != 0)
		expect_contains(err, "tracekit: libcupti was not found (looked for libcupti.so.13");
#endif
	expect_contains(err, "the program runs untraced on the device side");
	int lines = 0; /* (LeakSanitizer may add notes about CUPTI's threads) */
	for (const char *p = err; (p = strstr(p, "tracekit:")); p++)
		lines++;
	cr_expect_eq(lines, 1, "one message: %s", err);
	cr_expect(!tkt_exists(db), "no store when nothing was traced");
#endif
}

/* ---- the whole path through the fake libcupti ---- */

#ifdef TK_FAKE_APP

static struct tkt_run record_fake(const char *a1, const char *a2, const char *a3, const char *a4,
				  const char *steps, const char *crash)
{
	setenv("TRACEKIT_LIBCUPTI", TK_FAKE_CUPTI, 1);
	setenv("FAKE_CUPTI_LIB", TK_FAKE_CUPTI, 1);
	setenv("FAKE_CUPTI_REPORT", "1", 1);
	const char *argv[16];
	int n = 0;
	argv[n++] = "record";
	argv[n++] = "-o";
	argv[n++] = db;
	const char *opts[] = {a1, a2, a3, a4};
	for (int i = 0; i < 4; i++)
		if (opts[i])
			argv[n++] = opts[i];
	argv[n++] = "--";
	argv[n++] = TK_FAKE_APP;
	argv[n++] = steps;
	if (crash)
		argv[n++] = crash;
	struct tkt_run r = tkt_tracekitv(n, argv);
	/* the traced program runs the injection library: sanitizer reports there count too */
	cr_expect(!strstr(r.err, "Sanitizer") && !strstr(r.err, "runtime error:"),
		  "sanitizer report in the traced program:\n%s", r.err);
	return r;
}

static void expect_rows(const char *sql, const char *want)
{
	char *got = tkt_rows(db, sql);
	cr_expect_str_eq(got, want, "%s\n--- got:\n%s\n--- want:\n%s", sql, got, want);
	free(got);
}

Test(inject, a_cuda_program_is_traced_end_to_end)
{
	struct tkt_run r = record_fake(NULL, NULL, NULL, NULL, "5", NULL);
	cr_assert_eq(r.code, 7, "the program's exit code\nstderr: %s", r.err);
	expect_contains(r.err, "tracekit: wrote ");
	expect_contains(r.err,
			": 15 kernels, 5 copies, 0 sets, 20 API calls, 5 annotations, 5 steps");
	expect_contains(r.err, "fake_cupti: emitted=41 suppressed=0 dropped=0");
	expect_rows("SELECT name, count(*), min(occupancy), min(dur_ns), min(stream_id),"
		    " min(registers), min(block_x) FROM kernels GROUP BY name ORDER BY name",
		    "elementwise_add|5|1.0|50000|7|16|1024\n"
		    "gemm(float const*, float const*, float*, int)|5|1.0|50000|7|32|256\n"
		    "softmax(float*, int)|5|0.25|50000|7|128|128");
	expect_rows("SELECT name, count(*), sum(bytes), copy_kind, src_kind, dst_kind FROM memcpys"
		    " GROUP BY name",
		    "Memcpy HtoD (Pinned -> Device)|5|5242880|H2D|pinned|device");
	expect_rows("SELECT name, count(*) FROM api_calls GROUP BY name ORDER BY name",
		    "cudaLaunchKernel|15\ncudaMemcpyAsync|5");
	/* every launch joins its device work, which starts after the call */
	expect_rows(
	    "SELECT count(*), sum(d.ts_ns > a.ts_ns + a.dur_ns),"
	    " sum(a.correlation_id = d.correlation_id) FROM flows f"
	    " JOIN events a ON a.id = f.src_event_id JOIN events d ON d.id = f.dst_event_id",
	    "20|20|20");
	/* the API calls and the program's scopes share its thread's track */
	expect_rows("SELECT count(DISTINCT track_id) FROM events WHERE kind IN (2, 4)", "1");
	expect_rows("SELECT count(*), min(name) FROM annotations", "5|train_step");
	expect_rows("SELECT count(*) FROM steps", "5");
	/* each step holds its 3 kernels */
	expect_rows("SELECT group_concat(n) FROM (SELECT count(k.id) n FROM steps s"
		    " LEFT JOIN kernels k ON k.ts_ns >= s.ts_ns AND k.ts_ns < s.ts_ns + s.dur_ns"
		    " GROUP BY s.id ORDER BY s.ts_ns)",
		    "3,3,3,3,3");
	expect_rows("SELECT s.str, sm_count, compute_capability FROM devices d"
		    " JOIN strings s ON s.id = d.name_id",
		    "Fake H100|132|9.0");
	char want[600];
	snprintf(want, sizeof(want), "%s|130001|0|0|41", TK_FAKE_CUPTI);
	expect_rows("SELECT (SELECT value FROM meta WHERE key = 'cupti.library'),"
		    " (SELECT value FROM meta WHERE key = 'cupti.api_version'),"
		    " (SELECT value FROM meta WHERE key = 'cupti.dropped_records'),"
		    " (SELECT value FROM meta WHERE key = 'cupti.outside_window'),"
		    " (SELECT value FROM meta WHERE key = 'cupti.records')",
		    want);
	tkt_run_free(&r);
}

Test(inject, a_step_window_switches_cupti_on_a_step_ahead_and_off_after)
{
	struct tkt_run r = record_fake("--start-step", "2", "--steps", "2", "6", NULL);
	cr_assert_eq(r.code, 7, "stderr: %s", r.err);
	/* steps 1..3 traced (1 is the warm-up step, decoded and dropped), 0, 4, 5 never reach a
	 * buffer: 3 x 8 records plus the device record */
	expect_contains(r.err,
			"fake_cupti: emitted=25 suppressed=24 dropped=0 enables=10 disables=8");
	expect_rows("SELECT count(*) FROM steps", "2");
	expect_rows("SELECT count(*) FROM kernels k JOIN steps s ON k.ts_ns >= s.ts_ns"
		    " AND k.ts_ns < s.ts_ns + s.dur_ns",
		    "6");
	expect_rows("SELECT count(*) FROM kernels", "6");
	/* exactly the records of steps 2 and 3: each copy and kernel with its own API call (the
	 * fake program's steps end after their device work, so none straddles a boundary) */
	expect_rows("SELECT (SELECT count(*) FROM memcpys), (SELECT count(*) FROM api_calls),"
		    " (SELECT count(*) FROM flows)",
		    "2|8|8");
	expect_rows("SELECT count(*) FROM memcpys m JOIN steps s ON m.ts_ns >= s.ts_ns"
		    " AND m.ts_ns + m.dur_ns <= s.ts_ns + s.dur_ns",
		    "2");
	expect_rows("SELECT key, value FROM meta WHERE key IN ('capture.cupti_switches',"
		    " 'cupti.outside_window') ORDER BY key",
		    "capture.cupti_switches|2\ncupti.outside_window|8");
	tkt_run_free(&r);
}

Test(inject, a_session_started_after_cuinit_switches_cupti_the_same)
{
	setenv("TRACEKIT_AUTOSTART", "0", 1);
	setenv("FAKE_APP_LATE_SESSION", "1", 1);
	struct tkt_run r = record_fake("--start-step", "2", "--steps", "2", "6", NULL);
	cr_assert_eq(r.code, 7, "stderr: %s", r.err);
	expect_contains(r.err,
			"fake_cupti: emitted=25 suppressed=24 dropped=0 enables=10 disables=8");
	expect_rows("SELECT (SELECT count(*) FROM kernels), (SELECT count(*) FROM steps),"
		    " (SELECT value FROM meta WHERE key = 'capture.cupti_switches'),"
		    " (SELECT count(*) FROM flows)",
		    "6|2|2|8");
	tkt_run_free(&r);
}

Test(inject, repeated_windows_switch_cupti_for_each_profile)
{
	struct tkt_run r =
	    record_fake("--start-step=1", "--steps=1", "--every=3", "--max-profiles=2", "9", NULL);
	cr_assert_eq(r.code, 7, "stderr: %s", r.err);
	/* profiles at steps 1 and 4; on at 0 and 3 (a step ahead), off at 2 and 5 */
	expect_rows("SELECT group_concat(s.str) FROM steps st JOIN events e ON e.id = st.id"
		    " JOIN strings s ON s.id = e.name_id",
		    "step 1,step 4");
	expect_rows("SELECT count(*), (SELECT count(*) FROM flows) FROM kernels", "6|8");
	expect_rows("SELECT value FROM meta WHERE key = 'capture.cupti_switches'", "4");
	expect_contains(r.err, "suppressed=40"); /* steps 2, 5, 6, 7, 8 */
	tkt_run_free(&r);
}

/*
 * Occupancy of an opted-in kernel (150 KB of dynamic shared memory, 128 threads, 32 registers)
 * on the fake H100: 153600 + 1024 reserved = 154624 bytes a block; under the assumed opt-in
 * limit (233472 - 1024 = 232448) one block fits: 4 warps / 64 = 0.0625. When the driver says
 * the opt-in limit is 102400, no block fits: 0.
 */
Test(inject, opt_in_shared_memory_limits_come_from_the_driver_when_it_answers)
{
	setenv("FAKE_APP_BIG_SMEM", "1", 1);
	struct tkt_run r = record_fake(NULL, NULL, NULL, NULL, "2", NULL);
	cr_assert_eq(r.code, 7, "stderr: %s", r.err);
	expect_rows("SELECT count(*), min(occupancy), max(occupancy) FROM kernels"
		    " WHERE name = 'attention'",
		    "2|0.0625|0.0625");
	expect_rows("SELECT value FROM meta WHERE key = 'capture.driver_smem_limits'", "0");
	tkt_run_free(&r);
	remove(db);
	setenv("FAKE_DRIVER_OPTIN", "102400", 1);
	setenv("FAKE_DRIVER_RESERVED", "1024", 1);
	r = record_fake(NULL, NULL, NULL, NULL, "2", NULL);
	cr_assert_eq(r.code, 7, "stderr: %s", r.err);
	expect_rows("SELECT count(*), min(occupancy), max(occupancy) FROM kernels"
		    " WHERE name = 'attention'",
		    "2|0.0|0.0");
	expect_rows("SELECT value FROM meta WHERE key = 'capture.driver_smem_limits'", "1");
	/* the others are as before */
	expect_rows("SELECT min(occupancy) FROM kernels WHERE name = 'softmax(float*, int)'",
		    "0.25");
	tkt_run_free(&r);
}

Test(inject, a_crash_still_leaves_a_store_with_what_was_traced)
{
	struct tkt_run r = record_fake(NULL, NULL, NULL, NULL, "5", "3");
	cr_assert_eq(r.code, 128 + 6, "killed by SIGABRT\nstderr: %s", r.err);
	cr_assert(tkt_exists(db), "stderr: %s", r.err);
	expect_rows("SELECT value FROM meta WHERE key = 'capture.ended_by'", "signal");
	expect_rows("SELECT count(*) FROM kernels", "9");
	expect_rows("SELECT count(*) FROM flows", "12");
	tkt_run_free(&r);
}

Test(inject, dropped_records_are_counted_and_reported)
{
	setenv("FAKE_CUPTI_DROP", "17", 1);
	struct tkt_run r = record_fake(NULL, NULL, NULL, NULL, "2", NULL);
	cr_assert_eq(r.code, 7, "stderr: %s", r.err);
	expect_rows("SELECT value FROM meta WHERE key = 'cupti.dropped_records'", "17");
	expect_contains(r.err, "tracekit: CUPTI dropped 17 activity records");
	expect_contains(r.err, "tracekit: CUPTI dropped 17 records (meta cupti.dropped_records)");
	tkt_run_free(&r);
}

Test(inject, a_cupti_of_another_cuda_major_is_refused_and_the_program_runs_on)
{
	setenv("FAKE_CUPTI_VERSION", "120800", 1);
	struct tkt_run r = record_fake(NULL, NULL, NULL, NULL, "3", NULL);
	cr_assert_eq(r.code, 7, "stderr: %s", r.err);
	expect_contains(r.err, "is CUPTI API version 120800; tracekit reads the records of "
			       "versions 130000 to 139999 (CUDA 13): the program runs untraced "
			       "on the device side");
	expect_rows("SELECT (SELECT count(*) FROM kernels), (SELECT count(*) FROM steps),"
		    " (SELECT count(*) FROM meta WHERE key = 'cupti.api_version')",
		    "0|3|0");
	tkt_run_free(&r);
}

Test(inject, cupti_refusing_to_enable_is_explained)
{
	setenv("FAKE_CUPTI_ENABLE_FAILS", "1", 1);
	struct tkt_run r = record_fake(NULL, NULL, NULL, NULL, "2", NULL);
	cr_assert_eq(r.code, 7, "stderr: %s", r.err);
	expect_contains(r.err, "tracekit: CUPTI activity tracing is unavailable "
			       "(cuptiActivityEnable: CUPTI_ERROR_INSUFFICIENT_PRIVILEGES; no GPU, "
			       "no driver, or another profiler holds CUPTI)");
	expect_contains(r.err, "fake_cupti: emitted=0 suppressed=");
	tkt_run_free(&r);
}

/* NVTX_INJECTION64_PATH: NVTX's entry point hands its export table to libcupti's. */
Test(inject, nvtx_initialization_is_handed_to_cupti)
{
	setenv("TRACEKIT_LIBCUPTI", TK_FAKE_CUPTI, 1);
	void *h = dlopen(TK_CUPTI_LIB, RTLD_NOW | RTLD_LOCAL);
	cr_assert(h, "%s", dlerror());
	int (*nvtx2)(void *), (*nvtx)(void *);
	*(void **)&nvtx2 = dlsym(h, "InitializeInjectionNvtx2");
	*(void **)&nvtx = dlsym(h, "InitializeInjectionNvtx");
	cr_assert(nvtx2 && nvtx);
	int table;
	cr_expect_eq(nvtx2(&table), 1, "the stand-in accepts a table");
	cr_expect_eq(nvtx(&table), 1);
	cr_expect_eq(nvtx2(NULL), 0, "and refuses none, as CUPTI does");
}

Test(inject, nvtx_without_a_libcupti_stays_off)
{
	setenv("TRACEKIT_LIBCUPTI", "/nonexistent/libcupti.so.13", 1);
	void *h = dlopen(TK_CUPTI_LIB, RTLD_NOW | RTLD_LOCAL);
	cr_assert(h, "%s", dlerror());
	int (*nvtx2)(void *);
	*(void **)&nvtx2 = dlsym(h, "InitializeInjectionNvtx2");
	int table;
	cr_expect_eq(nvtx2(&table), 0);
}

Test(inject, a_libcupti_that_cannot_be_loaded_is_named)
{
	setenv("FAKE_CUPTI_LIB", TK_FAKE_CUPTI, 1);
	setenv("TRACEKIT_LIBCUPTI", "/nonexistent/libcupti.so.13", 1);
	struct tkt_run r = tkt_tracekit("record", "-o", db, "--", TK_FAKE_APP, "2", NULL);
	cr_assert_eq(r.code, 7, "stderr: %s", r.err);
	expect_contains(r.err, "tracekit: TRACEKIT_LIBCUPTI='/nonexistent/libcupti.so.13' cannot "
			       "be loaded: ");
	expect_rows("SELECT count(*) FROM steps", "2");
	tkt_run_free(&r);
}

#endif

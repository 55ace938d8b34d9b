/*
 * The CUPTI injection library where there is no GPU (or no driver): the program keeps running
 * and keeps its exit code, with one clear message. Runs examples/cuda_demo under `tracekit
 * record` when nvcc built it (on a machine with a GPU that run must record kernels and copies
 * instead), and calls InitializeInjection() from a child process. Skips what was not built.
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
			expect_contains(r.err, "no CUDA driver (libcuda.so.1 cannot be loaded): the "
					       "program runs untraced on the device side");
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
		if (!init || !dlsym(h, "InitializeInjectionNvtx2") || !dlsym(h, "tk_cupti_host_hooks"))
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
	expect_contains(err, "tracekit: CUPTI activity tracing is unavailable (cuptiActivityEnable: ");
	expect_contains(err, "the program runs untraced on the device side");
	int lines = 0; /* (LeakSanitizer may add notes about CUPTI's threads) */
	for (const char *p = err; (p = strstr(p, "tracekit:")); p++)
		lines++;
	cr_expect_eq(lines, 1, "one message: %s", err);
	cr_expect(!tkt_exists(db), "no store when nothing was traced");
#endif
}

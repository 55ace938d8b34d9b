/* `tracekit record`: run a program with capture set up (env vars + CUPTI injection), keep its exit code. */
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <tracekit/error.h>
#include <tracekit/store.h>

#include "cli.h"
#include "options.h"
#include "tk_schema.h"

static int run(int argc, char **argv);

const struct tk_cmd tk_cmd_record = {
    "record",
    "run a program and record its GPU and host activity into a store",
    "usage: tracekit record -o STORE [--start-step N] [--steps K] [--every E]\n"
    "                       [--max-profiles M] [--duration-ms D] -- CMD [ARGS...]\n\n"
    "Runs CMD with the capture set up and exits with CMD's exit code (128+signal when it was\n"
    "killed). CUDA programs are traced through the CUPTI injection library (kernels, copies,\n"
    "sets, allocations, runtime and driver calls, synchronization, NVTX ranges); programs that\n"
    "use tracekit's annotation API (tracekit/annotate.h) add their scopes, steps, markers,\n"
    "counters and allocations. With step options CUPTI is switched on a step ahead of each\n"
    "window and off after it. libcupti (CUDA 13) is found at run time: TRACEKIT_LIBCUPTI, the\n"
    "loader's path, $CUDA_HOME, /usr/local/cuda. Without a GPU, a CUDA driver or libcupti the\n"
    "program still runs, untraced on the device side. The same settings can be given to a\n"
    "program directly through the TRACEKIT_* environment variables (docs/capture.md).\n\n"
    "Options:\n"
    "  -o, --output STORE   store to write (TRACEKIT_OUTPUT); an existing file that is not a\n"
    "                       tracekit store is refused\n"
    "  --start-step N       first step recorded (TRACEKIT_START_STEP); needs tk_step() markers\n"
    "  --steps K            steps per profile (TRACEKIT_STEPS; default: to the end)\n"
    "  --every E            start a profile every E steps (TRACEKIT_EVERY)\n"
    "  --max-profiles M     at most M profiles (TRACEKIT_MAX_PROFILES)\n"
    "  --duration-ms D      stop each profile after D ms (TRACEKIT_DURATION_MS)\n"
    "  -h, --help           this text\n",
    run,
};

/* The injection library: TRACEKIT_CUPTI_LIBRARY, the build tree's, or the installed one. */
static const char *injection_library(void)
{
	const char *env = getenv("TRACEKIT_CUPTI_LIBRARY");
	if (env && *env)
		return access(env, R_OK) == 0 ? env : NULL;
#ifdef TK_CUPTI_BUILD_PATH
	if (access(TK_CUPTI_BUILD_PATH, R_OK) == 0)
		return TK_CUPTI_BUILD_PATH;
#endif
#ifdef TK_CUPTI_INSTALL_PATH
	if (access(TK_CUPTI_INSTALL_PATH, R_OK) == 0)
		return TK_CUPTI_INSTALL_PATH;
#endif
	return NULL;
}

/* @path made absolute (the program may change directory); malloc'd. */
static char *absolute(const char *path)
{
	if (path[0] == '/')
		return strdup(path);
	char cwd[PATH_MAX];
	if (!getcwd(cwd, sizeof(cwd)))
		return NULL;
	size_t n = strlen(cwd) + strlen(path) + 2;
	char *p = malloc(n);
	if (p)
		snprintf(p, n, "%s/%s", cwd, path);
	return p;
}

/*
 * Why device activity cannot be traced here, or NULL when a driver with a device is found.
 * Runs before CUDA_INJECTION64_PATH is set, so the check never loads the injection here.
 */
static const char *driver_problem(char *buf, size_t len)
{
	void *drv = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
	if (!drv)
		return "no CUDA driver (libcuda.so.1 cannot be loaded)";
	int (*init)(unsigned);
	int (*count)(int *);
	*(void **)&init = dlsym(drv, "cuInit");
	*(void **)&count = dlsym(drv, "cuDeviceGetCount");
	int rc = init ? init(0) : -1, n = 0;
	if (rc == 0 && count && count(&n) == 0 && n > 0)
		return NULL; /* the driver stays loaded: unloading after cuInit is not safe */
	if (rc == 0)
		snprintf(buf, len, "no CUDA device found");
	else
		snprintf(buf, len, "the CUDA driver cannot start (cuInit error %d%s)", rc,
			 rc == 34    ? ": libcuda.so.1 is the toolkit's stub"
			 : rc == 100 ? ": no CUDA device"
				     : "");
	return buf;
}

static int set_int_env(const char *name, int64_t v)
{
	char buf[32];
	if (v < 0)
		return unsetenv(name);
	snprintf(buf, sizeof(buf), "%lld", (long long)v);
	return setenv(name, buf, 1);
}

static int64_t count(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st = NULL;
	int64_t n = -1;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return n;
}

/*
 * "tracekit: wrote STORE: ..." with what the store holds; @problem (the driver check's finding)
 * is shown when the injection library did not take part (no cupti.api_version in meta).
 */
static void report_store(const char *path, const char *problem)
{
	tk_store *s = NULL;
	int rc = tk_store_open(path, &s);
	if (rc != TK_OK) {
		if (tk_store_error(s)) {
			tk_error_push_from(tk_store_error(s), "cli", rc,
					   "the store '%s' cannot be read", path);
			cli_error("%s", tk_store_errmsg(s));
		} else { /* no handle: out of memory */
			cli_error("the store '%s' cannot be read: ", path);
		}
		tk_store_close(s);
		return;
	}
	sqlite3 *db = tk_store_sqlite(s);
	fprintf(
	    stderr,
	    "tracekit: wrote %s: %lld kernels, %lld copies, %lld sets, %lld API calls, "
	    "%lld annotations, %lld steps, %lld memory events, %lld counter samples\n",
	    path,
	    (long long)count(db, "SELECT count(*) FROM events WHERE kind = " TK_SQL_EV_KERNEL),
	    (long long)count(db, "SELECT count(*) FROM events WHERE kind = " TK_SQL_EV_MEMCPY),
	    (long long)count(db, "SELECT count(*) FROM events WHERE kind = " TK_SQL_EV_MEMSET),
	    (long long)count(db,
			     "SELECT count(*) FROM events WHERE kind IN (" TK_SQL_EV_API_CALLS ")"),
	    (long long)count(db, "SELECT count(*) FROM events WHERE kind = " TK_SQL_EV_ANNOTATION),
	    (long long)count(db, "SELECT count(*) FROM events WHERE kind = " TK_SQL_EV_STEP),
	    (long long)count(db, "SELECT count(*) FROM memory_records"),
	    (long long)count(db, "SELECT count(*) FROM counters"));
	char dropped[32];
	if (tk_store_meta_text(s, "cupti.dropped_records", dropped, sizeof(dropped)) == TK_OK &&
	    strcmp(dropped, "0"))
		fprintf(stderr, "tracekit: CUPTI dropped %s records (meta cupti.dropped_records)\n",
			dropped);
	char version[32];
	if (problem &&
	    tk_store_meta_text(s, "cupti.api_version", version, sizeof(version)) != TK_OK)
		cli_error("%s: the program ran untraced on the device side (host annotations were "
			  "recorded)",
			  problem);
	tk_store_close(s);
}

static int run(int argc, char **argv)
{
	const struct tk_cmd *cmd = &tk_cmd_record;
	const char *output = NULL;
	int64_t start = -1, steps = -1, every = -1, max_profiles = -1, duration = -1;
	int rc, first;
	const struct cli_opt opts[] = {
	    CLI_STR("output", 'o', &output),
	    CLI_I64("start-step", &start, 0, INT64_MAX),
	    CLI_I64("steps", &steps, 1, INT64_MAX),
	    CLI_I64("every", &every, 1, INT64_MAX),
	    CLI_I64("max-profiles", &max_profiles, 1, INT64_MAX),
	    CLI_I64("duration-ms", &duration, 1, INT64_MAX / 1000000),
	    CLI_HELP,
	};
	if ((rc = cli_parse(cmd, argc, argv, opts, CLI_NOPTS(opts), CLI_STOP_AT_OPERAND, &first)) !=
	    CLI_GO_ON)
		return rc;
	if (!output)
		return cli_usage_error(cmd, "an output store is required (-o STORE)");
	if (first >= argc)
		return cli_usage_error(cmd, "a command to run is required (-- CMD [ARGS...])");
	if (every > 0 && steps > every)
		return cli_usage_error(cmd, "--steps %lld is longer than --every %lld",
				       (long long)steps, (long long)every);
	/* the program itself is an input (when it is named by a path) */
	if ((rc = cli_check_output(output, (const char *const *)argv + first, 1,
				   TK_OUTPUT_STORE)) != TK_EXIT_OK)
		return rc;
	char *path = absolute(output);
	if (!path)
		return cli_fail(TK_ENOMEM, "cannot resolve the output path");
	struct stat before;
	int existed = stat(path, &before) == 0;

	if (setenv("TRACEKIT_OUTPUT", path, 1) || set_int_env("TRACEKIT_START_STEP", start) ||
	    set_int_env("TRACEKIT_STEPS", steps) || set_int_env("TRACEKIT_EVERY", every) ||
	    set_int_env("TRACEKIT_MAX_PROFILES", max_profiles) ||
	    set_int_env("TRACEKIT_DURATION_MS", duration)) {
		free(path);
		return cli_fail(TK_ENOMEM, "cannot set the environment");
	}
	const char *lib = injection_library(), *problem = NULL;
	char why[160];
	if (!lib) {
		cli_error("this tracekit was built without CUPTI: device activity is not recorded "
			  "(host annotations still are)");
	} else {
		problem = driver_problem(why, sizeof(why)); /* told after the run, if it mattered */
		setenv("CUDA_INJECTION64_PATH", lib, 1);
		setenv("NVTX_INJECTION64_PATH", lib, 1);
		setenv("TRACEKIT_CUPTI_LIBRARY", lib, 1);
	}

	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0) {
		free(path);
		return cli_fail(TK_EINTERNAL, "cannot start the program (fork failed)");
	}
	if (pid == 0) {
		execvp(argv[first], argv + first);
		fprintf(stderr, "tracekit: cannot run '%s': %s\n", argv[first], strerror(errno));
		_exit(errno == ENOENT ? 127 : 126);
	}
	/* The terminal's SIGINT reaches the program too; wait for it to finish its store. */
	struct sigaction ign = {.sa_handler = SIG_IGN}, old_int, old_term;
	sigaction(SIGINT, &ign, &old_int);
	sigaction(SIGTERM, &ign, &old_term);
	int status = 0;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);

	struct stat after;
	if (stat(path, &after) == 0 &&
	    (!existed || after.st_ino != before.st_ino || after.st_mtime != before.st_mtime))
		report_store(path, problem);
	else if (problem)
		cli_error("no store was written to %s (%s: the program ran untraced on the device "
			  "side, and started no annotation session)",
			  path, problem);
	else
		cli_error("no store was written to %s (the program made no traced CUDA calls and "
			  "started no annotation session)",
			  path);
	free(path);
	return code;
}

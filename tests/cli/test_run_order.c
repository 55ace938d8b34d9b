/*
 * Which run of a TensorBoard logdir is the newest (`tracekit ls`, `tracekit import LOGDIR`):
 * by the profile start its files record, else by the time its name spells, runs with neither
 * last by mtime; a run copied later (newer mtime) does not become the newest. The files:
 * tests/data/xplane/tiny.xplane.pb (profile_start_time 2026-01-01 00:00:00), the vendored
 * jax08_mi300x_gemm (2026-02-20 13:54:10, host tw003) and truncated.xplane.pb (none).
 */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <tracekit/tracekit.h>

#include "tk_test.h"

#define DATA TK_SOURCE_DIR "/tests/data/xplane/"

TKT_TMPDIR_FIXTURE;

TestSuite(run_order, .init = setup, .fini = teardown);

/* Copy @src to run @run of logdir @logdir as host @host, its mtime @age seconds in the past. */
static void add_run(const char *logdir, const char *run, const char *host, const char *src,
		    long age)
{
	char path[4096], buf[65536];
	snprintf(path, sizeof(path), "%s/plugins", logdir);
	mkdir(logdir, 0755);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/plugins/profile", logdir);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/plugins/profile/%s", logdir, run);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/plugins/profile/%s/%s.xplane.pb", logdir, run, host);
	FILE *in = fopen(src, "rb"), *out = fopen(path, "wb");
	size_t n;
	cr_assert(in && out, "cannot copy %s", src);
	while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
		cr_assert_eq(fwrite(buf, 1, n, out), n);
	fclose(in);
	cr_assert_eq(fclose(out), 0);
	struct timespec t[2] = {{time(NULL) - age, 0}, {time(NULL) - age, 0}};
	cr_assert_eq(utimensat(AT_FDCWD, path, t, 0), 0);
}

/* The run names of `tracekit ls` in order (a malloc'd "a,b,c"), and each row's "by" word. */
static char *ls_order(const char *logdir, char *by, size_t bylen)
{
	struct tkt_run r = tkt_tracekit("ls", logdir, NULL);
	cr_assert_eq(r.code, 0, "%s", r.err);
	char *order = calloc(1, strlen(r.out) + 1);
	by[0] = '\0';
	const char *p = strchr(r.out, '\n');
	while (p && p[1]) {
		p++;
		size_t n = strcspn(p, " ");
		strncat(order, p, n);
		strcat(order, ",");
		const char *w = strstr(p, "  start  ")	 ? "start"
				: strstr(p, "  name  ")	 ? "name"
				: strstr(p, "  mtime  ") ? "mtime"
							 : "?";
		strncat(by, w, bylen - strlen(by) - 2);
		strncat(by, ",", bylen - strlen(by) - 1);
		p = strchr(p, '\n');
	}
	tkt_run_free(&r);
	return order;
}

Test(run_order, a_copied_older_run_does_not_become_the_newest)
{
	char *logdir = tkt_path(dir, "logdir"), by[256];
	char *gemm = tkt_real("xplane/logdir/plugins/profile/jax08_mi300x_gemm/tw003.xplane.pb");
	add_run(logdir, "gemm", "tw003", gemm, 86400 * 30);	/* profiled later, old copy */
	add_run(logdir, "tiny", "h", DATA "tiny.xplane.pb", 0); /* profiled earlier, copied now */
	char *order = ls_order(logdir, by, sizeof(by));
	cr_expect_str_eq(order, "gemm,tiny,");
	cr_expect_str_eq(by, "start,start,");
	free(order);
	char *db = tkt_path(dir, "newest.db");
	struct tkt_run r = tkt_tracekit("import", logdir, "-o", db, NULL);
	cr_assert_eq(r.code, 0, "%s", r.err);
	tkt_run_free(&r);
	cr_expect_eq(tkt_query_int(db, "SELECT count(*) FROM processes p JOIN strings s"
				       " ON s.id = p.host_id WHERE s.str = 'tw003'"),
		     1, "import took another run than the newest");
	free(db);
	free(gemm);
	free(logdir);
}

Test(run_order, without_a_profile_start_the_name_then_the_mtime)
{
	char *logdir = tkt_path(dir, "logdir"), by[256];
	/* no profile_start_time in these files */
	add_run(logdir, "2024_05_02_08_00_00", "h", DATA "truncated.xplane.pb", 86400 * 10);
	add_run(logdir, "2024_05_01_23_59_59", "h", DATA "truncated.xplane.pb", 86400);
	add_run(logdir, "copy", "h", DATA "truncated.xplane.pb", 0);
	add_run(logdir, "older_copy", "h", DATA "truncated.xplane.pb", 3600);
	char *order = ls_order(logdir, by, sizeof(by));
	cr_expect_str_eq(order, "2024_05_02_08_00_00,2024_05_01_23_59_59,copy,older_copy,");
	cr_expect_str_eq(by, "name,name,mtime,mtime,");
	free(order);
	/* a run that records its start comes before those that do not */
	add_run(logdir, "tiny", "h", DATA "tiny.xplane.pb", 86400 * 100);
	order = ls_order(logdir, by, sizeof(by));
	cr_expect_str_eq(order, "tiny,2024_05_02_08_00_00,2024_05_01_23_59_59,copy,older_copy,");
	free(order);
	free(logdir);
}

Test(run_order, run_names_spell_times_in_several_ways)
{
	static const struct {
		const char *name;
		int64_t ns;
	} cases[] = {
	    {"2024_05_01_12_30_45", 1714566645000000000LL},
	    {"2024-05-01T12:30:45", 1714566645000000000LL},
	    {"run-20240501-123045", 1714566645000000000LL},
	    {"plain", TK_NONE},
	    {"2024_13_01_12_30_45", TK_NONE},  /* no month 13 */
	    {"12024_05_01_12_30_45", TK_NONE}, /* part of a longer number */
	};
	char *logdir = tkt_path(dir, "logdir");
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		add_run(logdir, cases[i].name, "h", DATA "truncated.xplane.pb", 0);
	struct tk_xplane_run *runs = NULL;
	int n = 0;
	cr_assert_eq(tk_xplane_list_runs(logdir, &runs, &n, tkt_err()), TK_OK, "%s", tkt_errmsg());
	cr_assert_eq(n, 6);
	for (int j = 0; j < n; j++)
		for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
			if (!strcmp(runs[j].name, cases[i].name))
				cr_expect_eq(runs[j].name_ns, cases[i].ns, "%s: %lld",
					     cases[i].name, (long long)runs[j].name_ns);
	tk_xplane_runs_free(runs, n);
	free(logdir);
}

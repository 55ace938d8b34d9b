/*
 * The CI examples (examples/ci/): the gate command of the GitHub Actions workflow and of the
 * GitLab job, run as they are written (through sh, from the repository root, with the variables
 * the jobs set), on a rerun of the baseline's workload (green), on the same workload 8 % slower
 * (red, with the JUnit file and the Markdown summary, appended to the GitHub job summary), and
 * with the example gates file.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tk_analyze_store.h"

TestSuite(ci_examples, .init = tkt_analyze_setup, .fini = tkt_analyze_teardown, .timeout = 600);

static char *synth(const char *name, const char *jitter)
{
	char *path = tkt_path(tkt_dir, name);
	tkt_ok(tkt_tracekit("synth", "-o", path, "--events", "20000", "--devices", "1", "--steps",
			    "12", "--seed", "5", "--jitter", jitter, NULL));
	tkt_ok(tkt_tracekit("analyze", path, NULL));
	return path;
}

/* The line of examples/ci/@file that runs gate.sh, without YAML's "- " or "run: ". */
static char *gate_command(const char *file)
{
	char path[4096], line[1024];
	snprintf(path, sizeof(path), "%s/examples/ci/%s", TK_SOURCE_DIR, file);
	FILE *f = fopen(path, "r");
	cr_assert(f, "%s is missing", path);
	char *cmd = NULL;
	while (!cmd && fgets(line, sizeof(line), f))
		if (strstr(line, "gate.sh") && line[strspn(line, " ")] != '#') {
			char *p = line + strspn(line, " ");
			if (!strncmp(p, "- ", 2))
				p += 2;
			if (!strncmp(p, "run: ", 5))
				p += 5;
			p[strcspn(p, "\n")] = '\0';
			cmd = strdup(p);
		}
	fclose(f);
	cr_assert(cmd, "%s runs no gate.sh", file);
	return cmd;
}

/* Run @cmd with sh from the repository root with the job's variables; its exit code. */
static int run_gate(const char *cmd, const char *trace, const char *baseline, const char *gates,
		    const char *out, const char *summary)
{
	char sh[16384];
	snprintf(sh, sizeof(sh),
		 "cd '%s' && TRACEKIT='%s' TRACE='%s' BASELINE='%s' GATES='%s' OUT='%s' "
		 "GITHUB_STEP_SUMMARY='%s' sh -c '%s' >'%s/gate.log' 2>&1",
		 TK_SOURCE_DIR, TK_BINARY, trace, baseline, gates, out, summary, cmd, out);
	int st = system(sh);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* The file's text, "" when there is none. */
static char *text_of(const char *path)
{
	char *s = tkt_slurp(path, NULL);
	return s ? s : strdup("");
}

Test(ci_examples, both_jobs_pass_noise_and_fail_a_regression_with_reports)
{
	char *base = synth("base.db", "1"), *rerun = synth("rerun.db", "2"),
	     *slow = synth("slow.db", "3"), *bl = tkt_path(tkt_dir, "baseline.json");
	tkt_exec_sql(slow, "CREATE TEMP TABLE t0 AS SELECT min(start_ns) AS t FROM analysis_steps;"
			   "UPDATE events SET ts_ns = (SELECT t FROM t0) + CAST((ts_ns - (SELECT t "
			   "FROM t0)) * 1.08 AS INTEGER), dur_ns = CAST(dur_ns * 1.08 AS INTEGER) "
			   "WHERE ts_ns >= (SELECT t FROM t0);");
	tkt_ok(tkt_tracekit("analyze", slow, NULL));
	tkt_ok(tkt_tracekit("baseline", base, "-o", bl, NULL));
	const char *files[] = {"github-actions.yml", "gitlab-ci.yml"};
	for (int i = 0; i < 2; i++) {
		char *cmd = gate_command(files[i]), name[64];
		snprintf(name, sizeof(name), "out%d", i);
		char *out = tkt_path(tkt_dir, name), *summary = tkt_path(out, "step-summary.md");
		char *junit = tkt_path(out, "junit.xml"), *md = tkt_path(out, "summary.md");
		cr_assert_eq(mkdir(out, 0700), 0);
		cr_expect_eq(run_gate(cmd, rerun, bl, "none", out, summary), 0, "%s: noise failed",
			     files[i]);
		cr_expect(tkt_exists(junit) && tkt_exists(md), "%s: reports written", files[i]);
		int rc = run_gate(cmd, slow, bl, "none", out, summary);
		char *logp = tkt_path(out, "gate.log"), *log = text_of(logp),
		     *sum = text_of(summary), *j = text_of(junit);
		cr_expect_eq(rc, 1, "%s: the regression passed: %s", files[i], log);
		cr_expect(strstr(log, "tracekit check: FAIL") != NULL, "%s", log);
		cr_expect(strstr(sum, "**PASS") != NULL && strstr(sum, "**FAIL") != NULL,
			  "both runs in the job summary: %s", sum);
		cr_expect(strstr(j, "<failure message=") != NULL, "%s", j);
		free(logp);
		free(log);
		free(sum);
		free(j);
		free(cmd);
		free(out);
		free(summary);
		free(junit);
		free(md);
	}
	/* the example gates file parses and gates: the rerun passes it, the slow run fails it */
	char gates[4096];
	snprintf(gates, sizeof(gates), "%s/examples/ci/gates.toml", TK_SOURCE_DIR);
	char *cmd = gate_command("gitlab-ci.yml"), *out = tkt_path(tkt_dir, "out9");
	cr_assert_eq(mkdir(out, 0700), 0);
	cr_expect_eq(run_gate(cmd, rerun, bl, gates, out, "/dev/null"), 0);
	cr_expect_eq(run_gate(cmd, slow, bl, gates, out, "/dev/null"), 1);
	free(cmd);
	free(out);
	free(base);
	free(rerun);
	free(slow);
	free(bl);
}

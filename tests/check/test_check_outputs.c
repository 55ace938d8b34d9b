/*
 * What `tracekit check` writes and reads besides its verdict: the JSON and Markdown outputs
 * against goldens (tests/data/check/, regenerated with TK_UPDATE_GOLDEN=1), JUnit XML with one
 * test case per gate (parsed by an XML parser), GitHub Actions annotations, --update-baseline,
 * the baseline file's own checks (every truncation, another version, wrong types: exit 2 naming
 * the place), and outputs that would replace a file that is not theirs.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tk_analyze_store.h"

TestSuite(check_out, .init = tkt_analyze_setup, .fini = tkt_analyze_teardown, .timeout = 600);

static char *synth(const char *name, const char *steps, const char *jitter)
{
	char *path = tkt_path(tkt_dir, name);
	tkt_ok(tkt_tracekit("synth", "-o", path, "--events", "20000", "--devices", "1", "--steps",
			    steps, "--seed", "5", "--jitter", jitter, NULL));
	tkt_ok(tkt_tracekit("analyze", path, NULL));
	return path;
}

/* Compare @got with the golden tests/data/check/@name (rewritten when TK_UPDATE_GOLDEN=1). */
static void golden(const char *got, const char *name)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/tests/data/check/%s", TK_SOURCE_DIR, name);
	if (getenv("TK_UPDATE_GOLDEN")) {
		tkt_spit(path, got, strlen(got));
		return;
	}
	char *want = tkt_slurp(path, NULL);
	cr_expect_str_eq(got, want, "%s differs from its golden (TK_UPDATE_GOLDEN=1 rewrites it)",
			 name);
	free(want);
}

/* A regression known by construction: the same synthetic workload, every step 8 % slower. */
struct pair {
	char *base, *slow, *baseline;
};

static struct pair regression(void)
{
	struct pair p;
	p.base = synth("base.db", "12", "1");
	p.slow = synth("slow.db", "12", "2");
	tkt_exec_sql(p.slow,
		     "CREATE TEMP TABLE t0 AS SELECT min(start_ns) AS t FROM analysis_steps;"
		     "UPDATE events SET ts_ns = (SELECT t FROM t0) + CAST((ts_ns - (SELECT t "
		     "FROM t0)) * 1.08 AS INTEGER), dur_ns = CAST(dur_ns * 1.08 AS INTEGER) "
		     "WHERE ts_ns >= (SELECT t FROM t0);");
	tkt_ok(tkt_tracekit("analyze", p.slow, NULL));
	p.baseline = tkt_path(tkt_dir, "baseline.json");
	tkt_ok(tkt_tracekit("baseline", p.base, "-o", p.baseline, NULL));
	return p;
}

static void pair_free(struct pair *p)
{
	free(p->base);
	free(p->slow);
	free(p->baseline);
}

Test(check_out, json_and_markdown_match_their_goldens)
{
	struct pair p = regression();
	struct tkt_run r =
	    tkt_tracekit("check", p.slow, "--baseline", p.baseline, "--format", "json", NULL);
	cr_expect_eq(r.code, 1, "%s%s", r.out, r.err);
	golden(r.out, "regression.json");
	tkt_run_free(&r);
	r = tkt_tracekit("check", p.slow, "--baseline", p.baseline, "--format", "md", NULL);
	cr_expect_eq(r.code, 1);
	golden(r.out, "regression.md");
	tkt_run_free(&r);
	r = tkt_tracekit("check", p.base, "--baseline", p.baseline, "--format", "md", NULL);
	cr_expect_eq(r.code, 0);
	golden(r.out, "pass.md");
	tkt_run_free(&r);
	pair_free(&p);
}

Test(check_out, junit_has_one_test_case_per_gate_and_failures_carry_the_numbers)
{
	struct pair p = regression();
	char *junit = tkt_path(tkt_dir, "junit.xml"), *md = tkt_path(tkt_dir, "summary.md");
	struct tkt_run r =
	    tkt_tracekit("check", p.slow, "--baseline", p.baseline, "--junit", junit, "--markdown",
			 md, "--gate", "step_time:+5%", "--gate", "kernel:*:+10%", "--max",
			 "memory.peak=70GiB", "--min", "kpi.gpu_utilization=10", NULL);
	cr_expect_eq(r.code, 1, "%s%s", r.out, r.err);
	tkt_run_free(&r);
	/* an XML parser counts: 4 gates, 1 failure (step time), whose message has the numbers */
	char cmd[8500];
	snprintf(cmd, sizeof(cmd),
		 "python3 -c \"import sys, xml.etree.ElementTree as E; t = E.parse(sys.argv[1]); "
		 "c = t.findall('.//testcase'); f = t.findall('.//testcase/failure'); "
		 "print(len(c), len(f), c[0].get('name'), 'step time' in f[0].text and ' (+8.' in "
		 "f[0].text)\" '%s' > '%s/x.txt'",
		 junit, tkt_dir);
	cr_assert_eq(system(cmd), 0, "python3 could not parse the JUnit file");
	char *x = tkt_path(tkt_dir, "x.txt"), *got = tkt_slurp(x, NULL);
	cr_expect_str_eq(got, "4 1 step_time:+5% True\n");
	free(got);
	free(x);
	char *m = tkt_slurp(md, NULL);
	cr_expect(!strncmp(m, "# tracekit check\n\n**FAIL (1 regression): step time +8.", 54), "%s",
		  m);
	free(m);
	free(junit);
	free(md);
	pair_free(&p);
}

Test(check_out, github_actions_get_error_annotations)
{
	struct pair p = regression();
	setenv("GITHUB_ACTIONS", "true", 1);
	struct tkt_run r = tkt_tracekit("check", p.slow, "--baseline", p.baseline, NULL);
	unsetenv("GITHUB_ACTIONS");
	cr_expect_eq(r.code, 1);
	cr_expect(strstr(r.out, "::error title=tracekit check step_time%3A+5%25::step time ") !=
		      NULL,
		  "%s", r.out);
	tkt_run_free(&r);
	r = tkt_tracekit("check", p.slow, "--baseline", p.baseline, NULL);
	cr_expect(strstr(r.out, "::error") == NULL, "annotations only under GitHub Actions");
	tkt_run_free(&r);
	pair_free(&p);
}

Test(check_out, update_baseline_writes_only_when_the_check_passes)
{
	struct pair p = regression();
	char *next = tkt_path(tkt_dir, "next.json");
	struct tkt_run r = tkt_tracekit("check", p.slow, "--baseline", p.baseline,
					"--update-baseline", next, NULL);
	cr_expect_eq(r.code, 1);
	cr_expect(!tkt_exists(next), "a failing check must not move the baseline");
	tkt_run_free(&r);
	char *again = synth("again.db", "12", "3");
	r = tkt_tracekit("check", again, "--baseline", p.baseline, "--update-baseline", p.baseline,
			 NULL);
	cr_expect_eq(r.code, 0, "%s%s", r.out, r.err);
	tkt_run_free(&r);
	char *b = tkt_slurp(p.baseline, NULL);
	cr_expect(strstr(b, "\"input\": \"again.db\"") != NULL, "the new baseline is the input");
	free(b);
	free(again);
	free(next);
	pair_free(&p);
}

Test(check_out, a_bad_baseline_is_exit_2_naming_the_place)
{
	char *s = synth("a.db", "4", "1"), *b = tkt_path(tkt_dir, "b.json"),
	     *bad = tkt_path(tkt_dir, "bad.json");
	tkt_ok(tkt_tracekit("baseline", s, "-o", b, NULL));
	size_t n;
	char *text = tkt_slurp(b, &n);
	/* every truncation (in steps, to keep the test short): exit 2, the file and a line named */
	for (size_t k = 0; k < n; k += k < 400 ? 1 : 97) {
		tkt_spit(bad, text, k);
		struct tkt_run r = tkt_tracekit("check", s, "--baseline", bad, NULL);
		cr_expect_eq(r.code, 2, "truncated at %zu: exit %d %s", k, r.code, r.err);
		cr_expect(strstr(r.err, "bad.json") != NULL, "at %zu: %s", k, r.err);
		tkt_run_free(&r);
	}
	/* another version */
	char *v = strdup(text), *at = strstr(v, "\"version\": 1");
	cr_assert(at);
	at[11] = '7';
	tkt_spit(bad, v, n);
	struct tkt_run r = tkt_tracekit("check", s, "--baseline", bad, NULL);
	cr_expect_eq(r.code, 2);
	cr_expect(strstr(r.err, "has version 7; this tracekit reads version 1") != NULL, "%s",
		  r.err);
	tkt_run_free(&r);
	/* a wrong type deep inside: the key path and the line */
	free(v);
	v = strdup(text);
	at = strstr(v, "\"unit\": \"ns\"");
	cr_assert(at);
	memcpy(at + 8, "17  ", 4);
	tkt_spit(bad, v, n);
	r = tkt_tracekit("check", s, "--baseline", bad, NULL);
	cr_expect_eq(r.code, 2);
	cr_expect(strstr(r.err, "metrics.step_time.unit: expected a string") != NULL, "%s", r.err);
	cr_expect(strstr(r.err, "line ") != NULL, "%s", r.err);
	tkt_run_free(&r);
	free(v);
	/* a kernel given twice (the check fuzz target's find: it regressed against itself) */
	char *k0 = strstr(text, "\"kernels\": [\n");
	cr_assert(k0);
	k0 = strchr(k0, '\n') + 1;
	char *k1 = strchr(k0, '\n');
	cr_assert(k1 && k1[-1] == ',', "the first kernel's line ends with a comma");
	size_t pre = (size_t)(k1 + 1 - text), len = (size_t)(k1 + 1 - k0);
	v = malloc(n + len + 1);
	memcpy(v, text, pre);
	memcpy(v + pre, k0, len);
	memcpy(v + pre + len, text + pre, n - pre + 1);
	tkt_spit(bad, v, n + len);
	r = tkt_tracekit("check", s, "--baseline", bad, NULL);
	cr_expect_eq(r.code, 2, "exit %d: %s", r.code, r.err);
	cr_expect(strstr(r.err, "kernels[1]: the same name as kernels[0]") != NULL, "%s", r.err);
	tkt_run_free(&r);
	free(v);
	free(text);
	free(s);
	free(b);
	free(bad);
}

Test(check_out, outputs_never_replace_an_input_or_a_file_of_another_kind)
{
	char *s = synth("a.db", "4", "1"), *b = tkt_path(tkt_dir, "b.json"),
	     *notes = tkt_path(tkt_dir, "notes.txt");
	tkt_spit(notes, "my notes\n", 9);
	struct tkt_run r = tkt_tracekit("baseline", s, "-o", notes, NULL);
	cr_expect_eq(r.code, 2);
	tkt_run_free(&r);
	r = tkt_tracekit("baseline", s, "-o", s, NULL);
	cr_expect_eq(r.code, 2);
	tkt_run_free(&r);
	tkt_ok(tkt_tracekit("baseline", s, "-o", b, NULL));
	tkt_ok(tkt_tracekit("baseline", s, "-o", b, NULL)); /* its own kind: replaced */
	r = tkt_tracekit("check", s, "--baseline", b, "--junit", notes, NULL);
	cr_expect_eq(r.code, 2);
	tkt_run_free(&r);
	r = tkt_tracekit("check", s, "--baseline", b, "-o", b, NULL);
	cr_expect_eq(r.code, 2, "the baseline is an input");
	tkt_run_free(&r);
	char *got = tkt_slurp(notes, NULL);
	cr_expect_str_eq(got, "my notes\n");
	free(got);
	free(s);
	free(b);
	free(notes);
}

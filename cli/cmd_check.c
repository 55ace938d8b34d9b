/*
 * `tracekit check`: gate runs of a benchmark against a baseline (or absolute bounds) and exit 1
 * on a regression, 2 when the runs cannot be compared; the CI gate (docs/check.md).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tracekit/check.h>
#include <tracekit/error.h>
#include <tracekit/output.h>

#include "cli.h"
#include "options.h"
#include "util/vec.h"

static int run(int argc, char **argv);

const struct tk_cmd tk_cmd_check = {
    "check",
    "fail CI on a performance regression against a baseline (exit 1)",
    "usage: tracekit check INPUT... [--baseline BASELINE] [--gate GATE]... [--max M=V]...\n"
    "                      [--min M=V]... [--gates FILE] [--allow-different-hardware]\n"
    "                      [--format text|json|md] [-o FILE] [--junit FILE] [--markdown FILE]\n"
    "                      [--update-baseline FILE]\n\n"
    "Each INPUT is one run of the benchmark (a store, a trace file or a TensorBoard logdir, as\n"
    "for `tracekit baseline`). BASELINE is a baseline file (`tracekit baseline`) or a store or\n"
    "trace of the reference run. A relative gate fails when the change passes its threshold,\n"
    "is significant on the per-step samples (one-sided Mann-Whitney U, p < 0.01; with too few\n"
    "steps for the test: decided on the threshold, said \"low confidence\"), passes the\n"
    "baseline's own run-to-run spread, and is at least a minimum absolute change (10 us per\n"
    "step, 2 us for one kernel, 1 MiB, 0.5 pt). Runs that cannot be compared (no device work,\n"
    "steps on one side only, other devices, other kernels) exit 2 with the reason.\n"
    "docs/check.md has the metrics, statistics and outputs.\n\n"
    "Gates (none given, with a baseline: step_time:+5%, busy:+5%, memory.peak:+5%,\n"
    "kernel:*:+10% and op:*:+10% for kernels and HLO ops above 1 % of device time):\n"
    "  --gate GATE        relative: METRIC:+N% (an increase is the regression), METRIC:-Npt,\n"
    "                     METRIC:+2ms, kernel:GLOB:+N%, op:GLOB:+N%. Metrics: step_time,\n"
    "                     host_step_time, busy, comm, comm.exposed, kernel_time, memory.peak,\n"
    "                     kpi.NAME (gpu_utilization, host_overhead, ...)\n"
    "  --max M[.STAT]=V   absolute bound (no baseline needed): step_time.mean=150ms,\n"
    "  --min M[.STAT]=V   memory.peak=70GiB, kpi.gpu_utilization=80; STAT: mean, median, p90,\n"
    "                     min, max\n"
    "  --gates FILE       gates from a JSON or TOML file\n"
    "  --allow-different-hardware  compare runs on other device models or counts (and other\n"
    "                     kernel sets) anyway, and say so\n\n"
    "Outputs:\n"
    "  -f, --format F     text (default: opens with the verdict), json or md\n"
    "  -o, --output FILE  write that to FILE instead of stdout (atomically)\n"
    "  --junit FILE       also a JUnit XML file: one test case per gate\n"
    "  --markdown FILE    also the Markdown summary (e.g. for $GITHUB_STEP_SUMMARY)\n"
    "  --update-baseline FILE  when the check passes, write the inputs as the new baseline\n"
    "  Under GitHub Actions (GITHUB_ACTIONS=true) regressions are also ::error:: annotations\n"
    "  (on stdout, or stderr when stdout carries JSON or Markdown).\n"
    "  -h, --help         this text\n\n"
    "Exit codes: 0 no regression, 1 regression, 2 not comparable, usage error or bad input,\n"
    "3 internal error.\n",
    run,
};

struct args {
	const char *baseline, *gates_file, *output, *junit, *markdown, *update;
	int allow_hw;
	enum tk_check_format format;
	const char **gates;
	enum tk_gate_kind *kinds;
	size_t ngates, gates_cap, kinds_cap;
	int first; /* argv index of the first input */
};

struct writing {
	tk_check *c;
	enum tk_check_format f;
};

static int write_result(FILE *out, void *arg, tk_error *err)
{
	struct writing *w = arg;
	int rc = tk_check_write(w->c, out, w->f);
	if (rc != TK_OK)
		tk_error_push_from(err, "cli", rc, "%s", tk_strerror(rc));
	return rc;
}

static int write_baseline(FILE *out, void *arg, tk_error *err)
{
	struct writing *w = arg;
	int rc = tk_check_write_baseline(w->c, out);
	if (rc != TK_OK)
		tk_error_copy(err, tk_check_error(w->c));
	return rc;
}

static int add_gate(struct args *a, const char *text, enum tk_gate_kind kind)
{
	if (TKU_GROW(a->gates, a->gates_cap, a->ngates + 1, 8) != TK_OK ||
	    TKU_GROW(a->kinds, a->kinds_cap, a->ngates + 1, 8) != TK_OK)
		return -1;
	const char **g = a->gates;
	enum tk_gate_kind *k = a->kinds;
	g[a->ngates] = text;
	k[a->ngates++] = kind;
	return 0;
}

/* 1 when @path holds JSON (a baseline file) rather than a store or a trace. */
static int is_baseline_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	char head[64];
	size_t n = f ? fread(head, 1, sizeof(head) - 1, f) : 0;
	if (f)
		fclose(f);
	head[n] = '\0';
	return strstr(head, "\"tracekit-baseline\"") != NULL;
}

/* Every output of the check against every input (and the baseline) before any work. */
static int check_outputs(const struct args *a, char **inputs, size_t n)
{
	const char **all = calloc(n + 1, sizeof(*all));
	int rc = TK_EXIT_OK;
	if (!all) {
		cli_error("out of memory");
		return TK_EXIT_INTERNAL;
	}
	for (size_t i = 0; i < n; i++)
		all[i] = inputs[i];
	size_t nall = n;
	if (a->baseline)
		all[nall++] = a->baseline;
	static const enum tk_output_kind kinds[] = {
	    [TK_CHECK_TEXT] = TK_OUTPUT_CHECK_TEXT,
	    [TK_CHECK_JSON] = TK_OUTPUT_CHECK_JSON,
	    [TK_CHECK_MD] = TK_OUTPUT_CHECK_MD,
	};
	const struct {
		const char *path;
		enum tk_output_kind kind;
	} outs[] = {
	    {a->output, kinds[a->format]},
	    {a->junit, TK_OUTPUT_CHECK_JUNIT},
	    {a->markdown, TK_OUTPUT_CHECK_MD},
	    {a->update, TK_OUTPUT_BASELINE},
	};
	/* --update-baseline may replace the baseline it checks against: that is its purpose */
	for (size_t i = 0; i < sizeof(outs) / sizeof(outs[0]) && rc == TK_EXIT_OK; i++)
		if (outs[i].path)
			rc = cli_check_output(outs[i].path, all,
					      outs[i].kind == TK_OUTPUT_BASELINE ? n : nall,
					      outs[i].kind);
	free(all);
	return rc;
}

/* --gate, --max, --min: a bound of its kind (the message printed when memory runs out). */
static int gate_option(struct args *a, const char *value, enum tk_gate_kind kind)
{
	if (add_gate(a, value, kind)) {
		cli_error("out of memory");
		return TK_EXIT_INTERNAL;
	}
	return TK_EXIT_OK;
}

static int gate_relative(const struct tk_cmd *cmd, const char *value, void *arg)
{
	(void)cmd;
	return gate_option(arg, value, TK_GATE_RELATIVE);
}

static int gate_max(const struct tk_cmd *cmd, const char *value, void *arg)
{
	(void)cmd;
	return gate_option(arg, value, TK_GATE_MAX);
}

static int gate_min(const struct tk_cmd *cmd, const char *value, void *arg)
{
	(void)cmd;
	return gate_option(arg, value, TK_GATE_MIN);
}

static int format_option(const struct tk_cmd *cmd, const char *value, void *arg)
{
	struct args *a = arg;
	if (tk_check_format_parse(value, &a->format) != TK_OK)
		return cli_usage_error(cmd, "unknown format '%s' (text, json or md)", value);
	return TK_EXIT_OK;
}

/* The options into @a; TK_EXIT_OK, -1 after --help, or the usage error's exit code. */
static int parse(int argc, char **argv, struct args *a)
{
	const struct tk_cmd *cmd = &tk_cmd_check;
	const struct cli_opt opts[] = {
	    CLI_STR("baseline", 0, &a->baseline),
	    CLI_CALL("gate", 0, gate_relative, a),
	    CLI_CALL("max", 0, gate_max, a),
	    CLI_CALL("min", 0, gate_min, a),
	    CLI_STR("gates", 0, &a->gates_file),
	    CLI_FLAG("allow-different-hardware", 0, &a->allow_hw),
	    CLI_CALL("format", 'f', format_option, a),
	    CLI_STR("output", 'o', &a->output),
	    CLI_STR("junit", 0, &a->junit),
	    CLI_STR("markdown", 0, &a->markdown),
	    CLI_STR("update-baseline", 0, &a->update),
	    CLI_HELP,
	};
	int rc = cli_parse(cmd, argc, argv, opts, CLI_NOPTS(opts), 0, &a->first);
	if (rc != CLI_GO_ON)
		return rc == TK_EXIT_OK ? -1 : rc;
	if (a->first >= argc)
		return cli_usage_error(cmd,
				       "at least one input (a run of the benchmark) is required");
	if (!a->baseline && !a->ngates && !a->gates_file)
		return cli_usage_error(cmd, "nothing to check against: give --baseline, or bounds "
					    "(--max, --min)");
	return TK_EXIT_OK;
}

/* Open the inputs (and a store/trace baseline) and hand them to @chk. */
static int load(tk_check *chk, const struct args *a, char **inputs, size_t n,
		struct cli_run_input *in, struct cli_run_input *base_in)
{
	int rc, st;
	for (size_t i = 0; i < a->ngates; i++)
		if ((st = tk_check_gate(chk, a->gates[i], a->kinds[i])) != TK_OK)
			return cli_fail_error(st, tk_check_error(chk));
	if (a->gates_file && (st = tk_check_gates_file(chk, a->gates_file)) != TK_OK)
		return cli_fail_error(st, tk_check_error(chk));
	if (a->allow_hw)
		tk_check_allow_different_hardware(chk, 1);
	if (a->baseline && is_baseline_file(a->baseline)) {
		if ((st = tk_check_baseline_file(chk, a->baseline)) != TK_OK)
			return cli_fail_error(st, tk_check_error(chk));
	} else if (a->baseline) {
		if ((rc = cli_run_input_open(a->baseline, base_in)) != TK_EXIT_OK)
			return rc;
		if ((st = tk_check_add_baseline_run(chk, base_in->store, a->baseline)) != TK_OK)
			return cli_fail_error(st, tk_check_error(chk));
	}
	for (size_t i = 0; i < n; i++) {
		if ((rc = cli_run_input_open(inputs[i], &in[i])) != TK_EXIT_OK)
			return rc;
		if ((st = tk_check_add_run(chk, in[i].store, inputs[i])) != TK_OK)
			return cli_fail_error(st, tk_check_error(chk));
	}
	return TK_EXIT_OK;
}

/* Write the result where it was asked for; an exit code. */
static int outputs(tk_check *chk, const struct args *a)
{
	struct writing w = {chk, a->format};
	int rc = TK_EXIT_OK;
	const char *gha = getenv("GITHUB_ACTIONS");
	if (gha && !strcmp(gha, "true")) {
		FILE *to = a->output || a->format == TK_CHECK_TEXT ? stdout : stderr;
		if (tk_check_write(chk, to, TK_CHECK_GITHUB) != TK_OK)
			rc = cli_fail(TK_EIO, "cannot write the annotations");
	}
	if (a->output)
		rc = cli_write_atomic(a->output, write_result, &w);
	else if (tk_check_write(chk, stdout, a->format) != TK_OK || fflush(stdout))
		rc = cli_fail(TK_EIO, "cannot write the result to stdout");
	w.f = TK_CHECK_JUNIT;
	if (rc == TK_EXIT_OK && a->junit)
		rc = cli_write_atomic(a->junit, write_result, &w);
	w.f = TK_CHECK_MD;
	if (rc == TK_EXIT_OK && a->markdown)
		rc = cli_write_atomic(a->markdown, write_result, &w);
	return rc;
}

static int run(int argc, char **argv)
{
	struct args a = {0};
	tk_check *chk = NULL;
	struct cli_run_input *in = NULL, base_in;
	memset(&base_in, 0, sizeof(base_in));
	int rc = parse(argc, argv, &a);
	if (rc != TK_EXIT_OK)
		goto out;
	size_t n = (size_t)(argc - a.first);
	char **inputs = argv + a.first;
	if ((rc = check_outputs(&a, inputs, n)) != TK_EXIT_OK)
		goto out;
	in = calloc(n, sizeof(*in));
	if (tk_check_new(&chk) != TK_OK || !in) {
		cli_error("out of memory");
		rc = TK_EXIT_INTERNAL;
		goto out;
	}
	if ((rc = load(chk, &a, inputs, n, in, &base_in)) != TK_EXIT_OK)
		goto out;
	int st = tk_check_run(chk);
	if (st != TK_OK) {
		rc = cli_fail_error(st, tk_check_error(chk));
		goto out;
	}
	if ((rc = outputs(chk, &a)) != TK_EXIT_OK)
		goto out;
	rc = (int)tk_check_verdict(chk);
	if (rc == TK_EXIT_OK && a.update) {
		struct writing w = {chk, a.format};
		rc = cli_write_atomic(a.update, write_baseline, &w);
		if (rc == TK_EXIT_OK)
			fprintf(stderr, "tracekit: wrote the new baseline %s\n", a.update);
	}
out:
	for (size_t i = 0; in && i < (size_t)(argc - a.first); i++)
		cli_run_input_close(&in[i]);
	cli_run_input_close(&base_in);
	free(in);
	free(a.gates);
	free(a.kinds);
	tk_check_free(chk);
	return rc < 0 ? TK_EXIT_OK : rc;
}

/* `tracekit baseline`: one or more runs of a benchmark into a baseline file for `tracekit check`. */
#include <stdio.h>
#include <stdlib.h>
#include <tracekit/check.h>
#include <tracekit/error.h>

#include "cli.h"
#include "options.h"

static int run(int argc, char **argv);

const struct tk_cmd tk_cmd_baseline = {
    "baseline",
    "record runs of a benchmark as a baseline for `tracekit check`",
    "usage: tracekit baseline INPUT... -o BASELINE\n\n"
    "Each INPUT is one run of the same benchmark: a tracekit store (analysed first when it has\n"
    "no current analysis), a trace file (Chrome/Kineto JSON, .json.gz, .xplane.pb) or a\n"
    "TensorBoard logdir (imported into a temporary store). Several inputs are repeated runs:\n"
    "their spread is the run-to-run noise `check` allows for. The baseline is small, versioned\n"
    "JSON (docs/baseline.md): the device models, ranks, kernels and their calls per step,\n"
    "per-step samples of device and host step time, busy, communication, the KPIs, memory\n"
    "peaks, and per-step device time of every kernel and HLO op above 0.1 % of device time.\n"
    "Runs on different devices, or with steps in some and none in others, are refused.\n\n"
    "Options:\n"
    "  -o, --output FILE  baseline to write (atomically; an existing FILE must be a tracekit\n"
    "                     baseline, and never one of the inputs)\n"
    "  -h, --help         this text\n\n"
    "Exit codes: 0 written, 2 usage error or bad input, 3 internal error.\n",
    run,
};

static int write_baseline(FILE *out, void *arg, tk_error *err)
{
	tk_check *c = arg;
	int rc = tk_check_write_baseline(c, out);
	if (rc != TK_OK)
		tk_error_copy(err, tk_check_error(c));
	return rc;
}

static int run(int argc, char **argv)
{
	const struct tk_cmd *cmd = &tk_cmd_baseline;
	const char *output = NULL;
	const struct cli_opt opts[] = {CLI_STR("output", 'o', &output), CLI_HELP};
	int rc, first;
	if ((rc = cli_parse(cmd, argc, argv, opts, CLI_NOPTS(opts), 0, &first)) != CLI_GO_ON)
		return rc;
	if (first >= argc)
		return cli_usage_error(cmd,
				       "at least one input (a run of the benchmark) is required");
	if (!output)
		return cli_usage_error(cmd, "a baseline file to write is required (-o BASELINE)");
	size_t n = (size_t)(argc - first);
	if ((rc = cli_check_output(output, (const char *const *)argv + first, n,
				   TK_OUTPUT_BASELINE)) != TK_EXIT_OK)
		return rc;
	tk_check *chk = NULL;
	struct cli_run_input *in = calloc(n, sizeof(*in));
	if (tk_check_new(&chk) != TK_OK || !in) {
		cli_error("out of memory");
		rc = TK_EXIT_INTERNAL;
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		if ((rc = cli_run_input_open(argv[first + (int)i], &in[i])) != TK_EXIT_OK)
			goto out;
		int st = tk_check_add_run(chk, in[i].store, in[i].arg);
		if (st != TK_OK) {
			rc = cli_fail_error(st, tk_check_error(chk));
			goto out;
		}
	}
	rc = cli_write_atomic(output, write_baseline, chk);
	if (rc == TK_EXIT_OK)
		printf("wrote %s: a baseline of %zu run%s\n", output, n, n == 1 ? "" : "s");
out:
	for (size_t i = 0; in && i < n; i++)
		cli_run_input_close(&in[i]);
	free(in);
	tk_check_free(chk);
	return rc;
}

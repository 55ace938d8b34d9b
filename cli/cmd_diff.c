/*
 * `tracekit diff A B`: two analysed stores side by side (before, after): step times, KPIs, device
 * time, top ops and kernels with absolute and relative deltas, new and vanished ops and kernels,
 * changes beyond a threshold flagged and called better or worse. Always exits 0 when it could
 * compare (no regression gate here).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tracekit/error.h>
#include <tracekit/report.h>

#include "cli.h"
#include "options.h"

static int run(int argc, char **argv);

const struct tk_cmd tk_cmd_diff = {
    "diff",
    "compare two stores: step time, KPIs, device time, ops and kernels, better or worse",
    "usage: tracekit diff A B [--format text|json|md|html] [--threshold PCT] [-o FILE]\n"
    "                         [--no-color] [--top N] [--width N] [--full-names]\n\n"
    "Compares two analysed stores, A (before) and B (after), side by side: device and host step\n"
    "time per device (median, mean, steps), KPIs, device time, top ops (by self time) and\n"
    "kernels (by total time, over all launch configurations and devices) with B - A and the\n"
    "relative change, and the ops and kernels only one of them has (new, vanished). Changes\n"
    "larger than the threshold are flagged (up, down, new, gone) and, for metrics with a\n"
    "direction, judged in the verdict column: a time going up is worse (step times, idle,\n"
    "exposed communication and copies, op self time, kernel total time), utilization going up\n"
    "is better, each KPI by its own direction; window, busy, compute, comm, step count and the\n"
    "median kernel duration are neutral. The summary counts the changes for the worse and for\n"
    "the better over all rows.\n"
    "Runs `tracekit analyze` first on a store that has no analysis. docs/reports.md has the\n"
    "details.\n\n"
    "Options:\n"
    "  -f, --format F     text (default), json, md or html\n"
    "  --threshold PCT    relative change that is flagged, in percent (default 5)\n"
    "  -o, --output F     write to file F instead of stdout (as report -o: atomically; an\n"
    "                     existing F must be a tracekit report or diff in the same format)\n"
    "  --no-color         no colours (text is coloured only on a terminal)\n"
    "  --top N            rows per capped table (default 20)\n"
    "  --width N          text: columns to fit in (default: the terminal's, else 100)\n"
    "  --full-names       op and kernel names in full, not their short labels\n"
    "  -h, --help         this text\n\n"
    "Exit codes: 0 compared (whatever changed), 2 usage error or a file that is not a\n"
    "(supported) tracekit store, 3 internal error.\n",
    run,
};

struct pair {
	const char *a, *b;
};

static int write_diff(FILE *out, const struct tk_report_options *o, void *arg, tk_error *err)
{
	const struct pair *p = arg;
	return tk_report_diff(out, p->a, p->b, o, err);
}

static int threshold_option(const struct tk_cmd *cmd, const char *value, void *arg)
{
	struct tk_report_options *o = arg;
	char *end;
	o->threshold = strtod(value, &end) / 100.0;
	if (end == value || *end || !isfinite(o->threshold) || o->threshold <= 0 ||
	    o->threshold > 1e6)
		return cli_usage_error(cmd, "--threshold expects a percentage above 0, got '%s'",
				       value);
	return TK_EXIT_OK;
}

static int run(int argc, char **argv)
{
	const struct tk_cmd *cmd = &tk_cmd_diff;
	struct tk_report_options o;
	struct cli_report_args a = {.top = 20};
	struct cli_opt opts[CLI_REPORT_NOPTS + 2];
	int rc, first;
	tk_report_options_init(&o);
	size_t n = cli_report_opts(opts, &o, &a);
	opts[n++] = (struct cli_opt)CLI_CALL("threshold", 0, threshold_option, &o);
	opts[n++] = (struct cli_opt)CLI_HELP;
	if ((rc = cli_parse(cmd, argc, argv, opts, n, 0, &first)) != CLI_GO_ON)
		return rc;
	if (argc - first != 2)
		return cli_usage_error(cmd, "expected two stores, A (before) and B (after)");
	struct pair p = {argv[first], argv[first + 1]};
	if ((rc = cli_report_check(&a, &o, (const char *const *)&argv[first], 2)) != TK_EXIT_OK ||
	    (rc = cli_report_ensure_analysis(p.a)) != TK_EXIT_OK ||
	    (rc = cli_report_ensure_analysis(p.b)) != TK_EXIT_OK)
		return rc;
	o.top = (int)a.top;
	return cli_report_output(&a, &o, write_diff, &p);
}

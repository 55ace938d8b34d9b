/*
 * `tracekit report`: the report of a store (runs the analyses first when the store has none) in
 * text for the terminal, self-contained HTML, JSON or Markdown. Also the output handling that
 * `tracekit diff` shares (cli/cmd_diff.c): analysis on demand, -o FILE, width and colour.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <tracekit/analyze.h>
#include <tracekit/error.h>
#include <tracekit/report.h>

#include "cli.h"
#include "options.h"

static int run(int argc, char **argv);

const struct tk_cmd tk_cmd_report = {
    "report",
    "write the report of a store: text, HTML, JSON or Markdown",
    "usage: tracekit report STORE [--format text|html|json|md] [-o FILE] [--no-color]\n"
    "                             [--top N] [--width N] [--full-names]\n\n"
    "Writes the report of an analysed store (docs/reports.md): trace summary, KPIs with bands,\n"
    "findings with evidence and fixes, device time, top ops and kernels, idle gaps, memory,\n"
    "steps, communication (stragglers, clock offsets between hosts) and, for a job of several\n"
    "ranks, load balance across ranks. Runs `tracekit analyze` first when the store has no\n"
    "analysis (with its defaults: for --align-clocks or other options, run analyze first).\n"
    "Every number comes from the store's analysis_* tables (docs/metrics.md).\n\n"
    "Options:\n"
    "  -f, --format F   text (default; aligned tables), html (one self-contained file with\n"
    "                   charts and sortable tables), json (docs/report-json.md) or md\n"
    "                   (GitHub-flavoured Markdown, for CI summaries)\n"
    "  -o, --output F   write to file F instead of stdout (under a temporary name, renamed\n"
    "                   into place; an existing F is replaced only when it is a tracekit\n"
    "                   report or diff in the same format, never when it is the store)\n"
    "  --no-color       no colours (text is coloured only on a terminal; NO_COLOR is honoured)\n"
    "  --top N          rows per capped table (default 20)\n"
    "  --width N        text: columns to fit in (default: the terminal's, else 100)\n"
    "  --full-names     op and kernel names in full; by default they are shown by short\n"
    "                   labels that stay distinct (HTML: full name on hover; JSON: both)\n"
    "  -h, --help       this text\n\n"
    "Devices are named as the trace names them (\"GPU 1 (rank 1)\"), processes by pid.\n\n"
    "Exit codes: 0 done, 2 usage error or a file that is not a (supported) tracekit store,\n"
    "3 internal error.\n",
    run,
};

/*
 * Shared with cli/cmd_diff.c (declared there too): analyse @path when it has no analysis_* tables
 * yet; returns an exit code.
 */
int cli_report_ensure_analysis(const char *path)
{
	tk_error *err = tk_error_new();
	int has = 0, rc = tk_report_has_analysis(path, &has, err);
	if (rc != TK_OK || has == 1)
		goto out;
	if (has == 2)
		fprintf(stderr,
			"tracekit: '%s' was analysed by an older tracekit: running analyze again\n",
			path);
	else
		fprintf(stderr, "tracekit: '%s' has no analysis yet: running analyze first\n",
			path);
	rc = tk_analyze(path, NULL, err);
out:;
	int code = rc == TK_OK ? TK_EXIT_OK : cli_fail_error(rc, err);
	tk_error_free(err);
	return code;
}

/* The text width: --width, else the terminal's (COLUMNS, then the tty size), else 100. */
static int text_width(int64_t asked, int to_tty)
{
	if (asked > 0)
		return (int)asked;
	if (to_tty) {
		const char *cols = getenv("COLUMNS");
		int n = cols ? atoi(cols) : 0;
		struct winsize ws;
		if (n >= 20 && n <= 1000)
			return n;
		if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 20)
			return ws.ws_col;
	}
	return 100;
}

static int format_option(const struct tk_cmd *cmd, const char *value, void *arg)
{
	struct tk_report_options *o = arg;
	if (tk_report_format_parse(value, &o->format) != TK_OK)
		return cli_usage_error(cmd, "--format expects text, html, json or md, got '%s'",
				       value);
	return TK_EXIT_OK;
}

/* Shared with cli/cmd_diff.c: the options both take (options.h). */
size_t cli_report_opts(struct cli_opt *v, struct tk_report_options *o, struct cli_report_args *a)
{
	const struct cli_opt opts[CLI_REPORT_NOPTS] = {
	    CLI_CALL("format", 'f', format_option, o), CLI_STR("output", 'o', &a->output),
	    CLI_FLAG("no-color", 0, &a->no_color),     CLI_FLAG("no-colour", 0, &a->no_color),
	    CLI_I64("top", &a->top, 1, 100000),	       CLI_I64("width", &a->width, 40, 1000),
	    CLI_FLAG("full-names", 0, &o->full_names),
	};
	memcpy(v, opts, sizeof(opts));
	return CLI_REPORT_NOPTS;
}

/* Shared with cli/cmd_diff.c: the -o check, before the stores are analysed (cli.h). */
int cli_report_check(const struct cli_report_args *a, const struct tk_report_options *o,
		     const char *const *inputs, size_t n)
{
	static const enum tk_output_kind kinds[] = {
	    [TK_REPORT_TEXT] = TK_OUTPUT_REPORT_TEXT,
	    [TK_REPORT_HTML] = TK_OUTPUT_REPORT_HTML,
	    [TK_REPORT_JSON] = TK_OUTPUT_REPORT_JSON,
	    [TK_REPORT_MD] = TK_OUTPUT_REPORT_MD,
	};
	if (!a->output)
		return TK_EXIT_OK;
	return cli_check_output(a->output, inputs, n, kinds[o->format]);
}

/* A report writer with its options, for cli_write_atomic. */
struct report_write {
	int (*write)(FILE *out, const struct tk_report_options *o, void *arg, tk_error *err);
	const struct tk_report_options *o;
	void *arg;
};

static int write_to_file(FILE *out, void *arg, tk_error *err)
{
	const struct report_write *w = arg;
	return w->write(out, w->o, w->arg, err);
}

/*
 * Shared with cli/cmd_diff.c: fill in width and colour, call @write on stdout or on a temporary
 * file renamed onto -o FILE when complete (removed on failure, FILE left as it was).
 */
int cli_report_output(const struct cli_report_args *a, struct tk_report_options *o,
		      int (*write)(FILE *out, const struct tk_report_options *o, void *arg,
				   tk_error *err),
		      void *arg)
{
	int to_tty = !a->output && isatty(STDOUT_FILENO);
	o->width = text_width(a->width, to_tty);
	o->color = o->format == TK_REPORT_TEXT && to_tty && !a->no_color && !getenv("NO_COLOR");
	if (!a->output) {
		tk_error *err = tk_error_new();
		int rc = write(stdout, o, arg, err);
		int code = rc == TK_OK ? TK_EXIT_OK : cli_fail_error(rc, err);
		tk_error_free(err);
		return code;
	}
	struct report_write w = {write, o, arg};
	return cli_write_atomic(a->output, write_to_file, &w);
}

static int write_report(FILE *out, const struct tk_report_options *o, void *arg, tk_error *err)
{
	return tk_report_write(out, (const char *)arg, o, err);
}

static int run(int argc, char **argv)
{
	const struct tk_cmd *cmd = &tk_cmd_report;
	struct tk_report_options o;
	struct cli_report_args a = {.top = 20};
	struct cli_opt opts[CLI_REPORT_NOPTS + 1];
	int rc, first;
	tk_report_options_init(&o);
	size_t n = cli_report_opts(opts, &o, &a);
	opts[n++] = (struct cli_opt)CLI_HELP;
	if ((rc = cli_parse(cmd, argc, argv, opts, n, 0, &first)) != CLI_GO_ON)
		return rc;
	if (argc - first != 1)
		return cli_usage_error(cmd, "expected one store");
	const char *path = argv[first];
	if ((rc = cli_report_check(&a, &o, (const char *const *)&argv[first], 1)) != TK_EXIT_OK ||
	    (rc = cli_report_ensure_analysis(path)) != TK_EXIT_OK)
		return rc;
	o.top = (int)a.top;
	return cli_report_output(&a, &o, write_report, (void *)path);
}

/* Shared declarations of the tracekit command line: the command table and small helpers. */
#ifndef TK_CLI_H
#define TK_CLI_H

#include <stdint.h>
#include <stdio.h>
#include <tracekit/error.h>
#include <tracekit/output.h>
#include <tracekit/store.h>

/* Exit codes (DESIGN.md): part of the interface, tested. */
enum {
	TK_EXIT_OK = 0,		/* success */
	TK_EXIT_REGRESSION = 1, /* check found a regression */
	TK_EXIT_USAGE = 2,	/* usage or input error */
	TK_EXIT_INTERNAL = 3,	/* internal error */
};

struct tk_cmd {
	const char *name;
	const char *summary;
	const char *usage; /* full --help text */
	int (*run)(int argc, char **argv);
};

extern const struct tk_cmd tk_cmd_import, tk_cmd_ls, tk_cmd_synth, tk_cmd_info, tk_cmd_query,
    tk_cmd_analyze;

/* Print "tracekit: <message>" on stderr (or append it to the capture buffer). */
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* From now on cli_error() appends its messages (a line each, no prefix) to @buf of @size bytes,
 * emptied here, instead of printing them; NULL prints again. The MPI mode sends them to rank 0. */
void cli_error_capture(char *buf, size_t size);

/* Print a command's usage to stdout (for --help) and return 0. */
int cli_help(const struct tk_cmd *cmd);

/* Print "tracekit <cmd>: <message>" and a hint to run --help; returns TK_EXIT_USAGE. */
int cli_usage_error(const struct tk_cmd *cmd, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* The usage error for getopt_long's ':' (missing value) or '?' (unknown option) in @c. */
int cli_option_error(const struct tk_cmd *cmd, int c, char **argv);

/* Report a writer's failure (its error, or @status's text), abort it; returns the exit code. */
int cli_fail_writer(int status, tk_writer *w);

/*
 * Remove @path if SIGINT, SIGTERM or SIGHUP arrives (then die of that signal as usual), so an
 * interrupted import leaves no temporary store behind; NULL stops it.
 */
void cli_remove_on_signal(const char *path);

/*
 * The check every command that writes a file runs before any work (tk_output_check): @output
 * must not be one of the @n @inputs nor an existing file of another kind than @kind. Prints
 * the refusal; returns TK_EXIT_OK or the exit code (2).
 */
int cli_check_output(const char *output, const char *const *inputs, size_t n,
		     enum tk_output_kind kind);

/*
 * Write @path through @write on a temporary file beside it, renamed into place when complete
 * (removed on failure, @path left as it was); an exit code, the problem printed.
 */
int cli_write_atomic(const char *path, int (*write)(FILE *out, void *arg, tk_error *err),
		     void *arg);

/* Parse an integer option value in [min, max]; on error prints and returns TK_EXIT_USAGE. */
int cli_parse_int(const struct tk_cmd *cmd, const char *opt, const char *text, int64_t min,
		  int64_t max, int64_t *out);

/* Report a library status with its message: prints, returns the exit code for it. */
int cli_fail(int status, const char *message);

/* Report a library status with its error (tk_error_message(), or @status's text when empty):
 * prints, returns the exit code for @status. */
int cli_fail_error(int status, const tk_error *err);

/* ---- importing (cli/import_inputs.c) ---- */
struct tk_import_options;
struct tk_writer_stats;

/* cli_neither_logdir_nor_ranks() - @err: the directory @dir holds neither a logdir's run (why:
 * @xerr, from tk_xplane_list_runs()) nor a JSON trace. Returns TK_ENOTFOUND. */
int cli_neither_logdir_nor_ranks(const char *dir, const tk_error *xerr, tk_error *err);

/*
 * Import @n inputs (trace files, XPlane files, logdirs, rank directories; @run_name picks a
 * logdir's run) into the new store @output as `tracekit import` does: an input given twice is
 * refused, nothing is left at @output on failure. Prints what went wrong; returns an exit code.
 * @o->warn defaults to printing warnings on stderr. @jobs files are parsed at once (0: one per
 * core; the store is the same whatever the number).
 */
int cli_import(const char *output, const char *const *inputs, size_t n, const char *run_name,
	       struct tk_import_options *o, int jobs, struct tk_writer_stats *st);

/* One file of the inputs of `import` (cli_import_files()). */
struct cli_import_file {
	char *path;
	int json;	/* Chrome/Kineto JSON (else XPlane) */
	int file_index; /* the position of its input: what a JSON file's rank falls back on */
};

/*
 * The files `import` reads from @inputs, in its order (a file as it is, a logdir as the host
 * files of its run, a rank directory as its JSON traces), with its refusals (a file twice, two
 * JSON traces of one rank under @o's --rank). Prints what went wrong; an exit code. Free *@out
 * with cli_import_files_free().
 */
int cli_import_files(const char *const *inputs, size_t n, const char *run_name,
		     const struct tk_import_options *o, struct cli_import_file **out, size_t *nout);
void cli_import_files_free(struct cli_import_file *f, size_t n);

/* One run given to `baseline` or `check`: a store (analysed in place when it has no current
 * analysis) or a trace/logdir imported and analysed into a temporary store. */
struct cli_run_input {
	const char *arg;   /* as given */
	const char *store; /* the analysed store to read */
	char dir[4096];	   /* the temporary directory, "" when none */
	char path[4200];   /* the temporary store */
};

/* Prepare @arg; an exit code (the problem printed). Close even after a failure. */
int cli_run_input_open(const char *arg, struct cli_run_input *in);
void cli_run_input_close(struct cli_run_input *in);

/* ---- what `report` and `diff` share (cli/cmd_report.c) ---- */
struct tk_report_options;
struct cli_report_args {
	const char *output; /* -o FILE, or NULL for stdout */
	int no_color;
	int64_t top, width;
};

/* Run the analyses on @path when it has none yet; an exit code. */
int cli_report_ensure_analysis(const char *path);

/* cli_check_output for a's -o FILE (none: stdout) in o's format, before the inputs are read. */
int cli_report_check(const struct cli_report_args *a, const struct tk_report_options *o,
		     const char *const *inputs, size_t n);

/*
 * Write through @write to a's output: stdout, or -o FILE written under a temporary name and
 * renamed into place (a failure leaves FILE as it was); an exit code.
 */
int cli_report_output(const struct cli_report_args *a, struct tk_report_options *o,
		      int (*write)(FILE *out, const struct tk_report_options *o, void *arg,
				   tk_error *err),
		      void *arg);

#endif

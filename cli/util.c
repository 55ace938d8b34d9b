/* Small helpers shared by the command files: errors, usage, option value parsing. */
#include "cli.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <tracekit/error.h>
#include <tracekit/output.h>

/* Where cli_error() writes while captured (cli_error_capture()), else NULL: stderr. */
static char *capture_buf;
static size_t capture_size;

void cli_error_capture(char *buf, size_t size)
{
	capture_buf = buf && size ? buf : NULL;
	capture_size = capture_buf ? size : 0;
	if (capture_buf)
		capture_buf[0] = '\0';
}

void cli_error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	if (capture_buf) { /* appended, one message a line, cut at the buffer's end */
		size_t len = strlen(capture_buf);
		if (len && len + 1 < capture_size)
			capture_buf[len++] = '\n';
		if (len + 1 < capture_size)
			vsnprintf(capture_buf + len, capture_size - len, fmt, ap);
	} else {
		fputs("tracekit: ", stderr);
		vfprintf(stderr, fmt, ap);
		fputc('\n', stderr);
	}
	va_end(ap);
}

int cli_help(const struct tk_cmd *cmd)
{
	fputs(cmd->usage, stdout);
	return TK_EXIT_OK;
}

int cli_usage_error(const struct tk_cmd *cmd, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "tracekit %s: ", cmd->name);
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\nRun 'tracekit %s --help' for usage.\n", cmd->name);
	va_end(ap);
	return TK_EXIT_USAGE;
}

int cli_option_error(const struct tk_cmd *cmd, int c, char **argv)
{
	const char *opt = optind > 0 ? argv[optind - 1] : "?";
	if (c == ':')
		return cli_usage_error(cmd, "option '%s' needs a value", opt);
	return cli_usage_error(cmd, "unknown option '%s'", opt);
}

/* The file to remove on a fatal signal: a copy, so that the handler never reads freed memory. */
static char doomed_path[4096];
static volatile sig_atomic_t doomed_set;

static void remove_and_die(int sig)
{
	if (doomed_set)
		unlink(doomed_path);
	signal(sig, SIG_DFL);
	raise(sig);
}

void cli_remove_on_signal(const char *path)
{
	static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
	doomed_set = 0;
	if (!path || !*path || strlen(path) >= sizeof(doomed_path))
		return;
	memcpy(doomed_path, path, strlen(path) + 1);
	doomed_set = 1;
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		struct sigaction sa;
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = remove_and_die;
		sigemptyset(&sa.sa_mask);
		sigaction(sigs[i], &sa, NULL);
	}
}

int cli_fail_writer(int status, tk_writer *w)
{
	int code = cli_fail_error(status, tk_writer_error(w));
	cli_remove_on_signal(NULL);
	tk_writer_abort(w);
	return code;
}

int cli_check_output(const char *output, const char *const *inputs, size_t n,
		     enum tk_output_kind kind)
{
	tk_error *err = tk_error_new();
	int rc = tk_output_check(output, inputs, n, kind, err);
	int code = rc == TK_OK ? TK_EXIT_OK : cli_fail_error(rc, err);
	tk_error_free(err);
	return code;
}

int cli_parse_int(const struct tk_cmd *cmd, const char *opt, const char *text, int64_t min,
		  int64_t max, int64_t *out)
{
	char *end;
	errno = 0;
	long long v = strtoll(text, &end, 0);
	if (errno || end == text || *end || v < min || v > max)
		return cli_usage_error(cmd, "%s expects an integer from %lld to %lld, got '%s'",
				       opt, (long long)min, (long long)max, text);
	*out = v;
	return TK_EXIT_OK;
}

int cli_fail(int status, const char *message)
{
	cli_error("%s", message && *message ? message : tk_strerror(status));
	return tk_exit_code(status);
}

int cli_fail_error(int status, const tk_error *err)
{
	return cli_fail(status, tk_error_message(err));
}

int cli_write_atomic(const char *path, int (*write)(FILE *out, void *arg, tk_error *err), void *arg)
{
	tk_error *err = tk_error_new();
	tk_output *f = NULL;
	int rc = tk_output_open(path, &f);
	cli_remove_on_signal(tk_output_temp_path(f));
	if (rc == TK_OK && (rc = write(tk_output_stream(f), arg, err)) == TK_OK &&
	    (rc = tk_output_commit(f)) != TK_OK)
		tk_error_copy(err, tk_output_error(f));
	else if (rc != TK_OK && !tk_error_cause_count(err))
		tk_error_copy(err, tk_output_error(f));
	cli_remove_on_signal(NULL);
	tk_output_close(f);
	int code = rc == TK_OK ? TK_EXIT_OK : cli_fail_error(rc, err);
	tk_error_free(err);
	return code;
}

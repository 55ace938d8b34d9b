/* Small helpers shared by the command files: errors, usage, option value parsing. */
#include "cli.h"

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <tracekit/error.h>

void cli_error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("tracekit: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
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

int cli_fail_writer(int status, tk_writer *w)
{
	int code = cli_fail(status, tk_writer_errmsg(w));
	tk_writer_abort(w);
	return code;
}

int cli_parse_int(const struct tk_cmd *cmd, const char *opt, const char *text, int64_t min,
		  int64_t max, int64_t *out)
{
	char *end;
	errno = 0;
	long long v = strtoll(text, &end, 0);
	if (errno || end == text || *end || v < min || v > max)
		return cli_usage_error(cmd, "%s expects an integer from %lld to %lld, got '%s'", opt,
				       (long long)min, (long long)max, text);
	*out = v;
	return TK_EXIT_OK;
}

int cli_fail(int status, const char *message)
{
	cli_error("%s", message && *message ? message : tk_strerror(status));
	return tk_exit_code(status);
}

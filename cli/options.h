/*
 * The commands' option tables: each command lists its options once (long name, short letter,
 * what the option sets or the function it calls) and cli_parse() does the rest with getopt_long:
 * the values into their variables, the integer range checks, --help, and the "unknown option" /
 * "needs a value" usage errors. The --help texts stay the commands' own (struct tk_cmd usage).
 *
 *	int quiet = 0;
 *	const char *output = NULL;
 *	const struct cli_opt opts[] = {
 *	    CLI_STR("output", 'o', &output),
 *	    CLI_FLAG("quiet", 0, &quiet),
 *	    CLI_HELP,
 *	};
 *	int first;
 *	if ((rc = cli_parse(cmd, argc, argv, opts, CLI_NOPTS(opts), 0, &first)) != CLI_GO_ON)
 *		return rc;
 *	// argv[first..argc) are the operands
 */
#ifndef TK_CLI_OPTIONS_H
#define TK_CLI_OPTIONS_H

#include <stddef.h>
#include <stdint.h>

#include "cli.h"

enum cli_opt_kind {
	CLI_OPT_HELP, /* print the command's usage and stop with exit 0 */
	CLI_OPT_FLAG, /* no value: *flag = 1 */
	CLI_OPT_STR,  /* *str = the value */
	CLI_OPT_I64,  /* *i64 = the value, an integer in [min, max] (cli_parse_int's message) */
	CLI_OPT_INT,  /* as CLI_OPT_I64 into an int */
	CLI_OPT_U64,  /* as CLI_OPT_I64 into a uint64_t */
	CLI_OPT_CALL, /* call(cmd, value, arg): an exit code, after printing a usage error */
};

struct cli_opt {
	const char *name; /* long name, without "--" */
	char letter;	  /* the short option -letter too, or 0 */
	enum cli_opt_kind kind;
	union { /* where the value goes, by kind */
		int *flag;
		const char **str;
		int64_t *i64;
		int *i32;
		uint64_t *u64;
		void *arg; /* CLI_OPT_CALL: passed to call */
	};
	int64_t min, max; /* integer kinds: the accepted range */
	int (*call)(const struct tk_cmd *cmd, const char *value, void *arg);
};

#define CLI_HELP                                                    \
	{                                                           \
		.name = "help", .letter = 'h', .kind = CLI_OPT_HELP \
	}
#define CLI_FLAG(n, l, p)                                                     \
	{                                                                     \
		.name = (n), .letter = (l), .kind = CLI_OPT_FLAG, .flag = (p) \
	}
#define CLI_STR(n, l, p)                                                    \
	{                                                                   \
		.name = (n), .letter = (l), .kind = CLI_OPT_STR, .str = (p) \
	}
#define CLI_I64(n, p, lo, hi)                                                          \
	{                                                                              \
		.name = (n), .kind = CLI_OPT_I64, .i64 = (p), .min = (lo), .max = (hi) \
	}
#define CLI_INT(n, p, lo, hi)                                                          \
	{                                                                              \
		.name = (n), .kind = CLI_OPT_INT, .i32 = (p), .min = (lo), .max = (hi) \
	}
#define CLI_U64(n, p, lo, hi)                                                          \
	{                                                                              \
		.name = (n), .kind = CLI_OPT_U64, .u64 = (p), .min = (lo), .max = (hi) \
	}
#define CLI_CALL(n, l, fn, a)                                                              \
	{                                                                                  \
		.name = (n), .letter = (l), .kind = CLI_OPT_CALL, .arg = (a), .call = (fn) \
	}

#define CLI_NOPTS(v) (sizeof(v) / sizeof((v)[0]))

#define CLI_GO_ON (-1)	       /* cli_parse(): parsed, the command goes on */
#define CLI_STOP_AT_OPERAND 1u /* cli_parse() flag: options end at the first operand (getopt '+') */

/**
 * cli_parse() - parse @argv (argv[0] the command name) by the @n options of @opts, in order.
 * @param first  OUT: index of the first operand in @argv
 * @return CLI_GO_ON, or the exit code to return: TK_EXIT_OK after --help, TK_EXIT_USAGE (or a
 *         callback's code) after printing the usage error
 */
int cli_parse(const struct tk_cmd *cmd, int argc, char **argv, const struct cli_opt *opts, size_t n,
	      unsigned flags, int *first);

/* ---- the options report and diff share (cli/cmd_report.c) ---- */
struct tk_report_options;
struct cli_report_args;

#define CLI_REPORT_NOPTS 7

/* cli_report_opts() - the CLI_REPORT_NOPTS options of report and diff (--format, -o, --no-color,
 * --top, --width, --full-names) into @v, setting @o and @a; returns CLI_REPORT_NOPTS. */
size_t cli_report_opts(struct cli_opt *v, struct tk_report_options *o, struct cli_report_args *a);

#endif

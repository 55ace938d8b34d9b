/* The commands' option parser (options.h): an option table to getopt_long and back. */
#include "options.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

#define MAX_OPTS 32
#define LONG_ONLY 256 /* getopt_long's code for a long-only option: LONG_ONLY + its index */

static int has_value(const struct cli_opt *o)
{
	return o->kind != CLI_OPT_HELP && o->kind != CLI_OPT_FLAG;
}

/* Whether @a and @b do the same (two names of one option). */
static int same_target(const struct cli_opt *a, const struct cli_opt *b)
{
	return a->kind == b->kind && a->arg == b->arg && a->call == b->call && a->min == b->min &&
	       a->max == b->max;
}

/* Apply option @o with value @value; CLI_GO_ON or an exit code. */
static int apply(const struct tk_cmd *cmd, const struct cli_opt *o, const char *value)
{
	char opt[64];
	int64_t v;
	int rc;
	snprintf(opt, sizeof(opt), "--%s", o->name);
	switch (o->kind) {
	case CLI_OPT_HELP:
		return cli_help(cmd);
	case CLI_OPT_FLAG:
		*o->flag = 1;
		return CLI_GO_ON;
	case CLI_OPT_STR:
		*o->str = value;
		return CLI_GO_ON;
	case CLI_OPT_CALL:
		rc = o->call(cmd, value, o->arg);
		return rc == TK_EXIT_OK ? CLI_GO_ON : rc;
	case CLI_OPT_I64:
	case CLI_OPT_INT:
	case CLI_OPT_U64:
		if ((rc = cli_parse_int(cmd, opt, value, o->min, o->max, &v)) != TK_EXIT_OK)
			return rc;
		if (o->kind == CLI_OPT_I64)
			*o->i64 = v;
		else if (o->kind == CLI_OPT_INT)
			*o->i32 = (int)v;
		else
			*o->u64 = (uint64_t)v;
		return CLI_GO_ON;
	}
	return TK_EXIT_INTERNAL;
}

int cli_parse(const struct tk_cmd *cmd, int argc, char **argv, const struct cli_opt *opts, size_t n,
	      unsigned flags, int *first)
{
	struct option longopts[MAX_OPTS + 1];
	char shorts[2 * MAX_OPTS + 3], *s = shorts;
	int c, rc = CLI_GO_ON;
	if (n > MAX_OPTS)
		return TK_EXIT_INTERNAL;
	if (flags & CLI_STOP_AT_OPERAND)
		*s++ = '+';
	*s++ = ':'; /* no messages from getopt: ':' for a missing value, '?' for the rest */
	for (size_t i = 0; i < n; i++) {
		longopts[i].name = opts[i].name;
		longopts[i].has_arg = has_value(&opts[i]) ? required_argument : no_argument;
		longopts[i].flag = NULL;
		longopts[i].val = opts[i].letter ? opts[i].letter : LONG_ONLY + (int)i;
		/* an alias (--no-colour) shares the code: an abbreviation of both is no ambiguity */
		for (size_t j = 0; j < i && !opts[i].letter; j++)
			if (same_target(&opts[i], &opts[j]))
				longopts[i].val = longopts[j].val;
		if (opts[i].letter) {
			*s++ = opts[i].letter;
			if (has_value(&opts[i]))
				*s++ = ':';
		}
	}
	memset(&longopts[n], 0, sizeof(longopts[n]));
	*s = '\0';
	optind = 0;
	opterr = 0;
	while (rc == CLI_GO_ON && (c = getopt_long(argc, argv, shorts, longopts, NULL)) != -1) {
		const struct cli_opt *o = NULL;
		if (c >= LONG_ONLY && (size_t)(c - LONG_ONLY) < n)
			o = &opts[c - LONG_ONLY]; /* (an alias's first name) */
		for (size_t i = 0; !o && c != ':' && c != '?' && i < n; i++)
			if (opts[i].letter == c)
				o = &opts[i];
		rc = o ? apply(cmd, o, optarg) : cli_option_error(cmd, c, argv);
	}
	*first = optind;
	return rc;
}

/* tracekit command-line entry point: the command table, `help`, `--version`, dispatch. */
#include <stdio.h>
#include <string.h>
#include <tracekit/version.h>

#include "cli.h"

extern const struct tk_cmd tk_cmd_export;		  /* cli/cmd_export.c */
extern const struct tk_cmd tk_cmd_record;		  /* cli/cmd_record.c */
extern const struct tk_cmd tk_cmd_report, tk_cmd_diff;	  /* cli/cmd_report.c, cmd_diff.c */
extern const struct tk_cmd tk_cmd_baseline, tk_cmd_check; /* cli/cmd_baseline.c, cmd_check.c */
extern const struct tk_cmd tk_cmd_merge;		  /* cli/cmd_merge.c */

static const struct tk_cmd *const commands[] = {
    &tk_cmd_import, &tk_cmd_merge,    &tk_cmd_ls,     &tk_cmd_synth,  &tk_cmd_info,
    &tk_cmd_query,  &tk_cmd_analyze,  &tk_cmd_export, &tk_cmd_record, &tk_cmd_report,
    &tk_cmd_diff,   &tk_cmd_baseline, &tk_cmd_check,
};
#define N_COMMANDS (sizeof(commands) / sizeof(commands[0]))

static void print_overview(FILE *out)
{
	fputs("usage: tracekit <command> [options]\n"
	      "       tracekit help <command>\n"
	      "       tracekit --version\n\n"
	      "Commands:\n",
	      out);
	for (size_t i = 0; i < N_COMMANDS; i++)
		fprintf(out, "  %-9s %s\n", commands[i]->name, commands[i]->summary);
	fputs("\nExit codes: 0 success, 1 regression found (check), 2 usage or input error,\n"
	      "3 internal error.\n",
	      out);
}

static const struct tk_cmd *find_command(const char *name)
{
	for (size_t i = 0; i < N_COMMANDS; i++)
		if (strcmp(commands[i]->name, name) == 0)
			return commands[i];
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		print_overview(stderr);
		return TK_EXIT_USAGE;
	}
	const char *name = argv[1];
	if (!strcmp(name, "--version") || !strcmp(name, "version")) {
		printf("tracekit %s\n%s", tk_version(), tk_build_features());
		return TK_EXIT_OK;
	}
	if (!strcmp(name, "help") || !strcmp(name, "--help") || !strcmp(name, "-h")) {
		if (argc > 2) {
			const struct tk_cmd *cmd = find_command(argv[2]);
			if (!cmd) {
				cli_error("unknown command '%s' (run 'tracekit help')", argv[2]);
				return TK_EXIT_USAGE;
			}
			return cli_help(cmd);
		}
		print_overview(stdout);
		return TK_EXIT_OK;
	}
	const struct tk_cmd *cmd = find_command(name);
	if (!cmd) {
		cli_error("unknown command '%s' (run 'tracekit help')", name);
		return TK_EXIT_USAGE;
	}
	return cmd->run(argc - 1, argv + 1);
}

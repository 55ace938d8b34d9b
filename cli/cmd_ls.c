/* PLACEHOLDER `tracekit ls`, replaced by the XPlane importer work. */
#include <stdio.h>

#include "cli.h"

static int run(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	cli_error("ls is not built yet");
	return TK_EXIT_USAGE;
}

const struct tk_cmd tk_cmd_ls = {"ls", "list the profile runs of a TensorBoard logdir, newest first",
				 "usage: tracekit ls LOGDIR\n", run};

/* `tracekit import`: XPlane files, TensorBoard logdirs and Chrome/Kineto JSON into one new store. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <tracekit/error.h>
#include <tracekit/import.h>
#include <tracekit/store.h>

#include "cli.h"

static int run(int argc, char **argv);

const struct tk_cmd tk_cmd_import = {
    "import",
    "import XPlane files/logdirs and Chrome/Kineto JSON traces into a store",
    "usage: tracekit import INPUT... -o STORE [--run NAME] [--rank N] [--salvage]\n\n"
    "Each INPUT is an .xplane.pb file, a TensorBoard logdir or run directory\n"
    "(<logdir>/plugins/profile/<run>/<host>.xplane.pb: every host file of the newest run, or of\n"
    "--run NAME), or a Chrome trace / Kineto JSON file (.json or .json.gz). Formats are told by\n"
    "content, not by name. All inputs go into one store, written atomically: on any error nothing\n"
    "is left at STORE. Refused with exit 2: an input given twice (the same file by any path or\n"
    "link, a copy of a JSON trace, an .xplane.pb beside its logdir) and JSON that is not a trace\n"
    "(no traceEvents array). A trace without device work imports with a warning.\n\n"
    "Options:\n"
    "  -o, --output STORE  store to write (replaced when it exists and the import succeeds;\n"
    "                      never an input, nor an existing file that is not a tracekit store)\n"
    "  --run NAME          the run to import from a logdir (default: the newest; see tracekit ls)\n"
    "  --salvage           JSON: keep every complete event before the break of a truncated or\n"
    "                      broken trace (a crashed run's file) and say where it stopped\n"
    "  --rank N            rank of the first JSON file that does not state its own (the next\n"
    "                      files get N+1, N+2, ...; default: file order from 0)\n"
    "  -h, --help          this text\n",
    run,
};

static int run(int argc, char **argv)
{
	static const struct option longopts[] = {
	    {"output", required_argument, NULL, 'o'},
	    {"run", required_argument, NULL, 'r'},
	    {"rank", required_argument, NULL, 'k'},
	    {"salvage", no_argument, NULL, 's'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	const struct tk_cmd *cmd = &tk_cmd_import;
	const char *output = NULL, *run_name = NULL;
	struct tk_import_options o;
	tk_import_options_init(&o);
	int c, rc;
	int64_t v;
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":o:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			output = optarg;
			break;
		case 'r':
			run_name = optarg;
			break;
		case 'k':
			if ((rc = cli_parse_int(cmd, "--rank", optarg, 0, 1000000000, &v)))
				return rc;
			o.rank = v;
			break;
		case 's':
			o.salvage = 1;
			break;
		case 'h':
			return cli_help(cmd);
		default:
			return cli_option_error(cmd, c, argv);
		}
	}
	if (optind >= argc)
		return cli_usage_error(cmd, "at least one input is required");
	if (!output)
		return cli_usage_error(cmd, "an output store is required (-o STORE)");
	if ((rc = cli_check_output(output, (const char *const *)argv + optind,
				   (size_t)(argc - optind), TK_OUTPUT_STORE)) != TK_EXIT_OK)
		return rc;

	struct tk_writer_stats st;
	if ((rc = cli_import(output, (const char *const *)argv + optind, (size_t)(argc - optind),
			     run_name, &o, &st)) != TK_EXIT_OK)
		return rc;
	printf(
	    "wrote %s: %lld events (%lld kernels, %lld copies, %lld memsets), %lld memory events, "
	    "%lld counter samples, %lld flows\n",
	    output, (long long)st.events, (long long)st.kernels, (long long)st.memcpys,
	    (long long)st.memsets, (long long)st.memory_events, (long long)st.counter_samples,
	    (long long)st.flows);
	return TK_EXIT_OK;
}

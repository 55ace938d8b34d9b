/* `tracekit import`: XPlane files, TensorBoard logdirs and Chrome/Kineto JSON into one new store. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <tracekit/analyze.h>
#include <tracekit/error.h>
#include <tracekit/import.h>
#include <tracekit/store.h>

#include "cli.h"
#include "mpi_job.h"
#include "options.h"

static int run(int argc, char **argv);

const struct tk_cmd tk_cmd_import = {
    "import",
    "import XPlane files/logdirs and Chrome/Kineto JSON traces into a store",
    "usage: tracekit import INPUT... -o STORE [--run NAME] [--rank N] [--salvage] [--jobs N]\n"
    "       mpirun -np K tracekit import INPUT... -o JOB --mpi [--store-dir DIR]\n\n"
    "Each INPUT is an .xplane.pb file, a TensorBoard logdir or run directory\n"
    "(<logdir>/plugins/profile/<run>/<host>.xplane.pb: every host file of the newest run, or of\n"
    "--run NAME), or a Chrome trace / Kineto JSON file (.json or .json.gz). Formats are told by\n"
    "content, not by name. A directory that is no logdir is a rank directory: every JSON trace\n"
    "under it (*.json, *.json.gz, in subdirectories too; other files left out), by the rank it\n"
    "states (distributedInfo), then by path with numbers in order (see tracekit ls DIR). All\n"
    "inputs go into one store, written atomically: on any error nothing is left at STORE.\n"
    "Refused with exit 2: an input given twice (the same file by any path or link, a copy of a\n"
    "JSON trace, an .xplane.pb beside its logdir), two JSON traces of one rank, and JSON that\n"
    "is not a trace (no traceEvents array). A trace without device work imports with a\n"
    "warning.\n\n"
    "Options:\n"
    "  -o, --output STORE  store to write (replaced when it exists and the import succeeds;\n"
    "                      never an input, nor an existing file that is not a tracekit store)\n"
    "  --run NAME          the run to import from a logdir (default: the newest; see tracekit ls)\n"
    "  --salvage           JSON: keep every complete event before the break of a truncated or\n"
    "                      broken trace (a crashed run's file) and say where it stopped\n"
    "  --rank N            rank of the first JSON file that does not state its own (the next\n"
    "                      files get N+1, N+2, ...; default: file order from 0; each file of\n"
    "                      a rank directory counts as one input)\n"
    "  --jobs N            input files parsed at once, each on its own thread, while one\n"
    "                      thread writes the store (default: the cores this process may use);\n"
    "                      the store, warnings and errors are the same for every N\n"
    "  --mpi               under mpirun or srun: the input files are shared out by bytes\n"
    "                      among the MPI processes; each imports and analyses its files into\n"
    "                      per-rank stores (FILE.tkdb beside each, or in --store-dir) and sends\n"
    "                      their summary to rank 0, which writes the job summary JOB and\n"
    "                      analyses it (docs/scale.md)\n"
    "  --store-dir DIR     --mpi: the per-rank stores go into DIR (made when missing) as\n"
    "                      NNNN-FILE.tkdb, NNNN the file's place among the inputs\n"
    "  -h, --help          this text\n",
    run,
};

static int run(int argc, char **argv)
{
	const struct tk_cmd *cmd = &tk_cmd_import;
	const char *output = NULL, *run_name = NULL, *store_dir = NULL;
	int mpi = 0;
	struct tk_import_options o;
	int jobs = 0;
	tk_import_options_init(&o);
	const struct cli_opt opts[] = {
	    CLI_STR("output", 'o', &output),
	    CLI_STR("run", 0, &run_name),
	    CLI_I64("rank", &o.rank, 0, 1000000000),
	    CLI_FLAG("salvage", 0, &o.salvage),
	    CLI_INT("jobs", &jobs, 1, 4096), /* 0 (not given): one per core */
	    CLI_FLAG("mpi", 0, &mpi),
	    CLI_STR("store-dir", 0, &store_dir),
	    CLI_HELP,
	};
	int rc, first;
	if ((rc = cli_parse(cmd, argc, argv, opts, CLI_NOPTS(opts), 0, &first)) != CLI_GO_ON)
		return rc;
	if (first >= argc)
		return cli_usage_error(cmd, "at least one input is required");
	if (!output)
		return cli_usage_error(cmd, "an output store is required (-o STORE)");
	if (store_dir && !mpi)
		return cli_usage_error(cmd, "--store-dir goes with --mpi");
	if (jobs && mpi)
		return cli_usage_error(
		    cmd, "--jobs goes without --mpi (an MPI process imports one file at a time)");
	if (mpi) {
		struct tk_analyze_options ao;
		tk_analyze_options_init(&ao);
		struct cli_mpi_job job = {.import = 1,
					  .output = output,
					  .inputs = (const char *const *)argv + first,
					  .n = (size_t)(argc - first),
					  .run_name = run_name,
					  .store_dir = store_dir,
					  .io = &o,
					  .ao = &ao};
		return cli_mpi_run(&job);
	}
	if ((rc = cli_check_output(output, (const char *const *)argv + first,
				   (size_t)(argc - first), TK_OUTPUT_STORE)) != TK_EXIT_OK)
		return rc;

	struct tk_writer_stats st;
	if ((rc = cli_import(output, (const char *const *)argv + first, (size_t)(argc - first),
			     run_name, &o, jobs, &st)) != TK_EXIT_OK)
		return rc;
	printf(
	    "wrote %s: %lld events (%lld kernels, %lld copies, %lld memsets), %lld memory events, "
	    "%lld counter samples, %lld flows\n",
	    output, (long long)st.events, (long long)st.kernels, (long long)st.memcpys,
	    (long long)st.memsets, (long long)st.memory_events, (long long)st.counter_samples,
	    (long long)st.flows);
	return TK_EXIT_OK;
}

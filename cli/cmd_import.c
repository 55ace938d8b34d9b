/* `tracekit import`: XPlane files, TensorBoard logdirs and Chrome/Kineto JSON into one new store. */
#include <getopt.h>
#include <stdio.h>
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
    "is left at STORE.\n\n"
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

static void warn(void *ctx, const char *message)
{
	(void)ctx;
	fprintf(stderr, "tracekit: warning: %s\n", message);
}

/* Import one directory: every host file of one run. */
static int import_dir(tk_writer *w, const char *path, const char *run_name,
		      struct tk_import_options *o)
{
	struct tk_xplane_run *runs = NULL;
	int nruns = 0, rc;
	char err[1024];
	rc = tk_xplane_list_runs(path, &runs, &nruns, err, sizeof(err));
	if (rc != TK_OK) {
		tk_writer_fail(w, rc, "%s", err);
		goto out;
	}
	const struct tk_xplane_run *pick = &runs[0];
	if (run_name) {
		pick = NULL;
		for (int i = 0; i < nruns && !pick; i++)
			if (!strcmp(runs[i].name, run_name))
				pick = &runs[i];
		if (!pick) {
			rc = tk_writer_fail(w, TK_ENOTFOUND,
					    "'%s' has no run named '%s' (see 'tracekit ls %s')",
					    path, run_name, path);
			goto out;
		}
	}
	for (int i = 0; i < pick->nfiles && rc == TK_OK; i++)
		rc = tk_import_xplane(w, pick->files[i], o);
out:
	tk_xplane_runs_free(runs, nruns);
	return rc;
}

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
	o.warn = warn;
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

	tk_writer *w = NULL;
	char err[1024];
	rc = tk_writer_create(output, &w);
	cli_remove_on_signal(tk_writer_temp_path(w));
	for (int i = optind; i < argc && rc == TK_OK; i++) {
		const char *in = argv[i];
		struct stat sb;
		o.file_index = i - optind;
		if (stat(in, &sb) == 0 && S_ISDIR(sb.st_mode)) {
			rc = import_dir(w, in, run_name, &o);
			continue;
		}
		enum tk_import_format fmt;
		rc = tk_import_detect(in, &fmt, err, sizeof(err));
		if (rc != TK_OK)
			tk_writer_fail(w, rc, "%s", err);
		else if (fmt == TK_FORMAT_XPLANE)
			rc = tk_import_xplane(w, in, &o);
		else
			rc = tk_import_chrome_json(w, in, &o);
	}
	if (rc != TK_OK)
		return cli_fail_writer(rc, w);
	struct tk_writer_stats st;
	tk_writer_get_stats(w, &st);
	rc = tk_writer_finish(w, err, sizeof(err));
	cli_remove_on_signal(NULL);
	if (rc != TK_OK)
		return cli_fail(rc, err);
	printf(
	    "wrote %s: %lld events (%lld kernels, %lld copies, %lld memsets), %lld memory events, "
	    "%lld counter samples, %lld flows\n",
	    output, (long long)st.events, (long long)st.kernels, (long long)st.memcpys,
	    (long long)st.memsets, (long long)st.memory_events, (long long)st.counter_samples,
	    (long long)st.flows);
	return TK_EXIT_OK;
}

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

static void warn(void *ctx, const char *message)
{
	(void)ctx;
	fprintf(stderr, "tracekit: warning: %s\n", message);
}

/* The files imported so far, to refuse one twice (it would become a second rank or host). A copy
 * of a JSON file is refused too; XPlane host files are named by their file, so only the same file
 * is. */
struct inputs {
	struct tk_input_id *ids;
	int *json, n;
};

static int check_new_input(tk_writer *w, struct inputs *in, const char *path, int json)
{
	char err[1024];
	struct tk_input_id *ids = realloc(in->ids, ((size_t)in->n + 1) * sizeof(*ids));
	if (ids)
		in->ids = ids;
	int *js = ids ? realloc(in->json, ((size_t)in->n + 1) * sizeof(*js)) : NULL;
	if (!js)
		return tk_writer_fail(w, TK_ENOMEM, "out of memory");
	in->json = js;
	int rc = tk_import_input_id(path, &ids[in->n], err, sizeof(err));
	if (rc != TK_OK)
		return tk_writer_fail(w, rc, "%s", err);
	if (!(ids[in->n].path = strdup(path)))
		return tk_writer_fail(w, TK_ENOMEM, "out of memory");
	js[in->n] = json;
	for (int i = 0; i < in->n && rc == TK_OK; i++) {
		int same = tk_import_input_same(&ids[i], &ids[in->n], json && js[i]);
		if (same != TK_INPUT_DIFFERENT)
			rc = tk_writer_fail(w, TK_EINVAL,
					    "inputs '%s' and '%s' %s: each input becomes its own "
					    "rank or host; give each file once",
					    ids[i].path, path,
					    same == TK_INPUT_SAME_FILE
						? "are the same file"
						: "have the same content (a copy of one trace)");
	}
	in->n++;
	return rc;
}

static void inputs_free(struct inputs *in)
{
	for (int i = 0; i < in->n; i++)
		free((char *)in->ids[i].path);
	free(in->ids);
	free(in->json);
}

/* Import one directory: every host file of one run. */
static int import_dir(tk_writer *w, const char *path, const char *run_name,
		      struct tk_import_options *o, struct inputs *in)
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
		if ((rc = check_new_input(w, in, pick->files[i], 0)) == TK_OK)
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
	struct inputs seen = {NULL, NULL, 0};
	char err[1024];
	rc = tk_writer_create(output, &w);
	cli_remove_on_signal(tk_writer_temp_path(w));
	for (int i = optind; i < argc && rc == TK_OK; i++) { /* files first: before any import */
		struct stat sb;
		enum tk_import_format fmt;
		if (stat(argv[i], &sb) == 0 && S_ISDIR(sb.st_mode))
			continue;
		if ((rc = tk_import_detect(argv[i], &fmt, err, sizeof(err))) != TK_OK)
			tk_writer_fail(w, rc, "%s", err);
		else
			rc = check_new_input(w, &seen, argv[i], fmt == TK_FORMAT_CHROME_JSON);
	}
	for (int i = optind; i < argc && rc == TK_OK; i++) {
		const char *in = argv[i];
		struct stat sb;
		o.file_index = i - optind;
		if (stat(in, &sb) == 0 && S_ISDIR(sb.st_mode)) {
			rc = import_dir(w, in, run_name, &o, &seen);
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
	inputs_free(&seen);
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

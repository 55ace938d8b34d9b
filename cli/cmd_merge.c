/* `tracekit merge STORE... -o JOB [--summary]`: per-rank (or per-host) stores into one job store. */
#include <stdio.h>
#include <tracekit/error.h>
#include <tracekit/import.h>
#include <tracekit/report.h>
#include <tracekit/store.h>

#include "cli.h"
#include "options.h"

static int run(int argc, char **argv);

const struct tk_cmd tk_cmd_merge = {
    "merge",
    "merge per-rank or per-host stores into one job store (every event, or a summary)",
    "usage: tracekit merge STORE... -o JOB [--summary]\n\n"
    "Writes the job store JOB from the stores STORE... (made by tracekit import, one per rank\n"
    "or host): every source, process, device, track and event with its details, args, flows,\n"
    "counters, memory events and meta, ids renumbered. `import A B -o X` and `merge` of the\n"
    "stores of A and B hold the same content. Refused with exit 2: a store given twice, two\n"
    "stores holding one rank, a file that is not a store or is damaged (named with the table\n"
    "and row). Written atomically: on any error nothing is left at JOB.\n\n"
    "Options:\n"
    "  -o, --output JOB  store to write (never an input, nor an existing file that is not a\n"
    "                    tracekit store)\n"
    "  --summary         only what the cross-rank analyses need: sources, processes, devices,\n"
    "                    tracks, steps, the communication kernels with their args, meta and the\n"
    "                    inputs' analysis tables (a STORE without a current analysis is\n"
    "                    analysed in place first); analyze then recomputes the cross-rank\n"
    "                    tables (docs/scale.md)\n"
    "  -h, --help        this text\n",
    run,
};

static int run(int argc, char **argv)
{
	const struct tk_cmd *cmd = &tk_cmd_merge;
	const char *output = NULL;
	struct tk_merge_options o;
	tk_merge_options_init(&o);
	const struct cli_opt opts[] = {
	    CLI_STR("output", 'o', &output),
	    CLI_FLAG("summary", 0, &o.summary),
	    CLI_HELP,
	};
	int rc, first;
	if ((rc = cli_parse(cmd, argc, argv, opts, CLI_NOPTS(opts), 0, &first)) != CLI_GO_ON)
		return rc;
	if (first >= argc)
		return cli_usage_error(cmd, "at least one input store is required");
	if (!output)
		return cli_usage_error(cmd, "an output store is required (-o JOB)");
	const char *const *in = (const char *const *)argv + first;
	size_t n = (size_t)(argc - first);
	if ((rc = cli_check_output(output, in, n, TK_OUTPUT_STORE)) != TK_EXIT_OK)
		return rc;
	for (size_t i = 0; o.summary && i < n; i++)
		if ((rc = cli_report_ensure_analysis(in[i])) != TK_EXIT_OK)
			return rc;
	struct tk_writer_stats st;
	tk_error *err = tk_error_new();
	rc = tk_merge(output, in, n, &o, &st, err);
	if (rc != TK_OK) {
		rc = cli_fail_error(rc, err);
		tk_error_free(err);
		return rc;
	}
	tk_error_free(err);
	printf("wrote %s%s: %zu stores, %lld events (%lld kernels, %lld copies, %lld memsets), "
	       "%lld memory events, %lld counter samples, %lld flows\n",
	       output, o.summary ? " (job summary)" : "", n, (long long)st.events,
	       (long long)st.kernels, (long long)st.memcpys, (long long)st.memsets,
	       (long long)st.memory_events, (long long)st.counter_samples, (long long)st.flows);
	return TK_EXIT_OK;
}

/* `tracekit synth`: write a deterministic synthetic training trace into a new store. */
#include <stdio.h>
#include <time.h>
#include <tracekit/error.h>
#include <tracekit/store.h>
#include <tracekit/synth.h>

#include "cli.h"
#include "options.h"

static int run(int argc, char **argv);

const struct tk_cmd tk_cmd_synth = {
    "synth",
    "write a deterministic synthetic training trace (demo and benchmark input)",
    "usage: tracekit synth -o STORE [--events N] [--devices D] [--streams S] [--steps K]\n"
    "                      [--seed X] [--jitter J]\n\n"
    "Writes a realistic synthetic training trace: one process (rank) per GPU, a warm-up with\n"
    "compilation, K training steps of forward/backward/optimizer kernels of many sizes (runs of\n"
    "tiny ones among them), copies both ways, collectives on a communication stream,\n"
    "allocations balanced by frees, host ops with their launches, and idle gaps that are\n"
    "host-bound, synchronization-bound and input-bound. Same options, seed and jitter give the\n"
    "same content.\n\n"
    "--seed picks the workload: the kernel mix, tensor sizes and per-kernel times change with it\n"
    "(per-kernel totals move by up to 10 % between seeds), so two seeds are two different\n"
    "workloads. --jitter reruns the same workload (same events, names, launch configurations,\n"
    "calls per step, allocations) with fresh run-to-run timing noise: each device op's duration\n"
    "varies by about 2 %, host gaps and launch delays by about 5 %, and what follows moves\n"
    "with them. Stores of one seed with different --jitter values are what a regression gate\n"
    "must not flag (tracekit diff, check).\n\n"
    "Options:\n"
    "  -o, --output STORE  store to write (replaced atomically when it exists; an existing\n"
    "                      file that is not a tracekit store is refused)\n"
    "  --events N          about N timestamped records (default 200000, up to 2e9)\n"
    "  --devices D         GPUs, 1..64 (default 2)\n"
    "  --streams S         streams per GPU, 2..32 (default 4)\n"
    "  --steps K           training steps, 1..1000000 (default 10)\n"
    "  --seed X            the workload's random seed (default 1)\n"
    "  --jitter J          timing-noise seed: 0 none (default), else the same workload with\n"
    "                      fresh timing (about 2 % per device op)\n"
    "  -h, --help          this text\n",
    run,
};

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static int run(int argc, char **argv)
{
	const struct tk_cmd *cmd = &tk_cmd_synth;
	struct tk_synth_options o;
	tk_synth_defaults(&o);
	const char *output = NULL;
	int rc, first;
	const struct cli_opt opts[] = {
	    CLI_STR("output", 'o', &output),
	    CLI_I64("events", &o.events, 1, 2000000000),
	    CLI_INT("devices", &o.devices, 1, 64),
	    CLI_INT("streams", &o.streams, 2, 32),
	    CLI_INT("steps", &o.steps, 1, 1000000),
	    CLI_U64("seed", &o.seed, 0, INT64_MAX),
	    CLI_U64("jitter", &o.jitter_seed, 0, INT64_MAX),
	    CLI_HELP,
	};
	if ((rc = cli_parse(cmd, argc, argv, opts, CLI_NOPTS(opts), 0, &first)) != CLI_GO_ON)
		return rc;
	if (first < argc)
		return cli_usage_error(cmd, "unexpected argument '%s'", argv[first]);
	if (!output)
		return cli_usage_error(cmd, "an output store is required (-o STORE)");
	if ((rc = cli_check_output(output, NULL, 0, TK_OUTPUT_STORE)) != TK_EXIT_OK)
		return rc;

	double t0 = now_s();
	tk_writer *w = NULL;
	rc = tk_writer_create(output, &w);
	cli_remove_on_signal(tk_writer_temp_path(w));
	if (rc == TK_OK)
		rc = tk_synth_write(w, &o);
	if (rc != TK_OK)
		return cli_fail_writer(rc, w);
	struct tk_writer_stats st;
	tk_writer_get_stats(w, &st);
	tk_error *err = tk_error_new();
	rc = tk_writer_finish(w, err);
	cli_remove_on_signal(NULL);
	if (rc != TK_OK)
		rc = cli_fail_error(rc, err);
	tk_error_free(err);
	if (rc != TK_OK)
		return rc;
	double secs = now_s() - t0;
	int64_t records = st.events + st.memory_events + st.counter_samples;
	printf("wrote %s: %lld records (%lld intervals, %lld kernels, %lld copies, %lld memory "
	       "events, "
	       "%lld counter samples) in %.2f s, %.0f records/s\n",
	       output, (long long)records, (long long)st.events, (long long)st.kernels,
	       (long long)st.memcpys, (long long)st.memory_events, (long long)st.counter_samples,
	       secs, secs > 0 ? (double)records / secs : 0.0);
	return TK_EXIT_OK;
}

/* `tracekit export`: a store into an XPlane logdir, a Perfetto protobuf trace or Chrome JSON. */
#include <stdio.h>
#include <string.h>
#include <tracekit/error.h>
#include <tracekit/export.h>

#include "cli.h"
#include "options.h"

static int run(int argc, char **argv);

const struct tk_cmd tk_cmd_export = {
    "export",
    "write a store as an XPlane logdir, a Perfetto trace or Chrome JSON",
    "usage: tracekit export STORE --format xplane|perfetto|chrome -o OUT [--run NAME]\n\n"
    "Writes what viewers open (docs/export.md):\n"
    "  xplane    OUT is a TensorBoard logdir: OUT/plugins/profile/<run>/<host>.xplane.pb, one\n"
    "            file per host, for TensorBoard's profile plugin or XProf\n"
    "  perfetto  OUT is a native Perfetto TrackEvent protobuf trace (.pftrace) for\n"
    "            ui.perfetto.dev and trace_processor\n"
    "  chrome    OUT is Chrome Trace Event Format JSON, gzip-compressed when OUT ends in .gz\n"
    "Every file is written under a temporary name and renamed into place when complete.\n"
    "An existing OUT is replaced only when it is what this format writes: an empty file, a\n"
    "file tracekit exported in that format, or for xplane an empty directory or a logdir;\n"
    "never the store itself (docs/export.md).\n\n"
    "Options:\n"
    "  -f, --format F   xplane, perfetto or chrome (required)\n"
    "  -o, --output P   the logdir (xplane) or file (required)\n"
    "  --run NAME       xplane: the run directory name (default: the local time as\n"
    "                   YYYY_MM_DD_HH_MM_SS, as JAX names runs); unsafe characters become '_'\n"
    "  -q, --quiet      print nothing on success\n"
    "  -h, --help       this text\n\n"
    "Exit codes: 0 done, 2 usage error or a file that is not a (supported) tracekit store,\n"
    "or an output that cannot be written, 3 internal error.\n",
    run,
};

static int run(int argc, char **argv)
{
	const struct tk_cmd *cmd = &tk_cmd_export;
	struct tk_export_options o;
	tk_export_options_init(&o);
	const char *format = NULL, *output = NULL;
	int quiet = 0, first, rc;
	const struct cli_opt opts[] = {
	    CLI_STR("format", 'f', &format),
	    CLI_STR("output", 'o', &output),
	    CLI_STR("run", 0, &o.run),
	    CLI_FLAG("quiet", 'q', &quiet),
	    CLI_HELP,
	};
	if ((rc = cli_parse(cmd, argc, argv, opts, CLI_NOPTS(opts), 0, &first)) != CLI_GO_ON)
		return rc;
	if (argc - first != 1)
		return cli_usage_error(cmd, "expected one store");
	if (!format)
		return cli_usage_error(cmd, "--format is required (xplane, perfetto or chrome)");
	if (tk_export_format_parse(format, &o.format) != TK_OK)
		return cli_usage_error(cmd, "unknown format '%s' (xplane, perfetto or chrome)",
				       format);
	if (!output || !*output)
		return cli_usage_error(cmd, "-o OUT is required");
	if (o.run && o.format != TK_EXPORT_XPLANE)
		return cli_usage_error(cmd, "--run applies to --format xplane only");
	static const enum tk_output_kind kinds[] = {
	    [TK_EXPORT_XPLANE] = TK_OUTPUT_XPLANE_LOGDIR,
	    [TK_EXPORT_PERFETTO] = TK_OUTPUT_PERFETTO,
	    [TK_EXPORT_CHROME] = TK_OUTPUT_CHROME_JSON,
	};
	rc = cli_check_output(output, (const char *const *)&argv[first], 1, kinds[o.format]);
	if (rc != TK_EXIT_OK)
		return rc;
	tk_exporter *x = NULL;
	rc = tk_exporter_create(&x);
	if (rc != TK_OK)
		return cli_fail(rc, "out of memory");
	rc = tk_exporter_run(x, argv[first], output, &o);
	if (rc != TK_OK) {
		int code = cli_fail_error(rc, tk_exporter_error(x));
		tk_exporter_destroy(x);
		return code;
	}
	if (!quiet) {
		struct tk_export_stats s;
		tk_exporter_stats(x, &s);
		printf(
		    "wrote %s: %lld events, %lld flows, %lld counter samples, %lld memory events "
		    "(%lld file%s, %lld bytes)\n",
		    tk_exporter_output(x), (long long)s.events, (long long)s.flows,
		    (long long)s.counters, (long long)s.memory_events, (long long)s.files,
		    s.files == 1 ? "" : "s", (long long)s.bytes);
	}
	tk_exporter_destroy(x);
	return TK_EXIT_OK;
}

/*
 * `tracekit info`: what a store holds (span, devices, processes, counts per kind, version,
 * source), every text escaped for the terminal (include/tracekit/text.h).
 */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tracekit/error.h>
#include <tracekit/report.h>
#include <tracekit/store.h>
#include <tracekit/text.h>

#include "cli.h"
#include "options.h"

static int run(int argc, char **argv);

const struct tk_cmd tk_cmd_info = {
    "info",
    "describe a store: time span, devices, processes, counts per kind",
    "usage: tracekit info STORE\n\n"
    "Prints the store's schema version, where it came from, its time span, devices with their\n"
    "peak numbers, processes, and how many events of each kind it holds.\n\n"
    "Options:\n"
    "  -h, --help   this text\n",
    run,
};

struct section {
	const char *title;
	const char *sql;
};

static const struct section sections[] = {
    {NULL,
     "SELECT 'schema version' AS fact,"
     " CAST((SELECT value FROM meta WHERE key = 'schema_version') AS TEXT) AS value"
     " UNION ALL SELECT 'written by', 'tracekit ' || (SELECT value FROM meta WHERE key = "
     "'tracekit_version')"
     " UNION ALL SELECT 'sources', (SELECT group_concat(format || coalesce(' ' || path, '')"
     "   || coalesce(' (host ' || host || ')', '') || coalesce(' rank ' || rank, ''), '; ') FROM "
     "sources)"
     " UNION ALL SELECT 'clock', coalesce((SELECT value FROM meta WHERE key = 'clock'), 'unknown')"
     " UNION ALL SELECT 'start', (SELECT CASE WHEN (SELECT value FROM meta WHERE key = 'clock') = "
     "'unix_epoch'"
     "   THEN strftime('%Y-%m-%dT%H:%M:%S', value / 1000000000, 'unixepoch') || printf('.%09dZ', "
     "value % 1000000000)"
     "   ELSE value || ' ns' END FROM meta WHERE key = 'trace_start_ns')"
     " UNION ALL SELECT 'duration', (SELECT printf('%.6f s (%d ns)', (e.value - s.value) / 1e9, "
     "e.value - s.value)"
     "   FROM meta s, meta e WHERE s.key = 'trace_start_ns' AND e.key = 'trace_end_ns')"},
    {"Devices", "SELECT d.id, d.kind, n.str AS name, d.ordinal, d.rank, d.sm_count AS sms,"
		" CASE WHEN d.memory_bytes IS NOT NULL THEN printf('%.1f GiB', d.memory_bytes / "
		"1073741824.0) END AS memory,"
		" CASE WHEN d.memory_bandwidth_bps IS NOT NULL THEN printf('%.0f GB/s', "
		"d.memory_bandwidth_bps / 1e9) END AS bandwidth,"
		" CASE WHEN d.peak_flops IS NOT NULL THEN printf('%.1f TFLOP/s', d.peak_flops / "
		"1e12) END AS peak,"
		" d.compute_capability AS cc, h.str AS host"
		" FROM devices d LEFT JOIN strings n ON n.id = d.name_id LEFT JOIN strings h ON "
		"h.id = d.host_id"
		" ORDER BY d.id"},
    {"Processes",
     "SELECT p.id, p.pid, n.str AS name, h.str AS host, p.rank,"
     " (SELECT count(*) FROM tracks t WHERE t.process_id = p.id AND t.kind = 'thread') AS threads"
     " FROM processes p LEFT JOIN strings n ON n.id = p.name_id LEFT JOIN strings h ON h.id = "
     "p.host_id"
     " ORDER BY p.id"},
    {"Events by kind",
     "SELECT k.name AS kind, count(e.id) AS count, sum(e.dur_ns) AS total_ns,"
     " printf('%.3f', sum(e.dur_ns) / 1e6) AS total_ms"
     " FROM events e JOIN event_kinds k ON k.id = e.kind GROUP BY e.kind ORDER BY e.kind"},
    {"Other records", "SELECT 'tracks' AS what, count(*) AS count FROM tracks"
		      " UNION ALL SELECT 'flows', count(*) FROM flows"
		      " UNION ALL SELECT 'memory events', count(*) FROM memory_records"
		      " UNION ALL SELECT 'counter samples', count(*) FROM counters"
		      " UNION ALL SELECT 'args', count(*) FROM args"
		      " UNION ALL SELECT 'strings', count(*) FROM strings"},
};

static int run(int argc, char **argv)
{
	const struct tk_cmd *cmd = &tk_cmd_info;
	const struct cli_opt opts[] = {CLI_HELP};
	int rc, first;
	if ((rc = cli_parse(cmd, argc, argv, opts, CLI_NOPTS(opts), 0, &first)) != CLI_GO_ON)
		return rc;
	if (argc - first != 1)
		return cli_usage_error(cmd, "expected one store");
	const char *path = argv[first];
	tk_store *s = NULL;
	sqlite3_stmt *st = NULL;
	tk_error *err = tk_error_new();
	rc = tk_store_open(path, &s);
	if (rc != TK_OK) {
		rc = cli_fail_error(rc, tk_store_error(s));
		goto out;
	}
	char *shown = tk_text_escape(path, strlen(path), TK_TEXT_TERMINAL, NULL);
	printf("store: %s\n", shown ? shown : "?");
	free(shown);
	struct tk_rows_options opt = {TK_ROWS_TABLE, 60};
	for (size_t i = 0; i < sizeof(sections) / sizeof(sections[0]); i++) {
		if (sqlite3_prepare_v2(tk_store_sqlite(s), sections[i].sql, -1, &st, NULL) !=
		    SQLITE_OK) {
			cli_error("'%s' is not a readable tracekit store: %s", path,
				  sqlite3_errmsg(tk_store_sqlite(s)));
			rc = TK_EXIT_USAGE;
			goto out;
		}
		if (sections[i].title)
			printf("\n%s\n", sections[i].title);
		rc = tk_rows_write_sqlite(stdout, st, &opt, err);
		if (rc != TK_OK) {
			tk_error_push_from(err, "cli", rc, "'%s'", path);
			rc = cli_fail_error(rc, err);
			goto out;
		}
		sqlite3_finalize(st);
		st = NULL;
	}
	rc = TK_EXIT_OK;
out:
	tk_error_free(err);
	sqlite3_finalize(st);
	tk_store_close(s);
	return rc;
}

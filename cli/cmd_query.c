/* `tracekit query`: run read-only SQL on a store and print the rows as a table, CSV or JSON. */
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>
#include <tracekit/error.h>
#include <tracekit/report.h>
#include <tracekit/store.h>

#include "cli.h"
#include "options.h"

static int run(int argc, char **argv);

const struct tk_cmd tk_cmd_query = {
    "query",
    "run read-only SQL on a store (table, CSV or JSON output)",
    "usage: tracekit query STORE \"SQL\" [--format table|csv|json] [--max-width N]\n\n"
    "Runs SQL on the store, read-only, and prints the rows of each statement in turn.\n"
    "Views to start from: kernels, memcpys, memsets, api_calls, host_ops, annotations, steps,\n"
    "memory_events, counter_samples, intervals (see docs/store.md).\n\n"
    "Options:\n"
    "  --format F      table (default; control and bidi characters shown escaped, \\x1b,\n"
    "                  \\u{202E}), csv (RFC 4180) or json (array of objects); invalid UTF-8\n"
    "                  becomes U+FFFD in every format\n"
    "  --max-width N   table: cut cells longer than N characters with '…' (default 80, 0 = no "
    "limit)\n"
    "  -h, --help      this text\n\n"
    "Exit codes: 0 ok; 2 when the store cannot be opened, the SQL is invalid, or the SQL would\n"
    "modify the store.\n",
    run,
};

static int format_option(const struct tk_cmd *cmd, const char *value, void *arg)
{
	if (tk_rows_format_parse(value, arg) != TK_OK)
		return cli_usage_error(cmd, "--format must be table, csv or json, not '%s'", value);
	return TK_EXIT_OK;
}

static int run(int argc, char **argv)
{
	const struct tk_cmd *cmd = &tk_cmd_query;
	struct tk_rows_options opt = {TK_ROWS_TABLE, 80};
	int rc, first;
	const struct cli_opt opts[] = {
	    CLI_CALL("format", 0, format_option, &opt.format),
	    CLI_INT("max-width", &opt.max_width, 0, 1000000),
	    CLI_HELP,
	};
	if ((rc = cli_parse(cmd, argc, argv, opts, CLI_NOPTS(opts), 0, &first)) != CLI_GO_ON)
		return rc;
	if (argc - first != 2)
		return cli_usage_error(cmd, "expected a store and one SQL argument");
	const char *path = argv[first], *sql = argv[first + 1];

	tk_store *s = NULL;
	sqlite3_stmt *st = NULL;
	tk_error *err = tk_error_new();
	rc = tk_store_open(path, &s);
	if (rc != TK_OK) {
		rc = cli_fail_error(rc, tk_store_error(s));
		goto out;
	}
	sqlite3 *db = tk_store_sqlite(s);
	const char *tail = sql;
	int statements = 0;
	while (tail && *tail) {
		if (sqlite3_prepare_v2(db, tail, -1, &st, &tail) != SQLITE_OK) {
			cli_error("query on '%s': %s", path, sqlite3_errmsg(db));
			rc = TK_EXIT_USAGE;
			goto out;
		}
		if (!st) /* whitespace or a comment */
			continue;
		statements++;
		if (!sqlite3_stmt_readonly(st)) {
			cli_error("query on '%s': statement %d would modify the store; stores are "
				  "queried read-only",
				  path, statements);
			rc = TK_EXIT_USAGE;
			goto out;
		}
		if (sqlite3_column_count(st) > 0) {
			rc = tk_rows_write_sqlite(stdout, st, &opt, err);
			if (rc != TK_OK) {
				tk_error_push_from(err, "cli", rc, "query on '%s'", path);
				rc = cli_fail_error(rc, err);
				goto out;
			}
		} else if (sqlite3_step(st) != SQLITE_DONE) {
			cli_error("query on '%s': %s", path, sqlite3_errmsg(db));
			rc = TK_EXIT_USAGE;
			goto out;
		}
		sqlite3_finalize(st);
		st = NULL;
	}
	if (!statements) {
		rc = cli_usage_error(cmd, "the SQL argument holds no statement");
		goto out;
	}
	if (fflush(stdout) != 0) {
		cli_error("cannot write output");
		rc = TK_EXIT_USAGE;
		goto out;
	}
	rc = TK_EXIT_OK;
out:
	tk_error_free(err);
	sqlite3_finalize(st);
	tk_store_close(s);
	return rc;
}

/* End-to-end tests of the tracekit command line: exit codes, help, info, query formats. */
#include <cjson/cJSON.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#include <criterion/criterion.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <tracekit/tracekit.h>

#include "tk_test.h"

static char *dir, *db;

static void setup(void)
{
	dir = tkt_mkdtemp();
	db = tkt_path(dir, "f.db");
	cr_assert_eq(tkt_write_fixture(db), TK_OK);
}

static void teardown(void)
{
	tkt_rmdir(dir);
	free(dir);
	free(db);
}

TestSuite(cli, .init = setup, .fini = teardown);

#define EXPECT_RUN(r, want_code)                                                                  \
	cr_expect_eq((r).code, (want_code), "exit %d, want %d\nstdout: %s\nstderr: %s", (r).code, \
		     (want_code), (r).out, (r).err)

static void expect_contains(const char *hay, const char *needle)
{
	cr_expect(strstr(hay, needle) != NULL, "expected '%s' in:\n%s", needle, hay);
}

Test(cli, no_arguments_prints_usage_and_exits_2)
{
	struct tkt_run r = tkt_tracekit(NULL);
	EXPECT_RUN(r, 2);
	expect_contains(r.err, "usage: tracekit <command>");
	tkt_run_free(&r);
}

Test(cli, unknown_command_exits_2)
{
	struct tkt_run r = tkt_tracekit("frobnicate", NULL);
	EXPECT_RUN(r, 2);
	expect_contains(r.err, "unknown command 'frobnicate'");
	tkt_run_free(&r);
}

static const char *const commands[] = {"import", "ls",	   "synth",  "info", "query",	 "analyze",
				       "export", "record", "report", "diff", "baseline", "check"};

Test(cli, help_lists_every_command)
{
	struct tkt_run r = tkt_tracekit("help", NULL);
	EXPECT_RUN(r, 0);
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		char line[64]; /* the name, then at least one space before its summary */
		snprintf(line, sizeof(line), "\n  %s ", commands[i]);
		expect_contains(r.out, line);
	}
	tkt_run_free(&r);
}

Test(cli, every_command_has_help)
{
	const char *const *cmds = commands;
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		char want[64];
		snprintf(want, sizeof(want), "usage: tracekit %s", cmds[i]);
		struct tkt_run r = tkt_tracekit(cmds[i], "--help", NULL);
		EXPECT_RUN(r, 0);
		cr_expect(strncmp(r.out, want, strlen(want)) == 0, "%s --help printed:\n%s",
			  cmds[i], r.out);
		tkt_run_free(&r);
		r = tkt_tracekit("help", cmds[i], NULL);
		EXPECT_RUN(r, 0);
		expect_contains(r.out, want);
		tkt_run_free(&r);
	}
}

Test(cli, version_lists_compiled_features)
{
	struct tkt_run r = tkt_tracekit("--version", NULL);
	EXPECT_RUN(r, 0);
	expect_contains(r.out, "tracekit ");
	expect_contains(r.out, "sqlite: yes");
	expect_contains(r.out, "cupti: ");
	tkt_run_free(&r);
}

Test(cli, synth_usage_errors_exit_2)
{
	struct tkt_run r = tkt_tracekit("synth", NULL);
	EXPECT_RUN(r, 2);
	expect_contains(r.err, "-o STORE");
	tkt_run_free(&r);
	r = tkt_tracekit("synth", "-o", db, "--devices", "0", NULL);
	EXPECT_RUN(r, 2);
	expect_contains(r.err, "--devices expects an integer from 1 to 64, got '0'");
	tkt_run_free(&r);
	r = tkt_tracekit("synth", "-o", db, "--events", "12x", NULL);
	EXPECT_RUN(r, 2);
	expect_contains(r.err, "--events");
	tkt_run_free(&r);
	r = tkt_tracekit("synth", "-o", db, "--bogus", NULL);
	EXPECT_RUN(r, 2);
	expect_contains(r.err, "unknown option '--bogus'");
	tkt_run_free(&r);
	r = tkt_tracekit("synth", "-o", db, "--seed", NULL);
	EXPECT_RUN(r, 2);
	expect_contains(r.err, "needs a value");
	tkt_run_free(&r);
}

Test(cli, synth_into_missing_directory_exits_2_and_leaves_nothing)
{
	char *p = tkt_path(dir, "nope/s.db");
	struct tkt_run r = tkt_tracekit("synth", "-o", p, "--events", "1000", NULL);
	EXPECT_RUN(r, 2);
	expect_contains(r.err, p);
	cr_expect_eq(tkt_count_entries(dir), 1); /* only the fixture */
	tkt_run_free(&r);
	free(p);
}

Test(cli, info_describes_the_store)
{
	struct tkt_run r = tkt_tracekit("info", db, NULL);
	EXPECT_RUN(r, 0);
	expect_contains(r.out, "schema version");
	expect_contains(r.out, "NVIDIA H100 80GB HBM3");
	expect_contains(r.out, "80.0 GiB");
	expect_contains(r.out, "2026-01-01T00:00:00.000000000Z");
	expect_contains(r.out, "0.000200 s (200000 ns)");
	expect_contains(r.out, "python train.py");
	expect_contains(r.out, "kernel");
	expect_contains(r.out, "memory events");
	tkt_run_free(&r);
}

Test(cli, info_errors_name_the_file)
{
	char *missing = tkt_path(dir, "missing.db");
	struct tkt_run r = tkt_tracekit("info", missing, NULL);
	EXPECT_RUN(r, 2);
	expect_contains(r.err, missing);
	tkt_run_free(&r);

	char *text = tkt_path(dir, "junk.db");
	FILE *f = fopen(text, "w");
	for (int i = 0; i < 100; i++)
		fputs("junk junk junk junk\n", f);
	fclose(f);
	r = tkt_tracekit("info", text, NULL);
	EXPECT_RUN(r, 2);
	expect_contains(r.err, text);
	expect_contains(r.err, "not a tracekit store");
	tkt_run_free(&r);

	/* a store cut short: refused with exit 2, never a crash */
	char *cut = tkt_path(dir, "cut.db");
	FILE *in = fopen(db, "rb"), *outf = fopen(cut, "wb");
	char buf[100];
	size_t n = fread(buf, 1, sizeof(buf), in);
	fwrite(buf, 1, n, outf);
	fclose(in);
	fclose(outf);
	r = tkt_tracekit("info", cut, NULL);
	EXPECT_RUN(r, 2);
	expect_contains(r.err, "malformed");
	tkt_run_free(&r);
	r = tkt_tracekit("query", cut, "SELECT count(*) FROM kernels", NULL);
	EXPECT_RUN(r, 2);
	tkt_run_free(&r);
	free(cut);

	r = tkt_tracekit("info", NULL);
	EXPECT_RUN(r, 2);
	tkt_run_free(&r);
	free(missing);
	free(text);
}

Test(cli, info_refuses_a_newer_store)
{
	struct tkt_run r = tkt_tracekit("info", db, NULL);
	tkt_run_free(&r);
	char *sql = "PRAGMA user_version = 7";
	sqlite3 *h;
	cr_assert_eq(sqlite3_open(db, &h), SQLITE_OK);
	cr_assert_eq(sqlite3_exec(h, sql, NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(h);
	r = tkt_tracekit("info", db, NULL);
	EXPECT_RUN(r, 2);
	expect_contains(r.err, "newer than this tracekit supports");
	tkt_run_free(&r);
}

Test(cli, query_csv_quotes_fields)
{
	struct tkt_run r = tkt_tracekit("query", db,
					"SELECT name, dur_ns, occupancy, NULL AS missing, ' pad' "
					"AS pad, 'a\nb' AS nl FROM kernels",
					"--format", "csv", NULL);
	EXPECT_RUN(r, 0);
	cr_expect_str_eq(r.out,
			 "name,dur_ns,occupancy,missing,pad,nl\n"
			 "\"void k<float, \"\"q\"\">(a < b && c > d, 'x'), Ünïcødé ✓\",7000,0.75,,"
			 "\" pad\",\"a\nb\"\n");
	tkt_run_free(&r);
}

Test(cli, query_json_escapes_and_parses_back)
{
	struct tkt_run r =
	    tkt_tracekit("query", db,
			 "SELECT name, dur_ns, occupancy, mangled_name IS NULL AS n, "
			 "NULL AS z, CAST(x'41ff42' AS TEXT) AS bad, 'tab\there' AS t "
			 "FROM kernels",
			 "--format", "json", NULL);
	EXPECT_RUN(r, 0);
	cr_expect_str_eq(r.out, "[\n{\"name\":\"void k\\u003cfloat, \\\"q\\\"\\u003e(a \\u003c b "
				"\\u0026\\u0026 c \\u003e d, 'x'), Ünïcødé ✓\",\"dur_ns\":7000,"
				"\"occupancy\":0.75,\"n\":0,\"z\":null,\"bad\":\"A\\ufffdB\","
				"\"t\":\"tab\\there\"}\n]\n");
	cJSON *doc = cJSON_Parse(r.out);
	cr_assert_not_null(doc, "output is not valid JSON");
	cJSON *row = cJSON_GetArrayItem(doc, 0);
	cr_expect_str_eq(cJSON_GetObjectItem(row, "name")->valuestring, TKT_ODD_NAME);
	cr_expect_eq(cJSON_GetObjectItem(row, "dur_ns")->valuedouble, 7000);
	cr_expect(cJSON_IsNull(cJSON_GetObjectItem(row, "z")));
	cJSON_Delete(doc);
	tkt_run_free(&r);

	r = tkt_tracekit("query", db, "SELECT * FROM kernels WHERE 0", "--format", "json", NULL);
	EXPECT_RUN(r, 0);
	cr_expect_str_eq(r.out, "[]\n");
	tkt_run_free(&r);
}

Test(cli, query_json_of_every_view_is_valid)
{
	const char *views[] = {"kernels",   "memcpys",	      "memsets",       "api_calls",
			       "host_ops",  "steps",	      "memory_events", "annotations",
			       "intervals", "counter_samples"};
	for (size_t i = 0; i < sizeof(views) / sizeof(views[0]); i++) {
		char sql[128];
		snprintf(sql, sizeof(sql), "SELECT * FROM %s", views[i]);
		struct tkt_run r = tkt_tracekit("query", db, sql, "--format", "json", NULL);
		EXPECT_RUN(r, 0);
		cJSON *doc = cJSON_Parse(r.out);
		cr_expect_not_null(doc, "%s: invalid JSON:\n%s", views[i], r.out);
		cr_expect_gt(cJSON_GetArraySize(doc), 0, "%s is empty", views[i]);
		cJSON *row = cJSON_GetArrayItem(doc, 0);
		cr_expect_not_null(cJSON_GetObjectItem(row, "ts_rel_ns"), "%s lacks ts_rel_ns",
				   views[i]);
		cJSON_Delete(doc);
		tkt_run_free(&r);
	}
}

Test(cli, query_table_aligns_and_cuts_long_cells)
{
	struct tkt_run r = tkt_tracekit("query", db,
					"SELECT kind, count(*) AS n FROM intervals GROUP BY kind "
					"ORDER BY kind",
					NULL);
	EXPECT_RUN(r, 0);
	cr_expect_str_eq(r.out, "kind         n\n"
				"-----------  -\n"
				"annotation   1\n"
				"host_op      1\n"
				"kernel       1\n"
				"memcpy       1\n"
				"memset       1\n"
				"runtime_api  1\n"
				"step         1\n"
				"xla_op       1\n");
	tkt_run_free(&r);
	r = tkt_tracekit("query", db, "SELECT name FROM kernels", "--max-width", "10", NULL);
	EXPECT_RUN(r, 0);
	cr_expect_str_eq(r.out, "name\n----------\nvoid k<fl…\n");
	tkt_run_free(&r);
}

Test(cli, query_refuses_writes_and_bad_sql)
{
	uint64_t before = tkt_store_digest(db);
	struct tkt_run r = tkt_tracekit("query", db, "DELETE FROM events", NULL);
	EXPECT_RUN(r, 2);
	expect_contains(r.err, "read-only");
	tkt_run_free(&r);
	r = tkt_tracekit("query", db, "SELECT 1; DROP TABLE events", NULL);
	EXPECT_RUN(r, 2);
	tkt_run_free(&r);
	r = tkt_tracekit("query", db, "SELEKT * FROM kernels", NULL);
	EXPECT_RUN(r, 2);
	expect_contains(r.err, "syntax error");
	expect_contains(r.err, db);
	tkt_run_free(&r);
	r = tkt_tracekit("query", db, "SELECT 1", "--format", "xml", NULL);
	EXPECT_RUN(r, 2);
	expect_contains(r.err, "--format must be table, csv or json");
	tkt_run_free(&r);
	r = tkt_tracekit("query", db, NULL);
	EXPECT_RUN(r, 2);
	tkt_run_free(&r);
	r = tkt_tracekit("query", db, "  -- nothing\n", NULL);
	EXPECT_RUN(r, 2);
	tkt_run_free(&r);
	cr_expect_eq(tkt_store_digest(db), before, "a refused query changed the store");
}

Test(cli, query_runs_several_statements_in_turn)
{
	struct tkt_run r =
	    tkt_tracekit("query", db, "SELECT 1 AS a; SELECT 2.5 AS b", "--format", "csv", NULL);
	EXPECT_RUN(r, 0);
	cr_expect_str_eq(r.out, "a\n1\nb\n2.5\n");
	tkt_run_free(&r);
}

Test(cli, import_usage_and_input_errors_exit_2)
{
	struct tkt_run r = tkt_tracekit("import", "-o", db, NULL);
	EXPECT_RUN(r, 2);
	expect_contains(r.err, "at least one input");
	tkt_run_free(&r);
	char *out = tkt_path(dir, "out.db");
	r = tkt_tracekit("import", db, NULL);
	EXPECT_RUN(r, 2);
	expect_contains(r.err, "-o STORE");
	tkt_run_free(&r);
	/* a store is neither XPlane nor JSON: named, exit 2, nothing written */
	r = tkt_tracekit("import", db, "-o", out, NULL);
	EXPECT_RUN(r, 2);
	expect_contains(r.err, db);
	expect_contains(r.err, "neither an XPlane");
	cr_expect_not(tkt_exists(out));
	tkt_run_free(&r);
	char *missing = tkt_path(dir, "missing.json");
	r = tkt_tracekit("import", missing, "-o", out, NULL);
	EXPECT_RUN(r, 2);
	expect_contains(r.err, missing);
	cr_expect_not(tkt_exists(out));
	tkt_run_free(&r);
	char *empty = tkt_path(dir, "empty.json");
	FILE *f = fopen(empty, "w");
	fclose(f);
	r = tkt_tracekit("import", empty, "-o", out, NULL);
	EXPECT_RUN(r, 2);
	expect_contains(r.err, "empty");
	cr_expect_not(tkt_exists(out));
	tkt_run_free(&r);
	cr_expect_eq(tkt_count_entries(dir), 2, "only the fixture and the empty file remain");
	free(out);
	free(missing);
	free(empty);
}

Test(cli, interrupted_synth_leaves_no_temporary_file)
{
	char *out = tkt_path(dir, "big.db");
	/* interrupted once the temporary store exists beside the target */
	const char *const args[] = {"synth", "--events", "50000000", "-o", out, NULL};
	int seen;
	pid_t pid = tkt_spawn_until(dir, "big.db.tmp-", &seen, args);
	usleep(200000);
	kill(pid, SIGINT);
	int status;
	waitpid(pid, &status, 0);
	cr_expect(seen, "the temporary file never appeared");
	cr_expect(WIFSIGNALED(status) && WTERMSIG(status) == SIGINT, "status %d", status);
	cr_expect_eq(tkt_count_entries(dir), 1, "a temporary file was left behind");
	cr_expect_not(tkt_exists(out));
	free(out);
}

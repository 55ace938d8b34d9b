/*
 * tk_error (include/tracekit/error.h): the chain of causes, its order, status and message, NULL
 * handling; and, for every public call that reports through a tk_error or a handle's error, that
 * the error arrives with its causes (what failed, and below it why).
 */
#include <criterion/criterion.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <tracekit/tracekit.h>

#include "tk_test.h"

TKT_TMPDIR_FIXTURE;

TestSuite(error, .init = setup, .fini = teardown);

/* cause @i of @e is @msg from @module with @status */
static void expect_cause(const tk_error *e, size_t i, const char *module, int status,
			 const char *msg)
{
	cr_assert_lt(i, tk_error_cause_count(e), "no cause %zu in '%s'", i, tk_error_message(e));
	cr_expect_str_eq(tk_error_cause_module(e, i), module, "module of cause %zu", i);
	cr_expect_eq(tk_error_cause_status(e, i), status, "status of cause %zu", i);
	if (msg)
		cr_expect_str_eq(tk_error_cause(e, i), msg, "cause %zu", i);
}

Test(error, a_new_error_is_empty)
{
	tk_error *e = tk_error_new();
	cr_assert_not_null(e);
	cr_expect_eq(tk_error_status(e), TK_OK);
	cr_expect_eq(tk_error_cause_count(e), 0);
	cr_expect_str_eq(tk_error_message(e), "");
	cr_expect_null(tk_error_cause(e, 0));
	cr_expect_null(tk_error_cause_module(e, 0));
	cr_expect_eq(tk_error_cause_status(e, 0), TK_OK);
	tk_error_free(e);
}

Test(error, a_push_onto_an_empty_error_is_its_only_cause)
{
	tk_error *e = tk_error_new();
	cr_expect_eq(tk_error_push(e, TK_EIO, "cannot read '%s'", "a.json"), TK_EIO);
	cr_expect_eq(tk_error_status(e), TK_EIO);
	cr_expect_eq(tk_error_cause_count(e), 1);
	expect_cause(e, 0, "", TK_EIO, "cannot read 'a.json'");
	cr_expect_str_eq(tk_error_message(e), "cannot read 'a.json'");
	tk_error_free(e);
}

Test(error, causes_are_numbered_outermost_first_and_joined_so)
{
	tk_error *e = tk_error_new();
	tk_error_push_from(e, "sqlite", TK_EIO, "disk I/O error");
	tk_error_push_from(e, "store", TK_EIO, "cannot write store '%s' (%s)", "a.db", "commit");
	tk_error_push_from(e, "cli", TK_OK, "importing run %d", 7);
	cr_assert_eq(tk_error_cause_count(e), 3);
	expect_cause(e, 0, "cli", TK_OK, "importing run 7");
	expect_cause(e, 1, "store", TK_EIO, "cannot write store 'a.db' (commit)");
	expect_cause(e, 2, "sqlite", TK_EIO, "disk I/O error");
	cr_expect_null(tk_error_cause(e, 3));
	cr_expect_str_eq(tk_error_message(e),
			 "importing run 7: cannot write store 'a.db' (commit): disk I/O error");
	tk_error_free(e);
}

Test(error, the_status_is_the_outermost_one_given)
{
	tk_error *e = tk_error_new();
	tk_error_push(e, TK_EINTERNAL, "root");
	cr_expect_eq(tk_error_status(e), TK_EINTERNAL);
	/* a cause with TK_OK keeps the status below it */
	cr_expect_eq(tk_error_push(e, TK_OK, "context"), TK_EINTERNAL);
	cr_expect_eq(tk_error_status(e), TK_EINTERNAL);
	/* an outer layer may reclassify */
	cr_expect_eq(tk_error_push(e, TK_EFORMAT, "bad input"), TK_EFORMAT);
	cr_expect_eq(tk_error_status(e), TK_EFORMAT);
	cr_expect_eq(tk_error_cause_status(e, 2), TK_EINTERNAL, "the root keeps its own");
	tk_error_free(e);
}

Test(error, an_empty_message_joins_as_printf_would)
{
	tk_error *e = tk_error_new();
	tk_error_push(e, TK_EIO, "%s", "");
	tk_error_push(e, TK_EIO, "outer");
	cr_expect_str_eq(tk_error_message(e), "outer: ");
	tk_error_free(e);
}

Test(error, clear_copy_and_null)
{
	tk_error *a = tk_error_new(), *b = tk_error_new();
	tk_error_push_from(a, "os", TK_EIO, "No such file or directory");
	tk_error_push_from(a, "store", TK_EIO, "cannot open store 'x'");
	tk_error_push(b, TK_EINVAL, "replaced");
	cr_expect_eq(tk_error_copy(b, a), TK_EIO);
	cr_expect_str_eq(tk_error_message(b), tk_error_message(a));
	cr_assert_eq(tk_error_cause_count(b), 2);
	expect_cause(b, 1, "os", TK_EIO, "No such file or directory");
	tk_error_clear(a);
	cr_expect_eq(tk_error_status(a), TK_OK);
	cr_expect_eq(tk_error_cause_count(a), 0);
	cr_expect_str_eq(tk_error_message(a), "");
	cr_expect_eq(tk_error_cause_count(b), 2, "a copy is independent");
	cr_expect_eq(tk_error_copy(b, NULL), TK_OK);
	cr_expect_eq(tk_error_cause_count(b), 0);

	/* NULL everywhere */
	cr_expect_eq(tk_error_push(NULL, TK_EIO, "x"), TK_EIO);
	cr_expect_eq(tk_error_push_from(NULL, "m", TK_OK, "x"), TK_OK);
	cr_expect_eq(tk_error_copy(NULL, a), TK_OK);
	cr_expect_eq(tk_error_status(NULL), TK_OK);
	cr_expect_eq(tk_error_cause_count(NULL), 0);
	cr_expect_null(tk_error_cause(NULL, 0));
	cr_expect_str_eq(tk_error_message(NULL), "");
	tk_error_clear(NULL);
	tk_error_free(NULL);
	tk_error_free(a);
	tk_error_free(b);
}

/* ---- the public calls: each error arrives with its causes ---- */

Test(error, store_open_names_the_file_above_the_system_s_reason)
{
	char *p = tkt_path(dir, "missing.db");
	tk_store *s = NULL;
	cr_assert_eq(tk_store_open(p, &s), TK_EIO);
	tk_error *e = tk_store_error(s);
	cr_assert_eq(tk_error_cause_count(e), 2, "%s", tk_error_message(e));
	cr_expect_eq(tk_error_status(e), TK_EIO);
	char want[4200];
	snprintf(want, sizeof(want), "cannot open store '%s'", p);
	expect_cause(e, 0, "store", TK_EIO, want);
	expect_cause(e, 1, "os", TK_EIO, "No such file or directory");
	cr_expect_str_eq(tk_store_errmsg(s), tk_error_message(e));
	tk_store_close(s);

	/* not a tracekit store: SQLite's reason below */
	tkt_spit(p, "SQLite format 3\0garbage garbage garbage garbage", 48);
	cr_assert_eq(tk_store_open(p, &s), TK_EFORMAT, "%s", tk_store_errmsg(s));
	e = tk_store_error(s);
	cr_assert_eq(tk_error_cause_count(e), 2, "%s", tk_error_message(e));
	expect_cause(e, 1, "sqlite", TK_EFORMAT, NULL);
	tk_store_close(s);
	free(p);
}

Test(error, writer_finish_copies_the_writer_s_causes)
{
	char *sub = tkt_path(dir, "target-is-a-dir");
	cr_assert_eq(mkdir(sub, 0700), 0);
	tk_writer *w = NULL;
	cr_assert_eq(tk_writer_create(sub, &w), TK_OK);
	tk_error *e = tk_error_new();
	tk_error_push(e, TK_EINVAL, "stale, cleared by the call");
	cr_assert_eq(tk_writer_finish(w, e), TK_EIO);
	cr_assert_eq(tk_error_cause_count(e), 2, "%s", tk_error_message(e));
	char want[4200];
	snprintf(want, sizeof(want), "cannot write store '%s'", sub);
	expect_cause(e, 0, "store", TK_EIO, want);
	expect_cause(e, 1, "os", TK_EIO, NULL);
	cr_expect_eq(tk_writer_finish(NULL, e), TK_EINVAL);
	cr_expect_str_eq(tk_error_message(e), "no writer");
	tk_error_free(e);
	free(sub);
}

Test(error, writer_fail_error_keeps_the_causes_and_is_sticky)
{
	char *p = tkt_path(dir, "w.db");
	tk_writer *w = NULL;
	cr_assert_eq(tk_writer_create(p, &w), TK_OK);
	tk_error *e = tk_error_new();
	tk_error_push_from(e, "os", TK_EIO, "Permission denied");
	tk_error_push_from(e, "import", TK_EIO, "cannot read 'x.json'");
	cr_expect_eq(tk_writer_fail_error(w, e), TK_EIO);
	cr_expect_eq(tk_writer_fail(w, TK_EFORMAT, "later"), TK_EIO, "the first failure wins");
	cr_expect_eq(tk_error_cause_count(tk_writer_error(w)), 2);
	cr_expect_str_eq(tk_writer_errmsg(w), "cannot read 'x.json': Permission denied");
	tk_writer_abort(w);
	tk_error_free(e);
	free(p);
}

Test(error, analyze_report_and_diff_carry_the_store_s_causes)
{
	char *p = tkt_path(dir, "missing.db");
	FILE *out = fopen("/dev/null", "w");
	int has = -1;
	struct {
		const char *what;
		int rc;
	} got[4];
	tk_error *e = tkt_err();
	got[0].rc = tk_analyze(p, NULL, e);
	got[0].what = "tk_analyze";
	cr_expect_eq(tk_error_cause_count(e), 2, "tk_analyze: %s", tk_error_message(e));
	expect_cause(e, 1, "os", TK_EIO, "No such file or directory");
	got[1].rc = tk_report_has_analysis(p, &has, e);
	got[1].what = "tk_report_has_analysis";
	cr_expect_eq(tk_error_cause_count(e), 2, "has_analysis: %s", tk_error_message(e));
	got[2].rc = tk_report_write(out, p, NULL, e);
	got[2].what = "tk_report_write";
	cr_expect_eq(tk_error_cause_count(e), 2, "report: %s", tk_error_message(e));
	got[3].rc = tk_report_diff(out, p, p, NULL, e);
	got[3].what = "tk_report_diff";
	cr_expect_eq(tk_error_cause_count(e), 2, "diff: %s", tk_error_message(e));
	for (int i = 0; i < 4; i++)
		cr_expect_eq(got[i].rc, TK_EIO, "%s", got[i].what);
	cr_expect_eq(tk_error_status(e), TK_EIO);
	fclose(out);
	free(p);
}

Test(error, analyze_names_the_step_above_its_reason)
{
	tk_error *e = tkt_err();
	struct tk_analyze_options o;
	tk_analyze_options_init(&o);
	char *dev = tkt_path(dir, "devices.json");
	tkt_spit(dev, "{ not json", 10);
	o.device_file = dev;
	char *p = tkt_path(dir, "s.db");
	cr_assert_eq(tkt_write_fixture(p), TK_OK);
	cr_assert_neq(tk_analyze(p, &o, e), TK_OK);
	cr_assert_eq(tk_error_cause_count(e), 2, "%s", tk_error_message(e));
	char want[4200];
	snprintf(want, sizeof(want), "device peaks of '%s'", p);
	expect_cause(e, 0, "analyze", tk_error_status(e), want);
	free(p);
	free(dev);
}

Test(error, import_calls_name_the_file_above_the_reason)
{
	char *p = tkt_path(dir, "missing.json");
	enum tk_import_format fmt;
	struct tk_input_id id;
	tk_error *e = tkt_err();
	char want[4200];
	snprintf(want, sizeof(want), "cannot read '%s'", p);
	cr_expect_eq(tk_import_detect(p, &fmt, e), TK_EIO);
	cr_assert_eq(tk_error_cause_count(e), 2, "%s", tk_error_message(e));
	expect_cause(e, 0, "import", TK_EIO, want);
	expect_cause(e, 1, "os", TK_EIO, "No such file or directory");
	cr_expect_eq(tk_import_input_id(p, &id, e), TK_EIO);
	cr_assert_eq(tk_error_cause_count(e), 2, "%s", tk_error_message(e));
	expect_cause(e, 0, "import", TK_EIO, want);

	struct tk_xplane_run *runs = NULL;
	int n = -1;
	cr_expect_eq(tk_xplane_list_runs(p, &runs, &n, e), TK_ENOTFOUND);
	cr_expect_eq(tk_error_cause_count(e), 1, "%s", tk_error_message(e));
	cr_expect_eq(tk_error_status(e), TK_ENOTFOUND);

	/* a success leaves the error empty */
	tkt_spit(p, "[]", 2);
	cr_expect_eq(tk_import_detect(p, &fmt, e), TK_OK);
	cr_expect_eq(tk_error_cause_count(e), 0);
	cr_expect_eq(tk_error_status(e), TK_OK);
	free(p);
}

Test(error, rows_write_sqlite_gives_sqlite_s_message)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	cr_assert_eq(sqlite3_open(":memory:", &db), SQLITE_OK);
	/* a statement that fails while stepping: abs() of the smallest integer overflows */
	cr_assert_eq(sqlite3_prepare_v2(db, "SELECT abs(-9223372036854775807 - 1)", -1, &st, NULL),
		     SQLITE_OK);
	FILE *out = fopen("/dev/null", "w");
	struct tk_rows_options opt = {TK_ROWS_CSV, 0};
	tk_error *e = tkt_err();
	cr_expect_eq(tk_rows_write_sqlite(out, st, &opt, e), TK_EINVAL);
	cr_assert_eq(tk_error_cause_count(e), 1);
	expect_cause(e, 0, "sqlite", TK_EINVAL, "integer overflow");
	fclose(out);
	sqlite3_finalize(st);
	sqlite3_close(db);
}

Test(error, output_check_and_peak_option_refuse_with_a_cause)
{
	char *p = tkt_path(dir, "in.json");
	tkt_spit(p, "[]", 2);
	const char *inputs[] = {p};
	tk_error *e = tkt_err();
	cr_expect_eq(tk_output_check(p, inputs, 1, TK_OUTPUT_STORE, e), TK_EINVAL);
	cr_expect_eq(tk_error_cause_count(e), 1);
	cr_expect(strstr(tk_error_message(e), "same file as the input") != NULL, "%s",
		  tk_error_message(e));
	struct tk_analyze_options o;
	tk_analyze_options_init(&o);
	cr_expect_eq(tk_analyze_peak_flops_option(&o, "fp4=1P", e), TK_EINVAL);
	cr_expect_eq(tk_error_cause_count(e), 1);
	expect_cause(e, 0, "analyze", TK_EINVAL, NULL);
	free(p);
}

Test(error, handles_expose_their_errors)
{
	char *p = tkt_path(dir, "missing.db");
	char *o = tkt_path(dir, "out.pftrace");
	tk_exporter *x = NULL;
	struct tk_export_options eo;
	tk_export_options_init(&eo);
	cr_assert_eq(tk_exporter_create(&x), TK_OK);
	cr_expect_eq(tk_exporter_run(x, p, o, &eo), TK_EIO);
	cr_expect_eq(tk_error_cause_count(tk_exporter_error(x)), 2, "%s", tk_exporter_errmsg(x));
	cr_expect_eq(tk_error_status(tk_exporter_error(x)), TK_EIO);
	cr_expect_str_eq(tk_exporter_errmsg(x), tk_error_message(tk_exporter_error(x)));
	tk_exporter_destroy(x);

	tk_check *c = NULL;
	cr_assert_eq(tk_check_new(&c), TK_OK);
	cr_expect_eq(tk_error_cause_count(tk_check_error(c)), 0);
	cr_expect_eq(tk_check_gate(c, "no such gate", TK_GATE_RELATIVE), TK_EINVAL);
	cr_expect_eq(tk_error_cause_count(tk_check_error(c)), 1);
	cr_expect_eq(tk_error_status(tk_check_error(c)), TK_EINVAL);
	cr_expect_str_eq(tk_check_errmsg(c), tk_error_message(tk_check_error(c)));
	tk_check_free(c);

	cr_expect_null(tk_exporter_error(NULL));
	cr_expect_null(tk_check_error(NULL));
	cr_expect_null(tk_store_error(NULL));
	cr_expect_null(tk_writer_error(NULL));
	cr_expect_null(tk_output_error(NULL));
	free(p);
	free(o);
}

Test(error, trace_options_from_env_names_the_variable)
{
	struct tk_trace_options o;
	tk_error *e = tkt_err();
	setenv("TRACEKIT_STEPS", "ten", 1);
	cr_expect_eq(tk_trace_options_from_env(&o, e), TK_EINVAL);
	cr_expect_eq(tk_error_cause_count(e), 1);
	expect_cause(e, 0, "capture", TK_EINVAL,
		     "TRACEKIT_STEPS='ten' is not a non-negative integer");
	unsetenv("TRACEKIT_STEPS");
	cr_expect_eq(tk_trace_options_from_env(&o, e), TK_OK);
	cr_expect_eq(tk_error_cause_count(e), 0);
}

Test(error, importers_leave_their_causes_on_the_writer)
{
	char *js = tkt_path(dir, "bad.json"), *xp = tkt_path(dir, "bad.xplane.pb");
	char *p = tkt_path(dir, "s.db");
	tkt_spit(js, "{\"traceEvents\": [}", 18);
	tkt_spit(xp, "\x0a\xff\xff\xff\xff\x0f", 6);
	struct tk_import_options o;
	tk_import_options_init(&o);
	const char *files[] = {js, xp};
	const char *modules[] = {"json", "xplane"};
	for (int i = 0; i < 2; i++) {
		tk_writer *w = NULL;
		cr_assert_eq(tk_writer_create(p, &w), TK_OK);
		int rc =
		    i ? tk_import_xplane(w, files[i], &o) : tk_import_chrome_json(w, files[i], &o);
		cr_expect_eq(rc, TK_EFORMAT, "%s", tk_writer_errmsg(w));
		tk_error *e = tk_writer_error(w);
		cr_expect_eq(tk_error_status(e), TK_EFORMAT);
		cr_assert_eq(tk_error_cause_count(e), 2, "%s", tk_error_message(e));
		expect_cause(e, 0, "", TK_EFORMAT, NULL);
		expect_cause(e, 1, modules[i], TK_EFORMAT, NULL);
		cr_expect(strstr(tk_error_cause(e, 0), files[i]) != NULL, "%s",
			  tk_error_cause(e, 0));
		tk_writer_abort(w);
	}
	free(js);
	free(xp);
	free(p);
}

/*
 * `tracekit report` and `tracekit diff`: golden files of every format on the fixture store
 * (report_fixture.h; tests/data/report/, regenerated with TK_UPDATE_GOLDEN=1), the readable
 * shortening of C++ names, the command line (help, exit codes, analysis on demand, -o, colours),
 * and reports of every corpus trace whose JSON numbers must equal the analysis tables.
 */
#include <criterion/criterion.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tracekit/tracekit.h>

#include "../../report/report_internal.h"
#include "report_fixture.h"

#define GOLDEN_DIR TK_SOURCE_DIR "/tests/data/report/"

TestSuite(report, .init = tkt_analyze_setup, .fini = tkt_analyze_teardown, .timeout = 900);
/* Tests on traces of the corpus that tests/data/real does not vendor (tk_test.h). */
TestSuite(full_corpus, .init = tkt_analyze_setup, .fini = tkt_analyze_teardown, .timeout = 900);

/* Compare @got with the golden file @name, or rewrite it when TK_UPDATE_GOLDEN=1. */
static void expect_golden(const char *name, const char *got)
{
	char path[1024];
	snprintf(path, sizeof(path), "%s%s", GOLDEN_DIR, name);
	const char *update = getenv("TK_UPDATE_GOLDEN");
	if (update && !strcmp(update, "1")) {
		FILE *f = fopen(path, "wb");
		cr_assert_not_null(f, "cannot write %s", path);
		fputs(got, f);
		fclose(f);
		return;
	}
	char *want = rf_slurp(path);
	cr_assert_not_null(want, "no golden file %s (run with TK_UPDATE_GOLDEN=1 to write it)",
			   path);
	if (strcmp(want, got)) {
		size_t line = 1, i = 0;
		while (want[i] && want[i] == got[i])
			line += want[i++] == '\n';
		char *actual = tkt_path(tkt_dir, name);
		FILE *f = fopen(actual, "wb");
		if (f) {
			fputs(got, f);
			fclose(f);
		}
		cr_expect_fail(
		    "%s differs from the golden file at line %zu:\n  want: %.200s\n  got:  "
		    "%.200s\n(TK_UPDATE_GOLDEN=1 rewrites it)",
		    name, line, want + i, got + i);
		free(actual);
	}
	free(want);
}

/* The fixture store, analysed by the report command itself. */
static void report_golden(const char *format, const char *golden)
{
	rf_write_store(tkt_db);
	struct tkt_run r =
	    tkt_tracekit("report", tkt_db, "--format", format, "--width", "100", NULL);
	cr_assert_eq(r.code, 0, "report --format %s: exit %d\n%s", format, r.code, r.err);
	char *norm = rf_replace(r.out, tkt_dir, "$DIR");
	expect_golden(golden, norm);
	free(norm);
	tkt_run_free(&r);
}

Test(report, text_golden)
{
	report_golden("text", "report.txt");
}

Test(report, json_golden)
{
	report_golden("json", "report.json");
}

Test(report, markdown_golden)
{
	report_golden("md", "report.md");
}

Test(report, html_golden)
{
	report_golden("html", "report.html");
}

/* Two stores: the fixture and the same with kernels of device 1 twice as long and a new one. */
static char *write_diff_pair(void)
{
	char *b = tkt_path(tkt_dir, "b.db");
	rf_write_store(tkt_db);
	tk_writer *w = NULL;
	cr_assert_eq(tk_writer_create(b, &w), TK_OK);
	int64_t proc, d0, s0, thr;
	struct tk_process_info p = {10, "train", "node-a", 0};
	TKT_OK(tk_writer_add_process(w, &p, &proc));
	struct tk_device_info d = {0,  "gpu", "NVIDIA H100", "nvidia", "node-a", proc,
				   0,  "9.0", 132,	     TK_NONE,  TK_NONE,	 TK_NONE,
				   -1, 2048,  TK_NONE,	     TK_NONE};
	TKT_OK(tk_writer_add_device(w, &d, &d0));
	struct tk_track_info t1 = {TK_TRACK_THREAD, "main", proc, TK_NONE, 1, TK_NONE, NULL};
	struct tk_track_info t2 = {TK_TRACK_STREAM, "Stream #7", proc, d0, TK_NONE, 7, NULL};
	TKT_OK(tk_writer_add_track(w, &t1, &thr));
	TKT_OK(tk_writer_add_track(w, &t2, &s0));
	int64_t t = TKT_T0;
	tkt_launched_op(w, thr, s0, TK_EV_KERNEL, RF_LONG, t + 8000, 60000, t + 1500);
	tkt_launched_op(w, thr, s0, TK_EV_KERNEL, RF_SCRIPT, t + 70000, 2000, t + 2000);
	tkt_launched_op(w, thr, s0, TK_EV_KERNEL, "fused_new_kernel", t + 75000, 5000, t + 2500);
	tkt_finish(w);
	return b;
}

static void diff_golden(const char *format, const char *golden)
{
	char *b = write_diff_pair();
	struct tkt_run r = tkt_tracekit("diff", tkt_db, b, "--format", format, "--width", "100",
					"--threshold", "10", NULL);
	cr_assert_eq(r.code, 0, "diff --format %s: exit %d\n%s", format, r.code, r.err);
	char *norm = rf_replace(r.out, tkt_dir, "$DIR");
	expect_golden(golden, norm);
	free(norm);
	tkt_run_free(&r);
	free(b);
}

Test(report, diff_text_golden)
{
	diff_golden("text", "diff.txt");
}

Test(report, diff_json_golden)
{
	diff_golden("json", "diff.json");
}

Test(report, diff_markdown_golden)
{
	diff_golden("md", "diff.md");
}

Test(report, diff_html_golden)
{
	diff_golden("html", "diff.html");
}

Test(report, diff_flags_new_vanished_and_changed)
{
	char *b = write_diff_pair();
	struct tkt_run r = tkt_tracekit("diff", tkt_db, b, "--format", "json", NULL);
	cr_assert_eq(r.code, 0, "%s", r.err);
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	cr_assert_eq(sqlite3_open(":memory:", &db), SQLITE_OK);
	cr_assert_eq(
	    sqlite3_prepare_v2(
		db,
		"SELECT json_extract(?1, '$.summary.kernels_new'),"
		" json_extract(?1, '$.summary.kernels_gone'),"
		" (SELECT json_extract(value, '$.flag') FROM json_each(?1, '$.kernels.rows')"
		"  WHERE json_extract(value, '$.name') = 'fused_new_kernel'),"
		" (SELECT json_extract(value, '$.b_total_ns') - json_extract(value, '$.a_total_ns')"
		"  FROM json_each(?1, '$.kernels.rows') WHERE json_extract(value, '$.name') = ?2),"
		" (SELECT json_extract(value, '$.flag') FROM json_each(?1, '$.kernels.rows')"
		"  WHERE json_extract(value, '$.name') = ?3)",
		-1, &st, NULL),
	    SQLITE_OK);
	sqlite3_bind_text(st, 1, r.out, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, RF_LONG, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, RF_NCCL, -1, SQLITE_STATIC);
	cr_assert_eq(sqlite3_step(st), SQLITE_ROW);
	cr_expect_eq(sqlite3_column_int(st, 0), 1, "one new kernel");
	cr_expect_eq(sqlite3_column_int(st, 1), 3,
		     "three vanished kernels (all-reduce, sgemm, odd)");
	cr_expect_str_eq((const char *)sqlite3_column_text(st, 2), "new");
	cr_expect_eq(sqlite3_column_int64(st, 3), 0, "60 us of the long kernel in both");
	cr_expect_str_eq((const char *)sqlite3_column_text(st, 4), "gone");
	sqlite3_finalize(st);
	sqlite3_close(db);
	tkt_run_free(&r);
	free(b);
}

/* ---- name shortening ---- */

static void expect_short(const char *name, int w, const char *want)
{
	struct tku_buf b = {0};
	tkr_short_name(&b, name, w);
	cr_expect_str_eq(b.p ? b.p : "", want, "shortening to %d", w);
	cr_expect_leq(tkr_width(b.p ? b.p : ""), w);
	free(b.p);
}

/* tkr_short_name() fits a label: as it is, then without the namespaces of its function name,
 * then cut (the labels themselves come from labels.c: tests/report/test_labels.c). */
Test(report, labels_are_fitted_to_a_width)
{
	expect_short("short", 10, "short");
	expect_short("foo<float, 4>", 30, "foo<float, 4>");
	expect_short("foo<float, 4>", 8, "foo<flo\xe2\x80\xa6");
	expect_short("at::native::multi_tensor_apply_kernel<TensorListMetadata<1>, float>", 80,
		     "at::native::multi_tensor_apply_kernel<TensorListMetadata<1>, float>");
	expect_short("at::native::multi_tensor_apply_kernel<TensorListMetadata<1>, float>", 60,
		     "\xe2\x80\xa6::multi_tensor_apply_kernel<TensorListMetadata<1>, float>");
	expect_short("at::native::multi_tensor_apply_kernel<TensorListMetadata<1>, float>", 30,
		     "\xe2\x80\xa6::multi_tensor_apply_kernel<\xe2\x80\xa6");
	expect_short("bool operator<(A const&, B const&)", 25,
		     "bool operator<(A const&,\xe2\x80\xa6");
	expect_short("Memcpy HtoD (Pageable -> Device)", 20, "Memcpy HtoD (Pageab\xe2\x80\xa6");
	expect_short("unbalanced<int(", 10, "unbalance\xe2\x80\xa6");
}

/* ---- command line ---- */

Test(report, cli_help_usage_and_missing_store)
{
	struct tkt_run r = tkt_tracekit("report", "--help", NULL);
	cr_expect_eq(r.code, 0);
	cr_expect(strstr(r.out, "--format") != NULL);
	tkt_run_free(&r);
	r = tkt_tracekit("report", tkt_db, "--format", "pdf", NULL);
	cr_expect_eq(r.code, 2);
	cr_expect(strstr(r.err, "pdf") != NULL, "%s", r.err);
	tkt_run_free(&r);
	r = tkt_tracekit("report", NULL);
	cr_expect_eq(r.code, 2);
	tkt_run_free(&r);
	char *missing = tkt_path(tkt_dir, "missing.db");
	r = tkt_tracekit("report", missing, NULL);
	cr_expect_eq(r.code, 2);
	cr_expect(strstr(r.err, missing) != NULL, "%s", r.err);
	tkt_run_free(&r);
	r = tkt_tracekit("diff", missing, NULL);
	cr_expect_eq(r.code, 2);
	tkt_run_free(&r);
	r = tkt_tracekit("diff", "--threshold", "x", "a", "b", NULL);
	cr_expect_eq(r.code, 2);
	tkt_run_free(&r);
	free(missing);
}

Test(report, analyses_first_writes_file_and_no_colour_off_a_tty)
{
	rf_write_store(tkt_db);
	cr_expect_eq(tkt_query_int(tkt_db, "SELECT count(*) FROM sqlite_master WHERE name GLOB "
					   "'analysis_*'"),
		     0);
	char *out = tkt_path(tkt_dir, "r.txt");
	struct tkt_run r = tkt_tracekit("report", tkt_db, "-o", out, NULL);
	cr_assert_eq(r.code, 0, "%s", r.err);
	cr_expect(strstr(r.err, "running analyze first") != NULL, "%s", r.err);
	cr_expect_str_eq(r.out, "");
	cr_expect(tkt_query_int(tkt_db, "SELECT count(*) FROM analysis_kpi") > 0);
	char *text = rf_slurp(out);
	cr_assert_not_null(text);
	cr_expect(strstr(text, "KPIs") && strstr(text, "Findings"));
	cr_expect(!strchr(text, '\033'), "no colour in a file");
	free(text);
	tkt_run_free(&r);
	/* a second run does not analyse again */
	r = tkt_tracekit("report", tkt_db, "--no-color", "--format", "md", NULL);
	cr_expect_eq(r.code, 0);
	cr_expect(!strstr(r.err, "running analyze"), "%s", r.err);
	cr_expect(strstr(r.out, "| device | kpi |") != NULL);
	tkt_run_free(&r);
	free(out);
}

/* An analysis by an older tracekit (its tables may lack columns the report reads: meta
 * analysis_version missing or older) is run again, not reported from (or failed on). */
Test(report, analysis_by_an_older_tracekit_is_run_again)
{
	rf_write_store(tkt_db);
	tkt_analyze(tkt_db, TK_WINDOW_AUTO, -1);
	cr_expect_eq(tkt_query_int(tkt_db, "SELECT value FROM meta WHERE key = 'analysis_version'"),
		     TK_ANALYSIS_VERSION);
	/* as an older tracekit leaves it: no version, and a table without a newer column */
	tkt_exec_sql(tkt_db, "DELETE FROM meta WHERE key = 'analysis_version';"
			     "ALTER TABLE analysis_kernel_stats DROP COLUMN source_occupancy");
	struct tkt_run r = tkt_tracekit("report", tkt_db, "--format", "json", NULL);
	cr_expect_eq(r.code, 0, "%s", r.err);
	cr_expect(strstr(r.err, "was analysed by an older tracekit: running analyze again"), "%s",
		  r.err);
	tkt_run_free(&r);
	cr_expect_eq(tkt_query_int(tkt_db, "SELECT value FROM meta WHERE key = 'analysis_version'"),
		     TK_ANALYSIS_VERSION);
	r = tkt_tracekit("report", tkt_db, "--format", "json", NULL);
	cr_expect_eq(r.code, 0, "%s", r.err);
	cr_expect(!strstr(r.err, "running analyze"), "%s", r.err);
	tkt_run_free(&r);
}

Test(report, text_fits_the_width)
{
	rf_write_store(tkt_db);
	const char *widths[] = {"80", "100", "160"};
	for (size_t k = 0; k < 3; k++) {
		struct tkt_run r = tkt_tracekit("report", tkt_db, "--width", widths[k], NULL);
		cr_assert_eq(r.code, 0, "%s", r.err);
		int w = atoi(widths[k]);
		for (char *line = strtok(r.out, "\n"); line; line = strtok(NULL, "\n")) {
			/* findings wrap at the width; table lines must fit */
			cr_expect_leq(tkr_width(line), w, "wider than %d: %s", w, line);
		}
		tkt_run_free(&r);
	}
}

/* ---- corpus: numbers shown equal the analysis tables ---- */

/* Run @sql with ?1 bound to @json on the store @path; its single integer result. */
static int64_t json_check(const char *path, const char *json, const char *sql)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	cr_assert_eq(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	cr_assert_eq(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK, "%s: %s", sql,
		     sqlite3_errmsg(db));
	sqlite3_bind_text(st, 1, json, -1, SQLITE_STATIC);
	cr_assert_eq(sqlite3_step(st), SQLITE_ROW, "%s: %s", sql, sqlite3_errmsg(db));
	int64_t v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	sqlite3_close(db);
	return v;
}

#define ROWS(sec) "json_each(?1, '$." sec ".rows')"
#define J(col) "json_extract(j.value, '$." col "')"
#define SAME(a, b) "((" a ") IS (" b ") OR abs((" a ") - (" b ")) <= 1e-9 * abs(" b "))"

static const struct {
	const char *what, *sql;
} checks[] =
    {
	{"every KPI, value and band",
	 "SELECT (SELECT count(*) FROM analysis_kpi) - (SELECT count(*) FROM " ROWS(
	     "kpis") " j"
		     " JOIN analysis_kpi k ON k.device_id = " J("device_id") " AND k.kpi = " J(
			 "kpi") " WHERE " SAME(J("value"),
					       "k.value") " AND k.band = " J("band") ")"},
	{"device time of the selected windows",
	 "SELECT (SELECT count(*) FROM analysis_device_time WHERE selected = 1) - (SELECT count(*)"
	 " FROM " ROWS(
	     "device_time") " j JOIN analysis_device_time d ON d.selected = 1 AND"
			    " d.device_id = " J("device_id") " WHERE d.busy_ns = " J(
				"bus"
				"y_"
				"ns") " AND d.window_ns = " J("window_ns") " AND "
									   "d.idle_ns "
									   "= " J(
									       "idle_"
									       "ns") " AND "
										     "d.exposed_"
										     "comm_ns "
										     "= " J(
											 "exp"
											 "ose"
											 "d_"
											 "com"
											 "m_"
											 "ns") " AN"
											       "D"
											       " " SAME(
												   J("utilization"),
												   "d.utilization") ")"},
	{"findings",
	 "SELECT (SELECT count(*) FROM analysis_findings) - (SELECT count(*) "
	 "FROM " ROWS("findings") " j JOIN analysis_findings f ON f.id = " J(
	     "id") " WHERE f.rule = " J("rule") " AND " SAME(J("metric"),
							     "f.metric") " AND "
									 "f.severity "
									 "= " J("severi"
										"ty") ")"},
	{"top kernels in rank order",
	 "SELECT count(*) FROM " ROWS(
	     "kernels") " j WHERE NOT EXISTS (SELECT 1 FROM"
			" analysis_kernel_stats k WHERE k.rank = " J(
			    "rank") " AND k.rank = j.key + 1 AND"
				    " k.name = " J("name") " AND k.total_ns = " J(
					"total_ns") " AND k.occurrences = " J("occurrences") " AND"
											     " " SAME(
												 J("occupancy"),
												 "k"
												 "."
												 "o"
												 "c"
												 "c"
												 "u"
												 "p"
												 "a"
												 "n"
												 "c"
												 "y") ")"},
	{"kernel total", "SELECT json_extract(?1, '$.kernels.total') - (SELECT count(*) FROM"
			 " analysis_kernel_stats)"},
	{"top ops by self time",
	 "SELECT count(*) FROM " ROWS(
	     "ops") " j WHERE NOT EXISTS (SELECT 1 FROM"
		    " analysis_op_profile o WHERE o.level = " J("level") " AND o.name = " J("name") " AND o.device_id IS " J("device_id") " AND o.process_id IS " J(
			"process_id") " AND o.self_ns = " J("self_ns") " AND o.total_ns = " J("tota"
											      "l_"
											      "ns") ") OR " J("self_ns") " < (SELECT self_ns FROM analysis_op_profile WHERE level <> 'idle' ORDER BY self_ns DESC"
															 " LIMIT 1 OFFSET json_array_length(?1, '$.ops.rows') - 1)"},
	{"op total",
	 "SELECT json_extract(?1, '$.ops.total') - (SELECT count(*) FROM analysis_op_profile"
	 " WHERE level <> 'idle')"},
	{"GPU time by operator and annotation",
	 "SELECT count(*) FROM (SELECT j.value AS value, 'host_op' AS level FROM " ROWS("gpu_ops") " j UNION ALL SELECT j.value, 'annotation' FROM " ROWS(
	     "gpu_annotations") " j) j"
				" WHERE NOT EXISTS (SELECT 1 FROM analysis_op_gpu_time o WHERE "
				"o.level = j.level"
				" AND o.name = " J("name") " AND o.process_id IS " J("process_id") " AND o.calls = " J(
				    "calls") " AND o.direct_ns = " J("direct_ns") " AND "
										  "o.subtree_ns "
										  "= " J(
										      "subtree_"
										      "ns") " AN"
											    "D "
											    "o."
											    "dir"
											    "ect"
											    "_op"
											    "s "
											    "="
											    " " J(
												"di"
												"re"
												"ct"
												"_o"
												"p"
												"s") ")"},
	{"GPU time by operator: the top rows",
	 "SELECT json_extract(?1, '$.gpu_ops.total') - (SELECT count(*) FROM analysis_op_gpu_time"
	 " WHERE level = 'host_op' AND subtree_ops > 0) + (SELECT count(*) FROM " ROWS(
	     "gpu_ops") " j WHERE " J("direct_ns") " < (SELECT direct_ns FROM analysis_op_gpu_time "
						   "WHERE level ="
						   " 'host_op' AND subtree_ops > 0 ORDER BY "
						   "direct_ns DESC LIMIT 1 OFFSET"
						   " json_array_length(?1, '$.gpu_ops.rows') - "
						   "1))"},
	{"GPU time per step by annotation",
	 "SELECT count(*) FROM " ROWS(
	     "gpu_annotation_steps") " j WHERE NOT EXISTS (SELECT 1 FROM"
				     " analysis_op_gpu_steps g WHERE g.device_id = " J("device_id") " AND g.step = " J(
					 "step") " AND g.name IS " J("name") " AND g.process_id "
									     "IS " J(
										 "process_id") " AN"
											       "D "
											       "g."
											       "dev"
											       "ice"
											       "_"
											       "ns "
											       "="
											       " " J("device_ns") " AND g.ops = " J(
												   "ops") ")"},
	{"largest gaps",
	 "SELECT count(*) FROM " ROWS(
	     "gaps") " j WHERE NOT EXISTS (SELECT 1 FROM analysis_gaps g"
		     " WHERE g.id = " J("id") " AND g.dur_ns = " J("dur_ns") " AND g.cause = " J(
			 "cause") ") OR " J("dur_ns") " < (SELECT dur_ns FROM analysis_gaps ORDER "
						      "BY dur_ns DESC LIMIT 1"
						      " OFFSET json_array_length(?1, "
						      "'$.gaps.rows') - 1)"},
	{"gap histogram adds up",
	 "SELECT (SELECT count(*) FROM analysis_gaps) - coalesce((SELECT sum(" J(
	     "gaps") ") FROM " ROWS("gap_histogram") " j), 0)"},
	{"memory peaks",
	 "SELECT (SELECT count(*) FROM analysis_memory) - (SELECT count(*) "
	 "FROM " ROWS("memory") " j JOIN analysis_memory m ON m.series_id = " J(
	     "se"
	     "ri"
	     "es"
	     "_i"
	     "d") " WHERE m.peak_bytes = " J("peak_bytes") " AND m.peak_ns = " J("peak_ns") ") - "
											    "(SELEC"
											    "T "
											    "count("
											    "*) "
											    "FROM"
											    " analy"
											    "sis_"
											    "memory"
											    ") + "
											    "json_"
											    "array_"
											    "length"
											    "(?1, "
											    "'$."
											    "memory"
											    ".rows'"
											    ")"},
	{"step statistics",
	 "SELECT (SELECT count(*) FROM analysis_step_stats) - (SELECT count(*) "
	 "FROM " ROWS(
	     "step_stats") " j JOIN analysis_step_stats s ON "
			   "s.device_id = " J(
			       "device_id") " WHERE "
					    "s.steps "
					    "= " J("step"
						   "s") " AND " SAME(J("media"
								       "n_"
								       "ns"),
								     "s."
								     "median_"
								     "ns") " "
									   "A"
									   "N"
									   "D"
									   " "
									   "s"
									   "."
									   "o"
									   "u"
									   "t"
									   "l"
									   "i"
									   "e"
									   "r"
									   "s"
									   " "
									   "="
									   " " J("outliers") ")"},
	{"collective ranks",
	 "SELECT (SELECT count(*) FROM analysis_comm_ranks) - (SELECT count(*) "
	 "FROM " ROWS(
	     "comm_ranks") " j JOIN analysis_comm_ranks c ON "
			   "c.device_id = " J(
			       "device_id") " WHERE "
					    "c.times_"
					    "last = " J("times_last") " AND c.max_skew_ns = " J(
						"max_"
						"skew_"
						"ns") ")"},
};

/* Import the real trace @rel into @db, report it in every format, compare the JSON numbers. */
static void check_corpus_trace(const char *rel, const char *db)
{
	char *path = tkt_real(rel);
	struct tkt_run r = tkt_tracekit("import", path, "-o", db, NULL);
	free(path);
	int code = r.code;
	cr_expect_eq(code, 0, "import %s: %s", rel, r.err);
	tkt_run_free(&r);
	if (code != 0)
		return;
	r = tkt_tracekit("report", db, "--format", "json", "--top", "15", NULL);
	code = r.code;
	cr_expect_eq(code, 0, "report %s: %s", rel, r.err);
	for (size_t i = 0; code == 0 && i < sizeof(checks) / sizeof(checks[0]); i++)
		cr_expect_eq(json_check(db, r.out, checks[i].sql), 0, "%s: %s differ", rel,
			     checks[i].what);
	tkt_run_free(&r);
	static const char *const formats[] = {"text", "md", "html"};
	for (size_t i = 0; code == 0 && i < 3; i++) {
		r = tkt_tracekit("report", db, "--format", formats[i], NULL);
		cr_expect_eq(r.code, 0, "%s --format %s: %s", rel, formats[i], r.err);
		cr_expect(strlen(r.out) > 200, "%s --format %s is nearly empty", rel, formats[i]);
		tkt_run_free(&r);
	}
}

/*
 * Check every trace (Kineto / Chrome JSON and XPlane files) under @root (the vendored subset or
 * the corpus) that is vendored (@vendored) or not, one after the other; how many traces @root
 * has in all.
 */
static int check_traces_under(const char *root, int vendored)
{
	char cmd[4096], rel[1024];
	/* (HTA's memory_timeline.raw.gz is not a trace: import refuses it, tests/import) */
	snprintf(cmd, sizeof(cmd),
		 "cd '%s' && find kineto xplane/logdir -type f \\( -name '*.json' -o -name "
		 "'*.json.gz' -o -name '*.pb' \\) | LC_ALL=C sort",
		 root);
	FILE *list = popen(cmd, "r");
	cr_assert_not_null(list);
	int n = 0;
	while (fgets(rel, sizeof(rel), list)) {
		rel[strcspn(rel, "\n")] = '\0';
		char name[32];
		snprintf(name, sizeof(name), "corpus%d.db", n++);
		if (tkt_vendored(rel) != vendored)
			continue;
		char *db = tkt_path(tkt_dir, name);
		check_corpus_trace(rel, db);
		remove(db);
		free(db);
	}
	pclose(list);
	return n;
}

Test(report, every_corpus_trace_renders_and_matches_the_tables)
{
	int n = check_traces_under(tkt_real_dir(), 1);
	cr_expect_gt(n, 0, "no trace in %s", tkt_real_dir());
}

Test(full_corpus, every_corpus_trace_renders_and_matches_the_tables)
{
	int n = check_traces_under(tkt_corpus_dir(), 0);
	cr_expect_gt(n, 20, "only %d corpus traces found", n);
}

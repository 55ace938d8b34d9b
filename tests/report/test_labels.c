/*
 * Names and labels people recognise (docs/reports.md, "Names"): short kernel labels that stay
 * distinct (labels.c) on the five FillFunctor kernels of a real trace and on hostile names;
 * devices and processes as the trace names them; evidence in human units; --width respected;
 * --full-names; the HTML hover and the JSON label fields. The real trace is the vendored HTA
 * trace_filter/sampled_rank-1.json.gz; tests/data/report/sampled_rank1_names.py reads the
 * figures used here from it (rank 1, kernels on device 1, host pid 4045, the five names).
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tracekit/tracekit.h>

#include "../../report/report_internal.h"
#include "tk_test.h"

TKT_TMPDIR_FIXTURE;

TestSuite(labels, .init = setup, .fini = teardown);

#define FILL(t)                                                                        \
	"void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<" t \
	">, at::detail::Array<char*, 1> >(int, at::native::FillFunctor<" t             \
	">, at::detail::Array<char*, 1>)"

static char *fill_names[] = {FILL("bool"), FILL("double"), FILL("float"), FILL("int"),
			     FILL("long")};
static const char *const fill_types[] = {"bool", "double", "float", "int", "long"};

/* Labels of @names (@n), asserting success; free with free_labels(). */
static char **labels_of(char **names, size_t n)
{
	char **l = calloc(n, sizeof(*l));
	cr_assert_not_null(l);
	cr_assert_eq(tkr_name_labels(names, n, l), TK_OK);
	return l;
}

static void free_labels(char **l, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(l[i]);
	free(l);
}

/* The old shortener gave all five "void at::native::vectorized_elementwise_kernel<...>(...)". */
Test(labels, five_fill_functor_kernels_get_five_labels)
{
	char **l = labels_of(fill_names, 5);
	for (size_t i = 0; i < 5; i++) {
		char want[256];
		/* the rule: no return type, no parameter list, template arguments two deep with
		 * their namespaces dropped, "> >" as ">>" */
		snprintf(
		    want, sizeof(want),
		    "at::native::vectorized_elementwise_kernel<4, FillFunctor<%s>, Array<char*, "
		    "1>>",
		    fill_types[i]);
		cr_expect_str_eq(l[i], want);
		cr_expect_lt(strlen(l[i]) * 2, strlen(fill_names[i]), "half the length at most");
	}
	free_labels(l, 5);
	/* alone, a name needs no detail: every template argument collapsed */
	l = labels_of(fill_names, 1);
	cr_expect_str_eq(l[0], "at::native::vectorized_elementwise_kernel<\xe2\x80\xa6>");
	free_labels(l, 1);
	/* two that differ deeper than the rest: only they get more detail */
	char *mixed[] = {fill_names[0], fill_names[3], "void other_kernel<float, 4>(float*)"};
	l = labels_of(mixed, 3);
	cr_expect_str_eq(l[0], "at::native::vectorized_elementwise_kernel<4, FillFunctor<bool>, "
			       "Array<char*, 1>>");
	cr_expect_str_eq(l[2], "other_kernel<\xe2\x80\xa6>");
	free_labels(l, 3);
}

Test(labels, hostile_names_stay_distinct_and_whole)
{
	/* equal once the return type is gone: numbered in the order given */
	char *same[] = {"f<int>(int)", "void f<int>(int)"};
	char **l = labels_of(same, 2);
	cr_expect_str_eq(l[0], "f<int>(int) #1");
	cr_expect_str_eq(l[1], "f<int>(int) #2");
	free_labels(l, 2);
	/* not C++ or not balanced: kept as they are */
	char *odd[] = {"Memcpy HtoD (Pageable -> Device)",
		       "<backward op>",
		       "bool operator<(A const&, B const&)",
		       "unbalanced<int(",
		       "x > y",
		       "a)b}c>d",
		       "esc\x1b[31mred<int>(x)",
		       ""};
	size_t n = sizeof(odd) / sizeof(odd[0]);
	l = labels_of(odd, n);
	for (size_t i = 0; i < 6; i++)
		cr_expect_str_eq(l[i], odd[i]);
	cr_expect_str_eq(l[6], "esc\x1b[31mred<\xe2\x80\xa6>", "escaping is the formats' job");
	cr_expect_str_eq(l[7], "");
	free_labels(l, n);
	/* deep nesting: one pass (a quadratic walk would not finish in the test's time) */
	size_t depth = 200000;
	char *deep = malloc(3 * depth + 8);
	cr_assert_not_null(deep);
	for (size_t i = 0; i < depth; i++)
		memcpy(deep + 2 * i, "a<", 2);
	memset(deep + 2 * depth, '>', depth);
	deep[3 * depth] = '\0';
	char *names[] = {deep};
	l = labels_of(names, 1);
	cr_expect_str_eq(l[0], "a<\xe2\x80\xa6>");
	free_labels(l, 1);
	free(deep);
}

/* ---- reports of the real trace ---- */

static char *real_store(void)
{
	char *trace = tkt_real("kineto/HolisticTraceAnalysis/tests/data/trace_filter/"
			       "sampled_rank-1.json.gz");
	char *db = tkt_path(dir, "r1.db");
	struct tkt_run r = tkt_tracekit("import", trace, "-o", db, NULL);
	cr_assert_eq(r.code, 0, "%s", r.err);
	tkt_run_free(&r);
	r = tkt_tracekit("analyze", db, NULL);
	cr_assert_eq(r.code, 0, "%s", r.err);
	tkt_run_free(&r);
	free(trace);
	return db;
}

static struct tkt_run report(const char *db, const char *format, const char *extra)
{
	struct tkt_run r = extra ? tkt_tracekit("report", db, "--format", format, "--no-color",
						"--width", "80", "--top", "1000", extra, NULL)
				 : tkt_tracekit("report", db, "--format", format, "--no-color",
						"--width", "80", "--top", "1000", NULL);
	cr_assert_eq(r.code, 0, "%s", r.err);
	return r;
}

/* No raw nanosecond figure named by its JSON key ("start_ns=1682725898448641000"). */
static void expect_no_raw_ns(const char *what, const char *out)
{
	cr_expect(!strstr(out, "start_ns="), "%s: %.200s", what, strstr(out, "start_ns="));
	cr_expect(!strstr(out, "_ns="), "%s: %.200s", what, strstr(out, "_ns="));
	cr_expect(!strstr(out, "pct="), "%s", what);
}

Test(labels, real_trace_text_fits_80_columns_with_labels_and_human_units)
{
	char *db = real_store();
	struct tkt_run r = report(db, "text", NULL);
	int line = 1;
	for (const char *p = r.out; *p; line++) {
		size_t n = strcspn(p, "\n");
		char *one = strndup(p, n);
		cr_expect_leq(tkr_width(one), 80, "line %d is %d wide: %s", line, tkr_width(one),
			      one);
		free(one);
		p += n + (p[n] == '\n');
	}
	expect_no_raw_ns("text", r.out);
	/* GPU 1 of rank 1 (kernel events on pid 1, distributedInfo rank 1), host pid 4045 */
	cr_expect(strstr(r.out, "GPU 1 (rank 1)"), "no device label");
	cr_expect(strstr(r.out, "pid 4045 (rank 1)"), "no process label");
	cr_expect(!strstr(r.out, "(device 0)"), "a store id in a finding");
	/* the five FillFunctor kernels, as five labels */
	for (size_t i = 0; i < 5; i++) {
		char want[128];
		snprintf(want, sizeof(want), "FillFunctor<%s>", fill_types[i]);
		cr_expect(strstr(r.out, want), "no label with %s", want);
	}
	tkt_run_free(&r);
	/* --full-names: the full names instead */
	r = report(db, "text", "--full-names");
	for (size_t i = 0; i < 5; i++)
		cr_expect(strstr(r.out, fill_names[i]), "no full name %zu", i);
	tkt_run_free(&r);
	free(db);
}

Test(labels, real_trace_html_md_json)
{
	char *db = real_store();
	struct tkt_run r = report(db, "html", NULL);
	expect_no_raw_ns("html", r.out);
	/* the label in the cell, the full name on hover */
	const char *want =
	    "title=\"void at::native::vectorized_elementwise_kernel&lt;4, "
	    "at::native::FillFunctor&lt;int&gt;, at::detail::Array&lt;char*, 1&gt; "
	    "&gt;(int, at::native::FillFunctor&lt;int&gt;, "
	    "at::detail::Array&lt;char*, 1&gt;)\">at::native::vectorized_elementwise_"
	    "kernel&lt;4, FillFunctor&lt;int&gt;, Array&lt;char*, 1&gt;&gt;</td>";
	cr_expect(strstr(r.out, want), "no labelled cell with its full name on hover");
	cr_expect(strstr(r.out, ">GPU 1 (rank 1)</td>"));
	tkt_run_free(&r);
	r = report(db, "md", NULL);
	expect_no_raw_ns("md", r.out);
	cr_expect(strstr(r.out, "(GPU 1 (rank 1))"), "findings name the device");
	tkt_run_free(&r);
	/* JSON: raw ids and numbers kept, labels beside them, full names kept */
	r = report(db, "json", NULL);
	cr_expect(strstr(r.out, "\"device_id\": 0,\n      \"device\": \"GPU 1 (rank 1)\""));
	cr_expect(strstr(r.out, "\"start_ns\": "), "JSON keeps raw evidence");
	/* JSON escapes < and > */
	cr_expect(strstr(r.out,
			 "\"short_name\": \"at::native::vectorized_elementwise_kernel"
			 "\\u003c4, FillFunctor\\u003cint\\u003e, Array\\u003cchar*, 1\\u003e"
			 "\\u003e\""),
		  "no short_name field");
	tkt_run_free(&r);
	free(db);
}

Test(labels, demo_store_text_has_no_raw_ns)
{
	char *db = tkt_path(dir, "demo.db");
	struct tkt_run r = tkt_tracekit("synth", "-o", db, NULL);
	cr_assert_eq(r.code, 0, "%s", r.err);
	tkt_run_free(&r);
	static const char *const formats[] = {"text", "md", "html"};
	for (size_t i = 0; i < 3; i++) {
		r = report(db, formats[i], NULL);
		expect_no_raw_ns(formats[i], r.out);
		cr_expect(strstr(r.out, "GPU 0"), "%s: no device label", formats[i]);
		tkt_run_free(&r);
	}
	free(db);
}

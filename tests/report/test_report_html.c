/*
 * The HTML report in a real browser: headless Chromium (Debian package `chromium`, installed by
 * tests/report/install_chromium.sh when missing; the tests skip with a message when it cannot be)
 * loads the report of the fixture store, runs its script (which marks the body when it finished
 * without an exception and, with #tk-selftest, sorts every table by every column), and dumps the
 * DOM: the KPI table and every chart are there, the kernel named <script>alert(1)</script> is
 * text, not a script, and nothing logged an uncaught error. A screenshot must be a real PNG.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_fixture.h"

TestSuite(report_html, .init = tkt_analyze_setup, .fini = tkt_analyze_teardown, .timeout = 900);

/* The chromium binary (static storage), installing it when missing; NULL when unavailable. */
static const char *chromium(void)
{
	static const char *const names[] = {"chromium", "chromium-browser"};
	char cmd[512];
	for (int attempt = 0; attempt < 2; attempt++) {
		for (size_t i = 0; i < 2; i++) {
			snprintf(cmd, sizeof(cmd), "command -v %s >/dev/null 2>&1", names[i]);
			if (system(cmd) == 0)
				return names[i];
		}
		if (attempt == 0) {
			snprintf(cmd, sizeof(cmd), "'%s/tests/report/install_chromium.sh' >&2",
				 TK_SOURCE_DIR);
			if (system(cmd) != 0)
				return NULL;
		}
	}
	return NULL;
}

static int count(const char *s, const char *what)
{
	int n = 0;
	for (const char *p = strstr(s, what); p; p = strstr(p + 1, what))
		n++;
	return n;
}

/* Load @html in headless chromium; the dumped DOM (malloc'd) and the log in *log. */
static char *load(const char *browser, const char *html, char **log)
{
	char cmd[4096];
	char *dom = tkt_path(tkt_dir, "dom.html"), *logp = tkt_path(tkt_dir, "chromium.log");
	char *profile = tkt_path(tkt_dir, "profile");
	snprintf(cmd, sizeof(cmd),
		 "timeout 120 %s --headless --no-sandbox --disable-gpu --no-first-run "
		 "--user-data-dir='%s' --enable-logging=stderr --v=0 --dump-dom "
		 "'file://%s#tk-selftest' >'%s' 2>'%s'",
		 browser, profile, html, dom, logp);
	int rc = system(cmd);
	char *out = rf_slurp(dom);
	*log = rf_slurp(logp);
	cr_assert_eq(rc, 0, "chromium failed (%d):\n%.3000s", rc, *log ? *log : "");
	cr_assert_not_null(out);
	free(dom);
	free(logp);
	free(profile);
	return out;
}

Test(report_html, report_opens_in_chromium_with_charts_sorting_and_escaping)
{
	const char *browser = chromium();
	if (!browser) {
		cr_skip_test("chromium is not installed and could not be installed "
			     "(tests/report/install_chromium.sh): HTML browser test skipped");
		return;
	}
	rf_write_store(tkt_db);
	char *html = tkt_path(tkt_dir, "report.html");
	struct tkt_run r = tkt_tracekit("report", tkt_db, "--format", "html", "-o", html, NULL);
	cr_assert_eq(r.code, 0, "%s", r.err);
	tkt_run_free(&r);
	char *src = rf_slurp(html);
	cr_assert_not_null(src);
	cr_expect(!strstr(src, "http://") || count(src, "http://") == count(src, "xmlns=\"http://"),
		  "the report fetches nothing: the only URLs are SVG namespaces");
	cr_expect(!strstr(src, "https://"));
	cr_expect_eq(count(src, "<script"), 1, "one script element, ours");

	char *log = NULL, *dom = load(browser, html, &log);
	cr_expect(strstr(dom, "data-tk-ready=\"1\"") != NULL, "the script ran to its end");
	cr_expect(strstr(dom, "data-tk-selftest=\"sorted ") != NULL, "sorting ran");
	cr_expect(!strstr(log, "Uncaught"), "script error:\n%.3000s", log);
	cr_expect(strstr(dom, "<table class=\"sortable\" id=\"t-kpis\">") != NULL, "KPI table");
	cr_expect(strstr(dom, "gpu_utilization") != NULL);
	static const char *const charts[] = {"util", "ops", "kernels", "gaps", "memory", "steps"};
	for (size_t i = 0; i < sizeof(charts) / sizeof(charts[0]); i++) {
		char id[64];
		snprintf(id, sizeof(id), "id=\"chart-%s\"", charts[i]);
		cr_expect(strstr(dom, id) != NULL, "chart %s is missing", charts[i]);
	}
	/* the kernel named <script>alert(1)</script> is text everywhere */
	cr_expect(strstr(dom, "&lt;script&gt;alert(1)&lt;/script&gt;") != NULL);
	cr_expect(!strstr(dom, "<script>alert(1)"), "an injected script element");
	cr_expect_eq(count(dom, "<script"), 1, "only the report's own script");
	cr_expect(strstr(dom, "void k&lt;float, \"q\"&gt;(a &lt; b &amp;&amp; c &gt; d, 'x'), "
			      "Ünïcødé ✓") != NULL,
		  "quotes, ampersands and non-ASCII text survive");

	/* a screenshot that is a real, non-trivial PNG */
	char cmd[4096];
	char *png = tkt_path(tkt_dir, "report.png"), *profile = tkt_path(tkt_dir, "profile2");
	snprintf(cmd, sizeof(cmd),
		 "timeout 120 %s --headless --no-sandbox --disable-gpu --no-first-run "
		 "--hide-scrollbars --user-data-dir='%s' --window-size=1280,2400 "
		 "--screenshot='%s' 'file://%s' >/dev/null 2>&1",
		 browser, profile, png, html);
	cr_expect_eq(system(cmd), 0, "screenshot failed");
	FILE *f = fopen(png, "rb");
	cr_assert_not_null(f, "no screenshot at %s", png);
	unsigned char head[24];
	size_t n = fread(head, 1, sizeof(head), f);
	fseek(f, 0, SEEK_END);
	long size = ftell(f);
	fclose(f);
	cr_expect_eq(n, sizeof(head));
	cr_expect(!memcmp(head, "\x89PNG\r\n\x1a\n", 8), "not a PNG");
	unsigned w = (unsigned)head[16] << 24 | head[17] << 16 | head[18] << 8 | head[19];
	cr_expect_eq(w, 1280u, "PNG width %u", w);
	cr_expect_gt(size, 30000, "a blank page compresses to less: %ld bytes", size);
	free(png);
	free(profile);
	free(dom);
	free(log);
	free(src);
	free(html);
}

Test(report_html, diff_opens_in_chromium)
{
	const char *browser = chromium();
	if (!browser) {
		cr_skip_test("chromium is not installed and could not be installed: skipped");
		return;
	}
	rf_write_store(tkt_db);
	char *html = tkt_path(tkt_dir, "diff.html");
	struct tkt_run r =
	    tkt_tracekit("diff", tkt_db, tkt_db, "--format", "html", "-o", html, NULL);
	cr_assert_eq(r.code, 0, "%s", r.err);
	tkt_run_free(&r);
	char *log = NULL, *dom = load(browser, html, &log);
	cr_expect(strstr(dom, "data-tk-ready=\"1\"") != NULL);
	cr_expect(!strstr(log, "Uncaught"), "%.3000s", log);
	cr_expect(strstr(dom, "id=\"t-kpis\"") && strstr(dom, "id=\"t-kernels\""));
	cr_expect(!strstr(dom, "<script>alert(1)"));
	free(dom);
	free(log);
	free(html);
}

/*
 * The roofline chart in the browser: the hand-made trace with GEMMs of known FLOPs
 * (tests/data/analyze/op_perf_nested.json) and peaks given on the command line (fp32 100
 * TFLOP/s, 1 TB/s): one chart for device 0, its fp32 roof (bandwidth slope, then flat, labelled
 * with the peak) and one point per op group, titled with the op and its category.
 */
Test(report_html, roofline_renders_in_chromium)
{
	const char *browser = chromium();
	if (!browser) {
		cr_skip_test("chromium is not installed and could not be installed: skipped");
		return;
	}
	tkt_ok(tkt_tracekit("import", TK_SOURCE_DIR "/tests/data/analyze/op_perf_nested.json", "-o",
			    tkt_db, NULL));
	tkt_ok(tkt_tracekit("analyze", tkt_db, "--peak-flops", "fp32=100T", "--peak-bandwidth",
			    "1T", NULL));
	char *html = tkt_path(tkt_dir, "roofline.html");
	tkt_ok(tkt_tracekit("report", tkt_db, "--format", "html", "-o", html, NULL));
	char *log = NULL, *dom = load(browser, html, &log);
	cr_expect(!strstr(log, "Uncaught"), "script error:\n%.3000s", log);
	char *svg = strstr(dom, "id=\"chart-roofline-0\"");
	cr_assert_not_null(svg, "no roofline chart in the DOM");
	char *end = strstr(svg, "</svg>");
	cr_assert_not_null(end);
	*end = '\0';
	cr_expect_eq(count(svg, "class=\"roof\""), 1, "one roof: the fp32 one");
	cr_expect(strstr(svg, "fp32 peak 100 TFLOP/s") != NULL, "the roof's label");
	cr_expect(strstr(svg, "aten::linear (gemm)") != NULL, "the linear group's point");
	cr_expect(strstr(svg, "aten::addmm (gemm)") != NULL, "the addmm group's point");
	cr_expect_eq(count(svg, "fill-opacity"), 2, "two op groups, two points");
	free(dom);
	free(log);
	free(html);
}

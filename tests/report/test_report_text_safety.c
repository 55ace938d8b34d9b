/*
 * Reports and diffs of a store whose names carry invalid UTF-8, terminal escapes, newlines,
 * Markdown pipes, bidi controls and HTML (tests/common/tk_text_check.h) are valid in their
 * format (docs/reports.md, "Text safety"): JSON parses and holds U+FFFD where bytes were invalid,
 * Markdown tables keep their columns, text has no escape sequence but its colours, HTML shows
 * bidi controls and tags escaped; plus the shared sanitizer (include/tracekit/text.h) itself.
 */
#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tracekit/tracekit.h>

#include "report_fixture.h"
#include "tk_text_check.h"

TestSuite(text_safety, .init = tc_setup, .fini = tc_teardown);

/* `tracekit report` (or diff against the same store) in @format, asserting exit 0. */
static struct tkt_run run_format(const char *cmd, const char *format)
{
	struct tkt_run r =
	    !strcmp(cmd, "diff")
		? tkt_tracekit("diff", tc_db, tc_db, "--format", format, NULL)
		: tkt_tracekit("report", tc_db, "--format", format, "--no-color", NULL);
	cr_assert_eq(r.code, 0, "%s --format %s: exit %d\n%s", cmd, format, r.code, r.err);
	return r;
}

/* The checks every format shares: valid UTF-8, no terminal escape, no raw bidi control. */
static void expect_clean(const char *what, const char *out)
{
	TC_EXPECT_UTF8(out, what);
	cr_expect(!strchr(out, '\x1b'), "%s: a raw ESC byte: ...%.60s", what, strchr(out, '\x1b'));
	cr_expect(!tc_has_bidi(out), "%s: a raw bidi control", what);
	cr_expect(!strstr(out, "\xc2\x9b"), "%s: a raw C1 control (CSI)", what);
}

Test(text_safety, json_report_parses_with_u_fffd_for_invalid_bytes)
{
	const char *cmds[] = {"report", "diff"};
	for (int i = 0; i < 2; i++) {
		struct tkt_run r = run_format(cmds[i], "json");
		TC_EXPECT_UTF8(r.out, cmds[i]);
		cJSON *doc = cJSON_Parse(r.out);
		cr_expect_not_null(doc, "%s: the JSON does not parse", cmds[i]);
		/* every invalid byte is one U+FFFD, the valid text around it kept */
		cr_expect(strstr(r.out, "\"bad\\ufffd\\ufffd\""), "%s: no repaired name", cmds[i]);
		cr_expect(strstr(r.out, "surrogate\\ufffd\\ufffd\\ufffd"), "%s", cmds[i]);
		cr_expect(strstr(r.out, "esc\\u001b[31mred"), "%s: ESC not escaped", cmds[i]);
		cJSON_Delete(doc);
		tkt_run_free(&r);
	}
	/* the findings' evidence names the kernels too: embedded as JSON, repaired */
	struct tkt_run r = run_format("report", "json");
	cJSON *doc = cJSON_Parse(r.out);
	cr_assert_not_null(doc);
	cJSON *rows = cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "findings"), "rows"), *f;
	int named = 0;
	cJSON_ArrayForEach(f, rows)
	{
		cJSON *ev = cJSON_GetObjectItem(f, "evidence");
		cr_expect(cJSON_IsObject(ev), "evidence is not embedded as an object");
		char *text = cJSON_PrintUnformatted(ev);
		named += text && strstr(text, "bad" TC_REPL TC_REPL) != NULL;
		free(text);
	}
	cr_expect(named > 0, "no finding's evidence names the dominating kernel:\n%s", r.out);
	cJSON_Delete(doc);
	tkt_run_free(&r);
}

/* Unescaped '|' in @line (a backslash escapes the next character). */
static int pipes(const char *line, size_t n)
{
	int count = 0;
	for (size_t i = 0; i < n; i++) {
		if (line[i] == '\\')
			i++;
		else if (line[i] == '|')
			count++;
	}
	return count;
}

Test(text_safety, markdown_tables_keep_their_columns)
{
	const char *cmds[] = {"report", "diff"};
	for (int i = 0; i < 2; i++) {
		struct tkt_run r = run_format(cmds[i], "md");
		expect_clean(cmds[i], r.out);
		int tables = 0, want = -1;
		for (const char *p = r.out; *p;) {
			size_t n = strcspn(p, "\n");
			if (*p == '|') {
				int got = pipes(p, n);
				if (want < 0)
					want = got, tables++;
				cr_expect_eq(
				    got, want,
				    "%s: a row with %d cells where the header has %d: %.*s",
				    cmds[i], got - 1, want - 1, (int)n, p);
			} else {
				want = -1;
			}
			p += n + (p[n] == '\n');
		}
		cr_expect(tables >= 3, "%s: only %d tables", cmds[i], tables);
		cr_expect(strstr(r.out, "new\\\\nline"), "%s: newline not shown as \\n", cmds[i]);
		cr_expect(strstr(r.out, "pipe\\|tick\\`x\\`\\|end"), "%s: pipes not escaped",
			  cmds[i]);
		cr_expect(strstr(r.out, "rlo\\\\u{202E}gnp.exe"), "%s: U+202E not shown", cmds[i]);
		tkt_run_free(&r);
	}
}

Test(text_safety, text_report_has_no_escape_sequence_but_its_colours)
{
	const char *cmds[] = {"report", "diff"};
	for (int i = 0; i < 2; i++) {
		struct tkt_run r = run_format(cmds[i], "text");
		expect_clean(cmds[i], r.out);
		cr_expect(strstr(r.out, "esc\\x1b[31mred\\x1b[0m"), "%s: ESC not shown", cmds[i]);
		cr_expect(strstr(r.out, "rlo\\u{202E}gnp.exe"), "%s: U+202E not shown", cmds[i]);
		cr_expect(strstr(r.out, "csi\\u{9B}2J"), "%s: the C1 control not shown", cmds[i]);
		cr_expect(strstr(r.out, "new\\nline"), "%s: newline not shown", cmds[i]);
		cr_expect(strstr(r.out, "bad" TC_REPL TC_REPL), "%s: no U+FFFD", cmds[i]);
		tkt_run_free(&r);
	}
	/* with colours: every ESC starts one of the report's own colour codes */
	char *path = tkt_path(tc_dir, "colour.txt");
	FILE *f = fopen(path, "w+b");
	cr_assert_not_null(f);
	struct tk_report_options o;
	tk_report_options_init(&o);
	o.color = 1;
	cr_assert_eq(tk_report_write(f, tc_db, &o, tkt_err()), TK_OK, "%s", tkt_errmsg());
	fclose(f);
	char *out = rf_slurp(path);
	static const char *const codes[] = {"\x1b[0m",	"\x1b[1m",  "\x1b[2m",
					    "\x1b[31m", "\x1b[32m", "\x1b[33m"};
	int colours = 0;
	for (const char *p = strchr(out, '\x1b'); p; p = strchr(p + 1, '\x1b')) {
		int known = 0;
		for (size_t k = 0; k < sizeof(codes) / sizeof(codes[0]); k++)
			known |= !strncmp(p, codes[k], strlen(codes[k]));
		cr_expect(known, "an ESC that is not a colour: %.20s", p);
		colours++;
	}
	cr_expect(colours > 0, "no colour at all");
	TC_EXPECT_UTF8(out, "coloured text");
	free(out);
	free(path);
}

Test(text_safety, html_shows_bidi_controls_and_tags_escaped)
{
	const char *cmds[] = {"report", "diff"};
	for (int i = 0; i < 2; i++) {
		struct tkt_run r = run_format(cmds[i], "html");
		expect_clean(cmds[i], r.out);
		cr_expect(!strstr(r.out, TC_SCRIPT), "%s: a raw script tag", cmds[i]);
		cr_expect(strstr(r.out, "&lt;script&gt;alert(1)&lt;/script&gt;"), "%s", cmds[i]);
		cr_expect(strstr(r.out, "rlo\\u{202E}gnp.exe"), "%s: U+202E not shown", cmds[i]);
		cr_expect(strstr(r.out, "bad" TC_REPL TC_REPL), "%s: no U+FFFD", cmds[i]);
		tkt_run_free(&r);
	}
}

Test(text_safety, info_and_query_tables_escape_names)
{
	struct tkt_run r = tkt_tracekit("info", tc_db, NULL);
	cr_assert_eq(r.code, 0, "%s", r.err);
	expect_clean("info", r.out);
	cr_expect(strstr(r.out, "proc\\x1b]0;owned\\x07" TC_REPL), "info:\n%s", r.out);
	tkt_run_free(&r);
	r = tkt_tracekit("query", tc_db, "SELECT name FROM kernels ORDER BY ts_ns", NULL);
	cr_assert_eq(r.code, 0, "%s", r.err);
	expect_clean("query table", r.out);
	int lines = 0;
	for (const char *p = r.out; *p; p++)
		lines += *p == '\n';
	cr_expect_eq(lines, 2 + (int)TC_NKERNELS, "one line per row:\n%s", r.out);
	tkt_run_free(&r);
	/* CSV stays faithful (controls kept, quoted) but valid UTF-8 */
	r = tkt_tracekit("query", tc_db, "SELECT name FROM kernels ORDER BY ts_ns", "--format",
			 "csv", NULL);
	cr_assert_eq(r.code, 0, "%s", r.err);
	TC_EXPECT_UTF8(r.out, "query csv");
	cr_expect(strstr(r.out, "\n\"new\nline\"\n") && strstr(r.out, TC_ESC), "%s", r.out);
	tkt_run_free(&r);
}

/* ---- the sanitizer itself ---- */

static void expect_escape(const char *in, size_t n, int flags, const char *want)
{
	size_t len = 0;
	char *got = tk_text_escape(in, n, flags, &len);
	cr_assert_not_null(got);
	cr_expect_str_eq(got, want);
	cr_expect_eq(len, strlen(want));
	free(got);
}

Test(text_safety, sanitizer_replaces_each_invalid_byte_and_escapes_what_is_asked)
{
	expect_escape(TC_BAD, strlen(TC_BAD), 0, "bad" TC_REPL TC_REPL);
	expect_escape(TC_OVERLONG, strlen(TC_OVERLONG), 0, "overlong" TC_REPL TC_REPL);
	expect_escape(TC_SURROGATE, strlen(TC_SURROGATE), 0, "surrogate" TC_REPL TC_REPL TC_REPL);
	expect_escape(TC_TRUNC, strlen(TC_TRUNC), 0, "truncated" TC_REPL TC_REPL);
	expect_escape(TC_BIG, strlen(TC_BIG), 0, "beyond" TC_REPL TC_REPL TC_REPL TC_REPL);
	expect_escape("\xe2\x82x", 3, 0, TC_REPL TC_REPL "x");
	expect_escape("a\0b", 3, TK_TEXT_CONTROLS, "a\\x00b");
	/* valid text passes through, the replacement character included */
	expect_escape("Ünïcødé ✓ " TC_REPL " \xf0\x9f\x98\x80", 24, TK_TEXT_TERMINAL,
		      "Ünïcødé ✓ " TC_REPL " \xf0\x9f\x98\x80");
	expect_escape(TC_ESC "\t\r\x7f", strlen(TC_ESC) + 3, TK_TEXT_CONTROLS,
		      "esc\\x1b[31mred\\x1b[0m\\t\\r\\x7f");
	expect_escape(TC_CSI "\xe2\x80\xa8", strlen(TC_CSI) + 3, TK_TEXT_CONTROLS,
		      "csi\\u{9B}2J\\u{2028}");
	/* bidi controls only with TK_TEXT_BIDI */
	expect_escape(TC_RLO, strlen(TC_RLO), TK_TEXT_CONTROLS, TC_RLO);
	expect_escape("\xd8\x9c\xe2\x80\x8e\xe2\x80\x8f\xe2\x80\xaa\xe2\x81\xa6\xe2\x81\xa9", 17,
		      TK_TEXT_BIDI, "\\u{61C}\\u{200E}\\u{200F}\\u{202A}\\u{2066}\\u{2069}");
	expect_escape(TC_NL, strlen(TC_NL), TK_TEXT_BIDI, TC_NL);
	cr_expect(tk_utf8_valid("Ünïcødé", strlen("Ünïcødé")));
	cr_expect(!tk_utf8_valid(TC_SURROGATE, strlen(TC_SURROGATE)));
	cr_expect_eq(tk_utf8_prefix("a\xc3\xa9\xc3\xa9", 5, 4), 3);
	cr_expect_eq(tk_utf8_count("a\xc3\xa9\xe2\x9c\x93"), 3);
}

Test(text_safety, json_literals_are_valid_and_html_safe_on_request)
{
	char *j = tk_text_json("q\"\\<&>\n\x01\xff\xe2\x80\xa8", 12, 0, NULL);
	cr_assert_not_null(j);
	cr_expect_str_eq(j, "\"q\\\"\\\\<&>\\n\\u0001\\ufffd\xe2\x80\xa8\"");
	free(j);
	j = tk_text_json("<&>\xe2\x80\xa8", 6, TK_TEXT_HTML_SAFE, NULL);
	cr_expect_str_eq(j, "\"\\u003c\\u0026\\u003e\\u2028\"");
	free(j);
}

/*
 * `tracekit ls` on a logdir whose run and host names carry terminal escape sequences, newlines,
 * U+202E and invalid UTF-8: every name is shown escaped, one run per line (docs/reports.md,
 * "Text safety").
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "tk_test.h"
#include "tk_text_check.h"

/* Make @logdir/plugins/profile/@run/@host.xplane.pb (an empty file: no profile times). */
static void make_run(const char *logdir, const char *run, const char *host)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/plugins", logdir);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/plugins/profile", logdir);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/plugins/profile/%s", logdir, run);
	cr_assert_eq(mkdir(path, 0755), 0, "cannot make %s", path);
	snprintf(path, sizeof(path), "%s/plugins/profile/%s/%s.xplane.pb", logdir, run, host);
	FILE *f = fopen(path, "wb");
	cr_assert_not_null(f, "cannot write %s", path);
	fclose(f);
}

/* Characters (not bytes) from @a up to @b. */
static size_t chars(const char *a, const char *b)
{
	char *t = strndup(a, (size_t)(b - a));
	size_t n = tk_utf8_count(t);
	free(t);
	return n;
}

Test(ls, run_and_host_names_are_shown_escaped_one_run_per_line)
{
	char *dir = tkt_mkdtemp();
	make_run(dir, "a\x1b[2Jb\nc", "h\x1b[1mx");
	make_run(dir, "r" TC_RLO, "host");
	make_run(dir, "bad\xff", "n\xe2\x82");
	struct tkt_run r = tkt_tracekit("ls", dir, NULL);
	cr_assert_eq(r.code, 0, "%s", r.err);
	TC_EXPECT_UTF8(r.out, "ls");
	cr_expect(!strchr(r.out, '\x1b'), "a raw ESC:\n%s", r.out);
	cr_expect(!tc_has_bidi(r.out), "a raw bidi control:\n%s", r.out);
	cr_expect(strstr(r.out, "a\\x1b[2Jb\\nc "), "%s", r.out);
	cr_expect(strstr(r.out, "h\\x1b[1mx"), "%s", r.out);
	cr_expect(strstr(r.out, "rrlo\\u{202E}gnp.exe "), "%s", r.out);
	cr_expect(strstr(r.out, "bad" TC_REPL " "), "%s", r.out);
	cr_expect(strstr(r.out, "n" TC_REPL TC_REPL "\n"), "%s", r.out);
	int lines = 0;
	for (const char *p = r.out; *p; p++)
		lines += *p == '\n';
	cr_expect_eq(lines, 4, "a header and one line per run:\n%s", r.out);
	/* columns line up: every row's second column starts where the header's does */
	const char *second = strstr(r.out, "  start (UTC)");
	cr_assert_not_null(second);
	size_t col = chars(r.out, second);
	for (const char *line = strchr(r.out, '\n') + 1; *line; line = strchr(line, '\n') + 1) {
		const char *gap = strstr(line, "  -");
		cr_assert_not_null(gap, "%s", line);
		cr_expect_eq(chars(line, gap), col, "misaligned: %.80s", line);
	}
	tkt_run_free(&r);
	tkt_rmdir(dir);
	free(dir);
}

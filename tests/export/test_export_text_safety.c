/*
 * Exports of a store whose names carry invalid UTF-8 and control characters
 * (tests/common/tk_text_check.h): Chrome JSON parses and is valid UTF-8; the protobuf strings of
 * Perfetto and XPlane are valid UTF-8 (proto3 requires it), invalid bytes written as U+FFFD and
 * names cut to the exporters' buffers cut between characters (docs/export.md).
 */
#define _GNU_SOURCE /* memmem */
#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export_test.h"
#include "tk_text_check.h"

TestSuite(export_text, .init = tc_setup, .fini = tc_teardown);

struct bytes {
	char *p;
	size_t n;
};

static struct bytes read_all(const char *path)
{
	struct bytes b = {NULL, 0};
	FILE *f = fopen(path, "rb");
	cr_assert_not_null(f, "cannot read %s", path);
	fseek(f, 0, SEEK_END);
	b.n = (size_t)ftell(f);
	fseek(f, 0, SEEK_SET);
	b.p = malloc(b.n + 1);
	cr_assert(b.p && fread(b.p, 1, b.n, f) == b.n);
	b.p[b.n] = '\0';
	fclose(f);
	return b;
}

static int has(const struct bytes *b, const char *s)
{
	return memmem(b->p, b->n, s, strlen(s)) != NULL;
}

/*
 * The checks of a protobuf export @b: no invalid name is written raw, each is written with one
 * U+FFFD per invalid byte, and the host thread's name ("é" x 300, longer than the exporters'
 * buffers) ends on a whole character wherever it was cut.
 */
static void expect_proto_names(const char *what, const struct bytes *b)
{
	static const char *const raw[] = {TC_BAD, TC_OVERLONG, TC_SURROGATE, TC_TRUNC, TC_BIG};
	static const char *const fixed[] = {
	    "bad" TC_REPL TC_REPL, "overlong" TC_REPL TC_REPL, "surrogate" TC_REPL TC_REPL TC_REPL,
	    "truncated" TC_REPL TC_REPL, "beyond" TC_REPL TC_REPL TC_REPL TC_REPL};
	for (size_t i = 0; i < sizeof(raw) / sizeof(raw[0]); i++) {
		cr_expect(!has(b, raw[i]), "%s: a raw invalid name (%zu)", what, i);
		cr_expect(has(b, fixed[i]), "%s: no repaired name %s", what, fixed[i]);
	}
	int runs = 0;
	for (size_t i = 0; i + 1 < b->n; i++) {
		if ((unsigned char)b->p[i] != 0xC3 || (unsigned char)b->p[i + 1] != 0xA9)
			continue;
		size_t j = i;
		while (j < b->n && (unsigned char)b->p[j] == ((j - i) % 2 ? 0xA9 : 0xC3))
			j++;
		if (j - i >= 100) {
			runs++;
			cr_expect((j - i) % 2 == 0,
				  "%s: the thread name is cut inside a character "
				  "(%zu bytes of é, then %02x)",
				  what, j - i, (unsigned char)b->p[j]);
		}
		i = j;
	}
	cr_expect(runs > 0, "%s: the thread name is missing", what);
}

Test(export_text, chrome_json_parses_and_is_valid_utf8)
{
	char *out = tkt_path(tc_dir, "trace.json");
	RUN_OK("export", tc_db, "--format", "chrome", "-o", out);
	struct bytes b = read_all(out);
	TC_EXPECT_UTF8(b.p, "chrome");
	cJSON *doc = cJSON_Parse(b.p);
	cr_expect_not_null(doc, "the Chrome JSON does not parse");
	cJSON_Delete(doc);
	cr_expect(has(&b, "\"bad" TC_REPL TC_REPL "\""), "no repaired kernel name");
	cr_expect(has(&b, "\"esc\\u001b[31mred\\u001b[0m\""), "ESC not escaped");
	/* it imports back with the repaired names */
	char *back = tkt_path(tc_dir, "back.db");
	RUN_OK("import", out, "-o", back);
	cr_expect_eq(tkt_query_int(back, "SELECT count(*) FROM kernels WHERE name = 'bad' || "
					 "char(65533) || char(65533)"),
		     1);
	free(back);
	free(b.p);
	free(out);
}

Test(export_text, perfetto_strings_are_valid_utf8)
{
	char *out = tkt_path(tc_dir, "trace.pftrace");
	RUN_OK("export", tc_db, "--format", "perfetto", "-o", out);
	struct bytes b = read_all(out);
	expect_proto_names("perfetto", &b);
	free(b.p);
	free(out);
}

Test(export_text, xplane_strings_are_valid_utf8)
{
	char *out = tkt_path(tc_dir, "logdir"), run[4600];
	RUN_OK("export", tc_db, "--format", "xplane", "-o", out, "--run", "r");
	snprintf(run, sizeof(run), "%s/plugins/profile/r", out);
	DIR *d = opendir(run);
	cr_assert_not_null(d, "no run directory %s", run);
	struct bytes all = {NULL, 0};
	for (struct dirent *e; (e = readdir(d));) {
		if (!strstr(e->d_name, ".xplane.pb"))
			continue;
		char *path = tkt_path(run, e->d_name);
		struct bytes one = read_all(path);
		all.p = realloc(all.p, all.n + one.n + 1);
		memcpy(all.p + all.n, one.p, one.n);
		all.n += one.n;
		free(one.p);
		free(path);
	}
	closedir(d);
	cr_assert(all.n > 0, "no .xplane.pb in %s", run);
	expect_proto_names("xplane", &all);
	free(all.p);
	free(out);
}

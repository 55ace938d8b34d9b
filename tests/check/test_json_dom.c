/*
 * Tests of import/json_dom.c, the bounded JSON DOM for baselines and gates files: valid documents
 * (nesting, escapes, unicode, numbers) and hostile ones (every truncation of a valid document,
 * duplicate keys, nesting 65 deep, trailing content, gzip, the size limit).
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tracekit/error.h>
#include <zlib.h>

#include "util/json_dom.h"
#include "util/json_lex.h"
#include "tk_test.h"

static char *dir, *path;
static char err[512];

static void setup(void)
{
	dir = tkt_mkdtemp();
	path = tkt_path(dir, "in.json");
}

static void teardown(void)
{
	tkt_rmdir(dir);
	free(dir);
	free(path);
}

TestSuite(json_dom, .init = setup, .fini = teardown, .timeout = 300);

static void put(const char *text, size_t len)
{
	FILE *f = fopen(path, "wb");
	cr_assert(f);
	cr_assert_eq(fwrite(text, 1, len, f), len);
	fclose(f);
}

/* Parse @text (NUL-terminated) with a generous limit; the status, the value in *out. */
static int parse(const char *text, struct tku_json_value **out)
{
	put(text, strlen(text));
	err[0] = 0;
	return tku_json_parse_file(path, 1 << 20, out, err, sizeof(err));
}

static const char doc[] = "{\n"
			  "  \"name\": \"a\\\"b\\\\c\\/d\\n\\t\\u00e9\\ud83d\\ude00\",\n"
			  "  \"nums\": [0, -1, 1.5, 2e3, -4.25E-2, 12345678901234567890, 1e308],\n"
			  "  \"flags\": [true, false, null],\n"
			  "  \"nested\": {\"a\": {\"b\": [[], {}, [1, [2, {\"c\": \"d\"}]]]}},\n"
			  "  \"utf8\": \"µs ✓\",\n"
			  "  \"empty\": \"\"\n"
			  "}\n";

Test(json_dom, valid_document_every_type_and_position)
{
	struct tku_json_value *v = NULL;
	cr_assert_eq(parse(doc, &v), TK_OK, "%s", err);
	cr_assert_eq(v->type, TKU_JSON_OBJECT);
	cr_assert_eq(v->n, 6);
	cr_expect_str_eq(v->keys[0], "name");
	cr_expect_str_eq(v->keys[5], "empty", "members in file order");
	const struct tku_json_value *s = tku_json_get(v, "name");
	cr_assert(s && s->type == TKU_JSON_STRING);
	cr_expect_str_eq(s->str, "a\"b\\c/d\n\t\xc3\xa9\xf0\x9f\x98\x80");
	cr_expect_eq(s->len, strlen(s->str));
	cr_expect_eq(s->line, 2);
	cr_expect_eq(s->col, 11);
	const struct tku_json_value *n = tku_json_get(v, "nums");
	cr_assert(n && n->type == TKU_JSON_ARRAY && n->n == 7);
	double want[] = {0, -1, 1.5, 2000, -0.0425, 12345678901234567890.0, 1e308};
	for (size_t i = 0; i < 7; i++) {
		cr_expect_eq(n->items[i].type, TKU_JSON_NUMBER);
		cr_expect_eq(n->items[i].num, want[i], "nums[%zu] = %g", i, n->items[i].num);
	}
	cr_expect_eq(n->items[1].col, 15);
	const struct tku_json_value *f = tku_json_get(v, "flags");
	cr_expect(f->items[0].type == TKU_JSON_BOOL && f->items[0].b == 1);
	cr_expect(f->items[1].type == TKU_JSON_BOOL && f->items[1].b == 0);
	cr_expect(f->items[2].type == TKU_JSON_NULL);
	const struct tku_json_value *b =
	    tku_json_get(tku_json_get(tku_json_get(v, "nested"), "a"), "b");
	cr_assert(b && b->type == TKU_JSON_ARRAY && b->n == 3);
	cr_expect(b->items[0].type == TKU_JSON_ARRAY && b->items[0].n == 0);
	cr_expect(b->items[1].type == TKU_JSON_OBJECT && b->items[1].n == 0);
	const struct tku_json_value *c = tku_json_get(&b->items[2].items[1].items[1], "c");
	cr_assert(c);
	cr_expect_str_eq(c->str, "d");
	cr_expect_eq(c->line, 5);
	cr_expect_str_eq(tku_json_get(v, "utf8")->str, "µs ✓");
	cr_expect_eq(tku_json_get(v, "empty")->len, 0);
	cr_expect_null(tku_json_get(v, "absent"));
	cr_expect_null(tku_json_get(n, "nums"), "not an object");
	cr_expect_null(tku_json_get(NULL, "x"));
	tku_json_free(v);
	tku_json_free(NULL);
}

Test(json_dom, scalars_at_the_top_and_a_raw_nul_in_a_string)
{
	struct tku_json_value *v = NULL;
	cr_assert_eq(parse(" 42 ", &v), TK_OK, "%s", err);
	cr_expect(v->type == TKU_JSON_NUMBER && v->num == 42);
	tku_json_free(v);
	put("\"a\0b\"", 5);
	cr_assert_eq(tku_json_parse_file(path, 100, &v, err, sizeof(err)), TK_OK, "%s", err);
	cr_expect_eq(v->len, 3);
	cr_expect_eq(memcmp(v->str, "a\0b", 4), 0);
	tku_json_free(v);
}

/* Every truncation of the valid document: TK_EFORMAT naming the file, line and column. */
Test(json_dom, every_truncation_is_a_format_error_with_its_place)
{
	size_t len = strlen(doc);
	size_t end = len;
	while (end > 0 && (doc[end - 1] == '\n' || doc[end - 1] == ' '))
		end--; /* "}" plus trailing whitespace: the cut must remove the '}' */
	for (size_t cut = 0; cut < end; cut++) {
		struct tku_json_value *v = (struct tku_json_value *)1;
		put(doc, cut);
		err[0] = 0;
		int st = tku_json_parse_file(path, 1 << 20, &v, err, sizeof(err));
		cr_assert_eq(st, TK_EFORMAT, "cut at %zu: status %d (%s)", cut, st, err);
		cr_assert_null(v);
		cr_assert(strstr(err, "in.json': line ") && strstr(err, ", column "),
			  "cut at %zu: %s", cut, err);
	}
}

Test(json_dom, syntax_errors_name_line_and_column)
{
	struct tku_json_value *v = NULL;
	cr_expect_eq(parse("{\n  \"a\": 1,\n  \"b\": 2 \"c\"\n}", &v), TK_EFORMAT);
	cr_expect(strstr(err, "line 3, column 10: expected ',' or '}' after an object member"),
		  "%s", err);
	cr_expect_eq(parse("[1, 2,]", &v), TK_EFORMAT);
	cr_expect(strstr(err, "line 1, column 7: expected a value, found ']'"), "%s", err);
	cr_expect_eq(parse("[1 2]", &v), TK_EFORMAT);
	cr_expect(strstr(err, "expected ',' or ']' after an array element"), "%s", err);
	cr_expect_eq(parse("{\"a\" 1}", &v), TK_EFORMAT);
	cr_expect(strstr(err, "expected ':' after an object key"), "%s", err);
	cr_expect_eq(parse("{1: 2}", &v), TK_EFORMAT);
	cr_expect(strstr(err, "expected a key string or '}'"), "%s", err);
	cr_expect_eq(parse("", &v), TK_EFORMAT);
	cr_expect(strstr(err, "line 1, column 1: expected a value, found end of input"), "%s", err);
	cr_expect_eq(parse("[01]", &v), TK_EFORMAT);
	cr_expect_null(v);
}

Test(json_dom, duplicate_key_is_refused_naming_it)
{
	struct tku_json_value *v = NULL;
	cr_expect_eq(parse("{\"a\": 1,\n \"b\": {\"x\": 1, \"y\": 2},\n \"a\": 3}", &v),
		     TK_EFORMAT);
	cr_expect(strstr(err, "line 3, column 7: key \"a\" appears twice in one object (first at "
			      "line 1)"),
		  "%s", err);
	cr_expect_null(v);
	/* the same key in two different objects is fine */
	cr_assert_eq(parse("{\"a\": {\"k\": 1}, \"b\": {\"k\": 2}}", &v), TK_OK, "%s", err);
	tku_json_free(v);
	/* a key escaped differently is the same key */
	cr_expect_eq(parse("{\"k\": 1, \"\\u006b\": 2}", &v), TK_EFORMAT);
	cr_expect(strstr(err, "key \"k\" appears twice"), "%s", err);
}

static char *nest(int depth)
{
	char *s = malloc((size_t)depth * 2 + 1);
	for (int i = 0; i < depth; i++)
		s[i] = '[', s[depth + i] = ']';
	s[depth * 2] = 0;
	return s;
}

Test(json_dom, nesting_up_to_the_limit_and_not_beyond)
{
	struct tku_json_value *v = NULL;
	char *ok = nest(TKU_JSON_MAX_DEPTH), *deep = nest(TKU_JSON_MAX_DEPTH + 1);
	cr_expect_eq(parse(ok, &v), TK_OK, "%s", err);
	tku_json_free(v);
	cr_expect_eq(parse(deep, &v), TK_EFORMAT);
	cr_expect(strstr(err, "line 1, column 65: nesting deeper than 64 levels"), "%s", err);
	free(ok);
	free(deep);
	/* a deep document truncated: everything open is freed (ASan checks) */
	char *open = nest(TKU_JSON_MAX_DEPTH);
	open[TKU_JSON_MAX_DEPTH] = 0;
	cr_expect_eq(parse(open, &v), TK_EFORMAT);
	free(open);
}

Test(json_dom, trailing_content_and_non_finite_numbers_are_refused)
{
	struct tku_json_value *v = NULL;
	cr_expect_eq(parse("{\"a\": 1} x", &v), TK_EFORMAT);
	cr_expect(strstr(err, "line 1, column 10"), "%s", err);
	cr_expect_eq(parse("{\"a\": 1}\n{}", &v), TK_EFORMAT);
	cr_expect(strstr(err, "line 2, column 1: trailing content after the JSON value"), "%s",
		  err);
	cr_expect_eq(parse("[1e999]", &v), TK_EFORMAT);
	cr_expect(strstr(err, "number 1e999 is out of range"), "%s", err);
	cr_expect_eq(parse("[-1e400]", &v), TK_EFORMAT);
	cr_expect_eq(parse("[NaN]", &v), TK_EFORMAT);
	cr_expect_eq(parse("[Infinity]", &v), TK_EFORMAT);
	cr_expect_null(v);
}

Test(json_dom, gzip_input_is_read)
{
	gzFile z = gzopen(path, "wb");
	cr_assert(z);
	cr_assert_eq(gzwrite(z, doc, (unsigned)strlen(doc)), (int)strlen(doc));
	gzclose(z);
	struct tku_json_value *v = NULL;
	cr_assert_eq(tku_json_parse_file(path, 1 << 20, &v, err, sizeof(err)), TK_OK, "%s", err);
	cr_expect_eq(v->n, 6);
	cr_expect_eq(tku_json_get(v, "nums")->items[3].num, 2000);
	tku_json_free(v);
	/* the limit is on decoded bytes: the compressed file is smaller than the document */
	cr_expect_eq(tku_json_parse_file(path, 100, &v, err, sizeof(err)), TK_EFORMAT);
	cr_expect(strstr(err, "larger than 100 bytes"), "%s", err);
	cr_expect_null(v);
}

Test(json_dom, over_max_bytes_is_refused_and_missing_file_is_eio)
{
	struct tku_json_value *v = NULL;
	put(doc, strlen(doc));
	cr_expect_eq(tku_json_parse_file(path, strlen(doc) - 1, &v, err, sizeof(err)), TK_EFORMAT);
	cr_expect(strstr(err, "in.json': the file is larger than"), "%s", err);
	cr_expect_eq(tku_json_parse_file(path, strlen(doc), &v, err, sizeof(err)), TK_OK, "%s",
		     err);
	tku_json_free(v);
	v = NULL;
	char *missing = tkt_path(dir, "missing.json");
	cr_expect_eq(tku_json_parse_file(missing, 100, &v, err, sizeof(err)), TK_EIO);
	cr_expect(strstr(err, "missing.json': cannot read"), "%s", err);
	cr_expect_null(v);
	free(missing);
}

/* Many members in one object: the duplicate check is a sort, not a pairwise scan. */
Test(json_dom, large_object_and_array)
{
	size_t n = 20000, cap = n * 24 + 16, len = 0;
	char *s = malloc(cap);
	len += (size_t)snprintf(s + len, cap - len, "{");
	for (size_t i = 0; i < n; i++)
		len +=
		    (size_t)snprintf(s + len, cap - len, "%s\"k%zu\": [%zu]", i ? "," : "", i, i);
	len += (size_t)snprintf(s + len, cap - len, "}");
	struct tku_json_value *v = NULL;
	cr_assert_eq(parse(s, &v), TK_OK, "%s", err);
	cr_expect_eq(v->n, n);
	cr_expect_eq(tku_json_get(v, "k19999")->items[0].num, 19999);
	tku_json_free(v);
	memcpy(s + len - 1, ",\"k7\": 1}", 10);
	cr_expect_eq(parse(s, &v), TK_EFORMAT);
	cr_expect(strstr(err, "key \"k7\" appears twice"), "%s", err);
	free(s);
}

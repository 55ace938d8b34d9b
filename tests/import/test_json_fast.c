/*
 * Tests of the fast path of the Chrome JSON event parser (import/chrome_json_fast.c) against the
 * exact token-by-token parser (import/chrome_json_event.c). Two lexers walk the same file, one
 * parsing events with cj_event_fast() (falling back to the exact parser when it gives up, as the
 * importer does), the other with the exact parser only; after every event they must hold the
 * same record, be at the same byte, line and column, and end with the same error at the same
 * place. Inputs: hostile events (escapes, surrogates, nesting, trailing commas, duplicate keys,
 * odd args), every offset at which an event can straddle the lexer's read buffer, pretty-printed
 * text, and every truncation and many one-byte corruptions of a trace; both the mapping pass and
 * the first pass (which skips the args of non-metadata events) are checked.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../import/chrome_json_event.h"
#include "../../util/json_lex.h"
#include "tk_test.h"

static char *dir, *path;

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

TestSuite(json_fast, .init = setup, .fini = teardown, .timeout = 600);

/* Hostile events of every kind the importer meets ("ctl\ttab" holds a raw tab). */
static const char hostile[] =
    "{\"schemaVersion\": 1, \"traceEvents\": [\n"
    "{\"ph\": \"M\", \"name\": \"process_name\", \"pid\": 5, \"args\": {\"name\": "
    "\"p\\\"q\\\\r\\/s\\u00e9\\ud83d\\ude00\"}},\n"
    "{\"args\": {\"name\": \"args before ph\"}, \"ph\": \"M\", \"name\": \"thread_name\", \"pid\": "
    "5, \"tid\": 6},\n"
    "{\"ph\": \"X\", \"na\\u006de\": \"escaped key\", \"pid\": 5, \"tid\": 6, \"ts\": 1.5, "
    "\"dur\": 2, \"ar\\u0067s\": {\"a\": 1}},\n"
    "{\"ph\": \"X\", \"name\": \"a{[}]\\\"x\", \"cat\": \"cpu_op\", \"pid\": 5, \"tid\": 6, "
    "\"ts\": 2, \"dur\": 1, \"args\": {\"k{\": \"v]\", \"nested\": {\"a\": [1, 2.5, -0, 1e5, 1E+2, "
    "0.5e-3, true, false, null, \"s\\\"t\\\\u\\/v\\n\\u0001\\u0022\", {}, [], [[]], {\"x\": "
    "{\"y\": []}}], \"b\": \"c\\\\d\"}}},\n"
    "{\"ph\": \"X\", \"name\": \"ctl\ttab\", \"cat\": \"c\", \"pid\": 5, \"tid\": 6, \"ts\": 3, "
    "\"dur\": 1, \"args\": {\"trail\": [1, 2, ], \"obj\": {\"a\": 1, }, }, },\n"
    "{\"ph\": \"X\", \"name\": \"str ts\", \"pid\": \"5\", \"tid\": \"6\", \"ts\": \"4.25\", "
    "\"dur\": \"0.001\", \"id\": 7, \"id2\": {\"local\": \"0x1\"}, \"bp\": \"e\", \"s\": \"t\", "
    "\"bind_id\": 3},\n"
    "{\"ph\": \"X\", \"name\": \"dup\", \"name\": \"dup2\", \"ph\": \"B\", \"pid\": 5, \"tid\": 6, "
    "\"ts\": 5, \"dur\": 1, \"tts\": 7, \"tdur\": 1.25, \"extra\": {\"q\": [1]}, \"ph\": \"X\"},\n"
    "{\"ph\": \"Mx\", \"name\": \"process_labels\", \"pid\": 0, \"args\": {\"labels\": \"GPU "
    "0\"}},\n"
    "{\"ph\": \"M\", \"name\": \"process_labels\", \"pid\": 0, \"args\": {\"labels\": \"GPU 0\", "
    "\"deep\": [[[{\"a\": \"\\t\"}]]]}, \"ph\": \"M\"},\n"
    "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\\\\u\", \"pid\": 0, \"tid\": 7, \"ts\": 6, "
    "\"dur\": 1, \"args\": {\"grid\": [1, 2, 3], \"block\": [4,5,6], \"correlation\": 9, "
    "\"registers per thread\": 8, \"est. achieved occupancy %\": 50}},\n"
    "{\"ph\": \"X\", \"name\": \"args arr\", \"pid\": 5, \"tid\": 6, \"ts\": 8, \"dur\": 1, "
    "\"args\": [1, 2]},\n"
    "{\"ph\": \"X\", \"name\": \"args str\", \"pid\": 5, \"tid\": 6, \"ts\": 9, \"dur\": 1, "
    "\"args\": \"zz\", \"args\": {\"b\": 2}},\n"
    "{\"ph\": \"X\", \"name\": \"args null\", \"pid\": 5, \"tid\": 6, \"ts\": 9.5, \"dur\": 1, "
    "\"args\": null},\n"
    "{\"ph\": \"C\", \"name\": \"ctr\", \"pid\": 5, \"ts\": 15, \"args\": {\"v\": 1.5, \"w\": "
    "\"2\", \"x\": \"nan?\", \"ph\": \"X\", \"args\": {}}},\n"
    "{\"ph\": \"X\", \"name\": \"uni \\u00e9\\u4e2d \\ud800 \\udc00 \\ud800\\u0041 \\ud800\\ud800 "
    "x \\u0000\", \"pid\": 5, \"tid\": 6, \"ts\": 27, \"dur\": 1, \"args\": {\"u\": "
    "\"\\u00e9\\n\", \"k\\u00e9y\": 1, \"\\u0000\": [\" \\u0000 \\u001f \\ud83d\\ude00 \\/ "
    "\\b\\f\\r\\t\"]}},\n"
    "{\"ph\":\"X\",\"name\":\"tight\",\"pid\":5,\"tid\":6,\"ts\":28,\"dur\":1,\"args\":{\"a\":[1,{"
    "\"b\":\"c\"}],\"n\":-1.5e-7}},\n"
    "{ \"ph\" : \"X\" , \"name\" : \"spacey\" , \"pid\" : 5 , \"tid\" : 6 , \"ts\" : 29 , \"dur\" "
    ": 1 , \"args\" : { \"a\" : [ 1 , 2 ] } },\n"
    "{\"pid\": 1, \"ph\": \"i\", \"s\": \"g\", \"name\": \"[memory]\", \"ts\": 30, \"args\": "
    "{\"Bytes\": -16, \"Addr\": 1}},\n"
    "{\"ph\": \"X\", \"name\": \"deep\", \"pid\": 5, \"tid\": 6, \"ts\": 25, \"dur\": 1, \"args\": "
    "{\"d\": [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]], "
    "\"e\": "
    "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}},"
    "\n"
    "{\"ph\": \"X\", \"bind_id\": \"x\", \"flow_in\": true, \"flow_out\": false, \"id2\": "
    "{\"global\": 1}, \"pid\": 12345678901234567890, \"tid\": 1.0, \"ts\": -0.5, \"dur\": 0},\n"
    "{},\n"
    "7,\n"
    "\"str element\",\n"
    "[1, {\"ph\": \"X\"}],\n"
    "null\n"
    "], \"distributedInfo\": {\"rank\": 3}}\n";

static void write_text(const char *text, size_t len)
{
	remove(path); /* a new file each time: rewriting one in place makes ext4 flush it */
	FILE *f = fopen(path, "wb");
	cr_assert(f);
	cr_assert_eq(fwrite(text, 1, len, f), len);
	cr_assert_eq(fclose(f), 0);
}

static int same_val(const struct cj_event *a, struct cj_val x, const struct cj_event *b,
		    struct cj_val y)
{
	if (x.type != y.type)
		return 0;
	if (x.type == CJV_NONE)
		return 1;
	return x.len == y.len && strlen(cj_str(a, x)) == x.len &&
	       !strcmp(cj_str(a, x), cj_str(b, y));
}

static void expect_same_event(const struct cj_event *a, const struct cj_event *b, long n)
{
	const struct cj_val va[] = {a->ph,  a->cat, a->name, a->pid, a->tid,   a->ts,
				    a->dur, a->id,  a->id2,  a->bp,  a->scope, a->bind_id};
	const struct cj_val vb[] = {b->ph,  b->cat, b->name, b->pid, b->tid,   b->ts,
				    b->dur, b->id,  b->id2,  b->bp,  b->scope, b->bind_id};
	for (size_t i = 0; i < sizeof(va) / sizeof(va[0]); i++)
		cr_assert(same_val(a, va[i], b, vb[i]), "event %ld, field %zu: '%s' vs '%s'", n, i,
			  cj_str(a, va[i]), cj_str(b, vb[i]));
	cr_assert_eq(a->line, b->line, "event %ld", n);
	cr_assert_eq(a->col, b->col, "event %ld", n);
	cr_assert_eq(a->nargs, b->nargs, "event %ld", n);
	for (size_t i = 0; i < a->nargs; i++) {
		const struct cj_arg *x = &a->args[i], *y = &b->args[i];
		cr_assert(x->top == y->top && x->klen == y->klen &&
			      strlen(a->arena + x->key) == x->klen &&
			      !strcmp(a->arena + x->key, b->arena + y->key) &&
			      same_val(a, x->v, b, y->v),
			  "event %ld, arg %zu: %s=%s vs %s=%s", n, i, a->arena + x->key,
			  cj_str(a, x->v), b->arena + y->key, cj_str(b, y->v));
	}
}

static void expect_same_place(const struct tku_json_lex *a, const struct tku_json_lex *b, long n)
{
	cr_assert(a->buf_off + a->pos == b->buf_off + b->pos && a->line == b->line &&
		      a->line_start == b->line_start && a->tok_off == b->tok_off &&
		      a->tok_line == b->tok_line && a->tok_col == b->tok_col,
		  "after event %ld: at byte %llu vs %llu, line %llu vs %llu", n,
		  (unsigned long long)(a->buf_off + a->pos),
		  (unsigned long long)(b->buf_off + b->pos), (unsigned long long)a->line,
		  (unsigned long long)b->line);
}

/*
 * Walk the file at path both ways (@light: as the first pass parses), the lexers reading @bufsize
 * bytes at a time. Every object at the depth of the events (inside the top-level array) is an
 * event. Returns how many events the fast path parsed itself; *@events counts them all.
 */
static long compare(int light, size_t bufsize, long *events)
{
	struct tku_json_lex a, b;
	struct cj_event ea, eb;
	long n = 0, fast = 0;
	int depth = 0, event_depth = 2, first = 1;
	memset(&ea, 0, sizeof(ea));
	memset(&eb, 0, sizeof(eb));
	cr_assert_eq(tku_json_lex_open_buf(&a, path, bufsize), 0);
	cr_assert_eq(tku_json_lex_open_buf(&b, path, bufsize), 0);
	for (;;) {
		enum tku_json_tok ta = tku_json_lex_next(&a), tb = tku_json_lex_next(&b);
		cr_assert_eq(ta, tb, "token after event %ld", n);
		expect_same_place(&a, &b, n);
		if (ta == TKU_JT_EOF || ta == TKU_JT_ERROR)
			break;
		if (first && ta == TKU_JT_LBRACK)
			event_depth = 1;
		first = 0;
		if (ta == TKU_JT_LBRACE && depth == event_depth) {
			int rb =
			    light ? cj_event_parse_light(&b, &eb, 2) : cj_event_parse(&b, &eb, 2);
			int fa = cj_event_fast(&a, &ea, light);
			int ra = fa == 0 ? 0
				 : light ? cj_event_parse_light(&a, &ea, 2)
					 : cj_event_parse(&a, &ea, 2);
			cr_assert_eq(ra, rb, "event %ld parsed by one parser only", n);
			if (rb != 0)
				break;
			fast += fa == 0;
			expect_same_place(&a, &b, n);
			expect_same_event(&ea, &eb, n);
			n++;
		} else if (ta == TKU_JT_LBRACE || ta == TKU_JT_LBRACK) {
			depth++;
		} else if (ta == TKU_JT_RBRACE || ta == TKU_JT_RBRACK) {
			depth--;
		}
	}
	cr_assert_str_eq(a.msg, b.msg);
	cr_assert_eq(a.err_line, b.err_line);
	cr_assert_eq(a.err_col, b.err_col);
	cj_event_free(&ea);
	cj_event_free(&eb);
	tku_json_lex_close(&a);
	tku_json_lex_close(&b);
	if (events)
		*events = n;
	return fast;
}

/* Small inputs (a few KiB) are read in one chunk, as with the lexer's usual 1 MiB; a smaller
 * buffer keeps the thousands of runs below quick under the sanitizers. */
#define ONE_CHUNK (16u << 10)

static void compare_text(const char *text, size_t len)
{
	cr_assert_lt(len, ONE_CHUNK);
	write_text(text, len);
	compare(0, ONE_CHUNK, NULL);
	compare(1, ONE_CHUNK, NULL);
}

Test(json_fast, hostile_events_parse_the_same_and_most_take_the_fast_path)
{
	long events, fast;
	write_text(hostile, strlen(hostile));
	for (int light = 0; light < 2; light++) {
		fast = compare(light, TKU_JSON_BUF_SIZE, &events);
		cr_expect_eq(events, 21, "events: %ld", events);
		cr_expect_geq(fast, 14, "fast: %ld of %ld", fast, events);
		/* and with chunk boundaries everywhere */
		for (size_t b = 61; b < 400; b += 37)
			compare(light, b, NULL);
	}
}

/* @text with ", \"" and ": " spread over lines (CR LF and tabs included). */
static char *pretty(const char *text)
{
	size_t n = strlen(text), k = 0;
	char *out = malloc(n * 3 + 1);
	cr_assert(out);
	for (size_t i = 0; i < n; i++) {
		out[k++] = text[i];
		if (text[i] == ',' && text[i + 1] == ' ' && text[i + 2] == '"') {
			out[k++] = '\n';
		} else if (text[i] == ':' && text[i + 1] == ' ') {
			memcpy(out + k, "\r\n\t", 3);
			k += 3;
			i++;
		}
	}
	out[k] = 0;
	return out;
}

Test(json_fast, pretty_printed_events_keep_their_lines_and_columns)
{
	char *p = pretty(hostile);
	compare_text(p, strlen(p));
	free(p);
}

/* Every truncation of the hostile trace: the same events before the cut, the same error. */
Test(json_fast, every_truncation_gives_the_same_error)
{
	size_t n = strlen(hostile);
	for (size_t keep = 0; keep < n; keep++)
		compare_text(hostile, keep);
}

/* Every byte replaced by each of the bytes that matter to JSON. */
Test(json_fast, one_byte_corruptions_give_the_same_events_and_error)
{
	static const char subst[] = "\"\\{}[],:0e\n\x01";
	size_t n = strlen(hostile);
	char *t = malloc(n + 1);
	cr_assert(t);
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < sizeof(subst) - 1; j++) {
			memcpy(t, hostile, n);
			t[i] = subst[j];
			compare_text(t, n);
		}
	free(t);
}

/*
 * An event straddling the end of the lexer's buffer at every offset: the fast path must give up
 * (or finish before the end) and leave the exact parser a lexer it has not moved. The lexers read
 * SMALL_BUF bytes at a time; one file holds every case: before the k-th chunk boundary, a filler
 * event sized so that the k-th copy of @target starts k bytes before it.
 */
#define SMALL_BUF 4096
static void straddle(const char *target)
{
	static const char head[] = "{\"traceEvents\": [\n";
	static const char fill0[] = "{\"ph\": \"X\", \"pid\": 1, \"args\": {\"p\": \"";
	static const char fill1[] = "\"}},\n";
	size_t tl = strlen(target), cases = tl + 3, cap = (cases + 1) * SMALL_BUF, k = 0;
	char *t = malloc(cap);
	cr_assert(t);
	cr_assert_lt(tl + 64, SMALL_BUF);
	memcpy(t, head, sizeof(head) - 1);
	k += sizeof(head) - 1;
	for (size_t c = 0; c < cases; c++) {
		size_t start = (c + 1) * SMALL_BUF - c; /* of this copy of the target */
		memcpy(t + k, fill0, sizeof(fill0) - 1);
		k += sizeof(fill0) - 1;
		size_t x = start - k - (sizeof(fill1) - 1);
		memset(t + k, 'x', x);
		k += x;
		memcpy(t + k, fill1, sizeof(fill1) - 1);
		k += sizeof(fill1) - 1;
		memcpy(t + k, target, tl);
		k += tl;
		memcpy(t + k, ",\n", 2);
		k += 2;
	}
	memcpy(t + k, "{}\n]}", 5);
	k += 5;
	write_text(t, k);
	free(t);
	for (int light = 0; light < 2; light++) {
		long events, fast = compare(light, SMALL_BUF, &events);
		/* the copy starting right at a boundary and the three ending at most two bytes
		 * before one fit in a chunk; every other copy crosses one */
		cr_expect_eq(events - fast, (long)cases - 4, "%ld of %ld events parsed slowly",
			     events - fast, events);
	}
}

Test(json_fast, events_straddling_the_read_buffer_at_every_offset)
{
	const char *target =
	    "{\"ph\": \"X\", \"na\\u006de\": \"k\\\"q\\\\ \\u00e9\\ud83d\\ude00 \\/\", \"cat\": "
	    "\"cpu_op\", \"pid\": -12, \"tid\": 7, \"ts\": 1700000000123456.789, \"dur\": 1e3, "
	    "\"args\": {\"a\\tb\": [1, -0.5e-3, true, false, null, {\"x\": \"y\\\"z\\n\"}, [], "
	    "{}], "
	    "\"ar\\u0067s\": {\"q\": 1,}, \"t\": \"\\u0000\", \"n\": 12345678901234567890}, "
	    "\"tts\": true, \"s\": \"t\",}";
	straddle(target);
	char *p = pretty(target);
	straddle(p);
	free(p);
}

/* A surrogate pair whose halves (or the backslash between them) fall in different read chunks
 * still decodes to one code point; a high half followed by another escape stands alone. */
Test(json_fast, surrogate_pairs_split_across_read_chunks_decode_whole)
{
	static const char pair[] = "\\ud83d\\ude00", lone[] = "\\ud83d\\n";
	for (int which = 0; which < 2; which++) {
		const char *esc = which ? lone : pair;
		const char *want = which ? "\xEF\xBF\xBD\n" : "\xF0\x9F\x98\x80";
		size_t el = strlen(esc);
		for (size_t shift = 0; shift <= el + 1; shift++) {
			/* ["xxx...<esc>"]: the escape starts @shift bytes before the chunk's end */
			size_t pad = SMALL_BUF - 2 - shift;
			char *t = malloc(pad + el + 8);
			cr_assert(t);
			size_t k = 0;
			t[k++] = '[';
			t[k++] = '"';
			memset(t + k, 'x', pad);
			k += pad;
			memcpy(t + k, esc, el);
			k += el;
			memcpy(t + k, "\"]", 2);
			k += 2;
			write_text(t, k);
			free(t);
			struct tku_json_lex lx;
			cr_assert_eq(tku_json_lex_open_buf(&lx, path, SMALL_BUF), 0);
			cr_assert_eq(tku_json_lex_next(&lx), TKU_JT_LBRACK);
			cr_assert_eq(tku_json_lex_next(&lx), TKU_JT_STRING, "%s", lx.msg);
			cr_expect_eq(lx.slen, pad + strlen(want), "shift %zu: %zu bytes", shift,
				     lx.slen);
			cr_expect(lx.slen >= strlen(want) &&
				      !memcmp(lx.str + lx.slen - strlen(want), want, strlen(want)),
				  "shift %zu of %s: wrong decoding", shift,
				  which ? "lone" : "pair");
			tku_json_lex_close(&lx);
		}
	}
}

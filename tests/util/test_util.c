/*
 * util/: the growth rule (overflow refused, array kept), the text buffer (poisoning), UTF-8
 * decoding (invalid, overlong, surrogate, cut-short sequences), the encoder, every escaper on
 * control characters and invalid bytes, number formats and FNV-1a against its published vectors.
 */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <tracekit/error.h>
#include <tracekit/text.h>

#include "util/buf.h"
#include "util/escape.h"
#include "util/fmt.h"
#include "util/fnv.h"
#include "util/utf8.h"
#include "util/vec.h"

/* ---- vec ---- */

Test(vec, grows_by_doubling_from_first)
{
	int *v = NULL;
	size_t cap = 0;
	cr_assert_eq(TKU_GROW(v, cap, 1, 4), TK_OK);
	cr_assert_eq(cap, 4);
	cr_assert_eq(TKU_GROW(v, cap, 4, 4), TK_OK);
	cr_assert_eq(cap, 4, "no growth while there is room");
	cr_assert_eq(TKU_GROW(v, cap, 5, 4), TK_OK);
	cr_assert_eq(cap, 8);
	cr_assert_eq(TKU_GROW(v, cap, 33, 4), TK_OK);
	cr_assert_eq(cap, 64);
	for (int i = 0; i < 33; i++)
		v[i] = i;
	free(v);
}

Test(vec, refuses_sizes_that_overflow_and_keeps_the_array)
{
	cr_assert_eq(tku_grow_cap(0, SIZE_MAX / 2 + 2, 1, 16), 0, "doubling past SIZE_MAX");
	cr_assert_eq(tku_grow_cap(0, SIZE_MAX / 8 + 1, 8, 16), 0, "elements x size past SIZE_MAX");
	cr_assert_eq(tku_grow_cap(0, SIZE_MAX / 16, 8, 16), (size_t)1 << 60,
		     "the largest that fits");
	int64_t *v = malloc(2 * sizeof(*v));
	size_t cap = 2;
	v[0] = 7;
	cr_assert_eq(TKU_GROW(v, cap, SIZE_MAX / 4, 2), TK_ENOMEM);
	cr_assert_eq(cap, 2);
	cr_assert_eq(v[0], 7);
	cr_assert_null(tku_reallocn(v, SIZE_MAX / 4, 8));
	cr_assert_eq(v[0], 7, "the array survives a refused reallocn");
	free(v);
}

/* ---- buf ---- */

Test(buf, appends_and_flushes)
{
	struct tku_buf b = {0};
	for (int i = 0; i < 1000; i++)
		tku_printf(&b, "%d,", i);
	cr_assert_eq(b.len, strlen(b.p));
	cr_assert_eq(strncmp(b.p, "0,1,2,", 6), 0);
	char big[600];
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = 0;
	size_t was = b.len;
	tku_printf(&b, "%s", big); /* longer than the printf fast path */
	cr_assert_eq(b.len, was + 599);
	FILE *f = tmpfile();
	cr_assert_eq(tku_flush(f, &b), TK_OK);
	cr_assert_eq(b.len, 0);
	fclose(f);
	tku_buf_free(&b);
	cr_assert_null(b.p);
	tku_buf_free(NULL);
}

Test(buf, a_failed_growth_poisons)
{
	struct tku_buf b = {0};
	tku_puts(&b, "ab");
	tku_putn(&b, "c", SIZE_MAX - 1); /* cannot fit: poisons, writes nothing */
	cr_assert_eq(b.oom, 1);
	cr_assert_str_eq(b.p, "ab");
	tku_puts(&b, "d");
	cr_assert_str_eq(b.p, "ab", "appends after poisoning do nothing");
	cr_assert_eq(tku_flush(stdout, &b), TK_ENOMEM);
	tku_buf_free(&b);
}

/* ---- utf8 ---- */

static size_t next(const char *s, size_t n, uint32_t *cp)
{
	return tku_utf8_next(s, n, cp);
}

Test(utf8, decodes_valid_sequences)
{
	uint32_t cp;
	cr_assert_eq(next("A", 1, &cp), 1);
	cr_assert_eq(cp, 'A');
	cr_assert_eq(next("\xc2\xb5", 2, &cp), 2);
	cr_assert_eq(cp, 0xB5);
	cr_assert_eq(next("\xe2\x80\xa6", 3, &cp), 3);
	cr_assert_eq(cp, 0x2026);
	cr_assert_eq(next("\xf4\x8f\xbf\xbf", 4, &cp), 4);
	cr_assert_eq(cp, 0x10FFFF);
}

Test(utf8, replaces_each_invalid_byte)
{
	static const struct {
		const char *s;
		size_t n;
	} bad[] = {
	    {"\x80", 1},	     /* stray continuation */
	    {"\xc0\xaf", 2},	     /* overlong '/' */
	    {"\xc1\xbf", 2},	     /* overlong */
	    {"\xe0\x80\xaf", 3},     /* overlong, 3 bytes */
	    {"\xf0\x80\x80\xaf", 4}, /* overlong, 4 bytes */
	    {"\xed\xa0\x80", 3},     /* surrogate D800 */
	    {"\xed\xbf\xbf", 3},     /* surrogate DFFF */
	    {"\xf4\x90\x80\x80", 4}, /* above U+10FFFF */
	    {"\xf5\x80\x80\x80", 4}, /* no such lead byte */
	    {"\xe2\x80", 2},	     /* cut short */
	    {"\xe2\x28\xa1", 3},     /* bad continuation */
	    {"\xff", 1},
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		uint32_t cp;
		cr_assert_eq(next(bad[i].s, bad[i].n, &cp), 1, "case %zu", i);
		cr_assert_eq(cp, 0xFFFD, "case %zu", i);
		cr_assert_eq(tku_utf8_valid(bad[i].s, bad[i].n), 0, "case %zu", i);
	}
	cr_assert_eq(tku_utf8_valid("a\xc2\xb5z", 4), 1);
	cr_assert_eq(tku_utf8_valid("", 0), 1);
}

Test(utf8, counts_cuts_and_encodes)
{
	cr_assert_eq(tku_utf8_count("a\xc2\xb5\xe2\x80\xa6"), 3);
	cr_assert_eq(tku_utf8_prefix("ab\xe2\x80\xa6", 5, 4), 2, "no half character");
	cr_assert_eq(tku_utf8_prefix("ab", 2, 4), 2);
	static const uint32_t cps[] = {0, 0x7F, 0x80, 0x7FF, 0x800, 0xFFFF, 0x10000, 0x10FFFF};
	for (size_t i = 0; i < sizeof(cps) / sizeof(cps[0]); i++) {
		char b[4];
		uint32_t back;
		size_t n = tku_utf8_encode(cps[i], b);
		cr_assert_eq(n, cps[i] < 0x80 ? 1 : cps[i] < 0x800 ? 2 : cps[i] < 0x10000 ? 3 : 4);
		cr_assert_eq(next(b, n, &back), n);
		cr_assert_eq(back, cps[i], "U+%X round trip", (unsigned)cps[i]);
	}
}

/* ---- escape ---- */

typedef void (*esc_fn)(struct tku_buf *, const char *);

static void expect(esc_fn f, const char *in, const char *want)
{
	struct tku_buf b = {0};
	f(&b, in);
	cr_assert_str_eq(b.p ? b.p : "", want, "escaping \"%s\"", in);
	tku_buf_free(&b);
}

Test(escape, terminal_shows_controls_bidi_and_bad_bytes)
{
	expect(tku_esc_terminal, "a\tb\nc\r\x1b[31m\x7f", "a\\tb\\nc\\r\\x1b[31m\\x7f");
	expect(tku_esc_terminal, "\xc2\x85|\xe2\x80\xae|\xe2\x80\xa8",
	       "\\u{85}|\\u{202E}|\\u{2028}");
	expect(tku_esc_terminal, "x\xffy\xc0\xaf", "x\xef\xbf\xbdy\xef\xbf\xbd\xef\xbf\xbd");
	expect(tku_esc_terminal, NULL, "");
}

Test(escape, json_is_a_literal_safe_in_html)
{
	expect(tku_esc_json, "a\"b\\c\n\t\r\x01\x7f", "\"a\\\"b\\\\c\\n\\t\\r\\u0001\\u007f\"");
	expect(tku_esc_json, "<&>\xe2\x80\xa8\xff", "\"\\u003c\\u0026\\u003e\\u2028\\ufffd\"");
	expect(tku_esc_json, "\xed\xa0\x80", "\"\\ufffd\\ufffd\\ufffd\"");
	size_t n;
	char *plain = tku_text_convert("<\x02", 2, TKU_TEXT_JSON, &n);
	cr_assert_str_eq(plain, "\"<\\u0002\"", "without TK_TEXT_HTML_SAFE < stays");
	cr_assert_eq(n, strlen(plain));
	free(plain);
}

Test(escape, html_xml_and_markdown)
{
	expect(tku_esc_html, "<a href='x'>&\"\x1b", "&lt;a href=&#39;x&#39;&gt;&amp;&quot;\\x1b");
	expect(tku_esc_xml, "'\n<", "&apos;\\n&lt;");
	expect(tku_esc_md, "a|b_*c*`[x]`#~\\<&\n",
	       "a\\|b\\_\\*c\\*\\`\\[x\\]\\`\\#\\~\\\\&lt;&amp;\\\\n");
}

Test(escape, csv_quotes_only_when_needed)
{
	static const char *const in[] = {"plain", "a,b",  "say \"hi\"", "two\nlines",
					 " pad",  "cr\r", "bad\xff",	""};
	static const char *const want[] = {"plain",	      "\"a,b\"",  "\"say \"\"hi\"\"\"",
					   "\"two\nlines\"",  "\" pad\"", "\"cr\r\"",
					   "bad\xef\xbf\xbd", ""};
	for (size_t i = 0; i < sizeof(in) / sizeof(in[0]); i++) {
		struct tku_buf b = {0};
		tku_esc_csv(&b, in[i], strlen(in[i]));
		cr_assert_str_eq(b.p ? b.p : "", want[i], "case %zu", i);
		tku_buf_free(&b);
	}
}

Test(escape, the_public_api_is_the_same_conversion)
{
	size_t n;
	char *t = tk_text_escape("a\x1b\xff", 3, TK_TEXT_TERMINAL, &n);
	cr_assert_str_eq(t, "a\\x1b\xef\xbf\xbd");
	free(t);
	t = tk_text_json("<", 1, TK_TEXT_HTML_SAFE, NULL);
	cr_assert_str_eq(t, "\"\\u003c\"");
	free(t);
}

/* ---- fmt ---- */

static void expect_ns(double v, const char *want)
{
	struct tku_buf b = {0};
	tku_fmt_ns(&b, v);
	cr_assert_str_eq(b.p, want);
	tku_buf_free(&b);
}

static void expect_bytes(double v, int prec, enum tku_byte_unit max, const char *want)
{
	struct tku_buf b = {0};
	tku_fmt_bytes(&b, v, prec, max);
	cr_assert_str_eq(b.p, want);
	tku_buf_free(&b);
}

Test(fmt, durations_bytes_and_reals)
{
	expect_ns(999, "999 ns");
	expect_ns(1500, "1.50 \xc2\xb5s");
	expect_ns(-2.5e6, "-2.50 ms");
	expect_ns(98.6e9, "98.600 s");
	expect_bytes(1023, 2, TKU_PIB, "1023 B");
	expect_bytes(1536, 2, TKU_PIB, "1.50 KiB");
	expect_bytes(-1048576, 2, TKU_PIB, "-1.00 MiB");
	expect_bytes(1125899906842624.0, 2, TKU_PIB, "1.00 PiB");
	expect_bytes(1125899906842624.0, 1, TKU_TIB, "1024.0 TiB");
	char num[64];
	tku_fmt_real(2, num, sizeof(num));
	cr_assert_str_eq(num, "2.0");
	tku_fmt_real(0.1, num, sizeof(num));
	cr_assert_str_eq(num, "0.1");
	tku_fmt_real(1.0 / 3, num, sizeof(num));
	cr_assert_eq(strtod(num, NULL), 1.0 / 3);
	struct tku_buf b = {0};
	tku_fmt_json_real(&b, 0.0 / 0.0);
	cr_assert_str_eq(b.p, "null");
	tku_buf_free(&b);
}

/* ---- fnv ---- */

Test(fnv, published_vectors_and_tracekit_basis)
{
	cr_assert_eq(tku_fnv1a64("", 0), 0xcbf29ce484222325ULL);
	cr_assert_eq(tku_fnv1a64("a", 1), 0xaf63dc4c8601ec8cULL);
	cr_assert_eq(tku_fnv1a64_str("foobar"), 0x85944171f73967e8ULL);
	uint64_t h = tku_fnv1a64_init();
	h = tku_fnv1a64_step(h, "foo", 3);
	h = tku_fnv1a64_step_str(h, "bar");
	cr_assert_eq(h, 0x85944171f73967e8ULL, "incremental equals one shot");
	cr_assert_eq(tku_fnv1a64_word(1, 2), 3 * TKU_FNV64_PRIME);
	cr_assert_eq(TKU_FNV64_TK_OFFSET, 1469598103934665603ULL,
		     "flow ids in stores derive from this basis: it must not change");
}

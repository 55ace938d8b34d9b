/*
 * Escaping for every output format (util/escape.h): the one conversion of text into valid
 * UTF-8 with visible escapes or into a JSON literal (each conversion measures its result first,
 * then writes it into one allocation), and the HTML, XML, Markdown and CSV escapers over it.
 */
#include "util/escape.h"
#include "util/utf8.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tracekit/text.h>

static int is_bidi(uint32_t cp)
{
	return cp == 0x061C || cp == 0x200E || cp == 0x200F || (cp >= 0x202A && cp <= 0x202E) ||
	       (cp >= 0x2066 && cp <= 0x2069);
}

/*
 * The output for the character at @s (@len bytes, code point @cp, U+FFFD with length 1 for an
 * invalid byte) in @mode: written to @e (at least 16 bytes) or, when the character passes
 * through unchanged, *@same is set and nothing is written. Returns the output length.
 */
static size_t one(const char *s, size_t len, uint32_t cp, int mode, char *e, int *same)
{
	int bad = cp == 0xFFFD && len == 1;
	*same = 0;
	if (mode & TKU_TEXT_JSON) {
		if (cp == '"' || cp == '\\')
			return (size_t)snprintf(e, 16, "\\%c", (char)cp);
		if (cp == '\n' || cp == '\t' || cp == '\r')
			return (size_t)snprintf(e, 16, "\\%c",
						cp == '\n'   ? 'n'
						: cp == '\t' ? 't'
							     : 'r');
		if (cp < 0x20 || cp == 0x7F || bad ||
		    (mode & TK_TEXT_HTML_SAFE &&
		     (cp == '<' || cp == '>' || cp == '&' || cp == 0x2028 || cp == 0x2029)))
			return (size_t)snprintf(e, 16, "\\u%04x", (unsigned)cp);
	} else if (mode & TK_TEXT_CONTROLS && (cp < 0x20 || cp == 0x7F)) {
		if (cp == '\n' || cp == '\t' || cp == '\r')
			return (size_t)snprintf(e, 16, "\\%c",
						cp == '\n'   ? 'n'
						: cp == '\t' ? 't'
							     : 'r');
		return (size_t)snprintf(e, 16, "\\x%02x", (unsigned)cp);
	} else if ((mode & TK_TEXT_CONTROLS &&
		    ((cp >= 0x80 && cp <= 0x9F) || cp == 0x2028 || cp == 0x2029)) ||
		   (mode & TK_TEXT_BIDI && is_bidi(cp))) {
		return (size_t)snprintf(e, 16, "\\u{%X}", (unsigned)cp);
	} else if (bad) {
		memcpy(e, "\xef\xbf\xbd", 3);
		return 3;
	}
	*same = 1;
	return len;
}

char *tku_text_convert(const char *s, size_t n, int mode, size_t *outlen)
{
	if (!s)
		s = "", n = 0;
	const char *quote = mode & TKU_TEXT_JSON ? "\"" : "";
	size_t q = strlen(quote), total = 2 * q;
	char e[16], *out = NULL;
	for (int pass = 0; pass < 2; pass++) {
		size_t o = 0;
		if (pass) {
			if (!(out = malloc(total + 1)))
				return NULL;
			memcpy(out, quote, q);
			o = q;
		}
		for (size_t i = 0; i < n;) {
			uint32_t cp;
			int same;
			size_t len = tku_utf8_next(s + i, n - i, &cp);
			size_t k = one(s + i, len, cp, mode, e, &same);
			if (pass)
				memcpy(out + o, same ? s + i : e, k);
			o += k;
			i += len;
		}
		if (pass) {
			memcpy(out + o, quote, q);
			out[o + q] = '\0';
		} else {
			total += o;
		}
	}
	if (outlen)
		*outlen = total;
	return out;
}

/* Append text @t (NULL: out of memory) of @n bytes and free it. */
static void put_owned(struct tku_buf *b, char *t, size_t n)
{
	if (!t)
		b->oom = 1;
	else
		tku_putn(b, t, n);
	free(t);
}

void tku_esc_terminal(struct tku_buf *b, const char *s)
{
	size_t n;
	char *t = tku_text_convert(s, s ? strlen(s) : 0, TK_TEXT_TERMINAL, &n);
	put_owned(b, t, n);
}

void tku_esc_json(struct tku_buf *b, const char *s)
{
	size_t n;
	char *t = tku_text_convert(s, s ? strlen(s) : 0, TKU_TEXT_JSON | TK_TEXT_HTML_SAFE, &n);
	put_owned(b, t, n);
}

/* @str as tku_esc_terminal() writes it, then & < > " ' as entities; ' as @apos. */
static void markup(struct tku_buf *b, const char *str, const char *apos)
{
	struct tku_buf t = {0};
	tku_esc_terminal(&t, str);
	b->oom |= t.oom;
	for (const char *s = t.p ? t.p : ""; *s; s++) {
		char c = *s;
		const char *e = c == '&'    ? "&amp;"
				: c == '<'  ? "&lt;"
				: c == '>'  ? "&gt;"
				: c == '"'  ? "&quot;"
				: c == '\'' ? apos
					    : NULL;
		if (e)
			tku_puts(b, e);
		else
			tku_putn(b, s, 1);
	}
	free(t.p);
}

void tku_esc_html(struct tku_buf *b, const char *s)
{
	markup(b, s, "&#39;");
}

void tku_esc_xml(struct tku_buf *b, const char *s)
{
	markup(b, s, "&apos;");
}

void tku_esc_md(struct tku_buf *b, const char *str)
{
	struct tku_buf t = {0};
	tku_esc_terminal(&t, str);
	b->oom |= t.oom;
	for (const char *s = t.p ? t.p : ""; *s; s++) {
		char c = *s;
		if (c == '&')
			tku_puts(b, "&amp;");
		else if (c == '<')
			tku_puts(b, "&lt;");
		else if (c == '>')
			tku_puts(b, "&gt;");
		else if (strchr("\\`*_[]|#~", c))
			tku_printf(b, "\\%c", c);
		else
			tku_putn(b, s, 1);
	}
	free(t.p);
}

void tku_esc_csv(struct tku_buf *b, const char *raw, size_t n)
{
	char *s = tku_text_convert(raw, n, 0, &n);
	if (!s) {
		b->oom = 1;
		return;
	}
	int quote = n > 0 && (s[0] == ' ' || s[n - 1] == ' ');
	for (size_t i = 0; i < n && !quote; i++)
		quote = s[i] == ',' || s[i] == '"' || s[i] == '\n' || s[i] == '\r';
	if (!quote) {
		tku_putn(b, s, n);
	} else {
		tku_putn(b, "\"", 1);
		for (size_t i = 0; i < n; i++) {
			if (s[i] == '"')
				tku_putn(b, "\"", 1);
			tku_putn(b, s + i, 1);
		}
		tku_putn(b, "\"", 1);
	}
	free(s);
}

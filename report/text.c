/*
 * Text made valid and safe for output (include/tracekit/text.h): the UTF-8 decoder that replaces
 * every invalid byte by U+FFFD, the visible escapes of control and bidirectional characters for
 * terminals, text, Markdown and HTML, and JSON string literals. Each conversion measures its
 * result first, then writes it into one allocation.
 */
#include <tracekit/text.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define JSON 0x100 /* internal mode bit: a JSON string literal */

size_t tk_utf8_next(const char *str, size_t n, uint32_t *cp)
{
	const unsigned char *s = (const unsigned char *)str;
	unsigned c = s[0];
	uint32_t v, min;
	size_t len;
	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	if (c >= 0xC2 && c <= 0xDF)
		len = 2, min = 0x80;
	else if (c >= 0xE0 && c <= 0xEF)
		len = 3, min = 0x800;
	else if (c >= 0xF0 && c <= 0xF4)
		len = 4, min = 0x10000;
	else
		goto bad;
	if (len > n)
		goto bad;
	v = c & (0x7Fu >> len);
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xC0) != 0x80)
			goto bad;
		v = (v << 6) | (s[i] & 0x3Fu);
	}
	if (v < min || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF))
		goto bad;
	*cp = v;
	return len;
bad:
	*cp = 0xFFFD;
	return 1;
}

int tk_utf8_valid(const char *s, size_t n)
{
	size_t i = 0;
	while (i < n) {
		if ((unsigned char)s[i] < 0x80) {
			i++;
			continue;
		}
		uint32_t cp;
		size_t len = tk_utf8_next(s + i, n - i, &cp);
		if (cp == 0xFFFD && len == 1)
			return 0;
		i += len;
	}
	return 1;
}

size_t tk_utf8_count(const char *s)
{
	size_t n = 0;
	for (; *s; s++)
		n += ((unsigned char)*s & 0xC0) != 0x80;
	return n;
}

size_t tk_utf8_prefix(const char *s, size_t n, size_t max)
{
	if (n <= max)
		return n;
	size_t k = max;
	while (k > 0 && ((unsigned char)s[k] & 0xC0) == 0x80)
		k--;
	return k;
}

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
	if (mode & JSON) {
		if (cp == '"' || cp == '\\')
			return (size_t)snprintf(e, 16, "\\%c", (char)cp);
		if (cp == '\n' || cp == '\t' || cp == '\r')
			return (size_t)snprintf(e, 16, "\\%c", cp == '\n' ? 'n' : cp == '\t' ? 't' : 'r');
		if (cp < 0x20 || cp == 0x7F || bad ||
		    (mode & TK_TEXT_HTML_SAFE && (cp == '<' || cp == '>' || cp == '&' ||
						  cp == 0x2028 || cp == 0x2029)))
			return (size_t)snprintf(e, 16, "\\u%04x", (unsigned)cp);
	} else if (mode & TK_TEXT_CONTROLS && (cp < 0x20 || cp == 0x7F)) {
		if (cp == '\n' || cp == '\t' || cp == '\r')
			return (size_t)snprintf(e, 16, "\\%c", cp == '\n' ? 'n' : cp == '\t' ? 't' : 'r');
		return (size_t)snprintf(e, 16, "\\x%02x", (unsigned)cp);
	} else if ((mode & TK_TEXT_CONTROLS && ((cp >= 0x80 && cp <= 0x9F) || cp == 0x2028 ||
						 cp == 0x2029)) ||
		   (mode & TK_TEXT_BIDI && is_bidi(cp))) {
		return (size_t)snprintf(e, 16, "\\u{%X}", (unsigned)cp);
	} else if (bad) {
		memcpy(e, "\xef\xbf\xbd", 3);
		return 3;
	}
	*same = 1;
	return len;
}

/* Convert @s (@n bytes) in @mode; see tk_text_escape(). */
static char *convert(const char *s, size_t n, int mode, size_t *outlen)
{
	const char *quote = mode & JSON ? "\"" : "";
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
			size_t len = tk_utf8_next(s + i, n - i, &cp);
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

char *tk_text_escape(const char *s, size_t n, int flags, size_t *len)
{
	return convert(s ? s : "", s ? n : 0, flags & TK_TEXT_TERMINAL, len);
}

char *tk_text_json(const char *s, size_t n, int flags, size_t *len)
{
	return convert(s ? s : "", s ? n : 0, JSON | (flags & TK_TEXT_HTML_SAFE), len);
}

/*
 * UTF-8: the one decoder that validates (and, with its U+FFFD results, repairs) text, and the
 * one encoder of code points. Everything that reads or writes UTF-8 goes through these: the
 * escapers (util/escape.h), the JSON and TOML readers, the exporters and, through the public
 * wrappers of include/tracekit/text.h, the command line.
 */
#ifndef TK_UTIL_UTF8_H
#define TK_UTIL_UTF8_H

#include <stddef.h>
#include <stdint.h>

/*
 * tku_utf8_next() - the character at @s (@n >= 1 bytes left): its code point in *@cp and its
 * length in bytes (1 to 4). A byte that does not start a valid sequence (a stray continuation
 * byte, an overlong form, a surrogate D800-DFFF, a code point above U+10FFFF, a sequence cut
 * short) gives *@cp = U+FFFD and length 1: each invalid byte is replaced on its own.
 */
size_t tku_utf8_next(const char *s, size_t n, uint32_t *cp);

/* 1 when the @n bytes at @s are valid UTF-8, else 0. */
int tku_utf8_valid(const char *s, size_t n);

/* The number of characters (bytes that are not continuation bytes) of the NUL-terminated @s. */
size_t tku_utf8_count(const char *s);

/* The length of the longest prefix of the valid UTF-8 text @s (@n bytes) that has at most
 * @max bytes and does not cut a character. */
size_t tku_utf8_prefix(const char *s, size_t n, size_t max);

/* The UTF-8 bytes of the code point @cp (at most U+10FFFF; surrogates are encoded as they are,
 * callers that must refuse them check first) into @b; their count, 1 to 4. Inline: the JSON
 * importers call it for every \u escape. */
static inline size_t tku_utf8_encode(uint32_t cp, char b[4])
{
	if (cp < 0x80) {
		b[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		b[0] = (char)(0xC0 | (cp >> 6));
		b[1] = (char)(0x80 | (cp & 0x3F));
		return 2;
	}
	if (cp < 0x10000) {
		b[0] = (char)(0xE0 | (cp >> 12));
		b[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
		b[2] = (char)(0x80 | (cp & 0x3F));
		return 3;
	}
	b[0] = (char)(0xF0 | (cp >> 18));
	b[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
	b[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
	b[3] = (char)(0x80 | (cp & 0x3F));
	return 4;
}

#endif

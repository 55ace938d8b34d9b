/*
 * Text made valid and safe for output: the one place where tracekit repairs UTF-8 and escapes
 * what a name may carry (control characters, terminal escape sequences, bidirectional controls),
 * used by every writer: reports, diffs, exports, query results and the command line
 * (docs/reports.md, "Text safety").
 */
#ifndef TRACEKIT_TEXT_H
#define TRACEKIT_TEXT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default)

/**
 * tk_utf8_next() - the character at @s (@n >= 1 bytes left): its code point in *@cp and its
 * length in bytes (1 to 4). A byte that does not start a valid sequence (a stray continuation
 * byte, an overlong form, a surrogate D800-DFFF, a code point above U+10FFFF, a sequence cut
 * short) gives *@cp = U+FFFD and length 1: each invalid byte is replaced on its own.
 */
size_t tk_utf8_next(const char *s, size_t n, uint32_t *cp);

/** tk_utf8_valid() - 1 when the @n bytes at @s are valid UTF-8, else 0. */
int tk_utf8_valid(const char *s, size_t n);

/** tk_utf8_count() - the number of characters (not bytes) of the valid UTF-8 text @s. */
size_t tk_utf8_count(const char *s);

/**
 * tk_utf8_prefix() - the length of the longest prefix of the valid UTF-8 text @s (@n bytes) that
 * has at most @max bytes and does not cut a character.
 */
size_t tk_utf8_prefix(const char *s, size_t n, size_t max);

/* Escapes of tk_text_escape() (invalid UTF-8 is always replaced by U+FFFD). */
#define TK_TEXT_CONTROLS 1 /* C0 controls as \n \t \r \xNN, DEL as \x7f, C1 controls and */
			   /* U+2028/U+2029 as \u{85}, \u{2028} */
#define TK_TEXT_BIDI 2	   /* bidirectional controls (U+061C, U+200E, U+200F, U+202A-U+202E, */
			   /* U+2066-U+2069) as \u{202E} */
#define TK_TEXT_TERMINAL (TK_TEXT_CONTROLS | TK_TEXT_BIDI) /* what a terminal may show */
#define TK_TEXT_HTML_SAFE 4 /* tk_text_json(): also <, >, &, U+2028, U+2029 as \u escapes */

/**
 * tk_text_escape() - the @n bytes at @s as valid UTF-8 with the escapes of @flags (TK_TEXT_*;
 * 0 only repairs). Text with TK_TEXT_TERMINAL holds no control character and no bidirectional
 * control, so it is safe to print on a terminal and keeps a table row on one line.
 * @len: when not NULL, the length of the result.
 * @return the text, malloc'd and NUL-terminated; NULL when out of memory.
 */
char *tk_text_escape(const char *s, size_t n, int flags, size_t *len);

/**
 * tk_text_json() - the @n bytes at @s as a JSON string literal, quotes included: `"` and `\`
 * escaped, control characters as \n, \t, \r or \u00XX, DEL as \u007f, invalid UTF-8 bytes as
 * \ufffd; with TK_TEXT_HTML_SAFE in @flags also `<`, `>`, `&`, U+2028 and U+2029 as \u escapes,
 * so that the literal is safe inside HTML and JavaScript too.
 * @return as tk_text_escape().
 */
char *tk_text_json(const char *s, size_t n, int flags, size_t *len);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif

#endif

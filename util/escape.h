/*
 * Escaping for every output format, over the one UTF-8 decoder (util/utf8.h): invalid UTF-8
 * always becomes U+FFFD (\ufffd in JSON). The flags are those of include/tracekit/text.h
 * (TK_TEXT_CONTROLS, TK_TEXT_BIDI, TK_TEXT_TERMINAL, TK_TEXT_HTML_SAFE), whose public
 * tk_text_escape() and tk_text_json() are tku_text_convert().
 *
 * Appending to a buffer (util/buf.h; a failed allocation poisons it):
 *	tku_esc_terminal()  text for a terminal or plain text: controls as \n, \x1b, \u{85}, bidi
 *	                    controls as \u{202E} (TK_TEXT_TERMINAL)
 *	tku_esc_json()      a JSON string literal with quotes, safe inside HTML (TK_TEXT_HTML_SAFE)
 *	tku_esc_html()      as tku_esc_terminal(), then & < > " ' as entities (' as &#39;)
 *	tku_esc_xml()       the same with ' as &apos; (JUnit XML)
 *	tku_esc_md()        as tku_esc_terminal(), then & < > as entities and \ ` * _ [ ] | # ~
 *	                    backslash-escaped (a Markdown table cell)
 *	tku_esc_csv()       a CSV field (RFC 4180): the text repaired, quoted when it holds , " CR
 *	                    LF or starts or ends with a space, quotes doubled
 */
#ifndef TK_UTIL_ESCAPE_H
#define TK_UTIL_ESCAPE_H

#include "util/buf.h"

#include <stddef.h>

#define TKU_TEXT_JSON 0x100 /* tku_text_convert(): a JSON string literal (with TK_TEXT_HTML_SAFE) */

/*
 * tku_text_convert() - the @n bytes at @s (NULL: none) as valid UTF-8 with the escapes of
 * @mode (TK_TEXT_* flags, or TKU_TEXT_JSON | optionally TK_TEXT_HTML_SAFE for a JSON literal
 * with its quotes), malloc'd and NUL-terminated, its length in *@len when not NULL; NULL when
 * out of memory.
 */
char *tku_text_convert(const char *s, size_t n, int mode, size_t *len);

void tku_esc_terminal(struct tku_buf *b, const char *s);
void tku_esc_json(struct tku_buf *b, const char *s);
void tku_esc_html(struct tku_buf *b, const char *s);
void tku_esc_xml(struct tku_buf *b, const char *s);
void tku_esc_md(struct tku_buf *b, const char *s);
void tku_esc_csv(struct tku_buf *b, const char *s, size_t n);

#endif

/*
 * The public text API (include/tracekit/text.h): UTF-8 repair and the escapes of names for
 * output, as the library itself does them (util/utf8.c, util/escape.c).
 */
#include <tracekit/text.h>

#include "util/escape.h"
#include "util/utf8.h"

size_t tk_utf8_next(const char *s, size_t n, uint32_t *cp)
{
	return tku_utf8_next(s, n, cp);
}

int tk_utf8_valid(const char *s, size_t n)
{
	return tku_utf8_valid(s, n);
}

size_t tk_utf8_count(const char *s)
{
	return tku_utf8_count(s);
}

size_t tk_utf8_prefix(const char *s, size_t n, size_t max)
{
	return tku_utf8_prefix(s, n, max);
}

char *tk_text_escape(const char *s, size_t n, int flags, size_t *len)
{
	return tku_text_convert(s, n, flags & TK_TEXT_TERMINAL, len);
}

char *tk_text_json(const char *s, size_t n, int flags, size_t *len)
{
	return tku_text_convert(s, n, TKU_TEXT_JSON | (flags & TK_TEXT_HTML_SAFE), len);
}

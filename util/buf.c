/* The growable text buffer (util/buf.h): appends, printf, flush. */
#include "util/buf.h"
#include "util/vec.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <tracekit/error.h>

void tku_putn(struct tku_buf *b, const char *s, size_t n)
{
	if (b->oom)
		return;
	if (n > SIZE_MAX - b->len - 1 || TKU_GROW(b->p, b->cap, b->len + n + 1, 256) != TK_OK) {
		b->oom = 1;
		return;
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
}

void tku_puts(struct tku_buf *b, const char *s)
{
	tku_putn(b, s, strlen(s));
}

void tku_printf(struct tku_buf *b, const char *fmt, ...)
{
	char small[256];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(small, sizeof(small), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n < sizeof(small)) {
		tku_putn(b, small, (size_t)n);
		return;
	}
	char *big = malloc((size_t)n + 1);
	if (!big) {
		b->oom = 1;
		return;
	}
	va_start(ap, fmt);
	vsnprintf(big, (size_t)n + 1, fmt, ap);
	va_end(ap);
	tku_putn(b, big, (size_t)n);
	free(big);
}

int tku_flush(FILE *out, struct tku_buf *b)
{
	if (b->oom)
		return TK_ENOMEM;
	if (b->len && fwrite(b->p, 1, b->len, out) != b->len)
		return TK_EIO;
	b->len = 0;
	return TK_OK;
}

void tku_buf_free(struct tku_buf *b)
{
	if (!b)
		return;
	free(b->p);
	memset(b, 0, sizeof(*b));
}

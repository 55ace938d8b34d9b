/*
 * A growable text buffer: what reports, check results and baselines are built in before they
 * are written. Appending never fails loudly: on allocation failure the buffer is poisoned
 * (oom = 1), later appends do nothing and tku_flush() returns TK_ENOMEM, so a writer appends
 * freely and checks once. The text is always NUL-terminated once anything was appended.
 *
 *	struct tku_buf b = {0};
 *	tku_printf(&b, "%d kernels\n", n);
 *	rc = tku_flush(stdout, &b);   (or use b.p, b.len)
 *	tku_buf_free(&b);
 */
#ifndef TK_UTIL_BUF_H
#define TK_UTIL_BUF_H

#include <stddef.h>
#include <stdio.h>

struct tku_buf {
	char *p;    /* the text, NUL-terminated (NULL until the first append) */
	size_t len; /* its length, the NUL not counted */
	size_t cap; /* bytes allocated at p */
	int oom;    /* 1 once an allocation failed: the text is incomplete */
};

/* Append the @n bytes at @s. */
void tku_putn(struct tku_buf *b, const char *s, size_t n);
/* Append the NUL-terminated string @s. */
void tku_puts(struct tku_buf *b, const char *s);
/* Append printf(@fmt, ...). */
void tku_printf(struct tku_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Write @b to @out and empty it; TK_EIO on a write error, TK_ENOMEM when @b is poisoned. */
int tku_flush(FILE *out, struct tku_buf *b);
/* Free the text and zero @b (NULL accepted). */
void tku_buf_free(struct tku_buf *b);

#endif

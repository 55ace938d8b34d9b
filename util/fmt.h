/*
 * Numbers as people and parsers read them: durations in ns, byte counts, and reals that read
 * back as the same double. Appended to a util/buf.h buffer, except tku_fmt_real() (a char array,
 * for callers that build a cell).
 */
#ifndef TK_UTIL_FMT_H
#define TK_UTIL_FMT_H

#include "util/buf.h"

#include <stddef.h>

/* A duration: "850 ns", "12.35 µs", "14.80 ms", "98.600 s" (negative with a leading '-'). */
void tku_fmt_ns(struct tku_buf *b, double ns);

/* The units of tku_fmt_bytes() above B, for its @max_unit. */
enum tku_byte_unit { TKU_KIB, TKU_MIB, TKU_GIB, TKU_TIB, TKU_PIB };

/*
 * tku_fmt_bytes() - a byte count: "512 B" below 1 KiB, else in the largest binary unit up to
 * @max_unit that keeps the value >= 1, with @prec decimals ("1.50 MiB" with 2); negative with a
 * leading '-'.
 */
void tku_fmt_bytes(struct tku_buf *b, double bytes, int prec, enum tku_byte_unit max_unit);

/* The shortest of %.15g, %.16g, %.17g that reads back as @v, into @out (@n bytes, at least 32),
 * with ".0" added when it would read as an integer ("2.0"); "nan", "inf" as printf writes them. */
void tku_fmt_real(double v, char *out, size_t n);

/* tku_fmt_real() of @v appended to @b, or null when @v is not finite (a JSON number). */
void tku_fmt_json_real(struct tku_buf *b, double v);

#endif

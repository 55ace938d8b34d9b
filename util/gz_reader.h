/*
 * Inflating a gzip file on its own thread: the decoded text comes in buffers of a fixed size from
 * a small ring that a producer thread keeps filled, so that inflating runs beside the parser that
 * reads the buffers (util/json_lex.c). The buffers are those one inflate loop would give, in the
 * same sizes; an error comes after every byte decoded before it.
 */
#ifndef TK_UTIL_GZ_READER_H
#define TK_UTIL_GZ_READER_H

#include <stddef.h>
#include <stdint.h>

#define TKU_GZ_RING 4 /* buffers: one being read, the others being filled or waiting */

struct tku_gz;

/**
 * tku_gz_open() - start inflating the gzip stream of @fd (not closed here; keep it open until
 * tku_gz_close()), of which the @n bytes @first were read already; @in_cap bytes are read at a
 * time, @cap decoded bytes go in each buffer, at most @max_out decoded bytes in all.
 * @return 0, or -1 with @msg set (out of memory, no decoder).
 */
int tku_gz_open(struct tku_gz **out, int fd, const unsigned char *first, size_t n, size_t in_cap,
		size_t cap, uint64_t max_out, char *msg, size_t msg_len);

/**
 * tku_gz_next() - the next buffer of decoded bytes (the one before is given back): 1 with *@buf
 * and *@len (valid until the next call), 0 at the end, -1 with @msg (a read error, corrupt or
 * truncated data, too much output).
 */
int tku_gz_next(struct tku_gz *g, unsigned char **buf, size_t *len, char *msg, size_t msg_len);

/* tku_gz_close() - stop the thread and free everything (NULL is fine). */
void tku_gz_close(struct tku_gz *g);

#endif

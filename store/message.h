/*
 * Bounded message formatting (tks_fmt, defined in store/version.c): the one helper of the store
 * that the rest of the library (import/, report/, check/) uses to fill its caller's message
 * buffers. Part of the store's interface to the other modules, not of the public API; a
 * formatting helper whose natural home is the util layer.
 */
#ifndef TK_STORE_MESSAGE_H
#define TK_STORE_MESSAGE_H

#include <stddef.h>

/* Format a message into @buf of @len bytes (always NUL-terminated; NULL or 0 writes nothing). */
void tks_fmt(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif

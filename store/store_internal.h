/* Internal helpers shared by the store module's files; not part of the public API. */
#ifndef TK_STORE_INTERNAL_H
#define TK_STORE_INTERNAL_H

#include <stdarg.h>
#include <stddef.h>

/* The text of schemas/store.sql, embedded at build time (generated schema_sql.c). */
extern const char tks_schema_sql[];

/* The line that separates the tables and views from the indexes built after a bulk load. */
#define TK_SCHEMA_INDEX_MARKER "\n-- @indexes:"

/* Format a message into @buf of @len bytes (always NUL-terminated). */
void tks_fmt(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif

/* Internal helpers shared by the store module's files only (tests/check_store_private.sh). */
#ifndef TK_STORE_INTERNAL_H
#define TK_STORE_INTERNAL_H

#include <stdarg.h>
#include <stddef.h>

#include "message.h"

/* The text of schemas/store.sql, embedded at build time (generated schema_sql.c). */
extern const char tks_schema_sql[];

/* The line that separates the tables and views from the indexes built after a bulk load. */
#define TK_SCHEMA_INDEX_MARKER "\n-- @indexes:"

#endif

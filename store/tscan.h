/*
 * Direct table scans for bulk readers (exports, analyses): the rows of one table in rowid order,
 * read straight from the SQLite file's b-tree pages (mapped read-only) instead of through the
 * VDBE, which is several times slower per row. Only for a finished store that nothing writes:
 * tks_tscan_open() declines (returns 1) when a write-ahead log is present, and callers then use SQL.
 * Every page, cell and record is bounds-checked; a damaged file gives TK_EFORMAT, never a crash.
 */
#ifndef TK_STORE_TSCAN_H
#define TK_STORE_TSCAN_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

struct tks_tscan;

enum tks_tscan_type { TK_TS_NULL, TK_TS_INT, TK_TS_REAL, TK_TS_TEXT, TK_TS_BLOB };

/**
 * tks_tscan_open() - scan @table of the database @db (a finished store opened from @path),
 * returning the columns named in @cols (NULL-terminated; the INTEGER PRIMARY KEY column gives
 * the rowid) in that order. TK_OK; 1 when the file should not be read directly (a WAL file
 * beside it, a table WITHOUT ROWID: use SQL instead); TK_EINVAL for an unknown table or column,
 * TK_EIO, TK_EFORMAT, TK_ENOMEM with a message in @err.
 */
int tks_tscan_open(struct tks_tscan **out, sqlite3 *db, const char *path, const char *table,
		   const char *const *cols, char *err, size_t errlen);

/** tks_tscan_next() - the next row: 1, 0 at the end, -1 for a damaged file (message in err). */
int tks_tscan_next(struct tks_tscan *s);

int64_t tks_tscan_rowid(const struct tks_tscan *s);
/* 1 when requested column @i is the table's INTEGER PRIMARY KEY (rows come in its order). */
int tks_tscan_is_rowid(const struct tks_tscan *s, int i);
enum tks_tscan_type tks_tscan_type(const struct tks_tscan *s, int i);
/* Bit i set when requested column i (of the first 32) is TK_TS_INT; in *@nulls when NULL. One
 * call per row, for readers that check the types of a row. */
uint32_t tks_tscan_int_mask(const struct tks_tscan *s, uint32_t *nulls);
/* Integers and reals convert to each other as SQLite's column accessors do; NULL gives 0. */
int64_t tks_tscan_int(const struct tks_tscan *s, int i);
double tks_tscan_real(const struct tks_tscan *s, int i);
/* Text or blob bytes (not NUL-terminated) valid until the next row; NULL for other types. */
const char *tks_tscan_text(const struct tks_tscan *s, int i, size_t *len);

/** tks_tscan_close() - unmap and free (NULL-safe). */
void tks_tscan_close(struct tks_tscan *s);

#endif

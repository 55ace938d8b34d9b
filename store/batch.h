/*
 * Rows of one store table on their way to disk. A row is filled as typed cells, then encoded as
 * an SQLite record (with SQLite's column affinities and NOT NULL rules) and appended straight to
 * the table's b-tree (pages.h). Rows that cannot be appended (a rowid not above the last one, or
 * a table with a uniqueness constraint such as meta) are kept and inserted through SQL at finish.
 */
#ifndef TK_STORE_BATCH_H
#define TK_STORE_BATCH_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

#include "index.h"
#include "pages.h"

#define TK_BATCH_MAX_COLS 18

enum tks_cell_type { TK_CELL_NULL, TK_CELL_INT, TK_CELL_REAL, TK_CELL_TEXT };

struct tks_cell {
	enum tks_cell_type type;
	int64_t i;  /* TK_CELL_INT */
	double d;   /* TK_CELL_REAL */
	size_t off; /* TK_CELL_TEXT: offset of the copy in the arena */
	int len;    /* TK_CELL_TEXT: bytes */
};

struct tks_batch {
	char table[32];
	const char *conflict; /* "OR REPLACE" for the SQL path, or "" */
	int ncol;
	int ipk; /* column that is the rowid (INTEGER PRIMARY KEY), -1 when none */
	char aff
	    [TK_BATCH_MAX_COLS]; /* SQLite affinity letter: B(lob) T(ext) N(umeric) I(nt) R(eal) */
	char notnull[TK_BATCH_MAX_COLS];
	char colname[TK_BATCH_MAX_COLS][24];
	uint32_t root; /* root page, as SQLite created it */
	int direct;    /* rows go to the b-tree (else all through SQL at finish) */
	struct tks_tree tree;
	int tree_ready;
	int64_t next_rowid; /* rowid of the last row of a table without an INTEGER PRIMARY KEY */
	struct tks_cell row[TK_BATCH_MAX_COLS];
	char *arena; /* text of the row being filled */
	size_t alen, acap;
	unsigned char *rec; /* encoding buffer */
	size_t reccap;
	struct tks_cell *kept; /* rows for the SQL path: ncol cells each */
	size_t nkept, keptcap; /* rows kept; cells kept has room for */
	char *karena;	       /* their text */
	size_t kalen, kacap;
	/* an index the writer builds itself (index.h): key columns ka and kb (-1: none) */
	int has_ix, ka, kb;
	uint32_t ix_root;
	struct tks_index ix;
	char err[256];
};

/**
 * tks_batch_describe() - learn @table's columns (affinity, NOT NULL, rowid column), root page and
 * constraints from @db, where the schema was just created; @ncol must match. An SQLite code, with
 * the message in b->err.
 */
int tks_batch_describe(struct tks_batch *b, sqlite3 *db, const char *table, int ncol);

/**
 * tks_batch_plan_index() - decide who builds index @name (on this batch's table): the writer when
 * it is not UNIQUE, has one or two integer key columns (the second NOT NULL) and the table's rows
 * are appended directly, else SQLite (REINDEX at finish; *by_writer = 0). An SQLite code.
 */
int tks_batch_plan_index(struct tks_batch *b, sqlite3 *db, const char *name, int *by_writer);

/**
 * tks_batch_copy_description() - make @dst a fresh batch with @src's description: what
 * tks_batch_describe() and tks_batch_plan_index() learned (table, columns, affinities, NOT NULL,
 * rowid column, roots, direct, the writer's index), and the conflict clause; no rows, no buffers.
 * @src must not have been started (tks_batch_start).
 */
void tks_batch_copy_description(struct tks_batch *dst, const struct tks_batch *src);

/**
 * tks_batch_start() - start writing pages to @p (after SQLite closed the file); index sort runs
 * go to files in @tmp_dir, at most @run_keys keys in memory per index. An errno.
 */
int tks_batch_start(struct tks_batch *b, struct tks_pages *p, const char *tmp_dir, size_t run_keys);

/** tks_batch_row() - the cells of the next row, all NULL; fill them, then tks_batch_add(). */
struct tks_cell *tks_batch_row(struct tks_batch *b);

/** tks_batch_text() - set @c to a copy of @s; SQLITE_NOMEM when the copy fails. */
int tks_batch_text(struct tks_batch *b, struct tks_cell *c, const char *s);

/**
 * tks_batch_add() - encode and append the row filled since tks_batch_row(). Returns SQLITE_OK, or
 * SQLITE_CONSTRAINT / SQLITE_MISMATCH (a NULL in a NOT NULL column, a value the column's type
 * cannot take), SQLITE_NOMEM, SQLITE_IOERR (errno in *sys_errno) with the message in b->err.
 */
int tks_batch_add(struct tks_batch *b, int *sys_errno);

/** tks_batch_finish_pages() - write the table's remaining pages and its root; an errno. */
int tks_batch_finish_pages(struct tks_batch *b);

/** tks_batch_flush_sql() - insert the kept rows through @db; an SQLite code. */
int tks_batch_flush_sql(struct tks_batch *b, sqlite3 *db);

/** tks_batch_free() - drop everything (NULL-safe). */
void tks_batch_free(struct tks_batch *b);

static inline void tks_cell_int(struct tks_cell *c, int64_t v)
{
	c->type = TK_CELL_INT;
	c->i = v;
}

/* An integer where INT64_MIN (TK_NONE) means NULL. */
static inline void tks_cell_opt_int(struct tks_cell *c, int64_t v)
{
	if (v != INT64_MIN)
		tks_cell_int(c, v);
}

/* A real where a negative value or NaN means NULL. */
static inline void tks_cell_opt_real(struct tks_cell *c, double v)
{
	if (v >= 0) {
		c->type = TK_CELL_REAL;
		c->d = v;
	}
}

static inline void tks_cell_real(struct tks_cell *c, double v)
{
	c->type = TK_CELL_REAL;
	c->d = v;
}

/* A string id where 0 means NULL. */
static inline void tks_cell_str_id(struct tks_cell *c, uint32_t id)
{
	if (id)
		tks_cell_int(c, id);
}

#endif

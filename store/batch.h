/* Batched inserts for the store writer: rows are buffered and written many per statement. */
#ifndef TK_STORE_BATCH_H
#define TK_STORE_BATCH_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

#define TK_BATCH_ROWS 32
#define TK_BATCH_MAX_COLS 18

enum tk_cell_type { TK_CELL_NULL, TK_CELL_INT, TK_CELL_REAL, TK_CELL_TEXT };

struct tk_cell {
	enum tk_cell_type type;
	int64_t i;  /* TK_CELL_INT */
	double d;   /* TK_CELL_REAL */
	size_t off; /* TK_CELL_TEXT: offset of the copy in the batch's arena */
	int len;    /* TK_CELL_TEXT: bytes */
};

struct tk_batch {
	sqlite3_stmt *multi;  /* INSERT of TK_BATCH_ROWS rows */
	sqlite3_stmt *single; /* INSERT of one row, for the rest at flush */
	int ncol, nrows;
	struct tk_cell cells[TK_BATCH_ROWS * TK_BATCH_MAX_COLS];
	char *arena; /* text values of the buffered rows */
	size_t alen, acap;
};

/** tk_batch_init() - prepare the statements for @table of @ncol columns; an SQLite code. */
int tk_batch_init(struct tk_batch *b, sqlite3 *db, const char *table, int ncol);

/** tk_batch_row() - the cells of the next row, all NULL; fill them, then tk_batch_add(). */
struct tk_cell *tk_batch_row(struct tk_batch *b);

/** tk_batch_text() - set @c to a copy of @s; SQLITE_NOMEM when the copy fails. */
int tk_batch_text(struct tk_batch *b, struct tk_cell *c, const char *s);

/** tk_batch_add() - keep the row filled since tk_batch_row(); writes when the batch is full. */
int tk_batch_add(struct tk_batch *b);

/** tk_batch_flush() - write every buffered row; an SQLite code. */
int tk_batch_flush(struct tk_batch *b);

/** tk_batch_free() - finalize the statements and drop buffered rows. */
void tk_batch_free(struct tk_batch *b);

static inline void tk_cell_int(struct tk_cell *c, int64_t v)
{
	c->type = TK_CELL_INT;
	c->i = v;
}

/* An integer where INT64_MIN (TK_NONE) means NULL. */
static inline void tk_cell_opt_int(struct tk_cell *c, int64_t v)
{
	if (v != INT64_MIN)
		tk_cell_int(c, v);
}

/* A real where a negative value or NaN means NULL. */
static inline void tk_cell_opt_real(struct tk_cell *c, double v)
{
	if (v >= 0) {
		c->type = TK_CELL_REAL;
		c->d = v;
	}
}

static inline void tk_cell_real(struct tk_cell *c, double v)
{
	c->type = TK_CELL_REAL;
	c->d = v;
}

/* A string id where 0 means NULL. */
static inline void tk_cell_str_id(struct tk_cell *c, uint32_t id)
{
	if (id)
		tk_cell_int(c, id);
}

#endif

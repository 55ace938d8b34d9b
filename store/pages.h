/*
 * Direct SQLite page output for the store writer's bulk load: table b-trees built bottom-up from
 * rows that arrive in rowid order, written as pages appended to a database file that SQLite
 * created (schema, lookup tables) and will open again afterwards. The file format is SQLite's
 * own (https://sqlite.org/fileformat2.html); nothing here is SQLite's code.
 */
#ifndef TK_STORE_PAGES_H
#define TK_STORE_PAGES_H

#include <stddef.h>
#include <stdint.h>

/* SQLite's lock bytes start here (its PENDING_BYTE); the page holding them is never used. */
#define TKS_LOCK_BYTE 0x40000000u

/* A database file being extended page by page. */
struct tks_pages {
	int fd;
	uint32_t page_size;
	uint32_t npages;    /* pages in the file, counting those allocated and not yet written */
	unsigned char *buf; /* contiguous pages waiting to be written */
	uint32_t buf_first; /* page number of buf's first page */
	uint32_t buf_n, buf_cap; /* pages in buf, and the most it holds before a write */
	uint32_t buf_room;	 /* pages buf has room for now */
	int err;		 /* errno of the first failure, sticky */
};

/** tks_pages_open() - extend @path, an SQLite file of @npages pages of @page_size; an errno. */
int tks_pages_open(struct tks_pages *p, const char *path, uint32_t page_size, uint32_t npages);

/** tks_pages_alloc() - the number of a new page at the end of the file (0 when full); never the
 * lock-byte page (TKS_LOCK_BYTE), which stays a hole. */
uint32_t tks_pages_alloc(struct tks_pages *p);

/** tks_pages_put() - write page @pgno (page_size bytes); an errno, sticky. */
int tks_pages_put(struct tks_pages *p, uint32_t pgno, const unsigned char *page);

/** tks_pages_close() - write what is pending, set the header's page count, close; an errno. */
int tks_pages_close(struct tks_pages *p);

/* One interior level of a tree under construction: its children not yet written in a page. */
struct tks_tree_level {
	uint32_t *child;
	int64_t *key; /* largest rowid under each child */
	int n;
	size_t bytes; /* bytes the page would take with the children so far */
};

/* A table b-tree built from rows appended in increasing rowid order. */
struct tks_tree {
	struct tks_pages *pages;
	uint32_t root;	     /* page the finished root goes to (SQLite's empty root) */
	unsigned char *leaf; /* the leaf page being filled */
	int ncell;
	uint32_t content; /* start of the leaf's cell content area */
	int64_t last_rowid;
	int64_t rows;
	struct tks_tree_level *levels; /* levels[0] is the level above the leaves */
	int nlevels;
	size_t levels_cap;
	int max_children;
	unsigned char *ovfl; /* overflow page buffer */
};

/** tks_tree_init() - a builder for the table whose (empty) root page is @root; an errno. */
int tks_tree_init(struct tks_tree *t, struct tks_pages *p, uint32_t root);

/**
 * tks_tree_append() - append a row: @rowid must be above every earlier one; @rec is the
 * record (SQLite record format) of @len bytes. Returns an errno (EINVAL for a rowid out of order).
 */
int tks_tree_append(struct tks_tree *t, int64_t rowid, const unsigned char *rec, size_t len);

/** tks_tree_finish() - write the remaining pages and the root; an errno. */
int tks_tree_finish(struct tks_tree *t);

/** tks_tree_free() - release the buffers (NULL-safe). */
void tks_tree_free(struct tks_tree *t);

/* Length of the SQLite varint of @v (1 to 9 bytes). */
static inline int tks_varint_len(uint64_t v)
{
	if (v < 0x80)
		return 1;
	if (v >> 56)
		return 9;
	int n = 1;
	while (v >>= 7)
		n++;
	return n;
}

/* SQLite record serial type of integer @v into *type; returns the size of its body in bytes. */
static inline int tks_int_serial(int64_t v, uint64_t *type)
{
	uint64_t u = v < 0 ? ~(uint64_t)v : (uint64_t)v;
	if (v == 0 || v == 1) {
		*type = 8 + (uint64_t)v;
		return 0;
	}
	if (u <= 0x7f)
		return *type = 1, 1;
	if (u <= 0x7fff)
		return *type = 2, 2;
	if (u <= 0x7fffff)
		return *type = 3, 3;
	if (u <= 0x7fffffff)
		return *type = 4, 4;
	if (u <= 0x7fffffffffffULL)
		return *type = 5, 6;
	return *type = 6, 8;
}

int tks_varint_put_slow(unsigned char *out, uint64_t v);

/* SQLite varint of @v into @out (at most 9 bytes); returns the length. */
static inline int tks_varint_put(unsigned char *out, uint64_t v)
{
	if (v < 0x80) {
		out[0] = (unsigned char)v;
		return 1;
	}
	return tks_varint_put_slow(out, v);
}

#endif

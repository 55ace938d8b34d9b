/*
 * Indexes built by the store writer itself: keys of up to two integer columns (the first may be
 * NULL) plus the rowid are collected as rows are appended, sorted in bounded memory (sorted runs
 * spilled to an unlinked temporary file, merged at the end), and written as an SQLite index
 * b-tree into the page SQLite reserved when it created the (empty) index.
 */
#ifndef TK_STORE_INDEX_H
#define TK_STORE_INDEX_H

#include <stddef.h>
#include <stdint.h>

#include "pages.h"

struct tks_ikey {
	int64_t a, b, rowid;
	int64_t a_null; /* 1 when a is NULL (sorts first, as in SQLite) */
};

struct tks_index {
	struct tks_pages *pages;
	uint32_t root;
	int ncols; /* key columns before the rowid: 1 or 2 */
	/* sorting */
	struct tks_ikey *buf;
	size_t n, cap;	/* keys in buf, and the most it holds before a run is spilled */
	size_t room;	/* keys buf has room for now (grows by doubling up to cap) */
	int buf_sorted; /* keys so far arrived in order */
	int fd;		/* runs, or -1 */
	size_t nruns, runs_cap;
	struct tks_irun {
		uint64_t keys, off, bytes; /* runs stored back to back, delta-encoded */
	} * runs;
	uint64_t file_bytes;
	uint64_t total;
	char *tmp_dir;
};

/** tks_index_init() - an index of @ncols key columns whose root is @root; temp runs go in @dir. */
int tks_index_init(struct tks_index *ix, struct tks_pages *p, uint32_t root, int ncols,
		   const char *dir, size_t run_keys);

/** tks_index_add() - one key; an errno. */
int tks_index_add(struct tks_index *ix, const struct tks_ikey *k);

/** tks_index_finish() - sort what is left, merge the runs, write the b-tree; an errno. */
int tks_index_finish(struct tks_index *ix);

/** tks_index_free() - release everything (NULL-safe). */
void tks_index_free(struct tks_index *ix);

#endif

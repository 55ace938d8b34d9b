/*
 * Direct SQLite page output (see pages.h). A table b-tree is built bottom-up: rows fill a leaf
 * page; a full leaf is written at the next free page and its number and largest rowid go up to
 * the interior level above, which fills and writes the same way. Pages are allocated in the order
 * they are written, so the file grows strictly by appending; only the finished root goes back to
 * the page SQLite reserved for it when it created the (empty) table. Every page is packed with no
 * free blocks, and every interior page keeps at least two children (a page that would be left
 * with one takes the last child of its full neighbour), as SQLite itself requires.
 */
#include "pages.h"
#include "util/vec.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <tracekit/error.h>

#define BUF_BYTES (1u << 20)

enum { PAGE_LEAF_TABLE = 13, PAGE_INTERIOR_TABLE = 5 };

int tks_varint_put_slow(unsigned char *p, uint64_t v)
{
	if (v >> 56) {
		p[8] = (unsigned char)v;
		v >>= 8;
		for (int i = 7; i >= 0; i--) {
			p[i] = (unsigned char)((v & 0x7f) | 0x80);
			v >>= 7;
		}
		return 9;
	}
	int n = tks_varint_len(v);
	for (int i = n - 1; i >= 0; i--) {
		p[i] = (unsigned char)((v & 0x7f) | (i == n - 1 ? 0 : 0x80));
		v >>= 7;
	}
	return n;
}

static void put16(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)(v >> 8);
	p[1] = (unsigned char)v;
}

static void put32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)(v >> 24);
	p[1] = (unsigned char)(v >> 16);
	p[2] = (unsigned char)(v >> 8);
	p[3] = (unsigned char)v;
}

static int write_all(int fd, const unsigned char *data, size_t len, off_t off)
{
	while (len) {
		ssize_t n = pwrite(fd, data, len, off);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return errno;
		}
		if (n == 0)
			return EIO;
		data += n;
		len -= (size_t)n;
		off += n;
	}
	return 0;
}

int tks_pages_open(struct tks_pages *p, const char *path, uint32_t page_size, uint32_t npages)
{
	memset(p, 0, sizeof(*p));
	p->fd = -1;
	if (page_size < 512 || page_size > 65536 || (page_size & (page_size - 1)))
		return EINVAL;
	p->page_size = page_size;
	p->npages = npages;
	p->buf_cap = BUF_BYTES / page_size; /* the buffer itself grows with the pages put */
	p->fd = open(path, O_RDWR | O_CLOEXEC);
	if (p->fd < 0)
		return p->err = errno;
	struct stat sb;
	if (fstat(p->fd, &sb) != 0)
		return p->err = errno;
	if ((uint64_t)sb.st_size != (uint64_t)npages * page_size)
		return p->err = EINVAL;
	return 0;
}

uint32_t tks_pages_alloc(struct tks_pages *p)
{
	if (p->err)
		return 0;
	if (p->npages >= 0x7ffffffe) { /* SQLite's largest page number */
		p->err = EFBIG;
		return 0;
	}
	/* SQLite never uses the page holding the lock bytes (its PENDING_BYTE, 1 GiB into the
	 * file): a store past 1 GiB leaves it a hole, as SQLite does, else the file is corrupt */
	if (++p->npages == TKS_LOCK_BYTE / p->page_size + 1)
		++p->npages;
	return p->npages;
}

static int flush(struct tks_pages *p)
{
	if (p->buf_n && !p->err)
		p->err = write_all(p->fd, p->buf, (size_t)p->buf_n * p->page_size,
				   (off_t)(p->buf_first - 1) * p->page_size);
	p->buf_n = 0;
	return p->err;
}

int tks_pages_put(struct tks_pages *p, uint32_t pgno, const unsigned char *page)
{
	if (p->err)
		return p->err;
	if (pgno == 0 || pgno > p->npages)
		return p->err = EINVAL;
	if (p->buf_n && (pgno != p->buf_first + p->buf_n || p->buf_n == p->buf_cap))
		if (flush(p))
			return p->err;
	if (p->buf_n == p->buf_room) { /* the buffer grows by doubling up to buf_cap pages */
		uint32_t room = p->buf_room ? 2 * p->buf_room : 4;
		room = room < p->buf_cap ? room : p->buf_cap;
		unsigned char *nb = realloc(p->buf, (size_t)room * p->page_size);
		if (!nb)
			return p->err = ENOMEM;
		p->buf = nb;
		p->buf_room = room;
	}
	if (!p->buf_n)
		p->buf_first = pgno;
	memcpy(p->buf + (size_t)p->buf_n * p->page_size, page, p->page_size);
	p->buf_n++;
	return 0;
}

int tks_pages_close(struct tks_pages *p)
{
	int err = flush(p);
	if (!err && p->fd >= 0) {
		/* the in-header database size (offset 28); SQLite left the change counter and the
		 * version-valid-for number equal, so it trusts this count */
		unsigned char n[4];
		put32(n, p->npages);
		err = write_all(p->fd, n, 4, 28);
	}
	if (p->fd >= 0 && close(p->fd) != 0 && !err)
		err = errno;
	p->fd = -1;
	free(p->buf);
	p->buf = NULL;
	p->buf_room = 0;
	return err;
}

/* ---- table b-trees ---- */

int tks_tree_init(struct tks_tree *t, struct tks_pages *p, uint32_t root)
{
	memset(t, 0, sizeof(*t));
	t->pages = p;
	t->root = root;
	t->content = p->page_size;
	t->max_children = (int)(p->page_size / 6) + 2;
	return 0; /* the page buffers come with the first row: most tables of a store stay empty */
}

void tks_tree_free(struct tks_tree *t)
{
	if (!t)
		return;
	for (int i = 0; i < t->nlevels; i++) {
		free(t->levels[i].child);
		free(t->levels[i].key);
	}
	free(t->levels);
	free(t->leaf);
	free(t->ovfl);
	memset(t, 0, sizeof(*t));
}

/* Write an interior page of children [0, n) (the last one is the right-most pointer) at @pgno. */
static int write_interior(struct tks_tree *t, const struct tks_tree_level *lv, int n, uint32_t pgno)
{
	uint32_t U = t->pages->page_size, content = U;
	unsigned char *pg = t->ovfl;
	memset(pg, 0, U);
	pg[0] = PAGE_INTERIOR_TABLE;
	put16(pg + 3, (uint32_t)(n - 1));
	for (int i = 0; i < n - 1; i++) {
		unsigned char cell[13];
		put32(cell, lv->child[i]);
		int len = 4 + tks_varint_put(cell + 4, (uint64_t)lv->key[i]);
		content -= (uint32_t)len;
		memcpy(pg + content, cell, (size_t)len);
		put16(pg + 12 + 2 * i, content);
	}
	put16(pg + 5, content == 65536 ? 0 : content);
	put32(pg + 8, lv->child[n - 1]);
	return tks_pages_put(t->pages, pgno, pg);
}

static int push_child(struct tks_tree *t, int level, uint32_t child, int64_t key);

/* Write the first @n children of @level as a new page and push it one level up. */
static int emit_interior(struct tks_tree *t, int level, int n)
{
	uint32_t pgno = tks_pages_alloc(t->pages);
	if (!pgno)
		return t->pages->err;
	struct tks_tree_level *lv = &t->levels[level];
	int err = write_interior(t, lv, n, pgno);
	if (err)
		return err;
	return push_child(t, level + 1, pgno, lv->key[n - 1]);
}

static size_t child_cell_bytes(int64_t key)
{
	return 2 + 4 + (size_t)tks_varint_len((uint64_t)key);
}

static int push_child(struct tks_tree *t, int level, uint32_t child, int64_t key)
{
	if (level == t->nlevels) {
		if (TKU_GROW(t->levels, t->levels_cap, (size_t)level + 1, 4) != TK_OK)
			return ENOMEM;
		struct tks_tree_level *nl = t->levels;
		memset(&nl[level], 0, sizeof(nl[level]));
		nl[level].child = malloc(sizeof(uint32_t) * (size_t)t->max_children);
		nl[level].key = malloc(sizeof(int64_t) * (size_t)t->max_children);
		t->nlevels++;
		if (!nl[level].child || !nl[level].key)
			return ENOMEM;
	}
	struct tks_tree_level *lv = &t->levels[level];
	if (lv->n == 0) {
		lv->child[0] = child;
		lv->key[0] = key;
		lv->n = 1;
		lv->bytes = 12;
		return 0;
	}
	size_t add = child_cell_bytes(lv->key[lv->n - 1]);
	if (lv->bytes + add <= t->pages->page_size && lv->n < t->max_children) {
		lv->child[lv->n] = child;
		lv->key[lv->n] = key;
		lv->n++;
		lv->bytes += add;
		return 0;
	}
	/* full: write all but the last child; the last one and the new one start the next page */
	uint32_t keep_child = lv->child[lv->n - 1];
	int64_t keep_key = lv->key[lv->n - 1];
	int n = lv->n - 1;
	lv->n = 0;
	int err = emit_interior(t, level, n);
	if (err)
		return err;
	lv = &t->levels[level]; /* emit_interior may have grown the level array */
	lv->child[0] = keep_child;
	lv->key[0] = keep_key;
	lv->child[1] = child;
	lv->key[1] = key;
	lv->n = 2;
	lv->bytes = 12 + child_cell_bytes(keep_key);
	return 0;
}

static void seal_leaf(struct tks_tree *t)
{
	unsigned char *pg = t->leaf;
	uint32_t hdr_end = 8 + 2 * (uint32_t)t->ncell;
	pg[0] = PAGE_LEAF_TABLE;
	pg[1] = pg[2] = 0;
	put16(pg + 3, (uint32_t)t->ncell);
	put16(pg + 5, t->content == 65536 ? 0 : t->content);
	pg[7] = 0;
	memset(pg + hdr_end, 0, t->content - hdr_end);
}

static int emit_leaf(struct tks_tree *t)
{
	seal_leaf(t);
	uint32_t pgno = tks_pages_alloc(t->pages);
	if (!pgno)
		return t->pages->err;
	int err = tks_pages_put(t->pages, pgno, t->leaf);
	if (err)
		return err;
	t->ncell = 0;
	t->content = t->pages->page_size;
	return push_child(t, 0, pgno, t->last_rowid);
}

/* Write the payload past @local bytes into a chain of overflow pages; the first page's number. */
static uint32_t write_overflow(struct tks_tree *t, const unsigned char *rest, size_t len)
{
	uint32_t U = t->pages->page_size, pg = tks_pages_alloc(t->pages), first = pg;
	while (pg) {
		size_t chunk = len < U - 4 ? len : U - 4;
		uint32_t next = len > chunk ? tks_pages_alloc(t->pages) : 0;
		if (len > chunk && !next)
			return 0;
		put32(t->ovfl, next);
		memcpy(t->ovfl + 4, rest, chunk);
		memset(t->ovfl + 4 + chunk, 0, U - 4 - chunk);
		if (tks_pages_put(t->pages, pg, t->ovfl))
			return 0;
		rest += chunk;
		len -= chunk;
		pg = next;
	}
	return first;
}

int tks_tree_append(struct tks_tree *t, int64_t rowid, const unsigned char *rec, size_t len)
{
	if (t->rows && rowid <= t->last_rowid)
		return EINVAL;
	if (t->pages->err)
		return t->pages->err;
	uint32_t U = t->pages->page_size;
	if (!t->leaf || !t->ovfl) {
		if (!t->leaf)
			t->leaf = calloc(1, U);
		if (!t->ovfl)
			t->ovfl = calloc(1, U);
		if (!t->leaf || !t->ovfl)
			return ENOMEM;
	}
	size_t max_local = U - 35, min_local = (size_t)((U - 12) * 32 / 255) - 23, local = len;
	if (len > max_local) {
		size_t k = min_local + (len - min_local) % (U - 4);
		local = k <= max_local ? k : min_local;
	}
	unsigned char hdr[18];
	int hlen = tks_varint_put(hdr, len);
	hlen += tks_varint_put(hdr + hlen, (uint64_t)rowid);
	size_t cell = (size_t)hlen + local + (local < len ? 4 : 0);
	size_t need = cell < 4 ? 4 : cell;
	if (t->ncell && 8 + 2 * ((size_t)t->ncell + 1) + (U - t->content) + need > U) {
		int err = emit_leaf(t);
		if (err)
			return err;
	}
	uint32_t ovfl = 0;
	if (local < len && !(ovfl = write_overflow(t, rec + local, len - local)))
		return t->pages->err ? t->pages->err : EIO;
	t->content -= (uint32_t)need;
	unsigned char *c = t->leaf + t->content;
	memcpy(c, hdr, (size_t)hlen);
	memcpy(c + hlen, rec, local);
	if (ovfl)
		put32(c + hlen + local, ovfl);
	if (need > cell)
		memset(c + cell, 0, need - cell);
	put16(t->leaf + 8 + 2 * t->ncell, t->content);
	t->ncell++;
	t->last_rowid = rowid;
	t->rows++;
	return 0;
}

int tks_tree_finish(struct tks_tree *t)
{
	int err = 0;
	if (!t->rows)
		return 0; /* the root SQLite wrote is an empty leaf already */
	if (t->nlevels == 0) {
		seal_leaf(t);
		return tks_pages_put(t->pages, t->root, t->leaf);
	}
	if ((err = emit_leaf(t)))
		return err;
	for (int level = 0; level < t->nlevels; level++) {
		struct tks_tree_level *lv = &t->levels[level];
		if (level == t->nlevels - 1)
			return write_interior(t, lv, lv->n, t->root);
		int n = lv->n;
		lv->n = 0;
		if ((err = emit_interior(t, level, n)))
			return err;
	}
	return 0;
}

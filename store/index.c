/*
 * Indexes built by the store writer (see index.h). Keys are sorted in runs of bounded size (a run
 * that arrived in order is not sorted again), runs go to an unlinked temporary file with each key
 * stored as its differences from the one before (a flag byte and three LEB128 varints: about 5
 * bytes instead of 32 for the usual index on (track, time)), and a k-way merge feeds the b-tree
 * builder. An index b-tree holds each entry once: a full page gives up its
 * largest entry as the separator in the level above (so no page is ever left empty), and at the
 * end the last page of each level becomes the right-most child of the level above; the top page
 * goes to the root SQLite reserved.
 */
#include "index.h"
#include "util/sort.h"
#include "util/vec.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <tracekit/error.h>

enum {
	PAGE_LEAF_INDEX = 10,
	PAGE_INTERIOR_INDEX = 2,
	READ_KEYS = 2048,
	MAX_LEVELS = 16,
	KEY_MAX_BYTES = 31,	  /* flag byte and three 10-byte varints */
	READ_BYTES = 32 * 1024,	  /* per run while merging */
	SPILL_BYTES = 256 * 1024, /* encoded keys written at a time */
};

static int cmp_key(const struct tks_ikey *x, const struct tks_ikey *y)
{
	if (x->a_null != y->a_null)
		return x->a_null ? -1 : 1;
	if (!x->a_null && x->a != y->a)
		return x->a < y->a ? -1 : 1;
	if (x->b != y->b)
		return x->b < y->b ? -1 : 1;
	if (x->rowid != y->rowid)
		return x->rowid < y->rowid ? -1 : 1;
	return 0;
}

static int qcmp(const void *x, const void *y)
{
	return cmp_key(x, y);
}

#define KEY_BEFORE(x, y) (cmp_key((x), (y)) < 0)
TKU_SORT_DEFINE(sort_keys, struct tks_ikey, KEY_BEFORE)

/* Sort @n keys (distinct: their rowids differ); qsort when the sort's buffer cannot be had. */
static void sort_buf(struct tks_ikey *v, size_t n)
{
	if (sort_keys(v, n) != 0)
		qsort(v, n, sizeof(*v), qcmp);
}

int tks_index_init(struct tks_index *ix, struct tks_pages *p, uint32_t root, int ncols,
		   const char *dir, size_t run_keys)
{
	memset(ix, 0, sizeof(*ix));
	ix->pages = p;
	ix->root = root;
	ix->ncols = ncols;
	ix->fd = -1;
	ix->buf_sorted = 1;
	ix->cap = run_keys < 16 ? 16 : run_keys;
	ix->tmp_dir = strdup(dir);
	if (!ix->tmp_dir)
		return ENOMEM;
	return 0;
}

void tks_index_free(struct tks_index *ix)
{
	if (!ix)
		return;
	if (ix->fd >= 0)
		close(ix->fd);
	free(ix->buf);
	free(ix->runs);
	free(ix->tmp_dir);
	memset(ix, 0, sizeof(*ix));
	ix->fd = -1;
}

static int write_all(int fd, const void *data, size_t len)
{
	const char *p = data;
	while (len) {
		ssize_t n = write(fd, p, len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return errno;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static unsigned char *put_leb(unsigned char *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (unsigned char)(v | 0x80);
		v >>= 7;
	}
	*p++ = (unsigned char)v;
	return p;
}

/* The difference @x - @prev, modulo 2^64, zigzag-coded so that small steps either way are small. */
static uint64_t zz(int64_t x, int64_t prev)
{
	uint64_t d = (uint64_t)x - (uint64_t)prev;
	return (d << 1) ^ (uint64_t) - (int64_t)(d >> 63);
}

static int64_t unzz(uint64_t z, int64_t prev)
{
	uint64_t d = (z >> 1) ^ (uint64_t) - (int64_t)(z & 1);
	return (int64_t)((uint64_t)prev + d);
}

/* Encode @k after @prev at @p (at most KEY_MAX_BYTES); the end. */
static unsigned char *encode_key(unsigned char *p, const struct tks_ikey *k,
				 const struct tks_ikey *prev)
{
	*p++ = (unsigned char)(k->a_null != 0);
	p = put_leb(p, zz(k->a, prev->a));
	p = put_leb(p, zz(k->b, prev->b));
	return put_leb(p, zz(k->rowid, prev->rowid));
}

/* Sort the buffer (unless it arrived in order) and append it, encoded, to the run file. */
static int spill_run(struct tks_index *ix)
{
	int err = 0;
	unsigned char *out = NULL;
	if (!ix->buf_sorted)
		sort_buf(ix->buf, ix->n);
	if (ix->fd < 0) {
		size_t len = strlen(ix->tmp_dir) + 40;
		char *path = malloc(len);
		if (!path)
			return ENOMEM;
		snprintf(path, len, "%s/.tracekit-sort-XXXXXX", ix->tmp_dir);
		ix->fd = mkstemp(path);
		int e = errno;
		if (ix->fd >= 0)
			unlink(path);
		free(path);
		if (ix->fd < 0)
			return e;
	}
	if (TKU_GROW(ix->runs, ix->runs_cap, ix->nruns + 1, 8) != TK_OK)
		return ENOMEM;
	if (!(out = malloc(SPILL_BYTES)))
		return ENOMEM;
	struct tks_ikey prev = {0, 0, 0, 0};
	size_t used = 0;
	uint64_t bytes = 0;
	for (size_t i = 0; i < ix->n; i++) {
		if (used > SPILL_BYTES - KEY_MAX_BYTES) {
			if ((err = write_all(ix->fd, out, used)))
				goto out;
			bytes += used;
			used = 0;
		}
		used = (size_t)(encode_key(out + used, &ix->buf[i], &prev) - out);
		prev = ix->buf[i];
	}
	if ((err = write_all(ix->fd, out, used)))
		goto out;
	bytes += used;
	ix->runs[ix->nruns++] = (struct tks_irun){ix->n, ix->file_bytes, bytes};
	ix->file_bytes += bytes;
	ix->n = 0;
	ix->buf_sorted = 1;
out:
	free(out);
	return err;
}

int tks_index_add(struct tks_index *ix, const struct tks_ikey *k)
{
	if (ix->n == ix->room && ix->room < ix->cap) {
		/* The run buffer grows by doubling up to its cap: a small store's indexes stay small. */
		size_t room = ix->room ? 2 * ix->room : 1024;
		if (room > ix->cap)
			room = ix->cap;
		struct tks_ikey *nb = realloc(ix->buf, room * sizeof(*nb));
		if (!nb)
			return ENOMEM;
		ix->buf = nb;
		ix->room = room;
	}
	if (ix->n == ix->cap) {
		int err = spill_run(ix);
		if (err)
			return err;
	}
	if (ix->n && ix->buf_sorted && cmp_key(&ix->buf[ix->n - 1], k) > 0)
		ix->buf_sorted = 0;
	ix->buf[ix->n++] = *k;
	ix->total++;
	return 0;
}

/* ---- the b-tree ---- */

struct ipage {
	unsigned char *pg;
	int ncell;
	uint32_t content, hdr, size;
	uint32_t last_len; /* size of the last cell added (it sits at content) */
};

struct builder {
	struct tks_index *ix;
	uint32_t U;
	struct ipage leaf, level[MAX_LEVELS];
	int nlevels;
};

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

static int ip_init(struct ipage *ip, uint32_t U, uint32_t hdr)
{
	ip->pg = calloc(1, U);
	ip->ncell = 0;
	ip->content = U;
	ip->size = U;
	ip->hdr = hdr;
	return ip->pg ? 0 : ENOMEM;
}

static int ip_fits(const struct ipage *ip, uint32_t U, uint32_t len)
{
	return ip->hdr + 2 * ((uint32_t)ip->ncell + 1) + (U - ip->content) + len <= U;
}

static void ip_add(struct ipage *ip, const unsigned char *cell, uint32_t len)
{
	ip->content -= len;
	memcpy(ip->pg + ip->content, cell, len);
	put16(ip->pg + ip->hdr + 2 * ip->ncell, ip->content);
	ip->ncell++;
	ip->last_len = len;
}

/* Remove the last cell (the largest entry), copying it to @out; its length. */
static uint32_t ip_pop(struct ipage *ip, unsigned char *out)
{
	uint32_t len = ip->last_len;
	memcpy(out, ip->pg + ip->content, len);
	ip->content += len;
	ip->ncell--;
	/* the cell before it is the new last one: cells sit back to back from the page's end */
	if (ip->ncell) {
		const unsigned char *p = ip->pg + ip->hdr + 2 * (ip->ncell - 2);
		uint32_t above = ip->ncell >= 2 ? ((uint32_t)p[0] << 8 | p[1]) : ip->size;
		ip->last_len = above - ip->content;
	}
	return len;
}

static int ip_write(struct builder *bd, struct ipage *ip, int type, uint32_t right, uint32_t pgno)
{
	unsigned char *pg = ip->pg;
	uint32_t end = ip->hdr + 2 * (uint32_t)ip->ncell;
	pg[0] = (unsigned char)type;
	pg[1] = pg[2] = 0;
	put16(pg + 3, (uint32_t)ip->ncell);
	put16(pg + 5, ip->content == 65536 ? 0 : ip->content);
	pg[7] = 0;
	if (type == PAGE_INTERIOR_INDEX)
		put32(pg + 8, right);
	memset(pg + end, 0, ip->content - end);
	int err = tks_pages_put(bd->ix->pages, pgno, pg);
	ip->ncell = 0;
	ip->content = bd->U;
	return err;
}

/* Add separator @rec (an entry) with left child @child to @level, spilling upwards when full. */
static int push_sep(struct builder *bd, int level, uint32_t child, const unsigned char *rec,
		    uint32_t rlen)
{
	if (level >= MAX_LEVELS)
		return EFBIG;
	if (level == bd->nlevels) {
		int err = ip_init(&bd->level[level], bd->U, 12);
		if (err)
			return err;
		bd->nlevels++;
	}
	struct ipage *ip = &bd->level[level];
	unsigned char cell[48];
	put32(cell, child);
	cell[4] = (unsigned char)rlen; /* records are < 128 bytes: a one-byte varint */
	memcpy(cell + 5, rec, rlen);
	if (!ip_fits(ip, bd->U, rlen + 5)) {
		unsigned char last[48];
		uint32_t llen = ip_pop(ip, last);
		uint32_t right = (uint32_t)last[0] << 24 | (uint32_t)last[1] << 16 |
				 (uint32_t)last[2] << 8 | last[3];
		uint32_t pgno = tks_pages_alloc(bd->ix->pages);
		if (!pgno)
			return bd->ix->pages->err;
		int err = ip_write(bd, ip, PAGE_INTERIOR_INDEX, right, pgno);
		if (err || (err = push_sep(bd, level + 1, pgno, last + 5, llen - 5)))
			return err;
		ip = &bd->level[level];
	}
	ip_add(ip, cell, rlen + 5);
	return 0;
}

/* The record of @k: (a, [b,] rowid). */
static uint32_t key_record(const struct tks_index *ix, const struct tks_ikey *k, unsigned char *out)
{
	int64_t v[3] = {k->a, k->b, k->rowid};
	int nv = ix->ncols + 1, size[3];
	unsigned char type[3];
	for (int i = 0; i < nv; i++) {
		int64_t x = i == nv - 1 ? k->rowid : v[i];
		if (i == 0 && k->a_null) {
			type[i] = 0;
			size[i] = 0;
		} else {
			uint64_t st;
			size[i] = tks_int_serial(x, &st);
			type[i] = (unsigned char)st;
		}
	}
	unsigned char *p = out;
	*p++ = (unsigned char)(nv + 1);
	for (int i = 0; i < nv; i++)
		*p++ = type[i];
	for (int i = 0; i < nv; i++) {
		uint64_t x = (uint64_t)(i == nv - 1 ? k->rowid : v[i]);
		for (int j = size[i] - 1; j >= 0; j--) {
			p[j] = (unsigned char)x;
			x >>= 8;
		}
		p += size[i];
	}
	return (uint32_t)(p - out);
}

static int add_entry(struct builder *bd, const struct tks_ikey *k)
{
	unsigned char cell[48];
	uint32_t rlen = key_record(bd->ix, k, cell + 1);
	cell[0] = (unsigned char)rlen;
	struct ipage *leaf = &bd->leaf;
	if (!ip_fits(leaf, bd->U, rlen + 1)) {
		unsigned char last[48];
		uint32_t llen = ip_pop(leaf, last);
		uint32_t pgno = tks_pages_alloc(bd->ix->pages);
		if (!pgno)
			return bd->ix->pages->err;
		int err = ip_write(bd, leaf, PAGE_LEAF_INDEX, 0, pgno);
		if (err || (err = push_sep(bd, 0, pgno, last + 1, llen - 1)))
			return err;
	}
	ip_add(leaf, cell, rlen + 1);
	return 0;
}

static int finish_tree(struct builder *bd)
{
	int err;
	if (bd->nlevels == 0)
		return ip_write(bd, &bd->leaf, PAGE_LEAF_INDEX, 0, bd->ix->root);
	uint32_t child = tks_pages_alloc(bd->ix->pages);
	if (!child)
		return bd->ix->pages->err;
	if ((err = ip_write(bd, &bd->leaf, PAGE_LEAF_INDEX, 0, child)))
		return err;
	for (int level = 0; level < bd->nlevels; level++) {
		uint32_t pgno =
		    level == bd->nlevels - 1 ? bd->ix->root : tks_pages_alloc(bd->ix->pages);
		if (!pgno)
			return bd->ix->pages->err;
		if ((err = ip_write(bd, &bd->level[level], PAGE_INTERIOR_INDEX, child, pgno)))
			return err;
		child = pgno;
	}
	return 0;
}

/* ---- merging runs ---- */

struct run {
	uint64_t off, end; /* next unread byte of the run in the file, and its end */
	unsigned char *bytes;
	size_t bpos, blen;    /* undecoded bytes in bytes[bpos, blen) */
	struct tks_ikey prev; /* the last key decoded */
	uint64_t left;	      /* keys not yet decoded */
	struct tks_ikey *buf;
	size_t pos, n;
};

static int get_leb(const unsigned char **p, const unsigned char *end, uint64_t *v)
{
	uint64_t x = 0;
	for (int shift = 0; shift < 64 && *p < end; shift += 7) {
		unsigned char b = *(*p)++;
		x |= (uint64_t)(b & 0x7f) << shift;
		if (b < 0x80) {
			*v = x;
			return 0;
		}
	}
	return EIO;
}

/* Decode up to READ_KEYS keys of @r into r->buf, reading more of the file as needed. */
static int run_fill(int fd, struct run *r)
{
	r->pos = r->n = 0;
	while (r->n < READ_KEYS && r->left) {
		if (r->blen - r->bpos < KEY_MAX_BYTES && r->off < r->end) {
			memmove(r->bytes, r->bytes + r->bpos, r->blen - r->bpos);
			r->blen -= r->bpos;
			r->bpos = 0;
			size_t want = READ_BYTES - r->blen;
			if (want > r->end - r->off)
				want = (size_t)(r->end - r->off);
			ssize_t got = pread(fd, r->bytes + r->blen, want, (off_t)r->off);
			if (got < 0 && errno == EINTR)
				continue;
			if (got <= 0)
				return got < 0 ? errno : EIO;
			r->blen += (size_t)got;
			r->off += (uint64_t)got;
		}
		const unsigned char *p = r->bytes + r->bpos, *e = r->bytes + r->blen;
		uint64_t za, zb, zr;
		if (p == e)
			return EIO;
		struct tks_ikey k = {.a_null = *p++ & 1};
		if (get_leb(&p, e, &za) || get_leb(&p, e, &zb) || get_leb(&p, e, &zr))
			return EIO;
		k.a = unzz(za, r->prev.a);
		k.b = unzz(zb, r->prev.b);
		k.rowid = unzz(zr, r->prev.rowid);
		r->prev = k;
		r->buf[r->n++] = k;
		r->left--;
		r->bpos = (size_t)(p - r->bytes);
	}
	return 0;
}

static const struct tks_ikey *run_head(const struct run *r)
{
	return &r->buf[r->pos];
}

static void sift_down(struct run **heap, size_t n, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, m = i;
		if (l < n && cmp_key(run_head(heap[l]), run_head(heap[m])) < 0)
			m = l;
		if (l + 1 < n && cmp_key(run_head(heap[l + 1]), run_head(heap[m])) < 0)
			m = l + 1;
		if (m == i)
			return;
		struct run *t = heap[i];
		heap[i] = heap[m];
		heap[m] = t;
		i = m;
	}
}

static int merge(struct tks_index *ix, struct builder *bd)
{
	size_t nr = ix->nruns + (ix->n ? 1 : 0), nh = 0;
	struct run *runs = calloc(nr, sizeof(*runs));
	struct run **heap = calloc(nr, sizeof(*heap));
	int err = runs && heap ? 0 : ENOMEM;
	for (size_t i = 0; i < ix->nruns && !err; i++) {
		runs[i].off = ix->runs[i].off;
		runs[i].end = ix->runs[i].off + ix->runs[i].bytes;
		runs[i].left = ix->runs[i].keys;
		runs[i].buf = malloc(READ_KEYS * sizeof(struct tks_ikey));
		runs[i].bytes = malloc(READ_BYTES);
		if (!runs[i].buf || !runs[i].bytes)
			err = ENOMEM;
		else if (!(err = run_fill(ix->fd, &runs[i])) && runs[i].n)
			heap[nh++] = &runs[i];
	}
	if (!err && ix->n) { /* the sorted tail still in memory */
		struct run *r = &runs[nr - 1];
		r->buf = ix->buf;
		r->n = ix->n;
		heap[nh++] = r;
	}
	for (size_t i = nh; i-- > 0;)
		sift_down(heap, nh, i);
	while (!err && nh) {
		struct run *r = heap[0];
		err = add_entry(bd, run_head(r));
		if (err)
			break;
		if (++r->pos == r->n) {
			if (r->left)
				err = run_fill(ix->fd, r);
			else
				r->n = 0;
			if (!r->n) {
				heap[0] = heap[--nh];
				r = NULL;
			}
		}
		if (nh)
			sift_down(heap, nh, 0);
	}
	for (size_t i = 0; runs && i < ix->nruns; i++) {
		free(runs[i].buf);
		free(runs[i].bytes);
	}
	free(runs);
	free(heap);
	return err;
}

int tks_index_finish(struct tks_index *ix)
{
	if (!ix->total)
		return 0; /* SQLite's root is an empty index leaf already */
	struct builder bd;
	memset(&bd, 0, sizeof(bd));
	bd.ix = ix;
	bd.U = ix->pages->page_size;
	int err = ip_init(&bd.leaf, bd.U, 8);
	if (!err && ix->n && !ix->buf_sorted)
		sort_buf(ix->buf, ix->n);
	if (!err) {
		if (ix->nruns)
			err = merge(ix, &bd);
		else
			for (size_t i = 0; i < ix->n && !err; i++)
				err = add_entry(&bd, &ix->buf[i]);
	}
	if (!err)
		err = finish_tree(&bd);
	free(bd.leaf.pg);
	for (int i = 0; i < bd.nlevels; i++)
		free(bd.level[i].pg);
	return err;
}

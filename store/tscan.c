/*
 * Direct table scans (see tscan.h): a depth-first walk of one table b-tree of an SQLite file
 * (https://sqlite.org/fileformat2.html), leaves in rowid order, each cell's record decoded into
 * column slots (overflow chains gathered into a scratch buffer). Pages are read with pread() into
 * one buffer per tree level, so memory stays a few pages whatever the size of the file. Nothing here is SQLite's
 * code; the schema lookups (root page, column order) go through SQLite itself.
 */
#include "tscan.h"
#include "util/vec.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <tracekit/error.h>
#include <unistd.h>

enum { MAX_DEPTH = 40, MAX_COLS = 64, LEAF_TABLE = 13, INTERIOR_TABLE = 5 };

struct col {
	uint64_t type; /* serial type */
	const unsigned char *p;
};

struct tks_tscan {
	int fd;
	uint64_t size;
	uint32_t page_size, usable, npages;
	/* the path from the root to the current leaf: page, its contents and the next cell */
	struct {
		uint32_t pgno;
		int cell, ncell;
		const unsigned char *pg;
	} stack[MAX_DEPTH];
	unsigned char *level[MAX_DEPTH]; /* page buffers, one per depth */
	unsigned char *ovfl;		 /* overflow page buffer */
	int depth; /* entries in stack; the top is a leaf while rows are read from it */
	uint64_t pages_seen;
	/* the current row */
	int64_t rowid;
	int ncols, want[MAX_COLS];    /* record column of each requested column; -1: the rowid */
	unsigned char real[MAX_COLS]; /* REAL affinity: integers stored for integral reals */
	int rec_cols;		      /* columns the table has */
	struct col c[MAX_COLS];
	unsigned char *scratch; /* records that spill into overflow pages */
	size_t scratch_cap;
	char *err;
	size_t errlen;
};

static int fail(struct tks_tscan *s, const char *fmt, uint32_t pgno)
{
	if (s->err && s->errlen)
		snprintf(s->err, s->errlen, fmt, (unsigned)pgno);
	return -1;
}

static uint32_t get16(const unsigned char *p)
{
	return (uint32_t)p[0] << 8 | p[1];
}

static uint32_t get32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* SQLite varint at *p (before end); 0, or -1 when cut short. */
static inline int varint(const unsigned char **p, const unsigned char *end, uint64_t *out)
{
	const unsigned char *q = *p;
	if (q < end && *q < 0x80) { /* one byte: serial types, small sizes and rowids */
		*out = *q;
		*p = q + 1;
		return 0;
	}
	uint64_t v = 0;
	for (int i = 0; i < 9; i++) {
		if (q >= end)
			return -1;
		unsigned char b = *q++;
		if (i == 8) {
			v = (v << 8) | b;
			break;
		}
		v = (v << 7) | (b & 0x7f);
		if (b < 0x80)
			break;
	}
	*p = q;
	*out = v;
	return 0;
}

/* Read page @pgno into *@buf (allocated on first use); its contents, or NULL after fail(). */
static const unsigned char *load(struct tks_tscan *s, uint32_t pgno, unsigned char **buf)
{
	if (pgno == 0 || pgno > s->npages)
		return fail(s, "page %u is outside the file", pgno), NULL;
	if (!*buf && !(*buf = malloc(s->page_size)))
		return fail(s, "out of memory reading page %u", pgno), NULL;
	size_t got = 0;
	while (got < s->page_size) {
		ssize_t n = pread(s->fd, *buf + got, s->page_size - got,
				  (off_t)(pgno - 1) * s->page_size + (off_t)got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return fail(s, "cannot read page %u", pgno), NULL;
		got += (size_t)n;
	}
	return *buf;
}

/* The b-tree header of page @pgno at @pg (past the file header on page 1). */
static const unsigned char *btree_hdr(const unsigned char *pg, uint32_t pgno)
{
	return pg + (pgno == 1 ? 100 : 0);
}

/* Push page @pgno onto the walk; 0 or -1. */
static int push(struct tks_tscan *s, uint32_t pgno)
{
	if (s->depth == MAX_DEPTH || ++s->pages_seen > s->npages)
		return fail(s, "the table b-tree is too deep or loops (page %u)", pgno);
	const unsigned char *pg = load(s, pgno, &s->level[s->depth]);
	if (!pg)
		return -1;
	const unsigned char *h = btree_hdr(pg, pgno);
	if (h[0] != LEAF_TABLE && h[0] != INTERIOR_TABLE)
		return fail(s, "page %u is not a table b-tree page", pgno);
	uint32_t ncell = get16(h + 3), hdr = h[0] == LEAF_TABLE ? 8 : 12;
	if ((size_t)(h - pg) + hdr + 2 * ncell > s->usable)
		return fail(s, "page %u has more cells than fit", pgno);
	s->stack[s->depth].pgno = pgno;
	s->stack[s->depth].pg = pg;
	s->stack[s->depth].cell = 0;
	s->stack[s->depth].ncell = (int)ncell;
	s->depth++;
	return 0;
}

/* Cell @i of page @pgno at @pg (its pointer checked to lie in the page). */
static int cell_at(const struct tks_tscan *s, const unsigned char *pg, uint32_t pgno, int i,
		   const unsigned char **cell)
{
	const unsigned char *h = btree_hdr(pg, pgno);
	uint32_t hdr = h[0] == LEAF_TABLE ? 8 : 12;
	uint32_t off = get16(h + hdr + 2 * (uint32_t)i);
	if (off < (uint32_t)(h - pg) + hdr || off >= s->usable)
		return -1;
	*cell = pg + off;
	return 0;
}

/* Gather a payload of @total bytes, @local of them at @p, the rest from overflow page @ovfl. */
static const unsigned char *gather(struct tks_tscan *s, const unsigned char *p, size_t local,
				   uint64_t total, uint32_t ovfl, uint32_t leaf)
{
	if (total > (uint64_t)s->size)
		return fail(s, "a record on page %u is larger than the file", leaf), NULL;
	if (TKU_GROW(s->scratch, s->scratch_cap, (size_t)total, 4096) != TK_OK)
		return fail(s, "out of memory for a record on page %u", leaf), NULL;
	memcpy(s->scratch, p, local);
	size_t got = local;
	uint64_t hops = 0;
	while (got < total) {
		if (++hops > s->npages)
			return fail(s, "broken overflow chain of a record on page %u", leaf), NULL;
		const unsigned char *o = load(s, ovfl, &s->ovfl);
		if (!o)
			return NULL;
		size_t n = s->usable - 4;
		if (n > total - got)
			n = (size_t)(total - got);
		memcpy(s->scratch + got, o + 4, n);
		got += n;
		ovfl = get32(o);
	}
	return s->scratch;
}

/* Decode the record @rec of @len bytes into the column slots. */
static int decode(struct tks_tscan *s, const unsigned char *rec, uint64_t len, uint32_t leaf)
{
	const unsigned char *end = rec + len, *p = rec;
	uint64_t hlen;
	if (varint(&p, end, &hlen) || hlen > len || hlen < (uint64_t)(p - rec))
		return fail(s, "bad record header on page %u", leaf);
	const unsigned char *hend = rec + hlen, *body = hend;
	int n = 0;
	while (p < hend) {
		uint64_t t;
		if (varint(&p, hend, &t))
			return fail(s, "bad record header on page %u", leaf);
		static const unsigned char fixed[12] = {0, 1, 2, 3, 4, 6, 8, 8, 0, 0, 0, 0};
		uint64_t size = t >= 12 ? (t - 12) / 2 : fixed[t];
		if (t == 10 || t == 11 || size > (uint64_t)(end - body))
			return fail(s, "bad record on page %u", leaf);
		if (n < MAX_COLS) {
			s->c[n].type = t;
			s->c[n].p = body;
		}
		body += size;
		n++;
	}
	for (; n < s->rec_cols && n < MAX_COLS; n++) /* columns added after the row: NULL */
		s->c[n].type = 0;
	return 0;
}

/* Load the row of leaf cell at @cell of page @pgno at @pg. */
static int load_row(struct tks_tscan *s, const unsigned char *pg, uint32_t pgno,
		    const unsigned char *cell)
{
	const unsigned char *end = pg + s->usable, *p = cell;
	uint64_t plen, rowid;
	if (varint(&p, end, &plen) || varint(&p, end, &rowid))
		return fail(s, "bad cell on page %u", pgno);
	s->rowid = (int64_t)rowid;
	uint64_t X = s->usable - 35, local = plen;
	if (plen > X) {
		uint64_t M = ((uint64_t)(s->usable - 12) * 32 / 255) - 23;
		uint64_t K = M + ((plen - M) % (s->usable - 4));
		local = K <= X ? K : M;
	}
	if (local > (uint64_t)(end - p) || (local < plen && local + 4 > (uint64_t)(end - p)))
		return fail(s, "a cell runs past the end of page %u", pgno);
	const unsigned char *rec = p;
	if (local < plen && !(rec = gather(s, p, (size_t)local, plen, get32(p + local), pgno)))
		return -1;
	return decode(s, rec, plen, pgno);
}

int tks_tscan_next(struct tks_tscan *s)
{
	while (s->depth) {
		int top = s->depth - 1;
		uint32_t pgno = s->stack[top].pgno;
		const unsigned char *pg = s->stack[top].pg, *h = btree_hdr(pg, pgno), *cell;
		int i = s->stack[top].cell;
		if (h[0] == LEAF_TABLE) {
			if (i >= s->stack[top].ncell) {
				s->depth--;
				continue;
			}
			s->stack[top].cell++;
			if (cell_at(s, pg, pgno, i, &cell))
				return fail(s, "a cell pointer of page %u is outside it", pgno);
			return load_row(s, pg, pgno, cell) ? -1 : 1;
		}
		/* interior: children in cell order, then the right-most one */
		if (i > s->stack[top].ncell) {
			s->depth--;
			continue;
		}
		s->stack[top].cell++;
		uint32_t child;
		if (i == s->stack[top].ncell)
			child = get32(h + 8);
		else {
			if (cell_at(s, pg, pgno, i, &cell) || cell + 4 > pg + s->usable)
				return fail(s, "a cell pointer of page %u is outside it", pgno);
			child = get32(cell);
		}
		if (push(s, child))
			return -1;
	}
	return 0;
}

int64_t tks_tscan_rowid(const struct tks_tscan *s)
{
	return s->rowid;
}

int tks_tscan_is_rowid(const struct tks_tscan *s, int i)
{
	return s->want[i] < 0;
}

uint32_t tks_tscan_int_mask(const struct tks_tscan *s, uint32_t *nulls)
{
	uint32_t m = 0, z = 0;
	for (int i = 0; i < s->ncols && i < 32; i++) { /* tks_tscan_type(), for two types */
		int c = s->want[i];
		uint64_t t = c < 0 ? 1 : s->c[c].type;
		if (t == 0)
			z |= 1u << i;
		else if (t < 12 && t != 7 && !(s->real[i] && c >= 0))
			m |= 1u << i;
	}
	*nulls = z;
	return m;
}

enum tks_tscan_type tks_tscan_type(const struct tks_tscan *s, int i)
{
	int c = s->want[i];
	if (c < 0)
		return TK_TS_INT;
	uint64_t t = s->c[c].type;
	if (s->real[i] && t >= 1 && t <= 9)
		return TK_TS_REAL;
	return t == 0	? TK_TS_NULL
	       : t == 7 ? TK_TS_REAL
	       : t < 12 ? TK_TS_INT
	       : t & 1	? TK_TS_TEXT
			: TK_TS_BLOB;
}

static inline int64_t int_at(const struct col *c)
{
	const unsigned char *p = c->p;
	switch (c->type) {
	case 1:
		return (int8_t)p[0];
	case 2:
		return (int16_t)(p[0] << 8 | p[1]);
	case 3:
		return (int32_t)((uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
				 (uint32_t)p[2] << 8) >>
		       8;
	case 4:
		return (int32_t)get32(p);
	case 5:
		return (int64_t)((uint64_t)get16(p) << 48 | (uint64_t)get32(p + 2) << 16) >> 16;
	case 6:
		return (int64_t)((uint64_t)get32(p) << 32 | get32(p + 4));
	case 8:
	case 9:
		return (int64_t)c->type - 8;
	default:
		return 0;
	}
}

static double real_at(const struct col *c)
{
	uint64_t v = 0;
	double d;
	for (int k = 0; k < 8; k++)
		v = (v << 8) | c->p[k];
	memcpy(&d, &v, sizeof(d));
	return d;
}

int64_t tks_tscan_int(const struct tks_tscan *s, int i)
{
	int c = s->want[i];
	if (c < 0)
		return s->rowid;
	uint64_t t = s->c[c].type;
	if (t >= 1 && t <= 9 && t != 7)
		return int_at(&s->c[c]);
	if (t == 7) {
		double d = real_at(&s->c[c]);
		return d != d			     ? 0
		       : d >= 9.2233720368547758e18  ? INT64_MAX
		       : d <= -9.2233720368547758e18 ? INT64_MIN
						     : (int64_t)d;
	}
	return 0;
}

double tks_tscan_real(const struct tks_tscan *s, int i)
{
	int c = s->want[i];
	if (c < 0)
		return (double)s->rowid;
	uint64_t t = s->c[c].type;
	if (t == 7)
		return real_at(&s->c[c]);
	if (t >= 1 && t <= 9)
		return (double)int_at(&s->c[c]);
	return 0;
}

const char *tks_tscan_text(const struct tks_tscan *s, int i, size_t *len)
{
	int c = s->want[i];
	uint64_t t = c < 0 ? 0 : s->c[c].type;
	if (t < 12) {
		*len = 0;
		return NULL;
	}
	*len = (size_t)((t - 12) / 2);
	return (const char *)s->c[c].p;
}

/* Root page and column layout of @table from SQLite's own schema. */
static int layout(struct tks_tscan *s, sqlite3 *db, const char *table, const char *const *cols,
		  uint32_t *root, char *err, size_t errlen)
{
	sqlite3_stmt *st = NULL;
	int rc = TK_OK, ipk = -1, n = 0;
	char names[MAX_COLS][64];
	unsigned char real[MAX_COLS];
	if (sqlite3_prepare_v2(
		db, "SELECT rootpage, sql FROM sqlite_schema WHERE type = 'table' AND name = ?1",
		-1, &st, NULL) != SQLITE_OK ||
	    sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC) != SQLITE_OK) {
		snprintf(err, errlen, "%s", sqlite3_errmsg(db));
		rc = TK_EIO;
		goto out;
	}
	if (sqlite3_step(st) != SQLITE_ROW) {
		snprintf(err, errlen, "no table '%s'", table);
		rc = TK_EINVAL;
		goto out;
	}
	*root = (uint32_t)sqlite3_column_int64(st, 0);
	const char *sql = (const char *)sqlite3_column_text(st, 1);
	if (!sql || strstr(sql, "WITHOUT ROWID") || strstr(sql, "without rowid")) {
		rc = 1;
		goto out;
	}
	sqlite3_finalize(st);
	st = NULL;
	/* every column in record order, with its primary-key position */
	if (sqlite3_prepare_v2(db, "SELECT name, type, pk FROM pragma_table_info(?1)", -1, &st,
			       NULL) != SQLITE_OK ||
	    sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC) != SQLITE_OK) {
		snprintf(err, errlen, "%s", sqlite3_errmsg(db));
		rc = TK_EIO;
		goto out;
	}
	int npk = 0;
	while (sqlite3_step(st) == SQLITE_ROW) {
		if (n == MAX_COLS) {
			rc = 1; /* wider than this reader handles */
			goto out;
		}
		const char *name = (const char *)sqlite3_column_text(st, 0);
		const char *type = (const char *)sqlite3_column_text(st, 1);
		snprintf(names[n], sizeof(names[n]), "%s", name ? name : "");
		/* SQLite's affinity rules: INT first, then CHAR/CLOB/TEXT, BLOB, then REAL/FLOA/DOUB */
		char up[64] = "";
		for (size_t k = 0; type && type[k] && k < sizeof(up) - 1; k++)
			up[k] = (char)(type[k] >= 'a' && type[k] <= 'z' ? type[k] - 32 : type[k]);
		real[n] = !strstr(up, "INT") && !strstr(up, "CHAR") && !strstr(up, "CLOB") &&
			  !strstr(up, "TEXT") && !strstr(up, "BLOB") &&
			  (strstr(up, "REAL") || strstr(up, "FLOA") || strstr(up, "DOUB"));
		if (sqlite3_column_int(st, 2)) {
			npk++;
			if (type && !strcasecmp(type, "INTEGER"))
				ipk = n;
		}
		n++;
	}
	if (npk != 1)
		ipk = -1; /* a composite key: no column is the rowid */
	s->rec_cols = n;
	for (s->ncols = 0; cols[s->ncols]; s->ncols++) {
		if (s->ncols == MAX_COLS) {
			snprintf(err, errlen, "too many columns");
			rc = TK_EINVAL;
			goto out;
		}
		int found = -2;
		for (int c = 0; c < n && found == -2; c++)
			if (!strcmp(names[c], cols[s->ncols]))
				found = c == ipk ? -1 : c;
		if (found == -2) {
			snprintf(err, errlen, "no column '%s' in table '%s'", cols[s->ncols],
				 table);
			rc = TK_EINVAL;
			goto out;
		}
		s->want[s->ncols] = found;
		s->real[s->ncols] = found >= 0 && real[found];
	}
out:
	sqlite3_finalize(st);
	return rc;
}

int tks_tscan_open(struct tks_tscan **out, sqlite3 *db, const char *path, const char *table,
		   const char *const *cols, char *err, size_t errlen)
{
	struct tks_tscan *s = NULL;
	int rc = TK_OK;
	uint32_t root = 0;
	struct stat sb;
	unsigned char hdr[100];
	*out = NULL;
	char *wal = malloc(strlen(path) + 5);
	if (!wal)
		return TK_ENOMEM;
	sprintf(wal, "%s-wal", path);
	int has_wal = stat(wal, &sb) == 0 && sb.st_size > 0;
	free(wal);
	if (has_wal)
		return 1;
	if (!(s = calloc(1, sizeof(*s))))
		return TK_ENOMEM;
	s->fd = -1;
	if ((rc = layout(s, db, table, cols, &root, err, errlen)) != TK_OK)
		goto out;
	if ((s->fd = open(path, O_RDONLY | O_CLOEXEC)) < 0 || fstat(s->fd, &sb) != 0) {
		snprintf(err, errlen, "'%s': %s", path, strerror(errno));
		rc = TK_EIO;
		goto out;
	}
	s->size = (uint64_t)sb.st_size;
	if (s->size < 512 || pread(s->fd, hdr, sizeof(hdr), 0) != (ssize_t)sizeof(hdr) ||
	    memcmp(hdr, "SQLite format 3", 16)) {
		snprintf(err, errlen, "'%s': not an SQLite file", path);
		rc = TK_EFORMAT;
		goto out;
	}
	if (hdr[18] == 2) { /* WAL mode: pages may live in the log */
		rc = 1;
		goto out;
	}
	uint32_t ps = get16(hdr + 16);
	s->page_size = ps == 1 ? 65536 : ps;
	if (s->page_size < 512 || (s->page_size & (s->page_size - 1)) ||
	    hdr[20] >= s->page_size - 480) {
		snprintf(err, errlen, "'%s': bad page size in the header", path);
		rc = TK_EFORMAT;
		goto out;
	}
	posix_fadvise(s->fd, 0, 0, POSIX_FADV_SEQUENTIAL);
	s->usable = s->page_size - hdr[20];
	s->npages = (uint32_t)(s->size / s->page_size);
	s->err = err;
	s->errlen = errlen;
	if (push(s, root)) {
		rc = TK_EFORMAT;
		goto out;
	}
	*out = s;
	s = NULL;
out:
	tks_tscan_close(s);
	return rc;
}

void tks_tscan_close(struct tks_tscan *s)
{
	if (!s)
		return;
	if (s->fd >= 0)
		close(s->fd);
	for (int i = 0; i < MAX_DEPTH; i++)
		free(s->level[i]);
	free(s->ovfl);
	free(s->scratch);
	free(s);
}

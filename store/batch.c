/*
 * Rows of one store table on their way to disk (see batch.h). Encoding follows SQLite's rules so
 * that the pages read back exactly as if SQLite had inserted the rows: the INTEGER PRIMARY KEY
 * column is stored as NULL and becomes the rowid; integers take the smallest serial type; a real
 * with an integral value in a numeric column is stored as an integer (as SQLite does, and read
 * back as a real in a REAL column); NOT NULL is enforced; a value a column's affinity would
 * convert (text into a number column, a number into a text column) is refused as a bug.
 */
#include "batch.h"
#include "util/vec.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <tracekit/error.h>

static char affinity_of(const char *decl)
{
	char up[64];
	size_t n = 0;
	for (; decl && decl[n] && n < sizeof(up) - 1; n++)
		up[n] = (char)toupper((unsigned char)decl[n]);
	up[n] = '\0';
	if (strstr(up, "INT"))
		return 'I';
	if (strstr(up, "CHAR") || strstr(up, "CLOB") || strstr(up, "TEXT"))
		return 'T';
	if (!n || strstr(up, "BLOB"))
		return 'B';
	if (strstr(up, "REAL") || strstr(up, "FLOA") || strstr(up, "DOUB"))
		return 'R';
	return 'N';
}

int tks_batch_describe(struct tks_batch *b, sqlite3 *db, const char *table, int ncol)
{
	char sql[128];
	sqlite3_stmt *st = NULL;
	int rc, n = 0, npk = 0, pkcol = -1, pk_integer = 0;
	memset(b, 0, sizeof(*b));
	b->ipk = -1;
	b->conflict = "";
	snprintf(b->table, sizeof(b->table), "%s", table);
	if (ncol < 1 || ncol > TK_BATCH_MAX_COLS || strlen(table) >= sizeof(b->table)) {
		snprintf(b->err, sizeof(b->err), "table %s: unsupported shape", table);
		return SQLITE_MISUSE;
	}
	snprintf(sql, sizeof(sql), "PRAGMA table_info(%s)", table);
	if ((rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL)) != SQLITE_OK)
		goto out;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (n >= ncol) {
			n++;
			continue;
		}
		const char *name = (const char *)sqlite3_column_text(st, 1);
		const char *type = (const char *)sqlite3_column_text(st, 2);
		snprintf(b->colname[n], sizeof(b->colname[n]), "%s", name ? name : "?");
		b->aff[n] = affinity_of(type);
		b->notnull[n] = (char)(sqlite3_column_int(st, 3) != 0);
		if (sqlite3_column_int(st, 5)) {
			npk++;
			pkcol = n;
			pk_integer = type && !strcasecmp(type, "INTEGER");
		}
		n++;
	}
	sqlite3_finalize(st);
	st = NULL;
	if (rc != SQLITE_DONE)
		goto out;
	if (n != ncol) {
		snprintf(b->err, sizeof(b->err), "table %s has %d columns, the writer expects %d",
			 table, n, ncol);
		return SQLITE_SCHEMA;
	}
	b->ncol = ncol;
	if (npk == 1 && pk_integer)
		b->ipk = pkcol;
	if ((rc = sqlite3_prepare_v2(
		 db,
		 "SELECT (SELECT rootpage FROM sqlite_schema WHERE type = 'table'"
		 " AND name = ?1), (SELECT count(*) FROM sqlite_schema WHERE"
		 " type = 'index' AND tbl_name = ?1 AND name LIKE 'sqlite_autoindex_%')",
		 -1, &st, NULL)) != SQLITE_OK)
		goto out;
	sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
	if ((rc = sqlite3_step(st)) != SQLITE_ROW)
		goto out;
	b->root = (uint32_t)sqlite3_column_int64(st, 0);
	/* a table with an index of its own (UNIQUE, a non-integer PRIMARY KEY) goes through SQL */
	b->direct = sqlite3_column_int(st, 1) == 0 && b->root > 1;
	b->ka = b->kb = -1;
	rc = SQLITE_OK;
out:
	if (rc != SQLITE_OK && !b->err[0])
		snprintf(b->err, sizeof(b->err), "table %s: %s", table, sqlite3_errmsg(db));
	sqlite3_finalize(st);
	return rc;
}

int tks_batch_plan_index(struct tks_batch *b, sqlite3 *db, const char *name, int *by_writer)
{
	sqlite3_stmt *st = NULL;
	int cid[3], n = 0, unique = 1, rc;
	uint32_t root = 0;
	*by_writer = 0;
	rc = sqlite3_prepare_v2(db,
				"SELECT (SELECT rootpage FROM sqlite_schema WHERE name = ?1),"
				" (SELECT \"unique\" FROM pragma_index_list(?2) WHERE name = ?1)",
				-1, &st, NULL);
	if (rc != SQLITE_OK)
		goto out;
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, b->table, -1, SQLITE_STATIC);
	if ((rc = sqlite3_step(st)) != SQLITE_ROW)
		goto out;
	root = (uint32_t)sqlite3_column_int64(st, 0);
	unique = sqlite3_column_int(st, 1);
	sqlite3_finalize(st);
	st = NULL;
	if ((rc = sqlite3_prepare_v2(db, "SELECT cid FROM pragma_index_info(?1) ORDER BY seqno", -1,
				     &st, NULL)) != SQLITE_OK)
		goto out;
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		if (n < 3)
			cid[n++] = sqlite3_column_int(st, 0);
		else
			n++;
	if (rc != SQLITE_DONE)
		goto out;
	rc = SQLITE_OK;
	int ok = !unique && !b->has_ix && b->direct && root > 1 && (n == 1 || n == 2);
	for (int i = 0; ok && i < n; i++)
		ok = cid[i] >= 0 && cid[i] < b->ncol && cid[i] != b->ipk && b->aff[cid[i]] == 'I';
	if (ok && n == 2)
		ok = b->notnull[cid[1]];
	if (ok) {
		b->has_ix = 1;
		b->ka = cid[0];
		b->kb = n == 2 ? cid[1] : -1;
		b->ix_root = root;
		*by_writer = 1;
	}
out:
	if (rc != SQLITE_OK)
		snprintf(b->err, sizeof(b->err), "index %s: %s", name, sqlite3_errmsg(db));
	sqlite3_finalize(st);
	return rc;
}

void tks_batch_copy_description(struct tks_batch *dst, const struct tks_batch *src)
{
	memset(dst, 0, sizeof(*dst));
	memcpy(dst->table, src->table, sizeof(dst->table));
	dst->conflict = src->conflict;
	dst->ncol = src->ncol;
	dst->ipk = src->ipk;
	memcpy(dst->aff, src->aff, sizeof(dst->aff));
	memcpy(dst->notnull, src->notnull, sizeof(dst->notnull));
	memcpy(dst->colname, src->colname, sizeof(dst->colname));
	dst->root = src->root;
	dst->direct = src->direct;
	dst->has_ix = src->has_ix;
	dst->ka = src->ka;
	dst->kb = src->kb;
	dst->ix_root = src->ix_root;
}

int tks_batch_start(struct tks_batch *b, struct tks_pages *p, const char *tmp_dir, size_t run_keys)
{
	if (!b->direct)
		return 0;
	int err = tks_tree_init(&b->tree, p, b->root);
	b->tree_ready = 1;
	if (!err && b->has_ix)
		err = tks_index_init(&b->ix, p, b->ix_root, b->kb >= 0 ? 2 : 1, tmp_dir, run_keys);
	return err;
}

/* The index key of the row just appended as @rowid; 0, or an errno. */
static int add_key(struct tks_batch *b, int64_t rowid)
{
	const struct tks_cell *a = &b->row[b->ka], *k2 = b->kb >= 0 ? &b->row[b->kb] : NULL;
	struct tks_ikey key = {0, 0, rowid, 0};
	if (a->type == TK_CELL_NULL)
		key.a_null = 1;
	else if (a->type == TK_CELL_INT)
		key.a = a->i;
	else
		return EINVAL;
	if (k2) {
		if (k2->type != TK_CELL_INT)
			return EINVAL;
		key.b = k2->i;
	}
	return tks_index_add(&b->ix, &key);
}

struct tks_cell *tks_batch_row(struct tks_batch *b)
{
	for (int c = 0; c < b->ncol; c++)
		b->row[c].type = TK_CELL_NULL;
	b->alen = 0;
	return b->row;
}

static int grow(char **buf, size_t *cap, size_t need)
{
	return tku_grow(buf, cap, need, 1, 4096) == TK_OK;
}

int tks_batch_text(struct tks_batch *b, struct tks_cell *c, const char *s)
{
	size_t len = strlen(s);
	if (len > INT32_MAX)
		return SQLITE_TOOBIG;
	if (!grow(&b->arena, &b->acap, b->alen + len + 1))
		return SQLITE_NOMEM;
	memcpy(b->arena + b->alen, s, len);
	c->type = TK_CELL_TEXT;
	c->off = b->alen;
	c->len = (int)len;
	b->alen += len;
	return SQLITE_OK;
}

static inline void put_be(unsigned char *p, uint64_t v, int size)
{
	if (size == 8) {
		uint64_t be = __builtin_bswap64(v);
		memcpy(p, &be, 8);
		return;
	}
	for (int i = size - 1; i >= 0; i--) {
		p[i] = (unsigned char)v;
		v >>= 8;
	}
}

/* A real with an integral value in a numeric column is stored as that integer (SQLite does). */
static int real_as_int(double d, int64_t *out)
{
	if (!(d > -9.2233720368547748e18 && d < 9.2233720368547748e18))
		return 0;
	int64_t i = (int64_t)d;
	if ((double)i != d || i == INT64_MIN || i == INT64_MAX)
		return 0;
	*out = i;
	return 1;
}

/* Encode @row (text in @arena) as a record into b->rec; its length, or -1 with b->err set. */
static long encode(struct tks_batch *b, const struct tks_cell *row, const char *arena,
		   int64_t *rowid)
{
	uint64_t type[TK_BATCH_MAX_COLS];
	int size[TK_BATCH_MAX_COLS];
	int64_t ival[TK_BATCH_MAX_COLS];
	size_t hdr = 0, body = 0;
	for (int c = 0; c < b->ncol; c++) {
		const struct tks_cell *cell = &row[c];
		char aff = b->aff[c];
		if (c == b->ipk) {
			if (cell->type != TK_CELL_INT) {
				snprintf(b->err, sizeof(b->err), "%s.%s must be an integer",
					 b->table, b->colname[c]);
				return -1;
			}
			*rowid = cell->i;
			type[c] = 0, size[c] = 0;
		} else if (cell->type == TK_CELL_NULL) {
			if (b->notnull[c]) {
				snprintf(b->err, sizeof(b->err),
					 "NOT NULL constraint failed: %s.%s", b->table,
					 b->colname[c]);
				return -1;
			}
			type[c] = 0, size[c] = 0;
		} else if (cell->type == TK_CELL_TEXT) {
			if (aff != 'T' && aff != 'B')
				goto mismatch;
			type[c] = 13 + 2 * (uint64_t)cell->len;
			size[c] = cell->len;
		} else if (cell->type == TK_CELL_INT ||
			   (aff != 'B' && real_as_int(cell->d, &ival[c]))) {
			if (aff == 'T')
				goto mismatch;
			if (cell->type == TK_CELL_INT)
				ival[c] = cell->i;
			size[c] = tks_int_serial(ival[c], &type[c]);
		} else {
			if (aff == 'T')
				goto mismatch;
			type[c] = 7, size[c] = 8;
		}
		hdr += (size_t)tks_varint_len(type[c]);
		body += (size_t)size[c];
		continue;
	mismatch:
		snprintf(b->err, sizeof(b->err), "%s.%s cannot hold a value of this type", b->table,
			 b->colname[c]);
		return -1;
	}
	size_t hlen = hdr + 1; /* the header size counts its own varint */
	while ((size_t)tks_varint_len(hlen) != hlen - hdr)
		hlen++;
	size_t total = hlen + body;
	if (!grow((char **)&b->rec, &b->reccap, total)) {
		snprintf(b->err, sizeof(b->err), "out of memory");
		return -2;
	}
	unsigned char *p = b->rec, *q = b->rec + hlen;
	p += tks_varint_put(p, hlen);
	for (int c = 0; c < b->ncol; c++) {
		p += tks_varint_put(p, type[c]);
		const struct tks_cell *cell = &row[c];
		if (size[c] == 0)
			continue;
		if (type[c] >= 13)
			memcpy(q, arena + cell->off, (size_t)size[c]);
		else if (type[c] == 7) {
			uint64_t bits;
			memcpy(&bits, &cell->d, 8);
			put_be(q, bits, 8);
		} else
			put_be(q, (uint64_t)ival[c], size[c]);
		q += size[c];
	}
	return (long)total;
}

/* Keep the current row for the SQL path. */
static int keep(struct tks_batch *b)
{
	size_t ncol = (size_t)b->ncol;
	if (TKU_GROW(b->kept, b->keptcap, (b->nkept + 1) * ncol, 64 * ncol) != TK_OK)
		return SQLITE_NOMEM;
	if (!grow(&b->karena, &b->kacap, b->kalen + b->alen + 1))
		return SQLITE_NOMEM;
	struct tks_cell *dst = &b->kept[b->nkept * (size_t)b->ncol];
	memcpy(dst, b->row, (size_t)b->ncol * sizeof(*dst));
	for (int c = 0; c < b->ncol; c++)
		if (dst[c].type == TK_CELL_TEXT)
			dst[c].off += b->kalen;
	if (b->alen)
		memcpy(b->karena + b->kalen, b->arena, b->alen);
	b->kalen += b->alen;
	b->nkept++;
	return SQLITE_OK;
}

int tks_batch_add(struct tks_batch *b, int *sys_errno)
{
	int64_t rowid = 0;
	*sys_errno = 0;
	long len = encode(b, b->row, b->arena, &rowid);
	if (len == -2)
		return SQLITE_NOMEM;
	if (len < 0)
		return strstr(b->err, "NOT NULL") ? SQLITE_CONSTRAINT : SQLITE_MISMATCH;
	if (!b->direct)
		return keep(b) == SQLITE_OK ? SQLITE_OK : SQLITE_NOMEM;
	if (b->ipk < 0)
		rowid = b->next_rowid + 1;
	int err = tks_tree_append(&b->tree, rowid, b->rec, (size_t)len);
	if (err == EINVAL && b->ipk >= 0) /* rowid not above the last one: insert it at finish */
		return keep(b) == SQLITE_OK ? SQLITE_OK : SQLITE_NOMEM;
	if (err) {
		*sys_errno = err;
		snprintf(b->err, sizeof(b->err), "%s", strerror(err));
		return err == ENOMEM ? SQLITE_NOMEM : SQLITE_IOERR;
	}
	if (b->ipk < 0)
		b->next_rowid = rowid;
	if (b->has_ix && (err = add_key(b, rowid))) {
		*sys_errno = err;
		snprintf(b->err, sizeof(b->err), "index key: %s", strerror(err));
		return err == ENOMEM   ? SQLITE_NOMEM
		       : err == EINVAL ? SQLITE_MISMATCH
				       : SQLITE_IOERR;
	}
	return SQLITE_OK;
}

int tks_batch_finish_pages(struct tks_batch *b)
{
	int err = b->tree_ready ? tks_tree_finish(&b->tree) : 0;
	if (!err && b->has_ix && b->tree_ready)
		err = tks_index_finish(&b->ix);
	return err;
}

int tks_batch_flush_sql(struct tks_batch *b, sqlite3 *db)
{
	if (!b->nkept)
		return SQLITE_OK;
	char sql[256];
	size_t n =
	    (size_t)snprintf(sql, sizeof(sql), "INSERT %s INTO %s VALUES (", b->conflict, b->table);
	for (int c = 0; c < b->ncol; c++)
		n += (size_t)snprintf(sql + n, sizeof(sql) - n, "%s?", c ? "," : "");
	snprintf(sql + n, sizeof(sql) - n, ")");
	sqlite3_stmt *st = NULL;
	int rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
	for (size_t r = 0; r < b->nkept && rc == SQLITE_OK; r++) {
		const struct tks_cell *row = &b->kept[r * (size_t)b->ncol];
		for (int c = 0; c < b->ncol; c++) {
			const struct tks_cell *cell = &row[c];
			int i = c + 1;
			if (cell->type == TK_CELL_INT)
				sqlite3_bind_int64(st, i, cell->i);
			else if (cell->type == TK_CELL_REAL)
				sqlite3_bind_double(st, i, cell->d);
			else if (cell->type == TK_CELL_TEXT)
				sqlite3_bind_text(st, i, cell->len ? b->karena + cell->off : "",
						  cell->len, SQLITE_STATIC);
			else
				sqlite3_bind_null(st, i);
		}
		rc = sqlite3_step(st);
		sqlite3_reset(st);
		rc = rc == SQLITE_DONE ? SQLITE_OK : rc;
	}
	if (rc != SQLITE_OK)
		snprintf(b->err, sizeof(b->err), "table %s: %s", b->table, sqlite3_errmsg(db));
	sqlite3_finalize(st);
	if (rc == SQLITE_OK) {
		b->nkept = 0;
		b->kalen = 0;
	}
	return rc;
}

void tks_batch_free(struct tks_batch *b)
{
	if (!b)
		return;
	tks_tree_free(&b->tree);
	if (b->has_ix && b->tree_ready)
		tks_index_free(&b->ix);
	free(b->arena);
	free(b->rec);
	free(b->kept);
	free(b->karena);
	memset(b, 0, sizeof(*b));
}

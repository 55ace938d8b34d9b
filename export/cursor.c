/*
 * Exporters' table cursors: one table read forward in its rowid order, straight from the store's
 * pages (store/tscan.c) when the store allows it, else through an SQL statement with the same
 * columns, so both paths give the same values (NULL handling in the accessors, not in SQL).
 * Also the exporters' checks of rows against the store's rules (store/checked.h).
 */
#include <stdio.h>
#include <string.h>
#include <tracekit/error.h>

#include "checked.h"
#include "export_internal.h"
#include "tscan.h"

int ex_cur_open(struct tk_exporter *x, struct ex_cur *c, const struct ex_table *t, int sql_only,
		const char *order)
{
	memset(c, 0, sizeof(*c));
	if (!sql_only) {
		int rc = tks_tscan_open(&c->ts, x->db, x->store_path, t->name, t->cols, c->err,
					sizeof(c->err));
		if (rc == TK_OK && (t->order_col < 0 || tks_tscan_is_rowid(c->ts, t->order_col)))
			return TK_OK;
		tks_tscan_close(c->ts);
		c->ts = NULL;
		if (rc != TK_OK && rc != 1)
			return ex_fail_cause(x, rc, "store", c->err, "'%s'", x->store_path);
	}
	char sql[512];
	size_t n = (size_t)snprintf(sql, sizeof(sql), "SELECT ");
	for (int i = 0; t->cols[i]; i++)
		n += (size_t)snprintf(sql + n, sizeof(sql) - n, "%s%s", i ? ", " : "", t->cols[i]);
	snprintf(sql + n, sizeof(sql) - n, " FROM %s ORDER BY %s", t->name,
		 order ? order : t->order);
	return ex_prepare(x, sql, &c->st);
}

void ex_cur_close(struct ex_cur *c)
{
	sqlite3_finalize(c->st);
	tks_tscan_close(c->ts);
	c->st = NULL;
	c->ts = NULL;
}

int ex_cur_step(struct tk_exporter *x, struct ex_cur *c)
{
	if (c->ts) {
		int r = tks_tscan_next(c->ts);
		return r >= 0
			   ? r
			   : ex_fail_cause(x, TK_EFORMAT, "store", c->err, "'%s'", x->store_path);
	}
	int r = sqlite3_step(c->st);
	if (r == SQLITE_ROW)
		return 1;
	if (r == SQLITE_DONE)
		return 0;
	return ex_fail_sql(x, "scan");
}

int ex_cur_null(const struct ex_cur *c, int i)
{
	return c->ts ? tks_tscan_type(c->ts, i) == TK_TS_NULL
		     : sqlite3_column_type(c->st, i) == SQLITE_NULL;
}

int64_t ex_cur_z(const struct ex_cur *c, int i)
{
	return c->ts ? tks_tscan_int(c->ts, i) : sqlite3_column_int64(c->st, i);
}

int64_t ex_cur_i(const struct ex_cur *c, int i)
{
	return ex_cur_null(c, i) ? TK_NONE : ex_cur_z(c, i);
}

double ex_cur_r(const struct ex_cur *c, int i)
{
	if (ex_cur_null(c, i))
		return -1.0;
	return c->ts ? tks_tscan_real(c->ts, i) : sqlite3_column_double(c->st, i);
}

void ex_cur_text(const struct ex_cur *c, int i, char *out, size_t n, const char *dflt)
{
	size_t len = 0;
	const char *p;
	if (c->ts)
		p = tks_tscan_text(c->ts, i, &len);
	else {
		p = (const char *)sqlite3_column_text(c->st, i);
		len = p ? (size_t)sqlite3_column_bytes(c->st, i) : 0;
	}
	if (!p) {
		snprintf(out, n, "%s", dflt);
		return;
	}
	if (len >= n)
		len = n - 1;
	memcpy(out, p, len);
	out[len] = 0;
}

uint32_t ex_cur_ints(const struct ex_cur *c, int n, uint32_t *nulls)
{
	if (c->ts)
		return tks_tscan_int_mask(c->ts, nulls);
	uint32_t m = 0;
	*nulls = 0;
	for (int i = 0; i < n && i < 32; i++) {
		int t = sqlite3_column_type(c->st, i);
		m |= (uint32_t)(t == SQLITE_INTEGER) << i;
		*nulls |= (uint32_t)(t == SQLITE_NULL) << i;
	}
	return m;
}

int ex_fail_row(struct tk_exporter *x, const char *table, int64_t id, const char *why)
{
	return ex_fail(x, TK_EFORMAT, TK_ROW_FMT "%s", x->store_path, table, (long long)id, why);
}

int ex_id_slots(struct tk_exporter *x, const char *table, int64_t *slots)
{
	char sql[128];
	sqlite3_stmt *st = NULL;
	snprintf(sql, sizeof(sql), "SELECT count(*), coalesce(max(id), 0) FROM %s", table);
	int rc = ex_prepare(x, sql, &st);
	if (rc != TK_OK)
		return rc;
	if (sqlite3_step(st) == SQLITE_ROW)
		*slots = tk_id_slots(sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1));
	else
		rc = ex_fail_sql(x, table);
	sqlite3_finalize(st);
	return rc;
}

int ex_check_id(struct tk_exporter *x, const char *table, int64_t id, int64_t slots)
{
	if (tk_id_ok(id, slots))
		return TK_OK;
	return ex_fail_row(x, table, id, TK_ID_RANGE_MSG);
}

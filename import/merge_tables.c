/*
 * The analysis tables of a job summary (tk_merge() with summary set, docs/scale.md): every table
 * of schemas/analysis.sql is created in the summary and filled with the rows of each input's
 * table, in input order, with the ids remapped to the summary's rows: device_id, process_id and
 * track_id through the input's maps (an id that names no row of the input is a damaged input),
 * every *event_id column through the event map (events the summary leaves out: NULL where the
 * column allows it), series_id shifted past the previous inputs' series. memory_records ids
 * (analysis_memory.peak_record_id) stay the input's own: a summary has no memory records. Row
 * numbers (an INTEGER PRIMARY KEY: gaps, findings) continue after the earlier inputs' rows.
 *
 * Two tables of one row per event or so are not kept whole, to keep a summary small: of
 * analysis_gaps only the TKM_SUMMARY_GAPS longest gaps of each device (every gap is counted in
 * analysis_gap_buckets, kept whole; a gap keeps its number, shifted by the gaps of the earlier
 * inputs, so that the numbers are a full merge's), and analysis_step_ops (per step and op name,
 * read by tracekit check only) is left empty.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checked.h"
#include "merge_internal.h"

/* schemas/analysis.sql, embedded into the library (CMakeLists.txt). */
extern const char tka_analysis_sql[];

enum { COL_KEEP, COL_ROWID, COL_DEVICE, COL_PROCESS, COL_TRACK, COL_EVENT, COL_SERIES };

/* The longest gaps of each device a job summary keeps (docs/scale.md). */
#define TKM_SUMMARY_GAPS 1000

struct mt_table {
	char name[64];
	int ncol;
	int kind[64];
	int notnull[64];
	char cols[2048]; /* "c1, c2, ..." */
};

static int col_kind(const char *c)
{
	size_t n = strlen(c);
	if (!strcmp(c, "device_id"))
		return COL_DEVICE;
	if (!strcmp(c, "process_id"))
		return COL_PROCESS;
	if (!strcmp(c, "track_id"))
		return COL_TRACK;
	if (!strcmp(c, "series_id"))
		return COL_SERIES;
	if (n >= 8 && !strcmp(c + n - 8, "event_id"))
		return COL_EVENT;
	return COL_KEEP;
}

/* The columns of @t in the summary @db (PRAGMA table_info). */
static int table_shape(sqlite3 *db, struct mt_table *t, tk_error *err)
{
	char sql[128];
	sqlite3_stmt *st = NULL;
	int rc = TK_OK;
	snprintf(sql, sizeof(sql), "PRAGMA table_info(%s)", t->name);
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return tk_error_push_from(err, "sqlite", TK_EINTERNAL, "%s", sqlite3_errmsg(db));
	t->ncol = 0;
	t->cols[0] = '\0';
	while (rc == TK_OK && sqlite3_step(st) == SQLITE_ROW) {
		const char *c = (const char *)sqlite3_column_text(st, 1);
		size_t len = strlen(t->cols);
		if (!c || t->ncol >= 64 || len + strlen(c) + 8 > sizeof(t->cols)) {
			rc = tk_error_push_from(err, "merge", TK_EINTERNAL, "table %s is too wide",
						t->name);
			break;
		}
		snprintf(t->cols + len, sizeof(t->cols) - len, "%s\"%s\"", t->ncol ? ", " : "", c);
		/* an INTEGER PRIMARY KEY (a row number) continues after the earlier inputs' rows */
		t->kind[t->ncol] = sqlite3_column_int(st, 5) ? COL_ROWID : col_kind(c);
		t->notnull[t->ncol++] = sqlite3_column_int(st, 3);
	}
	sqlite3_finalize(st);
	return rc;
}

/* Bind column @k of the input row @src to @ins, remapped; TK_EFORMAT for a dangling id. */
static int bind_col(sqlite3_stmt *ins, sqlite3_stmt *src, const struct mt_table *t, int k,
		    const struct mg_in *in, const char **bad)
{
	sqlite3_value *v = sqlite3_column_value(src, k);
	if (t->kind[k] == COL_ROWID) {
		if (strcmp(t->name, "analysis_gaps") || sqlite3_value_type(v) != SQLITE_INTEGER)
			sqlite3_bind_null(ins, k + 1);
		else if (sqlite3_value_int64(v) <= 0 ||
			 sqlite3_value_int64(v) > INT64_MAX / 2 - in->gap_base) {
			*bad = "the gap number is out of range";
			return TK_EFORMAT;
		} else /* the gap's number in a merge of every event */
			sqlite3_bind_int64(ins, k + 1, sqlite3_value_int64(v) + in->gap_base);
		return TK_OK;
	}
	if (t->kind[k] == COL_KEEP || sqlite3_value_type(v) != SQLITE_INTEGER) {
		sqlite3_bind_value(ins, k + 1, v);
		return TK_OK;
	}
	int64_t id = sqlite3_value_int64(v), nid = TK_NONE;
	switch (t->kind[k]) {
	case COL_DEVICE:
		nid = mg_get(&in->dev, id);
		break;
	case COL_PROCESS:
		nid = mg_get(&in->proc, id);
		break;
	case COL_TRACK:
		nid = mg_get(&in->track, id);
		break;
	case COL_EVENT:
		nid = mg_get(&in->event, id);
		break;
	default: /* COL_SERIES */
		if (id < 0 || id > INT64_MAX - in->series_base) {
			*bad = "series_id is out of range";
			return TK_EFORMAT;
		}
		nid = id + in->series_base;
	}
	if (nid != TK_NONE) {
		sqlite3_bind_int64(ins, k + 1, nid);
		return TK_OK;
	}
	if (t->kind[k] == COL_EVENT && !t->notnull[k]) {
		sqlite3_bind_null(ins, k + 1); /* an event the summary leaves out */
		return TK_OK;
	}
	*bad = "an id names no row of the store";
	return TK_EFORMAT;
}

/* Copy the rows of @t from input @in into @db. */
static int copy_table(sqlite3 *db, struct mg_in *in, const struct mt_table *t, tk_error *err)
{
	char *sel = NULL, *ins_sql = NULL;
	sqlite3_stmt *src = NULL, *ins = NULL;
	int rc = TK_OK;
	size_t len = strlen(t->cols) + strlen(t->name) + 192 + 3 * (size_t)t->ncol;
	if (!(sel = malloc(len)) || !(ins_sql = malloc(len))) {
		rc = tk_error_push_from(err, "merge", TK_ENOMEM, "out of memory");
		goto out;
	}
	if (!strcmp(t->name, "analysis_step_ops"))
		goto out; /* left out of summaries */
	if (!strcmp(t->name, "analysis_gaps"))
		snprintf(sel, len,
			 "SELECT %s FROM (SELECT *, row_number() OVER (PARTITION BY device_id"
			 " ORDER BY dur_ns DESC, id) AS tkm_rank FROM %s) WHERE tkm_rank <= %d"
			 " ORDER BY id",
			 t->cols, t->name, TKM_SUMMARY_GAPS);
	else
		snprintf(sel, len, "SELECT %s FROM %s ORDER BY rowid", t->cols, t->name);
	int n = snprintf(ins_sql, len, "INSERT INTO %s VALUES (", t->name);
	for (int k = 0; k < t->ncol; k++)
		n += snprintf(ins_sql + n, len - (size_t)n, "%s?", k ? ", " : "");
	snprintf(ins_sql + n, len - (size_t)n, ")");
	if (sqlite3_prepare_v2(in->db, sel, -1, &src, NULL) != SQLITE_OK) {
		rc = tk_error_push_from(err, "merge", TK_EFORMAT,
					"store '%s': cannot read table %s: %s", in->path, t->name,
					sqlite3_errmsg(in->db));
		goto out;
	}
	if (sqlite3_prepare_v2(db, ins_sql, -1, &ins, NULL) != SQLITE_OK) {
		rc = tk_error_push_from(err, "sqlite", TK_EINTERNAL, "%s", sqlite3_errmsg(db));
		goto out;
	}
	int r;
	int64_t row = 0;
	while ((r = sqlite3_step(src)) == SQLITE_ROW) {
		const char *bad = NULL;
		row++;
		sqlite3_reset(ins);
		for (int k = 0; k < t->ncol && rc == TK_OK; k++)
			rc = bind_col(ins, src, t, k, in, &bad);
		if (rc != TK_OK) {
			rc = tk_error_push_from(err, "merge", rc,
						"store '%s': table %s, row %lld: %s", in->path,
						t->name, (long long)row, bad);
			goto out;
		}
		if (sqlite3_step(ins) != SQLITE_DONE) {
			rc = tk_error_push_from(err, "merge", TK_EFORMAT,
						"store '%s': table %s, row %lld: %s", in->path,
						t->name, (long long)row, sqlite3_errmsg(db));
			goto out;
		}
	}
	if (r != SQLITE_DONE)
		rc = tk_error_push_from(err, "merge", TK_EFORMAT, "store '%s': table %s: %s",
					in->path, t->name, sqlite3_errmsg(in->db));
out:
	sqlite3_finalize(src);
	sqlite3_finalize(ins);
	free(sel);
	free(ins_sql);
	return rc;
}

/* The names of analysis.sql's tables, in file order. */
static int table_names(struct mt_table **out, int *n)
{
	const char *p = tka_analysis_sql;
	*n = 0;
	*out = NULL;
	for (const char *q = p; (q = strstr(q, "\nCREATE TABLE ")); q++)
		(*n)++;
	if (!(*out = calloc((size_t)*n + 1, sizeof(**out))))
		return TK_ENOMEM;
	int i = 0;
	for (const char *q = p; (q = strstr(q, "\nCREATE TABLE ")) && i < *n; q++) {
		const char *s = q + 14;
		size_t k = 0;
		while (
		    (s[k] == '_' || (s[k] >= 'a' && s[k] <= 'z') || (s[k] >= '0' && s[k] <= '9')) &&
		    k + 1 < sizeof((*out)[i].name))
			k++;
		memcpy((*out)[i].name, s, k);
		(*out)[i++].name[k] = '\0';
	}
	return TK_OK;
}

/* The integer @sql of @db computes, -1 when none. */
static int64_t query_int(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st = NULL;
	int64_t m = -1;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) == SQLITE_INTEGER)
		m = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return m;
}

/* The summary's trace span widened to the input's (the events it leaves out included), so that
 * the times its report shows from the trace start are the input's. */
static int widen_span(sqlite3 *db, struct mg_in *in, tk_error *err)
{
	static const char *const sql[2] = {
	    "UPDATE meta SET value = ?1 WHERE key = 'trace_start_ns' AND value > ?1",
	    "UPDATE meta SET value = ?1 WHERE key = 'trace_end_ns' AND value < ?1"};
	static const char *const get[2] = {
	    "SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'trace_start_ns'",
	    "SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'trace_end_ns'"};
	int rc = TK_OK;
	for (int k = 0; k < 2 && rc == TK_OK; k++) {
		sqlite3_stmt *st = NULL;
		int64_t v = query_int(in->db, get[k]);
		if (v < 0 || !tk_time_ok(v))
			continue; /* no span, or none valid: the summary's own stays */
		if (sqlite3_prepare_v2(db, sql[k], -1, &st, NULL) != SQLITE_OK ||
		    sqlite3_bind_int64(st, 1, v) != SQLITE_OK || sqlite3_step(st) != SQLITE_DONE)
			rc = tk_error_push_from(err, "sqlite", TK_EINTERNAL, "%s",
						sqlite3_errmsg(db));
		sqlite3_finalize(st);
	}
	return rc;
}

int tkm_copy_analysis(sqlite3 *db, struct mg_in *in, size_t n, tk_error *err)
{
	struct mt_table *t = NULL;
	int nt = 0, rc;
	int64_t base = 0;
	if (table_names(&t, &nt) != TK_OK) {
		rc = tk_error_push_from(err, "merge", TK_ENOMEM, "out of memory");
		goto out;
	}
	if (sqlite3_exec(db, tka_analysis_sql, NULL, NULL, NULL) != SQLITE_OK) {
		rc = tk_error_push_from(err, "sqlite", TK_EINTERNAL, "%s", sqlite3_errmsg(db));
		goto out;
	}
	for (int k = 0; k < nt; k++)
		if ((rc = table_shape(db, &t[k], err)) != TK_OK)
			goto out;
	rc = TK_OK;
	for (size_t i = 0; i < n && rc == TK_OK; i++) {
		if ((rc = tk_store_open(in[i].path, &in[i].s)) != TK_OK) {
			tk_error_copy(err, tk_store_error(in[i].s));
			tk_store_close(in[i].s);
			in[i].s = NULL;
			break;
		}
		in[i].db = tk_store_sqlite(in[i].s);
		in[i].series_base = base;
		int64_t m = query_int(in[i].db, "SELECT max(series_id) FROM analysis_memory");
		/* the gaps of the earlier inputs, every one (the summary keeps the longest) */
		in[i].gap_base =
		    query_int(db, "SELECT coalesce(sum(gaps), 0) FROM analysis_gap_buckets");
		if (in[i].gap_base < 0 || in[i].gap_base >= INT64_MAX / 2)
			in[i].gap_base = 0;
		if (m >= 0 && m < INT64_MAX / 2 - base)
			base += m + 1;
		for (int k = 0; k < nt && rc == TK_OK; k++)
			rc = copy_table(db, &in[i], &t[k], err);
		if (rc == TK_OK)
			rc = widen_span(db, &in[i], err);
		tk_store_close(in[i].s);
		in[i].s = NULL;
		in[i].db = NULL;
	}
out:
	free(t);
	return rc;
}

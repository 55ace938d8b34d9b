/*
 * The report model: every section a report (or diff) shows, loaded once from the store's
 * analysis_* tables by the SQL of report_sections.c, so that every format prints the same numbers.
 * Also bins the device busy intervals into equal time slices for HTML's utilization chart (no
 * analysis table has them): one pass over the device ops in time order, merged across streams.
 * And the public entry points, tk_report_write() and friends (tk_report_diff() is in diff.c).
 */
#include "report_internal.h"

#include <math.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <tracekit/analyze.h>
#include <tracekit/error.h>
#include <tracekit/store.h>

#include "checked.h"
#include "message.h"
#include "tk_schema.h"

#define UTIL_BINS 200

static char *dup_str(const char *s)
{
	if (!s)
		return NULL;
	size_t n = strlen(s) + 1;
	char *p = malloc(n);
	if (p)
		memcpy(p, s, n);
	return p;
}

const struct tkr_section *tkr_find(const struct tkr_model *m, const char *key)
{
	for (size_t i = 0; i < m->nsections; i++)
		if (!strcmp(m->sections[i].def->key, key))
			return &m->sections[i];
	return NULL;
}

int tkr_col(const struct tkr_section *s, const char *key)
{
	for (int c = 0; c < s->ncols; c++)
		if (!strcmp(s->def->cols[c].key, key))
			return c;
	return -1;
}

const struct tkr_cell *tkr_cell(const struct tkr_section *s, size_t r, int c)
{
	return &s->cells[r * (size_t)s->ncols + (size_t)c];
}

double tkr_num(const struct tkr_cell *c)
{
	if (c->type == SQLITE_INTEGER)
		return (double)c->i;
	if (c->type == SQLITE_FLOAT)
		return c->d;
	return NAN;
}

int tkr_shown(const struct tkr_section *s, int c)
{
	return !(s->def->cols[c].flags & TKR_C_JSON);
}

/*
 * The status of a failed read of the store: the report's SQL is tested on the shapes tracekit
 * writes, so a statement the store rejects (a damaged file, an analysis table of another shape,
 * an overflowing sum) is bad input; running out of memory is itself; the rest is internal.
 */
static int sql_status(sqlite3 *db)
{
	int e = sqlite3_errcode(db);
	if (e == SQLITE_CORRUPT || e == SQLITE_NOTADB || e == SQLITE_ERROR ||
	    e == SQLITE_MISMATCH || e == SQLITE_TOOBIG || e == SQLITE_RANGE)
		return TK_EFORMAT;
	return e == SQLITE_NOMEM ? TK_ENOMEM : TK_EINTERNAL;
}

static void bind_params(sqlite3_stmt *st, int top, double thr, int64_t cap)
{
	int i;
	if ((i = sqlite3_bind_parameter_index(st, ":top")) > 0)
		sqlite3_bind_int(st, i, top);
	if ((i = sqlite3_bind_parameter_index(st, ":thr")) > 0)
		sqlite3_bind_double(st, i, thr);
	if ((i = sqlite3_bind_parameter_index(st, ":cap")) > 0)
		sqlite3_bind_int64(st, i, cap);
}

/* Load one section; a missing analysis table leaves it unavailable (not an error). */
static int load_section(sqlite3 *db, const struct tkr_section_def *def, int top, double thr,
			struct tkr_section *s, char *err, size_t errlen)
{
	sqlite3_stmt *st = NULL;
	char *sql = NULL;
	size_t cap_cells = 0;
	int rc = TK_OK, ncol = 0;
	int64_t cap = def->cap < 0 ? top : def->cap;
	s->def = def;
	while (def->cols[ncol].key)
		ncol++;
	s->ncols = ncol;
	sql = sqlite3_mprintf("SELECT * FROM (%s) LIMIT :cap", def->sql);
	if (!sql) {
		rc = TK_ENOMEM;
		goto out;
	}
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
		const char *msg = sqlite3_errmsg(db);
		if (strstr(msg, "no such table"))
			goto out; /* an analysis this store lacks: the section is unavailable */
		tks_fmt(err, errlen, "report section '%s': %s", def->key, msg);
		rc = sql_status(db);
		goto out;
	}
	if (sqlite3_column_count(st) != ncol) {
		tks_fmt(err, errlen, "report section '%s': %d columns, %d described", def->key,
			sqlite3_column_count(st), ncol);
		rc = TK_EFORMAT; /* an analysis table of another shape */
		goto out;
	}
	for (int c = 0; c < ncol; c++) {
		if (strcmp(sqlite3_column_name(st, c), def->cols[c].key)) {
			tks_fmt(err, errlen, "report section '%s': column %d is '%s', not '%s'",
				def->key, c, sqlite3_column_name(st, c), def->cols[c].key);
			rc = TK_EFORMAT;
			goto out;
		}
	}
	s->available = 1;
	bind_params(st, top, thr, cap);
	int step;
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		if (TKU_GROW(s->cells, cap_cells, (s->nrows + 1) * (size_t)ncol,
			     16 * (size_t)ncol) != TK_OK) {
			rc = TK_ENOMEM;
			goto out;
		}
		struct tkr_cell *row = &s->cells[s->nrows * (size_t)ncol];
		memset(row, 0, (size_t)ncol * sizeof(*row));
		s->nrows++;
		for (int c = 0; c < ncol; c++) {
			row[c].type = sqlite3_column_type(st, c);
			if (row[c].type == SQLITE_INTEGER) {
				row[c].i = sqlite3_column_int64(st, c);
			} else if (row[c].type == SQLITE_FLOAT) {
				row[c].d = sqlite3_column_double(st, c);
			} else if (row[c].type != SQLITE_NULL) {
				row[c].type = SQLITE_TEXT; /* blobs as text */
				row[c].s = dup_str((const char *)sqlite3_column_text(st, c));
				if (!row[c].s) {
					row[c].type = SQLITE_NULL;
					rc = TK_ENOMEM;
					goto out;
				}
			}
		}
	}
	if (step != SQLITE_DONE) {
		tks_fmt(err, errlen, "report section '%s': %s", def->key, sqlite3_errmsg(db));
		rc = sql_status(db);
		goto out;
	}
	s->total = (int64_t)s->nrows;
	if ((int64_t)s->nrows == cap) { /* count what the cap left out */
		sqlite3_finalize(st);
		st = NULL;
		sqlite3_free(sql);
		const char *total = tkr_section_total_sql(def);
		sql = total ? sqlite3_mprintf("%s", total)
			    : sqlite3_mprintf("SELECT count(*) FROM (%s)", def->sql);
		if (!sql || sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
			rc = sql ? sql_status(db) : TK_ENOMEM;
			tks_fmt(err, errlen, "report section '%s': %s", def->key,
				sqlite3_errmsg(db));
			goto out;
		}
		bind_params(st, top, thr, cap);
		if (sqlite3_step(st) == SQLITE_ROW)
			s->total = sqlite3_column_int64(st, 0);
	}
out:
	sqlite3_finalize(st);
	sqlite3_free(sql);
	return rc;
}

/* The clock and the trace start from meta; TK_EFORMAT when the start is no time point (the
 * report subtracts it from every time it shows: store/checked.h). */
static int meta_facts(sqlite3 *db, struct tkr_model *m, char *err, size_t errlen)
{
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(db,
			       "SELECT (SELECT value FROM meta WHERE key = 'clock'),"
			       " (SELECT CAST(value AS INTEGER) FROM meta"
			       "  WHERE key = 'trace_start_ns')",
			       -1, &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW) {
		m->clock = dup_str((const char *)sqlite3_column_text(st, 0));
		m->trace_start_ns = sqlite3_column_int64(st, 1);
	}
	sqlite3_finalize(st);
	if (tk_time_ok(m->trace_start_ns))
		return TK_OK;
	tks_fmt(err, errlen,
		"store '%s': table meta, trace_start_ns %lld is out of range (more than 2^62 ns "
		"from the epoch)",
		m->path ? m->path : "", (long long)m->trace_start_ns);
	return TK_EFORMAT;
}

int tkr_model_load(sqlite3 *db, const struct tkr_section_def *defs, size_t ndefs, int top,
		   double threshold, struct tkr_model *m, char *err, size_t errlen)
{
	int rc = TK_OK;
	m->top = top;
	m->threshold = threshold;
	if ((rc = meta_facts(db, m, err, errlen)) != TK_OK)
		return rc;
	m->sections = calloc(ndefs, sizeof(*m->sections));
	if (!m->sections)
		return TK_ENOMEM;
	m->nsections = ndefs;
	for (size_t i = 0; i < ndefs && rc == TK_OK; i++)
		rc = load_section(db, &defs[i], top, threshold, &m->sections[i], err, errlen);
	if (rc == TK_OK)
		rc = tkr_evidence_load(db, m, err, errlen);
	if (rc == TK_OK)
		rc = tkr_labels_load(db, m);
	if (rc == TK_ENOMEM)
		tks_fmt(err, errlen, "out of memory while loading the report");
	return rc;
}

/* ---- utilization over time ---- */

struct head {
	sqlite3_stmt *st;
	int64_t s, e;
	int live;
};

static void head_next(struct head *h)
{
	h->live = sqlite3_step(h->st) == SQLITE_ROW;
	if (h->live) {
		h->s = sqlite3_column_int64(h->st, 0);
		h->e = sqlite3_column_int64(h->st, 1);
	}
}

/* Add the busy span [s, e) to the bins starting at t0 of width w. */
static void add_span(double *busy, int nbins, int64_t t0, int64_t w, int64_t s, int64_t e)
{
	if (s < t0)
		s = t0;
	int64_t end = t0 + w * nbins;
	if (e > end)
		e = end;
	while (s < e) {
		int k = (int)((s - t0) / w);
		int64_t be = t0 + (int64_t)(k + 1) * w, pe = e < be ? e : be;
		busy[k] += (double)(pe - s);
		s = pe;
	}
}

/* Busy time per bin of one device: its ops of positive duration, merged over its tracks. */
static int device_util(sqlite3 *db, struct tkr_model *m, struct tkr_util *u, int64_t ws, int64_t we,
		       char *err, size_t errlen)
{
	sqlite3_stmt *st = NULL;
	struct head *h = NULL;
	size_t nh = 0, caph = 0;
	double *busy = calloc((size_t)u->nbins, sizeof(*busy));
	int rc = TK_OK, xla = 0;
	if (!busy)
		return TK_ENOMEM;
	/* devices with no kernel, copy or set use their XLA ops (docs/metrics.md) */
	if (sqlite3_prepare_v2(
		db,
		"SELECT NOT EXISTS (SELECT 1 FROM events e JOIN tracks t"
		" ON t.id = e.track_id WHERE t.device_id = ?1 AND e.kind IN (" TK_SQL_EV_DEVICE_OPS
		"))",
		-1, &st, NULL) != SQLITE_OK)
		goto sql_error;
	sqlite3_bind_int64(st, 1, u->device_id);
	if (sqlite3_step(st) == SQLITE_ROW)
		xla = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	st = NULL;
	if (sqlite3_prepare_v2(db, "SELECT id FROM tracks WHERE device_id = ?1 ORDER BY id", -1,
			       &st, NULL) != SQLITE_OK)
		goto sql_error;
	sqlite3_bind_int64(st, 1, u->device_id);
	while (sqlite3_step(st) == SQLITE_ROW) {
		if (TKU_GROW(h, caph, nh + 1, 8) != TK_OK) {
			rc = TK_ENOMEM;
			goto out;
		}
		memset(&h[nh], 0, sizeof(h[nh]));
		if (sqlite3_prepare_v2(
			db,
			xla ? "SELECT ts_ns, ts_ns + dur_ns FROM events WHERE"
			      " track_id = ?1 AND kind = " TK_SQL_EV_XLA_OP " AND dur_ns > 0"
			      " AND ts_ns < ?2 ORDER BY ts_ns"
			    : "SELECT ts_ns, ts_ns + dur_ns FROM events WHERE"
			      " track_id = ?1 AND kind IN (" TK_SQL_EV_DEVICE_OPS ") AND dur_ns > 0"
			      " AND ts_ns < ?2 ORDER BY ts_ns",
			-1, &h[nh].st, NULL) != SQLITE_OK)
			goto sql_error;
		sqlite3_bind_int64(h[nh].st, 1, sqlite3_column_int64(st, 0));
		sqlite3_bind_int64(h[nh].st, 2, we);
		head_next(&h[nh]);
		nh++;
	}
	/* k-way merge in start order into the union of busy spans */
	int64_t cs = 0, ce = 0;
	int have = 0;
	for (;;) {
		size_t best = nh;
		for (size_t i = 0; i < nh; i++)
			if (h[i].live && (best == nh || h[i].s < h[best].s))
				best = i;
		if (best == nh)
			break;
		int64_t s = h[best].s, e = h[best].e;
		head_next(&h[best]);
		if (have && s <= ce) {
			if (e > ce)
				ce = e;
			continue;
		}
		if (have)
			add_span(busy, u->nbins, m->util_start_ns, m->util_bin_ns, cs, ce);
		cs = s, ce = e, have = 1;
	}
	if (have)
		add_span(busy, u->nbins, m->util_start_ns, m->util_bin_ns, cs, ce);
	for (int k = 0; k < u->nbins; k++) {
		int64_t bs = m->util_start_ns + (int64_t)k * m->util_bin_ns,
			be = bs + m->util_bin_ns;
		int64_t os = bs > ws ? bs : ws, oe = be < we ? be : we;
		u->share[k] = oe > os ? busy[k] / (double)(oe - os) : -1;
		if (u->share[k] > 1)
			u->share[k] = 1;
	}
	goto out;
sql_error:
	tks_fmt(err, errlen, "utilization chart: %s", sqlite3_errmsg(db));
	rc = sql_status(db);
out:
	for (size_t i = 0; i < nh; i++)
		sqlite3_finalize(h[i].st);
	free(h);
	free(busy);
	sqlite3_finalize(st);
	return rc;
}

int tkr_model_load_util(sqlite3 *db, struct tkr_model *m, int nbins, char *err, size_t errlen)
{
	sqlite3_stmt *st = NULL;
	int rc = TK_OK;
	int64_t lo = 0, hi = 0;
	size_t cap_win = 0, cap_util = 0;
	struct {
		int64_t dev, s, e;
	} *win = NULL;
	if (sqlite3_prepare_v2(
		db,
		"SELECT device_id, start_ns, end_ns, utilization FROM analysis_device_time"
		" WHERE window = 'device' AND start_ns IS NOT NULL AND end_ns > start_ns"
		" ORDER BY device_id",
		-1, &st, NULL) != SQLITE_OK)
		goto out; /* no device time: no chart */
	while (sqlite3_step(st) == SQLITE_ROW) {
		if (TKU_GROW(win, cap_win, m->nutil + 1, 8) != TK_OK ||
		    TKU_GROW(m->util, cap_util, m->nutil + 1, 8) != TK_OK) {
			rc = TK_ENOMEM;
			goto out;
		}
		win[m->nutil].dev = sqlite3_column_int64(st, 0);
		win[m->nutil].s = sqlite3_column_int64(st, 1);
		win[m->nutil].e = sqlite3_column_int64(st, 2);
		if (!tk_time_ok(win[m->nutil].s) || !tk_time_ok(win[m->nutil].e)) {
			tks_fmt(err, errlen,
				"store '%s': table analysis_device_time, device_id %lld: start_ns "
				"or end_ns is out of range",
				m->path ? m->path : "", (long long)win[m->nutil].dev);
			rc = TK_EFORMAT;
			goto out;
		}
		if (!m->nutil || win[m->nutil].s < lo)
			lo = win[m->nutil].s;
		if (!m->nutil || win[m->nutil].e > hi)
			hi = win[m->nutil].e;
		memset(&m->util[m->nutil], 0, sizeof(m->util[0]));
		m->util[m->nutil].device_id = win[m->nutil].dev;
		m->util[m->nutil].utilization =
		    sqlite3_column_type(st, 3) == SQLITE_NULL ? -1 : sqlite3_column_double(st, 3);
		m->nutil++;
	}
	if (!m->nutil)
		goto out;
	m->util_start_ns = lo;
	m->util_bin_ns = (hi - lo + nbins - 1) / nbins;
	if (m->util_bin_ns < 1)
		m->util_bin_ns = 1;
	for (size_t i = 0; i < m->nutil && rc == TK_OK; i++) {
		struct tkr_util *u = &m->util[i];
		u->nbins = nbins;
		u->share = calloc((size_t)nbins, sizeof(*u->share));
		if (!u->share) {
			rc = TK_ENOMEM;
			break;
		}
		rc = device_util(db, m, u, win[i].s, win[i].e, err, errlen);
	}
out:
	if (rc == TK_ENOMEM)
		tks_fmt(err, errlen, "out of memory while binning the utilization");
	sqlite3_finalize(st);
	free(win);
	return rc;
}

void tkr_model_free(struct tkr_model *m)
{
	if (!m)
		return;
	tkr_verdict_free(m);
	tkr_labels_free(m); /* before the cells its names point into */
	tkr_evidence_free(m);
	for (size_t i = 0; i < m->nsections; i++) {
		struct tkr_section *s = &m->sections[i];
		for (size_t k = 0; k < s->nrows * (size_t)s->ncols; k++)
			free(s->cells[k].s);
		free(s->cells);
	}
	free(m->sections);
	for (size_t i = 0; i < m->nutil; i++)
		free(m->util[i].share);
	free(m->util);
	free(m->clock);
	free(m->path);
	free(m->path_b);
	memset(m, 0, sizeof(*m));
}

/* ---- public entry points ---- */

int tk_report_format_parse(const char *name, enum tk_report_format *out)
{
	static const struct {
		const char *name;
		enum tk_report_format f;
	} names[] = {{"text", TK_REPORT_TEXT},
		     {"html", TK_REPORT_HTML},
		     {"json", TK_REPORT_JSON},
		     {"md", TK_REPORT_MD},
		     {"markdown", TK_REPORT_MD}};
	for (size_t i = 0; name && i < sizeof(names) / sizeof(names[0]); i++) {
		if (!strcmp(name, names[i].name)) {
			*out = names[i].f;
			return TK_OK;
		}
	}
	return TK_EINVAL;
}

void tk_report_options_init(struct tk_report_options *o)
{
	if (!o)
		return;
	memset(o, 0, sizeof(*o));
	o->format = TK_REPORT_TEXT;
	o->width = 100;
	o->top = 20;
	o->threshold = 0.05;
}

int tkr_store_fail(tk_error *err, int rc, tk_store *s)
{
	tk_error_copy(err, tk_store_error(s));
	if (!tk_error_cause_count(err)) /* no handle: out of memory */
		tk_error_push_from(err, "store", rc, "%s", tk_strerror(rc));
	return rc;
}

int tkr_fail_msg(tk_error *err, int rc, const char *msg)
{
	tk_error_push_from(err, "report", rc, "%s", msg && *msg ? msg : tk_strerror(rc));
	return rc;
}

int tk_report_has_analysis(const char *path, int *out, tk_error *err)
{
	tk_store *s = NULL;
	sqlite3_stmt *st = NULL;
	tk_error_clear(err);
	int rc = tk_store_open(path, &s);
	*out = 0;
	if (rc != TK_OK) {
		tkr_store_fail(err, rc, s);
		goto out;
	}
	if (sqlite3_prepare_v2(
		tk_store_sqlite(s),
		"SELECT (SELECT count(*) FROM sqlite_master WHERE type = 'table'"
		" AND name GLOB 'analysis_*'), (SELECT value FROM meta WHERE key ="
		" 'analysis_version') IS ?, NOT EXISTS (SELECT 1 FROM meta WHERE key ="
		" 'analysis_version') AND EXISTS (SELECT 1 FROM meta WHERE key ="
		" 'job_summary')",
		-1, &st, NULL) != SQLITE_OK ||
	    sqlite3_bind_int(st, 1, TK_ANALYSIS_VERSION) != SQLITE_OK ||
	    sqlite3_step(st) != SQLITE_ROW) {
		rc = TK_EIO;
		tk_error_push_from(err, "sqlite", rc, "%s", sqlite3_errmsg(tk_store_sqlite(s)));
		tk_error_push_from(err, "report", rc, "cannot read store '%s'", path);
		goto out;
	}
	/* a job summary fresh from tracekit merge holds the ranks' tables but no analysis of its
	 * own yet (no analysis_version): not analysed, rather than analysed by an older tracekit */
	*out = sqlite3_column_int(st, 0) == 0 || sqlite3_column_int(st, 2) ? 0
	       : sqlite3_column_int(st, 1)				   ? 1
									   : 2;
out:
	sqlite3_finalize(st);
	tk_store_close(s);
	return rc;
}

struct tk_report_options tkr_effective_options(const struct tk_report_options *o)
{
	struct tk_report_options e;
	tk_report_options_init(&e);
	if (o) {
		e = *o;
		if (e.width <= 0)
			e.width = 100;
		if (e.top <= 0)
			e.top = 20;
		if (!(e.threshold > 0))
			e.threshold = 0.05;
	}
	return e;
}

int tkr_write_model(FILE *out, const struct tkr_model *m, const struct tk_report_options *o,
		    char *err, size_t errlen)
{
	int rc;
	switch (o->format) {
	case TK_REPORT_HTML:
		rc = tkr_write_html(out, m, o);
		break;
	case TK_REPORT_JSON:
		rc = tkr_write_json(out, m, o);
		break;
	case TK_REPORT_MD:
		rc = tkr_write_md(out, m, o);
		break;
	default:
		rc = tkr_write_text(out, m, o);
	}
	if (rc == TK_OK && (fflush(out) != 0 || ferror(out)))
		rc = TK_EIO;
	if (rc != TK_OK)
		tks_fmt(err, errlen, "%s",
			rc == TK_EIO ? "cannot write the report" : tk_strerror(rc));
	return rc;
}

int tk_report_write(FILE *out, const char *path, const struct tk_report_options *opt, tk_error *err)
{
	struct tk_report_options o = tkr_effective_options(opt);
	struct tkr_model m;
	tk_store *s = NULL;
	char msg[1024] = ""; /* the model's and writers' message */
	int rc;
	memset(&m, 0, sizeof(m));
	tk_error_clear(err);
	rc = tk_store_open(path, &s);
	if (rc != TK_OK) {
		tkr_store_fail(err, rc, s);
		goto out;
	}
	m.path = dup_str(path);
	if (!m.path) {
		rc = TK_ENOMEM;
		goto out;
	}
	m.full_names = o.full_names;
	rc = tkr_model_load(tk_store_sqlite(s), tkr_report_sections, tkr_report_nsections, o.top, 0,
			    &m, msg, sizeof(msg));
	if (rc == TK_OK)
		tkr_verdict_make(&m);
	if (rc == TK_OK && o.format == TK_REPORT_HTML)
		rc = tkr_model_load_util(tk_store_sqlite(s), &m, UTIL_BINS, msg, sizeof(msg));
	if (rc == TK_OK)
		rc = tkr_write_model(out, &m, &o, msg, sizeof(msg));
out:
	if (rc != TK_OK && !tk_error_cause_count(err))
		tkr_fail_msg(err, rc, msg);
	tkr_model_free(&m);
	tk_store_close(s);
	return rc;
}

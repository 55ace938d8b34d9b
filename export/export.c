/*
 * Export entry points: the exporter handle, opening the store (its clock and bounds), dispatch to
 * the format writers, and helpers they share (messages, prepared statements, the string cache,
 * which hands out valid UTF-8, name sanitising, scratch buffers).
 */
#include "util/escape.h"
#include "util/utf8.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tracekit/error.h>
#include <tracekit/export.h>
#include <tracekit/text.h>

#include "checked.h"
#include "export_internal.h"
#include "util/vec.h"

#define STR_SLOTS 65536 /* string cache slots (direct-mapped by id) */

int tk_export_format_parse(const char *name, enum tk_export_format *out)
{
	if (!name)
		return TK_EINVAL;
	if (!strcmp(name, "xplane"))
		*out = TK_EXPORT_XPLANE;
	else if (!strcmp(name, "perfetto") || !strcmp(name, "pftrace"))
		*out = TK_EXPORT_PERFETTO;
	else if (!strcmp(name, "chrome") || !strcmp(name, "json"))
		*out = TK_EXPORT_CHROME;
	else
		return TK_EINVAL;
	return TK_OK;
}

void tk_export_options_init(struct tk_export_options *o)
{
	memset(o, 0, sizeof(*o));
	o->format = TK_EXPORT_PERFETTO;
}

int tk_exporter_create(tk_exporter **out)
{
	*out = calloc(1, sizeof(**out));
	if (*out && !((*out)->err = tk_error_new())) {
		free(*out);
		*out = NULL;
	}
	return *out ? TK_OK : TK_ENOMEM;
}

tk_error *tk_exporter_error(tk_exporter *x)
{
	return x ? x->err : NULL;
}

const char *tk_exporter_errmsg(const tk_exporter *x)
{
	return x ? tk_error_message(x->err) : "";
}

void tk_exporter_stats(const tk_exporter *x, struct tk_export_stats *out)
{
	memset(out, 0, sizeof(*out));
	if (x)
		*out = x->stats;
}

const char *tk_exporter_output(const tk_exporter *x)
{
	return x ? x->output : "";
}

static void release_store(struct tk_exporter *x)
{
	sqlite3_finalize(x->str_st);
	x->str_st = NULL;
	if (x->str_txt)
		for (size_t i = 0; i < STR_SLOTS; i++)
			free(x->str_txt[i]);
	free(x->str_txt);
	free(x->str_ids);
	x->str_txt = NULL;
	x->str_ids = NULL;
	tk_store_close(x->store);
	x->store = NULL;
	x->db = NULL;
}

void tk_exporter_destroy(tk_exporter *x)
{
	if (!x)
		return;
	release_store(x);
	tk_error_free(x->err);
	free(x);
}

static int fail_v(struct tk_exporter *x, int status, const char *module, const char *cause,
		  const char *fmt, va_list ap)
{
	if (tk_error_cause_count(x->err)) /* the first failure wins */
		return status;
	if (cause)
		tk_error_push_from(x->err, module, status, "%s", cause);
	tk_error_vpush_from(x->err, "export", status, fmt, ap);
	return status;
}

int ex_fail(struct tk_exporter *x, int status, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int rc = fail_v(x, status, NULL, NULL, fmt, ap);
	va_end(ap);
	return rc;
}

int ex_fail_cause(struct tk_exporter *x, int status, const char *module, const char *cause,
		  const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int rc = fail_v(x, status, module, cause, fmt, ap);
	va_end(ap);
	return rc;
}

int ex_fail_sql(struct tk_exporter *x, const char *what)
{
	return ex_fail_cause(x, TK_EFORMAT, "sqlite", sqlite3_errmsg(x->db),
			     "cannot read store '%s' (%s)", x->store_path, what);
}

int ex_prepare(struct tk_exporter *x, const char *sql, sqlite3_stmt **st)
{
	if (sqlite3_prepare_v2(x->db, sql, -1, st, NULL) != SQLITE_OK) {
		sqlite3_finalize(*st);
		*st = NULL;
		return ex_fail_sql(x, "prepare");
	}
	return TK_OK;
}

const char *ex_str(struct tk_exporter *x, uint32_t id)
{
	if (!id || !x->str_ids)
		return "";
	size_t slot = id % STR_SLOTS;
	if (x->str_ids[slot] == id && x->str_txt[slot])
		return x->str_txt[slot];
	const char *t = "";
	sqlite3_reset(x->str_st);
	sqlite3_bind_int64(x->str_st, 1, id);
	if (sqlite3_step(x->str_st) == SQLITE_ROW && sqlite3_column_text(x->str_st, 0))
		t = (const char *)sqlite3_column_text(x->str_st, 0);
	char *c =
	    tku_text_convert(t, strlen(t), 0, NULL); /* names are valid UTF-8 in every format */
	if (!c)
		return "";
	free(x->str_txt[slot]);
	x->str_txt[slot] = c;
	x->str_ids[slot] = id;
	return c;
}

int ex_utf8(const char **s, size_t *n, char **owned)
{
	*owned = NULL;
	if (tku_utf8_valid(*s, *n))
		return TK_OK;
	if (!(*owned = tku_text_convert(*s, *n, 0, n)))
		return TK_ENOMEM;
	*s = *owned;
	return TK_OK;
}

void ex_sanitize(const char *in, char *out, size_t n)
{
	size_t j = 0;
	for (const char *p = in ? in : ""; *p && j + 1 < n; p++) {
		char c = *p;
		int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			 (c >= '0' && c <= '9') || c == '.' || c == '-' || c == '_';
		out[j++] = ok ? c : '_';
	}
	out[j] = 0;
	if (n < 2)
		return;
	if (j == 0) /* never empty */
		out[0] = 'x', out[1] = 0;
	else if (out[0] == '.') /* no ".", "..", no hidden names */
		out[0] = '_';
}

int ex_buf_reserve(struct ex_buf *b, size_t more)
{
	if (more > SIZE_MAX - b->len)
		return TK_ENOMEM;
	return TKU_GROW(b->p, b->cap, b->len + more, 4096);
}

void ex_buf_free(struct ex_buf *b)
{
	free(b->p);
	b->p = NULL;
	b->len = b->cap = 0;
}

static int64_t meta_int(struct tk_exporter *x, const char *key, int64_t dflt)
{
	char buf[64];
	if (tk_store_meta_text(x->store, key, buf, sizeof(buf)) != TK_OK || !buf[0])
		return dflt;
	return strtoll(buf, NULL, 10);
}

static int open_store(struct tk_exporter *x, const char *path)
{
	/* One thread streams the tables: a connection without SQLite's mutex. */
	int rc = tk_store_open_mode(path, TK_STORE_STREAM, &x->store);
	if (rc != TK_OK) {
		if (!tk_error_cause_count(x->err)) /* the store's causes, as they are */
			tk_error_copy(x->err, tk_store_error(x->store));
		return ex_fail(x, rc, "%s", tk_strerror(rc)); /* no store handle (out of memory) */
	}
	x->db = tk_store_sqlite(x->store);
	char clock[32] = "";
	tk_store_meta_text(x->store, "clock", clock, sizeof(clock));
	x->epoch = !strcmp(clock, "unix_epoch");
	x->start_ns = meta_int(x, "trace_start_ns", 0);
	x->end_ns = meta_int(x, "trace_end_ns", x->start_ns);
	/* Times are written relative to the start: it must be a time point (store/checked.h). */
	if (!tk_time_ok(x->start_ns) || !tk_time_ok(x->end_ns))
		return ex_fail(x, TK_EFORMAT,
			       "store '%s': table meta, trace_start_ns %lld or trace_end_ns %lld "
			       "is out of range (more than 2^62 ns from the epoch)",
			       path, (long long)x->start_ns, (long long)x->end_ns);
	/* The tables every exporter reads must be there (a store of another tool has a meta too). */
	sqlite3_stmt *st = NULL;
	if ((rc = ex_prepare(x,
			     "SELECT EXISTS(SELECT 1 FROM args), (SELECT count(*) FROM events "
			     "WHERE 0), (SELECT count(*) FROM flows WHERE 0)",
			     &st)) != TK_OK)
		return rc;
	if (sqlite3_step(st) == SQLITE_ROW)
		x->has_args = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	if ((rc = ex_prepare(x, "SELECT str FROM strings WHERE id = ?", &x->str_st)) != TK_OK)
		return rc;
	x->str_ids = calloc(STR_SLOTS, sizeof(*x->str_ids));
	x->str_txt = calloc(STR_SLOTS, sizeof(*x->str_txt));
	if (!x->str_ids || !x->str_txt)
		return ex_fail(x, TK_ENOMEM, "out of memory");
	return TK_OK;
}

int tk_exporter_run(tk_exporter *x, const char *store_path, const char *out_path,
		    const struct tk_export_options *o)
{
	if (!x)
		return TK_EINVAL;
	int rc;
	tk_error_clear(x->err);
	x->output[0] = 0;
	memset(&x->stats, 0, sizeof(x->stats));
	x->sorted_flows = 0;
	release_store(x);
	if (!store_path || !out_path || !o) {
		rc = ex_fail(x, TK_EINVAL, "export needs a store, an output path and options");
		goto out;
	}
	x->store_path = store_path;
	if ((rc = open_store(x, store_path)) != TK_OK)
		goto out;
	for (int attempt = 0; attempt < 2; attempt++) {
		memset(&x->stats, 0, sizeof(x->stats));
		switch (o->format) {
		case TK_EXPORT_XPLANE:
			rc = ex_xplane(x, out_path, o->run);
			break;
		case TK_EXPORT_CHROME:
			rc = ex_chrome(x, out_path);
			break;
		case TK_EXPORT_PERFETTO:
			rc = ex_perfetto(x, out_path);
			break;
		default:
			rc = ex_fail(x, TK_EINVAL, "unknown export format %d", (int)o->format);
			break;
		}
		if (rc != EX_RESTART)
			break;
		x->sorted_flows = 1; /* flows are not in event order: read them sorted */
	}
	if (rc == EX_RESTART)
		rc = ex_fail(x, TK_EINTERNAL, "flows could not be matched to their events");
out:
	release_store(x);
	x->store_path = NULL;
	return rc;
}

/*
 * Access to a finished store: open in one of the modes of enum tk_store_mode (read-only,
 * streaming, read-write for the analysis) with the schema version and the schema's shapes
 * checked (a newer store is refused, a foreign or reshaped file is named as such), meta lookups,
 * and the SQLite handle for queries. Nothing outside store/ opens a SQLite connection.
 */
#include <tracekit/store.h>
#include <tracekit/error.h>

#include <errno.h>
#include <stdarg.h>
#include <sqlite3.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "store_internal.h"
#include "tk_schema.h"
#include "util/vec.h"

struct tk_store {
	sqlite3 *db;
	int version;
	tk_error *err; /* the last failure (tk_store_error()) */
};

tk_error *tk_store_error(tk_store *s)
{
	return s ? s->err : NULL;
}

const char *tk_store_errmsg(const tk_store *s)
{
	return s ? tk_error_message(s->err) : "";
}

struct sqlite3 *tk_store_sqlite(tk_store *s)
{
	return s ? s->db : NULL;
}

/* Fail @s with @status: the root cause @cause from @module (NULL: none), then the message. */
static int store_fail(tk_store *s, int status, const char *module, const char *cause,
		      const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static int store_fail(tk_store *s, int status, const char *module, const char *cause,
		      const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	tk_error_clear(s->err);
	if (cause)
		tk_error_push_from(s->err, module, status, "%s", cause);
	tk_error_vpush_from(s->err, "store", status, fmt, ap);
	va_end(ap);
	return status;
}

int tk_store_schema_version(const tk_store *s)
{
	return s ? s->version : 0;
}

void tk_store_close(tk_store *s)
{
	if (!s)
		return;
	sqlite3_close_v2(s->db);
	tk_error_free(s->err);
	free(s);
}

/* Run a one-integer query; -1 on error. */
static int64_t query_int(sqlite3 *db, const char *sql, int *sqlrc)
{
	sqlite3_stmt *st = NULL;
	int64_t v = -1;
	*sqlrc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
	if (*sqlrc == SQLITE_OK) {
		*sqlrc = sqlite3_step(st);
		if (*sqlrc == SQLITE_ROW) {
			v = sqlite3_column_int64(st, 0);
			*sqlrc = SQLITE_OK;
		}
	}
	sqlite3_finalize(st);
	return v;
}

/*
 * Compare two CREATE statements as SQL, not as text: comments (the schema's column comments may
 * be reworded without a new schema version) and runs of white space do not count; quoted text
 * does, byte for byte.
 */
static const char *sql_next(const char *p)
{
	for (;;) {
		if (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
			p++;
		else if (p[0] == '-' && p[1] == '-')
			while (*p && *p != '\n')
				p++;
		else if (p[0] == '/' && p[1] == '*') {
			const char *e = strstr(p + 2, "*/");
			p = e ? e + 2 : p + strlen(p);
		} else
			return p;
	}
}

static int sql_same(const char *a, const char *b)
{
	char quote = 0;
	if (strcmp(a, b) == 0) /* the usual case: tracekit wrote the store */
		return 1;
	for (;;) {
		if (!quote) {
			const char *na = sql_next(a), *nb = sql_next(b);
			if ((na != a) != (nb != b) && *na && *nb) /* white space on one side only */
				return 0;
			a = na, b = nb;
		}
		if (*a != *b)
			return 0;
		if (!*a)
			return 1;
		if (quote && *a == quote)
			quote = 0;
		else if (!quote && (*a == '\'' || *a == '"'))
			quote = *a;
		a++, b++;
	}
}

/*
 * What schemas/store.sql creates, as SQLite keeps it in sqlite_master: (type, name, sql) of every
 * object, in creation order. Made once per process by running the schema in an in-memory
 * database, then published (compare-and-swap; a loser of the race drops its copy) and never
 * changed or freed: a lazily computed constant, so that opening a store does not run the DDL.
 */
struct schema_obj {
	char *type, *name, *sql;
};
struct schema_ref {
	int n;
	struct schema_obj *obj;
};

static _Atomic(struct schema_ref *) the_ref;

static void schema_ref_free(struct schema_ref *r)
{
	if (!r)
		return;
	for (int i = 0; i < r->n; i++) {
		free(r->obj[i].type);
		free(r->obj[i].name);
		free(r->obj[i].sql);
	}
	free(r->obj);
	free(r);
}

/* The reference objects; NULL with the reason in @err when they cannot be made. */
static const struct schema_ref *schema_ref(char *err, size_t errlen)
{
	struct schema_ref *r = atomic_load(&the_ref), *none = NULL;
	if (r)
		return r;
	sqlite3 *ref = NULL;
	sqlite3_stmt *want = NULL;
	int step;
	size_t cap = 0;
	if (!(r = calloc(1, sizeof(*r))) ||
	    sqlite3_open_v2(":memory:", &ref, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK ||
	    sqlite3_exec(ref, tks_schema_sql, NULL, NULL, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(ref,
			       "SELECT type, name, sql FROM sqlite_master WHERE sql IS NOT NULL "
			       "ORDER BY rowid",
			       -1, &want, NULL) != SQLITE_OK) {
		tks_fmt(err, errlen, "%s", ref ? sqlite3_errmsg(ref) : "out of memory");
		goto fail;
	}
	while ((step = sqlite3_step(want)) == SQLITE_ROW) {
		if (TKU_GROW(r->obj, cap, (size_t)r->n + 1, 64) != TK_OK)
			goto nomem;
		struct schema_obj *o = &r->obj[r->n];
		*o = (struct schema_obj){NULL, NULL, NULL};
		r->n++;
		for (int c = 0; c < 3; c++) {
			const char *v = (const char *)sqlite3_column_text(want, c);
			char **dst = c == 0 ? &o->type : c == 1 ? &o->name : &o->sql;
			if (!v || !(*dst = strdup(v)))
				goto nomem;
		}
	}
	if (step != SQLITE_DONE) {
		tks_fmt(err, errlen, "%s", sqlite3_errmsg(ref));
		goto fail;
	}
	sqlite3_finalize(want);
	sqlite3_close(ref);
	if (atomic_compare_exchange_strong(&the_ref, &none, r))
		return r;
	schema_ref_free(r);
	return none;
nomem:
	tks_fmt(err, errlen, "out of memory");
fail:
	sqlite3_finalize(want);
	sqlite3_close(ref);
	schema_ref_free(r);
	return NULL;
}

/*
 * Earlier shapes of views that stores of the same schema version may hold and that every reader
 * can still use: a view only derives columns, and these lack only ones added since (memcpys
 * before gb_per_s preferred the trace's own bandwidth and gained gb_per_s_source). A store
 * written by this tracekit always has the current shape.
 */
static const struct {
	const char *name, *sql;
} earlier_views[] = {
    {"memcpys",
     "CREATE VIEW memcpys AS\n"
     "SELECT e.id, s.str AS name, e.ts_ns,\n"
     "       e.ts_ns - (SELECT value FROM meta WHERE key = 'trace_start_ns') AS ts_rel_ns,\n"
     "       e.dur_ns, e.ts_ns + e.dur_ns AS end_ns, t.device_id, t.stream_id, p.pid, t.tid,\n"
     "       e.correlation_id, d.bytes, ck.name AS copy_kind, sk.name AS src_kind, dk.name AS "
     "dst_kind,\n"
     "       d.src_device_id, d.dst_device_id,\n"
     "       CASE WHEN e.dur_ns > 0 THEN CAST(d.bytes AS REAL) / e.dur_ns END AS gb_per_s,\n"
     "       e.track_id\n"
     "FROM events e\n"
     "JOIN strings s ON s.id = e.name_id\n"
     "JOIN tracks t ON t.id = e.track_id\n"
     "LEFT JOIN processes p ON p.id = t.process_id\n"
     "LEFT JOIN copy_details d ON d.event_id = e.id\n"
     "LEFT JOIN copy_kinds ck ON ck.id = d.copy_kind\n"
     "LEFT JOIN memory_kinds sk ON sk.id = d.src_mem_kind\n"
     "LEFT JOIN memory_kinds dk ON dk.id = d.dst_mem_kind\n"
     "WHERE e.kind = " TK_SQL_EV_MEMCPY},
};

/* 1 when @got is an earlier shape of the view @name that readers accept. */
static int earlier_view(const char *type, const char *name, const char *got)
{
	size_t n = sizeof(earlier_views) / sizeof(earlier_views[0]);
	if (strcmp(type, "view") != 0)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!strcmp(name, earlier_views[i].name) && sql_same(got, earlier_views[i].sql))
			return 1;
	return 0;
}

/*
 * The store's tables, views and indexes must be exactly those schemas/store.sql creates: the same
 * CREATE statement in sqlite_master (SQLite keeps it verbatim; comments and spacing aside) for
 * every object the schema declares.
 * Readers prepare their SQL against these shapes, so a store edited into another shape (a column
 * renamed, a table replaced by a view) is bad input, refused here, not an internal error later.
 * Objects the schema does not declare (the analysis_* tables) are left to their readers.
 */
static int schema_check(tk_store *s, const char *path)
{
	sqlite3_stmt *have = NULL;
	int rc = TK_OK;
	char why[256] = "";
	const struct schema_ref *ref = schema_ref(why, sizeof(why));
	if (!ref) {
		rc = store_fail(s, TK_EINTERNAL, "sqlite", why, "cannot check store '%s'", path);
		goto out;
	}
	if (sqlite3_prepare_v2(s->db, "SELECT sql FROM sqlite_master WHERE type = ? AND name = ?",
			       -1, &have, NULL) != SQLITE_OK) {
		int e = sqlite3_errcode(s->db);
		rc = store_fail(s, e == SQLITE_NOMEM ? TK_ENOMEM : TK_EFORMAT, "sqlite",
				sqlite3_errmsg(s->db), "'%s' is not a tracekit store", path);
		goto out;
	}
	for (int i = 0; i < ref->n; i++) {
		const struct schema_obj *o = &ref->obj[i];
		sqlite3_reset(have);
		sqlite3_bind_text(have, 1, o->type, -1, SQLITE_STATIC);
		sqlite3_bind_text(have, 2, o->name, -1, SQLITE_STATIC);
		int hs = sqlite3_step(have);
		const char *got =
		    hs == SQLITE_ROW ? (const char *)sqlite3_column_text(have, 0) : NULL;
		if (hs != SQLITE_ROW && hs != SQLITE_DONE) {
			rc = store_fail(s, TK_EFORMAT, "sqlite", sqlite3_errmsg(s->db),
					"store '%s': reading its schema", path);
			goto out;
		}
		if (!got || !(sql_same(got, o->sql) || earlier_view(o->type, o->name, got))) {
			rc = store_fail(
			    s, TK_EFORMAT, NULL, NULL,
			    "store '%s' breaks the schema: %s %s is %s (schemas/store.sql)", path,
			    o->type, o->name, got ? "not as declared" : "missing");
			goto out;
		}
	}
out:
	sqlite3_finalize(have);
	return rc;
}

/*
 * Open @path with @flags into s->db and check that it is a tracekit store of a supported
 * version with the shapes of schemas/store.sql; the causes in s->err when it is not.
 */
static int open_checked(tk_store *s, const char *path, int flags)
{
	int rc = TK_OK, sqlrc;
	struct stat sb;
	if (!path || stat(path, &sb) != 0) {
		rc = store_fail(s, TK_EIO, "os", strerror(errno), "cannot open store '%s'",
				path ? path : "(null)");
		goto out;
	}
	if (S_ISDIR(sb.st_mode)) {
		rc = store_fail(s, TK_EIO, NULL, "it is a directory", "cannot open store '%s'",
				path);
		goto out;
	}
	if (sqlite3_open_v2(path, &s->db, flags, NULL) != SQLITE_OK) {
		rc =
		    store_fail(s, TK_EIO, "sqlite", s->db ? sqlite3_errmsg(s->db) : "out of memory",
			       "cannot open store '%s'", path);
		goto out;
	}
	sqlite3_busy_timeout(s->db, 5000);
	int64_t version = query_int(s->db, "PRAGMA user_version", &sqlrc);
	if (sqlrc != SQLITE_OK) {
		rc = store_fail(
		    s, sqlrc == SQLITE_NOTADB || sqlrc == SQLITE_CORRUPT ? TK_EFORMAT : TK_EIO,
		    "sqlite", sqlite3_errmsg(s->db), "'%s' is not a tracekit store", path);
		goto out;
	}
	int64_t has_meta = query_int(
	    s->db, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'meta'",
	    &sqlrc);
	if (sqlrc != SQLITE_OK || version <= 0 || has_meta != 1) {
		rc = store_fail(s, TK_EFORMAT, NULL, NULL,
				"'%s' is not a tracekit store (no schema version or meta table)",
				path);
		goto out;
	}
	if (version > TK_STORE_SCHEMA_VERSION) {
		rc = store_fail(
		    s, TK_EVERSION, NULL, NULL,
		    "store '%s' has schema version %lld, newer than this tracekit supports (%d): "
		    "upgrade tracekit to read it",
		    path, (long long)version, TK_STORE_SCHEMA_VERSION);
		goto out;
	}
	s->version = (int)version;
	rc = schema_check(s, path);
out:
	return rc;
}

/*
 * The analysis' connection: the store checked read-only first (a foreign file is never
 * written, not even to roll back a journal), then reopened read-write.
 */
static int open_read_write(tk_store *s, const char *path)
{
	int rc = open_checked(s, path, SQLITE_OPEN_READONLY);
	if (rc != TK_OK)
		goto out;
	sqlite3_close_v2(s->db);
	s->db = NULL;
	if (sqlite3_open_v2(path, &s->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL) !=
	    SQLITE_OK) {
		rc =
		    store_fail(s, TK_EIO, "sqlite", s->db ? sqlite3_errmsg(s->db) : "out of memory",
			       "cannot open store '%s' for writing", path);
		goto out;
	}
	sqlite3_busy_timeout(s->db, 5000);
	/* 8 MiB of page cache: the analyses read sequentially, a larger cache only adds RSS. */
	if (sqlite3_exec(s->db, "PRAGMA cache_size = -8192", NULL, NULL, NULL) != SQLITE_OK) {
		rc = store_fail(s, TK_EIO, "sqlite", sqlite3_errmsg(s->db),
				"cannot write to store '%s'", path);
	}
out:
	return rc;
}

int tk_store_open_mode(const char *path, enum tk_store_mode mode, tk_store **out)
{
	int rc = TK_OK;
	*out = NULL;
	tk_store *s = calloc(1, sizeof(*s));
	if (s && !(s->err = tk_error_new())) {
		free(s);
		s = NULL;
	}
	if (!s)
		return TK_ENOMEM;
	*out = s;
	switch (mode) {
	case TK_STORE_READ:
	case TK_STORE_STREAM:
		/* One thread streams: no SQLite mutex around every call. */
		rc = open_checked(s, path,
				  SQLITE_OPEN_READONLY |
				      (mode == TK_STORE_STREAM ? SQLITE_OPEN_NOMUTEX : 0));
		if (rc == TK_OK)
			sqlite3_exec(s->db, "PRAGMA query_only = 1", NULL, NULL, NULL);
		break;
	case TK_STORE_READ_WRITE:
		rc = open_read_write(s, path);
		break;
	default:
		rc = store_fail(s, TK_EINVAL, NULL, NULL, "unknown store open mode %d", (int)mode);
		break;
	}
	return rc;
}

int tk_store_open(const char *path, tk_store **out)
{
	return tk_store_open_mode(path, TK_STORE_READ, out);
}

int tk_store_meta_text(tk_store *s, const char *key, char *buf, size_t len)
{
	if (!s || !s->db || !key)
		return TK_EINVAL;
	sqlite3_stmt *st = NULL;
	int rc = TK_ENOTFOUND;
	if (sqlite3_prepare_v2(s->db, "SELECT value FROM meta WHERE key = ?", -1, &st, NULL) !=
	    SQLITE_OK) {
		return store_fail(s, TK_EFORMAT, "sqlite", sqlite3_errmsg(s->db),
				  "cannot read meta");
	}
	sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW) {
		const unsigned char *v = sqlite3_column_text(st, 0);
		tks_fmt(buf, len, "%s", v ? (const char *)v : "");
		rc = TK_OK;
	}
	sqlite3_finalize(st);
	return rc;
}

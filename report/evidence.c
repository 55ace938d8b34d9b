/*
 * The findings' evidence in human units (docs/reports.md, "Evidence"): the evidence JSON of each
 * finding (analyze/findings.c) read once with SQLite's json_tree into typed items, so that the
 * text, Markdown and HTML reports show "idle=658.49 ms", "start=+1.221 s", "bytes=1.50 GiB",
 * "share=65.3%" and short kernel labels, never raw nanoseconds or epoch times. The unit of a
 * value comes from its key (the *_ns, *_pct, *_bytes naming of the findings). JSON reports keep
 * the evidence object as the analysis wrote it.
 */
#include "report_internal.h"

#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <tracekit/error.h>

#include "message.h"

static int ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);
	return n >= k && !strcmp(s + n - k, suffix);
}

/* Keys whose value names an op, a kernel or an event. */
static int name_key(const char *leaf)
{
	static const char *const keys[] = {"name",	"before",  "after",
					   "op",	"op_name", "prev_name",
					   "next_name", "kernel",  "collective"};
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (!strcmp(leaf, keys[i]))
			return 1;
	return 0;
}

/* Keys ending in _ns that are points in time, not durations. */
static int time_key(const char *leaf)
{
	static const char *const keys[] = {"start_ns", "end_ns",   "ts_ns",   "peak_ns",
					   "alloc_ns", "first_ns", "last_ns", "at_ns"};
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (!strcmp(leaf, keys[i]))
			return 1;
	return ends_with(leaf, "_ts_ns") || ends_with(leaf, "_start_ns") ||
	       ends_with(leaf, "_end_ns");
}

/* How the value of @leaf (under @parent, "" at the top) is shown. */
static enum tkr_kind key_kind(const char *parent, const char *leaf, int text)
{
	if (text)
		return name_key(leaf) || !*leaf ? TKR_NAME : TKR_TEXT;
	if (!strcmp(leaf, "pct") || ends_with(leaf, "_pct"))
		return TKR_PCT;
	if (!strcmp(leaf, "share") || ends_with(leaf, "_share") || !strcmp(leaf, "occupancy"))
		return TKR_RATIO;
	if (ends_with(leaf, "_ns"))
		return time_key(leaf) ? TKR_TS : TKR_NS;
	if (!strcmp(parent, "by_cause"))
		return TKR_NS; /* gpu_idle: idle ns per gap cause */
	if (!strcmp(leaf, "bytes") || ends_with(leaf, "_bytes"))
		return TKR_BYTES;
	return TKR_REAL;
}

/* The key as shown: the unit suffix goes, the value carries the unit ("idle_ns" -> "idle"). */
static char *display_key(const char *path)
{
	static const char *const suffixes[] = {"_ns", "_pct", "_bytes"};
	struct tku_buf b = {0};
	size_t n = strlen(path);
	for (size_t i = 0; i < sizeof(suffixes) / sizeof(suffixes[0]); i++) {
		size_t k = strlen(suffixes[i]);
		if (n > k && ends_with(path, suffixes[i]) && path[n - k - 1] != '.') {
			n -= k;
			break;
		}
	}
	if (n == 3 && !strncmp(path, "pct", 3))
		tku_puts(&b, "share");
	else
		tku_putn(&b, path, n);
	if (b.oom) {
		free(b.p);
		return NULL;
	}
	return b.p;
}

static int push_item(struct tkr_ev_list *l, size_t *cap, struct tkr_ev_item it)
{
	if (TKU_GROW(l->it, *cap, l->n + 1, 8) != TK_OK)
		return TK_ENOMEM;
	l->it[l->n++] = it;
	return TK_OK;
}

/*
 * The path of a json_tree row without "$." and quotes; for rows under "$.top[K]" the part after
 * it and K in *@top (else *@top = -1).
 */
static char *item_path(const char *fullkey, long *top)
{
	struct tku_buf b = {0};
	const char *p = fullkey;
	*top = -1;
	if (!strncmp(p, "$.top[", 6)) {
		char *end;
		long k = strtol(p + 6, &end, 10);
		if (*end == ']' && k >= 0) {
			*top = k;
			p = end + 1;
		}
	}
	if (*p == '$')
		p++;
	if (*p == '.')
		p++;
	for (; *p; p++)
		if (*p != '"')
			tku_putn(&b, p, 1);
	if (!b.p)
		tku_puts(&b, "");
	if (b.oom) {
		free(b.p);
		return NULL;
	}
	return b.p;
}

/* Read one finding's evidence into @e (text that is not a JSON object gives no items). */
static int load_one(sqlite3_stmt *st, const char *json, struct tkr_ev *e)
{
	size_t cap = 0, tcap = 0, *caps = NULL, capscap = 0;
	int rc = TK_OK, step;
	sqlite3_reset(st);
	sqlite3_bind_text(st, 1, json ? json : "{}", -1, SQLITE_STATIC);
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		const char *fullkey = (const char *)sqlite3_column_text(st, 0);
		const char *type = (const char *)sqlite3_column_text(st, 1);
		long top;
		char *path = item_path(fullkey ? fullkey : "", &top);
		struct tkr_ev_item it = {0};
		if (!path) {
			rc = TK_ENOMEM;
			break;
		}
		const char *dot = strrchr(path, '.'), *leaf = dot ? dot + 1 : path;
		char parent[64] = "";
		if (dot && (size_t)(dot - path) < sizeof(parent)) {
			const char *pdot = path, *q;
			for (q = path; q < dot; q++)
				if (*q == '.')
					pdot = q + 1;
			memcpy(parent, pdot, (size_t)(dot - pdot));
			parent[dot - pdot] = '\0';
		}
		int text = type && !strcmp(type, "text");
		it.kind = key_kind(parent, leaf, text);
		it.key = display_key(path);
		it.v.type = sqlite3_column_type(st, 2);
		if (it.v.type == SQLITE_INTEGER) {
			it.v.i = sqlite3_column_int64(st, 2);
		} else if (it.v.type == SQLITE_FLOAT) {
			it.v.d = sqlite3_column_double(st, 2);
		} else if (it.v.type != SQLITE_NULL) {
			const char *s = (const char *)sqlite3_column_text(st, 2);
			struct tku_buf sb = {0};
			tku_puts(&sb, s ? s : "");
			it.v.type = SQLITE_TEXT;
			it.v.s = sb.p;
			if (sb.oom)
				it.key = (free(it.key), NULL);
		}
		free(path);
		if (!it.key) {
			free(it.v.s);
			rc = TK_ENOMEM;
			break;
		}
		if (top < 0) {
			rc = push_item(&e->main, &cap, it);
		} else {
			while (rc == TK_OK && (size_t)top >= e->ntop) {
				if (TKU_GROW(e->top, tcap, e->ntop + 1, 8) != TK_OK ||
				    TKU_GROW(caps, capscap, e->ntop + 1, 8) != TK_OK) {
					rc = TK_ENOMEM;
					break;
				}
				e->top[e->ntop] = (struct tkr_ev_list){0};
				caps[e->ntop++] = 0;
			}
			if (rc == TK_OK)
				rc = push_item(&e->top[top], &caps[top], it);
		}
		if (rc != TK_OK) {
			free(it.key);
			free(it.v.s);
			break;
		}
	}
	free(caps);
	if (rc == TK_OK && step != SQLITE_DONE && step != SQLITE_ROW)
		rc = TK_OK; /* malformed evidence: shown as far as it was read */
	return rc;
}

int tkr_evidence_load(sqlite3 *db, struct tkr_model *m, char *err, size_t errlen)
{
	const struct tkr_section *s = tkr_find(m, "findings");
	sqlite3_stmt *st = NULL;
	int rc = TK_OK, c = s ? tkr_col(s, "evidence") : -1;
	if (!s || c < 0 || !s->nrows)
		return TK_OK;
	if (sqlite3_prepare_v2(db,
			       "SELECT fullkey, type, atom FROM json_tree(CASE WHEN json_valid(?1)"
			       " AND json_type(?1) = 'object' THEN ?1 ELSE '{}' END)"
			       " WHERE type NOT IN ('array', 'object') ORDER BY id",
			       -1, &st, NULL) != SQLITE_OK) {
		tks_fmt(err, errlen, "findings evidence: %s", sqlite3_errmsg(db));
		return TK_EINTERNAL;
	}
	m->ev = calloc(s->nrows, sizeof(*m->ev));
	if (!m->ev) {
		rc = TK_ENOMEM;
		goto out;
	}
	m->nev = s->nrows;
	for (size_t r = 0; r < s->nrows && rc == TK_OK; r++) {
		const struct tkr_cell *cell = tkr_cell(s, r, c);
		rc = load_one(st, cell->type == SQLITE_TEXT ? cell->s : NULL, &m->ev[r]);
	}
out:
	if (rc == TK_ENOMEM)
		tks_fmt(err, errlen, "out of memory while reading the findings' evidence");
	sqlite3_finalize(st);
	return rc;
}

static void list_free(struct tkr_ev_list *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->it[i].key);
		free(l->it[i].v.s);
	}
	free(l->it);
}

void tkr_evidence_free(struct tkr_model *m)
{
	for (size_t r = 0; r < m->nev; r++) {
		list_free(&m->ev[r].main);
		for (size_t t = 0; t < m->ev[r].ntop; t++)
			list_free(&m->ev[r].top[t]);
		free(m->ev[r].top);
	}
	free(m->ev);
	m->ev = NULL;
	m->nev = 0;
}

/* One name: its label fitted to @name_w (0: as it is), in HTML with the full name on hover. */
static void put_name(struct tku_buf *b, const struct tkr_model *m, const char *full, int name_w,
		     int html)
{
	struct tku_buf l = {0};
	const char *label = tkr_name_label(m, full);
	if (name_w > 0)
		tkr_short_name(&l, label, name_w);
	else
		tku_puts(&l, label);
	if (html) {
		tku_puts(b, "<span title=\"");
		tku_esc_html(b, full);
		tku_puts(b, "\">");
		tku_esc_html(b, l.p ? l.p : "");
		tku_puts(b, "</span>");
	} else {
		tku_puts(b, l.p ? l.p : "");
	}
	b->oom |= l.oom;
	free(l.p);
}

void tkr_evidence_line(struct tku_buf *b, const struct tkr_model *m, const struct tkr_ev_list *l,
		       int name_w, int html)
{
	int first = 1;
	const struct tkr_ev_item *lead = NULL;
	/* an offender with a name leads with it: "label (calls=10, total=379.05 ms)" */
	for (size_t i = 0; i < l->n && !lead; i++)
		if (l->it[i].kind == TKR_NAME && l->it[i].v.type == SQLITE_TEXT &&
		    (!strcmp(l->it[i].key, "name") || !*l->it[i].key))
			lead = &l->it[i];
	if (lead)
		put_name(b, m, lead->v.s, name_w, html);
	if (name_w > 0) /* the names beside the lead, or side by side (before, after), get half */
		name_w = name_w / 2 < 24 ? 24 : name_w / 2;
	for (size_t i = 0; i < l->n; i++) {
		const struct tkr_ev_item *it = &l->it[i];
		struct tku_buf v = {0};
		if (it == lead)
			continue;
		tku_puts(b, first ? (lead ? " (" : "") : ", ");
		first = 0;
		if (html)
			tku_esc_html(b, it->key);
		else
			tku_puts(b, it->key);
		tku_puts(b, "=");
		if (it->kind == TKR_NAME && it->v.type == SQLITE_TEXT) {
			put_name(b, m, it->v.s, name_w, html);
			continue;
		}
		tkr_format_value(&v, m, it->kind, &it->v, NULL);
		if (html)
			tku_esc_html(b, v.p ? v.p : "");
		else
			tku_puts(b, v.p ? v.p : "");
		b->oom |= v.oom;
		free(v.p);
	}
	if (lead && !first)
		tku_puts(b, ")");
	if (!b->p)
		tku_puts(b, "");
}

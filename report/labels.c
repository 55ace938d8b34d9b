/*
 * Names and labels people recognise (docs/reports.md, "Names"): devices as the trace names them
 * ("GPU 1 (rank 1)"), processes by their pid, and short labels for long C++ kernel names that
 * collapse template arguments and parameter lists but keep what tells two names of the report
 * apart (the detail grows only where labels would collide; "#N" is the last resort). Also the
 * fitting of a label into a text column. Every format takes its labels from here.
 */
#include "report_internal.h"

#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <tracekit/error.h>

#define ELL "\xe2\x80\xa6"
#define MAX_ROUNDS 64 /* rounds of the collision loop (each raises the detail of colliding names) */

/* ---- the structure of a C++ name ---- */

static int ident_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '$';
}

/* 1 when the '<' or '>' at s[i] is part of an operator name or "->", not a bracket. */
static int not_bracket(const char *s, size_t i)
{
	if (s[i] == '>' && i > 0 && s[i - 1] == '-')
		return 1;
	size_t j = i;
	/* at most 3 characters back: operator<<=, operator>>= (a run of '>' stays linear) */
	while (j > 0 && i - j < 3 && (s[j - 1] == '<' || s[j - 1] == '>' || s[j - 1] == '='))
		j--;
	return j >= 8 && !strncmp(s + j - 8, "operator", 8);
}

/*
 * match[i] = index of the bracket that pairs with the one at s[i] ((), {}, and <> that follow a
 * name), -1 for anything else: a '<' never closed, a '>' that closes nothing, a ')' or '}' with
 * no opener are plain characters. One pass with a stack: O(n) for any input. Returns the deepest
 * nesting of template brackets in *@depth; NULL when out of memory.
 */
static long *pair_brackets(const char *s, size_t n, int *depth)
{
	long *match = malloc((n + 1) * sizeof(*match)), *stack = malloc((n + 1) * sizeof(*stack));
	size_t top = 0;
	int angle = 0;
	*depth = 0;
	if (!match || !stack) {
		free(match);
		free(stack);
		return NULL;
	}
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		match[i] = -1;
		if (c == '(' || c == '{' ||
		    (c == '<' && i > 0 &&
		     (ident_char(s[i - 1]) ||
		      (i >= 10 && !strncmp(s + i - 10, "operator()", 10))) &&
		     !not_bracket(s, i))) {
			stack[top++] = (long)i;
			if (c == '<' && ++angle > *depth)
				*depth = angle;
		} else if (c == '>' && top && s[stack[top - 1]] == '<' && !not_bracket(s, i)) {
			match[i] = stack[--top];
			match[match[i]] = (long)i;
			angle--;
		} else if (c == ')' || c == '}') {
			char open = c == ')' ? '(' : '{';
			size_t k = top;
			while (k && s[stack[k - 1]] == '<')
				k--; /* angle brackets left open inside are plain characters */
			if (k && s[stack[k - 1]] == open) {
				angle -= (int)(top - k);
				top = k - 1;
				match[i] = stack[top];
				match[match[i]] = (long)i;
			}
		}
	}
	free(stack);
	return match;
}

/* @s with the noise no one reads removed: a leading "void ", "(anonymous namespace)::",
 * "::operator()() const" between lambdas, and the space of "> >". */
static void tidy(struct tku_buf *b, const char *s)
{
	if (!strncmp(s, "void ", 5) && s[5])
		s += 5;
	while (*s) {
		if (!strncmp(s, "(anonymous namespace)::", 23)) {
			s += 23;
		} else if (!strncmp(s, "::operator()() const", 20)) {
			s += 20;
		} else if (s[0] == '>' && s[1] == ' ' && s[2] == '>') {
			tku_putn(b, ">", 1);
			s += 2;
		} else {
			tku_putn(b, s, 1);
			s++;
		}
	}
	if (!b->p)
		tku_puts(b, "");
}

/* Index of the function's own parameter list: the last '(' at the top level that closes at the
 * end (or before " const") and follows a name; -1 when there is none. */
static long outer_params(const char *s, size_t n, const long *match)
{
	long found = -1;
	for (size_t i = 0; i < n; i++) {
		if (match[i] > (long)i) {
			if (s[i] == '(' && i > 0 && (ident_char(s[i - 1]) || s[i - 1] == '>') &&
			    ((size_t)match[i] == n - 1 || !strcmp(s + match[i] + 1, " const")))
				found = (long)i;
			i = (size_t)match[i]; /* skip the group: only the top level counts */
		}
	}
	return found;
}

/*
 * The name @s (tidied) at detail @level of 0..@depth + 1: template arguments nested deeper than
 * @level collapsed to "<…>", parameter lists inside them to "(…)", namespaces inside them
 * dropped ("at::native::FillFunctor<int>" -> "FillFunctor<int>"), and the function's own
 * parameter list left out; at @depth + 1 nothing is collapsed and the parameter list is kept.
 */
static void at_level(struct tku_buf *b, const char *s, const long *match, int depth, int level)
{
	size_t n = strlen(s);
	int full = level > depth, angle = 0, brace = 0, paren = 0;
	long op = full ? -1 : outer_params(s, n, match);
	for (size_t i = 0; i < n;) {
		char c = s[i];
		long j = match[i];
		if ((long)i == op)
			break;
		if (c == '<' && j > (long)i) {
			if (!full && angle >= level && j > (long)i + 1) {
				tku_puts(b, "<" ELL ">");
				i = (size_t)j + 1;
				continue;
			}
			angle++;
		} else if (c == '>' && j >= 0) {
			angle--;
		} else if (c == '(' && j > (long)i) {
			if (!full && angle > 0 && !brace && j > (long)i + 1) {
				tku_puts(b, "(" ELL ")");
				i = (size_t)j + 1;
				continue;
			}
			paren++;
		} else if (c == ')' && j >= 0) {
			paren--;
		} else if (c == '{' && j > (long)i) {
			brace++;
		} else if (c == '}' && j >= 0) {
			brace--;
		} else if ((angle > 0 || paren > 0) && ident_char(c) &&
			   (i == 0 || (!ident_char(s[i - 1]) && s[i - 1] != ':'))) {
			/* a qualified name inside the arguments: drop its namespaces */
			size_t k = i;
			for (;;) {
				size_t e = k;
				while (e < n && ident_char(s[e]))
					e++;
				if (e == k || s[e] != ':' || s[e + 1] != ':' ||
				    !ident_char(s[e + 2]))
					break;
				k = e + 2;
			}
			if (k > i) {
				i = k;
				continue;
			}
		}
		tku_putn(b, &c, 1);
		i++;
	}
	if (!b->p)
		tku_puts(b, "");
}

/* A name prepared once: its tidy form, bracket pairs and template depth. */
struct prepared {
	char *tidy;
	long *match;
	int depth;
};

static int prepare(struct prepared *p, const char *name)
{
	struct tku_buf t = {0};
	tidy(&t, name);
	if (t.oom) {
		free(t.p);
		return TK_ENOMEM;
	}
	p->tidy = t.p;
	p->match = pair_brackets(p->tidy, strlen(p->tidy), &p->depth);
	return p->match ? TK_OK : TK_ENOMEM;
}

void tkr_name_at_level(struct tku_buf *b, const char *name, int level, int *max_level)
{
	struct prepared p = {0};
	if (prepare(&p, name ? name : "") != TK_OK) {
		b->oom = 1;
	} else {
		if (max_level)
			*max_level = p.depth + 1;
		at_level(b, p.tidy, p.match, p.depth, level);
	}
	free(p.tidy);
	free(p.match);
}

/* ---- unique labels for a set of names ---- */

struct slot {
	size_t idx;
	const char *label;
};

static int slot_cmp(const void *a, const void *b)
{
	const struct slot *x = a, *y = b;
	int c = strcmp(x->label, y->label);
	return c ? c : (x->idx > y->idx) - (x->idx < y->idx);
}

int tkr_name_labels(char *const *names, size_t n, char **labels)
{
	struct prepared *p = calloc(n ? n : 1, sizeof(*p));
	int *level = calloc(n ? n : 1, sizeof(*level));
	struct slot *sl = calloc(n ? n : 1, sizeof(*sl));
	char **renum = calloc(n ? n : 1, sizeof(*renum));
	int rc = TK_OK, changed = 1;
	if (!p || !level || !sl || !renum) {
		rc = TK_ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < n; i++)
		labels[i] = NULL;
	for (size_t i = 0; i < n && rc == TK_OK; i++)
		rc = prepare(&p[i], names[i]);
	for (int round = 0; rc == TK_OK && round <= MAX_ROUNDS && changed; round++) {
		changed = 0;
		for (size_t i = 0; i < n; i++) {
			if (labels[i])
				continue;
			struct tku_buf b = {0};
			at_level(&b, p[i].tidy, p[i].match, p[i].depth, level[i]);
			if (b.oom) {
				free(b.p);
				rc = TK_ENOMEM;
				goto out;
			}
			labels[i] = b.p;
		}
		for (size_t i = 0; i < n; i++)
			sl[i] = (struct slot){i, labels[i]};
		qsort(sl, n, sizeof(*sl), slot_cmp);
		for (size_t g = 0, e; g < n; g = e) {
			int raised = 0;
			for (e = g + 1; e < n && !strcmp(sl[e].label, sl[g].label); e++)
				;
			if (e - g < 2)
				continue;
			/* a collision: more detail for every name that has more to show */
			for (size_t k = g; k < e; k++) {
				size_t i = sl[k].idx;
				if (level[i] <= p[i].depth && round < MAX_ROUNDS) {
					level[i]++;
					free(labels[i]);
					labels[i] = NULL;
					raised = changed = 1;
				}
			}
			if (raised)
				continue;
			/* nothing left to show: number them in the order given */
			for (size_t k = g; k < e; k++) {
				size_t i = sl[k].idx;
				struct tku_buf b = {0};
				tku_printf(&b, "%s #%zu", labels[i], k - g + 1);
				if (b.oom) {
					free(b.p);
					rc = TK_ENOMEM;
					goto out;
				}
				renum[i] = b.p;
			}
		}
		for (size_t i = 0; i < n; i++)
			if (renum[i]) {
				free(labels[i]);
				labels[i] = renum[i];
				renum[i] = NULL;
				changed = 1;
			}
	}
out:
	for (size_t i = 0; p && i < n; i++) {
		free(p[i].tidy);
		free(p[i].match);
	}
	if (rc != TK_OK)
		for (size_t i = 0; labels && i < n; i++) {
			free(labels[i]);
			labels[i] = NULL;
		}
	for (size_t i = 0; renum && i < n; i++)
		free(renum[i]);
	free(renum);
	free(p);
	free(level);
	free(sl);
	return rc;
}

/* ---- the model's name labels ---- */

static int str_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int push_name(char ***v, size_t *n, size_t *cap, const char *s)
{
	if (TKU_GROW(*v, *cap, *n + 1, 64) != TK_OK)
		return TK_ENOMEM;
	(*v)[(*n)++] = (char *)s;
	return TK_OK;
}

/* Every distinct name the model shows: TKR_NAME cells and the findings' evidence names. */
static int collect_names(const struct tkr_model *m, char ***out, size_t *nout)
{
	char **v = NULL;
	size_t n = 0, cap = 0;
	int rc = TK_OK;
	for (size_t i = 0; i < m->nsections && rc == TK_OK; i++) {
		const struct tkr_section *s = &m->sections[i];
		for (int c = 0; c < s->ncols && rc == TK_OK; c++) {
			if (s->def->cols[c].kind != TKR_NAME)
				continue;
			for (size_t r = 0; r < s->nrows && rc == TK_OK; r++)
				if (tkr_cell(s, r, c)->type == SQLITE_TEXT)
					rc = push_name(&v, &n, &cap, tkr_cell(s, r, c)->s);
		}
	}
	for (size_t r = 0; r < m->nev && rc == TK_OK; r++) {
		const struct tkr_ev *e = &m->ev[r];
		for (size_t t = 0; t <= e->ntop && rc == TK_OK; t++) {
			const struct tkr_ev_list *l = t < e->ntop ? &e->top[t] : &e->main;
			for (size_t k = 0; k < l->n && rc == TK_OK; k++)
				if (l->it[k].kind == TKR_NAME && l->it[k].v.type == SQLITE_TEXT)
					rc = push_name(&v, &n, &cap, l->it[k].v.s);
		}
	}
	if (rc == TK_OK && n) {
		qsort(v, n, sizeof(*v), str_cmp);
		size_t w = 1;
		for (size_t i = 1; i < n; i++)
			if (strcmp(v[i], v[w - 1]))
				v[w++] = v[i];
		n = w;
	}
	*out = v;
	*nout = n;
	return rc;
}

static int name_label_load(struct tkr_model *m)
{
	char **names = NULL, **labels = NULL;
	size_t n = 0;
	int rc = collect_names(m, &names, &n);
	if (rc != TK_OK || !n)
		goto out;
	labels = calloc(n, sizeof(*labels));
	m->names = calloc(n, sizeof(*m->names));
	if (!labels || !m->names) {
		rc = TK_ENOMEM;
		goto out;
	}
	if ((rc = tkr_name_labels(names, n, labels)) != TK_OK)
		goto out;
	for (size_t i = 0; i < n; i++) {
		m->names[i].full = names[i]; /* points into the model's cells */
		m->names[i].label = labels[i];
		labels[i] = NULL;
	}
	m->nnames = n;
out:
	free(labels);
	free(names);
	return rc;
}

const char *tkr_name_label(const struct tkr_model *m, const char *full)
{
	size_t lo = 0, hi = m->nnames;
	if (!full || m->full_names)
		return full;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(full, m->names[mid].full);
		if (!c)
			return m->names[mid].label;
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return full;
}

/* Replace the namespaces of the function name in @s by "…::" (into @b); 0 when there are none. */
static int drop_namespaces(struct tku_buf *b, const char *s)
{
	long cc = -1;
	int depth;
	size_t n = strlen(s);
	long *match = pair_brackets(s, n, &depth);
	if (!match) {
		b->oom = 1;
		return 0;
	}
	for (size_t i = 0; i < n; i++) {
		if (match[i] > (long)i) {
			if (s[i] != '(' || s[match[i] + 1] != ':')
				break; /* the name ends at its first template or parameter list */
			i = (size_t)match[i];
		} else if (s[i] == ' ') {
			break;
		} else if (s[i] == ':' && s[i + 1] == ':') {
			cc = (long)i;
		}
	}
	free(match);
	if (cc < 0)
		return 0;
	tku_puts(b, ELL "::");
	tku_puts(b, s + cc + 2);
	return 1;
}

void tkr_short_name(struct tku_buf *b, const char *name, int w)
{
	struct tku_buf cur = {0};
	name = name ? name : "";
	if (tkr_width(name) <= w || !drop_namespaces(&cur, name)) {
		free(cur.p);
		cur = (struct tku_buf){0};
		tku_puts(&cur, name);
	}
	tkr_cut(&cur, w);
	if (cur.oom)
		b->oom = 1;
	else
		tku_puts(b, cur.p);
	free(cur.p);
}

/* ---- devices and processes ---- */

static int idl_cmp(const void *a, const void *b)
{
	const struct tkr_idlabel *x = a, *y = b;
	return (x->id > y->id) - (x->id < y->id);
}

static int label_cmp(const void *a, const void *b)
{
	const struct tkr_idlabel *x = *(const struct tkr_idlabel *const *)a,
				 *y = *(const struct tkr_idlabel *const *)b;
	int c = strcmp(x->label, y->label);
	return c ? c : idl_cmp(x, y);
}

/* Labels that two ids share get their store id appended ("GPU 0 [device 3]"). */
static int disambiguate(struct tkr_idlabel *v, size_t n, const char *what)
{
	struct tkr_idlabel **p = malloc((n ? n : 1) * sizeof(*p));
	char **fixed = calloc(n ? n : 1, sizeof(*fixed));
	int rc = TK_OK;
	if (!p || !fixed) {
		rc = TK_ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < n; i++)
		p[i] = &v[i];
	qsort(p, n, sizeof(*p), label_cmp);
	for (size_t i = 0; i < n; i++) {
		int dup = (i > 0 && !strcmp(p[i]->label, p[i - 1]->label)) ||
			  (i + 1 < n && !strcmp(p[i]->label, p[i + 1]->label));
		if (!dup)
			continue;
		struct tku_buf b = {0};
		tku_printf(&b, "%s [%s %lld]", p[i]->label, what, (long long)p[i]->id);
		if (b.oom) {
			free(b.p);
			rc = TK_ENOMEM;
			goto out;
		}
		fixed[i] = b.p;
	}
	for (size_t i = 0; i < n; i++)
		if (fixed[i]) {
			free(p[i]->label);
			p[i]->label = fixed[i];
			fixed[i] = NULL;
		}
out:
	for (size_t i = 0; fixed && i < n; i++)
		free(fixed[i]);
	free(fixed);
	free(p);
	return rc;
}

/*
 * Columns of @sql: id, the label's head (text), rank, host, and whether hosts differ (1/0).
 * The label is "<head> (rank R, host H)" with the parts that are known (the host only when the
 * store has more than one).
 */
static int load_ids(sqlite3 *db, const char *sql, const char *what, struct tkr_idlabel **out,
		    size_t *nout)
{
	sqlite3_stmt *st = NULL;
	struct tkr_idlabel *v = NULL;
	size_t n = 0, cap = 0;
	int rc = TK_OK;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		goto out; /* a store without the table: ids are shown as they are */
	while (sqlite3_step(st) == SQLITE_ROW) {
		if (TKU_GROW(v, cap, n + 1, 16) != TK_OK) {
			rc = TK_ENOMEM;
			goto out;
		}
		struct tku_buf b = {0};
		const char *head = (const char *)sqlite3_column_text(st, 1);
		const char *host = (const char *)sqlite3_column_text(st, 3);
		int rank = sqlite3_column_type(st, 2) != SQLITE_NULL;
		int show_host = host && *host && sqlite3_column_int(st, 4);
		tku_puts(&b, head ? head : "");
		if (rank || show_host) {
			tku_puts(&b, " (");
			if (rank)
				tku_printf(&b, "rank %lld", (long long)sqlite3_column_int64(st, 2));
			if (show_host)
				tku_printf(&b, "%shost %s", rank ? ", " : "", host);
			tku_puts(&b, ")");
		}
		if (b.oom) {
			free(b.p);
			rc = TK_ENOMEM;
			goto out;
		}
		v[n].id = sqlite3_column_int64(st, 0);
		v[n++].label = b.p;
	}
	if (n)
		qsort(v, n, sizeof(*v), idl_cmp);
	rc = disambiguate(v, n, what);
out:
	sqlite3_finalize(st);
	*out = v;
	*nout = n;
	return rc;
}

int tkr_labels_load(sqlite3 *db, struct tkr_model *m)
{
	int rc =
	    load_ids(db,
		     "SELECT d.id, CASE lower(d.kind) WHEN 'gpu' THEN 'GPU' WHEN 'tpu' THEN 'TPU'"
		     " WHEN 'cpu' THEN 'CPU' ELSE d.kind END || ' ' || d.ordinal, d.rank, h.str,"
		     " (SELECT count(DISTINCT host_id) FROM devices) > 1"
		     " FROM devices d LEFT JOIN strings h ON h.id = d.host_id",
		     "device", &m->devs, &m->ndevs);
	if (rc == TK_OK)
		rc = load_ids(db,
			      "SELECT p.id, CASE WHEN p.pid IS NOT NULL THEN 'pid ' || p.pid"
			      " ELSE coalesce(n.str, 'process ' || p.id) END, p.rank, h.str,"
			      " (SELECT count(DISTINCT host_id) FROM processes) > 1"
			      " FROM processes p LEFT JOIN strings h ON h.id = p.host_id"
			      " LEFT JOIN strings n ON n.id = p.name_id",
			      "process", &m->procs, &m->nprocs);
	if (rc == TK_OK)
		rc = name_label_load(m);
	return rc;
}

static const char *find_id(const struct tkr_idlabel *v, size_t n, int64_t id)
{
	struct tkr_idlabel key = {id, NULL};
	const struct tkr_idlabel *f = n ? bsearch(&key, v, n, sizeof(*v), idl_cmp) : NULL;
	return f ? f->label : NULL;
}

void tkr_id_label(struct tku_buf *b, const struct tkr_model *m, int process, int64_t id)
{
	const char *l = process ? find_id(m->procs, m->nprocs, id) : find_id(m->devs, m->ndevs, id);
	if (l)
		tku_puts(b, l);
	else
		tku_printf(b, "%s %lld", process ? "process" : "device", (long long)id);
}

void tkr_labels_free(struct tkr_model *m)
{
	for (size_t i = 0; i < m->ndevs; i++)
		free(m->devs[i].label);
	for (size_t i = 0; i < m->nprocs; i++)
		free(m->procs[i].label);
	for (size_t i = 0; i < m->nnames; i++)
		free(m->names[i].label);
	free(m->devs);
	free(m->procs);
	free(m->names);
	m->devs = m->procs = NULL;
	m->names = NULL;
	m->ndevs = m->nprocs = m->nnames = 0;
}

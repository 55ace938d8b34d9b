/*
 * The schema generator, built and run at build time (CMakeLists.txt): reads schemas/store.sql and
 * schemas/analysis.sql and writes what the C code needs from them, so that the schemas stay the
 * one place a table is declared.
 *
 *   schema_gen header STORE.sql ANALYSIS.sql OUT.h
 *     tk_schema.h: the event kinds as SQL literals (TK_SQL_EV_KERNEL "5", from store.sql's
 *     event_kinds rows) with static checks against enum tk_event_kind, the kind sets of store.sql's
 *     "-- @kind-set NAME: kind ..." lines (TK_SQL_EV_<NAME> "5, 6, 7"), and for every table of
 *     analysis.sql its column list and count (TK_COLS_<TABLE>, TK_NCOLS_<TABLE>), plus the
 *     statement that drops them all (TK_SQL_ANALYSIS_DROP).
 *   schema_gen tables FILE.sql...
 *     one line per table: "NAME COLUMN...", in file order (tests/store/schema_check.sh).
 *   schema_gen links FILE.sql...
 *     one line per analysis table: "NAME written|read FILE..." from the "written by:" and
 *     "read by:" lines of its header comment (tests/store/schema_check.sh).
 *
 * The parser knows the layout the schemas follow (one column per line, "CREATE TABLE name (" and
 * ");" on their own lines, comments with "--"), and fails loudly on anything else.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXT 64	   /* tables per file */
#define MAXC 64	   /* columns per table */
#define MAXK 32	   /* event kinds */
#define NAMELEN 64 /* identifiers */

struct table {
	char name[NAMELEN];
	char col[MAXC][NAMELEN];
	int ncol;
	char links[2][1024]; /* written by, read by: file names separated by spaces */
};

struct schema {
	struct table t[MAXT];
	int nt;
	char kind[MAXK][NAMELEN]; /* kind[id] = event_kinds.name, "" when no row */
	char sets[1024];	  /* "#define ..." lines of the kind sets */
};

static _Noreturn void die(const char *path, int line, const char *what)
{
	fprintf(stderr, "schema_gen: %s:%d: %s\n", path, line, what);
	exit(1);
}

/* Copies the identifier at @p into @out (at most NAMELEN - 1 bytes); returns the byte after it. */
static const char *ident(const char *p, char *out)
{
	size_t n = 0;
	while ((isalnum((unsigned char)*p) || *p == '_') && n + 1 < NAMELEN)
		out[n++] = *p++;
	out[n] = '\0';
	return p;
}

/* The file names (dir/name.c) of a "written by:"/"read by:" line (or its continuation) appended
 * to @dst, separated by spaces. */
static void add_files(char *dst, size_t cap, const char *p)
{
	for (;;) {
		while (*p && !isalpha((unsigned char)*p))
			p++;
		if (!*p || !strncmp(p, "none", 4))
			return;
		size_t n = strcspn(p, ", \n");
		if (strlen(dst) + n + 2 < cap) {
			if (*dst)
				strcat(dst, " ");
			strncat(dst, p, n);
		}
		p += n;
	}
}

static void add_set(struct schema *s, const char *path, int ln, const char *p)
{
	char name[NAMELEN], k[NAMELEN], line[256];
	p = ident(p, name);
	if (*p++ != ':' || !*name)
		die(path, ln, "expected '-- @kind-set NAME: kind ...'");
	for (char *c = name; *c; c++)
		*c = (char)toupper((unsigned char)*c);
	snprintf(line, sizeof(line), "#define TK_SQL_EV_%s \"", name);
	for (int first = 1;; first = 0) {
		while (*p == ' ')
			p++;
		p = ident(p, k);
		if (!*k)
			break;
		int id = 0;
		while (id < MAXK && strcmp(s->kind[id], k))
			id++;
		if (id == MAXK)
			die(path, ln, "a kind set names a kind event_kinds has no row for");
		snprintf(line + strlen(line), sizeof(line) - strlen(line), "%s%d",
			 first ? "" : ", ", id);
	}
	strncat(s->sets, line, sizeof(s->sets) - strlen(s->sets) - 3);
	strcat(s->sets, "\"\n");
}

static void parse(struct schema *s, const char *path)
{
	FILE *f = fopen(path, "r");
	char buf[4096], pending[2][1024] = {"", ""};
	int ln = 0, in_table = 0, in_kinds = 0, cont = -1;
	struct table *t = NULL;
	if (!f)
		die(path, 0, "cannot open");
	while (fgets(buf, sizeof(buf), f)) {
		ln++;
		if (!strchr(buf, '\n') && !feof(f))
			die(path, ln, "line too long");
		if (in_table) {
			const char *p = buf;
			while (*p == ' ')
				p++;
			if (!strncmp(p, ");", 2) || !strncmp(p, ")", 1)) {
				in_table = 0;
				continue;
			}
			if (!strncmp(p, "--", 2) || *p == '\n')
				continue;
			/* One or more column definitions, then the comment: each definition
			 * starts with its name (commas inside parentheses are not separators). */
			for (int depth = 0, start = 1; *p && strncmp(p, "--", 2); p++) {
				if (start && *p != ' ') {
					if (t->ncol == MAXC)
						die(path, ln, "too many columns");
					ident(p, t->col[t->ncol]);
					if (!*t->col[t->ncol])
						die(path, ln, "expected a column name");
					t->ncol++;
					start = 0;
				}
				depth += (*p == '(') - (*p == ')');
				if (*p == ',' && !depth)
					start = 1;
			}
			continue;
		}
		if (in_kinds) {
			int id = -1;
			char name[NAMELEN];
			const char *p = strchr(buf, '(');
			if (!p || sscanf(p, "(%d, '%63[a-z_]'", &id, name) != 2 || id < 0 ||
			    id >= MAXK)
				die(path, ln, "expected an event_kinds row (id, 'name', ...)");
			strcpy(s->kind[id], name);
			in_kinds = !strstr(buf, ");");
			continue;
		}
		if (!strncmp(buf, "-- written by:", 14)) {
			add_files(pending[0], sizeof(pending[0]), buf + 14);
			cont = 0;
		} else if (!strncmp(buf, "-- read by:", 11)) {
			add_files(pending[1], sizeof(pending[1]), buf + 11);
			cont = 1;
		} else if (cont >= 0 && !strncmp(buf, "--   ", 5)) {
			add_files(pending[cont], sizeof(pending[cont]), buf + 5);
		} else {
			cont = -1;
		}
		if (!strncmp(buf, "-- @kind-set ", 13))
			add_set(s, path, ln, buf + 13);
		if (!strncmp(buf, "INSERT INTO event_kinds VALUES", 30))
			in_kinds = 1;
		if (!strncmp(buf, "CREATE TABLE ", 13)) {
			if (s->nt == MAXT)
				die(path, ln, "too many tables");
			t = &s->t[s->nt++];
			memset(t, 0, sizeof(*t));
			const char *p = ident(buf + 13, t->name);
			if (strcmp(p, " (\n"))
				die(path, ln, "expected 'CREATE TABLE name (' alone on its line");
			memcpy(t->links, pending, sizeof(pending));
			memset(pending, 0, sizeof(pending));
			in_table = 1;
		}
	}
	if (in_table || in_kinds)
		die(path, ln, "unterminated statement");
	fclose(f);
}

static void upper(char *dst, const char *src)
{
	while (*src)
		*dst++ = (char)toupper((unsigned char)*src++);
	*dst = '\0';
}

static int header(const struct schema *st, const struct schema *an, const char *out)
{
	FILE *f = fopen(out, "w");
	char u[NAMELEN];
	if (!f)
		return 1;
	fprintf(
	    f,
	    "/* Generated from schemas/store.sql and schemas/analysis.sql by schemas/schema_gen.c;"
	    " do not edit.\n * The SQL the C code writes takes its event kinds and analysis "
	    "columns from here. */\n#ifndef TK_SCHEMA_H\n#define TK_SCHEMA_H\n\n"
	    "#include <tracekit/store.h>\n\n/* events.kind codes (event_kinds), as SQL "
	    "literals: \"e.kind = \" TK_SQL_EV_KERNEL */\n");
	for (int id = 0; id < MAXK; id++) {
		if (!*st->kind[id])
			continue;
		upper(u, st->kind[id]);
		fprintf(f, "#define TK_SQL_EV_%s \"%d\"\n", u, id);
	}
	fprintf(
	    f,
	    "\n/* Kind sets (store.sql's @kind-set lines): \"e.kind IN (\" TK_SQL_EV_DEVICE_OPS "
	    "\")\" */\n%s\n/* store.sql and enum tk_event_kind agree. */\n",
	    st->sets);
	for (int id = 0; id < MAXK; id++) {
		if (!*st->kind[id])
			continue;
		upper(u, st->kind[id]);
		fprintf(f,
			"_Static_assert(TK_EV_%s == %d, \"schemas/store.sql's event_kinds row %d "
			"('%s') and enum tk_event_kind disagree\");\n",
			u, id, id, st->kind[id]);
	}
	fprintf(
	    f,
	    "\n/* The analysis tables (schemas/analysis.sql): column list and count of each. A\n"
	    " * writer inserts with \"INSERT INTO analysis_x (\" TK_COLS_ANALYSIS_X \") VALUES "
	    "...\" "
	    "and\n * states the count it binds with a _Static_assert on TK_NCOLS_ANALYSIS_X. */\n");
	for (int i = 0; i < an->nt; i++) {
		const struct table *t = &an->t[i];
		upper(u, t->name);
		fprintf(f, "#define TK_COLS_%s \"", u);
		for (int c = 0; c < t->ncol; c++)
			fprintf(f, "%s\\\"%s\\\"", c ? ", " : "", t->col[c]);
		fprintf(f, "\"\n#define TK_NCOLS_%s %d\n", u, t->ncol);
	}
	fprintf(f,
		"\n/* Drops every analysis table (tk_analyze() before it runs analysis.sql). */\n"
		"#define TK_SQL_ANALYSIS_DROP \\\n");
	for (int i = 0; i < an->nt; i++)
		fprintf(f, "\t\"DROP TABLE IF EXISTS %s;\"%s\n", an->t[i].name,
			i + 1 < an->nt ? " \\" : "");
	fprintf(f, "\n#endif\n");
	return fclose(f) ? 1 : 0;
}

int main(int argc, char **argv)
{
	static struct schema a, b;
	if (argc == 5 && !strcmp(argv[1], "header")) {
		parse(&a, argv[2]);
		parse(&b, argv[3]);
		return header(&a, &b, argv[4]);
	}
	if (argc >= 3 && (!strcmp(argv[1], "tables") || !strcmp(argv[1], "links"))) {
		for (int i = 2; i < argc; i++) {
			memset(&a, 0, sizeof(a));
			parse(&a, argv[i]);
			for (int j = 0; j < a.nt; j++) {
				const struct table *t = &a.t[j];
				if (argv[1][0] == 't') {
					printf("%s", t->name);
					for (int c = 0; c < t->ncol; c++)
						printf(" %s", t->col[c]);
					printf("\n");
				} else if (*t->links[0] || *t->links[1]) {
					printf("%s written %s\n%s read %s\n", t->name, t->links[0],
					       t->name, t->links[1]);
				}
			}
		}
		return 0;
	}
	fprintf(stderr, "usage: schema_gen header STORE.sql ANALYSIS.sql OUT.h\n"
			"       schema_gen tables|links FILE.sql...\n");
	return 2;
}

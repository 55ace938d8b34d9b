/*
 * The TOML form of a gates file (docs/check.md, "Gates file"): the small subset of TOML the file
 * needs, read by hand. Comments; keys bare, "quoted" or 'literal', dotted; values: basic strings
 * (escapes \b \t \n \f \r \" \\ \uXXXX \UXXXXXXXX), literal strings, decimal integers and floats,
 * booleans, arrays of strings (over several lines, a trailing comma allowed); table headers
 * [max] and [min]. Anything else is an error naming the line: a typo must never disable a gate.
 */
#include "util/utf8.h"
#include <stdlib.h>
#include <string.h>
#include <tracekit/error.h>
#include <tracekit/text.h>

#include "gates_file.h"
#include "util/json_lex.h"
#include "util/vec.h"

enum table { TOP, MAX, MIN };

struct toml {
	struct tkc_gsink *k;
	const char *s;
	size_t len, pos;
	uint64_t line;
	enum table table;
	int seen[3]; /* tables headed: [max], [min] (and TOP: the gates key) */
	int seen_hw; /* allow_different_hardware given */
	char *tok;   /* the last string, key or number text read */
	size_t tlen, tcap;
	struct bkey *keys; /* the bounds' keys, for the duplicate check */
	size_t nkeys, kcap;
};

/* A bound's key and where it was, to find a key given twice in a table. */
struct bkey {
	char *key;
	int table;
	uint64_t line;
};

#define ERR(t, ...) tkc_gsink_fail((t)->k, TK_EFORMAT, (t)->line, 0, __VA_ARGS__)

static int peek(const struct toml *t)
{
	return t->pos < t->len ? (unsigned char)t->s[t->pos] : -1;
}

static int tok_push(struct toml *t, const char *p, size_t n)
{
	if (TKU_GROW(t->tok, t->tcap, t->tlen + n + 1, 64) != TK_OK)
		return tkc_gsink_fail(t->k, TK_ENOMEM, t->line, 0, "out of memory");
	memcpy(t->tok + t->tlen, p, n);
	t->tlen += n;
	t->tok[t->tlen] = 0;
	return TK_OK;
}

/* Every byte is checked once up front: valid UTF-8, no control character but tab and newline
 * (a carriage return only before a newline). */
static int check_text(struct toml *t)
{
	uint64_t line = 1;
	for (size_t i = 0; i < t->len;) {
		unsigned char c = (unsigned char)t->s[i];
		if (c == '\n')
			line++;
		if (c == '\r' && !(i + 1 < t->len && t->s[i + 1] == '\n'))
			return tkc_gsink_fail(t->k, TK_EFORMAT, line, 0,
					      "a carriage return not followed by a newline");
		if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7f)
			return tkc_gsink_fail(t->k, TK_EFORMAT, line, 0,
					      "control character 0x%02x (not allowed in TOML)", c);
		uint32_t cp;
		size_t n = tku_utf8_next(t->s + i, t->len - i, &cp);
		if (cp == 0xFFFD && n == 1)
			return tkc_gsink_fail(t->k, TK_EFORMAT, line, 0,
					      "invalid UTF-8 (byte 0x%02x)", c);
		i += n;
	}
	return TK_OK;
}

/* Skip spaces and tabs, and a comment up to (not including) the end of the line. */
static void skip_ws(struct toml *t)
{
	while (peek(t) == ' ' || peek(t) == '\t')
		t->pos++;
	if (peek(t) == '#')
		while (t->pos < t->len && t->s[t->pos] != '\n')
			t->pos++;
}

/* Skip blank lines, comments and spaces (where a newline may appear: between statements, inside
 * an array). */
static void skip_blank(struct toml *t)
{
	for (;;) {
		skip_ws(t);
		if (peek(t) == '\r')
			t->pos++; /* check_text(): a newline follows */
		if (peek(t) != '\n')
			return;
		t->pos++;
		t->line++;
	}
}

/* The end of a statement: spaces, a comment, then a newline or the end of the file. */
static int end_of_line(struct toml *t, const char *after)
{
	skip_ws(t);
	if (peek(t) == -1 || peek(t) == '\n' || peek(t) == '\r')
		return TK_OK;
	return ERR(t, "unexpected '%c' after %s (one entry per line)", peek(t), after);
}

static int utf8_push(struct toml *t, uint32_t cp)
{
	char b[4];
	if (cp == 0 || (cp >= 0xD800 && cp < 0xE000) || cp > 0x10FFFF)
		return ERR(t, "\\u escape of U+%04X: not a character allowed here", (unsigned)cp);
	size_t n = tku_utf8_encode(cp, b);
	return tok_push(t, b, n);
}

/* A "basic" or 'literal' string at pos (on its quote) into tok. */
static int string(struct toml *t)
{
	char q = t->s[t->pos++];
	t->tlen = 0;
	if (tok_push(t, "", 0))
		return TK_ENOMEM;
	if (peek(t) == q && t->pos + 1 < t->len && t->s[t->pos + 1] == q)
		return ERR(t, "multi-line strings are not supported in a gates file");
	for (;;) {
		int c = peek(t);
		if (c == -1 || c == '\n' || c == '\r')
			return ERR(t, "unterminated string (it must close on its line)");
		t->pos++;
		if (c == q)
			return TK_OK;
		if (c != '\\' || q == '\'') {
			char ch = (char)c;
			if (tok_push(t, &ch, 1))
				return TK_ENOMEM;
			continue;
		}
		c = peek(t);
		t->pos++;
		const char *simple = "b\bt\tn\nf\fr\r\"\"\\\\";
		const char *e = c > 0 ? strchr(simple, c) : NULL;
		if (e && (e - simple) % 2 == 0) {
			if (tok_push(t, e + 1, 1))
				return TK_ENOMEM;
			continue;
		}
		if (c != 'u' && c != 'U')
			return ERR(t,
				   "bad escape in a string (known: \\b \\t \\n \\f \\r \\\" \\\\ "
				   "\\uXXXX \\UXXXXXXXX)");
		int digits = c == 'u' ? 4 : 8;
		uint32_t cp = 0;
		for (int i = 0; i < digits; i++) {
			int h = peek(t);
			int v = h >= '0' && h <= '9'   ? h - '0'
				: h >= 'a' && h <= 'f' ? h - 'a' + 10
				: h >= 'A' && h <= 'F' ? h - 'A' + 10
						       : -1;
			if (v < 0)
				return ERR(t, "bad \\%c escape (%d hex digits expected)", c,
					   digits);
			cp = cp << 4 | (uint32_t)v;
			t->pos++;
		}
		if (utf8_push(t, cp))
			return TK_EFORMAT;
	}
}

static int is_bare(int c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '-';
}

/* A key (dotted parts joined by '.', each bare or quoted) into tok. */
static int key(struct toml *t, const char *what)
{
	char *joined = NULL;
	size_t jlen = 0, jcap = 0;
	int st = TK_OK;
	for (;;) {
		skip_ws(t);
		int c = peek(t);
		if (c == '"' || c == '\'') {
			if ((st = string(t)))
				goto out;
		} else if (is_bare(c)) {
			size_t b = t->pos;
			while (is_bare(peek(t)))
				t->pos++;
			t->tlen = 0;
			if ((st = tok_push(t, t->s + b, t->pos - b)))
				goto out;
		} else {
			st = c == -1 || c == '\n' || c == '\r'
				 ? ERR(t, "expected %s, found the end of the line", what)
				 : ERR(t, "expected %s, found '%c'", what, c);
			goto out;
		}
		if (TKU_GROW(joined, jcap, jlen + t->tlen + 2, 64) != TK_OK) {
			st = tkc_gsink_fail(t->k, TK_ENOMEM, t->line, 0, "out of memory");
			goto out;
		}
		if (jlen)
			joined[jlen++] = '.';
		memcpy(joined + jlen, t->tok, t->tlen + 1);
		jlen += t->tlen;
		skip_ws(t);
		if (peek(t) != '.')
			break;
		t->pos++;
	}
	t->tlen = 0;
	st = tok_push(t, joined, jlen);
out:
	free(joined);
	return st;
}

/* A number (decimal integer or float; '_' between digits) at pos into tok, without the '_'. */
static int number(struct toml *t)
{
	size_t b = t->pos;
	t->tlen = 0;
	if (tok_push(t, "", 0))
		return TK_ENOMEM;
	while (is_bare(peek(t)) || peek(t) == '.' || peek(t) == '+')
		t->pos++;
	const char *p = t->s + b, *e = t->s + t->pos;
	char prev = 0;
	for (const char *q = p; q < e; q++) {
		if (*q == '_') {
			if (!(prev >= '0' && prev <= '9') || q + 1 == e ||
			    !(q[1] >= '0' && q[1] <= '9'))
				return ERR(t, "'_' in a number goes between digits");
		} else if (tok_push(t, q, 1)) {
			return TK_ENOMEM;
		}
		prev = *q;
	}
	/* decimal only: [+-] digits [. digits] [(e|E) [+-] digits], no leading zero */
	const char *s = t->tok;
	if (*s == '+' || *s == '-')
		s++;
	int ok = *s >= '0' && *s <= '9' && !(s[0] == '0' && s[1] >= '0' && s[1] <= '9');
	while (*s >= '0' && *s <= '9')
		s++;
	if (ok && *s == '.') {
		s++;
		ok = *s >= '0' && *s <= '9';
		while (*s >= '0' && *s <= '9')
			s++;
	}
	if (ok && (*s == 'e' || *s == 'E')) {
		s++;
		if (*s == '+' || *s == '-')
			s++;
		ok = *s >= '0' && *s <= '9';
		while (*s >= '0' && *s <= '9')
			s++;
	}
	if (!ok || *s)
		return ERR(t, "'%.40s' is not a decimal number (a string needs quotes: \"150ms\")",
			   t->tok);
	return TK_OK;
}

static int add_key(struct toml *t, int table, const char *k)
{
	if (TKU_GROW(t->keys, t->kcap, t->nkeys + 1, 8) != TK_OK)
		return tkc_gsink_fail(t->k, TK_ENOMEM, t->line, 0, "out of memory");
	if (!(t->keys[t->nkeys].key = strdup(k)))
		return tkc_gsink_fail(t->k, TK_ENOMEM, t->line, 0, "out of memory");
	t->keys[t->nkeys].table = table;
	t->keys[t->nkeys++].line = t->line;
	return TK_OK;
}

/* The bound @k = value at pos in table @table (MAX or MIN). */
static int bound(struct toml *t, int table, const char *k)
{
	int c = peek(t), st;
	if (c == '"' || c == '\'') {
		if ((st = string(t)))
			return st;
	} else if (c == '+' || c == '-' || (c >= '0' && c <= '9')) {
		if ((st = number(t)))
			return st;
		char num[40];
		tkc_number_text(strtod(t->tok, NULL), num, sizeof(num));
		if (t->tok[0] == '-' || t->tok[0] == '+')
			return ERR(
			    t, "the bound of %.100s is a non-negative number, without a sign", k);
		t->tlen = 0;
		if ((st = tok_push(t, num, strlen(num))))
			return st;
	} else {
		return ERR(t,
			   "the bound of %.100s is a string with a unit (\"150ms\") or a number "
			   "in the metric's unit",
			   k);
	}
	if ((st = add_key(t, table, k)))
		return st;
	return tkc_gsink_bound(t->k, table == MAX, k, t->tok, t->line, 0);
}

/* The array of gate strings at pos ('['). */
static int gates_array(struct toml *t)
{
	t->pos++;
	for (;;) {
		skip_blank(t);
		int c = peek(t), st;
		if (c == ']') {
			t->pos++;
			return TK_OK;
		}
		if (c != '"' && c != '\'')
			return c == -1
				   ? ERR(t, "the gates array is not closed with ']'")
				   : ERR(t, "gates holds strings (\"step_time:+5%%\"), found '%c'",
					 c);
		if ((st = string(t)) ||
		    (st = tkc_gsink_gate(t->k, t->tok, TKC_GATE_REL, t->line, 0)))
			return st;
		skip_blank(t);
		c = peek(t);
		if (c == ',')
			t->pos++;
		else if (c != ']')
			return c == -1
				   ? ERR(t, "the gates array is not closed with ']'")
				   : ERR(t, "expected ',' or ']' in the gates array, found '%c'",
					 c);
	}
}

/* The literal @w at pos (not followed by a key character): consumed and 1, else 0. */
static int word(struct toml *t, const char *w)
{
	size_t n = strlen(w);
	if (t->len - t->pos < n || memcmp(t->s + t->pos, w, n) != 0)
		return 0;
	if (t->pos + n < t->len && is_bare((unsigned char)t->s[t->pos + n]))
		return 0;
	t->pos += n;
	return 1;
}

/* A key = value statement at pos, in the current table. */
static int key_value(struct toml *t)
{
	int st = key(t, "a key");
	if (st)
		return st;
	char *k = strdup(t->tok);
	if (!k)
		return tkc_gsink_fail(t->k, TK_ENOMEM, t->line, 0, "out of memory");
	skip_ws(t);
	if (peek(t) != '=') {
		st = ERR(t, "expected '=' after the key %.100s", k);
		goto out;
	}
	t->pos++;
	skip_ws(t);
	int c = peek(t);
	if (c == '{') {
		st = ERR(t, "inline tables are not supported: use a [max] or [min] table");
		goto out;
	}
	if (t->table != TOP &&
	    (strcmp(k, "gates") == 0 || strcmp(k, "allow_different_hardware") == 0)) {
		st = ERR(
		    t, "%s belongs before the first table header ([max] and [min] hold bounds)", k);
	} else if (t->table != TOP) {
		st = bound(t, t->table, k);
	} else if (strncmp(k, "max.", 4) == 0 || strncmp(k, "min.", 4) == 0) {
		st =
		    bound(t, k[1] == 'a' ? MAX : MIN, k + 4); /* max.step_time = ...: TOML dotted */
	} else if (strcmp(k, "gates") == 0) {
		if (t->seen[TOP]++)
			st = ERR(t, "gates is given twice");
		else if (c != '[')
			st = ERR(t, "gates is an array of strings: gates = [\"step_time:+5%%\"]");
		else
			st = gates_array(t);
	} else if (strcmp(k, "allow_different_hardware") == 0) {
		int v = word(t, "true") ? 1 : word(t, "false") ? 0 : -1;
		if (t->seen_hw++)
			st = ERR(t, "allow_different_hardware is given twice");
		else if (v < 0)
			st = ERR(t, "allow_different_hardware is true or false");
		t->k->allow_hw = v;
		t->k->has_allow_hw = 1;
	} else {
		st = ERR(t, "unknown key %.100s (known: " TKC_GATES_KEYS ")", k);
	}
	if (st == TK_OK)
		st = end_of_line(t, "the value");
out:
	free(k);
	return st;
}

/* A table header at pos ('['). */
static int header(struct toml *t)
{
	t->pos++;
	if (peek(t) == '[')
		return ERR(t, "arrays of tables ([[...]]) are not supported in a gates file");
	int st = key(t, "a table name");
	if (st)
		return st;
	if (peek(t) != ']')
		return ERR(t, "expected ']' after the table name");
	t->pos++;
	enum table tb = strcmp(t->tok, "max") == 0 ? MAX : strcmp(t->tok, "min") == 0 ? MIN : TOP;
	if (tb == TOP)
		return ERR(t, "unknown table [%.100s] (known: [max], [min])", t->tok);
	if (t->seen[tb]++)
		return ERR(t, "table [%s] is given twice", t->tok);
	t->table = tb;
	return end_of_line(t, "the table header");
}

static int bkey_cmp(const void *a, const void *b)
{
	const struct bkey *x = a, *y = b;
	int c = x->table - y->table;
	if (!c)
		c = strcmp(x->key, y->key);
	return c ? c : (x->line > y->line) - (x->line < y->line);
}

/* A bound's key given twice in one table (TOML forbids it; it is a typo in a gates file). */
static int check_keys(struct toml *t)
{
	if (t->nkeys < 2)
		return TK_OK;
	qsort(t->keys, t->nkeys, sizeof(*t->keys), bkey_cmp);
	const struct bkey *dup = NULL;
	for (size_t i = 1; i < t->nkeys; i++) {
		const struct bkey *a = &t->keys[i - 1], *b = &t->keys[i];
		if (a->table == b->table && strcmp(a->key, b->key) == 0 &&
		    (!dup || b->line < dup->line))
			dup = b;
	}
	if (!dup)
		return TK_OK;
	return tkc_gsink_fail(t->k, TK_EFORMAT, dup->line, 0, "%.100s is given twice in [%s]",
			      dup->key, dup->table == MAX ? "max" : "min");
}

int tkc_gates_toml(struct tkc_gsink *k, const char *s, size_t len)
{
	struct toml t = {.k = k, .s = s, .len = len, .line = 1};
	int st = check_text(&t);
	if (!st && len >= 3 && memcmp(s, "\xef\xbb\xbf", 3) == 0)
		t.pos = 3;
	while (!st) {
		skip_blank(&t);
		if (peek(&t) == -1)
			break;
		st = peek(&t) == '[' ? header(&t) : key_value(&t);
	}
	if (!st)
		st = check_keys(&t);
	for (size_t i = 0; i < t.nkeys; i++)
		free(t.keys[i].key);
	free(t.keys);
	free(t.tok);
	return st;
}

/*
 * A bounded JSON DOM for small hostile files (json_dom.h), built over the streaming tokenizer.
 * The parser is a loop over an explicit stack of open containers (at most TKU_JSON_MAX_DEPTH): each
 * open container collects its members in arrays that grow by doubling, and is moved by value into
 * its parent when it closes, so no pointer into a growing array is ever kept. Duplicate keys are
 * found by sorting an object's keys when it closes (n log n). Memory is O(decoded size).
 */
#include "util/json_dom.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <tracekit/error.h>

#include "util/json_lex.h"
#include "util/vec.h"

/* An open container: its value (items/keys/n growing) and the key awaiting its value. */
struct frame {
	struct tku_json_value v;
	size_t cap;
	char *key;
};

struct dom {
	const char *path;
	struct tku_json_lex lx;
	size_t max_bytes;
	struct frame st[TKU_JSON_MAX_DEPTH];
	int depth;
	char *err;
	size_t errlen;
};

static void free_contents(struct tku_json_value *v)
{
	free(v->str);
	for (size_t i = 0; i < v->n; i++) {
		free_contents(&v->items[i]); /* recursion bounded by the depth limit */
		if (v->keys)
			free(v->keys[i]);
	}
	free(v->items);
	free(v->keys);
}

void tku_json_free(struct tku_json_value *v)
{
	if (!v)
		return;
	free_contents(v);
	free(v);
}

const struct tku_json_value *tku_json_get(const struct tku_json_value *obj, const char *key)
{
	if (!obj || obj->type != TKU_JSON_OBJECT || !key)
		return NULL;
	for (size_t i = 0; i < obj->n; i++)
		if (strcmp(obj->keys[i], key) == 0)
			return &obj->items[i];
	return NULL;
}

static int fail_at(struct dom *d, int status, uint64_t line, uint64_t col, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static int fail_at(struct dom *d, int status, uint64_t line, uint64_t col, const char *fmt, ...)
{
	char msg[320];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (d->err && d->errlen)
		snprintf(d->err, d->errlen, "'%s': line %llu, column %llu: %s", d->path,
			 (unsigned long long)line, (unsigned long long)col, msg);
	return status;
}

/* The next token, or an error status: the lexer's own, or the size limit. */
static int next(struct dom *d, enum tku_json_tok *t)
{
	*t = tku_json_lex_next(&d->lx);
	if (*t == TKU_JT_ERROR) {
		int st = strncmp(d->lx.msg, "cannot read", 11) == 0 ? TK_EIO : TK_EFORMAT;
		return fail_at(d, st, d->lx.err_line, d->lx.err_col, "%s", d->lx.msg);
	}
	if (d->lx.buf_off + d->lx.pos > d->max_bytes)
		return fail_at(d, TK_EFORMAT, d->lx.tok_line, d->lx.tok_col,
			       "the file is larger than %zu bytes (decoded): refused",
			       d->max_bytes);
	return TK_OK;
}

/* A scalar token into @v; TK_EFORMAT when @t starts no value. */
static int scalar(struct dom *d, enum tku_json_tok t, struct tku_json_value *v, const char *want)
{
	memset(v, 0, sizeof(*v));
	v->line = d->lx.tok_line;
	v->col = d->lx.tok_col;
	switch (t) {
	case TKU_JT_NULL:
		v->type = TKU_JSON_NULL;
		return TK_OK;
	case TKU_JT_TRUE:
	case TKU_JT_FALSE:
		v->type = TKU_JSON_BOOL;
		v->b = t == TKU_JT_TRUE;
		return TK_OK;
	case TKU_JT_NUMBER:
		v->type = TKU_JSON_NUMBER;
		v->num = strtod(d->lx.str, NULL);
		if (!isfinite(v->num))
			return fail_at(d, TK_EFORMAT, v->line, v->col, "number %s is out of range",
				       d->lx.str);
		return TK_OK;
	case TKU_JT_STRING:
		v->type = TKU_JSON_STRING;
		v->len = d->lx.slen;
		v->str = malloc(v->len + 1);
		if (!v->str)
			return fail_at(d, TK_ENOMEM, v->line, v->col, "out of memory");
		memcpy(v->str, d->lx.str, v->len + 1);
		return TK_OK;
	default:
		return fail_at(d, TK_EFORMAT, v->line, v->col, "expected %s, found %s", want,
			       tku_json_tok_name(t));
	}
}

static int push(struct dom *d, enum tku_json_type type)
{
	if (d->depth == TKU_JSON_MAX_DEPTH)
		return fail_at(d, TK_EFORMAT, d->lx.tok_line, d->lx.tok_col,
			       "nesting deeper than %d levels", TKU_JSON_MAX_DEPTH);
	struct frame *f = &d->st[d->depth++];
	memset(f, 0, sizeof(*f));
	f->v.type = type;
	f->v.line = d->lx.tok_line;
	f->v.col = d->lx.tok_col;
	return TK_OK;
}

/* Append @v (and the pending key, for an object) to the innermost container; owns @v after. */
static int append(struct dom *d, struct tku_json_value *v)
{
	struct frame *f = &d->st[d->depth - 1];
	if (f->v.n == f->cap) { /* items and keys share cap */
		size_t cap = tku_grow_cap(f->cap, f->v.n + 1, sizeof(*f->v.items), 4);
		struct tku_json_value *items =
		    cap ? tku_reallocn(f->v.items, cap, sizeof(*items)) : NULL;
		if (items)
			f->v.items = items;
		if (items && f->v.type == TKU_JSON_OBJECT) {
			char **keys = tku_reallocn(f->v.keys, cap, sizeof(*keys));
			if (keys)
				f->v.keys = keys;
			else
				items = NULL;
		}
		if (!items) {
			free_contents(v);
			return fail_at(d, TK_ENOMEM, v->line, v->col, "out of memory");
		}
		f->cap = cap;
	}
	f->v.items[f->v.n] = *v;
	if (f->v.type == TKU_JSON_OBJECT) {
		f->v.keys[f->v.n] = f->key;
		f->key = NULL;
	}
	f->v.n++;
	return TK_OK;
}

struct key_ix {
	const char *key;
	size_t i;
};

static int key_cmp(const void *a, const void *b)
{
	const struct key_ix *x = a, *y = b;
	int c = strcmp(x->key, y->key);
	return c ? c : (x->i > y->i) - (x->i < y->i);
}

/* TK_OK when no key of @o is there twice, else the error naming the first repeat in file order
 * (keys compare as C strings: two that differ only after a raw NUL byte are the same key). */
static int check_keys(struct dom *d, const struct tku_json_value *o)
{
	if (o->n < 2)
		return TK_OK;
	struct key_ix *ix = malloc(o->n * sizeof(*ix));
	if (!ix)
		return fail_at(d, TK_ENOMEM, o->line, o->col, "out of memory");
	for (size_t i = 0; i < o->n; i++)
		ix[i] = (struct key_ix){o->keys[i], i};
	qsort(ix, o->n, sizeof(*ix), key_cmp);
	size_t dup = o->n, first = 0;
	for (size_t i = 1; i < o->n; i++)
		if (strcmp(ix[i - 1].key, ix[i].key) == 0 && ix[i].i < dup) {
			dup = ix[i].i;
			first = ix[i - 1].i;
		}
	free(ix);
	if (dup == o->n)
		return TK_OK;
	return fail_at(d, TK_EFORMAT, o->items[dup].line, o->items[dup].col,
		       "key \"%.80s\" appears twice in one object (first at line %llu)",
		       o->keys[dup], (unsigned long long)o->items[first].line);
}

/* Expect a key string and ':' in the innermost object, then read the token after the ':'. */
static int member_key(struct dom *d, enum tku_json_tok *t, const char *want)
{
	if (*t != TKU_JT_STRING)
		return fail_at(d, TK_EFORMAT, d->lx.tok_line, d->lx.tok_col,
			       "expected %s, found %s", want, tku_json_tok_name(*t));
	struct frame *f = &d->st[d->depth - 1];
	f->key = malloc(d->lx.slen + 1);
	if (!f->key)
		return fail_at(d, TK_ENOMEM, d->lx.tok_line, d->lx.tok_col, "out of memory");
	memcpy(f->key, d->lx.str, d->lx.slen + 1);
	int st = next(d, t);
	if (st)
		return st;
	if (*t != TKU_JT_COLON)
		return fail_at(d, TK_EFORMAT, d->lx.tok_line, d->lx.tok_col,
			       "expected ':' after an object key, found %s", tku_json_tok_name(*t));
	return next(d, t);
}

static int parse(struct dom *d, struct tku_json_value *root)
{
	enum tku_json_tok t;
	struct tku_json_value v;
	int st = next(d, &t);
	if (st)
		return st;
	for (;;) {
		/* t starts a value */
		if (t == TKU_JT_LBRACE || t == TKU_JT_LBRACK) {
			int obj = t == TKU_JT_LBRACE;
			if ((st = push(d, obj ? TKU_JSON_OBJECT : TKU_JSON_ARRAY)) ||
			    (st = next(d, &t)))
				return st;
			if (t == (obj ? TKU_JT_RBRACE : TKU_JT_RBRACK)) {
				v = d->st[--d->depth].v;
			} else {
				if (obj && (st = member_key(d, &t, "a key string or '}'")))
					return st;
				continue;
			}
		} else if ((st = scalar(d, t, &v, "a value"))) {
			return st;
		}
		/* v is a complete value: hand it to its container, close the containers it ends */
		for (;;) {
			if (d->depth == 0) {
				*root = v;
				if ((st = next(d, &t)))
					return st;
				if (t != TKU_JT_EOF)
					return fail_at(d, TK_EFORMAT, d->lx.tok_line, d->lx.tok_col,
						       "trailing content after the JSON value: %s",
						       tku_json_tok_name(t));
				return TK_OK;
			}
			if ((st = append(d, &v)) || (st = next(d, &t)))
				return st;
			struct frame *f = &d->st[d->depth - 1];
			int obj = f->v.type == TKU_JSON_OBJECT;
			if (t == TKU_JT_COMMA) {
				if ((st = next(d, &t)))
					return st;
				if (obj && (st = member_key(d, &t, "a key string after ','")))
					return st;
				break;
			}
			if (t != (obj ? TKU_JT_RBRACE : TKU_JT_RBRACK))
				return fail_at(
				    d, TK_EFORMAT, d->lx.tok_line, d->lx.tok_col,
				    obj ? "expected ',' or '}' after an object member, found %s"
					: "expected ',' or ']' after an array element, found %s",
				    tku_json_tok_name(t));
			if (obj && (st = check_keys(d, &f->v)))
				return st;
			v = f->v;
			d->depth--;
		}
	}
}

int tku_json_parse_file(const char *path, size_t max_bytes, struct tku_json_value **out, char *err,
			size_t errlen)
{
	struct dom *d = calloc(1, sizeof(*d));
	struct tku_json_value *root = calloc(1, sizeof(*root));
	int st = TK_OK;
	*out = NULL;
	if (!d || !root) {
		if (err && errlen)
			snprintf(err, errlen, "'%s': out of memory", path);
		st = TK_ENOMEM;
		goto out;
	}
	d->lx.fd = -1; /* closed below only when opened */
	d->path = path;
	d->max_bytes = max_bytes;
	d->err = err;
	d->errlen = errlen;
	if (tku_json_lex_open(&d->lx, path) != 0) {
		int oom = strcmp(d->lx.msg, "out of memory") == 0;
		if (err && errlen)
			snprintf(err, errlen, "'%s': %s", path, d->lx.msg);
		st = oom ? TK_ENOMEM : TK_EIO;
		goto out;
	}
	struct stat sb;
	if (!d->lx.is_gz && fstat(d->lx.fd, &sb) == 0 && S_ISREG(sb.st_mode) &&
	    (uint64_t)sb.st_size > max_bytes) {
		if (err && errlen)
			snprintf(err, errlen, "'%s': the file is larger than %zu bytes: refused",
				 path, max_bytes);
		st = TK_EFORMAT;
		goto out;
	}
	st = parse(d, root);
out:
	if (d) {
		for (int i = 0; i < d->depth; i++) {
			free_contents(&d->st[i].v);
			free(d->st[i].key);
		}
		tku_json_lex_close(&d->lx);
	}
	free(d);
	if (st == TK_OK)
		*out = root;
	else
		tku_json_free(root);
	return st;
}

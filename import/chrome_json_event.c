/*
 * Parsing one Chrome trace event object into a flat, arena-backed record (see
 * chrome_json_event.h), depth-bounded skipping of values, and the exact decimal-to-integer
 * helpers used for timestamps (no double is ever involved in a time value).
 */
#include "chrome_json_event.h"

#include <stdlib.h>
#include <string.h>

void cj_event_free(struct cj_event *e)
{
	free(e->args);
	free(e->arena);
	memset(e, 0, sizeof(*e));
}

/* Append @n bytes to the arena; the offset where they start, or UINT32_MAX when too big. The
 * growth rules of the arena and of the arguments are written out, not TKU_GROW (util/vec.h):
 * the importer's hot path, where it measured slower. */
static uint32_t arena_put(struct cj_event *e, const char *p, size_t n)
{
	if (e->alen + n + 1 > e->acap) {
		if (e->alen + n + 1 > CJ_MAX_EVENT_BYTES)
			return UINT32_MAX;
		size_t cap = e->acap ? e->acap : 4096;
		while (cap < e->alen + n + 1)
			cap *= 2;
		char *a = realloc(e->arena, cap);
		if (!a)
			return UINT32_MAX;
		e->arena = a;
		e->acap = cap;
	}
	uint32_t off = (uint32_t)e->alen;
	memcpy(e->arena + e->alen, p, n);
	e->alen += n;
	return off;
}

static int arena_str(struct tku_json_lex *lx, struct cj_event *e, const char *s, size_t n,
		     uint32_t *off)
{
	*off = arena_put(e, s, n);
	if (*off == UINT32_MAX || arena_put(e, "", 1) == UINT32_MAX) {
		tku_json_lex_error(lx, "event larger than %u bytes", CJ_MAX_EVENT_BYTES);
		return -1;
	}
	return 0;
}

int json_skip_value(struct tku_json_lex *lx, enum tku_json_tok t, int depth)
{
	switch (t) {
	case TKU_JT_STRING:
	case TKU_JT_NUMBER:
	case TKU_JT_TRUE:
	case TKU_JT_FALSE:
	case TKU_JT_NULL:
		return 0;
	case TKU_JT_LBRACE:
	case TKU_JT_LBRACK: {
		if (depth >= TKU_JSON_MAX_DEPTH) {
			tku_json_lex_error(lx, "nesting deeper than %d levels", TKU_JSON_MAX_DEPTH);
			return -1;
		}
		int obj = t == TKU_JT_LBRACE;
		enum tku_json_tok close = obj ? TKU_JT_RBRACE : TKU_JT_RBRACK;
		t = tku_json_lex_next(lx);
		if (t == close)
			return 0;
		for (;;) {
			if (obj) {
				if (t != TKU_JT_STRING)
					goto bad_key;
				if ((t = tku_json_lex_next(lx)) != TKU_JT_COLON)
					goto bad_colon;
				t = tku_json_lex_next(lx);
			}
			if (json_skip_value(lx, t, depth + 1) != 0)
				return -1;
			t = tku_json_lex_next(lx);
			if (t == close)
				return 0;
			if (t != TKU_JT_COMMA) {
				if (t != TKU_JT_ERROR)
					tku_json_lex_error(lx, "expected ',' or %s, found %s",
							   tku_json_tok_name(close),
							   tku_json_tok_name(t));
				return -1;
			}
			t = tku_json_lex_next(lx);
			if (t == close)
				return 0; /* a trailing comma, as Perfetto accepts */
		}
	bad_key:
		if (t != TKU_JT_ERROR)
			tku_json_lex_error(lx, "expected a string key, found %s",
					   tku_json_tok_name(t));
		return -1;
	bad_colon:
		if (t != TKU_JT_ERROR)
			tku_json_lex_error(lx, "expected ':' after a key, found %s",
					   tku_json_tok_name(t));
		return -1;
	}
	case TKU_JT_ERROR:
		return -1;
	default:
		tku_json_lex_error(lx, "expected a value, found %s", tku_json_tok_name(t));
		return -1;
	}
}

/* Append @s as a JSON string literal to the arena (no terminator). */
static int put_quoted(struct tku_json_lex *lx, struct cj_event *e, const char *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	if (arena_put(e, "\"", 1) == UINT32_MAX)
		goto big;
	size_t i = 0;
	while (i < n) {
		size_t j = i;
		while (j < n && s[j] != '"' && s[j] != '\\' && (unsigned char)s[j] >= 0x20)
			j++;
		if (j > i && arena_put(e, s + i, j - i) == UINT32_MAX)
			goto big;
		if (j == n)
			break;
		char esc[6] = {'\\', s[j], 0, 0, 0, 0};
		size_t k = 2;
		if ((unsigned char)s[j] < 0x20) {
			esc[1] = 'u';
			esc[2] = '0';
			esc[3] = '0';
			esc[4] = hex[(unsigned char)s[j] >> 4];
			esc[5] = hex[s[j] & 15];
			k = 6;
		}
		if (arena_put(e, esc, k) == UINT32_MAX)
			goto big;
		i = j + 1;
	}
	if (arena_put(e, "\"", 1) == UINT32_MAX)
		goto big;
	return 0;
big:
	tku_json_lex_error(lx, "event larger than %u bytes", CJ_MAX_EVENT_BYTES);
	return -1;
}

/* Write the value starting with token @t as compact JSON into the arena (no terminator). */
static int put_compact(struct tku_json_lex *lx, struct cj_event *e, enum tku_json_tok t, int depth)
{
	const char *word = NULL;
	switch (t) {
	case TKU_JT_STRING:
		return put_quoted(lx, e, lx->str, lx->slen);
	case TKU_JT_NUMBER:
		word = lx->str;
		break;
	case TKU_JT_TRUE:
		word = "true";
		break;
	case TKU_JT_FALSE:
		word = "false";
		break;
	case TKU_JT_NULL:
		word = "null";
		break;
	case TKU_JT_LBRACE:
	case TKU_JT_LBRACK: {
		if (depth >= TKU_JSON_MAX_DEPTH) {
			tku_json_lex_error(lx, "nesting deeper than %d levels", TKU_JSON_MAX_DEPTH);
			return -1;
		}
		int obj = t == TKU_JT_LBRACE;
		enum tku_json_tok close = obj ? TKU_JT_RBRACE : TKU_JT_RBRACK;
		if (arena_put(e, obj ? "{" : "[", 1) == UINT32_MAX)
			goto big;
		t = tku_json_lex_next(lx);
		int first = 1;
		while (t != close) {
			if (!first) {
				if (t != TKU_JT_COMMA) {
					if (t != TKU_JT_ERROR)
						tku_json_lex_error(
						    lx, "expected ',' or %s, found %s",
						    tku_json_tok_name(close), tku_json_tok_name(t));
					return -1;
				}
				t = tku_json_lex_next(lx);
				if (t == close)
					break; /* a trailing comma, as Perfetto accepts */
				if (arena_put(e, ",", 1) == UINT32_MAX)
					goto big;
			}
			first = 0;
			if (obj) {
				if (t != TKU_JT_STRING) {
					if (t != TKU_JT_ERROR)
						tku_json_lex_error(
						    lx, "expected a string key, found %s",
						    tku_json_tok_name(t));
					return -1;
				}
				if (put_quoted(lx, e, lx->str, lx->slen) != 0 ||
				    arena_put(e, ":", 1) == UINT32_MAX)
					return -1;
				if ((t = tku_json_lex_next(lx)) != TKU_JT_COLON) {
					if (t != TKU_JT_ERROR)
						tku_json_lex_error(
						    lx, "expected ':' after a key, found %s",
						    tku_json_tok_name(t));
					return -1;
				}
				t = tku_json_lex_next(lx);
			}
			if (put_compact(lx, e, t, depth + 1) != 0)
				return -1;
			t = tku_json_lex_next(lx);
		}
		if (arena_put(e, obj ? "}" : "]", 1) == UINT32_MAX)
			goto big;
		return 0;
	}
	case TKU_JT_ERROR:
		return -1;
	default:
		tku_json_lex_error(lx, "expected a value, found %s", tku_json_tok_name(t));
		return -1;
	}
	if (arena_put(e, word, strlen(word)) == UINT32_MAX)
		goto big;
	return 0;
big:
	tku_json_lex_error(lx, "event larger than %u bytes", CJ_MAX_EVENT_BYTES);
	return -1;
}

/* Read the value starting with @t into @v. */
static int read_value(struct tku_json_lex *lx, struct cj_event *e, enum tku_json_tok t, int depth,
		      struct cj_val *v)
{
	switch (t) {
	case TKU_JT_STRING:
	case TKU_JT_NUMBER:
		v->type = t == TKU_JT_STRING ? CJV_STR : CJV_NUM;
		v->len = (uint32_t)lx->slen;
		return arena_str(lx, e, lx->str, lx->slen, &v->off);
	case TKU_JT_TRUE:
		v->type = CJV_TRUE;
		v->len = 4;
		return arena_str(lx, e, "true", 4, &v->off);
	case TKU_JT_FALSE:
		v->type = CJV_FALSE;
		v->len = 5;
		return arena_str(lx, e, "false", 5, &v->off);
	case TKU_JT_NULL:
		v->type = CJV_NULL;
		v->len = 4;
		return arena_str(lx, e, "null", 4, &v->off);
	default:
		v->type = CJV_RAW;
		v->off = (uint32_t)e->alen;
		if (put_compact(lx, e, t, depth) != 0)
			return -1;
		v->len = (uint32_t)(e->alen - v->off);
		if (arena_put(e, "", 1) == UINT32_MAX) {
			tku_json_lex_error(lx, "event larger than %u bytes", CJ_MAX_EVENT_BYTES);
			return -1;
		}
		return 0;
	}
}

static struct cj_arg *new_arg(struct tku_json_lex *lx, struct cj_event *e)
{
	if (e->nargs == e->cap_args) {
		size_t cap = e->cap_args ? e->cap_args * 2 : 32;
		if (cap > (1u << 20)) {
			tku_json_lex_error(lx, "event with more than %u arguments", 1u << 20);
			return NULL;
		}
		struct cj_arg *a = realloc(e->args, cap * sizeof(*a));
		if (!a) {
			tku_json_lex_error(lx, "out of memory");
			return NULL;
		}
		e->args = a;
		e->cap_args = cap;
	}
	return &e->args[e->nargs++];
}

/* Read the members of an object whose '{' was consumed, into args (top = @top). */
static int read_members(struct tku_json_lex *lx, struct cj_event *e, int depth, int top, int light)
{
	enum tku_json_tok t = tku_json_lex_next(lx);
	if (t == TKU_JT_RBRACE)
		return 0;
	for (;;) {
		if (t != TKU_JT_STRING) {
			if (t != TKU_JT_ERROR)
				tku_json_lex_error(lx, "expected a string key, found %s",
						   tku_json_tok_name(t));
			return -1;
		}
		struct cj_val *known = NULL;
		const char *k = lx->str;
		if (top) {
			if (!strcmp(k, "ph"))
				known = &e->ph;
			else if (!strcmp(k, "pid"))
				known = &e->pid;
			else if (!strcmp(k, "cat"))
				known = &e->cat;
			else if (!strcmp(k, "name"))
				known = &e->name;
			else if (!strcmp(k, "tid"))
				known = &e->tid;
			else if (!strcmp(k, "ts"))
				known = &e->ts;
			else if (!strcmp(k, "dur"))
				known = &e->dur;
			else if (!strcmp(k, "id"))
				known = &e->id;
			else if (!strcmp(k, "id2"))
				known = &e->id2;
			else if (!strcmp(k, "bp"))
				known = &e->bp;
			else if (!strcmp(k, "bind_id"))
				known = &e->bind_id;
			else if (!strcmp(k, "s"))
				known = &e->scope;
		}
		int is_args = top && !known && !strcmp(k, "args");
		uint32_t key = 0, klen = (uint32_t)lx->slen;
		if (!known && !is_args && arena_str(lx, e, lx->str, lx->slen, &key) != 0)
			return -1;
		if ((t = tku_json_lex_next(lx)) != TKU_JT_COLON) {
			if (t != TKU_JT_ERROR)
				tku_json_lex_error(lx, "expected ':' after a key, found %s",
						   tku_json_tok_name(t));
			return -1;
		}
		t = tku_json_lex_next(lx);
		if (is_args && light &&
		    !(e->ph.type == CJV_STR && !strcmp(cj_str(e, e->ph), "M"))) {
			if (json_skip_value(lx, t, depth + 1) != 0)
				return -1;
		} else if (is_args && t == TKU_JT_LBRACE) {
			if (depth + 1 > TKU_JSON_MAX_DEPTH) {
				tku_json_lex_error(lx, "nesting deeper than %d levels",
						   TKU_JSON_MAX_DEPTH);
				return -1;
			}
			if (read_members(lx, e, depth + 1, 0, 0) != 0)
				return -1;
		} else if (known) {
			if (read_value(lx, e, t, depth + 1, known) != 0)
				return -1;
		} else {
			if (is_args && arena_str(lx, e, "args", 4, &key) != 0)
				return -1;
			struct cj_arg *a = new_arg(lx, e);
			if (!a)
				return -1;
			a->key = key;
			a->klen = klen;
			a->top = top;
			if (read_value(lx, e, t, depth + 1, &a->v) != 0)
				return -1;
		}
		t = tku_json_lex_next(lx);
		if (t == TKU_JT_RBRACE)
			return 0;
		if (t != TKU_JT_COMMA) {
			if (t != TKU_JT_ERROR)
				tku_json_lex_error(lx, "expected ',' or '}', found %s",
						   tku_json_tok_name(t));
			return -1;
		}
		t = tku_json_lex_next(lx);
		if (t == TKU_JT_RBRACE)
			return 0; /* a trailing comma, as Perfetto accepts */
	}
}

static int parse(struct tku_json_lex *lx, struct cj_event *e, int depth, int light);

int cj_event_parse(struct tku_json_lex *lx, struct cj_event *e, int depth)
{
	return parse(lx, e, depth, 0);
}

int cj_event_parse_light(struct tku_json_lex *lx, struct cj_event *e, int depth)
{
	return parse(lx, e, depth, 1);
}

static int parse(struct tku_json_lex *lx, struct cj_event *e, int depth, int light)
{
	e->line = lx->tok_line;
	e->col = lx->tok_col;
	e->alen = 0;
	e->nargs = 0;
	struct cj_val none = {CJV_NONE, 0, 0};
	e->ph = e->cat = e->name = e->pid = e->tid = e->ts = e->dur = none;
	e->id = e->id2 = e->bp = e->scope = e->bind_id = none;
	if (arena_put(e, "", 1) == UINT32_MAX) { /* offset 0 is the empty string */
		tku_json_lex_error(lx, "out of memory");
		return -1;
	}
	return read_members(lx, e, depth, 1, light);
}

/* "[-]digits[.d[d[d]]]" µs (at most 16 integer digits): the common case, done directly. */
static int time_us_fast(const char *s, int64_t *out)
{
	static const uint64_t scale[4] = {1000, 100, 10, 1};
	int neg = *s == '-';
	const char *p = s + neg;
	uint64_t ip = 0, fp = 0;
	int n = 0, nf = 0;
	for (; n < 16 && (unsigned)(p[n] - '0') < 10; n++)
		ip = ip * 10 + (uint64_t)(p[n] - '0');
	if (n == 0)
		return -1;
	p += n;
	if (*p == '.') {
		p++;
		for (; nf < 3 && (unsigned)(p[nf] - '0') < 10; nf++)
			fp = fp * 10 + (uint64_t)(p[nf] - '0');
		if (nf == 0)
			return -1;
		p += nf;
	}
	uint64_t v = ip * 1000 + fp * scale[nf];
	if (*p || v > (uint64_t)INT64_MAX)
		return -1;
	*out = neg ? -(int64_t)v : (int64_t)v;
	return 0;
}

int cj_time_ns(const char *s, int scale_exp10, int64_t *out)
{
	if (scale_exp10 == 3 && time_us_fast(s, out) == 0)
		return 0;
	int neg = 0;
	if (*s == '-' || *s == '+')
		neg = *s++ == '-';
	/* significant digits (leading zeros dropped) and the exponent of the last one */
	char dig[400];
	int nd = 0, exp10 = 0, seen = 0, frac = 0;
	for (; (*s >= '0' && *s <= '9') || *s == '.'; s++) {
		if (*s == '.') {
			if (frac)
				return -1;
			frac = 1;
			continue;
		}
		seen = 1;
		if (nd == 0 && *s == '0') {
			if (frac)
				exp10--;
			continue;
		}
		if (nd >= (int)sizeof(dig))
			return -1;
		dig[nd++] = *s;
		if (frac)
			exp10--;
	}
	if (!seen)
		return -1;
	if (*s == 'e' || *s == 'E') {
		s++;
		int eneg = 0;
		if (*s == '-' || *s == '+')
			eneg = *s++ == '-';
		if (!(*s >= '0' && *s <= '9'))
			return -1;
		long e = 0;
		for (; *s >= '0' && *s <= '9'; s++)
			if (e < 100000)
				e = e * 10 + (*s - '0');
		exp10 += eneg ? -(int)e : (int)e;
	}
	if (*s)
		return -1;
	exp10 += scale_exp10;
	/* value = dig * 10^exp10 */
	uint64_t v = 0;
	int keep = exp10 >= 0 ? nd : nd + exp10; /* digits that stay in the integer part */
	int round_at = keep; /* index of the first dropped digit (the 10^-1 place), when >= 0 */
	if (keep < 0)
		keep = 0;
	for (int i = 0; i < keep && i < nd; i++) {
		if (v > (UINT64_MAX - 9) / 10)
			return -1;
		v = v * 10 + (uint64_t)(dig[i] - '0');
	}
	if (exp10 > 0) {
		if (nd == 0)
			exp10 = 0;
		for (int i = 0; i < exp10; i++) {
			if (v > UINT64_MAX / 10)
				return -1;
			v *= 10;
		}
	} else if (round_at >= 0 && round_at < nd && dig[round_at] >= '5') {
		v++; /* round half away from zero on the first dropped digit */
	}
	if (v > (uint64_t)INT64_MAX)
		return -1;
	*out = neg ? -(int64_t)v : (int64_t)v;
	return 0;
}

/* "[-]digits" with at most 18 digits, directly; 1 when @s is something else. */
static int int_fast(const char *s, int64_t *out)
{
	int neg = *s == '-';
	const char *p = s + neg;
	uint64_t v = 0;
	int n = 0;
	for (; n < 19 && (unsigned)(p[n] - '0') < 10; n++)
		v = v * 10 + (uint64_t)(p[n] - '0');
	if (n == 0 || n > 18 || p[n])
		return 1;
	*out = neg ? -(int64_t)v : (int64_t)v;
	return 0;
}

int cj_plain_int(const char *s, int64_t *out)
{
	int r = int_fast(s, out);
	if (r <= 0)
		return r;
	return cj_int(s, out) == 0 && !strchr(s, '.') ? 0 : -1;
}

int cj_int(const char *s, int64_t *out)
{
	if (int_fast(s, out) == 0)
		return 0;
	const char *p = s;
	if (*p == '-')
		p++;
	if (!(*p >= '0' && *p <= '9'))
		return -1;
	const char *q = p;
	while (*q >= '0' && *q <= '9')
		q++;
	if (*q == '.') {
		const char *r = q + 1;
		while (*r == '0')
			r++;
		if (*r)
			return -1;
	} else if (*q) {
		return -1;
	}
	return cj_time_ns(s, 0, out);
}

/*
 * Fast path of the Chrome trace event parser (cj_event_fast(), see chrome_json_event.h). One
 * event object is parsed straight out of the lexer's buffer with a pointer, instead of token by
 * token: the usual keys are recognised from one 8-byte load and never copied, other keys by
 * length and bytes; strings are scanned eight bytes at a time and copied once, unescaped, into
 * the event's arena; nested values are checked and written as compact JSON on the way. The
 * record it fills is the one the exact parser (chrome_json_event.c) fills, escapes and
 * surrogate pairs decoded the same way.
 *
 * Whatever it does not handle exactly like the exact parser makes it give up before touching the
 * lexer: the event running past the buffered bytes (about one event per MiB of input), raw
 * control characters inside strings (the lexer counts their newlines), nesting deeper than
 * FP_MAX_LEVEL, and every kind of invalid JSON. The exact parser then reads that event, and
 * reports the error with its place when there is one. Workload: every event of both passes, the
 * importer's hot loop (about 1 GB/s of Kineto text). tests/import/test_json_fast.c checks it
 * against the exact parser.
 */
#include "util/utf8.h"
#include <stdlib.h>
#include <string.h>

#include "chrome_json_event.h"

#define FP_MAX_LEVEL 40 /* nested containers handled here (the exact parser allows about 60) */

enum { FS_SKIP, FS_STORE, FS_QUOTE }; /* what to do with a value: check, keep, keep as JSON */

/*
 * The parse: where it is in the lexer's buffer, the line count, and the event being filled.
 * Output goes to the event's arena through a cursor that the functions below take and return
 * (NULL: give up), so that it stays in a register; e->alen is only brought up to date where the
 * arena may move.
 */
struct fp {
	const unsigned char *p, *end, *buf;
	uint64_t buf_off, line, line_start;
	struct cj_event *e;
};

/* The characters a number token is made of (the lexer takes the longest run of them). */
static const unsigned char num_char[256] = {
    ['0'] = 1, ['1'] = 1, ['2'] = 1, ['3'] = 1, ['4'] = 1, ['5'] = 1, ['6'] = 1, ['7'] = 1,
    ['8'] = 1, ['9'] = 1, ['-'] = 1, ['+'] = 1, ['.'] = 1, ['e'] = 1, ['E'] = 1,
};

/*
 * Room for @n more arena bytes; -1 (give up) past the exact parser's limit or out of memory.
 * cj_event_fast() keeps room for every byte left in the buffer plus FP_SLACK, and output never
 * outgrows its input except where an escape is re-encoded (room is made there), so most writes
 * need no check, and short copies may store 16 bytes at once.
 */
#define FP_SLACK 64
static int reserve(struct cj_event *e, size_t n)
{
	if (e->alen + n <= e->acap)
		return 0;
	size_t cap = e->acap ? e->acap : 4096;
	while (cap < e->alen + n)
		cap *= 2;
	if (e->alen + n + 1 > CJ_MAX_EVENT_BYTES)
		return -1;
	char *a = realloc(e->arena, cap);
	if (!a)
		return -1;
	e->arena = a;
	e->acap = cap;
	return 0;
}

/* Copy @n input bytes at @p to @o (room known), 16 at once when they are few. */
static inline char *copy_out(const struct fp *f, char *o, const unsigned char *p, size_t n)
{
	if (n <= 16 && f->end - p >= 16)
		memcpy(o, p, 16);
	else
		memcpy(o, p, n);
	return o + n;
}

/* Skip whitespace from @p (counting lines): the next other byte, or NULL at @end. */
static inline const unsigned char *skip_ws(struct fp *f, const unsigned char *p,
					   const unsigned char *end)
{
	for (; p < end; p++) {
		unsigned c = *p;
		if (c == ' ' || c == '\t' || c == '\r')
			continue;
		if (c != '\n')
			return p;
		f->line++;
		f->line_start = f->buf_off + (uint64_t)(p + 1 - f->buf);
	}
	return NULL;
}

/* The same at f->p; -1 when the buffered bytes end first. */
static inline int ws(struct fp *f)
{
	const unsigned char *p = skip_ws(f, f->p, f->end);
	if (!p)
		return -1;
	f->p = p;
	return 0;
}

#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define FP_SWAR 1
#else
#define FP_SWAR 0
#endif

/* Nonzero in the high bit of each byte of @x that is '"', '\\' or a control character; the
 * lowest such bit is exact (borrows only run upwards). */
static inline uint64_t special8(uint64_t x)
{
	const uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;
	uint64_t q = x ^ (ones * '"'), b = x ^ (ones * '\\');
	return (((q - ones) & ~q) | ((b - ones) & ~b) | ((x - ones * 0x20) & ~x)) & highs;
}

/* The first '"', '\\' or control byte at or after @p, or @end. */
static inline const unsigned char *plain_end(const unsigned char *p, const unsigned char *end)
{
#if FP_SWAR
	for (; end - p >= 8; p += 8) {
		uint64_t x, m;
		memcpy(&x, p, 8);
		if ((m = special8(x)) != 0)
			return p + (__builtin_ctzll(m) >> 3);
	}
#endif
	while (p < end && *p != '"' && *p != '\\' && *p >= 0x20)
		p++;
	return p;
}

static int hex4(const unsigned char *p, unsigned *out)
{
	unsigned v = 0;
	for (int i = 0; i < 4; i++) {
		unsigned c = p[i];
		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= c - '0';
		else if (c >= 'a' && c <= 'f')
			v |= c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			v |= c - 'A' + 10;
		else
			return -1;
	}
	*out = v;
	return 0;
}

/*
 * A \u escape at @p (p[0] == '\\', p[1] == 'u'), decoded as the lexer decodes it (surrogate
 * pairs joined, lone or broken halves and NUL as U+FFFD) into @b (up to 8 bytes). Returns the
 * byte count and moves *@pp past the escape, or 0 to give up.
 */
static size_t unicode(const unsigned char **pp, const unsigned char *end, unsigned char *b)
{
	const unsigned char *p = *pp;
	unsigned cp, lo;
	size_t n = 0;
	if (end - p < 6 || hex4(p + 2, &cp) != 0)
		return 0;
	p += 6;
	if (cp >= 0xD800 && cp < 0xDC00) {
		if (p + 1 < end && p[0] == '\\' && p[1] == 'u') {
			if (end - p < 6 || hex4(p + 2, &lo) != 0)
				return 0;
			p += 6;
			if (lo >= 0xDC00 && lo < 0xE000) {
				cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
			} else {
				n = tku_utf8_encode(0xFFFD, (char *)b);
				cp = lo >= 0xD800 && lo < 0xE000 ? 0xFFFD : lo;
			}
		} else {
			cp = 0xFFFD;
		}
	} else if (cp >= 0xDC00 && cp < 0xE000) {
		cp = 0xFFFD;
	}
	if (cp == 0)
		cp = 0xFFFD;
	n += tku_utf8_encode(cp, (char *)b + n);
	*pp = p;
	return n;
}

/* The unescaped bytes @b of an escape at @o, kept (FS_STORE) or re-quoted as put_quoted()
 * does (FS_QUOTE); makes room first, so the arena may move. */
static char *put_escaped(struct fp *f, int mode, const unsigned char *b, size_t n, char *o)
{
	static const char hex[] = "0123456789abcdef";
	struct cj_event *e = f->e;
	if (mode == FS_SKIP)
		return o;
	e->alen = (size_t)(o - e->arena);
	if (reserve(e, (size_t)(f->end - f->p) + FP_SLACK + 6 * n) != 0)
		return NULL;
	o = e->arena + e->alen;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = b[i];
		if (mode == FS_STORE) {
			*o++ = (char)c;
		} else if (c == '"' || c == '\\') {
			*o++ = '\\';
			*o++ = (char)c;
		} else if (c < 0x20) {
			memcpy(o, "\\u00", 4);
			o[4] = hex[c >> 4];
			o[5] = hex[c & 15];
			o += 6;
		} else {
			*o++ = (char)c;
		}
	}
	return o;
}

/*
 * The string whose opening quote is at f->p: checked (FS_SKIP), kept unescaped with a NUL at
 * arena offset *@off, length *@len (FS_STORE), or written as a compact JSON string (FS_QUOTE).
 */
static char *fp_string(struct fp *f, int mode, char *o, uint32_t *off, uint32_t *len)
{
	struct cj_event *e = f->e;
	const unsigned char *p = f->p + 1, *end = f->end;
	size_t start = (size_t)(o - e->arena);
	if (mode == FS_QUOTE)
		*o++ = '"';
	for (;;) {
#if FP_SWAR
		while (end - p >= 8) {
			uint64_t x, m;
			memcpy(&x, p, 8);
			if (mode != FS_SKIP)
				memcpy(o, &x, 8); /* room: see reserve() */
			if ((m = special8(x)) != 0) {
				size_t k = (size_t)__builtin_ctzll(m) >> 3;
				p += k;
				o += k;
				goto special;
			}
			p += 8;
			o += 8;
		}
#endif
		while (p < end && *p != '"' && *p != '\\' && *p >= 0x20)
			*o++ = (char)*p++;
		if (p == end)
			return NULL;
#if FP_SWAR
	special:
#endif
		if (*p == '"')
			break;
		if (*p != '\\' || end - p < 2)
			return NULL; /* a raw control character (the exact parser keeps it), or the end */
		unsigned char b[8];
		size_t n = 1;
		switch (p[1]) {
		case '"':
		case '\\':
		case '/':
			b[0] = p[1];
			break;
		case 'b':
			b[0] = '\b';
			break;
		case 'f':
			b[0] = '\f';
			break;
		case 'n':
			b[0] = '\n';
			break;
		case 'r':
			b[0] = '\r';
			break;
		case 't':
			b[0] = '\t';
			break;
		case 'u':
			if (!(n = unicode(&p, end, b)))
				return NULL;
			p -= 2; /* already past the escape; undo the += 2 below */
			break;
		default:
			return NULL;
		}
		p += 2;
		f->p = p;
		if (!(o = put_escaped(f, mode, b, n, o)))
			return NULL;
	}
	f->p = p + 1;
	if (mode == FS_QUOTE) {
		*o++ = '"';
	} else if (mode == FS_STORE) {
		size_t n = (size_t)(o - e->arena) - start;
		if (n > JSON_MAX_STRING)
			return NULL;
		*o++ = 0;
		*off = (uint32_t)start;
		*len = (uint32_t)n;
	}
	return o;
}

static inline int is_digit(unsigned c)
{
	return c - '0' < 10;
}

/*
 * A number at f->p. The lexer takes the longest run of number characters and then checks it
 * against the JSON grammar; the same is done in one go here: the grammar is matched greedily
 * and must end where the run ends. Kept at @o (with a NUL for FS_STORE) or not.
 */
static inline char *fp_number(struct fp *f, int mode, char *o)
{
	const unsigned char *p = f->p, *s = p, *end = f->end;
	if (s < end && *s == '-')
		s++;
	if (s < end && *s == '0') {
		s++;
	} else if (s < end && (unsigned)(*s - '1') < 9u) {
		do
			s++;
		while (s < end && is_digit(*s));
	} else {
		return NULL;
	}
	if (s < end && *s == '.') {
		s++;
		if (!(s < end && is_digit(*s)))
			return NULL;
		do
			s++;
		while (s < end && is_digit(*s));
	}
	if (s < end && (*s | 0x20) == 'e') {
		s++;
		if (s < end && (*s == '+' || *s == '-'))
			s++;
		if (!(s < end && is_digit(*s)))
			return NULL;
		do
			s++;
		while (s < end && is_digit(*s));
	}
	if (s == end || num_char[*s] || s - p > JSON_MAX_NUMBER)
		return NULL;
	f->p = s;
	if (mode != FS_SKIP) {
		o = copy_out(f, o, p, (size_t)(s - p));
		if (mode == FS_STORE)
			*o++ = 0;
	}
	return o;
}

/* true, false or null at f->p: its value type and *@word its text (8 readable bytes, NUL
 * padded), or CJV_NONE to give up. */
static enum cj_vtype fp_word(struct fp *f, const char **word)
{
	static const char words[3][8] = {"true", "false", "null"};
	const unsigned char *p = f->p;
	size_t left = (size_t)(f->end - p);
	if (left >= 4 && !memcmp(p, "true", 4)) {
		*word = words[0];
		f->p += 4;
		return CJV_TRUE;
	}
	if (left >= 5 && !memcmp(p, "false", 5)) {
		*word = words[1];
		f->p += 5;
		return CJV_FALSE;
	}
	if (left >= 4 && !memcmp(p, "null", 4)) {
		*word = words[2];
		f->p += 4;
		return CJV_NULL;
	}
	return CJV_NONE;
}

static char *fp_any(struct fp *f, int mode, int level, char *o);

/* An object or array at f->p, checked and (FS_QUOTE) written as compact JSON, as put_compact. */
static char *fp_nested(struct fp *f, int mode, int level, char *o)
{
	if (level > FP_MAX_LEVEL)
		return NULL;
	int obj = *f->p == '{', out = mode == FS_QUOTE;
	char close = obj ? '}' : ']';
	if (out)
		*o++ = (char)*f->p;
	f->p++;
	if (ws(f) != 0)
		return NULL;
	if (*f->p != close) {
		for (;;) {
			if (obj) {
				uint32_t off, len;
				if (*f->p != '"' || !(o = fp_string(f, mode, o, &off, &len)) ||
				    ws(f) != 0 || *f->p != ':')
					return NULL;
				f->p++;
				if (out)
					*o++ = ':';
				if (ws(f) != 0)
					return NULL;
			}
			if (!(o = fp_any(f, mode, level + 1, o)) || ws(f) != 0)
				return NULL;
			if (*f->p == close)
				break;
			if (*f->p != ',')
				return NULL;
			f->p++;
			if (ws(f) != 0)
				return NULL;
			if (*f->p == close)
				break; /* a trailing comma, dropped as the exact parser drops it */
			if (out)
				*o++ = ',';
		}
	}
	f->p++;
	if (out)
		*o++ = close;
	return o;
}

/* Any value inside a nested one (FS_SKIP or FS_QUOTE). */
static char *fp_any(struct fp *f, int mode, int level, char *o)
{
	unsigned c = *f->p;
	if (c == '"') {
		uint32_t off, len;
		return fp_string(f, mode, o, &off, &len);
	}
	if (c == '{' || c == '[')
		return fp_nested(f, mode, level, o);
	if (c == '-' || (c >= '0' && c <= '9'))
		return fp_number(f, mode, o);
	const char *word;
	if (fp_word(f, &word) == CJV_NONE)
		return NULL;
	if (mode == FS_QUOTE) {
		memcpy(o, word, 8);
		o += strlen(word);
	}
	return o;
}

/* A member's value into @v (kept at @o), as read_value() keeps it. */
static char *fp_value(struct fp *f, struct cj_val *v, char *o)
{
	struct cj_event *e = f->e;
	unsigned c = *f->p;
	if (c == '"') {
		v->type = CJV_STR;
		return fp_string(f, FS_STORE, o, &v->off, &v->len);
	}
	char *start = o;
	if (c == '-' || (c >= '0' && c <= '9')) {
		v->type = CJV_NUM;
		if (!(o = fp_number(f, FS_STORE, o)))
			return NULL;
	} else if (c == '{' || c == '[') {
		size_t off = (size_t)(o - e->arena);
		v->type = CJV_RAW;
		if (!(o = fp_nested(f, FS_QUOTE, 1, o)))
			return NULL;
		start = e->arena + off; /* the arena may have moved */
		*o++ = 0;
	} else {
		const char *word;
		if ((v->type = fp_word(f, &word)) == CJV_NONE)
			return NULL;
		memcpy(o, word, 8); /* with its NUL */
		o += strlen(word) + 1;
	}
	v->off = (uint32_t)(start - e->arena);
	v->len = (uint32_t)(o - start - 1);
	return o;
}

#define K2(a, b) ((uint64_t)(a) | (uint64_t)(b) << 8 | (uint64_t)'"' << 16)
#define K3(a, b, c) ((uint64_t)(a) | (uint64_t)(b) << 8 | (uint64_t)(c) << 16 | (uint64_t)'"' << 24)
#define K4(a, b, c, d) (K3(a, b, c) & 0xFFFFFF) | (uint64_t)(d) << 24 | (uint64_t)'"' << 32

/*
 * A known event key written plainly, told from the 8 bytes @x after its opening quote (its
 * closing quote included): its slot, with its length in *@n (*@is_args for "args"), or NULL.
 */
static inline struct cj_val *known_key8(struct cj_event *e, uint64_t x, uint32_t *n, int *is_args)
{
	uint64_t x3 = x & 0xFFFFFF, x4 = x & 0xFFFFFFFF, x5 = x & 0xFFFFFFFFFFull;
	*is_args = 0;
	switch (x & 0xFF) {
	case 'p':
		*n = 2;
		if (x3 == K2('p', 'h'))
			return &e->ph;
		*n = 3;
		return x4 == K3('p', 'i', 'd') ? &e->pid : NULL;
	case 't':
		*n = 2;
		if (x3 == K2('t', 's'))
			return &e->ts;
		*n = 3;
		return x4 == K3('t', 'i', 'd') ? &e->tid : NULL;
	case 'c':
		*n = 3;
		return x4 == K3('c', 'a', 't') ? &e->cat : NULL;
	case 'd':
		*n = 3;
		return x4 == K3('d', 'u', 'r') ? &e->dur : NULL;
	case 'n':
		*n = 4;
		return x5 == (K4('n', 'a', 'm', 'e')) ? &e->name : NULL;
	case 'a':
		*n = 4;
		*is_args = x5 == (K4('a', 'r', 'g', 's'));
		return NULL;
	default:
		return NULL;
	}
}

/* The slot of a known event key, or NULL. */
static struct cj_val *known_key(struct cj_event *e, const unsigned char *k, uint32_t n)
{
	switch (n) {
	case 1:
		return k[0] == 's' ? &e->scope : NULL;
	case 2:
		if (k[0] == 'p' && k[1] == 'h')
			return &e->ph;
		if (k[0] == 't' && k[1] == 's')
			return &e->ts;
		if (k[0] == 'i' && k[1] == 'd')
			return &e->id;
		if (k[0] == 'b' && k[1] == 'p')
			return &e->bp;
		return NULL;
	case 3:
		if (!memcmp(k, "pid", 3))
			return &e->pid;
		if (!memcmp(k, "cat", 3))
			return &e->cat;
		if (!memcmp(k, "tid", 3))
			return &e->tid;
		if (!memcmp(k, "dur", 3))
			return &e->dur;
		if (!memcmp(k, "id2", 3))
			return &e->id2;
		return NULL;
	case 4:
		return !memcmp(k, "name", 4) ? &e->name : NULL;
	case 7:
		return !memcmp(k, "bind_id", 7) ? &e->bind_id : NULL;
	default:
		return NULL;
	}
}

static struct cj_arg *fp_new_arg(struct cj_event *e)
{
	if (e->nargs == e->cap_args) {
		size_t cap = e->cap_args ? e->cap_args * 2 : 32;
		if (cap > (1u << 20))
			return NULL;
		struct cj_arg *a = realloc(e->args, cap * sizeof(*a));
		if (!a)
			return NULL;
		e->args = a;
		e->cap_args = cap;
	}
	return &e->args[e->nargs++];
}

/*
 * A member's key at f->p, as *@k (@klen bytes): read in place when it has no escape (*@koff is
 * then UINT32_MAX: not in the arena yet), else unescaped into the arena at *@koff.
 */
static char *fp_key(struct fp *f, char *o, const unsigned char **k, uint32_t *klen, uint32_t *koff)
{
	const unsigned char *p = f->p + 1, *q = plain_end(p, f->end);
	if (q < f->end && *q == '"') {
		*k = p;
		*klen = (uint32_t)(q - p);
		*koff = UINT32_MAX;
		f->p = q + 1;
		return o;
	}
	if (!(o = fp_string(f, FS_STORE, o, koff, klen)))
		return NULL;
	*k = (const unsigned char *)f->e->arena + *koff;
	return o;
}

/* The members of an object whose '{' was consumed, as read_members() reads them. */
static char *fp_members(struct fp *f, int top, int light, char *o)
{
	struct cj_event *e = f->e;
	if (ws(f) != 0)
		return NULL;
	if (*f->p == '}') {
		f->p++;
		return o;
	}
	for (;;) {
		const unsigned char *k;
		uint32_t klen, koff = UINT32_MAX;
		struct cj_val *known = NULL;
		int is_args = 0;
		if (*f->p != '"')
			return NULL;
		if (top && f->end - f->p >= 9) {
			/* the usual keys, plainly written, in one look */
			uint64_t x;
			memcpy(&x, f->p + 1, 8);
			if ((known = known_key8(e, x, &klen, &is_args)) != NULL || is_args)
				f->p += klen + 2;
		}
		if (!known && !is_args) {
			if (!(o = fp_key(f, o, &k, &klen, &koff)))
				return NULL;
			known = top ? known_key(e, k, klen) : NULL;
			is_args = top && !known && klen == 4 && !memcmp(k, "args", 4);
		}
		if (known && koff != UINT32_MAX)
			o = e->arena + koff; /* known keys are not kept */
		if (!known && !is_args && koff == UINT32_MAX) {
			koff = (uint32_t)(o - e->arena);
			o = copy_out(f, o, k, klen);
			*o++ = 0;
		}
		if (ws(f) != 0 || *f->p != ':')
			return NULL;
		f->p++;
		if (ws(f) != 0)
			return NULL;
		if (is_args && light &&
		    !(e->ph.type == CJV_STR && !strcmp(e->arena + e->ph.off, "M"))) {
			if (!(o = fp_any(f, FS_SKIP, 1, o)))
				return NULL;
		} else if (is_args && *f->p == '{') {
			f->p++;
			if (!(o = fp_members(f, 0, 0, o)))
				return NULL;
		} else if (known) {
			if (!(o = fp_value(f, known, o)))
				return NULL;
		} else {
			if (is_args) {
				koff = (uint32_t)(o - e->arena);
				memcpy(o, "args", 5);
				o += 5;
			}
			struct cj_arg *a = fp_new_arg(e);
			if (!a)
				return NULL;
			a->key = koff;
			a->klen = klen;
			a->top = top;
			if (!(o = fp_value(f, &a->v, o)))
				return NULL;
		}
		if (ws(f) != 0)
			return NULL;
		if (*f->p == '}')
			break;
		if (*f->p != ',')
			return NULL;
		f->p++;
		if (ws(f) != 0)
			return NULL;
		if (*f->p == '}')
			break; /* a trailing comma, as Perfetto accepts */
	}
	f->p++;
	return o;
}

int cj_event_fast(struct json_lex *lx, struct cj_event *e, int light)
{
	struct fp f;
	f.buf = lx->buf;
	f.p = lx->buf + lx->pos;
	f.end = lx->buf + lx->len;
	f.buf_off = lx->buf_off;
	f.line = lx->line;
	f.line_start = lx->line_start;
	f.e = e;
	e->line = lx->tok_line;
	e->col = lx->tok_col;
	e->alen = 0;
	e->nargs = 0;
	struct cj_val none = {CJV_NONE, 0, 0};
	e->ph = e->cat = e->name = e->pid = e->tid = e->ts = e->dur = none;
	e->id = e->id2 = e->bp = e->scope = e->bind_id = none;
	if (reserve(e, (size_t)(f.end - f.p) + FP_SLACK) != 0)
		return 1;
	char *o = e->arena;
	*o++ = 0; /* offset 0 is the empty string */
	if (!(o = fp_members(&f, 1, light, o)))
		return 1;
	e->alen = (size_t)(o - e->arena);
	/* as if the closing '}' had been the last token */
	lx->pos = (size_t)(f.p - lx->buf);
	lx->line = f.line;
	lx->line_start = f.line_start;
	lx->tok_off = lx->buf_off + lx->pos - 1;
	lx->tok_line = f.line;
	lx->tok_col = lx->tok_off - f.line_start + 1;
	return 0;
}

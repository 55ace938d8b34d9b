/*
 * Streaming JSON tokenizer: reads a plain or gzip file (told by the magic bytes 1f 8b, never by
 * the name) in 1 MiB chunks and returns one token at a time. Newlines can only occur between
 * tokens in valid JSON, so line counting happens in the whitespace skipper and costs nothing on
 * the hot path. Every limit (string length, number length, inflated size) is checked.
 */
#include "util/utf8.h"
#include "util/json_lex.h"
#include "util/gz_reader.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define IN_SIZE (256u << 10)
#define SMALL_BUF (64u << 10) /* the least buffer for a file smaller than the usual one */

const char *tku_json_tok_name(enum tku_json_tok t)
{
	static const char *const names[] = {
	    "end of input (is the file truncated?)",
	    "'{'",
	    "'}'",
	    "'['",
	    "']'",
	    "':'",
	    "','",
	    "a string",
	    "a number",
	    "true",
	    "false",
	    "null",
	    "an error",
	};
	return (unsigned)t <= TKU_JT_ERROR ? names[t] : "?";
}

static void set_err_at(struct tku_json_lex *lx, uint64_t off, const char *fmt, va_list ap)
{
	vsnprintf(lx->msg, sizeof(lx->msg), fmt, ap);
	lx->err_line = lx->line;
	lx->err_col = off >= lx->line_start ? off - lx->line_start + 1 : 1;
}

enum tku_json_tok tku_json_lex_error(struct tku_json_lex *lx, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(lx->msg, sizeof(lx->msg), fmt, ap);
	va_end(ap);
	lx->err_line = lx->tok_line;
	lx->err_col = lx->tok_col;
	return TKU_JT_ERROR;
}

/* An error at the current read position (not the token start). */
static enum tku_json_tok err_here(struct tku_json_lex *lx, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static enum tku_json_tok err_here(struct tku_json_lex *lx, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	set_err_at(lx, lx->buf_off + lx->pos, fmt, ap);
	va_end(ap);
	return TKU_JT_ERROR;
}

int tku_json_lex_open(struct tku_json_lex *lx, const char *path)
{
	return tku_json_lex_open_buf(lx, path, TKU_JSON_BUF_SIZE);
}

int tku_json_lex_open_buf(struct tku_json_lex *lx, const char *path, size_t buf_size)
{
	memset(lx, 0, sizeof(*lx));
	lx->cap = buf_size;
	lx->fd = -1;
	lx->line = 1;
	lx->fd = open(path, O_RDONLY);
	if (lx->fd < 0) {
		snprintf(lx->msg, sizeof(lx->msg), "cannot read: %s", strerror(errno));
		return -1;
	}
	/* A small file gets a small buffer (a gzip one fills it several times): most inputs are. */
	struct stat sb;
	int small_file = 0;
	if (fstat(lx->fd, &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_size >= 0 &&
	    (uint64_t)sb.st_size < lx->cap) {
		small_file = 1;
		size_t small =
		    (size_t)sb.st_size + 1 > SMALL_BUF ? (size_t)sb.st_size + 1 : SMALL_BUF;
		lx->cap = small < lx->cap ? small : lx->cap;
	}
	lx->buf = malloc(lx->cap);
	lx->scap = 4096;
	lx->str = malloc(lx->scap);
	if (!lx->buf || !lx->str) {
		snprintf(lx->msg, sizeof(lx->msg), "out of memory");
		return -1;
	}
	/* sniff the magic: read the first chunk raw */
	ssize_t n;
	do
		n = read(lx->fd, lx->buf, lx->cap);
	while (n < 0 && errno == EINTR);
	if (n < 0) {
		snprintf(lx->msg, sizeof(lx->msg), "cannot read: %s", strerror(errno));
		return -1;
	}
	if (n >= 2 && lx->buf[0] == 0x1f && lx->buf[1] == 0x8b) {
		/* All of a small file came with that first read: its size is room enough. */
		size_t in_cap = small_file || (size_t)n > IN_SIZE ? (size_t)n : IN_SIZE;
		if (tku_gz_open(&lx->gz, lx->fd, lx->buf, (size_t)n, in_cap, lx->cap,
				TKU_JSON_MAX_INFLATED, lx->msg, sizeof(lx->msg)) != 0)
			return -1;
		lx->is_gz = 1;
		free(lx->buf); /* the decoded bytes are in the reader's buffers */
		lx->buf = NULL;
		lx->len = 0;
	} else {
		lx->len = (size_t)n;
		lx->in_eof = n == 0;
	}
	return 0;
}

void tku_json_lex_close(struct tku_json_lex *lx)
{
	tku_gz_close(lx->gz); /* before the file: its thread reads it */
	if (lx->fd >= 0)
		close(lx->fd);
	if (!lx->is_gz)
		free(lx->buf);
	free(lx->str);
	memset(lx, 0, sizeof(*lx));
	lx->fd = -1;
}

/* Make more decoded bytes available; 1 when some are, 0 at the end, -1 on error (msg set). */
static int refill(struct tku_json_lex *lx)
{
	lx->buf_off += lx->len;
	lx->pos = lx->len = 0;
	if (!lx->is_gz) {
		if (lx->in_eof)
			return 0;
		ssize_t n;
		do
			n = read(lx->fd, lx->buf, lx->cap);
		while (n < 0 && errno == EINTR);
		if (n < 0) {
			err_here(lx, "cannot read: %s", strerror(errno));
			return -1;
		}
		if (n == 0)
			lx->in_eof = 1;
		lx->len = (size_t)n;
		return n > 0;
	}
	char msg[sizeof(lx->msg)];
	int r = tku_gz_next(lx->gz, &lx->buf, &lx->len, msg, sizeof(msg));
	if (r < 0)
		err_here(lx, "%s", msg);
	return r;
}

/* The growth rule is written out here, not TKU_GROW (util/vec.h): the tokenizer's hot path,
 * where it measured slower. */
static int str_push(struct tku_json_lex *lx, const char *p, size_t n)
{
	if (lx->slen + n + 1 > lx->scap) {
		if (lx->slen + n > TKU_JSON_MAX_STRING)
			return -1;
		size_t cap = lx->scap;
		while (cap < lx->slen + n + 1)
			cap *= 2;
		char *s = realloc(lx->str, cap);
		if (!s)
			return -1;
		lx->str = s;
		lx->scap = cap;
	}
	memcpy(lx->str + lx->slen, p, n);
	lx->slen += n;
	return 0;
}

/* Next raw byte, or -1 at the end / -2 on a read error. */
static inline int getb(struct tku_json_lex *lx)
{
	if (lx->pos == lx->len) {
		int r = refill(lx);
		if (r <= 0)
			return r == 0 ? -1 : -2;
	}
	return lx->buf[lx->pos++];
}

/* The next byte without consuming it (refilling when the buffer is used up: what is before
 * pos is consumed already, so nothing is lost); -1 at the end, -2 on a read error. */
static inline int peekb(struct tku_json_lex *lx)
{
	if (lx->pos == lx->len) {
		int r = refill(lx);
		if (r <= 0)
			return r == 0 ? -1 : -2;
	}
	return lx->buf[lx->pos];
}

static int hex4(struct tku_json_lex *lx, unsigned *out)
{
	unsigned v = 0;
	for (int i = 0; i < 4; i++) {
		int c = getb(lx);
		if (c < 0)
			return -1;
		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			v |= (unsigned)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			v |= (unsigned)(c - 'A' + 10);
		else
			return -1;
	}
	*out = v;
	return 0;
}

static int push_utf8(struct tku_json_lex *lx, unsigned cp)
{
	char b[4];
	return str_push(lx, b, tku_utf8_encode(cp, b));
}

static enum tku_json_tok lex_string(struct tku_json_lex *lx)
{
	lx->slen = 0;
	for (;;) {
		if (lx->pos == lx->len) {
			int r = refill(lx);
			if (r < 0)
				return TKU_JT_ERROR;
			if (r == 0)
				return err_here(lx,
						"unterminated string (the input ends inside it)");
		}
		/* fast path: a run of plain bytes */
		const unsigned char *p = lx->buf + lx->pos, *e = lx->buf + lx->len, *q = p;
		while (q < e && *q != '"' && *q != '\\' && *q >= 0x20)
			q++;
		if (q > p && str_push(lx, (const char *)p, (size_t)(q - p)) != 0)
			return err_here(lx, "string longer than %u bytes", TKU_JSON_MAX_STRING);
		lx->pos += (size_t)(q - p);
		if (q == e)
			continue;
		int c = lx->buf[lx->pos++];
		if (c == '"')
			break;
		if (c < 0x20) {
			/* raw control characters are invalid JSON, but real traces carry them (and
			 * Perfetto accepts them): keep them as they are */
			char ch0 = (char)c;
			if (c == '\n') {
				lx->line++;
				lx->line_start = lx->buf_off + lx->pos;
			}
			if (str_push(lx, &ch0, 1) != 0)
				return err_here(lx, "string longer than %u bytes",
						TKU_JSON_MAX_STRING);
			continue;
		}
		/* backslash escape */
		c = getb(lx);
		char ch;
	escape:
		switch (c) {
		case '"':
			ch = '"';
			break;
		case '\\':
			ch = '\\';
			break;
		case '/':
			ch = '/';
			break;
		case 'b':
			ch = '\b';
			break;
		case 'f':
			ch = '\f';
			break;
		case 'n':
			ch = '\n';
			break;
		case 'r':
			ch = '\r';
			break;
		case 't':
			ch = '\t';
			break;
		case 'u': {
			unsigned cp, lo;
			if (hex4(lx, &cp) != 0)
				return err_here(lx, "bad \\u escape (four hex digits expected)");
			if (cp >= 0xD800 && cp < 0xDC00) {
				/* a high surrogate: a low one should follow, maybe in the next
				 * chunk of the input */
				int b = peekb(lx);
				if (b == -2)
					return TKU_JT_ERROR;
				if (b == '\\') {
					lx->pos++;
					if ((b = peekb(lx)) == -2)
						return TKU_JT_ERROR;
					if (b !=
					    'u') { /* another escape: the high half stands alone */
						if (push_utf8(lx, 0xFFFD) != 0)
							return err_here(
							    lx, "string longer than %u bytes",
							    TKU_JSON_MAX_STRING);
						c = getb(lx);
						goto escape;
					}
					lx->pos++;
					if (hex4(lx, &lo) != 0)
						return err_here(
						    lx,
						    "bad \\u escape (four hex digits expected)");
					if (lo >= 0xDC00 && lo < 0xE000)
						cp =
						    0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
					else if (push_utf8(lx, 0xFFFD) != 0)
						return err_here(lx, "string longer than %u bytes",
								TKU_JSON_MAX_STRING);
					else
						cp = lo >= 0xD800 && lo < 0xE000 ? 0xFFFD : lo;
				} else {
					cp = 0xFFFD;
				}
			} else if (cp >= 0xDC00 && cp < 0xE000) {
				cp = 0xFFFD;
			}
			if (cp == 0)
				cp = 0xFFFD; /* no NUL inside C strings */
			if (push_utf8(lx, cp) != 0)
				return err_here(lx, "string longer than %u bytes",
						TKU_JSON_MAX_STRING);
			continue;
		}
		default:
			if (c == -2)
				return TKU_JT_ERROR;
			if (c == -1)
				return err_here(lx,
						"unterminated string (the input ends inside it)");
			return err_here(lx, "bad escape '\\%c' inside a string", c);
		}
		if (str_push(lx, &ch, 1) != 0)
			return err_here(lx, "string longer than %u bytes", TKU_JSON_MAX_STRING);
	}
	lx->str[lx->slen] = 0;
	return TKU_JT_STRING;
}

static enum tku_json_tok lex_number(struct tku_json_lex *lx)
{
	lx->slen = 0;
	for (;;) {
		if (lx->pos == lx->len) {
			int r = refill(lx);
			if (r < 0)
				return TKU_JT_ERROR;
			if (r == 0)
				break;
		}
		/* copy the run of number characters inside this buffer in one go */
		const unsigned char *p = lx->buf + lx->pos, *e = lx->buf + lx->len, *q = p;
		while (q < e && ((*q >= '0' && *q <= '9') || *q == '-' || *q == '+' || *q == '.' ||
				 *q == 'e' || *q == 'E'))
			q++;
		size_t n = (size_t)(q - p);
		if (lx->slen + n > TKU_JSON_MAX_NUMBER)
			return tku_json_lex_error(lx, "number longer than %d characters",
						  TKU_JSON_MAX_NUMBER);
		memcpy(lx->str + lx->slen, p, n);
		lx->slen += n;
		lx->pos += n;
		if (q < e)
			break;
	}
	lx->str[lx->slen] = 0;
	/* validate the JSON number grammar */
	const char *s = lx->str;
	if (*s == '-')
		s++;
	if (*s == '0')
		s++;
	else if (*s >= '1' && *s <= '9')
		while (*s >= '0' && *s <= '9')
			s++;
	else
		return tku_json_lex_error(lx, "malformed number '%s'", lx->str);
	if (*s == '.') {
		s++;
		if (!(*s >= '0' && *s <= '9'))
			return tku_json_lex_error(lx, "malformed number '%s'", lx->str);
		while (*s >= '0' && *s <= '9')
			s++;
	}
	if (*s == 'e' || *s == 'E') {
		s++;
		if (*s == '+' || *s == '-')
			s++;
		if (!(*s >= '0' && *s <= '9'))
			return tku_json_lex_error(lx, "malformed number '%s'", lx->str);
		while (*s >= '0' && *s <= '9')
			s++;
	}
	if (*s)
		return tku_json_lex_error(lx, "malformed number '%s'", lx->str);
	return TKU_JT_NUMBER;
}

static enum tku_json_tok lex_word(struct tku_json_lex *lx, const char *w, enum tku_json_tok t)
{
	for (const char *p = w; *p; p++) {
		int c = getb(lx);
		if (c == -2)
			return TKU_JT_ERROR;
		if (c != *p)
			return tku_json_lex_error(lx, "invalid literal (expected '%s')", w);
	}
	return t;
}

enum tku_json_tok tku_json_lex_next(struct tku_json_lex *lx)
{
	int c;
	for (;;) {
		if (lx->pos == lx->len) {
			int r = refill(lx);
			if (r < 0)
				return TKU_JT_ERROR;
			if (r == 0) {
				lx->tok_off = lx->buf_off;
				lx->tok_line = lx->line;
				lx->tok_col = lx->tok_off - lx->line_start + 1;
				return TKU_JT_EOF;
			}
		}
		c = lx->buf[lx->pos];
		if (c == ' ' || c == '\t' || c == '\r') {
			lx->pos++;
		} else if (c == '\n') {
			lx->pos++;
			lx->line++;
			lx->line_start = lx->buf_off + lx->pos;
		} else {
			break;
		}
	}
	lx->tok_off = lx->buf_off + lx->pos;
	lx->tok_line = lx->line;
	lx->tok_col = lx->tok_off - lx->line_start + 1;
	switch (c) {
	case '{':
		lx->pos++;
		return TKU_JT_LBRACE;
	case '}':
		lx->pos++;
		return TKU_JT_RBRACE;
	case '[':
		lx->pos++;
		return TKU_JT_LBRACK;
	case ']':
		lx->pos++;
		return TKU_JT_RBRACK;
	case ':':
		lx->pos++;
		return TKU_JT_COLON;
	case ',':
		lx->pos++;
		return TKU_JT_COMMA;
	case '"':
		lx->pos++;
		return lex_string(lx);
	case 't':
		return lex_word(lx, "true", TKU_JT_TRUE);
	case 'f':
		return lex_word(lx, "false", TKU_JT_FALSE);
	case 'n':
		return lex_word(lx, "null", TKU_JT_NULL);
	default:
		if (c == 0xEF && lx->tok_off == 0 && lx->pos + 2 < lx->len &&
		    lx->buf[lx->pos + 1] == 0xBB && lx->buf[lx->pos + 2] == 0xBF) {
			lx->pos += 3; /* a UTF-8 byte order mark at the very start */
			lx->line_start = 3;
			return tku_json_lex_next(lx);
		}
		if (c == '-' || (c >= '0' && c <= '9'))
			return lex_number(lx);
		if (c >= 0x20 && c < 0x7f)
			return tku_json_lex_error(lx, "unexpected character '%c'", c);
		return tku_json_lex_error(lx, "unexpected byte 0x%02x", c);
	}
}

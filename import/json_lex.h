/*
 * Streaming JSON tokenizer over a plain or gzip file (gzip told by its magic bytes, inflated in
 * fixed chunks). Memory is bounded: a 1 MiB input buffer, strings up to JSON_MAX_STRING bytes,
 * number texts up to JSON_MAX_NUMBER bytes. Tracks byte offset, line and column of each token for
 * error messages. Used by the Chrome/Kineto JSON importer; no whole-file DOM anywhere.
 */
#ifndef TK_JSON_LEX_H
#define TK_JSON_LEX_H

#include <stddef.h>
#include <stdint.h>
#include <zlib.h>

#define JSON_MAX_STRING (16u << 20)    /* longest string accepted, bytes (after unescaping) */
#define JSON_MAX_NUMBER 256	       /* longest number text accepted */
#define JSON_MAX_DEPTH 64	       /* deepest nesting accepted by the importer */
#define JSON_MAX_INFLATED (1ull << 42) /* 4 TiB: a gzip that inflates beyond this is refused */
#define JSON_BUF_SIZE (1u << 20)       /* decoded bytes read at a time */

enum json_tok {
	JT_EOF,
	JT_LBRACE,
	JT_RBRACE,
	JT_LBRACK,
	JT_RBRACK,
	JT_COLON,
	JT_COMMA,
	JT_STRING,
	JT_NUMBER,
	JT_TRUE,
	JT_FALSE,
	JT_NULL,
	JT_ERROR,
};

struct json_lex {
	int fd;
	int is_gz, z_init, in_eof, z_end;
	z_stream zs;
	unsigned char *in;  /* compressed input chunk (gzip only) */
	size_t in_cap;	    /* bytes @in holds */
	unsigned char *buf; /* decoded bytes */
	size_t cap;	    /* of buf: decoded bytes read at a time */
	size_t len, pos;
	uint64_t buf_off;    /* byte offset (of the decoded text) of buf[0] */
	uint64_t line;	     /* current line, from 1 */
	uint64_t line_start; /* byte offset where the current line starts */
	/* position of the last token */
	uint64_t tok_line, tok_col, tok_off;
	/* text of the last string or number token, NUL-terminated */
	char *str;
	size_t slen, scap;
	char msg[256]; /* what went wrong when JT_ERROR was returned */
	uint64_t err_line, err_col;
};

/* json_lex_open() - open @path for tokenizing; 0 or -1 with lx->msg set (an I/O problem). */
int json_lex_open(struct json_lex *lx, const char *path);
/* json_lex_open_buf() - the same, reading @buf_size decoded bytes at a time instead of
 * JSON_BUF_SIZE (tests use small buffers to put chunk boundaries everywhere). */
int json_lex_open_buf(struct json_lex *lx, const char *path, size_t buf_size);
/* json_lex_close() - release everything (safe on a zeroed or failed lexer). */
void json_lex_close(struct json_lex *lx);
/* json_lex_next() - the next token; JT_ERROR with lx->msg, err_line, err_col on bad input. */
enum json_tok json_lex_next(struct json_lex *lx);
/* json_lex_error() - record an error at the last token's position; returns JT_ERROR. */
enum json_tok json_lex_error(struct json_lex *lx, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* json_tok_name() - a short description of a token kind, for messages. */
const char *json_tok_name(enum json_tok t);

#endif

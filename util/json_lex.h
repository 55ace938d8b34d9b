/*
 * Streaming JSON tokenizer over a plain or gzip file (gzip told by its magic bytes, inflated in
 * fixed chunks on a thread of its own: util/gz_reader.h). Memory is bounded: a 1 MiB input buffer, strings up to TKU_JSON_MAX_STRING bytes,
 * number texts up to TKU_JSON_MAX_NUMBER bytes. Tracks byte offset, line and column of each token for
 * error messages. Used by the Chrome/Kineto JSON importer; no whole-file DOM anywhere.
 */
#ifndef TK_UTIL_JSON_LEX_H
#define TK_UTIL_JSON_LEX_H

#include <stddef.h>
#include <stdint.h>

#define TKU_JSON_MAX_STRING (16u << 20)	   /* longest string accepted, bytes (after unescaping) */
#define TKU_JSON_MAX_NUMBER 256		   /* longest number text accepted */
#define TKU_JSON_MAX_DEPTH 64		   /* deepest nesting accepted by the importer */
#define TKU_JSON_MAX_INFLATED (1ull << 42) /* 4 TiB: a gzip that inflates beyond this is refused */
#define TKU_JSON_BUF_SIZE (1u << 20)	   /* decoded bytes read at a time */

enum tku_json_tok {
	TKU_JT_EOF,
	TKU_JT_LBRACE,
	TKU_JT_RBRACE,
	TKU_JT_LBRACK,
	TKU_JT_RBRACK,
	TKU_JT_COLON,
	TKU_JT_COMMA,
	TKU_JT_STRING,
	TKU_JT_NUMBER,
	TKU_JT_TRUE,
	TKU_JT_FALSE,
	TKU_JT_NULL,
	TKU_JT_ERROR,
};

struct tku_gz;

struct tku_json_lex {
	int fd;
	int is_gz, in_eof;
	struct tku_gz *gz;  /* gzip: the inflating thread (gz_reader.h), owner of the buffers */
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
	char msg[256]; /* what went wrong when TKU_JT_ERROR was returned */
	uint64_t err_line, err_col;
};

/* tku_json_lex_open() - open @path for tokenizing; 0 or -1 with lx->msg set (an I/O problem). */
int tku_json_lex_open(struct tku_json_lex *lx, const char *path);
/* tku_json_lex_open_buf() - the same, reading @buf_size decoded bytes at a time instead of
 * TKU_JSON_BUF_SIZE (tests use small buffers to put chunk boundaries everywhere). */
int tku_json_lex_open_buf(struct tku_json_lex *lx, const char *path, size_t buf_size);
/* tku_json_lex_close() - release everything (safe on a zeroed or failed lexer). */
void tku_json_lex_close(struct tku_json_lex *lx);
/* tku_json_lex_next() - the next token; TKU_JT_ERROR with lx->msg, err_line, err_col on bad input. */
enum tku_json_tok tku_json_lex_next(struct tku_json_lex *lx);
/* tku_json_lex_error() - record an error at the last token's position; returns TKU_JT_ERROR. */
enum tku_json_tok tku_json_lex_error(struct tku_json_lex *lx, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* tku_json_tok_name() - a short description of a token kind, for messages. */
const char *tku_json_tok_name(enum tku_json_tok t);

#endif

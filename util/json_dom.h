/*
 * A small bounded JSON DOM over the streaming tokenizer (json_lex.h), for small hostile files
 * (baselines, gates files): the whole document in memory, at most max_bytes decoded bytes, nesting
 * at most TKU_JSON_MAX_DEPTH, parsed without recursion. Trace files never go through it.
 */
#ifndef TK_UTIL_JSON_DOM_H
#define TK_UTIL_JSON_DOM_H

#include <stddef.h>
#include <stdint.h>

enum tku_json_type {
	TKU_JSON_NULL,
	TKU_JSON_BOOL,
	TKU_JSON_NUMBER,
	TKU_JSON_STRING,
	TKU_JSON_ARRAY,
	TKU_JSON_OBJECT
};

struct tku_json_value {
	enum tku_json_type type;
	int b;	    /* TKU_JSON_BOOL */
	double num; /* TKU_JSON_NUMBER (always finite) */
	char *str;  /* TKU_JSON_STRING: NUL-terminated, len bytes (a raw NUL byte may be inside) */
	size_t len;
	struct tku_json_value
	    *items;	    /* ARRAY: the elements; OBJECT: the member values, in file order */
	char **keys;	    /* OBJECT: keys[i] names items[i] */
	size_t n;	    /* ARRAY, OBJECT: count of items */
	uint64_t line, col; /* where the value starts (1-based), for messages */
};

/*
 * tku_json_parse_file() - parse the whole file @path (plain or gzip) of at most @max_bytes decoded
 * bytes into *@out (free with tku_json_free). Errors name the file, line and column ("'f.json': line
 * 3, column 7: expected ',' or '}' after an object member"): TK_EFORMAT for malformed input
 * (also trailing content after the value, a key twice in one object, nesting deeper than
 * TKU_JSON_MAX_DEPTH, a file beyond @max_bytes, a number out of the range of a double), TK_EIO when
 * the file cannot be read, TK_ENOMEM. *@out is NULL on error.
 */
int tku_json_parse_file(const char *path, size_t max_bytes, struct tku_json_value **out, char *err,
			size_t errlen);

/* tku_json_get() - the member @key of the object @obj; NULL when absent or @obj is not an object. */
const struct tku_json_value *tku_json_get(const struct tku_json_value *obj, const char *key);

/* tku_json_free() - free a value from tku_json_parse_file() and all it holds; NULL-safe. */
void tku_json_free(struct tku_json_value *v);

#endif

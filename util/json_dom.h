/*
 * A small bounded JSON DOM over the streaming tokenizer (json_lex.h), for small hostile files
 * (baselines, gates files): the whole document in memory, at most max_bytes decoded bytes, nesting
 * at most JSON_MAX_DEPTH, parsed without recursion. Trace files never go through it.
 */
#ifndef TK_JSON_DOM_H
#define TK_JSON_DOM_H

#include <stddef.h>
#include <stdint.h>

enum tkj_type { TKJ_NULL, TKJ_BOOL, TKJ_NUMBER, TKJ_STRING, TKJ_ARRAY, TKJ_OBJECT };

struct tkj_value {
	enum tkj_type type;
	int b;		       /* TKJ_BOOL */
	double num;	       /* TKJ_NUMBER (always finite) */
	char *str;	       /* TKJ_STRING: NUL-terminated, len bytes (a raw NUL byte may be inside) */
	size_t len;
	struct tkj_value *items; /* ARRAY: the elements; OBJECT: the member values, in file order */
	char **keys;		 /* OBJECT: keys[i] names items[i] */
	size_t n;		 /* ARRAY, OBJECT: count of items */
	uint64_t line, col;	 /* where the value starts (1-based), for messages */
};

/*
 * tkj_parse_file() - parse the whole file @path (plain or gzip) of at most @max_bytes decoded
 * bytes into *@out (free with tkj_free). Errors name the file, line and column ("'f.json': line
 * 3, column 7: expected ',' or '}' after an object member"): TK_EFORMAT for malformed input
 * (also trailing content after the value, a key twice in one object, nesting deeper than
 * JSON_MAX_DEPTH, a file beyond @max_bytes, a number out of the range of a double), TK_EIO when
 * the file cannot be read, TK_ENOMEM. *@out is NULL on error.
 */
int tkj_parse_file(const char *path, size_t max_bytes, struct tkj_value **out, char *err,
		   size_t errlen);

/* tkj_get() - the member @key of the object @obj; NULL when absent or @obj is not an object. */
const struct tkj_value *tkj_get(const struct tkj_value *obj, const char *key);

/* tkj_free() - free a value from tkj_parse_file() and all it holds; NULL-safe. */
void tkj_free(struct tkj_value *v);

#endif

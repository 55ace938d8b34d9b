/*
 * One Chrome trace event, parsed from the token stream into a small flat record (its own arena,
 * reused from event to event): the known keys in fields, every arg (and every unknown event key)
 * as a key/value pair, nested values kept as compact JSON text. Plus the exact number helpers:
 * decimal microsecond text to integer nanoseconds with no floating point.
 */
#ifndef TK_CHROME_JSON_EVENT_H
#define TK_CHROME_JSON_EVENT_H

#include <stddef.h>
#include <stdint.h>

#include "util/json_lex.h"

#define CJ_MAX_EVENT_BYTES (64u << 20) /* one event's text may not need more arena than this */

enum cj_vtype { CJV_NONE, CJV_STR, CJV_NUM, CJV_TRUE, CJV_FALSE, CJV_NULL, CJV_RAW };

/* A value: its type and its text (a NUL-terminated string in the arena), by offset, and the
 * text's length in bytes. */
struct cj_val {
	enum cj_vtype type;
	uint32_t off, len;
};

struct cj_arg {
	uint32_t key;  /* arena offset of the key */
	uint32_t klen; /* its length in bytes */
	struct cj_val v;
	int top; /* 1 for an unknown key of the event itself, 0 for a key of args */
};

struct cj_event {
	struct cj_val ph, cat, name, pid, tid, ts, dur, id, id2, bp, scope, bind_id;
	struct cj_arg *args;
	size_t nargs, cap_args;
	char *arena;
	size_t alen, acap;
	uint64_t line, col; /* where the event's '{' was */
	int64_t ts_ns;	    /* start of an open B event (set by the B/E matcher) */
};

/* cj_str() - the text of @v (a string, a number's text, "true", ..., or compact JSON). */
static inline const char *cj_str(const struct cj_event *e, struct cj_val v)
{
	return e->arena + v.off;
}

/*
 * cj_event_parse() - read one event object; the '{' has been consumed. @depth is the nesting
 * depth of that object. Returns 0, or -1 with the lexer's error set.
 */
int cj_event_parse(struct tku_json_lex *lx, struct cj_event *e, int depth);
/* cj_event_parse_light() - the same, but "args" is skipped (not stored) unless "ph" came
 * before it and is "M": for the first pass, which needs only metadata args. */
int cj_event_parse_light(struct tku_json_lex *lx, struct cj_event *e, int depth);
void cj_event_free(struct cj_event *e);

/*
 * cj_event_fast() - the fast path of cj_event_parse() (@light 0) and cj_event_parse_light()
 * (@light 1), in chrome_json_fast.c: parses the event straight out of the bytes the lexer holds.
 * Returns 0 with @e filled exactly as the exact parser would fill it and the lexer after the
 * closing '}', or 1 when it cannot tell quickly (the event runs past the buffered bytes, or
 * holds something unusual or invalid): then the lexer is untouched and the caller runs the
 * exact parser, which also gives the error message when there is one.
 */
int cj_event_fast(struct tku_json_lex *lx, struct cj_event *e, int light);

/* json_skip_value() - consume one value whose first token is @t (depth-bounded). 0 or -1. */
int json_skip_value(struct tku_json_lex *lx, enum tku_json_tok t, int depth);

/*
 * cj_time_ns() - decimal text @s (µs, as JSON writes numbers) times @scale_exp10 (3 for µs -> ns)
 * to integer ns, exactly: digits beyond ns are rounded to nearest, ties away from zero.
 * 0, or -1 when @s is not a number or the result does not fit in int64.
 */
int cj_time_ns(const char *s, int scale_exp10, int64_t *out);
/* cj_int() - @s as an exact integer (a number without fraction/exponent, or with a zero
 * fraction). 0, or -1 when it is not one or does not fit. */
int cj_int(const char *s, int64_t *out);
/* cj_plain_int() - @s as an integer written without '.' or exponent ("12", "-3"): what args,
 * pids and tids keep as integers. 0, or -1 when it is not one or does not fit. */
int cj_plain_int(const char *s, int64_t *out);

#endif

/*
 * What a reader of a store may assume of its rows, checked: overflow-checked int64 arithmetic
 * and the rules every bulk reader (exports, analyses, reports) applies to the ids and times it
 * reads before using them as indexes, sizes or in arithmetic. A store is input like any other:
 * it may break the schema's rules (a file edited with sqlite3, damaged, or written by something
 * else), and a row that does gets TK_EFORMAT with a message in the form of TK_ROW_FMT.
 *
 * The rules (docs/store.md, "What readers check"):
 * - times: every time point, a start and a start + duration, lies in (-2^62, 2^62) ns (about
 *   146 years either side of the epoch), and durations are >= 0; the difference of any two time
 *   points then fits in an int64, so code past the check subtracts times freely;
 * - kernel_details.static_smem and dynamic_smem, when not NULL, are sizes: 0 <= v < 2^62;
 * - ids used to index arrays: 0 <= id <= tk_id_cap(rows of the table): tracekit writes ids
 *   densely from 0 or 1, and memory stays bounded by the number of rows, not by the ids.
 */
#ifndef TK_STORE_CHECKED_H
#define TK_STORE_CHECKED_H

#include <stdint.h>

/* printf format of a row's error, then the reason: path, table, row id (long long). */
#define TK_ROW_FMT "store '%s': table %s, row id %lld: "

#define TK_TIME_LIMIT ((int64_t)1 << 62)

/* 1 when a + b (a - b, a * b) overflows int64; the result in *r otherwise. */
static inline int tk_add_ovf(int64_t a, int64_t b, int64_t *r)
{
	return __builtin_add_overflow(a, b, r);
}

static inline int tk_sub_ovf(int64_t a, int64_t b, int64_t *r)
{
	return __builtin_sub_overflow(a, b, r);
}

static inline int tk_mul_ovf(int64_t a, int64_t b, int64_t *r)
{
	return __builtin_mul_overflow(a, b, r);
}

/* 1 when @t may be a time point of a store. */
static inline int tk_time_ok(int64_t t)
{
	return t > -TK_TIME_LIMIT && t < TK_TIME_LIMIT;
}

/* NULL when [@ts, @ts + @dur] is a valid interval of a store, else what is wrong with it. */
static inline const char *tk_span_check(int64_t ts, int64_t dur)
{
	if (!tk_time_ok(ts))
		return "ts_ns is out of range (more than 2^62 ns from the epoch)";
	if (dur < 0)
		return "dur_ns is negative";
	if (dur >= TK_TIME_LIMIT - ts) /* no overflow: ts > -2^62 */
		return "ts_ns + dur_ns is out of range (more than 2^62 ns from the epoch)";
	return 0;
}

/* 1 when @v may be a size in bytes of one thing (shared memory of a launch): 0 <= v < 2^62, so
 * that two of them add up without overflow. */
static inline int tk_size_ok(int64_t v)
{
	return v >= 0 && v < TK_TIME_LIMIT;
}

/* The greatest id a table of @rows rows may use where ids index arrays (see above). */
static inline int64_t tk_id_cap(int64_t rows)
{
	if (rows < 0)
		rows = 0;
	if (rows > (INT64_MAX - 1024) / 2)
		return INT64_MAX - 1;
	return 2 * rows + 1024;
}

/* Array slots for the ids of a table of @rows rows, greatest id @max_id: max_id + 1 capped at
 * tk_id_cap(rows) + 1 (the rows beyond the cap are refused when read, by tk_id_ok()). */
static inline int64_t tk_id_slots(int64_t rows, int64_t max_id)
{
	int64_t cap = tk_id_cap(rows);
	return max_id < 0 ? 1 : max_id < cap ? max_id + 1 : cap + 1;
}

/* Why a row fails tk_id_ok(). */
#define TK_ID_RANGE_MSG "id out of range (negative, or above 2 x the table's rows + 1024)"

/* 1 when @id may index an array of @slots slots. */
static inline int tk_id_ok(int64_t id, int64_t slots)
{
	return id >= 0 && id < slots;
}

#endif

/*
 * Growable arrays: the one growth rule (capacity doubling, size arithmetic checked against
 * overflow) behind every array, arena and buffer that grows by appending. Typical use, with
 * `struct item *v; size_t n, cap;`:
 *
 *	if (TKU_GROW(v, cap, n + 1, 64) != TK_OK)
 *		return TK_ENOMEM;
 *	v[n++] = item;
 *
 * TKU_GROW() is a compare when there is room; growing (util/vec.c) reallocates to the first
 * capacity >= the need in the series first, 2 first, 4 first, ... (or cap, 2 cap, ... when the
 * array has a capacity). On failure (out of memory, or a byte count over SIZE_MAX) the array and
 * its capacity are left as they were. Parallel arrays that share one capacity compute it once
 * with tku_grow_cap() and reallocate each with tku_reallocn().
 */
#ifndef TK_UTIL_VEC_H
#define TK_UTIL_VEC_H

#include <stddef.h>
#include <stdint.h>

/*
 * tku_grow_cap() - the capacity, in elements of @size bytes, that an array of capacity @cap
 * grows to so that it holds @need elements: @cap (or @first when 0, at least 1) doubled until
 * it does; 0 when that many bytes do not fit in a size_t.
 */
size_t tku_grow_cap(size_t cap, size_t need, size_t size, size_t first);

/* tku_reallocn() - realloc(@p, @n * @size), NULL (and @p untouched) when the product overflows. */
void *tku_reallocn(void *p, size_t n, size_t size);

/* The slow path of TKU_GROW(): *(T **)@pp grown to tku_grow_cap(); TK_OK or TK_ENOMEM. */
int tku_grow_slow(void *pp, size_t *cap, size_t need, size_t size, size_t first);

/* TK_OK when the array *(T **)@pp of capacity *@cap holds @need elements (grown if needed),
 * TK_ENOMEM otherwise (array unchanged). */
static inline int tku_grow(void *pp, size_t *cap, size_t need, size_t size, size_t first)
{
	return need <= *cap ? 0 /* TK_OK */ : tku_grow_slow(pp, cap, need, size, first);
}

/*
 * TKU_GROW() - make the array @arr (an lvalue of type T *) with capacity @cap (an lvalue of
 * type size_t, in elements) hold @need elements, doubling from @first; TK_OK or TK_ENOMEM.
 */
#define TKU_GROW(arr, cap, need, first) tku_grow(&(arr), &(cap), (need), sizeof(*(arr)), (first))

#endif

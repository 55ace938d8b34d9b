/*
 * A stable sort with its comparison inlined, for the arrays the store writer and the analyses sort
 * (index keys, events, intervals: 10^4 to 10^7 elements, often in long ascending runs already).
 * TKU_SORT_DEFINE(name, type, before) defines
 *
 *   static int name(type *v, size_t n);
 *
 * which sorts v[0..n) so that no element comes after one it is before(): before(a, b) (a macro or
 * inline function of two const type pointers) is nonzero when *a goes strictly before *b. Equal
 * elements keep their order, so the result is the one any stable sort gives (glibc's qsort merge
 * sort included) and does not depend on the C library. A natural merge sort: the ascending runs
 * already there (a sorted array is one scan), short ones made up to TKU_SORT_MIN_RUN by insertion,
 * then merged pairwise between the array and a buffer of n elements. O(n log runs) comparisons.
 * Returns 0, or -1 when the buffer cannot be had (v is then unchanged).
 */
#ifndef TK_UTIL_SORT_H
#define TK_UTIL_SORT_H

#include <stdlib.h>
#include <string.h>

#define TKU_SORT_MIN_RUN 24

#define TKU_SORT_DEFINE(name, type, before)                                                        \
	/* merge the runs ending at ends[0..nr) of @src into @dst; the run count after */          \
	static size_t name##_pass(const type *src, type *dst, size_t *ends, size_t nr)             \
	{                                                                                          \
		size_t lo = 0, out = 0;                                                            \
		for (size_t r = 0; r < nr; r += 2) {                                               \
			size_t mid = ends[r], hi = r + 1 < nr ? ends[r + 1] : mid;                 \
			if (mid == hi || !(before(&src[mid], &src[mid - 1]))) {                    \
				memcpy(dst + lo, src + lo, (hi - lo) * sizeof(type));              \
			} else {                                                                   \
				size_t i = lo, j = mid, k = lo;                                    \
				while (i < mid && j < hi)                                          \
					dst[k++] = before(&src[j], &src[i]) ? src[j++] : src[i++]; \
				memcpy(dst + k, src + i, (mid - i) * sizeof(type));                \
				k += mid - i;                                                      \
				memcpy(dst + k, src + j, (hi - j) * sizeof(type));                 \
			}                                                                          \
			ends[out++] = hi;                                                          \
			lo = hi;                                                                   \
		}                                                                                  \
		return out;                                                                        \
	}                                                                                          \
                                                                                                   \
	static int name(type *v, size_t n)                                                         \
	{                                                                                          \
		size_t i = 1;                                                                      \
		while (i < n && !(before(&v[i], &v[i - 1])))                                       \
			i++;                                                                       \
		if (i >= n)                                                                        \
			return 0; /* sorted already */                                             \
		size_t maxr = n / TKU_SORT_MIN_RUN + 2;                                            \
		type *tmp = malloc(n * sizeof(type));                                              \
		size_t *ends = malloc(maxr * sizeof(size_t));                                      \
		if (!tmp || !ends) {                                                               \
			free(tmp);                                                                 \
			free(ends);                                                                \
			return -1;                                                                 \
		}                                                                                  \
		size_t nr = 0;                                                                     \
		for (size_t lo = 0; lo < n;) {                                                     \
			size_t hi = lo + 1;                                                        \
			while (hi < n && !(before(&v[hi], &v[hi - 1])))                            \
				hi++;                                                              \
			size_t want = lo + TKU_SORT_MIN_RUN < n ? lo + TKU_SORT_MIN_RUN : n;       \
			for (; hi < want; hi++) { /* insertion: after every equal one */           \
				type x = v[hi];                                                    \
				size_t k = hi;                                                     \
				for (; k > lo && before(&x, &v[k - 1]); k--)                       \
					v[k] = v[k - 1];                                           \
				v[k] = x;                                                          \
			}                                                                          \
			while (hi < n && !(before(&v[hi], &v[hi - 1])))                            \
				hi++;                                                              \
			ends[nr++] = hi;                                                           \
			lo = hi;                                                                   \
		}                                                                                  \
		type *src = v, *dst = tmp;                                                         \
		while (nr > 1) {                                                                   \
			nr = name##_pass(src, dst, ends, nr);                                      \
			type *t = src;                                                             \
			src = dst;                                                                 \
			dst = t;                                                                   \
		}                                                                                  \
		if (src != v)                                                                      \
			memcpy(v, src, n * sizeof(type));                                          \
		free(tmp);                                                                         \
		free(ends);                                                                        \
		return 0;                                                                          \
	}

#endif

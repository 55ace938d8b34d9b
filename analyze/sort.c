/*
 * Sorting the analyses share: 64-bit integers ascending by a byte-wise LSD radix sort (kernel
 * durations for the kernel stats' median, launch call durations and delays for the launch
 * statistics), the same order as qsort in a few linear passes.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analyze_internal.h"

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

/*
 * Sort v[0..n) ascending: qsort for small arrays, else an LSD radix sort by bytes (of the value
 * with its sign bit flipped, so negatives order first) that skips the bytes every value shares;
 * @tmp holds n values. Same result as qsort, in a few linear passes.
 */
void tka_sort_i64(int64_t *v, size_t n, int64_t *tmp)
{
	size_t count[8][256];
	if (n < 256 || !tmp) {
		qsort(v, n, sizeof(*v), cmp_i64);
		return;
	}
	memset(count, 0, sizeof(count));
	for (size_t i = 0; i < n; i++) {
		uint64_t u = (uint64_t)v[i] ^ (1ULL << 63);
		for (int b = 0; b < 8; b++)
			count[b][(u >> (8 * b)) & 255]++;
	}
	int64_t *src = v, *dst = tmp;
	for (int b = 0; b < 8; b++) {
		size_t pos = 0, skip = 0;
		for (int k = 0; k < 256; k++) {
			size_t c = count[b][k];
			skip |= c == n;
			count[b][k] = pos;
			pos += c;
		}
		if (skip) /* every value has the same byte here */
			continue;
		for (size_t i = 0; i < n; i++) {
			uint64_t u = (uint64_t)src[i] ^ (1ULL << 63);
			dst[count[b][(u >> (8 * b)) & 255]++] = src[i];
		}
		int64_t *t = src;
		src = dst;
		dst = t;
	}
	if (src != v)
		memcpy(v, src, n * sizeof(*v));
}

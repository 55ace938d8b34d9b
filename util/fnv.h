/* FNV-1a, the one 64-bit string hash of the library (hash maps, string interning). */
#ifndef TK_UTIL_FNV_H
#define TK_UTIL_FNV_H

#include <stddef.h>
#include <stdint.h>

/* tku_fnv1a64() - FNV-1a of the @n bytes at @data. */
static inline uint64_t tku_fnv1a64(const void *data, size_t n)
{
	const unsigned char *p = data;
	uint64_t h = 1469598103934665603ull;
	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 1099511628211ull;
	return h;
}

#endif

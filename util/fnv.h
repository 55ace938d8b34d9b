/*
 * FNV-1a 64 (Fowler-Noll-Vo), the one copy of its constants: the string and byte hash of the
 * interner, the importers' maps and ids, the analyses' group keys and the tests' digests.
 * Header only (static inline): a byte loop the compiler inlines into each hot caller.
 *
 *	uint64_t h = tku_fnv1a64(p, n);                 one buffer
 *	uint64_t h = tku_fnv1a64_str(s);                a NUL-terminated string
 *	uint64_t h = tku_fnv1a64_init();                incremental: init, then step over each part
 *	h = tku_fnv1a64_step(h, p, n);
 *	h = tku_fnv1a64_step_str(h, s);                 ... or over a NUL-terminated string
 *	h = tku_fnv1a64_word(h, w);                     one 64-bit word folded in as FNV folds a byte
 *
 * Two offset bases. TKU_FNV64_OFFSET is the standard one (tku_fnv1a64(), _str(), _init()).
 * TKU_FNV64_TK_OFFSET, a digit short of it, is the one tracekit's own hashes have always started
 * from: values derived from it are data (the Chrome importer's flow ids of string ids are written
 * to stores), so those callers keep it: h = tku_fnv1a64_step_str(TKU_FNV64_TK_OFFSET, s). A hash
 * table may use either, but changing the basis of one whose iteration order reaches an output
 * changes that output.
 */
#ifndef TK_UTIL_FNV_H
#define TK_UTIL_FNV_H

#include <stddef.h>
#include <stdint.h>

#define TKU_FNV64_OFFSET 14695981039346656037ULL   /* 0xcbf29ce484222325 */
#define TKU_FNV64_TK_OFFSET 1469598103934665603ULL /* tracekit's historic basis (see above) */
#define TKU_FNV64_PRIME 1099511628211ULL	   /* 0x100000001b3 */

/* The FNV-1a 64 offset basis: the hash of no bytes. */
static inline uint64_t tku_fnv1a64_init(void)
{
	return TKU_FNV64_OFFSET;
}

/* @h continued over the @n bytes at @p. */
static inline uint64_t tku_fnv1a64_step(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;
	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * TKU_FNV64_PRIME;
	return h;
}

/* @h with the 64-bit word @w folded in (xor, multiply), as FNV-1a folds a byte. */
static inline uint64_t tku_fnv1a64_word(uint64_t h, uint64_t w)
{
	return (h ^ w) * TKU_FNV64_PRIME;
}

/* FNV-1a 64 of the @n bytes at @p. */
static inline uint64_t tku_fnv1a64(const void *p, size_t n)
{
	return tku_fnv1a64_step(TKU_FNV64_OFFSET, p, n);
}

/* @h continued over the bytes of the NUL-terminated string @s (not the NUL). */
static inline uint64_t tku_fnv1a64_step_str(uint64_t h, const char *s)
{
	for (const unsigned char *b = (const unsigned char *)s; *b; b++)
		h = (h ^ *b) * TKU_FNV64_PRIME;
	return h;
}

/* FNV-1a 64 of the NUL-terminated string @s (its bytes, not the NUL). */
static inline uint64_t tku_fnv1a64_str(const char *s)
{
	return tku_fnv1a64_step_str(TKU_FNV64_OFFSET, s);
}

#endif

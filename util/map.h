/*
 * The library's one hash map: an index from keys to positions in an array the caller owns.
 *
 * The caller keeps its entries (keys and values, in the order it adds them) in its own array and
 * hashes its keys itself (tku_fnv1a64() for bytes, tku_hash_i64s() for int64 tuples); the map
 * holds, per slot, 32 bits of the hash and the entry's index, and asks the caller's equality
 * callback whether the entry at an index is the key. Open addressing, linear probing, at most half
 * full, deletion by backward shift (no tombstones). tku_map_find() is inline so that the compiler
 * inlines the callback too: a lookup costs the probe and one read of the caller's entry.
 *
 *	if (tku_map_room(&m) != 0) goto oom;           // room for one more key: slots stay put
 *	size_t at;
 *	uint32_t ix = tku_map_find(&m, h, eq, ctx, &at);
 *	if (ix == TKU_MAP_NONE) {
 *		ix = (uint32_t)n++;                    // append the entry to the array
 *		tku_map_set(&m, at, h, ix);
 *	}
 *
 * Iterating is iterating over the caller's array. At most TKU_MAP_MAX keys.
 */
#ifndef TK_UTIL_MAP_H
#define TK_UTIL_MAP_H

#include <stddef.h>
#include <stdint.h>

#define TKU_MAP_NONE UINT32_MAX		  /* tku_map_find(): not there */
#define TKU_MAP_MAX ((size_t)1 << 31)	  /* keys at most */
#define TKU_MAP_TAG 0xFFFFFFFF00000000ull /* the hash bits a slot keeps */

struct tku_map {
	uint64_t *slots; /* 0: empty; else (hash & TKU_MAP_TAG) | (index + 1) */
	size_t cap;   /* slots: 0 or a power of two; the home of a hash is (hash >> 32) & (cap-1) */
	size_t count; /* keys */
};

/* Whether the caller's entry at @ix is the key being looked up (@ctx: the caller's state). */
typedef int (*tku_map_eq_fn)(const void *ctx, uint32_t ix);

/* tku_map_free() - release the slots (@m may be NULL); the map is empty and usable again. */
void tku_map_free(struct tku_map *m);

/* tku_map_clear() - forget every key, keeping the slots. */
void tku_map_clear(struct tku_map *m);

/**
 * tku_map_reserve() - make room for @keys keys, so that adding them moves no slot.
 * @return 0, or -1 when out of memory or @keys > TKU_MAP_MAX
 */
int tku_map_reserve(struct tku_map *m, size_t keys);

/* tku_map_room() - tku_map_reserve() for one more key than the map holds. */
static inline int tku_map_room(struct tku_map *m)
{
	return (m->count + 1) * 2 <= m->cap ? 0 : tku_map_reserve(m, m->count + 1);
}

/**
 * tku_map_find() - the index of the key whose hash is @hash and for which @eq says yes.
 * @param at  OUT (may be NULL): the key's slot, or the empty slot where tku_map_set() adds it;
 *            valid until the next change to @m. With no slots yet (cap 0) it is 0 and only
 *            good after tku_map_room().
 * @return the index, or TKU_MAP_NONE
 */
static inline uint32_t tku_map_find(const struct tku_map *m, uint64_t hash, tku_map_eq_fn eq,
				    const void *ctx, size_t *at)
{
	size_t mask = m->cap - 1, i = (size_t)(hash >> 32) & mask;
	uint64_t tag = hash & TKU_MAP_TAG;
	if (!m->cap) {
		if (at)
			*at = 0;
		return TKU_MAP_NONE;
	}
	for (;; i = (i + 1) & mask) {
		uint64_t s = m->slots[i];
		if (!s || ((s & TKU_MAP_TAG) == tag && eq(ctx, (uint32_t)s - 1))) {
			if (at)
				*at = i;
			return s ? (uint32_t)s - 1 : TKU_MAP_NONE;
		}
	}
}

/* tku_map_set() - add index @ix under @hash at the empty slot @at that tku_map_find() gave (after
 * tku_map_room(): the map has room). @ix < UINT32_MAX. */
static inline void tku_map_set(struct tku_map *m, size_t at, uint64_t hash, uint32_t ix)
{
	m->slots[at] = (hash & TKU_MAP_TAG) | ((uint64_t)ix + 1);
	m->count++;
}

/* tku_map_repoint() - make the key at slot @at (from tku_map_find()) point at index @ix: for a
 * caller that moves an entry in its array (say the last one into a deleted one's place). */
static inline void tku_map_repoint(struct tku_map *m, size_t at, uint32_t ix)
{
	m->slots[at] = (m->slots[at] & TKU_MAP_TAG) | ((uint64_t)ix + 1);
}

/* tku_map_del() - remove the key at slot @at (from tku_map_find()); its entry is the caller's. */
void tku_map_del(struct tku_map *m, size_t at);

/* tku_hash_i64s() - a hash of the @n int64s at @k, well mixed in its high bits. */
static inline uint64_t tku_hash_i64s(const int64_t *k, size_t n)
{
	uint64_t h = 0x9E3779B97F4A7C15ull * (n + 1);
	for (size_t i = 0; i < n; i++) {
		h = (h ^ (uint64_t)k[i]) * 0xBF58476D1CE4E5B9ull;
		h ^= h >> 31;
	}
	h *= 0x94D049BB133111EBull;
	return h ^ (h >> 29);
}

/* tku_hash_i64() - tku_hash_i64s() of one key. */
static inline uint64_t tku_hash_i64(int64_t k)
{
	return tku_hash_i64s(&k, 1);
}

/*
 * ---- a table keyed by int64 tuples, over the map ----
 * Elements of @size bytes, each opening with its key of @nkey int64s, in one array in the order
 * they were added (deletion moves the last one into the hole). Set size and nkey before first use
 * (TKU_TABLE_INIT); zero-initialised storage otherwise.
 */
struct tku_table {
	struct tku_map map;
	char *v;	   /* elements */
	size_t n, cap;	   /* elements held, room */
	size_t size, nkey; /* bytes per element, int64s per key (at its start) */
};

#define TKU_TABLE_INIT(type, nkey)                             \
	{                                                      \
		{NULL, 0, 0}, NULL, 0, 0, sizeof(type), (nkey) \
	}

/* tku_table_elem() - element @i, in [0, t->n). */
static inline void *tku_table_elem(const struct tku_table *t, size_t i)
{
	return t->v + i * t->size;
}

/**
 * tku_table_at() - the element of @key, added (zeroed but for its key) when absent.
 * @param added  OUT (may be NULL): 1 when it was added
 * @return the element, valid until the next change to @t; NULL when out of memory
 */
void *tku_table_at(struct tku_table *t, const int64_t *key, int *added);

/* tku_table_get() - the element of @key, or NULL. */
void *tku_table_get(const struct tku_table *t, const int64_t *key);

/**
 * tku_table_del() - remove the element of @key when present; the last element takes its place.
 * @param out  OUT (may be NULL): a copy of the removed element
 * @return 1 when it was there, else 0
 */
int tku_table_del(struct tku_table *t, const int64_t *key, void *out);

/* tku_table_clear() - remove every element, keeping the storage. */
void tku_table_clear(struct tku_table *t);

/* tku_table_free() - release the storage (@t may be NULL); size and nkey are kept. */
void tku_table_free(struct tku_table *t);

#endif

/*
 * Hash maps for the Chrome JSON importer: string keys -> int64 values (processes, threads,
 * counters, flow categories), over the library's map (util/map.h), and (int64, int64) pairs ->
 * int64 (events by track and start time, flow ids, pending flow points), a map of its own that
 * keeps keys close in b close in its slots (see cj_pmap). Both grow by doubling; callers bound
 * their size.
 */
#ifndef TK_CHROME_JSON_HASH_H
#define TK_CHROME_JSON_HASH_H

#include <stddef.h>
#include <stdint.h>

#include "../util/map.h"

struct cj_smap {
	struct tku_map map; /* key -> index into keys and vals */
	char **keys;	    /* copies, owned */
	int64_t *vals;
	size_t count, cap;
};

/* cj_smap_get() - pointer to the value of @key, or NULL. */
int64_t *cj_smap_get(const struct cj_smap *m, const char *key);
/* cj_smap_put() - insert or replace; 0, or -1 out of memory. */
int cj_smap_put(struct cj_smap *m, const char *key, int64_t val);
/* cj_smap_del() - remove @key when present. */
void cj_smap_del(struct cj_smap *m, const char *key);
void cj_smap_free(struct cj_smap *m);

/*
 * (a, b) -> value. The entries sit in one array in the order they were added (it grows with
 * realloc, so its pages are touched once, in order); an index of 32-bit slots (linear probing)
 * points into it, each with a few bits of the key's hash so that probing past other keys seldom
 * reads their entries. At most CJ_PMAP_MAX keys; keys must have a > INT64_MIN (callers use ids
 * and indexes >= 0).
 */
struct cj_pent {
	int64_t a, b, v;
};

#define CJ_PMAP_MAX ((1u << 20) - 3) /* keys at most */

struct cj_pmap {
	uint32_t *slots; /* 0 empty, 1 deleted, else 12 bits of hash << 20 | (entry index + 2) */
	struct cj_pent *ents;
	size_t cap;   /* slots */
	size_t count; /* keys added since the last clear, deleted ones included */
	size_t cap_ents;
	/* Where a key's probe starts: keys of one a whose b are close (timestamps, sequential
	 * ids) start close, b >> shift slots apart, so that a stream of keys in b order touches
	 * few cache lines; set shift before first use. A probe longer than a few cache lines (keys
	 * crowded together) switches the map to plain hashing until the next clear. */
	unsigned shift;
	int scattered, crowded;
};

int64_t *cj_pmap_get(struct cj_pmap *m, int64_t a, int64_t b);
/* cj_pmap_at() - the value of (a, b), added as @init when absent (*@added says which); NULL
 * when out of memory or full. The pointer is valid until the next change to @m. */
int64_t *cj_pmap_at(struct cj_pmap *m, int64_t a, int64_t b, int64_t init, int *added);
int cj_pmap_put(struct cj_pmap *m, int64_t a, int64_t b, int64_t val);
/* cj_pmap_reserve() - make room for @keys keys without growing (capped at CJ_PMAP_MAX); 0 or -1
 * out of memory. */
int cj_pmap_reserve(struct cj_pmap *m, size_t keys);
/* cj_pmap_del() - remove (a, b) when present. */
void cj_pmap_del(struct cj_pmap *m, int64_t a, int64_t b);
void cj_pmap_clear(struct cj_pmap *m);
void cj_pmap_free(struct cj_pmap *m);

#endif

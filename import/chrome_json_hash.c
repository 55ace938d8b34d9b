/* Hash maps used by the Chrome JSON importer (see chrome_json_hash.h). */
#include "chrome_json_hash.h"

#include <stdlib.h>
#include <string.h>

#include "../util/fnv.h"
#include "../util/vec.h"

static uint64_t hash_pair(int64_t a, int64_t b)
{
	uint64_t h = (uint64_t)a * 0x9E3779B97F4A7C15ull ^ ((uint64_t)b + 0x632BE59BD9B4E019ull);
	h ^= h >> 31;
	h *= 0xBF58476D1CE4E5B9ull;
	h ^= h >> 29;
	return h;
}

/* The key looked up, for the map's equality callback. */
struct skey {
	const struct cj_smap *m;
	const char *key;
};

static int same_key(const void *ctx, uint32_t ix)
{
	const struct skey *k = ctx;
	return !strcmp(k->m->keys[ix], k->key);
}

static uint64_t hash_str(const char *s)
{
	return tku_fnv1a64(s, strlen(s));
}

int64_t *cj_smap_get(const struct cj_smap *m, const char *key)
{
	struct skey k = {m, key};
	uint32_t ix = tku_map_find(&m->map, hash_str(key), same_key, &k, NULL);
	return ix == TKU_MAP_NONE ? NULL : &m->vals[ix];
}

int cj_smap_put(struct cj_smap *m, const char *key, int64_t val)
{
	struct skey k = {m, key};
	uint64_t h = hash_str(key);
	size_t at;
	if (tku_map_room(&m->map) != 0)
		return -1;
	uint32_t ix = tku_map_find(&m->map, h, same_key, &k, &at);
	if (ix != TKU_MAP_NONE) {
		m->vals[ix] = val;
		return 0;
	}
	if (m->count == m->cap) { /* keys and vals share cap */
		size_t cap = tku_grow_cap(m->cap, m->count + 1, sizeof(char *), 32);
		char **keys = cap ? tku_reallocn(m->keys, cap, sizeof(*keys)) : NULL;
		if (keys)
			m->keys = keys;
		int64_t *vals = keys ? tku_reallocn(m->vals, cap, sizeof(*vals)) : NULL;
		if (!vals)
			return -1;
		m->vals = vals;
		m->cap = cap;
	}
	if (!(m->keys[m->count] = strdup(key)))
		return -1;
	m->vals[m->count] = val;
	tku_map_set(&m->map, at, h, (uint32_t)m->count++);
	return 0;
}

void cj_smap_del(struct cj_smap *m, const char *key)
{
	struct skey k = {m, key};
	size_t at;
	uint32_t ix = tku_map_find(&m->map, hash_str(key), same_key, &k, &at);
	if (ix == TKU_MAP_NONE)
		return;
	tku_map_del(&m->map, at);
	free(m->keys[ix]);
	if (ix != --m->count) { /* the last key moves into the hole */
		struct skey l = {m, m->keys[m->count]};
		tku_map_find(&m->map, hash_str(l.key), same_key, &l, &at);
		tku_map_repoint(&m->map, at, ix);
		m->keys[ix] = m->keys[m->count];
		m->vals[ix] = m->vals[m->count];
	}
}

void cj_smap_free(struct cj_smap *m)
{
	for (size_t i = 0; i < m->count; i++)
		free(m->keys[i]);
	free(m->keys);
	free(m->vals);
	tku_map_free(&m->map);
	memset(m, 0, sizeof(*m));
}

#define SLOT_IX(s) (((s)&0xFFFFFu) - 2)
#define SLOT_TAG(h) ((uint32_t)((h) >> 52) << 20)
#define LONG_PROBE 64 /* slots: past this, the map goes back to plain hashing */

/* Where the probe for (a, b) starts (before masking). */
static inline uint64_t pmap_start(const struct cj_pmap *m, int64_t a, int64_t b, uint64_t h)
{
	if (m->scattered)
		return h;
	return ((uint64_t)a * 0x9E3779B97F4A7C15ull >> 24) + ((uint64_t)b >> m->shift);
}

/* The slot holding (a, b), or the empty (or deleted) slot where it would go. */
static size_t pmap_find(struct cj_pmap *m, int64_t a, int64_t b, uint64_t h, int *found)
{
	size_t mask = m->cap - 1, del = SIZE_MAX, n = 0;
	uint32_t tag = SLOT_TAG(h);
	for (size_t i = pmap_start(m, a, b, h) & mask;; i = (i + 1) & mask) {
		uint32_t s = m->slots[i];
		if (++n > LONG_PROBE && !m->scattered)
			m->crowded = 1; /* the next insert re-indexes */
		if (s == 0) {
			*found = 0;
			return del != SIZE_MAX ? del : i;
		}
		if (s == 1) {
			if (del == SIZE_MAX)
				del = i;
			continue;
		}
		if ((s & ~0xFFFFFu) != tag)
			continue;
		const struct cj_pent *e = &m->ents[SLOT_IX(s)];
		if (e->a == a && e->b == b) {
			*found = 1;
			return i;
		}
	}
}

int64_t *cj_pmap_get(struct cj_pmap *m, int64_t a, int64_t b)
{
	if (!m->count)
		return NULL;
	int found;
	size_t i = pmap_find(m, a, b, hash_pair(a, b), &found);
	return found ? &m->ents[SLOT_IX(m->slots[i])].v : NULL;
}

/* A new index of @cap slots over the live entries, which are packed to the front. */
static int pmap_rehash(struct cj_pmap *m, size_t cap)
{
	uint32_t *slots = calloc(cap, sizeof(*slots));
	if (!slots)
		return -1;
	size_t n = 0;
	for (size_t j = 0; j < m->count; j++) {
		if (m->ents[j].a == INT64_MIN)
			continue; /* deleted */
		m->ents[n] = m->ents[j];
		uint64_t h = hash_pair(m->ents[n].a, m->ents[n].b);
		size_t i = pmap_start(m, m->ents[n].a, m->ents[n].b, h) & (cap - 1);
		while (slots[i])
			i = (i + 1) & (cap - 1);
		slots[i] = SLOT_TAG(h) | (uint32_t)(n + 2);
		n++;
	}
	free(m->slots);
	m->slots = slots;
	m->cap = cap;
	m->count = n;
	return 0;
}

int64_t *cj_pmap_at(struct cj_pmap *m, int64_t a, int64_t b, int64_t init, int *added)
{
	int found;
	uint64_t h = hash_pair(a, b);
	if (m->crowded) {
		m->crowded = 0; /* keys crowd one stretch of slots: hash them apart */
		m->scattered = 1;
		if (pmap_rehash(m, m->cap) != 0)
			return NULL;
	}
	if (!m->cap || (m->count + 1) * 2 > m->cap) {
		if (pmap_rehash(m, m->cap ? m->cap * 2 : 4096) != 0)
			return NULL;
	}
	size_t i = pmap_find(m, a, b, h, &found);
	*added = !found;
	if (found)
		return &m->ents[SLOT_IX(m->slots[i])].v;
	if (m->count >= CJ_PMAP_MAX)
		return NULL;
	if (TKU_GROW(m->ents, m->cap_ents, m->count + 1, 512) != 0)
		return NULL;
	struct cj_pent *e = &m->ents[m->count];
	e->a = a;
	e->b = b;
	e->v = init;
	m->slots[i] = SLOT_TAG(h) | (uint32_t)(m->count + 2);
	m->count++;
	return &e->v;
}

int cj_pmap_reserve(struct cj_pmap *m, size_t keys)
{
	size_t cap = m->cap ? m->cap : 4096;
	if (keys > CJ_PMAP_MAX)
		keys = CJ_PMAP_MAX;
	while ((keys + 1) * 2 > cap)
		cap *= 2;
	return cap > m->cap ? pmap_rehash(m, cap) : 0;
}

int cj_pmap_put(struct cj_pmap *m, int64_t a, int64_t b, int64_t val)
{
	int added;
	int64_t *v = cj_pmap_at(m, a, b, val, &added);
	if (!v)
		return -1;
	*v = val;
	return 0;
}

void cj_pmap_del(struct cj_pmap *m, int64_t a, int64_t b)
{
	if (!m->count)
		return;
	int found;
	size_t i = pmap_find(m, a, b, hash_pair(a, b), &found);
	if (!found)
		return;
	m->ents[SLOT_IX(m->slots[i])].a = INT64_MIN; /* dropped at the next rehash */
	m->slots[i] = 1;
}

void cj_pmap_clear(struct cj_pmap *m)
{
	if (m->cap && m->count)
		memset(m->slots, 0, m->cap * sizeof(*m->slots));
	m->count = 0;
	m->scattered = m->crowded = 0;
}

void cj_pmap_free(struct cj_pmap *m)
{
	free(m->slots);
	free(m->ents);
	memset(m, 0, sizeof(*m));
}

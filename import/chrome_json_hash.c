/* Hash maps used by the Chrome JSON importer (see chrome_json_hash.h): linear probing, FNV-1a. */
#include "chrome_json_hash.h"

#include <stdlib.h>
#include <string.h>

static uint64_t hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ull;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

static uint64_t hash_pair(int64_t a, int64_t b)
{
	uint64_t h = (uint64_t)a * 0x9E3779B97F4A7C15ull ^ ((uint64_t)b + 0x632BE59BD9B4E019ull);
	h ^= h >> 31;
	h *= 0xBF58476D1CE4E5B9ull;
	h ^= h >> 29;
	return h;
}

int64_t *cj_smap_get(const struct cj_smap *m, const char *key)
{
	if (!m->cap)
		return NULL;
	for (size_t i = hash_str(key) & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
		if (!m->keys[i])
			return NULL;
		if (!strcmp(m->keys[i], key))
			return &m->vals[i];
	}
}

static int smap_grow(struct cj_smap *m)
{
	size_t cap = m->cap ? m->cap * 2 : 64;
	char **keys = calloc(cap, sizeof(*keys));
	int64_t *vals = calloc(cap, sizeof(*vals));
	if (!keys || !vals) {
		free(keys);
		free(vals);
		return -1;
	}
	for (size_t j = 0; j < m->cap; j++) {
		if (!m->keys[j])
			continue;
		size_t i = hash_str(m->keys[j]) & (cap - 1);
		while (keys[i])
			i = (i + 1) & (cap - 1);
		keys[i] = m->keys[j];
		vals[i] = m->vals[j];
	}
	free(m->keys);
	free(m->vals);
	m->keys = keys;
	m->vals = vals;
	m->cap = cap;
	return 0;
}

int cj_smap_put(struct cj_smap *m, const char *key, int64_t val)
{
	int64_t *p = cj_smap_get(m, key);
	if (p) {
		*p = val;
		return 0;
	}
	if ((m->count + 1) * 2 > m->cap && smap_grow(m) != 0)
		return -1;
	size_t i = hash_str(key) & (m->cap - 1);
	while (m->keys[i])
		i = (i + 1) & (m->cap - 1);
	if (!(m->keys[i] = strdup(key)))
		return -1;
	m->vals[i] = val;
	m->count++;
	return 0;
}

void cj_smap_del(struct cj_smap *m, const char *key)
{
	int64_t *v = cj_smap_get(m, key);
	if (!v)
		return;
	size_t mask = m->cap - 1, i = (size_t)(v - m->vals);
	free(m->keys[i]);
	m->keys[i] = NULL;
	m->count--;
	/* backward shift: move up each later key of the run whose home slot is not in (i, j] */
	for (size_t j = (i + 1) & mask; m->keys[j]; j = (j + 1) & mask) {
		size_t home = hash_str(m->keys[j]) & mask;
		if (((j - home) & mask) >= ((j - i) & mask)) {
			m->keys[i] = m->keys[j];
			m->vals[i] = m->vals[j];
			m->keys[j] = NULL;
			i = j;
		}
	}
}

void cj_smap_free(struct cj_smap *m)
{
	for (size_t i = 0; i < m->cap; i++)
		free(m->keys[i]);
	free(m->keys);
	free(m->vals);
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
	if (m->count == m->cap_ents) {
		size_t cap = m->cap_ents ? m->cap_ents * 2 : 512;
		struct cj_pent *e = realloc(m->ents, cap * sizeof(*e));
		if (!e)
			return NULL;
		m->ents = e;
		m->cap_ents = cap;
	}
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

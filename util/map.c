/* The hash map's growth and deletion (lookups are inline in map.h), and the int64-tuple table. */
#include "map.h"
#include "vec.h"

#include <stdlib.h>
#include <string.h>

void tku_map_free(struct tku_map *m)
{
	if (!m)
		return;
	free(m->slots);
	memset(m, 0, sizeof(*m));
}

void tku_map_clear(struct tku_map *m)
{
	if (m->count)
		memset(m->slots, 0, m->cap * sizeof(*m->slots));
	m->count = 0;
}

static size_t home(uint64_t s, size_t mask)
{
	return (size_t)(s >> 32) & mask;
}

int tku_map_reserve(struct tku_map *m, size_t keys)
{
	size_t cap = m->cap ? m->cap : 16;
	if (keys > TKU_MAP_MAX)
		return -1;
	while (keys * 2 > cap)
		cap *= 2;
	if (cap == m->cap)
		return 0;
	uint64_t *slots = calloc(cap, sizeof(*slots));
	if (!slots)
		return -1;
	for (size_t j = 0; j < m->cap; j++) {
		uint64_t s = m->slots[j];
		if (!s)
			continue;
		size_t i = home(s, cap - 1);
		while (slots[i])
			i = (i + 1) & (cap - 1);
		slots[i] = s;
	}
	free(m->slots);
	m->slots = slots;
	m->cap = cap;
	return 0;
}

void tku_map_del(struct tku_map *m, size_t at)
{
	size_t mask = m->cap - 1, i = at;
	m->slots[i] = 0;
	m->count--;
	/* backward shift: move up each later key of the run whose home is not in (i, j] */
	for (size_t j = (i + 1) & mask; m->slots[j]; j = (j + 1) & mask) {
		if (((j - home(m->slots[j], mask)) & mask) >= ((j - i) & mask)) {
			m->slots[i] = m->slots[j];
			m->slots[j] = 0;
			i = j;
		}
	}
}

/* ---- the table keyed by int64 tuples ---- */

struct tkey {
	const struct tku_table *t;
	const int64_t *key;
};

static int same_key(const void *ctx, uint32_t ix)
{
	const struct tkey *k = ctx;
	return !memcmp(tku_table_elem(k->t, ix), k->key, k->t->nkey * sizeof(int64_t));
}

void *tku_table_at(struct tku_table *t, const int64_t *key, int *added)
{
	uint64_t h = tku_hash_i64s(key, t->nkey);
	struct tkey k = {t, key};
	size_t at;
	if (added)
		*added = 0;
	if (tku_map_room(&t->map) != 0)
		return NULL;
	uint32_t ix = tku_map_find(&t->map, h, same_key, &k, &at);
	if (ix != TKU_MAP_NONE)
		return tku_table_elem(t, ix);
	if (tku_grow(&t->v, &t->cap, t->n + 1, t->size, 64) != 0)
		return NULL;
	char *e = tku_table_elem(t, t->n);
	memset(e, 0, t->size);
	memcpy(e, key, t->nkey * sizeof(int64_t));
	tku_map_set(&t->map, at, h, (uint32_t)t->n++);
	if (added)
		*added = 1;
	return e;
}

void *tku_table_get(const struct tku_table *t, const int64_t *key)
{
	struct tkey k = {t, key};
	uint32_t ix = tku_map_find(&t->map, tku_hash_i64s(key, t->nkey), same_key, &k, NULL);
	return ix == TKU_MAP_NONE ? NULL : tku_table_elem(t, ix);
}

int tku_table_del(struct tku_table *t, const int64_t *key, void *out)
{
	struct tkey k = {t, key};
	size_t at;
	uint32_t ix = tku_map_find(&t->map, tku_hash_i64s(key, t->nkey), same_key, &k, &at);
	if (ix == TKU_MAP_NONE)
		return 0;
	if (out)
		memcpy(out, tku_table_elem(t, ix), t->size);
	tku_map_del(&t->map, at);
	if (ix != --t->n) { /* the last element moves into the hole */
		const int64_t *last = tku_table_elem(t, t->n);
		struct tkey l = {t, last};
		tku_map_find(&t->map, tku_hash_i64s(last, t->nkey), same_key, &l, &at);
		tku_map_repoint(&t->map, at, ix);
		memcpy(tku_table_elem(t, ix), last, t->size);
	}
	return 1;
}

void tku_table_clear(struct tku_table *t)
{
	tku_map_clear(&t->map);
	t->n = 0;
}

void tku_table_free(struct tku_table *t)
{
	if (!t)
		return;
	tku_map_free(&t->map);
	free(t->v);
	t->v = NULL;
	t->n = t->cap = 0;
}

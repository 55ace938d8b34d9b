/*
 * String interning for the store writer: the library's hash map (util/map.h) over entries kept in
 * id order; the bytes live in one growing arena referenced by offset, so growing the arena never
 * invalidates entries. Workload: a lookup per event name, almost always a hit.
 */
#include "intern.h"

#include <stdlib.h>
#include <string.h>

#include "../util/fnv.h"

void tks_intern_init(struct tks_intern *t)
{
	memset(t, 0, sizeof(*t));
}

void tks_intern_free(struct tks_intern *t)
{
	if (!t)
		return;
	tku_map_free(&t->map);
	free(t->ents);
	free(t->arena);
	memset(t, 0, sizeof(*t));
}

static int arena_append(struct tks_intern *t, const char *s, size_t len, size_t *off)
{
	if (t->arena_len + len + 1 > t->arena_cap) {
		size_t ncap = t->arena_cap ? t->arena_cap : 65536;
		while (t->arena_len + len + 1 > ncap) {
			if (ncap > SIZE_MAX / 2)
				return -1;
			ncap *= 2;
		}
		char *na = realloc(t->arena, ncap);
		if (!na)
			return -1;
		t->arena = na;
		t->arena_cap = ncap;
	}
	*off = t->arena_len;
	memcpy(t->arena + t->arena_len, s, len);
	t->arena[t->arena_len + len] = '\0';
	t->arena_len += len + 1;
	return 0;
}

/* The string looked up, for the map's equality callback. */
struct probe {
	const struct tks_intern *t;
	const char *s;
	size_t len;
};

static int same(const void *ctx, uint32_t ix)
{
	const struct probe *p = ctx;
	const struct tks_intern_entry *e = &p->t->ents[ix];
	return e->len == p->len && memcmp(p->t->arena + e->off, p->s, p->len) == 0;
}

uint32_t tks_intern_lookup(struct tks_intern *t, const char *s, size_t len, int *added)
{
	*added = 0;
	if (len > UINT32_MAX || tku_map_room(&t->map) != 0)
		return 0;
	uint64_t h = tku_fnv1a64(s, len);
	struct probe p = {t, s, len};
	size_t at;
	uint32_t ix = tku_map_find(&t->map, h, same, &p, &at);
	if (ix != TKU_MAP_NONE)
		return ix + 1;
	if (t->count == t->ents_cap) {
		size_t ncap = t->ents_cap ? t->ents_cap * 2 : 1024;
		struct tks_intern_entry *ne = realloc(t->ents, ncap * sizeof(*ne));
		if (!ne)
			return 0;
		t->ents = ne;
		t->ents_cap = ncap;
	}
	size_t off;
	if (arena_append(t, s, len, &off) != 0)
		return 0;
	t->ents[t->count].off = off;
	t->ents[t->count].len = (uint32_t)len;
	tku_map_set(&t->map, at, h, (uint32_t)t->count);
	*added = 1;
	return (uint32_t)++t->count;
}

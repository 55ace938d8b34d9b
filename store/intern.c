/*
 * String interning for the store writer. Open addressing with linear probing over a table kept at
 * most half full; the bytes live in one growing arena referenced by offset, so growing the arena
 * never invalidates entries. Workload: a lookup per event name, almost always a hit.
 */
#include "intern.h"

#include <stdlib.h>
#include <string.h>

static uint64_t hash_bytes(const char *s, size_t len)
{
	uint64_t h = 1469598103934665603ULL; /* FNV-1a */
	for (size_t i = 0; i < len; i++) {
		h ^= (unsigned char)s[i];
		h *= 1099511628211ULL;
	}
	return h ? h : 1;
}

void tks_intern_init(struct tks_intern *t)
{
	memset(t, 0, sizeof(*t));
}

void tks_intern_free(struct tks_intern *t)
{
	if (!t)
		return;
	free(t->slots);
	free(t->arena);
	memset(t, 0, sizeof(*t));
}

static int grow_table(struct tks_intern *t)
{
	size_t ncap = t->cap ? t->cap * 2 : 1024;
	struct tks_intern_entry *ns = calloc(ncap, sizeof(*ns));
	if (!ns)
		return -1;
	for (size_t i = 0; i < t->cap; i++) {
		struct tks_intern_entry *e = &t->slots[i];
		if (!e->id)
			continue;
		size_t j = e->hash & (ncap - 1);
		while (ns[j].id)
			j = (j + 1) & (ncap - 1);
		ns[j] = *e;
	}
	free(t->slots);
	t->slots = ns;
	t->cap = ncap;
	return 0;
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

uint32_t tks_intern_lookup(struct tks_intern *t, const char *s, size_t len, int *added)
{
	*added = 0;
	if (len > UINT32_MAX)
		return 0;
	if ((t->count + 1) * 2 > t->cap && grow_table(t) != 0)
		return 0;
	uint64_t h = hash_bytes(s, len);
	size_t j = h & (t->cap - 1);
	for (;;) {
		struct tks_intern_entry *e = &t->slots[j];
		if (!e->id)
			break;
		if (e->hash == h && e->len == len && memcmp(t->arena + e->off, s, len) == 0)
			return e->id;
		j = (j + 1) & (t->cap - 1);
	}
	if (t->count >= UINT32_MAX - 1)
		return 0;
	size_t off;
	if (arena_append(t, s, len, &off) != 0)
		return 0;
	struct tks_intern_entry *e = &t->slots[j];
	e->hash = h;
	e->off = off;
	e->len = (uint32_t)len;
	e->id = (uint32_t)++t->count;
	*added = 1;
	return e->id;
}

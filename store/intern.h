/* String interning for the store writer: a hash map from string to id, ids from 1. */
#ifndef TK_STORE_INTERN_H
#define TK_STORE_INTERN_H

#include <stddef.h>
#include <stdint.h>

#include "../util/map.h"

struct tks_intern_entry {
	size_t off;   /* offset of the bytes in the arena */
	uint32_t len; /* length in bytes */
};

struct tks_intern {
	struct tku_map map;	       /* string -> index into ents (its id - 1) */
	struct tks_intern_entry *ents; /* by id - 1 */
	size_t count, ents_cap;	       /* strings held */
	char *arena;
	size_t arena_len, arena_cap;
};

void tks_intern_init(struct tks_intern *t);
void tks_intern_free(struct tks_intern *t);

/**
 * tks_intern_lookup() - find @s (@len bytes) or add it with the next id.
 * @param added  OUT: 1 when the string was new
 * @return its id, or 0 when memory ran out or the table is full (TKU_MAP_MAX strings)
 */
uint32_t tks_intern_lookup(struct tks_intern *t, const char *s, size_t len, int *added);

#endif

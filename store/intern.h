/* String interning for the store writer: a hash table from string to id, ids from 1. */
#ifndef TK_STORE_INTERN_H
#define TK_STORE_INTERN_H

#include <stddef.h>
#include <stdint.h>

struct tks_intern_entry {
	uint64_t hash;
	size_t off;   /* offset of the bytes in the arena */
	uint32_t len; /* length in bytes */
	uint32_t id;  /* 0 = empty slot */
};

struct tks_intern {
	struct tks_intern_entry *slots;
	size_t cap;   /* power of two */
	size_t count; /* strings held */
	char *arena;
	size_t arena_len, arena_cap;
};

void tks_intern_init(struct tks_intern *t);
void tks_intern_free(struct tks_intern *t);

/**
 * tks_intern_lookup() - find @s (@len bytes) or add it with the next id.
 * @param added  OUT: 1 when the string was new
 * @return its id, or 0 when memory ran out or the table is full (2^32 - 1 strings)
 */
uint32_t tks_intern_lookup(struct tks_intern *t, const char *s, size_t len, int *added);

#endif

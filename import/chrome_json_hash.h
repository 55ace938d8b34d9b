/*
 * Small open-addressing hash maps for the Chrome JSON importer: string keys -> int64 values
 * (processes, threads, counters, flow ids) and (int64, int64) pairs -> int64 (events by track and
 * start time, for binding flow points). Both grow by doubling; callers bound their size.
 */
#ifndef TK_CHROME_JSON_HASH_H
#define TK_CHROME_JSON_HASH_H

#include <stddef.h>
#include <stdint.h>

struct cj_smap {
	char **keys;
	int64_t *vals;
	size_t cap, count;
};

/* cj_smap_get() - pointer to the value of @key, or NULL. */
int64_t *cj_smap_get(const struct cj_smap *m, const char *key);
/* cj_smap_put() - insert or replace; 0, or -1 out of memory. */
int cj_smap_put(struct cj_smap *m, const char *key, int64_t val);
void cj_smap_free(struct cj_smap *m);

struct cj_pmap {
	int64_t *ka, *kb, *vals;
	unsigned char *used;
	size_t cap, count;
};

int64_t *cj_pmap_get(const struct cj_pmap *m, int64_t a, int64_t b);
int cj_pmap_put(struct cj_pmap *m, int64_t a, int64_t b, int64_t val);
/* cj_pmap_del() - remove (a, b) when present. */
void cj_pmap_del(struct cj_pmap *m, int64_t a, int64_t b);
void cj_pmap_clear(struct cj_pmap *m);
void cj_pmap_free(struct cj_pmap *m);

#endif

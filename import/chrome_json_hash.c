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

void cj_smap_free(struct cj_smap *m)
{
	for (size_t i = 0; i < m->cap; i++)
		free(m->keys[i]);
	free(m->keys);
	free(m->vals);
	memset(m, 0, sizeof(*m));
}

int64_t *cj_pmap_get(const struct cj_pmap *m, int64_t a, int64_t b)
{
	if (!m->count)
		return NULL;
	for (size_t i = hash_pair(a, b) & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
		if (!m->used[i])
			return NULL;
		if (m->used[i] == 1 && m->ka[i] == a && m->kb[i] == b)
			return &m->vals[i];
	}
}

static int pmap_rehash(struct cj_pmap *m, size_t cap)
{
	struct cj_pmap n = {0};
	n.cap = cap;
	n.ka = malloc(cap * sizeof(int64_t));
	n.kb = malloc(cap * sizeof(int64_t));
	n.vals = malloc(cap * sizeof(int64_t));
	n.used = calloc(cap, 1);
	if (!n.ka || !n.kb || !n.vals || !n.used) {
		cj_pmap_free(&n);
		return -1;
	}
	for (size_t j = 0; j < m->cap; j++) {
		if (m->used[j] != 1)
			continue;
		size_t i = hash_pair(m->ka[j], m->kb[j]) & (cap - 1);
		while (n.used[i])
			i = (i + 1) & (cap - 1);
		n.used[i] = 1;
		n.ka[i] = m->ka[j];
		n.kb[i] = m->kb[j];
		n.vals[i] = m->vals[j];
		n.count++;
	}
	cj_pmap_free(m);
	*m = n;
	return 0;
}

int cj_pmap_put(struct cj_pmap *m, int64_t a, int64_t b, int64_t val)
{
	int64_t *p = cj_pmap_get(m, a, b);
	if (p) {
		*p = val;
		return 0;
	}
	if (!m->cap || (m->count + 1) * 2 > m->cap) {
		if (pmap_rehash(m, m->cap ? m->cap * 2 : 1024) != 0)
			return -1;
	}
	size_t i = hash_pair(a, b) & (m->cap - 1);
	while (m->used[i] == 1)
		i = (i + 1) & (m->cap - 1);
	m->used[i] = 1;
	m->ka[i] = a;
	m->kb[i] = b;
	m->vals[i] = val;
	m->count++;
	return 0;
}

void cj_pmap_del(struct cj_pmap *m, int64_t a, int64_t b)
{
	int64_t *p = cj_pmap_get(m, a, b);
	if (!p)
		return;
	size_t i = (size_t)(p - m->vals);
	m->used[i] = 2; /* tombstone: still counted in count until the next rehash */
}

void cj_pmap_clear(struct cj_pmap *m)
{
	if (m->cap)
		memset(m->used, 0, m->cap);
	m->count = 0;
}

void cj_pmap_free(struct cj_pmap *m)
{
	free(m->ka);
	free(m->kb);
	free(m->vals);
	free(m->used);
	memset(m, 0, sizeof(*m));
}

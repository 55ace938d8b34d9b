/*
 * XPlane importer: the bounded protobuf wire-format walker (every varint at most 10 bytes, every
 * length checked against what remains of its enclosing message, groups refused) and the small
 * int64 hash map the importer uses for metadata ids and correlation ids.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tracekit/error.h>

#include "xplane_internal.h"

int xp_fail(const struct xp_src *s, const uint8_t *at, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	tk_writer_fail(s->w, TK_EFORMAT, "'%s': byte %lld: %s", s->path, (long long)(at - s->base),
		       msg);
	return -1;
}

/* Read a varint at *p (before end); 0 on success, -1 when longer than 10 bytes or cut short. */
static int varint(const uint8_t **p, const uint8_t *end, uint64_t *out)
{
	const uint8_t *q = *p;
	uint64_t v = 0;
	for (int i = 0; i < 10; i++) {
		if (q >= end)
			return -1;
		uint8_t b = *q++;
		if (i == 9 && b > 1)
			return -1;
		v |= (uint64_t)(b & 0x7f) << (7 * i);
		if (b < 0x80) {
			*p = q;
			*out = v;
			return 0;
		}
	}
	return -1;
}

int xp_next(const struct xp_src *s, struct xp_cur *c, struct xp_field *f, const char *what)
{
	if (c->p >= c->end)
		return 0;
	const uint8_t *at = c->p;
	uint64_t tag;
	f->at = at;
	if (varint(&c->p, c->end, &tag) != 0)
		return xp_fail(s, at, "expected a field tag (varint of at most 10 bytes) in %s",
			       what);
	f->num = (uint32_t)(tag >> 3);
	f->wt = (int)(tag & 7);
	if (f->num == 0 || tag >> 32)
		return xp_fail(s, at, "invalid field number %llu in %s",
			       (unsigned long long)(tag >> 3), what);
	f->data = NULL;
	f->len = 0;
	f->v = 0;
	switch (f->wt) {
	case XP_VARINT:
		if (varint(&c->p, c->end, &f->v) != 0)
			return xp_fail(s, c->p,
				       "expected a varint of at most 10 bytes for field %u of %s",
				       f->num, what);
		return 1;
	case XP_I64:
		if (c->end - c->p < 8)
			return xp_fail(s, c->p, "expected 8 bytes for field %u of %s, %lld left",
				       f->num, what, (long long)(c->end - c->p));
		memcpy(&f->v, c->p, 8); /* little-endian host assumed (x86-64, aarch64) */
		c->p += 8;
		return 1;
	case XP_I32: {
		uint32_t v32;
		if (c->end - c->p < 4)
			return xp_fail(s, c->p, "expected 4 bytes for field %u of %s, %lld left",
				       f->num, what, (long long)(c->end - c->p));
		memcpy(&v32, c->p, 4);
		f->v = v32;
		c->p += 4;
		return 1;
	}
	case XP_LEN: {
		uint64_t len;
		const uint8_t *lp = c->p;
		if (varint(&c->p, c->end, &len) != 0)
			return xp_fail(
			    s, lp,
			    "expected a length (varint of at most 10 bytes) for field %u "
			    "of %s",
			    f->num, what);
		if (len > (uint64_t)(c->end - c->p))
			return xp_fail(s, lp,
				       "length %llu of field %u of %s runs past the end of its "
				       "enclosing message (%lld bytes left)",
				       (unsigned long long)len, f->num, what,
				       (long long)(c->end - c->p));
		f->data = c->p;
		f->len = (size_t)len;
		c->p += len;
		return 1;
	}
	default:
		return xp_fail(s, at, "unsupported wire type %d for field %u of %s", f->wt, f->num,
			       what);
	}
}

int xp_want(const struct xp_src *s, const struct xp_field *f, int wt, const char *what)
{
	static const char *const names[] = {"a varint", "fixed64", "length-delimited",
					    "",		"",	   "fixed32"};
	if (f->wt == wt)
		return 0;
	return xp_fail(s, f->at, "field %u of %s should be %s, found wire type %d", f->num, what,
		       names[wt], f->wt);
}

/* ---- hash map: open addressing, linear probing, tombstones for deletion ---- */

#define EMPTY INT64_MIN	     /* slot never used */
#define TOMB (INT64_MIN + 1) /* slot of a deleted key: lookups go on past it */

/* The slot of @key: Fibonacci hashing (the high bits of key * 2^64/phi), robust to strided ids. */
static size_t slot(const struct xp_map *m, int64_t key)
{
	return (size_t)(((uint64_t)key * 0x9E3779B97F4A7C15ull) >> m->shift);
}

/* The two keys that double as slot markers live beside the table. */
static int special(int64_t key)
{
	return key == EMPTY || key == TOMB;
}

static int rehash(struct xp_map *m)
{
	size_t ncap = m->cap ? m->cap : 64;
	while ((m->n + 1) * 2 > ncap) /* after a rehash the table is at most half full */
		ncap *= 2;
	struct xp_map n = *m;
	n.slots = malloc(ncap * sizeof(*n.slots));
	if (!n.slots)
		return TK_ENOMEM;
	n.cap = ncap;
	n.n = n.used = 0;
	n.shift = 64;
	for (size_t c = ncap; c > 1; c >>= 1)
		n.shift--;
	for (size_t i = 0; i < ncap; i++)
		n.slots[i].key = EMPTY;
	for (size_t i = 0; i < m->cap; i++)
		if (!special(m->slots[i].key))
			xp_map_put(&n, m->slots[i].key, m->slots[i].val);
	free(m->slots);
	*m = n;
	return TK_OK;
}

int xp_map_put(struct xp_map *m, int64_t key, int64_t val)
{
	if (special(key)) {
		m->has_special[key == TOMB] = 1;
		m->special_val[key == TOMB] = val;
		return TK_OK;
	}
	if ((m->used + 1) * 4 > m->cap * 3 && rehash(m) != TK_OK)
		return TK_ENOMEM;
	size_t mask = m->cap - 1, i = slot(m, key), tomb = SIZE_MAX;
	for (;; i = (i + 1) & mask) {
		int64_t k = m->slots[i].key;
		if (k == key) {
			m->slots[i].val = val;
			return TK_OK;
		}
		if (k == TOMB && tomb == SIZE_MAX)
			tomb = i;
		if (k == EMPTY)
			break;
	}
	if (tomb != SIZE_MAX)
		i = tomb; /* reuse a deleted slot: `used` does not grow */
	else
		m->used++;
	m->slots[i].key = key;
	m->slots[i].val = val;
	m->n++;
	return TK_OK;
}

/* The slot holding @key, or SIZE_MAX. */
static size_t find(const struct xp_map *m, int64_t key)
{
	if (!m->cap)
		return SIZE_MAX;
	size_t mask = m->cap - 1, i = slot(m, key);
	for (;; i = (i + 1) & mask) {
		int64_t k = m->slots[i].key;
		if (k == key)
			return i;
		if (k == EMPTY)
			return SIZE_MAX;
	}
}

int xp_map_get(const struct xp_map *m, int64_t key, int64_t *val)
{
	if (special(key)) {
		if (m->has_special[key == TOMB])
			*val = m->special_val[key == TOMB];
		return m->has_special[key == TOMB];
	}
	size_t i = find(m, key);
	if (i == SIZE_MAX)
		return 0;
	*val = m->slots[i].val;
	return 1;
}

void xp_map_del(struct xp_map *m, int64_t key)
{
	if (special(key)) {
		m->has_special[key == TOMB] = 0;
		return;
	}
	size_t i = find(m, key);
	if (i != SIZE_MAX) {
		m->slots[i].key = TOMB;
		m->n--;
	}
}

void xp_map_clear(struct xp_map *m)
{
	for (size_t i = 0; i < m->cap; i++)
		m->slots[i].key = EMPTY;
	m->n = m->used = 0;
	m->has_special[0] = m->has_special[1] = 0;
}

void xp_map_free(struct xp_map *m)
{
	free(m->slots);
	memset(m, 0, sizeof(*m));
}

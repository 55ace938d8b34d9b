/*
 * XPlane importer: the bounded protobuf wire-format walker (every varint at most 10 bytes, every
 * length checked against what remains of its enclosing message, groups refused), the small
 * int64 hash map the importer uses for metadata ids, and the compact table of pending
 * correlation ids.
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
	if (s->w) /* NULL for the quiet reads of tk_xplane_list_runs */
		tk_writer_fail_cause(s->w, TK_EFORMAT, "xplane", msg, "'%s': byte %lld", s->path,
				     (long long)(at - s->base));
	return -1;
}

int xp_next_slow(const struct xp_src *s, struct xp_cur *c, struct xp_field *f, const char *what)
{
	if (c->p >= c->end)
		return 0;
	const uint8_t *at = c->p;
	uint64_t tag;
	f->at = at;
	if (xp_varint(&c->p, c->end, &tag) != 0)
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
		if (xp_varint(&c->p, c->end, &f->v) != 0)
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
		if (xp_varint(&c->p, c->end, &len) != 0)
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

/* ---- pending correlation ids: pages of 32-bit slots, hash map for the rest ---- */

/*
 * Pages are allocated freely up to CORR_SLACK_PAGES, beyond that only while at least one slot in
 * CORR_MIN_FILL is in use: ids interleaved over streams fill pages sparsely at first (1 in 4 with
 * 4 streams), while scattered ids must not cost a page each. At worst 4 * CORR_MIN_FILL = 32
 * bytes per pending id, no more than the hash map's 16 bytes at its 3/8..3/4 load.
 */
#define CORR_SLACK_PAGES 256 /* 4 MiB of slots */
#define CORR_MIN_FILL 8
#define CORR_MAX_PAGES (((size_t)1 << 31) / XP_CORR_PAGE) /* direct ids below 2^31 */

/* The slot value for @val (value - base + 1), or 0 when it does not fit in 32 bits. */
static uint32_t corr_code(const struct xp_corr *c, int64_t val)
{
	int64_t d;
	if (__builtin_sub_overflow(val, c->base, &d) || d < 0 || (uint64_t)d >= UINT32_MAX)
		return 0;
	return (uint32_t)d + 1;
}

/* The slot of @id, or NULL (no page, or an id outside the direct range). */
static uint32_t *corr_slot(const struct xp_corr *c, int64_t id)
{
	if (id < 0 || (uint64_t)id / XP_CORR_PAGE >= c->npages)
		return NULL;
	uint32_t *page = c->pages[id / XP_CORR_PAGE];
	return page ? &page[id % XP_CORR_PAGE] : NULL;
}

int xp_corr_put(struct xp_corr *c, int64_t id, int64_t val)
{
	if (!c->has_base) {
		c->base = val;
		c->has_base = 1;
	}
	uint32_t code = corr_code(c, val), *s = code ? corr_slot(c, id) : NULL;
	if (code && !s && id >= 0 && (uint64_t)id / XP_CORR_PAGE < CORR_MAX_PAGES &&
	    (c->allocated < CORR_SLACK_PAGES ||
	     c->allocated * XP_CORR_PAGE <= CORR_MIN_FILL * (c->direct + 1))) {
		/* A new page: grow the page index to cover it, then allocate it zeroed. */
		size_t pi = (size_t)id / XP_CORR_PAGE;
		if (pi >= c->npages) {
			size_t n = c->npages ? c->npages : 64;
			while (n <= pi)
				n *= 2;
			uint32_t **p = realloc(c->pages, n * sizeof(*p));
			if (!p)
				return TK_ENOMEM;
			c->pages = p;
			uint32_t *l = realloc(c->live, n * sizeof(*l));
			if (!l)
				return TK_ENOMEM;
			c->live = l;
			memset(c->pages + c->npages, 0, (n - c->npages) * sizeof(*p));
			memset(c->live + c->npages, 0, (n - c->npages) * sizeof(*l));
			c->npages = n;
		}
		if (!(c->pages[pi] = calloc(XP_CORR_PAGE, sizeof(uint32_t))))
			return TK_ENOMEM;
		c->allocated++;
		s = &c->pages[pi][id % XP_CORR_PAGE];
	}
	if (!s)
		return xp_map_put(&c->map, id, val);
	if (c->map.n)
		xp_map_del(&c->map, id); /* an id lives in one place */
	if (!*s) {
		c->live[id / XP_CORR_PAGE]++;
		c->direct++;
	}
	*s = code;
	return TK_OK;
}

int xp_corr_get(const struct xp_corr *c, int64_t id, int64_t *val)
{
	const uint32_t *s = corr_slot(c, id);
	if (s && *s) {
		*val = c->base + (int64_t)(*s - 1);
		return 1;
	}
	return c->map.n && xp_map_get(&c->map, id, val);
}

void xp_corr_del(struct xp_corr *c, int64_t id)
{
	uint32_t *s = corr_slot(c, id);
	if (s && *s) {
		size_t pi = (size_t)id / XP_CORR_PAGE;
		*s = 0;
		c->direct--;
		if (!--c->live[pi]) { /* its last pending id matched: give the page back */
			free(c->pages[pi]);
			c->pages[pi] = NULL;
			c->allocated--;
		}
		return;
	}
	if (c->map.n)
		xp_map_del(&c->map, id);
}

void xp_corr_free(struct xp_corr *c)
{
	for (size_t i = 0; i < c->npages; i++)
		free(c->pages[i]);
	free(c->pages);
	free(c->live);
	xp_map_free(&c->map);
	memset(c, 0, sizeof(*c));
}

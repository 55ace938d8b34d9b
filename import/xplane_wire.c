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
#include "util/vec.h"

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

/* ---- int64 -> int64 hash map: a table of the library's map ---- */

int xp_map_put(struct xp_map *m, int64_t key, int64_t val)
{
	if (!m->t.size)
		m->t = (struct tku_table)TKU_TABLE_INIT(struct xp_ent, 1);
	struct xp_ent *e = tku_table_at(&m->t, &key, NULL);
	if (!e)
		return TK_ENOMEM;
	e->val = val;
	return TK_OK;
}

int xp_map_get(const struct xp_map *m, int64_t key, int64_t *val)
{
	const struct xp_ent *e = tku_table_get(&m->t, &key);
	if (e)
		*val = e->val;
	return e != NULL;
}

void xp_map_del(struct xp_map *m, int64_t key)
{
	tku_table_del(&m->t, &key, NULL);
}

void xp_map_clear(struct xp_map *m)
{
	tku_table_clear(&m->t);
}

void xp_map_free(struct xp_map *m)
{
	tku_table_free(&m->t);
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
			size_t n = tku_grow_cap(c->npages, pi + 1, sizeof(uint32_t *), 64);
			uint32_t **p = n ? tku_reallocn(c->pages, n, sizeof(*p)) : NULL;
			if (!p)
				return TK_ENOMEM;
			c->pages = p;
			uint32_t *l = tku_reallocn(c->live, n, sizeof(*l));
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
	if (c->map.t.n)
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
	return c->map.t.n && xp_map_get(&c->map, id, val);
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
	if (c->map.t.n)
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

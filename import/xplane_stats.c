/*
 * XPlane importer: stat names with a column, XStat decoding, the text-encoded GPU stats
 * (kernel_details in its current-CUDA, ROCm and 2020-TensorFlow variants, memcpy_details,
 * Memset_details) and bounded gzip inflation of compressed_str_value.
 */
#include <stdlib.h>
#include <string.h>
#include <tracekit/error.h>
#include <zlib.h>

#include "xplane_internal.h"

enum xs_stat xp_stat_code(const char *name)
{
	for (unsigned c = XS_OTHER + 1; c < XS_COUNT; c++)
		if ((xs_flags(c) & XS_R) && !strcmp(name, xs_name(c)))
			return (enum xs_stat)c;
	return XS_OTHER;
}

int xp_stat_decode(const struct xp_src *s, const uint8_t *data, size_t len, struct xp_stat *st)
{
	struct xp_cur c = {data, data + len};
	struct xp_field f;
	int r;
	memset(st, 0, sizeof(*st));
	st->at = data;
	while ((r = xp_next(s, &c, &f, "XStat")) > 0) {
		switch (f.num) {
		case 1:
			if (xp_want(s, &f, XP_VARINT, "XStat"))
				return -1;
			st->md = (int64_t)f.v;
			break;
		case 2:
			if (xp_want(s, &f, XP_I64, "XStat"))
				return -1;
			st->type = XV_DOUBLE;
			memcpy(&st->d, &f.v, sizeof(double));
			break;
		case 3:
		case 4:
		case 7:
			if (xp_want(s, &f, XP_VARINT, "XStat"))
				return -1;
			st->type = f.num == 3 ? XV_UINT : f.num == 4 ? XV_INT : XV_REF;
			st->u = f.v;
			break;
		case 5:
		case 6:
		case 8:
			if (xp_want(s, &f, XP_LEN, "XStat"))
				return -1;
			st->type = f.num == 5 ? XV_STR : f.num == 6 ? XV_BYTES : XV_GZIP;
			st->data = f.data;
			st->len = f.len;
			break;
		default: /* unknown field: skipped */
			break;
		}
	}
	return r;
}

int xp_stat_int(const struct xp_stat *st, int64_t *out)
{
	switch (st->type) {
	case XV_INT:
	case XV_UINT:
		*out = st->i;
		return 1;
	case XV_DOUBLE:
		if (st->d != st->d || st->d > 9.2e18 || st->d < -9.2e18)
			return 0;
		*out = (int64_t)st->d;
		return 1;
	default:
		return 0;
	}
}

/*
 * A plain decimal number (optional '-', digits, no leading zero) at s[0..n) into *out, with the
 * length used; 0 when it is anything else (the callers fall back to strtoll then).
 */
static size_t fast_dec(const char *s, size_t n, int64_t *out)
{
	size_t i = 0;
	int neg = 0;
	if (i < n && s[i] == '-')
		neg = 1, i++;
	size_t start = i;
	uint64_t v = 0;
	while (i < n && s[i] >= '0' && s[i] <= '9' && i - start < 18)
		v = v * 10 + (uint64_t)(s[i++] - '0');
	if (i == start || (s[start] == '0' && i - start > 1) ||
	    (i < n && s[i] >= '0' && s[i] <= '9'))
		return 0;
	*out = neg ? -(int64_t)v : (int64_t)v;
	return i;
}

/* Parse "x,y,z" into v[0..2] (missing dims default to 1, as XProf does). */
static void parse_dims(const char *s, size_t n, int64_t v[3])
{
	int i = 0;
	v[0] = v[1] = v[2] = 1;
	const char *p = s, *end = s + n;
	while (p < end && i < 3) {
		int64_t x;
		size_t used = fast_dec(p, (size_t)(end - p), &x);
		const char *q = p + used;
		if (!used) {
			char *e;
			x = strtoll(p, &e, 10);
			q = e;
		}
		if (q == p)
			break;
		v[i++] = x;
		p = q;
		if (p < end && *p == ',')
			p++;
		else
			break;
	}
}

/* Call fn for each key:value token of s (tokens separated by blanks or newlines). */
static void tokens(const char *s,
		   void (*fn)(void *ctx, const char *k, size_t kn, const char *v, size_t vn),
		   void *ctx)
{
	const char *p = s;
	while (*p) {
		while (*p == ' ' || *p == '\n' || *p == '\t' || *p == '\r')
			p++;
		const char *t = p;
		while (*p && *p != ' ' && *p != '\n' && *p != '\t' && *p != '\r')
			p++;
		const char *colon = memchr(t, ':', (size_t)(p - t));
		if (colon)
			fn(ctx, t, (size_t)(colon - t), colon + 1, (size_t)(p - colon - 1));
	}
}

static int key_is(const char *k, size_t kn, const char *want)
{
	return strlen(want) == kn && !memcmp(k, want, kn);
}

static int64_t num(const char *v, size_t vn)
{
	int64_t x;
	if (fast_dec(v, vn, &x) == vn)
		return x;
	char buf[32];
	if (vn >= sizeof(buf))
		vn = sizeof(buf) - 1;
	memcpy(buf, v, vn);
	buf[vn] = 0;
	return strtoll(buf, NULL, 0);
}

static void kernel_token(void *ctx, const char *k, size_t kn, const char *v, size_t vn)
{
	struct tk_kernel_info *ki = ctx;
	if (key_is(k, kn, "regs"))
		ki->registers = num(v, vn);
	else if (key_is(k, kn, "static_shared") || key_is(k, kn, "shm") ||
		 key_is(k, kn, "group_mem"))
		ki->static_smem = num(v, vn); /* TF 2020 "shm" and ROCm LDS "group_mem" */
	else if (key_is(k, kn, "dynamic_shared"))
		ki->dynamic_smem = num(v, vn);
	else if (key_is(k, kn, "grid"))
		parse_dims(v, vn, ki->grid);
	else if (key_is(k, kn, "block"))
		parse_dims(v, vn, ki->block);
	else if (key_is(k, kn, "occ_pct")) {
		char buf[32];
		size_t n = vn < sizeof(buf) - 1 ? vn : sizeof(buf) - 1;
		memcpy(buf, v, n);
		buf[n] = 0;
		double d = strtod(buf, NULL);
		if (d > 0 && d <= 100)
			ki->occupancy = d / 100.0; /* 0 means "not computed" (ROCm) */
	}
}

void xp_parse_kernel_details(const char *s, struct tk_kernel_info *k)
{
	tokens(s, kernel_token, k);
}

void xp_kernel_details(struct xp_imp *im, const char *s, struct tk_kernel_info *k)
{
	size_t n = strlen(s);
	if (n == 0 || n >= XP_KD_MAX_TEXT) {
		xp_parse_kernel_details(s, k);
		return;
	}
	if (!im->kd_cache)
		im->kd_cache = calloc(XP_KD_SLOTS, sizeof(*im->kd_cache));
	if (!im->kd_cache) { /* no memory for the cache: parse every time */
		xp_parse_kernel_details(s, k);
		return;
	}
	uint64_t h = n, w;
	size_t i = 0;
	for (; i + 8 <= n; i += 8) { /* eight bytes at a time; the tail below */
		memcpy(&w, s + i, 8);
		h = (h ^ w) * 0x9e3779b97f4a7c15ull;
		h ^= h >> 32;
	}
	w = 0;
	memcpy(&w, s + i, n - i);
	h = (h ^ w) * 0x9e3779b97f4a7c15ull;
	h ^= h >> 29;
	struct xp_kd_slot *slot = &im->kd_cache[h % XP_KD_SLOTS];
	if (slot->len == n && slot->hash == h && !memcmp(slot->text, s, n)) {
		*k = slot->k;
		return;
	}
	/* The fields the text does not set keep the caller's defaults, which are the same for
	 * every kernel, so the cached result stands for the text alone. */
	xp_parse_kernel_details(s, k);
	slot->hash = h;
	slot->len = n;
	memcpy(slot->text, s, n);
	slot->k = *k;
}

struct copy_ctx {
	struct tk_copy_info *c;
	int have_src, have_dst;
	enum tk_mem_kind src, dst;
};

static enum tk_mem_kind mem_kind(const char *v, size_t vn)
{
	if (key_is(v, vn, "pageable"))
		return TK_MEM_PAGEABLE;
	if (key_is(v, vn, "pinned"))
		return TK_MEM_PINNED;
	if (key_is(v, vn, "device"))
		return TK_MEM_DEVICE;
	if (key_is(v, vn, "managed") || key_is(v, vn, "unified"))
		return TK_MEM_MANAGED;
	if (key_is(v, vn, "array"))
		return TK_MEM_ARRAY;
	return TK_MEM_UNKNOWN;
}

static void copy_token(void *ctx, const char *k, size_t kn, const char *v, size_t vn)
{
	struct copy_ctx *cc = ctx;
	if (key_is(k, kn, "size") || key_is(k, kn, "num_bytes"))
		cc->c->bytes = num(v, vn);
	else if (key_is(k, kn, "kind_src"))
		cc->c->src_kind = mem_kind(v, vn);
	else if (key_is(k, kn, "kind_dst"))
		cc->c->dst_kind = mem_kind(v, vn);
}

void xp_parse_memcpy_details(const char *s, const char *event_name, struct tk_copy_info *c)
{
	struct copy_ctx cc = {c, 0, 0, TK_MEM_UNKNOWN, TK_MEM_UNKNOWN};
	if (s)
		tokens(s, copy_token, &cc);
	if (c->bytes < 0)
		c->bytes = 0;
	/* The kind: from the event name (MemcpyH2D, hipMemcpyDtoD, ...), else from the memory kinds. */
	const char *n = event_name ? event_name : "";
	if (strstr(n, "H2D") || strstr(n, "HtoD"))
		c->copy_kind = TK_COPY_H2D;
	else if (strstr(n, "D2H") || strstr(n, "DtoH"))
		c->copy_kind = TK_COPY_D2H;
	else if (strstr(n, "D2D") || strstr(n, "DtoD"))
		c->copy_kind = TK_COPY_D2D;
	else if (strstr(n, "P2P") || strstr(n, "PtoP") || strstr(n, "Peer"))
		c->copy_kind = TK_COPY_P2P;
	else if (strstr(n, "H2H") || strstr(n, "HtoH"))
		c->copy_kind = TK_COPY_H2H;
	else {
		int sd = c->src_kind == TK_MEM_DEVICE, dd = c->dst_kind == TK_MEM_DEVICE;
		int sh = c->src_kind == TK_MEM_PAGEABLE || c->src_kind == TK_MEM_PINNED;
		int dh = c->dst_kind == TK_MEM_PAGEABLE || c->dst_kind == TK_MEM_PINNED;
		c->copy_kind = sh && dd	  ? TK_COPY_H2D
			       : sd && dh ? TK_COPY_D2H
			       : sd && dd ? TK_COPY_D2D
			       : sh && dh ? TK_COPY_H2H
					  : TK_COPY_UNKNOWN;
	}
}

static void set_token(void *ctx, const char *k, size_t kn, const char *v, size_t vn)
{
	struct tk_set_info *m = ctx;
	if (key_is(k, kn, "num_bytes") || key_is(k, kn, "size"))
		m->bytes = num(v, vn);
	else if (key_is(k, kn, "kind"))
		m->mem_kind = mem_kind(v, vn);
}

void xp_parse_memset_details(const char *s, struct tk_set_info *m)
{
	if (s)
		tokens(s, set_token, m);
	if (m->bytes < 0)
		m->bytes = 0;
}

char *xp_gunzip(const uint8_t *data, size_t len, size_t *out_len)
{
	z_stream z;
	char *out = NULL;
	size_t cap = len * 4 + 64, n = 0;
	memset(&z, 0, sizeof(z));
	if (len > UINT32_MAX || inflateInit2(&z, 15 + 32) != Z_OK) /* gzip or zlib header */
		return NULL;
	if (cap > XP_MAX_GUNZIP + 1)
		cap = XP_MAX_GUNZIP + 1;
	z.next_in = (Bytef *)(uintptr_t)data;
	z.avail_in = (uInt)len;
	for (;;) {
		char *grown = realloc(out, cap + 1);
		if (!grown)
			goto fail;
		out = grown;
		z.next_out = (Bytef *)out + n;
		z.avail_out = (uInt)(cap - n);
		int r = inflate(&z, Z_NO_FLUSH);
		n = cap - z.avail_out;
		if (r == Z_STREAM_END)
			break;
		if (r != Z_OK && r != Z_BUF_ERROR)
			goto fail;
		if (z.avail_out != 0) /* input ended before the stream did */
			goto fail;
		if (cap > XP_MAX_GUNZIP)
			goto fail;
		cap = cap * 2 > XP_MAX_GUNZIP + 1 ? XP_MAX_GUNZIP + 1 : cap * 2;
	}
	inflateEnd(&z);
	out[n] = 0;
	*out_len = n;
	return out;
fail:
	inflateEnd(&z);
	free(out);
	return NULL;
}

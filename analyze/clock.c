/*
 * Clock offsets between hosts (docs/metrics.md, "analysis_clock_offsets"): the members of an
 * all-reduce-like collective finish together, so per matched collective the difference between
 * two hosts' member ends is their clock offset plus jitter. Per collective each host's median
 * member end; per pair of hosts (each host against the first host of the collective in the
 * reference-first order) the median of the differences and the half-width of its rank-based
 * 95 % confidence interval; hosts reached from the reference host through the spanning tree of
 * the pairs with the most collectives. Only collectives matched by sequence number count. Writes
 * analysis_clock_offsets; comm.c applies the offsets with --align-clocks.
 */
#include "clock.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <tracekit/store.h>

#include "checked.h"

/* A host pair is used from this many shared collectives up. */
#define TKA_CLOCK_MIN_COLLECTIVES 3

int tka_clock_kind(const char *name)
{
	static const char *const kinds[] = {"allreduce", "allgather", "reducescatter", "alltoall",
					    "barrier"};
	char norm[128];
	size_t n = 0;
	if (!name)
		return 0;
	for (const char *p = name; *p && n + 1 < sizeof(norm); p++)
		if (isalnum((unsigned char)*p))
			norm[n++] = (char)tolower((unsigned char)*p);
	norm[n] = 0;
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (strstr(norm, kinds[i]))
			return 1;
	return 0;
}

static int64_t add_sat(int64_t a, int64_t b)
{
	int64_t r;
	return tk_add_ovf(a, b, &r) ? (b > 0 ? INT64_MAX : INT64_MIN) : r;
}

static int64_t sub_sat(int64_t a, int64_t b)
{
	int64_t r;
	return tk_sub_ovf(a, b, &r) ? (b < 0 ? INT64_MAX : INT64_MIN) : r;
}

static int cmp_i64(int64_t a, int64_t b)
{
	return a < b ? -1 : a > b;
}

/* A member reduced to what the estimate needs: its collective, its host's index, its end. */
struct end_row {
	int64_t instance, end;
	int32_t host;
};

static int cmp_end_row(const void *pa, const void *pb)
{
	const struct end_row *a = pa, *b = pb;
	int s;
	if ((s = cmp_i64(a->instance, b->instance)))
		return s;
	if (a->host != b->host)
		return a->host < b->host ? -1 : 1;
	return cmp_i64(a->end, b->end);
}

/* One collective's difference between host b and host a (a < b): e_b - e_a. */
struct diff_row {
	int32_t a, b;
	int64_t diff;
};

static int cmp_diff_row(const void *pa, const void *pb)
{
	const struct diff_row *x = pa, *y = pb;
	if (x->a != y->a)
		return x->a < y->a ? -1 : 1;
	if (x->b != y->b)
		return x->b < y->b ? -1 : 1;
	return cmp_i64(x->diff, y->diff);
}

/* A host pair's estimate: clock(b) - clock(a). */
struct edge {
	int32_t a, b;
	int64_t n, median, half;
};

/* Tree order: the most collectives first, then by hosts. */
static int cmp_edge(const void *pa, const void *pb)
{
	const struct edge *x = pa, *y = pb;
	if (x->n != y->n)
		return x->n > y->n ? -1 : 1;
	if (x->a != y->a)
		return x->a < y->a ? -1 : 1;
	return x->b < y->b ? -1 : x->b > y->b;
}

/* A host: its strings id, its name, and what the estimate found. */
struct host {
	int64_t id;
	char *name;
	int64_t devices, offset, half, collectives;
	int32_t via; /* parent in the tree, -1 for the reference and unreached hosts */
	int reached;
};

static int cmp_host(const void *pa, const void *pb)
{
	const struct host *a = pa, *b = pb;
	int s = strcmp(a->name, b->name);
	return s ? s : cmp_i64(a->id, b->id);
}

static int32_t uf_find(int32_t *up, int32_t x)
{
	while (up[x] != x)
		x = up[x] = up[up[x]];
	return x;
}

/* The estimate of one pair from its sorted differences x[0..n) (docs: the median and the
 * half-width of the rank-based 95 % interval, ranks n/2 -/+ 0.98 sqrt(n)). */
static void pair_estimate(const struct diff_row *x, size_t n, struct edge *e)
{
	double lo = floor((double)n / 2.0 - 0.98 * sqrt((double)n));
	size_t j = lo < 0 ? 0 : (size_t)lo;
	j = j > (n - 1) / 2 ? (n - 1) / 2 : j;
	size_t k = n - 1 - j;
	int64_t span = sub_sat(x[k].diff, x[j].diff);
	e->a = x[0].a;
	e->b = x[0].b;
	e->n = (int64_t)n;
	e->median = x[(n - 1) / 2].diff;
	e->half = span / 2 + (span % 2 != 0);
}

static int cmp_host_id(const void *pa, const void *pb)
{
	const struct host *a = pa, *b = pb;
	return cmp_i64(a->id, b->id);
}

/* The index in h[0..nh) (sorted by id in byid[]) of host @id. */
static int32_t host_index(const struct host *byid, size_t nh, int64_t id)
{
	size_t lo = 0, hi = nh;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (byid[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < nh && byid[lo].id == id ? (int32_t)byid[lo].via : -1;
}

/*
 * The hosts of the devices in @s (the devices with communication kernels): h[] reference first,
 * then by name; dev_host[i] the index of device i's host, -1 when unknown or without
 * communication. The reference is the host of the lowest rank, else of the lowest device id.
 */
static int read_hosts(struct tka_ctx *c, const struct tka_timeline *tl,
		      const struct tka_clock_sample *s, size_t n, int32_t *dev_host,
		      struct host **hosts_out, size_t *nh_out)
{
	sqlite3_stmt *q = NULL;
	struct host *h = NULL, *byid = NULL;
	size_t nh = 0;
	int64_t *hid = malloc((tl->ndev ? tl->ndev : 1) * sizeof(*hid));
	int32_t ref_dev = -1;
	int rc = TK_OK;
	if (!hid || !(h = calloc(tl->ndev ? tl->ndev : 1, sizeof(*h)))) {
		rc = tka_fail(c, TK_ENOMEM, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < tl->ndev; i++) {
		hid[i] = TK_NONE;
		dev_host[i] = 0; /* 1 while marking the devices with communication */
	}
	for (size_t i = 0; i < n; i++)
		dev_host[s[i].dev] = 1;
	if ((rc = tka_prepare(c,
			      "SELECT coalesce(d.host_id, p.host_id), s.str FROM devices d "
			      "LEFT JOIN processes p ON p.id = d.process_id LEFT JOIN strings s "
			      "ON s.id = coalesce(d.host_id, p.host_id) WHERE d.id = ?",
			      &q)) != TK_OK)
		goto out;
	for (size_t i = 0; i < tl->ndev; i++) {
		if (!dev_host[i])
			continue;
		sqlite3_reset(q);
		sqlite3_bind_int64(q, 1, tl->dev[i].device_id);
		int st = sqlite3_step(q);
		if (st != SQLITE_ROW && st != SQLITE_DONE) {
			rc = tka_fail(c, tka_sql_status(c), "reading hosts: %s",
				      sqlite3_errmsg(c->db));
			goto out;
		}
		if (st != SQLITE_ROW || sqlite3_column_type(q, 1) == SQLITE_NULL)
			continue;
		hid[i] = sqlite3_column_int64(q, 0);
		h[nh].id = hid[i];
		if (!(h[nh++].name = strdup((const char *)sqlite3_column_text(q, 1)))) {
			rc = tka_fail(c, TK_ENOMEM, "out of memory");
			goto out;
		}
		const struct tka_device *d = &tl->dev[i],
					*r = ref_dev < 0 ? NULL : &tl->dev[ref_dev];
		if (!r || (d->rank != TK_NONE && (r->rank == TK_NONE || d->rank < r->rank)))
			ref_dev = (int32_t)i;
	}
	/* one entry per host, counting its devices */
	qsort(h, nh, sizeof(*h), cmp_host_id);
	size_t u = 0;
	for (size_t k = 0; k < nh; k++) {
		if (u > 0 && h[u - 1].id == h[k].id) {
			h[u - 1].devices++;
			free(h[k].name);
			continue;
		}
		h[u] = h[k];
		h[u].devices = 1;
		u++;
	}
	nh = u;
	if (nh < 2)
		goto out;
	for (size_t k = 0; k < nh; k++)
		if (h[k].id == hid[ref_dev] && k > 0) {
			struct host t = h[0];
			h[0] = h[k];
			h[k] = t;
		}
	qsort(h + 1, nh - 1, sizeof(*h), cmp_host);
	/* device -> index: through a copy sorted by id, its index kept in via */
	if (!(byid = malloc(nh * sizeof(*byid)))) {
		rc = tka_fail(c, TK_ENOMEM, "out of memory");
		goto out;
	}
	for (size_t k = 0; k < nh; k++) {
		byid[k] = h[k];
		byid[k].via = (int32_t)k;
		h[k].via = -1;
	}
	qsort(byid, nh, sizeof(*byid), cmp_host_id);
	for (size_t i = 0; i < tl->ndev; i++)
		dev_host[i] = hid[i] == TK_NONE ? -1 : host_index(byid, nh, hid[i]);
out:
	if (nh < 2)
		for (size_t i = 0; i < tl->ndev; i++)
			dev_host[i] = -1;
	sqlite3_finalize(q);
	free(byid);
	free(hid);
	*hosts_out = h;
	*nh_out = nh;
	return rc;
}

/* The pairs' estimates from the matched members: per collective each host's median member end
 * (the lower middle one), each host against the collective's first host. */
static int pair_edges(struct tka_ctx *c, const struct tka_clock_sample *s, size_t n,
		      const int32_t *dev_host, struct host *h, struct edge **edges, size_t *ne)
{
	struct end_row *r = malloc((n ? n : 1) * sizeof(*r));
	struct diff_row *d = malloc((n ? n : 1) * sizeof(*d));
	size_t nr = 0, nd = 0;
	int rc = TK_OK;
	*edges = NULL;
	*ne = 0;
	if (!r || !d) {
		rc = tka_fail(c, TK_ENOMEM, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < n; i++)
		if (s[i].instance > 0 && s[i].ends_together && dev_host[s[i].dev] >= 0)
			r[nr++] = (struct end_row){s[i].instance, s[i].end, dev_host[s[i].dev]};
	if (nr > 1)
		qsort(r, nr, sizeof(*r), cmp_end_row);
	for (size_t a = 0; a < nr;) {
		size_t b = a, first = a, hosts = 0;
		int64_t e0 = 0;
		while (b < nr && r[b].instance == r[a].instance) {
			size_t k = b;
			while (k < nr && r[k].instance == r[a].instance && r[k].host == r[b].host)
				k++;
			int64_t e = r[b + (k - b - 1) / 2].end;
			if (hosts++ == 0)
				e0 = e;
			else
				d[nd++] =
				    (struct diff_row){r[first].host, r[b].host, sub_sat(e, e0)};
			b = k;
		}
		if (hosts >= 2 && r[first].host == 0)
			h[0].collectives++;
		a = b;
	}
	if (nd > 1)
		qsort(d, nd, sizeof(*d), cmp_diff_row);
	/* per pair from TKA_CLOCK_MIN_COLLECTIVES up */
	if (!(*edges = malloc((nd / TKA_CLOCK_MIN_COLLECTIVES + 1) * sizeof(**edges)))) {
		rc = tka_fail(c, TK_ENOMEM, "out of memory");
		goto out;
	}
	for (size_t a = 0; a < nd;) {
		size_t b = a;
		while (b < nd && d[b].a == d[a].a && d[b].b == d[a].b)
			b++;
		if (b - a >= TKA_CLOCK_MIN_COLLECTIVES)
			pair_estimate(&d[a], b - a, &(*edges)[(*ne)++]);
		a = b;
	}
out:
	free(r);
	free(d);
	return rc;
}

/* The spanning tree over the pairs (Kruskal in cmp_edge's order), then every host's offset
 * from the reference host along its path (breadth first). */
static int place_hosts(struct tka_ctx *c, struct edge *e, size_t ne, struct host *h, size_t nh)
{
	int32_t *up = malloc(nh * sizeof(*up)), *queue = malloc(nh * sizeof(*queue));
	struct edge *t = malloc((2 * nh + 1) * sizeof(*t)); /* tree edges, both directions */
	size_t *first = calloc(nh + 1, sizeof(*first)), nt = 0;
	int rc = TK_OK;
	if (!up || !queue || !t || !first) {
		rc = tka_fail(c, TK_ENOMEM, "out of memory");
		goto out;
	}
	for (size_t k = 0; k < nh; k++)
		up[k] = (int32_t)k;
	if (ne > 1)
		qsort(e, ne, sizeof(*e), cmp_edge);
	for (size_t i = 0; i < ne && nt < 2 * (nh - 1); i++) {
		int32_t ra = uf_find(up, e[i].a), rb = uf_find(up, e[i].b);
		if (ra == rb)
			continue;
		up[ra] = rb;
		t[nt++] = e[i];
		t[nt] = e[i]; /* the reverse: clock(a) - clock(b) */
		t[nt].a = e[i].b;
		t[nt].b = e[i].a;
		t[nt++].median = e[i].median == INT64_MIN ? INT64_MAX : -e[i].median;
	}
	/* adjacency: tree edges grouped by their first host (counting sort) */
	for (size_t i = 0; i < nt; i++)
		first[t[i].a + 1]++;
	for (size_t k = 0; k < nh; k++)
		first[k + 1] += first[k];
	struct edge *adj = malloc((nt ? nt : 1) * sizeof(*adj));
	if (!adj) {
		rc = tka_fail(c, TK_ENOMEM, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < nt; i++)
		adj[first[t[i].a]++] = t[i];
	for (size_t k = nh; k > 0; k--)
		first[k] = first[k - 1];
	first[0] = 0;
	size_t qh = 0, qt = 0;
	h[0].reached = 1;
	queue[qt++] = 0;
	while (qh < qt) {
		int32_t a = queue[qh++];
		for (size_t i = first[a]; i < first[a + 1]; i++) {
			struct host *b = &h[adj[i].b];
			if (b->reached)
				continue;
			b->reached = 1;
			b->via = a;
			b->offset = add_sat(h[a].offset, adj[i].median);
			b->half = add_sat(h[a].half, adj[i].half);
			b->collectives =
			    a == 0 || adj[i].n < h[a].collectives ? adj[i].n : h[a].collectives;
			queue[qt++] = adj[i].b;
		}
	}
	free(adj);
out:
	free(up);
	free(queue);
	free(t);
	free(first);
	return rc;
}

TKA_WRITES(TK_NCOLS_ANALYSIS_CLOCK_OFFSETS, 8, "analysis_clock_offsets");

static int write_hosts(struct tka_ctx *c, const struct host *h, size_t nh, int apply)
{
	sqlite3_stmt *ins = NULL;
	int rc = tka_prepare(c,
			     "INSERT INTO analysis_clock_offsets (" TK_COLS_ANALYSIS_CLOCK_OFFSETS
			     ") VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
			     &ins);
	for (size_t k = 0; rc == TK_OK && k < nh; k++) {
		const struct host *x = &h[k];
		int j = 1;
		sqlite3_reset(ins);
		sqlite3_bind_text(ins, j++, x->name, -1, SQLITE_STATIC);
		sqlite3_bind_text(ins, j++, h[0].name, -1, SQLITE_STATIC);
		sqlite3_bind_int64(ins, j++, x->devices);
		if (x->reached) {
			sqlite3_bind_int64(ins, j++, x->offset);
			sqlite3_bind_int64(ins, j++, x->half);
		} else {
			sqlite3_bind_null(ins, j++);
			sqlite3_bind_null(ins, j++);
		}
		sqlite3_bind_int64(ins, j++, x->reached ? x->collectives : 0);
		if (x->reached && k > 0)
			sqlite3_bind_text(ins, j++, h[x->via].name, -1, SQLITE_STATIC);
		else
			sqlite3_bind_null(ins, j++);
		sqlite3_bind_int(ins, j++, apply && x->reached);
		if (sqlite3_step(ins) != SQLITE_DONE)
			rc = tka_fail(c, TK_EINTERNAL, "writing analysis_clock_offsets: %s",
				      sqlite3_errmsg(c->db));
	}
	sqlite3_finalize(ins);
	return rc;
}

int tka_clock_offsets(struct tka_ctx *c, const struct tka_timeline *tl, struct tka_clock_sample *s,
		      size_t n, int apply, int64_t *dev_off)
{
	int32_t *dev_host = malloc((tl->ndev ? tl->ndev : 1) * sizeof(*dev_host));
	struct host *h = NULL;
	struct edge *e = NULL;
	size_t nh = 0, ne = 0;
	int rc;
	for (size_t i = 0; i < tl->ndev; i++)
		dev_off[i] = 0;
	if (!dev_host) {
		rc = tka_fail(c, TK_ENOMEM, "out of memory");
		goto out;
	}
	if ((rc = read_hosts(c, tl, s, n, dev_host, &h, &nh)) != TK_OK || nh < 2 ||
	    (rc = pair_edges(c, s, n, dev_host, h, &e, &ne)) != TK_OK ||
	    (rc = place_hosts(c, e, ne, h, nh)) != TK_OK)
		goto out;
	/* the reference's 0 is a result only beside another host's offset */
	h[0].reached = 0;
	for (size_t k = 1; k < nh; k++)
		h[0].reached |= h[k].reached;
	if ((rc = write_hosts(c, h, nh, apply)) != TK_OK)
		goto out;
	for (size_t i = 0; apply && i < tl->ndev; i++)
		if (dev_host[i] >= 0 && h[dev_host[i]].reached)
			dev_off[i] = h[dev_host[i]].offset;
out:
	for (size_t k = 0; k < nh; k++)
		free(h ? h[k].name : NULL);
	free(h);
	free(e);
	free(dev_host);
	return rc;
}

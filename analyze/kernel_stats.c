/*
 * Kernel stats (analysis_kernel_stats): kernels grouped by device, name, grid, block, registers
 * and shared memory, with occurrences, total/avg/min/max/median/stddev duration, occupancy (from
 * the source, else computed from the launch configuration and the device's limits) and a
 * tensor-core name heuristic; ranked by total time. Occupancy is the theoretical one of the
 * project's calculator (util/occupancy.c) wherever the launch configuration and the
 * device are known, with the source's own figure beside it. Definitions: docs/metrics.md. The kernels
 * and their kernel_details come from the shared pass over the events (event_pass.c), grouped as
 * they go by.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <tracekit/store.h>

#include "util/map.h"
#include "util/occupancy.h"
#include "analyze_internal.h"

#define NKEY 11 /* device, name, grid xyz, block xyz, registers, static smem, dynamic smem */
#define NONE INT64_MIN

struct kgroup {
	int64_t key[NKEY]; /* NONE for a NULL column */
	int64_t n, total, min, max;
	int64_t *durs;
	size_t ndurs, cap;
	double occ_w, occ_wdur, occ_sum; /* Σ occ·dur, Σ dur, Σ occ over kernels with occupancy */
	int64_t occ_n;			 /* kernels with a source occupancy (> 0) */
	double median, stddev, occupancy, source_occ; /* < 0: unknown */
	const char *occ_source;
};

/* A device and, when the calculator applies to it (known = 1), its limits. */
struct devlim {
	int64_t id;
	int known;
	struct tku_occ_device occ;
};

static int add_kernel(struct kgroup *g, int64_t dur, double occ)
{
	if (TKU_GROW(g->durs, g->cap, g->ndurs + 1, 8) != TK_OK)
		return TK_ENOMEM;
	g->durs[g->ndurs++] = dur;
	if (!g->n || dur < g->min)
		g->min = dur;
	if (!g->n || dur > g->max)
		g->max = dur;
	g->n++;
	g->total += dur;
	if (occ > 0) { /* a source's 0 is no figure (Kineto, ROCm: not estimated) */
		g->occ_n++;
		g->occ_sum += occ;
		g->occ_w += occ * (double)dur;
		g->occ_wdur += (double)dur;
	}
	return TK_OK;
}

/*
 * Theoretical occupancy of a group's launch configuration on @d (docs: "Computed occupancy"),
 * or -1: block dimensions, registers and shared memory must be known (a NULL one of static and
 * dynamic shared memory counts 0), and a launch the calculator finds cannot be resident is no
 * figure for kernels that ran. The function is taken to have opted in to the shared memory it
 * uses (it could not have launched otherwise).
 */
static double computed_occupancy(const int64_t *k, const struct devlim *d)
{
	int64_t threads = 1;
	if (!d || !d->known || k[8] == NONE || (k[9] == NONE && k[10] == NONE))
		return -1;
	for (int i = 5; i < 8; i++) {
		if (k[i] == NONE || k[i] <= 0 || k[i] > 65536)
			return -1;
		threads *= k[i];
	}
	if (threads > 1 << 30 || k[8] < 0 || k[8] > 1 << 20)
		return -1;
	double occ = tku_occupancy(&d->occ, (int)threads, (int)k[8], k[9] == NONE ? 0 : k[9],
				   k[10] == NONE ? 0 : k[10], 1, NULL);
	return occ > 0 ? occ : -1;
}

/* Tensor-core name patterns: XProf's list (kernel_stats_utils.cc) plus two of our own. */
static int uses_tensor_cores(const char *name)
{
	static const char *const pat[] = {"16816",
					  "c1688",
					  "conv1x1",
					  "conv2d_c1_k1",
					  "dgrad_1x1_stride_2x2",
					  "direct_group",
					  "first_layer_wgrad_kernel",
					  "h1688",
					  "h884",
					  "hmma",
					  "i16832",
					  "i8816",
					  "s884",
					  "s1688",
					  "xmma_gemm",
					  "xmma_implicit_gemm",
					  "xmma_sparse_conv",
					  "xmma_sparse_gemm",
					  "xmma_warp_specialized_implicit_gemm",
					  "tensorop",
					  "wgmma"};
	for (size_t i = 0; name && i < sizeof(pat) / sizeof(pat[0]); i++)
		if (strstr(name, pat[i]))
			return 1;
	return 0;
}

/* "M.m" (one or two digits each) into *major, *minor; -1 for anything else. */
static int parse_cc(const char *cc, int *major, int *minor)
{
	int v[2] = {0, 0}, part = 0, digits = 0;
	for (const char *p = cc; p && *p; p++) {
		if (*p == '.' && part == 0 && digits) {
			part = 1;
			digits = 0;
		} else if (*p >= '0' && *p <= '9' && digits < 2) {
			v[part] = v[part] * 10 + (*p - '0');
			digits++;
		} else {
			return -1;
		}
	}
	if (!cc || part != 1 || !digits)
		return -1;
	*major = v[0];
	*minor = v[1];
	return 0;
}

/* Limits of @d from the store's row of @q (columns as load_devices selects them). */
static void device_limits(sqlite3_stmt *q, struct devlim *d)
{
	const char *vendor = (const char *)sqlite3_column_text(q, 1);
	const char *cc = (const char *)sqlite3_column_text(q, 2);
	int major, minor;
	d->known = 0;
	/* NVIDIA's calculator: an NVIDIA device, or one whose vendor the source does not say */
	if (vendor && *vendor && strcmp(vendor, "nvidia") != 0)
		return;
	if (parse_cc(cc, &major, &minor) != 0 || tku_occ_device_for_cc(major, minor, &d->occ) != 0)
		return;
	for (int i = 3; i <= 6; i++) { /* what the source states replaces the table's */
		if (sqlite3_column_type(q, i) == SQLITE_NULL)
			continue;
		int64_t v = sqlite3_column_int64(q, i);
		if (v <= 0 || v > INT32_MAX)
			continue;
		if (i == 3)
			d->occ.sm_count = (int)v;
		else if (i == 4)
			d->occ.max_threads_per_sm = (int)v;
		else if (i == 5)
			d->occ.regs_per_sm = (int)v;
		else
			d->occ.smem_per_sm = v;
	}
	d->occ.smem_per_block_optin = d->occ.smem_per_sm - d->occ.reserved_smem_per_block;
	d->known = 1;
}

static int load_devices(struct tka_ctx *c, struct devlim **out, size_t *n)
{
	sqlite3_stmt *q = NULL;
	size_t cap = 0;
	int rc = tka_prepare(c,
			     "SELECT id, lower(vendor), compute_capability, sm_count, "
			     "max_threads_per_sm, max_regs_per_sm, max_smem_per_sm FROM devices "
			     "ORDER BY id",
			     &q);
	*out = NULL;
	*n = 0;
	while (rc == TK_OK && sqlite3_step(q) == SQLITE_ROW) {
		if (TKU_GROW(*out, cap, *n + 1, 8) != TK_OK) {
			rc = tka_fail(c, TK_ENOMEM, "out of memory in kernel stats");
			break;
		}
		struct devlim *d = &(*out)[(*n)++];
		d->id = sqlite3_column_int64(q, 0);
		device_limits(q, d);
	}
	sqlite3_finalize(q);
	return rc;
}

static const struct devlim *find_dev(const struct devlim *d, size_t n, int64_t id)
{
	for (size_t i = 0; i < n; i++)
		if (d[i].id == id)
			return &d[i];
	return NULL;
}

/* What the pass over the events builds for kernel stats. */
struct tka_ks_state {
	struct tku_table G; /* of struct kgroup */
	struct devlim *devs;
	size_t ndev;
};

void tka_kernel_stats_free(struct tka_ks_state *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->G.n; i++)
		free(((struct kgroup *)tku_table_elem(&s->G, i))->durs);
	tku_table_free(&s->G);
	free(s->devs);
	free(s);
}

int tka_kernel_stats_begin(struct tka_ctx *c)
{
	struct tka_ks_state *s = calloc(1, sizeof(*s));
	int rc;
	if (!s)
		return tka_fail(c, TK_ENOMEM, "out of memory in kernel stats");
	c->ks = s;
	s->G = (struct tku_table)TKU_TABLE_INIT(struct kgroup, NKEY);
	if ((rc = load_devices(c, &s->devs, &s->ndev)) != TK_OK)
		return rc;
	if (tku_map_reserve(&s->G.map, 128) != 0)
		return tka_fail(c, TK_ENOMEM, "out of memory in kernel stats");
	c->pass->want_kernel_details = 1;
	return TK_OK;
}

/* Every kernel event (kind 5) of a track, grouped by device, name and launch configuration. */
int tka_kernel_stats_event(struct tka_ctx *c, const struct tka_ev *e)
{
	if (e->kind != TK_EV_KERNEL || e->track < 1 || e->track > c->pass->ntracks ||
	    !c->pass->tracks[e->track].exists)
		return TK_OK;
	int64_t k[NKEY];
	k[0] = c->pass->tracks[e->track].device_id;
	k[1] = e->name_id;
	for (int i = 0; i < 9; i++)
		k[i + 2] = e->has_kd ? e->kd[i] : NONE;
	struct kgroup *g = tku_table_at(&c->ks->G, k, NULL);
	if (!g || add_kernel(g, e->dur, e->has_kd ? e->occupancy : -1) != TK_OK)
		return tka_fail(c, TK_ENOMEM, "out of memory in kernel stats");
	return TK_OK;
}

int tka_kernel_stats_end(struct tka_ctx *c)
{
	(void)c;
	return TK_OK;
}

/* Median, stddev and occupancy of every group. */
static void finish_groups(struct tku_table *G, const struct devlim *devs, size_t ndev)
{
	size_t most = 0;
	for (size_t i = 0; i < G->n; i++) {
		const struct kgroup *g = tku_table_elem(G, i);
		if (g->ndurs > most)
			most = g->ndurs;
	}
	int64_t *tmp = malloc((most ? most : 1) * sizeof(*tmp)); /* NULL: qsort instead */
	for (size_t i = 0; i < G->n; i++) {
		struct kgroup *g = tku_table_elem(G, i);
		tka_sort_i64(g->durs, g->ndurs, tmp);
		size_t m = g->ndurs / 2;
		g->median = g->ndurs % 2 ? (double)g->durs[m]
					 : ((double)g->durs[m - 1] + (double)g->durs[m]) / 2.0;
		long double mean = (long double)g->total / (long double)g->n, ss = 0;
		for (size_t j = 0; j < g->ndurs; j++) {
			long double d = (long double)g->durs[j] - mean;
			ss += d * d;
		}
		g->stddev = (double)sqrtl(ss / (long double)g->n);
		g->source_occ = !g->occ_n	  ? -1
				: g->occ_wdur > 0 ? g->occ_w / g->occ_wdur
						  : g->occ_sum / (double)g->occ_n;
		const struct devlim *d = g->key[0] == NONE ? NULL : find_dev(devs, ndev, g->key[0]);
		g->occupancy = computed_occupancy(g->key, d);
		g->occ_source = "computed";
		if (g->occupancy < 0) {
			g->occupancy = g->source_occ;
			g->occ_source = g->source_occ < 0 ? NULL : "source";
		}
	}
	free(tmp);
}

static int cmp_group(const void *a, const void *b)
{
	const struct kgroup *x = *(const struct kgroup *const *)a;
	const struct kgroup *y = *(const struct kgroup *const *)b;
	if (x->total != y->total)
		return x->total > y->total ? -1 : 1;
	for (int i = 0; i < NKEY; i++)
		if (x->key[i] != y->key[i])
			return x->key[i] < y->key[i] ? -1 : 1;
	return 0;
}

TKA_WRITES(TK_NCOLS_ANALYSIS_KERNEL_STATS, 24, "analysis_kernel_stats");

static int write_groups(struct tka_ctx *c, struct tku_table *G)
{
	sqlite3_stmt *ins = NULL, *str = NULL;
	struct kgroup **v = malloc((G->n ? G->n : 1) * sizeof(*v));
	size_t n = 0;
	int rc = v ? TK_OK : tka_fail(c, TK_ENOMEM, "out of memory in kernel stats");
	for (size_t i = 0; rc == TK_OK && i < G->n; i++)
		v[n++] = tku_table_elem(G, i);
	if (rc == TK_OK)
		qsort(v, n, sizeof(*v), cmp_group);
	if (rc == TK_OK)
		rc = tka_prepare(c,
				 "INSERT INTO analysis_kernel_stats (" TK_COLS_ANALYSIS_KERNEL_STATS
				 ") VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
				 &ins);
	if (rc == TK_OK)
		rc = tka_prepare(c, "SELECT str FROM strings WHERE id = ?", &str);
	for (size_t i = 0; rc == TK_OK && i < n; i++) {
		struct kgroup *g = v[i];
		sqlite3_bind_int64(str, 1, g->key[1]);
		const char *name = sqlite3_step(str) == SQLITE_ROW
				       ? (const char *)sqlite3_column_text(str, 0)
				       : NULL;
		sqlite3_bind_int64(ins, 1, (int64_t)i + 1);
		for (int k = 0; k < NKEY; k++) {
			int col = k < 1 ? 2 : k + 2; /* name goes in column 3 */
			if (k == 1)
				continue;
			if (g->key[k] == NONE)
				sqlite3_bind_null(ins, col);
			else
				sqlite3_bind_int64(ins, col, g->key[k]);
		}
		if (name)
			sqlite3_bind_text(ins, 3, name, -1, SQLITE_TRANSIENT);
		else
			sqlite3_bind_text(ins, 3, "", -1, SQLITE_STATIC);
		if (g->key[9] == NONE && g->key[10] == NONE)
			sqlite3_bind_null(ins, 13);
		else
			sqlite3_bind_int64(ins, 13,
					   (g->key[9] == NONE ? 0 : g->key[9]) +
					       (g->key[10] == NONE ? 0 : g->key[10]));
		sqlite3_bind_int64(ins, 14, g->n);
		sqlite3_bind_int64(ins, 15, g->total);
		sqlite3_bind_double(ins, 16, (double)g->total / (double)g->n);
		sqlite3_bind_int64(ins, 17, g->min);
		sqlite3_bind_int64(ins, 18, g->max);
		sqlite3_bind_double(ins, 19, g->median);
		sqlite3_bind_double(ins, 20, g->stddev);
		if (g->occ_source)
			sqlite3_bind_double(ins, 21, g->occupancy);
		else
			sqlite3_bind_null(ins, 21);
		if (g->occ_source)
			sqlite3_bind_text(ins, 22, g->occ_source, -1, SQLITE_STATIC);
		else
			sqlite3_bind_null(ins, 22);
		sqlite3_bind_int(ins, 23, uses_tensor_cores(name));
		if (g->source_occ >= 0)
			sqlite3_bind_double(ins, 24, g->source_occ);
		else
			sqlite3_bind_null(ins, 24);
		if (sqlite3_step(ins) != SQLITE_DONE)
			rc = tka_fail(c, TK_EINTERNAL, "writing kernel stats: %s",
				      sqlite3_errmsg(c->db));
		sqlite3_reset(ins);
		sqlite3_reset(str);
	}
	sqlite3_finalize(ins);
	sqlite3_finalize(str);
	free(v);
	return rc;
}

/*
 * A job analysed part by part: each part's groups, finished (their durations freed), are kept
 * in c->split->ks until the end, when they are ranked and written together.
 */
static int keep_groups(struct tka_ctx *c)
{
	struct tka_split *sp = c->split;
	if (!sp->ks) {
		if (!(sp->ks = calloc(1, sizeof(*sp->ks))))
			return tka_fail(c, TK_ENOMEM, "out of memory in kernel stats");
		sp->ks->G = (struct tku_table)TKU_TABLE_INIT(struct kgroup, NKEY);
	}
	for (size_t i = 0; i < c->ks->G.n; i++) {
		struct kgroup *g = tku_table_elem(&c->ks->G, i);
		struct kgroup *k = tku_table_at(&sp->ks->G, g->key, NULL);
		if (!k)
			return tka_fail(c, TK_ENOMEM, "out of memory in kernel stats");
		*k = *g; /* a group's key holds its device: no two parts share one */
		k->durs = NULL;
		k->ndurs = k->cap = 0;
	}
	return TK_OK;
}

int tka_kernel_stats(struct tka_ctx *c)
{
	if (c->split_end) /* every part's groups, ranked together */
		return c->split->ks ? write_groups(c, &c->split->ks->G) : TK_OK;
	int rc = tka_pass_run(c); /* groups every kernel as the events go by */
	if (rc == TK_OK && !c->ks)
		rc = tka_fail(c, TK_EINTERNAL, "kernel stats were already written");
	if (rc != TK_OK)
		return rc;
	finish_groups(&c->ks->G, c->ks->devs, c->ks->ndev);
	rc = c->part ? keep_groups(c) : write_groups(c, &c->ks->G);
	tka_kernel_stats_free(c->ks);
	c->ks = NULL;
	return rc;
}

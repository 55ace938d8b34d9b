/*
 * Kernel launch statistics (analysis_launch_stats; docs/metrics.md, "Kernel launches", HTA's
 * CUDA kernel launch stats): per device, kind and name of device operation, the duration of the
 * API call that launched it, the delay from that call's start to the operation's start, HTA's
 * queue delay (from the call's end), and HTA's outlier and short-kernel counts. Each operation's
 * launch is the one the timeline links (intervals.h, tka_op.launch_ts and launch_dur: launch
 * flow, else correlation id, by the timeline's rule). No window: every operation of the store.
 */
#include "checked.h"
#include "intern.h"
#include "intervals.h"
#include "util/vec.h"

#include <stdlib.h>
#include <string.h>
#include <tracekit/store.h>

#define CALL_CUTOFF_NS 50000   /* HTA's runtime_cutoff: a launch call longer is an outlier */
#define DELAY_CUTOFF_NS 100000 /* HTA's launch_delay_cutoff: a longer queue delay is one */

/* Room for one more element of @size in *@v (n used, *cap allocated); 0 when memory ran out. */
static int grow(void **v, size_t n, size_t *cap, size_t size)
{
	return tku_grow(v, cap, n + 1, size, 4096) == TK_OK;
}

/* ---- the statistics ---- */

/* Mean, median, p90 (nearest rank), max and sum of one figure over n sorted launches. */
struct stat {
	double mean, median;
	int64_t p90, max, total;
};

/* A group: device, kind, name, with its counts and its three statistics. */
struct grp {
	int64_t device_id, name_id;
	int kind;
	int64_t ops, launches, device_ns, call_outliers, delay_outliers, short_launches;
	struct stat st[3];
};

/* The statistics of the n sorted values @v. */
static int stat_of(const int64_t *v, size_t n, struct stat *o)
{
	int64_t total = 0;
	for (size_t k = 0; k < n; k++)
		if (tk_add_ovf(total, v[k], &total))
			return TK_EFORMAT;
	size_t m = n / 2, p = (9 * n + 9) / 10; /* ceil(0.9 n), 1-based */
	o->total = total;
	o->mean = (double)total / (double)n;
	o->median = n % 2 ? (double)v[m] : ((double)v[m - 1] + (double)v[m]) / 2;
	o->p90 = v[p - 1];
	o->max = v[n - 1];
	return TK_OK;
}

static const char *kind_name(int kind)
{
	switch (kind) {
	case TK_EV_KERNEL:
		return "kernel";
	case TK_EV_MEMCPY:
		return "memcpy";
	case TK_EV_MEMSET:
		return "memset";
	default:
		return "xla_op";
	}
}

struct grps {
	struct tks_intern keys; /* (device, name, kind) as bytes -> index + 1 */
	struct grp *v;
	size_t n, cap;
};

/* The index of group (device, name, kind), made on first use; SIZE_MAX when memory ran out. */
static size_t grp_of(struct grps *G, int64_t device, int64_t name_id, int kind)
{
	int64_t key[3] = {device, name_id, kind};
	int added;
	uint32_t id = tks_intern_lookup(&G->keys, (const char *)key, sizeof(key), &added);
	if (!id)
		return SIZE_MAX;
	if (added) {
		if (!grow((void **)&G->v, G->n, &G->cap, sizeof(*G->v)))
			return SIZE_MAX;
		struct grp *x = &G->v[G->n++];
		memset(x, 0, sizeof(*x));
		x->device_id = device;
		x->name_id = name_id;
		x->kind = kind;
	}
	return id - 1;
}

TKA_WRITES(TK_NCOLS_ANALYSIS_LAUNCH_STATS, 23, "analysis_launch_stats");

static int write_rows(struct tka_ctx *c, const struct grps *G)
{
	sqlite3_stmt *ins = NULL;
	int rc =
	    tka_prepare(c,
			"INSERT INTO analysis_launch_stats (" TK_COLS_ANALYSIS_LAUNCH_STATS
			") VALUES (?1, ?2, coalesce((SELECT str FROM strings WHERE id = ?3), ''), "
			"?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, "
			"?20, ?21, ?22, ?23)",
			&ins);
	for (size_t i = 0; rc == TK_OK && i < G->n; i++) {
		const struct grp *g = &G->v[i];
		if (!g->launches)
			continue;
		sqlite3_reset(ins);
		sqlite3_bind_int64(ins, 1, g->device_id);
		sqlite3_bind_text(ins, 2, kind_name(g->kind), -1, SQLITE_STATIC);
		sqlite3_bind_int64(ins, 3, g->name_id);
		sqlite3_bind_int64(ins, 4, g->ops);
		sqlite3_bind_int64(ins, 5, g->launches);
		sqlite3_bind_int64(ins, 6, g->device_ns);
		sqlite3_bind_int64(ins, 7, g->st[0].total);
		for (int k = 0; k < 3; k++) {
			sqlite3_bind_double(ins, 8 + 4 * k, g->st[k].mean);
			sqlite3_bind_double(ins, 9 + 4 * k, g->st[k].median);
			sqlite3_bind_int64(ins, 10 + 4 * k, g->st[k].p90);
			sqlite3_bind_int64(ins, 11 + 4 * k, g->st[k].max);
		}
		sqlite3_bind_int64(ins, 20, g->call_outliers);
		sqlite3_bind_int64(ins, 21, g->delay_outliers);
		sqlite3_bind_int64(ins, 22, g->short_launches);
		sqlite3_bind_double(ins, 23, (double)g->short_launches / (double)g->launches);
		if (sqlite3_step(ins) != SQLITE_DONE)
			rc = tka_fail(c, tka_sql_status(c), "writing analysis_launch_stats: %s",
				      sqlite3_errmsg(c->db));
	}
	sqlite3_finalize(ins);
	return rc;
}

/* The three figures of a launched operation @op: call duration, launch delay, queue delay. */
static void figures(const struct tka_op *op, int64_t v[3])
{
	int64_t delay = op->ts - op->launch_ts, q = delay - op->launch_dur; /* times < 2^62 */
	v[0] = op->launch_dur;
	v[1] = delay;
	v[2] = q > 0 ? q : 0;
}

/*
 * Every operation of the timeline into its group (@gix: its index, per operation in timeline
 * order) with the group's counts and device time; the launched ones counted in @at[g + 1].
 */
static int count(struct tka_ctx *c, const struct tka_timeline *tl, struct grps *G, uint32_t *gix,
		 size_t **at)
{
	size_t n = 0;
	for (size_t i = 0; i < tl->ndev; i++) {
		const struct tka_device *d = &tl->dev[i];
		for (size_t k = 0; k < d->nops; k++, n++) {
			const struct tka_op *op = &d->ops[k];
			size_t g = grp_of(G, d->device_id, op->name_id, op->kind);
			if (g == SIZE_MAX)
				return tka_fail(c, TK_ENOMEM, "out of memory");
			if (g >= UINT32_MAX)
				return tka_fail(c, TK_EFORMAT, "more than 2^32 operation names");
			gix[n] = (uint32_t)g;
			struct grp *gr = &G->v[g];
			gr->ops++;
			if (op->launch_ts == TKA_NO_LAUNCH)
				continue;
			int64_t v[3], dur = op->end - op->ts;
			figures(op, v);
			gr->launches++;
			gr->call_outliers += v[0] > CALL_CUTOFF_NS;
			gr->delay_outliers += v[2] > DELAY_CUTOFF_NS;
			gr->short_launches += v[0] <= CALL_CUTOFF_NS && dur < v[0];
			if (tk_add_ovf(gr->device_ns, dur, &gr->device_ns))
				return tka_fail(c, TK_EFORMAT, "device time of launches overflows");
		}
	}
	if (!(*at = calloc(G->n + 1, sizeof(**at))))
		return tka_fail(c, TK_ENOMEM, "out of memory");
	for (size_t g = 0; g < G->n; g++)
		(*at)[g + 1] = (*at)[g] + (size_t)G->v[g].launches;
	return TK_OK;
}

/*
 * Each group's statistics of the three figures: per figure, the launched operations' values
 * placed in group order (@at: each group's first position), each group's run radix-sorted.
 */
static int group_stats(struct tka_ctx *c, const struct tka_timeline *tl, struct grps *G,
		       const uint32_t *gix, const size_t *at)
{
	size_t nl = at[G->n];
	int64_t *v = malloc((nl ? nl : 1) * sizeof(*v)),
		*tmp = malloc((nl ? nl : 1) * sizeof(*tmp));
	size_t *pos = malloc((G->n ? G->n : 1) * sizeof(*pos));
	int rc = TK_OK;
	if (!v || !tmp || !pos)
		rc = tka_fail(c, TK_ENOMEM, "out of memory");
	for (int f = 0; f < 3 && rc == TK_OK; f++) {
		memcpy(pos, at, G->n * sizeof(*pos));
		size_t n = 0;
		for (size_t i = 0; i < tl->ndev; i++)
			for (size_t k = 0; k < tl->dev[i].nops; k++, n++) {
				const struct tka_op *op = &tl->dev[i].ops[k];
				if (op->launch_ts == TKA_NO_LAUNCH)
					continue;
				int64_t x[3];
				figures(op, x);
				v[pos[gix[n]]++] = x[f];
			}
		for (size_t g = 0; g < G->n && rc == TK_OK; g++) {
			size_t a = at[g], m = at[g + 1] - a;
			if (!m)
				continue;
			tka_sort_i64(v + a, m, tmp);
			if (stat_of(v + a, m, &G->v[g].st[f]) != TK_OK)
				rc = tka_fail(c, TK_EFORMAT, "launch times add up past 2^63 ns");
		}
	}
	free(v);
	free(tmp);
	free(pos);
	return rc;
}

int tka_launch_stats(struct tka_ctx *c)
{
	const struct tka_timeline *tl = NULL;
	struct grps G = {0};
	uint32_t *gix = NULL;
	size_t *at = NULL, nops = 0;
	int rc = tka_timeline_get(c, &tl);
	if (rc != TK_OK)
		return rc;
	tks_intern_init(&G.keys);
	for (size_t i = 0; i < tl->ndev; i++)
		nops += tl->dev[i].nops;
	if (!(gix = malloc((nops ? nops : 1) * sizeof(*gix)))) {
		rc = tka_fail(c, TK_ENOMEM, "out of memory");
		goto out;
	}
	if ((rc = count(c, tl, &G, gix, &at)) != TK_OK)
		goto out;
	if ((rc = group_stats(c, tl, &G, gix, at)) != TK_OK)
		goto out;
	rc = write_rows(c, &G);
out:
	free(gix);
	free(at);
	free(G.v);
	tks_intern_free(&G.keys);
	return rc;
}

/*
 * Kernel launch statistics (analysis_launch_stats; docs/metrics.md, "Kernel launches", HTA's
 * CUDA kernel launch stats): per device, kind and name of device operation, the duration of the
 * API call that launched it, the delay from that call's start to the operation's start, HTA's
 * queue delay (from the call's end), and HTA's outlier and short-kernel counts. Each operation's
 * launch is the one the timeline links (intervals.h, tka_op.launch_ts: launch flow, else
 * correlation id, by the timeline's rule); the shared pass collects the candidate calls'
 * durations (the flows' sources, or the API calls with a correlation id) so that the call the
 * timeline picked is found again by its start. No window: every operation of the store.
 */
#include "checked.h"
#include "intern.h"
#include "intervals.h"

#include <stdlib.h>
#include <string.h>
#include <tracekit/store.h>

#define CALL_CUTOFF_NS 50000   /* HTA's runtime_cutoff: a launch call longer is an outlier */
#define DELAY_CUTOFF_NS 100000 /* HTA's launch_delay_cutoff: a longer queue delay is one */

static const char *const schema =
    "DROP TABLE IF EXISTS analysis_launch_stats;"
    "CREATE TABLE analysis_launch_stats (\n"
    "  device_id     INTEGER NOT NULL, -- devices.id of the operations\n"
    "  kind          TEXT NOT NULL,    -- event_kinds.name: kernel, memcpy, memset (xla_op)\n"
    "  name          TEXT NOT NULL,    -- the operations' name\n"
    "  ops           INTEGER NOT NULL, -- operations of this device, kind and name\n"
    "  launches      INTEGER NOT NULL, -- of which linked to a launching API call (the rows "
    "below are over these)\n"
    "  device_ns     INTEGER NOT NULL, -- summed durations of the launched operations\n"
    "  call_total_ns INTEGER NOT NULL, -- summed durations of their launch calls (a call "
    "that launched several operations counts for each)\n"
    "  call_mean_ns  REAL NOT NULL,    -- launch call duration: mean\n"
    "  call_median_ns REAL NOT NULL,   -- middle value (mean of the two middle ones when even)\n"
    "  call_p90_ns   INTEGER NOT NULL, -- nearest rank: the ceil(0.9 n)-th smallest\n"
    "  call_max_ns   INTEGER NOT NULL, -- longest\n"
    "  delay_mean_ns REAL NOT NULL,    -- launch delay = op start - call start: mean\n"
    "  delay_median_ns REAL NOT NULL,  -- its median (as above)\n"
    "  delay_p90_ns  INTEGER NOT NULL, -- its p90 (as above)\n"
    "  delay_max_ns  INTEGER NOT NULL, -- its largest\n"
    "  queue_mean_ns REAL NOT NULL,    -- queue delay = max(0, op start - call end) (HTA's "
    "launch_delay): mean\n"
    "  queue_median_ns REAL NOT NULL,  -- its median\n"
    "  queue_p90_ns  INTEGER NOT NULL, -- its p90\n"
    "  queue_max_ns  INTEGER NOT NULL, -- its largest\n"
    "  call_outliers INTEGER NOT NULL, -- launches whose call took > 50 us (HTA's "
    "runtime_cutoff)\n"
    "  delay_outliers INTEGER NOT NULL, -- launches whose queue delay is > 100 us (HTA's "
    "launch_delay_cutoff)\n"
    "  short_launches INTEGER NOT NULL, -- launches whose call took <= 50 us and whose "
    "operation ran shorter than the call (HTA's short GPU kernels: launch overhead dominates)\n"
    "  short_share   REAL NOT NULL     -- short_launches / launches\n"
    ");";

/* A launch flow with its source call's start and duration (ts INT64_MIN until seen). */
struct lflow {
	int64_t src, dst, ts, dur;
};

/* Correlation mode: an API call, and a device operation's correlation id. */
struct lapi {
	int64_t corr, proc, ts, dur;
};
struct ldop {
	int64_t id, corr;
};

struct tka_ls_state {
	struct lflow *f;
	size_t nf, fpos;
	struct lapi *api;
	size_t napi, capi;
	struct ldop *dop;
	size_t ndop, cdop;
};

void tka_launch_stats_free(struct tka_ls_state *s)
{
	if (!s)
		return;
	free(s->f);
	free(s->api);
	free(s->dop);
	free(s);
}

int tka_launch_stats_begin(struct tka_ctx *c)
{
	struct tka_ls_state *s = calloc(1, sizeof(*s));
	struct tka_launch_flow *lf = NULL;
	size_t n = 0;
	int rc;
	if (!s)
		return tka_fail(c, TK_ENOMEM, "out of memory");
	c->ls = s;
	if ((rc = tka_launch_flows(c, &lf, &n)) != TK_OK)
		return rc;
	if (n && !(s->f = malloc(n * sizeof(*s->f)))) {
		free(lf);
		return tka_fail(c, TK_ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < n; i++)
		s->f[i] = (struct lflow){lf[i].src, lf[i].dst, INT64_MIN, 0};
	s->nf = n;
	free(lf);
	if (!n)
		c->pass->want_corr = 1; /* correlation mode, as the timeline */
	return TK_OK;
}

/* Room for one more element of @size in *@v (n used, *cap allocated); 0 when memory ran out. */
static int grow(void **v, size_t n, size_t *cap, size_t size)
{
	if (n < *cap)
		return 1;
	size_t nc = *cap ? 2 * *cap : 4096;
	void *p = realloc(*v, nc * size);
	if (!p)
		return 0;
	*v = p;
	*cap = nc;
	return 1;
}

int tka_launch_stats_event(struct tka_ctx *c, const struct tka_ev *e)
{
	struct tka_ls_state *s = c->ls;
	if (s->nf) { /* pick up the start and duration of every flow's source */
		while (s->fpos < s->nf && s->f[s->fpos].src < e->id)
			s->fpos++;
		for (; s->fpos < s->nf && s->f[s->fpos].src == e->id; s->fpos++) {
			s->f[s->fpos].ts = e->ts;
			s->f[s->fpos].dur = e->dur;
		}
		return TK_OK;
	}
	if (e->corr == TK_NONE || e->track < 1 || e->track > c->pass->ntracks ||
	    !c->pass->tracks[e->track].exists)
		return TK_OK;
	if (e->kind == TK_EV_RUNTIME_API || e->kind == TK_EV_DRIVER_API) {
		if (!grow((void **)&s->api, s->napi, &s->capi, sizeof(*s->api)))
			return tka_fail(c, TK_ENOMEM, "out of memory");
		s->api[s->napi++] = (struct lapi){e->corr, c->pass->tracks[e->track].process_id,
						  e->ts, e->dur};
	} else if (e->kind >= TK_EV_KERNEL && e->kind <= TK_EV_XLA_OP) {
		if (!grow((void **)&s->dop, s->ndop, &s->cdop, sizeof(*s->dop)))
			return tka_fail(c, TK_ENOMEM, "out of memory");
		s->dop[s->ndop++] = (struct ldop){e->id, e->corr};
	}
	return TK_OK;
}

int tka_launch_stats_end(struct tka_ctx *c)
{
	(void)c;
	return TK_OK;
}

/* ---- finding the call the timeline picked ---- */

static int flow_cmp(const void *pa, const void *pb)
{
	const struct lflow *a = pa, *b = pb;
	if (a->dst != b->dst)
		return a->dst < b->dst ? -1 : 1;
	return (a->ts > b->ts) - (a->ts < b->ts);
}

static int api_cmp(const void *pa, const void *pb)
{
	const struct lapi *a = pa, *b = pb;
	if (a->corr != b->corr)
		return a->corr < b->corr ? -1 : 1;
	if (a->ts != b->ts)
		return a->ts < b->ts ? -1 : 1;
	return (a->proc > b->proc) - (a->proc < b->proc);
}

static int dop_cmp(const void *pa, const void *pb)
{
	const struct ldop *a = pa, *b = pb;
	return (a->id > b->id) - (a->id < b->id);
}

/*
 * The duration of the call that launched @op (of process @proc) at op->launch_ts into *@dur:
 * among the flows to the op, or the calls with its correlation id (a compatible process first,
 * as the timeline picks), the one that starts there. 0 when none does.
 */
static int call_dur(const struct tka_ls_state *s, const struct tka_op *op, int64_t proc,
		    int64_t *dur)
{
	size_t lo = 0, hi;
	if (s->nf) {
		hi = s->nf;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			const struct lflow *f = &s->f[mid];
			if (f->dst < op->id || (f->dst == op->id && f->ts < op->launch_ts))
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo < s->nf && s->f[lo].dst == op->id && s->f[lo].ts == op->launch_ts) {
			*dur = s->f[lo].dur;
			return 1;
		}
		return 0;
	}
	struct ldop key = {op->id, 0};
	const struct ldop *d = s->ndop ? bsearch(&key, s->dop, s->ndop, sizeof(*s->dop), dop_cmp)
				       : NULL;
	if (!d)
		return 0;
	hi = s->napi;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct lapi *a = &s->api[mid];
		if (a->corr < d->corr || (a->corr == d->corr && a->ts < op->launch_ts))
			lo = mid + 1;
		else
			hi = mid;
	}
	const struct lapi *pick = NULL;
	for (size_t k = lo; k < s->napi && s->api[k].corr == d->corr &&
			    s->api[k].ts == op->launch_ts;
	     k++) {
		const struct lapi *a = &s->api[k];
		if (proc == TK_NONE || a->proc == TK_NONE || a->proc == proc) {
			pick = a;
			break;
		}
		if (!pick)
			pick = a;
	}
	if (pick)
		*dur = pick->dur;
	return pick != NULL;
}

/* ---- the statistics ---- */

/* One launch: its group, the call's duration, the launch delay, the queue delay; the op's. */
struct rec {
	size_t g;
	int64_t v[3]; /* call, delay, queue */
	int64_t dur;
};

static int rec_cmp(const struct rec *a, const struct rec *b, int i)
{
	if (a->g != b->g)
		return a->g < b->g ? -1 : 1;
	return (a->v[i] > b->v[i]) - (a->v[i] < b->v[i]);
}
static int rec_cmp0(const void *a, const void *b) { return rec_cmp(a, b, 0); }
static int rec_cmp1(const void *a, const void *b) { return rec_cmp(a, b, 1); }
static int rec_cmp2(const void *a, const void *b) { return rec_cmp(a, b, 2); }

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

static int stat_of(const struct rec *r, size_t n, int i, struct stat *o)
{
	int64_t total = 0;
	for (size_t k = 0; k < n; k++)
		if (tk_add_ovf(total, r[k].v[i], &total))
			return TK_EFORMAT;
	size_t m = n / 2, p = (9 * n + 9) / 10; /* ceil(0.9 n), 1-based */
	o->total = total;
	o->mean = (double)total / (double)n;
	o->median = n % 2 ? (double)r[m].v[i] : ((double)r[m - 1].v[i] + (double)r[m].v[i]) / 2;
	o->p90 = r[p - 1].v[i];
	o->max = r[n - 1].v[i];
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
	struct tk_intern keys; /* (device, name, kind) as bytes -> index + 1 */
	struct grp *v;
	size_t n, cap;
};

/* The index of group (device, name, kind), made on first use; SIZE_MAX when memory ran out. */
static size_t grp_of(struct grps *G, int64_t device, int64_t name_id, int kind)
{
	int64_t key[3] = {device, name_id, kind};
	int added;
	uint32_t id = tk_intern_lookup(&G->keys, (const char *)key, sizeof(key), &added);
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

/* Sort @r by figure @i within groups and fill each group's statistics of it. */
static int group_stats(struct rec *r, size_t nr, int i, struct grps *G)
{
	static int (*const cmp[3])(const void *, const void *) = {rec_cmp0, rec_cmp1, rec_cmp2};
	if (nr > 1)
		qsort(r, nr, sizeof(*r), cmp[i]);
	for (size_t a = 0, b; a < nr; a = b) {
		for (b = a + 1; b < nr && r[b].g == r[a].g; b++)
			;
		if (stat_of(r + a, b - a, i, &G->v[r[a].g].st[i]) != TK_OK)
			return TK_EFORMAT;
	}
	return TK_OK;
}

static int write_rows(struct tka_ctx *c, const struct grps *G)
{
	sqlite3_stmt *ins = NULL;
	int rc = tka_prepare(c,
			     "INSERT INTO analysis_launch_stats VALUES (?1, ?2, coalesce((SELECT str "
			     "FROM strings WHERE id = ?3), ''), ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, "
			     "?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22, ?23)",
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

/* Every launched operation of the timeline as a record of its group. */
static int collect(struct tka_ctx *c, const struct tka_timeline *tl, struct tka_ls_state *s,
		   struct grps *G, struct rec **out, size_t *nout)
{
	struct rec *r = NULL;
	size_t nr = 0, cap = 0;
	for (size_t i = 0; i < tl->ndev; i++) {
		const struct tka_device *d = &tl->dev[i];
		for (size_t k = 0; k < d->nops; k++) {
			const struct tka_op *op = &d->ops[k];
			size_t g = grp_of(G, d->device_id, op->name_id, op->kind);
			int64_t call = 0;
			if (g == SIZE_MAX)
				goto oom;
			G->v[g].ops++;
			int64_t proc = c->pass->tracks[d->streams[op->stream].track_id].process_id;
			if (op->launch_ts == TKA_NO_LAUNCH || !call_dur(s, op, proc, &call))
				continue;
			if (!grow((void **)&r, nr, &cap, sizeof(*r)))
				goto oom;
			struct rec *x = &r[nr++];
			int64_t delay = op->ts - op->launch_ts, q = delay - call; /* times < 2^62 */
			x->g = g;
			x->v[0] = call;
			x->v[1] = delay;
			x->v[2] = q > 0 ? q : 0;
			x->dur = op->end - op->ts;
			struct grp *gr = &G->v[g];
			gr->launches++;
			gr->call_outliers += call > CALL_CUTOFF_NS;
			gr->delay_outliers += x->v[2] > DELAY_CUTOFF_NS;
			gr->short_launches += call <= CALL_CUTOFF_NS && x->dur < call;
			if (tk_add_ovf(gr->device_ns, x->dur, &gr->device_ns)) {
				free(r);
				return tka_fail(c, TK_EFORMAT, "device time of launches overflows");
			}
		}
	}
	*out = r;
	*nout = nr;
	return TK_OK;
oom:
	free(r);
	return tka_fail(c, TK_ENOMEM, "out of memory");
}

int tka_launch_stats(struct tka_ctx *c)
{
	const struct tka_timeline *tl = NULL;
	struct tka_ls_state *s;
	struct grps G = {0};
	struct rec *r = NULL;
	size_t nr = 0;
	int rc = tka_timeline_get(c, &tl);
	if (rc != TK_OK)
		return rc;
	if (!(s = c->ls))
		return tka_fail(c, TK_EINTERNAL, "launch stats were already written");
	tk_intern_init(&G.keys);
	if ((rc = tka_exec(c, "creating analysis_launch_stats", schema)) != TK_OK)
		goto out;
	if (s->nf > 1)
		qsort(s->f, s->nf, sizeof(*s->f), flow_cmp);
	if (s->napi > 1)
		qsort(s->api, s->napi, sizeof(*s->api), api_cmp);
	if (s->ndop > 1) /* in id order already (the pass reads in id order) */
		qsort(s->dop, s->ndop, sizeof(*s->dop), dop_cmp);
	if ((rc = collect(c, tl, s, &G, &r, &nr)) != TK_OK)
		goto out;
	for (int i = 0; i < 3 && rc == TK_OK; i++)
		if (group_stats(r, nr, i, &G) != TK_OK)
			rc = tka_fail(c, TK_EFORMAT, "launch times add up past 2^63 ns");
	if (rc == TK_OK)
		rc = write_rows(c, &G);
out:
	free(r);
	free(G.v);
	tk_intern_free(&G.keys);
	tka_launch_stats_free(c->ls);
	c->ls = NULL;
	return rc;
}

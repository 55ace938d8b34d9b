/*
 * GPU time per CPU op and per annotation (docs/metrics.md, "GPU time by operator"): every device
 * operation followed to the API call that launched it (a launch flow), and from there to the
 * host ops (level host_op) and the annotations (level annotation) on that call's own thread that
 * enclose the call's start. The innermost one gets the operation's device time directly; it and
 * every op above it (its whole call stack, each name once) get it in their subtree. Per process,
 * level and name: calls, device operations launched directly and in the subtree, their device
 * time, and the direct share of all launched device time of the process. The launches and the
 * host intervals are collected by the shared event pass; the sweeps run per host thread, on
 * c->jobs threads (device_jobs.c), merged in the order of one sweep over the threads.
 */
#include "checked.h"
#include "intern.h"
#include "intervals.h"
#include "op_gpu_time.h"

#include <stdlib.h>
#include <string.h>
#include <tracekit/store.h>

#include "util/sort.h"

/* ---- the analysis: one sweep per level and host thread ---- */

/* A launch: its API call's start and thread, the launched op's duration and step (the index
 * of its device's step among all devices' steps, -1 for none). */
struct lnch {
	int64_t ts, dur;
	uint32_t track;
	int32_t step;
};

static int cmp_lnch(const void *pa, const void *pb)
{
	const struct lnch *a = pa, *b = pb;
	if (a->track != b->track)
		return a->track < b->track ? -1 : 1;
	return (a->ts > b->ts) - (a->ts < b->ts);
}

/* By thread, start, then the longer (the enclosing) first, then id. */
static int cmp_hop(const void *pa, const void *pb)
{
	const struct tka_host_op *a = pa, *b = pb;
	if (a->track != b->track)
		return a->track < b->track ? -1 : 1;
	if (a->ts != b->ts)
		return a->ts < b->ts ? -1 : 1;
	if (a->end != b->end)
		return a->end > b->end ? -1 : 1;
	return (a->id > b->id) - (a->id < b->id);
}

#define LNCH_BEFORE(a, b) (cmp_lnch((a), (b)) < 0)
#define HOP_BEFORE(a, b) (cmp_hop((a), (b)) < 0)
TKU_SORT_DEFINE(sort_lnch, struct lnch, LNCH_BEFORE)
TKU_SORT_DEFINE(sort_hop, struct tka_host_op, HOP_BEFORE)

/* The figures of one (process, level, name). */
struct acc {
	int64_t process_id, name_id;
	int level;
	int group; /* where merge() met it first: 2 x level + (0 direct sweeps, 1 the others) */
	int64_t calls, direct_ops, direct_ns, subtree_ops, subtree_ns;
};

struct accs {
	struct tks_intern keys; /* (process, level, name) as bytes -> index + 1 */
	struct acc *v;
	size_t n, cap;
};

/* The accumulator of (process, level, name), made on first use; NULL when memory ran out. */
static struct acc *acc_of(struct accs *a, int64_t process, int level, int64_t name_id)
{
	int64_t key[3] = {process, level, name_id};
	int added;
	uint32_t id = tks_intern_lookup(&a->keys, (const char *)key, sizeof(key), &added);
	if (!id)
		return NULL;
	if (added) {
		if (TKU_GROW(a->v, a->cap, a->n + 1, 256) != TK_OK)
			return NULL;
		struct acc *x = &a->v[a->n++];
		memset(x, 0, sizeof(*x));
		x->process_id = process;
		x->level = level;
		x->name_id = name_id;
	}
	return &a->v[id - 1];
}

/* The first launch of @l (sorted by track, start) at or after (@track, @ts). */
static size_t lower(const struct lnch *l, size_t nl, int64_t track, int64_t ts)
{
	size_t lo = 0, hi = nl;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (l[mid].track < track || (l[mid].track == track && l[mid].ts < ts))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The GPU time of a step owned by one annotation (or by none: name_id -1). */
struct stepacc {
	int64_t step, process, name_id; /* step: as lnch.step */
	int64_t ops, ns;
};

/* The per-step figures of the annotation level; steps numbered over all devices in turn. */
struct steps {
	const struct tka_timeline *tl;
	size_t *base; /* per device of tl: the number of the steps of the devices before it */
	struct tks_intern keys;
	struct stepacc *v;
	size_t n, cap;
};

/* The step of @d whose [ts, end) holds @ts (the latest that starts at or before it: a device
 * op belongs to the step it starts in, as in analysis_step_ops), or -1. */
static int64_t step_of(const struct tka_device *d, int64_t ts)
{
	size_t lo = 0, hi = d->nsteps;
	while (lo < hi) { /* the first step that starts after ts */
		size_t mid = lo + (hi - lo) / 2;
		if (d->steps[mid].ts <= ts)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo && ts < d->steps[lo - 1].end ? (int64_t)(lo - 1) : -1;
}

/* Add @ops launches of @ns to the figures of step @step owned by annotation @name_id (-1: none)
 * of @process. */
static int step_add(struct steps *st, int64_t step, int64_t process, int64_t name_id, int64_t ops,
		    int64_t ns)
{
	if (step < 0)
		return TK_OK;
	int64_t key[3] = {step, process, name_id};
	int added;
	uint32_t id = tks_intern_lookup(&st->keys, (const char *)key, sizeof(key), &added);
	if (!id)
		return TK_ENOMEM;
	if (added) {
		if (TKU_GROW(st->v, st->cap, st->n + 1, 256) != TK_OK)
			return TK_ENOMEM;
		st->v[st->n++] = (struct stepacc){step, process, name_id, 0, 0};
	}
	st->v[id - 1].ops += ops;
	st->v[id - 1].ns += ns;
	return TK_OK;
}

/*
 * Direct attribution: each launch goes to the innermost host interval open at its start on its
 * thread (@h one level, sorted by cmp_hop): a stack of open intervals, popped as they end, so
 * the top is the innermost. Adds to the name's figures and to the instance's (@inst, as @h),
 * and with @st (the annotation level) to the figures of the device op's step.
 */
static int sweep_direct(struct tka_ctx *c, const struct lnch *l, size_t nl,
			const struct tka_host_op *h, size_t nh, int level, struct accs *a,
			struct tka_og_inst *inst, struct steps *st)
{
	size_t *stack = malloc((nh ? nh : 1) * sizeof(*stack)), top = 0, j = 0;
	int64_t track = -1;
	if (!stack)
		return tka_fail(c, TK_ENOMEM, "out of memory");
	for (size_t i = 0; i < nl; i++) {
		if (l[i].track != track) {
			track = l[i].track;
			top = 0;
			while (j < nh && h[j].track < track)
				j++;
		}
		while (j < nh && h[j].track == track && h[j].ts <= l[i].ts) {
			while (top && h[stack[top - 1]].end <= h[j].ts)
				top--;
			stack[top++] = j++;
		}
		while (top && h[stack[top - 1]].end <= l[i].ts)
			top--;
		int64_t process = c->pass->tracks[track].process_id;
		if (st && step_add(st, l[i].step, process,
				   top ? (int64_t)h[stack[top - 1]].name_id : -1, 1, l[i].dur)) {
			free(stack);
			return tka_fail(c, TK_ENOMEM, "out of memory");
		}
		if (!top)
			continue;
		const struct tka_host_op *x = &h[stack[top - 1]];
		struct acc *ac = acc_of(a, process, level, x->name_id);
		if (!ac) {
			free(stack);
			return tka_fail(c, TK_ENOMEM, "out of memory");
		}
		ac->direct_ops++;
		ac->direct_ns += l[i].dur;
		inst[stack[top - 1]].direct_ops++;
		inst[stack[top - 1]].direct_ns += l[i].dur;
	}
	free(stack);
	return TK_OK;
}

/* A host interval by name (of one thread), start, id: the instances of one name together, in
 * time order. */
struct nix {
	int64_t ts, id;
	uint32_t name_id;
	size_t i; /* its index in the thread's intervals */
};

static int cmp_nix(const void *pa, const void *pb)
{
	const struct nix *a = pa, *b = pb;
	if (a->name_id != b->name_id)
		return a->name_id < b->name_id ? -1 : 1;
	if (a->ts != b->ts)
		return a->ts < b->ts ? -1 : 1;
	return (a->id > b->id) - (a->id < b->id);
}

#define NIX_BEFORE(a, b) (cmp_nix((a), (b)) < 0)
TKU_SORT_DEFINE(sort_nix, struct nix, NIX_BEFORE)

/*
 * Subtree attribution: a launch belongs to every host interval open at its start on its thread
 * (start <= launch < end), each name once: per thread and name the union of the name's
 * intervals, its launches counted from prefix sums (@pre over @l). Each instance's own subtree
 * likewise; and the calls of each name. O((launches + intervals) log) whatever the nesting depth.
 * @l and @h: one thread's.
 */
static int sweep_subtree(struct tka_ctx *c, const struct lnch *l, size_t nl, const int64_t *pre,
			 const struct tka_host_op *h, size_t nh, int level, struct accs *a,
			 struct tka_og_inst *inst)
{
	struct nix *ix = malloc((nh ? nh : 1) * sizeof(*ix));
	if (!ix)
		return tka_fail(c, TK_ENOMEM, "out of memory");
	for (size_t i = 0; i < nh; i++) {
		ix[i] = (struct nix){h[i].ts, h[i].id, h[i].name_id, i};
		size_t lo = lower(l, nl, h[i].track, h[i].ts),
		       hi = lower(l, nl, h[i].track, h[i].end);
		inst[i].subtree_ops = (int64_t)(hi - lo);
		inst[i].subtree_ns = pre[hi] - pre[lo];
	}
	if (sort_nix(ix, nh) != 0) /* @h: one thread's */
		qsort(ix, nh, sizeof(*ix), cmp_nix);
	for (size_t i = 0; i < nh;) {
		const struct tka_host_op *x = &h[ix[i].i];
		struct acc *ac = acc_of(a, c->pass->tracks[x->track].process_id, level, x->name_id);
		if (!ac) {
			free(ix);
			return tka_fail(c, TK_ENOMEM, "out of memory");
		}
		size_t k = i;
		while (k < nh && ix[k].name_id == x->name_id) {
			int64_t lo_ts = h[ix[k].i].ts,
				hi_ts = h[ix[k].i].end; /* one merged interval */
			for (k++; k < nh && ix[k].name_id == x->name_id && h[ix[k].i].ts < hi_ts;
			     k++)
				if (h[ix[k].i].end > hi_ts)
					hi_ts = h[ix[k].i].end;
			size_t lo = lower(l, nl, x->track, lo_ts),
			       hi = lower(l, nl, x->track, hi_ts);
			ac->subtree_ops += (int64_t)(hi - lo);
			ac->subtree_ns += pre[hi] - pre[lo];
		}
		ac->calls += (int64_t)(k - i); /* the name's events on this thread */
		i = k;
	}
	free(ix);
	return TK_OK;
}

static int cmp_pair(const void *pa, const void *pb)
{
	const int64_t *a = pa, *b = pb;
	if (a[0] != b[0])
		return a[0] < b[0] ? -1 : 1;
	return (a[1] > b[1]) - (a[1] < b[1]);
}

static int cmp_inst(const void *pa, const void *pb)
{
	const struct tka_og_inst *a = pa, *b = pb;
	return (a->event_id > b->event_id) - (a->event_id < b->event_id);
}

#define INST_BEFORE(a, b) ((a)->event_id < (b)->event_id)
TKU_SORT_DEFINE(sort_inst, struct tka_og_inst, INST_BEFORE)

static int steps_init(struct tka_ctx *c, struct steps *st)
{
	int rc = tka_timeline_get(c, &st->tl);
	if (rc != TK_OK)
		return rc;
	st->base = malloc((st->tl->ndev ? st->tl->ndev : 1) * sizeof(*st->base));
	if (!st->base)
		return tka_fail(c, TK_ENOMEM, "out of memory");
	size_t n = 0;
	for (size_t i = 0; i < st->tl->ndev; i++) {
		st->base[i] = n;
		n += st->tl->dev[i].nsteps;
	}
	if (n > INT32_MAX)
		return tka_fail(c, TK_EFORMAT, "more than 2^31 steps");
	return TK_OK;
}

/* The device (index into tl->dev) of step @g: the last whose base is at most @g. */
static size_t device_of(const struct steps *st, int64_t g)
{
	size_t lo = 0, hi = st->tl->ndev;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if ((int64_t)st->base[mid] <= g)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo - 1; /* base[0] = 0 <= g */
}

static int cmp_stepacc(const void *pa, const void *pb)
{
	const struct stepacc *a = pa, *b = pb;
	if (a->step != b->step)
		return a->step < b->step ? -1 : 1;
	if (a->ns != b->ns)
		return a->ns > b->ns ? -1 : 1;
	if (a->process != b->process)
		return a->process < b->process ? -1 : 1;
	return (a->name_id > b->name_id) - (a->name_id < b->name_id);
}

TKA_WRITES(TK_NCOLS_ANALYSIS_OP_GPU_STEPS, 8, "analysis_op_gpu_steps");
TKA_WRITES(TK_NCOLS_ANALYSIS_OP_GPU_TIME, 10, "analysis_op_gpu_time");

/* analysis_op_gpu_steps: each step's launched GPU time by the annotation that owns it. */
static int write_steps(struct tka_ctx *c, struct steps *st)
{
	sqlite3_stmt *ins = NULL;
	int rc =
	    tka_prepare(c,
			"INSERT INTO analysis_op_gpu_steps (" TK_COLS_ANALYSIS_OP_GPU_STEPS
			") SELECT ?1, ?2, ?3, ?4, (SELECT str FROM strings WHERE id = ?5), ?6, ?7, "
			"?8",
			&ins);
	if (st->n > 1)
		qsort(st->v, st->n, sizeof(*st->v), cmp_stepacc);
	for (size_t i = 0; i < st->n && rc == TK_OK;) {
		size_t j = i;
		int64_t total = 0; /* a sub-sum of all launched time: no overflow */
		for (; j < st->n && st->v[j].step == st->v[i].step; j++)
			total += st->v[j].ns;
		const struct tka_device *d = &st->tl->dev[device_of(st, st->v[i].step)];
		int64_t k0 = st->v[i].step - (int64_t)st->base[d - st->tl->dev];
		const struct tka_step *sp = &d->steps[k0];
		for (size_t k = i; k < j && rc == TK_OK; k++) {
			const struct stepacc *x = &st->v[k];
			sqlite3_reset(ins);
			sqlite3_bind_int64(ins, 1, d->device_id);
			sqlite3_bind_int64(ins, 2, k0);
			if (sp->step_num == TK_NONE)
				sqlite3_bind_null(ins, 3);
			else
				sqlite3_bind_int64(ins, 3, sp->step_num);
			if (x->process == TK_NONE)
				sqlite3_bind_null(ins, 4);
			else
				sqlite3_bind_int64(ins, 4, x->process);
			sqlite3_bind_int64(ins, 5, x->name_id); /* -1: no such string, NULL */
			sqlite3_bind_int64(ins, 6, x->ops);
			sqlite3_bind_int64(ins, 7, x->ns);
			sqlite3_bind_double(ins, 8,
					    total > 0 ? (double)x->ns / (double)total : 0.0);
			if (sqlite3_step(ins) != SQLITE_DONE)
				rc = tka_fail(c, tka_sql_status(c),
					      "writing analysis_op_gpu_steps: %s",
					      sqlite3_errmsg(c->db));
		}
		i = j;
	}
	sqlite3_finalize(ins);
	return rc;
}

/* Note that a thread of @process launched work onto @device (consecutive repeats skipped). */
static int pdev_add(struct tka_ctx *c, struct tka_og_state *s, int64_t process, int64_t device)
{
	static const size_t step = 64;
	if (s->npdev && s->pdev[s->npdev - 1][0] == process && s->pdev[s->npdev - 1][1] == device)
		return TK_OK;
	if (TKU_GROW(s->pdev, s->pdev_cap, s->npdev + 1, step) != TK_OK)
		return tka_fail(c, TK_ENOMEM, "out of memory");
	s->pdev[s->npdev][0] = process;
	s->pdev[s->npdev++][1] = device;
	if (s->npdev % step == 0) { /* keep it a set: sort, drop repeats */
		qsort(s->pdev, s->npdev, sizeof(*s->pdev), cmp_pair);
		size_t n = 0;
		for (size_t i = 0; i < s->npdev; i++)
			if (!n || memcmp(s->pdev[n - 1], s->pdev[i], sizeof(*s->pdev)))
				memcpy(s->pdev[n++], s->pdev[i], sizeof(*s->pdev));
		s->npdev = n;
	}
	return TK_OK;
}

/* The host thread (tracks.id) of the API call that launched @op, -1 when none: no launch
 * linked, an XLA op, a call on no host thread (hostile stores: on no track). */
static int64_t launch_thread(const struct tka_ctx *c, const struct tka_op *op)
{
	if (op->launch_ts == TKA_NO_LAUNCH || op->kind == TK_EV_XLA_OP)
		return -1;
	const struct tka_track *tr = tka_pass_track(c->pass, op->launch_track);
	return !tr || tr->device_id != TK_NONE || op->launch_track > UINT32_MAX ? -1
										: op->launch_track;
}

/*
 * One host thread (an item of tka_each): its launches l[l0, l1) and intervals per level
 * h[lv][h0, h1), each range sorted by the item; its figures per level (names in the order it
 * met them, the first ndirect[lv] in the direct sweep), its steps' figures, its launched time.
 */
struct thr {
	size_t l0, l1, h0[2], h1[2];
	struct accs a[2];
	size_t ndirect[2];
	struct steps st;
	int64_t launched;
};

struct og_run {
	struct tka_og_state *s;
	struct lnch *l;
	const int64_t *pre;
	struct thr *t;
};

static int thr_sort(struct tka_ctx *c, const void *arg, size_t i, struct tka_rows *rows)
{
	const struct og_run *r = arg;
	const struct thr *t = &r->t[i];
	(void)c;
	(void)rows;
	if (t->l1 - t->l0 > 1 && sort_lnch(r->l + t->l0, t->l1 - t->l0) != 0)
		qsort(r->l + t->l0, t->l1 - t->l0, sizeof(*r->l), cmp_lnch);
	for (int lv = 0; lv < 2; lv++)
		if (t->h1[lv] - t->h0[lv] > 1 &&
		    sort_hop(r->s->h[lv] + t->h0[lv], t->h1[lv] - t->h0[lv]) != 0)
			qsort(r->s->h[lv] + t->h0[lv], t->h1[lv] - t->h0[lv], sizeof(*r->s->h[lv]),
			      cmp_hop);
	return TK_OK;
}

static int thr_sweep(struct tka_ctx *c, const void *arg, size_t i, struct tka_rows *rows)
{
	const struct og_run *r = arg;
	struct thr *t = &r->t[i];
	const struct lnch *l = r->l + t->l0;
	size_t nl = t->l1 - t->l0;
	int rc = TK_OK;
	(void)rows;
	t->launched = r->pre[t->l1] - r->pre[t->l0];
	for (int lv = 0; lv < 2 && rc == TK_OK; lv++) {
		size_t nh = t->h1[lv] - t->h0[lv];
		const struct tka_host_op *h = nh ? r->s->h[lv] + t->h0[lv] : NULL; /* none: NULL */
		struct tka_og_inst *inst = r->s->inst + (lv ? r->s->nh[0] : 0) + t->h0[lv];
		rc = sweep_direct(c, l, nl, h, nh, lv, &t->a[lv], inst, lv ? &t->st : NULL);
		t->ndirect[lv] = t->a[lv].n;
		if (rc == TK_OK)
			rc = sweep_subtree(c, l, nl, r->pre + t->l0, h, nh, lv, &t->a[lv], inst);
	}
	return rc;
}

/* Add the figures of @x to those of its (process, level, name) in @a. */
static int acc_add(struct accs *a, const struct acc *x)
{
	struct acc *y = acc_of(a, x->process_id, x->level, x->name_id);
	if (!y)
		return TK_ENOMEM;
	y->calls += x->calls;
	y->direct_ops += x->direct_ops;
	y->direct_ns += x->direct_ns;
	y->subtree_ops += x->subtree_ops;
	y->subtree_ns += x->subtree_ns;
	return TK_OK;
}

/*
 * The threads' figures into @a, @st, @totals in the order one sweep over every thread in turn
 * meets the names: per level, the names each thread's direct sweep met first, then the others.
 */
static int merge(const struct thr *t, size_t nt, const struct tka_pass *p, const struct lnch *l,
		 struct accs *a, struct steps *st, struct accs *totals)
{
	for (int lv = 0; lv < 2; lv++)
		for (int phase = 0; phase < 2; phase++)
			for (size_t k = 0; k < nt; k++)
				for (size_t j = phase ? t[k].ndirect[lv] : 0;
				     j < (phase ? t[k].a[lv].n : t[k].ndirect[lv]); j++) {
					size_t had = a->n;
					if (acc_add(a, &t[k].a[lv].v[j]) != TK_OK)
						return TK_ENOMEM;
					if (a->n > had)
						a->v[had].group = 2 * lv + phase;
				}
	for (size_t k = 0; k < nt; k++) {
		for (size_t j = 0; j < t[k].st.n; j++) {
			const struct stepacc *x = &t[k].st.v[j];
			if (step_add(st, x->step, x->process, x->name_id, x->ops, x->ns) != TK_OK)
				return TK_ENOMEM;
		}
		if (t[k].l1 > t[k].l0) { /* its process's launched time */
			struct acc *y =
			    acc_of(totals, p->tracks[l[t[k].l0].track].process_id, 0, 0);
			if (!y)
				return TK_ENOMEM;
			y->direct_ns += t[k].launched;
		}
	}
	return TK_OK;
}

/*
 * The host threads of the launches and intervals, in track order (*@t, *@nt), with their ranges;
 * the launches (*@l, *@nl) placed by thread, the intervals moved by thread (each thread's
 * ranges sorted later, on its own). @cnt: room for 3 counts per track id, zeroed.
 */
static int by_thread(struct tka_ctx *c, struct tka_og_state *s, struct steps *st, size_t *cnt,
		     struct lnch **l, size_t *nl, struct thr **t, size_t *nt)
{
	const struct tka_timeline *tl = st->tl;
	size_t ntr = (size_t)c->pass->ntracks + 1, off[3] = {0, 0, 0}, k = 0;
	for (size_t i = 0; i < tl->ndev; i++)
		for (size_t j = 0; j < tl->dev[i].nops; j++) {
			int64_t th = launch_thread(c, &tl->dev[i].ops[j]);
			if (th >= 0)
				cnt[th]++;
		}
	for (int lv = 0; lv < 2; lv++)
		for (size_t i = 0; i < s->nh[lv]; i++)
			cnt[(size_t)(1 + lv) * ntr + s->h[lv][i].track]++;
	for (size_t tr = 0; tr < ntr; tr++)
		*nt += cnt[tr] || cnt[ntr + tr] || cnt[2 * ntr + tr];
	if (!(*t = calloc(*nt ? *nt : 1, sizeof(**t))))
		return tka_fail(c, TK_ENOMEM, "out of memory");
	for (size_t tr = 0; tr < ntr; tr++) { /* counts become the threads' first slots */
		if (!cnt[tr] && !cnt[ntr + tr] && !cnt[2 * ntr + tr])
			continue;
		struct thr *x = &(*t)[k++];
		size_t *r0[3] = {&x->l0, &x->h0[0], &x->h0[1]},
		       *r1[3] = {&x->l1, &x->h1[0], &x->h1[1]};
		for (int j = 0; j < 3; j++) {
			size_t n = cnt[(size_t)j * ntr + tr];
			*r0[j] = cnt[(size_t)j * ntr + tr] = off[j];
			*r1[j] = off[j] += n;
		}
	}
	*nl = off[0];
	if (!(*l = malloc((*nl ? *nl : 1) * sizeof(**l))))
		return tka_fail(c, TK_ENOMEM, "out of memory");
	for (size_t i = 0; i < tl->ndev; i++)
		for (size_t j = 0; j < tl->dev[i].nops; j++) {
			const struct tka_op *op = &tl->dev[i].ops[j];
			int64_t th = launch_thread(c, op),
				step = th < 0 ? -1 : step_of(&tl->dev[i], op->ts);
			int rc = th < 0 ? TK_OK
					: pdev_add(c, s, c->pass->tracks[th].process_id,
						   tl->dev[i].device_id);
			if (rc != TK_OK)
				return rc;
			if (th >= 0)
				(*l)[cnt[th]++] = (struct lnch){
				    op->launch_ts, op->end - op->ts, (uint32_t)th,
				    step < 0 ? -1 : (int32_t)(st->base[i] + (size_t)step)};
		}
	for (int lv = 0; lv < 2; lv++) {
		struct tka_host_op *h = s->nh[lv] ? malloc(s->nh[lv] * sizeof(*h)) : NULL;
		if (s->nh[lv] && !h)
			return tka_fail(c, TK_ENOMEM, "out of memory");
		for (size_t i = 0; i < s->nh[lv]; i++)
			h[cnt[(size_t)(1 + lv) * ntr + s->h[lv][i].track]++] = s->h[lv][i];
		if (h) {
			free(s->h[lv]);
			s->h[lv] = h;
			s->caph[lv] = s->nh[lv];
		}
	}
	return TK_OK;
}

int tka_op_gpu_time(struct tka_ctx *c)
{
	int rc = tka_pass_run(c);
	struct tka_og_state *s = c->og;
	struct lnch *l = NULL;
	int64_t *pre = NULL;
	size_t *cnt = NULL; /* per track id: launches, host ops, annotations */
	struct thr *t = NULL;
	struct accs a = {0}, totals = {0}; /* totals: launched device time by process */
	struct steps st = {0};
	sqlite3_stmt *ins = NULL, *name = NULL;
	size_t nl = 0, nt = 0;
	if (rc != TK_OK)
		return rc;
	if (!s || s->inst)
		return tka_fail(c, TK_EINTERNAL, "GPU time per op was already written");
	tks_intern_init(&a.keys);
	tks_intern_init(&totals.keys);
	tks_intern_init(&st.keys);
	if ((rc = steps_init(c, &st)) != TK_OK)
		goto out;
	size_t nh = s->nh[0] + s->nh[1];
	if (!(cnt = calloc(3 * ((size_t)c->pass->ntracks + 1), sizeof(*cnt)))) {
		rc = tka_fail(c, TK_ENOMEM, "out of memory");
		goto out;
	}
	/* per host thread on c->jobs threads: its launches and intervals sorted, then swept */
	if ((rc = by_thread(c, s, &st, cnt, &l, &nl, &t, &nt)) != TK_OK)
		goto out;
	struct og_run run = {s, l, NULL, t};
	rc = tka_each(c, nt, NULL, thr_sort, &run);
	s->inst = calloc(nh ? nh : 1, sizeof(*s->inst));
	s->ninst = nh;
	pre = malloc((nl + 1) * sizeof(*pre));
	if (rc == TK_OK && (!s->inst || !pre))
		rc = tka_fail(c, TK_ENOMEM, "out of memory");
	for (size_t i = 0; rc == TK_OK && i <= nl; i++) /* every sum below is at most pre[nl] */
		if (i == 0)
			pre[0] = 0;
		else if (tk_add_ovf(pre[i - 1], l[i - 1].dur, &pre[i]))
			rc = tka_fail(c, TK_EFORMAT, "launched device time adds up beyond 2^63 ns");
	for (int lv = 0; lv < 2 && rc == TK_OK; lv++) {
		struct tka_og_inst *inst = s->inst + (lv ? s->nh[0] : 0);
		for (size_t i = 0; i < s->nh[lv]; i++)
			inst[i].event_id = s->h[lv][i].id;
	}
	run.pre = pre;
	if (rc == TK_OK)
		rc = tka_each(c, nt, NULL, thr_sweep, &run);
	if (rc == TK_OK && merge(t, nt, c->pass, l, &a, &st, &totals) != TK_OK)
		rc = tka_fail(c, TK_ENOMEM, "out of memory");
	if (rc == TK_OK && nh > 1 && sort_inst(s->inst, nh) != 0) /* for tka_op_gpu_instance() */
		qsort(s->inst, nh, sizeof(*s->inst), cmp_inst);
	if (rc == TK_OK)
		rc = tka_prepare(c,
				 "INSERT INTO analysis_op_gpu_time (" TK_COLS_ANALYSIS_OP_GPU_TIME
				 ") VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
				 &ins);
	if (rc == TK_OK)
		rc = tka_prepare(c, "SELECT str FROM strings WHERE id = ?1", &name);
	for (size_t i = 0; i < a.n && rc == TK_OK; i++) {
		const struct acc *x = &a.v[i];
		const struct acc *tot = acc_of(&totals, x->process_id, 0, 0); /* for the share */
		int64_t total = tot ? tot->direct_ns : 0;
		sqlite3_reset(ins);
		if (x->process_id == TK_NONE)
			sqlite3_bind_null(ins, 1);
		else
			sqlite3_bind_int64(ins, 1, x->process_id);
		sqlite3_bind_text(ins, 2, x->level ? "annotation" : "host_op", -1, SQLITE_STATIC);
		sqlite3_reset(name);
		sqlite3_bind_int64(name, 1, x->name_id);
		const char *nm = sqlite3_step(name) == SQLITE_ROW
				     ? (const char *)sqlite3_column_text(name, 0)
				     : NULL;
		sqlite3_bind_text(ins, 3, nm ? nm : "", -1, SQLITE_TRANSIENT);
		if (x->level)
			sqlite3_bind_null(ins, 10);
		else
			sqlite3_bind_text(ins, 10, tka_category_of_host_op(nm), -1, SQLITE_STATIC);
		sqlite3_bind_int64(ins, 4, x->calls);
		sqlite3_bind_int64(ins, 5, x->direct_ops);
		sqlite3_bind_int64(ins, 6, x->direct_ns);
		sqlite3_bind_int64(ins, 7, x->subtree_ops);
		sqlite3_bind_int64(ins, 8, x->subtree_ns);
		if (total > 0)
			sqlite3_bind_double(ins, 9, (double)x->direct_ns / (double)total);
		else
			sqlite3_bind_null(ins, 9);
		if (sqlite3_step(ins) != SQLITE_DONE)
			rc = tka_fail(c, tka_sql_status(c), "writing analysis_op_gpu_time: %s",
				      sqlite3_errmsg(c->db));
		/* a job's part: where the row goes among every part's (analyze.c reorders) */
		if (rc == TK_OK && c->part)
			rc = tka_split_order(c, sqlite3_last_insert_rowid(c->db), x->group);
	}
	if (rc == TK_OK)
		rc = write_steps(c, &st);
out:
	for (size_t k = 0; t && k < nt; k++) {
		for (int lv = 0; lv < 2; lv++) {
			free(t[k].a[lv].v);
			tks_intern_free(&t[k].a[lv].keys);
		}
		free(t[k].st.v);
		tks_intern_free(&t[k].st.keys);
	}
	free(t);
	free(cnt);
	free(st.base);
	free(st.v);
	tks_intern_free(&st.keys);
	sqlite3_finalize(ins);
	sqlite3_finalize(name);
	free(l);
	free(pre);
	free(a.v);
	tks_intern_free(&a.keys);
	free(totals.v);
	tks_intern_free(&totals.keys);
	if (rc != TK_OK) { /* no half-made instances for later analyses */
		free(s->inst);
		s->inst = NULL;
		s->ninst = 0;
	}
	return rc;
}

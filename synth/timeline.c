/*
 * The timing model and the writer calls of the synthetic trace. Each rank has a host cursor (its
 * main thread) and one cursor per device stream. A leaf host op is planned first: its launches
 * (runtime API call on the host, device work that starts at the latest of launch + latency, stream
 * free and any cross-stream dependency), bare API calls (event record/wait, stream sync that blocks
 * the host) and allocator events are laid out on the cursors; then the op is written, followed by
 * its children with their launch flows, so ids nest parent before child and memory events can name
 * the op that made them. Failures are sticky in sy_rank.status, like the writer's own. With a
 * jitter seed every device duration and host-side time drawn here passes through sy_jit_dev() or
 * sy_jit_host(), and the cursors carry the change to everything after it.
 */
#include "synth_internal.h"
#include "util/vec.h"

#include <stdlib.h>
#include <tracekit/error.h>

#define US 1000LL

static struct sy_child *push(struct sy_rank *r, enum sy_child_kind kind)
{
	if (r->nch == SY_MAX_CHILDREN) {
		if (r->status == TK_OK)
			r->status = TK_EINTERNAL;
		return NULL;
	}
	struct sy_child *c = &r->ch[r->nch++];
	c->kind = kind;
	return c;
}

static int64_t max64(int64_t a, int64_t b)
{
	return a > b ? a : b;
}

/* A standard normal from @r (Marsaglia's polar method, sy_log and sqrt only), clamped to +-4. */
static double normal(struct sy_rng *r)
{
	double u, v, s;
	do {
		u = 2.0 * sy_unit(r) - 1.0;
		v = 2.0 * sy_unit(r) - 1.0;
		s = u * u + v * v;
	} while (s >= 1.0 || s == 0.0);
	double z = u * sqrt(-2.0 * sy_log(s) / s);
	return z < -4.0 ? -4.0 : z > 4.0 ? 4.0 : z;
}

static int64_t jit(struct sy_rank *r, int64_t d, double sigma)
{
	if (!r->jitter || d <= 0)
		return d;
	int64_t x = (int64_t)((double)d * sy_exp(sigma * normal(&r->jrng)));
	return x > 0 ? x : 1;
}

int64_t sy_jit_dev(struct sy_rank *r, int64_t d)
{
	return jit(r, d, 0.02);
}

int64_t sy_jit_host(struct sy_rank *r, int64_t d)
{
	/* long phases vary less relatively: the compile (seconds) by 0.5 %, else the ranks' wait
	 * for each other after it would swing the first step by tens of milliseconds */
	return jit(r, d, d >= 100000 * US ? 0.005 : d >= 1000 * US ? 0.02 : 0.05);
}

/* Host time of a launch-type runtime call: mostly 3-5 us, sometimes up to 8 us. */
static int64_t launch_api_dur(struct sy_rank *r)
{
	uint64_t x = sy_rng_next(&r->rng);
	int64_t d = 3000 + (int64_t)(x % 2000);
	if ((x >> 32) % 16 == 0)
		d += (int64_t)((x >> 40) % 3000);
	return d;
}

/* Plan a launch of device work of @dur on @stream; returns the child with its timing. */
static struct sy_child *plan_launch(struct sy_rank *r, enum sy_child_kind kind, int what,
				    int stream, int64_t api_dur, int64_t dur)
{
	struct sy_child *c = push(r, kind);
	if (!c)
		return NULL;
	c->what = what;
	c->stream = stream;
	c->corr = r->g->next_corr++;
	api_dur = sy_jit_host(r, api_dur);
	dur = sy_jit_dev(r, dur);
	c->api_ts = r->t;
	c->api_dur = api_dur;
	c->dev_ts =
	    max64(r->t + sy_jit_host(r, sy_range(&r->rng, 4 * US, 7 * US)), r->sfree[stream]);
	c->dev_dur = dur;
	r->sfree[stream] = c->dev_ts + dur;
	if (stream == SY_COMPUTE) {
		if (r->dev_first < 0)
			r->dev_first = c->dev_ts;
		r->dev_last = c->dev_ts + dur;
	}
	r->t += api_dur + sy_jit_host(r, sy_range(&r->rng, 300, 1500));
	return c;
}

/* The i-th all-reduce of a rank runs until at least sy_gen.meet[i]; a dry run records its end
 * into sy_gen.next[i] (the latest over the ranks). */
static void meet(struct sy_rank *r, struct sy_child *c)
{
	struct sy_gen *g = r->g;
	size_t i = r->ncoll++;
	if (i < g->nmeet && g->meet[i] > c->dev_ts + c->dev_dur) {
		c->dev_dur = g->meet[i] - c->dev_ts;
		r->sfree[c->stream] = c->dev_ts + c->dev_dur;
	}
	if (!g->dry)
		return;
	if (TKU_GROW(g->next, g->capnext, i + 1, 256) != TK_OK) {
		if (r->status == TK_OK)
			r->status = TK_ENOMEM;
		return;
	}
	while (g->nnext <= i)
		g->next[g->nnext++] = INT64_MIN;
	if (c->dev_ts + c->dev_dur > g->next[i])
		g->next[i] = c->dev_ts + c->dev_dur;
}

int64_t sy_kernel(struct sy_rank *r, int k, int stream)
{
	const struct sy_kernel_def *d = &sy_kernel_defs[k];
	double f = 1.0 + d->jitter * (2.0 * sy_unit(&r->rng) - 1.0);
	if (d->outliers && sy_unit(&r->rng) < 0.01)
		f *= 1.3 + 0.7 * sy_unit(&r->rng);
	int64_t dur = (int64_t)((double)r->g->kbase[k] * f * r->speed);
	struct sy_child *c = plan_launch(r, CH_KERNEL, k, stream, launch_api_dur(r), dur);
	if (c && k == SK_NCCL_ALLREDUCE)
		meet(r, c);
	return c ? c->dev_ts + c->dev_dur : r->t;
}

int64_t sy_copy(struct sy_rank *r, enum tk_copy_kind kind, int64_t bytes, int stream)
{
	int64_t dur;
	if (kind == TK_COPY_H2D) /* pinned: 45-50 GB/s over PCIe 5 */
		dur = 1500 + bytes * 1000 / sy_range(&r->rng, 45000, 50000);
	else /* small pageable read-back */
		dur = sy_range(&r->rng, 1500, 3000) + bytes / 10;
	/* two draws, sequenced: C leaves the order of the operands of + unspecified, and the
	 * same seed must give the same trace whatever the compiler */
	int64_t api = launch_api_dur(r);
	api += sy_range(&r->rng, 1 * US, 3 * US);
	int name = kind == TK_COPY_H2D ? SN_MEMCPY_H2D : SN_MEMCPY_D2H;
	struct sy_child *c = plan_launch(r, CH_COPY, name, stream, api, dur);
	if (!c)
		return r->t;
	c->bytes = bytes;
	c->copy_kind = kind;
	c->src_kind = kind == TK_COPY_H2D ? TK_MEM_PINNED : TK_MEM_DEVICE;
	c->dst_kind = kind == TK_COPY_H2D ? TK_MEM_DEVICE : TK_MEM_PAGEABLE;
	return c->dev_ts + c->dev_dur;
}

int64_t sy_memset(struct sy_rank *r, int64_t bytes, int stream)
{
	int64_t dur = 1200 + bytes / 2400; /* ~2.4 TB/s */
	struct sy_child *c = plan_launch(r, CH_SET, SN_MEMSET, stream, launch_api_dur(r), dur);
	if (!c)
		return r->t;
	c->bytes = bytes;
	return c->dev_ts + c->dev_dur;
}

/* A runtime call with no device work, lasting @dur on the host. */
static void bare_api(struct sy_rank *r, int name, int64_t dur)
{
	struct sy_child *c = push(r, CH_API);
	if (!c)
		return;
	c->what = name;
	c->corr = r->g->next_corr++;
	c->api_ts = r->t;
	c->api_dur = dur;
	r->t += dur + sy_jit_host(r, sy_range(&r->rng, 200, 800));
}

void sy_stream_wait(struct sy_rank *r, int dst, int src)
{
	bare_api(r, SN_API_EVENT_RECORD, sy_jit_host(r, sy_range(&r->rng, 1 * US, 3 * US)));
	bare_api(r, SN_API_STREAM_WAIT, sy_jit_host(r, sy_range(&r->rng, 1 * US, 3 * US)));
	r->sfree[dst] = max64(r->sfree[dst], r->sfree[src]);
}

void sy_stream_sync(struct sy_rank *r, int stream)
{
	/* the device side is drawn first: sequenced, as the order of a call's arguments is
	 * unspecified in C (the order gcc chose, which the committed figures come from) */
	int64_t device = r->sfree[stream] + sy_jit_host(r, sy_range(&r->rng, 2 * US, 6 * US));
	int64_t host = r->t + sy_jit_host(r, sy_range(&r->rng, 1500, 3 * US));
	int64_t end = max64(host, device);
	bare_api(r, SN_API_STREAM_SYNC, end - r->t);
}

static void plan_mem(struct sy_rank *r, int is_free, const struct sy_block *b)
{
	struct sy_child *c = push(r, CH_MEM);
	if (!c)
		return;
	c->is_free = is_free;
	c->api_ts = r->t;
	c->addr = b->addr;
	c->bytes = b->bytes;
	c->in_use = r->mem.in_use;
	c->reserved = sy_mem_reserved(&r->mem);
	r->t += sy_jit_host(r, sy_range(&r->rng, 200, 800));
}

int sy_alloc(struct sy_rank *r, int64_t bytes, struct sy_block *b)
{
	b->bytes = (bytes + 511) / 512 * 512;
	int rc = sy_mem_alloc(&r->mem, b->bytes, &b->addr);
	if (rc != TK_OK && r->status == TK_OK)
		r->status = rc;
	plan_mem(r, 0, b);
	return r->status;
}

int sy_free(struct sy_rank *r, struct sy_block *b)
{
	int rc = sy_mem_release(&r->mem, b->addr, b->bytes);
	if (rc != TK_OK && r->status == TK_OK)
		r->status = rc;
	plan_mem(r, 1, b);
	b->addr = b->bytes = 0;
	return r->status;
}

void sy_host_gap(struct sy_rank *r, int64_t lo, int64_t hi)
{
	r->t += sy_jit_host(r, sy_range(&r->rng, lo, hi));
}

/* Append one interval; failures go to r->status. */
static int64_t add_event(struct sy_rank *r, const struct tk_event *ev)
{
	int64_t id = 0;
	if (r->g->dry)
		return 0;
	int rc = tk_writer_add_event(r->g->w, ev, &id);
	if (rc != TK_OK && r->status == TK_OK)
		r->status = rc;
	return id;
}

static void emit_launch(struct sy_rank *r, const struct sy_child *c)
{
	struct sy_gen *g = r->g;
	if (g->dry)
		return;
	static const int api_name[] = {
	    [CH_KERNEL] = SN_API_LAUNCH, [CH_COPY] = SN_API_MEMCPY, [CH_SET] = SN_API_MEMSET};
	struct tk_event ev = {
	    .track_id = r->main_track,
	    .kind = TK_EV_RUNTIME_API,
	    .name_id = g->name_id[api_name[c->kind]],
	    .category_id = g->name_id[SN_CAT_RUNTIME],
	    .ts_ns = c->api_ts,
	    .dur_ns = c->api_dur,
	    .correlation_id = c->corr,
	};
	int64_t api_id = add_event(r, &ev), dev_id = 0;
	ev.track_id = r->stream_track[c->stream];
	ev.ts_ns = c->dev_ts;
	ev.dur_ns = c->dev_dur;
	int rc;
	if (c->kind == CH_KERNEL) {
		ev.kind = TK_EV_KERNEL;
		ev.name_id = g->kernel_id[c->what];
		ev.category_id = g->name_id[SN_CAT_KERNEL];
		rc = tk_writer_add_kernel(g->w, &ev, &g->kinfo[c->what], &dev_id);
	} else if (c->kind == CH_COPY) {
		ev.kind = TK_EV_MEMCPY;
		ev.name_id = g->name_id[c->what];
		ev.category_id = g->name_id[SN_CAT_MEMCPY];
		struct tk_copy_info ci = {c->bytes,    c->copy_kind, c->src_kind,
					  c->dst_kind, TK_NONE,	     TK_NONE};
		rc = tk_writer_add_copy(g->w, &ev, &ci, &dev_id);
	} else {
		ev.kind = TK_EV_MEMSET;
		ev.name_id = g->name_id[SN_MEMSET];
		ev.category_id = g->name_id[SN_CAT_MEMSET];
		struct tk_set_info si = {c->bytes, 0, TK_MEM_DEVICE};
		rc = tk_writer_add_set(g->w, &ev, &si, &dev_id);
	}
	if (rc == TK_OK)
		rc = tk_writer_add_flow(g->w, "launch", api_id, dev_id);
	if (rc != TK_OK && r->status == TK_OK)
		r->status = rc;
}

static void emit_mem(struct sy_rank *r, const struct sy_child *c, int64_t op_id)
{
	struct tk_memory_event m = {
	    .ts_ns = c->api_ts,
	    .is_free = c->is_free,
	    .device_id = r->device_id,
	    .process_id = r->process_id,
	    .address = c->addr,
	    .bytes = c->bytes,
	    .mem_kind = TK_MEM_DEVICE,
	    .allocator_id = r->g->name_id[SN_ALLOCATOR],
	    .op_event_id = op_id,
	    .bytes_in_use = c->in_use,
	    .bytes_reserved = c->reserved,
	    .bytes_available = TK_NONE,
	    .peak_bytes_in_use = TK_NONE,
	    .requested_bytes = TK_NONE,
	    .fragmentation = -1,
	};
	if (r->g->dry)
		return;
	int rc = tk_writer_add_memory_event(r->g->w, &m);
	if (rc == TK_OK)
		rc = tk_writer_add_counter(r->g->w, r->counter_track, c->api_ts, (double)c->in_use);
	if (rc != TK_OK && r->status == TK_OK)
		r->status = rc;
}

/* Write the planned children (their op, when there is one, is @op_id) and clear the plan. */
static void emit_children(struct sy_rank *r, int64_t op_id)
{
	for (int i = 0; i < r->nch && r->status == TK_OK; i++) {
		const struct sy_child *c = &r->ch[i];
		if (c->kind == CH_MEM) {
			emit_mem(r, c, op_id);
		} else if (c->kind == CH_API) {
			struct tk_event ev = {
			    .track_id = r->main_track,
			    .kind = TK_EV_RUNTIME_API,
			    .name_id = r->g->name_id[c->what],
			    .category_id = r->g->name_id[SN_CAT_RUNTIME],
			    .ts_ns = c->api_ts,
			    .dur_ns = c->api_dur,
			    .correlation_id = c->corr,
			};
			add_event(r, &ev);
		} else {
			emit_launch(r, c);
		}
	}
	r->nch = 0;
}

int sy_flush(struct sy_rank *r)
{
	emit_children(r, TK_NONE);
	return r->status;
}

void sy_op_begin(struct sy_rank *r, int name)
{
	if (r->nch > 0)
		emit_children(r, TK_NONE);
	r->op_name = name;
	r->op_ts = r->t;
	r->t += sy_jit_host(r, sy_range(&r->rng, 2 * US, 10 * US));
}

int sy_op_end(struct sy_rank *r)
{
	r->t += sy_jit_host(r, sy_range(&r->rng, 1 * US, 4 * US));
	int cat = r->op_name == SN_OP_COMPILE ? SN_CAT_COMPILE : SN_CAT_CPU_OP;
	struct tk_event ev = {
	    .track_id = r->main_track,
	    .kind = TK_EV_HOST_OP,
	    .name_id = r->g->name_id[r->op_name],
	    .category_id = r->g->name_id[cat],
	    .ts_ns = r->op_ts,
	    .dur_ns = r->t - r->op_ts,
	    .correlation_id = TK_NONE,
	};
	int64_t id = add_event(r, &ev);
	emit_children(r, id);
	return r->status;
}

int sy_span(struct sy_rank *r, int64_t track, enum tk_event_kind kind, uint32_t name_id,
	    uint32_t cat_id, int64_t ts, int64_t end, int64_t *out_id)
{
	struct tk_event ev = {
	    .track_id = track,
	    .kind = kind,
	    .name_id = name_id,
	    .category_id = cat_id,
	    .ts_ns = ts,
	    .dur_ns = end - ts,
	    .correlation_id = TK_NONE,
	};
	int64_t id = add_event(r, &ev);
	if (out_id)
		*out_id = id;
	return r->status;
}

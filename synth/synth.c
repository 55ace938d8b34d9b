/*
 * tk_synth_write(): the entry point of the synthetic trace generator. It validates the options,
 * sizes the workload (layers, gradient-accumulation micro-batches and optimizer kernels per step)
 * so that the number of timestamped records lands close to the requested count, writes the source,
 * meta facts, and per rank its process, H100 device and tracks, then generates the ranks one after
 * another (warm-up, steps, teardown). Memory use does not grow with the number of events: the
 * layer count is capped and larger traces repeat micro-batches instead.
 */
#include "synth_internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tracekit/error.h>

/* 2026-01-01T00:00:00Z: the synthetic trace's clock origin (Unix epoch, ns). */
#define SY_EPOCH_NS 1767225600000000000LL
#define US 1000LL

void tk_synth_defaults(struct tk_synth_options *o)
{
	o->events = 200000;
	o->devices = 2;
	o->streams = 4;
	o->steps = 10;
	o->seed = 1;
	o->jitter_seed = 0;
}

static int valid(const struct tk_synth_options *o)
{
	return o->events >= 1 && o->devices >= 1 && o->devices <= 64 && o->streams >= 2 &&
	       o->streams <= SY_MAX_STREAMS && o->steps >= 1 && o->steps <= 1000000;
}

/* Records of one step of @layers x @mb micro-batches with the base optimizer. */
static int64_t step_base(int layers, int mb, int extra)
{
	return sy_step_records(layers, mb, sy_tiny_base(layers), extra);
}

/* The most layers (1..SY_MAX_LAYERS) whose step fits in @budget records; 1 when none fits. */
static int fit_layers(int mb, int extra, double budget)
{
	int best = 1;
	for (int l = 1; l <= SY_MAX_LAYERS; l++)
		if ((double)step_base(l, mb, extra) <= budget)
			best = l;
	return best;
}

/*
 * Choose layers, micro-batches and the optimizer kernel count so that the trace holds about
 * opt.events records: first as many layers as fit (up to the cap), then micro-batches, then the
 * remainder as extra optimizer kernels (2.125 records each, bounded so the shape stays sane).
 */
static void plan_size(struct sy_gen *g)
{
	const struct tk_synth_options *o = &g->opt;
	int extra = o->streams > 3;
	double per_rank = (double)o->events / o->devices;
	double budget = (per_rank - (double)sy_rank_fixed_records()) / o->steps;
	int64_t one = step_base(SY_MAX_LAYERS, 1, extra);
	int64_t per_mb = step_base(SY_MAX_LAYERS, 2, extra) - one;
	double mf = budget > (double)one ? 1.0 + (budget - (double)one) / (double)per_mb : 1.0;
	int mb0 = mf < 1e9 ? (int)mf : 1000000000;
	double best_rem = 0;
	for (int mb = mb0; mb <= mb0 + 1; mb++) {
		int layers = fit_layers(mb, extra, budget);
		double rem = budget - (double)step_base(layers, mb, extra);
		double score = rem >= 0 ? rem : -4 * rem;
		double best_score = best_rem >= 0 ? best_rem : -4 * best_rem;
		if (mb == mb0 || score < best_score) {
			g->plan.layers = layers;
			g->plan.microbatches = mb;
			best_rem = rem;
		}
	}
	int64_t base = sy_tiny_base(g->plan.layers);
	int64_t more = best_rem > 0 ? (int64_t)(best_rem / 2.125) : 0;
	int64_t cap = base * 4 > 256 ? base * 4 : 256;
	g->plan.tiny = base + (more < cap ? more : cap);
}

/* A seed is unsigned 64-bit: written as an integer when it fits, else as decimal text. */
static int set_meta_u64(tk_writer *w, const char *key, uint64_t v)
{
	if (v <= (uint64_t)INT64_MAX)
		return tk_writer_set_meta_int(w, key, (int64_t)v);
	char buf[24];
	snprintf(buf, sizeof(buf), "%" PRIu64, v);
	return tk_writer_set_meta_text(w, key, buf);
}

static int write_meta(struct sy_gen *g)
{
	tk_writer *w = g->w;
	const struct tk_synth_options *o = &g->opt;
	int rc;
	if ((rc = tk_writer_add_source(w, "synth", NULL, "synth-host", TK_NONE)) != TK_OK ||
	    (rc = tk_writer_set_meta_text(w, "source", "synth")) != TK_OK ||
	    (rc = tk_writer_set_meta_text(w, "clock", "unix_epoch")) != TK_OK ||
	    (rc = tk_writer_set_meta_int(w, "synth.events", o->events)) != TK_OK ||
	    (rc = tk_writer_set_meta_int(w, "synth.devices", o->devices)) != TK_OK ||
	    (rc = tk_writer_set_meta_int(w, "synth.streams", o->streams)) != TK_OK ||
	    (rc = tk_writer_set_meta_int(w, "synth.steps", o->steps)) != TK_OK ||
	    (rc = tk_writer_set_meta_int(w, "synth.layers", g->plan.layers)) != TK_OK ||
	    (rc = tk_writer_set_meta_int(w, "synth.microbatches", g->plan.microbatches)) != TK_OK)
		goto out;
	if ((rc = set_meta_u64(w, "synth.seed", o->seed)) == TK_OK && o->jitter_seed)
		rc = set_meta_u64(w, "synth.jitter", o->jitter_seed);
out:
	return rc;
}

/* Stream number of stream index @i: 7 compute, 13 copy, 17 NCCL, then 21, 25, ... */
static int stream_number(int i)
{
	static const int first[] = {7, 13, 17};
	return i < 3 ? first[i] : 17 + 4 * (i - 2);
}

/* The process, device and tracks of rank @rank. */
static int add_rank(struct sy_gen *g, struct sy_rank *r, int rank)
{
	tk_writer *w = g->w;
	int rc;
	if (g->dry)
		return TK_OK;
	int64_t pid = 4000 + rank;
	struct tk_process_info p = {pid, "python train.py", "synth-host", rank};
	if ((rc = tk_writer_add_process(w, &p, &r->process_id)) != TK_OK)
		goto out;
	struct tk_device_info d = {
	    .ordinal = rank,
	    .kind = "gpu",
	    .name = "NVIDIA H100 80GB HBM3",
	    .vendor = "nvidia",
	    .host = "synth-host",
	    .process_id = r->process_id,
	    .rank = rank,
	    .compute_capability = "9.0",
	    .sm_count = 132,
	    .clock_hz = 1980000000,
	    .memory_bytes = 85899345920LL,
	    .memory_bandwidth_bps = 3350000000000LL,
	    .peak_flops = 989e12,
	    .max_threads_per_sm = 2048,
	    .max_regs_per_sm = 65536,
	    .max_smem_per_sm = 233472,
	};
	if ((rc = tk_writer_add_device(w, &d, &r->device_id)) != TK_OK)
		goto out;
	struct tk_track_info t = {
	    TK_TRACK_THREAD, "python main thread", r->process_id, TK_NONE, pid, TK_NONE, NULL};
	if ((rc = tk_writer_add_track(w, &t, &r->main_track)) != TK_OK)
		goto out;
	t.name = "pt_data_pin (DataLoader)";
	t.tid = pid + 37;
	if ((rc = tk_writer_add_track(w, &t, &r->loader_track)) != TK_OK)
		goto out;
	for (int i = 0; i < r->nstreams; i++) {
		char name[24];
		int n = stream_number(i);
		snprintf(name, sizeof(name), "Stream #%d", n);
		struct tk_track_info s = {TK_TRACK_STREAM, name, r->process_id, r->device_id,
					  TK_NONE,	   n,	 NULL};
		if ((rc = tk_writer_add_track(w, &s, &r->stream_track[i])) != TK_OK)
			goto out;
	}
	struct tk_track_info c = {
	    TK_TRACK_COUNTER, "GPU memory allocated", r->process_id, r->device_id, TK_NONE, TK_NONE,
	    "bytes"};
	rc = tk_writer_add_track(w, &c, &r->counter_track);
out:
	return rc;
}

/* Generate rank @rank completely. */
static int run_rank(struct sy_gen *g, struct sy_rank *r, int rank)
{
	int rc;
	memset(r, 0, sizeof(*r));
	r->g = g;
	r->rank = rank;
	r->nstreams = g->opt.streams;
	r->comm = g->opt.streams >= 3 ? 2 : SY_COPY;
	uint64_t s = g->opt.seed ^ (0x5851f42d4c957f2dULL * (uint64_t)(rank + 1));
	sy_rng_seed(&r->rng, sy_splitmix64(&s));
	r->speed = 1.0 + 0.02 * sy_unit(&r->rng);
	r->jitter = g->opt.jitter_seed != 0;
	if (r->jitter) { /* its own stream: the workload's draws above and below are unchanged */
		uint64_t j = g->opt.jitter_seed * 0x9e3779b97f4a7c15ULL ^ g->opt.seed ^
			     (0xd1b54a32d192ed03ULL * (uint64_t)(rank + 1));
		sy_rng_seed(&r->jrng, sy_splitmix64(&j));
	}
	if (g->opt.devices > 1 && rank == g->opt.devices - 1)
		r->speed += 0.06; /* the straggler */
	sy_mem_init(&r->mem, 0x7f4a00000000LL + (int64_t)rank * 0x200000000LL);
	if ((rc = add_rank(g, r, rank)) != TK_OK)
		goto out;
	r->t = SY_EPOCH_NS + sy_range(&r->rng, 0, 250 * US);
	r->loader_free = r->t - 1;
	for (int i = 0; i < r->nstreams; i++)
		r->sfree[i] = r->t;
	if ((rc = sy_warmup(r)) != TK_OK)
		goto out;
	for (int k = 0; k < g->opt.steps; k++)
		if ((rc = sy_step(r, k)) != TK_OK)
			goto out;
	rc = sy_teardown(r);
out:
	if (rc == TK_OK)
		rc = r->status;
	sy_mem_free_all(&r->mem);
	return rc;
}

int tk_synth_write(tk_writer *w, const struct tk_synth_options *o)
{
	int rc = TK_OK;
	struct sy_gen *g = NULL;
	struct sy_rank *r = NULL;
	if (!w || !o) {
		rc = TK_EINVAL;
		goto out;
	}
	if (!valid(o)) {
		rc = tk_writer_fail(
		    w, TK_EINVAL,
		    "synth options out of range: events %lld (>= 1), devices %d (1..64), "
		    "streams %d (2..32), steps %d (1..1000000)",
		    (long long)o->events, o->devices, o->streams, o->steps);
		goto out;
	}
	g = calloc(1, sizeof(*g));
	r = calloc(1, sizeof(*r));
	if (!g || !r) {
		rc = TK_ENOMEM;
		goto out;
	}
	g->w = w;
	g->opt = *o;
	g->next_corr = 1;
	sy_rng_seed(&g->model_rng, o->seed);
	plan_size(g);
	sy_catalog_model(g);
	if ((rc = write_meta(g)) != TK_OK || (rc = sy_catalog_intern(g)) != TK_OK)
		goto out;
	if (o->devices > 1) { /* dry runs: when the ranks leave each all-reduce together */
		int64_t corr = g->next_corr;
		g->dry = 1;
		for (int round = 0; round < SY_MEET_ROUNDS && rc == TK_OK; round++) {
			g->nnext = 0;
			for (int rank = 0; rank < o->devices && rc == TK_OK; rank++)
				rc = run_rank(g, r, rank);
			int64_t *t = g->meet; /* the ends recorded become the ends applied */
			size_t cap = g->capmeet;
			g->meet = g->next;
			g->capmeet = g->capnext;
			g->nmeet = g->nnext;
			g->next = t;
			g->capnext = cap;
		}
		g->dry = 0;
		g->next_corr = corr;
		if (rc != TK_OK)
			goto out;
	}
	for (int rank = 0; rank < o->devices; rank++)
		if ((rc = run_rank(g, r, rank)) != TK_OK)
			goto out;
out:
	if (g) {
		free(g->meet);
		free(g->next);
	}
	free(r);
	free(g);
	return rc;
}

/*
 * Internal interface of the synthetic trace generator, shared by the files under synth/: the
 * deterministic PRNG, the catalogue of interned names and kernel launch configurations, the
 * per-rank timeline state (host cursor, stream cursors, the open host op and its planned
 * children), the caching-allocator model, the size plan, and the workload phases. Nothing here is
 * installed; nothing outside synth/ depends on it.
 */
#ifndef TK_SYNTH_INTERNAL_H
#define TK_SYNTH_INTERNAL_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <tracekit/store.h>
#include <tracekit/synth.h>

/* ---- PRNG: xoshiro256** seeded through splitmix64 ---- */

struct sy_rng {
	uint64_t s[4];
};

static inline uint64_t sy_splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static inline void sy_rng_seed(struct sy_rng *r, uint64_t seed)
{
	for (int i = 0; i < 4; i++)
		r->s[i] = sy_splitmix64(&seed);
}

static inline uint64_t sy_rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

static inline uint64_t sy_rng_next(struct sy_rng *r)
{
	uint64_t *s = r->s;
	uint64_t result = sy_rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;
	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = sy_rotl(s[3], 45);
	return result;
}

/* Uniform in [0, 1). */
static inline double sy_unit(struct sy_rng *r)
{
	return (double)(sy_rng_next(r) >> 11) * 0x1.0p-53;
}

/* Uniform integer in [lo, hi]. */
static inline int64_t sy_range(struct sy_rng *r, int64_t lo, int64_t hi)
{
	return lo + (int64_t)(sy_unit(r) * (double)(hi - lo + 1));
}

/*
 * exp() and log() from basic IEEE operations only (frexp/ldexp are exact), so that the content
 * does not depend on the C library's rounding: same options, same bytes, on any machine.
 */
static inline double sy_log(double x) /* x > 0 */
{
	int e;
	double m = frexp(x, &e); /* x = m * 2^e, m in [0.5, 1) */
	double s = (m - 1.0) / (m + 1.0), s2 = s * s, term = s, sum = 0.0;
	for (int k = 1; k < 40; k += 2) { /* ln m = 2 atanh(s), |s| <= 1/3 */
		sum += term / k;
		term *= s2;
	}
	return 2.0 * sum + e * 0.69314718055994530942;
}

static inline double sy_exp(double x)
{
	double k = floor(x / 0.69314718055994530942 + 0.5);
	double r = x - k * 0.69314718055994530942, term = 1.0, sum = 1.0;
	for (int i = 1; i < 18; i++) {
		term *= r / i;
		sum += term;
	}
	return ldexp(sum, (int)k);
}

/* Log-uniform in [lo, hi] (lo > 0). */
static inline double sy_logu(struct sy_rng *r, double lo, double hi)
{
	return lo * sy_exp(sy_unit(r) * sy_log(hi / lo));
}

/* ---- names ---- */

#define SY_FOREACH 6 /* distinct foreach ops (and their kernels) in the optimizer */

/* Host-side names (host ops, API calls, annotations, categories, event names of copies). */
enum sy_name {
	SN_CAT_CPU_OP,
	SN_CAT_RUNTIME,
	SN_CAT_KERNEL,
	SN_CAT_MEMCPY,
	SN_CAT_MEMSET,
	SN_CAT_ANNOTATION,
	SN_CAT_GPU_ANNOTATION,
	SN_CAT_COMPILE,
	SN_API_LAUNCH,
	SN_API_MEMCPY,
	SN_API_MEMSET,
	SN_API_EVENT_RECORD,
	SN_API_STREAM_WAIT,
	SN_API_STREAM_SYNC,
	SN_MEMCPY_H2D,
	SN_MEMCPY_D2H,
	SN_MEMSET,
	SN_OP_COMPILE,
	SN_OP_COMPILED_FN,
	SN_OP_TO,
	SN_OP_ZEROS,
	SN_OP_EMPTY,
	SN_OP_DATALOADER,
	SN_OP_WORKER_FETCH,
	SN_OP_PIN_MEMORY,
	SN_OP_LAYER_NORM,
	SN_OP_LINEAR,
	SN_OP_SDPA,
	SN_OP_ADD,
	SN_OP_GELU,
	SN_OP_ZERO,
	SN_OP_LOSS,
	SN_OP_ITEM,
	SN_OP_ADDMM_BWD,
	SN_OP_GELU_BWD,
	SN_OP_LN_BWD,
	SN_OP_SDPA_BWD,
	SN_OP_ALLREDUCE,
	SN_OP_UNSCALE,
	SN_OP_OPTIMIZER,
	SN_OP_ZERO_GRAD,
	SN_OP_FOREACH0, /* SY_FOREACH consecutive entries */
	SN_ANN_FORWARD = SN_OP_FOREACH0 + SY_FOREACH,
	SN_ANN_BACKWARD,
	SN_ANN_OPTIMIZER,
	SN_ALLOCATOR,
	SN_COUNT
};

/* Kernel definitions: one per distinct (name, launch configuration, duration class). */
enum sy_kernel {
	SK_GEMM_QKV,
	SK_GEMM_PROJ,
	SK_GEMM_FC1,
	SK_GEMM_FC2,
	SK_DGRAD_QKV,
	SK_DGRAD_PROJ,
	SK_DGRAD_FC1,
	SK_DGRAD_FC2,
	SK_WGRAD_QKV,
	SK_WGRAD_PROJ,
	SK_WGRAD_FC1,
	SK_WGRAD_FC2,
	SK_LN_FWD,
	SK_LN_BWD_INPUT,
	SK_LN_BWD_GAMMA,
	SK_GELU_FWD,
	SK_GELU_BWD,
	SK_ADD,
	SK_FLASH_FWD,
	SK_FLASH_BWD,
	SK_LOSS,
	SK_UNSCALE,
	SK_FOREACH0, /* SY_FOREACH consecutive entries */
	SK_NCCL_ALLREDUCE = SK_FOREACH0 + SY_FOREACH,
	SK_FILL,
	SK_TRITON_POI,
	SK_TRITON_RED,
	SK_TRITON_PER,
	SK_COUNT
};

struct sy_kernel_def {
	const char *name;
	const char *mangled; /* or NULL */
	int64_t grid[3], block[3];
	int64_t registers, static_smem, dynamic_smem;
	double occupancy;
	int64_t base_lo_ns, base_hi_ns; /* range of the per-trace base duration (log-uniform) */
	double jitter;			/* relative spread of each occurrence around the base */
	int outliers;			/* 1: about 1% of occurrences run 1.3-2x longer */
};

extern const struct sy_kernel_def sy_kernel_defs[SK_COUNT];
extern const char *const sy_name_text[SN_COUNT];

/* ---- caching allocator model ---- */

struct sy_free_list {
	int64_t bytes;
	int64_t *addr;
	size_t n, cap;
};

struct sy_mem {
	int64_t base, bump;	    /* next never-used address */
	int64_t in_use;		    /* bytes allocated and not freed */
	struct sy_free_list *lists; /* one per block size, in first-use order */
	size_t nlists, caplists;
};

void sy_mem_init(struct sy_mem *m, int64_t base);
void sy_mem_free_all(struct sy_mem *m);
/* Reserve a block of @bytes (a multiple of 512): reuses a cached block of that size, else bumps. */
int sy_mem_alloc(struct sy_mem *m, int64_t bytes, int64_t *addr);
/* Return a block to the cache. */
int sy_mem_release(struct sy_mem *m, int64_t addr, int64_t bytes);
static inline int64_t sy_mem_reserved(const struct sy_mem *m)
{
	return m->bump - m->base;
}

/* A live block the workload keeps (activations, batches, parameter buffers). */
struct sy_block {
	int64_t addr, bytes;
};

/* ---- size plan ---- */

#define SY_MAX_LAYERS 48

struct sy_plan {
	int layers;	  /* transformer layers per micro-batch */
	int microbatches; /* gradient-accumulation micro-batches per step */
	int64_t tiny;	  /* optimizer kernels per step */
};

/* Records one step writes with this plan; records one rank writes outside its steps. */
int64_t sy_step_records(int layers, int microbatches, int64_t tiny, int extra);
int64_t sy_rank_fixed_records(void);
int64_t sy_tiny_base(int layers);

/* ---- timeline ---- */

enum sy_child_kind { CH_KERNEL, CH_COPY, CH_SET, CH_API, CH_MEM };

/* A planned piece of a host op: a launch with its device work, a bare API call, a memory event. */
struct sy_child {
	enum sy_child_kind kind;
	int what;    /* kernel def for CH_KERNEL, name for CH_API/CH_COPY */
	int stream;  /* stream index */
	int is_free; /* CH_MEM */
	int64_t api_ts, api_dur, dev_ts, dev_dur, corr;
	int64_t bytes, addr, in_use, reserved; /* CH_COPY/CH_SET/CH_MEM */
	enum tk_copy_kind copy_kind;
	enum tk_mem_kind src_kind, dst_kind;
};

#define SY_MAX_CHILDREN 24
#define SY_MAX_STREAMS 32

enum { SY_COMPUTE = 0, SY_COPY = 1 }; /* stream indexes; communication is sy_rank.comm */

struct sy_gen; /* whole-trace state, below */

struct sy_rank {
	struct sy_gen *g;
	struct sy_rng rng;  /* the workload's draws (what happens, and its unjittered timing) */
	struct sy_rng jrng; /* the timing noise's draws (tk_synth_options.jitter_seed) */
	int jitter;	    /* 1 when jitter_seed is set */
	int rank, nstreams, comm;
	int64_t process_id, device_id;
	int64_t main_track, loader_track, counter_track, stream_track[SY_MAX_STREAMS];
	double speed;		       /* >1: this rank's kernels run slower (straggler) */
	int64_t t;		       /* host cursor, main thread */
	int64_t loader_free;	       /* end of the last data-loader-thread op */
	int64_t sfree[SY_MAX_STREAMS]; /* when each stream is free */
	int64_t dev_first, dev_last;   /* compute-stream span of the current step, -1 when none */
	struct sy_mem mem;
	int status;   /* first failure, sticky */
	size_t ncoll; /* all-reduces planned so far (index into sy_gen.meet) */
	/* the open leaf host op and its planned children */
	int op_name;
	int64_t op_ts;
	int nch;
	struct sy_child ch[SY_MAX_CHILDREN];
	/* workload blocks */
	struct sy_block params[4];
	struct sy_block act[SY_MAX_LAYERS][8];
	struct sy_block input, labels, loss, found_inf, grad_tmp[3];
};

/* Rounds of dry runs that settle when the ranks leave each all-reduce (sy_gen.meet). */
#define SY_MEET_ROUNDS 3

struct sy_gen {
	tk_writer *w;
	struct tk_synth_options opt;
	struct sy_plan plan;
	uint32_t name_id[SN_COUNT];
	uint32_t kernel_id[SK_COUNT];
	struct tk_kernel_info kinfo[SK_COUNT];
	int64_t kbase[SK_COUNT]; /* per-trace base duration of each kernel, ns */
	int64_t act_unit;	 /* activation block unit, bytes */
	int64_t param_bytes;	 /* bytes of each flat parameter-sized buffer */
	int64_t input_bytes, label_bytes;
	int64_t next_corr; /* correlation ids are unique over the whole trace */
	struct sy_rng model_rng;
	/*
	 * Collectives meet: the ranks of a job leave an all-reduce together, the earlier ones
	 * waiting in it for the last to arrive. Dry runs of every rank (dry: nothing is written)
	 * record when each rank's i-th all-reduce ends, and meet[i] becomes the latest of them;
	 * the runs are repeated with those ends applied (waiting shifts what follows) a few times,
	 * then every rank's i-th all-reduce runs until at least meet[i].
	 */
	int dry;
	int64_t *meet, *next; /* ends applied, and ends recorded by the dry runs */
	size_t nmeet, capmeet, nnext, capnext;
};

/*
 * The status of a writer known to have failed (tk_writer_intern() returned 0). Every writer call
 * on a failed writer returns its sticky status before looking at its arguments; the NULL format
 * only matters if the writer had not failed, and then it reports an internal misuse.
 */
static inline int sy_writer_status(tk_writer *w)
{
	return tk_writer_status(w);
}

int sy_catalog_intern(struct sy_gen *g);
void sy_catalog_model(struct sy_gen *g);

/* Host op builder: children are planned, then written after the op so that ids nest. */
void sy_op_begin(struct sy_rank *r, int name);
int sy_op_end(struct sy_rank *r);
/* Launch a kernel on @stream; returns its planned end. */
int64_t sy_kernel(struct sy_rank *r, int k, int stream);
int64_t sy_copy(struct sy_rank *r, enum tk_copy_kind kind, int64_t bytes, int stream);
int64_t sy_memset(struct sy_rank *r, int64_t bytes, int stream);
/* cudaEventRecord on @src then cudaStreamWaitEvent on @dst: @dst waits for @src's work so far. */
void sy_stream_wait(struct sy_rank *r, int dst, int src);
/* cudaStreamSynchronize: the host blocks until @stream has drained. */
void sy_stream_sync(struct sy_rank *r, int stream);
int sy_alloc(struct sy_rank *r, int64_t bytes, struct sy_block *b);
int sy_free(struct sy_rank *r, struct sy_block *b);
/* Flush what is planned outside an op (frees at the end of a step). */
int sy_flush(struct sy_rank *r);
/*
 * Run-to-run timing noise (tk_synth_options.jitter_seed), drawn from sy_rank.jrng only so that
 * the workload's own draws are unchanged: @d unchanged without jitter, else @d scaled by
 * exp(N(0, sigma)) with the normal clamped to +-4 sigma. sy_jit_dev() is a device op's duration
 * (sigma 2 %), sy_jit_host() a host-side time (5 %; 2 % from 1 ms on, 0.5 % from 100 ms on:
 * long phases vary less relatively).
 */
int64_t sy_jit_dev(struct sy_rank *r, int64_t d);
int64_t sy_jit_host(struct sy_rank *r, int64_t d);
/* A host advance of @lo..@hi ns (Python between ops). */
void sy_host_gap(struct sy_rank *r, int64_t lo, int64_t hi);
/* An interval written at once (spans whose end is only now known: annotations, steps). */
int sy_span(struct sy_rank *r, int64_t track, enum tk_event_kind kind, uint32_t name_id,
	    uint32_t cat_id, int64_t ts, int64_t end, int64_t *out_id);

/* ---- workload ---- */

int sy_warmup(struct sy_rank *r);
int sy_step(struct sy_rank *r, int step);
int sy_teardown(struct sy_rank *r);

#endif

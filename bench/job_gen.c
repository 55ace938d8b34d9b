/*
 * Job benchmark generator: writes the Kineto JSON traces of a synthetic data-parallel job of K
 * ranks, one file per rank (OUTDIR/rank-NNN.pt.trace.json), about E events each, shaped as the
 * PyTorch profiler writes them: deviceProperties of the host's 8 GPUs, host_name,
 * baseTimeNanoseconds, "us.nnn" timestamps, ProfilerStep#N annotations, cpu_ops with
 * cudaLaunchKernel calls tied to their kernels by correlation ids and ac2g flows, kernels with
 * the full Kineto arg set, two NCCL collectives per step (an all_gather overlapping compute, an
 * all_reduce after it) with "Process Group Name", "Seq", "In msg nelems" and "dtype" on the
 * kernel and on record_param_comms, a memcpy and a memset per step, metadata events, and
 * distributedInfo {rank, world_size} after traceEvents.
 *
 * Deterministic from the seed. Every rank runs the same kernels (SPMD); rank r's kernels last
 * F(r, step) times their base duration, F = (1 + imbalance * r / (K - 1)) * (1 + slow if r is
 * the slow rank) * (1 +- 0.5 % jitter); the all_reduce of a step ends at one true time on every
 * rank (the last rank to arrive plus the transfer), so early ranks wait. Each host (ranks
 * r / per_host) writes its times on its own clock: true time + the host's planted offset
 * (host 0: 0), printed on stdout as "host H offset_ns X" with the other planted facts.
 *
 * Usage: tk_job_gen OUTDIR RANKS EVENTS [--seed S] [--per-host N] [--offset-us U]
 *                   [--slow-rank R] [--slow-pct P] [--imbalance-pct P] [--part I/N]
 * --offset-us U plants per-host offsets uniform in [-U, U] µs; --part I/N writes only the ranks
 * r with r % N == I (to generate with several processes).
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define NOPS 96				  /* compute kernels per step */
#define PER_STEP (1 + 5 * NOPS + 10 + 10) /* events of one step (see write_step) */
#define GAP_NS 1000			  /* between two compute kernels on the stream */
#define AG_NS 120000			  /* all_gather transfer */
#define AR_NS 800000			  /* all_reduce transfer after the last rank arrives */
#define COPY_NS 20000			  /* the memcpy of the next batch */
#define SET_NS 2000			  /* the memset */
#define IDLE_NS 20000			  /* after the memset, before the next step */
#define CPU_LEAD_NS 40000	     /* a step's host ops start this long before its device work */
#define T0_NS INT64_C(5000000000000) /* first step's true device start */
#define COMP_STREAM 7
#define COMM_STREAM 24

static const struct {
	const char *name;
	int us; /* typical duration */
} kernels[] = {
    {"sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x256x64_warpgroupsize2x1x1_execute_"
     "segment_k_off_kernel__5x_cublas",
     180},
    {"void at::native::vectorized_elementwise_kernel<4, "
     "at::native::CUDAFunctor_add<c10::BFloat16>, "
     "at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<c10::BFloat16>, "
     "at::detail::Array<char*, 3>)",
     12},
    {"void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<c10::BFloat16, "
     "float>(int, "
     "float, c10::BFloat16 const*, c10::BFloat16 const*, c10::BFloat16 const*, float*, float*, "
     "c10::BFloat16*)",
     25},
    {"void pytorch_flash::flash_fwd_kernel<pytorch_flash::Flash_fwd_kernel_traits<128, 128, 64, 4, "
     "false, false, cutlass::bfloat16_t, pytorch_flash::Flash_kernel_traits<128, 128, 64, 4, "
     "cutlass::bfloat16_t> >, true, false, false, false, true, true, "
     "false>(pytorch_flash::Flash_fwd_"
     "params)",
     140},
    {"void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, c10::BFloat16, float, "
     "c10::BFloat16, at::native::(anonymous namespace)::SoftMaxForwardEpilogue>(c10::BFloat16*, "
     "c10::BFloat16 const*, int)",
     30},
    {"sm90_xmma_gemm_bf16bf16_bf16f32_f32_nn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_"
     "segment_k_off_kernel__5x_cublas",
     95},
    {"void at::native::vectorized_elementwise_kernel<4, at::native::GeluCUDAKernelImpl(at::"
     "TensorIteratorBase&, at::native::GeluType)::{lambda()#2}::operator()() const::{lambda()#2}::"
     "operator()() const::{lambda(c10::BFloat16)#1}, at::detail::Array<char*, 2> >(int, "
     "at::native::"
     "GeluCUDAKernelImpl(at::TensorIteratorBase&, "
     "at::native::GeluType)::{lambda()#2}::operator()() "
     "const::{lambda()#2}::operator()() const::{lambda(c10::BFloat16)#1}, at::detail::Array<char*, "
     "2>)",
     20},
    {"void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::func_wrapper<"
     "float>, unsigned int, float, 4> >(at::native::ReduceOp<float, "
     "at::native::func_wrapper<float>, "
     "unsigned int, float, 4>)",
     8},
};
#define NKERNELS (sizeof(kernels) / sizeof(kernels[0]))
static const char *const ops[NKERNELS] = {"aten::mm",
					  "aten::add",
					  "aten::native_layer_norm",
					  "aten::_flash_attention_forward",
					  "aten::_softmax",
					  "aten::addmm",
					  "aten::gelu",
					  "aten::sum"};

struct job {
	int ranks, per_host, slow_rank;
	uint64_t seed;
	double offset_us, slow, imbalance;
	long steps;
	int64_t base[NOPS], cum[NOPS + 1]; /* base durations (ns) and their prefix sums */
	int64_t *start, *end;		   /* per step: true device start, all_reduce end */
};

static uint64_t mix(uint64_t x)
{
	x += UINT64_C(0x9e3779b97f4a7c15);
	x = (x ^ (x >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	x = (x ^ (x >> 27)) * UINT64_C(0x94d049bb133111eb);
	return x ^ (x >> 31);
}

/* A number in [0, 1) from the seed and up to three integers. */
static double unit(const struct job *j, uint64_t a, uint64_t b, uint64_t c)
{
	uint64_t h = mix(j->seed ^ mix(a ^ mix(b ^ mix(c))));
	return (double)(h >> 11) / 9007199254740992.0;
}

static double factor(const struct job *j, int r, long s)
{
	double f = 1.0 + (j->ranks > 1 ? j->imbalance * r / (j->ranks - 1) : 0.0);
	if (r == j->slow_rank)
		f *= 1.0 + j->slow;
	return f * (1.0 + 0.01 * (unit(j, 1, (uint64_t)r, (uint64_t)s) - 0.5));
}

static int64_t host_offset(const struct job *j, int host)
{
	if (host == 0 || j->offset_us <= 0)
		return 0;
	return (int64_t)((2.0 * unit(j, 2, (uint64_t)host, 0) - 1.0) * j->offset_us * 1000.0);
}

/* Where rank r's compute of step s ends (true ns): its all_reduce starts one gap later. */
static int64_t compute_end(const struct job *j, int r, long s)
{
	return j->start[s] + (int64_t)(j->cum[NOPS] * factor(j, r, s)) + (NOPS - 1) * GAP_NS;
}

static int plan(struct job *j)
{
	j->start = malloc((size_t)(j->steps + 1) * sizeof(*j->start));
	j->end = malloc((size_t)j->steps * sizeof(*j->end));
	if (!j->start || !j->end)
		return -1;
	j->cum[0] = 0;
	for (int k = 0; k < NOPS; k++) {
		double u = 0.8 + 0.4 * unit(j, 3, (uint64_t)k, 0);
		j->base[k] = (int64_t)(kernels[k % NKERNELS].us * 1000 * u);
		j->cum[k + 1] = j->cum[k] + j->base[k];
	}
	j->start[0] = T0_NS;
	for (long s = 0; s < j->steps; s++) {
		int64_t last = 0;
		for (int r = 0; r < j->ranks; r++) {
			int64_t e = compute_end(j, r, s);
			last = e > last ? e : last;
		}
		j->end[s] = last + GAP_NS + AR_NS;
		j->start[s + 1] = j->end[s] + 2000 + COPY_NS + 1000 + SET_NS + IDLE_NS;
	}
	return 0;
}

/* ts and dur as Kineto writes them: microseconds with three decimals (exact ns). */
#define US "%" PRId64 ".%03d"
#define USV(t) (t) / 1000, (int)((t) % 1000)

struct out {
	FILE *f;
	int r, dev, pid, tid;
	int64_t off, corr, ext;
	long events;
	const char *pgranks;
	char *args, *kargs; /* a collective's args, sized for pgranks */
	size_t cap;
};

static void x_cpu(struct out *o, const char *cat, const char *name, int64_t ts, int64_t dur,
		  const char *args)
{
	fprintf(o->f,
		"{\"ph\": \"X\", \"cat\": \"%s\", \"name\": \"%s\", \"pid\": %d, \"tid\": %d, "
		"\"ts\": " US ", \"dur\": " US ", \"args\": {\"External id\": %" PRId64 "%s}},\n",
		cat, name, o->pid, o->tid, USV(ts + o->off), USV(dur), o->ext, args);
	o->events++;
}

/* A runtime call launching device work: the call, its flow start. */
static void launch(struct out *o, const char *name, int cbid, int64_t ts, int64_t dur)
{
	fprintf(o->f,
		"{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"%s\", \"pid\": %d, "
		"\"tid\": %d, "
		"\"ts\": " US ", \"dur\": " US ", \"args\": {\"External id\": %" PRId64
		", \"cbid\": %d, \"correlation\": %" PRId64 "}},\n"
		"{\"ph\": \"s\", \"id\": %" PRId64 ", \"pid\": %d, \"tid\": %d, \"ts\": " US
		", \"cat\": \"ac2g\", \"name\": \"ac2g\"},\n",
		name, o->pid, o->tid, USV(ts + o->off), USV(dur), o->ext, cbid, o->corr, o->corr,
		o->pid, o->tid, USV(ts + o->off));
	o->events += 2;
}

/* The device side of a launch: the operation, its flow end. */
static void x_dev(struct out *o, const char *cat, const char *name, int stream, int64_t ts,
		  int64_t dur, const char *args)
{
	fprintf(o->f,
		"{\"ph\": \"X\", \"cat\": \"%s\", \"name\": \"%s\", \"pid\": %d, \"tid\": %d, "
		"\"ts\": " US ", \"dur\": " US ", \"args\": {\"External id\": %" PRId64
		", \"device\": %d, \"context\": 1, \"stream\": %d, \"correlation\": %" PRId64
		"%s}},\n{\"ph\": \"f\", \"id\": %" PRId64 ", \"pid\": %d, \"tid\": %d, \"ts\": " US
		", \"cat\": \"ac2g\", \"name\": \"ac2g\", \"bp\": \"e\"},\n",
		cat, name, o->dev, stream, USV(ts + o->off), USV(dur), o->ext, o->dev, stream,
		o->corr, args, o->corr, o->dev, stream, USV(ts + o->off));
	o->events += 2;
	o->corr++;
}

/* One NCCL collective: record_param_comms with its launch, the kernel on the comm stream. */
static void collective(struct out *o, const struct job *j, const char *coll, const char *kernel,
		       long nelems, long seq, int64_t cts, int64_t kts, int64_t kend)
{
	char *args = o->args, *kargs = o->kargs;
	snprintf(args, o->cap,
		 ", \"Collective name\": \"%s\", \"In msg nelems\": %ld, \"Out msg nelems\": %ld, "
		 "\"Group size\": %d, \"dtype\": \"BFloat16\", \"In split size\": \"[]\", \"Out "
		 "split size\": \"[]\", \"Process Group Name\": \"0\", \"Process Group "
		 "Description\": \"default_pg\", \"Process Group Ranks\": \"%s\", \"Seq\": %ld",
		 coll, nelems, nelems, j->ranks, o->pgranks, seq);
	o->ext++;
	x_cpu(o, "cpu_op", "record_param_comms", cts, 3000, args);
	launch(o, "cudaLaunchKernelExC", 430, cts + 500, 2000);
	snprintf(
	    kargs, o->cap,
	    ", \"queued\": 0, \"registers per thread\": 96, \"shared memory\": 87568, \"blocks "
	    "per SM\": 0.121212, \"warps per SM\": 2.060606, \"grid\": [16, 1, 1], \"block\": "
	    "[544, 1, 1], \"est. achieved occupancy %%\": 0%s",
	    args);
	x_dev(o, "kernel", kernel, COMM_STREAM, kts, kend - kts, kargs);
}

static void write_step(struct out *o, const struct job *j, long s)
{
	int64_t S = j->start[s], c = S - CPU_LEAD_NS;
	double f = factor(j, o->r, s);
	char name[64];
	snprintf(name, sizeof(name), "ProfilerStep#%ld", s);
	o->ext++;
	x_cpu(o, "user_annotation", name, c, j->start[s + 1] - S, "");
	/* all_gather at the step's start: every rank arrives within 5 µs, all finish together */
	int64_t ag = S + 1000 + (int64_t)(5000 * unit(j, 4, (uint64_t)o->r, (uint64_t)s));
	collective(o, j, "allgather",
		   "ncclDevKernel_AllGather_RING_LL(ncclDevComm*, unsigned long, "
		   "ncclWork*)",
		   4194304, 2 * s, c + 2000, ag, S + 6000 + AG_NS);
	for (int k = 0; k < NOPS; k++) {
		int64_t ct = c + 6000 + (int64_t)k * 3000;
		int64_t g0 = S + (int64_t)(j->cum[k] * f) + (int64_t)k * GAP_NS;
		int64_t g1 = S + (int64_t)(j->cum[k + 1] * f) + (int64_t)k * GAP_NS;
		o->ext++;
		x_cpu(o, "cpu_op", ops[k % NKERNELS], ct, 2500, ", \"Record function id\": 0");
		launch(o, "cudaLaunchKernel", 211, ct + 500, 1500);
		x_dev(
		    o, "kernel", kernels[k % NKERNELS].name, COMP_STREAM, g0, g1 - g0,
		    ", \"queued\": 0, \"registers per thread\": 128, \"shared memory\": 49152, "
		    "\"blocks per SM\": 1.939394, \"warps per SM\": 15.515152, \"grid\": [256, 1, "
		    "1], \"block\": [256, 1, 1], \"est. achieved occupancy %\": 12");
	}
	int64_t ct = c + 6000 + (int64_t)NOPS * 3000;
	int64_t ar = compute_end(j, o->r, s) + GAP_NS;
	collective(o, j, "allreduce",
		   "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevComm*, "
		   "unsigned long, ncclWork*)",
		   25165824, 2 * s + 1, ct, ar, j->end[s]);
	int64_t m0 = j->end[s] + 2000, m1 = m0 + COPY_NS + 1000;
	o->ext++;
	x_cpu(o, "cpu_op", "aten::copy_", ct + 4000, 3000, ", \"Record function id\": 0");
	launch(o, "cudaMemcpyAsync", 41, ct + 4500, 2000);
	x_dev(o, "gpu_memcpy", "Memcpy HtoD (Pinned -> Device)", COMP_STREAM, m0, COPY_NS,
	      ", \"bytes\": 16777216, \"memory bandwidth (GB/s)\": 838.86");
	o->ext++;
	x_cpu(o, "cpu_op", "aten::zero_", ct + 8000, 3000, ", \"Record function id\": 0");
	launch(o, "cudaMemsetAsync", 51, ct + 8500, 2000);
	x_dev(o, "gpu_memset", "Memset (Device)", COMP_STREAM, m1, SET_NS,
	      ", \"bytes\": 1048576, \"memory bandwidth (GB/s)\": 524.29");
}

static int write_rank(const struct job *j, const char *dir, int r, const char *pgranks)
{
	char path[4096], host[32];
	int host_i = r / j->per_host, rc = 0;
	snprintf(path, sizeof(path), "%s/rank-%03d.pt.trace.json", dir, r);
	snprintf(host, sizeof(host), "node%03d", host_i);
	struct out o = {fopen(path, "w"),
			r,
			r % j->per_host,
			100000 + r,
			100000 + r,
			host_offset(j, host_i),
			1,
			0,
			0,
			pgranks,
			NULL,
			NULL,
			strlen(pgranks) + 1024};
	o.args = malloc(o.cap);
	o.kargs = malloc(o.cap);
	if (!o.args || !o.kargs) {
		fputs("tk_job_gen: out of memory\n", stderr);
		rc = -1;
		goto out;
	}
	if (!o.f) {
		fprintf(stderr, "tk_job_gen: cannot write '%s'\n", path);
		rc = -1;
		goto out;
	}
	setvbuf(o.f, NULL, _IOFBF, 1 << 20);
	fprintf(o.f, "{\n  \"schemaVersion\": 1,\n  \"deviceProperties\": [");
	for (int d = 0; d < j->per_host; d++)
		fprintf(
		    o.f,
		    "%s\n    {\"id\": %d, \"name\": \"NVIDIA H100 80GB HBM3\", \"totalGlobalMem\": "
		    "85045379072, \"computeMajor\": 9, \"computeMinor\": 0, "
		    "\"maxThreadsPerBlock\": "
		    "1024, \"maxThreadsPerMultiprocessor\": 2048, \"regsPerBlock\": 65536, "
		    "\"warpSize\": 32, \"sharedMemPerBlock\": 49152, \"numSms\": 132, "
		    "\"regsPerMultiprocessor\": 65536, \"sharedMemPerBlockOptin\": 232448, "
		    "\"sharedMemPerMultiprocessor\": 233472}",
		    d ? "," : "", d);
	fprintf(o.f,
		"\n  ],\n  \"host_name\": \"%s\",\n  \"displayTimeUnit\": \"ms\",\n  "
		"\"baseTimeNanoseconds\": 1700000000000000000,\n  \"traceEvents\": [\n",
		host);
	for (long s = 0; s < j->steps; s++)
		write_step(&o, j, s);
	fprintf(
	    o.f,
	    "{\"name\": \"process_name\", \"ph\": \"M\", \"ts\": 0.000, \"pid\": %d, \"tid\": 0, "
	    "\"args\": {\"name\": \"python3\"}},\n"
	    "{\"name\": \"process_name\", \"ph\": \"M\", \"ts\": 0.000, \"pid\": %d, \"tid\": 0, "
	    "\"args\": {\"name\": \"python3\"}},\n"
	    "{\"name\": \"process_labels\", \"ph\": \"M\", \"ts\": 0.000, \"pid\": %d, \"tid\": 0, "
	    "\"args\": {\"labels\": \"GPU %d\"}},\n"
	    "{\"name\": \"thread_name\", \"ph\": \"M\", \"ts\": 0.000, \"pid\": %d, \"tid\": %d, "
	    "\"args\": {\"name\": \"stream %d \"}},\n"
	    "{\"name\": \"thread_name\", \"ph\": \"M\", \"ts\": 0.000, \"pid\": %d, \"tid\": %d, "
	    "\"args\": {\"name\": \"stream %d \"}},\n"
	    "{\"name\": \"thread_name\", \"ph\": \"M\", \"ts\": 0.000, \"pid\": %d, \"tid\": %d, "
	    "\"args\": {\"name\": \"thread %d (python3)\"}}\n  ],\n",
	    o.pid, o.dev, o.dev, o.dev, o.dev, COMP_STREAM, COMP_STREAM, o.dev, COMM_STREAM,
	    COMM_STREAM, o.pid, o.tid, o.tid);
	o.events += 6;
	fprintf(
	    o.f,
	    "  \"distributedInfo\": {\"backend\": \"nccl\", \"rank\": %d, \"world_size\": %d, "
	    "\"pg_count\": 1, \"pg_config\": [{\"pg_name\": \"0\", \"pg_desc\": \"default_pg\", "
	    "\"backend_config\": \"cuda:nccl\", \"pg_size\": %d, \"ranks\": %s}], "
	    "\"nccl_version\": \"2.21.5\"},\n  \"traceName\": \"%s\"\n}\n",
	    r, j->ranks, j->ranks, pgranks, strrchr(path, '/') + 1);
	if (ferror(o.f))
		rc = -1;
	if (fclose(o.f) != 0 || rc) {
		fprintf(stderr, "tk_job_gen: write error on '%s'\n", path);
		rc = -1;
	} else {
		printf("rank %d host %s events %ld file %s\n", r, host, o.events, path);
	}
	o.f = NULL;
out:
	if (o.f)
		fclose(o.f);
	free(o.args);
	free(o.kargs);
	return rc;
}

static int usage(void)
{
	fputs("usage: tk_job_gen OUTDIR RANKS EVENTS [--seed S] [--per-host N] [--offset-us U]\n"
	      "                  [--slow-rank R] [--slow-pct P] [--imbalance-pct P] [--part I/N]\n",
	      stderr);
	return 2;
}

int main(int argc, char **argv)
{
	if (argc < 4)
		return usage();
	struct job j = {.ranks = atoi(argv[2]), .per_host = 8, .slow_rank = -1, .seed = 1};
	long events = atol(argv[3]);
	int part = 0, parts = 1, rc = 1;
	char *pgranks = NULL;
	for (int i = 4; i < argc; i += 2) { /* --name value pairs */
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!v)
			return usage();
		if (!strcmp(a, "--seed"))
			j.seed = strtoull(v, NULL, 10);
		else if (!strcmp(a, "--per-host"))
			j.per_host = atoi(v);
		else if (!strcmp(a, "--offset-us"))
			j.offset_us = atof(v);
		else if (!strcmp(a, "--slow-rank"))
			j.slow_rank = atoi(v);
		else if (!strcmp(a, "--slow-pct"))
			j.slow = atof(v) / 100.0;
		else if (!strcmp(a, "--imbalance-pct"))
			j.imbalance = atof(v) / 100.0;
		else if (!strcmp(a, "--part") && sscanf(v, "%d/%d", &part, &parts) == 2)
			;
		else
			return usage();
	}
	if (j.ranks < 1 || j.per_host < 1 || parts < 1 || part < 0 || part >= parts)
		return usage();
	j.steps = (events - 6) / PER_STEP;
	if (j.steps < 1)
		j.steps = 1;
	mkdir(argv[1], 0777);
	pgranks = malloc((size_t)j.ranks * 12 + 3);
	if (!pgranks || plan(&j) != 0) {
		fputs("tk_job_gen: out of memory\n", stderr);
		goto out;
	}
	size_t n = 0;
	pgranks[n++] = '[';
	for (int r = 0; r < j.ranks; r++)
		n += (size_t)sprintf(pgranks + n, "%s%d", r ? ", " : "", r);
	pgranks[n++] = ']';
	pgranks[n] = 0;
	if (part == 0) {
		printf("job ranks %d per_host %d steps %ld events_per_rank %ld seed %" PRIu64 "\n",
		       j.ranks, j.per_host, j.steps, j.steps * PER_STEP + 6, j.seed);
		for (int h = 0; h * j.per_host < j.ranks; h++)
			printf("host %d offset_ns %" PRId64 "\n", h, host_offset(&j, h));
		if (j.slow_rank >= 0)
			printf("slow rank %d +%.1f%%\n", j.slow_rank, j.slow * 100.0);
	}
	for (int r = part; r < j.ranks; r += parts)
		if (write_rank(&j, argv[1], r, pgranks) != 0)
			goto out;
	rc = 0;
out:
	free(pgranks);
	free(j.start);
	free(j.end);
	return rc;
}

/*
 * The occupancy calculator (capture/cupti_occupancy.c): hand-worked launches on H100, A100 and
 * V100 limits and invalid inputs, always; and, when the build found cuda_occupancy.h
 * (TK_HAVE_CUDA_OCC), a sweep and a random search asserting the same blocks per SM as
 * cudaOccMaxActiveBlocksPerMultiprocessor called the way tracekit used to call it.
 */
#include <criterion/criterion.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "cupti_occupancy.h"

/* CC 9.0: 132 SMs, 228 KiB shared memory per SM, 1 KiB reserved per block. */
static const struct tkcap_occ_device h100 = {
    .cc_major = 9,
    .cc_minor = 0,
    .sm_count = 132,
    .max_threads_per_block = 1024,
    .max_threads_per_sm = 2048,
    .regs_per_block = 65536,
    .regs_per_sm = 65536,
    .max_blocks_per_sm = 32,
    .smem_per_block = 49152,
    .smem_per_sm = 233472,
    .smem_per_block_optin = 232448,
    .reserved_smem_per_block = 1024,
};

/* CC 8.0: 108 SMs, 164 KiB shared memory per SM. */
static const struct tkcap_occ_device a100 = {
    .cc_major = 8,
    .cc_minor = 0,
    .sm_count = 108,
    .max_threads_per_block = 1024,
    .max_threads_per_sm = 2048,
    .regs_per_block = 65536,
    .regs_per_sm = 65536,
    .max_blocks_per_sm = 32,
    .smem_per_block = 49152,
    .smem_per_sm = 167936,
    .smem_per_block_optin = 166912,
    .reserved_smem_per_block = 1024,
};

/* CC 7.0: 80 SMs, 96 KiB shared memory per SM, nothing reserved. */
static const struct tkcap_occ_device v100 = {
    .cc_major = 7,
    .cc_minor = 0,
    .sm_count = 80,
    .max_threads_per_block = 1024,
    .max_threads_per_sm = 2048,
    .regs_per_block = 65536,
    .regs_per_sm = 65536,
    .max_blocks_per_sm = 32,
    .smem_per_block = 49152,
    .smem_per_sm = 98304,
    .smem_per_block_optin = 98304,
    .reserved_smem_per_block = 0,
};

static const char *lim_name(enum tkcap_occ_limiter l)
{
	static const char *const names[] = {"none", "warps", "registers", "smem", "blocks"};

	return (unsigned)l < sizeof(names) / sizeof(names[0]) ? names[l] : "?";
}

/* Blocks per SM, limiter and occupancy of one launch (by an opted-in function: @optin). */
static void expect_launch_of(const struct tkcap_occ_device *d, int optin, int threads, int regs,
			     int64_t smem, int64_t dyn, int blocks, enum tkcap_occ_limiter lim,
			     double occ)
{
	/* something the call must overwrite */
	enum tkcap_occ_limiter got_lim = lim == TK_OCC_NONE ? TK_OCC_WARPS : TK_OCC_NONE;
	int got = tkcap_occupancy_active_blocks(d, threads, regs, smem, dyn, optin, &got_lim);
	int active = -2;
	double got_occ = tkcap_occupancy(d, threads, regs, smem, dyn, optin, &active);

	cr_expect_eq(
	    got, blocks, "CC %d.%d, %d threads, %d regs, %lld+%lld smem: %d blocks, want %d",
	    d->cc_major, d->cc_minor, threads, regs, (long long)smem, (long long)dyn, got, blocks);
	cr_expect_eq(got_lim, lim,
		     "CC %d.%d, %d threads, %d regs, %lld+%lld smem: limited by %s, want %s",
		     d->cc_major, d->cc_minor, threads, regs, (long long)smem, (long long)dyn,
		     lim_name(got_lim), lim_name(lim));
	cr_expect_eq(active, blocks < 0 ? 0 : blocks, "active blocks %d, want %d", active, blocks);
	cr_expect(
	    got_occ == occ, "CC %d.%d, %d threads, %d regs, %lld+%lld smem: occupancy %g, want %g",
	    d->cc_major, d->cc_minor, threads, regs, (long long)smem, (long long)dyn, got_occ, occ);
}

static void expect_launch(const struct tkcap_occ_device *d, int threads, int regs, int64_t smem,
			  int64_t dyn, int blocks, enum tkcap_occ_limiter lim, double occ)
{
	expect_launch_of(d, 0, threads, regs, smem, dyn, blocks, lim, occ);
}

static void expect_invalid(const struct tkcap_occ_device *d, int threads, int regs, int64_t smem,
			   int64_t dyn)
{
	expect_launch(d, threads, regs, smem, dyn, -1, TK_OCC_NONE, -1);
}

/*
 * H100 (64 warps, 65536 registers in 4 sub-partitions of 16384, 228 KiB, 1 KiB reserved,
 * 128-byte shared memory unit, 32 blocks): per warp, registers are regs * 32 rounded up to 256.
 */
Test(occupancy, h100_by_hand)
{
	/*
	 * 256 threads = 8 warps: warps 64 / 8 = 8; registers 32 * 32 = 1024 per warp, 16384 /
	 * 1024 = 16 warps per sub-partition, 64 / 8 = 8 (a tie: warps are reported first);
	 * shared memory 1024 (reserved) per block, 233472 / 1024 = 228. 8 * 8 warps = 64 / 64.
	 */
	expect_launch(&h100, 256, 32, 0, 0, 8, TK_OCC_WARPS, 1.0);
	/*
	 * 1024 threads = 32 warps, 64 registers: 2048 per warp, 65536 per block (just fits the
	 * per-block limit), 16384 / 2048 = 8 warps per sub-partition, 32 / 32 = 1 block; warps
	 * would allow 2. 32 warps / 64 = 0.5.
	 */
	expect_launch(&h100, 1024, 64, 0, 0, 1, TK_OCC_REGISTERS, 0.5);
	/*
	 * 128 threads = 4 warps, 32 registers: warps 16, registers 64 / 4 = 16; shared memory
	 * 20000 + 20000 + 1024 = 41024, rounded to 128: 41088; 233472 / 41088 = 5.68 -> 5.
	 * 5 * 4 = 20 warps / 64 = 0.3125.
	 */
	expect_launch(&h100, 128, 32, 20000, 20000, 5, TK_OCC_SMEM, 0.3125);
	/*
	 * 32 threads = 1 warp, 16 registers: warps 64, registers 512 per warp -> 32 per
	 * sub-partition -> 128, shared memory 228: the SM's 32 blocks bound it. 32 / 64 = 0.5.
	 */
	expect_launch(&h100, 32, 16, 0, 0, 32, TK_OCC_BLOCKS, 0.5);
	/*
	 * Register granularity: 33 registers * 32 = 1056 per warp, allocated as 1280 (5 units);
	 * 16384 / 1280 = 12 warps per sub-partition, 48 / 8 = 6 blocks. Unrounded, 16384 / 1056
	 * = 15 -> 60 / 8 = 7 blocks. 6 * 8 = 48 warps / 64 = 0.75; 40 registers fill the same
	 * allocation.
	 */
	expect_launch(&h100, 256, 33, 0, 0, 6, TK_OCC_REGISTERS, 0.75);
	expect_launch(&h100, 256, 40, 0, 0, 6, TK_OCC_REGISTERS, 0.75);
	/*
	 * 100 threads still take 4 whole warps: warps 64 / 4 = 16 blocks, 16 * 4 = 64 warps = 1.0
	 * (occupancy counts the allocated warps, not the 1600 threads).
	 */
	expect_launch(&h100, 100, 0, 0, 0, 16, TK_OCC_WARPS, 1.0);
	/*
	 * 256 registers per thread are allowed from Volta on: 8192 per warp, 16384 / 8192 = 2
	 * warps per sub-partition, 8 blocks of 1 warp = 8 / 64 = 0.125. 257 do not fit: 0.
	 */
	expect_launch(&h100, 32, 256, 0, 0, 8, TK_OCC_REGISTERS, 0.125);
	expect_launch(&h100, 32, 257, 0, 0, 0, TK_OCC_REGISTERS, 0.0);
	/* 1024 threads * 65 registers: 2080 -> 2304 per warp, * 32 = 73728 > 65536: 0. */
	expect_launch(&h100, 1024, 65, 0, 0, 0, TK_OCC_REGISTERS, 0.0);
}

/*
 * Launches that the calculator accepts but that cannot be resident: 0 blocks, occupancy 0
 * (not -1), and the per-block shared memory limit is the default 48 KiB plus the reservation,
 * not the opt-in size, for a function that did not opt in (see h100_opted_in_shared_memory).
 */
Test(occupancy, h100_launches_that_do_not_fit)
{
	/* 1025 threads > 1024 per block: no warp slots. */
	expect_launch(&h100, 1025, 32, 0, 0, 0, TK_OCC_WARPS, 0.0);
	/* 49152 + 1024 = 50176 = 48 KiB + 1 KiB, the limit: 233472 / 50176 = 4.65 -> 4. */
	expect_launch(&h100, 128, 32, 49152, 0, 4, TK_OCC_SMEM, 4 * 4 / 64.0);
	expect_launch(&h100, 128, 32, 0, 49152, 4, TK_OCC_SMEM, 4 * 4 / 64.0);
	/* One byte more: 50177 -> 50304 > 50176. */
	expect_launch(&h100, 128, 32, 49153, 0, 0, TK_OCC_SMEM, 0.0);
	expect_launch(&h100, 128, 32, 100000, 0, 0, TK_OCC_SMEM, 0.0);
	/* Above the opt-in limit (232448) too. */
	expect_launch(&h100, 128, 32, 0, 232449, 0, TK_OCC_SMEM, 0.0);
}

/*
 * A function that opted in (cudaFuncSetAttribute MaxDynamicSharedMemorySize; CUPTI's
 * shmemLimitConfig OPTIN) may use up to the opt-in size: kernels with 100 KB of dynamic
 * shared memory ran, and have an occupancy.
 */
Test(occupancy, h100_opted_in_shared_memory)
{
	/* 102400 + 1024 = 103424 (a multiple of 128); limit 232448 + 1024; 233472 / 103424 = 2.
	 * 2 blocks of 8 warps = 16 / 64 = 0.25. Without the opt-in: 0. */
	expect_launch_of(&h100, 1, 256, 32, 0, 102400, 2, TK_OCC_SMEM, 0.25);
	expect_launch_of(&h100, 0, 256, 32, 0, 102400, 0, TK_OCC_SMEM, 0.0);
	/* the whole opt-in size: 232448 + 1024 = 233472, one block of 4 warps = 4 / 64 */
	expect_launch_of(&h100, 1, 128, 32, 1000, 231448, 1, TK_OCC_SMEM, 4 / 64.0);
	/* one byte more does not fit, opted in or not */
	expect_launch_of(&h100, 1, 128, 32, 1000, 231449, 0, TK_OCC_SMEM, 0.0);
	/* within the default limit the opt-in changes nothing */
	expect_launch_of(&h100, 1, 128, 32, 20000, 20000, 5, TK_OCC_SMEM, 0.3125);
}

/* A100 (64 warps, 65536 registers, 164 KiB, 1 KiB reserved, 128-byte unit, 32 blocks). */
Test(occupancy, a100_by_hand)
{
	/* As on the H100: warps bound 256-thread blocks of 32 registers. */
	expect_launch(&a100, 256, 32, 0, 0, 8, TK_OCC_WARPS, 1.0);
	expect_launch(&a100, 1024, 64, 0, 0, 1, TK_OCC_REGISTERS, 0.5);
	/*
	 * 32 KiB dynamic + 1 KiB reserved = 33792 (264 units): 167936 / 33792 = 4.97 -> 4 blocks
	 * of 8 warps = 0.5. On the H100's 228 KiB the same launch gets 233472 / 33792 = 6.
	 */
	expect_launch(&a100, 256, 32, 0, 32768, 4, TK_OCC_SMEM, 0.5);
	expect_launch(&h100, 256, 32, 0, 32768, 6, TK_OCC_SMEM, 0.75);
	/* 32-thread blocks: warps 64, registers 64, shared memory 167936 / 1024 = 164: 32. */
	expect_launch(&a100, 32, 32, 0, 0, 32, TK_OCC_BLOCKS, 0.5);
	/* 48 KiB static + 1 KiB = 50176 fits: 167936 / 50176 = 3.35 -> 3 blocks of 4 warps. */
	expect_launch(&a100, 128, 32, 49152, 0, 3, TK_OCC_SMEM, 12 / 64.0);
	expect_launch(&a100, 128, 32, 49153, 0, 0, TK_OCC_SMEM, 0.0);
}

/* V100 (64 warps, 65536 registers, 96 KiB, nothing reserved, 256-byte unit, 32 blocks). */
Test(occupancy, v100_by_hand)
{
	/* No registers, no shared memory: only warps (64 / 4 = 16) and blocks (32) bound it. */
	expect_launch(&v100, 128, 0, 0, 0, 16, TK_OCC_WARPS, 1.0);
	/*
	 * 13900 bytes in 256-byte units = 14080: 98304 / 14080 = 6.98 -> 6 blocks (in Ampere's
	 * 128-byte units it would be 13952 -> 7). Warps 32, registers 32. 6 * 2 / 64 = 0.1875.
	 */
	expect_launch(&v100, 64, 32, 0, 13900, 6, TK_OCC_SMEM, 0.1875);
	/* No reservation before Ampere: 49152 is exactly the limit, 98304 / 49152 = 2. */
	expect_launch(&v100, 128, 32, 49152, 0, 2, TK_OCC_SMEM, 8 / 64.0);
	expect_launch(&v100, 128, 32, 49153, 0, 0, TK_OCC_SMEM, 0.0);
	/* Same register rounding as on the H100. */
	expect_launch(&v100, 256, 33, 0, 0, 6, TK_OCC_REGISTERS, 0.75);
	expect_launch(&v100, 32, 16, 0, 0, 32, TK_OCC_BLOCKS, 0.5);
}

/* The resident block limit is the architecture's, as in cuda_occupancy.h, not the record's. */
Test(occupancy, block_limit_is_the_architectures)
{
	struct tkcap_occ_device d = h100;

	d.max_blocks_per_sm = 16;
	expect_launch(&d, 32, 16, 0, 0, 32, TK_OCC_BLOCKS, 0.5);
	d.max_blocks_per_sm = 0;
	expect_launch(&d, 32, 16, 0, 0, 32, TK_OCC_BLOCKS, 0.5);
	/* CC 7.5 (Turing) has 16, with 1024 threads per SM: 16 blocks of 1 warp = 0.5. */
	d = v100;
	d.cc_minor = 5;
	d.max_threads_per_sm = 1024;
	d.smem_per_sm = 65536;
	expect_launch(&d, 32, 16, 0, 0, 16, TK_OCC_BLOCKS, 0.5);
}

Test(occupancy, invalid_inputs)
{
	/* Launch values out of range. */
	expect_invalid(&h100, 0, 32, 0, 0);
	expect_invalid(&h100, -32, 32, 0, 0);
	expect_invalid(&h100, INT_MIN, 32, 0, 0);
	expect_invalid(&h100, 256, -1, 0, 0);
	expect_invalid(&h100, 256, INT_MIN, 0, 0);
	expect_invalid(&h100, 256, 32, -1, 0);
	expect_invalid(&h100, 256, 32, 0, -1);
	expect_invalid(&h100, 256, 32, INT64_MIN, INT64_MIN);
	/* So large that the calculator's int arithmetic would overflow. */
	expect_invalid(&h100, INT_MAX, 32, 0, 0);
	expect_invalid(&h100, 256, INT_MAX, 0, 0);
	expect_invalid(&h100, 1024, 10000000, 0, 0);
	expect_invalid(&h100, 256, 32, 0, INT64_MAX);
	expect_invalid(&h100, 256, 32, INT64_MAX, INT64_MAX);
	expect_invalid(&h100, 256, 32, INT_MAX, 0);
	/* But not merely beyond the limits: those are launches that do not fit. */
	expect_launch(&h100, 1 << 20, 32, 0, 0, 0, TK_OCC_WARPS, 0.0);
	expect_launch(&h100, 32, 1000, 0, 0, 0, TK_OCC_REGISTERS, 0.0);
	expect_launch(&h100, 32, 0, 1 << 30, 0, 0, TK_OCC_SMEM, 0.0);

	/* Compute capabilities the calculator does not know. */
	static const int unknown[][2] = {{1, 0},  {2, 0},  {4, 0}, {13, 0}, {10, 2},
					 {11, 2}, {12, 2}, {0, 0}, {-1, 0}, {INT_MAX, 0}};
	for (size_t i = 0; i < sizeof(unknown) / sizeof(unknown[0]); i++) {
		struct tkcap_occ_device d = h100;

		d.cc_major = unknown[i][0];
		d.cc_minor = unknown[i][1];
		expect_invalid(&d, 256, 32, 0, 0);
	}

	/* Limits missing or out of range. */
	struct tkcap_occ_device d;
#define WITH(field, value)                         \
	do {                                       \
		d = h100;                          \
		d.field = (value);                 \
		expect_invalid(&d, 256, 32, 0, 0); \
	} while (0)
	WITH(sm_count, 0);
	WITH(max_threads_per_block, 0);
	WITH(max_threads_per_sm, 0);
	WITH(max_threads_per_sm, -2048);
	WITH(regs_per_block, 0);
	WITH(regs_per_sm, -1);
	WITH(smem_per_block, 0);
	WITH(smem_per_block, -49152);
	WITH(smem_per_sm, 0);
	WITH(smem_per_sm, INT64_MIN);
	WITH(smem_per_sm, INT64_MAX);
	WITH(reserved_smem_per_block, -1);
	WITH(reserved_smem_per_block, INT64_MAX);
	/* More shared memory per SM than any CC 9.0 configuration (228 KiB). */
	WITH(smem_per_sm, 228 * 1024 + 1);
#undef WITH
	/* The opt-in size does not enter the default-limit calculation. */
	d = h100;
	d.smem_per_block_optin = -1;
	expect_launch(&d, 256, 32, 0, 0, 8, TK_OCC_WARPS, 1.0);

	/* NULL out-parameters are allowed. */
	cr_expect_eq(tkcap_occupancy_active_blocks(&h100, 256, 32, 0, 0, 0, NULL), 8);
	cr_expect(tkcap_occupancy(&h100, 256, 32, 0, 0, 0, NULL) == 1.0);
	cr_expect_eq(tkcap_occupancy_active_blocks(NULL, 256, 32, 0, 0, 0, NULL), -1);
}

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t rnd64(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static uint32_t rnd(uint32_t n)
{
	return (uint32_t)((rnd64() >> 16) % n);
}

/* An int that is often an edge: 0, ±1, the extremes, or anything. */
static int hostile_int(void)
{
	static const int edges[] = {0,	  1,	 -1,	  32,	   255,		 256,
				    1024, 65536, INT_MAX, INT_MIN, INT_MAX - 31, INT_MAX / 32};

	return rnd(3) ? edges[rnd(sizeof(edges) / sizeof(edges[0]))] : (int)(uint32_t)rnd64();
}

static int64_t hostile_i64(void)
{
	static const int64_t edges[] = {
	    0,	       1,	 -1, 1024, 49152, 233472, INT_MAX, INT_MIN, (int64_t)INT_MAX + 1,
	    INT64_MAX, INT64_MIN};

	return rnd(3) ? edges[rnd(sizeof(edges) / sizeof(edges[0]))] : (int64_t)rnd64();
}

/*
 * Extreme values anywhere (run under -fsanitize=undefined to see that nothing overflows):
 * blocks -1 or within the largest architectural limit (32), occupancy -1 or within 0..1.
 */
Test(occupancy, hostile_inputs_stay_in_range)
{
	for (int i = 0; i < 200000; i++) {
		struct tkcap_occ_device d = h100;

		switch (rnd(4)) {
		case 0:
			d.cc_major = hostile_int();
			d.cc_minor = hostile_int();
			break;
		case 1:
			d.max_threads_per_block = hostile_int();
			d.max_threads_per_sm = hostile_int();
			d.regs_per_block = hostile_int();
			d.regs_per_sm = hostile_int();
			break;
		case 2:
			d.smem_per_block = hostile_i64();
			d.smem_per_sm = hostile_i64();
			d.reserved_smem_per_block = hostile_i64();
			d.smem_per_block_optin = hostile_i64();
			break;
		}
		int threads = hostile_int(), regs = hostile_int();
		int64_t st = hostile_i64(), dyn = hostile_i64();
		enum tkcap_occ_limiter lim;
		int n = tkcap_occupancy_active_blocks(&d, threads, regs, st, dyn, 0, &lim);
		int active = -2;
		double occ = tkcap_occupancy(&d, threads, regs, st, dyn, 0, &active);

		cr_assert(n >= -1 && n <= 32 && (n < 0) == (lim == TK_OCC_NONE),
			  "%d blocks (%s) for CC %d.%d, %d threads, %d regs, %lld+%lld smem", n,
			  lim_name(lim), d.cc_major, d.cc_minor, threads, regs, (long long)st,
			  (long long)dyn);
		cr_assert(n < 0 ? occ == -1 && active == 0 : occ >= 0 && occ <= 1 && active == n,
			  "occupancy %g, %d active for %d blocks", occ, active, n);
	}
}

#ifndef TK_HAVE_CUDA_OCC

Test(occupancy, matches_cuda_occupancy_h)
{
	cr_skip_test("cuda_occupancy.h was not found at build time (no CUDA toolkit): the "
		     "comparison with NVIDIA's calculator is not built");
}

#else

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wshadow"
#pragma GCC diagnostic ignored "-Wstrict-prototypes"
#include <cuda_occupancy.h>
#pragma GCC diagnostic pop

/* NVIDIA's answer, called as tracekit's CUPTI decoder called it; -1 for an error. */
static int nv_blocks(const struct tkcap_occ_device *d, int threads, int regs, int64_t smem,
		     int64_t dyn, int optin, unsigned *factors)
{
	cudaOccDeviceProp p;
	cudaOccFuncAttributes a;
	cudaOccDeviceState s;
	cudaOccResult res;

	memset(&p, 0, sizeof(p));
	p.computeMajor = d->cc_major;
	p.computeMinor = d->cc_minor;
	p.maxThreadsPerBlock = d->max_threads_per_block;
	p.maxThreadsPerMultiprocessor = d->max_threads_per_sm;
	p.regsPerBlock = d->regs_per_block;
	p.regsPerMultiprocessor = d->regs_per_sm;
	p.warpSize = 32;
	p.sharedMemPerBlock = (size_t)d->smem_per_block;
	p.sharedMemPerMultiprocessor = (size_t)d->smem_per_sm;
	p.numSms = d->sm_count;
	p.sharedMemPerBlockOptin = (size_t)d->smem_per_block_optin;
	p.reservedSharedMemPerBlock = (size_t)d->reserved_smem_per_block;
	memset(&a, 0, sizeof(a));
	a.maxThreadsPerBlock = 1 << 30;
	a.numRegs = regs;
	a.sharedSizeBytes = (size_t)smem;
	a.partitionedGCConfig = PARTITIONED_GC_OFF;
	/* an opted-in function's maximum dynamic size is the launch's (what it must have set) */
	a.shmemLimitConfig = optin ? FUNC_SHMEM_LIMIT_OPTIN : FUNC_SHMEM_LIMIT_DEFAULT;
	a.maxDynamicSharedSizeBytes = optin ? (size_t)dyn : 0;
	a.numBlockBarriers = 1;
	memset(&s, 0, sizeof(s));
	s.cacheConfig = CACHE_PREFER_NONE;
	s.carveoutConfig = SHAREDMEM_CARVEOUT_DEFAULT;
	memset(&res, 0, sizeof(res));
	if (cudaOccMaxActiveBlocksPerMultiprocessor(&res, &p, &a, &s, threads, (size_t)dyn) !=
	    CUDA_OCC_SUCCESS)
		return -1;
	*factors = res.limitingFactors;
	return res.activeBlocksPerMultiprocessor;
}

static unsigned nv_factor(enum tkcap_occ_limiter l)
{
	switch (l) {
	case TK_OCC_WARPS:
		return OCC_LIMIT_WARPS;
	case TK_OCC_REGISTERS:
		return OCC_LIMIT_REGISTERS;
	case TK_OCC_SMEM:
		return OCC_LIMIT_SHARED_MEMORY;
	case TK_OCC_BLOCKS:
		return OCC_LIMIT_BLOCKS;
	default:
		return 0;
	}
}

struct cmp {
	int optin; /* the launches' shared memory limit configuration */
	long points, errors, zeros, mismatches;
	char first[512];
};

/* One launch through both; a mismatch in blocks or in the limiter is recorded. */
static void compare(struct cmp *c, const struct tkcap_occ_device *d, int threads, int regs,
		    int64_t smem, int64_t dyn)
{
	enum tkcap_occ_limiter lim;
	unsigned factors = 0;
	int ours = tkcap_occupancy_active_blocks(d, threads, regs, smem, dyn, c->optin, &lim);
	int theirs = nv_blocks(d, threads, regs, smem, dyn, c->optin, &factors);
	int bad = ours != theirs || (ours >= 0 && !(factors & nv_factor(lim)));

	c->points++;
	c->errors += theirs < 0;
	c->zeros += theirs == 0;
	if (!bad)
		return;
	if (!c->mismatches++)
		snprintf(c->first, sizeof(c->first),
			 "CC %d.%d sms %d threads/block %d threads/sm %d regs/block %d regs/sm %d "
			 "smem/block %lld smem/sm %lld optin %lld reserved %lld; launch %d threads "
			 "%d regs %lld static %lld dynamic: tk %d (%s), cuda_occupancy.h %d "
			 "(factors 0x%x)",
			 d->cc_major, d->cc_minor, d->sm_count, d->max_threads_per_block,
			 d->max_threads_per_sm, d->regs_per_block, d->regs_per_sm,
			 (long long)d->smem_per_block, (long long)d->smem_per_sm,
			 (long long)d->smem_per_block_optin, (long long)d->reserved_smem_per_block,
			 threads, regs, (long long)smem, (long long)dyn, ours, lim_name(lim),
			 theirs, factors);
}

#define DEV(maj, min, sms, tpb, tps, blocks, smem_sm, optin, reserved)                        \
	{                                                                                     \
		.cc_major = (maj), .cc_minor = (min), .sm_count = (sms),                      \
		.max_threads_per_block = (tpb), .max_threads_per_sm = (tps),                  \
		.regs_per_block = 65536, .regs_per_sm = 65536, .max_blocks_per_sm = (blocks), \
		.smem_per_block = 49152, .smem_per_sm = (smem_sm),                            \
		.smem_per_block_optin = (optin), .reserved_smem_per_block = (reserved),       \
	}

/*
 * The three devices above, and limits from NVIDIA's documentation for CC 8.6 (RTX 3090),
 * 8.9 (RTX 4090), 10.0 (B200) and 12.0 (RTX 5090), plus Turing, Pascal and compute
 * capabilities cuda_occupancy.h rejects (both must reject).
 */
static const struct tkcap_occ_device sweep_devices[] = {
    DEV(9, 0, 132, 1024, 2048, 32, 233472, 232448, 1024),
    DEV(8, 0, 108, 1024, 2048, 32, 167936, 166912, 1024),
    DEV(7, 0, 80, 1024, 2048, 32, 98304, 98304, 0),
    DEV(8, 6, 82, 1024, 1536, 16, 102400, 101376, 1024),
    DEV(8, 9, 128, 1024, 1536, 24, 102400, 101376, 1024),
    DEV(10, 0, 148, 1024, 2048, 32, 233472, 232448, 1024),
    DEV(12, 0, 170, 1024, 1536, 24, 102400, 101376, 1024),
    DEV(7, 5, 40, 1024, 1024, 16, 65536, 65536, 0),
    DEV(6, 0, 56, 1024, 2048, 32, 65536, 49152, 0),
    DEV(10, 2, 148, 1024, 2048, 32, 233472, 232448, 1024),
    DEV(13, 0, 148, 1024, 2048, 32, 233472, 232448, 1024),
};

Test(occupancy, matches_cuda_occupancy_h)
{
	struct cmp c = {0};
	int threads[256], nthreads = 0;
	int64_t smem[64];

	/* 1..40, then non-multiples of 32 and multiples of 32 to 1024, and two too many */
	for (int t = 1; t <= 40; t++)
		threads[nthreads++] = t;
	for (int t = 41; t <= 1024; t += 11)
		threads[nthreads++] = t;
	for (int t = 64; t <= 1024; t += 32)
		threads[nthreads++] = t;
	threads[nthreads++] = 1025;
	threads[nthreads++] = 2048;

	for (size_t i = 0; i < 2 * sizeof(sweep_devices) / sizeof(sweep_devices[0]); i++) {
		const struct tkcap_occ_device *d = &sweep_devices[i / 2];
		c.optin = i % 2; /* each device with the default and the opt-in limit */
		int64_t limit = d->smem_per_block - d->reserved_smem_per_block;
		int64_t top = d->smem_per_block_optin + 4096;
		int nsmem = 0;

		/* Dense up to the default per-block limit, sparse from there past the opt-in one. */
		for (int k = 0; k < 28; k++)
			smem[nsmem++] = (limit + 2048) * k / 27 + k % 5 * 37;
		for (int k = 1; k <= 8; k++)
			smem[nsmem++] = limit + (top - limit) * k / 8;
		static const int64_t edges[] = {-1, 0, 1, 127, 128, 255, 256};
		for (size_t e = 0; e < sizeof(edges) / sizeof(edges[0]); e++)
			smem[nsmem++] = limit + edges[e];
		smem[nsmem++] = d->smem_per_block_optin;
		smem[nsmem++] = d->smem_per_block_optin + 1;

		/* A grid of all three. */
		for (int t = 0; t < nthreads; t++)
			for (int regs = 0; regs <= 258; regs += regs < 250 ? 13 : 1)
				for (int s = 0; s < nsmem; s++) {
					/* split between static and dynamic three ways */
					int64_t st = (s + t + regs) % 3 == 0   ? smem[s]
						     : (s + t + regs) % 3 == 1 ? 0
									       : smem[s] / 2;

					compare(&c, d, threads[t], regs, st, smem[s] - st);
				}
		/* Every register count, with and without shared memory. */
		for (int t = 1; t <= 1024; t += 7)
			for (int regs = 0; regs <= 258; regs++) {
				compare(&c, d, t, regs, 0, 0);
				compare(&c, d, t, regs, 4000, 9000);
			}
		/* Shared memory in odd steps, so that each allocation unit boundary is crossed. */
		static const int few_threads[] = {1, 32, 96, 128, 256, 1000};
		static const int few_regs[] = {0, 32, 100};
		for (int64_t b = 0; b <= top; b += 97)
			for (size_t t = 0; t < sizeof(few_threads) / sizeof(few_threads[0]); t++)
				for (size_t r = 0; r < sizeof(few_regs) / sizeof(few_regs[0]); r++)
					compare(&c, d, few_threads[t], few_regs[r], b / 3,
						b - b / 3);
	}
	cr_log_info("occupancy sweep: %ld points, %ld rejected by both, %ld of 0 blocks", c.points,
		    c.errors, c.zeros);
	cr_assert_eq(c.mismatches, 0, "%ld of %ld points differ; first: %s", c.mismatches, c.points,
		     c.first);
	cr_expect_gt(c.points, 100000);
}

static int pick(const int *v, size_t n)
{
	return v[rnd((uint32_t)n)];
}

#define PICK(v) pick((v), sizeof(v) / sizeof((v)[0]))

/*
 * Random device descriptions, valid or not (odd compute capabilities and minors, shared
 * memory per SM smaller than the per-block limit, registers per block below those per SM,
 * no threads), each with a few random launches: same answer from both.
 */
Test(occupancy, random_devices_match_cuda_occupancy_h)
{
	static const int ccs[][2] = {
	    {3, 0},  {3, 5},  {3, 7},  {5, 0},	{5, 2},	 {5, 3},  {6, 0},  {6, 1},
	    {6, 2},  {7, 0},  {7, 2},  {7, 5},	{8, 0},	 {8, 6},  {8, 7},  {8, 8},
	    {8, 9},  {8, 1},  {9, 0},  {9, 5},	{10, 0}, {10, 1}, {10, 2}, {10, 3},
	    {11, 0}, {11, 1}, {11, 3}, {11, 5}, {12, 0}, {12, 1}, {12, 2}, {13, 0},
	    {2, 0},  {4, 0},  {1, 0},  {0, 0},	{-1, 0}, {9, -1},
	};
	static const int tpb[] = {64, 256, 512, 1000, 1024, 2048};
	static const int tps[] = {16, 31, 32, 1000, 1024, 1536, 2048, 4096};
	static const int rpb[] = {1000, 32768, 65536, 131072};
	static const int rps[] = {1000, 32768, 65536, 65537, 131072};
	static const int kib[] = {8, 16, 32, 48, 64, 96, 100, 132, 164, 196, 228, 256};
	static const int resv[] = {0, 0, 1024, 1024, 1, 4096};
	struct cmp c = {0};

	for (int i = 0; i < 40000; i++) {
		struct tkcap_occ_device d;
		int k = (int)rnd(sizeof(ccs) / sizeof(ccs[0]));

		memset(&d, 0, sizeof(d));
		d.cc_major = ccs[k][0];
		d.cc_minor = ccs[k][1];
		d.sm_count = rnd(2) ? 132 : 1;
		d.max_threads_per_block = PICK(tpb);
		d.max_threads_per_sm = PICK(tps);
		d.regs_per_block = PICK(rpb);
		d.regs_per_sm = PICK(rps);
		d.max_blocks_per_sm = 32;
		/* whole KiB (carveout sizes), one byte either side, or anything */
		d.smem_per_block = rnd(2) ? PICK(kib) * 1024 : 1 + (int)rnd(240000);
		d.smem_per_sm = rnd(2) ? PICK(kib) * 1024 + (int)rnd(3) - 1 : 1 + (int)rnd(240000);
		d.reserved_smem_per_block = PICK(resv);
		d.smem_per_block_optin = d.smem_per_sm - d.reserved_smem_per_block;
		if (d.smem_per_block_optin < 0) /* (negative sizes are ours to refuse, see above) */
			d.smem_per_block_optin = 0;
		/* now and then a limit missing */
		switch (rnd(64)) {
		case 0:
			d.sm_count = 0;
			break;
		case 1:
			d.max_threads_per_block = 0;
			break;
		case 2:
			d.max_threads_per_sm = 0;
			break;
		case 3:
			d.regs_per_block = 0;
			break;
		case 4:
			d.regs_per_sm = 0;
			break;
		case 5:
			d.smem_per_block = 0;
			break;
		case 6:
			d.smem_per_sm = 0;
			break;
		}
		for (int j = 0; j < 5; j++) {
			int threads = rnd(100) ? 1 + (int)rnd(2100) : -(int)rnd(3);
			int regs = rnd(100) ? (int)rnd(300) : -1;
			int64_t st = rnd(3) ? rnd(60000) : 0;
			int64_t dyn = rnd(3) == 0 ? 0 : rnd(2) ? rnd(60000) : rnd(240000);

			c.optin = (int)rnd(2);
			compare(&c, &d, threads, regs, st, dyn);
		}
	}
	cr_log_info("occupancy random search: %ld points, %ld rejected by both, %ld of 0 blocks",
		    c.points, c.errors, c.zeros);
	cr_assert_eq(c.mismatches, 0, "%ld of %ld points differ; first: %s", c.mismatches, c.points,
		     c.first);
}

#endif

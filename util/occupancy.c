/*
 * Theoretical occupancy (resident blocks per SM) of a kernel launch from the device's limits,
 * following the rules of NVIDIA's occupancy calculator (cuda_occupancy.h, CUDA 13) for the
 * launch description tracekit has, but in 64-bit arithmetic and without the CUDA toolkit.
 * The blocks per SM are the least of four limits: warp slots, registers, shared memory and the
 * architecture's resident block count. See util/occupancy.h for what 0 and -1 mean.
 */
#include <limits.h>
#include <stddef.h>

#include "util/occupancy.h"

#define TKU_OCC_WARP 32		  /* threads per warp */
#define TKU_OCC_REG_UNIT 256	  /* registers are given to a warp in multiples of this */
#define TKU_OCC_UNLIMITED INT_MAX /* the limit of a resource the launch does not use */

/* Shared memory sizes an SM can be configured with (KiB), smallest first. */
static const int tku_occ_smem_volta[] = {0, 8, 16, 32, 64, 96};
static const int tku_occ_smem_turing[] = {32, 64};
static const int tku_occ_smem_ga100[] = {0, 8, 16, 32, 64, 100, 132, 164};
static const int tku_occ_smem_100k[] = {0, 8, 16, 32, 64, 100};
static const int tku_occ_smem_228k[] = {0, 8, 16, 32, 64, 100, 132, 164, 196, 228};

/* What the compute capability fixes. */
struct tku_occ_arch {
	int max_regs;	       /* registers per thread */
	int partitions;	       /* SM sub-partitions the register file is split over */
	int check_partitions;  /* GP100: the launch must also fit with this many, or 0 */
	int smem_unit;	       /* shared memory allocation unit (bytes) */
	int max_blocks;	       /* resident blocks per SM */
	int reserved_in_limit; /* the driver's reservation is added to the per-block limit */
	const int *carveout;   /* configurable SM shared memory sizes; NULL: fixed size */
	int ncarveout;
};

#define tku_occ_set_carveout(a, t)                                  \
	do {                                                        \
		(a)->carveout = (t);                                \
		(a)->ncarveout = (int)(sizeof(t) / sizeof((t)[0])); \
	} while (0)

/*
 * The architecture of compute capability @major.@minor; -1 for one the calculator does not
 * know. Blocks whose only barrier is __syncthreads() never run out of barriers (each SM has at
 * least one per resident block), so there is no barrier limit here.
 */
static int tku_occ_arch_get(int major, int minor, struct tku_occ_arch *a)
{
	a->max_regs = 256;
	a->partitions = 4;
	a->check_partitions = 0;
	a->smem_unit = 128;
	a->reserved_in_limit = major >= 8;
	a->carveout = NULL;
	a->ncarveout = 0;

	switch (major) {
	case 3: /* Kepler: shared memory fixed (no cache preference given) */
	case 5: /* Maxwell */
	case 6: /* Pascal */
		a->max_regs = 255;
		a->smem_unit = 256;
		a->max_blocks = major == 3 ? 16 : 32;
		if (major == 6 && minor == 0) {
			/* GP100 has two sub-partitions, but a launch must also fit GP10x's four */
			a->partitions = 2;
			a->check_partitions = 4;
		}
		return 0;
	case 7: /* Volta, Turing (7.5) */
		a->smem_unit = 256;
		a->max_blocks = minor == 5 ? 16 : 32;
		if (minor == 5)
			tku_occ_set_carveout(a, tku_occ_smem_turing);
		else
			tku_occ_set_carveout(a, tku_occ_smem_volta);
		return 0;
	case 8: /* Ampere, Ada (8.9) */
		a->max_blocks = minor == 0 ? 32 : minor == 9 ? 24 : 16;
		if (minor == 0 || minor == 7)
			tku_occ_set_carveout(a, tku_occ_smem_ga100);
		else
			tku_occ_set_carveout(a, tku_occ_smem_100k);
		return 0;
	case 9: /* Hopper */
		a->max_blocks = 32;
		tku_occ_set_carveout(a, tku_occ_smem_228k);
		return 0;
	case 10: /* Blackwell */
	case 11:
		if (minor != 0 && minor != 1 && minor != 3)
			return -1;
		a->max_blocks = minor == (major == 10 ? 1 : 0) ? 24 : 32;
		tku_occ_set_carveout(a, tku_occ_smem_228k);
		return 0;
	case 12: /* Blackwell, GeForce and DGX Spark */
		if (minor != 0 && minor != 1)
			return -1;
		a->max_blocks = 24;
		tku_occ_set_carveout(a, tku_occ_smem_100k);
		return 0;
	default:
		return -1;
	}
}

/*
 * Limits the calculator needs positive (shared memory bounded too: above 2 GiB its sums
 * and quotients no longer fit an int). The block count and opt-in size do not enter: the
 * block limit is the architecture's, and the per-block shared memory limit the default one.
 */
static int tku_occ_device_valid(const struct tku_occ_device *d)
{
	return d->max_threads_per_block > 0 && d->max_threads_per_sm > 0 && d->regs_per_block > 0 &&
	       d->regs_per_sm > 0 && d->sm_count > 0 && d->smem_per_block > 0 &&
	       d->smem_per_block <= INT_MAX && d->smem_per_sm > 0 && d->smem_per_sm <= INT_MAX &&
	       d->reserved_smem_per_block >= 0 && d->reserved_smem_per_block <= INT_MAX;
}

static int64_t tku_occ_round_up(int64_t x, int64_t unit)
{
	return (x + unit - 1) / unit * unit;
}

/* The smallest SM shared memory configuration holding @bytes; -1 when none does. */
static int64_t tku_occ_carveout(const struct tku_occ_arch *a, int64_t bytes)
{
	for (int i = 0; i < a->ncarveout; i++)
		if (bytes <= (int64_t)a->carveout[i] * 1024)
			return (int64_t)a->carveout[i] * 1024;
	return -1;
}

/*
 * Blocks per SM the registers allow over @parts sub-partitions, for blocks of @warps warps
 * of @warp_regs registers each (already in allocation units). Each sub-partition holds whole
 * warps; a block must also pass the per-block check, which counts its warps rounded up to a
 * multiple of the sub-partitions. -1 where NVIDIA's int arithmetic would overflow.
 */
static int64_t tku_occ_reg_blocks(const struct tku_occ_device *d, const struct tku_occ_arch *a,
				  int parts, int regs, int64_t warps, int64_t warp_regs)
{
	int64_t need = warp_regs * tku_occ_round_up(warps, parts);

	if (need > INT_MAX)
		return -1;
	if (need > d->regs_per_block || regs > a->max_regs)
		return 0;
	if (!warp_regs)
		return TKU_OCC_UNLIMITED;
	return d->regs_per_sm / parts / warp_regs * parts / warps;
}

int tku_occupancy_active_blocks(const struct tku_occ_device *d, int block_threads, int regs,
				int64_t static_smem, int64_t dynamic_smem, int optin,
				enum tku_occ_limiter *limiter)
{
	enum tku_occ_limiter why = TKU_OCC_NONE;
	struct tku_occ_arch a;
	int64_t warps, warp_regs, by_warps, by_regs, by_smem, smem, sm_smem, block_limit, best;
	int ret = -1;

	if (!d || !tku_occ_device_valid(d) || tku_occ_arch_get(d->cc_major, d->cc_minor, &a))
		goto out;
	if (optin && (d->smem_per_block_optin < 0 || d->smem_per_block_optin > INT_MAX))
		goto out;
	if (block_threads <= 0 || block_threads > INT_MAX - (TKU_OCC_WARP - 1) || regs < 0 ||
	    regs > (INT_MAX - (TKU_OCC_REG_UNIT - 1)) / TKU_OCC_WARP || static_smem < 0 ||
	    static_smem > INT_MAX || dynamic_smem < 0 || dynamic_smem > INT_MAX)
		goto out;

	/* Warp slots: whole warps per block. */
	warps = ((int64_t)block_threads + TKU_OCC_WARP - 1) / TKU_OCC_WARP;
	if (block_threads > d->max_threads_per_block)
		by_warps = 0;
	else
		by_warps = d->max_threads_per_sm / TKU_OCC_WARP / warps;

	/* Registers: per warp, in allocation units. */
	warp_regs = tku_occ_round_up((int64_t)regs * TKU_OCC_WARP, TKU_OCC_REG_UNIT);
	by_regs = tku_occ_reg_blocks(d, &a, a.partitions, regs, warps, warp_regs);
	if (by_regs > 0 && a.check_partitions) {
		int64_t again =
		    tku_occ_reg_blocks(d, &a, a.check_partitions, regs, warps, warp_regs);

		if (again <= 0)
			by_regs = again;
	}
	if (by_regs < 0)
		goto out;

	/*
	 * Shared memory: the block's static, dynamic and reserved bytes in allocation units,
	 * within the default per-block limit. The SM is configured for all its shared memory
	 * (rounded up to a configuration, which must exist), or before Volta simply has it.
	 */
	sm_smem = d->smem_per_sm;
	if (a.carveout && (sm_smem = tku_occ_carveout(&a, sm_smem)) < 0)
		goto out;
	smem = static_smem + dynamic_smem + d->reserved_smem_per_block;
	if (smem > INT_MAX - (a.smem_unit - 1))
		goto out;
	smem = tku_occ_round_up(smem, a.smem_unit);
	/* An opted-in function (Volta on) may use up to the opt-in size when it needs more than
	 * the default (its bytes counted with the reservation, unrounded). */
	block_limit =
	    optin && a.carveout &&
		    static_smem + dynamic_smem + d->reserved_smem_per_block > d->smem_per_block
		? d->smem_per_block_optin
		: d->smem_per_block;
	block_limit += a.reserved_in_limit ? d->reserved_smem_per_block : 0;
	if (smem > block_limit) {
		by_smem = 0;
	} else {
		/* A block needing more than the SM's size gets a configuration that holds it. */
		if (sm_smem < smem && a.carveout && (sm_smem = tku_occ_carveout(&a, smem)) < 0)
			goto out;
		by_smem = smem ? sm_smem / smem : TKU_OCC_UNLIMITED;
	}

	/* The least limit; on a tie the first of warps, registers, shared memory, blocks. */
	best = by_warps;
	why = TKU_OCC_WARPS;
	if (by_regs < best) {
		best = by_regs;
		why = TKU_OCC_REGISTERS;
	}
	if (by_smem < best) {
		best = by_smem;
		why = TKU_OCC_SMEM;
	}
	if (a.max_blocks < best) {
		best = a.max_blocks;
		why = TKU_OCC_BLOCKS;
	}
	ret = (int)best;
out:
	if (limiter)
		*limiter = why;
	return ret;
}

int tku_occ_device_for_cc(int major, int minor, struct tku_occ_device *d)
{
	/* compute capability, threads per SM, registers per block, shared memory per SM (KiB) */
	static const struct {
		int major, minor, threads, regs_block, smem_kib;
	} t[] = {{5, 0, 2048, 65536, 64},   {5, 2, 2048, 65536, 96},   {5, 3, 2048, 32768, 64},
		 {6, 0, 2048, 65536, 64},   {6, 1, 2048, 65536, 96},   {6, 2, 2048, 32768, 64},
		 {7, 0, 2048, 65536, 96},   {7, 2, 2048, 65536, 96},   {7, 5, 1024, 65536, 64},
		 {8, 0, 2048, 65536, 164},  {8, 6, 1536, 65536, 100},  {8, 7, 1536, 65536, 164},
		 {8, 9, 1536, 65536, 100},  {9, 0, 2048, 65536, 228},  {10, 0, 2048, 65536, 228},
		 {10, 3, 2048, 65536, 228}, {12, 0, 1536, 65536, 100}, {12, 1, 1536, 65536, 100}};
	struct tku_occ_arch a;

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		if (t[i].major != major || t[i].minor != minor ||
		    tku_occ_arch_get(major, minor, &a))
			continue;
		d->cc_major = major;
		d->cc_minor = minor;
		d->sm_count = 1;
		d->max_threads_per_block = 1024;
		d->max_threads_per_sm = t[i].threads;
		d->regs_per_block = t[i].regs_block;
		d->regs_per_sm = 65536;
		d->max_blocks_per_sm = a.max_blocks;
		d->smem_per_block = 48 * 1024;
		d->smem_per_sm = (int64_t)t[i].smem_kib * 1024;
		d->reserved_smem_per_block = major >= 8 ? 1024 : 0;
		d->smem_per_block_optin = d->smem_per_sm - d->reserved_smem_per_block;
		return 0;
	}
	return -1;
}

double tku_occupancy(const struct tku_occ_device *d, int block_threads, int regs,
		     int64_t static_smem, int64_t dynamic_smem, int optin, int *active_blocks)
{
	int n = tku_occupancy_active_blocks(d, block_threads, regs, static_smem, dynamic_smem,
					    optin, NULL);

	if (active_blocks)
		*active_blocks = n > 0 ? n : 0;
	if (n < 0)
		return -1;
	/* n >= 0: the block size and the device's threads per SM are valid */
	int64_t warps = ((int64_t)block_threads + TKU_OCC_WARP - 1) / TKU_OCC_WARP;

	return (double)(n * warps * TKU_OCC_WARP) / d->max_threads_per_sm;
}

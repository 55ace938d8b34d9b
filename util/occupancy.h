/*
 * Theoretical occupancy of a kernel launch on an NVIDIA GPU from the device's limits, with no
 * CUDA toolkit needed at build time. It gives the answer of cuda_occupancy.h (CUDA 13) for the
 * launch description tracekit has: the function's shared memory limit (default, or opted in
 * to the device's per-block maximum, with the launch's dynamic size as its maximum), no cache
 * or carveout preference, one block barrier, partitioned global caching off.
 * A launch the calculator accepts but that does not fit on an SM (more threads than a block
 * may have, more registers or shared memory than a block may use) gives 0 blocks, as there;
 * -1 is kept for what the calculator rejects, for invalid limits and for inputs so large that
 * its 32-bit arithmetic would overflow.
 */
#ifndef TK_UTIL_OCCUPANCY_H
#define TK_UTIL_OCCUPANCY_H

#include <stdint.h>
/* What the occupancy calculation needs to know of a device (CUPTI's device record plus two driver values). */
struct tku_occ_device {
	int cc_major, cc_minor; /* compute capability */
	int sm_count;
	int max_threads_per_block;
	int max_threads_per_sm;
	int regs_per_block; /* registers per block */
	int regs_per_sm;
	int max_blocks_per_sm;
	int64_t smem_per_block;		 /* shared memory per block, default limit (bytes) */
	int64_t smem_per_sm;		 /* shared memory per SM (bytes) */
	int64_t smem_per_block_optin;	 /* opt-in maximum per block (bytes) */
	int64_t reserved_smem_per_block; /* the driver's reservation per block (bytes) */
};
/*
 * tku_occupancy_active_blocks() - resident blocks per SM of a launch of @block_threads threads
 * using @regs registers per thread, @static_smem + @dynamic_smem bytes of shared memory per block,
 * by a function that opted in to more than the default shared memory per block (@optin: CUPTI's
 * shmemLimitConfig is CUPTI_FUNC_SHMEM_LIMIT_OPTIN) or not;
 * -1 when the device limits are unknown/invalid or the launch cannot run at all (the cases where
 * cudaOccMaxActiveBlocksPerMultiprocessor returns an error). *limiter (may be NULL) gets what bounds
 * it: TKU_OCC_WARPS, TKU_OCC_REGISTERS, TKU_OCC_SMEM, TKU_OCC_BLOCKS (the SM's block limit).
 */
enum tku_occ_limiter {
	TKU_OCC_NONE,
	TKU_OCC_WARPS,
	TKU_OCC_REGISTERS,
	TKU_OCC_SMEM,
	TKU_OCC_BLOCKS
};
int tku_occupancy_active_blocks(const struct tku_occ_device *d, int block_threads, int regs,
				int64_t static_smem, int64_t dynamic_smem, int optin,
				enum tku_occ_limiter *limiter);
/*
 * tku_occ_device_for_cc() - the limits NVIDIA documents for compute capability @major.@minor
 * (CUDA C++ Programming Guide, "Technical Specifications per Compute Capability": threads,
 * registers and shared memory per SM and per block; the driver's 1 KiB reservation per block
 * from 8.0 on, as cupti_device.c assumes), for traces that give the capability but not the
 * limits; sm_count is 1. -1 (and @d untouched) for a capability not in the table.
 */
int tku_occ_device_for_cc(int major, int minor, struct tku_occ_device *d);

/* tku_occupancy() - theoretical occupancy 0..1: active warps / max warps per SM; -1 as above. */
double tku_occupancy(const struct tku_occ_device *d, int block_threads, int regs,
		     int64_t static_smem, int64_t dynamic_smem, int optin, int *active_blocks);

#endif

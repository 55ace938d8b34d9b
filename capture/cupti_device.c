/*
 * CUPTI device records into store devices, and theoretical occupancy per kernel launch with
 * NVIDIA's header-only calculator (cuda_occupancy.h), as Kineto computes it. The device state
 * is set explicitly (carveout DEFAULT): a zeroed C struct would mean "max L1" and give a
 * different answer from the C++ default (notes/nsys-cupti.md section 4.6).
 */
#include <stdio.h>
#include <string.h>

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wshadow"
#pragma GCC diagnostic ignored "-Wstrict-prototypes"
#include <cuda_occupancy.h>
#pragma GCC diagnostic pop

#include "cupti_decode.h"

void tk_cupti_device_from_record(const CUpti_ActivityDevice5 *r, struct tk_cupti_device *dev,
				 struct tk_device_info *info, char *cc, size_t cclen)
{
	snprintf(cc, cclen, "%u.%u", r->computeCapabilityMajor, r->computeCapabilityMinor);
	dev->known = 1;
	dev->cc_major = (int)r->computeCapabilityMajor;
	dev->cc_minor = (int)r->computeCapabilityMinor;
	dev->sm_count = (int)r->numMultiprocessors;
	dev->max_threads_per_block = (int)r->maxThreadsPerBlock;
	uint32_t warp = r->numThreadsPerWarp ? r->numThreadsPerWarp : 32;
	dev->max_threads_per_sm = (int)(r->maxWarpsPerMultiprocessor * warp);
	dev->regs_per_block = (int)r->maxRegistersPerBlock;
	dev->regs_per_sm = (int)r->maxRegistersPerMultiprocessor;
	dev->max_blocks_per_sm = (int)r->maxBlocksPerMultiprocessor;
	dev->smem_per_block = r->maxSharedMemoryPerBlock;
	dev->smem_per_sm = r->maxSharedMemoryPerMultiprocessor;
	/* Not in the record: the driver's values replace these (tk_cupti_decoder_set_limits). */
	if (!dev->reserved_smem_per_block)
		dev->reserved_smem_per_block = dev->cc_major >= 8 ? 1024 : 0;
	if (!dev->smem_per_block_optin)
		dev->smem_per_block_optin = dev->smem_per_sm - dev->reserved_smem_per_block;
	memset(info, 0, sizeof(*info));
	info->ordinal = r->id;
	info->kind = "gpu";
	info->name = r->name;
	info->vendor = "nvidia";
	info->process_id = TK_NONE;
	info->rank = TK_NONE;
	info->compute_capability = cc;
	info->sm_count = r->numMultiprocessors;
	info->clock_hz = r->coreClockRate ? (int64_t)r->coreClockRate * 1000 : TK_NONE; /* kHz */
	info->memory_bytes = r->globalMemorySize ? (int64_t)r->globalMemorySize : TK_NONE;
	/* globalMemoryBandwidth is in KB/s */
	info->memory_bandwidth_bps =
	    r->globalMemoryBandwidth ? (int64_t)r->globalMemoryBandwidth * 1000 : TK_NONE;
	info->peak_flops = -1;
	info->max_threads_per_sm = dev->max_threads_per_sm;
	info->max_regs_per_sm = dev->regs_per_sm;
	info->max_smem_per_sm = dev->smem_per_sm;
}

double tk_cupti_occupancy(const struct tk_cupti_device *dev, int block_threads, int regs,
			  int64_t static_smem, int64_t dynamic_smem, int *active)
{
	*active = 0;
	if (!dev->known || block_threads <= 0 || dev->max_threads_per_sm <= 0 || static_smem < 0 ||
	    dynamic_smem < 0)
		return -1;
	cudaOccDeviceProp p;
	memset(&p, 0, sizeof(p));
	p.computeMajor = dev->cc_major;
	p.computeMinor = dev->cc_minor;
	p.maxThreadsPerBlock = dev->max_threads_per_block;
	p.maxThreadsPerMultiprocessor = dev->max_threads_per_sm;
	p.regsPerBlock = dev->regs_per_block;
	p.regsPerMultiprocessor = dev->regs_per_sm;
	p.warpSize = 32;
	p.sharedMemPerBlock = (size_t)dev->smem_per_block;
	p.sharedMemPerMultiprocessor = (size_t)dev->smem_per_sm;
	p.numSms = dev->sm_count;
	p.sharedMemPerBlockOptin = (size_t)dev->smem_per_block_optin;
	p.reservedSharedMemPerBlock = (size_t)dev->reserved_smem_per_block;
	cudaOccFuncAttributes a;
	memset(&a, 0, sizeof(a));
	a.maxThreadsPerBlock = 1 << 30;
	a.numRegs = regs;
	a.sharedSizeBytes = (size_t)static_smem;
	a.partitionedGCConfig = PARTITIONED_GC_OFF;
	a.shmemLimitConfig = FUNC_SHMEM_LIMIT_DEFAULT;
	a.maxDynamicSharedSizeBytes = 0;
	a.numBlockBarriers = 1;
	cudaOccDeviceState s;
	memset(&s, 0, sizeof(s));
	s.cacheConfig = CACHE_PREFER_NONE;
	s.carveoutConfig = SHAREDMEM_CARVEOUT_DEFAULT;
	cudaOccResult res;
	memset(&res, 0, sizeof(res));
	if (cudaOccMaxActiveBlocksPerMultiprocessor(&res, &p, &a, &s, block_threads,
						    (size_t)dynamic_smem) != CUDA_OCC_SUCCESS)
		return -1;
	*active = res.activeBlocksPerMultiprocessor;
	int warps = (block_threads + 31) / 32;
	return (double)(res.activeBlocksPerMultiprocessor * warps * 32) / dev->max_threads_per_sm;
}

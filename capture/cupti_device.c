/*
 * CUPTI device records (CUpti_ActivityDevice5) into store devices and the limits the occupancy
 * calculation needs (util/occupancy.c). The record lacks two driver values, the opt-in and
 * reserved shared memory per block; they are assumed from the compute capability unless the
 * injection library set the driver's values first (tkcap_cupti_decoder_set_limits).
 */
#include <stdio.h>
#include <string.h>

#include "cupti_decode.h"

void tkcap_cupti_device_from_record(const struct tkc_device5 *r, struct tkcap_cupti_device *dev,
				    struct tk_device_info *info, char *cc, size_t cclen)
{
	struct tku_occ_device *o = &dev->occ;
	snprintf(cc, cclen, "%u.%u", r->computeCapabilityMajor, r->computeCapabilityMinor);
	dev->known = 1;
	o->cc_major = (int)r->computeCapabilityMajor;
	o->cc_minor = (int)r->computeCapabilityMinor;
	o->sm_count = (int)r->numMultiprocessors;
	o->max_threads_per_block = (int)r->maxThreadsPerBlock;
	uint32_t warp = r->numThreadsPerWarp ? r->numThreadsPerWarp : 32;
	o->max_threads_per_sm = (int)(r->maxWarpsPerMultiprocessor * warp);
	o->regs_per_block = (int)r->maxRegistersPerBlock;
	o->regs_per_sm = (int)r->maxRegistersPerMultiprocessor;
	o->max_blocks_per_sm = (int)r->maxBlocksPerMultiprocessor;
	o->smem_per_block = r->maxSharedMemoryPerBlock;
	o->smem_per_sm = r->maxSharedMemoryPerMultiprocessor;
	if (!o->reserved_smem_per_block)
		o->reserved_smem_per_block = o->cc_major >= 8 ? 1024 : 0;
	if (!o->smem_per_block_optin)
		o->smem_per_block_optin = o->smem_per_sm - o->reserved_smem_per_block;
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
	info->max_threads_per_sm = o->max_threads_per_sm;
	info->max_regs_per_sm = o->regs_per_sm;
	info->max_smem_per_sm = o->smem_per_sm;
}

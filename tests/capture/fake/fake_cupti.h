/*
 * The test double for libcupti (fake_cupti.c): what tests and fake_app.c use to drive it.
 * Records emitted while their kind is enabled go into buffers obtained from, and handed back
 * through, the callbacks the tool registered, as CUPTI does; the rest are counted.
 */
#ifndef TK_FAKE_CUPTI_H
#define TK_FAKE_CUPTI_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "cupti_abi.h"

struct fake_cupti_counts {
	int64_t emitted;    /* records written into a buffer */
	int64_t suppressed; /* records whose kind was not enabled */
	int64_t dropped;    /* records lost to a declined buffer (also reported as dropped) */
	int64_t enables, disables, flushes, requested, completed;
};

/* fake_cupti_emit() - the "device" produces @r (@size bytes, starts with its kind). */
void fake_cupti_emit(const void *r, size_t size);
/* fake_cupti_enabled() - whether @kind is enabled now. */
int fake_cupti_enabled(uint32_t kind);
void fake_cupti_counts(struct fake_cupti_counts *out);

/* Callback ids the fake names (values of the CUDA 13 cbid headers). */
enum {
	FAKE_CBID_RT_MALLOC = 20,
	FAKE_CBID_RT_MEMCPY = 31,
	FAKE_CBID_RT_MEMCPY_ASYNC = 41,
	FAKE_CBID_RT_STREAM_SYNCHRONIZE = 131,
	FAKE_CBID_RT_DEVICE_SYNCHRONIZE = 165,
	FAKE_CBID_RT_LAUNCH_KERNEL = 211,
	FAKE_CBID_DRV_MEMSET_D8_ASYNC = 216,
	FAKE_CBID_DRV_LAUNCH_KERNEL = 307,
};

/* fake_h100() - the device record CUPTI gives for an H100 SXM (CUDA 13), named @name. */
static inline void fake_h100(struct tkc_device5 *d, uint32_t id, const char *name)
{
	memset(d, 0, sizeof(*d));
	d->kind = TKC_KIND_DEVICE;
	d->id = id;
	d->name = name;
	d->computeCapabilityMajor = 9;
	d->computeCapabilityMinor = 0;
	d->numMultiprocessors = 132;
	d->numThreadsPerWarp = 32;
	d->maxWarpsPerMultiprocessor = 64;
	d->maxBlocksPerMultiprocessor = 32;
	d->maxRegistersPerMultiprocessor = 65536;
	d->maxRegistersPerBlock = 65536;
	d->maxSharedMemoryPerMultiprocessor = 233472;
	d->maxSharedMemoryPerBlock = 49152;
	d->maxThreadsPerBlock = 1024;
	d->coreClockRate = 1980000;		  /* kHz */
	d->globalMemorySize = 85520809984ull;	  /* bytes */
	d->globalMemoryBandwidth = 3352320000ull; /* KB/s */
}

#endif

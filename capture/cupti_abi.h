/*
 * The part of CUPTI's C interface that tracekit uses, written down from the CUDA 13 ABI (CUPTI
 * API versions 13.x, x86-64 and aarch64 LP64): record layouts, enum values, and the entry points
 * (loaded at run time by cupti_load.c, so that tracekit builds with no CUDA toolkit). Member
 * names follow CUPTI's documentation so that each can be looked up there; gaps we do not read
 * are padding. tests/capture/test_cupti_abi.c checks every offset, size and value below against
 * the real cupti.h whenever the build finds one.
 */
#ifndef TK_CUPTI_ABI_H
#define TK_CUPTI_ABI_H

#include <stddef.h>
#include <stdint.h>

/* The CUPTI API versions whose records these layouts describe: [MIN, END). */
#define TKC_API_MIN 130000u
#define TKC_API_END 140000u

typedef int tkc_result;
enum {
	TKC_SUCCESS = 0,
	TKC_ERROR_INVALID_PARAMETER = 1,
	TKC_ERROR_MAX_LIMIT_REACHED = 12,
	TKC_ERROR_NOT_INITIALIZED = 15,
	TKC_ERROR_INVALID_KIND = 21,
	TKC_ERROR_NOT_SUPPORTED = 27,
	TKC_ERROR_INSUFFICIENT_PRIVILEGES = 35,
	TKC_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED = 39,
	TKC_ERROR_UNKNOWN = 999,
};

/* CUpti_ActivityKind */
enum {
	TKC_KIND_MEMCPY = 1,
	TKC_KIND_MEMSET = 2,
	TKC_KIND_KERNEL = 3,
	TKC_KIND_DRIVER = 4,
	TKC_KIND_RUNTIME = 5,
	TKC_KIND_DEVICE = 8,
	TKC_KIND_CONCURRENT_KERNEL = 10,
	TKC_KIND_MARKER = 12,
	TKC_KIND_OVERHEAD = 17,
	TKC_KIND_SYNCHRONIZATION = 38,
	TKC_KIND_INTERNAL_LAUNCH_API = 48,
	TKC_KIND_MEMORY2 = 49,
};

/* CUpti_ActivityMemoryKind */
enum {
	TKC_MEM_UNKNOWN = 0,
	TKC_MEM_PAGEABLE = 1,
	TKC_MEM_PINNED = 2,
	TKC_MEM_DEVICE = 3,
	TKC_MEM_ARRAY = 4,
	TKC_MEM_MANAGED = 5,
	TKC_MEM_DEVICE_STATIC = 6,
	TKC_MEM_MANAGED_STATIC = 7,
};

/* CUpti_ActivityMemcpyKind */
enum {
	TKC_COPY_UNKNOWN = 0,
	TKC_COPY_HTOD = 1,
	TKC_COPY_DTOH = 2,
	TKC_COPY_HTOA = 3,
	TKC_COPY_ATOH = 4,
	TKC_COPY_ATOA = 5,
	TKC_COPY_ATOD = 6,
	TKC_COPY_DTOA = 7,
	TKC_COPY_DTOD = 8,
	TKC_COPY_HTOH = 9,
	TKC_COPY_PTOP = 10,
};

/* CUpti_ActivityFlag (the meaning depends on the record) */
enum {
	TKC_FLAG_MEMCPY_ASYNC = 1,
	TKC_FLAG_MARKER_INSTANTANEOUS = 1,
	TKC_FLAG_MARKER_START = 2,
	TKC_FLAG_MARKER_END = 4,
	TKC_FLAG_FLUSH_FORCED = 1, /* cuptiActivityFlushAll */
};

enum { TKC_MEMORY_OP_ALLOCATION = 1, TKC_MEMORY_OP_RELEASE = 2 };
enum { TKC_OBJECT_PROCESS = 1, TKC_OBJECT_THREAD = 2 };
enum {
	TKC_OVERHEAD_DRIVER_COMPILER = 1,
	TKC_OVERHEAD_CUPTI_BUFFER_FLUSH = 1 << 16,
	TKC_OVERHEAD_CUPTI_INSTRUMENTATION = 2 << 16,
	TKC_OVERHEAD_CUPTI_RESOURCE = 3 << 16,
	TKC_OVERHEAD_LAZY_FUNCTION_LOADING = 5 << 16,
};
enum {
	TKC_SYNC_UNKNOWN = 0,
	TKC_SYNC_EVENT_SYNCHRONIZE = 1,
	TKC_SYNC_STREAM_WAIT_EVENT = 2,
	TKC_SYNC_STREAM_SYNCHRONIZE = 3,
	TKC_SYNC_CONTEXT_SYNCHRONIZE = 4,
};
#define TKC_SYNC_INVALID_VALUE 0xffffffffu
enum { TKC_CB_DOMAIN_DRIVER_API = 1, TKC_CB_DOMAIN_RUNTIME_API = 2 };
enum { TKC_THREAD_ID_TYPE_SYSTEM = 1 };
enum { TKC_SHMEM_LIMIT_DEFAULT = 0, TKC_SHMEM_LIMIT_OPTIN = 1 }; /* CUpti_FuncShmemLimitConfig */

/* Every record starts with its kind. */
struct tkc_record {
	uint32_t kind;
};

/* CUpti_ActivityObjectKindId */
union tkc_object_id {
	struct {
		uint32_t processId, threadId;
	} pt;
	struct {
		uint32_t deviceId, contextId, streamId;
	} dcs;
};

/* CUpti_ActivityKernel10 (CONCURRENT_KERNEL and KERNEL) */
struct tkc_kernel10 {
	uint32_t kind;
	uint8_t cacheConfig, sharedMemoryConfig;
	uint16_t registersPerThread;
	uint32_t partitionedGlobalCacheRequested, partitionedGlobalCacheExecuted;
	uint64_t start, end, completed;
	uint32_t deviceId, contextId, streamId;
	int32_t gridX, gridY, gridZ, blockX, blockY, blockZ;
	int32_t staticSharedMemory, dynamicSharedMemory;
	uint32_t localMemoryPerThread, localMemoryTotal, correlationId;
	int64_t gridId;
	const char *name;
	void *reserved0;
	uint64_t queued, submitted;
	uint8_t launchType, isSharedMemoryCarveoutRequested, sharedMemoryCarveoutRequested, padding;
	uint32_t sharedMemoryExecuted;
	uint64_t graphNodeId;
	uint32_t shmemLimitConfig, graphId;
	void *pAccessPolicyWindow;
	uint32_t channelID, channelType;
	uint32_t clusterX, clusterY, clusterZ, clusterSchedulingPolicy;
	uint64_t localMemoryTotal_v2;
	uint32_t maxPotentialClusterSize, maxActiveClusters;
	uint8_t isDeviceLaunched, padding3[7];
};

/* CUpti_ActivityMemcpy6 */
struct tkc_memcpy6 {
	uint32_t kind;
	uint8_t copyKind, srcKind, dstKind, flags;
	uint64_t bytes, start, end;
	uint32_t deviceId, contextId, streamId, correlationId, runtimeCorrelationId, pad;
	void *reserved0;
	uint64_t graphNodeId;
	uint32_t graphId, channelID, channelType;
	uint8_t isDeviceLaunched, pad2[3];
	uint64_t copyCount;
};

/* CUpti_ActivityMemset4 */
struct tkc_memset4 {
	uint32_t kind, value;
	uint64_t bytes, start, end;
	uint32_t deviceId, contextId, streamId, correlationId;
	uint16_t flags, memoryKind;
	uint32_t pad;
	void *reserved0;
	uint64_t graphNodeId;
	uint32_t graphId, channelID, channelType;
	uint8_t isDeviceLaunched, pad2[3];
};

/* CUpti_ActivityMemory4 (MEMORY2) */
struct tkc_memory4 {
	uint32_t kind, memoryOperationType, memoryKind, correlationId;
	uint64_t address, bytes, timestamp, PC;
	uint32_t processId, deviceId, contextId, streamId;
	const char *name;
	uint32_t isAsync, pad1;
	struct {
		uint32_t memoryPoolType, pad2;
		uint64_t address, releaseThreshold, size, utilizedSize;
	} memoryPoolConfig;
	const char *source;
};

/* CUpti_ActivityAPI (RUNTIME, DRIVER, INTERNAL_LAUNCH_API) */
struct tkc_api {
	uint32_t kind, cbid;
	uint64_t start, end;
	uint32_t processId, threadId, correlationId, returnValue;
};

/* CUpti_ActivitySynchronization2 */
struct tkc_sync2 {
	uint32_t kind, type;
	uint64_t start, end;
	uint32_t correlationId, contextId, streamId, cudaEventId;
	uint64_t cudaEventSyncId;
	uint32_t returnValue, pad;
};

/* CUpti_ActivityMarker2 */
struct tkc_marker2 {
	uint32_t kind, flags;
	uint64_t timestamp;
	uint32_t id, objectKind;
	union tkc_object_id objectId;
	uint32_t pad;
	const char *name, *domain;
};

/* CUpti_ActivityOverhead3 */
struct tkc_overhead3 {
	uint32_t kind, overheadKind, objectKind;
	union tkc_object_id objectId;
	uint64_t start, end;
	uint32_t correlationId, reserved0;
	void *overheadData;
};

/* CUpti_ActivityDevice5 */
struct tkc_device5 {
	uint32_t kind, flags;
	uint64_t globalMemoryBandwidth, globalMemorySize; /* KB/s, bytes */
	uint32_t constantMemorySize, l2CacheSize, numThreadsPerWarp, coreClockRate /* kHz */;
	uint32_t numMemcpyEngines, numMultiprocessors, maxIPC, maxWarpsPerMultiprocessor;
	uint32_t maxBlocksPerMultiprocessor, maxSharedMemoryPerMultiprocessor;
	uint32_t maxRegistersPerMultiprocessor, maxRegistersPerBlock, maxSharedMemoryPerBlock;
	uint32_t maxThreadsPerBlock, maxBlockDimX, maxBlockDimY, maxBlockDimZ;
	uint32_t maxGridDimX, maxGridDimY, maxGridDimZ;
	uint32_t computeCapabilityMajor, computeCapabilityMinor, id, eccEnabled;
	uint8_t uuid[16];
	const char *name;
	uint8_t isCudaVisible, isMigEnabled, reserved[6];
	uint32_t gpuInstanceId, computeInstanceId;
	uint8_t migUuid[16];
	uint32_t isNumaNode, numaId;
};

/* The buffer callbacks (CUpti_BuffersCallbackRequestFunc / CompleteFunc). */
typedef void (*tkc_buffer_request_fn)(uint8_t **buffer, size_t *size, size_t *max_records);
typedef void (*tkc_buffer_complete_fn)(void *context, uint32_t stream, uint8_t *buffer, size_t size,
				       size_t valid);

/* The entry points tracekit calls, resolved from libcupti by tkcap_cupti_load(). */
struct tkcap_cupti_api {
	void *handle; /* dlopen handle */
	char path[512];
	uint32_t version; /* cuptiGetVersion */
	tkc_result (*GetVersion)(uint32_t *version);
	tkc_result (*GetResultString)(tkc_result result, const char **str);
	tkc_result (*GetCallbackName)(uint32_t domain, uint32_t cbid, const char **name);
	tkc_result (*ActivityRegisterCallbacks)(tkc_buffer_request_fn, tkc_buffer_complete_fn);
	tkc_result (*ActivityEnable)(uint32_t kind);
	tkc_result (*ActivityDisable)(uint32_t kind);
	tkc_result (*ActivityFlushAll)(uint32_t flag);
	tkc_result (*ActivityGetNextRecord)(uint8_t *buffer, size_t valid, struct tkc_record **r);
	tkc_result (*ActivityGetNumDroppedRecords)(void *context, uint32_t stream, size_t *dropped);
	tkc_result (*SetThreadIdType)(uint32_t type);
	int (*NvtxInitialize)(void *get_export_table);
	int (*NvtxInitialize2)(void *get_export_table);
};

/**
 * tkcap_cupti_load() - find and load libcupti (see cupti_load.c for where it looks), resolve the
 * entry points and check that its API version is one whose records we can read. Returns 0, or
 * -1 with a one-line reason in @err. Loads once per process: later calls return the first
 * result. @api is a process-wide table, valid until exit.
 */
int tkcap_cupti_load(const struct tkcap_cupti_api **api, char *err, size_t errlen);

/** tkcap_cupti_result_text() - CUPTI's text for @r, or a generic one. */
const char *tkcap_cupti_result_text(const struct tkcap_cupti_api *api, tkc_result r);

#endif

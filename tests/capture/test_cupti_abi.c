/*
 * capture/cupti_abi.h against the real cupti.h: every record size, every member's offset and
 * size, every enum value and callback id we rely on. Runs where the build found a CUDA toolkit
 * (TK_HAVE_CUPTI_SDK); elsewhere it says so and checks only what needs no toolkit.
 */
#include <criterion/criterion.h>
#include <stddef.h>

#include "cupti_abi.h"
#include "fake_cupti.h"

Test(cupti_abi, records_are_eight_byte_multiples)
{
	const size_t sizes[] = {
	    sizeof(struct tkc_kernel10), sizeof(struct tkc_memcpy6),   sizeof(struct tkc_memset4),
	    sizeof(struct tkc_memory4),	 sizeof(struct tkc_api),       sizeof(struct tkc_sync2),
	    sizeof(struct tkc_marker2),	 sizeof(struct tkc_overhead3), sizeof(struct tkc_device5)};
	const size_t want[] = {216, 96, 88, 128, 40, 56, 56, 56, 184}; /* CUDA 13.0, LP64 */
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		cr_expect_eq(sizes[i], want[i], "record %zu: %zu bytes, CUPTI's is %zu", i,
			     sizes[i], want[i]);
}

#if !TK_HAVE_CUPTI_SDK

Test(cupti_abi, matches_the_real_header)
{
	cr_skip_test("no CUDA toolkit was found at build time (CUDA_ROOT): cupti_abi.h is checked "
		     "against cupti.h where one is");
}

#else

#include <cupti.h>

#define SIZE(ours, theirs)                                                                       \
	cr_expect_eq(sizeof(struct ours), sizeof(theirs), #ours ": %zu bytes, " #theirs ": %zu", \
		     sizeof(struct ours), sizeof(theirs))
#define FIELD(ours, theirs, f)                                                                 \
	do {                                                                                   \
		cr_expect_eq(offsetof(struct ours, f), offsetof(theirs, f),                    \
			     #ours "." #f " at %zu, CUPTI's at %zu", offsetof(struct ours, f), \
			     offsetof(theirs, f));                                             \
		cr_expect_eq(sizeof(((struct ours *)0)->f), sizeof(((theirs *)0)->f),          \
			     #ours "." #f " is %zu bytes, CUPTI's %zu",                        \
			     sizeof(((struct ours *)0)->f), sizeof(((theirs *)0)->f));         \
	} while (0)
#define VALUE(ours, theirs)                                                                       \
	cr_expect_eq((long long)(ours), (long long)(theirs), #ours " = %lld, " #theirs " = %lld", \
		     (long long)(ours), (long long)(theirs))

Test(cupti_abi, matches_the_real_header)
{
	SIZE(tkc_kernel10, CUpti_ActivityKernel10);
	FIELD(tkc_kernel10, CUpti_ActivityKernel10, kind);
	FIELD(tkc_kernel10, CUpti_ActivityKernel10, cacheConfig);
	FIELD(tkc_kernel10, CUpti_ActivityKernel10, sharedMemoryConfig);
	FIELD(tkc_kernel10, CUpti_ActivityKernel10, registersPerThread);
	FIELD(tkc_kernel10, CUpti_ActivityKernel10, partitionedGlobalCacheRequested);
	FIELD(tkc_kernel10, CUpti_ActivityKernel10, partitionedGlobalCacheExecuted);
	FIELD(tkc_kernel10, CUpti_ActivityKernel10, start);
	FIELD(tkc_kernel10, CUpti_ActivityKernel10, end);
	FIELD(tkc_kernel10, CUpti_ActivityKernel10, completed);
	FIELD(tkc_kernel10, CUpti_ActivityKernel10, deviceId);
	FIELD(tkc_kernel10, CUpti_ActivityKernel10, contextId);
	FIELD(tkc_kernel10, CUpti_ActivityKernel10, streamId);
	FIELD(tkc_kernel10, CUpti_ActivityKernel10, gridX);
	FIELD(tkc_kernel10, CUpti_ActivityKernel10, gridY);
	FIELD(tkc_kernel10, CUpti_ActivityKernel10, gridZ);
	FIELD(tkc_kernel10, CUpti_ActivityKernel10, blockX);
	FIELD(tkc_kernel10, CUpti_ActivityKernel10, blockY);
	FIELD(tkc_kernel10, CUpti_ActivityKernel10, blockZ);
	FIELD(tkc_kernel10, CUpti_ActivityKernel10, staticSharedMemory);
	FIELD(tkc_kernel10, CUpti_ActivityKernel10, dynamicSharedMemory);
	FIELD(tkc_kernel10, CUpti_ActivityKernel10, localMemoryPerThread);
	FIELD(tkc_kernel10, CUpti_ActivityKernel10, localMemoryTotal);
	FIELD(tkc_kernel10, CUpti_ActivityKernel10, correlationId);
	FIELD(tkc_kernel10, CUpti_ActivityKernel10, gridId);
	FIELD(tkc_kernel10, CUpti_ActivityKernel10, name);
	FIELD(tkc_kernel10, CUpti_ActivityKernel10, reserved0);
	FIELD(tkc_kernel10, CUpti_ActivityKernel10, queued);
	FIELD(tkc_kernel10, CUpti_ActivityKernel10, submitted);
	FIELD(tkc_kernel10, CUpti_ActivityKernel10, launchType);
	FIELD(tkc_kernel10, CUpti_ActivityKernel10, isSharedMemoryCarveoutRequested);
	FIELD(tkc_kernel10, CUpti_ActivityKernel10, sharedMemoryCarveoutRequested);
	FIELD(tkc_kernel10, CUpti_ActivityKernel10, sharedMemoryExecuted);
	FIELD(tkc_kernel10, CUpti_ActivityKernel10, graphNodeId);
	FIELD(tkc_kernel10, CUpti_ActivityKernel10, shmemLimitConfig);
	FIELD(tkc_kernel10, CUpti_ActivityKernel10, graphId);
	FIELD(tkc_kernel10, CUpti_ActivityKernel10, pAccessPolicyWindow);
	FIELD(tkc_kernel10, CUpti_ActivityKernel10, channelID);
	FIELD(tkc_kernel10, CUpti_ActivityKernel10, channelType);
	FIELD(tkc_kernel10, CUpti_ActivityKernel10, clusterX);
	FIELD(tkc_kernel10, CUpti_ActivityKernel10, clusterY);
	FIELD(tkc_kernel10, CUpti_ActivityKernel10, clusterZ);
	FIELD(tkc_kernel10, CUpti_ActivityKernel10, clusterSchedulingPolicy);
	FIELD(tkc_kernel10, CUpti_ActivityKernel10, localMemoryTotal_v2);
	FIELD(tkc_kernel10, CUpti_ActivityKernel10, maxPotentialClusterSize);
	FIELD(tkc_kernel10, CUpti_ActivityKernel10, maxActiveClusters);
	FIELD(tkc_kernel10, CUpti_ActivityKernel10, isDeviceLaunched);
	SIZE(tkc_memcpy6, CUpti_ActivityMemcpy6);
	FIELD(tkc_memcpy6, CUpti_ActivityMemcpy6, kind);
	FIELD(tkc_memcpy6, CUpti_ActivityMemcpy6, copyKind);
	FIELD(tkc_memcpy6, CUpti_ActivityMemcpy6, srcKind);
	FIELD(tkc_memcpy6, CUpti_ActivityMemcpy6, dstKind);
	FIELD(tkc_memcpy6, CUpti_ActivityMemcpy6, flags);
	FIELD(tkc_memcpy6, CUpti_ActivityMemcpy6, bytes);
	FIELD(tkc_memcpy6, CUpti_ActivityMemcpy6, start);
	FIELD(tkc_memcpy6, CUpti_ActivityMemcpy6, end);
	FIELD(tkc_memcpy6, CUpti_ActivityMemcpy6, deviceId);
	FIELD(tkc_memcpy6, CUpti_ActivityMemcpy6, contextId);
	FIELD(tkc_memcpy6, CUpti_ActivityMemcpy6, streamId);
	FIELD(tkc_memcpy6, CUpti_ActivityMemcpy6, correlationId);
	FIELD(tkc_memcpy6, CUpti_ActivityMemcpy6, runtimeCorrelationId);
	FIELD(tkc_memcpy6, CUpti_ActivityMemcpy6, reserved0);
	FIELD(tkc_memcpy6, CUpti_ActivityMemcpy6, graphNodeId);
	FIELD(tkc_memcpy6, CUpti_ActivityMemcpy6, graphId);
	FIELD(tkc_memcpy6, CUpti_ActivityMemcpy6, channelID);
	FIELD(tkc_memcpy6, CUpti_ActivityMemcpy6, channelType);
	FIELD(tkc_memcpy6, CUpti_ActivityMemcpy6, isDeviceLaunched);
	FIELD(tkc_memcpy6, CUpti_ActivityMemcpy6, copyCount);
	SIZE(tkc_memset4, CUpti_ActivityMemset4);
	FIELD(tkc_memset4, CUpti_ActivityMemset4, kind);
	FIELD(tkc_memset4, CUpti_ActivityMemset4, value);
	FIELD(tkc_memset4, CUpti_ActivityMemset4, bytes);
	FIELD(tkc_memset4, CUpti_ActivityMemset4, start);
	FIELD(tkc_memset4, CUpti_ActivityMemset4, end);
	FIELD(tkc_memset4, CUpti_ActivityMemset4, deviceId);
	FIELD(tkc_memset4, CUpti_ActivityMemset4, contextId);
	FIELD(tkc_memset4, CUpti_ActivityMemset4, streamId);
	FIELD(tkc_memset4, CUpti_ActivityMemset4, correlationId);
	FIELD(tkc_memset4, CUpti_ActivityMemset4, flags);
	FIELD(tkc_memset4, CUpti_ActivityMemset4, memoryKind);
	FIELD(tkc_memset4, CUpti_ActivityMemset4, reserved0);
	FIELD(tkc_memset4, CUpti_ActivityMemset4, graphNodeId);
	FIELD(tkc_memset4, CUpti_ActivityMemset4, graphId);
	FIELD(tkc_memset4, CUpti_ActivityMemset4, channelID);
	FIELD(tkc_memset4, CUpti_ActivityMemset4, channelType);
	FIELD(tkc_memset4, CUpti_ActivityMemset4, isDeviceLaunched);
	SIZE(tkc_memory4, CUpti_ActivityMemory4);
	FIELD(tkc_memory4, CUpti_ActivityMemory4, kind);
	FIELD(tkc_memory4, CUpti_ActivityMemory4, memoryOperationType);
	FIELD(tkc_memory4, CUpti_ActivityMemory4, memoryKind);
	FIELD(tkc_memory4, CUpti_ActivityMemory4, correlationId);
	FIELD(tkc_memory4, CUpti_ActivityMemory4, address);
	FIELD(tkc_memory4, CUpti_ActivityMemory4, bytes);
	FIELD(tkc_memory4, CUpti_ActivityMemory4, timestamp);
	FIELD(tkc_memory4, CUpti_ActivityMemory4, PC);
	FIELD(tkc_memory4, CUpti_ActivityMemory4, processId);
	FIELD(tkc_memory4, CUpti_ActivityMemory4, deviceId);
	FIELD(tkc_memory4, CUpti_ActivityMemory4, contextId);
	FIELD(tkc_memory4, CUpti_ActivityMemory4, streamId);
	FIELD(tkc_memory4, CUpti_ActivityMemory4, name);
	FIELD(tkc_memory4, CUpti_ActivityMemory4, isAsync);
	FIELD(tkc_memory4, CUpti_ActivityMemory4, memoryPoolConfig);
	FIELD(tkc_memory4, CUpti_ActivityMemory4, source);
	SIZE(tkc_api, CUpti_ActivityAPI);
	FIELD(tkc_api, CUpti_ActivityAPI, kind);
	FIELD(tkc_api, CUpti_ActivityAPI, cbid);
	FIELD(tkc_api, CUpti_ActivityAPI, start);
	FIELD(tkc_api, CUpti_ActivityAPI, end);
	FIELD(tkc_api, CUpti_ActivityAPI, processId);
	FIELD(tkc_api, CUpti_ActivityAPI, threadId);
	FIELD(tkc_api, CUpti_ActivityAPI, correlationId);
	FIELD(tkc_api, CUpti_ActivityAPI, returnValue);
	SIZE(tkc_sync2, CUpti_ActivitySynchronization2);
	FIELD(tkc_sync2, CUpti_ActivitySynchronization2, kind);
	FIELD(tkc_sync2, CUpti_ActivitySynchronization2, type);
	FIELD(tkc_sync2, CUpti_ActivitySynchronization2, start);
	FIELD(tkc_sync2, CUpti_ActivitySynchronization2, end);
	FIELD(tkc_sync2, CUpti_ActivitySynchronization2, correlationId);
	FIELD(tkc_sync2, CUpti_ActivitySynchronization2, contextId);
	FIELD(tkc_sync2, CUpti_ActivitySynchronization2, streamId);
	FIELD(tkc_sync2, CUpti_ActivitySynchronization2, cudaEventId);
	FIELD(tkc_sync2, CUpti_ActivitySynchronization2, cudaEventSyncId);
	FIELD(tkc_sync2, CUpti_ActivitySynchronization2, returnValue);
	SIZE(tkc_marker2, CUpti_ActivityMarker2);
	FIELD(tkc_marker2, CUpti_ActivityMarker2, kind);
	FIELD(tkc_marker2, CUpti_ActivityMarker2, flags);
	FIELD(tkc_marker2, CUpti_ActivityMarker2, timestamp);
	FIELD(tkc_marker2, CUpti_ActivityMarker2, id);
	FIELD(tkc_marker2, CUpti_ActivityMarker2, objectKind);
	FIELD(tkc_marker2, CUpti_ActivityMarker2, objectId);
	FIELD(tkc_marker2, CUpti_ActivityMarker2, name);
	FIELD(tkc_marker2, CUpti_ActivityMarker2, domain);
	SIZE(tkc_overhead3, CUpti_ActivityOverhead3);
	FIELD(tkc_overhead3, CUpti_ActivityOverhead3, kind);
	FIELD(tkc_overhead3, CUpti_ActivityOverhead3, overheadKind);
	FIELD(tkc_overhead3, CUpti_ActivityOverhead3, objectKind);
	FIELD(tkc_overhead3, CUpti_ActivityOverhead3, objectId);
	FIELD(tkc_overhead3, CUpti_ActivityOverhead3, start);
	FIELD(tkc_overhead3, CUpti_ActivityOverhead3, end);
	FIELD(tkc_overhead3, CUpti_ActivityOverhead3, correlationId);
	FIELD(tkc_overhead3, CUpti_ActivityOverhead3, reserved0);
	FIELD(tkc_overhead3, CUpti_ActivityOverhead3, overheadData);
	SIZE(tkc_device5, CUpti_ActivityDevice5);
	FIELD(tkc_device5, CUpti_ActivityDevice5, kind);
	FIELD(tkc_device5, CUpti_ActivityDevice5, flags);
	FIELD(tkc_device5, CUpti_ActivityDevice5, globalMemoryBandwidth);
	FIELD(tkc_device5, CUpti_ActivityDevice5, globalMemorySize);
	FIELD(tkc_device5, CUpti_ActivityDevice5, constantMemorySize);
	FIELD(tkc_device5, CUpti_ActivityDevice5, l2CacheSize);
	FIELD(tkc_device5, CUpti_ActivityDevice5, numThreadsPerWarp);
	FIELD(tkc_device5, CUpti_ActivityDevice5, coreClockRate);
	FIELD(tkc_device5, CUpti_ActivityDevice5, numMemcpyEngines);
	FIELD(tkc_device5, CUpti_ActivityDevice5, numMultiprocessors);
	FIELD(tkc_device5, CUpti_ActivityDevice5, maxIPC);
	FIELD(tkc_device5, CUpti_ActivityDevice5, maxWarpsPerMultiprocessor);
	FIELD(tkc_device5, CUpti_ActivityDevice5, maxBlocksPerMultiprocessor);
	FIELD(tkc_device5, CUpti_ActivityDevice5, maxSharedMemoryPerMultiprocessor);
	FIELD(tkc_device5, CUpti_ActivityDevice5, maxRegistersPerMultiprocessor);
	FIELD(tkc_device5, CUpti_ActivityDevice5, maxRegistersPerBlock);
	FIELD(tkc_device5, CUpti_ActivityDevice5, maxSharedMemoryPerBlock);
	FIELD(tkc_device5, CUpti_ActivityDevice5, maxThreadsPerBlock);
	FIELD(tkc_device5, CUpti_ActivityDevice5, maxBlockDimX);
	FIELD(tkc_device5, CUpti_ActivityDevice5, maxBlockDimY);
	FIELD(tkc_device5, CUpti_ActivityDevice5, maxBlockDimZ);
	FIELD(tkc_device5, CUpti_ActivityDevice5, maxGridDimX);
	FIELD(tkc_device5, CUpti_ActivityDevice5, maxGridDimY);
	FIELD(tkc_device5, CUpti_ActivityDevice5, maxGridDimZ);
	FIELD(tkc_device5, CUpti_ActivityDevice5, computeCapabilityMajor);
	FIELD(tkc_device5, CUpti_ActivityDevice5, computeCapabilityMinor);
	FIELD(tkc_device5, CUpti_ActivityDevice5, id);
	FIELD(tkc_device5, CUpti_ActivityDevice5, eccEnabled);
	FIELD(tkc_device5, CUpti_ActivityDevice5, uuid);
	FIELD(tkc_device5, CUpti_ActivityDevice5, name);
	FIELD(tkc_device5, CUpti_ActivityDevice5, isCudaVisible);
	FIELD(tkc_device5, CUpti_ActivityDevice5, isMigEnabled);
	FIELD(tkc_device5, CUpti_ActivityDevice5, gpuInstanceId);
	FIELD(tkc_device5, CUpti_ActivityDevice5, computeInstanceId);
	FIELD(tkc_device5, CUpti_ActivityDevice5, migUuid);
	FIELD(tkc_device5, CUpti_ActivityDevice5, isNumaNode);
	FIELD(tkc_device5, CUpti_ActivityDevice5, numaId);
	FIELD(tkc_memory4, CUpti_ActivityMemory4, memoryPoolConfig.memoryPoolType);
	FIELD(tkc_memory4, CUpti_ActivityMemory4, memoryPoolConfig.address);
	FIELD(tkc_memory4, CUpti_ActivityMemory4, memoryPoolConfig.releaseThreshold);
	FIELD(tkc_memory4, CUpti_ActivityMemory4, memoryPoolConfig.utilizedSize);
	FIELD(tkc_marker2, CUpti_ActivityMarker2, objectId.pt.processId);
	FIELD(tkc_marker2, CUpti_ActivityMarker2, objectId.pt.threadId);
	FIELD(tkc_overhead3, CUpti_ActivityOverhead3, objectId.pt.threadId);
	FIELD(tkc_record, CUpti_Activity, kind);
	VALUE(TKC_API_MIN / 10000, CUPTI_API_VERSION / 10000);
}

Test(cupti_abi, enum_values_and_callback_ids_match)
{
	VALUE(TKC_SUCCESS, CUPTI_SUCCESS);
	VALUE(TKC_ERROR_INVALID_PARAMETER, CUPTI_ERROR_INVALID_PARAMETER);
	VALUE(TKC_ERROR_MAX_LIMIT_REACHED, CUPTI_ERROR_MAX_LIMIT_REACHED);
	VALUE(TKC_ERROR_NOT_INITIALIZED, CUPTI_ERROR_NOT_INITIALIZED);
	VALUE(TKC_ERROR_INVALID_KIND, CUPTI_ERROR_INVALID_KIND);
	VALUE(TKC_ERROR_NOT_SUPPORTED, CUPTI_ERROR_NOT_SUPPORTED);
	VALUE(TKC_ERROR_INSUFFICIENT_PRIVILEGES, CUPTI_ERROR_INSUFFICIENT_PRIVILEGES);
	VALUE(TKC_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED,
	      CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED);
	VALUE(TKC_ERROR_UNKNOWN, CUPTI_ERROR_UNKNOWN);
	VALUE(TKC_KIND_MEMCPY, CUPTI_ACTIVITY_KIND_MEMCPY);
	VALUE(TKC_KIND_MEMSET, CUPTI_ACTIVITY_KIND_MEMSET);
	VALUE(TKC_KIND_KERNEL, CUPTI_ACTIVITY_KIND_KERNEL);
	VALUE(TKC_KIND_DRIVER, CUPTI_ACTIVITY_KIND_DRIVER);
	VALUE(TKC_KIND_RUNTIME, CUPTI_ACTIVITY_KIND_RUNTIME);
	VALUE(TKC_KIND_DEVICE, CUPTI_ACTIVITY_KIND_DEVICE);
	VALUE(TKC_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
	VALUE(TKC_KIND_MARKER, CUPTI_ACTIVITY_KIND_MARKER);
	VALUE(TKC_KIND_OVERHEAD, CUPTI_ACTIVITY_KIND_OVERHEAD);
	VALUE(TKC_KIND_SYNCHRONIZATION, CUPTI_ACTIVITY_KIND_SYNCHRONIZATION);
	VALUE(TKC_KIND_INTERNAL_LAUNCH_API, CUPTI_ACTIVITY_KIND_INTERNAL_LAUNCH_API);
	VALUE(TKC_KIND_MEMORY2, CUPTI_ACTIVITY_KIND_MEMORY2);
	VALUE(TKC_MEM_UNKNOWN, CUPTI_ACTIVITY_MEMORY_KIND_UNKNOWN);
	VALUE(TKC_MEM_PAGEABLE, CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE);
	VALUE(TKC_MEM_PINNED, CUPTI_ACTIVITY_MEMORY_KIND_PINNED);
	VALUE(TKC_MEM_DEVICE, CUPTI_ACTIVITY_MEMORY_KIND_DEVICE);
	VALUE(TKC_MEM_ARRAY, CUPTI_ACTIVITY_MEMORY_KIND_ARRAY);
	VALUE(TKC_MEM_MANAGED, CUPTI_ACTIVITY_MEMORY_KIND_MANAGED);
	VALUE(TKC_MEM_DEVICE_STATIC, CUPTI_ACTIVITY_MEMORY_KIND_DEVICE_STATIC);
	VALUE(TKC_MEM_MANAGED_STATIC, CUPTI_ACTIVITY_MEMORY_KIND_MANAGED_STATIC);
	VALUE(TKC_COPY_UNKNOWN, CUPTI_ACTIVITY_MEMCPY_KIND_UNKNOWN);
	VALUE(TKC_COPY_HTOD, CUPTI_ACTIVITY_MEMCPY_KIND_HTOD);
	VALUE(TKC_COPY_DTOH, CUPTI_ACTIVITY_MEMCPY_KIND_DTOH);
	VALUE(TKC_COPY_HTOA, CUPTI_ACTIVITY_MEMCPY_KIND_HTOA);
	VALUE(TKC_COPY_ATOH, CUPTI_ACTIVITY_MEMCPY_KIND_ATOH);
	VALUE(TKC_COPY_ATOA, CUPTI_ACTIVITY_MEMCPY_KIND_ATOA);
	VALUE(TKC_COPY_ATOD, CUPTI_ACTIVITY_MEMCPY_KIND_ATOD);
	VALUE(TKC_COPY_DTOA, CUPTI_ACTIVITY_MEMCPY_KIND_DTOA);
	VALUE(TKC_COPY_DTOD, CUPTI_ACTIVITY_MEMCPY_KIND_DTOD);
	VALUE(TKC_COPY_HTOH, CUPTI_ACTIVITY_MEMCPY_KIND_HTOH);
	VALUE(TKC_COPY_PTOP, CUPTI_ACTIVITY_MEMCPY_KIND_PTOP);
	VALUE(TKC_FLAG_MEMCPY_ASYNC, CUPTI_ACTIVITY_FLAG_MEMCPY_ASYNC);
	VALUE(TKC_FLAG_MARKER_INSTANTANEOUS, CUPTI_ACTIVITY_FLAG_MARKER_INSTANTANEOUS);
	VALUE(TKC_FLAG_MARKER_START, CUPTI_ACTIVITY_FLAG_MARKER_START);
	VALUE(TKC_FLAG_MARKER_END, CUPTI_ACTIVITY_FLAG_MARKER_END);
	VALUE(TKC_FLAG_FLUSH_FORCED, CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
	VALUE(TKC_MEMORY_OP_ALLOCATION, CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION);
	VALUE(TKC_MEMORY_OP_RELEASE, CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_RELEASE);
	VALUE(TKC_OBJECT_PROCESS, CUPTI_ACTIVITY_OBJECT_PROCESS);
	VALUE(TKC_OBJECT_THREAD, CUPTI_ACTIVITY_OBJECT_THREAD);
	VALUE(TKC_OVERHEAD_DRIVER_COMPILER, CUPTI_ACTIVITY_OVERHEAD_DRIVER_COMPILER);
	VALUE(TKC_OVERHEAD_CUPTI_BUFFER_FLUSH, CUPTI_ACTIVITY_OVERHEAD_CUPTI_BUFFER_FLUSH);
	VALUE(TKC_OVERHEAD_CUPTI_INSTRUMENTATION, CUPTI_ACTIVITY_OVERHEAD_CUPTI_INSTRUMENTATION);
	VALUE(TKC_OVERHEAD_CUPTI_RESOURCE, CUPTI_ACTIVITY_OVERHEAD_CUPTI_RESOURCE);
	VALUE(TKC_OVERHEAD_LAZY_FUNCTION_LOADING, CUPTI_ACTIVITY_OVERHEAD_LAZY_FUNCTION_LOADING);
	VALUE(TKC_SYNC_UNKNOWN, CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_UNKNOWN);
	VALUE(TKC_SYNC_EVENT_SYNCHRONIZE, CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE);
	VALUE(TKC_SYNC_STREAM_WAIT_EVENT, CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT);
	VALUE(TKC_SYNC_STREAM_SYNCHRONIZE, CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE);
	VALUE(TKC_SYNC_CONTEXT_SYNCHRONIZE,
	      CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE);
	VALUE(TKC_SYNC_INVALID_VALUE, (uint32_t)CUPTI_SYNCHRONIZATION_INVALID_VALUE);
	VALUE(TKC_CB_DOMAIN_DRIVER_API, CUPTI_CB_DOMAIN_DRIVER_API);
	VALUE(TKC_CB_DOMAIN_RUNTIME_API, CUPTI_CB_DOMAIN_RUNTIME_API);
	VALUE(TKC_THREAD_ID_TYPE_SYSTEM, CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM);
	VALUE(TKC_SHMEM_LIMIT_DEFAULT, CUPTI_FUNC_SHMEM_LIMIT_DEFAULT);
	VALUE(TKC_SHMEM_LIMIT_OPTIN, CUPTI_FUNC_SHMEM_LIMIT_OPTIN);
	/* the fake's callback ids */
	VALUE(FAKE_CBID_RT_MALLOC, CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020);
	VALUE(FAKE_CBID_RT_MEMCPY, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_v3020);
	VALUE(FAKE_CBID_RT_MEMCPY_ASYNC, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020);
	VALUE(FAKE_CBID_RT_STREAM_SYNCHRONIZE,
	      CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020);
	VALUE(FAKE_CBID_RT_DEVICE_SYNCHRONIZE,
	      CUPTI_RUNTIME_TRACE_CBID_cudaDeviceSynchronize_v3020);
	VALUE(FAKE_CBID_RT_LAUNCH_KERNEL, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000);
	VALUE(FAKE_CBID_DRV_MEMSET_D8_ASYNC, CUPTI_DRIVER_TRACE_CBID_cuMemsetD8Async);
	VALUE(FAKE_CBID_DRV_LAUNCH_KERNEL, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel);
}

#endif

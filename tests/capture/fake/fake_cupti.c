/*
 * A stand-in for libcupti, so that the injection library's whole path (loading CUPTI, enabling
 * kinds, buffer requests and completions, the decoder thread, windows, flushing at exit and on
 * signals, dropped records) runs in tests on machines with no CUDA at all. It implements the
 * entry points cupti_abi.h lists with CUPTI's documented behaviour, walks buffers with the
 * CUDA 13 record sizes, and lets a test program emit records (fake_cupti.h). Knobs:
 * FAKE_CUPTI_VERSION (cuptiGetVersion, default 130001), FAKE_CUPTI_ENABLE_FAILS=1
 * (cuptiActivityEnable refuses, as without a GPU), FAKE_CUPTI_DROP=N (N records reported dropped
 * at the first completed buffer), FAKE_CUPTI_BUFFER_LIMIT=N (decline requests after N buffers),
 * FAKE_CUPTI_REPORT=1 (print the counts on stderr when the process ends, after the tool's own
 * exit handlers: "fake_cupti: emitted=N suppressed=N ...").
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cupti_abi.h"
#include "fake_cupti.h"

#define EXPORT __attribute__((visibility("default")))
#define MAX_KIND 64

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static tkc_buffer_request_fn request_cb;
static tkc_buffer_complete_fn complete_cb;
static int enabled[MAX_KIND];
static uint8_t *buf;
static size_t buf_size, buf_used;
static size_t pending_drops;
static int drop_once_done;
static struct fake_cupti_counts counts;

static size_t record_size(uint32_t kind)
{
	switch (kind) {
	case TKC_KIND_KERNEL:
	case TKC_KIND_CONCURRENT_KERNEL:
		return sizeof(struct tkc_kernel10);
	case TKC_KIND_MEMCPY:
		return sizeof(struct tkc_memcpy6);
	case TKC_KIND_MEMSET:
		return sizeof(struct tkc_memset4);
	case TKC_KIND_MEMORY2:
		return sizeof(struct tkc_memory4);
	case TKC_KIND_RUNTIME:
	case TKC_KIND_DRIVER:
	case TKC_KIND_INTERNAL_LAUNCH_API:
		return sizeof(struct tkc_api);
	case TKC_KIND_SYNCHRONIZATION:
		return sizeof(struct tkc_sync2);
	case TKC_KIND_MARKER:
		return sizeof(struct tkc_marker2);
	case TKC_KIND_OVERHEAD:
		return sizeof(struct tkc_overhead3);
	case TKC_KIND_DEVICE:
		return sizeof(struct tkc_device5);
	default:
		return 0;
	}
}

static long env_long(const char *name, long dflt)
{
	const char *v = getenv(name);
	return v && *v ? strtol(v, NULL, 10) : dflt;
}

EXPORT tkc_result cuptiGetVersion(uint32_t *version)
{
	if (!version)
		return TKC_ERROR_INVALID_PARAMETER;
	*version = (uint32_t)env_long("FAKE_CUPTI_VERSION", 130001);
	return TKC_SUCCESS;
}

EXPORT tkc_result cuptiGetResultString(tkc_result r, const char **str)
{
	switch (r) {
	case TKC_SUCCESS:
		*str = "CUPTI_SUCCESS";
		break;
	case TKC_ERROR_INVALID_PARAMETER:
		*str = "CUPTI_ERROR_INVALID_PARAMETER";
		break;
	case TKC_ERROR_INSUFFICIENT_PRIVILEGES:
		*str = "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES";
		break;
	case TKC_ERROR_MAX_LIMIT_REACHED:
		*str = "CUPTI_ERROR_MAX_LIMIT_REACHED";
		break;
	default:
		return TKC_ERROR_INVALID_PARAMETER;
	}
	return TKC_SUCCESS;
}

EXPORT tkc_result cuptiGetCallbackName(uint32_t domain, uint32_t cbid, const char **name)
{
	static const struct {
		uint32_t domain, cbid;
		const char *name;
	} names[] = {
	    {TKC_CB_DOMAIN_RUNTIME_API, FAKE_CBID_RT_MALLOC, "cudaMalloc_v3020"},
	    {TKC_CB_DOMAIN_RUNTIME_API, FAKE_CBID_RT_MEMCPY, "cudaMemcpy_v3020"},
	    {TKC_CB_DOMAIN_RUNTIME_API, FAKE_CBID_RT_MEMCPY_ASYNC, "cudaMemcpyAsync_v3020"},
	    {TKC_CB_DOMAIN_RUNTIME_API, FAKE_CBID_RT_STREAM_SYNCHRONIZE,
	     "cudaStreamSynchronize_v3020"},
	    {TKC_CB_DOMAIN_RUNTIME_API, FAKE_CBID_RT_DEVICE_SYNCHRONIZE,
	     "cudaDeviceSynchronize_v3020"},
	    {TKC_CB_DOMAIN_RUNTIME_API, FAKE_CBID_RT_LAUNCH_KERNEL, "cudaLaunchKernel_v7000"},
	    {TKC_CB_DOMAIN_DRIVER_API, FAKE_CBID_DRV_MEMSET_D8_ASYNC, "cuMemsetD8Async"},
	    {TKC_CB_DOMAIN_DRIVER_API, FAKE_CBID_DRV_LAUNCH_KERNEL, "cuLaunchKernel"},
	};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].domain == domain && names[i].cbid == cbid) {
			*name = names[i].name;
			return TKC_SUCCESS;
		}
	return TKC_ERROR_INVALID_PARAMETER;
}

EXPORT tkc_result cuptiActivityRegisterCallbacks(tkc_buffer_request_fn req,
						 tkc_buffer_complete_fn done)
{
	if (!req || !done)
		return TKC_ERROR_INVALID_PARAMETER;
	pthread_mutex_lock(&mu);
	request_cb = req;
	complete_cb = done;
	pthread_mutex_unlock(&mu);
	return TKC_SUCCESS;
}

static tkc_result set_enabled(uint32_t kind, int on)
{
	if (!record_size(kind) || kind >= MAX_KIND)
		return TKC_ERROR_INVALID_KIND;
	if (on && env_long("FAKE_CUPTI_ENABLE_FAILS", 0))
		return TKC_ERROR_INSUFFICIENT_PRIVILEGES;
	pthread_mutex_lock(&mu);
	enabled[kind] = on;
	if (on)
		counts.enables++;
	else
		counts.disables++;
	pthread_mutex_unlock(&mu);
	return TKC_SUCCESS;
}

EXPORT tkc_result cuptiActivityEnable(uint32_t kind)
{
	return set_enabled(kind, 1);
}

EXPORT tkc_result cuptiActivityDisable(uint32_t kind)
{
	return set_enabled(kind, 0);
}

/* Hand the current buffer back to the tool (mu held). */
static void complete_current(void)
{
	if (!buf)
		return;
	uint8_t *b = buf;
	size_t size = buf_size, used = buf_used;
	buf = NULL;
	buf_size = buf_used = 0;
	counts.completed++;
	if (!drop_once_done) {
		drop_once_done = 1;
		pending_drops += (size_t)env_long("FAKE_CUPTI_DROP", 0);
	}
	complete_cb(NULL, 0, b, size, used);
}

EXPORT tkc_result cuptiActivityFlushAll(uint32_t flag)
{
	(void)flag;
	pthread_mutex_lock(&mu);
	counts.flushes++;
	if (buf && buf_used)
		complete_current();
	pthread_mutex_unlock(&mu);
	return TKC_SUCCESS;
}

EXPORT tkc_result cuptiActivityGetNextRecord(uint8_t *buffer, size_t valid, struct tkc_record **r)
{
	if (!buffer || !r)
		return TKC_ERROR_INVALID_PARAMETER;
	size_t at = 0;
	if (*r) {
		size_t cur = (size_t)((uint8_t *)*r - buffer), n = record_size((*r)->kind);
		if (!n || cur > valid)
			return TKC_ERROR_INVALID_KIND;
		at = cur + n;
	}
	if (at + sizeof(struct tkc_record) > valid)
		return TKC_ERROR_MAX_LIMIT_REACHED;
	size_t n = record_size(((struct tkc_record *)(buffer + at))->kind);
	if (!n)
		return TKC_ERROR_INVALID_KIND;
	if (at + n > valid)
		return TKC_ERROR_MAX_LIMIT_REACHED;
	*r = (struct tkc_record *)(buffer + at);
	return TKC_SUCCESS;
}

EXPORT tkc_result cuptiActivityGetNumDroppedRecords(void *ctx, uint32_t stream, size_t *dropped)
{
	(void)ctx;
	(void)stream;
	pthread_mutex_lock(&mu);
	*dropped = pending_drops;
	pending_drops = 0;
	pthread_mutex_unlock(&mu);
	return TKC_SUCCESS;
}

EXPORT tkc_result cuptiSetThreadIdType(uint32_t type)
{
	return type == TKC_THREAD_ID_TYPE_SYSTEM ? TKC_SUCCESS : TKC_ERROR_INVALID_PARAMETER;
}

EXPORT int cuptiNvtxInitialize(void *get_export_table)
{
	return get_export_table != NULL;
}

EXPORT int cuptiNvtxInitialize2(void *get_export_table)
{
	return get_export_table != NULL;
}

/* ---- the test side ---- */

EXPORT void fake_cupti_emit(const void *r, size_t size)
{
	uint32_t kind;
	memcpy(&kind, r, sizeof(kind));
	pthread_mutex_lock(&mu);
	if (kind >= MAX_KIND || !enabled[kind] || !request_cb || size != record_size(kind)) {
		counts.suppressed++;
		goto out;
	}
	if (buf && buf_used + size > buf_size)
		complete_current();
	if (!buf) {
		long limit = env_long("FAKE_CUPTI_BUFFER_LIMIT", -1);
		size_t max_records = 0;
		if (limit < 0 || counts.requested < limit)
			request_cb(&buf, &buf_size, &max_records);
		counts.requested++;
		if (!buf || buf_size < size) {
			buf = NULL; /* declined: the record is lost and reported */
			counts.dropped++;
			pending_drops++;
			goto out;
		}
		buf_used = 0;
	}
	memcpy(buf + buf_used, r, size);
	buf_used += size;
	counts.emitted++;
out:
	pthread_mutex_unlock(&mu);
}

EXPORT int fake_cupti_enabled(uint32_t kind)
{
	pthread_mutex_lock(&mu);
	int on = kind < MAX_KIND && enabled[kind];
	pthread_mutex_unlock(&mu);
	return on;
}

EXPORT void fake_cupti_counts(struct fake_cupti_counts *out)
{
	pthread_mutex_lock(&mu);
	*out = counts;
	pthread_mutex_unlock(&mu);
}

__attribute__((destructor)) static void report_at_exit(void)
{
	if (!env_long("FAKE_CUPTI_REPORT", 0))
		return;
	struct fake_cupti_counts n;
	fake_cupti_counts(&n);
	fprintf(stderr,
		"fake_cupti: emitted=%lld suppressed=%lld dropped=%lld enables=%lld disables=%lld "
		"flushes=%lld requested=%lld completed=%lld\n",
		(long long)n.emitted, (long long)n.suppressed, (long long)n.dropped,
		(long long)n.enables, (long long)n.disables, (long long)n.flushes,
		(long long)n.requested, (long long)n.completed);
}

/*
 * A "CUDA program" for the capture tests on machines with no GPU: it does what the CUDA driver
 * does with CUDA_INJECTION64_PATH (load the library, call InitializeInjection during "cuInit"),
 * then runs training steps whose device activity it emits through the fake libcupti
 * (FAKE_CUPTI_LIB; the injection library finds it through TRACEKIT_LIBCUPTI): per step a cudaLaunchKernel + kernel pair for each of 3 kernels on
 * stream 7 and a cudaMemcpyAsync + host-to-device copy, with tk_step() markers and a TK_SCOPE.
 * Usage: fake_app STEPS [CRASH_STEP]; exits 7, or dies of SIGABRT at the start of CRASH_STEP.
 * FAKE_APP_BIG_SMEM=1 adds a kernel "attention" per step that opted in to 150 KB of dynamic
 * shared memory. It also stands in for the driver's device queries (cuDeviceGetCount,
 * cuDeviceGet, cuDeviceGetAttribute, exported): one device whose opt-in and reserved shared
 * memory per block are FAKE_DRIVER_OPTIN and FAKE_DRIVER_RESERVED; unset, the calls fail.
 * FAKE_APP_LATE_SESSION=1 starts the annotation session after "cuInit" (tk_trace_begin; run it
 * with TRACEKIT_AUTOSTART=0), instead of at load.
 * Deterministic by construction: every step waits for the end of the device work it emitted
 * before the next tk_step() (as a step ending in cudaStreamSynchronize does), so each record
 * starts and ends inside the step that launched it, whatever the scheduling; and records are
 * emitted on the calling thread, so whether their kind is enabled is decided by the step order.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <tracekit/annotate.h>
#include <tracekit/error.h>

#include "cupti_abi.h"
#include "fake_cupti.h"

static void (*emit)(const void *, size_t);
static uint32_t corr = 100;
static uint64_t device_busy_until; /* the end of the last device work emitted */

static uint64_t now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_REALTIME, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

static void spin_ns(uint64_t ns)
{
	uint64_t until = now_ns() + ns;
	while (now_ns() < until)
		;
}

static void device(void)
{
	struct tkc_device5 d;
	fake_h100(&d, 0, "Fake H100");
	emit(&d, sizeof(d));
}

/* A runtime API call of @cbid now, then its device work 1 µs after it returned. */
static uint32_t api_call(uint32_t cbid, uint64_t *device_start)
{
	struct tkc_api a;
	memset(&a, 0, sizeof(a));
	a.kind = TKC_KIND_RUNTIME;
	a.cbid = cbid;
	a.start = now_ns();
	spin_ns(2000);
	a.end = now_ns();
	a.processId = (uint32_t)getpid();
	a.threadId = (uint32_t)syscall(SYS_gettid);
	a.correlationId = ++corr;
	emit(&a, sizeof(a));
	*device_start = a.end + 1000;
	return a.correlationId;
}

/* Device work that ends at @end: the step cannot end before it has. */
static void device_work(uint64_t end)
{
	if (end > device_busy_until)
		device_busy_until = end;
}

/* Wait for the device (cudaStreamSynchronize without its API record). */
static void synchronize(void)
{
	while (now_ns() <= device_busy_until)
		;
}

static void launch(const char *name, int threads, int regs)
{
	uint64_t start;
	uint32_t c = api_call(FAKE_CBID_RT_LAUNCH_KERNEL, &start);
	struct tkc_kernel10 k;
	memset(&k, 0, sizeof(k));
	k.kind = TKC_KIND_CONCURRENT_KERNEL;
	k.name = name;
	k.start = start;
	k.end = start + 50000;
	k.streamId = 7;
	k.correlationId = c;
	k.gridX = 264;
	k.gridY = k.gridZ = 1;
	k.blockX = threads;
	k.blockY = k.blockZ = 1;
	k.registersPerThread = (uint16_t)regs;
	device_work(k.end);
	emit(&k, sizeof(k));
}

/* An opted-in kernel with 150 KB of dynamic shared memory. */
static void attention(void)
{
	uint64_t start;
	uint32_t c = api_call(FAKE_CBID_RT_LAUNCH_KERNEL, &start);
	struct tkc_kernel10 k;
	memset(&k, 0, sizeof(k));
	k.kind = TKC_KIND_CONCURRENT_KERNEL;
	k.name = "attention";
	k.start = start;
	k.end = start + 80000;
	k.streamId = 7;
	k.correlationId = c;
	k.gridX = 132;
	k.gridY = k.gridZ = 1;
	k.blockX = 128;
	k.blockY = k.blockZ = 1;
	k.registersPerThread = 32;
	k.dynamicSharedMemory = 150 * 1024;
	k.shmemLimitConfig = TKC_SHMEM_LIMIT_OPTIN;
	device_work(k.end);
	emit(&k, sizeof(k));
}

/* ---- the driver's device queries, as libcuda answers them ---- */

__attribute__((visibility("default"))) int cuDeviceGetCount(int *n)
{
	if (!getenv("FAKE_DRIVER_OPTIN"))
		return 3; /* CUDA_ERROR_NOT_INITIALIZED */
	*n = 1;
	return 0;
}

__attribute__((visibility("default"))) int cuDeviceGet(int *dev, int ordinal)
{
	*dev = ordinal;
	return ordinal == 0 ? 0 : 101; /* CUDA_ERROR_INVALID_DEVICE */
}

__attribute__((visibility("default"))) int cuDeviceGetAttribute(int *v, int attr, int dev)
{
	const char *s = attr == 97    ? getenv("FAKE_DRIVER_OPTIN")
			: attr == 111 ? getenv("FAKE_DRIVER_RESERVED")
				      : NULL;
	if (!s || dev != 0)
		return 1; /* CUDA_ERROR_INVALID_VALUE */
	*v = atoi(s);
	return 0;
}

static void copy(uint64_t bytes)
{
	uint64_t start;
	uint32_t c = api_call(FAKE_CBID_RT_MEMCPY_ASYNC, &start);
	struct tkc_memcpy6 m;
	memset(&m, 0, sizeof(m));
	m.kind = TKC_KIND_MEMCPY;
	m.copyKind = TKC_COPY_HTOD;
	m.srcKind = TKC_MEM_PINNED;
	m.dstKind = TKC_MEM_DEVICE;
	m.flags = TKC_FLAG_MEMCPY_ASYNC;
	m.bytes = bytes;
	m.start = start;
	m.end = start + 20000;
	m.streamId = 7;
	m.correlationId = c;
	device_work(m.end);
	emit(&m, sizeof(m));
}

/* What the driver does in cuInit with CUDA_INJECTION64_PATH. */
static void cu_init(void)
{
	const char *inj = getenv("CUDA_INJECTION64_PATH");
	if (!inj || !*inj)
		return;
	void *h = dlopen(inj, RTLD_NOW | RTLD_LOCAL);
	int (*init)(void) = NULL;
	if (h)
		*(void **)&init = dlsym(h, "InitializeInjection");
	if (!init) {
		fprintf(stderr, "fake_app: cannot load %s: %s\n", inj, dlerror());
		return;
	}
	init();
}

int main(int argc, char **argv)
{
	int steps = argc > 1 ? atoi(argv[1]) : 4;
	int crash = argc > 2 ? atoi(argv[2]) : -1;
	const char *lib = getenv("FAKE_CUPTI_LIB");
	void *fake = lib ? dlopen(lib, RTLD_NOW | RTLD_LOCAL) : NULL;
	if (!fake) {
		fprintf(stderr, "fake_app: FAKE_CUPTI_LIB must name the fake libcupti\n");
		return 2;
	}
	*(void **)&emit = dlsym(fake, "fake_cupti_emit");
	if (!emit)
		return 2;
	cu_init();
	if (getenv("FAKE_APP_LATE_SESSION") && tk_trace_begin(NULL, NULL) != TK_OK)
		return 2;
	device();
	for (int s = 0; s < steps; s++) {
		tk_step(s);
		if (s == crash)
			abort(); /* (SIGSEGV would do too, but sanitizers take that one over) */
		TK_SCOPE("train_step");
		launch("_Z4gemmPKfS0_Pfi", 256, 32);
		launch("_Z7softmaxPfi", 128, 128);
		launch("elementwise_add", 1024, 16);
		if (getenv("FAKE_APP_BIG_SMEM"))
			attention();
		copy(1 << 20);
		synchronize();
	}
	return 7;
}

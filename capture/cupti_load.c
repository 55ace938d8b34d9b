/*
 * Finding libcupti at run time, so that the injection library builds with no CUDA toolkit and
 * uses whichever CUPTI the traced program has (a CUDA toolkit, or the nvidia-cuda-cupti wheel a
 * framework ships). Where it looks, in order:
 *   1. TRACEKIT_LIBCUPTI, a path (no fallback when it is set);
 *   2. libcupti.so.13, libcupti.so by the loader's own search (a copy the program already
 *      loaded, LD_LIBRARY_PATH, the ld.so cache);
 *   3. lib64/ and extras/CUPTI/lib64/ under $CUDA_HOME, $CUDA_PATH, /usr/local/cuda;
 *   4. the directory the build found CUPTI in (TK_CUPTI_HINT_DIR), if any.
 * The version must be one whose record layouts cupti_abi.h describes.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cupti_abi.h"

static struct tkcap_cupti_api api;
static char load_err[1024];
static int load_rc = -1;
static pthread_once_t once = PTHREAD_ONCE_INIT;

/* dlopen @path; 1 when it is loaded into api.handle. */
static int try_open(const char *path)
{
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h)
		return 0;
	api.handle = h;
	snprintf(api.path, sizeof(api.path), "%s", path);
	return 1;
}

static int try_dir(const char *dir, const char *sub)
{
	static const char *const names[] = {"libcupti.so.13", "libcupti.so"};
	char path[512];
	if (!dir || !*dir)
		return 0;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(path, sizeof(path), "%s%s/%s", dir, sub, names[i]);
		if (try_open(path))
			return 1;
	}
	return 0;
}

static int find_library(void)
{
	const char *env = getenv("TRACEKIT_LIBCUPTI");
	if (env && *env) {
		if (try_open(env))
			return 1;
		snprintf(load_err, sizeof(load_err), "TRACEKIT_LIBCUPTI='%s' cannot be loaded: %s",
			 env, dlerror());
		return 0;
	}
	if (try_open("libcupti.so.13") || try_open("libcupti.so"))
		return 1;
	const char *roots[] = {getenv("CUDA_HOME"), getenv("CUDA_PATH"), "/usr/local/cuda"};
	for (size_t i = 0; i < sizeof(roots) / sizeof(roots[0]); i++)
		if (try_dir(roots[i], "/lib64") || try_dir(roots[i], "/extras/CUPTI/lib64"))
			return 1;
#ifdef TK_CUPTI_HINT_DIR
	if (try_dir(TK_CUPTI_HINT_DIR, ""))
		return 1;
#endif
	snprintf(load_err, sizeof(load_err),
		 "libcupti was not found (looked for libcupti.so.13 on the loader's path, under "
		 "$CUDA_HOME, $CUDA_PATH and /usr/local/cuda; set TRACEKIT_LIBCUPTI to its path)");
	return 0;
}

#define RESOLVE(field, symbol, required)                                                        \
	do {                                                                                    \
		*(void **)&api.field = dlsym(api.handle, symbol);                               \
		if (!api.field && (required)) {                                                 \
			snprintf(load_err, sizeof(load_err), "%s has no %s", api.path, symbol); \
			return -1;                                                              \
		}                                                                               \
	} while (0)

static int resolve(void)
{
	RESOLVE(GetVersion, "cuptiGetVersion", 1);
	RESOLVE(GetResultString, "cuptiGetResultString", 1);
	RESOLVE(GetCallbackName, "cuptiGetCallbackName", 0);
	RESOLVE(ActivityRegisterCallbacks, "cuptiActivityRegisterCallbacks", 1);
	RESOLVE(ActivityEnable, "cuptiActivityEnable", 1);
	RESOLVE(ActivityDisable, "cuptiActivityDisable", 1);
	RESOLVE(ActivityFlushAll, "cuptiActivityFlushAll", 1);
	RESOLVE(ActivityGetNextRecord, "cuptiActivityGetNextRecord", 1);
	RESOLVE(ActivityGetNumDroppedRecords, "cuptiActivityGetNumDroppedRecords", 0);
	RESOLVE(SetThreadIdType, "cuptiSetThreadIdType", 0);
	RESOLVE(NvtxInitialize, "cuptiNvtxInitialize", 0);
	RESOLVE(NvtxInitialize2, "cuptiNvtxInitialize2", 0);
	uint32_t v = 0;
	tkc_result r = api.GetVersion(&v);
	if (r != TKC_SUCCESS) {
		snprintf(load_err, sizeof(load_err), "%s: cuptiGetVersion failed (%d)", api.path,
			 r);
		return -1;
	}
	api.version = v;
	if (v < TKC_API_MIN || v >= TKC_API_END) {
		snprintf(load_err, sizeof(load_err),
			 "%s is CUPTI API version %u; tracekit reads the records of versions %u to "
			 "%u (CUDA 13)",
			 api.path, v, TKC_API_MIN, TKC_API_END - 1);
		return -1;
	}
	return 0;
}

static void load_once(void)
{
	if (!find_library())
		return;
	load_rc = resolve();
	if (load_rc != 0) {
		dlclose(api.handle);
		api.handle = NULL;
	}
}

int tkcap_cupti_load(const struct tkcap_cupti_api **out, char *err, size_t errlen)
{
	pthread_once(&once, load_once);
	*out = load_rc == 0 ? &api : NULL;
	if (load_rc != 0 && err && errlen)
		snprintf(err, errlen, "%s", load_err);
	return load_rc;
}

const char *tkcap_cupti_result_text(const struct tkcap_cupti_api *a, tkc_result r)
{
	const char *s = NULL;
	if (!a || !a->GetResultString || a->GetResultString(r, &s) != TKC_SUCCESS || !s)
		return "unknown CUPTI error";
	return s;
}

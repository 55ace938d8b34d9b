/*
 * libtracekit_cupti.so, the CUPTI injection library: the CUDA driver loads it through
 * CUDA_INJECTION64_PATH and calls InitializeInjection() during cuInit. It enables the activity
 * kinds, hands CUPTI 4 MB buffers, decodes completed buffers on its own thread into the store
 * named by TRACEKIT_OUTPUT (through the writer API, with cupti_decode.c), and finishes the store
 * at exit or on a fatal signal. The application's host annotations join the same store through
 * tkcap_cupti_host_hooks(). As a tool it prints one-line messages on stderr ("tracekit: ...").
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <tracekit/error.h>

#include "cupti_decode.h"
#include "host.h"

#define TK_EXPORT __attribute__((visibility("default")))
#define BUFFER_BYTES (4u << 20)
#define MAX_QUEUED 64 /* buffers waiting for the decoder (256 MB); CUPTI drops beyond */

struct buffer {
	struct buffer *next;
	uint8_t *data;
	size_t valid;
	uint32_t stream;
};

static struct {
	pthread_mutex_t mu;  /* the writer and everything below; taken before qmu */
	pthread_mutex_t qmu; /* the buffer queue */
	pthread_cond_t qcv;
	struct buffer *queue, *queue_tail;
	int queued, stop, thread_started, cupti_on, initialized, finished, host_attached;
	int armed;	       /* the application's windows want device tracing now (hook_arm) */
	int driver_asked;      /* driver_limits() ran */
	int64_t driver_limits; /* devices whose shared memory limits came from the driver */
	int gated_on;	       /* the costly kinds are enabled in CUPTI */
	int64_t arm_changes;   /* enable/disable switches, for meta */
	pthread_t thread;
	char *path;
	struct tk_trace_options o;
	struct tkcap_window win;
	tk_writer *w;
	struct tkcap_host_writer *hw;
	struct tkcap_cupti_decoder *dec;
	void (*host_flush)(void);
	int64_t declined;
	const struct tkcap_cupti_api *cupti;
} G = {.mu = PTHREAD_MUTEX_INITIALIZER,
       .qmu = PTHREAD_MUTEX_INITIALIZER,
       .qcv = PTHREAD_COND_INITIALIZER};

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
	char line[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	fprintf(stderr, "tracekit: %s\n", line);
}

/* Open the store (G.mu held); TK_OK when it is open. */
static int open_store(const char *path, const struct tk_trace_options *o, const char *format)
{
	if (G.w)
		return TK_OK;
	if (G.finished)
		return TK_EINVAL;
	int64_t process_id;
	int rc = tk_writer_create(path, &G.w);
	if (rc == TK_OK)
		rc = tkcap_store_setup(G.w, format, o, &process_id);
	if (rc == TK_OK)
		rc = tkcap_host_writer_create(G.w, process_id, getpid(), &G.hw);
	if (rc == TK_OK)
		rc = tkcap_cupti_decoder_create(G.w, process_id, G.hw, G.cupti, &G.dec);
	if (rc != TK_OK) {
		say("cannot create the store '%s': %s", path,
		    G.w ? tk_writer_errmsg(G.w) : tk_strerror(rc));
		tkcap_cupti_decoder_free(G.dec);
		tkcap_host_writer_free(G.hw);
		tk_writer_abort(G.w);
		G.dec = NULL;
		G.hw = NULL;
		G.w = NULL;
		return rc;
	}
	free(G.path);
	G.path = strdup(path);
	G.o = *o;
	tkcap_cupti_decoder_thread_names(G.dec, 1);
	tkcap_window_start(&G.win, o, tkcap_now_ns());
	tkcap_cupti_decoder_gate(G.dec, G.win.by_steps || o->duration_ms > 0);
	if (G.win.open)
		tkcap_cupti_decoder_window(G.dec, 1, tkcap_now_ns());
	if (G.win.deadline_ns)
		tkcap_cupti_decoder_window(G.dec, 0, G.win.deadline_ns);
	return TK_OK;
}

/* ---- buffers and the decoder thread ---- */

static void buffer_requested(uint8_t **buffer, size_t *size, size_t *max_records)
{
	*buffer = NULL;
	*size = 0;
	*max_records = 0;
	pthread_mutex_lock(&G.qmu);
	int full = G.queued >= MAX_QUEUED;
	if (full)
		G.declined++;
	pthread_mutex_unlock(&G.qmu);
	if (full)
		return; /* CUPTI counts what it drops: cuptiActivityGetNumDroppedRecords */
	uint8_t *b = aligned_alloc(8, BUFFER_BYTES);
	if (b) {
		*buffer = b;
		*size = BUFFER_BYTES;
	}
}

static void buffer_completed(void *ctx, uint32_t stream, uint8_t *buffer, size_t size, size_t valid)
{
	(void)ctx;
	(void)size;
	struct buffer *b = malloc(sizeof(*b));
	if (!b) {
		free(buffer);
		return;
	}
	*b = (struct buffer){NULL, buffer, valid, stream};
	pthread_mutex_lock(&G.qmu);
	if (G.queue_tail)
		G.queue_tail->next = b;
	else
		G.queue = b;
	G.queue_tail = b;
	G.queued++;
	pthread_cond_signal(&G.qcv);
	pthread_mutex_unlock(&G.qmu);
}

/* Decode and free @b (G.mu held). */
static void decode_locked(struct buffer *b)
{
	if (G.dec && b->valid)
		tkcap_cupti_decode_buffer(G.dec, b->data, b->valid);
	size_t dropped = 0;
	if (G.dec && G.cupti->ActivityGetNumDroppedRecords &&
	    G.cupti->ActivityGetNumDroppedRecords(NULL, b->stream, &dropped) == TKC_SUCCESS &&
	    dropped)
		tkcap_cupti_decoder_add_dropped(G.dec, (int64_t)dropped);
	free(b->data);
	free(b);
}

/*
 * The opt-in and reserved shared memory per block, which occupancy needs and the device record
 * lacks, from the driver (once, G.mu held, never from a signal handler): by the time a buffer
 * completes, cuInit has returned. Without a driver the decoder's assumptions stay.
 */
static void driver_limits(void)
{
	if (G.driver_asked || !G.dec)
		return;
	G.driver_asked = 1;
	void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD); /* only the one in use */
	int (*count)(int *);
	int (*get)(int *, int);
	int (*attr)(int *, int, int);
	*(void **)&count = dlsym(h ? h : RTLD_DEFAULT, "cuDeviceGetCount");
	*(void **)&get = dlsym(h ? h : RTLD_DEFAULT, "cuDeviceGet");
	*(void **)&attr = dlsym(h ? h : RTLD_DEFAULT, "cuDeviceGetAttribute");
	int n = 0;
	if (count && get && attr && count(&n) == 0) {
		enum {
			OPTIN = 97,
			RESERVED = 111
		}; /* CU_DEVICE_ATTRIBUTE_*_SHARED_MEMORY_PER_BLOCK* */
		for (int i = 0; i < n && i < 256; i++) {
			int dev, optin, reserved;
			if (get(&dev, i) == 0 && attr(&optin, OPTIN, dev) == 0 &&
			    attr(&reserved, RESERVED, dev) == 0 && optin > 0 && reserved >= 0) {
				tkcap_cupti_decoder_set_limits(G.dec, (uint32_t)i, optin, reserved);
				G.driver_limits++;
			}
		}
	}
	if (h)
		dlclose(h);
}

/* Take the queued buffers (all of them; G.qmu held); NULL when none. */
static struct buffer *take_queue(void)
{
	struct buffer *b = G.queue;
	G.queue = G.queue_tail = NULL;
	G.queued = 0;
	return b;
}

/*
 * Decode the queued buffers one at a time, each taken from the queue with G.mu held until it
 * is decoded: whoever holds G.mu knows that every completed buffer is either decoded or still
 * queued (finish() relies on it, whatever the scheduling).
 */
static void decode_queue(void)
{
	for (;;) {
		pthread_mutex_lock(&G.mu);
		pthread_mutex_lock(&G.qmu);
		struct buffer *b = G.queue;
		if (b) {
			G.queue = b->next;
			if (!G.queue)
				G.queue_tail = NULL;
			G.queued--;
		}
		pthread_mutex_unlock(&G.qmu);
		if (b) {
			driver_limits();
			decode_locked(b);
		}
		pthread_mutex_unlock(&G.mu);
		if (!b)
			return;
	}
}

static tkc_result set_gated(int on);

/* A whole-run window limited by --duration-ms: the costly kinds go off once it is over. */
static void duration_over(void)
{
	pthread_mutex_lock(&G.mu);
	if (G.cupti_on && G.gated_on && !G.win.by_steps && G.win.deadline_ns &&
	    tkcap_now_ns() >= G.win.deadline_ns)
		set_gated(0);
	pthread_mutex_unlock(&G.mu);
}

static void *decoder_main(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&G.qmu);
	while (!G.stop) {
		if (!G.queue) {
			struct timespec until;
			clock_gettime(CLOCK_REALTIME, &until);
			until.tv_sec += 1;
			if (pthread_cond_timedwait(&G.qcv, &G.qmu, &until) == ETIMEDOUT) {
				pthread_mutex_unlock(&G.qmu);
				G.cupti->ActivityFlushAll(0); /* completed buffers only */
				duration_over();
				pthread_mutex_lock(&G.qmu);
			}
			continue;
		}
		pthread_mutex_unlock(&G.qmu);
		decode_queue();
		pthread_mutex_lock(&G.qmu);
	}
	pthread_mutex_unlock(&G.qmu);
	return NULL;
}

/* ---- session end ---- */

/*
 * Kinds enabled for the whole run (cheap: one record per device or allocation), and kinds
 * enabled only while a window is open or about to open (the instrumentation of every launch
 * and API call): outside windows the program runs without CUPTI's per-call costs.
 */
static const uint32_t always_kinds[] = {TKC_KIND_DEVICE, TKC_KIND_MEMORY2};
static const uint32_t gated_kinds[] = {
    TKC_KIND_CONCURRENT_KERNEL,
    TKC_KIND_MEMCPY,
    TKC_KIND_MEMSET,
    TKC_KIND_RUNTIME,
    TKC_KIND_DRIVER,
    TKC_KIND_SYNCHRONIZATION,
    TKC_KIND_MARKER,
    TKC_KIND_OVERHEAD,
};
#define NKINDS(a) (sizeof(a) / sizeof((a)[0]))

/* Enable or disable the gated kinds (G.mu held); the first failure's result. */
static tkc_result set_gated(int on)
{
	tkc_result first = TKC_SUCCESS;
	if (G.gated_on == on)
		return first;
	for (size_t i = 0; i < NKINDS(gated_kinds); i++) {
		tkc_result r = on ? G.cupti->ActivityEnable(gated_kinds[i])
				  : G.cupti->ActivityDisable(gated_kinds[i]);
		if (r != TKC_SUCCESS && first == TKC_SUCCESS)
			first = r;
	}
	G.gated_on = on;
	G.arm_changes++;
	return first;
}

static void disable_all(void)
{
	for (size_t i = 0; i < NKINDS(always_kinds); i++)
		G.cupti->ActivityDisable(always_kinds[i]);
	for (size_t i = 0; i < NKINDS(gated_kinds); i++)
		G.cupti->ActivityDisable(gated_kinds[i]);
	G.gated_on = 0;
}

static void sleep_ms(long ms)
{
	struct timespec t = {ms / 1000, ms % 1000 * 1000000};
	nanosleep(&t, NULL);
}

/*
 * Take @m; from a signal handler only within about 2 s, since its holder may be the thread
 * that crashed (trylock and nanosleep, no blocking wait).
 */
static int lock_for(pthread_mutex_t *m, int from_signal)
{
	if (!from_signal)
		return pthread_mutex_lock(m);
	for (int i = 0; i < 2000; i++) {
		if (pthread_mutex_trylock(m) == 0)
			return 0;
		sleep_ms(1);
	}
	return -1;
}

/* Flush CUPTI, decode everything, finish the store. @from_signal: bounded waits on locks. */
static void finish(int from_signal)
{
	if (__atomic_exchange_n(&G.finished, 1, __ATOMIC_ACQ_REL))
		return;
	if (!from_signal && G.host_flush)
		G.host_flush(); /* the application's annotations first */
	if (G.cupti_on)
		G.cupti->ActivityFlushAll(TKC_FLAG_FLUSH_FORCED);
	if (G.thread_started) { /* the decoder thread stops; its queue is decoded below */
		if (lock_for(&G.qmu, from_signal))
			return;
		G.stop = 1;
		if (!from_signal)
			pthread_cond_signal(&G.qcv);
		pthread_mutex_unlock(&G.qmu);
		if (!from_signal) {
			pthread_join(G.thread, NULL);
			G.thread_started = 0;
		} /* from a signal: no wait; holding G.mu below, nothing is half-decoded */
	}
	if (lock_for(&G.mu, from_signal))
		return;
	if (lock_for(&G.qmu, from_signal)) {
		pthread_mutex_unlock(&G.mu);
		return;
	}
	struct buffer *b = take_queue();
	pthread_mutex_unlock(&G.qmu);
	if (!from_signal)
		driver_limits();
	while (b) {
		struct buffer *next = b->next;
		decode_locked(b);
		b = next;
	}
	if (!G.w) {
		pthread_mutex_unlock(&G.mu);
		return;
	}
	struct tkcap_cupti_stats st;
	tkcap_cupti_decoder_add_dropped(G.dec, G.declined);
	tkcap_cupti_decoder_stats(G.dec, &st);
	if (G.cupti_on)
		tkcap_cupti_decoder_finish(G.dec);
	if (from_signal)
		tk_writer_set_meta_text(G.w, "capture.ended_by", "signal");
	if (G.cupti_on) {
		tk_writer_set_meta_int(G.w, "capture.cupti_switches", G.arm_changes);
		tk_writer_set_meta_int(G.w, "capture.driver_smem_limits", G.driver_limits);
	}
	tkcap_cupti_decoder_free(G.dec);
	tkcap_host_writer_free(G.hw);
	tk_error *err = tk_error_new();
	int rc = tk_writer_finish(G.w, err);
	G.w = NULL;
	G.dec = NULL;
	G.hw = NULL;
	pthread_mutex_unlock(&G.mu);
	if (rc != TK_OK)
		say("cannot write the store '%s': %s", G.path, tk_error_message(err));
	tk_error_free(err);
	if (st.dropped)
		say("CUPTI dropped %lld activity records (buffers full or declined); the store "
		    "counts them in meta cupti.dropped_records",
		    (long long)st.dropped);
	if (G.win.by_steps && !G.host_attached)
		say("no step markers (tk_step) were seen: the step window recorded nothing");
}

static void at_exit(void)
{
	finish(0);
}

/* The store is finished at exit (once registered, by whichever came first). */
static void finish_at_exit(void)
{
	static int done;
	if (!__atomic_exchange_n(&done, 1, __ATOMIC_ACQ_REL))
		atexit(at_exit);
}

static void on_fatal(int sig)
{
	finish(1);
	signal(sig, SIG_DFL);
	raise(sig);
}

/* ---- host hooks: the application's annotation session joins this store ---- */

static int hook_attach(const char *path, const struct tk_trace_options *o, void (*flush)(void))
{
	pthread_mutex_lock(&G.mu);
	const char *env = getenv("TRACEKIT_OUTPUT");
	int rc = open_store(G.w ? G.path : env && *env ? env : path, o, "tracekit");
	if (rc == TK_OK) {
		G.host_flush = flush;
		G.host_attached = 1;
	}
	pthread_mutex_unlock(&G.mu);
	if (rc == TK_OK)
		finish_at_exit();
	return rc;
}

static void hook_records(int64_t tid, const char *name, const struct tkcap_host_rec *r, size_t n)
{
	pthread_mutex_lock(&G.mu);
	if (G.hw)
		tkcap_host_writer_records(G.hw, tid, name, r, n);
	pthread_mutex_unlock(&G.mu);
}

static void hook_steps(const struct tkcap_host_step *s, size_t n)
{
	pthread_mutex_lock(&G.mu);
	if (G.hw)
		tkcap_host_writer_steps(G.hw, s, n);
	pthread_mutex_unlock(&G.mu);
}

static void hook_arm(int on)
{
	pthread_mutex_lock(&G.mu);
	G.armed = on;
	if (G.cupti_on)
		set_gated(on);
	pthread_mutex_unlock(&G.mu);
}

static void hook_window(int open, int64_t ts)
{
	pthread_mutex_lock(&G.mu);
	if (G.dec) {
		tkcap_cupti_decoder_gate(G.dec, 1); /* the application's windows rule */
		tkcap_cupti_decoder_window(G.dec, open, ts);
	}
	pthread_mutex_unlock(&G.mu);
}

static int hook_detach(char *errbuf, size_t errlen)
{
	pthread_mutex_lock(&G.mu);
	G.host_flush = NULL; /* done: the store is finished at exit */
	int rc = G.w ? tk_writer_status(G.w) : TK_OK;
	snprintf(errbuf, errlen, "%s", G.w ? tk_writer_errmsg(G.w) : "");
	pthread_mutex_unlock(&G.mu);
	return rc;
}

TK_EXPORT const struct tkcap_cupti_hooks *tkcap_cupti_host_hooks(void)
{
	static const struct tkcap_cupti_hooks hooks = {TK_CUPTI_HOOKS_VERSION,
						       hook_attach,
						       hook_records,
						       hook_steps,
						       hook_window,
						       hook_detach,
						       hook_arm};
	return &hooks;
}

/* ---- entry points ---- */

static void start_fatal_handlers(void)
{
	static const int sigs[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTERM, SIGINT};
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		struct sigaction old;
		if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_DFL)
			signal(sigs[i], on_fatal); /* a program's own handlers are kept */
	}
}

TK_EXPORT int InitializeInjection(void)
{
	if (__atomic_exchange_n(&G.initialized, 1, __ATOMIC_ACQ_REL))
		return 1;
	struct tk_trace_options o;
	tk_error *env_err = tk_error_new();
	int env_rc = tk_trace_options_from_env(&o, env_err);
	if (env_rc != TK_OK)
		say("%s; device activity is not recorded", tk_error_message(env_err));
	tk_error_free(env_err);
	if (env_rc != TK_OK)
		return 1;
	char err[640];
	const char *path = getenv("TRACEKIT_OUTPUT");
	char fallback[64];
	if (!path || !*path) {
		snprintf(fallback, sizeof(fallback), "tracekit-%d.db", (int)getpid());
		path = fallback;
	}
	if (tkcap_cupti_load(&G.cupti, err, sizeof(err)) != 0) {
		say("%s: the program runs untraced on the device side", err);
		return 1;
	}
	const struct tkcap_cupti_api *c = G.cupti;
	/* Step windows enable the costly kinds a step ahead of each window: the application's
	 * annotation session says when (hook_arm). Without one, they are on from the start unless
	 * step options ask for windows no tk_step() will open. */
	int by_steps = o.start_step >= 0 || o.steps > 0 || o.every > 0;
	pthread_mutex_lock(&G.mu);
	tkc_result r = c->ActivityRegisterCallbacks(buffer_requested, buffer_completed);
	const char *what = "cuptiActivityRegisterCallbacks";
	for (size_t i = 0; r == TKC_SUCCESS && i < NKINDS(always_kinds); i++) {
		r = c->ActivityEnable(always_kinds[i]);
		what = "cuptiActivityEnable";
	}
	if (r == TKC_SUCCESS && (G.host_attached ? G.armed : !by_steps))
		r = set_gated(1);
	if (r != TKC_SUCCESS)
		disable_all();
	pthread_mutex_unlock(&G.mu);
	if (r != TKC_SUCCESS) {
		say("CUPTI activity tracing is unavailable (%s: %s; no GPU, no driver, or another "
		    "profiler holds CUPTI): the program runs untraced on the device side",
		    what, tkcap_cupti_result_text(c, r));
		return 1; /* the program goes on */
	}
	if (c->SetThreadIdType)
		c->SetThreadIdType(TKC_THREAD_ID_TYPE_SYSTEM); /* gettid(), as host events */
	pthread_mutex_lock(&G.mu);
	int rc = G.w ? tk_writer_add_source(G.w, "cupti", NULL, NULL, TK_NONE) /* host first */
		     : open_store(path, &o, "cupti");
	if (rc == TK_OK)
		tkcap_cupti_decoder_set_api(G.dec, c);
	if (rc == TK_OK)
		rc = tk_writer_set_meta_text(G.w, "source", "cupti");
	if (rc == TK_OK)
		rc = tk_writer_set_meta_text(G.w, "cupti.library", c->path);
	if (rc == TK_OK)
		rc = tk_writer_set_meta_int(G.w, "cupti.api_version", c->version);
	if (rc == TK_OK) {
		G.cupti_on = 1;
		if (G.host_attached)
			set_gated(G.armed); /* the windows may have moved meanwhile */
	} else {
		disable_all();
	}
	pthread_mutex_unlock(&G.mu);
	if (rc != TK_OK)
		return 1;
	if (pthread_create(&G.thread, NULL, decoder_main, NULL) == 0)
		G.thread_started = 1;
	finish_at_exit();
	start_fatal_handlers();
	return 1;
}

/*
 * NVTX_INJECTION64_PATH: hand NVTX to CUPTI so that ranges arrive as MARKER records. NVTX may
 * call this before cuInit; 0 (NVTX stays off) when libcupti cannot be loaded.
 */
TK_EXPORT int InitializeInjectionNvtx(void *get_export_table)
{
	const struct tkcap_cupti_api *c;
	if (tkcap_cupti_load(&c, NULL, 0) != 0 || !c->NvtxInitialize)
		return 0;
	return c->NvtxInitialize(get_export_table);
}

TK_EXPORT int InitializeInjectionNvtx2(void *get_export_table)
{
	const struct tkcap_cupti_api *c;
	if (tkcap_cupti_load(&c, NULL, 0) != 0 || !c->NvtxInitialize2)
		return 0;
	return c->NvtxInitialize2(get_export_table);
}

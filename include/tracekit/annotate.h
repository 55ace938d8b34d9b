/*
 * tracekit host annotation API: a program records its own scopes, functions, steps, instant
 * markers, counters and host allocations into a tracekit store, with or without a GPU.
 *
 *   tk_trace_begin("run.db", NULL);     // or NULL: TRACEKIT_OUTPUT and the other env vars
 *   for (int s = 0; s < 10; s++) {
 *       tk_step(s);                      // step markers drive the profiling windows
 *       TK_SCOPE("forward");             // a scope to the end of the enclosing block
 *       ...
 *   }
 *   tk_trace_end();                      // writes the store (atomically)
 *
 * Cost when tracing is off (no session, or outside a profiling window): one predictable branch
 * on a global flag per annotation. Thread-safe: every thread records into its own buffer; one
 * writer thread turns full buffers into store rows. Times are CLOCK_REALTIME nanoseconds (the
 * same clock as CUPTI's activity records). Names are kept by pointer until they are written:
 * pass string literals, __func__, or strings that live until tk_trace_end() (tk_trace_name()
 * makes such a copy). See docs/capture.md.
 */
#ifndef TRACEKIT_ANNOTATE_H
#define TRACEKIT_ANNOTATE_H

#include <stddef.h>
#include <stdint.h>
#include <tracekit/error.h>

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default)

/* Profiling windows; a field of -1 means "not set" (TRACEKIT_* environment variables). */
struct tk_trace_options {
	int64_t start_step;   /* first step recorded (TRACEKIT_START_STEP); -1: from the start */
	int64_t steps;	      /* steps per profile (TRACEKIT_STEPS); -1 or 0: to the end */
	int64_t every;	      /* a profile starts every E steps (TRACEKIT_EVERY); -1: once */
	int64_t max_profiles; /* at most M profiles (TRACEKIT_MAX_PROFILES); -1: no limit */
	int64_t duration_ms;  /* a profile also stops D ms after it starts (TRACEKIT_DURATION_MS) */
};

/** tk_trace_options_init() - every field "not set". */
void tk_trace_options_init(struct tk_trace_options *o);

/**
 * tk_trace_options_from_env() - fill @o from the TRACEKIT_* variables. Returns TK_OK, or
 * TK_EINVAL when one is not a non-negative integer (the message naming it is in @err, may be
 * NULL).
 */
int tk_trace_options_from_env(struct tk_trace_options *o, tk_error *err);

/**
 * tk_trace_begin() - start a tracing session that writes the store @path at tk_trace_end().
 * @param path     the store; NULL takes TRACEKIT_OUTPUT, and when that is unset too the call
 *                 succeeds and nothing is recorded
 * @param options  the windows; NULL takes the TRACEKIT_* variables
 * @return TK_OK (also when a session is already running: it is kept), or an error
 */
int tk_trace_begin(const char *path, const struct tk_trace_options *options);

/**
 * tk_trace_end() - stop recording and write the store. Returns TK_OK (also when no session
 * runs) or the writer's error; the message is in tk_trace_errmsg(). Called at exit when a
 * session is still running.
 */
int tk_trace_end(void);

/**
 * tk_trace_errmsg() - the message of the session's last error, "" when none (static storage:
 * the session is process-wide, so it has no handle to carry a tk_error; the message is the
 * tk_error_message() of the failure).
 */
const char *tk_trace_errmsg(void);

/** tk_trace_active() - 1 while events are being recorded (a session in a window). */
int tk_trace_active(void);

/** tk_trace_name() - a copy of @s that lives until the session ends (for dynamic names). */
const char *tk_trace_name(const char *s);

/** tk_step() - step @n starts now (the previous one ends); opens and closes the windows. */
void tk_step(int64_t n);

/** tk_mark() - an instant marker on the calling thread. */
void tk_mark(const char *name);

/** tk_counter() - a sample of the counter @name (one counter track per name). */
void tk_counter(const char *name, double value);

/**
 * tk_record_alloc()/tk_record_free() - record that the program allocated / freed @bytes at @ptr
 * through @allocator (or NULL): memory events in the store. They only record: they never
 * allocate or free anything.
 */
void tk_record_alloc(const void *ptr, size_t bytes, const char *allocator);
void tk_record_free(const void *ptr, size_t bytes, const char *allocator);

/* ---- scopes ---- */

/* An open scope; ts_ns == 0 when it is not recorded. */
struct tk_scope {
	const char *name;
	int64_t ts_ns;
	uint32_t generation;
	uint32_t category; /* 0 scope, 1 function */
};

/* Set while events are recorded; read by the inline checks below. */
extern int tk__tracing;

/* tk__scope_begin()/tk__scope_end() - the recording halves of tk_scope_begin()/tk_scope_end()
 * (not to be called directly: the inline checks below call them only while recording). */
struct tk_scope tk__scope_begin(const char *name, uint32_t category);
void tk__scope_end(struct tk_scope *s);

/** tk_scope_begin() - open a scope named @name; close it with tk_scope_end(). */
static inline struct tk_scope tk_scope_begin(const char *name)
{
	if (__builtin_expect(!__atomic_load_n(&tk__tracing, __ATOMIC_RELAXED), 1)) {
		struct tk_scope s = {name, 0, 0, 0};
		return s;
	}
	return tk__scope_begin(name, 0);
}

/** tk_scope_end() - close @s (records it when it was opened while recording). */
static inline void tk_scope_end(struct tk_scope *s)
{
	if (__builtin_expect(s->ts_ns != 0, 0))
		tk__scope_end(s);
}

static inline struct tk_scope tk__func_begin(const char *name)
{
	if (__builtin_expect(!__atomic_load_n(&tk__tracing, __ATOMIC_RELAXED), 1)) {
		struct tk_scope s = {name, 0, 0, 1};
		return s;
	}
	return tk__scope_begin(name, 1);
}

#define TK__CAT2(a, b) a##b
#define TK__CAT(a, b) TK__CAT2(a, b)
/* A name of its own for each scope variable, also for several scopes on one line. */
#ifdef __COUNTER__
#define TK__UNIQUE(prefix) TK__CAT(prefix, __COUNTER__)
#else
#define TK__UNIQUE(prefix) TK__CAT(prefix, __LINE__)
#endif

/*
 * TK_SCOPE("name") - record the rest of the enclosing block as a scope (GCC/Clang, C and C++).
 * The variable is only read by its cleanup: "unused" keeps -Wunused-variable quiet (clang).
 */
#define TK_SCOPE(name)                                                                          \
	struct tk_scope TK__UNIQUE(tk__scope_) __attribute__((cleanup(tk_scope_end), unused)) = \
	    tk_scope_begin(name)

/** TK_FUNC() - record the rest of the enclosing function as a scope named after it. */
#define TK_FUNC()                                                                              \
	struct tk_scope TK__UNIQUE(tk__func_) __attribute__((cleanup(tk_scope_end), unused)) = \
	    tk__func_begin(__func__)

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif

#endif

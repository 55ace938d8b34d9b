/*
 * The host annotation API (include/tracekit/annotate.h): one process-wide session, per-thread
 * record buffers (a mutex each, uncontended but for hand-offs), a writer thread that turns full
 * buffers into store rows, steps and profiling windows, and the hand-over to the CUPTI injection
 * library when `tracekit record` loaded it (then its store receives the host records).
 * Workload: a record is a clock read and a 48-byte append; nothing runs when tracing is off.
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <tracekit/error.h>

#include "host.h"
#include "util/vec.h"

#define CHUNK_RECS 4096

struct chunk {
	struct chunk *next;
	int64_t tid;
	char thread_name[32];
	size_t n;
	struct tkcap_host_rec r[CHUNK_RECS];
};

/* A thread's buffer; never freed (threads may hold it), reused after the thread exits. */
struct tbuf {
	pthread_mutex_t mu;
	struct tbuf *next;
	struct chunk *cur;
	int64_t tid;
	int dead;
	char name[32];
};

struct name_copy {
	struct name_copy *next;
	char s[];
};

int tk__tracing;

static struct {
	pthread_mutex_t mu; /* everything below */
	pthread_cond_t cv;
	int running, stop, atexit_done;
	uint32_t gen; /* current session; read atomically without mu */
	char *path;
	struct tkcap_window win;
	struct tbuf *bufs;
	struct chunk *full, *full_tail;
	struct tkcap_host_step *steps;
	size_t nsteps, steps_cap;
	int step_open;	     /* the last step is in a window and not ended */
	int64_t (*spans)[2]; /* the windows so far, [open, close); close INT64_MAX while open */
	size_t nspans, spans_cap;
	int spans_lost; /* out of memory for a span: every record is kept */
	struct name_copy *names;
	int64_t dropped;
	pthread_t thread;
	int thread_started;
	/* the store: ours, or the injection library's */
	const struct tkcap_cupti_hooks *hooks;
	tk_writer *w;
	struct tkcap_host_writer *hw;
	char err[512];
} S = {.mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER};

static _Thread_local struct tbuf *my_buf;
static pthread_key_t buf_key;
static pthread_once_t key_once = PTHREAD_ONCE_INIT;

static void set_tracing(int on)
{
	__atomic_store_n(&tk__tracing, on, __ATOMIC_RELAXED);
}

static void buf_release(void *p)
{
	struct tbuf *b = p;
	pthread_mutex_lock(&b->mu);
	b->dead = 1; /* its records stay until the session takes them */
	pthread_mutex_unlock(&b->mu);
}

static void make_key(void)
{
	pthread_key_create(&buf_key, buf_release);
}

/* The calling thread's buffer, registered on first use; NULL when out of memory. */
static struct tbuf *thread_buf(void)
{
	if (my_buf)
		return my_buf;
	pthread_once(&key_once, make_key);
	int64_t tid = (int64_t)syscall(SYS_gettid);
	struct tbuf *b = NULL;
	pthread_mutex_lock(&S.mu);
	for (struct tbuf *x = S.bufs; x && !b; x = x->next) {
		pthread_mutex_lock(&x->mu);
		if (x->dead && !x->cur) {
			x->dead = 0;
			b = x;
		}
		pthread_mutex_unlock(&x->mu);
	}
	if (!b && (b = calloc(1, sizeof(*b)))) {
		pthread_mutex_init(&b->mu, NULL);
		b->next = S.bufs;
		S.bufs = b;
	}
	pthread_mutex_unlock(&S.mu);
	if (!b)
		return NULL;
	pthread_mutex_lock(&b->mu);
	b->tid = tid;
	char path[64];
	snprintf(path, sizeof(path), "/proc/self/task/%lld/comm", (long long)tid);
	b->name[0] = 0;
	FILE *f = fopen(path, "r");
	if (f) {
		if (fgets(b->name, sizeof(b->name), f))
			b->name[strcspn(b->name, "\n")] = 0;
		fclose(f);
	}
	pthread_mutex_unlock(&b->mu);
	pthread_setspecific(buf_key, b);
	my_buf = b;
	return b;
}

/* Queue a full chunk for the writer thread (S.mu held). */
static void queue_chunk(struct chunk *c)
{
	c->next = NULL;
	if (S.full_tail)
		S.full_tail->next = c;
	else
		S.full = c;
	S.full_tail = c;
	pthread_cond_signal(&S.cv);
}

static void put(const struct tkcap_host_rec *r, uint32_t gen)
{
	struct chunk *full = NULL;
	int ok = 0;
	struct tbuf *b = thread_buf();
	if (!b)
		goto drop;
	pthread_mutex_lock(&b->mu);
	if (gen != __atomic_load_n(&S.gen, __ATOMIC_ACQUIRE)) { /* that session has ended */
		pthread_mutex_unlock(&b->mu);
		return;
	}
	if (b->cur && b->cur->n == CHUNK_RECS) {
		full = b->cur;
		b->cur = NULL;
	}
	if (!b->cur && (b->cur = malloc(sizeof(*b->cur)))) {
		b->cur->n = 0;
		b->cur->tid = b->tid;
		memcpy(b->cur->thread_name, b->name, sizeof(b->name));
	}
	if (b->cur) {
		b->cur->r[b->cur->n++] = *r;
		ok = 1;
	}
	pthread_mutex_unlock(&b->mu);
	if (full) { /* S.mu is never taken with a buffer's lock held */
		pthread_mutex_lock(&S.mu);
		if (gen == S.gen) {
			queue_chunk(full);
			full = NULL;
		}
		pthread_mutex_unlock(&S.mu);
		if (full) {
			__atomic_add_fetch(&S.dropped, (int64_t)full->n, __ATOMIC_RELAXED);
			free(full);
		}
	}
	if (ok)
		return;
drop:
	__atomic_add_fetch(&S.dropped, 1, __ATOMIC_RELAXED);
}

/*
 * The windows as time spans (S.mu held): a record is written when it starts inside one. The
 * flag the annotations test is only a first filter: another thread may read it just before a
 * step closes the window and its clock just after. Boundaries are timed and recorded under
 * S.mu, and chunks are filtered under S.mu, so every record is judged against the spans of
 * its time, whatever the scheduling. Out of memory: records are kept, as before the spans.
 */
static void span_open(int64_t now)
{
	if (S.nspans && S.spans[S.nspans - 1][1] == INT64_MAX)
		return;
	if (TKU_GROW(S.spans, S.spans_cap, S.nspans + 1, 16) != TK_OK) {
		S.spans_lost = 1;
		return;
	}
	S.spans[S.nspans][0] = now;
	S.spans[S.nspans++][1] = INT64_MAX;
}

static void span_close(int64_t now)
{
	if (S.nspans && S.spans[S.nspans - 1][1] == INT64_MAX)
		S.spans[S.nspans - 1][1] = now;
}

static int in_span(int64_t ts)
{
	if (S.spans_lost)
		return 1;
	for (size_t i = S.nspans; i-- > 0;)
		if (ts >= S.spans[i][0] && ts < S.spans[i][1])
			return 1;
	return 0;
}

/* Keep the records of @c that start inside a window (S.mu held). */
static void filter_chunk(struct chunk *c)
{
	size_t n = 0;
	for (size_t i = 0; i < c->n; i++)
		if (in_span(c->r[i].ts_ns))
			c->r[n++] = c->r[i];
	c->n = n;
}

/* Records to the store (ours or the injection's); S.w and S.hw are the writer thread's. */
static void write_chunk(struct chunk *c)
{
	if (c->n && S.hooks)
		S.hooks->records(c->tid, c->thread_name, c->r, c->n);
	else if (c->n && S.hw)
		tkcap_host_writer_records(S.hw, c->tid, c->thread_name, c->r, c->n);
	free(c);
}

static void *writer_main(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&S.mu);
	for (;;) {
		while (!S.full && !S.stop)
			pthread_cond_wait(&S.cv, &S.mu);
		if (!S.full)
			break;
		struct chunk *c = S.full;
		S.full = c->next;
		if (!S.full)
			S.full_tail = NULL;
		filter_chunk(c);
		pthread_mutex_unlock(&S.mu);
		write_chunk(c);
		pthread_mutex_lock(&S.mu);
	}
	pthread_mutex_unlock(&S.mu);
	return NULL;
}

/* Close the open step at @ts (S.mu held). */
static void end_step(int64_t ts)
{
	if (S.step_open) {
		S.steps[S.nsteps - 1].end_ns = ts;
		S.step_open = 0;
	}
}

/* The window closed by its duration at @now (S.mu held). */
static void window_closed(int64_t now)
{
	set_tracing(0);
	end_step(now);
	span_close(now);
	if (S.hooks) {
		S.hooks->window(0, now);
		S.hooks->arm(0);
	}
}

/* Duration check on the recording path: returns 0 when the window just closed. */
static int still_open(int64_t now)
{
	if (!S.win.deadline_ns || now < S.win.deadline_ns)
		return 1;
	pthread_mutex_lock(&S.mu);
	if (S.running && S.win.open && !tkcap_window_tick(&S.win, now))
		window_closed(now);
	pthread_mutex_unlock(&S.mu);
	return 0;
}

struct tk_scope tk__scope_begin(const char *name, uint32_t category)
{
	struct tk_scope s = {name, 0, 0, category};
	int64_t now = tkcap_now_ns();
	if (!still_open(now))
		return s;
	s.generation = __atomic_load_n(&S.gen, __ATOMIC_ACQUIRE);
	s.ts_ns = now;
	return s;
}

void tk__scope_end(struct tk_scope *s)
{
	int64_t now = tkcap_now_ns();
	struct tkcap_host_rec r = {.type = TK_HR_SCOPE,
				   .category = (uint8_t)s->category,
				   .name = s->name,
				   .ts_ns = s->ts_ns,
				   .dur_ns = now - s->ts_ns};
	put(&r, s->generation);
	s->ts_ns = 0;
}

static void record(struct tkcap_host_rec *r)
{
	if (!__atomic_load_n(&tk__tracing, __ATOMIC_RELAXED))
		return;
	r->ts_ns = tkcap_now_ns();
	uint32_t gen = __atomic_load_n(&S.gen, __ATOMIC_ACQUIRE);
	if (still_open(r->ts_ns))
		put(r, gen);
}

void tk_mark(const char *name)
{
	struct tkcap_host_rec r = {.type = TK_HR_MARK, .name = name};
	record(&r);
}

void tk_counter(const char *name, double value)
{
	struct tkcap_host_rec r = {.type = TK_HR_COUNTER, .name = name, .value = value};
	record(&r);
}

void tk_record_alloc(const void *ptr, size_t bytes, const char *allocator)
{
	struct tkcap_host_rec r = {.type = TK_HR_ALLOC,
				   .name = allocator,
				   .bytes = (int64_t)bytes,
				   .address = (uintptr_t)ptr};
	record(&r);
}

void tk_record_free(const void *ptr, size_t bytes, const char *allocator)
{
	struct tkcap_host_rec r = {.type = TK_HR_FREE,
				   .name = allocator,
				   .bytes = (int64_t)bytes,
				   .address = (uintptr_t)ptr};
	record(&r);
}

int tk_trace_active(void)
{
	return __atomic_load_n(&tk__tracing, __ATOMIC_RELAXED);
}

const char *tk_trace_name(const char *s)
{
	if (!s)
		return NULL;
	size_t len = strlen(s);
	struct name_copy *c = malloc(sizeof(*c) + len + 1);
	if (!c)
		return NULL;
	memcpy(c->s, s, len + 1);
	pthread_mutex_lock(&S.mu);
	c->next = S.names;
	S.names = c;
	pthread_mutex_unlock(&S.mu);
	return c->s;
}

void tk_step(int64_t n)
{
	if (!__atomic_load_n(&S.running, __ATOMIC_RELAXED))
		return;
	pthread_mutex_lock(&S.mu);
	if (!S.running)
		goto out;
	int64_t now = tkcap_now_ns(); /* under S.mu: see span_open() */
	int was = S.win.open;
	end_step(now);
	int open = tkcap_window_step(&S.win, n, now);
	if (was && !open)
		span_close(now);
	if (!was && open)
		span_open(now);
	if (was && !open && S.hooks)
		S.hooks->window(0, now);
	if (open) {
		if (TKU_GROW(S.steps, S.steps_cap, S.nsteps + 1, 64) != TK_OK) {
			S.dropped++;
			goto window;
		}
		S.steps[S.nsteps++] = (struct tkcap_host_step){n, now, now};
		S.step_open = 1;
	}
window:
	if (!was && open && S.hooks)
		S.hooks->window(1, now);
	if (S.hooks) /* device tracing starts a step ahead: CUPTI's first costs fall outside */
		S.hooks->arm(open || tkcap_window_next_opens(&S.win, n + 1, now));
	set_tracing(open);
out:
	pthread_mutex_unlock(&S.mu);
}

const char *tk_trace_errmsg(void)
{
	return S.err;
}

/* The session's message (static storage, read by tk_trace_errmsg()): that of @err, "" when none. */
static void keep_message(const tk_error *err)
{
	snprintf(S.err, sizeof(S.err), "%s", tk_error_message(err));
}

/* The windows from the TRACEKIT_* variables, the problem kept as the session's message. */
static int options_from_env(struct tk_trace_options *o)
{
	tk_error *err = tk_error_new();
	int rc = tk_trace_options_from_env(o, err);
	keep_message(err);
	tk_error_free(err);
	return rc;
}

static void end_at_exit(void)
{
	tk_trace_end();
}

/* The injection library's hooks when `tracekit record` loaded it into this process. */
static const struct tkcap_cupti_hooks *find_hooks(void)
{
	const char *lib = getenv("TRACEKIT_CUPTI_LIBRARY");
	if (!lib || !*lib)
		return NULL;
	void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
	if (!h)
		return NULL;
	tkcap_cupti_hooks_fn fn;
	*(void **)&fn = dlsym(h, "tkcap_cupti_host_hooks");
	const struct tkcap_cupti_hooks *hooks = fn ? fn() : NULL;
	if (!hooks || hooks->version != TK_CUPTI_HOOKS_VERSION)
		return NULL;
	return hooks; /* the handle stays open: the driver loads the same library */
}

/* Hand every buffered record to the store (called with no lock held, writer thread stopped). */
static void drain(void)
{
	pthread_mutex_lock(&S.mu);
	struct chunk *c = S.full;
	S.full = S.full_tail = NULL;
	struct tbuf *bufs = S.bufs;
	for (struct chunk *x = c; x; x = x->next)
		filter_chunk(x);
	pthread_mutex_unlock(&S.mu);
	while (c) {
		struct chunk *next = c->next;
		write_chunk(c);
		c = next;
	}
	for (struct tbuf *b = bufs; b; b = b->next) {
		pthread_mutex_lock(&b->mu);
		c = b->cur;
		b->cur = NULL;
		pthread_mutex_unlock(&b->mu);
		if (!c)
			continue;
		pthread_mutex_lock(&S.mu); /* (S.mu is never taken with a buffer's lock held) */
		filter_chunk(c);
		pthread_mutex_unlock(&S.mu);
		write_chunk(c);
	}
}

/* The injection library asks for the records before it finishes its store. */
static void flush_for_hooks(void)
{
	tk_trace_end();
}

int tk_trace_begin(const char *path, const struct tk_trace_options *options)
{
	struct tk_trace_options o;
	int rc = TK_OK;
	if (!path || !*path)
		path = getenv("TRACEKIT_OUTPUT");
	if (!path || !*path)
		return TK_OK;
	pthread_mutex_lock(&S.mu);
	if (S.running)
		goto out;
	S.err[0] = 0;
	if (options)
		o = *options;
	else if ((rc = options_from_env(&o)) != TK_OK)
		goto out;
	S.path = strdup(path);
	if (!S.path) {
		rc = TK_ENOMEM;
		goto out;
	}
	S.hooks = find_hooks();
	if (S.hooks) {
		if ((rc = S.hooks->attach(path, &o, flush_for_hooks)) != TK_OK) {
			snprintf(S.err, sizeof(S.err), "the CUPTI injection refused the session");
			goto out;
		}
	} else {
		int64_t process_id;
		rc = tk_writer_create(path, &S.w);
		if (rc == TK_OK)
			rc = tkcap_store_setup(S.w, "tracekit", &o, &process_id);
		if (rc == TK_OK)
			rc = tkcap_host_writer_create(S.w, process_id, getpid(), &S.hw);
		if (rc != TK_OK) {
			snprintf(S.err, sizeof(S.err), "%s",
				 S.w ? tk_writer_errmsg(S.w) : tk_strerror(rc));
			goto out;
		}
	}
	S.stop = 0;
	S.dropped = 0;
	if (pthread_create(&S.thread, NULL, writer_main, NULL) != 0) {
		rc = TK_ENOMEM;
		snprintf(S.err, sizeof(S.err), "cannot start the writer thread");
		goto out;
	}
	S.thread_started = 1;
	__atomic_add_fetch(&S.gen, 1, __ATOMIC_RELEASE);
	int64_t now = tkcap_now_ns();
	tkcap_window_start(&S.win, &o, now);
	S.nspans = 0;
	S.spans_lost = 0;
	if (S.win.open)
		span_open(now);
	__atomic_store_n(&S.running, 1, __ATOMIC_RELAXED);
	if (S.win.open && S.hooks)
		S.hooks->window(1, now);
	if (S.hooks)
		S.hooks->arm(S.win.open ||
			     (S.win.by_steps && tkcap_window_next_opens(&S.win, 0, now)));
	set_tracing(S.win.open);
	if (!S.atexit_done && atexit(end_at_exit) == 0)
		S.atexit_done = 1;
out:
	if (rc != TK_OK && !S.running) {
		tkcap_host_writer_free(S.hw);
		tk_writer_abort(S.w);
		S.hw = NULL;
		S.w = NULL;
		S.hooks = NULL;
		free(S.path);
		S.path = NULL;
	}
	pthread_mutex_unlock(&S.mu);
	return rc;
}

int tk_trace_end(void)
{
	int rc = TK_OK;
	pthread_mutex_lock(&S.mu);
	if (!S.running) {
		pthread_mutex_unlock(&S.mu);
		return TK_OK;
	}
	int64_t now = tkcap_now_ns();
	set_tracing(0);
	S.running = 0;
	__atomic_add_fetch(&S.gen, 1, __ATOMIC_RELEASE); /* late records of this session drop */
	end_step(now);
	span_close(now);
	if (S.win.open && S.hooks)
		S.hooks->window(0, now);
	S.win.open = 0;
	S.stop = 1;
	pthread_cond_signal(&S.cv);
	pthread_mutex_unlock(&S.mu);
	if (S.thread_started)
		pthread_join(S.thread, NULL);
	S.thread_started = 0;
	drain();
	int64_t dropped = __atomic_load_n(&S.dropped, __ATOMIC_RELAXED);
	if (S.hooks) {
		S.hooks->steps(S.steps, S.nsteps);
		rc = S.hooks->detach(S.err, sizeof(S.err));
	} else {
		tkcap_host_writer_steps(S.hw, S.steps, S.nsteps);
		if (dropped)
			tk_writer_set_meta_int(S.w, "capture.host_dropped_records", dropped);
		tkcap_host_writer_free(S.hw);
		tk_error *err = tk_error_new();
		rc = tk_writer_finish(S.w, err);
		keep_message(err);
		tk_error_free(err);
	}
	pthread_mutex_lock(&S.mu);
	S.hw = NULL;
	S.w = NULL;
	S.hooks = NULL;
	free(S.steps);
	S.steps = NULL;
	S.nsteps = S.steps_cap = 0;
	free(S.spans);
	S.spans = NULL;
	S.nspans = S.spans_cap = 0;
	free(S.path);
	S.path = NULL;
	while (S.names) {
		struct name_copy *n = S.names->next;
		free(S.names);
		S.names = n;
	}
	pthread_mutex_unlock(&S.mu);
	return rc;
}

/* Profile without code changes: a session starts at load when TRACEKIT_OUTPUT is set. */
__attribute__((constructor)) static void start_from_env(void)
{
	const char *auto_start = getenv("TRACEKIT_AUTOSTART");
	if (getenv("TRACEKIT_OUTPUT") && !(auto_start && !strcmp(auto_start, "0")))
		tk_trace_begin(NULL, NULL);
}

/*
 * Internal to capture/: host records (what the annotation API buffers per thread), profiling
 * windows over steps, and the host writer that turns host records into store rows. Shared by
 * annotate.c (in libtracekit) and the CUPTI injection library, which owns the store when it is
 * loaded and then receives the application's host records through tkcap_cupti_host_hooks().
 */
#ifndef TK_CAPTURE_HOST_H
#define TK_CAPTURE_HOST_H

#include <stddef.h>
#include <stdint.h>
#include <tracekit/annotate.h>
#include <tracekit/store.h>

enum tkcap_host_rec_type { TK_HR_SCOPE, TK_HR_MARK, TK_HR_COUNTER, TK_HR_ALLOC, TK_HR_FREE };

/* One buffered host record (48 bytes). */
struct tkcap_host_rec {
	uint8_t type;	  /* enum tkcap_host_rec_type */
	uint8_t category; /* scopes: 0 scope, 1 function */
	const char *name; /* scope/marker/counter name, or allocator (may be NULL for allocs) */
	int64_t ts_ns;
	int64_t dur_ns;	   /* scopes */
	int64_t bytes;	   /* allocs and frees */
	double value;	   /* counters */
	uintptr_t address; /* allocs and frees */
};

/* One step as the session saw it. */
struct tkcap_host_step {
	int64_t num, ts_ns, end_ns;
};

/* ---- profiling windows ---- */

struct tkcap_window {
	struct tk_trace_options o;
	int by_steps;		/* windows follow tk_step() */
	int open;		/* recording now */
	int64_t profile;	/* index of the open (or last) profile */
	int64_t closed_profile; /* last profile closed by its duration, or -1 */
	int64_t profiles;	/* profiles opened so far */
	int64_t deadline_ns;	/* the open profile stops here (0: no duration) */
};

/* tkcap_window_start() - a session starts at @now_ns: open right away unless windows use steps. */
void tkcap_window_start(struct tkcap_window *w, const struct tk_trace_options *o, int64_t now_ns);
/* tkcap_window_step() - step @n starts at @now_ns; returns 1 when the window is open after it. */
int tkcap_window_step(struct tkcap_window *w, int64_t n, int64_t now_ns);
/* tkcap_window_tick() - close the window when its duration is over; returns 1 when still open. */
int tkcap_window_tick(struct tkcap_window *w, int64_t now_ns);
/* tkcap_window_next_opens() - whether step @n, if it began at @now_ns, would be in a window. */
int tkcap_window_next_opens(const struct tkcap_window *w, int64_t n, int64_t now_ns);

/* ---- host writer: host records into a store ---- */

struct tkcap_host_writer;

/*
 * tkcap_host_writer_create() - host rows for process @process_id (a store process id) of OS
 * process @pid go to @w (borrowed; the caller serializes calls).
 */
int tkcap_host_writer_create(tk_writer *w, int64_t process_id, int64_t pid,
			     struct tkcap_host_writer **out);
/* tkcap_host_writer_records() - write @n records of thread @tid (named @thread_name or NULL). */
int tkcap_host_writer_records(struct tkcap_host_writer *hw, int64_t tid, const char *thread_name,
			      const struct tkcap_host_rec *r, size_t n);
/* tkcap_host_writer_steps() - write @n steps (events of kind step on a "Steps" track). */
int tkcap_host_writer_steps(struct tkcap_host_writer *hw, const struct tkcap_host_step *s,
			    size_t n);
/* tkcap_host_writer_track() - the thread track of @tid (made on first use), 0 on error. */
int64_t tkcap_host_writer_track(struct tkcap_host_writer *hw, int64_t tid, const char *thread_name);
void tkcap_host_writer_free(struct tkcap_host_writer *hw);

/* ---- the link to the CUPTI injection library ---- */

/*
 * What the injection library exports as tkcap_cupti_host_hooks(): when the application's
 * annotation session finds it (dlopen of TRACEKIT_CUPTI_LIBRARY), host records go into the
 * injection's store instead of a store of their own, and windows gate device activity too.
 */
struct tkcap_cupti_hooks {
	int version; /* TK_CUPTI_HOOKS_VERSION */
	/* a session starts: the store path and options the application chose */
	int (*attach)(const char *path, const struct tk_trace_options *o, void (*flush)(void));
	void (*records)(int64_t tid, const char *thread_name, const struct tkcap_host_rec *r,
			size_t n);
	void (*steps)(const struct tkcap_host_step *s, size_t n);
	void (*window)(int open, int64_t ts_ns);
	int (*detach)(char *errbuf,
		      size_t errlen); /* session ends; the store is finished at exit */
	/* device tracing is needed now or for the next step (on), or not until a later step */
	void (*arm)(int on);
};
#define TK_CUPTI_HOOKS_VERSION 2
typedef const struct tkcap_cupti_hooks *(*tkcap_cupti_hooks_fn)(void);

/* Wall-clock (CLOCK_REALTIME) nanoseconds, CUPTI's default clock. */
int64_t tkcap_now_ns(void);

/* Set the store's facts every capture writes: source, process, clock, window options. */
int tkcap_store_setup(tk_writer *w, const char *format, const struct tk_trace_options *o,
		      int64_t *process_id);

#endif

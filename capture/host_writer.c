/*
 * Host records (scopes, markers, counters, allocations, steps) into store rows through the
 * writer API: one thread track per OS thread, one counter track per counter name, a "Steps"
 * track for steps. Also the store facts every capture sets (source, process, clock, windows).
 * Callers serialize calls on one host writer.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <tracekit/error.h>

#include "host.h"
#include "util/vec.h"

struct named {
	char *name;
	int64_t id;
};

struct tkcap_host_writer {
	tk_writer *w;
	int64_t process_id, pid, steps_track;
	int64_t *tids, *tid_tracks; /* thread tracks, linear (threads are few) */
	size_t ntids, tid_cap;
	struct named *counters; /* counter tracks by name, linear */
	size_t ncounters, counter_cap;
	uint32_t cat_scope, cat_function, cat_marker, host_alloc;
};

int64_t tkcap_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void read_comm(char *buf, size_t len, const char *path)
{
	buf[0] = 0;
	FILE *f = fopen(path, "r");
	if (!f)
		return;
	if (fgets(buf, (int)len, f))
		buf[strcspn(buf, "\n")] = 0;
	fclose(f);
}

int tkcap_store_setup(tk_writer *w, const char *format, const struct tk_trace_options *o,
		      int64_t *process_id)
{
	char host[256] = "", comm[64];
	if (gethostname(host, sizeof(host) - 1) != 0)
		host[0] = 0;
	read_comm(comm, sizeof(comm), "/proc/self/comm");
	int rc = tk_writer_add_source(w, format, NULL, host[0] ? host : NULL, TK_NONE);
	struct tk_process_info p = {getpid(), comm[0] ? comm : NULL, host[0] ? host : NULL,
				    TK_NONE};
	if (rc == TK_OK)
		rc = tk_writer_add_process(w, &p, process_id);
	if (rc == TK_OK)
		rc = tk_writer_set_meta_text(w, "clock", "unix_epoch");
	if (rc == TK_OK)
		rc = tk_writer_set_meta_text(w, "source", format);
	static const char *const keys[] = {"capture.start_step", "capture.steps", "capture.every",
					   "capture.max_profiles", "capture.duration_ms"};
	const int64_t vals[] = {o->start_step, o->steps, o->every, o->max_profiles, o->duration_ms};
	for (int i = 0; i < 5 && rc == TK_OK; i++)
		if (vals[i] >= 0)
			rc = tk_writer_set_meta_int(w, keys[i], vals[i]);
	return rc;
}

int tkcap_host_writer_create(tk_writer *w, int64_t process_id, int64_t pid,
			     struct tkcap_host_writer **out)
{
	*out = NULL;
	struct tkcap_host_writer *hw = calloc(1, sizeof(*hw));
	if (!hw)
		return tk_writer_fail(w, TK_ENOMEM, "out of memory");
	hw->w = w;
	hw->process_id = process_id;
	hw->pid = pid;
	hw->cat_scope = tk_writer_intern(w, "scope");
	hw->cat_function = tk_writer_intern(w, "function");
	hw->cat_marker = tk_writer_intern(w, "marker");
	hw->host_alloc = tk_writer_intern(w, "host");
	*out = hw;
	return tk_writer_status(w);
}

void tkcap_host_writer_free(struct tkcap_host_writer *hw)
{
	if (!hw)
		return;
	for (size_t i = 0; i < hw->ncounters; i++)
		free(hw->counters[i].name);
	free(hw->counters);
	free(hw->tids);
	free(hw->tid_tracks);
	free(hw);
}

int64_t tkcap_host_writer_track(struct tkcap_host_writer *hw, int64_t tid, const char *thread_name)
{
	for (size_t i = 0; i < hw->ntids; i++)
		if (hw->tids[i] == tid)
			return hw->tid_tracks[i];
	if (hw->ntids == hw->tid_cap) { /* tids and tid_tracks share tid_cap */
		size_t cap = tku_grow_cap(hw->tid_cap, hw->ntids + 1, sizeof(int64_t), 16);
		int64_t *a = cap ? tku_reallocn(hw->tids, cap, sizeof(*a)) : NULL;
		if (a)
			hw->tids = a;
		int64_t *b = a ? tku_reallocn(hw->tid_tracks, cap, sizeof(*b)) : NULL;
		if (!b)
			return tk_writer_fail(hw->w, TK_ENOMEM, "out of memory"), 0;
		hw->tid_tracks = b;
		hw->tid_cap = cap;
	}
	char name[64];
	if (!thread_name || !*thread_name) {
		snprintf(name, sizeof(name), "thread %lld", (long long)tid);
		thread_name = name;
	}
	struct tk_track_info t = {TK_TRACK_THREAD, thread_name, hw->process_id, TK_NONE, tid,
				  TK_NONE,	   NULL};
	int64_t id;
	if (tk_writer_add_track(hw->w, &t, &id) != TK_OK)
		return 0;
	hw->tids[hw->ntids] = tid;
	hw->tid_tracks[hw->ntids++] = id;
	return id;
}

static int64_t counter_track(struct tkcap_host_writer *hw, const char *name)
{
	for (size_t i = 0; i < hw->ncounters; i++)
		if (!strcmp(hw->counters[i].name, name))
			return hw->counters[i].id;
	if (TKU_GROW(hw->counters, hw->counter_cap, hw->ncounters + 1, 8) != TK_OK)
		return tk_writer_fail(hw->w, TK_ENOMEM, "out of memory"), 0;
	char *copy = strdup(name);
	struct tk_track_info t = {TK_TRACK_COUNTER, name, hw->process_id, TK_NONE, TK_NONE,
				  TK_NONE,	    NULL};
	int64_t id;
	if (!copy)
		return tk_writer_fail(hw->w, TK_ENOMEM, "out of memory"), 0;
	if (tk_writer_add_track(hw->w, &t, &id) != TK_OK) {
		free(copy);
		return 0;
	}
	hw->counters[hw->ncounters].name = copy;
	hw->counters[hw->ncounters++].id = id;
	return id;
}

int tkcap_host_writer_records(struct tkcap_host_writer *hw, int64_t tid, const char *thread_name,
			      const struct tkcap_host_rec *r, size_t n)
{
	tk_writer *w = hw->w;
	int64_t track = 0;
	for (size_t i = 0; i < n && tk_writer_status(w) == TK_OK; i++) {
		const struct tkcap_host_rec *x = &r[i];
		if ((x->type == TK_HR_SCOPE || x->type == TK_HR_MARK) && !track &&
		    !(track = tkcap_host_writer_track(hw, tid, thread_name)))
			break;
		switch (x->type) {
		case TK_HR_SCOPE:
		case TK_HR_MARK: {
			struct tk_event ev = {.track_id = track,
					      .kind = TK_EV_ANNOTATION,
					      .name = x->name ? x->name : "(null)",
					      .category_id = x->type == TK_HR_MARK ? hw->cat_marker
							     : x->category ? hw->cat_function
									   : hw->cat_scope,
					      .ts_ns = x->ts_ns,
					      .dur_ns = x->type == TK_HR_MARK ? 0 : x->dur_ns,
					      .correlation_id = TK_NONE};
			tk_writer_add_event(w, &ev, NULL);
			break;
		}
		case TK_HR_COUNTER: {
			int64_t ct = counter_track(hw, x->name ? x->name : "(null)");
			if (ct)
				tk_writer_add_counter(w, ct, x->ts_ns, x->value);
			break;
		}
		case TK_HR_ALLOC:
		case TK_HR_FREE: {
			struct tk_memory_event m = {.ts_ns = x->ts_ns,
						    .is_free = x->type == TK_HR_FREE,
						    .device_id = TK_NONE,
						    .process_id = hw->process_id,
						    .address = (int64_t)x->address,
						    .bytes = x->bytes,
						    .mem_kind = TK_MEM_PAGEABLE,
						    .allocator = x->name,
						    .allocator_id = x->name ? 0 : hw->host_alloc,
						    .op_event_id = TK_NONE,
						    .bytes_in_use = TK_NONE,
						    .bytes_reserved = TK_NONE,
						    .bytes_available = TK_NONE,
						    .peak_bytes_in_use = TK_NONE,
						    .requested_bytes = TK_NONE,
						    .fragmentation = -1};
			tk_writer_add_memory_event(w, &m);
			break;
		}
		default:
			break;
		}
	}
	return tk_writer_status(w);
}

int tkcap_host_writer_steps(struct tkcap_host_writer *hw, const struct tkcap_host_step *s, size_t n)
{
	tk_writer *w = hw->w;
	if (n && !hw->steps_track) {
		struct tk_track_info t = {
		    TK_TRACK_DERIVED, "Steps", hw->process_id, TK_NONE, TK_NONE, TK_NONE, NULL};
		if (tk_writer_add_track(w, &t, &hw->steps_track) != TK_OK)
			return tk_writer_status(w);
	}
	for (size_t i = 0; i < n && tk_writer_status(w) == TK_OK; i++) {
		char name[48];
		snprintf(name, sizeof(name), "step %lld", (long long)s[i].num);
		int64_t dur = s[i].end_ns > s[i].ts_ns ? s[i].end_ns - s[i].ts_ns : 0;
		struct tk_event ev = {.track_id = hw->steps_track,
				      .kind = TK_EV_STEP,
				      .name = name,
				      .ts_ns = s[i].ts_ns,
				      .dur_ns = dur,
				      .correlation_id = TK_NONE};
		tk_writer_add_step(w, &ev, s[i].num, NULL);
	}
	return tk_writer_status(w);
}

/*
 * The recording writer and its replay. A recorder is a tk_writer in another mode: each public
 * call appends one record (an opcode, the caller's struct as it is, then its strings with their
 * lengths and NUL) to a chunk and returns provisional ids (strings interned in the recorder's own
 * table, processes, devices, tracks and events counted from the recorder's start). The replay
 * makes the same calls on a real writer in the same order and maps the provisional ids: a string
 * to the real id of its first intern, the others by the real writer's counts when the recording
 * started (the writer numbers rows consecutively). Validation is the real writer's, at replay, so
 * that its failures and messages are the ones of the direct calls.
 * Workload: one record per event; replaying is a copy and an offset per id.
 */
#include "recorder.h"

#include <stdlib.h>
#include <string.h>

#include "../util/vec.h"
#include "writer_internal.h"

enum {
	R_STR = 1, /* a string new to the recorder: its provisional id is the next one */
	R_SOURCE,
	R_PROCESS,
	R_DEVICE,
	R_TRACK,
	R_EVENT,
	R_KERNEL,
	R_COPY,
	R_SET,
	R_STEP,
	R_OP,
	R_FLOW,
	R_COUNTER,
	R_MEMORY,
	R_ARG_INT,
	R_ARG_REAL,
	R_ARG_TEXT,
	R_META_TEXT,
	R_META_INT,
	R_WARN,
};

int tkw_rec_create(tkw_chunk_sink sink, void *sink_ctx, tk_writer **out)
{
	*out = NULL;
	tk_writer *w = calloc(1, sizeof(*w));
	struct tkw_rec *r = calloc(1, sizeof(*r));
	tk_error *err = tk_error_new();
	if (!w || !r || !err) {
		free(w);
		free(r);
		tk_error_free(err);
		return TK_ENOMEM;
	}
	r->sink = sink;
	r->sink_ctx = sink_ctx;
	w->rec = r;
	w->err = err;
	w->tmp_fd = -1;
	tks_intern_init(&w->intern);
	*out = w;
	return TK_OK;
}

void tkw_chunks_free(struct tkw_chunk *c)
{
	while (c) {
		struct tkw_chunk *next = c->next;
		free(c);
		c = next;
	}
}

void tkw_rec_free(tk_writer *w)
{
	if (!w)
		return;
	if (w->rec)
		tkw_chunks_free(w->rec->cur);
	free(w->rec);
	tks_intern_free(&w->intern);
	tk_error_free(w->err);
	free(w);
}

/* Hand the chunk being filled to the sink; fails the recorder when the sink says stop. */
static int hand_over(tk_writer *w)
{
	struct tkw_rec *r = w->rec;
	struct tkw_chunk *c = r->cur;
	r->cur = NULL;
	if (c && r->sink(r->sink_ctx, c) != 0) {
		r->stopped = 1;
		return tkw_fail(w, TK_EINTERNAL, "the import was stopped");
	}
	return TK_OK;
}

void tkw_rec_flush(tk_writer *w)
{
	if (w && w->rec && w->rec->cur)
		hand_over(w);
}

/* Room for a record of @need bytes after its opcode @op; NULL with the recorder failed. */
static unsigned char *begin(tk_writer *w, int op, size_t need)
{
	struct tkw_rec *r = w->rec;
	need += 1;
	if (r->cur && r->cur->cap - r->cur->len < need && hand_over(w) != TK_OK)
		return NULL;
	if (!r->cur) {
		size_t cap = need > TKW_CHUNK_BYTES ? need : TKW_CHUNK_BYTES;
		if (cap > SIZE_MAX - sizeof(struct tkw_chunk) ||
		    !(r->cur = malloc(sizeof(struct tkw_chunk) + cap))) {
			tkw_fail(w, TK_ENOMEM, "out of memory");
			return NULL;
		}
		r->cur->next = NULL;
		r->cur->len = 0;
		r->cur->cap = cap;
	}
	unsigned char *p = r->cur->data + r->cur->len;
	r->cur->len += need;
	*p = (unsigned char)op;
	return p + 1;
}

/* Bytes a string takes in a record: its length (UINT32_MAX for NULL), its bytes and NUL. A string
 * of 4 GiB or more asks for more room than can be had, so that begin() fails. */
static size_t ssz(const char *s)
{
	size_t n = s ? strlen(s) : 0;
	return n >= UINT32_MAX ? SIZE_MAX / 2 : 4 + (s ? n + 1 : 0);
}

static unsigned char *put(unsigned char *p, const void *v, size_t n)
{
	if (n) /* a plain event has no detail: @v NULL */
		memcpy(p, v, n);
	return p + n;
}

static unsigned char *put_str(unsigned char *p, const char *s)
{
	uint32_t n = s ? (uint32_t)strlen(s) : UINT32_MAX;
	p = put(p, &n, sizeof(n));
	return s ? put(p, s, (size_t)n + 1) : p;
}

#define PUT(p, v) ((p) = put((p), &(v), sizeof(v)))

uint32_t tkw_rec_intern(tk_writer *w, const char *s)
{
	int added;
	uint32_t id = tkw_intern_find(w, s, &added);
	unsigned char *p;
	if (id && added && (p = begin(w, R_STR, ssz(s))) != NULL)
		put_str(p, s);
	return w->status == TK_OK ? id : 0;
}

int tkw_rec_source(tk_writer *w, const char *format, const char *path, const char *host,
		   int64_t rank)
{
	unsigned char *p;
	if (w->status != TK_OK ||
	    !(p = begin(w, R_SOURCE, sizeof(rank) + ssz(format) + ssz(path) + ssz(host))))
		return w->status;
	PUT(p, rank);
	p = put_str(p, format);
	p = put_str(p, path);
	put_str(p, host);
	return TK_OK;
}

int tkw_rec_process(tk_writer *w, const struct tk_process_info *pi, int64_t *out_id)
{
	unsigned char *p;
	if (w->status != TK_OK ||
	    !(p = begin(w, R_PROCESS, sizeof(*pi) + ssz(pi->name) + ssz(pi->host))))
		return w->status;
	PUT(p, *pi);
	p = put_str(p, pi->name);
	put_str(p, pi->host);
	w->n_processes++;
	if (out_id)
		*out_id = w->n_processes;
	return TK_OK;
}

int tkw_rec_device(tk_writer *w, const struct tk_device_info *d, int64_t *out_id)
{
	unsigned char *p;
	if (w->status != TK_OK ||
	    !(p = begin(w, R_DEVICE,
			sizeof(*d) + ssz(d->kind) + ssz(d->name) + ssz(d->vendor) + ssz(d->host) +
			    ssz(d->compute_capability))))
		return w->status;
	PUT(p, *d);
	p = put_str(p, d->kind);
	p = put_str(p, d->name);
	p = put_str(p, d->vendor);
	p = put_str(p, d->host);
	put_str(p, d->compute_capability);
	if (out_id)
		*out_id = w->n_devices;
	w->n_devices++;
	return TK_OK;
}

int tkw_rec_track(tk_writer *w, const struct tk_track_info *t, int64_t *out_id)
{
	unsigned char *p;
	if (w->status != TK_OK ||
	    !(p = begin(w, R_TRACK, sizeof(*t) + ssz(t->name) + ssz(t->unit))))
		return w->status;
	PUT(p, *t);
	p = put_str(p, t->name);
	put_str(p, t->unit);
	w->n_tracks++;
	if (out_id)
		*out_id = w->n_tracks;
	return TK_OK;
}

/* An interval record @op: the event, then @extra bytes of @x (the detail struct or number),
 * then the event's strings and the detail's string @xs. */
static int rec_interval(tk_writer *w, int op, const struct tk_event *ev, const void *x,
			size_t extra, const char *xs, int64_t *out_id)
{
	unsigned char *p;
	if (w->status != TK_OK ||
	    !(p = begin(w, op,
			sizeof(*ev) + extra + ssz(ev->name) + ssz(ev->category) +
			    (op == R_KERNEL ? ssz(xs) : 0))))
		return w->status;
	PUT(p, *ev);
	p = put(p, x, extra);
	p = put_str(p, ev->name);
	p = put_str(p, ev->category);
	if (op == R_KERNEL)
		put_str(p, xs);
	w->n_events++;
	if (out_id)
		*out_id = w->n_events;
	return TK_OK;
}

int tkw_rec_event(tk_writer *w, const struct tk_event *ev, int64_t *out_id)
{
	return rec_interval(w, R_EVENT, ev, NULL, 0, NULL, out_id);
}

int tkw_rec_kernel(tk_writer *w, const struct tk_event *ev, const struct tk_kernel_info *k,
		   int64_t *out_id)
{
	return rec_interval(w, R_KERNEL, ev, k, sizeof(*k), k->mangled_name, out_id);
}

int tkw_rec_copy(tk_writer *w, const struct tk_event *ev, const struct tk_copy_info *c,
		 int64_t *out_id)
{
	return rec_interval(w, R_COPY, ev, c, sizeof(*c), NULL, out_id);
}

int tkw_rec_set(tk_writer *w, const struct tk_event *ev, const struct tk_set_info *s,
		int64_t *out_id)
{
	return rec_interval(w, R_SET, ev, s, sizeof(*s), NULL, out_id);
}

int tkw_rec_step(tk_writer *w, const struct tk_event *ev, int64_t step_num, int64_t *out_id)
{
	return rec_interval(w, R_STEP, ev, &step_num, sizeof(step_num), NULL, out_id);
}

int tkw_rec_op_details(tk_writer *w, int64_t event_id, const struct tk_op_info *op)
{
	unsigned char *p;
	if (w->status != TK_OK ||
	    !(p = begin(w, R_OP,
			sizeof(event_id) + sizeof(*op) + ssz(op->hlo_op) + ssz(op->hlo_module) +
			    ssz(op->framework_op) + ssz(op->op_category))))
		return w->status;
	PUT(p, event_id);
	PUT(p, *op);
	p = put_str(p, op->hlo_op);
	p = put_str(p, op->hlo_module);
	p = put_str(p, op->framework_op);
	put_str(p, op->op_category);
	return TK_OK;
}

int tkw_rec_flow(tk_writer *w, const char *kind, int64_t src, int64_t dst)
{
	unsigned char *p;
	if (w->status != TK_OK || !(p = begin(w, R_FLOW, 2 * sizeof(src) + ssz(kind))))
		return w->status;
	PUT(p, src);
	PUT(p, dst);
	put_str(p, kind);
	return TK_OK;
}

int tkw_rec_counter(tk_writer *w, int64_t track_id, int64_t ts_ns, double value)
{
	unsigned char *p;
	if (w->status != TK_OK ||
	    !(p = begin(w, R_COUNTER, sizeof(track_id) + sizeof(ts_ns) + sizeof(value))))
		return w->status;
	PUT(p, track_id);
	PUT(p, ts_ns);
	PUT(p, value);
	return TK_OK;
}

int tkw_rec_memory(tk_writer *w, const struct tk_memory_event *m)
{
	unsigned char *p;
	if (w->status != TK_OK ||
	    !(p = begin(w, R_MEMORY, sizeof(*m) + ssz(m->allocator) + ssz(m->op_name))))
		return w->status;
	PUT(p, *m);
	p = put_str(p, m->allocator);
	put_str(p, m->op_name);
	return TK_OK;
}

/* An arg record @op: the event id, @n bytes of the value @v, the key and the text @text. */
static int rec_arg(tk_writer *w, int op, int64_t event_id, const char *key, const void *v, size_t n,
		   const char *text)
{
	unsigned char *p;
	if (w->status != TK_OK ||
	    !(p = begin(w, op,
			sizeof(event_id) + n + ssz(key) + (op == R_ARG_TEXT ? ssz(text) : 0))))
		return w->status;
	PUT(p, event_id);
	p = put(p, v, n);
	p = put_str(p, key);
	if (op == R_ARG_TEXT)
		put_str(p, text);
	return TK_OK;
}

int tkw_rec_arg_int(tk_writer *w, int64_t event_id, const char *key, int64_t value)
{
	return rec_arg(w, R_ARG_INT, event_id, key, &value, sizeof(value), NULL);
}

int tkw_rec_arg_real(tk_writer *w, int64_t event_id, const char *key, double value)
{
	return rec_arg(w, R_ARG_REAL, event_id, key, &value, sizeof(value), NULL);
}

int tkw_rec_arg_text(tk_writer *w, int64_t event_id, const char *key, const char *value)
{
	return rec_arg(w, R_ARG_TEXT, event_id, key, NULL, 0, value);
}

int tkw_rec_meta_text(tk_writer *w, const char *key, const char *value)
{
	unsigned char *p;
	if (w->status != TK_OK || !(p = begin(w, R_META_TEXT, ssz(key) + ssz(value))))
		return w->status;
	p = put_str(p, key);
	put_str(p, value);
	return TK_OK;
}

int tkw_rec_meta_int(tk_writer *w, const char *key, int64_t value)
{
	unsigned char *p;
	if (w->status != TK_OK || !(p = begin(w, R_META_INT, sizeof(value) + ssz(key))))
		return w->status;
	PUT(p, value);
	put_str(p, key);
	return TK_OK;
}

void tkw_rec_warn(void *ctx, const char *message)
{
	tk_writer *w = ctx;
	unsigned char *p;
	/* recorded after a failure too: the direct call would have printed it */
	if (w->rec && message && !w->rec->stopped && (p = begin(w, R_WARN, ssz(message))))
		put_str(p, message);
}

/* ---- replay ---- */

struct dec {
	const unsigned char *p;
};

static void get(struct dec *d, void *v, size_t n)
{
	if (n)
		memcpy(v, d->p, n);
	d->p += n;
}

#define GET(d, v) get((d), &(v), sizeof(v))

static const char *get_str(struct dec *d)
{
	uint32_t n;
	GET(d, n);
	if (n == UINT32_MAX)
		return NULL;
	const char *s = (const char *)d->p;
	d->p += (size_t)n + 1;
	return s;
}

void tkw_replay_start(struct tkw_replay *r, const tk_writer *w,
		      void (*warn)(void *ctx, const char *message), void *warn_ctx)
{
	memset(r, 0, sizeof(*r));
	r->base_process = w->n_processes;
	r->base_device = w->n_devices;
	r->base_track = w->n_tracks;
	r->base_event = w->n_events;
	r->warn = warn;
	r->warn_ctx = warn_ctx;
}

/* A provisional id counted from 1 (processes, tracks, events) as the real one; one the recording
 * never handed out becomes 0, which no writer call accepts. */
static int64_t map1(int64_t id, int64_t base, int64_t n)
{
	return id == TK_NONE ? id : id >= 1 && id <= n ? base + id : 0;
}

/* A device id (from 0); one never handed out becomes -1. */
static int64_t map_dev(const struct tkw_replay *r, int64_t id)
{
	return id == TK_NONE ? id : id >= 0 && id < r->n_device ? r->base_device + id : -1;
}

/* A string id; 0 stays "none", one never handed out becomes an id no writer has. */
static uint32_t map_str(const struct tkw_replay *r, uint32_t id)
{
	return id == 0 ? 0 : id <= r->n_strings ? r->strings[id - 1] : UINT32_MAX;
}

#define EVENT(r, id) map1((id), (r)->base_event, (r)->n_event)

/* The event of an interval record, its ids mapped, its strings in place. */
static void get_event(struct dec *d, const struct tkw_replay *r, struct tk_event *ev, void *x,
		      size_t extra)
{
	GET(d, *ev);
	get(d, x, extra);
	ev->name = get_str(d);
	ev->category = get_str(d);
	ev->track_id = map1(ev->track_id, r->base_track, r->n_track);
	ev->name_id = map_str(r, ev->name_id);
	ev->category_id = map_str(r, ev->category_id);
}

/* Check that the real writer gave the id the mapping assumes (rows are numbered in call
 * order); count the provisional one. */
static int counted(tk_writer *w, int64_t *n, int64_t base, int64_t got, int64_t first)
{
	if (got != base + first + *n)
		return tkw_fail(w, TK_EINTERNAL, "replayed id %lld, expected %lld", (long long)got,
				(long long)(base + first + *n));
	(*n)++;
	return TK_OK;
}

static int replay_str(struct tkw_replay *r, tk_writer *w, const char *s)
{
	uint32_t id = tk_writer_intern(w, s);
	if (!id)
		return w->status;
	if (TKU_GROW(r->strings, r->strings_cap, r->n_strings + 1, 256) != TK_OK)
		return tkw_fail(w, TK_ENOMEM, "out of memory");
	r->strings[r->n_strings++] = id;
	return TK_OK;
}

/* Replay the record at @d of opcode @op. */
static int replay_one(struct tkw_replay *r, tk_writer *w, int op, struct dec *d)
{
	int rc = TK_OK;
	int64_t id = 0, a, b;
	switch (op) {
	case R_STR:
		return replay_str(r, w, get_str(d));
	case R_SOURCE: {
		GET(d, a);
		const char *fmt = get_str(d), *path = get_str(d);
		return tk_writer_add_source(w, fmt, path, get_str(d), a);
	}
	case R_PROCESS: {
		struct tk_process_info p;
		GET(d, p);
		p.name = get_str(d);
		p.host = get_str(d);
		if ((rc = tk_writer_add_process(w, &p, &id)) == TK_OK)
			rc = counted(w, &r->n_process, r->base_process, id, 1);
		return rc;
	}
	case R_DEVICE: {
		struct tk_device_info v;
		GET(d, v);
		v.kind = get_str(d);
		v.name = get_str(d);
		v.vendor = get_str(d);
		v.host = get_str(d);
		v.compute_capability = get_str(d);
		v.process_id = map1(v.process_id, r->base_process, r->n_process);
		if ((rc = tk_writer_add_device(w, &v, &id)) == TK_OK)
			rc = counted(w, &r->n_device, r->base_device, id, 0);
		return rc;
	}
	case R_TRACK: {
		struct tk_track_info t;
		GET(d, t);
		t.name = get_str(d);
		t.unit = get_str(d);
		t.process_id = map1(t.process_id, r->base_process, r->n_process);
		t.device_id = map_dev(r, t.device_id);
		if ((rc = tk_writer_add_track(w, &t, &id)) == TK_OK)
			rc = counted(w, &r->n_track, r->base_track, id, 1);
		return rc;
	}
	case R_EVENT:
	case R_KERNEL:
	case R_COPY:
	case R_SET:
	case R_STEP: {
		struct tk_event ev;
		struct tk_kernel_info k;
		struct tk_copy_info c;
		struct tk_set_info s;
		int64_t step;
		if (op == R_EVENT) {
			get_event(d, r, &ev, NULL, 0);
			rc = tk_writer_add_event(w, &ev, &id);
		} else if (op == R_KERNEL) {
			get_event(d, r, &ev, &k, sizeof(k));
			k.mangled_name = get_str(d);
			k.mangled_name_id = map_str(r, k.mangled_name_id);
			rc = tk_writer_add_kernel(w, &ev, &k, &id);
		} else if (op == R_COPY) {
			get_event(d, r, &ev, &c, sizeof(c));
			c.src_device_id = map_dev(r, c.src_device_id);
			c.dst_device_id = map_dev(r, c.dst_device_id);
			rc = tk_writer_add_copy(w, &ev, &c, &id);
		} else if (op == R_SET) {
			get_event(d, r, &ev, &s, sizeof(s));
			rc = tk_writer_add_set(w, &ev, &s, &id);
		} else {
			get_event(d, r, &ev, &step, sizeof(step));
			rc = tk_writer_add_step(w, &ev, step, &id);
		}
		if (rc == TK_OK)
			rc = counted(w, &r->n_event, r->base_event, id, 1);
		return rc;
	}
	case R_OP: {
		struct tk_op_info o;
		GET(d, a);
		GET(d, o);
		o.hlo_op = get_str(d);
		o.hlo_module = get_str(d);
		o.framework_op = get_str(d);
		o.op_category = get_str(d);
		return tk_writer_add_op_details(w, EVENT(r, a), &o);
	}
	case R_FLOW:
		GET(d, a);
		GET(d, b);
		return tk_writer_add_flow(w, get_str(d), EVENT(r, a), EVENT(r, b));
	case R_COUNTER: {
		double v;
		GET(d, a);
		GET(d, b);
		GET(d, v);
		return tk_writer_add_counter(w, map1(a, r->base_track, r->n_track), b, v);
	}
	case R_MEMORY: {
		struct tk_memory_event m;
		GET(d, m);
		m.allocator = get_str(d);
		m.op_name = get_str(d);
		m.device_id = map_dev(r, m.device_id);
		m.process_id = map1(m.process_id, r->base_process, r->n_process);
		m.op_event_id = EVENT(r, m.op_event_id);
		m.allocator_id = map_str(r, m.allocator_id);
		return tk_writer_add_memory_event(w, &m);
	}
	case R_ARG_INT:
	case R_ARG_REAL: {
		double v;
		GET(d, a);
		if (op == R_ARG_INT)
			GET(d, b);
		else
			GET(d, v);
		const char *key = get_str(d);
		return op == R_ARG_INT ? tk_writer_add_arg_int(w, EVENT(r, a), key, b)
				       : tk_writer_add_arg_real(w, EVENT(r, a), key, v);
	}
	case R_ARG_TEXT: {
		GET(d, a);
		const char *key = get_str(d);
		return tk_writer_add_arg_text(w, EVENT(r, a), key, get_str(d));
	}
	case R_META_TEXT: {
		const char *key = get_str(d);
		return tk_writer_set_meta_text(w, key, get_str(d));
	}
	case R_META_INT:
		GET(d, a);
		return tk_writer_set_meta_int(w, get_str(d), a);
	case R_WARN: {
		const char *msg = get_str(d);
		if (r->warn)
			r->warn(r->warn_ctx, msg);
		return tk_writer_status(w);
	}
	default:
		return tkw_fail(w, TK_EINTERNAL, "unknown record %d in a recording", op);
	}
}

int tkw_replay_chunk(struct tkw_replay *r, tk_writer *w, const struct tkw_chunk *c)
{
	struct dec d = {c->data};
	const unsigned char *end = c->data + c->len;
	int rc = tk_writer_status(w);
	while (rc == TK_OK && d.p < end) {
		int op = *d.p++;
		rc = replay_one(r, w, op, &d);
	}
	return rc;
}

int tkw_replay_end(struct tkw_replay *r, tk_writer *w, const tk_writer *rec)
{
	if (rec && rec->status != TK_OK)
		tk_writer_fail_error(w, rec->err);
	free(r->strings);
	memset(r, 0, sizeof(*r));
	return tk_writer_status(w);
}

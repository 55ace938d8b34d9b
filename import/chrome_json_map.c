/*
 * Chrome/Kineto JSON importer, mapping: pid/tid to store processes, devices and tracks (made on
 * first use, with the names pass 1 collected from metadata events), and one parsed event into
 * store records (intervals with their kernel/copy/set/step details, memory events, counters,
 * args for everything without a column). See docs/formats.md (Chrome JSON section).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tracekit/error.h>

#include "chrome_json_internal.h"
#include "util/vec.h"

int cj_fail(struct cj_ctx *c, const struct cj_event *e, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return cj_break(c, e->line, e->col, msg);
}

void cj_warn(struct cj_ctx *c, const char *fmt, ...)
{
	if (!c->o->warn)
		return;
	char msg[768];
	int n = snprintf(msg, sizeof(msg), "'%s': ", c->path);
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg + n, sizeof(msg) - (size_t)n, fmt, ap);
	va_end(ap);
	c->o->warn(c->o->warn_ctx, msg);
}

int cj_pid_key(const struct cj_event *e, struct cj_val v, char *buf, size_t len)
{
	int64_t i;
	if (v.type == CJV_NONE || v.type == CJV_NULL)
		return snprintf(buf, len, "n");
	/* numeric strings are the same thread as the number (legacy Kineto writes tid "25738") */
	if ((v.type == CJV_NUM || v.type == CJV_STR) && cj_int(cj_str(e, v), &i) == 0 &&
	    !strchr(cj_str(e, v), '.'))
		return snprintf(buf, len, "i%lld", (long long)i);
	return snprintf(buf, len, "s%s", cj_str(e, v));
}

struct cj_proc *cj_proc_get(struct cj_ctx *c, const char *key, int create, int64_t pid)
{
	int64_t *ix = cj_smap_get(&c->proc_by_key, key);
	if (ix)
		return &c->procs[*ix];
	if (!create)
		return NULL;
	if (TKU_GROW(c->procs, c->cap_procs, c->nprocs + 1, 16) != TK_OK)
		return NULL;
	struct cj_proc *p = &c->procs[c->nprocs];
	memset(p, 0, sizeof(*p));
	p->key = strdup(key);
	p->pid = pid;
	p->process_id = p->device_id = TK_NONE;
	if (!p->key || cj_smap_put(&c->proc_by_key, key, (int64_t)c->nprocs) != 0) {
		free(p->key);
		return NULL;
	}
	c->nprocs++;
	return p;
}

static int ensure_process(struct cj_ctx *c, struct cj_proc *p)
{
	if (p->process_id != TK_NONE)
		return TK_OK;
	struct tk_process_info pi = {p->pid,
				     p->name ? p->name : (p->key[0] == 's' ? p->key + 1 : NULL),
				     c->top.host, c->top.rank};
	return tk_writer_add_process(c->w, &pi, &p->process_id);
}

static int64_t main_process(struct cj_ctx *c)
{
	struct cj_proc *m = c->main_key ? cj_proc_get(c, c->main_key, 0, TK_NONE) : NULL;
	if (!m || m->is_gpu || ensure_process(c, m) != TK_OK)
		return TK_NONE;
	return m->process_id;
}

static int ensure_device(struct cj_ctx *c, int64_t ordinal, int64_t *out)
{
	char key[32];
	snprintf(key, sizeof(key), "%lld", (long long)ordinal);
	int64_t *id = cj_smap_get(&c->dev_by_ordinal, key);
	if (id) {
		*out = *id;
		return TK_OK;
	}
	struct tk_device_info d = {0};
	d.ordinal = ordinal;
	d.kind = "gpu";
	d.host = c->top.host;
	d.process_id = main_process(c);
	d.rank = c->top.rank;
	d.sm_count = d.clock_hz = d.memory_bytes = d.memory_bandwidth_bps = TK_NONE;
	d.peak_flops = -1;
	d.max_threads_per_sm = d.max_regs_per_sm = d.max_smem_per_sm = TK_NONE;
	for (size_t i = 0; i < c->nprops; i++) {
		const struct cj_devprop *p = &c->props[i];
		if (p->id != ordinal)
			continue;
		d.name = p->name;
		d.compute_capability = p->cc[0] ? p->cc : NULL;
		d.sm_count = p->sms;
		d.memory_bytes = p->mem;
		d.max_threads_per_sm = p->max_threads_sm;
		d.max_regs_per_sm = p->regs_sm;
		d.max_smem_per_sm = p->smem_sm;
		if (p->name && (strstr(p->name, "NVIDIA") || strstr(p->name, "Tesla") ||
				strstr(p->name, "GeForce")))
			d.vendor = "nvidia";
		else if (p->name && (strstr(p->name, "AMD") || strstr(p->name, "Instinct")))
			d.vendor = "amd";
	}
	int rc = tk_writer_add_device(c->w, &d, out);
	if (rc == TK_OK && cj_smap_put(&c->dev_by_ordinal, key, *out) != 0)
		rc = tk_writer_fail(c->w, TK_ENOMEM, "out of memory");
	return rc;
}

static int proc_device(struct cj_ctx *c, struct cj_proc *p)
{
	if (p->device_id != TK_NONE)
		return TK_OK;
	int64_t ordinal = p->pid != TK_NONE ? p->pid : (int64_t)(p - c->procs);
	return ensure_device(c, ordinal, &p->device_id);
}

int cj_track_for(struct cj_ctx *c, const struct cj_event *e, int64_t *track, int *is_gpu,
		 struct cj_proc **proc)
{
	struct cj_proc *p;
	if (cj_track_cached(c, e, track, &p)) {
		*proc = p;
		*is_gpu = p->is_gpu;
		return TK_OK;
	}
	char *k = c->keybuf;
	size_t cap = sizeof(c->keybuf);
	int n = cj_pid_key(e, e->pid, k, cap);
	if (n < 0 || (size_t)n + 2 >= cap)
		return cj_fail(c, e, "pid longer than %zu bytes", cap / 2);
	int64_t pid = k[0] == 'i' ? strtoll(k + 1, NULL, 10) : TK_NONE;
	p = cj_proc_get(c, k, 1, pid);
	if (!p)
		return tk_writer_fail(c->w, TK_ENOMEM, "out of memory");
	*proc = p;
	*is_gpu = p->is_gpu;
	k[n] = '\x1f';
	int m = cj_pid_key(e, e->tid, k + n + 1, cap - (size_t)n - 1);
	if (m < 0 || (size_t)(n + 1 + m) >= cap - 1)
		return cj_fail(c, e, "tid longer than %zu bytes", cap / 2);
	int64_t *t = cj_smap_get(&c->track_by_key, k);
	if (t) {
		*track = *t;
		cj_track_remember(c, e, *track, p);
		return TK_OK;
	}
	const char *tk = k + n + 1;
	int64_t tid = tk[0] == 'i' ? strtoll(tk + 1, NULL, 10) : TK_NONE;
	int64_t *tn = cj_smap_get(&c->tname_by_key, k);
	const char *tname = tn ? c->tnames[*tn] : (tk[0] == 's' ? tk + 1 : NULL);
	char buf[64];
	struct tk_track_info ti = {0};
	int rc;
	ti.tid = ti.stream_id = ti.device_id = ti.process_id = TK_NONE;
	if (p->is_gpu) {
		if ((rc = proc_device(c, p)) != TK_OK)
			return rc;
		ti.kind = TK_TRACK_STREAM;
		ti.device_id = p->device_id;
		ti.process_id = main_process(c);
		ti.stream_id = tid;
		if (!tname && tid != TK_NONE) {
			snprintf(buf, sizeof(buf), "stream %lld", (long long)tid);
			tname = buf;
		}
	} else {
		if ((rc = ensure_process(c, p)) != TK_OK)
			return rc;
		ti.kind = TK_TRACK_THREAD;
		ti.process_id = p->process_id;
		ti.tid = tid;
	}
	ti.name = tname;
	if ((rc = tk_writer_add_track(c->w, &ti, track)) != TK_OK)
		return rc;
	if (cj_smap_put(&c->track_by_key, k, *track) != 0)
		return tk_writer_fail(c->w, TK_ENOMEM, "out of memory");
	cj_track_remember(c, e, *track, p);
	return TK_OK;
}

/* Known arg slots. */
enum {
	A_DEVICE,
	A_STREAM,
	A_CORR,
	A_GRID,
	A_BLOCK,
	A_REGS,
	A_SMEM,
	A_BPS,
	A_WPS,
	A_OCC,
	A_BYTES,
	A_ADDR,
	A_MBYTES,
	A_TALLOC,
	A_TRES,
	A_DEVID,
	A_DEVTYPE,
	A_COUNT
};

static int slot_of(const char *k, uint32_t n)
{
	static const char *const names[A_COUNT] = {
	    "device",	      "stream",
	    "correlation",    "grid",
	    "block",	      "registers per thread",
	    "shared memory",  "blocks per SM",
	    "warps per SM",   "est. achieved occupancy %",
	    "bytes",	      "Addr",
	    "Bytes",	      "Total Allocated",
	    "Total Reserved", "Device Id",
	    "Device Type",
	};
	static const unsigned char len[A_COUNT] = {6,  6, 11, 4, 5,  20, 13, 13, 12,
						   25, 5, 4,  5, 15, 14, 9,  11};
	for (int i = 0; i < A_COUNT; i++)
		if (n == len[i] && k[0] == names[i][0] && !memcmp(k, names[i], n))
			return i;
	return -1;
}

struct known {
	int ix[A_COUNT];
};

static void find_known(const struct cj_event *e, struct known *kn)
{
	for (int i = 0; i < A_COUNT; i++)
		kn->ix[i] = -1;
	for (size_t i = 0; i < e->nargs; i++) {
		if (e->args[i].top)
			continue;
		int s = slot_of(e->arena + e->args[i].key, e->args[i].klen);
		if (s >= 0 && kn->ix[s] < 0)
			kn->ix[s] = (int)i;
	}
}

/* The integer in slot @s (marking it used), or TK_NONE. */
static int64_t take_int(struct cj_event *e, const struct known *kn, int s)
{
	int64_t v;
	int i = kn->ix[s];
	if (i < 0 || e->args[i].v.type != CJV_NUM || cj_int(cj_str(e, e->args[i].v), &v) != 0)
		return TK_NONE;
	e->args[i].top = 2;
	return v;
}

static double take_real(struct cj_event *e, const struct known *kn, int s)
{
	int i = kn->ix[s];
	if (i < 0 || e->args[i].v.type != CJV_NUM)
		return -1;
	e->args[i].top = 2;
	return strtod(cj_str(e, e->args[i].v), NULL);
}

/* "[x,y,z]" into v[3]. */
static void take_dim3(struct cj_event *e, const struct known *kn, int s, int64_t v[3])
{
	v[0] = v[1] = v[2] = TK_NONE;
	int i = kn->ix[s];
	if (i < 0 || e->args[i].v.type != CJV_RAW)
		return;
	const char *p = cj_str(e, e->args[i].v);
	int64_t t[3];
	char *end;
	if (*p++ != '[')
		return;
	for (int k = 0; k < 3; k++) {
		t[k] = strtoll(p, &end, 10);
		if (end == p || *end != (k == 2 ? ']' : ','))
			return;
		p = end + 1;
	}
	if (*p)
		return;
	memcpy(v, t, sizeof(t));
	e->args[i].top = 2;
}

static int add_args(struct cj_ctx *c, const struct cj_event *e, int64_t id)
{
	int rc = TK_OK;
	int64_t iv;
	for (size_t i = 0; i < e->nargs && rc == TK_OK; i++) {
		const struct cj_arg *a = &e->args[i];
		if (a->top == 2)
			continue;
		const char *k = (e->arena + a->key), *v = cj_str(e, a->v);
		switch (a->v.type) {
		case CJV_NUM:
			if (cj_plain_int(v, &iv) == 0)
				rc = tk_writer_add_arg_int(c->w, id, k, iv);
			else
				rc = tk_writer_add_arg_real(c->w, id, k, strtod(v, NULL));
			break;
		case CJV_TRUE:
		case CJV_FALSE:
			rc = tk_writer_add_arg_int(c->w, id, k, a->v.type == CJV_TRUE);
			break;
		default:
			rc = tk_writer_add_arg_text(c->w, id, k, v);
			break;
		}
	}
	return rc;
}

static enum tk_mem_kind mem_word(const char *p)
{
	if (!strncmp(p, "Pageable", 8))
		return TK_MEM_PAGEABLE;
	if (!strncmp(p, "Pinned", 6))
		return TK_MEM_PINNED;
	if (!strncmp(p, "Device", 6))
		return TK_MEM_DEVICE;
	if (!strncmp(p, "Managed", 7))
		return TK_MEM_MANAGED;
	if (!strncmp(p, "Array", 5))
		return TK_MEM_ARRAY;
	return TK_MEM_UNKNOWN;
}

/* "Memcpy HtoD (Pageable -> Device)" into copy kind and memory kinds. */
static void copy_kind(const char *name, struct tk_copy_info *ci)
{
	static const struct {
		const char *w;
		enum tk_copy_kind k;
	} kinds[] = {
	    {"HtoD", TK_COPY_H2D}, {"DtoH", TK_COPY_D2H}, {"DtoD", TK_COPY_D2D},
	    {"HtoH", TK_COPY_H2H}, {"PtoP", TK_COPY_P2P}, {"HtoA", TK_COPY_H2D},
	    {"AtoH", TK_COPY_D2H}, {"DtoA", TK_COPY_D2D}, {"AtoD", TK_COPY_D2D},
	    {"AtoA", TK_COPY_D2D},
	};
	ci->copy_kind = TK_COPY_UNKNOWN;
	ci->src_kind = ci->dst_kind = TK_MEM_UNKNOWN;
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (strstr(name, kinds[i].w)) {
			ci->copy_kind = kinds[i].k;
			break;
		}
	const char *p = strchr(name, '(');
	if (p) {
		ci->src_kind = mem_word(p + 1);
		const char *q = strstr(p, "-> ");
		if (q)
			ci->dst_kind = mem_word(q + 3);
	}
}

int cj_emit_interval(struct cj_ctx *c, const struct cj_event *ce, int64_t ts, int64_t dur,
		     const struct cj_event *extra, int force_other, int64_t *out_id)
{
	struct cj_event *e = (struct cj_event *)ce; /* marks args it used */
	int64_t track, id = 0;
	int is_gpu, rc;
	struct cj_proc *p;
	if ((rc = cj_track_for(c, e, &track, &is_gpu, &p)) != TK_OK)
		return rc;
	const char *cat = e->cat.type == CJV_NONE ? "" : cj_str(e, e->cat);
	const char *name = e->name.type == CJV_NONE ? "" : cj_str(e, e->name);
	size_t cat_len = e->cat.type == CJV_NONE ? 0 : e->cat.len;
	struct known kn;
	find_known(e, &kn);
	enum tk_event_kind kind = force_other ? TK_EV_OTHER : cj_cat_info(c, cat, cat_len).kind;
	if (kind == TK_EV_ANNOTATION && !is_gpu && !strncmp(name, "ProfilerStep#", 13))
		kind = TK_EV_STEP;
	/* interned here, name first, as the writer would: the same ids, with fewer hashes */
	struct tk_event ev = {track, kind, NULL, 0, NULL, 0, ts, dur, TK_NONE};
	ev.name_id = cj_intern(c, name, e->name.type == CJV_NONE ? 0 : e->name.len);
	ev.category_id = cat[0] ? cj_intern(c, cat, cat_len) : 0;
	if ((rc = tk_writer_status(c->w)) != TK_OK)
		return rc;
	ev.correlation_id = take_int(e, &kn, A_CORR);
	if (is_gpu) {
		take_int(e, &kn, A_DEVICE);
		take_int(e, &kn, A_STREAM);
	}
	if (kind == TK_EV_KERNEL) {
		struct tk_kernel_info k = {0};
		take_dim3(e, &kn, A_GRID, k.grid);
		take_dim3(e, &kn, A_BLOCK, k.block);
		k.registers = take_int(e, &kn, A_REGS);
		k.static_smem = take_int(e, &kn, A_SMEM);
		k.dynamic_smem = TK_NONE;
		double occ = take_real(e, &kn, A_OCC);
		/* Kineto writes 0 where CUPTI gave no estimate (an sm90 GEMM): no figure, as
		 * XPlane's occ_pct:0 (docs/formats.md) */
		k.occupancy = occ > 0 ? occ / 100.0 : -1;
		k.blocks_per_sm = take_real(e, &kn, A_BPS);
		k.warps_per_sm = take_real(e, &kn, A_WPS);
		rc = tk_writer_add_kernel(c->w, &ev, &k, &id);
	} else if (kind == TK_EV_MEMCPY) {
		struct tk_copy_info ci = {0};
		int64_t b = take_int(e, &kn, A_BYTES);
		ci.bytes = b == TK_NONE || b < 0 ? 0 : b;
		copy_kind(name, &ci);
		ci.src_device_id = ci.dst_device_id = TK_NONE;
		if (ci.copy_kind == TK_COPY_D2D && is_gpu)
			ci.src_device_id = ci.dst_device_id = p->device_id;
		rc = tk_writer_add_copy(c->w, &ev, &ci, &id);
	} else if (kind == TK_EV_MEMSET) {
		struct tk_set_info si = {0};
		int64_t b = take_int(e, &kn, A_BYTES);
		si.bytes = b == TK_NONE || b < 0 ? 0 : b;
		si.value = TK_NONE;
		si.mem_kind = is_gpu ? TK_MEM_DEVICE : TK_MEM_UNKNOWN;
		rc = tk_writer_add_set(c->w, &ev, &si, &id);
	} else if (kind == TK_EV_STEP) {
		char *end;
		long long n = strtoll(name + 13, &end, 10);
		rc = tk_writer_add_step(c->w, &ev, *end ? TK_NONE : n, &id);
	} else {
		rc = tk_writer_add_event(c->w, &ev, &id);
	}
	if (rc == TK_OK)
		rc = add_args(c, e, id);
	if (rc == TK_OK && extra)
		rc = add_args(c, extra, id);
	if (rc == TK_OK)
		rc = cj_flow_event_added(c, track, ts, id, ev.correlation_id != TK_NONE);
	if (rc == TK_OK && e->bind_id.type != CJV_NONE && e->bind_id.type != CJV_NULL)
		rc = cj_flow_v2(c, e, id);
	if (out_id)
		*out_id = id;
	return rc;
}

/* Parse a ts/dur value (a number, or a numeric string) in µs into ns. */
static int get_time(struct cj_ctx *c, const struct cj_event *e, struct cj_val v, const char *what,
		    int64_t *out)
{
	if ((v.type == CJV_NUM || v.type == CJV_STR) && cj_time_ns(cj_str(e, v), 3, out) == 0)
		return TK_OK;
	if (v.type == CJV_STR) {
		/* a non-numeric string: Perfetto drops such events; so do we (counted, warned) */
		c->n_bad_time++;
		return TK_SKIP_EVENT;
	}
	if (v.type == CJV_NONE)
		return cj_fail(c, e, "event has no '%s'", what);
	return cj_fail(c, e, "'%s' is not a time in microseconds that fits in 64-bit ns: '%.40s'",
		       what, cj_str(e, v));
}

static int get_ts(struct cj_ctx *c, const struct cj_event *e, int64_t *out)
{
	int rc = get_time(c, e, e->ts, "ts", out);
	int64_t base = c->top.base_ns;
	if (rc == TK_OK && base) {
		if ((base > 0 && *out > INT64_MAX - base) || (base < 0 && *out < INT64_MIN - base))
			return cj_fail(c, e, "ts plus baseTimeNanoseconds overflows 64-bit ns");
		*out += base;
	}
	return rc;
}

static int map_memory(struct cj_ctx *c, struct cj_event *e, int64_t ts)
{
	int64_t track;
	int is_gpu, rc;
	struct cj_proc *p;
	if ((rc = cj_track_for(c, e, &track, &is_gpu, &p)) != TK_OK)
		return rc;
	struct known kn;
	find_known(e, &kn);
	struct tk_memory_event m;
	memset(&m, 0, sizeof(m));
	m.ts_ns = ts;
	int64_t b = take_int(e, &kn, A_MBYTES);
	m.is_free = b != TK_NONE && b < 0;
	m.bytes = b == TK_NONE ? 0 : (b < 0 ? (b == INT64_MIN ? INT64_MAX : -b) : b);
	int64_t dev = take_int(e, &kn, A_DEVID), type = take_int(e, &kn, A_DEVTYPE);
	m.device_id = TK_NONE;
	m.mem_kind = TK_MEM_UNKNOWN;
	if (dev != TK_NONE && dev >= 0 && type != 0) {
		if ((rc = ensure_device(c, dev, &m.device_id)) != TK_OK)
			return rc;
		m.mem_kind = TK_MEM_DEVICE;
	}
	m.process_id = is_gpu ? main_process(c) : p->process_id;
	m.address = take_int(e, &kn, A_ADDR);
	m.op_event_id = TK_NONE;
	m.bytes_in_use = take_int(e, &kn, A_TALLOC);
	m.bytes_reserved = take_int(e, &kn, A_TRES);
	m.bytes_available = m.peak_bytes_in_use = m.requested_bytes = TK_NONE;
	m.fragmentation = -1;
	return tk_writer_add_memory_event(c->w, &m);
}

static int map_counter(struct cj_ctx *c, struct cj_event *e, int64_t ts)
{
	int64_t track;
	int is_gpu, rc;
	struct cj_proc *p;
	if ((rc = cj_track_for(c, e, &track, &is_gpu, &p)) != TK_OK)
		return rc;
	const char *name = e->name.type == CJV_NONE ? "" : cj_str(e, e->name);
	for (size_t i = 0; i < e->nargs; i++) {
		const struct cj_arg *a = &e->args[i];
		if (a->top || (a->v.type != CJV_NUM && a->v.type != CJV_STR))
			continue;
		const char *v = cj_str(e, a->v);
		char *end;
		double d = strtod(v, &end);
		if (end == v || *end || d != d)
			continue;
		char tname[512];
		if (e->id.type != CJV_NONE)
			snprintf(tname, sizeof(tname), "%s id: %s %s", name, cj_str(e, e->id),
				 (e->arena + a->key));
		else
			snprintf(tname, sizeof(tname), "%s %s", name, (e->arena + a->key));
		char key[600];
		snprintf(key, sizeof(key), "%s\x1f%s", p->key, tname);
		int64_t *t = cj_smap_get(&c->counter_by_key, key), id;
		if (t) {
			id = *t;
		} else {
			struct tk_track_info ti = {TK_TRACK_COUNTER, tname,   TK_NONE, TK_NONE,
						   TK_NONE,	     TK_NONE, NULL};
			if (is_gpu)
				ti.device_id = p->device_id;
			else
				ti.process_id = p->process_id;
			if ((rc = tk_writer_add_track(c->w, &ti, &id)) != TK_OK)
				return rc;
			if (cj_smap_put(&c->counter_by_key, key, id) != 0)
				return tk_writer_fail(c->w, TK_ENOMEM, "out of memory");
		}
		if ((rc = tk_writer_add_counter(c->w, id, ts, d)) != TK_OK)
			return rc;
	}
	return TK_OK;
}

static int map_event(struct cj_ctx *c, struct cj_event *e);

int cj_map_event(struct cj_ctx *c, struct cj_event *e)
{
	int rc = map_event(c, e);
	return rc == TK_SKIP_EVENT ? TK_OK : rc;
}

static int map_event(struct cj_ctx *c, struct cj_event *e)
{
	if (e->ph.type != CJV_STR) {
		c->n_skipped++; /* as Perfetto does: an object without a phase is not an event */
		return TK_OK;
	}
	const char *ph = cj_str(e, e->ph);
	int64_t ts, dur = 0;
	int rc;
	/* the first character is the phase, as Perfetto reads it ("XXX" is an 'X') */
	if (ph[0] == 'M' || !ph[0]) {
		if (ph[0] != 'M')
			c->n_skipped++;
		return TK_OK;
	}
	switch (ph[0]) {
	case 'X':
		if ((rc = get_ts(c, e, &ts)) != TK_OK)
			return rc;
		if (e->dur.type != CJV_NONE && (rc = get_time(c, e, e->dur, "dur", &dur)) != TK_OK)
			return rc;
		if (dur < 0)
			return cj_fail(c, e, "negative 'dur'");
		if (ts > INT64_MAX - dur)
			return cj_fail(c, e, "ts + dur overflows 64-bit ns");
		return cj_emit_interval(c, e, ts, dur, NULL, 0, NULL);
	case 'B':
	case 'E':
		if ((rc = get_ts(c, e, &ts)) != TK_OK)
			return rc;
		return cj_be(c, e, ts, ph[0] == 'B', 0);
	case 'b':
	case 'e':
		if ((rc = get_ts(c, e, &ts)) != TK_OK)
			return rc;
		return cj_be(c, e, ts, ph[0] == 'b', 1);
	case 'i':
	case 'I':
	case 'n':
	case 'R':
		if ((rc = get_ts(c, e, &ts)) != TK_OK)
			return rc;
		if (e->name.type == CJV_STR && !strcmp(cj_str(e, e->name), "[memory]"))
			return map_memory(c, e, ts);
		return cj_emit_interval(c, e, ts, 0, NULL, 1, NULL);
	case 'C':
		if ((rc = get_ts(c, e, &ts)) != TK_OK)
			return rc;
		return map_counter(c, e, ts);
	case 's':
	case 't':
	case 'f':
		if ((rc = get_ts(c, e, &ts)) != TK_OK)
			return rc;
		return cj_flow_point(c, e, ts);
	default:
		c->n_skipped++;
		return TK_OK;
	}
}

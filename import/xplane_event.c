/*
 * XPlane importer: one XEvent into the store. Classifies it by its line and name (kernel, copy,
 * set, API call, XLA op/module, framework op, step, annotation, host op, memory event), turns
 * the stats with a column into kernel/copy/set/op/step/memory details, correlation ids into
 * launch flows, and every other stat into an arg.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tracekit/error.h>

#include "xplane_internal.h"
#include "util/vec.h"

#define BYTES_HEX_MAX 256 /* bytes values up to this size are kept as hex text, larger as a size */

void xp_text_reset(struct xp_imp *im)
{
	im->text_len = 0;
	for (size_t i = 0; i < im->ngz; i++)
		free(im->gz[i]);
	im->ngz = 0;
}

static size_t text_need(const struct xp_stat *st)
{
	switch (st->type) {
	case XV_STR:
		return st->len + 1;
	case XV_BYTES:
		return st->len <= BYTES_HEX_MAX ? 2 * st->len + 1 : 48;
	default:
		return 0;
	}
}

int xp_text_reserve(struct xp_imp *im, size_t n, size_t bytes)
{
	(void)n;
	return TKU_GROW(im->text, im->text_cap, bytes, 4096);
}

const struct xp_smd *xp_smd_of(const struct xp_imp *im, int64_t id)
{
	int64_t i;
	return xp_map_get(&im->sm_index, id, &i) ? &im->smd[i] : NULL;
}

const char *xp_stat_text(struct xp_imp *im, const struct xp_stat *st)
{
	char *t = im->text + im->text_len;
	switch (st->type) {
	case XV_STR:
		memcpy(t, st->data, st->len);
		t[st->len] = 0;
		im->text_len += st->len + 1;
		return t;
	case XV_REF: {
		const struct xp_smd *sm = xp_smd_of(im, st->i);
		return sm ? sm->name : NULL;
	}
	case XV_BYTES:
		if (st->len <= BYTES_HEX_MAX) {
			static const char hex[] = "0123456789abcdef";
			for (size_t i = 0; i < st->len; i++) {
				t[2 * i] = hex[st->data[i] >> 4];
				t[2 * i + 1] = hex[st->data[i] & 15];
			}
			t[2 * st->len] = 0;
			im->text_len += 2 * st->len + 1;
		} else {
			snprintf(t, 48, "<%zu bytes>", st->len);
			im->text_len += 48;
		}
		return t;
	case XV_GZIP: {
		size_t n;
		if (TKU_GROW(im->gz, im->gz_cap, im->ngz + 1, 8) != TK_OK)
			return NULL;
		char *s = xp_gunzip(st->data, st->len, &n);
		if (s)
			im->gz[im->ngz++] = s;
		return s;
	}
	default:
		return NULL;
	}
}

/* What the stats of one event say, for the columns. */
struct info {
	const char *kernel, *memcpy, *memset;
	int64_t corr;
	struct tk_op_info op;
	int has_op;
	int64_t step_num, group_id, address, bytes_reserved, bytes_allocated, bytes_available;
	int64_t peak, requested, allocation;
	int64_t device_index; /* index_on_host (TPU) or device_ordinal of a memory event */
	int64_t tk_process;   /* process key tracekit's export recorded, or TK_NONE */
	int64_t tk_kind;      /* event kind it recorded, or TK_NONE */
	const char *tk_category, *tk_allocator; /* category, allocator it recorded, or NULL */
	double fragmentation;
	const char *allocator;
};

static int is_text_code(enum xs_stat c)
{
	return c == XS_KERNEL_DETAILS || c == XS_MEMCPY_DETAILS || c == XS_MEMSET_DETAILS ||
	       c == XS_HLO_OP || c == XS_HLO_MODULE || c == XS_TF_OP || c == XS_HLO_CATEGORY ||
	       c == XS_ALLOCATOR_NAME || c == XS_TK_CATEGORY || c == XS_TK_ALLOCATOR;
}

/* Fold one stat into @in; returns -1 after failing the writer on an undecodable value. */
static int collect(struct xp_imp *im, const struct xp_stat *st, struct info *in)
{
	const struct xp_smd *sm = st->sm;
	enum xs_stat c = sm ? sm->code : XS_OTHER;
	int64_t v = 0;
	const char *t = NULL;
	if (c == XS_OTHER)
		return 0;
	if (is_text_code(c)) {
		t = xp_stat_text(im, st);
		if (!t && st->type == XV_GZIP)
			return xp_fail(&im->src, st->at,
				       "compressed_str_value of stat '%s' is not "
				       "valid gzip or inflates past %u bytes",
				       sm->name, XP_MAX_GUNZIP);
		if (!t)
			return 0;
	} else if (c == XS_FRAGMENTATION) {
		if (st->type == XV_DOUBLE)
			in->fragmentation = st->d > 1 ? st->d / 100 : st->d;
		return 0;
	} else if (!xp_stat_int(st, &v)) {
		if (st->type != XV_STR)
			return 0;
		v = strtoll(xp_stat_text(im, st), NULL, 0); /* numbers written as text */
	}
	switch (c) {
	case XS_KERNEL_DETAILS:
		in->kernel = t;
		break;
	case XS_MEMCPY_DETAILS:
		in->memcpy = t;
		break;
	case XS_MEMSET_DETAILS:
		in->memset = t;
		break;
	case XS_CORRELATION_ID:
		in->corr = v;
		break;
	case XS_HLO_OP:
		in->op.hlo_op = t;
		in->has_op = 1;
		break;
	case XS_HLO_MODULE:
		in->op.hlo_module = t;
		in->has_op = 1;
		break;
	case XS_TF_OP:
		in->op.framework_op = t;
		in->has_op = 1;
		break;
	case XS_HLO_CATEGORY:
		in->op.op_category = t;
		in->has_op = 1;
		break;
	case XS_PROGRAM_ID:
		in->op.program_id = v;
		in->has_op = 1;
		break;
	case XS_FLOPS:
		in->op.flops = v;
		in->has_op = 1;
		break;
	case XS_BYTES_ACCESSED:
		in->op.bytes_accessed = v;
		in->has_op = 1;
		break;
	case XS_STEP_NUM:
		in->step_num = v;
		break;
	case XS_GROUP_ID:
		in->group_id = v;
		break;
	case XS_ALLOCATOR_NAME:
		in->allocator = t;
		break;
	case XS_INDEX_ON_HOST:
	case XS_DEVICE_ORDINAL:
		in->device_index = v;
		break;
	case XS_TK_PROCESS:
		in->tk_process = v;
		break;
	case XS_TK_KIND:
		in->tk_kind = v;
		break;
	case XS_TK_CATEGORY:
		in->tk_category = t;
		break;
	case XS_TK_ALLOCATOR:
		in->tk_allocator = t;
		break;
	case XS_BYTES_RESERVED:
		in->bytes_reserved = v;
		break;
	case XS_BYTES_ALLOCATED:
		in->bytes_allocated = v;
		break;
	case XS_BYTES_AVAILABLE:
		in->bytes_available = v;
		break;
	case XS_PEAK_BYTES_IN_USE:
		in->peak = v;
		break;
	case XS_REQUESTED_BYTES:
		in->requested = v;
		break;
	case XS_ALLOCATION_BYTES:
		in->allocation = v;
		break;
	case XS_ADDR:
		in->address = v;
		break;
	default:
		break;
	}
	return 0;
}

static int add_arg(struct xp_imp *im, int64_t ev, const struct xp_stat *st)
{
	const struct xp_smd *sm = st->sm;
	tk_writer *w = im->src.w;
	char key[40], num[32];
	const char *k = sm ? sm->name : key;
	if (!sm)
		snprintf(key, sizeof(key), "stat_%lld", (long long)st->md);
	switch (st->type) {
	case XV_INT:
		return tk_writer_add_arg_int(w, ev, k, st->i);
	case XV_UINT:
		if (st->u <= INT64_MAX)
			return tk_writer_add_arg_int(w, ev, k, st->i);
		snprintf(num, sizeof(num), "%llu", (unsigned long long)st->u);
		return tk_writer_add_arg_text(w, ev, k, num);
	case XV_DOUBLE:
		return tk_writer_add_arg_real(w, ev, k, st->d);
	case XV_NONE:
		return TK_OK;
	default: {
		const char *t = xp_stat_text(im, st);
		if (t)
			return tk_writer_add_arg_text(w, ev, k, t);
		if (st->type == XV_GZIP)
			return xp_fail(&im->src, st->at,
				       "compressed_str_value of stat '%s' is not valid "
				       "gzip or inflates past %u bytes",
				       k, XP_MAX_GUNZIP);
		return tk_writer_add_arg_int(w, ev, k,
					     st->i); /* unresolved ref_value: keep the id */
	}
	}
}

static int starts(const char *s, const char *p)
{
	return !strncmp(s, p, strlen(p));
}

static enum tk_event_kind host_kind(const char *name, const struct info *in)
{
	if (starts(name, "cuda") || starts(name, "hip"))
		return TK_EV_RUNTIME_API;
	if (name[0] == 'c' && name[1] == 'u' && name[2] >= 'A' && name[2] <= 'Z')
		return TK_EV_DRIVER_API;
	if (in->corr != TK_NONE)
		return TK_EV_RUNTIME_API;
	if (in->step_num != TK_NONE)
		return TK_EV_STEP;
	if (name[0] == '$')
		return TK_EV_PYTHON_FUNCTION;
	return TK_EV_HOST_OP;
}

/*
 * Device id of a memory event: from an allocator name such as GPU_0_bfc; else, with no
 * allocator name, from its index_on_host (TPU) or device_ordinal: the device of that ordinal
 * on this host (XProf's memory profile keys TPU memory the same way). TK_NONE: host memory.
 */
static int64_t allocator_device(const struct xp_imp *im, const char *a, int64_t index,
				enum tk_mem_kind *mk)
{
	int64_t dev;
	*mk = TK_MEM_UNKNOWN;
	if (!a) {
		if (index == TK_NONE || !xp_map_get(&im->dev_by_ordinal, index, &dev))
			return TK_NONE;
		*mk = TK_MEM_DEVICE;
		return dev;
	}
	if (strstr(a, "host")) {
		*mk = TK_MEM_PINNED;
		return TK_NONE;
	}
	const char *p = strstr(a, "GPU_");
	if (!p)
		p = strstr(a, "gpu_");
	if (!p || p[4] < '0' || p[4] > '9')
		return TK_NONE;
	if (!xp_map_get(&im->dev_by_ordinal, strtoll(p + 4, NULL, 10), &dev))
		return TK_NONE;
	*mk = TK_MEM_DEVICE;
	return dev;
}

static int memory_event(struct xp_imp *im, const char *name, int64_t ts, const struct info *in)
{
	enum tk_mem_kind mk;
	int64_t bytes = in->allocation != TK_NONE  ? in->allocation
			: in->requested != TK_NONE ? in->requested
						   : 0;
	struct tk_memory_event m = {
	    .ts_ns = ts,
	    .is_free = !strcmp(name, "MemoryDeallocation"),
	    .device_id = allocator_device(im, in->allocator, in->device_index, &mk),
	    .process_id =
		in->tk_process != TK_NONE ? xp_proc_of(im, in->tk_process) : im->process_id,
	    .address = in->address,
	    .bytes = bytes < 0 ? 0 : bytes,
	    .allocator =
		in->tk_allocator ? (in->tk_allocator[0] ? in->tk_allocator : NULL) : in->allocator,
	    .op_event_id = TK_NONE,
	    .bytes_in_use = in->bytes_allocated,
	    .bytes_reserved = in->bytes_reserved,
	    .bytes_available = in->bytes_available,
	    .peak_bytes_in_use = in->peak,
	    .requested_bytes = in->requested,
	    .fragmentation = in->fragmentation,
	    .op_name = in->op.framework_op,
	};
	m.mem_kind = mk;
	return tk_writer_add_memory_event(im->src.w, &m) == TK_OK ? 0 : -1;
}

/* Module name and program id from an XLA Modules event name "jit_f(123)". */
static void module_from_name(const char *name, char *buf, size_t len, struct tk_op_info *op)
{
	const char *paren = strrchr(name, '(');
	size_t n = paren ? (size_t)(paren - name) : strlen(name);
	if (n >= len)
		n = len - 1;
	memcpy(buf, name, n);
	buf[n] = 0;
	op->hlo_module = buf;
	if (paren && op->program_id == TK_NONE) {
		char *end;
		unsigned long long id = strtoull(paren + 1, &end, 10);
		if (*end == ')' && id <= INT64_MAX)
			op->program_id = (int64_t)id;
	}
}

static int decode(struct xp_imp *im, const uint8_t *data, size_t len, int64_t *md, int64_t *off,
		  int64_t *dur, int64_t *nocc)
{
	struct xp_cur c = {data, data + len};
	struct xp_field f;
	int r;
	while ((r = xp_next(&im->src, &c, &f, "XEvent")) > 0) {
		if (f.num == 4) {
			if (xp_want(&im->src, &f, XP_LEN, "XEvent"))
				return -1;
			if (TKU_GROW(im->st, im->st_cap, im->nst + 1, 16) != TK_OK)
				return tk_writer_fail(im->src.w, TK_ENOMEM, "out of memory"), -1;
			if (xp_stat_decode(&im->src, f.data, f.len, &im->st[im->nst]) < 0)
				return -1;
			im->st[im->nst].sm = xp_smd_of(im, im->st[im->nst].md);
			im->nst++;
		} else if (f.num == 1 || f.num == 2 || f.num == 3 || f.num == 5) {
			if (xp_want(&im->src, &f, XP_VARINT, "XEvent"))
				return -1;
			int64_t v = (int64_t)f.v;
			*(f.num == 1 ? md : f.num == 2 ? off : f.num == 3 ? dur : nocc) = v;
		}
	}
	return r;
}

int xp_event(struct xp_imp *im, const uint8_t *data, size_t len)
{
	tk_writer *w = im->src.w;
	int64_t md = 0, off = 0, dur = 0, nocc = TK_NONE, idx, ts, id = 0;
	im->nst = 0;
	if (decode(im, data, len, &md, &off, &dur, &nocc) < 0)
		return -1;
	if (dur < 0)
		return xp_fail(&im->src, data, "negative duration_ps %lld in XEvent",
			       (long long)dur);
	if (__builtin_add_overflow(im->line_base_ns, off / 1000, &ts) ||
	    ts > INT64_MAX - dur / 1000)
		return xp_fail(&im->src, data,
			       "offset_ps %lld puts the XEvent outside the int64 "
			       "nanosecond range",
			       (long long)off);
	struct xp_emd *e = xp_map_get(&im->em_index, md, &idx) ? &im->emd[idx] : NULL;
	const Tensorflow__Profiler__XEventMetadata *m = e ? e->e->value : NULL;
	const char *name = m && m->name ? m->name : "";

	/* Room for every text value of the metadata's and the event's stats. */
	size_t need = 64;
	for (size_t i = 0; e && i < e->nstats; i++)
		need += text_need(&e->stats[i]);
	for (size_t i = 0; i < im->nst; i++)
		need += text_need(&im->st[i]);
	xp_text_reset(im);
	if (xp_text_reserve(im, 0, 2 * need) != TK_OK) /* texts may be made twice: column, arg */
		return tk_writer_fail(w, TK_ENOMEM, "out of memory"), -1;
	struct info in = {.corr = TK_NONE,
			  .step_num = TK_NONE,
			  .group_id = TK_NONE,
			  .address = TK_NONE,
			  .bytes_reserved = TK_NONE,
			  .bytes_allocated = TK_NONE,
			  .bytes_available = TK_NONE,
			  .peak = TK_NONE,
			  .requested = TK_NONE,
			  .allocation = TK_NONE,
			  .device_index = TK_NONE,
			  .tk_process = TK_NONE,
			  .tk_kind = TK_NONE,
			  .fragmentation = -1};
	in.op.program_id = in.op.flops = in.op.bytes_accessed = TK_NONE;
	for (size_t i = 0; e && i < e->nstats; i++)
		if (collect(im, &e->stats[i], &in) < 0)
			return -1;
	for (size_t i = 0; i < im->nst; i++)
		if (collect(im, &im->st[i], &in) < 0)
			return -1;

	enum tk_event_kind kind;
	switch (im->lkind) {
	case XP_LINE_STREAM:
		kind = in.memcpy || starts(name, "Memcpy")   ? TK_EV_MEMCPY
		       : in.memset || starts(name, "Memset") ? TK_EV_MEMSET
							     : TK_EV_KERNEL;
		break;
	case XP_LINE_XLA_OPS:
		kind = TK_EV_XLA_OP;
		break;
	case XP_LINE_ASYNC_XLA_OPS:
		kind = TK_EV_ASYNC_XLA_OP;
		break;
	case XP_LINE_XLA_MODULES:
		kind = TK_EV_XLA_MODULE;
		break;
	case XP_LINE_STEPS:
		kind = TK_EV_STEP;
		break;
	case XP_LINE_FRAMEWORK_OPS:
		kind = TK_EV_FRAMEWORK_OP;
		break;
	case XP_LINE_DERIVED_OTHER:
	case XP_LINE_NVTX:
		kind = TK_EV_ANNOTATION;
		break;
	default:
		if (!strcmp(name, "MemoryAllocation") || !strcmp(name, "MemoryDeallocation"))
			return memory_event(im, name, ts, &in);
		kind = host_kind(name, &in);
		break;
	}

	/* the kind tracekit's export recorded (off a stream's device ops), when it is one */
	if (in.tk_kind >= TK_EV_HOST_OP && in.tk_kind <= TK_EV_ASYNC_XLA_OP &&
	    im->lkind != XP_LINE_STREAM)
		kind = (enum tk_event_kind)in.tk_kind;

	/* The name: display_name for XLA ops (the name is the HLO text), else the name. */
	int xla_op = kind == TK_EV_XLA_OP || kind == TK_EV_ASYNC_XLA_OP;
	int use_disp = xla_op && m && m->display_name && m->display_name[0];
	uint32_t name_id = 0;
	if (e && !use_disp)
		name_id = e->name_id ? e->name_id : (e->name_id = tk_writer_intern(w, name));
	else if (e)
		name_id =
		    e->disp_id ? e->disp_id : (e->disp_id = tk_writer_intern(w, m->display_name));
	else {
		char buf[48];
		snprintf(buf, sizeof(buf), "<event metadata %lld>", (long long)md);
		name_id = tk_writer_intern(w, buf);
	}
	if (!name_id)
		return -1;
	struct tk_event ev = {.track_id = im->track_id,
			      .kind = kind,
			      .name_id = name_id,
			      .ts_ns = ts,
			      .dur_ns = dur / 1000,
			      .category = in.tk_category,
			      .correlation_id = in.corr};
	uint64_t consumed = 1ull << XS_CORRELATION_ID | 1ull << XS_TK_KIND | 1ull << XS_TK_CATEGORY;
	int rc;
	if (kind == TK_EV_KERNEL) {
		struct tk_kernel_info k = {.grid = {TK_NONE, TK_NONE, TK_NONE},
					   .block = {TK_NONE, TK_NONE, TK_NONE},
					   .registers = TK_NONE,
					   .static_smem = TK_NONE,
					   .dynamic_smem = TK_NONE,
					   .occupancy = -1,
					   .blocks_per_sm = -1,
					   .warps_per_sm = -1};
		if (in.kernel)
			xp_kernel_details(im, in.kernel, &k);
		consumed |= 1ull << XS_KERNEL_DETAILS;
		rc = tk_writer_add_kernel(w, &ev, &k, &id);
	} else if (kind == TK_EV_MEMCPY) {
		struct tk_copy_info c = {.src_device_id = TK_NONE, .dst_device_id = TK_NONE};
		xp_parse_memcpy_details(in.memcpy, name, &c);
		if (c.copy_kind == TK_COPY_H2D || c.copy_kind == TK_COPY_D2D ||
		    c.copy_kind == TK_COPY_P2P)
			c.dst_device_id = im->device_id;
		if (c.copy_kind == TK_COPY_D2H || c.copy_kind == TK_COPY_D2D ||
		    c.copy_kind == TK_COPY_P2P)
			c.src_device_id = im->device_id;
		if (c.copy_kind == TK_COPY_P2P)
			c.dst_device_id =
			    TK_NONE; /* the peer is not named in a form we can resolve */
		consumed |= 1ull << XS_MEMCPY_DETAILS;
		rc = tk_writer_add_copy(w, &ev, &c, &id);
	} else if (kind == TK_EV_MEMSET) {
		struct tk_set_info s = {.value = TK_NONE};
		xp_parse_memset_details(in.memset, &s);
		consumed |= 1ull << XS_MEMSET_DETAILS;
		rc = tk_writer_add_set(w, &ev, &s, &id);
	} else if (kind == TK_EV_STEP) {
		int64_t n = in.step_num;
		char *end;
		if (n == TK_NONE)
			n = in.group_id;
		if (n == TK_NONE) {
			long long x = strtoll(name, &end, 10);
			n = end != name && !*end ? x : im->step_seq;
		}
		im->step_seq = n + 1;
		consumed |= 1ull << XS_STEP_NUM | 1ull << XS_GROUP_ID;
		rc = tk_writer_add_step(w, &ev, n, &id);
	} else {
		rc = tk_writer_add_event(w, &ev, &id);
	}
	if (rc != TK_OK)
		return -1;

	/* Op columns; XLA modules and ops fall back to their names. */
	char module[256];
	if (kind == TK_EV_XLA_MODULE && !in.op.hlo_module)
		module_from_name(name, module, sizeof(module), &in.op), in.has_op = 1;
	if (xla_op && !in.op.hlo_op)
		in.op.hlo_op = use_disp ? m->display_name : name, in.has_op = 1;
	if (in.has_op) {
		if (tk_writer_add_op_details(w, id, &in.op) != TK_OK)
			return -1;
		consumed |= 1ull << XS_HLO_OP | 1ull << XS_HLO_MODULE | 1ull << XS_TF_OP |
			    1ull << XS_HLO_CATEGORY | 1ull << XS_PROGRAM_ID | 1ull << XS_FLOPS |
			    1ull << XS_BYTES_ACCESSED;
	}

	/* Launch flows: API call (host side, 0) -> device op (1), matched by correlation id. */
	if (in.corr != TK_NONE) {
		int dev = im->pkind == XP_PLANE_DEVICE;
		int64_t other;
		if (xp_corr_get(&im->corr, in.corr, &other) && (other & 1) != dev) {
			int64_t api = dev ? other >> 1 : id, op = dev ? id : other >> 1;
			xp_corr_del(&im->corr, in.corr);
			if (tk_writer_add_flow(w, "launch", api, op) != TK_OK)
				return -1;
		} else if (xp_corr_put(&im->corr, in.corr, id * 2 + dev) != TK_OK) {
			return tk_writer_fail(w, TK_ENOMEM, "out of memory"), -1;
		}
	}

	/* Everything else becomes an arg: metadata stats first, then the event's own. */
	if (use_disp && strcmp(name, m->display_name) &&
	    tk_writer_add_arg_text(w, id, "long_name", name) != TK_OK)
		return -1;
	if (nocc != TK_NONE && tk_writer_add_arg_int(w, id, "num_occurrences", nocc) != TK_OK)
		return -1;
	for (int pass = 0; pass < 2; pass++) {
		const struct xp_stat *sv = pass ? im->st : e ? e->stats : NULL;
		size_t n = pass ? im->nst : e ? e->nstats : 0;
		for (size_t i = 0; i < n; i++) {
			const struct xp_smd *sm = sv[i].sm;
			if (sm && sm->code != XS_OTHER && (consumed >> sm->code & 1))
				continue;
			if (add_arg(im, id, &sv[i]) != TK_OK)
				return -1;
		}
	}
	im->events++;
	return 0;
}
_Static_assert(XS_COUNT <= 64, "stat codes are bits of a uint64_t");

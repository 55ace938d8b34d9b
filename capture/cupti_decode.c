/*
 * The CUPTI activity record decoder (see cupti_decode.h): kernels, copies, sets, memory
 * allocations, runtime/driver API calls, synchronization, NVTX markers, overhead and device
 * records into store rows. Launch flows join API calls and device work by correlation id in
 * two direct-mapped tables (bounded memory whatever the trace length; records may arrive in any
 * order). Records with missing or inverted timestamps are counted and skipped, never silent.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tracekit/error.h>

#include "cupti_decode.h"
#include "util/vec.h"

#define CORR_SLOTS (1u << 16)
#define DEV_PER_SLOT 4
#define MAX_DEVICES 256
#define MARKER_SLOTS 4096

struct api_slot {
	uint32_t corr; /* 0: empty */
	int64_t event, track;
};

struct dev_slot {
	uint32_t corr;
	int n;
	int64_t events[DEV_PER_SLOT];
};

struct marker_slot { /* an NVTX range start waiting for its end */
	uint32_t id; /* 0: empty */
	int64_t ts, tid;
	char *name, *domain;
};

struct stream_track {
	uint64_t key; /* device << 32 | stream, +1 (0: empty) */
	int64_t track;
};

struct tkcap_cupti_decoder {
	tk_writer *w;
	int64_t process_id;
	struct tkcap_host_writer *hw;
	const struct tkcap_cupti_api *cupti;
	int thread_names;
	struct tkcap_cupti_stats st;
	struct tkcap_cupti_device dev[MAX_DEVICES];
	struct api_slot *api;
	struct dev_slot *devq;
	struct marker_slot *markers;
	struct stream_track *streams;
	size_t nstreams, streams_cap; /* open addressing, power of two */
	int64_t sync_track, overhead_track;
	char *(*demangle)(const char *, char *, size_t *, int *);
	int demangle_tried;
	int gated;	       /* keep only records that start inside a window */
	int64_t (*windows)[2]; /* [open, close) intervals; close INT64_MAX while open */
	size_t nwindows, windows_cap;
};

void tkcap_cupti_decoder_gate(struct tkcap_cupti_decoder *d, int on)
{
	d->gated = on;
}

void tkcap_cupti_decoder_window(struct tkcap_cupti_decoder *d, int open, int64_t ts)
{
	if (open) {
		if (TKU_GROW(d->windows, d->windows_cap, d->nwindows + 1, 16) != TK_OK)
			return;
		d->windows[d->nwindows][0] = ts;
		d->windows[d->nwindows++][1] = INT64_MAX;
	} else if (d->nwindows && d->windows[d->nwindows - 1][1] == INT64_MAX) {
		d->windows[d->nwindows - 1][1] = ts;
	}
}

/* A record starting at @ts is kept (inside a window, or no windows). */
static int keep(struct tkcap_cupti_decoder *d, uint64_t ts)
{
	if (!d->gated)
		return 1;
	for (size_t i = d->nwindows; i-- > 0;)
		if ((int64_t)ts >= d->windows[i][0] && (int64_t)ts < d->windows[i][1])
			return 1;
	d->st.outside_window++;
	return 0;
}

int tkcap_cupti_decoder_create(tk_writer *w, int64_t process_id, struct tkcap_host_writer *hw,
			       const struct tkcap_cupti_api *api, struct tkcap_cupti_decoder **out)
{
	struct tkcap_cupti_decoder *d = calloc(1, sizeof(*d));
	*out = d;
	if (!d)
		return tk_writer_fail(w, TK_ENOMEM, "out of memory");
	d->w = w;
	d->process_id = process_id;
	d->hw = hw;
	d->cupti = api;
	d->api = calloc(CORR_SLOTS, sizeof(*d->api));
	d->devq = calloc(CORR_SLOTS, sizeof(*d->devq));
	d->markers = calloc(MARKER_SLOTS, sizeof(*d->markers));
	if (!d->api || !d->devq || !d->markers)
		return tk_writer_fail(w, TK_ENOMEM, "out of memory");
	return tk_writer_status(w);
}

void tkcap_cupti_decoder_set_api(struct tkcap_cupti_decoder *d, const struct tkcap_cupti_api *api)
{
	d->cupti = api;
}

void tkcap_cupti_decoder_thread_names(struct tkcap_cupti_decoder *d, int on)
{
	d->thread_names = on;
}

void tkcap_cupti_decoder_free(struct tkcap_cupti_decoder *d)
{
	if (!d)
		return;
	for (size_t i = 0; d->markers && i < MARKER_SLOTS; i++) {
		free(d->markers[i].name);
		free(d->markers[i].domain);
	}
	free(d->markers);
	free(d->api);
	free(d->devq);
	free(d->streams);
	free(d->windows);
	free(d);
}

void tkcap_cupti_decoder_add_dropped(struct tkcap_cupti_decoder *d, int64_t n)
{
	d->st.dropped += n;
}

void tkcap_cupti_decoder_stats(const struct tkcap_cupti_decoder *d, struct tkcap_cupti_stats *out)
{
	*out = d->st;
}

void tkcap_cupti_decoder_set_limits(struct tkcap_cupti_decoder *d, uint32_t cupti_device,
				    int64_t smem_per_block_optin, int64_t reserved_smem_per_block)
{
	if (cupti_device >= MAX_DEVICES)
		return;
	d->dev[cupti_device].occ.smem_per_block_optin = smem_per_block_optin;
	d->dev[cupti_device].occ.reserved_smem_per_block = reserved_smem_per_block;
}

/* ---- devices, tracks ---- */

/* The store id of CUPTI device @id, adding an anonymous device on first sight. */
static int64_t device_id(struct tkcap_cupti_decoder *d, uint32_t id)
{
	if (id >= MAX_DEVICES)
		return TK_NONE;
	if (d->dev[id].store_id)
		return d->dev[id].store_id - 1;
	struct tk_device_info info = {.ordinal = id,
				      .vendor = "nvidia",
				      .process_id = TK_NONE,
				      .rank = TK_NONE,
				      .sm_count = TK_NONE,
				      .clock_hz = TK_NONE,
				      .memory_bytes = TK_NONE,
				      .memory_bandwidth_bps = TK_NONE,
				      .peak_flops = -1,
				      .max_threads_per_sm = TK_NONE,
				      .max_regs_per_sm = TK_NONE,
				      .max_smem_per_sm = TK_NONE};
	int64_t sid;
	if (tk_writer_add_device(d->w, &info, &sid) != TK_OK)
		return TK_NONE;
	d->dev[id].store_id = sid + 1;
	return sid;
}

static void device_record(struct tkcap_cupti_decoder *d, const struct tkc_device5 *r)
{
	d->st.devices++;
	if (r->id >= MAX_DEVICES)
		return;
	struct tkcap_cupti_device *dev = &d->dev[r->id];
	struct tk_device_info info;
	char cc[16];
	tkcap_cupti_device_from_record(r, dev, &info, cc, sizeof(cc));
	if (dev->store_id) /* already added when its work came first: limits only */
		return;
	int64_t sid;
	if (tk_writer_add_device(d->w, &info, &sid) == TK_OK)
		dev->store_id = sid + 1;
}

static int64_t stream_track(struct tkcap_cupti_decoder *d, uint32_t device, uint32_t stream)
{
	uint64_t key = ((uint64_t)device << 32 | stream) + 1;
	if (2 * (d->nstreams + 1) > d->streams_cap) {
		size_t cap = d->streams_cap ? 2 * d->streams_cap : 64;
		struct stream_track *t = calloc(cap, sizeof(*t));
		if (!t)
			return tk_writer_fail(d->w, TK_ENOMEM, "out of memory"), 0;
		for (size_t i = 0; i < d->streams_cap; i++) {
			if (!d->streams[i].key)
				continue;
			size_t j = d->streams[i].key * 0x9E3779B97F4A7C15ull >> 20 & (cap - 1);
			while (t[j].key)
				j = (j + 1) & (cap - 1);
			t[j] = d->streams[i];
		}
		free(d->streams);
		d->streams = t;
		d->streams_cap = cap;
	}
	size_t j = key * 0x9E3779B97F4A7C15ull >> 20 & (d->streams_cap - 1);
	while (d->streams[j].key && d->streams[j].key != key)
		j = (j + 1) & (d->streams_cap - 1);
	if (d->streams[j].key)
		return d->streams[j].track;
	int64_t dev = device_id(d, device);
	char name[48];
	snprintf(name, sizeof(name), "Stream #%u", stream);
	struct tk_track_info t = {TK_TRACK_STREAM, name, d->process_id, dev, TK_NONE, stream, NULL};
	int64_t id;
	if (tk_writer_add_track(d->w, &t, &id) != TK_OK)
		return 0;
	d->streams[j].key = key;
	d->streams[j].track = id;
	d->nstreams++;
	return id;
}

static int64_t thread_track(struct tkcap_cupti_decoder *d, int64_t tid)
{
	char name[64] = "", path[64];
	if (d->thread_names) {
		snprintf(path, sizeof(path), "/proc/self/task/%lld/comm", (long long)tid);
		FILE *f = fopen(path, "r");
		if (f) {
			if (fgets(name, sizeof(name), f))
				name[strcspn(name, "\n")] = 0;
			fclose(f);
		}
	}
	return tkcap_host_writer_track(d->hw, tid, name);
}

static int64_t derived_track(struct tkcap_cupti_decoder *d, int64_t *slot, const char *name)
{
	if (!*slot) {
		struct tk_track_info t = {TK_TRACK_DERIVED, name,    d->process_id, TK_NONE,
					  TK_NONE,	    TK_NONE, NULL};
		tk_writer_add_track(d->w, &t, slot);
	}
	return *slot;
}

/* ---- launch flows ---- */

static void flow(struct tkcap_cupti_decoder *d, int64_t api, int64_t op)
{
	if (tk_writer_add_flow(d->w, "launch", api, op) == TK_OK)
		d->st.flows++;
}

/* A device op with correlation id @corr was written as @event. */
static void device_op(struct tkcap_cupti_decoder *d, uint32_t corr, int64_t event)
{
	if (!corr)
		return;
	struct api_slot *a = &d->api[corr % CORR_SLOTS];
	if (a->corr == corr) { /* kept: a graph launch has many ops */
		flow(d, a->event, event);
		return;
	}
	struct dev_slot *q = &d->devq[corr % CORR_SLOTS];
	if (q->corr != corr) {
		q->corr = corr;
		q->n = 0;
	}
	if (q->n < DEV_PER_SLOT)
		q->events[q->n++] = event;
}

static void api_done(struct tkcap_cupti_decoder *d, uint32_t corr, int64_t event, int64_t track)
{
	if (!corr)
		return;
	struct dev_slot *q = &d->devq[corr % CORR_SLOTS];
	if (q->corr == corr) {
		for (int i = 0; i < q->n; i++)
			flow(d, event, q->events[i]);
		q->corr = 0;
		q->n = 0;
	}
	struct api_slot *a = &d->api[corr % CORR_SLOTS];
	a->corr = corr;
	a->event = event;
	a->track = track;
}

/* ---- records ---- */

/* [start, end] is a usable interval; counts the record as invalid otherwise. */
static int valid_times(struct tkcap_cupti_decoder *d, uint64_t start, uint64_t end)
{
	if (start == 0 || end < start || end > (uint64_t)INT64_MAX) {
		d->st.invalid_timestamps++;
		return 0;
	}
	return keep(d, start);
}

static const char *demangled(struct tkcap_cupti_decoder *d, const char *name, char **owned)
{
	*owned = NULL;
	if (!name || strncmp(name, "_Z", 2))
		return name;
	if (!d->demangle_tried) {
		d->demangle_tried = 1;
		void *fn = dlsym(RTLD_DEFAULT, "__cxa_demangle");
		if (!fn) {
			void *h = dlopen("libstdc++.so.6", RTLD_NOW | RTLD_LOCAL);
			fn = h ? dlsym(h, "__cxa_demangle") : NULL;
		}
		*(void **)&d->demangle = fn;
	}
	int status = -1;
	char *s = d->demangle ? d->demangle(name, NULL, NULL, &status) : NULL;
	if (!s || status != 0) {
		free(s);
		return name;
	}
	*owned = s;
	return s;
}

static void kernel(struct tkcap_cupti_decoder *d, const struct tkc_kernel10 *k)
{
	if (!valid_times(d, k->start, k->end))
		return;
	int64_t track = stream_track(d, k->deviceId, k->streamId);
	if (!track)
		return;
	char *owned;
	const char *raw = k->name ? k->name : "(unnamed kernel)";
	const char *name = demangled(d, raw, &owned);
	struct tk_event ev = {.track_id = track,
			      .kind = TK_EV_KERNEL,
			      .name = name,
			      .ts_ns = (int64_t)k->start,
			      .dur_ns = (int64_t)(k->end - k->start),
			      .correlation_id = k->correlationId};
	struct tk_kernel_info ki = {
	    .mangled_name = owned ? raw : NULL,
	    .grid = {k->gridX, k->gridY, k->gridZ},
	    .block = {k->blockX, k->blockY, k->blockZ},
	    .registers = k->registersPerThread,
	    .static_smem = k->staticSharedMemory,
	    .dynamic_smem = k->dynamicSharedMemory,
	    .occupancy = -1,
	    .blocks_per_sm = -1,
	    .warps_per_sm = -1,
	};
	const struct tkcap_cupti_device *dev =
	    k->deviceId < MAX_DEVICES ? &d->dev[k->deviceId] : NULL;
	/* (in double: the product of three int32 may overflow int64) */
	double threads = (double)k->blockX * k->blockY * k->blockZ;
	double blocks = (double)k->gridX * k->gridY * k->gridZ;
	int active = 0;
	double est = -1;
	if (dev && dev->known && dev->occ.sm_count > 0 && threads > 0 && threads <= INT32_MAX) {
		ki.blocks_per_sm = blocks / dev->occ.sm_count;
		ki.warps_per_sm = ki.blocks_per_sm * threads / 32;
		ki.occupancy = tku_occupancy(&dev->occ, (int)threads, k->registersPerThread,
					     k->staticSharedMemory, k->dynamicSharedMemory,
					     k->shmemLimitConfig == TKC_SHMEM_LIMIT_OPTIN, &active);
		if (ki.occupancy >= 0) {
			double a = active < ki.blocks_per_sm ? active : ki.blocks_per_sm;
			est = a * threads / dev->occ.max_threads_per_sm;
		}
	}
	int64_t id;
	int rc = tk_writer_add_kernel(d->w, &ev, &ki, &id);
	free(owned);
	if (rc != TK_OK)
		return;
	d->st.kernels++;
	if (est >= 0)
		tk_writer_add_arg_real(d->w, id, "est_achieved_occupancy", est);
	if (k->graphId)
		tk_writer_add_arg_int(d->w, id, "graph_id", k->graphId);
	if (k->graphNodeId)
		tk_writer_add_arg_int(d->w, id, "graph_node_id", (int64_t)k->graphNodeId);
	if (k->launchType)
		tk_writer_add_arg_int(d->w, id, "launch_type", k->launchType);
	if (k->localMemoryPerThread)
		tk_writer_add_arg_int(d->w, id, "local_memory_per_thread", k->localMemoryPerThread);
	if (k->clusterX > 1 || k->clusterY > 1 || k->clusterZ > 1) {
		char c[48];
		snprintf(c, sizeof(c), "%ux%ux%u", k->clusterX, k->clusterY, k->clusterZ);
		tk_writer_add_arg_text(d->w, id, "cluster", c);
	}
	if (k->isDeviceLaunched)
		tk_writer_add_arg_int(d->w, id, "device_launched", 1);
	device_op(d, k->correlationId, id);
}

static enum tk_mem_kind mem_kind(uint32_t k)
{
	switch (k) {
	case TKC_MEM_PAGEABLE:
		return TK_MEM_PAGEABLE;
	case TKC_MEM_PINNED:
		return TK_MEM_PINNED;
	case TKC_MEM_DEVICE:
	case TKC_MEM_DEVICE_STATIC:
		return TK_MEM_DEVICE;
	case TKC_MEM_ARRAY:
		return TK_MEM_ARRAY;
	case TKC_MEM_MANAGED:
	case TKC_MEM_MANAGED_STATIC:
		return TK_MEM_MANAGED;
	default:
		return TK_MEM_UNKNOWN;
	}
}

static const char *mem_kind_label(enum tk_mem_kind k)
{
	static const char *const names[] = {"Unknown", "Pageable", "Pinned",
					    "Device",  "Managed",  "Array"};
	return names[k];
}

static void memcpy_record(struct tkcap_cupti_decoder *d, const struct tkc_memcpy6 *m)
{
	static const struct {
		const char *label;
		enum tk_copy_kind kind;
	} kinds[] = {
	    [TKC_COPY_UNKNOWN] = {"Unknown", TK_COPY_UNKNOWN},
	    [TKC_COPY_HTOD] = {"HtoD", TK_COPY_H2D},
	    [TKC_COPY_DTOH] = {"DtoH", TK_COPY_D2H},
	    [TKC_COPY_HTOA] = {"HtoA", TK_COPY_H2D},
	    [TKC_COPY_ATOH] = {"AtoH", TK_COPY_D2H},
	    [TKC_COPY_ATOA] = {"AtoA", TK_COPY_D2D},
	    [TKC_COPY_ATOD] = {"AtoD", TK_COPY_D2D},
	    [TKC_COPY_DTOA] = {"DtoA", TK_COPY_D2D},
	    [TKC_COPY_DTOD] = {"DtoD", TK_COPY_D2D},
	    [TKC_COPY_HTOH] = {"HtoH", TK_COPY_H2H},
	    [TKC_COPY_PTOP] = {"PtoP", TK_COPY_P2P},
	};
	if (!valid_times(d, m->start, m->end))
		return;
	int64_t track = stream_track(d, m->deviceId, m->streamId);
	if (!track)
		return;
	unsigned ck = m->copyKind <= TKC_COPY_PTOP ? m->copyKind : 0;
	struct tk_copy_info c = {.bytes =
				     m->bytes > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)m->bytes,
				 .copy_kind = kinds[ck].kind,
				 .src_kind = mem_kind(m->srcKind),
				 .dst_kind = mem_kind(m->dstKind),
				 .src_device_id = TK_NONE,
				 .dst_device_id = TK_NONE};
	int64_t dev = device_id(d, m->deviceId);
	if (c.copy_kind == TK_COPY_H2D || c.copy_kind == TK_COPY_D2D)
		c.dst_device_id = dev;
	if (c.copy_kind == TK_COPY_D2H || c.copy_kind == TK_COPY_D2D)
		c.src_device_id = dev;
	char name[96];
	snprintf(name, sizeof(name), "Memcpy %s (%s -> %s)", kinds[ck].label,
		 mem_kind_label(c.src_kind), mem_kind_label(c.dst_kind));
	struct tk_event ev = {.track_id = track,
			      .kind = TK_EV_MEMCPY,
			      .name = name,
			      .ts_ns = (int64_t)m->start,
			      .dur_ns = (int64_t)(m->end - m->start),
			      .correlation_id = m->correlationId};
	int64_t id;
	if (tk_writer_add_copy(d->w, &ev, &c, &id) != TK_OK)
		return;
	d->st.memcpys++;
	if (m->flags & TKC_FLAG_MEMCPY_ASYNC)
		tk_writer_add_arg_int(d->w, id, "async", 1);
	if (m->graphId)
		tk_writer_add_arg_int(d->w, id, "graph_id", m->graphId);
	device_op(d, m->correlationId, id);
}

static void memset_record(struct tkcap_cupti_decoder *d, const struct tkc_memset4 *m)
{
	if (!valid_times(d, m->start, m->end))
		return;
	int64_t track = stream_track(d, m->deviceId, m->streamId);
	if (!track)
		return;
	struct tk_set_info s = {.bytes =
				    m->bytes > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)m->bytes,
				.value = m->value,
				.mem_kind = mem_kind(m->memoryKind)};
	char name[48];
	snprintf(name, sizeof(name), "Memset (%s)", mem_kind_label(s.mem_kind));
	struct tk_event ev = {.track_id = track,
			      .kind = TK_EV_MEMSET,
			      .name = name,
			      .ts_ns = (int64_t)m->start,
			      .dur_ns = (int64_t)(m->end - m->start),
			      .correlation_id = m->correlationId};
	int64_t id;
	if (tk_writer_add_set(d->w, &ev, &s, &id) != TK_OK)
		return;
	d->st.memsets++;
	device_op(d, m->correlationId, id);
}

static void memory_record(struct tkcap_cupti_decoder *d, const struct tkc_memory4 *m)
{
	if (m->timestamp == 0 || m->timestamp > (uint64_t)INT64_MAX) {
		d->st.invalid_timestamps++;
		return;
	}
	if (!keep(d, m->timestamp))
		return;
	struct api_slot *a = &d->api[m->correlationId % CORR_SLOTS];
	struct tk_memory_event e = {
	    .ts_ns = (int64_t)m->timestamp,
	    .is_free = m->memoryOperationType == TKC_MEMORY_OP_RELEASE,
	    .device_id = device_id(d, m->deviceId),
	    .process_id = d->process_id,
	    .address = (int64_t)m->address,
	    .bytes = m->bytes > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)m->bytes,
	    .mem_kind = mem_kind(m->memoryKind),
	    .allocator = m->memoryPoolConfig.memoryPoolType ? "cuda_mempool" : "cuda",
	    .op_event_id = m->correlationId && a->corr == m->correlationId ? a->event : TK_NONE,
	    .bytes_in_use = TK_NONE,
	    .bytes_reserved = TK_NONE,
	    .bytes_available = TK_NONE,
	    .peak_bytes_in_use = TK_NONE,
	    .requested_bytes = TK_NONE,
	    .fragmentation = -1,
	    .op_name = m->name};
	if (tk_writer_add_memory_event(d->w, &e) == TK_OK)
		d->st.memory++;
}

static void api_record(struct tkcap_cupti_decoder *d, const struct tkc_api *r)
{
	if (!valid_times(d, r->start, r->end))
		return;
	int runtime = r->kind == TKC_KIND_RUNTIME;
	const char *cb = NULL;
	char name[128];
	if (!d->cupti || !d->cupti->GetCallbackName ||
	    d->cupti->GetCallbackName(runtime ? TKC_CB_DOMAIN_RUNTIME_API
					      : TKC_CB_DOMAIN_DRIVER_API,
				      r->cbid, &cb) != TKC_SUCCESS ||
	    !cb)
		snprintf(name, sizeof(name), "%s_%u", runtime ? "cudaApi" : "cuApi", r->cbid);
	else {
		snprintf(name, sizeof(name), "%s", cb);
		char *v = strstr(name, "_v"); /* cudaLaunchKernel_v7000 -> cudaLaunchKernel */
		if (v && v[2] >= '0' && v[2] <= '9' && strspn(v + 2, "0123456789") == strlen(v + 2))
			*v = 0;
	}
	int64_t track = thread_track(d, r->threadId);
	if (!track)
		return;
	struct tk_event ev = {.track_id = track,
			      .kind = runtime ? TK_EV_RUNTIME_API : TK_EV_DRIVER_API,
			      .name = name,
			      .ts_ns = (int64_t)r->start,
			      .dur_ns = (int64_t)(r->end - r->start),
			      .correlation_id = r->correlationId};
	int64_t id;
	if (tk_writer_add_event(d->w, &ev, &id) != TK_OK)
		return;
	d->st.api++;
	if (r->returnValue)
		tk_writer_add_arg_int(d->w, id, "return_value", r->returnValue);
	api_done(d, r->correlationId, id, track);
}

static void sync_record(struct tkcap_cupti_decoder *d, const struct tkc_sync2 *r)
{
	static const char *const names[] = {"Synchronize", "Event synchronize", "Stream wait event",
					    "Stream synchronize", "Context synchronize"};
	if (!valid_times(d, r->start, r->end))
		return;
	struct api_slot *a = &d->api[r->correlationId % CORR_SLOTS];
	int64_t track = r->correlationId && a->corr == r->correlationId
			    ? a->track
			    : derived_track(d, &d->sync_track, "CUDA synchronization");
	if (!track)
		return;
	struct tk_event ev = {.track_id = track,
			      .kind = TK_EV_SYNC,
			      .name = names[r->type <= 4 ? r->type : 0],
			      .ts_ns = (int64_t)r->start,
			      .dur_ns = (int64_t)(r->end - r->start),
			      .correlation_id = r->correlationId};
	int64_t id;
	if (tk_writer_add_event(d->w, &ev, &id) != TK_OK)
		return;
	d->st.syncs++;
	if (r->streamId != TKC_SYNC_INVALID_VALUE)
		tk_writer_add_arg_int(d->w, id, "stream_id", r->streamId);
	if (r->cudaEventId != TKC_SYNC_INVALID_VALUE)
		tk_writer_add_arg_int(d->w, id, "cuda_event_id", r->cudaEventId);
}

static void marker_record(struct tkcap_cupti_decoder *d, const struct tkc_marker2 *r)
{
	int64_t tid = r->objectKind == TKC_OBJECT_THREAD ? r->objectId.pt.threadId : 0;
	if (r->timestamp == 0 || r->timestamp > (uint64_t)INT64_MAX) {
		d->st.invalid_timestamps++;
		return;
	}
	struct marker_slot *m = &d->markers[r->id % MARKER_SLOTS];
	if (r->flags & TKC_FLAG_MARKER_START) {
		free(m->name);
		free(m->domain);
		m->id = r->id;
		m->ts = (int64_t)r->timestamp;
		m->tid = tid;
		m->name = strdup(r->name ? r->name : "");
		m->domain = r->domain ? strdup(r->domain) : NULL;
		return;
	}
	const char *name = r->name, *domain = r->domain;
	int64_t ts = (int64_t)r->timestamp, dur = 0;
	if (r->flags & TKC_FLAG_MARKER_END) {
		if (m->id != r->id || m->ts > ts)
			return;
		name = m->name;
		domain = m->domain;
		dur = ts - m->ts;
		ts = m->ts;
		tid = m->tid;
	} else if (!(r->flags & TKC_FLAG_MARKER_INSTANTANEOUS)) {
		return; /* sync markers carry no range */
	}
	int64_t track = keep(d, (uint64_t)ts) ? thread_track(d, tid) : 0;
	if (track) {
		struct tk_event ev = {.track_id = track,
				      .kind = TK_EV_ANNOTATION,
				      .name = name && *name ? name : "(unnamed range)",
				      .category = domain ? domain : "nvtx",
				      .ts_ns = ts,
				      .dur_ns = dur,
				      .correlation_id = TK_NONE};
		if (tk_writer_add_event(d->w, &ev, NULL) == TK_OK)
			d->st.markers++;
	}
	if (r->flags & TKC_FLAG_MARKER_END) {
		free(m->name);
		free(m->domain);
		memset(m, 0, sizeof(*m));
	}
}

static void overhead_record(struct tkcap_cupti_decoder *d, const struct tkc_overhead3 *r)
{
	const char *name;
	switch ((int)r->overheadKind) {
	case TKC_OVERHEAD_DRIVER_COMPILER:
		name = "Driver compiler";
		break;
	case TKC_OVERHEAD_CUPTI_BUFFER_FLUSH:
		name = "CUPTI buffer flush";
		break;
	case TKC_OVERHEAD_CUPTI_INSTRUMENTATION:
		name = "CUPTI instrumentation";
		break;
	case TKC_OVERHEAD_CUPTI_RESOURCE:
		name = "CUPTI resource";
		break;
	case TKC_OVERHEAD_LAZY_FUNCTION_LOADING:
		name = "Lazy function loading";
		break;
	default:
		name = "Profiling overhead";
		break;
	}
	if (!valid_times(d, r->start, r->end))
		return;
	int64_t track = r->objectKind == TKC_OBJECT_THREAD
			    ? thread_track(d, r->objectId.pt.threadId)
			    : derived_track(d, &d->overhead_track, "Profiler overhead");
	struct tk_event ev = {.track_id = track,
			      .kind = TK_EV_OTHER,
			      .name = name,
			      .category = "profiler_overhead",
			      .ts_ns = (int64_t)r->start,
			      .dur_ns = (int64_t)(r->end - r->start),
			      .correlation_id = TK_NONE};
	if (track && tk_writer_add_event(d->w, &ev, NULL) == TK_OK)
		d->st.overheads++;
}

int tkcap_cupti_decode_record(struct tkcap_cupti_decoder *d, const struct tkc_record *r)
{
	d->st.records++;
	switch (r->kind) {
	case TKC_KIND_KERNEL:
	case TKC_KIND_CONCURRENT_KERNEL:
		kernel(d, (const struct tkc_kernel10 *)r);
		break;
	case TKC_KIND_MEMCPY:
		memcpy_record(d, (const struct tkc_memcpy6 *)r);
		break;
	case TKC_KIND_MEMSET:
		memset_record(d, (const struct tkc_memset4 *)r);
		break;
	case TKC_KIND_MEMORY2:
		memory_record(d, (const struct tkc_memory4 *)r);
		break;
	case TKC_KIND_RUNTIME:
	case TKC_KIND_DRIVER:
	case TKC_KIND_INTERNAL_LAUNCH_API:
		api_record(d, (const struct tkc_api *)r);
		break;
	case TKC_KIND_SYNCHRONIZATION:
		sync_record(d, (const struct tkc_sync2 *)r);
		break;
	case TKC_KIND_MARKER:
		marker_record(d, (const struct tkc_marker2 *)r);
		break;
	case TKC_KIND_OVERHEAD:
		overhead_record(d, (const struct tkc_overhead3 *)r);
		break;
	case TKC_KIND_DEVICE:
		device_record(d, (const struct tkc_device5 *)r);
		break;
	default:
		d->st.unhandled++;
		break;
	}
	return tk_writer_status(d->w);
}

int tkcap_cupti_decode_buffer(struct tkcap_cupti_decoder *d, uint8_t *buf, size_t valid)
{
	struct tkc_record *r = NULL;
	while (d->cupti && tk_writer_status(d->w) == TK_OK &&
	       d->cupti->ActivityGetNextRecord(buf, valid, &r) == TKC_SUCCESS)
		tkcap_cupti_decode_record(d, r);
	return tk_writer_status(d->w);
}

int tkcap_cupti_decoder_finish(struct tkcap_cupti_decoder *d)
{
	static const char *const keys[] = {"cupti.records",
					   "cupti.kernels",
					   "cupti.memcpys",
					   "cupti.memsets",
					   "cupti.memory_records",
					   "cupti.api_calls",
					   "cupti.syncs",
					   "cupti.markers",
					   "cupti.overheads",
					   "cupti.devices",
					   "cupti.flows",
					   "cupti.unhandled_records",
					   "cupti.invalid_timestamps",
					   "cupti.dropped_records",
					   "cupti.outside_window"};
	const struct tkcap_cupti_stats *s = &d->st;
	const int64_t v[] = {s->records,
			     s->kernels,
			     s->memcpys,
			     s->memsets,
			     s->memory,
			     s->api,
			     s->syncs,
			     s->markers,
			     s->overheads,
			     s->devices,
			     s->flows,
			     s->unhandled,
			     s->invalid_timestamps,
			     s->dropped,
			     s->outside_window};
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		tk_writer_set_meta_int(d->w, keys[i], v[i]);
	return tk_writer_status(d->w);
}

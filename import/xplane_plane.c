/*
 * XPlane importer: one XPlane. Three passes over its bytes: id, name and metadata maps (decoded
 * with protobuf-c, they follow the lines on the wire), plane stats (device capabilities, meta),
 * then the lines, each a track, with their events (xplane_event.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <tracekit/error.h>
#include <unistd.h>

#include "xplane_internal.h"
#include "util/vec.h"

/* Free the current plane's metadata. */
void xp_plane_reset(struct xp_imp *im)
{
	for (size_t i = 0; i < im->nemd; i++) {
		protobuf_c_message_free_unpacked(&im->emd[i].e->base, NULL);
		free(im->emd[i].stats);
	}
	for (size_t i = 0; i < im->nsmd; i++)
		protobuf_c_message_free_unpacked(&im->smd[i].e->base, NULL);
	im->nemd = im->nsmd = 0;
	xp_map_clear(&im->em_index);
	xp_map_clear(&im->sm_index);
}

void xp_stat_from_pb(const Tensorflow__Profiler__XStat *p, struct xp_stat *st)
{
	memset(st, 0, sizeof(*st));
	st->md = p->metadata_id;
	switch (p->value_case) {
	case TENSORFLOW__PROFILER__XSTAT__VALUE_DOUBLE_VALUE:
		st->type = XV_DOUBLE;
		st->d = p->double_value;
		break;
	case TENSORFLOW__PROFILER__XSTAT__VALUE_UINT64_VALUE:
		st->type = XV_UINT;
		st->u = p->uint64_value;
		break;
	case TENSORFLOW__PROFILER__XSTAT__VALUE_INT64_VALUE:
		st->type = XV_INT;
		st->i = p->int64_value;
		break;
	case TENSORFLOW__PROFILER__XSTAT__VALUE_REF_VALUE:
		st->type = XV_REF;
		st->u = p->ref_value;
		break;
	case TENSORFLOW__PROFILER__XSTAT__VALUE_STR_VALUE:
		st->type = XV_STR;
		st->data = (const uint8_t *)p->str_value;
		st->len = strlen(p->str_value);
		break;
	case TENSORFLOW__PROFILER__XSTAT__VALUE_BYTES_VALUE:
		st->type = XV_BYTES;
		st->data = p->bytes_value.data;
		st->len = p->bytes_value.len;
		break;
	case TENSORFLOW__PROFILER__XSTAT__VALUE_COMPRESSED_STR_VALUE:
		st->type = XV_GZIP;
		st->data = p->compressed_str_value.data;
		st->len = p->compressed_str_value.len;
		break;
	default:
		break;
	}
}

static int grow(void **arr, size_t *cap, size_t n, size_t size)
{
	return tku_grow(arr, cap, n + 1, size, 64) == TK_OK ? 0 : -1;
}

static int nomem(struct xp_imp *im)
{
	tk_writer_fail(im->src.w, TK_ENOMEM, "out of memory");
	return -1;
}

/* A map entry @m (key @key, at @at) without its value: free it, fail naming the map. */
static int no_value(struct xp_imp *im, ProtobufCMessage *m, int64_t key, const uint8_t *at,
		    const char *map, const char *type)
{
	protobuf_c_message_free_unpacked(m, NULL);
	return xp_fail(&im->src, at, "%s entry %lld of an XPlane has no value (%s)", map,
		       (long long)key, type);
}

/* Pass 1 over a plane: its id, name and metadata maps. */
static int plane_metadata(struct xp_imp *im, const uint8_t *data, size_t len, int64_t *id,
			  const uint8_t **name, size_t *name_len)
{
	struct xp_cur c = {data, data + len};
	struct xp_field f;
	int r;
	xp_plane_reset(im);
	*id = 0;
	*name = (const uint8_t *)"";
	*name_len = 0;
	while ((r = xp_next(&im->src, &c, &f, "XPlane")) > 0) {
		if (f.num == 1) {
			if (xp_want(&im->src, &f, XP_VARINT, "XPlane"))
				return -1;
			*id = (int64_t)f.v;
		} else if (f.num == 2) {
			if (xp_want(&im->src, &f, XP_LEN, "XPlane"))
				return -1;
			*name = f.data;
			*name_len = f.len;
		} else if (f.num == 4) {
			if (xp_want(&im->src, &f, XP_LEN, "XPlane"))
				return -1;
			xp_em_entry *e = (xp_em_entry *)protobuf_c_message_unpack(
			    &tensorflow__profiler__xplane__event_metadata_entry__descriptor, NULL,
			    f.len, f.data);
			if (!e)
				return xp_fail(&im->src, f.at,
					       "cannot decode an event_metadata entry "
					       "(XEventMetadata) of an XPlane");
			if (!e->value)
				return no_value(im, &e->base, e->key, f.at, "event_metadata",
						"XEventMetadata");
			if (grow((void **)&im->emd, &im->emd_cap, im->nemd, sizeof(*im->emd))) {
				protobuf_c_message_free_unpacked(&e->base, NULL);
				return nomem(im);
			}
			struct xp_emd *d = &im->emd[im->nemd];
			memset(d, 0, sizeof(*d));
			d->e = e;
			if (e->value->n_stats) {
				d->stats = calloc(e->value->n_stats, sizeof(*d->stats));
				if (!d->stats) {
					protobuf_c_message_free_unpacked(&e->base, NULL);
					return nomem(im);
				}
				for (size_t i = 0; i < e->value->n_stats; i++) {
					xp_stat_from_pb(e->value->stats[i], &d->stats[i]);
					d->stats[i].at = f.at;
				}
				d->nstats = e->value->n_stats;
			}
			if (xp_map_put(&im->em_index, e->key, (int64_t)im->nemd++) != TK_OK)
				return nomem(im);
		} else if (f.num == 5) {
			if (xp_want(&im->src, &f, XP_LEN, "XPlane"))
				return -1;
			xp_sm_entry *e = (xp_sm_entry *)protobuf_c_message_unpack(
			    &tensorflow__profiler__xplane__stat_metadata_entry__descriptor, NULL,
			    f.len, f.data);
			if (!e)
				return xp_fail(&im->src, f.at,
					       "cannot decode a stat_metadata entry "
					       "(XStatMetadata) of an XPlane");
			if (!e->value)
				return no_value(im, &e->base, e->key, f.at, "stat_metadata",
						"XStatMetadata");
			if (grow((void **)&im->smd, &im->smd_cap, im->nsmd, sizeof(*im->smd))) {
				protobuf_c_message_free_unpacked(&e->base, NULL);
				return nomem(im);
			}
			struct xp_smd *d = &im->smd[im->nsmd];
			d->e = e;
			d->name = e->value->name ? e->value->name : "";
			d->code = xp_stat_code(d->name);
			if (xp_map_put(&im->sm_index, e->key, (int64_t)im->nsmd++) != TK_OK)
				return nomem(im);
		}
	}
	/* Resolve the metadata stats' names now that both maps are complete. */
	for (size_t i = 0; i < im->nemd; i++)
		for (size_t j = 0; j < im->emd[i].nstats; j++)
			im->emd[i].stats[j].sm = xp_smd_of(im, im->emd[i].stats[j].md);
	return r;
}

/* Capabilities of a device plane, from its stats. */
struct caps {
	struct tk_device_info d;
	int64_t cc_major, cc_minor, hbm_gbps;
	int64_t tk_process, tk_rank, tk_ordinal; /* recorded by tracekit's export, or TK_NONE */
	char vendor[32], name[128], cc[48];
};

static void copy_text(char *dst, size_t n, const char *s)
{
	snprintf(dst, n, "%s", s ? s : "");
}

/* Pass 2 over a plane: its stats, into @cp (devices) or meta (everything unmapped). */
static int plane_stats(struct xp_imp *im, const uint8_t *data, size_t len, const char *pname,
		       struct caps *cp)
{
	struct xp_cur c = {data, data + len};
	struct xp_field f;
	struct xp_stat st;
	int r;
	while ((r = xp_next(&im->src, &c, &f, "XPlane")) > 0) {
		if (f.num != 6)
			continue;
		if (xp_want(&im->src, &f, XP_LEN, "XPlane") ||
		    xp_stat_decode(&im->src, f.data, f.len, &st))
			return -1;
		const struct xp_smd *sm = st.sm = xp_smd_of(im, st.md);
		enum xs_stat code = sm ? sm->code : XS_OTHER;
		int64_t v = 0;
		int have = xp_stat_int(&st, &v);
		xp_text_reset(im);
		if (xp_text_reserve(im, 1, 2 * st.len + 64) != TK_OK)
			return nomem(im);
		const char *t =
		    st.type == XV_STR || st.type == XV_REF ? xp_stat_text(im, &st) : NULL;
		switch (code) {
		case XS_CLOCK_RATE:
			if (have)
				cp->d.clock_hz = v * 1000;
			continue; /* kHz */
		case XS_CORE_COUNT:
			if (have)
				cp->d.sm_count = v;
			continue;
		case XS_MEMORY_SIZE:
			if (have)
				cp->d.memory_bytes = v;
			continue;
		case XS_MEMORY_BANDWIDTH:
			if (have)
				cp->d.memory_bandwidth_bps = v;
			continue;
		case XS_CC_MAJOR:
			if (have)
				cp->cc_major = v;
			continue;
		case XS_CC_MINOR:
			if (have)
				cp->cc_minor = v;
			continue;
		case XS_PEAK_TFLOPS:
			if (st.type == XV_DOUBLE || have)
				cp->d.peak_flops = (st.type == XV_DOUBLE ? st.d : (double)v) * 1e12;
			continue;
		case XS_PEAK_HBM_BW: {
			/* GB/s to bytes/s; a value outside 0..9.2e18 B/s (or NaN) is no bandwidth. */
			double bps = (st.type == XV_DOUBLE ? st.d : (double)v) * 1e9;
			if ((st.type == XV_DOUBLE || have) && bps >= 0 && bps <= 9.2e18)
				cp->hbm_gbps = (int64_t)bps;
			continue;
		}
		case XS_DEVICE_VENDOR:
			copy_text(cp->vendor, sizeof(cp->vendor), t);
			continue;
		case XS_GPU_DEVICE_NAME:
		case XS_DEVICE_TYPE_STRING:
			if (t && (code == XS_GPU_DEVICE_NAME || !cp->name[0]))
				copy_text(cp->name, sizeof(cp->name), t);
			if (code == XS_GPU_DEVICE_NAME)
				continue;
			break;
		case XS_PROFILE_START:
			if (have)
				im->start_ns = v;
			break;
		case XS_MAX_THREADS_PER_SM:
		case XS_MAX_REGS_PER_SM:
		case XS_MAX_SMEM_PER_SM:
			if (have)
				*(code == XS_MAX_THREADS_PER_SM ? &cp->d.max_threads_per_sm
				  : code == XS_MAX_REGS_PER_SM	? &cp->d.max_regs_per_sm
								: &cp->d.max_smem_per_sm) = v;
			continue;
		case XS_TK_PROCESS:
		case XS_TK_RANK:
		case XS_TK_ORDINAL:
			if (have)
				*(code == XS_TK_PROCESS ? &cp->tk_process
				  : code == XS_TK_RANK	? &cp->tk_rank
							: &cp->tk_ordinal) = v;
			continue;
		case XS_TK_HOST:
		case XS_TK_PROCESSES: {
			char **dst = code == XS_TK_HOST ? &im->tk_host : &im->tk_procs;
			free(*dst);
			if (!(*dst = strdup(t ? t : "")))
				return nomem(im);
			continue;
		}
		case XS_TK_LINE_PROCESSES:
			if (t && xp_line_procs(im, t) < 0)
				return -1;
			continue;
		default:
			break;
		}
		/* Unmapped: meta "xplane.<host>.<plane>.<stat>". */
		char key[512];
		snprintf(key, sizeof(key), "xplane.%s.%s.%s", im->host, pname,
			 sm ? sm->name : "stat");
		int rc = TK_OK;
		if (st.type == XV_DOUBLE) {
			char num[40];
			snprintf(num, sizeof(num), "%.17g", st.d);
			rc = tk_writer_set_meta_text(im->src.w, key, num);
		} else if (have) {
			rc = tk_writer_set_meta_int(im->src.w, key, v);
		} else if (t) {
			rc = tk_writer_set_meta_text(im->src.w, key, t);
		} else if (st.type == XV_BYTES || st.type == XV_GZIP) {
			char sz[40];
			snprintf(sz, sizeof(sz), "<%zu bytes>", st.len);
			rc = tk_writer_set_meta_text(im->src.w, key, sz);
		}
		if (rc != TK_OK)
			return -1;
	}
	return r;
}

static int name_is(const uint8_t *n, size_t len, const char *s)
{
	return strlen(s) == len && !memcmp(n, s, len);
}

static int name_starts(const uint8_t *n, size_t len, const char *s)
{
	return strlen(s) <= len && !memcmp(n, s, strlen(s));
}

static enum xp_line_kind line_kind(const struct xp_imp *im, const char *n)
{
	size_t len = strlen(n);
	if (im->pkind != XP_PLANE_DEVICE)
		return len >= 5 && !strcmp(n + len - 5, "/NVTX") ? XP_LINE_NVTX : XP_LINE_THREAD;
	if (!strncmp(n, "Stream #", 8))
		return XP_LINE_STREAM;
	if (!strcmp(n, "XLA Ops") || !strcmp(n, "Sparse Core Ops"))
		return XP_LINE_XLA_OPS;
	if (!strcmp(n, "Async XLA Ops"))
		return XP_LINE_ASYNC_XLA_OPS;
	if (!strcmp(n, "XLA Modules") || !strcmp(n, "Sparse Core Modules"))
		return XP_LINE_XLA_MODULES;
	if (!strcmp(n, "Steps") || !strcmp(n, "Sparse Core Steps"))
		return XP_LINE_STEPS;
	if (!strcmp(n, "Framework Ops") || !strcmp(n, "TensorFlow Ops"))
		return XP_LINE_FRAMEWORK_OPS;
	return XP_LINE_DERIVED_OTHER;
}

/*
 * Give back the mapped pages from *@mark to @upto once that is more than XP_RELEASE_STEP bytes,
 * and move the mark: a line is walked twice (header, then events), each walk once, so the file's
 * pages need not stay resident (mapped file pages count in RSS; peak RSS then follows the
 * working set, not the file size). Pages touched again are re-read from the page cache.
 */
static void release_behind(const uint8_t **mark, const uint8_t *upto)
{
	if (upto < *mark) { /* a walk restarted before the mark: follow it */
		*mark = upto;
		return;
	}
	if ((size_t)(upto - *mark) < XP_RELEASE_STEP)
		return;
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t from = ((uintptr_t)*mark + page - 1) & ~(page - 1);
	uintptr_t to = (uintptr_t)upto & ~(page - 1);
	if (to > from)
		madvise((void *)from, to - from, MADV_DONTNEED);
	*mark = upto;
}

/* One XLine: a track, then its events. */
static int line(struct xp_imp *im, const uint8_t *data, size_t len)
{
	struct xp_cur c = {data, data + len};
	struct xp_field f;
	int64_t id = 0, disp_id = 0, ts = 0;
	const uint8_t *nm = NULL, *dn = NULL;
	size_t nm_len = 0, dn_len = 0;
	int r;
	im->released = data;
	while ((r = xp_next(&im->src, &c, &f, "XLine")) > 0) {
		int wt = f.num == 2 || f.num == 11 || f.num == 4 ? XP_LEN : XP_VARINT;
		if (f.num > 11 || (f.num >= 5 && f.num <= 8))
			continue;
		if (xp_want(&im->src, &f, wt, "XLine"))
			return -1;
		if (f.num == 4) { /* display_id and display_name follow the events on the wire */
			release_behind(&im->released, f.data);
			continue;
		}
		if (f.num == 1)
			id = (int64_t)f.v;
		else if (f.num == 10)
			disp_id = (int64_t)f.v;
		else if (f.num == 3)
			ts = (int64_t)f.v;
		else if (f.num == 2)
			nm = f.data, nm_len = f.len;
		else if (f.num == 11)
			dn = f.data, dn_len = f.len;
	}
	if (r < 0)
		return -1;
	if (__builtin_add_overflow(im->start_ns, ts, &im->line_base_ns))
		return xp_fail(&im->src, data, "XLine timestamp_ns %lld is out of range",
			       (long long)ts);
	char name[512];
	const uint8_t *use = dn_len ? dn : nm;
	size_t ul = dn_len ? dn_len : nm_len;
	if (ul >= sizeof(name))
		ul = sizeof(name) - 1;
	if (ul)
		memcpy(name, use, ul);
	name[ul] = 0;
	/* Kind from the name (display_name when set, else name). */
	im->lkind = line_kind(im, name);
	im->step_seq = 0;
	struct tk_track_info t = {.name = name,
				  .process_id = im->plane_process,
				  .device_id = im->device_id,
				  .tid = TK_NONE,
				  .stream_id = TK_NONE};
	if (im->pkind != XP_PLANE_DEVICE) {
		t.kind = TK_TRACK_THREAD;
		t.device_id = TK_NONE;
		t.tid = disp_id ? disp_id : id;
		int64_t proc;
		if (xp_map_get(&im->line_proc, id, &proc))
			t.process_id = proc;
	} else if (im->lkind == XP_LINE_STREAM) {
		t.kind = TK_TRACK_STREAM;
		t.stream_id = strtoll(name + 8, NULL, 10);
	} else {
		t.kind = TK_TRACK_DERIVED;
	}
	/* lines tracekit's export split from one track (a thread's ops and /NVTX, a stream's
	 * device ops and annotations) come back as that track */
	int64_t key = 0, have_key = xp_map_get(&im->line_track, id, &key);
	if (have_key && xp_map_get(&im->track_by_key, key, &im->track_id))
		goto events;
	if (have_key && im->lkind == XP_LINE_NVTX)
		name[strlen(name) - 5] = 0; /* the thread's name, without "/NVTX" */
	if (tk_writer_add_track(im->src.w, &t, &im->track_id) != TK_OK)
		return -1;
	if (have_key && xp_map_put(&im->track_by_key, key, im->track_id) != TK_OK)
		return nomem(im);
events:
	c.p = data;
	im->nlines++;
	im->released = data;
	while ((r = xp_next(&im->src, &c, &f, "XLine")) > 0) {
		if (f.num != 4)
			continue;
		im->nxevents++;
		if (xp_event(im, f.data, f.len) < 0)
			return -1;
		release_behind(&im->released, f.data);
	}
	return r;
}

/* One XPlane: metadata, the device (or host), lines. */
int xp_plane(struct xp_imp *im, const uint8_t *data, size_t len)
{
	int64_t pid;
	const uint8_t *nm;
	size_t nl;
	char pname[256];
	if (plane_metadata(im, data, len, &pid, &nm, &nl) < 0)
		return -1;
	snprintf(pname, sizeof(pname), "%.*s", (int)(nl < 255 ? nl : 255), (const char *)nm);
	im->nplanes++;
	im->pname = pname;
	im->device_id = TK_NONE;
	im->pkind = name_starts(nm, nl, "/device:")	  ? XP_PLANE_DEVICE
		    : name_is(nm, nl, "Task Environment") ? XP_PLANE_TASK_ENV
		    : name_is(nm, nl, "/host:metadata")	  ? XP_PLANE_METADATA
							  : XP_PLANE_HOST;
	struct caps cp;
	memset(&cp, 0, sizeof(cp));
	struct tk_device_info *d = &cp.d;
	d->process_id = TK_NONE;
	d->sm_count = d->clock_hz = d->memory_bytes = d->memory_bandwidth_bps = TK_NONE;
	d->max_threads_per_sm = d->max_regs_per_sm = d->max_smem_per_sm = TK_NONE;
	d->peak_flops = -1;
	cp.cc_major = cp.cc_minor = cp.hbm_gbps = TK_NONE;
	cp.tk_process = cp.tk_rank = cp.tk_ordinal = TK_NONE;
	xp_map_clear(&im->line_proc);
	xp_map_clear(&im->line_track);
	xp_map_clear(&im->track_by_key);
	if (plane_stats(im, data, len, pname, &cp) < 0)
		return -1;
	im->plane_process = im->process_id;
	if (im->pkind == XP_PLANE_DEVICE) {
		const char *tail = strrchr(pname, ':');
		char *end;
		long long ord = tail ? strtoll(tail + 1, &end, 10) : 0;
		int numbered = tail && end != tail + 1 && !*end;
		d->ordinal = numbered ? ord : pid;
		d->kind = strstr(pname, "/device:GPU:")	  ? "gpu"
			  : strstr(pname, "/device:TPU:") ? "tpu"
							  : "custom";
		for (char *p = cp.vendor; *p; p++)
			if (*p >= 'A' && *p <= 'Z')
				*p = (char)(*p - 'A' + 'a');
		d->vendor = cp.vendor[0] ? cp.vendor : !strcmp(d->kind, "tpu") ? "google" : NULL;
		d->name = cp.name[0] ? cp.name : NULL;
		d->host = xp_host_name(im);
		d->process_id =
		    cp.tk_process != TK_NONE ? xp_proc_of(im, cp.tk_process) : im->process_id;
		d->rank = cp.tk_rank != TK_NONE ? cp.tk_rank : im->tk_procs ? TK_NONE : im->o->rank;
		if (cp.tk_ordinal != TK_NONE)
			d->ordinal = cp.tk_ordinal;
		if (cp.cc_major != TK_NONE) {
			snprintf(cp.cc, sizeof(cp.cc), "%lld.%lld", (long long)cp.cc_major,
				 (long long)(cp.cc_minor != TK_NONE ? cp.cc_minor : 0));
			d->compute_capability = cp.cc;
		}
		if (d->memory_bandwidth_bps == TK_NONE && cp.hbm_gbps != TK_NONE)
			d->memory_bandwidth_bps = cp.hbm_gbps;
		if (tk_writer_add_device(im->src.w, d, &im->device_id) != TK_OK)
			return -1;
		im->plane_process = d->process_id;
		if (numbered && xp_map_put(&im->dev_by_ordinal, ord, im->device_id) != TK_OK)
			return nomem(im);
	}
	struct xp_cur c = {data, data + len};
	struct xp_field f;
	int r;
	while ((r = xp_next(&im->src, &c, &f, "XPlane")) > 0) {
		if (f.num != 3)
			continue;
		if (xp_want(&im->src, &f, XP_LEN, "XPlane") || line(im, f.data, f.len) < 0)
			return -1;
	}
	return r;
}

int xp_task_env(struct xp_imp *im, const uint8_t *data, size_t len)
{
	int64_t pid;
	const uint8_t *nm;
	size_t nl;
	struct caps cp;
	memset(&cp, 0, sizeof(cp));
	cp.tk_process = cp.tk_rank = cp.tk_ordinal = TK_NONE;
	im->start_ns = 0;
	int r = plane_metadata(im, data, len, &pid, &nm, &nl) < 0 ||
			plane_stats(im, data, len, "Task Environment", &cp) < 0
		    ? -1
		    : 0;
	xp_plane_reset(im);
	return r;
}

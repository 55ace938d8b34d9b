/*
 * XPlane export: a TensorBoard/XProf logdir, LOGDIR/plugins/profile/<run>/<host>.xplane.pb, one
 * XSpace per host with a `Task Environment` plane (profile start/stop), one `/device:GPU:N` plane
 * per device (capability stats; `Stream #N(...)` lines with kernel_details / memcpy_details /
 * Memset_details / correlation_id stats as XProf parses them; XLA and other derived lines) and a
 * `/host:CPU` plane (a line per host thread, `.../NVTX` lines for annotations, a line of
 * MemoryAllocation / MemoryDeallocation events for the memory profile).
 *
 * Streamed: the outer messages (plane, line) get 5-byte length prefixes patched when they end,
 * events are encoded one at a time; only the current plane's sets of used names and arg keys are
 * held. The metadata maps are packed with the protobuf-c code generated from schemas/xplane.proto.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <tracekit/error.h>

#include "export_internal.h"
#include "xplane.pb-c.h"
#include "xplane_out.h"
#include "util/vec.h"

/* ---- the set of ids used in a plane ---- */
int xo_set_add(struct xo_set *s, uint64_t k)
{
	if (k == 0)
		return TK_OK;
	if (2 * (s->n + 1) > s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 1024;
		uint64_t *t = calloc(cap, sizeof(*t));
		if (!t)
			return TK_ENOMEM;
		for (size_t i = 0; i < s->cap; i++)
			if (s->k[i])
				for (size_t j = (s->k[i] * 0x9E3779B97F4A7C15ull) >> 20 & (cap - 1);
				     ; j = (j + 1) & (cap - 1))
					if (!t[j]) {
						t[j] = s->k[i];
						break;
					}
		free(s->k);
		s->k = t;
		s->cap = cap;
	}
	for (size_t j = (k * 0x9E3779B97F4A7C15ull) >> 20 & (s->cap - 1);;
	     j = (j + 1) & (s->cap - 1)) {
		if (s->k[j] == k)
			return TK_OK;
		if (!s->k[j]) {
			s->k[j] = k;
			s->n++;
			return TK_OK;
		}
	}
}

void xo_set_clear(struct xo_set *s)
{
	if (s->k)
		memset(s->k, 0, s->cap * sizeof(*s->k));
	s->n = 0;
}

/* One XStat as field @field of the enclosing message, into @b. */
static int stat_begin(struct ex_buf *b, uint32_t field, uint64_t md, size_t body)
{
	if (ex_buf_reserve(b, body + 32) != TK_OK)
		return TK_ENOMEM;
	uint8_t *p = pb_tag(b->p + b->len, field, PB_LEN);
	p = pb_varint(p, pb_varint_size(md) + 1 + body);
	p = pb_uint(p, 1, md);
	b->len = (size_t)(p - b->p);
	return TK_OK;
}

int xo_stat_int(struct ex_buf *b, uint32_t field, uint64_t md, int64_t v)
{
	size_t body = 1 + pb_varint_size((uint64_t)v);
	if (stat_begin(b, field, md, body) != TK_OK)
		return TK_ENOMEM;
	b->len = (size_t)(pb_uint(b->p + b->len, 4, (uint64_t)v) - b->p);
	return TK_OK;
}

/* An unsigned varint value: uint64_value (field 3) or ref_value (7). */
static int stat_varint(struct ex_buf *b, uint32_t field, uint64_t md, uint32_t vfield, uint64_t v)
{
	size_t body = 1 + pb_varint_size(v);
	if (stat_begin(b, field, md, body) != TK_OK)
		return TK_ENOMEM;
	b->len = (size_t)(pb_uint(b->p + b->len, vfield, v) - b->p);
	return TK_OK;
}

int xo_stat_uint(struct ex_buf *b, uint32_t field, uint64_t md, uint64_t v)
{
	return stat_varint(b, field, md, 3, v);
}

int xo_stat_ref(struct ex_buf *b, uint32_t field, uint64_t md, uint64_t ref)
{
	return stat_varint(b, field, md, 7, ref);
}

int xo_stat_double(struct ex_buf *b, uint32_t field, uint64_t md, double v)
{
	if (stat_begin(b, field, md, 9) != TK_OK)
		return TK_ENOMEM;
	b->len = (size_t)(pb_double(b->p + b->len, 2, v) - b->p);
	return TK_OK;
}

int xo_stat_bytes(struct ex_buf *b, uint32_t field, uint64_t md, int wire_field, const void *s,
		  size_t n)
{
	size_t body = 1 + pb_varint_size(n) + n;
	if (stat_begin(b, field, md, body) != TK_OK)
		return TK_ENOMEM;
	b->len = (size_t)(pb_bytes(b->p + b->len, (uint32_t)wire_field, s, n) - b->p);
	return TK_OK;
}

int xo_stat_str(struct ex_buf *b, uint32_t field, uint64_t md, const char *s)
{
	size_t n = strlen(s);
	char *owned;
	if (ex_utf8(&s, &n, &owned) != TK_OK) /* proto3 strings are UTF-8 */
		return TK_ENOMEM;
	int rc = xo_stat_bytes(b, field, md, 5, s, n);
	free(owned);
	return rc;
}

int xo_put_str(struct xp_out *w, uint32_t field, const char *s)
{
	size_t n = strlen(s);
	char *owned;
	if (ex_utf8(&s, &n, &owned) != TK_OK)
		return ex_fail(w->x, TK_ENOMEM, "out of memory");
	uint8_t *p = ex_out_room(&w->out, n + 16);
	if (p)
		w->out.len += (size_t)(pb_bytes(p, field, s, n) - p);
	free(owned);
	return p ? TK_OK : TK_EIO;
}

/* ---- outer messages with patched lengths ---- */
int64_t xo_begin(struct xp_out *w, uint32_t field)
{
	uint8_t *p = ex_out_room(&w->out, 8);
	if (!p)
		return -1;
	uint8_t *q = pb_tag(p, field, PB_LEN);
	pb_varint5(q, 0);
	w->out.len += (size_t)(q + 5 - p);
	return ex_out_pos(&w->out);
}

int xo_end(struct xp_out *w, int64_t start)
{
	uint8_t len[5];
	int64_t n = ex_out_pos(&w->out) - start;
	if (n >= (int64_t)1 << 35)
		return ex_fail(w->x, TK_EINVAL, "an XPlane message would exceed 32 GiB");
	pb_varint5(len, (uint64_t)n);
	return ex_out_patch(&w->out, start - 5, len, 5);
}

/* Write the bytes of @b as field @field (length-delimited) of the current message. */
int xo_put_msg(struct xp_out *w, uint32_t field, const uint8_t *b, size_t n)
{
	uint8_t *p = ex_out_room(&w->out, 16);
	if (!p)
		return TK_EIO;
	uint8_t *q = pb_varint(pb_tag(p, field, PB_LEN), n);
	w->out.len += (size_t)(q - p);
	ex_put(&w->out, b, n);
	return w->out.failed ? TK_EIO : TK_OK;
}

/* Plane trailer: the event and stat metadata maps (protobuf-c), then the plane stats. */
int xo_plane_end(struct xp_out *w, int64_t start)
{
	int rc = TK_OK;
	uint8_t *tmp = NULL;
	size_t tmp_cap = 0;
	for (size_t pass = 0; pass < 2 && rc == TK_OK; pass++) {
		struct xo_set *set = pass ? &w->stat_keys : &w->names;
		for (size_t i = 0; i < set->cap && rc == TK_OK; i++) {
			uint64_t k = set->k[i];
			if (!k)
				continue;
			Tensorflow__Profiler__XPlane__EventMetadataEntry em =
			    TENSORFLOW__PROFILER__XPLANE__EVENT_METADATA_ENTRY__INIT;
			Tensorflow__Profiler__XEventMetadata emv =
			    TENSORFLOW__PROFILER__XEVENT_METADATA__INIT;
			Tensorflow__Profiler__XPlane__StatMetadataEntry sm =
			    TENSORFLOW__PROFILER__XPLANE__STAT_METADATA_ENTRY__INIT;
			Tensorflow__Profiler__XStatMetadata smv =
			    TENSORFLOW__PROFILER__XSTAT_METADATA__INIT;
			const ProtobufCMessage *msg;
			char *name;
			if (k >= XO_MEM_MD) /* MemoryAllocation / MemoryDeallocation */
				name = (char *)(k == XO_MEM_MD ? "MemoryAllocation"
							       : "MemoryDeallocation");
			else if (k >= XO_ARG_MD)
				name = (char *)ex_str(w->x, (uint32_t)(k - XO_ARG_MD));
			else if (pass)
				name = (char *)(xs_flags(k) & XS_W ? xs_name(k) : "");
			else
				name = (char *)ex_str(w->x, (uint32_t)k);
			if (pass) {
				smv.id = (int64_t)k;
				smv.name = name;
				sm.key = (int64_t)k;
				sm.value = &smv;
				msg = &sm.base;
			} else {
				emv.id = (int64_t)k;
				emv.name = name;
				em.key = (int64_t)k;
				em.value = &emv;
				msg = &em.base;
			}
			size_t n = protobuf_c_message_get_packed_size(msg);
			if (n > tmp_cap) {
				free(tmp);
				tmp_cap = n * 2;
				if (!(tmp = malloc(tmp_cap))) {
					rc = ex_fail(w->x, TK_ENOMEM, "out of memory");
					break;
				}
			}
			protobuf_c_message_pack(msg, tmp);
			rc = xo_put_msg(w, pass ? 5 : 4, tmp, n);
		}
	}
	free(tmp);
	if (rc == TK_OK && w->pstats.len)
		ex_put(&w->out, w->pstats.p, w->pstats.len);
	if (rc == TK_OK)
		rc = xo_end(w, start);
	xo_set_clear(&w->names);
	xo_set_clear(&w->stat_keys);
	w->pstats.len = 0;
	return rc;
}

/* Start a plane: its id and name; the fixed stat names are always declared. */
int64_t xo_plane_begin(struct xp_out *w, int64_t id, const char *name)
{
	int64_t start = xo_begin(w, 1);
	if (start < 0)
		return -1;
	uint8_t *p = ex_out_room(&w->out, 16);
	if (!p)
		return -1;
	w->out.len += (size_t)(pb_uint(p, 1, (uint64_t)id) - p);
	if (xo_put_str(w, 2, name) != TK_OK)
		return -1;
	for (uint64_t i = XS_OTHER + 1; i < XS_COUNT; i++)
		if ((xs_flags(i) & XS_W) && xo_set_add(&w->stat_keys, i) != TK_OK)
			return -1;
	return start;
}

/* mkdir -p for the directories of @path up to and including @path; *@made: the length of the
 * first prefix of @path this call created (SIZE_MAX when none). */
static int mkdirs(struct tk_exporter *x, char *path, size_t *made)
{
	*made = SIZE_MAX;
	for (char *p = path + 1;; p++) {
		if (*p == '/' || !*p) {
			char c = *p;
			*p = 0;
			int r = mkdir(path, 0755);
			int e = errno;
			*p = c;
			if (r == 0 && *made == SIZE_MAX)
				*made = (size_t)(p - path);
			if (r != 0 && e != EEXIST)
				return ex_fail_cause(x, TK_EIO, "os", strerror(e),
						     "cannot create directory '%.*s'",
						     (int)(p - path), path);
			if (!c)
				break;
		}
	}
	return TK_OK;
}

/* A failed export writes nothing: remove the files of the hosts written before the failure,
 * then the directories of @dir that mkdirs() created (prefixes of length >= @made). */
static void undo(const char *dir, size_t made, char (*used)[256], size_t ncommitted)
{
	char path[4400];
	for (size_t i = 0; i < ncommitted; i++) {
		snprintf(path, sizeof(path), "%s/%s.xplane.pb", dir, used[i]);
		unlink(path);
	}
	snprintf(path, sizeof(path), "%s", dir);
	for (size_t n = strlen(path); made != SIZE_MAX && n >= made && n > 0; n = strlen(path)) {
		rmdir(path);
		char *slash = strrchr(path, '/');
		if (!slash)
			break;
		*slash = 0;
	}
}

int ex_xplane(struct tk_exporter *x, const char *logdir, const char *run)
{
	int rc = TK_OK;
	char runbuf[256], dir[4096];
	sqlite3_stmt *hosts = NULL;
	struct xp_out w;
	memset(&w, 0, sizeof(w));
	w.x = x;
	w.out.fd = -1;
	char(*used)[256] = NULL;
	size_t nused = 0, capused = 0, ncommitted = 0, made = SIZE_MAX;
	if (run && *run) {
		ex_sanitize(run, runbuf, sizeof(runbuf));
	} else {
		time_t now = time(NULL);
		struct tm tm;
		localtime_r(&now, &tm);
		strftime(runbuf, sizeof(runbuf), "%Y_%m_%d_%H_%M_%S", &tm);
	}
	if (snprintf(dir, sizeof(dir), "%s/plugins/profile/%s", logdir, runbuf) >=
	    (int)sizeof(dir)) {
		rc = ex_fail(x, TK_EINVAL, "output directory name too long: '%s'", logdir);
		goto out;
	}
	if ((rc = mkdirs(x, dir, &made)) != TK_OK)
		goto out;
	snprintf(x->output, sizeof(x->output), "%s", dir);
	/* One file per host: the hosts of processes and devices (0 = unnamed). */
	if ((rc =
		 ex_prepare(x,
			    "SELECT h, (SELECT host FROM sources WHERE host IS NOT NULL "
			    "ORDER BY id LIMIT 1) FROM (SELECT DISTINCT coalesce(host_id, 0) AS h "
			    "FROM (SELECT host_id FROM processes UNION ALL SELECT host_id FROM "
			    "devices)) UNION SELECT 0, (SELECT host FROM sources WHERE host IS NOT "
			    "NULL ORDER BY id LIMIT 1) WHERE NOT EXISTS (SELECT 1 FROM processes) "
			    "AND NOT EXISTS (SELECT 1 FROM devices) ORDER BY 1",
			    &hosts)) != TK_OK)
		goto out;
	int r;
	while ((r = sqlite3_step(hosts)) == SQLITE_ROW) {
		int64_t hid = sqlite3_column_int64(hosts, 0);
		const char *fallback = (const char *)sqlite3_column_text(hosts, 1);
		char name[256], file[4400];
		const char *hn = hid ? ex_str(x, (uint32_t)hid) : "";
		ex_sanitize(hn[0] ? hn : fallback ? fallback : "localhost", name, 200);
		/* two hosts that sanitise to one name get a suffix */
		char base[240];
		snprintf(base, sizeof(base), "%.200s", name);
		for (int k = 1;; k++) {
			size_t i = 0;
			while (i < nused && strcmp(used[i], name))
				i++;
			if (i == nused)
				break;
			snprintf(name, sizeof(name), "%.200s_%d", base, k);
		}
		if (TKU_GROW(used, capused, nused + 1, 8) != TK_OK) {
			rc = ex_fail(x, TK_ENOMEM, "out of memory");
			goto out;
		}
		snprintf(used[nused++], sizeof(used[0]), "%s", name);
		snprintf(file, sizeof(file), "%s/%s.xplane.pb", dir, name);
		if ((rc = ex_out_open(x, &w.out, file, 0)) != TK_OK)
			goto out;
		if ((rc = ex_xplane_host(&w, hid, hn[0] ? hn : name)) != TK_OK)
			goto out;
		if ((rc = ex_out_commit(&w.out)) != TK_OK)
			goto out;
		ncommitted = nused;
	}
	if (r != SQLITE_DONE) {
		rc = ex_fail_sql(x, "hosts");
		goto out;
	}
	/* flows travel as correlation_id stats: report how many the store has */
	sqlite3_finalize(hosts);
	hosts = NULL;
	if ((rc = ex_prepare(x, "SELECT count(*) FROM flows", &hosts)) == TK_OK &&
	    sqlite3_step(hosts) == SQLITE_ROW)
		x->stats.flows = sqlite3_column_int64(hosts, 0);
out:
	ex_out_abort(&w.out);
	if (rc != TK_OK)
		undo(dir, made, used, ncommitted);
	sqlite3_finalize(hosts);
	free(w.names.k);
	free(w.stat_keys.k);
	ex_buf_free(&w.ev);
	ex_buf_free(&w.pstats);
	ex_buf_free(&w.lines);
	free(used);
	return rc;
}

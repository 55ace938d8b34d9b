/*
 * Chrome/Kineto JSON importer, small caches on the per-event path: the last few (pid, tid)
 * value texts with their track and process, the last few pids with their process (pass 1), the
 * last few categories with what they mean, and recently interned names and categories with
 * their string ids. Each answers exactly what the uncached path would answer, only without
 * formatting a key and hashing it: a cached entry is only ever made from a finished lookup, and
 * what it maps to never changes afterwards (tracks and processes are not re-made, string ids are
 * stable).
 */
#include <stdlib.h>
#include <string.h>
#include <tracekit/error.h>

#include "chrome_json_internal.h"
#include "util/vec.h"

static int same(const struct cj_event *e, struct cj_val v, unsigned type, unsigned len,
		const char *txt)
{
	return v.type == type && v.len == len && !memcmp(cj_str(e, v), txt, len);
}

int cj_track_cached(struct cj_ctx *c, const struct cj_event *e, int64_t *track,
		    struct cj_proc **proc)
{
	for (unsigned i = 0; i < c->ntcache; i++) {
		const struct cj_tcache *t = &c->tcache[i];
		if (same(e, e->pid, t->pt, t->plen, t->pid) &&
		    same(e, e->tid, t->tt, t->tlen, t->tid)) {
			*track = t->track;
			*proc = &c->procs[t->proc];
			return 1;
		}
	}
	return 0;
}

void cj_track_remember(struct cj_ctx *c, const struct cj_event *e, int64_t track,
		       const struct cj_proc *proc)
{
	if (e->pid.len >= sizeof(c->tcache[0].pid) || e->tid.len >= sizeof(c->tcache[0].tid))
		return;
	struct cj_tcache *t = &c->tcache[c->tcache_next];
	c->tcache_next = (c->tcache_next + 1) % CJ_TCACHE;
	if (c->ntcache < CJ_TCACHE)
		c->ntcache++;
	t->pt = (unsigned char)e->pid.type;
	t->tt = (unsigned char)e->tid.type;
	t->plen = (unsigned char)e->pid.len;
	t->tlen = (unsigned char)e->tid.len;
	memcpy(t->pid, cj_str(e, e->pid), e->pid.len);
	memcpy(t->tid, cj_str(e, e->tid), e->tid.len);
	t->proc = (size_t)(proc - c->procs);
	t->track = track;
}

struct cj_proc *cj_proc_cached(struct cj_ctx *c, const struct cj_event *e)
{
	for (unsigned i = 0; i < c->npcache; i++) {
		const struct cj_tcache *t = &c->pcache[i];
		if (same(e, e->pid, t->pt, t->plen, t->pid))
			return &c->procs[t->proc];
	}
	return NULL;
}

void cj_proc_remember(struct cj_ctx *c, const struct cj_event *e, const struct cj_proc *proc)
{
	if (e->pid.len >= sizeof(c->pcache[0].pid))
		return;
	struct cj_tcache *t = &c->pcache[c->pcache_next];
	c->pcache_next = (c->pcache_next + 1) % CJ_TCACHE;
	if (c->npcache < CJ_TCACHE)
		c->npcache++;
	t->pt = (unsigned char)e->pid.type;
	t->plen = (unsigned char)e->pid.len;
	memcpy(t->pid, cj_str(e, e->pid), e->pid.len);
	t->proc = (size_t)(proc - c->procs);
}

static int is_device_cat(const char *cat)
{
	return !strcmp(cat, "kernel") || !strcmp(cat, "gpu_memcpy") || !strcmp(cat, "gpu_memset") ||
	       !strcmp(cat, "gpu_user_annotation") || !strcmp(cat, "Kernel") ||
	       !strcmp(cat, "Memcpy") || !strcmp(cat, "Memset");
}

static int is_host_kineto_cat(const char *cat)
{
	return !strcmp(cat, "cpu_op") || !strcmp(cat, "cuda_runtime") ||
	       !strcmp(cat, "cuda_driver") || !strcmp(cat, "python_function") ||
	       !strcmp(cat, "user_annotation") || !strcmp(cat, "Operator") ||
	       !strcmp(cat, "Runtime") || !strcmp(cat, "mtia_runtime") ||
	       !strcmp(cat, "xpu_runtime");
}

static enum tk_event_kind kind_of(const char *cat)
{
	static const struct {
		const char *cat;
		enum tk_event_kind kind;
	} kinds[] = {
	    {"kernel", TK_EV_KERNEL},
	    {"cpu_op", TK_EV_HOST_OP},
	    {"cuda_runtime", TK_EV_RUNTIME_API},
	    {"gpu_memcpy", TK_EV_MEMCPY},
	    {"gpu_memset", TK_EV_MEMSET},
	    {"cuda_driver", TK_EV_DRIVER_API},
	    {"user_annotation", TK_EV_ANNOTATION},
	    {"gpu_user_annotation", TK_EV_ANNOTATION},
	    {"python_function", TK_EV_PYTHON_FUNCTION},
	    {"cuda_sync", TK_EV_SYNC},
	    {"Kernel", TK_EV_KERNEL},
	    {"Memcpy", TK_EV_MEMCPY},
	    {"Memset", TK_EV_MEMSET},
	    {"Operator", TK_EV_HOST_OP},
	    {"Runtime", TK_EV_RUNTIME_API},
	    {"privateuse1_runtime", TK_EV_RUNTIME_API},
	    {"privateuse1_driver", TK_EV_DRIVER_API},
	    {"xpu_runtime", TK_EV_RUNTIME_API},
	    {"xpu_driver", TK_EV_DRIVER_API},
	    {"xpu_sync", TK_EV_SYNC},
	    {"mtia_runtime", TK_EV_RUNTIME_API},
	};
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (cat[0] == kinds[i].cat[0] && !strcmp(cat, kinds[i].cat))
			return kinds[i].kind;
	return TK_EV_OTHER;
}

struct cj_catinfo cj_cat_info(struct cj_ctx *c, const char *cat, size_t len)
{
	for (unsigned i = 0; i < c->nccache; i++) {
		const struct cj_ccache *k = &c->ccache[i];
		if (k->len == len && !memcmp(k->txt, cat, len))
			return k->info;
	}
	struct cj_catinfo info = {kind_of(cat), is_device_cat(cat), is_host_kineto_cat(cat)};
	if (len < sizeof(c->ccache[0].txt)) {
		struct cj_ccache *k = &c->ccache[c->ccache_next];
		c->ccache_next = (c->ccache_next + 1) % CJ_CCACHE;
		if (c->nccache < CJ_CCACHE)
			c->nccache++;
		k->len = (unsigned char)len;
		memcpy(k->txt, cat, len);
		k->info = info;
	}
	return info;
}

uint32_t cj_intern(struct cj_ctx *c, const char *s, size_t len)
{
	size_t h = len * 31;
	if (len)
		h += (unsigned char)s[0] * 7u + (unsigned char)s[len - 1] * 131u +
		     (unsigned char)s[len / 2] * 1031u;
	struct cj_icache *k = &c->icache[h % CJ_ICACHE];
	if (k->id && k->len == len && !memcmp(k->s, s, len))
		return k->id;
	uint32_t id = tk_writer_intern(c->w, s);
	if (id && len <= CJ_ICACHE_MAXLEN) {
		if (TKU_GROW(k->s, k->cap, len + 1, 32) != TK_OK)
			return id;
		memcpy(k->s, s, len);
		k->len = len;
		k->id = id;
	}
	return id;
}

void cj_cache_free(struct cj_ctx *c)
{
	for (size_t i = 0; i < CJ_ICACHE; i++)
		free(c->icache[i].s);
}

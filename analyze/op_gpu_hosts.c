/*
 * GPU time per op's host intervals (op_gpu_time.c computes the figures): the shared pass's hook
 * that collects the host ops and annotations of the host threads, and what later analyses read
 * of them once the figures are computed: the host ops in thread and time order (the op
 * performance model), each interval's figures, the device each process launched onto (the KPIs,
 * the roofline), and the release of the intervals once their last reader is done.
 */
#include <stdlib.h>
#include <string.h>

#include "op_gpu_time.h"
#include "util/vec.h"

void tka_op_gpu_time_free(struct tka_og_state *s)
{
	if (!s)
		return;
	free(s->h[0]);
	free(s->h[1]);
	free(s->inst);
	free(s->pdev);
	free(s);
}

int tka_op_gpu_time_begin(struct tka_ctx *c)
{
	if (!(c->og = calloc(1, sizeof(*c->og))))
		return tka_fail(c, TK_ENOMEM, "out of memory");
	return TK_OK;
}

int tka_op_gpu_time_event(struct tka_ctx *c, const struct tka_ev *e)
{
	struct tka_og_state *s = c->og;
	if (e->kind != TK_EV_HOST_OP && e->kind != TK_EV_ANNOTATION)
		return TK_OK;
	const struct tka_track *tr = tka_pass_track(c->pass, e->track);
	if (!tr || tr->device_id != TK_NONE)
		return TK_OK; /* device-side annotations (gpu_user_annotation) launch nothing */
	int lv = e->kind == TK_EV_ANNOTATION;
	if (e->track < 0 || e->track > UINT32_MAX || e->name_id < 0 || e->name_id > UINT32_MAX)
		return tka_fail(c, TK_EFORMAT, "event %lld: a track or name id beyond 2^32",
				(long long)e->id);
	if (TKU_GROW(s->h[lv], s->caph[lv], s->nh[lv] + 1, 4096) != TK_OK)
		return tka_fail(c, TK_ENOMEM, "out of memory");
	/* end in range: the pass checked the interval (checked.h) */
	s->h[lv][s->nh[lv]++] = (struct tka_host_op){e->ts, e->ts + e->dur, e->id,
						     (uint32_t)e->track, (uint32_t)e->name_id};
	return TK_OK;
}

int tka_op_gpu_time_end(struct tka_ctx *c)
{
	(void)c;
	return TK_OK;
}

const struct tka_og_inst *tka_op_gpu_instance(const struct tka_ctx *c, int64_t event_id)
{
	const struct tka_og_state *s = c->og;
	if (!s || !s->inst)
		return NULL;
	size_t lo = 0, hi = s->ninst;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (s->inst[mid].event_id < event_id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < s->ninst && s->inst[lo].event_id == event_id ? &s->inst[lo] : NULL;
}

int tka_host_ops(struct tka_ctx *c, const struct tka_host_op **ops, size_t *n)
{
	const struct tka_og_state *s = c->og;
	*ops = NULL;
	*n = 0;
	if (!s || !s->inst)
		return tka_fail(c, TK_EINTERNAL,
				"the host ops read before GPU time per op or after");
	*ops = s->h[0];
	*n = s->nh[0];
	return TK_OK;
}

void tka_host_ops_release(struct tka_ctx *c)
{
	struct tka_og_state *s = c->og;
	for (int lv = 0; s && lv < 2; lv++) {
		free(s->h[lv]);
		s->h[lv] = NULL;
		s->nh[lv] = s->caph[lv] = 0;
	}
	if (s) { /* what tka_process_device() reads stays */
		free(s->inst);
		s->inst = NULL;
		s->ninst = 0;
	}
}

int tka_op_gpu_keep(struct tka_ctx *c)
{
	const struct tka_og_state *s = c->og;
	struct tka_split *sp = c->split;
	for (size_t i = 0; s && i < s->npdev; i++) {
		if (TKU_GROW(sp->pdev, sp->pdev_cap, sp->npdev + 1, 64) != TK_OK)
			return tka_fail(c, TK_ENOMEM, "out of memory");
		memcpy(sp->pdev[sp->npdev++], s->pdev[i], sizeof(*sp->pdev));
	}
	return TK_OK;
}

int64_t tka_process_device(const struct tka_ctx *c, int64_t process)
{
	const struct tka_og_state *s = c->og;
	int64_t(*v)[2] = s ? s->pdev : NULL;
	size_t n = s ? s->npdev : 0;
	int64_t found = TK_NONE;
	if (c->split_end) { /* every part's pairs (a process is of one part) */
		v = c->split->pdev;
		n = c->split->npdev;
	}
	for (size_t i = 0; i < n; i++) {
		if (v[i][0] != process || v[i][1] == found)
			continue;
		if (found != TK_NONE)
			return TK_NONE; /* several devices */
		found = v[i][1];
	}
	return found;
}

/*
 * The timeline the time-based analyses share (intervals.h): span-set arithmetic, the
 * communication name rule, getting the timeline (timeline.c builds it from the pass over the
 * events) and freeing it, and the gap iterator. Everything here is linear sweeps in memory.
 */
#include "intervals.h"
#include "checked.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <tracekit/store.h>

/* ---- span sets ---- */

/* @t plus the length of [@a, @b) (b > a), saturating: the pass over the events keeps every time
 * point within +-2^62 (store/checked.h), so a sorted disjoint set never reaches the bound. */
static int64_t add_len(int64_t t, int64_t a, int64_t b)
{
	int64_t len;
	if (tk_sub_ovf(b, a, &len) || tk_add_ovf(t, len, &t))
		return INT64_MAX;
	return t;
}

int tka_spans_add(struct tka_spans *s, int64_t start, int64_t end)
{
	if (end <= start)
		return TK_OK;
	if (s->n > 0 && start <= s->v[s->n - 1].end) {
		if (end > s->v[s->n - 1].end)
			s->v[s->n - 1].end = end;
		return TK_OK;
	}
	if (TKU_GROW(s->v, s->cap, s->n + 1, 64) != TK_OK)
		return TK_ENOMEM;
	s->v[s->n].start = start;
	s->v[s->n].end = end;
	s->n++;
	return TK_OK;
}

void tka_spans_free(struct tka_spans *s)
{
	if (!s)
		return;
	free(s->v);
	memset(s, 0, sizeof(*s));
}

int64_t tka_spans_len(const struct tka_spans *s)
{
	int64_t t = 0;
	for (size_t i = 0; i < s->n; i++)
		t = add_len(t, s->v[i].start, s->v[i].end);
	return t;
}

int64_t tka_spans_overlap(const struct tka_spans *a, const struct tka_spans *b)
{
	int64_t t = 0;
	size_t i = 0, j = 0;
	while (i < a->n && j < b->n) {
		int64_t lo = a->v[i].start > b->v[j].start ? a->v[i].start : b->v[j].start;
		int64_t hi = a->v[i].end < b->v[j].end ? a->v[i].end : b->v[j].end;
		if (hi > lo)
			t = add_len(t, lo, hi);
		if (a->v[i].end < b->v[j].end)
			i++;
		else
			j++;
	}
	return t;
}

int64_t tka_spans_len_in(const struct tka_spans *s, int64_t start, int64_t end)
{
	size_t lo = 0, hi = s->n;
	int64_t t = 0;
	while (lo < hi) { /* first span that ends after start */
		size_t mid = lo + (hi - lo) / 2;
		if (s->v[mid].end <= start)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i < s->n && s->v[i].start < end; i++) {
		int64_t a = s->v[i].start > start ? s->v[i].start : start;
		int64_t b = s->v[i].end < end ? s->v[i].end : end;
		if (b > a)
			t = add_len(t, a, b);
	}
	return t;
}

int tka_spans_minus(const struct tka_spans *a, const struct tka_spans *b, struct tka_spans *out)
{
	size_t j = 0;
	out->n = 0;
	for (size_t i = 0; i < a->n; i++) {
		int64_t cur = a->v[i].start, end = a->v[i].end;
		while (j < b->n && b->v[j].end <= cur)
			j++;
		for (size_t k = j; k < b->n && b->v[k].start < end; k++) {
			if (b->v[k].start > cur && tka_spans_add(out, cur, b->v[k].start) != TK_OK)
				return TK_ENOMEM;
			if (b->v[k].end > cur)
				cur = b->v[k].end;
		}
		if (cur < end && tka_spans_add(out, cur, end) != TK_OK)
			return TK_ENOMEM;
	}
	return TK_OK;
}

/* ---- names ---- */

static int contains_ci(const char *s, const char *word)
{
	size_t n = strlen(word);
	for (; *s; s++) {
		size_t i = 0;
		while (i < n && s[i] && tolower((unsigned char)s[i]) == word[i])
			i++;
		if (i == n)
			return 1;
	}
	return 0;
}

int tka_is_comm_name(const char *name)
{
	static const char *const words[] = {
	    "nccl",	      "rccl",	       "all-reduce",	     "allreduce",
	    "all_reduce",     "all-gather",    "allgather",	     "all_gather",
	    "reduce-scatter", "reducescatter", "reduce_scatter",     "all-to-all",
	    "alltoall",	      "all_to_all",    "collective-permute", "collectivepermute",
	};
	if (!name)
		return 0;
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (contains_ci(name, words[i]))
			return 1;
	return 0;
}

const char *tka_window_name(const struct tka_device *d)
{
	return d->selected_steps ? "steps" : "device";
}

const char *tka_gap_cause_name(int cause)
{
	static const char *const names[] = {"host_bound", "kernel_wait", "sync", "dependency"};
	return cause >= 0 && cause < TKA_GAP_UNKNOWN ? names[cause] : "unknown";
}

int tka_timeline_get(struct tka_ctx *c, const struct tka_timeline **out)
{
	int rc = c->tl ? TK_OK : tka_pass_run(c); /* the pass over the events builds it */
	if (rc == TK_OK && !c->tl)
		rc = tka_fail(c, TK_EINTERNAL, "the timeline was not built");
	*out = c->tl;
	return rc;
}

void tka_timeline_free(struct tka_timeline *tl)
{
	if (!tl)
		return;
	for (size_t i = 0; i < tl->ndev; i++) {
		struct tka_device *d = &tl->dev[i];
		free(d->ops);
		free(d->streams);
		free(d->busy_first);
		free(d->busy_last);
		free(d->steps);
		free(d->gap_launch);
		tka_spans_free(&d->busy);
		tka_spans_free(&d->compute);
		tka_spans_free(&d->comm);
		tka_spans_free(&d->copy);
		tka_spans_free(&d->device_window);
		tka_spans_free(&d->step_window);
	}
	free(tl->dev);
	free(tl->syncs.v);
	free(tl->syncs.max_end);
	free(tl);
}

/* ---- gaps ---- */

/*
 * The cause of the not-busy interval j (before busy span j) of @d, of which a piece starts at
 * @piece_start; *by gets the synchronization of a sync gap. The interval starts where busy span
 * j-1 ends, or at the piece when there is none (idle time before the device's first op).
 */
static int gap_cause(const struct tka_device *d, size_t j, int64_t piece_start,
		     const struct tka_sync **by)
{
	*by = NULL;
	if (j == d->busy.n || d->ops[d->busy_first[j]].launch_ts == TKA_NO_LAUNCH)
		return TKA_GAP_UNKNOWN;
	int64_t fs = j > 0 ? d->busy.v[j - 1].end : piece_start, fe = d->busy.v[j].start;
	if (d->ops[d->busy_first[j]].launch_ts > fs)
		return TKA_GAP_HOST;
	if (fe - fs < TKA_KERNEL_WAIT_NS)
		return TKA_GAP_KERNEL_WAIT;
	*by = tka_gap_sync(d, j, fs, fe);
	return *by ? TKA_GAP_SYNC : TKA_GAP_DEPENDENCY;
}

int tka_gaps_each(const struct tka_device *d, const struct tka_spans *window,
		  int (*fn)(void *arg, const struct tka_gap *g), void *arg)
{
	size_t j = 0; /* free interval j lies between busy span j-1 and busy span j */
	if (window->n > 0) {
		size_t hi = d->busy.n; /* first busy span that ends after the window starts */
		while (j < hi) {
			size_t mid = j + (hi - j) / 2;
			if (d->busy.v[mid].end <= window->v[0].start)
				j = mid + 1;
			else
				hi = mid;
		}
	}
	for (size_t w = 0; w < window->n; w++) {
		int64_t ws = window->v[w].start, we = window->v[w].end;
		while (j < d->busy.n && d->busy.v[j].end <= ws)
			j++;
		for (; j <= d->busy.n; j++) {
			int64_t fs = j == 0 ? INT64_MIN : d->busy.v[j - 1].end;
			int64_t fe = j == d->busy.n ? INT64_MAX : d->busy.v[j].start;
			if (fs >= we)
				break;
			struct tka_gap g;
			g.start = fs > ws ? fs : ws;
			g.end = fe < we ? fe : we;
			if (g.end > g.start) {
				g.prev = j == 0 ? SIZE_MAX : d->busy_last[j - 1];
				g.next = j == d->busy.n ? SIZE_MAX : d->busy_first[j];
				g.cause = gap_cause(d, j, g.start, &g.by);
				int rc = fn(arg, &g);
				if (rc != TK_OK)
					return rc;
			}
			if (fe > we)
				break; /* this free interval continues into the next window span */
		}
	}
	return TK_OK;
}

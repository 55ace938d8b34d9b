/*
 * Where each step lies on the device (docs/metrics.md, "Steps on the device"). A device's steps
 * are the step events on its own tracks (XPlane's Steps line: already device time) or, when it
 * has none, its process's host steps (Kineto's ProfilerStep#N). A host step is the host's
 * interval; the device runs behind it, so each such step gets a device interval, in order of
 * preference: the device-side annotation of the same step (Kineto's gpu_user_annotation
 * ProfilerStep#N, seen by the event pass), else the device work launched from inside the host
 * step (from the start of its first op to where the next step placed on the device starts, or
 * to its last op's end for the last one), else the host interval. `--window host-steps` keeps the
 * host intervals. The analyses then use the chosen interval of every step (tka_step.ts/end).
 */
#include "checked.h"
#include "intervals.h"

#include <stdlib.h>
#include <string.h>
#include <tracekit/store.h>

/* An annotation on a device track: a candidate device-side step (ProfilerStep#N). */
struct mark {
	int64_t ts, end, device_id;
	int64_t name_id;
	int64_t step_num; /* parsed from the name; TK_NONE until resolved, or when not a step */
};

struct tka_step_marks {
	struct mark *v;
	size_t n, cap;
};

const char *tka_step_source_name(int source)
{
	switch (source) {
	case TKA_STEP_DEVICE:
		return "device";
	case TKA_STEP_ANNOTATION:
		return "device_annotation";
	case TKA_STEP_LAUNCH:
		return "launches";
	default:
		return "host";
	}
}

void tka_step_marks_free(struct tka_step_marks *m)
{
	if (!m)
		return;
	free(m->v);
	free(m);
}

int tka_step_marks_event(struct tka_ctx *c, const struct tka_ev *e)
{
	const struct tka_pass *p = c->pass;
	if (e->track < 1 || e->track > p->ntracks || !p->tracks[e->track].exists ||
	    p->tracks[e->track].device_id == TK_NONE)
		return TK_OK;
	if (!c->marks && !(c->marks = calloc(1, sizeof(*c->marks))))
		return tka_fail(c, TK_ENOMEM, "out of memory");
	struct tka_step_marks *m = c->marks;
	if (TKU_GROW(m->v, m->cap, m->n + 1, 64) != TK_OK)
		return tka_fail(c, TK_ENOMEM, "out of memory");
	int64_t dur = e->dur > 0 ? e->dur : 0;
	m->v[m->n++] =
	    (struct mark){e->ts, e->ts + dur, p->tracks[e->track].device_id, e->name_id, TK_NONE};
	return TK_OK;
}

/* N of "ProfilerStep#N" (decimal, nothing after it), else TK_NONE. */
static int64_t profiler_step_num(const char *s)
{
	static const char prefix[] = "ProfilerStep#";
	if (!s || strncmp(s, prefix, sizeof(prefix) - 1) != 0)
		return TK_NONE;
	s += sizeof(prefix) - 1;
	int64_t n = 0;
	if (!*s)
		return TK_NONE;
	for (; *s; s++) {
		if (*s < '0' || *s > '9' || n > (INT64_MAX - 9) / 10)
			return TK_NONE;
		n = n * 10 + (*s - '0');
	}
	return n;
}

static int mark_by_name(const void *a, const void *b)
{
	const struct mark *x = a, *y = b;
	return x->name_id < y->name_id ? -1 : x->name_id > y->name_id;
}

static int mark_by_device_step(const void *a, const void *b)
{
	const struct mark *x = a, *y = b;
	if (x->device_id != y->device_id)
		return x->device_id < y->device_id ? -1 : 1;
	if (x->step_num != y->step_num)
		return x->step_num < y->step_num ? -1 : 1;
	return x->ts < y->ts ? -1 : x->ts > y->ts;
}

/* Keep the marks named ProfilerStep#N, sorted by (device, N, ts); one name lookup per name. */
static int resolve_marks(struct tka_ctx *c, struct tka_step_marks *m)
{
	sqlite3_stmt *st = NULL;
	int rc = TK_OK;
	if (!m || !m->n)
		return TK_OK;
	qsort(m->v, m->n, sizeof(*m->v), mark_by_name);
	if ((rc = tka_prepare(c, "SELECT str FROM strings WHERE id = ?", &st)) != TK_OK)
		goto out;
	size_t kept = 0;
	for (size_t i = 0; i < m->n;) {
		size_t j = i;
		while (j < m->n && m->v[j].name_id == m->v[i].name_id)
			j++;
		sqlite3_reset(st);
		sqlite3_bind_int64(st, 1, m->v[i].name_id);
		int s = sqlite3_step(st);
		if (s != SQLITE_ROW && s != SQLITE_DONE) {
			rc = tka_sql_status(c);
			tka_fail(c, rc, "reading step annotations: %s", sqlite3_errmsg(c->db));
			goto out;
		}
		int64_t num = s == SQLITE_ROW
				  ? profiler_step_num((const char *)sqlite3_column_text(st, 0))
				  : TK_NONE;
		for (; i < j; i++)
			if (num != TK_NONE) {
				m->v[kept] = m->v[i];
				m->v[kept++].step_num = num;
			}
	}
	m->n = kept;
	qsort(m->v, m->n, sizeof(*m->v), mark_by_device_step);
out:
	sqlite3_finalize(st);
	return rc;
}

/* The device-side annotation of step @num on @device: the hull of its marks; 0 when none. */
static int find_mark(const struct tka_step_marks *m, int64_t device, int64_t num, int64_t *ts,
		     int64_t *end)
{
	if (!m || !m->n || num == TK_NONE)
		return 0;
	size_t lo = 0, hi = m->n;
	while (lo < hi) { /* first mark >= (device, num) */
		size_t mid = lo + (hi - lo) / 2;
		const struct mark *x = &m->v[mid];
		if (x->device_id < device || (x->device_id == device && x->step_num < num))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == m->n || m->v[lo].device_id != device || m->v[lo].step_num != num)
		return 0;
	*ts = m->v[lo].ts;
	*end = m->v[lo].end;
	for (size_t k = lo + 1; k < m->n && m->v[k].device_id == device && m->v[k].step_num == num;
	     k++)
		if (m->v[k].end > *end)
			*end = m->v[k].end;
	return 1;
}

static int step_by_ts(const void *a, const void *b)
{
	const struct tka_step *x = a, *y = b;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->event_id < y->event_id ? -1 : x->event_id > y->event_id;
}

/*
 * Device intervals of @d's host steps (sorted by host start). @first/@last: per step, the
 * earliest start and latest end of the device ops launched inside it (INT64_MAX/MIN: none).
 */
static int device_intervals(struct tka_ctx *c, struct tka_device *d)
{
	size_t n = d->nsteps;
	int64_t *first = malloc(n * sizeof(*first)), *last = malloc(n * sizeof(*last));
	if (!first || !last) {
		free(first);
		free(last);
		return tka_fail(c, TK_ENOMEM, "out of memory");
	}
	for (size_t k = 0; k < n; k++)
		first[k] = INT64_MAX, last[k] = INT64_MIN;
	for (size_t i = 0; i < d->nops; i++) {
		const struct tka_op *op = &d->ops[i];
		if (op->launch_ts == TKA_NO_LAUNCH)
			continue;
		size_t lo = 0, hi = n; /* the last step with host_ts <= launch */
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (d->steps[mid].host_ts <= op->launch_ts)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo == 0 || op->launch_ts >= d->steps[lo - 1].host_end)
			continue;
		size_t k = lo - 1;
		if (op->ts < first[k])
			first[k] = op->ts;
		if (op->end > last[k])
			last[k] = op->end;
	}
	/* annotations first: a launch-based step ends where the next placed step starts */
	for (size_t k = 0; k < n; k++) {
		struct tka_step *s = &d->steps[k];
		int64_t ts, end;
		if (find_mark(c->marks, d->device_id, s->step_num, &ts, &end)) {
			s->ts = ts, s->end = end, s->source = TKA_STEP_ANNOTATION;
			first[k] = ts; /* now: where the step starts on the device */
		} else if (first[k] != INT64_MAX) {
			s->source = TKA_STEP_LAUNCH;
		}
	}
	for (size_t k = n; k-- > 0;) { /* next: the start of the next placed step */
		struct tka_step *s = &d->steps[k];
		if (s->source != TKA_STEP_LAUNCH)
			continue;
		size_t j = k + 1;
		while (j < n && first[j] == INT64_MAX)
			j++;
		s->ts = first[k];
		s->end = j < n && first[j] > first[k] ? first[j] : last[k];
	}
	free(first);
	free(last);
	qsort(d->steps, n, sizeof(*d->steps), step_by_ts);
	return TK_OK;
}

/* Every step event with the device or process of its track, sorted by (ts, id). */
struct step_row {
	struct tka_step s;
	int64_t device_id, process_id; /* TK_NONE when NULL */
};

/* Steps by their step_details rows (CROSS JOIN keeps SQLite from scanning every event). */
int tka_steps_load(struct tka_ctx *c, struct tka_timeline *tl)
{
	sqlite3_stmt *st = NULL;
	struct step_row *v = NULL;
	size_t n = 0, cap = 0;
	int rc, step;
	int host_only = c->opt->window == TK_WINDOW_HOST_STEPS;
	if ((rc = resolve_marks(c, c->marks)) != TK_OK)
		goto out;
	rc = tka_prepare(
	    c,
	    "SELECT sd.event_id, sd.step_num, e.ts_ns, e.dur_ns, t.device_id, "
	    "t.process_id FROM step_details sd CROSS JOIN events e ON e.id = "
	    "sd.event_id CROSS JOIN tracks t ON t.id = e.track_id WHERE e.kind = " TK_SQL_EV_STEP
	    " AND sd.event_id BETWEEN ?1 AND ?2 ORDER BY e.ts_ns, e.id",
	    &st);
	if (rc != TK_OK)
		goto out;
	sqlite3_bind_int64(st, 1, tka_ev_lo(c)); /* of the part analysed */
	sqlite3_bind_int64(st, 2, tka_ev_hi(c));
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		if (TKU_GROW(v, cap, n + 1, 64) != TK_OK) {
			rc = tka_fail(c, TK_ENOMEM, "out of memory");
			goto out;
		}
		int64_t dur = sqlite3_column_int64(st, 3);
		struct tka_step *s = &v[n].s;
		s->event_id = sqlite3_column_int64(st, 0);
		s->step_num = tka_col_or_none(st, 1);
		s->ts = sqlite3_column_int64(st, 2);
		s->end = s->ts + (dur > 0 ? dur : 0);
		v[n].device_id = tka_col_or_none(st, 4);
		v[n].process_id = tka_col_or_none(st, 5);
		n++;
	}
	if (step != SQLITE_DONE) {
		rc = tka_fail(c, TK_EINTERNAL, "reading steps: %s", sqlite3_errmsg(c->db));
		goto out;
	}
	for (size_t i = 0; i < tl->ndev; i++) {
		struct tka_device *d = &tl->dev[i];
		int pass;
		for (pass = 0; pass < 2 && d->nsteps == 0; pass++) {
			for (size_t k = 0; k < n; k++) {
				int mine = pass == 0 ? v[k].device_id == d->device_id
						     : v[k].device_id == TK_NONE &&
							   d->process_id != TK_NONE &&
							   v[k].process_id == d->process_id;
				if (!mine)
					continue;
				if (!d->steps && !(d->steps = malloc(n * sizeof(*d->steps)))) {
					rc = tka_fail(c, TK_ENOMEM, "out of memory");
					goto out;
				}
				struct tka_step *s = &d->steps[d->nsteps++];
				*s = v[k].s;
				/* the device's own steps have no host interval; host steps keep theirs */
				s->host_ts = pass == 0 ? TK_NONE : s->ts;
				s->host_end = pass == 0 ? TK_NONE : s->end;
				s->source = pass == 0 ? TKA_STEP_DEVICE : TKA_STEP_HOST;
			}
		}
		if (pass == 2 && d->nsteps > 0 && !host_only &&
		    (rc = device_intervals(c, d)) != TK_OK)
			goto out;
	}
out:
	sqlite3_finalize(st);
	free(v);
	tka_step_marks_free(c->marks);
	c->marks = NULL;
	return rc;
}

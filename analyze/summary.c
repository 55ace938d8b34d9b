/*
 * Analysing a job summary (tracekit merge --summary, docs/scale.md): the store holds only the
 * communication kernels and steps of each rank, with the per-rank analysis tables copied from
 * the rank stores. The cross-rank analyses (the driver's entries marked cross_rank) run again on
 * it; the windows they use come from the copied tables instead of the partial events: the
 * 'device' window from analysis_device_time, the 'steps' window as the union of the device's
 * analysis_steps intervals, and the selected one as analysis_device_time.selected says.
 */
#include <string.h>

#include "intervals.h"

/* The windows of @d from the copied tables. */
static int device_windows(struct tka_ctx *c, sqlite3_stmt *dt, sqlite3_stmt *st,
			  struct tka_device *d)
{
	int steps_selected = 0, rc = TK_OK;
	d->device_window.n = 0;
	d->step_window.n = 0;
	sqlite3_reset(dt);
	sqlite3_bind_int64(dt, 1, d->device_id);
	while (rc == TK_OK && sqlite3_step(dt) == SQLITE_ROW) {
		const char *w = (const char *)sqlite3_column_text(dt, 0);
		int selected = sqlite3_column_int(dt, 1);
		if (w && !strcmp(w, "steps")) {
			steps_selected = selected;
			continue;
		}
		if (!w || strcmp(w, "device") || sqlite3_column_type(dt, 2) != SQLITE_INTEGER)
			continue;
		int64_t a = sqlite3_column_int64(dt, 2), b = sqlite3_column_int64(dt, 3);
		if (a < b)
			rc = tka_spans_add(&d->device_window, a, b);
	}
	sqlite3_reset(st);
	sqlite3_bind_int64(st, 1, d->device_id);
	while (rc == TK_OK && sqlite3_step(st) == SQLITE_ROW) {
		int64_t a = sqlite3_column_int64(st, 0), b = sqlite3_column_int64(st, 1);
		struct tka_spans *s = &d->step_window;
		if (b <= a)
			continue;
		if (s->n && a <= s->v[s->n - 1].end) { /* overlapping steps: one span */
			if (b > s->v[s->n - 1].end)
				s->v[s->n - 1].end = b;
			continue;
		}
		rc = tka_spans_add(s, a, b);
	}
	if (rc != TK_OK)
		return tka_fail(c, TK_ENOMEM, "out of memory");
	d->selected_steps = steps_selected && d->step_window.n > 0;
	d->window = d->selected_steps ? &d->step_window : &d->device_window;
	return TK_OK;
}

int tka_summary_windows(struct tka_ctx *c)
{
	const struct tka_timeline *ctl;
	sqlite3_stmt *dt = NULL, *st = NULL;
	int rc;
	if ((rc = tka_timeline_get(c, &ctl)) != TK_OK ||
	    (rc = tka_prepare(c,
			      "SELECT window, selected, start_ns, end_ns FROM analysis_device_time "
			      "WHERE device_id = ?",
			      &dt)) != TK_OK ||
	    (rc = tka_prepare(c,
			      "SELECT start_ns, end_ns FROM analysis_steps WHERE device_id = ? "
			      "ORDER BY start_ns, end_ns",
			      &st)) != TK_OK)
		goto out;
	for (size_t i = 0; i < c->tl->ndev && rc == TK_OK; i++)
		rc = device_windows(c, dt, st, &c->tl->dev[i]);
out:
	sqlite3_finalize(dt);
	sqlite3_finalize(st);
	return rc;
}

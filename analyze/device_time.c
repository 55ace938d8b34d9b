/*
 * Device time (docs/metrics.md, "Device time"): per device and window, the exact lengths of the
 * busy time (union of kernels, copies and sets over all streams), of its compute, communication
 * and copy parts, of communication not overlapped by compute, of copies overlapped by neither,
 * and of idle time. Table analysis_device_time; one 'device' row per device with device work
 * and one 'steps' row when the device has steps. Built from the shared timeline (intervals.c).
 */
#include "intervals.h"

/* Number of operations whose start lies inside a span of @w. */
static int64_t ops_in(const struct tka_device *d, const struct tka_spans *w)
{
	int64_t n = 0;
	for (size_t i = 0; i < w->n; i++) {
		size_t lo = 0, hi = d->nops;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (d->ops[mid].ts < w->v[i].start)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (size_t k = lo; k < d->nops && d->ops[k].ts < w->v[i].end; k++)
			n++;
	}
	return n;
}

static int write_row(struct tka_ctx *c, sqlite3_stmt *ins, const struct tka_device *d,
		     const char *name, const struct tka_spans *w, int selected,
		     struct tka_spans *tmp, struct tka_spans *tmp2)
{
	int64_t win = tka_spans_len(w);
	int64_t busy = tka_spans_overlap(&d->busy, w);
	int64_t compute = tka_spans_overlap(&d->compute, w);
	int64_t comm = tka_spans_overlap(&d->comm, w);
	int64_t copy = tka_spans_overlap(&d->copy, w);
	if (tka_spans_minus(&d->comm, &d->compute, tmp) != TK_OK)
		return tka_fail(c, TK_ENOMEM, "out of memory");
	int64_t exposed_comm = tka_spans_overlap(tmp, w);
	if (tka_spans_minus(&d->copy, &d->compute, tmp) != TK_OK ||
	    tka_spans_minus(tmp, &d->comm, tmp2) != TK_OK)
		return tka_fail(c, TK_ENOMEM, "out of memory");
	int64_t exposed_copy = tka_spans_overlap(tmp2, w);
	int i = 1;
	sqlite3_reset(ins);
	sqlite3_bind_int64(ins, i++, d->device_id);
	sqlite3_bind_text(ins, i++, name, -1, SQLITE_STATIC);
	sqlite3_bind_int(ins, i++, selected);
	if (w->n) {
		sqlite3_bind_int64(ins, i++, w->v[0].start);
		sqlite3_bind_int64(ins, i++, w->v[w->n - 1].end);
	} else {
		sqlite3_bind_null(ins, i++);
		sqlite3_bind_null(ins, i++);
	}
	sqlite3_bind_int64(ins, i++, win);
	sqlite3_bind_int64(ins, i++, (int64_t)w->n);
	sqlite3_bind_int64(ins, i++, ops_in(d, w));
	sqlite3_bind_int64(ins, i++, busy);
	sqlite3_bind_int64(ins, i++, compute);
	sqlite3_bind_int64(ins, i++, comm);
	sqlite3_bind_int64(ins, i++, copy);
	sqlite3_bind_int64(ins, i++, exposed_comm);
	sqlite3_bind_int64(ins, i++, exposed_copy);
	sqlite3_bind_int64(ins, i++, win - busy);
	if (win > 0)
		sqlite3_bind_double(ins, i++, (double)busy / (double)win);
	else
		sqlite3_bind_null(ins, i++);
	if (sqlite3_step(ins) != SQLITE_DONE)
		return tka_fail(c, TK_EINTERNAL, "writing analysis_device_time: %s",
				sqlite3_errmsg(c->db));
	return TK_OK;
}

TKA_WRITES(TK_NCOLS_ANALYSIS_DEVICE_TIME, 16, "analysis_device_time");

int tka_device_time(struct tka_ctx *c)
{
	const struct tka_timeline *tl;
	sqlite3_stmt *ins = NULL;
	struct tka_spans tmp = {0}, tmp2 = {0};
	int rc;
	if ((rc = tka_timeline_get(c, &tl)) != TK_OK ||
	    (rc = tka_prepare(c,
			      "INSERT INTO analysis_device_time (" TK_COLS_ANALYSIS_DEVICE_TIME
			      ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
			      &ins)) != TK_OK)
		goto out;
	for (size_t i = 0; i < tl->ndev; i++) {
		const struct tka_device *d = &tl->dev[i];
		rc = write_row(c, ins, d, "device", &d->device_window, !d->selected_steps, &tmp,
			       &tmp2);
		if (rc == TK_OK && d->nsteps > 0)
			rc = write_row(c, ins, d, "steps", &d->step_window, d->selected_steps, &tmp,
				       &tmp2);
		if (rc != TK_OK)
			goto out;
	}
out:
	sqlite3_finalize(ins);
	tka_spans_free(&tmp);
	tka_spans_free(&tmp2);
	return rc;
}

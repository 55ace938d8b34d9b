/*
 * Parts of a job's store, analysed one after the other (docs/scale.md, "Memory of one
 * analysis"): a part is one source's processes (one rank's trace) with their devices, tracks,
 * events and launch flows. The analysis holds one part's timeline and pass state at a time, so
 * its memory is that of the largest rank, not of the job.
 *
 * A store splits when it has two or more sources and every process, device and track belongs to
 * one by ids that ascend with the parts: each process has a source, each device and track a
 * process of the one part (a track's device, if any, in the same part), and the processes in id
 * order go through the sources in ascending order, the devices and tracks in id order through
 * the parts in turn, as every job import and merge writes them (checked in one pass over each
 * table: a hostile store's count of sources costs no more than its rows). The events' and flows' id ranges of each part are found here by binary search
 * (a few lookups per part); whether each event and launch flow really lies in its part is
 * checked as the pass reads it (event_pass.c, timeline.c): when one does not, the analysis
 * starts again over the whole store (TKA_NOT_SPLIT), so a split analysis gives the tables of
 * one pass over everything or is not used.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "intervals.h"

/* A process (its id) and its part. */
struct rowpart {
	int64_t id, part;
};

/* The part of process @pid among v[0..n) (ascending ids), -1 when there is no such process. */
static int64_t proc_part(const struct rowpart *v, size_t n, int64_t pid)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (v[mid].id < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && v[lo].id == pid ? v[lo].part : -1;
}

static int part_of(const struct tka_parts *ps, int64_t track)
{
	size_t lo = 0, hi = ps->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (ps->v[mid].trk_hi < track)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < ps->n && ps->v[lo].trk_lo <= track ? (int)lo : -1;
}

/* Grow @ps to hold part @k (a new part starts with empty ranges). */
static int part_at(struct tka_ctx *c, struct tka_parts *ps, size_t k, size_t *cap)
{
	if (k < ps->n)
		return TK_OK;
	if (TKU_GROW(ps->v, *cap, k + 1, 16) != TK_OK)
		return tka_fail(c, TK_ENOMEM, "out of memory");
	struct tka_part *p = &ps->v[k];
	memset(p, 0, sizeof(*p));
	p->trk_lo = p->dev_lo = INT64_MAX;
	p->trk_hi = p->dev_hi = INT64_MIN;
	ps->n = k + 1;
	return TK_OK;
}

static void widen(int64_t *lo, int64_t *hi, int64_t id)
{
	if (id < *lo)
		*lo = id;
	if (id > *hi)
		*hi = id;
}

/*
 * The processes (by source), devices and tracks into parts; *@ok 0 when the store does not
 * split so. @proc: process id -> part, sorted by id (as read).
 */
static int assign(struct tka_ctx *c, struct tka_parts *ps, int *ok)
{
	sqlite3_stmt *q = NULL;
	struct rowpart *proc = NULL;
	size_t nproc = 0, pcap = 0, cap = 0;
	int64_t last_src = 0, last_part = -1, last_dev = INT64_MIN, dev_part = -1;
	int rc, step = SQLITE_DONE;
	*ok = 0;
	rc = tka_prepare(c, "SELECT id, source_id FROM processes ORDER BY id", &q);
	while (rc == TK_OK && (step = sqlite3_step(q)) == SQLITE_ROW) {
		if (sqlite3_column_type(q, 1) != SQLITE_INTEGER)
			goto done; /* a process of no source */
		int64_t id = sqlite3_column_int64(q, 0), src = sqlite3_column_int64(q, 1);
		if (last_part >= 0 && src < last_src)
			goto done; /* the sources not in order: a source's processes may be apart */
		if (last_part < 0 || src != last_src) {
			last_part++;
			if ((rc = part_at(c, ps, (size_t)last_part, &cap)) != TK_OK)
				break;
			last_src = src;
		}
		if (TKU_GROW(proc, pcap, nproc + 1, 64) != TK_OK) {
			rc = tka_fail(c, TK_ENOMEM, "out of memory");
			break;
		}
		proc[nproc++] = (struct rowpart){id, last_part};
	}
	if (rc == TK_OK && step != SQLITE_DONE)
		rc = tka_fail(c, tka_sql_status(c), "reading processes: %s", sqlite3_errmsg(c->db));
	sqlite3_finalize(q);
	q = NULL;
	if (rc != TK_OK || ps->n < 2)
		goto done;
	int64_t at = -1;
	rc = tka_prepare(c, "SELECT id, process_id FROM devices ORDER BY id", &q);
	while (rc == TK_OK && (step = sqlite3_step(q)) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(q, 0), part = -1;
		if (sqlite3_column_type(q, 1) == SQLITE_INTEGER)
			part = proc_part(proc, nproc, sqlite3_column_int64(q, 1));
		if (part < at || part < 0)
			goto done; /* no process, or the parts out of order */
		at = part;
		widen(&ps->v[part].dev_lo, &ps->v[part].dev_hi, id);
	}
	if (rc == TK_OK && step != SQLITE_DONE)
		rc = tka_fail(c, tka_sql_status(c), "reading devices: %s", sqlite3_errmsg(c->db));
	sqlite3_finalize(q);
	q = NULL;
	if (rc != TK_OK)
		goto done;
	at = -1;
	rc = tka_prepare(c, "SELECT id, process_id, device_id FROM tracks ORDER BY id", &q);
	while (rc == TK_OK && (step = sqlite3_step(q)) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(q, 0), part = -1;
		if (sqlite3_column_type(q, 1) == SQLITE_INTEGER)
			part = proc_part(proc, nproc, sqlite3_column_int64(q, 1));
		if (part < at || part < 0)
			goto done;
		if (sqlite3_column_type(q, 2) != SQLITE_NULL) { /* its device in the same part */
			int64_t dev = sqlite3_column_int64(q, 2);
			if (dev != last_dev) {
				const struct tka_part *p = &ps->v[part];
				dev_part = dev >= p->dev_lo && dev <= p->dev_hi ? part : -1;
				last_dev = dev;
			}
			if (dev_part != part)
				goto done;
		}
		at = part;
		widen(&ps->v[part].trk_lo, &ps->v[part].trk_hi, id);
	}
	if (rc == TK_OK && step != SQLITE_DONE)
		rc = tka_fail(c, tka_sql_status(c), "reading tracks: %s", sqlite3_errmsg(c->db));
	/* a part without tracks: an empty range where it falls, so the ranges stay ascending */
	for (size_t k = 0; rc == TK_OK && k < ps->n; k++)
		if (ps->v[k].trk_lo > ps->v[k].trk_hi) {
			ps->v[k].trk_hi = k ? ps->v[k - 1].trk_hi : 0;
			ps->v[k].trk_lo = ps->v[k].trk_hi + 1;
		}
	if (rc == TK_OK)
		*ok = 1;
done:
	sqlite3_finalize(q);
	free(proc);
	return rc;
}

/*
 * The first row id of @sql (SELECT id, x ... WHERE id >= ?1 ORDER BY id LIMIT 1) at or after
 * which key(x) >= @k, by binary search over [lo, hi]; key: the part of the track x (events) or
 * x itself compared with a bound (flows: src_event_id >= @bound). *@found: hi + 1 when none.
 */
static int first_at(struct tka_ctx *c, sqlite3_stmt *q, const struct tka_parts *ps, int64_t k,
		    int64_t bound, int64_t lo, int64_t hi, int64_t *found, int *ok)
{
	while (lo <= hi) {
		int64_t mid = lo + (int64_t)(((uint64_t)hi - (uint64_t)lo) / 2);
		sqlite3_reset(q);
		sqlite3_bind_int64(q, 1, mid);
		int step = sqlite3_step(q);
		int past; /* the first row at or after mid has key >= k (or there is none) */
		if (step == SQLITE_DONE) {
			past = 1;
		} else if (step == SQLITE_ROW) {
			int64_t x = sqlite3_column_int64(q, 1);
			if (ps) {
				int p = part_of(ps, x);
				if (p < 0) { /* an event of no part's track */
					*ok = 0;
					return TK_OK;
				}
				past = p >= k;
			} else {
				past = x >= bound;
			}
		} else {
			return tka_fail(c, tka_sql_status(c), "reading the parts of the job: %s",
					sqlite3_errmsg(c->db));
		}
		if (past)
			hi = mid - 1;
		else
			lo = mid + 1;
	}
	*found = lo;
	return TK_OK;
}

/* The id range of @table: *@lo > *@hi when it is empty. */
static int id_range(struct tka_ctx *c, const char *sql, int64_t *lo, int64_t *hi)
{
	sqlite3_stmt *q = NULL;
	int rc = tka_prepare(c, sql, &q);
	*lo = 1;
	*hi = 0;
	if (rc == TK_OK && sqlite3_step(q) == SQLITE_ROW &&
	    sqlite3_column_type(q, 0) == SQLITE_INTEGER) {
		*lo = sqlite3_column_int64(q, 0);
		*hi = sqlite3_column_int64(q, 1);
	}
	sqlite3_finalize(q);
	return rc;
}

int tka_parts_find(struct tka_ctx *c, struct tka_parts *ps)
{
	sqlite3_stmt *ev = NULL, *fl = NULL;
	int64_t elo, ehi, flo, fhi;
	int ok = 0;
	memset(ps, 0, sizeof(*ps));
	int rc = assign(c, ps, &ok);
	if (rc != TK_OK || !ok)
		goto out;
	if ((rc = id_range(c, "SELECT min(id), max(id) FROM events", &elo, &ehi)) != TK_OK ||
	    (rc = id_range(c, "SELECT min(id), max(id) FROM flows", &flo, &fhi)) != TK_OK ||
	    (rc = tka_prepare(c,
			      "SELECT id, track_id FROM events WHERE id >= ?1 ORDER BY id LIMIT 1",
			      &ev)) != TK_OK ||
	    (rc = tka_prepare(
		 c, "SELECT id, src_event_id FROM flows WHERE id >= ?1 ORDER BY id LIMIT 1",
		 &fl)) != TK_OK)
		goto out;
	ps->v[0].ev_lo = ps->v[0].fl_lo = INT64_MIN;
	for (size_t k = 1; k < ps->n && ok; k++) {
		int64_t at = elo, fat = flo;
		if (elo <= ehi &&
		    (rc = first_at(c, ev, ps, (int64_t)k, 0, elo, ehi, &at, &ok)) != TK_OK)
			goto out;
		if (at < ps->v[k - 1].ev_lo) /* keep the ranges ascending */
			at = ps->v[k - 1].ev_lo;
		ps->v[k].ev_lo = at;
		ps->v[k - 1].ev_hi = at == INT64_MIN ? INT64_MIN : at - 1;
		if (flo <= fhi && (rc = first_at(c, fl, NULL, 0, at, flo, fhi, &fat, &ok)) != TK_OK)
			goto out;
		if (fat < ps->v[k - 1].fl_lo)
			fat = ps->v[k - 1].fl_lo;
		ps->v[k].fl_lo = fat;
		ps->v[k - 1].fl_hi = fat == INT64_MIN ? INT64_MIN : fat - 1;
	}
	ps->v[ps->n - 1].ev_hi = ps->v[ps->n - 1].fl_hi = INT64_MAX;
out:
	sqlite3_finalize(ev);
	sqlite3_finalize(fl);
	if (rc != TK_OK || !ok)
		tka_parts_free(ps);
	return rc;
}

void tka_parts_free(struct tka_parts *ps)
{
	free(ps->v);
	memset(ps, 0, sizeof(*ps));
}

/* Append @src's spans to @dst. */
static int copy_spans(struct tka_spans *dst, const struct tka_spans *src)
{
	for (size_t i = 0; i < src->n; i++)
		if (tka_spans_add(dst, src->v[i].start, src->v[i].end) != TK_OK)
			return TK_ENOMEM;
	return TK_OK;
}

/* Keep of each device of the part what the analyses at the end read (communication, clock
 * offsets): its communication ops, their union and its windows. */
int tka_split_keep(struct tka_ctx *c)
{
	struct tka_timeline *k = c->split->keep;
	for (size_t i = 0; i < c->tl->ndev; i++) {
		const struct tka_device *d = &c->tl->dev[i];
		if (TKU_GROW(k->dev, k->dev_cap, k->ndev + 1, 16) != TK_OK)
			return tka_fail(c, TK_ENOMEM, "out of memory");
		struct tka_device *x = &k->dev[k->ndev++];
		memset(x, 0, sizeof(*x));
		x->device_id = d->device_id;
		x->process_id = d->process_id;
		x->rank = d->rank;
		x->selected_steps = d->selected_steps;
		size_t n = 0;
		for (size_t j = 0; j < d->nops; j++)
			n += d->ops[j].cls == TKA_COMM;
		if (n && !(x->ops = malloc(n * sizeof(*x->ops))))
			return tka_fail(c, TK_ENOMEM, "out of memory");
		for (size_t j = 0; j < d->nops; j++)
			if (d->ops[j].cls == TKA_COMM)
				x->ops[x->nops++] = d->ops[j];
		if (copy_spans(&x->comm, &d->comm) != TK_OK ||
		    copy_spans(&x->device_window, &d->device_window) != TK_OK ||
		    copy_spans(&x->step_window, &d->step_window) != TK_OK)
			return tka_fail(c, TK_ENOMEM, "out of memory");
	}
	return TK_OK;
}

void tka_split_timeline(struct tka_ctx *c)
{
	c->tl = c->split->keep;
	c->split->keep = NULL;
	for (size_t i = 0; i < c->tl->ndev; i++) {
		struct tka_device *d = &c->tl->dev[i];
		d->window = d->selected_steps ? &d->step_window : &d->device_window;
	}
}

struct tka_split *tka_split_new(void)
{
	struct tka_split *s = calloc(1, sizeof(*s));
	if (s && !(s->keep = calloc(1, sizeof(*s->keep)))) {
		free(s);
		s = NULL;
	}
	return s;
}

void tka_split_free(struct tka_split *s)
{
	if (!s)
		return;
	tka_timeline_free(s->keep);
	free(s->pdev);
	tka_kernel_stats_free(s->ks);
	free(s);
}

int tka_split_order(struct tka_ctx *c, int64_t rowid, int group)
{
	char sql[128];
	snprintf(sql, sizeof(sql), "INSERT INTO temp._tk_split_order VALUES (%lld, %d)",
		 (long long)rowid, group);
	return tka_exec(c, "the order of a part's rows", sql);
}

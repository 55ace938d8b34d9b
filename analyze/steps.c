/*
 * Steps (docs/metrics.md, "Steps"): for every step of each device (the steps of its process, or
 * on its own tracks, placed on the device by step_windows.c, with the host interval beside the
 * device one) the step's duration split exactly into compute, exposed communication,
 * exposed copies, host-bound idle and other idle (analysis_steps), and per device the step-time
 * statistics (mean, median, p90, stddev, MAD) with the outlier rule (analysis_step_stats).
 */
#include "intervals.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <tracekit/store.h>

struct step_out {
	int64_t busy, compute, comm, xcomm, xcopy, host_idle, other_idle;
};

static int add_idle(void *arg, const struct tka_gap *g)
{
	struct step_out *o = arg;
	if (g->cause == TKA_GAP_HOST)
		o->host_idle += g->end - g->start;
	else
		o->other_idle += g->end - g->start;
	return TK_OK;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return x < y ? -1 : x > y;
}

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static double median_dbl(const double *v, size_t n)
{
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

static double median_i64(int64_t *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_i64);
	return n % 2 ? (double)v[n / 2] : ((double)v[n / 2 - 1] + (double)v[n / 2]) / 2.0;
}

/* Bind the step statistics' source, host_steps, host_mean_ns, host_median_ns, lag_median_ns
 * from parameter @i on. */
static int host_stats(struct tka_ctx *c, sqlite3_stmt *sti, int i, const struct tka_device *d)
{
	size_t n = d->nsteps, nh = 0;
	int source = d->steps[0].source, mixed = 0;
	int64_t *host = malloc(n * sizeof(*host)), *lag = malloc(n * sizeof(*lag));
	double sum = 0;
	if (!host || !lag) {
		free(host);
		free(lag);
		return tka_fail(c, TK_ENOMEM, "out of memory");
	}
	for (size_t k = 0; k < n; k++) {
		const struct tka_step *s = &d->steps[k];
		mixed |= s->source != source;
		if (s->host_ts == TK_NONE)
			continue;
		host[nh] = s->host_end - s->host_ts;
		lag[nh] = s->ts - s->host_ts;
		sum += (double)host[nh++];
	}
	sqlite3_bind_text(sti, i++, mixed ? "mixed" : tka_step_source_name(source), -1,
			  SQLITE_STATIC);
	sqlite3_bind_int64(sti, i++, (int64_t)nh);
	if (nh) {
		sqlite3_bind_double(sti, i++, sum / (double)nh);
		sqlite3_bind_double(sti, i++, median_i64(host, nh));
		sqlite3_bind_double(sti, i++, median_i64(lag, nh));
	} else {
		for (int k = 0; k < 3; k++)
			sqlite3_bind_null(sti, i++);
	}
	free(host);
	free(lag);
	return TK_OK;
}

static int one_device(struct tka_ctx *c, sqlite3_stmt *ins, sqlite3_stmt *sti,
		      const struct tka_device *d)
{
	struct tka_spans xcomm = {0}, tmp = {0}, xcopy = {0};
	struct step_out *out = calloc(d->nsteps, sizeof(*out));
	int64_t *durs = malloc(d->nsteps * sizeof(*durs));
	double *dev = malloc(d->nsteps * sizeof(*dev));
	int rc = TK_OK;
	if (!out || !durs || !dev || tka_spans_minus(&d->comm, &d->compute, &xcomm) != TK_OK ||
	    tka_spans_minus(&d->copy, &d->compute, &tmp) != TK_OK ||
	    tka_spans_minus(&tmp, &d->comm, &xcopy) != TK_OK) {
		rc = tka_fail(c, TK_ENOMEM, "out of memory");
		goto out;
	}
	size_t n = d->nsteps;
	int64_t total = 0;
	for (size_t k = 0; k < n; k++) {
		const struct tka_step *s = &d->steps[k];
		struct step_out *o = &out[k];
		o->busy = tka_spans_len_in(&d->busy, s->ts, s->end);
		o->compute = tka_spans_len_in(&d->compute, s->ts, s->end);
		o->comm = tka_spans_len_in(&d->comm, s->ts, s->end);
		o->xcomm = tka_spans_len_in(&xcomm, s->ts, s->end);
		o->xcopy = tka_spans_len_in(&xcopy, s->ts, s->end);
		struct tka_span sp = {s->ts, s->end};
		struct tka_spans w = {&sp, s->end > s->ts ? 1 : 0, 1};
		if ((rc = tka_gaps_each(d, &w, add_idle, o)) != TK_OK)
			goto out;
		durs[k] = s->end - s->ts;
		total += durs[k];
	}
	qsort(durs, n, sizeof(*durs), cmp_i64);
	double mean = (double)total / (double)n, var = 0;
	for (size_t k = 0; k < n; k++)
		var += ((double)durs[k] - mean) * ((double)durs[k] - mean);
	double med = n % 2 ? (double)durs[n / 2] : ((double)durs[n / 2 - 1] + durs[n / 2]) / 2.0;
	for (size_t k = 0; k < n; k++)
		dev[k] = fabs((double)durs[k] - med);
	qsort(dev, n, sizeof(*dev), cmp_dbl);
	double mad = median_dbl(dev, n);
	double thr = med + 3.0 * (mad > med / 100.0 ? mad : med / 100.0);
	int64_t outliers = 0;
	for (size_t k = 0; k < n; k++) {
		const struct tka_step *s = &d->steps[k];
		const struct step_out *o = &out[k];
		int outlier = n >= 3 && (double)(s->end - s->ts) > thr;
		int64_t idle[2] = {o->host_idle, o->other_idle};
		outliers += outlier;
		int i = 1;
		sqlite3_reset(ins);
		sqlite3_bind_int64(ins, i++, d->device_id);
		sqlite3_bind_int64(ins, i++, s->event_id);
		if (s->step_num == TK_NONE)
			sqlite3_bind_null(ins, i++);
		else
			sqlite3_bind_int64(ins, i++, s->step_num);
		sqlite3_bind_int64(ins, i++, s->ts);
		sqlite3_bind_int64(ins, i++, s->end);
		sqlite3_bind_int64(ins, i++, s->end - s->ts);
		sqlite3_bind_int64(ins, i++, o->busy);
		sqlite3_bind_int64(ins, i++, o->compute);
		sqlite3_bind_int64(ins, i++, o->comm);
		sqlite3_bind_int64(ins, i++, o->xcomm);
		sqlite3_bind_int64(ins, i++, o->xcopy);
		sqlite3_bind_int64(ins, i++, idle[0]);
		sqlite3_bind_int64(ins, i++, idle[1]);
		sqlite3_bind_int(ins, i++, outlier);
		sqlite3_bind_text(ins, i++, tka_step_source_name(s->source), -1, SQLITE_STATIC);
		if (s->host_ts == TK_NONE) {
			for (int j = 0; j < 4; j++)
				sqlite3_bind_null(ins, i++);
		} else {
			sqlite3_bind_int64(ins, i++, s->host_ts);
			sqlite3_bind_int64(ins, i++, s->host_end);
			sqlite3_bind_int64(ins, i++, s->host_end - s->host_ts);
			sqlite3_bind_int64(ins, i++, s->ts - s->host_ts);
		}
		if (sqlite3_step(ins) != SQLITE_DONE) {
			rc = tka_fail(c, TK_EINTERNAL, "writing analysis_steps: %s",
				      sqlite3_errmsg(c->db));
			goto out;
		}
	}
	int i = 1;
	sqlite3_reset(sti);
	sqlite3_bind_int64(sti, i++, d->device_id);
	sqlite3_bind_int64(sti, i++, (int64_t)n);
	sqlite3_bind_int64(sti, i++, total);
	sqlite3_bind_double(sti, i++, mean);
	sqlite3_bind_double(sti, i++, med);
	sqlite3_bind_int64(sti, i++, durs[(9 * n + 9) / 10 - 1]);
	sqlite3_bind_double(sti, i++, sqrt(var / (double)n));
	sqlite3_bind_int64(sti, i++, durs[0]);
	sqlite3_bind_int64(sti, i++, durs[n - 1]);
	sqlite3_bind_double(sti, i++, mad);
	sqlite3_bind_double(sti, i++, thr);
	sqlite3_bind_int64(sti, i++, outliers);
	if ((rc = host_stats(c, sti, i, d)) != TK_OK)
		goto out;
	if (sqlite3_step(sti) != SQLITE_DONE)
		rc = tka_fail(c, TK_EINTERNAL, "writing analysis_step_stats: %s",
			      sqlite3_errmsg(c->db));
out:
	tka_spans_free(&xcomm);
	tka_spans_free(&tmp);
	tka_spans_free(&xcopy);
	free(out);
	free(durs);
	free(dev);
	return rc;
}

TKA_WRITES(TK_NCOLS_ANALYSIS_STEPS, 19, "analysis_steps");
TKA_WRITES(TK_NCOLS_ANALYSIS_STEP_STATS, 17, "analysis_step_stats");

int tka_steps(struct tka_ctx *c)
{
	const struct tka_timeline *tl;
	sqlite3_stmt *ins = NULL, *sti = NULL;
	int rc;
	if ((rc = tka_timeline_get(c, &tl)) != TK_OK ||
	    (rc = tka_prepare(c,
			      "INSERT INTO analysis_steps (" TK_COLS_ANALYSIS_STEPS
			      ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
			      &ins)) != TK_OK ||
	    (rc = tka_prepare(c,
			      "INSERT INTO analysis_step_stats (" TK_COLS_ANALYSIS_STEP_STATS
			      ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
			      &sti)) != TK_OK)
		goto out;
	for (size_t i = 0; i < tl->ndev && rc == TK_OK; i++)
		if (tl->dev[i].nsteps > 0)
			rc = one_device(c, ins, sti, &tl->dev[i]);
out:
	sqlite3_finalize(ins);
	sqlite3_finalize(sti);
	return rc;
}

/*
 * KPIs (docs/metrics.md, "KPIs"): per device the DESIGN.md table with its seed bands: GPU
 * utilization, kernel duration median, small-kernel share by count and by time, host overhead,
 * memory bandwidth achieved/peak, compilation time. Each row says its window and how it was
 * computed; a figure that cannot be known is band 'n-a' with the reason in note, and detail
 * holds the figures behind it (the population it is over, named, so that findings state the same
 * one). The compile events (what the source marks as compilation, TKA_COMPILE_NAME) and the
 * bytes accessed by device ops are collected by the shared pass over the events (event_pass.c).
 */
#include "intervals.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tracekit/store.h>

#include "util/sort.h"

#include "analyze_internal.h"

/* Compile intervals per process: (process_id, ts, end) and the event's name, host tracks only. */
struct cspan {
	int64_t pid, ts, end, name_id;
};

/* A name's share of some kernels or compile events: how many, and their time. */
struct name_count {
	int64_t name_id, n, ns;
};

#define TOP_NAMES 5 /* offenders named in detail.top */

/* An op of a device track that states the bytes it accessed (op_details.bytes_accessed). */
struct bytes_row {
	int64_t device_id, ts, dur, bytes;
	int kind;
};

/* What the pass over the events collects for the KPIs. */
struct tka_kpi_state {
	int64_t *compile; /* string ids of compile names (TKA_COMPILE_NAME), ascending */
	size_t ncompile, capcompile;
	int64_t *compile_cat; /* string ids equal to 'compile' (the category), ascending */
	size_t ncat, capcat;
	struct cspan *v; /* compile intervals on host tracks, by (process, start) */
	size_t n, cap;
	struct bytes_row *b; /* kernels and XLA ops with bytes accessed, in load order */
	size_t nb, capb;
};

struct kpi_writer {
	struct tka_ctx *c;
	sqlite3_stmt *ins;
	const struct tka_device *d;
};

/* Band of @v: higher is better when good_above, with the two thresholds lo < hi. */
static const char *band(double v, double lo, double hi, int higher_better)
{
	if (higher_better)
		return v > hi ? "good" : v >= lo ? "warning" : "bad";
	return v < lo ? "good" : v <= hi ? "warning" : "bad";
}

static int put(struct kpi_writer *kw, const char *kpi, int known, double value, const char *unit,
	       const char *bnd, const char *window, const char *note, const char *detail)
{
	sqlite3_stmt *ins = kw->ins;
	int i = 1;
	sqlite3_reset(ins);
	sqlite3_bind_int64(ins, i++, kw->d->device_id);
	sqlite3_bind_text(ins, i++, kpi, -1, SQLITE_STATIC);
	if (known)
		sqlite3_bind_double(ins, i++, value);
	else
		sqlite3_bind_null(ins, i++);
	sqlite3_bind_text(ins, i++, unit, -1, SQLITE_STATIC);
	sqlite3_bind_text(ins, i++, known ? bnd : "n-a", -1, SQLITE_STATIC);
	sqlite3_bind_text(ins, i++, window, -1, SQLITE_STATIC);
	sqlite3_bind_text(ins, i++, note, -1, SQLITE_TRANSIENT);
	if (known && detail)
		sqlite3_bind_text(ins, i++, detail, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(ins, i++);
	if (sqlite3_step(ins) != SQLITE_DONE)
		return tka_fail(kw->c, TK_EINTERNAL, "writing analysis_kpi: %s",
				sqlite3_errmsg(kw->c->db));
	return TK_OK;
}

static int add_host(void *arg, const struct tka_gap *g)
{
	if (g->cause == TKA_GAP_HOST)
		*(int64_t *)arg += g->end - g->start;
	return TK_OK;
}

/* The @k-th smallest of v[0..n) (0-based), partially reordering v (quickselect). */
static int64_t select_kth(int64_t *v, size_t n, size_t k)
{
	size_t lo = 0, hi = n - 1;
	while (lo < hi) {
		int64_t pivot = v[lo + (hi - lo) / 2];
		size_t i = lo, j = hi;
		while (i <= j) {
			while (v[i] < pivot)
				i++;
			while (v[j] > pivot)
				j--;
			if (i <= j) {
				int64_t t = v[i];
				v[i] = v[j];
				v[j] = t;
				i++;
				if (j == 0)
					break;
				j--;
			}
		}
		if (k <= j)
			hi = j;
		else if (k >= i)
			lo = i;
		else
			return v[k];
	}
	return v[k];
}

/* 1 when @ts lies in a span of @w (binary search). */
static int in_spans(const struct tka_spans *w, int64_t ts)
{
	size_t lo = 0, hi = w->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (w->v[mid].end <= ts)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < w->n && w->v[lo].start <= ts;
}

static int cmp_name_count(const void *pa, const void *pb)
{
	const struct name_count *a = pa, *b = pb;
	return (a->name_id > b->name_id) - (a->name_id < b->name_id);
}

#define NAME_BEFORE(a, b) ((a)->name_id < (b)->name_id)
TKU_SORT_DEFINE(sort_names, struct name_count, NAME_BEFORE)

/* Most first, then most time, then the lower string id. */
static int cmp_top(const void *pa, const void *pb)
{
	const struct name_count *a = pa, *b = pb;
	if (a->n != b->n)
		return a->n > b->n ? -1 : 1;
	if (a->ns != b->ns)
		return a->ns > b->ns ? -1 : 1;
	return (a->name_id > b->name_id) - (a->name_id < b->name_id);
}

/*
 * Append ',"top":[{"name_id":..,"n":..,"ns":..},...]' to @buf (of @cap bytes, NUL-terminated)
 * for the TOP_NAMES names of v[0..n) (one row per occurrence, reordered here) by cmp_top.
 */
static void append_top(char *buf, size_t cap, struct name_count *v, size_t n)
{
	size_t len = strlen(buf), m = 0;
	if (n > 1 && sort_names(v, n) != 0)
		qsort(v, n, sizeof(*v), cmp_name_count);
	for (size_t i = 0; i < n; i++) { /* fold equal names in place */
		if (m && v[m - 1].name_id == v[i].name_id) {
			v[m - 1].n += v[i].n;
			v[m - 1].ns += v[i].ns;
		} else {
			v[m++] = v[i];
		}
	}
	if (m > 1)
		qsort(v, m, sizeof(*v), cmp_top);
	len += (size_t)snprintf(buf + len, cap - len, ",\"top\":[");
	for (size_t i = 0; i < m && i < TOP_NAMES && len < cap; i++)
		len += (size_t)snprintf(
		    buf + len, cap - len, "%s{\"name_id\":%lld,\"n\":%lld,\"ns\":%lld}",
		    i ? "," : "", (long long)v[i].name_id, (long long)v[i].n, (long long)v[i].ns);
	if (len < cap)
		snprintf(buf + len, cap - len, "]");
}

/*
 * Kernel duration median and small-kernel shares over one population: the device's kernels (XLA
 * ops) starting in the selected window; detail names it and the small ones' top names.
 */
static int kernel_kpis(struct kpi_writer *kw, const char *win)
{
	const struct tka_device *d = kw->d;
	int64_t thr = kw->c->opt->small_kernel_ns, n = 0, small = 0, total = 0, small_t = 0;
	size_t cap = d->nops ? d->nops : 1;
	int64_t *durs = malloc(cap * sizeof(*durs));
	struct name_count *names = malloc(cap * sizeof(*names)); /* one per small kernel */
	int kind = d->nops && d->ops[0].kind == TK_EV_XLA_OP ? TK_EV_XLA_OP : TK_EV_KERNEL;
	const char *what = kind == TK_EV_XLA_OP ? "XLA ops" : "kernels";
	char note[320], detail[1024];
	int rc;
	if (!durs || !names) {
		free(durs);
		free(names);
		return tka_fail(kw->c, TK_ENOMEM, "out of memory");
	}
	for (size_t k = 0; k < d->nops; k++) {
		const struct tka_op *op = &d->ops[k];
		if (op->kind != kind || !in_spans(d->window, op->ts))
			continue;
		int64_t dur = op->end - op->ts;
		durs[n++] = dur;
		total += dur;
		if (dur < thr) {
			names[small] = (struct name_count){op->name_id, 1, dur};
			small++;
			small_t += dur;
		}
	}
	snprintf(detail, sizeof(detail),
		 "{\"population\":\"%s starting in the %s window\",\"kernels\":%lld,"
		 "\"kernels_ns\":%lld",
		 what, win, (long long)n, (long long)total);
	if (n > 0) {
		double med = (double)select_kth(durs, (size_t)n, (size_t)n / 2);
		if (n % 2 == 0) { /* the largest of the lower half is the other middle value */
			int64_t lower = durs[0];
			for (int64_t k = 1; k < n / 2; k++)
				lower = durs[k] > lower ? durs[k] : lower;
			med = ((double)lower + med) / 2.0;
		}
		snprintf(note, sizeof(note),
			 "median duration of the %lld %s starting in the window; good > 1 ms, "
			 "warning 0.1-1 ms, bad < 0.1 ms",
			 (long long)n, what);
		strcat(detail, "}");
		rc = put(kw, "kernel_duration_median", 1, med, "ns", band(med, 1e5, 1e6, 1), win,
			 note, detail);
		detail[strlen(detail) - 1] = 0;
	} else {
		snprintf(note, sizeof(note), "n/a: no %s start in the window", what);
		rc = put(kw, "kernel_duration_median", 0, 0, "ns", NULL, win, note, NULL);
	}
	size_t len = strlen(detail);
	snprintf(detail + len, sizeof(detail) - len,
		 ",\"small\":%lld,\"small_ns\":%lld,\"threshold_ns\":%lld", (long long)small,
		 (long long)small_t, (long long)thr);
	append_top(detail, sizeof(detail) - 1, names, (size_t)small);
	strcat(detail, "}");
	if (rc == TK_OK) {
		snprintf(note, sizeof(note),
			 "%lld of %lld %s shorter than %lld ns (--small-kernel-us); no seed band",
			 (long long)small, (long long)n, what, (long long)thr);
		rc = put(kw, "small_kernel_share_count", n > 0, n ? 100.0 * small / n : 0, "%",
			 "n-a", win, n ? note : "n/a: no kernels in the window", detail);
	}
	if (rc == TK_OK) {
		snprintf(note, sizeof(note),
			 "%lld of %lld ns of %s time is in %s shorter than %lld ns; no seed band",
			 (long long)small_t, (long long)total, what, what, (long long)thr);
		rc = put(kw, "small_kernel_share_time", total > 0,
			 total ? 100.0 * (double)small_t / (double)total : 0, "%", "n-a", win,
			 total ? note : "n/a: no kernel time in the window", detail);
	}
	free(durs);
	free(names);
	return rc;
}

/*
 * No op states its bytes: the perf model's bytes (PyTorch ops with recorded shapes; a lower
 * bound) over the device time those ops launched, over the whole trace (the model's figures are
 * per op group, not per window).
 */
static int model_bandwidth_kpi(struct kpi_writer *kw, const struct tka_device_peak *dp)
{
	int64_t bytes, ns;
	char note[400], detail[320];
	int rc = tka_op_perf_bandwidth(kw->c, kw->d->device_id, &bytes, &ns);
	if (rc != TK_OK)
		return rc;
	if (ns <= 0)
		return put(
		    kw, "memory_bandwidth", 0, 0, "%", NULL, "trace",
		    "n/a: no op states the bytes it accessed and no op has a performance model "
		    "(record_shapes off, or no modelled op launched device work)",
		    NULL);
	double achieved = (double)bytes * 1e9 / (double)ns;
	double v = 100.0 * achieved / (double)dp->bandwidth_bps;
	snprintf(
	    note, sizeof(note),
	    "%lld bytes moved by the modelled ops (perf model, a lower bound) in the %lld ns of "
	    "device time they launched = %.6g B/s of %lld B/s peak (%s); good > 60%%, warning "
	    "40-60%%, bad < 40%%",
	    (long long)bytes, (long long)ns, achieved, (long long)dp->bandwidth_bps,
	    dp->bandwidth_source);
	snprintf(detail, sizeof(detail),
		 "{\"population\":\"device time launched by modelled ops (analysis_op_perf), whole "
		 "trace\",\"bytes\":%lld,\"ns\":%lld,\"peak_bps\":%lld,\"peak_source\":\"%s\","
		 "\"source\":\"perf_model\"}",
		 (long long)bytes, (long long)ns, (long long)dp->bandwidth_bps,
		 dp->bandwidth_source);
	return put(kw, "memory_bandwidth", 1, v, "%", band(v, 40, 60, 1), "trace", note, detail);
}

/*
 * compute_throughput: the modelled FLOPs' share of what the device could do in the time they
 * took, each op group against the dense peak of its dtype: sum(flops / peak) / sum(device_ns)
 * over the device's rows of analysis_roofline with a known peak (model FLOP/s utilisation).
 */
static int compute_kpi(struct kpi_writer *kw)
{
	sqlite3_stmt *st = NULL;
	char note[400], detail[320];
	int rc = tka_prepare(kw->c,
			     "SELECT sum(flops / peak_flops), sum(device_ns), count(*), sum(flops) "
			     "FROM analysis_roofline WHERE device_id = ?1 AND peak_flops > 0 AND "
			     "flops > 0",
			     &st);
	if (rc != TK_OK)
		return rc;
	sqlite3_bind_int64(st, 1, kw->d->device_id);
	if (sqlite3_step(st) != SQLITE_ROW) {
		rc = tka_fail(kw->c, tka_sql_status(kw->c), "reading analysis_roofline: %s",
			      sqlite3_errmsg(kw->c->db));
		sqlite3_finalize(st);
		return rc;
	}
	double peak_s = sqlite3_column_double(st, 0);
	int64_t ns = sqlite3_column_int64(st, 1), groups = sqlite3_column_int64(st, 2),
		flops = sqlite3_column_int64(st, 3);
	sqlite3_finalize(st);
	if (groups == 0 || ns <= 0)
		return put(
		    kw, "compute_throughput", 0, 0, "%", NULL, "trace",
		    "n/a: no modelled op with FLOPs ran on the device with a known peak for its "
		    "dtype (record_shapes off, no modelled op, or peak unknown)",
		    NULL);
	double v = 100.0 * peak_s * 1e9 / (double)ns;
	snprintf(
	    note, sizeof(note),
	    "%lld FLOPs of %lld modelled op groups in the %lld ns of device time they launched, "
	    "each against the dense peak of its dtype = %.4g %% of peak; good > 50%%, warning "
	    "30-50%%, bad < 30%%",
	    (long long)flops, (long long)groups, (long long)ns, v);
	snprintf(detail, sizeof(detail),
		 "{\"population\":\"op groups of analysis_roofline with FLOPs and a known peak, "
		 "whole trace\",\"groups\":%lld,\"flops\":%lld,\"ns\":%lld,\"peak_seconds\":%.9g}",
		 (long long)groups, (long long)flops, (long long)ns, peak_s);
	return put(kw, "compute_throughput", 1, v, "%", band(v, 30, 50, 1), "trace", note, detail);
}

/* Achieved / peak memory bandwidth from the bytes_accessed of the device's ops; the peak is the
 * resolved one (analysis_device_peaks: user, trace or table). */
static int bandwidth_kpi(struct kpi_writer *kw, const char *win)
{
	const struct tka_device *d = kw->d;
	int kind = d->nops && d->ops[0].kind == TK_EV_XLA_OP ? TK_EV_XLA_OP : TK_EV_KERNEL;
	int64_t peak = 0, bytes = 0, time = 0, n = 0;
	char note[320], detail[320];
	struct tka_device_peak dp;
	int rc = tka_device_peak(kw->c, d->device_id, &dp);
	if (rc != TK_OK)
		return rc;
	peak = dp.bandwidth_bps;
	const struct tka_kpi_state *s = kw->c->kpi;
	for (size_t i = 0; i < s->nb; i++) {
		const struct bytes_row *r = &s->b[i];
		if (r->device_id != d->device_id || r->kind != kind || r->dur <= 0 ||
		    !in_spans(d->window, r->ts))
			continue;
		bytes += r->bytes;
		time += r->dur;
		n++;
	}
	if (peak <= 0)
		return put(kw, "memory_bandwidth", 0, 0, "%", NULL, win,
			   "n/a: the device's peak memory bandwidth is unknown", NULL);
	if (n == 0)
		return model_bandwidth_kpi(kw, &dp);
	double achieved = (double)bytes * 1e9 / (double)time; /* bytes per second */
	double v = 100.0 * achieved / (double)peak;
	snprintf(note, sizeof(note),
		 "%lld bytes accessed by %lld %s in %lld ns of their time = %.6g B/s of %lld B/s "
		 "peak (%s); good > 60%%, warning 40-60%%, bad < 40%%",
		 (long long)bytes, (long long)n, kind == TK_EV_XLA_OP ? "XLA ops" : "kernels",
		 (long long)time, achieved, (long long)peak, dp.bandwidth_source);
	snprintf(detail, sizeof(detail),
		 "{\"population\":\"%s starting in the %s window that state their bytes "
		 "accessed\",\"ops\":%lld,\"bytes\":%lld,\"ns\":%lld,\"peak_bps\":%lld,"
		 "\"peak_source\":\"%s\"}",
		 kind == TK_EV_XLA_OP ? "XLA ops" : "kernels", win, (long long)n, (long long)bytes,
		 (long long)time, (long long)peak, dp.bandwidth_source);
	return put(kw, "memory_bandwidth", 1, v, "%", band(v, 40, 60, 1), win, note, detail);
}

static int cmp_cspan(const void *pa, const void *pb)
{
	const struct cspan *a = pa, *b = pb;
	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	return a->ts < b->ts ? -1 : a->ts > b->ts;
}

void tka_kpi_free(struct tka_kpi_state *s)
{
	if (!s)
		return;
	free(s->compile);
	free(s->compile_cat);
	free(s->v);
	free(s->b);
	free(s);
}

/* Append @id to the ascending list *v of *n (capacity *cap). */
static int push_id(int64_t **v, size_t *n, size_t *cap, int64_t id)
{
	if (TKU_GROW(*v, *cap, *n + 1, 16) != TK_OK)
		return TK_ENOMEM;
	(*v)[(*n)++] = id;
	return TK_OK;
}

/* The string ids of compile names and of the category 'compile' (docs: "Compile events"). */
int tka_kpi_begin(struct tka_ctx *c)
{
	struct tka_kpi_state *s = calloc(1, sizeof(*s));
	sqlite3_stmt *st = NULL;
	int rc, step = SQLITE_DONE;
	if (!s)
		return tka_fail(c, TK_ENOMEM, "out of memory");
	c->kpi = s;
	c->pass->want_op_details = 1;
	/* Lists, not a flag per id: memory follows the matching rows, whatever their ids. */
	rc = tka_prepare(
	    c,
	    "SELECT id, " TKA_COMPILE_NAME("str") ", str = 'compile' FROM strings "
						  "WHERE " TKA_COMPILE_NAME(
						      "str") " OR str = 'compile' ORDER BY id",
	    &st);
	while (rc == TK_OK && (step = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(st, 0);
		if ((sqlite3_column_int(st, 1) &&
		     push_id(&s->compile, &s->ncompile, &s->capcompile, id) != TK_OK) ||
		    (sqlite3_column_int(st, 2) &&
		     push_id(&s->compile_cat, &s->ncat, &s->capcat, id) != TK_OK))
			rc = tka_fail(c, TK_ENOMEM, "out of memory");
	}
	if (rc == TK_OK && step != SQLITE_DONE)
		rc = tka_fail(c, TK_EINTERNAL, "reading strings: %s", sqlite3_errmsg(c->db));
	sqlite3_finalize(st);
	return rc;
}

/* 1 when @id is in the ascending list v[0..n). */
static int has_id(const int64_t *v, size_t n, int64_t id)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (v[mid] == id)
			return 1;
		if (v[mid] < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

/* A kernel or XLA op on a device track that states its bytes accessed: keep it. */
static int bytes_event(struct tka_ctx *c, struct tka_kpi_state *s, const struct tka_ev *e)
{
	if (TKU_GROW(s->b, s->capb, s->nb + 1, 256) != TK_OK)
		return tka_fail(c, TK_ENOMEM, "out of memory");
	struct bytes_row *r = &s->b[s->nb++];
	r->device_id = c->pass->tracks[e->track].device_id;
	r->ts = e->ts;
	r->dur = e->dur;
	r->bytes = e->op_bytes;
	r->kind = e->kind;
	return TK_OK;
}

/*
 * An event with a compile name or category on a host track: its process and interval; a
 * kernel or XLA op of a device track with bytes accessed: the memory bandwidth's input.
 */
int tka_kpi_event(struct tka_ctx *c, const struct tka_ev *e)
{
	struct tka_kpi_state *s = c->kpi;
	if (e->track < 1 || e->track > c->pass->ntracks || !c->pass->tracks[e->track].exists)
		return TK_OK;
	const struct tka_track *t = &c->pass->tracks[e->track];
	if (e->has_op && e->op_bytes != TK_NONE && t->device_id != TK_NONE &&
	    (e->kind == TK_EV_KERNEL || e->kind == TK_EV_XLA_OP))
		return bytes_event(c, s, e);
	if (t->device_id != TK_NONE ||
	    !(e->kind == TK_EV_HOST_OP || e->kind == TK_EV_ANNOTATION ||
	      e->kind == TK_EV_FRAMEWORK_OP || e->kind == TK_EV_OTHER) ||
	    !(has_id(s->compile, s->ncompile, e->name_id) ||
	      (e->cat_id && has_id(s->compile_cat, s->ncat, e->cat_id))))
		return TK_OK;
	if (TKU_GROW(s->v, s->cap, s->n + 1, 64) != TK_OK)
		return tka_fail(c, TK_ENOMEM, "out of memory");
	s->v[s->n].pid = t->process_id;
	s->v[s->n].ts = e->ts;
	s->v[s->n].end = e->ts + e->dur;
	s->v[s->n].name_id = e->name_id;
	s->n++;
	return TK_OK;
}

int tka_kpi_end(struct tka_ctx *c)
{
	struct tka_kpi_state *s = c->kpi;
	if (s->n > 1)
		qsort(s->v, s->n, sizeof(*s->v), cmp_cspan);
	return TK_OK;
}

/*
 * compilation_time: the union of the compile events of the device's process (every process
 * when the device has none); detail: the events, the union's part in the selected window and
 * the names of the events overlapping it (by their time inside it).
 */
static int compile_kpi(struct kpi_writer *kw, const struct cspan *v, size_t n)
{
	const struct tka_device *d = kw->d;
	struct tka_spans u = {0};
	struct cspan *mine = malloc((n ? n : 1) * sizeof(*mine));
	struct name_count *names = malloc((n ? n : 1) * sizeof(*names));
	char note[320], detail[1024];
	size_t events = 0, inside_n = 0;
	int rc = TK_OK;
	if (!mine || !names) {
		rc = tka_fail(kw->c, TK_ENOMEM, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < n; i++) /* v is sorted by (process, start) */
		if (d->process_id == TK_NONE || v[i].pid == d->process_id)
			mine[events++] = v[i];
	if (d->process_id == TK_NONE) /* several processes: back into time order */
		for (size_t i = 0; i < events; i++)
			mine[i].pid = 0;
	if (d->process_id == TK_NONE && events > 1)
		qsort(mine, events, sizeof(*mine), cmp_cspan);
	for (size_t i = 0; i < events; i++) {
		int64_t in = tka_spans_len_in(d->window, mine[i].ts, mine[i].end);
		if (tka_spans_add(&u, mine[i].ts, mine[i].end) != TK_OK) {
			rc = tka_fail(kw->c, TK_ENOMEM, "out of memory");
			goto out;
		}
		if (in > 0 || (mine[i].ts == mine[i].end && in_spans(d->window, mine[i].ts)))
			names[inside_n++] = (struct name_count){mine[i].name_id, 1, in};
	}
	if (events == 0) {
		rc = put(kw, "compilation_time", 0, 0, "ns", NULL, "trace",
			 n ? "n/a: no compile events in this device's process"
			   : "n/a: the trace has no compile events",
			 NULL);
		goto out;
	}
	int64_t total = tka_spans_len(&u), inside = tka_spans_overlap(&u, d->window);
	const char *who = d->process_id == TK_NONE ? "all processes" : "the device's process";
	snprintf(note, sizeof(note),
		 "union of %zu compile events (%s) on the host; %lld ns of it inside the %s "
		 "window; good < 2 s, warning 2-10 s, bad > 10 s",
		 events, who, (long long)inside, tka_window_name(d));
	snprintf(detail, sizeof(detail),
		 "{\"population\":\"compile events of %s\",\"events\":%zu,\"total_ns\":%lld,"
		 "\"window\":\"%s\",\"events_in_window\":%zu,\"in_window_ns\":%lld",
		 who, events, (long long)total, tka_window_name(d), inside_n, (long long)inside);
	append_top(detail, sizeof(detail) - 1, names, inside_n);
	strcat(detail, "}");
	rc = put(kw, "compilation_time", 1, (double)total, "ns", band((double)total, 2e9, 1e10, 0),
		 "trace", note, detail);
out:
	tka_spans_free(&u);
	free(mine);
	free(names);
	return rc;
}

TKA_WRITES(TK_NCOLS_ANALYSIS_KPI, 8, "analysis_kpi");

int tka_kpi(struct tka_ctx *c)
{
	const struct tka_timeline *tl;
	sqlite3_stmt *ins = NULL;
	int rc;
	char note[256];
	if (c->split_end) /* a part without compile events, in a job with some elsewhere */
		return c->split->compile_events == 0
			   ? TK_OK
			   : tka_exec(c, "kpi",
				      "UPDATE analysis_kpi SET note = 'n/a: no compile events in "
				      "this device''s process' WHERE kpi = 'compilation_time' AND "
				      "note = 'n/a: the trace has no compile events'");
	if ((rc = tka_timeline_get(c, &tl)) != TK_OK ||
	    (rc = tka_prepare(c,
			      "INSERT INTO analysis_kpi (" TK_COLS_ANALYSIS_KPI
			      ") VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
			      &ins)) != TK_OK ||
	    (rc = tka_pass_run(c)) != TK_OK)
		goto out;
	const struct tka_kpi_state *cs = c->kpi;
	for (size_t i = 0; i < tl->ndev; i++) {
		const struct tka_device *d = &tl->dev[i];
		struct kpi_writer kw = {c, ins, d};
		const char *win = tka_window_name(d);
		int64_t w = tka_spans_len(d->window), busy = tka_spans_overlap(&d->busy, d->window);
		int64_t host = 0;
		if ((rc = tka_gaps_each(d, d->window, add_host, &host)) != TK_OK)
			goto out;
		double util = w ? 100.0 * (double)busy / (double)w : 0;
		snprintf(
		    note, sizeof(note),
		    "busy %lld ns of a %lld ns window; good > 80%%, warning 50-80%%, bad < 50%%",
		    (long long)busy, (long long)w);
		if ((rc = put(&kw, "gpu_utilization", w > 0, util, "%", band(util, 50, 80, 1), win,
			      w ? note : "n/a: empty window", NULL)) != TK_OK ||
		    (rc = kernel_kpis(&kw, win)) != TK_OK)
			goto out;
		double ho = w ? 100.0 * (double)host / (double)w : 0;
		snprintf(
		    note, sizeof(note),
		    "host-bound idle %lld ns of a %lld ns window; good < 10%%, warning 10-20%%, "
		    "bad > 20%%",
		    (long long)host, (long long)w);
		if ((rc = put(&kw, "host_overhead", w > 0, ho, "%", band(ho, 10, 20, 0), win,
			      w ? note : "n/a: empty window", NULL)) != TK_OK ||
		    (rc = bandwidth_kpi(&kw, win)) != TK_OK || (rc = compute_kpi(&kw)) != TK_OK ||
		    (rc = compile_kpi(&kw, cs->v, cs->n)) != TK_OK)
			goto out;
	}
	/* detail.top names its ops by name, not by store id: readable in SQL, and the same after
	 * an export and re-import (ids are renumbered) */
	rc =
	    tka_exec(c, "naming the KPI offenders",
		     "UPDATE analysis_kpi SET detail = json_set(detail, '$.top', (SELECT "
		     "json_group_array(json(x)) FROM (SELECT json_object('name', (SELECT str FROM "
		     "strings WHERE id = json_extract(j.value, '$.name_id')), 'n', "
		     "json_extract(j.value, '$.n'), 'ns', json_extract(j.value, '$.ns')) AS x FROM "
		     "json_each(detail, '$.top') j ORDER BY j.key))) "
		     "WHERE json_valid(detail) AND json_type(detail, '$.top') = 'array' AND "
		     "device_id BETWEEN " TKA_SQL_DEV_LO " AND " TKA_SQL_DEV_HI);
	if (rc == TK_OK && c->part)
		c->split->compile_events += (int64_t)cs->n;
out:
	sqlite3_finalize(ins);
	return rc;
}

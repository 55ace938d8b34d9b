/*
 * The roofline chart of the HTML report (docs/reports.md, "Roofline"): per device, a log-log SVG
 * of achieved FLOP/s against arithmetic intensity (FLOP per byte moved), the device's roofs
 * (memory bandwidth × intensity up to the peak FLOP/s of each dtype it has a peak for) and one
 * point per modelled op group, its area proportional to its device time, coloured by category.
 * Data: the "roofline" section (the top op groups with a model and a peak) and the "chart_roofs"
 * section (the peaks); both capped, so the chart's size is bounded whatever the trace.
 */
#include "report_internal.h"

#include <math.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#define RW 960		 /* chart width in SVG units */
#define RH 420		 /* chart height */
#define LEFT 80		 /* plot area */
#define RIGHT (RW - 190) /* the legend sits right of the plot */
#define TOP 30
#define BASE (RH - 40)
#define MAX_DEVICES 8 /* charts drawn, one per device */

/* Colours by category (the names of docs/metrics.md, "Categories"); anything else is grey. */
static const struct {
	const char *name, *colour;
} cat_colour[] = {
    {"gemm", "#4e79a7"}, {"conv", "#f28e2b"},	     {"attention", "#e15759"},
    {"norm", "#76b7b2"}, {"elementwise", "#59a14f"}, {"reduction", "#edc948"},
    {"comm", "#b07aa1"}, {"memcpy", "#9c755f"},	     {"memset", "#bab0ac"},
};
#define NCAT (sizeof(cat_colour) / sizeof(cat_colour[0]))

static const char *colour_of(const char *cat)
{
	for (size_t i = 0; cat && i < NCAT; i++)
		if (!strcmp(cat, cat_colour[i].name))
			return cat_colour[i].colour;
	return "#8c8c8c";
}

/* The axis ranges: decades that hold every point and every roof's ridge. */
struct axes {
	double x0, x1, y0, y1; /* log10 of the ranges */
};

static double px(const struct axes *a, double x)
{
	return LEFT + (log10(x) - a->x0) / (a->x1 - a->x0) * (RIGHT - LEFT);
}

static double py(const struct axes *a, double y)
{
	return BASE - (log10(y) - a->y0) / (a->y1 - a->y0) * (BASE - TOP);
}

static void widen(double *lo, double *hi, double v)
{
	if (!(v > 0) || !isfinite(v))
		return;
	double l = log10(v);
	*lo = l < *lo ? l : *lo;
	*hi = l > *hi ? l : *hi;
}

static void text(struct tku_buf *b, double x, double y, const char *anchor, const char *s)
{
	tku_printf(b, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\">", x, y, anchor);
	tku_esc_html(b, s);
	tku_puts(b, "</text>\n");
}

/* "1e12" as "1 T", for the axis labels. */
static void si(char *out, size_t n, double v, const char *unit)
{
	static const char *const pre[] = {"", "k", "M", "G", "T", "P", "E"};
	int k = 0;
	while (k < 6 && v >= 1000) {
		v /= 1000;
		k++;
	}
	if (v < 1 && v > 0)
		snprintf(out, n, "%g %s", v, unit);
	else
		snprintf(out, n, "%g %s%s", v, pre[k], unit);
}

static void grid(struct tku_buf *b, const struct axes *a)
{
	char lab[32];
	for (int d = (int)a->x0; d <= (int)a->x1; d++) {
		double x = px(a, pow(10, d));
		tku_printf(b,
			   "<line class=\"grid\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\"/>\n",
			   x, TOP, x, BASE);
		snprintf(lab, sizeof(lab), "%g", pow(10, d));
		text(b, x, BASE + 14, "middle", lab);
	}
	for (int d = (int)a->y0; d <= (int)a->y1; d++) {
		double y = py(a, pow(10, d));
		tku_printf(b,
			   "<line class=\"grid\" x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\"/>\n",
			   LEFT, y, RIGHT, y);
		si(lab, sizeof(lab), pow(10, d), "FLOP/s");
		text(b, LEFT - 6, y + 4, "end", lab);
	}
	tku_printf(b, "<line class=\"axis\" x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>\n", LEFT,
		   BASE, RIGHT, BASE);
	text(b, (LEFT + RIGHT) / 2.0, RH - 8, "middle", "arithmetic intensity (FLOP per byte)");
}

/* The roofs of @dev: the bandwidth slope up to each dtype's peak, then flat. */
static void roofs(struct tku_buf *b, const struct axes *a, const struct tkr_section *r, int64_t dev)
{
	int cd = tkr_col(r, "device_id"), ct = tkr_col(r, "dtype"), cf = tkr_col(r, "peak_flops"),
	    cb = tkr_col(r, "peak_bandwidth_bps");
	double xmax = pow(10, a->x1), xmin = pow(10, a->x0);
	for (size_t k = 0; k < r->nrows; k++) {
		if (tkr_cell(r, k, cd)->i != dev)
			continue;
		double peak = tkr_num(tkr_cell(r, k, cf)), bw = tkr_num(tkr_cell(r, k, cb));
		const struct tkr_cell *t = tkr_cell(r, k, ct);
		if (!(peak > 0) || !isfinite(peak))
			continue;
		char lab[64];
		si(lab, sizeof(lab), peak, "FLOP/s");
		if (bw > 0 && isfinite(bw)) {
			double ridge = peak / bw, x0 = xmin;
			if (ridge < xmin)
				ridge = xmin;
			tku_printf(
			    b,
			    "<polyline class=\"roof\" fill=\"none\" stroke=\"#333\" "
			    "stroke-width=\"1.5\" points=\"%.1f,%.1f %.1f,%.1f %.1f,%.1f\"/>\n",
			    px(a, x0), py(a, bw * x0 > peak ? peak : bw * x0), px(a, ridge),
			    py(a, peak), px(a, xmax), py(a, peak));
		} else {
			tku_printf(b,
				   "<line class=\"roof\" stroke=\"#333\" stroke-width=\"1.5\" "
				   "x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n",
				   px(a, xmin), py(a, peak), px(a, xmax), py(a, peak));
		}
		struct tku_buf l = {0};
		tku_printf(&l, "%s peak %s", t->type == SQLITE_TEXT ? t->s : "", lab);
		text(b, RIGHT - 4, py(a, peak) - 4, "end", l.p ? l.p : "");
		b->oom |= l.oom;
		free(l.p);
	}
}

/* One device's chart; 0 when it has nothing to draw. */
static int device_chart(struct tku_buf *b, const struct tkr_model *m, const struct tkr_section *p,
			const struct tkr_section *r, int64_t dev)
{
	int cd = tkr_col(p, "device_id"), ci = tkr_col(p, "intensity"),
	    cf = tkr_col(p, "achieved_flops"), cn = tkr_col(p, "device_ns"),
	    cc = tkr_col(p, "category"), cl = tkr_col(p, "name");
	int rd = tkr_col(r, "device_id"), rf = tkr_col(r, "peak_flops"),
	    rb = tkr_col(r, "peak_bandwidth_bps");
	struct axes a = {INFINITY, -INFINITY, INFINITY, -INFINITY};
	double max_ns = 0;
	size_t points = 0;
	for (size_t k = 0; k < p->nrows; k++) {
		double x = tkr_num(tkr_cell(p, k, ci)), y = tkr_num(tkr_cell(p, k, cf));
		if (tkr_cell(p, k, cd)->i != dev || !(x > 0) || !(y > 0) || !isfinite(x) ||
		    !isfinite(y))
			continue;
		widen(&a.x0, &a.x1, x);
		widen(&a.y0, &a.y1, y);
		double ns = tkr_num(tkr_cell(p, k, cn));
		max_ns = ns > max_ns ? ns : max_ns;
		points++;
	}
	if (!points)
		return 0;
	for (size_t k = 0; k < r->nrows; k++) {
		if (tkr_cell(r, k, rd)->i != dev)
			continue;
		double peak = tkr_num(tkr_cell(r, k, rf)), bw = tkr_num(tkr_cell(r, k, rb));
		widen(&a.y0, &a.y1, peak);
		if (peak > 0 && bw > 0)
			widen(&a.x0, &a.x1, peak / bw);
	}
	a.x0 = floor(a.x0) - (a.x1 - a.x0 < 1);
	a.x1 = ceil(a.x1) + 1;
	a.y0 = floor(a.y0) - 1;
	a.y1 = ceil(a.y1);
	if (a.y1 <= a.y0)
		a.y1 = a.y0 + 1;
	struct tku_buf id = {0}, label = {0};
	tku_printf(&id, "roofline-%lld", (long long)dev);
	tkr_id_label(&label, m, 0, dev);
	tku_printf(b,
		   "<svg class=\"chart\" id=\"chart-%s\" viewBox=\"0 0 %d %d\" width=\"%d\" "
		   "height=\"%d\" role=\"img\" aria-label=\"roofline of ",
		   id.p ? id.p : "roofline", RW, RH, RW, RH);
	tku_esc_html(b, label.p ? label.p : "");
	tku_puts(b, "\" xmlns=\"http://www.w3.org/2000/svg\">\n");
	struct tku_buf title = {0};
	tku_printf(&title, "roofline of %s: achieved FLOP/s of each op group; area = device time",
		   label.p ? label.p : "");
	text(b, LEFT, 16, "start", title.p ? title.p : "");
	grid(b, &a);
	const double ly = TOP;
	roofs(b, &a, r, dev);
	for (size_t k = 0; k < p->nrows; k++) {
		double x = tkr_num(tkr_cell(p, k, ci)), y = tkr_num(tkr_cell(p, k, cf));
		if (tkr_cell(p, k, cd)->i != dev || !(x > 0) || !(y > 0) || !isfinite(x) ||
		    !isfinite(y))
			continue;
		const struct tkr_cell *cat = tkr_cell(p, k, cc), *nm = tkr_cell(p, k, cl);
		const char *cs = cat->type == SQLITE_TEXT ? cat->s : NULL;
		double ns = tkr_num(tkr_cell(p, k, cn));
		double rad = max_ns > 0 && ns > 0 ? 3 + 12 * sqrt(ns / max_ns) : 3;
		struct tku_buf t = {0};
		tku_fmt_ns(&t, ns > 0 ? ns : 0);
		tku_printf(b,
			   "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\" fill=\"%s\" "
			   "fill-opacity=\"0.7\"><title>",
			   px(&a, x), py(&a, y), rad, colour_of(cs));
		tku_esc_html(b, nm->type == SQLITE_TEXT ? nm->s : "");
		tku_puts(b, " (");
		tku_esc_html(b, cs ? cs : "other");
		tku_puts(b, "): ");
		tku_esc_html(b, t.p ? t.p : "");
		tku_puts(b, "</title></circle>\n");
		b->oom |= t.oom;
		free(t.p);
	}
	for (size_t i = 0; i < NCAT; i++) { /* the legend */
		tku_printf(b, "<circle cx=\"%d\" cy=\"%.1f\" r=\"5\" fill=\"%s\"/>\n", RIGHT + 20,
			   ly + 14.0 * (double)i, cat_colour[i].colour);
		text(b, RIGHT + 30, ly + 14.0 * (double)i + 4, "start", cat_colour[i].name);
	}
	tku_puts(b, "</svg>\n");
	b->oom |= id.oom | label.oom | title.oom;
	free(id.p);
	free(label.p);
	free(title.p);
	return 1;
}

void tkr_html_roofline(struct tku_buf *b, const struct tkr_model *m)
{
	const struct tkr_section *p = tkr_find(m, "roofline"), *r = tkr_find(m, "chart_roofs");
	if (!p || !r || !p->nrows || tkr_col(p, "device_id") < 0 || tkr_col(r, "device_id") < 0)
		return;
	int cd = tkr_col(p, "device_id");
	int64_t done[MAX_DEVICES];
	size_t nd = 0;
	for (size_t k = 0; k < p->nrows && nd < MAX_DEVICES; k++) {
		int64_t dev = tkr_cell(p, k, cd)->i;
		int seen = 0;
		for (size_t i = 0; i < nd && !seen; i++)
			seen = done[i] == dev;
		if (seen)
			continue;
		done[nd++] = dev;
		device_chart(b, m, p, r, dev);
	}
}

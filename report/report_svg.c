/*
 * The inline SVG charts of the HTML report: the device timeline at the top (binned busy time, one
 * area per device, bins busy under 10% marked idle), top ops and kernels (bars), memory in use over time with each series' peak
 * marked, the idle-gap length histogram (stacked by cause), step times (outliers marked) and
 * launch queue length over time.
 * Every chart is drawn from data the model already holds, downsampled there, so its size is
 * bounded whatever the trace size; every name is escaped.
 */
#include "report_internal.h"

#include <math.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#define W 960 /* chart width in SVG units */
#define BAR_ROWS 15
#define TITLE_Y 16 /* baseline of a chart's title line */
#define LINE_H 14  /* a text line (11 px font): a label's baseline at least this below another */

static const char *const palette[] = {"#4e79a7", "#f28e2b", "#59a14f", "#b07aa1",
				      "#76b7b2", "#edc948", "#9c755f", "#ff9da7"};
#define NPAL (sizeof(palette) / sizeof(palette[0]))

static void open_svg(struct tku_buf *b, const char *id, int h, const char *label)
{
	tku_printf(b,
		   "<svg class=\"chart\" id=\"chart-%s\" viewBox=\"0 0 %d %d\" width=\"%d\" "
		   "height=\"%d\" role=\"img\" aria-label=\"",
		   id, W, h, W, h);
	tku_esc_html(b, label);
	tku_puts(b, "\" xmlns=\"http://www.w3.org/2000/svg\">\n");
}

static void text_at(struct tku_buf *b, double x, double y, const char *anchor, const char *s)
{
	tku_printf(b, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\">", x, y, anchor);
	tku_esc_html(b, s);
	tku_puts(b, "</text>\n");
}

static void ns_text(struct tku_buf *b, double x, double y, const char *anchor, double ns,
		    const char *prefix)
{
	struct tku_buf t = {0};
	tku_puts(&t, prefix);
	tku_fmt_ns(&t, ns);
	text_at(b, x, y, anchor, t.p ? t.p : "");
	b->oom |= t.oom;
	free(t.p);
}

/* ---- device timeline: utilization over time ---- */

#define IDLE_SHARE 0.1 /* a bin busy less than this is marked idle (docs/reports.md) */

/* Runs of bins inside the window that are busy under IDLE_SHARE, as red marks under the axis. */
static void idle_marks(struct tku_buf *b, const struct tkr_util *u, double left, double dx,
		       double y)
{
	int k = 0;
	while (k < u->nbins) {
		while (k < u->nbins && !(u->share[k] >= 0 && u->share[k] < IDLE_SHARE))
			k++;
		if (k >= u->nbins)
			break;
		int s = k;
		while (k < u->nbins && u->share[k] >= 0 && u->share[k] < IDLE_SHARE)
			k++;
		tku_printf(
		    b,
		    "<rect class=\"idle\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"4\" "
		    "fill=\"#e15759\"><title>idle: bins %d-%d busy under %.0f%%</title></rect>\n",
		    left + s * dx, y, (k - s) * dx, s, k - 1, IDLE_SHARE * 100);
	}
}

void tkr_html_timeline(struct tku_buf *b, const struct tkr_model *m)
{
	const int row = 46, left = 150, right = W - 80, top = 28;
	int h = top + (int)m->nutil * row + 30;
	double span = (double)m->util_bin_ns * (m->nutil ? m->util[0].nbins : 1);
	if (!m->nutil || m->is_diff)
		return;
	open_svg(b, "util", h, "device timeline: utilization over time");
	text_at(b, left, 14, "start",
		"busy share per time bin (0-100%); grey: the device's window; red: bins busy under "
		"10%; right: busy share of the whole window");
	for (size_t i = 0; i < m->nutil; i++) {
		const struct tkr_util *u = &m->util[i];
		double y0 = top + (double)i * row, base = y0 + row - 12, hh = row - 16;
		double dx = (double)(right - left) / u->nbins;
		struct tku_buf label = {0};
		tkr_id_label(&label, m, 0, u->device_id);
		tkr_cut(&label, 22); /* fits the 150 units left of the axis */
		text_at(b, left - 8, base - hh / 2 + 4, "end", label.p ? label.p : "");
		b->oom |= label.oom;
		free(label.p);
		if (u->utilization >= 0) {
			char pct[32];
			snprintf(pct, sizeof(pct), "%.1f%% busy", u->utilization * 100);
			text_at(b, right + 6, base - hh / 2 + 4, "start", pct);
		}
		/* the window in grey, so idle time shows as grey without blue */
		int k = 0;
		while (k < u->nbins) {
			while (k < u->nbins && u->share[k] < 0)
				k++;
			if (k >= u->nbins)
				break;
			int s = k;
			while (k < u->nbins && u->share[k] >= 0)
				k++;
			tku_printf(b,
				   "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
				   "fill=\"#eef1f5\"/>\n",
				   left + s * dx, base - hh, (k - s) * dx, hh);
		}
		tku_printf(b,
			   "<line class=\"axis\" x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\"/>\n",
			   left, base, right, base);
		/* one closed area per run of bins inside the device window */
		k = 0;
		while (k < u->nbins) {
			while (k < u->nbins && u->share[k] < 0)
				k++;
			if (k >= u->nbins)
				break;
			tku_printf(b, "<path fill=\"%s\" fill-opacity=\"0.85\" d=\"M%.1f %.1f",
				   palette[0], left + k * dx, base);
			while (k < u->nbins && u->share[k] >= 0) {
				double y = base - u->share[k] * hh;
				tku_printf(b, "H%.1fV%.1fH%.1f", left + k * dx, y,
					   left + (k + 1) * dx);
				k++;
			}
			tku_printf(b, "V%.1fZ\"/>\n", base);
		}
		idle_marks(b, u, left, dx, base + 1);
	}
	ns_text(b, left, h - 10, "start", (double)(m->util_start_ns - m->trace_start_ns), "+");
	ns_text(b, right, h - 10, "end", (double)(m->util_start_ns - m->trace_start_ns) + span,
		"+");
	ns_text(b, (left + right) / 2.0, h - 10, "middle", (double)m->util_bin_ns, "bin ");
	tku_puts(b, "</svg>\n");
}

/* ---- bars of the top rows of a section ---- */

static void bar_chart(struct tku_buf *b, const struct tkr_model *m, const struct tkr_section *s,
		      const char *id, const char *value_key, const char *what)
{
	int nc = tkr_col(s, "name"), vc = tkr_col(s, value_key);
	size_t n = s->nrows < BAR_ROWS ? s->nrows : BAR_ROWS;
	const int row = 20, left = 430, right = W - 110;
	double max = 0;
	if (nc < 0 || vc < 0 || !n)
		return;
	for (size_t r = 0; r < n; r++)
		if (tkr_num(tkr_cell(s, r, vc)) > max)
			max = tkr_num(tkr_cell(s, r, vc));
	if (!(max > 0))
		return;
	open_svg(b, id, (int)n * row + 30, what);
	text_at(b, left, 14, "start", what);
	for (size_t r = 0; r < n; r++) {
		const struct tkr_cell *name = tkr_cell(s, r, nc);
		double v = tkr_num(tkr_cell(s, r, vc)), y = 22 + (double)r * row;
		double len = isfinite(v) && v > 0 ? v / max * (right - left) : 0;
		const char *full = name->type == SQLITE_TEXT ? name->s : "";
		struct tku_buf sh = {0}, val = {0};
		tkr_short_name(&sh, tkr_name_label(m, full), 58);
		tku_fmt_ns(&val, isfinite(v) ? v : 0);
		tku_puts(b, "<g><title>");
		tku_esc_html(b, full);
		tku_puts(b, ": ");
		tku_esc_html(b, val.p ? val.p : "");
		tku_printf(b,
			   "</title><rect x=\"%d\" y=\"%.1f\" width=\"%.1f\" height=\"%d\" "
			   "fill=\"%s\"/>",
			   left, y, len, row - 6, palette[0]);
		tku_printf(b, "<text class=\"mono\" x=\"%d\" y=\"%.1f\" text-anchor=\"end\">",
			   left - 6, y + row - 9);
		tku_esc_html(b, sh.p ? sh.p : "");
		tku_printf(b, "</text><text x=\"%.1f\" y=\"%.1f\">", left + len + 4, y + row - 9);
		tku_esc_html(b, val.p ? val.p : "");
		tku_puts(b, "</text></g>\n");
		b->oom |= sh.oom | val.oom;
		free(sh.p);
		free(val.p);
	}
	tku_puts(b, "</svg>\n");
}

/* ---- memory in use over time ---- */

/*
 * Rows [r, end) of @pts as a step line (each value held until the next row's time): x from column
 * @ct (left + (t - t0) * xs), y from column @cv (base - v * ys).
 */
static void step_line(struct tku_buf *b, const struct tkr_section *pts, size_t r, size_t end,
		      int ct, int cv, const char *col, int left, double t0, double xs, int base,
		      double ys)
{
	tku_printf(b, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\" points=\"", col);
	double prev_y = base;
	for (int first = 1; r < end; r++) {
		double x = left + (tkr_num(tkr_cell(pts, r, ct)) - t0) * xs;
		double y = base - tkr_num(tkr_cell(pts, r, cv)) * ys;
		if (!first)
			tku_printf(b, " %.1f,%.1f", x, prev_y);
		tku_printf(b, "%s%.1f,%.1f", first ? "" : " ", x, y);
		prev_y = y;
		first = 0;
	}
	tku_puts(b, "\"/>\n");
}

static void memory_chart(struct tku_buf *b, const struct tkr_model *m)
{
	const struct tkr_section *pts = tkr_find(m, "chart_memory"), *ser = tkr_find(m, "memory");
	const int left = 90, right = W - 20, top = 30, h = 260, base = h - 30;
	if (!pts || !ser || !pts->nrows)
		return;
	int cs = tkr_col(pts, "series_id"), ct = tkr_col(pts, "start_ns"),
	    cb = tkr_col(pts, "max_bytes");
	int ss = tkr_col(ser, "series_id"), sd = tkr_col(ser, "device_id"),
	    sp = tkr_col(ser, "peak_bytes"), st = tkr_col(ser, "peak_ns");
	int64_t t0i = tkr_cell(pts, 0, ct)->i, t1i = t0i;
	double ymax = 0;
	for (size_t r = 0; r < pts->nrows; r++) {
		int64_t t = tkr_cell(pts, r, ct)->i;
		double v = tkr_num(tkr_cell(pts, r, cb));
		t0i = t < t0i ? t : t0i;
		t1i = t > t1i ? t : t1i;
		ymax = v > ymax ? v : ymax;
	}
	for (size_t r = 0; r < ser->nrows; r++) {
		int64_t pt = tkr_cell(ser, r, st)->i;
		t1i = pt > t1i ? pt : t1i;
	}
	double t0 = (double)t0i, t1 = (double)t1i;
	if (!(ymax > 0))
		return;
	double xs = t1 > t0 ? (right - left) / (t1 - t0) : 0, ys = (base - top) / ymax;
	open_svg(b, "memory", h, "memory in use over time");
	text_at(b, left, TITLE_Y, "start",
		"bytes in use per series (largest in each slice); peaks marked");
	tku_printf(b, "<line class=\"axis\" x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>\n", left,
		   base, right, base);
	struct tku_buf lab = {0};
	tku_fmt_bytes(&lab, ymax, 2, TKU_PIB);
	text_at(b, left - 6, top + 4, "end", lab.p ? lab.p : "");
	text_at(b, left - 6, base, "end", "0");
	size_t r = 0, nser = 0;
	while (r < pts->nrows) {
		int64_t id = tkr_cell(pts, r, cs)->i;
		const char *col = palette[nser++ % NPAL];
		size_t end = r;
		while (end < pts->nrows && tkr_cell(pts, end, cs)->i == id)
			end++;
		step_line(b, pts, r, end, ct, cb, col, left, t0, xs, base, ys);
		r = end;
		for (size_t k = 0; k < ser->nrows; k++) {
			if (tkr_cell(ser, k, ss)->i != id)
				continue;
			double px = left + (tkr_num(tkr_cell(ser, k, st)) - t0) * xs;
			double py = base - tkr_num(tkr_cell(ser, k, sp)) * ys;
			struct tku_buf pk = {0};
			tku_puts(&pk, "peak ");
			tku_fmt_bytes(&pk, tkr_num(tkr_cell(ser, k, sp)), 2, TKU_PIB);
			if (tkr_cell(ser, k, sd)->type == SQLITE_INTEGER) {
				tku_puts(&pk, " (");
				tkr_id_label(&pk, m, 0, tkr_cell(ser, k, sd)->i);
				tku_puts(&pk, ")");
			}
			tku_printf(b, "<g class=\"peak\"><title>series %lld: ", (long long)id);
			tku_esc_html(b, pk.p ? pk.p : "");
			tku_printf(b,
				   "</title><circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"%s\" "
				   "stroke=\"#c62828\" stroke-width=\"2\"/></g>\n",
				   px, py, col);
			/* above the point, staggered; below it where it would reach the title */
			double stagger = 13.0 * (double)((nser - 1) % 4), ly = py - 6 - stagger;
			if (ly < TITLE_Y + LINE_H)
				ly = py + 16 + stagger;
			text_at(b, px + 6 > right - 150 ? px - 6 : px + 6, ly,
				px + 6 > right - 150 ? "end" : "start", pk.p ? pk.p : "");
			b->oom |= pk.oom;
			free(pk.p);
		}
	}
	ns_text(b, left, h - 10, "start", (double)(t0i - m->trace_start_ns), "+");
	ns_text(b, right, h - 10, "end", (double)(t1i - m->trace_start_ns), "+");
	b->oom |= lab.oom;
	free(lab.p);
	tku_puts(b, "</svg>\n");
}

/* ---- idle gap histogram ---- */

static void gap_chart(struct tku_buf *b, const struct tkr_model *m)
{
	const struct tkr_section *s = tkr_find(m, "gap_histogram");
	static const char *const causes[] = {"host_bound", "kernel_wait", "sync", "dependency",
					     "unknown"};
	static const char *const colors[] = {"#e15759", "#f28e2b", "#4e79a7", "#76b7b2", "#bab0ac"};
	const int ncauses = (int)(sizeof(causes) / sizeof(causes[0]));
	const int left = 60, right = W - 20, top = 30, h = 240, base = h - 40;
	double max = 0;
	if (!s || !s->nrows)
		return;
	int cg = tkr_col(s, "gaps"), cl = tkr_col(s, "bucket");
	for (size_t r = 0; r < s->nrows; r++)
		max = tkr_num(tkr_cell(s, r, cg)) > max ? tkr_num(tkr_cell(s, r, cg)) : max;
	if (!(max > 0))
		return;
	open_svg(b, "gaps", h, "idle gap length histogram");
	text_at(b, left, 16, "start", "idle gaps per length, by cause:");
	for (int c = 0; c < ncauses; c++) {
		tku_printf(b, "<rect x=\"%d\" y=\"7\" width=\"10\" height=\"10\" fill=\"%s\"/>",
			   260 + c * 110, colors[c]);
		text_at(b, 274 + c * 110, 16, "start", causes[c]);
	}
	double slot = (double)(right - left) / (double)s->nrows;
	for (size_t r = 0; r < s->nrows; r++) {
		double x = left + (double)r * slot + slot * 0.15, y = base, wbar = slot * 0.7;
		for (int c = 0; c < ncauses; c++) {
			int k = tkr_col(s, causes[c]);
			double n = k >= 0 ? tkr_num(tkr_cell(s, r, k)) : 0,
			       hh = n / max * (base - top);
			if (!(n > 0))
				continue;
			y -= hh;
			tku_printf(b,
				   "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
				   "fill=\"%s\"><title>%s: %.0f</title></rect>\n",
				   x, y, wbar, hh, colors[c], causes[c], n);
		}
		char count[32];
		snprintf(count, sizeof(count), "%.0f", tkr_num(tkr_cell(s, r, cg)));
		text_at(b, x + wbar / 2, y - 4, "middle", count);
		const struct tkr_cell *lab = tkr_cell(s, r, cl);
		text_at(b, x + wbar / 2, base + 16, "middle",
			lab->type == SQLITE_TEXT ? lab->s : "");
	}
	tku_printf(b, "<line class=\"axis\" x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>\n", left,
		   base, right, base);
	tku_puts(b, "</svg>\n");
}

/* ---- step times ---- */

/*
 * The bottom of the step chart's axis: 0, unless the shortest step is over half the longest
 * (a zero-based axis would flatten the step-to-step variation): then the shortest step less a
 * quarter of the spread, so the spread fills 80% of the height (docs/reports.md).
 */
static double steps_axis_lo(double min, double max)
{
	return min > max / 2 && max > min ? min - (max - min) / 4 : 0;
}

/* One step per device: one bar each from zero, labelled with its length. */
static void steps_bars(struct tku_buf *b, const struct tkr_model *m, const struct tkr_section *s,
		       double max, int left, int right, int top, int base)
{
	int cd = tkr_col(s, "device_id"), cu = tkr_col(s, "dur_ns");
	double slot = (double)(right - left) / (double)s->nrows,
	       wbar = slot * 0.5 < 80 ? slot * 0.5 : 80;
	for (size_t r = 0; r < s->nrows; r++) {
		double v = tkr_num(tkr_cell(s, r, cu)), hh = v > 0 ? v / max * (base - top) : 0;
		double x = left + slot * ((double)r + 0.5) - wbar / 2;
		struct tku_buf lab = {0};
		tkr_id_label(&lab, m, 0, tkr_cell(s, r, cd)->i);
		tku_printf(b,
			   "<rect class=\"step\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
			   "height=\"%.1f\" fill=\"%s\"/>\n",
			   x, base - hh, wbar, hh, palette[r % NPAL]);
		ns_text(b, x + wbar / 2, base - hh - 4, "middle", v, "");
		text_at(b, x + wbar / 2, base + 14, "middle", lab.p ? lab.p : "");
		b->oom |= lab.oom;
		free(lab.p);
	}
}

static void steps_chart(struct tku_buf *b, const struct tkr_model *m)
{
	const struct tkr_section *s = tkr_find(m, "chart_steps");
	const int left = 90, right = W - 20, top = 30, h = 240, base = h - 30;
	if (!s || !s->nrows)
		return;
	int cd = tkr_col(s, "device_id"), cu = tkr_col(s, "dur_ns"), co = tkr_col(s, "outlier");
	double max = 0, min = INFINITY;
	size_t most = 0;
	for (size_t r = 0, run = 0; r < s->nrows; r++) {
		double v = tkr_num(tkr_cell(s, r, cu));
		max = v > max ? v : max;
		min = v < min ? v : min;
		run = r && tkr_cell(s, r, cd)->i == tkr_cell(s, r - 1, cd)->i ? run + 1 : 1;
		most = run > most ? run : most;
	}
	if (!(max > 0))
		return;
	open_svg(b, "steps", h, "step times");
	tku_printf(b, "<line class=\"axis\" x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>\n", left,
		   base, right, base);
	ns_text(b, left - 6, top + 4, "end", max, "");
	if (most == 1) { /* one step per device: bars */
		text_at(b, left, 16, "start", "step time per device (one step each)");
		text_at(b, left - 6, base, "end", "0");
		steps_bars(b, m, s, max, left, right, top, base);
		tku_puts(b, "</svg>\n");
		return;
	}
	double lo = steps_axis_lo(min, max);
	double dx = (double)(right - left) / (double)(most - 1), ys = (base - top) / (max - lo);
	if (lo > 0) {
		text_at(b, left, 16, "start",
			"step time per device, in step order; outliers in red; the axis does not "
			"start at zero");
		ns_text(b, left - 6, base, "end", lo, "");
	} else {
		text_at(b, left, 16, "start",
			"step time per device, in step order; outliers in red");
		text_at(b, left - 6, base, "end", "0");
	}
	size_t r = 0, nser = 0;
	while (r < s->nrows) {
		int64_t dev = tkr_cell(s, r, cd)->i;
		size_t first = r;
		const char *col = palette[nser++ % NPAL];
		tku_printf(
		    b, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\" points=\"", col);
		for (; r < s->nrows && tkr_cell(s, r, cd)->i == dev; r++)
			tku_printf(b, "%s%.1f,%.1f", r == first ? "" : " ",
				   left + (double)(r - first) * dx,
				   base - (tkr_num(tkr_cell(s, r, cu)) - lo) * ys);
		tku_puts(b, "\"/>\n");
		if (r - first == 1) /* a device with one step among others: a dot */
			tku_printf(b, "<circle cx=\"%d\" cy=\"%.1f\" r=\"3\" fill=\"%s\"/>\n", left,
				   base - (tkr_num(tkr_cell(s, first, cu)) - lo) * ys, col);
		for (size_t k = first; k < r; k++) {
			if (tkr_cell(s, k, co)->i != 1)
				continue;
			struct tku_buf t = {0};
			tku_fmt_ns(&t, tkr_num(tkr_cell(s, k, cu)));
			tku_printf(b,
				   "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"#c62828\">"
				   "<title>device %lld outlier: ",
				   left + (double)(k - first) * dx,
				   base - (tkr_num(tkr_cell(s, k, cu)) - lo) * ys, (long long)dev);
			tku_esc_html(b, t.p ? t.p : "");
			tku_puts(b, "</title></circle>\n");
			b->oom |= t.oom;
			free(t.p);
		}
		struct tku_buf label = {0};
		tkr_id_label(&label, m, 0, dev);
		tku_printf(b, "<text x=\"%d\" y=\"%d\" style=\"fill:%s\">",
			   left + 10 + (int)(nser - 1) * 140, h - 8, col);
		tku_esc_html(b, label.p ? label.p : "");
		tku_puts(b, "</text>\n");
		b->oom |= label.oom;
		free(label.p);
	}
	tku_puts(b, "</svg>\n");
}

/* ---- queue length over time ---- */

/* The first device's launch queues: all streams and its three busiest, max per slice. */
static void queue_chart(struct tku_buf *b, const struct tkr_model *m)
{
	const struct tkr_section *pts = tkr_find(m, "chart_queue");
	const int left = 60, right = W - 130, top = 30, h = 240, base = h - 30;
	if (!pts || !pts->nrows)
		return;
	int ct = tkr_col(pts, "start_ns"), cv = tkr_col(pts, "max_length"),
	    ck = tkr_col(pts, "track_id"), cs = tkr_col(pts, "stream"),
	    cd = tkr_col(pts, "device_id");
	int64_t t0i = tkr_cell(pts, 0, ct)->i, t1i = t0i;
	double ymax = 0;
	for (size_t r = 0; r < pts->nrows; r++) {
		int64_t t = tkr_cell(pts, r, ct)->i;
		double v = tkr_num(tkr_cell(pts, r, cv));
		t0i = t < t0i ? t : t0i;
		t1i = t > t1i ? t : t1i;
		ymax = v > ymax ? v : ymax;
	}
	if (!(ymax > 0) || t1i <= t0i)
		return;
	double t0 = (double)t0i, xs = (right - left) / ((double)t1i - t0), ys = (base - top) / ymax;
	struct tku_buf lab = {0};
	tku_puts(&lab, "operations launched and not finished, most per slice, on ");
	tkr_id_label(&lab, m, 0, tkr_cell(pts, 0, cd)->i);
	open_svg(b, "queue", h, "queue length over time");
	text_at(b, left, TITLE_Y, "start", lab.p ? lab.p : "");
	tku_printf(b, "<line class=\"axis\" x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>\n", left,
		   base, right, base);
	tku_printf(b, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%.0f</text>\n", left - 6,
		   top + 4, ymax);
	text_at(b, left - 6, base, "end", "0");
	size_t r = 0, nser = 0;
	while (r < pts->nrows) {
		const struct tkr_cell *k = tkr_cell(pts, r, ck);
		size_t end = r + 1;
		while (end < pts->nrows && tkr_cell(pts, end, ck)->type == k->type &&
		       tkr_cell(pts, end, ck)->i == k->i)
			end++;
		const char *col = palette[nser % NPAL];
		step_line(b, pts, r, end, ct, cv, col, left, t0, xs, base, ys);
		const struct tkr_cell *sn = tkr_cell(pts, r, cs);
		struct tku_buf name = {0};
		if (k->type == SQLITE_NULL)
			tku_puts(&name, "all streams");
		else
			tku_printf(&name, "stream %s", sn->type == SQLITE_TEXT ? sn->s : "?");
		tku_printf(b, "<text x=\"%d\" y=\"%d\" fill=\"%s\">", right + 8,
			   top + 4 + (int)nser * LINE_H, col);
		tku_esc_html(b, name.p ? name.p : "");
		tku_puts(b, "</text>\n");
		b->oom |= name.oom;
		free(name.p);
		nser++;
		r = end;
	}
	ns_text(b, left, h - 10, "start", (double)(t0i - m->trace_start_ns), "+");
	ns_text(b, right, h - 10, "end", (double)(t1i - m->trace_start_ns), "+");
	b->oom |= lab.oom;
	free(lab.p);
	tku_puts(b, "</svg>\n");
}

void tkr_html_chart(struct tku_buf *b, const struct tkr_model *m, const char *key)
{
	if (m->is_diff)
		return;
	if (!strcmp(key, "ops"))
		bar_chart(b, m, tkr_find(m, "ops"), "ops", "self_ns", "top ops by self time");
	else if (!strcmp(key, "kernels"))
		bar_chart(b, m, tkr_find(m, "kernels"), "kernels", "total_ns",
			  "top kernels by total time");
	else if (!strcmp(key, "gap_histogram"))
		gap_chart(b, m);
	else if (!strcmp(key, "memory"))
		memory_chart(b, m);
	else if (!strcmp(key, "step_stats"))
		steps_chart(b, m);
	else if (!strcmp(key, "roofline"))
		tkr_html_roofline(b, m);
	else if (!strcmp(key, "queue_length"))
		queue_chart(b, m);
}

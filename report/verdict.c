/*
 * The verdict every report opens with (docs/metrics.md, "The verdict"): three lines derived from
 * the sections the model already holds. (1) The headline KPI: the lowest gpu_utilization of any
 * device, against its band. (2) The biggest bottleneck: the finding with the largest share of
 * device time, picked by tier (lost device time, then device time spent badly, then the rest),
 * severity, metric, id; named with its share. (3) The first sentence of that finding's fix. When
 * no rule fired the lines say so and what was checked. Computes text only; formats print it.
 */
#include "report_internal.h"

#include <ctype.h>
#include <math.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <tracekit/error.h>

/*
 * How a rule's finding is named in the verdict: @what the bottleneck, @share a sentence with
 * %W (where: the device or process label), %P (the metric, a percentage), %w (the window of the
 * device's KPI row), %N (the name in the evidence), %C (gpu_idle: the cause with the most idle
 * time), %S (straggler: the others' wait in its collectives, a share of its window: the
 * findings section's wait_share); @tier 1 when the metric (for a straggler: wait_share) is a
 * share of device time lost (idle, waiting), 2 a share of device time spent badly, 3 not a
 * share of device time.
 */
static const struct rule_words {
	const char *rule, *what, *share;
	int tier;
} rules[] = {
    {"gpu_idle", "idle device time", "%W is idle %P of its %w window%C", 1},
    {"input_bound_steps", "the host input pipeline", "%W waits on the host %P of its step time", 1},
    {"exposed_communication", "exposed communication",
     "%W waits on communication %P of its %w window", 1},
    {"host_device_copies", "host-device copies",
     "copies between the host and %W take %P of its %w window", 1},
    {"compilation_in_window", "compilation",
     "compilation on the host of %W takes %P of its %w window", 1},
    {"dominant_op", "one op", "%N takes %P of the busy time of %W", 2},
    {"low_occupancy", "low-occupancy kernels",
     "kernels at occupancy under 25%% take %P of the busy time of %W", 2},
    {"small_kernels", "small kernels",
     "%P of the kernels of %W are shorter than the small-kernel threshold", 3},
    {"sync_api_calls", "synchronizing API calls", "synchronizing calls of %W take %P of the trace",
     3},
    {"straggler", "a straggler rank",
     "%W arrives last at %P of its collectives: the other ranks wait for it %S of its %w window",
     1},
    {"step_time_mismatch", "device against host step time",
     "the device and host step times of %W are %P apart", 3},
};
#define NRULES (sizeof(rules) / sizeof(rules[0]))

/* What was checked, said when no rule fired. */
static const char checked[] =
    "checked idle time, input-bound steps, exposed communication, host-device copies, "
    "compilation, dominant ops, occupancy, small kernels, synchronizing calls, stragglers and "
    "host against device step time";

static const struct rule_words *words_of(const char *rule)
{
	for (size_t i = 0; rule && i < NRULES; i++)
		if (!strcmp(rules[i].rule, rule))
			return &rules[i];
	return NULL;
}

static const struct tkr_cell *cell_of(const struct tkr_section *s, size_t r, const char *key)
{
	int c = tkr_col(s, key);
	return c >= 0 ? tkr_cell(s, r, c) : NULL;
}

static const char *text_of(const struct tkr_section *s, size_t r, const char *key)
{
	const struct tkr_cell *c = cell_of(s, r, key);
	return c && c->type == SQLITE_TEXT ? c->s : NULL;
}

static double num_of(const struct tkr_section *s, size_t r, const char *key)
{
	const struct tkr_cell *c = cell_of(s, r, key);
	return c ? tkr_num(c) : NAN;
}

static int sev_rank(const char *sev)
{
	return !sev ? 2 : !strcmp(sev, "high") ? 0 : !strcmp(sev, "medium") ? 1 : 2;
}

/* The band rule of a KPI's note ("...; good > 80%, warning 50-80%, bad < 50%"): "good > 80%". */
static void good_clause(struct tku_buf *b, const char *note)
{
	const char *p = note ? strstr(note, "; good ") : NULL;
	if (!p)
		return;
	p += 2;
	size_t n = strcspn(p, ",;");
	tku_putn(b, p, n);
}

/* Line 1: the lowest utilization of any device, against its band. */
static void headline(struct tku_buf *b, const struct tkr_model *m, struct tkr_verdict *v)
{
	const struct tkr_section *k = tkr_find(m, "kpis");
	size_t first = (size_t)-1;
	v->kpi_row = -1;
	for (size_t r = 0; k && r < k->nrows; r++) {
		const char *name = text_of(k, r, "kpi");
		if (!name || strcmp(name, "gpu_utilization"))
			continue;
		if (first == (size_t)-1)
			first = r;
		double x = num_of(k, r, "value");
		if (isnan(x))
			continue;
		v->kpi_devices++;
		if (v->kpi_row < 0 || x < num_of(k, (size_t)v->kpi_row, "value"))
			v->kpi_row = (long)r;
	}
	if (v->kpi_row < 0) {
		tku_puts(b, "Utilization: unknown: ");
		if (first != (size_t)-1 && text_of(k, first, "note"))
			tku_puts(b, text_of(k, first, "note"));
		else
			tku_puts(b, "the trace has no device work (no kernels, copies or XLA ops)");
		return;
	}
	size_t r = (size_t)v->kpi_row;
	const char *band = text_of(k, r, "band"), *win = text_of(k, r, "window");
	const struct tkr_cell *dev = cell_of(k, r, "device_id");
	struct tku_buf good = {0};
	good_clause(&good, text_of(k, r, "note"));
	/* "(warning: good > 80%)"; "(good: > 80%)" when good */
	const char *g = good.p ? good.p : "";
	if (band && !strcmp(band, "good") && !strncmp(g, "good ", 5))
		g += 5;
	tku_printf(b, "Utilization %.1f%% (%s%s%s", num_of(k, r, "value"), band ? band : "n-a",
		   *g ? ": " : "", g);
	b->oom |= good.oom;
	free(good.p);
	tku_puts(b, ") on ");
	if (dev && dev->type == SQLITE_INTEGER)
		tkr_id_label(b, m, 0, dev->i);
	else
		tku_puts(b, "the device");
	tku_printf(b, " over its %s window", win ? win : "selected");
	if (v->kpi_devices > 1)
		tku_printf(b, ", the lowest of %d devices", v->kpi_devices);
}

/* The selected window of device @dev (its KPI row's), or "selected". */
static const char *window_of(const struct tkr_model *m, const struct tkr_cell *dev)
{
	const struct tkr_section *k = tkr_find(m, "kpis");
	for (size_t r = 0; k && dev && dev->type == SQLITE_INTEGER && r < k->nrows; r++) {
		const struct tkr_cell *d = cell_of(k, r, "device_id");
		if (d && d->type == SQLITE_INTEGER && d->i == dev->i && text_of(k, r, "window"))
			return text_of(k, r, "window");
	}
	return "selected";
}

/* gpu_idle: ", most of it <cause>" from the evidence's by_cause.* (the largest). */
static void idle_cause(struct tku_buf *b, const struct tkr_ev *ev)
{
	const char *best = NULL;
	double most = 0;
	for (size_t i = 0; ev && i < ev->main.n; i++) {
		const struct tkr_ev_item *it = &ev->main.it[i];
		double x = tkr_num(&it->v);
		if (!strncmp(it->key, "by_cause.", 9) && x > most) {
			most = x;
			best = it->key + 9;
		}
	}
	if (best)
		tku_printf(b, ", most of it %s", best);
}

static const char *ev_name(const struct tkr_ev *ev)
{
	for (size_t i = 0; ev && i < ev->main.n; i++)
		if (!strcmp(ev->main.it[i].key, "name") && ev->main.it[i].v.type == SQLITE_TEXT)
			return ev->main.it[i].v.s;
	return NULL;
}

/* The share sentence of finding row @r. */
static void share_sentence(struct tku_buf *b, const struct tkr_model *m,
			   const struct tkr_section *f, size_t r, const struct rule_words *w)
{
	const struct tkr_ev *ev = r < m->nev ? &m->ev[r] : NULL;
	const struct tkr_cell *dev = cell_of(f, r, "device_id");
	if (!w) { /* a rule this report does not know: its summary */
		int c = tkr_col(f, "summary");
		if (c >= 0)
			tkr_format_cell(b, m, f, r, c);
		return;
	}
	for (const char *p = w->share; *p; p++) {
		if (*p != '%' || !p[1]) {
			tku_putn(b, p, 1);
			continue;
		}
		switch (*++p) {
		case 'W':
			if (!tkr_where(b, m, f, r))
				tku_puts(b, "the trace");
			break;
		case 'P':
			tku_printf(b, "%.1f%%", num_of(f, r, "metric"));
			break;
		case 'w':
			tku_puts(b, window_of(m, dev));
			break;
		case 'S':
			tku_printf(b, "%.1f%%", num_of(f, r, "wait_share"));
			break;
		case 'N': {
			const char *n = ev_name(ev);
			if (n) {
				tku_puts(b, "the op ");
				tkr_short_name(b, tkr_name_label(m, n), 60);
			} else {
				tku_puts(b, "one op");
			}
			break;
		}
		case 'C':
			idle_cause(b, ev);
			break;
		case '%':
			tku_puts(b, "%");
			break;
		default:
			tku_putn(b, p, 1);
		}
	}
}

/* The first sentence of @fix: up to the first ". " before a capital letter. */
static void first_sentence(struct tku_buf *b, const char *fix)
{
	const char *p = fix;
	while ((p = strstr(p, ". ")) && !isupper((unsigned char)p[2]))
		p += 2;
	tku_putn(b, fix, p ? (size_t)(p - fix) + 1 : strlen(fix));
}

/* Lines 2 and 3: the biggest bottleneck and its fix. */
static void bottleneck(struct tku_buf *b2, struct tku_buf *b3, const struct tkr_model *m,
		       struct tkr_verdict *v)
{
	const struct tkr_section *f = tkr_find(m, "findings");
	v->finding_row = -1;
	if (!f || !f->available) {
		tku_puts(b2, "Biggest bottleneck: unknown: the store has no findings (run tracekit "
			     "analyze)");
		tku_puts(b3, "Fix: none to give without findings.");
		return;
	}
	int best_tier = 0, best_sev = 0;
	double best_metric = 0;
	for (size_t r = 0; r < f->nrows; r++) {
		const struct rule_words *w = words_of(text_of(f, r, "rule"));
		int tier = w ? w->tier : 3, sev = sev_rank(text_of(f, r, "severity"));
		/* a straggler is ranked by the wait it causes, a share of time like tier 1's */
		double x =
		    num_of(f, r, w && !strcmp(w->rule, "straggler") ? "wait_share" : "metric");
		if (isnan(x))
			x = -1;
		/* rows come ordered by severity, then id: ties keep the first */
		if (v->finding_row < 0 || tier < best_tier ||
		    (tier == best_tier &&
		     (sev < best_sev || (sev == best_sev && x > best_metric)))) {
			v->finding_row = (long)r;
			best_tier = tier;
			best_sev = sev;
			best_metric = x;
		}
	}
	if (v->finding_row < 0) {
		tku_printf(b2, "Biggest bottleneck: none found: no rule fired (%s)", checked);
		tku_puts(b3,
			 "Fix: nothing to fix by these rules; the top kernels and the idle gaps "
			 "below show where the time goes.");
		return;
	}
	size_t r = (size_t)v->finding_row;
	const char *rule = text_of(f, r, "rule"), *fix = text_of(f, r, "fix");
	const struct rule_words *w = words_of(rule);
	v->tier = best_tier;
	tku_printf(b2, "Biggest bottleneck: %s (%s): ", w ? w->what : (rule ? rule : "a finding"),
		   rule ? rule : "?");
	share_sentence(b2, m, f, r, w);
	tku_puts(b3, "Fix: ");
	if (fix && *fix)
		first_sentence(b3, fix);
	else
		tku_puts(b3, "the finding gives none.");
}

void tkr_verdict_make(struct tkr_model *m)
{
	struct tkr_verdict *v = &m->verdict;
	struct tku_buf b[3] = {{0}, {0}, {0}};
	tkr_verdict_free(m);
	headline(&b[0], m, v);
	bottleneck(&b[1], &b[2], m, v);
	for (int i = 0; i < 3; i++) {
		if (b[i].oom) {
			free(b[i].p);
			b[i].p = NULL;
		}
		v->line[i] = b[i].p; /* NULL when out of memory: the formats skip it */
	}
	v->ok = 1;
}

void tkr_verdict_free(struct tkr_model *m)
{
	if (!m)
		return;
	for (int i = 0; i < 3; i++)
		free(m->verdict.line[i]);
	memset(&m->verdict, 0, sizeof(m->verdict));
}

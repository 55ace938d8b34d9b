/*
 * The gates of `tracekit check` (docs/check.md, "Gates"): one gate's text into a struct tkc_gate
 * (relative METRIC:+N%, absolute --max/--min METRIC[.STAT]=VALUE), values with units into base
 * units, the documented defaults. The gates file is read by gates_file.c.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tracekit/error.h>

#include "check_internal.h"
#include "util/vec.h"

/* The metrics a gate can name, with their unit and whether they have one sample per step. */
struct metric {
	const char *name;
	const char *unit; /* "ns", "bytes" or "%" */
	int per_step;
};

static const struct metric metrics[] = {
    {"step_time", "ns", 1},
    {"host_step_time", "ns", 1},
    {"busy", "ns", 1},
    {"comm", "ns", 1},
    {"comm.exposed", "ns", 1},
    {"kernel_time", "ns", 1},
    {"memory.peak", "bytes", 0},
    {"kpi.gpu_utilization", "%", 0},
    {"kpi.kernel_duration_median", "ns", 0},
    {"kpi.small_kernel_share_count", "%", 0},
    {"kpi.small_kernel_share_time", "%", 0},
    {"kpi.host_overhead", "%", 0},
    {"kpi.memory_bandwidth", "%", 0},
    {"kpi.compute_throughput", "%", 0},
    {"kpi.compilation_time", "ns", 0},
    {"kernel", "ns", 1}, /* kernel:GLOB, op:GLOB: an item's device time per step */
    {"op", "ns", 1},
};

#define KNOWN_METRICS                                                                     \
	"step_time, host_step_time, busy, comm, comm.exposed, kernel_time, memory.peak, " \
	"kpi.<name>, kernel:GLOB, op:GLOB"
#define KNOWN_KPIS                                                                       \
	"gpu_utilization, kernel_duration_median, small_kernel_share_count, "            \
	"small_kernel_share_time, host_overhead, memory_bandwidth, compute_throughput, " \
	"compilation_time"
#define KNOWN_STATS "mean, median, p90, min, max"
#define KNOWN_UNITS "ns, us, \xc2\xb5s, ms, s, min; B, KB, KiB, MB, MiB, GB, GiB, TB, TiB"

static const char *const stats[] = {"mean", "median", "p90", "min", "max"};

/* Units of a value: the text, the base unit it converts to, the factor. */
static const struct {
	const char *text;
	const char *base;
	double factor;
} units[] = {
    {"ns", "ns", 1},
    {"us", "ns", 1e3},
    {"\xc2\xb5s", "ns", 1e3}, /* µs, MICRO SIGN */
    {"\xce\xbcs", "ns", 1e3}, /* μs, GREEK SMALL LETTER MU */
    {"ms", "ns", 1e6},
    {"s", "ns", 1e9},
    {"min", "ns", 60e9},
    {"B", "bytes", 1},
    {"KB", "bytes", 1e3},
    {"KiB", "bytes", 1024.0},
    {"MB", "bytes", 1e6},
    {"MiB", "bytes", 1048576.0},
    {"GB", "bytes", 1e9},
    {"GiB", "bytes", 1073741824.0},
    {"TB", "bytes", 1e12},
    {"TiB", "bytes", 1099511627776.0},
    {"%", "%", 1},
};

static const struct metric *find_metric(const char *name, size_t len)
{
	for (size_t i = 0; i < sizeof(metrics) / sizeof(metrics[0]); i++)
		if (strlen(metrics[i].name) == len && memcmp(metrics[i].name, name, len) == 0)
			return &metrics[i];
	return NULL;
}

/*
 * A decimal number at @s (digits, an optional fraction, an optional exponent; no sign, no
 * nan/inf/hex): its length, 0 when there is none.
 */
static size_t number_len(const char *s)
{
	size_t i = 0, digits = 0;
	while (s[i] >= '0' && s[i] <= '9')
		i++, digits++;
	if (s[i] == '.' && s[i + 1] >= '0' && s[i + 1] <= '9') {
		i++;
		while (s[i] >= '0' && s[i] <= '9')
			i++, digits++;
	}
	if (!digits)
		return 0;
	if (s[i] == 'e' || s[i] == 'E') {
		size_t j = i + 1;
		if (s[j] == '+' || s[j] == '-')
			j++;
		if (s[j] >= '0' && s[j] <= '9') {
			while (s[j] >= '0' && s[j] <= '9')
				j++;
			i = j;
		}
	}
	return i;
}

/* The number of @len bytes at @s (from number_len) as a double. */
static double number_value(const char *s, size_t len)
{
	char buf[64];
	if (len >= sizeof(buf))
		return strtod(s, NULL); /* the text ends the number anyway: no digit follows it */
	memcpy(buf, s, len);
	buf[len] = 0;
	return strtod(buf, NULL);
}

enum why { VAL_OK, VAL_NO_NUMBER, VAL_NOT_FINITE, VAL_UNIT };

/* tkc_value_parse() with the reason of a failure. */
static enum why value_parse(const char *text, double *out, const char **unit_out)
{
	size_t n = number_len(text);
	if (!n)
		return VAL_NO_NUMBER;
	double v = number_value(text, n);
	if (!isfinite(v))
		return VAL_NOT_FINITE;
	const char *u = text + n;
	while (*u == ' ')
		u++;
	if (!*u) {
		if (u != text + n)
			return VAL_UNIT; /* "80 " */
		*out = v;
		*unit_out = "";
		return VAL_OK;
	}
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcmp(u, units[i].text) != 0)
			continue;
		v *= units[i].factor;
		if (!isfinite(v))
			return VAL_NOT_FINITE;
		*out = v;
		*unit_out = units[i].base;
		return VAL_OK;
	}
	return VAL_UNIT;
}

int tkc_value_parse(const char *text, double *out, const char **unit_out)
{
	return text && value_parse(text, out, unit_out) == VAL_OK ? TK_OK : TK_EINVAL;
}

/* The unit text after the number at @s (spaces skipped), for messages. */
static const char *unit_text(const char *s)
{
	s += number_len(s);
	while (*s == ' ')
		s++;
	return s;
}

/* The last '.' among the @len bytes at @s, or NULL. */
static const char *last_dot(const char *s, size_t len)
{
	const char *last = NULL;
	for (size_t i = 0; i < len; i++)
		if (s[i] == '.')
			last = s + i;
	return last;
}

static int fail(char *err, size_t errlen, const char *text, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int fail(char *err, size_t errlen, const char *text, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (err && errlen)
		snprintf(err, errlen, "gate '%.200s': %s", text, msg);
	return TK_EINVAL;
}

static int is_stat(const char *s)
{
	for (size_t i = 0; i < sizeof(stats) / sizeof(stats[0]); i++)
		if (strcmp(s, stats[i]) == 0)
			return 1;
	return 0;
}

/* An unknown metric's message: the known KPIs for kpi.*, else the known metrics. */
static int unknown_metric(char *err, size_t errlen, const char *text, const char *m, size_t len)
{
	if (len > 4 && memcmp(m, "kpi.", 4) == 0)
		return fail(err, errlen, text, "unknown KPI '%.*s' (known: " KNOWN_KPIS ")",
			    (int)(len - 4 > 100 ? 100 : len - 4), m + 4);
	return fail(err, errlen, text, "unknown metric '%.*s' (known: " KNOWN_METRICS ")",
		    (int)(len > 100 ? 100 : len), m);
}

/* The relative gate METRIC:[+-]AMOUNT or kernel|op:GLOB:[+-]AMOUNT into @g. */
static int parse_rel(const char *text, struct tkc_gate *g, char *err, size_t errlen)
{
	const char *colon = strrchr(text, ':');
	if (!colon)
		return fail(err, errlen, text,
			    "expected METRIC:+N%% (or kernel:GLOB:+N%%, op:GLOB:+N%%)");
	const struct metric *m;
	if (strncmp(text, "kernel:", 7) == 0 || strncmp(text, "op:", 3) == 0) {
		size_t ml = text[0] == 'k' ? 6 : 2;
		m = find_metric(text, ml);
		if (colon == text + ml)
			return fail(
			    err, errlen, text,
			    "expected %s:GLOB:+N%% (the glob names the %ss to gate: '*' for "
			    "all)",
			    m->name, m->name);
		size_t pl = (size_t)(colon - text) - ml - 1;
		if (!pl)
			return fail(err, errlen, text, "the %s name glob is empty ('*' for all)",
				    m->name);
		if (!(g->pattern = strndup(text + ml + 1, pl)))
			return TK_ENOMEM;
	} else {
		size_t ml = (size_t)(colon - text);
		m = find_metric(text, ml);
		if (!m) {
			const char *last = last_dot(text, ml);
			if (last && find_metric(text, (size_t)(last - text)) &&
			    (size_t)(colon - last - 1) < 16) {
				char st[16];
				snprintf(st, sizeof(st), "%.*s", (int)(colon - last - 1), last + 1);
				if (is_stat(st))
					return fail(err, errlen, text,
						    "a relative gate compares all the samples (no "
						    ".%s): statistics are for --max and --min",
						    st);
			}
			return unknown_metric(err, errlen, text, text, ml);
		}
	}
	g->metric = strdup(m->name);
	if (!g->metric)
		return TK_ENOMEM;
	const char *a = colon + 1;
	if (*a != '+' && *a != '-')
		return fail(
		    err, errlen, text,
		    "the amount needs a sign: + for an increase that is a regression, - for "
		    "a decrease (e.g. %s:+5%%)",
		    m->name);
	g->sign = *a == '+' ? 1 : -1;
	a++;
	double x;
	const char *base;
	const char *u = unit_text(a);
	enum why why = value_parse(a, &x, &base);
	if (why == VAL_NO_NUMBER)
		return fail(err, errlen, text, "expected a number after the sign, found '%.40s'",
			    a);
	if (why == VAL_NOT_FINITE)
		return fail(err, errlen, text, "the amount is not a finite number");
	if (why == VAL_UNIT && strcmp(u, "pt") == 0) {
		if (strcmp(m->unit, "%") != 0)
			return fail(
			    err, errlen, text,
			    "'pt' (percentage points) is for '%%' metrics only; %s is in %s",
			    m->name, m->unit);
		g->unit = TKC_UNIT_PT;
		g->amount = number_value(a, number_len(a));
		return TK_OK;
	}
	if (why == VAL_UNIT)
		return fail(err, errlen, text,
			    "unknown unit '%.20s' (known: %%, pt, " KNOWN_UNITS ")", u);
	if (!*base)
		return fail(err, errlen, text,
			    "the amount needs a unit: %% (relative), pt (percentage points of a "
			    "'%%' metric), a time or a size (" KNOWN_UNITS ")");
	if (strcmp(base, "%") == 0) {
		g->unit = TKC_UNIT_PCT;
		g->amount = x / 100;
		return TK_OK;
	}
	if (strcmp(base, m->unit) != 0)
		return fail(err, errlen, text, "%s is in %s: an amount in %s does not apply",
			    m->name, m->unit, strcmp(base, "ns") == 0 ? "time" : "bytes");
	g->unit = TKC_UNIT_ABS;
	g->amount = x;
	return TK_OK;
}

/* The bound METRIC[.STAT]=VALUE into @g. */
static int parse_bound(const char *text, struct tkc_gate *g, char *err, size_t errlen)
{
	const char *eq = strrchr(text, '=');
	const char *bound = g->kind == TKC_GATE_MAX ? "--max" : "--min";
	if (!eq)
		return fail(err, errlen, text,
			    "expected METRIC[.STAT]=VALUE (e.g. step_time.p90=150ms)");
	size_t ml = (size_t)(eq - text);
	if ((ml >= 7 && strncmp(text, "kernel:", 7) == 0) ||
	    (ml >= 3 && strncmp(text, "op:", 3) == 0))
		return fail(err, errlen, text,
			    "kernel and op gates are relative only (kernel:GLOB:+N%%), not %s",
			    bound);
	const struct metric *m = find_metric(text, ml);
	const char *stat = NULL;
	char st[16] = "";
	if (!m) {
		const char *last = last_dot(text, ml);
		if (!last || !(m = find_metric(text, (size_t)(last - text))) ||
		    strcmp(m->name, "kernel") == 0 || strcmp(m->name, "op") == 0)
			return unknown_metric(err, errlen, text, text, ml);
		size_t sl = (size_t)(eq - last - 1);
		if (sl < sizeof(st))
			snprintf(st, sizeof(st), "%.*s", (int)sl, last + 1);
		if (sl >= sizeof(st) || !is_stat(st))
			return fail(err, errlen, text,
				    "unknown statistic '%.*s' (known: " KNOWN_STATS ")",
				    (int)(sl > 40 ? 40 : sl), last + 1);
		if (!m->per_step)
			return fail(err, errlen, text,
				    "%s is one value per run: no statistic (%s %s=VALUE)", m->name,
				    bound, m->name);
		stat = st;
	} else if (strcmp(m->name, "kernel") == 0 || strcmp(m->name, "op") == 0) {
		return fail(err, errlen, text,
			    "kernel and op gates are relative only (kernel:GLOB:+N%%), not %s",
			    bound);
	}
	double v;
	const char *base;
	const char *val = eq + 1;
	if (*val == '-' || *val == '+')
		return fail(err, errlen, text,
			    "the bound is a non-negative number, without a sign");
	enum why why = value_parse(val, &v, &base);
	if (why == VAL_NO_NUMBER)
		return fail(err, errlen, text, "expected a number, found '%.40s'", val);
	if (why == VAL_NOT_FINITE)
		return fail(err, errlen, text, "the bound is not a finite number");
	if (why == VAL_UNIT)
		return fail(err, errlen, text,
			    "unknown unit '%.20s' (known: " KNOWN_UNITS ", %% for '%%' metrics, or "
			    "none: the metric's unit)",
			    unit_text(val));
	if (*base && strcmp(base, m->unit) != 0)
		return fail(err, errlen, text, "%s is in %s: a value in %s does not apply", m->name,
			    m->unit, strcmp(base, "ns") == 0 ? "time" : base);
	if ((stat && !(g->stat = strdup(stat))) || !(g->metric = strdup(m->name)))
		return TK_ENOMEM;
	g->sign = g->kind == TKC_GATE_MAX ? 1 : -1;
	g->amount = v;
	g->unit = TKC_UNIT_ABS;
	return TK_OK;
}

static void gate_free(struct tkc_gate *g)
{
	free(g->text);
	free(g->metric);
	free(g->pattern);
	free(g->stat);
	memset(g, 0, sizeof(*g));
}

int tkc_gate_parse(const char *text, enum tkc_gate_kind kind, struct tkc_gate *out, char *err,
		   size_t errlen)
{
	memset(out, 0, sizeof(*out));
	int st = TK_OK;
	if (!text || !*text) {
		st = fail(err, errlen, "", "empty gate");
		goto out;
	}
	out->kind = kind;
	if (!(out->text = strdup(text))) {
		st = TK_ENOMEM;
		goto out;
	}
	st = kind == TKC_GATE_REL ? parse_rel(text, out, err, errlen)
				  : parse_bound(text, out, err, errlen);
	if (st == TK_ENOMEM && err && errlen)
		snprintf(err, errlen, "out of memory");
out:
	if (st != TK_OK)
		gate_free(out);
	return st;
}

int tkc_gates_add(struct tkc_gates *g, const char *text, enum tkc_gate_kind kind, char *err,
		  size_t errlen)
{
	struct tkc_gate gate;
	int st = tkc_gate_parse(text, kind, &gate, err, errlen);
	if (st != TK_OK)
		return st;
	if (TKU_GROW(g->v, g->cap, g->n + 1, 8) != TK_OK) {
		gate_free(&gate);
		if (err && errlen)
			snprintf(err, errlen, "out of memory");
		return TK_ENOMEM;
	}
	g->v[g->n++] = gate;
	return TK_OK;
}

int tkc_gates_defaults(struct tkc_gates *g, char *err, size_t errlen)
{
	static const char *const defaults[] = {"step_time:+5%", "busy:+5%", "memory.peak:+5%",
					       "kernel:*:+10%", "op:*:+10%"};
	for (size_t i = 0; i < sizeof(defaults) / sizeof(defaults[0]); i++) {
		int st = tkc_gates_add(g, defaults[i], TKC_GATE_REL, err, errlen);
		if (st != TK_OK)
			return st;
		g->v[g->n - 1].is_default = 1;
	}
	return TK_OK;
}

void tkc_gates_free(struct tkc_gates *g)
{
	if (!g)
		return;
	for (size_t i = 0; i < g->n; i++)
		gate_free(&g->v[i]);
	free(g->v);
	g->v = NULL;
	g->n = g->cap = 0;
}

/*
 * Device peaks (docs/peaks.md; docs/metrics.md, "analysis_device_peaks"): per device and dtype
 * the dense peak FLOP/s, and per device the peak memory bandwidth, resolved from (lowest to
 * highest precedence) the built-in table (peaks_table.c, matched by the device's name and
 * figures), the trace's own figures (devices.peak_flops, memory_bandwidth_bps), a device file
 * (--device-file, JSON) and the --peak-flops / --peak-bandwidth options. Runs before every other
 * analysis, so that a bad device file fails before the events are read and every analysis can
 * read the peaks (tka_device_peak).
 */
#define _GNU_SOURCE /* FNM_CASEFOLD */
#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tracekit/store.h>

#include "analyze_internal.h"
#include "util/json_dom.h"

#define PEAK_MAX 1e18		  /* the largest peak accepted from a user: 1 E per second */
#define DEVICE_FILE_MAX (1 << 20) /* bytes of a device file */

enum src { SRC_NONE, SRC_TABLE, SRC_TRACE, SRC_USER };
static const char *const src_name[] = {NULL, "table", "trace", "user"};

static const char *const dtype_names[TK_DTYPE_COUNT] = {"fp64", "fp32", "tf32", "bf16",
							"fp16", "fp8",	"int8"};

const char *tk_dtype_name(enum tk_dtype t)
{
	return (unsigned)t < TK_DTYPE_COUNT ? dtype_names[t] : NULL;
}

/* The dtype named @s (exactly, as tk_dtype_name writes it), -1 when none. */
static int dtype_of(const char *s)
{
	for (int t = 0; t < TK_DTYPE_COUNT; t++)
		if (!strcmp(s, dtype_names[t]))
			return t;
	return -1;
}

int tk_peak_value_parse(const char *text, double *out)
{
	static const char prefixes[] = "kKMGTPE";
	static const double scale[] = {1e3, 1e3, 1e6, 1e9, 1e12, 1e15, 1e18};
	char *end;
	if (!text || !*text || *text == ' ' || *text == '+' || *text == '-')
		return TK_EINVAL;
	errno = 0;
	double v = strtod(text, &end);
	if (end == text || errno == ERANGE)
		return TK_EINVAL;
	if (*end) {
		const char *p = strchr(prefixes, *end);
		if (!p || end[1])
			return TK_EINVAL;
		v *= scale[p - prefixes];
	}
	if (!(v > 0) || v > PEAK_MAX) /* also NaN, inf, hex floats' oddities */
		return TK_EINVAL;
	*out = v;
	return TK_OK;
}

int tk_analyze_peak_flops_option(struct tk_analyze_options *o, const char *arg, tk_error *err)
{
	const char *eq = arg ? strchr(arg, '=') : NULL;
	int t = TK_DTYPE_BF16;
	double v;
	tk_error_clear(err);
	if (!o || !arg)
		return tk_error_push_from(err, "analyze", TK_EINVAL, "--peak-flops: no value");
	if (eq) {
		char name[16];
		size_t n = (size_t)(eq - arg);
		if (n >= sizeof(name) ||
		    (memcpy(name, arg, n), name[n] = '\0', t = dtype_of(name)) < 0) {
			return tk_error_push_from(
			    err, "analyze", TK_EINVAL,
			    "--peak-flops: '%.*s' is no dtype (fp64, fp32, tf32, "
			    "bf16, fp16, fp8, int8)",
			    (int)(n > 40 ? 40 : n), arg);
		}
	}
	if (tk_peak_value_parse(eq ? eq + 1 : arg, &v) != TK_OK) {
		return tk_error_push_from(
		    err, "analyze", TK_EINVAL,
		    "--peak-flops expects [DTYPE=]VALUE: FLOP/s with an optional k, M, G, T, P "
		    "or E (989T, 1.979P), above 0 and at most 1E; got '%.80s'",
		    arg);
	}
	o->peak_flops[t] = v;
	return TK_OK;
}

const struct tka_peak_model *tka_peak_model_find(const char *model)
{
	for (const struct tka_peak_model *m = tka_peak_models; m->model; m++)
		if (!strcmp(m->model, model))
			return m;
	return NULL;
}

/* 1 when @glob matches @name ignoring case; "" matches a device with no name (@name NULL or ""). */
static int name_matches(const char *glob, const char *name)
{
	name = name ? name : "";
	return *glob ? fnmatch(glob, name, FNM_CASEFOLD) == 0 : *name == '\0';
}

static int rule_holds(const struct tka_peak_rule *r, const struct tka_peak_device *d)
{
	double gib = d->memory_bytes == TK_NONE ? -1 : (double)d->memory_bytes / 1073741824.0;
	if (!name_matches(r->glob, d->name))
		return 0;
	if (r->vendor && d->vendor && strcmp(r->vendor, d->vendor))
		return 0;
	if (r->cc && (!d->cc || strcmp(r->cc, d->cc)))
		return 0;
	if (r->units && d->units != r->units)
		return 0;
	if (r->clock_mhz &&
	    (d->clock_hz == TK_NONE || llround((double)d->clock_hz / 1e6) != r->clock_mhz))
		return 0;
	if ((r->mem_min_gib > 0 || r->mem_max_gib > 0) && gib < 0)
		return 0;
	if ((r->mem_min_gib > 0 && gib <= r->mem_min_gib) ||
	    (r->mem_max_gib > 0 && gib > r->mem_max_gib))
		return 0;
	return 1;
}

const struct tka_peak_rule *tka_peak_match(const struct tka_peak_device *d)
{
	for (const struct tka_peak_rule *r = tka_peak_rules; r->glob; r++)
		if (rule_holds(r, d))
			return r;
	return NULL;
}

/* ---- the device file ---- */

struct dentry {
	const char *glob, *model; /* in the parsed document */
	double flops[TK_DTYPE_COUNT], bandwidth;
};

struct dfile {
	const char *path;
	struct tku_json_value *root;
	struct dentry *e;
	size_t n;
};

static int dfail(struct tka_ctx *c, const struct dfile *f, const struct tku_json_value *v,
		 const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static int dfail(struct tka_ctx *c, const struct dfile *f, const struct tku_json_value *v,
		 const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return tka_fail(c, TK_EFORMAT, "device file '%s': line %llu, column %llu: %s", f->path,
			(unsigned long long)v->line, (unsigned long long)v->col, msg);
}

/* A peak of the device file: a number, or a string with an SI prefix ("989T"). */
static int dvalue(struct tka_ctx *c, const struct dfile *f, const struct tku_json_value *v,
		  const char *what, double *out)
{
	if ((v->type == TKU_JSON_NUMBER && v->num > 0 && v->num <= PEAK_MAX &&
	     (*out = v->num, 1)) ||
	    (v->type == TKU_JSON_STRING && strlen(v->str) == v->len &&
	     tk_peak_value_parse(v->str, out) == TK_OK))
		return TK_OK;
	return dfail(c, f, v,
		     "%s is a number above 0 and at most 1e18, or a string such as \"989T\" (SI "
		     "prefixes k M G T P E)",
		     what);
}

static int dentry_parse(struct tka_ctx *c, struct dfile *f, const struct tku_json_value *v,
			struct dentry *e)
{
	int rc = TK_OK;
	memset(e, 0, sizeof(*e));
	if (v->type != TKU_JSON_OBJECT)
		return dfail(c, f, v,
			     "each entry of \"devices\" is an object: {\"match\": \"NAME GLOB\", "
			     "\"model\": ..., \"flops\": {\"bf16\": \"989T\"}, \"bandwidth\": "
			     "\"3.35T\"}");
	for (size_t i = 0; i < v->n && rc == TK_OK; i++) {
		const char *k = v->keys[i];
		const struct tku_json_value *x = &v->items[i];
		if (!strcmp(k, "match") || !strcmp(k, "model")) {
			if (x->type != TKU_JSON_STRING || strlen(x->str) != x->len || x->len > 256)
				return dfail(c, f, x, "\"%s\" is a string of at most 256 bytes", k);
			*(!strcmp(k, "match") ? &e->glob : &e->model) = x->str;
		} else if (!strcmp(k, "bandwidth")) {
			rc = dvalue(c, f, x, "\"bandwidth\" (bytes/s)", &e->bandwidth);
		} else if (!strcmp(k, "flops")) {
			if (x->type != TKU_JSON_OBJECT)
				return dfail(c, f, x,
					     "\"flops\" is an object of DTYPE: FLOP/s (fp64, fp32, "
					     "tf32, bf16, fp16, fp8, int8)");
			for (size_t j = 0; j < x->n && rc == TK_OK; j++) {
				int t = dtype_of(x->keys[j]);
				if (t < 0)
					return dfail(
					    c, f, &x->items[j],
					    "\"%.40s\" is no dtype (fp64, fp32, tf32, bf16, "
					    "fp16, fp8, int8)",
					    x->keys[j]);
				rc =
				    dvalue(c, f, &x->items[j], "a peak in \"flops\"", &e->flops[t]);
			}
		} else {
			return dfail(c, f, x,
				     "unknown key \"%.40s\" (an entry has match, model, flops, "
				     "bandwidth)",
				     k);
		}
	}
	if (rc == TK_OK && !e->glob)
		rc = dfail(c, f, v, "the entry has no \"match\" (a glob on the device name)");
	return rc;
}

static int dfile_load(struct tka_ctx *c, struct dfile *f)
{
	char msg[768];
	int rc = tku_json_parse_file(f->path, DEVICE_FILE_MAX, &f->root, msg, sizeof(msg));
	if (rc != TK_OK)
		return tka_fail(c, rc, "device file: %s", msg);
	const struct tku_json_value *r = f->root, *devs = tku_json_get(r, "devices");
	if (r->type != TKU_JSON_OBJECT || r->n != 1 || !devs || devs->type != TKU_JSON_ARRAY)
		return dfail(c, f, r->type == TKU_JSON_OBJECT && r->n == 1 && devs ? devs : r,
			     "a device file is a JSON object with one key, \"devices\": an array "
			     "of entries (docs/peaks.md)");
	if (devs->n && !(f->e = calloc(devs->n, sizeof(*f->e))))
		return tka_fail(c, TK_ENOMEM, "out of memory");
	for (size_t i = 0; i < devs->n; i++, f->n++)
		if ((rc = dentry_parse(c, f, &devs->items[i], &f->e[i])) != TK_OK)
			return rc;
	return TK_OK;
}

/* ---- resolution ---- */

struct note {
	char s[1024];
	size_t n;
};

static void say(struct note *nt, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(struct note *nt, const char *fmt, ...)
{
	va_list ap;
	if (nt->n >= sizeof(nt->s) - 1)
		return;
	if (nt->n)
		nt->n += (size_t)snprintf(nt->s + nt->n, sizeof(nt->s) - nt->n, "; ");
	if (nt->n >= sizeof(nt->s) - 1)
		return;
	va_start(ap, fmt);
	int k = vsnprintf(nt->s + nt->n, sizeof(nt->s) - nt->n, fmt, ap);
	va_end(ap);
	nt->n = k < 0 ? nt->n : nt->n + (size_t)k;
	if (nt->n > sizeof(nt->s) - 1)
		nt->n = sizeof(nt->s) - 1;
}

/* "bf16, fp8" of the dtypes @set marks, in @buf. */
static const char *dtype_list(const double *set, char *buf, size_t len)
{
	size_t n = 0;
	buf[0] = '\0';
	for (int t = 0; t < TK_DTYPE_COUNT; t++)
		if (set[t] > 0 && n < len)
			n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? ", " : "",
					      dtype_names[t]);
	return buf;
}

struct resolved {
	double flops[TK_DTYPE_COUNT];
	enum src fsrc[TK_DTYPE_COUNT];
	double bw;
	enum src bsrc;
	const char *model;
	struct note note;
};

static void from_table(struct resolved *r, const struct tka_peak_device *d)
{
	const struct tka_peak_rule *rule = tka_peak_match(d);
	const struct tka_peak_model *m = rule ? tka_peak_model_find(rule->model) : NULL;
	if (!m) {
		if (d->name && *d->name)
			say(&r->note, "no built-in row matches the name '%.200s'", d->name);
		else
			say(&r->note, "no name, and no built-in row matches its figures");
		return;
	}
	double scale = 1;
	r->model = m->model;
	if (*rule->glob)
		say(&r->note, "the name '%.200s' matched the built-in row %s (rule '%s')", d->name,
		    m->model, rule->glob);
	else
		say(&r->note, "matched the built-in row %s", m->model);
	if (rule->note)
		say(&r->note, "%s", rule->note);
	if (m->units && d->units != TK_NONE && d->units > 0 && d->units != m->units) {
		if (d->units < m->units) {
			scale = (double)d->units / m->units;
			say(&r->note,
			    "the device has %lld of the row's %d SMs/CUs (a MIG slice or a "
			    "partition): FLOP/s scaled by %lld/%d, bandwidth not",
			    (long long)d->units, m->units, (long long)d->units, m->units);
		} else {
			say(&r->note, "the device has %lld SMs/CUs, the row %d: check the match",
			    (long long)d->units, m->units);
		}
	}
	for (int t = 0; t < TK_DTYPE_COUNT; t++)
		if (m->tflops[t] > 0) {
			r->flops[t] = m->tflops[t] * 1e12 * scale;
			r->fsrc[t] = SRC_TABLE;
		}
	r->bw = m->tbps * 1e12;
	r->bsrc = SRC_TABLE;
}

static void from_trace(struct resolved *r, double flops, int64_t bw)
{
	if (flops > 0) {
		if (r->fsrc[TK_DTYPE_BF16] == SRC_TABLE && r->flops[TK_DTYPE_BF16] != flops)
			say(&r->note, "bf16 from the trace: %.6g TFLOP/s (the table: %.6g TFLOP/s)",
			    flops / 1e12, r->flops[TK_DTYPE_BF16] / 1e12);
		else
			say(&r->note, "bf16 from the trace (devices.peak_flops)");
		r->flops[TK_DTYPE_BF16] = flops;
		r->fsrc[TK_DTYPE_BF16] = SRC_TRACE;
	}
	if (bw > 0) {
		if (r->bsrc == SRC_TABLE && llround(r->bw) != bw)
			say(&r->note, "bandwidth from the trace: %.6g GB/s (the table: %.6g GB/s)",
			    (double)bw / 1e9, r->bw / 1e9);
		else
			say(&r->note, "bandwidth from the trace (devices.memory_bandwidth_bps)");
		r->bw = (double)bw;
		r->bsrc = SRC_TRACE;
	}
}

/* The user's peaks @flops / @bw (0 = none) over what @r has; @who names where they came from. */
static void from_user(struct resolved *r, const double *flops, double bw, const char *who)
{
	char list[64];
	for (int t = 0; t < TK_DTYPE_COUNT; t++)
		if (flops[t] > 0) {
			r->flops[t] = flops[t];
			r->fsrc[t] = SRC_USER;
		}
	if (bw > 0) {
		r->bw = bw;
		r->bsrc = SRC_USER;
	}
	dtype_list(flops, list, sizeof(list));
	if (list[0] || bw > 0)
		say(&r->note, "%s%s%s from %s", list, list[0] && bw > 0 ? ", " : "",
		    bw > 0 ? "bandwidth" : "", who);
}

static int write_device(struct tka_ctx *c, sqlite3_stmt *ins, int64_t id, struct resolved *r)
{
	int any = 0;
	for (int t = 0; t < TK_DTYPE_COUNT; t++)
		any |= r->flops[t] > 0;
	for (int t = 0; t < TK_DTYPE_COUNT + 1; t++) {
		int flop_row = t < TK_DTYPE_COUNT && r->flops[t] > 0;
		int bw_row = t == TK_DTYPE_COUNT && !any && r->bw > 0;
		if (!flop_row && !bw_row)
			continue;
		sqlite3_reset(ins);
		sqlite3_clear_bindings(ins);
		sqlite3_bind_int64(ins, 1, id);
		if (flop_row) {
			sqlite3_bind_text(ins, 2, dtype_names[t], -1, SQLITE_STATIC);
			sqlite3_bind_double(ins, 3, r->flops[t]);
			sqlite3_bind_text(ins, 4, src_name[r->fsrc[t]], -1, SQLITE_STATIC);
		}
		if (r->bw > 0) {
			sqlite3_bind_int64(ins, 5, llround(r->bw));
			sqlite3_bind_text(ins, 6, src_name[r->bsrc], -1, SQLITE_STATIC);
		}
		if (r->model)
			sqlite3_bind_text(ins, 7, r->model, -1, SQLITE_TRANSIENT);
		sqlite3_bind_text(ins, 8, r->note.s, -1, SQLITE_TRANSIENT);
		if (sqlite3_step(ins) != SQLITE_DONE)
			return tka_fail(c, tka_sql_status(c), "writing analysis_device_peaks: %s",
					sqlite3_errmsg(c->db));
	}
	return TK_OK;
}

static const char *col_text(sqlite3_stmt *st, int i)
{
	return (const char *)sqlite3_column_text(st, i);
}

TKA_WRITES(TK_NCOLS_ANALYSIS_DEVICE_PEAKS, 8, "analysis_device_peaks");

int tka_peaks(struct tka_ctx *c)
{
	const struct tk_analyze_options *o = c->opt;
	static const double none[TK_DTYPE_COUNT];
	struct dfile f = {o->device_file, NULL, NULL, 0};
	sqlite3_stmt *q = NULL, *ins = NULL;
	char who[600];
	int rc, step;
	if ((f.path && (rc = dfile_load(c, &f)) != TK_OK) ||
	    (rc = tka_prepare(c,
			      "INSERT INTO analysis_device_peaks (" TK_COLS_ANALYSIS_DEVICE_PEAKS
			      ") VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
			      &ins)) != TK_OK ||
	    (rc = tka_prepare(
		 c,
		 "SELECT d.id, s.str, d.vendor, d.compute_capability, d.sm_count,"
		 " d.clock_hz, d.memory_bytes, d.peak_flops, d.memory_bandwidth_bps"
		 " FROM devices d LEFT JOIN strings s ON s.id = d.name_id ORDER BY d.id",
		 &q)) != TK_OK)
		goto out;
	while ((step = sqlite3_step(q)) == SQLITE_ROW) {
		struct tka_peak_device d = {col_text(q, 1),	   col_text(q, 2),
					    col_text(q, 3),	   tka_col_or_none(q, 4),
					    tka_col_or_none(q, 5), tka_col_or_none(q, 6)};
		struct resolved r;
		memset(&r, 0, sizeof(r));
		double trace_flops =
		    sqlite3_column_type(q, 7) == SQLITE_NULL ? 0 : sqlite3_column_double(q, 7);
		from_table(&r, &d);
		from_trace(&r, trace_flops == trace_flops ? trace_flops : 0, tka_col_or_none(q, 8));
		for (size_t i = 0; i < f.n; i++) {
			const struct dentry *e = &f.e[i];
			if (!name_matches(e->glob, d.name))
				continue;
			snprintf(who, sizeof(who), "device file '%.300s' entry %zu ('%.200s')",
				 f.path, i + 1, e->glob);
			from_user(&r, e->flops, e->bandwidth, who);
			if (e->model)
				r.model = e->model;
			break;
		}
		from_user(&r, o->peak_flops, 0, "--peak-flops");
		from_user(&r, none, o->peak_bandwidth_bps, "--peak-bandwidth");
		if ((rc = write_device(c, ins, sqlite3_column_int64(q, 0), &r)) != TK_OK)
			goto out;
	}
	if (step != SQLITE_DONE)
		rc = tka_fail(c, tka_sql_status(c), "reading devices: %s", sqlite3_errmsg(c->db));
out:
	sqlite3_finalize(q);
	sqlite3_finalize(ins);
	tku_json_free(f.root);
	free(f.e);
	return rc;
}

int tka_device_peak(struct tka_ctx *c, int64_t device_id, struct tka_device_peak *out)
{
	sqlite3_stmt *q = NULL;
	int rc, step;
	memset(out, 0, sizeof(*out));
	if ((rc = tka_prepare(c,
			      "SELECT dtype, peak_flops, peak_bandwidth_bps, bandwidth_source"
			      " FROM analysis_device_peaks WHERE device_id = ?",
			      &q)) != TK_OK)
		return rc;
	sqlite3_bind_int64(q, 1, device_id);
	while ((step = sqlite3_step(q)) == SQLITE_ROW) {
		const char *dt = col_text(q, 0), *bs = col_text(q, 3);
		int t = dt ? dtype_of(dt) : -1;
		if (t >= 0)
			out->flops[t] = sqlite3_column_double(q, 1);
		if (sqlite3_column_type(q, 2) != SQLITE_NULL) {
			out->bandwidth_bps = sqlite3_column_int64(q, 2);
			snprintf(out->bandwidth_source, sizeof(out->bandwidth_source), "%s",
				 bs ? bs : "");
		}
	}
	if (step != SQLITE_DONE)
		rc = tka_fail(c, tka_sql_status(c), "reading analysis_device_peaks: %s",
			      sqlite3_errmsg(c->db));
	sqlite3_finalize(q);
	return rc;
}

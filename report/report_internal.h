/*
 * Internal interface of the report module: a report (or a diff) is a list of sections, each a
 * table loaded once from the analysis_* tables by one SQL statement (report_model.c), so that every
 * output format (report_text.c, report_md.c, report_json.c, report_html.c) prints the same
 * numbers. Formats only format; they compute nothing. Not part of the public API.
 */
#ifndef TK_REPORT_INTERNAL_H
#define TK_REPORT_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <tracekit/report.h>
#include <tracekit/store.h>

#include "util/buf.h"
#include "util/escape.h"
#include "util/fmt.h"
#include "util/vec.h"

struct sqlite3;

/* How a column's value is shown (JSON always writes the raw value). */
enum tkr_kind {
	TKR_INT,      /* integer as is */
	TKR_NS,	      /* duration in ns, shown with an adaptive unit (ns, µs, ms, s) */
	TKR_TS,	      /* absolute time in ns, shown relative to the trace start ("+1.25 s") */
	TKR_UTC,      /* absolute time in ns since the epoch, shown as UTC when the clock is */
	TKR_BYTES,    /* bytes, shown with a binary unit */
	TKR_BPS,      /* bytes per second, shown in GB/s */
	TKR_FLOPS,    /* FLOP/s, shown in TFLOP/s */
	TKR_PCT,      /* a percentage (already × 100), one decimal */
	TKR_RATIO,    /* 0..1, shown as a percentage */
	TKR_DPCT,     /* a relative change (0.05 = +5.0 %), signed */
	TKR_DNS,      /* a change of a duration in ns, signed */
	TKR_UVAL,     /* a value whose unit is the row's "unit" column: %, ns, ratio, count */
	TKR_UDELTA,   /* as TKR_UVAL, signed */
	TKR_REAL,     /* a real, 4 significant digits */
	TKR_TEXT,     /* text as is */
	TKR_NAME,     /* an op or kernel name: shortened to fit in text */
	TKR_BAND,     /* good / warning / bad / n-a (coloured) */
	TKR_SEVERITY, /* high / medium (coloured) */
	TKR_FLAG,     /* a short mark such as "*" or "new" (coloured) */
	TKR_JSON,     /* JSON text, embedded as is in JSON output */
	TKR_DEVICE,   /* a device id: shown as the trace names the device ("GPU 1 (rank 1)") */
	TKR_PROCESS,  /* a process id: shown by its pid ("pid 2568503") */
	TKR_WHERE,    /* shown as the row's device_id label, else its process_id label */
};

/* Column flags. */
#define TKR_C_JSON 1   /* only in JSON output */
#define TKR_C_SHOW 2   /* only in text, Markdown and HTML (a display form of JSON columns) */
#define TKR_C_FLEX 4   /* text: takes the width the other columns leave (shortened to fit) */
#define TKR_C_OPT 8    /* text: left out, rightmost first, when the table is too wide */
#define TKR_C_HUMAN 16 /* analysis text: "<integer> ns" and "device N" shown as people read them */

struct tkr_col {
	const char *key;   /* the SQL column name; the JSON key */
	const char *title; /* the heading in text, Markdown and HTML */
	enum tkr_kind kind;
	int flags;
};

/* Section styles. */
enum tkr_style {
	TKR_TABLE,    /* rows and columns */
	TKR_KV,	      /* one row shown as "title: value" lines */
	TKR_FINDINGS, /* findings: one block per row */
	TKR_CHART,    /* data for an HTML chart only: no table, not in JSON */
};

struct tkr_section_def {
	const char *key;   /* JSON key, HTML id */
	const char *title; /* heading */
	const char *group; /* heading of the group this section opens, or NULL */
	enum tkr_style style;
	int cap; /* rows kept: > 0 that many, -1 the --top option */
	const char *sql;
	const struct tkr_col *cols;
	const char *empty; /* what to say when there are no rows (NULL: skip the section) */
};

/* A cell: type is SQLITE_NULL, SQLITE_INTEGER, SQLITE_FLOAT or SQLITE_TEXT. */
struct tkr_cell {
	int type;
	int64_t i;
	double d;
	char *s;
};

struct tkr_section {
	const struct tkr_section_def *def;
	int ncols;		/* columns in def->cols */
	int available;		/* 0 when its analysis table is missing */
	size_t nrows;		/* rows kept */
	int64_t total;		/* rows before the cap */
	struct tkr_cell *cells; /* nrows × ncols, in def->cols order */
};

/* Busy share of one device in equal time bins (HTML chart only). */
struct tkr_util {
	int64_t device_id;
	double utilization; /* busy / length of its device window (analysis_device_time) */
	int nbins;
	double *share; /* nbins values in 0..1, or < 0 where the bin is outside the device window */
};

/* One value of a finding's evidence (evidence.c): its key as shown, how it is shown, the value. */
struct tkr_ev_item {
	char *key;
	enum tkr_kind kind; /* TKR_NS, TKR_TS, TKR_BYTES, TKR_PCT, TKR_RATIO, TKR_NAME, ... */
	struct tkr_cell v;
};
struct tkr_ev_list {
	struct tkr_ev_item *it;
	size_t n;
};
/* A finding's evidence: its top-level values and one list per offender ("top"). */
struct tkr_ev {
	struct tkr_ev_list main;
	struct tkr_ev_list *top;
	size_t ntop;
};

/* A device or process id and its label; a full name and its short label (labels.c). */
struct tkr_idlabel {
	int64_t id;
	char *label;
};
struct tkr_namelabel {
	const char *full; /* points into the model's cells or evidence */
	char *label;
};

/* The three lines a report opens with (verdict.c; docs/metrics.md, "The verdict"). */
struct tkr_verdict {
	int ok;		  /* made (reports; diffs have none) */
	long kpi_row;	  /* the gpu_utilization row of the "kpis" section shown, -1 none */
	int kpi_devices;  /* devices with a utilization */
	long finding_row; /* the row of the "findings" section named, -1 none */
	int tier;	  /* its tier: 1 device time lost, 2 spent badly, 3 not device time */
	char *line[3];	  /* headline KPI, biggest bottleneck, fix; plain text (NULL: no memory) */
};

struct tkr_model {
	int is_diff;
	int full_names;		/* --full-names: names are shown as they are */
	char *path, *path_b;	/* the store(s) */
	char *clock;		/* meta.clock, or NULL */
	int64_t trace_start_ns; /* meta.trace_start_ns (0 when unknown) */
	int top;
	double threshold; /* diff: relative change that is flagged */
	struct tkr_section *sections;
	size_t nsections;
	/* utilization over time, HTML only: bins of bin_ns from util_start_ns */
	int64_t util_start_ns, util_bin_ns;
	struct tkr_util *util;
	size_t nutil;
	struct tkr_ev *ev; /* one per row of the "findings" section */
	size_t nev;
	struct tkr_idlabel *devs, *procs; /* sorted by id */
	size_t ndevs, nprocs;
	struct tkr_namelabel *names; /* sorted by full name */
	size_t nnames;
	struct tkr_verdict verdict;
};

/* ---- report_sections.c, diff.c ---- */
extern const struct tkr_section_def tkr_report_sections[];
extern const size_t tkr_report_nsections;

/* The SQL of the rows a capped section holds before its cap when that is not the count of its
 * rows (report_sections.c: the largest gaps of a job summary, which keeps only the longest), or
 * NULL. */
const char *tkr_section_total_sql(const struct tkr_section_def *def);
extern const struct tkr_section_def tkr_diff_sections[];
extern const size_t tkr_diff_nsections;

/* ---- report_model.c ---- */
/*
 * Load every section of @defs from @db (the diff attaches the second store as "b") into a new
 * model. Named parameters :top and :thr of the SQL are bound to @top and @threshold.
 */
int tkr_model_load(struct sqlite3 *db, const struct tkr_section_def *defs, size_t ndefs, int top,
		   double threshold, struct tkr_model *m, char *err, size_t errlen);
/* Compute m->util from the device events (equal bins over the device windows). */
int tkr_model_load_util(struct sqlite3 *db, struct tkr_model *m, int nbins, char *err,
			size_t errlen);
void tkr_model_free(struct tkr_model *m);
/* @o with the defaults filled in (NULL: all defaults). */
struct tk_report_options tkr_effective_options(const struct tk_report_options *o);
/* The failure @rc of tk_store_open() into @err: the store's causes (@s may be NULL); @rc. */
int tkr_store_fail(tk_error *err, int rc, tk_store *s);
/* A failure @rc whose message is in @msg (an internal buffer) into @err; @rc. */
int tkr_fail_msg(tk_error *err, int rc, const char *msg);
/* Write @m in @o's format (TK_EIO on a write error, message in @err). */
int tkr_write_model(FILE *out, const struct tkr_model *m, const struct tk_report_options *o,
		    char *err, size_t errlen);
/* The section with @key, or NULL. */
const struct tkr_section *tkr_find(const struct tkr_model *m, const char *key);
/* Index of the column @key in @s, or -1. */
int tkr_col(const struct tkr_section *s, const char *key);
/* The cell of row @r, column @c. */
const struct tkr_cell *tkr_cell(const struct tkr_section *s, size_t r, int c);
/* Numeric value of a cell (NAN when NULL or text). */
double tkr_num(const struct tkr_cell *c);
/* 1 when column @c of @s is shown in text/Markdown/HTML (not JSON-only). */
int tkr_shown(const struct tkr_section *s, int c);

/* ---- report_util.c (the text buffer is util/buf.h's struct tku_buf) ---- */
/* Display characters of UTF-8 text (continuation bytes not counted). */
int tkr_width(const char *s);
/* Cut @b's text to at most @w display characters, ending in "…" when cut. */
void tkr_cut(struct tku_buf *b, int w);
/*
 * tkr_short_name() - the label @name fitted in @w characters: as it is when it fits, else
 * without the namespaces of its function name ("…::"), then cut ("…"). Appended to @b.
 */
void tkr_short_name(struct tku_buf *b, const char *name, int w);
/* The display text of a cell (as tku_esc_terminal(): control and bidi characters shown escaped). */
void tkr_format_cell(struct tku_buf *b, const struct tkr_model *m, const struct tkr_section *s,
		     size_t r, int c);
/* The label of row @r's device, else of its process (not escaped); 0 when it has neither. */
int tkr_where(struct tku_buf *b, const struct tkr_model *m, const struct tkr_section *s, size_t r);
/* The display text of value @v shown as @k (@unit: the unit of TKR_UVAL/TKR_UDELTA), not escaped. */
void tkr_format_value(struct tku_buf *b, const struct tkr_model *m, enum tkr_kind k,
		      const struct tkr_cell *v, const char *unit);
/* 1 when the column is right-aligned (numbers). */
int tkr_right_aligned(enum tkr_kind k);

/* ---- labels.c ---- */
/* Load the device, process and name labels of @m (after its sections and evidence). */
int tkr_labels_load(struct sqlite3 *db, struct tkr_model *m);
void tkr_labels_free(struct tkr_model *m);
/* The short label of the name @full (@full itself with --full-names or when unknown). */
const char *tkr_name_label(const struct tkr_model *m, const char *full);
/* The label of device (@process 0) or process (@process 1) @id, appended to @b. */
void tkr_id_label(struct tku_buf *b, const struct tkr_model *m, int process, int64_t id);
/*
 * Unique labels for the distinct @names (@n of them) into @labels (freed by the caller): each at
 * the least detail that no other name of the set shares, "#N" appended (in the order given)
 * where even the full detail is shared.
 */
int tkr_name_labels(char *const *names, size_t n, char **labels);
/* @name at detail @level (0: every template argument collapsed); *@max_level the most. */
void tkr_name_at_level(struct tku_buf *b, const char *name, int level, int *max_level);

/* ---- evidence.c ---- */
/* Read the evidence of every finding of @m into m->ev. */
int tkr_evidence_load(struct sqlite3 *db, struct tkr_model *m, char *err, size_t errlen);
void tkr_evidence_free(struct tkr_model *m);
/*
 * @l as "key=value, ..." in human units, names as labels (0: not fitted); an offender with a
 * name leads with it, fitted to @name_w: "label (calls=10, total=1.20 ms)"; the other names are
 * fitted to half of it (at least 24). @html: escaped for
 * HTML with the full name on hover; else not escaped (the caller escapes for its format).
 */
void tkr_evidence_line(struct tku_buf *b, const struct tkr_model *m, const struct tkr_ev_list *l,
		       int name_w, int html);

/* ---- verdict.c ---- */
/* Make m->verdict from the model's sections (after labels and evidence are loaded). */
void tkr_verdict_make(struct tkr_model *m);
void tkr_verdict_free(struct tkr_model *m);

/* ---- the formats ---- */
int tkr_write_text(FILE *out, const struct tkr_model *m, const struct tk_report_options *o);
int tkr_write_md(FILE *out, const struct tkr_model *m, const struct tk_report_options *o);
int tkr_write_json(FILE *out, const struct tkr_model *m, const struct tk_report_options *o);
int tkr_write_html(FILE *out, const struct tkr_model *m, const struct tk_report_options *o);
/* report_svg.c: the chart that belongs after section @key ("" when none). */
void tkr_html_chart(struct tku_buf *b, const struct tkr_model *m, const char *key);
/* The roofline charts (report_roofline.c), one per device, under the "roofline" section. */
void tkr_html_roofline(struct tku_buf *b, const struct tkr_model *m);
/* report_svg.c: the device timeline overview (utilization over time per device, idle marked). */
void tkr_html_timeline(struct tku_buf *b, const struct tkr_model *m);

#endif

/*
 * Internal interface of the regression gate (`tracekit baseline`, `tracekit check`): the summary
 * of one or more runs (a baseline, or the input being checked; baseline.c builds it from analysed
 * stores, baseline_json.c writes and reads it), the gates (gates.c parses them), the statistics
 * (stats.c) and the comparison (compare.c) whose result the writers print (check_out.c).
 * docs/baseline.md documents the baseline file, docs/check.md the gates and the rules.
 */
#ifndef TK_CHECK_INTERNAL_H
#define TK_CHECK_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define TKC_BASELINE_VERSION 1 /* "version" of the baseline JSON this tracekit writes and reads */

/* ---- the summary of runs ---- */

/*
 * Samples of one metric: per step (one value per profiled step) or per run (one per run).
 * v holds every run's samples one run after another; runs[r] says how many belong to run r.
 */
struct tkc_series {
	char *key;     /* metric key: "step_time", "kpi.gpu_utilization", ...; a kernel's name */
	char unit[8];  /* "ns", "bytes" or "%" */
	int per_step;  /* 1: one sample per step, 0: one per run */
	double *v;     /* the samples */
	size_t n;      /* count of v */
	size_t *runs;  /* [nruns]: samples of each run */
	size_t nruns;
};

/* A kernel (device op by name) or an HLO op of the workload. */
struct tkc_item {
	char *name;
	double calls_per_step; /* mean calls per step over all steps of all runs */
	double ns_per_step;    /* mean device time per step (mean over devices) */
	double share;	       /* ns_per_step / the workload's device-op time per step */
	struct tkc_series s;   /* per-step device time; n = 0 when the item is below the sample share */
};

struct tkc_model {
	char *model; /* device product name ("NVIDIA A100-SXM4-40GB"), or its kind when unnamed */
	int64_t count;
};

struct tkc_run {
	char *input;	       /* the file name it came from (no directory) */
	int64_t steps;	       /* steps in the window (device steps of the longest-stepped device) */
	char window[16];       /* "steps", "device" or "mixed" */
	char step_source[24];  /* analysis_step_stats.source, "mixed", or "" without steps */
	int64_t device_ops;    /* device operations of the run */
};

struct tkc_memory {
	char *device; /* "GPU 0" as the reports name it */
	int64_t peak_bytes;
};

struct tkc_summary {
	char *tracekit_version;
	int64_t analysis_version;
	struct tkc_run *runs;
	size_t nruns;
	struct tkc_model *models; /* sorted by model name */
	size_t nmodels;
	int64_t devices, ranks;   /* devices with device work; distinct ranks (0 when unknown) */
	int has_steps;		  /* every run has steps in its window */
	struct tkc_series *metrics; /* step_time, host_step_time, busy, comm, comm.exposed,
				       memory.peak, kpi.<name>: what the runs have */
	size_t nmetrics;
	struct tkc_item *kernels, *ops; /* by ns_per_step, descending */
	size_t nkernels, nops;
	struct tkc_memory *memory; /* per device (max over runs) */
	size_t nmemory;
};

void tkc_summary_free(struct tkc_summary *s); /* frees the members; NULL-safe */
void tkc_series_free(struct tkc_series *s);   /* frees the members; NULL-safe */

/* Kernels and ops keep per-step samples from this share of the device-op time up, at most
 * TKC_SAMPLE_MAX of them (the largest); the others are listed with their calls and time. */
#define TKC_SAMPLE_SHARE 0.001
#define TKC_SAMPLE_MAX 500

/* The series of metric @key in @s (appended empty, with @unit and @per_step, when new); NULL
 * when memory ran out. */
struct tkc_series *tkc_summary_metric(struct tkc_summary *s, const char *key, const char *unit,
				      int per_step);

/* Append sample @x of run @run to @m (runs in order); TK_OK or TK_ENOMEM. */
int tkc_series_add(struct tkc_series *m, size_t run, double x);

/* 1 when @unit is one a metric may have: "ns", "bytes" or "%". */
int tkc_known_unit(const char *unit);

/* "8 x NVIDIA A100-SXM4-40GB" for messages; 1 when two model lists are equal. */
void tkc_models_text(const struct tkc_model *m, size_t n, char *buf, size_t len);
int tkc_models_equal(const struct tkc_model *a, size_t na, const struct tkc_model *b, size_t nb);

/*
 * Building a summary from analysed stores (baseline.c): one store per run, in order. A store
 * analysed by an older tracekit is refused (TK_EVERSION: analyse it again); runs whose device
 * models differ, or of which some have steps and some none, are refused by finish (TK_EINVAL).
 */
struct tkc_builder;
/* @sample_share: items from this share of device-op time up keep per-step samples (at most
 * TKC_SAMPLE_MAX of them; the input of a check samples more than a baseline keeps). */
int tkc_builder_new(double sample_share, size_t sample_max, struct tkc_builder **out);
int tkc_builder_add_store(struct tkc_builder *b, const char *path, const char *label, char *err,
			  size_t errlen);
int tkc_builder_finish(struct tkc_builder *b, struct tkc_summary *out, char *err, size_t errlen);
void tkc_builder_free(struct tkc_builder *b);

/*
 * tkc_baseline_write() - @s as baseline JSON (docs/baseline.md) to @out; items below
 * TKC_SAMPLE_SHARE (or beyond the TKC_SAMPLE_MAX largest) are written without samples.
 * TK_OK, TK_EIO, TK_ENOMEM.
 */
int tkc_baseline_write(FILE *out, const struct tkc_summary *s);

/*
 * tkc_baseline_read() - read a baseline file into @s (zeroed first; freed on failure).
 * TK_EFORMAT (message: file, line, column, key path), TK_EVERSION (another version), TK_EIO,
 * TK_ENOMEM.
 */
int tkc_baseline_read(const char *path, struct tkc_summary *s, char *err, size_t errlen);

/* ---- gates ---- */

enum tkc_gate_kind {
	TKC_GATE_REL, /* relative to the baseline: METRIC:+5%, kernel:GLOB:+10%, kpi.x:-3pt */
	TKC_GATE_MAX, /* absolute upper bound: --max METRIC[.STAT]=VALUE */
	TKC_GATE_MIN, /* absolute lower bound: --min METRIC[.STAT]=VALUE */
};

enum tkc_amount_unit {
	TKC_UNIT_PCT, /* relative change: amount 0.05 = 5 % */
	TKC_UNIT_PT,  /* percentage points of a '%' metric: amount 3 = 3 pt */
	TKC_UNIT_ABS, /* an absolute amount in the metric's base unit (ns, bytes, %) */
};

struct tkc_gate {
	char *text;   /* the gate as the user wrote it (for messages, JUnit test names) */
	enum tkc_gate_kind kind;
	char *metric; /* "step_time", "host_step_time", "busy", "comm", "comm.exposed",
			 "memory.peak", "kpi.<name>", "kernel" or "op" */
	char *pattern; /* kernel/op gates: the name glob (fnmatch, case-sensitive); else NULL */
	char *stat;    /* MAX/MIN: "mean", "median", "p90", "min", "max" or NULL (the metric's
			  default: median for per-step metrics, the value for per-run ones) */
	int sign;      /* REL: +1 when an increase is the regression, -1 when a decrease is */
	double amount; /* REL: per unit; MAX/MIN: the bound in the metric's base unit */
	enum tkc_amount_unit unit;
	int is_default; /* one of the documented defaults (no gate was given) */
};

struct tkc_gates {
	struct tkc_gate *v;
	size_t n;
};

/*
 * tkc_gate_parse() - parse one gate. @kind REL: "METRIC:+N%" / "METRIC:-Npt" / "METRIC:+VALUE"
 * (VALUE with a unit: ns, us, µs, ms, s, B, KB, KiB, MB, MiB, GB, GiB, TB, TiB) and
 * "kernel:GLOB:+N%" / "op:GLOB:+N%" (the glob may itself hold ':'; the amount is after the last
 * ':'). @kind MAX/MIN: "METRIC[.STAT]=VALUE" (VALUE as above, or a plain number in the
 * metric's unit; '%' allowed for kpi.*). Unknown metrics, statistics, units, a missing sign,
 * a non-finite or negative amount are errors naming the gate. Returns TK_OK or TK_EINVAL (the
 * message in @err).
 */
int tkc_gate_parse(const char *text, enum tkc_gate_kind kind, struct tkc_gate *out, char *err,
		   size_t errlen);

/*
 * tkc_gates_add() - parse @text as tkc_gate_parse() and append it to @g. TK_OK, TK_EINVAL,
 * TK_ENOMEM.
 */
int tkc_gates_add(struct tkc_gates *g, const char *text, enum tkc_gate_kind kind, char *err,
		  size_t errlen);

/*
 * tkc_gates_file() - append the gates of a gates file (JSON or TOML, told by content:
 * docs/check.md). Errors name the file and the line (and column) where it broke. Also reads the
 * file's options into *@allow_hw (allow_different_hardware, unchanged when absent).
 */
int tkc_gates_file(const char *path, struct tkc_gates *g, int *allow_hw, char *err,
		   size_t errlen);

/* tkc_gates_defaults() - append the documented default gates (docs/check.md). */
int tkc_gates_defaults(struct tkc_gates *g, char *err, size_t errlen);

void tkc_gates_free(struct tkc_gates *g); /* frees the members; NULL-safe */

/*
 * tkc_value_parse() - "150ms", "70GiB", "80", "80%", "1.5e3us" into the base unit (ns, bytes, or
 * the number as is), with *@unit_out set to "ns", "bytes", "%" or "" (a bare number). TK_OK or
 * TK_EINVAL.
 */
int tkc_value_parse(const char *text, double *out, const char **unit_out);

/* ---- statistics (stats.c) ---- */

/* Median of @n values (copied and sorted; @v is left as it is); NaN when n = 0. */
double tkc_median(const double *v, size_t n);

/*
 * tkc_mann_whitney() - one-sided Mann-Whitney U test that the values @y tend to be greater than
 * @x. Exact (no ties, n_x * n_y <= 10^4... see stats.c) or the normal approximation with the tie
 * and continuity corrections. Returns the p-value in [0, 1]; 1 when either side is empty.
 */
double tkc_mann_whitney(const double *x, size_t nx, const double *y, size_t ny);

/* The smallest one-sided p-value any outcome can reach with these sample sizes: 1 / C(nx+ny, nx). */
double tkc_min_p(size_t nx, size_t ny);

/* ---- the comparison (compare.c) ---- */

#define TKC_ALPHA 0.01	     /* one-sided significance level of the per-step test */
#define TKC_MIN_OVERLAP 0.5  /* comparable workloads share at least this much kernel time */
#define TKC_GATE_SHARE 0.01  /* default kernel/op gates cover items from this share up */
#define TKC_MIN_NS 10000.0   /* smallest change of a step-level time that counts: 10 us */
#define TKC_MIN_ITEM_NS 2000.0 /* ... of one kernel's or op's time per step: 2 us */
#define TKC_MIN_BYTES 1048576.0 /* ... of a memory peak: 1 MiB */
#define TKC_MIN_PT 0.5	     /* ... of a '%' KPI: half a point */

enum tkc_status {
	TKC_PASS,     /* within the gate */
	TKC_FAIL,     /* a regression (relative gates) or a bound crossed (absolute gates) */
	TKC_IMPROVED, /* beyond the gate in the good direction, significant */
	TKC_SKIPPED,  /* nothing to compare (the metric is absent on a side) */
	TKC_NEW,      /* an item only the input has (listed, not gated) */
	TKC_GONE,     /* an item only the baseline has (listed, not gated) */
};

/* The outcome of one gate on one subject (a metric, or one kernel/op of a kernel/op gate). */
struct tkc_outcome {
	const struct tkc_gate *gate;
	char *subject;	    /* metric key ("step_time", "kpi.gpu_utilization"), or the item name */
	int item;	    /* 0 metric, 1 kernel, 2 op */
	char unit[8];	    /* "ns", "bytes", "%" */
	double base, cur;   /* the compared statistic (REL: medians; MAX/MIN: the gate's stat) */
	double change;	    /* cur / base - 1; NaN when base is 0 or absent */
	double delta;	    /* cur - base (MAX/MIN: cur - bound) */
	double limit;	    /* REL: the change (or delta, for pt and absolute amounts) allowed;
			       MAX/MIN: the bound */
	double noise;	    /* the baseline's run-to-run spread of this statistic (relative), 0
			       with one run */
	double p;	    /* one-sided p-value in the gate's bad direction (improvements: the
			       good one); NaN when not tested */
	int low_confidence; /* too few samples for the test: decided on the threshold alone */
	size_t nbase, ncur; /* samples on each side */
	enum tkc_status status;
	char why[160]; /* how it was decided, e.g. "within noise: p = 0.31" */
};

struct tkc_result {
	int comparable;		 /* 0: not comparable (exit 2), reason in @reason */
	char reason[1024];
	char hardware[512];	 /* what differs in the hardware when allowed anyway, else "" */
	double overlap_base;	 /* share of the baseline's kernel time in kernels the input has */
	double overlap_cur;	 /* share of the input's kernel time in kernels the baseline has */
	struct tkc_outcome *v;
	size_t n;
	size_t regressions, improvements, passed, skipped;
	/* the likely cause of a step-level time regression: the kernels that grew the most per
	 * step (base_ns 0: new in the input), largest first; names point into the input summary */
	struct {
		const char *name;
		double base_ns, cur_ns;
	} causes[3];
	size_t ncauses;
	int has_baseline;
	size_t base_runs, cur_runs;
	int64_t base_steps, cur_steps; /* steps over all runs */
};

/*
 * tkc_compare() - evaluate @gates on the input summary @cur against @base (NULL: only absolute
 * gates; relative ones are an error). Not comparable (r->comparable = 0) as docs/check.md says:
 * no device work in the input, steps on one side only, different device models or counts
 * (unless @allow_hw: then noted in r->hardware), kernel-set overlap under TKC_MIN_OVERLAP
 * (unless @allow_hw). TK_OK (whatever the verdict), TK_EINVAL (a relative gate without a
 * baseline, message in @err), TK_ENOMEM.
 */
int tkc_compare(const struct tkc_summary *base, const struct tkc_summary *cur,
		const struct tkc_gates *gates, int allow_hw, struct tkc_result *r, char *err,
		size_t errlen);
void tkc_result_free(struct tkc_result *r);

/* A statistic of a series' pooled samples: "mean", "median" (NULL), "p90" (nearest rank),
 * "min", "max"; NaN when it has none. */
double tkc_stat(const struct tkc_series *s, const char *stat);

/* The summary's metric @key, or NULL. */
const struct tkc_series *tkc_summary_find(const struct tkc_summary *s, const char *key);

#endif

/*
 * The check's interface for report/ (report/check_out.c prints a check's result): the summary of
 * runs, the gates, and the outcome of each gate with the verdict. Only types and the model list's
 * text: building, reading and comparing summaries stays in check_internal.h, private to check/.
 */
#ifndef TK_CHECK_RESULT_H
#define TK_CHECK_RESULT_H

#include <stddef.h>
#include <stdint.h>

/* ---- the summary of runs (baseline.c builds it, baseline_json.c reads and writes it) ---- */

/*
 * Samples of one metric: per step (one value per profiled step) or per run (one per run).
 * v holds every run's samples one run after another; runs[r] says how many belong to run r.
 */
struct tkc_series {
	char *key;    /* metric key: "step_time", "kpi.gpu_utilization", ...; a kernel's name */
	char unit[8]; /* "ns", "bytes" or "%" */
	int per_step; /* 1: one sample per step, 0: one per run */
	double *v;    /* the samples */
	size_t n;     /* count of v */
	size_t *runs; /* [nruns]: samples of each run */
	size_t nruns;
	size_t cap, runs_cap; /* of v, of runs (tkc_series_add() grows them) */
};

/* A kernel (device op by name) or an HLO op of the workload. */
struct tkc_item {
	char *name;
	double calls_per_step; /* mean calls per step over all steps of all runs */
	double ns_per_step;    /* mean device time per step (mean over devices) */
	double share;	       /* ns_per_step / the workload's device-op time per step */
	struct tkc_series
	    s; /* per-step device time; n = 0 when the item is below the sample share */
};

struct tkc_model {
	char *model; /* device product name ("NVIDIA A100-SXM4-40GB"), or its kind when unnamed */
	int64_t count;
};

struct tkc_run {
	char *input;	      /* the file name it came from (no directory) */
	int64_t steps;	      /* steps in the window (device steps of the longest-stepped device) */
	char window[16];      /* "steps", "device" or "mixed" */
	char step_source[24]; /* analysis_step_stats.source, "mixed", or "" without steps */
	int64_t device_ops;   /* device operations of the run */
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
	int64_t devices, ranks;	    /* devices with device work; distinct ranks (0 when unknown) */
	int has_steps;		    /* every run has steps in its window */
	struct tkc_series *metrics; /* step_time, host_step_time, busy, comm, comm.exposed,
				       memory.peak, kpi.<name>: what the runs have */
	size_t nmetrics, metrics_cap;
	struct tkc_item *kernels, *ops; /* by ns_per_step, descending */
	size_t nkernels, nops;
	struct tkc_memory *memory; /* per device (max over runs) */
	size_t nmemory;
};

/* "8 x NVIDIA A100-SXM4-40GB" for messages; 1 when two model lists are equal. */
void tkc_models_text(const struct tkc_model *m, size_t n, char *buf, size_t len);
int tkc_models_equal(const struct tkc_model *a, size_t na, const struct tkc_model *b, size_t nb);

/* ---- gates (gates.c parses them) ---- */

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
	char *text; /* the gate as the user wrote it (for messages, JUnit test names) */
	enum tkc_gate_kind kind;
	char *metric;  /* "step_time", "host_step_time", "busy", "comm", "comm.exposed",
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
	size_t n, cap;
};

/* ---- the comparison's result (compare.c) ---- */

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
	int comparable; /* 0: not comparable (exit 2), reason in @reason */
	char reason[1024];
	char hardware[512];  /* what differs in the hardware when allowed anyway, else "" */
	double overlap_base; /* share of the baseline's kernel time in kernels the input has */
	double overlap_cur;  /* share of the input's kernel time in kernels the baseline has */
	struct tkc_outcome *v;
	size_t n, cap;
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

#endif

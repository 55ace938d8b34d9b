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

#endif

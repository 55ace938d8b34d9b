/*
 * The perf model of PyTorch ops (docs/metrics.md, "Op performance model"): FLOPs and bytes moved
 * of one call of an aten op from the record_shapes args Kineto writes ("Input Dims", "Input
 * type", "Input Strides", "Concrete Inputs", as the store keeps them). Pure functions: no SQLite,
 * no allocation, any input string accepted (a malformed one gets a reason, never a crash).
 */
#ifndef TKA_PERF_MODEL_H
#define TKA_PERF_MODEL_H

#include <stdint.h>

/* Limits of what the parser accepts; beyond them the shapes are "unreadable". */
#define TKA_PM_MAX_ARGS 64		    /* arguments of one op */
#define TKA_PM_MAX_DIMS 12		    /* dimensions of one tensor */
#define TKA_PM_MAX_ELEMS ((int64_t)1 << 48) /* elements of one tensor (absurd beyond) */

/* What tka_perf_model() says of one call. */
enum tka_pm_status {
	TKA_PM_OK,	/* flops and bytes hold the model's figures */
	TKA_PM_NONE,	/* the op has no formula */
	TKA_PM_REFUSED, /* the op has a formula but the args do not give its inputs */
};

struct tka_pm {
	enum tka_pm_status status;
	const char *model;  /* gemm, conv, attention, elementwise, reduction, normalization; NULL
			       when the op has no formula */
	const char *dtype;  /* the dtype that sets the peak (fp64, fp32, tf32, bf16, fp16, fp8,
			       int8, int32, int64, uint8, bool, complex...); NULL when unknown */
	const char *reason; /* status != OK: why there are no figures */
	const char *note;   /* status == OK: a caveat of the figures, or NULL */
	int64_t flops;	    /* floating-point operations of the call */
	int64_t bytes;	    /* bytes read and written (a lower bound: the tensors' sizes once) */
};

/*
 * tka_perf_model() - the model of one call of op @name with the record_shapes args as stored
 * (compact JSON, or Python's repr; any of them may be NULL when the trace has no such arg).
 * Always fills @out; returns its status.
 */
enum tka_pm_status tka_perf_model(const char *name, const char *dims, const char *types,
				  const char *strides, const char *concrete, struct tka_pm *out);

/* 1 when op @name has a formula (tka_perf_model() gives OK or REFUSED, never NONE). */
int tka_pm_has_model(const char *name);

#endif

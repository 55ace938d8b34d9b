/*
 * The record_shapes args' parser of the perf model (perf_model.c): bounded readers of Kineto's
 * "Input Dims" / "Input Strides" (lists of lists of integers), "Input type" / "Concrete Inputs"
 * (lists of strings), in compact JSON or Python's repr, and the dtypes "Input type" names.
 */
#ifndef TKA_PERF_ARGS_H
#define TKA_PERF_ARGS_H

#include <stdint.h>

#include "perf_model.h"

#define TKA_PM_STR_LEN 48 /* longest string value kept (longer ones count as unknown) */

/* Tensor shapes of the args: nd[i] dimensions in d[i], nd[i] = -1 when arg i is no shape. */
struct tka_pm_shapes {
	int n;
	int nd[TKA_PM_MAX_ARGS];
	int64_t d[TKA_PM_MAX_ARGS][TKA_PM_MAX_DIMS];
};

/* A tensor dtype as "Input type" names it. */
struct tka_pm_dtype {
	const char *trace; /* as "Input type" spells it */
	const char *name;  /* what the model reports */
	int size;	   /* bytes per element */
};

/* "Input Dims" / "Input Strides" into @p: 0, or -1 when unreadable or beyond the limits. */
int tka_pm_parse_shapes(const char *s, struct tka_pm_shapes *p);

/* "Input type" / "Concrete Inputs" into @out (*@n values): 0, or -1 when unreadable. */
int tka_pm_parse_strs(const char *s, char (*out)[TKA_PM_STR_LEN], int *n);

/* A Concrete Inputs value as up to @max integers ("[2, 2]", "(1,)", "3"): the count, or -1. */
int tka_pm_parse_ints(const char *s, int64_t *v, int max);

/* A Concrete Inputs value as a boolean: 1, 0, or -1 when it is neither. */
int tka_pm_parse_bool(const char *s);

/* The dtype "Input type" spells @s, NULL when it is no tensor dtype. */
const struct tka_pm_dtype *tka_pm_dtype_of(const char *s);

#endif

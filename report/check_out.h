/* The writers of a check's result (report/check_out.c), called by check/check.c. */
#ifndef TK_CHECK_OUT_H
#define TK_CHECK_OUT_H

#include <stdio.h>
#include <tracekit/check.h>

#include "check_result.h"

/* What the writers print: the result and the two summaries it came from. */
struct tkr_check_view {
	const struct tkc_result *r;
	const struct tkc_summary *base; /* NULL without a baseline */
	const struct tkc_summary *cur;
};

/* Write @v in @f to @out (docs/check.md, "Outputs"); TK_OK, TK_EIO or TK_ENOMEM. */
int tkr_check_write(FILE *out, const struct tkr_check_view *v, enum tk_check_format f);

#endif

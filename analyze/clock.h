/*
 * Clock offsets between hosts, estimated from the ends of matched collectives (clock.c; docs/
 * metrics.md, "analysis_clock_offsets"). Private to analyze/: comm.c hands it the members it
 * matched and, with --align-clocks, shifts them by the offsets it returns.
 */
#ifndef TRACEKIT_ANALYZE_CLOCK_H
#define TRACEKIT_ANALYZE_CLOCK_H

#include <stdint.h>

#include "intervals.h"

/* One member of a collective as the estimate sees it. */
struct tka_clock_sample {
	int64_t instance;  /* its collective matched by (process group, seq); 0 otherwise */
	int64_t end;	   /* end of its kernel on its host's clock (as stored) */
	uint32_t dev;	   /* index in tl->dev */
	int ends_together; /* 1 for a kind whose members end together (tka_clock_kind) */
};

/*
 * tka_clock_kind() - 1 when the collective named @name (a kernel name or Kineto's "Collective
 * name" arg) is one whose members end together: all-reduce, all-gather, reduce-scatter,
 * all-to-all, barrier (case, '_', '-' and other punctuation ignored); 0 otherwise (send/recv,
 * broadcast, reduce to a root, unknown names).
 */
int tka_clock_kind(const char *name);

/*
 * tka_clock_offsets() - estimate each host's clock offset from @s[0..n) (any order; reordered),
 * write analysis_clock_offsets, and when @apply fill @dev_off[tl->ndev] with the offset to
 * subtract from each device's times (0 for a device whose host was not estimated); without
 * @apply @dev_off is all 0. @return TK_OK or a status through tka_fail().
 */
int tka_clock_offsets(struct tka_ctx *c, const struct tka_timeline *tl, struct tka_clock_sample *s,
		      size_t n, int apply, int64_t *dev_off);

#endif

/* Synthetic training-trace generator: the built-in demo and the benchmark workload. */
#ifndef TRACEKIT_SYNTH_H
#define TRACEKIT_SYNTH_H

#include <stdint.h>
#include <tracekit/store.h>

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default)

struct tk_synth_options {
	int64_t
	    events; /* target number of timestamped records (intervals, memory events, counter samples) */
	int devices;   /* GPUs, one driving process (rank) each */
	int streams;   /* streams per GPU (>= 2: compute and copy/communication) */
	int steps;     /* training steps after the warm-up */
	uint64_t seed; /* the workload: same seed and options -> identical store content */
	/*
	 * Run-to-run timing noise: 0 none; else the same workload as without it (same events,
	 * names, launch configurations, flows, allocations, in the same order) with fresh timing:
	 * each device op's duration scaled by exp(N(0, 2 %)), host gaps and launch delays by
	 * exp(N(0, 5 %)) (2 % from 1 ms on, 0.5 % from 100 ms on), everything after shifted.
	 */
	uint64_t jitter_seed;
};

/** tk_synth_defaults() - fill @o with the defaults (200000 events, 2 devices, 4 streams, 10 steps, seed 1,
 * no jitter). */
void tk_synth_defaults(struct tk_synth_options *o);

/**
 * tk_synth_write() - generate a synthetic trace into the open writer @w. Writes the source, meta,
 * processes, devices, tracks, events, flows, counters and memory events; the caller finishes the
 * writer. Returns TK_EINVAL for options out of range (message on @w).
 */
int tk_synth_write(tk_writer *w, const struct tk_synth_options *o);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif

#endif

/* The state GPU time per op keeps between the pass and the analyses after it (op_gpu_time.c
 * computes it, op_gpu_hosts.c collects it in the pass and answers the later analyses). */
#ifndef TK_ANALYZE_OP_GPU_TIME_H
#define TK_ANALYZE_OP_GPU_TIME_H

#include "analyze_internal.h"

/* The host intervals the pass collected (host ops, annotations), then each one's figures. */
struct tka_og_state {
	struct tka_host_op *h[2]; /* by level: 0 host_op, 1 annotation */
	size_t nh[2], caph[2];
	struct tka_og_inst *inst; /* per host interval, by event id, once the analysis ran */
	size_t ninst;
	int64_t (*pdev)[2]; /* (process, device) pairs some launch links, sorted */
	size_t npdev, pdev_cap;
};

#endif

/*
 * The training workload of one rank, phase by phase: warm-up (parameter buffers, a long Inductor
 * compile with the GPU idle, a few Triton kernels), then each step: micro-batches of data loading
 * (sometimes slow: input-bound), pinned H2D copies the compute stream waits for, a transformer
 * forward and backward with activations allocated in forward and freed in backward, bucketed
 * NCCL all-reduces overlapping the backward on the communication stream, an AMP unscale whose
 * found_inf.item() blocks the host, an optimizer of tiny foreach kernels the host cannot launch
 * fast enough, zero_grad memsets and a loss.item() read-back; finally the teardown that frees
 * what is left. sy_step_records() counts what sy_step() writes and must change with it.
 */
#include "synth_internal.h"

#include <stdio.h>
#include <tracekit/error.h>

#define US 1000LL
#define MS 1000000LL

/* Records (intervals, memory events, counter samples) one rank writes outside its steps. */
int64_t sy_rank_fixed_records(void)
{
	/* aten::to 5, 3 x aten::zeros 5, compile 1, CompiledFunction 13, teardown: 4 frees 8 */
	return 5 + 15 + 1 + 13 + 8;
}

int64_t sy_tiny_base(int layers)
{
	return layers * 4 > 8 ? (int64_t)layers * 4 : 8;
}

int64_t sy_step_records(int layers, int microbatches, int64_t tiny, int extra)
{
	int64_t L = layers, M = microbatches, c4 = (L + 3) / 4;
	/*
	 * Per micro-batch: data 3, H2D 12, annotations 2, loss 5, frees 6 (4 in the last, whose
	 * loss is freed with the step); per layer forward 46 (+4 with an extra stream) + 3 per
	 * memset every 4th layer, backward 64. Per step: 5 per all-reduce bucket of 4 layers,
	 * unscale 13, optimizer 2 + 2 per tiny kernel + 1 per group of 8, zero_grad 3,
	 * loss.item 4, frees 4, step 1, device annotation 1.
	 */
	int64_t mb = 28 + L * (110 + 4 * extra) + 3 * c4;
	return M * mb - 2 + 5 * c4 + 13 + 2 + 2 * tiny + (tiny + 7) / 8 + 3 + 4 + 4 + 2;
}

int sy_warmup(struct sy_rank *r)
{
	struct sy_gen *g = r->g;
	int rc;
	sy_op_begin(r, SN_OP_TO);
	sy_alloc(r, g->param_bytes, &r->params[0]);
	sy_copy(r, TK_COPY_H2D, g->param_bytes, SY_COPY);
	if ((rc = sy_op_end(r)) != TK_OK)
		goto out;
	for (int i = 1; i < 4; i++) {
		sy_host_gap(r, 5 * US, 30 * US);
		sy_op_begin(r, SN_OP_ZEROS);
		sy_alloc(r, g->param_bytes, &r->params[i]);
		sy_memset(r, g->param_bytes, SY_COMPUTE);
		if ((rc = sy_op_end(r)) != TK_OK)
			goto out;
	}
	sy_host_gap(r, 20 * US, 80 * US);
	sy_op_begin(r, SN_OP_COMPILE);
	sy_host_gap(r, 1200 * MS, 1800 * MS);
	if ((rc = sy_op_end(r)) != TK_OK)
		goto out;
	sy_host_gap(r, 20 * US, 80 * US);
	struct sy_block tmp;
	sy_op_begin(r, SN_OP_COMPILED_FN);
	sy_alloc(r, 2 << 20, &tmp);
	sy_kernel(r, SK_FILL, SY_COMPUTE);
	sy_kernel(r, SK_TRITON_POI, SY_COMPUTE);
	sy_kernel(r, SK_TRITON_RED, SY_COMPUTE);
	sy_kernel(r, SK_TRITON_PER, SY_COMPUTE);
	sy_free(r, &tmp);
	rc = sy_op_end(r);
out:
	return rc;
}

/* Data loading on the main thread (sometimes slow) with the loader thread's work behind it. */
static int load_batch(struct sy_rank *r, int slow)
{
	struct sy_gen *g = r->g;
	int64_t d = sy_jit_host(r, slow ? (int64_t)sy_logu(&r->rng, 4.0 * MS, 30.0 * MS)
					: (int64_t)sy_logu(&r->rng, 80.0 * US, 600.0 * US));
	int64_t a = r->t;
	sy_op_begin(r, SN_OP_DATALOADER);
	r->t += d;
	int rc = sy_op_end(r);
	int64_t b = r->t;
	int64_t pin_ts = a + d / 5;
	int64_t fetch_ts = a - sy_jit_host(r, sy_range(&r->rng, 200 * US, 2 * MS));
	if (fetch_ts <= r->loader_free)
		fetch_ts = r->loader_free + 1 * US;
	uint32_t cat = g->name_id[SN_CAT_CPU_OP];
	if (rc == TK_OK)
		rc = sy_span(r, r->loader_track, TK_EV_HOST_OP, g->name_id[SN_OP_WORKER_FETCH], cat,
			     fetch_ts, pin_ts - 1 * US, NULL);
	if (rc == TK_OK)
		rc = sy_span(r, r->loader_track, TK_EV_HOST_OP, g->name_id[SN_OP_PIN_MEMORY], cat,
			     pin_ts, b - 2 * US, NULL);
	r->loader_free = b - 2 * US;
	return rc;
}

static void forward_layer(struct sy_rank *r, int l)
{
	int64_t A = r->g->act_unit;
	struct sy_block *act = r->act[l];
	sy_op_begin(r, SN_OP_LAYER_NORM);
	sy_alloc(r, A, &act[0]);
	sy_kernel(r, SK_LN_FWD, SY_COMPUTE);
	sy_op_end(r);
	sy_op_begin(r, SN_OP_LINEAR);
	sy_alloc(r, 3 * A, &act[1]);
	sy_kernel(r, SK_GEMM_QKV, SY_COMPUTE);
	sy_op_end(r);
	if (l % 4 == 0) {
		sy_op_begin(r, SN_OP_ZERO);
		sy_memset(r, A, SY_COMPUTE);
		sy_op_end(r);
	}
	sy_op_begin(r, SN_OP_SDPA);
	sy_alloc(r, A, &act[2]);
	if (r->nstreams > 3) {
		int x = 3 + l % (r->nstreams - 3);
		sy_stream_wait(r, x, SY_COMPUTE);
		sy_kernel(r, SK_FLASH_FWD, x);
		sy_stream_wait(r, SY_COMPUTE, x);
	} else {
		sy_kernel(r, SK_FLASH_FWD, SY_COMPUTE);
	}
	sy_op_end(r);
	sy_op_begin(r, SN_OP_LINEAR);
	sy_alloc(r, A, &act[3]);
	sy_kernel(r, SK_GEMM_PROJ, SY_COMPUTE);
	sy_op_end(r);
	sy_op_begin(r, SN_OP_ADD);
	sy_kernel(r, SK_ADD, SY_COMPUTE);
	sy_op_end(r);
	sy_op_begin(r, SN_OP_LAYER_NORM);
	sy_alloc(r, A, &act[4]);
	sy_kernel(r, SK_LN_FWD, SY_COMPUTE);
	sy_op_end(r);
	sy_op_begin(r, SN_OP_LINEAR);
	sy_alloc(r, 4 * A, &act[5]);
	sy_kernel(r, SK_GEMM_FC1, SY_COMPUTE);
	sy_op_end(r);
	sy_op_begin(r, SN_OP_GELU);
	sy_alloc(r, 4 * A, &act[6]);
	sy_kernel(r, SK_GELU_FWD, SY_COMPUTE);
	sy_op_end(r);
	sy_op_begin(r, SN_OP_LINEAR);
	sy_alloc(r, A, &act[7]);
	sy_kernel(r, SK_GEMM_FC2, SY_COMPUTE);
	sy_op_end(r);
	sy_op_begin(r, SN_OP_ADD);
	sy_kernel(r, SK_ADD, SY_COMPUTE);
	sy_op_end(r);
}

static void backward_layer(struct sy_rank *r, int l)
{
	int64_t A = r->g->act_unit;
	struct sy_block *act = r->act[l], *gt = r->grad_tmp;
	sy_op_begin(r, SN_OP_ADDMM_BWD); /* fc2 */
	sy_alloc(r, 4 * A, &gt[0]);
	sy_kernel(r, SK_DGRAD_FC2, SY_COMPUTE);
	sy_kernel(r, SK_WGRAD_FC2, SY_COMPUTE);
	sy_free(r, &act[7]);
	sy_op_end(r);
	sy_op_begin(r, SN_OP_GELU_BWD);
	sy_kernel(r, SK_GELU_BWD, SY_COMPUTE);
	sy_free(r, &act[6]);
	sy_op_end(r);
	sy_op_begin(r, SN_OP_ADDMM_BWD); /* fc1 */
	sy_alloc(r, A, &gt[1]);
	sy_kernel(r, SK_DGRAD_FC1, SY_COMPUTE);
	sy_kernel(r, SK_WGRAD_FC1, SY_COMPUTE);
	sy_free(r, &act[5]);
	sy_free(r, &gt[0]);
	sy_op_end(r);
	sy_op_begin(r, SN_OP_LN_BWD);
	sy_kernel(r, SK_LN_BWD_INPUT, SY_COMPUTE);
	sy_kernel(r, SK_LN_BWD_GAMMA, SY_COMPUTE);
	sy_free(r, &act[4]);
	sy_op_end(r);
	sy_op_begin(r, SN_OP_ADDMM_BWD); /* proj */
	sy_kernel(r, SK_DGRAD_PROJ, SY_COMPUTE);
	sy_kernel(r, SK_WGRAD_PROJ, SY_COMPUTE);
	sy_free(r, &act[3]);
	sy_op_end(r);
	sy_op_begin(r, SN_OP_SDPA_BWD);
	sy_alloc(r, 3 * A, &gt[2]);
	sy_kernel(r, SK_FLASH_BWD, SY_COMPUTE);
	sy_free(r, &act[2]);
	sy_op_end(r);
	sy_op_begin(r, SN_OP_ADDMM_BWD); /* qkv */
	sy_kernel(r, SK_DGRAD_QKV, SY_COMPUTE);
	sy_kernel(r, SK_WGRAD_QKV, SY_COMPUTE);
	sy_free(r, &act[1]);
	sy_free(r, &gt[2]);
	sy_op_end(r);
	sy_op_begin(r, SN_OP_LN_BWD);
	sy_kernel(r, SK_LN_BWD_INPUT, SY_COMPUTE);
	sy_kernel(r, SK_LN_BWD_GAMMA, SY_COMPUTE);
	sy_free(r, &act[0]);
	sy_free(r, &gt[1]);
	sy_op_end(r);
}

/* One micro-batch: load, copy in, forward, loss, backward (with the all-reduces when @last). */
static int microbatch(struct sy_rank *r, int slow, int last)
{
	struct sy_gen *g = r->g;
	int L = g->plan.layers, rc;
	uint32_t ann = g->name_id[SN_CAT_ANNOTATION];
	if ((rc = load_batch(r, slow)) != TK_OK)
		goto out;
	sy_host_gap(r, 5 * US, 20 * US);
	sy_op_begin(r, SN_OP_TO);
	sy_alloc(r, g->input_bytes, &r->input);
	sy_copy(r, TK_COPY_H2D, g->input_bytes, SY_COPY);
	sy_op_end(r);
	sy_op_begin(r, SN_OP_TO);
	sy_alloc(r, g->label_bytes, &r->labels);
	sy_copy(r, TK_COPY_H2D, g->label_bytes, SY_COPY);
	sy_op_end(r);
	sy_stream_wait(r, SY_COMPUTE, SY_COPY);
	if ((rc = sy_flush(r)) != TK_OK)
		goto out;

	int64_t ts = r->t;
	for (int l = 0; l < L && r->status == TK_OK; l++)
		forward_layer(r, l);
	if ((rc = sy_span(r, r->main_track, TK_EV_ANNOTATION, g->name_id[SN_ANN_FORWARD], ann, ts,
			  r->t, NULL)) != TK_OK)
		goto out;
	sy_host_gap(r, 3 * US, 10 * US);
	sy_op_begin(r, SN_OP_LOSS);
	sy_alloc(r, 4, &r->loss);
	sy_kernel(r, SK_LOSS, SY_COMPUTE);
	if ((rc = sy_op_end(r)) != TK_OK)
		goto out;

	sy_host_gap(r, 10 * US, 40 * US);
	ts = r->t;
	for (int l = L - 1; l >= 0 && r->status == TK_OK; l--) {
		backward_layer(r, l);
		if (last && ((L - l) % 4 == 0 || l == 0)) {
			sy_op_begin(r, SN_OP_ALLREDUCE);
			sy_stream_wait(r, r->comm, SY_COMPUTE);
			sy_kernel(r, SK_NCCL_ALLREDUCE, r->comm);
			sy_op_end(r);
		}
	}
	if ((rc = sy_span(r, r->main_track, TK_EV_ANNOTATION, g->name_id[SN_ANN_BACKWARD], ann, ts,
			  r->t, NULL)) != TK_OK)
		goto out;
	sy_host_gap(r, 5 * US, 20 * US);
	sy_free(r, &r->input);
	sy_free(r, &r->labels);
	if (!last)
		sy_free(r, &r->loss);
	rc = sy_flush(r);
out:
	return rc;
}

/* AMP unscale, optimizer and zero_grad. */
static int optimizer(struct sy_rank *r)
{
	struct sy_gen *g = r->g;
	int rc;
	sy_host_gap(r, 10 * US, 30 * US);
	sy_op_begin(r, SN_OP_UNSCALE);
	sy_stream_wait(r, SY_COMPUTE, r->comm);
	sy_alloc(r, 4, &r->found_inf);
	sy_kernel(r, SK_UNSCALE, SY_COMPUTE);
	sy_kernel(r, SK_UNSCALE, SY_COMPUTE);
	sy_op_end(r);
	sy_op_begin(r, SN_OP_ITEM); /* found_inf.item(): the host waits for backward and NCCL */
	sy_copy(r, TK_COPY_D2H, 4, SY_COMPUTE);
	sy_stream_sync(r, SY_COMPUTE);
	if ((rc = sy_op_end(r)) != TK_OK)
		goto out;

	sy_host_gap(r, 5 * US, 15 * US);
	int64_t ts = r->t;
	for (int64_t done = 0, grp = 0; done < g->plan.tiny && r->status == TK_OK; grp++) {
		int f = (int)(grp % SY_FOREACH);
		sy_op_begin(r, SN_OP_FOREACH0 + f);
		for (int j = 0; j < 8 && done < g->plan.tiny; j++, done++)
			sy_kernel(r, SK_FOREACH0 + f, SY_COMPUTE);
		sy_op_end(r);
		sy_host_gap(r, 3 * US, 10 * US);
	}
	int64_t end = r->t;
	if ((rc = sy_span(r, r->main_track, TK_EV_HOST_OP, g->name_id[SN_OP_OPTIMIZER],
			  g->name_id[SN_CAT_CPU_OP], ts, end, NULL)) != TK_OK)
		goto out;
	sy_op_begin(r, SN_OP_ZERO_GRAD);
	sy_memset(r, g->param_bytes, SY_COMPUTE);
	if ((rc = sy_op_end(r)) != TK_OK)
		goto out;
	rc = sy_span(r, r->main_track, TK_EV_ANNOTATION, g->name_id[SN_ANN_OPTIMIZER],
		     g->name_id[SN_CAT_ANNOTATION], ts, r->t, NULL);
out:
	return rc;
}

int sy_step(struct sy_rank *r, int step)
{
	struct sy_gen *g = r->g;
	int M = g->plan.microbatches, rc = TK_OK;
	int forced = step == (g->opt.steps > 2 ? 2 : g->opt.steps - 1);
	int64_t ts = r->t;
	r->dev_first = r->dev_last = -1;
	for (int mb = 0; mb < M; mb++) {
		int slow = (mb == 0 && forced) || sy_unit(&r->rng) < 0.12 / M;
		if ((rc = microbatch(r, slow, mb == M - 1)) != TK_OK)
			goto out;
	}
	if ((rc = optimizer(r)) != TK_OK)
		goto out;
	sy_host_gap(r, 5 * US, 20 * US);
	sy_op_begin(r, SN_OP_ITEM); /* loss.item() for logging */
	sy_copy(r, TK_COPY_D2H, 4, SY_COMPUTE);
	sy_stream_sync(r, SY_COMPUTE);
	sy_op_end(r);
	sy_host_gap(r, 5 * US, 20 * US);
	sy_free(r, &r->loss);
	sy_free(r, &r->found_inf);
	if ((rc = sy_flush(r)) != TK_OK)
		goto out;
	sy_host_gap(r, 10 * US, 40 * US);

	if (g->dry)
		goto out;
	char name[32];
	snprintf(name, sizeof(name), "ProfilerStep#%d", step);
	uint32_t name_id = tk_writer_intern(g->w, name);
	if (!name_id) {
		rc = sy_writer_status(g->w);
		goto out;
	}
	struct tk_event ev = {
	    .track_id = r->main_track,
	    .kind = TK_EV_STEP,
	    .name_id = name_id,
	    .category_id = g->name_id[SN_CAT_ANNOTATION],
	    .ts_ns = ts,
	    .dur_ns = r->t - ts,
	    .correlation_id = TK_NONE,
	};
	if ((rc = tk_writer_add_step(g->w, &ev, step, NULL)) != TK_OK)
		goto out;
	if (r->dev_first >= 0)
		rc = sy_span(r, r->stream_track[SY_COMPUTE], TK_EV_ANNOTATION, name_id,
			     g->name_id[SN_CAT_GPU_ANNOTATION], r->dev_first, r->dev_last, NULL);
out:
	return rc;
}

int sy_teardown(struct sy_rank *r)
{
	sy_host_gap(r, 50 * US, 200 * US);
	for (int i = 0; i < 4; i++)
		sy_free(r, &r->params[i]);
	int rc = sy_flush(r);
	if (rc == TK_OK && r->mem.in_use != 0)
		rc = TK_EINTERNAL; /* the workload must free everything it allocated */
	return rc;
}

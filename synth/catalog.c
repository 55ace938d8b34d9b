/*
 * The synthetic trace's vocabulary: the host-side names (aten ops, autograd functions, CUDA runtime
 * calls, annotations, categories) and the kernel catalogue of a bf16 transformer trained with
 * PyTorch DDP on H100s (cuBLAS/CUTLASS GEMMs, flash attention, elementwise and normalization
 * kernels, foreach optimizer kernels, NCCL, Inductor/Triton warm-up kernels) with realistic
 * demangled names, mangled names for some, launch configurations and duration classes. Everything
 * is interned once per trace so that the hot path only passes ids; the per-trace model (base
 * duration of each kernel, tensor sizes) is drawn here from the seed.
 */
#include "synth_internal.h"

#include <tracekit/error.h>

const char *const sy_name_text[SN_COUNT] = {
    [SN_ALLOCATOR] = "caching",
    [SN_CAT_CPU_OP] = "cpu_op",
    [SN_CAT_RUNTIME] = "cuda_runtime",
    [SN_CAT_KERNEL] = "kernel",
    [SN_CAT_MEMCPY] = "gpu_memcpy",
    [SN_CAT_MEMSET] = "gpu_memset",
    [SN_CAT_ANNOTATION] = "user_annotation",
    [SN_CAT_GPU_ANNOTATION] = "gpu_user_annotation",
    [SN_CAT_COMPILE] = "compile",
    [SN_API_LAUNCH] = "cudaLaunchKernel",
    [SN_API_MEMCPY] = "cudaMemcpyAsync",
    [SN_API_MEMSET] = "cudaMemsetAsync",
    [SN_API_EVENT_RECORD] = "cudaEventRecord",
    [SN_API_STREAM_WAIT] = "cudaStreamWaitEvent",
    [SN_API_STREAM_SYNC] = "cudaStreamSynchronize",
    [SN_MEMCPY_H2D] = "Memcpy HtoD (Pinned -> Device)",
    [SN_MEMCPY_D2H] = "Memcpy DtoH (Device -> Pageable)",
    [SN_MEMSET] = "Memset (Device)",
    [SN_OP_COMPILE] = "torch.compile / inductor compile",
    [SN_OP_COMPILED_FN] = "CompiledFunction",
    [SN_OP_TO] = "aten::to",
    [SN_OP_ZEROS] = "aten::zeros",
    [SN_OP_EMPTY] = "aten::empty",
    [SN_OP_DATALOADER] = "DataLoader.__next__",
    [SN_OP_WORKER_FETCH] = "DataLoader worker: fetch + collate",
    [SN_OP_PIN_MEMORY] = "pin_memory",
    [SN_OP_LAYER_NORM] = "aten::layer_norm",
    [SN_OP_LINEAR] = "aten::linear",
    [SN_OP_SDPA] = "aten::scaled_dot_product_attention",
    [SN_OP_ADD] = "aten::add_",
    [SN_OP_GELU] = "aten::gelu",
    [SN_OP_ZERO] = "aten::zero_",
    [SN_OP_LOSS] = "aten::cross_entropy_loss",
    [SN_OP_ITEM] = "aten::item",
    [SN_OP_ADDMM_BWD] = "autograd::engine::evaluate_function: AddmmBackward0",
    [SN_OP_GELU_BWD] = "autograd::engine::evaluate_function: GeluBackward0",
    [SN_OP_LN_BWD] = "autograd::engine::evaluate_function: NativeLayerNormBackward0",
    [SN_OP_SDPA_BWD] = ("autograd::engine::evaluate_function: "
			"ScaledDotProductFlashAttentionBackward0"),
    [SN_OP_ALLREDUCE] = "nccl:all_reduce",
    [SN_OP_UNSCALE] = "GradScaler.unscale_",
    [SN_OP_OPTIMIZER] = "Optimizer.step#AdamW.step",
    [SN_OP_ZERO_GRAD] = "Optimizer.zero_grad#AdamW.zero_grad",
    [SN_OP_FOREACH0 + 0] = "aten::_foreach_mul_",
    [SN_OP_FOREACH0 + 1] = "aten::_foreach_add_",
    [SN_OP_FOREACH0 + 2] = "aten::_foreach_addcmul_",
    [SN_OP_FOREACH0 + 3] = "aten::_foreach_sqrt",
    [SN_OP_FOREACH0 + 4] = "aten::_foreach_div_",
    [SN_OP_FOREACH0 + 5] = "aten::_foreach_addcdiv_",
    [SN_ANN_FORWARD] = "## forward ##",
    [SN_ANN_BACKWARD] = "## backward ##",
    [SN_ANN_OPTIMIZER] = "## optimizer ##",
};

/* Kernel name pieces. */
#define SM90_TN                                                                            \
	"sm90_xmma_gemm_f16f16_f32f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_" \
	"segment_k_off_kernel__5x_cublas"
#define SM90_TN2                                                                    \
	"sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x256x64_cluster2x1x1_" \
	"warpgroupsize2x1x1_execute_segment_k_off_kernel__5x_cublas"
#define SM90_NN                                                                           \
	"sm90_xmma_gemm_bf16bf16_bf16f32_f32_nn_n_tilesize128x128x64_warpgroupsize1x1x1_" \
	"execute_segment_k_off_kernel__5x_cublas"
#define SM90_NT                                                                     \
	"sm90_xmma_gemm_bf16bf16_bf16f32_f32_nt_n_tilesize128x256x64_cluster1x2x1_" \
	"warpgroupsize2x1x1_execute_segment_k_on_kernel__5x_cublas"
#define CUTLASS_K "cutlass_80_wmma_tensorop_bf16_s161616gemm_bf16_32x32_128x2_nn_align8"
#define ANON "at::native::(anonymous namespace)::"
#define MTA "void " ANON "multi_tensor_apply_kernel<"
#define VEC "void at::native::vectorized_elementwise_kernel<4, "
#define GELU_F                                                                            \
	"at::native::GeluCUDAKernelImpl(at::TensorIteratorBase&, at::native::GeluType)::" \
	"{lambda()#2}::operator()() const::{lambda()#4}::operator()() const::"            \
	"{lambda(c10::BFloat16)#1}"
#define GELU_B                                                                    \
	"at::native::GeluBackwardCUDAKernelImpl(at::TensorIteratorBase&, "        \
	"at::native::GeluType)::{lambda()#2}::operator()() const::{lambda()#4}::" \
	"operator()() const::{lambda(c10::BFloat16, c10::BFloat16)#1}"
#define UNSCALE_F                                                                    \
	"at::native::_amp_foreach_non_finite_check_and_unscale_cuda_("               \
	"c10::ArrayRef<at::Tensor>, at::Tensor&, at::Tensor const&)::{lambda()#1}::" \
	"operator()() const::{lambda()#2}::operator()() const::{lambda(float)#1}"
/* A foreach kernel: metadata arity, functor, and its trailing template arguments. */
#define FOREACH(n, functor, rest)                                               \
	MTA ANON "TensorListMetadata<" n ">, " ANON functor ", " rest ">(" ANON \
		 "TensorListMetadata<" n ">, " ANON functor ", " rest ")"

#define US 1000LL
#define MS 1000000LL

/* Launch configurations: grid, block, registers, static and dynamic shared memory, occupancy. */
#define CFG(gx, gy, gz, bx, by, regs, ssmem, dsmem, occ) \
	{gx, gy, gz}, {bx, by, 1}, regs, ssmem, dsmem, occ
/* Durations: base range (log-uniform, drawn once per trace), jitter, outliers. */
#define DUR(lo, hi, jitter, outliers) lo, hi, jitter, outliers
#define GEMM(name, gx, gy, lo, hi)                                                               \
	{                                                                                        \
		name, NULL, CFG(gx, gy, 1, 384, 1, 168, 0, 213504, 0.1875), DUR(lo, hi, 0.04, 1) \
	}
#define ELEM(name, mangled, gx, regs, lo, hi)                                               \
	{                                                                                   \
		name, mangled, CFG(gx, 1, 1, 128, 1, regs, 0, 0, 1.0), DUR(lo, hi, 0.08, 1) \
	}
#define TINY(name, lo, hi)                                                             \
	{                                                                              \
		name, NULL, CFG(320, 1, 1, 512, 1, 32, 0, 0, 1.0), DUR(lo, hi, 0.2, 0) \
	}

const struct sy_kernel_def sy_kernel_defs[SK_COUNT] = {
    [SK_GEMM_QKV] = GEMM(SM90_TN, 96, 16, 500 * US, 900 * US),
    [SK_GEMM_PROJ] = GEMM(SM90_TN2, 16, 8, 200 * US, 450 * US),
    [SK_GEMM_FC1] = GEMM(SM90_TN, 128, 16, 1100 * US, 1700 * US),
    [SK_GEMM_FC2] = GEMM(SM90_TN2, 16, 32, 800 * US, 1300 * US),
    [SK_DGRAD_QKV] = GEMM(SM90_NN, 32, 16, 500 * US, 900 * US),
    [SK_DGRAD_PROJ] = GEMM(SM90_NN, 32, 8, 200 * US, 450 * US),
    [SK_DGRAD_FC1] = GEMM(SM90_NN, 32, 32, 1100 * US, 1800 * US),
    [SK_DGRAD_FC2] = GEMM(SM90_NN, 128, 16, 800 * US, 1300 * US),
    [SK_WGRAD_QKV] = GEMM(SM90_NT, 96, 8, 550 * US, 950 * US),
    [SK_WGRAD_PROJ] = GEMM(SM90_NT, 32, 8, 220 * US, 480 * US),
    [SK_WGRAD_FC1] = GEMM(SM90_NT, 128, 8, 1100 * US, 1800 * US),
    [SK_WGRAD_FC2] = {"void cutlass::Kernel2<" CUTLASS_K ">(" CUTLASS_K "::Params)",
		      "_ZN7cutlass7Kernel2I68" CUTLASS_K "EEvNT_6ParamsE",
		      CFG(256, 8, 1, 128, 1, 128, 26624, 0, 0.25),
		      DUR(800 * US, 1400 * US, 0.05, 1)},
    [SK_LN_FWD] = {"void " ANON "vectorized_layer_norm_kernel<c10::BFloat16, float>(int, float, "
		   "c10::BFloat16 const*, c10::BFloat16 const*, c10::BFloat16 const*, float*, "
		   "float*, c10::BFloat16*)",
		   NULL, CFG(16384, 1, 1, 32, 4, 40, 0, 0, 1.0), DUR(15 * US, 35 * US, 0.08, 1)},
    [SK_LN_BWD_INPUT] = {"void " ANON
			 "layer_norm_grad_input_kernel_vectorized<c10::BFloat16, float>("
			 "c10::BFloat16 const*, c10::BFloat16 const*, float const*, float const*, "
			 "c10::BFloat16 const*, c10::BFloat16*, int)",
			 NULL, CFG(16384, 1, 1, 128, 1, 48, 0, 0, 0.75),
			 DUR(20 * US, 40 * US, 0.08, 1)},
    [SK_LN_BWD_GAMMA] = {"void " ANON
			 "GammaBetaBackwardCUDAKernel_32x32<c10::BFloat16, float>(long, long, "
			 "c10::BFloat16 const*, c10::BFloat16 const*, float const*, float const*, "
			 "c10::BFloat16*, c10::BFloat16*)",
			 NULL, CFG(32, 1, 1, 32, 32, 64, 8448, 0, 0.5),
			 DUR(8 * US, 20 * US, 0.08, 1)},
    [SK_GELU_FWD] = ELEM(VEC GELU_F ", at::detail::Array<char*, 2> >(int, " GELU_F
				    ", at::detail::Array<char*, 2>)",
			 NULL, 65536, 24, 20 * US, 40 * US),
    [SK_GELU_BWD] = ELEM(VEC GELU_B ", at::detail::Array<char*, 3> >(int, " GELU_B
				    ", at::detail::Array<char*, 3>)",
			 NULL, 65536, 28, 25 * US, 40 * US),
    [SK_ADD] = ELEM(VEC "at::native::CUDAFunctor_add<c10::BFloat16>, "
			"at::detail::Array<char*, 3> >(int, "
			"at::native::CUDAFunctor_add<c10::BFloat16>, at::detail::Array<char*, 3>)",
		    "_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_15CUDAFunctor_add"
		    "IN3c108BFloat16EEENS_6detail5ArrayIPcLi3EEEEEviT0_T1_",
		    16384, 20, 8 * US, 20 * US),
    [SK_FLASH_FWD] =
	{"void pytorch_flash::flash_fwd_kernel<pytorch_flash::Flash_fwd_kernel_traits<128, "
	 "128, 64, 4, false, false, cutlass::bfloat16_t, pytorch_flash::Flash_kernel_traits<"
	 "128, 128, 64, 4, cutlass::bfloat16_t> >, false, true, false, false, false, true, "
	 "false, false>(pytorch_flash::Flash_fwd_params)",
	 NULL, CFG(16, 32, 8, 128, 1, 255, 0, 49152, 0.0625), DUR(250 * US, 600 * US, 0.05, 1)},
    [SK_FLASH_BWD] =
	{"void pytorch_flash::flash_bwd_dq_dk_dv_loop_seqk_parallel_kernel<pytorch_flash::"
	 "Flash_bwd_kernel_traits<128, 64, 128, 8, 2, 4, 2, false, false, "
	 "cutlass::bfloat16_t, pytorch_flash::Flash_kernel_traits<128, 64, 128, 8, "
	 "cutlass::bfloat16_t> >, true, false, false, false, false, true, false>("
	 "pytorch_flash::Flash_bwd_params)",
	 NULL, CFG(32, 8, 32, 256, 1, 255, 0, 98304, 0.125), DUR(600 * US, 1400 * US, 0.05, 1)},
    [SK_LOSS] = {"void " ANON "cunn_SoftMaxForward<8, c10::BFloat16, float, c10::BFloat16, " ANON
		 "LogSoftMaxForwardEpilogue>(c10::BFloat16*, c10::BFloat16 const*, int)",
		 NULL, CFG(16384, 1, 1, 512, 1, 38, 0, 4096, 0.75),
		 DUR(60 * US, 180 * US, 0.06, 1)},
    [SK_UNSCALE] = TINY(MTA ANON "TensorListMetadata<1>, " ANON
				 "UnaryOpListFunctor<float, 1, 1, 0>, " UNSCALE_F ">(" ANON
				 "TensorListMetadata<1>, " ANON
				 "UnaryOpListFunctor<float, 1, 1, 0>, " UNSCALE_F ")",
			2 * US, 4 * US),
    [SK_FOREACH0 + 0] =
	TINY(FOREACH("1", "BinaryOpScalarFunctor<float, 1, 1, 0>", "std::multiplies<float>, float"),
	     1200, 1800),
    [SK_FOREACH0 + 1] =
	TINY(FOREACH("2", "BinaryOpListAlphaFunctor<float, 2, 2, 0>", "std::plus<float>, float"),
	     2 * US, 5 * US),
    [SK_FOREACH0 + 2] = TINY(
	FOREACH("3", "PointwiseOpScalarFunctor<float, 3, 3, 0>", "std::multiplies<float>, float"),
	3 * US, 6 * US),
    [SK_FOREACH0 + 3] = TINY(
	FOREACH("2", "UnaryOpFunctor<float, 2, 1, 1>", "at::native::Sqrt<float>"), 2 * US, 4 * US),
    [SK_FOREACH0 + 4] =
	TINY(FOREACH("1", "BinaryOpScalarFunctor<float, 1, 1, 0>", "std::divides<float>, float"),
	     1500, 3 * US),
    [SK_FOREACH0 + 5] =
	TINY(FOREACH("4", "PointwiseOpScalarListFunctor<float, 4, 3, 3>", "std::divides<float>"),
	     3 * US, 6 * US),
    [SK_NCCL_ALLREDUCE] = {"ncclDevKernel_AllReduce_Sum_f32_RING_LL", NULL,
			   CFG(24, 1, 1, 512, 1, 96, 45056, 0, 0.25),
			   DUR(1500 * US, 4 * MS, 0.2, 1)},
    [SK_FILL] = ELEM(VEC "at::native::FillFunctor<float>, at::detail::Array<char*, 1> >(int, "
			 "at::native::FillFunctor<float>, at::detail::Array<char*, 1>)",
		     "_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_11FillFunctorIfEE"
		     "NS_6detail5ArrayIPcLi1EEEEEviT0_T1_",
		     4096, 16, 3 * US, 6 * US),
    [SK_TRITON_POI] = ELEM("triton_poi_fused_add_mul_0", NULL, 4096, 24, 4 * US, 10 * US),
    [SK_TRITON_RED] = {"triton_red_fused__to_copy_native_layer_norm_1", NULL,
		       CFG(16384, 1, 1, 256, 1, 42, 0, 1024, 0.75), DUR(10 * US, 30 * US, 0.08, 1)},
    [SK_TRITON_PER] = {"triton_per_fused_native_layer_norm_backward_2", NULL,
		       CFG(16384, 1, 1, 64, 1, 32, 0, 256, 1.0), DUR(6 * US, 15 * US, 0.08, 1)},
};

int sy_catalog_intern(struct sy_gen *g)
{
	int rc = TK_OK;
	for (int i = 0; i < SN_COUNT; i++) {
		if (!(g->name_id[i] = tk_writer_intern(g->w, sy_name_text[i]))) {
			rc = sy_writer_status(g->w);
			goto out;
		}
	}
	for (int i = 0; i < SK_COUNT; i++) {
		const struct sy_kernel_def *d = &sy_kernel_defs[i];
		if (!(g->kernel_id[i] = tk_writer_intern(g->w, d->name))) {
			rc = sy_writer_status(g->w);
			goto out;
		}
		struct tk_kernel_info *k = &g->kinfo[i];
		k->mangled_name = NULL;
		k->mangled_name_id = d->mangled ? tk_writer_intern(g->w, d->mangled) : 0;
		if (d->mangled && !k->mangled_name_id) {
			rc = sy_writer_status(g->w);
			goto out;
		}
		for (int j = 0; j < 3; j++) {
			k->grid[j] = d->grid[j];
			k->block[j] = d->block[j];
		}
		k->registers = d->registers;
		k->static_smem = d->static_smem;
		k->dynamic_smem = d->dynamic_smem;
		k->occupancy = d->occupancy;
		int64_t blocks = d->grid[0] * d->grid[1] * d->grid[2];
		int64_t threads = d->block[0] * d->block[1] * d->block[2];
		double per_sm = (double)blocks / 132.0;
		/* Resident warps are bounded by the occupancy limit (64 warps per SM on sm_90). */
		double warps = per_sm * (double)((threads + 31) / 32);
		k->blocks_per_sm = per_sm;
		k->warps_per_sm = warps < d->occupancy * 64.0 ? warps : d->occupancy * 64.0;
	}
out:
	return rc;
}

/* Round @v up to a multiple of 512 bytes (the caching allocator's granularity). */
static int64_t round512(int64_t v)
{
	return (v + 511) / 512 * 512;
}

void sy_catalog_model(struct sy_gen *g)
{
	struct sy_rng *r = &g->model_rng;
	for (int i = 0; i < SK_COUNT; i++) {
		const struct sy_kernel_def *d = &sy_kernel_defs[i];
		g->kbase[i] = (int64_t)sy_logu(r, (double)d->base_lo_ns, (double)d->base_hi_ns);
	}
	static const int64_t units[] = {2 << 20, 4 << 20, 8 << 20};
	g->act_unit = units[sy_range(r, 0, 2)];
	int64_t params = (int64_t)g->plan.layers * 4 * g->act_unit;
	g->param_bytes = round512(params < (256 << 20) ? params : (256 << 20));
	g->input_bytes = round512((int64_t)sy_logu(r, 8.0 * (1 << 20), 64.0 * (1 << 20)));
	g->label_bytes = round512((int64_t)sy_logu(r, 16.0 * 1024, 128.0 * 1024));
}

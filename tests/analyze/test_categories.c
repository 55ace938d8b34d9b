/*
 * Categories of device work (docs/metrics.md, "Categories", "Device time by category"): the
 * classifiers on real kernel, XLA and host op names taken from the corpus (NVIDIA, AMD, TPU,
 * MTIA), analysis_categories on a hand-written Kineto trace whose sums are known by construction
 * (tests/data/analyze/categories.json: two devices, two steps, an op before the steps, one that
 * runs past its step's end, overlapping streams), and on two vendored real traces against
 * tests/data/analyze/category_figures.py (its printed figures are below); the report's split.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze_internal.h"
#include "tk_analyze_store.h"

TestSuite(categories, .init = tkt_analyze_setup, .fini = tkt_analyze_teardown, .timeout = 300);

struct dev_case {
	int kind;
	const char *name, *xla_category, *hlo_op, *want;
};

/* Device op names as the corpus traces have them (kernel names cut where they run on). */
static const struct dev_case dev_cases[] = {
    /* NVIDIA, PyTorch (HTA and kineto traces) */
    {TK_EV_KERNEL, "ampere_sgemm_128x64_nn", NULL, NULL, "gemm"},
    {TK_EV_KERNEL, "volta_sgemm_64x64_tn", NULL, NULL, "gemm"},
    {TK_EV_KERNEL, "ampere_gcgemm_64x64_nt", NULL, NULL, "gemm"},
    {TK_EV_KERNEL,
     "void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_128x128_32x3_nn_align4>"
     "(cutlass_80_tensorop_s1688gemm_128x128_32x3_nn_align4::Params)",
     NULL, NULL, "gemm"},
    {TK_EV_KERNEL,
     "void splitKreduce_kernel<float, float, float, float, true, false, false>(cublasSplitKParams"
     "<float>, float const*, float const*, float*, float const*, float const*, float const*)",
     NULL, NULL, "gemm"},
    {TK_EV_KERNEL,
     "void epilogue::impl::globalKernel<float, float, float, true, true>(int, int, long, float*, "
     "cublasLtEpilogue_t, int, float*, long, void*, long, long, long, float*, long, int*)",
     NULL, NULL, "gemm"},
    {TK_EV_KERNEL,
     "std::enable_if<!(false), void>::type internal::gemvx::kernel<int, int, float, float, float, "
     "float, false, true, false, false, 7, cublasGemvParams<cublasGemvTensorStridedBatched<float "
     "const>>>",
     NULL, NULL, "gemm"},
    {TK_EV_KERNEL,
     "void magma_sgemmEx_kernel<float, float, float, true, false, 6, 4, 6, 3, 4>(int, int, int, "
     "Tensor, int, Tensor, int, Tensor, int)",
     NULL, NULL, "gemm"},
    {TK_EV_KERNEL,
     "sm80_xmma_fprop_implicit_gemm_indexed_tf32f32_tf32f32_f32_nhwckrsc_nchw_tilesize128x128x16_"
     "stage4_warpsize2x2x1_g1_tensor16x8x8_alignc4_execute_kernel_cudnn",
     NULL, NULL, "conv"},
    {TK_EV_KERNEL,
     "sm80_xmma_wgrad_implicit_gemm_indexed_tf32f32_tf32f32_f32_nhwckrsc_nhwc_tilesize64x64x64_"
     "stage4_warpsize2x2x1_g1_tensor16x8x8_execute_kernel_cudnn_train",
     NULL, NULL, "conv"},
    {TK_EV_KERNEL,
     "_ZN19cutlass_cudnn_train6KernelINS_4conv6kernel23ImplicitGemmConvolutionINS1_11threadblock"
     "22ImplicitGemmMultistageINS_4gemm9GemmShapeILi128ELi128ELi32EEE",
     NULL, NULL, "conv"},
    {TK_EV_KERNEL,
     "void cutlass_cudnn_infer::Kernel<cutlass_tensorop_s1688dgrad_optimized_tf32_64x128_32x3_nhwc_"
     "align4>(cutlass_tensorop_s1688dgrad_optimized_tf32_64x128_32x3_nhwc_align4::Params)",
     NULL, NULL, "conv"},
    {TK_EV_KERNEL, "cudnn_infer_volta_scudnn_winograd_128x128_ldg1_ldg4_relu_tile148t_nt_v1", NULL,
     NULL, "conv"},
    {TK_EV_KERNEL,
     "void wgrad_alg0_engine<float, 128, 6, 7, 3, 3, 5, false, 512>(int, int, int, float const*, "
     "int, float*, float const*, kernel_grad_params)",
     NULL, NULL, "conv"},
    {TK_EV_KERNEL,
     "void cudnn::detail::dgrad_engine<float, 512, 6, 5, 3, 3, 3, false>(int, int, int, float "
     "const*, int, float const*, int, float*, kernel_grad_params)",
     NULL, NULL, "conv"},
    {TK_EV_KERNEL,
     "void implicit_convolve_sgemm<float, float, 1024, 6, 7, 3, 3, 5, 1, false, true, true>(int, "
     "int, int, float const*, int, float*, float const*)",
     NULL, NULL, "conv"},
    {TK_EV_KERNEL,
     "void fft2d_r2c_32x32<float, false, 5u, true>(float2*, float const*, int, int, int, int, int, "
     "int, int, int, int, cudnn::reduced_divisor, bool, int2, int, int)",
     NULL, NULL, "conv"},
    {TK_EV_KERNEL, "cask_cudnn::computeOffsetsKernel(cask_cudnn::ComputeOffsetsParams)", NULL, NULL,
     "conv"},
    {TK_EV_KERNEL,
     "void cudnn::bn_fw_tr_1C11_kernel_NCHW<float, float, 512, true, 1>(cudnnTensorStruct, float "
     "const*, cudnnTensorStruct, float*, float const*, float const*, float, float)",
     NULL, NULL, "norm"},
    {TK_EV_KERNEL,
     "void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<float, float>(int, "
     "float, float const*, float const*, float const*, float*, float*, float*)",
     NULL, NULL, "norm"},
    {TK_EV_KERNEL,
     "void at::native::(anonymous namespace)::GammaBetaBackwardCUDAKernel<float, float>(long, "
     "long, float const*, float const*, float const*, float const*, float*, float*)",
     NULL, NULL, "norm"},
    {TK_EV_KERNEL,
     "void at::native::(anonymous namespace)::RowwiseMomentsCUDAKernel<float, float>(long, float, "
     "float const*, float*, float*)",
     NULL, NULL, "norm"},
    {TK_EV_KERNEL,
     "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, "
     "at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<float>, at::detail::Array"
     "<char*, 3>)",
     NULL, NULL, "elementwise"},
    {TK_EV_KERNEL,
     "void at::native::unrolled_elementwise_kernel<at::native::direct_copy_kernel_cuda(at::"
     "TensorIteratorBase&)::{lambda()#2}::operator()() const::{lambda()#8}::operator()() const::"
     "{lambda(float)#1}>",
     NULL, NULL, "elementwise"},
    {TK_EV_KERNEL,
     "void at::native::(anonymous namespace)::CatArrayBatchedCopy<float, unsigned int, 1, 128, 1>"
     "(float*, at::native::(anonymous namespace)::CatArrInputTensorMetadata<float, unsigned int, "
     "128, 1>)",
     NULL, NULL, "elementwise"},
    {TK_EV_KERNEL,
     "void at::native::indexFuncLargeIndex<float, int, unsigned int, 1, 1, -2, true, "
     "at::native::(anonymous namespace)::ReduceAdd>(at::cuda::detail::TensorInfo<float, unsigned "
     "int>)",
     NULL, NULL, "elementwise"},
    {TK_EV_KERNEL,
     "void permute_pooled_embs_kernel<float>(float const*, long const*, long const*, long const*, "
     "float*, long, long, long)",
     NULL, NULL, "elementwise"},
    {TK_EV_KERNEL,
     "void split_embedding_codegen_forward_unweighted_kernel<c10::Half, c10::Half, float, false, "
     "long, 2ul, 32ul>(at::GenericPackedTensorAccessor<c10::Half, 1ul, at::RestrictPtrTraits, "
     "long>)",
     NULL, NULL, "elementwise"},
    {TK_EV_KERNEL,
     "void fbgemm_gpu::(anonymous namespace)::_FP8rowwise_to_float_cuda_kernel<float>(unsigned "
     "char const*, int, int, float*, bool)",
     NULL, NULL, "elementwise"},
    {TK_EV_KERNEL,
     "void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous "
     "namespace)::TensorListMetadata<2>, at::native::(anonymous namespace)::BinaryOpListAlpha"
     "Functor<float, 2, 2, 0>>",
     NULL, NULL, "elementwise"},
    {TK_EV_KERNEL,
     "void cudnn::ops::nchwToNhwcKernel<float, float, float, false, true, "
     "(cudnnKernelDataType_t)0>(cudnn::ops::nchw2nhwc_params_t<float>, float "
     "const*, float*)",
     NULL, NULL, "elementwise"},
    {TK_EV_KERNEL, "triton_poi_fused_add_cos_sin_0", NULL, NULL, "elementwise"},
    {TK_EV_KERNEL,
     "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::MeanOps"
     "<float, float>, unsigned int, float, 4> >(at::native::ReduceOp<float, at::native::MeanOps"
     "<float, float>, unsigned int, float, 4>)",
     NULL, NULL, "reduction"},
    {TK_EV_KERNEL,
     "void (anonymous namespace)::softmax_warp_forward<float, float, float, 10, true>(float*, "
     "float const*, int, int, int)",
     NULL, NULL, "reduction"},
    {TK_EV_KERNEL,
     "void at::native::(anonymous namespace)::max_pool_forward_nchw<float, float>(int, float "
     "const*, int, int, int, int, int, int, int, int, int, int, int, int, int, int, float*, long*)",
     NULL, NULL, "reduction"},
    {TK_EV_KERNEL,
     "void cunn_ClassNLLCriterion_updateOutput_kernel<float, float>(float*, float*, float*, long*, "
     "float*, int, int, int, int, long)",
     NULL, NULL, "reduction"},
    {TK_EV_KERNEL,
     "void cub::DeviceScanKernel<cub::AgentScanPolicy<128, 15, int, (cub::BlockLoadAlgorithm)3, "
     "(cub::CacheLoadModifier)0>>",
     NULL, NULL, "reduction"},
    {TK_EV_KERNEL, "ncclKernel_AllReduce_RING_LL_Sum_float(ncclWorkElem)", NULL, NULL, "comm"},
    {TK_EV_KERNEL,
     "ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclDevComm*, unsigned long, "
     "ncclWork*)",
     NULL, NULL, "comm"},
    {TK_EV_MEMCPY, "Memcpy HtoD (Pinned -> Device)", NULL, NULL, "memcpy"},
    {TK_EV_MEMCPY, "Memcpy DtoD (Device -> Device)", NULL, NULL, "memcpy"},
    {TK_EV_MEMSET, "Memset (Device)", NULL, NULL, "memset"},
    {TK_EV_KERNEL,
     "void cub::DeviceRadixSortOnesweepKernel<cub::DeviceRadixSortPolicy<long, int, int>::"
     "Policy800, false, long, int, int, int>(int*, int*, int*, int const*, long*, long const*)",
     NULL, NULL, "other"},
    {TK_EV_KERNEL, "at::cuda::(anonymous namespace)::spin_kernel(long)", NULL, NULL, "other"},
    {TK_EV_KERNEL, "triton__0d1d2d3d4d5d", NULL, NULL, "other"},
    /* TensorFlow 2.4 on V100 (XPlane) */
    {TK_EV_KERNEL,
     "void Eigen::internal::EigenMetaKernel<Eigen::TensorEvaluator<Eigen::TensorAssignOp<Eigen::"
     "TensorMap<Eigen::Tensor<Eigen::half, 1, 1, int>, 16, Eigen::MakePointer>>>>",
     NULL, NULL, "elementwise"},
    {TK_EV_KERNEL,
     "void tensorflow::functor::FillPhiloxRandomKernelLaunch<tensorflow::random::Uniform"
     "Distribution<tensorflow::random::PhiloxRandom, Eigen::half>>",
     NULL, NULL, "elementwise"},
    /* AMD: PyTorch on MI250 (Kineto), JAX 0.8 on MI300X (XPlane, with HLO ops) */
    {TK_EV_KERNEL,
     "Cijk_Alik_Bljk_SB_Bias_AS_SAV_UserArgs_MT64x16x32_MI16x16x1_SN_LDSB0_AFC1_AFEM1_AFEM1_ASEM1",
     NULL, NULL, "gemm"},
    {TK_EV_KERNEL, "Cijk_Ailk_Bljk_BBS_BH_MT256x224x64_MI16x16x16x1_SN_1LDSB1_APM1_ABV0", NULL,
     "custom-call.1", "gemm"},
    {TK_EV_KERNEL, "gemm_fusion_dot_general_1.kd", NULL, "gemm_fusion_dot_general.1", "gemm"},
    {TK_EV_KERNEL, "loop_convert_fusion.kd", NULL, "loop_convert_fusion", "elementwise"},
    {TK_EV_KERNEL, "wrapped_broadcast.kd", NULL, "wrapped_broadcast", "elementwise"},
    {TK_EV_KERNEL, "input_reduce_fusion.kd", NULL, "input_reduce_fusion", "reduction"},
    {TK_EV_KERNEL, "__amd_rocclr_copyBuffer.kd", NULL, "copy.1", "memcpy"},
    {TK_EV_KERNEL, "fusion_5.kd", NULL, "fusion.5", "other"},
    /* JAX on TPU v6e (XPlane XLA ops with their categories) */
    {TK_EV_XLA_OP, "copy-done.2", "copy-done", "copy-done.2", "memcpy"},
    {TK_EV_XLA_OP, "copy-start.4", "copy-start", "copy-start.4", "memcpy"},
    {TK_EV_XLA_OP, "broadcast_add_fusion.1", "loop fusion", "broadcast_add_fusion.1",
     "elementwise"},
    {TK_EV_XLA_OP, "broadcast.2", "broadcast", "broadcast.2", "elementwise"},
    {TK_EV_XLA_OP, "all-reduce", "all-reduce", "all-reduce", "comm"},
    /* XLA categories alone decide for names that say nothing */
    {TK_EV_XLA_OP, "fusion.12", "convolution fusion", "fusion.12", "conv"},
    {TK_EV_XLA_OP, "fusion.3", "output fusion", "fusion.3", "gemm"},
    {TK_EV_XLA_OP, "fusion.7", "input fusion", NULL, "reduction"},
    {TK_EV_XLA_OP, "fusion.9", "data formatting", NULL, "elementwise"},
    {TK_EV_XLA_OP, "dot.1", NULL, NULL, "gemm"},
    {TK_EV_XLA_OP, "copy.3", NULL, NULL, "elementwise"},
    /* PyTorch Inductor kernels: the kind and the fused ops decide */
    {TK_EV_KERNEL, "triton_red_fused_native_layer_norm_0", NULL, NULL, "norm"},
    {TK_EV_KERNEL, "triton_per_fused__softmax_1", NULL, NULL, "reduction"},
    {TK_EV_KERNEL, "triton_per_fused_convolution_backward_sum_2", NULL, NULL, "reduction"},
    {TK_EV_KERNEL, "triton_tem_fused_mm_0", NULL, NULL, "gemm"},
    /* attention before GEMM: flash kernels are CUTLASS-based */
    {TK_EV_KERNEL,
     "void flash::flash_fwd_kernel<Flash_fwd_kernel_traits<128, 128, 64, 4, false, false, "
     "cutlass::bfloat16_t>, false, true>(Flash_fwd_params)",
     NULL, NULL, "attention"},
    {TK_EV_KERNEL,
     "fmha_cutlassF_f16_aligned_64x64_rf_sm80(PyTorchMemEffAttention::AttentionKernel"
     "<cutlass::half_t, cutlass::arch::Sm80, true, 64, 64, 64, true, true>::Params)",
     NULL, NULL, "attention"},
};

Test(categories, device_ops_of_the_corpus)
{
	size_t n = sizeof(dev_cases) / sizeof(dev_cases[0]);
	cr_assert_geq(n, 40);
	int seen[TKA_NCAT] = {0};
	for (size_t i = 0; i < n; i++) {
		const struct dev_case *k = &dev_cases[i];
		const char *got =
		    tka_category_of_device_op(k->kind, k->name, k->xla_category, k->hlo_op);
		cr_expect_str_eq(got, k->want, "%s (category %s, HLO op %s): %s, want %s", k->name,
				 k->xla_category ? k->xla_category : "-",
				 k->hlo_op ? k->hlo_op : "-", got, k->want);
		for (int c = 0; c < TKA_NCAT; c++)
			seen[c] |= !strcmp(k->want, tka_category_name(c));
	}
	for (int c = 0; c < TKA_NCAT; c++)
		cr_expect(seen[c], "no case for category %s", tka_category_name(c));
	/* NULL and empty strings: no rule, no crash */
	cr_expect_str_eq(tka_category_of_device_op(TK_EV_KERNEL, NULL, NULL, NULL), "other");
	cr_expect_str_eq(tka_category_of_device_op(TK_EV_KERNEL, "", "", ""), "other");
	cr_expect_str_eq(tka_category_name(-1), "other");
	cr_expect_str_eq(tka_category_name(TKA_NCAT), "other");
}

/* Host ops of the corpus (aten ops, autograd nodes, c10d, fbgemm, MTIA ops). */
static const char *const host_cases[][2] = {
    {"aten::mm", "gemm"},
    {"aten::addmm", "gemm"},
    {"aten::bmm", "gemm"},
    {"aten::matmul", "gemm"},
    {"aten::linear", "gemm"},
    {"AddmmBackward0", "gemm"},
    {"autograd::engine::evaluate_function: MmBackward0", "gemm"},
    {"BmmBackward0", "gemm"},
    {"fc-dtype_Float", "gemm"},
    {"batch_matmul-dtype_Float", "gemm"},
    {"aten::conv2d", "conv"},
    {"aten::cudnn_convolution", "conv"},
    {"aten::_convolution", "conv"},
    {"ConvolutionBackward0", "conv"},
    {"aten::_scaled_dot_product_flash_attention", "attention"},
    {"aten::scaled_dot_product_attention", "attention"},
    {"flash_attn::_flash_attn_forward", "attention"},
    {"aten::native_layer_norm", "norm"},
    {"NativeLayerNormBackward0", "norm"},
    {"aten::cudnn_batch_norm", "norm"},
    {"CudnnBatchNormBackward0", "norm"},
    {"fb::rms_norm", "norm"},
    {"layer_norm_backward-dtype_Float", "norm"},
    {"aten::add_", "elementwise"},
    {"aten::mul.out-dtype_Float", "elementwise"},
    {"aten::threshold_backward", "elementwise"},
    {"aten::sigmoid", "elementwise"},
    {"aten::cat", "elementwise"},
    {"aten::index_select", "elementwise"},
    {"aten::_foreach_add_", "elementwise"},
    {"torch::autograd::AccumulateGrad", "elementwise"},
    {"fbgemm::split_embedding_codegen_lookup_rowwise_adagrad_function", "elementwise"},
    {"SumBackward0", "elementwise"},
    {"MeanBackward1", "elementwise"},
    {"aten::sum", "reduction"},
    {"aten::mean", "reduction"},
    {"aten::_softmax", "reduction"},
    {"aten::log_softmax", "reduction"},
    {"SoftmaxBackward0", "reduction"},
    {"aten::linalg_vector_norm", "reduction"},
    {"vector_norm_float_order-dtype_Float", "reduction"},
    {"reduce_sum-dtype_Float", "reduction"},
    {"aten::max_pool2d_with_indices", "reduction"},
    {"aten::cross_entropy_loss", "reduction"},
    {"aten::cumsum", "reduction"},
    {"c10d::allreduce_", "comm"},
    {"c10d::_allgather_base_", "comm"},
    {"record_param_comms", "comm"},
    {"All2All_Pooled_Req", "comm"},
    {"aten::copy_", "memcpy"},
    {"aten::to", "memcpy"},
    {"aten::_to_copy", "memcpy"},
    {"dma_request", "memcpy"},
    {"aten::zero_", "memset"},
    {"aten::fill_", "memset"},
    {"aten::zeros", "memset"},
    {"aten::empty", "other"},
    {"aten::view", "other"},
    {"fbgemm::bounds_check_indices", "other"},
    {"ProfilerStep#3", "other"},
};

Test(categories, host_ops_of_the_corpus)
{
	for (size_t i = 0; i < sizeof(host_cases) / sizeof(host_cases[0]); i++) {
		const char *got = tka_category_of_host_op(host_cases[i][0]);
		cr_expect_str_eq(got, host_cases[i][1], "%s: %s, want %s", host_cases[i][0], got,
				 host_cases[i][1]);
	}
	cr_expect_str_eq(tka_category_of_host_op(NULL), "other");
	cr_expect_str_eq(tka_category_of_host_op(""), "other");
}

static void import_fixture(void)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/tests/data/analyze/categories.json", TK_SOURCE_DIR);
	tkt_ok(tkt_tracekit("import", path, "-o", tkt_db, NULL));
}

#define CAT_ROWS                                                                              \
	"SELECT device_id, scope, window, step_index, step_num, category, ops, device_ns, "   \
	"printf('%.6f', share) FROM analysis_categories ORDER BY device_id, scope = 'step', " \
	"step_index, category"

/*
 * By construction (categories.json, µs): device 0, step 1 [0, 1000): two GEMMs 300 + 100 (the
 * second from 980 runs into step 2: counted whole in step 1), 200 of NCCL on a second stream
 * (overlapping a GEMM: summed, not unioned), 100 elementwise, 50 softmax (reduction), 40 memcpy,
 * 130 flash attention (a CUTLASS kernel: attention first), 50 implicit-GEMM convolution (conv
 * before GEMM), 20 layer norm, 5 memset, 5 spin kernel (other): 1000 in all. Step 2
 * [1000, 2000): 400 CUTLASS GEMM, 100 Inductor pointwise: 500. The window is the steps'
 * union: 1500, without the Inductor softmax reduction at -200 before the first step. Device 1,
 * step 1: Tensile GEMM 600, NCCL 200, ROCm copy kernel 50 (memcpy), layer norm backward 50;
 * its step 2 has no device work: no rows.
 */
Test(categories, fixture_shares_per_device_window_and_step)
{
	import_fixture();
	tkt_analyze(tkt_db, TK_WINDOW_AUTO, -1);
	tkt_expect_rows(tkt_db, CAT_ROWS,
			"0|window|steps|NULL|NULL|attention|1|130000|0.086667\n"
			"0|window|steps|NULL|NULL|comm|1|200000|0.133333\n"
			"0|window|steps|NULL|NULL|conv|1|50000|0.033333\n"
			"0|window|steps|NULL|NULL|elementwise|2|200000|0.133333\n"
			"0|window|steps|NULL|NULL|gemm|3|800000|0.533333\n"
			"0|window|steps|NULL|NULL|memcpy|1|40000|0.026667\n"
			"0|window|steps|NULL|NULL|memset|1|5000|0.003333\n"
			"0|window|steps|NULL|NULL|norm|1|20000|0.013333\n"
			"0|window|steps|NULL|NULL|other|1|5000|0.003333\n"
			"0|window|steps|NULL|NULL|reduction|1|50000|0.033333\n"
			"0|step|NULL|0|1|attention|1|130000|0.130000\n"
			"0|step|NULL|0|1|comm|1|200000|0.200000\n"
			"0|step|NULL|0|1|conv|1|50000|0.050000\n"
			"0|step|NULL|0|1|elementwise|1|100000|0.100000\n"
			"0|step|NULL|0|1|gemm|2|400000|0.400000\n"
			"0|step|NULL|0|1|memcpy|1|40000|0.040000\n"
			"0|step|NULL|0|1|memset|1|5000|0.005000\n"
			"0|step|NULL|0|1|norm|1|20000|0.020000\n"
			"0|step|NULL|0|1|other|1|5000|0.005000\n"
			"0|step|NULL|0|1|reduction|1|50000|0.050000\n"
			"0|step|NULL|1|2|elementwise|1|100000|0.200000\n"
			"0|step|NULL|1|2|gemm|1|400000|0.800000\n"
			"1|window|steps|NULL|NULL|comm|1|200000|0.222222\n"
			"1|window|steps|NULL|NULL|gemm|1|600000|0.666667\n"
			"1|window|steps|NULL|NULL|memcpy|1|50000|0.055556\n"
			"1|window|steps|NULL|NULL|norm|1|50000|0.055556\n"
			"1|step|NULL|0|1|comm|1|200000|0.222222\n"
			"1|step|NULL|0|1|gemm|1|600000|0.666667\n"
			"1|step|NULL|0|1|memcpy|1|50000|0.055556\n"
			"1|step|NULL|0|1|norm|1|50000|0.055556");
	/* the window rows count what analysis_device_time counts in the selected window */
	tkt_expect_rows(tkt_db,
			"SELECT d.device_id, d.ops, (SELECT sum(ops) FROM analysis_categories c "
			"WHERE c.device_id = d.device_id AND c.scope = 'window') FROM "
			"analysis_device_time d WHERE d.selected = 1 ORDER BY d.device_id",
			"0|13|13\n1|4|4");
}

/* --window device: from the first op (the softmax at -200) to the last op's end. */
Test(categories, fixture_device_window)
{
	import_fixture();
	tkt_analyze(tkt_db, TK_WINDOW_DEVICE, -1);
	tkt_expect_rows(tkt_db,
			"SELECT window, category, ops, device_ns FROM analysis_categories WHERE "
			"device_id = 0 AND scope = 'window' AND category IN ('reduction', 'gemm') "
			"ORDER BY category",
			"device|gemm|3|800000\ndevice|reduction|2|150000");
}

/* The report's split: the 4 largest by device time, ties by name, whole percents. */
Test(categories, report_split)
{
	import_fixture();
	tkt_analyze(tkt_db, TK_WINDOW_AUTO, -1);
	struct tkt_run r = tkt_tracekit("report", tkt_db, "--no-color", "--width", "160", NULL);
	cr_assert_eq(r.code, 0, "%s", r.err);
	cr_expect(strstr(r.out, "GEMM 53 %, comm 13 %, elementwise 13 %, attention 9 %"), "%s",
		  r.out);
	cr_expect(strstr(r.out, "GEMM 67 %, comm 22 %, memcpy 6 %, norm 6 %"), "%s", r.out);
	cr_expect(strstr(r.out, "GEMM 80 %, elementwise 20 %"), "%s", r.out);
	tkt_run_free(&r);
	r = tkt_tracekit("report", tkt_db, "--format", "json", NULL);
	cr_assert_eq(r.code, 0, "%s", r.err);
	cr_expect(strstr(r.out, "\"split\": \"GEMM 40 %, comm 20 %, attention 13 %, elementwise "
				"10 %\""),
		  "%s", r.out);
	tkt_run_free(&r);
}

/*
 * Real traces against category_figures.py (python3 category_figures.py FILE; its lines are
 * "scope step_index category ops ns"). nccl_data: a ResNet-like training step with NCCL and
 * launch-placed steps; ns_resolution: convolutions, GEMMs and normalization (window rows).
 */
Test(categories, nccl_data_agrees_with_python)
{
	tkt_import_corpus("kineto/HolisticTraceAnalysis/tests/data/nccl_parser_config/"
			  "nccl_data.json.gz",
			  tkt_db);
	tkt_analyze(tkt_db, TK_WINDOW_AUTO, -1);
	tkt_expect_rows(tkt_db,
			"SELECT scope, coalesce(step_index, 'NULL'), category, ops, device_ns FROM "
			"analysis_categories ORDER BY scope = 'step', step_index, category",
			"window|NULL|comm|21|46876493\n"
			"window|NULL|conv|366|21546754\n"
			"window|NULL|elementwise|1725|40607574\n"
			"window|NULL|gemm|249|19672241\n"
			"window|NULL|memcpy|960|2262781\n"
			"window|NULL|memset|114|390717\n"
			"window|NULL|norm|318|31382108\n"
			"window|NULL|reduction|21|2447170\n"
			"step|0|comm|7|11989021\n"
			"step|0|conv|122|7148258\n"
			"step|0|elementwise|575|13502550\n"
			"step|0|gemm|83|6546017\n"
			"step|0|memcpy|320|758032\n"
			"step|0|memset|38|127556\n"
			"step|0|norm|106|10493720\n"
			"step|0|reduction|7|815861\n"
			"step|1|comm|7|12300029\n"
			"step|1|conv|122|7086498\n"
			"step|1|elementwise|575|13534271\n"
			"step|1|gemm|83|6542857\n"
			"step|1|memcpy|320|738524\n"
			"step|1|memset|38|128891\n"
			"step|1|norm|106|10449838\n"
			"step|1|reduction|7|815958\n"
			"step|2|comm|7|22587443\n"
			"step|2|conv|122|7311998\n"
			"step|2|elementwise|575|13570753\n"
			"step|2|gemm|83|6583367\n"
			"step|2|memcpy|320|766225\n"
			"step|2|memset|38|134270\n"
			"step|2|norm|106|10438550\n"
			"step|2|reduction|7|815351");
}

Test(categories, ns_resolution_agrees_with_python)
{
	tkt_import_corpus("kineto/HolisticTraceAnalysis/tests/data/ns_resolution_trace/"
			  "rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz",
			  tkt_db);
	tkt_analyze(tkt_db, TK_WINDOW_AUTO, -1);
	tkt_expect_rows(tkt_db,
			"SELECT category, ops, device_ns FROM analysis_categories WHERE scope = "
			"'window' ORDER BY category",
			"conv|1470|181225591\n"
			"elementwise|1885|76419651\n"
			"gemm|430|117296927\n"
			"memcpy|1600|3715404\n"
			"memset|145|585435\n"
			"norm|530|86044403\n"
			"reduction|35|7167030");
}

/*
 * The perf model of PyTorch ops (analyze/perf_model.c, docs/metrics.md "Op performance
 * model"): every formula on hand-computed cases (the arithmetic is in the comments), the arg
 * spellings of real traces (compact JSON as the store keeps them, Python's repr), and the parser
 * on malformed and hostile strings (never a crash, always "unreadable shapes").
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perf_model.h"

static struct tka_pm run(const char *name, const char *dims, const char *types, const char *strides,
			 const char *conc)
{
	struct tka_pm r;
	tka_perf_model(name, dims, types, strides, conc, &r);
	return r;
}

static void expect_ok(struct tka_pm r, const char *model, const char *dtype, long long flops,
		      long long bytes)
{
	cr_assert_eq(r.status, TKA_PM_OK, "refused: %s", r.reason ? r.reason : "(none)");
	cr_expect_str_eq(r.model, model);
	if (dtype)
		cr_expect_str_eq(r.dtype, dtype);
	cr_expect_eq(r.flops, flops, "flops %lld, expected %lld", (long long)r.flops, flops);
	cr_expect_eq(r.bytes, bytes, "bytes %lld, expected %lld", (long long)r.bytes, bytes);
}

Test(perf_model, gemms)
{
	/* mm [128,256] x [256,512] fp32: 2*128*512*256 = 33 554 432 flops; bytes 4*(128*256 +
	 * 256*512 + 128*512) = 4*(32768 + 131072 + 65536) = 917 504 */
	expect_ok(run("aten::mm", "[[128,256],[256,512]]", "[\"float\",\"float\"]", NULL, NULL),
		  "gemm", "fp32", 33554432, 917504);
	/* the same in Python's repr, bf16: bytes 2*229376 = 458 752 */
	expect_ok(run("aten::mm", "[[128, 256], [256, 512]]", "['c10::BFloat16', 'c10::BFloat16']",
		      NULL, NULL),
		  "gemm", "bf16", 33554432, 458752);
	/* addmm(bias [512], [128,256], [256,512]): 33 554 432 + 128*512 (bias add) = 33 619 968;
	 * bytes 917 504 + 4*512 = 919 552 */
	expect_ok(run("aten::addmm", "[[512],[128,256],[256,512],[],[]]",
		      "[\"float\",\"float\",\"float\",\"Scalar\",\"Scalar\"]", NULL,
		      "[\"\",\"\",\"\",\"1\",\"1\"]"),
		  "gemm", "fp32", 33619968, 919552);
	/* bmm [8,64,32] x [8,32,16] fp16: 2*8*64*16*32 = 524 288; bytes 2*(16384 + 4096 + 8192)
	 * = 57 344 */
	expect_ok(
	    run("aten::bmm", "[[8,64,32],[8,32,16]]", "[\"c10::Half\",\"c10::Half\"]", NULL, NULL),
	    "gemm", "fp16", 524288, 57344);
	/* baddbmm(self [8,64,16], ...): 524 288 + 8*64*16 = 532 480; bytes 57 344 + 2*8192 =
	 * 73 728 */
	expect_ok(run("aten::baddbmm", "[[8,64,16],[8,64,32],[8,32,16],[],[]]",
		      "['c10::Half','c10::Half','c10::Half','Scalar','Scalar']", NULL, NULL),
		  "gemm", "fp16", 532480, 73728);
	/* linear(x [4,10,32], W [16,32], b [16]): M = 40, 2*40*16*32 + 40*16 = 40 960 + 640 =
	 * 41 600; bytes 4*(1280 + 512 + 16 + 640) = 9 792 */
	expect_ok(run("aten::linear", "[[4,10,32],[16,32],[16]]", "['float','float','float']", NULL,
		      NULL),
		  "gemm", "fp32", 41600, 9792);
	/* without bias (type '' for None): 40 960; bytes 4*(1280 + 512 + 640) = 9 728 */
	expect_ok(run("aten::linear", "[[4,10,32],[16,32],[]]", "['float','float','']", NULL, NULL),
		  "gemm", "fp32", 40960, 9728);
	/* _scaled_mm fp8 [64,128] x [128,32]: 2*64*32*128 = 524 288; bytes 8192 + 4096 + scales
	 * 4 + 4 + 2*2048 (bf16 out) = 16 392 */
	struct tka_pm r = run(
	    "aten::_scaled_mm", "[[64,128],[128,32],[],[],[],[],[],[]]",
	    "['c10::Float8_e4m3fn','c10::Float8_e4m3fn','float','float','','','','']", NULL, NULL);
	expect_ok(r, "gemm", "fp8", 524288, 16392);
	cr_expect(r.note != NULL);
	/* mv [100,50] x [50]: 2*100*50 = 10 000; dot [7]·[7]: 14 */
	expect_ok(run("aten::mv", "[[100,50],[50]]", "['float','float']", NULL, NULL), "gemm",
		  "fp32", 10000, 4 * (5000 + 50 + 100));
	expect_ok(run("aten::dot", "[[7],[7]]", "['double','double']", NULL, NULL), "gemm", "fp64",
		  14, 8 * 15);
}

Test(perf_model, matmul_broadcasts_and_1d_cases)
{
	/* [2,1,5,6] x [3,6,7]: batch broadcast (2,1) with (3) -> (2,3) = 6; 2*6*5*7*6 = 2 520;
	 * bytes 4*(60 + 126 + 6*35) = 4*396 = 1 584 */
	expect_ok(run("aten::matmul", "[[2,1,5,6],[3,6,7]]", "['float','float']", NULL, NULL),
		  "gemm", "fp32", 2520, 1584);
	/* 1-D x 1-D (dot): [9]·[9] = 18 flops, out 1 element: 4*(9+9+1) = 76 */
	expect_ok(run("aten::matmul", "[[9],[9]]", "['float','float']", NULL, NULL), "gemm", "fp32",
		  18, 76);
	/* [9] x [9,4]: 1 prepended: 2*1*4*9 = 72; out 4: 4*(9+36+4) = 196 */
	expect_ok(run("aten::matmul", "[[9],[9,4]]", "['float','float']", NULL, NULL), "gemm",
		  "fp32", 72, 196);
	/* [3,5,9] x [9]: 1 appended: batch 3, 2*3*5*1*9 = 270; out 15: 4*(135+9+15) = 636 */
	expect_ok(run("aten::matmul", "[[3,5,9],[9]]", "['float','float']", NULL, NULL), "gemm",
		  "fp32", 270, 636);
	/* batch dims that do not broadcast, inner dims that differ */
	cr_expect_eq(
	    run("aten::matmul", "[[2,5,6],[3,6,7]]", "['float','float']", NULL, NULL).status,
	    TKA_PM_REFUSED);
	cr_expect_eq(run("aten::mm", "[[2,5],[6,7]]", "['float','float']", NULL, NULL).status,
		     TKA_PM_REFUSED);
}

Test(perf_model, convolutions)
{
	/* conv2d x [2,3,32,32], w [8,3,3,3], bias [8], stride 2, padding 1, dilation 1:
	 * out = (32 + 2 - 2 - 1)/2 + 1 = 16; out elems 2*8*16*16 = 4 096;
	 * flops 2*4096*3*9 + 4096 = 221 184 + 4 096 = 225 280;
	 * bytes 4*(6144 + 216 + 8 + 4096) = 41 856 */
	expect_ok(run("aten::conv2d", "[[2,3,32,32],[8,3,3,3],[8],[],[],[],[]]",
		      "['float','float','float','ScalarList','ScalarList','ScalarList','Int']",
		      NULL, "['','','','[2, 2]','[1, 1]','[1, 1]','1']"),
		  "conv", "fp32", 225280, 41856);
	/* aten::convolution, groups 4, dilation 2, no bias, padding 0, stride 1, fp16:
	 * x [1,8,10,10], w [16,2,3,3]: out = 10 - 2*2 = 6; out elems 16*36 = 576;
	 * flops 2*576*2*9 = 20 736; bytes 2*(800 + 288 + 576) = 3 328 */
	expect_ok(run("aten::convolution", "[[1,8,10,10],[16,2,3,3],[],[],[],[],[],[],[]]",
		      "['c10::Half','c10::Half','','ScalarList','ScalarList','ScalarList','Scalar',"
		      "'ScalarList','Int']",
		      NULL, "['','','','[1, 1]','[0, 0]','[2, 2]','False','[0, 0]','4']"),
		  "conv", "fp16", 20736, 3328);
	/* transposed (conv_transpose1d): x [1,4,5], w [4,3,3] (C_in, C_out/groups, k), stride 2,
	 * padding 1, output_padding 1, groups 1, dilation 1:
	 * out = (5-1)*2 - 2 + 2 + 1 + 1 = 10; flops 2*(1*4*5)*3*3 = 360 (each input element into
	 * 3 channels x 3 taps); bytes 4*(20 + 36 + 3*10) = 344 */
	expect_ok(
	    run("aten::conv_transpose1d", "[[1,4,5],[4,3,3],[],[],[],[],[],[]]",
		"['float','float','','ScalarList','ScalarList','ScalarList','Int','ScalarList']",
		NULL, "['','','','[2]','[1]','[1]','1','[1]']"),
	    "conv", "fp32", 360, 344);
	/* _convolution with allow_tf32 True: fp32 reported as tf32; 1x1 conv x [4,16,7,7],
	 * w [32,16,1,1]: flops 2*(4*32*49)*16 = 200 704; bytes 4*(3136 + 512 + 6272) = 39 680 */
	expect_ok(
	    run("aten::_convolution", "[[4,16,7,7],[32,16,1,1],[],[],[],[],[],[],[],[],[],[],[]]",
		"['float','float','','ScalarList','ScalarList','ScalarList','Scalar','ScalarList',"
		"'Int','Scalar','Scalar','Scalar','Scalar']",
		NULL,
		"['','','','[1, 1]','[0, 0]','[1, 1]','False','[0, 0]','1','False','False',"
		"'True','True']"),
	    "conv", "tf32", 200704, 39680);
	/* padding 'same': out = in: x [1,1,8], w [2,1,3]: flops 2*(2*8)*1*3 = 96 */
	expect_ok(run("aten::conv1d", "[[1,1,8],[2,1,3],[],[],[],[],[]]",
		      "['float','float','','ScalarList','str','ScalarList','Int']", NULL,
		      "['','','','[1]','same','[1]','1']"),
		  "conv", "fp32", 96, 4 * (8 + 6 + 16));
	/* the 2021 Kineto spelling (resnet50 sample): GenericList parameters with no values */
	struct tka_pm r =
	    run("aten::cudnn_convolution", "[[32,3,224,224],[64,3,7,7],[],[],[],[],[],[],[]]",
		"[\"float\",\"float\",\"GenericList\",\"GenericList\",\"GenericList\","
		"\"Int\",\"Bool\",\"Bool\",\"Bool\"]",
		NULL, NULL);
	cr_expect_eq(r.status, TKA_PM_REFUSED);
	cr_expect_str_eq(r.reason, "convolution parameters not recorded");
	cr_expect_str_eq(r.model, "conv");
}

Test(perf_model, convolution_backward)
{
	/* resnet50's cudnn_convolution_backward(self [32,512,7,7], grad_output [32,2048,7,7],
	 * weight [2048,512,1,1]), no output mask recorded: forward 2*32*2048*49*512*1 =
	 * 3 288 334 336; both gradients: 6 576 668 672; bytes 4*(802816 + 3211264 + 1048576) reads
	 * + 4*(802816 + 1048576) writes = 20 250 624 + 7 405 568 = 27 656 192 */
	struct tka_pm r =
	    run("aten::cudnn_convolution_backward",
		"[[32,512,7,7],[32,2048,7,7],[2048,512,1,1],[],[],[],[],[],[],[],[]]",
		"['float','float','float','GenericList','GenericList','GenericList','Int',"
		"'Bool','Bool','Bool','GenericList']",
		NULL, NULL);
	expect_ok(r, "conv", "fp32", 6576668672LL, 27656192);
	cr_expect(r.note != NULL);
	/* convolution_backward with output_mask [True, False, True]: grad input only: 1x forward;
	 * go [2,8,4,4], input [2,4,8,8], weight [8,4,3,3] (stride 2): forward 2*2*16*8*4*9 =
	 * 18 432; bytes 4*(256 + 512 + 288) + 4*512 = 4 224 + 2 048 = 6 272 */
	expect_ok(
	    run("aten::convolution_backward",
		"[[2,8,4,4],[2,4,8,8],[8,4,3,3],[],[],[],[],[],[],[],[]]",
		"['float','float','float','ScalarList','ScalarList','ScalarList','ScalarList',"
		"'Scalar','ScalarList','Int','ScalarList']",
		NULL,
		"['','','','[8]','[2, 2]','[1, 1]','[1, 1]','False','[0, 0]','1','[True, "
		"False, True]']"),
	    "conv", "fp32", 18432, 6272);
	/* backward_weight needs the kernel size, which the 2021 spelling does not give */
	cr_expect_eq(run("aten::cudnn_convolution_backward_weight",
			 "[[],[32,512,7,7],[32,512,7,7],[],[],[],[],[],[],[]]",
			 "['GenericList','float','float','GenericList','GenericList','GenericList',"
			 "'Int','Bool','Bool','Bool']",
			 NULL, NULL)
			 .status,
		     TKA_PM_REFUSED);
	/* backward_input: 1x forward: go [32,512,7,7], w [512,512,3,3]: 2*32*512*49*512*9 =
	 * 7 398 752 256 */
	r = run("aten::cudnn_convolution_backward_input",
		"[[],[32,512,7,7],[512,512,3,3],[],[],[],[],[],[],[]]",
		"['GenericList','float','float','GenericList','GenericList','GenericList','Int',"
		"'Bool','Bool','Bool']",
		NULL, NULL);
	cr_expect_eq(r.status, TKA_PM_OK);
	cr_expect_eq(r.flops, 7398752256LL);
}

Test(perf_model, attention)
{
	/* SDPA q,k,v [2,4,128,64] bf16, not causal: 4*B*H*Lq*Lk*D = 4*8*128*128*64 = 33 554 432;
	 * bytes 2*(3*65536 + 65536) = 524 288 */
	const char *d = "[[2,4,128,64],[2,4,128,64],[2,4,128,64],[],[],[],[],[]]";
	const char *t = "['c10::BFloat16','c10::BFloat16','c10::BFloat16','','Scalar','Scalar','',"
			"'Scalar']";
	expect_ok(run("aten::scaled_dot_product_attention", d, t, NULL,
		      "['','','','','0.','False','','False']"),
		  "attention", "bf16", 33554432, 524288);
	/* causal: the kept pairs L(L+1)/2 = 128*129/2 = 8 256 instead of 16 384:
	 * 2*8*8256*(64+64) = 16 908 288 */
	expect_ok(run("aten::scaled_dot_product_attention", d, t, NULL,
		      "['','','','','0.','True','','False']"),
		  "attention", "bf16", 16908288, 524288);
	/* is_causal not recorded: counted without a mask, with a note */
	struct tka_pm r = run("aten::scaled_dot_product_attention", d, t, NULL, NULL);
	cr_expect_eq(r.flops, 33554432);
	cr_expect(r.note != NULL);
	/* Lq 4 < Lk 10, causal top-left: pairs 1+2+3+4 = 10; q [1,1,4,8], k,v [1,1,10,8]:
	 * 2*10*16 = 320 */
	expect_ok(run("aten::_scaled_dot_product_flash_attention",
		      "[[1,1,4,8],[1,1,10,8],[1,1,10,8],[],[],[],[]]",
		      "['float','float','float','Scalar','Scalar','Scalar','Scalar']", NULL,
		      "['','','','0.','True','False','']"),
		  "attention", "fp32", 320, 4 * (32 + 80 + 80 + 32));
	/* _efficient_attention_forward [B, L, H, D], custom_mask_type 2 (bottom-right), Lq 4,
	 * Lk 10: rows see 7, 8, 9, 10 keys = 34 pairs; B 1, H 2: 2*2*34*(8+8) = 2 176 */
	expect_ok(run("aten::_efficient_attention_forward",
		      "[[1,4,2,8],[1,10,2,8],[1,10,2,8],[],[],[],[],[],[],[],[]]",
		      "['float','float','float','','','','','','Scalar','Scalar','Scalar']", NULL,
		      "['','','','','','','','','0.','2','False']"),
		  "attention", "fp32", 2176, 4 * (64 + 160 + 160 + 64));
	/* backward: 2.5x forward: flash backward, q,k,v [1,2,16,32] not causal:
	 * forward 4*2*16*16*32 = 65 536, backward 163 840; bytes: reads grad_out, q, k, v, out
	 * (5*1024 fp16 elements) and logsumexp [1,2,16] (32 fp32), writes grad q, k, v (3*1024
	 * fp16): 2*5120 + 4*32 + 2*3072 = 16 512 */
	expect_ok(
	    run("aten::_scaled_dot_product_flash_attention_backward",
		"[[1,2,16,32],[1,2,16,32],[1,2,16,32],[1,2,16,32],[1,2,16,32],[1,2,16],[],[],[],"
		"[],[],[],[],[],[]]",
		"['c10::Half','c10::Half','c10::Half','c10::Half','c10::Half','float','','',"
		"'Scalar','Scalar','Scalar','Scalar','','','']",
		NULL, "['','','','','','','','','16','16','0.','False','','','']"),
	    "attention", "fp16", 163840, 16512);
	/* varlen flash forward: refused */
	cr_expect_eq(run("aten::_flash_attention_forward",
			 "[[100,2,8],[100,2,8],[100,2,8],[3],[3],[],[],[],[],[]]",
			 "['float','float','float','int','int','','','','','']", NULL, NULL)
			 .status,
		     TKA_PM_REFUSED);
}

Test(perf_model, elementwise_reductions_norms)
{
	/* add [4,1,3] + [5,1] broadcast to [4,5,3] = 60 elements: flops 60; bytes 4*(12 + 5) +
	 * 4*60 = 308 */
	expect_ok(run("aten::add", "[[4,1,3],[5,1],[]]", "['float','float','Scalar']", NULL, NULL),
		  "elementwise", "fp32", 60, 308);
	/* in place add_ [1024] += [1024] bf16: 1 024 flops; reads 2*2048, writes 2048 = 6 144 */
	expect_ok(run("aten::add_", "[[1024],[1024],[]]",
		      "['c10::BFloat16','c10::BFloat16','Scalar']", NULL, NULL),
		  "elementwise", "bf16", 1024, 6144);
	/* mixed dtypes: mul(float [10], bool [10]): out float: 4*10 + 1*10 + 4*10 = 90 */
	expect_ok(run("aten::mul", "[[10],[10]]", "['float','bool']", NULL, NULL), "elementwise",
		  "fp32", 10, 90);
	/* comparison: eq [6,6] == [6,6] long -> bool: 8*72 + 36 = 612 */
	expect_ok(run("aten::eq", "[[6,6],[6,6]]", "['long','long']", NULL, NULL), "elementwise",
		  "int64", 36, 612);
	/* copy_(self fp16 [100], src fp32 [100]): reads src 400, writes self 200, no flops */
	expect_ok(
	    run("aten::copy_", "[[100],[100],[]]", "['c10::Half','float','Scalar']", NULL, NULL),
	    "elementwise", "fp16", 0, 600);
	/* fill_ [5,128] fp32: writes 2 560 bytes */
	expect_ok(run("aten::fill_", "[[5,128],[]]", "['float','Scalar']", NULL, "['','0']"),
		  "elementwise", "fp32", 0, 2560);
	/* an expanded input (stride 0) reads its data once: mul([64,64] stride [0,1], [64,64]):
	 * reads 4*64 + 4*4096, writes 4*4096 = 33 024 */
	expect_ok(
	    run("aten::mul", "[[64,64],[64,64]]", "['float','float']", "[[0,1],[64,1]]", NULL),
	    "elementwise", "fp32", 4096, 33024);
	/* sum over dim [0] of [5,128] (amd trace spelling): flops 640, out 128: 4*(640+128) =
	 * 3 072 */
	expect_ok(run("aten::sum", "[[5,128],[],[],[]]", "['float','ScalarList','Scalar','']", NULL,
		      "['','[0]','True','']"),
		  "reduction", "fp32", 640, 3072);
	/* sum(x) with no dim arg: out 1 element: 4*(640 + 1) = 2 564 */
	expect_ok(run("aten::sum", "[[5,128]]", "['float']", NULL, NULL), "reduction", "fp32", 640,
		  2564);
	/* dims not recorded: output not counted, with a note */
	struct tka_pm r =
	    run("aten::sum", "[[2048,110],[],[],[]]", "['float','','Scalar','']", NULL, NULL);
	expect_ok(r, "reduction", "fp32", 225280, 901120);
	cr_expect(r.note != NULL);
	/* mean over dim -1 of [4,6]: out 4: 4*(24 + 4) = 112 */
	expect_ok(run("aten::mean", "[[4,6],[],[],[]]", "['float','ScalarList','Scalar','']", NULL,
		      "['','[-1]','False','']"),
		  "reduction", "fp32", 24, 112);
	/* layer_norm [2048,125] with weight and bias: 7 per element = 1 792 000;
	 * bytes 4*(256000 + 125 + 125) + 4*256000 = 2 049 000 */
	expect_ok(run("aten::layer_norm", "[[2048,125],[],[125],[125],[],[]]",
		      "['float','','float','float','Scalar','Scalar']", NULL, NULL),
		  "normalization", "fp32", 1792000, 2049000);
	/* softmax [2,1]: 5 per element = 10; bytes 4*2 + 4*2 = 16 */
	expect_ok(run("aten::softmax", "[[2,1],[],[]]", "['float','Scalar','']", NULL, NULL),
		  "normalization", "fp32", 10, 16);
}

Test(perf_model, no_model_and_missing_args)
{
	struct tka_pm r = run("aten::index_put_", "[[4],[]]", "['float','']", NULL, NULL);
	cr_expect_eq(r.status, TKA_PM_NONE);
	cr_expect_null(r.model);
	cr_expect_str_eq(r.reason, "no model for this op");
	cr_expect_not(tka_pm_has_model("aten::index_put_"));
	cr_expect(tka_pm_has_model("aten::mm"));
	r = run("aten::mm", NULL, NULL, NULL, NULL);
	cr_expect_eq(r.status, TKA_PM_REFUSED);
	cr_expect_str_eq(r.reason, "no shapes recorded (record_shapes off)");
	/* aten::cat's TensorList: a nested list, parsed and skipped, no shapes to model */
	r = run("aten::add", "[[[2,3],[2,3]],[]]", "['TensorList','Scalar']", NULL, NULL);
	cr_expect_eq(r.status, TKA_PM_REFUSED);
}

Test(perf_model, overflow_is_refused)
{
	/* each dim below 2^48, products beyond: int64 would overflow */
	struct tka_pm r =
	    run("aten::mm", "[[100000000000,100000000000],[100000000000,100000000000]]",
		"['float','float']", NULL, NULL);
	cr_expect_eq(r.status, TKA_PM_REFUSED);
	cr_expect_str_eq(r.reason, "sizes out of range");
	r = run("aten::add", "[[1000000,1000000,1000000],[]]", "['float','Scalar']", NULL, NULL);
	cr_expect_eq(r.status, TKA_PM_REFUSED);
	/* a dim of 2^48 or more is unreadable */
	r = run("aten::relu", "[[281474976710656]]", "['float']", NULL, NULL);
	cr_expect_str_eq(r.reason, "unreadable shapes");
	r = run("aten::conv2d", "[[1,1,8,8],[1,1,3,3],[],[],[],[],[]]",
		"['float','float','','','','','']", NULL,
		"['','','','[99999999999999]','[0]','[1]','1']");
	cr_expect_eq(r.status, TKA_PM_REFUSED);
}

/* Malformed strings: every one is "unreadable shapes" (or refused), never a crash. */
Test(perf_model, malformed_strings_fuzz)
{
	static const char *const bad[] = {
	    "",
	    "[",
	    "]",
	    "[[",
	    "[[1,2]",
	    "[[1,2],",
	    "[[1,,2]]",
	    "[[1 2]]",
	    "[[-1]]",
	    "[[1.5]]",
	    "[1,2]",
	    "[[1],[2]]x",
	    "[[a]]",
	    "[[1],[2],[3]",
	    "[[[[[[[[",
	    "[[]]]",
	    "null",
	    "{}",
	    "[[1,2,3,4,5,6,7,8,9,10,11,12,13]]",
	    "[[99999999999999999999999]]",
	    "[[1]],[[2]]",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct tka_pm r = run("aten::add", bad[i], "['float','float']", NULL, NULL);
		cr_expect_eq(r.status, TKA_PM_REFUSED, "'%s' accepted", bad[i]);
		cr_expect_str_eq(r.reason, "unreadable shapes", "'%s'", bad[i]);
	}
	static const char *const bad_types[] = {"",	"[",   "['float'", "['float',]",
						"['fl", "[,]", "['a'] x",  "[\"a\\"};
	for (size_t i = 0; i < sizeof(bad_types) / sizeof(bad_types[0]); i++)
		cr_expect_str_eq(run("aten::add", "[[2],[2]]", bad_types[i], NULL, NULL).reason,
				 "unreadable shapes", "'%s'", bad_types[i]);
	/* more args than the parser keeps */
	char big[4096] = "[";
	for (int i = 0; i < 70; i++)
		strcat(big, i ? ",[1]" : "[1]");
	strcat(big, "]");
	cr_expect_str_eq(run("aten::add", big, "['float']", NULL, NULL).reason,
			 "unreadable shapes");
	/* random mutations of a valid string: any status, never a crash; a NUL-terminated
	 * string of any bytes (deterministic generator) */
	const char *seed = "[[2,4,128,64],[2,4,128,64],[2,4,128,64],[],[],[]]";
	const char *alphabet = "[],0123456789 -'\"\\x";
	unsigned x = 12345;
	for (int it = 0; it < 20000; it++) {
		char s[128];
		size_t n = strlen(seed);
		memcpy(s, seed, n + 1);
		for (int k = 0; k < 1 + it % 4; k++) {
			x = x * 1103515245u + 12345u;
			size_t at = (x >> 8) % n;
			x = x * 1103515245u + 12345u;
			s[at] = alphabet[(x >> 8) % strlen(alphabet)];
		}
		struct tka_pm r;
		tka_perf_model("aten::scaled_dot_product_attention", s, s, s, s, &r);
		tka_perf_model("aten::conv2d", s, "['float','float']", s, s, &r);
		cr_assert(r.status == TKA_PM_OK || r.reason);
	}
}

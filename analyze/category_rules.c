/*
 * The category rules (docs/metrics.md, "Categories"): which of ten categories (gemm, conv,
 * attention, norm, elementwise, reduction, comm, memcpy, memset, other) a device operation or a
 * host op belongs to, from its kind, its name, and for XLA its HLO op and op category. Ordered
 * tables of words; the first rule that matches decides. Pure functions over strings, no store.
 */
#include <ctype.h>
#include <string.h>

#include <tracekit/store.h>

#include "intervals.h"

/* Names are matched on their first NAME_BYTES bytes (kernel names run to thousands of bytes; the
 * words the rules look for are near their start). */
#define NAME_BYTES 4095

static const char *const cat_names[TKA_NCAT] = {
    "gemm",	 "conv", "attention", "norm",	"elementwise",
    "reduction", "comm", "memcpy",    "memset", "other",
};

const char *tka_category_name(int cat)
{
	return cat >= 0 && cat < TKA_NCAT ? cat_names[cat] : "other";
}

/* How a rule's word must sit in the name. */
enum { HAS, PRE, IS, HAS_NOT_FB };

struct rule {
	unsigned char how, cat;
	const char *w; /* lower case */
};

#define G TKA_CAT_GEMM
#define C TKA_CAT_CONV
#define A TKA_CAT_ATTENTION
#define N TKA_CAT_NORM
#define E TKA_CAT_ELEMENTWISE
#define R TKA_CAT_REDUCTION
#define M TKA_CAT_MEMCPY
#define Z TKA_CAT_MEMSET

/*
 * Kernel and device-op names, lower-cased, underscores kept. Order is precedence: runtime
 * transfers, attention, convolution (implicit-GEMM convolutions are convolutions, so before
 * GEMM), normalization, GEMM, indexing (index_add's ReduceAdd is no reduction), reductions
 * (softmax among them), elementwise.
 */
/* clang-format off */
static const struct rule kernel_rules[] = {
    /* runtime transfers done by kernels or DMA: ROCm's blit kernels, XLA's async copies */
    {PRE, M, "__amd_rocclr_copy"}, {PRE, Z, "__amd_rocclr_fill"}, {PRE, M, "copy-start"},
    {PRE, M, "copy-done"}, {PRE, M, "dma_"},
    /* attention */
    {HAS, A, "attention"}, {HAS, A, "flash_fwd"}, {HAS, A, "flash_bwd"}, {HAS, A, "flashattn"},
    {HAS, A, "flash_attn"}, {HAS, A, "flashinfer"}, {HAS, A, "fmha"}, {HAS, A, "sdpa"},
    {HAS, A, "mha_fwd"}, {HAS, A, "mha_bwd"}, {HAS, A, "attn_fwd"}, {HAS, A, "attn_bwd"},
    /* convolution: cuDNN (implicit GEMM, Winograd, FFT, SASS scudnn), MIOpen, CUTLASS conv */
    {HAS, C, "convolution"}, {HAS, C, "conv1d"}, {HAS, C, "conv2d"}, {HAS, C, "conv3d"},
    {HAS, C, "_conv_"}, {HAS, C, "convolve"}, {HAS, C, "conv_depthwise"},
    {HAS, C, "implicit_gemm"}, {HAS, C, "implicitgemm"}, {HAS, C, "igemm_fwd"},
    {HAS, C, "igemm_bwd"}, {HAS, C, "igemm_wrw"}, {HAS, C, "xmma_fprop"},
    {HAS, C, "xmma_dgrad"}, {HAS, C, "xmma_wgrad"}, {HAS, C, "dgrad_engine"},
    {HAS, C, "dgrad_alg"}, {HAS, C, "wgrad_alg"}, {HAS, C, "winograd"}, {HAS, C, "scudnn"},
    {HAS, C, "fft2d_r2c"}, {HAS, C, "fft2d_c2r"}, {HAS, C, "im2col"}, {HAS, C, "col2im"},
    {HAS, C, "cask_cudnn"}, {HAS, C, "cutlass_cudnn"}, {HAS, C, "cudnn::cnn::"},
    {HAS, C, "conv_fwd"}, {HAS, C, "conv_bwd"}, {HAS, C, "conv_wrw"}, {HAS, C, "asmconv"},
    /* normalization */
    {HAS, N, "layer_norm"}, {HAS, N, "layernorm"}, {HAS, N, "batch_norm"},
    {HAS, N, "batchnorm"}, {HAS, N, "group_norm"}, {HAS, N, "groupnorm"},
    {HAS, N, "instance_norm"}, {HAS, N, "instancenorm"}, {HAS, N, "rms_norm"},
    {HAS, N, "rmsnorm"}, {HAS, N, "bn_fw"}, {HAS, N, "bn_bw"}, {HAS, N, "ln_fwd"},
    {HAS, N, "ln_bwd"}, {HAS, N, "gammabetabackward"}, {HAS, N, "rowwisemoments"},
    /* GEMM: cuBLAS/cuBLASLt (with a GEMM call's split-K, epilogue and scaling kernels),
     * CUTLASS, xmma, Tensile (rocBLAS, hipBLASLt: Cijk_...), MAGMA, XLA gemm fusions */
    {HAS_NOT_FB, G, "gemm"}, {HAS, G, "gemv"}, {HAS, G, "cublas"}, {HAS, G, "hipblaslt"},
    {HAS, G, "cutlass"}, {HAS, G, "xmma"}, {PRE, G, "cijk_"}, {HAS, G, "matmul"},
    {HAS, G, "wgmma"},
    /* indexing and data movement, before the reduction words (index_add's ReduceAdd functor
     * is no reduction, nor are the pooled embeddings a permutation moves) */
    {HAS, E, "index"}, {HAS, E, "gather"}, {HAS, E, "scatter"}, {HAS, E, "embedding"},
    {HAS, E, "bounds_check_indices"}, {HAS, E, "permute"},
    /* reductions: softmax, scans, pooling, losses */
    {HAS, R, "softmax"}, {HAS, R, "reduce"}, {HAS, R, "reduction"}, {HAS, R, "max_pool"},
    {HAS, R, "avg_pool"}, {HAS, R, "average_pool"}, {HAS, R, "maxpool"}, {HAS, R, "avgpool"},
    {HAS, R, "pooling"}, {HAS, R, "argmax"}, {HAS, R, "argmin"}, {HAS, R, "scan"},
    {HAS, R, "cumsum"}, {HAS, R, "nll"}, {HAS, R, "criterion"}, {HAS, R, "cross_entropy"},
    {HAS, R, "logsumexp"}, {HAS, R, "welford"},
    /* elementwise: pointwise kernels, layout changes, fills, random numbers, conversions */
    {HAS, E, "elementwise"}, {PRE, E, "loop_"}, {PRE, E, "wrapped_"},
    {HAS, E, "eigenmetakernel"}, {HAS, E, "multi_tensor_apply"}, {HAS, E, "foreach"},
    {HAS, E, "dropout"}, {HAS, E, "catarray"}, {HAS, E, "concat"}, {HAS, E, "copy"},
    {HAS, E, "transpose"}, {HAS, E, "fill"}, {HAS, E, "philox"}, {HAS, E, "random"},
    {HAS, E, "nchwtonhwc"}, {HAS, E, "nhwctonchw"}, {HAS, E, "scalepackedtensor"},
    {HAS, E, "quantize"}, {HAS, E, "_to_float"}, {HAS, E, "convert"}, {HAS, E, "broadcast"},
    {HAS, E, "upsample"}, {HAS, E, "interpolate"}, {HAS, E, "grid_sampler"},
    {HAS, E, "pointwise"}, {HAS, E, "activation"},
};
/* clang-format on */

/*
 * Op names (PyTorch aten ops and autograd nodes, MTIA ops, XLA HLO op names), normalized by
 * normalize(): the part after the last "::", cut at '.', '<', '(' and "-dtype", lower case,
 * underscores dropped, a trailing "backward" + digits dropped. Same order as the kernel rules,
 * with the copy and fill ops of the frameworks as memcpy and memset.
 */
/* clang-format off */
static const struct rule op_rules[] = {
    /* attention */
    {HAS, A, "attention"}, {HAS, A, "flashattn"}, {HAS, A, "sdpa"}, {HAS, A, "fmha"},
    {HAS, A, "attn"},
    /* convolution */
    {HAS, C, "convolution"}, {PRE, C, "conv1d"}, {PRE, C, "conv2d"}, {PRE, C, "conv3d"},
    {PRE, C, "convtranspose"}, {PRE, C, "convdepthwise"}, {HAS, C, "slowconv"},
    {HAS, C, "thnnconv"}, {HAS, C, "miopenconv"}, {HAS, C, "mkldnnconv"}, {HAS, C, "cudnnconv"},
    /* normalization */
    {HAS, N, "layernorm"}, {HAS, N, "batchnorm"}, {HAS, N, "groupnorm"},
    {HAS, N, "instancenorm"}, {HAS, N, "rmsnorm"},
    /* GEMM */
    {IS, G, "mm"}, {IS, G, "bmm"}, {IS, G, "addmm"}, {IS, G, "baddbmm"}, {IS, G, "addbmm"},
    {IS, G, "mv"}, {IS, G, "addmv"}, {IS, G, "dot"}, {IS, G, "vdot"}, {IS, G, "einsum"},
    {IS, G, "tensordot"}, {IS, G, "scaledmm"}, {IS, G, "fc"}, {PRE, G, "linear"},
    {HAS, G, "matmul"}, {HAS_NOT_FB, G, "gemm"}, {HAS, G, "cublas"},
    /* memcpy: the frameworks' copy ops */
    {IS, M, "copy"}, {IS, M, "to"}, {IS, M, "tocopy"}, {IS, M, "copyfrom"},
    {IS, M, "copyfromandresize"}, {IS, M, "clone"}, {IS, M, "contiguous"}, {IS, M, "pinmemory"},
    {PRE, M, "dma"}, {HAS, M, "memcpy"},
    /* memset: the fill ops */
    {IS, Z, "zero"}, {IS, Z, "zeros"}, {IS, Z, "zeroslike"}, {IS, Z, "fill"}, {IS, Z, "full"},
    {IS, Z, "fulllike"}, {IS, Z, "ones"}, {IS, Z, "oneslike"}, {IS, Z, "newzeros"},
    {IS, Z, "newones"}, {IS, Z, "newfull"}, {HAS, Z, "memset"},
    /* reductions */
    {PRE, R, "foreachnorm"}, {HAS, R, "softmax"}, {HAS, R, "reduce"}, {HAS, R, "reduction"},
    {HAS, R, "maxpool"}, {HAS, R, "avgpool"}, {HAS, R, "pooling"}, {HAS, R, "loss"},
    {HAS, R, "crossentropy"}, {HAS, R, "nll"}, {HAS, R, "vectornorm"}, {HAS, R, "linalgnorm"},
    {HAS, R, "bcewithlogits"}, {HAS, R, "logsumexp"}, {PRE, R, "cum"},
    /* elementwise */
    {PRE, E, "foreach"}, {HAS, E, "dropout"}, {HAS, E, "upsample"}, {HAS, E, "gridsampler"},
    {HAS, E, "fusedadam"}, {HAS, E, "fusedsgd"}, {HAS, E, "elementwise"},
    {HAS, E, "accumulategrad"}, {HAS, E, "index"}, {HAS, E, "gather"}, {HAS, E, "scatter"},
    {HAS, E, "embedding"}, {HAS, E, "permute"}, {PRE, E, "reflectionpad"},
    {PRE, E, "replicationpad"}, {IS, E, "constantpadnd"},
};
/* clang-format on */

/*
 * Reductions named exactly; the backward of one of them (SumBackward0, MeanBackward1) spreads
 * the gradient back over the reduced elements: elementwise.
 */
/* clang-format off */
static const char *const reductions[] = {
    "sum", "mean", "max", "min", "amax", "amin", "aminmax", "argmax", "argmin", "prod", "std",
    "var", "varmean", "stdmean", "norm", "any", "all", "median", "nanmedian", "mode", "nansum",
    "nanmean", "countnonzero", "frobeniusnorm", "nuclearnorm",
};
/* clang-format on */

/* Elementwise ops named exactly (PyTorch and XLA spellings, normalized). */
/* clang-format off */
static const char *const elementwise[] = {
    "add", "sub", "rsub", "mul", "div", "neg", "abs", "exp", "exp2", "expm1", "log", "log2",
    "log10", "log1p", "sqrt", "rsqrt", "pow", "square", "reciprocal", "sin", "cos", "tan",
    "tanh", "sigmoid", "relu", "relu6", "gelu", "silu", "mish", "elu", "selu", "celu",
    "leakyrelu", "hardtanh", "hardswish", "hardsigmoid", "softplus", "threshold", "clamp",
    "clampmin", "clampmax", "clip", "where", "maskedfill", "addcmul", "addcdiv", "lerp", "sign",
    "sgn", "floor", "ceil", "round", "trunc", "frac", "eq", "ne", "lt", "le", "gt", "ge",
    "logicaland", "logicalor", "logicalnot", "logicalxor", "bitwiseand", "bitwiseor",
    "bitwisenot", "bitwisexor", "isnan", "isinf", "isfinite", "nantonum", "logit", "erf",
    "erfinv", "cat", "stack", "uniform", "normal", "bernoulli", "rand", "randn", "randint",
    "randperm", "randlike", "randnlike", "arange", "linspace", "tril", "triu", "flip", "roll",
    "repeat", "repeatinterleave", "tile", "pad", "maximum", "minimum", "fmax", "fmin",
    "exponential", "multiply", "subtract", "divide", "negate", "convert", "convertelementtype",
    "select", "compare", "broadcast", "broadcastindim", "iota", "concatenate", "slice",
    "dynamicslice", "dynamicupdateslice", "reverse", "transpose", "permute", "remainder",
    "fmod", "floordiv", "truediv", "atan2", "hypot", "copysign", "typeas", "bitcast", "reshape",
    "expand", "xlogy", "heaviside", "asin", "acos", "atan", "sinh", "cosh", "digamma", "lgamma",
    "rng", "rngbitgenerator", "and", "or", "not", "xor", "power", "cbrt", "logistic",
};
/* clang-format on */

/* XLA op categories (op_details.op_category), lower-cased, as XProf and the XLA GPU backend
 * name them. */
/* clang-format off */
static const struct rule xla_rules[] = {
    {PRE, M, "copy-start"}, {PRE, M, "copy-done"}, {HAS, A, "attention"},
    {HAS, C, "convolution"}, {HAS, G, "dot"}, {HAS, G, "matmul"}, {HAS, G, "gemm"},
    {IS, G, "output fusion"}, {HAS, N, "batch-norm"}, {HAS, R, "reduce"},
    {IS, R, "input fusion"}, {IS, E, "loop fusion"}, {HAS, E, "elementwise"},
    {IS, E, "data formatting"}, {IS, E, "copy"}, {HAS, E, "broadcast"}, {HAS, E, "transpose"},
    {HAS, E, "concatenate"}, {HAS, E, "slice"}, {IS, E, "pad"}, {IS, E, "reshape"},
    {IS, E, "convert"}, {IS, E, "select"}, {HAS, E, "gather"}, {HAS, E, "scatter"},
    {IS, E, "iota"}, {IS, E, "rng"},
};
/* clang-format on */

#undef G
#undef C
#undef A
#undef N
#undef E
#undef R
#undef M
#undef Z

/* @s lower-cased into @buf (NAME_BYTES + 1 bytes), cut at NAME_BYTES bytes. */
static void lower(char *buf, const char *s)
{
	size_t n = 0;
	for (; s[n] && n < NAME_BYTES; n++)
		buf[n] = (char)tolower((unsigned char)s[n]);
	buf[n] = '\0';
}

static int matches(const struct rule *r, const char *s)
{
	size_t n = strlen(r->w);
	const char *p;
	switch (r->how) {
	case PRE:
		return !strncmp(s, r->w, n);
	case IS:
		return !strcmp(s, r->w);
	case HAS_NOT_FB: /* fbgemm (embeddings, quantization) is a library name, not a GEMM */
		for (p = strstr(s, r->w); p; p = strstr(p + 1, r->w))
			if (p - s < 2 || strncmp(p - 2, "fb", 2))
				return 1;
		return 0;
	default:
		return strstr(s, r->w) != NULL;
	}
}

/* The category of the first rule of @v (n rules) that @s (lower case) matches, or -1. */
static int first_match(const struct rule *v, size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++)
		if (matches(&v[i], s))
			return v[i].cat;
	return -1;
}

static int in_list(const char *const *v, size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(v[i], s))
			return 1;
	return 0;
}

#define NELEM(v) (sizeof(v) / sizeof((v)[0]))

/*
 * PyTorch Inductor's kernels (triton_{poi,red,per,tem}_fused_<ops>_<n>): a pointwise kernel is
 * elementwise, a reduction or persistent-reduction kernel a reduction (a normalization when its
 * fused ops are one, softmax a reduction), a template kernel a GEMM unless its ops name a
 * convolution or attention. The ops of a pointwise or reduction kernel never run a GEMM or a
 * convolution inside it (Inductor calls those out), so their names do not count there. -1 for
 * any other name.
 */
static int inductor(const char *s)
{
	static const struct rule norm[] = {
	    {HAS, TKA_CAT_NORM, "layer_norm"},	  {HAS, TKA_CAT_NORM, "batch_norm"},
	    {HAS, TKA_CAT_NORM, "group_norm"},	  {HAS, TKA_CAT_NORM, "rms_norm"},
	    {HAS, TKA_CAT_NORM, "instance_norm"}, {HAS, TKA_CAT_REDUCTION, "softmax"},
	};
	if (strncmp(s, "triton_", 7) || strlen(s) < 11 || s[10] != '_')
		return -1;
	const char *k = s + 7;
	if (!strncmp(k, "tem", 3)) {
		if (strstr(s, "attention"))
			return TKA_CAT_ATTENTION;
		return strstr(s, "conv") ? TKA_CAT_CONV : TKA_CAT_GEMM;
	}
	int poi = !strncmp(k, "poi", 3);
	if (!poi && strncmp(k, "red", 3) && strncmp(k, "per", 3))
		return -1;
	int cat = first_match(norm, NELEM(norm), s);
	return cat >= 0 ? cat : poi ? TKA_CAT_ELEMENTWISE : TKA_CAT_REDUCTION;
}

/* @s normalized into @buf (NAME_BYTES + 1 bytes) as op_rules expects; *@bwd = 1 when it named a
 * backward node. */
static void normalize(char *buf, const char *s, int *bwd)
{
	static const char prefix[] = "autograd::engine::evaluate_function: ";
	if (!strncmp(s, prefix, sizeof(prefix) - 1))
		s += sizeof(prefix) - 1;
	size_t end = strcspn(s, "<( ");
	const char *start = s;
	for (size_t i = 0; i + 1 < end; i++)
		if (s[i] == ':' && s[i + 1] == ':')
			start = s + i + 2;
	end -= (size_t)(start - s);
	size_t cut = strcspn(start, ".");
	if (cut < end)
		end = cut;
	const char *dt = strstr(start, "-dtype");
	if (dt && (size_t)(dt - start) < end)
		end = (size_t)(dt - start);
	size_t n = 0;
	for (size_t i = 0; i < end && n < NAME_BYTES; i++)
		if (start[i] != '_')
			buf[n++] = (char)tolower((unsigned char)start[i]);
	while (n > 0 && isdigit((unsigned char)buf[n - 1]))
		n--;
	*bwd = n > 8 && !strncmp(buf + n - 8, "backward", 8);
	if (*bwd)
		n -= 8;
	buf[n] = '\0';
}

/* The op rules on @name; -1 when none matches. */
static int op_category(const char *name)
{
	char buf[NAME_BYTES + 1];
	int bwd;
	normalize(buf, name, &bwd);
	if (!buf[0])
		return -1;
	int cat = first_match(op_rules, NELEM(op_rules), buf);
	if (cat >= 0)
		return cat;
	if (in_list(reductions, NELEM(reductions), buf))
		return bwd ? TKA_CAT_ELEMENTWISE : TKA_CAT_REDUCTION;
	return in_list(elementwise, NELEM(elementwise), buf) ? TKA_CAT_ELEMENTWISE : -1;
}

/* Collective host ops: the communication name rule, c10d's ops, PyTorch's comms record. */
static int host_comm(const char *name)
{
	return tka_is_comm_name(name) || !strncmp(name, "c10d::", 6) ||
	       strstr(name, "record_param_comms") || strstr(name, "All2All") ||
	       strstr(name, "all2all");
}

int tka_host_op_category(const char *name)
{
	if (!name || !*name)
		return TKA_CAT_OTHER;
	if (host_comm(name))
		return TKA_CAT_COMM;
	int cat = op_category(name);
	return cat >= 0 ? cat : TKA_CAT_OTHER;
}

int tka_device_name_rule(const char *s)
{
	if (!s || !*s)
		return -1;
	if (tka_is_comm_name(s))
		return TKA_CAT_COMM;
	char buf[NAME_BYTES + 1];
	lower(buf, s);
	int cat = inductor(buf);
	if (cat < 0)
		cat = first_match(kernel_rules, NELEM(kernel_rules), buf);
	if (cat < 0 && (cat = op_category(s)) >= 0 &&
	    (cat == TKA_CAT_MEMCPY || cat == TKA_CAT_MEMSET))
		cat = TKA_CAT_ELEMENTWISE; /* a device op that copies or fills is a kernel */
	return cat;
}

int tka_xla_category_rule(const char *s)
{
	if (!s || !*s)
		return -1;
	if (tka_is_comm_name(s))
		return TKA_CAT_COMM;
	char buf[NAME_BYTES + 1];
	lower(buf, s);
	return first_match(xla_rules, NELEM(xla_rules), buf);
}

int tka_device_op_category(int kind, const char *name, const char *xla_category, const char *hlo_op)
{
	if (kind == TK_EV_MEMCPY)
		return TKA_CAT_MEMCPY;
	if (kind == TK_EV_MEMSET)
		return TKA_CAT_MEMSET;
	int cat = tka_device_name_rule(name);
	if (cat < 0)
		cat = tka_device_name_rule(hlo_op);
	if (cat < 0)
		cat = tka_xla_category_rule(xla_category);
	return cat >= 0 ? cat : TKA_CAT_OTHER;
}

const char *tka_category_of_host_op(const char *name)
{
	return cat_names[tka_host_op_category(name)];
}

const char *tka_category_of_device_op(int kind, const char *name, const char *xla_category,
				      const char *hlo_op)
{
	return cat_names[tka_device_op_category(kind, name, xla_category, hlo_op)];
}

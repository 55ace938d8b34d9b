#!/usr/bin/env python3
"""Independent figures for device time by category (tests/analyze/test_categories.c), computed
from Kineto JSON with Python's json/gzip modules, never with tracekit. The rules are those of
docs/metrics.md "Categories" for kernels, copies and sets of a PyTorch trace (no XLA fields),
re-implemented from the text; the steps are placed on the device by step_figures.py (docs
"Steps on the device"), and the window is the union of the steps (the selected window when a
trace has steps).

  device op: X event with cat kernel|Kernel (kernel), gpu_memcpy|Memcpy, gpu_memset|Memset
  scope 'window': the ops whose start lies in the union of the step intervals
  scope 'step' k: the ops whose start lies in [start, end) of step k (host order = start order)
  per scope and category: ops, sum of durations

Usage: python3 category_figures.py FILE   (one line per row: scope step_index category ops ns)
"""
import sys

from step_figures import load, place_steps

KERNEL, MEMCPY, MEMSET = ("kernel", "Kernel"), ("gpu_memcpy", "Memcpy"), ("gpu_memset", "Memset")

COMM = ["nccl", "rccl", "all-reduce", "allreduce", "all_reduce", "all-gather", "allgather",
        "all_gather", "reduce-scatter", "reducescatter", "reduce_scatter", "all-to-all",
        "alltoall", "all_to_all", "collective-permute", "collectivepermute"]

# (category, [words]): "^w" starts with, "!fb" the gemm rule that skips "fbgemm", else has
KERNEL_RULES = [
    ("memcpy", ["^__amd_rocclr_copy"]), ("memset", ["^__amd_rocclr_fill"]),
    ("memcpy", ["^copy-start", "^copy-done", "^dma_"]),
    ("attention", ["attention", "flash_fwd", "flash_bwd", "flashattn", "flash_attn",
                   "flashinfer", "fmha", "sdpa", "mha_fwd", "mha_bwd", "attn_fwd", "attn_bwd"]),
    ("conv", ["convolution", "conv1d", "conv2d", "conv3d", "_conv_", "convolve",
              "conv_depthwise", "implicit_gemm", "implicitgemm", "igemm_fwd", "igemm_bwd",
              "igemm_wrw", "xmma_fprop", "xmma_dgrad", "xmma_wgrad", "dgrad_engine",
              "dgrad_alg", "wgrad_alg", "winograd", "scudnn", "fft2d_r2c", "fft2d_c2r",
              "im2col", "col2im", "cask_cudnn", "cutlass_cudnn", "cudnn::cnn::", "conv_fwd",
              "conv_bwd", "conv_wrw", "asmconv"]),
    ("norm", ["layer_norm", "layernorm", "batch_norm", "batchnorm", "group_norm", "groupnorm",
              "instance_norm", "instancenorm", "rms_norm", "rmsnorm", "bn_fw", "bn_bw",
              "ln_fwd", "ln_bwd", "gammabetabackward", "rowwisemoments"]),
    ("gemm", ["!fbgemm", "gemv", "cublas", "hipblaslt", "cutlass", "xmma", "^cijk_", "matmul",
              "wgmma"]),
    ("elementwise", ["index", "gather", "scatter", "embedding", "bounds_check_indices",
                     "permute"]),
    ("reduction", ["softmax", "reduce", "reduction", "max_pool", "avg_pool", "average_pool",
                   "maxpool", "avgpool", "pooling", "argmax", "argmin", "scan", "cumsum",
                   "nll", "criterion", "cross_entropy", "logsumexp", "welford"]),
    ("elementwise", ["elementwise", "^loop_", "^wrapped_", "eigenmetakernel",
                     "multi_tensor_apply", "foreach", "dropout", "catarray", "concat", "copy",
                     "transpose", "fill", "philox", "random", "nchwtonhwc", "nhwctonchw",
                     "scalepackedtensor", "quantize", "_to_float", "convert", "broadcast",
                     "upsample", "interpolate", "grid_sampler", "pointwise", "activation"]),
]


def matches(word, name):
    if word.startswith("^"):
        return name.startswith(word[1:])
    if word == "!fbgemm":
        i = name.find("gemm")
        while i >= 0:
            if name[max(0, i - 2):i] != "fb":
                return True
            i = name.find("gemm", i + 1)
        return False
    return word in name


def inductor(low):
    """triton_{poi,red,per,tem}_...: the Inductor rule; None for other names."""
    if not low.startswith("triton_") or len(low) < 11 or low[10] != "_":
        return None
    kind = low[7:10]
    if kind == "tem":
        return "attention" if "attention" in low else "conv" if "conv" in low else "gemm"
    if kind not in ("poi", "red", "per"):
        return None
    for w in ("layer_norm", "batch_norm", "group_norm", "rms_norm", "instance_norm"):
        if w in low:
            return "norm"
    if "softmax" in low:
        return "reduction"
    return "elementwise" if kind == "poi" else "reduction"


def kernel_category(name):
    low = name.lower()
    if any(w in low for w in COMM):
        return "comm"
    cat = inductor(low)
    if cat:
        return cat
    for cat, words in KERNEL_RULES:
        if any(matches(w, low) for w in words):
            return cat
    return "other"  # the op-name rules name no PyTorch kernel (checked: none in these traces)


def main():
    host, annot, launch, xs = load(sys.argv[1])
    ops = []
    for e, ts, end in xs:
        cat = e.get("cat")
        if cat in KERNEL or cat in MEMCPY or cat in MEMSET:
            kind = "memcpy" if cat in MEMCPY else "memset" if cat in MEMSET else None
            corr = (e.get("args") or {}).get("correlation")
            ops.append((ts, end, corr, kind or kernel_category(e["name"])))
    steps = place_steps(host, annot, [(a, b, launch.get(c)) for a, b, c, _ in ops])
    steps.sort(key=lambda s: s[2])
    scopes = [("window", "NULL", [(s[2], s[3]) for s in steps])]
    scopes += [("step", str(k), [(s[2], s[3])]) for k, s in enumerate(steps)]
    for scope, k, spans in scopes:
        rows = {}
        for ts, end, _, cat in ops:
            if any(a <= ts < b for a, b in spans):
                r = rows.setdefault(cat, [0, 0])
                r[0] += 1
                r[1] += end - ts
        for cat in sorted(rows):
            print(scope, k, cat, rows[cat][0], rows[cat][1])


if __name__ == "__main__":
    main()

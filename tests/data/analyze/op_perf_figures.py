#!/usr/bin/env python3
"""FLOPs and device time of the GEMM ops (and cuDNN convolution backwards) of a Kineto JSON trace, independently of tracekit.

The formulas of docs/metrics.md ("Op performance model") for aten::mm, addmm, bmm, baddbmm,
matmul and linear, written again from the text: 2*M*N*K per output batch, plus M*N for the bias
of addmm/baddbmm/linear; aten::cudnn_convolution_backward: twice the forward convolution. Args with more entries than the op has (its schema's,
one more for out=) or shapes that do not multiply give no figure. Counting rule: a GEMM op
call with a figure counts when no GEMM op call that encloses it on its thread counts (the outermost modelled op; the script checks that no other modelled op
encloses a GEMM in the trace, so that GEMMs are the only ops that matter). Device time of a call:
the device ops (kernel, gpu_memcpy, gpu_memset) whose launching runtime call (same
args.correlation, the earliest) starts inside the call on its thread. Times as tracekit imports
them (integer ns, us rounded half away from zero). Prints one line per (name, Input Dims as
compact JSON, Input type as compact JSON): name|dims|types|calls|flops|device_ops|device_ns
"""
import gzip
import json
import sys
from decimal import Decimal, ROUND_HALF_UP

DEVICE = {"kernel", "Kernel", "gpu_memcpy", "Memcpy", "gpu_memset", "Memset"}
LAUNCH = {"cuda_runtime", "cuda_driver", "Runtime", "Driver"}
HOST_OPS = {"cpu_op", "Operator"}
GEMMS = {"aten::mm", "aten::addmm", "aten::bmm", "aten::baddbmm", "aten::matmul", "aten::linear",
         "aten::cudnn_convolution_backward"}
OTHER_MODELLED = {"aten::layer_norm", "aten::native_layer_norm", "aten::softmax", "aten::_softmax",
                  "aten::add", "aten::mul", "aten::sub", "aten::div", "aten::sum", "aten::mean"}


def ns(v):
    return int((Decimal(str(v)) * 1000).quantize(Decimal(1), rounding=ROUND_HALF_UP))


def prod(v):
    p = 1
    for x in v:
        p *= x
    return p


MAX_ARGS = {"aten::cudnn_convolution_backward": 11, "aten::mm": 3, "aten::bmm": 3, "aten::matmul": 3, "aten::addmm": 6,
            "aten::baddbmm": 6, "aten::linear": 4}


def gemm_flops(name, dims, types):
    """The FLOPs of one call, None when the args are not the op's (too many, shapes that do
    not multiply)."""
    tensor = [t not in ("", "Scalar", "ScalarList", "GenericList", "TensorList") for t in types]
    if len(dims) > MAX_ARGS[name]:
        return None
    try:
        return flops_of(name, dims, tensor)
    except (ValueError, IndexError):
        return None


def flops_of(name, dims, tensor):
    def need(cond):
        if not cond:
            raise ValueError
    if name == "aten::cudnn_convolution_backward":
        # (input, grad_output, weight, ...): both gradients (no output mask recorded), each
        # the forward's 2 * N * C_out * out spatial * C_in/groups * kernel
        x, go, w = dims[0], dims[1], dims[2]
        need(len(x) == len(go) == len(w) and 3 <= len(w) <= 5)
        return 2 * 2 * go[0] * w[0] * prod(go[2:]) * w[1] * prod(w[2:])
    if name in ("aten::mm", "aten::bmm"):
        a, b = dims[0], dims[1]
        need(len(a) == len(b) == (3 if name == "aten::bmm" else 2) and a[-1] == b[-2])
        need(name == "aten::mm" or a[0] == b[0])
        batch = a[0] if name == "aten::bmm" else 1
        return 2 * batch * a[-2] * b[-1] * a[-1]
    if name in ("aten::addmm", "aten::baddbmm"):
        a, b = dims[1], dims[2]
        need(len(a) == len(b) == (3 if name == "aten::baddbmm" else 2) and a[-1] == b[-2])
        batch = a[0] if name == "aten::baddbmm" else 1
        out = batch * a[-2] * b[-1]
        return 2 * out * a[-1] + out
    if name == "aten::linear":
        x, w = dims[0], dims[1]
        need(len(x) >= 1 and 1 <= len(w) <= 2 and x[-1] == w[-1])
        m = prod(x[:-1])
        n = w[0] if len(w) == 2 else 1
        bias = len(dims) > 2 and tensor[2]
        return 2 * m * n * x[-1] + (m * n if bias else 0)
    # matmul: 1-D operands promoted, batch dims broadcast
    a, b = list(dims[0]), list(dims[1])
    need(len(a) >= 1 and len(b) >= 1 and a[-1] == (b[-2] if len(b) > 1 else b[0]))
    k = a[-1]
    m = a[-2] if len(a) > 1 else 1
    n = b[-1] if len(b) > 1 else 1
    ba, bb = a[:-2], b[:-2]
    ba, bb = [1] * (len(bb) - len(ba)) + ba, [1] * (len(ba) - len(bb)) + bb
    need(all(x == y or x == 1 or y == 1 for x, y in zip(ba, bb)))
    batch = prod(max(x, y) for x, y in zip(ba, bb))
    return 2 * batch * m * n * k


def main(path):
    opener = gzip.open if open(path, "rb").read(2) == b"\x1f\x8b" else open
    with opener(path, "rt") as f:
        doc = json.load(f, parse_float=Decimal)
    evs = doc["traceEvents"] if isinstance(doc, dict) else doc
    base = int(doc.get("baseTimeNanoseconds", 0)) if isinstance(doc, dict) else 0
    dev, launch, ops = {}, {}, {}
    for idx, e in enumerate(evs):
        if e.get("ph") != "X":
            continue
        cat, args = e.get("cat"), e.get("args") or {}
        ts = ns(e["ts"]) + base
        end = ts + ns(e.get("dur", 0))
        corr = args.get("correlation")
        if cat in DEVICE and corr is not None:
            dev.setdefault(int(corr), []).append(end - ts)
        elif cat in LAUNCH and corr is not None:
            c = int(corr)
            if c not in launch or (ts, idx) < launch[c][2:]:
                launch[c] = (str(e.get("pid")), str(e.get("tid")), ts, idx)
        elif cat in HOST_OPS:
            ops.setdefault((str(e.get("pid")), str(e.get("tid"))), []).append(
                (ts, end, idx, e.get("name", ""), args))
    # launches per thread: (ts, duration)
    per_thread = {}
    for c, (pid, tid, t, _) in launch.items():
        for d in dev.get(c, []):
            per_thread.setdefault((pid, tid), []).append((t, d))
    rows, other_parent = {}, 0
    for key, lst in ops.items():
        lst.sort(key=lambda h: (h[0], -h[1], h[2]))
        stack = []  # (end, claimed)
        for ts, end, idx, name, args in lst:
            while stack and stack[-1][0] <= ts:
                stack.pop()
            inside = bool(stack) and stack[-1][1]
            counted = False
            if name in GEMMS and "Input Dims" in args:
                if any(s[2] for s in stack):
                    other_parent += 1
                flops = gemm_flops(name, args["Input Dims"], args["Input type"])
                if not inside and flops is not None:
                    counted = True
                    launched = [d for t, d in per_thread.get(key, []) if ts <= t < end]
                    k = (name, json.dumps(args["Input Dims"], separators=(",", ":")),
                         json.dumps(args["Input type"], separators=(",", ":")))
                    r = rows.setdefault(k, [0, 0, 0, 0])
                    r[0] += 1
                    r[1] += flops
                    r[2] += len(launched)
                    r[3] += sum(launched)
            stack.append((end, inside or counted, name in OTHER_MODELLED))
    if other_parent:
        print("warning: %d GEMM calls inside other modelled ops" % other_parent, file=sys.stderr)
    for k in sorted(rows):
        print("|".join(list(k) + [str(x) for x in rows[k]]))


if __name__ == "__main__":
    main(sys.argv[1])

#!/usr/bin/env python3
"""GPU time per CPU op and per annotation from a Kineto JSON trace, independently of tracekit.

Each device op (kernel, gpu_memcpy, gpu_memset) is linked to the CUDA runtime/driver call with the
same args.correlation (the earliest such call, then the first in the file); the host intervals on that call's own (pid, tid) that contain the call's
start are its enclosing ops: cpu_op/Operator events (level host_op) and user_annotation events
other than ProfilerStep#N (level annotation). The innermost (latest start; then the shorter; then
the later in the file) gets the device op's duration directly, every enclosing name (once) in its
subtree. Times as tracekit imports them: integer ns, µs rounded half away from zero, end = ts +
dur. Prints one line per level and name: level|name|calls|direct_ops|direct_ns|subtree_ops|subtree_ns

With --steps FILE (lines start|end, the device's step intervals in order, as analysis_steps has
them: the step intervals are tracekit's, the attribution is this script's), prints instead one
line per step and owning annotation: step|name|ops|ns, where a device op belongs to the latest
step starting at or before its start if it starts before that step's end, and is owned by the
innermost annotation open at its launch (name empty: none open).
"""
import gzip
import json
import sys
from decimal import Decimal, ROUND_HALF_UP

DEVICE = {"kernel", "Kernel", "gpu_memcpy", "Memcpy", "gpu_memset", "Memset"}
LAUNCH = {"cuda_runtime", "cuda_driver", "Runtime", "Driver"}
HOST_OPS = {"cpu_op", "Operator"}


def ns(v):
    return int((Decimal(str(v)) * 1000).quantize(Decimal(1), rounding=ROUND_HALF_UP))


def main(path, steps=None):
    opener = gzip.open if open(path, "rb").read(2) == b"\x1f\x8b" else open
    with opener(path, "rt") as f:
        doc = json.load(f, parse_float=Decimal)
    evs = doc["traceEvents"] if isinstance(doc, dict) else doc
    base = int(doc.get("baseTimeNanoseconds", 0)) if isinstance(doc, dict) else 0
    dev = {}      # correlation -> [(duration, start) of the device ops]
    launch = {}    # correlation -> (pid, tid, ts, idx) of its earliest API call
    hosts = {}     # (pid, tid) -> [(ts, end, idx, level, name)]
    calls = {}
    for idx, e in enumerate(evs):
        if e.get("ph") != "X":
            continue
        cat, name = e.get("cat"), e.get("name", "")
        ts = ns(e["ts"]) + base
        end = ts + ns(e.get("dur", 0))
        corr = (e.get("args") or {}).get("correlation")
        if cat in DEVICE and corr is not None:
            dev.setdefault(int(corr), []).append((end - ts, ts))
        elif cat in LAUNCH and corr is not None:
            c = int(corr)
            if c not in launch or (ts, idx) < launch[c][2:]:
                launch[c] = (str(e.get("pid")), str(e.get("tid")), ts, idx)
        elif cat in HOST_OPS or (cat == "user_annotation" and not name.startswith("ProfilerStep#")):
            level = "host_op" if cat in HOST_OPS else "annotation"
            hosts.setdefault((str(e.get("pid")), str(e.get("tid"))), []).append(
                (ts, end, idx, level, name))
            calls[(level, name)] = calls.get((level, name), 0) + 1
    out = {k: [v, 0, 0, 0, 0] for k, v in calls.items()}
    per_step = {}
    for corr, (pid, tid, t, _) in launch.items():
        for dur, start in dev.get(corr, []):
            for level in ("host_op", "annotation"):
                enc = [h for h in hosts.get((pid, tid), []) if h[3] == level and h[0] <= t < h[1]]
                if level == "annotation" and steps is not None:
                    k = max((i for i, (a, _) in enumerate(steps) if a <= start), default=None)
                    if k is not None and start < steps[k][1]:
                        owner = max(enc, key=lambda h: (h[0], -h[1], h[2]))[4] if enc else ""
                        v = per_step.setdefault((k, owner), [0, 0])
                        v[0] += 1
                        v[1] += dur
                if not enc:
                    continue
                inner = max(enc, key=lambda h: (h[0], -h[1], h[2]))
                o = out[(level, inner[4])]
                o[1] += 1
                o[2] += dur
                for name in {h[4] for h in enc}:
                    o = out[(level, name)]
                    o[3] += 1
                    o[4] += dur
    if steps is not None:
        for (k, name), v in sorted(per_step.items()):
            print("|".join([str(k), name, str(v[0]), str(v[1])]))
        return
    for (level, name), v in sorted(out.items()):
        print("|".join([level, name] + [str(x) for x in v]))


if __name__ == "__main__":
    steps = None
    if len(sys.argv) > 3 and sys.argv[2] == "--steps":
        with open(sys.argv[3]) as f:
            steps = [tuple(int(x) for x in line.split("|")) for line in f if line.strip()]
    main(sys.argv[1], steps)

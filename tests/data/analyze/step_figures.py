#!/usr/bin/env python3
"""Independent figures for the device intervals of steps (tests/analyze/test_steps.c), computed
from Kineto JSON with Python's json/gzip modules and exact Decimal arithmetic, never with
tracekit. The rule is docs/metrics.md "Steps on the device", re-implemented from the text:

  host steps: X events named ProfilerStep#N with cat user_annotation (host side)
  device annotations: X events with cat gpu_user_annotation named ProfilerStep#N (hull per N)
  ops: X events with cat kernel|Kernel, gpu_memcpy|Memcpy, gpu_memset|Memset
  launch: ts of the cuda_runtime|cuda_driver|Runtime event with the same args.correlation
  step k (host steps sorted by start): the device annotation of its N when there is one
      (source device_annotation); else, when ops were launched inside [host start, host end):
      from the earliest start of those ops to where the next step placed on the device (by its
      annotation or its launched ops) starts, when later, else to the latest end of its own ops
      (source launches);
      else the host step (source host)

Usage: python3 step_figures.py FILE...   (per step: N source start_ns end_ns host_start_ns)
"""
import gzip
import json
import sys
from decimal import Decimal, ROUND_HALF_UP

OPS = {"kernel", "Kernel", "gpu_memcpy", "Memcpy", "gpu_memset", "Memset"}
API = {"cuda_runtime", "cuda_driver", "Runtime"}


def ns(v, base):
    return int((Decimal(str(v)) * 1000).quantize(Decimal(1), rounding=ROUND_HALF_UP)) + base


def step_num(name):
    if not isinstance(name, str) or not name.startswith("ProfilerStep#"):
        return None
    tail = name[len("ProfilerStep#"):]
    return int(tail) if tail.isdigit() else None


def place_steps(host, annot, ops):
    """The rule of the module docstring. host: [(start, end, N)] sorted by start; annot: {N:
    (start, end)} of one device; ops: [(start, end, launch_ts or None)] of that device.
    Returns [(N, source, start, end, host_start)] in host order."""
    first = [None] * len(host)
    last = [None] * len(host)
    for ts, end, lt in ops:
        if lt is None:
            continue
        ks = [k for k, (a, b, _) in enumerate(host) if a <= lt]
        if not ks or lt >= host[ks[-1]][1]:
            continue
        k = ks[-1]
        first[k] = ts if first[k] is None else min(first[k], ts)
        last[k] = end if last[k] is None else max(last[k], end)
    # where each step starts on the device: its annotation, else its first launched op
    start = [annot[n][0] if n in annot else first[k] for k, (a, b, n) in enumerate(host)]
    out = []
    for k, (a, b, n) in enumerate(host):
        if n in annot:
            src, s, t = "device_annotation", annot[n][0], annot[n][1]
        elif first[k] is not None:
            nxt = next((start[j] for j in range(k + 1, len(host)) if start[j] is not None), None)
            src, s = "launches", first[k]
            t = nxt if nxt is not None and nxt > first[k] else last[k]
        else:
            src, s, t = "host", a, b
        out.append((n, src, s, t, a))
    return out


def load(path):
    """The steps' inputs of a Kineto JSON file: host steps [(start, end, N)] sorted, device
    annotations {N: (start, end)}, launches {correlation: ts}, and every X event with its exact
    [ts, end) in ns: [(event, ts, end)]."""
    opener = gzip.open if open(path, "rb").read(2) == b"\x1f\x8b" else open
    with opener(path, "rt") as f:
        doc = json.load(f, parse_float=Decimal)
    base = doc.get("baseTimeNanoseconds", 0)
    host, annot, launch, xs = [], {}, {}, []
    for e in doc["traceEvents"]:
        if e.get("ph") != "X":
            continue
        cat, ts = e.get("cat"), ns(e["ts"], base)
        end = ts + max(ns(e.get("dur", 0), 0), 0)
        xs.append((e, ts, end))
        n = step_num(e.get("name"))
        corr = (e.get("args") or {}).get("correlation")
        if n is not None and cat == "user_annotation":
            host.append((ts, end, n))
        elif n is not None and cat == "gpu_user_annotation":
            a = annot.get(n)
            annot[n] = (min(a[0], ts), max(a[1], end)) if a else (ts, end)
        elif cat in API and corr is not None:
            launch[corr] = ts
    host.sort()
    return host, annot, launch, xs


def main():
    for path in sys.argv[1:]:
        host, annot, launch, xs = load(path)
        ops = [(ts, end, (e.get("args") or {}).get("correlation")) for e, ts, end in xs
               if e.get("cat") in OPS]
        print(path.split("/data/")[-1])
        for row in place_steps(host, annot, [(a, b, launch.get(c)) for a, b, c in ops]):
            print(*row)


if __name__ == "__main__":
    main()

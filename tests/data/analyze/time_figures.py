#!/usr/bin/env python3
"""Independent figures for tests/analyze/test_time.c, computed from Kineto/Chrome JSON with
Python's json/gzip modules and exact Decimal arithmetic, never with tracekit. The definitions are
those of docs/metrics.md ("tracekit analyze"), re-implemented here from the text.

Usage: python3 time_figures.py [--device-steps] FILE...   (the figures of each device of each
       file; --device-steps: the steps window is the union of the steps placed on the device by
       step_figures.py's rule, tracekit's default, instead of the host ProfilerStep intervals)

  ops: X events with cat kernel|Kernel, gpu_memcpy|Memcpy, gpu_memset|Memset; device =
       args.device when present, else pid; stream = tid
  window device: [min ts, max end]; window steps: union of the X events named ProfilerStep#N
       with cat user_annotation (the CPU-side step annotations)
  busy/compute/comm/copy: unions (positive durations); comm = kernel name containing one of the
       documented words (ASCII case ignored); memset = compute
  launch: ts of the cuda_runtime|cuda_driver|Runtime event with the same args.correlation
       (the earliest), on its (pid, tid): the launching thread
  gaps: not-busy pieces inside the steps window (device window when no steps), cause of the
       whole not-busy interval [end of the busy span before, start of the one after) (before
       the first busy span: from the piece's start), from the op starting the next busy span:
       unknown (no launch), host_bound (launch > interval start), kernel_wait (interval
       < 30 us), sync (a blocking API call on the launching thread overlaps the interval:
       names in BLOCKING or containing "Synchronize"), dependency (the rest)
  stream categories: HTA-style over each stream, running max end, see docs
"""
import gzip
import json
import sys
from decimal import Decimal, ROUND_HALF_UP

COMM = ["nccl", "rccl", "all-reduce", "allreduce", "all_reduce", "all-gather", "allgather",
        "all_gather", "reduce-scatter", "reducescatter", "reduce_scatter", "all-to-all",
        "alltoall", "all_to_all", "collective-permute", "collectivepermute"]
OPS = {"kernel": "k", "Kernel": "k", "gpu_memcpy": "c", "Memcpy": "c", "gpu_memset": "s",
       "Memset": "s"}
API = {"cuda_runtime", "cuda_driver", "Runtime"}
BLOCKING = {"cudaMemcpy", "cudaMemcpy2D", "cudaMemcpy3D", "cudaMemcpyToSymbol",
            "cudaMemcpyFromSymbol", "cudaMemset", "cudaMemset2D", "hipMemcpy", "hipMemset",
            "cuMemcpy", "cuMemcpyDtoH", "cuMemcpyHtoD", "cuMemcpyDtoH_v2", "cuMemcpyHtoD_v2"}


def ns(v):
    return int((Decimal(str(v)) * 1000).quantize(Decimal(1), rounding=ROUND_HALF_UP))


def union(iv):
    out = []
    for a, b in sorted(iv):
        if b <= a:
            continue
        if out and a <= out[-1][1]:
            out[-1][1] = max(out[-1][1], b)
        else:
            out.append([a, b])
    return out


def length(u):
    return sum(b - a for a, b in u)


def inter(u, w):
    t = 0
    for a, b in u:
        for c, d in w:
            lo, hi = max(a, c), min(b, d)
            if hi > lo:
                t += hi - lo
    return t


def minus(u, v):
    out = []
    for a, b in u:
        cur = a
        for c, d in v:
            if d <= cur or c >= b:
                continue
            if c > cur:
                out.append([cur, c])
            cur = max(cur, d)
        if cur < b:
            out.append([cur, b])
    return out


DEVICE_STEPS = "--device-steps" in sys.argv
if DEVICE_STEPS:  # steps placed on the device (docs/metrics.md "Steps on the device")
    sys.path.insert(0, __import__("os").path.dirname(__file__))
    from step_figures import place_steps, step_num

for path in [a for a in sys.argv[1:] if a != "--device-steps"]:
    opener = gzip.open if open(path, 'rb').read(2) == b'\x1f\x8b' else open
    with opener(path, 'rt') as f:
        doc = json.load(f, parse_float=Decimal)
    evs = doc['traceEvents'] if isinstance(doc, dict) else doc
    launch, ops, steps, syncs, annot, hsteps = {}, {}, [], {}, {}, []
    for e in evs:
        if e.get('ph') != 'X' or 'dur' not in e:
            continue
        cat, args = e.get('cat'), e.get('args') or {}
        ts = ns(e['ts'])
        end = ts + ns(e['dur'])
        if cat in API and (e.get('name') in BLOCKING or 'Synchronize' in e.get('name', '')):
            syncs.setdefault((e.get('pid'), e.get('tid')), []).append((ts, end, e.get('name')))
        if cat in API and 'correlation' in args:
            c = args['correlation']
            if c not in launch or ts < launch[c][0]:
                launch[c] = (ts, (e.get('pid'), e.get('tid')))
        elif cat in OPS:
            dev = args.get('device', e.get('pid'))
            name = e.get('name', '')
            cls = 'copy' if OPS[cat] == 'c' else 'compute'
            if OPS[cat] == 'k' and any(w in name.lower() for w in COMM):
                cls = 'comm'
            ops.setdefault(int(dev), []).append((ts, end, cls, args.get('correlation'),
                                                 e.get('tid'), name))
        elif str(e.get('name', '')).startswith('ProfilerStep#') and cat == 'user_annotation':
            steps.append((ts, end))
            if DEVICE_STEPS and step_num(e.get('name')) is not None:
                hsteps.append((ts, end, step_num(e.get('name'))))
        elif DEVICE_STEPS and cat == 'gpu_user_annotation' and step_num(e.get('name')) is not None:
            a = annot.setdefault(int(args.get('device', e.get('pid'))), {})
            n = step_num(e.get('name'))
            a[n] = (min(a[n][0], ts), max(a[n][1], end)) if n in a else (ts, end)
    print(path)
    for dev in sorted(ops):
        o = sorted(ops[dev], key=lambda x: (x[0], x[1]))
        busy = union([(a, b) for a, b, *_ in o])
        comp = union([(a, b) for a, b, c, *_ in o if c == 'compute'])
        comm = union([(a, b) for a, b, c, *_ in o if c == 'comm'])
        copy = union([(a, b) for a, b, c, *_ in o if c == 'copy'])
        dw = [[min(x[0] for x in o), max(x[1] for x in o)]]
        sw = union(steps)
        if DEVICE_STEPS and hsteps:
            placed = place_steps(sorted(hsteps), annot.get(dev, {}),
                                 [(a, b, launch[c][0] if c in launch else None)
                                  for a, b, cl, c, *_ in o])
            sw = union([(s_, t_) for _, _, s_, t_, _ in placed])
        for name, w in (("device", dw), ("steps", sw)):
            if not w:
                continue
            wl = length(w)
            b = inter(busy, w)
            print(f"  device {dev} window {name}: window_ns {wl} busy_ns {b} idle_ns {wl - b}"
                  f" compute_ns {inter(comp, w)} comm_ns {inter(comm, w)} memcpy_ns {inter(copy, w)}"
                  f" exposed_comm_ns {inter(minus(comm, comp), w)}"
                  f" exposed_memcpy_ns {inter(minus(minus(copy, comp), comm), w)}")
        w = sw if sw else dw
        # gaps: free intervals between busy spans, clipped to the window spans
        firsts = {}
        for a, b, c, corr, tid, name in o:
            if b > a and a not in firsts:
                firsts[a] = corr
        causes = {k: [0, 0] for k in ("host_bound", "kernel_wait", "sync", "dependency",
                                        "unknown")}
        named = {}
        free = [(None, busy[0][0])] + [(busy[i][1], busy[i + 1][0]) for i in range(len(busy) - 1)]
        free.append((busy[-1][1], None))
        for fs, fe in free:
            for ws, we in w:
                s = ws if fs is None else max(fs, ws)
                t = we if fe is None else min(fe, we)
                if t <= s:
                    continue
                corr = firsts.get(fe) if fe is not None else None
                lt = launch.get(corr) if corr is not None else None
                a = s if fs is None else fs  # the whole not-busy interval [a, fe)
                if lt is None:
                    cause = "unknown"
                elif lt[0] > a:
                    cause = "host_bound"
                elif fe - a < 30000:
                    cause = "kernel_wait"
                else:
                    over = [(min(y, fe) - max(x, a), -x, n) for x, y, n in syncs.get(lt[1], [])
                            if x < fe and y > a and min(y, fe) - max(x, a) > 0]
                    cause = "sync" if over else "dependency"
                    if over:
                        n = max(over)[2]
                        named[n] = named.get(n, 0) + 1
                causes[cause][0] += 1
                causes[cause][1] += t - s
        print(f"  device {dev} gaps: " + " ".join(f"{k} {v[0]} {v[1]}" for k, v in causes.items())
              + "".join(f" sync_by[{n}] {c}" for n, c in sorted(named.items())))
        # per-stream categories
        per = {}
        for a, b, c, corr, tid, name in o:
            st = per.setdefault(tid, {"E": None, "host_wait": [0, 0], "kernel_wait": [0, 0],
                                      "other": [0, 0], "overlap": [0, 0]})
            if st["E"] is not None and any(ws <= a < we for ws, we in w):
                g = a - st["E"]
                lt = launch[corr][0] if corr in launch else None
                if g < 0:
                    cat = "overlap"
                    g = -g
                elif lt is not None and lt > st["E"]:
                    cat = "host_wait"
                elif g < 30000:
                    cat = "kernel_wait"
                else:
                    cat = "other"
                st[cat][0] += 1
                st[cat][1] += g
            st["E"] = b if st["E"] is None else max(st["E"], b)
        for tid in sorted(per, key=str):
            st = per[tid]
            print(f"  device {dev} stream {tid}: " + " ".join(
                f"{k} {st[k][0]} {st[k][1]}" for k in ("host_wait", "kernel_wait", "other", "overlap")))

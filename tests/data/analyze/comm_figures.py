#!/usr/bin/env python3
"""Independent computation of analysis_comm / analysis_comm_ranks (docs/metrics.md,
"Communication across ranks") from raw Kineto JSON files, one per rank, for
tests/analyze/test_comm.c. Reads the files directly (no tracekit), takes the kernels whose name
is communication by the documented rule, matches them across ranks and prints the matched
collectives and the per-rank figures, in ns.

Usage: comm_figures.py RANK0.json[.gz] RANK1.json[.gz] ...  (device = rank = file position,
as tracekit import numbers them for these files). The device window is [first device op start,
last device op end) (these traces have no steps on the device).
"""
import gzip
import json
import sys
from decimal import Decimal

WORDS = ["nccl", "rccl", "all-reduce", "allreduce", "all_reduce", "all-gather", "allgather",
         "all_gather", "reduce-scatter", "reducescatter", "reduce_scatter", "all-to-all",
         "alltoall", "all_to_all", "collective-permute", "collectivepermute"]


def ns(us):
    return int(Decimal(str(us)) * 1000)


def load(path):
    op = gzip.open if path.endswith(".gz") else open
    with op(path, "rt") as f:
        doc = json.load(f)
    ops, comm = [], []
    for e in doc["traceEvents"] if isinstance(doc, dict) else doc:
        if e.get("ph") != "X" or e.get("cat") not in ("kernel", "gpu_memcpy", "gpu_memset"):
            continue
        ts, dur = ns(e["ts"]), ns(e.get("dur", 0))
        ops.append((ts, ts + dur))
        if e["cat"] == "kernel" and any(w in e["name"].lower() for w in WORDS):
            a = e.get("args", {})
            comm.append({"start": ts, "end": ts + dur, "name": e["name"],
                         "pg": a.get("Process Group Name"), "seq": a.get("Seq"),
                         "nelems": a.get("In msg nelems"), "dtype": a.get("dtype")})
    comm.sort(key=lambda m: m["start"])
    window = (min(o[0] for o in ops), max(o[1] for o in ops))
    return comm, window


def group(members):
    lo = min(m["start"] for m in members)
    hi = max(m["start"] for m in members)
    durs = sorted(m["end"] - m["start"] for m in members)
    med = durs[(len(durs) - 1) // 2]
    thr = max(10000, -(-med // 10))
    for m in members:
        m["matched"] = True
        m["members"] = len(members)
        m["skew"] = m["start"] - lo
        m["wait"] = min(hi - m["start"], m["end"] - m["start"])
        m["last"] = int(m["start"] == hi and hi > lo and hi - lo >= thr)


def match(ranks):
    by_seq, by_order = {}, {}
    for r, (comm, _) in enumerate(ranks):
        for m in comm:
            m["rank"], m["matched"] = r, False
            if m["pg"] is not None and m["seq"] is not None:
                by_seq.setdefault((m["pg"], m["seq"]), {}).setdefault(r, []).append(m)
            else:
                key = (m["name"], m["pg"], m["nelems"], m["dtype"])
                by_order.setdefault(key, {}).setdefault(r, []).append(m)
    for per_rank in by_seq.values():
        firsts = [lst[0] for lst in per_rank.values()]
        if len(firsts) >= 2:
            group(firsts)
    for per_rank in by_order.values():
        queues = {r: list(lst) for r, lst in per_rank.items()}
        while sum(1 for q in queues.values() if q) >= 2:
            heads = {r: q[0] for r, q in queues.items() if q}
            s = max(h["start"] for h in heads.values())
            e = min(h["end"] for h in heads.values())
            if s <= e:
                chosen = list(heads)
            else:
                early = [r for r, h in heads.items() if h["end"] < s]
                ok = len(early) >= 2 and max(heads[r]["start"] for r in early) <= min(
                    heads[r]["end"] for r in early)
                chosen = early if ok else None
            if chosen:
                group([queues[r].pop(0) for r in chosen])
            else:
                first = min(heads, key=lambda r: (heads[r]["end"], r))
                queues[first].pop(0)


def union_in(spans, w):
    total, cur = 0, None
    for a, b in sorted(spans):
        a, b = max(a, w[0]), min(b, w[1])
        if b <= a:
            continue
        if cur and a <= cur[1]:
            cur[1] = max(cur[1], b)
        else:
            if cur:
                total += cur[1] - cur[0]
            cur = [a, b]
    return total + (cur[1] - cur[0] if cur else 0)


def main():
    ranks = [load(p) for p in sys.argv[1:]]
    match(ranks)
    print("matched collectives: rank|start_ns|dur_ns|members|skew_ns|wait_ns|last")
    for r, (comm, _) in enumerate(ranks):
        for m in comm:
            if m["matched"]:
                print(f"{r}|{m['start']}|{m['end'] - m['start']}|{m['members']}|{m['skew']}|"
                      f"{m['wait']}|{m['last']}")
    print("ranks: device|collectives|unmatched|times_last|total_skew_ns|max_skew_ns|"
          "late_skew_ns|comm_ns|total_wait_ns")
    for r, (comm, w) in enumerate(ranks):
        inw = [m for m in comm if w[0] <= m["start"] < w[1]]
        mt = [m for m in inw if m["matched"]]
        comm_ns = union_in([(m["start"], m["end"]) for m in comm], w)
        wait_ns = union_in([(m["start"], m["start"] + m["wait"]) for m in comm if m["matched"]],
                           w)
        print(f"{r}|{len(mt)}|{len(inw) - len(mt)}|{sum(m['last'] for m in mt)}|"
              f"{sum(m['skew'] for m in mt)}|{max([m['skew'] for m in mt] or [0])}|"
              f"{sum(m['skew'] for m in mt if m['last'])}|{comm_ns}|{wait_ns}")


main()

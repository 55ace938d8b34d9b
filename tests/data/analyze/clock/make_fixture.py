#!/usr/bin/env python3
"""Writes the 2-host x 2-rank Kineto fixtures of tests/analyze/test_clock.c and prints the figures
the test expects, worked out here from the definitions of docs/metrics.md
("analysis_clock_offsets") without tracekit. Run from this directory: python3 make_fixture.py

Ranks 0, 1 run on host "node-a", ranks 2, 3 on "node-b" (top-level "host_name"). Every
collective is an NCCL all-reduce of process group "0" with a sequence number. On the true clock
the members of collective s start at T = 2000 s (us) — rank 1 300 us late in every one, ranks 2
and 3 together 0..10 us after T — and all end at T + 1300 plus a deterministic jitter of -3..+3 us per
rank. Host B's clock runs OFFSET us ahead: its ts are true + OFFSET.

  rank<r>.json         OFFSET 3500 us, with Seq: the planted offset of the test
  noseq_rank<r>.json   OFFSET 3500 us, no Seq: only collectives matched by sequence number are
                       a basis, so nothing is estimated
  apart_rank<r>.json   OFFSET 3500 us, with Seq, host A's ranks in process group "0" and host B's
                       in "1": no collective spans the hosts, nothing is estimated
"""
import math

BASE = 1700000000000000  # us
K = "ncclDevKernel_AllReduce_Sum_f32_RING_LL"
N = 12  # collectives
HOST = {0: "node-a", 1: "node-a", 2: "node-b", 3: "node-b"}


def jitter(s, r):
    """Deterministic end jitter in -3..+3 us."""
    return (s * 3 + r * 5) % 7 - 3


def start_lag(s, r):
    return {0: 0, 1: 300, 2: (s * 3) % 11, 3: (s * 3) % 11}[r]


def true_times(s, r):
    t = 2000 * s
    return t + start_lag(s, r), t + 1300 + jitter(s, r)


def write(path, rank, offset, with_seq, apart):
    import json
    ev = []
    for s in range(1, N + 1):
        start, end = true_times(s, rank)
        if HOST[rank] == "node-b":
            start, end = start + offset, end + offset
        args = {"device": rank, "stream": 20, "correlation": 100 * (rank + 1) + s,
                "Collective name": "allreduce", "dtype": "Float", "Group size": 4,
                "Process Group Name": "1" if apart and rank >= 2 else "0",
                "In msg nelems": 1048576}
        if with_seq:
            args["Seq"] = s
        ev.append({"ph": "X", "cat": "kernel", "name": K, "pid": rank, "tid": 20,
                   "ts": BASE + start, "dur": end - start, "args": args})
    doc = {"schemaVersion": 1, "host_name": HOST[rank],
           "distributedInfo": {"backend": "nccl", "rank": rank, "world_size": 4},
           "traceEvents": ev}
    with open(path, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")


def expected(offset):
    """docs/metrics.md: per collective each host's lower-median member end, the difference
    B - A, its median and the half-width of the rank-based 95 % interval (ns)."""
    d = []
    for s in range(1, N + 1):
        ea = sorted(true_times(s, r)[1] for r in (0, 1))[0]
        eb = sorted(true_times(s, r)[1] + offset for r in (2, 3))[0]
        d.append(1000 * (eb - ea))
    d.sort()
    n = len(d)
    j = max(0, min(math.floor(n / 2 - 0.98 * math.sqrt(n)), (n - 1) // 2))
    k = n - 1 - j
    span = d[k] - d[j]
    return d[(n - 1) // 2], (span + 1) // 2, n


if __name__ == "__main__":
    for r in range(4):
        write(f"rank{r}.json", r, 3500, True, False)
        write(f"noseq_rank{r}.json", r, 3500, False, False)
        write(f"apart_rank{r}.json", r, 3500, True, True)
    for off in (3500,):
        med, half, n = expected(off)
        print(f"offset {off} us: estimate {med} ns +/- {half} ns over {n} collectives")

#!/usr/bin/env python3
"""Writes the 4-rank Kineto fixture of tests/analyze/test_balance.c (rank<r>.json): load balance
across ranks (docs/metrics.md, "Load balance across ranks"). Every figure the test expects
follows from the table below; the test's comment works them out. Run from this directory:
python3 make_fixture.py

Times are microseconds after BASE. Each rank runs 3 steps (ProfilerStep#1..3), step k starting
at k * 20000 on the host thread and on the device (gpu_user_annotation over the step's device
work). In a step, on device <rank>: a compute kernel on stream 7 [0, C); an NCCL all-reduce on
stream 20 [C - 500, C + A) (its first 500 us overlap the compute kernel, so A is exposed); a
copy on stream 7 [C + A, C + A + M) (exposed); then idle I to the step's end C + A + M + I.
Rank 2 computes 1500 us more per step (planted extra compute); rank 1's all-reduce is 2500 us
longer (planted exposed communication); rank 3 copies 300 us per step and idles 200.
The all-reduces carry Process Group Name "0" and Seq = step, so they match across ranks.
nosteps_rank3.json is rank 3 without its ProfilerStep annotations (the balance falls back to the
selected windows).
"""
import json

BASE = 1700000000000000  # us
PERIOD = 20000
STEPS = 3
# rank: (compute C, exposed comm A, copy M, idle I), us per step
PLAN = {0: (6000, 1000, 0, 500), 1: (6000, 3500, 0, 500), 2: (7500, 1000, 0, 500),
        3: (6000, 1000, 300, 200)}
HOST = {0: "node0", 1: "node0", 2: "node1", 3: "node1"}
AR = "ncclDevKernel_AllReduce_Sum_f32_RING_LL"


def write(rank, path, steps=True):
    c, a, m, idle = PLAN[rank]
    dur = c + a + m + idle
    ev = []
    corr = 100 * (rank + 1)
    for k in range(STEPS):
        s = k * PERIOD
        if steps:
            ev.append({"ph": "X", "cat": "user_annotation", "name": f"ProfilerStep#{k + 1}",
                       "pid": 1000 + rank, "tid": 1, "ts": BASE + s, "dur": dur, "args": {}})
            ev.append({"ph": "X", "cat": "gpu_user_annotation",
                       "name": f"ProfilerStep#{k + 1}", "pid": rank, "tid": 7, "ts": BASE + s,
                       "dur": dur, "args": {"device": rank, "stream": 7}})
        ev.append({"ph": "X", "cat": "kernel", "name": "gemm_kernel", "pid": rank, "tid": 7,
                   "ts": BASE + s, "dur": c,
                   "args": {"device": rank, "stream": 7, "correlation": corr}})
        corr += 1
        ev.append({"ph": "X", "cat": "kernel", "name": AR, "pid": rank, "tid": 20,
                   "ts": BASE + s + c - 500, "dur": a + 500,
                   "args": {"device": rank, "stream": 20, "correlation": corr,
                            "Collective name": "allreduce", "dtype": "Float", "Group size": 4,
                            "Process Group Name": "0", "Seq": k + 1,
                            "In msg nelems": 1048576}})
        corr += 1
        if m:
            ev.append({"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy DtoD (Device -> Device)",
                       "pid": rank, "tid": 7, "ts": BASE + s + c + a, "dur": m,
                       "args": {"device": rank, "stream": 7, "correlation": corr}})
            corr += 1
    doc = {"schemaVersion": 1, "host_name": HOST[rank],
           "distributedInfo": {"backend": "nccl", "rank": rank, "world_size": 4},
           "traceEvents": ev}
    with open(path, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")


for r in range(4):
    write(r, f"rank{r}.json")
write(3, "nosteps_rank3.json", steps=False)

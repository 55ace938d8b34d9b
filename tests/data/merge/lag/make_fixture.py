#!/usr/bin/env python3
"""Writes the 2-rank Kineto fixture of tests/merge/merge.sh's lag check (rank<r>.json): devices
that run behind their host, so that each host step's device interval is placed by the work it
launched (docs/metrics.md, "Steps on the device", source launches). A job summary keeps the
collectives but not the compute kernels that place the steps: its windows must come from the
ranks' copied tables (analyze/summary.c), or the collectives fall outside them.
Run from this directory: python3 make_fixture.py

Times are microseconds after BASE. Step k (k = 0, 1, 2) of rank r: ProfilerStep#k+1 on the host
thread [20000 k, +1000), inside it two cudaLaunchKernel calls; on the device a gemm kernel on
stream 7 [20000 k + 5000, +6000) and an NCCL all-reduce on stream 20 [20000 k + 10500,
+1500 + 500 r), process group "0", Seq k + 1: all device work after the host step has ended.
"""
import json

BASE = 1700000000000000  # us
AR = "ncclDevKernel_AllReduce_Sum_f32_RING_LL"


def write(rank, path):
    ev = []
    corr = 100 * (rank + 1)
    for k in range(3):
        s = k * 20000
        ev.append({"ph": "X", "cat": "user_annotation", "name": f"ProfilerStep#{k + 1}",
                   "pid": 1000 + rank, "tid": 1, "ts": BASE + s, "dur": 1000, "args": {}})
        work = [("gemm_kernel", 7, s + 5000, 6000, {}),
                (AR, 20, s + 10500, 1500 + 500 * rank,
                 {"Collective name": "allreduce", "dtype": "Float", "Group size": 2,
                  "Process Group Name": "0", "Seq": k + 1, "In msg nelems": 1048576})]
        for j, (name, stream, ts, dur, extra) in enumerate(work):
            ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel",
                       "pid": 1000 + rank, "tid": 1, "ts": BASE + s + 100 + 400 * j, "dur": 50,
                       "args": {"correlation": corr}})
            args = {"device": rank, "stream": stream, "correlation": corr}
            args.update(extra)
            ev.append({"ph": "X", "cat": "kernel", "name": name, "pid": rank, "tid": stream,
                       "ts": BASE + ts, "dur": dur, "args": args})
            corr += 1
    doc = {"schemaVersion": 1, "host_name": "node0",
           "distributedInfo": {"backend": "nccl", "rank": rank, "world_size": 2},
           "traceEvents": ev}
    with open(path, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")


for r in range(2):
    write(r, f"rank{r}.json")

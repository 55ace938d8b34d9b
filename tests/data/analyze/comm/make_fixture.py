#!/usr/bin/env python3
"""Writes the 4-rank Kineto fixture of tests/analyze/test_comm.c (rank<r>.json, and the same
without the "Seq" args as noseq_rank<r>.json). Every figure the test expects follows from the
table below by the rules of docs/metrics.md ("Communication across ranks"); the test's comment
works them out. Run from this directory: python3 make_fixture.py

Times are microseconds after BASE. Each collective is an NCCL all-reduce on process group "0"
(In msg nelems 1048576, dtype Float) on stream 20 of device <rank>; its members end together.
"""
import json

BASE = 1700000000000000  # us
K = "ncclDevKernel_AllReduce_Sum_f32_RING_LL"

# seq: {rank: start}, end (us). Rank 3 arrives late at 1, 2, 3, 6; seq 4 has a 5 us skew (under
# the 10 us floor), seq 5 a 50 us skew (over the floor, under 10 % of the duration). Rank 0's
# trace lacks seq 7, and its seq 8 kernel starts while the others are still in seq 7: only the
# sequence numbers pair it with the others' seq 8.
TABLE = [
    (1, {0: 1000, 1: 1000, 2: 1000, 3: 1200}, 2200),
    (2, {0: 3000, 1: 3000, 2: 3000, 3: 3300}, 4300),
    (3, {0: 5000, 1: 5000, 2: 5000, 3: 5150}, 6150),
    (4, {0: 7000, 1: 7000, 2: 7005, 3: 7000}, 8005),
    (5, {0: 9000, 1: 9050, 2: 9000, 3: 9000}, 10050),
    (6, {0: 11000, 1: 11000, 2: 11000, 3: 11400}, 12400),
    (7, {1: 13000, 2: 13000, 3: 13000}, 14000),
    (8, {0: 13500, 1: 14100, 2: 14100, 3: 14100}, 15100),
]


def kernel(rank, ts, end, args):
    a = {"device": rank, "stream": 20, "correlation": 0, "Collective name": "allreduce",
         "dtype": "Float", "Group size": 4}
    a.update(args)
    return {"ph": "X", "cat": "kernel", "name": K, "pid": rank, "tid": 20,
            "ts": BASE + ts, "dur": end - ts, "args": a}


def write(rank, with_seq, path):
    ev = []
    for seq, starts, end in TABLE:
        if rank not in starts:
            continue
        args = {"Process Group Name": "0", "In msg nelems": 1048576}
        if with_seq:
            args["Seq"] = seq
        ev.append(kernel(rank, starts[rank], end, args))
    if rank == 2:  # alone in process group "1": unmatched
        args = {"Process Group Name": "1", "In msg nelems": 1024}
        if with_seq:
            args["Seq"] = 1
        ev.append(kernel(rank, 16000, 16100, args))
    for i, e in enumerate(ev):
        e["args"]["correlation"] = 100 * (rank + 1) + i
    doc = {"schemaVersion": 1, "distributedInfo": {"backend": "nccl", "rank": rank,
                                                  "world_size": 4},
           "traceEvents": ev}
    with open(path, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")


for r in range(4):
    write(r, True, f"rank{r}.json")
    write(r, False, f"noseq_rank{r}.json")

#!/usr/bin/env python3
"""Rank directories for `tracekit import DIR` and `tracekit ls DIR` (tests/cli/test_rank_dir.c).

job/      four Kineto rank traces, named out of rank order in nested directories, one gzip, each
          with distributedInfo (rank r, world size 4) and host_name (node2 for ranks 0-1, node10
          for 2-3); rank r's kernel lasts 100 + 20 r us, so its span is 110 + 20 r us. Clocks:
          ranks 0-1 baseTimeNanoseconds 1700000000000000000 (2023-11-14 22:13:20 UTC) with
          relative ts, rank 2 ts on the epoch (1700000000 s + 5 s), rank 3 relative (no epoch).
          Rank 3 (the gzip) writes host_name after traceEvents. Also a non-trace JSON
          (config.json), a text file and a hidden directory holding a trace: all left out.
plain/    three Chrome traces without distributedInfo: rank10.json, rank2.json, rank1.json (file
          order: rank1, rank2, rank10).
dup/      two traces that both state rank 1.
Run from this directory: python3 make_fixture.py
"""
import gzip
import json
import os
import shutil

BASE = 1700000000000000000


def trace(rank, host=None, base=None, t0=1000, kineto=True, host_after=False, world=4):
    ev = [
        {"ph": "M", "name": "process_name", "pid": 100, "tid": 0, "args": {"name": "python"}},
        {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 100, "tid": 1, "ts": t0, "dur": 50},
        {"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": t0 + 10,
         "dur": 100 + 20 * rank, "args": {"device": 0, "stream": 7, "correlation": 1}},
    ]
    top = {}
    if kineto:
        top["schemaVersion"] = 1
        top["distributedInfo"] = {"backend": "nccl", "rank": rank, "world_size": world}
    if host and not host_after:
        top["host_name"] = host
    top["traceEvents"] = ev
    if host and host_after:
        top["host_name"] = host
    if base is not None:
        top["baseTimeNanoseconds"] = base
    return json.dumps(top, indent=1) + "\n"


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    if path.endswith(".gz"):
        with open(path, "wb") as f:  # mtime 0: the same bytes on every run
            with gzip.GzipFile(filename="", mode="wb", fileobj=f, mtime=0) as g:
                g.write(text.encode())
    else:
        with open(path, "w") as f:
            f.write(text)


def main():
    for d in ("job", "plain", "dup"):
        shutil.rmtree(d, ignore_errors=True)
    write("job/node10/worker0.json", trace(2, "node10", t0=(BASE + 5 * 10**9) // 1000))
    write("job/node10/worker1.json.gz", trace(3, "node10", host_after=True))
    write("job/node2/worker0.json", trace(0, "node2", base=BASE))
    write("job/node2/sub/worker1.json", trace(1, "node2", base=BASE))
    write("job/node2/config.json", json.dumps({"lr": 0.1}) + "\n")
    write("job/README.txt", "not a trace\n")
    write("job/.hidden/worker9.json", trace(9, "node9"))
    for i, name in enumerate(("rank10", "rank2", "rank1")):
        write("plain/%s.json" % name, trace(i, kineto=False))
    write("dup/a.json", trace(1, "node1", world=2))
    write("dup/b/b.json", trace(1, "node1", t0=2000, world=2))


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Figures tests/report/test_labels.c expects of the vendored HTA trace
trace_filter/sampled_rank-1.json.gz, read from the raw trace (not through tracekit):
the rank (distributedInfo), the device (pid of the kernel events) and host pid of the
events, and the five FillFunctor elementwise kernels whose labels used to be identical."""
import gzip, json, os, sys
here = os.path.dirname(os.path.abspath(__file__))
path = os.path.join(here, "..", "real", "kineto", "HolisticTraceAnalysis", "tests", "data",
                    "trace_filter", "sampled_rank-1.json.gz")
d = json.load(gzip.open(path))
ev = d["traceEvents"]
print("rank", d["distributedInfo"]["rank"])
print("kernel device (pid of kernel events)", sorted({e["pid"] for e in ev if e.get("cat") == "kernel"}))
print("host pids of cpu ops", sorted({e["pid"] for e in ev if e.get("cat") == "cpu_op"}))
fill = sorted({e["name"] for e in ev if e.get("cat") == "kernel" and
               e["name"].startswith("void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<")})
print(len(fill), "FillFunctor kernels")
for n in fill:
    print(n)

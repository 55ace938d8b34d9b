#!/usr/bin/env python3
"""HTA side of bench/hta_compare.sh: load one Kineto trace with Holistic Trace Analysis and run its
temporal breakdown, idle time breakdown and kernel breakdown (no plots), printing the seconds of
each step. HTA is imported from HTA_DIR (an HTA checkout: HTA_DIR/hta/trace_analysis.py); it is
never installed or vendored by tracekit.

Usage: HTA_DIR=/path/to/HolisticTraceAnalysis bench/hta_driver.py TRACE.json[.gz]
"""
import os
import sys
import time


def main():
    hta_dir = os.environ.get("HTA_DIR")
    if not hta_dir or len(sys.argv) != 2:
        sys.exit("usage: HTA_DIR=DIR hta_driver.py TRACE")
    sys.path.insert(0, hta_dir)
    os.environ.setdefault("MPLBACKEND", "Agg")
    trace = os.path.abspath(sys.argv[1])
    t0 = time.perf_counter()
    from hta.trace_analysis import TraceAnalysis  # noqa: E402 (HTA_DIR is known only here)

    t1 = time.perf_counter()
    ta = TraceAnalysis(trace_files={0: trace}, trace_dir=os.path.dirname(trace))
    t2 = time.perf_counter()
    temporal = ta.get_temporal_breakdown(visualize=False)
    t3 = time.perf_counter()
    idle = ta.get_idle_time_breakdown(visualize=False)
    t4 = time.perf_counter()
    kernel_types, kernels = ta.get_gpu_kernel_breakdown(visualize=False)
    t5 = time.perf_counter()
    idle_rows = len(idle[0]) if isinstance(idle, tuple) else len(idle)
    print("hta import_s=%.3f load_s=%.3f temporal_s=%.3f idle_s=%.3f kernel_s=%.3f "
          "temporal_rows=%d idle_rows=%d kernel_type_rows=%d kernel_rows=%d"
          % (t1 - t0, t2 - t1, t3 - t2, t4 - t3, t5 - t4, len(temporal), idle_rows,
             len(kernel_types), len(kernels)))


main()

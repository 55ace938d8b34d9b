#!/usr/bin/env python3
"""Generate a large synthetic Kineto (PyTorch profiler) JSON trace for the import benchmark.

Usage: bench/json_gen.py OUT.json SIZE_MB [--gzip]

Layout per iteration: a ProfilerStep#N user_annotation, cpu_ops with Kineto args, cudaLaunchKernel
runtime calls each with an ac2g flow ('s' on the call, 'f' on the kernel), kernels with the full
Kineto arg set, memcpys, memsets and [memory] instants; timestamps are "us.nnn" with
baseTimeNanoseconds, metadata events and distributedInfo at the end, as Kineto writes them.
Deterministic (no randomness), so runs are comparable.
"""
import gzip
import sys


def main():
    out, size_mb = sys.argv[1], float(sys.argv[2])
    target = int(size_mb * 1e6)
    f = gzip.open(out, 'wt', compresslevel=1) if '--gzip' in sys.argv else open(out, 'w')
    head = ('{"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "NVIDIA H100 80GB HBM3", '
            '"totalGlobalMem": 85045379072, "computeMajor": 9, "computeMinor": 0, '
            '"maxThreadsPerMultiprocessor": 2048, "numSms": 132, "regsPerMultiprocessor": 65536, '
            '"sharedMemPerMultiprocessor": 233472}], "displayTimeUnit": "ms", '
            '"baseTimeNanoseconds": 1700000000000000000, "traceEvents": [\n')
    f.write(head)
    written = len(head)
    ts = 1000000  # ns, relative to baseTimeNanoseconds
    corr = 1
    step = 0
    pid, tid = 4242, 4243
    while written < target:
        parts = []
        step_ts = ts
        for op in range(200):
            t0 = ts
            parts.append('{"ph": "X", "cat": "cpu_op", "name": "aten::linear", "pid": %d, "tid": %d, '
                         '"ts": %d.%03d, "dur": %d.%03d, "args": {"External id": %d, "Record function id": 0, '
                         '"Ev Idx": %d, "Input Dims": [[64, 1024], [1024, 1024]], "Input type": ["float", "float"]}},\n'
                         % (pid, tid, t0 // 1000, t0 % 1000, 9, 123, corr, corr))
            lt = t0 + 1500
            parts.append('{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": %d, "tid": %d, '
                         '"ts": %d.%03d, "dur": 4.250, "args": {"External id": %d, "cbid": 211, "correlation": %d}},\n'
                         % (pid, tid, lt // 1000, lt % 1000, corr, corr))
            parts.append('{"ph": "s", "id": %d, "pid": %d, "tid": %d, "ts": %d.%03d, "cat": "ac2g", "name": "ac2g"},\n'
                         % (corr, pid, tid, lt // 1000, lt % 1000))
            kt = t0 + 7000
            parts.append('{"ph": "X", "cat": "kernel", "name": "void at::native::vectorized_elementwise_kernel<4, '
                         'at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3> >(int, '
                         'at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3>)", "pid": 0, "tid": 7, '
                         '"ts": %d.%03d, "dur": 3.%03d, "args": {"External id": %d, "queued": 0, "device": 0, '
                         '"context": 1, "stream": 7, "correlation": %d, "registers per thread": 16, '
                         '"shared memory": 0, "blocks per SM": 135.515152, "warps per SM": 542.060608, '
                         '"grid": [17888, 1, 1], "block": [128, 1, 1], "est. achieved occupancy %%": 100}},\n'
                         % (kt // 1000, kt % 1000, corr % 1000, corr, corr))
            parts.append('{"ph": "f", "id": %d, "pid": 0, "tid": 7, "ts": %d.%03d, "cat": "ac2g", "name": "ac2g", "bp": "e"},\n'
                         % (corr, kt // 1000, kt % 1000))
            corr += 1
            if op % 10 == 0:
                parts.append('{"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD (Pinned -> Device)", "pid": 0, '
                             '"tid": 7, "ts": %d.%03d, "dur": 1.500, "args": {"device": 0, "context": 1, "stream": 7, '
                             '"correlation": %d, "bytes": 65536, "memory bandwidth (GB/s)": 43.69}},\n'
                             % ((kt + 4000) // 1000, kt % 1000, corr))
                parts.append('{"ph": "X", "cat": "gpu_memset", "name": "Memset (Device)", "pid": 0, "tid": 7, '
                             '"ts": %d.%03d, "dur": 0.769, "args": {"device": 0, "context": 1, "stream": 7, '
                             '"correlation": %d, "bytes": 4, "memory bandwidth (GB/s)": 0.0052}},\n'
                             % ((kt + 6000) // 1000, kt % 1000, corr + 1))
                parts.append('{"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]", "pid": %d, '
                             '"tid": %d, "ts": %d.%03d, "args": {"Total Reserved": 2097152, "Total Allocated": 1024, '
                             '"Bytes": 1024, "Addr": 139876543, "Device Id": 0, "Device Type": 1}},\n'
                             % (pid, tid, t0 // 1000, t0 % 1000))
                corr += 2
            ts += 10000
        parts.append('{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#%d", "pid": %d, "tid": %d, '
                     '"ts": %d.%03d, "dur": %d.%03d, "args": {"External id": 0}},\n'
                     % (step, pid, tid, step_ts // 1000, step_ts % 1000, (ts - step_ts) // 1000, 0))
        step += 1
        s = ''.join(parts)
        f.write(s)
        written += len(s)
    tail = ('{"ph": "M", "name": "process_name", "pid": %d, "tid": 0, "args": {"name": "python3"}},\n'
            '{"ph": "M", "name": "process_labels", "pid": 0, "tid": 0, "args": {"labels": "GPU 0"}},\n'
            '{"ph": "M", "name": "thread_name", "pid": 0, "tid": 7, "args": {"name": "stream 7 "}}\n'
            '], "distributedInfo": {"backend": "nccl", "rank": 0, "world_size": 1}, '
            '"traceName": "bench.pt.trace.json"}\n' % pid)
    f.write(tail)
    f.close()


main()

#!/usr/bin/env python3
"""Writes the small hand-built XPlane fixtures of tests/data/xplane/ and prints, for each bad one,
the byte offset the importer must report (tests/import/test_xplane.c hard-codes them).

Usage: python3 tests/tools/make_xplane_fixtures.py [OUTDIR]   (default tests/data/xplane)
"""
import gzip
import os
import struct
import sys


def varint(v):
    v &= (1 << 64) - 1
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        out.append(b | (0x80 if v else 0))
        if not v:
            return bytes(out)


def vf(n, v):
    return varint(n << 3) + varint(v)


def lf(n, b):
    if isinstance(b, str):
        b = b.encode()
    return varint(n << 3 | 2) + varint(len(b)) + b


def df(n, x):
    return varint(n << 3 | 1) + struct.pack('<d', x)


def stat(md, kind, v):
    b = vf(1, md)
    if kind == 'int':
        b += vf(4, v)
    elif kind == 'uint':
        b += vf(3, v)
    elif kind == 'str':
        b += lf(5, v)
    elif kind == 'ref':
        b += vf(7, v)
    elif kind == 'gz':
        b += lf(8, v)
    elif kind == 'double':
        b += df(2, v)
    elif kind == 'bytes':
        b += lf(6, v)
    return b


def smd(i, name):
    return lf(5, vf(1, i) + lf(2, vf(1, i) + lf(2, name)))


def emd(i, name, stats=b'', display=None):
    m = vf(1, i) + lf(2, name)
    if display:
        m += lf(4, display)
    m += stats
    return lf(4, vf(1, i) + lf(2, m))


def event(md, off_ps, dur_ps, stats=()):
    b = vf(1, md) + vf(2, off_ps) + vf(3, dur_ps)
    for s in stats:
        b += lf(4, s)
    return b


UNKNOWN = vf(99, 7) + lf(98, b'ignored')  # unknown fields: must be skipped

S_KD, S_CORR, S_MC, S_MS, S_ALLOC, S_BYTES, S_ADDR, S_NOTE, S_CLOCK, S_CORES, S_CCMAJ, \
    S_CCMIN, S_START, S_REF, S_HLO, S_FLOPS, S_INUSE, S_VENDOR, S_BIG = range(1, 20)


def tiny():
    """One GPU (stream 7: kernel, H2D copy, memset), the host (launch + allocation), clock."""
    gpu_stats = [
        smd(S_KD, 'kernel_details'), smd(S_CORR, 'correlation_id'), smd(S_MC, 'memcpy_details'),
        smd(S_MS, 'Memset_details'), smd(S_NOTE, 'note'), smd(S_CLOCK, 'clock_rate'),
        smd(S_CORES, 'core_count'), smd(S_CCMAJ, 'compute_cap_major'),
        smd(S_CCMIN, 'compute_cap_minor'), smd(S_HLO, 'hlo_op'), smd(S_FLOPS, 'flops'),
        smd(S_VENDOR, 'device_vendor'), smd(S_BIG, 'big'),
        smd(S_REF, 'regs:32 static_shared:1024 dynamic_shared:2048 grid:10,2,1 block:128,1,1 '
                   'occ_pct:62.5'),
    ]
    line = (vf(1, 7) + lf(2, 'Stream #7(Kernel,MemcpyH2D,Memset)') + vf(3, 1000) + UNKNOWN +
            lf(4, event(1, 2_000_000, 5_000_500, [stat(S_KD, 'ref', S_REF),
                                                  stat(S_CORR, 'int', 77),
                                                  stat(S_NOTE, 'gz', gzip.compress(b'hello gzip', mtime=0)),
                                                  stat(S_BIG, 'uint', 1 << 63)]) + UNKNOWN) +
            lf(4, event(2, 9_000_000, 1_000_000, [stat(S_MC, 'str', 'kind_src:pinned '
                                                   'kind_dst:device size:4096 dest:0 async:1'),
                                                  stat(S_CORR, 'int', 78)])) +
            lf(4, event(3, 11_000_000, 500_000, [stat(S_MS, 'str',
                                                      'kind:device num_bytes:256 async:1')])))
    gpu = (vf(1, 0) + lf(2, '/device:GPU:0') + lf(3, line) +
           emd(1, 'void k<float>(float*)',
               lf(5, stat(S_HLO, 'str', 'fusion.1')) + lf(5, stat(S_FLOPS, 'int', 1000))) +
           emd(2, 'MemcpyH2D') + emd(3, 'Memset') + b''.join(gpu_stats) +
           lf(6, stat(S_CLOCK, 'int', 1_410_000)) + lf(6, stat(S_CORES, 'int', 108)) +
           lf(6, stat(S_CCMAJ, 'int', 8)) + lf(6, stat(S_CCMIN, 'int', 0)) +
           lf(6, stat(S_VENDOR, 'str', 'Nvidia')) + UNKNOWN)
    hline = (vf(1, 4242) + lf(2, 'python/4242') + vf(3, 500) +
             lf(4, event(1, 1_000_000, 700_000, [stat(S_CORR, 'int', 77)])) +
             lf(4, event(1, 8_000_000, 700_000, [stat(S_CORR, 'int', 78)])) +
             lf(4, event(2, 1_500_000, 0, [stat(S_ALLOC, 'str', 'GPU_0_bfc'),
                                           stat(S_BYTES, 'int', 4096), stat(S_ADDR, 'uint', 0xbeef00),
                                           stat(S_INUSE, 'int', 8192)])))
    host = (lf(2, '/host:CPU') + lf(3, hline) + emd(1, 'cudaLaunchKernel') + emd(2, 'MemoryAllocation') +
            smd(S_CORR, 'correlation_id') + smd(S_ALLOC, 'allocator_name') +
            smd(S_BYTES, 'allocation_bytes') + smd(S_ADDR, 'addr') + smd(S_INUSE, 'bytes_allocated'))
    env = lf(2, 'Task Environment') + smd(S_START, 'profile_start_time') + \
        lf(6, stat(S_START, 'uint', 1_767_225_600_000_000_000))
    return lf(1, gpu) + lf(1, host) + lf(1, env) + lf(3, 'Detected GPU events dropped: 3') + \
        lf(4, 'tinyhost') + UNKNOWN


def span_fixtures():
    """Two files for `tracekit ls` spans: span.xplane.pb has a Task Environment with
    profile_start_time (uint64) and profile_stop_time (int64, its metadata after the stats);
    abs_lines.xplane.pb has none, and absolute line timestamps (2026-01-01 00:00:00 and 2.5 s
    later): its span is their min / max."""
    t0 = 1_767_225_600_000_000_000
    hline = vf(1, 1) + lf(2, 'main/1') + vf(3, 1000) + lf(4, event(1, 0, 1000))
    host = lf(2, '/host:CPU') + lf(3, hline) + emd(1, 'work')
    env = (lf(2, 'Task Environment') + smd(S_START, 'profile_start_time') +
           lf(6, stat(S_START, 'uint', t0 + 5)) + lf(6, stat(S_CORR, 'int', t0 + 1_234_567_890)) +
           smd(S_CORR, 'profile_stop_time'))
    span = lf(1, host) + lf(1, env)
    lines = (lf(3, vf(1, 1) + lf(2, 'a/1') + vf(3, t0 + 2_500_000_000) + lf(4, event(1, 0, 1000))) +
             lf(3, vf(1, 2) + lf(2, 'b/2') + vf(3, t0) + lf(4, event(1, 7000, 1000))))
    absl = lf(1, lf(2, '/host:CPU') + lines + emd(1, 'work'))
    return {'span.xplane.pb': span, 'abs_lines.xplane.pb': absl}


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), '..', 'data',
                                                               'xplane')
    os.makedirs(out, exist_ok=True)
    good = tiny()
    files = {'tiny.xplane.pb': good}
    files.update(span_fixtures())
    bad = {}
    # Cut in the middle of the first plane: its length runs past the end of the file.
    bad['truncated.xplane.pb'] = (good[:200], 1, 'runs past the end')
    # An 11-byte varint as the first tag.
    bad['long_varint.xplane.pb'] = (b'\xff' * 11 + good, 0, 'varint of at most 10 bytes')
    # A plane whose line claims 1000 bytes where 3 remain.
    p = lf(2, '/device:GPU:0') + varint(3 << 3 | 2) + varint(1000) + b'abc'
    f = lf(1, p)
    # offset of the line's length: XSpace tag (1) + plane length + the name field + line tag (1)
    bad['line_past_end.xplane.pb'] = (f, 1 + len(varint(len(p))) + len(lf(2, '/device:GPU:0')) + 1,
                                      'length 1000 of field 3')
    # A group (wire type 3) at the top level.
    bad['group.xplane.pb'] = (varint(5 << 3 | 3) + good, 0, 'unsupported wire type 3')
    # A compressed_str_value that is not gzip.
    g = tiny().replace(gzip.compress(b'hello gzip', mtime=0), b'\x1f\x8b' + b'\x00' * (len(
        gzip.compress(b'hello gzip', mtime=0)) - 2))
    bad['bad_gzip.xplane.pb'] = (g, None, 'not valid gzip')
    # A negative duration.
    neg = lf(1, vf(1, 0) + lf(2, '/device:GPU:0') + lf(3, vf(1, 1) + lf(2, 'Stream #1') + lf(
        4, vf(1, 1) + vf(2, 0) + vf(3, -5))))
    bad['negative_duration.xplane.pb'] = (neg, None, 'negative duration_ps')
    for name, data in files.items():
        open(os.path.join(out, name), 'wb').write(data)
    for name, (data, off, what) in bad.items():
        open(os.path.join(out, name), 'wb').write(data)
        if off is None:
            off = 'see importer'
        print('%-28s %6d bytes  expect byte %s: %s' % (name, len(data), off, what))


if __name__ == '__main__':
    main()

#!/usr/bin/env python3
"""Independent figures for tests/analyze/test_corpus_ops.c: kernel totals, op-profile totals
of one level and memory peaks of real corpus traces, computed here from the raw files (Kineto
JSON with Python's json/gzip modules and exact Decimal arithmetic; XPlane protobuf decoded from
the wire format by hand) with integer nanoseconds, never with tracekit. The definitions are those
of docs/metrics.md ("Op profile", "Kernel stats", "Memory") and the mappings of docs/formats.md,
re-implemented from the text.

Usage:
  python3 ops_figures.py [CORPUS_DIR] > ops_figures.txt   # the fixture the test reads
  python3 ops_figures.py --full [CORPUS_DIR]              # also every per-name row

CORPUS_DIR defaults to ../shared/corpus relative to the repository root.

Output lines: "<trace> <figure> <value>", the value fields joined by '|':
  kernels          count|sum of durations (every kernel event: kernel stats' grand total)
  kernel_names     distinct names|FNV-1a 64 of "name|count|total_ns" rows sorted by name,
                   joined by newlines (as the test renders its SQL rows)
  kernel_top       name|count|total_ns, five lines, largest total first (ties: name)
  ops.LEVEL        count|total_ns|self_ns of the op-profile level (hlo_op: the XPlane stream
                   events that carry an hlo_op stat, by that HLO op; self = total)
  op_names.LEVEL   distinct names|FNV-1a 64 of "name|count|total_ns|self_ns" rows by name
  op_top.LEVEL     name|count|total_ns|self_ns, five lines
  memory           ordinal|allocator|basis|records|allocs|frees|peak_bytes|peak_ns per series
                   (ordinal of the device, NULL for host memory; NULL allocator when none;
                   without an allocator name, the device is the event's index_on_host (TPU) or
                   device_ordinal)

Self time (docs/metrics.md "Self time"): on each track the time belongs to the open event that
started last; ties in start: the longer one is outer; equal start and end: the one loaded later
is inner. Computed here with a max-heap over that order at every boundary (the C code uses a
stack sweep). Annotations and steps take no part. Load order is file order (XPlane: device planes
first, then the others, each line's events in order).
"""
import gzip
import heapq
import json
import os
import struct
import sys
from decimal import Decimal, ROUND_HALF_UP

KINETO = {
    "nccl_data": "kineto/HolisticTraceAnalysis/tests/data/nccl_parser_config/nccl_data.json.gz",
    "ns_resolution": "kineto/HolisticTraceAnalysis/tests/data/ns_resolution_trace/"
                     "rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz",
    "df_index_resolver": "kineto/HolisticTraceAnalysis/tests/data/df_index_resolver/"
                         "df_index_resolver.json.gz",
    "resnet50": "kineto/kineto/tb_plugin/samples/resnet50_num_workers_0/"
                "worker0.1623143089861.pt.trace.json.gz",
}
XPLANE = {
    "tf24_gpu": "xplane/logdir/plugins/profile/tf24_gpu_v100_multiworker/"
                "34.83.195.179_6003.xplane.pb",
    "tpu_v6e": "xplane/logdir/plugins/profile/xprof_tpu_v6e_inference/tpu_inference_2.xplane.pb",
    "mi300x_gemm": "xplane/logdir/plugins/profile/jax08_mi300x_gemm/tw003.xplane.pb",
}
NONE = None

# ---------------------------------------------------------------------------------------------
# common figures


def fnv64(text):
    h = 0xcbf29ce484222325
    for b in text.encode("utf-8"):
        h ^= b
        h = (h * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return "%016x" % h


def self_times(events):
    """events: (ts, end, load_idx, key, nests) of one track; returns {load_idx: self_ns}."""
    evs = sorted((e for e in events if e[4]), key=lambda e: (e[0], -e[1], e[2]))
    rank = {e[2]: r for r, e in enumerate(evs)}
    bounds = sorted({e[0] for e in evs} | {e[1] for e in evs})
    out = {e[2]: 0 for e in evs}
    heap, k = [], 0
    for i, t in enumerate(bounds[:-1]):
        while k < len(evs) and evs[k][0] == t:
            if evs[k][1] > evs[k][0]:
                heapq.heappush(heap, (-rank[evs[k][2]], evs[k][1], evs[k][2]))
            k += 1
        while heap and heap[0][1] <= t:
            heapq.heappop(heap)
        if heap:
            out[heap[0][2]] += bounds[i + 1] - t
    return out


def emit_kernels(tid, kernels, full):
    """kernels: list of (name, dur)."""
    per = {}
    for name, dur in kernels:
        c = per.setdefault(name, [0, 0])
        c[0] += 1
        c[1] += dur
    rows = ["%s|%d|%d" % (n, c[0], c[1]) for n, c in sorted(per.items())]
    print("%s kernels %d|%d" % (tid, len(kernels), sum(d for _, d in kernels)))
    print("%s kernel_names %d|%s" % (tid, len(rows), fnv64("\n".join(rows))))
    for n, c in sorted(per.items(), key=lambda x: (-x[1][1], x[0]))[:5]:
        print("%s kernel_top %s|%d|%d" % (tid, n, c[0], c[1]))
    if full:
        for r in rows:
            print("%s kernel_row %s" % (tid, r))


def emit_ops(tid, level, ops, full):
    """ops: list of (name, dur, self)."""
    per = {}
    for name, dur, slf in ops:
        c = per.setdefault(name, [0, 0, 0])
        c[0] += 1
        c[1] += dur
        c[2] += slf
    rows = ["%s|%d|%d|%d" % (n, c[0], c[1], c[2]) for n, c in sorted(per.items())]
    print("%s ops.%s %d|%d|%d" % (tid, level, len(ops), sum(o[1] for o in ops),
                                  sum(o[2] for o in ops)))
    print("%s op_names.%s %d|%s" % (tid, level, len(rows), fnv64("\n".join(rows))))
    for n, c in sorted(per.items(), key=lambda x: (-x[1][1], x[0]))[:5]:
        print("%s op_top.%s %s|%d|%d|%d" % (tid, level, n, c[0], c[1], c[2]))
    if full:
        for r in rows:
            print("%s op_row.%s %s" % (tid, level, r))


def emit_memory(tid, records):
    """records: (series key (ordinal, process, allocator), ts, idx, is_free, addr, bytes,
    in_use); docs/metrics.md "Memory": reported basis when every record has in_use."""
    series = {}
    for r in records:
        series.setdefault(r[0], []).append(r)
    out = []
    for key, recs in series.items():
        recs.sort(key=lambda r: (r[1], r[2]))
        reported = all(r[6] is not NONE for r in recs)
        live, total, peak, peak_ns = {}, 0, None, None
        for r in recs:
            _, ts, idx, is_free, addr, size, in_use = r
            if not is_free:
                k = addr if addr is not NONE else ("noaddr", idx)
                if k in live:
                    total -= live.pop(k)
                live[k] = size
                total += size
            elif addr is not NONE and addr in live:
                total -= live.pop(addr)
            v = in_use if reported else total
            if peak is None or v > peak:
                peak, peak_ns = v, ts
        frees = sum(1 for r in recs if r[3])
        out.append((key[0], key[2], "reported" if reported else "summed", len(recs),
                    len(recs) - frees, frees, peak, peak_ns))
    # ORDER BY ordinal IS NOT NULL, ordinal, allocator (NULL first)
    out.sort(key=lambda s: (s[0] is not NONE, s[0] or 0, s[1] is not NONE, s[1] or ""))
    for s in out:
        print("%s memory %s" % (tid, "|".join("NULL" if v is NONE else str(v) for v in s)))


# ---------------------------------------------------------------------------------------------
# Kineto JSON (docs/formats.md "Chrome trace / PyTorch Kineto JSON")

DEVICE_CATS = {"kernel", "gpu_memcpy", "gpu_memset", "gpu_user_annotation", "Kernel", "Memcpy",
               "Memset"}
HOST_OP_CATS = {"cpu_op", "Operator"}


def ns(v):
    """Kineto µs (decimal text) to integer ns, rounded to nearest, ties away from zero."""
    return int((Decimal(str(v)) * 1000).quantize(Decimal(1), rounding=ROUND_HALF_UP))


def kineto(tid, path, full):
    opener = gzip.open if open(path, "rb").read(2) == b"\x1f\x8b" else open
    with opener(path, "rt") as f:
        doc = json.load(f, parse_float=Decimal)
    evs = doc["traceEvents"] if isinstance(doc, dict) else doc
    base = int(doc.get("baseTimeNanoseconds", 0)) if isinstance(doc, dict) else 0
    for e in evs:  # the importer maps X only here; anything else would need more rules
        assert e.get("ph") not in ("B", "E", "b", "e"), "B/E events: extend the script"
    device_pids = {str(e.get("pid")) for e in evs if e.get("cat") in DEVICE_CATS}
    kernels, tracks, mem = [], {}, []
    for idx, e in enumerate(evs):
        ph, cat, name = e.get("ph"), e.get("cat"), e.get("name", "")
        if ph in ("i", "I") and name == "[memory]":
            a = e.get("args") or {}
            dev = a.get("Device Id", -1)
            dev = dev if dev >= 0 and a.get("Device Type", 0) != 0 else NONE
            b = int(a.get("Bytes", 0))
            in_use = a.get("Total Allocated")
            mem.append(((dev, str(e.get("pid")), NONE), ns(e["ts"]) + base, idx, b < 0,
                        a.get("Addr"), abs(b), NONE if in_use is None else int(in_use)))
            continue
        if ph != "X":
            continue
        ts = ns(e["ts"]) + base
        end = ts + ns(e.get("dur", 0))
        if cat in ("kernel", "Kernel"):
            kernels.append((name, end - ts))
        pid = str(e.get("pid"))
        if pid in device_pids:
            continue  # device streams: no host ops there
        step = cat == "user_annotation" and name.startswith("ProfilerStep#")
        nests = cat not in ("user_annotation", "gpu_user_annotation") and not step
        tracks.setdefault((pid, str(e.get("tid"))), []).append(
            (ts, end, idx, (name, cat in HOST_OP_CATS), nests))
    emit_kernels(tid, kernels, full)
    ops = []
    for evl in tracks.values():
        st = self_times(evl)
        for ts, end, idx, (name, is_op), nests in evl:
            if is_op:
                ops.append((name, end - ts, st.get(idx, 0)))
    emit_ops(tid, "host_op", ops, full)
    if mem:
        emit_memory(tid, mem)


# ---------------------------------------------------------------------------------------------
# XPlane (schemas/xplane.proto; docs/formats.md "XPlane")

def varint(b, i):
    r = s = 0
    while True:
        c = b[i]
        i += 1
        r |= (c & 0x7F) << s
        s += 7
        if c < 0x80:
            return r, i


def fields(b):
    i, n = 0, len(b)
    while i < n:
        k, i = varint(b, i)
        f, w = k >> 3, k & 7
        if w == 0:
            v, i = varint(b, i)
        elif w == 1:
            v, i = b[i:i + 8], i + 8
        elif w == 2:
            ln, i = varint(b, i)
            v, i = b[i:i + ln], i + ln
        elif w == 5:
            v, i = b[i:i + 4], i + 4
        else:
            raise ValueError("wire type %d" % w)
        yield f, v


def signed(v):
    return v - (1 << 64) if v >= 1 << 63 else v


def stat(b, smd):
    """(name, value) of an XStat; ref_value resolves to the referenced stat metadata's name."""
    mid, val = 0, None
    for f, v in fields(b):
        if f == 1:
            mid = v
        elif f == 2:
            val = struct.unpack("<d", v)[0]
        elif f == 3:
            val = v
        elif f == 4:
            val = signed(v)
        elif f == 5:
            val = v.decode("utf-8", "replace")
        elif f == 7:
            val = smd.get(v, "")
        elif f == 8:
            val = gzip.decompress(v).decode("utf-8", "replace")
    return smd.get(mid, ""), val


def plane_parts(b):
    name, lines, emd_raw, smd, pstats = "", [], [], {}, []
    for f, v in fields(b):
        if f == 2:
            name = v.decode()
        elif f == 3:
            lines.append(v)
        elif f == 4:
            emd_raw.append(v)
        elif f == 5:
            for g, w in fields(v):
                if g == 2:
                    sid, nm = 0, ""
                    for h, x in fields(w):
                        if h == 1:
                            sid = x
                        elif h == 2:
                            nm = x.decode()
                    smd[sid] = nm
        elif f == 6:
            pstats.append(v)
    emd = {}
    for v in emd_raw:
        for g, w in fields(v):
            if g != 2:
                continue
            m = {"id": 0, "name": "", "display_name": "", "stats": {}}
            for h, x in fields(w):
                if h == 1:
                    m["id"] = x
                elif h == 2:
                    m["name"] = x.decode("utf-8", "replace")
                elif h == 4:
                    m["display_name"] = x.decode("utf-8", "replace")
                elif h == 5:
                    k, val = stat(x, smd)
                    m["stats"][k] = val
            emd[m["id"]] = m
    return name, lines, emd, smd, pstats


def line_kind(device, name):
    if not device:
        return "nvtx" if name.endswith("/NVTX") else "thread"
    if name.startswith("Stream #"):
        return "stream"
    if name in ("XLA Ops", "Sparse Core Ops"):
        return "xla_op"
    if name == "Async XLA Ops":
        return "async_xla_op"
    if name in ("XLA Modules", "Sparse Core Modules"):
        return "xla_module"
    if name in ("Steps", "Sparse Core Steps"):
        return "step"
    if name in ("Framework Ops", "TensorFlow Ops"):
        return "framework_op"
    return "annotation"


def host_kind(name, st):
    if name.startswith("cuda") or name.startswith("hip"):
        return "runtime_api"
    if len(name) > 2 and name[:2] == "cu" and "A" <= name[2] <= "Z":
        return "driver_api"
    if st.get("correlation_id") is not None:
        return "runtime_api"
    if st.get("step_num") is not None:
        return "step"
    if name.startswith("$"):
        return "python_function"
    return "host_op"


def xplane(tid, path, full):
    planes = [v for f, v in fields(open(path, "rb").read()) if f == 1]
    parts = [plane_parts(p) for p in planes]
    start = 0
    for name, _, _, smd, pstats in parts:
        if name == "Task Environment":
            for s in pstats:
                k, v = stat(s, smd)
                if k == "profile_start_time":
                    start = v
    order = [p for p in parts if p[0].startswith("/device:")] + \
        [p for p in parts if not p[0].startswith("/device:")]
    idx, kernels, tracks, mem, hlo = 0, [], [], [], []
    for pname, lines, emd, smd, _ in order:
        device = pname.startswith("/device:")
        for lb in lines:
            hdr = {"id": 0, "display_id": 0, "name": "", "display_name": "", "ts": 0}
            evbytes = []
            for f, v in fields(lb):
                if f == 1:
                    hdr["id"] = v
                elif f == 10:
                    hdr["display_id"] = v
                elif f == 2:
                    hdr["name"] = v.decode("utf-8", "replace")
                elif f == 11:
                    hdr["display_name"] = v.decode("utf-8", "replace")
                elif f == 3:
                    hdr["ts"] = signed(v)
                elif f == 4:
                    evbytes.append(v)
            lkind = line_kind(device, hdr["display_name"] or hdr["name"])
            track = []
            for eb in evbytes:
                md, off, dur, st = 0, 0, 0, {}
                for f, v in fields(eb):
                    if f == 1:
                        md = signed(v)
                    elif f == 2:
                        off = signed(v)
                    elif f == 3:
                        dur = signed(v)
                    elif f == 4:
                        k, val = stat(v, smd)
                        st[k] = val
                m = emd.get(md, {"name": "", "display_name": "", "stats": {}})
                stats = dict(m["stats"])
                stats.update(st)
                name = m["name"]
                ts = start + hdr["ts"] + off // 1000
                if lkind == "thread" and name in ("MemoryAllocation", "MemoryDeallocation"):
                    alloc = stats.get("allocator_name")
                    dev = NONE
                    if alloc and "host" not in alloc:
                        for pre in ("GPU_", "gpu_"):
                            p = alloc.find(pre)
                            if p >= 0:
                                digits = ""
                                for ch in alloc[p + 4:]:
                                    if not ch.isdigit():
                                        break
                                    digits += ch
                                dev = int(digits) if digits else NONE
                                break
                    if not alloc:  # TPU: the device of that index on this host
                        idx_on_host = stats.get("index_on_host", stats.get("device_ordinal"))
                        dev = idx_on_host if idx_on_host is not None else NONE
                    size = stats.get("allocation_bytes", stats.get("requested_bytes", 0))
                    mem.append(((dev, 1, alloc), ts, idx, name == "MemoryDeallocation",
                                stats.get("addr"), max(size, 0), stats.get("bytes_allocated")))
                    idx += 1
                    continue
                d = dur // 1000
                if lkind == "stream":
                    if not (stats.get("memcpy_details") is not None or name.startswith("Memcpy")
                            or stats.get("Memset_details") is not None
                            or name.startswith("Memset")):
                        kernels.append((name, d))
                    if stats.get("hlo_op"):  # XLA on GPU: the HLO op the device op ran for
                        hlo.append((stats["hlo_op"], d, d))
                    kind = "device"
                elif lkind == "thread":
                    kind = host_kind(name, stats)
                else:
                    kind = lkind
                if kind in ("xla_op", "async_xla_op") and m["display_name"]:
                    name = m["display_name"]
                track.append((ts, ts + d, idx, (name, kind),
                              kind not in ("annotation", "nvtx", "step")))
                idx += 1
            tracks.append(track)
    emit_kernels(tid, kernels, full)
    for level in ("host_op", "xla_op", "async_xla_op"):
        ops = []
        for track in tracks:
            st = self_times(track)
            for ts, end, i, (name, kind), _ in track:
                if kind == level:
                    ops.append((name, end - ts, st.get(i, 0)))
        if ops:
            emit_ops(tid, level, ops, full)
    if hlo:
        emit_ops(tid, "hlo_op", hlo, full)
    if mem:
        emit_memory(tid, mem)


def main():
    args = sys.argv[1:]
    full = "--full" in args
    args = [a for a in args if a != "--full"]
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__)))))
    corpus = args[0] if args else os.path.join(root, "..", "shared", "corpus")
    print("# generated by tests/data/analyze/ops_figures.py from ../shared/corpus; do not edit")
    for tid, rel in KINETO.items():
        kineto(tid, os.path.join(corpus, rel), full)
    for tid, rel in XPLANE.items():
        xplane(tid, os.path.join(corpus, rel), full)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Kernel launch statistics and queue length from a Kineto JSON trace, independently of tracekit.

Re-implements docs/metrics.md, "Kernel launches" and "Queue length", from the raw JSON (gzip or
not). Device operations: 'X' events of cat kernel/Kernel, gpu_memcpy/Memcpy, gpu_memset/Memset;
their device is the event's pid, their stream its tid. Times as tracekit imports them: integer
ns, µs values rounded half away from zero, plus baseTimeNanoseconds; end = ts + dur.

Launches. With launch flows (cat ac2g 's'/'f' points whose both ends bind to a slice: the 'X'
event on the point's pid/tid starting at the point's ts; when several start there, the one whose
args.correlation is the flow id, else the one with a correlation id, else the script refuses),
an operation's launch is the source slice of a flow ending on it, the earliest when several;
an operation no flow ends on has none. Without any launch flow, the earliest cuda_runtime /
cuda_driver (Runtime / Driver) call with the operation's args.correlation (ties: the first in
the file); the script refuses a trace whose calls come from more than one pid (tracekit's
"compatible process" rule is then not this one).

Usage:
  launch_figures.py TRACE
      one line per (device, kind, name) with a launch, sorted: device|kind|name|ops|launches|
      device_ns|call_total_ns|call mean|median|p90|max|delay mean|median|p90|max|
      queue mean|median|p90|max|call_outliers|delay_outliers|short_launches|short_share
  launch_figures.py TRACE --queue device
      queue length per stream and for the device (stream NULL) over the device window (the
      earliest operation start to the latest operation end): device|stream|window|window_ns|
      ops|launched|max_length|mean_length|empty_ns|empty_share|longest_empty_ns|
      longest_empty_start_ns|max_waiting|mean_waiting|waiting_share (NULL where none)
  launch_figures.py TRACE --queue STEPS
      the same over the union of the step intervals in the file STEPS (lines start|end, as
      analysis_steps has them: the window is tracekit's step placement, the figures are this
      script's); the trace must have one device.
"""
import gzip
import json
import sys
from decimal import Decimal, ROUND_HALF_UP

KIND = {"kernel": "kernel", "Kernel": "kernel", "gpu_memcpy": "memcpy", "Memcpy": "memcpy",
        "gpu_memset": "memset", "Memset": "memset"}
LAUNCH = {"cuda_runtime", "cuda_driver", "Runtime", "Driver"}
CALL_CUTOFF = 50000    # HTA's runtime_cutoff, 50 us
DELAY_CUTOFF = 100000  # HTA's launch_delay_cutoff, 100 us


def ns(v):
    return int((Decimal(str(v)) * 1000).quantize(Decimal(1), rounding=ROUND_HALF_UP))


def load(path):
    opener = gzip.open if open(path, "rb").read(2) == b"\x1f\x8b" else open
    with opener(path, "rt") as f:
        doc = json.load(f, parse_float=Decimal)
    evs = doc["traceEvents"] if isinstance(doc, dict) else doc
    base = int(doc.get("baseTimeNanoseconds", 0)) if isinstance(doc, dict) else 0
    return evs, base


def real(x):
    return repr(float(x))


class Op:
    def __init__(self, dev, stream, kind, name, ts, end):
        self.dev, self.stream, self.kind, self.name = dev, stream, kind, name
        self.ts, self.end = ts, end
        self.call = None  # (call ts, call dur) of the launch


def read(path):
    """The device operations, each with its launch."""
    evs, base = load(path)
    ops = {}       # event index -> Op
    slices = {}    # (pid, tid, ts) -> [(has correlation, index)]
    calls = {}     # correlation -> (ts, index, dur, pid) of the earliest call
    points = []    # (ph, id, pid, tid, ts) of the ac2g flow points
    times = {}     # index -> (ts, dur)
    for idx, e in enumerate(evs):
        ph = e.get("ph")
        if ph in ("s", "f", "t") and e.get("cat") == "ac2g":
            points.append((ph, str(e.get("id", e.get("id2"))), str(e.get("pid")),
                           str(e.get("tid")), ns(e["ts"]) + base))
            continue
        if ph != "X":
            continue
        cat, name = e.get("cat"), e.get("name", "")
        ts, dur = ns(e["ts"]) + base, ns(e.get("dur", 0))
        if dur < 0:
            raise SystemExit("negative duration at event %d" % idx)
        corr = (e.get("args") or {}).get("correlation")
        key = (str(e.get("pid")), str(e.get("tid")), ts)
        slices.setdefault(key, []).append((None if corr is None else str(corr), idx))
        times[idx] = (ts, dur)
        if cat in KIND:
            if "|" in name or "\n" in name:
                raise SystemExit("a name with '|' or a newline: %r" % name)
            ops[idx] = Op(e.get("pid"), e.get("tid"), KIND[cat], name, ts, ts + dur)
            ops[idx].corr = None if corr is None else int(corr)
        elif cat in LAUNCH and corr is not None:
            c = int(corr)
            if c not in calls or (ts, idx) < calls[c][:2]:
                calls[c] = (ts, idx, dur, e.get("pid"))

    def bound(pid, tid, ts, fid):
        cand = slices.get((pid, tid, ts), [])
        same = [i for c, i in cand if c == fid]  # Kineto: the flow id is the correlation id
        with_corr = [i for c, i in cand if c is not None]
        pick = same or with_corr or [i for _, i in cand]
        if len(pick) > 1:
            raise SystemExit("a flow point binds to %d slices at %s/%s/%d" % (len(pick), pid,
                                                                              tid, ts))
        return pick[0] if pick else None

    src, dst = {}, {}
    for ph, fid, pid, tid, ts in points:
        i = bound(pid, tid, ts, fid)
        if i is None:
            continue
        if ph == "s":
            if fid in src and src[fid] != i:
                raise SystemExit("flow id %s starts twice" % fid)
            src[fid] = i
        else:
            dst.setdefault(fid, []).append(i)
    flows = [(src[f], d) for f, ds in dst.items() if f in src for d in ds]
    if flows:
        for s, d in flows:
            if d in ops:
                ts, dur = times[s]
                op = ops[d]
                if op.call is None or ts < op.call[0]:
                    op.call = (ts, dur)
                elif ts == op.call[0] and dur != op.call[1]:
                    raise SystemExit("two launches of one op at the same time")
    else:
        if len({c[3] for c in calls.values()}) > 1:
            raise SystemExit("launch calls from more than one process")
        for op in ops.values():
            c = calls.get(op.corr) if op.corr is not None else None
            if c is not None:
                op.call = (c[0], c[2])
    return list(ops.values()), bool(flows)


def stats(v):
    v = sorted(v)
    n = len(v)
    median = Decimal(v[n // 2]) if n % 2 else (Decimal(v[n // 2 - 1]) + v[n // 2]) / 2
    return [real(Decimal(sum(v)) / n), real(median), str(v[-(-9 * n // 10) - 1]), str(v[-1])]


def launch_table(ops):
    groups = {}
    for op in ops:
        groups.setdefault((op.dev, op.kind, op.name), []).append(op)
    rows = []
    for (dev, kind, name), g in groups.items():
        la = [op for op in g if op.call is not None]
        if not la:
            continue
        call = [op.call[1] for op in la]
        delay = [op.ts - op.call[0] for op in la]
        queue = [max(0, op.ts - op.call[0] - op.call[1]) for op in la]
        short = sum(1 for op in la if op.call[1] <= CALL_CUTOFF and op.end - op.ts < op.call[1])
        rows.append([dev, kind, name, len(g), len(la), sum(op.end - op.ts for op in la),
                     sum(call)] + stats(call) + stats(delay) + stats(queue) +
                    [sum(1 for x in call if x > CALL_CUTOFF),
                     sum(1 for x in queue if x > DELAY_CUTOFF), short, real(Decimal(short) / len(la))])
    rows.sort(key=lambda r: (r[0], r[1], r[2]))
    for r in rows:
        print("|".join(str(x) for x in r))


def union(spans):
    out = []
    for a, b in sorted(s for s in spans if s[1] > s[0]):
        if out and a <= out[-1][1]:
            out[-1][1] = max(out[-1][1], b)
        else:
            out.append([a, b])
    return out


def series(ops, window):
    """The queue figures of @ops over the window spans (sorted, disjoint, not touching)."""
    marks = set()
    for a, b in window:
        marks.update((a, b))
    ivs = []  # (from, start, end)
    for op in ops:
        queued = op.call is not None and op.call[0] < op.ts
        frm = op.call[0] if queued else op.ts
        ivs.append((frm, op.ts, op.end))
        marks.update((frm, op.ts, op.end))
    # counts on each elementary interval between consecutive marks, from +1/-1 differences
    dl, dw = {}, {}
    for frm, ts, end in ivs:
        if frm < end:
            dl[frm] = dl.get(frm, 0) + 1
            dl[end] = dl.get(end, 0) - 1
        if frm < ts:
            dw[frm] = dw.get(frm, 0) + 1
            dw[ts] = dw.get(ts, 0) - 1
    marks = sorted(marks)
    wlen = sum(b - a for a, b in window)
    r = dict(max_len=0, max_wait=0, len_int=0, wait_int=0, empty=0, waiting=0, longest=0,
             longest_at=None)
    L = W = 0
    run_at, run_end = None, None  # the current empty stretch inside one window span
    wi = 0
    for k in range(len(marks) - 1):
        a, b = marks[k], marks[k + 1]
        L += dl.get(a, 0)
        W += dw.get(a, 0)
        while wi < len(window) and window[wi][1] <= a:
            wi += 1
        inside = wi < len(window) and window[wi][0] <= a and b <= window[wi][1]
        if not inside:  # marks include the window bounds: an interval is in or out whole
            continue
        d = b - a
        r["len_int"] += L * d
        r["wait_int"] += W * d
        r["max_len"] = max(r["max_len"], L)
        r["max_wait"] = max(r["max_wait"], W)
        r["waiting"] += d if W > 0 else 0
        if L == 0:
            r["empty"] += d
            if run_end == a:  # continues the stretch (same span: the spans do not touch)
                run_end = b
            else:
                run_at, run_end = a, b
            if run_end - run_at > r["longest"]:
                r["longest"], r["longest_at"] = run_end - run_at, run_at
    return r, wlen


def share(x, w):
    return real(Decimal(x) / w) if w > 0 else "NULL"


def queue_table(ops, window_of, wname):
    devs = sorted({op.dev for op in ops})
    for dev in devs:
        dops = [op for op in ops if op.dev == dev]
        window = window_of(dev, dops)
        # the tid is tracks.stream_id when an integer, else NULL (and sorts first)
        streams = sorted({op.stream for op in dops}, key=lambda t: (isinstance(t, int), str(t)
                                                                   if not isinstance(t, int) else t))
        for s in streams + [None]:
            sops = [op for op in dops if s is None or op.stream == s]
            r, w = series(sops, window)
            row = [dev, s if isinstance(s, int) else "NULL", wname, w, len(sops),
                   sum(1 for op in sops if op.call is not None), r["max_len"],
                   share(r["len_int"], w), r["empty"],
                   share(r["empty"], w), r["longest"],
                   "NULL" if r["longest_at"] is None else r["longest_at"], r["max_wait"],
                   share(r["wait_int"], w), share(r["waiting"], w)]
            print("|".join(str(x) for x in row))


def main(argv):
    ops, _ = read(argv[1])
    if len(argv) == 2:
        launch_table(ops)
        return
    if len(argv) != 4 or argv[2] != "--queue":
        raise SystemExit(__doc__)
    if argv[3] == "device":
        queue_table(ops, lambda dev, dops: union([(min(o.ts for o in dops),
                                                   max(o.end for o in dops))]), "device")
        return
    with open(argv[3]) as f:
        steps = [tuple(int(x) for x in line.split("|")) for line in f if line.strip()]
    if len({op.dev for op in ops}) != 1:
        raise SystemExit("--queue STEPS needs a trace with one device")
    queue_table(ops, lambda dev, dops: union(steps), "steps")


if __name__ == "__main__":
    main(sys.argv)

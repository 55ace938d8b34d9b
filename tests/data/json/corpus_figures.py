#!/usr/bin/env python3
"""Independent figures for tests/import/test_chrome_json.c, computed with Python's json/gzip
modules and exact Decimal arithmetic (json.load(parse_float=Decimal)), never with tracekit.

Usage: python3 corpus_figures.py FILE...   (prints one line of figures per file)

  kernels/memcpys/memsets/api: X events with cat kernel|Kernel, gpu_memcpy|Memcpy,
      gpu_memset|Memset, cuda_runtime|cuda_driver|Runtime
  kernel_dur_ns: sum over kernels of round(dur * 1000) (dur in us, exact decimal)
  flows: 'f'/'t' points whose (cat, id) has an 's' point, where both points have an X event
      (not M/i) on the same pid/tid (numeric strings = numbers) starting at exactly their ts
  memory: 'i'/'I' events named "[memory]"
  first_kernel: name, ts_ns, dur_ns, tid, grid, block of the first kernel in file order
"""
import gzip
import json
import sys
from decimal import Decimal, ROUND_HALF_UP


def key(v):
    if isinstance(v, str):
        try:
            return ('i', int(v))
        except ValueError:
            return ('s', v)
    if v is None:
        return ('n', None)
    return ('i', int(v))


def ns(v, base=0):
    return int((Decimal(str(v)) * 1000).quantize(Decimal(1), rounding=ROUND_HALF_UP)) + base


for path in sys.argv[1:]:
    opener = gzip.open if open(path, 'rb').read(2) == b'\x1f\x8b' else open
    with opener(path, 'rt') as f:
        doc = json.load(f, parse_float=Decimal)
    evs = doc['traceEvents'] if isinstance(doc, dict) else doc
    base = doc.get('baseTimeNanoseconds', 0) if isinstance(doc, dict) else 0
    cats = {'kernel': 0, 'memcpy': 0, 'memset': 0, 'api': 0}
    kdur = 0
    starts = set()
    first = None
    for e in evs:
        if e.get('ph') != 'X':
            continue
        c = e.get('cat')
        starts.add((key(e.get('pid')), key(e.get('tid')), ns(e['ts'])))
        if c in ('kernel', 'Kernel'):
            cats['kernel'] += 1
            kdur += ns(e.get('dur', 0))
            if first is None:
                a = e.get('args', {})
                first = (e['name'][:60], ns(e['ts'], base), ns(e.get('dur', 0)), e.get('tid'),
                         a.get('grid'), a.get('block'))
        elif c in ('gpu_memcpy', 'Memcpy'):
            cats['memcpy'] += 1
        elif c in ('gpu_memset', 'Memset'):
            cats['memset'] += 1
        elif c in ('cuda_runtime', 'cuda_driver', 'Runtime'):
            cats['api'] += 1
    srcs = set()
    for e in evs:
        if e.get('ph') == 's' and (key(e.get('pid')), key(e.get('tid')), ns(e['ts'])) in starts:
            srcs.add((e.get('cat'), str(e.get('id'))))
    flows = 0
    for e in evs:
        if e.get('ph') in ('f', 't') and (e.get('cat'), str(e.get('id'))) in srcs and \
                (key(e.get('pid')), key(e.get('tid')), ns(e['ts'])) in starts:
            flows += 1
    mem = sum(1 for e in evs if e.get('ph') in ('i', 'I') and e.get('name') == '[memory]')
    print(path.split('/data/')[-1], cats, 'kernel_dur_ns', kdur, 'flows', flows, 'memory', mem,
          'first_kernel', first)

#!/usr/bin/env python3
"""Independent XPlane wire-format walker (no protobuf module, no tracekit code).

Prints, per file, the figures tests/import/test_xplane.c hard-codes: planes, lines, events,
kernels, copies, memsets, memory events, and per plane a summary. With --kernels N it prints
the first N kernel events of each device plane (name, start ns, duration ns, kernel_details).

Counting rules (the same definitions the importer documents in docs/formats.md (XPlane section)):
  kernel  = event on a device plane's `Stream #` line that is neither a copy nor a set
  copy    = such an event with a `memcpy_details` stat, or whose name starts with Memcpy
  memset  = such an event with a `Memset_details` stat, or whose name starts with Memset
  memory  = host-plane event named MemoryAllocation or MemoryDeallocation
"""
import struct
import sys


def varint(b, i):
    r = 0
    s = 0
    while True:
        c = b[i]
        i += 1
        r |= (c & 0x7F) << s
        s += 7
        if c < 0x80:
            return r, i


def fields(b):
    i = 0
    n = len(b)
    while i < n:
        k, i = varint(b, i)
        f, t = k >> 3, k & 7
        if t == 0:
            v, i = varint(b, i)
        elif t == 1:
            v = struct.unpack_from('<Q', b, i)[0]
            i += 8
        elif t == 2:
            ln, i = varint(b, i)
            v = b[i:i + ln]
            i += ln
        elif t == 5:
            v = struct.unpack_from('<I', b, i)[0]
            i += 4
        else:
            raise ValueError('wire type %d' % t)
        yield f, t, v


def s64(v):
    return v - (1 << 64) if v >= 1 << 63 else v


def stat(b):
    return {f: v for f, _, v in fields(b)}


def plane(b):
    p = {'lines': [], 'em': {}, 'sm': {}, 'name': '', 'stats': []}
    for f, t, v in fields(b):
        if f == 2:
            p['name'] = v.decode('utf-8', 'replace')
        elif f == 3:
            p['lines'].append(v)
        elif f == 4:
            e = {f_: v_ for f_, _, v_ in fields(v)}
            md = {'name': '', 'stats': []}
            for f2, t2, v2 in fields(e.get(2, b'')):
                if f2 == 2:
                    md['name'] = v2.decode('utf-8', 'replace')
                elif f2 == 5:
                    md['stats'].append(stat(v2))
            md['id'] = s64(e.get(1, 0))
            p['em'][md['id']] = md
        elif f == 5:
            e = {f_: v_ for f_, _, v_ in fields(v)}
            sm = {f_: v_ for f_, _, v_ in fields(e.get(2, b''))}
            p['sm'][s64(e.get(1, 0))] = sm.get(2, b'').decode('utf-8', 'replace')
        elif f == 6:
            p['stats'].append(stat(v))
    return p


def main():
    args = sys.argv[1:]
    nk = 0
    if args and args[0] == '--kernels':
        nk = int(args[1])
        args = args[2:]
    for path in args:
        data = open(path, 'rb').read()
        planes = lines = events = kernels = copies = sets = mem = 0
        per = []
        start = None
        for f, t, v in fields(data):
            if f != 1:
                continue
            p = plane(v)
            if p['name'] == 'Task Environment':
                for st in p['stats']:
                    if p['sm'].get(s64(st.get(1, 0))) == 'profile_start_time':
                        start = st.get(3, st.get(4))
        for f, t, v in fields(data):
            if f != 1:
                continue
            planes += 1
            p = plane(v)
            dev = p['name'].startswith('/device:')
            host = p['name'] == '/host:CPU'
            pe = pk = 0
            shown = 0
            for lb in p['lines']:
                lines += 1
                ln = {'events': [], 'name': '', 'ts': 0}
                for f2, t2, v2 in fields(lb):
                    if f2 == 2:
                        ln['name'] = v2.decode('utf-8', 'replace')
                    elif f2 == 3:
                        ln['ts'] = s64(v2)
                    elif f2 == 4:
                        ln['events'].append(v2)
                stream = dev and ln['name'].startswith('Stream #')
                for eb in ln['events']:
                    events += 1
                    pe += 1
                    ev = {'md': 0, 'off': 0, 'dur': 0, 'stats': []}
                    for f3, t3, v3 in fields(eb):
                        if f3 == 1:
                            ev['md'] = s64(v3)
                        elif f3 == 2:
                            ev['off'] = s64(v3)
                        elif f3 == 3:
                            ev['dur'] = s64(v3)
                        elif f3 == 4:
                            ev['stats'].append(stat(v3))
                    md = p['em'].get(ev['md'], {'name': '', 'stats': []})
                    name = md['name']
                    names = {}
                    for st in md['stats'] + ev['stats']:
                        sn = p['sm'].get(s64(st.get(1, 0)), '')
                        val = st.get(5)
                        if 7 in st:
                            val = p['sm'].get(st[7], '').encode()
                        names[sn] = val
                    if host and name in ('MemoryAllocation', 'MemoryDeallocation'):
                        mem += 1
                    if not stream:
                        continue
                    if 'memcpy_details' in names or name.startswith('Memcpy'):
                        copies += 1
                    elif 'Memset_details' in names or name.startswith('Memset'):
                        sets += 1
                    else:
                        kernels += 1
                        pk += 1
                        if shown < nk:
                            shown += 1
                            kd = names.get('kernel_details') or b''
                            ts = (start or 0) + ln['ts'] + ev['off'] // 1000
                            print('  kernel %s line=%r ts=%d dur=%d details=%r' %
                                  (name[:60], ln['name'], ts, ev['dur'] // 1000,
                                   kd.decode('utf-8', 'replace')))
            per.append('%s: lines=%d events=%d kernels=%d' % (p['name'], len(p['lines']), pe, pk))
        print('%s: planes=%d lines=%d events=%d kernels=%d copies=%d memsets=%d memory=%d start=%s'
              % (path, planes, lines, events, kernels, copies, sets, mem, start))
        for x in per:
            print('   ', x)


if __name__ == '__main__':
    main()

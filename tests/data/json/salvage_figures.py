#!/usr/bin/env python3
"""Independent figures for the --salvage test in tests/import/test_chrome_json.c: what a
truncated Kineto trace holds before its cut, found with Python's zlib and json, never tracekit.

Usage: python3 salvage_figures.py FILE CUT...
  FILE: a Kineto trace (.json or .json.gz). Each CUT is "plain:N" (the first N bytes of the
  uncompressed text) or "gz:N" (the first N bytes of the gzip file, inflated as far as zlib can).
  Prints per cut: the bytes of text available, the number of complete traceEvents elements (an
  element is complete when its closing '}' lies within the text), and how many of them are
  'X' events with cat 'kernel', 'cuda_sync' (any ph) and 'ac2g' flow points.
"""
import gzip
import json
import sys
import zlib


def prefix(path, cut):
    raw = open(path, 'rb').read()
    kind, n = cut.split(':')
    n = int(n)
    if kind == 'plain':
        text = gzip.decompress(raw) if raw[:2] == b'\x1f\x8b' else raw
        return text[:n]
    assert raw[:2] == b'\x1f\x8b', 'gz: cuts need a gzip file'
    return zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(raw[:n])


def count(text):
    s = text.decode('latin-1')
    dec = json.JSONDecoder()
    pos = s.index('[', s.index('"traceEvents"'))
    elems = kernels = syncs = flows = 0
    while True:
        pos += 1
        while pos < len(s) and s[pos] in ' \t\r\n':
            pos += 1
        if pos >= len(s) or s[pos] == ']':
            break
        try:
            e, end = dec.raw_decode(s, pos)
        except json.JSONDecodeError:
            break
        elems += 1
        if isinstance(e, dict):
            kernels += e.get('ph') == 'X' and e.get('cat') == 'kernel'
            syncs += e.get('cat') == 'cuda_sync'
            flows += e.get('cat') == 'ac2g'
        pos = end
        while pos < len(s) and s[pos] in ' \t\r\n':
            pos += 1
        if pos >= len(s) or s[pos] != ',':
            break
    return elems, kernels, syncs, flows


for cut in sys.argv[2:]:
    text = prefix(sys.argv[1], cut)
    print(cut, len(text), *count(text))

#!/usr/bin/env python3
"""Hostile-shape Chrome JSON traces for the importer's memory bound (bench/json_hostile.sh).

Usage: json_hostile.py SHAPE OUT.json [N]   (N events, default 1000000)
Shapes: open_b (B events never closed, each on its own thread), x_threads (X events, each on its
own thread), x_one (X events on one thread: the baseline), async_pairs (b/e pairs, each with its
own id), thread_names (thread_name metadata, one per thread), counters (C events, each its own
series), flows (s points never finished), pids (X events, each in its own process).
"""
import sys


def events(shape, n):
    for i in range(n):
        if shape == "open_b":
            yield ('{"ph":"B","name":"op%d","cat":"cpu_op","pid":1,"tid":%d,"ts":%d.5,'
                   '"args":{"k":%d}}' % (i % 100, i, i, i))
        elif shape in ("x_threads", "x_one"):
            yield ('{"ph":"X","name":"op%d","cat":"cpu_op","pid":1,"tid":%d,"ts":%d.5,"dur":1,'
                   '"args":{"k":%d}}' % (i % 100, i if shape == "x_threads" else 1, i, i))
        elif shape == "async_pairs":
            if i % 2 == 0:
                yield '{"ph":"b","name":"a","cat":"c","pid":1,"tid":1,"id":%d,"ts":%d}' % (i, i)
            else:
                yield '{"ph":"e","name":"a","cat":"c","pid":1,"tid":1,"id":%d,"ts":%d}' % (i - 1, i)
        elif shape == "thread_names":
            yield ('{"ph":"M","name":"thread_name","pid":1,"tid":%d,"args":{"name":"thread %d"}}'
                   % (i, i))
        elif shape == "counters":
            yield '{"ph":"C","name":"c%d","pid":1,"tid":1,"ts":%d,"args":{"v":1}}' % (i, i)
        elif shape == "flows":
            yield '{"ph":"s","name":"f","cat":"fl","pid":1,"tid":1,"id":%d,"ts":%d}' % (i, i)
        elif shape == "pids":
            yield '{"ph":"X","name":"op","cat":"cpu_op","pid":%d,"tid":1,"ts":%d,"dur":1}' % (i, i)
        else:
            sys.exit("unknown shape " + shape)


def main():
    shape, out = sys.argv[1], sys.argv[2]
    n = int(sys.argv[3]) if len(sys.argv) > 3 else 1000000
    with open(out, "w") as f:
        f.write('{"traceEvents":[\n')
        f.write(",\n".join(events(shape, n)))
        f.write("\n]}\n")


main()

#!/usr/bin/env python3
"""Reference p-values for tests/check/test_stats.c (check/stats.c), computed independently.

One-sided Mann-Whitney U test that y tends to be greater than x: U counts the pairs (x_i, y_j)
with y_j > x_i (a tie counts 1/2); p = P(U >= observed) under H0 (every assignment of the pooled
values to the two samples equally likely).

Exact p: by brute force, enumerating every choice of which pooled positions belong to y
(itertools.combinations), no recurrence. Normal approximation (for a tied sample, and for one
too large for the exact table): mean nx*ny/2, variance nx*ny/12 * ((N+1) - sum(t^3-t)/(N(N-1))),
continuity correction 0.5, p = 1 - Phi(z) = erfc(z / sqrt 2) / 2.
Run: python3 mwu_reference.py ; the figures it prints are pasted into test_stats.c.
"""
import itertools
import math
from collections import Counter


def u_stat(x, y):
    return sum(1.0 if b > a else 0.5 if b == a else 0.0 for a in x for b in y)


def exact_p(x, y):
    pooled = list(x) + list(y)
    obs = u_stat(x, y)
    n, k = len(pooled), len(y)
    hits = total = 0
    for ys in itertools.combinations(range(n), k):
        s = set(ys)
        yy = [pooled[i] for i in ys]
        xx = [pooled[i] for i in range(n) if i not in s]
        total += 1
        if u_stat(xx, yy) >= obs:
            hits += 1
    return hits, total


def normal_p(x, y):
    nx, ny = len(x), len(y)
    n = nx + ny
    u = u_stat(x, y)
    ties = sum(t ** 3 - t for t in Counter(list(x) + list(y)).values())
    var = nx * ny / 12.0 * ((n + 1) - ties / (n * (n - 1)))
    z = (u - nx * ny / 2.0 - 0.5) / math.sqrt(var)
    return u, 0.5 * math.erfc(z / math.sqrt(2.0))


EXACT = {
    "sep3": ([1, 2, 3], [4, 5, 6]),
    "sep5": ([1, 2, 3, 4, 5], [6, 7, 8, 9, 10]),
    "interleaved": ([1.0, 3.0, 5.0, 7.0], [2.0, 4.0, 6.0, 8.0, 9.0]),
    "steps": ([10.2, 11.5, 9.8, 10.9, 10.1, 10.4], [10.8, 11.9, 11.2, 10.3, 12.0, 11.1, 10.7]),
    "reversed": ([4, 5, 6], [1, 2, 3]),
}
NORMAL = {
    "tied": ([1, 2, 2, 3, 3, 3, 4, 5], [2, 3, 4, 4, 5, 5, 6, 6]),
    # 60 + 60: beyond the exact table (61*61*3601 cells > 1e7); no ties
    "large": ([2 * i for i in range(60)], [2 * i + 9 for i in range(60)]),
}

for name, (x, y) in EXACT.items():
    hits, total = exact_p(x, y)
    print(f"exact  {name}: U = {u_stat(x, y):g}, p = {hits}/{total} = {hits / total:.17g}")
for name, (x, y) in NORMAL.items():
    u, p = normal_p(x, y)
    print(f"normal {name}: U = {u:g}, p = {p:.17g}")

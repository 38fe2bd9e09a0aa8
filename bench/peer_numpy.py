#!/usr/bin/env python3
"""peer_numpy.py -- what a NumPy user writes first for the Liquid model with
condition C5 (Henrich, Table 1, Definition 1) on a torus, timed by
`lbtorus bench --peers` on the same grid as lbtorus.

usage: peer_numpy.py GRID.npy balanced|steps N BUDGET
Runs until max - min <= D (balanced) or N steps, but stops once BUDGET
seconds have passed; prints "steps seconds" (the stepping loop only)."""
import sys
import time

import numpy as np


def step(L):
    for ax in range(L.ndim):
        if L.shape[ax] < 2:
            continue
        cs = (L > 0) & (L >= np.roll(L, -1, axis=ax))  # C_i: shift to P_{i+1}
        L = L - cs + np.roll(cs, 1, axis=ax)            # ... and receive C_{i-1}
    return L


def main():
    path, mode, n, budget = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
    L = np.load(path).astype(np.int32)
    D = sum(1 for e in L.shape if e > 1)
    t0 = time.perf_counter()
    t = 0
    while t < n and time.perf_counter() - t0 < budget:
        if mode == "balanced" and int(L.max()) - int(L.min()) <= D:
            break
        L = step(L)
        t += 1
    print(t, time.perf_counter() - t0)


if __name__ == "__main__":
    main()

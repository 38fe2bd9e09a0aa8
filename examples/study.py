#!/usr/bin/env python3
"""study.py — two load-balancing studies through the Python module lbtorus
(docs/python.md), each a few lines:

1. T against K, worst case: LM-C5 (Henrich's Liquid model) balancing all the
   load on one PE (`worst:5`) on K×K tori, and the power law T ≈ a·K^b fitted
   by least squares on log T against log K (Henrich's bound is
   O(D·K·Ldiff) with Ldiff = 5·K² here; the runs grow as K²).
2. Steady-state variance under Cybenko's Poisson arrivals and unit service
   (`cybenko:poisson:1:1`) on a 32×32 torus, LM-C5 against NNA: sqdev_mean
   (the mean of ||w − w̄||² over the steps after the warm-up) per seed, and
   its time series from the trace.

The tests (tests/test_python.py) run this script and compare what it prints
with the `lbtorus` CLI's numbers for the same runs.

usage: study.py [--ks 8,16,32] [--steps 400] [--warmup 100] [--seeds 1,2,3] [--threads N]
"""
import argparse

import numpy as np

import lbtorus


def t_against_k(ks, threads=None):
    """[(K, balanced_step)] for LM-C5 from worst:5 on K×K, and the fit (a, b) of T = a·K^b."""
    rows = []
    for k in ks:
        sim = lbtorus.run(shape=(k, k), method='lm-c5', init='worst:5', until='balanced', threads=threads)
        rows.append((k, sim.summary()['balanced_step']))
    k, t = np.array(rows, dtype=float).T
    b, log_a = np.polyfit(np.log(k), np.log(t), 1)
    return rows, float(np.exp(log_a)), float(b)


def steady_variance(method, seed, steps, warmup, shape=(32, 32), threads=None):
    """One dynamic run from an empty torus: its record (sqdev_mean, generated,
    completed, ...) and its trace (the sqdev time series)."""
    sim = lbtorus.run(shape=shape, method=method, init='const:0', workload='cybenko:poisson:1:1',
                      until='steps:%d' % steps, warmup=warmup, seed=seed, threads=threads, trace=True)
    return sim.summary(), sim.trace


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('--ks', default='8,16,32')
    ap.add_argument('--steps', type=int, default=400)
    ap.add_argument('--warmup', type=int, default=100)
    ap.add_argument('--seeds', default='1,2,3')
    ap.add_argument('--threads', type=int)
    o = ap.parse_args()
    rows, a, b = t_against_k([int(k) for k in o.ks.split(',')], o.threads)
    for k, t in rows:
        print('T(K=%d) = %d steps' % (k, t))
    print('fit: T = %.4f * K^%.4f' % (a, b))
    for method in ('lm-c5', 'nna'):
        means = []
        for seed in (int(s) for s in o.seeds.split(',')):
            rec, trace = steady_variance(method, seed, o.steps, o.warmup, threads=o.threads)
            means.append(rec['sqdev_mean'])
            late = trace['sqdev'][trace['step'] > o.warmup]
            print('%s seed %d: sqdev_mean %r (se %.4g, over %d steps; the trace\'s mean %.9g)'
                  % (method, seed, rec['sqdev_mean'], rec['sqdev_se'], rec['sqdev_steps'], late.mean()))
        print('%s: sqdev_mean over %d seeds %.6g' % (method, len(means), np.mean(means)))


if __name__ == '__main__':
    main()

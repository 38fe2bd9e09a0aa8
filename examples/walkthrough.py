#!/usr/bin/env python3
"""walkthrough.py — a notebook-style tour of the Python module lbtorus
(docs/python.md): each "# %%" cell runs in an editor's cell mode (VS Code,
Spyder, Jupytext) or as a whole script, and prints what it found.

The cells: the registries; Henrich's Liquid model (LM-C5) from the worst case
on a K x K torus, with Theorem 3's bound D*K*Ldiff beside the steps it took;
stepping a run and reading its loads as a NumPy array (the total conserved);
writing a field back; a dynamic run under Cybenko's Poisson arrivals with a
callback per step and the trace as a structured array (total after = before
+ generated - completed, step by step); and a small sweep read back as a
list of records. The tests run it (tests/test_python.py) and check its
numbers against the lbtorus CLI's.

usage: walkthrough.py [--k 32] [--steps 200] [--threads N] [--out DIR]
"""
import argparse
import os
import tempfile

import numpy as np

import lbtorus

parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
parser.add_argument('--k', type=int, default=32, help='side of the K x K torus (default 32)')
parser.add_argument('--steps', type=int, default=200, help='steps of the dynamic run (default 200)')
parser.add_argument('--threads', type=int, default=None, help='threads per run (default: all cores)')
parser.add_argument('--out', default=None, help='directory for the sweep\'s results (default: a temporary one)')
args = parser.parse_args()
K, threads = args.k, args.threads

# %% The registries: every method and workload, with its parameters' schema.
methods = lbtorus.methods()
print('methods:', ', '.join(m['name'] for m in methods))
fos = next(m for m in methods if m['name'] == 'fos')
print('fos parameters:', ', '.join('%s (default %s)' % (p['name'], p['default']) for p in fos['params']))
print('workloads:', ', '.join(w['usage'] for w in lbtorus.workloads()))

# %% Henrich's worst case: all the load on one PE (worst:5 puts 5 per PE
# there), LM-C5 until balanced (max - min <= D). Theorem 3 bounds the steps
# by D*K*Ldiff; the record carries both.
sim = lbtorus.run(shape=(K, K), method='lm-c5', init='worst:5', until='balanced', threads=threads)
rec = sim.summary()
print('LM-C5 worst:5 on %dx%d: balanced at step %d, D*K*Ldiff = %d' % (K, K, rec['balanced_step'], rec['dkl_bound']))

# %% Stepping and reading the loads: a NumPy array, copied once (out= reuses
# one array from step to step). The total never changes without a workload.
sim = lbtorus.Sim(shape=(K, K), method='nna', init='uniform:0:100', seed=3, threads=threads)
loads = sim.read()
total0 = int(loads.sum())
for _ in range(5):
    sim.step(10)
    sim.read(out=loads)
print('NNA: after %d steps max - min = %d, total %d (at the start %d)' % (sim.steps_taken, loads.max() - loads.min(),
                                                                        loads.sum(), total0))

# %% Writing a field back: a hand-made start, here a single column of load.
start = np.zeros((K, K), dtype=np.int32)
start[:, 0] = 4 * K
sim = lbtorus.Sim(shape=(K, K), method='lm-c5', threads=threads)
sim.write(start)
sim.run()
print('LM-C5 from one loaded column: stopped (%s) at step %d' % (sim.summary()['stop_reason'], sim.steps_taken))

# %% A dynamic run: Cybenko's Poisson arrivals (mean 1) and one completion
# per PE and step, NNA balancing; a callback sees every step's record, and
# the trace is a structured array with --trace's columns.
seen = []
sim = lbtorus.run(shape=(K, K), method='nna', init='const:0', workload='cybenko:poisson:1:1',
                  until='steps:%d' % args.steps, warmup=args.steps // 4, seed=1, threads=threads, trace=True,
                  callback=lambda r: seen.append(r['sqdev']))
t = sim.trace
conserved = bool(np.all(t['total'][1:] == t['total'][:-1] + t['generated'][1:] - t['completed'][1:]))
rec = sim.summary()
print('NNA under cybenko:poisson:1:1: sqdev_mean %r over %d steps, conserved at every step: %s, callbacks %d'
      % (rec['sqdev_mean'], rec['sqdev_steps'], conserved, len(seen)))

# %% A sweep: a spec file (docs/usage.md, "Spec files"), its records appended
# to a results file (a later call resumes), read back as dicts (a pandas
# DataFrame when pandas is installed and frame is not False).
out = args.out or tempfile.mkdtemp(prefix='lbtorus-walkthrough-')
spec = os.path.join(out, 'walk.spec')
with open(spec, 'w') as f:
    f.write('shape = 8x8,16x16\nmethod = lm-c5,nna\ninit = uniform:0:50\nseed = 1..2\n')
records = lbtorus.sweep(spec, os.path.join(out, 'walk.jsonl'), threads=1, frame=False)
for r in sorted(records, key=lambda r: (r['shape'], r['method'], r['seed'])):
    print('sweep: %s %s seed %d: balanced at step %s' % (r['shape'], r['method'], r['seed'], r['balanced_step']))

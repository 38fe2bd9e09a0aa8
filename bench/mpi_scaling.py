#!/usr/bin/env python3
"""mpi_scaling.py — weak and strong scaling of one torus cut between MPI
ranks, each rank's compute, halo bytes and waits, and a model fitted to them
that predicts a run on a cluster (issue 28; docs/performance.md, "MPI
scaling", states the assumptions).

Every run is `mpirun -np R lbtorus run --threads 1 ...` with
LBTORUS_COMM_STATS set: each rank reports its run's seconds, its halo fills
(messages and bytes sent, seconds in them and of those waiting in
MPI_Waitall; the fills overlapped with the interior's step, whose wait is
what the interior did not cover) and its other collectives (count,
seconds). One rank runs cut too (LBTORUS_CUT=1: the same code paths, its
halo filled from itself). Compute is a rank's seconds minus its halo and
collective seconds.

    weak:   the torus grows with the ranks (each of WEAK: a rank's block, the first axis growing)
    strong: one torus (each of STRONG) over 1..R ranks
    blocks: tori of 2, 3 and 4 axes on given Cartesian grids of ranks (--ranks
            AxBx...: slabs and blocks of the same torus), each rank's halo bytes
            measured beside the model's

The model of one step on one rank:

    t_step = max(c * PEs_per_rank / threads,                compute: the cores' rate,
                 8 B * PEs_per_rank / memory_bandwidth)      or the node's memory (a PE read and written once)
           + fills * cut_axes * 2 * alpha                    a halo fill of a cut axis waits on two neighbours
           + halo_bytes / bandwidth                          the layers sent per step
           + collectives * alpha * ceil(log2 R)              each all-reduce a tree of R ranks

    halo_bytes = 4 B * sum over cut axes d of 2 sides * 2 layers * face_d,
    face_d = prod over e != d of the block's extent on e (+ 4, the halo of a cut
             axis e < d: a layer carries the corners)

(the program's own measure of a grid, lbt_cut_grid, which picks the grid
with the least of it). Overlapped (the Liquid model's vector kernel on a
slab, one step an exchange: its fill started, the interior stepped, the
fill finished, the rim of 3 layers stepped), the halo's part hides behind
the interior's compute:

    t_step = t_compute * 3 / n + max(t_compute * (n - 3) / n, t_halo) + t_collectives

with n the slab's layers (blocks of several cut axes are not overlapped);
this assumes the messages progress while the rank computes (a network that
moves them without the CPU, or MPI's progress thread), which Open MPI over
shared memory does only inside MPI calls. c (seconds per PE-step) is fitted from the one-rank
runs: c_fused with the method's vector kernel, c_ref with --isa scalar
(the Liquid model's vector kernel steps slabs and blocks whose last axis is
whole; on a block that cuts the rows its ranks run the reference); fills per cut axis and
collectives per step are counted in the runs on 2 or more ranks (they
depend on the method, not on the size);
alpha (latency) and bandwidth are the target network's, given as
parameters. On this machine the same model is fitted (alpha and 1/bandwidth
by least squares over every rank of every run on 2+ ranks, with two probes
that set them apart: a 4x64 torus, all latency, and an 8x131072 one, whose
layers are 512 KiB) to say how well
its form describes what was measured: with more ranks than cores a wait is
a wait for the scheduler, so the local alpha is the scheduler's, not a
network's.

--check makes it a test: exit 1 unless every rank 0 of a run on 2+ ranks sent
the halo bytes the model counts (the grid's faces, above), every run on 2+
ranks made fills, every run on one rank sent nothing, and every rank of the
Liquid model's runs on slabs of 3 and more axes at least 4 layers thick
overlapped every fill with its interior (2-D slabs of small loads take the
byte copy, whose fill is not overlapped).

usage: mpi_scaling.py LBTORUS [--mpirun M] [--ranks 1,2,3,4] [--steps N] [--weak SHAPE,...] [--strong SHAPE,...]
                      [--blocks SHAPE:GRID,...] [--method lm-c5] [--repeat K] [--nodes 64] [--threads 32]
                      [--memory-bandwidth 200e9] [--latency 2e-6] [--bandwidth 12.5e9]
                      [--target 100000x100000,2155x2155x2155,317x317x317x317] [--init uniform:0:9]
                      [--json FILE] [--check]
"""
import argparse
import json
import math
import os
import subprocess
import sys
import tempfile

ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT='1', OMPI_ALLOW_RUN_AS_ROOT_CONFIRM='1',
           OMPI_MCA_rmaps_base_oversubscribe='1', OMPI_MCA_btl_vader_single_copy_mechanism='none')


def shape_of(text):
    return [int(x) for x in text.split('x')]


def halo_cells(ext, nr):
    """Halo cells a block sends per fill round on the grid nr (lbt_cut_grid's measure)."""
    cells = 0
    for d in range(len(ext)):
        if nr[d] < 2:
            continue
        face = 4
        for e in range(len(ext)):
            if e != d:
                face *= -(-ext[e] // nr[e]) + (4 if nr[e] > 1 and e < d else 0)
        cells += face
    return cells


def grid_of(R, ext, vector=False):
    """The grid of R ranks with the least halo, as the program chooses it (ties: fewer cut
    axes, then the outer axes cut more; the last axis cut only if no grid leaves it whole).
    vector: of the grids whose blocks the Liquid model's vector kernel steps (the first axis
    with links cut, the last whole; lbt_cut_grid_vector), None if there is none."""
    best = None
    first = 0
    while first < len(ext) - 1 and ext[first] < 2:
        first += 1

    def walk(d, n, left, nr):
        nonlocal best
        if d == n:
            if left == 1 and (not vector or R == 1 or nr[first] > 1):
                nr = nr + [1] * (len(ext) - n)
                key = (halo_cells(ext, nr), sum(k > 1 for k in nr), [-k for k in nr])
                if best is None or key < best[0]:
                    best = (key, nr)
            return
        for k in range(1, left + 1):
            if left % k == 0 and (k == 1 or k <= ext[d]):
                walk(d + 1, n, left // k, nr + [k])

    if vector and (len(ext) < 2 or first == len(ext) - 1):
        return None
    walk(0, max(1, len(ext) - 1), R, [])
    if best is None and not vector:
        walk(0, len(ext), R, [])
    return best and best[1]


def chosen_grid(method, R, ext, isa):
    """The grid the program cuts a torus on without --ranks (src/exec/state.c, ranks_of): for the Liquid
    model's vector kernel the least halo of the grids it steps (the first axis with links cut, the last
    whole), else (and where it has none) the grid with the least halo."""
    if method.startswith('lm-') and isa != 'scalar':
        nr = grid_of(R, ext, vector=True)
        if nr:
            return nr
    return grid_of(R, ext)


def run(a, ranks, shape, tmp, steps=None, grid=None, isa=None):
    """The best (fastest) of a.repeat runs: the tally of every rank."""
    best, steps = None, steps or a.steps
    for _ in range(a.repeat):
        stats = os.path.join(tmp, 'stats.json')
        env = dict(ENV, LBTORUS_COMM_STATS=stats, LBTORUS_CUT='1')
        cmd = [a.mpirun, '--oversubscribe', '--bind-to', 'none', '-np', str(ranks), a.lbtorus, 'run',
               '--shape', 'x'.join(map(str, shape)), '--method', a.method, '--init', a.init,
               '--until', f'steps:{steps}', '--max-steps', str(steps), '--threads', '1', '--quiet',
               '--json', os.devnull] + (['--ranks', grid] if grid else []) + (['--isa', isa] if isa else [])
        p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=900)
        if p.returncode:
            sys.exit(f'mpi_scaling: {" ".join(cmd)}: exit {p.returncode}: {p.stderr.strip()}')
        t = json.load(open(stats))
        if best is None or max(t['seconds']) < max(best['seconds']):
            best = t
    best['shape'] = shape
    best['grid'] = grid or 'x'.join(map(str, chosen_grid(a.method, ranks, shape, isa)))
    return best


def per_rank(t):
    """Per rank and step: compute s, halo bytes, messages, halo s, wait s, overlapped fills, collectives,
    collective s."""
    S = t['steps']
    rows = []
    for r in range(t['ranks']):
        comm = t['halo_seconds'][r] + t['collective_seconds'][r]
        rows.append({'rank': r, 'pes': t['pes'][r], 'seconds': t['seconds'][r],
                     'compute': (t['seconds'][r] - comm) / S, 'fills': t['fills'][r] / S,
                     'messages': t['halo_messages'][r] / S, 'bytes': t['halo_bytes'][r] / S,
                     'halo': t['halo_seconds'][r] / S, 'wait': t['halo_wait_seconds'][r] / S,
                     'overlapped': t.get('overlapped_fills', [0] * t['ranks'])[r] / S,  # none before (0.2.0)
                     'collectives': t['collectives'][r] / S, 'collective': t['collective_seconds'][r] / S})
    return rows


def table(title, runs):
    print(f'\n{title}')
    print('| ranks | shape | grid | rank | PEs | compute ms/step | halo KiB/step | model KiB/step | msgs/step | '
          'halo ms/step | wait ms/step | overlapped/step | collectives/step | collective ms/step | run s |')
    print('|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|')
    for t in runs:
        model = model_bytes(t)
        for x in per_rank(t):
            print(f"| {t['ranks']} | {'x'.join(map(str, t['shape']))} | {t['grid']} | {x['rank']} | {x['pes']} | "
                  f"{1e3 * x['compute']:.3f} | {x['bytes'] / 1024:.1f} | {model / 1024:.1f} | {x['messages']:.0f} | "
                  f"{1e3 * x['halo']:.3f} | {1e3 * x['wait']:.3f} | {x['overlapped']:.1f} | {x['collectives']:.1f} | "
                  f"{1e3 * x['collective']:.3f} | "
                  f"{x['seconds']:.3f} |")


def model_bytes(t):
    """The model's halo bytes per step of rank 0 of a run (4-byte loads, one fill of each cut axis;
    nothing on one rank: its fill is a copy)."""
    nr = [int(k) for k in t['grid'].split('x')]
    return 0 if t['ranks'] == 1 else 4 * halo_cells(t['shape'], nr)


def lstsq2(xs, ys):
    """Non-negative least squares of y = p*x0 + q*x1 (two unknowns, by hand)."""
    a = sum(x[0] * x[0] for x in xs)
    b = sum(x[0] * x[1] for x in xs)
    d = sum(x[1] * x[1] for x in xs)
    u = sum(x[0] * y for x, y in zip(xs, ys))
    v = sum(x[1] * y for x, y in zip(xs, ys))
    det = a * d - b * b
    p, q = ((d * u - b * v) / det, (a * v - b * u) / det) if det else (0.0, 0.0)
    if p < 0 or q < 0:  # the better of the two alone
        p1, q1 = max(u / a, 0.0) if a else 0.0, max(v / d, 0.0) if d else 0.0
        e1 = sum((y - p1 * x[0]) ** 2 for x, y in zip(xs, ys))
        e2 = sum((y - q1 * x[1]) ** 2 for x, y in zip(xs, ys))
        p, q = (p1, 0.0) if e1 <= e2 else (0.0, q1)
    return p, q


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('lbtorus')
    ap.add_argument('--mpirun', default='mpirun')
    ap.add_argument('--ranks', default='1,2,3,4')
    ap.add_argument('--steps', type=int, default=200)
    ap.add_argument('--weak', default='256x2048,16x128x128',
                    help='the blocks of one rank (the first axis grows with the ranks), 2-D and 3-D')
    ap.add_argument('--strong', default='1024x2048,64x128x128', help='tori run on each rank count, 2-D and 3-D')
    ap.add_argument('--blocks', default='512x512:4x1,512x512:2x2,64x64x64:4x1x1,64x64x64:2x2x1,'
                    '16x16x16x16:4x1x1x1,16x16x16x16:2x2x1x1',
                    help='SHAPE:GRID runs, slabs and blocks of the same tori')
    ap.add_argument('--method', default='lm-c5')
    ap.add_argument('--repeat', type=int, default=3)
    ap.add_argument('--nodes', type=int, default=64)
    ap.add_argument('--threads', type=int, default=32, help='cores (threads) per node on the target')
    ap.add_argument('--memory-bandwidth', type=float, default=200e9, help='the target node, bytes per second')
    ap.add_argument('--latency', type=float, default=2e-6, help='the target network, seconds per message')
    ap.add_argument('--bandwidth', type=float, default=12.5e9, help='the target network, bytes per second per rank')
    ap.add_argument('--target', default='100000x100000,2155x2155x2155,317x317x317x317')
    ap.add_argument('--init', default='uniform:0:9', help='the loads (uniform:0:100000: int32 rows, not the byte copy)')
    ap.add_argument('--json')
    ap.add_argument('--check', action='store_true', help='exit 1 if the halo bytes differ from the model\'s')
    a = ap.parse_args()
    ranks = [int(r) for r in a.ranks.split(',')]
    weak, strong = [shape_of(w) for w in a.weak.split(',')], [shape_of(t) for t in a.strong.split(',')]
    blocks = [(shape_of(b.split(':')[0]), b.split(':')[1]) for b in a.blocks.split(',') if b]
    with tempfile.TemporaryDirectory() as tmp:
        weak_runs = [run(a, R, [w[0] * R] + w[1:], tmp) for w in weak for R in ranks]
        strong_runs = [run(a, R, t, tmp) for t in strong for R in ranks]
        block_runs = [run(a, math.prod(int(k) for k in g.split('x')), sh, tmp, grid=g) for sh, g in blocks]
        ref_run = run(a, 1, strong[0], tmp, isa='scalar')  # the reference's rate: what blocks cutting the rows run
        # probes for the fit: latency (2 rows per rank, nothing to compute) and bandwidth (rows of 2^17 PEs)
        probes = [run(a, 2, [4, 64], tmp, steps=10 * a.steps), run(a, 2, [8, 1 << 17], tmp)]
    print(f'{a.method}, {a.init}, {a.steps} steps, 1 thread per rank, best of {a.repeat}; '
          f'{os.cpu_count()} cores here, ranks oversubscribed beyond them')
    table('weak scaling (the torus grows with the ranks)', weak_runs)
    table('strong scaling (one torus)', strong_runs)
    table('slabs and blocks (grids of ranks given with --ranks): halo bytes measured and modelled', block_runs)
    table('the reference kernel on one rank (--isa scalar)', [ref_run])
    table('probes of latency (4x64) and bandwidth (8x131072) for the fit', probes)

    # compute per PE-step, from the one-rank runs: the vector kernel's, the reference's
    ones = [x for t in weak_runs + strong_runs if t['ranks'] == 1 for x in per_rank(t)]
    c = min(x['compute'] / x['pes'] for x in ones)
    c_ref = per_rank(ref_run)[0]['compute'] / per_rank(ref_run)[0]['pes']
    many = [(t, x) for t in weak_runs + strong_runs + block_runs + probes if t['ranks'] > 1 for x in per_rank(t)]
    cut_axes = lambda t: max(1, sum(int(k) > 1 for k in t['grid'].split('x')))
    fills = max(x['fills'] / cut_axes(t) for t, x in many)
    # collectives per step: with the vector kernel (it counts the step's statistics), and on blocks that cut
    # the rows (the reference does not: the engine reduces them in a pass of its own)
    rows_cut = lambda t: int(t['grid'].split('x')[-1]) > 1
    colls = max(x['collectives'] for t, x in many if not rows_cut(t))
    colls_ref = max([x['collectives'] for t, x in many if rows_cut(t)] or [colls])
    worst = max(abs(x['bytes'] - model_bytes(t)) / model_bytes(t) for t, x in many if x['rank'] == 0)
    # the same form fitted here: comm seconds per step = alpha * (2 fills + collectives * ceil(log2 R)) + bytes / bw
    xs = [(2 * x['fills'] + x['collectives'] * math.ceil(math.log2(t['ranks'])), x['bytes']) for t, x in many]
    ys = [x['halo'] + x['collective'] for _, x in many]
    alpha_here, inv_bw_here = lstsq2(xs, ys)
    pred = [alpha_here * u + inv_bw_here * v for u, v in xs]
    mean = sum(ys) / len(ys)
    ss = sum((y - mean) ** 2 for y in ys)
    r2 = 1 - sum((y - p) ** 2 for y, p in zip(ys, pred)) / ss if ss else 1.0
    print(f'\nfitted: compute c = {c * 1e9:.3f} ns per PE-step with the vector kernel, {c_ref * 1e9:.3f} with the '
          f'reference (one rank); per step and rank: {fills:.0f} halo fills a cut axis, {colls:.0f} collectives '
          f'({colls_ref:.0f} on blocks cutting the rows); halo bytes of rank 0 within {worst:.0%} of the model')
    print(f'this machine: alpha = {alpha_here * 1e6:.1f} us, bandwidth = '
          f'{(1 / inv_bw_here / 1e9 if inv_bw_here else float("inf")):.2f} GB/s (R^2 = {r2:.2f} over {len(ys)} ranks)')

    print(f'\nprediction: {a.nodes} nodes, one rank of {a.threads} threads each, {a.memory_bandwidth / 1e9:g} GB/s of '
          f'memory, latency {a.latency * 1e6:g} us, bandwidth {a.bandwidth / 1e9:g} GB/s; slabs along the first '
          f'axis, and the grid the program chooses (for the Liquid model the least halo of the grids its vector kernel '
          f'steps: the first axis cut, the last whole)')
    print('| torus | grid | PEs per rank | compute ms/step | halo MB/step | comm ms/step | step ms | comm / compute | '
          'site updates/s | step ms, overlapped | site updates/s, overlapped |')
    print('|---|---|---|---|---|---|---|---|---|---|---|')
    out = {'c': c, 'c_ref': c_ref, 'fills_per_axis': fills, 'collectives': colls, 'collectives_blocks': colls_ref,
           'halo_model_error': worst,
           'alpha_here': alpha_here, 'bandwidth_here': 1 / inv_bw_here if inv_bw_here else None, 'r2': r2,
           'predictions': []}
    for spec in a.target.split(','):
        ext = shape_of(spec)
        P = math.prod(ext)
        pes = P / a.nodes
        slab, best = [a.nodes] + [1] * (len(ext) - 1), chosen_grid(a.method, a.nodes, ext, None)
        rows = [(slab, c, colls, '')]
        if best != slab:
            rows += [(best, c, colls, ' (the vector kernel)') if best[-1] == 1 else
                     (best, c_ref, colls_ref, ' (the reference: the rows cut)')]
        for nr, cc, nc, what in rows:
            compute = max(cc * pes / a.threads, 8 * pes / a.memory_bandwidth)
            axes = sum(x > 1 for x in nr)
            halo = 4 * halo_cells(ext, nr)
            t_halo = fills * axes * 2 * a.latency + halo / a.bandwidth
            t_coll = nc * a.latency * math.ceil(math.log2(a.nodes))
            comm = t_halo + t_coll
            step = compute + comm
            # overlapped: a slab of the vector kernel (one cut axis, the rows whole) hides its halo behind the
            # interior (its layers but the rim's 3); blocks of more cut axes are not overlapped
            n = ext[0] / nr[0]
            inner = compute * max(n - 3, 0) / n if axes == 1 and nr[-1] == 1 and cc == c else 0
            step_ov = compute - inner + max(inner, t_halo) + t_coll
            grid = 'x'.join(map(str, nr)) + what
            print(f'| {spec} | {grid} | {pes:.3g} | {compute * 1e3:.2f} | {halo / 1e6:.2f} | {comm * 1e3:.2f} | '
                  f'{step * 1e3:.2f} | {comm / compute:.0%} | {P / step:.3g} | {step_ov * 1e3:.2f} | '
                  f'{P / step_ov:.3g} |')
            out['predictions'].append({'torus': spec, 'grid': nr, 'c': cc, 'compute': compute, 'halo_bytes': halo,
                                       'comm': comm, 'step': step, 'step_overlapped': step_ov})
    if a.json:
        out['weak'], out['strong'], out['blocks'], out['reference'], out['probes'] = \
            weak_runs, strong_runs, block_runs, ref_run, probes
        with open(a.json, 'w') as f:
            json.dump(out, f, indent=1)
    if a.check:
        bad = [f"{t['ranks']} ranks, {'x'.join(map(str, t['shape']))} on {t['grid']}: rank 0 sent "
               f"{per_rank(t)[0]['bytes']:g} bytes a step, the model {model_bytes(t)}"
               for t in weak_runs + strong_runs + block_runs + probes if per_rank(t)[0]['bytes'] != model_bytes(t)]
        bad += [f"{t['ranks']} ranks, {'x'.join(map(str, t['shape']))}: no halo fill" for t, x in many if not x['fills']]
        slabs = lambda t: [int(k) > 1 for k in t['grid'].split('x')] == [True] + [False] * (len(t['shape']) - 1)
        bad += [f"{t['ranks']} ranks, {'x'.join(map(str, t['shape']))} on {t['grid']}: rank {x['rank']} overlapped "
                f"{x['overlapped']:g} fills a step of {x['fills']:g}" for t, x in many
                if a.method.startswith('lm-') and len(t['shape']) >= 3 and slabs(t) and t['shape'][0] >= 4 * t['ranks']
                and x['overlapped'] != x['fills']]
        for b in bad:
            print('FAIL', b)
        return 1 if bad else 0
    return 0


if __name__ == '__main__':
    sys.exit(main())

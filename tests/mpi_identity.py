#!/usr/bin/env python3
"""mpi_identity.py — `mpirun -np N lbtorus run ...` equals one process, bit for bit.

For N = 1..4 ranks (oversubscribed: this runs on 2 cores) and every method
that runs cut and every workload, as `lbtorus info --json` lists them, on
awkward shapes (extents not divisible by N, D = 1..4, torus,
mesh and mixed boundaries), the --dump file, the --trace file and the JSON
record (timing aside) are compared with a run of the same
build started alone; so are runs with every workload (Cybenko's arrivals of
each distribution, Lüling and Monien's phases and generator, search trees
run until no node is left), whose conservation law (final total = initial
total + generated - completed) must hold exactly; so do deep halos
(LBTORUS_HALO=1, 2, 8: several Liquid-model steps between exchanges), whose
bad values are refused in one line. Besides: an extent below N is refused with one line
(exit 2), --verify on a cut torus too, a cycle is found on every rank at
the same step, a file: init is read into slabs. And `mpirun -np N lbtorus
sweep` spreads the runs over the ranks (the large ones cut between all
ranks) into one results file: the same records as one process (timing and
thread counts aside), resumable. A SIGTERM stops a run on every rank with
its summary written (exit 3; 1 when mpirun itself is signalled).

usage: mpi_identity.py LBTORUS MPIRUN
"""
import json
import os
import struct
import subprocess
import sys
import tempfile

LBT, MPIRUN = sys.argv[1], sys.argv[2]
ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT='1', OMPI_ALLOW_RUN_AS_ROOT_CONFIRM='1',
           OMPI_MCA_rmaps_base_oversubscribe='1', OMPI_MCA_btl_vader_single_copy_mechanism='none')
IGNORED = ('seconds', 'site_updates_per_second', 'ranks', 'command', 'date_utc') # timing; the provenance of the call

# Awkward shapes to run on, with a rank count each: extents not divisible by
# the ranks, D = 1..4, torus, mesh and mixed boundaries, axes of extent 1
# (no halo; a slab of one layer keeps the cut axis's, issue 14 item 12).
SHAPES = [
    ('7x5', 'torus', 3), ('10', 'mesh', 4), ('3x4x5', 'mesh', 3), ('2x3x2x3', 'torus', 2),
    ('5x1x6', 'torus,mesh,torus', 4), ('9x4', 'torus', 4), ('6x5', 'mesh', 3), ('11', 'torus', 4),
    ('5x4x3', 'mesh', 3), ('1x2x1x12', 'torus', 2), ('7x3', 'torus', 3), ('1x3x1x5', 'torus', 3),
    ('4x3x5', 'torus,mesh,torus', 4), ('1x7x5', 'mesh', 3), ('5x2x3', 'mesh', 4),
]


def registries():
    """The methods and workloads as the program lists them (lbtorus info --json)."""
    p = subprocess.run([LBT, 'info', '--json'], env=ENV, capture_output=True, text=True, timeout=60, check=True)
    return json.loads(p.stdout)


def registry_cases(reg):
    """Every method that runs cut (flag "cut") on two of the shapes, and every
    workload's example with two such methods whose loads it takes (one
    real-valued if it takes those; a search tree until no node is left),
    methods and shapes taken in turn: a new method or
    workload is checked here without an edit. Returns the cases and the
    methods that must be refused on a cut torus."""
    cut = [m for m in reg['methods'] if 'cut' in m['flags']]
    cases, k = [], 0
    for m in cut:
        for _ in range(2):
            shape, bnd, ranks = SHAPES[k % len(SHAPES)]
            cases.append((shape, bnd, m['name'], 'uniform:0:9', 'steps:12', ranks))
            k += 1
    turn = {'int': 0, 'real': 0}
    for w in reg['workloads']:
        for j in range(2):  # a real-valued method too where the workload takes one
            load = w['loads'][j % len(w['loads'])]
            takers = [m for m in cut if m['load'] == load]
            m = takers[turn[load] % len(takers)]
            turn[load] += 1
            shape, bnd, ranks = SHAPES[k % len(SHAPES)]
            init, until = ('const:0', 'done') if w['tasks'] else ('uniform:0:9', 'steps:20')
            cases.append((shape, bnd, m['name'], init, until, ranks, w['example']))
            k += 1
    return cases, [m['name'] for m in reg['methods'] if 'cut' not in m['flags']]


# Beyond the registries: kernels and paths a registry entry does not name.
# shape, boundary, method, init, until, ranks[, workload]
EXTRA = [
    ('7x5', 'torus', 'lm-c5', 'worst:3', 'balanced', 2),
    ('7x5', 'torus', 'lm-c5', 'uniform:0:9', 'steps:15', 1),
    ('10x32', 'torus', 'lm-c5', 'uniform:0:9', 'balanced', 4),    # the fused vector kernel, rows of whole vectors
    ('7x3x16', 'mesh', 'lm-c2', 'uniform:0:9', 'steps:20', 3),
    ('1x4x1x1x32', 'mesh,torus,torus,mesh,torus', 'lm-c5', 'uniform:0:9', 'steps:10', 4),
    ('10x32', 'torus', 'lm-c5', 'uniform:0:9', 'steps:20', 4, 'cybenko:poisson:2:2'),  # the vector row kernel
    # each of Cybenko's distributions (the integer row kernels, the real-valued chain)
    ('10', 'mesh', 'nna', 'uniform:0:9', 'steps:20', 4, 'cybenko:uniform:0:3:1'),
    ('5x4x3', 'torus', 'fos-int', 'uniform:0:9', 'steps:15', 2, 'cybenko:bernoulli:0.4:1'),
    ('11', 'torus', 'fos', 'uniform:0:9', 'steps:20', 3, 'cybenko:exp:1:1'),
    ('9', 'torus', 'de', 'uniform:0:9', 'steps:15', 4, 'cybenko:normal:1:0.5:1'),
]


# Deep halos (issue 28): LBTORUS_HALO=K steps between halo exchanges, each
# case for K = 1, 2 and 8: byte- and int32-sized loads, tori and meshes, 2-D
# and 3-D, slabs thinner than the halo, a fixed number of steps (several a
# call) and to balanced (one a call).
HALO = [
    ('10x32', 'torus', 'lm-c5', 'uniform:0:9', 'steps:40', 4),
    ('12x16', 'mesh', 'lm-c2', 'uniform:0:100000', 'steps:30', 3),
    ('9x4x16', 'torus', 'lm-c5', 'worst:3', 'steps:25', 2),
    ('7x5x8', 'mesh', 'lm-c3', 'uniform:0:9', 'steps:33', 4),
    ('8x32', 'torus', 'lm-c5', 'worst:3', 'balanced', 3),
]
HALO_STEPS = (1, 2, 8)


def run(tmp, tag, ranks, args, env=None):
    out = {k: os.path.join(tmp, f'{tag}.{k}') for k in ('json', 'csv', 'npy')}
    cmd = [LBT, 'run'] + args + ['--threads', '1', '--quiet', '--json', out['json'], '--trace', out['csv'],
                                 '--dump', out['npy']]
    if ranks:
        cmd = [MPIRUN, '--oversubscribe', '-np', str(ranks)] + cmd
    p = subprocess.run(cmd, env=env or ENV, capture_output=True, text=True, timeout=120)
    return p, out


def npy_sum(path):
    """The sum of an int32 or float64 .npy file's values."""
    data = open(path, 'rb').read()
    hlen = struct.unpack('<H', data[8:10])[0]
    header, body = data[10:10 + hlen].decode(), data[10 + hlen:]
    code = 'i' if "'<i4'" in header else 'd'
    return sum(struct.unpack(f'<{len(body) // struct.calcsize(code)}{code}', body))


def compare(tmp, i, case, halo=None):
    shape, bnd, method, init, until, ranks = case[:6]
    env = dict(ENV, LBTORUS_HALO=str(halo)) if halo else None
    args = ['--shape', shape, '--boundary', bnd, '--method', method, '--init', init, '--until', until,
            '--max-steps', '200']
    if len(case) > 6:
        args += ['--workload', case[6]]
    one, a = run(tmp, f'{i}s', 0, args)
    many, b = run(tmp, f'{i}m', ranks, args, env)
    what = f'{method} {shape} {bnd} {init} {until} {" ".join(case[6:])} on {ranks} ranks'
    if halo:
        what += f' (LBTORUS_HALO={halo})'
    if one.returncode != many.returncode:
        return f'{what}: exit {one.returncode} alone, {many.returncode} under MPI: {many.stderr.strip()}'
    for k in ('csv', 'npy'):
        body = [open(x[k], 'rb').read() for x in (a, b)]
        if k == 'csv':  # the rows, after the provenance header (which names the ranks and the command)
            body = [b''.join(line for line in x.splitlines(True) if not line.startswith(b'#')) for x in body]
        if body[0] != body[1]:
            return f'{what}: the {k} files differ ({a[k]}, {b[k]})'
    ja, jb = (json.load(open(x['json'])) for x in (a, b))
    for k in IGNORED:
        ja.pop(k, None)
        jb.pop(k, None)
    if ja != jb:
        diff = {k: (ja.get(k), jb.get(k)) for k in set(ja) | set(jb) if ja.get(k) != jb.get(k)}
        return f'{what}: the JSON records differ: {diff}'
    if 'workload' in jb and not jb['real']:
        total = npy_sum(b['npy'])
        if total != jb['total'] + jb['generated'] - jb['completed']:
            return f'{what}: {total} after {jb["total"]} + {jb["generated"]} - {jb["completed"]}'
        if until == 'done' and (total != 0 or not jb['reached']):
            return f'{what}: the search did not end'
    return None


def expect_refusal(tmp, ranks, args, words, env=None):
    p = subprocess.run([MPIRUN, '--oversubscribe', '-np', str(ranks), LBT, 'run'] + args + ['--quiet', '--json',
                       os.path.join(tmp, 'refused.json')], env=env or ENV, capture_output=True, text=True, timeout=120)
    lines = [l for l in p.stderr.splitlines() if l.startswith('lbtorus:')]
    if p.returncode != 2 or len(lines) != 1 or words not in lines[0]:
        return f'{args} on {ranks} ranks: want exit 2 and one line with "{words}", got {p.returncode}: {p.stderr!r}'
    return None


def same_failure(tmp, ranks, args):
    """A failure inside a step on some ranks only stops every rank, with one process's message."""
    lines = []
    for cmd in ([LBT, 'run'], [MPIRUN, '--oversubscribe', '-np', str(ranks), LBT, 'run']):
        p = subprocess.run(cmd + args + ['--quiet', '--json', os.path.join(tmp, 'failed.json')], env=ENV,
                           capture_output=True, text=True, timeout=120)
        mine = [l for l in p.stderr.splitlines() if l.startswith('lbtorus:')]
        if p.returncode != 2 or len(mine) != 1:
            return f'{args} ({cmd[0]}): want exit 2 and one line, got {p.returncode}: {p.stderr!r}'
        lines.append(mine[0])
    return None if lines[0] == lines[1] else f'{args}: {lines[0]!r} alone, {lines[1]!r} on {ranks} ranks'


def write_npy(path, rows, cols, values):
    header = f"{{'descr': '<i4', 'fortran_order': False, 'shape': ({rows}, {cols}), }}"
    header += ' ' * (-(10 + len(header) + 1) % 64) + '\n'  # magic, version, length, header: 64-byte aligned
    with open(path, 'wb') as f:
        f.write(b'\x93NUMPY\x01\x00' + struct.pack('<H', len(header)) + header.encode())
        f.write(struct.pack(f'<{len(values)}i', *values))


SWEEP = ['--method', 'lm-c5,nna,fos,de-int', '--shape', '8x8,ring:5..9', '--init', 'worst:3', '--quiet']
# the 8x8 runs with a workload are cut between all ranks too
SWEEP_WL = ['--method', 'lm-c5,nna', '--shape', '8x8,ring:7', '--init', 'const:0', '--until', 'steps:30',
            '--workload', 'cybenko:poisson:1:1,gw:2:0.45:10', '--quiet']


def records(path):
    """Run key -> record without timing and threads; fails on a repeated key."""
    out = {}
    for line in open(path):
        r = json.loads(line)
        for k in ('seconds', 'site_updates_per_second', 'threads', 'ranks', 'command', 'date_utc'):
            r.pop(k)
        assert r['run_key'] not in out, f'{path}: {r["run_key"]} twice'
        out[r['run_key']] = r
    return out


def sweep(tmp, spec, tag):
    one, many = os.path.join(tmp, f'{tag}one.jsonl'), os.path.join(tmp, f'{tag}many.jsonl')
    p = subprocess.run([LBT, 'sweep', '--results', one, '--seed', '1,2', '--jobs', '1'] + spec, env=ENV,
                       capture_output=True, text=True, timeout=120)
    if p.returncode:
        return f'serial sweep: exit {p.returncode}: {p.stderr}'
    # half on 3 ranks, then the rest resumed on 2 ranks: only the missing runs; the 8x8 runs
    # (--solo-pes 64) go over all ranks, cut, the rings one per rank
    for ranks, seeds in ((3, '1'), (2, '1,2')):
        p = subprocess.run([MPIRUN, '--oversubscribe', '-np', str(ranks), LBT, 'sweep', '--results', many,
                            '--seed', seeds, '--solo-pes', '64'] + spec, env=ENV, capture_output=True, text=True,
                           timeout=120)
        if p.returncode:
            return f'sweep on {ranks} ranks: exit {p.returncode}: {p.stderr}'
    a, b = records(one), records(many)
    if a != b:
        return f'the sweeps differ: {len(a)} runs alone, {len(b)} under MPI, ' \
               f'{sum(a[k] != b.get(k) for k in a)} records differ'
    return None


def signalled(tmp, to_ranks):
    """Issue 31, item 14 (docs/usage.md, "Signals under MPI"): SIGTERM stops
    every rank at one step and rank 0 writes the interrupted summary; the
    job's status is rank 0's, 3, when the ranks get the signal, but 1 when
    mpirun does (Open MPI then reports the job as aborted)."""
    import signal
    import time
    out = os.path.join(tmp, f'sig{int(to_ranks)}.json')
    p = subprocess.Popen([MPIRUN, '--oversubscribe', '-np', '2', LBT, 'run', '--shape', '4096x4096', '--init', 'worst:5',
                          '--threads', '1', '--json', out], env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                         text=True)
    time.sleep(4)
    with open(f'/proc/{p.pid}/task/{p.pid}/children') as f:
        ranks = [int(x) for x in f.read().split()]
    for pid in ranks if to_ranks else [p.pid]:
        os.kill(pid, signal.SIGTERM)
    _, err = p.communicate(timeout=60)
    want = 3 if to_ranks else 1
    if p.returncode != want or len(ranks) != 2:
        return f'SIGTERM to {"the ranks" if to_ranks else "mpirun"}: exit {p.returncode}, want {want} ({err})'
    with open(out) as f:
        rec = json.load(f)
    if rec['stop_reason'] != 'interrupted' or rec['steps'] < 1:
        return f'SIGTERM to {"the ranks" if to_ranks else "mpirun"}: stop_reason {rec["stop_reason"]}, steps {rec["steps"]}'
    return None


def main():
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        cases, uncut = registry_cases(registries())
        for i, case in enumerate(cases + EXTRA):
            failures.append(compare(tmp, i, case))
        # a file: init cut into slabs
        _, a = run(tmp, 'src', 0, ['--shape', '9x5', '--init', 'uniform:0:7', '--until', 'steps:3', '--max-steps', '3'])
        failures.append(compare(tmp, 'file', ('9x5', 'torus', 'nna', 'file:' + a['npy'], 'steps:8', 3)))
        # a cycle (lm-c0 never balances the worst case) is found on every rank at the same step: exit 3
        failures.append(compare(tmp, 'cycle', ('8x8', 'torus', 'lm-c0', 'worst:5', 'balanced', 3)))
        for k in HALO_STEPS:
            for i, case in enumerate(HALO):
                failures.append(compare(tmp, f'halo{k}_{i}', case, k))
        for bad in ('0', '17', 'two'):
            failures.append(expect_refusal(tmp, 2, ['--shape', '8x8'], 'LBTORUS_HALO', dict(ENV, LBTORUS_HALO=bad)))
        failures.append(expect_refusal(tmp, 4, ['--shape', '3x4'], 'cannot be cut into 4 slabs'))
        failures.append(expect_refusal(tmp, 2, ['--shape', '8x8', '--verify'], '--verify runs on one process only'))
        for m in uncut:
            failures.append(expect_refusal(tmp, 2, ['--shape', '8x8', '--method', m], 'runs on one process only'))
        failures.append(expect_refusal(tmp, 3, ['--shape', '6x5', '--workload', 'tree:2:3', '--init', 'const:1'],
                                       'a search starts on an empty machine'))
        # rows 2 and 3 of 4 near 2^31-1: arrivals overflow a PE on the last ranks only
        high = os.path.join(tmp, 'high.npy')
        write_npy(high, 4, 3, [0] * 6 + [2147483000] * 6)
        failures.append(same_failure(tmp, 4, ['--init', 'file:' + high, '--method', 'none', '--workload',
                                              'cybenko:uniform:0:1000:0', '--until', 'steps:5']))
        failures.append(sweep(tmp, SWEEP, ''))
        failures.append(sweep(tmp, SWEEP_WL, 'wl'))
        failures.append(signalled(tmp, True))
        failures.append(signalled(tmp, False))
    failures = [f for f in failures if f]
    for f in failures:
        print('FAIL', f)
    checks = len(cases) + len(EXTRA) + len(uncut) + 10 + len(HALO_STEPS) * len(HALO) + 3
    print(f'{checks - len(failures)} of {checks} checks passed')
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())

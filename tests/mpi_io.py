#!/usr/bin/env python3
"""mpi_io.py — a file: init read and a --dump written block by block (issue 28).

Each rank reads only its block of an --init file:X.npy and writes only its
block of --dump (MPI-IO; rank 0 writes the header and renames the temporary
file once every rank wrote). Checked here, for np = 1..4 ranks, Cartesian
grids of ranks given with --ranks (2x2, 1x3, 3x2; 2x1x2, 1x2x2, 2x2x2), and
one process cut (LBTORUS_CUT=1) alone and on one rank, against one process
started alone:

- loading alone: with --method none and --until steps:0 the dump's data are
  the input's values, bit for bit, whatever the rank count (int32 and int64
  files into int32 loads; float64 and float32 files into a real-valued
  method's float64 field) — the input is written here by hand, so the
  check does not rest on the program's own writer;
- a run: the dump (and the JSON record, timing aside) of a run started from
  a file equals one process's, on 2-D and 3-D tori with int32 and real loads;
- a bad file names the first bad value in flat order as one process does,
  whichever rank reads it: a negative load on the last slab, and an int64
  load beyond int32 on a later slab than a negative one (the reader checks
  the conversions of every value before their signs, as one process does);
- the dump leaves no temporary file beside it, and goes through a
  device (/dev/stdout: gathered, as it cannot be written at offsets);
- blocks of more than one collective call, ranks of smaller blocks taking
  part in the last with nothing, and a bad value stopping every rank there;
- a torus whose .npy is larger than one rank's address space (ulimit -v):
  one process is refused by the memory estimate, which says how many ranks
  would hold it; 4 ranks under the same limit load it, run it and dump it,
  equal to one process without the limit;
- the estimate counts a rank's deep halo (LBTORUS_HALO=16: 32 layers a
  side of its slab) and the fill's buffers, as they are allocated: the
  GiB it says it needs are worked out by hand below.

usage: mpi_io.py LBTORUS MPIRUN
"""
import json
import os
import struct
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

from mpi_launch import ENV, launcher

LBT, MPIRUN = sys.argv[1], sys.argv[2]
MPIRUN = launcher(MPIRUN)  # a session directory of its own each launch (mpi_launch.py)
IGNORED = ('seconds', 'site_updates_per_second', 'ranks', 'command', 'date_utc')  # timing; the call's provenance
FORMAT = {'<i4': 'i', '<i8': 'q', '<f4': 'f', '<f8': 'd'}


def write_npy(path, shape, descr, values):
    """A .npy file as numpy.lib.format writes it (version 1.0, C order)."""
    dims = ', '.join(str(n) for n in shape) + (',' if len(shape) == 1 else '')
    header = f"{{'descr': '{descr}', 'fortran_order': False, 'shape': ({dims}), }}"
    header += ' ' * (-(10 + len(header) + 1) % 64) + '\n'
    with open(path, 'wb') as f:
        f.write(b'\x93NUMPY\x01\x00' + struct.pack('<H', len(header)) + header.encode())
        f.write(struct.pack(f'<{len(values)}{FORMAT[descr]}', *values))


def npy_data(path):
    """The header's dtype and the data bytes of a .npy file."""
    data = open(path, 'rb').read()
    hlen = struct.unpack('<H', data[8:10])[0]
    header = data[10:10 + hlen].decode()
    descr = next(d for d in FORMAT if f"'{d}'" in header)
    return descr, data[10 + hlen:]


# Alone (0), alone but cut (LBTORUS_CUT=1: the slab paths without MPI-IO), on one rank cut (a collective
# open of one rank), on 1..4 ranks (the grid the program chooses); and on Cartesian grids given with
# --ranks (blocks cut along several axes, the last among them: a row's runs in the file on two ranks).
RANKS = (0, 'cut', 'cut1', 1, 2, 3, 4)
GRIDS = {2: ('2x2', '1x3', '3x2'), 3: ('2x1x2', '1x2x2', '2x2x2')}


def ranks_of(shape):
    return RANKS + GRIDS.get(len(shape), ())


def each(f, ranks):
    """f(r) for each r of ranks, two at a time (an mpirun's start waits far more than it computes), in order."""
    with ThreadPoolExecutor(2) as pool:
        return list(pool.map(f, ranks))


def lbtorus(ranks, args, limit_kib=None):
    """lbtorus run ARGS as RANKS says, under ulimit -v limit_kib if given."""
    cmd = [LBT, 'run'] + args + ['--threads', '1', '--quiet']
    if limit_kib:
        cmd = ['sh', '-c', f'ulimit -v {limit_kib} && exec "$@"', 'sh'] + cmd
    if isinstance(ranks, str) and 'x' in ranks:  # a grid: its product of ranks
        n = 1
        for x in ranks.split('x'):
            n *= int(x)
        cmd = [MPIRUN, '--oversubscribe', '-np', str(n)] + cmd + ['--ranks', ranks]
    elif ranks not in (0, 'cut'):
        cmd = [MPIRUN, '--oversubscribe', '-np', '1' if ranks == 'cut1' else str(ranks)] + cmd
    env = dict(ENV, LBTORUS_CUT='1') if ranks in ('cut', 'cut1') else ENV
    return subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300)


def values(n, seed, lo, hi):
    """n pseudo-random integers in [lo, hi] (a fixed LCG: the same file every time)."""
    out, x = [], seed
    for _ in range(n):
        x = (x * 6364136223846793005 + 1442695040888963407) % 2**64
        out.append(lo + (x >> 33) % (hi - lo + 1))
    return out


def loading(tmp):
    """The dump of an unrun torus is the input's values, on any rank count."""
    failures = []
    cases = [((9, 7), '<i4', 'none', '<i4'), ((5, 4, 3), '<i8', 'none', '<i4'), ((7, 6), '<f8', 'fos', '<f8'),
             ((6, 2, 5), '<f4', 'de', '<f8')]
    for k, (shape, descr, method, out) in enumerate(cases):
        P = 1
        for n in shape:
            P *= n
        ints = values(P, 11 + k, 0, 1000)
        vals = [v / 8 for v in ints] if descr[1] == 'f' else ints  # eighths: exact in float32 and float64
        src = os.path.join(tmp, f'load{k}.npy')
        write_npy(src, shape, descr, vals)
        want = struct.pack(f'<{P}{FORMAT[out]}', *vals)

        def load(ranks):
            dump = os.path.join(tmp, f'load{k}.{ranks}.npy')
            p = lbtorus(ranks, ['--init', 'file:' + src, '--method', method, '--until', 'steps:0', '--json',
                                os.path.join(tmp, f'load{k}.{ranks}.json'), '--dump', dump])
            if p.returncode:
                return f'{descr} {shape} on {ranks} ranks: exit {p.returncode}: {p.stderr.strip()}'
            got_descr, got = npy_data(dump)
            if got_descr != out or got != want:
                return f'{descr} {shape} read on {ranks} ranks: the dump ({got_descr}) is not the input'
            return None
        failures += [f for f in each(load, ranks_of(shape)) if f]
    return failures


def runs(tmp):
    """A run from a file: dump and record equal one process's on 1..4 ranks and on grids."""
    failures = []
    cases = [((11, 9), 'torus', 'lm-c5', '<i4', 'steps:25'), ((5, 4, 6), 'torus', 'nna', '<i4', 'steps:20'),
             ((7, 3, 4), 'mesh', 'fos', '<f8', 'steps:15'), ((9, 8), 'torus', 'de', '<f8', 'steps:15')]
    for k, (shape, bnd, method, descr, until) in enumerate(cases):
        P = 1
        for n in shape:
            P *= n
        ints = values(P, 101 + k, 0, 50)
        src = os.path.join(tmp, f'run{k}.npy')
        write_npy(src, shape, descr, [v / 4 for v in ints] if descr == '<f8' else ints)
        out = {}

        def one_run(ranks):
            dump, js = os.path.join(tmp, f'run{k}.{ranks}.npy'), os.path.join(tmp, f'run{k}.{ranks}.json')
            p = lbtorus(ranks, ['--init', 'file:' + src, '--boundary', bnd, '--method', method, '--until', until,
                                '--json', js, '--dump', dump])
            if p.returncode:
                return f'{method} {shape} on {ranks} ranks: exit {p.returncode}: {p.stderr.strip()}'
            rec = json.load(open(js))
            for key in IGNORED:
                rec.pop(key, None)
            out[ranks] = (open(dump, 'rb').read(), rec)
            return None
        failures += [f for f in each(one_run, ranks_of(shape)) if f]
        for ranks in out:
            if ranks != 0 and 0 in out and out[ranks][0] != out[0][0]:
                failures.append(f'{method} {shape} {descr}: the dump on {ranks} ranks differs from one process\'s')
            if ranks != 0 and 0 in out and out[ranks][1] != out[0][1]:
                failures.append(f'{method} {shape} {descr}: the JSON record on {ranks} ranks differs')
    leftovers = [f for f in os.listdir(tmp) if '.tmp.' in f]
    if leftovers:
        failures.append(f'temporary files left beside the dumps: {leftovers}')
    return failures


def bad_files(tmp):
    """One process's message for the first bad value, read by whichever rank."""
    failures = []
    neg = values(8 * 5, 7, 0, 9)
    neg[7 * 5 + 2] = -4  # flat index 37: the last slab on 2, 3 and 4 ranks
    both = values(8 * 5, 8, 0, 9)
    both[3] = -1  # a negative on the first slab ...
    both[6 * 5 + 1] = 2**40  # ... and an int64 beyond int32 on a later one: the conversion is named
    for name, descr, vals, words in (('neg', '<i4', neg, 'load -4 at flat index 37 is negative'),
                                     ('both', '<i8', both, 'load 1099511627776 at flat index 31 does not fit in int32')):
        src = os.path.join(tmp, f'bad_{name}.npy')
        write_npy(src, (8, 5), descr, vals)
        def bad(ranks):
            p = lbtorus(ranks, ['--init', 'file:' + src, '--until', 'steps:3', '--json',
                                os.path.join(tmp, f'bad_{name}.{ranks}.json')])
            lines = [l for l in p.stderr.splitlines() if l.startswith('lbtorus:')]
            if p.returncode != 2 or len(lines) != 1 or words not in lines[0]:
                return f'{name} on {ranks} ranks: want exit 2 and one line with "{words}", got {p.returncode}: ' \
                       f'{p.stderr!r}'
            return None
        failures += [f for f in each(bad, (0, 2, 3, 4)) if f]
    return failures


def rounds(tmp):
    """Collective calls of at most 2^18 values of a block (npy_block.c's PIECE): as many calls on every
    rank as the largest block needs, a rank with less taking part with none. 513x1024 in slabs of 257 and
    256 rows (263168 values: two calls; 262144: one) and 1025x1024 in 2x2 blocks (513x512: two calls,
    512x512: one); the dump of the unrun torus is the input. A value beyond int32 in rank 0's first call,
    and another on rank 1's block, stop every rank with one process's message (the first in flat order),
    the failed rank going on through the calls with nothing."""
    failures = []
    for shape, grid in (((513, 1024), '2x1'), ((1025, 1024), '2x2')):
        P = shape[0] * shape[1]
        vals = values(P, 3, 0, 100)
        src, dump = (os.path.join(tmp, f'rounds_{grid}.{x}.npy') for x in ('in', 'out'))
        write_npy(src, shape, '<i4', vals)
        p = lbtorus(grid, ['--init', 'file:' + src, '--method', 'none', '--until', 'steps:0', '--json', os.devnull,
                           '--dump', dump])
        if p.returncode or npy_data(dump) != ('<i4', struct.pack(f'<{P}i', *vals)):
            failures.append(f'{shape} on --ranks {grid}: exit {p.returncode}, the dump is not the input: '
                            f'{p.stderr.strip()}')
        vals[5] = 2**33  # rank 0's first call
        vals[P - 3] = 2**34  # the last rank's block
        write_npy(src, shape, '<i8', vals)
        words = 'load 8589934592 at flat index 5 does not fit in int32'
        for ranks in (0, grid):
            p = lbtorus(ranks, ['--init', 'file:' + src, '--until', 'steps:1', '--json', os.devnull])
            lines = [l for l in p.stderr.splitlines() if l.startswith('lbtorus:')]
            if p.returncode != 2 or len(lines) != 1 or words not in lines[0]:
                failures.append(f'{shape} int64 on --ranks {grid if ranks else "(alone)"}: want exit 2 and one '
                                f'line with "{words}", got {p.returncode}: {p.stderr!r}')
    return failures


def through_a_device(tmp):
    """--dump /dev/stdout on 3 ranks: the gathered field after the header, as a file gets it."""
    src = os.path.join(tmp, 'dev.npy')
    write_npy(src, (6, 4), '<i4', values(24, 5, 0, 9))
    args = ['--init', 'file:' + src, '--method', 'nna', '--until', 'steps:5', '--json', os.path.join(tmp, 'dev.json')]
    cmd = [MPIRUN, '--oversubscribe', '-np', '3', LBT, 'run'] + args + ['--threads', '1', '--quiet', '--dump', '/dev/stdout']
    p = subprocess.run(cmd, env=ENV, capture_output=True, timeout=120)
    q = lbtorus(0, args + ['--dump', os.path.join(tmp, 'dev.out.npy')])
    if p.returncode or q.returncode or p.stdout != open(os.path.join(tmp, 'dev.out.npy'), 'rb').read():
        return [f'--dump /dev/stdout on 3 ranks: exit {p.returncode}, {len(p.stdout)} bytes, not one process\'s file']
    return []


def beyond_one_rank(tmp):
    """A torus whose .npy (512 MiB) is larger than a rank's address space (450 MB)."""
    limit = 450000  # KiB: an MPI rank of lbtorus maps about 230 MB before its grid (VmPeak)
    shape = '8192x16384'
    src, one, four = (os.path.join(tmp, f'{n}.npy') for n in ('big', 'big1', 'big4'))
    p = lbtorus(0, ['--shape', shape, '--init', 'uniform:0:9', '--until', 'steps:0', '--method', 'none', '--json',
                    os.devnull, '--dump', src])
    if p.returncode:
        return [f'writing the large input: exit {p.returncode}: {p.stderr.strip()}']
    failures = []
    if os.path.getsize(src) <= limit * 1024:
        failures.append(f'{src} has {os.path.getsize(src)} bytes: not beyond the limit of {limit} KiB')
    args = ['--init', 'file:' + src, '--method', 'lm-c5', '--until', 'steps:3', '--max-steps', '3', '--json', os.devnull]
    p = lbtorus(0, args + ['--dump', one], limit_kib=limit)  # alone: not cut, the estimate for one rank
    if p.returncode != 2 or 'cut between at least 2 ranks' not in p.stderr:
        failures.append(f'one process under ulimit -v {limit}: want exit 2 and the estimate naming 2 ranks, '
                        f'got {p.returncode}: {p.stderr.strip()}')
    p = lbtorus(4, args + ['--dump', four], limit_kib=limit)
    if p.returncode:
        failures.append(f'4 ranks under ulimit -v {limit}: exit {p.returncode}: {p.stderr.strip()}')
    q = lbtorus(0, args + ['--dump', one])
    if q.returncode:
        failures.append(f'one process without a limit: exit {q.returncode}: {q.stderr.strip()}')
    if not p.returncode and not q.returncode:
        with open(one, 'rb') as a, open(four, 'rb') as b:
            while True:
                x, y = a.read(1 << 24), b.read(1 << 24)
                if x != y:
                    failures.append('the dump of 4 ranks under the limit differs from one process\'s')
                    break
                if not x:
                    break
    for f in (src, one, four):
        if os.path.exists(f):
            os.remove(f)
    return failures


def deep_halo_estimate(tmp):
    """LBTORUS_HALO=16 on a slab of 2 layers of 4194304 PEs (--method none: int32 loads, no scratch): the
    block's grid is 2 + 2 x 32 layers of 16 + 4194304 + 2 cells rounded up to 16 (4194336), 4 bytes a
    cell: 1107304704 B; the fill's buffers 4 x 32 layers of 4194304 cells, 4 bytes a cell: 2147483648 B;
    together 3.03 GiB (the halo dropped: 0.09 GiB for the grid, and 1.03 or 2.09 GiB without one of the
    two terms). One process cut (LBTORUS_CUT=1) of 2x4194304, and each of 2 ranks of 4x4194304, under
    ulimit -v of 2.5 GiB are refused before anything is allocated, with that figure."""
    failures = []
    limit = 2621440  # KiB
    for np_, shape, per in ((0, '2x4194304', ''), (2, '4x4194304', ' per rank')):
        cmd = [LBT, 'run', '--shape', shape, '--method', 'none', '--init', 'const:1', '--until', 'steps:1',
               '--threads', '1', '--quiet', '--json', os.devnull]
        if np_:
            cmd = [MPIRUN, '--oversubscribe', '-np', str(np_)] + cmd
        cmd = ['sh', '-c', f'ulimit -v {limit} && exec "$@"', 'sh'] + cmd
        p = subprocess.run(cmd, env=dict(ENV, LBTORUS_CUT='1', LBTORUS_HALO='16'), capture_output=True, text=True,
                           timeout=300)
        want = f'needs at least 3.0 GiB{per} (its loads alone, its halo and exchange buffers)'
        if p.returncode != 2 or want not in p.stderr:
            failures.append(f'{shape} on {np_ or "one process cut"} with LBTORUS_HALO=16 under ulimit -v {limit}: '
                            f'want exit 2 and "{want}", got {p.returncode}: {p.stderr.strip()}')
    return failures


def main():
    failures, checks = [], 0
    with tempfile.TemporaryDirectory() as tmp:
        for check in (loading, runs, bad_files, rounds, through_a_device, beyond_one_rank, deep_halo_estimate):
            got = check(tmp)
            checks += 1
            failures += got
            print(f'{check.__name__}: {"ok" if not got else f"{len(got)} failures"}', flush=True)
    for f in failures:
        print('FAIL', f)
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())

#!/usr/bin/env python3
"""mpi_identity.py — `mpirun -np N lbtorus run ...` equals one process, bit for bit.

For N = 1..4, 6 and 8 ranks (oversubscribed: this runs on 2 cores) and
every method that runs cut and every workload, as `lbtorus info --json`
lists them, on awkward shapes (extents not divisible by N, D = 1..4, torus,
mesh and mixed boundaries), on the grid of ranks the program chooses and on
Cartesian grids given with --ranks (blocks cut along several axes, issue
28), with loads of a byte and of an int32, the --dump file, the --trace file and the JSON
record (timing aside) are compared with a run of the same
build started alone; so are runs with every workload (Cybenko's arrivals of
each distribution, Lüling and Monien's phases and generator, search trees
run until no node is left), whose conservation law (final total = initial
total + generated - completed) must hold exactly. Besides: a torus no grid of N ranks cuts, a --ranks
grid that does not match N or does not divide the torus, and a search tree
on blocks are refused with one line (exit 2); --verify runs on a cut torus
(each rank's scalar reference on its block) with one process's outputs,
and fails as one process does, on every rank, when the state is changed
under it (tests/mpi_verify.c: no hook makes a kernel err);
--snapshots and --animate on a cut torus write one process's files, byte for
byte (rank 0 pictures the whole torus, gathered);
the grid chosen (slabs for the Liquid model, the least halo for the others)
sends the halo bytes worked out by hand; deep halos (LBTORUS_HALO=1, 2, 8:
several Liquid-model steps between exchanges on its slabs and on blocks
whose last axis is whole; one step an exchange on blocks whose last axis
is cut) equal one process, a fill sends one message a
side however deep (on slabs and on blocks, counted by hand), and LBTORUS_HALO's bad values are refused in one line; a cycle is found on every rank at
the same step, a file: init is read into slabs. And `mpirun -np N lbtorus
sweep` spreads the runs over the ranks (the large ones cut between all
ranks) into one results file: the same records as one process (timing and
thread counts aside), resumable. A SIGTERM stops a run on every rank with
its summary written (exit 3; 1 when mpirun itself is signalled). `bound`,
`search` and `reproduce` spread their runs over 2 and 3 ranks and write one
process's files (provenance aside); a SIGINT stops them with nothing written.
fos-speed, fos-speed-int and --speeds (drawn, and read in blocks from a file)
equal one process on slabs and blocks, with the shake, every cost/benefit
rule, the detection and the application's times. A slab's halo fill overlapped
with its interior's step (one step an exchange) gives one process's bits,
and every fill of a slab is overlapped (the tally's counts). A SIGINT to
one rank of a `run` (in its set-up or at a step) is named on rank 0's line;
a sweep's ranks do not wait for each other's runs (rank 1's runs all done
while rank 0 is in its first).

A signal is sent once the ranks catch it (their handlers installed) and
what else its check needs holds (a step in the trace, a rank done), never
after a fixed time; the other checks run two at a time, and a one-process
run compared with several MPI runs is run once.

usage: mpi_identity.py LBTORUS MPIRUN MPI_VERIFY
"""
import itertools
import json
import os
import signal
import struct
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

from mpi_launch import ENV, launcher
from functools import partial
import threading
import time

LBT, MPIRUN, PROBE = sys.argv[1], sys.argv[2], sys.argv[3]
MPIRUN = launcher(MPIRUN)  # a session directory of its own each launch (mpi_launch.py)
# Checks run two at a time (those that signal a job alone, after them): an mpirun's start waits far more than
# it computes, and the suite is some 250 of them.
JOBS = 2


def parallel(calls):
    """The results of calls (functions of no argument), run JOBS at a time, in order; a line every 50 done."""
    done = itertools.count(1)
    lock = threading.Lock()

    def one(f):
        result = f()
        with lock:
            n = next(done)
        if n % 50 == 0:
            stage(f'{n} of {len(calls)} done')
        return result
    with ThreadPoolExecutor(JOBS) as pool:
        return list(pool.map(one, calls))
IGNORED = ('seconds', 'site_updates_per_second', 'ranks', 'threads', 'command', 'date_utc') # timing; the provenance of the call

# Awkward shapes to run on, with a rank count each: extents not divisible by
# the ranks, D = 1..4, torus, mesh and mixed boundaries, axes of extent 1
# (no halo; a slab of one layer keeps the cut axis's, issue 14 item 12);
# the grid of ranks the program chooses (the least halo: slabs or blocks).
SHAPES = [
    ('7x5', 'torus', 3), ('10', 'mesh', 4), ('3x4x5', 'mesh', 3), ('2x3x2x3', 'torus', 2),
    ('5x1x6', 'torus,mesh,torus', 4), ('9x4', 'torus', 4), ('6x5', 'mesh', 3), ('11', 'torus', 4),
    ('5x4x3', 'mesh', 3), ('1x2x1x12', 'torus', 2), ('7x3', 'torus', 3), ('1x3x1x5', 'torus', 3),
    ('4x3x5', 'torus,mesh,torus', 4), ('1x7x5', 'mesh', 3), ('5x2x3', 'mesh', 4),
]
# Cartesian grids of ranks given with --ranks (issue 28): blocks cut along
# two or three axes, the last among them (rows shared by ranks), on 2-D,
# 3-D and 4-D tori and meshes, 1 to 8 ranks; slabs given as a grid too.
GRIDS = [
    ('7x5', 'torus', '2x2'), ('9x4', 'mesh', '3x1'), ('6x4x5', 'mesh', '2x2x1'), ('4x3x6', 'torus', '2x1x2'),
    ('4x4x3x5', 'torus,mesh,torus,torus', '2x1x1x2'), ('6x5', 'mesh', '1x2'), ('5x7', 'torus,mesh', '1x1'),
    ('6x6x4', 'torus', '3x2x1'), ('5x4x6', 'mesh,torus,mesh', '1x2x3'), ('4x4x4x3', 'torus', '2x2x2x1'),
    ('8x3x5', 'torus,mesh,torus', '4x1x1'), ('3x5x4', 'torus', '1x3x2'),
]
INITS = ('uniform:0:9', 'uniform:0:100000')  # loads of a byte, of an int32


def grid_ranks(grid):
    n = 1
    for x in grid.split('x'):
        n *= int(x)
    return n


def registries():
    """The methods and workloads as the program lists them (lbtorus info --json)."""
    p = subprocess.run([LBT, 'info', '--json'], env=ENV, capture_output=True, text=True, timeout=60, check=True)
    return json.loads(p.stdout)


def registry_cases(reg):
    """Every method that runs cut (flag "cut") on one of the shapes (the grid
    chosen) and on a grid of GRIDS, and every workload's example with
    methods whose loads it takes (one real-valued if it takes those; a
    search tree until no node is left) on two shapes and a grid (a search
    tree: slabs only, refused on blocks), methods, shapes, grids and loads
    taken in turn: a new method or workload is checked here without an
    edit. Returns the cases, the methods that must be refused on a cut
    torus, and the workloads refused on blocks."""
    cut = [m for m in reg['methods'] if 'cut' in m['flags']]
    cases, k, g = [], 0, 0
    # A method on one shape (the grid chosen) and one grid, a byte load on one and an int32 load on the other;
    # SHAPES go round over the methods, each at least once. (Until 2026-11-27 two shapes a method: the Liquid
    # model's conditions, six of the methods, take many more shapes in HALO, BLOCKS_HALO, ROWCUT and OVERLAP,
    # nna, fos and de in EXTRA and VERIFY, the others' kernels go through the same halo and slab code.)
    for j, m in enumerate(cut):
        shape, bnd, ranks = SHAPES[k % len(SHAPES)]
        cases.append((shape, bnd, m['name'], INITS[j % 2], 'steps:12', ranks, None))
        k += 1
        shape, bnd, grid = GRIDS[g % len(GRIDS)]
        cases.append((shape, bnd, m['name'], INITS[(j + 1) % 2], 'steps:12', grid_ranks(grid), None, '--ranks', grid))
        g += 1
    turn = {'int': 0, 'real': 0}
    slabs_only = []
    for w in reg['workloads']:
        for j in range(3):  # a real-valued method too where the workload takes one
            load = w['loads'][j % len(w['loads'])]
            takers = [m for m in cut if m['load'] == load]
            m = takers[turn[load] % len(takers)]
            turn[load] += 1
            init, until = ('const:0', 'done') if w['tasks'] else ('uniform:0:9', 'steps:20')
            if j < 2:  # a search tree: the program cuts slabs for it (the shapes' first axes have the layers)
                shape, bnd, ranks = SHAPES[k % len(SHAPES)]
                cases.append((shape, bnd, m['name'], init, until, ranks, w['example']))
                k += 1
            elif w['tasks']:
                slabs_only.append(w['example'])
            else:
                shape, bnd, grid = GRIDS[g % len(GRIDS)]
                cases.append((shape, bnd, m['name'], init, until, grid_ranks(grid), w['example'], '--ranks', grid))
                g += 1
    return cases, [m['name'] for m in reg['methods'] if 'cut' not in m['flags']], slabs_only


# Beyond the registries: kernels and paths a registry entry does not name.
# shape, boundary, method, init, until, ranks, workload or None[, --ranks GRID]
EXTRA = [
    ('7x5', 'torus', 'lm-c5', 'worst:3', 'balanced', 2, None),
    ('7x5', 'torus', 'lm-c5', 'uniform:0:9', 'steps:15', 1, None),
    ('10x32', 'torus', 'lm-c5', 'uniform:0:9', 'balanced', 4, None),    # the fused vector kernel, rows of whole vectors
    ('7x3x16', 'mesh', 'lm-c2', 'uniform:0:9', 'steps:20', 3, None),
    ('1x4x1x1x32', 'mesh,torus,torus,mesh,torus', 'lm-c5', 'uniform:0:9', 'steps:10', 4, None),
    ('10x32', 'torus', 'lm-c5', 'uniform:0:9', 'steps:20', 4, 'cybenko:poisson:2:2'),  # the vector row kernel
    ('10x32', 'torus', 'lm-c5', 'uniform:0:9', 'balanced', 4, None, '--ranks', '2x2'),  # blocks, rows cut: the vector kernel
    # each of Cybenko's distributions (the integer row kernels, the real-valued sums in global order)
    ('10', 'mesh', 'nna', 'uniform:0:9', 'steps:20', 4, 'cybenko:uniform:0:3:1'),
    ('5x4x3', 'torus', 'fos-int', 'uniform:0:9', 'steps:15', 2, 'cybenko:bernoulli:0.4:1'),
    ('11', 'torus', 'fos', 'uniform:0:9', 'steps:20', 3, 'cybenko:exp:1:1'),
    ('9', 'torus', 'de', 'uniform:0:9', 'steps:15', 4, 'cybenko:normal:1:0.5:1'),
    ('7x5', 'mesh', 'fos', 'uniform:0:9', 'steps:20', 4, 'cybenko:exp:1:1', '--ranks', '2x2'),
    ('4x5x6', 'torus', 'de', 'uniform:0:9', 'steps:15', 6, 'cybenko:normal:1:0.5:1', '--ranks', '1x2x3'),
    # real-valued sums where rows are shared: the lanes passed along the last axis (a ring over 8 ranks,
    # blocks of 2x3 and 2x2x2), with a C whose multiples are inexact (completed: C n a row, in row order)
    ('16', 'torus', 'de', 'uniform:0:9', 'steps:15', 8, 'cybenko:exp:1:0.7'),
    ('5x9', 'mesh', 'fos', 'uniform:0:9', 'steps:15', 6, 'cybenko:normal:1:0.5:0.3', '--ranks', '2x3'),
    ('4x4x6', 'torus', 'fos', 'uniform:0:9', 'steps:15', 8, 'cybenko:poisson:2:1', '--ranks', '2x2x2'),
    # the Poisson pass's runs of rows on blocks: a call per run of a plane's rows, one row a call where the
    # last axis is cut (its rows are not n apart in global order), runs of rows where it is not
    ('4x6x10', 'torus', 'nna', 'uniform:0:50', 'steps:15', 4, 'cybenko:poisson:2:1', '--ranks', '1x2x2'),
    ('4x6x10', 'mesh', 'lm-c5', 'uniform:0:50', 'steps:15', 4, 'cybenko:poisson:2:1', '--ranks', '2x2x1'),
]


# Deep halos (issue 28): LBTORUS_HALO=K steps between halo exchanges, each
# case for K = 1, 2 and 8: byte- and int32-sized loads, tori and meshes, 2-D
# and 3-D, slabs thinner than the halo, a fixed number of steps (several a
# call) and to balanced (one a call); 2-D slabs of rows of whole byte vectors
# (AVX2 keeps them in bytes for a call: kernels/simd/lm_avx2_steps.h), one
# whose pile keeps a rank out of bytes and, as it spreads, its neighbours'
# halos (they widen back mid-call); and blocks of two cut axes, the last
# among them, where K is taken as 1 (lbt_cut_open: deep halos where the
# last axis is whole, BLOCKS_HALO below).
HALO = [
    ('10x32', 'torus', 'lm-c5', 'uniform:0:9', 'steps:40', 4),
    ('12x16', 'mesh', 'lm-c2', 'uniform:0:100000', 'steps:30', 3),
    ('9x4x16', 'torus', 'lm-c5', 'worst:3', 'steps:25', 2),
    ('7x5x8', 'mesh', 'lm-c3', 'uniform:0:9', 'steps:33', 4),
    ('8x32', 'torus', 'lm-c5', 'worst:3', 'balanced', 3),
    ('8x12', 'torus', 'lm-c5', 'uniform:0:9', 'steps:20', 4, None, '--ranks', '2x2'),
    ('12x64', 'mesh', 'lm-c0', 'uniform:0:9', 'steps:30', 3),
    ('16x32', 'torus', 'lm-c5', 'worst:5', 'steps:40', 4),
]
HALO_STEPS = (1, 2, 8)
# Cartesian blocks on the Liquid model's vector kernel (issue 28 item 2):
# the first axis with links cut and more axes before the last ("inner"
# ones, whose substeps read the 2 layers below and 1 above after the axes
# before updated them there), with LBTORUS_HALO = 1, 2, 8 (several steps a
# call; to balanced, one a call): 2x2x1, 3x2x1, 2x2x2x1 and 1x2x2x1 (the
# first axis of extent 1: the first with links is cut), blocks thinner than
# the halo, tori, meshes and mixed, rows of whole vectors and not, loads of
# a byte and of an int32 (worst:5: one pile of 5P); and blocks whose last
# axis is cut (2x2, 3x2, 2x2x2: the vector kernel, ROWCUT below; 1x2x2:
# the reference; K taken as 1).
BLOCKS_HALO = [
    ('9x6x16', 'torus', 'lm-c5', 'uniform:0:9', 'steps:25', 4, None, '--ranks', '2x2x1'),
    ('7x8x5', 'mesh', 'lm-c2', 'worst:5', 'steps:30', 6, None, '--ranks', '3x2x1'),
    ('6x5x32', 'mesh,torus,mesh', 'lm-c3', 'uniform:0:100000', 'steps:20', 4, None, '--ranks', '2x2x1'),
    ('4x6x5x8', 'torus,mesh,torus,torus', 'lm-c4', 'uniform:0:9', 'steps:18', 8, None, '--ranks', '2x2x2x1'),
    ('1x5x6x16', 'torus', 'lm-c1', 'worst:5', 'steps:21', 4, None, '--ranks', '1x2x2x1'),
    ('8x6x8', 'torus', 'lm-c5', 'worst:5', 'balanced', 4, None, '--ranks', '2x2x1'),
    ('10x32', 'torus', 'lm-c5', 'worst:5', 'steps:20', 4, None, '--ranks', '2x2'),
    ('9x8', 'mesh', 'lm-c0', 'uniform:0:9', 'steps:20', 6, None, '--ranks', '3x2'),
    ('4x6x8', 'torus', 'lm-c5', 'uniform:0:100000', 'steps:15', 8, None, '--ranks', '2x2x2'),
    ('5x6x8', 'mesh', 'lm-c3', 'worst:5', 'steps:15', 4, None, '--ranks', '1x2x2'),
]
# Blocks whose rows are cut on the Liquid model's vector kernel (issue 28
# item 2): the first axis with links cut and the last (rows shared by
# ranks), the rows' ends read from the halo's columns stepped along the
# outer axes (kernels/simd/lm.c, row_ends), one step an exchange
# (LBTORUS_HALO=K taken as 1): 2x2, 3x2 and 2x3 on 2-D tori, meshes and
# mixed, 2x2x2 and 2x1x2 on 3-D, odd extents, rows of whole vectors (the
# int16 rows) and not, blocks narrower than a vector (5 and 2 columns),
# every condition, loads of a byte, of int16 and of an int32, worst:5.
ROWCUT = [
    ('16x64', 'torus', 'lm-c5', 'uniform:0:100', 'steps:20', 4, None, '--ranks', '2x2'),
    ('13x37', 'mesh', 'lm-c0', 'uniform:0:9', 'steps:20', 4, None, '--ranks', '2x2'),
    ('12x40', 'torus', 'lm-c1', 'worst:5', 'steps:25', 6, None, '--ranks', '3x2'),
    ('9x10', 'mesh,torus', 'lm-c2', 'uniform:0:100000', 'steps:20', 6, None, '--ranks', '3x2'),
    ('8x7', 'torus,mesh', 'lm-c3', 'worst:5', 'steps:20', 6, None, '--ranks', '2x3'),
    ('6x8x32', 'torus', 'lm-c4', 'uniform:0:9', 'steps:15', 8, None, '--ranks', '2x2x2'),
    ('5x6x9', 'mesh', 'lm-c5', 'worst:5', 'balanced', 8, None, '--ranks', '2x2x2'),
    ('8x64', 'torus', 'lm-c4', 'uniform:0:30000', 'steps:20', 4, None, '--ranks', '2x2'),
    ('8x16x64', 'torus,mesh,torus', 'lm-c5', 'uniform:0:100', 'steps:12', 4, None, '--ranks', '2x1x2'),
    ('10x32', 'torus', 'lm-c2', 'worst:5', 'balanced', 4, None, '--ranks', '2x2'),
]
ROWCUT_HALO = (1, 2)  # in turn over ROWCUT's cases: both are taken as 1 on blocks whose last axis is cut


def last_cut(case):
    """Whether case's --ranks grid cuts the last axis (LBTORUS_HALO taken as 1: K = 2 and 8 the same run)."""
    return '--ranks' in case and case[case.index('--ranks') + 1].split('x')[-1] != '1'

# --verify on a cut torus: each rank steps the scalar reference's copy of its
# block beside the chosen ISA's kernels and compares; the outputs equal one
# process's run with --verify. Slabs (the Liquid model's vector kernel on
# them) and blocks of 2x2 and 1x2x2 (the last axis cut), 2 to 4 ranks, the
# Liquid model, NNA and real-valued fos, with and without a workload; a
# deep halo (LBTORUS_HALO=2) on the ISA's side, one step an exchange on the
# reference's.
VERIFY = [
    ('9x7', 'torus', 'lm-c5', 'uniform:0:100', 'balanced', 3, None),
    ('10x32', 'torus', 'lm-c5', 'uniform:0:9', 'steps:20', 4, None, '--ranks', '2x2'),
    ('7x5', 'mesh', 'nna', 'uniform:0:100000', 'steps:15', 2, None),
    ('8x6', 'torus', 'nna', 'uniform:0:9', 'steps:15', 4, None, '--ranks', '2x2'),
    ('11x4', 'torus', 'fos', 'uniform:0:9', 'steps:15', 3, None),
    ('7x5', 'mesh', 'fos', 'uniform:0:9', 'steps:20', 4, 'cybenko:exp:1:1', '--ranks', '2x2'),
    ('10x32', 'torus', 'lm-c5', 'uniform:0:9', 'steps:20', 2, 'cybenko:poisson:2:2'),
    ('4x6x10', 'torus', 'nna', 'uniform:0:50', 'steps:15', 4, 'cybenko:poisson:2:1', '--ranks', '1x2x2'),
]
VERIFY_HALO = ('10x32', 'torus', 'lm-c5', 'uniform:0:9', 'steps:40', 4)
# --verify made to fail: after step 2 tests/mpi_verify.c moves a unit from
# global PE b to PE a (both on the last rank's block: the other ranks find
# nothing in theirs), so step 3 differs from the reference's.
# shape, method, ranks, grid ('-': chosen), a, b
VERIFY_FAILS = [('10x32', 'lm-c5', 2, '-', 300, 310), ('10x32', 'lm-c5', 4, '2x2', 316, 310),
                ('8x6', 'nna', 4, '2x2', 47, 40), ('9x7', 'nna', 3, '3x1', 60, 58)]


# Lüling and Monien on a cut torus (issue 28, item 3): its operations run in
# one process's order on rank 0, on the records of the PEs they touch. Cases
# whose operations overlap (conflicts) and are cancelled by earlier ones in
# the same step, so an order other than one process's shows: slabs and
# blocks (the last axis cut too), 1-D to 3-D, tori and meshes, global and
# local partners, the basic and the class version, with each workload that
# changes integer loads. (case as EXTRA's, the method's parameters)
LULING = [
    (('7x5', 'torus', 'luling-monien', 'uniform:0:100', 'steps:20', 2, 'cybenko:poisson:1.5:1'), ('--delta', '2')),
    (('7x5', 'torus', 'luling-monien', 'uniform:0:9', 'steps:25', 3, 'phases:0.1:0.9:0.1:0.7:2:5'), ()),
    (('9x4', 'mesh', 'luling-monien', 'uniform:0:5', 'steps:20', 4, 'cybenko:poisson:1:1', '--ranks', '2x2'),
     ('--delta', '3')),
    (('4x3x5', 'torus,mesh,torus', 'luling-monien', 'uniform:0:9', 'steps:30', 4, 'phases:0.1:0.9:0.1:0.7:2:5',
      '--ranks', '2x1x2'), ('--delta', '2', '--partners', 'local:2')),
    (('6x5x4', 'mesh', 'luling-monien', 'uniform:0:100000', 'steps:20', 3, 'cybenko:poisson:100:1'),
     ('--delta', '2', '--f', '1.001')),
    (('11', 'torus', 'luling-monien', 'uniform:0:9', 'steps:20', 4, 'cybenko:poisson:2:2'), ('--partners', 'local:3')),
    (('6x6', 'torus', 'luling-monien', 'uniform:0:9', 'steps:25', 4, 'cybenko:poisson:2:2', '--ranks', '2x2'),
     ('--delta', '2', '--borrow', '2')),
    (('5x4x3', 'mesh', 'luling-monien', 'uniform:0:20', 'steps:25', 2, 'generator:0.7', '--ranks', '1x1x2'),
     ('--borrow', '1')),
    (('8x6', 'torus', 'luling-monien', 'uniform:0:9', 'steps:15', 3, 'cybenko:poisson:2:2', '--ranks', '1x3'), ()),
]


# fos-speed, fos-speed-int and --speeds on a cut torus (issue 28, item 3): each rank keeps the weights Mr,
# the normalised speeds and k for its block and halo, a boundary link's shake is decided by the rank holding
# its sender (in one process's order over the links at that PE) and made known to the other side, the times
# are reduced over the ranks. Slabs and blocks (2x2, 1x2x2, 2x2x1, the last axis cut too), 2-D and 3-D, tori
# and meshes, 2 to 4 ranks; with the shake, every cost/benefit rule (adaptive k: its halo filled each step),
# the detection, the application's times (--app), and the Liquid model and fos with --speeds.
# case, its parameters, must it shake
SPEEDS = [
    (('7x5', 'torus', 'fos-speed-int', 'uniform:0:100', 'steps:40', 2, None),
     ('--speeds', 'uniform:0.5:2', '--cb-k', 'adaptive', '--shake', '0.5', '--app', 'iterations:60'), True),
    (('9x4', 'mesh', 'fos-speed-int', 'uniform:0:100000', 'steps:30', 3, None),
     ('--speeds', 'uniform:0.5:2', '--cb-k', 'dec', '--shake', '0.3'), False),
    (('6x5', 'torus', 'fos-speed', 'uniform:0:9', 'steps:30', 4, None, '--ranks', '2x2'),
     ('--speeds', 'uniform:0.5:2', '--cb-k', 'adaptive', '--shake', '0.5', '--app', 'iterations:40'), True),
    (('4x6x5', 'torus', 'fos-speed-int', 'worst:3', 'steps:80', 4, None, '--ranks', '1x2x2'),
     ('--speeds', 'classes:1,2,4', '--cb-k', 'adaptive', '--shake', '0.6', '--detect', '1', '--app', 'iterations:90'),
     True),
    (('4x6x5', 'torus', 'fos-speed-int', 'worst:3', 'steps:200', 4, None, '--ranks', '1x2x2'),  # detected at step 27
     ('--speeds', 'classes:1,2,4', '--cb-k', 'adaptive', '--detect', '1', '--app', 'iterations:250'), False),
    (('5x4x6', 'mesh', 'fos-speed', 'uniform:0:100', 'steps:30', 3, None),
     ('--speeds', 'classes:1,3', '--self', '0', '--cb-k', '2', '--app', 'iterations:30'), False),
    (('6x4x5', 'torus,mesh,torus', 'fos-speed-int', 'uniform:0:50', 'steps:30', 4, None, '--ranks', '2x2x1'),
     ('--speeds', 'uniform:1:3', '--shake', '0.8', '--shake-tau', '1', '--link', 'dsl'), True),
    (('7x5', 'torus', 'lm-c5', 'uniform:0:100', 'balanced', 3, None), ('--speeds', 'uniform:0.5:2'), False),
    (('4x6x5', 'torus', 'lm-c5', 'worst:3', 'balanced', 2, None), ('--speeds', 'classes:1,2'), False),
    (('6x6', 'mesh', 'fos', 'uniform:0:100', 'steps:20', 4, None, '--ranks', '2x2'), ('--speeds', 'uniform:0.5:2'),
     False),
    (('5x6x4', 'torus', 'fos', 'uniform:0:100', 'steps:20', 3, None), ('--speeds', 'classes:1,5'), False),
]


def speeds(tmp):
    """SPEEDS's cases, whose shaking ones must shake (else the boundary decisions go untested), and speeds from
    a float64 file read in blocks (3 slabs, 2x2) with fos-speed-int and lm-c5."""
    out = parallel([partial(compare, tmp, f'sp{i}', case, both=params) for i, (case, params, _) in enumerate(SPEEDS)])
    for i, (case, params, shakes) in enumerate(SPEEDS):  # the MPI run's record: one process's where it passed
        if not out[i] and shakes and json.load(open(os.path.join(tmp, f'sp{i}m.json')))['shaken'] < 1:
            out[i] = f'{case} {params}: nothing shaken: the shake across ranks is not tested'
    path = os.path.join(tmp, 'speeds.npy')
    values = [0.5 + (7 * k % 11) / 4 for k in range(9 * 6)]
    header = "{'descr': '<f8', 'fortran_order': False, 'shape': (9, 6), }"
    header += ' ' * (-(10 + len(header) + 1) % 64) + '\n'
    with open(path, 'wb') as f:
        f.write(b'\x93NUMPY\x01\x00' + struct.pack('<H', len(header)) + header.encode())
        f.write(struct.pack(f'<{len(values)}d', *values))
    out += parallel([partial(compare, tmp, f'spf{j}{m}', ('9x6', 'torus', m, 'uniform:0:100', 'steps:20',
                                                           3 if j == 0 else 4, None) + extra,
                             both=('--speeds', 'file:' + path))
                     for j, extra in enumerate((('--ranks', '3x1'), ('--ranks', '2x2')))
                     for m in ('fos-speed-int', 'lm-c5')])
    return out


def luling(tmp):
    """LULING's cases; each must make operations whose sets overlap (conflicts: their order shows in the
    loads), and some cancelled (an initiator's trigger undone by an earlier operation of its step)."""
    out, cancelled = parallel([partial(compare, tmp, f'lm{i}', case, both=params) for i, (case, params) in
                               enumerate(LULING)]), 0
    for i, (case, params) in enumerate(LULING):
        if not out[i]:  # the MPI run's record: one process's where it passed
            rec = json.load(open(os.path.join(tmp, f'lm{i}m.json')))
            cancelled += rec['cancelled']
            if rec['conflicts'] < 1:
                out[i] = f'luling-monien {params} {case}: {rec["operations"]} operations, none conflicting: ' \
                         'the order is not tested'
    out.append(None if cancelled else 'luling-monien: no operation cancelled in LULING: the trigger re-test is not tested')
    return out


def run(tmp, tag, ranks, args, env=None):
    out = {k: os.path.join(tmp, f'{tag}.{k}') for k in ('json', 'csv', 'npy')}
    cmd = [LBT, 'run', '--threads', '1'] + args + ['--quiet', '--json', out['json'], '--trace', out['csv'],
                                                   '--dump', out['npy']]  # args may give other --threads
    if ranks:
        cmd = [MPIRUN, '--oversubscribe', '-np', str(ranks)] + cmd
    p = subprocess.run(cmd, env=env or ENV, capture_output=True, text=True, timeout=120)
    return p, out


REFS = {}
REFS_LOCK = threading.Lock()


def reference(tmp, args):
    """One process's run of args, run once for the cases compared with it (a deep halo's K = 1, 2 and 8, an
    overlapped case and the same deep); the run's outputs are not written again."""
    with REFS_LOCK:
        if tuple(args) not in REFS:
            REFS[tuple(args)] = (threading.Lock(), [], f'ref{len(REFS)}')
        lock, got, tag = REFS[tuple(args)]
    with lock:
        if not got:
            got.append(run(tmp, tag, 0, args))
    return got[0]


def npy_sum(path):
    """The sum of an int32 or float64 .npy file's values."""
    data = open(path, 'rb').read()
    hlen = struct.unpack('<H', data[8:10])[0]
    header, body = data[10:10 + hlen].decode(), data[10 + hlen:]
    code = 'i' if "'<i4'" in header else 'd'
    return sum(struct.unpack(f'<{len(body) // struct.calcsize(code)}{code}', body))


def compare(tmp, i, case, halo=None, both=(), verify=False):
    """both: more arguments for both runs (a method's parameters)."""
    shape, bnd, method, init, until, ranks = case[:6]
    env = dict(ENV, LBTORUS_HALO=str(halo)) if halo else None
    args = ['--shape', shape, '--boundary', bnd, '--method', method, '--init', init, '--until', until,
            '--max-steps', '200'] + list(both) + (['--verify'] if verify else [])
    if len(case) > 6 and case[6]:
        args += ['--workload', case[6]]
    one, a = reference(tmp, args)
    many, b = run(tmp, f'{i}m', ranks, args + list(case[7:]), env)
    what = f'{method} {" ".join(both)} {shape} {bnd} {init} {until} {" ".join(x for x in case[6:] if x)} on {ranks} ranks'
    if halo:
        what += f' (LBTORUS_HALO={halo})'
    if verify:
        what += ' with --verify'
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


def verify_fails(case):
    """Every rank fails with one process's status and message: the first differing PE of the torus."""
    shape, method, ranks, grid, a, b = case
    args = [PROBE, shape, method, '-', '2', str(a), str(b)]
    one = subprocess.run(args, env=ENV, capture_output=True, text=True, timeout=120)
    args[3] = grid
    many = subprocess.run([MPIRUN, '--oversubscribe', '-np', str(ranks)] + args, env=ENV, capture_output=True,
                          text=True, timeout=120)
    want = one.stdout.strip()
    if 'differs from the scalar reference at step 3, at PE' not in want:
        return f'{case} alone: want a difference at step 3, got {one.stdout!r} {one.stderr!r}'
    got = many.stdout.strip().splitlines()
    if len(got) != ranks or any(line != want for line in got):
        return f'{case} on {ranks} ranks: want {want!r} on every rank, got {got!r} {many.stderr!r}'
    return None


NAMES = itertools.count()  # a file name each for records of checks run at once


def expect_refusal(tmp, ranks, args, words, env=None):
    p = subprocess.run([MPIRUN, '--oversubscribe', '-np', str(ranks), LBT, 'run'] + args + ['--quiet', '--json',
                       os.path.join(tmp, f'refused{next(NAMES)}.json')], env=env or ENV, capture_output=True,
                       text=True, timeout=120)
    lines = [l for l in p.stderr.splitlines() if l.startswith('lbtorus:')]
    if p.returncode != 2 or len(lines) != 1 or words not in lines[0]:
        return f'{args} on {ranks} ranks: want exit 2 and one line with "{words}", got {p.returncode}: {p.stderr!r}'
    return None


def same_failure(tmp, ranks, args):
    """A failure inside a step on some ranks only stops every rank, with one process's message."""
    lines = []
    for cmd in ([LBT, 'run'], [MPIRUN, '--oversubscribe', '-np', str(ranks), LBT, 'run']):
        p = subprocess.run(cmd + args + ['--quiet', '--json', os.path.join(tmp, f'failed{next(NAMES)}.json')], env=ENV,
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
# the 8x8 runs with a workload are cut between all ranks too; 2x40's search trees only on 2 ranks (slabs of a
# layer each: on 3 a tree runs on one rank, as no slabs of 3 exist)
SWEEP_WL = ['--method', 'lm-c5,nna', '--shape', '8x8,ring:7,2x40', '--init', 'const:0', '--until', 'steps:30',
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


def grid_choice(tmp):
    """The grid the program chooses, seen in the halo bytes each rank sends a step (LBTORUS_COMM_STATS):
    on 32x32x32 and 8 ranks nna gets the grid with the least halo, 4x2x1 (blocks of 8x16x32: 2 x 2 x
    16x32 + 2 x 2 x (8+4)x32 cells, the second face spanning the first axis's halo, = 3584 cells,
    14336 B; slabs 8x1x1 would send 2 x 2 x 32x32 cells = 16384 B, 2x2x2 15616 B, 2x4x1 14336 B: a tie
    the outer axes cut more take); the Liquid model the same 4x2x1, the least halo of the grids its
    vector kernel steps (the first axis cut, the last whole: 8x1x1, 4x2x1, 2x4x1); slabs under a search
    tree, which numbers its nodes across slabs. On 4x32x32 and 4 ranks nna gets 1x4x1 (blocks of 4x8x32:
    2 x 2 x 4x32 cells = 512 cells, 2048 B), which leaves the first axis whole; the Liquid model 2x2x1
    (blocks of 2x16x32: 2 x 2 x 16x32 + 2 x 2 x (2+4)x32 cells = 2816 cells, 11264 B), not slabs 4x1x1
    (2 x 2 x 32x32 cells = 16384 B), which it got before 2026-11-27."""
    out = []
    for method, shape, ranks, want, more in (
            ('lm-c5', '32x32x32', 8, 14336, []), ('nna', '32x32x32', 8, 14336, []),
            ('nna', '32x32x32', 8, 16384, ['--workload', 'gw:2:0.45:6', '--init', 'const:0']),
            ('lm-c5', '4x32x32', 4, 11264, []), ('nna', '4x32x32', 4, 2048, [])):
        stats = os.path.join(tmp, f'grid_{method}.json')
        p = subprocess.run([MPIRUN, '--oversubscribe', '-np', str(ranks), LBT, 'run', '--shape', shape, '--method',
                            method, '--init', 'uniform:0:9', '--until', 'steps:2', '--max-steps', '2', '--threads',
                            '1', '--quiet', '--json', os.path.join(tmp, 'grid.json')] + more,
                           env=dict(ENV, LBTORUS_COMM_STATS=stats), capture_output=True, text=True, timeout=120)
        if p.returncode:
            out.append(f'{method} {" ".join(more)} on {ranks} ranks: exit {p.returncode}: {p.stderr.strip()}')
            continue
        t = json.load(open(stats))
        got = [b // t['steps'] for b in t['halo_bytes']]
        if got != [want] * ranks:
            out.append(f'{method} {" ".join(more)} on {shape} and {ranks} ranks: halo bytes a step {got}, '
                       f'want {want}')
    return '; '.join(out) or None


def deep_messages(tmp):
    """A fill's messages, from LBTORUS_COMM_STATS: 64 steps of lm-c5 on 64x64 cut into 2 slabs of 32 rows
    send a rank's halo to the other rank (its neighbour on both sides) one message a side a fill, however
    deep: K = 1, 64 fills of 2 layers a side (2 x 64 messages); K = 8, 8 fills of 16 (2 x 8 messages); in
    bytes both 64 steps x 2 sides x 2 layers x 64 cells x 4 B = 65536."""
    out = []
    for k, fills in ((1, 64), (8, 8)):
        stats = os.path.join(tmp, f'deep{k}.json')
        p = subprocess.run([MPIRUN, '--oversubscribe', '-np', '2', LBT, 'run', '--shape', '64x64', '--init',
                            'uniform:0:100', '--until', 'steps:64', '--max-steps', '64', '--threads', '1', '--quiet',
                            '--json', os.path.join(tmp, 'deep.json')],
                           env=dict(ENV, LBTORUS_COMM_STATS=stats, LBTORUS_HALO=str(k)), capture_output=True,
                           text=True, timeout=120)
        if p.returncode:
            out.append(f'LBTORUS_HALO={k} on 2 ranks: exit {p.returncode}: {p.stderr.strip()}')
            continue
        t = json.load(open(stats))
        got = (t['fills'], t['halo_messages'], t['halo_bytes'])
        if got != ([fills] * 2, [2 * fills] * 2, [65536] * 2):
            out.append(f'LBTORUS_HALO={k}, 64x64 on 2 ranks: fills, messages, bytes {got}, want '
                       f'{fills}, {2 * fills}, 65536 a rank')
    return '; '.join(out) or None


def block_messages(tmp):
    """A block's fills, from LBTORUS_COMM_STATS: 16 steps of lm-c5 on a 32x32x16 torus cut 2x2x1 into
    blocks of 16x16x16, each rank's neighbours on axes 0 and 1 one rank each side (the same one: 2 a line).
    A fill of L layers a side sends one message a side: on axis 0 layers of 16x16 cells, on axis 1 layers
    spanning axis 0's L layers of halo, (16 + 2L)x16 cells. K = 1 (L = 2 every step): 16 steps x 2 fills,
    2 x 16 x 4 messages, 16 x (2 x 2 x 256 + 2 x 2 x 320) x 4 B = 147456 B; K = 8 (L = 16, two calls of 8
    steps): 2 x 2 fills, 8 messages, 2 x (2 x 16 x 256 + 2 x 16 x 768) x 4 B = 262144 B."""
    out = []
    for k, fills, messages, nbytes in ((1, 32, 64, 147456), (8, 4, 8, 262144)):
        stats = os.path.join(tmp, f'blockstats{k}.json')
        p = subprocess.run([MPIRUN, '--oversubscribe', '-np', '4', LBT, 'run', '--shape', '32x32x16', '--ranks',
                            '2x2x1', '--init', 'uniform:0:100', '--until', 'steps:16', '--max-steps', '16',
                            '--threads', '1', '--quiet', '--json', os.path.join(tmp, 'blockstats.json')],
                           env=dict(ENV, LBTORUS_COMM_STATS=stats, LBTORUS_HALO=str(k)), capture_output=True,
                           text=True, timeout=120)
        if p.returncode:
            out.append(f'LBTORUS_HALO={k} on 2x2x1 ranks: exit {p.returncode}: {p.stderr.strip()}')
            continue
        t = json.load(open(stats))
        got = (t['fills'], t['halo_messages'], t['halo_bytes'])
        if got != ([fills] * 4, [messages] * 4, [nbytes] * 4):
            out.append(f'LBTORUS_HALO={k}, 32x32x16 on 2x2x1 ranks: fills, messages, bytes {got}, want '
                       f'{fills}, {messages}, {nbytes} a rank')
    return '; '.join(out) or None


def pictures(tmp):
    """--snapshots and --animate on a cut torus (blocks, slabs, a ring): every rank's block gathered on rank 0,
    which writes the PNGs, the .npy files and the GIF of one process, byte for byte."""
    out = []
    for shape, bnd, method, ranks, grid in (('7x5', 'torus', 'nna', 4, ['--ranks', '2x2']),
                                            ('9x6', 'mesh', 'lm-c5', 3, []), ('16', 'torus', 'nna', 4, [])):
        files = []
        for tag, launch in (('one', []), ('many', [MPIRUN, '--oversubscribe', '-np', str(ranks)])):
            snaps, gif = os.path.join(tmp, f'pic{shape}{tag}'), os.path.join(tmp, f'pic{shape}{tag}.gif')
            p = subprocess.run(launch + [LBT, 'run', '--shape', shape, '--boundary', bnd, '--method', method, '--init',
                                         'uniform:0:9', '--until', 'steps:12', '--every', '5', '--threads', '1',
                                         '--quiet', '--json', os.path.join(tmp, 'pic.json'), '--snapshots', snaps,
                                         '--animate', gif] + (grid if launch else []),
                               env=ENV, capture_output=True, text=True, timeout=120)
            if p.returncode:
                out.append(f'pictures of {shape} ({tag}): exit {p.returncode}: {p.stderr.strip()}')
                break
            got = {n: open(os.path.join(snaps, n), 'rb').read() for n in os.listdir(snaps)}
            got['gif'] = open(gif, 'rb').read()
            files.append(got)
        if len(files) == 2 and (files[0] != files[1] or len(files[0]) != 9):  # steps 0, 5, 10, 12: PNG and .npy
            out.append(f'pictures of {shape} {bnd} {method} on {ranks} ranks {" ".join(grid)}: '
                       f'{sorted(files[0])} alone, {sorted(k for k in files[1] if files[1][k] != files[0].get(k))} differ')
    return '; '.join(out) or None


# ---- signals, each sent once the ranks catch it ----
# A check that signals a job waits until its ranks' handlers are installed (and what else it needs: a step
# taken, a rank done), never a fixed time: on a loaded machine the ranks took 7-9 s to start, and checks that
# slept 2-4 s first signalled them before lbtorus caught anything. READY seconds at most, then the check
# fails saying which wait ran out.
READY = 240


def catching(pid, sig):
    """Whether process pid catches signal sig (its handler installed: lbtorus's, once its command started)."""
    try:
        with open(f'/proc/{pid}/status') as f:
            return any(l.startswith('SigCgt:') and int(l.split()[1], 16) >> (sig - 1) & 1 for l in f)
    except OSError:
        return False


def asleep(pid):
    """Whether process pid's main thread sleeps in nanosleep: a sweep's rank other than 0 does only once its
    runs are done, waiting for the others 1 ms at a time (src/comm/comm_mpi.c, lbt_comm_watch_close)."""
    try:
        with open(f'/proc/{pid}/wchan') as f:
            return 'nanosleep' in f.read()
    except OSError:
        return False


def rank_of(pid):
    """The MPI rank of a process mpirun started (Open MPI's environment says it)."""
    with open(f'/proc/{pid}/environ', 'rb') as f:
        env = dict(v.split(b'=', 1) for v in f.read().split(b'\0') if b'=' in v)
    return int(env.get(b'OMPI_COMM_WORLD_RANK', b'-1'))


class Job:
    """mpirun -np 2 LBT ARGS in directory d (the current one if None), its stderr read as it comes."""

    def __init__(self, d, args):
        self.p = subprocess.Popen([MPIRUN, '--oversubscribe', '-np', '2', os.path.abspath(LBT)] + args, cwd=d,
                                  env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        self.lines = []
        self.reader = threading.Thread(target=self.read)
        self.reader.start()

    def read(self):
        for line in self.p.stderr:
            self.lines.append(line.rstrip('\n'))

    def ready(self, sig, until=None):
        """The ranks' pids in rank order once both catch sig and until(pids) holds (if given); None if they
        were not within READY seconds or the job ended first: the job is then killed, and why() says so."""
        t0, self.waited = time.monotonic(), None
        while time.monotonic() - t0 < READY and self.p.poll() is None:
            try:
                with open(f'/proc/{self.p.pid}/task/{self.p.pid}/children') as f:
                    pids = [int(x) for x in f.read().split()]
            except OSError:
                break
            if len(pids) == 2 and all(catching(x, sig) for x in pids):
                pids = sorted(pids, key=rank_of)
                if until is None or until(pids):
                    return pids
                self.waited = until.__doc__.strip()
            time.sleep(0.02)
        self.kill()
        return None

    def why(self, sig):
        if self.waited:
            return f'the ranks caught signal {sig}, but not "{self.waited}" within {READY} s'
        return f'the ranks did not catch signal {sig} within {READY} s (exit {self.p.returncode})'

    def kill(self):
        """The ranks and mpirun, by their pids."""
        try:
            with open(f'/proc/{self.p.pid}/task/{self.p.pid}/children') as f:
                pids = [int(x) for x in f.read().split()]
        except OSError:
            pids = []
        for pid in pids + [self.p.pid]:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass

    def finish(self, timeout=300):
        """The exit status and rank 0's lines, once the job ended."""
        self.p.wait(timeout=timeout)
        self.reader.join()
        return self.p.returncode, [l for l in self.lines if l.startswith('lbtorus:')]


def stepping(trace):
    """A condition for Job.ready: the --trace file being written (.NAME.tmp.HOST.PID beside it, renamed at the
    end) holds a row of a step after step 0 (rows reach it 4 KiB at a time). (--progress would say so sooner,
    but under MPI it stops the job: the progress line is rank 0's alone, and rank 0 then takes one step a call
    where the others take several.)"""
    d, name = os.path.split(trace)

    def stepped(pids):
        """a step in the trace"""
        rows = []
        for n in os.listdir(d):
            if n.startswith(f'.{name}.tmp.'):
                try:
                    with open(os.path.join(d, n)) as f:
                        rows += f.read().split('\n')[:-1]  # whole lines
                except OSError:
                    pass
        return any(r[:1].isdigit() and int(r.split(',')[0]) >= 1 for r in rows)
    return stepped


def signalled(tmp, to_ranks):
    """Issue 31, item 14 (docs/usage.md, "Signals under MPI"): SIGTERM stops
    every rank at one step and rank 0 writes the interrupted summary; the
    job's status is rank 0's, 3, when the ranks get the signal, but 1 when
    mpirun does (Open MPI then reports the job as aborted). Sent once the
    ranks catch it and their run took a step (a row of its trace)."""
    out = os.path.join(tmp, f'sig{int(to_ranks)}.json')
    trace = os.path.join(tmp, f'sig{int(to_ranks)}.csv')
    job = Job(None, ['run', '--shape', '4096x4096', '--init', 'worst:5', '--threads', '1', '--json', out,
                     '--trace', trace])
    what = f'SIGTERM to {"the ranks" if to_ranks else "mpirun"}'
    ranks = job.ready(signal.SIGTERM, stepping(trace))
    if ranks:
        for pid in ranks if to_ranks else [job.p.pid]:
            os.kill(pid, signal.SIGTERM)
    status, said = job.finish()
    if not ranks:
        return f'{what}: {job.why(signal.SIGTERM)}'
    want = 3 if to_ranks else 1
    if status != want:
        return f'{what}: exit {status}, want {want} ({said})'
    with open(out) as f:
        rec = json.load(f)
    if rec['stop_reason'] != 'interrupted' or rec['steps'] < 1:
        return f'{what}: stop_reason {rec["stop_reason"]}, steps {rec["steps"]}'
    return None


# ---- bound, search and reproduce spread their runs over the ranks (issue 28, item 3) ----
# Each runs alone and on 2 and 3 ranks, each in a directory of its own (same relative names), and every
# file and the printed summary must be one process's, byte for byte, provenance aside (date, ranks, command,
# threads: '# key: value' comment lines of .dat/.gp/.csv, the same keys of a JSON, and a manifest's checksums
# of the files that carry them). What catches a wrong spread: search's evaluations add up every restart's
# and its best restart (4, below) is rank 1's of 3, so a restart run twice, lost or taken from the wrong
# rank changes the JSON or the .npy; bound's rows follow the plan whatever order rank 0 appended the records
# in, so rows in rank order fail; reproduce's tables hold every run's numbers, each in its place.
SPREAD_PROV = ('date_utc', 'ranks', 'command', 'threads')
SPREAD_CASES = [
    ('search', ['search', '--shape', '5x5', '--ldiff', '12', '--mean', '4', '--restarts', '6', '--moves', '100',
                '--seed', '5', '--out', 'worst.npy', '--quiet', '--threads', '1']),
    ('bound', ['bound', '--out', 'b', '--shape', 'ring:8..32*2,torus2:4..8*2', '--init', 'uniform:1:2..64*4,worst:5',
               '--seed', '1,2', '--quiet'], ['--solo-pes', '64']),  # the 8x8 runs cut over all ranks
    ('reproduce', ['reproduce', 'fig5', 'cybenko', '--quick', '--quiet', '--out', 'r', '--threads', '1']),
]


def spread_bytes(path):
    """A file's bytes without its provenance: JSON keys, '# key: value' lines, manifest checksums."""
    data = open(path, 'rb').read()
    if path.endswith('.json') or path.endswith('.jsonl'):
        recs = [json.loads(l) for l in data.splitlines() if l.strip()]
        for r in recs:
            for k in list(r):
                if k in SPREAD_PROV or k in IGNORED or (path.endswith('manifest.json') and
                                                        k.endswith(('.dat', '.gp', '.json'))):
                    r.pop(k)
        if path.endswith('runs.jsonl'):  # a sweep's records: the same set, in the order the runs finished
            recs.sort(key=lambda r: r['run_key'])
        return recs
    return b''.join(l for l in data.splitlines(True)
                    if not any(l.startswith(f'# {k}:'.encode()) for k in SPREAD_PROV))


def spread_run(tmp, name, args, ranks, more=()):
    d = os.path.join(tmp, f'spread_{name}{ranks}')
    os.makedirs(d)
    cmd = [os.path.abspath(LBT)] + args + (list(more) if ranks else [])  # it runs in d
    if ranks:
        cmd = [MPIRUN, '--oversubscribe', '-np', str(ranks)] + cmd
    p = subprocess.run(cmd, cwd=d, env=ENV, capture_output=True, text=True, timeout=300)
    files = {}
    for root, _, names in os.walk(d):
        for n in names:
            files[os.path.relpath(os.path.join(root, n), d)] = spread_bytes(os.path.join(root, n))
    out = [l for l in p.stdout.splitlines() if not l.startswith('{')]  # search prints its JSON: compared below
    if name == 'search' and p.stdout.startswith('{'):
        files['stdout.json'] = [{k: v for k, v in json.loads(p.stdout).items() if k not in SPREAD_PROV}]
    return p, files, out


def spread_cases(tmp):
    """Two checks a case (2 and 3 ranks): one entry each, None where it passed."""
    return [bad for got in parallel([partial(spread_case, tmp, *c) for c in SPREAD_CASES]) for bad in got]


def spread_case(tmp, name, args, *more):
    """SPREAD_CASES's case: alone, then on 2 and 3 ranks."""
    out = []
    one, a, said = spread_run(tmp, name, args, 0)
    if one.returncode:
        return [f'{name} alone: exit {one.returncode}: {one.stderr}'] * 2
    wrong = None
    if name == 'search' and a['stdout.json'][0]['best_restart'] % 3 != 1:
        wrong = f'search: the best restart is {a["stdout.json"][0]["best_restart"]}, not one of rank 1 of 3'
    for ranks in (2, 3):
        many, b, said_many = spread_run(tmp, name, args, ranks, *more)
        what = f'{name} on {ranks} ranks'
        bad = wrong
        if many.returncode:
            bad = f'{what}: exit {many.returncode}: {many.stderr}'
        elif sorted(a) != sorted(b):
            bad = f'{what}: files {sorted(set(a) ^ set(b))} alone or under MPI only'
        elif said != said_many:
            bad = f'{what}: prints {said_many} where one process prints {said}'
        elif any(a[k] != b[k] for k in a):
            bad = f'{what}: {sorted(k for k in a if a[k] != b[k])} differ from one process\'s'
        out.append(bad)
    return out


def spread_signal(tmp, name, args):
    """SIGINT to the ranks of 2 once both catch it (as a terminal's ^C to the job's processes): every rank
    stops, exit 3, rank 0 says so in one line, and nothing is written (no .npy, no experiment, no staging
    directory, no temporary file)."""
    d = os.path.join(tmp, f'spread_sig_{name}')
    os.makedirs(d)
    job = Job(d, args)
    ranks = job.ready(signal.SIGINT)
    for pid in ranks or []:
        os.kill(pid, signal.SIGINT)
    status, said = job.finish()
    if not ranks:
        return f'{name}: {job.why(signal.SIGINT)}'
    left = sorted(os.path.relpath(os.path.join(r, n), d) for r, ds, ns in os.walk(d) for n in ns + ds)
    if status != 3 or len(said) != 1 or 'interrupted' not in said[0] or left:
        return f'{name}, SIGINT to 2 ranks of 2: exit {status} (want 3), {said}, left {left}'
    return None


SPREAD_SIGNALS = [
    ('search', ['search', '--shape', '8x8', '--ldiff', '64', '--mean', '40', '--restarts', '4', '--moves', '1000000',
                '--quiet', '--threads', '1']),
    ('reproduce', ['reproduce', 'trees', '--out', 'r', '--quiet', '--threads', '1']),
]
# ---- end of bound, search and reproduce ----


# ---- reproduce's jv-* and luling-* experiments over the ranks; gathers in pieces (issue 28, items 3-5) ----
# Every rank plans the same runs and runs its share (src/exp/reproduce.c, rp_spread): the files must be one
# process's, checked by spread_cases (2 and 3 ranks) as the experiments above. Their tables hold every run's
# numbers in its place: a run lost, run twice or taken from the wrong rank changes them. Then the same with
# the gathers' and exchanges' bytes in pieces of 5 (LBTORUS_COMM_PIECE): the results shared (an allgather
# of bytes), a Lüling-Monien run's requests and records (alltoallv) and its --dump (gathered on rank 0).
# (jv-fig23 is left out: its runs are planned by jv-fig1's code, only the link differs.)
EVERY = ['reproduce', 'jv-fig1', 'jv-table1', 'jv-speeds', 'jv-shake', 'jv-calibration',
         'luling-theorems', 'luling-cost', 'luling-figs', 'luling-table1', 'luling-compare', '--quick', '--quiet',
         '--out', 'r', '--threads', '1']
SPREAD_CASES.append(('reproduce-every', EVERY))
PIECE = dict(ENV, LBTORUS_COMM_PIECE='5')


def pieces(tmp):
    """Three checks: reproduce's shared results, a Lüling-Monien run, a bad LBTORUS_COMM_PIECE refused."""
    out = []
    args = ['reproduce', 'jv-table1', 'luling-table1', '--quick', '--quiet', '--out', 'r', '--threads', '1']
    one, a, said = spread_run(tmp, 'piece', args, 0)
    d = os.path.join(tmp, 'piece_mpi')
    os.makedirs(d)
    many = subprocess.run([MPIRUN, '--oversubscribe', '-np', '3', os.path.abspath(LBT)] + args, cwd=d, env=PIECE,
                          capture_output=True, text=True, timeout=300)
    b = {os.path.relpath(os.path.join(r, n), d): spread_bytes(os.path.join(r, n)) for r, _, ns in os.walk(d)
         for n in ns}
    bad = None
    if one.returncode or many.returncode:
        bad = f'reproduce in pieces of 5 bytes: exit {one.returncode} alone, {many.returncode} on 3 ranks: {many.stderr}'
    elif a != b:
        bad = f'reproduce in pieces of 5 bytes: {sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))} differ'
    out.append(bad)
    lm = ['--shape', '9x7', '--method', 'luling-monien', '--init', 'uniform:0:50', '--workload',
          'phases:0.1:0.9:0.1:0.7:3:9', '--until', 'steps:12', '--max-steps', '12']
    p1, r1 = run(tmp, 'piece1', 0, lm)
    p3, r3 = run(tmp, 'piece3', 3, lm, PIECE)
    rec = [json.load(open(r['json'])) if os.path.exists(r['json']) else {} for r in (r1, r3)]
    for x in rec:
        for k in IGNORED:
            x.pop(k, None)
    bad = None
    if p1.returncode or p3.returncode:
        bad = f'luling-monien in pieces of 5 bytes: exit {p1.returncode} alone, {p3.returncode} on 3 ranks: {p3.stderr}'
    elif open(r1['npy'], 'rb').read() != open(r3['npy'], 'rb').read() or rec[0] != rec[1]:
        bad = 'luling-monien in pieces of 5 bytes: the dump or the JSON record differs from one process\'s'
    elif rec[1]['operations'] < 1:
        bad = 'luling-monien in pieces of 5 bytes: no operation, so no records were exchanged'
    out.append(bad)
    out.append(expect_refusal(tmp, 2, ['--shape', '8x8'], 'LBTORUS_COMM_PIECE', dict(ENV, LBTORUS_COMM_PIECE='0')))
    return out


def one_signal(tmp, name, args, runs=None):
    """SIGINT to rank 1 of 2 once both catch it: rank 0 learns of it after its current run (the ranks agree
    after each round of a run a thread, src/exp/spread.c, or of a run a rank, a sweep's: src/exp/sweep.c), and
    as with a signal to both (spread_signal): exit 3, one line from rank 0, nothing written. The line names the
    signal rank 1 got, as the ranks agreed it ("interrupted on another rank (signal 2)"; rank 0 has none).
    runs: bound's records file, signalled once it holds a record (the sweep under way), and kept with the
    finished runs, fewer than half the plan's: rank 0 does not run its share (half) to the end; its line is
    the sweep's ("interrupted: N of M runs are in ..."), which names no signal."""
    d = os.path.join(tmp, f'one_sig_{name}')
    os.makedirs(d)
    job = Job(d, args)

    def a_record(pids):
        """the records file holds a record"""
        at = os.path.join(d, runs)
        return os.path.exists(at) and open(at).readline().endswith('\n')

    ranks = job.ready(signal.SIGINT, a_record if runs else None)
    if ranks:
        os.kill(ranks[1], signal.SIGINT)
    status, said = job.finish()
    if not ranks:
        return f'{name}: {job.why(signal.SIGINT)}'
    left = sorted(os.path.relpath(os.path.join(r, n), d) for r, ds, ns in os.walk(d) for n in ns + ds)
    want = 'interrupted: ' if runs else 'interrupted on another rank (signal 2); '
    kept = sorted({runs, os.path.dirname(runs)}) if runs else []
    bad = status != 3 or len(said) != 1 or want not in said[0] or left != kept
    if not bad and runs:
        ran = said[0].split('interrupted: ')[1].split(' runs are in')[0].split(' of ')
        bad = len(open(os.path.join(d, runs)).readlines()) != int(ran[0]) or 2 * int(ran[0]) >= int(ran[1])
    if bad:
        return f'{name}, SIGINT to rank 1 of 2: exit {status} (want 3), {said} (want "{want}"' \
               f'{", under half the runs" if runs else ""}), left {left}'
    return None


ONE_SIGNAL = [
    ('search', ['search', '--shape', '8x8', '--ldiff', '64', '--mean', '40', '--restarts', '8', '--moves', '200000',
                '--quiet', '--threads', '1']),
    ('reproduce', ['reproduce', 'luling-cost', '--out', 'r', '--quiet', '--threads', '1']),
    # 25 small runs (5 rings x 5 worst cases), 0.04-0.7 s each on a Zen 3 core, 6 s in all: half of it is
    # rank 0's share
    ('bound', ['bound', '--out', 'b', '--shape', 'ring:4096..8192+1024', '--init', 'worst:2..6+1', '--quiet'],
     'b/runs.jsonl'),
]
# ---- end of reproduce's jv-* and luling-*, gathers in pieces ----


# ---- a file's first bad value on blocks; two threads a rank (issue 28's small faults) ----
def first_bad_value(tmp):
    """Two checks. A file: init's bad value on blocks that cut the last axis is named as one process names it:
    the first in flat order. 4x4 on 2x2: rank 0 holds rows 0-1 x columns 0-1, rank 1 rows 0-1 x columns 2-3;
    a negative load at (0, 3), flat index 3, is rank 1's, and one at (1, 0), flat index 4, rank 0's: the
    lowest failing rank's would be index 4, one process names 3. The gathers in pieces of 5 bytes
    (LBTORUS_COMM_PIECE: lbt_comm_allgather of the ranks' 8-byte indices and totals), then a good file
    read so equals one process's run."""
    out = []
    bad = os.path.join(tmp, 'two_bad.npy')
    write_npy(bad, 4, 4, [1, 1, 1, -7, -5] + [1] * 11)
    lines = []
    for cmd, env in (([LBT], ENV), ([MPIRUN, '--oversubscribe', '-np', '4', LBT], PIECE)):
        p = subprocess.run(cmd + ['run', '--shape', '4x4', '--init', 'file:' + bad, '--until', 'steps:2', '--quiet',
                                  '--json', os.path.join(tmp, 'two_bad.json')] + (['--ranks', '2x2'] if env is PIECE
                                                                                  else []),
                           env=env, capture_output=True, text=True, timeout=120)
        said = [l for l in p.stderr.splitlines() if l.startswith('lbtorus:')]
        lines.append((p.returncode, said))
    if lines[0] != lines[1] or lines[0][0] != 2 or 'flat index 3 ' not in lines[0][1][0]:
        out.append(f'a file with bad values at flat indices 3 (rank 1 of 2x2) and 4 (rank 0): {lines[0]} alone, '
                   f'{lines[1]} on 4 ranks (want exit 2, one line naming index 3, the same)')
    else:
        out.append(None)
    good = os.path.join(tmp, 'good16.npy')
    write_npy(good, 4, 4, [3 * i % 11 for i in range(16)])
    args = ['--shape', '4x4', '--init', 'file:' + good, '--until', 'steps:5', '--method', 'nna']
    p1, r1 = run(tmp, 'good1', 0, args)
    p4, r4 = run(tmp, 'good4', 4, args + ['--ranks', '2x2'], PIECE)
    rec = [json.load(open(r['json'])) if os.path.exists(r['json']) else {} for r in (r1, r4)]
    for x in rec:
        for k in IGNORED:
            x.pop(k, None)
    if p1.returncode or p4.returncode or rec[0] != rec[1] or open(r1['npy'], 'rb').read() != open(r4['npy'], 'rb').read():
        out.append(f'a file on 2x2 in pieces of 5 bytes: exit {p1.returncode} alone, {p4.returncode} on 4 ranks '
                   f'({p4.stderr.strip()}), or the dump or the JSON record differs from one process\'s')
    else:
        out.append(None)
    return out


# Two threads a rank against one process on one thread (each case: its halo depth LBTORUS_HALO, or None; the
# case as compare takes it, case[7:] going to the MPI run only). A block or slab must hold 2^17 PEs for the
# Liquid model's kernel to take 2 threads (one per 2^16 PEs, kernels/simd/lm.c): 128x128x32 on 2x2x1 (blocks
# of 64x64x32), 512x512 on 2 slabs (256x512). Cybenko's Poisson arrivals share a rank's rows among all its
# threads (src/exec/workload.c, rows_phase). lm-c2 and lm-c4 read their predecessor's load: a thread's
# range must take the two old slabs before it (a planted error that copied one on a cut view's later threads
# failed both on byte loads; lm-c5, and int32 loads, passed it).
THREADED = [
    (1, ('128x128x32', 'torus', 'lm-c5', 'uniform:0:100000', 'steps:12', 4, '', '--ranks', '2x2x1', '--threads',
         '2')),
    (4, ('128x128x32', 'torus', 'lm-c2', 'uniform:0:9', 'steps:12', 4, '', '--ranks', '2x2x1', '--threads', '2')),
    (None, ('512x512', 'torus', 'lm-c4', 'uniform:0:9', 'steps:12', 2, '', '--threads', '2')),
    (None, ('512x512', 'torus', 'nna', 'const:0', 'steps:10', 2, 'cybenko:poisson:1:1', '--threads', '2')),
]


# ---- end of a file's first bad value, two threads a rank ----


# The halo fill overlapped with the interior's step (issue 28 item 2): on a slab of the Liquid model's vector
# kernel, one step an exchange (K = 1), the fill is started, the slabs that read no halo (local 2 .. n-2)
# stepped, the fill finished, the rim (n-1, 0, 1) stepped from the halo and the interior's old slabs kept
# aside. Int32 loads (the byte copy of AVX2's 2-D slabs keeps its own order) and bytes where it does not
# apply (rows not whole byte vectors, 3-D), slabs of 4 (an interior of one slab), 5 and 6 rows beside
# ones of 3 (thinner than 4: not overlapped) on one run, odd extents, tori, meshes and mixed, C0-C5, several
# steps a call and one a call (to balanced), and two threads a rank (the interior on 2 threads: 512 rows a
# rank of 512).
OVERLAP = [
    (None, ('12x40', 'torus', 'lm-c5', 'uniform:0:100000', 'steps:20', 2)),
    (None, ('13x64', 'mesh', 'lm-c2', 'uniform:0:100000', 'steps:20', 3)),
    (None, ('11x16', 'torus', 'lm-c3', 'uniform:0:9', 'steps:20', 3)),
    (None, ('9x6x16', 'torus,mesh,torus', 'lm-c4', 'uniform:0:9', 'steps:15', 2)),
    (None, ('10x4x8', 'mesh', 'lm-c1', 'worst:5', 'steps:20', 2)),
    (None, ('16x32', 'torus', 'lm-c5', 'worst:5', 'balanced', 2)),
    (None, ('15x33', 'mesh,torus', 'lm-c0', 'uniform:0:100000', 'steps:25', 3)),
    (None, ('8x64', 'torus', 'lm-c5', 'uniform:0:100000', 'steps:20', 2)),
    (2, ('12x40', 'torus', 'lm-c5', 'uniform:0:100000', 'steps:20', 2)),  # the deep rounds' last step of 1
    (None, ('1024x512', 'torus', 'lm-c2', 'uniform:0:100000', 'steps:8', 2, '', '--threads', '2')),
]


def overlap_order(tmp):
    """The order is the overlapped one (LBTORUS_COMM_STATS): on 2 slabs of a 64x40 torus (32 rows a rank),
    of a 16x8x32 mesh (8 layers of 8x32) and of a 64x64 torus, K = 1, int32 loads, the ISA the program
    chooses, every fill of a rank is overlapped (overlapped_fills: one a step) with its interior's step: 29
    rows of 40 (5 layers of 256, 29 rows of 64) a step stepped while the messages were under way
    (overlap_pes), several steps a call and one a call (to balanced, 100 steps at most). A step that fills
    before it steps (the order before) counts none. (Rows of 40 are not whole byte vectors: AVX2 tries its
    byte copy on rows of 64 at the first step of a call of several, which fills before it steps.)"""
    out = []
    env = {k: v for k, v in ENV.items() if k != 'LBTORUS_ISA'}  # the reference (scalar) does not overlap
    for shape, bnd, until, inner in (('64x40', 'torus', 'steps:16', 29 * 40), ('16x8x32', 'mesh', 'balanced', 5 * 256),
                                     ('64x64', 'torus', 'balanced', 29 * 64)):
        stats, js = os.path.join(tmp, 'overlap.json'), os.path.join(tmp, 'overlap_run.json')
        p = subprocess.run([MPIRUN, '--oversubscribe', '-np', '2', LBT, 'run', '--shape', shape, '--boundary', bnd,
                            '--init', 'uniform:0:100000', '--until', until, '--max-steps', '100', '--threads', '1',
                            '--quiet', '--json', js], env=dict(env, LBTORUS_COMM_STATS=stats, LBTORUS_HALO='1'),
                           capture_output=True, text=True, timeout=120)
        if p.returncode not in (0, 3):
            out.append(f'overlap on 2 slabs of {shape}: exit {p.returncode}: {p.stderr.strip()}')
            continue
        t, steps = json.load(open(stats)), json.load(open(js))['steps']
        got = (t['fills'], t['overlapped_fills'], t['overlap_pes'])
        if steps < 2 or got != ([steps] * 2, [steps] * 2, [steps * inner] * 2):
            out.append(f'{shape} {bnd} to {until} on 2 slabs, K = 1: fills, overlapped fills, PEs stepped while '
                       f'the messages travelled {got}, want {steps}, {steps}, {steps * inner} a rank ({steps} steps)')
    return '; '.join(out) or None


# ---- stops agreed without waiting, and the signal named (issue 28's leftovers) ----
def run_signal_named(tmp, when):
    """SIGINT to rank 1 of 2 of a `run`, in its set-up (as soon as it catches signals: filling 2^27 PEs a rank
    takes seconds) or at a step (once the run took one, a row of its trace; a 4096x4096 worst case far from
    balanced): every rank stops, exit 3, and rank 0's one line names the signal rank 1 got, as the ranks agreed
    it (src/exec/state.c, run.c: lbt_comm_stop; rank 0 has none of its own)."""
    d = os.path.join(tmp, f'run_sig_{when}')
    os.makedirs(d)
    setup = when == 'setup'
    args = ['run', '--shape', '16384x16384' if setup else '4096x4096', '--init', 'uniform:0:100' if setup else 'worst:5',
            '--until', 'steps:1000000', '--threads', '1', '--quiet', '--json', 's.json']
    job = Job(d, args if setup else args + ['--trace', os.path.join(d, 's.csv')])
    pids = job.ready(signal.SIGINT, None if setup else stepping(os.path.join(d, 's.csv')))
    if pids:
        os.kill(pids[1], signal.SIGINT)
    status, said = job.finish()
    if not pids:
        return f'run, SIGINT to rank 1 of 2 in its {when}: {job.why(signal.SIGINT)}'
    want = ('run: interrupted on another rank (signal 2); it stopped in its set-up' if setup
            else 'interrupted on another rank (signal 2) after step')
    if status != 3 or len(said) != 1 or want not in said[0]:
        return f'run, SIGINT to rank 1 of 2 in its {when}: exit {status} (want 3), {said} (want "{want}")'
    return None


def sweep_no_lockstep(tmp):
    """A sweep's ranks run their runs at their own pace (src/exp/sweep.c, lbt_comm_watch): rank 0's first run
    is a 2048x2048 worst case that never ends here, the 13 of rank 1 (16x16, 18x18, ... 40x40) take well under a
    second. SIGINT to rank 0 once rank 1 waits for it (asleep: its runs done): their 13 records are in the file,
    rank 0's none; in rounds of a run a rank (the ranks agreeing after each) rank 1 would have done one and
    would wait in the round's agreement, never asleep."""
    d = os.path.join(tmp, 'sweep_pace')
    os.makedirs(d)
    job = Job(d, ['sweep', '--results', 'r.jsonl', '--shape', '2048x2048,torus2:16..40', '--init', 'worst:5',
                  '--solo-pes', '100000000', '--quiet'])

    def rank_1_waits(pids):
        """rank 1 waits (asleep)"""
        return asleep(pids[1])

    pids = job.ready(signal.SIGINT, rank_1_waits)
    if pids:
        os.kill(pids[0], signal.SIGINT)
    status, said = job.finish()
    if not pids:
        return f'sweep, SIGINT to rank 0 in its first run: {job.why(signal.SIGINT)}'
    recs = [json.loads(l) for l in open(os.path.join(d, 'r.jsonl'))] if os.path.exists(os.path.join(d, 'r.jsonl')) else []
    shapes = sorted(r['shape'] for r in recs)
    want = sorted(f'{k}x{k}' for k in range(16, 41, 2))
    if status != 3 or shapes != want or len(said) != 1 or 'interrupted: 13 of 26 runs' not in said[0]:
        return f'sweep, SIGINT to rank 0 in its first run: exit {status} (want 3), records of {shapes} ' \
               f'(want rank 1\'s {want}), {said}'
    return None


def stops(tmp):
    return [run_signal_named(tmp, 'setup'), run_signal_named(tmp, 'step'), sweep_no_lockstep(tmp)]
# ---- end of the stops ----


START = time.monotonic()


def stage(name):
    """A line as each block of checks starts, with the time since the start: a timeout's log says where it stopped."""
    print(f'[{time.monotonic() - START:7.1f} s] {name}', flush=True)


def main():
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        cases, uncut, slabs_only = registry_cases(registries())
        # a file: init cut into slabs
        _, a = run(tmp, 'src', 0, ['--shape', '9x5', '--init', 'uniform:0:7', '--until', 'steps:3', '--max-steps', '3'])
        # rows 2 and 3 of 4 near 2^31-1: arrivals overflow a PE on the last ranks only
        high = os.path.join(tmp, 'high.npy')
        write_npy(high, 4, 3, [0] * 6 + [2147483000] * 6)
        calls = [partial(compare, tmp, i, case) for i, case in enumerate(cases + EXTRA)]
        calls += [
            partial(compare, tmp, 'file', ('9x5', 'torus', 'nna', 'file:' + a['npy'], 'steps:8', 3)),
            # a cycle (lm-c0 never balances the worst case) is found on every rank at the same step: exit 3
            partial(compare, tmp, 'cycle', ('8x8', 'torus', 'lm-c0', 'worst:5', 'balanced', 3)),
            # rank 0 alone watches every step for its progress line; the others' calls must be its calls
            # (they took several steps a call, rank 0 one: the ranks' exchanges never met, a hang)
            partial(compare, tmp, 'progress', ('64x64', 'torus', 'lm-c5', 'uniform:0:100', 'steps:150', 3),
                    both=('--progress', '0.001')),
            partial(expect_refusal, tmp, 4, ['--shape', '3x1'], 'cannot be cut into 4 blocks'),
            # a grid of ranks that does not match the rank count, or does not divide the torus
            partial(expect_refusal, tmp, 4, ['--shape', '8x8', '--ranks', '3x1'], '3 ranks, but 4 are running'),
            partial(expect_refusal, tmp, 4, ['--shape', '3x4', '--ranks', '4x1'], 'does not divide the torus'),
            partial(expect_refusal, tmp, 2, ['--shape', '8x8', '--ranks', '2x1x1'], '3 counts for a torus of 2')]
        calls += [partial(expect_refusal, tmp, 4, ['--shape', '6x6', '--ranks', '2x2', '--init', 'const:0',
                                                   '--workload', w], 'runs on a torus cut into slabs')
                  for w in slabs_only]
        calls += [partial(compare, tmp, f'halo{k}_{i}', case, k) for k in HALO_STEPS for i, case in enumerate(HALO)]
        # K = 2 where the last axis is cut: taken as 1, as K = 8 is (the same run)
        calls += [partial(compare, tmp, f'blocks{k}_{i}', case, k) for k in HALO_STEPS
                  for i, case in enumerate(BLOCKS_HALO) if k != 2 or not last_cut(case)]
        calls += [partial(compare, tmp, f'rowcut{i}', case, ROWCUT_HALO[i % len(ROWCUT_HALO)])
                  for i, case in enumerate(ROWCUT)]
        calls += [partial(block_messages, tmp)]
        calls += [partial(expect_refusal, tmp, 2, ['--shape', '8x8'], 'LBTORUS_HALO', dict(ENV, LBTORUS_HALO=bad))
                  for bad in ('0', '17', 'two')]
        calls += [partial(compare, tmp, f'verify{i}', case, verify=True) for i, case in enumerate(VERIFY)]
        calls += [partial(compare, tmp, 'verify_halo', VERIFY_HALO, 2, verify=True)]
        calls += [partial(verify_fails, case) for case in VERIFY_FAILS]
        calls += [partial(expect_refusal, tmp, 2, ['--shape', '8x8', '--method', m], 'runs on one process only')
                  for m in uncut]
        calls += [
            partial(expect_refusal, tmp, 3, ['--shape', '6x5', '--workload', 'tree:2:3', '--init', 'const:1'],
                    'a search starts on an empty machine'),
            partial(same_failure, tmp, 4, ['--init', 'file:' + high, '--method', 'none', '--workload',
                                           'cybenko:uniform:0:1000:0', '--until', 'steps:5']),
            partial(grid_choice, tmp), partial(deep_messages, tmp), partial(pictures, tmp),
            partial(sweep, tmp, SWEEP, ''), partial(sweep, tmp, SWEEP_WL, 'wl'),
            partial(sweep, tmp, SWEEP + ['--verify'], 'verify')]  # the 8x8 runs cut between all ranks too
        calls += [partial(compare, tmp, f'thr{i}', case, halo) for i, (halo, case) in enumerate(THREADED)]
        calls += [partial(compare, tmp, f'ovl{i}', case, halo) for i, (halo, case) in enumerate(OVERLAP)]
        calls += [partial(overlap_order, tmp)]
        stage(f'{len(calls)} checks, {JOBS} at a time')
        failures += parallel(calls)
        for name, block in (('luling', luling), ('speeds', speeds), ('spread_cases', spread_cases),
                            ('pieces', pieces), ('first_bad_value', first_bad_value)):
            stage(name)
            failures += block(tmp)
        # the signals: one job at a time, nothing else running
        stage('signals')
        failures.append(signalled(tmp, True))
        failures.append(signalled(tmp, False))
        failures += [spread_signal(tmp, *c) for c in SPREAD_SIGNALS]
        failures += [one_signal(tmp, *c) for c in ONE_SIGNAL]
        stage('stops')
        failures += stops(tmp)
        stage('done')
    checks = len(failures)  # one entry per check: None where it passed
    failures = [f for f in failures if f]
    for f in failures:
        print('FAIL', f)
    print(f'{checks - len(failures)} of {checks} checks passed')
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())

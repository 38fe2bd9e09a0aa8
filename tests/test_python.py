"""test_python.py — the Python module lbtorus (python/lbtorus, docs/python.md)
against the `lbtorus` CLI of the same build ($LBTORUS): the same run gives
the same bits through both (the --dump .npy, the JSON record, the trace),
a dynamic run conserves its load, fields go in and out, errors are
exceptions carrying the CLI's one line, and the two studies of issue 29 —
T against K for the worst case and the steady-state variance under Poisson
arrivals — give the CLI's numbers. Run by tests/python_suite.py (meson test
python)."""
import hashlib
import json
import os
import subprocess
import sys

import numpy as np
import pytest

import lbtorus

CLI = os.environ['LBTORUS']
SOURCE = os.environ['LBTORUS_SOURCE']
# The record's keys that differ between two runs of the same inputs: timing,
# the date, and the call that made it (a command line, a Python call).
VOLATILE = {'seconds', 'site_updates_per_second', 'date_utc', 'command'}


def cli(tmp_path, *args):
    """`lbtorus run ARGS --threads 1` with --json, --trace and --dump into
    tmp_path: (record, trace as lbtorus.read_trace, final loads)."""
    j, t, d = (str(tmp_path / x) for x in ('r.json', 't.csv', 'd.npy'))
    r = subprocess.run([CLI, 'run', '--threads', '1', '--quiet', '--json', j, '--trace', t, '--dump', d] + list(args),
                       capture_output=True, text=True)
    assert r.returncode in (0, 3), r.stderr  # 3: stopped unconverged, still a record
    return json.load(open(j)), lbtorus.read_trace(t), np.load(d)


def cli_error(*args):
    """The one line `lbtorus run ARGS` prints on stderr for bad input (exit 2), without "lbtorus: "."""
    r = subprocess.run([CLI, 'run', '--quiet'] + list(args), capture_output=True, text=True)
    assert r.returncode == 2, (args, r.returncode, r.stderr)
    lines = r.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith('lbtorus: '), r.stderr
    return lines[0][len('lbtorus: '):]


def same_record(mine, theirs):
    assert list(mine) == list(theirs)
    differ = {k: (mine[k], theirs[k]) for k in theirs if k not in VOLATILE and mine[k] != theirs[k]}
    assert not differ


def same_trace(mine, theirs):
    """Every column as the CSV holds it: loads and link amounts exactly
    (integers, or %.17g which reads back to the same double), stddev to the
    CSV's 6 decimals, rel to its 9 significant digits."""
    assert mine.dtype.names == theirs.dtype.names and len(mine) == len(theirs)
    for c in mine.dtype.names:
        if c == 'stddev':
            assert np.all(np.abs(mine[c] - theirs[c]) <= 5e-7 + 1e-15 * np.abs(mine[c])), c
        elif c == 'rel':
            assert np.allclose(mine[c], theirs[c], rtol=1e-8, atol=0), c
        else:
            assert np.array_equal(mine[c], theirs[c]), c


# (keywords of lbtorus.run, the same run's CLI options)
RUNS = [
    (dict(shape=(32, 32), method='lm-c5', init='worst:5', until='balanced'),
     ['--shape', '32x32', '--method', 'lm-c5', '--init', 'worst:5', '--until', 'balanced']),
    (dict(shape=(16, 24), method='fos', init='uniform:0:9', until='rel:1e-3', alpha=0.2, seed=5),
     ['--shape', '16x24', '--method', 'fos', '--init', 'uniform:0:9', '--until', 'rel:1e-3', '--alpha', '0.2',
      '--seed', '5']),
    (dict(shape='8x8x8', method='nna', init='uniform:0:20', until='steps:30', seed=3),
     ['--shape', '8x8x8', '--method', 'nna', '--init', 'uniform:0:20', '--until', 'steps:30', '--seed', '3']),
    (dict(shape=(12, 20), method='fos-int', init='uniform:0:9', workload='cybenko:poisson:1:1', until='steps:50',
          seed=7, alpha=0.2),
     ['--shape', '12x20', '--method', 'fos-int', '--init', 'uniform:0:9', '--workload', 'cybenko:poisson:1:1',
      '--until', 'steps:50', '--seed', '7', '--alpha', '0.2']),
]


@pytest.mark.parametrize('kw,args', RUNS, ids=[r[0]['method'] for r in RUNS])
def test_same_bits_as_the_cli(tmp_path, kw, args):
    rec, trace, dump = cli(tmp_path, *args)
    sim = lbtorus.run(threads=1, trace=True, **kw)
    same_record(sim.summary(), rec)
    loads = sim.read()
    assert loads.dtype == dump.dtype and loads.shape == dump.shape and np.array_equal(loads, dump)
    same_trace(sim.trace, trace)
    # without a trace or callback the library steps in batches: the same bits
    quiet = lbtorus.run(threads=1, **kw)
    same_record(quiet.summary(), rec)
    assert np.array_equal(quiet.read(), dump)


def test_record_names_the_python_call():
    sim = lbtorus.run(shape=(8, 8), until='steps:3', threads=1)
    assert sim.summary()['command'] == "lbtorus.run(shape=(8, 8), until='steps:3', threads=1)"


def test_dynamic_run_conserves_load(tmp_path):
    """Cybenko's Poisson arrivals and unit service: after every step the
    total is the total before plus what was generated minus what was
    completed; the record's totals say the same, and stepping in pieces
    continues the arrivals exactly (the CLI's run of all the steps)."""
    kw = dict(shape=(32, 32), method='lm-c5', init='const:0', workload='cybenko:poisson:1:1', seed=2, threads=1)
    sim = lbtorus.run(until='steps:200', trace=True, **kw)
    t = sim.trace
    assert t['step'][0] == 0 and t['total'][0] == 0 and len(t) == 201
    assert np.array_equal(t['total'][1:], t['total'][:-1] + t['generated'][1:] - t['completed'][1:])
    rec = sim.summary()
    assert rec['generated'] == t['generated'].sum() and rec['completed'] == t['completed'].sum()
    assert sim.read().sum() == rec['generated'] - rec['completed'] > 0
    pieces = lbtorus.Sim(until='steps:200', **kw)
    for n in (1, 49, 50, 100):
        pieces.step(n)
    assert pieces.steps_taken == 200
    _, _, dump = cli(tmp_path, '--shape', '32x32', '--method', 'lm-c5', '--init', 'const:0', '--workload',
                     'cybenko:poisson:1:1', '--seed', '2', '--until', 'steps:200')
    assert np.array_equal(pieces.read(), dump) and np.array_equal(sim.read(), dump)


def test_steps_go_on_with_phases_and_search_trees(tmp_path):
    """step() keeps one run open: a search tree and Lüling and Monien's
    phases go on across the calls, so 1 + 4 + 10 steps leave the record
    (timing aside) and the loads of the CLI's run of steps:15."""
    for workload in ('tree:2:6', 'phases:0.1:0.9:0.1:0.7:2:5'):
        init = 'const:0' if workload.startswith('tree') else 'uniform:0:9'
        sim = lbtorus.Sim(shape=(8, 8), method='lm-c5', init=init, workload=workload, seed=3, threads=1)
        for n in (1, 4, 10):
            sim.step(n)
        rec, _, dump = cli(tmp_path, '--shape', '8x8', '--method', 'lm-c5', '--init', init, '--workload', workload,
                           '--seed', '3', '--until', 'steps:15')
        mine = sim.summary()
        assert mine['steps'] == 15 and mine['until'] == 'steps:15'
        same_record(mine, rec)
        assert np.array_equal(sim.read(), dump)


def test_callback_sees_every_step_and_stops_the_run():
    seen = []
    sim = lbtorus.run(shape=(16, 16), until='balanced', threads=1, callback=lambda r: seen.append(r) or r['step'] == 10)
    assert [r['step'] for r in seen] == list(range(11))
    assert all(r['total'] == 16 * 16 * 5 for r in seen)
    rec = sim.summary()
    assert rec['stop_reason'] == 'interrupted' and rec['steps'] == 10

    def boom(r):
        if r['step'] == 3:
            raise RuntimeError('from the callback')
    with pytest.raises(RuntimeError, match='from the callback'):
        lbtorus.run(shape=(16, 16), threads=1, callback=boom)


def test_ctrl_c_stops_a_run_and_leaves_it_usable():
    """SIGINT (Ctrl-C) during a run: the library's interrupt flag stops it
    after its current step, KeyboardInterrupt is raised, and the run can go
    on. The signal is sent from the callback at step 5 (the main thread, in
    the module's wait, gets it); the run would otherwise take 2.5·64² − 3 =
    10237 steps."""
    import signal
    sim = lbtorus.Sim(shape=(64, 64), init='worst:5', threads=1)
    with pytest.raises(KeyboardInterrupt):
        sim.run(callback=lambda r: r['step'] == 5 and os.kill(os.getpid(), signal.SIGINT) and False)
    stopped = sim.steps_taken
    assert 5 <= stopped < 10237
    sim.step(2)
    assert sim.steps_taken == stopped + 2 and sim.summary()['steps'] == 2


def test_fields_in_and_out(tmp_path):
    rng = np.random.default_rng(4)
    w = rng.integers(0, 50, size=(12, 18), dtype=np.int32)
    sim = lbtorus.Sim(shape=(12, 18), method='nna', until='steps:5', threads=1)
    assert sim.field() == ('<i4', (12, 18))
    for order in ('C', 'F'):
        sim.write(np.asarray(w, order=order))
        out = np.zeros((12, 18), dtype=np.int32, order=order)
        assert sim.read(out=out) is out and np.array_equal(out, w)
    strided = np.zeros((24, 36), dtype=np.int32)[::2, ::2]  # a view: no copy either way
    sim.read(out=strided)
    assert np.array_equal(strided, w)
    sim.write(w.T.copy().T)  # Fortran order
    assert np.array_equal(sim.read(), w)
    # an array as init is the CLI's file:W.npy
    np.save(tmp_path / 'w.npy', w)
    rec, _, dump = cli(tmp_path, '--shape', '12x18', '--method', 'nna', '--init', 'file:%s' % (tmp_path / 'w.npy'),
                       '--until', 'steps:5')
    mine = lbtorus.run(method='nna', init=w, until='steps:5', threads=1)
    assert np.array_equal(mine.read(), dump)
    # but the record's init: const:0 and the array written over it, no file to checksum
    a, b = mine.summary(), rec
    assert a['init'] == 'const:0' and 'init_sha256' not in a and len(b['init_sha256']) == 64
    skip = VOLATILE | {'init', 'init_sha256'}
    assert {k: a[k] for k in a if k not in skip} == {k: b[k] for k in b if k not in skip}
    # real-valued loads: float64 in and out
    fos = lbtorus.Sim(shape=(6, 6), method='fos', threads=1)
    assert fos.field() == ('<f8', (6, 6))
    x = rng.random((6, 6)) * 10
    fos.write(x)
    assert np.array_equal(fos.read(), x)


def test_field_errors():
    sim = lbtorus.Sim(shape=(4, 4), threads=1)
    with pytest.raises(lbtorus.Error, match="PE 5 holds -1: loads are >= 0"):
        w = np.zeros((4, 4), dtype=np.int32)
        w.flat[5] = -1
        sim.write(w)
    with pytest.raises(lbtorus.Error, match="the array's shape is not the torus's"):
        sim.write(np.zeros((4, 5), dtype=np.int32))
    with pytest.raises(lbtorus.Error, match="is of dtype <i4, the array of <f8"):
        sim.read(out=np.zeros((4, 4)))
    with pytest.raises(lbtorus.Error, match="has no field 'speed'"):
        sim.read('speed')


# Bad input: the exception's text is the CLI's line for the same options.
BAD = [
    (dict(shape=(8, 8), method='nosuch'), ['--shape', '8x8', '--method', 'nosuch']),
    (dict(shape='8x0'), ['--shape', '8x0']),
    (dict(shape=(8, 8), until='sometime'), ['--shape', '8x8', '--until', 'sometime']),
    (dict(shape=(8, 8), init='worst:x'), ['--shape', '8x8', '--init', 'worst:x']),
    (dict(shape=(8, 8), workload='cybenko:nope:1'), ['--shape', '8x8', '--workload', 'cybenko:nope:1']),
    (dict(shape=(8, 8), method='fos', alpha=5), ['--shape', '8x8', '--method', 'fos', '--alpha', '5']),
    (dict(shape=(8, 8), isa='nosuch'), ['--shape', '8x8', '--isa', 'nosuch']),
]


# Where the CLI checks an option itself (src/cli/run.c) its line names the
# option; the library's (src/api/sim.c) names the keyword the caller gave,
# in the same words otherwise: the CLI's line with each option spelled as
# its keyword.
KEYWORD = [(dict(shape=(8, 8), warmup=5), ['--shape', '8x8', '--warmup', '5']),
           (dict(shape=(8, 8), until='steps:10', max_steps=5),
            ['--shape', '8x8', '--until', 'steps:10', '--max-steps', '5'])]


@pytest.mark.parametrize('kw,args', KEYWORD, ids=[' '.join(a[2:]) for _, a in KEYWORD])
def test_errors_the_cli_checks_itself_name_the_keyword(kw, args):
    want = cli_error(*args)
    if want.startswith('run: '):
        want = want[5:]
    for option in ('--max-steps', '--warmup', '--workload', '--until'):
        want = want.replace(option, option[2:].replace('-', '_'))
    with pytest.raises(lbtorus.Error) as e:
        lbtorus.run(threads=1, **kw)
    assert str(e.value) == want and e.value.status == 'invalid'


@pytest.mark.parametrize('kw,args', BAD, ids=[' '.join(a[2:]) for _, a in BAD])
def test_errors_carry_the_cli_message(kw, args):
    """The exception's text is the CLI's line, but for the name of the
    command ("run: ") the CLI puts before some of its lines."""
    want = cli_error(*args)
    with pytest.raises(lbtorus.Error) as e:
        lbtorus.run(threads=1, **kw)
    assert want in (str(e.value), 'run: ' + str(e.value)) and e.value.status == 'invalid'


def test_integers_the_library_would_not_see_whole():
    """A keyword's integer outside its C type is refused, not wrapped (seed
    -1 would be seed 2^64 - 1), in the words of the CLI's option check."""
    assert cli_error('--shape', '8x8', '--seed', '-1') == "--seed '-1': give an integer in 0..18446744073709551615"
    for kw, line in ((dict(seed=-1), "seed '-1': give an integer in 0..18446744073709551615"),
                     (dict(seed=2**64), "seed '18446744073709551616': give an integer in 0..18446744073709551615"),
                     (dict(max_steps=-1), "max_steps '-1': give an integer in 0..9223372036854775807"),
                     (dict(warmup=1.5), "warmup '1.5': give an integer in 0..9223372036854775807")):
        with pytest.raises(lbtorus.Error) as e:
            lbtorus.Sim(shape=(8, 8), **kw)
        assert str(e.value) == line


def test_registries_are_the_clis():
    """methods() and workloads() list what `lbtorus run --help` lists, with
    the schema of every parameter the CLI accepts as an option."""
    usage = subprocess.run([CLI, 'run', '--help'], capture_output=True, text=True).stdout
    ms = lbtorus.methods()
    assert ms and all(m['name'] in usage for m in ms)
    for m in ms:
        for p in m['params']:
            assert '--' + p['name'].replace('_', '-') in usage, p['name']
            assert p['lo'] <= p['hi'] and p['default'] is not None
    assert [w['name'] for w in lbtorus.workloads()][:2] == ['none', 'cybenko']
    fos = next(m for m in ms if m['name'] == 'fos')
    assert fos['real'] and [p['name'] for p in fos['params']] == ['alpha']


def test_sweep_and_results_files(tmp_path):
    spec = tmp_path / 'dyn.spec'
    spec.write_text('method = lm-c5, nna\nshape = 16x16\ninit = const:0\nworkload = cybenko:poisson:1:1\n'
                    'until = steps:60\nwarmup = 20\nseed = 1..2\n')
    mine = lbtorus.sweep(spec, tmp_path / 'py.jsonl', threads=1, frame=False)
    r = subprocess.run([CLI, 'sweep', '--spec', str(spec), '--results', str(tmp_path / 'cli.jsonl'), '--jobs', '1',
                        '--quiet'], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    theirs = lbtorus.read_results(tmp_path / 'cli.jsonl', frame=False)
    assert len(mine) == len(theirs) == 4
    key = lambda rec: (rec['method'], rec['seed'])  # noqa: E731
    skip = VOLATILE | {'spec_sha256'}  # test_sweep_records_name_the_spec_file
    for a, b in zip(sorted(mine, key=key), sorted(theirs, key=key)):
        assert {k: a[k] for k in a if k not in skip} == {k: b[k] for k in b if k not in skip}
    # resumed: nothing left to run, the same records
    assert len(lbtorus.sweep(spec, tmp_path / 'py.jsonl', threads=1, frame=False)) == 4


def test_sweep_records_name_the_spec_file_and_the_call(tmp_path):
    """Provenance (issue 29): a sweep's records carry its spec file's
    SHA-256 (hashlib's, of the same bytes) and the Python call that made
    them; a run opened afterwards names neither."""
    spec = tmp_path / 's.spec'
    spec.write_text('shape = 8x8\nuntil = steps:2\n')
    (rec,) = lbtorus.sweep(spec, tmp_path / 'r.jsonl', threads=1, frame=False)
    assert rec['spec_sha256'] == hashlib.sha256(spec.read_bytes()).hexdigest()
    assert rec['command'].startswith('lbtorus.sweep(spec=')
    after = lbtorus.run(shape=(8, 8), until='steps:2', threads=1).summary()
    assert 'spec_sha256' not in after and after['command'].startswith('lbtorus.')


def test_results_as_a_dataframe_when_pandas_is_there(tmp_path, monkeypatch):
    """frame=None: a DataFrame of the records when pandas imports, else the
    list; frame=True without pandas: its ImportError. (A stand-in pandas:
    whether python3-pandas is installed is the machine's business.)"""
    path = tmp_path / 'r.jsonl'
    path.write_text('{"method":"nna","seed":1}\n\n{"method":"fos","seed":2}\n')
    rows = [{'method': 'nna', 'seed': 1}, {'method': 'fos', 'seed': 2}]

    class Pandas:
        class DataFrame(list):
            pass
    monkeypatch.setitem(sys.modules, 'pandas', Pandas)
    df = lbtorus.read_results(path)
    assert isinstance(df, Pandas.DataFrame) and list(df) == rows
    assert lbtorus.read_results(path, frame=False) == rows
    monkeypatch.setitem(sys.modules, 'pandas', None)  # import pandas raises ImportError
    assert lbtorus.read_results(path) == rows
    with pytest.raises(ImportError):
        lbtorus.read_results(path, frame=True)


def test_study_t_against_k(tmp_path):
    """Issue 29's first study: LM-C5 from Henrich's worst case (worst:5, all
    5·K² on one PE) on K×K tori, K = 8, 16, 32. Each T is the CLI's; the
    power law fitted to them has b = ln(T32/T8)/ln 4 for three points
    equally spaced in log K. docs/usage.md derives T = 2.5·K² − 3 here
    (157, 637, 2557), so b = ln(2557/157)/ln 4 = 2.0128: within 0.02 of 2."""
    sys.path.insert(0, os.path.join(SOURCE, 'examples'))
    import study
    rows, a, b = study.t_against_k((8, 16, 32), threads=1)
    for k, t in rows:
        rec, _, _ = cli(tmp_path, '--shape', '%dx%d' % (k, k), '--method', 'lm-c5', '--init', 'worst:5')
        assert t == rec['balanced_step']
    ts = np.array([t for _, t in rows], dtype=float)
    assert b == pytest.approx(np.log(ts[2] / ts[0]) / np.log(4), rel=1e-12)
    assert abs(b - 2) < 0.02


def test_study_steady_variance(tmp_path):
    """Issue 29's second study: sqdev_mean under cybenko:poisson:1:1 on 32×32,
    LM-C5 and NNA, steps 101..400: the CLI's number to the last bit (the JSON
    writes it with 17 digits), and the trace's mean of sqdev over those steps."""
    sys.path.insert(0, os.path.join(SOURCE, 'examples'))
    import study
    for method in ('lm-c5', 'nna'):
        rec, trace = study.steady_variance(method, 1, 400, 100, threads=1)
        theirs, ttrace, _ = cli(tmp_path, '--shape', '32x32', '--method', method, '--init', 'const:0', '--workload',
                                'cybenko:poisson:1:1', '--until', 'steps:400', '--warmup', '100', '--seed', '1')
        assert rec['sqdev_mean'] == theirs['sqdev_mean'] and rec['sqdev_se'] == theirs['sqdev_se']
        assert np.array_equal(trace['sqdev'], ttrace['sqdev'])
        late = trace['sqdev'][trace['step'] > 100]
        assert len(late) == rec['sqdev_steps'] == 300
        assert late.mean() == pytest.approx(rec['sqdev_mean'], rel=1e-12)


def test_example_script_runs():
    """examples/study.py as a user runs it: its lines are the module's numbers."""
    r = subprocess.run([sys.executable, os.path.join(SOURCE, 'examples', 'study.py'), '--ks', '8,16', '--steps', '120',
                        '--warmup', '20', '--seeds', '1', '--threads', '1'], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    want = ['T(K=%d) = %d steps' % (k, lbtorus.run(shape=(k, k), init='worst:5', threads=1).summary()['balanced_step'])
            for k in (8, 16)]
    assert lines[:2] == want, r.stdout
    rec = lbtorus.run(shape=(32, 32), method='nna', init='const:0', workload='cybenko:poisson:1:1', until='steps:120',
                      warmup=20, seed=1, threads=1).summary()
    assert any(line.startswith('nna seed 1: sqdev_mean %r ' % rec['sqdev_mean']) for line in lines), r.stdout


def test_walkthrough_runs_and_agrees_with_the_cli(tmp_path):
    """examples/walkthrough.py (issue 29's notebook-style walkthrough) as a
    user runs it: its worst-case and dynamic numbers are the CLI's for the
    same runs, the loads' total is conserved, and the sweep wrote 8 records."""
    r = subprocess.run([sys.executable, os.path.join(SOURCE, 'examples', 'walkthrough.py'), '--k', '16', '--steps', '100',
                        '--threads', '1', '--out', str(tmp_path)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    out = r.stdout
    worst, _, _ = cli(tmp_path, '--shape', '16x16', '--method', 'lm-c5', '--init', 'worst:5')
    assert 'balanced at step %d, D*K*Ldiff = %d' % (worst['balanced_step'], worst['dkl_bound']) in out, out
    dyn, _, _ = cli(tmp_path, '--shape', '16x16', '--method', 'nna', '--init', 'const:0', '--workload',
                    'cybenko:poisson:1:1', '--until', 'steps:100', '--warmup', '25', '--seed', '1')
    assert 'sqdev_mean %r over %d steps, conserved at every step: True, callbacks 101' \
        % (dyn['sqdev_mean'], dyn['sqdev_steps']) in out, out
    nna = [line for line in out.splitlines() if line.startswith('NNA: after 50 steps')]
    assert len(nna) == 1 and nna[0].split('total ')[1] == '%s (at the start %s)' % ((nna[0].split('total ')[1].split()[0],) * 2)
    assert sum(line.startswith('sweep: ') for line in out.splitlines()) == 8, out


# ---- the ctypes structs, the newer calls and fields ------------------------

# Each ctypes struct of the module and the C type it mirrors: every field's
# offset and the struct's size must be the compiler's for include/lbtorus.h.
C_TYPES = {'_Err': 'lbt_err', '_Config': 'lbt_config', '_Record': 'lbt_record', '_Result': 'lbt_result',
           '_Array': 'lbt_array', '_MethodInfo': 'lbt_method_info', '_ParamInfo': 'lbt_param_info',
           '_WorkloadInfo': 'lbt_workload_info', '_Batch': 'lbt_batch', '_IsaInfo': 'lbt_isa_info',
           '_UntilInfo': 'lbt_until_info', '_Outputs': 'lbt_outputs', '_SimInfo': 'lbt_sim_info',
           '_SearchSpec': 'lbt_search_spec', '_FigureSpec': 'lbt_figure_spec', '_SweepCounts': 'lbt_sweep_counts',
           '_SweepOpts': 'lbt_sweep_opts', '_BoundOpts': 'lbt_bound_opts', '_BoundResult': 'lbt_bound_result',
           '_Bench': 'lbt_bench', '_BenchInfo': 'lbt_bench_info', '_BenchRow': 'lbt_bench_row'}


def test_structs_are_the_headers_field_by_field(tmp_path):
    """A C program compiled against include/lbtorus.h prints sizeof and
    every field's offsetof; each ctypes struct of the module (all of them:
    a new one must be named in C_TYPES) has the same, and names the
    header's fields in the header's order, reserved last."""
    import ctypes
    import shutil
    structs = {n: v for n, v in vars(lbtorus).items()
               if isinstance(v, type) and issubclass(v, ctypes.Structure)}
    assert sorted(structs) == sorted(C_TYPES)
    cc = os.environ.get('CC') or shutil.which('cc') or shutil.which('gcc')
    if not cc:
        pytest.skip('no C compiler (cc) to ask the layout of lbtorus.h')
    lines = ['#include <stddef.h>', '#include <stdio.h>', '#include "lbtorus.h"', 'int main(void) {']
    for py, c in C_TYPES.items():
        lines.append('printf("%s %%zu\\n", sizeof(%s));' % (c, c))
        for f in structs[py]._fields_:
            lines.append('printf("%s.%s %%zu\\n", offsetof(%s, %s));' % (c, f[0], c, f[0]))
    src = tmp_path / 'layout.c'
    src.write_text('\n'.join(lines + ['return 0;', '}']) + '\n')
    exe = tmp_path / 'layout'
    r = subprocess.run(cc.split() + ['-std=c11', '-I', os.path.join(SOURCE, 'include'), str(src), '-o', str(exe)],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    want = dict(line.split() for line in subprocess.run([str(exe)], capture_output=True, text=True,
                                                        check=True).stdout.splitlines())
    got = {}
    for py, c in C_TYPES.items():
        got[c] = str(ctypes.sizeof(structs[py]))
        for f in structs[py]._fields_:
            got['%s.%s' % (c, f[0])] = str(getattr(structs[py], f[0]).offset)
        assert py == '_Err' or structs[py]._fields_[-1][0] == 'reserved', py
    assert got == want


def test_app_and_ranks_as_the_cli():
    """app: an application of N iterations stops the run after N steps (7
    here, by hand from --app's definition), the record the CLI's; a bad app
    is the CLI's line with the option spelled as its keyword, a bad grid of
    ranks the CLI's line."""
    kw = dict(shape=(8, 8), method='fos-speed', speeds='uniform:1:4', app='iterations:7', until='steps:20')
    args = ['--shape', '8x8', '--method', 'fos-speed', '--speeds', 'uniform:1:4', '--app', 'iterations:7',
            '--until', 'steps:20']
    r = subprocess.run([CLI, 'run', '--quiet', '--threads', '1', '--json', '-'] + args, capture_output=True,
                       text=True)
    assert r.returncode == 0, r.stderr
    theirs = json.loads(r.stdout)
    sim = lbtorus.run(threads=1, **kw)
    mine = sim.summary()
    assert mine['steps'] == 7 and mine['app_iterations'] == 7
    skip = VOLATILE | {'app_time', 'lb_time', 'seq_time', 'speedup'}  # timings of the application
    assert {k: mine[k] for k in mine if k not in skip} == {k: theirs[k] for k in theirs if k not in skip}
    assert "app='iterations:7'" in sim.call
    with pytest.raises(lbtorus.Error) as e:
        lbtorus.run(shape=(8, 8), threads=1, app='iters:3')
    assert str(e.value) == cli_error('--shape', '8x8', '--app', 'iters:3').replace('--app', 'app')
    # the grid of ranks is checked where the torus is cut (src/exec/state.c,
    # src/comm/comm.c), in the CLI's words but for the field's name (ranks,
    # not --ranks: the call is not a command)
    for kw, args in ((dict(ranks='3'), ['--ranks', '3']), (dict(ranks=(2, 2)), ['--ranks', '2x2'])):
        with pytest.raises(lbtorus.Error) as e:
            lbtorus.run(shape=(8, 8), threads=1, **kw)
        assert str(e.value) == cli_error('--shape', '8x8', *args).replace('--ranks', 'ranks')


def same_provenance_file(mine, theirs, call):
    """Two files of `# key: value` lines (a trace) or text equal but for the
    date and the command, whose line in mine names the Python call."""
    a, b = mine.read_text().splitlines(), theirs.read_text().splitlines()
    assert len(a) == len(b)
    for x, y in zip(a, b):
        if x.startswith('# date_utc: '):
            assert y.startswith('# date_utc: ')
        elif x.startswith('# command: '):
            assert x == '# command: ' + call and y.startswith('# command: ')
        else:
            assert x == y


def test_outputs_are_the_clis_files(tmp_path):
    """Sim.outputs(...) then run(): the JSON record, the trace, the dump,
    the snapshots (PNG and .npy) and the GIF are `lbtorus run`'s with the
    same options, byte for byte, but for the date and the command (the
    Python call)."""
    py, cli_dir = tmp_path / 'py', tmp_path / 'cli'
    py.mkdir()
    cli_dir.mkdir()
    args = ['--shape', '12x12', '--method', 'lm-c5', '--init', 'worst:5', '--until', 'balanced', '--every', '50',
            '--heat-max', '20', '--zoom', '3', '--delay', '4']
    files = dict(json='r.json', trace='t.csv', dump='d.npy', snapshots='snaps', animate='a.gif')
    r = subprocess.run([CLI, 'run', '--quiet', '--threads', '1'] +
                       [a for k, v in files.items() for a in ('--' + k, str(cli_dir / v))] + args,
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    sim = lbtorus.Sim(shape=(12, 12), method='lm-c5', init='worst:5', until='balanced', threads=1, full_stats=True)
    assert sim.outputs(every=50, heat_max=20, zoom=3, delay=4, **{k: py / v for k, v in files.items()}) is sim
    assert not (py / 'r.json').exists()  # written when the run ends
    sim.run()
    mine, theirs = json.loads((py / 'r.json').read_text()), json.loads((cli_dir / 'r.json').read_text())
    same_record(mine, theirs)
    assert mine['command'] == sim.call and sim.summary() == mine
    same_provenance_file(py / 't.csv', cli_dir / 't.csv', sim.call)
    assert (py / 'd.npy').read_bytes() == (cli_dir / 'd.npy').read_bytes()
    assert (py / 'a.gif').read_bytes() == (cli_dir / 'a.gif').read_bytes()
    names = sorted(os.listdir(cli_dir / 'snaps'))
    last = mine['steps']  # every 50 steps and the last
    assert names == sorted('step_%08d.%s' % (s, x) for s in sorted(set(range(0, last + 1, 50)) | {last})
                           for x in ('png', 'npy'))
    assert sorted(os.listdir(py / 'snaps')) == names
    for n in names:
        assert (py / 'snaps' / n).read_bytes() == (cli_dir / 'snaps' / n).read_bytes(), n
    # the next run writes nothing unless asked again
    (py / 'r.json').unlink()
    sim.run()
    assert not (py / 'r.json').exists()


def test_outputs_refused_as_the_cli_refuses_them(tmp_path):
    """An output over an input file, or two outputs on one path: the CLI's
    line with its options' names; a bad directory fails when opened."""
    w = tmp_path / 'w.npy'
    np.save(w, np.ones((4, 4), dtype=np.int32))
    want = cli_error('--shape', '4x4', '--init', 'file:%s' % w, '--dump', str(w))
    sim = lbtorus.Sim(init='file:%s' % w, threads=1)
    with pytest.raises(lbtorus.Error) as e:
        sim.outputs(dump=w)
    assert want in (str(e.value), 'run: ' + str(e.value))
    want = cli_error('--shape', '4x4', '--json', str(tmp_path / 'x'), '--trace', str(tmp_path / 'x'))
    with pytest.raises(lbtorus.Error) as e:
        sim.outputs(json=tmp_path / 'x', trace=tmp_path / 'x')
    assert want in (str(e.value), 'run: ' + str(e.value))
    with pytest.raises(lbtorus.Error) as e:
        sim.outputs(json=tmp_path / 'no' / 'such' / 'r.json')
    assert e.value.status == 'i/o error'
    with pytest.raises(lbtorus.Error, match="zoom '65': give an integer in 1..64"):
        sim.outputs(zoom=65)


def test_describe_gives_henrichs_bounds():
    """Henrich's worst case worst:5 on 16x16: D = 2, K = 16, Lmax = 5·256 =
    1280, mean 5, Ldiff 1280. By hand: D·K·Ldiff = 40960, ceil((1280 -
    5)/2) = 638, ceil((1280 - 5 - 2)/2) = 637 (= 2.5·16² - 3, the steps it
    takes: docs/usage.md); the CLI's record says the same."""
    sim = lbtorus.Sim(shape=(16, 16), init='worst:5', threads=1)
    d = sim.describe()
    assert d == dict(method='lm-c5', isa=d['isa'], threads=1, dims=2, active_dims=2, pes=256, k=16, rank=0, ranks=1,
                     cut=False, dkl_bound=40960, lower_bound_steps=638, balanced_lower_bound_steps=637)
    assert d['isa'] == sim.run().summary()['isa']
    r = subprocess.run([CLI, 'run', '--quiet', '--threads', '1', '--json', '-', '--shape', '16x16'],
                       capture_output=True, text=True)
    rec = json.loads(r.stdout)
    assert rec['balanced_step'] == 637 and rec['dkl_bound'] == 40960
    assert lbtorus.Sim(shape=(16, 1, 4), threads=1).describe()['active_dims'] == 2


def test_isas_untils_and_claims_from_their_sources(monkeypatch):
    """isas(): the targets, those this CPU runs and the one chosen as
    `lbtorus info` lists them, a vector target supported only where
    /proc/cpuinfo has its flag, the chosen one what a run with isa auto
    records. untils(): each criterion and its help are in `lbtorus run
    --help`. claim(): the paper's numbers as data/henrich1996_claims.csv has
    them (read here with csv), 18 for LM-C5's steps in Table 3 (Henrich
    1996, §5)."""
    import csv
    isas = lbtorus.isas()
    info = dict(line.split(': ', 1) for line in subprocess.run([CLI, 'info'], capture_output=True, text=True,
                                                               check=True).stdout.splitlines() if ': ' in line)
    assert [x['name'] for x in isas] == info['compiled targets'].split()
    assert [x['name'] for x in isas if x['supported']] == info['supported by this CPU'].split()
    assert [x['name'] for x in isas if x['chosen']] == [info['chosen']]
    assert not any(x['emulated'] for x in isas if x['chosen'])
    with open('/proc/cpuinfo') as f:
        flags = next((set(line.split(':', 1)[1].split()) for line in f if line.startswith('flags')), None)
    if flags is not None:
        for x in isas:
            flag = {'sse41': 'sse4_1', 'avx2': 'avx2', 'avx512': 'avx512f'}.get(x['name'])
            assert not (flag and x['supported'] and not x['emulated']) or flag in flags, x
    assert lbtorus.run(shape=(4, 4), until='steps:1', threads=1).summary()['isa'] == info['chosen']
    usage = subprocess.run([CLI, 'run', '--help'], capture_output=True, text=True).stdout
    us = lbtorus.untils()
    assert [u['syntax'] for u in us][:3] == ['shared', 'balanced', 'flat']
    for u in us:
        assert u['syntax'] in usage and u['help'] in ' '.join(usage.split()), u
    data = os.path.join(SOURCE, 'data')
    with open(os.path.join(data, 'henrich1996_claims.csv')) as f:
        rows = list(csv.DictReader(line for line in f if not line.startswith('#')))
    assert len(rows) > 5
    for row in rows:
        if row['paper']:
            assert lbtorus.claim(row['id'], data_dir=data) == float(row['paper']), row['id']
        else:
            with pytest.raises(lbtorus.Error, match='a statement without a number'):
                lbtorus.claim(row['id'], data_dir=data)
    assert lbtorus.claim('table3_lm_balanced', data_dir=data) == 18
    monkeypatch.setenv('LBTORUS_DATA', data)  # the default data directory
    assert lbtorus.data_dir() == data and lbtorus.claim('table3_nna_balanced') == 24
    with pytest.raises(lbtorus.Error):
        lbtorus.claim('no_such_claim', data_dir=data)


def run_cli(cwd, *args):
    r = subprocess.run([CLI] + list(args), capture_output=True, text=True, cwd=str(cwd))
    assert r.returncode == 0, (args, r.stderr)
    return r.stdout


def without_provenance(record):
    """A record without what says when and by what call it was made."""
    return {k: v for k, v in record.items() if k not in ('date_utc', 'command', 'seconds')}


def test_bound_is_the_clis(tmp_path, monkeypatch):
    """bound(): the sweep's runs, bound.csv and bound.json (timing, date
    and call aside), the summary's lines and the result's constants are
    `lbtorus bound`'s for the same axes; bound.json names the Python call."""
    axes = ['--shape', 'ring:8..16*2', '--init', 'uniform:1:2..8*2', '--seed', '1..2']
    out = run_cli(tmp_path, 'bound', '--out', 'cli', '--jobs', '1', '--quiet', *axes)
    monkeypatch.chdir(tmp_path)  # the summary names the files by the path given
    r = lbtorus.bound('py', shape='ring:8..16*2', init=['uniform:1:2', 'uniform:1:4', 'uniform:1:8'],
                      seed='1..2', threads=1)
    assert r['ran'] and r['published'] and r['sweep']['total'] == r['sweep']['done'] == 12
    assert [line.replace('py/', 'cli/') for line in r['lines']] == \
        [line for line in out.splitlines() if not line.startswith('lbtorus: plots')]
    mine, theirs = (json.loads((tmp_path / d / 'bound.json').read_text()) for d in ('py', 'cli'))
    assert without_provenance(mine) == without_provenance(theirs)
    assert mine['command'].startswith("lbtorus.bound(out_dir='py', shape='ring:8..16*2', "
                                      "init='uniform:1:2,uniform:1:4,uniform:1:8'")
    assert (tmp_path / 'py' / 'bound.csv').read_text() == (tmp_path / 'cli' / 'bound.csv').read_text()
    assert (r['c'], r['c_lo95'], r['c_hi95'], r['c_ols'], r['envelope'], r['points']) == pytest.approx(
        (theirs['c_fit'], theirs['c_fit_ci95_lo'], theirs['c_fit_ci95_hi'], theirs['c_fit_absolute'],
         theirs['c_envelope'], theirs['points']), rel=1e-8)
    ratios = [float(row.split(',')[13]) for row in (tmp_path / 'cli' / 'bound.csv').read_text().splitlines()[1:]
              if row.split(',')[7] == '1']  # all_loaded: the fitted runs
    assert r['fitted'] == len(ratios) and r['c'] == pytest.approx(np.mean(ratios), rel=1e-8)
    assert r['envelope'] == pytest.approx(max(ratios), rel=1e-8)
    # from a results file: nothing runs, the same fit
    again = lbtorus.bound('py2', results=tmp_path / 'cli' / 'runs.jsonl')
    assert not again['ran'] and again['sweep']['total'] == 0 and again['c'] == r['c']
    with pytest.raises(lbtorus.Error) as e:
        lbtorus.bound('py3', shape='8x0')
    assert str(e.value) == cli_error_of('bound', '--shape', '8x0')


def cli_error_of(command, *args):
    """The one line `lbtorus COMMAND ARGS` prints for bad input (exit 2), without "lbtorus: "."""
    r = subprocess.run([CLI, command] + list(args), capture_output=True, text=True)
    assert r.returncode == 2 and r.stderr.startswith('lbtorus: '), r.stderr
    return r.stderr.splitlines()[0][len('lbtorus: '):]


def test_search_is_the_clis(tmp_path):
    """search(): the JSON object `lbtorus search` prints (but for its date
    and command, the Python call) and the same worst loads, bit for bit;
    the loads are a total of 2·16 with max - min = 3, and LM-C5 takes the
    reported steps from them (a run of the module says so)."""
    out = run_cli(tmp_path, 'search', '--shape', '4x4', '--ldiff', '3', '--mean', '2', '--restarts', '3', '--moves',
                  '60', '--seed', '5', '--out', 'cli.npy', '--threads', '1', '--quiet')
    theirs = json.loads(out)
    lines = []
    mine = lbtorus.search((4, 4), 3, mean=2, restarts=3, moves=60, seed=5, out=tmp_path / 'py.npy', threads=1,
                          note=lines.append)
    assert len(lines) == 3
    skip = {'npy'}
    assert {k: v for k, v in without_provenance(mine).items() if k not in skip} == \
        {k: v for k, v in without_provenance(theirs).items() if k not in skip}
    assert mine['command'].startswith('lbtorus.search(shape=(4, 4), ldiff=3, mean=2')
    w = np.load(tmp_path / 'py.npy')
    assert np.array_equal(w, np.load(tmp_path / 'cli.npy'))
    assert w.sum() == 32 and w.max() - w.min() == 3 == mine['ldiff']
    rec = lbtorus.run(init=w, until='balanced', threads=1).summary()
    assert rec['balanced_step'] == mine['steps']
    with pytest.raises(lbtorus.Error, match='give exactly one of total and mean'):
        lbtorus.search((4, 4), 3, mean=2, total=32)


def same_report(mine, theirs, call):
    """Two reports equal but for the command named in "This report: `...`"
    and in the provenance comment (mine: `call`), and the date there."""
    a, b = mine.splitlines(), theirs.splitlines()
    assert len(a) == len(b) and a[:-3] == b[:-3]
    cli_call = json.loads(b[-1][len('<!-- provenance '):-len(' -->')])['command']
    assert a[-3] == b[-3].replace(cli_call, call) and a[-2] == b[-2] == ''
    pa, pb = (json.loads(x[len('<!-- provenance '):-len(' -->')]) for x in (a[-1], b[-1]))
    assert pa['command'] == call and without_provenance(pa) == without_provenance(pb)


def test_report_is_the_clis(tmp_path, monkeypatch):
    """report(): the Markdown `lbtorus report` writes of the same results,
    but for the command it names (the Python call) and the date."""
    monkeypatch.chdir(tmp_path)
    spec = tmp_path / 's.spec'
    spec.write_text('method = lm-c5, nna\nshape = 8x8, 12x12\ninit = uniform:0:9\nseed = 1..2\n')
    lbtorus.sweep(spec, 'r.jsonl', threads=1, frame=False)
    run_cli(tmp_path, 'report', 'r.jsonl', '--out', 'cli.md')
    theirs = (tmp_path / 'cli.md').read_text()
    assert lbtorus.report('r.jsonl', 'py.md') == 'py.md'
    same_report((tmp_path / 'py.md').read_text(), theirs, "lbtorus.report(results='r.jsonl', out='py.md')")
    same_report(lbtorus.report('r.jsonl'), theirs, "lbtorus.report(results='r.jsonl')")
    assert 'nna' in theirs and 'lm-c5' in theirs
    with pytest.raises(lbtorus.Error) as e:
        lbtorus.report(tmp_path / 'nothing.jsonl')
    assert str(e.value) == cli_error_of('report', str(tmp_path / 'nothing.jsonl'))


def test_figure_is_the_clis(tmp_path, monkeypatch):
    """figure(): the fits `lbtorus plot` prints and its data files (.dat,
    .csv: the points, provenance aside) for the same records: T = 2.5·K² - 3
    of the worst case (docs/usage.md), a power law of exponent near 2."""
    spec = tmp_path / 's.spec'
    spec.write_text('shape = 8x8, 16x16, 32x32\ninit = worst:5\n')
    lbtorus.sweep(spec, tmp_path / 'r.jsonl', threads=1, frame=False)
    out = run_cli(tmp_path, 'plot', 'r.jsonl', '--x', 'k', '--y', 'balanced_step', '--fit', 'power', '--logx',
                  '--logy', '--out', 'cli')
    monkeypatch.chdir(tmp_path)
    lines = lbtorus.figure('r.jsonl', x='k', y='balanced_step', fit='power', logx=True, logy=True, stem='py')
    assert [line.replace('py.', 'cli.') for line in lines] == out.splitlines()
    assert '3 points' in lines[0]
    call = "lbtorus.figure(inputs=['r.jsonl'], x='k', y='balanced_step', logx=True, logy=True, fit='power', " \
        "stem='py')"
    for x in ('dat', 'csv'):
        same_provenance_file(tmp_path / ('py.' + x), tmp_path / ('cli.' + x), call)
    with pytest.raises(lbtorus.Error) as e:
        lbtorus.figure('r.jsonl', x='k', y='balanced_step', fit='cubic')
    assert str(e.value) == cli_error_of('plot', 'r.jsonl', '--x', 'k', '--y', 'balanced_step', '--fit', 'cubic')


def test_bench_rows_are_the_clis_plan(tmp_path):
    """bench(): a row per size x method x ISA x thread count, static and
    under the workload, in the order and with the sizes, dimensions and PE
    counts of `lbtorus bench --json` for the same options (PEs by hand: 256
    and 512); the machine as the CLI records it. Times are not compared."""
    opts = dict(sizes=[(16, 16), '8x8x8'], methods='lm-c5', isa='scalar', threads=[1], seconds=0.01,
                workload='cybenko:poisson:1:1')
    rows = lbtorus.bench(**opts)
    run_cli(tmp_path, 'bench', '--no-headline', '--sizes', '16x16,8x8x8', '--methods', 'lm-c5', '--isa', 'scalar',
            '--threads', '1', '--seconds', '0.01', '--workload', 'cybenko:poisson:1:1', '--json', 'b.json')
    theirs = json.load(open(tmp_path / 'b.json'))
    key = ('workload', 'size', 'dims', 'pes', 'method', 'isa', 'threads', 'cell_bytes')
    assert [tuple(r[k] or '' if k == 'workload' else r[k] for k in key) for r in theirs['results']] == \
        [tuple(r[k] for k in key) for r in rows.tolist() for r in [dict(zip(rows.dtype.names, r))]]
    assert list(rows['pes']) == [256, 256, 512, 512] and list(rows['dims']) == [2, 2, 3, 3]
    assert all(rows['rate'] > 0) and all(rows['steps'] > 0)
    static = rows[rows['workload'] == '']
    assert np.array_equal(rows[rows['workload'] != '']['static_rate'], static['rate'])
    meta = rows.dtype.metadata
    assert (meta['cpu'], meta['cores'], meta['init']) == (theirs['cpu'], theirs['cores'], theirs['init'])
    seen = []
    first = lbtorus.bench(callback=lambda r: seen.append(r) or True, **opts)
    assert len(first) == len(seen) == 1 and seen[0]['size'] == '16x16'
    with pytest.raises(lbtorus.Error) as e:
        lbtorus.bench(sizes='8x0')
    assert cli_error_of('bench', '--sizes', '8x0') in (str(e.value), 'bench: ' + str(e.value))


def test_ctrl_c_and_callback_errors_stop_the_batch_calls(tmp_path):
    """SIGINT during search() (sent from its first note, the main thread in
    the module's wait gets it): KeyboardInterrupt, and nothing written, as
    the CLI's search; an exception in a note stops the call and is raised."""
    import signal
    out = tmp_path / 'w.npy'
    with pytest.raises(KeyboardInterrupt):
        lbtorus.search((16, 16), 50, mean=20, restarts=50, moves=100000, out=out, threads=1,
                       note=lambda line: os.kill(os.getpid(), signal.SIGINT))
    assert not out.exists()

    def boom(line):
        raise RuntimeError('from the note')
    with pytest.raises(RuntimeError, match='from the note'):
        lbtorus.search((16, 16), 50, mean=20, restarts=50, moves=100000, out=out, threads=1, note=boom)
    assert not out.exists()


def test_reproduce_table3_is_the_papers(tmp_path):
    """reproduce('table3'): no difference from Henrich's (1996) Table 3 —
    every row of data/table3_lm_c5.csv and table3_nna.csv (the paper's
    numbers, read here with csv) is a row of our table3.csv — and the same
    table as `lbtorus reproduce table3`'s; the manifest names the call."""
    import csv
    data = os.path.join(SOURCE, 'data')
    assert lbtorus.reproduce('table3', tmp_path / 'py', quick=True, threads=1, data_dir=data) == 0
    with open(tmp_path / 'py' / 'table3.csv') as f:
        ours = {(r['method'], r['T']): [r['P%d' % i] for i in range(8)] for r in csv.DictReader(f)}
    for method, name in (('lm-c5', 'table3_lm_c5.csv'), ('nna', 'table3_nna.csv')):
        with open(os.path.join(data, name)) as f:
            rows = list(csv.DictReader(line for line in f if not line.startswith('#')))
        assert rows
        for r in rows:
            assert ours[(method, r['T'])] == [r['P%d' % i] for i in range(8)], (method, r['T'])
    r = subprocess.run([CLI, 'reproduce', 'table3', '--out', str(tmp_path / 'cli'), '--quick'], capture_output=True,
                       text=True, env=dict(os.environ, LBTORUS_DATA=data))
    assert r.returncode == 0, r.stderr
    assert (tmp_path / 'py' / 'table3.csv').read_text() == (tmp_path / 'cli' / 'table3.csv').read_text()
    manifest = json.loads((tmp_path / 'py' / 'table3.manifest.json').read_text())
    assert manifest['command'] == "lbtorus.reproduce(name='table3', out_dir='%s', quick=True)" % (tmp_path / 'py')


def test_sweep_of_axes_is_the_clis(tmp_path):
    """sweep() with axes as keywords (no spec file): the records of `lbtorus
    sweep` with the same options (timing, date and call aside); progress
    sees every run finish, note a line per run, and a resumed call runs
    nothing."""
    run_cli(tmp_path, 'sweep', '--method', 'lm-c5,nna', '--shape', '8x8,6x10', '--init', 'uniform:0:9', '--seed',
            '1..2', '--results', 'cli.jsonl', '--jobs', '1', '--quiet')
    theirs = lbtorus.read_results(tmp_path / 'cli.jsonl', frame=False)
    seen, lines = [], []
    mine = lbtorus.sweep(results=tmp_path / 'py.jsonl', method=['lm-c5', 'nna'], shape=[(8, 8), '6x10'],
                         init='uniform:0:9', seed=[1, 2], threads=1, frame=False, progress=seen.append,
                         note=lines.append)
    assert len(mine) == len(theirs) == 8
    key = lambda rec: rec['run_key']  # noqa: E731
    for a, b in zip(sorted(mine, key=key), sorted(theirs, key=key)):
        assert {k: a[k] for k in a if k not in VOLATILE} == {k: b[k] for k in b if k not in VOLATILE}
    assert mine[0]['command'] == "lbtorus.sweep(results='%s', method='lm-c5,nna', shape='8x8,6x10', " \
        "init='uniform:0:9', seed='1,2')" % (tmp_path / 'py.jsonl')
    assert [d['done'] for d in seen] == list(range(9)) + [8] and seen[-1]['end'] == 1 and seen[-1]['status'] == 0
    assert lines[-1] == '8 of 8 runs done (0 skipped, 0 failed)' and len(lines) == 9
    seen.clear()
    lbtorus.sweep(results=tmp_path / 'py.jsonl', method='lm-c5,nna', shape='8x8,6x10', init='uniform:0:9',
                  seed='1..2', threads=1, progress=seen.append)
    assert seen[-1]['skipped'] == 8 and seen[-1]['done'] == 0
    with pytest.raises(lbtorus.Error) as e:
        lbtorus.sweep(results=tmp_path / 'x.jsonl', shape='8x0')
    assert str(e.value) == cli_error_of('sweep', '--shape', '8x0', '--results', str(tmp_path / 'x.jsonl'))


def test_bench_headline_is_the_worst_case_run():
    """bench(headline=True): a row per ISA of LM-C5 from worst:5 on 128x128
    until balanced: 2.5·128² - 3 = 40957 steps (docs/usage.md's T = 2.5·K² -
    3), 16384 PEs, one thread, the rate the site updates of that run (as
    its record counts them) per second."""
    chosen = next(x['name'] for x in lbtorus.isas() if x['chosen'])
    rows = lbtorus.bench(isa=chosen, headline=True)
    assert len(rows) == 1
    r = rows[0]
    assert (r['size'], r['method'], r['isa'], r['dims'], r['threads'], r['pes'], r['steps']) == \
        ('128x128', 'lm-c5', chosen, 2, 1, 16384, 2.5 * 128 ** 2 - 3)
    rec = lbtorus.run(shape=(128, 128), isa=chosen, threads=1).summary()
    assert rec['steps'] == r['steps'] and r['seconds'] > 0
    assert r['rate'] * r['seconds'] == pytest.approx(rec['site_updates'], rel=1e-12)


@pytest.mark.parametrize('kw,args', BAD, ids=[' '.join(a[2:]) for _, a in BAD])
def test_check_refuses_what_the_cli_refuses(kw, args):
    """check(): the CLI's line for each bad input, as Sim's, a method
    parameter's value on the shape (fos's alpha above 1/max_degree) too."""
    want = cli_error(*args)
    with pytest.raises(lbtorus.Error) as e:
        lbtorus.check(**kw)
    assert want in (str(e.value), 'run: ' + str(e.value))


def test_check_allocates_nothing():
    """A torus of 2^32 PEs (16 GiB of int32 loads, more than this test may
    take) passes check() as it is; worst:5 on it fails with the CLI's line
    (5·2^32 does not fit one PE's int32 load), before anything is made."""
    assert lbtorus.check(shape=(65536, 65536), init='uniform:0:9') is None
    with pytest.raises(lbtorus.Error) as e:
        lbtorus.check(shape=(65536, 65536))
    assert str(e.value) == cli_error('--shape', '65536x65536')

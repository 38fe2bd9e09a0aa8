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

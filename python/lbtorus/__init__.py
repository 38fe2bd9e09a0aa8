"""lbtorus — the SIMD torus load-balancing emulator from Python.

A ctypes binding of liblbtorus's public API (include/lbtorus.h); usage in
docs/python.md. A run is opened from keyword arguments that mirror
`lbtorus run`'s options:

    import lbtorus
    sim = lbtorus.run(shape=(128, 128), method="lm-c5", init="worst:5", until="balanced")
    sim.summary()["balanced_step"]      # the JSON record `lbtorus run --json` writes, as a dict
    loads = sim.read()                  # the final loads as a NumPy array

Every failure raises lbtorus.Error, whose text is the one line the CLI
prints after "lbtorus: " for the same input.
"""
import ctypes
import json
import os

__all__ = ['Error', 'Sim', 'run', 'check', 'methods', 'workloads', 'isas', 'untils', 'claim', 'data_dir', 'experiments',
           'reproduce',
           'sweep', 'bound', 'search', 'report', 'bench', 'figure', 'read_results', 'read_trace', 'version',
           'TRACE_COLUMNS', 'WORKLOAD_COLUMNS']

# ---- the library ---------------------------------------------------------


def _library_path():
    """$LBTORUS_LIB (a path to liblbtorus.so.0: a build tree's, a DESTDIR's),
    else the libdir meson wrote into _paths.py (the build tree's or the
    installed one's)."""
    path = os.environ.get('LBTORUS_LIB')
    if path:
        return path
    try:
        from . import _paths
    except ImportError:
        raise ImportError('lbtorus: no _paths.py (this is the source tree): import the module from a build '
                          '(PYTHONPATH=BUILD/python) or an installation, or set LBTORUS_LIB to liblbtorus.so.0')
    return os.path.join(_paths.libdir, 'liblbtorus.so.0')


_lib = ctypes.CDLL(_library_path())

_c = ctypes
_i64, _f64 = _c.c_int64, _c.c_double


class _Err(_c.Structure):
    _fields_ = [('msg', _c.c_char * 512)]


class _Config(_c.Structure):
    _fields_ = [('version', _c.c_uint32), ('shape', _c.c_char_p), ('boundary', _c.c_char_p),
                ('method', _c.c_char_p), ('init', _c.c_char_p), ('workload', _c.c_char_p),
                ('speeds', _c.c_char_p), ('link', _c.c_char_p), ('until', _c.c_char_p), ('isa', _c.c_char_p),
                ('seed', _c.c_uint64), ('threads', _c.c_int), ('max_steps', _i64), ('warmup', _i64),
                ('full_stats', _c.c_int), ('verify', _c.c_int), ('interrupt', _c.c_void_p),
                ('param', (_c.c_char_p * 2) * 8), ('app', _c.c_char_p), ('as_command', _c.c_char_p),
                ('ranks', _c.c_char_p), ('reserved', _c.c_void_p * 13)]


_RECORD_FIELDS = [('step', _i64), ('max', _f64), ('min', _f64), ('total', _f64), ('shifts', _f64),
                  ('moved', _f64), ('moved_total', _f64), ('link_max', _f64), ('idle', _i64), ('stddev', _f64),
                  ('rel', _f64), ('generated', _f64), ('completed', _f64), ('idle_capacity', _f64),
                  ('sqdev', _f64)]


class _Record(_c.Structure):
    _fields_ = _RECORD_FIELDS + [('reserved', _f64 * 8)]


class _Result(_c.Structure):
    _fields_ = [('step', _i64), ('steps', _i64), ('reached', _c.c_int), ('real', _c.c_int), ('stop', _c.c_char_p),
                ('total', _f64), ('initial_max', _f64), ('initial_min', _f64), ('final_max', _f64),
                ('final_min', _f64), ('shifts', _f64), ('moved', _f64), ('seconds', _f64),
                ('shared_step', _i64), ('balanced_step', _i64), ('flat_step', _i64), ('shared_shifts', _f64),
                ('balanced_shifts', _f64), ('flat_shifts', _f64), ('generated', _f64), ('completed', _f64),
                ('period', _i64), ('site_updates', _i64), ('reserved', _f64 * 14)]


class _Array(_c.Structure):
    _fields_ = [('data', _c.c_void_p), ('dtype', _c.c_char * 8), ('ndim', _c.c_int), ('shape', _i64 * 8),
                ('strides', _i64 * 8), ('reserved', _i64 * 4)]


class _MethodInfo(_c.Structure):
    _fields_ = [('name', _c.c_char_p), ('summary', _c.c_char_p), ('citation', _c.c_char_p), ('real', _c.c_int),
                ('deterministic', _c.c_int), ('speeds', _c.c_int), ('nparams', _c.c_int), ('random', _c.c_int),
                ('cut', _c.c_int), ('scratch', _c.c_int), ('kernels', _c.c_uint), ('slot', _c.POINTER(_c.c_char_p)),
                ('reserved', _c.c_void_p * 5)]


class _ParamInfo(_c.Structure):
    _fields_ = [('name', _c.c_char_p), ('short_name', _c.c_char_p), ('integer', _c.c_int), ('lo', _f64),
                ('hi', _f64), ('lo_open', _c.c_int), ('words', _c.c_char_p), ('def', _c.c_char_p),
                ('help', _c.c_char_p), ('reserved', _c.c_void_p * 8)]


class _WorkloadInfo(_c.Structure):
    _fields_ = [('name', _c.c_char_p), ('summary', _c.c_char_p), ('usage', _c.c_char_p), ('tasks', _c.c_int),
                ('example', _c.c_char_p), ('int_loads', _c.c_int), ('real_loads', _c.c_int),
                ('reserved', _c.c_void_p * 6)]


_NOTE = _c.CFUNCTYPE(None, _c.c_void_p, _c.c_char_p)


class _Batch(_c.Structure):
    _fields_ = [('version', _c.c_uint32), ('threads', _c.c_int), ('isa', _c.c_char_p), ('data_dir', _c.c_char_p),
                ('quick', _c.c_int), ('interrupt', _c.c_void_p), ('note', _NOTE), ('ctx', _c.c_void_p),
                ('titles', _c.c_int), ('reserved', _c.c_void_p * 15)]


_OBSERVER = _c.CFUNCTYPE(_c.c_int, _c.c_void_p, _c.POINTER(_Record))


class _IsaInfo(_c.Structure):
    _fields_ = [('name', _c.c_char_p), ('supported', _c.c_int), ('emulated', _c.c_int), ('chosen', _c.c_int),
                ('reserved', _c.c_void_p * 4)]


class _UntilInfo(_c.Structure):
    _fields_ = [('syntax', _c.c_char_p), ('help', _c.c_char_p), ('reserved', _c.c_void_p * 4)]


class _Outputs(_c.Structure):
    _fields_ = [('version', _c.c_uint32), ('json', _c.c_char_p), ('trace', _c.c_char_p), ('dump', _c.c_char_p),
                ('snapshots', _c.c_char_p), ('animate', _c.c_char_p), ('comm_stats', _c.c_char_p), ('every', _i64),
                ('heat_max', _i64), ('zoom', _i64), ('delay', _i64), ('reserved', _c.c_void_p * 12)]


class _SimInfo(_c.Structure):
    _fields_ = [('method', _c.c_char_p), ('isa', _c.c_char_p), ('threads', _c.c_int), ('dims', _c.c_int),
                ('active_dims', _c.c_int), ('pes', _i64), ('k', _i64), ('rank', _c.c_int), ('ranks', _c.c_int),
                ('cut', _c.c_int), ('dkl_bound', _i64), ('lower_bound_steps', _i64),
                ('balanced_lower_bound_steps', _i64), ('reserved', _f64 * 8)]


class _SearchSpec(_c.Structure):
    _fields_ = [('version', _c.c_uint32), ('shape', _c.c_char_p), ('boundary', _c.c_char_p), ('method', _c.c_char_p),
                ('workload', _c.c_char_p), ('ldiff', _i64), ('total', _i64), ('mean', _i64), ('restarts', _i64),
                ('moves', _i64), ('max_steps', _i64), ('anneal', _f64), ('seed', _c.c_uint64), ('out', _c.c_char_p),
                ('print', _NOTE), ('ctx', _c.c_void_p), ('reserved', _c.c_void_p * 8)]


class _FigureSpec(_c.Structure):
    _fields_ = [('version', _c.c_uint32), ('inputs', _c.POINTER(_c.c_char_p)), ('ninputs', _c.c_int),
                ('x', _c.c_char_p), ('y', _c.c_char_p), ('group', _c.c_char_p), ('logx', _c.c_int),
                ('logy', _c.c_int), ('fit', _c.c_char_p), ('title', _c.c_char_p), ('stem', _c.c_char_p),
                ('print', _NOTE), ('ctx', _c.c_void_p), ('reserved', _c.c_void_p * 8)]


class _SweepCounts(_c.Structure):
    _fields_ = [('total', _i64), ('skipped', _i64), ('done', _i64), ('failed', _i64), ('unconverged', _i64),
                ('seconds', _f64), ('rate', _f64), ('eta', _f64), ('torn', _c.c_int), ('completed', _c.c_int),
                ('end', _c.c_int), ('status', _c.c_int), ('rank', _c.c_int), ('reserved', _f64 * 8)]


class _SweepOpts(_c.Structure):
    _fields_ = [('version', _c.c_uint32), ('spec', _c.c_char_p), ('results', _c.c_char_p),
                ('axis', (_c.c_char_p * 2) * 64), ('threads', _c.c_int), ('solo_pes', _i64), ('verify', _c.c_int),
                ('dry_run', _c.c_int), ('planned', _c.CFUNCTYPE(None, _c.c_void_p, _c.c_char_p, _c.c_char_p)),
                ('progress', _c.CFUNCTYPE(None, _c.c_void_p, _c.POINTER(_SweepCounts))), ('ctx', _c.c_void_p),
                ('reserved', _c.c_void_p * 16)]


class _BoundOpts(_c.Structure):
    _fields_ = [('version', _c.c_uint32), ('sweep', _SweepOpts), ('out_dir', _c.c_char_p), ('from', _c.c_char_p),
                ('titles', _c.c_int), ('shape', _c.c_char_p), ('init', _c.c_char_p), ('seed', _c.c_char_p),
                ('until', _c.c_char_p), ('reserved', _c.c_void_p * 8)]


class _BoundResult(_c.Structure):
    _fields_ = [('sweep', _SweepCounts), ('ran', _c.c_int), ('published', _c.c_int), ('drawn', _c.c_int),
                ('plots', _c.c_char * 512), ('points', _i64), ('fitted', _i64), ('skipped', _i64), ('c', _f64),
                ('c_lo95', _f64), ('c_hi95', _f64), ('c_ols', _f64), ('envelope', _f64), ('reserved', _f64 * 8)]


class _Bench(_c.Structure):
    _fields_ = [('version', _c.c_uint32), ('sizes', _c.c_char_p), ('methods', _c.c_char_p), ('isa', _c.c_char_p),
                ('threads', _c.c_int * 16), ('init', _c.c_char_p), ('workload', _c.c_char_p), ('out', _c.c_char_p),
                ('seconds', _f64), ('quick', _c.c_int), ('interrupt', _c.c_void_p), ('reserved', _c.c_void_p * 16)]


class _BenchInfo(_c.Structure):
    _fields_ = [('cpu', _c.c_char * 256), ('cores', _c.c_int), ('instrumented', _c.c_int), ('seconds', _f64),
                ('init', _c.c_char_p), ('reserved', _f64 * 8)]


_BENCH_ROW_FIELDS = [('size', _c.c_char_p), ('method', _c.c_char_p), ('isa', _c.c_char_p),
                     ('workload', _c.c_char_p), ('dims', _c.c_int), ('threads', _c.c_int), ('pes', _i64),
                     ('steps', _i64), ('seconds', _f64), ('rate', _f64), ('scalar_rate', _f64),
                     ('static_rate', _f64), ('copy_bw', _f64), ('in_place_bw', _f64), ('bound', _f64),
                     ('in_place_bound', _f64), ('cell_bytes', _c.c_int)]


class _BenchRow(_c.Structure):
    _fields_ = _BENCH_ROW_FIELDS + [('reserved_int', _c.c_int), ('reserved', _f64 * 7)]


_BENCH_FN = _c.CFUNCTYPE(_c.c_int, _c.c_void_p, _c.POINTER(_BenchRow))
_P = _c.POINTER


def _proto(name, restype, *args):
    f = getattr(_lib, name)
    f.restype, f.argtypes = restype, list(args)
    return f


_version = _proto('lbt_version', _c.c_char_p)
_status_name = _proto('lbt_status_name', _c.c_char_p, _c.c_int)
_config_default = _proto('lbt_config_default', _Config)
_config_check = _proto('lbt_config_check', _c.c_int, _P(_Config), _P(_Err))
_sim_open = _proto('lbt_sim_open', _c.c_int, _P(_c.c_void_p), _P(_Config), _P(_Err))
_sim_close = _proto('lbt_sim_close', None, _c.c_void_p)
_sim_run = _proto('lbt_sim_run', _c.c_int, _c.c_void_p, _OBSERVER, _c.c_void_p, _P(_Err))
_sim_step = _proto('lbt_sim_step', _c.c_int, _c.c_void_p, _i64, _P(_Err))
_sim_result = _proto('lbt_sim_result', _c.c_int, _c.c_void_p, _P(_Result), _P(_Err))
_sim_json = _proto('lbt_sim_json', _c.c_int, _c.c_void_p, _c.c_char_p, _c.c_size_t, _P(_c.c_size_t), _P(_Err))
_sim_field = _proto('lbt_sim_field', _c.c_int, _c.c_void_p, _c.c_char_p, _P(_Array), _P(_Err))
_sim_field_read = _proto('lbt_sim_field_read', _c.c_int, _c.c_void_p, _c.c_char_p, _P(_Array), _P(_Err))
_sim_field_write = _proto('lbt_sim_field_write', _c.c_int, _c.c_void_p, _c.c_char_p, _P(_Array), _P(_Err))
_method_describe = _proto('lbt_method_describe', _c.c_int, _c.c_int, _P(_MethodInfo))
_param_describe = _proto('lbt_param_describe', _c.c_int, _c.c_int, _c.c_int, _P(_ParamInfo))
_workload_describe = _proto('lbt_workload_describe', _c.c_int, _c.c_int, _P(_WorkloadInfo))
_batch_default = _proto('lbt_batch_default', _Batch)
_set_call = _proto('lbt_set_call', None, _c.c_char_p)
_experiment = _proto('lbt_experiment', _c.c_char_p, _c.c_int)
_experiment_run = _proto('lbt_experiment_run', _c.c_int, _c.c_char_p, _c.c_char_p, _P(_Batch), _P(_i64),
                         _P(_Err))
_isa_describe = _proto('lbt_isa_describe', _c.c_int, _c.c_int, _P(_IsaInfo))
_until_describe = _proto('lbt_until_describe', _c.c_int, _c.c_int, _P(_UntilInfo))
_data_dir = _proto('lbt_data_dir', _c.c_char_p)
_claim_value = _proto('lbt_claim_value', _c.c_int, _c.c_char_p, _c.c_char_p, _P(_f64), _P(_Err))
_outputs_default = _proto('lbt_outputs_default', _Outputs)
_outputs_check = _proto('lbt_outputs_check', _c.c_int, _P(_Outputs), _P(_Config), _P(_Err))
_sim_outputs = _proto('lbt_sim_outputs', _c.c_int, _c.c_void_p, _P(_Outputs), _P(_Err))
_sim_describe = _proto('lbt_sim_describe', _c.c_int, _c.c_void_p, _P(_SimInfo), _P(_Err))
_report_write = _proto('lbt_report_write', _c.c_int, _c.c_char_p, _c.c_char_p, _P(_Err))
_search_default = _proto('lbt_search_default', _SearchSpec)
_search_run = _proto('lbt_search_run', _c.c_int, _P(_SearchSpec), _P(_Batch), _P(_Err))
_figure_default = _proto('lbt_figure_default', _FigureSpec)
_figure_write = _proto('lbt_figure_write', _c.c_int, _P(_FigureSpec), _P(_Err))
_sweep_default = _proto('lbt_sweep_default', _SweepOpts)
_sweep_run = _proto('lbt_sweep_run', _c.c_int, _P(_SweepOpts), _P(_Batch), _P(_SweepCounts), _P(_Err))
_sweep_set = _proto('lbt_sweep_set', _c.c_int, _P(_SweepOpts), _c.c_char_p, _c.c_char_p, _P(_Err))
_bound_default = _proto('lbt_bound_default', _BoundOpts)
_bound_run = _proto('lbt_bound_run', _c.c_int, _P(_BoundOpts), _P(_Batch), _P(_BoundResult), _P(_Err))
_bench_default = _proto('lbt_bench_default', _Bench)
_bench_check = _proto('lbt_bench_check', _c.c_int, _P(_Bench), _P(_BenchInfo), _P(_Err))
_bench_headline = _proto('lbt_bench_headline', _c.c_int, _P(_Bench), _BENCH_FN, _c.c_void_p, _P(_Err))
_bench_run = _proto('lbt_bench_run', _c.c_int, _P(_Bench), _BENCH_FN, _c.c_void_p, _P(_Err))


class Error(Exception):
    """A call of the library failed. str(e) is the library's one line (the
    CLI's message for the same input); e.status is the lbt_status name:
    "invalid", "out of memory", "i/o error", "out of range", "unsupported",
    "internal error", "interrupted" (lbt_status_name); e.code its number."""

    def __init__(self, status, message):
        super().__init__(message)
        self.status = _status_name(status).decode()
        self.code = status


def _interruptibly(flag, fn, *args):
    """fn(*args) in a thread of its own while the main thread waits, with a
    SIGINT handler of ours meanwhile: Ctrl-C sets the library's interrupt
    flag, the call stops after its current step (opening: within a second),
    and KeyboardInterrupt is raised once it has. (Python runs a signal's
    handler only in the main thread between bytecodes, never inside the
    call; a handler that only sets flags cannot land between starting the
    thread and waiting for it.) ctypes releases the GIL for the call; a
    callback runs in that thread. Outside the main thread, or under a SIGINT
    handler not Python's default, fn is called as it is."""
    import signal
    import threading
    if threading.current_thread() is not threading.main_thread() or \
            signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
        return fn(*args)
    out, done, hit = [], threading.Event(), []

    def on_sigint(signum, frame):
        hit.append(signum)
        flag.value = 1

    def work():
        try:
            out.append(fn(*args))
        except BaseException as x:
            out.append(x)
        finally:
            done.set()
    signal.signal(signal.SIGINT, on_sigint)
    try:
        threading.Thread(target=work, name='lbtorus', daemon=True).start()
        while not done.wait(0.25):
            pass
    finally:
        signal.signal(signal.SIGINT, signal.default_int_handler)
        flag.value = 0
    if hit:
        raise KeyboardInterrupt
    if isinstance(out[0], BaseException):
        raise out[0]
    return out[0]


def _check(status, err):
    if status:
        raise Error(status, err.msg.decode('utf-8', 'replace'))


def _text(v):
    return None if v is None else v.decode('utf-8', 'replace')


class _calling:
    """`with _calling(text):` the records, traces and files the library
    writes meanwhile name `text` as their command (lbt_set_call), "C API"
    again after."""

    def __init__(self, text):
        self.text = text

    def __enter__(self):
        _set_call(self.text.encode())

    def __exit__(self, *exc):
        _set_call(None)


def version():
    """The library's version ("0.2.0")."""
    return _version().decode()


# ---- what there is -------------------------------------------------------


def methods():
    """The methods in --help order, each a dict: name, summary, citation,
    real, deterministic, speeds, random (draws random numbers: its seed
    matters), cut (runs on a torus cut between MPI ranks), and params (its
    parameter schema: name,
    short_name, integer, lo, hi, lo_open, words (a list), default, help)."""
    out, i, m = [], 0, _MethodInfo()
    while _method_describe(i, _c.byref(m)) == 0:
        params, p = [], _ParamInfo()
        for j in range(m.nparams):
            _param_describe(i, j, _c.byref(p))
            params.append({'name': _text(p.name), 'short_name': _text(p.short_name), 'integer': bool(p.integer),
                           'lo': p.lo, 'hi': p.hi, 'lo_open': bool(p.lo_open),
                           'words': _text(p.words).split(',') if p.words else [], 'default': _text(getattr(p, 'def')),
                           'help': _text(p.help)})
        out.append({'name': _text(m.name), 'summary': _text(m.summary), 'citation': _text(m.citation),
                    'real': bool(m.real), 'deterministic': bool(m.deterministic), 'speeds': bool(m.speeds),
                    'random': bool(m.random), 'cut': bool(m.cut), 'params': params})
        i += 1
    return out


def workloads():
    """The workloads, each a dict: name, summary, usage (the spec's form,
    "cybenko:DIST:C"), tasks (a finite set of tasks: until "done" ends it),
    example (a spec that runs on a small torus, "tree:2:4"), int_loads and
    real_loads (the example runs on integer, on real-valued loads)."""
    out, i, w = [], 0, _WorkloadInfo()
    while _workload_describe(i, _c.byref(w)) == 0:
        out.append({'name': _text(w.name), 'summary': _text(w.summary), 'usage': _text(w.usage),
                    'tasks': bool(w.tasks), 'example': _text(w.example), 'int_loads': bool(w.int_loads),
                    'real_loads': bool(w.real_loads)})
        i += 1
    return out


def isas():
    """The ISA targets compiled in, best last, each a dict: name ("scalar",
    "avx2", ...), supported (this CPU runs it), emulated (it emulates
    another target: "auto" never takes it), chosen (the one isa="auto"
    takes: $LBTORUS_ISA if set, else the best this CPU runs natively)."""
    out, i, x = [], 0, _IsaInfo()
    while _isa_describe(i, _c.byref(x)) == 0:
        out.append({'name': _text(x.name), 'supported': bool(x.supported), 'emulated': bool(x.emulated),
                    'chosen': bool(x.chosen)})
        i += 1
    return out


def untils():
    """The stop criteria a run's `until` (and a sweep's) takes, each a dict:
    syntax ("steps:N", "balanced", ...) and help (one line)."""
    out, i, u = [], 0, _UntilInfo()
    while _until_describe(i, _c.byref(u)) == 0:
        out.append({'syntax': _text(u.syntax), 'help': _text(u.help)})
        i += 1
    return out


def data_dir():
    """The directory of the papers' data reproduce() and claim() read:
    $LBTORUS_DATA if set, else the installed one."""
    return _data_dir().decode()


def claim(id, data_dir=None):
    """The paper's value `id` of henrich1996_claims.csv (the numbers `lbtorus
    reproduce` puts beside ours, e.g. "table3_lm_balanced": 18.0) in
    data_dir (None: $LBTORUS_DATA, else the installed data). A claim that
    is a statement without a number raises Error."""
    v, err = _f64(), _Err()
    _check(_claim_value(None if data_dir is None else str(data_dir).encode(), str(id).encode(), _c.byref(v),
                        _c.byref(err)), err)
    return v.value


def experiments():
    """The names of `lbtorus reproduce`'s experiments."""
    out = []
    while _experiment(len(out)):
        out.append(_experiment(len(out)).decode())
    return out


# ---- a run ---------------------------------------------------------------

#: The columns of a trace (`lbtorus run --trace`), in its order; a run with
#: a workload adds WORKLOAD_COLUMNS.
TRACE_COLUMNS = ('step', 'shifts', 'max', 'min', 'ldiff', 'idle', 'stddev', 'moved', 'moved_total', 'rel',
                 'link_max', 'total')
WORKLOAD_COLUMNS = ('generated', 'completed', 'idle_capacity', 'sqdev')


def _trace_dtype(workload):
    import numpy as np
    cols = TRACE_COLUMNS + (WORKLOAD_COLUMNS if workload else ())
    return np.dtype([(c, np.int64 if c in ('step', 'idle') else np.float64) for c in cols])


def _integer(name, value, lo, hi):
    """value as an integer in lo..hi (ctypes would wrap it silently), in the CLI's words."""
    if isinstance(value, bool) or int(value) != value or not lo <= int(value) <= hi:
        raise Error(1, "%s '%s': give an integer in %d..%d" % (name, value, lo, hi))
    return int(value)


def _shape_text(shape):
    if shape is None or isinstance(shape, str):
        return shape
    return 'x'.join(str(int(k)) for k in shape)


def _call_text(name, kw):
    return 'lbtorus.%s(%s)' % (name, ', '.join('%s=%s' % (k, '<array %s %s>' % (v.dtype, v.shape)
                                                           if hasattr(v, '__array_interface__') else repr(v))
                                                for k, v in kw.items()))


def _config(keep, text, seed, threads, max_steps, warmup, full_stats, verify, params):
    """An lbt_config of Sim's keywords: text (shape, boundary, method, init,
    workload, speeds, link, until, isa, app, ranks: None or their text;
    shape and ranks also tuples), the numbers checked as the CLI checks its
    options, the method's parameters; its strings appended to keep."""
    cfg = _config_default()
    for k, v in text.items():
        if v is not None:
            keep.append(str(_shape_text(v) if k in ('shape', 'ranks') else v).encode())
            setattr(cfg, k, keep[-1])
    cfg.seed = _integer('seed', seed, 0, 2**64 - 1)
    if threads is not None:
        cfg.threads = _integer('threads', threads, -2**31, 2**31 - 1)  # <= 0: all cores
    if max_steps is not None:
        cfg.max_steps = _integer('max_steps', max_steps, 0, 2**63 - 1)
    if warmup is not None:
        cfg.warmup = _integer('warmup', warmup, 0, 2**63 - 1)
    cfg.full_stats, cfg.verify = int(bool(full_stats)), int(bool(verify))
    if len(params) > 8:
        raise Error(4, 'more than 8 method parameters')  # lbt_config_param's own words and status
    for i, (name, value) in enumerate(params.items()):
        keep += [name.encode(), str(value).encode()]
        cfg.param[i][0], cfg.param[i][1] = keep[-2], keep[-1]
    return cfg


def check(shape=None, method=None, init=None, workload=None, until=None, seed=1, threads=None, boundary=None,
          speeds=None, link=None, isa=None, max_steps=None, warmup=None, full_stats=False, verify=False, app=None,
          ranks=None, **params):
    """What Sim(...) of the same keywords checks before it allocates the
    torus (lbt_config_check: the shape, method, init and its total,
    workload, until, ISA, input files, the method's parameters on this
    shape), without allocating it: None, or Error with the line Sim would
    raise. (An array as init is not taken: give its spec.)"""
    keep = []
    cfg = _config(keep, dict(shape=shape, boundary=boundary, method=method, init=init, workload=workload,
                             speeds=speeds, link=link, until=until, isa=isa, app=app, ranks=ranks),
                  seed, threads, max_steps, warmup, full_stats, verify, params)
    err = _Err()
    _check(_config_check(_c.byref(cfg), _c.byref(err)), err)


class Sim:
    """One run, opened from keyword arguments as `lbtorus run` takes its
    options: shape ((128, 128) or "128x128"), boundary, method, init (a spec
    such as "worst:5", or an array: the initial loads, whose shape is the
    torus's), workload, speeds, link, until, isa, seed, threads, max_steps,
    warmup, full_stats, verify, app ("iterations:N": an application of N
    iterations, for the fos-speed methods), ranks (under MPI, the grid of
    ranks the torus is cut on: (4, 2) or "4x2"), and the method's
    parameters by name (alpha=0.25, ca_k=2 or k=2). Values may be numbers
    or text; they reach the library as the text the CLI would pass."""

    def __init__(self, shape=None, method=None, init=None, workload=None, until=None, seed=1, threads=None,
                 boundary=None, speeds=None, link=None, isa=None, max_steps=None, warmup=None, full_stats=False,
                 verify=False, app=None, ranks=None, _call=None, **params):
        self._sim = None
        array = None
        if init is not None and not isinstance(init, str):
            import numpy as np
            array = np.asarray(init)
            if shape is not None and tuple(_shape_text(shape).split('x')) != tuple(str(k) for k in array.shape):
                raise Error(1, 'init: the array has shape %s, the torus %s' % (array.shape, _shape_text(shape)))
            shape, init = array.shape, 'const:0'  # the array is written over the empty torus
        self._keep = []  # the config's strings must outlive lbt_sim_open
        cfg = _config(self._keep, dict(shape=shape, boundary=boundary, method=method, init=init, workload=workload,
                                       speeds=speeds, link=link, until=until, isa=isa, app=app, ranks=ranks),
                      seed, threads, max_steps, warmup, full_stats, verify, params)
        self._stop = _c.c_int(0)  # the library's interrupt flag (a sig_atomic_t): set on KeyboardInterrupt
        cfg.interrupt = _c.addressof(self._stop)
        err, sim = _Err(), _c.c_void_p()
        _check(_interruptibly(self._stop, _sim_open, _c.byref(sim), _c.byref(cfg), _c.byref(err)), err)
        self._sim = sim
        self._cfg = cfg  # lbt_outputs_check compares the outputs with its input files
        self._out_keep = []  # the outputs' paths, until the run that writes them
        self.workload = workload
        self.full_stats = bool(full_stats)
        self.real = self._result().real == 1
        self.call = _call or _call_text('Sim', dict(
            [(k, v) for k, v in (('shape', shape), ('method', method), ('init', init if array is None else array),
                                 ('workload', workload), ('until', until), ('seed', seed), ('threads', threads),
                                 ('boundary', boundary), ('speeds', speeds), ('link', link), ('isa', isa),
                                 ('max_steps', max_steps), ('warmup', warmup), ('app', app), ('ranks', ranks))
                                 if v is not None]
            + [(k, v) for k, v in (('full_stats', full_stats), ('verify', verify)) if v] + list(params.items())))
        self.trace = None
        if array is not None:
            self.write(array)

    # -- lifetime
    def close(self):
        """Free the torus (also done when the object is collected)."""
        if self._sim:
            _sim_close(self._sim)
            self._sim = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        self.close()

    def _handle(self):
        if not self._sim:
            raise Error(1, 'this run is closed')
        return self._sim

    # -- running
    def run(self, callback=None, trace=False):
        """One run until the configured criterion (or max_steps, a fixed
        point, a recurring state). callback(record), if given, is called for
        step 0 and after every step with a dict of that step's lbt_record
        (step, max, min, total, shifts, moved, ...); a true return value
        stops the run after that step (stop "interrupted"). An exception in
        the callback stops the run and is raised again here. trace=True
        keeps every step's record in self.trace, a NumPy structured array
        with the columns of `lbtorus run --trace` (TRACE_COLUMNS, and
        WORKLOAD_COLUMNS with a workload); idle, stddev and rel are computed
        only by a Sim opened with full_stats=True (lbtorus.run(trace=True)
        does, as the CLI's --trace), else they hold -1, NaN, NaN. The files
        of outputs(), if it was called since the last run, are written.
        Returns self."""
        rows, failure = [], []
        names = [n for n, _ in _RECORD_FIELDS]

        def observe(ctx, rec):
            r = rec.contents
            if trace:
                rows.append(tuple(getattr(r, n) for n in names))
            if callback is None:
                return 0
            try:
                return 1 if callback({n: getattr(r, n) for n in names}) else 0
            except BaseException as x:  # KeyboardInterrupt too: stop the run, raise it in Python
                failure.append(x)
                return 1

        obs = _OBSERVER(observe) if (callback is not None or trace) else _OBSERVER()
        err = _Err()
        with _calling(self.call):
            status = _interruptibly(self._stop, _sim_run, self._handle(), obs, None, _c.byref(err))
        self._out_keep = []
        if failure:
            raise failure[0]
        _check(status, err)
        if trace:
            self.trace = self._trace(rows, names)
        return self

    def _trace(self, rows, names):
        import numpy as np
        raw = np.array(rows, dtype=[(n, np.int64 if n in ('step', 'idle') else np.float64) for n in names])
        out = np.zeros(len(raw), dtype=_trace_dtype(self.workload))
        for n in out.dtype.names:
            out[n] = raw['max'] - raw['min'] if n == 'ldiff' else raw[n]
        if not self.full_stats:
            out['idle'], out['stddev'], out['rel'] = -1, np.nan, np.nan
        return out

    def step(self, n=1):
        """n more steps of one run kept open from call to call: steps in
        pieces leave the bits and the summary of one run of all of them,
        with every workload (run() and write() end it). Returns self."""
        err = _Err()
        with _calling(self.call):
            _check(_interruptibly(self._stop, _sim_step, self._handle(), int(n), _c.byref(err)), err)
        return self

    # -- files and bounds
    def outputs(self, json=None, trace=None, dump=None, snapshots=None, animate=None, every=None, heat_max=None,
                zoom=None, delay=None):
        """The files of `lbtorus run`'s options of the same names, written
        by the next run() (not by step()) as the CLI writes them: json (the
        record and a newline), trace (the CSV of every step after its "#
        key: value" provenance; idle, stddev and rel are filled only by a
        Sim opened with full_stats=True, as the CLI's --trace sets it), dump
        (the final loads as .npy), snapshots (a directory: a heat map .png
        and a .npy every `every` steps and the last; 1-D and 2-D), animate
        (an animated GIF of the same frames); every (default 10), heat_max
        (the colour scale's top; None: max(2*ceil(mean), D+1)), zoom (pixels
        per PE side; None: the longer side <= 512 pixels), delay (a GIF
        frame's time in 1/100 s, default 8). Each is written to a
        temporary and renamed into place when the run ends (a failed run
        leaves none of them); no output may be another or one of the run's
        input files. Paths are opened now: a bad one fails here. Their
        provenance names this Sim's call. Returns self."""
        o, keep = _outputs_default(), []
        for k, v in (('json', json), ('trace', trace), ('dump', dump), ('snapshots', snapshots),
                     ('animate', animate)):
            if v is not None:
                keep.append(str(v).encode())
                setattr(o, k, keep[-1])
        for k, v, lo, hi in (('every', every, 1, 2**63 - 1), ('heat_max', heat_max, 1, 2**31 - 1),
                             ('zoom', zoom, 1, 64), ('delay', delay, 0, 65535)):
            if v is not None:
                setattr(o, k, _integer(k, v, lo, hi))
        err = _Err()
        _check(_outputs_check(_c.byref(o), _c.byref(self._cfg), _c.byref(err)), err)
        with _calling(self.call):  # the trace's header is written now
            _check(_sim_outputs(self._handle(), _c.byref(o), _c.byref(err)), err)
        self._out_keep = keep
        return self

    def describe(self):
        """What the run is on, and Henrich's (1996) bounds for its current
        loads, as a dict: method, isa, threads, dims, active_dims (axes of
        extent >= 2), pes, k (the largest extent), rank, ranks (processes
        sharing the torus; 1: not cut), cut, dkl_bound (D*K*Ldiff, Theorem 3),
        lower_bound_steps (ceil((Lmax - mean)/D)) and
        balanced_lower_bound_steps (ceil((Lmax - floor(mean) - D)/D))."""
        i, err = _SimInfo(), _Err()
        _check(_sim_describe(self._handle(), _c.byref(i), _c.byref(err)), err)
        return {n: (_text(getattr(i, n)) if n in ('method', 'isa') else
                    bool(getattr(i, n)) if n == 'cut' else getattr(i, n))
                for n, _ in _SimInfo._fields_ if n != 'reserved'}

    # -- reading back
    def _result(self):
        r, err = _Result(), _Err()
        _check(_sim_result(self._handle(), _c.byref(r), _c.byref(err)), err)
        return r

    @property
    def steps_taken(self):
        """Steps the state has taken since it was opened."""
        return self._result().step

    def summary(self):
        """The last run's record as a dict: the JSON object `lbtorus run
        --json` writes (docs/formats.md), its "command" this object's call
        (the Python call that opened it, e.g. "lbtorus.run(shape=(64, 64),
        ...)")."""
        err, n = _Err(), _c.c_size_t()
        h = self._handle()
        status = _sim_json(h, None, 0, _c.byref(n), _c.byref(err))
        if status and status != 4:  # LBT_ERANGE: n holds the length
            _check(status, err)
        buf = _c.create_string_buffer(n.value + 1)
        _check(_sim_json(h, buf, n.value + 1, None, _c.byref(err)), err)
        record = json.loads(buf.value.decode())
        if 'command' in record:
            record['command'] = self.call
        return record

    def field(self, name=None):
        """The field's dtype and shape: ("<i4", (64, 64)). name: "load" (an
        integer method's loads, the default for one), "real" (a real-valued
        method's loads, its default) or "speed"."""
        a = self._describe(name)
        return a.dtype.decode(), tuple(a.shape[d] for d in range(a.ndim))

    def _describe(self, name):
        a, err = _Array(), _Err()
        _check(_sim_field(self._handle(), self._name(name), _c.byref(a), _c.byref(err)), err)
        return a

    def _name(self, name):
        return (name or ('real' if self.real else 'load')).encode()

    def read(self, name=None, out=None):
        """The field `name` (default: the loads) copied once into `out` — a
        caller's NumPy array of the field's dtype and shape, C, Fortran or
        any strided order, reused from step to step without allocating — or
        into a new C-order array. Returns the array."""
        import numpy as np
        dtype, shape = self.field(name)
        if out is None:
            out = np.empty(shape, dtype=dtype)
        err = _Err()
        _check(_sim_field_read(self._handle(), self._name(name), _c.byref(self._view(out, writable=True)),
                               _c.byref(err)), err)
        return out

    def write(self, array, name=None):
        """Replace the loads (name "load" or "real") by `array` (its shape
        the torus's, its dtype the field's: int32 for "load", float64 for
        "real"; any strides). Integer arrays of another integer type are
        converted when every value fits; nothing else is converted."""
        import numpy as np
        dtype, shape = self.field(name)
        a = np.asarray(array)
        if a.dtype != np.dtype(dtype):
            if a.dtype.kind in 'iu' and np.dtype(dtype).kind == 'i' and a.size and \
                    (a.min() < np.iinfo(np.int32).min or a.max() > np.iinfo(np.int32).max):
                raise Error(1, "field '%s': a value of the array does not fit %s" % (self._name(name).decode(),
                                                                                    dtype))
            if a.dtype.kind in 'iu' and np.dtype(dtype).kind == 'i' or a.dtype.kind in 'iuf' and \
                    np.dtype(dtype).kind == 'f':
                a = a.astype(dtype)
        err = _Err()
        _check(_sim_field_write(self._handle(), self._name(name), _c.byref(self._view(a)), _c.byref(err)), err)
        return self

    @staticmethod
    def _view(a, writable=False):
        """An lbt_array describing NumPy array a (no copy)."""
        if writable and not a.flags.writeable:
            raise Error(1, 'the output array is read-only')
        v = _Array()
        v.data = a.ctypes.data
        v.dtype = a.dtype.str.encode()  # '<i4', '>f8', ...: the library refuses all but its own
        v.ndim = a.ndim
        if a.ndim > 8:
            raise Error(1, 'an array of %d dimensions: a torus has at most 8' % a.ndim)
        for d in range(a.ndim):
            v.shape[d], v.strides[d] = a.shape[d], a.strides[d]
        return v


def run(callback=None, trace=False, **kw):
    """Open a Sim from the keywords (Sim's), run it (Sim.run's callback and
    trace), and return it: its summary(), trace and read() hold the run.
    trace=True also sets full_stats (as the CLI's --trace does: every
    column filled)."""
    call = _call_text('run', dict(kw, **({'trace': trace} if trace else {})))
    if trace:
        kw.setdefault('full_stats', True)
    sim = Sim(_call=call, **kw)
    return sim.run(callback=callback, trace=trace)


# ---- many runs and files -------------------------------------------------


def _frame(rows, frame):
    if frame is False:
        return rows
    try:
        import pandas
    except ImportError:
        if frame:
            raise
        return rows
    return pandas.DataFrame(rows)


def read_results(path, frame=None):
    """A results file (JSON lines: `lbtorus sweep --results`, `run --json`)
    as a list of dicts, one a record; a pandas DataFrame when pandas is
    installed (frame=None), always (True) or never (False)."""
    with open(path) as f:
        rows = [json.loads(line) for line in f if line.strip()]
    return _frame(rows, frame)


def read_trace(path):
    """A trace CSV (`lbtorus run --trace`) as a NumPy structured array, its
    columns the CSV's; the "# key: value" header lines (its provenance) are
    returned as the dict read_trace(path).dtype.metadata."""
    import numpy as np
    header, lines = {}, []
    with open(path) as f:
        for line in f:
            if line.startswith('#'):
                k, _, v = line[1:].strip().partition(':')
                header[k.strip()] = v.strip()
            elif line.strip():
                lines.append(line.strip().split(','))
    names = lines[0]
    dtype = np.dtype([(c, np.int64 if c in ('step', 'idle') else np.float64) for c in names], metadata=header)
    return np.array([tuple(int(x) if c in ('step', 'idle') else float(x) for c, x in zip(names, row))
                     for row in lines[1:]], dtype=dtype)


class _Batch_call:
    """One batch call's lbt_batch (threads: runs at once, isa, data_dir,
    quick) with its interrupt flag and note callback, and the
    Python callbacks' exceptions: a callback that raises sets the flag (the
    call stops after its current step) and its exception is raised again
    by call()."""

    def __init__(self, threads=None, isa=None, note=None, data_dir=None, quick=False):
        self.b = _batch_default()
        if threads is not None:
            self.b.threads = _integer('threads', threads, -2**31, 2**31 - 1)  # <= 0: all cores
        self.keep, self.failures = [], []
        for k, v in (('isa', isa), ('data_dir', data_dir)):
            if v is not None:
                setattr(self.b, k, self.text(v))
        self.b.quick = int(bool(quick))
        self.flag = _c.c_int(0)  # the library's interrupt flag (a sig_atomic_t)
        self.b.interrupt = _c.addressof(self.flag)
        self.b.note = self.lines(note) if note else _NOTE()

    def text(self, v):
        """v as the bytes the library reads, kept as long as this call."""
        self.keep.append(str(v).encode())
        return self.keep[-1]

    def guard(self, fn, stop=0):
        """fn wrapped for a C callback: an exception is kept, sets the flag and returns `stop`."""
        def wrapped(*args):
            try:
                return fn(*args)
            except BaseException as x:
                self.failures.append(x)
                self.flag.value = 1
                return stop
        return wrapped

    def lines(self, fn):
        """An lbt_print / note callback giving fn each line as text."""
        cb = _NOTE(self.guard(lambda ctx, line: fn(line.decode('utf-8', 'replace'))))
        self.keep.append(cb)
        return cb

    def call(self, name, kw, fn, *args):
        """fn(*args, err) named `lbtorus.NAME(KW)` in what it writes, Ctrl-C
        stopping it (_interruptibly); a callback's exception, else a failure
        as Error."""
        err = _Err()
        with _calling(_call_text(name, kw)):
            status = _interruptibly(self.flag, fn, *(args + (_c.byref(err),)))
        if self.failures:
            raise self.failures[0]
        _check(status, err)


def sweep(spec=None, results=None, threads=None, isa=None, note=None, frame=None, run_threads=None, verify=False,
          progress=None, **axes):
    """`lbtorus sweep`: the runs of the spec file `spec` (docs/usage.md,
    "Spec files") and of the axes given as keywords (method, shape,
    boundary, init, until, workload, seed, max_steps, warmup, solo_pes: each
    text, "8..64*2", or a list of items; an axis given replaces the file's)
    not yet in `results` (JSON lines, appended; a later call resumes),
    `threads` at once (the CLI's --jobs; run_threads: the threads of each
    run of solo_pes PEs or more, --threads; verify: step the scalar
    reference beside). progress(counts), if given, gets a dict of the
    sweep's counts (total, skipped, done, failed, unconverged, seconds,
    rate, eta, torn, completed, end, status, rank) after every finished run,
    before the first and at the end; note(line) a line "N of M runs done (S
    skipped, F failed)" at the same times but the end. Returns every record
    of `results` (read_results)."""
    if results is None:
        raise Error(1, 'sweep: name the results file (results=FILE.jsonl)')
    c = _Batch_call(threads, isa)
    o, err = _sweep_default(), _Err()
    if spec is not None:
        o.spec = c.text(spec)
    o.results, o.verify = c.text(results), int(bool(verify))
    if run_threads is not None:
        o.threads = _integer('run_threads', run_threads, 1, 2**31 - 1)
    for k, v in axes.items():
        _check(_sweep_set(_c.byref(o), c.text(k.replace('_', '-')), c.text(_items(v, k == 'shape')), _c.byref(err)),
               err)

    def counts(ctx, p):
        d = _counts(p.contents)
        if note and not d['end']:
            note('%d of %d runs done (%d skipped, %d failed)' % (d['done'] + d['failed'], d['total'] - d['skipped'],
                                                                 d['skipped'], d['failed']))
        if progress:
            progress(d)
    if note or progress:
        o.progress = type(o.progress)(c.guard(counts))
    kw = dict(**({'spec': str(spec)} if spec is not None else {}), results=str(results),
              **{k: _items(v, k == 'shape') for k, v in axes.items()})
    c.call('sweep', kw, _sweep_run, _c.byref(o), _c.byref(c.b), None)
    return read_results(results, frame)


def reproduce(name, out_dir, threads=None, isa=None, data_dir=None, quick=False, note=None):
    """`lbtorus reproduce NAME --out OUT_DIR`: returns how many of the
    paper's exact values ours missed."""
    c, differs = _Batch_call(threads, isa, note, data_dir, quick), _i64()
    c.call('reproduce', dict(name=str(name), out_dir=str(out_dir), quick=bool(quick)), _experiment_run,
           str(name).encode(), str(out_dir).encode(), _c.byref(c.b), _c.byref(differs))
    return differs.value


def _items(v, shapes=False):
    """A list option's text: "a,b" for a list or tuple, else str(v); with
    shapes, a tuple of integers is one shape ("8x8")."""
    def shape(x):
        return shapes and isinstance(x, tuple) and all(isinstance(k, int) for k in x)
    if isinstance(v, (list, tuple)) and not shape(v):
        return ','.join(_shape_text(x) if shape(x) else str(x) for x in v)
    return _shape_text(v) if shape(v) else str(v)


def _counts(c):
    return {n: getattr(c, n) for n, _ in _SweepCounts._fields_ if n != 'reserved'}


def bound(out_dir='bound', results=None, spec=None, titles=False, threads=None, run_threads=None, isa=None,
          verify=False, note=None, **axes):
    """`lbtorus bound`: Henrich's (1996) Theorem 3, T = O(D·K·Ldiff), for one
    method. Runs the sweep (resumable, into OUT_DIR/runs.jsonl) — its axes
    by `lbtorus bound`'s sweep options as keywords: method, shape, boundary,
    init, until, seed, max_steps, warmup, solo_pes, each a string ("8..64*2")
    or a list of items; the ones not given take bound's defaults (rings and
    K^D tori, Ldiff up to 2047, seeds 1..3) — or, with results=FILE, fits
    that file's records instead of running. Writes OUT_DIR/bound.csv,
    bound.json and the plots (titles: a title on each), published
    together. threads: runs at once (the CLI's --jobs); run_threads: the
    threads of each run of solo_pes PEs or more (--threads). note(line)
    gets the summary `lbtorus bound` prints. Returns a dict: sweep (the
    sweep's counts: total, skipped, done, failed, unconverged, ...), ran,
    published, drawn (runs.jsonl has the sweep; bound.csv and .json are
    out; the plots are), plots (why there are none, or ""), points,
    fitted, skipped, c, c_lo95, c_hi95 (T ~ c·D·K·Ldiff: the mean ratio and
    its 95 % interval), c_ols (least squares through 0), envelope (the
    largest ratio), and lines (the summary's lines)."""
    lines = []
    c = _Batch_call(threads, isa, lambda line: (lines.append(line), note and note(line)))
    o, err = _bound_default(), _Err()
    o.out_dir = c.text(out_dir)
    if results is not None:
        setattr(o, 'from', c.text(results))
    if spec is not None:
        o.sweep.spec = c.text(spec)
    o.titles, o.sweep.verify = int(bool(titles)), int(bool(verify))
    if run_threads is not None:
        o.sweep.threads = _integer('run_threads', run_threads, 1, 2**31 - 1)
    if results is None:
        o.sweep.results = c.text(os.path.join(str(out_dir), 'runs.jsonl'))
    for k, v in axes.items():
        _check(_sweep_set(_c.byref(o.sweep), c.text(k.replace('_', '-')), c.text(_items(v, k == 'shape')),
                          _c.byref(err)), err)
    r = _BoundResult()
    kw = dict(out_dir=str(out_dir), **({'results': str(results)} if results is not None else {}),
              **{k: _items(v, k == 'shape') for k, v in axes.items()})
    c.call('bound', kw, _bound_run, _c.byref(o), _c.byref(c.b), _c.byref(r))
    out = {n: getattr(r, n) for n, _ in _BoundResult._fields_ if n not in ('reserved', 'sweep', 'plots')}
    for n in ('ran', 'published', 'drawn'):
        out[n] = bool(out[n])
    out.update(sweep=_counts(r.sweep), plots=r.plots.decode('utf-8', 'replace'), lines=lines)
    return out


def search(shape, ldiff, total=None, mean=None, method=None, boundary=None, workload=None, restarts=None,
           moves=None, max_steps=None, anneal=None, seed=1, out=None, threads=None, isa=None, note=None):
    """`lbtorus search`: the initial load of a total with max - min = ldiff
    that `method` (default lm-c5) takes longest to balance, by hill climbing
    (anneal: a start temperature in steps, simulated annealing) from
    `restarts` random starts (default 8) of `moves` moves each (default
    2000); give exactly one of total and mean (total = mean x PEs). The
    worst loads found are written to `out` (default worst.npy) as .npy.
    threads: restarts at once (the result is the same for any number).
    note(line) gets a line per restart. Returns the JSON object `lbtorus
    search` prints, as a dict (its "command" this call)."""
    if (total is None) == (mean is None):
        raise Error(1, 'search: give exactly one of total and mean')
    c, lines = _Batch_call(threads, isa, note), []
    s = _search_default()
    s.shape, s.ldiff = c.text(_shape_text(shape)), _integer('ldiff', ldiff, 1, 2**31 - 1)
    if total is not None:
        s.total = _integer('total', total, 0, 2**63 - 1)
    else:
        s.mean = _integer('mean', mean, 0, 2**31 - 1)
    for k, v in (('method', method), ('boundary', boundary), ('workload', workload), ('out', out)):
        if v is not None:
            setattr(s, k, c.text(v))
    for k, v, lo in (('restarts', restarts, 1), ('moves', moves, 0), ('max_steps', max_steps, 1)):
        if v is not None:
            setattr(s, k, _integer(k, v, lo, 2**63 - 1))
    if anneal is not None:
        s.anneal = float(anneal)
    s.seed = _integer('seed', seed, 0, 2**64 - 1)
    s.print = c.lines(lines.append)
    kw = dict(shape=shape, ldiff=ldiff, **{k: v for k, v in (('total', total), ('mean', mean), ('method', method),
                                                               ('boundary', boundary), ('workload', workload),
                                                               ('restarts', restarts), ('moves', moves),
                                                               ('max_steps', max_steps), ('anneal', anneal),
                                                               ('seed', seed), ('out', out)) if v is not None})
    c.call('search', kw, _search_run, _c.byref(s), _c.byref(c.b))
    return json.loads(lines[-1])


def report(results, out=None):
    """`lbtorus report RESULTS --out OUT`: a Markdown report of a results
    file (or of the *.jsonl of a directory) and what lies beside it,
    written to `out` (returned), or returned as text (out None)."""
    c = _Batch_call()
    if out is not None:
        c.call('report', dict(results=str(results), out=str(out)), _report_write, c.text(results), c.text(out))
        return str(out)
    import tempfile
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, 'report.md')
        c.call('report', dict(results=str(results)), _report_write, c.text(results), c.text(path))
        with open(path) as f:
            return f.read()


def figure(inputs, x, y, group=None, logx=False, logy=False, fit=None, title=None, stem=None):
    """`lbtorus plot INPUTS --x X --y Y`: a figure of results files (.jsonl)
    and traces (.csv), y against x, a series per `group` value (None: a
    series per trace, one of all records), fit "linear" or "power" per
    series; the files STEM.png, .svg, .gp, .dat, .csv, .py, .fit.json (stem
    default "plot"). Returns the lines `lbtorus plot` prints (a series'
    points and fit each)."""
    if isinstance(inputs, (str, os.PathLike)):
        inputs = [inputs]
    c, lines = _Batch_call(), []
    f = _figure_default()
    paths = (_c.c_char_p * len(inputs))(*[c.text(p) for p in inputs])
    f.inputs, f.ninputs = _c.cast(paths, _c.POINTER(_c.c_char_p)), len(inputs)
    for k, v in (('x', x), ('y', y), ('group', group), ('fit', fit), ('title', title), ('stem', stem)):
        if v is not None:
            setattr(f, k, c.text(v))
    f.logx, f.logy = int(bool(logx)), int(bool(logy))
    f.print = c.lines(lines.append)
    kw = dict(inputs=[str(p) for p in inputs], x=x, y=y, **{k: v for k, v in (
        ('group', group), ('logx', logx or None), ('logy', logy or None), ('fit', fit), ('title', title),
        ('stem', stem)) if v is not None})
    c.call('figure', kw, _figure_write, _c.byref(f))
    return lines


#: The fields of a row of bench(), in lbt_bench_row's order.
BENCH_COLUMNS = tuple(n for n, _ in _BENCH_ROW_FIELDS)


def bench(sizes=None, methods=None, isa=None, threads=None, init=None, workload=None, seconds=None, quick=False,
          callback=None, headline=False):
    """`lbtorus bench`: each size x method x ISA x thread count timed for
    about `seconds` (default 0.5, quick 0.1), the method's steps alone, the
    scalar reference on one thread beside, and under `workload` too if
    given. sizes, methods, isa: lists or comma-separated text (shapes as
    (64, 64) or "64x64"); threads: a list of counts (default 1 and all
    cores); init (default uniform:0:20); None: bench's defaults (quick: the
    small ones). callback(row), if given, gets each row as a dict as it is
    measured; a true return stops the measuring (the rows so far are
    returned). Returns a NumPy structured array, a row per timing
    (BENCH_COLUMNS: size, method, isa, workload ("" static), dims, threads,
    pes, steps, seconds, rate (site updates per second), scalar_rate,
    static_rate, copy_bw, in_place_bw (bytes per second), bound,
    in_place_bound (site updates per second the bandwidths allow),
    cell_bytes (a PE's load: 4 int32, 8 float64, the bounds' bytes)); its
    dtype.metadata the machine: cpu, cores, instrumented (built with
    sanitizers), seconds and init. headline=True: instead, the headline
    `lbtorus bench` prints first, a row for each ISA: 128x128, lm-c5,
    worst:5 until balanced, 1 thread, as `lbtorus run` runs it (size,
    method, isa, dims, threads, pes, steps, seconds and rate filled)."""
    import numpy as np
    c = _Batch_call()
    b = _bench_default()
    for k, v in (('sizes', sizes), ('methods', methods), ('isa', isa), ('init', init), ('workload', workload)):
        if v is not None:
            setattr(b, k, c.text(_items(v, k == 'sizes')))
    if threads is not None:
        threads = [threads] if isinstance(threads, int) else list(threads)
        if len(threads) > 15:
            raise Error(1, 'threads: at most 15 counts')
        for i, t in enumerate(threads):
            b.threads[i] = _integer('threads', t, 1, 2**31 - 1)
    if seconds is not None:
        b.seconds = float(seconds)
    b.quick = int(bool(quick))
    b.interrupt = _c.addressof(c.flag)
    info, err = _BenchInfo(), _Err()
    _check(_bench_check(_c.byref(b), _c.byref(info), _c.byref(err)), err)
    rows, stopped = [], []

    def row(ctx, r):
        r = r.contents
        d = {n: (_text(getattr(r, n)) or '' if n in ('size', 'method', 'isa', 'workload') else getattr(r, n))
             for n in BENCH_COLUMNS}
        rows.append(tuple(d[n] for n in BENCH_COLUMNS))
        if callback is not None and callback(d):
            stopped.append(True)
            return 1
        return 0
    fn = _BENCH_FN(c.guard(row, 1))
    kw = {k: v for k, v in (('sizes', sizes), ('methods', methods), ('isa', isa), ('threads', threads),
                            ('init', init), ('workload', workload), ('seconds', seconds),
                            ('quick', quick or None), ('headline', headline or None)) if v is not None}
    try:
        c.call('bench', kw, _bench_headline if headline else _bench_run, _c.byref(b), fn, None)
    except Error as x:
        if not (stopped and x.status == 'interrupted'):
            raise
    meta = {'cpu': info.cpu.decode('utf-8', 'replace'), 'cores': info.cores, 'instrumented': bool(info.instrumented),
            'seconds': info.seconds, 'init': _text(info.init)}
    width = max([len(x) for r in rows for x in r[:4]] + [1])
    dtype = np.dtype([(n, 'U%d' % width if n in ('size', 'method', 'isa', 'workload') else
                       np.int32 if n in ('dims', 'threads', 'cell_bytes') else np.int64 if n in ('pes', 'steps') else np.float64)
                      for n in BENCH_COLUMNS], metadata=meta)
    return np.array(rows, dtype=dtype)

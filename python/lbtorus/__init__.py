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

__all__ = ['Error', 'Sim', 'run', 'methods', 'workloads', 'experiments', 'reproduce', 'sweep', 'read_results',
           'read_trace', 'version', 'TRACE_COLUMNS', 'WORKLOAD_COLUMNS']

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
                ('param', (_c.c_char_p * 2) * 8), ('reserved', _c.c_void_p * 16)]


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
                ('reserved', _f64 * 16)]


class _Array(_c.Structure):
    _fields_ = [('data', _c.c_void_p), ('dtype', _c.c_char * 8), ('ndim', _c.c_int), ('shape', _i64 * 8),
                ('strides', _i64 * 8), ('reserved', _i64 * 4)]


class _MethodInfo(_c.Structure):
    _fields_ = [('name', _c.c_char_p), ('summary', _c.c_char_p), ('citation', _c.c_char_p), ('real', _c.c_int),
                ('deterministic', _c.c_int), ('speeds', _c.c_int), ('nparams', _c.c_int),
                ('reserved', _c.c_void_p * 8)]


class _ParamInfo(_c.Structure):
    _fields_ = [('name', _c.c_char_p), ('short_name', _c.c_char_p), ('integer', _c.c_int), ('lo', _f64),
                ('hi', _f64), ('lo_open', _c.c_int), ('words', _c.c_char_p), ('default', _c.c_char_p),
                ('help', _c.c_char_p), ('reserved', _c.c_void_p * 8)]


class _WorkloadInfo(_c.Structure):
    _fields_ = [('name', _c.c_char_p), ('summary', _c.c_char_p), ('usage', _c.c_char_p), ('tasks', _c.c_int),
                ('example', _c.c_char_p), ('reserved', _c.c_void_p * 7)]


_NOTE = _c.CFUNCTYPE(None, _c.c_void_p, _c.c_char_p)


class _Batch(_c.Structure):
    _fields_ = [('version', _c.c_uint32), ('threads', _c.c_int), ('isa', _c.c_char_p), ('data_dir', _c.c_char_p),
                ('quick', _c.c_int), ('interrupt', _c.c_void_p), ('note', _NOTE), ('ctx', _c.c_void_p),
                ('titles', _c.c_int), ('reserved', _c.c_void_p * 15)]


_OBSERVER = _c.CFUNCTYPE(_c.c_int, _c.c_void_p, _c.POINTER(_Record))
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
_sweep_file = _proto('lbt_sweep_file', _c.c_int, _c.c_char_p, _c.c_char_p, _P(_Batch), _P(_Err))
_experiment = _proto('lbt_experiment', _c.c_char_p, _c.c_int)
_experiment_run = _proto('lbt_experiment_run', _c.c_int, _c.c_char_p, _c.c_char_p, _P(_Batch), _P(_i64),
                         _P(_Err))


class Error(Exception):
    """A call of the library failed. str(e) is the library's one line (the
    CLI's message for the same input); e.status is the lbt_status name:
    "invalid", "memory", "io", "range", "unsupported", "internal",
    "interrupted"."""

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


def version():
    """The library's version ("0.2.0")."""
    return _version().decode()


# ---- what there is -------------------------------------------------------


def methods():
    """The methods in --help order, each a dict: name, summary, citation,
    real, deterministic, speeds, and params (its parameter schema: name,
    short_name, integer, lo, hi, lo_open, words (a list), default, help)."""
    out, i, m = [], 0, _MethodInfo()
    while _method_describe(i, _c.byref(m)) == 0:
        params, p = [], _ParamInfo()
        for j in range(m.nparams):
            _param_describe(i, j, _c.byref(p))
            params.append({'name': _text(p.name), 'short_name': _text(p.short_name), 'integer': bool(p.integer),
                           'lo': p.lo, 'hi': p.hi, 'lo_open': bool(p.lo_open),
                           'words': _text(p.words).split(',') if p.words else [], 'default': _text(p.default),
                           'help': _text(p.help)})
        out.append({'name': _text(m.name), 'summary': _text(m.summary), 'citation': _text(m.citation),
                    'real': bool(m.real), 'deterministic': bool(m.deterministic), 'speeds': bool(m.speeds),
                    'params': params})
        i += 1
    return out


def workloads():
    """The workloads, each a dict: name, summary, usage (the spec's form,
    "cybenko:DIST:C"), tasks (a finite set of tasks: until "done" ends it),
    example (a spec that runs on a small torus, "tree:2:4")."""
    out, i, w = [], 0, _WorkloadInfo()
    while _workload_describe(i, _c.byref(w)) == 0:
        out.append({'name': _text(w.name), 'summary': _text(w.summary), 'usage': _text(w.usage),
                    'tasks': bool(w.tasks), 'example': _text(w.example)})
        i += 1
    return out


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


class Sim:
    """One run, opened from keyword arguments as `lbtorus run` takes its
    options: shape ((128, 128) or "128x128"), boundary, method, init (a spec
    such as "worst:5", or an array: the initial loads, whose shape is the
    torus's), workload, speeds, link, until, isa, seed, threads, max_steps,
    warmup, full_stats, verify, and the method's parameters by name
    (alpha=0.25, ca_k=2 or k=2). Values may be numbers or text; they
    reach the library as the text the CLI would pass."""

    _KEYS = ('shape', 'boundary', 'method', 'init', 'workload', 'speeds', 'link', 'until', 'isa')

    def __init__(self, shape=None, method=None, init=None, workload=None, until=None, seed=1, threads=None,
                 boundary=None, speeds=None, link=None, isa=None, max_steps=None, warmup=None, full_stats=False,
                 verify=False, _call=None, **params):
        self._sim = None
        array = None
        if init is not None and not isinstance(init, str):
            import numpy as np
            array = np.asarray(init)
            if shape is not None and tuple(_shape_text(shape).split('x')) != tuple(str(k) for k in array.shape):
                raise Error(1, 'init: the array has shape %s, the torus %s' % (array.shape, _shape_text(shape)))
            shape, init = array.shape, 'const:0'  # the array is written over the empty torus
        text = {'shape': _shape_text(shape), 'boundary': boundary, 'method': method, 'init': init,
                'workload': workload, 'speeds': speeds, 'link': link, 'until': until, 'isa': isa}
        self._keep = []  # the config's strings must outlive lbt_sim_open
        cfg = _config_default()
        for k in self._KEYS:
            if text[k] is not None:
                b = str(text[k]).encode()
                self._keep.append(b)
                setattr(cfg, k, b)
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
            n, v = name.encode(), str(value).encode()
            self._keep += [n, v]
            cfg.param[i][0], cfg.param[i][1] = n, v
        self._stop = _c.c_int(0)  # the library's interrupt flag (a sig_atomic_t): set on KeyboardInterrupt
        cfg.interrupt = _c.addressof(self._stop)
        err, sim = _Err(), _c.c_void_p()
        _check(_interruptibly(self._stop, _sim_open, _c.byref(sim), _c.byref(cfg), _c.byref(err)), err)
        self._sim = sim
        self.workload = workload
        self.full_stats = bool(full_stats)
        self.real = self._result().real == 1
        self.call = _call or _call_text('Sim', dict(
            [(k, v) for k, v in (('shape', shape), ('method', method), ('init', init if array is None else array),
                                 ('workload', workload), ('until', until), ('seed', seed), ('threads', threads),
                                 ('boundary', boundary), ('speeds', speeds), ('link', link), ('isa', isa),
                                 ('max_steps', max_steps), ('warmup', warmup)) if v is not None]
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
        does, as the CLI's --trace), else they hold -1, NaN, NaN. Returns
        self."""
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
        status = _interruptibly(self._stop, _sim_run, self._handle(), obs, None, _c.byref(err))
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
        _check(_interruptibly(self._stop, _sim_step, self._handle(), int(n), _c.byref(err)), err)
        return self

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


def _batch(threads, isa, note, data_dir=None, quick=False):
    b = _batch_default()
    if threads is not None:
        b.threads = int(threads)
    keep = []
    for k, v in (('isa', isa), ('data_dir', data_dir)):
        if v is not None:
            keep.append(str(v).encode())
            setattr(b, k, keep[-1])
    b.quick = int(bool(quick))
    fn = _NOTE(lambda ctx, line: note(line.decode())) if note else _NOTE()
    b.note = fn
    return b, (keep, fn)


def sweep(spec, results, threads=None, isa=None, note=None, frame=None):
    """The runs of the sweep spec file `spec` (docs/usage.md, "Spec files")
    not yet in `results` (JSON lines, appended; a later call resumes), as
    `lbtorus sweep --spec` runs them; note(line), if given, gets the
    progress. Returns every record of `results` (read_results)."""
    b, keep = _batch(threads, isa, note)
    err = _Err()
    _set_call(_call_text('sweep', dict(spec=str(spec), results=str(results))).encode())
    try:
        _check(_sweep_file(str(spec).encode(), str(results).encode(), _c.byref(b), _c.byref(err)), err)
    finally:
        _set_call(None)
    return read_results(results, frame)


def reproduce(name, out_dir, threads=None, isa=None, data_dir=None, quick=False, note=None):
    """`lbtorus reproduce NAME --out OUT_DIR`: returns how many of the
    paper's exact values ours missed."""
    b, keep = _batch(threads, isa, note, data_dir, quick)
    err, differs = _Err(), _i64()
    _set_call(_call_text('reproduce', dict(name=str(name), out_dir=str(out_dir), quick=bool(quick))).encode())
    try:
        _check(_experiment_run(str(name).encode(), str(out_dir).encode(), _c.byref(b), _c.byref(differs),
                               _c.byref(err)), err)
    finally:
        _set_call(None)
    return differs.value

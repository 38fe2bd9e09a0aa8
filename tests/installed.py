#!/usr/bin/env python3
"""installed.py — the library as a user gets it.

Installs the build into a temporary DESTDIR (`meson install --destdir`),
checks the installed tree (lbtorus, liblbtorus.so and .a, the one public
header lbtorus.h, lbtorus.pc, the data files) and that both libraries define
exactly the calls the public header declares (tests/symbols.py), then builds
every examples/*.c against the INSTALLED library through pkg-config, shared
and static, runs it, and compares what it prints with what the installed
CLI writes for the same run (its JSON, trace and --dump).

Also: the uninstalled lbtorus of the build tree reads the source tree's data,
and the installed Python module lbtorus finds the installed library.

usage: installed.py BUILD_ROOT SOURCE_ROOT PREFIX DATADIR -- CC [CC ARGS...]
"""
import csv
import glob
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

# What each example computes, as the CLI's `run` options, and what it must
# print for that run, from the CLI's outputs in a directory.
EXAMPLES = {
    'lm_c5': ['--shape', '64x64', '--method', 'lm-c5', '--init', 'worst:5', '--until', 'balanced'],
    'dynamic': ['--shape', '12x20', '--method', 'fos-int', '--alpha', '0.2', '--init', 'uniform:0:9',
                '--workload', 'cybenko:poisson:1:1', '--until', 'steps:50', '--seed', '7'],
}
# the JSON's only keys that differ between two runs: timing, the date and the call (argv, "C API")
TIMING = ('seconds', 'site_updates_per_second', 'date_utc', 'command')


def npy_int32(path):
    """The values and shape of a C-order '<i4' .npy file (what --dump writes for integer loads)."""
    data = open(path, 'rb').read()
    hlen = int.from_bytes(data[8:10], 'little') if data[6] == 1 else int.from_bytes(data[8:12], 'little')
    start = (10 if data[6] == 1 else 12) + hlen
    header = data[start - hlen:start].decode('latin1')
    if "'descr': '<i4'" not in header or "'fortran_order': False" not in header:
        raise SystemExit('%s: not a C-order int32 array: %s' % (path, header))
    shape = tuple(int(x) for x in re.search(r"'shape': \(([^)]*)\)", header).group(1).split(',') if x.strip())
    body = data[start:]
    return [int.from_bytes(body[i:i + 4], 'little', signed=True) for i in range(0, len(body), 4)], shape


def expected(name, cli, work):
    """What example `name` must print: from the installed CLI's run of the same set-up."""
    json_path, trace, dump = (os.path.join(work, name + x) for x in ('.json', '.csv', '.npy'))
    sh([cli, 'run', '--threads', '1', '--quiet', '--json', json_path, '--trace', trace, '--dump', dump] + EXAMPLES[name])
    rec = json.load(open(json_path))
    if name == 'lm_c5':
        return ['balanced after %d steps (%d shifts)' % (rec['balanced_step'], rec['balanced_shifts'])], rec
    rows = list(csv.DictReader(line for line in open(trace) if not line.startswith('#')))  # '# key: value' header
    spread = max(float(r['max']) - float(r['min']) for r in rows)  # steps 0..50, as the observer saw them
    w, _ = npy_int32(dump)
    return [None, 'widest spread %g; final loads: sum %d, weighted sum %d'
            % (spread, sum(w), sum((k + 1) * v for k, v in enumerate(w)))], rec


def compare(name, kind, got, want, rec):
    """The example's lines against the CLI's: a JSON line (want None) equal but for the timing keys."""
    lines = got.splitlines()
    if len(lines) != len(want):
        raise SystemExit('%s (%s) printed %d lines, not %d:\n%s' % (name, kind, len(lines), len(want), got))
    for line, expect in zip(lines, want):
        if expect is None:
            mine = json.loads(line)
            same = [k for k in rec if k not in TIMING]
            if list(mine) != list(rec) or any(mine[k] != rec[k] for k in same):
                raise SystemExit('%s (%s): its JSON is not the CLI\'s:\n%s\n%s' % (name, kind, line, json.dumps(rec)))
        elif line != expect:
            raise SystemExit('%s (%s): printed %r; the CLI says %r' % (name, kind, line, expect))


def sh(cmd, **kw):
    r = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if r.returncode:
        raise SystemExit('failed (%d): %s\n%s%s' % (r.returncode, shlex.join(cmd), r.stdout, r.stderr))
    return r.stdout


def demo(cli, data, source, env):
    """Issue 25: an installed `lbtorus demo` read the source tree's data/ and
    its --help showed that path; with the source gone the paper's column was
    empty. The installed demo names the installed data (found beside its bin/,
    so also in this DESTDIR), never the source tree, and fills the paper's
    column from it: Henrich (1996), Table 3 and the text below it, LM-C5
    shares after 7 steps and balances after 18, NNA after 24 shifts. Where
    mount namespaces are allowed, again with the source tree's data/ hidden
    under an empty tmpfs."""
    usage = sh([cli, 'demo', '--help'], env=env)
    if source in usage or 'default: $LBTORUS_DATA, else %s)' % data not in usage:
        raise SystemExit('installed demo --help does not name %s (or names the source %s):\n%s' % (data, source, usage))
    runs = [('installed', [cli, 'demo', '--quiet'])]
    hide = ['unshare', '--user', '--map-root-user', '--mount', 'sh', '-c',
            'mount -t tmpfs none "$1" && shift && exec "$@"', 'sh', os.path.join(source, 'data')]
    if shutil.which('unshare') and subprocess.run(hide + ['true'], capture_output=True).returncode == 0:
        runs.append(('installed, the source data/ hidden', hide + [cli, 'demo', '--quiet']))
    else:
        print('note: no mount namespace here; the demo ran with the source tree in place')
    for what, cmd in runs:
        got = sh(cmd, env=env)
        for row, ours_paper in (('steps to shared (every L_i > 0)', '7 7'), ('steps to balanced (max-min <= D)', '18 18'),
                                ('NNA: shifts to balanced', '24 24')):
            line = [ln for ln in got.splitlines() if row in ln]
            if not line or ' '.join(line[0].split(row)[1].split()) != ours_paper:
                raise SystemExit('%s demo: the row %r is not %r beside the paper:\n%s' % (what, row, ours_paper, got))
        if "the paper's numbers: %s/henrich1996_claims.csv" % data not in got:
            raise SystemExit('%s demo does not say it read %s:\n%s' % (what, data, got))
        print('%s demo: the paper column filled from %s' % (what, data))


def python_module(root, prefix, libdir, so, dest):
    """The Python module lbtorus (docs/python.md) is installed beside the
    interpreter's other pure modules, its _paths.py names the installed
    libdir (PREFIX, not the DESTDIR), and, pointed at the DESTDIR's library
    by $LBTORUS_LIB, it imports and runs examples/lm_c5.c's run as the CLI."""
    inits = glob.glob(os.path.join(root, '**', 'lbtorus', '__init__.py'), recursive=True)
    if len(inits) != 1:
        raise SystemExit('the installed tree holds %d Python modules lbtorus: %s' % (len(inits), inits))
    pkg = os.path.dirname(inits[0])
    paths = open(os.path.join(pkg, '_paths.py')).read()
    want = os.path.relpath(libdir, dest)
    if "libdir = '/%s'" % want not in paths:
        raise SystemExit('the installed lbtorus/_paths.py does not name /%s:\n%s' % (want, paths))
    code = ("import lbtorus; s = lbtorus.run(shape=(64, 64), method='lm-c5', init='worst:5', threads=1); "
            "print('balanced after %d steps (%d shifts)' % (s.summary()['balanced_step'], s.summary()['balanced_shifts']))")
    got = sh([sys.executable, '-c', code], env=dict(os.environ, PYTHONPATH=os.path.dirname(pkg), LBTORUS_LIB=so),
             cwd=dest).strip()
    want_line = expected('lm_c5', os.path.join(root, 'bin', 'lbtorus'), dest)[0][0]
    if got != want_line:
        raise SystemExit('the installed Python module printed %r; the CLI says %r' % (got, want_line))
    print('python module (installed in %s): %s, as the CLI' % (os.path.relpath(pkg, root), got))


def readme_path(source, build, cli):
    """Issue 25: the README never said how `lbtorus` gets on PATH. Its
    paragraph names both ways, and both give a working lbtorus: the build
    tree's (./build/lbtorus in the README; this build's own here) and the
    installed PREFIX/bin/lbtorus."""
    text = open(os.path.join(source, 'README.md')).read()
    para = re.search(r'\*\*`lbtorus` on your PATH\.\*\*(.*?)\n\n', text, re.S)
    if not para:
        raise SystemExit('README.md has no paragraph "lbtorus on your PATH"')
    words = ' '.join(para.group(1).split())
    for need in ('`./build/lbtorus`', '`make install`', '`PREFIX/bin`', '--prefix=$HOME/.local'):
        if need not in words:
            raise SystemExit('README.md, "lbtorus on your PATH": no %s in: %s' % (need, words))
    for exe in (os.path.join(build, 'lbtorus'), cli):
        sh([exe, '--version'])


def main(argv):
    cut = argv.index('--')
    build, source, prefix, datadir = argv[1:cut]
    examples = os.path.join(source, 'examples')
    cc = argv[cut + 1:]
    dest = tempfile.mkdtemp(prefix='lbtorus-destdir-')
    try:
        sh(['meson', 'install', '-C', build, '--destdir', dest, '--no-rebuild', '--quiet'])
        root = dest + prefix
        found = {os.path.relpath(p, root) for p in glob.glob(root + '/**', recursive=True) if os.path.isfile(p)}
        want = {'bin/lbtorus': r'bin/lbtorus$', 'shared library': r'/liblbtorus\.so\.[0-9.]+$',
                'static library': r'/liblbtorus\.a$', 'public header': r'^include/lbtorus\.h$',
                'pkg-config file': r'/pkgconfig/lbtorus\.pc$',
                'data': '^' + re.escape(os.path.join(datadir, 'lbtorus', 'table3_lm_c5.csv')) + '$'}
        for what, pattern in want.items():
            if not any(re.search(pattern, f) for f in found):
                raise SystemExit('the installed tree has no %s (%s): %s' % (what, pattern, sorted(found)))
        headers = sorted(glob.glob(os.path.join(source, 'include', '*.h')))
        installed = sorted(f for f in found if f.startswith('include/'))
        if installed != ['include/' + os.path.basename(h) for h in headers] or len(headers) != 1:
            raise SystemExit('installed headers %s; the public header is %s' % (installed, headers))
        pc = [f for f in found if f.endswith('/pkgconfig/lbtorus.pc')][0]
        libdir = os.path.join(root, os.path.dirname(os.path.dirname(pc)))
        so = glob.glob(os.path.join(libdir, 'liblbtorus.so.*.*'))[0]
        sh([sys.executable, os.path.join(source, 'tests', 'symbols.py'), os.path.join(libdir, 'liblbtorus.a'), so,
            os.path.join(root, 'include', 'lbtorus.h')])
        env = dict(os.environ, PKG_CONFIG_PATH=os.path.join(root, os.path.dirname(pc)), PKG_CONFIG_SYSROOT_DIR=dest)
        cflags = shlex.split(sh(['pkg-config', '--cflags', 'lbtorus'], env=env))
        libs = shlex.split(sh(['pkg-config', '--libs', 'lbtorus'], env=env))
        static = shlex.split(sh(['pkg-config', '--static', '--libs', 'lbtorus'], env=env))
        if not any(f.startswith('-I' + dest) for f in cflags):
            raise SystemExit('pkg-config --cflags does not point into the installed tree: %s' % cflags)
        static = [f if f != '-llbtorus' else os.path.join(libdir, 'liblbtorus.a') for f in static]
        cli = os.path.join(root, 'bin', 'lbtorus')
        srcs = sorted(glob.glob(os.path.join(examples, '*.c')))
        if sorted(os.path.basename(s)[:-2] for s in srcs) != sorted(EXAMPLES):
            raise SystemExit('examples/ holds %s; this test knows %s' % (srcs, sorted(EXAMPLES)))
        for src in srcs:
            name = os.path.basename(src)[:-2]
            expect, rec = expected(name, cli, dest)
            for kind, link in (('shared', libs), ('static', static)):
                exe = os.path.join(dest, name + '-' + kind)
                sh(cc + ['-std=c11', '-Wall', '-Wextra', '-Werror'] + cflags + [src, '-o', exe] + link)
                needed = sh(['ldd', exe])
                if (kind == 'shared') != ('liblbtorus.so' in needed):
                    raise SystemExit('%s: linked %s, but ldd says:\n%s' % (exe, kind, needed))
                got = sh([exe], env=dict(os.environ, LD_LIBRARY_PATH=libdir)).strip()
                compare(name, kind, got, expect, rec)
                print('%s (%s, from the installed library): %s, as the CLI' % (name, kind, got.splitlines()[-1]))
        # The installed lbtorus reads data from the installed DATADIR (beside
        # its bin/: here in DESTDIR), the build tree's from the source tree
        # (both unless $LBTORUS_DATA is set).
        env = {k: v for k, v in os.environ.items() if k != 'LBTORUS_DATA'}
        installed_data = os.path.join(prefix, datadir, 'lbtorus')
        for exe, data in ((cli, dest + installed_data), (os.path.join(build, 'lbtorus'), os.path.join(source, 'data'))):
            usage = sh([exe, 'reproduce', '--help'], env=env)
            if '(default: %s;' % data not in usage:
                raise SystemExit('%s does not default to the data in %s:\n%s' % (exe, data, usage))
        out = os.path.join(dest, 'repro')
        sh([cli, 'reproduce', 'table3', '--quick', '--quiet', '--out', out],
           env=dict(env, LBTORUS_DATA=dest + installed_data))  # $LBTORUS_DATA wins (--data: test_reproduce)
        if any(a.startswith('-fsanitize') for a in cc):  # an interpreter without ASan cannot load the library
            print('python module: not run in a sanitized build (ASan must come first in the process)')
        else:
            python_module(root, prefix, libdir, so, dest)
        demo(cli, dest + installed_data, source, env)
        readme_path(source, build, cli)
        print('installed: bin, .so, .a, headers, lbtorus.pc, data; reproduce table3 runs from the installed data')
    finally:
        shutil.rmtree(dest, ignore_errors=True)
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))

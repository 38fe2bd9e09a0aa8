#!/usr/bin/env python3
"""installed.py — the library as a user gets it.

Installs the build into a temporary DESTDIR (`meson install --destdir`),
checks the installed tree (lbtorus, liblbtorus.so and .a, the headers,
lbtorus.pc, the data files) and that the shared library exports exactly the
functions the public headers declare, then builds every examples/*.c against the
INSTALLED library through pkg-config, shared and static, runs it, and
compares what it prints with the installed CLI's JSON for the same run.

Also: the uninstalled lbtorus of the build tree reads the source tree's data.

usage: installed.py BUILD_ROOT SOURCE_ROOT PREFIX DATADIR -- CC [CC ARGS...]
"""
import glob
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

# What each example computes, as the CLI's `run` options; the example prints
# "balanced after N steps (M shifts)" for the same run.
EXAMPLES = {'lm_c5': ['--shape', '64x64', '--method', 'lm-c5', '--init', 'worst:5', '--until', 'balanced']}


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
                'static library': r'/liblbtorus\.a$', 'umbrella header': r'^include/lbtorus/lbtorus\.h$',
                'pkg-config file': r'/pkgconfig/lbtorus\.pc$',
                'data': '^' + re.escape(os.path.join(datadir, 'lbtorus', 'table3_lm_c5.csv')) + '$'}
        for what, pattern in want.items():
            if not any(re.search(pattern, f) for f in found):
                raise SystemExit('the installed tree has no %s (%s): %s' % (what, pattern, sorted(found)))
        headers = sorted(glob.glob(os.path.join(source, 'include', 'lbtorus', '*.h')))
        installed = sorted(f for f in found if f.startswith('include/'))
        if installed != ['include/lbtorus/' + os.path.basename(h) for h in headers]:
            raise SystemExit('installed headers %s; the public headers are %s' % (installed, headers))
        pc = [f for f in found if f.endswith('/pkgconfig/lbtorus.pc')][0]
        libdir = os.path.join(root, os.path.dirname(os.path.dirname(pc)))
        so = glob.glob(os.path.join(libdir, 'liblbtorus.so.*.*'))[0]
        sys.path.insert(0, os.path.join(source, 'include'))
        import exports
        want = set(exports.declared(headers))
        got = {line.split()[-1].split('@')[0] for line in sh(['nm', '-D', '--defined-only', so]).splitlines()
               if line.split()[-2:-1] != ['A']}  # A: the version node LBTORUS_0 itself
        if got != want:
            raise SystemExit('%s exports what no public header declares: %s; does not export what they do: %s'
                             % (so, sorted(got - want), sorted(want - got)))
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
            rec = json.loads(sh([cli, 'run', '--threads', '1', '--json', '-'] + EXAMPLES[name]))
            expect = 'balanced after %d steps (%d shifts)' % (rec['balanced_step'], rec['balanced_shifts'])
            for kind, link in (('shared', libs), ('static', static)):
                exe = os.path.join(dest, name + '-' + kind)
                sh(cc + ['-std=c11', '-Wall', '-Wextra', '-Werror'] + cflags + [src, '-o', exe] + link)
                needed = sh(['ldd', exe])
                if (kind == 'shared') != ('liblbtorus.so' in needed):
                    raise SystemExit('%s: linked %s, but ldd says:\n%s' % (exe, kind, needed))
                got = sh([exe], env=dict(os.environ, LD_LIBRARY_PATH=libdir)).strip()
                if got != expect:
                    raise SystemExit('%s (%s): printed %r; the CLI says %r' % (name, kind, got, expect))
                print('%s (%s, from the installed library): %s, as the CLI' % (name, kind, got))
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
        demo(cli, dest + installed_data, source, env)
        readme_path(source, build, cli)
        print('installed: bin, .so, .a, headers, lbtorus.pc, data; reproduce table3 runs from the installed data')
    finally:
        shutil.rmtree(dest, ignore_errors=True)
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))

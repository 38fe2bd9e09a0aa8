#!/usr/bin/env python3
"""layers.py — the layers of docs/design.md, checked over #include lines.

Data flows top to bottom, never back up:

    cli > api > exp > exec > method > workload > out > core > comm > kernels

A file's layer is its folder (src/LAYER/..., kernels/...). A library header
(src/include/lbtorus/NAME.h, spelled "lbtorus/NAME.h") belongs to the layer
listed in LIBRARY; a layer's own header is spelled "LAYER/name.h" (meson adds
src/ to the include path) or relative to the including file. The public
header include/lbtorus.h (installed, the only one) declares what src/api/
implements and depends on nothing: every layer may include it. A file may
include headers of its own layer or below. Besides:
  - the public header includes no header of the tree (it is installed alone);
  - the CLI includes only the public header and its own (src/cli/): never
    a library header of src/include/lbtorus/ nor a layer's own header
    (issue 26: the CLI is a program of the public API like any other);
    besides, `bench --peers` includes the peers of bench/ (plain loops
    outside the library).
Kernels, the bottom layer, thus include nothing from src/.

usage: layers.py ROOT          check the tree at ROOT
       layers.py --self-test   prove that violations are caught
"""
import os
import re
import sys
import tempfile

LAYERS = ['cli', 'api', 'exp', 'exec', 'method', 'workload', 'out', 'core', 'comm', 'kernels']  # top first
RANK = {name: len(LAYERS) - i for i, name in enumerate(LAYERS)}  # kernels 1 ... cli 9

# The layer of each library header: a new header must be placed here.
LIBRARY = {
    'status': 'kernels', 'rng': 'kernels', 'kernels': 'kernels',
    'comm': 'comm',
    'shape': 'core', 'grid': 'core', 'init': 'core', 'io': 'core', 'npy': 'core', 'number': 'core',
    'speeds': 'core',
    'plot': 'out', 'heatmap': 'out', 'jsonl': 'out', 'provenance': 'out',
    'method': 'method',
    'run': 'exec',
    'sweep': 'exp', 'search': 'exp', 'bound': 'exp', 'report': 'exp', 'reproduce': 'exp', 'figure': 'exp',
    'lbtorus': 'cli',  # the umbrella pulls in every layer
}
PUBLIC = 'include/lbtorus.h'

# Upward includes that exist on purpose until the named change lands; each
# one is (file, included header). An entry that no longer occurs is an error
# too, so this list only shrinks.
KNOWN = frozenset()  # no upward include exists on purpose today

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def layer_of(rel):
    """The layer of a file by its path relative to the root, or None."""
    parts = rel.split('/')
    if parts[0] == 'kernels':
        return 'kernels'
    if rel == PUBLIC:
        return 'kernels'  # it includes nothing: any layer may include it
    if parts[:3] == ['src', 'include', 'lbtorus'] and rel.endswith('.h'):
        return LIBRARY.get(os.path.basename(rel)[:-2])
    if parts[0] == 'src' and len(parts) > 2 and parts[1] in RANK:
        return parts[1]
    return None


def resolve(root, rel, inc):
    """The included file's path relative to root, or None if it is not ours."""
    if inc == 'lbtorus.h':
        return PUBLIC
    if inc.startswith('lbtorus/'):
        return 'src/include/' + inc
    if inc.split('/')[0] in RANK and os.path.exists(os.path.join(root, 'src', inc)):
        return 'src/' + inc
    near = os.path.normpath(os.path.join(os.path.dirname(rel), inc))
    if os.path.exists(os.path.join(root, near)):
        return near
    return None


def sources(root):
    for top in ('src', 'kernels', 'include'):
        for d, _, files in os.walk(os.path.join(root, top)):
            for f in sorted(files):
                if f.endswith(('.c', '.h')):
                    yield os.path.relpath(os.path.join(d, f), root)


def check(root, known=frozenset()):
    """Violations as lines 'file: includes X: reason', and known ones seen."""
    bad, seen = [], set()
    for rel in sorted(sources(root)):
        mine = layer_of(rel)
        if mine is None:
            bad.append('%s: not in a layer folder (src/<layer>/, kernels/) nor a known library header' % rel)
            continue
        with open(os.path.join(root, rel), encoding='utf-8') as f:
            text = f.read()
        for inc in INCLUDE.findall(text):
            target = resolve(root, rel, inc)
            if target is None:
                bad.append('%s: includes "%s", which is no file of the tree' % (rel, inc))
                continue
            theirs = layer_of(target)
            if theirs is None and mine == 'cli' and target.startswith('bench/'):
                continue  # the bench's peers (plain loops timed beside us) live outside the library
            if theirs is None:
                bad.append('%s: includes "%s", which belongs to no layer' % (rel, inc))
                continue
            library = target == PUBLIC or target.startswith('src/include/lbtorus/')
            why = None
            if RANK[theirs] > RANK[mine] and target == 'src/include/lbtorus/lbtorus.h':
                why = 'the umbrella header pulls in every layer: include the headers this %s file uses' % mine
            elif RANK[theirs] > RANK[mine]:
                why = 'a %s file includes a header of the higher layer %s' % (mine, theirs)
            elif rel == PUBLIC:
                why = 'the public header includes a header of the tree (it would not compile installed)'
            elif mine == 'cli' and not library and not target.startswith('src/cli/'):
                why = "the CLI uses a layer's own header, not the library's"
            elif rel.startswith('src/cli/') and target.startswith('src/include/lbtorus/'):
                why = 'the CLI uses a private library header: only the public API (include/lbtorus.h)'
            if why is None:
                continue
            if (rel, inc) in known:
                seen.add((rel, inc))
            else:
                bad.append('%s: includes "%s": %s' % (rel, inc, why))
    return bad, seen


def report(root, known):
    """check(), plus an error for every known exception that no longer occurs."""
    bad, seen = check(root, known)
    for rel, inc in sorted(known - seen):
        bad.append('%s: no longer includes "%s" upwards: remove it from KNOWN in %s' % (rel, inc, __file__))
    return bad


def run(root):
    bad = report(root, KNOWN)
    for line in bad:
        print(line)
    if not bad:
        print('layers: every #include points to the same layer or below (%d known exceptions)' % len(KNOWN))
    return 1 if bad else 0


def self_test():
    """A clean synthetic tree passes; each kind of violation is reported."""
    clean = {
        'include/lbtorus.h': '', 'src/api/sim.c': '#include "lbtorus/run.h"\n#include "lbtorus.h"\n',
        'src/include/lbtorus/status.h': '', 'src/include/lbtorus/grid.h': '#include "lbtorus/status.h"\n',
        'src/include/lbtorus/lbtorus.h': '#include "lbtorus/run.h"\n',
        'src/include/lbtorus/run.h': '#include "lbtorus/grid.h"\n',
        'kernels/ref/k.c': '#include "lbtorus/status.h"\n#include "../fiber.h"\n', 'kernels/fiber.h': '',
        'src/out/jsonl.h': '#include "lbtorus/status.h"\n', 'src/exec/run.c': '#include "out/jsonl.h"\n',
        'src/cli/cli.h': '#include "lbtorus.h"\n', 'src/cli/main.c': '#include "cli.h"\n',
    }
    cases = [  # (file, its text, what the report must say)
        ('src/core/grid.c', '#include "lbtorus/run.h"\n', 'a core file includes a header of the higher layer exec'),
        ('src/method/m.c', '#include "lbtorus/lbtorus.h"\n', 'the umbrella header pulls in every layer'),
        ('kernels/ref/k.c', '#include "exec/x.h"\n', 'a kernels file includes a header of the higher layer exec'),
        ('kernels/ref/k.c', '#include "core/g.h"\n', 'a kernels file includes a header of the higher layer core'),
        ('include/lbtorus.h', '#include "lbtorus/status.h"\n', 'the public header includes a header of the tree'),
        ('src/exp/sweep.c', '#include "api/x.h"\n', 'a exp file includes a header of the higher layer api'),
        ('src/cli/run.c', '#include "out/jsonl.h"\n', "the CLI uses a layer's own header"),
        ('src/cli/run.c', '#include "lbtorus/run.h"\n', 'the CLI uses a private library header'),
        ('src/include/lbtorus/newthing.h', '', 'nor a known library header'),
        ('src/exec/run.c', '#include "nowhere.h"\n', 'which is no file of the tree'),
    ]
    extra = {'src/exec/x.h': '', 'src/api/x.h': '', 'src/core/g.h': '#include "lbtorus/status.h"\n'}
    failures = 0

    base = tempfile.TemporaryDirectory(prefix='layers-')

    def tree(files):
        d = tempfile.mkdtemp(dir=base.name)
        for rel, text in files.items():
            os.makedirs(os.path.join(d, os.path.dirname(rel)), exist_ok=True)
            with open(os.path.join(d, rel), 'w') as f:
                f.write(text)
        return d

    bad = report(tree(dict(clean, **extra)), frozenset())
    if bad:
        print('self-test: the clean tree was refused: %s' % bad)
        failures += 1
    files = dict(clean, **extra)
    files['src/core/grid.c'] = '#include "lbtorus/run.h"\n'
    known = frozenset({('src/core/grid.c', 'lbtorus/run.h')})
    bad = report(tree(files), known)
    if bad:
        print('self-test: a known exception was refused: %s' % bad)
        failures += 1
    files['src/core/grid.c'] = ''
    if not any('no longer includes "lbtorus/run.h"' in b for b in report(tree(files), known)):
        print('self-test: a known exception that no longer occurs was not reported')
        failures += 1
    for rel, text, want in cases:
        files = dict(clean, **extra)
        files[rel] = text
        bad, _ = check(tree(files))
        if not any(rel in b and want in b for b in bad):
            print('self-test: %s with %r: expected "%s", got %s' % (rel, text, want, bad))
            failures += 1
    base.cleanup()
    if not failures:
        print('self-test: a clean tree passes, all %d kinds of violation are caught, known exceptions '
              'are let through and reported once they are gone' % len(cases))
    return 1 if failures else 0


if __name__ == '__main__':
    if sys.argv[1:] == ['--self-test']:
        sys.exit(self_test())
    if len(sys.argv) != 2:
        print(__doc__.strip())
        sys.exit(2)
    sys.exit(run(sys.argv[1]))

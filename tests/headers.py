#!/usr/bin/env python3
"""headers.py — every header compiles on its own.

For each header of an include directory (DIR/*.h and DIR/lbtorus/*.h), a
translation unit holding only that header, twice (its include guard must
hold), is compiled with -fsyntax-only under -std=c11 -Wall -Wextra -Werror
and without _GNU_SOURCE, as a user's program would include it, seeing only
that directory and the ones named before it: the public include/ first,
alone, as it is installed; then the library's own src/include/ on top.

usage: headers.py INCLUDE_DIR... -- CC [CC ARGS...]
       headers.py --self-test -- CC [CC ARGS...]   (proves a broken header fails)
"""
import os
import subprocess
import sys
import tempfile

FLAGS = ['-std=c11', '-Wall', '-Wextra', '-Werror', '-pedantic-errors',
         '-fsyntax-only', '-x', 'c', '-']


def listed(include_dir):
    """The headers of include_dir as #include spells them: "x.h", "lbtorus/y.h"."""
    sub = os.path.join(include_dir, 'lbtorus')
    return sorted([h for h in os.listdir(include_dir) if h.endswith('.h')] +
                  ['lbtorus/' + h for h in (os.listdir(sub) if os.path.isdir(sub) else []) if h.endswith('.h')])


def check(include_dir, cc, below=()):
    """Return the list of (header, compiler message) that do not compile alone."""
    failed = []
    headers = listed(include_dir)
    if not headers:
        return [('(none)', 'no headers found in %s' % include_dir)]
    flags = [a for d in list(below) + [include_dir] for a in ('-I', d)] + FLAGS
    for h in headers:
        tu = '#include "%s"\n#include "%s"\nint lbt_header_test_;\n' % (h, h)
        r = subprocess.run(cc + flags, input=tu, text=True, capture_output=True)
        if r.returncode:
            failed.append((h, r.stderr.strip().splitlines()[0] if r.stderr.strip() else 'exit %d' % r.returncode))
    return failed


def self_test(cc):
    with tempfile.TemporaryDirectory() as d:
        pub, own = os.path.join(d, 'public'), os.path.join(d, 'own')
        os.makedirs(os.path.join(own, 'lbtorus'))
        os.mkdir(pub)
        with open(os.path.join(pub, 'api.h'), 'w') as f:
            f.write('#ifndef A_H\n#define A_H\ntypedef struct { int x; } lbt_base;\n#endif\n')
        with open(os.path.join(pub, 'leaky.h'), 'w') as f:  # needs a header that is not installed
            f.write('#ifndef L_H\n#define L_H\n#include "lbtorus/good.h"\n#endif\n')
        with open(os.path.join(own, 'lbtorus', 'good.h'), 'w') as f:
            f.write('#ifndef G_H\n#define G_H\n#include "api.h"\nvoid g(lbt_base *b);\n#endif\n')
        with open(os.path.join(own, 'lbtorus', 'bad.h'), 'w') as f:  # uses lbt_base without including api.h
            f.write('#ifndef X_H\n#define X_H\nvoid f(lbt_base *b);\n#endif\n')
        with open(os.path.join(own, 'lbtorus', 'noguard.h'), 'w') as f:  # a second inclusion redefines
            f.write('typedef struct { int y; } lbt_twice;\n')
        got = sorted(h for h, _ in check(pub, cc) + check(own, cc, [pub]))
    want = ['leaky.h', 'lbtorus/bad.h', 'lbtorus/noguard.h']
    if got != sorted(want):
        print('self-test: expected failures %s, got %s' % (sorted(want), got))
        return 1
    print('self-test: a public header needing an uninstalled one, a header missing an include and one '
          'without a guard are caught')
    return 0


def main(argv):
    if '--' not in argv:
        print(__doc__.strip())
        return 2
    cut = argv.index('--')
    args, cc = argv[1:cut], argv[cut + 1:]
    if args == ['--self-test']:
        return self_test(cc)
    if not args or not cc:
        print(__doc__.strip())
        return 2
    failed = []
    for i, d in enumerate(args):
        failed += check(d, cc, args[:i])
    for h, msg in failed:
        print('%s does not compile on its own: %s' % (h, msg))
    if not failed:
        print('every header of %s compiles on its own' % ', '.join(args))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))

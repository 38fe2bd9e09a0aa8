#!/usr/bin/env python3
"""headers.py — every public header compiles on its own.

For each include/lbtorus/*.h, a translation unit holding only that header,
twice (its include guard must hold), is compiled with -fsyntax-only under
-std=c11 -Wall -Wextra -Werror and without _GNU_SOURCE, as a user's program
would include it.

usage: headers.py INCLUDE_DIR -- CC [CC ARGS...]
       headers.py --self-test -- CC [CC ARGS...]   (proves a broken header fails)
"""
import os
import subprocess
import sys
import tempfile

FLAGS = ['-std=c11', '-Wall', '-Wextra', '-Werror', '-pedantic-errors',
         '-fsyntax-only', '-x', 'c', '-']


def check(include_dir, cc):
    """Return the list of (header, compiler message) that do not compile alone."""
    failed = []
    headers = sorted(h for h in os.listdir(os.path.join(include_dir, 'lbtorus')) if h.endswith('.h'))
    if not headers:
        return [('(none)', 'no headers found in %s/lbtorus' % include_dir)]
    for h in headers:
        tu = '#include "lbtorus/%s"\n#include "lbtorus/%s"\nint lbt_header_test_;\n' % (h, h)
        r = subprocess.run(cc + ['-I', include_dir] + FLAGS, input=tu, text=True, capture_output=True)
        if r.returncode:
            failed.append((h, r.stderr.strip().splitlines()[0] if r.stderr.strip() else 'exit %d' % r.returncode))
    return failed


def self_test(cc):
    with tempfile.TemporaryDirectory() as d:
        os.mkdir(os.path.join(d, 'lbtorus'))
        with open(os.path.join(d, 'lbtorus', 'base.h'), 'w') as f:
            f.write('#ifndef B_H\n#define B_H\ntypedef struct { int x; } lbt_base;\n#endif\n')
        with open(os.path.join(d, 'lbtorus', 'good.h'), 'w') as f:
            f.write('#ifndef G_H\n#define G_H\n#include "lbtorus/base.h"\nvoid g(lbt_base *b);\n#endif\n')
        with open(os.path.join(d, 'lbtorus', 'bad.h'), 'w') as f:  # uses lbt_base without including base.h
            f.write('#ifndef X_H\n#define X_H\nvoid f(lbt_base *b);\n#endif\n')
        with open(os.path.join(d, 'lbtorus', 'noguard.h'), 'w') as f:  # a second inclusion redefines
            f.write('typedef struct { int y; } lbt_twice;\n')
        got = sorted(h for h, _ in check(d, cc))
    want = ['bad.h', 'noguard.h']
    if got != want:
        print('self-test: expected failures %s, got %s' % (want, got))
        return 1
    print('self-test: a header missing an include and one without a guard are caught')
    return 0


def main(argv):
    if '--' not in argv:
        print(__doc__.strip())
        return 2
    cut = argv.index('--')
    args, cc = argv[1:cut], argv[cut + 1:]
    if args == ['--self-test']:
        return self_test(cc)
    if len(args) != 1 or not cc:
        print(__doc__.strip())
        return 2
    failed = check(args[0], cc)
    for h, msg in failed:
        print('%s does not compile on its own: %s' % (h, msg))
    if not failed:
        print('every public header in %s/lbtorus compiles on its own' % args[0])
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))

#!/usr/bin/env python3
"""public_archive.py — the installed liblbtorus.a, defining only the public calls.

The internal static library's objects are linked into one relocatable
object (ld -r), whose hidden symbols (everything not marked LBT_API: the
library is compiled with -fvisibility=hidden) objcopy then makes local, so
that a program linking the archive sees only the calls of include/lbtorus.h
and cannot clash with, or reach, the library's internals (tests/symbols.py
checks it with nm).

usage: public_archive.py INTERNAL.a OUT.a WORKDIR -- LD OBJCOPY AR
"""
import os
import subprocess
import sys


def main(argv):
    if '--' not in argv or argv.index('--') != 4 or len(argv) != 8:
        print(__doc__.strip())
        return 2
    internal, out, work = argv[1:4]
    ld, objcopy, ar = argv[5:8]
    os.makedirs(work, exist_ok=True)
    obj = os.path.join(work, 'lbtorus.o')
    # -d: common symbols get their storage here, so that they too can be made
    # local: OpenMP's named critical sections' locks (.gomp_critical_user_NAME),
    # which only this object's code takes
    for cmd in ([ld, '-r', '-d', '-o', obj, '--whole-archive', internal, '--no-whole-archive'],
                [objcopy, '--localize-hidden', '--wildcard', '--localize-symbol=.gomp_critical_user_*', obj]):
        subprocess.run(cmd, check=True)
    if os.path.exists(out):
        os.remove(out)
    subprocess.run([ar, 'rcs', out, obj], check=True)
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))

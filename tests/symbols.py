#!/usr/bin/env python3
"""symbols.py — liblbtorus.a and liblbtorus.so define the public calls, nothing else.

Every global symbol either library defines (nm -g --defined-only; for the
.so its dynamic symbols, nm -D) must be a call the public header declares
with LBT_API (include/exports.py), and every such call must be defined in
both: a program linking either library can reach no internal function, and
none of the library's names (rp_fig5, lbt_grid_init, OpenMP's lock names)
can clash with the program's own.

usage: symbols.py LIBLBTORUS.a LIBLBTORUS.so include/lbtorus.h
       symbols.py --self-test   (proves a leaked and a missing symbol are caught)
"""
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'include'))
import exports  # noqa: E402


def defined(nm_lines):
    """Global defined symbols in nm's output (version suffixes and the version node dropped)."""
    names = set()
    for line in nm_lines.splitlines():
        f = line.split()
        if len(f) == 3 and (f[1].isupper() or f[1] == 'u') and f[1] not in 'UA':  # lower case: local
            names.add(f[2].split('@')[0])
    return names


def compare(what, got, want):
    """Lines naming what `got` has beyond `want` and lacks of it."""
    bad = []
    if got - want:
        bad.append('%s defines what the public header does not declare: %s' % (what, ' '.join(sorted(got - want))))
    if want - got:
        bad.append('%s lacks public calls: %s' % (what, ' '.join(sorted(want - got))))
    return bad


def self_test():
    want = {'lbt_sim_open', 'lbt_version'}
    nm = ('lbtorus.o:\n0000000000000010 T lbt_sim_open\n0000000000000020 T lbt_version\n'
          '0000000000000030 T rp_fig5\n0000000000000008 C .gomp_critical_user_lbt_sweep\n'
          '                 U malloc\n0000000000000040 t lbt_grid_init\n')
    got = compare('lib.a', defined(nm), want)
    expect = ['lib.a defines what the public header does not declare: .gomp_critical_user_lbt_sweep rp_fig5']
    nm_so = '0000000000000000 A LBTORUS_0\n0000000000000010 T lbt_sim_open@@LBTORUS_0\n'
    got += compare('lib.so', defined(nm_so), want)
    expect.append('lib.so lacks public calls: lbt_version')
    if got != expect:
        print('self-test: expected %s, got %s' % (expect, got))
        return 1
    print('self-test: a leaked internal symbol, a common lock and a missing public call are caught; '
          'local and undefined symbols are not counted')
    return 0


def main(argv):
    if argv[1:] == ['--self-test']:
        return self_test()
    if len(argv) != 4:
        print(__doc__.strip())
        return 2
    archive, shared, header = argv[1:]
    want = set(exports.declared([header]))
    bad = compare(archive, defined(subprocess.run(['nm', '-g', '--defined-only', archive], check=True,
                                                  capture_output=True, text=True).stdout), want)
    bad += compare(shared, defined(subprocess.run(['nm', '-D', '--defined-only', shared], check=True,
                                                 capture_output=True, text=True).stdout), want)
    for line in bad:
        print(line)
    if not bad:
        print('%s and %s define exactly the %d calls of %s' % (os.path.basename(archive), os.path.basename(shared),
                                                              len(want), header))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))

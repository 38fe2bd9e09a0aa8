#!/usr/bin/env python3
"""exports.py — the shared library exports what the public header declares.

Prints a GNU ld version script whose global list is every function the
public header include/lbtorus.h declares with LBT_API (static inline
functions are not symbols); everything else in liblbtorus.so — private
helpers, per-ISA kernels — stays local. Used by meson.build at build time
and by tests/installed.py and tests/symbols.py.

usage: exports.py HEADER... > lbtorus.map
"""
import re
import sys


def declared(paths):
    """Names of the functions the headers declare, sorted."""
    names = set()
    for path in paths:
        with open(path, encoding='utf-8') as f:
            text = f.read()
        text = re.sub(r'/\*.*?\*/|//[^\n]*', ' ', text, flags=re.S)
        text = re.sub(r'^\s*#(?:[^\n]*\\\n)*[^\n]*', ' ', text, flags=re.M)
        out, depth, i = [], 0, 0
        while i < len(text):  # drop the bodies of static inline functions
            m = re.compile(r'static\s+inline\b').search(text, i) if depth == 0 else None
            if m is None:
                out.append(text[i:])
                break
            out.append(text[i:m.start()])
            j = text.index('{', m.end())
            depth = 1
            while depth:
                j += 1
                depth += {'{': 1, '}': -1}.get(text[j], 0)
            i = j + 1
        names |= set(re.findall(r'\bLBT_API\b[^;{]*?\b(lbt_\w+)\s*\(', ''.join(out)))
    return sorted(names)


if __name__ == '__main__':
    if len(sys.argv) < 2:
        print(__doc__.strip())
        sys.exit(2)
    print('LBTORUS_0 {\n  global:\n%s\n  local: *;\n};' % '\n'.join('    %s;' % n for n in declared(sys.argv[1:])))

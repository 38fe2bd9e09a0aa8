#!/usr/bin/env python3
"""docs_colons.py — no sentence in the docs announces what follows with a
colon and then shows nothing.

Issue 25: docs/usage.md had "... one JSON object is printed:" and "... with
two keys in front:" with nothing after (the examples had been lost). In every
docs/*.md and README.md, a paragraph outside code blocks whose last line ends
with ':' must be followed by what it announces: a code block, a list, a
table, a quote or an indented block.

usage: docs_colons.py SOURCE_ROOT
"""
import glob
import os
import re
import sys

ANNOUNCED = re.compile(r'^\s*(```|[-*+] |\d+\. |\||>)|^(    |\t)')


def dangling(path):
    lines = open(path, encoding='utf-8').read().split('\n')
    found, code = [], False
    for i, line in enumerate(lines):
        if line.startswith('```'):
            code = not code
            continue
        if code or not line.rstrip().endswith(':') or line.lstrip().startswith('|'):
            continue
        j = i + 1  # a colon at a line's end inside a paragraph is prose: only a paragraph's last line counts
        if j < len(lines) and lines[j].strip():
            continue
        while j < len(lines) and not lines[j].strip():
            j += 1
        if j == len(lines) or not ANNOUNCED.match(lines[j]):
            found.append('%s:%d: "%s" is followed by %r' % (path, i + 1, line.strip()[-60:],
                                                          lines[j][:60] if j < len(lines) else 'the end'))
    return found


def main(argv):
    root = argv[1]
    paths = sorted(glob.glob(os.path.join(root, 'docs', '*.md'))) + [os.path.join(root, 'README.md')]
    found = [f for p in paths for f in dangling(p)]
    if found:
        raise SystemExit('a colon announces nothing:\n' + '\n'.join(found))
    print('%d documents: every closing colon is followed by what it announces' % len(paths))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))

#!/usr/bin/env python3
"""omp_rule.py — no OpenMP construct binds to a caller's team.

A worksharing construct (`for`, `sections`, `single`, `masked`/`master`,
`workshare`) or a `barrier`/`ordered` outside the lexical extent of a
`parallel` region is *orphaned*: it binds to whatever team calls it. A
kernel reached from a sweep job's thread or from a user's own parallel
region then shares out its work to, or waits at a barrier for, threads
that are not running it (the byte steps' deadlock of two-job sweeps). So
in every C file of the tree each such construct must stand inside a
`#pragma omp parallel` block of the same function. The one exception is
kernels/team.h's lbt_team_barrier, which waits only for a team that
lbt_team_run opened (docs/development.md, "Threads"). Combined constructs
(`parallel for`) open their own region and are fine; so are `critical`
and `atomic`, which bind to no team.

usage: omp_rule.py ROOT          check every .c and .h under ROOT
       omp_rule.py --self-test   prove that orphaned constructs are caught
"""
import os
import re
import sys
import tempfile

ALLOWED = {('kernels/team.h', 'lbt_team_barrier')}
DIRS = ['src', 'kernels', 'include', 'tests', 'bench', 'examples', 'fuzz']
BOUND = re.compile(r'^\s*#\s*pragma\s+omp\s+(for|sections|section|single|masked|master|workshare|barrier|ordered)\b')
PARALLEL = re.compile(r'^\s*#\s*pragma\s+omp\s+parallel\b(?!\s+(for|sections|loop|workshare)\b)')


def strip(text):
    """The text with comments and string/char literals blanked (lines kept)."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith('/*', i):
            j = text.find('*/', i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r'[^\n]', ' ', text[i:j]))
            i = j
        elif text.startswith('//', i):
            j = text.find('\n', i)
            j = n if j < 0 else j
            out.append(' ' * (j - i))
            i = j
        elif c in '"\'':
            j = i + 1
            while j < n and text[j] != c and text[j] != '\n':
                j += 2 if text[j] == '\\' else 1
            out.append(c + ' ' * (min(j, n) - i - 1) + (c if j < n else ''))
            i = j + 1
        else:
            out.append(c)
            i += 1
    return ''.join(out)


def orphans(rel, text):
    """(line, construct, function) of each orphaned construct in one file."""
    found = []
    depth = 0          # brace depth
    regions = []       # brace depths at which open parallel blocks began
    pending = False    # a `parallel` pragma waits for its block
    func, last_ident = None, None
    for no, line in enumerate(strip(text).split('\n'), 1):
        m = BOUND.match(line)
        if m:
            if not regions and (rel, func) not in ALLOWED:
                found.append((no, m.group(1), func))
            continue
        if PARALLEL.match(line):
            pending = True
            continue
        if line.lstrip().startswith('#'):
            continue
        for tok in re.finditer(r'[A-Za-z_]\w*|[{};(]', line):
            t = tok.group(0)
            if t == '{':
                if depth == 0:
                    func = last_ident
                if pending:
                    regions.append(depth)
                    pending = False
                depth += 1
            elif t == '}':
                depth -= 1
                if regions and regions[-1] == depth:
                    regions.pop()
            elif t == ';':
                pending = False  # a region of one statement holds no construct
            elif t == '(':
                pass
            elif depth == 0:
                last_ident = t
        # the name before the parameter list: `f(` at depth 0
        if depth == 0:
            mm = re.search(r'([A-Za-z_]\w*)\s*\(', line)
            if mm:
                last_ident = mm.group(1)
    return found


def check(root):
    bad = []
    for d in DIRS:
        for dirpath, dirnames, files in os.walk(os.path.join(root, d)):
            dirnames[:] = [x for x in dirnames if not x.startswith(('build', '.'))]
            for f in sorted(files):
                if f.endswith(('.c', '.h')):
                    path = os.path.join(dirpath, f)
                    rel = os.path.relpath(path, root)
                    with open(path, encoding='utf-8', errors='replace') as fh:
                        for no, what, func in orphans(rel, fh.read()):
                            bad.append(f'{rel}:{no}: `omp {what}` in {func or "?"}() is outside any parallel '
                                       'region it opened (use lbt_team_run and lbt_team_barrier, kernels/team.h)')
    return bad


SELF_TEST = {
    # the deadlock as it was: a `single` reached without a region of its own
    'kernels/orphan_single.c': ('static void f(void *ctx, int id)\n{\n\tif (id == 0) {\n\t}\n'
                                '#pragma omp single\n\t{\n\t\tg();\n\t}\n}\n', 1),
    'kernels/orphan_barrier.c': ('void f(int T)\n{\n\tif (T > 1) {\n#pragma omp barrier\n\t}\n}\n', 1),
    'src/orphan_for.c': ('void f(int n)\n{\n#pragma omp for schedule(static)\n\tfor (int i = 0; i < n; i++)\n\t\tg(i);\n}\n', 1),
    # a region opened in one function does not cover a construct in the next
    'kernels/two_functions.c': ('void f(void)\n{\n#pragma omp parallel\n\t{\n\t\tg();\n\t}\n}\n'
                                'void h(void)\n{\n#pragma omp barrier\n}\n', 1),
    # fine: inside the region it opened; combined constructs; critical/atomic; comments
    'kernels/inside.c': ('void f(int n)\n{\n#pragma omp parallel num_threads(2) if (n > 1)\n\t{\n\t\tint a = 0;\n'
                         '#pragma omp for\n\t\tfor (int i = 0; i < n; i++)\n\t\t\tg(i);\n#pragma omp barrier\n'
                         '#pragma omp single\n\t\t{ a++; }\n\t}\n}\n', 0),
    'src/combined.c': ('/* #pragma omp barrier in a comment */\nvoid f(int n)\n{\n#pragma omp parallel for\n'
                       '\tfor (int i = 0; i < n; i++) {\n#pragma omp critical(x)\n\t\tg(i);\n\t}\n}\n', 0),
    'kernels/team.h': ('static inline void lbt_team_barrier(const lbt_team *team)\n{\n\tif (team->n > 1) {\n'
                       '#pragma omp barrier\n\t}\n}\n', 0),
}


def self_test():
    with tempfile.TemporaryDirectory() as root:
        for rel, (text, _) in SELF_TEST.items():
            os.makedirs(os.path.dirname(os.path.join(root, rel)), exist_ok=True)
            with open(os.path.join(root, rel), 'w') as fh:
                fh.write(text)
        bad = check(root)
        ok = True
        for rel, (_, want) in SELF_TEST.items():
            got = sum(1 for b in bad if b.startswith(rel + ':'))
            if got != want:
                print(f'self-test: {rel}: {got} orphaned constructs found, {want} expected')
                ok = False
        print('self-test: ' + ('every case as expected' if ok else 'FAILED'))
        return 0 if ok else 1


def main(argv):
    if argv[1:] == ['--self-test']:
        return self_test()
    if len(argv) != 2:
        print(__doc__.strip().split('\n\n')[-1], file=sys.stderr)
        return 2
    bad = check(argv[1])
    for b in bad:
        print(b)
    print(f'{len(bad)} orphaned OpenMP constructs')
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))

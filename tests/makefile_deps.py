#!/usr/bin/env python3
"""makefile_deps.py — `make deps` (and so `make demo`, `make test`) waits for
the dpkg lock instead of failing at once when another apt-get holds it.

Issue 25: `make demo` failed at once while another apt-get ran. Runs the
Makefile's deps target with stand-ins for dpkg-query (nothing installed), id
(root) and apt-get (records its arguments) first on PATH, and checks that
every apt-get call asks apt to wait for the lock: -o DPkg::Lock::Timeout=N,
N of at least a minute.

usage: makefile_deps.py SOURCE_ROOT
"""
import os
import re
import subprocess
import sys
import tempfile

STANDINS = {
    'dpkg-query': '#!/bin/sh\nexit 1\n',  # no package is installed
    'id': '#!/bin/sh\necho 0\n',  # root: deps installs what is missing
    'apt-get': '#!/bin/sh\necho "$*" >> "$APT_LOG"\n',
}


def main(argv):
    source = argv[1]
    with tempfile.TemporaryDirectory(prefix='lbtorus-deps-') as tmp:
        for name, text in STANDINS.items():
            path = os.path.join(tmp, name)
            with open(path, 'w') as f:
                f.write(text)
            os.chmod(path, 0o755)
        log = os.path.join(tmp, 'apt.log')
        env = dict(os.environ, PATH=tmp + os.pathsep + os.environ['PATH'], APT_LOG=log)
        r = subprocess.run(['make', '--no-print-directory', '-C', source, 'deps'], env=env, capture_output=True,
                           text=True)
        if r.returncode:
            raise SystemExit('make deps failed (%d):\n%s%s' % (r.returncode, r.stdout, r.stderr))
        calls = open(log).read().splitlines() if os.path.exists(log) else []
        kinds = sorted({c for call in calls for c in call.split() if c in ('update', 'install')})
        if kinds != ['install', 'update']:
            raise SystemExit('make deps should call apt-get update and install; it called: %s' % calls)
        for call in calls:
            m = re.search(r'-o DPkg::Lock::Timeout=(\d+)', call)
            if not m or int(m.group(1)) < 60:
                raise SystemExit('apt-get %s: no -o DPkg::Lock::Timeout=N (N >= 60): it fails at once while '
                                 'another apt-get holds the dpkg lock' % call)
        print('make deps: %d apt-get calls, each waits for the dpkg lock' % len(calls))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))

#!/usr/bin/env python3
"""python_suite.py — the Python module's pytest suite (tests/test_python.py),
or a skip (exit 77) with the reason when python3-numpy or python3-pytest is
missing (`make deps` installs both) or the library is sanitized.

usage: python_suite.py TEST_FILE [PYTEST ARGS...]
"""
import os
import sys

missing = []
for name, package in (('numpy', 'python3-numpy'), ('pytest', 'python3-pytest')):
    try:
        __import__(name)
    except ImportError:
        missing.append(package)
if os.environ.get('LBTORUS_SANITIZED'):
    print('skipped: this build of liblbtorus is instrumented by sanitizers, and an interpreter without them cannot '
          'load it (AddressSanitizer must come first in the process); the unsanitized build runs these tests')
    sys.exit(77)
if missing:
    print('skipped: the Python module\'s tests need %s, which %s cannot import (make deps installs them)'
          % (' and '.join(missing), sys.executable))
    sys.exit(77)

import pytest  # noqa: E402

sys.exit(pytest.main(['-q', '-p', 'no:cacheprovider', '-rs'] + sys.argv[1:]))

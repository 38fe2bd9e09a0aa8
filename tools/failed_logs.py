#!/usr/bin/env python3
"""Print what each failed test of a meson build wrote, last lines first-to-last.

meson's --print-errorlogs prints a failed test's output where it happens,
which in a long run scrolls out of a CI log's tail; this prints it again at
the end, with the CPU the tests ran on (its model and whether it has
AVX-512, which decides the kernels the tests exercise).

Usage: failed_logs.py BUILD_DIR [LINES]"""
import json
import sys


def cpu():
    model, avx512 = "unknown CPU", False
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name") and model == "unknown CPU":
                    model = line.split(":", 1)[1].strip()
                if line.startswith("flags"):
                    avx512 = " avx512bw" in line
    except OSError:
        pass
    return "%s (%s AVX-512)" % (model, "with" if avx512 else "without")


def main():
    build = sys.argv[1]
    keep = int(sys.argv[2]) if len(sys.argv) > 2 else 60
    failed = []
    with open(build + "/meson-logs/testlog.json") as f:
        for line in f:
            t = json.loads(line)
            if t["result"] not in ("OK", "SKIP", "EXPECTEDFAIL"):
                failed.append(t)
    if not failed:
        return 0
    print("\n=== %d failed test(s) in %s, on %s ===" % (len(failed), build, cpu()))
    for t in failed:
        text = ((t.get("stdout") or "") + (t.get("stderr") or "")).splitlines()
        print("--- %s: %s (exit %s), last %d of %d lines:"
              % (t["name"], t["result"], t.get("returncode"), min(keep, len(text)), len(text)))
        for l in text[-keep:]:
            print("    " + l)
    return 0


if __name__ == "__main__":
    sys.exit(main())

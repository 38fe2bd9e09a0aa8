#!/usr/bin/env python3
"""mutate.py — plant a defect in a kernel, rebuild, and see which test fails.

Each mutation below changes one thing in kernels/ (a comparison flipped, a
loop bound off by one, a halo update dropped, a dispatch entry dropped). For
each: apply it, rebuild, and run, until one fails, checkasm's quick tier,
the whole quick tier (`meson test --suite quick`: every suite's cheap
cases), the checkasm suite (the cases of the slots the file can affect,
SLOTS below) and, for a kernel without a vector twin, its own suite
(SUITES); record the first that failed; restore
the file. A mutation marked `survives` is one no test is expected
to catch (an equivalent change, or a gap the note beside it names); any
other that survives, or one marked `survives` that is caught, makes the
script exit 1, so the list stays true.

  tools/mutate.py [--build DIR] [--only REGEX] [--skip N] [--check]

--check applies and restores every mutation without building (each must
match its file exactly once). The source tree is restored after every
mutation, an interrupt included; the build directory is left rebuilt from
the restored tree.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# (file, old text, new text, what it does, expectation)
MUTATIONS = [
    ("kernels/ref/lm.c", "int not_less = l >= l_next;", "int not_less = l > l_next;",
     "reference LM: C3-C5's 'not less' made 'more'", "caught"),
    ("kernels/ref/lm.c", "\t\tfor (int64_t i = 0; i < n; i++) {\n\t\t\tint c_prev",
     "\t\tfor (int64_t i = 0; i < n - 1; i++) {\n\t\t\tint c_prev",
     "reference LM: the substep's loop stops one PE short", "caught"),
    ("kernels/halo.c", "\t\t\tfor (int h = 1; h <= LBT_HALO; h++) {\n\t\t\t\tp[-h]",
     "\t\t\tfor (int h = 1; h < LBT_HALO; h++) {\n\t\t\t\tp[-h]",
     "halo: the second layer of the last axis never filled", "caught"),
    ("kernels/halo.c", "\t\t\tmemcpy(p + (n - 1 + h) * s, p + lbt_wrap(n - 1 + h, n) * s, (size_t)row * sizeof *p);\n", "",
     "halo: the outer axes' upper halo never filled", "caught"),
    ("kernels/simd/flows.c", "const int tl = v->torus[last] && n > 2;", "const int tl = v->torus[last] && n > 3;",
     "vector NNA/fos-int: a ring of 3 treated as no ring", "caught"),
    ("kernels/simd/flows.c", "MNE(VMULLO(f[d], q->ci), diff), MGT(l, sent))", "MNE(VMULLO(f[d], q->ci), diff), MGT(sent, l))",
     "vector NNA: the round-up's 'affordable' test flipped", "caught"),
    ("kernels/simd/fos.c", "\t\tJ->F[last][off + n - 1] = 0;", "\t\t(void)0;",
     "vector fos: the mesh row's last PE keeps a flow over a missing link", "caught"),
    ("kernels/simd/fos.c", "\tfor (; i + WD <= n; i += WD) {\n\t\tconst", "\tfor (; i + WD < n; i += WD) {\n\t\tconst",
     "vector fos: the vector loop stops a vector early (the scalar tail does the rest the same way: equivalent)",
     "survives"),
    ("kernels/simd/de.c", "\t\t\tfor (; i < n; i++) {\n\t\t\t\tdouble f = lam", "\t\t\tfor (; i < n - 1; i++) {\n\t\t\t\tdouble f = lam",
     "vector dimension exchange (real): the row's scalar tail one PE short", "caught"),
    ("kernels/simd/workload.c", "\t\t\t\tfor (int k = 0; k < L - 1; k++)\n\t\t\t\t\te = VINC(e, MGT(rs, S[k]));",
     "\t\t\t\tfor (int k = 0; k < L - 2; k++)\n\t\t\t\t\te = VINC(e, MGT(rs, S[k]));",
     "vector Poisson workload: one threshold fewer counted", "caught"),
    ("kernels/simd/workload.c", "\tconst V big = VSET1((int32_t)0xffffe000u), step",
     "\tconst V big = VSET1((int32_t)0xffffc000u), step",
     "vector Poisson workload: the squares' 32-bit block sums trusted up to loads of 2^14 (they wrap)", "caught"),
    ("kernels/simd/workload.c", "\t\tS[k] = VSET1(k < p->K ? (int32_t)((p->T[k] - 1) ^ 0x80000000u) : INT32_MAX);",
     "\t\tS[k] = VSET1(k < p->K ? (int32_t)(p->T[k] ^ 0x80000000u) : INT32_MAX);",
     "vector Poisson workload: a draw equal to a threshold (probability 2^-32 per draw and threshold) not "
     "counted: no input reaches it", "survives"),
    ("kernels/ref/workload.c", "static uint64_t below(double g) { return (uint64_t)ceil(g * 0x1p32); }",
     "static uint64_t below(double g) { return (uint64_t)floor(g * 0x1p32); }",
     "reference phases workload: the threshold rounded down", "caught"),
    ("kernels/ref/nna_def.c", "\t\t\tif (lbt_link_right(&g, d, coord[d]))\n\t\t\t\tN[i] += R[(D + d) * P",
     "\t\t\tif (lbt_link_left(&g, d, coord[d]))\n\t\t\t\tN[i] += R[(D + d) * P",
     "reference NNA eq. (4): leftward flows received over the wrong link (no vector kernel)", "caught"),
    ("kernels/ref/speed.c", "\t\t\ta->U[l]++;\n", "",
     "reference speed diffusion: blocked links never counted (no vector kernel; a gap: no test checks the "
     "blocked counts U_ij against hand-derived values, only that every thread count gives the same)", "survives"),
    ("kernels/ref/de.c", "double f = exchange(v, real, lambda, row + i, row + (i + 1) % n, &c->moved);",
     "double f = exchange(v, real, lambda, row + i, row + (i + 1) % n, &none);",
     "reference dimension exchange: a ring's moved load not counted", "caught"),
    ("kernels/simd/init.c", "\tk->de_int_step = LBT_SIMD_FN(lbt_simd_de_int_step);\n", "",
     "dispatch: no ISA installs its integer DE kernel (every ISA runs the reference: correct, slower; checkasm "
     "reports 'no ISA has a vector kernel' and compares the reference on threads)", "survives"),
    ("kernels/simd/lm_rows.h", "case LBT_C4: return MAND(MOR(MGT(l, one), MAND(MEQ(l, one), MGT(lp, one))), MGE(l, ln));",
     "case LBT_C4: return MAND(MOR(MGT(l, one), MAND(MEQ(l, one), MGT(lp, one))), MGT(l, ln));",
     "vector LM (int32 lanes): C4's >= made >", "caught"),
    ("kernels/simd/lm_avx512.h", "return c2 & (bytes ? simde_mm512_cmpge_epi8_mask(l, ln) : HGE(l, ln));",
     "return c2 & (bytes ? simde_mm512_cmpgt_epi8_mask(l, ln) : HGE(l, ln));",
     "vector LM (AVX-512 byte rows only): C4's >= made >", "caught"),
]


# The slots whose full checkasm cases a file's mutation can affect (the rest
# of the full suite is left out to keep a run short); a file not listed: all.
SLOTS = {
    "kernels/ref/lm.c": "lm_step,lm_steps", "kernels/simd/lm_rows.h": "lm_step,lm_steps",
    "kernels/simd/lm_avx512.h": "lm_step,lm_steps",
    "kernels/simd/flows.c": "nna_step,fos_int_step", "kernels/simd/fos.c": "fos_step",
    "kernels/simd/de.c": "de_step,de_int_step", "kernels/ref/de.c": "de_step,de_int_step,de_axis_step",
    "kernels/simd/workload.c": "wl_poisson_row,wl_draw_row,wl_phases_row,wl_real_row",
    "kernels/ref/workload.c": "wl_poisson_row,wl_draw_row,wl_phases_row",
    "kernels/ref/nna_def.c": "nna_def_step", "kernels/ref/speed.c": "speed_step",
    "kernels/simd/init.c": "de_int_step",
}

# The suites that check a kernel with no vector twin against the paper (where
# checkasm only compares the reference with itself on several threads): run
# whole as the last stage.
SUITES = {"kernels/ref/nna_def.c": ["nna"], "kernels/ref/speed.c": ["speeds"]}


def run(cmd, log, timeout=None, env=None):
    with open(log, "a") as f:
        f.write("$ " + " ".join(cmd) + "\n")
        f.flush()
        try:
            return subprocess.run(cmd, cwd=ROOT, stdout=f, stderr=subprocess.STDOUT, timeout=timeout,
                                  env=env).returncode
        except subprocess.TimeoutExpired:
            return -1


def failed_tests(build):
    out = []
    with open(os.path.join(build, "meson-logs", "testlog.json")) as f:
        for line in f:
            r = json.loads(line)
            if r["result"] not in ("OK", "SKIP"):
                out.append(r["name"])
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default="build")
    ap.add_argument("--only", default="", help="a regular expression: only the mutations whose file or text match")
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--skip", type=int, default=0, help="leave out the first N mutations")
    a = ap.parse_args()
    build = os.path.join(ROOT, a.build)
    log = os.path.join(build, "mutate.log")
    chosen = [m for m in MUTATIONS[a.skip:] if re.search(a.only, m[0] + " " + m[3])]
    bad = 0
    if not a.check:
        open(log, "w").close()
        if run(["ninja", "-C", build, "-j2"], log) or run(["meson", "test", "-C", build, "--no-rebuild", "--suite", "quick",
                                                            "--num-processes", "2"], log):
            sys.exit("mutate.py: the unmutated tree must build and pass the quick tier first (see %s)" % log)
    for path, old, new, what, expect in chosen:
        full = os.path.join(ROOT, path)
        with open(full) as f:
            orig = f.read()
        if orig.count(old) != 1:
            print("%-24s %s: the text to change occurs %d times (want 1)" % (path, what, orig.count(old)))
            bad += 1
            continue
        if a.check:
            continue
        t0 = time.time()
        try:
            with open(full, "w") as f:
                f.write(orig.replace(old, new))
            by = []
            quick = ["meson", "test", "-C", build, "--no-rebuild", "--num-processes", "2"]
            if run(["ninja", "-C", build, "-j2", "tests/test_checkasm"], log):
                by = ["the compiler"]
            elif run(quick + ["checkasm_quick"], log):
                by = ["checkasm's quick tier"]
            elif run(["ninja", "-C", build, "-j2"], log) or run(quick + ["--suite", "quick"], log):
                by = ["the quick tier: " + ", ".join(failed_tests(build))]
            elif run(quick + ["checkasm"], log, env=dict(os.environ, LBTORUS_CHECKASM_ONLY=SLOTS.get(path, ""))
                     if path in SLOTS else None):
                by = ["the full checkasm"]
            else:
                for suite in SUITES.get(path, []):
                    if run(quick + [suite], log):
                        by = ["the full %s suite" % suite]
                        break
            verdict = "caught" if by else "survives"
        finally:
            with open(full, "w") as f:
                f.write(orig)
        ok = verdict == expect
        bad += not ok
        print("%-24s %-8s %s%s (%.0f s)%s" % (path, verdict.upper() if not ok else verdict, what,
                                               ": " + "; ".join(by) if by else "", time.time() - t0,
                                               "" if ok else "  <-- expected to be " + expect), flush=True)
    if not a.check:
        run(["ninja", "-C", build, "-j2"], log)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()

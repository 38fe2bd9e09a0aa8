/* test_methods.c — every method of the registry (lbt_methods()) through
 * `lbtorus run`, as a user meets it: every init, criterion and output;
 * results identical for any thread count; --verify agrees; bad method
 * parameters exit 2; --help lists every method with its paper. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"


/* Each method with each init and each criterion: exit 0 when the criterion
 * was reached, 3 when it stopped (cap, fixed point or recurring state) — never anything else;
 * the JSON names the method and says why it stopped. */
Test(methods, every_init_and_criterion)
{
	char dir[64];
	th_tmpdir(dir, sizeof dir);
	char *out, *err;
	/* an int32 grid to start from: an NNA run's dump */
	cr_assert_eq(th_cli(dir, TH_ARGS("run", "--shape", "6x6", "--method", "nna", "--init", "worst:3", "--until", "steps:2",
	                              "--dump", "g.npy", "--json", "g.json", "--quiet"), NULL, &err), 0, "%s", err);
	free(err);
	static const char *const inits[] = {"point:100", "worst:3", "uniform:0:9", "const:4", "file:g.npy", "half:5"};
	static const char *const untils[] = {"shared", "balanced", "flat", "steps:7", "rel:1e-3"};
	for (const lbt_method *const *m = lbt_methods(); *m; m++)
		for (int i = 0; i < 6; i++)
			for (int u = 0; u < 5; u++) {
				const char *name = (*m)->name;
				int rc = th_cli(dir, TH_ARGS("run", "--shape", "6x6", "--method", name, "--init", inits[i], "--until",
				                          untils[u], "--max-steps", "3000", "--quiet"), &out, &err);
				cr_assert(rc == 0 || rc == 3, "%s %s %s: exit %d: %s", name, inits[i], untils[u], rc, err);
				cr_assert(strstr(out, name), "%s", out);
				cr_assert(strstr(out, rc ? "\"reached\":false" : "\"reached\":true"), "%s", out);
				if (rc)
					cr_assert(strstr(err, "stalled") || strstr(err, "max-steps") ||
					          (strstr(err, "recurs") && strstr(out, "\"stop_reason\":\"cycle\"")), "%s", err);
				/* A fixed number of steps is always reached. Real-valued diffusion and
				 * dimension exchange (deterministic, real loads) reach every criterion; the
				 * truncating integer ones may stall at a fixed point, and NNA's asymmetric
				 * rounding may cycle on a 2-D torus (README), but it shares. */
				const int real_det = (*m)->load == LBT_LOAD_REAL && ((*m)->flags & LBT_M_DETERMINISTIC);
				int must = u == 3 || real_det || (!strcmp(name, "nna") && u == 0);
				if (must)
					cr_expect_eq(rc, 0, "%s %s %s: %s", name, inits[i], untils[u], err);
				free(out);
				free(err);
			}
}

/* --trace, --dump (int32 for integer methods, float64 for real ones) and
 * --json; the same bits with 1 and 2 threads and with --verify. */
Test(methods, outputs_identical_for_any_thread_count)
{
	char dir[64];
	th_tmpdir(dir, sizeof dir);
	for (const lbt_method *const *mp = lbt_methods(); *mp; mp++) {
		const char *const name = (*mp)->name;
		char *out, *err;
		for (int t = 1; t <= 2; t++) {
			char tr[32], dp[32];
			snprintf(tr, sizeof tr, "t%d.csv", t);
			snprintf(dp, sizeof dp, "d%d.npy", t);
			cr_assert_eq(th_cli(dir, TH_ARGS("run", "--shape", "5x7", "--method", name, "--init", "uniform:0:50",
			                              "--until", "steps:15", "--threads", t == 1 ? "1" : "2", "--trace", tr,
			                              "--dump", dp, "--json", "j.json", "--verify", "--quiet"), &out, &err),
			             0, "%s: %s", name, err);
			free(out);
			free(err);
		}
		char p1[128], p2[128];
		size_t n1, n2;
		for (int f = 0; f < 2; f++) {
			snprintf(p1, sizeof p1, "%s/%s1.%s", dir, f ? "d" : "t", f ? "npy" : "csv");
			snprintf(p2, sizeof p2, "%s/%s2.%s", dir, f ? "d" : "t", f ? "npy" : "csv");
			char *a = th_read(p1, &n1), *b = th_read(p2, &n2);
			if (!f) { /* a trace: its rows, after the provenance header (which names the thread count) */
				const char *ra = th_csv_body(a), *rb = th_csv_body(b);
				n1 -= (size_t)(ra - a), n2 -= (size_t)(rb - b);
				memmove(a, ra, n1 + 1), memmove(b, rb, n2 + 1);
			}
			cr_expect(n1 == n2 && !memcmp(a, b, n1), "%s: %s differs between 1 and 2 threads", name, p1);
			if (f) {
				const int real = (*mp)->load == LBT_LOAD_REAL;
				cr_expect(strstr(a + 10, real ? "'<f8'" : "'<i4'"), "%s: dump dtype", name);
				cr_expect_eq(n1, 128 + 35 * (real ? 8 : 4), "%s: dump size %zu", name, n1);
			} else
				cr_expect(!strncmp(a, "step,shifts,max,min,ldiff,idle,stddev,moved,moved_total,rel,link_max,total\n", 75), "%.80s", a);
			free(a);
			free(b);
		}
	}
}

Test(methods, bad_parameters_exit_2)
{
	char dir[64];
	th_tmpdir(dir, sizeof dir);
	const char *const *cases[] = {
		TH_ARGS("run", "--shape", "8x8", "--method", "fos", "--alpha", "0.3"),
		TH_ARGS("run", "--shape", "8x8", "--method", "fos", "--alpha", "fast"),
		TH_ARGS("run", "--shape", "8x8", "--method", "de", "--lambda", "0"),
		TH_ARGS("run", "--shape", "8x8", "--method", "de", "--lambda", "1.5"),
		TH_ARGS("run", "--shape", "8x8", "--method", "ca", "--ca-k", "-1"),
		TH_ARGS("run", "--shape", "8x8", "--method", "fos", "--until", "rel:2"),
		/* a parameter the method does not take (issue 8: was silently ignored) */
		TH_ARGS("run", "--shape", "8x8", "--method", "lm-c5", "--alpha", "0.1"),
		TH_ARGS("run", "--shape", "8x8", "--method", "fos", "--lambda", "0.5"),
		TH_ARGS("run", "--shape", "8x8", "--method", "ca", "--ca-k", "1.5"),
	};
	static const char *const needles[] = {"1/max_degree", "--alpha", "--lambda", "--lambda", "--ca-k", "rel:",
	                                      "lm-c5 takes no parameter --alpha", "fos takes no parameter --lambda",
	                                      "--ca-k '1.5': give an integer"};
	enum { NCASES = sizeof needles / sizeof *needles };
	for (int c = 0; c < NCASES; c++) {
		char *out, *err;
		int rc = th_cli(dir, cases[c], &out, &err);
		cr_expect_eq(rc, 2, "case %d: exit %d", c, rc);
		cr_expect(strstr(err, needles[c]), "case %d: %s", c, err);
		cr_expect(strchr(err, '\n') == err + strlen(err) - 1, "case %d: one line: %s", c, err);
		cr_expect(!*out, "case %d: no output: %s", c, out);
		free(out);
		free(err);
	}
}

Test(methods, help_lists_every_method_with_its_paper)
{
	char *out;
	cr_assert_eq(th_cli(NULL, TH_ARGS("run", "--help"), &out, NULL), 0);
	for (const lbt_method *const *m = lbt_methods(); *m; m++) {
		char want[512];
		snprintf(want, sizeof want, " %s ", (*m)->name);
		cr_expect(strstr(out, want), "--help lacks %s", (*m)->name);
		snprintf(want, sizeof want, "[%s]", (*m)->citation);
		cr_expect(strstr(out, want), "--help lacks %s's paper %s", (*m)->name, want);
		for (int i = 0; i < (*m)->nparams; i++) {
			snprintf(want, sizeof want, "--%s", (*m)->params[i].name);
			for (char *c = want; *c; c++)
				*c = *c == '_' ? '-' : *c;
			cr_expect(strstr(out, want), "--help lacks %s's %s", (*m)->name, want);
		}
	}
	/* the five papers (docs/references.bib) */
	cr_expect(strstr(out, "Henrich, The liquid model load balancing method, Parallel Algorithms and Applications, 1996"));
	cr_expect(strstr(out, "Cybenko, Dynamic load balancing for distributed memory multiprocessors, J. Parallel Distrib. Comput., 1989"));
	cr_expect(strstr(out, "Dickens, Load balancing on massively parallel networks: a cellular automaton approach, 1992"));
	cr_expect(strstr(out, "Lüling, B. Monien, A dynamic distributed load balancing algorithm with provable good performance"));
	cr_expect(strstr(out, "Jeannot, F. Vernier, A Practical Approach of Diffusion Load Balancing Algorithms"));
	cr_expect(strstr(out, "rel:X"));
	free(out);
}

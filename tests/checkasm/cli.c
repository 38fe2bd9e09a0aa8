/* cli.c — the kernels as a user meets them: `lbtorus run --verify` (the
 * reference beside the vector kernel every step), the same dumps on every
 * ISA and thread count, and `lbtorus bench` reporting every ISA. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checkasm.h"

static unsigned char *read_file(const char *dir, const char *name, size_t *n)
{
	char path[256];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	return (unsigned char *)th_read(path, n);
}

/* What auto chooses: the best target this CPU runs natively (never avx512emu). */
static const char *best_isa(void)
{
	lbt_kernels k;
	lbt_err e;
	cr_assert_eq(lbt_kernels_select(&k, "auto", &e), LBT_OK, "%s", e.msg);
	return k.isa;
}

/* `lbtorus run` uses the vector kernels by default, --verify checks every
 * step against the reference, and --isa scalar, the best vector ISA and
 * 1 or 2 threads all dump the same bits. */
Test(checkasm, run_verify_and_dumps_agree_across_isa_and_threads)
{
	char dir[64];
	th_tmpdir(dir, sizeof dir);
	char *out, *err;
	const char *isa = best_isa();
	int rc = th_cli(dir, TH_ARGS("run", "--shape", "37x45", "--boundary", "torus,mesh", "--method", "lm-c4",
	                          "--init", "uniform:0:9", "--until", "steps:60", "--verify", "--threads", "2",
	                          "--quiet", "--dump", "v.npy"), &out, &err);
	cr_assert_eq(rc, 0, "run --verify failed: %s", err);
	char want[64];
	snprintf(want, sizeof want, "\"isa\":\"%s\"", isa);
	cr_assert(strstr(out, want), "the default ISA should be %s: %s", isa, out);
	cr_assert(strstr(out, "\"threads\":2"), "%s", out);
	free(out);
	free(err);
	const char *runs[][2] = {{"scalar", "1"}, {isa, "1"}, {isa, "2"}};
	const char *names[] = {"a.npy", "b.npy", "c.npy"};
	for (int i = 0; i < 3; i++)
		cr_assert_eq(th_cli(dir, TH_ARGS("run", "--shape", "24x17x6", "--boundary", "mesh,torus,torus", "--init", "worst:3",
		                              "--until", "steps:50", "--isa", runs[i][0], "--threads", runs[i][1], "--quiet",
		                              "--dump", names[i], "--json", "run.json"), NULL, NULL), 0);
	size_t na, nb, nc;
	unsigned char *a = read_file(dir, "a.npy", &na), *b = read_file(dir, "b.npy", &nb), *c = read_file(dir, "c.npy", &nc);
	cr_assert(na == nb && !memcmp(a, b, na), "--isa scalar and --isa %s dump different grids", isa);
	cr_assert(nb == nc && !memcmp(b, c, nb), "--threads 1 and --threads 2 dump different grids on %s", isa);
	free(a);
	free(b);
	free(c);
	th_rm_tree(dir);
}

/* One `run --verify` of 400 steps, which must pass. */
static void verify_run(const char *dir, const char *grid, const char *init, const char *method, const char *workload)
{
	char *err;
	int rc = th_cli(dir, TH_ARGS("run", "--shape", grid, "--init", init, "--method", method, "--until", "steps:400",
	                          "--workload", workload, "--verify", "--quiet", "--json", "run.json"), NULL, &err);
	cr_assert_eq(rc, 0, "run --shape %s --method %s --verify --init %s --workload %s failed: %s", grid, method, init,
	             workload, err);
	free(err);
}

/* `run --verify` on runs whose loads cross 127 and 32767 while they run,
 * on rows of 80 PEs (int16 rows with AVX-512) and 128 (byte rows too), in
 * 2-D, 3-D and 4-D, and on a ring of 4096, for every condition of Henrich's
 * Table 1; and with Cybenko's Poisson arrivals, whose loads wander across
 * 127 both ways, on the ring, in 2-D and in 4-D. */
Test(checkasm, run_verify_across_narrow_edges)
{
	char dir[64];
	th_tmpdir(dir, sizeof dir);
	static const char *const inits[] = {"worst:5", "uniform:100:140", "uniform:32760:32770"};
	static const char *const grids[] = {"48x80", "40x128", "5x8x128", "3x4x4x128", "4096"};
	/* with arrivals: loads whose maximum (LM-C5, this seed) is above 127 in 80 to 234 of the 400 steps and at
	 * or below it in the others, going back and forth */
	static const char *const dyn_runs[][2] = {
		{"40x128", "uniform:118:128"}, {"3x4x4x128", "uniform:120:130"}, {"4096", "uniform:110:120"}};
	for (int c = 0; c < LBT_NCOND; c++) {
		char method[8];
		snprintf(method, sizeof method, "lm-c%d", c);
		for (size_t g = 0; g < sizeof grids / sizeof *grids; g++)
			for (size_t i = 0; i < sizeof inits / sizeof *inits; i++)
				verify_run(dir, grids[g], inits[i], method, "none");
		for (size_t r = 0; r < sizeof dyn_runs / sizeof *dyn_runs; r++)
			verify_run(dir, dyn_runs[r][0], dyn_runs[r][1], method, "cybenko:poisson:1:1");
	}
	th_rm_tree(dir);
}

/* `lbtorus bench` measures every ISA this CPU runs natively (an emulated
 * one only if named) beside the scalar reference and the copy bandwidth,
 * and writes the same as JSON (timings are not checked). */
Test(checkasm, bench_reports_every_isa_with_its_bound)
{
	char dir[64];
	th_tmpdir(dir, sizeof dir);
	char *out, *err;
	int rc = th_cli(dir, TH_ARGS("bench", "--sizes", "16x16,4x4x4", "--methods", "lm-c5", "--seconds", "0.01",
	                          "--threads", "1", "--no-headline", "--json", "b.json"), &out, &err);
	cr_assert_eq(rc, 0, "bench failed: %s", err);
	for (const char *const *t = lbt_isa_compiled(); *t; t++)
		if (lbt_isa_supported(*t)) {
			char want[64];
			snprintf(want, sizeof want, "\"isa\":\"%s\"", *t);
			size_t n;
			unsigned char *j = read_file(dir, "b.json", &n); /* NUL-terminated */
			cr_assert_eq(!strstr((char *)j, want), lbt_isa_emulated(*t), "%s %s the JSON", *t,
			             lbt_isa_emulated(*t) ? "(emulated) in" : "not in");
			if (lbt_isa_emulated(*t)) {
				free(j);
				continue;
			}
			cr_assert(strstr((char *)j, "\"size\":\"4x4x4\"") && strstr((char *)j, "\"of_bound\":"), "%s", j);
			free(j);
			snprintf(want, sizeof want, "lm-c5  %-7s", *t);
			cr_assert(strstr(out, want), "no table row for %s:\n%s", *t, out);
		}
	free(out);
	free(err);
	th_rm_tree(dir);
}


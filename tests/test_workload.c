/* test_workload.c — dynamic workloads, named after the claims they check:
 * Cybenko 1989 (eq. (12), Theorem 2, the growth without balancing, Table II's
 * dimension exchange under Model A), the conservation law with a workload,
 * search trees (every node expanded exactly once), the specs, and the same
 * bits for any thread count and ISA.
 *
 * Statistical tests. Every one has a fixed seed, so it is deterministic; its
 * tolerance is still derived from the sample size, so that a correct program
 * passes for (nearly) any seed and a wrong one fails:
 *   - a long-run mean of sqdev is compared with its exact value within 4
 *     standard errors, the standard error from batch means (consecutive
 *     steps are correlated; the engine's batches are 32..63 means of equal
 *     length, here >= 256 steps, far beyond the correlation time
 *     1/(1 - gamma^2) < 4 steps). With ~37 batches the studentized error is
 *     t-distributed with ~36 degrees of freedom: P(|t| > 4) < 4e-4. The test
 *     also requires the standard error to be below 1% of the value, so the
 *     tolerance cannot be wide enough to pass anything, and checks that the
 *     competing values (the theorem's bound, the value after balancing) lie
 *     many tolerances away;
 *   - a sum of n nearly Gaussian squares has relative standard deviation
 *     sqrt(2/n); the growth test allows 5 of those;
 *   - the arrivals' sample mean and variance over n draws have standard
 *     errors sqrt(var/n) and sqrt((mu4 - var^2)/n) (mu4 the distribution's
 *     fourth central moment); the test allows 5 of each. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lbtorus/rng.h"
#include "../kernels/internal.h"

#include "helpers.h"

static void open_state(lbt_state *st, const char *shape, const char *method, const char *init, const char *isa,
                       int threads, const char *param, const char *value)
{
	lbt_setup set = {.shape = shape, .method = method, .init = init, .isa = isa, .seed = 11, .threads = threads};
	if (param)
		set.params[0] = (lbt_param_arg){param, value};
	lbt_err e;
	cr_assert_eq(lbt_state_open(st, &set, &e), LBT_OK, "%s %s: %s", shape, method, e.msg);
}

static void run_workload(lbt_state *st, const char *spec, lbt_until until, int64_t warmup, lbt_summary *s)
{
	static lbt_workload w; /* the options point at it during the run */
	lbt_err e;
	cr_assert_eq(lbt_workload_parse(&w, spec, st->method->load, &e), LBT_OK, "%s", e.msg);
	lbt_run_opts o = lbt_run_opts_default();
	o.workload = &w;
	o.until = until;
	o.warmup = warmup;
	cr_assert_eq(lbt_run(st, &o, s, &e), LBT_OK, "%s with %s: %s", st->method->name, spec, e.msg);
}

static lbt_until steps(int64_t n) { return (lbt_until){LBT_UNTIL_STEPS, n, 0}; }

/* sum over the non-unit eigenvalues lambda of M = I - alpha*Lap of 1/(1 - lambda^2),
 * the Laplacian's eigenvalues on a torus with extents ext: sum_d 2(1 - cos(2 pi j_d/n_d)),
 * for n_d = 2: {0, 2} (docs: lbt_spectrum in method.h). */
static double theorem2_exact(const int *ext, int dims, double alpha)
{
	int64_t P = 1, j[8] = {0};
	for (int d = 0; d < dims; d++)
		P *= ext[d];
	double sum = 0;
	for (int64_t i = 0; i < P; i++) {
		int64_t r = i;
		double mu = 0;
		for (int d = dims - 1; d >= 0; d--) {
			j[d] = r % ext[d];
			r /= ext[d];
			mu += ext[d] == 2 ? 2.0 * (double)j[d] : 2 * (1 - cos(2 * M_PI * (double)j[d] / ext[d]));
		}
		if (i) /* j = 0: the eigenvalue 1 of the uniform vector */
			sum += 1 / (1 - (1 - alpha * mu) * (1 - alpha * mu));
	}
	return sum;
}

static void check_mean(const lbt_summary *s, double exact, const char *what)
{
	cr_assert(s->sqdev_se > 0 && s->sqdev_se < 0.01 * exact, "%s: standard error %g of %g", what, s->sqdev_se,
	          s->sqdev_mean);
	cr_assert(s->sqdev_batches >= 32, "%s: %lld batches", what, (long long)s->sqdev_batches);
	cr_assert(fabs(s->sqdev_mean - exact) <= 4 * s->sqdev_se, "%s: measured %.4f +- %.4f, exact %.4f", what,
	          s->sqdev_mean, s->sqdev_se, exact);
}

/* Theorem 2 (Cybenko 1989): FOS with gamma < 1 under eq. (12) reaches the
 * steady state E||w - mean||^2 = sigma^2 sum_k 1/(1 - lambda_k^2) over the
 * non-unit eigenvalues, below the bound (n - 1) sigma^2/(1 - gamma^2).
 * 8x8 torus, alpha optimal = 2/(mu_min + mu_max) = 2/(2 - sqrt2 + 8):
 * exact 93.4739 and bound 247.749 (sums evaluated by hand in Python from the
 * same eigenvalue formula), sigma^2 = 1 for exp:1. */
Test(workload, theorem2_exact_steady_state_on_an_8x8_torus)
{
	lbt_state st;
	open_state(&st, "8x8", "fos", "const:100", NULL, 1, "alpha", "optimal");
	double alpha = st.param[0].num, gamma = lbt_gamma(&st.grid.shape, alpha);
	double exact = theorem2_exact((const int[]){8, 8}, 2, alpha), bound = 63 / (1 - gamma * gamma);
	cr_assert_float_eq(exact, 93.4739, 1e-4);
	cr_assert_float_eq(bound, 247.749, 1e-3);
	lbt_summary s;
	run_workload(&st, "cybenko:exp:1:1", steps(20000), 1000, &s);
	check_mean(&s, exact, "8x8 torus");
	cr_assert(bound - s.sqdev_mean > 100 * s.sqdev_se, "the bound is not tight here");
	/* measured after the balancing step instead, it would be exact - 63 (each term less 1) */
	cr_assert(s.sqdev_mean - (exact - 63) > 50 * s.sqdev_se);
	lbt_state_close(&st);
}

/* The same on the 6-cube: alpha optimal = 2/(2 + 12) = 1/7, the Laplacian's
 * eigenvalues 2k with multiplicity C(6, k): exact sum_{k=1..6} C(6,k)/(1 - (1 - 2k/7)^2)
 * = 75.7458, bound 63/(1 - (5/7)^2) = 128.625 (by hand). */
Test(workload, theorem2_exact_steady_state_on_a_6_cube)
{
	lbt_state st;
	open_state(&st, "2x2x2x2x2x2", "fos", "const:100", NULL, 1, "alpha", "optimal");
	double alpha = st.param[0].num;
	cr_assert_float_eq(alpha, 1.0 / 7, 1e-15);
	double exact = theorem2_exact((const int[]){2, 2, 2, 2, 2, 2}, 6, alpha);
	cr_assert_float_eq(exact, 75.7458, 1e-4);
	lbt_summary s;
	run_workload(&st, "cybenko:exp:1:1", steps(20000), 1000, &s);
	check_mean(&s, exact, "6-cube");
	cr_assert(128.625 - s.sqdev_mean > 50 * s.sqdev_se);
	lbt_state_close(&st);
}

/* Table II, dimension exchange under Model A (one complete sweep per step):
 * a sweep with lambda = 1/2 balances the hypercube exactly (Theorem 4), so
 * what the next sweep receives is the arrivals' own spread: E||eta - mean||^2
 * = (n - 1) sigma^2 = 63 on the 6-cube (Lemma 3), the paper's n sigma^2. */
Test(workload, table2_dimension_exchange_model_a_is_the_arrivals_spread)
{
	lbt_state st;
	open_state(&st, "2x2x2x2x2x2", "de", "const:100", NULL, 1, NULL, NULL);
	lbt_summary s;
	run_workload(&st, "cybenko:exp:1:1", steps(20000), 10, &s);
	check_mean(&s, 63, "de on the 6-cube");
	lbt_state_close(&st);
}

/* Theorem 5 (Cybenko 1989): dimension exchange one dimension per step under
 * eq. (17) keeps E||w - mean||^2 <= (2^(d+1) - 1) sigma^2 <= 2 n sigma^2. Its
 * proof's sum, before bounding: the latest s < d exchanges average the
 * arrivals over 2^s-subcubes, E = sum_{s<d} (n/2^s - 1) sigma^2 =
 * (2^(d+1) - d - 2) sigma^2 = 120 on the 6-cube (bound 127, 2n = 128). */
Test(workload, theorem5_dimension_exchange_one_dimension_per_step)
{
	lbt_state st;
	open_state(&st, "2x2x2x2x2x2", "de-axis", "const:100", NULL, 1, NULL, NULL);
	lbt_summary s;
	run_workload(&st, "cybenko:exp:1:1", steps(20000), 1000, &s);
	check_mean(&s, 120, "de-axis on the 6-cube");
	cr_assert(s.sqdev_mean + 4 * s.sqdev_se < 127, "Theorem 5's bound: %g", s.sqdev_mean);
	lbt_state_close(&st);
	/* without arrivals it balances the d-cube exactly in d steps (Theorem 4, one dimension per step) */
	open_state(&st, "2x2x2x2x2x2", "de-axis", "worst:5", NULL, 1, NULL, NULL);
	lbt_run_opts o = lbt_run_opts_default();
	o.until = steps(6);
	lbt_err e;
	cr_assert_eq(lbt_run(&st, &o, &s, &e), LBT_OK, "%s", e.msg);
	cr_assert_eq(s.final_max, 5);
	cr_assert_eq(s.final_min, 5);
	lbt_state_close(&st);
}

typedef struct {
	int64_t at[4];
	double sqdev[4];
} growth;

static void note_growth(void *ctx, const lbt_step_record *r)
{
	growth *g = ctx;
	for (int k = 0; k < 4; k++)
		if (r->step == g->at[k])
			g->sqdev[k] = r->sqdev;
}

/* Without balancing (Cybenko after Theorem 2) the deviation grows as
 * t sigma^2 per PE: from a constant start, after the arrivals of step t each
 * PE has received t independent draws, so E||w - mean||^2 = (n - 1) t sigma^2
 * (the paper's (t + 1) counts its random w(0) as one more). poisson:1 with
 * C = 1: sigma^2 = 1, and from const:100000 no PE runs dry (its walk's
 * spread after 200 steps is ~14). */
Test(workload, no_balancing_deviation_grows_as_t_sigma2_per_pe)
{
	lbt_state st;
	open_state(&st, "64x64", "none", "const:100000", NULL, 1, NULL, NULL);
	static lbt_workload w;
	lbt_err e;
	cr_assert_eq(lbt_workload_parse(&w, "cybenko:poisson:1:1", LBT_LOAD_INT, &e), LBT_OK, "%s", e.msg);
	growth g = {{25, 50, 100, 200}, {0}};
	lbt_run_opts o = lbt_run_opts_default();
	o.workload = &w;
	o.until = steps(200);
	o.on_step = note_growth;
	o.ctx = &g;
	lbt_summary s;
	cr_assert_eq(lbt_run(&st, &o, &s, &e), LBT_OK, "%s", e.msg);
	const double n = 4096, tol = 5 * sqrt(2 / (n - 1));
	for (int k = 0; k < 4; k++) {
		double ratio = g.sqdev[k] / ((n - 1) * (double)g.at[k]);
		cr_assert(fabs(ratio - 1) < tol, "step %lld: sqdev/((n-1) t sigma^2) = %.4f", (long long)g.at[k], ratio);
	}
	cr_assert_eq(s.idle_capacity, 0);
	lbt_state_close(&st);
}

/* The conservation law with a workload, exactly, for every integer method:
 * total after = total before + generated - completed (the engine checks it
 * every step; here once more from the grid, for three processes). */
Test(workload, conservation_with_a_workload_for_every_integer_method)
{
	const char *specs[] = {"cybenko:poisson:1:1", "cybenko:uniform:0:3:2", "phases:0:0.6:0.2:0.8:1:20",
	                       "generator:0.5", "tree:3:5", "gw:2:0.45:50"};
	int methods = 0;
	for (const lbt_method *const *m = lbt_methods(); *m; m++) {
		if ((*m)->load != LBT_LOAD_INT)
			continue;
		methods++;
		for (size_t k = 0; k < sizeof specs / sizeof *specs; k++) {
			int tree = !strncmp(specs[k], "tree", 4) || !strncmp(specs[k], "gw", 2);
			lbt_state st;
			open_state(&st, "12x10", (*m)->name, tree ? "const:0" : "uniform:0:6", NULL, 1, NULL, NULL);
			int64_t before = th_total(&st);
			lbt_summary s;
			run_workload(&st, specs[k], steps(150), 0, &s);
			cr_assert_eq(th_total(&st), before + (tree ? (specs[k][0] == 'g' ? 50 : 1) : 0) + s.generated -
			             s.completed, "%s with %s", (*m)->name, specs[k]);
			cr_assert(s.generated > 0 || specs[k][0] == 'g', "%s with %s generated nothing", (*m)->name, specs[k]);
			lbt_state_close(&st);
		}
	}
	cr_assert_geq(methods, 11); /* lm-c0..c5, nna, nna-def, fos-int, de-int, none, ... */
}

/* on_step: the load a real-valued run has handled, as the engine counts it. */
static void add_volume(void *ctx, const lbt_step_record *r)
{
	*(double *)ctx += fabs(r->generated) + fabs(r->completed);
}

/* Real-valued loads, for every real-valued method: total after = before +
 * generated - completed to within rounding, also where the loads cross zero
 * and dwarf the initial total. From an empty machine, arrivals of standard
 * deviation 10^6 (normal, none completed) and of mean 10^6 against 10^6
 * completed (exp) make each step's sums of 64 PEs carry some 10^7 with
 * rounding of about 10^-9: the engine's check once took 1e-9 of the initial
 * total (here 0, so 1e-9 absolute) and stopped such runs at their first
 * steps with "lost load". It now takes 1e-9 of the load handled (initial
 * total and every step's |generated| + |completed|); this test holds the
 * final total to the same bound, measured apart from the engine. */
Test(workload, conservation_with_a_workload_for_every_real_method)
{
	const char *specs[] = {"cybenko:normal:0:1000000:0", "cybenko:exp:1000000:1000000", "cybenko:poisson:1:1"};
	int methods = 0;
	for (const lbt_method *const *m = lbt_methods(); *m; m++) {
		if ((*m)->load != LBT_LOAD_REAL)
			continue;
		methods++;
		for (size_t k = 0; k < sizeof specs / sizeof *specs; k++) {
			lbt_state st;
			open_state(&st, "8x8", (*m)->name, "const:0", NULL, 1, NULL, NULL);
			lbt_workload w;
			lbt_err e;
			cr_assert_eq(lbt_workload_parse(&w, specs[k], LBT_LOAD_REAL, &e), LBT_OK, "%s", e.msg);
			double volume = 0;
			lbt_summary s;
			lbt_run_opts o = lbt_run_opts_default();
			o.workload = &w;
			o.until = steps(300);
			o.on_step = add_volume;
			o.ctx = &volume;
			cr_assert_eq(lbt_run(&st, &o, &s, &e), LBT_OK, "%s with %s: %s", (*m)->name, specs[k], e.msg);
			cr_assert_eq(s.steps, 300, "%s with %s", (*m)->name, specs[k]);
			lbt_stats f;
			lbt_field_stats(&st.grid, lbt_grid_field(&st.grid, "real"), 1, &f);
			cr_assert_gt(volume, 1e8 * (specs[k][8] != 'p'), "%s with %s: %g", (*m)->name, specs[k], volume);
			cr_assert_leq(fabs(f.rtotal - (s.generated - s.completed)), LBT_REAL_TOTAL_TOL * volume,
			              "%s with %s: total %.17g, generated - completed %.17g", (*m)->name, specs[k], f.rtotal,
			              s.generated - s.completed);
			lbt_state_close(&st);
		}
	}
	cr_assert_geq(methods, 5); /* fos, de, de-axis, ca, fos-speed */
}

/* A complete tree with B^DEPTH leaves: every node is expanded exactly once
 * (nodes expanded = (B^(DEPTH+1) - 1)/(B - 1)), under every integer method,
 * and no run beats the ideal machine's max(ceil(nodes/P), DEPTH + 1). */
Test(workload, complete_tree_every_node_expanded_exactly_once)
{
	static const struct {
		const char *spec;
		int64_t size, levels;
	} trees[] = {{"tree:2:10", 2047, 11}, {"tree:3:6", 1093, 7}, {"tree:1:40", 41, 41}, {"tree:5:0", 1, 1}};
	for (const lbt_method *const *m = lbt_methods(); *m; m++) {
		if ((*m)->load != LBT_LOAD_INT)
			continue;
		for (int k = 0; k < 4; k++) {
			lbt_state st;
			open_state(&st, "8x8", (*m)->name, "const:0", NULL, 1, NULL, NULL);
			lbt_summary s;
			run_workload(&st, trees[k].spec, (lbt_until){LBT_UNTIL_DONE, 0, 0}, 0, &s);
			cr_assert(s.reached, "%s %s", (*m)->name, trees[k].spec);
			cr_assert_eq(s.completed, trees[k].size, "%s %s: %lld expanded", (*m)->name, trees[k].spec,
			             (long long)s.completed);
			cr_assert_eq(s.generated, trees[k].size - 1);
			cr_assert_eq(s.tree_levels, trees[k].levels);
			int64_t ideal = (trees[k].size + 63) / 64;
			cr_assert_geq(s.steps, ideal > trees[k].levels ? ideal : trees[k].levels);
			cr_assert_eq(th_total(&st), 0);
			lbt_state_close(&st);
		}
	}
	/* without balancing PE 0 does it all: one node per step */
	lbt_state st;
	open_state(&st, "8x8", "none", "const:0", NULL, 1, NULL, NULL);
	lbt_summary s;
	run_workload(&st, "tree:2:10", (lbt_until){LBT_UNTIL_DONE, 0, 0}, 0, &s);
	cr_assert_eq(s.steps, 2047);
	cr_assert_eq(s.idle_capacity, 63.0 * 2047);
	lbt_state_close(&st);
}

/* Integer loads complete at most what they hold: an empty machine with no
 * arrivals leaves all of C idle, C per PE and step. */
Test(workload, integer_shortfall_is_idle_capacity)
{
	lbt_state st;
	open_state(&st, "6x5", "lm-c5", "const:0", NULL, 1, NULL, NULL);
	lbt_summary s;
	run_workload(&st, "cybenko:bernoulli:0:3", steps(40), 0, &s);
	cr_assert_eq(s.completed, 0);
	cr_assert_eq(s.idle_capacity, 3.0 * 30 * 40);
	lbt_state_close(&st);
	/* generator:1 makes one task per step at PE 0 */
	open_state(&st, "6x5", "none", "const:0", NULL, 1, NULL, NULL);
	run_workload(&st, "generator:1", steps(40), 0, &s);
	cr_assert_eq(s.generated, 40);
	cr_assert_eq(st.grid.load[0], 40);
	lbt_state_close(&st);
}

/* phases: a PE generates with its phase's probability; with GL = GH = 0.3
 * the count over n PE-steps is Binomial(n, 0.3): within 5 sqrt(n p (1-p)). */
Test(workload, phases_generate_at_the_phase_probability)
{
	lbt_state st;
	open_state(&st, "32x32", "none", "const:0", NULL, 1, NULL, NULL);
	lbt_summary s;
	run_workload(&st, "phases:0.3:0.3:0.5:1:1:9", steps(100), 0, &s);
	double n = 1024.0 * 100, p = 0.3;
	cr_assert(fabs((double)s.generated - n * p) < 5 * sqrt(n * p * (1 - p)), "%lld generated", (long long)s.generated);
	cr_assert(s.completed <= s.generated && s.completed > 0);
	lbt_state_close(&st);
}

/* warmup: sqdev_mean averages the steps after it. */
Test(workload, warmup_leaves_the_first_steps_out)
{
	lbt_state st;
	open_state(&st, "8x8", "fos", "const:10", NULL, 1, NULL, NULL);
	lbt_summary s;
	run_workload(&st, "cybenko:normal:1:2:1", steps(300), 100, &s);
	cr_assert_eq(s.sqdev_steps, 200);
	cr_assert_gt(s.sqdev_batches, 1);
	lbt_state_close(&st);
}

/* Bad specs: one message, LBT_EINVAL; real-valued arrivals need a real method, tasks an integer one. */
Test(workload, bad_specs_are_refused)
{
	const char *bad_int[] = {"", "bogus", "none:1", "cybenko", "cybenko:poisson", "cybenko:poisson:1",
	                         "cybenko:poisson:0:1", "cybenko:poisson:1:1.5", "cybenko:poisson:1:-1",
	                         "cybenko:exp:1:1", "cybenko:normal:0:1:1", "cybenko:uniform:3:2:1",
	                         "cybenko:bernoulli:1.5:1", "cybenko:poisson:1:1:", "cybenko:poisson:x:1",
	                         "phases:0.5:0.4:0:0:1:1", "phases:0:1:0:1:0:1", "phases:0:1:0:1:1",
	                         "generator:2", "generator", "tree:2", "tree:0:3", "tree:2:40", "tree:2.5:3",
	                         "gw:2:0.5", "gw:2:1.1:1", "gw:2:0.5:0", "tree:2:nan"};
	lbt_workload w;
	lbt_err e;
	for (size_t k = 0; k < sizeof bad_int / sizeof *bad_int; k++) {
		cr_assert_eq(lbt_workload_parse(&w, bad_int[k], LBT_LOAD_INT, &e), LBT_EINVAL, "'%s' accepted", bad_int[k]);
		cr_assert(!strchr(e.msg, '\n') && strlen(e.msg) > 10, "'%s': %s", bad_int[k], e.msg);
	}
	const char *bad_real[] = {"tree:2:3", "gw:2:0.5:3", "phases:0:1:0:1:1:2", "generator:0.5", "cybenko:exp:0:1"};
	for (size_t k = 0; k < sizeof bad_real / sizeof *bad_real; k++)
		cr_assert_eq(lbt_workload_parse(&w, bad_real[k], LBT_LOAD_REAL, &e), LBT_EINVAL, "'%s' accepted", bad_real[k]);
	cr_assert_eq(lbt_workload_parse(&w, "cybenko:normal:0:1:0.5", LBT_LOAD_REAL, &e), LBT_OK, "%s", e.msg);
	cr_assert_eq(w.arg[2], 0.5);
	cr_assert_eq(lbt_workload_parse(&w, "none", LBT_LOAD_INT, &e), LBT_OK);
	cr_assert_null(w.phase);
	/* the CLI: one line on stderr, exit 2 */
	char *out, *err;
	const char *argv[] = {"run", "--shape", "8x8", "--workload", "cybenko:exp:1:1", NULL};
	cr_assert_eq(th_cli(NULL, argv, &out, &err), 2);
	cr_assert(strstr(err, "real-valued method") && strchr(err, '\n') == err + strlen(err) - 1, "%s", err);
	free(out);
	free(err);
}

/* The same inputs and seed give the same bits for 1 and 2 threads and on every ISA. */
Test(workload, same_bits_for_any_thread_count_and_isa)
{
	static const struct {
		const char *method, *init, *spec;
	} runs[] = {{"lm-c5", "uniform:0:4", "cybenko:poisson:1:1"}, {"fos", "const:5", "cybenko:normal:1:1:1"},
	            {"lm-c3", "const:0", "gw:2:0.49:40"}, {"nna", "uniform:0:4", "phases:0:0.5:0:0.6:1:9"}};
	for (int k = 0; k < 4; k++) {
		lbt_state a;
		lbt_summary sa;
		open_state(&a, "24x20", runs[k].method, runs[k].init, "scalar", 1, NULL, NULL);
		run_workload(&a, runs[k].spec, steps(120), 20, &sa);
		for (const char *const *t = lbt_isa_compiled(); *t; t++)
			for (int threads = 1; threads <= 2; threads++) {
				if (!lbt_isa_supported(*t))
					continue;
				lbt_state b;
				lbt_summary sb;
				open_state(&b, "24x20", runs[k].method, runs[k].init, *t, threads, NULL, NULL);
				run_workload(&b, runs[k].spec, steps(120), 20, &sb);
				cr_assert_eq(lbt_grid_first_diff(&a.grid, &b.grid), -1, "%s %s on %s, %d threads", runs[k].method,
				             runs[k].spec, *t, threads);
				cr_assert(!memcmp(&sa.sqdev_mean, &sb.sqdev_mean, sizeof sa.sqdev_mean) &&
				          sa.generated == sb.generated,
				          "%s %s on %s, %d threads", runs[k].method, runs[k].spec, *t, threads);
				lbt_state_close(&b);
			}
		lbt_state_close(&a);
	}
}

/* A workload axis in sweeps: each spec is a run of its own, keyed by it (a
 * sweep without one keeps its keys); the plan checks it against the method. */
Test(workload, sweep_has_a_workload_axis)
{
	lbt_spec sp;
	lbt_spec_init(&sp);
	lbt_err e;
	cr_assert_eq(lbt_spec_add(&sp, LBT_AX_METHOD, "lm-c5", &e), LBT_OK, "%s", e.msg);
	cr_assert_eq(lbt_spec_add(&sp, LBT_AX_SHAPE, "8x8", &e), LBT_OK, "%s", e.msg);
	cr_assert_eq(lbt_spec_add(&sp, LBT_AX_INIT, "const:0", &e), LBT_OK, "%s", e.msg);
	cr_assert_eq(lbt_spec_add(&sp, LBT_AX_UNTIL, "done", &e), LBT_OK, "%s", e.msg);
	cr_assert_eq(lbt_spec_add(&sp, LBT_AX_WORKLOAD, "tree:2:3..5,gw:2:0.4:10", &e), LBT_OK, "%s", e.msg);
	cr_assert_eq(sp.n[LBT_AX_WORKLOAD], 4);
	cr_assert_eq(lbt_spec_add(&sp, LBT_AX_WORKLOAD, "tree:2", &e), LBT_EINVAL);
	cr_assert_eq(lbt_spec_merge(&sp, NULL, 1, &e), LBT_OK, "%s", e.msg);
	lbt_plan pl;
	cr_assert_eq(lbt_plan_build(&pl, &sp, &e), LBT_OK, "%s", e.msg);
	cr_assert_eq(pl.n, 4);
	cr_assert(strstr(pl.run[0].key, " workload=tree:2:3 max_steps=") && strstr(pl.run[0].key, "seed=any"), "%s",
	          pl.run[0].key);
	cr_assert(strstr(pl.run[3].key, " workload=gw:2:0.4:10 ") && strstr(pl.run[3].key, "seed=1"), "%s", pl.run[3].key);
	lbt_plan_free(&pl);
	lbt_spec_free(&sp);
	/* the default, none, adds nothing to the key; a tree with a real-valued method is refused */
	lbt_spec_init(&sp);
	lbt_spec_add(&sp, LBT_AX_SHAPE, "8", &e);
	cr_assert_eq(lbt_spec_merge(&sp, NULL, 1, &e), LBT_OK, "%s", e.msg);
	cr_assert_eq(lbt_plan_build(&pl, &sp, &e), LBT_OK, "%s", e.msg);
	cr_assert_str_eq(pl.run[0].key, "method=lm-c5 shape=8 boundary=torus init=worst:5 until=balanced max_steps=1000000 seed=any");
	lbt_plan_free(&pl);
	lbt_spec_free(&sp);
	lbt_spec_init(&sp);
	lbt_spec_add(&sp, LBT_AX_SHAPE, "8", &e);
	lbt_spec_add(&sp, LBT_AX_METHOD, "fos", &e);
	lbt_spec_add(&sp, LBT_AX_INIT, "const:0", &e);
	lbt_spec_add(&sp, LBT_AX_WORKLOAD, "tree:2:3", &e);
	cr_assert_eq(lbt_spec_merge(&sp, NULL, 1, &e), LBT_OK, "%s", e.msg);
	cr_assert_eq(lbt_plan_build(&pl, &sp, &e), LBT_EINVAL);
	cr_assert(strstr(e.msg, "integer method"), "%s", e.msg);
	lbt_spec_free(&sp);
}

/* A sweep over workloads, and its report: a table per workload. */
Test(workload, sweep_and_report_keep_workloads_apart)
{
	char dir[256];
	th_tmpdir(dir, sizeof dir);
	char *out, *err;
	const char *sweep[] = {"sweep", "--results", "r.jsonl", "--shape", "8x8", "--method", "lm-c5", "--init", "const:0",
	                       "--until", "done", "--workload", "tree:2:3..4", "--quiet", NULL};
	cr_assert_eq(th_cli(dir, sweep, &out, &err), 0, "%s", err);
	free(out);
	free(err);
	const char *report[] = {"report", "r.jsonl", "--out", "r.md", NULL};
	cr_assert_eq(th_cli(dir, report, &out, &err), 0, "%s", err);
	char path[512];
	snprintf(path, sizeof path, "%s/r.md", dir);
	char *md = th_read(path, NULL);
	const char *a = strstr(md, "### Workload tree:2:3\n"), *b = strstr(md, "### Workload tree:2:4\n");
	cr_assert(a && b && a < b, "a table per workload:\n%s", md);
	cr_assert(strstr(a, "| lm-c5 | 8x8 | 64 | torus | const:0 | done | 1 |") < b &&
	          strstr(b, "| lm-c5 | 8x8 | 64 | torus | const:0 | done | 1 |"), "a row in each:\n%s", md);
	free(md);
	free(out);
	free(err);
	th_rm_tree(dir);
}

/* The workloads' logarithm (lbtorus/kernels.h: fdlibm's polynomial in basic
 * operations, so that every vector lane computes the same bits) is within
 * 2 ulp of libm's log, itself within 1 ulp, on every value 1 - u the
 * exponential arrivals take it of: m 2^-32, m = 1 .. 2^32 (a sample of
 * 2^22 of them, and the ends). */
Test(workload, log_unit_is_within_two_ulp_of_log)
{
	for (uint64_t m = 1; m <= (1ULL << 32); m += m < 64 || m > (1ULL << 32) - 64 ? 1 : 1021) {
		const double v = (double)m * 0x1p-32, want = log(v), got = lbt_log_unit(v);
		cr_assert(fabs(got - want) <= 2 * nextafter(fabs(want), INFINITY) - 2 * fabs(want) || got == want,
		          "log(%a): %a, libm %a", v, got, want);
	}
}

/* Cybenko's arrival distributions as the workloads draw them (the 32-bit
 * stream through the reference row kernel on a row of zeros with C = 0, so
 * the loads are the arrivals): the sample mean and variance of 2^20 PEs'
 * draws within 5 standard errors of the distribution's (header). */
Test(workload, arrivals_have_their_distributions_mean_and_variance)
{
	enum { N = 1 << 20 };
	double *x = malloc(N * sizeof *x);
	cr_assert(x);
	static const struct {
		int dist;
		double a, b, mean, var, mu4;
	} d[] = {
		{LBT_DIST_POISSON, 1, 0, 1, 1, 4},            /* mu4 = 3 lambda^2 + lambda */
		{LBT_DIST_POISSON, 37.5, 0, 37.5, 37.5, 3 * 37.5 * 37.5 + 37.5},
		{LBT_DIST_EXP, 2, 0, 2, 4, 9 * 16},            /* mu4 = 9 theta^4 */
		{LBT_DIST_NORMAL, 1, 3, 1, 9, 3 * 81},         /* mu4 = 3 sigma^4 */
		{LBT_DIST_UNIFORM, 3, 9, 6, 4, 28},            /* k = 7 values: (k^2-1)/12, (k^2-1)(3k^2-7)/240 */
		{LBT_DIST_BERNOULLI, 0.3, 0, 0.3, 0.21, 0.21 * (1 - 3 * 0.21)}, /* p q (1 - 3 p q) */
	};
	for (size_t k = 0; k < sizeof d / sizeof *d; k++) {
		lbt_wl_real r = {.dist = d[k].dist, .mu = d[k].a, .sigma = d[k].b, .C = 0};
		if (r.dist == LBT_DIST_POISSON)
			cr_assert_eq(lbt_poisson_init(&r.pt, d[k].a), LBT_OK);
		else if (r.dist == LBT_DIST_UNIFORM)
			lbt_wl_draw_init(&r.draw, (int64_t)d[k].a, (int64_t)d[k].b);
		else if (r.dist == LBT_DIST_BERNOULLI)
			lbt_wl_bernoulli_init(&r.draw, d[k].a);
		memset(x, 0, N * sizeof *x);
		lbt_wl_rsums s = {0};
		lbt_ref_wl_real_row(x, N, 12345, 0, lbt_rand_key(7, 3, 101), lbt_rand_key(7, 3, 107), &r, 0, &s);
		double mean = 0, var = 0;
		for (int j = 0; j < N; j++)
			mean += x[j];
		mean /= N;
		for (int j = 0; j < N; j++)
			var += (x[j] - mean) * (x[j] - mean);
		var /= N - 1;
		const double se_mean = sqrt(d[k].var / N), se_var = sqrt((d[k].mu4 - d[k].var * d[k].var) / N);
		cr_assert(fabs(mean - d[k].mean) < 5 * se_mean && fabs(var - d[k].var) < 5 * se_var,
		          "distribution %d (%g, %g): mean %.6f (want %g +- %.2g), variance %.6f (want %g +- %.2g)", d[k].dist,
		          d[k].a, d[k].b, mean, d[k].mean, 5 * se_mean, var, d[k].var, 5 * se_var);
		cr_assert(fabs(lbt_wl_fold(s.gen) - mean * N) <= 1e-9 * fabs(mean * N) + 1e-6, "the lanes' sum of the arrivals");
	}
	free(x);
}

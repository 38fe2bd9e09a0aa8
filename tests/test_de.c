/* test_de.c — dimension exchange (seed 002 §4): one sweep balances a
 * hypercube exactly (Theorem 4), the integer version ends within d, and on
 * tori the generalized exchange converges and conserves. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"

static void hypercube(char *shape, int d)
{
	strcpy(shape, "2");
	for (int i = 1; i < d; i++)
		strcat(shape, "x2");
}

/* Theorem 4: prod_i F_i = 2^-d U, so one sweep through the d dimensions (d of
 * Cybenko's iterations, one lbtorus step) leaves every PE with exactly the
 * mean. Integer loads below 2^31 halve without rounding for d <= 20. */
Test(cybenko1989, theorem4_hypercube_balanced_after_d_exchanges)
{
	for (int d = 1; d <= LBT_MAXD; d++)
		for (int seed = 1; seed <= 3; seed++) {
			char shape[64];
			hypercube(shape, d);
			lbt_setup set = {.shape = shape, .method = "de", .init = "uniform:0:1000000", .isa = "scalar",
			                 .seed = (uint64_t)seed, .threads = 1};
			lbt_state st;
			lbt_err e;
			cr_assert_eq(lbt_state_open(&st, &set, &e), LBT_OK, "%s", e.msg);
			int64_t P = lbt_shape_pes(&st.grid.shape), total = th_total(&st);
			lbt_counts k = {0};
			st.method->step(&st, &k);
			double *w = malloc((size_t)P * sizeof *w);
			lbt_field_export(&st.grid, lbt_grid_field(&st.grid, "real"), w);
			for (int64_t i = 0; i < P; i++)
				cr_assert_eq(w[i], (double)total / (double)P, "d = %d: PE %lld holds %.17g, mean %.17g", d,
				             (long long)i, w[i], (double)total / (double)P);
			free(w);
			lbt_state_close(&st);
		}
}

/* Integer dimension exchange on a hypercube of dimension d: each pair splits
 * its sum, the odd element staying with the PE that held more; after one
 * sweep max - min <= d. */
Test(cybenko1989, integer_hypercube_within_d_after_one_sweep)
{
	for (int d = 1; d <= LBT_MAXD; d++)
		for (int seed = 1; seed <= 20; seed++) {
			char shape[64];
			hypercube(shape, d);
			static const char *inits[] = {"uniform:0:1000", "uniform:0:3", "worst:7"};
			lbt_setup set = {.shape = shape, .method = "de-int", .init = inits[seed % 3], .isa = "scalar",
			                 .seed = (uint64_t)seed, .threads = 1};
			lbt_state st;
			lbt_err e;
			cr_assert_eq(lbt_state_open(&st, &set, &e), LBT_OK, "%s", e.msg);
			int64_t total = th_total(&st);
			lbt_counts k = {0};
			st.method->step(&st, &k);
			lbt_stats s;
			lbt_grid_stats(&st.grid, &s);
			cr_assert_eq(s.total, total);
			cr_assert_leq(s.max - s.min, d, "d = %d, %s seed %d: discrepancy %d after one sweep", d,
			              inits[seed % 3], seed, (int)(s.max - s.min));
			lbt_state_close(&st);
		}
}

/* Generalized to tori and meshes (edge-coloured matchings, lambda): the
 * real-valued version converges to uniform; the integer one conserves load
 * exactly, never goes negative, for lambda in (0, 1]. */
Test(cybenko1989, generalized_exchange_converges_on_tori)
{
	static const char *shapes[] = {"8", "7", "6x5", "4x4x4", "3x3"};
	for (size_t c = 0; c < 5; c++) {
		lbt_setup set = {.shape = shapes[c], .method = "de", .init = "uniform:0:100", .isa = "scalar", .seed = 2,
		                 .threads = 1};
		lbt_run_opts o = lbt_run_opts_default(); o.until = (lbt_until){LBT_UNTIL_REL, 0, 1e-9}; o.max_steps = 5000;
		lbt_summary r;
		lbt_state st;
		lbt_err e;
		cr_assert_eq(lbt_state_open(&st, &set, &e), LBT_OK, "%s", e.msg);
		cr_assert_eq(lbt_run(&st, &o, &r, &e), LBT_OK, "%s", e.msg);
		cr_expect(r.reached, "%s: rel %.3g after %lld steps", shapes[c], r.final_rel, (long long)r.steps);
		lbt_state_close(&st);
	}
}

Test(conservation, de_int_exact_and_non_negative)
{
	static const char *shapes[] = {"9", "8", "2", "5x4", "3x3", "2x2x2", "4x3x5"};
	static const char *bnds[] = {"torus", "mesh"};
	static const char *lambdas[] = {"0.5", "0.25", "1", "0.9"};
	static const char *inits[] = {"uniform:0:1", "uniform:0:50", "worst:5"};
	for (size_t a = 0; a < 7; a++)
		for (size_t b = 0; b < 2; b++)
			for (size_t l = 0; l < 4; l++)
				for (size_t c = 0; c < 3; c++) {
					lbt_setup set = {.shape = shapes[a], .boundary = bnds[b], .method = "de-int", .init = inits[c],
					                 .isa = "scalar", .seed = 5, .threads = 1, .params = {{"lambda", lambdas[l]}}};
					lbt_state st;
					lbt_err e;
					cr_assert_eq(lbt_state_open(&st, &set, &e), LBT_OK, "%s", e.msg);
					int64_t total = th_total(&st), P = lbt_shape_pes(&st.grid.shape);
					for (int t = 0; t < 20; t++) {
						lbt_counts k = {0};
						st.method->step(&st, &k);
						cr_assert_eq(th_total(&st), total, "%s %s lambda %s: total changed", shapes[a], bnds[b], lambdas[l]);
						int32_t *L = th_loads(&st);
						for (int64_t i = 0; i < P; i++)
							cr_assert_geq(L[i], 0, "%s %s lambda %s: negative load", shapes[a], bnds[b], lambdas[l]);
						free(L);
					}
					lbt_state_close(&st);
				}
}

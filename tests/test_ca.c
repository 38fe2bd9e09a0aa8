/* test_ca.c — Dickens's cellular-automaton diffusion (seed 004): proportion
 * 1/(max(y,n)+k), net transfers only; generations to equilibrium on the 5x5
 * torus with 2500 units at the centre (his Figures 5-8). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "helpers.h"

/* Generations until the standard deviation is within `rel` of its start
 * (Dickens ran "until the standard deviation ... is equal to zero"; in
 * doubles we stop at rel 1e-6, i.e. stddev below 5e-4 units), and the
 * communication time summed over generations (per generation the largest
 * net amount on one link, his calcmaxdelta). */
static int64_t generations(int k, double *comm)
{
	char kk[16];
	snprintf(kk, sizeof kk, "%d", k);
	lbt_setup set = {.shape = "5x5", .method = "ca", .init = "const:0", .isa = "scalar", .threads = 1, .params = {{"ca_k", kk}}};
	lbt_state st;
	lbt_err e;
	cr_assert_eq(lbt_state_open(&st, &set, &e), LBT_OK, "%s", e.msg);
	double w[25] = {0};
	w[12] = 2500; /* the centre, (2, 2) */
	lbt_field_import(&st.grid, lbt_grid_field(&st.grid, "real"), w);
	int64_t t = 0;
	double c = 0;
	for (;;) {
		lbt_stats s;
		lbt_field_stats(&st.grid, lbt_grid_field(&st.grid, "real"), 1, &s);
		if (s.stddev <= 1e-6 * 489.89794855663564) /* 2500 on one of 25: sqrt(2500^2/25 - 100^2) */
			break;
		cr_assert_lt(t, 10000, "k = %d does not converge", k);
		lbt_counts n = {0};
		st.method->step(&st, &n);
		c += n.link_max;
		t++;
	}
	lbt_state_close(&st);
	*comm = c;
	return t;
}

/* Seed 004, Figure 7: "equilibrium was reached in the fewest generations when
 * the k value was equal to one. A k value of zero required many more
 * generations ... Values greater than one also required progressively more." */
Test(dickens1992, fig7_k1_needs_fewest_generations)
{
	int64_t g[6];
	double comm[6];
	for (int k = 0; k <= 5; k++) {
		g[k] = generations(k, &comm[k]);
		fprintf(stderr, "ca 5x5 torus, 2500 at the centre: k = %d  %lld generations  communication time %.1f\n", k,
		        (long long)g[k], comm[k]);
	}
	for (int k = 0; k <= 5; k++)
		if (k != 1)
			cr_expect_lt(g[1], g[k], "k = 1 needs %lld generations, k = %d only %lld", (long long)g[1], k, (long long)g[k]);
	for (int k = 2; k <= 5; k++)
		cr_expect_lt(g[k - 1], g[k], "progressively more generations for k > 1");
}

/* Seed 004, Figure 8: "At a k value of zero, the most time was required,
 * almost twice as much as was required when a value of one was used. The
 * amount of communication time required decreased with increasing k." */
Test(dickens1992, fig8_communication_time_falls_with_k)
{
	double comm[6];
	for (int k = 0; k <= 5; k++)
		generations(k, &comm[k]);
	cr_expect(comm[0] / comm[1] > 1.7 && comm[0] / comm[1] < 2.2, "k = 0 needs %.1f, k = 1 %.1f: ratio %.2f", comm[0],
	          comm[1], comm[0] / comm[1]);
	for (int k = 1; k <= 5; k++)
		cr_expect_lt(comm[k], comm[k - 1], "communication time rises from k = %d to %d", k - 1, k);
}

/* Dickens's Figure 2: a ring of three, 9 units on one node, each node sends
 * half its work to each neighbour (k = 0, y = n = 2): 4.5 to each, one
 * generation later every node holds 3 — and the communication time of the
 * generation is 4.5 (two parallel packets), not 9. */
Test(dickens1992, fig2_trinary_ring_one_generation)
{
	lbt_setup set = {.shape = "3", .method = "ca", .init = "point:9", .isa = "scalar", .threads = 1, .params = {{"ca_k", "0"}}};
	lbt_state st;
	lbt_err e;
	cr_assert_eq(lbt_state_open(&st, &set, &e), LBT_OK, "%s", e.msg);
	lbt_counts n = {0};
	st.method->step(&st, &n);
	double w[3];
	lbt_field_export(&st.grid, lbt_grid_field(&st.grid, "real"), w);
	/* net transfers: 0 -> 1: 4.5 - 0; 1 -> 2: 0; 2 -> 0: 0 - 4.5 */
	cr_expect_float_eq(w[0], 0, 1e-15);
	cr_expect_float_eq(w[1], 4.5, 1e-15);
	cr_expect_float_eq(w[2], 4.5, 1e-15);
	cr_expect_float_eq(n.link_max, 4.5, 1e-15);
	cr_expect_float_eq(n.real_moved, 9, 1e-15);
	lbt_state_close(&st);
}

/* test_lm_paper.c — the Liquid model against seed 000's own examples:
 * Table 3's trajectory, §5's sharing time T = P - 1, and a hand-derived 2-D
 * step that fixes the order of substeps (axis 0 first) and the direction of
 * shifts (towards the higher index). */
#include <criterion/criterion.h>
#include <stdlib.h>

#include "helpers.h"

static void step(lbt_state *st)
{
	lbt_counts c = {0};
	st->method->step(st, &c);
}

Test(henrich1996, table3_lm_c5_ring_of_8)
{
	int64_t rows[19 * 9];
	int n = th_table("table3_lm_c5.csv", rows, 19, 9);
	cr_assert_eq(n, 19, "Table 3 has LM-C5 rows T = 0..18");
	lbt_state st;
	th_open(&st, "8", NULL, "lm-c5", "point:16", NULL);
	for (int t = 0; t < n; t++) {
		cr_assert_eq(rows[t * 9], t);
		int32_t *L = th_loads(&st);
		for (int i = 0; i < 8; i++)
			cr_assert_eq(L[i], rows[t * 9 + 1 + i], "Table 3, T=%d, P(%d): paper %lld, ours %d", t, i,
			             (long long)rows[t * 9 + 1 + i], L[i]);
		free(L);
		step(&st);
	}
	lbt_state_close(&st);
}

Test(henrich1996, table3_sharing_at_7_balance_at_18)
{
	lbt_state st;
	th_open(&st, "8", NULL, "lm-c5", "point:16", NULL);
	lbt_run_opts o = lbt_run_opts_default(); o.until = (lbt_until){LBT_UNTIL_BALANCED, 0, 0}; o.max_steps = 1000;
	lbt_summary s;
	lbt_err e;
	cr_assert_eq(lbt_run(&st, &o, &s, &e), LBT_OK, "%s", e.msg);
	cr_expect_eq(s.shared_step, 7, "§5: 'LM could already reach the load sharing goal after the seventh step'");
	cr_expect_eq(s.balanced_step, 18, "§5: 'After the 18-th step, LM has reached the load balancing goal'");
	cr_expect_eq(s.shifts, 18, "a ring step is one shift");
	lbt_state_close(&st);
}

/* §5: "The time effort of LM for load sharing amounts to T = P - 1", worst case. */
Test(henrich1996, ring_sharing_takes_p_minus_1, .timeout = 300)
{
	for (int64_t P = 2; P <= 2048; P++) {
		for (int c = 1; c <= 5; c += 4) {
			char shape[32], init[32];
			snprintf(shape, sizeof shape, "%lld", (long long)P);
			snprintf(init, sizeof init, "worst:%d", c);
			lbt_state st;
			th_open(&st, shape, NULL, "lm-c5", init, NULL);
			lbt_run_opts o = lbt_run_opts_default(); o.until = (lbt_until){LBT_UNTIL_SHARED, 0, 0}; o.max_steps = 10 * P;
			lbt_summary s;
			lbt_err e;
			cr_assert_eq(lbt_run(&st, &o, &s, &e), LBT_OK, "%s", e.msg);
			cr_assert_eq(s.shared_step, P - 1, "ring of %lld, c = %d: shared after %lld steps, paper P - 1",
			             (long long)P, c, (long long)s.shared_step);
			lbt_state_close(&st);
		}
	}
}

/* Hand-derived: 2x3 torus, 6 units on (0,0), LM-C5, one step.
 * Substep axis 0: (0,0)=6 >= (1,0)=0 shifts one down: (0,0)=5, (1,0)=1.
 * Substep axis 1: row 0 (5,0,0) -> (4,1,0); row 1 (1,0,0) -> (0,1,0). */
Test(definition1, two_d_step_runs_axis_0_first)
{
	lbt_state st;
	th_open(&st, "2x3", NULL, "lm-c5", "point:6", NULL);
	step(&st);
	int32_t *L = th_loads(&st);
	const int32_t want[6] = {4, 1, 0, 0, 1, 0};
	for (int i = 0; i < 6; i++)
		cr_assert_eq(L[i], want[i], "PE %d: want %d got %d", i, want[i], L[i]);
	free(L);
	lbt_state_close(&st);
}

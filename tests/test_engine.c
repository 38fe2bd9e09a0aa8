/* test_engine.c — the run engine (src/exec/): a deterministic run whose
 * state recurs stops as a cycle with its exact period (Henrich's C0..C2
 * and C3 never balancing the worst case, NNA's 2-D limit cycles), the
 * conservation law total after = total before + generated - completed with
 * a workload, the interrupt flag, and options only from
 * lbt_run_opts_default(). */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"

/* Run until balanced; it must stop as a cycle long before the cap, never
 * balanced, and the period must be the state's true smallest period: from
 * the final state, `period` more steps give it back, no fewer do. */
static void expect_cycle(const char *shape, const char *method, const char *init)
{
	lbt_state st;
	th_open(&st, shape, NULL, method, init, NULL);
	lbt_run_opts o = lbt_run_opts_default();
	o.max_steps = 1000000;
	lbt_summary s;
	lbt_err e;
	cr_assert_eq(lbt_run(&st, &o, &s, &e), LBT_OK, "%s", e.msg);
	cr_assert_eq(s.stop, LBT_STOP_CYCLE, "%s %s %s: stop %s after %lld steps", method, shape, init,
	             lbt_stop_name(s.stop), (long long)s.steps);
	cr_assert(!s.reached && s.balanced_step < 0);
	cr_assert(s.period >= 1 && s.steps < 100000, "%s %s: period %lld at step %lld", method, shape,
	          (long long)s.period, (long long)s.steps);
	int32_t *end = th_loads(&st);
	const int64_t P = lbt_shape_pes(&st.grid.shape);
	for (int64_t t = 1; t <= s.period; t++) {
		lbt_counts k = {0};
		st.method->step(&st, &k);
		int32_t *now = th_loads(&st);
		int same = !memcmp(now, end, (size_t)P * sizeof *now);
		free(now);
		cr_assert_eq(same, t == s.period, "%s %s %s: the state %s after %lld of the period %lld steps", method,
		             shape, init, same ? "recurs already" : "differs", (long long)t, (long long)s.period);
	}
	free(end);
	lbt_state_close(&st);
}

/* Henrich (Table 1): C0..C2 shift even when that cannot help, so the worst
 * case on a torus never balances: the load circulates. */
Test(engine, lm_c0_to_c2_worst_case_cycles)
{
	static const char *const m[] = {"lm-c0", "lm-c1", "lm-c2"};
	for (int i = 0; i < 3; i++) {
		expect_cycle("16x16", m[i], "worst:5");
		expect_cycle("64", m[i], "worst:5");
	}
}

/* C3 (L_i > 1 and L_i >= L_{i+1}) stops shifting single elements: on 16x16
 * with one element per PE on P0 it ends in a recurring state, unbalanced. */
Test(engine, lm_c3_worst_1_cycles)
{
	expect_cycle("16x16", "lm-c3", "worst:1");
}

/* NNA's rightward rounding (Henrich §5) can keep a 2-D torus oscillating. */
Test(engine, nna_2d_limit_cycle)
{
	expect_cycle("6x6", "nna", "point:100");
}

/* A converging run is never cut short: the headline reaches balanced at the
 * step the paper's bound allows, with cycle detection on. */
Test(engine, converging_run_is_not_a_cycle)
{
	lbt_state st;
	th_open(&st, "32x32", NULL, "lm-c5", "worst:5", "auto");
	lbt_run_opts o = lbt_run_opts_default();
	lbt_summary s;
	lbt_err e;
	cr_assert_eq(lbt_run(&st, &o, &s, &e), LBT_OK, "%s", e.msg);
	cr_assert(s.reached && s.stop == LBT_STOP_UNTIL && s.period == 0);
	lbt_state_close(&st);
}

/* A test workload: every step one element arrives at PE (0, ..., 0). `honest`
 * says whether it reports it. */
static int drip(void *ws, lbt_state *st, int64_t step, uint64_t seed, lbt_work_counts *c, lbt_err *e)
{
	(void)step, (void)seed, (void)e;
	st->grid.load[0] += 1;
	c->generated += *(const int *)ws;
	return LBT_OK;
}
static int honest = 1, liar = 0;
static int open_honest(void **ws, const lbt_state *st, lbt_err *e) { (void)st, (void)e; *ws = &honest; return LBT_OK; }
static int open_liar(void **ws, const lbt_state *st, lbt_err *e) { (void)st, (void)e; *ws = &liar; return LBT_OK; }

/* Conservation with a workload: total after = total before + generated - completed. */
Test(engine, conservation_counts_generated_load)
{
	const lbt_workload w = {.name = "drip", .summary = "one element per step at PE 0", .open = open_honest, .phase = drip};
	lbt_state st;
	th_open(&st, "8x8", NULL, "lm-c5", "worst:2", "auto");
	lbt_run_opts o = lbt_run_opts_default();
	o.workload = &w;
	o.until = (lbt_until){LBT_UNTIL_STEPS, 20, 0};
	lbt_summary s;
	lbt_err e;
	cr_assert_eq(lbt_run(&st, &o, &s, &e), LBT_OK, "%s", e.msg);
	cr_assert_eq(s.generated, 20);
	cr_assert_eq(th_total(&st), 2 * 64 + 20);
	lbt_state_close(&st);

	/* the same drip, unreported: the engine sees load appear from nowhere */
	const lbt_workload bad = {.name = "drip", .summary = "one element per step at PE 0, unreported", .open = open_liar,
	                         .phase = drip};
	th_open(&st, "8x8", NULL, "lm-c5", "worst:2", "auto");
	o.workload = &bad;
	cr_assert_eq(lbt_run(&st, &o, &s, &e), LBT_EINTERNAL);
	cr_assert(strstr(e.msg, "lost load at step 1"), "%s", e.msg);
	lbt_state_close(&st);
}

static void stop_at_5(void *ctx, const lbt_step_record *r)
{
	if (r->step == 5)
		*(volatile sig_atomic_t *)ctx = 1;
}

/* The interrupt flag ends the run after the current step, with a complete summary. */
Test(engine, interrupt_stops_after_the_current_step)
{
	volatile sig_atomic_t flag = 0;
	lbt_state st;
	th_open(&st, "16x16", NULL, "lm-c5", "worst:5", "auto");
	lbt_run_opts o = lbt_run_opts_default();
	o.interrupt = &flag;
	o.on_step = stop_at_5;
	o.ctx = (void *)&flag;
	lbt_summary s;
	lbt_err e;
	cr_assert_eq(lbt_run(&st, &o, &s, &e), LBT_OK, "%s", e.msg);
	cr_assert_eq(s.stop, LBT_STOP_INTERRUPTED);
	cr_assert(!s.reached);
	cr_assert_eq(s.steps, 5);
	lbt_stats g;
	lbt_grid_stats(&st.grid, &g);
	cr_assert(s.final_max == g.max && s.final_min == g.min && s.total == g.total);
	lbt_state_close(&st);
}

/* A zero-initialised options struct would run zero steps: it is refused. */
Test(engine, options_only_from_default)
{
	lbt_state st;
	th_open(&st, "8", NULL, "lm-c5", "point:16", NULL);
	lbt_run_opts z;
	memset(&z, 0, sizeof z);
	lbt_summary s;
	lbt_err e;
	cr_assert_eq(lbt_run(&st, &z, &s, &e), LBT_EINVAL);
	cr_assert(strstr(e.msg, "lbt_run_opts_default"), "%s", e.msg);
	lbt_run_opts o = lbt_run_opts_default();
	cr_assert_eq(lbt_run(&st, &o, &s, &e), LBT_OK, "%s", e.msg);
	cr_assert(s.reached && s.balanced_step == 18, "Table 3: balanced at step 18, got %lld", (long long)s.balanced_step);
	lbt_state_close(&st);
}

/* test_engine.c — the run engine (src/exec/): a deterministic run whose
 * state recurs stops as a cycle with its exact period (Henrich's C0..C2
 * and C3 never balancing the worst case, NNA's 2-D limit cycles), the
 * conservation law total after = total before + generated - completed with
 * a workload, the interrupt flag, options only from lbt_run_opts_default(),
 * and steps taken several a call (opts.batch) changing nothing. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
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

/* on_step raising the interrupt flag at step `at` */
typedef struct {
	volatile sig_atomic_t flag;
	int64_t at;
} stopper;
static void stop_at(void *ctx, const lbt_step_record *r)
{
	stopper *s = ctx;
	if (r->step == s->at)
		s->flag = 1;
}

/* LM-C5 on shape from init, interrupted at step `at`, until balanced, or
 * (batch) until steps:1000 with opts.batch; it must stop as interrupted. */
static void run_interrupted(lbt_state *st, const char *shape, const char *init, int64_t at, int batch, lbt_summary *s)
{
	stopper stop = {0, at};
	th_open(st, shape, NULL, "lm-c5", init, "auto");
	lbt_run_opts o = lbt_run_opts_default();
	if (batch)
		o.until = (lbt_until){.kind = LBT_UNTIL_STEPS, .steps = 1000};
	o.batch = batch;
	o.interrupt = &stop.flag;
	o.on_step = stop_at;
	o.ctx = &stop;
	lbt_err e;
	cr_assert_eq(lbt_run(st, &o, s, &e), LBT_OK, "%s", e.msg);
	cr_assert_eq(s->stop, LBT_STOP_INTERRUPTED);
}

/* The interrupt flag ends the run after the current step, with a complete summary. */
Test(engine, interrupt_stops_after_the_current_step)
{
	lbt_state st;
	lbt_summary s;
	run_interrupted(&st, "16x16", "worst:5", 5, 0, &s);
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

/* opts.batch lets the Liquid model take a run's steps several a call
 * (lbt_method.steps; with AVX-512 a 2-D grid whose loads fit bytes is
 * stepped in a byte copy): every step's record, the summary and the final
 * loads must be those of one step a call, on tori and meshes (where a pile
 * at the end outgrows bytes during a call), loads that fit bytes and loads
 * that do not, every condition, one and two threads, step counts around
 * the engine's 64 a call, and runs until shared, balanced or flat, where a
 * call must end where the run may (LM-C2 on 3x128 from uniform:0:5 cycles
 * with period 3: the detector's samples need the grid of their step). An
 * interrupt is honoured at the end of a call, with a summary that is the
 * grid's. */
typedef struct {
	int n;
	lbt_step_record r[400];
} rec_log;
static void log_step(void *ctx, const lbt_step_record *r)
{
	rec_log *l = ctx;
	cr_assert(l->n < 400);
	l->r[l->n++] = *r;
}

static void run_logged(const char *shape, const char *bnd, const char *method, const char *init, int threads,
                       const char *until, int batch, rec_log *log, lbt_summary *s, int32_t **loads)
{
	lbt_state st;
	th_open(&st, shape, bnd, method, init, "auto");
	st.threads = threads;
	lbt_run_opts o = lbt_run_opts_default();
	lbt_err e;
	cr_assert_eq(lbt_until_parse(&o.until, until, &e), LBT_OK, "%s", e.msg);
	o.max_steps = 390;
	o.batch = batch;
	o.on_step = log_step;
	o.ctx = log;
	log->n = 0;
	cr_assert_eq(lbt_run(&st, &o, s, &e), LBT_OK, "%s", e.msg);
	*loads = th_loads(&st);
	lbt_state_close(&st);
}

Test(engine, steps_several_a_call_change_nothing)
{
	static const char *const cases[][4] = {
		{"64x128", "torus", "uniform:0:100", "1"},    {"40x192", "mesh", "uniform:0:100", "1"},
		{"30x64", "mesh,torus", "uniform:100:125", "1"}, {"300x64", "torus,mesh", "uniform:0:125", "1"},
		{"32x128", "torus", "worst:1", "1"},          {"24x100", "torus", "uniform:0:9", "1"},
		{"520x512", "torus", "uniform:0:125", "2"},   {"300x512", "mesh", "uniform:0:9", "2"},
		{"32x64", "torus", "uniform:0:3", "1"},       {"3x128", "torus", "uniform:0:5", "1"},
	};
	static const char *const untils[] = {"steps:1", "steps:63", "steps:64", "steps:65", "steps:300", "balanced", "flat",
	                                     "shared", "shared+balanced"};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
		for (int c = 0; c < LBT_NCOND; c++)
			for (size_t u = 0; u < sizeof untils / sizeof *untils; u++) {
				char method[8];
				snprintf(method, sizeof method, "lm-c%d", c);
				const char *until = untils[u];
				static rec_log a, b;
				lbt_summary sa, sb;
				int32_t *la, *lb;
				run_logged(cases[i][0], cases[i][1], method, cases[i][2], atoi(cases[i][3]), until, 0, &a, &sa, &la);
				run_logged(cases[i][0], cases[i][1], method, cases[i][2], atoi(cases[i][3]), until, 1, &b, &sb, &lb);
				cr_assert_eq(b.n, a.n, "%s %s %s until %s: %d records, want %d", cases[i][0], method, cases[i][2],
				             until, b.n, a.n);
				for (int k = 0; k < a.n; k++)
					cr_assert(a.r[k].step == b.r[k].step && a.r[k].max == b.r[k].max && a.r[k].min == b.r[k].min &&
					          a.r[k].total == b.r[k].total && a.r[k].moved == b.r[k].moved &&
					          a.r[k].moved_total == b.r[k].moved_total && a.r[k].shifts == b.r[k].shifts &&
					          a.r[k].link_max == b.r[k].link_max,
					          "%s (%s) %s %s until %s: step %d's record differs", cases[i][0], cases[i][1], method,
					          cases[i][2], until, k);
				cr_assert(sa.steps == sb.steps && sa.moved == sb.moved && sa.shifts == sb.shifts &&
				          sa.final_max == sb.final_max && sa.final_min == sb.final_min && sa.stop == sb.stop &&
				          sa.shared_step == sb.shared_step && sa.balanced_step == sb.balanced_step &&
				          sa.flat_step == sb.flat_step && sa.period == sb.period,
				          "%s %s %s until %s: the summaries differ", cases[i][0], method, cases[i][2], until);
				lbt_shape sh;
				lbt_err e;
				cr_assert_eq(lbt_shape_parse(&sh, cases[i][0], &e), LBT_OK);
				cr_assert(!memcmp(la, lb, (size_t)lbt_shape_pes(&sh) * sizeof *la), "%s (%s) %s %s until %s: the "
				          "final loads differ", cases[i][0], cases[i][1], method, cases[i][2], until);
				free(la);
				free(lb);
			}
}

Test(engine, interrupt_with_steps_several_a_call)
{
	lbt_state st;
	lbt_summary s;
	lbt_err e;
	run_interrupted(&st, "64x128", "uniform:0:100", 3, 1, &s);
	cr_assert(s.steps >= 3 && s.steps < 1000, "stopped after %lld steps", (long long)s.steps);
	lbt_state ref;
	th_open(&ref, "64x128", NULL, "lm-c5", "uniform:0:100", NULL);
	lbt_run_opts r = lbt_run_opts_default();
	r.until = (lbt_until){.kind = LBT_UNTIL_STEPS, .steps = s.steps};
	lbt_summary rs;
	cr_assert_eq(lbt_run(&ref, &r, &rs, &e), LBT_OK, "%s", e.msg);
	int32_t *a = th_loads(&st), *b = th_loads(&ref);
	cr_assert(!memcmp(a, b, 64 * 128 * sizeof *a), "the grid is not at the step the summary reports (%lld)",
	          (long long)s.steps);
	cr_assert(s.final_max == rs.final_max && s.final_min == rs.final_min && s.moved == rs.moved);
	free(a);
	free(b);
	lbt_state_close(&st);
	lbt_state_close(&ref);
}

/* Without opts.batch (the default), on_step may read the grid: it is at
 * the step of the record. */
static void grid_is_at_record(void *ctx, const lbt_step_record *r)
{
	lbt_stats g;
	lbt_grid_stats(&((const lbt_state *)ctx)->grid, &g);
	cr_assert(g.max == r->max && g.min == r->min, "step %lld: the grid's max %g min %g, the record's %g %g",
	          (long long)r->step, (double)g.max, (double)g.min, r->max, r->min);
}

Test(engine, on_step_reads_the_grid_of_its_step)
{
	lbt_state st;
	th_open(&st, "64x128", NULL, "lm-c5", "uniform:0:100", "auto");
	lbt_run_opts o = lbt_run_opts_default();
	o.until = (lbt_until){.kind = LBT_UNTIL_STEPS, .steps = 200};
	o.on_step = grid_is_at_record;
	o.ctx = &st;
	lbt_summary s;
	lbt_err e;
	cr_assert_eq(lbt_run(&st, &o, &s, &e), LBT_OK, "%s", e.msg);
	lbt_state_close(&st);
}

/* Issue 31, item 7: the summary is JSON, which has no inf or nan: a value
 * that is not finite is written as null, never as the inf or nan printf
 * would write (rel_load_max was "inf" with --speeds const:1e308). */
Test(engine, a_summary_never_holds_a_non_finite_number)
{
	lbt_state st;
	th_open(&st, "8", NULL, "fos", "worst:5", NULL);
	lbt_run_opts o = lbt_run_opts_default();
	lbt_summary s;
	lbt_err e;
	cr_assert_eq(lbt_until_parse(&o.until, "steps:2", &e), 0);
	cr_assert_eq(lbt_run(&st, &o, &s, &e), LBT_OK, "%s", e.msg);
	s.final_max = INFINITY;
	s.final_min = -INFINITY;
	s.shifts = NAN;
	s.seconds = INFINITY;
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	lbt_summary_json(m, &st, "worst:5", &o, &s);
	fclose(m);
	cr_assert(!strstr(buf, "inf") && !strstr(buf, "nan"), "%s", buf);
	cr_assert(strstr(buf, "\"final_max\":null") && strstr(buf, "\"final_min\":null") && strstr(buf, "\"shifts\":null"),
	          "%s", buf);
	free(buf);
	lbt_state_close(&st);
}

/* de.c — Cybenko's dimension exchange (§4): per axis, each pair of
 * neighbours moves lambda times its difference, on real loads (de) or with
 * flows truncated towards zero (de-int). One parameter, lambda. */
#include <math.h>

#include "family.h"

static const lbt_param lambda[] = {
	{"lambda", NULL, LBT_PARAM_REAL, 0, 1, 1, NULL, "0.5",
	 "exchange parameter; 0.5: each pair balances exactly (Cybenko §4)"},
};

static void de_step(lbt_state *st, lbt_counts *c)
{
	lbt_view v;
	lbt_method_view(st, &v);
	st->kern->de_step(&v, st->param[0].num, c);
}

static void de_int_step(lbt_state *st, lbt_counts *c)
{
	lbt_view v;
	lbt_method_view(st, &v);
	st->kern->de_int_step(&v, st->param[0].num, c);
}

/* Cybenko's eq. (17): at step t the axis t mod D' of the D' axes with links
 * (on a hypercube: dimension (t mod d) + 1), counted on the whole torus (a
 * rank's slab may have extent 1 on the cut axis). Not LBT_M_DETERMINISTIC:
 * the next state depends on the step too (a step that moves nothing on its
 * axis says nothing of the next). */
static void de_axis_step(lbt_state *st, lbt_counts *c)
{
	lbt_view v;
	lbt_method_view(st, &v);
	const lbt_shape *s = &st->grid.whole;
	int active = lbt_shape_active_dims(s), k = (int)(st->step % (active ? active : 1));
	for (int d = 0; d < s->dims; d++)
		if (s->ext[d] >= 2 && k-- == 0) {
			st->kern->de_axis_step(&v, st->param[0].num, d, c);
			return;
		}
}

/* Several steps a call (the engine's batch): the kernel keeps the grid in
 * its own layout between them (kernels/simd/de.c, AVX2). */
static int steps_of(lbt_state *st, int kind, int n, const lbt_steps_stop *stop, lbt_counts *c)
{
	lbt_view v;
	lbt_method_view(st, &v);
	return st->kern->de_steps(&v, st->param[0].num, kind, n, stop, c);
}
static int de_steps(lbt_state *st, int n, int32_t max, const lbt_steps_stop *stop, lbt_counts *c)
{
	(void)max;
	return steps_of(st, LBT_DE_REAL, n, stop, c);
}
static int de_int_steps(lbt_state *st, int n, int32_t max, const lbt_steps_stop *stop, lbt_counts *c)
{
	(void)max;
	return steps_of(st, LBT_DE_INT, n, stop, c);
}
static int de_axis_steps(lbt_state *st, int n, int32_t max, const lbt_steps_stop *stop, lbt_counts *c)
{
	(void)max;
	return steps_of(st, LBT_DE_AXIS, n, stop, c);
}

#define CITE "G. Cybenko, Dynamic load balancing for distributed memory multiprocessors, J. Parallel Distrib. Comput., 1989: "

LBT_METHOD(lbt_de) = {
	.name = "de",
	.summary = "dimension exchange, real-valued loads",
	.citation = CITE "§4 (Theorem 4)",
	.load = LBT_LOAD_REAL,
	.flags = LBT_M_DETERMINISTIC | LBT_M_CUT | LBT_M_SCRATCH,
	.kernels = LBT_K(DE_STEP) | LBT_K(DE_STEPS),
	.bounded = LBT_UNBOUNDED,
	.params = lambda,
	.nparams = sizeof lambda / sizeof *lambda,
	.open = lbt_scratch_method_open,
	.step = de_step,
	.close = lbt_scratch_method_close,
	.steps = de_steps,
};

LBT_METHOD(lbt_de_int) = {
	.name = "de-int",
	.summary = "dimension exchange, integer flows truncated towards zero",
	.citation = CITE "§4",
	.load = LBT_LOAD_INT,
	.flags = LBT_M_DETERMINISTIC | LBT_M_CUT | LBT_M_SCRATCH,
	.kernels = LBT_K(DE_INT_STEP) | LBT_K(DE_STEPS),
	.bounded = LBT_BOUNDED,
	.params = lambda,
	.nparams = sizeof lambda / sizeof *lambda,
	.open = lbt_scratch_method_open,
	.step = de_int_step,
	.close = lbt_scratch_method_close,
	.steps = de_int_steps,
};

LBT_METHOD(lbt_de_axis) = {
	.name = "de-axis",
	.summary = "dimension exchange, one axis per step in turn, real-valued loads",
	.citation = CITE "eq. (17), Theorem 5",
	.load = LBT_LOAD_REAL,
	.flags = LBT_M_CUT | LBT_M_SCRATCH,
	.kernels = LBT_K(DE_AXIS_STEP) | LBT_K(DE_STEPS),
	.bounded = LBT_UNBOUNDED,
	.params = lambda,
	.nparams = sizeof lambda / sizeof *lambda,
	.open = lbt_scratch_method_open,
	.step = de_axis_step,
	.close = lbt_scratch_method_close,
	.steps = de_axis_steps,
};

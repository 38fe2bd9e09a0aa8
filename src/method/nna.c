/* nna.c — nearest-neighbour averaging as Henrich compares it with the Liquid
 * model: the net-flow form (eq. (3)/(5)) and the deficiency form (eq. (4)),
 * both with §5's integer rounding. No parameters; the workspace is the
 * vector kernel's scratch. */
#include "family.h"

static void nna_step(lbt_state *st, lbt_counts *c)
{
	lbt_view v;
	lbt_method_view(st, &v);
	st->kern->nna_step(&v, c);
}

static void nna_def_step(lbt_state *st, lbt_counts *c)
{
	lbt_view v;
	lbt_method_view(st, &v);
	st->kern->nna_def_step(&v, c);
}

#define CITE "D. Henrich, The liquid model load balancing method, Parallel Algorithms and Applications, 1996: "

LBT_METHOD(lbt_nna) = {
	.name = "nna",
	.summary = "nearest-neighbour averaging, net flow L_i/(|Δi|+1) - L_j/(|Δj|+1), rightward rounded up",
	.citation = CITE "§2.3 eq. (3)/(5), fn. 3, §5",
	.load = LBT_LOAD_INT,
	.flags = LBT_M_DETERMINISTIC | LBT_M_CUT | LBT_M_SCRATCH,
	.kernels = LBT_K(NNA_STEP),
	.bounded = LBT_UNBOUNDED,
	.open = lbt_scratch_method_open,
	.step = nna_step,
	.close = lbt_scratch_method_close,
};

LBT_METHOD(lbt_nna_def) = {
	.name = "nna-def",
	.summary = "deficiency-based NNA: surplus over the local mean to lower neighbours, by deficiency",
	.citation = CITE "§2.3 eq. (4), §5 rounding",
	.load = LBT_LOAD_INT,
	.flags = LBT_M_DETERMINISTIC | LBT_M_CUT | LBT_M_SCRATCH,
	.kernels = LBT_K(NNA_DEF_STEP),
	.bounded = LBT_UNBOUNDED,
	.open = lbt_scratch_method_open,
	.step = nna_def_step,
	.close = lbt_scratch_method_close,
};

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

const lbt_method lbt_nna = {
	"nna", "nearest-neighbour averaging, net flow L_i/(|Δi|+1) - L_j/(|Δj|+1), rightward rounded up",
	CITE "§2.3 eq. (3)/(5), fn. 3, §5", LBT_LOAD_INT, LBT_M_DETERMINISTIC | LBT_M_CONSERVATIVE | LBT_M_CUT | LBT_M_SCRATCH, LBT_UNBOUNDED, 0,
	NULL, 0, NULL, lbt_scratch_method_open, nna_step, lbt_scratch_method_close, NULL, NULL, NULL};

const lbt_method lbt_nna_def = {
	"nna-def", "deficiency-based NNA: surplus over the local mean to lower neighbours, by deficiency",
	CITE "§2.3 eq. (4), §5 rounding", LBT_LOAD_INT, LBT_M_DETERMINISTIC | LBT_M_CONSERVATIVE | LBT_M_CUT | LBT_M_SCRATCH, LBT_UNBOUNDED, 0,
	NULL, 0, NULL, lbt_scratch_method_open, nna_def_step, lbt_scratch_method_close, NULL, NULL, NULL};

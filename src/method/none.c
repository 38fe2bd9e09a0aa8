/* none.c — no balancing: a step moves nothing. The baseline of every
 * experiment with a workload (Cybenko 1989 after Theorem 2: without
 * balancing the deviation from the uniform distribution grows as
 * (t + 1) sigma^2 per PE). No parameters, no workspace, no kernel. */
#include "family.h"

static void none_step(lbt_state *st, lbt_counts *c)
{
	(void)st, (void)c;
}

LBT_METHOD(lbt_none) = {
	.name = "none",
	.summary = "no balancing: a step moves nothing (the baseline for workloads)",
	.citation = "G. Cybenko, Dynamic load balancing for distributed memory multiprocessors, "
	            "J. Parallel Distrib. Comput., 1989: eq. (12) with M = I",
	.load = LBT_LOAD_INT,
	.flags = LBT_M_DETERMINISTIC | LBT_M_CUT,
	.bounded = LBT_BOUNDED,
	.step = none_step,
};

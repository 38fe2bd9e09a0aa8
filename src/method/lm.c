/* lm.c — Henrich's Liquid model, the conditions C0..C5 of Table 1 with the
 * synchronous per-dimension update of Definition 1: one value per condition,
 * all stepping through the dispatch table's lm_step. No parameters, no
 * workspace. */
#include "family.h"

static void lm_step(lbt_state *st, lbt_counts *c)
{
	lbt_view v;
	lbt_state_view(st, &v);
	st->kern->lm_step(&v, st->method->variant, c);
	c->link_max = c->moved > 0; /* one element per link and substep */
}

#define CITE "D. Henrich, The liquid model load balancing method, Parallel Algorithms and Applications, 1996: "
#define LM(n, what) \
	const lbt_method lbt_lm_c##n = {"lm-c" #n, "Liquid model, shift while " what, CITE "Table 1 (C" #n "), Definition 1", \
	                                LBT_LOAD_INT, LBT_M_DETERMINISTIC | LBT_M_CONSERVATIVE, LBT_BOUNDED_TORUS, LBT_C##n, \
	                                NULL, 0, NULL, NULL, lm_step, NULL, NULL, NULL}

LM(0, "L_i > 0");
LM(1, "L_i > 1");
LM(2, "L_i > 1, or L_i = 1 and L_{i-1} > 1");
LM(3, "L_i > 1 and L_i >= L_{i+1}");
LM(4, "C2 holds and L_i >= L_{i+1}");
LM(5, "L_i > 0 and L_i >= L_{i+1}");

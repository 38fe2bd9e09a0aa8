/* lm.c — Henrich's Liquid model, the conditions C0..C5 of Table 1 with the
 * synchronous per-dimension update of Definition 1: one value per condition,
 * all stepping through the dispatch table's lm_step (and lm_steps, several
 * steps a call). No parameters; the workspace is lm_steps's cache. */
#include <stdlib.h>

#include "family.h"

static void lm_step(lbt_state *st, lbt_counts *c)
{
	lbt_view v;
	lbt_state_view(st, &v);
	st->kern->lm_step(&v, st->method->variant, c);
	c->link_max = c->moved > 0; /* one element per link and substep */
}

/* Several steps a call: with AVX-512, the rows of a 2-D grid whose loads
 * fit bytes are stepped in a byte copy (kernels/simd/lm.c, lm_steps), kept
 * in the workspace from call to call with when to look for one again; with
 * AVX2, a ring whose loads fit int16 lanes, in an int16 copy. */
static int lm_open(lbt_state *st, lbt_err *e)
{
	st->ws = calloc(1, sizeof(lbt_lm_cache));
	return st->ws ? LBT_OK : lbt_errf(e, LBT_ENOMEM, "%s: no memory for its workspace", st->method->name);
}
static void lm_close(lbt_state *st)
{
	lbt_lm_cache *cache = st->ws;
	if (cache)
		free(cache->mem);
	free(cache);
	st->ws = NULL;
}
static int lm_steps(lbt_state *st, int n, int32_t max, const lbt_steps_stop *stop, lbt_counts *c)
{
	lbt_view v;
	lbt_state_view(st, &v);
	const int done = st->kern->lm_steps(&v, st->method->variant, n, max, stop, st->ws, c);
	for (int s = 0; s < done; s++)
		c[s].link_max = c[s].moved > 0;
	return done;
}

#define CITE "D. Henrich, The liquid model load balancing method, Parallel Algorithms and Applications, 1996: "
#define LM(n, what) \
	LBT_METHOD(lbt_lm_c##n) = { \
		.name = "lm-c" #n, \
		.summary = "Liquid model, shift while " what, \
		.citation = CITE "Table 1 (C" #n "), Definition 1", \
		.load = LBT_LOAD_INT, \
		.flags = LBT_M_DETERMINISTIC | LBT_M_CUT, \
		.kernels = LBT_K(LM_STEP) | LBT_K(LM_STEPS), \
		.bounded = LBT_BOUNDED_TORUS, \
		.variant = LBT_C##n, \
		.open = lm_open, \
		.step = lm_step, \
		.close = lm_close, \
		.steps = lm_steps, \
	}

LM(0, "L_i > 0");
LM(1, "L_i > 1");
LM(2, "L_i > 1, or L_i = 1 and L_{i-1} > 1");
LM(3, "L_i > 1 and L_i >= L_{i+1}");
LM(4, "C2 holds and L_i >= L_{i+1}");
LM(5, "L_i > 0 and L_i >= L_{i+1}");

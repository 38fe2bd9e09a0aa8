/* lm.c — scalar reference of the Liquid model (seed 000, §3.2), the oracle
 * every vector kernel is checked against. Written to read like the paper:
 *
 *   Table 1:      C_{i,d} <=> "P_i shifts one load element to P_{i+1_d}"
 *   Definition 1: in every dimension d = 1..D successively, synchronously,
 *                 L_i(t+1) := L_i(t) + C_{i-1_d,d}(t) - C_{i,d}(t).
 *
 * All PEs of a substep evaluate their condition on the same state, so each
 * fiber is copied (with its halo) before it is rewritten. On a mesh axis the
 * last PE has no link to shift over and the first has no predecessor. */
#include <stdlib.h>

#include "../fiber.h"

/* Table 1: the shift condition of P_i, given L_{i-1}, L_i and L_{i+1}. */
static int shift_condition(int cond, int32_t l_prev, int32_t l, int32_t l_next, int has_prev, int has_next)
{
	if (!has_next)
		return 0;                                        /* mesh edge: no link */
	int c0 = l > 0;                                      /* P_i has load elements to transfer */
	int c1 = l > 1;                                      /* P_i is not idle after giving one away */
	int c2 = c1 || (l == 1 && has_prev && l_prev > 1);   /* ... or receives one from P_{i-1} */
	int not_less = l >= l_next;                          /* P_{i+1} has not more load */
	switch (cond) {
	case LBT_C0: return c0;
	case LBT_C1: return c1;
	case LBT_C2: return c2;
	case LBT_C3: return c1 && not_less;
	case LBT_C4: return c2 && not_less;
	default:     return c0 && not_less;                  /* C5 */
	}
}

void lbt_ref_lm_substep(const lbt_view *v, int axis, int cond, lbt_counts *c)
{
	const int64_t n = v->ext[axis], s = v->stride[axis], fibers = lbt_fiber_count(v, axis);
	const int torus = v->torus[axis];
	/* Local index i is global lo + i; a mesh has PEs at local -lo .. last only
	 * (a cut axis reads the neighbouring slabs in its halo; otherwise lo = 0
	 * and last = n - 1). */
	const int64_t lo = lbt_cut_on(v, axis) ? v->origin[axis] : 0;
	const int64_t last = lbt_gext(v, axis) - 1 - lo;
	int32_t *old = malloc((size_t)(n + 2 * LBT_HALO) * sizeof *old);
	if (!old) { /* a few KiB; the engine reports it */
		c->nomem = 1;
		return;
	}
	int32_t *L = old + LBT_HALO; /* L[-2..n+1]: the fiber before the substep */
	int64_t moved = 0;
	for (int64_t f = 0; f < fibers; f++) {
		int32_t *p = lbt_fiber_base(v, axis, f);
		for (int64_t i = -LBT_HALO; i < n + LBT_HALO; i++)
			L[i] = (torus || (i >= -lo && i <= last)) ? p[i * s] : 0;
		for (int64_t i = 0; i < n; i++) {
			int c_prev = (torus || i > -lo)
				? shift_condition(cond, L[i - 2], L[i - 1], L[i], torus || i > 1 - lo, 1) : 0;
			int c_self = shift_condition(cond, L[i - 1], L[i], L[i + 1], torus || i > -lo, torus || i < last);
			p[i * s] = L[i] - c_self + c_prev; /* Definition 1; giving first: no overflow at INT32_MAX */
			moved += c_self;
		}
	}
	free(old);
	c->moved += moved;
	c->shifts += 1; /* one synchronous transfer slot */
}

void lbt_ref_lm_step(const lbt_view *v, int cond, lbt_counts *c)
{
	for (int d = 0; d < v->dims; d++) {
		if (lbt_gext(v, d) < 2)
			continue; /* an extent-1 axis has no links */
		lbt_halo_fill(v, d); /* after a failure too: on a cut view the other ranks' fills wait for this one */
		if (!c->nomem)
			lbt_ref_lm_substep(v, d, cond, c);
	}
}

int lbt_ref_lm_steps(const lbt_view *v, int cond, int n, int32_t max, const lbt_steps_stop *stop,
                     lbt_lm_cache *cache, lbt_counts *c)
{
	(void)n;
	(void)max;
	(void)stop;
	(void)cache;
	*c = (lbt_counts){0};
	lbt_ref_lm_step(v, cond, c);
	return 1;
}

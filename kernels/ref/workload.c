/* workload.c — the scalar reference of the workload phase's kernel: Cybenko's
 * eq. (12) with Poisson arrivals on a row of integer loads, written as the
 * model reads (one draw, inverted, per PE), and the inversion's threshold
 * table its vector twin (kernels/simd/workload.c) counts against. */
#include <math.h>

#include "../internal.h"
#include "lbtorus/rng.h"

int lbt_poisson_init(lbt_poisson *t, double mu)
{
	if (!(mu > 0 && mu <= 100))
		return LBT_EINVAL;
	t->mu = mu;
	double p = exp(-mu), F = p; /* as lbt_rand_poisson sums them */
	for (int k = 0; k < LBT_POISSON_MAX; k++) {
		if (!(p > 0) || F >= 1) { /* the inversion stops here whatever the draw (u < 1) */
			t->K = k;
			return LBT_OK;
		}
		t->T[k] = (uint64_t)ceil(F * 0x1p53); /* exact: F 2^53 <= 2^53, a power-of-two scaling */
		p *= mu / (double)(k + 1);
		F += p;
	}
	return LBT_EINVAL; /* not reached for mu <= 100 */
}

void lbt_ref_wl_poisson_row(int32_t *x, int64_t n, int64_t i0, uint64_t seed, int64_t step, uint64_t purpose,
                            const lbt_poisson *p, int32_t C, uint64_t *m, uint64_t *eta, lbt_wl_counts *c)
{
	(void)m, (void)eta;
	for (int64_t j = 0; j < n; j++) {
		int64_t arrived = lbt_rand_poisson(lbt_rand(seed, (uint64_t)step, (uint64_t)(i0 + j), purpose), p->mu);
		int64_t have = (int64_t)x[j] + arrived, done = have < C ? have : C;
		c->overflow |= have - done > INT32_MAX;
		x[j] = (int32_t)(have - done);
		uint64_t q = (uint64_t)(uint32_t)x[j] * (uint32_t)x[j];
		c->sq_hi += q >> 32;
		c->sq_lo += q & 0xffffffffu;
		c->generated += arrived;
		c->completed += done;
		c->idle += C - done;
	}
}

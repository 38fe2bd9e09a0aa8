/* workload.c — the scalar references of the workload phase's kernels:
 * Cybenko's eq. (12) with Poisson, uniform or Bernoulli arrivals on a row of
 * integer loads, written as the model reads (one draw per PE, Poisson's
 * inverted), and Lüling and Monien's phases; and what their vector twins
 * (kernels/simd/workload.c) compare against: the inversion's threshold
 * table, Bernoulli's threshold. */
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

/* The update of one PE, with its counters. */
static void settle(int32_t *x, int64_t arrived, int32_t C, lbt_wl_counts *c)
{
	int64_t have = (int64_t)*x + arrived, done = have < C ? have : C;
	c->overflow |= have - done > INT32_MAX;
	*x = (int32_t)(have - done);
	uint64_t q = (uint64_t)(uint32_t)*x * (uint32_t)*x;
	c->sq_hi += q >> 32;
	c->sq_lo += q & 0xffffffffu;
	c->generated += arrived;
	c->completed += done;
	c->idle += C - done;
}

void lbt_ref_wl_poisson_row(int32_t *x, int64_t n, int64_t i0, uint64_t seed, int64_t step, uint64_t purpose,
                            const lbt_poisson *p, int32_t C, uint64_t *m, uint64_t *eta, lbt_wl_counts *c)
{
	(void)m, (void)eta;
	for (int64_t j = 0; j < n; j++) {
		int64_t arrived = lbt_rand_poisson(lbt_rand(seed, (uint64_t)step, (uint64_t)(i0 + j), purpose), p->mu);
		settle(x + j, arrived, C, c);
	}
}

void lbt_wl_draw_init(lbt_wl_draw *d, int64_t lo, int64_t hi)
{
	*d = (lbt_wl_draw){.lo = lo, .span = (uint64_t)(hi - lo) + 1};
}

void lbt_wl_bernoulli_init(lbt_wl_draw *d, double p)
{
	*d = (lbt_wl_draw){.p = p, .below = (uint64_t)ceil(p * 0x1p53)};
}

void lbt_ref_wl_draw_row(int32_t *x, int64_t n, int64_t i0, uint64_t seed, int64_t step, uint64_t purpose,
                         const lbt_wl_draw *d, int32_t C, lbt_wl_counts *c)
{
	for (int64_t j = 0; j < n; j++) {
		uint64_t r = lbt_rand(seed, (uint64_t)step, (uint64_t)(i0 + j), purpose);
		settle(x + j, d->span ? lbt_rand_range(r, d->lo, d->lo + (int64_t)d->span - 1) : lbt_rand_unit(r) < d->p, C, c);
	}
}

/* The threshold of u < g for u = lbt_rand_unit(r): (r >> 11) < ceil(g 2^53). */
static uint64_t below(double g) { return (uint64_t)ceil(g * 0x1p53); }

void lbt_ref_wl_phases_row(int32_t *x, int64_t n, int64_t i0, uint64_t seed, int64_t step, const lbt_wl_phases *p,
                           uint64_t *tg, uint64_t *tc, int64_t *end, lbt_wl_counts *c)
{
	const double *a = p->arg;
	const uint64_t t = (uint64_t)step;
	for (int64_t j = 0; j < n; j++) {
		const uint64_t i = (uint64_t)(i0 + j);
		if (step >= end[j]) {
			tg[j] = below(a[0] + (a[1] - a[0]) * lbt_rand_unit(lbt_rand(seed, t, i, p->purpose[0])));
			tc[j] = below(a[2] + (a[3] - a[2]) * lbt_rand_unit(lbt_rand(seed, t, i, p->purpose[1])));
			end[j] = step + lbt_rand_range(lbt_rand(seed, t, i, p->purpose[2]), (int64_t)a[4], (int64_t)a[5]);
		}
		int gen = lbt_rand(seed, t, i, p->purpose[3]) >> 11 < tg[j];
		int con = lbt_rand(seed, t, i, p->purpose[4]) >> 11 < tc[j];
		if (gen && x[j] == INT32_MAX) {
			c->overflow = 1;
			x[j] = -1;
			continue;
		}
		x[j] += gen;
		c->generated += gen;
		if (con && x[j] > 0) {
			x[j]--;
			c->completed++;
		} else if (con)
			c->idle++;
		uint64_t q = (uint64_t)(uint32_t)x[j] * (uint32_t)x[j];
		c->sq_hi += q >> 32;
		c->sq_lo += q & 0xffffffffu;
	}
}

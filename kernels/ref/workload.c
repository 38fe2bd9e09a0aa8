/* workload.c — the scalar references of the workload phase's kernels:
 * Cybenko's eq. (12) with Poisson, uniform or Bernoulli arrivals on a row of
 * integer loads, written as the model reads (one draw per PE, Poisson's
 * inverted), with every distribution on a row of real-valued loads, and
 * Lüling and Monien's phases; and what their vector twins
 * (kernels/simd/workload.c) compare against: the inversion's threshold
 * table, Bernoulli's threshold. Every draw is the workloads' 32-bit stream,
 * lbt_rand32 (lbtorus/rng.h). */
#include <math.h>

#include "../internal.h"
#include "lbtorus/rng.h"

int lbt_poisson_init(lbt_poisson *t, double mu)
{
	if (!(mu > 0 && mu <= 100))
		return LBT_EINVAL;
	t->mu = mu;
	double p = exp(-mu), F = p; /* as lbt_poisson32 sums them */
	for (int k = 0; k < LBT_POISSON_MAX; k++) {
		const double T = ceil(F * 0x1p32); /* exact: a power-of-two scaling */
		if (!(p > 0) || T >= 0x1p32) { /* the inversion stops here whatever the draw (r < 2^32) */
			t->K = k;
			return LBT_OK;
		}
		t->T[k] = (uint32_t)T;
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

void lbt_ref_wl_poisson_row(int32_t *x, int64_t n, int64_t rows, int64_t pitch, int64_t i0, uint64_t key,
                            const lbt_poisson *p, int32_t C, uint32_t *m, uint32_t *eta, lbt_wl_counts *c)
{
	(void)m, (void)eta;
	for (int64_t r = 0; r < rows; r++)
		for (int64_t j = 0; j < n; j++)
			settle(x + r * pitch + j, lbt_poisson32(lbt_rand32(key, (uint64_t)(i0 + r * n + j)), p->mu), C, c);
}

void lbt_wl_draw_init(lbt_wl_draw *d, int64_t lo, int64_t hi)
{
	*d = (lbt_wl_draw){.lo = lo, .span = (uint64_t)(hi - lo) + 1};
}

void lbt_wl_bernoulli_init(lbt_wl_draw *d, double p)
{
	*d = (lbt_wl_draw){.p = p, .below = (uint64_t)ceil(p * 0x1p32)};
}

/* One arrival of a uniform or Bernoulli draw d from r. */
static int64_t draw_int(const lbt_wl_draw *d, uint32_t r)
{
	return d->span ? lbt_range32(r, d->lo, d->lo + (int64_t)d->span - 1) : lbt_unit32(r) < d->p;
}

void lbt_ref_wl_draw_row(int32_t *x, int64_t n, int64_t i0, uint64_t key, const lbt_wl_draw *d, int32_t C,
                         lbt_wl_counts *c)
{
	for (int64_t j = 0; j < n; j++)
		settle(x + j, draw_int(d, lbt_rand32(key, (uint64_t)(i0 + j))), C, c);
}

void lbt_ref_wl_real_row(double *x, int64_t n, int64_t i0, int lane0, uint64_t key, uint64_t key2,
                         const lbt_wl_real *d, double shift, lbt_wl_rsums *s)
{
	for (int64_t j = 0; j < n; j++) {
		const uint32_t r = lbt_rand32(key, (uint64_t)(i0 + j));
		double eta;
		switch (d->dist) {
		case LBT_DIST_POISSON: eta = (double)lbt_poisson32(r, d->pt.mu); break;
		case LBT_DIST_UNIFORM:
		case LBT_DIST_BERNOULLI: eta = (double)draw_int(&d->draw, r); break;
		case LBT_DIST_EXP: eta = -d->mu * lbt_log_unit(1.0 - lbt_unit32(r)); break;
		default: {
			const double u2 = lbt_unit32(lbt_rand32(key2, (uint64_t)(i0 + j)));
			eta = d->mu + d->sigma * sqrt(-2.0 * lbt_log_unit(1.0 - lbt_unit32(r))) * cos(2.0 * M_PI * u2);
		}
		}
		x[j] += eta - d->C;
		const int l = (int)((lane0 + j) % LBT_WL_LANES);
		const double dv = x[j] - shift;
		s->gen[l] += eta;
		s->dev[l] += dv;
		s->sq[l] += dv * dv;
	}
}

/* The threshold of u < g for u = lbt_unit32(r): r < ceil(g 2^32). */
static uint64_t below(double g) { return (uint64_t)ceil(g * 0x1p32); }

/* A threshold kept mod 2^32 (kernels.h), with lo its phase's low bound: a 0
 * is 2^32 if lo > 0. */
static uint64_t kept(uint32_t t, double lo) { return t || !(lo > 0) ? t : (uint64_t)1 << 32; }

void lbt_ref_wl_phases_row(int32_t *x, int64_t n, int64_t i0, const lbt_wl_phases *p, uint32_t *tg,
                           uint32_t *tc, uint32_t *left, lbt_wl_counts *c)
{
	const double *a = p->arg;
	for (int64_t j = 0; j < n; j++) {
		const uint64_t i = (uint64_t)(i0 + j);
		if (!left[j]) {
			tg[j] = (uint32_t)below(a[0] + (a[1] - a[0]) * lbt_unit32(lbt_rand32(p->key[0], i)));
			tc[j] = (uint32_t)below(a[2] + (a[3] - a[2]) * lbt_unit32(lbt_rand32(p->key[1], i)));
			left[j] = (uint32_t)(lbt_range32(lbt_rand32(p->key[2], i), (int64_t)a[4], (int64_t)a[5]) - 1);
		} else
			left[j]--;
		int gen = lbt_rand32(p->key[3], i) < kept(tg[j], a[0]);
		int con = lbt_rand32(p->key[4], i) < kept(tc[j], a[2]);
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

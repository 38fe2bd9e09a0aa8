/* rng.h — a counter-based generator: the value for PE i at step t for purpose p
 * depends only on (seed, t, i, p), so runs reproduce across thread counts,
 * ISAs and decompositions. No state, no globals. */
#ifndef LBTORUS_RNG_H
#define LBTORUS_RNG_H

#include <math.h>
#include <stdint.h>

enum { LBT_RNG_INIT = 1 }; /* purposes; methods add their own */

static inline uint64_t lbt_mix64(uint64_t z)
{ /* SplitMix64's finalizer (Steele, Lea, Flood 2014) */
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static inline uint64_t lbt_rand(uint64_t seed, uint64_t t, uint64_t i, uint64_t p)
{
	uint64_t z = lbt_mix64(seed + 0x9e3779b97f4a7c15ULL * (p + 1));
	z = lbt_mix64(z ^ (t + 0x632be59bd9b4e019ULL));
	return lbt_mix64(z ^ (i * 0xd1b54a32d192ed03ULL + 0x8cb92ba72f3d8dd7ULL));
}

/* A uniform double in [0, 1): the top 53 bits of r times 2^-53. */
static inline double lbt_rand_unit(uint64_t r) { return (double)(r >> 11) * 0x1p-53; }

/* Poisson(mu) from one draw r, by inversion: the smallest k with
 * u < F_k = sum_{j<=k} e^-mu mu^j/j!, u = lbt_rand_unit(r), the F_k summed in
 * this order (p *= mu/k, F += p), and k stopping where p underflows to 0.
 * For 0 < mu <= 100 (e^-mu far from underflow). */
static inline int64_t lbt_rand_poisson(uint64_t r, double mu)
{
	double u = lbt_rand_unit(r), p = exp(-mu), F = p;
	int64_t k = 0;
	while (u >= F && p > 0) {
		k++;
		p *= mu / (double)k;
		F += p;
	}
	return k;
}

/* Integer uniform in [lo, hi] (hi - lo < 2^32) by multiply-shift, no rejection. */
static inline int64_t lbt_rand_range(uint64_t r, int64_t lo, int64_t hi)
{
	uint64_t span = (uint64_t)(hi - lo) + 1;
	return lo + (int64_t)(((r >> 32) * span) >> 32);
}

#endif

/* rng.h — counter-based generators: the value for PE i at step t for purpose
 * p depends only on (seed, t, i, p), so runs reproduce across thread counts,
 * ISAs and decompositions. No state, no globals. Two streams: lbt_rand, 64
 * bits a draw (initial loads, speeds, trees, the methods' own draws), and
 * the workloads' lbt_rand32 (formats version 4), 32 bits a draw, made so
 * that a vector of 32-bit lanes draws a PE per lane. */
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

/* lbt_rand's last round, for index i, on a key of its first two (lbt_rand_key,
 * below): lbt_rand(seed, t, i, p) = lbt_rand_at(lbt_rand_key(seed, t, p), i),
 * so a loop over i draws with one round each. */
static inline uint64_t lbt_rand_at(uint64_t key, uint64_t i)
{
	return lbt_mix64(key ^ (i * 0xd1b54a32d192ed03ULL + 0x8cb92ba72f3d8dd7ULL));
}

static inline uint64_t lbt_rand(uint64_t seed, uint64_t t, uint64_t i, uint64_t p)
{
	uint64_t z = lbt_mix64(seed + 0x9e3779b97f4a7c15ULL * (p + 1));
	z = lbt_mix64(z ^ (t + 0x632be59bd9b4e019ULL));
	return lbt_rand_at(z, i);
}

/* A uniform double in [0, 1): the top 53 bits of r times 2^-53. */
static inline double lbt_rand_unit(uint64_t r) { return (double)(r >> 11) * 0x1p-53; }

/* Integer uniform in [lo, hi] (hi - lo < 2^32) by multiply-shift, no rejection. */
static inline int64_t lbt_rand_range(uint64_t r, int64_t lo, int64_t hi)
{
	uint64_t span = (uint64_t)(hi - lo) + 1;
	return lo + (int64_t)(((r >> 32) * span) >> 32);
}

/* The workloads' stream: a 32-bit draw for PE i (i < 2^36) at step t for
 * purpose p is lbt_rand32(lbt_rand_key(seed, t, p), i). The key is
 * lbt_rand's first two SplitMix64 rounds, one per step and purpose; each PE
 * then costs two rounds of a 32-bit hash (C. Wellons's lowbias32, from his
 * hash prospector, 2018), the key's low half xored in before the first and
 * its high half (with the index's bits above 32) added before the second:
 * four 32-bit multiplies, which every x86 vector target has per lane. For a
 * fixed key it is a bijection of the index's low 32 bits, so the draws of
 * one step never repeat among 2^32 PEs. */
static inline uint64_t lbt_rand_key(uint64_t seed, uint64_t t, uint64_t p)
{
	uint64_t z = lbt_mix64(seed + 0x9e3779b97f4a7c15ULL * (p + 1));
	return lbt_mix64(z ^ (t + 0x632be59bd9b4e019ULL));
}

static inline uint32_t lbt_hash32(uint32_t x)
{
	x ^= x >> 16;
	x *= 0x7feb352du;
	x ^= x >> 15;
	x *= 0x846ca68bu;
	return x ^ (x >> 16);
}

/* The second round's key for indices with these bits above 32 (0 below 2^32). */
static inline uint32_t lbt_rand32_k2(uint64_t key, uint64_t i) { return (uint32_t)(key >> 32) ^ ((uint32_t)(i >> 32) * 0x9e3779b9u); }

static inline uint32_t lbt_rand32(uint64_t key, uint64_t i)
{
	return lbt_hash32(lbt_hash32((uint32_t)i ^ (uint32_t)key) + lbt_rand32_k2(key, i));
}

/* A uniform double in [0, 1) from a 32-bit draw: r 2^-32, exact. */
static inline double lbt_unit32(uint32_t r) { return (double)r * 0x1p-32; }

/* Poisson(mu) from one 32-bit draw, by inversion as lbt_rand_poisson: the
 * smallest k with u < F_k, u = lbt_unit32(r). For 0 < mu <= 100. */
static inline int64_t lbt_poisson32(uint32_t r, double mu)
{
	double u = lbt_unit32(r), p = exp(-mu), F = p;
	int64_t k = 0;
	while (u >= F && p > 0) {
		k++;
		p *= mu / (double)k;
		F += p;
	}
	return k;
}

/* Integer uniform in [lo, hi] (hi - lo < 2^32) from a 32-bit draw by multiply-shift. */
static inline int64_t lbt_range32(uint32_t r, int64_t lo, int64_t hi)
{
	uint64_t span = (uint64_t)(hi - lo) + 1;
	return lo + (int64_t)(((uint64_t)r * span) >> 32);
}

#endif

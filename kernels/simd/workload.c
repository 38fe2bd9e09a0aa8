/* workload.c — the workload phase's kernels for one ISA target: Cybenko's
 * eq. (12) on a row of integer loads with Poisson arrivals, and with uniform
 * or Bernoulli arrivals, and Lüling and Monien's phases (at the end), bit
 * for bit the references
 * (kernels/ref/workload.c). Poisson's inversion is a count of integer
 * thresholds (eta = #{k < K : m >= T_k}, no floating point: the same k as
 * the reference's loop, see lbt_poisson in kernels.h).
 *
 * For a small mean (at most one draw in 512 reaches the L-th threshold, L =
 * 2, 4, 6, 8, 12 or 16) one pass over blocks of the row does everything the
 * compiler vectorizes with this target's flags: the draws (64-bit
 * multiply-xorshift), the count against the first L thresholds held in
 * registers, the update with its counters and the sum of squares of the new
 * loads (exact integer sums); the rare draw at or above the L-th threshold
 * goes on counting in scalar code. A larger mean takes three passes over the
 * row: the draws, one pass per threshold below the row's largest draw, the
 * update. */
#include <math.h>

#include "simd.h"
#include "lbtorus/rng.h"

enum { BLOCK = 64 };

/* lbt_rand(seed, step, i, purpose) = lbt_mix64(z0 ^ (i MUL_I + ADD_J)) with z0 its
 * first two rounds, which do not depend on i. */
#define MUL_I 0xd1b54a32d192ed03ULL
#define ADD_J 0x8cb92ba72f3d8dd7ULL

static ALWAYS_INLINE uint64_t hoisted(uint64_t seed, int64_t step, uint64_t purpose)
{
	return lbt_mix64(lbt_mix64(seed + 0x9e3779b97f4a7c15ULL * (purpose + 1)) ^ ((uint64_t)step + 0x632be59bd9b4e019ULL));
}

/* The 64-bit multiplies of the draws are one instruction with AVX-512DQ,
 * which every CPU with AVX-512BW has (init.c asks the CPU all the same);
 * the emulated target (avx512emu, compiled for AVX2) has no AVX-512 at all. */
#if W == 16 && defined(__AVX512F__)
#define WL_FN __attribute__((target("avx512dq")))
#else
#define WL_FN
#endif

/* The update of PE x by eta arrivals: the counters, and its new load's
 * square as hi 2^32 + lo, each part a 32-bit number (their sums over a row
 * are exact for rows shorter than 2^32). The idle capacity is C per PE less
 * what was completed; top: the largest new load before its cast to int32. */
typedef struct {
	int64_t gen, comp, top;
	uint64_t hi, lo;
} sums;

static ALWAYS_INLINE int32_t update1(int32_t x, uint64_t eta, int32_t C, sums *s, int64_t sign)
{
	int64_t have = (int64_t)x + (int64_t)eta, done = have < C ? have : C, y = have - done;
	const uint32_t u = (uint32_t)y;
	const uint64_t q = (uint64_t)u * u;
	s->top = y > s->top ? y : s->top;
	s->hi += (uint64_t)sign * (q >> 32);
	s->lo += (uint64_t)sign * (q & 0xffffffffu);
	s->gen += sign * (int64_t)eta;
	s->comp += sign * done;
	return (int32_t)y;
}

static ALWAYS_INLINE void add_sums(lbt_wl_counts *c, const sums *s, int64_t n, int32_t C)
{
	c->generated += s->gen;
	c->completed += s->comp;
	c->idle += n * C - s->comp;
	c->overflow |= s->top > INT32_MAX;
	c->sq_hi += s->hi;
	c->sq_lo += s->lo;
}

/* One pass in blocks, thresholds 0..L-1 in registers (T[k] for k >= K: never
 * reached). A draw at the L-th threshold or above is counted as L at first;
 * the block then takes that PE's update back (the counters' sums are taken
 * mod 2^64, exact again once it is redone; top only grows with eta) and
 * redoes it from the PE's old load with the count gone on. */
static ALWAYS_INLINE WL_FN void fused(int32_t *x, int64_t n, int64_t i0, uint64_t z0, const lbt_poisson *p,
                                      int32_t C, lbt_wl_counts *c, const int L)
{
	int64_t T[16]; /* signed: T_k <= 2^53 (F_k < 1 for k < K), a draw < 2^53 (AVX2 compares signed lanes) */
	for (int k = 0; k < L; k++)
		T[k] = k < p->K ? (int64_t)p->T[k] : (int64_t)1 << 53;
	int32_t old[BLOCK];
	sums s = {0};
	for (int64_t j0 = 0; j0 < n; j0 += BLOCK) {
		const int64_t nb = n - j0 < BLOCK ? n - j0 : BLOCK;
		const uint64_t h0 = (uint64_t)(i0 + j0) * MUL_I + ADD_J;
		int32_t *xb = x + j0;
		uint64_t tail = 0;
		for (int64_t j = 0; j < nb; j++) {
			const int64_t r = (int64_t)(lbt_mix64(z0 ^ (h0 + (uint64_t)j * MUL_I)) >> 11);
			uint64_t e = 0;
			for (int k = 0; k < L; k++)
				e += r >= T[k];
			tail |= r >= T[L - 1];
			old[j] = xb[j];
			xb[j] = update1(xb[j], e, C, &s, 1);
		}
		for (int64_t j = 0; tail && j < nb; j++) { /* rare */
			const int64_t r = (int64_t)(lbt_mix64(z0 ^ (h0 + (uint64_t)j * MUL_I)) >> 11);
			uint64_t e = (uint64_t)L;
			if (!(r >= T[L - 1]))
				continue;
			while (e < (uint64_t)p->K && (uint64_t)r >= p->T[e])
				e++;
			update1(old[j], (uint64_t)L, C, &s, -1);
			xb[j] = update1(old[j], e, C, &s, 1);
		}
	}
	add_sums(c, &s, n, C);
}

WL_FN void LBT_SIMD_FN(lbt_simd_wl_poisson_row)(int32_t *x, int64_t n, int64_t i0, uint64_t seed, int64_t step,
                                          uint64_t purpose, const lbt_poisson *p, int32_t C, uint64_t *restrict m,
                                          uint64_t *restrict eta, lbt_wl_counts *c)
{
	const uint64_t z0 = hoisted(seed, step, purpose);
	const uint64_t rare = (1ULL << 53) - (1ULL << 44); /* a share 2^-9 of the draws lies at or above */
#define FUSED(L) if (p->K <= L || p->T[L - 1] >= rare) return fused(x, n, i0, z0, p, C, c, L)
	FUSED(2);
	FUSED(4);
	FUSED(6);
	FUSED(8);
	FUSED(12);
	FUSED(16);
#undef FUSED
	uint64_t top = 0;
	for (int64_t j = 0; j < n; j++) {
		m[j] = lbt_mix64(z0 ^ ((uint64_t)(i0 + j) * MUL_I + ADD_J)) >> 11;
		eta[j] = 0;
		top = m[j] > top ? m[j] : top;
	}
	for (int k = 0; k < p->K && p->T[k] <= top; k++) { /* thresholds above every draw count nothing */
		const uint64_t t = p->T[k];
		for (int64_t j = 0; j < n; j++)
			eta[j] += m[j] >= t;
	}
	sums s = {0};
	for (int64_t j = 0; j < n; j++)
		x[j] = update1(x[j], eta[j], C, &s, 1);
	add_sums(c, &s, n, C);
}

/* Uniform or Bernoulli arrivals: one pass, the draw a multiply-shift or one comparison. */
WL_FN void LBT_SIMD_FN(lbt_simd_wl_draw_row)(int32_t *x, int64_t n, int64_t i0, uint64_t seed, int64_t step,
                                             uint64_t purpose, const lbt_wl_draw *d, int32_t C, lbt_wl_counts *c)
{
	const uint64_t z0 = hoisted(seed, step, purpose), h0 = (uint64_t)i0 * MUL_I + ADD_J;
	const uint64_t lo = (uint64_t)d->lo, span = d->span, below = d->below;
	sums s = {0};
	if (span)
		for (int64_t j = 0; j < n; j++) {
			uint64_t r = lbt_mix64(z0 ^ (h0 + (uint64_t)j * MUL_I));
			x[j] = update1(x[j], lo + (((r >> 32) * span) >> 32), C, &s, 1);
		}
	else
		for (int64_t j = 0; j < n; j++) {
			uint64_t r = lbt_mix64(z0 ^ (h0 + (uint64_t)j * MUL_I));
			x[j] = update1(x[j], (r >> 11) < below, C, &s, 1);
		}
	add_sums(c, &s, n, C);
}

/* Phases: the PEs whose phase ends draw the next one (a share 1/length of
 * them: scalar), then one pass of two draws, the update and its sums. */
WL_FN void LBT_SIMD_FN(lbt_simd_wl_phases_row)(int32_t *x, int64_t n, int64_t i0, uint64_t seed, int64_t step,
                                               const lbt_wl_phases *p, uint64_t *restrict tg, uint64_t *restrict tc,
                                               int64_t *restrict end, lbt_wl_counts *c)
{
	const double *a = p->arg;
	uint64_t z[5];
	for (int k = 0; k < 5; k++)
		z[k] = hoisted(seed, step, p->purpose[k]);
	const uint64_t h0 = (uint64_t)i0 * MUL_I + ADD_J;
	for (int64_t j = 0; j < n; j++)
		if (step >= end[j]) {
			const uint64_t h = h0 + (uint64_t)j * MUL_I;
			tg[j] = (uint64_t)ceil((a[0] + (a[1] - a[0]) * lbt_rand_unit(lbt_mix64(z[0] ^ h))) * 0x1p53);
			tc[j] = (uint64_t)ceil((a[2] + (a[3] - a[2]) * lbt_rand_unit(lbt_mix64(z[1] ^ h))) * 0x1p53);
			end[j] = step + lbt_rand_range(lbt_mix64(z[2] ^ h), (int64_t)a[4], (int64_t)a[5]);
		}
	int64_t gen = 0, comp = 0, idle = 0, top = 0;
	uint64_t hi = 0, lo = 0;
	for (int64_t j = 0; j < n; j++) {
		const uint64_t h = h0 + (uint64_t)j * MUL_I;
		const int64_t g = lbt_mix64(z[3] ^ h) >> 11 < tg[j], k = lbt_mix64(z[4] ^ h) >> 11 < tc[j];
		int64_t y = (int64_t)x[j] + g;
		const int64_t ok = y <= INT32_MAX, done = k & (y > 0) & ok; /* an overflowing PE counts nothing */
		top = y > top ? y : top;
		y = ok ? y - done : -1;
		x[j] = (int32_t)y;
		uint64_t v = (uint32_t)y, q = v * v & (0 - (uint64_t)ok);
		hi += q >> 32;
		lo += q & 0xffffffffu;
		gen += g & ok;
		comp += done;
		idle += (k & ok) - done;
	}
	c->generated += gen;
	c->completed += comp;
	c->idle += idle;
	c->overflow |= top > INT32_MAX;
	c->sq_hi += hi;
	c->sq_lo += lo;
}

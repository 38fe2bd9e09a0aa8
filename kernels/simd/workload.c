/* workload.c — the workload phase's kernel for one ISA target: Cybenko's
 * eq. (12) with Poisson arrivals on a row of integer loads, bit for bit the
 * reference (kernels/ref/workload.c). Three passes the compiler vectorizes
 * with this target's flags: the draws (64-bit multiply-xorshift), the
 * inversion as a count of integer thresholds (eta = #{k < K : m >= T_k}, no
 * floating point: the same k as the reference's loop, see lbt_poisson in
 * kernels.h; the thresholds above the row's largest draw are skipped), and
 * the update with its counters (exact integer sums). */
#include "simd.h"
#include "lbtorus/rng.h"

void LBT_SIMD_FN(lbt_simd_wl_poisson_row)(int32_t *x, int64_t n, int64_t i0, uint64_t seed, int64_t step,
                                          uint64_t purpose, const lbt_poisson *p, int32_t C, uint64_t *restrict m,
                                          uint64_t *restrict eta, lbt_wl_counts *c)
{
	/* lbt_rand(seed, step, i, purpose) with the first two rounds hoisted: they do not depend on i */
	const uint64_t z0 = lbt_mix64(lbt_mix64(seed + 0x9e3779b97f4a7c15ULL * (purpose + 1)) ^
	                              ((uint64_t)step + 0x632be59bd9b4e019ULL));
	uint64_t top = 0;
	for (int64_t j = 0; j < n; j++) {
		m[j] = lbt_mix64(z0 ^ ((uint64_t)(i0 + j) * 0xd1b54a32d192ed03ULL + 0x8cb92ba72f3d8dd7ULL)) >> 11;
		eta[j] = 0;
		top = m[j] > top ? m[j] : top;
	}
	for (int k = 0; k < p->K && p->T[k] <= top; k++) { /* thresholds above every draw count nothing */
		const uint64_t t = p->T[k];
		for (int64_t j = 0; j < n; j++)
			eta[j] += m[j] >= t;
	}
	int64_t gen = 0, comp = 0, idle = 0, over = 0;
	for (int64_t j = 0; j < n; j++) {
		int64_t have = (int64_t)x[j] + (int64_t)eta[j], done = have < C ? have : C;
		over |= have - done > INT32_MAX;
		x[j] = (int32_t)(have - done);
		gen += (int64_t)eta[j];
		comp += done;
		idle += C - done;
	}
	c->generated += gen;
	c->completed += comp;
	c->idle += idle;
	c->overflow |= (int)over;
}

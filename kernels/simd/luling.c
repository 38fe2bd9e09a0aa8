/* luling.c — Lüling and Monien's randomized step (R. Lüling, B. Monien, "A
 * dynamic distributed load balancing algorithm with provable good
 * performance", SPAA 1993) for one ISA target, bit for bit the reference
 * kernels/ref/luling.c; checked by tests/checkasm/luling.c.
 *
 * What is data-parallel, and what is not. A step has three parts:
 *   1. the trigger test of every PE against its l_old, and the list of
 *      initiators in PE order: independent per PE, vectorized here (the
 *      reference's double comparisons, the same operations lane by lane);
 *   2. the Fisher-Yates shuffle of that list: its draws depend on the
 *      position alone and are drawn here with the key hoisted out of the
 *      loop (one SplitMix64 round a draw instead of three, lbt_rand_at);
 *      the swaps are a chain, each on the list the last one left;
 *   3. the operations, one initiator at a time: each reads the loads every
 *      earlier operation of the step left (its trigger is tested again, its
 *      partners may have been equalized a moment ago), so their order is
 *      the bits' and they run one after another, the reference's
 *      lbt_luling_operate (static inline in kernels/ref/luling.h: inlined
 *      in this loop; the draws' keys taken once a step). What this part
 *      waits for is memory: initiators and partners are PEs drawn at
 *      random over the torus, a cache miss each. Their PEs are known
 *      before their turn (the order is drawn, and a partner draw is a
 *      function of (seed, step, PE, k) alone), so this kernel prefetches
 *      the PE records of the operations a few turns ahead, and the list
 *      cells the shuffle's swaps are about to touch.
 * The loads are the grid's rows, read and written in place.
 * The step's last pass writes the loads back and measures their extremes
 * and sum on the way (the engine's reductions).
 * The class version (the Appendix's d_{i,j}, b_{i,j}: --borrow C >= 1, at
 * most 4096 PEs) keeps the reference: its work per operation is a pass
 * over the P classes whose rotating remainder pointer chains class to class.
 *
 * One thread: the operations are a chain, and the scan is a small part of
 * the step. */
#include <string.h>

#include "dv.h"
#include "../ref/luling.h"
#include "lbtorus/rng.h"

enum { BLOCK = 64, AHEAD = 8 };

/* Part 1 (the basic version): cur = the loads, and the initiators, in PE
 * order, into w->init; returns how many. */
static int64_t initiators(lbt_luling *w, const int32_t *load)
{
	const int64_t P = w->P, n = w->ext[w->dims - 1];
	const DV f = DSET1(w->f), finv = DSET1(w->finv), lo = DSET1(1 - 1e-12), hi = DSET1(1 + 1e-12);
	int32_t l[BLOCK + DW], old[BLOCK + DW];
	int64_t cnt = 0;
	for (int64_t r = 0; r < P / n; r++) {
		const int32_t *row = load + lbt_luling_row(w, r);
		for (int64_t c0 = 0; c0 < n; c0 += BLOCK) {
			const int64_t b = r * n + c0, len = n - c0 < BLOCK ? n - c0 : BLOCK;
			for (int64_t k = 0; k < len; k++) {
				l[k] = row[c0 + k];
				old[k] = w->pe[b + k].lold;
				w->pe[b + k].cur = l[k];
			}
			for (int64_t k = len; k < len + DW; k++)
				l[k] = old[k] = 0; /* no trigger: l = l_old */
			for (int64_t k = 0; k < len; k += DW) {
				const DV x = DLOADI(l + k), o = DLOADI(old + k); /* triggered() of the reference */
				const DV t = DAND(DNE(x, o), DOR(DGE(x, DMUL(DMUL(f, o), lo)), DLE(x, DMUL(DMUL(o, finv), hi))));
				for (unsigned bits = (unsigned)DANY(t); bits; bits &= bits - 1)
					w->init[cnt++] = b + k + __builtin_ctz(bits);
			}
		}
	}
	return cnt;
}

/* Part 2: the reference's Fisher-Yates, position a swapped with
 * lbt_rand_range(lbt_rand(seed, step, a, ORDER << 32), 0, a). */
static void shuffle(lbt_luling *w, int64_t n, uint64_t seed, int64_t step)
{
	const uint64_t key = lbt_rand_key(seed, (uint64_t)step, (uint64_t)LBT_LULING_ORDER << 32);
	int64_t r[AHEAD];
	for (int64_t a = n - 1; a > 0 && a > n - 1 - AHEAD; a--)
		r[a % AHEAD] = lbt_rand_range(lbt_rand_at(key, (uint64_t)a), 0, a);
	for (int64_t a = n - 1; a > 0; a--) {
		const int64_t j = r[a % AHEAD];
		if (a - AHEAD > 0) { /* the swap AHEAD turns on: its draw, and its cell */
			const int64_t x = lbt_rand_range(lbt_rand_at(key, (uint64_t)(a - AHEAD)), 0, a - AHEAD);
			r[(a - AHEAD) % AHEAD] = x;
			__builtin_prefetch(&w->init[x], 1);
		}
		const int64_t t = w->init[a];
		w->init[a] = w->init[j];
		w->init[j] = t;
	}
}

/* The PE records operation a will touch first: its initiator's and (global
 * partners) those of its first delta partner draws. Inlined always: GCC
 * takes a function of prefetches alone for a const one and drops its calls. */
static ALWAYS_INLINE void prefetch_op(const lbt_luling *w, int64_t i, const lbt_luling_keys *keys)
{
	__builtin_prefetch(&w->pe[i], 1);
	if (w->R)
		return;
	for (int k = 0; k < w->delta; k++) {
		int64_t x = lbt_rand_range(lbt_rand_at(keys->partner[k], (uint64_t)i), 0, w->P - 2);
		__builtin_prefetch(&w->pe[x + (x >= i)], 1);
	}
}

void LBT_SIMD_FN(lbt_simd_luling_step)(lbt_luling *w, int32_t *load, uint64_t seed, int64_t step, int64_t *packets,
                                       int64_t *hops)
{
	if (w->C) {
		lbt_ref_luling_step(w, load, seed, step, packets, hops);
		return;
	}
	memset(w->seen, 0, (size_t)((w->P + 63) / 64) * sizeof *w->seen);
	const int64_t ops = initiators(w, load);
	shuffle(w, ops, seed, step);
	lbt_luling_keys keys;
	lbt_luling_keys_init(&keys, w, seed, step);
	for (int64_t a = 0; a < ops && a < AHEAD; a++)
		prefetch_op(w, w->init[a], &keys);
	for (int64_t a = 0; a < ops; a++) {
		if (a + AHEAD < ops)
			prefetch_op(w, w->init[a + AHEAD], &keys);
		lbt_luling_operate(w, w->init[a], &keys, packets, hops);
	}
	const int64_t P = w->P, n = w->ext[w->dims - 1];
	int32_t mx = INT32_MIN, mn = INT32_MAX;
	int64_t total = 0;
	for (int64_t r = 0; r < P / n; r++) { /* the loads back, and the engine's reductions on the way */
		int32_t *row = load + lbt_luling_row(w, r);
		const lbt_luling_pe *pe = w->pe + r * n;
		for (int64_t c = 0; c < n; c++) {
			const int32_t v = pe[c].cur;
			row[c] = v;
			mx = v > mx ? v : mx;
			mn = v < mn ? v : mn;
			total += v;
		}
	}
	w->max = mx;
	w->min = mn;
	w->total = total;
}

/* luling.c — the scalar reference of Lüling and Monien's randomized dynamic
 * load balancing (SPAA 1993): §2 "Basic Model" and the Appendix's algorithm
 * with load classes d_{i,j} and borrowed packets b_{i,j}. One step:
 *
 *  1. (class version) the workload's change of PE i's load since the last
 *     step, l_i - sum_j d_{i,j}, entered packet by packet as the Appendix's
 *     x = +1 / x = -1 branches: all generations, then the consumptions of
 *     own-class packets, then the consumptions that borrow, in PE order;
 *  2. the trigger, own >= f l_old or own <= l_old / f (own: the load, or
 *     d_{i,i} in the class version), and own != l_old;
 *  3. the initiators, in PE order, shuffled by Fisher-Yates with draws from
 *     lbt_rand(seed, step, position, ORDER); each in turn re-tests its
 *     trigger (an earlier operation may have changed it: `cancelled`), draws
 *     delta distinct partners != itself, and equalizes the delta + 1 loads;
 *     the remainder units go to consecutive members (in the drawn order of
 *     the set) from a member drawn at random, so no member is favoured.
 *     That operation is in luling.h (lbt_luling_operate, static inline),
 *     written once for this file and the vector kernel.
 *
 * All draws depend on (seed, step, PE, purpose) only, and the operations run
 * one after another in the drawn order: the same bits for any thread count. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "luling.h"
#include "lbtorus/rng.h"

static uint64_t draw(uint64_t seed, int64_t step, int64_t pe, int purpose, uint64_t k)
{
	return lbt_rand(seed, (uint64_t)step, (uint64_t)pe, (uint64_t)purpose << 32 | k);
}

int64_t lbt_luling_distance(const lbt_luling *w, int64_t a, int64_t b)
{
	int64_t dist = 0;
	for (int d = w->dims - 1; d >= 0; d--) {
		int64_t n = w->ext[d], x = a % n, y = b % n, g = x > y ? x - y : y - x;
		if (w->torus[d] && n - g < g)
			g = n - g;
		dist += g;
		a /= n;
		b /= n;
	}
	return dist;
}

int64_t lbt_luling_offset_pe(const lbt_luling *w, int64_t i, const int32_t *o)
{
	int64_t c[LBT_LULING_MAXD], r = i;
	for (int d = w->dims - 1; d >= 0; d--) {
		c[d] = r % w->ext[d];
		r /= w->ext[d];
	}
	int64_t pe = 0;
	for (int d = 0; d < w->dims; d++) {
		int64_t x = c[d] + o[d];
		if (w->torus[d])
			x = ((x % w->ext[d]) + w->ext[d]) % w->ext[d];
		else if (x < 0 || x >= w->ext[d])
			return -1;
		pe = pe * w->ext[d] + x;
	}
	return pe;
}

void lbt_luling_classes(lbt_luling *w, const int64_t *set, const int64_t *at, int m, const lbt_luling_keys *keys,
                        int ptr)
{
	const int64_t P = w->P;
	int bptr = (int)lbt_rand_range(lbt_rand_at(keys->remainder[1], (uint64_t)set[0]), 0, m - 1);
	for (int a = 0; a < m; a++) {
		w->pe[at[a]].cur = 0;
		w->bsum[set[a]] = 0;
	}
	for (int64_t j = 0; j < P; j++) {
		int64_t D = 0, B = 0;
		for (int a = 0; a < m; a++) {
			D += w->d[set[a] * P + j];
			B += w->b[set[a] * P + j];
		}
		for (int a = 0; a < m; a++) {
			int64_t x = lbt_luling_share(D / m, D % m, m, a, ptr), y = lbt_luling_share(B / m, B % m, m, a, bptr);
			w->d[set[a] * P + j] = (int32_t)x;
			w->b[set[a] * P + j] = (uint8_t)y;
			w->pe[at[a]].cur += (int32_t)x;
			w->bsum[set[a]] += (int32_t)y;
		}
		ptr = (int)((ptr + D % m) % m);
		bptr = (int)((bptr + B % m) % m);
	}
	for (int a = 0; a < m; a++) {
		int64_t p = set[a];
		if (w->b[p * P + p]) { /* the Appendix's last line: simulate a decrease of b_{i,i} on i */
			w->b[p * P + p] = 0;
			w->bsum[p]--;
			w->stats.decrease_sim++;
		}
	}
}

int lbt_luling_trigger(const lbt_luling *w, int64_t own, int64_t lold)
{
	/* the factor f up to rounding: 10 <= 11 / 1.1 must hold although 11 / 1.1 rounds either way */
	double l = (double)own, old = (double)lold;
	return l != old && (l >= w->f * old * (1 - 1e-12) || l <= old * w->finv * (1 + 1e-12));
}

/* Class version: PE i consumes one packet although d_{i,i} = 0 (the
 * Appendix's x = -1 branch with d_{i,i} = 0). */
static void borrow(lbt_luling *w, int64_t i, uint64_t seed, int64_t step, uint64_t *k, int64_t *packets, int64_t *hops)
{
	const int64_t P = w->P;
	int32_t *di = w->d + i * P;
	uint8_t *bi = w->b + i * P;
	w->stats.total_borrow++;
	for (;;) {
		int64_t free_classes = 0;
		for (int64_t j = 0; j < P; j++)
			free_classes += di[j] > 0 && !bi[j];
		if (w->bsum[i] < w->C && free_classes > 0) { /* borrow from a class chosen at random */
			int64_t r = lbt_rand_range(draw(seed, step, i, LBT_LULING_BORROW, (*k)++), 0, free_classes - 1);
			for (int64_t j = 0; j < P; j++)
				if (di[j] > 0 && !bi[j] && r-- == 0) {
					bi[j] = 1;
					di[j]--;
					w->bsum[i]++;
					w->pe[i].cur--;
					return;
				}
		}
		/* C borrowed, or every class with packets here borrowed from: one debt
		 * (class chosen at random) is settled with its owner j */
		int64_t r = lbt_rand_range(draw(seed, step, i, LBT_LULING_DEBT, (*k)++), 0, w->bsum[i] - 1), j = 0;
		while (!bi[j] || r-- > 0)
			j++;
		if (w->d[j * P + j] > 0) { /* j sends a real packet of its class: a decrease on j */
			w->stats.remote_borrow++;
			w->stats.decrease_sim++;
			w->d[j * P + j]--;
			w->pe[j].cur--;
			di[j]++;
			w->pe[i].cur++;
			*packets += 1;
			*hops += lbt_luling_distance(w, j, i);
		} else /* j has none: the borrowed packet goes to j and is consumed there */
			w->stats.borrow_fail++;
		bi[j] = 0;
		w->bsum[i]--;
	}
}

/* Class version: enter the workload's changes since the last step. */
static void account(lbt_luling *w, const int32_t *load, uint64_t seed, int64_t step, int64_t *packets, int64_t *hops)
{
	const int64_t P = w->P;
	int64_t *need = w->init; /* consumptions still to enter, per PE */
	for (int64_t i = 0; i < P; i++) {
		int64_t delta = load[lbt_luling_at(w, i)] - w->pe[i].cur;
		need[i] = delta < 0 ? -delta : 0;
		for (; delta > 0; delta--) { /* x = +1: repay a borrowed packet (lowest class first), else own class */
			int64_t j = i;
			if (w->bsum[i] > 0)
				for (j = 0; !w->b[i * P + j]; j++)
					;
			if (j != i) {
				w->b[i * P + j] = 0;
				w->bsum[i]--;
			}
			w->d[i * P + j]++;
			w->pe[i].cur++;
		}
		int32_t o = (int32_t)(need[i] < w->d[i * P + i] ? need[i] : w->d[i * P + i]); /* x = -1 with d_{i,i} >= 1 */
		w->d[i * P + i] -= o;
		w->pe[i].cur -= o;
		need[i] -= o;
	}
	for (int64_t i = 0; i < P; i++) {
		uint64_t k = 0;
		for (; need[i] > 0; need[i]--)
			borrow(w, i, seed, step, &k, packets, hops);
	}
}

void lbt_luling_keys_init(lbt_luling_keys *keys, const lbt_luling *w, uint64_t seed, int64_t step)
{
	keys->seed = seed;
	keys->step = step;
	for (int k = 0; k < w->delta; k++)
		keys->partner[k] = lbt_rand_key(seed, (uint64_t)step, (uint64_t)LBT_LULING_PARTNER << 32 | (uint64_t)k);
	for (int k = 0; k < 2; k++)
		keys->remainder[k] = lbt_rand_key(seed, (uint64_t)step, (uint64_t)LBT_LULING_REMAINDER << 32 | (uint64_t)k);
}

void lbt_luling_apply(lbt_luling *w, const int64_t *set, const int64_t *at, const lbt_luling_keys *keys,
                      int64_t *packets, int64_t *hops)
{
	if (!lbt_luling_trigger(w, w->pe[at[0]].cur, w->pe[at[0]].lold)) {
		w->stats.cancelled++;
		return;
	}
	lbt_luling_carry(w, set, at, keys, packets, hops);
}

void lbt_luling_shuffle(int64_t *list, int64_t n, uint64_t seed, int64_t step)
{
	for (int64_t a = n - 1; a > 0; a--) { /* Fisher-Yates */
		int64_t r = lbt_rand_range(draw(seed, step, a, LBT_LULING_ORDER, 0), 0, a);
		int64_t t = list[a];
		list[a] = list[r];
		list[r] = t;
	}
}

void lbt_ref_luling_step(lbt_luling *w, int32_t *load, uint64_t seed, int64_t step, int64_t *packets, int64_t *hops)
{
	const int64_t P = w->P;
	memset(w->seen, 0, (size_t)((P + 63) / 64) * sizeof *w->seen);
	if (w->C)
		account(w, load, seed, step, packets, hops);
	else
		for (int64_t i = 0; i < P; i++)
			w->pe[i].cur = load[lbt_luling_at(w, i)];
	int64_t ops = 0;
	for (int64_t i = 0; i < P; i++)
		if (lbt_luling_triggered(w, i))
			w->init[ops++] = i;
	lbt_luling_shuffle(w->init, ops, seed, step);
	lbt_luling_keys keys;
	lbt_luling_keys_init(&keys, w, seed, step);
	for (int64_t a = 0; a < ops; a++)
		lbt_luling_operate(w, w->init[a], &keys, packets, hops);
	w->max = INT32_MIN;
	w->min = INT32_MAX;
	w->total = 0;
	for (int64_t i = 0; i < P; i++) {
		const int32_t v = load[lbt_luling_at(w, i)] = w->pe[i].cur;
		w->max = v > w->max ? v : w->max;
		w->min = v < w->min ? v : w->min;
		w->total += v;
	}
}

/* luling.h — the state and the step of Lüling and Monien's randomized
 * dynamic load balancing (R. Lüling, B. Monien, "A dynamic distributed load
 * balancing algorithm with provable good performance", SPAA 1993): §2's
 * basic algorithm and the Appendix's algorithm with load classes d_{i,j} and
 * borrowed packets b_{i,j}. The step works on the loads where the state's
 * strides say (the grid's rows, in place); docs/methods.md states the
 * semantics, including what the paper leaves open. Kernel-layer private: src/method/luling.c owns the set-up. */
#ifndef LBTORUS_KERNELS_REF_LULING_H
#define LBTORUS_KERNELS_REF_LULING_H

#include <stdint.h>

#include "lbtorus/kernels.h"
#include "lbtorus/rng.h"

#define LBT_LULING_MAXD 8 /* axes, as lbt_view has (shape.h's LBT_MAXD: checked in src/method/luling.c) */

/* The most PEs the class version takes: it keeps P^2 counters d (int32)
 * and P^2 flags b (uint8), 5 P^2 bytes (80 MiB at this limit). */
#define LBT_LULING_CLASS_MAX_PES 4096

/* What the method counted since it was opened. */
typedef struct {
	int64_t operations;   /* balancing operations performed (initiations that were carried out) */
	int64_t conflicts;    /* operations whose set shared a PE with an earlier operation of the same step */
	int64_t cancelled;    /* initiators whose trigger no longer held at their turn in the step's order */
	int64_t packets;      /* load packets that changed PE */
	int64_t hops;         /* sum over those packets of the torus distance they travelled */
	int64_t total_borrow; /* Table 1: consumptions that had to borrow (own class empty) */
	int64_t remote_borrow;/* Table 1: a borrowed packet exchanged with a real packet of its class's owner */
	int64_t borrow_fail;  /* Table 1: the owner had no packet of its class: the debt went to the owner */
	int64_t decrease_sim; /* Table 1: simulated load decreases that consumed borrowed packets */
} lbt_luling_stats;

/* The per-PE state: 8 bytes, aligned, so a random PE costs one cache line. */
typedef struct {
	int32_t cur;    /* the load as the step goes (class version: sum_j d_{i,j}) */
	int32_t lold;   /* l_old: the own load after the PE's last operation */
} lbt_luling_pe;

typedef struct lbt_luling_s {
	int64_t P;              /* PEs */
	int dims;
	int64_t ext[LBT_LULING_MAXD];
	int torus[LBT_LULING_MAXD];
	int64_t stride[LBT_LULING_MAXD]; /* the step's loads: PE (x_0, ..., x_{D-1}) at load[sum_d x_d stride[d]], stride[dims-1] = 1 */
	int delta;              /* partners per operation */
	double f, finv;         /* the trigger factor and 1/f */
	int C;                  /* 0: §2's algorithm; >= 1: the Appendix's, at most C borrowed packets per PE */
	int R;                  /* 0: partners anywhere; R >= 1: within torus distance R */
	int64_t noff;           /* local partners: the offsets with 1 <= |o|_1 <= R, each distinct PE once */
	int32_t *off;           /*   noff x dims */
	lbt_luling_pe *pe;      /* per PE, together: a random partner costs one cache line */
	uint64_t *seen;         /* a bit per record of pe: an operation of this step touched it (conflicts; the step clears it) */
	int32_t *d;             /* class version: d[i*P + j] = d_{i,j} */
	uint8_t *b;             /*   b[i*P + j] = b_{i,j} (0 or 1) */
	int32_t *bsum;          /*   sum_j b_{i,j} */
	int64_t *init;          /* scratch: the step's initiators */
	lbt_luling_stats stats;
	int32_t max, min;       /* the loads the last step left: their extremes */
	int64_t total;          /*   and their sum (the engine's reductions, taken in the step's last pass) */
	/* Called after every operation with its set (set[0] the initiator), m =
	 * delta + 1 members; NULL: nothing (the tests and Theorem 1's measurement
	 * look at the loads right after an operation). */
	void (*on_op)(void *ctx, const struct lbt_luling_s *w, const int64_t *set, int m);
	void *on_op_ctx;
} lbt_luling;

/* Purposes of the method's draws: lbt_rand(seed, step, PE, purpose << 32 | k). */
enum { LBT_LULING_ORDER = 201, LBT_LULING_PARTNER, LBT_LULING_REMAINDER, LBT_LULING_BORROW, LBT_LULING_DEBT };

/* The keys of the draws an operation makes, taken once a step:
 * lbt_rand(seed, step, i, p << 32 | k) = lbt_rand_at(key, i) with key =
 * lbt_rand_key(seed, step, p << 32 | k) (lbtorus/rng.h). */
typedef struct {
	uint64_t seed;
	int64_t step;
	uint64_t partner[63];  /* the partner draws k < delta (a further draw, after a duplicate, takes its own) */
	uint64_t remainder[2]; /* the remainder draws: k = 0, and k = 1 (the class version's borrowed packets) */
} lbt_luling_keys;

void lbt_luling_keys_init(lbt_luling_keys *keys, const lbt_luling *w, uint64_t seed, int64_t step);

/* Where row r of the loads starts (the PEs of flat index r n .. r n + n - 1,
 * n = ext[dims-1], in a row-major order of the whole torus): load[row + c]
 * is PE r n + c. */
static inline int64_t lbt_luling_row(const lbt_luling *w, int64_t r)
{
	int64_t at = 0;
	for (int d = w->dims - 2; d >= 0; d--) {
		at += r % w->ext[d] * w->stride[d];
		r /= w->ext[d];
	}
	return at;
}

/* Where flat PE i's load is: load[lbt_luling_at(w, i)]. */
static inline int64_t lbt_luling_at(const lbt_luling *w, int64_t i)
{
	const int64_t n = w->ext[w->dims - 1];
	return lbt_luling_row(w, i / n) + i % n;
}

/* One step on the loads (laid out as w->stride says, already changed by the
 * workload phase): the workload's changes entered into the class counters,
 * then every triggered operation in an order drawn from (seed, step). Adds
 * the packets and packet-hops of this step to *packets and *hops; the new
 * loads' extremes and sum into w->max, w->min, w->total. */
void lbt_ref_luling_step(lbt_luling *w, int32_t *load, uint64_t seed, int64_t step, int64_t *packets, int64_t *hops);

/* The parts of a step, for a torus cut between ranks (src/method/luling.c),
 * whose PE records are not all in one place:
 * whether a PE whose own load is `own` and l_old `lold` is triggered; */
int lbt_luling_trigger(const lbt_luling *w, int64_t own, int64_t lold);
/* the step's order of its n initiators (list: in PE order), drawn in place; */
void lbt_luling_shuffle(int64_t *list, int64_t n, uint64_t seed, int64_t step);
/* the operation of initiator set[0] with its partners set[1..delta] (flat
 * indices of the whole torus), as lbt_luling_operate makes it, the record
 * of PE set[x] at w->pe[at[x]], its bit of w->seen bit at[x] (the basic
 * version only, w->C = 0). */
void lbt_luling_apply(lbt_luling *w, const int64_t *set, const int64_t *at, const lbt_luling_keys *keys,
                      int64_t *packets, int64_t *hops);

/* Torus (or mesh) hop distance between the PEs of flat indices a and b. */
int64_t lbt_luling_distance(const lbt_luling *w, int64_t a, int64_t b);
/* The PE at offset o (dims entries) of PE i, or -1 off a mesh edge. */
int64_t lbt_luling_offset_pe(const lbt_luling *w, int64_t i, const int32_t *o);
/* The class version's equalizing of the set (set[0] the initiator), the
 * remainder dealt from member ptr on: every class d_{.,j} and b_{.,j}
 * within 1 over the set, the totals within 1 (units dealt in turn across
 * the classes: the paper's "snake like distribution"), and a member holding
 * a borrowed packet of its own class consumes it (a simulated decrease). */
void lbt_luling_classes(lbt_luling *w, const int64_t *set, const int64_t *at, int m, const lbt_luling_keys *keys,
                        int ptr);

/* The operation itself, below, is written once for the reference and the
 * vector kernel (kernels/simd/luling.c), which has it inlined in its loop. */

/* set[1..delta]: delta distinct PEs other than set[0], uniformly among all
 * PEs (R = 0) or among those within distance R; draws k = 0, 1, ... until
 * delta are distinct (a function of the draws alone, not of the loads). */
static inline void lbt_luling_partners(const lbt_luling *w, int64_t *set, const lbt_luling_keys *keys)
{
	int64_t i = set[0];
	uint64_t k = 0;
	for (int got = 1; got <= w->delta; k++) {
		uint64_t key = k < (uint64_t)w->delta
		                   ? keys->partner[k]
		                   : lbt_rand_key(keys->seed, (uint64_t)keys->step, (uint64_t)LBT_LULING_PARTNER << 32 | k);
		uint64_t r = lbt_rand_at(key, (uint64_t)i);
		int64_t x;
		if (w->R == 0) {
			x = lbt_rand_range(r, 0, w->P - 2);
			x += x >= i;
		} else if ((x = lbt_luling_offset_pe(w, i, w->off + lbt_rand_range(r, 0, w->noff - 1) * w->dims)) < 0)
			continue;
		int dup = 0;
		for (int m = 1; m < got; m++)
			dup |= set[m] == x;
		if (!dup)
			set[got++] = x;
	}
}

/* Member a's share when q m + rem units are dealt over the m members: q
 * each, and one more for the first rem in turn from member ptr on. */
static inline int64_t lbt_luling_share(int64_t q, int64_t rem, int m, int a, int ptr)
{
	const int turn = a < ptr ? a - ptr + m : a - ptr;
	return q + (turn < rem);
}

/* Move the loads of the set from before[] to cur[]: surplus members send to
 * deficit members, both in set order; counts packets and packet-hops. */
static inline void lbt_luling_transport(const lbt_luling *w, const int64_t *set, const int64_t *at,
                                        const int64_t *before, int m, int64_t *packets, int64_t *hops)
{
	int64_t give[64], take[64];
	for (int a = 0; a < m; a++) {
		int64_t diff = before[a] - w->pe[at[a]].cur;
		give[a] = diff > 0 ? diff : 0;
		take[a] = diff < 0 ? -diff : 0;
	}
	for (int a = 0, r = 0; a < m; a++)
		while (give[a] > 0) {
			while (take[r] == 0)
				r++;
			int64_t x = give[a] < take[r] ? give[a] : take[r];
			give[a] -= x;
			take[r] -= x;
			*packets += x;
			*hops += x * lbt_luling_distance(w, set[a], set[r]);
		}
}

/* The operation of a triggered initiator on its set (set[0] the
 * initiator), the records of the set's PEs at w->pe[at[x]]: the conflict
 * bits, the set equalized (basic version: the loads, each member's l_old
 * its new load; class version: lbt_luling_classes, the initiator's l_old
 * its own class), the loads' moves counted. */
static inline void lbt_luling_carry(lbt_luling *w, const int64_t *set, const int64_t *at, const lbt_luling_keys *keys,
                                    int64_t *packets, int64_t *hops)
{
	const int m = w->delta + 1;
	int64_t before[64], total = 0;
	int overlap = 0;
	for (int a = 0; a < m; a++) {
		uint64_t *word = &w->seen[at[a] >> 6], bit = (uint64_t)1 << (at[a] & 63);
		overlap |= (*word & bit) != 0;
		*word |= bit;
		before[a] = w->pe[at[a]].cur;
		total += before[a];
	}
	w->stats.conflicts += overlap;
	w->stats.operations++;
	const int ptr = (int)lbt_rand_range(lbt_rand_at(keys->remainder[0], (uint64_t)set[0]), 0, m - 1);
	if (w->C == 0) {
		const int64_t q = total / m, rem = total % m;
		for (int a = 0; a < m; a++)
			w->pe[at[a]].cur = w->pe[at[a]].lold = (int32_t)lbt_luling_share(q, rem, m, a, ptr);
	} else {
		lbt_luling_classes(w, set, at, m, keys, ptr);
		w->pe[at[0]].lold = w->d[set[0] * w->P + set[0]];
	}
	lbt_luling_transport(w, set, at, before, m, packets, hops);
	if (w->on_op)
		w->on_op(w->on_op_ctx, w, set, m);
}

/* Whether PE i's trigger holds (its own load: cur, or d_{i,i} in the class version). */
static inline int lbt_luling_triggered(const lbt_luling *w, int64_t i)
{
	return lbt_luling_trigger(w, w->C ? w->d[i * w->P + i] : w->pe[i].cur, w->pe[i].lold);
}

/* The operations of a step, one initiator at a time (the step's third part):
 * initiator i, if its trigger still holds (else `cancelled`), draws its
 * partners, and the set is equalized. */
static inline void lbt_luling_operate(lbt_luling *w, int64_t i, const lbt_luling_keys *keys, int64_t *packets,
                                      int64_t *hops)
{
	int64_t set[64];
	set[0] = i;
	if (!lbt_luling_triggered(w, i)) {
		w->stats.cancelled++;
		return;
	}
	lbt_luling_partners(w, set, keys);
	lbt_luling_carry(w, set, set, keys, packets, hops);
}

#endif

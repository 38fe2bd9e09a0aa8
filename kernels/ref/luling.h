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

/* One step on the loads (laid out as w->stride says, already changed by the
 * workload phase): the workload's changes entered into the class counters,
 * then every triggered operation in an order drawn from (seed, step). Adds
 * the packets and packet-hops of this step to *packets and *hops; the new
 * loads' extremes and sum into w->max, w->min, w->total. */
void lbt_ref_luling_step(lbt_luling *w, int32_t *load, uint64_t seed, int64_t step, int64_t *packets, int64_t *hops);

/* The operations of a step, one initiator at a time (the step's third part,
 * shared with the vector kernel kernels/simd/luling.c): initiator i, if its
 * trigger still holds (else `cancelled`), draws its partners, and the set
 * is equalized. */
void lbt_luling_operate(lbt_luling *w, int64_t i, const lbt_luling_keys *keys, int64_t *packets, int64_t *hops);

/* The parts of a step, for a torus cut between ranks (src/method/luling.c),
 * whose PE records are not all in one place:
 * whether a PE whose own load is `own` and l_old `lold` is triggered; */
int lbt_luling_trigger(const lbt_luling *w, int64_t own, int64_t lold);
/* set[1..delta]: the partners initiator set[0] draws (from the draws alone); */
void lbt_luling_partners(const lbt_luling *w, int64_t *set, const lbt_luling_keys *keys);
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

#endif

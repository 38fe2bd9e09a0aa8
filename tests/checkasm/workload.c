/* workload.c — the workload phase's row kernels (kernels/simd/workload.c
 * against kernels/ref/workload.c): loads and every counter bit for bit,
 * sums of squares, the real-valued lanes' sums and the phases' state
 * included. Each case's quick tier is a few of its parameter sets; the full
 * tier the rest. Rows start at global index 1000 n + 3, and (full tier) also
 * just below 2^32 so that they cross it, where the draws' second key
 * changes (lbt_rand32_k2). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checkasm.h"
#include "lbtorus/rng.h"

/* A row kernel's result against its reference's: the loads and every
 * counter, with `what` (the ISA and the case) in the message. */
static void same_row(const char *what, const int32_t *a, const int32_t *b, int n, const lbt_wl_counts *cr,
                     const lbt_wl_counts *cv)
{
	cr_assert(!memcmp(a, b, (size_t)n * sizeof *a) && cr->generated == cv->generated &&
	          cr->completed == cv->completed && cr->idle == cv->idle && cr->overflow == cv->overflow &&
	          cr->sq_hi == cv->sq_hi && cr->sq_lo == cv->sq_lo,
	          "%s on %s: loads %s, generated %lld/%lld, completed %lld/%lld, idle %lld/%lld, overflow %d/%d, "
	          "squares %llu:%llu/%llu:%llu", what, ck_new->isa, memcmp(a, b, (size_t)n * sizeof *a) ? "differ" : "equal",
	          (long long)cr->generated, (long long)cv->generated, (long long)cr->completed, (long long)cv->completed,
	          (long long)cr->idle, (long long)cv->idle, cr->overflow, cv->overflow, (unsigned long long)cr->sq_hi,
	          (unsigned long long)cr->sq_lo, (unsigned long long)cv->sq_hi, (unsigned long long)cv->sq_lo);
}

/* cybenko:poisson:MU:C on integer loads, for rows of every length to 70
 * and a few past two blocks of 64, means from 0.01 to the largest allowed
 * (100: each of the kernel's paths, a count against the first 2, 4, 6, 8,
 * 12, 16 thresholds and the pass per threshold), C = 0..3 and 50, loads
 * near 0 (idle capacity) and near INT32_MAX (the overflow flag), many steps
 * and seeds. The thresholds' count equals the reference's inversion loop by
 * construction (kernels.h); this checks it, and the sums of the new loads'
 * squares (issue 9: sqdev without a pass), with loads about 2^13 and 2^15
 * (where the vector kernel's squares leave 32-bit sums and 16-bit
 * multiplies) and rows over several of its blocks (64 vectors), one step all
 * loads about 2^13; one, two or three rows a call, n + 3 cells apart (the
 * cells between them must stay). Quick: means 0.5, 1 and 100. */
static void poisson(int quick)
{
	static const double mus[] = {0.01, 0.1, 0.5, 1, 2, 2.5, 4, 5, 7, 37.5, 100};
	static const int32_t Cs[] = {0, 1, 2, 3, 50};
	static const int ns[] = {127, 128, 129, 150, 1031, 2056};
	enum { NS = sizeof ns / sizeof *ns };
	enum { CELLS = 3 * (2056 + 3) };
	static int32_t a[CELLS], b[CELLS];
	uint32_t scratch[2 * 2056];
	for (size_t im = 0; im < sizeof mus / sizeof *mus; im++) {
		if ((im == 2 || im == 3 || im == 10) != quick)
			continue;
		lbt_poisson pt;
		cr_assert_eq(lbt_poisson_init(&pt, mus[im]), LBT_OK);
		cr_assert(pt.K > 0 && pt.K < LBT_POISSON_MAX);
		for (int in = 0; in < 70 + NS; in++)
			for (size_t ic = 0; ic < sizeof Cs / sizeof *Cs; ic++)
				for (int step = 0, n = in < 70 ? in + 1 : ns[in - 70]; step < 8; step++) {
					const int rows = 1 + (step + in) % 3, pitch = n + 3, cells = (rows - 1) * pitch + n;
					for (int j = 0; j < cells; j++) /* small loads, one near the top, one about 2^15, all about 2^13 */
						a[j] = b[j] = j == n / 2 && step == 5 ? INT32_MAX - 3
						            : j == n / 3 && step == 6 ? 32766 + (int32_t)(ic % 3)
						            : step == 7               ? 8190 + (int32_t)((j * 5) % 3)
						                                      : (int32_t)((j * 7 + step) % 4);
					lbt_wl_counts cr = {0}, cv = {0};
					const uint64_t key = lbt_rand_key(12345 + (uint64_t)n, (uint64_t)step, 101);
					const int64_t i0 = step % 2 && !quick ? ((int64_t)1 << 32) - n / 2 : 1000 * n + 3;
					call_ref(wl_poisson_row, a, n, rows, pitch, i0, key, &pt, Cs[ic], NULL, NULL, &cr);
					call_new(wl_poisson_row, b, n, rows, pitch, i0, key, &pt, Cs[ic], scratch, scratch + n, &cv);
					char what[96];
					snprintf(what, sizeof what, "poisson: mu %g, n %d x %d rows, C %d, step %d", mus[im], n, rows, Cs[ic],
					         step);
					same_row(what, a, b, cells, &cr, &cv);
				}
	}
}
static void poisson_quick(void)
{
	poisson(1);
	enum { N = 4096 };
	static int32_t x[N];
	static uint32_t m[N], eta[N];
	lbt_poisson pt;
	lbt_poisson_init(&pt, 1);
	lbt_wl_counts c = {0};
	bench_new(wl_poisson_row, 2000, x, N, 1, N, 0, lbt_rand_key(1, 0, 101), &pt, 1, m, eta, &c);
}
static void poisson_full(void) { poisson(0); }
CK_CASE(wl_poisson_row, poisson_quick, poisson_full);

/* cybenko:uniform:LO:HI:C and cybenko:bernoulli:P:C on integer loads, for
 * rows of every length to 70 and past two blocks of 64, ranges from one
 * value to the widest allowed (10^6), probabilities 0, 1, the smallest
 * double above 0 and the largest below 1 (the threshold's ends) and one
 * equal to a draw of the row (u < p there must be false), loads near
 * INT32_MAX (the overflow flag). Quick: the range 3..9 and p = 0.5. */
static void draw(int quick)
{
	static const int64_t ranges[][2] = {{0, 0}, {0, 1}, {0, 2}, {3, 9}, {0, 1000000}, {999999, 1000000}};
	static const double ps[] = {0, 0x1p-1074, 0.3, 0.5, 0x1.fffffffffffffp-1, 1};
	static const int32_t Cs[] = {0, 1, 3, 50};
	int32_t a[160], b[160];
	for (int id = 0; id < 13; id++) {
		if ((id == 3 || id == 9) != quick)
			continue;
		lbt_wl_draw d;
		if (id < 6)
			lbt_wl_draw_init(&d, ranges[id][0], ranges[id][1]);
		else if (id < 12)
			lbt_wl_bernoulli_init(&d, ps[id - 6]);
		for (int n = 1; n <= 150; n += n < 70 ? 1 : 19)
			for (size_t ic = 0; ic < sizeof Cs / sizeof *Cs; ic++)
				for (int step = 0; step < 6; step++) {
					for (int j = 0; j < n; j++)
						a[j] = b[j] = j == n / 2 && step == 5 ? INT32_MAX - 3 : (int32_t)((j * 7 + step) % 4);
					lbt_wl_counts cr = {0}, cv = {0};
					const uint64_t key = lbt_rand_key(777 + (uint64_t)n, (uint64_t)step, 101);
					const int64_t i0 = step % 2 && !quick ? ((int64_t)1 << 32) - n / 2 : 1000 * n + 3;
					if (id == 12) /* p = the draw of the row's PE n/2 */
						lbt_wl_bernoulli_init(&d, lbt_unit32(lbt_rand32(key, (uint64_t)(i0 + n / 2))));
					call_ref(wl_draw_row, a, n, i0, key, &d, Cs[ic], &cr);
					call_new(wl_draw_row, b, n, i0, key, &d, Cs[ic], &cv);
					char what[96];
					snprintf(what, sizeof what, "draw %d: n %d, C %d, step %d", id, n, Cs[ic], step);
					same_row(what, a, b, n, &cr, &cv);
				}
	}
}
static void draw_quick(void) { draw(1); }
static void draw_full(void) { draw(0); }
CK_CASE(wl_draw_row, draw_quick, draw_full);

/* phases:GL:GH:CL:CH:LENL:LENH over 12 consecutive steps, for rows of every
 * length to 70 and past two blocks of 64, phases of one step (redrawn every
 * step), of a few and of 10^9 steps, probabilities 0 and 1 at the ends,
 * lengths of 1 to 2^32 (lbt_range32's widest: the vector kernel's redraws
 * go lane by lane there), loads at 0 (idle capacity) and at INT32_MAX (the
 * overflow flag and the -1 left there), for the last three sets all about
 * 2^20 (every square past 2^32, in every lane of the vector kernel's 64-bit
 * products): the phases' state (thresholds and steps left) too. The state
 * starts at its edges, lane by lane: steps left 0 (a phase ends at once), 1
 * (one step more), 2 and 2^32 - 1 (no end in 12 steps), thresholds kept as
 * 0 (2^32 where the low bound is above 0, as in the first set, else 0, as
 * in the second and the last), 1, 2^31 and 2^32 - 1. Quick: the first set. */
static void phases(int quick)
{
	static const double args[][6] = {{0.1, 0.4, 0.1, 0.4, 2, 9}, {0, 1, 0, 1, 1, 1}, {1, 1, 0, 0, 1, 3},
	                                 {0.1, 0.9, 0.1, 0.7, 150, 400}, {0.5, 0.5, 1, 1, 1, 1e9},
	                                 {0.2, 0.6, 0.3, 0.3, 1, 0x1p32}, {0, 0.3, 0, 1, 2, 5}};
	static const uint32_t lefts[4] = {0, 1, 2, UINT32_MAX}, ts[4] = {0, 1, 1u << 31, UINT32_MAX};
	int32_t a[160], b[160];
	uint32_t ga[160], ca[160], gb[160], cb[160], ea[160], eb[160];
	for (size_t ia = 0; ia < sizeof args / sizeof *args; ia++) {
		if ((ia == 0) != quick)
			continue;
		lbt_wl_phases ph;
		memcpy(ph.arg, args[ia], sizeof ph.arg);
		for (int n = 1; n <= 150; n += n < 70 ? 1 : 19) {
			for (int j = 0; j < n; j++) {
				a[j] = b[j] = j == n / 3 ? INT32_MAX - 2 : (ia >= 3 && ia < 6 ? 1 << 20 : 0) + (int32_t)(j % 3);
				ea[j] = eb[j] = lefts[j % 4];
				ga[j] = gb[j] = ts[j / 4 % 4];
				ca[j] = cb[j] = ts[(j + j / 16) % 4];
			}
			for (int step = 0; step < 12; step++) {
				lbt_wl_counts cr = {0}, cv = {0};
				for (int k = 0; k < 5; k++)
					ph.key[k] = lbt_rand_key(99 + (uint64_t)n, (uint64_t)step, 102 + (uint64_t)k);
				const int64_t i0 = ia % 2 ? ((int64_t)1 << 32) - n / 2 : 1000 * n + 3;
				call_ref(wl_phases_row, a, n, i0, &ph, ga, ca, ea, &cr);
				call_new(wl_phases_row, b, n, i0, &ph, gb, cb, eb, &cv);
				cr_assert(!memcmp(ga, gb, (size_t)n * sizeof *ga) && !memcmp(ca, cb, (size_t)n * sizeof *ca) &&
				          !memcmp(ea, eb, (size_t)n * sizeof *ea), "phases %zu on %s, n %d, step %d: the phases' "
				          "state differs", ia, ck_new->isa, n, step);
				char what[96];
				snprintf(what, sizeof what, "phases %zu: n %d, step %d", ia, n, step);
				same_row(what, a, b, n, &cr, &cv);
			}
		}
	}
}
static void phases_quick(void) { phases(1); }
static void phases_full(void) { phases(0); }
CK_CASE(wl_phases_row, phases_quick, phases_full);

/* cybenko:DIST:C on real-valued loads, every distribution (exp and normal:
 * the logarithm lbt_log_unit, lane by lane; Poisson's means on both sides
 * of its fused paths), rows of every length to 70 and past two blocks of 8
 * lanes (an odd count of blocks: half of an AVX-512 vector), every lane the
 * row may start on (a ring cut between ranks), loads of both signs, and the
 * sums of the arrivals, deviations and squares lane by lane, bit for bit.
 * The edges: exp's mean tiny (arrivals below the normal range) and the
 * largest allowed, C = 0 and 10^6; uniform's widest span (2^32: the draw
 * itself) and a low bound at 2^53 (lo + q rounded, where the vector kernel
 * adds in doubles) and past it, odd (a bound no double holds: PE by PE
 * there); Bernoulli's 0, 1 and the
 * smallest double above 0; Poisson's smallest and largest means. Quick: the
 * first set of each distribution from lane 0. */
static void real(int quick)
{
	static const struct {
		int dist;
		double a0, a1, C;
	} sets[] = {{LBT_DIST_EXP, 1, 0, 1},         {LBT_DIST_EXP, 0.5, 0, 2},
	            {LBT_DIST_EXP, 1e-300, 0, 0},   {LBT_DIST_EXP, 1e6, 0, 1e6},
	            {LBT_DIST_NORMAL, 0, 1, 0.5},   {LBT_DIST_NORMAL, 5, 2.5, 5},
	            {LBT_DIST_UNIFORM, 3, 9, 4},    {LBT_DIST_UNIFORM, 0, 0, 0},
	            {LBT_DIST_UNIFORM, 0, 1e6, 1e6}, {LBT_DIST_UNIFORM, 5, 5 + 0x1p32 - 1, 1},
	            {LBT_DIST_UNIFORM, 0x1p53, 0x1p53 + 1e6, 3}, {LBT_DIST_UNIFORM, 0x1p60, 0x1p60 + 0x1p20, 3},
	            {LBT_DIST_BERNOULLI, 0.3, 0, 0}, {LBT_DIST_BERNOULLI, 0, 0, 1},
	            {LBT_DIST_BERNOULLI, 1, 0, 1},  {LBT_DIST_BERNOULLI, 0x1p-1074, 0, 0.5},
	            {LBT_DIST_POISSON, 100, 0, 99}, {LBT_DIST_POISSON, 0.01, 0, 0},
	            {LBT_DIST_POISSON, 2.5, 0, 1e6}};
	double a[160], b[160];
	for (size_t id = 0; id < sizeof sets / sizeof *sets; id++) {
		if ((id == 0 || sets[id].dist != sets[id - 1].dist) != quick)
			continue;
		lbt_wl_real d = {.dist = sets[id].dist, .mu = sets[id].a0, .sigma = sets[id].a1, .C = sets[id].C};
		if (d.dist == LBT_DIST_UNIFORM)
			lbt_wl_draw_init(&d.draw, (int64_t)sets[id].a0 | (sets[id].a0 > 0x1p53), (int64_t)sets[id].a1);
		else if (d.dist == LBT_DIST_BERNOULLI)
			lbt_wl_bernoulli_init(&d.draw, sets[id].a0);
		else if (d.dist == LBT_DIST_POISSON)
			cr_assert_eq(lbt_poisson_init(&d.pt, sets[id].a0), LBT_OK);
		for (int n = 1; n <= 150; n += n < 70 ? 1 : 19)
			for (int lane0 = 0; lane0 < (quick ? 1 : LBT_WL_LANES); lane0++)
				for (int step = 0; step < 3; step++) {
					for (int j = 0; j < n; j++)
						a[j] = b[j] = (double)((j * 7 + step) % 5) - 1.25;
					lbt_wl_rsums sr = {0}, sv = {0};
					const uint64_t key = lbt_rand_key(4242 + (uint64_t)n, (uint64_t)step, 101);
					const uint64_t key2 = lbt_rand_key(4242 + (uint64_t)n, (uint64_t)step, 107);
					const int64_t i0 = step == 2 && !quick ? ((int64_t)1 << 32) - n / 2 : 1000 * n + 3;
					call_ref(wl_real_row, a, n, i0, lane0, key, key2, &d, 0.75, &sr);
					call_new(wl_real_row, b, n, i0, lane0, key, key2, &d, 0.75, &sv);
					cr_assert(!memcmp(a, b, (size_t)n * sizeof *a) && !memcmp(&sr, &sv, sizeof sr),
					          "real %zu on %s, n %d, lane0 %d, step %d: %s differ", id, ck_new->isa, n, lane0, step,
					          memcmp(a, b, (size_t)n * sizeof *a) ? "loads" : "sums");
				}
	}
}
static void real_quick(void)
{
	real(1);
	enum { N = 4096 };
	static double x[N];
	lbt_wl_real d = {.dist = LBT_DIST_EXP, .mu = 1, .C = 1};
	lbt_wl_rsums s = {0};
	bench_new(wl_real_row, 1000, x, N, 0, 0, lbt_rand_key(1, 0, 101), lbt_rand_key(1, 0, 107), &d, 0, &s);
}
static void real_full(void) { real(0); }
CK_CASE(wl_real_row, real_quick, real_full);

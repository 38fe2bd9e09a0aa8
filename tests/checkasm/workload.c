/* workload.c — the workload phase's row kernels (kernels/simd/workload.c
 * against kernels/ref/workload.c): loads and every counter bit for bit,
 * sums of squares and the phases' state included. Each case's quick tier is
 * a few of its parameter sets; the full tier the rest. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checkasm.h"

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
 * squares (issue 9: sqdev without a pass). Quick: means 0.5 and 100. */
static void poisson(int quick)
{
	static const double mus[] = {0.01, 0.1, 0.5, 1, 2, 2.5, 4, 5, 7, 37.5, 100};
	static const int32_t Cs[] = {0, 1, 2, 3, 50};
	static const int ns[] = {127, 128, 129, 150};
	int32_t a[160], b[160];
	uint64_t scratch[320];
	for (size_t im = 0; im < sizeof mus / sizeof *mus; im++) {
		if ((im == 2 || im == 10) != quick)
			continue;
		lbt_poisson pt;
		cr_assert_eq(lbt_poisson_init(&pt, mus[im]), LBT_OK);
		cr_assert(pt.K > 0 && pt.K < LBT_POISSON_MAX);
		for (int in = 0; in < 74; in++)
			for (size_t ic = 0; ic < sizeof Cs / sizeof *Cs; ic++)
				for (int step = 0, n = in < 70 ? in + 1 : ns[in - 70]; step < 6; step++) {
					for (int j = 0; j < n; j++) /* small loads, and one near the top */
						a[j] = b[j] = j == n / 2 && step == 5 ? INT32_MAX - 3 : (int32_t)((j * 7 + step) % 4);
					lbt_wl_counts cr = {0}, cv = {0};
					const uint64_t seed = 12345 + (uint64_t)n;
					call_ref(wl_poisson_row, a, n, 1000 * n + 3, seed, step, 101, &pt, Cs[ic], NULL, NULL, &cr);
					call_new(wl_poisson_row, b, n, 1000 * n + 3, seed, step, 101, &pt, Cs[ic], scratch, scratch + n, &cv);
					char what[96];
					snprintf(what, sizeof what, "poisson: mu %g, n %d, C %d, step %d", mus[im], n, Cs[ic], step);
					same_row(what, a, b, n, &cr, &cv);
				}
	}
}
static void poisson_quick(void)
{
	poisson(1);
	enum { N = 4096 };
	static int32_t x[N];
	static uint64_t m[N], eta[N];
	lbt_poisson pt;
	lbt_poisson_init(&pt, 2);
	lbt_wl_counts c = {0};
	bench_new(wl_poisson_row, 200, x, N, 0, 1, 0, 101, &pt, 2, m, eta, &c);
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
					const uint64_t seed = 777 + (uint64_t)n;
					if (id == 12) /* p = the draw of the row's PE n/2 */
						lbt_wl_bernoulli_init(&d, lbt_rand_unit(lbt_rand(seed, (uint64_t)step,
						                                                 (uint64_t)(1000 * n + 3 + n / 2), 101)));
					call_ref(wl_draw_row, a, n, 1000 * n + 3, seed, step, 101, &d, Cs[ic], &cr);
					call_new(wl_draw_row, b, n, 1000 * n + 3, seed, step, 101, &d, Cs[ic], &cv);
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
 * loads at 0 (idle capacity) and at INT32_MAX (the overflow flag and the -1
 * left there): the phases' state (thresholds and ends) too. Quick: the
 * first set. */
static void phases(int quick)
{
	static const double args[][6] = {{0.1, 0.4, 0.1, 0.4, 2, 9}, {0, 1, 0, 1, 1, 1}, {1, 1, 0, 0, 1, 3},
	                                 {0.1, 0.9, 0.1, 0.7, 150, 400}, {0.5, 0.5, 1, 1, 1, 1e9}};
	int32_t a[160], b[160];
	uint64_t ga[160], ca[160], gb[160], cb[160];
	int64_t ea[160], eb[160];
	for (size_t ia = 0; ia < sizeof args / sizeof *args; ia++) {
		if ((ia == 0) != quick)
			continue;
		lbt_wl_phases ph = {.purpose = {102, 103, 104, 105, 106}};
		memcpy(ph.arg, args[ia], sizeof ph.arg);
		for (int n = 1; n <= 150; n += n < 70 ? 1 : 19) {
			for (int j = 0; j < n; j++) {
				a[j] = b[j] = j == n / 3 ? INT32_MAX - 2 : (int32_t)(j % 3);
				ea[j] = eb[j] = 0;
			}
			for (int step = 0; step < 12; step++) {
				lbt_wl_counts cr = {0}, cv = {0};
				const uint64_t seed = 99 + (uint64_t)n;
				call_ref(wl_phases_row, a, n, 1000 * n + 3, seed, step, &ph, ga, ca, ea, &cr);
				call_new(wl_phases_row, b, n, 1000 * n + 3, seed, step, &ph, gb, cb, eb, &cv);
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

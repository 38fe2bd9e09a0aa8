/* test_luling.c — Lüling and Monien's randomized dynamic balancing (R.
 * Lüling, B. Monien, "A dynamic distributed load balancing algorithm with
 * provable good performance", SPAA 1993). The loads are changed here between
 * method steps, as a workload phase would: PE 0 alone generating (§3's
 * one-processor-generator model), or every PE generating and consuming at
 * random (§7). */
#include <criterion/criterion.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"
#include "exp/luling_theory.h"
#include "method/luling.h"

static void open_lm(lbt_state *st, const char *shape, const char *init, const char *f, const char *delta,
                    const char *borrow, const char *partners, uint64_t seed, int threads)
{
	lbt_setup set = {.shape = shape, .method = "luling-monien", .init = init, .isa = "scalar", .seed = seed,
	                 .threads = threads,
	                 .params = {{"f", f}, {"delta", delta}, {"borrow", borrow}, {"partners", partners}}};
	lbt_err e;
	cr_assert_eq(lbt_state_open(st, &set, &e), LBT_OK, "%s", e.msg);
}

static void step(lbt_state *st)
{
	lbt_counts k = {0};
	st->method->step(st, &k);
	st->step++;
}

/* Every PE generates one packet with probability g and consumes one (if it
 * has any) with probability c: §7's process with fixed probabilities. */
static void churn(lbt_state *st, double g, double c)
{
	int64_t P = lbt_shape_pes(&st->grid.shape);
	int32_t *l = th_loads(st);
	for (int64_t i = 0; i < P; i++) {
		double u = (double)(lbt_rand(st->seed ^ 0x7e57, (uint64_t)st->step, (uint64_t)i, 1) >> 11) * 0x1p-53;
		if (u < g)
			l[i]++;
		else if (u < g + c && l[i] > 0)
			l[i]--;
	}
	th_set(st, l);
	free(l);
}

/* The one-generator model: PE 0 generates until its trigger holds, i.e. one
 * packet per step up to the first load >= f l_old. Nothing else happens in
 * between, so jumping there is the same process with fewer steps. */
static void generate_to_trigger(lbt_state *st)
{
	lbt_luling *w = lbt_luling_of(st);
	int32_t *l = th_loads(st);
	int64_t target = (int64_t)ceil(w->f * (double)w->pe[0].lold * (1 - 1e-12));
	l[0] = (int32_t)(target > w->pe[0].lold ? target : w->pe[0].lold + 1);
	th_set(st, l);
	free(l);
}

/* Per operation: the set is delta + 1 distinct PEs, the initiator first,
 * within distance R if local; the loads are within 1 of each other; in the
 * class version every class d_{.,j} is within 1. */
typedef struct {
	int64_t ops;
	int R;
} op_check;

static void check_op(void *ctx, const lbt_luling *w, const int64_t *set, int m)
{
	op_check *oc = ctx;
	oc->ops++;
	cr_assert_eq(m, w->delta + 1);
	int64_t lo = INT64_MAX, hi = INT64_MIN;
	for (int a = 0; a < m; a++) {
		for (int b = 0; b < a; b++)
			cr_assert_neq(set[a], set[b], "a PE twice in one operation's set");
		if (oc->R)
			cr_assert_leq(lbt_luling_distance(w, set[0], set[a]), oc->R, "a partner beyond distance R");
		lo = w->pe[set[a]].cur < lo ? w->pe[set[a]].cur : lo;
		hi = w->pe[set[a]].cur > hi ? w->pe[set[a]].cur : hi;
	}
	cr_assert_leq(hi - lo, 1, "loads %lld..%lld after an operation", (long long)lo, (long long)hi);
	if (!w->C)
		return;
	/* (the borrowed totals are within 1 at the assignment, but a member then
	 * holding a borrowed packet of its own class consumes it) */
	int64_t P = w->P;
	for (int64_t j = 0; j < P; j++) {
		int32_t dl = INT32_MAX, dh = INT32_MIN;
		for (int a = 0; a < m; a++) {
			int32_t x = w->d[set[a] * P + j];
			dl = x < dl ? x : dl;
			dh = x > dh ? x : dh;
		}
		cr_assert_leq(dh - dl, 1, "class %lld: %d..%d after an operation", (long long)j, dl, dh);
	}
}

/* Appendix: sum_j d_{i,j} = l_i, d >= 0, b_{i,j} in {0, 1}, sum_j b_{i,j} <= C. */
static void check_classes(lbt_state *st)
{
	const lbt_luling *w = lbt_luling_of(st);
	int32_t *l = th_loads(st);
	for (int64_t i = 0; i < w->P; i++) {
		int64_t sd = 0, sb = 0;
		for (int64_t j = 0; j < w->P; j++) {
			cr_assert_geq(w->d[i * w->P + j], 0);
			cr_assert_leq(w->b[i * w->P + j], 1);
			sd += w->d[i * w->P + j];
			sb += w->b[i * w->P + j];
		}
		cr_assert_eq(sd, l[i], "PE %lld: classes sum to %lld, load %d", (long long)i, (long long)sd, l[i]);
		cr_assert_eq(sb, w->bsum[i]);
		cr_assert_leq(sb, w->C, "PE %lld borrowed %lld > C", (long long)i, (long long)sb);
	}
	free(l);
}

/* §2: an operation balances the delta + 1 loads (+-1) and moves load only
 * within its set: the step keeps the total the changes left. */
Test(luling1993, every_operation_conserves_and_leaves_its_set_within_one)
{
	static const char *deltas[] = {"1", "2", "4"};
	static const char *partners[] = {"global", "local:1", "local:3"};
	for (int d = 0; d < 3; d++)
		for (int p = 0; p < 3; p++) {
			lbt_state st;
			open_lm(&st, "8x8", "uniform:0:40", "1.1", deltas[d], "0", partners[p], 5 + (uint64_t)p, 1);
			op_check oc = {0, p == 0 ? 0 : p == 1 ? 1 : 3};
			lbt_luling_of(&st)->on_op = check_op;
			lbt_luling_of(&st)->on_op_ctx = &oc;
			for (int t = 0; t < 300; t++) {
				churn(&st, 0.4, 0.35);
				int64_t before = th_total(&st);
				step(&st);
				cr_assert_eq(th_total(&st), before, "delta %s %s: step %d changed the total", deltas[d], partners[p], t);
			}
			cr_assert_gt(oc.ops, 300, "only %lld operations", (long long)oc.ops);
			cr_assert_eq(oc.ops, lbt_luling_stats_of(&st)->operations);
			lbt_state_close(&st);
		}
}

/* Appendix: the class counters sum to the loads after every step, every
 * operation leaves each class within 1 over its set, and the borrowing
 * branches (own class empty) all run. */
Test(luling1993, appendix_class_counters_sum_to_the_loads_after_every_step)
{
	static const char *borrows[] = {"1", "4", "32"};
	for (int c = 0; c < 3; c++) {
		lbt_state st;
		open_lm(&st, "4x4", "uniform:0:6", "1.1", "2", borrows[c], "global", 11, 1);
		op_check oc = {0, 0};
		lbt_luling_of(&st)->on_op = check_op;
		lbt_luling_of(&st)->on_op_ctx = &oc;
		for (int t = 0; t < 400; t++) {
			churn(&st, t < 200 ? 0.3 : 0.2, t < 200 ? 0.3 : 0.45);
			int64_t before = th_total(&st);
			step(&st);
			cr_assert_eq(th_total(&st), before, "C = %s: step %d changed the total", borrows[c], t);
			check_classes(&st);
		}
		const lbt_luling_stats *s = lbt_luling_stats_of(&st);
		cr_assert_gt(s->total_borrow, 0, "C = %s: no consumption had to borrow", borrows[c]);
		if (c == 0)
			cr_assert_gt(s->remote_borrow + s->borrow_fail, 0, "C = 1: no debt was ever settled");
		lbt_state_close(&st);
	}
}

/* The order of overlapping operations: on a ring of 4 with delta = 2, when
 * every PE initiates, the first operation takes 3 PEs, whose l_old it resets
 * (they are cancelled at their turn); the fourth PE's set must overlap it. */
Test(luling1993, overlapping_operations_run_in_turn_and_are_counted)
{
	for (uint64_t seed = 1; seed <= 20; seed++) {
		lbt_state st;
		open_lm(&st, "4", "const:10", "1", "2", "0", "global", seed, 1);
		int32_t l[4] = {11, 12, 13, 14};
		th_set(&st, l);
		step(&st);
		const lbt_luling_stats *s = lbt_luling_stats_of(&st);
		cr_assert_eq(s->operations, 2, "seed %llu", (unsigned long long)seed);
		cr_assert_eq(s->cancelled, 2);
		cr_assert_eq(s->conflicts, 1);
		cr_assert_eq(th_total(&st), 50);
		lbt_state_close(&st);
	}
}

/* The same inputs and seed give the same bits and counters for 1 and 2 threads. */
Test(luling1993, same_bits_for_one_and_two_threads)
{
	for (int c = 0; c < 2; c++) {
		lbt_state a, b;
		open_lm(&a, "16x16", "uniform:0:50", "1.2", "4", c ? "4" : "0", c ? "global" : "local:2", 3, 1);
		open_lm(&b, "16x16", "uniform:0:50", "1.2", "4", c ? "4" : "0", c ? "global" : "local:2", 3, 2);
		for (int t = 0; t < 100; t++) {
			churn(&a, 0.3, 0.3);
			churn(&b, 0.3, 0.3);
			step(&a);
			step(&b);
		}
		cr_assert_eq(lbt_grid_first_diff(&a.grid, &b.grid), -1);
		cr_assert_eq(memcmp(lbt_luling_stats_of(&a), lbt_luling_stats_of(&b), sizeof(lbt_luling_stats)), 0);
		lbt_state_close(&a);
		lbt_state_close(&b);
	}
}

/* Lemma 1's operator and Lemma 2's fixed point against values derived by hand:
 * n = 64, delta = 1, f = 1.8: G(1) = 2.8 * 63 / (1.8 + 62 + 63) = 176.4/126.8;
 * A = (1.8 - 115.2 + 62 + 63)/3.6 = 29/9, FIX = sqrt(35 + 841/81) - 29/9
 * = (sqrt(3676) - 29)/9 = 3.51445...; f = 1 gives FIX = 1 for any n, delta
 * (A = (n - 2)/2, sqrt(n - 1 + (n - 2)^2/4) = n/2); Theorem 2's limit
 * delta/(delta + 1 - f) = 5. */
Test(luling1993, lemma1_operator_and_fix_match_hand_derived_values)
{
	cr_assert_float_eq(lbt_luling_G(64, 1, 1.8, 1), 176.4 / 126.8, 1e-14);
	cr_assert_float_eq(lbt_luling_Gt(64, 1, 1.8, 2), lbt_luling_G(64, 1, 1.8, 176.4 / 126.8), 1e-14);
	cr_assert_float_eq(lbt_luling_fix(64, 1, 1.8), (sqrt(3676.0) - 29) / 9, 1e-13);
	for (int n = 2; n <= 1024; n *= 2)
		for (int d = 1; d < n && d <= 4; d++)
			cr_assert_float_eq(lbt_luling_fix(n, d, 1.0), 1.0, 1e-12, "FIX(%d, %d, 1)", n, d);
	/* a fixed point of G; G^t(1) rises to it (Theorem 1); below delta/(delta+1-f) (Theorem 2) */
	static const double fs[] = {1.1, 1.2, 1.8};
	for (int n = 16; n <= 1024; n *= 4)
		for (int d = 1; d <= 4; d *= 2)
			for (int k = 0; k < 3; k++) {
				double f = fs[k], fix = lbt_luling_fix(n, d, f);
				cr_assert_float_eq(lbt_luling_G(n, d, f, fix), fix, 1e-12);
				for (int t = 1; t < 200; t++)
					cr_assert_leq(lbt_luling_Gt(n, d, f, t), fix + 1e-12);
				cr_assert_float_eq(lbt_luling_Gt(n, d, f, 5000), fix, 1e-9);
				cr_assert_lt(fix, d / (d + 1 - f));
			}
	cr_assert_float_eq(lbt_luling_fix(1000000000, 1, 1.8), 5.0, 1e-6);
}

/* §5: the variation density of the generator's load v_t, the average over
 * all computation graphs, against cases derived by hand (every load starts
 * at 1; v_t = (f v_{t-1} + the candidates' loads)/(delta + 1)).
 *
 * n = 3, delta = 1, f = 1.5 (two others, a and b). t = 1: every candidate
 * holds 1, v_1 = (f + 1)/2, deterministic: VD 0; the chosen other holds v_1,
 * the other 1: another PE's load is v_1 or 1 with probability 1/2 each, mean
 * (f + 3)/4, standard deviation (v_1 - 1)/2 = (f - 1)/4, VD (f - 1)/(f + 3)
 * = 1/9. t = 2: the same candidate again (1/2): v_2 = (f v_1 + v_1)/2 =
 * (f + 1)^2/4; the other (1/2): v_2 = (f v_1 + 1)/2 = (f^2 + f + 2)/4. Mean
 * (2f^2 + 3f + 3)/8 = 3/2, the two values (f - 1)/4 apart, standard deviation
 * (f - 1)/8, VD (f - 1)/(2f^2 + 3f + 3) = 1/24.
 *
 * n = 3, delta = 2, f = 1.6. The algorithm takes both others every time: all
 * loads stay equal, VD 0 for ever. The relaxed algorithm draws the two
 * candidates one at a time from {a, b}: t = 1: every draw holds 1, v_1 = w =
 * (f + 2)/3 = 6/5, and a, b both take it unless the same one was drawn twice
 * (1/2: aa or bb, the other keeps 1). t = 2 from {w, w} (1/2): v_2 = (f w +
 * 2 w)/3 = w^2 = 36/25 whatever is drawn; from {w, 1} (1/2): drawing w, w
 * (1/4): 36/25; w and 1 (1/2): (f w + w + 1)/3 = 103/75; 1, 1 (1/4): (f w +
 * 2)/3 = 98/75. So v_2 = 36/25 (5/8), 103/75 (1/4), 98/75 (1/8): mean 211/150;
 * deviations 1/30, -1/30, -1/10; variance (5/8 + 1/4)/900 + (1/8)/100 = 1/450;
 * VD = (1/sqrt 450)/(211/150) = 5 sqrt 2/211. */
Test(luling1993, section5_variation_density_matches_hand_derived_cases)
{
	rp_lm_moments m;
	rp_lm_moments_start(&m);
	rp_lm_moments_step(&m, 3, 1, 1.5, 0);
	cr_assert_float_eq(m.g, 1.25, 1e-15);
	cr_assert_float_eq(rp_lm_vd_generator(&m), 0.0, 1e-7);
	cr_assert_float_eq(m.o, 4.5 / 4, 1e-15);
	cr_assert_float_eq(rp_lm_vd_other(&m), 1.0 / 9, 1e-14);
	rp_lm_moments_step(&m, 3, 1, 1.5, 0);
	cr_assert_float_eq(m.g, 1.5, 1e-15);
	cr_assert_float_eq(rp_lm_vd_generator(&m), 1.0 / 24, 1e-14);
	rp_lm_moments r;
	rp_lm_moments_start(&m);
	rp_lm_moments_start(&r);
	for (int t = 1; t <= 2; t++) {
		rp_lm_moments_step(&m, 3, 2, 1.6, 0);
		rp_lm_moments_step(&r, 3, 2, 1.6, 1);
		cr_assert_float_eq(rp_lm_vd_generator(&m), 0.0, 1e-7, "t = %d", t);
	}
	cr_assert_float_eq(r.g, 211.0 / 150, 1e-14);
	cr_assert_float_eq(r.gg - r.g * r.g, 1.0 / 450, 1e-13);
	cr_assert_float_eq(rp_lm_vd_generator(&r), 5 * sqrt(2.0) / 211, 1e-12);
}

/* The moments against their definition: every candidate sequence, equally
 * likely, stepped with real loads (the average over all computation graphs
 * of §5, by brute force), n = 4..5, delta = 1..3, t = 4; and their first
 * moments against Lemma 1: E(g)/E(o) after t operations is G^t(1) (the
 * algorithm; n up to 64, t up to 40). */
typedef struct {
	double g, o[4];
} lm_loads;

static void enumerate(lm_loads x, int n, int delta, double f, int t, int relaxed, double p, double *acc, int64_t *leaves)
{
	if (t == 0) { /* E(g), E(g^2), E(o_0), E(o_0^2), E(g o_0), E(o_0 o_1) */
		double v[6] = {x.g, x.g * x.g, x.o[0], x.o[0] * x.o[0], x.g * x.o[0], x.o[0] * x.o[1]};
		for (int i = 0; i < 6; i++)
			acc[i] += p * v[i];
		++*leaves;
		return;
	}
	const int M = n - 1;
	int pick[3] = {0}, total = 1;
	for (int i = 0; i < delta; i++)
		total *= M;
	int sets = 0;
	for (int code = 0; code < total; code++) { /* delta draws, each 0..M-1; without replacement: increasing ones */
		int ok = 1;
		for (int i = 0, c = code; i < delta; i++, c /= M) {
			pick[i] = c % M;
			ok &= relaxed || i == 0 || pick[i] > pick[i - 1];
		}
		sets += ok;
	}
	for (int code = 0; code < total; code++) {
		int ok = 1;
		for (int i = 0, c = code; i < delta; i++, c /= M) {
			pick[i] = c % M;
			ok &= relaxed || i == 0 || pick[i] > pick[i - 1];
		}
		if (!ok)
			continue;
		lm_loads y = x;
		double w = f * x.g;
		for (int i = 0; i < delta; i++)
			w += x.o[pick[i]];
		w /= delta + 1;
		y.g = w;
		for (int i = 0; i < delta; i++)
			y.o[pick[i]] = w;
		enumerate(y, n, delta, f, t - 1, relaxed, p / sets, acc, leaves);
	}
}

Test(luling1993, section5_moments_equal_the_average_over_every_candidate_sequence)
{
	static const int cases[][3] = {{4, 1, 0}, {5, 1, 0}, {5, 2, 0}, {5, 3, 0}, {4, 2, 1}, {5, 3, 1}};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		const int n = cases[i][0], d = cases[i][1], relaxed = cases[i][2];
		const double f = 1.3;
		double acc[6] = {0};
		int64_t leaves = 0;
		lm_loads x = {1, {1, 1, 1, 1}};
		enumerate(x, n, d, f, 4, relaxed, 1, acc, &leaves);
		rp_lm_moments m;
		rp_lm_moments_start(&m);
		for (int t = 0; t < 4; t++)
			rp_lm_moments_step(&m, n, d, f, relaxed);
		const double mine[6] = {m.g, m.gg, m.o, m.oo, m.go, m.oq};
		/* the enumeration adds `leaves` terms one by one: its rounding is below leaves * 2^-52 of the sum */
		for (int k = 0; k < 6; k++)
			cr_assert_float_eq(mine[k], acc[k], (double)leaves * 0x1p-52 * acc[k],
			                   "n %d, delta %d, relaxed %d, moment %d: %.15g against %.15g", n, d, relaxed, k, mine[k], acc[k]);
	}
	for (int n = 2; n <= 64; n *= 2)
		for (int d = 1; d < n && d <= 4; d++) {
			rp_lm_moments m;
			rp_lm_moments_start(&m);
			for (int t = 1; t <= 40; t++) {
				rp_lm_moments_step(&m, n, d, 1.2, 0);
				cr_assert_float_eq(m.g / m.o, lbt_luling_Gt(n, d, 1.2, t), 1e-12 * m.g / m.o, "n %d, delta %d, t %d", n, d, t);
			}
		}
}

/* §6, Lemmas 5 and 6, against cases derived by hand.
 * n = 2, delta = 1: the only partner ends equal, FIX(2, 1, f) = FIX(2, 1, 1/f) =
 * 1 (A = (1 - f)/(2f), sqrt(1/f + A^2) = (1 + f)/(2f)), C(1) = 1, so U = D =
 * D_i = (1 + f)/(2f) = 0.9 for f = 1.25. x = 101:
 *   upper, c = 51: B = (c + xf - x - f)/((x - 1) f (1 - 1/f)) = (51 + 126.25 -
 *   101 - 1.25)/25 = 3 <= 1/(1 - D) = 10; log(1 - 0.3)/log 0.9 lies in (3, 4)
 *   (0.9^3 = 0.729 > 0.7 > 0.6561 = 0.9^4): Lemma 5 gives 4. Lemma 6: (c - 1)/25
 *   = 2; the sums 0.9, 1.71, 2.439 pass 2 at t - 1 = 3 terms: 4.
 *   lower, c = 85: A = (f^2 (c - x) + x - 1)/((f - 1)(x + 1)) = (-25 + 100)/25.5
 *   = 50/17; log(1 - 5/17)/log 0.9 = log(12/17)/log 0.9 lies in [3, 4) (0.729 >=
 *   0.70588 > 0.6561): 3. c = 30: A < 0, the logarithm is negative: 0.
 * n = 3, delta = 1, f = 1.35 = 27/20: 4f^2 - 4f + 9 = 10.89 = 3.3^2, so FIX =
 * 3.3/2.7 - (3 - 2.7)/2.7 = 10/9 (G(10/9) = 2 (1.5 + 1)/(1.5 + 3) = 10/9); D_0
 * = (1 + f/FIX)/(2f) = 2.215/2.7 = 443/540; C(10/9) = 2 (200/243 + 1)/(200/243
 * + 3) = 886/929; D_1 = (1 + (27/20)(929/886)) (10/27) = 42803/47844. x = 101,
 * c = 55: target (c - 1)/((x - 1)(f - 1)) = 54/35 = 1.542857; Lemma 6: D_0 =
 * 0.82037 < it <= D_0 + D_0 D_1 = 1.55431: t = 3. Lemma 5 keeps D = D_0:
 * D_0 + D_0^2 = 1.49338 < it <= 1.49338 + D_0^3 = 2.0455: t = 4.
 * Lemma 5's condition: n -> infinity, delta = 1, f = 1.8: FIX -> 5 (Theorem
 * 2), D -> (1 + 1.8/5)/3.6 = 0.37778, 1/(1 - D) = 1.607; x = 1001, c = 900: B =
 * (900 + 1801.8 - 1001 - 1.8)/800 = 2.124 > 1.607: no bound. */
Test(luling1993, section6_lemma5_and_lemma6_match_hand_derived_cases)
{
	cr_assert_float_eq(rp_lm_U(2, 1, 1.25), 0.9, 1e-14);
	cr_assert_float_eq(rp_lm_D(2, 1, 1.25), 0.9, 1e-14);
	cr_assert_eq(rp_lm5_upper(2, 1, 1.25, 101, 51), 4);
	cr_assert_eq(rp_lm6_upper(2, 1, 1.25, 101, 51, 1000), 4);
	cr_assert_eq(rp_lm5_lower(2, 1, 1.25, 101, 85), 3);
	cr_assert_eq(rp_lm5_lower(2, 1, 1.25, 101, 30), 0);
	cr_assert_float_eq(lbt_luling_fix(3, 1, 1.35), 10.0 / 9, 1e-14);
	cr_assert_float_eq(rp_lm_Di(3, 1, 1.35, 0), 443.0 / 540, 1e-14);
	cr_assert_float_eq(rp_lm_Di(3, 1, 1.35, 1), 42803.0 / 47844, 1e-14);
	cr_assert_float_eq(rp_lm_D(3, 1, 1.35), 443.0 / 540, 1e-14);
	cr_assert_eq(rp_lm6_upper(3, 1, 1.35, 101, 55, 1000), 3);
	cr_assert_eq(rp_lm5_upper(3, 1, 1.35, 101, 55), 4);
	cr_assert_float_eq(rp_lm_D(1000000000, 1, 1.8), 1.36 / 3.6, 1e-7);
	cr_assert_eq(rp_lm5_upper(1000000000, 1, 1.8, 1001, 900), -1);
	/* a decrease of one packet costs at most the operation it may trigger */
	cr_assert_eq(rp_lm6_upper(64, 2, 1.2, 1000, 1, 1000), 1);
}

/* Theorem 1: in the one-processor-generator model from a balanced state,
 * E(l_1,t)/E(l_i,t) = G^t(1) -> FIX(64, 1, 1.8) = 3.5145. Measured right
 * after PE 0's t-th operation, t = 80 (G^80(1) is within 3e-7 of FIX, G^40(1)
 * still 9e-4 below), over R = 20000 seeds, as the ratio of
 * the means over the seeds of l_0 and of the other PEs' mean load. Its
 * standard error comes from the same R runs by the delta method,
 * se^2 = r^2 (s_a^2/a^2 + s_b^2/b^2 - 2 s_ab/(a b)) / R; the test allows
 * 4 se (a chance of 6e-5 to fail for a correct method) plus the integer
 * trigger's bias: PE 0 initiates at ceil(f l_old) >= f l_old, a relative
 * excess below 1/(f l_old) <= 1/18000 from l_old >= 10000. */
typedef struct {
	int64_t t, want;
	double l0, others;
} at_op;

static void record_op(void *ctx, const lbt_luling *w, const int64_t *set, int m)
{
	(void)set;
	(void)m;
	at_op *a = ctx;
	if (++a->t != a->want)
		return;
	int64_t sum = 0;
	for (int64_t i = 1; i < w->P; i++)
		sum += w->pe[i].cur;
	a->l0 = (double)w->pe[0].cur;
	a->others = (double)sum / (double)(w->P - 1);
}

Test(luling1993, theorem1_ratio_is_fix_64_1_1_8_within_its_sampling_error)
{
	enum { R = 20000, T = 80 };
	double sa = 0, sb = 0, saa = 0, sbb = 0, sab = 0;
	for (int r = 0; r < R; r++) {
		lbt_state st;
		open_lm(&st, "8x8", "const:10000", "1.8", "1", "0", "global", 1000 + (uint64_t)r, 1);
		at_op a = {0, T, 0, 0};
		lbt_luling_of(&st)->on_op = record_op;
		lbt_luling_of(&st)->on_op_ctx = &a;
		while (a.t < T) {
			generate_to_trigger(&st);
			step(&st);
		}
		cr_assert_eq(lbt_luling_stats_of(&st)->operations, T, "only PE 0 initiates");
		sa += a.l0;
		sb += a.others;
		saa += a.l0 * a.l0;
		sbb += a.others * a.others;
		sab += a.l0 * a.others;
		lbt_state_close(&st);
	}
	double ma = sa / R, mb = sb / R, va = saa / R - ma * ma, vb = sbb / R - mb * mb, cab = sab / R - ma * mb;
	double ratio = ma / mb, se = ratio * sqrt((va / (ma * ma) + vb / (mb * mb) - 2 * cab / (ma * mb)) / R);
	double fix = lbt_luling_fix(64, 1, 1.8), tol = 4 * se + fix / 18000;
	cr_assert_float_eq(lbt_luling_Gt(64, 1, 1.8, T), fix, 3e-7);
	cr_log_info("Theorem 1, n = 64, delta = 1, f = 1.8, t = %d, %d runs: ratio %.4f, FIX %.4f, se %.4f", T, R, ratio, fix, se);
	cr_assert_lt(se, 0.01, "se %g: too few runs to test anything", se);
	cr_assert(fabs(ratio - fix) <= tol, "measured %.4f, FIX %.4f, tolerance %.4f (se %.4f)", ratio, fix, tol, se);
}

/* The same through the run engine with the one-generator workload itself
 * (`--workload generator:1`, one packet per step): n = 64, delta = 1,
 * f = 1.8, t = 45 (G^45(1) is 3e-4 below FIX), R = 300 seeds, every PE
 * starting with 20 packets so that a run takes about 8500 steps. The
 * tolerance is 4 standard errors (from the runs, as above) plus the
 * integer trigger's excess: PE 0 initiates at ceil(f l_old) <= f l_old + 1,
 * at most 1/(f l_old) relative, under 1.4 % in the last ten operations
 * (l_old > 40 there), which raise the ratio by less than that. */
typedef struct {
	at_op a;
	volatile sig_atomic_t stop;
} at_op_stop;

static void record_op_stop(void *ctx, const lbt_luling *w, const int64_t *set, int m)
{
	at_op_stop *s = ctx;
	record_op(&s->a, w, set, m);
	s->stop = s->a.t >= s->a.want;
}

Test(luling1993, theorem1_through_the_engine_with_the_generator_workload)
{
	enum { R = 300, T = 45 };
	double sa = 0, sb = 0, saa = 0, sbb = 0, sab = 0;
	for (int r = 0; r < R; r++) {
		lbt_state st;
		open_lm(&st, "8x8", "const:20", "1.8", "1", "0", "global", 5000 + (uint64_t)r, 1);
		lbt_workload wl;
		lbt_err e;
		cr_assert_eq(lbt_workload_parse(&wl, "generator:1", LBT_LOAD_INT, &e), LBT_OK, "%s", e.msg);
		at_op_stop a = {{0, T, 0, 0}, 0};
		lbt_luling_of(&st)->on_op = record_op_stop;
		lbt_luling_of(&st)->on_op_ctx = &a;
		lbt_run_opts ro = lbt_run_opts_default();
		ro.until.kind = LBT_UNTIL_STEPS;
		ro.until.steps = 1000000;
		ro.workload = &wl;
		ro.interrupt = &a.stop;
		lbt_summary sum;
		cr_assert_eq(lbt_run(&st, &ro, &sum, &e), LBT_OK, "%s", e.msg);
		cr_assert_eq(a.a.t, T, "run %d stopped after %lld operations", r, (long long)a.a.t);
		sa += a.a.l0, sb += a.a.others, saa += a.a.l0 * a.a.l0, sbb += a.a.others * a.a.others, sab += a.a.l0 * a.a.others;
		lbt_state_close(&st);
	}
	double ma = sa / R, mb = sb / R, va = saa / R - ma * ma, vb = sbb / R - mb * mb, cab = sab / R - ma * mb;
	double ratio = ma / mb, se = ratio * sqrt((va / (ma * ma) + vb / (mb * mb) - 2 * cab / (ma * mb)) / R);
	double fix = lbt_luling_fix(64, 1, 1.8), tol = 4 * se + 0.014 * fix;
	cr_log_info("Theorem 1 through the engine, t = %d, %d runs: ratio %.4f, FIX %.4f, se %.4f", T, R, ratio, fix, se);
	cr_assert_lt(se, 0.08, "se %g: too few runs to test anything", se);
	cr_assert(fabs(ratio - fix) <= tol, "measured %.4f, FIX %.4f, tolerance %.4f (se %.4f)", ratio, fix, tol, se);
}

/* The schema refuses what the theorems exclude, in one line with exit 2. */
Test(luling1993, parameters_outside_the_theorems_are_refused_in_one_line)
{
	char dir[256];
	th_tmpdir(dir, sizeof dir);
	static const char *bad[][3] = {{"--f", "2", "f < delta + 1"},
	                               {"--delta", "0", "1 <= delta"},
	                               {"--partners", "5", "global or local:N"},
	                               {"--borrow", "1", "at most 4096 PEs"}};
	for (int i = 0; i < 4; i++) {
		const char *argv[] = {"run", "--shape", i == 3 ? "128x128" : "8x8", "--method", "luling-monien", "--until",
		                      "steps:1", bad[i][0], bad[i][1], NULL};
		char *out, *err;
		cr_assert_eq(th_cli(dir, argv, &out, &err), 2, "%s %s: %s", bad[i][0], bad[i][1], err);
		cr_assert(strstr(err, bad[i][2]), "%s", err);
		cr_assert_eq(strchr(err, '\n'), err + strlen(err) - 1, "more than one line: %s", err);
		free(out);
		free(err);
	}
	th_rm_tree(dir);
}

/* The reproduce targets run (quick sizes), write their data, tables and
 * plots, and put the paper's Table 1 beside ours. */
Test(luling1993, reproduce_targets_quick_write_data_tables_and_plots, .timeout = 300)
{
	char dir[256];
	th_tmpdir(dir, sizeof dir);
	const char *argv[] = {"reproduce", "luling-theorems", "luling-cost", "luling-figs", "luling-table1", "luling-compare",
	                      "--quick", "--out", "r", "--quiet", "--threads", "1", NULL};
	char *out, *err;
	int rc = th_cli(dir, argv, &out, &err);
	cr_assert(rc == 0 || (rc == 2 && strstr(err, "gnuplot")), "exit %d: %s", rc, err);
	const char *files[] = {"r/luling-theorems.csv", "r/luling-theorems.md", "r/luling-theorems.tex", "r/luling-fig6.gp",
	                       "r/luling-fig6-n.gp", "r/luling-vd.gp", "r/luling-cost.csv", "r/luling-cost.md",
	                       "r/luling-figs.csv", "r/luling-figs-pe.csv", "r/luling-figs.md", "r/luling-fig7.gp",
	                       "r/luling-fig8.gp", "r/luling-fig9-f1.1.gp", "r/luling-fig10-f1.8.gp", "r/luling-table1.csv",
	                       "r/luling-table1.md", "r/luling-compare.csv", "r/luling-compare.md",
	                       "r/luling-compare-ring64.gp"};
	char path[512];
	for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
		snprintf(path, sizeof path, "%s/%s", dir, files[i]);
		free(th_read(path, NULL));
	}
	snprintf(path, sizeof path, "%s/r/luling-table1.md", dir);
	char *md = th_read(path, NULL);
	cr_assert(strstr(md, "| total borrow | 107.777 |") && strstr(md, "Table 1: \"decrease sim\" C = 32"), "%s", md);
	free(md);
	snprintf(path, sizeof path, "%s/r/luling-theorems.md", dir);
	md = th_read(path, NULL);
	cr_assert(strstr(md, "| 64 | 1 | 1.8 |") && !strstr(md, "seed 00"), "%s", md);
	free(md);
	free(out);
	free(err);
	th_rm_tree(dir);
}

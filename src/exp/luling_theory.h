/* luling_theory.h — the quantities of R. Lüling and B. Monien, "A dynamic
 * distributed load balancing algorithm with provable good performance"
 * (SPAA 1993), §5 and §6, that the reproduce targets put beside their
 * simulations: the moments of the one-generator model with real-valued
 * loads (the average over all computation graphs of §5), and the bounds of
 * Lemmas 5 and 6 on the operations a load decrease costs. */
#ifndef LBTORUS_EXP_LULING_THEORY_H
#define LBTORUS_EXP_LULING_THEORY_H

#include <stdint.h>

/* §5's model: PE 1 (the generator) grows its load by the factor f, then
 * balances it with delta candidates drawn from the n - 1 others, all taking
 * the mean (f g + sum of the candidates' loads)/(delta + 1); every load starts
 * at 1. By symmetry the others are exchangeable, so six moments describe
 * the state exactly: */
typedef struct {
	double g, o;   /* E(generator), E(another PE) */
	double gg, go; /* E(g^2), E(g o_j) */
	double oo, oq; /* E(o_j^2), E(o_j o_k) for j != k */
} rp_lm_moments;

void rp_lm_moments_start(rp_lm_moments *m); /* every load 1 */
/* One operation. relaxed = 0: delta distinct candidates (the algorithm);
 * relaxed = 1: delta candidates drawn one at a time, independently (with
 * replacement: the paper's relaxed algorithm for delta > 1, as we read it;
 * the same as relaxed = 0 for delta = 1). Needs n >= 2, delta >= 1, and
 * delta <= n - 1 without replacement. */
void rp_lm_moments_step(rp_lm_moments *m, int64_t n, int delta, double f, int relaxed);
/* The variation density sqrt(E(l^2) - E(l)^2)/E(l) of the generator's load
 * (v_t of §5's recursion) and of another PE's. */
double rp_lm_vd_generator(const rp_lm_moments *m);
double rp_lm_vd_other(const rp_lm_moments *m);

/* §6: U and D of Lemma 5, and Lemma 6's D_i (D_0 = D; C is G with 1/f). */
double rp_lm_U(int64_t n, int delta, double f);
double rp_lm_D(int64_t n, int delta, double f);
double rp_lm_Di(int64_t n, int delta, double f, int64_t i);
/* Lemma 5's lower bound max{0, floor(log(A (U - 1) + 1)/log U)}, A = (f^2 (c -
 * x) + x - 1)/((f - 1)(x + 1)), on the operations that decrease processor
 * i's own load from x to x - c > 0; -1 where the logarithm's argument is not
 * positive (no finite bound). */
int64_t rp_lm5_lower(int64_t n, int delta, double f, int64_t x, int64_t c);
/* Lemma 5's upper bound ceil(log(B (D - 1) + 1)/log D), B = (c + x f - x -
 * f)/((x - 1) f (1 - 1/f)); -1 where it does not hold (1/(1 - D) < B, or = B:
 * no finite t). */
int64_t rp_lm5_upper(int64_t n, int delta, double f, int64_t x, int64_t c);
/* Lemma 6's bound: the least integer t >= 1 with sum_{i=0}^{t-2} prod_{j=0}^{i}
 * D_j >= (c - 1)/((x - 1) f (1 - 1/f)); -1 if the sum stays below (it
 * converges) within tmax terms. */
int64_t rp_lm6_upper(int64_t n, int delta, double f, int64_t x, int64_t c, int64_t tmax);

#endif

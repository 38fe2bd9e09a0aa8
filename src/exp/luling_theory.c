/* luling_theory.c — Lüling and Monien (SPAA 1993), §5's exact moments and
 * §6's Lemmas 5 and 6 (luling_theory.h).
 *
 * §5 computes E(v_t^2), v_t the generator's load after its t-th operation,
 * as the average over all computation graphs (each candidate sequence
 * equally likely), by a recursion over graphs that uses exactly u of the
 * processors (O(p^2 t^3)). The same average follows from the loads' second
 * moments: one operation maps the load vector linearly (the generator and
 * its candidates take w = (f g + sum of the candidates)/(delta + 1)), so
 * E(X X^T) after it is the average over the candidate sets of A E(X X^T) A^T;
 * the others are exchangeable (they start equal and are drawn alike), so
 * six numbers hold E(X) and E(X X^T). With K_j the times PE j is drawn
 * (0 or 1 without replacement) and S2 = sum_j K_j^2:
 *   E(w) = (f g + delta o)/(delta + 1)
 *   E(w^2 | K) = (f^2 gg + 2 f delta go + S2 (oo - oq) + delta^2 oq)/(delta + 1)^2
 *   E(w o_j | K_j = 0) = (f go + delta oq)/(delta + 1)
 * and p0 = P(K_j = 0), p00 = P(K_j = K_k = 0) give every moment after the
 * operation (rp_lm_moments_step). Its first moments are Lemma 1's: g/o after
 * t operations is G^t(1) (tests/test_luling.c checks both against hand-derived
 * cases and against enumerating every candidate sequence). */
#include <math.h>

#include "exp/luling_theory.h"
#include "lbtorus/method.h"

void rp_lm_moments_start(rp_lm_moments *m) { *m = (rp_lm_moments){1, 1, 1, 1, 1, 1}; }

void rp_lm_moments_step(rp_lm_moments *m, int64_t n, int delta, double f, int relaxed)
{
	const double M = (double)(n - 1), d = delta, a = d + 1;
	/* P(a given other is not drawn), P(neither of two given others is), and E(S2)
	 * unconditioned, given one other not drawn, given two not drawn: with
	 * replacement the delta draws are then uniform over M, M - 1, M - 2 PEs and
	 * E(S2) = delta + delta (delta - 1)/(PEs); without, S2 = delta always */
	double p0, p00, s2, s2_0, s2_00;
	if (relaxed) {
		p0 = pow(1 - 1 / M, d);
		p00 = M >= 2 ? pow(1 - 2 / M, d) : 0;
		s2 = d + d * (d - 1) / M;
		s2_0 = M >= 2 ? d + d * (d - 1) / (M - 1) : 0;
		s2_00 = M >= 3 ? d + d * (d - 1) / (M - 2) : 0;
	} else {
		p0 = 1 - d / M;
		p00 = M >= 2 ? (M - d) * (M - d - 1) / (M * (M - 1)) : 0;
		s2 = s2_0 = s2_00 = d;
	}
	const rp_lm_moments x = *m;
#define W2(S2) ((f * f * x.gg + 2 * f * d * x.go + (S2) * (x.oo - x.oq) + d * d * x.oq) / (a * a))
	const double w = (f * x.g + d * x.o) / a, w2 = W2(s2), w2_0 = W2(s2_0), w2_00 = W2(s2_00);
#undef W2
	const double wo = (f * x.go + d * x.oq) / a;    /* E(w o_j | j not drawn) */
	const double drawn = w2 - p0 * w2_0;             /* E(w^2; j drawn) */
	m->g = w;
	m->o = (1 - p0) * w + p0 * x.o;
	m->gg = w2;
	m->go = drawn + p0 * wo;
	m->oo = drawn + p0 * x.oo;
	/* j and k both drawn, exactly one of them, neither */
	m->oq = (w2 - 2 * p0 * w2_0 + p00 * w2_00) + 2 * (p0 - p00) * wo + p00 * x.oq;
}

static double vd(double mean, double sq)
{
	double var = sq - mean * mean;
	return sqrt(var > 0 ? var : 0) / mean;
}

double rp_lm_vd_generator(const rp_lm_moments *m) { return vd(m->g, m->gg); }
double rp_lm_vd_other(const rp_lm_moments *m) { return vd(m->o, m->oo); }

/* U = (1 + f delta/FIX(n, delta, 1/f))/(f (delta + 1)): the factor by which the
 * load after an operation shrinks from one operation to the next when the
 * partners hold 1/FIX(n, delta, 1/f) of it (the consumer's limit, the most
 * they can hold relative to it); D the same with FIX(n, delta, f) (the
 * generator's limit, the least); D_i with C^i(FIX(n, delta, f)), the ratio
 * after i decreases. */
static double factor(int delta, double f, double k) { return (1 + f * delta / k) / (f * (delta + 1)); }

double rp_lm_U(int64_t n, int delta, double f) { return factor(delta, f, lbt_luling_fix(n, delta, 1 / f)); }
double rp_lm_D(int64_t n, int delta, double f) { return factor(delta, f, lbt_luling_fix(n, delta, f)); }

double rp_lm_Di(int64_t n, int delta, double f, int64_t i)
{
	double k = lbt_luling_fix(n, delta, f);
	for (int64_t j = 0; j < i; j++)
		k = lbt_luling_G(n, delta, 1 / f, k); /* C(k) */
	return factor(delta, f, k);
}

int64_t rp_lm5_lower(int64_t n, int delta, double f, int64_t x, int64_t c)
{
	const double U = rp_lm_U(n, delta, f), X = (double)x, A = (f * f * ((double)c - X) + X - 1) / ((f - 1) * (X + 1));
	const double arg = A * (U - 1) + 1;
	if (!(arg > 0))
		return -1;
	const double t = floor(log(arg) / log(U));
	return t > 0 ? (int64_t)t : 0;
}

int64_t rp_lm5_upper(int64_t n, int delta, double f, int64_t x, int64_t c)
{
	const double D = rp_lm_D(n, delta, f), X = (double)x;
	const double B = ((double)c + X * f - X - f) / ((X - 1) * f * (1 - 1 / f));
	if (!(1 / (1 - D) > B))
		return -1;
	return (int64_t)ceil(log(B * (D - 1) + 1) / log(D));
}

int64_t rp_lm6_upper(int64_t n, int delta, double f, int64_t x, int64_t c, int64_t tmax)
{
	const double target = (double)(c - 1) / ((double)(x - 1) * f * (1 - 1 / f));
	double k = lbt_luling_fix(n, delta, f), prod = 1, sum = 0;
	for (int64_t t = 1; t <= tmax; t++) { /* sum = S(t) = sum_{i=0}^{t-2} prod_{j=0}^{i} D_j */
		if (sum >= target)
			return t;
		prod *= factor(delta, f, k); /* D_{t-1} */
		sum += prod;
		k = lbt_luling_G(n, delta, 1 / f, k);
	}
	return -1;
}

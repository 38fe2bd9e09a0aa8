/* spectrum.c — the eigenvalues behind Cybenko's convergence factor gamma on a
 * torus, mesh or hypercube, and the choice of the diffusion parameter alpha.
 *
 * Derivation (seed 002 §2): with alpha on every link, M = I - alpha*Lap. A
 * torus/mesh is the Cartesian product of its axes, so Lap's eigenvectors are
 * products of per-axis ones and its eigenvalues sums mu = sum_d mu_d(j_d):
 * the ring of n >= 3 has 2(1 - cos(2 pi j/n)) (the Fourier modes), the path
 * (mesh) 2(1 - cos(pi j/n)) (cosine modes), a single link (n = 2) {0, 2}.
 * M's eigenvalues are 1 - alpha*mu; the mode mu = 0 is the mean. So
 * gamma(alpha) = max(|1 - alpha mu_min|, |1 - alpha mu_max|), smallest where
 * 1 - alpha mu_min = alpha mu_max - 1: alpha* = 2/(mu_min + mu_max), gamma* =
 * (mu_max - mu_min)/(mu_max + mu_min). On a hypercube of dimension d,
 * mu_min = 2, mu_max = 2d: alpha* = 1/(d+1), Cybenko's optimum (§3). On an even
 * K-ary D-cube alpha* = 1/(2D + 1 - cos(2 pi/K)), close to NNA's 1/(2D+1)
 * (seed 000 §2.5). On 2-D meshes (and D >= 4 tori with K = 3) alpha* would
 * exceed 1/max_degree, i.e. a PE would send away more than it holds
 * (Cybenko's constraint (b)); gamma decreases with alpha below alpha*, so the
 * best feasible choice there is 1/max_degree. */
#include <math.h>
#include <string.h>
#include <stdlib.h>

#include "lbtorus/method.h"
#include "lbtorus/number.h"

static int axis_degree(const lbt_shape *s, int d) { return s->ext[d] < 2 ? 0 : s->ext[d] == 2 ? 1 : 2; }

int lbt_max_degree(const lbt_shape *s)
{
	int deg = 0;
	for (int d = 0; d < s->dims; d++)
		deg += axis_degree(s, d);
	return deg;
}

void lbt_spectrum(const lbt_shape *s, double *mu_min, double *mu_max)
{
	double lo = HUGE_VAL, hi = 0;
	for (int d = 0; d < s->dims; d++) {
		int64_t n = s->ext[d];
		double amin, amax;
		if (n < 2)
			continue;
		if (n == 2)
			amin = amax = 2;
		else if (s->bnd[d] == LBT_TORUS) {
			amin = 2 * (1 - cos(2 * M_PI / (double)n));
			amax = 2 * (1 - cos(2 * M_PI * (double)(n / 2) / (double)n));
		} else {
			amin = 2 * (1 - cos(M_PI / (double)n));
			amax = 2 * (1 - cos(M_PI * (double)(n - 1) / (double)n));
		}
		lo = amin < lo ? amin : lo;
		hi += amax;
	}
	*mu_min = lo == HUGE_VAL ? 0 : lo;
	*mu_max = hi;
}

/* The eigenvalue of axis d's Laplacian with index j (0 .. n-1). */
static double axis_mu(const lbt_shape *s, int d, int64_t j)
{
	int64_t n = s->ext[d];
	if (n == 2)
		return 2.0 * (double)j;
	if (s->bnd[d] == LBT_TORUS)
		return 2 * (1 - cos(2 * M_PI * (double)j / (double)n));
	return 2 * (1 - cos(M_PI * (double)j / (double)n));
}

double lbt_spectrum_sum(const lbt_shape *s, double (*f)(double mu, void *ctx), void *ctx)
{
	const int64_t P = lbt_shape_pes(s);
	double sum = 0;
	for (int64_t i = 1; i < P; i++) { /* i = 0: the mode mu = 0, the mean */
		int64_t r = i;
		double mu = 0;
		for (int d = s->dims - 1; d >= 0; d--) {
			mu += axis_mu(s, d, r % s->ext[d]);
			r /= s->ext[d];
		}
		sum += f(mu, ctx);
	}
	return sum;
}

double lbt_alpha_optimal(const lbt_shape *s)
{
	double lo, hi;
	int deg = lbt_max_degree(s);
	lbt_spectrum(s, &lo, &hi);
	if (deg == 0)
		return 0;
	double a = 2 / (lo + hi), cap = 1.0 / deg;
	return a < cap ? a : cap;
}

double lbt_gamma(const lbt_shape *s, double alpha)
{
	double lo, hi;
	lbt_spectrum(s, &lo, &hi);
	if (hi == 0)
		return 0; /* one PE: nothing to converge */
	return fmax(fabs(1 - alpha * lo), fabs(1 - alpha * hi));
}

int lbt_alpha_parse(lbt_diffusion *p, const lbt_shape *s, const char *text, lbt_err *e)
{
	memset(p, 0, sizeof *p);
	int deg = lbt_max_degree(s);
	if (!strcmp(text, "boillat")) {
		p->by_degree = 1;
		p->k = 1;
		return LBT_OK;
	}
	if (!strcmp(text, "optimal")) {
		p->alpha = lbt_alpha_optimal(s);
		return LBT_OK;
	}
	double a;
	if (lbt_parse_f64(text, 0, HUGE_VAL, 1, "--alpha", &a, NULL))
		return lbt_errf(e, LBT_EINVAL, "--alpha '%s': give a number > 0, boillat or optimal", text);
	if (deg > 0 && a > 1.0 / deg)
		return lbt_errf(e, LBT_EINVAL,
		                "--alpha %s: above 1/max_degree = 1/%d a PE would send away more than it holds (Cybenko 1989, constraint (b))",
		                text, deg);
	p->alpha = a;
	return LBT_OK;
}

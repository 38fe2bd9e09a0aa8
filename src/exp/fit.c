/* fit.c — straight-line least squares, in x or in ln x and ln y, with the
 * textbook 95 % intervals (e.g. Draper and Smith, Applied Regression
 * Analysis, ch. 1): with u the fitted abscissa and v the ordinate,
 *   b = Suv / Suu,  a0 = mean v - b mean u,  s^2 = SSE / (n - 2),
 *   se(b) = sqrt(s^2 / Suu),  se(a0) = sqrt(s^2 (1/n + mean u^2 / Suu)),
 * each interval the estimate +- t(0.975, n - 2) se. A power law's a is
 * exp(a0), its interval the exponentials of a0's. Student's quantile comes
 * from its distribution function through the regularized incomplete beta
 * function (continued fraction, as in Numerical Recipes' betacf), inverted
 * by bisection. */
#include <math.h>
#include <string.h>

#include "lbtorus/figure.h"

/* Continued fraction of the incomplete beta function (modified Lentz). */
static double betacf(double a, double b, double x)
{
	const double tiny = 1e-300;
	double qab = a + b, qap = a + 1, qam = a - 1, c = 1, d = 1 - qab * x / qap;
	d = 1 / (fabs(d) < tiny ? tiny : d);
	double h = d;
	for (int m = 1; m <= 300; m++) {
		double m2 = 2.0 * m, aa = m * (b - m) * x / ((qam + m2) * (a + m2));
		d = 1 + aa * d;
		d = 1 / (fabs(d) < tiny ? tiny : d);
		c = 1 + aa / c;
		c = fabs(c) < tiny ? tiny : c;
		h *= d * c;
		aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
		d = 1 + aa * d;
		d = 1 / (fabs(d) < tiny ? tiny : d);
		c = 1 + aa / c;
		c = fabs(c) < tiny ? tiny : c;
		double del = d * c;
		h *= del;
		if (fabs(del - 1) < 1e-15)
			break;
	}
	return h;
}

static double ibeta(double a, double b, double x) /* I_x(a, b) */
{
	if (x <= 0)
		return 0;
	if (x >= 1)
		return 1;
	double lbt = lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x);
	return x < (a + 1) / (a + b + 2) ? exp(lbt) * betacf(a, b, x) / a : 1 - exp(lbt) * betacf(b, a, 1 - x) / b;
}

static double t_cdf(double t, double df)
{
	double tail = 0.5 * ibeta(df / 2, 0.5, df / (df + t * t));
	return t >= 0 ? 1 - tail : tail;
}

double lbt_t_quantile(double p, double df)
{
	if (!(p > 0 && p < 1 && df > 0))
		return NAN;
	double lo = -1, hi = 1;
	while (t_cdf(lo, df) > p) lo *= 2;
	while (t_cdf(hi, df) < p) hi *= 2;
	for (int i = 0; i < 200 && hi - lo > 1e-12 * fmax(1, fabs(lo)); i++) {
		double mid = 0.5 * (lo + hi);
		*(t_cdf(mid, df) < p ? &lo : &hi) = mid;
	}
	return 0.5 * (lo + hi);
}

const char *lbt_fit_name(lbt_fit_kind k) { return k == LBT_FIT_LINEAR ? "linear" : k == LBT_FIT_POWER ? "power" : "none"; }

int lbt_fit_parse(const char *text, lbt_fit_kind *k, lbt_err *e)
{
	for (int i = LBT_FIT_NONE; i <= LBT_FIT_POWER; i++)
		if (!strcmp(text, lbt_fit_name(i))) {
			*k = i;
			return LBT_OK;
		}
	return lbt_errf(e, LBT_EINVAL, "fit '%s': use linear (y = a + b x) or power (y = a x^b)", text);
}

int lbt_fit_points(lbt_fit *f, lbt_fit_kind kind, const double *x, const double *y, int64_t n, lbt_err *e)
{
	memset(f, 0, sizeof *f);
	f->kind = kind;
	f->n = n;
	const int pw = kind == LBT_FIT_POWER;
	double su = 0, sv = 0;
	for (int64_t i = 0; i < n; i++) {
		if (pw && !(x[i] > 0 && y[i] > 0))
			return lbt_errf(e, LBT_EINVAL, "a power law needs x > 0 and y > 0: point %lld is (%g, %g)",
			                (long long)i + 1, x[i], y[i]);
		su += pw ? log(x[i]) : x[i];
		sv += pw ? log(y[i]) : y[i];
	}
	if (n < 2)
		return lbt_errf(e, LBT_EINVAL, "a fit needs at least two points, got %lld", (long long)n);
	const double ub = su / (double)n, vb = sv / (double)n;
	double suu = 0, suv = 0, svv = 0;
	for (int64_t i = 0; i < n; i++) {
		double du = (pw ? log(x[i]) : x[i]) - ub, dv = (pw ? log(y[i]) : y[i]) - vb;
		suu += du * du;
		suv += du * dv;
		svv += dv * dv;
	}
	if (!(suu > 0))
		return lbt_errf(e, LBT_EINVAL, "a fit needs at least two distinct x");
	const double b = suv / suu, a0 = vb - b * ub;
	double sse = 0;
	for (int64_t i = 0; i < n; i++) {
		double r = (pw ? log(y[i]) : y[i]) - a0 - b * (pw ? log(x[i]) : x[i]);
		sse += r * r;
	}
	f->b = b;
	f->a = pw ? exp(a0) : a0;
	f->r2 = svv > 0 ? 1 - sse / svv : 1;
	f->ubar = ub;
	f->suu = suu;
	f->s2 = n > 2 ? sse / (double)(n - 2) : NAN;
	f->t = n > 2 ? lbt_t_quantile(0.975, (double)(n - 2)) : NAN;
	const double hb = f->t * sqrt(f->s2 / suu), ha = f->t * sqrt(f->s2 * (1.0 / (double)n + ub * ub / suu));
	f->b_lo = b - hb;
	f->b_hi = b + hb;
	f->a_lo = pw ? exp(a0 - ha) : a0 - ha;
	f->a_hi = pw ? exp(a0 + ha) : a0 + ha;
	return LBT_OK;
}

void lbt_fit_eval(const lbt_fit *f, double x, double *y, double *lo, double *hi)
{
	const int pw = f->kind == LBT_FIT_POWER;
	const double u = pw ? log(x) : x, a0 = pw ? log(f->a) : f->a, v = a0 + f->b * u;
	const double h = f->t * sqrt(f->s2 * (1.0 / (double)f->n + (u - f->ubar) * (u - f->ubar) / f->suu));
	*y = pw ? exp(v) : v;
	*lo = pw ? exp(v - h) : v - h;
	*hi = pw ? exp(v + h) : v + h;
}

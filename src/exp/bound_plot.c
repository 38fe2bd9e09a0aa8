/* bound_plot.c — the three pictures of Theorem 3: T/(D·K·Ldiff) against D,
 * K and Ldiff. Against D and Ldiff each curve is one kind of initial load
 * (worst, uniform, ...); against K one D. Each point is the largest ratio
 * among the runs with that x and curve, its bar reaching down to the
 * smallest (the spread over seeds and the other axes): the bound holds with
 * constant c while every curve stays below c, and is tight where a curve
 * stays level instead of falling. Ldiff is binned to powers of 2 (runs on different
 * tori rarely share an exact Ldiff). Runs outside the fit have curves of
 * their own: an idle PE at the start ("not fitted") or stopped at the cap
 * ("censored", their ratio a lower bound). The envelope and the mean ratio
 * are drawn as level lines without markers. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lbtorus/plot.h"
#include "lbtorus/bound.h"

typedef struct {
	char label[64];
	double x, y;
} tuple;

static int cmp_tuple(const void *a, const void *b)
{
	const tuple *s = a, *t = b;
	int c = strcmp(s->label, t->label);
	return c ? c : (s->x > t->x) - (s->x < t->x);
}

static void family(const lbt_bound_point *p, char *buf, size_t n, int by_d)
{
	size_t k = strcspn(p->init, ":");
	const char *why = p->censored ? ", censored" : !p->all_loaded ? ", not fitted" : "";
	if (by_d)
		snprintf(buf, n, "D = %d%s", p->d, why);
	else
		snprintf(buf, n, "%.*s%s", (int)k, p->init, why);
}

/* by: 0 D, 1 K, 2 Ldiff. */
static int one(const char *stem, const char *what, int by, int titles, const lbt_bound_stats *f,
               const lbt_bound_point *p, int64_t n, lbt_err *e)
{
	tuple *t = malloc((size_t)n * sizeof *t);
	double *xy = malloc((size_t)(3 * n + 4) * sizeof *xy);
	lbt_series *s = malloc((size_t)(n + 2) * sizeof *s);
	if (!t || !xy || !s) {
		free(t); free(xy); free(s);
		return lbt_errf(e, LBT_ENOMEM, "no memory for the plots");
	}
	double lo = 0, hi = 0;
	for (int64_t i = 0; i < n; i++) {
		family(&p[i], t[i].label, sizeof t[i].label, by == 1);
		t[i].x = by == 0 ? p[i].d : by == 1 ? (double)p[i].k : exp2(round(log2((double)p[i].ldiff)));
		t[i].y = p[i].ratio;
		if (i == 0 || t[i].x < lo) lo = t[i].x;
		if (i == 0 || t[i].x > hi) hi = t[i].x;
	}
	qsort(t, (size_t)n, sizeof *t, cmp_tuple);
	/* Collapse equal (label, x) to the largest y, keeping the smallest for the bar; cut into series. */
	double *xs = xy, *ys = xy + n, *mins = xy + 2 * n;
	int ns = 0, colour = 0;
	size_t prev = 0; /* length of the previous family's name before ", ": its runs outside the fit share its colour */
	int64_t m = 0;
	for (int64_t i = 0; i < n; i++) {
		if (m && !strcmp(t[i].label, s[ns - 1].label) && xs[m - 1] == t[i].x) {
			ys[m - 1] = fmax(ys[m - 1], t[i].y);
			mins[m - 1] = fmin(mins[m - 1], t[i].y);
			continue;
		}
		if (!ns || strcmp(t[i].label, s[ns - 1].label)) {
			int out = strstr(t[i].label, ", censored") || strstr(t[i].label, ", not fitted");
			size_t base = strcspn(t[i].label, ",");
			if (!ns || base != prev || strncmp(t[i].label, s[ns - 1].label, base))
				colour = colour % 6 + 1; /* 7 and 8 are the level lines' */
			prev = base;
			s[ns] = (lbt_series){.label = t[i].label, .x = xs + m, .y = ys + m, .n = 0,
			                     .draw = out ? LBT_DRAW_MARKS : LBT_DRAW_POINTS, .colour = colour,
			                     .lo = mins + m, .hi = ys + m};
			ns++;
		}
		xs[m] = t[i].x;
		ys[m] = mins[m] = t[i].y;
		s[ns - 1].n++;
		m++;
	}
	char lenv[64], lfit[64];
	snprintf(lenv, sizeof lenv, "envelope %.3g", f->max_ratio);
	snprintf(lfit, sizeof lfit, "mean ratio %.3g", f->c);
	double lx[2] = {lo, hi}, le[2] = {f->max_ratio, f->max_ratio}, lf[2] = {f->c, f->c};
	s[ns++] = (lbt_series){.label = lenv, .x = lx, .y = le, .n = 2, .draw = LBT_DRAW_LINE, .colour = 7};
	s[ns++] = (lbt_series){.label = lfit, .x = lx, .y = lf, .n = 2, .draw = LBT_DRAW_LINE, .colour = 8, .dash = 2};
	char title[200], xl[80];
	snprintf(title, sizeof title, "Theorem 3: T / (D·K·Ldiff) against %s (largest per %s; %lld runs)", what,
	         by == 2 ? "power-of-2 bin of Ldiff" : "point", (long long)n);
	snprintf(xl, sizeof xl, "%s", by == 0 ? "dimensions D" : by == 1 ? "PEs per dimension K" : "initial load difference Ldiff [load units], rounded to a power of 2");
	double ylo = f->c, yhi = f->max_ratio; /* a log axis only if the ratios span decades */
	for (int64_t i = 0; i < m; i++)
		if (mins[i] > 0 && mins[i] < ylo)
			ylo = mins[i];
	lbt_axes ax = {.title = titles ? title : NULL, .xlabel = xl, .ylabel = "T / (D·K·Ldiff)   (T in steps to balanced)",
	               .logx = by != 0, .logy = yhi > 20 * ylo, .intx = by != 2, .key = "outside right top",
	               .note = "points: the largest ratio of the runs at that x; bars: down to the smallest"};
	int st = lbt_plot(stem, &ax, s, ns, e);
	free(t);
	free(xy);
	free(s);
	return st;
}

int lbt_bound_plots(const char *stem, int titles, const lbt_bound_stats *f, const lbt_bound_point *p, int64_t n,
                    lbt_err *e)
{
	static const char *const suffix[] = {"_d", "_k", "_ldiff"}, *const what[] = {"D", "K", "Ldiff"};
	char path[4200];
	int first = LBT_OK;
	for (int by = 0; by < 3; by++) {
		snprintf(path, sizeof path, "%s%s", stem, suffix[by]);
		lbt_err sub;
		int st = one(path, what[by], by, titles, f, p, n, &sub);
		if (st && !first) {
			first = st;
			*e = sub;
		}
		if (st && st != LBT_EUNSUP)
			break;
	}
	return first;
}

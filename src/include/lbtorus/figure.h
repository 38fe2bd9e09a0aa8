/* figure.h — a user's own results as a figure: points from results files
 * (.jsonl, one per record) or traces (.csv, one per row), averaged over
 * seeds with error bars, a linear or power-law fit with its 95 % confidence
 * intervals, drawn by gnuplot (plot.h) and scripted for matplotlib. */
#ifndef LBTORUS_FIGURE_H
#define LBTORUS_FIGURE_H

#include <stdint.h>

#include "lbtorus/status.h"

typedef enum { LBT_FIT_NONE, LBT_FIT_LINEAR, LBT_FIT_POWER } lbt_fit_kind;

/* Least squares of y = a + b x (linear) or of ln y = ln a + b ln x (power:
 * y = a x^b), with two-sided 95 % intervals from Student's t with n - 2
 * degrees of freedom (NAN with only two points). */
typedef struct {
	lbt_fit_kind kind;
	int64_t n;
	double a, b, a_lo, a_hi, b_lo, b_hi;
	double r2;
	/* for the confidence band of the fitted line: in the fitted space (u =
	 * x or ln x), the mean of u, sum (u - mean)^2, the residual variance s^2
	 * and the t quantile */
	double ubar, suu, s2, t;
} lbt_fit;

/* Fit n points; refuses fewer than two distinct x, and for a power law an
 * x or y <= 0 (naming it). */
int lbt_fit_points(lbt_fit *f, lbt_fit_kind kind, const double *x, const double *y, int64_t n, lbt_err *e);
/* The fitted y at x, and the 95 % confidence band of the mean response there. */
void lbt_fit_eval(const lbt_fit *f, double x, double *y, double *lo, double *hi);
/* The p-quantile (0 < p < 1) of Student's t with df > 0 degrees of freedom. */
double lbt_t_quantile(double p, double df);
const char *lbt_fit_name(lbt_fit_kind k); /* "none", "linear", "power" */
int lbt_fit_parse(const char *text, lbt_fit_kind *k, lbt_err *e);

#define LBT_FIGURE_MAX_GROUPS 64

typedef struct {
	const char *const *inputs; /* results files (.jsonl) and traces (.csv) */
	int ninputs;
	const char *x, *y;         /* keys of the records, or columns of the traces */
	const char *group;         /* a key whose values make the series; NULL: one per trace file, one for all records */
	int logx, logy;
	lbt_fit_kind fit;
	const char *title;         /* NULL: none */
	const char *stem;          /* writes STEM.csv .dat .gp .py .json and, with gnuplot, .png .svg */
} lbt_figure_opts;

typedef struct {
	int ngroups;
	char label[LBT_FIGURE_MAX_GROUPS][128];
	int64_t points[LBT_FIGURE_MAX_GROUPS]; /* records or rows in the group */
	lbt_fit fit[LBT_FIGURE_MAX_GROUPS];    /* kind LBT_FIT_NONE where none was asked */
	int64_t skipped;   /* records or rows without a number at x or y */
	int drawn;         /* gnuplot made the pictures (else LBT_EUNSUP was only a note) */
} lbt_figure_result;

/* Read, group, average, fit and write the figure's files. Without gnuplot
 * every other file is written and r->drawn is 0. */
int lbt_figure(const lbt_figure_opts *o, lbt_figure_result *r, lbt_err *e);

#endif

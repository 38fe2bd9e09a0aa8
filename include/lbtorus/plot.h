/* plot.h — line plots through gnuplot: a data file, a script a reader can
 * edit and rerun, and the pictures (PNG and SVG) it makes. Every file is
 * written to a temporary name and renamed into place. */
#ifndef LBTORUS_PLOT_H
#define LBTORUS_PLOT_H

#include <stdint.h>

#include "lbtorus/status.h"

/* One curve: n points (x[i], y[i]). A non-finite y (NAN) is a gap: the point
 * is written as NaN and gnuplot leaves it out. */
typedef struct {
	const char *label;
	const double *x, *y;
	int64_t n;
} lbt_series;

/* Titles and axis labels (say the unit: "PEs P", "time T [shifts]"); logx or
 * logy: logarithmic axis (points <= 0 on it are left out). */
typedef struct {
	const char *title, *xlabel, *ylabel;
	int logx, logy;
} lbt_axes;

/* Writes STEM.dat, STEM.gp, and (running gnuplot) STEM.png and STEM.svg.
 * STEM.gp names its files by their base names, so `cd DIR && gnuplot STEM.gp`
 * remakes the pictures. Without gnuplot: LBT_EUNSUP, clear message; .dat/.gp
 * still written. $LBTORUS_GNUPLOT names another gnuplot program. */
int lbt_plot(const char *stem, const lbt_axes *ax, const lbt_series *s, int ns, lbt_err *e);

#endif

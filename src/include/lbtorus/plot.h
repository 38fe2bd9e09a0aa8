/* plot.h — line plots through gnuplot: a data file, a script a reader can
 * edit and rerun, and the pictures (PNG and SVG) it makes. Every file is
 * written to a temporary name and renamed into place. */
#ifndef LBTORUS_PLOT_H
#define LBTORUS_PLOT_H

#include <stdint.h>

#include "lbtorus/status.h"

/* How a curve is drawn. The default (0) is a line through markers. */
enum {
	LBT_DRAW_POINTS = 0, /* line through markers */
	LBT_DRAW_LINE = 1,   /* a line without markers: reference and level lines */
	LBT_DRAW_STEPS = 2,  /* a state that holds until the next x: horizontal, then vertical */
	LBT_DRAW_MARKS = 3,  /* markers only (e.g. a paper's values over our line) */
};

/* One curve: n points (x[i], y[i]). A non-finite y (NAN) is a gap: the point
 * is written as NaN and gnuplot leaves it out. lo, hi (both or neither):
 * an error bar from lo[i] to hi[i] at each point (e.g. min and max over
 * seeds; markers and bars only with LBT_DRAW_MARKS). dash: gnuplot dash type (0 or 1 solid, 2.. dashed); colour and
 * point: 1-based index into the palette and gnuplot's point types (0: the
 * series' own), so that curves that coincide can be told apart, or a
 * paper's values drawn in the colour of ours. */
typedef struct {
	const char *label;
	const double *x, *y;
	int64_t n;
	int draw, dash, colour, point;
	const double *lo, *hi;
} lbt_series;

/* Title (NULL or "": none, as a paper's figure has its caption instead) and
 * axis labels (say the unit: "PEs P", "time T [shifts]"); logx or logy:
 * logarithmic axis (points <= 0 on it are left out); intx, inty: the axis
 * counts whole things (PEs, steps), so its ticks are integers; note: a line
 * of text in the plot (e.g. "C3 = C4 = C5: one curve"), NULL for none; key:
 * where the legend goes inside the plot (gnuplot's words, default "top left";
 * "outside right top" puts it beside the plot). */
typedef struct {
	const char *title, *xlabel, *ylabel;
	int logx, logy;
	int intx, inty;
	const char *note, *key;
} lbt_axes;

/* Writes STEM.dat, STEM.gp, and (running gnuplot) STEM.png and STEM.svg.
 * STEM.gp names its files by their base names, so `cd DIR && gnuplot STEM.gp`
 * remakes the pictures. Without gnuplot: LBT_EUNSUP, clear message; .dat/.gp
 * still written. $LBTORUS_GNUPLOT names another gnuplot program. */
int lbt_plot(const char *stem, const lbt_axes *ax, const lbt_series *s, int ns, lbt_err *e);

#endif

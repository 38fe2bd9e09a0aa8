/* bound.h — seed 000's Theorem 3 against measurement: LM-C5 balances a
 * symmetric D-dimensional torus of P = K^D PEs in T = O(D·K·Ldiff). From the
 * records of a sweep: the points (D, K, Ldiff, T), the fitted constant, and
 * the files that show whether the bound holds and how tight it is. */
#ifndef LBTORUS_BOUND_H
#define LBTORUS_BOUND_H

#include <stdint.h>

#include "lbtorus/jsonl.h"

/* One run that reached `balanced` on a symmetric torus. */
typedef struct {
	const char *method, *shape, *init, *key; /* point into the records */
	uint64_t seed;
	int d;               /* D: active dimensions */
	int64_t k, pes;      /* K (every active extent), P */
	int64_t ldiff;       /* initial max - min */
	int64_t t, t_shifts; /* balanced_step, balanced_shifts */
	int64_t dkl;         /* D·K·Ldiff */
	int64_t lower;       /* balanced_lower_bound_steps: no method can be faster */
	int all_loaded;      /* initial min > 0, the theorem's assumption L_i > 0 */
	double ratio;        /* t / dkl */
} lbt_bound_point;

typedef struct {
	int64_t n;
	double c;            /* T ~ c·D·K·Ldiff, least squares on relative residuals: mean ratio */
	double c_shifts;     /* the same with T in shifts (D per LM step) */
	double c_abs;        /* plain least squares through the origin (set by the largest runs) */
	double max_ratio, median_ratio, min_ratio;
	int64_t argmax;      /* the point with the largest T/(D·K·Ldiff) */
	double rms_rel;      /* root mean square of (T - c·DKL)/(c·DKL) */
	/* log T = a + pd·log D + pk·log K + pl·log Ldiff, over points with T > 0;
	 * a term whose variable does not vary is left out (its exponent 0). */
	int power_ok, power_n;
	double a, pd, pk, pl, r2;
} lbt_bound_stats;

/* The points among the records of `method` (NULL: every method; a method
 * item as lbt_record_input gives it, "lm-c5" or "fos:alpha=0.2"): runs on a
 * torus whose active extents are all K that reached balanced after T > 0
 * steps (from an unbalanced load: Ldiff > D).
 * *skipped counts the other records. Caller frees *pts. */
int lbt_bound_points(const lbt_jsonl *l, const char *method, lbt_bound_point **pts, int64_t *n,
                     int64_t *skipped, lbt_err *e);
int lbt_bound_fit(const lbt_bound_point *p, int64_t n, lbt_bound_stats *f);
/* bound.csv: one row per point; bound.json: the fit and the extreme point. */
int lbt_bound_write_csv(const char *path, const lbt_bound_point *p, int64_t n, lbt_err *e);
int lbt_bound_write_json(const char *path, const char *method, const lbt_bound_stats *f,
                         const lbt_bound_point *p, int64_t n, lbt_err *e);
/* STEM_d, STEM_k, STEM_ldiff (.dat .gp .png .svg): T/(D·K·Ldiff) against each,
 * the largest ratio per x and series, and the fitted c as a line. */
int lbt_bound_plots(const char *stem, const lbt_bound_stats *f, const lbt_bound_point *p, int64_t n,
                    lbt_err *e);

#endif

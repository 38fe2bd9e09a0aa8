/* bound.h — Henrich's (1996) Theorem 3 against measurement: LM-C5 balances a
 * symmetric D-dimensional torus of P = K^D PEs in T = O(D·K·Ldiff). From the
 * records of a sweep: the points (D, K, Ldiff, T), the fitted constant, and
 * the files that show whether the bound holds and how tight it is. */
#ifndef LBTORUS_BOUND_H
#define LBTORUS_BOUND_H

#include <stdint.h>
#include <stdio.h>

#include "lbtorus/jsonl.h"

/* One run on a symmetric torus that reached `balanced`, or was stopped at
 * its step cap first (censored: T > t). */
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
	int censored;        /* stopped at --max-steps before balanced: T > t (t = steps run) */
	double ratio;        /* t / dkl (censored: a lower bound) */
} lbt_bound_point;

/* Points that enter the fit: the premise holds (every PE loaded at the
 * start) and T is known (not censored). */
#define LBT_BOUND_FITTED(p) ((p)->all_loaded && !(p)->censored)

typedef struct {
	int64_t n;           /* fitted points (LBT_BOUND_FITTED) */
	/* Two estimators of c in T ~ c·D·K·Ldiff over the fitted points:
	 * c = the mean of the ratios T/(D·K·Ldiff), i.e. least squares on the
	 * relative residuals (T − c·DKL)/DKL (every run counts alike), with a
	 * 95 % confidence interval (Student t); c_ols = ordinary least squares of
	 * T on D·K·Ldiff through the origin (set by the largest runs). */
	double c, c_lo95, c_hi95;
	double c_shifts;     /* the mean ratio with T in shifts (D per LM step) */
	double c_abs;        /* c_ols */
	double rms_rel;      /* rms of (T − c·DKL)/(c·DKL), the mean ratio's fit */
	double rms_rel_ols;  /* the same for c_ols */
	double max_ratio, q3_ratio, median_ratio, q1_ratio, min_ratio;
	int64_t argmax;      /* the fitted point with the largest T/(D·K·Ldiff) */
	/* Runs outside the fit, reported separately. */
	int64_t broken_n;            /* premise broken: some PE idle at the start (e.g. worst:C) */
	double broken_mean_ratio, broken_max_ratio;
	int64_t censored_n;          /* stopped at the cap: T > cap */
	double censored_max_ratio;   /* the largest lower bound cap/(D·K·Ldiff) among them */
	/* log T = a + pd·log D + pk·log K + pl·log Ldiff over the fitted points;
	 * a term whose variable does not vary is left out (its exponent 0).
	 * span_*: max/min of each variable; below 4 its exponent is not
	 * determined by the data (the CLI warns). */
	int power_ok, power_n;
	double a, pd, pk, pl, r2;
	double span_d, span_k, span_l;
} lbt_bound_stats;

/* The points among the records of `method` (NULL: every method; a method
 * item as lbt_record_input gives it, "lm-c5" or "fos:alpha=0.2"): runs on a
 * torus whose active extents are all K that reached balanced after T > 0
 * steps (from an unbalanced load: Ldiff > D), or stopped at max_steps
 * before it (censored).
 * *skipped counts the other records. Caller frees *pts. */
int lbt_bound_points(const lbt_jsonl *l, const char *method, lbt_bound_point **pts, int64_t *n,
                     int64_t *skipped, lbt_err *e);
/* LBT_EINVAL: no point to fit (every run censored or outside the premise). */
int lbt_bound_fit(const lbt_bound_point *p, int64_t n, lbt_bound_stats *f);
/* What the fit says and does not say, one sentence per line, each line
 * starting with `indent`: how well one constant describes T, what each
 * power-law exponent means for the bound, and a warning for every variable
 * that spans less than a factor of 4 (its exponent is then undetermined). */
void lbt_bound_describe(FILE *out, const lbt_bound_stats *f, const char *indent);
/* bound.csv: one row per point; bound.json: the fit and the extreme point. */
int lbt_bound_write_csv(const char *path, const lbt_bound_point *p, int64_t n, lbt_err *e);
int lbt_bound_write_json(const char *path, const char *method, const lbt_bound_stats *f,
                         const lbt_bound_point *p, int64_t n, lbt_err *e);
/* STEM_d, STEM_k, STEM_ldiff (.dat .gp .png .svg): T/(D·K·Ldiff) against each,
 * the largest ratio per x and series, the envelope and the mean ratio as
 * lines; a title on each only if titles. */
int lbt_bound_plots(const char *stem, int titles, const lbt_bound_stats *f, const lbt_bound_point *p, int64_t n,
                    lbt_err *e);

#endif

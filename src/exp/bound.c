/* bound.c — Theorem 3 of Henrich (1996) (T = O(D·K·Ldiff) for LM-C5 on a
 * symmetric torus) against the records of a sweep.
 *
 * T is the step at which the run was first balanced (balanced_step, the
 * record's balanced_over_dkl uses the same). A point is kept only if every
 * active extent equals K (P = K^D, the theorem's torus), the boundary is
 * torus and the initial load was not balanced already (Ldiff > D). Runs
 * stopped at --max-steps first are kept as censored points (T > the steps
 * run), shown but not fitted; runs that start with an idle PE break the
 * theorem's premise L_i > 0 and are reported apart from the fit.
 *
 * Two estimators of c in T ≈ c·D·K·Ldiff are given and named: the mean of
 * the ratios T/(D·K·Ldiff) (least squares on relative residuals: every run
 * counts alike; with a 95 % t interval), and ordinary least squares of T on
 * D·K·Ldiff through the origin (set by the few largest runs); the envelope
 * max T/(D·K·Ldiff) is the smallest c with T <= c·D·K·Ldiff on every fitted
 * point. The power law fitted beside them says how T really grows with each
 * of D, K and Ldiff, with the span of each variable so that an exponent the
 * data cannot determine is not mistaken for a finding. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lbtorus/io.h"
#include "lbtorus/bound.h"
#include "lbtorus/provenance.h"
#include "exp/records.h"

static int64_t inum(const lbt_jobj *o, const char *k, int *ok)
{
	double v;
	if (!lbt_jobj_num(o, k, &v)) {
		*ok = 0;
		return -1;
	}
	return (int64_t)v;
}

/* Every active extent equals K? */
static int symmetric(const char *shape, int64_t k)
{
	for (const char *p = shape; *p;) {
		char *end;
		long long v = strtoll(p, &end, 10);
		if (end == p || (v != 1 && v != k))
			return 0;
		p = *end ? end + 1 : end;
	}
	return 1;
}

int lbt_bound_points(const lbt_jsonl *l, const char *method, lbt_bound_point **pts, int64_t *n,
                     int64_t *skipped, lbt_err *e)
{
	*n = *skipped = 0;
	if (!(*pts = malloc((size_t)(l->n ? l->n : 1) * sizeof **pts)))
		return lbt_errf(e, LBT_ENOMEM, "no memory for %lld points", (long long)l->n);
	for (int64_t i = 0; i < l->n; i++) {
		const lbt_jobj *o = &l->rec[i];
		lbt_bound_point *p = &(*pts)[*n];
		int ok = 1;
		memset(p, 0, sizeof *p);
		p->method = lbt_jobj_str(o, "method");
		p->shape = lbt_jobj_str(o, "shape");
		p->init = lbt_jobj_str(o, "init");
		p->key = lbt_jobj_str(o, "run_key");
		const char *bnd = lbt_jobj_str(o, "boundary");
		char item[128];
		lbt_record_input(o, "method", item, sizeof item);
		p->d = (int)inum(o, "active_dims", &ok);
		p->k = inum(o, "k", &ok);
		p->pes = inum(o, "pes", &ok);
		p->seed = (uint64_t)inum(o, "seed", &ok);
		p->ldiff = inum(o, "initial_ldiff", &ok);
		const char *why = lbt_jobj_str(o, "stop_reason");
		p->censored = why && !strcmp(why, "max_steps") && !lbt_jobj_num(o, "balanced_step", &(double){0});
		p->t = inum(o, p->censored ? "steps" : "balanced_step", &ok);
		p->t_shifts = inum(o, p->censored ? "shifts" : "balanced_shifts", &ok);
		p->dkl = inum(o, "dkl_bound", &ok);
		p->lower = inum(o, "balanced_lower_bound_steps", &ok);
		p->all_loaded = inum(o, "initial_min", &ok) > 0;
		if (!ok || !p->method || !p->shape || !p->init || !bnd || strcmp(bnd, "torus") ||
		    (method && strcmp(method, item)) || !symmetric(p->shape, p->k) || p->t <= 0 || p->dkl <= 0) {
			++*skipped;
			continue;
		}
		if (!p->key)
			p->key = "";
		p->ratio = (double)p->t / (double)p->dkl;
		++*n;
	}
	return LBT_OK;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* Solve the m x m system A x = b (row-major, m <= 4) by elimination with
 * partial pivoting; 0 if singular. */
static int solve(double *A, double *b, int m, double *x)
{
	for (int c = 0; c < m; c++) {
		int piv = c;
		for (int r = c + 1; r < m; r++)
			if (fabs(A[r * m + c]) > fabs(A[piv * m + c]))
				piv = r;
		if (fabs(A[piv * m + c]) < 1e-9)
			return 0;
		for (int j = 0; j < m; j++) {
			double t = A[c * m + j]; A[c * m + j] = A[piv * m + j]; A[piv * m + j] = t;
		}
		double t = b[c]; b[c] = b[piv]; b[piv] = t;
		for (int r = c + 1; r < m; r++) {
			double f = A[r * m + c] / A[c * m + c];
			for (int j = c; j < m; j++)
				A[r * m + j] -= f * A[c * m + j];
			b[r] -= f * b[c];
		}
	}
	for (int c = m - 1; c >= 0; c--) {
		double s = b[c];
		for (int j = c + 1; j < m; j++)
			s -= A[c * m + j] * x[j];
		x[c] = s / A[c * m + c];
	}
	return 1;
}

static void power_fit(const lbt_bound_point *p, int64_t n, lbt_bound_stats *f)
{
	/* Columns: 1, log D, log K, log Ldiff, each only if it varies. */
	int use[4] = {1, 0, 0, 0}, m = 0, col[4];
	double lo[4] = {INFINITY, INFINITY, INFINITY, INFINITY}, hi[4] = {0, 0, 0, 0};
	for (int64_t i = 0; i < n; i++) {
		if (!LBT_BOUND_FITTED(&p[i]))
			continue;
		const double v[4] = {1, p[i].d, (double)p[i].k, (double)p[i].ldiff};
		for (int j = 1; j < 4; j++)
			lo[j] = fmin(lo[j], v[j]), hi[j] = fmax(hi[j], v[j]);
	}
	for (int j = 1; j < 4; j++)
		use[j] = hi[j] > lo[j];
	f->span_d = hi[1] / lo[1];
	f->span_k = hi[2] / lo[2];
	f->span_l = hi[3] / lo[3];
	for (int j = 0; j < 4; j++)
		if (use[j])
			col[m++] = j;
	double A[16] = {0}, b[4] = {0}, x[4] = {0}, sy = 0, syy = 0;
	int64_t cnt = 0;
	for (int64_t i = 0; i < n; i++) {
		if (!LBT_BOUND_FITTED(&p[i]))
			continue;
		double v[4] = {1, log((double)p[i].d), log((double)p[i].k), log((double)p[i].ldiff)}, y = log((double)p[i].t);
		for (int r = 0; r < m; r++) {
			for (int c = 0; c < m; c++)
				A[r * m + c] += v[col[r]] * v[col[c]];
			b[r] += v[col[r]] * y;
		}
		sy += y;
		syy += y * y;
		cnt++;
	}
	f->power_n = (int)cnt;
	if (cnt <= m || !solve(A, b, m, x))
		return;
	double coef[4] = {0}, ss = 0;
	for (int r = 0; r < m; r++)
		coef[col[r]] = x[r];
	for (int64_t i = 0; i < n; i++) {
		if (!LBT_BOUND_FITTED(&p[i]))
			continue;
		double fit = coef[0] + coef[1] * log((double)p[i].d) + coef[2] * log((double)p[i].k) +
		             coef[3] * log((double)p[i].ldiff);
		double r = log((double)p[i].t) - fit;
		ss += r * r;
	}
	double tot = syy - sy * sy / (double)cnt;
	f->power_ok = 1;
	f->a = coef[0];
	f->pd = coef[1];
	f->pk = coef[2];
	f->pl = coef[3];
	f->r2 = tot > 0 ? 1 - ss / tot : 1;
}

/* Two-sided 95 % quantile of Student's t with df degrees of freedom. */
static double t95(int64_t df)
{
	static const double q[] = {12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
	                           2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
	                           2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042};
	return df < 1 ? NAN : df <= 30 ? q[df - 1] : df <= 60 ? 2.000 : df <= 120 ? 1.980 : 1.960;
}

/* The q-quantile of sorted r[0..n) by linear interpolation (type 7). */
static double quantile(const double *r, int64_t n, double q)
{
	double h = q * (double)(n - 1);
	int64_t i = (int64_t)floor(h);
	return i + 1 < n ? r[i] + (h - (double)i) * (r[i + 1] - r[i]) : r[n - 1];
}

int lbt_bound_fit(const lbt_bound_point *p, int64_t n, lbt_bound_stats *f)
{
	memset(f, 0, sizeof *f);
	double sr = 0, srs = 0, sxy = 0, sxx = 0, bsum = 0;
	double *r = malloc((size_t)(n ? n : 1) * sizeof *r);
	if (!r)
		return LBT_ENOMEM;
	int64_t m = 0;
	for (int64_t i = 0; i < n; i++) {
		if (p[i].censored) {
			f->censored_n++;
			f->censored_max_ratio = fmax(f->censored_max_ratio, p[i].ratio);
			continue;
		}
		if (!p[i].all_loaded) {
			f->broken_n++;
			bsum += p[i].ratio;
			f->broken_max_ratio = fmax(f->broken_max_ratio, p[i].ratio);
			continue;
		}
		double x = (double)p[i].dkl;
		sr += p[i].ratio;
		srs += (double)p[i].t_shifts / x;
		sxy += x * (double)p[i].t;
		sxx += x * x;
		r[m++] = p[i].ratio;
		if (m == 1 || p[i].ratio > p[f->argmax].ratio)
			f->argmax = i;
	}
	f->n = m;
	f->broken_mean_ratio = f->broken_n ? bsum / (double)f->broken_n : NAN;
	if (m == 0) {
		free(r);
		return LBT_EINVAL;
	}
	/* min over c of sum ((T - c x) / x)^2 is the mean of T/x */
	f->c = sr / (double)m;
	f->c_shifts = srs / (double)m;
	f->c_abs = sxy / sxx;
	double ss = 0, ss_ols = 0, var = 0;
	for (int64_t i = 0; i < n; i++) {
		if (!LBT_BOUND_FITTED(&p[i]))
			continue;
		double rel = (p[i].ratio - f->c) / f->c, rel_ols = (p[i].ratio - f->c_abs) / f->c_abs;
		ss += rel * rel;
		ss_ols += rel_ols * rel_ols;
		var += (p[i].ratio - f->c) * (p[i].ratio - f->c);
	}
	f->rms_rel = f->c > 0 ? sqrt(ss / (double)m) : 0;
	f->rms_rel_ols = f->c_abs > 0 ? sqrt(ss_ols / (double)m) : 0;
	double half = m > 1 ? t95(m - 1) * sqrt(var / (double)(m - 1) / (double)m) : NAN;
	f->c_lo95 = f->c - half;
	f->c_hi95 = f->c + half;
	qsort(r, (size_t)m, sizeof *r, cmp_double);
	f->min_ratio = r[0];
	f->q1_ratio = quantile(r, m, 0.25);
	f->median_ratio = quantile(r, m, 0.5);
	f->q3_ratio = quantile(r, m, 0.75);
	f->max_ratio = r[m - 1];
	free(r);
	power_fit(p, n, f);
	return LBT_OK;
}

void lbt_bound_describe(FILE *out, const lbt_bound_stats *f, const char *indent)
{
	if (f->n == 0)
		return;
	if (f->rms_rel > 0.5)
		fprintf(out, "%sfit quality: one constant describes these runs poorly (rms relative residual %.2g; "
		        "T/(D*K*Ldiff) spans a factor %.3g, %.3g..%.3g): the envelope is a bound on these runs, the fitted c "
		        "is not a prediction of T\n", indent, f->rms_rel, f->max_ratio / f->min_ratio, f->min_ratio,
		        f->max_ratio);
	else
		fprintf(out, "%sfit quality: rms relative residual %.2g; T/(D*K*Ldiff) spans %.3g..%.3g\n", indent, f->rms_rel,
		        f->min_ratio, f->max_ratio);
	if (!f->power_ok)
		return;
	const char *name[3] = {"D", "K", "Ldiff"};
	const double ex[3] = {f->pd, f->pk, f->pl}, span[3] = {f->span_d, f->span_k, f->span_l};
	for (int v = 0; v < 3; v++) {
		if (!(span[v] > 1))
			continue;
		if (span[v] < 4) {
			fprintf(out, "%swarning: %s spans only a factor %.3g in the fitted runs (< 4): its exponent %.2f is not "
			        "determined by these runs\n", indent, name[v], span[v], ex[v]);
			continue;
		}
		if (ex[v] < 0)
			fprintf(out, "%s%s^%.2f: on average over these runs T falls as %s grows; the bound's factor %s is not "
			        "approached here (T = O(D*K*Ldiff) is an upper bound: this does not contradict it)\n", indent,
			        name[v], ex[v], name[v], name[v]);
		else if (ex[v] < 0.8)
			fprintf(out, "%s%s^%.2f: on average over these runs T grows more slowly than the bound's %s^1 (the "
			        "envelope, not this average, shows where the bound is tight)\n", indent, name[v], ex[v], name[v]);
		else if (ex[v] > 1.2)
			fprintf(out, "%s%s^%.2f: on average over these runs T grows faster than the bound's %s^1: the constant is "
			        "not reached yet or the bound fails; see the envelope\n", indent, name[v], ex[v], name[v]);
		else
			fprintf(out, "%s%s^%.2f: on average over these runs T grows about as the bound's %s^1\n", indent, name[v],
			        ex[v], name[v]);
	}
	if (f->r2 < 0.9)
		fprintf(out, "%sthe power law explains %.0f %% of the variance of log T: a summary of this sweep, not a law\n",
		        indent, 100 * f->r2);
}

static void csv_str(FILE *f, const char *s)
{
	if (!strpbrk(s, ",\"\n")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

int lbt_bound_write_csv(const char *path, const lbt_bound_point *p, int64_t n, lbt_err *e)
{
	lbt_outfile o;
	int st = lbt_out_open(&o, path, e);
	if (st)
		return st;
	fputs("method,shape,d,k,pes,init,seed,all_loaded,censored,ldiff,balanced_step,balanced_shifts,dkl,"
	      "ratio,balanced_lower_bound_steps,run_key\n", o.f);
	for (int64_t i = 0; i < n; i++) {
		fprintf(o.f, "%s,%s,%d,%lld,%lld,", p[i].method, p[i].shape, p[i].d, (long long)p[i].k, (long long)p[i].pes);
		csv_str(o.f, p[i].init);
		fprintf(o.f, ",%llu,%d,%d,%lld,%lld,%lld,%lld,%.9g,%lld,", (unsigned long long)p[i].seed, p[i].all_loaded,
		        p[i].censored, (long long)p[i].ldiff, (long long)p[i].t, (long long)p[i].t_shifts, (long long)p[i].dkl,
		        p[i].ratio, (long long)p[i].lower);
		csv_str(o.f, p[i].key);
		fputc('\n', o.f);
	}
	return lbt_out_commit(&o, e);
}

/* ,"key":v, or null where v is not a number (n = 1 has no interval) */
static void jnum(FILE *j, const char *key, double v)
{
	fprintf(j, ",\"%s\":", key);
	lbt_json_number(j, v, 9);
}

int lbt_bound_write_json(const char *path, const char *method, const lbt_bound_stats *f,
                         const lbt_bound_point *p, int64_t n, lbt_err *e)
{
	lbt_outfile o;
	int st = lbt_out_open(&o, path, e);
	if (st)
		return st;
	FILE *j = o.f;
	fprintf(j, "{\"lbtorus\":\"%s\",\"theorem\":\"Henrich (1996), Theorem 3: T = O(D*K*Ldiff), T in steps to balanced\",\"method\":",
	        LBT_VERSION);
	if (method)
		lbt_json_string(j, method);
	else
		fputs("null", j);
	fprintf(j, ",\"points\":%lld,\"c_fit_estimator\":\"mean of T/(D*K*Ldiff)\"", (long long)f->n);
	static const char *const key[] = {"c_fit", "c_fit_ci95_lo", "c_fit_ci95_hi", "c_fit_shifts", "c_fit_absolute",
	                                  "c_envelope", "min_ratio", "q1_ratio", "median_ratio", "q3_ratio",
	                                  "rms_rel_residual", "rms_rel_residual_absolute"};
	const double val[] = {f->c, f->c_lo95, f->c_hi95, f->c_shifts, f->c_abs, f->max_ratio, f->min_ratio,
	                      f->q1_ratio, f->median_ratio, f->q3_ratio, f->rms_rel, f->rms_rel_ols};
	for (size_t i = 0; i < sizeof val / sizeof val[0]; i++)
		jnum(j, key[i], val[i]);
	fprintf(j, ",\"premise_broken_points\":%lld", (long long)f->broken_n);
	jnum(j, "premise_broken_mean_ratio", f->broken_n ? f->broken_mean_ratio : NAN);
	jnum(j, "premise_broken_max_ratio", f->broken_n ? f->broken_max_ratio : NAN);
	fprintf(j, ",\"censored_points\":%lld", (long long)f->censored_n);
	jnum(j, "censored_max_ratio_lower", f->censored_n ? f->censored_max_ratio : NAN);
	int64_t below = 0;
	for (int64_t i = 0; i < n; i++)
		below += !p[i].censored && p[i].t < p[i].lower;
	fprintf(j, ",\"runs_below_lower_bound\":%lld", (long long)below);
	if (n) { /* flat keys, so that a JSON Lines reader reads this file too */
		const lbt_bound_point *w = &p[f->argmax];
		fputs(",\"worst_run_key\":", j);
		lbt_json_string(j, w->key);
		fputs(",\"worst_shape\":", j);
		lbt_json_string(j, w->shape);
		fputs(",\"worst_init\":", j);
		lbt_json_string(j, w->init);
		fprintf(j, ",\"worst_d\":%d,\"worst_k\":%lld,\"worst_ldiff\":%lld,\"worst_balanced_step\":%lld,"
		        "\"worst_dkl\":%lld,\"worst_ratio\":%.9g",
		        w->d, (long long)w->k, (long long)w->ldiff, (long long)w->t, (long long)w->dkl, w->ratio);
	}
	if (f->power_ok)
		fprintf(j, ",\"power_points\":%d,\"power_log_a\":%.6g,\"power_exp_d\":%.6g,\"power_exp_k\":%.6g,"
		        "\"power_exp_ldiff\":%.6g,\"power_r2\":%.6g",
		        f->power_n, f->a, f->pd, f->pk, f->pl, f->r2);
	else
		fputs(",\"power_points\":0,\"power_log_a\":null,\"power_exp_d\":null,\"power_exp_k\":null,"
		      "\"power_exp_ldiff\":null,\"power_r2\":null", j);
	fprintf(j, ",\"span_d\":%.6g,\"span_k\":%.6g,\"span_ldiff\":%.6g", f->span_d, f->span_k, f->span_l);
	lbt_provenance_json(j, "", 0);
	fputs("}\n", j);
	return lbt_out_commit(&o, e);
}

/* bound.c — Theorem 3 of seed 000 (T = O(D·K·Ldiff) for LM-C5 on a
 * symmetric torus) against the records of a sweep.
 *
 * T is the step at which the run was first balanced (balanced_step, the
 * record's balanced_over_dkl uses the same), and a point is kept only if
 * every active extent equals K (P = K^D, the theorem's torus), the boundary
 * is torus and the initial load was not balanced already (T > 0, so Ldiff > D). Two constants are reported: the least-squares c of
 * T ≈ c·D·K·Ldiff, fitted on relative residuals (T − c·DKL)/DKL so that runs
 * of every size count alike (plain least squares, also written, is set by
 * the few largest runs), and the envelope max T/(D·K·Ldiff), the smallest c
 * with T <= c·D·K·Ldiff on every point. The power law fitted beside them says how
 * T really grows with each of D, K and Ldiff. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lbtorus/io.h"
#include "lbtorus/bound.h"
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
		p->t = inum(o, "balanced_step", &ok);
		p->t_shifts = inum(o, "balanced_shifts", &ok);
		p->dkl = inum(o, "dkl_bound", &ok);
		p->lower = inum(o, "balanced_lower_bound_steps", &ok);
		p->all_loaded = inum(o, "initial_min", &ok) > 0;
		if (!ok || !p->method || !p->shape || !p->init || !bnd || strcmp(bnd, "torus") ||
		    (method && strcmp(method, item)) || !symmetric(p->shape, p->k) || p->t <= 0) {
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
	for (int64_t i = 1; i < n; i++) {
		use[1] |= p[i].d != p[0].d;
		use[2] |= p[i].k != p[0].k;
		use[3] |= p[i].ldiff != p[0].ldiff;
	}
	for (int j = 0; j < 4; j++)
		if (use[j])
			col[m++] = j;
	double A[16] = {0}, b[4] = {0}, x[4] = {0}, sy = 0, syy = 0;
	int64_t cnt = 0;
	for (int64_t i = 0; i < n; i++) {
		if (p[i].t <= 0)
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
		if (p[i].t <= 0)
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

int lbt_bound_fit(const lbt_bound_point *p, int64_t n, lbt_bound_stats *f)
{
	memset(f, 0, sizeof *f);
	f->n = n;
	if (n == 0)
		return LBT_EINVAL;
	double sr = 0, srs = 0, sxy = 0, sxx = 0;
	double *r = malloc((size_t)n * sizeof *r);
	if (!r)
		return LBT_ENOMEM;
	for (int64_t i = 0; i < n; i++) {
		double x = (double)p[i].dkl;
		sr += p[i].ratio;
		srs += (double)p[i].t_shifts / x;
		sxy += x * (double)p[i].t;
		sxx += x * x;
		r[i] = p[i].ratio;
		if (i == 0 || p[i].ratio > p[f->argmax].ratio)
			f->argmax = i;
	}
	/* min over c of sum ((T - c x) / x)^2 is the mean of T/x */
	f->c = sr / (double)n;
	f->c_shifts = srs / (double)n;
	f->c_abs = sxy / sxx;
	qsort(r, (size_t)n, sizeof *r, cmp_double);
	f->min_ratio = r[0];
	f->max_ratio = r[n - 1];
	f->median_ratio = n % 2 ? r[n / 2] : 0.5 * (r[n / 2 - 1] + r[n / 2]);
	free(r);
	double ss = 0;
	for (int64_t i = 0; i < n; i++) {
		double rel = (p[i].ratio - f->c) / f->c;
		ss += rel * rel;
	}
	f->rms_rel = f->c > 0 ? sqrt(ss / (double)n) : 0;
	power_fit(p, n, f);
	return LBT_OK;
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
	fputs("method,shape,d,k,pes,init,seed,all_loaded,ldiff,balanced_step,balanced_shifts,dkl,"
	      "ratio,balanced_lower_bound_steps,run_key\n", o.f);
	for (int64_t i = 0; i < n; i++) {
		fprintf(o.f, "%s,%s,%d,%lld,%lld,", p[i].method, p[i].shape, p[i].d, (long long)p[i].k, (long long)p[i].pes);
		csv_str(o.f, p[i].init);
		fprintf(o.f, ",%llu,%d,%lld,%lld,%lld,%lld,%.9g,%lld,", (unsigned long long)p[i].seed, p[i].all_loaded,
		        (long long)p[i].ldiff, (long long)p[i].t, (long long)p[i].t_shifts, (long long)p[i].dkl,
		        p[i].ratio, (long long)p[i].lower);
		csv_str(o.f, p[i].key);
		fputc('\n', o.f);
	}
	return lbt_out_commit(&o, e);
}

int lbt_bound_write_json(const char *path, const char *method, const lbt_bound_stats *f,
                         const lbt_bound_point *p, int64_t n, lbt_err *e)
{
	lbt_outfile o;
	int st = lbt_out_open(&o, path, e);
	if (st)
		return st;
	FILE *j = o.f;
	fprintf(j, "{\"lbtorus\":\"%s\",\"theorem\":\"seed 000, Theorem 3: T = O(D*K*Ldiff), T in steps to balanced\",\"method\":",
	        LBT_VERSION);
	if (method)
		lbt_json_string(j, method);
	else
		fputs("null", j);
	fprintf(j, ",\"points\":%lld,\"c_fit\":%.9g,\"c_fit_shifts\":%.9g,\"c_fit_absolute\":%.9g,\"c_envelope\":%.9g,"
	        "\"median_ratio\":%.9g,\"min_ratio\":%.9g,\"rms_rel_residual\":%.9g",
	        (long long)f->n, f->c, f->c_shifts, f->c_abs, f->max_ratio, f->median_ratio, f->min_ratio, f->rms_rel);
	int64_t below = 0;
	for (int64_t i = 0; i < n; i++)
		below += p[i].t < p[i].lower;
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
	fputs("}\n", j);
	return lbt_out_commit(&o, e);
}

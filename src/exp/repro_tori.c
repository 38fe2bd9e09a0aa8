/* repro_tori.c — `lbtorus reproduce fig7`: Henrich's (1996) Fig. 7, the Liquid
 * model on square 2-D tori K x K up to the MasPar's 128 x 128.
 * (a) the worst case: c = 5 units per PE, all on PE (0, 0);
 * (b) i.i.d. uniform loads in 0..100 (ten seeds: mean, min and max reported).
 * Time in steps (iterations): a 2-D step is two substeps = two shifts.
 *
 * LM-C0..C2 only ever shift (they do not compare with the neighbour), so
 * they never balance; on a 2-D torus in the worst case they do not even
 * share: the load circulates on a diagonal band and the state recurs. The
 * runner proves this by finding the recurrence and we report "never". */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "repro.h"

enum { NM = 6, MAXK = 8, SEEDS = 10 };

static double mean_steps(const rp_job *j, int n, int balanced)
{
	double s = 0;
	for (int k = 0; k < n; k++) {
		int64_t v = balanced ? j[k].balanced_step : j[k].shared_step;
		if (v < 0)
			return NAN;
		s += (double)v;
	}
	return s / n;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* Two-sided 95 % quantile of Student's t, df = 1..10 (SEEDS - 1 = 9 here; beyond 10 the
 * value at 10, which is on the safe side). */
static double t95(int df)
{
	static const double q[] = {12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228};
	return df < 1 ? NAN : df <= 10 ? q[df - 1] : q[9];
}


static void md_val(FILE *f, double v, const rp_job *j)
{
	if (isfinite(v))
		fprintf(f, " %.6g |", v);
	else
		fprintf(f, " %s |", j->period ? "never" : "> cap");
}

static int fig7_write(const lbt_repro_opts *o, rp_job (*jobs)[NM][MAXK][SEEDS], const rp_job *const *list, int n,
                      const int64_t *Ks, int nk, const rp_claim *cl, lbt_err *e);

int rp_fig7(const lbt_repro_opts *o, lbt_err *e)
{
	static const int64_t full[] = {8, 16, 32, 48, 64, 96, 128}, quick[] = {8, 12, 16, 24};
	const int64_t *Ks = o->quick ? quick : full;
	const int nk = o->quick ? 4 : 7;
	static const char *const methods[NM] = {"lm-c0", "lm-c1", "lm-c2", "lm-c3", "lm-c4", "lm-c5"};
	rp_claim cl[3];
	static const char *ids[3] = {"fig7a_c3_c5_identical", "fig7a_lm_linear", "fig7b_lm_linear"};
	int st = LBT_OK;
	for (int i = 0; i < 3 && !st; i++)
		st = rp_claim_get(o, ids[i], &cl[i], e);
	if (st)
		return st;

	/* jobs[part][method][K][seed]; part a uses seed slot 0 only. The runs
	 * themselves go to rp_run_jobs as one packed array (flat). */
	enum { ALL = 2 * NM * MAXK * SEEDS };
	rp_job (*jobs)[NM][MAXK][SEEDS] = calloc(2, sizeof *jobs);
	rp_job *flat = calloc(ALL, sizeof *flat);
	rp_job **list = calloc(ALL, sizeof *list);
	if (!jobs || !flat || !list) {
		free(jobs), free(flat), free(list);
		return lbt_errf(e, LBT_ENOMEM, "fig7: no memory");
	}
	int n = 0;
	for (int part = 0; part < 2; part++)
		for (int m = 0; m < NM; m++)
			for (int k = 0; k < nk; k++)
				for (int s = 0; s < (part ? SEEDS : 1); s++) {
					rp_job *j = &jobs[part][m][k][s];
					snprintf(j->method, sizeof j->method, "%s", methods[m]);
					snprintf(j->shape, sizeof j->shape, "%lldx%lld", (long long)Ks[k], (long long)Ks[k]);
					snprintf(j->init, sizeof j->init, "%s", part ? "uniform:0:100" : "worst:5");
					j->seed = (uint64_t)s + 1;
					j->cap = part ? 40 * Ks[k] + 1000 : 4 * 5 * Ks[k] * Ks[k] + 1000;
					list[n++] = j;
				}
	for (int i = 0; i < n; i++)
		flat[i] = *list[i];
	rp_note(o, "fig7: %d runs on tori of %lldx%lld..%lldx%lld", n, (long long)Ks[0], (long long)Ks[0],
	        (long long)Ks[nk - 1], (long long)Ks[nk - 1]);
	st = rp_run_jobs(flat, n, o, e);
	for (int i = 0; i < n; i++)
		*list[i] = flat[i];
	if (!st)
		st = fig7_write(o, jobs, (const rp_job *const *)list, n, Ks, nk, cl, e);
	free(jobs), free(flat), free(list);
	return st;
}

static int fig7_write(const lbt_repro_opts *o, rp_job (*jobs)[NM][MAXK][SEEDS], const rp_job *const *list, int n,
                      const int64_t *Ks, int nk, const rp_claim *cl, lbt_err *e)
{
	static const char *const methods[NM] = {"lm-c0", "lm-c1", "lm-c2", "lm-c3", "lm-c4", "lm-c5"};
	int st;

	lbt_outfile out;
	if ((st = rp_open(o, "fig7.csv", &out, e)))
		return st;
	fputs("part,K,P,method,init,seed,shared_steps,balanced_steps,shared_shifts,balanced_shifts,outcome,period,steps_run\n",
	      out.f);
	for (int i = 0; i < n; i++) {
		const rp_job *j = list[i];
		int64_t K = strtoll(j->shape, NULL, 10);
		fprintf(out.f, "%c,%lld,%lld,%s,%s,%llu,", strcmp(j->init, "worst:5") ? 'b' : 'a', (long long)K,
		        (long long)(K * K), j->method, j->init, (unsigned long long)j->seed);
		const int64_t v[4] = {j->shared_step, j->balanced_step, j->shared_shifts, j->balanced_shifts};
		for (int k = 0; k < 4; k++)
			v[k] >= 0 ? fprintf(out.f, "%lld,", (long long)v[k]) : fputs(",", out.f);
		fprintf(out.f, "%s,%lld,%lld\n",
		        j->balanced_step >= 0 && j->shared_step >= 0 ? "reached" : j->period ? "recurs" : "capped",
		        (long long)j->period, (long long)j->steps);
	}
	if ((st = lbt_out_commit(&out, e)))
		return st;

	/* y[part][balanced?][method][K]: steps (part b: mean over seeds) */
	double x[MAXK], y[2][2][NM][MAXK];
	for (int k = 0; k < nk; k++)
		x[k] = (double)(Ks[k] * Ks[k]);
	for (int part = 0; part < 2; part++)
		for (int b = 0; b < 2; b++)
			for (int m = 0; m < NM; m++)
				for (int k = 0; k < nk; k++)
					y[part][b][m][k] = mean_steps(jobs[part][m][k], part ? SEEDS : 1, b);
	double spread = 0, apart = 0; /* largest relative and absolute spread of C3..C5 */
	for (int k = 0; k < nk; k++) {
		double lo = INFINITY, hi = -INFINITY;
		for (int m = 3; m < 6; m++) {
			lo = fmin(lo, y[0][1][m][k]);
			hi = fmax(hi, y[0][1][m][k]);
		}
		spread = fmax(spread, (hi - lo) / lo);
		apart = fmax(apart, hi - lo);
	}
	char same[160], lin[2][400];
	if (spread == 0)
		snprintf(same, sizeof same, "identical at every K");
	else
		snprintf(same, sizeof same, "differ by at most %.0f step%s at any K", apart, apart == 1 ? "" : "s");
	const double sla = rp_loglog_slope(x, y[0][1][5], nk);
	snprintf(lin[0], sizeof lin[0], "%s", rp_linear_word(sla));
	/* (b): one least-squares log-log slope per seed over every K (a slope
	 * between two neighbouring sizes is as noisy as the two runs); their
	 * median is ours, their range the spread. */
	double sls[SEEDS];
	int nsl = 0;
	for (int s = 0; s < SEEDS; s++) {
		double sx = 0, sy = 0, sxx = 0, sxy = 0;
		int m = 0;
		for (int k = 0; k < nk; k++) {
			int64_t t = jobs[1][5][k][s].balanced_step;
			if (t <= 0)
				continue;
			double lx = log(x[k]), ly = log((double)t);
			sx += lx, sy += ly, sxx += lx * lx, sxy += lx * ly, m++;
		}
		if (m >= 2 && m * sxx - sx * sx > 0)
			sls[nsl++] = (m * sxy - sx * sy) / (m * sxx - sx * sx);
	}
	qsort(sls, (size_t)nsl, sizeof *sls, cmp_double);
	const double slb = !nsl ? NAN : nsl % 2 ? sls[nsl / 2] : 0.5 * (sls[nsl / 2 - 1] + sls[nsl / 2]);
	if (nsl)
		snprintf(lin[1], sizeof lin[1], "%s: median over %d seeds, min %.3f, max %.3f; T grows about as P^%.2f "
		         "for P = %.0f..%.0f, where the paper states linear growth", rp_linear_word(slb), nsl, sls[0],
		         sls[nsl - 1], slb, x[0], x[nk - 1]);
	else
		snprintf(lin[1], sizeof lin[1], "no seed balanced on two tori");

	if ((st = rp_open(o, "fig7.md", &out, e)))
		return st;
	FILE *f = out.f;
	fprintf(f, "# Fig. 7 of Henrich (1996): the Liquid model on square 2-D tori\n\n"
	      "K x K torus, P = K² PEs. Time in steps (iterations; one step = 2 shifts).\n"
	      "(a) worst case: 5·P units on PE (0, 0). (b) i.i.d. uniform loads 0..100, mean over\n"
	      "seeds 1..%d (the spread over seeds is in `fig7.csv` and below). Balanced: max − min ≤ D = 2 (Definition 2); shared: every PE holds load.\n"
	      "\"never\": the state recurs first (proved by the run), so the criterion never holds.\n"
	      "Data: `fig7.csv`; plots: `fig7a.png`, `fig7b.png`.\n\n", SEEDS);
	for (int part = 0; part < 2; part++)
		for (int b = 1; b >= 0; b--) {
			fprintf(f, "### (%c) steps until %s\n\n| K | P |", part ? 'b' : 'a', b ? "balanced" : "shared");
			for (int m = 0; m < NM; m++)
				fprintf(f, " %s |", methods[m]);
			fputs("\n|---:|---:|", f);
			for (int m = 0; m < NM; m++)
				fputs("---:|", f);
			for (int k = 0; k < nk; k++) {
				fprintf(f, "\n| %lld | %lld |", (long long)Ks[k], (long long)(Ks[k] * Ks[k]));
				for (int m = 0; m < NM; m++)
					md_val(f, y[part][b][m][k], &jobs[part][m][k][0]);
			}
			fputs("\n\n", f);
		}
	fprintf(f, "### (b) LM-C5 steps until balanced: spread over the %d seeds\n\n"
	        "The 95 %% confidence interval of the mean is mean ± t·s/√n (Student t, n − 1 degrees of freedom).\n\n"
	        "| K | P | mean | 95 %% CI of the mean | min | median | max |\n|---:|---:|---:|---:|---:|---:|---:|\n", SEEDS);
	for (int k = 0; k < nk; k++) {
		double v[SEEDS];
		int nv = 0;
		for (int s = 0; s < SEEDS; s++)
			if (jobs[1][5][k][s].balanced_step >= 0)
				v[nv++] = (double)jobs[1][5][k][s].balanced_step;
		qsort(v, (size_t)nv, sizeof *v, cmp_double);
		double mean = 0, ss = 0;
		for (int i = 0; i < nv; i++)
			mean += v[i] / nv;
		for (int i = 0; i < nv; i++)
			ss += (v[i] - mean) * (v[i] - mean);
		double half = nv > 1 ? t95(nv - 1) * sqrt(ss / (nv - 1) / nv) : NAN;
		if (nv)
			fprintf(f, "| %lld | %lld | %.1f | %.1f–%.1f | %.0f | %.1f | %.0f |\n", (long long)Ks[k],
			        (long long)(Ks[k] * Ks[k]), mean, mean - half, mean + half, v[0],
			        nv % 2 ? v[nv / 2] : 0.5 * (v[nv / 2 - 1] + v[nv / 2]), v[nv - 1]);
	}
	fputs("\n## The paper's statements beside ours\n\n", f);
	rp_md_claims_head(f);
	rp_md_claim(f, &cl[0], spread, same);
	rp_md_claim(f, &cl[1], sla, lin[0]);
	rp_md_claim(f, &cl[2], slb, lin[1]);
	if ((st = lbt_out_commit(&out, e)))
		return st;

	/* (a): balanced and shared for C3..C5 (C0..C2 never); (b): balanced
	 * C3..C5, LM-C5 with min–max bars over the seeds, shared C0 and C5. */
	lbt_series sa[6], sb[5];
	char la[6][40], lb[5][40];
	double lo[MAXK], hi[MAXK];
	for (int k = 0; k < nk; k++) {
		lo[k] = INFINITY, hi[k] = -INFINITY;
		for (int s = 0; s < SEEDS; s++) {
			double v = jobs[1][5][k][s].balanced_step >= 0 ? (double)jobs[1][5][k][s].balanced_step : NAN;
			lo[k] = fmin(lo[k], v), hi[k] = fmax(hi[k], v);
		}
	}
	for (int m = 5; m >= 3; m--) { /* C5 first: a curve hidden under it is drawn dashed */
		snprintf(la[5 - m], sizeof la[0], "LM-C%d balanced", m);
		snprintf(la[8 - m], sizeof la[0], "LM-C%d shared", m);
		sa[5 - m] = (lbt_series){.label = la[5 - m], .x = x, .y = y[0][1][m], .n = nk, .colour = m - 2};
		sa[8 - m] = (lbt_series){.label = la[8 - m], .x = x, .y = y[0][0][m], .n = nk, .colour = m - 2, .dash = 3};
		snprintf(lb[5 - m], sizeof lb[0], "LM-C%d balanced", m);
		sb[5 - m] = (lbt_series){.label = lb[5 - m], .x = x, .y = y[1][1][m], .n = nk, .colour = m - 2};
	}
	sb[0].lo = lo, sb[0].hi = hi; /* LM-C5: the spread over the seeds */
	snprintf(lb[3], sizeof lb[0], "LM-C0 shared");
	snprintf(lb[4], sizeof lb[0], "LM-C5 shared");
	sb[3] = (lbt_series){.label = lb[3], .x = x, .y = y[1][0][0], .n = nk, .colour = 4, .dash = 3};
	sb[4] = (lbt_series){.label = lb[4], .x = x, .y = y[1][0][5], .n = nk, .colour = 3, .dash = 3};
	int c02_never = 1; /* say so only if this run showed it */
	for (int m = 0; m < 3; m++)
		for (int k = 0; k < nk; k++)
			c02_never &= jobs[0][m][k][0].period > 0 && jobs[0][m][k][0].shared_step < 0;
	char na[200], nb[300], nta[300], ntb[400];
	rp_mark_coinciding(sa, 6, na, sizeof na);
	if (!*na && spread < 0.01) { /* C3..C5 balanced one step apart: one curve on the plot, said so */
		sa[1].dash = 2, sa[1].point = 6, sa[2].dash = 4, sa[2].point = 8;
		snprintf(na, sizeof na, "LM-C3, C4, C5 balanced: at most %.0f step%s apart", apart, apart == 1 ? "" : "s");
	}
	rp_mark_coinciding(sb, 3, nb, sizeof nb); /* the balanced curves; C5's bars stay on C5 */
	snprintf(nta, sizeof nta, "%s%s%s", na, *na && c02_never ? "; " : "",
	         c02_never ? "LM-C0..C2 never share nor balance" : "");
	snprintf(ntb, sizeof ntb, "%s%smeans of %d seeds; bars: min–max", nb, *nb ? "; " : "", SEEDS);
	lbt_axes aa = {.title = "Fig. 7(a): LM on K x K tori, worst case c = 5", .xlabel = "number of PEs P = K x K",
	               .ylabel = "time T [steps; 1 step = 2 shifts]", .logx = 1, .logy = 1, .intx = 1, .inty = 1,
	               .note = nta, .key = "bottom right"};
	lbt_axes ab = {.title = "Fig. 7(b): LM on K x K tori, uniform random loads 0..100",
	               .xlabel = "number of PEs P = K x K", .ylabel = "time T [steps; 1 step = 2 shifts]", .logx = 1,
	               .logy = 1, .intx = 1, .inty = 1, .note = ntb, .key = "center right"};
	int s1 = rp_plot(o, "fig7a", &aa, sa, 6, e);
	if (s1 && s1 != LBT_EUNSUP)
		return s1;
	int s2 = rp_plot(o, "fig7b", &ab, sb, 5, e);
	return s2 ? s2 : s1;
}

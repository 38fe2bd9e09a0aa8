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

/* Fig. 7's runs (jobs[part][method][K][seed]; part a uses seed slot 0
 * only; list: the n runs in the order they were made) and what is measured
 * from them: steps per part, criterion, method and K (part b: the mean over
 * the seeds), how far apart LM-C3..C5 balance in (a), and the growth with P. */
typedef struct {
	rp_job (*jobs)[NM][MAXK][SEEDS];
	const rp_job *const *list;
	int n, nk;
	const int64_t *Ks;
	const rp_claim *cl;
	double x[MAXK], y[2][2][NM][MAXK]; /* y[part][balanced?][method][K] */
	double spread, apart; /* (a): the largest relative and absolute spread of C3..C5 balanced */
	double sla, slb;      /* LM-C5's log-log slope to balanced: (a), and (b)'s median over the seeds */
	char same[160], lin[2][400];
} fig7;

static int fig7_csv(const lbt_repro_opts *o, const fig7 *F, lbt_err *e)
{
	lbt_outfile out;
	int st = rp_open(o, "fig7.csv", &out, e);
	if (st)
		return st;
	fputs("part,K,P,method,init,seed,shared_steps,balanced_steps,shared_shifts,balanced_shifts,outcome,period,steps_run\n",
	      out.f);
	for (int i = 0; i < F->n; i++) {
		const rp_job *j = F->list[i];
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
	return lbt_out_commit(&out, e);
}

/* (b): one least-squares log-log slope per seed over every K (a slope
 * between two neighbouring sizes is as noisy as the two runs); their median
 * is ours, their range the spread. */
static void fig7_slope_b(fig7 *F)
{
	const int nk = F->nk;
	double sls[SEEDS];
	int nsl = 0;
	for (int s = 0; s < SEEDS; s++) {
		double sx = 0, sy = 0, sxx = 0, sxy = 0;
		int m = 0;
		for (int k = 0; k < nk; k++) {
			int64_t t = F->jobs[1][5][k][s].balanced_step;
			if (t <= 0)
				continue;
			double lx = log(F->x[k]), ly = log((double)t);
			sx += lx, sy += ly, sxx += lx * lx, sxy += lx * ly, m++;
		}
		if (m >= 2 && m * sxx - sx * sx > 0)
			sls[nsl++] = (m * sxy - sx * sy) / (m * sxx - sx * sx);
	}
	qsort(sls, (size_t)nsl, sizeof *sls, cmp_double);
	F->slb = !nsl ? NAN : nsl % 2 ? sls[nsl / 2] : 0.5 * (sls[nsl / 2 - 1] + sls[nsl / 2]);
	if (nsl)
		snprintf(F->lin[1], sizeof F->lin[1], "%s: median over %d seeds, min %.3f, max %.3f; T grows about as P^%.2f "
		         "for P = %.0f..%.0f, where the paper states linear growth", rp_linear_word(F->slb), nsl, sls[0],
		         sls[nsl - 1], F->slb, F->x[0], F->x[nk - 1]);
	else
		snprintf(F->lin[1], sizeof F->lin[1], "no seed balanced on two tori");
}

static void fig7_measure(fig7 *F)
{
	const int nk = F->nk;
	for (int k = 0; k < nk; k++)
		F->x[k] = (double)(F->Ks[k] * F->Ks[k]);
	for (int part = 0; part < 2; part++)
		for (int b = 0; b < 2; b++)
			for (int m = 0; m < NM; m++)
				for (int k = 0; k < nk; k++)
					F->y[part][b][m][k] = mean_steps(F->jobs[part][m][k], part ? SEEDS : 1, b);
	F->spread = F->apart = 0;
	for (int k = 0; k < nk; k++) {
		double lo = INFINITY, hi = -INFINITY;
		for (int m = 3; m < 6; m++) {
			lo = fmin(lo, F->y[0][1][m][k]);
			hi = fmax(hi, F->y[0][1][m][k]);
		}
		F->spread = fmax(F->spread, (hi - lo) / lo);
		F->apart = fmax(F->apart, hi - lo);
	}
	if (F->spread == 0)
		snprintf(F->same, sizeof F->same, "identical at every K");
	else
		snprintf(F->same, sizeof F->same, "differ by at most %.0f step%s at any K", F->apart,
		         F->apart == 1 ? "" : "s");
	F->sla = rp_loglog_slope(F->x, F->y[0][1][5], nk);
	snprintf(F->lin[0], sizeof F->lin[0], "%s", rp_linear_word(F->sla));
	fig7_slope_b(F);
}

/* fig7.md's head and its tables of steps per method and K. */
static void fig7_tables(FILE *f, const fig7 *F)
{
	static const char *const methods[NM] = {"lm-c0", "lm-c1", "lm-c2", "lm-c3", "lm-c4", "lm-c5"};
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
			for (int k = 0; k < F->nk; k++) {
				fprintf(f, "\n| %lld | %lld |", (long long)F->Ks[k], (long long)(F->Ks[k] * F->Ks[k]));
				for (int m = 0; m < NM; m++)
					md_val(f, F->y[part][b][m][k], &F->jobs[part][m][k][0]);
			}
			fputs("\n\n", f);
		}
}

/* (b): LM-C5's steps until balanced over the seeds at each K. */
static void fig7_seed_spread(FILE *f, const fig7 *F)
{
	fprintf(f, "### (b) LM-C5 steps until balanced: spread over the %d seeds\n\n"
	        "The 95 %% confidence interval of the mean is mean ± t·s/√n (Student t, n − 1 degrees of freedom).\n\n"
	        "| K | P | mean | 95 %% CI of the mean | min | median | max |\n|---:|---:|---:|---:|---:|---:|---:|\n", SEEDS);
	for (int k = 0; k < F->nk; k++) {
		double v[SEEDS];
		int nv = 0;
		for (int s = 0; s < SEEDS; s++)
			if (F->jobs[1][5][k][s].balanced_step >= 0)
				v[nv++] = (double)F->jobs[1][5][k][s].balanced_step;
		qsort(v, (size_t)nv, sizeof *v, cmp_double);
		double mean = 0, ss = 0;
		for (int i = 0; i < nv; i++)
			mean += v[i] / nv;
		for (int i = 0; i < nv; i++)
			ss += (v[i] - mean) * (v[i] - mean);
		double half = nv > 1 ? t95(nv - 1) * sqrt(ss / (nv - 1) / nv) : NAN;
		if (nv)
			fprintf(f, "| %lld | %lld | %.1f | %.1f–%.1f | %.0f | %.1f | %.0f |\n", (long long)F->Ks[k],
			        (long long)(F->Ks[k] * F->Ks[k]), mean, mean - half, mean + half, v[0],
			        nv % 2 ? v[nv / 2] : 0.5 * (v[nv / 2 - 1] + v[nv / 2]), v[nv - 1]);
	}
}

static int fig7_md(const lbt_repro_opts *o, const fig7 *F, lbt_err *e)
{
	lbt_outfile out;
	int st = rp_open(o, "fig7.md", &out, e);
	if (st)
		return st;
	FILE *f = out.f;
	fig7_tables(f, F);
	fig7_seed_spread(f, F);
	fputs("\n## The paper's statements beside ours\n\n", f);
	rp_md_claims_head(f);
	rp_md_claim(f, &F->cl[0], F->spread, F->same);
	rp_md_claim(f, &F->cl[1], F->sla, F->lin[0]);
	rp_md_claim(f, &F->cl[2], F->slb, F->lin[1]);
	return lbt_out_commit(&out, e);
}

/* The plots' curves: (a) balanced and shared for C3..C5 (C0..C2 never; C5
 * first: a curve hidden under it is drawn dashed); (b) balanced C3..C5,
 * LM-C5 with min–max bars over the seeds, shared C0 and C5. */
typedef struct {
	int part, balanced, method, colour, dash;
} fig7_curve;
static const struct {
	const char *stem, *title, *key;
	fig7_curve curve[6];
	int ncurves;
	int marked; /* the first curves checked for coinciding points */
} fig7_plot[2] = {
	{"fig7a", "Fig. 7(a): LM on K x K tori, worst case c = 5", "bottom right",
	 {{0, 1, 5, 3, 0}, {0, 1, 4, 2, 0}, {0, 1, 3, 1, 0}, {0, 0, 5, 3, 3}, {0, 0, 4, 2, 3}, {0, 0, 3, 1, 3}}, 6, 6},
	{"fig7b", "Fig. 7(b): LM on K x K tori, uniform random loads 0..100", "center right",
	 {{1, 1, 5, 3, 0}, {1, 1, 4, 2, 0}, {1, 1, 3, 1, 0}, {1, 0, 0, 4, 3}, {1, 0, 5, 3, 3}}, 5, 3},
};

/* The note under plot p: which curves coincide, and what this run showed. */
static void fig7_note(const fig7 *F, int p, lbt_series *s, char *note, size_t n)
{
	char marks[300];
	rp_mark_coinciding(s, fig7_plot[p].marked, marks, p ? 300 : 200); /* (b): its balanced curves; C5's bars stay */
	if (p) {
		snprintf(note, n, "%s%smeans of %d seeds; bars: min–max", marks, *marks ? "; " : "", SEEDS);
		return;
	}
	if (!*marks && F->spread < 0.01) { /* C3..C5 balanced one step apart: one curve on the plot, said so */
		s[1].dash = 2, s[1].point = 6, s[2].dash = 4, s[2].point = 8;
		snprintf(marks, 200, "LM-C3, C4, C5 balanced: at most %.0f step%s apart", F->apart, F->apart == 1 ? "" : "s");
	}
	int c02_never = 1; /* say so only if this run showed it */
	for (int m = 0; m < 3; m++)
		for (int k = 0; k < F->nk; k++)
			c02_never &= F->jobs[0][m][k][0].period > 0 && F->jobs[0][m][k][0].shared_step < 0;
	snprintf(note, n, "%s%s%s", marks, *marks && c02_never ? "; " : "",
	         c02_never ? "LM-C0..C2 never share nor balance" : "");
}

static int fig7_plots(const lbt_repro_opts *o, const fig7 *F, lbt_err *e)
{
	double lo[MAXK], hi[MAXK]; /* LM-C5 balanced in (b): the spread over the seeds */
	for (int k = 0; k < F->nk; k++) {
		lo[k] = INFINITY, hi[k] = -INFINITY;
		for (int s = 0; s < SEEDS; s++) {
			double v = F->jobs[1][5][k][s].balanced_step >= 0 ? (double)F->jobs[1][5][k][s].balanced_step : NAN;
			lo[k] = fmin(lo[k], v), hi[k] = fmax(hi[k], v);
		}
	}
	int status = LBT_OK;
	for (int p = 0; p < 2; p++) {
		lbt_series s[6];
		char label[6][40], note[400];
		for (int i = 0; i < fig7_plot[p].ncurves; i++) {
			const fig7_curve *c = &fig7_plot[p].curve[i];
			snprintf(label[i], sizeof label[i], "LM-C%d %s", c->method, c->balanced ? "balanced" : "shared");
			s[i] = (lbt_series){.label = label[i], .x = F->x, .y = F->y[c->part][c->balanced][c->method], .n = F->nk,
			                    .colour = c->colour, .dash = c->dash};
		}
		if (p)
			s[0].lo = lo, s[0].hi = hi;
		fig7_note(F, p, s, note, sizeof note);
		lbt_axes ax = {.title = fig7_plot[p].title, .xlabel = "number of PEs P = K x K",
		               .ylabel = "time T [steps; 1 step = 2 shifts]", .logx = 1, .logy = 1, .intx = 1, .inty = 1,
		               .note = note, .key = fig7_plot[p].key};
		int sp = rp_plot(o, fig7_plot[p].stem, &ax, s, fig7_plot[p].ncurves, e);
		if (sp && sp != LBT_EUNSUP)
			return sp;
		status = sp ? sp : status;
	}
	return status;
}

static int fig7_write(const lbt_repro_opts *o, rp_job (*jobs)[NM][MAXK][SEEDS], const rp_job *const *list, int n,
                      const int64_t *Ks, int nk, const rp_claim *cl, lbt_err *e)
{
	fig7 F = {.jobs = jobs, .list = list, .n = n, .nk = nk, .Ks = Ks, .cl = cl};
	fig7_measure(&F);
	int st = fig7_csv(o, &F, e);
	if (!st)
		st = fig7_md(o, &F, e);
	return st ? st : fig7_plots(o, &F, e);
}

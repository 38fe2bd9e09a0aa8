/* repro_rings.c — `lbtorus reproduce fig5|fig6`: Henrich's (1996) ring
 * simulations. Fig. 5: the worst case (c = 5 units per PE, all on P0),
 * shifts until shared and until balanced for LM-C0..C5 and NNA against P.
 * Fig. 6: NNA's iterations until balanced against P for several initial
 * loads c, each curve normalized to 1 at P = 512 as the paper does.
 *
 * Balanced is Definition 2 (max - min <= D = 1 on a ring). A run that never
 * gets there (its state recurs) is reported as never, not as a number. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "repro.h"

enum { MAXP = 16, MAXM = 8, MAXC = 8 };

static const char *outcome(const rp_job *j)
{
	return j->balanced_step >= 0 && j->shared_step >= 0 ? "reached" : j->period ? "recurs" : "capped";
}

static void md_cell(FILE *f, int64_t v, const rp_job *j)
{
	if (v >= 0)
		fprintf(f, " %lld |", (long long)v);
	else
		fprintf(f, " %s |", j->period ? "never" : "> cap");
}

static double nan_if_never(int64_t v) { return v >= 0 ? (double)v : NAN; }

static int fig5_write(const lbt_repro_opts *o, const rp_job *jobs, const int64_t *Ps, int np, const char *const *methods,
                      int nm, int have_nna, const rp_claim *cl, lbt_err *e);

int rp_fig5(const lbt_repro_opts *o, lbt_err *e)
{
	static const int64_t full[] = {8, 16, 32, 64, 128, 256, 512, 1024, 2048}, quick[] = {8, 16, 32, 64, 128};
	const int64_t *Ps = o->quick ? quick : full;
	const int np = o->quick ? 5 : 9;
	const char *methods[MAXM] = {"lm-c0", "lm-c1", "lm-c2", "lm-c3", "lm-c4", "lm-c5"};
	int nm = 6, have_nna = lbt_method_find("nna") && lbt_method_find("nna-def");
	if (have_nna) {
		methods[nm++] = "nna";
		methods[nm++] = "nna-def";
	} else
		rp_note(o, "fig5: NNA is not built into this lbtorus: LM only");
	rp_claim cl[5];
	static const char *ids[5] = {"fig5_lm_sharing", "fig5_nna_over_lm_balancing", "fig5_nna_over_lm_sharing",
	                             "fig5_lm_linear", "fig5_nna_quadratic"};
	int st = LBT_OK;
	for (int i = 0; i < 5 && !st; i++)
		st = rp_claim_get(o, ids[i], &cl[i], e);
	if (st)
		return st;

	rp_job *jobs = calloc(MAXM * MAXP, sizeof *jobs);
	if (!jobs)
		return lbt_errf(e, LBT_ENOMEM, "fig5: no memory");
	for (int m = 0; m < nm; m++)
		for (int i = 0; i < np; i++) {
			rp_job *j = &jobs[m * np + i];
			snprintf(j->method, sizeof j->method, "%s", methods[m]);
			snprintf(j->shape, sizeof j->shape, "%lld", (long long)Ps[i]);
			snprintf(j->init, sizeof j->init, "worst:5");
			j->seed = 1;
			j->cap = strncmp(methods[m], "nna", 3) ? 40 * Ps[i] + 1000 : 4 * Ps[i] * Ps[i] + 10000;
		}
	rp_note(o, "fig5: %d runs on rings of %lld..%lld PEs", nm * np, (long long)Ps[0], (long long)Ps[np - 1]);
	st = rp_run_jobs(jobs, nm * np, o, e);
	if (!st)
		st = fig5_write(o, jobs, Ps, np, methods, nm, have_nna, cl, e);
	free(jobs);
	return st;
}

/* Fig. 5's runs (jobs[m * np + i]: method m on the ring of Ps[i] PEs) and
 * what is measured from them: LM-C5's sharing against P - 1, and each NNA
 * rule's shifts over LM-C5's (and, balancing, over LM-C3's) at each P. */
typedef struct {
	const rp_job *jobs;
	const int64_t *Ps;
	int np, nm, have_nna;
	const char *const *methods;
	const rp_claim *cl;
	const rp_job *c3, *c5, *rule[2]; /* rule: NNA eq. (5), eq. (4); NULL: not built in */
	double x[MAXP], share_ratio, lmb[MAXP], rb[2][MAXP], rs[2][MAXP], r3[2][MAXP];
	int exact;     /* LM-C5 shares in exactly P - 1 shifts at every P */
	char lmq[160]; /* LM-C5's quadratic share at the largest P */
} fig5;

static int fig5_csv(const lbt_repro_opts *o, const fig5 *F, lbt_err *e)
{
	lbt_outfile out;
	int st = rp_open(o, "fig5.csv", &out, e);
	if (st)
		return st;
	fputs("P,method,init,shared_shifts,balanced_shifts,shared_steps,balanced_steps,outcome,period,steps_run\n", out.f);
	for (int m = 0; m < F->nm; m++)
		for (int i = 0; i < F->np; i++) {
			const rp_job *j = &F->jobs[m * F->np + i];
			fprintf(out.f, "%lld,%s,%s,", (long long)F->Ps[i], j->method, j->init);
			const int64_t v[4] = {j->shared_shifts, j->balanced_shifts, j->shared_step, j->balanced_step};
			for (int k = 0; k < 4; k++)
				v[k] >= 0 ? fprintf(out.f, "%lld,", (long long)v[k]) : fputs(",", out.f);
			fprintf(out.f, "%s,%lld,%lld\n", outcome(j), (long long)j->period, (long long)j->steps);
		}
	return lbt_out_commit(&out, e);
}

/* The paper's statements, measured on LM-C5 and the two NNA rules. The
 * paper gives its ratios "within our range of processor numbers" without a
 * mean or a range: we read ours at our largest P, and give the geometric
 * mean over P beside it only as context. */
static void fig5_measure(fig5 *F)
{
	const int np = F->np;
	F->c3 = &F->jobs[3 * np];
	F->c5 = &F->jobs[5 * np];
	F->rule[0] = F->have_nna ? &F->jobs[6 * np] : NULL;
	F->rule[1] = F->have_nna ? &F->jobs[7 * np] : NULL;
	F->share_ratio = 0;
	F->exact = 1;
	for (int i = 0; i < np; i++) {
		const rp_job *c5 = &F->c5[i];
		F->x[i] = (double)F->Ps[i];
		F->share_ratio += (double)c5->shared_shifts / (double)(F->Ps[i] - 1) / np;
		F->exact &= c5->shared_shifts == F->Ps[i] - 1;
		F->lmb[i] = nan_if_never(c5->balanced_shifts);
		for (int r = 0; r < 2; r++) {
			const rp_job *j = F->rule[r] ? &F->rule[r][i] : NULL;
			F->rb[r][i] = j ? nan_if_never(j->balanced_shifts) / F->lmb[i] : NAN;
			F->r3[r][i] = j ? nan_if_never(j->balanced_shifts) / nan_if_never(F->c3[i].balanced_shifts) : NAN;
			F->rs[r][i] = j && c5->shared_shifts > 0 ? nan_if_never(j->shared_shifts) / (double)c5->shared_shifts
			                                         : NAN;
		}
	}
	double qa, qb;
	const double xl = F->x[np - 1];
	rp_fit_lin_quad(F->x, F->lmb, np, &qa, &qb);
	snprintf(F->lmq, sizeof F->lmq, "LM-C5: %.3f", qb * xl / (qa + qb * xl));
}

/* fig5.md's head and tables: shifts until shared and balanced per method
 * and P, and the NNA rules' ratios to LM at each P. */
static void fig5_tables(FILE *f, const fig5 *F)
{
	fprintf(f, "# Fig. 5 of Henrich (1996): rings, worst case c = 5\n\n"
	        "P PEs in a ring, 5·P load units on P0. Time in shifts (one per LM step; per NNA\n"
	        "iteration, per direction the largest amount on one link). \"never\": the state\n"
	        "recurs before the criterion holds, so it never holds. NNA is run with both rules\n"
	        "the paper's §2.3 gives: eq. (5) with footnote 3's net flows (`nna`, the rule that\n"
	        "reproduces Table 3 exactly) and eq. (4)'s deficiency-based rule (`nna-def`). Data:\n"
	        "`fig5.csv`; plots: `fig5a.png` (balancing), `fig5b.png` (sharing)%s.\n\n",
	        F->have_nna ? "" : ". **NNA is not built into this lbtorus: its columns are missing**");
	for (int crit = 0; crit < 2; crit++) {
		fprintf(f, "### Shifts until %s\n\n| P |", crit ? "balanced (max − min ≤ 1)" : "shared (every PE holds load)");
		for (int m = 0; m < F->nm; m++)
			fprintf(f, " %s |", F->methods[m]);
		fputs("\n|---:|", f);
		for (int m = 0; m < F->nm; m++)
			fputs("---:|", f);
		for (int i = 0; i < F->np; i++) {
			fprintf(f, "\n| %lld |", (long long)F->Ps[i]);
			for (int m = 0; m < F->nm; m++) {
				const rp_job *j = &F->jobs[m * F->np + i];
				md_cell(f, crit ? j->balanced_shifts : j->shared_shifts, j);
			}
		}
		fputs("\n\n", f);
	}
	if (!F->have_nna)
		return;
	fputs("### The two NNA rules against LM at each P\n\n"
	      "| P | eq. (5) / LM-C5, balancing | eq. (5) / LM-C5, sharing | eq. (4) / LM-C5, balancing | "
	      "eq. (4) / LM-C3 = C4, balancing | eq. (4) / LM-C5, sharing |\n|---:|---:|---:|---:|---:|---:|\n", f);
	for (int i = 0; i < F->np; i++)
		fprintf(f, "| %lld | %.2f | %.2f | %.2f | %.2f | %.2f |\n", (long long)F->Ps[i], F->rb[0][i], F->rs[0][i],
		        F->rb[1][i], F->r3[1][i], F->rs[1][i]);
	fputc('\n', f);
}

/* The paper's statements beside ours: LM's sharing, each NNA rule's
 * balancing and sharing against LM, LM's linear and NNA's quadratic growth. */
static void fig5_claims(FILE *f, const fig5 *F)
{
	static const char *const rule_name[2] = {"NNA of eq. (5) (`nna`, reproduces Table 3)",
	                                         "NNA of eq. (4) (`nna-def`, deficiency-based)"};
	const int np = F->np;
	const long long P0 = (long long)F->Ps[0], Pn = (long long)F->Ps[np - 1];
	char txt[600];
	fputs("## The paper's statements beside ours\n\n", f);
	rp_md_claims_head(f);
	rp_md_claim(f, &F->cl[0], F->share_ratio, F->exact ? "T = P − 1 exactly for every P" : "not P − 1 for every P");
	for (int k = 0; k < 2; k++) { /* balancing, sharing: one row per NNA rule */
		const double(*rt)[MAXP] = k ? F->rs : F->rb;
		for (int r = 0; r < 2; r++) {
			rp_claim c = F->cl[1 + k];
			if (snprintf(c.quantity, sizeof c.quantity, "%s — %s", F->cl[1 + k].quantity, rule_name[r]) >=
			    (int)sizeof c.quantity) /* a quantity too long for the table: cut, and said so */
				memcpy(c.quantity + sizeof c.quantity - 4, "...", 4);
			if (!F->have_nna) {
				rp_md_claim(f, &c, NAN, "NNA not built in");
				continue;
			}
			double lg = 0;
			int nl = 0;
			for (int i = 0; i < np; i++)
				if (isfinite(rt[r][i]) && rt[r][i] > 0)
					lg += log(rt[r][i]), nl++;
			int len = snprintf(txt, sizeof txt, "at P = %lld (geometric mean over P = %lld..%lld: %.2f)", Pn, P0, Pn,
			                   nl ? exp(lg / nl) : NAN);
			if (!k)
				snprintf(txt + len, sizeof txt - (size_t)len, "; against LM-C3 = C4: %.2f", F->r3[r][np - 1]);
			rp_md_claim(f, &c, rt[r][np - 1], txt);
		}
	}
	double sl = rp_loglog_slope(F->x, F->lmb, np);
	rp_md_claim(f, &F->cl[3], sl, rp_linear_word(sl));
	if (!F->have_nna) {
		snprintf(txt, sizeof txt, "NNA not built in; %s", F->lmq);
		rp_md_claim(f, &F->cl[4], NAN, txt);
		return;
	}
	double nb[MAXP], a, b;
	const double xl = F->x[np - 1];
	int len = 0;
	for (int r = 0; r < 2; r++) {
		for (int i = 0; i < np; i++)
			nb[i] = nan_if_never(F->rule[r][i].balanced_shifts);
		rp_fit_lin_quad(F->x, nb, np, &a, &b);
		len += snprintf(txt + len, sizeof txt - (size_t)len, "NNA eq. (%d): %.3f; ", r ? 4 : 5, b * xl / (a + b * xl));
	}
	snprintf(txt + len, sizeof txt - (size_t)len, "%s", F->lmq);
	rp_md_claim(f, &F->cl[4], NAN, txt);
}

/* Which NNA rule the paper ran: our hypothesis, from the ratios at the largest P. */
static void fig5_hypothesis(FILE *f, const fig5 *F)
{
	const int n = F->np - 1;
	fprintf(f, "\n**Which NNA the paper ran (our hypothesis).** Our `nna` follows eq. (5) with footnote 3's net "
	        "flows and §5's rounding, and reproduces every row of Table 3; yet on Fig. 5's rings it is "
	        "%.2f times slower than LM-C5 to balance and %.2f times slower to share at P = %lld, well short of the "
	        "paper's \"about four times\" and \"23 times\". The deficiency-based rule of eq. (4) gives %.2f (%.2f "
	        "against LM-C3 = C4) and %.2f there, close to both statements. §5 says only that \"a synchronous "
	        "variation of the method in Section 2.3 is used\", and Section 2.3 gives both equations, so the paper's "
	        "Fig. 5 may have been drawn with eq. (4) while Table 3 was drawn with eq. (5). We cannot decide this "
	        "from the text: the figure's data points are not printed, nor the range of P behind \"within our "
	        "range of processor numbers\" (our largest ring, P = %lld, stands in for its top). Both rules are "
	        "therefore shown.\n",
	        F->rb[0][n], F->rs[0][n], (long long)F->Ps[n], F->rb[1][n], F->r3[1][n], F->rs[1][n], (long long)F->Ps[n]);
}

static int fig5_md(const lbt_repro_opts *o, const fig5 *F, lbt_err *e)
{
	lbt_outfile out;
	int st = rp_open(o, "fig5.md", &out, e);
	if (st)
		return st;
	fig5_tables(out.f, F);
	fig5_claims(out.f, F);
	if (F->have_nna)
		fig5_hypothesis(out.f, F);
	return lbt_out_commit(&out, e);
}

/* The two plots: shifts until balanced (a) and until shared (b) against P,
 * one curve per method. */
static const struct {
	const char *stem, *title, *ylabel, *key;
	int balanced; /* y: shifts until balanced, else until shared */
} fig5_plot[2] = {
	{"fig5a", "Fig. 5(a): balancing in a ring, worst case c = 5", "time until balanced T [shifts]", "top left", 1},
	{"fig5b", "Fig. 5(b): sharing in a ring, worst case c = 5", "time until every PE holds load T [shifts]",
	 "bottom right", 0},
};

static int fig5_plots(const lbt_repro_opts *o, const fig5 *F, lbt_err *e)
{
	static const char *const label[MAXM] = {"LM-C0", "LM-C1", "LM-C2", "LM-C3", "LM-C4", "LM-C5", "NNA eq. (5)",
	                                        "NNA eq. (4)"};
	const int np = F->np;
	int c02_never = 1; /* say so in (a)'s note only if this run showed it */
	for (int m = 0; m < 3; m++)
		for (int i = 0; i < np; i++)
			c02_never &= F->jobs[m * np + i].period > 0 && F->jobs[m * np + i].balanced_step < 0;
	int status = LBT_OK;
	for (int p = 0; p < 2; p++) {
		double y[MAXM][MAXP];
		lbt_series s[MAXM];
		for (int m = 0; m < F->nm; m++) {
			for (int i = 0; i < np; i++) {
				const rp_job *j = &F->jobs[m * np + i];
				y[m][i] = nan_if_never(fig5_plot[p].balanced ? j->balanced_shifts : j->shared_shifts);
			}
			s[m] = (lbt_series){.label = label[m], .x = F->x, .y = y[m], .n = np};
		}
		char marks[200], note[300];
		rp_mark_coinciding(s, F->nm, marks, sizeof marks);
		const int c02 = fig5_plot[p].balanced && c02_never;
		snprintf(note, sizeof note, "%s%s%s", marks, *marks && c02 ? "; " : "", c02 ? "LM-C0..C2 never balance" : "");
		lbt_axes ax = {.title = fig5_plot[p].title, .xlabel = "number of PEs P", .ylabel = fig5_plot[p].ylabel,
		               .logx = 1, .logy = 1, .intx = 1, .inty = 1, .note = note, .key = fig5_plot[p].key};
		int sp = rp_plot(o, fig5_plot[p].stem, &ax, s, F->nm, e);
		if (sp && sp != LBT_EUNSUP)
			return sp;
		status = sp ? sp : status;
	}
	return status;
}

static int fig5_write(const lbt_repro_opts *o, const rp_job *jobs, const int64_t *Ps, int np, const char *const *methods,
                      int nm, int have_nna, const rp_claim *cl, lbt_err *e)
{
	fig5 F = {.jobs = jobs, .Ps = Ps, .np = np, .nm = nm, .have_nna = have_nna, .methods = methods, .cl = cl};
	fig5_measure(&F);
	int st = fig5_csv(o, &F, e);
	if (!st)
		st = fig5_md(o, &F, e);
	if (!st)
		st = fig5_plots(o, &F, e);
	return st ? st : have_nna ? LBT_OK : lbt_errf(e, LBT_EUNSUP, "fig5: NNA is not built in; LM only");
}

static int fig6_write(const lbt_repro_opts *o, const rp_job *jobs, const int64_t *Ps, int np, const int *cs, int nc,
                      const rp_claim *clp, lbt_err *e);

int rp_fig6(const lbt_repro_opts *o, lbt_err *e)
{
	if (!lbt_method_find("nna"))
		return lbt_errf(e, LBT_EUNSUP, "fig6 is about NNA, which is not built into this lbtorus");
	static const int64_t full[] = {8, 11, 16, 23, 32, 45, 64, 91, 128, 181, 256, 362, 512},
	                     quick[] = {8, 11, 16, 23, 32, 45, 64};
	static const int cs[] = {1, 2, 5, 10, 20};
	const int64_t *Ps = o->quick ? quick : full;
	const int np = o->quick ? 7 : 13, nc = 5;
	rp_claim cl;
	int st = rp_claim_get(o, "fig6_quadratic_grows_with_c", &cl, e);
	if (st)
		return st;
	rp_job *jobs = calloc(MAXC * 16, sizeof *jobs);
	if (!jobs)
		return lbt_errf(e, LBT_ENOMEM, "fig6: no memory");
	for (int c = 0; c < nc; c++)
		for (int i = 0; i < np; i++) {
			rp_job *j = &jobs[c * np + i];
			snprintf(j->method, sizeof j->method, "nna");
			snprintf(j->shape, sizeof j->shape, "%lld", (long long)Ps[i]);
			snprintf(j->init, sizeof j->init, "worst:%d", cs[c]);
			j->seed = 1;
			j->cap = 4 * Ps[i] * Ps[i] + 10000;
		}
	rp_note(o, "fig6: %d NNA runs on rings of %lld..%lld PEs", nc * np, (long long)Ps[0], (long long)Ps[np - 1]);
	st = rp_run_jobs(jobs, nc * np, o, e);
	if (!st)
		st = fig6_write(o, jobs, Ps, np, cs, nc, &cl, e);
	free(jobs);
	return st;
}

static int fig6_write(const lbt_repro_opts *o, const rp_job *jobs, const int64_t *Ps, int np, const int *cs, int nc,
                      const rp_claim *clp, lbt_err *e)
{
	const rp_claim cl = *clp;
	int st;

	lbt_outfile out;
	double x[16], y[MAXC][16];
	const int64_t Pn = Ps[np - 1];
	if ((st = rp_open(o, "fig6.csv", &out, e)))
		return st;
	fputs("P,c,iterations,shifts,normalized_iterations,outcome\n", out.f);
	for (int c = 0; c < nc; c++) {
		const rp_job *ref = &jobs[c * np + np - 1];
		for (int i = 0; i < np; i++) {
			const rp_job *j = &jobs[c * np + i];
			x[i] = (double)Ps[i];
			y[c][i] = j->balanced_step >= 0 && ref->balanced_step > 0
				? (double)j->balanced_step / (double)ref->balanced_step : NAN;
			fprintf(out.f, "%lld,%d,%lld,%lld,%.6g,%s\n", (long long)Ps[i], cs[c], (long long)j->balanced_step,
			        (long long)j->balanced_shifts, y[c][i], outcome(j));
		}
	}
	if ((st = lbt_out_commit(&out, e)))
		return st;

	if ((st = rp_open(o, "fig6.md", &out, e)))
		return st;
	FILE *f = out.f;
	fprintf(f, "# Fig. 6 of Henrich (1996): NNA's iterations against P for initial loads c·P\n\n"
	        "All c·P units on P0 of a ring of P PEs; NNA iterations until balanced, each curve\n"
	        "divided by its value at P = %lld%s. Data: `fig6.csv`; plot: `fig6.png`.\n\n| P |",
	        (long long)Pn, Pn == 512 ? " (as the paper does)" : " (--quick: the paper normalizes at 512)");
	for (int c = 0; c < nc; c++)
		fprintf(f, " c = %d |", cs[c]);
	fputs("\n|---:|", f);
	for (int c = 0; c < nc; c++)
		fputs("---:|", f);
	for (int i = 0; i < np; i++) {
		fprintf(f, "\n| %lld |", (long long)Ps[i]);
		for (int c = 0; c < nc; c++)
			fprintf(f, " %lld (%.3f) |", (long long)jobs[c * np + i].balanced_step, y[c][i]);
	}
	fputs("\n\nCells: iterations (normalized).\n\n## The paper's statement beside ours\n\n", f);
	char txt[300];
	int len = snprintf(txt, sizeof txt, "log-log slope over the two largest P:");
	int rising = 1;
	double prev = -INFINITY;
	for (int c = 0; c < nc; c++) {
		double s = rp_loglog_slope(x, y[c], np);
		len += snprintf(txt + len, sizeof txt - (size_t)len, " c=%d: %.2f;", cs[c], s);
		rising &= s >= prev;
		prev = s;
	}
	snprintf(txt + len, sizeof txt - (size_t)len, " %s with c", rising ? "rises" : "does not rise monotonically");
	rp_md_claims_head(f);
	rp_md_claim(f, &cl, NAN, txt);
	if ((st = lbt_out_commit(&out, e)))
		return st;

	lbt_series s[MAXC];
	char labels[MAXC][32];
	for (int c = 0; c < nc; c++) {
		snprintf(labels[c], sizeof labels[c], "NNA, c = %d", cs[c]);
		s[c] = (lbt_series){.label = labels[c], .x = x, .y = y[c], .n = np};
	}
	char title[160];
	snprintf(title, sizeof title, "Fig. 6: NNA iterations until balanced, normalized to 1 at P = %lld", (long long)Pn);
	char ylabel[96];
	snprintf(ylabel, sizeof ylabel, "NNA iterations / iterations at P = %lld [1]", (long long)Pn);
	/* linear: the quadratic part shows as curvature */
	lbt_axes ax = {.title = title, .xlabel = "number of PEs P", .ylabel = ylabel, .intx = 1, .key = "top left"};
	return rp_plot(o, "fig6", &ax, s, nc, e);
}

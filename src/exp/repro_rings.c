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

static int fig5_write(const lbt_repro_opts *o, const rp_job *jobs, const int64_t *Ps, int np, const char *const *methods,
                      int nm, int have_nna, const rp_claim *cl, lbt_err *e)
{
	static const char *const label[MAXM] = {"LM-C0", "LM-C1", "LM-C2", "LM-C3", "LM-C4", "LM-C5", "NNA eq. (5)",
	                                        "NNA eq. (4)"};
	int st;

	lbt_outfile out;
	if ((st = rp_open(o, "fig5.csv", &out, e)))
		return st;
	fputs("P,method,init,shared_shifts,balanced_shifts,shared_steps,balanced_steps,outcome,period,steps_run\n", out.f);
	for (int m = 0; m < nm; m++)
		for (int i = 0; i < np; i++) {
			const rp_job *j = &jobs[m * np + i];
			fprintf(out.f, "%lld,%s,%s,", (long long)Ps[i], j->method, j->init);
			const int64_t v[4] = {j->shared_shifts, j->balanced_shifts, j->shared_step, j->balanced_step};
			for (int k = 0; k < 4; k++)
				v[k] >= 0 ? fprintf(out.f, "%lld,", (long long)v[k]) : fputs(",", out.f);
			fprintf(out.f, "%s,%lld,%lld\n", outcome(j), (long long)j->period, (long long)j->steps);
		}
	if ((st = lbt_out_commit(&out, e)))
		return st;

	/* The paper's statements, measured on LM-C5 and the two NNA rules. The
	 * paper gives its ratios "within our range of processor numbers" without
	 * a mean or a range: we read ours at our largest P, and give the
	 * geometric mean over P beside it only as context. */
	const rp_job *c3 = &jobs[3 * np], *c5 = &jobs[5 * np];
	const rp_job *rule[2] = {have_nna ? &jobs[6 * np] : NULL, have_nna ? &jobs[7 * np] : NULL};
	static const char *const rule_name[2] = {"NNA of eq. (5) (`nna`, reproduces Table 3)",
	                                         "NNA of eq. (4) (`nna-def`, deficiency-based)"};
	double x[MAXP], share_ratio = 0, lmb[MAXP], rb[2][MAXP], rs[2][MAXP], r3[2][MAXP];
	int exact = 1;
	for (int i = 0; i < np; i++) {
		x[i] = (double)Ps[i];
		share_ratio += (double)c5[i].shared_shifts / (double)(Ps[i] - 1) / np;
		exact &= c5[i].shared_shifts == Ps[i] - 1;
		lmb[i] = nan_if_never(c5[i].balanced_shifts);
		for (int r = 0; r < 2; r++) {
			rb[r][i] = rule[r] ? nan_if_never(rule[r][i].balanced_shifts) / lmb[i] : NAN;
			r3[r][i] = rule[r] ? nan_if_never(rule[r][i].balanced_shifts) / nan_if_never(c3[i].balanced_shifts) : NAN;
			rs[r][i] = rule[r] && c5[i].shared_shifts > 0
				? nan_if_never(rule[r][i].shared_shifts) / (double)c5[i].shared_shifts : NAN;
		}
	}
	double a, b, qa, qb;
	rp_fit_lin_quad(x, lmb, np, &qa, &qb);
	char lmq[160], txt[600];
	snprintf(lmq, sizeof lmq, "LM-C5: %.3f", qb * x[np - 1] / (qa + qb * x[np - 1]));

	if ((st = rp_open(o, "fig5.md", &out, e)))
		return st;
	FILE *f = out.f;
	fprintf(f, "# Fig. 5 of Henrich (1996): rings, worst case c = 5\n\n"
	        "P PEs in a ring, 5·P load units on P0. Time in shifts (one per LM step; per NNA\n"
	        "iteration, per direction the largest amount on one link). \"never\": the state\n"
	        "recurs before the criterion holds, so it never holds. NNA is run with both rules\n"
	        "the paper's §2.3 gives: eq. (5) with footnote 3's net flows (`nna`, the rule that\n"
	        "reproduces Table 3 exactly) and eq. (4)'s deficiency-based rule (`nna-def`). Data:\n"
	        "`fig5.csv`; plots: `fig5a.png` (balancing), `fig5b.png` (sharing)%s.\n\n",
	        have_nna ? "" : ". **NNA is not built into this lbtorus: its columns are missing**");
	for (int crit = 0; crit < 2; crit++) {
		fprintf(f, "### Shifts until %s\n\n| P |", crit ? "balanced (max − min ≤ 1)" : "shared (every PE holds load)");
		for (int m = 0; m < nm; m++)
			fprintf(f, " %s |", methods[m]);
		fputs("\n|---:|", f);
		for (int m = 0; m < nm; m++)
			fputs("---:|", f);
		for (int i = 0; i < np; i++) {
			fprintf(f, "\n| %lld |", (long long)Ps[i]);
			for (int m = 0; m < nm; m++) {
				const rp_job *j = &jobs[m * np + i];
				md_cell(f, crit ? j->balanced_shifts : j->shared_shifts, j);
			}
		}
		fputs("\n\n", f);
	}
	if (have_nna) {
		fputs("### The two NNA rules against LM at each P\n\n"
		      "| P | eq. (5) / LM-C5, balancing | eq. (5) / LM-C5, sharing | eq. (4) / LM-C5, balancing | "
		      "eq. (4) / LM-C3 = C4, balancing | eq. (4) / LM-C5, sharing |\n|---:|---:|---:|---:|---:|---:|\n", f);
		for (int i = 0; i < np; i++)
			fprintf(f, "| %lld | %.2f | %.2f | %.2f | %.2f | %.2f |\n", (long long)Ps[i], rb[0][i], rs[0][i], rb[1][i],
			        r3[1][i], rs[1][i]);
		fputc('\n', f);
	}
	fputs("## The paper's statements beside ours\n\n", f);
	rp_md_claims_head(f);
	rp_md_claim(f, &cl[0], share_ratio, exact ? "T = P − 1 exactly for every P" : "not P − 1 for every P");
	for (int k = 0; k < 2; k++) { /* balancing, sharing: one row per NNA rule */
		const double(*rt)[MAXP] = k ? rs : rb;
		for (int r = 0; r < 2; r++) {
			rp_claim c = cl[1 + k];
			snprintf(c.quantity, sizeof c.quantity, "%s — %s", cl[1 + k].quantity, rule_name[r]);
			if (!have_nna) {
				rp_md_claim(f, &c, NAN, "NNA not built in");
				continue;
			}
			double lg = 0;
			int nl = 0;
			for (int i = 0; i < np; i++)
				if (isfinite(rt[r][i]) && rt[r][i] > 0)
					lg += log(rt[r][i]), nl++;
			int len = snprintf(txt, sizeof txt, "at P = %lld (geometric mean over P = %lld..%lld: %.2f)",
			                   (long long)Ps[np - 1], (long long)Ps[0], (long long)Ps[np - 1], nl ? exp(lg / nl) : NAN);
			if (!k)
				snprintf(txt + len, sizeof txt - (size_t)len, "; against LM-C3 = C4: %.2f", r3[r][np - 1]);
			rp_md_claim(f, &c, rt[r][np - 1], txt);
		}
	}
	double sl = rp_loglog_slope(x, lmb, np);
	rp_md_claim(f, &cl[3], sl, rp_linear_word(sl));
	if (have_nna) {
		double nb[MAXP];
		int len = 0;
		for (int r = 0; r < 2; r++) {
			for (int i = 0; i < np; i++)
				nb[i] = nan_if_never(rule[r][i].balanced_shifts);
			rp_fit_lin_quad(x, nb, np, &a, &b);
			len += snprintf(txt + len, sizeof txt - (size_t)len, "NNA eq. (%d): %.3f; ", r ? 4 : 5,
			                b * x[np - 1] / (a + b * x[np - 1]));
		}
		snprintf(txt + len, sizeof txt - (size_t)len, "%s", lmq);
		rp_md_claim(f, &cl[4], NAN, txt);
	} else {
		snprintf(txt, sizeof txt, "NNA not built in; %s", lmq);
		rp_md_claim(f, &cl[4], NAN, txt);
	}
	if (have_nna)
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
		        rb[0][np - 1], rs[0][np - 1], (long long)Ps[np - 1], rb[1][np - 1], r3[1][np - 1], rs[1][np - 1],
		        (long long)Ps[np - 1]);
	if ((st = lbt_out_commit(&out, e)))
		return st;

	double y[2][MAXM][MAXP];
	lbt_series sa[MAXM], sb[MAXM];
	for (int m = 0; m < nm; m++) {
		for (int i = 0; i < np; i++) {
			y[0][m][i] = nan_if_never(jobs[m * np + i].balanced_shifts);
			y[1][m][i] = nan_if_never(jobs[m * np + i].shared_shifts);
		}
		sa[m] = (lbt_series){.label = label[m], .x = x, .y = y[0][m], .n = np};
		sb[m] = (lbt_series){.label = label[m], .x = x, .y = y[1][m], .n = np};
	}
	int c02_never = 1; /* say so in the title only if this run showed it */
	for (int m = 0; m < 3; m++)
		for (int i = 0; i < np; i++)
			c02_never &= jobs[m * np + i].period > 0 && jobs[m * np + i].balanced_step < 0;
	char na[200], nb[200], nta[300];
	rp_mark_coinciding(sa, nm, na, sizeof na);
	rp_mark_coinciding(sb, nm, nb, sizeof nb);
	snprintf(nta, sizeof nta, "%s%s%s", na, *na && c02_never ? "; " : "",
	         c02_never ? "LM-C0..C2 never balance" : "");
	lbt_axes aa = {.title = "Fig. 5(a): balancing in a ring, worst case c = 5", .xlabel = "number of PEs P",
	               .ylabel = "time until balanced T [shifts]", .logx = 1, .logy = 1, .intx = 1, .inty = 1,
	               .note = nta, .key = "top left"};
	lbt_axes ab = {.title = "Fig. 5(b): sharing in a ring, worst case c = 5", .xlabel = "number of PEs P",
	               .ylabel = "time until every PE holds load T [shifts]", .logx = 1, .logy = 1, .intx = 1, .inty = 1,
	               .note = nb, .key = "bottom right"};
	int s1 = rp_plot(o, "fig5a", &aa, sa, nm, e);
	if (s1 && s1 != LBT_EUNSUP)
		return s1;
	int s2 = rp_plot(o, "fig5b", &ab, sb, nm, e);
	return s2 ? s2 : s1 ? s1 : have_nna ? LBT_OK : lbt_errf(e, LBT_EUNSUP, "fig5: NNA is not built in; LM only");
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

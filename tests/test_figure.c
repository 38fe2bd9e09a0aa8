/* test_figure.c — lbtorus plot: fits of hand-made data whose exponent,
 * coefficient and intervals are derived here from the textbook formulas
 * (see src/exp/fit.c's header for them), means and standard errors over
 * seeds, traces grouped by file, the files written, and bad input refused. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"
#include "out/jsonl.h"

/* Student's t quantiles have closed forms for 1 and 2 degrees of freedom:
 * t = tan(pi (p - 1/2)) and t = (2p - 1) / sqrt(2 p (1 - p)). */
Test(fit, t_quantiles_match_the_closed_forms)
{
	for (double p = 0.6; p < 0.999; p += 0.05) {
		cr_assert_float_eq(lbt_t_quantile(p, 1), tan(M_PI * (p - 0.5)), 1e-8 * tan(M_PI * (p - 0.5)), "df 1, p %g", p);
		cr_assert_float_eq(lbt_t_quantile(p, 2), (2 * p - 1) / sqrt(2 * p * (1 - p)), 1e-9, "df 2, p %g", p);
	}
	cr_assert_float_eq(lbt_t_quantile(0.975, 4), 2.7764451052, 1e-8, "the tables' t(0.975, 4)");
	cr_assert_float_eq(lbt_t_quantile(0.975, 1e6), 1.959966, 1e-5, "the normal's 1.96 in the limit");
}

static void rec(FILE *f, int seed, double k, double t)
{
	fprintf(f, "{\"method\":\"lm-c5\",\"shape\":\"x\",\"seed\":%d,\"k\":%.17g,\"t\":%.17g}\n", seed, k, t);
}

static void fits(const char *path, lbt_jsonl *l)
{
	lbt_err e;
	cr_assert_eq(lbt_jsonl_load(l, path, &e), 0, "%s", e.msg);
}

static double num(const lbt_jobj *o, const char *k)
{
	double v;
	cr_assert(lbt_jobj_num(o, k, &v), "no %s", k);
	return v;
}

/* y = 3 x^2 2^(+-1/4) at x = 1, 2, 4, 8 with the signs +, -, -, +: in u = ln x,
 * v = ln y the residuals e = (+d, -d, -d, +d) ln 2 (d = 1/4) sum to zero and
 * are orthogonal to u - mean u = (-1.5, -0.5, 0.5, 1.5) ln 2, so least squares
 * gives b = 2 and a = 3 exactly. SSE = 4 d^2 ln^2 2, s^2 = SSE / 2, Suu =
 * 5 ln^2 2: se(b) = d sqrt(2/5); se(ln a) = s sqrt(1/4 + (1.5 ln 2)^2 / Suu)
 * = d ln 2 sqrt(2) sqrt(0.7); the intervals are +- t(0.975, 2) se. */
Test(fit, power_law_of_hand_made_data)
{
	char dir[64], p[160];
	th_tmpdir(dir, sizeof dir);
	snprintf(p, sizeof p, "%s/w.jsonl", dir);
	FILE *f = fopen(p, "w");
	const double d = 0.25, sign[4] = {1, -1, -1, 1};
	for (int i = 0; i < 4; i++)
		rec(f, 1, pow(2, i), 3 * pow(2, 2 * i) * pow(2, sign[i] * d));
	fclose(f);
	char *so, *se;
	cr_assert_eq(th_cli(dir, TH_ARGS("plot", "w.jsonl", "--x", "k", "--y", "t", "--logx", "--logy", "--fit", "power",
	                                 "--out", "fig"), &so, &se), 0, "%s", se);
	const double t = 0.95 / sqrt(2 * 0.975 * 0.025), hb = t * d * sqrt(0.4), ha = t * d * log(2) * sqrt(2) * sqrt(0.7);
	char want[256];
	snprintf(want, sizeof want, "all: 4 points; t = a * k^b, a = 3, b = 2 (95%% CI: a %.4g..%.4g, b %.4g..%.4g)",
	         3 * exp(-ha), 3 * exp(ha), 2 - hb, 2 + hb);
	cr_assert(strstr(so, want), "want '%s' in:\n%s", want, so);
	snprintf(p, sizeof p, "%s/fig.fit.json", dir);
	lbt_jsonl l;
	fits(p, &l);
	cr_assert_eq(l.n, 1);
	const lbt_jobj *o = &l.rec[0];
	cr_assert_str_eq(lbt_jobj_str(o, "fit"), "power");
	cr_assert_float_eq(num(o, "b"), 2, 1e-9);
	cr_assert_float_eq(num(o, "a"), 3, 1e-8);
	cr_assert_float_eq(num(o, "b_ci95_lo"), 2 - hb, 1e-8);
	cr_assert_float_eq(num(o, "b_ci95_hi"), 2 + hb, 1e-8);
	cr_assert_float_eq(num(o, "a_ci95_lo"), 3 * exp(-ha), 1e-8);
	cr_assert_float_eq(num(o, "a_ci95_hi"), 3 * exp(ha), 1e-8);
	cr_assert(lbt_jobj_str(o, "input:w.jsonl") && lbt_jobj_str(o, "git") && lbt_jobj_str(o, "command"), "provenance");
	lbt_jsonl_free(&l);
	/* the gnuplot script draws the fit and its band; the matplotlib script has the fit's numbers */
	snprintf(p, sizeof p, "%s/fig.gp", dir);
	char *gp = th_read(p, NULL);
	cr_assert(strstr(gp, "all: y = 3 x^2'") && strstr(gp, "95% confidence band"), "%s", gp);
	free(gp);
	snprintf(p, sizeof p, "%s/fig.py", dir);
	char *py = th_read(p, NULL);
	cr_assert(strstr(py, "    'all': ('power', ") && strstr(py, "savefig(STEM + '_mpl.png'"), "%s", py);
	free(py);
	/* the script redraws the figure where Debian's matplotlib is (make deps installs python3-matplotlib) */
	if (!system("/usr/bin/python3 -c 'import matplotlib' 2>/dev/null")) {
		char cmd[256];
		snprintf(cmd, sizeof cmd, "/usr/bin/python3 %s/fig.py", dir);
		cr_assert_eq(system(cmd), 0, "%s failed", cmd);
		snprintf(p, sizeof p, "%s/fig_mpl.png", dir);
		char *png = th_read(p, NULL);
		cr_assert(!memcmp(png, "\x89PNG", 4), "fig_mpl.png is not a PNG");
		free(png);
	}
	free(so), free(se);
	th_rm_tree(dir);
}

/* Two seeds per x, y = 1 + 2x +- 1/2: the means are 1 + 2x, each with
 * sd = sqrt(2 (1/2)^2 / 1) and se = sd / sqrt(2) = 1/2. The fit uses all six
 * points: the residuals +-1/2 cancel at each x, so b = 2 and a = 1 exactly;
 * SSE = 6/4, s^2 = SSE / 4 = 0.375, Suu = 2 ((-1)^2 + 0 + 1^2) = 4:
 * se(b) = sqrt(0.375/4), se(a) = sqrt(0.375 (1/6 + 2^2/4)), t(0.975, 4). */
Test(fit, linear_fit_over_seeds_with_error_bars)
{
	char dir[64], p[160];
	th_tmpdir(dir, sizeof dir);
	snprintf(p, sizeof p, "%s/w.jsonl", dir);
	FILE *f = fopen(p, "w");
	for (int x = 3; x >= 1; x--) /* any order */
		for (int s = 1; s <= 2; s++)
			rec(f, s, x, 1 + 2 * x + (s == 1 ? 0.5 : -0.5));
	fputs("{\"method\":\"lm-c5\",\"shape\":\"x\",\"seed\":3,\"k\":4}\n", f); /* no y: skipped, and said */
	fclose(f);
	char *so, *se;
	cr_assert_eq(th_cli(dir, TH_ARGS("plot", "w.jsonl", "--x", "k", "--y", "t", "--fit", "linear", "--out", "lin"),
	                    &so, &se), 0, "%s", se);
	cr_assert(strstr(so, "skipped 1 records or rows"), "%s", so);
	const double t = 2.7764451052, hb = t * sqrt(0.375 / 4), ha = t * sqrt(0.375 * (1.0 / 6 + 1));
	snprintf(p, sizeof p, "%s/lin.fit.json", dir);
	lbt_jsonl l;
	fits(p, &l);
	cr_assert_float_eq(num(&l.rec[0], "b"), 2, 1e-12);
	cr_assert_float_eq(num(&l.rec[0], "a"), 1, 1e-12);
	cr_assert_float_eq(num(&l.rec[0], "b_ci95_hi"), 2 + hb, 1e-8);
	cr_assert_float_eq(num(&l.rec[0], "a_ci95_lo"), 1 - ha, 1e-8);
	lbt_jsonl_free(&l);
	snprintf(p, sizeof p, "%s/lin.csv", dir);
	char *csv = th_read(p, NULL);
	const char *body = th_csv_body(csv);
	cr_assert(!strncmp(body, "group,x,n,y_mean,y_se,y_min,y_max\nall,1,2,3,0.5,2.5,3.5\nall,2,2,5,0.5,4.5,5.5\n"
	                         "all,3,2,7,0.5,6.5,7.5\n", 96), "%s", body);
	free(csv), free(so), free(se);
	th_rm_tree(dir);
}

/* Traces: '#' lines skipped, the header names the columns, one series per file. */
Test(plot, traces_are_grouped_by_file)
{
	char dir[64], p[160];
	th_tmpdir(dir, sizeof dir);
	for (int m = 0; m < 2; m++) {
		snprintf(p, sizeof p, "%s/%s.csv", dir, m ? "nna" : "fos");
		FILE *f = fopen(p, "w");
		fputs("# lbtorus: 0.1.0\n# command: lbtorus run\nstep,sqdev\n0,0\n1,4\n2,8\n", f);
		if (m)
			fputs("3,oops\n", f); /* not a number: skipped */
		fclose(f);
	}
	char *so, *se;
	cr_assert_eq(th_cli(dir, TH_ARGS("plot", "nna.csv", "fos.csv", "--x", "step", "--y", "sqdev", "--out", "v"), &so, &se),
	             0, "%s", se);
	cr_assert(strstr(so, "fos: 3 points\nnna: 3 points\nskipped 1 records or rows"), "%s", so);
	snprintf(p, sizeof p, "%s/v.csv", dir);
	char *csv = th_read(p, NULL);
	cr_assert(strstr(csv, "\nfos,2,1,8,,8,8\nnna,0,1,0,,0,0\n"), "%s", csv);
	free(csv), free(so), free(se);
	/* --group KEY of traces: the "# KEY: value" line of their header. Two
	 * seeds of one method: per step the mean and se (sqdev 2 and 6 → 4 ± 2). */
	for (int seed = 1; seed <= 2; seed++) {
		snprintf(p, sizeof p, "%s/s%d.csv", dir, seed);
		FILE *f = fopen(p, "w");
		fprintf(f, "# command: lbtorus run\n# method: lm-c5\n# seed: %d\nstep,sqdev\n0,0\n1,%d\n", seed, seed == 1 ? 2 : 6);
		fclose(f);
	}
	cr_assert_eq(th_cli(dir, TH_ARGS("plot", "s1.csv", "s2.csv", "--x", "step", "--y", "sqdev", "--group", "method",
	                                 "--out", "m"), &so, &se), 0, "%s", se);
	cr_assert(strstr(so, "lm-c5: 4 points\n"), "%s", so);
	snprintf(p, sizeof p, "%s/m.csv", dir);
	csv = th_read(p, NULL);
	cr_assert(strstr(csv, "\nlm-c5,0,2,0,0,0,0\nlm-c5,1,2,4,2,2,6\n"), "%s", csv);
	free(csv), free(so), free(se);
	th_rm_tree(dir);
}

Test(plot, bad_input_one_line_exit_2)
{
	char dir[64], p[160];
	th_tmpdir(dir, sizeof dir);
	snprintf(p, sizeof p, "%s/w.jsonl", dir);
	FILE *f = fopen(p, "w");
	rec(f, 1, 1, 0);
	rec(f, 1, 2, 4);
	fclose(f);
	th_usage_error(dir, TH_ARGS("plot", "w.jsonl", "--y", "t"), "--x KEY and --y KEY");
	th_usage_error(dir, TH_ARGS("plot", "w.jsonl", "--x", "k", "--y", "t", "--fit", "cubic"), "fit 'cubic'");
	th_usage_error(dir, TH_ARGS("plot", "nothere.jsonl", "--x", "k", "--y", "t"), "nothere.jsonl");
	th_usage_error(dir, TH_ARGS("plot", "w.jsonl", "--x", "k", "--y", "t", "--fit", "power"), "x > 0 and y > 0");
	th_usage_error(dir, TH_ARGS("plot", "w.jsonl", "--x", "pes", "--y", "t"), "no record has numbers at both pes and t");
	th_usage_error(dir, TH_ARGS("plot", "w.txt", "--x", "k", "--y", "t"), "neither a results file");
	snprintf(p, sizeof p, "%s/v.csv", dir);
	f = fopen(p, "w");
	fputs("step,sqdev\n0,1\n", f);
	fclose(f);
	th_usage_error(dir, TH_ARGS("plot", "v.csv", "--x", "step", "--y", "sqdev", "--out", "v"), "v.csv");
	th_usage_error(dir, TH_ARGS("plot", "--x", "k", "--y", "t"), "name at least one");
	th_rm_tree(dir);
}

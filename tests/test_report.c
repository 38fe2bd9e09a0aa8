/* test_report.c — lbtorus report on a results file written by hand: one
 * row per configuration, medians over seeds with their range [min–max]
 * (derived in the comments), rows in natural order, a * where a criterion
 * was not reached in every seed, runs stopped at their cap counted, and
 * what lies beside the results (bound.json, plots, other commands' tables)
 * picked up. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "helpers.h"
#include "out/jsonl.h"


static void rec(FILE *f, const char *shape, int pes, const char *init, int seed, const char *bal, int steps,
                int reached)
{
	fprintf(f, "{\"run_id\":\"x\",\"run_key\":\"%s %s %d\",\"lbtorus\":\"0.1.0\",\"method\":\"lm-c5\",\"shape\":\"%s\","
	        "\"boundary\":\"torus\",\"dims\":1,\"active_dims\":1,\"k\":%d,\"pes\":%d,\"init\":\"%s\",\"seed\":%d,"
	        "\"until\":\"balanced\",\"initial_ldiff\":8,\"steps\":%d,\"shifts\":%d,\"moved\":10,\"reached\":%s,"
	        "\"stop_reason\":\"%s\","
	        "\"shared_step\":1,\"balanced_step\":%s,\"flat_step\":%s,\"dkl_bound\":64,"
	        "\"balanced_over_dkl\":null,\"balanced_lower_bound_steps\":3}\n",
	        shape, init, seed, shape, pes, pes, init, seed, steps, steps, reached ? "true" : "false",
	        reached ? "reached" : "max_steps", bal, bal);
}

Test(report, medians_over_seeds_per_configuration)
{
	char dir[64], p[160];
	th_tmpdir(dir, sizeof dir);
	snprintf(p, sizeof p, "%s/runs.jsonl", dir);
	FILE *f = fopen(p, "w");
	/* Ring 16, uniform:1:128, seeds 3, 1, 2 (any order): balanced at 9, 5, 7 →
	 * median 7, range 5–9; steps 30, 10, 20 → 20, range 10–30. */
	rec(f, "16", 16, "uniform:1:128", 3, "9", 30, 1);
	rec(f, "8", 8, "worst:1", 1, "4", 4, 1);
	rec(f, "16", 16, "uniform:1:128", 1, "5", 10, 1);
	/* Ring 16, uniform:1:8 — sorts before uniform:1:128 — two seeds: 4 and 7 →
	 * median 5.5, range 4–7; steps 4 and 7 → the same. */
	rec(f, "16", 16, "uniform:1:8", 1, "4", 4, 1);
	rec(f, "16", 16, "uniform:1:128", 2, "7", 20, 1);
	rec(f, "16", 16, "uniform:1:8", 2, "7", 7, 1);
	/* Ring 32, worst:1: one seed stopped unbalanced at its cap (null, censored:
	 * "1 capped"): the median of balanced_step is over the other (6), marked *;
	 * steps 6 and 100 → 53, range 6–100. */
	rec(f, "32", 32, "worst:1", 1, "6", 6, 1);
	rec(f, "32", 32, "worst:1", 2, "null", 100, 0);
	fputs("{\"run_id\":\"partial", f); /* a killed sweep's last line: ignored */
	fclose(f);
	snprintf(p, sizeof p, "%s/reproduce_fig5.md", dir);
	f = fopen(p, "w");
	fputs("# Fig. 5\n\n| P | paper | ours |\n|--:|--:|--:|\n| 8 | 18 | 18 |\n```\n# not a heading\n```\n#### Deep\n", f);
	fclose(f);
	snprintf(p, sizeof p, "%s/fig5.png", dir);
	fclose(fopen(p, "w"));
	snprintf(p, sizeof p, "%s/fig5.svg", dir);
	fclose(fopen(p, "w"));
	snprintf(p, sizeof p, "%s/runs.jsonl", dir);
	char *so, *se;
	cr_assert_eq(th_cli(NULL, TH_ARGS("report", p), &so, &se), 0, "%s", se);
	snprintf(p, sizeof p, "%s/report.md", dir);
	cr_assert(strstr(so, p), "%s", so);
	char *md = th_read(p, NULL);
	cr_assert(strstr(md, "8 runs of lbtorus 0.1.0 recorded in `runs.jsonl`, in 4 configurations"), "%s", md);
	cr_assert(strstr(md, "1 runs stopped at their step cap"), "%s", md);
	const char *r8 = strstr(md, "| 8 | 8 | torus | worst:1 | balanced | 1 | 1/1 | 8 | 4 | 4 | 1 | 4 | 4 | 10 | 64 | — | 3 |");
	const char *r16a = strstr(md, "| 16 | 16 | torus | uniform:1:8 | balanced | 2 | 2/2 | 8 | 5.5 [4–7] | 5.5 [4–7] | 1 | "
	                              "5.5 [4–7] | 5.5 [4–7] | 10 | 64 | — | 3 |");
	const char *r16b = strstr(md, "| 16 | 16 | torus | uniform:1:128 | balanced | 3 | 3/3 | 8 | 20 [10–30] | 20 [10–30] | 1 | "
	                              "7 [5–9] | 7 [5–9] | 10 | 64 | — | 3 |");
	const char *r32 = strstr(md, "| 32 | 32 | torus | worst:1 | balanced | 2 | 1/2, 1 capped | 8 | 53 [6–100] | 53 [6–100] | 1 | "
	                             "6* | 6* | 10 | 64 | — | 3 |");
	cr_assert(r8 && r16a && r16b && r32, "a row is missing or wrong:\n%s", md);
	cr_assert(r8 < r16a && r16a < r16b && r16b < r32, "rows out of order:\n%s", md);
	cr_assert(strstr(md, "A * marks a median over only the runs"), "%s", md);
	cr_assert(strstr(md, "*capped* counts runs stopped at their step cap (--max-steps) before their criterion held: "
	                     "censored"), "%s", md);
	cr_assert(strstr(md, "![fig5](fig5.png) ([SVG](fig5.svg))"), "%s", md);
	cr_assert(strstr(md, "### From `reproduce_fig5.md`\n\n#### Fig. 5\n"), "headings are demoted:\n%s", md);
	cr_assert(strstr(md, "\n###### Deep\n"), "demoted headings stop at level 6:\n%s", md);
	cr_assert(strstr(md, "```\n# not a heading\n```"), "code blocks are left alone:\n%s", md);
	cr_assert(!strstr(md, "### From `report.md`"), "the report embeds itself:\n%s", md);
	free(md);
	free(so);
	free(se);

	/* Given the directory: every *.jsonl in it, report.md inside it. */
	cr_assert_eq(th_cli(NULL, TH_ARGS("report", dir, "--out", "-"), &so, &se), 0, "%s", se);
	cr_assert(strstr(so, "8 runs of lbtorus 0.1.0 recorded in `runs.jsonl`, in 4 configurations"), "%s", so);
	cr_assert(strstr(so, "### From `reproduce_fig5.md`"), "%s", so);
	free(so);
	free(se);

	/* Bad inputs: one line, exit 2. */
	cr_assert_eq(th_cli(NULL, TH_ARGS("report"), NULL, &se), 2);
	cr_assert(strstr(se, "RESULTS.jsonl"), "%s", se);
	free(se);
	cr_assert_eq(th_cli(NULL, TH_ARGS("report", "/nonexistent/r.jsonl"), NULL, &se), 2);
	cr_assert(strstr(se, "/nonexistent/r.jsonl"), "%s", se);
	free(se);
	snprintf(p, sizeof p, "%s/bad.jsonl", dir);
	f = fopen(p, "w");
	fputs("{\"method\":\"lm-c5\",\"shape\":\"8\"}\nnot json\n", f);
	fclose(f);
	cr_assert_eq(th_cli(NULL, TH_ARGS("report", p, "--out", "-"), NULL, &se), 2);
	cr_assert(strstr(se, "bad.jsonl:2"), "%s", se);
	free(se);
	th_rm_tree(dir);
}

/* Theorem 3's section quotes the mean ratio with its 95 % interval, names
 * the other estimator, says when one constant fits poorly, and counts the
 * runs outside the fit (idle PE at the start; censored at the cap). */
Test(report, bound_section_gives_the_spread_and_the_runs_outside_the_fit)
{
	char dir[64], p[160];
	th_tmpdir(dir, sizeof dir);
	snprintf(p, sizeof p, "%s/bound.json", dir);
	FILE *f = fopen(p, "w");
	fputs("{\"lbtorus\":\"0.1.0\",\"method\":\"lm-c5\",\"points\":40,\"c_fit\":0.08,\"c_fit_ci95_lo\":0.06,"
	      "\"c_fit_ci95_hi\":0.1,\"c_fit_absolute\":0.02,\"c_envelope\":0.5,\"min_ratio\":0.004,\"q1_ratio\":0.01,"
	      "\"median_ratio\":0.03,\"q3_ratio\":0.09,\"rms_rel_residual\":1.5,\"premise_broken_points\":7,"
	      "\"premise_broken_max_ratio\":0.13,\"censored_points\":2,\"censored_max_ratio_lower\":0.2,"
	      "\"runs_below_lower_bound\":0}\n", f);
	fclose(f);
	char *so, *se;
	cr_assert_eq(th_cli(NULL, TH_ARGS("report", dir, "--out", "-"), &so, &se), 0, "%s", se);
	cr_assert(strstr(so, "The mean of the ratios T/(D·K·Ldiff) is 0.08 (95 % confidence interval 0.06–0.1), their "
	                     "median 0.03 (quartiles 0.01 and 0.09, range 0.004–0.5); ordinary least squares of T on "
	                     "D·K·Ldiff gives 0.02"), "%s", so);
	cr_assert(strstr(so, "One constant describes these runs poorly (rms relative residual 1.5)"), "%s", so);
	cr_assert(strstr(so, "7 runs started with an idle PE, outside the theorem's premise"), "%s", so);
	cr_assert(strstr(so, "2 runs stopped at their step cap before balancing (censored: T > cap, ratio > 0.2"), "%s", so);
	free(so);
	free(se);
	th_rm_tree(dir);
}

/* Runs under a workload get a table per workload, a row per method and
 * configuration, with the columns their records hold: sqdev_mean over the
 * seeds with the standard error of that mean, sqrt(sum se_i^2)/n (two seeds:
 * 100 ± 3 and 120 ± 4 → 110 ± sqrt(9 + 16)/2 = 2.5), generated and
 * completed; not the static runs' Ldiff and D·K·Ldiff, which mean nothing
 * there. A column no record holds (efficiency: no search tree) is left out. */
static void dyn(FILE *f, const char *method, int seed, double sq, double se)
{
	fprintf(f, "{\"run_key\":\"%s %d\",\"lbtorus\":\"0.1.0\",\"method\":\"%s\",\"shape\":\"16x16\",\"boundary\":\"torus\","
	        "\"dims\":2,\"pes\":256,\"init\":\"const:0\",\"seed\":%d,\"until\":\"steps:300\",\"initial_ldiff\":0,"
	        "\"steps\":300,\"reached\":true,\"stop_reason\":\"until\",\"workload\":\"cybenko:poisson:1:1\","
	        "\"generated\":%d,\"completed\":76800,\"warmup\":100,\"sqdev_mean\":%g,\"sqdev_se\":%g,\"dkl_bound\":0}\n",
	        method, seed, method, seed, 76900 + seed, sq, se);
}

Test(report, workload_runs_get_their_own_columns)
{
	char dir[64], p[160];
	th_tmpdir(dir, sizeof dir);
	snprintf(p, sizeof p, "%s/d.jsonl", dir);
	FILE *f = fopen(p, "w");
	dyn(f, "nna", 1, 500, 5);
	dyn(f, "fos", 2, 120, 4);
	dyn(f, "fos", 1, 100, 3);
	rec(f, "8", 8, "worst:1", 1, "4", 4, 1);
	fclose(f);
	char *so, *se;
	cr_assert_eq(th_cli(NULL, TH_ARGS("report", p, "--out", "-"), &so, &se), 0, "%s", se);
	const char *stat = strstr(so, "### Method lm-c5"), *w = strstr(so, "### Workload cybenko:poisson:1:1\n\n"
	                   "| method | shape | P | boundary | init | until | seeds | steps | warmup | sqdev_mean ± se | "
	                   "generated | completed |\n");
	cr_assert(stat && w && stat < w, "the static table, then the workload's:\n%s", so);
	const char *fos = strstr(w, "| fos | 16x16 | 256 | torus | const:0 | steps:300 | 2 | 300 | 100 | 110 ± 2.5 | "
	                            "76902 [76901–76902] | 76800 |\n");
	const char *nna = strstr(w, "| nna | 16x16 | 256 | torus | const:0 | steps:300 | 1 | 300 | 100 | 500 ± 5 | 76901 | 76800 |\n");
	cr_assert(fos && nna && fos < nna, "%s", so);
	const char *end = strstr(w, "\nColumns:");
	cr_assert(w && end && !memmem(w, (size_t)(end - w), "Ldiff", 5) && !memmem(w, (size_t)(end - w), "efficiency", 10),
	          "no static or tree columns in the workload's table:\n%s", so);
	cr_assert(strstr(so, "*sqdev_mean ± se* is the mean over the row's seeds"), "%s", so);
	free(so), free(se);
	th_rm_tree(dir);
}

/* Issue 31, items 1 and 8: a last line without its newline that does not
 * parse was skipped as a killed writer's torn line whatever it held, so a
 * last record with NaN, invalid UTF-8 or a lone surrogate passed report
 * (exit 0, the record left out without a word). A torn line is a proper
 * prefix of an object: every one of a line holding every token type (an
 * escape, a surrogate pair, two- and four-byte UTF-8, a negative exponent,
 * true, false, null) is taken for one, and a line wrong before its end is
 * not. */
Test(report, a_torn_last_line_is_skipped_a_wrong_one_is_an_error)
{
	static const char whole[] = "{\"a\":\"x\\n\\u00e9\\ud83d\\ude00\xc3\xa9\xf0\x9f\x98\x80\",\"b\":-1.5e-3,\"c\":true,"
	                            "\"d\":false,\"e\":null,\"f\":0, \"g\" : 12 }";
	lbt_jobj o = {0};
	lbt_err e;
	char buf[sizeof whole];
	cr_assert_eq(lbt_jobj_parse(&o, whole, &e), 0, "%s", e.msg);
	for (size_t k = 1; k < sizeof whole - 1; k++) {
		memcpy(buf, whole, k);
		buf[k] = 0;
		cr_assert_neq(lbt_jobj_parse(&o, buf, &e), 0, "prefix %zu parsed: %s", k, buf);
		cr_assert(o.cut, "prefix %zu (%s) is not taken for a torn line: %s", k, buf, e.msg);
	}
	static const char *const wrong[] = {"{\"x\":NaN", "{\"x\":NaN,\"y\":1}", "{\"x\":\"\xc3\x28\"", "{\"x\":\"\\ud800\"",
	                                    "{\"x\":\"\\ud800\\u0041\"", "{\"x\":0x10", "{\"x\":+1", "{\"x\":1.,", "{\"x\":tru}",
	                                    "{\"x\":1}}", "[1,", "{\"x\":\"\x01\"", "{\"x\":\"\\q\"", "{\"x\" 1", "{\"x\":1 \"y\""};
	for (size_t i = 0; i < sizeof wrong / sizeof *wrong; i++) {
		cr_assert_neq(lbt_jobj_parse(&o, wrong[i], &e), 0, "%s parsed", wrong[i]);
		cr_assert(!o.cut, "%s is taken for a torn line", wrong[i]);
	}
	lbt_jobj_free(&o);
	/* through the command: a wrong last line is an error naming it, a torn one is left out */
	char dir[64], p[128];
	th_tmpdir(dir, sizeof dir);
	char *out, *err;
	cr_assert_eq(th_cli(dir, TH_ARGS("sweep", "--results", "r.jsonl", "--shape", "8", "--init", "worst:1..2", "--quiet"), &out,
	                    &err), 0, "%s", err);
	free(out), free(err);
	snprintf(p, sizeof p, "%s/r.jsonl", dir);
	size_t n;
	char *two = th_read(p, &n), *second = strchr(two, '\n') + 1;
	FILE *f = fopen(p, "w");
	fprintf(f, "%.*s{\"x\":NaN,%.*s", (int)(second - two), two, (int)(two + n - second - 2), second + 1);
	fclose(f);
	th_usage_error(dir, TH_ARGS("report", "r.jsonl", "--out", "rep.md"), "r.jsonl:2: bad value at column 6");
	f = fopen(p, "w");
	fprintf(f, "%.*s", (int)(second - two + 40), two);
	fclose(f);
	cr_assert_eq(th_cli(dir, TH_ARGS("report", "r.jsonl", "--out", "-"), &out, &err), 0, "%s", err);
	cr_assert(strstr(out, "covers 1 runs"), "%s", out);
	free(out), free(err);
	free(two);
	th_rm_tree(dir);
}

/* test_reproduce.c — `lbtorus reproduce`: Table 3 of Henrich (1996) comes out
 * exactly as printed, a wrong transcription is caught, and the figures
 * write their data, tables and pictures. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"


static int is_png(const char *path)
{
	FILE *f = fopen(path, "rb");
	unsigned char h[8] = {0};
	int ok = f && fread(h, 1, 8, f) == 8 && !memcmp(h, "\x89PNG\r\n\x1a\n", 8);
	if (f)
		fclose(f);
	return ok;
}

static lbt_repro_opts quiet_opts(const char *out, const char *data)
{
	const char *env = getenv("LBTORUS_DATA");
	return (lbt_repro_opts){.out_dir = out, .data_dir = data ? data : env ? env : "data", .quick = 1, .threads = 1};
}

/* Table 3: every LM-C5 row T = 0..18 (and every NNA row, when NNA is built
 * in) equals the paper's, and so do "shared after 7" and "balanced after 18". */
Test(henrich1996, table3_reproduced_exactly)
{
	char dir[256];
	th_tmpdir(dir, sizeof dir);
	lbt_repro_opts o = quiet_opts(dir, NULL);
	lbt_err e;
	int64_t differs = -1;
	int st = lbt_reproduce("table3", &o, &differs, &e);
	cr_assert(st == LBT_OK || st == LBT_EUNSUP, "%s", e.msg); /* EUNSUP: gnuplot missing (plot test says so) */
	cr_assert_eq(differs, 0, "Table 3 differs from the paper in %lld values", (long long)differs);
	char path[512];
	snprintf(path, sizeof path, "%s/table3.csv", dir);
	char *csv = th_read(path, NULL);
	int rows = 0;
	for (char *p = strstr(csv, "\nlm-c5,"); p; p = strstr(p + 1, "\nlm-c5,")) {
		rows++;
		char *eol = strchr(p + 1, '\n');
		cr_assert(eol && eol[-1] == '1', "row not marked same_in_paper: %.60s", p + 1);
	}
	cr_assert_eq(rows, 19, "LM-C5 rows T = 0..18");
	free(csv);
	snprintf(path, sizeof path, "%s/table3.md", dir);
	char *md = th_read(path, NULL);
	cr_assert(strstr(md, "**LM-C5: identical to the paper**"), "%s", md);
	free(md);
}

/* The comparison can fail: one load changed in a copy of the golden table. */
Test(henrich1996, table3_catches_a_wrong_value)
{
	char dir[256], data[300], cmd[1200];
	th_tmpdir(dir, sizeof dir);
	snprintf(data, sizeof data, "%s/data", dir);
	const char *src = getenv("LBTORUS_DATA") ? getenv("LBTORUS_DATA") : "data";
	snprintf(cmd, sizeof cmd, "mkdir -p %s && cp %s/*.csv %s/ && sed -i 's/^12,4,1,1,2,/12,4,1,2,1,/' %s/table3_lm_c5.csv",
	         data, src, data, data);
	cr_assert(!system(cmd));
	char *err;
	int rc = th_cli(dir, TH_ARGS("reproduce", "table3", "--out", "out", "--data", "data", "--quiet"), NULL, &err);
	cr_assert_eq(rc, 1, "a mismatch exits 1; got %d (%s)", rc, err);
	cr_assert(strstr(err, "differ from the paper"), "%s", err);
	free(err);
}

Test(reproduce, fig7_quick_writes_data_tables_and_plots, .timeout = 120)
{
	char dir[256];
	th_tmpdir(dir, sizeof dir);
	char *out, *err;
	int rc = th_cli(dir, TH_ARGS("reproduce", "fig7", "--quick", "--out", "r", "--quiet", "--threads", "1"), &out, &err);
	cr_assert_eq(rc, 0, "%s", err);
	const char *files[] = {"r/fig7.csv", "r/fig7.md", "r/fig7a.png", "r/fig7a.svg", "r/fig7b.png", "r/fig7b.gp"};
	char path[512];
	for (int i = 0; i < 6; i++) {
		snprintf(path, sizeof path, "%s/%s", dir, files[i]);
		char *b = th_read(path, NULL);
		cr_assert_gt(strlen(b), 0, "%s is empty", files[i]);
		free(b);
	}
	snprintf(path, sizeof path, "%s/r/fig7a.png", dir);
	cr_assert(is_png(path));
	snprintf(path, sizeof path, "%s/r/fig7.md", dir);
	char *md = th_read(path, NULL);
	/* §5: "For the last three conditions (C3 through C5), identical numbers of iterations" */
	cr_assert(strstr(md, "identical at every K"), "%s", md);
	/* §5 on Fig. 7(b): "only linear"; ours is far below, with its spread over seeds */
	cr_assert(strstr(md, "far below linear (slope < 0.9): median over 10 seeds, min "), "%s", md);
	cr_assert(!strstr(md, "at most linear"), "%s", md);
	cr_assert(strstr(md, "| K | P | mean | 95 % CI of the mean | min | median | max |"), "a mean with its interval:\n%s", md);
	free(md);
	free(out), free(err);
}

/* §5 on Fig. 5: NNA "about four times longer" to balance and "23 times
 * slower" to share. Both of §2.3's NNA rules are shown, read at the largest
 * P (the paper states no mean), with the hypothesis said in words. */
Test(reproduce, fig5_shows_both_nna_rules_at_the_largest_p, .timeout = 120)
{
	char dir[256];
	th_tmpdir(dir, sizeof dir);
	char *out, *err;
	int rc = th_cli(dir, TH_ARGS("reproduce", "fig5", "--quick", "--out", "r", "--quiet", "--threads", "1"), &out, &err);
	cr_assert_eq(rc, 0, "%s", err);
	char path[512];
	snprintf(path, sizeof path, "%s/r/fig5.md", dir);
	char *md = th_read(path, NULL);
	cr_assert(strstr(md, "| P | lm-c0 | lm-c1 | lm-c2 | lm-c3 | lm-c4 | lm-c5 | nna | nna-def |"), "%s", md);
	cr_assert(strstr(md, "### The two NNA rules against LM at each P"), "%s", md);
	cr_assert(strstr(md, "until balanced at the largest P (ring; c = 5) — NNA of eq. (5)"), "%s", md);
	cr_assert(strstr(md, "until shared at the largest P (ring; c = 5) — NNA of eq. (4)"), "%s", md);
	cr_assert(strstr(md, "— at P = 128 (geometric mean over P = 8..128: "), "quick: largest P = 128\n%s", md);
	cr_assert(strstr(md, "**Which NNA the paper ran (our hypothesis).**"), "%s", md);
	cr_assert(!strstr(md, "seed 000"), "no internal file names in user-facing text:\n%s", md);
	free(md);
	snprintf(path, sizeof path, "%s/r/fig5.tex", dir); /* every table also as LaTeX */
	char *tex = th_read(path, NULL);
	cr_assert(strstr(tex, "% The two NNA rules against LM at each P\n\\begin{tabular}{rrrrrr}\n\\toprule\n"), "%s", tex);
	free(tex);
	free(out), free(err);
}

Test(reproduce, refuses_an_unknown_experiment)
{
	char dir[256];
	th_tmpdir(dir, sizeof dir);
	char *err;
	cr_assert_eq(th_cli(dir, TH_ARGS("reproduce", "fig9"), NULL, &err), 2);
	cr_assert(strstr(err, "unknown experiment 'fig9'"), "%s", err);
	free(err);
}

/* The workload experiments, quick: data, tables (paper beside ours) and plots. */
Test(reproduce, cybenko_and_trees_quick_write_data_tables_and_plots, .timeout = 120)
{
	char dir[256];
	th_tmpdir(dir, sizeof dir);
	char *out, *err;
	int rc = th_cli(dir, TH_ARGS("reproduce", "cybenko", "trees", "--quick", "--out", "r", "--quiet", "--threads", "1"),
	                &out, &err);
	cr_assert_eq(rc, 0, "%s", err);
	const char *files[] = {"r/cybenko.csv", "r/cybenko_transient.csv", "r/cybenko.md", "r/cybenko_cube.gp",
	                       "r/cybenko_transient.gp", "r/trees.csv", "r/trees.md", "r/trees_complete.gp",
	                       "r/trees_random.gp"};
	char path[512];
	for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
		snprintf(path, sizeof path, "%s/%s", dir, files[i]);
		free(th_read(path, NULL));
	}
	snprintf(path, sizeof path, "%s/r/cybenko.md", dir);
	char *md = th_read(path, NULL);
	/* every steady-state measurement within 4 standard errors of its exact value */
	cr_assert(strstr(md, "within 4 standard errors of its exact value: yes"), "%s", md);
	cr_assert(!strstr(md, "seed 00"), "no internal file names in user-facing text");
	free(md);
	snprintf(path, sizeof path, "%s/r/trees.md", dir);
	md = th_read(path, NULL);
	cr_assert(strstr(md, "Our numbers") && strstr(md, "C0 through C2"), "%s", md);
	free(md);
	free(out);
	free(err);
	th_rm_tree(dir);
}

/* test_plot.c — the gnuplot plot module: data, script and pictures appear
 * whole; without gnuplot the data and script are still written. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "helpers.h"
#include "out/latex.h"

static const double xs[] = {8, 16, 32, 64}, ya[] = {7, 15, 31, 63}, yb[] = {2, NAN, 8, 16};
static const lbt_series two[] = {{.label = "LM-C5 sharing", .x = xs, .y = ya, .n = 4},
                                 {.label = "NNA (with a gap)", .x = xs, .y = yb, .n = 4}};
static const lbt_axes axes = {.title = "Paper's 'Fig. 5' test", .xlabel = "PEs P", .ylabel = "time T [shifts]",
                              .logx = 1, .logy = 1};

static long file_head(const char *path, unsigned char *buf, size_t n)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return -1;
	size_t got = fread(buf, 1, n, f);
	fseek(f, 0, SEEK_END);
	long size = ftell(f);
	fclose(f);
	return got == n ? size : -1;
}

Test(plot, writes_png_svg_data_and_script_when_gnuplot_is_present)
{
	cr_assert(!system("command -v gnuplot >/dev/null"), "gnuplot is not installed (Debian: gnuplot-nox)");
	char dir[256], stem[300], p[320];
	th_tmpdir(dir, sizeof dir);
	snprintf(stem, sizeof stem, "%s/fig", dir);
	lbt_err e;
	int st = lbt_plot(stem, &axes, two, 2, &e);
	cr_assert_eq(st, LBT_OK, "%s", e.msg);
	unsigned char h[8];
	snprintf(p, sizeof p, "%s.png", stem);
	cr_assert_gt(file_head(p, h, 8), 1000);
	cr_assert(!memcmp(h, "\x89PNG\r\n\x1a\n", 8), "PNG signature");
	char svg[200] = {0};
	snprintf(p, sizeof p, "%s.svg", stem);
	cr_assert_gt(file_head(p, (unsigned char *)svg, sizeof svg - 1), 1000);
	cr_assert(strstr(svg, "<svg") || strstr(svg, "<?xml"), "SVG header: %s", svg);
	snprintf(p, sizeof p, "%s.dat", stem);
	cr_assert_gt(file_head(p, h, 8), 0);
	snprintf(p, sizeof p, "%s.gp", stem);
	cr_assert_gt(file_head(p, h, 8), 0);
	cr_assert_eq(th_count_files(dir), 4, "exactly the four outputs, no temporaries left");
}

/* Issue 14 item 4: the pictures' temporaries follow the outputs' convention
 * (.NAME.tmp.HOST.PID beside NAME), so those a killed process left are
 * removed by the next plot of the same name; PID 99999999 exceeds Linux's
 * pid_max, so no process runs with it. */
Test(plot, temporaries_of_a_killed_plot_are_removed_by_the_next)
{
	cr_assert(!system("command -v gnuplot >/dev/null"), "gnuplot is not installed (Debian: gnuplot-nox)");
	char dir[256], stem[300], p[600], host[64];
	th_tmpdir(dir, sizeof dir);
	cr_assert(!gethostname(host, sizeof host));
	host[sizeof host - 1] = 0;
	for (char *c = host; *c; c++)
		if (*c == '/' || *c == '.')
			*c = '_';
	static const char *const ext[] = {"png", "svg", "dat", "gp"};
	for (int i = 0; i < 4; i++) {
		snprintf(p, sizeof p, "%s/.fig.%s.tmp.%s.99999999", dir, ext[i], host);
		FILE *f = fopen(p, "w");
		cr_assert(f);
		fputs("left by a killed plot", f);
		fclose(f);
	}
	cr_assert_eq(th_count_files(dir), 0); /* hidden names */
	snprintf(stem, sizeof stem, "%s/fig", dir);
	lbt_err e;
	cr_assert_eq(lbt_plot(stem, &axes, two, 2, &e), LBT_OK, "%s", e.msg);
	for (int i = 0; i < 4; i++) {
		snprintf(p, sizeof p, "%s/.fig.%s.tmp.%s.99999999", dir, ext[i], host);
		cr_assert(access(p, F_OK), "%s is still there", p);
	}
	cr_assert_eq(th_count_files(dir), 4);
	th_rm_tree(dir);
}

Test(plot, without_gnuplot_says_so_and_still_writes_data_and_script)
{
	setenv("LBTORUS_GNUPLOT", "/nonexistent/gnuplot", 1);
	char dir[256], stem[300], p[320];
	th_tmpdir(dir, sizeof dir);
	snprintf(stem, sizeof stem, "%s/fig", dir);
	lbt_err e;
	cr_assert_eq(lbt_plot(stem, &axes, two, 2, &e), LBT_EUNSUP);
	cr_assert(strstr(e.msg, "gnuplot"), "message names gnuplot: %s", e.msg);
	unsigned char h[8];
	snprintf(p, sizeof p, "%s.dat", stem);
	cr_assert_gt(file_head(p, h, 1), 0);
	snprintf(p, sizeof p, "%s.gp", stem);
	cr_assert_gt(file_head(p, h, 1), 0);
	cr_assert_eq(th_count_files(dir), 2, "no pictures, no temporaries");
}

Test(plot, refuses_a_plot_with_no_points)
{
	static const double neg[] = {-1, 0};
	lbt_series s = {.label = "nothing on a log axis", .x = neg, .y = neg, .n = 2};
	lbt_err e;
	cr_assert_eq(lbt_plot("/tmp/never", &axes, &s, 1, &e), LBT_EINVAL);
}

/* What a paper's figure needs, in the script a reader can edit: no title
 * unless asked, integer ticks on a counting axis (the P values themselves
 * on a log axis), a reference line without markers, states drawn as
 * steps, error bars from a spread, dashes for a curve hidden under another,
 * a note, and the legend inside the plot. */
Test(plot, script_draws_what_a_paper_figure_needs)
{
	static const double lo[] = {6, 14, 30, 60}, hi[] = {8, 16, 33, 66};
	const lbt_series s[] = {
		{.label = "mean over seeds", .x = xs, .y = ya, .n = 4, .lo = lo, .hi = hi},
		{.label = "level c", .x = xs, .y = ya, .n = 4, .draw = LBT_DRAW_LINE},
		{.label = "NNA iterations", .x = xs, .y = ya, .n = 4, .draw = LBT_DRAW_STEPS, .dash = 2},
		{.label = "paper", .x = xs, .y = ya, .n = 4, .draw = LBT_DRAW_MARKS, .colour = 2, .point = 6},
	};
	lbt_axes ax = {.xlabel = "number of PEs P", .ylabel = "T [shifts]", .logx = 1, .logy = 1, .intx = 1, .inty = 1,
	               .note = "C3 = C4 (identical)", .key = "bottom right"};
	char dir[256], stem[300], p[320];
	th_tmpdir(dir, sizeof dir);
	snprintf(stem, sizeof stem, "%s/fig", dir);
	setenv("LBTORUS_GNUPLOT", "/nonexistent/gnuplot", 1); /* the script is what is checked */
	lbt_err e;
	cr_assert_eq(lbt_plot(stem, &ax, s, 4, &e), LBT_EUNSUP);
	snprintf(p, sizeof p, "%s.gp", stem);
	char *gp = th_read(p, NULL);
	cr_assert(!strstr(gp, "set title"), "no title unless asked:\n%s", gp);
	cr_assert(strstr(gp, "set xtics (8, 16, 32, 64)\n"), "%s", gp);
	cr_assert(strstr(gp, "set format y '%.0f'\n"), "%s", gp);
	cr_assert(strstr(gp, "using 1:2:3:4 title 'mean over seeds' with yerrorlines"), "%s", gp);
	cr_assert(strstr(gp, "title 'level c' with lines lt 2 lw 1.5,"), "a line without markers:\n%s", gp);
	cr_assert(strstr(gp, "title 'NNA iterations' with steps lt 3 lw 2 dt 2,"), "%s", gp);
	cr_assert(strstr(gp, "title 'paper' with points lt 2 pt 6"), "%s", gp);
	cr_assert(strstr(gp, "set label 1 'C3 = C4 (identical)'"), "%s", gp);
	cr_assert(strstr(gp, "set key inside bottom right"), "%s", gp);
	free(gp);
	snprintf(p, sizeof p, "%s.dat", stem);
	char *dat = th_read(p, NULL);
	cr_assert(strstr(dat, "\n8 7 6 8\n16 15 14 16\n"), "error-bar columns x y lo hi:\n%s", dat);
	free(dat);
	th_rm_tree(dir);
}

/* Every table also as LaTeX: a Markdown pipe table becomes a booktabs
 * tabular with the separator row's alignment, special characters escaped,
 * our mathematical characters as math, `code` and **bold** kept; text
 * outside tables and a pipe line that is not a table are left out. */
Test(latex, markdown_tables_become_booktabs)
{
	char dir[256], md[300], tex[300];
	th_tmpdir(dir, sizeof dir);
	snprintf(md, sizeof md, "%s/t.md", dir);
	snprintf(tex, sizeof tex, "%s/t.tex", dir);
	FILE *f = fopen(md, "w");
	fputs("# Fig. 5 & more\n\nSome text with 5 % and_underscores.\n\n"
	      "| P | claim | ratio |\n|---:|---|:--:|\n| 8 | max − min ≤ 1, `nna` | **2.43** |\n"
	      "| 16 | 50 % of T_x, \\| a # b | 1 |\n\n| not a table\n", f);
	fclose(f);
	lbt_err e;
	cr_assert_eq(lbt_md_tables_to_latex(md, tex, &e), LBT_OK, "%s", e.msg);
	char *t = th_read(tex, NULL);
	cr_assert(strstr(t, "% Fig. 5 \\& more\n\\begin{tabular}{rlc}\n\\toprule\nP & claim & ratio \\\\\n\\midrule\n"), "%s", t);
	cr_assert(strstr(t, "8 & max $-$ min $\\le$ 1, \\texttt{nna} & \\textbf{2.43} \\\\\n"), "%s", t);
	cr_assert(strstr(t, "16 & 50 \\% of T\\_x, $|$ a \\# b & 1 \\\\\n\\bottomrule\n\\end{tabular}\n"), "%s", t);
	cr_assert(!strstr(t, "Some text") && !strstr(t, "not a table"), "%s", t);
	free(t);
	th_rm_tree(dir);
}

/* A column of long text wraps in a p{} column, its width its share of the
 * table's text: here the widest cells are 4 (P), 95 (claim) and 5 (ratio,
 * its header) bytes, 104 in all (over 100: a table worth wrapping), so claim
 * gets 0.7 * 95/104 = 0.64 of the line and the short columns keep their
 * alignment. */
Test(latex, long_text_wraps_in_a_paragraph_column)
{
	char dir[256], md[300], tex[300];
	th_tmpdir(dir, sizeof dir);
	snprintf(md, sizeof md, "%s/t.md", dir);
	snprintf(tex, sizeof tex, "%s/t.tex", dir);
	FILE *f = fopen(md, "w");
	fputs("| P | claim | ratio |\n|---:|---|---:|\n"
	      "| 2048 | NNA needs about four times longer than LM within our range of processor numbers, says section 5 | 0.9 |\n| 8 | short | 1 |\n", f);
	fclose(f);
	lbt_err e;
	cr_assert_eq(lbt_md_tables_to_latex(md, tex, &e), LBT_OK, "%s", e.msg);
	char *t = th_read(tex, NULL);
	cr_assert(strstr(t, "\\begin{tabular}{rp{0.64\\linewidth}r}\n"), "%s", t);
	free(t);
	th_rm_tree(dir);
}

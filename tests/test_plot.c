/* test_plot.c — the gnuplot plot module: data, script and pictures appear
 * whole; without gnuplot the data and script are still written. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"

static const double xs[] = {8, 16, 32, 64}, ya[] = {7, 15, 31, 63}, yb[] = {2, NAN, 8, 16};
static const lbt_series two[] = {{"LM-C5 sharing", xs, ya, 4}, {"NNA (with a gap)", xs, yb, 4}};
static const lbt_axes axes = {"Paper's 'Fig. 5' test", "PEs P", "time T [shifts]", 1, 1};

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
	lbt_series s = {"nothing on a log axis", neg, neg, 2};
	lbt_err e;
	cr_assert_eq(lbt_plot("/tmp/never", &axes, &s, 1, &e), LBT_EINVAL);
}

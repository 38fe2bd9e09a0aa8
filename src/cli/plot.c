/* plot.c — `lbtorus plot FILE...`: a figure of one's own results files
 * and traces, with a fit and its confidence intervals (lbtorus/figure.h). */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_internal.h"

static void help(void)
{
	printf("usage: lbtorus plot FILE... --x KEY --y KEY [OPTIONS]\n"
	       "\n"
	       "Draw y against x from results files (.jsonl: one point per record, KEY a key\n"
	       "of the records: k, pes, balanced_step, sqdev_mean, ...) and traces (.csv of\n"
	       "lbtorus run --trace: one point per row, KEY a column: step, sqdev, stddev,\n"
	       "...). Points of one group with equal x (the seeds of a configuration) are\n"
	       "averaged, with an error bar of one standard error; a fit uses every point.\n"
	       "\n"
	       "  --x KEY         the abscissa\n"
	       "  --y KEY         the ordinate\n"
	       "  --group KEY     one series per value of KEY (method: with its parameters);\n"
	       "                  a trace's KEY: a column, or its header's '# KEY: value'\n"
	       "                  line (method, shape, init, seed, ...); default: one\n"
	       "                  series per trace file, one for all records\n"
	       "  --logx          a logarithmic x axis\n"
	       "  --logy          a logarithmic y axis\n"
	       "  --fit KIND      linear (y = a + b x) or power (y = a x^b, least squares of\n"
	       "                  ln y on ln x): a, b and their 95 %% confidence intervals\n"
	       "                  printed, the line and its 95 %% band drawn\n"
	       "  --title TEXT    a title (default none)\n"
	       "  --out STEM      the files (default plot): STEM.png, STEM.svg (gnuplot),\n"
	       "                  STEM.gp and STEM.dat (its script and data), STEM.py (a\n"
	       "                  matplotlib script that redraws the figure from STEM.csv,\n"
	       "                  the means), STEM.fit.json (the fits, provenance, inputs'\n"
	       "                  SHA-256; one JSON object per group)\n"
	       "\n"
	       "example: lbtorus sweep --results tk.jsonl --shape torus2:16..128*2 --init worst:5\n"
	       "         lbtorus plot tk.jsonl --x k --y balanced_step --logx --logy --fit power\n");
}

int cmd_plot(int argc, char **argv)
{
	enum { O_X = 256, O_Y, O_GROUP, O_LOGX, O_LOGY, O_FIT, O_TITLE, O_OUT, O_HELP };
	static const struct option opts[] = {{"x", 1, 0, O_X}, {"y", 1, 0, O_Y}, {"group", 1, 0, O_GROUP},
	                                     {"logx", 0, 0, O_LOGX}, {"logy", 0, 0, O_LOGY}, {"fit", 1, 0, O_FIT},
	                                     {"title", 1, 0, O_TITLE}, {"out", 1, 0, O_OUT}, {"help", 0, 0, O_HELP},
	                                     {0, 0, 0, 0}};
	lbt_figure_opts fo = {.stem = "plot"};
	lbt_err e;
	int o;
	if (cli_no_empty_values(argc, argv, opts, "plot"))
		return EXIT_USAGE;
	opterr = 0;
	optind = 0;
	while ((o = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
		switch (o) {
		case O_X: fo.x = optarg; break;
		case O_Y: fo.y = optarg; break;
		case O_GROUP: fo.group = optarg; break;
		case O_LOGX: fo.logx = 1; break;
		case O_LOGY: fo.logy = 1; break;
		case O_FIT:
			if (lbt_fit_parse(optarg, &fo.fit, &e))
				return cli_fail(LBT_EINVAL, "plot: %s", e.msg);
			break;
		case O_TITLE: fo.title = optarg; break;
		case O_OUT: fo.stem = optarg; break;
		case O_HELP: help(); return 0;
		case ':': return cli_fail(LBT_EINVAL, "plot: option '%s' needs a value", argv[optind - 1]);
		default: return cli_fail(LBT_EINVAL, "plot: unknown option '%s' (see lbtorus plot --help)", argv[optind - 1]);
		}
	}
	if (!fo.x || !fo.y)
		return cli_fail(LBT_EINVAL, "plot: give --x KEY and --y KEY (see lbtorus plot --help)");
	fo.inputs = (const char *const *)argv + optind;
	fo.ninputs = argc - optind;
	/* the outputs must not overwrite an input */
	static const char *const ext[] = {".csv", ".dat", ".gp", ".py", ".fit.json", ".png", ".svg"};
	char outp[7][4200];
	lbt_io_name outs[7];
	for (int i = 0; i < 7; i++) {
		snprintf(outp[i], sizeof outp[i], "%s%s", fo.stem, ext[i]);
		outs[i] = (lbt_io_name){"--out", outp[i]};
	}
	lbt_io_name *ins = malloc((size_t)(fo.ninputs + 1) * sizeof *ins);
	if (!ins)
		return cli_fail(LBT_ENOMEM, "no memory");
	for (int i = 0; i < fo.ninputs; i++)
		ins[i] = (lbt_io_name){"the input", fo.inputs[i]};
	int st = lbt_io_distinct(ins, fo.ninputs, outs, 7, &e);
	free(ins);
	lbt_figure_result r;
	if (!st)
		st = lbt_figure(&fo, &r, &e);
	if (st)
		return cli_fail(st, "%s", e.msg);
	for (int g = 0; g < r.ngroups; g++) {
		const lbt_fit *f = &r.fit[g];
		printf("%s: %lld points", r.label[g], (long long)r.points[g]);
		if (f->kind == LBT_FIT_POWER)
			printf("; %s = a * %s^b, a = %.4g, b = %.4g", fo.y, fo.x, f->a, f->b);
		else if (f->kind == LBT_FIT_LINEAR)
			printf("; %s = a + b * %s, a = %.4g, b = %.4g", fo.y, fo.x, f->a, f->b);
		if (f->kind != LBT_FIT_NONE && isfinite(f->t))
			printf(" (95%% CI: a %.4g..%.4g, b %.4g..%.4g), R^2 = %.4f", f->a_lo, f->a_hi, f->b_lo, f->b_hi, f->r2);
		else if (f->kind != LBT_FIT_NONE)
			printf(" (two points: no interval)");
		putchar('\n');
	}
	if (r.skipped)
		printf("skipped %lld records or rows without numbers at both %s and %s\n", (long long)r.skipped, fo.x, fo.y);
	printf("%s.%s, %s.csv, %s.py, %s.fit.json%s\n", fo.stem, r.drawn ? "png, .svg, .gp, .dat" : "gp, .dat", fo.stem,
	       fo.stem, fo.stem, r.drawn ? "" : " (no gnuplot: no pictures; the .py script draws them with matplotlib)");
	return 0;
}

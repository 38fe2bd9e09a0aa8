/* plot.c — `lbtorus plot FILE...`: a figure of one's own results files
 * and traces, with a fit and its confidence intervals (lbt_figure_write). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

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

static void print_line(void *ctx, const char *line)
{
	(void)ctx;
	puts(line);
}

int cmd_plot(int argc, char **argv)
{
	enum { O_X = 256, O_Y, O_GROUP, O_LOGX, O_LOGY, O_FIT, O_TITLE, O_OUT, O_HELP };
	static const struct option opts[] = {{"x", 1, 0, O_X}, {"y", 1, 0, O_Y}, {"group", 1, 0, O_GROUP},
	                                     {"logx", 0, 0, O_LOGX}, {"logy", 0, 0, O_LOGY}, {"fit", 1, 0, O_FIT},
	                                     {"title", 1, 0, O_TITLE}, {"out", 1, 0, O_OUT}, {"help", 0, 0, O_HELP},
	                                     {0, 0, 0, 0}};
	lbt_figure_spec fs = lbt_figure_default();
	fs.print = print_line;
	lbt_err e;
	int o;
	if (cli_no_empty_values(argc, argv, opts, "plot"))
		return EXIT_USAGE;
	opterr = 0;
	optind = 0;
	while ((o = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
		switch (o) {
		case O_X: fs.x = optarg; break;
		case O_Y: fs.y = optarg; break;
		case O_GROUP: fs.group = optarg; break;
		case O_LOGX: fs.logx = 1; break;
		case O_LOGY: fs.logy = 1; break;
		case O_FIT: {
			lbt_figure_spec fit = lbt_figure_default(); /* the name checked now, before the other options */
			fit.fit = optarg;
			fit.x = fit.y = "x";
			if (lbt_figure_check(&fit, &e))
				return cli_fail(LBT_EINVAL, "%s", e.msg);
			fs.fit = optarg;
			break;
		}
		case O_TITLE: fs.title = optarg; break;
		case O_OUT: fs.stem = optarg; break;
		case O_HELP: help(); return 0;
		case ':': return cli_fail(LBT_EINVAL, "plot: option '%s' needs a value", argv[optind - 1]);
		default: return cli_fail(LBT_EINVAL, "plot: unknown option '%s' (see lbtorus plot --help)", argv[optind - 1]);
		}
	}
	if (!fs.x || !fs.y)
		return cli_fail(LBT_EINVAL, "plot: give --x KEY and --y KEY (see lbtorus plot --help)");
	fs.inputs = (const char *const *)argv + optind;
	fs.ninputs = argc - optind;
	int st = lbt_figure_write(&fs, &e); /* checks that no output overwrites an input */
	return st ? cli_fail(st, "%s", e.msg) : 0;
}

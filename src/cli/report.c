/* report.c — `lbtorus report RESULTS.jsonl`: a Markdown summary of a
 * results file and of what lies beside it. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"

static void help(void)
{
	printf("usage: lbtorus report RESULTS.jsonl|DIR [--out REPORT.md]\n"
	       "\n"
	       "Write a Markdown summary of a results file (lbtorus sweep, bound): one table\n"
	       "per method, one row per configuration (shape, boundary, init, until) with\n"
	       "medians over its seeds, the Theorem 3 columns; runs under a workload in a\n"
	       "table per workload, a row per method and configuration, with the columns\n"
	       "their records hold (sqdev_mean +- se, generated, completed, ...); the\n"
	       "provenance (the records' builds, hosts and dates, and this command's); and,\n"
	       "from the same directory, bound.json's constants, every *.png plot and every\n"
	       "*.md table (e.g. those of lbtorus reproduce). Given a directory, it reports\n"
	       "every *.jsonl in it (there may be none: then only the tables and plots).\n"
	       "\n"
	       "  --out FILE    where to write (default: report.md beside RESULTS or in DIR;\n"
	       "                - = stdout)\n"
	       "\n"
	       "example: lbtorus report bound/runs.jsonl   # writes bound/report.md\n"
	       "         lbtorus report reproduce-out       # writes reproduce-out/report.md\n");
}

int cmd_report(int argc, char **argv)
{
	enum { O_OUT = 256, O_HELP };
	static const struct option opts[] = {{"out", 1, 0, O_OUT}, {"help", 0, 0, O_HELP}, {0, 0, 0, 0}};
	const char *out = NULL;
	int o;
	if (cli_no_empty_values(argc, argv, opts, "report"))
		return EXIT_USAGE;
	opterr = 0;
	optind = 0; /* glibc: a fresh scan (cli_no_empty_values scanned first) */
	while ((o = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
		if (o == O_OUT)
			out = optarg;
		else if (o == O_HELP) {
			help();
			return 0;
		} else if (o == ':')
			return cli_fail(LBT_EINVAL, "report: option '%s' needs a value", argv[optind - 1]);
		else
			return cli_fail(LBT_EINVAL, "report: unknown option '%s' (see lbtorus report --help)", argv[optind - 1]);
	}
	if (optind + 1 != argc)
		return cli_fail(LBT_EINVAL, optind == argc ? "report: name the results file (lbtorus report RESULTS.jsonl)"
		                                           : "report: give one results file, got '%s' too", argv[argc - 1]);
	const char *results = argv[optind];
	char def[4200];
	struct stat sb;
	if (!out && !stat(results, &sb) && S_ISDIR(sb.st_mode)) {
		snprintf(def, sizeof def, "%s/report.md", results);
		out = def;
	} else if (!out) {
		const char *slash = strrchr(results, '/');
		snprintf(def, sizeof def, "%.*sreport.md", slash ? (int)(slash - results + 1) : 0, results);
		out = def;
	}
	lbt_err e;
	int st = lbt_report_write(results, out, &e);
	if (st)
		return cli_fail(st, "%s", e.msg);
	if (strcmp(out, "-"))
		printf("%s\n", out);
	return 0;
}

/* bound.c — `lbtorus bound`: sweep D, K and Ldiff, and check Henrich's
 * (1996) Theorem 3 (T = O(D·K·Ldiff)) against the runs: fitted constants,
 * CSV, JSON and plots of T/(D·K·Ldiff) against each parameter
 * (lbt_bound_run). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static void help(void)
{
	const lbt_bound_opts d = lbt_bound_default();
	printf("usage: lbtorus bound [--out DIR] [--from RESULTS.jsonl] [--titles] [SWEEP OPTIONS]\n"
	       "\n"
	       "Check Theorem 3 of Henrich's Liquid model paper (1996): LM-C5 balances a\n"
	       "D-dimensional K^D torus in T = O(D·K·Ldiff) steps. Runs a sweep over D, K and\n"
	       "Ldiff (resumable, into DIR/runs.jsonl) and estimates c in T ~ c·D·K·Ldiff two\n"
	       "ways: the mean of the ratios T/(D·K·Ldiff) (with a 95 %% confidence interval)\n"
	       "and ordinary least squares of T on D·K·Ldiff. Only runs with every PE loaded at\n"
	       "the start (the theorem's premise) are fitted; runs with an idle PE (worst:C)\n"
	       "are reported apart, and runs stopped at --max-steps are censored (T > cap):\n"
	       "shown, not fitted. Writes\n"
	       "  DIR/bound.csv     one row per run: D, K, Ldiff, T, D·K·Ldiff, the ratio, ...\n"
	       "  DIR/bound.json    both constants, the envelope (max ratio), quartiles, the\n"
	       "                    runs outside the fit, a power-law fit and its spans\n"
	       "  DIR/bound_d.*, bound_k.*, bound_ldiff.*   plots of T/(D·K·Ldiff) (.png .svg\n"
	       "                    through gnuplot; .dat .gp always)\n"
	       "and prints the constants, what the fit says, and a warning for every variable\n"
	       "that spans less than a factor of 4. The rows and the fit follow the sweep's\n"
	       "plan, whatever order the runs finished in. Under MPI the runs go over the\n"
	       "ranks as a sweep's do, and rank 0 writes every file.\n"
	       "\n"
	       "  --out DIR          where the files go (default bound; created if missing)\n"
	       "  --from FILE        analyse the records of FILE (e.g. a sweep's) instead of\n"
	       "                     running; --method picks whose (default lm-c5)\n"
	       "  --titles           put a title on each plot (default none: a paper's figure\n"
	       "                     has a caption instead)\n");
	cli_sweep_help(1);
	printf("\n"
	       "The sweep's defaults here (they replace those above): --method lm-c5\n"
	       "  --until %s --seed %s\n"
	       "  --shape '%s'\n"
	       "  --init '%s'\n"
	       "\n"
	       "example: lbtorus bound --out bound --shape ring:8..1024*2 --init uniform:1:2..512*2\n",
	       d.until, d.seed, d.shape, d.init);
}

/* One `lbtorus bound`: its options and the sweep's. */
typedef struct {
	cli_sweep c;
	lbt_bound_opts o;
	char runs[4200]; /* DIR/runs.jsonl, for the sweep's messages */
} bound_cmd;

/* The options; *help: --help was printed. Returns 0 or an exit status. */
static int bound_options(bound_cmd *b, int argc, char **argv, int *help_shown)
{
	enum { O_OUT = 256, O_FROM, O_TITLES, O_HELP };
	static const struct option opts[] = {{"out", 1, 0, O_OUT}, {"from", 1, 0, O_FROM}, {"titles", 0, 0, O_TITLES},
	                                     {"help", 0, 0, O_HELP}, CLI_SWEEP_OPTIONS, {0, 0, 0, 0}};
	int o, rc = 0;
	*help_shown = 0;
	if (cli_no_empty_values(argc, argv, opts, "bound"))
		return EXIT_USAGE;
	opterr = 0;
	optind = 0; /* glibc: a fresh scan (cli_no_empty_values scanned first) */
	while (!rc && (o = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
		if (o == O_OUT)
			b->o.out_dir = optarg;
		else if (o == O_FROM)
			b->o.from = optarg;
		else if (o == O_TITLES)
			b->o.titles = 1;
		else if (o == O_HELP) {
			help();
			*help_shown = 1;
			return 0;
		} else if (o == '?' || o == ':')
			rc = o == ':' ? cli_fail(LBT_EINVAL, "bound: option '%s' needs a value", argv[optind - 1])
			            : cli_fail(LBT_EINVAL, "bound: unknown option '%s' (see lbtorus bound --help)", argv[optind - 1]);
		else
			rc = cli_sweep_option(&b->c, o, optarg, argc, argv);
	}
	if (!rc && optind < argc)
		rc = cli_fail(LBT_EINVAL, "bound: unexpected argument '%s' (see lbtorus bound --help)", argv[optind]);
	return rc;
}

/* The summary, a line at a time on stdout. */
static void print_line(void *ctx, const char *line)
{
	(void)ctx;
	puts(line);
}

/* After a signal: what was kept. */
static int bound_interrupted(const bound_cmd *b, const lbt_bound_result *r)
{
	const char *dir = b->o.out_dir;
	const int ran = r->ran, fitted = r->published;
	char kept[9000];
	snprintf(kept, sizeof kept, "%s%s%s%s%s%s%s", ran ? "the finished runs are in " : "", ran ? dir : "",
	         ran ? "/runs.jsonl" : "", fitted ? (ran ? ", the fit in " : "the fit is in ") : "", fitted ? dir : "",
	         fitted ? (r->drawn ? "/bound.csv, bound.json and the plots" : "/bound.csv and bound.json; no plots") : "",
	         !ran && !fitted ? "nothing written" : "");
	return cli_interrupted("bound", kept);
}

int cmd_bound(int argc, char **argv)
{
	bound_cmd *b = calloc(1, sizeof *b);
	if (!b)
		return cli_fail(LBT_ENOMEM, "bound: no memory");
	cli_sweep_init(&b->c);
	b->o = lbt_bound_default();
	int help_shown, rc = bound_options(b, argc, argv, &help_shown);
	if (rc || help_shown) {
		free(b);
		return rc;
	}
	/* a signal from here on: the sweep stops between runs, nothing computed
	 * after it is published (lbt_out_hold), and the command exits 3 */
	b->c.b.interrupt = cli_stop_cleanly();
	b->c.b.note = print_line;
	snprintf(b->runs, sizeof b->runs, "%s/runs.jsonl", b->o.out_dir);
	cli_sweep_start(&b->c, b->o.from ? NULL : b->runs);
	b->o.sweep = b->c.o;
	lbt_bound_result r;
	lbt_err e;
	int st = lbt_bound_run(&b->o, &b->c.b, &r, &e);
	const int stop = *b->c.b.interrupt || st == LBT_EINTR; /* under MPI: a signal to any rank stops them all */
	if (r.sweep.end && r.sweep.status) /* the sweep failed or was interrupted: it says so */
		rc = cli_sweep_verdict(&b->c, st, &r.sweep, &e);
	else if (st && st != LBT_EINTR && !stop)
		rc = cli_fail(st, "%s", e.msg);
	else if (!st && b->o.sweep.dry_run && !b->o.from) {
		if (r.sweep.rank == 0)
			fprintf(stderr, "lbtorus: %lld runs\n", (long long)r.sweep.total);
	} else if (!st && !r.drawn && r.sweep.rank == 0)
		fprintf(stderr, "lbtorus: plots: %s\n", r.plots);
	if (stop && rc != EXIT_UNCONVERGED)
		rc = bound_interrupted(b, &r);
	free(b);
	return rc;
}

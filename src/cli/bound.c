/* bound.c — `lbtorus bound`: sweep D, K and Ldiff, and check Henrich's
 * (1996) Theorem 3 (T = O(D·K·Ldiff)) against the runs: fitted constants,
 * CSV, JSON and plots of T/(D·K·Ldiff) against each parameter. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli_internal.h"

/* The default sweep: rings, K x K and K^3, K^4 tori; the paper's worst case
 * (Ldiff = c·P, all load on one PE), a step of height H (half the torus
 * holds H + 1, the rest 1: the tight case) and uniform loads 1..L (every PE
 * loaded, as the theorem assumes), Ldiff up to 2047: 420 runs, 8 s on 2
 * cores with the AVX2 kernels (docs/usage.md). */
static const char *const default_axes[][2] = {
	{"shape", "ring:8..2048*2, torus2:4..128*2, torus3:4..16*2, torus4:4..8*2"},
	{"init", "worst:1, worst:5, half:4..256*4, uniform:1:8..2048*4"},
	{"seed", "1..3"},
	{"until", "balanced"},
};

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static void help(void)
{
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
	       "that spans less than a factor of 4.\n"
	       "\n"
	       "  --out DIR          where the files go (default bound; created if missing)\n"
	       "  --from FILE        analyse the records of FILE (e.g. a sweep's) instead of\n"
	       "                     running; --method picks whose (default lm-c5)\n"
	       "  --titles           put a title on each plot (default none: a paper's figure\n"
	       "                     has a caption instead)\n");
	cli_sweep_help(1);
	printf("\n"
	       "The sweep's defaults here (they replace those above): --method lm-c5\n"
	       "  --until balanced --seed 1..3\n"
	       "  --shape '%s'\n"
	       "  --init '%s'\n"
	       "\n"
	       "example: lbtorus bound --out bound --shape ring:8..1024*2 --init uniform:1:2..512*2\n",
	       default_axes[0][1], default_axes[1][1]);
}

/* One `lbtorus bound`: its options, the sweep, the points fitted, and how
 * far it got (what the message after a signal says was kept). */
typedef struct {
	cli_sweep c;
	const char *dir, *from;
	int titles;
	const volatile sig_atomic_t *stop;
	int ran, fitted, drawn; /* runs.jsonl holds this sweep's runs; bound.csv and bound.json are published; and
	                           the plots */
	int created;            /* the --out directory, removed again if it is still empty when bound fails */
	int done;               /* --dry-run: the plan was printed, nothing more to do */
	lbt_spec base, spec;
	lbt_plan pl;
	lbt_jsonl *recs;
	lbt_bound_point *pts;
	int64_t n, skipped;
	char *method;
	char path[4500];
	lbt_bound_stats f;
	int plots; /* the plots' status (LBT_EUNSUP: no gnuplot), their message in pe */
	lbt_err pe;
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
			b->dir = optarg;
		else if (o == O_FROM)
			b->from = optarg;
		else if (o == O_TITLES)
			b->titles = 1;
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
	if (!rc && b->c.cmd.n[LBT_AX_METHOD] > 1)
		rc = cli_fail(LBT_EINVAL, "bound: give one --method (the constant is per method)");
	return rc;
}

/* The plan (the default axes under the options; --dry-run prints it and is
 * done), the outputs checked against the inputs, DIR made, and the sweep
 * run into DIR/runs.jsonl unless --from gives the records. Returns 0 or an
 * exit status. */
static int bound_sweep(bound_cmd *b)
{
	lbt_err e;
	int rc = 0;
	if (!b->from) {
		for (size_t i = 0; !rc && i < sizeof default_axes / sizeof default_axes[0]; i++)
			if ((rc = lbt_spec_add(&b->base, lbt_spec_axis_find(default_axes[i][0]), default_axes[i][1], &e)))
				rc = cli_fail(rc, "%s", e.msg);
		if (!rc)
			rc = cli_sweep_plan(&b->c, &b->base, &b->spec, &b->pl);
		if (!rc && b->c.dry_run) {
			b->done = 1;
			return cli_sweep_exec(&b->c, &b->pl, NULL);
		}
	} else
		lbt_spec_free(&b->c.cmd);
	char outp[3][4200];
	snprintf(outp[0], sizeof outp[0], "%s/runs.jsonl", b->dir);
	snprintf(outp[1], sizeof outp[1], "%s/bound.csv", b->dir);
	snprintf(outp[2], sizeof outp[2], "%s/bound.json", b->dir);
	const lbt_io_name outs[] = {{"bound's", b->from ? NULL : outp[0]}, {"bound's", outp[1]}, {"bound's", outp[2]}};
	if (!rc)
		rc = cli_sweep_distinct(&b->c, &b->spec, b->from, outs, 3);
	struct stat sb;
	if (!rc && !stat(b->dir, &sb) && !S_ISDIR(sb.st_mode))
		rc = cli_fail(LBT_EINVAL, "bound: --out %s exists and is not a directory", b->dir);
	if (!rc && !(b->created = !mkdir(b->dir, 0777)) && errno != EEXIST)
		rc = cli_fail(LBT_EIO, "bound: cannot create directory %s: %s", b->dir, strerror(errno));
	if (rc || b->from)
		return rc;
	snprintf(b->path, sizeof b->path, "%s/runs.jsonl", b->dir);
	if ((rc = cli_sweep_exec(&b->c, &b->pl, b->path)))
		return rc;
	b->from = b->path;
	b->ran = 1;
	return 0;
}

/* The method's points of the records (only this sweep's runs, if the file
 * holds others too), fitted. */
static int bound_fit(bound_cmd *b, lbt_err *e)
{
	int st = lbt_jsonl_open(&b->recs, b->from, e);
	if (!st && !b->ran) /* the records fitted, given: their checksum in the manifest */
		st = lbt_provenance_add_input("from", b->from, e);
	if (!st)
		st = lbt_bound_points(b->recs, b->method, &b->pts, &b->n, &b->skipped, e);
	if (!st && b->pl.n) {
		const char **keys = malloc((size_t)b->pl.n * sizeof *keys);
		if (!keys)
			st = lbt_errf(e, LBT_ENOMEM, "no memory for the plan's keys");
		for (int64_t j = 0; keys && j < b->pl.n; j++)
			keys[j] = b->pl.run[j].key;
		int64_t k = 0;
		if (keys) {
			qsort(keys, (size_t)b->pl.n, sizeof *keys, cmp_str);
			for (int64_t i = 0; i < b->n; i++)
				if (bsearch(&b->pts[i].key, keys, (size_t)b->pl.n, sizeof *keys, cmp_str))
					b->pts[k++] = b->pts[i];
			b->skipped += b->n - k;
			b->n = k;
		}
		free(keys);
	}
	if (!st && b->n == 0)
		st = lbt_errf(e, LBT_EINVAL, "no %s run in %s reached balanced on a symmetric torus", b->method, b->from);
	if (!st && lbt_bound_fit(b->pts, b->n, &b->f))
		st = lbt_errf(e, LBT_EINVAL, "no %s run in %s to fit: %lld with an idle PE at the start (outside Theorem "
		              "3's premise: every PE loaded, e.g. uniform:1:100 rather than uniform:0:100), %lld stopped at "
		              "--max-steps", b->method, b->from, (long long)b->f.broken_n, (long long)b->f.censored_n);
	return st;
}

/* bound.csv, bound.json, the plots and the manifest, published together
 * (lbt_outdir) unless st already failed or a signal came: a failure leaves
 * the earlier ones in DIR whole. */
static int bound_publish(bound_cmd *b, int st, lbt_err *e)
{
	lbt_outdir od = {0};
	b->plots = LBT_OK;
	if (!st)
		st = lbt_outdir_open(&od, b->dir, e);
	if (!st) {
		snprintf(b->path, sizeof b->path, "%s/bound.csv", od.stage);
		st = lbt_bound_write_csv(b->path, b->pts, b->n, e);
	}
	if (!st) {
		snprintf(b->path, sizeof b->path, "%s/bound.json", od.stage);
		st = lbt_bound_write_json(b->path, b->method, &b->f, b->pts, b->n, e);
	}
	if (!st && !*b->stop) { /* no plot is drawn after a signal */
		snprintf(b->path, sizeof b->path, "%s/bound", od.stage);
		b->plots = lbt_bound_plots(b->path, b->titles, &b->f, b->pts, b->n, &b->pe);
		if (b->plots && b->plots != LBT_EUNSUP) /* without gnuplot the data files are published all the same */
			st = lbt_errf(e, b->plots, "plots: %s", b->pe.msg);
		b->drawn = !b->plots;
	}
	if (!st && !*b->stop) /* bound.manifest.json: what made these files, and their checksums */
		st = lbt_provenance_manifest(od.stage, "bound", b->c.so.isa, b->c.so.threads, e);
	/* published whole or not at all: not after a signal (the commit is then refused too) */
	const int go = !st && !*b->stop;
	if (go)
		st = lbt_outdir_commit(&od, e);
	else
		lbt_outdir_abort(&od, e);
	b->fitted = go && !st;
	return st;
}

/* The constants and what the fit says, on stdout. */
static void bound_print(bound_cmd *b)
{
	const lbt_bound_stats *f = &b->f;
	const lbt_bound_point *w = &b->pts[f->argmax];
	printf("Theorem 3 (Henrich 1996), %s: T = steps until balanced; %lld runs (%lld records skipped)\n", b->method,
	       (long long)b->n, (long long)b->skipped);
	printf("  fitted runs         %lld, every PE loaded at the start (the theorem's premise L_i > 0)\n",
	       (long long)f->n);
	if (f->broken_n)
		printf("  outside the premise %lld runs with an idle PE at the start (e.g. worst:C), not fitted: "
		       "T/(D*K*Ldiff) mean %.4g, max %.4g\n", (long long)f->broken_n, f->broken_mean_ratio,
		       f->broken_max_ratio);
	if (f->censored_n)
		printf("  censored            %lld runs stopped at --max-steps before balanced (T > cap), not fitted: "
		       "T/(D*K*Ldiff) > %.4g for the largest%s\n", (long long)f->censored_n, f->censored_max_ratio,
		       f->censored_max_ratio > f->max_ratio ? " -- above the envelope, which is therefore only a lower bound"
		                                            : "");
	if (f->n > 1)
		printf("  c, mean of ratios   T ~ %.4g * D*K*Ldiff   (95%% CI %.4g..%.4g, n = %lld; rms relative residual %.2g)\n",
		       f->c, f->c_lo95, f->c_hi95, (long long)f->n, f->rms_rel);
	else
		printf("  c, mean of ratios   T ~ %.4g * D*K*Ldiff   (one run: no interval)\n", f->c);
	printf("  c, OLS              T ~ %.4g * D*K*Ldiff   (least squares of T on D*K*Ldiff through 0; "
	       "rms relative residual %.2g)\n", f->c_abs, f->rms_rel_ols);
	printf("  T/(D*K*Ldiff)       min %.4g, quartiles %.4g / %.4g / %.4g, max %.4g\n", f->min_ratio, f->q1_ratio,
	       f->median_ratio, f->q3_ratio, f->max_ratio);
	printf("  envelope            T <= %.4g * D*K*Ldiff on every fitted run; the tightest: %s\n", f->max_ratio, w->key);
	printf("  T in shifts         mean of T_shifts/(D*K*Ldiff) %.4g (the paper's unit; D shifts per LM step)\n",
	       f->c_shifts);
	if (f->power_ok)
		printf("  power law           T ~ %.3g * D^%.2f * K^%.2f * Ldiff^%.2f   (R^2 %.3f, %d runs; spans x%.3g, x%.3g, x%.3g)\n",
		       exp(f->a), f->pd, f->pk, f->pl, f->r2, f->power_n, f->span_d, f->span_k, f->span_l);
	lbt_bound_describe(stdout, f, "  ");
	printf("  files               %s/bound.csv, %s/bound.json\n", b->dir, b->dir);
	snprintf(b->path, sizeof b->path, "%s/bound", b->dir);
	if (b->plots)
		fprintf(stderr, "lbtorus: plots: %s\n", b->pe.msg);
	else
		printf("  plots               %s_d.png, %s_k.png, %s_ldiff.png (and .svg)\n", b->path, b->path, b->path);
}

/* After a signal: what was kept. Then DIR removed if bound made it and
 * failed, and everything freed. Returns the exit status. */
static int bound_finish(bound_cmd *b, int rc)
{
	if (*b->stop && rc != EXIT_UNCONVERGED) { /* (the sweep's own interruption has said so) */
		const int ran = b->ran, fitted = b->fitted;
		char kept[9000];
		snprintf(kept, sizeof kept, "%s%s%s%s%s%s%s", ran ? "the finished runs are in " : "", ran ? b->dir : "",
		         ran ? "/runs.jsonl" : "", fitted ? (ran ? ", the fit in " : "the fit is in ") : "",
		         fitted ? b->dir : "",
		         fitted ? (b->drawn ? "/bound.csv, bound.json and the plots" : "/bound.csv and bound.json; no plots")
		                : "",
		         !ran && !fitted ? "nothing written" : "");
		rc = cli_interrupted("bound", kept);
	}
	if (rc && b->created)
		rmdir(b->dir);
	free(b->pts);
	lbt_jsonl_close(b->recs);
	lbt_plan_free(&b->pl);
	lbt_spec_free(&b->spec);
	lbt_spec_free(&b->base);
	free(b->method);
	return rc;
}

int cmd_bound(int argc, char **argv)
{
	bound_cmd *b = calloc(1, sizeof *b);
	if (!b)
		return cli_fail(LBT_ENOMEM, "bound: no memory");
	cli_sweep_init(&b->c);
	b->dir = "bound";
	int help_shown, rc = bound_options(b, argc, argv, &help_shown);
	if (rc || help_shown) {
		lbt_spec_free(&b->c.cmd);
		free(b);
		return rc;
	}
	/* a signal from here on: the sweep stops between runs, nothing computed
	 * after it is published (lbt_out_hold), and the command exits 3 */
	b->stop = cli_stop_cleanly();
	lbt_spec_init(&b->base);
	lbt_spec_init(&b->spec);
	b->method = strdup(b->c.cmd.n[LBT_AX_METHOD] ? b->c.cmd.item[LBT_AX_METHOD][0] : "lm-c5");
	if (!(rc = bound_sweep(b)) && !b->done) {
		lbt_err e;
		int st = bound_publish(b, bound_fit(b, &e), &e);
		if (st && !*b->stop)
			rc = cli_fail(st, "%s", e.msg);
		else if (!*b->stop)
			bound_print(b);
	}
	rc = bound_finish(b, rc);
	free(b);
	return rc;
}

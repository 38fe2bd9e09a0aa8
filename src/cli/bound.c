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

#include "cli.h"

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

int cmd_bound(int argc, char **argv)
{
	enum { O_OUT = 256, O_FROM, O_TITLES, O_HELP };
	static const struct option opts[] = {{"out", 1, 0, O_OUT}, {"from", 1, 0, O_FROM}, {"titles", 0, 0, O_TITLES},
	                                     {"help", 0, 0, O_HELP}, CLI_SWEEP_OPTIONS, {0, 0, 0, 0}};
	cli_sweep c;
	cli_sweep_init(&c);
	const char *dir = "bound", *from = NULL;
	int o, rc = 0, titles = 0;
	if (cli_no_empty_values(argc, argv, opts, "bound"))
		return EXIT_USAGE;
	opterr = 0;
	optind = 0; /* glibc: a fresh scan (cli_no_empty_values scanned first) */
	while (!rc && (o = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
		if (o == O_OUT)
			dir = optarg;
		else if (o == O_FROM)
			from = optarg;
		else if (o == O_TITLES)
			titles = 1;
		else if (o == O_HELP) {
			help();
			lbt_spec_free(&c.cmd);
			return 0;
		} else if (o == '?' || o == ':')
			rc = o == ':' ? cli_fail(LBT_EINVAL, "bound: option '%s' needs a value", argv[optind - 1])
			            : cli_fail(LBT_EINVAL, "bound: unknown option '%s' (see lbtorus bound --help)", argv[optind - 1]);
		else
			rc = cli_sweep_option(&c, o, optarg, argc, argv);
	}
	if (!rc && optind < argc)
		rc = cli_fail(LBT_EINVAL, "bound: unexpected argument '%s' (see lbtorus bound --help)", argv[optind]);
	if (!rc && c.cmd.n[LBT_AX_METHOD] > 1)
		rc = cli_fail(LBT_EINVAL, "bound: give one --method (the constant is per method)");
	if (rc) {
		lbt_spec_free(&c.cmd);
		return rc;
	}

	/* a signal from here on: the sweep stops between runs, nothing computed
	 * after it is published (lbt_out_hold), and the command exits 3 */
	const volatile sig_atomic_t *stop = cli_stop_cleanly();
	int ran = 0, fitted = 0, drawn = 0; /* runs.jsonl holds this sweep's runs; bound.csv and bound.json are
	                                       published; and the plots */
	lbt_err e;
	lbt_spec base, spec;
	lbt_spec_init(&base);
	lbt_spec_init(&spec);
	lbt_plan pl = {0};
	lbt_jsonl *recs = NULL;
	lbt_bound_point *pts = NULL;
	int64_t n = 0, skipped = 0;
	int created = 0; /* the --out directory, removed again if it is still empty when bound fails */
	char path[4500];
	const char *method = c.cmd.n[LBT_AX_METHOD] ? c.cmd.item[LBT_AX_METHOD][0] : "lm-c5";
	char *method_copy = strdup(method);
	if (!from) {
		for (size_t i = 0; !rc && i < sizeof default_axes / sizeof default_axes[0]; i++)
			if ((rc = lbt_spec_add(&base, lbt_spec_axis_find(default_axes[i][0]), default_axes[i][1], &e)))
				rc = cli_fail(rc, "%s", e.msg);
		if (!rc)
			rc = cli_sweep_plan(&c, &base, &spec, &pl);
		if (!rc && c.dry_run) {
			rc = cli_sweep_exec(&c, &pl, NULL);
			goto out;
		}
	} else
		lbt_spec_free(&c.cmd);
	char outp[3][4200];
	snprintf(outp[0], sizeof outp[0], "%s/runs.jsonl", dir);
	snprintf(outp[1], sizeof outp[1], "%s/bound.csv", dir);
	snprintf(outp[2], sizeof outp[2], "%s/bound.json", dir);
	const lbt_io_name outs[] = {{"bound's", from ? NULL : outp[0]}, {"bound's", outp[1]}, {"bound's", outp[2]}};
	if (!rc)
		rc = cli_sweep_distinct(&c, &spec, from, outs, 3);
	struct stat sb;
	if (!rc && !stat(dir, &sb) && !S_ISDIR(sb.st_mode))
		rc = cli_fail(LBT_EINVAL, "bound: --out %s exists and is not a directory", dir);
	if (!rc && !(created = !mkdir(dir, 0777)) && errno != EEXIST)
		rc = cli_fail(LBT_EIO, "bound: cannot create directory %s: %s", dir, strerror(errno));
	if (rc)
		goto out;
	if (!from) {
		snprintf(path, sizeof path, "%s/runs.jsonl", dir);
		if ((rc = cli_sweep_exec(&c, &pl, path)))
			goto out;
		from = path;
		ran = 1;
	}
	int st = lbt_jsonl_open(&recs, from, &e);
	if (!st && !ran) /* the records fitted, given: their checksum in the manifest */
		st = lbt_provenance_add_input("from", from, &e);
	if (!st)
		st = lbt_bound_points(recs, method_copy, &pts, &n, &skipped, &e);
	if (!st && pl.n) { /* only this sweep's runs, if runs.jsonl holds others too */
		const char **keys = malloc((size_t)pl.n * sizeof *keys);
		if (!keys)
			st = lbt_errf(&e, LBT_ENOMEM, "no memory for the plan's keys");
		for (int64_t j = 0; keys && j < pl.n; j++)
			keys[j] = pl.run[j].key;
		int64_t k = 0;
		if (keys) {
			qsort(keys, (size_t)pl.n, sizeof *keys, cmp_str);
			for (int64_t i = 0; i < n; i++)
				if (bsearch(&pts[i].key, keys, (size_t)pl.n, sizeof *keys, cmp_str))
					pts[k++] = pts[i];
			skipped += n - k;
			n = k;
		}
		free(keys);
	}
	if (!st && n == 0)
		st = lbt_errf(&e, LBT_EINVAL, "no %s run in %s reached balanced on a symmetric torus", method_copy, from);
	lbt_bound_stats f;
	if (!st && lbt_bound_fit(pts, n, &f))
		st = lbt_errf(&e, LBT_EINVAL, "no %s run in %s to fit: %lld with an idle PE at the start (outside Theorem "
		              "3's premise: every PE loaded, e.g. uniform:1:100 rather than uniform:0:100), %lld stopped at "
		              "--max-steps", method_copy, from, (long long)f.broken_n,
		              (long long)f.censored_n);
	/* bound.csv, bound.json and the plots are published together (lbt_outdir):
	 * a failure leaves the earlier ones in dir whole */
	lbt_outdir od = {0};
	int plots = LBT_OK;
	lbt_err pe;
	if (!st)
		st = lbt_outdir_open(&od, dir, &e);
	if (!st) {
		snprintf(path, sizeof path, "%s/bound.csv", od.stage);
		st = lbt_bound_write_csv(path, pts, n, &e);
	}
	if (!st) {
		snprintf(path, sizeof path, "%s/bound.json", od.stage);
		st = lbt_bound_write_json(path, method_copy, &f, pts, n, &e);
	}
	if (!st && !*stop) { /* no plot is drawn after a signal */
		snprintf(path, sizeof path, "%s/bound", od.stage);
		plots = lbt_bound_plots(path, titles, &f, pts, n, &pe);
		if (plots && plots != LBT_EUNSUP) /* without gnuplot the data files are published all the same */
			st = lbt_errf(&e, plots, "plots: %s", pe.msg);
		drawn = !plots;
	}
	if (!st && !*stop) /* bound.manifest.json: what made these files, and their checksums */
		st = lbt_provenance_manifest(od.stage, "bound", c.so.isa, c.so.threads, &e);
	/* published whole or not at all: not after a signal (the commit is then refused too) */
	const int go = !st && !*stop;
	if (go)
		st = lbt_outdir_commit(&od, &e);
	else
		lbt_outdir_abort(&od, &e);
	fitted = go && !st;
	if (*stop) /* (a plot or commit stopped by the signal is no failure of its own) */
		goto out;
	if (st) {
		rc = cli_fail(st, "%s", e.msg);
		goto out;
	}
	const lbt_bound_point *w = &pts[f.argmax];
	printf("Theorem 3 (Henrich 1996), %s: T = steps until balanced; %lld runs (%lld records skipped)\n", method_copy,
	       (long long)n, (long long)skipped);
	printf("  fitted runs         %lld, every PE loaded at the start (the theorem's premise L_i > 0)\n",
	       (long long)f.n);
	if (f.broken_n)
		printf("  outside the premise %lld runs with an idle PE at the start (e.g. worst:C), not fitted: "
		       "T/(D*K*Ldiff) mean %.4g, max %.4g\n", (long long)f.broken_n, f.broken_mean_ratio, f.broken_max_ratio);
	if (f.censored_n)
		printf("  censored            %lld runs stopped at --max-steps before balanced (T > cap), not fitted: "
		       "T/(D*K*Ldiff) > %.4g for the largest%s\n", (long long)f.censored_n, f.censored_max_ratio,
		       f.censored_max_ratio > f.max_ratio ? " -- above the envelope, which is therefore only a lower bound" : "");
	if (f.n > 1)
		printf("  c, mean of ratios   T ~ %.4g * D*K*Ldiff   (95%% CI %.4g..%.4g, n = %lld; rms relative residual %.2g)\n",
		       f.c, f.c_lo95, f.c_hi95, (long long)f.n, f.rms_rel);
	else
		printf("  c, mean of ratios   T ~ %.4g * D*K*Ldiff   (one run: no interval)\n", f.c);
	printf("  c, OLS              T ~ %.4g * D*K*Ldiff   (least squares of T on D*K*Ldiff through 0; "
	       "rms relative residual %.2g)\n", f.c_abs, f.rms_rel_ols);
	printf("  T/(D*K*Ldiff)       min %.4g, quartiles %.4g / %.4g / %.4g, max %.4g\n", f.min_ratio, f.q1_ratio,
	       f.median_ratio, f.q3_ratio, f.max_ratio);
	printf("  envelope            T <= %.4g * D*K*Ldiff on every fitted run; the tightest: %s\n", f.max_ratio, w->key);
	printf("  T in shifts         mean of T_shifts/(D*K*Ldiff) %.4g (the paper's unit; D shifts per LM step)\n",
	       f.c_shifts);
	if (f.power_ok)
		printf("  power law           T ~ %.3g * D^%.2f * K^%.2f * Ldiff^%.2f   (R^2 %.3f, %d runs; spans x%.3g, x%.3g, x%.3g)\n",
		       exp(f.a), f.pd, f.pk, f.pl, f.r2, f.power_n, f.span_d, f.span_k, f.span_l);
	lbt_bound_describe(stdout, &f, "  ");
	printf("  files               %s/bound.csv, %s/bound.json\n", dir, dir);
	snprintf(path, sizeof path, "%s/bound", dir);
	if (plots)
		fprintf(stderr, "lbtorus: plots: %s\n", pe.msg);
	else
		printf("  plots               %s_d.png, %s_k.png, %s_ldiff.png (and .svg)\n", path, path, path);
out:
	if (*stop && rc != EXIT_UNCONVERGED) { /* (the sweep's own interruption has said so) */
		char kept[9000];
		snprintf(kept, sizeof kept, "%s%s%s%s%s%s%s", ran ? "the finished runs are in " : "", ran ? dir : "",
		         ran ? "/runs.jsonl" : "", fitted ? (ran ? ", the fit in " : "the fit is in ") : "",
		         fitted ? dir : "", fitted ? (drawn ? "/bound.csv, bound.json and the plots" : "/bound.csv and bound.json; no plots") : "",
		         !ran && !fitted ? "nothing written" : "");
		rc = cli_interrupted("bound", kept);
	}
	if (rc && created)
		rmdir(dir);
	free(pts);
	lbt_jsonl_close(recs);
	lbt_plan_free(&pl);
	lbt_spec_free(&spec);
	lbt_spec_free(&base);
	free(method_copy);
	return rc;
}

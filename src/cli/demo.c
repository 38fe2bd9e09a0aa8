/* demo.c — `lbtorus demo`: the headline. Henrich's (1996) worst case on
 * Table 3's ring of 8 PEs and on a torus of the MasPar MP-1's size, LM-C5,
 * with the paper's numbers (read from data/henrich1996_claims.csv, as
 * reproduce reads them), Theorem 3's bound and the trivial lower bound. */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

typedef struct {
	const char *title, *shape, *init;
	/* claim ids in henrich1996_claims.csv; NULL: the paper states none */
	const char *paper_shared, *paper_balanced, *paper_nna; /* paper_nna: also run NNA */
	const char *paper_note;
} demo_case;

/* The paper's value of claim id, NAN if none; a missing data file is said once. */
static double paper_value(const char *data_dir, const char *id)
{
	static int told;
	double v;
	lbt_err e;
	if (!id)
		return NAN;
	if (lbt_claim_value(data_dir, id, &v, &e)) {
		if (!told++)
			fprintf(stderr, "lbtorus: demo: %s; the paper's column stays empty\n", e.msg);
		return NAN;
	}
	return v;
}

static void show(int64_t v, double paper)
{
	if (v < 0) printf("%10s", "never");
	else printf("%10lld", (long long)v);
	if (isfinite(paper)) printf("  %10.0f", paper);
	else printf("  %10s", "-");
}

static int progress(void *p, const lbt_record *r)
{
	cli_progress_step(p, r);
	return 0;
}

/* Run one method on the case until balanced; the run stays open for the
 * caller, its loads as they were described in *at. */
static int simulate(const demo_case *c, const char *method, const char *isa, int threads, int quiet, lbt_sim **sim,
                    lbt_sim_info *at, lbt_result *s)
{
	lbt_config cfg = lbt_config_default();
	cfg.shape = c->shape;
	cfg.method = method;
	cfg.init = c->init;
	cfg.isa = isa;
	cfg.threads = threads;
	cfg.max_steps = 100000000;
	lbt_err err;
	int status = lbt_sim_open(sim, &cfg, &err);
	if (status)
		return cli_fail(status, "%s", err.msg);
	cli_progress pr;
	if (!(status = lbt_sim_describe(*sim, at, &err))) {
		cli_progress_init(&pr, !quiet, at->pes, at->active_dims);
		status = lbt_sim_run(*sim, progress, &pr, &err);
		cli_progress_done(&pr);
	}
	if (!status)
		status = lbt_sim_result(*sim, s, &err);
	if (status) {
		lbt_sim_close(*sim);
		return cli_fail(status, "%s", err.msg);
	}
	return 0;
}

static int run_case(const demo_case *c, const char *data_dir, const char *isa, int threads, int quiet)
{
	lbt_sim *sim;
	lbt_sim_info at, other_at;
	lbt_result s, nna;
	int status = simulate(c, "lm-c5", isa, threads, quiet, &sim, &at, &s);
	if (status)
		return status;
	if (c->paper_nna) {
		lbt_sim *other;
		if ((status = simulate(c, "nna", isa, threads, quiet, &other, &other_at, &nna))) {
			lbt_sim_close(sim);
			return status;
		}
		lbt_sim_close(other);
	}
	/* LM-C5's loads are integers: the result's quantities hold them exactly; the
	 * bounds are those of the initial loads (lbt_sim_describe before the run) */
	const int64_t total = (int64_t)s.total, P = at.pes;
	const int64_t dkl = at.dkl_bound, lower = at.lower_bound_steps, lower_bal = at.balanced_lower_bound_steps;
	printf("\n%s\n", c->title);
	printf("  torus %s: P = %lld PEs, D = %d, K = %lld; init %s: %lld load units on PE 0, mean %.3g\n",
	       c->shape, (long long)P, at.active_dims, (long long)at.k, c->init, (long long)total, s.total / (double)P);
	printf("  method lm-c5, ISA %s, %d thread%s, %.3f s, %.3g site updates/s\n\n", at.isa, at.threads,
	       at.threads == 1 ? "" : "s", s.seconds, s.seconds > 0 ? (double)s.site_updates / s.seconds : 0.0);
	printf("  %-34s %10s  %10s\n", "", "ours", "paper");
	printf("  %-34s", "steps to shared (every L_i > 0)");
	show(s.shared_step, paper_value(data_dir, c->paper_shared));
	printf("\n  %-34s", "steps to balanced (max-min <= D)");
	show(s.balanced_step, paper_value(data_dir, c->paper_balanced));
	if (c->paper_nna) {
		printf("\n  %-34s", "NNA: shifts to balanced");
		show(nna.balanced_step >= 0 ? nna.balanced_shifts : -1, paper_value(data_dir, c->paper_nna));
	}
	printf("\n  %-34s %10lld\n", "Theorem 3 scale D*K*Ldiff", (long long)dkl);
	if (s.balanced_step >= 0 && dkl > 0)
		printf("  %-34s %10.4f\n", "balanced / (D*K*Ldiff)", (double)s.balanced_step / (double)dkl);
	printf("  %-34s %10lld\n", "trivial bound ceil((Lmax-mean)/D)", (long long)lower);
	printf("  %-34s %10lld\n", "to balanced ceil((Lmax-|mean|-D)/D)", (long long)lower_bal);
	if (s.balanced_step >= 0 && lower_bal > 0)
		printf("  %-34s %10.4f\n", "balanced / its lower bound", (double)s.balanced_step / (double)lower_bal);
	printf("  paper: %s\n", c->paper_note);
	if (c->paper_shared)
		printf("  the paper's numbers: %s/henrich1996_claims.csv\n", data_dir);
	lbt_sim_close(sim);
	return 0;
}

int cmd_demo(int argc, char **argv)
{
	static const struct option opts[] = {{"isa", 1, 0, 'i'}, {"threads", 1, 0, 't'}, {"quiet", 0, 0, 'q'},
	                                     {"data", 1, 0, 'd'}, {"help", 0, 0, 'h'}, {0, 0, 0, 0}};
	const char *isa = NULL, *env = getenv("LBTORUS_DATA");
	const char *data_dir = cli_data_dir(), *given = env && *env ? env : NULL;
	int threads = 0, quiet = 0, o;
	int64_t v;
	if (cli_no_empty_values(argc, argv, opts, "demo"))
		return EXIT_USAGE;
	opterr = 0;
	optind = 0; /* glibc: a fresh scan (cli_no_empty_values scanned first) */
	while ((o = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (o == 'i') isa = optarg;
		else if (o == 't') { if (cli_int("--threads", optarg, 1, CLI_THREADS_MAX, &v)) return EXIT_USAGE; threads = (int)v; }
		else if (o == 'q') quiet = 1;
		else if (o == 'd') data_dir = given = optarg;
		else if (o == 'h') {
			printf("usage: lbtorus demo [--isa NAME] [--threads N] [--quiet] [--data DIR]\n\n"
			       "Runs the worst case of Henrich's Liquid model paper (1996) with LM-C5 until\n"
			       "balanced: Table 3's ring of 8 PEs with 16 units, then a 128x128 torus (the\n"
			       "MasPar MP-1's 16384 PEs) with c = 5, printing steps to sharing and balance\n"
			       "beside the paper, Theorem 3's D*K*Ldiff and the trivial lower bound\n"
			       "ceil((Lmax - mean)/D).\n\n"
			       "  --isa NAME      kernel target (default: the best this CPU runs)\n"
			       "  --threads N     OpenMP threads\n"
			       "  --quiet         no progress line\n"
			       "  --data DIR      where the paper's numbers are read from (henrich1996_claims.csv;\n"
			       "                  default: $LBTORUS_DATA, else %s); a DIR or\n"
			       "                  $LBTORUS_DATA without it is an error (exit 2), as for reproduce\n",
			       cli_data_dir());
			return 0;
		} else
			return cli_fail(LBT_EINVAL, "demo: unknown option '%s' (see lbtorus demo --help)", argv[optind - 1]);
	}
	if (optind < argc)
		return cli_fail(LBT_EINVAL, "demo: unexpected argument '%s'", argv[optind]);
	static const demo_case cases[] = {
		{"Henrich (1996), Table 3: ring of 8 PEs, 16 units on P(0)", "8", "point:16", "table3_lm_shared",
		 "table3_lm_balanced", "table3_nna_balanced",
		 "Table 3 and the text below it (section 5)"},
		{"Henrich (1996), section 5's worst case c = 5 on a MasPar MP-1-sized 128x128 torus", "128x128", "worst:5",
		 NULL, NULL, NULL, "Fig. 7(a) plots this case (values not tabulated); Theorem 3: T = O(D*K*Ldiff)"},
	};
	double claim;
	lbt_err e;
	if (given && lbt_claim_value(given, cases[0].paper_shared, &claim, &e)) /* as reproduce --data answers */
		return cli_fail(LBT_EIO, "demo: %s", e.msg);
	printf("lbtorus %s demo: Henrich's Liquid model (1996) on its worst case\n", LBT_VERSION);
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		int st = run_case(&cases[i], data_dir, isa, threads, quiet);
		if (st)
			return st;
	}
	return 0;
}

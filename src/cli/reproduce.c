/* reproduce.c — `lbtorus reproduce`: the papers' experiments (Henrich 1996, Cybenko 1989, Lüling and Monien 1993). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"

static void help(void)
{
	printf("usage: lbtorus reproduce EXPERIMENT... [OPTIONS]\n"
	       "\n"
	       "Rerun the simulations of Henrich's Liquid model paper (1996), Cybenko's\n"
	       "dynamic load balancing (1989) and Lüling and Monien's randomized dynamic\n"
	       "balancing (1993), and put the papers' stated results beside ours.\n"
	       "EXPERIMENT is one of (or `all`):\n"
	       "  table3  ring of 8 PEs, 16 units on P0: LM-C5 and NNA step by step (exact)\n"
	       "  fig5    rings of 8..2048 PEs, worst case c = 5: shifts until shared and\n"
	       "          until balanced, LM-C0..C5 and NNA by both rules of its §2.3\n"
	       "  fig6    NNA iterations against P (8..512) for c = 1, 2, 5, 10, 20,\n"
	       "          normalized to 1 at P = 512\n"
	       "  fig7    K x K tori, K = 8..128: (a) worst case c = 5, (b) uniform loads 0..100,\n"
	       "          seeds 1..10\n"
	       "  cybenko Cybenko (1989) Theorem 2 with work arriving every step: FOS on a ring,\n"
	       "          tori and hypercubes d = 3..10, measured vs exact vs the bound; the\n"
	       "          transient; no balancing; Table II: DE under Models A and B;\n"
	       "          Table I and eq. (15)/(16): a fixed load, diffusion against DE\n"
	       "  trees   search trees on K x K tori, K = 32..128, and one of the paper's size:\n"
	       "          every LM condition, NNA and FOS, time to finish in steps and in\n"
	       "          shifts (the paper's unit), efficiency (Henrich 1996, §5)\n"
	       "Jeannot and Vernier, A Practical Approach of Diffusion Load Balancing\n"
	       "Algorithms (2006), §4, on a 64-PE line with all load on PE 0:\n"
	       "  jv-fig1   LAN: gain of cost/benefit k = 1000 - t + detection over plain\n"
	       "  jv-fig23  DSL: application time, plain (Fig. 2) and adaptive k (Fig. 3)\n"
	       "  jv-table1 DSL: PEs used by the adaptive k, beside the optimum\n"
	       "  jv-speeds speeds 1/2/4 on a 16x16 torus: Mr against Boillat's alpha\n"
	       "  jv-calibration  DSL under 12 calibrations (s and bytes per load unit): where\n"
	       "          Fig. 2's early gain, Fig. 3's benefit and Table 1's 3..10 PEs appear\n"
	       "  jv-shake  the annealing shake (§3.3; the paper has no experiment of it)\n"
	       "  luling-theorems  Lüling and Monien (1993) Theorems 1-4: the one-generator\n"
	       "          ratio E(l_1)/E(l_i) against G^t(1), FIX and delta/(delta+1-f);\n"
	       "          Theorems 3-4 pushed by extreme sequences; the variation density\n"
	       "          (Fig. 6) beside the paper's exact recursion\n"
	       "  luling-cost      their Lemmas 5-6 (§6): operations a load decrease costs,\n"
	       "          against the bounds; the dependence on delta, n, x and f\n"
	       "  luling-figs      their Figures 7-10: 64 PEs, phases workload, 100 runs\n"
	       "  luling-table1    their Table 1: borrow counters for C = 4, 8, 16, 32\n"
	       "  luling-compare   Lüling-Monien, LM-C5, FOS, NNA on the same phases workload\n"
	       "          (ring of 64, 8x8, 128x128): max/mean over time and packet-hops\n"
	       "\n"
	       "Each writes into --out: NAME.csv (data), NAME.md (tables, paper beside ours\n"
	       "with the ratio), and plots NAME*.png/.svg with their .dat/.gp (gnuplot).\n"
	       "\n"
	       "  --out DIR       output directory (default: reproduce-out), created if missing\n"
	       "  --quick         small sizes only: seconds instead of minutes\n"
	       "  --data DIR      the paper's transcribed values (default: %s;\n"
	       "                  $LBTORUS_DATA if set, else the installed data, or the source\n"
	       "                  tree's for an lbtorus run from its build directory)\n"
	       "  --threads N     runs in parallel, one thread each (default: all cores; under\n"
	       "                  MPI on each rank)\n"
	       "  --isa NAME      kernel target (default auto)\n"
	       "  --quiet         no progress lines on stderr\n"
	       "  --titles        put a title on each plot (default none: a paper's figure has\n"
	       "                  a caption instead)\n"
	       "\n"
	       "MPI (a build with MPI, started by mpirun or srun with several ranks): rank 0\n"
	       "writes each experiment's files; its runs go over all ranks, the k-th to rank\n"
	       "k mod N (fig5, fig6, fig7, cybenko, trees: biggest first; every experiment but\n"
	       "table3); the files are one process's, byte for byte (the manifest's\n"
	       "provenance aside).\n"
	       "\n"
	       "exit status: 0 done; 1 Table 3 differs from the paper (a bug); 2 bad usage, or\n"
	       "something needed is missing (NNA not built in, gnuplot not installed: the data\n"
	       "and tables are written all the same, the message says what is missing).\n",
	       cli_data_dir());
}

static void note(void *ctx, const char *line)
{
	(void)ctx;
	fprintf(stderr, "%s\n", line);
}

int cmd_reproduce(int argc, char **argv)
{
	enum { O_OUT = 256, O_QUICK, O_DATA, O_THREADS, O_ISA, O_QUIET, O_TITLES, O_HELP };
	static const struct option opts[] = {
		{"out", 1, 0, O_OUT}, {"quick", 0, 0, O_QUICK}, {"data", 1, 0, O_DATA}, {"threads", 1, 0, O_THREADS},
		{"isa", 1, 0, O_ISA}, {"quiet", 0, 0, O_QUIET}, {"titles", 0, 0, O_TITLES}, {"help", 0, 0, O_HELP},
		{0, 0, 0, 0}};
	const char *out_dir = "reproduce-out";
	lbt_batch batch = lbt_batch_default();
	batch.note = note;
	batch.data_dir = cli_data_dir();
	int64_t v;
	int o;
	if (cli_no_empty_values(argc, argv, opts, "reproduce"))
		return EXIT_USAGE;
	opterr = 0;
	optind = 0; /* glibc: a fresh scan (cli_no_empty_values scanned first) */
	while ((o = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
		switch (o) {
		case O_OUT: out_dir = optarg; break;
		case O_QUICK: batch.quick = 1; break;
		case O_DATA: batch.data_dir = optarg; break;
		case O_THREADS:
			if (cli_int("--threads", optarg, 1, CLI_THREADS_MAX, &v)) return EXIT_USAGE;
			batch.threads = (int)v;
			break;
		case O_ISA: batch.isa = optarg; break;
		case O_QUIET: batch.note = NULL; break;
		case O_TITLES: batch.titles = 1; break;
		case O_HELP: help(); return 0;
		default:
			if (o == ':') /* a known option without its value; '?': an unknown one (optopt is then its letter) */
				return cli_fail(LBT_EINVAL, "reproduce: option --%s needs a value", opts[optopt - O_OUT].name);
			return cli_fail(LBT_EINVAL, "reproduce: unknown option '%s' (see lbtorus reproduce --help)",
			                argv[optind - 1]);
		}
	}
	if (optind == argc)
		return cli_fail(LBT_EINVAL, "reproduce: name an experiment: table3, fig5, fig6, fig7, cybenko, trees, jv-fig1, "
		                "jv-fig23, jv-table1, jv-speeds, jv-calibration, jv-shake, luling-theorems, luling-cost, luling-figs, "
		                "luling-table1, luling-compare or all");
	for (int i = optind; i < argc; i++) {
		int known = !strcmp(argv[i], "all");
		for (int k = 0; lbt_experiment(k); k++)
			known |= !strcmp(argv[i], lbt_experiment(k));
		if (!known)
			return cli_fail(LBT_EINVAL, "reproduce: unknown experiment '%s': table3, fig5, fig6, fig7, cybenko, trees, "
			                "jv-fig1, jv-fig23, jv-table1, jv-speeds, jv-calibration, jv-shake, luling-theorems, luling-cost, "
			                "luling-figs, luling-table1, luling-compare or all",
			                argv[i]);
	}
	struct stat sb;
	if (!stat(out_dir, &sb) && !S_ISDIR(sb.st_mode))
		return cli_fail(LBT_EINVAL, "reproduce: --out %s exists and is not a directory", out_dir);
	int rc = 0;
	/* the public call's own interrupt: its runs stop at the end of their
	 * current step and an interrupted experiment publishes nothing */
	const volatile sig_atomic_t *stop = cli_catch_signals();
	batch.interrupt = stop;
	char kept[4200];
	snprintf(kept, sizeof kept, "the experiments finished before it are in %s", out_dir);
	for (int i = optind; i < argc; i++)
		for (int k = 0; lbt_experiment(k); k++) {
			const char *n = lbt_experiment(k);
			if (strcmp(argv[i], "all") && strcmp(argv[i], n))
				continue;
			lbt_err err;
			int64_t differs = 0;
			int st = lbt_experiment_run(n, out_dir, &batch, &differs, &err); /* LBT_EINTR: a signal before it */
			if (st == LBT_EINTR || (st && *stop)) /* a commit after the signal was refused: this one is not finished */
				return cli_interrupted("reproduce", kept);
			if (st == LBT_EUNSUP) {
				cli_fail(st, "%s: %s", n, err.msg);
				rc = rc ? rc : EXIT_USAGE;
			} else if (st)
				return cli_fail(st, "%s: %s", n, err.msg);
			if (differs) {
				cli_fail(LBT_EINTERNAL, "%s: %lld values differ from the paper (see %s/%s.md)", n,
				         (long long)differs, out_dir, n);
				rc = 1;
			}
			if (lbt_comm_rank() == 0)
				printf("%s/%s.md\n", out_dir, n);
		}
	return rc;
}

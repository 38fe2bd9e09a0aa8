/* search.c — `lbtorus search`: the worst initial load found for LM-C5. */
#include <getopt.h>
#include <stdio.h>

#include "cli.h"

static void help(void)
{
	printf("usage: lbtorus search --shape SHAPE --ldiff L (--total S | --mean M) [OPTIONS]\n"
	       "\n"
	       "Search the initial loads with total S and max - min = L on a small torus for\n"
	       "one the method takes as many steps as possible to balance (max - min <= D):\n"
	       "random restarts, each improved by moving load elements between PEs (hill\n"
	       "climbing, or simulated annealing with --anneal). Prints one JSON object and\n"
	       "writes the worst configuration found as .npy; replay it with\n"
	       "  lbtorus run --init file:FILE.npy --method M --until balanced\n"
	       "\n"
	       "  --shape SHAPE     a small torus: 16, 6x6, 4x4x4\n"
	       "  --boundary B      torus (default), mesh, or one per axis: torus/mesh\n"
	       "  --method M        default lm-c5\n"
	       "  --ldiff L         max - min of every candidate (>= 1)\n"
	       "  --total S         sum of the loads (or --mean M: S = M * P)\n"
	       "  --restarts N      random starting configurations (default 8)\n"
	       "  --moves N         local moves tried per restart (default 2000)\n"
	       "  --anneal T        start temperature in steps, cooled linearly to 0\n"
	       "                    (default 0: plain hill climbing)\n"
	       "  --seed N          counter-based generator seed (default 1); same options and\n"
	       "                    seed give the same result on any number of threads\n"
	       "  --out FILE.npy    the worst configuration (default worst.npy)\n"
	       "  --max-steps N     cap per simulated run (default 1000 * D*K*L + 1000)\n"
	       "  --threads N       restarts in parallel (default: all cores; under MPI per rank)\n"
	       "  --isa NAME        kernel target (default auto)\n"
	       "  --workload SPEC   every evaluation runs this workload (as lbtorus run\n"
	       "                    --workload; not a search tree) from step 0 with --seed,\n"
	       "                    so every candidate meets the same arrivals\n"
	       "  --quiet           no progress lines on stderr\n"
	       "\n"
	       "MPI (a build with MPI, started by mpirun or srun with several ranks): restart\n"
	       "r runs on rank r mod N, and rank 0 writes the .npy and prints the JSON; the\n"
	       "result is one process's, byte for byte.\n"
	       "\n"
	       "JSON keys: shape, boundary, method, ldiff, total, min, max, seed, restarts,\n"
	       "moves, anneal, evaluations, best_restart, steps (until balanced), shifts,\n"
	       "dkl_bound (D*K*Ldiff), steps_over_dkl, npy; with a workload also workload.\n");
}

static void note(void *ctx, const char *line)
{
	(void)ctx;
	fprintf(stderr, "%s\n", line);
}

static void print_line(void *ctx, const char *line)
{
	(void)ctx;
	puts(line);
}

enum { O_SHAPE = 256, O_BOUNDARY, O_METHOD, O_LDIFF, O_TOTAL, O_MEAN, O_RESTARTS, O_MOVES, O_ANNEAL,
       O_SEED, O_OUT, O_MAX, O_THREADS, O_ISA, O_QUIET, O_HELP, O_WORKLOAD };
static const struct option opts[] = {
	{"shape", 1, 0, O_SHAPE}, {"boundary", 1, 0, O_BOUNDARY}, {"method", 1, 0, O_METHOD},
	{"ldiff", 1, 0, O_LDIFF}, {"total", 1, 0, O_TOTAL}, {"mean", 1, 0, O_MEAN},
	{"restarts", 1, 0, O_RESTARTS}, {"moves", 1, 0, O_MOVES}, {"anneal", 1, 0, O_ANNEAL},
	{"seed", 1, 0, O_SEED}, {"out", 1, 0, O_OUT}, {"max-steps", 1, 0, O_MAX}, {"threads", 1, 0, O_THREADS},
	{"isa", 1, 0, O_ISA}, {"quiet", 0, 0, O_QUIET}, {"help", 0, 0, O_HELP}, {"workload", 1, 0, O_WORKLOAD},
	{0, 0, 0, 0}};

/* One option o (getopt's optarg) into the search's spec or batch: 0, or an
 * exit status after printing. */
static int option(int o, char **argv, lbt_search_spec *s, lbt_batch *b, int *have_total)
{
	int64_t v;
	switch (o) {
	case O_SHAPE: s->shape = optarg; return 0;
	case O_BOUNDARY: s->boundary = optarg; return 0;
	case O_METHOD: s->method = optarg; return 0;
	case O_LDIFF: return cli_int("--ldiff", optarg, 1, INT32_MAX, &s->ldiff);
	case O_TOTAL: *have_total = 1; return cli_int("--total", optarg, 0, INT64_MAX, &s->total);
	case O_MEAN: return cli_int("--mean", optarg, 0, INT32_MAX, &s->mean);
	case O_RESTARTS: return cli_int("--restarts", optarg, 1, INT32_MAX, &s->restarts);
	case O_MOVES: return cli_int("--moves", optarg, 0, INT64_MAX, &s->moves);
	case O_ANNEAL: return cli_real("--anneal", optarg, 0, 1e300, 0, &s->anneal);
	case O_SEED: return cli_u64("--seed", optarg, &s->seed);
	case O_OUT: s->out = optarg; return 0;
	case O_MAX: return cli_int("--max-steps", optarg, 1, INT64_MAX, &s->max_steps);
	case O_THREADS:
		if (cli_int("--threads", optarg, 1, CLI_THREADS_MAX, &v))
			return EXIT_USAGE;
		b->threads = (int)v;
		return 0;
	case O_ISA: b->isa = optarg; return 0;
	case O_QUIET: b->note = NULL; return 0;
	case O_WORKLOAD: s->workload = optarg; return 0;
	case ':': /* a known option without its value; '?': an unknown one (optopt is then its letter) */
		return cli_fail(LBT_EINVAL, "search: option --%s needs a value", opts[optopt - O_SHAPE].name);
	default: return cli_fail(LBT_EINVAL, "search: unknown option '%s' (see lbtorus search --help)", argv[optind - 1]);
	}
}

/* The options read into s and b; 0, or an exit status after printing
 * (*help: --help was printed). */
static int read_options(int argc, char **argv, lbt_search_spec *s, lbt_batch *b, int *help_done)
{
	int o, have_total = 0, rc = 0;
	if (cli_no_empty_values(argc, argv, opts, "search"))
		return EXIT_USAGE;
	opterr = 0;
	optind = 0; /* glibc: a fresh scan (cli_no_empty_values scanned first) */
	while (!rc && (o = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
		if (o == O_HELP) {
			help();
			*help_done = 1;
			return 0;
		}
		rc = option(o, argv, s, b, &have_total) ? EXIT_USAGE : 0;
	}
	if (rc)
		return rc;
	if (optind < argc)
		return cli_fail(LBT_EINVAL, "search: unexpected argument '%s' (see lbtorus search --help)", argv[optind]);
	if (!s->shape || !s->ldiff)
		return cli_fail(LBT_EINVAL, "search: give --shape and --ldiff (see lbtorus search --help)");
	if (have_total == (s->mean >= 0))
		return cli_fail(LBT_EINVAL, "search: give exactly one of --total and --mean");
	return 0;
}

int cmd_search(int argc, char **argv)
{
	lbt_search_spec s = lbt_search_default();
	lbt_batch b = lbt_batch_default();
	s.print = print_line;
	b.note = note;
	int help_done = 0, rc = read_options(argc, argv, &s, &b, &help_done);
	if (rc || help_done)
		return rc;
	/* a signal stops every run after its current step: nothing is written */
	b.interrupt = cli_catch_signals();
	lbt_err err;
	int st = lbt_search_run(&s, &b, &err);
	if (st == LBT_EINTR || (st && *b.interrupt)) /* under MPI: a signal to any rank stops them all */
		return cli_interrupted("search", "nothing written");
	return st ? cli_fail(st, "%s", err.msg) : 0;
}

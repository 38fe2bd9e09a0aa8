/* run.c — `lbtorus run`: one method, one torus, one initial load. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* A parameter's option: its name with '-' for '_' (ca_k: --ca-k), into buf. */
static const char *option_of(const char *name, char *buf, size_t n)
{
	snprintf(buf, n, "%s", name);
	for (char *c = buf; *c; c++)
		*c = *c == '_' ? '-' : *c;
	return buf;
}

/* Whether method i takes the parameter `name`. */
static int takes(int i, const char *name)
{
	lbt_param_info p;
	for (int j = 0; lbt_param_describe(i, j, &p) == LBT_OK; j++)
		if (!strcmp(p.name, name))
			return 1;
	return 0;
}

/* --help's methods and their parameters, as the registry describes them
 * (lbtorus.h): each method with its options and citation, then each
 * parameter once (in the order the methods first take it) with the methods
 * that take it. */
static void help_methods(void)
{
	lbt_method_info m;
	lbt_param_info p;
	char opt[64];
	for (int i = 0; lbt_method_describe(i, &m) == LBT_OK; i++) {
		printf("                       %-8s %s", m.name, m.summary);
		for (int j = 0; lbt_param_describe(i, j, &p) == LBT_OK; j++)
			printf("%s--%s", j ? ", " : "  takes ", option_of(p.name, opt, sizeof opt));
		printf("\n                                [%s]\n", m.citation);
	}
	for (int i = 0; lbt_method_describe(i, &m) == LBT_OK; i++)
		for (int j = 0; lbt_param_describe(i, j, &p) == LBT_OK; j++) {
			int seen = 0;
			for (int k = 0; k < i && !seen; k++)
				seen = takes(k, p.name);
			if (seen)
				continue;
			const char *nm = p.short_name ? p.short_name : p.name;
			char form[80];
			snprintf(form, sizeof form, "%s %c", option_of(p.name, opt, sizeof opt), nm[0] - 'a' + 'A');
			printf("  --%-16s", form);
			lbt_method_info t;
			for (int k = 0; lbt_method_describe(k, &t) == LBT_OK; k++)
				if (takes(k, p.name))
					printf(" %s", t.name);
			printf(": %s (default %s)\n", p.help, p.def);
		}
}

enum { MAXD = sizeof ((lbt_array *)0)->shape / sizeof (int64_t) }; /* the most dimensions a torus has */

static void help(void)
{
	printf("usage: lbtorus run --shape SHAPE [OPTIONS]\n"
	       "\n"
	       "Balance one initial load on a torus (or mesh) and print a JSON summary.\n"
	       "\n"
	       "  --shape SHAPE      extents as NumPy writes them, joined with x: 8, 128x128,\n"
	       "                     16x16x16 (D <= %d); a comma separates the shapes of a list\n"
	       "                     (sweep --shape 8,16: two rings), so 8,8 is refused here.\n"
	       "                     Axis 0 is the paper's dimension d = 1 and runs first; the\n"
	       "                     last axis is contiguous. Optional with --init file:.\n"
	       "  --boundary B       torus (default), mesh, or one per axis: torus/mesh\n"
	       "  --method M         default lm-c5; one of:\n", MAXD);
	help_methods();
	printf("  --init SPEC        initial load (default worst:5):\n"
	       "                       point:TOTAL    PE (0,...,0) holds TOTAL\n"
	       "                       worst:C        the paper's worst case: point:C*P\n"
	       "                       uniform:LO:HI  i.i.d. integers in [LO,HI] (see --seed)\n"
	       "                       const:V        every PE holds V\n"
	       "                       half:H         a step: the first half of the first axis with\n"
	       "                                      links holds H+1, the rest 1\n"
	       "                       file:F.npy     int32/int64 array of exactly the shape\n"
	       "  --until C          stop criterion (default balanced):\n");
	lbt_until_info u;
	for (int k = 0; lbt_until_describe(k, &u) == LBT_OK; k++)
		printf("                       %-16s %s\n", u.syntax, u.help);
	printf("  --workload SPEC    tasks generated and completed every step, before the method's\n"
	       "                     step (default none; docs/usage.md, \"Workloads\"):\n");
	lbt_workload_info w;
	for (int i = 0; lbt_workload_describe(i, &w) == LBT_OK; i++)
		printf("                       %-28s %s\n", w.usage, w.summary);
	printf("                     cybenko's DIST: poisson:MU, uniform:LO:HI, bernoulli:P, and for\n"
	       "                     real-valued methods exp:MU, normal:MU:SIGMA. A tree starts on an\n"
	       "                     empty machine (--init defaults to const:0); --until done ends it.\n"
	       "  --warmup N         with a workload: leave steps 1..N out of sqdev_mean (default 0)\n"
	       "  --max-steps N      safety cap (default 1000000): stop there, exit 3\n"
	       "                     (the Liquid model to balanced: a warning on stderr when\n"
	       "                     its lower bound, ceil((Lmax - floor(mean) - D)/D) steps,\n"
	       "                     exceeds N, with the time at the first steps' rate)\n"
	       "  --seed N           seed of the counter-based generator (default 1)\n"
	       "  --json FILE        write the summary there instead of stdout\n"
	       "  --trace FILE.csv   one row per step: step,shifts,max,min,ldiff,idle,stddev,\n"
	       "                     moved,moved_total,rel,link_max,total; with a workload\n"
	       "                     also generated,completed,idle_capacity,sqdev (total after\n"
	       "                     a step = total before + generated - completed)\n"
	       "  --dump FILE.npy    the final grid, int32 (float64 for a real-valued method), shape = the torus shape\n"
	       "  --isa NAME         kernel target: auto (default; or $LBTORUS_ISA), scalar, ...\n"
	       "                     (lbtorus info lists them)\n"
	       "  --threads N        OpenMP threads (default: all cores)\n"
	       "  --ranks AxBx...    under MPI: the grid of ranks the torus is cut on, one count\n"
	       "                     per axis (default: see MPI below)\n"
	       "  --verify           also run the scalar reference; stop if any step differs\n"
	       "  --snapshots DIR    1-D/2-D only: every --every steps (and the last) write\n"
	       "                     DIR/step_NNNNNNNN.png (heat map) and .npy (the loads)\n"
	       "  --animate F.gif    1-D/2-D only: an animated GIF of the run, one frame every\n"
	       "                     --every steps and the last\n"
	       "  --every N          snapshot/frame interval in steps (default 10)\n"
	       "  --heat-max V       colour scale: 0 black (idle), 1..V viridis, >= V yellow\n"
	       "                     (default max(2*ceil(mean), D+1))\n"
	       "  --zoom Z           pixels per PE side (default: longer side <= 512 pixels)\n"
	       "  --delay CS         time per GIF frame in 1/100 s (default 8)\n"
	       "  --quiet            no progress line on stderr\n"
	       "  --progress [S]     a progress line (rate, ETA) every S seconds (default 60)\n"
	       "                     even when stderr is not a terminal: for batch logs\n"
	       "  --speeds SPEC      per-PE speeds, the field \"speed\" (fos-speed*: default const:1):\n"
	       "                       const:V            every PE has speed V (1e-6 <= V <= 1e6)\n"
	       "                       uniform:LO:HI      i.i.d. reals in [LO,HI) (see --seed)\n"
	       "                       classes:V1,V2,...  each PE one of the values, at random\n"
	       "                       file:F.npy         an array of the shape: float64, float32,\n"
	       "                                          int32 or int64 (np.save of reals is\n"
	       "                                          float64); every speed finite and > 0\n"
	       "                     the JSON then gives relative loads w_i/Cn_i (Cn: speed/mean)\n"
	       "  --link LAT:BW      every link: latency in ms, bandwidth in Mb/s (each at most\n"
	       "                     1e9); lan (0.15:100, default) or dsl (40:1): the exchange\n"
	       "                     costs of fos-speed*\n"
	       "  --app iterations:N an application of N iterations, one balancing step each until\n"
	       "                     the run stops: app_time, lb_time, seq_time, speedup (fos-speed*)\n"
	       "\n"
	       "A step is D substeps, one per axis with extent >= 2 (an extent-1 axis has no\n"
	       "links); time is counted in shifts, 1 per Liquid-model substep; for NNA,\n"
	       "diffusion and dimension exchange, per direction the largest amount on one link.\n"
	       "A run also stops when a step moves nothing (a fixed point, stop_reason stalled,\n"
	       "exit 3) unless --until is steps:N, and when a state recurs (stop_reason cycle,\n"
	       "cycle_period, exit 3): the run would repeat that cycle for ever. Outputs are\n"
	       "written to a temporary file and renamed into place. docs/formats.md documents\n"
	       "every JSON key and CSV column.\n"
	       "\n"
	       "MPI (a build with MPI, started by mpirun or srun with N > 1 ranks): the torus is\n"
	       "cut into N blocks on a Cartesian grid of ranks: --ranks AxBx... (one count per\n"
	       "axis, their product N, none above its axis's extent), or by default for the\n"
	       "Liquid model the least halo of the grids its vector kernel steps (the first\n"
	       "axis with links cut, the last whole), slabs for search-tree workloads, and the\n"
	       "grid whose blocks exchange the least halo for the others; the Liquid model runs\n"
	       "its vector kernel on such grids, its scalar reference on grids that cut the\n"
	       "last axis, the other methods their scalar references; rank 0 writes the\n"
	       "outputs (every rank its block of --dump and reads only its block of a file:\n"
	       "init, MPI-IO), and they equal one process's bit for\n"
	       "bit (timing aside), workloads and --speeds included (luling-monien runs its\n"
	       "operations on rank 0 in one process's order, on the PEs they touch; fos-speed*\n"
	       "reduce their times and budgets in one process's order); with --verify each\n"
	       "rank runs the scalar reference on its block\n"
	       "and a difference on any rank stops every rank with one process's message;\n"
	       "--snapshots and --animate gather the torus on rank 0, which writes them.\n"
	       "LBTORUS_CUT=1 cuts the\n"
	       "torus on one process too (the distributed code paths, for tests);\n"
	       "LBTORUS_COMM_STATS=FILE writes each rank's time, halo bytes and waits there.\n"
	       "LBTORUS_HALO=K (1..16, default 1): a halo deep enough for K Liquid-model steps\n"
	       "between exchanges; a run of --until steps:N then exchanges once per K steps\n"
	       "(on the grids the Liquid model's vector kernel steps; others take K = 1).\n"
	       "\n"
	       "example: lbtorus run --shape 128x128 --method lm-c5 --init worst:5 --until balanced\n");
}

/* What the command line asked for: the run, its files, what it prints. */
typedef struct {
	lbt_config cfg;
	lbt_outputs out;
	int quiet;
	double progress;
	/* the method parameters' options (--alpha, --ca-k), from the schemas */
	const char *param[16];
	char param_opt[16][64];
	int nparam;
} run_args;

/* The parameters of every method, each once, in --help's order. */
static void param_options(run_args *a)
{
	lbt_method_info m;
	lbt_param_info p;
	a->nparam = 0;
	for (int i = 0; lbt_method_describe(i, &m) == LBT_OK; i++)
		for (int j = 0; lbt_param_describe(i, j, &p) == LBT_OK; j++) {
			int seen = 0;
			for (int k = 0; k < a->nparam && !seen; k++)
				seen = !strcmp(a->param[k], p.name);
			if (!seen && a->nparam < 16) {
				a->param[a->nparam] = p.name;
				option_of(p.name, a->param_opt[a->nparam], sizeof a->param_opt[0]);
				a->nparam++;
			}
		}
}

enum { O_SHAPE = 256, O_BOUNDARY, O_METHOD, O_INIT, O_UNTIL, O_MAX, O_SEED, O_JSON, O_TRACE,
       O_DUMP, O_ISA, O_THREADS, O_VERIFY, O_QUIET, O_HELP,
       O_SNAP, O_ANIM, O_EVERY, O_HEATMAX, O_ZOOM, O_DELAY, O_WORKLOAD, O_WARMUP, O_SPEEDS, O_LINK, O_APP,
       O_PROGRESS, O_RANKS, O_PARAM };

/* One option into *a: 0, or an exit status after printing. */
static int take_option(run_args *a, int o, int argc, char **argv)
{
	lbt_config *c = &a->cfg;
	int64_t v;
	lbt_err e;
	switch (o) {
	case O_SHAPE: c->shape = optarg; break;
	case O_BOUNDARY: c->boundary = optarg; break;
	case O_METHOD: c->method = optarg; break;
	case O_INIT: c->init = optarg; break;
	case O_UNTIL: c->until = optarg; break;
	case O_MAX: return cli_int("--max-steps", optarg, 0, INT64_MAX, &c->max_steps) ? EXIT_USAGE : 0;
	case O_SEED: return cli_u64("--seed", optarg, &c->seed) ? EXIT_USAGE : 0;
	case O_JSON: a->out.json = optarg; break;
	case O_TRACE: a->out.trace = optarg; break;
	case O_DUMP: a->out.dump = optarg; break;
	case O_ISA: c->isa = optarg; break;
	case O_RANKS: c->ranks = optarg; break;
	case O_THREADS:
		if (cli_int("--threads", optarg, 1, CLI_THREADS_MAX, &v))
			return EXIT_USAGE;
		c->threads = (int)v;
		break;
	case O_VERIFY: c->verify = 1; break;
	case O_SPEEDS: c->speeds = optarg; break;
	case O_LINK: c->link = optarg; break;
	case O_APP: c->app = optarg; break;
	case O_QUIET: a->quiet = 1; break;
	case O_PROGRESS: return cli_progress_option(argc, argv, &a->progress) ? EXIT_USAGE : 0;
	case O_SNAP: a->out.snapshots = optarg; break;
	case O_ANIM: a->out.animate = optarg; break;
	case O_EVERY: return cli_int("--every", optarg, 1, INT64_MAX, &a->out.every) ? EXIT_USAGE : 0;
	case O_HEATMAX: return cli_int("--heat-max", optarg, 1, INT32_MAX, &a->out.heat_max) ? EXIT_USAGE : 0;
	case O_ZOOM: return cli_int("--zoom", optarg, 1, 64, &a->out.zoom) ? EXIT_USAGE : 0;
	case O_DELAY: return cli_int("--delay", optarg, 0, 65535, &a->out.delay) ? EXIT_USAGE : 0;
	case O_WORKLOAD: c->workload = optarg; break;
	case O_WARMUP: return cli_int("--warmup", optarg, 0, INT64_MAX, &c->warmup) ? EXIT_USAGE : 0;
	default: /* a method parameter */
		if (lbt_config_param(c, a->param[o - O_PARAM], optarg, &e))
			return cli_fail(LBT_EINVAL, "run: %s", e.msg);
	}
	return 0;
}

/* Phase 1: the options into *a, and the outputs checked against each other
 * and the inputs. Returns -1 to go on, else the exit status (0 after --help). */
static int parse_args(int argc, char **argv, run_args *a)
{
	static const struct option fixed[] = {
		{"shape", 1, 0, O_SHAPE}, {"boundary", 1, 0, O_BOUNDARY}, {"method", 1, 0, O_METHOD},
		{"init", 1, 0, O_INIT}, {"until", 1, 0, O_UNTIL}, {"max-steps", 1, 0, O_MAX},
		{"seed", 1, 0, O_SEED}, {"json", 1, 0, O_JSON}, {"trace", 1, 0, O_TRACE},
		{"dump", 1, 0, O_DUMP}, {"isa", 1, 0, O_ISA}, {"threads", 1, 0, O_THREADS},
		{"verify", 0, 0, O_VERIFY}, {"quiet", 0, 0, O_QUIET}, {"help", 0, 0, O_HELP},
		{"snapshots", 1, 0, O_SNAP}, {"animate", 1, 0, O_ANIM}, {"every", 1, 0, O_EVERY},
		{"heat-max", 1, 0, O_HEATMAX}, {"zoom", 1, 0, O_ZOOM}, {"delay", 1, 0, O_DELAY},
		{"workload", 1, 0, O_WORKLOAD}, {"warmup", 1, 0, O_WARMUP},
		{"speeds", 1, 0, O_SPEEDS}, {"link", 1, 0, O_LINK}, {"app", 1, 0, O_APP},
		{"progress", 2, 0, O_PROGRESS}, {"ranks", 1, 0, O_RANKS}};
	/* the fixed options, then one per method parameter */
	enum { NFIXED = sizeof fixed / sizeof fixed[0] };
	*a = (run_args){.cfg = lbt_config_default(), .out = lbt_outputs_default()};
	a->cfg.until = "balanced";
	a->cfg.as_command = "run"; /* the library's messages in run's words */
	param_options(a);
	struct option opts[NFIXED + 16 + 1];
	int nopts = 0, o;
	for (; nopts < NFIXED; nopts++)
		opts[nopts] = fixed[nopts];
	for (int i = 0; i < a->nparam; i++)
		opts[nopts++] = (struct option){a->param_opt[i], 1, 0, O_PARAM + i};
	opts[nopts] = (struct option){0, 0, 0, 0};
	if (cli_no_empty_values(argc, argv, opts, "run"))
		return EXIT_USAGE;
	opterr = 0;
	optind = 0; /* glibc: a fresh scan (cli_no_empty_values scanned first) */
	while ((o = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
		int st;
		if (o == O_HELP) {
			help();
			return 0;
		}
		if (o == ':') /* a known option without its value; '?': an unknown one (optopt is then its letter) */
			return cli_fail(LBT_EINVAL, "run: option --%s needs a value",
			                optopt >= O_PARAM ? a->param_opt[optopt - O_PARAM] : opts[optopt - O_SHAPE].name);
		if (o == '?')
			return cli_fail(LBT_EINVAL, "run: unknown option '%s' (see lbtorus run --help)", argv[optind - 1]);
		if ((st = take_option(a, o, argc, argv)))
			return st;
	}
	if (optind < argc)
		return cli_fail(LBT_EINVAL, "run: unexpected argument '%s' (see lbtorus run --help)", argv[optind]);
	a->cfg.full_stats = a->out.trace != NULL; /* the same statistics on every rank */
	lbt_err e;
	if (lbt_outputs_check(&a->out, &a->cfg, &e))
		return cli_fail(LBT_EINVAL, "%s", e.msg);
	if (!a->out.json)
		a->out.json = "-";
	a->out.comm_stats = getenv("LBTORUS_COMM_STATS"); /* each rank's compute and exchanges: bench/mpi_scaling.py */
	return -1;
}

/* What the observer keeps: the progress line, and the warning that
 * balanced lies beyond --max-steps. */
typedef struct {
	cli_progress progress;
	int64_t bound, cap;
	double t0;
	const char *method;
} run_ctx;

/* "41943037 steps at 1234 steps/s": the time in the unit that reads best. */
static void duration(char *buf, size_t n, double s)
{
	if (s < 120)
		snprintf(buf, n, "%.0f s", s);
	else if (s < 7200)
		snprintf(buf, n, "%.0f min", s / 60);
	else if (s < 172800)
		snprintf(buf, n, "%.1f hours", s / 3600);
	else
		snprintf(buf, n, "%.1f days", s / 86400);
}

/* Issue 14 item 13: a Liquid-model run whose lower bound on the steps to
 * `balanced` (lbt_sim_info.balanced_lower_bound_steps: the most loaded PE
 * gives away at most one element per substep) exceeds --max-steps can never
 * get there. Said in one line once the first steps give a rate: after 100
 * steps, half a second, or at the cap, whichever comes first. */
static void bound_warning(run_ctx *c, const lbt_record *r)
{
	if (!c->bound || r->step < 1)
		return; /* before the clock: a 128x128 step takes about a microsecond, a clock read 2% of that */
	const double t = cli_seconds() - c->t0;
	if (r->step < 100 && t < 0.5 && r->step < c->cap)
		return;
	const double rate = (double)r->step / t;
	char took[32];
	duration(took, sizeof took, (double)c->bound / rate);
	if (c->progress.on && !c->progress.every && c->progress.last > c->progress.start)
		fputs("\r\033[K", stderr); /* over the terminal's progress line */
	fprintf(stderr, "lbtorus: warning: %s needs at least %lld steps to reach 'balanced' here (the most loaded PE gives "
	        "away at most one element per substep), more than --max-steps %lld; at the rate of its first %lld steps "
	        "(%.3g steps/s) that is %s\n", c->method, (long long)c->bound, (long long)c->cap, (long long)r->step, rate, took);
	c->bound = 0;
}

static int on_step(void *p, const lbt_record *r)
{
	run_ctx *c = p;
	bound_warning(c, r);
	cli_progress_step(&c->progress, r);
	return 0;
}

/* Phase 3: the warning and the progress line, from the run as opened
 * (rank 0 prints). Returns whether they need to see every step. */
static int watch(run_ctx *c, const run_args *a, const lbt_sim_info *in)
{
	const lbt_config *cfg = &a->cfg;
	const int writer = in->rank == 0, steps = !strncmp(cfg->until, "steps:", 6);
	const int64_t target = steps ? strtoll(cfg->until + 6, NULL, 10) : cfg->max_steps; /* checked by the library */
	*c = (run_ctx){.cap = cfg->max_steps, .method = in->method, .t0 = cli_seconds()};
	if ((!strcmp(cfg->until, "balanced") || !strcmp(cfg->until, "shared+balanced")) &&
	    (!cfg->workload || !strcmp(cfg->workload, "none")) && !strncmp(in->method, "lm-", 3) &&
	    in->balanced_lower_bound_steps > cfg->max_steps && writer)
		c->bound = in->balanced_lower_bound_steps;
	cli_progress_init(&c->progress, !a->quiet && writer, in->pes, in->active_dims);
	if (a->progress > 0 && writer)
		cli_progress_force(&c->progress, a->progress, target, !steps);
	return c->bound || c->progress.on;
}

/* Phase 5: how the run ended, as the exit status and (rank 0) one line. */
static int exit_status(const run_args *a, const lbt_result *sum, const char *method, int writer)
{
	const char *until = a->cfg.until;
	const int64_t app = a->cfg.app ? strtoll(a->cfg.app + 11, NULL, 10) : 0; /* checked by the library */
	if (!strcmp(sum->stop, "detected") || (app > 0 && sum->steps == app))
		return 0; /* the method's convergence detection stopped balancing, or the application ended */
	if (sum->reached)
		return 0;
	if (!writer) /* rank 0 tells how it ended */
		return EXIT_UNCONVERGED;
	const double ldiff = sum->final_max - sum->final_min;
	if (!strcmp(sum->stop, "cycle"))
		fprintf(stderr, "lbtorus: stopped at step %lld: the state of step %lld recurs (a cycle of period %lld of %s), "
		        "so '%s' is never reached (final ldiff %.17g)\n", (long long)sum->steps,
		        (long long)(sum->steps - sum->period), (long long)sum->period, method, until, ldiff);
	else if (!strcmp(sum->stop, "stalled"))
		fprintf(stderr, "lbtorus: stalled at step %lld, a fixed point of %s, before '%s' was reached (final ldiff %.17g)\n",
		        (long long)sum->steps, method, until, ldiff);
	else if (!strcmp(sum->stop, "interrupted")) {
		char by[64];
		fprintf(stderr, "lbtorus: interrupted %s after step %lld, before '%s' was reached (final ldiff %.17g)\n",
		        cli_signal_said(by, sizeof by), (long long)sum->steps, until, ldiff);
	}
	else
		fprintf(stderr, "lbtorus: stopped at --max-steps %lld before '%s' was reached (final ldiff %.17g)\n",
		        (long long)a->cfg.max_steps, until, ldiff);
	return EXIT_UNCONVERGED;
}

/* lbtorus run: parse; open the run (phase 2: every check, set-up, signals
 * caught); its files (the library writes and commits them); the warning
 * and progress line; run; tell how it ended. */
int cmd_run(int argc, char **argv)
{
	run_args a;
	int st = parse_args(argc, argv, &a);
	if (st >= 0)
		return st;
	/* Signals are caught from here on: set-up (allocating and filling a large
	 * grid takes seconds) stops at one too, with nothing written. */
	const volatile sig_atomic_t *stop = cli_catch_signals();
	a.cfg.interrupt = stop;
	lbt_err err;
	lbt_sim *sim;
	if ((st = lbt_sim_open(&sim, &a.cfg, &err)) && (*stop || st == LBT_EINTR)) /* EINTR: another rank's signal */
		return cli_interrupted("run", "it stopped in its set-up, before the first step: nothing written");
	if (st)
		return cli_fail(st, "%s", err.msg);
	lbt_sim_info in;
	run_ctx ctx;
	lbt_result sum;
	if (!(st = lbt_sim_describe(sim, &in, &err)) && !(st = lbt_sim_outputs(sim, &a.out, &err))) {
		st = lbt_sim_run(sim, watch(&ctx, &a, &in) ? on_step : NULL, &ctx, &err);
		cli_progress_done(&ctx.progress);
	}
	if (!st)
		st = lbt_sim_result(sim, &sum, &err);
	lbt_sim_close(sim);
	if (st)
		return cli_fail(st, "%s", err.msg);
	return exit_status(&a, &sum, in.method, in.rank == 0);
}

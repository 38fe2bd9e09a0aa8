/* run.c — `lbtorus run`: one method, one torus, one initial load. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli_internal.h"

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
	       "  --method M         default lm-c5; one of:\n", LBT_MAXD);
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
	for (int k = 0; k < LBT_UNTIL_KINDS; k++)
		printf("                       %-16s %s\n", lbt_until_syntax(k), lbt_until_help(k));
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
	       "                     per axis (default: the one with the least halo; see MPI)\n"	       "  --verify           also run the scalar reference; stop if any step differs\n"
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
	       "axis, their product N, none above its axis's extent), or by default slabs of\n"
	       "the first axis with links for the Liquid model (its vector kernel rolls slabs\n"
	       "only) and the grid whose blocks exchange the least halo for the others; on\n"
	       "slabs the Liquid model runs its vector kernel, on blocks and the other methods\n"
	       "their scalar references; rank 0 writes the outputs (every\n"
	       "rank its block of --dump and reads only its block of a file: init, MPI-IO;\n"
	       "search-tree workloads get slabs), and they equal one process's bit for\n"
	       "bit (timing aside), workloads included. Methods whose kernels do not take a\n"
	       "cut torus (luling-monien, fos-speed, fos-speed-int), --speeds, --verify,\n"
	       "--snapshots and --animate run on one process only. LBTORUS_CUT=1 cuts the\n"
	       "torus on one process too (the distributed code paths, for tests);\n"
	       "LBTORUS_COMM_STATS=FILE writes each rank's time, halo bytes and waits there.\n"
	       "\n"
	       "example: lbtorus run --shape 128x128 --method lm-c5 --init worst:5 --until balanced\n");
}

typedef struct {
	lbt_outfile trace;
	int tracing, workload;
	cli_progress progress;
	/* pictures: --snapshots, --animate */
	const lbt_state *state;
	const char *snap_dir; /* the staging directory of snaps */
	lbt_outdir snaps;     /* --snapshots: published together at the end (lbt_outdir) */
	lbt_anim *anim;
	lbt_heat heat;
	int64_t every, last_pic;
	int pic_status;
	lbt_err pic_err;
	/* the warning that balanced lies beyond --max-steps (bound_warning) */
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
 * `balanced` (lbt_bound_lower_balanced: the most loaded PE gives away at most
 * one element per substep) exceeds --max-steps can never get there. Said in
 * one line once the first steps give a rate: after 100 steps, half a second,
 * or at the cap, whichever comes first. */
static void bound_warning(run_ctx *c, const lbt_step_record *r)
{
	if (!c->bound || r->step < 1)
		return; /* before the clock: a 128x128 step takes about a microsecond, a clock read 2% of that */
	const double t = lbt_seconds() - c->t0;
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

/* One snapshot (PNG + .npy) and/or GIF frame of the current state. */
static void picture(run_ctx *c, int64_t step)
{
	if (c->pic_status || step == c->last_pic)
		return;
	c->last_pic = step;
	const lbt_grid *g = &c->state->grid;
	if (c->snap_dir) {
		char path[4200];
		snprintf(path, sizeof path, "%s/step_%08lld.png", c->snap_dir, (long long)step);
		if ((c->pic_status = lbt_heat_png(path, g, &c->heat, step, &c->pic_err)))
			return;
		int32_t *dense = malloc((size_t)lbt_shape_pes(&g->shape) * sizeof *dense);
		if (!dense) {
			c->pic_status = lbt_errf(&c->pic_err, LBT_ENOMEM, "no memory for a snapshot");
			return;
		}
		lbt_grid_export(g, dense);
		snprintf(path, sizeof path, "%s/step_%08lld.npy", c->snap_dir, (long long)step);
		c->pic_status = lbt_npy_write(path, &g->shape, dense, &c->pic_err);
		free(dense);
	}
	if (c->anim && !c->pic_status)
		c->pic_status = lbt_anim_frame(c->anim, g, step, &c->pic_err);
}

/* The run's inputs as given, "# key: value" lines after the provenance at
 * the top of a trace, so that `lbtorus plot --group method` (or shape,
 * seed, ...) groups traces as it groups records. */
static void trace_inputs(FILE *f, const lbt_state *st, const lbt_setup *set, const char *until,
                         const lbt_run_opts *ro)
{
	char buf[256];
	fprintf(f, "# method: %s", st->method->name);
	for (int i = 0; i < LBT_MAX_PARAMS && set->params[i].name; i++)
		fprintf(f, ":%s=%s", set->params[i].name, set->params[i].value);
	lbt_shape_format(&st->grid.whole, buf, sizeof buf);
	fprintf(f, "\n# shape: %s\n", buf);
	lbt_boundary_format(&st->grid.whole, buf, sizeof buf);
	fprintf(f, "# boundary: %s\n# init: %s\n# seed: %llu\n# until: %s\n", buf, set->init ? set->init : "worst:5",
	        (unsigned long long)set->seed, until);
	if (ro->workload)
		fprintf(f, "# workload: %s\n# warmup: %lld\n", ro->workload->spec, (long long)ro->warmup);
}

static void load_col(FILE *f, int real, double x)
{
	fputc(',', f);
	lbt_fprint_load(f, real, x);
}

static void on_step(void *p, const lbt_step_record *r)
{
	run_ctx *c = p;
	if (c->tracing) {
		FILE *f = c->trace.f;
		fprintf(f, "%lld", (long long)r->step);
		load_col(f, r->real, r->shifts);
		load_col(f, r->real, r->max);
		load_col(f, r->real, r->min);
		load_col(f, r->real, r->max - r->min);
		fprintf(f, ",%lld,%.6f", (long long)r->idle, r->stddev);
		load_col(f, r->real, r->moved);
		load_col(f, r->real, r->moved_total);
		fprintf(f, ",%.9g,%.17g", r->rel, r->link_max);
		load_col(f, r->real, r->total);
		if (c->workload) {
			load_col(f, r->real, r->generated);
			load_col(f, r->real, r->completed);
			load_col(f, r->real, r->idle_capacity);
			fprintf(f, ",%.17g", r->sqdev);
		}
		fputc('\n', f);
	}
	bound_warning(c, r);
	cli_progress_step(&c->progress, r);
	if ((c->snap_dir || c->anim) && r->step % c->every == 0)
		picture(c, r->step);
}

/* Scale, zoom, the output folder and the GIF, before the run starts. */
static int setup_pictures(run_ctx *c, const lbt_state *st, const char *dir, const char *anim, int64_t every,
                          int64_t heat_max, int64_t zoom, int64_t delay, lbt_err *e)
{
	int s = lbt_heat_default(&c->heat, &st->grid, e);
	if (s)
		return s;
	if (heat_max)
		c->heat.hi = (int32_t)heat_max;
	if (zoom)
		c->heat.zoom = (int)zoom;
	c->state = st;
	c->every = every;
	c->last_pic = -1;
	int opened = dir ? lbt_outdir_open(&c->snaps, dir, e) : LBT_OK;
	c->snap_dir = dir ? c->snaps.stage : NULL;
	if (opened)
		return opened;
	return anim ? lbt_anim_open(&c->anim, anim, &st->grid, &c->heat, (int)delay, e) : LBT_OK;
}

/* The method's load field as .npy: int32, or float64 for a real-valued
 * method; on a cut torus every rank writes its slab (f: rank 0's file). */
static int dump_loads(lbt_outfile *f, const lbt_state *st, const char *path, lbt_err *e)
{
	return lbt_npy_dump(f, path, &st->grid, lbt_grid_field(&st->grid, st->method->load == LBT_LOAD_REAL ? "real" : "load"), e);
}

/* What the command line asked for. */
typedef struct {
	lbt_setup set;
	const char *until, *json, *trace, *dump, *workload, *snap_dir, *anim;
	int64_t max_steps, warmup, app, every, heat_max, zoom, delay;
	int verify, quiet;
	double progress;
} run_args;

/* Phase 1: the options into *a. Returns -1 to go on, else the exit status
 * (0 after --help). */
static int parse_args(int argc, char **argv, run_args *a)
{
	enum { O_SHAPE = 256, O_BOUNDARY, O_METHOD, O_INIT, O_UNTIL, O_MAX, O_SEED, O_JSON, O_TRACE,
	       O_DUMP, O_ISA, O_THREADS, O_VERIFY, O_QUIET, O_HELP,
	       O_SNAP, O_ANIM, O_EVERY, O_HEATMAX, O_ZOOM, O_DELAY, O_WORKLOAD, O_WARMUP, O_SPEEDS, O_LINK, O_APP,
	       O_PROGRESS, O_RANKS, O_PARAM };
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
	/* the fixed options, then one per method parameter (--alpha, --lambda, --ca-k), from the schemas */
	enum { NFIXED = sizeof fixed / sizeof fixed[0] };
	const lbt_param *params[16];
	const int np = lbt_params_all(params, 16);
	struct option opts[NFIXED + 16 + 1];
	int nopts = 0;
	for (; nopts < NFIXED; nopts++)
		opts[nopts] = fixed[nopts];
	for (int i = 0; i < np; i++)
		opts[nopts++] = (struct option){cli_param_option(params[i]), 1, 0, O_PARAM + i};
	opts[nopts] = (struct option){0, 0, 0, 0};
	*a = (run_args){.set = {.seed = 1}, .until = "balanced", .max_steps = 1000000, .every = 10, .delay = 8};
	int nparams = 0, o;
	int64_t v;
	if (cli_no_empty_values(argc, argv, opts, "run"))
		return EXIT_USAGE;
	opterr = 0;
	optind = 0; /* glibc: a fresh scan (cli_no_empty_values scanned first) */
	while ((o = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
		switch (o) {
		case O_SHAPE: a->set.shape = optarg; break;
		case O_BOUNDARY: a->set.boundary = optarg; break;
		case O_METHOD: a->set.method = optarg; break;
		case O_INIT: a->set.init = optarg; break;
		case O_UNTIL: a->until = optarg; break;
		case O_MAX: if (cli_int("--max-steps", optarg, 0, INT64_MAX, &a->max_steps)) return EXIT_USAGE; break;
		case O_SEED: if (cli_u64("--seed", optarg, &a->set.seed)) return EXIT_USAGE; break;
		case O_JSON: a->json = optarg; break;
		case O_TRACE: a->trace = optarg; break;
		case O_DUMP: a->dump = optarg; break;
		case O_ISA: a->set.isa = optarg; break;
		case O_RANKS: a->set.ranks = optarg; break;
		case O_THREADS:
			if (cli_int("--threads", optarg, 1, CLI_THREADS_MAX, &v)) return EXIT_USAGE;
			a->set.threads = (int)v;
			break;
		case O_VERIFY: a->verify = 1; break;
		case O_SPEEDS: a->set.speeds = optarg; break;
		case O_LINK: a->set.link = optarg; break;
		case O_APP:
			if (strncmp(optarg, "iterations:", 11))
				return cli_fail(LBT_EINVAL, "--app '%s': give iterations:N with N >= 1", optarg);
			if (cli_int("--app iterations:N", optarg + 11, 1, INT64_MAX, &a->app))
				return EXIT_USAGE;
			break;
		case O_QUIET: a->quiet = 1; break;
		case O_PROGRESS: if (cli_progress_option(argc, argv, &a->progress)) return EXIT_USAGE; break;
		case O_HELP: help(); return 0;
		case O_SNAP: a->snap_dir = optarg; break;
		case O_ANIM: a->anim = optarg; break;
		case O_EVERY:
			if (cli_int("--every", optarg, 1, INT64_MAX, &a->every)) return EXIT_USAGE;
			break;
		case O_HEATMAX:
			if (cli_int("--heat-max", optarg, 1, INT32_MAX, &a->heat_max)) return EXIT_USAGE;
			break;
		case O_ZOOM:
			if (cli_int("--zoom", optarg, 1, 64, &a->zoom)) return EXIT_USAGE;
			break;
		case O_DELAY:
			if (cli_int("--delay", optarg, 0, 65535, &a->delay)) return EXIT_USAGE;
			break;
		case O_WORKLOAD: a->workload = optarg; break;
		case O_WARMUP:
			if (cli_int("--warmup", optarg, 0, INT64_MAX, &a->warmup)) return EXIT_USAGE;
			break;
		default:
			if (o >= O_PARAM) {
				if (nparams == LBT_MAX_PARAMS)
					return cli_fail(LBT_EINVAL, "run: more than %d method parameters", LBT_MAX_PARAMS);
				a->set.params[nparams++] = (lbt_param_arg){params[o - O_PARAM]->name, optarg};
				break;
			}
			if (o == ':') /* a known option without its value; '?': an unknown one (optopt is then its letter) */
				return cli_fail(LBT_EINVAL, "run: option --%s needs a value",
				                optopt >= O_PARAM ? cli_param_option(params[optopt - O_PARAM]) : opts[optopt - O_SHAPE].name);
			return cli_fail(LBT_EINVAL, "run: unknown option '%s' (see lbtorus run --help)", argv[optind - 1]);
		}
	}
	if (optind < argc)
		return cli_fail(LBT_EINVAL, "run: unexpected argument '%s' (see lbtorus run --help)", argv[optind]);
	/* no output over another or over an input, however spelled */
	const lbt_io_name in[] = {{"--init", a->set.init && !strncmp(a->set.init, "file:", 5) ? a->set.init + 5 : NULL},
	                          {"--speeds", a->set.speeds && !strncmp(a->set.speeds, "file:", 5) ? a->set.speeds + 5 : NULL}};
	const lbt_io_name out[] = {{"--json", a->json}, {"--trace", a->trace}, {"--dump", a->dump}, {"--animate", a->anim}};
	lbt_err e;
	if (lbt_io_distinct(in, 2, out, 4, &e))
		return cli_fail(LBT_EINVAL, "run: %s", e.msg);
	return -1;
}

/* Phase 2: the run's options, the cut and the workload, checked before
 * anything is built; signals are caught from here on. Returns -1 to go on,
 * else the exit status. */
static int plan_run(run_args *a, lbt_run_opts *ro, lbt_workload *wl, const volatile sig_atomic_t **stop)
{
	lbt_err err;
	*ro = lbt_run_opts_default();
	ro->max_steps = a->max_steps;
	ro->verify = a->verify;
	ro->app_iterations = a->app;
	int st = lbt_until_parse(&ro->until, a->until, &err);
	if (st)
		return cli_fail(st, "%s", err.msg);
	if (ro->until.kind == LBT_UNTIL_STEPS && ro->until.steps > a->max_steps)
		return cli_fail(LBT_EINVAL, "run: --until %s conflicts with --max-steps %lld", a->until, (long long)a->max_steps);

	/* Signals are caught from here on: set-up (allocating and filling a large
	 * grid takes seconds) stops at one too, with nothing written. */
	*stop = cli_catch_signals();
	a->set.interrupt = *stop;
	/* Under MPI with several ranks the torus is cut between them; LBTORUS_CUT=1
	 * cuts it on one process too (one slab: the distributed code paths, for tests). */
	const char *cut_env = getenv("LBTORUS_CUT");
	a->set.cut = lbt_comm_size() > 1 || (cut_env && !strcmp(cut_env, "1"));
	if (a->set.cut && (a->snap_dir || a->anim))
		return cli_fail(LBT_EINVAL, "run: --snapshots and --animate run on one process only, not on a torus cut between ranks");
	/* The workload, checked against the method's kind of load before anything is built. */
	const lbt_method *meth = lbt_method_find(a->set.method ? a->set.method : "lm-c5");
	if (a->workload && (st = lbt_workload_parse(wl, a->workload, meth ? meth->load : LBT_LOAD_INT, &err)))
		return cli_fail(st, "run: %s", err.msg);
	a->set.slabs = a->workload && wl->tasks; /* a search tree numbers its nodes across slabs */
	lbt_shape wl_shape;
	if (a->workload && a->set.shape && !lbt_shape_parse(&wl_shape, a->set.shape, &err) &&
	    (st = lbt_workload_fits(wl, &wl_shape, &err)))
		return cli_fail(st, "run: %s", err.msg);
	if (a->workload && wl->phase) {
		ro->workload = wl;
		ro->warmup = a->warmup;
		if (wl->tasks && !a->set.init)
			a->set.init = "const:0"; /* a search starts on an empty machine */
	}
	if (!ro->workload && a->warmup)
		return cli_fail(LBT_EINVAL, "run: --warmup needs a --workload");
	return -1;
}

/* The files a run writes, on rank 0 (writer). */
typedef struct {
	lbt_outfile json, dump;
	int writer;
} run_files;

/* Phase 3: every output opened before running, so a bad path fails in a
 * second, not after an hour. On a cut torus rank 0 writes them, and all
 * ranks learn whether it could. The trace's header is written. */
static int open_outputs(run_ctx *c, run_files *f, const run_args *a, const lbt_run_opts *ro, lbt_state *state,
                        lbt_err *err)
{
	const char *trace = a->trace;
	f->writer = lbt_comm_rank() == 0;
	c->tracing = trace != NULL && f->writer;
	c->workload = ro->workload != NULL;
	int opened = 0; /* how many of json, trace, dump are open */
	int st = f->writer ? lbt_out_open(&f->json, a->json ? a->json : "-", err) : LBT_OK;
	if (!st && ++opened && trace && f->writer)
		st = lbt_out_open(&c->trace, trace, err);
	if (!st && ++opened && a->dump && f->writer)
		st = lbt_out_open(&f->dump, a->dump, err);
	if (!lbt_comm_min_int(!st) && !st)
		st = lbt_errf(err, LBT_EIO, "rank 0 could not open an output file");
	if (st) {
		if (opened > 0 && f->writer) lbt_out_abort(&f->json);
		if (opened > 1 && trace && f->writer) lbt_out_abort(&c->trace);
		return st;
	}
	if (a->snap_dir || a->anim)
		st = setup_pictures(c, state, a->snap_dir, a->anim, a->every, a->heat_max, a->zoom, a->delay, err);
	if (st) {
		lbt_out_abort(&f->json);
		if (trace) lbt_out_abort(&c->trace);
		if (a->dump) lbt_out_abort(&f->dump);
		lbt_outdir_abort(&c->snaps, err);
		return st;
	}
	if (c->tracing) { /* "# key: value" lines first: the provenance, the inputs */
		lbt_provenance_comment(c->trace.f, state->kern->isa, state->threads);
		trace_inputs(c->trace.f, state, &a->set, a->until, ro);
		fputs(c->workload ? "step,shifts,max,min,ldiff,idle,stddev,moved,moved_total,rel,link_max,total,"
		                    "generated,completed,idle_capacity,sqdev\n"
		                  : "step,shifts,max,min,ldiff,idle,stddev,moved,moved_total,rel,link_max,total\n", c->trace.f);
	}
	return LBT_OK;
}

/* Phase 5: the last picture, the dump and the summary; all files committed
 * or none (the files are rank 0's). */
static int finish_outputs(run_ctx *c, run_files *f, const run_args *a, const lbt_run_opts *ro, lbt_state *state,
                          const lbt_summary *sum, int st, lbt_err *err)
{
	if (!st && (a->snap_dir || a->anim)) {
		picture(c, sum->steps); /* the last state, if not taken already */
		if ((st = c->pic_status))
			*err = c->pic_err;
	}
	if (c->anim) {
		if (!st)
			st = lbt_anim_close(c->anim, err);
		else
			lbt_anim_abort(c->anim);
		c->anim = NULL;
	}
	if (!st && a->dump)
		st = dump_loads(f->writer ? &f->dump : NULL, state, a->dump, err);
	if (!st && f->writer) {
		lbt_summary_json(f->json.f, state, a->set.init ? a->set.init : "worst:5", ro, sum);
		fputc('\n', f->json.f);
	}
	if (f->writer) {
		if (!st && a->trace) st = lbt_out_commit(&c->trace, err);
		if (!st && a->dump) st = lbt_out_commit(&f->dump, err);
		if (!st && a->snap_dir) st = lbt_outdir_commit(&c->snaps, err);
		if (!st) st = lbt_out_commit(&f->json, err);
		if (st) {
			lbt_out_abort(&f->json);
			if (a->trace) lbt_out_abort(&c->trace);
			if (a->dump) lbt_out_abort(&f->dump);
			lbt_outdir_abort(&c->snaps, err);
		}
	}
	return st;
}

/* Phase 6: how the run ended, as the exit status and (rank 0) one line. */
static int exit_status(const run_args *a, const lbt_summary *sum, const char *method, int writer)
{
	const char *until = a->until;
	if (sum->stop == LBT_STOP_DETECTED || (a->app > 0 && sum->steps == a->app))
		return 0; /* the method's convergence detection stopped balancing, or the application ended */
	if (sum->reached)
		return 0;
	if (!writer) /* rank 0 tells how it ended */
		return EXIT_UNCONVERGED;
	const double ldiff = sum->final_max - sum->final_min;
	if (sum->stop == LBT_STOP_CYCLE)
		fprintf(stderr, "lbtorus: stopped at step %lld: the state of step %lld recurs (a cycle of period %lld of %s), "
		        "so '%s' is never reached (final ldiff %.17g)\n", (long long)sum->steps,
		        (long long)(sum->steps - sum->period), (long long)sum->period, method, until, ldiff);
	else if (sum->stop == LBT_STOP_STALLED)
		fprintf(stderr, "lbtorus: stalled at step %lld, a fixed point of %s, before '%s' was reached (final ldiff %.17g)\n",
		        (long long)sum->steps, method, until, ldiff);
	else if (sum->stop == LBT_STOP_INTERRUPTED)
		fprintf(stderr, "lbtorus: interrupted after step %lld, before '%s' was reached (final ldiff %.17g)\n",
		        (long long)sum->steps, until, ldiff);
	else
		fprintf(stderr, "lbtorus: stopped at --max-steps %lld before '%s' was reached (final ldiff %.17g)\n",
		        (long long)a->max_steps, until, ldiff);
	return EXIT_UNCONVERGED;
}

/* lbtorus run: parse, plan, set up, open the outputs, run (phase 4, with
 * on_step as the observer), finish the outputs, tell how it ended. */
int cmd_run(int argc, char **argv)
{
	run_args a;
	lbt_run_opts ro;
	lbt_workload wl;
	const volatile sig_atomic_t *stop = NULL;
	int st = parse_args(argc, argv, &a);
	if (st < 0)
		st = plan_run(&a, &ro, &wl, &stop);
	if (st >= 0)
		return st;

	lbt_err err;
	lbt_state state;
	st = lbt_setup_check_total(&a.set, &err); /* before the grid is allocated */
	if (a.set.cut) /* every rank opens the state (collective on a cut torus), or none */
		st = lbt_comm_agree(st, &err);
	if (!st)
		st = lbt_state_open(&state, &a.set, &err);
	if (st && *stop)
		return cli_interrupted("run", "it stopped in its set-up, before the first step: nothing written");
	if (st)
		return cli_fail(st, "%s", err.msg);

	run_ctx ctx = {0};
	run_files files;
	if ((st = open_outputs(&ctx, &files, &a, &ro, &state, &err))) {
		lbt_state_close(&state);
		return cli_fail(st, "%s", err.msg);
	}
	ro.full_stats = a.trace != NULL; /* the same statistics on every rank */
	ro.on_step = on_step;
	ro.ctx = &ctx;
	ro.batch = !a.snap_dir && !a.anim; /* on_step reads the grid only for pictures */
	ro.interrupt = stop;
	if ((ro.until.kind == LBT_UNTIL_BALANCED || ro.until.kind == LBT_UNTIL_SHARED_BALANCED) && !ro.workload &&
	    !strncmp(state.method->name, "lm-", 3)) {
		lbt_stats s0;
		lbt_field_stats(&state.grid, &state.grid.field[0], 1, &s0); /* collective on a cut torus */
		const int64_t bound = lbt_bound_lower_balanced(&state.grid.whole, (int32_t)s0.max, s0.total);
		if (bound > a.max_steps && files.writer)
			ctx.bound = bound;
	}
	ctx.cap = a.max_steps;
	ctx.method = state.method->name;
	ctx.t0 = lbt_seconds();
	cli_progress_init(&ctx.progress, !a.quiet && files.writer, &state);
	if (a.progress > 0 && files.writer)
		cli_progress_force(&ctx.progress, a.progress, ro.until.kind == LBT_UNTIL_STEPS ? ro.until.steps : a.max_steps,
		                   ro.until.kind != LBT_UNTIL_STEPS);

	lbt_summary sum;
	lbt_comm_tally_reset(); /* the run's communication, not the set-up's */
	const double began = lbt_seconds();
	st = lbt_run(&state, &ro, &sum, &err);
	const char *tally = getenv("LBTORUS_COMM_STATS"); /* each rank's compute and exchanges: bench/mpi_scaling.py */
	if (!st && tally) /* this rank's own time in lbt_run, whose collectives the tally counts */
		st = lbt_comm_tally_write(tally, lbt_seconds() - began, lbt_shape_pes(&state.grid.shape), sum.steps, &err);
	cli_progress_done(&ctx.progress);
	st = finish_outputs(&ctx, &files, &a, &ro, &state, &sum, st, &err);
	const char *method = state.method->name; /* a static registry string: outlives the state */
	lbt_state_close(&state);
	if (st)
		return cli_fail(st, "%s", err.msg);
	return exit_status(&a, &sum, method, files.writer);
}

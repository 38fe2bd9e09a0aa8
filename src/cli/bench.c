/* bench.c — `lbtorus bench`: kernel speed in site updates per second (one PE
 * in one substep) for every method x ISA x thread count x size, beside the
 * scalar reference and a memory-bandwidth bound measured in the same run.
 *
 * The bound: a step must read and write every PE's load at least once, 8
 * bytes, and makes D site updates, so bandwidth / 8 x D site updates/s is
 * the most a kernel can reach without blocking several steps in cache. The
 * bandwidth is a STREAM-like copy (bytes read + bytes written per second)
 * between two arrays the size of the grid, with the same thread count.
 * A copy also pays for reading each destination line before writing it
 * (write-allocate), which an in-place step does not, so an in-place kernel
 * can pass that bound by up to 1.5x without blocking steps; the in-place
 * bound (a[i] += 1 over the same size, read + write bytes) is shown too.
 * A kernel given T threads may use fewer (the Liquid model's takes one per
 * 65536 PEs: a step of 128x128 runs on one), so the bandwidth for T threads
 * is the best of 1, 2, 4, ... and T threads: a bound for any of them. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "cli_internal.h"


static void help(void)
{
	printf("usage: lbtorus bench [OPTIONS]\n"
	       "\n"
	       "Measure the kernels: site updates per second (one PE in one substep) for\n"
	       "each method x ISA x thread count x size, with the scalar reference's rate\n"
	       "and a STREAM-like copy bandwidth measured in the same run, and the ratios\n"
	       "vector/scalar and achieved/bound (bound = bandwidth / 8 bytes x D). \"of r+w\"\n"
	       "is the same ratio against an in-place read+write bandwidth (a[i] += 1),\n"
	       "the tighter bound for a kernel that updates the grid in place. The bandwidth\n"
	       "for T threads is the best of 1, 2, 4, ... and T threads (a kernel may use\n"
	       "fewer than it is given: one thread for a grid below 65536 PEs).\n"
	       "Every size must fit in memory twice (the run and the copy each measurement\n"
	       "restarts from): one that cannot is refused before anything is measured.\n"
	       "First the headline: 128x128 torus, lm-c5, worst:5 until balanced, 1 thread,\n"
	       "through the run driver as `lbtorus run` does it.\n"
	       "\n"
	       "  --sizes LIST     shapes (default 128x128,1024x1024,4096x4096,256x256x256)\n"
	       "  --methods LIST   default lm-c0,...,lm-c5; any method of lbtorus run --help\n"
	       "                   (the bound assumes int32 loads: 8 bytes per PE and step)\n"
	       "  --isa LIST       default: every compiled target this CPU runs natively, scalar\n"
	       "                   first (avx512emu, the AVX-512 kernels emulated, only if named)\n"
	       "  --threads LIST   default: 1 and all cores\n"
	       "  --init SPEC      the load every measurement starts from (default uniform:0:20)\n"
	       "  --seconds S      time per measurement (default 0.5)\n"
	       "  --quick          sizes 128x128,1024x1024,4096x4096,64x64x64, methods lm-c4,lm-c5,\n"
	       "                   0.1 s per measurement: a few minutes at most in all\n"
	       "  --no-headline    skip the headline run\n"
	       "  --workload SPEC  also time each case with this workload's phase before every step\n"
	       "                   (e.g. cybenko:poisson:1:1), beside the static run: \"of static\"\n"
	       "  --peers          instead: lbtorus against a plain C loop and NumPy on the same\n"
	       "                   LM-C5 cases, with the ratios (--quick: 4096x4096 for 20 steps)\n"
	       "  --json FILE      also write the results as one JSON object\n");
}

/* Split a comma-separated list in place; returns the count (at most max). */
static int split(char *s, char **out, int max)
{
	int n = 0;
	for (char *t = strtok(s, ","); t && n < max; t = strtok(NULL, ","))
		out[n++] = t;
	return n;
}

/* Read + write bytes per second of a parallel copy of `cells` int32 (or
 * of an in-place increment, in_place): at most 2^26 of them (256 MiB an
 * array, far beyond any cache: a larger copy runs at the same rate). Stops
 * when *stop is set (0 then). */
static double bandwidth(int64_t cells, int threads, double budget, int in_place, const volatile sig_atomic_t *stop)
{
	if (*stop)
		return 0;
	cells = cells < ((int64_t)1 << 26) ? cells : (int64_t)1 << 26;
	size_t bytes = ((size_t)cells * 4 + LBT_ALIGN - 1) / LBT_ALIGN * LBT_ALIGN; /* C11: a multiple of the alignment */
	int32_t *a = aligned_alloc(LBT_ALIGN, bytes), *b = aligned_alloc(LBT_ALIGN, bytes);
	if (!a || !b) {
		free(a);
		free(b);
		return 0;
	}
	const int64_t block = (int64_t)1 << 16; /* a signal stops the first touch of the pages within a block */
#pragma omp parallel for schedule(static) num_threads(threads)
	for (int64_t k = 0; k < cells; k += block) {
		if (*stop)
			continue;
		for (int64_t i = k; i < k + block && i < cells; i++) {
			a[i] = (int32_t)i;
			b[i] = 0;
		}
	}
	double best = 0, t0 = lbt_seconds();
	int reps = 0;
	do {
		double t = lbt_seconds();
		if (in_place) {
#pragma omp parallel for schedule(static) num_threads(threads)
			for (int64_t i = 0; i < cells; i++)
				b[i] += 1;
		} else {
#pragma omp parallel for schedule(static) num_threads(threads)
			for (int64_t i = 0; i < cells; i++)
				b[i] = a[i];
		}
		t = lbt_seconds() - t;
		double bw = 2.0 * 4.0 * (double)cells / t;
		best = bw > best ? bw : best; /* STREAM reports the best repetition */
		int32_t *x = a;
		a = b;
		b = x;
	} while (!*stop && (++reps < 3 || lbt_seconds() - t0 < budget));
	free(a);
	free(b);
	return best;
}

/* The best bandwidth of 1, 2, 4, ... and T threads; memo[k]: what 2^k
 * threads measured on this size so far (0: not yet). */
static double bandwidth_upto(int64_t cells, int T, double budget, int in_place, double memo[32],
                             const volatile sig_atomic_t *stop)
{
	double best = 0;
	for (int k = 0; k < 31 && (1 << k) < T; k++) {
		if (memo[k] == 0)
			memo[k] = bandwidth(cells, 1 << k, budget, in_place, stop);
		best = memo[k] > best ? memo[k] : best;
	}
	const double own = bandwidth(cells, T, budget, in_place, stop);
	return own > best ? own : best;
}

typedef struct {
	int64_t steps;
	double seconds, rate;
} measure;

/* Step st's method from the grid start (its loads, and its real-valued
 * loads for a continuous method) for about `budget` seconds, through the
 * engine's bare mode (the method's steps alone: no reductions or checks). */
static measure time_steps(lbt_state *st, const lbt_grid *start, const lbt_workload *wl, double budget, lbt_err *e,
                          int *status)
{
	lbt_grid_copy(&st->grid, start);
	lbt_run_opts o = lbt_run_opts_default();
	o.bare = 1;
	o.workload = wl; /* NULL: the method's steps alone */
	o.until.kind = LBT_UNTIL_STEPS;
	o.until.steps = 1;
	lbt_summary sum;
	measure m = {0};
	if ((*status = lbt_run(st, &o, &sum, e))) /* warm the caches and the thread pool */
		return m;
	int64_t su = 0;
	for (;;) {
		if (o.interrupt && *o.interrupt) /* a signal (cli_stop_cleanly): no more measuring */
			*status = lbt_errf(e, LBT_EIO, "interrupted");
		if (*status || (*status = lbt_run(st, &o, &sum, e)))
			return m;
		if (sum.stop == LBT_STOP_INTERRUPTED) { /* after a step: no rate from a part of a measurement */
			*status = lbt_errf(e, LBT_EIO, "interrupted");
			return m;
		}
		m.steps += sum.steps;
		m.seconds += sum.seconds;
		su += sum.site_updates;
		if (m.seconds >= budget)
			break;
		o.until.steps = m.steps; /* double until the budget is spent */
	}
	m.rate = (double)su / m.seconds;
	return m;
}

static double loadavg(void)
{
	double l = -1;
	FILE *f = fopen("/proc/loadavg", "r");
	if (f) {
		if (fscanf(f, "%lf", &l) != 1)
			l = -1;
		fclose(f);
	}
	return l;
}

/* The headline: lbtorus run --shape 128x128 --method lm-c5 --init worst:5 --until balanced --threads 1. */
static int headline(const char *isa, FILE *js, int *first, lbt_err *e)
{
	lbt_setup set = {.shape = "128x128", .method = "lm-c5", .init = "worst:5", .isa = isa, .seed = 1, .threads = 1};
	lbt_state st;
	int s = lbt_state_open(&st, &set, e);
	if (s)
		return s;
	lbt_run_opts o = lbt_run_opts_default();
	lbt_summary sum;
	s = lbt_run(&st, &o, &sum, e);
	if (!s && sum.stop == LBT_STOP_INTERRUPTED)
		s = lbt_errf(e, LBT_EIO, "interrupted");
	if (!s) {
		double rate = (double)sum.site_updates / sum.seconds;
		printf("  %-8s %7lld steps to balanced  %8.3f s  %10.3g site updates/s\n", isa, (long long)sum.steps,
		       sum.seconds, rate);
		if (js)
			fprintf(js, "%s{\"isa\":\"%s\",\"steps\":%lld,\"seconds\":%.6f,\"site_updates_per_second\":%.6g}",
			        *first ? "" : ",", isa, (long long)sum.steps, sum.seconds, rate);
		*first = 0;
	}
	lbt_state_close(&st);
	return s;
}

/* What the command line asked for: the lists (split in place in the
 * buffers) and the options. */
typedef struct {
	char sizes_buf[512], methods_buf[512], isa_buf[256], threads_buf[128];
	const char *init, *json, *workload;
	double budget;
	int quick, head, peers, ncores;
	char *sizes[16], *methods[16], *isas[16], *tlist[16];
	int nsizes, nmethods, nisas, nthreads;
	int threads[16], max_threads;
} bench_args;

/* The options into *a. Returns -1 to go on, else the exit status (0 after --help). */
static int parse_args(int argc, char **argv, bench_args *a)
{
	enum { O_SIZES = 256, O_METHODS, O_ISA, O_THREADS, O_INIT, O_SECONDS, O_QUICK, O_NOHEAD, O_JSON, O_PEERS, O_HELP,
	       O_WORKLOAD };
	static const struct option opts[] = {
		{"sizes", 1, 0, O_SIZES}, {"methods", 1, 0, O_METHODS}, {"isa", 1, 0, O_ISA},
		{"threads", 1, 0, O_THREADS}, {"init", 1, 0, O_INIT}, {"seconds", 1, 0, O_SECONDS},
		{"quick", 0, 0, O_QUICK}, {"no-headline", 0, 0, O_NOHEAD}, {"json", 1, 0, O_JSON},
		{"peers", 0, 0, O_PEERS}, {"help", 0, 0, O_HELP}, {"workload", 1, 0, O_WORKLOAD}, {0, 0, 0, 0}};
	a->init = "uniform:0:20";
	a->budget = -1;
	a->head = 1;
	int o;
	if (cli_no_empty_values(argc, argv, opts, "bench"))
		return EXIT_USAGE;
	opterr = 0;
	optind = 0; /* glibc: a fresh scan (cli_no_empty_values scanned first) */
	while ((o = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
		switch (o) {
		case O_SIZES: snprintf(a->sizes_buf, sizeof a->sizes_buf, "%s", optarg); break;
		case O_METHODS: snprintf(a->methods_buf, sizeof a->methods_buf, "%s", optarg); break;
		case O_ISA: snprintf(a->isa_buf, sizeof a->isa_buf, "%s", optarg); break;
		case O_THREADS: snprintf(a->threads_buf, sizeof a->threads_buf, "%s", optarg); break;
		case O_INIT: a->init = optarg; break;
		case O_SECONDS: if (cli_real("--seconds", optarg, 0, 3600, 1, &a->budget)) return EXIT_USAGE; break;
		case O_QUICK: a->quick = 1; break;
		case O_NOHEAD: a->head = 0; break;
		case O_JSON: a->json = optarg; break;
		case O_PEERS: a->peers = 1; break;
		case O_WORKLOAD: a->workload = optarg; break;
		case O_HELP: help(); return 0;
		default:
			if (o == ':') /* a known option without its value; '?': an unknown one (optopt is then its letter) */
				return cli_fail(LBT_EINVAL, "bench: option --%s needs a value", opts[optopt - O_SIZES].name);
			return cli_fail(LBT_EINVAL, "bench: unknown option '%s' (see lbtorus bench --help)", argv[optind - 1]);
		}
	}
	if (optind < argc)
		return cli_fail(LBT_EINVAL, "bench: unexpected argument '%s'", argv[optind]);
	/* --json must not replace the --init file */
	const lbt_io_name in = {"--init", strncmp(a->init, "file:", 5) ? NULL : a->init + 5}, out = {"--json", a->json};
	lbt_err e;
	if (lbt_io_distinct(&in, 1, &out, 1, &e))
		return cli_fail(LBT_EINVAL, "bench: %s", e.msg);
	return -1;
}

/* The defaults filled in, the lists split, and every item checked (every
 * run fits, with the copy it restarts from) before anything is measured.
 * Returns -1 to go on, else the exit status. */
static int check_args(bench_args *a)
{
	if (a->budget < 0)
		a->budget = a->quick ? 0.1 : 0.5;
	if (!*a->sizes_buf)
		snprintf(a->sizes_buf, sizeof a->sizes_buf, "%s", a->quick ? "128x128,1024x1024,4096x4096,64x64x64"
		                                                           : "128x128,1024x1024,4096x4096,256x256x256");
	if (!*a->methods_buf)
		snprintf(a->methods_buf, sizeof a->methods_buf, "%s",
		         a->quick ? "lm-c4,lm-c5" : "lm-c0,lm-c1,lm-c2,lm-c3,lm-c4,lm-c5");
	a->ncores = 1;
#ifdef _OPENMP
	a->ncores = omp_get_num_procs();
#endif
	if (!*a->threads_buf)
		snprintf(a->threads_buf, sizeof a->threads_buf, a->ncores > 1 ? "1,%d" : "%d", a->ncores);
	if (!*a->isa_buf)
		for (const char *const *t = lbt_isa_compiled(); *t; t++)
			if (lbt_isa_supported(*t) && !lbt_isa_emulated(*t))
				snprintf(a->isa_buf + strlen(a->isa_buf), sizeof a->isa_buf - strlen(a->isa_buf), "%s%s",
				         *a->isa_buf ? "," : "", *t);
	a->nsizes = split(a->sizes_buf, a->sizes, 16);
	a->nmethods = split(a->methods_buf, a->methods, 16);
	a->nisas = split(a->isa_buf, a->isas, 16);
	a->nthreads = split(a->threads_buf, a->tlist, 16);
	a->max_threads = 1;
	lbt_err err;
	for (int i = 0; i < a->nmethods; i++) {
		const lbt_method *m = lbt_method_find(a->methods[i]);
		lbt_workload w;
		if (!m)
			return cli_fail(LBT_EINVAL, "bench: unknown method '%s'", a->methods[i]);
		if (a->workload && lbt_workload_parse(&w, a->workload, m->load, &err))
			return cli_fail(LBT_EINVAL, "bench: %s", err.msg);
		if (a->workload && w.tasks)
			return cli_fail(LBT_EINVAL, "bench: --workload %s: a search tree starts empty; time a process "
			                "of arrivals (cybenko:, phases:, generator:)", a->workload);
	}
	for (int i = 0; i < a->nisas; i++) {
		lbt_kernels k;
		int s = lbt_kernels_select(&k, a->isas[i], &err);
		if (s)
			return cli_fail(s, "bench: %s", err.msg);
	}
	for (int i = 0; i < a->nthreads; i++) {
		int64_t v;
		if (cli_int("--threads", a->tlist[i], 1, CLI_THREADS_MAX, &v))
			return EXIT_USAGE;
		a->threads[i] = (int)v;
		a->max_threads = a->threads[i] > a->max_threads ? a->threads[i] : a->max_threads;
	}
	for (int i = 0; i < a->nsizes; i++) {
		lbt_shape sh;
		if (lbt_shape_parse(&sh, a->sizes[i], &err))
			return cli_fail(LBT_EINVAL, "bench: %s", err.msg);
		for (int k = 0; k < a->nmethods; k++) {
			lbt_setup set = {.shape = a->sizes[i], .method = a->methods[k], .init = a->init, .isa = "scalar",
			                 .seed = 1, .threads = a->max_threads, .grid_copies = 1};
			int s = lbt_setup_check(&set, &err);
			if (s)
				return cli_fail(s, "bench: %s", err.msg);
		}
	}
	return -1;
}

/* One size's bounds, for each thread count: copy and in-place bandwidth. */
typedef struct {
	const char *size;
	int64_t P;
	int D;
	double bw[16], rmw[16];
} bench_size;

/* One row of the table (and of the JSON's results). */
static void print_row(const bench_args *a, const bench_size *z, const char *method, const char *isa, int ti,
                      const measure *m, double scalar_rate, double static_rate, const lbt_workload *dyn, FILE *js,
                      int *first)
{
	const double bound = z->bw[ti] / 8.0 * z->D, rbound = z->rmw[ti] / 8.0 * z->D;
	printf("%-12s %-6s %-7s %3d %8lld %12.3g %9.2f %10.2f %12.3g %8.2f %8.2f", z->size, method, isa, a->threads[ti],
	       (long long)m->steps, m->rate, scalar_rate > 0 ? m->rate / scalar_rate : 0, z->bw[ti] / 1e9, bound,
	       bound > 0 ? m->rate / bound : 0, rbound > 0 ? m->rate / rbound : 0);
	if (dyn)
		printf("  + %s: %.2f of static", a->workload, static_rate > 0 ? m->rate / static_rate : 0);
	printf("\n");
	fflush(stdout);
	if (js) {
		fprintf(js, "%s{\"workload\":", *first ? "" : ",");
		if (dyn)
			fprintf(js, "\"%s\",\"of_static\":%.6g,", dyn->spec, static_rate > 0 ? m->rate / static_rate : 0);
		else
			fputs("null,", js);
		fprintf(js, "%s\"size\":\"%s\",\"dims\":%d,\"pes\":%lld,\"method\":\"%s\",\"isa\":\"%s\","
		            "\"threads\":%d,\"steps\":%lld,\"seconds\":%.6f,\"site_updates_per_second\":%.6g,",
		        "", z->size, z->D, (long long)z->P, method, isa, a->threads[ti], (long long)m->steps, m->seconds,
		        m->rate);
		fprintf(js, "\"scalar_site_updates_per_second\":%.6g,\"vs_scalar\":%.6g,"
		            "\"copy_bytes_per_second\":%.6g,\"bound_site_updates_per_second\":%.6g,\"of_bound\":%.6g,"
		            "\"in_place_bytes_per_second\":%.6g,\"of_in_place_bound\":%.6g}",
		        scalar_rate, scalar_rate > 0 ? m->rate / scalar_rate : 0, z->bw[ti], bound,
		        bound > 0 ? m->rate / bound : 0, z->rmw[ti], rbound > 0 ? m->rate / rbound : 0);
	}
	*first = 0;
}

/* One method on one size: a state made for it (its parameters, its real
 * field) and a copy to restart from, timed on every ISA and thread count,
 * statically and (with --workload) under the workload. */
static int bench_method(const bench_args *a, const bench_size *z, const char *method,
                        const volatile sig_atomic_t *stop, FILE *js, int *first, lbt_err *err)
{
	lbt_setup set = {.shape = z->size, .method = method, .init = a->init, .isa = "scalar", .seed = 1,
	                 .threads = a->max_threads, /* the method's scratch serves up to this many */
	                 .interrupt = stop};
	lbt_state st;
	lbt_grid start;
	int status;
	if ((status = lbt_state_open(&st, &set, err)))
		return status;
	if ((status = lbt_grid_init(&start, &st.grid.shape, err)) ||
	    (st.grid.real && (status = lbt_grid_add_real(&start, err)))) {
		lbt_state_close(&st);
		return status;
	}
	lbt_grid_copy(&start, &st.grid);
	lbt_workload wl;
	if (a->workload)
		lbt_workload_parse(&wl, a->workload, st.method->load, err); /* checked in check_args */
	const int kinds = 1 + (a->workload && wl.phase); /* static, and under the workload */
	double scalar_rate = 0, static_rate = 0;
	for (int ii = 0; ii < a->nisas && !status; ii++)
		for (int k = 0; k < a->nthreads * kinds && !status; k++) {
			const int ti = k / kinds, dyn = k % kinds;
			if (!strcmp(a->isas[ii], "scalar") && ti > 0 && a->threads[ti] != a->threads[0])
				continue; /* the reference has one thread whatever it is given */
			lbt_kernels_select(&st.table, a->isas[ii], err);
			st.kern = &st.table;
			st.threads = a->threads[ti];
			measure m = time_steps(&st, &start, dyn ? &wl : NULL, a->budget, err, &status);
			if (status)
				break;
			if (!strcmp(a->isas[ii], "scalar") && scalar_rate == 0 && !dyn)
				scalar_rate = m.rate;
			if (!dyn)
				static_rate = m.rate;
			print_row(a, z, method, a->isas[ii], ti, &m, scalar_rate, static_rate, dyn ? &wl : NULL, js, first);
		}
	lbt_grid_free(&start);
	lbt_state_close(&st);
	return status;
}

/* lbtorus bench: parse, check, then the headline (or the peers), and every
 * size x method x ISA x thread count against the bounds measured for it. */
int cmd_bench(int argc, char **argv)
{
	const volatile sig_atomic_t *stop = cli_stop_cleanly(); /* before any set-up: a signal stops the measuring */
	bench_args a = {0};
	int status = parse_args(argc, argv, &a);
	if (status < 0)
		status = check_args(&a);
	if (status >= 0)
		return status;
	status = 0;
	lbt_err err;
	lbt_outfile out;
	FILE *js = NULL;
	if (a.json) {
		int s = lbt_out_open(&out, a.json, &err);
		if (s)
			return cli_fail(s, "%s", err.msg);
		js = out.f;
	}
	char cpu[256];
	lbt_cpu_model(cpu, sizeof cpu);
	double load0 = loadavg();
	printf("lbtorus %s bench on %s, %d cores, load average %.2f at start\n", LBT_VERSION, cpu, a.ncores, load0);
#ifdef LBT_INSTRUMENTED
	printf("this build is instrumented by sanitizers: its speeds are not the hardware's, and its fractions of the "
	       "bandwidth bound mean nothing\n");
#endif
	if (js)
		fprintf(js, "{\"lbtorus\":\"%s\",\"cpu\":\"%s\",\"cores\":%d,\"load_average_start\":%.2f,"
		            "\"seconds_per_measurement\":%g,\"init\":\"%s\",\"headline\":[",
		        LBT_VERSION, cpu, a.ncores, load0, a.budget, a.init);
	int first = 1;
	if (a.peers) { /* the headline array stays empty */
		if (js)
			fprintf(js, "]");
		status = cli_bench_peers(a.quick, a.ncores, js);
		if (js) {
			fprintf(js, "}\n");
			if (status)
				lbt_out_abort(&out);
			else if (lbt_out_commit(&out, &err))
				return cli_fail(LBT_EIO, "%s", err.msg);
		}
		return status;
	}
	if (a.head) {
		printf("\nheadline: 128x128 torus, lm-c5, worst:5 until balanced, 1 thread (lbtorus run)\n");
		for (int i = 0; i < a.nisas && !status; i++)
			status = headline(a.isas[i], js, &first, &err);
	}
	if (js)
		fprintf(js, "],\"results\":[");
	printf("\n%-12s %-6s %-7s %3s %8s %12s %9s %10s %12s %8s %8s\n", "size", "method", "isa", "thr", "steps",
	       "site upd/s", "x scalar", "copy GB/s", "bound upd/s", "of bound", "of r+w");
	first = 1;
	for (int si = 0; si < a.nsizes && !status; si++) {
		bench_size z = {.size = a.sizes[si]};
		lbt_shape sh;
		lbt_shape_parse(&sh, z.size, &err); /* checked in check_args */
		z.P = lbt_shape_pes(&sh);
		z.D = lbt_shape_active_dims(&sh);
		double memo[2][32] = {{0}};
		for (int ti = 0; ti < a.nthreads; ti++) {
			z.bw[ti] = bandwidth_upto(z.P, a.threads[ti], a.budget, 0, memo[0], stop);
			z.rmw[ti] = bandwidth_upto(z.P, a.threads[ti], a.budget, 1, memo[1], stop);
		}
		for (int mi = 0; mi < a.nmethods && !status; mi++)
			status = bench_method(&a, &z, a.methods[mi], stop, js, &first, &err);
	}
	double load1 = loadavg();
	printf("\nload average %.2f at the end (other work on the machine lowers these numbers)\n", load1);
	if (js) {
		fprintf(js, "],\"load_average_end\":%.2f}\n", load1);
		if (!status)
			status = lbt_out_commit(&out, &err);
		else
			lbt_out_abort(&out);
	}
	if (*stop)
		return cli_interrupted("bench", "the rows above were measured before it");
	if (status)
		return cli_fail(status, "%s", err.msg);
	return 0;
}

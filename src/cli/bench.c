/* bench.c — `lbtorus bench`: kernel speed in site updates per second (one PE
 * in one substep) for every method x ISA x thread count x size, beside the
 * scalar reference and a memory-bandwidth bound measured in the same run
 * (lbt_bench_run; the bound is explained in src/api/bench.c). This file
 * reads the options and prints the table and the JSON. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

static void help(void)
{
	printf("usage: lbtorus bench [OPTIONS]\n"
	       "\n"
	       "Measure the kernels: site updates per second (one PE in one substep) for\n"
	       "each method x ISA x thread count x size, with the scalar reference's rate\n"
	       "and a STREAM-like copy bandwidth measured in the same run, and the ratios\n"
	       "vector/scalar and achieved/bound (bound = bandwidth / 2 x cell bytes x D:\n"
	       "a step reads and writes each PE's load, 4 bytes an int32, 8 a real-valued\n"
	       "method's float64; the bandwidth measured over the grid's bytes). \"of r+w\"\n"
	       "is the same ratio against an in-place read+write bandwidth (a[i] += 1),\n"
	       "the tighter bound for a kernel that updates the grid in place. A kernel\n"
	       "that keeps a grid in bytes for several steps, in the cache, can pass\n"
	       "them (a fraction above 1). The bandwidth\n"
	       "for T threads is the best of 1, 2, 4, ... and T threads (a kernel may use\n"
	       "fewer than it is given: one thread for a grid below 65536 PEs).\n"
	       "Every size must fit in memory twice (the run and the copy each measurement\n"
	       "restarts from): one that cannot is refused before anything is measured.\n"
	       "First the headline: 128x128 torus, lm-c5, worst:5 until balanced, 1 thread,\n"
	       "through the run driver as `lbtorus run` does it.\n"
	       "\n"
	       "  --sizes LIST     shapes (default 128x128,1024x1024,4096x4096,256x256x256)\n"
	       "  --methods LIST   default lm-c0,...,lm-c5; any method of lbtorus run --help\n"
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
	       "                   LM-C5 cases, with the ratios (--quick: 4096x4096 for 20 steps),\n"
	       "                   then every other method (lm-c0 to lm-c4 too) beside its plain C\n"
	       "                   loop (luling-monien under the workload cybenko:uniform:0:2:1);\n"
	       "                   its cases are fixed: --methods picks among them (lm-c5 for the\n"
	       "                   first table), --quick shortens them, --json writes them; a case\n"
	       "                   of N steps times the N-1 after the first on each side (a run of N\n"
	       "                   less a run of one: allocation and first touch left out);\n"
	       "                   --sizes, --isa, --threads, --init, --seconds, --workload do not apply\n"
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

/* What the command line asked for, and where the rows go. */
typedef struct {
	lbt_bench b;
	char threads_buf[128];
	const char *json;
	int head, peers;
	const char *measured_only; /* an option given that --peers does not apply (NULL: none) */
	FILE *js;  /* the JSON being written, NULL: none */
	int first; /* no row of the current JSON array yet */
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
	a->b = lbt_bench_default();
	a->head = 1;
	int o;
	if (cli_no_empty_values(argc, argv, opts, "bench"))
		return EXIT_USAGE;
	opterr = 0;
	optind = 0; /* glibc: a fresh scan (cli_no_empty_values scanned first) */
	while ((o = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
		if (!a->measured_only && (o == O_SIZES || o == O_ISA || o == O_THREADS || o == O_INIT || o == O_SECONDS ||
		                          o == O_WORKLOAD))
			a->measured_only = opts[o - O_SIZES].name;
		switch (o) {
		case O_SIZES: a->b.sizes = optarg; break;
		case O_METHODS: a->b.methods = optarg; break;
		case O_ISA: a->b.isa = optarg; break;
		case O_THREADS: snprintf(a->threads_buf, sizeof a->threads_buf, "%s", optarg); break;
		case O_INIT: a->b.init = optarg; break;
		case O_SECONDS: if (cli_real("--seconds", optarg, 0, 3600, 1, &a->b.seconds)) return EXIT_USAGE; break;
		case O_QUICK: a->b.quick = 1; break;
		case O_NOHEAD: a->head = 0; break;
		case O_JSON: a->json = a->b.out = optarg; break;
		case O_PEERS: a->peers = 1; break;
		case O_WORKLOAD: a->b.workload = optarg; break;
		case O_HELP: help(); return 0;
		default:
			if (o == ':') /* a known option without its value; '?': an unknown one (optopt is then its letter) */
				return cli_fail(LBT_EINVAL, "bench: option --%s needs a value", opts[optopt - O_SIZES].name);
			return cli_fail(LBT_EINVAL, "bench: unknown option '%s' (see lbtorus bench --help)", argv[optind - 1]);
		}
	}
	if (optind < argc)
		return cli_fail(LBT_EINVAL, "bench: unexpected argument '%s'", argv[optind]);
	char *tlist[16];
	const int n = split(a->threads_buf, tlist, 16);
	for (int i = 0; i < n; i++) {
		int64_t v;
		if (cli_int("--threads", tlist[i], 1, CLI_THREADS_MAX, &v))
			return EXIT_USAGE;
		a->b.threads[i] = (int)v;
	}
	return -1;
}

/* A headline row: the table's line and the JSON's element. */
static int headline_row(void *ctx, const lbt_bench_row *r)
{
	bench_args *a = ctx;
	printf("  %-8s %7lld steps to balanced  %8.3f s  %10.3g site updates/s\n", r->isa, (long long)r->steps,
	       r->seconds, r->rate);
	if (a->js)
		fprintf(a->js, "%s{\"isa\":\"%s\",\"steps\":%lld,\"seconds\":%.6f,\"site_updates_per_second\":%.6g}",
		        a->first ? "" : ",", r->isa, (long long)r->steps, r->seconds, r->rate);
	a->first = 0;
	return 0;
}

/* x / y, 0 where there is no y. */
static double ratio(double x, double y) { return y > 0 ? x / y : 0; }

/* A row of the table, and of the JSON's results. */
static int result_row(void *ctx, const lbt_bench_row *r)
{
	bench_args *a = ctx;
	printf("%-12s %-6s %-7s %3d %8lld %12.3g %9.2f %10.2f %12.3g %8.2f %8.2f", r->size, r->method, r->isa, r->threads,
	       (long long)r->steps, r->rate, ratio(r->rate, r->scalar_rate), r->copy_bw / 1e9, r->bound,
	       ratio(r->rate, r->bound), ratio(r->rate, r->in_place_bound));
	if (r->workload)
		printf("  + %s: %.2f of static", a->b.workload, ratio(r->rate, r->static_rate));
	printf("\n");
	fflush(stdout);
	FILE *js = a->js;
	if (js) {
		fprintf(js, "%s{\"workload\":", a->first ? "" : ",");
		if (r->workload)
			fprintf(js, "\"%s\",\"of_static\":%.6g,", r->workload, ratio(r->rate, r->static_rate));
		else
			fputs("null,", js);
		fprintf(js, "\"size\":\"%s\",\"dims\":%d,\"pes\":%lld,\"method\":\"%s\",\"isa\":\"%s\","
		            "\"threads\":%d,\"steps\":%lld,\"seconds\":%.6f,\"site_updates_per_second\":%.6g,",
		        r->size, r->dims, (long long)r->pes, r->method, r->isa, r->threads, (long long)r->steps, r->seconds,
		        r->rate);
		fprintf(js, "\"scalar_site_updates_per_second\":%.6g,\"vs_scalar\":%.6g,"
		            "\"copy_bytes_per_second\":%.6g,\"bound_site_updates_per_second\":%.6g,\"of_bound\":%.6g,"
		            "\"in_place_bytes_per_second\":%.6g,\"of_in_place_bound\":%.6g,\"cell_bytes\":%d}",
		        r->scalar_rate, ratio(r->rate, r->scalar_rate), r->copy_bw, r->bound, ratio(r->rate, r->bound),
		        r->in_place_bw, ratio(r->rate, r->in_place_bound), r->cell_bytes);
	}
	a->first = 0;
	return 0;
}

/* The first line, and the JSON's opening up to its headline array. */
static void print_start(const bench_args *a, const lbt_bench_info *info, double load0)
{
	printf("lbtorus %s bench on %s, %d cores, load average %.2f at start\n", LBT_VERSION, info->cpu, info->cores,
	       load0);
	if (info->instrumented)
		printf("this build is instrumented by sanitizers: its speeds are not the hardware's, and its fractions of "
		       "the bandwidth bound mean nothing\n");
	if (a->js)
		fprintf(a->js, "{\"lbtorus\":\"%s\",\"cpu\":\"%s\",\"cores\":%d,\"load_average_start\":%.2f,"
		               "\"seconds_per_measurement\":%g,\"init\":\"%s\",\"headline\":[",
		        LBT_VERSION, info->cpu, info->cores, load0, info->seconds, info->init);
}

/* The headline (unless --no-headline), then every size x method x ISA x
 * thread count against the bounds measured for it; an exit status. */
static int measure(bench_args *a, const volatile sig_atomic_t *stop, lbt_output *out)
{
	lbt_err err;
	int status = 0;
	a->first = 1;
	if (a->head) {
		printf("\nheadline: 128x128 torus, lm-c5, worst:5 until balanced, 1 thread (lbtorus run)\n");
		status = lbt_bench_headline(&a->b, headline_row, a, &err);
	}
	if (a->js)
		fprintf(a->js, "],\"results\":[");
	printf("\n%-12s %-6s %-7s %3s %8s %12s %9s %10s %12s %8s %8s\n", "size", "method", "isa", "thr", "steps",
	       "site upd/s", "x scalar", "copy GB/s", "bound upd/s", "of bound", "of r+w");
	a->first = 1;
	if (!status)
		status = lbt_bench_run(&a->b, result_row, a, &err);
	double load1 = loadavg();
	printf("\nload average %.2f at the end (other work on the machine lowers these numbers)\n", load1);
	if (a->js) {
		fprintf(a->js, "],\"load_average_end\":%.2f}\n", load1);
		if (!status)
			status = lbt_output_commit(out, &err);
		else
			lbt_output_abort(out);
	}
	if (*stop)
		return cli_interrupted("bench", "the rows above were measured before it");
	if (status)
		return cli_fail(status, "%s", err.msg);
	return 0;
}

/* lbtorus bench: parse, check, then the measurements or the peers. */
int cmd_bench(int argc, char **argv)
{
	const volatile sig_atomic_t *stop = cli_stop_cleanly(); /* before any set-up: a signal stops the measuring */
	bench_args a = {0};
	int status = parse_args(argc, argv, &a);
	if (status >= 0)
		return status;
	a.b.interrupt = stop;
	lbt_err err;
	lbt_bench_info info;
	if ((status = lbt_bench_check(&a.b, &info, &err)))
		return cli_fail(status, "bench: %s", err.msg);
	lbt_output *out = NULL;
	if (a.json && (status = lbt_output_open(&out, a.json, &a.js, &err)))
		return cli_fail(status, "%s", err.msg);
	print_start(&a, &info, loadavg());
	if (!a.peers)
		return measure(&a, stop, out);
	if (a.js) /* the headline array stays empty */
		fprintf(a.js, "]");
	if (a.measured_only)
		fprintf(stderr, "lbtorus: bench --peers: --%s does not apply to the peers' fixed cases (ignored)\n",
		        a.measured_only);
	status = cli_bench_peers(a.b.quick, a.b.methods, info.cores, stop, a.js);
	if (a.js) {
		fprintf(a.js, "}\n");
		if (status)
			lbt_output_abort(out);
		else if (lbt_output_commit(out, &err))
			return cli_fail(LBT_EIO, "%s", err.msg);
	}
	return status;
}

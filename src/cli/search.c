/* search.c — `lbtorus search`: the worst initial load found for LM-C5. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_internal.h"
#include "lbtorus/provenance.h"

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
	       "  --threads N       restarts in parallel (default: all cores)\n"
	       "  --isa NAME        kernel target (default auto)\n"
	       "  --workload SPEC   every evaluation runs this workload (as lbtorus run\n"
	       "                    --workload; not a search tree) from step 0 with --seed,\n"
	       "                    so every candidate meets the same arrivals\n"
	       "  --quiet           no progress lines on stderr\n"
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

int cmd_search(int argc, char **argv)
{
	enum { O_SHAPE = 256, O_BOUNDARY, O_METHOD, O_LDIFF, O_TOTAL, O_MEAN, O_RESTARTS, O_MOVES, O_ANNEAL,
	       O_SEED, O_OUT, O_MAX, O_THREADS, O_ISA, O_QUIET, O_HELP, O_WORKLOAD };
	static const struct option opts[] = {
		{"shape", 1, 0, O_SHAPE}, {"boundary", 1, 0, O_BOUNDARY}, {"method", 1, 0, O_METHOD},
		{"ldiff", 1, 0, O_LDIFF}, {"total", 1, 0, O_TOTAL}, {"mean", 1, 0, O_MEAN},
		{"restarts", 1, 0, O_RESTARTS}, {"moves", 1, 0, O_MOVES}, {"anneal", 1, 0, O_ANNEAL},
		{"seed", 1, 0, O_SEED}, {"out", 1, 0, O_OUT}, {"max-steps", 1, 0, O_MAX}, {"threads", 1, 0, O_THREADS},
		{"isa", 1, 0, O_ISA}, {"quiet", 0, 0, O_QUIET}, {"help", 0, 0, O_HELP}, {"workload", 1, 0, O_WORKLOAD},
		{0, 0, 0, 0}};
	lbt_search_opts so = {.restarts = 8, .moves = 2000, .seed = 1, .note = note};
	const char *out = "worst.npy", *workload = NULL;
	int64_t v, mean = -1;
	int have_total = 0, o;
	if (cli_no_empty_values(argc, argv, opts, "search"))
		return EXIT_USAGE;
	opterr = 0;
	optind = 0; /* glibc: a fresh scan (cli_no_empty_values scanned first) */
	while ((o = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
		switch (o) {
		case O_SHAPE: so.shape = optarg; break;
		case O_BOUNDARY: so.boundary = optarg; break;
		case O_METHOD: so.method = optarg; break;
		case O_LDIFF: if (cli_int("--ldiff", optarg, 1, INT32_MAX, &so.ldiff)) return EXIT_USAGE; break;
		case O_TOTAL: if (cli_int("--total", optarg, 0, INT64_MAX, &so.total)) return EXIT_USAGE; have_total = 1; break;
		case O_MEAN: if (cli_int("--mean", optarg, 0, INT32_MAX, &mean)) return EXIT_USAGE; break;
		case O_RESTARTS: if (cli_int("--restarts", optarg, 1, INT32_MAX, &so.restarts)) return EXIT_USAGE; break;
		case O_MOVES: if (cli_int("--moves", optarg, 0, INT64_MAX, &so.moves)) return EXIT_USAGE; break;
		case O_ANNEAL: if (cli_real("--anneal", optarg, 0, 1e300, 0, &so.temperature)) return EXIT_USAGE; break;
		case O_SEED: if (cli_u64("--seed", optarg, &so.seed)) return EXIT_USAGE; break;
		case O_OUT: out = optarg; break;
		case O_MAX: if (cli_int("--max-steps", optarg, 1, INT64_MAX, &so.max_steps)) return EXIT_USAGE; break;
		case O_THREADS:
			if (cli_int("--threads", optarg, 1, CLI_THREADS_MAX, &v)) return EXIT_USAGE;
			so.threads = (int)v;
			break;
		case O_ISA: so.isa = optarg; break;
		case O_QUIET: so.note = NULL; break;
		case O_WORKLOAD: workload = optarg; break;
		case O_HELP: help(); return 0;
		default:
			if (o == ':') /* a known option without its value; '?': an unknown one (optopt is then its letter) */
				return cli_fail(LBT_EINVAL, "search: option --%s needs a value", opts[optopt - O_SHAPE].name);
			return cli_fail(LBT_EINVAL, "search: unknown option '%s' (see lbtorus search --help)", argv[optind - 1]);
		}
	}
	if (optind < argc)
		return cli_fail(LBT_EINVAL, "search: unexpected argument '%s' (see lbtorus search --help)", argv[optind]);
	if (!so.shape || !so.ldiff)
		return cli_fail(LBT_EINVAL, "search: give --shape and --ldiff (see lbtorus search --help)");
	if (have_total == (mean >= 0))
		return cli_fail(LBT_EINVAL, "search: give exactly one of --total and --mean");
	lbt_err err;
	lbt_shape sh;
	int st = lbt_shape_parse(&sh, so.shape, &err);
	if (st)
		return cli_fail(st, "%s", err.msg);
	if (mean >= 0)
		so.total = mean * lbt_shape_pes(&sh);
	lbt_workload wl; /* checked against the method's kind of load, as lbtorus run does; a tree by lbt_search */
	const lbt_method *meth = lbt_method_find(so.method ? so.method : "lm-c5");
	if (workload && (st = lbt_workload_parse(&wl, workload, meth ? meth->load : LBT_LOAD_INT, &err)))
		return cli_fail(st, "search: %s", err.msg);
	if (workload && wl.phase)
		so.workload = &wl;

	lbt_outfile f;
	if ((st = lbt_out_open(&f, out, &err))) /* fail on a bad path before searching */
		return cli_fail(st, "%s", err.msg);
	lbt_search_result r;
	const volatile sig_atomic_t *stop = cli_stop_cleanly();
	st = lbt_search(&so, &r, &err);
	if (*stop) { /* its runs stopped early: the result is not the search's */
		lbt_out_abort(&f);
		if (!st)
			free(r.loads);
		return cli_interrupted("search", "nothing written");
	}
	if (st) {
		lbt_out_abort(&f);
		return cli_fail(st, "%s", err.msg);
	}
	if (lbt_npy_write_file(f.f, &r.shape, r.loads))
		st = lbt_errf(&err, LBT_EIO, "cannot write %s", out);
	if (!st)
		st = lbt_out_commit(&f, &err);
	else
		lbt_out_abort(&f);
	free(r.loads);
	if (st)
		return cli_fail(st, "%s", err.msg);
	char shape[128], bnd[128];
	lbt_shape_format(&r.shape, shape, sizeof shape);
	lbt_boundary_format(&r.shape, bnd, sizeof bnd);
	printf("{\"shape\":\"%s\",\"boundary\":\"%s\",\"method\":\"%s\",\"ldiff\":%lld,\"total\":%lld,\"min\":%lld,"
	       "\"max\":%lld,\"seed\":%llu,\"restarts\":%lld,\"moves\":%lld,\"anneal\":%g,\"evaluations\":%lld,"
	       "\"best_restart\":%lld,\"steps\":%lld,\"shifts\":%lld,\"dkl_bound\":%lld,\"steps_over_dkl\":%.6g,"
	       "\"npy\":\"%s\"%s%s%s",
	       shape, bnd, so.method ? so.method : "lm-c5", (long long)so.ldiff, (long long)so.total, (long long)r.min,
	       (long long)(r.min + so.ldiff), (unsigned long long)so.seed, (long long)so.restarts, (long long)so.moves,
	       so.temperature, (long long)r.evaluations, (long long)r.restart, (long long)r.steps, (long long)r.shifts,
	       (long long)r.dkl, r.ratio, out, so.workload ? ",\"workload\":\"" : "", so.workload ? wl.spec : "",
	       so.workload ? "\"" : "");
	lbt_provenance_file_json(stdout, "npy", out); /* the grid's checksum: a .npy has no room for provenance */
	lbt_provenance_json(stdout, so.isa ? so.isa : "", so.threads);
	fputs("}\n", stdout);
	return 0;
}

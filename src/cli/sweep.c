/* sweep.c — `lbtorus sweep`: the cartesian product of runs into one
 * resumable JSON Lines file, and the options it shares with `bound`. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli_internal.h"

/* The options sweep and bound share, for --help: bound takes one method. */
void cli_sweep_help(int one_method)
{
	fputs(one_method ? "  --method M         the method (default lm-c5); a parameter after a colon:\n"
	                   : "  --method LIST      methods (default lm-c5); a parameter after a colon:\n", stdout);
	fputs("                     fos:alpha=0.2, de:lambda=0.5, ca:k=2; several joined by\n"
	"                     colons: luling-monien:delta=4:f=1.5 (a range only last)\n"
	"  --shape LIST       shapes: 8, 64x128, ring:8..2048*2 (rings), torus2:8..256*2\n"
	"                     (K x K), torusD:K for K^D; x joins extents, a comma\n"
	"                     separates shapes (8,16: two rings; 8,8 is refused: 8x8)\n"
	"  --boundary LIST    torus (default), mesh, or per axis: torus/mesh\n"
	"  --init LIST        initial loads (default worst:5): worst:1..16*2, uniform:0:100,\n"
	"                     half:4, ... (as for lbtorus run)\n", stdout);
	int col = printf("  --until LIST       criteria (default balanced):");
	for (int k = 0; k < LBT_UNTIL_KINDS; k++) { /* " shared," ... " done", wrapped before column 80 */
		const int last = k == LBT_UNTIL_KINDS - 1, n = (int)strlen(lbt_until_syntax(k)) + 2 - last;
		if (col + n > 79)
			col = printf("\n                    ") - 1;
		col += printf(" %s%s", lbt_until_syntax(k), last ? "" : ",");
	}
	fputs("\n                     (lbtorus run --help says what each means)\n"
	"  --seed LIST        seeds (default 1): 1..10\n"
	"  --max-steps N      safety cap per run (default 1000000)\n"
	"  --spec FILE        read the axes from FILE ('key = value' lines); an axis given\n"
	"                     as an option replaces the file's\n"
	"  --jobs N           runs at once, one thread each (default: $OMP_NUM_THREADS,\n"
	"                     else all cores)\n"
	"  --threads N        threads of one big run (default: all cores)\n"
	"  --solo-pes N       runs with at least N PEs go one at a time on all threads\n"
	"                     (default 65536)\n"
	"  --isa NAME         kernel target (default auto)\n"
	"  --verify           check every step against the scalar reference\n"
	"  --dry-run          print the run keys and stop\n"
	"  --quiet            no progress line (it only appears on a terminal anyway)\n"
	"  --progress [S]     a progress line (runs, rate, ETA) every S seconds (default 60)\n"
	"                     even when stderr is not a terminal: for batch logs\n"
	"\n"
	"LIST is comma-separated; an item's last field may be a range LO..HI,\n"
	"LO..HI+STEP or LO..HI*FACTOR. Options repeat: --shape ring:8..64*2 --shape 16x16.\n", stdout);
}

static void help(void)
{
	printf("usage: lbtorus sweep --results FILE.jsonl [OPTIONS]\n"
	       "\n"
	       "Run every combination of methods, shapes, boundaries, initial loads, criteria\n"
	       "and seeds, appending one JSON line per finished run to FILE.jsonl. Running the\n"
	       "same sweep again skips the runs already recorded and finishes the rest.\n"
	       "\n"
	       "  --results FILE     the JSON Lines file (created or resumed; a regular file: a full\n"
	       "                     disk stops the sweep at the first record it cannot append, exit 2)\n"
	       "  --workload LIST    workloads (default none): cybenko:poisson:1:1, tree:2:8..12, ...\n"
	       "                     (lbtorus run --help lists them; a tree needs --init const:0)\n"
	       "  --warmup N         runs with a workload: leave steps 1..N out of sqdev_mean\n"
	       "                     (default 0; part of their run key when N > 0)\n");
	cli_sweep_help(0);
	printf("\n"
	       "MPI (a build with MPI, started by mpirun or srun with several ranks): the runs\n"
	       "go round-robin over the ranks, one at a time per rank, except runs of at least\n"
	       "--solo-pes PEs (of a method that runs on a cut torus, with an extent to cut):\n"
	       "those go one after the other over all ranks, each torus cut between them.\n"
	       "Rank 0 locks and writes FILE.jsonl: the same records as one process, in\n"
	       "another order; resumable.\n"
	       "\n"
	       "example: lbtorus sweep --results fig5.jsonl --method lm-c5 --shape ring:8..2048*2 \\\n"
	       "           --init worst:5 --until shared,balanced\n");
}

void cli_sweep_init(cli_sweep *c)
{
	memset(c, 0, sizeof *c);
	lbt_spec_init(&c->cmd);
	c->so.solo_pes = 65536;
}

int cli_sweep_option(cli_sweep *c, int opt, const char *arg, int argc, char **argv)
{
	lbt_err e;
	int64_t v;
	int st;
	switch (opt) {
	case CS_METHOD: case CS_SHAPE: case CS_BOUNDARY: case CS_INIT: case CS_UNTIL: case CS_WORKLOAD: case CS_SEED:
		if ((st = lbt_spec_add(&c->cmd, opt - CS_METHOD, arg, &e)))
			return cli_fail(st, "%s", e.msg);
		return 0;
	case CS_MAX: case CS_WARMUP:
		if (cli_int(opt == CS_MAX ? "--max-steps" : "--warmup", arg, 0, INT64_MAX, &v))
			return EXIT_USAGE;
		if ((st = lbt_spec_add(&c->cmd, LBT_NAXES + (opt == CS_WARMUP), arg, &e)))
			return cli_fail(st, "%s", e.msg);
		return 0;
	case CS_SPEC: c->spec_path = arg; return 0;
	case CS_JOBS: case CS_THREADS:
		if (cli_int(opt == CS_JOBS ? "--jobs" : "--threads", arg, 1, CLI_THREADS_MAX, &v))
			return EXIT_USAGE;
		*(opt == CS_JOBS ? &c->so.jobs : &c->so.threads) = (int)v;
		return 0;
	case CS_SOLO: return cli_int("--solo-pes", arg, 1, LBT_MAX_PES, &c->so.solo_pes) ? EXIT_USAGE : 0;
	case CS_ISA: {
		lbt_kernels k;
		if (cli_nonempty("--isa", arg))
			return EXIT_USAGE;
		if ((st = lbt_kernels_select(&k, arg, &e)))
			return cli_fail(st, "%s", e.msg);
		c->so.isa = arg;
		return 0;
	}
	case CS_VERIFY: c->so.verify = 1; return 0;
	case CS_QUIET: c->quiet = 1; return 0;
	case CS_DRY: c->dry_run = 1; return 0;
	case CS_PROGRESS: return cli_progress_option(argc, argv, &c->progress) ? EXIT_USAGE : 0;
	}
	return cli_fail(LBT_EINTERNAL, "unhandled option %d", opt);
}

int cli_sweep_plan(cli_sweep *c, const lbt_spec *base, lbt_spec *spec, lbt_plan *pl)
{
	lbt_err e;
	lbt_spec file;
	lbt_spec_init(&file);
	int st = 0;
	*spec = c->cmd;
	lbt_spec_init(&c->cmd); /* spec owns the items now */
	if (c->spec_path && !(st = lbt_spec_read(&file, c->spec_path, &e)))
		st = lbt_provenance_add_input("spec", c->spec_path, &e); /* its checksum in every record */
	if (!st)
		st = lbt_spec_merge(spec, &file, 0, &e);
	if (!st)
		st = lbt_spec_merge(spec, base, 1, &e);
	if (!st)
		st = lbt_plan_build(pl, spec, &e);
	lbt_spec_free(&file);
	return st ? cli_fail(st, "%s", e.msg) : 0;
}

int cli_sweep_distinct(const cli_sweep *c, const lbt_spec *spec, const char *from, const lbt_io_name *out, int nout)
{
	const int64_t ni = spec->n[LBT_AX_INIT];
	lbt_io_name *in = malloc((size_t)(ni + 2) * sizeof *in), *outs = malloc((size_t)(nout + 1) * sizeof *outs);
	char torn[4200];
	if (!in || !outs) {
		free(in);
		free(outs);
		return cli_fail(LBT_ENOMEM, "no memory to compare the files");
	}
	/* out[0], the results file, has a second output: RESULTS.torn, where a
	 * torn last line is set aside */
	memcpy(outs, out, (size_t)nout * sizeof *outs);
	outs[nout] = (lbt_io_name){"the torn-line file", NULL};
	if (out[0].path && (size_t)snprintf(torn, sizeof torn, "%s.torn", out[0].path) < sizeof torn)
		outs[nout].path = torn;
	in[0] = (lbt_io_name){"--spec", c->spec_path};
	in[1] = (lbt_io_name){"--from", from};
	for (int64_t i = 0; i < ni; i++) {
		const char *it = spec->item[LBT_AX_INIT][i];
		in[i + 2] = (lbt_io_name){"--init", strncmp(it, "file:", 5) ? NULL : it + 5};
	}
	lbt_err e;
	int st = lbt_io_distinct(in, (int)ni + 2, outs, nout + 1, &e);
	free(in);
	free(outs);
	return st ? cli_fail(st, "%s", e.msg) : 0;
}

typedef struct {
	int on;
	double last, every; /* every > 0: whole lines, that many seconds apart */
} progress;

static void on_progress(void *ctx, const lbt_sweep_progress *p)
{
	progress *g = ctx;
	double t = lbt_seconds();
	int64_t todo = p->total - p->skipped, fin = p->done + p->failed;
	if (!g->on || (t - g->last < (g->every > 0 ? g->every : 0.2) && fin < todo))
		return;
	g->last = t;
	if (g->every > 0 && fin == 0)
		return; /* the first line once a run has finished: it has a rate */
	char eta[32] = "?";
	if (p->work_done > 0)
		cli_hms(eta, sizeof eta, p->seconds * (p->work_total - p->work_done) / p->work_done);
	fprintf(stderr, g->every > 0 ? "lbtorus: %lld/%lld runs" : "\r\033[K  %lld/%lld runs", (long long)(fin + p->skipped),
	        (long long)p->total);
	if (p->skipped)
		fprintf(stderr, " (%lld done before)", (long long)p->skipped);
	if (p->failed)
		fprintf(stderr, "  %lld FAILED", (long long)p->failed);
	fprintf(stderr, "  %.3g runs/s  ETA %s%s", p->seconds > 0 ? (double)fin / p->seconds : 0.0, eta, g->every > 0 ? "\n" : " ");
}

int cli_sweep_exec(cli_sweep *c, const lbt_plan *pl, const char *results)
{
	const int speaker = lbt_comm_rank() == 0; /* under MPI rank 0 writes and speaks */
	if (c->dry_run) {
		for (int64_t i = 0; speaker && i < pl->n; i++)
			printf("%s %s\n", pl->run[i].id, pl->run[i].key);
		if (speaker)
			fprintf(stderr, "lbtorus: %lld runs\n", (long long)pl->n);
		return 0;
	}
	progress g = {.on = speaker && (c->progress > 0 || (!c->quiet && isatty(2))), .every = c->progress,
	              .last = lbt_seconds()};
	c->so.mpi = lbt_comm_size() > 1; /* the runs spread over the ranks */
	c->so.on_progress = on_progress;
	c->so.ctx = &g;
	c->so.interrupt = cli_catch_signals();
	lbt_sweep_progress p;
	lbt_err e;
	int st = lbt_sweep_exec(pl, results, &c->so, &p, &e);
	if (g.on && !(g.every > 0))
		fputs("\r\033[K", stderr);
	/* nothing ran (a bad file, a lock) or a record could not be appended (a full disk): exit 2 */
	const int usage = st && ((p.done + p.failed == 0 && p.total > p.skipped) || st == LBT_EIO);
	if (!speaker) /* the same verdict as rank 0's, silently */
		return st ? (usage ? EXIT_USAGE : 1) : 0;
	if (p.truncated)
		fprintf(stderr, "lbtorus: %s ended in a torn line (a killed sweep); it was moved to %s.torn\n", results, results);
	if (p.completed)
		fprintf(stderr, "lbtorus: the last record of %s lacked its newline; it was added\n", results);
	if (usage)
		return cli_fail(st, "%s", e.msg);
	if (st) {
		fprintf(stderr, "lbtorus: %s\n", e.msg);
		return 1;
	}
	if (*c->so.interrupt) {
		fprintf(stderr, "lbtorus: interrupted: %lld of %lld runs are in %s; the same command finishes the rest\n",
		        (long long)(p.done + p.skipped), (long long)p.total, results);
		return EXIT_UNCONVERGED;
	}
	if (g.on) {
		char t[32];
		cli_hms(t, sizeof t, p.seconds);
		fprintf(stderr, "lbtorus: %lld runs in %s: %lld now (%s), %lld before", (long long)p.total, results,
		        (long long)p.done, t, (long long)p.skipped);
		if (p.unconverged)
			fprintf(stderr, "; %lld stopped before their criterion (reached = false)", (long long)p.unconverged);
		fputc('\n', stderr);
	}
	return 0;
}

int cmd_sweep(int argc, char **argv)
{
	enum { O_RESULTS = 256, O_HELP };
	static const struct option opts[] = {
		{"results", 1, 0, O_RESULTS}, {"help", 0, 0, O_HELP}, {"workload", 1, 0, CS_WORKLOAD}, {"warmup", 1, 0, CS_WARMUP}, CLI_SWEEP_OPTIONS,
		{0, 0, 0, 0}};
	cli_catch_signals(); /* before the plan and the first run's set-up */
	cli_sweep c;
	cli_sweep_init(&c);
	const char *results = NULL;
	int o, rc = 0;
	if (cli_no_empty_values(argc, argv, opts, "sweep"))
		return EXIT_USAGE;
	opterr = 0;
	optind = 0; /* glibc: a fresh scan (cli_no_empty_values scanned first) */
	while (!rc && (o = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
		if (o == O_RESULTS)
			results = optarg;
		else if (o == O_HELP) {
			help();
			lbt_spec_free(&c.cmd);
			return 0;
		} else if (o == '?' || o == ':')
			rc = o == ':' ? cli_fail(LBT_EINVAL, "sweep: option '%s' needs a value", argv[optind - 1])
			            : cli_fail(LBT_EINVAL, "sweep: unknown option '%s' (see lbtorus sweep --help)", argv[optind - 1]);
		else
			rc = cli_sweep_option(&c, o, optarg, argc, argv);
	}
	if (!rc && optind < argc)
		rc = cli_fail(LBT_EINVAL, "sweep: unexpected argument '%s' (see lbtorus sweep --help)", argv[optind]);
	if (!rc && !results && !c.dry_run)
		rc = cli_fail(LBT_EINVAL, "sweep: name the results file with --results FILE.jsonl");
	if (!rc && results && !strcmp(results, "-"))
		rc = cli_fail(LBT_EINVAL, "sweep: --results must name a file (it is appended to and resumed)");
	if (rc) {
		lbt_spec_free(&c.cmd);
		return rc;
	}
	lbt_spec spec;
	lbt_plan pl;
	if ((rc = cli_sweep_plan(&c, NULL, &spec, &pl))) {
		lbt_spec_free(&spec);
		return rc;
	}
	const lbt_io_name out = {"--results", results};
	rc = cli_sweep_distinct(&c, &spec, NULL, &out, 1);
	if (!rc)
		rc = cli_sweep_exec(&c, &pl, results);
	lbt_plan_free(&pl);
	lbt_spec_free(&spec);
	return rc;
}

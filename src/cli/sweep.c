/* sweep.c — `lbtorus sweep`: the cartesian product of runs into one
 * resumable JSON Lines file, and the options it shares with `bound`. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

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
	lbt_until_info u, next;
	for (int k = 0; !lbt_until_describe(k, &u); k++) { /* " shared," ... " done", wrapped before column 80 */
		const char *syn = u.syntax;
		const int last = lbt_until_describe(k + 1, &next) != LBT_OK, n = (int)strlen(syn) + 2 - last;
		if (col + n > 79)
			col = printf("\n                    ") - 1;
		col += printf(" %s%s", syn, last ? "" : ",");
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
	c->o = lbt_sweep_default();
	c->b = lbt_batch_default();
}

int cli_sweep_option(cli_sweep *c, int opt, const char *arg, int argc, char **argv)
{
	/* lbt_sweep_set's names of the options it checks */
	static const char *const name[] = {
		[CS_METHOD - CS_METHOD] = "method", [CS_SHAPE - CS_METHOD] = "shape", [CS_BOUNDARY - CS_METHOD] = "boundary",
		[CS_INIT - CS_METHOD] = "init", [CS_UNTIL - CS_METHOD] = "until", [CS_WORKLOAD - CS_METHOD] = "workload",
		[CS_SEED - CS_METHOD] = "seed", [CS_MAX - CS_METHOD] = "max-steps", [CS_SOLO - CS_METHOD] = "solo-pes",
		[CS_WARMUP - CS_METHOD] = "warmup"};
	lbt_err e;
	int64_t v;
	int st;
	switch (opt) {
	case CS_METHOD: case CS_SHAPE: case CS_BOUNDARY: case CS_INIT: case CS_UNTIL: case CS_WORKLOAD: case CS_SEED:
	case CS_MAX: case CS_WARMUP: case CS_SOLO:
		if ((st = lbt_sweep_set(&c->o, name[opt - CS_METHOD], arg, &e)))
			return cli_fail(st, "%s", e.msg);
		return 0;
	case CS_SPEC: c->o.spec = arg; return 0;
	case CS_JOBS: case CS_THREADS:
		if (cli_int(opt == CS_JOBS ? "--jobs" : "--threads", arg, 1, CLI_THREADS_MAX, &v))
			return EXIT_USAGE;
		*(opt == CS_JOBS ? &c->b.threads : &c->o.threads) = (int)v;
		return 0;
	case CS_ISA:
		if (cli_nonempty("--isa", arg))
			return EXIT_USAGE;
		c->b.isa = arg;
		if ((st = lbt_batch_check(&c->b, &e)))
			return cli_fail(st, "%s", e.msg);
		return 0;
	case CS_VERIFY: c->o.verify = 1; return 0;
	case CS_QUIET: c->quiet = 1; return 0;
	case CS_DRY: c->o.dry_run = 1; return 0;
	case CS_PROGRESS: return cli_progress_option(argc, argv, &c->progress) ? EXIT_USAGE : 0;
	}
	return cli_fail(LBT_EINTERNAL, "unhandled option %d", opt);
}

static double now(void)
{
	struct timespec t;
	timespec_get(&t, TIME_UTC);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void planned(void *ctx, const char *id, const char *key)
{
	(void)ctx;
	printf("%s %s\n", id, key);
}

/* The sweep's end (every rank 0 sees it): the progress line cleared, what
 * was repaired in the results file, and a finished sweep's summary. */
static void sweep_end(const cli_sweep *g, const lbt_sweep_counts *p)
{
	if (g->on && !(g->progress > 0))
		fputs("\r\033[K", stderr);
	if (p->torn)
		fprintf(stderr, "lbtorus: %s ended in a torn line (a killed sweep); it was moved to %s.torn\n", g->results,
		        g->results);
	if (p->completed)
		fprintf(stderr, "lbtorus: the last record of %s lacked its newline; it was added\n", g->results);
	if (p->status || !g->on)
		return;
	char t[32];
	cli_hms(t, sizeof t, p->seconds);
	fprintf(stderr, "lbtorus: %lld runs in %s: %lld now (%s), %lld before", (long long)p->total, g->results,
	        (long long)p->done, t, (long long)p->skipped);
	if (p->unconverged)
		fprintf(stderr, "; %lld stopped before their criterion (reached = false)", (long long)p->unconverged);
	fputc('\n', stderr);
}

/* The progress line: on a terminal at most five times a second, else
 * (--progress S) a whole line every S seconds once a run has finished. */
static void on_progress(void *ctx, const lbt_sweep_counts *p)
{
	cli_sweep *g = ctx;
	if (p->end) {
		sweep_end(g, p);
		return;
	}
	const double t = now(), every = g->progress;
	int64_t todo = p->total - p->skipped, fin = p->done + p->failed;
	if (!g->on || (t - g->last < (every > 0 ? every : 0.2) && fin < todo))
		return;
	g->last = t;
	if (every > 0 && fin == 0)
		return; /* the first line once a run has finished: it has a rate */
	char eta[32] = "?";
	if (p->eta >= 0)
		cli_hms(eta, sizeof eta, p->eta);
	fprintf(stderr, every > 0 ? "lbtorus: %lld/%lld runs" : "\r\033[K  %lld/%lld runs", (long long)(fin + p->skipped),
	        (long long)p->total);
	if (p->skipped)
		fprintf(stderr, " (%lld done before)", (long long)p->skipped);
	if (p->failed)
		fprintf(stderr, "  %lld FAILED", (long long)p->failed);
	fprintf(stderr, "  %.3g runs/s  ETA %s%s", p->rate, eta, every > 0 ? "\n" : " ");
}

void cli_sweep_start(cli_sweep *c, const char *results)
{
	c->results = results;
	c->on = c->progress > 0 || (!c->quiet && isatty(2));
	c->last = now();
	c->o.results = results;
	c->o.planned = planned;
	c->o.progress = on_progress;
	c->o.ctx = c;
}

int cli_sweep_verdict(const cli_sweep *c, int st, const lbt_sweep_counts *n, const lbt_err *e)
{
	/* nothing ran (a bad file, a lock) or a record could not be appended (a full disk): exit 2 */
	const int usage = st && st != LBT_EINTR && ((n->done + n->failed == 0 && n->total > n->skipped) || st == LBT_EIO);
	if (n->rank != 0) /* the same verdict as rank 0's, silently */
		return st && st != LBT_EINTR ? (usage ? EXIT_USAGE : 1) : 0;
	if (usage)
		return cli_fail(st, "%s", e->msg);
	if (st == LBT_EINTR) {
		fprintf(stderr, "lbtorus: interrupted: %lld of %lld runs are in %s; the same command finishes the rest\n",
		        (long long)(n->done + n->skipped), (long long)n->total, c->results);
		return EXIT_UNCONVERGED;
	}
	if (st) {
		fprintf(stderr, "lbtorus: %s\n", e->msg);
		return 1;
	}
	return 0;
}

int cmd_sweep(int argc, char **argv)
{
	enum { O_RESULTS = 256, O_HELP };
	static const struct option opts[] = {
		{"results", 1, 0, O_RESULTS}, {"help", 0, 0, O_HELP}, {"workload", 1, 0, CS_WORKLOAD}, {"warmup", 1, 0, CS_WARMUP}, CLI_SWEEP_OPTIONS,
		{0, 0, 0, 0}};
	cli_sweep c;
	cli_sweep_init(&c);
	c.b.interrupt = cli_catch_signals(); /* before the plan and the first run's set-up */
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
			return 0;
		} else if (o == '?' || o == ':')
			rc = o == ':' ? cli_fail(LBT_EINVAL, "sweep: option '%s' needs a value", argv[optind - 1])
			            : cli_fail(LBT_EINVAL, "sweep: unknown option '%s' (see lbtorus sweep --help)", argv[optind - 1]);
		else
			rc = cli_sweep_option(&c, o, optarg, argc, argv);
	}
	if (!rc && optind < argc)
		rc = cli_fail(LBT_EINVAL, "sweep: unexpected argument '%s' (see lbtorus sweep --help)", argv[optind]);
	if (!rc && !results && !c.o.dry_run)
		rc = cli_fail(LBT_EINVAL, "sweep: name the results file with --results FILE.jsonl");
	if (!rc && results && !strcmp(results, "-"))
		rc = cli_fail(LBT_EINVAL, "sweep: --results must name a file (it is appended to and resumed)");
	if (rc)
		return rc;
	cli_sweep_start(&c, results);
	lbt_sweep_counts n;
	lbt_err e;
	int st = lbt_sweep_run(&c.o, &c.b, &n, &e);
	if (c.o.dry_run && !st) {
		if (n.rank == 0)
			fprintf(stderr, "lbtorus: %lld runs\n", (long long)n.total);
		return 0;
	}
	return n.end ? cli_sweep_verdict(&c, st, &n, &e) : st ? cli_fail(st, "%s", e.msg) : 0;
}

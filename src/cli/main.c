/* main.c — `lbtorus COMMAND ...`: hands over to one command. */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

static const char usage[] =
	"usage: lbtorus COMMAND [OPTIONS]\n"
	"\n"
	"An emulator of a fine-grained SIMD torus (MasPar style) running the local\n"
	"load-balancing methods of the classic papers, above all Henrich's Liquid model.\n"
	"\n"
	"commands:\n"
	"  run    balance one initial load on one torus with one method\n"
	"  demo   Henrich's (1996) worst cases: Table 3's 8-PE ring and a 128x128 torus\n"
	"  info   the version, the ISA targets compiled in and the one this CPU uses\n"
	"  reproduce  Henrich's (1996) Table 3 and Fig. 5-7: data, plots, paper beside ours\n"
	"  search     worst-case search: the initial load LM-C5 takes longest to balance\n"
	"  bench  kernel speed per method, ISA, thread count and size, against bounds\n"
	"  sweep  many runs (methods x shapes x inits x ... x seeds) into a resumable JSONL file\n"
	"  report a Markdown summary (tables also as LaTeX) of a results file, for a paper\n"
	"  bound  check Theorem 3's T = O(D*K*Ldiff): sweep D, K, Ldiff, estimate the constant, plot\n"
	"  plot   a figure of results files and traces: x, y, groups, a fit with its intervals\n"
	"\n"
	"  lbtorus COMMAND --help   options of one command\n"
	"  lbtorus --version        the version\n"
	"\n"
	"exit status: 0 done, 2 bad usage or input (one line on stderr says what),\n"
	"3 a run stopped before its criterion (--max-steps, or a signal: SIGINT, SIGTERM,\n"
	"SIGHUP), 1 an internal error.\n";

int cli_fail(int status, const char *fmt, ...)
{
	if (lbt_comm_rank() == 0) { /* under MPI every rank fails alike: one says so */
		va_list ap;
		fputs("lbtorus: ", stderr);
		va_start(ap, fmt);
		vfprintf(stderr, fmt, ap);
		va_end(ap);
		fputc('\n', stderr);
	}
	return status == LBT_EINTERNAL ? 1 : EXIT_USAGE;
}

int cli_int(const char *opt, const char *text, int64_t lo, int64_t hi, int64_t *v)
{
	lbt_err e;
	return lbt_parse_i64(text, lo, hi, opt, v, &e) ? cli_fail(LBT_EINVAL, "%s", e.msg) : 0;
}

int cli_u64(const char *opt, const char *text, uint64_t *v)
{
	lbt_err e;
	return lbt_parse_u64(text, 0, UINT64_MAX, opt, v, &e) ? cli_fail(LBT_EINVAL, "%s", e.msg) : 0;
}

int cli_real(const char *opt, const char *text, double lo, double hi, int lo_open, double *v)
{
	lbt_err e;
	return lbt_parse_f64(text, lo, hi, lo_open, opt, v, &e) ? cli_fail(LBT_EINVAL, "%s", e.msg) : 0;
}

int cli_no_empty_values(int argc, char **argv, const struct option *opts, const char *cmd)
{
	char *copy[argc + 1]; /* getopt permutes what it scans: the command's own pass sees argv as given */
	memcpy(copy, argv, (size_t)(argc + 1) * sizeof *copy);
	int o, li = -1, rc = 0;
	opterr = 0;
	optind = 0; /* 0: glibc's getopt starts afresh */
	while (!rc && (o = getopt_long(argc, copy, ":", opts, &li)) != -1) {
		if (o != '?' && o != ':' && li >= 0 && opts[li].has_arg == required_argument && optarg && !*optarg)
			rc = cli_fail(LBT_EINVAL, "%s: option --%s wants a value, got an empty one", cmd, opts[li].name);
		li = -1;
	}
	optind = 0;
	return rc;
}

int cli_nonempty(const char *opt, const char *text)
{
	return *text ? 0 : cli_fail(LBT_EINVAL, "%s wants a value, got an empty one", opt);
}

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
	if (interrupted) { /* the second one: the default action, now */
		signal(sig, SIG_DFL);
		raise(sig);
	}
	interrupted = sig;
}

const volatile sig_atomic_t *cli_catch_signals(void)
{
	static int installed;
	struct sigaction sa, old;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART; /* a write interrupted by the signal resumes: stdio never sees EINTR */
	static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
	for (size_t i = 0; !installed && i < sizeof sigs / sizeof *sigs; i++)
		if (!sigaction(sigs[i], NULL, &old) && old.sa_handler != SIG_IGN) /* nohup's SIGHUP stays ignored */
			sigaction(sigs[i], &sa, NULL);
	installed = 1;
	return &interrupted;
}

const volatile sig_atomic_t *cli_stop_cleanly(void)
{
	const volatile sig_atomic_t *flag = cli_catch_signals();
	lbt_interrupt_all(flag);
	return flag;
}

const char *cli_signal_said(char *buf, size_t n)
{
	if (interrupted) /* this rank's own */
		snprintf(buf, n, "by signal %d", (int)interrupted);
	else if (lbt_comm_signal()) /* another rank's, as the ranks agreed it */
		snprintf(buf, n, "on another rank (signal %d)", lbt_comm_signal());
	else
		snprintf(buf, n, "on another rank");
	return buf;
}

int cli_interrupted(const char *cmd, const char *kept)
{
	char by[64];
	if (lbt_comm_rank() == 0)
		fprintf(stderr, "lbtorus: %s: interrupted %s; %s\n", cmd, cli_signal_said(by, sizeof by), kept);
	return EXIT_UNCONVERGED;
}

void cli_hms(char *b, size_t n, double s)
{
	long t = (long)(s + 0.5);
	if (t >= 3600)
		snprintf(b, n, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
	else
		snprintf(b, n, "%ld:%02ld", t / 60, t % 60);
}

/* What was printed must have reached stdout (a full disk, /dev/full, a
 * closed pipe): otherwise say so and fail. */
static int stdout_done(int rc)
{
	int bad = fflush(stdout) || ferror(stdout);
	int err = errno;
	bad |= fclose(stdout) != 0;
	if (!bad)
		return rc;
	cli_fail(LBT_EIO, "cannot write to stdout: %s", strerror(bad && err ? err : errno));
	return rc ? rc : EXIT_USAGE;
}

static int dispatch(int argc, char **argv)
{
	if (argc < 2)
		return cli_fail(LBT_EINVAL, "no command given (try lbtorus --help)");
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		fputs(usage, stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("lbtorus %s\n", LBT_VERSION);
		return 0;
	}
	static const struct {
		const char *name;
		int (*fn)(int, char **);
	} cmds[] = {{"run", cmd_run}, {"demo", cmd_demo}, {"info", cmd_info},
	   {"reproduce", cmd_reproduce}, {"search", cmd_search}, {"bench", cmd_bench},
	   {"sweep", cmd_sweep}, {"report", cmd_report}, {"bound", cmd_bound}, {"plot", cmd_plot}};
	lbt_err err;
	if (lbt_comm_init(&argc, &argv, &err))
		return cli_fail(LBT_EIO, "%s", err.msg);
	lbt_set_argv(argc, argv); /* every record says which command made it */
	for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++)
		if (!strcmp(argv[1], cmds[i].name)) {
			int rc;
			if (lbt_comm_size() > 1 && strcmp(argv[1], "run") && strcmp(argv[1], "sweep") && strcmp(argv[1], "info") &&
			    strcmp(argv[1], "bound") && strcmp(argv[1], "search") && strcmp(argv[1], "reproduce"))
				rc = cli_fail(LBT_EINVAL, "lbtorus %s runs on one process: under MPI only run, sweep, bound, search "
				              "and reproduce are distributed (started by an MPI launcher with %d ranks)", argv[1],
				              lbt_comm_size());
			else
				rc = cmds[i].fn(argc - 1, argv + 1);
			lbt_comm_finalize();
			return rc;
		}
	lbt_comm_finalize();
	return cli_fail(LBT_EINVAL, "unknown command '%s' (try lbtorus --help)", argv[1]);
}

int main(int argc, char **argv) { return stdout_done(dispatch(argc, argv)); }

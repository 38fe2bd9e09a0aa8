/* cli.h — the command-line tool's commands and their shared helpers.
 * Only this layer prints for humans, reads options and chooses exit codes. */
#ifndef LBTORUS_CLI_H
#define LBTORUS_CLI_H

#include <signal.h>
#include <stdio.h>

#include <lbtorus.h> /* the public API only (tests/layers.py: no private header in src/cli/) */

enum { EXIT_USAGE = 2, EXIT_UNCONVERGED = 3 };

int cmd_run(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_demo(int argc, char **argv);
int cmd_reproduce(int argc, char **argv);
int cmd_search(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_sweep(int argc, char **argv);
int cmd_bound(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_plot(int argc, char **argv);
/* `bench --peers` (src/cli/bench_peers.c): the tables, and their JSON arrays
 * as the members "peers" and "method_peers" of the object open in js (NULL:
 * none); methods: --methods, the peers' methods to run (NULL: all; a name
 * with no peer is refused); stop: the runs' interrupt flag (cli_stop_cleanly). */
int cli_bench_peers(int quick, const char *methods, int ncores, const volatile sig_atomic_t *stop, FILE *js);

/* Print "lbtorus: MESSAGE" on stderr; return EXIT_USAGE (or 1 for a bug). */
int cli_fail(int status, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Parse an option's value with the library's one number parser
 * (lbt_parse_*): exact range, no clamping. On failure print one line
 * naming the option and the range, and return EXIT_USAGE; else 0. */
int cli_int(const char *opt, const char *text, int64_t lo, int64_t hi, int64_t *v);
int cli_u64(const char *opt, const char *text, uint64_t *v); /* 0..2^64-1: seeds */
int cli_real(const char *opt, const char *text, double lo, double hi, int lo_open, double *v);
/* Before a command reads its options: refuse an empty value for any option
 * that takes one ("--isa ''", "--out="): no empty value silently means the
 * default. Prints one line and returns EXIT_USAGE, else 0. */
struct option;
int cli_no_empty_values(int argc, char **argv, const struct option *opts, const char *cmd);
/* A value that names something (a file, an ISA, a list) must not be empty. */
int cli_nonempty(const char *opt, const char *text);
#define CLI_THREADS_MAX 4096
/* The data directory: $LBTORUS_DATA if set; else the source tree's data/
 * for an lbtorus started from its build tree; else the installed data beside
 * this executable's bin/ (a moved or DESTDIR install); else lbt_data_dir(). */
const char *cli_data_dir(void);

/* SIGINT, SIGTERM and SIGHUP set the returned flag (the run engine's and the
 * sweep's interrupt): the work stops at the end of the current step and
 * writes what it has. A second signal ends the process at once. A signal
 * the process was started with ignored (nohup, a background job) stays
 * ignored. Commands call it first, before their set-up. */
const volatile sig_atomic_t *cli_catch_signals(void);
/* The same for a command of many runs (bound, bench): every run of the
 * process stops at the end of its current step and no output is committed
 * after the signal (lbt_interrupt_all), so what is published was finished
 * before it; temporaries are removed. */
const volatile sig_atomic_t *cli_stop_cleanly(void);
/* On rank 0: "lbtorus: CMD: interrupted by signal N; KEPT" on stderr, or
 * "interrupted on another rank (signal N)" when only another rank was
 * signalled (lbt_comm_signal); returns EXIT_UNCONVERGED (3). */
int cli_interrupted(const char *cmd, const char *kept);
/* What stopped the run, into buf: "by signal N" (this process's own),
 * "on another rank (signal N)" (lbt_comm_signal), or "on another rank". */
const char *cli_signal_said(char *buf, size_t n);
/* --progress [SECONDS]: the optional value, also as the next argument when
 * it is a number (getopt takes it only as --progress=S); default 60. */
int cli_progress_option(int argc, char **argv, double *every);
/* A progress line on stderr, at most a few times a second, only on a
 * terminal; or, with --progress SECONDS (every > 0), one whole line every
 * that many seconds wherever stderr goes (a batch job's log), with the rate
 * and an ETA (to `target` steps: steps:N, else --max-steps as a bound).
 * src/cli/progress.c. */
typedef struct {
	int on;
	double last, start, every;
	int64_t pes, active, target;
	int target_is_cap;
} cli_progress;
void cli_progress_init(cli_progress *p, int enabled, int64_t pes, int active_dims);
void cli_progress_force(cli_progress *p, double every, int64_t target, int target_is_cap);
void cli_progress_step(cli_progress *p, const lbt_record *r);
void cli_progress_done(cli_progress *p);
double cli_seconds(void); /* a monotonic clock */
/* s seconds as M:SS, or H:MM:SS from an hour on, into b. */
void cli_hms(char *b, size_t n, double s);

/* The options sweep and bound share (src/cli/sweep.c), into the public
 * sweep options and batch; the progress line and the sweep's verdict. */
enum { CS_METHOD = 300, CS_SHAPE, CS_BOUNDARY, CS_INIT, CS_UNTIL, CS_WORKLOAD, CS_SEED, CS_MAX, CS_SPEC, CS_JOBS,
       CS_THREADS, CS_SOLO, CS_ISA, CS_VERIFY, CS_QUIET, CS_DRY, CS_PROGRESS, CS_WARMUP };
#define CLI_SWEEP_OPTIONS \
	{"method", 1, 0, CS_METHOD}, {"shape", 1, 0, CS_SHAPE}, {"boundary", 1, 0, CS_BOUNDARY}, \
	{"init", 1, 0, CS_INIT}, {"until", 1, 0, CS_UNTIL}, {"seed", 1, 0, CS_SEED}, \
	{"max-steps", 1, 0, CS_MAX}, {"spec", 1, 0, CS_SPEC}, {"jobs", 1, 0, CS_JOBS}, \
	{"threads", 1, 0, CS_THREADS}, {"solo-pes", 1, 0, CS_SOLO}, {"isa", 1, 0, CS_ISA}, \
	{"verify", 0, 0, CS_VERIFY}, {"quiet", 0, 0, CS_QUIET}, {"dry-run", 0, 0, CS_DRY}, \
	{"progress", 2, 0, CS_PROGRESS}
typedef struct {
	lbt_sweep_opts o;   /* o.ctx: this */
	lbt_batch b;        /* b.threads: --jobs */
	int quiet;
	double progress;    /* --progress SECONDS: a line that often wherever stderr goes */
	const char *results; /* for the messages */
	int on;             /* the progress line is shown */
	double last;
} cli_sweep;
void cli_sweep_help(int one_method); /* the shared options, for --help (bound: one method) */
void cli_sweep_init(cli_sweep *c);
/* Handle one shared option; returns 0, or an exit status after printing. */
int cli_sweep_option(cli_sweep *c, int opt, const char *arg, int argc, char **argv);
/* Before the runs: the progress line's callbacks (and --dry-run's list) set
 * up for the results file `results`. */
void cli_sweep_start(cli_sweep *c, const char *results);
/* The exit status of a sweep that ran (n->end) and returned st, with its
 * messages: exit 2 when nothing ran or a record could not be appended, 3
 * when interrupted, 1 when a run failed. */
int cli_sweep_verdict(const cli_sweep *c, int st, const lbt_sweep_counts *n, const lbt_err *e);

#endif

/* cli.h — the command-line tool's commands and their shared helpers.
 * Only this layer prints for humans, reads options and chooses exit codes. */
#ifndef LBTORUS_CLI_H
#define LBTORUS_CLI_H

#include <signal.h>
#include <stdio.h>

#include <lbtorus.h> /* the public API only: a command needing more includes cli_internal.h */

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
 * none); stop: the runs' interrupt flag (cli_stop_cleanly). */
int cli_bench_peers(int quick, int ncores, const volatile sig_atomic_t *stop, FILE *js);

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
/* The same for a command of many runs (search, bound, bench): every run
 * stops at the end of its current step (lbt_run_interrupt_default) and no
 * output is committed after the signal (lbt_out_hold), so what is published
 * was finished before it; temporaries are removed. */
const volatile sig_atomic_t *cli_stop_cleanly(void);
/* "lbtorus: CMD: interrupted by signal N; KEPT" on stderr; returns EXIT_UNCONVERGED (3). */
int cli_interrupted(const char *cmd, const char *kept);
/* --progress [SECONDS]: the optional value, also as the next argument when
 * it is a number (getopt takes it only as --progress=S); default 60. */
int cli_progress_option(int argc, char **argv, double *every);
/* s seconds as M:SS, or H:MM:SS from an hour on, into b. */
void cli_hms(char *b, size_t n, double s);

#endif

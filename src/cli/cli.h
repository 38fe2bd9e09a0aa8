/* cli.h — the command-line tool's commands and their shared helpers.
 * Only this layer prints for humans, reads options and chooses exit codes. */
#ifndef LBTORUS_CLI_H
#define LBTORUS_CLI_H

#include "lbtorus/lbtorus.h"

enum { EXIT_USAGE = 2, EXIT_UNCONVERGED = 3 };

int cmd_run(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_demo(int argc, char **argv);
int cmd_reproduce(int argc, char **argv);
int cmd_search(int argc, char **argv);
int cmd_bench(int argc, char **argv);

/* Print "lbtorus: MESSAGE" on stderr; return EXIT_USAGE (or 1 for a bug). */
int cli_fail(int status, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Parse a whole non-negative integer option value. */
int cli_int(const char *opt, const char *text, int64_t *v);

/* A progress line on stderr, at most a few times a second, only on a terminal. */
typedef struct {
	int on;
	double last, start;
	int64_t pes, active;
} cli_progress;
void cli_progress_init(cli_progress *p, int enabled, const lbt_state *st);
void cli_progress_step(cli_progress *p, const lbt_step_record *r);
void cli_progress_done(cli_progress *p);

#endif

/* cli_internal.h — what some commands still take from the library's
 * private headers (src/include/lbtorus/), beyond the public API of
 * <lbtorus.h> that cli.h gives. Issue 26: the CLI uses only the public API;
 * a command moved onto it stops including this file, and the file goes when
 * no command includes it. */
#ifndef LBTORUS_CLI_INTERNAL_H
#define LBTORUS_CLI_INTERNAL_H

#include "cli.h"
#include "lbtorus/lbtorus.h"

/* The options sweep and bound share (src/cli/sweep.c). */
#include "lbtorus/sweep.h"
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
	lbt_spec cmd;          /* axes given as options: they replace the spec file's */
	const char *spec_path;
	lbt_sweep_opts so;
	int quiet, dry_run;
	double progress; /* --progress SECONDS: a line that often wherever stderr goes */
} cli_sweep;
void cli_sweep_help(int one_method); /* the shared options, for --help (bound: one method) */
void cli_sweep_init(cli_sweep *c);
/* Handle one shared option; returns 0, or an exit status after printing. */
int cli_sweep_option(cli_sweep *c, int opt, const char *arg, int argc, char **argv);
/* Spec file + options + defaults (base fills axes neither gives) -> plan. */
int cli_sweep_plan(cli_sweep *c, const lbt_spec *base, lbt_spec *spec, lbt_plan *pl);
/* The outputs against each other and against the inputs: --spec, the
 * spec's --init file: items, --from (NULL: none); out[0] is the results
 * file (path NULL: none), whose RESULTS.torn is an output too; 0 or an
 * exit status. */
int cli_sweep_distinct(const cli_sweep *c, const lbt_spec *spec, const char *from, const lbt_io_name *out, int nout);
/* Run the plan into results with a progress line; returns an exit status. */
int cli_sweep_exec(cli_sweep *c, const lbt_plan *pl, const char *results);

#endif

/* cli_internal.h — what some commands still take from the library's
 * private headers (src/include/lbtorus/), beyond the public API of
 * <lbtorus.h> that cli.h gives. Issue 26: the CLI uses only the public API;
 * a command moved onto it stops including this file, and the file goes when
 * no command includes it. */
#ifndef LBTORUS_CLI_INTERNAL_H
#define LBTORUS_CLI_INTERNAL_H

#include "cli.h"
#include "lbtorus/lbtorus.h"

/* A method parameter's option name without the dashes: ca_k -> "ca-k". */
const char *cli_param_option(const lbt_param *p);

/* A progress line on stderr, at most a few times a second, only on a
 * terminal; or, with --progress SECONDS (every > 0), one whole line every
 * that many seconds wherever stderr goes (a batch job's log), with the rate
 * and an ETA (to `target` steps: steps:N, else --max-steps as a bound). */
typedef struct {
	int on;
	double last, start, every;
	int64_t pes, active, target;
	int target_is_cap;
} cli_progress;
void cli_progress_init(cli_progress *p, int enabled, const lbt_state *st);
void cli_progress_force(cli_progress *p, double every, int64_t target, int target_is_cap);
void cli_progress_step(cli_progress *p, const lbt_step_record *r);
void cli_progress_done(cli_progress *p);

#endif

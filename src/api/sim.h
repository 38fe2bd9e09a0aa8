/* sim.h — the inside of the public lbt_sim (lbtorus.h), shared by the
 * files of src/api/: sim.c opens, runs and reads it; outputs.c writes its
 * files (lbt_sim_outputs) and describes it. */
#ifndef LBTORUS_API_SIM_H
#define LBTORUS_API_SIM_H

#include "lbtorus/method.h"
#include "lbtorus/run.h"

typedef struct lbt_sim_files lbt_sim_files; /* outputs.c: the files of lbt_sim_outputs */

struct lbt_sim {
	lbt_state st;
	lbt_workload wl;
	lbt_run_opts ro;        /* as configured; a run's own copy differs in until, observer, batch */
	lbt_run_opts last;      /* the last run's (for its JSON) */
	lbt_summary sum;
	int ran;                /* sum and last hold a run */
	lbt_loop *loop;         /* the run lbt_sim_step keeps open between calls; NULL: none */
	char *init;             /* the init spec as given (the JSON's "init") */
	char *inputs;           /* the run's inputs as given, a trace's "# key: value" lines */
	const volatile sig_atomic_t *interrupt;
	volatile sig_atomic_t halt;
	lbt_observer observe;
	void *octx;
	lbt_sim_files *files;   /* lbt_sim_outputs' files for the next run; NULL: none */
};

/* Whether the torus is cut between ranks: under MPI with several, or
 * LBTORUS_CUT=1 on one process (the distributed code paths, for tests). */
int lbt_sim_cut(void);
/* The inputs as given (c's text and the opened state), as a trace's lines. */
char *lbt_sim_inputs(const lbt_state *st, const lbt_setup *set, const char *until, const lbt_run_opts *ro);
/* The files' share of a run: after every step, whether steps may be taken
 * several a call (no picture reads the grid between them), and at its end
 * (status: the run's; the files committed on LBT_OK, else removed; frees
 * them). lbt_sim_files_close removes them unwritten. */
void lbt_sim_files_step(lbt_sim *s, const lbt_step_record *r);
int lbt_sim_files_batch(const lbt_sim *s);
int lbt_sim_files_finish(lbt_sim *s, int status, double seconds, lbt_err *e);
void lbt_sim_files_close(lbt_sim *s);

#endif

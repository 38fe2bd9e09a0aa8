/* spread.h — a batch of independent jobs spread over the MPI ranks, as a
 * sweep spreads its small runs (src/exp/sweep.c): the k-th job of the
 * order given runs on rank k mod R, several at once on the rank's threads
 * (one thread each), and then every rank holds every job's result, so what
 * follows is the same on every rank and equals one process's. Used by
 * `lbtorus reproduce` (its batches of runs) and `lbtorus search` (its
 * restarts); on one process it is a parallel loop over the jobs. */
#ifndef LBTORUS_SPREAD_H
#define LBTORUS_SPREAD_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "lbtorus/status.h"

enum { LBT_SPREAD_REGIONS = 8 };

typedef struct {
	void (*run)(void *ctx, int64_t i); /* job i, on one of this rank's threads (several at once) */
	/* job i's result: the regions of memory it fills (1 to
	 * LBT_SPREAD_REGIONS), at[r] and n[r] bytes each; their sizes are the
	 * same on every rank */
	int (*result)(void *ctx, int64_t i, void *at[LBT_SPREAD_REGIONS], size_t n[LBT_SPREAD_REGIONS]);
	void *ctx;
	/* the caller's signal flag (the jobs' runs stop at the end of their step
	 * once it is set) or NULL: under MPI a rank signalled tells the others
	 * at once and each hears of it after its current job, without waiting
	 * for the others' jobs (lbt_comm_watch), so a signal to one rank stops
	 * all after their current jobs (LBT_EINTR on every rank, nothing shared) */
	const volatile sig_atomic_t *interrupt;
} lbt_spread;

/* The jobs this rank runs of n: ceil((n - rank) / R). */
int64_t lbt_spread_mine(int64_t n);
/* Collective: every rank calls it with the same n and order (NULL:
 * 0..n-1). The jobs of this rank run `threads` at once; then the results
 * go to every rank (LBT_ENOMEM on every rank if some rank had no room;
 * LBT_EINTR on every rank if a signal stopped one: s->interrupt). */
int lbt_spread_run(const lbt_spread *s, const int *order, int64_t n, int threads, lbt_err *e);

#endif

/* cycle.h — the engine's cycle detector (private to src/exec/). */
#ifndef LBTORUS_EXEC_CYCLE_H
#define LBTORUS_EXEC_CYCLE_H

#include "lbtorus/grid.h"
#include "lbtorus/run.h"

enum { LBT_CYCLE_SAMPLES = 64 };

typedef struct {
	lbt_grid chk;                  /* the checkpoint state */
	int64_t chk_step, power;
	double max, min;               /* its extremes */
	int64_t at[LBT_CYCLE_SAMPLES]; /* cell offsets of the sampled PEs */
	double val[LBT_CYCLE_SAMPLES]; /* their loads in the checkpoint */
	int n, real;
} lbt_cycle;

/* Take st's state (extremes max, min) as the first checkpoint, at step 0. */
int lbt_cycle_open(lbt_cycle *c, const lbt_state *st, double max, double min, lbt_err *e);
/* After step `step` left st with extremes max, min: the period if the state
 * equals the checkpoint's, else 0 (and the checkpoint moves on when due). */
int64_t lbt_cycle_check(lbt_cycle *c, const lbt_state *st, int64_t step, double max, double min);
void lbt_cycle_close(lbt_cycle *c);

#endif

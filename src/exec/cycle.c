/* cycle.c — detecting a recurring state (Brent's method), cheaply.
 *
 * A deterministic method without a workload maps the load field to the next
 * one by a fixed function, so once a state recurs the run repeats the same
 * cycle for ever: no criterion it has not met yet will ever hold. The
 * detector keeps a checkpoint copy of the state, taken at step 0 and then at
 * steps 1, 3, 7, 15, ... (each time `power` steps after the last, power
 * doubling): every later state is compared with it, and the first equal one
 * proves a cycle whose period is the distance to the checkpoint. Once the
 * run is inside its cycle, a checkpoint lands in it within about twice the
 * (tail + period) steps, so the run stops within a small factor of the
 * earliest possible step, with the exact (smallest) period.
 *
 * Cost: the exact comparison is a pass over the grid, so it runs only when
 * the cheap necessary conditions hold — the same extremes (from the step's
 * reductions, free) and the same loads at LBT_CYCLE_SAMPLES PEs spread over
 * the grid. A copy is made only at the checkpoints: O(1) amortized per step.
 * No false cycle is possible: a cycle is reported only after the exact
 * comparison (int32 loads and, for real-valued methods, the bits of the
 * real field). */
#include <string.h>

#include "cycle.h"
#include "comm/comm.h"

static double sample(const lbt_grid *g, int real, int64_t at) { return real ? g->real[at] : (double)g->load[at]; }

static void take(lbt_cycle *c, const lbt_state *st, int64_t step, double max, double min)
{
	lbt_grid_copy(&c->chk, &st->grid);
	c->chk_step = step;
	c->max = max;
	c->min = min;
	for (int i = 0; i < c->n; i++)
		c->val[i] = sample(&st->grid, c->real, c->at[i]);
}

int lbt_cycle_open(lbt_cycle *c, const lbt_state *st, double max, double min, lbt_err *e)
{
	memset(c, 0, sizeof *c);
	const lbt_shape *s = &st->grid.shape;
	int status = lbt_grid_init(&c->chk, s, e);
	if (!status && st->grid.real && (status = lbt_grid_add_real(&c->chk, e)))
		lbt_grid_free(&c->chk);
	if (status)
		return status;
	c->real = st->method->load == LBT_LOAD_REAL;
	const int64_t P = lbt_shape_pes(s);
	c->n = P < LBT_CYCLE_SAMPLES ? (int)P : LBT_CYCLE_SAMPLES;
	for (int i = 0; i < c->n; i++) { /* PE i*P/n, by its coordinates */
		int64_t q = (int64_t)((__int128)i * P / c->n), coord[LBT_MAXD];
		for (int d = s->dims - 1; d >= 0; d--) {
			coord[d] = q % s->ext[d];
			q /= s->ext[d];
		}
		c->at[i] = lbt_grid_offset(&st->grid, coord);
	}
	c->power = 1;
	take(c, st, 0, max, min);
	return LBT_OK;
}

int64_t lbt_cycle_check(lbt_cycle *c, const lbt_state *st, int64_t step, double max, double min)
{
	int maybe = max == c->max && min == c->min;
	for (int i = 0; maybe && i < c->n; i++)
		maybe = sample(&st->grid, c->real, c->at[i]) == c->val[i];
	int same = maybe && lbt_grid_first_diff(&st->grid, &c->chk) < 0;
	if (st->grid.cut) /* the same state: the same on every rank */
		same = lbt_comm_min_int(same);
	if (same)
		return step - c->chk_step;
	if (step - c->chk_step == c->power) {
		take(c, st, step, max, min);
		c->power *= 2;
	}
	return 0;
}

void lbt_cycle_close(lbt_cycle *c)
{
	lbt_grid_free(&c->chk);
}

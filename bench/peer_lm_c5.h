/* peer_lm_c5.h — the straightforward C loop of the Liquid model that
 * `lbtorus bench --peers` times beside lbtorus (bench/peer_lm_c5.c). */
#ifndef LBTORUS_PEER_LM_C5_H
#define LBTORUS_PEER_LM_C5_H

#include <stdint.h>

/* LM-C5 on an R x C torus, L dense row-major, until max - min <= 2 (with
 * until_balanced) or `steps` steps; returns the steps taken, -1 if out of memory. */
int64_t peer_lm_c5(int32_t *L, int64_t R, int64_t C, int64_t steps, int until_balanced);

/* One step of LM-C<cond> (0..5) on an R x C torus (R, C >= 3), L dense
 * row-major; old: room for R C loads, row: for C + 3. */
void peer_lm_step(int cond, int32_t *L, int32_t *old, int32_t *row, int64_t R, int64_t C);

#endif

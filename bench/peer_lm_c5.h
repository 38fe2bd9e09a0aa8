/* peer_lm_c5.h — the straightforward C loop of LM-C5 that `lbtorus bench
 * --peers` times beside lbtorus (bench/peer_lm_c5.c). */
#ifndef LBTORUS_PEER_LM_C5_H
#define LBTORUS_PEER_LM_C5_H

#include <stdint.h>

/* LM-C5 on an R x C torus, L dense row-major, until max - min <= 2 (with
 * until_balanced) or `steps` steps; returns the steps taken, -1 if out of memory. */
int64_t peer_lm_c5(int32_t *L, int64_t R, int64_t C, int64_t steps, int until_balanced);

#endif

/* peer_methods.h — the plain C loops of the other methods that `lbtorus
 * bench --peers` times beside lbtorus (bench/peer_methods.c). */
#ifndef LBTORUS_PEER_METHODS_H
#define LBTORUS_PEER_METHODS_H

#include <stdint.h>

enum { PEER_FOS, PEER_FOS_INT, PEER_FOS_SPEED, PEER_FOS_SPEED_INT, PEER_NNA, PEER_NNA_DEF, PEER_DE, PEER_DE_INT, PEER_DE_AXIS, PEER_LM };

/* `steps` steps of a method on an R x C torus (R, C >= 3), grid dense
 * row-major (double for fos, fos-speed, de, de-axis; int32_t for the
 * others), param its one number (alpha, the weight m, lambda, the Liquid
 * model's condition 0..4; unused by nna, nna-def), ws a workspace of 4 R C int64 (the flows; the caller
 * allocates it once, as a program that steps a grid does, so that a timed
 * run does not include the first touch of its pages). */
void peer_method_run(int method, void *grid, int64_t R, int64_t C, int64_t steps, double param, int64_t *ws);

#endif

/* peer_methods.h — the plain C loops of the other methods that `lbtorus
 * bench --peers` times beside lbtorus (bench/peer_methods.c). */
#ifndef LBTORUS_PEER_METHODS_H
#define LBTORUS_PEER_METHODS_H

#include <stdint.h>

enum { PEER_FOS, PEER_FOS_INT, PEER_FOS_SPEED, PEER_FOS_SPEED_INT, PEER_NNA, PEER_NNA_DEF, PEER_DE, PEER_DE_INT, PEER_DE_AXIS, PEER_LM, PEER_LULING /* peer_luling_run's, below */ };

/* `steps` steps of a method on an R x C torus (R, C >= 3), grid dense
 * row-major (double for fos, fos-speed, de, de-axis; int32_t for the
 * others), param its one number (alpha, the weight m, lambda, the Liquid
 * model's condition 0..4; unused by nna, nna-def), ws a workspace of 4 R C int64 (the flows; the caller
 * allocates it once, as a program that steps a grid does, so that a timed
 * run does not include the first touch of its pages). */
void peer_method_run(int method, void *grid, int64_t R, int64_t C, int64_t steps, double param, int64_t *ws);

/* The workload of peer_luling_run, as lbtorus's --workload spells it: the
 * method acts only when a PE's load changes by the factor f. */
#define PEER_LULING_WORKLOAD "cybenko:uniform:0:2:1"

/* `steps` steps of luling-monien (the basic algorithm, partners anywhere on
 * the torus, trigger factor f, delta partners, 1 <= delta <= 63) on the
 * int32 grid L of an R x C torus, each after a phase of
 * PEER_LULING_WORKLOAD, lbtorus's draws for `seed`; ws as peer_method_run's
 * (each PE's l_old and the step's initiators). */
void peer_luling_run(int32_t *L, int64_t R, int64_t C, int64_t steps, uint64_t seed, double f, int delta, int64_t *ws);

#endif

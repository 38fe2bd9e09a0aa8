/* init.h — initial load configurations: point:TOTAL, worst:C, uniform:LO:HI,
 * const:V, file:PATH.npy, half:H. Parsed once, then applied to a grid. */
#ifndef LBTORUS_INIT_H
#define LBTORUS_INIT_H

#include <signal.h>
#include <stdint.h>

#include "lbtorus/grid.h"

typedef enum { LBT_INIT_POINT, LBT_INIT_WORST, LBT_INIT_UNIFORM, LBT_INIT_CONST, LBT_INIT_FILE,
               LBT_INIT_HALF } lbt_init_kind;

typedef struct {
	lbt_init_kind kind;
	int64_t a, b;     /* point: a = TOTAL; worst: a = C; uniform: [a, b]; const: a; half: a = H */
	char path[4096];  /* file */
	char text[4200];  /* the spec as given, for records */
} lbt_init;

int lbt_init_parse(lbt_init *in, const char *text, lbt_err *e);
/* Refuse, before any allocation, what cannot fit on shape s. */
int lbt_init_check(const lbt_init *in, const lbt_shape *s, lbt_err *e);
/* For file:PATH, also read the loads and check them as lbt_init_apply will
 * (finite, non-negative, within int32 for integer files, a total that
 * fits), in pieces (no copy of the torus), naming the same value: what a
 * sweep's plan checks before the results file exists. */
int lbt_init_check_values(const lbt_init *in, const lbt_shape *s, lbt_err *e);
/* The total load lbt_init_apply will put on shape s (checked) with this
 * seed, without a grid: 1 and *total, or 0 for a file (known only once it is
 * read). uniform draws the values as lbt_init_apply does: O(P) time. */
int lbt_init_total(const lbt_init *in, const lbt_shape *s, uint64_t seed, int64_t *total);
/* Fill g's loads. Refuses negative loads, per-PE loads beyond int32 and
 * totals beyond int64, naming the problem. seed feeds uniform. A float32 or
 * float64 file adds the real-valued field (lbt_grid_add_real) and fills it,
 * leaving the integer loads 0: it is an initial load for a real-valued
 * method only (lbt_state_open refuses it for the others). A file is read
 * block by block (only g's PEs); on a grid cut between ranks that is
 * collective, and every rank returns the lowest failing rank's error
 * (the message one process gives). When *stop
 * (stop may be NULL) becomes non-zero, it stops within a row of the grid
 * and returns LBT_EINTR, the loads half filled. */
int lbt_init_apply(const lbt_init *in, lbt_grid *g, uint64_t seed, const volatile sig_atomic_t *stop, lbt_err *e);

#endif

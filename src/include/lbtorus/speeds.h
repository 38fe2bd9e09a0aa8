/* speeds.h — heterogeneous PE speeds and the network of a run (Jeannot and
 * Vernier, A Practical Approach of Diffusion Load Balancing Algorithms,
 * 2006, §3.1-3.2 and §4). The speeds are the per-PE field "speed" (float64):
 *   const:V            every PE has speed V
 *   uniform:LO:HI      i.i.d. uniform reals in [LO, HI) from the counter-based rng
 *   classes:V1,V2,...  each PE one of the values, drawn uniformly (up to 16)
 *   file:F.npy         an array of the shape, float64, float32, int32 or int64 (e.g.
 *                      MFlop/s; np.save of reals writes float64), finite and > 0
 * Only ratios matter: methods normalise the speeds to mean 1 (the paper's Cn).
 * The network: every link has one latency and bandwidth, --link LAT:BW in
 * milliseconds and megabits per second, or a preset: lan (0.15:100, the
 * paper's §4.1) or dsl (40:1, §4.2). */
#ifndef LBTORUS_SPEEDS_H
#define LBTORUS_SPEEDS_H

#include <signal.h>
#include <stdint.h>

#include "lbtorus/grid.h"

enum { LBT_RNG_SPEED = 0x535044 }; /* "SPD": the purpose of the speeds' draws */

typedef enum { LBT_SPEEDS_CONST, LBT_SPEEDS_UNIFORM, LBT_SPEEDS_CLASSES, LBT_SPEEDS_FILE } lbt_speeds_kind;

typedef struct {
	lbt_speeds_kind kind;
	double v[16];     /* const: v[0]; uniform: [v[0], v[1]); classes: v[0..n-1] */
	int n;
	char path[4096];  /* file */
} lbt_speeds;

/* Parse a spec; every speed a number in [1e-6, 1e6] (their sums and
 * ratios stay finite). */
int lbt_speeds_parse(lbt_speeds *sp, const char *text, lbt_err *e);
/* Add the field "speed" to g and fill it (seed feeds uniform and classes).
 * When *stop (stop may be NULL) becomes non-zero it stops within 65536 PEs:
 * LBT_EINTR, the field half filled. */
int lbt_speeds_apply(const lbt_speeds *sp, lbt_grid *g, uint64_t seed, const volatile sig_atomic_t *stop, lbt_err *e);

/* The paper's two networks, and the default model's calibration (docs/methods.md). */
#define LBT_LINK_LAN "0.15:100"
#define LBT_LINK_DSL "40:1"
/* Fill n from "LAT:BW" (ms, Mb/s, each at most 1e9), "lan" or "dsl", with the calibration:
 * unit_s = 1e-5 s (a 20 kflop unit on the paper's 2000 MFlop/s PEs),
 * unit_bytes = 1000, info_bytes = 16, app_bytes = 1000, pack_s = 0. */
int lbt_link_parse(lbt_net *n, const char *text, lbt_err *e);

#endif

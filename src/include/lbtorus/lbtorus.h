/* lbtorus.h — the public API of lbtorus, a SIMD torus load-balancing emulator.
 * Include this one header; it pulls in the others (each also compiles alone).
 * Every function returns an lbt_status and fills a caller-owned lbt_err.
 * From the bottom layer up (docs/design.md): */
#ifndef LBTORUS_LBTORUS_H
#define LBTORUS_LBTORUS_H

#include "lbtorus/status.h"    /* version, status codes, lbt_err */
#include "lbtorus/rng.h"       /* kernels: the counter-based generator */
#include "lbtorus/kernels.h"   /*   views, counters, the dispatch table */
#include "lbtorus/comm.h"      /* comm: ranks (MPI) */
#include "lbtorus/number.h"    /* core: numbers from text */
#include "lbtorus/shape.h"     /*   geometry */
#include "lbtorus/grid.h"      /*   the SoA grid */
#include "lbtorus/init.h"      /*   initial loads */
#include "lbtorus/speeds.h"    /*   PE speeds, the network */
#include "lbtorus/io.h"        /* out: atomic output files */
#include "lbtorus/provenance.h" /*   what made a result */
#include "lbtorus/npy.h"       /*   NumPy arrays */
#include "lbtorus/plot.h"      /*   gnuplot line plots */
#include "lbtorus/heatmap.h"   /*   heat maps, animations */
#include "lbtorus/jsonl.h"     /*   results files read back */
#include "lbtorus/method.h"    /* method: the methods by name, the state */
#include "lbtorus/run.h"       /* exec: the run driver */
#include "lbtorus/sweep.h"     /* exp: sweeps */
#include "lbtorus/search.h"    /*   worst-case search */
#include "lbtorus/bound.h"     /*   Theorem 3 against measurement */
#include "lbtorus/report.h"    /*   Markdown reports */
#include "lbtorus/figure.h"    /*   figures and fits of results */
#include "lbtorus/reproduce.h" /*   the paper's simulations */

#endif

/* lbtorus.h — the public API of lbtorus, a SIMD torus load-balancing emulator.
 * Include this one header; it pulls in the others.
 * Every function returns an lbt_status and fills a caller-owned lbt_err. */
#ifndef LBTORUS_LBTORUS_H
#define LBTORUS_LBTORUS_H

#include <stddef.h>
#include <stdint.h>

#define LBT_VERSION "0.1.0"
#define LBT_MAXD 8 /* most dimensions a torus may have */

typedef enum {
	LBT_OK = 0,
	LBT_EINVAL, /* bad argument, option, shape or file content */
	LBT_ENOMEM, /* allocation failed */
	LBT_EIO,    /* file could not be read or written */
	LBT_ERANGE, /* a load or total would overflow its type */
	LBT_EUNSUP, /* asked for something this build or CPU cannot do */
	LBT_EINTERNAL /* an invariant broke: a bug, please report */
} lbt_status;

/* One line describing the last failure, owned by the caller (no global state). */
typedef struct {
	char msg[512];
} lbt_err;

/* Fill e with a printf-style message; returns status so callers can
 * `return lbt_errf(e, LBT_EINVAL, "...")`. e may be NULL. */
int lbt_errf(lbt_err *e, int status, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
const char *lbt_status_name(int status);

#include "lbtorus/shape.h"
#include "lbtorus/grid.h"
#include "lbtorus/rng.h"
#include "lbtorus/kernels.h"
#include "lbtorus/init.h"
#include "lbtorus/npy.h"
#include "lbtorus/io.h"
#include "lbtorus/method.h"
#include "lbtorus/run.h"
#include "lbtorus/plot.h"
#include "lbtorus/latex.h"
#include "lbtorus/reproduce.h"
#include "lbtorus/search.h"
#include "lbtorus/heatmap.h"
#include "lbtorus/jsonl.h"
#include "lbtorus/sweep.h"
#include "lbtorus/bound.h"
#include "lbtorus/report.h"

#endif

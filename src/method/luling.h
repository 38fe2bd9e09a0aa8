/* luling.h — what the reproduce targets and the tests read of a
 * luling-monien run beyond its loads: the counters and the per-PE state. */
#ifndef LBTORUS_METHOD_LULING_H
#define LBTORUS_METHOD_LULING_H

#include "lbtorus/method.h"
#include "../../kernels/ref/luling.h"

/* st must hold an open luling-monien method. */
const lbt_luling_stats *lbt_luling_stats_of(const lbt_state *st);
lbt_luling *lbt_luling_of(lbt_state *st);

#endif

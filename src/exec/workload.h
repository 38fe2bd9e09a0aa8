/* workload.h — what the workload processes share (private to exec/):
 * workload.c (specs, cybenko, phases, generator) and tree.c (search trees). */
#ifndef LBTORUS_EXEC_WORKLOAD_H
#define LBTORUS_EXEC_WORKLOAD_H

#include "lbtorus/run.h"

/* A dense row-major copy of the method's load field: phases export the
 * field, work on PE i = its row-major index, and import it back. */
typedef struct {
	const lbt_field *f;
	void *buf;      /* int32_t[P], or double[P] for a real-valued method */
	int64_t P;
	int real;
} lbt_wl_dense;
int lbt_wl_dense_open(lbt_wl_dense *d, const lbt_state *st, lbt_err *e);

double lbt_wl_unit(uint64_t r); /* a uniform double in [0, 1) from 53 bits of r */

extern const lbt_workload lbt_wl_tree, lbt_wl_gw; /* tree.c */
/* Check the n numbers of a tree spec already in w->arg. */
int lbt_wl_tree_parse(lbt_workload *w, const char *spec, int n, lbt_err *e);

#endif

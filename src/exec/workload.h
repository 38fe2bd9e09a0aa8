/* workload.h — what the workload processes share (private to exec/):
 * workload.c (specs, cybenko, phases, generator) and tree.c (search trees). */
#ifndef LBTORUS_EXEC_WORKLOAD_H
#define LBTORUS_EXEC_WORKLOAD_H

#include "lbtorus/run.h"

/* The global row-major index of this rank's first PE (0 uncut): on a torus
 * cut into slabs (lbt_cut.slab) its PEs are first .. first + P - 1; a block
 * cut along several axes holds runs of them, one a row
 * (lbt_grid_row_global). */
int64_t lbt_wl_first(const lbt_grid *g);

/* The method's load field as a workload works on it in place, row by row
 * (the search trees: PE i = this rank's row-major index); on a cut torus
 * this rank's PEs, from global PE `first` on. */
typedef struct {
	const lbt_field *f;
	int64_t P;      /* PEs here */
	int64_t first;  /* the global row-major index of this rank's PE 0 */
} lbt_wl_dense;

/* The end of a phase: this rank's counters v (generated, completed, idle
 * capacity, then `extra` values of the phase's own) and its status. On a
 * torus cut between ranks (collective) the counters are first summed over
 * the ranks, exactly, and a failure on any rank becomes every rank's (the
 * lowest failing rank's status and message: its first failing PE is the
 * first in row-major order, as on one process). Then v's first three are
 * added to c. */
int lbt_wl_done(const lbt_state *st, int64_t *v, int extra, int status, lbt_work_counts *c, lbt_err *e);

double lbt_wl_unit(uint64_t r); /* a uniform double in [0, 1) from 53 bits of r */

/* The registry of workloads, in --help order: workload.c's table is made
 * from it. A workload is defined with LBT_WORKLOAD(name) = {...designated
 * initializers...}; one defined so but missing here fails to compile. */
#define LBT_WORKLOADS(X) \
	X(lbt_workload_none) X(lbt_workload_cybenko) X(lbt_workload_phases) X(lbt_workload_generator) /* workload.c */ \
	X(lbt_workload_tree) X(lbt_workload_gw)                                                         /* tree.c */
#define LBT_WORKLOAD_DECLARE(w) extern const lbt_workload w; enum { lbt_registered_##w = 1 };
LBT_WORKLOADS(LBT_WORKLOAD_DECLARE)
#undef LBT_WORKLOAD_DECLARE
#define LBT_WORKLOAD(w) \
	_Static_assert(lbt_registered_##w, #w " is not in LBT_WORKLOADS (src/exec/workload.h)"); \
	const lbt_workload w

/* LBT_EINVAL "workload 'SPEC': want", for a parse. */
int lbt_wl_bad(lbt_err *e, const char *spec, const char *want);
/* The numbers of a spec after its name (text), one per field of `form`
 * (the usage's names after the workload's: "B:DEPTH") into out. A field
 * named in `ints` ("B=1..1000000 DEPTH=0..2147483647") is an integer in
 * that range, read by lbt_parse_i64 (digits only, never through a double);
 * the others are real numbers. All go through the one number parser
 * (lbtorus/number.h). LBT_EINVAL with `want` when the count is wrong, with
 * the field's name, text and range when one is not a number of its kind. */
int lbt_wl_numbers(const char *spec, const char *text, const char *form, const char *ints, const char *want,
                   double *out, lbt_err *e);
/* lbt_workload_fits for a search tree: its first level, and a complete
 * tree's every level, within the 2^28 counts (levels x PEs) it may keep. */
int lbt_wl_tree_fits(const lbt_workload *w, const lbt_shape *s, lbt_err *e);

#endif

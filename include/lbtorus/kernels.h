/* kernels.h — the kernel layer: one substep or step of one method on plain
 * pointers, extents and strides. Kernels know nothing of files, options or
 * printing; they return counters. A table of function pointers per ISA. */
#ifndef LBTORUS_KERNELS_H
#define LBTORUS_KERNELS_H

#include <stdint.h>

/* What a kernel sees of a grid: the PE at the origin, extents and strides
 * (in int32 cells), which axes wrap, and how many threads it may use. Halo
 * cells at coordinates -2, -1, n, n+1 of every axis are addressable. */
typedef struct {
	int32_t *load;
	int dims;
	int64_t ext[8];
	int64_t stride[8];
	unsigned char torus[8]; /* 1: wrap-around, 0: open mesh boundary */
	int threads;            /* OpenMP threads the kernel may use (>= 1) */
} lbt_view;

/* Counters a kernel returns, for the step or substep it ran. */
typedef struct {
	int64_t moved;     /* load elements that crossed a link */
	int64_t shifts;    /* time in the paper's unit: transfer slots used */
	int has_stats;     /* 1 if the kernel also measured the state it left: */
	int32_t max, min;  /*   extremes over the PEs */
	int64_t total;     /*   sum over the PEs */
} lbt_counts;

/* The Liquid model's shift conditions C0..C5 (seed 000, Table 1). */
enum { LBT_C0, LBT_C1, LBT_C2, LBT_C3, LBT_C4, LBT_C5, LBT_NCOND };

/* One LM step: the D substeps of Definition 1, axis 0 first. Counts shifts
 * as 1 per substep of an axis with extent >= 2. Fills halos as it needs. */
typedef void (*lbt_lm_step_fn)(const lbt_view *v, int cond, lbt_counts *c);

/* The dispatch table. It starts filled with the scalar references; each ISA
 * target overwrites what it optimizes, so every entry is always valid. */
typedef struct {
	const char *isa;        /* "scalar", "sse41", "avx2", "avx512" */
	lbt_lm_step_fn lm_step;
} lbt_kernels;

/* Halo exchange for one axis: for a torus, copy the LBT_HALO layers at each
 * end from the opposite edge (a distributed version fills them from the
 * neighbouring rank instead). Mesh axes are left alone: kernels treat an open
 * boundary as "no neighbour" and never read those cells. */
void lbt_halo_fill(const lbt_view *v, int axis);

/* Scalar reference kernels (kernels/ref/). */
void lbt_ref_lm_substep(const lbt_view *v, int axis, int cond, lbt_counts *c);
void lbt_ref_lm_step(const lbt_view *v, int cond, lbt_counts *c);

/* The ISA targets compiled in, best last; NULL-terminated. */
const char *const *lbt_isa_compiled(void);
int lbt_isa_supported(const char *isa);  /* 1 if this CPU can run it */
/* Fill k for the named ISA ("auto" or NULL: LBTORUS_ISA if set, else the best
 * the CPU supports). Unknown or unsupported names are an error. */
int lbt_kernels_select(lbt_kernels *k, const char *isa, lbt_err *e);

#endif

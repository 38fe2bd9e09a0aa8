/* grid.h — the structure-of-arrays grid: one 64-byte aligned int32 array per
 * per-PE field, rows padded to whole vectors, and a halo of LBT_HALO cells on
 * each side of every axis, filled from the opposite edge for a torus. */
#ifndef LBTORUS_GRID_H
#define LBTORUS_GRID_H

#include <stdint.h>
#include <stdlib.h>

#include "lbtorus/shape.h"

#define LBT_HALO 2      /* halo width per side on every axis (stencils reach i-2..i+1) */
#define LBT_ALIGN 64    /* bytes: one cache line, one AVX-512 vector */
#define LBT_ROW_LEAD 16 /* int32 cells before a row's first PE, keeping PE 0 aligned */

/* aligned_alloc for any size: C11 wants the size a multiple of the alignment. */
static inline void *lbt_alloc_aligned(size_t bytes)
{
	return aligned_alloc(LBT_ALIGN, (bytes + LBT_ALIGN - 1) / LBT_ALIGN * LBT_ALIGN);
}

/* Layout, for shape (n0, ..., n_{D-1}):
 *   pitch  = stride[D-1 - 1] = round_up(LEAD + n_{D-1} + LBT_HALO, 16) cells;
 *   stride[d] = stride[d+1] * (n_{d+1} + 2*LBT_HALO) for outer axes;
 *   PE (i0..i_{D-1}) lives at load[sum_d i_d * stride[d]], halo cells at
 *   i_d in {-2, -1, n_d, n_d + 1}. Every row of the last axis starts 64B aligned. */
typedef struct {
	lbt_shape shape;
	int64_t stride[8];  /* cells per step along each axis; stride[D-1] = 1 */
	int64_t span[8];    /* cells per axis including halo (last axis: pitch) */
	int64_t cells;      /* cells allocated per field */
	int32_t *base;      /* the allocation (free this) */
	int32_t *load;      /* PE (0, ..., 0) */
	double *rbase;      /* the real-valued field's allocation, NULL if none */
	double *real;       /* real-valued load of PE (0, ..., 0): same cell offsets as load */
} lbt_grid;

int lbt_grid_init(lbt_grid *g, const lbt_shape *s, lbt_err *e); /* loads zeroed */
void lbt_grid_free(lbt_grid *g);
int64_t lbt_grid_offset(const lbt_grid *g, const int64_t *coord);
/* Copy between the grid and a dense row-major array of P values. */
void lbt_grid_export(const lbt_grid *g, int32_t *dense);
void lbt_grid_import(lbt_grid *g, const int32_t *dense);

/* Whole-grid statistics over the PEs (never the halo). Integer parts are exact. */
typedef struct {
	int32_t max, min;
	int64_t total;
	int64_t idle;   /* PEs holding no load */
	double stddev;  /* population standard deviation of the loads */
} lbt_stats;
void lbt_grid_stats(const lbt_grid *g, lbt_stats *st);

/* The real-valued field of the continuous methods: a second SoA array of
 * doubles with the same cell offsets (so the same strides, halo and 64-byte
 * aligned rows), allocated on demand and set to the integer loads. */
int lbt_grid_add_real(lbt_grid *g, lbt_err *e);
void lbt_grid_export_real(const lbt_grid *g, double *dense);
void lbt_grid_import_real(lbt_grid *g, const double *dense);
/* Statistics of the real field, summed in a fixed order (row by row, rows in
 * row-major order, one thread), so identical for every thread count.
 * stddev is two-pass: sqrt(sum (w_i - mean)^2 / P). */
typedef struct {
	double max, min, total, stddev;
	int64_t idle;   /* PEs whose load is exactly 0 */
} lbt_rstats;
void lbt_grid_rstats(const lbt_grid *g, lbt_rstats *st);



/* Copy all PEs of src into dst (same shape); the real field too if both have one. */
void lbt_grid_copy(lbt_grid *dst, const lbt_grid *src);
/* Row-major flat index of the first PE where a and b differ (bit for bit in
 * the real field too, if both have one), or -1. */
int64_t lbt_grid_first_diff(const lbt_grid *a, const lbt_grid *b);
/* "(3, 17)": the coordinates of flat index i. */
void lbt_shape_coords(const lbt_shape *s, int64_t i, char *buf, size_t n);

#endif

/* grid.h — the structure-of-arrays grid: one 64-byte aligned int32 array per
 * per-PE field, rows padded to whole vectors, and a halo of LBT_HALO cells on
 * each side of every axis with links, filled from the opposite edge for a
 * torus. */
#ifndef LBTORUS_GRID_H
#define LBTORUS_GRID_H

#include <stdint.h>
#include <stdlib.h>

#include "lbtorus/kernels.h" /* LBT_HALO, LBT_ALIGN: the layout a kernel view shows */
#include "lbtorus/shape.h"

/* Layout, for shape (n0, ..., n_{D-1}):
 *   pitch  = stride[D-1 - 1] = round_up(LEAD + n_{D-1} + LBT_HALO, 16) cells;
 *   outer axes: span[d] = n_d + 2*LBT_HALO (a cut axis of a rank's
 *   block: n_d + 2*cut->depth, lbtorus/kernels.h) and stride[d] = the product of
 *   span[e] over e > d (one layer of the axes inside d); but an outer axis
 *   of extent 1 in the whole torus (it has no links) has no halo: span[d] =
 *   1 and stride[d] = 0, so its neighbours read as the PE itself;
 *   PE (i0..i_{D-1}) lives at cell origin + sum_d i_d * stride[d] of every
 *   field, halo cells at i_d in {-2, -1, n_d, n_d + 1} of the other axes.
 *   Every row of the last axis starts 64B aligned (for fields of 4- and
 *   8-byte cells alike).
 *
 * The per-PE fields, by name: "load" (int32, always there: the integer
 * loads), "real" (float64: the loads of a real-valued method), and room for
 * more ("speed", a method's per-PE or per-link state), each its own aligned
 * allocation with the same cell offsets. Statistics, copies, comparisons
 * and dense export/import are written once over a field's type. */
typedef enum { LBT_I32, LBT_F64 } lbt_type;
#define LBT_MAX_FIELDS 8

typedef struct {
	const char *name;   /* a string with static storage: "load", "real", ... */
	lbt_type type;
	void *alloc;        /* the allocation (lbt_grid_free frees it) */
	void *pe0;          /* PE (0, ..., 0) */
} lbt_field;

typedef struct {
	lbt_shape shape;
	int64_t stride[8];  /* cells per step along each axis; stride[D-1] = 1 */
	int64_t span[8];    /* cells per axis including halo (last axis: pitch) */
	int64_t cells;      /* cells allocated per field */
	int64_t origin;     /* the cell of PE (0, ..., 0) in every field */
	int nfields;
	lbt_field field[LBT_MAX_FIELDS];
	int32_t *load;      /* field "load" at PE (0, ..., 0) */
	double *real;       /* field "real" at PE (0, ..., 0), NULL until added */
	/* A grid may be one rank's block of a torus cut between ranks
	 * (lbtorus/comm.h): then `shape` is the block's, `whole` the torus's and
	 * `cut` says where the block lies; else whole = shape and cut = NULL. */
	lbt_shape whole;
	lbt_cut *cut;
} lbt_grid;

int lbt_grid_init(lbt_grid *g, const lbt_shape *s, lbt_err *e); /* with "load", zeroed */
/* This rank's block of the torus `whole` cut between all ranks on the grid
 * of ranks `ranks` (whole.dims entries; NULL: chosen, lbtorus/comm.h), with
 * room for the partial sums of real-valued loads if `real` and a halo for
 * `steps` steps between exchanges (lbt_cut.depth; collective; on one rank,
 * a cut of one slab: the distributed code paths on one process). */
int lbt_grid_init_cut(lbt_grid *g, const lbt_shape *whole, const int *ranks, int real, int steps, lbt_err *e);
/* The global coordinate on axis d of the grid's local coordinate 0. */
int64_t lbt_grid_lo(const lbt_grid *g, int d);
/* The whole torus's row-major flat index of the first PE of the grid's row
 * r (0 <= r < P / n_last, in the grid's own row-major order). */
int64_t lbt_grid_row_global(const lbt_grid *g, int64_t r);
/* The cells one field of a grid of shape s takes (halos and padding
 * included), without allocating; -1 for a shape lbt_shape_check refuses. */
int64_t lbt_grid_cells(const lbt_shape *s);
/* The same for the block of a valid shape `whole` that `cut` holds (its
 * cut axis's halo as deep as the cut says). */
int64_t lbt_grid_block_cells(const lbt_shape *whole, const lbt_cut *cut);
void lbt_grid_free(lbt_grid *g);
/* Add a zeroed field (LBT_OK if g has one of that name and type already). */
int lbt_grid_add_field(lbt_grid *g, const char *name, lbt_type t, lbt_err *e);
const lbt_field *lbt_grid_field(const lbt_grid *g, const char *name); /* NULL if none */
/* The field "real", set to the integer loads (the continuous methods' start). */
int lbt_grid_add_real(lbt_grid *g, lbt_err *e);
int64_t lbt_grid_offset(const lbt_grid *g, const int64_t *coord);
size_t lbt_type_size(lbt_type t);
/* Copy a field between the grid and a dense row-major array of P cells of its type. */
void lbt_field_export(const lbt_grid *g, const lbt_field *f, void *dense);
void lbt_field_import(lbt_grid *g, const lbt_field *f, const void *dense);
/* The same for rows r0 .. r1-1 of the last axis (in row-major order) from
 * dense, which holds just those rows. */
void lbt_field_import_rows(lbt_grid *g, const lbt_field *f, const void *dense, int64_t r0, int64_t r1);
/* The first PE of row r (0 <= r < P / n_last, row-major) of field f. */
void *lbt_field_row(const lbt_grid *g, const lbt_field *f, int64_t r);
/* The same for the field "load". */
void lbt_grid_export(const lbt_grid *g, int32_t *dense);
void lbt_grid_import(lbt_grid *g, const int32_t *dense);

/* Every rank's part of a field in one dense row-major array of the whole
 * torus on rank 0 (collective; dense: room for whole's PEs on rank 0, may
 * be NULL elsewhere). Without a cut: lbt_field_export. */
int lbt_field_gather(const lbt_grid *g, const lbt_field *f, void *dense, lbt_err *e);

/* Whole-field statistics over the PEs (never the halo), the same bits for
 * any thread count and, on a cut grid (collective), any rank count:
 * integer fields in exact integer sums, real fields row by row with the
 * rows' sums added in global row order (stddev two-pass). */
typedef struct {
	double max, min;  /* exact for int32 */
	int64_t total;    /* integer fields: exact; real fields: rtotal rounded */
	double rtotal;    /* the total as a double */
	int64_t idle;     /* PEs holding exactly 0 */
	double stddev;    /* population standard deviation */
} lbt_stats;
void lbt_field_stats(const lbt_grid *g, const lbt_field *f, int threads, lbt_stats *st);
void lbt_grid_stats(const lbt_grid *g, lbt_stats *st); /* of "load", one thread */
/* The stddev lbt_field_stats gives P integer loads of this total whose
 * squares sum to sq_hi 2^32 + sq_lo, bit for bit. */
double lbt_int_stddev(uint64_t sq_hi, uint64_t sq_lo, int64_t total, int64_t P);

/* Copy every field src and dst both have (same shape), PEs only. */
void lbt_grid_copy(lbt_grid *dst, const lbt_grid *src);
/* Row-major flat index of the first PE where a and b differ, bit for bit,
 * in any field both have, or -1. */
int64_t lbt_grid_first_diff(const lbt_grid *a, const lbt_grid *b);
/* "(3, 17)": the coordinates of flat index i. */
void lbt_shape_coords(const lbt_shape *s, int64_t i, char *buf, size_t n);

#endif

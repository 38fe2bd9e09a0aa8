/* shape.h — torus geometry: extents written as NumPy writes them, and the
 * boundary (torus or mesh) of each dimension.
 * Axis 0 is the paper's dimension d = 1; the last axis is contiguous. */
#ifndef LBTORUS_SHAPE_H
#define LBTORUS_SHAPE_H

#include <stddef.h>
#include <stdint.h>

#include "lbtorus/status.h"

typedef enum { LBT_TORUS = 0, LBT_MESH = 1 } lbt_boundary;

#define LBT_MAXD 8 /* most dimensions a torus may have */
#define LBT_MAX_PES ((int64_t)1 << 36) /* 64 Gi PEs: far beyond one machine */

typedef struct {
	int dims;                      /* D, 1..LBT_MAXD */
	int64_t ext[8];                /* extents, axis 0 first */
	lbt_boundary bnd[8];           /* per axis */
} lbt_shape;

/* "64x128" (also "64X128" or "64×128"); every extent >= 1. A comma is refused, naming the
 * x spelling: it separates the shapes of a list. Boundaries default to torus. */
int lbt_shape_parse(lbt_shape *s, const char *text, lbt_err *e);
/* "torus", "mesh", or one word per axis: "torus/mesh" (also "torus,mesh", as
 * records write it: a sweep splits its lists at commas before this). */
int lbt_boundary_parse(lbt_shape *s, const char *text, lbt_err *e);
/* Every shape a run may have: 1..LBT_MAXD axes, extents >= 1, at most
 * LBT_MAX_PES PEs. --shape and a .npy header are both held to it; what
 * names the shape in the message ("shape '8x0'", "F.npy: shape"). */
int lbt_shape_check(const lbt_shape *s, const char *what, lbt_err *e);
/* The number of PEs; -1 when an extent is below 1 or the product overflows int64. */
int64_t lbt_shape_pes(const lbt_shape *s);
/* Axes with extent >= 2: only they have links. An extent-1 axis has no
 * substep, costs no shift and does not count in D (so 1x8 is the ring of 8). */
int lbt_shape_active_dims(const lbt_shape *s);
int64_t lbt_shape_kmax(const lbt_shape *s); /* K: the largest extent */
void lbt_shape_format(const lbt_shape *s, char *buf, size_t n);    /* "128x128" */
void lbt_boundary_format(const lbt_shape *s, char *buf, size_t n); /* "torus" or "torus,mesh" */

#endif

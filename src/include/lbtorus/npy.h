/* npy.h — NumPy .npy files (format 1.0, 2.0, 3.0), C order: int32 or
 * int64 loads, and float32 or float64 for real-valued methods. The reader
 * takes exactly what NumPy writes; anything else is refused with a message. */
#ifndef LBTORUS_NPY_H
#define LBTORUS_NPY_H

#include <stdint.h>
#include <stdio.h>

#include "lbtorus/grid.h"
#include "lbtorus/io.h"
#include "lbtorus/shape.h"

/* What a header says: the shape (held to lbt_shape_check's limits), the
 * element type, where the data starts. */
typedef struct {
	lbt_shape shape;
	int real;       /* 1: float32/float64 ('<f4', '<f8'); 0: int32/int64 ('<i4', '<i8') */
	int elem;       /* bytes per value: 4 or 8 */
	int64_t offset; /* the data's first byte */
} lbt_npy_info;

/* Read and check the header (and, for a regular file, its size). */
int lbt_npy_info_read(const char *path, lbt_npy_info *info, lbt_err *e);
/* The same, read by rank 0 alone and sent to every rank if `all`
 * (collective: a torus cut between ranks); else lbt_npy_info_read. */
int lbt_npy_info_read_all(const char *path, lbt_npy_info *info, int all, lbt_err *e);
/* lbt_npy_info_read_all, and the array's shape must be `want` (else
 * "PATH has shape A but the torus is B"). */
int lbt_npy_info_read_shaped(const char *path, const lbt_shape *want, lbt_npy_info *info, int all, lbt_err *e);
/* Read a little-endian int32 or int64 array whose shape must equal `want`
 * exactly; values converted to int32 (out of range: LBT_ERANGE). out holds P values. */
int lbt_npy_read(const char *path, const lbt_shape *want, int32_t *out, lbt_err *e);
/* Read any of the four dtypes as doubles, finite values only (NaN, Inf: LBT_EINVAL). */
int lbt_npy_read_real(const char *path, const lbt_shape *want, double *out, lbt_err *e);
/* Read the values of a file of shape `want` in pieces, in flat order:
 * piece(ctx, first, n, iv, dv) for the values first .. first+n-1,
 * converted as lbt_npy_read does (iv: int32, an integer file) or as
 * lbt_npy_read_real does (dv: a real file); a non-zero return stops. */
int lbt_npy_read_pieces(const char *path, const lbt_shape *want, int (*piece)(void *ctx, int64_t first, int64_t n,
                        const int32_t *iv, const double *dv), void *ctx, lbt_err *e);
/* Read only the header: dims and extents (for `--init file:` without `--shape`). */
int lbt_npy_shape(const char *path, lbt_shape *s, lbt_err *e);
/* Write P int32 values with the given shape, atomically (temp file + rename). */
int lbt_npy_write(const char *path, const lbt_shape *s, const int32_t *data, lbt_err *e);

/* Write the .npy bytes to an open stream (for callers managing the file). */
int lbt_npy_write_file(FILE *f, const lbt_shape *s, const int32_t *data);

/* Field f of a grid as .npy (int32, or float64 for a real field) into the
 * output o, opened by lbt_out_open (on a cut grid by rank 0, NULL on the
 * other ranks; the caller commits it). Collective on a cut grid: rank 0
 * writes the header, then every rank writes its own block into rank 0's
 * temporary file at its offsets (MPI-IO), in pieces: no rank holds the
 * whole torus. A device, FIFO or stdout, which cannot be written at
 * offsets, gets the field gathered on rank 0 instead. path: for messages. */
int lbt_npy_dump(lbt_outfile *o, const char *path, const lbt_grid *g, const lbt_field *f, lbt_err *e);

#endif

/* npy.h — NumPy .npy files (format 1.0-3.0): int32 or int64, C order. */
#ifndef LBTORUS_NPY_H
#define LBTORUS_NPY_H

#include <stdint.h>
#include <stdio.h>

#include "lbtorus/shape.h"

/* Read a little-endian int32 or int64 array whose shape must equal `want`
 * exactly; values converted to int32 (out of range: LBT_ERANGE). out holds P values. */
int lbt_npy_read(const char *path, const lbt_shape *want, int32_t *out, lbt_err *e);
/* Read only the header: dims and extents (for `--init file:` without `--shape`). */
int lbt_npy_shape(const char *path, lbt_shape *s, lbt_err *e);
/* Write P int32 values with the given shape, atomically (temp file + rename). */
int lbt_npy_write(const char *path, const lbt_shape *s, const int32_t *data, lbt_err *e);

/* Write the .npy bytes to an open stream (for callers managing the file). */
int lbt_npy_write_file(FILE *f, const lbt_shape *s, const int32_t *data);
/* The same for P doubles ('<f8'): the real-valued loads of fos, de, ca. */
int lbt_npy_write_real_file(FILE *f, const lbt_shape *s, const double *data);

#endif

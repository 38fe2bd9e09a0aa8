/* npy_stream.h — the .npy reader on an open stream (private: the fuzz
 * target feeds it memory through fmemopen), and the pieces the readers and
 * writers of a block of a torus cut between ranks share (npy_block.c). */
#ifndef LBTORUS_CORE_NPY_STREAM_H
#define LBTORUS_CORE_NPY_STREAM_H

#include <stdio.h>

#include "lbtorus/grid.h"
#include "lbtorus/npy.h"

/* Parse the magic, version and header dict; size is the stream's length in
 * bytes (checked against the header: truncated or trailing data refused),
 * or -1 when unknown. name is used in messages. */
int lbt_npy_fparse(FILE *f, const char *name, int64_t size, lbt_npy_info *h, lbt_err *e);
/* Read the P values that follow into iout (int32; integer files only) or
 * dout (double; any dtype, finite values only); then the stream must end. */
int lbt_npy_fdata(FILE *f, const char *name, const lbt_npy_info *h, int32_t *iout, double *dout, lbt_err *e);

/* Convert n raw values of the file's dtype (h->elem bytes each, the flat
 * indices first .. first+n-1, for messages) as lbt_npy_fdata does: into
 * iout (int32, integer files only, each within int32) or dout (finite). */
int lbt_npy_convert(const char *name, const lbt_npy_info *h, const void *raw, int64_t first, int64_t n, int32_t *iout,
                    double *dout, lbt_err *e);
/* The header lbtorus writes for shape s and dtype descr ("<i4", "<f8") into
 * buf (LBT_NPY_HEADER_MAX bytes): its length, a multiple of 64, where the data starts. */
#define LBT_NPY_HEADER_MAX 640
int lbt_npy_header(char *buf, const lbt_shape *s, const char *descr);

/* Read this grid's block of the file `path` (header h) into its field f:
 * int32 (integer files) or float64, converted and checked as
 * lbt_npy_convert does, only the block's PEs read (this rank alone). */
int lbt_npy_read_block(const char *path, const lbt_npy_info *h, lbt_grid *g, const lbt_field *f, lbt_err *e);

#endif

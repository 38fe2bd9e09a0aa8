/* npy_stream.h — the .npy reader on an open stream (private: the fuzz
 * target feeds it memory through fmemopen). */
#ifndef LBTORUS_CORE_NPY_STREAM_H
#define LBTORUS_CORE_NPY_STREAM_H

#include <stdio.h>

#include "lbtorus/npy.h"

/* Parse the magic, version and header dict; size is the stream's length in
 * bytes (checked against the header: truncated or trailing data refused),
 * or -1 when unknown. name is used in messages. */
int lbt_npy_fparse(FILE *f, const char *name, int64_t size, lbt_npy_info *h, lbt_err *e);
/* Read the P values that follow into iout (int32; integer files only) or
 * dout (double; any dtype, finite values only); then the stream must end. */
int lbt_npy_fdata(FILE *f, const char *name, const lbt_npy_info *h, int32_t *iout, double *dout, lbt_err *e);

#endif

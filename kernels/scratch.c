/* scratch.c — the memory kernels work in, allocated once per run by the
 * caller (a method's open) so that a step never allocates and never has to
 * fail. See lbt_scratch in kernels.h. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "lbtorus/kernels.h"

/* Fibers of the last axis and a row buffer's cells, for extents ext[0..dims-1]. */
static int64_t fibers(int dims, const int64_t *ext)
{
	int64_t rows = 1;
	for (int d = 0; d < dims - 1; d++)
		rows *= ext[d];
	return rows;
}
static int64_t row_cells(int dims, const int64_t *ext) { return 4 * ((ext[dims - 1] + 256 + 7) / 8 * 8); } /* four rows, whole cache lines */

double lbt_scratch_bytes(int dims, const int64_t *ext, int64_t cells, int threads)
{
	threads = threads > 0 ? threads : 1;
	return ((double)dims * (double)cells + 2 * (double)fibers(dims, ext) + (double)threads * (double)row_cells(dims, ext)) * 8;
}

int lbt_scratch_open(lbt_scratch *s, const lbt_view *v, int64_t cells, int64_t origin)
{
	memset(s, 0, sizeof *s);
	const int64_t rows = fibers(v->dims, v->ext);
	s->origin = origin;
	s->cells = cells;
	s->threads = v->threads > 0 ? v->threads : 1;
	s->row_cells = row_cells(v->dims, v->ext); /* rows stay 64-byte aligned */
	int ok = 1;
	for (int d = 0; d < v->dims; d++)
		ok &= (s->link[d] = lbt_alloc_aligned((size_t)cells * 8)) != NULL;
	ok &= (s->rowsum = malloc((size_t)rows * 2 * sizeof *s->rowsum)) != NULL;
	ok &= (s->rows = lbt_alloc_aligned((size_t)s->threads * (size_t)s->row_cells * 8)) != NULL;
	if (!ok) {
		lbt_scratch_close(s);
		return LBT_ENOMEM;
	}
	for (int d = 0; d < v->dims; d++) /* cells a kernel never writes (halo, padding) read as 0 */
		memset(s->link[d], 0, (size_t)cells * 8);
	return LBT_OK;
}

void lbt_scratch_close(lbt_scratch *s)
{
	for (int d = 0; d < 8; d++)
		free(s->link[d]);
	free(s->rowsum);
	free(s->rows);
	memset(s, 0, sizeof *s);
}

/* scratch.c — the memory kernels work in, allocated once per run by the
 * caller (a method's open) so that a step never allocates and never has to
 * fail. See lbt_scratch in kernels.h. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "lbtorus/kernels.h"

int lbt_scratch_open(lbt_scratch *s, const lbt_view *v, int64_t cells, int64_t origin)
{
	memset(s, 0, sizeof *s);
	const int last = v->dims - 1;
	int64_t rows = 1;
	for (int d = 0; d < last; d++)
		rows *= v->ext[d];
	s->origin = origin;
	s->cells = cells;
	s->threads = v->threads > 0 ? v->threads : 1;
	s->row_cells = (v->ext[last] + 256 + 7) / 8 * 8; /* whole cache lines: rows stay 64-byte aligned */
	int ok = 1;
	for (int d = 0; d < v->dims; d++)
		ok &= (s->link[d] = lbt_alloc_aligned((size_t)cells * 8)) != NULL;
	ok &= (s->rowsum = malloc((size_t)rows * sizeof *s->rowsum)) != NULL;
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

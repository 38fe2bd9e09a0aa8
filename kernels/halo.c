/* halo.c — the halo exchange of one axis, from the opposite edge of a torus,
 * or, on an axis a cut view shares with other ranks, from the neighbouring
 * blocks through the communication layer's fill (lbtorus/comm.h). */
#include <string.h>

#include "fiber.h"

void lbt_halo_fill(const lbt_view *v, int axis)
{
	if (v->cut && v->cut->on[axis]) {
		v->cut->fill(v, v->cut, axis, LBT_HALO);
		return;
	}
	if (!v->torus[axis] || v->ext[axis] < 2)
		return; /* a mesh's halo is never read; an axis of extent 1 has none (stride 0: the PE itself) */
	const int64_t n = v->ext[axis], s = v->stride[axis];
	const int last = v->dims - 1;
	if (axis == last) { /* four cells at the ends of every row */
		const int64_t rows = lbt_fiber_count(v, last);
#pragma omp parallel for schedule(static) num_threads(v->threads) if (rows > 4096)
		for (int64_t r = 0; r < rows; r++) {
			int32_t *p = lbt_fiber_base(v, last, r);
			for (int h = 1; h <= LBT_HALO; h++) {
				p[-h] = p[lbt_wrap(-h, n)];
				p[n - 1 + h] = p[lbt_wrap(n - 1 + h, n)];
			}
		}
		return;
	}
	/* An outer axis: halo cells are whole rows; copy the rows' PEs. Fibers of
	 * `axis` that share a row are visited once, through their row's first PE. */
	const int64_t row = v->ext[last], lines = lbt_fiber_count(v, axis) / row;
	lbt_view rows = *v; /* the same grid seen with the last axis collapsed */
	rows.ext[last] = 1;
#pragma omp parallel for schedule(static) num_threads(v->threads) if (lines * row > 65536)
	for (int64_t r = 0; r < lines; r++) {
		int32_t *p = lbt_fiber_base(&rows, axis, r);
		for (int h = 1; h <= LBT_HALO; h++) {
			memcpy(p - h * s, p + lbt_wrap(-h, n) * s, (size_t)row * sizeof *p);
			memcpy(p + (n - 1 + h) * s, p + lbt_wrap(n - 1 + h, n) * s, (size_t)row * sizeof *p);
		}
	}
}

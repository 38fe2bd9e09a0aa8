/* fiber.h — walking the 1-D fibers of a view along one axis, shared by the
 * halo exchange and the kernels. A fiber is the line of PEs that differ only
 * in their coordinate on `axis`; there are P / ext[axis] of them. */
#ifndef LBTORUS_FIBER_H
#define LBTORUS_FIBER_H

#include "lbtorus/kernels.h"
#include "internal.h" /* LBT_ROW_LEAD, lbt_alloc_aligned, the references */

static inline int64_t lbt_fiber_count(const lbt_view *v, int axis)
{
	int64_t n = 1;
	for (int d = 0; d < v->dims; d++)
		if (d != axis)
			n *= v->ext[d];
	return n;
}

/* The PE at coordinate 0 on `axis` of fiber r, other axes in row-major order. */
static inline int32_t *lbt_fiber_base(const lbt_view *v, int axis, int64_t r)
{
	int64_t off = 0;
	for (int d = v->dims - 1; d >= 0; d--) {
		if (d == axis)
			continue;
		off += (r % v->ext[d]) * v->stride[d];
		r /= v->ext[d];
	}
	return v->load + off;
}

static inline int64_t lbt_wrap(int64_t i, int64_t n) { return ((i % n) + n) % n; }

/* Dimension exchange's edge colouring of one axis (kernels/ref/de.c): the
 * colour of link (i, i+1 mod n), each colour a matching, or -1 if there is no
 * such link (extent 1, a mesh's end, the single link of extent 2). */
static inline int lbt_de_color(int64_t i, int64_t n, int torus)
{
	if (n < 2)
		return -1;
	if (i < n - 1)
		return (int)(i & 1);
	if (!torus || n == 2)
		return -1;
	return n % 2 ? 2 : 1;
}

#endif

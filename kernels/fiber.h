/* fiber.h — walking the 1-D fibers of a view along one axis, shared by the
 * halo exchange and the kernels. A fiber is the line of PEs that differ only
 * in their coordinate on `axis`; there are P / ext[axis] of them. */
#ifndef LBTORUS_FIBER_H
#define LBTORUS_FIBER_H

#include "lbtorus/lbtorus.h"

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

#endif

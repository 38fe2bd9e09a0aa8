/* links.h — the links of a torus or mesh as the all-links-at-once methods
 * (NNA, diffusion) see them: a dense row-major copy of the state taken before
 * a step, each PE's neighbours and its degree |Δ(i)|.
 *
 * One link joins i and i+1_d. On a torus axis of extent n >= 3 the last PE
 * links to the first; an axis of extent 2 has ONE link (0, 1) — its two
 * neighbours are the same PE, as in Cybenko's hypercube — and an axis of
 * extent 1 none. On a mesh axis the ends have one neighbour on that axis.
 * (The Liquid model differs: it keeps two links for K = 2, see README.) */
#ifndef LBTORUS_REF_LINKS_H
#define LBTORUS_REF_LINKS_H

#include <stdlib.h>
#include <string.h>

#include "../fiber.h"

typedef struct {
	const lbt_view *v;
	int D;
	int64_t P, n[8], ds[8];  /* extents and dense row-major strides */
	unsigned char torus[8];
} lbt_links;

static inline void lbt_links_init(lbt_links *g, const lbt_view *v)
{
	g->v = v;
	g->D = v->dims;
	g->P = 1;
	for (int d = g->D - 1; d >= 0; d--) {
		g->n[d] = v->ext[d];
		g->torus[d] = v->torus[d];
		g->ds[d] = g->P;
		g->P *= v->ext[d];
	}
}

/* Has the PE at coordinate c on axis d a link to c+1 (mod n)? to c-1? */
static inline int lbt_link_right(const lbt_links *g, int d, int64_t c)
{
	return g->n[d] >= 2 && (c < g->n[d] - 1 || (g->torus[d] && g->n[d] > 2));
}
static inline int lbt_link_left(const lbt_links *g, int d, int64_t c)
{
	return g->n[d] >= 2 && (c > 0 || (g->torus[d] && g->n[d] > 2));
}
/* Dense index of the neighbour i+1_d / i-1_d (with wrap-around). */
static inline int64_t lbt_right_of(const lbt_links *g, int d, int64_t i, int64_t c)
{
	return c < g->n[d] - 1 ? i + g->ds[d] : i - (g->n[d] - 1) * g->ds[d];
}
static inline int64_t lbt_left_of(const lbt_links *g, int d, int64_t i, int64_t c)
{
	return c > 0 ? i - g->ds[d] : i + (g->n[d] - 1) * g->ds[d];
}
/* Links of coordinate c on axis d, and |Δ(i)| of the PE at coordinates c. */
static inline int lbt_axis_degree(const lbt_links *g, int d, int64_t c)
{
	return lbt_link_right(g, d, c) + lbt_link_left(g, d, c);
}
static inline int lbt_degree(const lbt_links *g, const int64_t *c)
{
	int deg = 0;
	for (int d = 0; d < g->D; d++)
		deg += lbt_axis_degree(g, d, c[d]);
	return deg;
}
/* The degree of the neighbour of c at coordinate c[d] + delta on axis d. */
static inline int lbt_degree_next(const lbt_links *g, const int64_t *c, int deg, int d, int delta)
{
	return deg - lbt_axis_degree(g, d, c[d]) + lbt_axis_degree(g, d, lbt_wrap(c[d] + delta, g->n[d]));
}
/* Row-major odometer: the coordinates of PE i+1. */
static inline void lbt_coord_next(const lbt_links *g, int64_t *c)
{
	for (int d = g->D - 1; d >= 0; d--) {
		if (++c[d] < g->n[d])
			return;
		c[d] = 0;
	}
}

/* Dense copies in and out of the grid the view points at. */
static inline void lbt_gather(const lbt_links *g, int64_t *dense)
{
	const int last = g->D - 1;
	const int64_t n = g->n[last];
	for (int64_t r = 0; r < g->P / n; r++) {
		const int32_t *p = lbt_fiber_base(g->v, last, r);
		for (int64_t i = 0; i < n; i++)
			dense[r * n + i] = p[i];
	}
}
static inline void lbt_scatter(const lbt_links *g, const int64_t *dense)
{
	const int last = g->D - 1;
	const int64_t n = g->n[last];
	for (int64_t r = 0; r < g->P / n; r++) {
		int32_t *p = lbt_fiber_base(g->v, last, r);
		for (int64_t i = 0; i < n; i++)
			p[i] = (int32_t)dense[r * n + i];
	}
}
static inline void lbt_gather_real(const lbt_links *g, double *dense)
{
	const int last = g->D - 1;
	const int64_t n = g->n[last];
	for (int64_t r = 0; r < g->P / n; r++)
		memcpy(dense + r * n, g->v->real + (lbt_fiber_base(g->v, last, r) - g->v->load), (size_t)n * sizeof *dense);
}
static inline void lbt_scatter_real(const lbt_links *g, const double *dense)
{
	const int last = g->D - 1;
	const int64_t n = g->n[last];
	for (int64_t r = 0; r < g->P / n; r++)
		memcpy(g->v->real + (lbt_fiber_base(g->v, last, r) - g->v->load), dense + r * n, (size_t)n * sizeof *dense);
}

/* The references allocate a step's scratch (O(D*P)) before touching the
 * grid; if any of a, b, n is missing they free the others, leave the grid
 * as it was and say so in c->nomem (the engine turns that into an error). */
static inline int lbt_ref_nomem(lbt_counts *c, void *a, void *b, void *n)
{
	if (a && b && n)
		return 0;
	free(a);
	free(b);
	free(n);
	c->nomem = 1;
	return 1;
}

/* Seed 002 eq. (2) with integer flows, for every all-links method: F[d*P + i]
 * is the net amount P_i sends to P_{i+1_d} (negative: receives). Writes
 * L_i - sum_d F[d,i] + sum_d F[d,i-1_d] back to the grid and counts moved
 * elements, shifts (per axis and direction the largest amount on one link,
 * summed: seed 000 §5's time) and the largest amount on any one link. */
static inline void lbt_apply_flows(const lbt_links *g, const int64_t *L, const int64_t *F, int64_t *N, lbt_counts *c)
{
	const int D = g->D;
	const int64_t P = g->P;
	int64_t moved = 0, shifts = 0, link_max = 0;
	for (int d = 0; d < D; d++) {
		int64_t right = 0, left = 0; /* largest amount on one link, per direction */
		for (int64_t i = 0; i < P; i++) {
			int64_t f = F[d * P + i];
			moved += f > 0 ? f : -f;
			right = f > right ? f : right;
			left = -f > left ? -f : left;
		}
		shifts += right + left;
		link_max = right > link_max ? right : link_max;
		link_max = left > link_max ? left : link_max;
	}
	int64_t coord[8] = {0};
	for (int64_t i = 0; i < P; i++, lbt_coord_next(g, coord)) {
		N[i] = L[i];
		for (int d = 0; d < D; d++) {
			N[i] -= F[d * P + i];       /* to (or, if negative, from) i+1_d */
			if (lbt_link_left(g, d, coord[d]))
				N[i] += F[d * P + lbt_left_of(g, d, i, coord[d])]; /* from i-1_d */
		}
	}
	lbt_scatter(g, N);
	c->moved += moved;
	c->shifts += shifts;
	c->link_max = (double)link_max > c->link_max ? (double)link_max : c->link_max;
}

#endif

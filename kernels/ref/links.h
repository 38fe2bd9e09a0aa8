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

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../fiber.h"

typedef struct {
	const lbt_view *v;
	lbt_view hv;             /* what the dense copies hold: v, its cut axes widened by the halo */
	int D, cut;              /* cut: the view is shared with other ranks (lbt_cut) */
	unsigned char on[8];     /* on a cut view, the cut axes */
	int64_t P, n[8], ds[8];  /* extents and dense row-major strides (of hv) */
	int64_t N[8], lo[8];     /* global extents; global coordinate of dense 0 on each cut axis */
	unsigned char torus[8];
} lbt_links;

/* On a cut view the dense copies span the cut axes' halo too (dense
 * coordinates 0 .. n+3 for local -2 .. n+1, filled here from the
 * neighbouring ranks, axis after axis, so that the corners are the
 * diagonal neighbours'): a PE's flows are computed wherever its neighbours
 * are in the copy (dense 1 .. n+2 on every cut axis), which covers every
 * flow into the PEs this rank holds (dense 2 .. n+1); links are counted for
 * held PEs only. */
static inline void lbt_links_init(lbt_links *g, const lbt_view *v)
{
	g->v = v;
	g->hv = *v;
	g->D = v->dims;
	g->cut = v->cut != NULL;
	for (int a = 0; a < g->D; a++) {
		g->on[a] = lbt_cut_on(v, a);
		g->lo[a] = 0;
		if (!g->on[a])
			continue;
		lbt_halo_fill(v, a);
		g->hv.load -= LBT_HALO * v->stride[a];
		g->hv.real = v->real ? g->hv.real - LBT_HALO * v->stride[a] : NULL;
		g->hv.ext[a] += 2 * LBT_HALO;
		g->lo[a] = v->origin[a] - LBT_HALO;
	}
	g->P = 1;
	for (int d = g->D - 1; d >= 0; d--) {
		g->n[d] = g->hv.ext[d];
		g->N[d] = lbt_gext(v, d);
		g->torus[d] = v->torus[d];
		g->ds[d] = g->P;
		g->P *= g->n[d];
	}
}

/* The global coordinate of dense coordinate c on axis d (see lbt_gcoord). */
static inline int64_t lbt_links_g(const lbt_links *g, int d, int64_t c)
{
	if (!g->on[d])
		return c;
	int64_t x = g->lo[d] + c;
	return g->torus[d] ? lbt_wrap(x, g->N[d]) : x;
}
/* Dense coordinates c: are P's neighbours in the copy (its flows computable)?
 * Is P held by this rank (its links counted, its load written back)? */
static inline int lbt_links_computable(const lbt_links *g, const int64_t *c)
{
	for (int d = 0; g->cut && d < g->D; d++)
		if (g->on[d] && (c[d] < 1 || c[d] > g->n[d] - 2))
			return 0;
	return 1;
}
static inline int lbt_links_held(const lbt_links *g, const int64_t *c)
{
	for (int d = 0; g->cut && d < g->D; d++)
		if (g->on[d] && (c[d] < LBT_HALO || c[d] >= g->n[d] - LBT_HALO))
			return 0;
	return 1;
}

/* Has the PE at dense coordinate c on axis d a link to c+1 (mod n)? to c-1? */
static inline int lbt_link_right(const lbt_links *g, int d, int64_t c)
{
	c = lbt_links_g(g, d, c);
	return g->N[d] >= 2 && (c < g->N[d] - 1 || (g->torus[d] && g->N[d] > 2));
}
static inline int lbt_link_left(const lbt_links *g, int d, int64_t c)
{
	c = lbt_links_g(g, d, c);
	return g->N[d] >= 2 && (c > 0 || (g->torus[d] && g->N[d] > 2));
}
/* Dense index of the neighbour i+1_d / i-1_d (with wrap-around; on a cut
 * axis the neighbour is the next cell of the copy: c is computable there). */
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
	int64_t next = g->on[d] ? c[d] + delta : lbt_wrap(c[d] + delta, g->n[d]);
	return deg - lbt_axis_degree(g, d, c[d]) + lbt_axis_degree(g, d, next);
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

/* Dense copies in and out of the grid the view points at: in, everything
 * the copy spans; out, the PEs this rank holds, row by row of the view's
 * last axis (lbt_links_row: the dense index of row r's first PE). */
static inline int64_t lbt_links_row(const lbt_links *g, int64_t r)
{
	const lbt_view *v = g->v;
	int64_t at = g->on[g->D - 1] ? LBT_HALO : 0;
	for (int d = g->D - 2; d >= 0; d--) {
		at += (r % v->ext[d] + (g->on[d] ? LBT_HALO : 0)) * g->ds[d];
		r /= v->ext[d];
	}
	return at;
}
static inline void lbt_gather(const lbt_links *g, int64_t *dense)
{
	const int last = g->D - 1;
	const int64_t n = g->n[last];
	for (int64_t r = 0; r < g->P / n; r++) {
		const int32_t *p = lbt_fiber_base(&g->hv, last, r);
		for (int64_t i = 0; i < n; i++)
			dense[r * n + i] = p[i];
	}
}
static inline void lbt_scatter(const lbt_links *g, const int64_t *dense)
{
	const int last = g->D - 1;
	const int64_t n = g->v->ext[last], rows = lbt_fiber_count(g->v, last);
	for (int64_t r = 0; r < rows; r++) {
		int32_t *p = lbt_fiber_base(g->v, last, r);
		const int64_t *q = dense + lbt_links_row(g, r);
		for (int64_t i = 0; i < n; i++)
			p[i] = (int32_t)q[i];
	}
}
static inline void lbt_gather_real(const lbt_links *g, double *dense)
{
	const int last = g->D - 1;
	const int64_t n = g->n[last];
	for (int64_t r = 0; r < g->P / n; r++)
		memcpy(dense + r * n, g->hv.real + (lbt_fiber_base(&g->hv, last, r) - g->hv.load), (size_t)n * sizeof *dense);
}
static inline void lbt_scatter_real(const lbt_links *g, const double *dense)
{
	const int last = g->D - 1;
	const int64_t n = g->v->ext[last], rows = lbt_fiber_count(g->v, last);
	for (int64_t r = 0; r < rows; r++)
		memcpy(g->v->real + (lbt_fiber_base(g->v, last, r) - g->v->load), dense + lbt_links_row(g, r),
		       (size_t)n * sizeof *dense);
}

/* On a cut view, the per-direction maxima go to the reducer (lbt_cut). */
static inline void lbt_links_slot(lbt_counts *c, double right, double left)
{
	if (c->nslots + 2 <= LBT_CUT_SLOTS) {
		c->slot[c->nslots++] = right;
		c->slot[c->nslots++] = left;
	}
}

/* The amount moved, Σ|F| over the links (F: D*P flows in the dense copy),
 * in a fixed order: row by row, in a row axis by axis. A cut view hands
 * its rows' sums to the reducer, which adds them in global row order (if
 * the last axis is cut, the rows' terms: axis by axis, PE by PE); then
 * the result is 0 and the reducer's sum is the amount. */
static inline double lbt_links_moved(const lbt_links *g, const double *F, lbt_counts *c)
{
	const lbt_view *v = g->v;
	const int D = g->D;
	const int64_t P = g->P, rows = lbt_fiber_count(v, D - 1), len = v->ext[D - 1];
	double moved = 0;
	for (int64_t r = 0; r < rows; r++) {
		const int64_t at = lbt_links_row(g, r);
		double row = 0;
		for (int d = 0; d < D; d++)
			for (int64_t i = at; i < at + len; i++)
				if (g->cut && v->cut->by_pe)
					v->cut->parts[c->nparts++] = fabs(F[d * P + i]);
				else
					row += fabs(F[d * P + i]);
		if (!g->cut)
			moved += row;
		else if (!v->cut->by_pe)
			v->cut->parts[c->nparts++] = row;
	}
	if (g->cut && v->cut->by_pe)
		c->terms = D;
	return moved;
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
		int64_t coord[8] = {0};
		for (int64_t i = 0; i < P; i++, lbt_coord_next(g, coord)) {
			if (!lbt_links_held(g, coord))
				continue;
			int64_t f = F[d * P + i];
			moved += f > 0 ? f : -f;
			right = f > right ? f : right;
			left = -f > left ? -f : left;
		}
		shifts += right + left;
		link_max = right > link_max ? right : link_max;
		link_max = left > link_max ? left : link_max;
		if (g->cut)
			lbt_links_slot(c, (double)right, (double)left);
	}
	int64_t coord[8] = {0};
	for (int64_t i = 0; i < P; i++, lbt_coord_next(g, coord)) {
		N[i] = L[i];
		if (!lbt_links_held(g, coord))
			continue;
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

/* de.c — scalar reference of Cybenko's dimension exchange (seed 002, §4),
 * generalized from the hypercube to tori and meshes with an exchange
 * parameter lambda:
 *
 *   hypercube: for each dimension i = 1..d in turn, the pairs whose labels
 *   differ in bit i "exactly balance the work between them", w(t+1) = F_i w(t),
 *   F_i = (I + D_i)/2; one sweep of all d dimensions balances exactly (Theorem 4).
 *   generalized: a pair (i, j) exchanges f = lambda (w_i - w_j), lambda = 1/2
 *   being Cybenko's exact pairwise balance.
 *
 * An axis of extent 2 (a hypercube dimension) is one matching. A longer axis
 * is edge-coloured so that each colour is a matching: link (i, i+1) has colour
 * i mod 2, and a torus's wrap-around link (n-1, 0) colour 1 if n is even, 2 if
 * n is odd. A step is one sweep: axis 0 first, within an axis colour 0, 1, 2,
 * each colour a synchronous substep on the state the previous one left (the
 * Gauss-Seidel flavour Cybenko describes). So on a hypercube of dimension d
 * one step is d of Cybenko's iterations.
 *
 * Integer version: f = trunc(lambda (L_i - L_j)), so with lambda = 1/2 the
 * PE that held more keeps the odd element; with 0 < lambda <= 1 a PE never
 * gives more than it holds, and the total is exact.
 *
 * Time: per substep, per direction, the largest amount on one link, summed. */
#include <math.h>

#include "links.h"

/* Exchange over the pair (a, b) = (i, i+1_d); returns the amount sent a -> b. */
static double exchange(const lbt_view *v, int real, double lambda, int64_t a, int64_t b, int64_t *moved)
{
	if (real) {
		double *w = v->real, f = lambda * (w[a] - w[b]);
		w[a] -= f;
		w[b] += f;
		return f;
	}
	int32_t *p = v->load;
	int64_t f = (int64_t)(lambda * (double)((int64_t)p[a] - p[b]));
	p[a] = (int32_t)(p[a] - f);
	p[b] = (int32_t)(p[b] + f);
	*moved += f > 0 ? f : -f;
	return (double)f;
}

/* The pairs of a substep are visited row by row (rows of the last axis in
 * row-major order; a pair belongs to the row of its lower PE i), and the
 * real amount moved is summed per row, the rows' sums then in row order: a
 * fixed order a vector kernel can keep.
 *
 * On a cut view (lbt_cut) each substep of a cut axis first fills the halo
 * from the neighbouring ranks; a pair whose lower PE is in the halo (local
 * -1) is exchanged too, both ranks computing the same amount, but counted
 * by the rank holding its lower PE. Rows' sums and per-direction maxima go
 * to the reducer (every row and substep hands one, 0 if it has no pair; PE
 * by PE if the last axis is cut, rows then being shared by ranks). */
static void de_step(const lbt_view *v, double lambda, int real, int d0, int d1, lbt_counts *c)
{
	const int last = v->dims - 1;
	const int64_t n = v->ext[last], rows = lbt_fiber_count(v, last);
	const int cut = v->cut != NULL, pe = cut && v->cut->by_pe; /* pe: the last axis cut, parts PE by PE */
	for (int d = d0; d < d1; d++) {
		const int64_t nd = v->ext[d], s = v->stride[d], N = lbt_gext(v, d);
		for (int col = 0; col < 3; col++) {
			int any = 0;
			double right = 0, left = 0; /* largest amount on one link, per direction */
			if (lbt_cut_on(v, d))
				lbt_halo_fill(v, d);
			for (int64_t r = 0; r < rows; r++) {
				const int64_t row = lbt_fiber_base(v, last, r) - v->load;
				double sum = 0;
				int64_t none = 0; /* the halo's pairs are not counted here */
				if (d == last && lbt_cut_on(v, d)) { /* pairs inside the row, local -1 .. n-1; parts PE by PE */
					for (int64_t i = -1; i < n; i++) {
						const int64_t gi = lbt_gcoord(v, d, i);
						const int pair = gi >= 0 && lbt_de_color(gi, N, v->torus[d]) == col;
						double f = pair ? exchange(v, real, lambda, row + i, row + i + 1, i < 0 ? &none : &c->moved) : 0;
						if (i < 0)
							continue;
						if (real)
							v->cut->parts[c->nparts++] = fabs(f);
						if (!pair)
							continue;
						any = 1;
						right = fmax(right, f);
						left = fmax(left, -f);
					}
					continue;
				} else if (d == last) { /* pairs inside the row */
					for (int64_t i = 0; i < n; i++) {
						if (lbt_de_color(i, n, v->torus[d]) != col)
							continue;
						any = 1;
						double f = exchange(v, real, lambda, row + i, row + (i + 1) % n, &c->moved);
						sum += fabs(f);
						right = fmax(right, f);
						left = fmax(left, -f);
					}
				} else { /* the row at coordinate k on axis d pairs with the row at k+1 */
					int64_t k = r, q = 1;
					for (int e = last - 1; e > d; e--)
						q *= v->ext[e];
					k = (k / q) % nd;
					if (lbt_cut_on(v, d) && k == 0) { /* the pair (local -1, 0): the lower PE is the halo's */
						int64_t g = lbt_gcoord(v, d, -1);
						if (g >= 0 && lbt_de_color(g, N, v->torus[d]) == col)
							for (int64_t i = 0; i < n; i++)
								exchange(v, real, lambda, row - s + i, row + i, &none);
					}
					int64_t g = lbt_gcoord(v, d, k);
					if (lbt_de_color(g, N, v->torus[d]) != col) {
						for (int64_t i = 0; cut && real && i < (pe ? n : 1); i++)
							v->cut->parts[c->nparts++] = 0; /* a part per row (per PE if the last axis is cut) */
						continue;
					}
					any = 1;
					const int64_t partner = row + (lbt_cut_on(v, d) ? s : ((k + 1) % nd - k) * s);
					for (int64_t i = 0; i < n; i++) {
						double f = exchange(v, real, lambda, row + i, partner + i, &c->moved);
						if (pe && real)
							v->cut->parts[c->nparts++] = fabs(f);
						sum += fabs(f);
						right = fmax(right, f);
						left = fmax(left, -f);
					}
				}
				if (real && cut && !pe)
					v->cut->parts[c->nparts++] = sum;
				else if (real)
					c->real_moved += sum;
			}
			if (cut && c->nslots + 2 <= LBT_CUT_SLOTS) {
				c->slot[c->nslots++] = right;
				c->slot[c->nslots++] = left;
			}
			if (!any)
				continue;
			if (real)
				c->real_shifts += right + left;
			else
				c->shifts += (int64_t)(right + left);
			c->link_max = fmax(c->link_max, fmax(right, left));
		}
	}
}

void lbt_ref_de_step(const lbt_view *v, double lambda, lbt_counts *c) { de_step(v, lambda, 1, 0, v->dims, c); }
void lbt_ref_de_int_step(const lbt_view *v, double lambda, lbt_counts *c) { de_step(v, lambda, 0, 0, v->dims, c); }
/* One axis only: Cybenko's eq. (17), a dimension per step. */
void lbt_ref_de_axis_step(const lbt_view *v, double lambda, int axis, lbt_counts *c)
{
	de_step(v, lambda, 1, axis, axis + 1, c);
}

int lbt_ref_de_steps(const lbt_view *v, double lambda, int kind, int n, const lbt_steps_stop *stop, lbt_counts *c)
{
	(void)n;
	(void)stop;
	*c = (lbt_counts){0};
	const int axis = kind == LBT_DE_AXIS ? lbt_de_axis_at(v, v->step) : 0;
	if (kind != LBT_DE_AXIS)
		de_step(v, lambda, kind == LBT_DE_REAL, 0, v->dims, c);
	else if (axis >= 0)
		de_step(v, lambda, 1, axis, axis + 1, c);
	return 1;
}

/* diffusion.c — scalar reference of Cybenko's first-order diffusion scheme
 * (seed 002, eq. (1)/(2)) and of Dickens's cellular automaton (seed 004),
 * which is the same scheme with his proportion as the link weight:
 *
 *   eq. (2): w_i(t+1) = w_i(t) + sum_j alpha_ij (w_j(t) - w_i(t))
 *   alpha_ij = alpha (one number for every link), or
 *   alpha_ij = 1 / (max(deg_i, deg_j) + k)   (Boillat: k = 1; Dickens: "1/(MAX(y,n)+k)")
 *
 * As a flow: the amount alpha_ij (w_i - w_j) crosses the link (i, j) from i to
 * j (only the net transfer crosses, Dickens's Figure 3). All links of all
 * axes act at once on the same state. The real-valued step sums a PE's flows
 * in a fixed order (axis 0 first, outgoing to i+1_d, then incoming from
 * i-1_d), and the amount moved is summed row by row (rows in row-major
 * order; within a row axis by axis), so results do not depend on threads and
 * a vector kernel can reproduce them bit for bit.
 *
 * The integer step uses integer flows, truncated towards zero:
 * f_ij = trunc(alpha_ij (L_i - L_j)) (exact integer division by max+k in the
 * by-degree case). Every flow is one integer moved from one PE to the other,
 * so the total is exact; and a PE never sends more than
 * sum_j alpha_ij L_i <= L_i when sum_j alpha_ij <= 1 (Cybenko's constraint (b),
 * checked where alpha is chosen), so no load becomes negative. Truncation
 * stops where every link's difference is below 1/alpha_ij: discrete
 * diffusion leaves such local "ramps" (seed 000 §2.1, §5), a fixed point the
 * run driver reports as stalled.
 *
 * Time: per direction of each axis, the largest amount on one link, summed;
 * link_max: the largest amount on any single link (Dickens's communication
 * time of a generation). */
#include <math.h>

#include "links.h"

static double link_alpha(const lbt_diffusion *p, int di, int dj)
{
	return p->by_degree ? 1.0 / ((di > dj ? di : dj) + p->k) : p->alpha;
}

void lbt_ref_fos_step(const lbt_view *v, const lbt_diffusion *p, lbt_counts *c)
{
	lbt_links g;
	lbt_links_init(&g, v);
	const int D = g.D;
	const int64_t P = g.P;
	double *w = malloc((size_t)P * sizeof *w);
	double *F = malloc((size_t)(D * P) * sizeof *F); /* F[d*P + i]: flow i -> i+1_d */
	double *N = malloc((size_t)P * sizeof *N);
	if (lbt_ref_nomem(c, w, F, N))
		return;
	lbt_gather_real(&g, w);

	int64_t coord[8] = {0};
	for (int64_t i = 0; i < P; i++, lbt_coord_next(&g, coord)) {
		const int deg = lbt_degree(&g, coord), here = lbt_links_computable(&g, coord);
		for (int d = 0; d < D; d++) {
			F[d * P + i] = 0;
			if (here && lbt_link_right(&g, d, coord[d])) {
				int64_t j = lbt_right_of(&g, d, i, coord[d]);
				F[d * P + i] = link_alpha(p, deg, lbt_degree_next(&g, coord, deg, d, +1)) * (w[i] - w[j]);
			}
		}
	}
	double moved = 0, shifts = 0, link_max = 0;
	for (int d = 0; d < D; d++) {
		double right = 0, left = 0;
		memset(coord, 0, sizeof coord);
		for (int64_t i = 0; i < P; i++, lbt_coord_next(&g, coord)) {
			if (!lbt_links_held(&g, coord))
				continue;
			double f = F[d * P + i];
			right = f > right ? f : right;
			left = -f > left ? -f : left;
		}
		shifts += right + left;
		link_max = fmax(link_max, fmax(right, left));
		if (g.cut)
			lbt_links_slot(c, right, left);
	}
	moved += lbt_links_moved(&g, F, c); /* in a fixed order */
	memset(coord, 0, sizeof coord);
	for (int64_t i = 0; i < P; i++, lbt_coord_next(&g, coord)) {
		double out = 0, in = 0;
		N[i] = w[i];
		if (!lbt_links_held(&g, coord))
			continue;
		for (int d = 0; d < D; d++) {
			out += F[d * P + i];
			if (lbt_link_left(&g, d, coord[d]))
				in += F[d * P + lbt_left_of(&g, d, i, coord[d])];
		}
		N[i] = w[i] - out + in; /* eq. (2) */
	}
	lbt_scatter_real(&g, N);
	free(N);
	free(w);
	free(F);
	c->real_moved += moved;
	c->real_shifts += shifts;
	c->link_max = fmax(c->link_max, link_max);
}

/* One step a call (the vector kernels may do several). */
int lbt_ref_fos_steps(const lbt_view *v, const lbt_diffusion *p, int n, const lbt_steps_stop *stop, lbt_counts *c)
{
	(void)n;
	(void)stop;
	*c = (lbt_counts){0};
	lbt_ref_fos_step(v, p, c);
	return 1;
}

void lbt_ref_fos_int_step(const lbt_view *v, const lbt_diffusion *p, lbt_counts *c)
{
	lbt_links g;
	lbt_links_init(&g, v);
	const int D = g.D;
	const int64_t P = g.P;
	int64_t *L = malloc((size_t)P * sizeof *L);
	int64_t *F = malloc((size_t)(D * P) * sizeof *F);
	int64_t *N = malloc((size_t)P * sizeof *N);
	if (lbt_ref_nomem(c, L, F, N))
		return;
	lbt_gather(&g, L);

	int64_t coord[8] = {0};
	for (int64_t i = 0; i < P; i++, lbt_coord_next(&g, coord)) {
		const int deg = lbt_degree(&g, coord), here = lbt_links_computable(&g, coord);
		for (int d = 0; d < D; d++) {
			F[d * P + i] = 0;
			if (here && lbt_link_right(&g, d, coord[d])) {
				int64_t j = lbt_right_of(&g, d, i, coord[d]), diff = L[i] - L[j];
				int dj = lbt_degree_next(&g, coord, deg, d, +1);
				F[d * P + i] = p->by_degree ? diff / ((deg > dj ? deg : dj) + p->k) /* C truncates */
				                            : (int64_t)(p->alpha * (double)diff);
			}
		}
	}
	lbt_apply_flows(&g, L, F, N, c);
	free(N);
	free(L);
	free(F);
}

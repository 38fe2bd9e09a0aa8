/* nna_def.c — scalar reference of the deficiency-based NNA, seed 000 §2.3
 * eq. (4) (after [Willebeek93]), run synchronously:
 *
 *   L̄_i = (L_i + sum_{j in Δ(i)} L_j) / (|Δ(i)| + 1)          (eq. (3)'s mean)
 *   h_j = max{0, L_i - L_j},  H_i = sum_{j in Δ(i)} h_j        (deficiencies)
 *   δ_i(j) = (L_i - L̄_i) h_j / H_i   for a PE above its local mean
 *
 * A PE sends only to neighbours holding less, so at most one of the two ends
 * of a link sends over it and no netting is needed. Amounts are exact
 * fractions, rounded as §5 rounds NNA: towards i+1_d up, towards i-1_d down,
 * with the same budget as kernels/ref/nna.c (the rounded-down amounts first,
 * then, axis 0 first, round-ups only while the total sent stays within L_i):
 * they sum to at most L_i - L̄_i < L_i, so loads stay non-negative, and every
 * flow is one integer moved from one PE to another, so the total is exact.
 * Time: per direction, the largest amount on one link, summed. */
#include "links.h"

void lbt_ref_nna_def_step(const lbt_view *v, lbt_counts *c)
{
	lbt_links g;
	lbt_links_init(&g, v);
	const int D = g.D;
	const int64_t P = g.P;
	int64_t *L = malloc((size_t)P * sizeof *L);
	int64_t *R = malloc((size_t)(2 * D * P) * sizeof *R); /* R[d*P+i]: to i+1_d; R[(D+d)*P+i]: to i-1_d */
	int64_t *N = malloc((size_t)P * sizeof *N);
	if (lbt_ref_nomem(c, L, R, N))
		return;
	lbt_gather(&g, L);
	memset(R, 0, (size_t)(2 * D * P) * sizeof *R);

	int64_t coord[8] = {0};
	for (int64_t i = 0; i < P; i++, lbt_coord_next(&g, coord)) {
		if (!lbt_links_computable(&g, coord))
			continue; /* a cut view's outer halo: sends nothing we need */
		const int deg = lbt_degree(&g, coord);
		int64_t S = L[i], H = 0, h[16], nb[16];
		int has[16];
		for (int d = 0; d < D; d++) { /* slot d: i+1_d, slot D+d: i-1_d */
			has[d] = lbt_link_right(&g, d, coord[d]);
			has[D + d] = lbt_link_left(&g, d, coord[d]);
			nb[d] = has[d] ? lbt_right_of(&g, d, i, coord[d]) : i;
			nb[D + d] = has[D + d] ? lbt_left_of(&g, d, i, coord[d]) : i;
		}
		for (int s = 0; s < 2 * D; s++) {
			h[s] = has[s] && L[i] > L[nb[s]] ? L[i] - L[nb[s]] : 0;
			if (has[s])
				S += L[nb[s]];
			H += h[s];
		}
		/* an extent-2 axis has one link: its neighbour was counted once, as i+1_d or i-1_d */
		const __int128 surplus = (__int128)L[i] * (deg + 1) - S; /* (L_i - L̄_i) (|Δ|+1) */
		if (surplus <= 0 || H == 0)
			continue;
		const __int128 den = (__int128)(deg + 1) * H;
		int64_t sent = 0, q[16];
		int frac[16];
		for (int s = 0; s < 2 * D; s++) {
			__int128 num = surplus * h[s];
			q[s] = (int64_t)(num / den);
			frac[s] = num % den != 0;
			sent += q[s];
		}
		for (int d = 0; d < D; d++) /* towards i+1_d: rounded up while P_i can afford it */
			if (frac[d] && sent + 1 <= L[i]) {
				q[d]++;
				sent++;
			}
		for (int s = 0; s < 2 * D; s++)
			R[s * P + i] = q[s];
	}

	int64_t moved = 0, shifts = 0, link_max = 0, dir[16];
	for (int s = 0; s < 2 * D; s++) {
		int64_t m = 0; /* direction s: largest amount on one link */
		memset(coord, 0, sizeof coord);
		for (int64_t i = 0; i < P; i++, lbt_coord_next(&g, coord)) {
			if (!lbt_links_held(&g, coord))
				continue;
			moved += R[s * P + i];
			m = R[s * P + i] > m ? R[s * P + i] : m;
		}
		shifts += m;
		link_max = m > link_max ? m : link_max;
		dir[s] = m;
	}
	for (int d = 0; g.cut && d < D; d++) /* to i+1_d, to i-1_d */
		lbt_links_slot(c, (double)dir[d], (double)dir[D + d]);
	memset(coord, 0, sizeof coord);
	for (int64_t i = 0; i < P; i++, lbt_coord_next(&g, coord)) {
		N[i] = L[i];
		if (!lbt_links_held(&g, coord))
			continue;
		for (int d = 0; d < D; d++) {
			N[i] -= R[d * P + i] + R[(D + d) * P + i];
			if (lbt_link_left(&g, d, coord[d]))
				N[i] += R[d * P + lbt_left_of(&g, d, i, coord[d])];      /* from i-1_d, sent rightward */
			if (lbt_link_right(&g, d, coord[d]))
				N[i] += R[(D + d) * P + lbt_right_of(&g, d, i, coord[d])]; /* from i+1_d, sent leftward */
		}
	}
	lbt_scatter(&g, N);
	free(N);
	free(L);
	free(R);
	c->moved += moved;
	c->shifts += shifts;
	c->link_max = (double)link_max > c->link_max ? (double)link_max : c->link_max;
}

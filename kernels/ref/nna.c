/* nna.c — scalar reference of nearest-neighbour averaging (NNA), the method
 * seed 000 compares the Liquid model with. Written to read like the paper:
 *
 *   eq. (3): L_i(t+1) := (L_i(t) + sum_{j in Δ(i)} L_j(t)) / (|Δ(i)| + 1)
 *   eq. (5): synchronous variant, P_i sends δ_i = L_i / (|Δ(i)| + 1) to each neighbour
 *   fn. 3:   only the difference of the two opposed transfers crosses a link:
 *            f_(i,j) = L_i/(|Δ(i)|+1) - L_j/(|Δ(j)|+1)   (j = i+1_d; > 0: rightward)
 *   §5:      "it is rounded asymmetrically": a rightward flow (towards the higher
 *            index, i -> i+1_d, wrapping) is rounded up, a leftward one down.
 *
 * All links of all axes act at once on the same state (eq. (3) is one
 * simultaneous average, not D substeps).
 *
 * Rounding rule that keeps loads non-negative (needed in D >= 2): a PE first
 * owes the rounded-down amounts of all its outgoing flows; then, axis 0
 * first, it rounds a fractional rightward flow up only while what it sends in
 * total stays within what it holds, and otherwise rounds that one down too.
 * The rounded-down amounts alone never exceed L_i (they sum to at most
 * |Δ(i)| L_i / (|Δ(i)| + 1)), so no load ever becomes negative; every flow is
 * one integer taken from one PE and given to the other, so the total is
 * exact. In 1-D the cap never binds (ceil(L/3) + floor(L/3) <= L), so this is
 * exactly §5's rule there (Table 3 is reproduced, tests/test_nna.c).
 *
 * Time: per step, for each link direction (d, +) and (d, -), the largest
 * amount crossing any single link, summed over the 2D directions (§5: "the
 * maximum number of load transfers per single load balancing step is summed";
 * Table 3: 6 + 5 = 11 shifts for the first step). */
#include "links.h"

void lbt_ref_nna_step(const lbt_view *v, lbt_counts *c)
{
	lbt_links g;
	lbt_links_init(&g, v);
	const int D = g.D;
	const int64_t P = g.P;
	int64_t *L = malloc((size_t)P * sizeof *L);
	int64_t *F = malloc((size_t)(D * P) * sizeof *F); /* F[d*P + i]: net flow i -> i+1_d */
	int64_t *N = malloc((size_t)P * sizeof *N);       /* the loads after the step */
	if (lbt_ref_nomem(c, L, F, N))
		return;
	lbt_gather(&g, L);

	int64_t coord[8] = {0};
	for (int64_t i = 0; i < P; i++, lbt_coord_next(&g, coord)) {
		if (!lbt_links_computable(&g, coord)) { /* a cut view's outer halo: no flows needed */
			for (int d = 0; d < D; d++)
				F[d * P + i] = 0;
			continue;
		}
		const int deg = lbt_degree(&g, coord);
		int64_t sent = 0;               /* rounded-down amounts P_i sends */
		int64_t num[8], den[8];         /* exact rightward flows num/den */
		for (int d = 0; d < D; d++) {
			num[d] = 0;
			den[d] = 1;
			if (lbt_link_left(&g, d, coord[d])) { /* P_i's share to i-1_d minus the one coming back */
				int64_t j = lbt_left_of(&g, d, i, coord[d]);
				int dj = lbt_degree_next(&g, coord, deg, d, -1);
				int64_t n = L[i] * (dj + 1) - L[j] * (deg + 1);
				if (n > 0)
					sent += n / ((int64_t)(deg + 1) * (dj + 1));
			}
			if (lbt_link_right(&g, d, coord[d])) {
				int64_t j = lbt_right_of(&g, d, i, coord[d]);
				int dj = lbt_degree_next(&g, coord, deg, d, +1);
				num[d] = L[i] * (dj + 1) - L[j] * (deg + 1);
				den[d] = (int64_t)(deg + 1) * (dj + 1);
				if (num[d] > 0)
					sent += num[d] / den[d];
			}
		}
		for (int d = 0; d < D; d++) {
			int64_t f;
			if (num[d] > 0) {               /* rightward: rounded up while P_i can afford it */
				f = num[d] / den[d];
				if (num[d] % den[d] && sent + 1 <= L[i]) {
					f++;
					sent++;
				}
			} else
				f = -(-num[d] / den[d]);   /* leftward: rounded down in magnitude */
			F[d * P + i] = f;
		}
	}

	lbt_apply_flows(&g, L, F, N, c);
	free(N);
	free(L);
	free(F);
}

/* speed.c — scalar reference of relative-speed diffusion with cost/benefit
 * and the annealing shake (E. Jeannot, F. Vernier, A Practical Approach of
 * Diffusion Load Balancing Algorithms, Euro-Par 2006, §3.1-3.3).
 *
 * Per link (i, j = i+1_d), on the state before the step:
 *   predicted flow (§3.2)   L_ij = Mr_ij w_i - Mr_ji w_j   (i -> j if > 0)
 *   integer flows            L_ij truncated towards zero (the total is exact;
 *                            a PE sends at most sum_j Mr_ij w_i <= w_i)
 *   cost (§3.1)              Cost(L) = |L| pack_s + Lat + |L| unit_bytes / Bw
 *   benefit (§3.1 eq. (2))   max(Cp_s(w_s), Cp_r(w_r)) - max(Cp_s(w_s - |L|), Cp_r(w_r + |L|)),
 *                            s the sender, r the receiver, Cp_i(w) = w unit_s / Cn_i
 *   f_ij = 1 iff Cost(L) < k_s Benefit(L) (cost/benefit on, k of the sender), else 1.
 * A link that exchanges nothing although the pair is unbalanced (moving one
 * unit from the relatively more loaded to the other lowers the pair's
 * computation time: Benefit(1) > 0; real loads: any difference of relative
 * load) is "blocked"; U_ij counts its successive blocked iterations (§3.3).
 * With the shake on, a blocked link exchanges anyway with probability
 * p^(U_ij/tau) — the paper's e^(-kappa U_ij) with kappa = ln(p)/tau, read
 * with the sign that makes it a probability (p at U_ij = tau) — moving the
 * predicted flow, or one unit if that truncates to 0 and the sender still
 * holds a unit it has not sent in this step. The draw for link (i, d) at
 * step t is lbt_rand(seed, t, i*D + d, LBT_RNG_SHAKE): the same for any
 * thread count; shakes are decided after all regular flows, in row-major
 * link order, so the budget check is deterministic too.
 *
 * A PE's balancing time in the step (one-port: its messages go one after
 * the other): per link an information message Lat + info_bytes/Bw (the loads
 * Mr needs), plus Cost(|F|) for a link that carries F != 0; both ends of a
 * link are busy with it. */
#include <math.h>

#include "links.h"
#include "../net.h"
#include "lbtorus/rng.h"

#define LBT_RNG_SHAKE 0x53484bULL /* "SHK": the purpose of the shake's draws */

void lbt_ref_speed_step(const lbt_view *v, const lbt_speed_args *a, lbt_counts *c)
{
	lbt_links g;
	lbt_links_init(&g, v);
	const int D = g.D;
	const int64_t P = g.P;
	double *w = malloc((size_t)P * sizeof *w);
	double *F = malloc((size_t)(D * P) * sizeof *F);      /* flow i -> i+1_d */
	int64_t *L = malloc((size_t)P * 2 * sizeof *L);       /* integer loads, then the new ones */
	int64_t *IF = malloc((size_t)(D * P) * sizeof *IF);   /* the integer flows */
	unsigned char *blocked = malloc((size_t)(D * P));
	double *out = malloc((size_t)P * sizeof *out);        /* what each PE sends in this step */
	if (!w || !F || !L || !IF || !blocked || !out) {
		c->nomem = 1;
		goto done;
	}
	if (a->real)
		lbt_gather_real(&g, w);
	else {
		lbt_gather(&g, L);
		for (int64_t i = 0; i < P; i++)
			w[i] = (double)L[i];
	}
	const double *cn = a->cn;
	const double info = a->net.lat + a->net.info_bytes / a->net.bw;

	/* pass 1: predicted flows, cost/benefit, blocked links */
	int64_t coord[8] = {0};
	for (int64_t i = 0; i < P; i++, lbt_coord_next(&g, coord)) {
		out[i] = 0;
		a->lb[i] = 0;
		a->active[i] = 0;
		for (int d = 0; d < D; d++) {
			const int64_t l = d * P + i;
			F[l] = 0;
			blocked[l] = 0;
			if (!lbt_link_right(&g, d, coord[d]))
				continue;
			const int64_t j = lbt_right_of(&g, d, i, coord[d]);
			double x = a->mr_fwd[l] * w[i] - a->mr_bwd[l] * w[j];
			if (!a->real)
				x = trunc(x);
			const int64_t s = x > 0 ? i : j, r = x > 0 ? j : i;
			int keep = x != 0 && (!a->cb || lbt_net_cost(&a->net, x) <
			                                    a->k[s] * lbt_net_benefit(&a->net, w[s], cn[s], w[r], cn[r], fabs(x)));
			if (keep) {
				F[l] = x;
				out[s] += fabs(x);
				continue;
			}
			/* unbalanced: moving one unit (real loads: any amount) down the relative load helps */
			const int64_t hi = w[i] / cn[i] > w[j] / cn[j] ? i : j, lo = hi == i ? j : i;
			blocked[l] = a->real ? w[i] / cn[i] != w[j] / cn[j]
			                     : lbt_net_benefit(&a->net, w[hi], cn[hi], w[lo], cn[lo], 1) > 0;
		}
	}
	/* pass 2: the annealing shake, in row-major link order */
	int64_t shaken = 0;
	memset(coord, 0, sizeof coord);
	for (int64_t i = 0; i < P; i++, lbt_coord_next(&g, coord))
		for (int d = 0; d < D; d++) {
			const int64_t l = d * P + i;
			if (!blocked[l]) {
				a->U[l] = 0;
				continue;
			}
			a->U[l]++;
			if (!(a->shake_p > 0))
				continue;
			const uint64_t r = lbt_rand(v->seed, (uint64_t)v->step, (uint64_t)(i * D + d), LBT_RNG_SHAKE);
			const double u = (double)(r >> 11) * 0x1p-53;
			if (!(u < pow(a->shake_p, (double)a->U[l] / a->shake_tau)))
				continue;
			const int64_t j = lbt_right_of(&g, d, i, coord[d]);
			double x = a->mr_fwd[l] * w[i] - a->mr_bwd[l] * w[j];
			if (!a->real) {
				x = trunc(x);
				if (x == 0) /* one unit down the relative load */
					x = w[i] / cn[i] > w[j] / cn[j] ? 1 : -1;
			}
			const int64_t s = x > 0 ? i : j;
			if (x == 0 || out[s] + fabs(x) > w[s])
				continue;
			out[s] += fabs(x);
			F[l] = x;
			a->U[l] = 0;
			shaken++;
		}
	/* balancing time per PE, and which PEs exchanged */
	int64_t links = 0;
	memset(coord, 0, sizeof coord);
	for (int64_t i = 0; i < P; i++, lbt_coord_next(&g, coord))
		for (int d = 0; d < D; d++) {
			if (!lbt_link_right(&g, d, coord[d]))
				continue;
			const int64_t l = d * P + i, j = lbt_right_of(&g, d, i, coord[d]);
			double t = info + (F[l] != 0 ? lbt_net_cost(&a->net, F[l]) : 0);
			a->lb[i] += t;
			a->lb[j] += t;
			if (F[l] != 0) {
				a->active[i] = a->active[j] = 1;
				links++;
			}
		}
	c->links_exchanged += links;
	c->shaken += shaken;

	if (!a->real) {
		for (int64_t l = 0; l < D * P; l++)
			IF[l] = (int64_t)F[l];
		lbt_apply_flows(&g, L, IF, L + P, c);
	} else {
		double moved = 0, shifts = 0, link_max = 0;
		for (int d = 0; d < D; d++) {
			double right = 0, left = 0;
			for (int64_t i = 0; i < P; i++) {
				right = fmax(right, F[d * P + i]);
				left = fmax(left, -F[d * P + i]);
			}
			shifts += right + left;
			link_max = fmax(link_max, fmax(right, left));
		}
		for (int64_t l = 0; l < D * P; l++)
			moved += fabs(F[l]);
		memset(coord, 0, sizeof coord);
		double *N = out; /* no longer needed: the new loads */
		for (int64_t i = 0; i < P; i++, lbt_coord_next(&g, coord)) {
			double o = 0, in = 0;
			for (int d = 0; d < D; d++) {
				o += F[d * P + i];
				if (lbt_link_left(&g, d, coord[d]))
					in += F[d * P + lbt_left_of(&g, d, i, coord[d])];
			}
			N[i] = w[i] - o + in;
		}
		lbt_scatter_real(&g, N);
		c->real_moved += moved;
		c->real_shifts += shifts;
		c->link_max = fmax(c->link_max, link_max);
	}
done:
	free(w);
	free(F);
	free(L);
	free(IF);
	free(blocked);
	free(out);
}

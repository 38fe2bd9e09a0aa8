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
 * link are busy with it. Formed only if asked for (lb); the blocked counts
 * only with the shake (U), the one reader of them.
 *
 * On a block of a torus cut between ranks (links.h: the dense copies span
 * the halo; the arguments' arrays are laid out as those copies, the
 * caller's cn and k valid in the halo too) every rank computes pass 1 for
 * every link in its copy, so both ranks beside a boundary link keep its U.
 * What depends on an order is worked out per PE this rank holds, over the
 * links at that PE in one process's order (by the global index of the
 * link's lower PE, then the axis): a PE's budget for the shake (what it
 * sends, then its shakes: a shake spends only its sender's budget, so the
 * decisions for one sender are those of the row-major pass) and its
 * balancing time. A boundary link's shake is decided by the rank holding
 * its sender and made known to the other with one halo fill per cut axis
 * (a flag per PE in the kernels' scratch), which recomputes the same flow. */
#include <math.h>

#include "links.h"
#include "../net.h"
#include "lbtorus/rng.h"

#define LBT_RNG_SHAKE 0x53484bULL /* "SHK": the purpose of the shake's draws */

/* The global row-major index of the PE at dense coordinates c (gs: the
 * torus's strides). */
static int64_t global_index(const lbt_links *g, const int64_t *c, const int64_t *gs)
{
	int64_t at = 0;
	for (int d = 0; d < g->D; d++)
		at += lbt_links_g(g, d, c[d]) * gs[d];
	return at;
}

/* A link at a held PE: its index d*P + lower, its lower and upper PEs
 * (dense) and the lower PE's global index. */
typedef struct {
	int64_t l, lower, upper, key;
	int d;
} at_link;

/* The links at the held PE i (dense coordinates c) in one process's order:
 * by the global index of their lower PE, then the axis. Returns how many. */
static int links_at(const lbt_links *g, int64_t i, const int64_t *c, const int64_t *gs, at_link *o)
{
	int n = 0;
	const int64_t gi = global_index(g, c, gs);
	for (int d = 0; d < g->D; d++) {
		if (lbt_link_left(g, d, c[d])) {
			const int64_t lo = lbt_left_of(g, d, i, c[d]), gd = lbt_links_g(g, d, c[d]);
			const int64_t below = gd > 0 ? gd - 1 : g->N[d] - 1; /* over the wrap-around */
			o[n++] = (at_link){d * g->P + lo, lo, i, gi + (below - gd) * gs[d], d};
		}
		if (lbt_link_right(g, d, c[d]))
			o[n++] = (at_link){d * g->P + i, i, lbt_right_of(g, d, i, c[d]), gi, d};
	}
	for (int a = 1; a < n; a++) /* insertion sort: at most 16 */
		for (int b = a; b > 0 && (o[b - 1].key > o[b].key || (o[b - 1].key == o[b].key && o[b - 1].d > o[b].d)); b--) {
			const at_link t = o[b];
			o[b] = o[b - 1];
			o[b - 1] = t;
		}
	return n;
}

/* The predicted flow on link l from loads wi (its lower PE) and wj:
 * Mr_ij wi - Mr_ji wj, Mr per link or one number. */
static double predicted(const lbt_speed_args *a, int64_t l, double wi, double wj)
{
	return a->mr_fwd ? a->mr_fwd[l] * wi - a->mr_bwd[l] * wj : a->mr * wi - a->mr * wj;
}

/* The flow the shake makes on link l (lower PE i, upper j): the predicted
 * one, or one unit down the relative load if that truncates to 0. */
static double shake_flow(const lbt_speed_args *a, const double *w, int64_t l, int64_t i, int64_t j)
{
	double x = predicted(a, l, w[i], w[j]);
	if (!a->real) {
		x = trunc(x);
		if (x == 0)
			x = w[i] / a->cn[i] > w[j] / a->cn[j] ? 1 : -1;
	}
	return x;
}

/* The shake on a cut view: U for every link of the copy, then per held PE
 * s its budget and its shakes as sender, in one process's order; then per
 * cut axis the boundary links' decisions to the other side (a flag in the
 * kernels' scratch, seen as an int32 field: bit 0 at a PE of the last
 * layer, its link up the axis shaken here; bit 1 at a PE of the first
 * layer, its link from below). Returns the links this rank shook; -1 if
 * it has no scratch for the flags. */
static int64_t shake_cut(const lbt_links *g, const lbt_view *v, const lbt_speed_args *a, const double *w, double *F,
                         const unsigned char *blocked, unsigned char *mine)
{
	const int D = g->D;
	const int64_t P = g->P;
	int64_t gs[8], shaken = 0;
	gs[D - 1] = 1;
	for (int d = D - 2; d >= 0; d--)
		gs[d] = gs[d + 1] * g->N[d + 1];
	for (int64_t l = 0; l < D * P; l++)
		mine[l] = 0;
	if (!(a->shake_p > 0))
		return 0;
	for (int64_t l = 0; l < D * P; l++)
		a->U[l] = blocked[l] ? a->U[l] + 1 : 0;
	if (!v->scratch)
		return -1;
	int64_t coord[8] = {0};
	at_link o[16];
	for (int64_t s = 0; s < P; s++, lbt_coord_next(g, coord)) {
		if (!lbt_links_held(g, coord))
			continue;
		const int n = links_at(g, s, coord, gs, o);
		double out = 0;
		for (int k = 0; k < n; k++) {
			const double f = F[o[k].l];
			if (f != 0 && (f > 0 ? o[k].lower : o[k].upper) == s) /* s sends it */
				out += fabs(f);
		}
		for (int k = 0; k < n; k++) {
			const int64_t l = o[k].l;
			if (a->U[l] <= 0)
				continue;
			const uint64_t r = lbt_rand(v->seed, (uint64_t)v->step, (uint64_t)(o[k].key * D + o[k].d), LBT_RNG_SHAKE);
			const double u = (double)(r >> 11) * 0x1p-53;
			if (!(u < pow(a->shake_p, (double)a->U[l] / a->shake_tau)))
				continue;
			const double x = shake_flow(a, w, l, o[k].lower, o[k].upper);
			if (x == 0 || (x > 0 ? o[k].lower : o[k].upper) != s || out + fabs(x) > w[s])
				continue; /* nothing to move, another PE's decision, or beyond s's budget */
			out += fabs(x);
			F[l] = x;
			a->U[l] = 0;
			mine[l] = 1;
			shaken++;
		}
	}
	lbt_view fv = *v; /* the flags, laid out as the grid */
	fv.load = (int32_t *)v->scratch->link[0] + v->scratch->origin;
	fv.real = NULL;
	for (int ax = 0; ax < D; ax++) {
		if (!g->on[ax])
			continue;
		for (int pass = 0; pass < 2; pass++) { /* the flags out, a fill, the other side's flags in */
			if (pass)
				lbt_halo_fill(&fv, ax);
			memset(coord, 0, sizeof coord);
			for (int64_t s = 0; s < P; s++, lbt_coord_next(g, coord)) {
				if (!lbt_links_held(g, coord))
					continue;
				int64_t off = 0;
				for (int d = 0; d < D; d++)
					off += (coord[d] - (g->on[d] ? LBT_HALO : 0)) * v->stride[d];
				const int64_t x = coord[ax] - LBT_HALO, up = ax * P + s, below = ax * P + s - g->ds[ax];
				const int top = x == v->ext[ax] - 1 && lbt_link_right(g, ax, coord[ax]);
				const int bottom = x == 0 && lbt_link_left(g, ax, coord[ax]);
				if (!pass) {
					fv.load[off] = (top && mine[up] ? 1 : 0) | (bottom && mine[below] ? 2 : 0);
					continue;
				}
				if (top && !mine[up] && (fv.load[off + v->stride[ax]] & 2)) { /* shaken by the rank above */
					F[up] = shake_flow(a, w, up, s, s + g->ds[ax]);
					a->U[up] = 0;
				}
				if (bottom && !mine[below] && (fv.load[off - v->stride[ax]] & 1)) { /* by the rank below */
					F[below] = shake_flow(a, w, below, s - g->ds[ax], s);
					a->U[below] = 0;
				}
			}
		}
	}
	return shaken;
}

/* A held PE's balancing time on a cut view: its links in one process's
 * order. */
static void times_cut(const lbt_links *g, const lbt_speed_args *a, const double *F, double info)
{
	int64_t gs[8], coord[8] = {0};
	gs[g->D - 1] = 1;
	for (int d = g->D - 2; d >= 0; d--)
		gs[d] = gs[d + 1] * g->N[d + 1];
	at_link o[16];
	for (int64_t i = 0; i < g->P; i++, lbt_coord_next(g, coord)) {
		if (!lbt_links_held(g, coord))
			continue;
		const int n = links_at(g, i, coord, gs, o);
		for (int k = 0; k < n; k++) {
			const double f = F[o[k].l];
			a->lb[i] += info + (f != 0 ? lbt_net_cost(&a->net, f) : 0);
		}
	}
}

/* A rank that has no memory for a step on a cut view still makes the
 * shake's fills (shake_cut: one per cut axis), so that its neighbours do
 * not wait for it; its step's nomem, reduced over the ranks with the
 * counts, then stops every rank at this step. */
static void shake_fills_only(const lbt_links *g, const lbt_view *v, const lbt_speed_args *a)
{
	if (!g->cut || !(a->shake_p > 0) || !v->scratch)
		return;
	lbt_view fv = *v;
	fv.load = (int32_t *)v->scratch->link[0] + v->scratch->origin;
	fv.real = NULL;
	for (int ax = 0; ax < g->D; ax++)
		if (g->on[ax])
			lbt_halo_fill(&fv, ax);
}

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
	unsigned char *mine = malloc((size_t)(D * P));        /* a cut view: the links whose shake this rank decided */
	double *out = malloc((size_t)P * sizeof *out);        /* what each PE sends in this step */
	if (!w || !F || !L || !IF || !blocked || !mine || !out) {
		c->nomem = 1;
		shake_fills_only(&g, v, a);
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

	/* pass 1: predicted flows, cost/benefit, blocked links (a cut view:
	 * where the copy holds both ends) */
	int64_t coord[8] = {0};
	for (int64_t i = 0; i < P; i++, lbt_coord_next(&g, coord)) {
		out[i] = 0;
		if (a->lb)
			a->lb[i] = 0;
		const int here = lbt_links_computable(&g, coord);
		for (int d = 0; d < D; d++) {
			const int64_t l = d * P + i;
			F[l] = 0;
			blocked[l] = 0;
			if (!here || !lbt_link_right(&g, d, coord[d]))
				continue;
			const int64_t j = lbt_right_of(&g, d, i, coord[d]);
			double x = predicted(a, l, w[i], w[j]);
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
	int64_t shaken = 0, links = 0;
	if (g.cut) {
		if ((shaken = shake_cut(&g, v, a, w, F, blocked, mine)) < 0) {
			c->nomem = 1;
			goto done;
		}
		if (a->lb)
			times_cut(&g, a, F, info);
		memset(coord, 0, sizeof coord);
		for (int64_t i = 0; i < P; i++, lbt_coord_next(&g, coord))
			for (int d = 0; d < D && lbt_links_held(&g, coord); d++)
				links += F[d * P + i] != 0;
	} else {
		/* pass 2: the annealing shake, in row-major link order */
		for (int64_t i = 0; i < P; i++, lbt_coord_next(&g, coord))
			for (int d = 0; d < D; d++) {
				const int64_t l = d * P + i;
				if (!(a->shake_p > 0))
					continue;
				if (!blocked[l]) {
					a->U[l] = 0;
					continue;
				}
				a->U[l]++;
				const uint64_t r = lbt_rand(v->seed, (uint64_t)v->step, (uint64_t)(i * D + d), LBT_RNG_SHAKE);
				const double u = (double)(r >> 11) * 0x1p-53;
				if (!(u < pow(a->shake_p, (double)a->U[l] / a->shake_tau)))
					continue;
				const double x = shake_flow(a, w, l, i, lbt_right_of(&g, d, i, coord[d]));
				const int64_t s = x > 0 ? i : lbt_right_of(&g, d, i, coord[d]);
				if (x == 0 || out[s] + fabs(x) > w[s])
					continue;
				out[s] += fabs(x);
				F[l] = x;
				a->U[l] = 0;
				shaken++;
			}
		/* balancing time per PE (if asked for), and the links that carried load */
		memset(coord, 0, sizeof coord);
		for (int64_t i = 0; i < P; i++, lbt_coord_next(&g, coord))
			for (int d = 0; d < D; d++) {
				if (!lbt_link_right(&g, d, coord[d]))
					continue;
				const int64_t l = d * P + i, j = lbt_right_of(&g, d, i, coord[d]);
				if (a->lb) {
					const double t = info + (F[l] != 0 ? lbt_net_cost(&a->net, F[l]) : 0);
					a->lb[i] += t;
					a->lb[j] += t;
				}
				links += F[l] != 0;
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
			memset(coord, 0, sizeof coord);
			for (int64_t i = 0; i < P; i++, lbt_coord_next(&g, coord)) {
				if (!lbt_links_held(&g, coord))
					continue;
				right = fmax(right, F[d * P + i]);
				left = fmax(left, -F[d * P + i]);
			}
			shifts += right + left;
			link_max = fmax(link_max, fmax(right, left));
			if (g.cut)
				lbt_links_slot(c, right, left);
		}
		moved += lbt_links_moved(&g, F, c); /* in a fixed order */
		memset(coord, 0, sizeof coord);
		double *N = out; /* no longer needed: the new loads */
		for (int64_t i = 0; i < P; i++, lbt_coord_next(&g, coord)) {
			double o = 0, in = 0;
			N[i] = w[i];
			if (!lbt_links_held(&g, coord))
				continue;
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
	free(mine);
	free(out);
}

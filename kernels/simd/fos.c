/* fos.c — Cybenko's first-order diffusion on real-valued loads (seed 002
 * eq. (2), kernels/ref/diffusion.c: `fos`, and Dickens's automaton `ca`) as a
 * vector kernel, W/2 doubles per vector. Compiled once per ISA target (see
 * simd.h); checked bit for bit against the reference by tests/checkasm/fos.c.
 *
 * Bit for bit: every PE's new load is formed by exactly the reference's IEEE
 * operations in its order — F_d = alpha_ij * (w_i - w_j) per link, out =
 * ((0 + F_0) + F_1) + ..., in likewise over the links from i-1_d, and
 * (w_i - out) + in — only W/2 PEs at a time. A missing link contributes an
 * exact +0 (out and in start at +0 and never become -0, so adding +0 changes
 * nothing). The amount moved is summed in the reference's fixed order, row by
 * row (a scalar sum over the row's flows, axis by axis, left to right), the
 * rows' sums then added in row order after the parallel loop. That sum is a
 * chain of dependent adds, one per link; the rows' chains are independent,
 * so a thread takes RB rows at a time and runs their RB chains side by side
 * (each row's own adds still in its order). shifts and link_max are maxima,
 * taken in vector lanes: max(f, m) as MAXPD forms it is the reference's
 * `f > m ? f : m` (a NaN never replaces m), and from m = +0 every maximum
 * is order-free. So the result is the same for any thread count.
 *
 * A 2-D grid takes one pass (below, "2-D: one pass"). Other D take two
 * passes: pass 1 writes the flows F_d of every PE into scratch real
 * grids of the loads' layout, RB rows at a time, then sums those rows'
 * flows while they are in cache; pass 2 applies them in place. Neighbours across
 * a torus edge are read at the opposite edge directly (no halo); the last
 * axis reads its neighbours from a per-thread row buffer. A row's tail that
 * does not fill a vector runs the same formula one PE at a time.
 *
 * Scope: one alpha on every link on any shape; by-degree weights (boillat,
 * ca) on regular shapes (every axis a torus or of extent <= 2); other shapes
 * go to the reference. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../fiber.h"
#define CHAIN_G (W == 4 ? 2 : 4) /* chain8's rows side by side: see extra.h */
#include "extra.h"

static int link_right(int64_t c, int64_t n, int torus) { return n >= 2 && (c < n - 1 || (torus && n > 2)); }
static int link_left(int64_t c, int64_t n, int torus) { return n >= 2 && (c > 0 || (torus && n > 2)); }

#if W == 16
#define RMAX(a, b) simde_mm512_max_pd((a), (b))
#define RMIN(a, b) simde_mm512_min_pd((a), (b))
#elif W == 8
#define RMAX(a, b) simde_mm256_max_pd((a), (b))
#define RMIN(a, b) simde_mm256_min_pd((a), (b))
#else
#define RMAX(a, b) simde_mm_max_pd((a), (b))
#define RMIN(a, b) simde_mm_min_pd((a), (b))
#endif

enum { RB = 8 }; /* rows whose sums of the amount moved run side by side */

typedef struct {
	const lbt_view *v;
	double alpha;       /* the weight of every link */
	double *F[8];       /* F_d at the loads' offsets */
	double *rowsum;     /* the amount moved per row */
	double rmax[8], lmax[8];
} job;

/* Row r's coordinates on the outer axes. */
static void row_coords(const lbt_view *v, int64_t r, int64_t *c)
{
	for (int d = v->dims - 2; d >= 0; d--) {
		c[d] = r % v->ext[d];
		r /= v->ext[d];
	}
}

/* A thread's largest flows per axis towards higher / lower index: in vector
 * lanes, and the row tails' in scalars. Towards lower index the lanes keep
 * the smallest flow, MINPD from +0 (one operation a vector fewer than
 * MAXPD of -f): it is +0 or -(the largest -f), and with the scalar fold
 * from +0 below, -(+0) = -0 changes nothing, so lmax is the reference's. */
typedef struct {
	VR vr[8], vn[8];
	double rmax[8], lmax[8];
} maxima;

static void pass1_row(job *J, int64_t r, double *B, maxima *X)
{
	const lbt_view *v = J->v;
	const int D = v->dims, last = D - 1;
	const int64_t n = v->ext[last];
	const int tl = v->torus[last] && n > 2;
	const int64_t off = lbt_fiber_base(v, last, r) - v->load;
	const double *w = v->real + off;
	int64_t c[8];
	row_coords(v, r, c);
	memcpy(B, w, (size_t)n * sizeof *B);
	B[n] = tl ? w[0] : w[n - 1]; /* no link: the PE itself, so alpha * (w - w) = +0 */
	const double *nb[8];         /* the row of the neighbours at +1 on each outer axis, NULL: no link */
	for (int d = 0; d < last; d++) {
		const int64_t s = v->stride[d];
		nb[d] = !link_right(c[d], v->ext[d], v->torus[d]) ? NULL : c[d] < v->ext[d] - 1 ? w + s : w - (v->ext[d] - 1) * s;
	}
	const VR a = RSET1(J->alpha), zero = RSET1(0);
	int64_t i = 0;
	for (; i + WD <= n; i += WD) {
		const VR x = RLOAD(B + i);
		for (int d = 0; d < D; d++) {
			VR f;
			if (d == last)
				f = RMUL(a, RSUB(x, RLOADU(B + i + 1)));
			else
				f = nb[d] ? RMUL(a, RSUB(x, RLOAD(nb[d] + i))) : zero;
			RSTORE(J->F[d] + off + i, f);
			X->vr[d] = RMAX(f, X->vr[d]);
			X->vn[d] = RMIN(f, X->vn[d]);
		}
	}
	const int64_t t0 = i;
	for (; i < n; i++) /* the tail, one PE at a time, the same operations */
		for (int d = 0; d < D; d++)
			J->F[d][off + i] = d == last ? J->alpha * (B[i] - B[i + 1]) : nb[d] ? J->alpha * (B[i] - nb[d][i]) : 0;
	/* The last PE of a mesh row (or of extent <= 2) has no link: its flow
	 * is +0. If the vector loop took it, the lanes saw alpha * (w - w),
	 * +0 or NaN, which changes no maximum. */
	if (!tl && n >= 1)
		J->F[last][off + n - 1] = 0;
	for (int d = 0; d < D; d++)
		for (int64_t k = t0; k < n; k++) {
			const double f = J->F[d][off + k];
			X->rmax[d] = f > X->rmax[d] ? f : X->rmax[d];
			X->lmax[d] = -f > X->lmax[d] ? -f : X->lmax[d];
		}
}

/* RB rows' chains in vectors of G lanes, a row a lane: s[j] += p[j][i]
 * (|p[j][i]| if `absolute`) for i = 0 .. n-1 in that order, and likewise
 * t[j] += q[j][i] in the same loop if q is not NULL (the chains are
 * independent, so the two sets of adds overlap). The lanes are filled G PEs
 * at a time by a GxG transpose of G rows' loads (unpack, and for G = 4 a
 * swap of the 128-bit halves): each lane still takes its row's values in
 * order, so every add is the scalar chain's add. G = 4 (256 bits) where
 * the target has AVX, G = 2 on SSE4.1 (SIMDe's 256-bit emulation there is
 * several times slower than the scalar chains; extra.h). */
static void chain8(const double *const *p, const double *const *q, int64_t n, int absolute, double *s, double *t)
{
	const VG sign = GSET1(-0.0);
	VG S[RB / G], T[RB / G];
	for (int g = 0; g < RB / G; g++) {
		S[g] = GLOADU(s + g * G);
		T[g] = q ? GLOADU(t + g * G) : S[g];
	}
	int64_t i = 0;
	for (; i + G <= n; i += G)
		for (int g = 0; g < RB / G; g++) { /* a group of G rows at a time: fewer vectors live at once */
			VG c[G];
			GTRANSPOSE(p + g * G, i, c);
			for (int k = 0; k < G; k++)
				S[g] = GADD(S[g], absolute ? GANDN(sign, c[k]) : c[k]);
			if (q) {
				GTRANSPOSE(q + g * G, i, c);
				for (int k = 0; k < G; k++)
					T[g] = GADD(T[g], c[k]);
			}
		}
	for (; i < n; i++)
		for (int g = 0; g < RB / G; g++) {
			double a[G], b[G];
			for (int j = 0; j < G; j++) {
				a[j] = p[g * G + j][i];
				b[j] = q ? q[g * G + j][i] : 0;
			}
			S[g] = GADD(S[g], absolute ? GANDN(sign, GLOADU(a)) : GLOADU(a));
			if (q)
				T[g] = GADD(T[g], GLOADU(b));
		}
	for (int g = 0; g < RB / G; g++) {
		GSTOREU(s + g * G, S[g]);
		if (q)
			GSTOREU(t + g * G, T[g]);
	}
}

/* k <= RB rows' sums side by side into s[0..k-1]: s[j] += p[j][i] (or
 * |p[j][i]|) for i = 0 .. n-1 in that order, each row's adds a chain of its
 * own. */
static void chains(const double *const *p, int k, int64_t n, int absolute, double *s)
{
	if (k == RB) {
		chain8(p, NULL, n, absolute, s, NULL);
		return;
	}
	for (int j = 0; j < k; j++)
		for (int64_t i = 0; i < n; i++)
			s[j] += absolute ? fabs(p[j][i]) : p[j][i];
}

/* The amount moved on rows r0 .. r0+k-1 (k <= RB) into J->rowsum: each
 * row's |F_d| axis by axis, left to right, as the reference adds them. */
static void row_sums(job *J, int64_t r0, int k)
{
	const lbt_view *v = J->v;
	const int D = v->dims, last = D - 1;
	double s[RB] = {0};
	for (int d = 0; d < D; d++) {
		const double *f[RB] = {0};
		for (int j = 0; j < k; j++)
			f[j] = J->F[d] + (lbt_fiber_base(v, last, r0 + j) - v->load);
		chains(f, k, v->ext[last], 1, s);
	}
	for (int j = 0; j < k; j++)
		J->rowsum[r0 + j] = s[j];
}

/* The extremes of the loads pass 2 leaves, as lbt_field_stats forms them
 * (`w > m ? w : m` from -inf, MAXPD's order of operands): in vector lanes,
 * and the row tails' in scalars. */
typedef struct {
	VR vmx, vmn;
	double mx, mn;
} extremes;

static void pass2_row(job *J, int64_t r, extremes *E)
{
	const lbt_view *v = J->v;
	const int D = v->dims, last = D - 1;
	const int64_t n = v->ext[last];
	const int tl = v->torus[last] && n > 2;
	const int64_t off = lbt_fiber_base(v, last, r) - v->load;
	double *w = v->real + off;
	int64_t c[8];
	row_coords(v, r, c);
	const double *pr[8]; /* F_d of the row at -1 on each outer axis, NULL: no link */
	for (int d = 0; d < last; d++) {
		const int64_t s = v->stride[d];
		pr[d] = !link_left(c[d], v->ext[d], v->torus[d]) ? NULL
		      : c[d] > 0 ? J->F[d] + off - s : J->F[d] + off + (v->ext[d] - 1) * s;
	}
	double *fl = J->F[last] + off;
	fl[-1] = tl ? fl[n - 1] : 0; /* the flow arriving at PE 0 over the wrap-around */
	int64_t i = 0;
	for (; i + WD <= n; i += WD) {
		VR out = RSET1(0), in = RSET1(0);
		for (int d = 0; d < D; d++) {
			out = RADD(out, RLOAD(J->F[d] + off + i));
			if (d == last)
				in = RADD(in, RLOADU(fl + i - 1));
			else if (pr[d])
				in = RADD(in, RLOAD(pr[d] + i));
		}
		const VR x = RADD(RSUB(RLOAD(w + i), out), in);
		RSTORE(w + i, x);
		E->vmx = RMAX(x, E->vmx);
		E->vmn = RMIN(x, E->vmn);
	}
	for (; i < n; i++) {
		double out = 0, in = 0;
		for (int d = 0; d < D; d++) {
			out += J->F[d][off + i];
			if (d == last)
				in += fl[i - 1];
			else if (pr[d])
				in += pr[d][i];
		}
		w[i] = w[i] - out + in;
		E->mx = w[i] > E->mx ? w[i] : E->mx;
		E->mn = w[i] < E->mn ? w[i] : E->mn;
	}
}

/* The loads' sums of rows r0 .. r0+k-1 (k <= RB) into tot, each left to
 * right as lbt_field_stats adds them. */
static void row_totals(job *J, int64_t r0, int k, double *tot)
{
	const lbt_view *v = J->v;
	const int last = v->dims - 1;
	const double *w[RB] = {0};
	double s[RB] = {0};
	for (int j = 0; j < k; j++)
		w[j] = v->real + (lbt_fiber_base(v, last, r0 + j) - v->load);
	chains(w, k, v->ext[last], 0, s);
	for (int j = 0; j < k; j++)
		tot[r0 + j] = s[j];
}

/* ---- 2-D: one pass ---------------------------------------------------
 * On a 2-D grid a row's new loads need only the old rows above and below,
 * so one pass does it: each flow is formed where it is needed — the flows
 * out of row r's PEs, and the flow F_0 = alpha * (w_up - w) into them from
 * the row above, the very product the reference forms for the row above —
 * and the rows' out-flows go to a slot of RB rows that stays in cache for
 * the sums of the amount moved. The loads are updated in place: a thread
 * owns the rows [a, b), copies the old rows a-1 and b (wrapped) before a
 * barrier, and keeps the old copy of the row it last updated. Memory
 * traffic: the loads once read, once written. */

/* Row r from its old copy B (B[n]: its right neighbour over the wrap, or
 * itself), the old rows up and dn (NULL: no link), into f0, f1 (its
 * out-flows; f1[-1] writable) and the grid. */
static void fused_row(job *J, int64_t r, const double *up, const double *dn, double *B, double *f0, double *f1,
                      maxima *X, extremes *E)
{
	const lbt_view *v = J->v;
	const int64_t n = v->ext[1];
	const int tl = v->torus[1] && n > 2;
	double *w = v->real + (lbt_fiber_base(v, 1, r) - v->load);
	memcpy(B, w, (size_t)n * sizeof *B);
	B[n] = tl ? w[0] : w[n - 1]; /* no link: the PE itself, so alpha * (w - w) = +0 */
	const VR a = RSET1(J->alpha), zero = RSET1(0);
	int64_t i = 0;
	for (; i + WD <= n; i += WD) {
		const VR x = RLOAD(B + i);
		const VR g0 = dn ? RMUL(a, RSUB(x, RLOAD(dn + i))) : zero, g1 = RMUL(a, RSUB(x, RLOADU(B + i + 1)));
		RSTORE(f0 + i, g0);
		RSTORE(f1 + i, g1);
		X->vr[0] = RMAX(g0, X->vr[0]);
		X->vn[0] = RMIN(g0, X->vn[0]);
		X->vr[1] = RMAX(g1, X->vr[1]);
		X->vn[1] = RMIN(g1, X->vn[1]);
	}
	const int64_t t0 = i;
	for (; i < n; i++) {
		f0[i] = dn ? J->alpha * (B[i] - dn[i]) : 0;
		f1[i] = J->alpha * (B[i] - B[i + 1]);
	}
	if (!tl && n >= 1)
		f1[n - 1] = 0; /* as pass1_row: the lanes saw +0 or NaN there */
	for (int64_t k = t0; k < n; k++) {
		X->rmax[0] = f0[k] > X->rmax[0] ? f0[k] : X->rmax[0];
		X->lmax[0] = -f0[k] > X->lmax[0] ? -f0[k] : X->lmax[0];
		X->rmax[1] = f1[k] > X->rmax[1] ? f1[k] : X->rmax[1];
		X->lmax[1] = -f1[k] > X->lmax[1] ? -f1[k] : X->lmax[1];
	}
	f1[-1] = tl ? f1[n - 1] : 0; /* the flow arriving at PE 0 over the wrap-around */
	for (i = 0; i + WD <= n; i += WD) {
		const VR x = RLOAD(B + i);
		const VR out = RADD(RADD(zero, RLOAD(f0 + i)), RLOAD(f1 + i));
		VR in = zero;
		if (up)
			in = RADD(in, RMUL(a, RSUB(RLOAD(up + i), x)));
		in = RADD(in, RLOADU(f1 + i - 1));
		const VR y = RADD(RSUB(x, out), in);
		RSTORE(w + i, y);
		E->vmx = RMAX(y, E->vmx);
		E->vmn = RMIN(y, E->vmn);
	}
	for (; i < n; i++) {
		double out = 0, in = 0;
		out += f0[i];
		out += f1[i];
		if (up)
			in += J->alpha * (up[i] - B[i]);
		in += f1[i - 1];
		w[i] = B[i] - out + in;
		E->mx = w[i] > E->mx ? w[i] : E->mx;
		E->mn = w[i] < E->mn ? w[i] : E->mn;
	}
}

#define ROW(r) (v->real + (lbt_fiber_base(v, 1, (r)) - v->load))

/* Before the barrier: thread t of nt (rows [a, b)) copies the old rows a-1
 * and b (wrapped) that its first and last row read. buf: four rows of `rc`
 * cells. */
static void fused_save(const job *J, int t, int nt, double *buf, int64_t rc)
{
	const lbt_view *v = J->v;
	const int64_t R = v->ext[0], n = v->ext[1], a = R * t / nt, b = R * (t + 1) / nt;
	if (b > a && link_left(a, R, v->torus[0]))
		memcpy(buf + 8, ROW(a > 0 ? a - 1 : R - 1), (size_t)n * sizeof *buf);
	if (b > a && link_right(b - 1, R, v->torus[0]))
		memcpy(buf + rc + 8, ROW(b < R ? b : 0), (size_t)n * sizeof *buf);
}

/* After it: thread t's rows, in slots of RB rows; the amount moved and the
 * total per row into J->rowsum and tot. */
static void fused_block(job *J, int t, int nt, double *buf, int64_t rc, double *tot, maxima *X, extremes *E)
{
	const lbt_view *v = J->v;
	const int64_t R = v->ext[0], n = v->ext[1], a = R * t / nt, b = R * (t + 1) / nt;
	const int tor = v->torus[0];
	double *prev = buf + 8, *next = buf + rc + 8, *B = buf + 2 * rc + 8, *old = buf + 3 * rc + 8;
	for (int64_t r0 = a; r0 < b; r0 += RB) {
		const int k = b - r0 < RB ? (int)(b - r0) : RB;
		const double *f[2][RB] = {{0}};
		for (int j = 0; j < k; j++) {
			const int64_t r = r0 + j, slot = lbt_fiber_base(v, 1, a + j) - v->load; /* the slot: rows a.. of F */
			const double *up = !link_left(r, R, tor) ? NULL : r == a ? prev : old;
			const double *dn = !link_right(r, R, tor) ? NULL : r == b - 1 ? next : ROW(r + 1);
			f[0][j] = J->F[0] + slot;
			f[1][j] = J->F[1] + slot;
			fused_row(J, r, up, dn, B, J->F[0] + slot, J->F[1] + slot, X, E);
			double *keep = old; /* B is the old row r: the next row's up */
			old = B;
			B = keep;
		}
		double s[RB] = {0};
		if (k == RB) { /* the amount moved over F_0 and the loads' totals in one loop, then over F_1 */
			const double *w[RB];
			for (int j = 0; j < RB; j++)
				w[j] = ROW(r0 + j);
			double u[RB] = {0};
			chain8(f[0], w, n, 1, s, u);
			chain8(f[1], NULL, n, 1, s, NULL);
			memcpy(tot + r0, u, sizeof u);
		} else {
			chains(f[0], k, n, 1, s);
			chains(f[1], k, n, 1, s);
			row_totals(J, r0, k, tot);
		}
		for (int j = 0; j < k; j++)
			J->rowsum[r0 + j] = s[j];
	}
#undef ROW
}

void LBT_SIMD_FN(lbt_simd_fos_step)(const lbt_view *v, const lbt_diffusion *p, lbt_counts *cnt)
{
	const int D = v->dims, last = D - 1;
	int regular = 1, deg = 0;
	for (int d = 0; d < D; d++) {
		regular &= v->torus[d] || v->ext[d] <= 2;
		deg += v->ext[d] < 2 ? 0 : v->ext[d] == 2 ? 1 : 2;
	}
	if ((p->by_degree && !regular) || !v->scratch || v->cut) { /* a cut view: the reference's */
		lbt_ref_fos_step(v, p, cnt);
		return;
	}
	const lbt_scratch *S = v->scratch;
	const int T = v->threads < S->threads ? v->threads : S->threads;
	const int64_t n = v->ext[last], rows = lbt_fiber_count(v, last);
	job J = {.v = v, .alpha = p->by_degree ? 1.0 / (deg + p->k) : p->alpha};
	for (int d = 0; d < D; d++)
		J.F[d] = (double *)S->link[d] + S->origin; /* F_d at the loads' offsets */
	J.rowsum = S->rowsum;
	double *tot = S->rowsum + rows, mx = -HUGE_VAL, mn = HUGE_VAL;
#pragma omp parallel num_threads(T) if (rows * n > 16384)
	{
		const int t = lbt_thread_id();
		double *buf = lbt_scratch_row(S, t);
		maxima X;
		extremes E = {RSET1(-HUGE_VAL), RSET1(HUGE_VAL), -HUGE_VAL, HUGE_VAL};
		for (int d = 0; d < D; d++) {
			X.vr[d] = X.vn[d] = RSET1(0);
			X.rmax[d] = X.lmax[d] = 0;
		}
		if (D == 2) {
			fused_save(&J, t, lbt_team_size(), buf, S->row_cells / 4);
#pragma omp barrier
			fused_block(&J, t, lbt_team_size(), buf, S->row_cells / 4, tot, &X, &E);
		} else {
#pragma omp for schedule(static)
			for (int64_t b = 0; b < (rows + RB - 1) / RB; b++) {
				const int k = rows - b * RB < RB ? (int)(rows - b * RB) : RB;
				for (int j = 0; j < k; j++)
					pass1_row(&J, b * RB + j, buf + 8, &X);
				row_sums(&J, b * RB, k);
			}
#pragma omp for schedule(static)
			for (int64_t b = 0; b < (rows + RB - 1) / RB; b++) {
				const int k = rows - b * RB < RB ? (int)(rows - b * RB) : RB;
				for (int j = 0; j < k; j++)
					pass2_row(&J, b * RB + j, &E);
				row_totals(&J, b * RB, k, tot);
			}
		}
		double a[4][WD] __attribute__((aligned(64)));
		RSTORE(a[2], E.vmx);
		RSTORE(a[3], E.vmn);
		for (int j = 0; j < WD; j++) {
			E.mx = a[2][j] > E.mx ? a[2][j] : E.mx;
			E.mn = a[3][j] < E.mn ? a[3][j] : E.mn;
		}
		for (int d = 0; d < D; d++) {
			RSTORE(a[0], X.vr[d]);
			RSTORE(a[1], X.vn[d]);
			for (int j = 0; j < WD; j++) {
				X.rmax[d] = a[0][j] > X.rmax[d] ? a[0][j] : X.rmax[d];
				X.lmax[d] = -a[1][j] > X.lmax[d] ? -a[1][j] : X.lmax[d];
			}
		}
#pragma omp critical(lbt_simd_fos)
		{
			for (int d = 0; d < D; d++) {
				J.rmax[d] = fmax(J.rmax[d], X.rmax[d]);
				J.lmax[d] = fmax(J.lmax[d], X.lmax[d]);
			}
			mx = fmax(mx, E.mx);
			mn = fmin(mn, E.mn);
		}
	}
	double moved = 0, total = 0, shifts = 0, link_max = 0;
	for (int64_t r = 0; r < rows; r++) { /* row order: the bits of any thread count */
		moved += J.rowsum[r];
		total += tot[r];
	}
	for (int d = 0; d < D; d++) {
		shifts += J.rmax[d] + J.lmax[d];
		link_max = fmax(link_max, fmax(J.rmax[d], J.lmax[d]));
	}
	cnt->has_stats = 1; /* the loads' extremes and total, as lbt_field_stats forms them */
	cnt->real_max = mx;
	cnt->real_min = mn;
	cnt->real_total = total;
	cnt->real_moved += moved;
	cnt->real_shifts += shifts;
	cnt->link_max = fmax(cnt->link_max, link_max);
}

/* ---- Several steps a call: a 2-D torus in lanes --------------------------
 * On a 2-D torus of R x n PEs (R >= 3 a multiple of WD, n >= 3) on one thread, a
 * call of several steps moves the loads once into groups of WD rows side by
 * side (group j's vector i holds PE i of rows j, B + j, 2B + j, ..., B =
 * R/WD: one band of rows a lane) and back once at its end, each group by
 * WD x WD transposes within the first and the last step's pass, just
 * before and after that group's step (so those steps read and write it in
 * cache). Every link is
 * then a vertical operation: along a row vector i with i + 1; down, group j
 * with j + 1, and the bands' last group with the first rotated by one lane
 * (lane k of group B-1 is row (k+1)B - 1, whose row below is lane k+1 of
 * group 0; the last lane wraps to row 0). A step is one pass over the groups
 * in order, each updated in place: its flows down need the next group's old
 * loads (group 0's, for the last, saved before the pass), and its in-flows
 * from above are the previous group's flows down, left in a buffer of one
 * group (for group 0 those of group B-1 against the old group 0, formed
 * before the pass: the same products). The in-flow from the left is the
 * last vector's flow along the row, in a register. Each lane is one row, so
 * the rows' chains of adds — the amount moved, |F_0| left to right then
 * |F_1| left to right, and the new loads' total — run in the reference's
 * order with no transposes; the rows' sums are then added in row order, as
 * the one-step kernel does. The maxima are order-free (see the top of the
 * file), and the extremes too: no load a step leaves is -0 (in = (+0 + F_0)
 * + F_1 is never -0, so neither is (w - out) + in) and none is NaN. */
#if W == 16
#define RANDN(a, b) simde_mm512_andnot_pd((a), (b))
static ALWAYS_INLINE VR rot_down(VR x) { return simde_mm512_permutexvar_pd(simde_mm512_set_epi64(0, 7, 6, 5, 4, 3, 2, 1), x); }
static ALWAYS_INLINE VR rot_up(VR x) { return simde_mm512_permutexvar_pd(simde_mm512_set_epi64(6, 5, 4, 3, 2, 1, 0, 7), x); }
#elif W == 8
#define RANDN(a, b) simde_mm256_andnot_pd((a), (b))
static ALWAYS_INLINE VR rot_down(VR x) { return simde_mm256_permute4x64_pd(x, SIMDE_MM_SHUFFLE(0, 3, 2, 1)); }
static ALWAYS_INLINE VR rot_up(VR x) { return simde_mm256_permute4x64_pd(x, SIMDE_MM_SHUFFLE(2, 1, 0, 3)); }
#else
#define RANDN(a, b) simde_mm_andnot_pd((a), (b))
static ALWAYS_INLINE VR rot_down(VR x) { return simde_mm_shuffle_pd(x, x, 1); }
static ALWAYS_INLINE VR rot_up(VR x) { return simde_mm_shuffle_pd(x, x, 1); }
#endif
/* rot_down: lane k of the result is lane k + 1 of x; rot_up: lane k - 1 (cyclically). */

typedef struct {
	const lbt_view *v;
	double alpha;
	int64_t n, R, B;
	double *G;        /* the groups, n vectors each */
	double *F0, *F1;  /* a group's flows down (the in-flows of the next) and along the rows */
	double *S0;       /* group 0's loads before the step */
	double *rs, *tot; /* per row: the amount moved, the total */
} lanes;

static int lanes_fit(const lbt_view *v)
{
	const lbt_scratch *S = v->scratch;
	if (!S || v->cut || v->dims != 2 || !v->torus[0] || !v->torus[1] || v->ext[0] % WD || v->ext[0] < 3 || v->ext[1] < 3)
		return 0;
	const int64_t P = v->ext[0] * v->ext[1], n = v->ext[1];
	return (v->threads == 1 || P <= 16384) && P <= S->cells && 3 * WD * n <= S->cells;
}

/* Group j's rows into the group (in) or back, WD PEs of WD rows at a time
 * by a transpose (it is its own inverse), the rows' tails one PE at a time. */
static void lanes_move(const lanes *X, int64_t j, int in)
{
	const lbt_view *v = X->v;
	const int64_t n = X->n;
	double *w[WD], *g = X->G + j * n * WD;
	for (int q = 0; q < WD; q++)
		w[q] = v->real + (lbt_fiber_base(v, 1, q * X->B + j) - v->load);
	int64_t i = 0;
	for (; i + WD <= n; i += WD) {
		VR c[WD];
		if (in) {
			RTRANSPOSE((const double *const *)w, i, c);
			for (int k = 0; k < WD; k++)
				RSTORE(g + (i + k) * WD, c[k]);
		} else {
			const double *h[WD];
			for (int k = 0; k < WD; k++)
				h[k] = g + (i + k) * WD;
			RTRANSPOSE(h, 0, c);
			for (int q = 0; q < WD; q++)
				RSTOREU(w[q] + i, c[q]);
		}
	}
	for (; i < n; i++)
		for (int q = 0; q < WD; q++) {
			if (in)
				g[i * WD + q] = w[q][i];
			else
				w[q][i] = g[i * WD + q];
		}
}

typedef struct {
	VR rr[2], ln[2]; /* per axis the largest and the least flow */
	VR mx, mn;       /* the new loads' extremes */
} lstat;

/* Group j's step: its rows' flows, new loads and chains. last: the group
 * below is group 0 rotated (its old loads in S0). */
static ALWAYS_INLINE void lanes_group(const lanes *X, int64_t j, int last, lstat *L)
{
	const int64_t n = X->n;
	const VR a = RSET1(X->alpha), zero = RSET1(0), sign = RSET1(-0.0);
	double *x = X->G + j * n * WD, *F0 = X->F0, *F1 = X->F1;
	const double *dn = last ? X->S0 : x + n * WD;
	const VR x0 = RLOAD(x);
	VR prev = RMUL(a, RSUB(RLOAD(x + (n - 1) * WD), x0)); /* F_1 of PE n-1: PE 0's in-flow */
	VR s = zero, t = zero, rr0 = L->rr[0], ln0 = L->ln[0], rr1 = L->rr[1], ln1 = L->ln[1], mx = L->mx, mn = L->mn;
	for (int64_t i = 0; i < n; i++) {
		const VR xi = RLOAD(x + i * WD), xr = i + 1 < n ? RLOAD(x + (i + 1) * WD) : x0;
		const VR d = last ? rot_down(RLOAD(dn + i * WD)) : RLOAD(dn + i * WD);
		const VR g0 = RMUL(a, RSUB(xi, d)), g1 = RMUL(a, RSUB(xi, xr));
		const VR fu = RLOAD(F0 + i * WD);
		RSTORE(F0 + i * WD, g0);
		RSTORE(F1 + i * WD, g1);
		s = RADD(s, RANDN(sign, g0));
		rr0 = RMAX(g0, rr0);
		ln0 = RMIN(g0, ln0);
		rr1 = RMAX(g1, rr1);
		ln1 = RMIN(g1, ln1);
		const VR out = RADD(RADD(zero, g0), g1), in = RADD(RADD(zero, fu), prev);
		const VR y = RADD(RSUB(xi, out), in);
		prev = g1;
		RSTORE(x + i * WD, y);
		t = RADD(t, y);
		mx = RMAX(y, mx);
		mn = RMIN(y, mn);
	}
	for (int64_t i = 0; i < n; i++)
		s = RADD(s, RANDN(sign, RLOAD(F1 + i * WD)));
	double sv[WD] __attribute__((aligned(64))), tv[WD] __attribute__((aligned(64)));
	RSTORE(sv, s);
	RSTORE(tv, t);
	for (int q = 0; q < WD; q++) {
		X->rs[q * X->B + j] = sv[q];
		X->tot[q * X->B + j] = tv[q];
	}
	L->rr[0] = rr0, L->ln[0] = ln0, L->rr[1] = rr1, L->ln[1] = ln1, L->mx = mx, L->mn = mn;
}

/* One step over the groups; its counts as the one-step kernel gives them.
 * first: the call's first step, which moves each group's rows into it just
 * before the group is read (groups 0 and B-1 before the pass, group j + 1
 * before group j's step, which reads it), so the step reads them from
 * cache; out: each group's rows go back to the grid as soon as its step is
 * done (no later group of the pass reads it: group B-1 reads group 0's
 * old loads from S0). */
static void lanes_step(const lanes *X, int first, int out, lbt_counts *k)
{
	const int64_t n = X->n, B = X->B;
	if (first) {
		lanes_move(X, 0, 1);
		if (B > 1)
			lanes_move(X, B - 1, 1);
	}
	memcpy(X->S0, X->G, (size_t)(n * WD) * sizeof *X->S0);
	const VR a = RSET1(X->alpha);
	const double *xl = X->G + (B - 1) * n * WD;
	for (int64_t i = 0; i < n; i++) /* group B-1's flows down, rotated to the rows below them: group 0's in-flows */
		RSTORE(X->F0 + i * WD, rot_up(RMUL(a, RSUB(RLOAD(xl + i * WD), rot_down(RLOAD(X->S0 + i * WD))))));
	lstat L = {{RSET1(0), RSET1(0)}, {RSET1(0), RSET1(0)}, RSET1(-HUGE_VAL), RSET1(HUGE_VAL)};
	for (int64_t j = 0; j + 1 < B; j++) {
		if (first && j + 2 < B)
			lanes_move(X, j + 1, 1);
		lanes_group(X, j, 0, &L);
		if (out)
			lanes_move(X, j, 0);
	}
	lanes_group(X, B - 1, 1, &L);
	if (out)
		lanes_move(X, B - 1, 0);
	double v[6][WD] __attribute__((aligned(64))), rmax[2] = {0, 0}, lmax[2] = {0, 0}, mx = -HUGE_VAL, mn = HUGE_VAL;
	RSTORE(v[0], L.rr[0]);
	RSTORE(v[1], L.ln[0]);
	RSTORE(v[2], L.rr[1]);
	RSTORE(v[3], L.ln[1]);
	RSTORE(v[4], L.mx);
	RSTORE(v[5], L.mn);
	for (int q = 0; q < WD; q++) {
		for (int d = 0; d < 2; d++) {
			rmax[d] = v[2 * d][q] > rmax[d] ? v[2 * d][q] : rmax[d];
			lmax[d] = -v[2 * d + 1][q] > lmax[d] ? -v[2 * d + 1][q] : lmax[d];
		}
		mx = v[4][q] > mx ? v[4][q] : mx;
		mn = v[5][q] < mn ? v[5][q] : mn;
	}
	double moved = 0, total = 0, shifts = 0, link_max = 0;
	for (int64_t r = 0; r < X->R; r++) { /* row order, as the one-step kernel */
		moved += X->rs[r];
		total += X->tot[r];
	}
	for (int d = 0; d < 2; d++) {
		shifts += rmax[d] + lmax[d];
		link_max = fmax(link_max, fmax(rmax[d], lmax[d]));
	}
	*k = (lbt_counts){.has_stats = 1, .real_max = mx, .real_min = mn, .real_total = total};
	k->real_moved += moved;
	k->real_shifts += shifts;
	k->link_max = fmax(k->link_max, link_max);
}

/* Whether a step's counts meet the call's stop (kernels.h; the extremes
 * truncated, as de_steps does). */
static int stop_met(const lbt_steps_stop *st, const lbt_counts *c)
{
	return st && (c->real_max - c->real_min <= (double)st->ldiff || (st->shared && c->real_min > 0) ||
	              (st->max >= st->min && trunc(c->real_max) == st->max && trunc(c->real_min) == st->min));
}

/* On a torus every PE has degree 4, so by-degree weights are one number. */
static int lane_steps(const lbt_view *v, const lbt_diffusion *p, int n, const lbt_steps_stop *stop, lbt_counts *c)
{
	const lbt_scratch *S = v->scratch;
	const int64_t R = v->ext[0], m = v->ext[1];
	lanes X = {.v = v, .alpha = p->by_degree ? 1.0 / (4 + p->k) : p->alpha, .n = m, .R = R, .B = R / WD,
	           .G = S->link[0], .F0 = S->link[1], .F1 = (double *)S->link[1] + m * WD, .S0 = (double *)S->link[1] + 2 * m * WD,
	           .rs = S->rowsum, .tot = S->rowsum + R};
	int s = 0, out = 1; /* out: the rows are back in the grid (none moved yet) */
	while (s < n) { /* the rows back in the last step asked for; after a step that meets the stop, in a pass of their own */
		out = s + 1 == n;
		lanes_step(&X, s == 0, out, &c[s]);
		if (stop_met(stop, &c[s++]))
			break;
	}
	for (int64_t j = 0; !out && j < X.B; j++)
		lanes_move(&X, j, 0);
	return s;
}

int LBT_SIMD_FN(lbt_simd_fos_steps)(const lbt_view *v, const lbt_diffusion *p, int n, const lbt_steps_stop *stop,
                                    lbt_counts *c)
{
	if (lanes_fit(v))
		return lane_steps(v, p, n, stop, c);
	*c = (lbt_counts){0};
	LBT_SIMD_FN(lbt_simd_fos_step)(v, p, c);
	return 1;
}

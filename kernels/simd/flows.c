/* flows.c — the integer link-flow methods as vector kernels: nearest-
 * neighbour averaging (seed 000 §2.3/§5, kernels/ref/nna.c) and first-order
 * diffusion with integer flows (seed 002 eq. (2), kernels/ref/diffusion.c).
 * Compiled once per ISA target (see simd.h); checked bit for bit against the
 * references by tests/checkasm/flows.c.
 *
 * Both are two passes over the grid (but integer diffusion on a 2-D grid:
 * one pass, below, "one pass"). Pass 1 computes, for every PE i and axis
 * d, the net flow F_d[i] on the link (i, i+1_d) from the old loads (NNA: with
 * the reference's rounding and the per-PE budget that keeps loads
 * non-negative); F_d lives in a scratch grid of the same layout, so its
 * rows and halo line up with the loads. Pass 2 writes
 * L_i - sum_d F_d[i] + sum_d F_d[i-1_d] in place. The last (contiguous) axis
 * reads its neighbours from a per-thread row buffer with the wrap-around in
 * its halo (no read past the grid), outer axes from the rows at +-stride
 * (their halo rows filled from the opposite edge).
 *
 * Arithmetic. Loads are non-negative int32, so every difference L_i - L_j
 * fits in int32. The reference's quotients — trunc(diff / c) as C integer
 * division, floor(n / den) for NNA, trunc(alpha * (double)diff) — are formed
 * here as the same IEEE double operations, lane by lane: a quotient of two
 * integers below 2^31 and 2^22 is never within rounding of an integer it is
 * not, so the truncated double quotient is the integer quotient, and the
 * product alpha*diff is the very product the reference rounds.
 *
 * Scope. NNA's shares and the by-degree weights depend on each PE's degree;
 * the kernels handle regular shapes (every axis a torus, or of extent <= 2)
 * and hand the rest (meshes with an axis of extent >= 3) to the reference.
 * Integer diffusion with one alpha is vectorized on every shape.
 *
 * Threads. Rows are split statically; every counter is an exact integer sum
 * or maximum, so the result is the same for any thread count. */
#include <stdlib.h>
#include <string.h>

#include "../fiber.h"
#include "extra.h"

typedef struct {
	int mode;
	double c;        /* NNA: |Δ|+1; FOS_DIV: deg + k */
	V ci;            /* the same as int32 (NNA's remainder) */
	double alpha;    /* FOS_ALPHA */
} params;

/* Does the PE at coordinate c on an axis of extent n have a link to c+1 / c-1? */
static int link_right(int64_t c, int64_t n, int torus) { return n >= 2 && (c < n - 1 || (torus && n > 2)); }
static int link_left(int64_t c, int64_t n, int torus) { return n >= 2 && (c > 0 || (torus && n > 2)); }

static int regular(const lbt_view *v)
{
	for (int d = 0; d < v->dims; d++)
		if (!v->torus[d] && v->ext[d] > 2)
			return 0;
	return 1;
}

static int degree(const lbt_view *v)
{
	int deg = 0;
	for (int d = 0; d < v->dims; d++)
		deg += v->ext[d] < 2 ? 0 : v->ext[d] == 2 ? 1 : 2;
	return deg;
}

typedef struct {
	V rmax[8], lmax[8]; /* per axis, largest flow towards higher / lower index */
	V moved;            /* W/2 int64 lanes */
} acc;

/* The flow quotient of a difference x on one link. */
static ALWAYS_INLINE V quotient(const params *q, V x)
{
	return q->mode == FOS_ALPHA ? vconv(x, q->alpha, 0) : vconv(x, q->c, 1);
}

/* Pass 1 on row r: F_d for its PEs. B holds the row with B[-1], B[n] its
 * wrap-around neighbours on the last axis. */
static void pass1_row(const lbt_view *v, const params *q, int32_t *const *F, int64_t r, int32_t *B, acc *A)
{
	const int D = v->dims, last = D - 1;
	const int64_t n = v->ext[last];
	const int tl = v->torus[last] && n > 2;
	int32_t *p = lbt_fiber_base(v, last, r);
	const int64_t off = p - v->load;
	int64_t c[8], t = r;
	for (int d = last - 1; d >= 0; d--) {
		c[d] = t % v->ext[d];
		t /= v->ext[d];
	}
	memcpy(B, p, (size_t)n * sizeof *B);
	B[-1] = tl ? p[n - 1] : 0;
	B[n] = tl ? p[0] : 0;
	const V zero = VSET1(0), iota = VIOTA();
	for (int64_t i = 0; i < n; i += W) {
		const int64_t left = n - i < W ? n - i : W;
		const M valid = MFIRST(left);
		const V pos = VADD(iota, VSET1((int32_t)i));
		const V l = VLOAD(B + i);
		V f[8];
		M right[8];
		V sent = zero;
		for (int d = 0; d < D; d++) {
			V ln, lp;
			M mr, ml;
			if (d == last) {
				ln = VLOADU(B + i + 1);
				lp = VLOADU(B + i - 1);
				mr = tl ? valid : MAND(valid, MGT(VSET1((int32_t)(n - 1)), pos));
				ml = tl ? valid : MAND(valid, MGT(pos, zero));
			} else {
				const int64_t s = v->stride[d];
				ln = VLOAD(p + i + s);
				lp = VLOAD(p + i - s);
				mr = link_right(c[d], v->ext[d], v->torus[d]) ? valid : MNONE;
				ml = link_left(c[d], v->ext[d], v->torus[d]) ? valid : MNONE;
			}
			right[d] = mr;
			f[d] = VSEL(mr, quotient(q, VSUB(l, ln)), zero);
			if (q->mode == NNA) { /* rounded-down amounts P_i owes to both sides */
				sent = VADD(sent, VMAX(f[d], zero));
				sent = VADD(sent, VSEL(ml, VMAX(quotient(q, VSUB(l, lp)), zero), zero));
			}
		}
		for (int d = 0; d < D; d++) {
			if (q->mode == NNA) { /* axis 0 first: round a fractional rightward flow up while affordable */
				V ln = d == last ? VLOADU(B + i + 1) : VLOAD(p + i + v->stride[d]);
				V diff = VSUB(l, ln);
				M up = MAND(MAND(right[d], MGT(diff, zero)), MAND(MNE(VMULLO(f[d], q->ci), diff), MGT(l, sent)));
				f[d] = VINC(f[d], up);
				sent = VINC(sent, up);
			}
			VSTORE(F[d] + off + i, f[d]);
			A->rmax[d] = VMAX(A->rmax[d], f[d]);
			A->lmax[d] = VMAX(A->lmax[d], VSUB(zero, f[d]));
			A->moved = FADD64(A->moved, VABS(f[d]));
		}
	}
}

/* The state pass 2 leaves, measured as it is written: extremes, and the
 * total as W/2 int64 lanes of L_i + 2^31 (the int32 bits offset into
 * [0, 2^32), so a negative load sums exactly too; lbt_counts takes 2^31
 * per PE off again). */
typedef struct {
	V mx, mn, su;
} stats;

/* Pass 2 on row r: L_i -= sum_d F_d[i]; L_i += sum_d F_d[i-1_d]. */
static void pass2_row(const lbt_view *v, int32_t *const *F, int64_t r, stats *St)
{
	const int D = v->dims, last = D - 1;
	const int64_t n = v->ext[last];
	int32_t *p = lbt_fiber_base(v, last, r);
	const int64_t off = p - v->load;
	int64_t c[8], t = r;
	for (int d = last - 1; d >= 0; d--) {
		c[d] = t % v->ext[d];
		t /= v->ext[d];
	}
	int32_t *fl = F[last] + off;
	fl[-1] = v->torus[last] && n > 2 ? fl[n - 1] : 0; /* the flow arriving at PE 0 over the wrap */
	int inflow[8];
	for (int d = 0; d < last; d++)
		inflow[d] = link_left(c[d], v->ext[d], v->torus[d]);
	for (int64_t i = 0; i < n; i += W) {
		const M valid = MFIRST(n - i < W ? n - i : W);
		V l = VLOAD(p + i), x = l;
		for (int d = 0; d < D; d++)
			x = VSUB(x, VLOAD(F[d] + off + i));
		for (int d = 0; d < last; d++)
			if (inflow[d])
				x = VADD(x, VLOAD(F[d] + off + i - v->stride[d]));
		x = VADD(x, VLOADU(fl + i - 1));
		VSTORE(p + i, VSEL(valid, x, l));
		St->mx = VMAX(St->mx, VSEL(valid, x, VSET1(INT32_MIN)));
		St->mn = VMIN(St->mn, VSEL(valid, x, VSET1(INT32_MAX)));
		St->su = FADD64(St->su, VSEL(valid, VSUB(x, VSET1(INT32_MIN)), VSET1(0)));
	}
}

static void flows_step(const lbt_view *v, const params *q, lbt_counts *cnt)
{
	const int D = v->dims, last = D - 1;
	const int64_t n = v->ext[last];
	const lbt_scratch *S = v->scratch;
	int32_t *F[8];
	for (int d = 0; d < D; d++)
		F[d] = (int32_t *)S->link[d] + S->origin; /* the flows at the loads' offsets */
	const int T = v->threads < S->threads ? v->threads : S->threads;
	for (int d = 0; d < last; d++)
		lbt_halo_fill(v, d); /* outer neighbours at the torus edges */
	const int64_t rows = lbt_fiber_count(v, last);
	int64_t moved = 0, rmax[8] = {0}, lmax[8] = {0};
#pragma omp parallel num_threads(T) if (rows * n > 16384)
	{
		int32_t *buf = lbt_scratch_row(S, lbt_thread_id());
		memset(buf, 0, (size_t)(n + 2 * 64) * sizeof *buf);
		acc A;
		memset(&A, 0, sizeof A);
#pragma omp for schedule(static)
		for (int64_t r = 0; r < rows; r++)
			pass1_row(v, q, F, r, buf + 64, &A);
#pragma omp critical(lbt_simd_flows)
		{
			moved += fsum64(A.moved);
			for (int d = 0; d < D; d++) {
				int32_t a = vmax32(A.rmax[d]), b = vmax32(A.lmax[d]);
				rmax[d] = a > rmax[d] ? a : rmax[d];
				lmax[d] = b > lmax[d] ? b : lmax[d];
			}
		}
	}
	for (int d = 0; d < last; d++) {
		lbt_view fv = *v;
		fv.load = F[d];
		lbt_halo_fill(&fv, d); /* flows arriving over the wrap-around of axis d */
	}
	int32_t mx = INT32_MIN, mn = INT32_MAX;
	uint64_t su = 0; /* the loads + 2^31 each, modulo 2^64: exact where the total fits int64 */
#pragma omp parallel num_threads(T) if (rows * n > 16384)
	{
		stats St = {VSET1(INT32_MIN), VSET1(INT32_MAX), VSET1(0)};
#pragma omp for schedule(static)
		for (int64_t r = 0; r < rows; r++)
			pass2_row(v, F, r, &St);
#pragma omp critical(lbt_simd_flows)
		{
			const int32_t a = vmax32(St.mx), b = vmin32(St.mn);
			mx = a > mx ? a : mx;
			mn = b < mn ? b : mn;
			su += (uint64_t)fsum64(St.su);
		}
	}
	cnt->has_stats = 1;
	cnt->max = mx;
	cnt->min = mn;
	cnt->total = (int64_t)(su - ((uint64_t)(rows * n) << 31));
	int64_t link_max = 0;
	for (int d = 0; d < D; d++) {
		cnt->shifts += rmax[d] + lmax[d];
		link_max = rmax[d] > link_max ? rmax[d] : link_max;
		link_max = lmax[d] > link_max ? lmax[d] : link_max;
	}
	cnt->moved += moved;
	cnt->link_max = (double)link_max > cnt->link_max ? (double)link_max : cnt->link_max;
}

/* ---- Integer diffusion on 2-D grids: one pass ------------------------
 * As kernels/simd/fos.c does for real loads: each flow is formed where it
 * is needed (a row's out-flows, and the flow q(L_up - L) into it from the
 * row above: the very quotient the reference forms for the row above),
 * the loads read and written once, in place. A thread owns the rows
 * [a, b), copies the old rows a-1 and b (wrapped) before a barrier, and
 * keeps the old copy of the row it last updated. Not NNA: its flow from
 * the row above depends on that PE's budget, so on the row above that. */

#define ROW(r) lbt_fiber_base(v, 1, (r))

static void one_save(const lbt_view *v, int t, int nt, int32_t *buf, int64_t rc)
{
	const int64_t R = v->ext[0], n = v->ext[1], a = R * t / nt, b = R * (t + 1) / nt;
	if (b > a && link_left(a, R, v->torus[0]))
		memcpy(buf + 64, ROW(a > 0 ? a - 1 : R - 1), (size_t)n * sizeof *buf);
	if (b > a && link_right(b - 1, R, v->torus[0]))
		memcpy(buf + rc + 64, ROW(b < R ? b : 0), (size_t)n * sizeof *buf);
}

/* Row r from its old copy B (B[-1], B[n]: its wrap-around neighbours), the
 * old rows up and dn (NULL: no link), in place. */
static void one_row(const lbt_view *v, const params *q, int64_t r, const int32_t *up, const int32_t *dn, int32_t *B,
                    acc *A, stats *St)
{
	const int64_t n = v->ext[1];
	const int tl = v->torus[1] && n > 2;
	int32_t *p = ROW(r);
	memcpy(B, p, (size_t)n * sizeof *B);
	B[-1] = tl ? p[n - 1] : 0;
	B[n] = tl ? p[0] : 0;
	const V zero = VSET1(0), iota = VIOTA();
	for (int64_t i = 0; i < n; i += W) {
		const M valid = MFIRST(n - i < W ? n - i : W);
		const V pos = VADD(iota, VSET1((int32_t)i));
		const V l = VLOAD(B + i);
		const M mr = tl ? valid : MAND(valid, MGT(VSET1((int32_t)(n - 1)), pos));
		const M ml = tl ? valid : MAND(valid, MGT(pos, zero));
		const V f0 = dn ? VSEL(valid, quotient(q, VSUB(l, VLOAD(dn + i))), zero) : zero;
		const V f1 = VSEL(mr, quotient(q, VSUB(l, VLOADU(B + i + 1))), zero);
		const V g0 = up ? VSEL(valid, quotient(q, VSUB(VLOAD(up + i), l)), zero) : zero; /* the row above's F_0 */
		const V g1 = VSEL(ml, quotient(q, VSUB(VLOADU(B + i - 1), l)), zero);             /* PE i-1's F_1 */
		A->rmax[0] = VMAX(A->rmax[0], f0);
		A->lmax[0] = VMAX(A->lmax[0], VSUB(zero, f0));
		A->rmax[1] = VMAX(A->rmax[1], f1);
		A->lmax[1] = VMAX(A->lmax[1], VSUB(zero, f1));
		A->moved = FADD64(A->moved, VABS(f0));
		A->moved = FADD64(A->moved, VABS(f1));
		const V x = VADD(VADD(VSUB(VSUB(l, f0), f1), g0), g1);
		VSTORE(p + i, VSEL(valid, x, VLOAD(p + i)));
		St->mx = VMAX(St->mx, VSEL(valid, x, VSET1(INT32_MIN)));
		St->mn = VMIN(St->mn, VSEL(valid, x, VSET1(INT32_MAX)));
		St->su = FADD64(St->su, VSEL(valid, VSUB(x, VSET1(INT32_MIN)), VSET1(0)));
	}
}

static void one_block(const lbt_view *v, const params *q, int t, int nt, int32_t *buf, int64_t rc, acc *A, stats *St)
{
	const int64_t R = v->ext[0], a = R * t / nt, b = R * (t + 1) / nt;
	const int tor = v->torus[0];
	const int32_t *prev = buf + 64, *next = buf + rc + 64;
	int32_t *B = buf + 2 * rc + 64, *old = buf + 3 * rc + 64;
	for (int64_t r = a; r < b; r++) {
		const int32_t *up = !link_left(r, R, tor) ? NULL : r == a ? prev : old;
		const int32_t *dn = !link_right(r, R, tor) ? NULL : r == b - 1 ? next : ROW(r + 1);
		one_row(v, q, r, up, dn, B, A, St);
		int32_t *keep = old; /* B is the old row r: the next row's up */
		old = B;
		B = keep;
	}
}
#undef ROW

static void one_pass_step(const lbt_view *v, const params *q, lbt_counts *cnt)
{
	const lbt_scratch *S = v->scratch;
	const int T = v->threads < S->threads ? v->threads : S->threads;
	const int64_t R = v->ext[0], n = v->ext[1], rc = S->row_cells * 2 / 4; /* int32 cells of a quarter */
	int64_t moved = 0, rmax[2] = {0}, lmax[2] = {0};
	int32_t mx = INT32_MIN, mn = INT32_MAX;
	uint64_t su = 0;
#pragma omp parallel num_threads(T) if (R * n > 16384)
	{
		const int t = lbt_thread_id();
		int32_t *buf = lbt_scratch_row(S, t);
		acc A;
		memset(&A, 0, sizeof A);
		stats St = {VSET1(INT32_MIN), VSET1(INT32_MAX), VSET1(0)};
		one_save(v, t, lbt_team_size(), buf, rc);
#pragma omp barrier
		one_block(v, q, t, lbt_team_size(), buf, rc, &A, &St);
#pragma omp critical(lbt_simd_flows)
		{
			moved += fsum64(A.moved);
			for (int d = 0; d < 2; d++) {
				const int32_t x = vmax32(A.rmax[d]), y = vmax32(A.lmax[d]);
				rmax[d] = x > rmax[d] ? x : rmax[d];
				lmax[d] = y > lmax[d] ? y : lmax[d];
			}
			const int32_t x = vmax32(St.mx), y = vmin32(St.mn);
			mx = x > mx ? x : mx;
			mn = y < mn ? y : mn;
			su += (uint64_t)fsum64(St.su);
		}
	}
	int64_t link_max = 0;
	for (int d = 0; d < 2; d++) {
		cnt->shifts += rmax[d] + lmax[d];
		link_max = rmax[d] > link_max ? rmax[d] : link_max;
		link_max = lmax[d] > link_max ? lmax[d] : link_max;
	}
	cnt->moved += moved;
	cnt->link_max = (double)link_max > cnt->link_max ? (double)link_max : cnt->link_max;
	cnt->has_stats = 1;
	cnt->max = mx;
	cnt->min = mn;
	cnt->total = (int64_t)(su - ((uint64_t)(R * n) << 31));
}

void LBT_SIMD_FN(lbt_simd_nna_step)(const lbt_view *v, lbt_counts *c)
{
	if (!regular(v) || !v->scratch || v->cut) { /* a cut view: the reference's */
		lbt_ref_nna_step(v, c);
		return;
	}
	const int cd = degree(v) + 1;
	params q = {.mode = NNA, .c = cd, .ci = VSET1(cd)};
	flows_step(v, &q, c);
}

void LBT_SIMD_FN(lbt_simd_fos_int_step)(const lbt_view *v, const lbt_diffusion *p, lbt_counts *c)
{
	if ((p->by_degree && !regular(v)) || !v->scratch || v->cut) { /* a cut view: the reference's */
		lbt_ref_fos_int_step(v, p, c);
		return;
	}
	params q = {.mode = p->by_degree ? FOS_DIV : FOS_ALPHA, .c = degree(v) + p->k, .ci = VSET1(0),
	            .alpha = p->alpha};
	if (v->dims == 2)
		one_pass_step(v, &q, c);
	else
		flows_step(v, &q, c);
}

/* flows.c — the integer link-flow methods as vector kernels: nearest-
 * neighbour averaging (seed 000 §2.3/§5, kernels/ref/nna.c) and first-order
 * diffusion with integer flows (seed 002 eq. (2), kernels/ref/diffusion.c).
 * Compiled once per ISA target (see simd.h); checked bit for bit against the
 * references by tests/checkasm/flows.c.
 *
 * On 2-D grids both take one pass (below, "one pass"); other D take two.
 * Pass 1 computes, for every PE i and axis d, the net flow F_d[i] on the
 * link (i, i+1_d) from the old loads (NNA: with the reference's rounding
 * and the per-PE budget that keeps loads non-negative); F_d lives in a
 * scratch grid of the same layout, so its rows and halo line up with the
 * loads. Pass 2 writes L_i - sum_d F_d[i] + sum_d F_d[i-1_d] in place. The
 * last (contiguous) axis reads its neighbours from a per-thread row buffer
 * with the wrap-around in its halo (no read past the grid), outer axes
 * from the rows at +-stride (their halo rows filled from the opposite edge).
 *
 * Arithmetic. Loads are non-negative int32, so every difference L_i - L_j
 * fits in int32 and |L_i - L_j| < 2^31. The reference's quotients by an
 * integer — trunc(diff / c) as C integer division, and NNA's floor(n / den),
 * which on a regular shape is trunc((L_i - L_j) / (|Δ|+1)) — are formed
 * exactly by a multiply-high (vdivc, below); trunc(alpha * (double)diff) is
 * formed as the same IEEE double product the reference rounds.
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
	V ci;              /* NNA: |Δ|+1; FOS_DIV: deg + k: the divisor c >= 1 */
	V magic;           /* ceil(2^(31+l) / c) as uint32, l = ceil(log2 c) (below) */
	simde__m128i sh;   /* 31 + l */
	double alpha;      /* FOS_ALPHA */
} params;

/* trunc(x / c) for |x| < 2^31 without a division (Granlund and Montgomery,
 * "Division by invariant integers using multiplication", 1994): with
 * l = ceil(log2 c) and m = ceil(2^(31+l) / c), m c = 2^(31+l) + e with
 * 0 <= e < c <= 2^l, so m < 2^32 and, for 0 <= a < 2^31 and a = qc + r
 * (0 <= r < c),
 *   a m / 2^(31+l) = a/c + a e / (c 2^(31+l)) < q + (c-1)/c + 1/c = q + 1,
 * and >= q: floor(a m / 2^(31+l)) = q exactly, over the whole range. The
 * 64-bit products a m come from the even and the odd lanes in two
 * unsigned 32x32 multiplies; the sign of x goes back on at the end. */
#if W == 16
static ALWAYS_INLINE V vdivc(V x, V m, simde__m128i sh)
{
	const V a = simde_mm512_abs_epi32(x);
	const V e = simde_mm512_srl_epi64(simde_mm512_mul_epu32(a, m), sh);
	const V o = simde_mm512_srl_epi64(simde_mm512_mul_epu32(simde_mm512_srli_epi64(a, 32), m), sh);
	const V y = simde_mm512_or_si512(e, simde_mm512_slli_epi64(o, 32));
	return simde_mm512_mask_sub_epi32(y, MGT(VSET1(0), x), VSET1(0), y);
}
#elif W == 8
static ALWAYS_INLINE V vdivc(V x, V m, simde__m128i sh)
{
	const V a = simde_mm256_abs_epi32(x);
	const V e = simde_mm256_srl_epi64(simde_mm256_mul_epu32(a, m), sh);
	const V o = simde_mm256_srl_epi64(simde_mm256_mul_epu32(simde_mm256_srli_epi64(a, 32), m), sh);
	return simde_mm256_sign_epi32(simde_mm256_or_si256(e, simde_mm256_slli_epi64(o, 32)), x);
}
#else
static ALWAYS_INLINE V vdivc(V x, V m, simde__m128i sh)
{
	const V a = simde_mm_abs_epi32(x);
	const V e = simde_mm_srl_epi64(simde_mm_mul_epu32(a, m), sh);
	const V o = simde_mm_srl_epi64(simde_mm_mul_epu32(simde_mm_srli_epi64(a, 32), m), sh);
	return simde_mm_sign_epi32(simde_mm_or_si128(e, simde_mm_slli_epi64(o, 32)), x);
}
#endif

/* The parameters of a method dividing by c (a shape without links may give
 * c < 1: no quotient is used then). */
static params divisor(int mode, int64_t c)
{
	c = c < 1 ? 1 : c;
	int l = 0;
	while ((INT64_C(1) << l) < c)
		l++;
	const uint64_t m = ((UINT64_C(1) << (31 + l)) + (uint64_t)c - 1) / (uint64_t)c;
	return (params){.mode = mode, .ci = VSET1((int32_t)c), .magic = VSET1((int32_t)(uint32_t)m),
	                .sh = simde_mm_cvtsi32_si128(31 + l)};
}

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
	V rmax[8], lmin[8]; /* per axis, the largest and the smallest flow (-lmin: the largest towards lower index) */
	V moved;            /* W/2 int64 lanes */
} acc;

/* The flow quotient of a difference x on one link. */
static ALWAYS_INLINE V quotient(const params *q, V x, const int mode)
{
	return mode == FOS_ALPHA ? vconv(x, q->alpha, 0) : vdivc(x, q->magic, q->sh);
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
			f[d] = VSEL(mr, quotient(q, VSUB(l, ln), q->mode), zero);
			if (q->mode == NNA) { /* rounded-down amounts P_i owes to both sides */
				sent = VADD(sent, VMAX(f[d], zero));
				sent = VADD(sent, VSEL(ml, VMAX(quotient(q, VSUB(l, lp), q->mode), zero), zero));
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
			A->lmin[d] = VMIN(A->lmin[d], f[d]);
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
				int32_t a = vmax32(A.rmax[d]), b = -vmin32(A.lmin[d]);
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

/* ---- 2-D grids: one pass --------------------------------------------
 * As kernels/simd/fos.c does for real loads, the loads are read and
 * written once, in place, row by row. Row r's flows F_0 (to the row
 * below) and F_1 (along the row) are formed from the old rows r-1 (NNA's
 * budget), r and r+1 into two row buffers; the new row r is then
 * L - F_0 - F_1 + F_1[i-1] + F_0 of row r-1, which the row before left in
 * a third buffer. So each flow is formed once (NNA's budget forms the
 * rounded-down quotients of the upper and left links again). A thread
 * owns the rows [a, b): before a barrier it forms F_0 of row a-1 from the
 * old rows a-1 and a (flows_row: F_0 needs no budget) and copies the old
 * rows a-1 and b (wrapped); then it keeps the old copy of the row it last
 * updated, its next row's upper neighbour. The buffers stay in cache: the
 * grid itself is read and written once per step. */

#define ROW(r) lbt_fiber_base(v, 1, (r))

/* B[0..n) := row p, B[-1], B[n] its wrap-around neighbours on the last
 * axis, and the lanes past them zero (read, never used). */
static void load_row(int32_t *B, const int32_t *p, int64_t n, int tl)
{
	memcpy(B, p, (size_t)n * sizeof *B);
	B[-1] = tl ? p[n - 1] : 0;
	B[n] = tl ? p[0] : 0;
	memset(B + n + 1, 0, W * sizeof *B);
}

/* F_0 and F_1 of the W PEs from position i of the row whose old copy is B
 * (B[-1], B[n]: wrap-around), from the old rows up and dn (NULL: no
 * link), into f0[i], f1[i] (0 past the row), counted into A. `full`: all
 * W lanes are PEs with a link to i+1 on the last axis (no masks). NNA's
 * budget needs up, for F_1 only: the rounded-down amounts P_i owes sum to
 * at most floor(|Δ| L_i / (|Δ|+1)) <= L_i - 1 (L_i >= 1 where a flow
 * leaves), so the reference's first round-up, axis 0's, is always
 * affordable, and F_0 depends on the rows r and r+1 alone. Diffusion's
 * flows need no budget. */
static ALWAYS_INLINE void flows_chunk(const params *q, int64_t i, int64_t n, int tl, const int32_t *up,
                                      const int32_t *B, const int32_t *dn, int32_t *f0, int32_t *f1, V *A,
                                      const int full, const int mode)
{
	const V zero = VSET1(0);
	const V pos = full ? zero : VADD(VIOTA(), VSET1((int32_t)i));
	const M valid = full ? MALL : MFIRST(n - i < W ? n - i : W);
	const V l = VLOAD(B + i);
	const M m0 = dn ? valid : MNONE;
	const M m1 = full || tl ? valid : MAND(valid, MGT(VSET1((int32_t)(n - 1)), pos));
	const V d0 = dn ? VSUB(l, VLOAD(dn + i)) : zero, d1 = VSUB(l, VLOADU(B + i + 1));
	V a0 = dn ? quotient(q, d0, mode) : zero, a1 = quotient(q, d1, mode);
	if (!full) {
		a0 = VSEL(m0, a0, zero);
		a1 = VSEL(m1, a1, zero);
	}
	if (mode == NNA) { /* axis 0's round-up, then axis 1's if P_i can still afford it */
		const M u0 = MAND(MAND(m0, MGT(d0, zero)), MNE(VMULLO(a0, q->ci), d0));
		const M ml = full || tl ? valid : MAND(valid, MGT(pos, zero));
		V sent = VADD(VMAX(a0, zero), VMAX(a1, zero)); /* the rounded-down amounts P_i owes to all four sides */
		if (up)
			sent = VADD(sent, VMAX(quotient(q, VSUB(l, VLOAD(up + i)), mode), zero));
		const V al = VMAX(quotient(q, VSUB(l, VLOADU(B + i - 1)), mode), zero);
		sent = VADD(sent, full || tl ? al : VSEL(ml, al, zero));
		a0 = VINC(a0, u0);
		sent = VINC(sent, u0);
		const M u1 = MAND(MAND(m1, MGT(d1, zero)), MAND(MNE(VMULLO(a1, q->ci), d1), MGT(l, sent)));
		a1 = VINC(a1, u1);
	}
	VSTORE(f0 + i, a0);
	VSTORE(f1 + i, a1);
	A[0] = VMAX(A[0], a0);
	A[1] = VMIN(A[1], a0);
	A[2] = VMAX(A[2], a1);
	A[3] = VMIN(A[3], a1);
	A[4] = FADD64(A[4], VADD(VABS(a0), VABS(a1))); /* below 2^32: FADD64 reads the lanes unsigned */
}

/* The counters in a local copy, as apply_row's statistics (f0, f1 may alias
 * the vectors behind A): a small array, which GCC keeps in registers. */
static ALWAYS_INLINE void flows_row_m(const params *q, int64_t n, int tl, const int32_t *up, const int32_t *B,
                                    const int32_t *dn, int32_t *f0, int32_t *f1, acc *A,
                                      const int mode)
{
	V a[5] = {A->rmax[0], A->lmin[0], A->rmax[1], A->lmin[1], A->moved};
	int64_t i = 0;
	for (; i + W < n || (i + W == n && tl); i += W)
		flows_chunk(q, i, n, tl, up, B, dn, f0, f1, a, 1, mode);
	for (; i < n; i += W)
		flows_chunk(q, i, n, tl, up, B, dn, f0, f1, a, 0, mode);
	f1[-1] = tl ? f1[n - 1] : 0; /* the flow arriving at PE 0 over the wrap-around */
	A->rmax[0] = a[0];
	A->lmin[0] = a[1];
	A->rmax[1] = a[2];
	A->lmin[1] = a[3];
	A->moved = a[4];
}

/* flows_row_m once per method, each a function of its own: with the method
 * a constant, its loop needs fewer vector registers (NNA's budget is not
 * there for diffusion), and every counter stays in one. */
#define FLOWS_ROW(name, mode)                                                                                     \
	static __attribute__((noinline)) void name(const params *q, int64_t n, int tl, const int32_t *up,         \
	                                           const int32_t *B, const int32_t *dn, int32_t *f0, int32_t *f1, \
	                                           acc *A)                                                        \
	{                                                                                                         \
		flows_row_m(q, n, tl, up, B, dn, f0, f1, A, mode);                                                \
	}
FLOWS_ROW(flows_row_nna, NNA)
FLOWS_ROW(flows_row_alpha, FOS_ALPHA)
FLOWS_ROW(flows_row_div, FOS_DIV)
#undef FLOWS_ROW

static void flows_row(const params *q, int64_t n, int tl, const int32_t *up, const int32_t *B, const int32_t *dn,
                      int32_t *f0, int32_t *f1, acc *A)
{
	(q->mode == NNA ? flows_row_nna : q->mode == FOS_ALPHA ? flows_row_alpha : flows_row_div)(q, n, tl, up, B, dn, f0,
	                                                                                         f1, A);
}

/* The new row p: B - f0 - f1 + f1[i-1] + g0 (row r-1's F_0), measured.
 * The statistics go through a local copy: p is an int32_t *, which may
 * alias the vectors behind St (vector types may alias anything), so with St
 * itself every vector would wait on the last one's store and reload. */
static __attribute__((noinline)) void apply_row(int32_t *p, const int32_t *B, const int32_t *f0, const int32_t *f1,
                                    const int32_t *g0, int64_t n, stats *St)
{
	V mx = St->mx, mn = St->mn, su = St->su; /* not a struct: GCC keeps these in registers */
	int64_t i = 0;
	for (; i + W <= n; i += W) {
		const V x = VADD(VSUB(VSUB(VLOAD(B + i), VLOAD(f0 + i)), VLOAD(f1 + i)), VADD(VLOADU(f1 + i - 1), VLOAD(g0 + i)));
		VSTORE(p + i, x);
		mx = VMAX(mx, x);
		mn = VMIN(mn, x);
		su = FADD64(su, VSUB(x, VSET1(INT32_MIN)));
	}
	if (i < n) {
		const M valid = MFIRST(n - i);
		const V x = VADD(VSUB(VSUB(VLOAD(B + i), VLOAD(f0 + i)), VLOAD(f1 + i)), VADD(VLOADU(f1 + i - 1), VLOAD(g0 + i)));
		VSTORE(p + i, VSEL(valid, x, VLOAD(p + i)));
		mx = VMAX(mx, VSEL(valid, x, VSET1(INT32_MIN)));
		mn = VMIN(mn, VSEL(valid, x, VSET1(INT32_MAX)));
		su = FADD64(su, VSEL(valid, VSUB(x, VSET1(INT32_MIN)), VSET1(0)));
	}
	*St = (stats){mx, mn, su};
}

/* A thread's row buffers, X int32 cells apart (64-byte aligned, room for
 * a row, its halo and a vector past it). */
typedef struct {
	int32_t *prev, *next, *B, *old, *f0, *g0, *f1;
} rowbufs;

static rowbufs bufs_of(int32_t *buf, int64_t X)
{
	int32_t *b = buf + 64;
	return (rowbufs){b, b + X, b + 2 * X, b + 3 * X, b + 4 * X, b + 5 * X, b + 6 * X};
}

/* Before the barrier: F_0 of row a-1 into g0 (zero without that link), the
 * old rows a-1 into prev and b into next. */
static void one_save(const lbt_view *v, const params *q, int t, int nt, const rowbufs *rb)
{
	const int64_t R = v->ext[0], n = v->ext[1], a = R * t / nt, b = R * (t + 1) / nt;
	const int tor = v->torus[0], tl = v->torus[1] && n > 2;
	if (b == a)
		return;
	if (link_left(a, R, tor)) { /* F_0 needs no row above a-1 (flows_row): it is counted by row a-1's thread */
		acc none;
		memset(&none, 0, sizeof none);
		load_row(rb->prev, ROW(a > 0 ? a - 1 : R - 1), n, tl);
		flows_row(q, n, tl, NULL, rb->prev, ROW(a), rb->g0, rb->f1, &none);
	} else
		memset(rb->g0, 0, (size_t)(n + W) * sizeof *rb->g0);
	if (link_right(b - 1, R, tor))
		load_row(rb->next, ROW(b < R ? b : 0), n, tl);
}

static void one_block(const lbt_view *v, const params *q, int t, int nt, rowbufs rb, acc *A, stats *St)
{
	const int64_t R = v->ext[0], n = v->ext[1], a = R * t / nt, b = R * (t + 1) / nt;
	const int tor = v->torus[0], tl = v->torus[1] && n > 2;
	for (int64_t r = a; r < b; r++) {
		const int32_t *up = !link_left(r, R, tor) ? NULL : r == a ? rb.prev : rb.old;
		const int32_t *dn = !link_right(r, R, tor) ? NULL : r == b - 1 ? rb.next : ROW(r + 1);
		int32_t *p = ROW(r);
		load_row(rb.B, p, n, tl);
		flows_row(q, n, tl, up, rb.B, dn, rb.f0, rb.f1, A);
		apply_row(p, rb.B, rb.f0, rb.f1, rb.g0, n, St);
		int32_t *keep = rb.old; /* B is the old row r: the next row's up; f0 its in-flow from above */
		rb.old = rb.B;
		rb.B = keep;
		keep = rb.g0;
		rb.g0 = rb.f0;
		rb.f0 = keep;
	}
}
#undef ROW

static void one_pass_step(const lbt_view *v, const params *q, lbt_counts *cnt)
{
	const lbt_scratch *S = v->scratch;
	const int T = v->threads < S->threads ? v->threads : S->threads;
	const int64_t R = v->ext[0], n = v->ext[1], X = S->row_cells * 2 / 8 / 16 * 16; /* int32 cells of an eighth */
	int64_t moved = 0, rmax[2] = {0}, lmax[2] = {0};
	int32_t mx = INT32_MIN, mn = INT32_MAX;
	uint64_t su = 0;
#pragma omp parallel num_threads(T) if (R * n > 16384)
	{
		const int t = lbt_thread_id();
		const rowbufs rb = bufs_of(lbt_scratch_row(S, t), X);
		acc A;
		memset(&A, 0, sizeof A);
		stats St = {VSET1(INT32_MIN), VSET1(INT32_MAX), VSET1(0)};
		one_save(v, q, t, lbt_team_size(), &rb);
#pragma omp barrier
		one_block(v, q, t, lbt_team_size(), rb, &A, &St);
#pragma omp critical(lbt_simd_flows)
		{
			moved += fsum64(A.moved);
			for (int d = 0; d < 2; d++) {
				const int32_t x = vmax32(A.rmax[d]), y = -vmin32(A.lmin[d]);
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
	const params q = divisor(NNA, degree(v) + 1);
	if (v->dims == 2)
		one_pass_step(v, &q, c);
	else
		flows_step(v, &q, c);
}

void LBT_SIMD_FN(lbt_simd_fos_int_step)(const lbt_view *v, const lbt_diffusion *p, lbt_counts *c)
{
	if ((p->by_degree && !regular(v)) || !v->scratch || v->cut) { /* a cut view: the reference's */
		lbt_ref_fos_int_step(v, p, c);
		return;
	}
	params q = divisor(FOS_DIV, degree(v) + p->k);
	if (!p->by_degree)
		q = (params){.mode = FOS_ALPHA, .alpha = p->alpha};
	if (v->dims == 2)
		one_pass_step(v, &q, c);
	else
		flows_step(v, &q, c);
}

/* de.c — Cybenko's dimension exchange (seed 002 §4, kernels/ref/de.c: `de`,
 * `de-int`, and `de-axis`, one axis per step) as a vector kernel. Compiled once per ISA target (see
 * simd.h); checked bit for bit against the reference by tests/checkasm/de.c.
 *
 * A substep (one axis, one edge colour) exchanges over disjoint pairs, so its
 * rows can run in any order and in parallel; a substep without a pair of its
 * colour is skipped (the reference adds only zeros for it). On an outer axis a
 * pair of rows (coordinates k and k+1 on the axis) exchanges W lanes at a
 * time, with the reference's operations: f = lambda (a - b), a - f, b + f
 * (integer: f = trunc(lambda (a - b)) through doubles, see extra.h). Pairs
 * inside a row (the last axis) are neighbouring PEs: a row's pairs of one
 * colour are visited directly (i = col, col + 2, ..., then the wrap-around),
 * four rows side by side.
 *
 * The order-dependent results keep the reference's order, with four rows'
 * chains side by side: the real amount moved is summed per row (each row's
 * flows in the reference's order), the rows' sums added in row order after
 * the parallel loop; the integer one is an exact sum. The per-direction
 * maxima are the reference's folds fmax(m, f) from m = +0, and glibc's fmax
 * keeps the first of equal operands: the result is the largest value, +0
 * where that is zero, whatever order the values are visited in (in lanes,
 * per row, per thread from -inf) as long as the +0 comes first. So every
 * thread count gives the reference's bits.
 *
 * The step's statistics (extremes and total, has_stats) are measured after
 * the last substep as lbt_field_stats forms them (the real total: each row
 * left to right, the rows in order; the extremes' ties keep the first), so the
 * engine makes no statistics pass of its own. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../fiber.h"
#include "extra.h"

enum { G = 4, RB = 8 }; /* rows side by side; rows a block of an outer axis */

typedef struct {
	const lbt_view *v;
	double lambda;
	int real;
	double *rowsum; /* real amount moved per row (one substep), then the rows' totals */
} job;

/* A thread's folds (from -inf) of the per-direction maxima, and its integer amount moved. */
typedef struct {
	double right, left;
	int64_t moved;
} part;

/* The reference's fmax(a, b) without the library call (no operand is NaN;
 * glibc's fmax returns the first of equal operands, +0 of fmax(+0, -0)). */
static inline double maxd(double a, double b) { return a >= b ? a : b; }

/* Whether an axis of extent n has a pair of colour col. */
static int has_colour(int64_t n, int torus, int col)
{
	for (int64_t i = 0; i < n && i < 3; i++)
		if (lbt_de_color(i, n, torus) == col)
			return 1;
	return n >= 2 && lbt_de_color(n - 1, n, torus) == col;
}

/* A thread's statistics of the rows it measures: extremes (ties keep the first, as lbt_field_stats) and, for
 * integer loads, the exact total. */
typedef struct {
	double mx, mn;
	int64_t total;
} stat;

/* Rows r0 .. r0+g-1 (g <= G), side by side: extremes into S, the real rows' totals (left to right) into
 * tot. */
static void row_stats(const job *J, int64_t r0, int g, double *tot, stat *S)
{
	const lbt_view *v = J->v;
	const int last = v->dims - 1;
	const int64_t n = v->ext[last];
	int64_t off[G];
	for (int q = 0; q < g; q++)
		off[q] = lbt_fiber_base(v, last, r0 + q) - v->load;
	if (J->real) {
		double s[G] = {0}, mx[G], mn[G];
		for (int q = 0; q < g; q++) {
			mx[q] = -HUGE_VAL;
			mn[q] = HUGE_VAL;
		}
		for (int64_t i = 0; i < n; i++)
			for (int q = 0; q < g; q++) {
				const double w = v->real[off[q] + i];
				s[q] += w;
				mx[q] = w > mx[q] ? w : mx[q];
				mn[q] = w < mn[q] ? w : mn[q];
			}
		for (int q = 0; q < g; q++) {
			tot[r0 + q] = s[q];
			S->mx = mx[q] > S->mx ? mx[q] : S->mx;
			S->mn = mn[q] < S->mn ? mn[q] : S->mn;
		}
	} else
		for (int q = 0; q < g; q++) {
			const int32_t *p = v->load + off[q];
			int32_t mx = INT32_MIN, mn = INT32_MAX;
			int64_t s = 0;
			for (int64_t i = 0; i < n; i++) {
				s += p[i];
				mx = p[i] > mx ? p[i] : mx;
				mn = p[i] < mn ? p[i] : mn;
			}
			S->total += s;
			S->mx = mx > S->mx ? mx : S->mx;
			S->mn = mn < S->mn ? mn : S->mn;
		}
}

/* One pair (i, j) of G rows at off[0..g-1]: the reference's operations. */
static ALWAYS_INLINE void pair_real(const lbt_view *v, const int64_t *off, int g, double lam, int64_t i, int64_t j,
                                    double *sum, double *rr, double *ll)
{
	for (int q = 0; q < g; q++) {
		double *w = v->real + off[q];
		const double f = lam * (w[i] - w[j]);
		w[i] -= f;
		w[j] += f;
		sum[q] += fabs(f);
		rr[q] = maxd(rr[q], f);
		ll[q] = maxd(ll[q], -f);
	}
}
static ALWAYS_INLINE void pair_int(const lbt_view *v, const int64_t *off, int g, double lam, int64_t i, int64_t j,
                                   int64_t *moved, double *rr, double *ll)
{
	for (int q = 0; q < g; q++) {
		int32_t *p = v->load + off[q];
		const int64_t f = (int64_t)(lam * (double)((int64_t)p[i] - p[j]));
		p[i] = (int32_t)(p[i] - f);
		p[j] = (int32_t)(p[j] + f);
		*moved += f > 0 ? f : -f;
		rr[q] = maxd(rr[q], (double)f);
		ll[q] = maxd(ll[q], -(double)f);
	}
}

/* Rows r0 .. r0+g-1 (g <= G): their pairs inside the row of colour col, in
 * the reference's order (i = col, col + 2, ... < n - 1, then the wrap-around
 * (n - 1, 0) if it has this colour). */
static void inrow(const job *J, int col, int64_t r0, int g, part *A, double *tot, stat *X)
{
	const lbt_view *v = J->v;
	const int last = v->dims - 1;
	const int64_t n = v->ext[last];
	const int wrap = lbt_de_color(n - 1, n, v->torus[last]) == col;
	const double lam = J->lambda;
	double sum[G] = {0}, rr[G], ll[G];
	int64_t off[G], moved = 0;
	for (int q = 0; q < g; q++) {
		off[q] = lbt_fiber_base(v, last, r0 + q) - v->load;
		rr[q] = ll[q] = -HUGE_VAL;
	}
	const int64_t i0 = col < 2 ? col : n; /* colour 2: only the wrap-around */
	if (J->real) {
		if (g == G)
			for (int64_t i = i0; i + 1 < n; i += 2)
				pair_real(v, off, G, lam, i, i + 1, sum, rr, ll);
		else
			for (int64_t i = i0; i + 1 < n; i += 2)
				pair_real(v, off, g, lam, i, i + 1, sum, rr, ll);
		if (wrap)
			pair_real(v, off, g, lam, n - 1, 0, sum, rr, ll);
	} else {
		if (g == G)
			for (int64_t i = i0; i + 1 < n; i += 2)
				pair_int(v, off, G, lam, i, i + 1, &moved, rr, ll);
		else
			for (int64_t i = i0; i + 1 < n; i += 2)
				pair_int(v, off, g, lam, i, i + 1, &moved, rr, ll);
		if (wrap)
			pair_int(v, off, g, lam, n - 1, 0, &moved, rr, ll);
	}
	for (int q = 0; q < g; q++) {
		J->rowsum[r0 + q] = sum[q];
		A->right = maxd(A->right, rr[q]);
		A->left = maxd(A->left, ll[q]);
	}
	A->moved += moved;
	if (X) /* the step's last substep: the rows' statistics while they are in cache */
		row_stats(J, r0, g, tot, X);
}

#if W >= 8
/* AVX2 and AVX-512 (W = 16 runs these 256-bit kernels: its generic paths, a
 * row's pairs one by one in scalars, were 2-4x slower on a native AVX-512
 * CPU): four rows in the lanes of a buffer T (T[i]: the rows' PEs i), so
 * that the last axis's pairs (i, i+1) are vertical: every colour of the
 * last axis, then the step's statistics, one buffer's pass each while it is
 * in cache. Each lane is one row: its chains (amount moved, total) run in
 * its order, and MAXPD/MINPD give the extremes as lbt_field_stats does
 * (w > m ? w : m, ties keep m). The integer flow trunc(lambda (a - b)) in
 * doubles: a - b is exact (|a - b| < 2^33), and the truncation towards zero
 * gives the int64 cast's value (its -0 changes no load and no maximum). */
typedef simde__m256d VD;

static void lanes_in(const job *J, const int64_t *off, VD *T)
{
	const lbt_view *v = J->v;
	const int64_t n = v->ext[v->dims - 1];
	int64_t i = 0;
	for (; i + 4 <= n; i += 4) {
		VD x[4];
		for (int q = 0; q < 4; q++)
			x[q] = J->real ? simde_mm256_loadu_pd(v->real + off[q] + i)
			               : simde_mm256_cvtepi32_pd(simde_mm_loadu_si128((const void *)(v->load + off[q] + i)));
		const VD t0 = simde_mm256_unpacklo_pd(x[0], x[1]), t1 = simde_mm256_unpackhi_pd(x[0], x[1]),
		         t2 = simde_mm256_unpacklo_pd(x[2], x[3]), t3 = simde_mm256_unpackhi_pd(x[2], x[3]);
		T[i] = simde_mm256_permute2f128_pd(t0, t2, 0x20);
		T[i + 1] = simde_mm256_permute2f128_pd(t1, t3, 0x20);
		T[i + 2] = simde_mm256_permute2f128_pd(t0, t2, 0x31);
		T[i + 3] = simde_mm256_permute2f128_pd(t1, t3, 0x31);
	}
	for (; i < n; i++) {
		double x[4];
		for (int q = 0; q < 4; q++)
			x[q] = J->real ? v->real[off[q] + i] : (double)v->load[off[q] + i];
		T[i] = simde_mm256_loadu_pd(x);
	}
}

static void lanes_out(const job *J, const int64_t *off, const VD *T)
{
	const lbt_view *v = J->v;
	const int64_t n = v->ext[v->dims - 1];
	int64_t i = 0;
	for (; i + 4 <= n; i += 4) {
		const VD t0 = simde_mm256_unpacklo_pd(T[i], T[i + 1]), t1 = simde_mm256_unpackhi_pd(T[i], T[i + 1]),
		         t2 = simde_mm256_unpacklo_pd(T[i + 2], T[i + 3]), t3 = simde_mm256_unpackhi_pd(T[i + 2], T[i + 3]);
		const VD x[4] = {simde_mm256_permute2f128_pd(t0, t2, 0x20), simde_mm256_permute2f128_pd(t1, t3, 0x20),
		                 simde_mm256_permute2f128_pd(t0, t2, 0x31), simde_mm256_permute2f128_pd(t1, t3, 0x31)};
		for (int q = 0; q < 4; q++)
			if (J->real)
				simde_mm256_storeu_pd(v->real + off[q] + i, x[q]);
			else
				simde_mm_storeu_si128((void *)(v->load + off[q] + i), simde_mm256_cvtpd_epi32(x[q]));
	}
	for (; i < n; i++) {
		double x[4];
		simde_mm256_storeu_pd(x, T[i]);
		for (int q = 0; q < 4; q++)
			if (J->real)
				v->real[off[q] + i] = x[q];
			else
				v->load[off[q] + i] = (int32_t)x[q];
	}
}

/* One pair of columns (a, b) of T: the reference's operations, four rows at once. The left maximum is
 * folded as the least flow lo (max(-f) = -min(f); -0 or +0 where it is zero, which the +0 folded in first
 * makes +0 either way): one operation a pair less. */
static ALWAYS_INLINE void lanes_pair(VD *a, VD *b, VD L, int real, VD *sum, simde__m256i *mv, VD *rr, VD *lo)
{
	const VD sign = simde_mm256_set1_pd(-0.0), magic = simde_mm256_set1_pd(4503599627370496.0); /* 2^52 */
	VD f = simde_mm256_mul_pd(L, simde_mm256_sub_pd(*a, *b));
	if (!real)
		f = simde_mm256_round_pd(f, SIMDE_MM_FROUND_TO_ZERO | SIMDE_MM_FROUND_NO_EXC);
	*a = simde_mm256_sub_pd(*a, f);
	*b = simde_mm256_add_pd(*b, f);
	const VD af = simde_mm256_andnot_pd(sign, f);
	if (real)
		*sum = simde_mm256_add_pd(*sum, af);
	else /* |f| < 2^33: |f| + 2^52 holds it in its low bits */
		*mv = simde_mm256_add_epi64(*mv, simde_mm256_sub_epi64(simde_mm256_castpd_si256(simde_mm256_add_pd(af, magic)),
		                                                       simde_mm256_castpd_si256(magic)));
	*rr = simde_mm256_max_pd(*rr, f);
	*lo = simde_mm256_min_pd(*lo, f);
}

/* The lanes of K groups T[g] (K = 1 or 2; lane q: row row[g][q]): every
 * colour of the last axis (has[col]: the axis has pairs of it), each
 * colour's row sums into rs[col][row[g][q]] and its folds into A[col]; if
 * tot, the statistics too: the rows' totals into tot[row[g][q]] (each left
 * to right), the integer ones (exact) into *itot, and each lane's extremes
 * folded into mx[g], mn[g] (ties keep the earlier). Two groups side by side
 * run two independent chains (a lane's sum is an add's latency a pair). */
static ALWAYS_INLINE void lanes_last_k(const job *J, int K, VD *const *T, const int64_t *const *row, const int *has,
                                       double *const *rs, part *A, double *tot, VD *mx, VD *mn, int64_t *itot)
{
	const lbt_view *v = J->v;
	const int last = v->dims - 1;
	const int64_t n = v->ext[last];
	const VD L = simde_mm256_set1_pd(J->lambda);
	for (int col = 0; col < 3; col++) {
		if (!has[col])
			continue;
		VD sum[2], rr[2], lo[2];
		simde__m256i mv[2];
		for (int g = 0; g < K; g++) {
			sum[g] = simde_mm256_setzero_pd();
			rr[g] = simde_mm256_set1_pd(-HUGE_VAL);
			lo[g] = simde_mm256_set1_pd(HUGE_VAL);
			mv[g] = simde_mm256_setzero_si256();
		}
		const int64_t i0 = col < 2 ? col : n;
		if (J->real)
			for (int64_t i = i0; i + 1 < n; i += 2)
				for (int g = 0; g < K; g++)
					lanes_pair(&T[g][i], &T[g][i + 1], L, 1, &sum[g], &mv[g], &rr[g], &lo[g]);
		else
			for (int64_t i = i0; i + 1 < n; i += 2)
				for (int g = 0; g < K; g++)
					lanes_pair(&T[g][i], &T[g][i + 1], L, 0, &sum[g], &mv[g], &rr[g], &lo[g]);
		if (lbt_de_color(n - 1, n, v->torus[last]) == col)
			for (int g = 0; g < K; g++)
				lanes_pair(&T[g][n - 1], &T[g][0], L, J->real, &sum[g], &mv[g], &rr[g], &lo[g]);
		for (int g = 0; g < K; g++) {
			double s[4], r[4], l[4];
			int64_t m[4];
			simde_mm256_storeu_pd(s, sum[g]);
			simde_mm256_storeu_pd(r, rr[g]);
			simde_mm256_storeu_pd(l, lo[g]);
			simde_mm256_storeu_si256((void *)m, mv[g]);
			for (int q = 0; q < 4; q++) {
				rs[col][row[g][q]] = s[q];
				A[col].right = maxd(A[col].right, r[q]);
				A[col].left = maxd(A[col].left, -l[q]);
				A[col].moved += m[q];
			}
		}
	}
	if (tot) {
		VD s[2], x[2], y[2];
		for (int g = 0; g < K; g++) {
			s[g] = simde_mm256_setzero_pd();
			x[g] = mx[g];
			y[g] = mn[g];
		}
		for (int64_t i = 0; i < n; i++)
			for (int g = 0; g < K; g++) {
				s[g] = simde_mm256_add_pd(s[g], T[g][i]);
				x[g] = simde_mm256_max_pd(T[g][i], x[g]);
				y[g] = simde_mm256_min_pd(T[g][i], y[g]);
			}
		for (int g = 0; g < K; g++) {
			mx[g] = x[g];
			mn[g] = y[g];
			double a[4];
			simde_mm256_storeu_pd(a, s[g]);
			for (int q = 0; q < 4; q++) {
				tot[row[g][q]] = a[q];
				if (!J->real) /* exact: |a row's total| < n 2^31 <= 2^53 */
					*itot += (int64_t)a[q];
			}
		}
	}
}
static void lanes_last(const job *J, VD *T, const int64_t *row, const int *has, double *const *rs, part *A,
                       double *tot, VD *mx, VD *mn, int64_t *itot)
{
	lanes_last_k(J, 1, &T, &row, has, rs, A, tot, mx, mn, itot);
}
static void lanes_last2(const job *J, VD *T0, VD *T1, const int64_t *row0, const int64_t *row1, const int *has,
                        double *const *rs, part *A, double *tot, VD *mx, VD *mn, int64_t *itot)
{
	VD *const T[2] = {T0, T1};
	const int64_t *const row[2] = {row0, row1};
	lanes_last_k(J, 2, T, row, has, rs, A, tot, mx, mn, itot);
}

/* Rows r0 .. r0+3 through a buffer T: lanes_last, the statistics into tot and X if X. */
static void lanes_rows(const job *J, int64_t r0, VD *T, const int *has, double *const *rs, part *A, double *tot,
                       stat *X)
{
	const lbt_view *v = J->v;
	const int last = v->dims - 1;
	int64_t off[4], row[4];
	for (int q = 0; q < 4; q++) {
		row[q] = r0 + q;
		off[q] = lbt_fiber_base(v, last, r0 + q) - v->load;
	}
	lanes_in(J, off, T);
	VD mx = simde_mm256_set1_pd(-HUGE_VAL), mn = simde_mm256_set1_pd(HUGE_VAL);
	int64_t itot = 0;
	lanes_last(J, T, row, has, rs, A, X ? tot : NULL, &mx, &mn, &itot);
	if (X) {
		double b[4], c[4];
		simde_mm256_storeu_pd(b, mx);
		simde_mm256_storeu_pd(c, mn);
		for (int q = 0; q < 4; q++) {
			X->mx = b[q] > X->mx ? b[q] : X->mx;
			X->mn = c[q] < X->mn ? c[q] : X->mn;
		}
		X->total += itot;
	}
	lanes_out(J, off, T);
}

/* Four rows wa[q] with their partner rows wb[q] on an outer axis (real
 * loads): the pairs four columns at a time as the reference forms them, the
 * four rows' flows then transposed so that each lane runs one row's chains
 * in its order. */
static void lanes_outer(const job *J, double *const *wa, double *const *wb, double *sum, double *rr, double *ll)
{
	const lbt_view *v = J->v;
	const int64_t n = v->ext[v->dims - 1];
	const VD L = simde_mm256_set1_pd(J->lambda), sign = simde_mm256_set1_pd(-0.0);
	VD S = simde_mm256_setzero_pd(), R = simde_mm256_set1_pd(-HUGE_VAL), Lf = R;
	int64_t i = 0;
	for (; i + 4 <= n; i += 4) {
		VD f[4];
		for (int q = 0; q < 4; q++) {
			const VD a = simde_mm256_loadu_pd(wa[q] + i), b = simde_mm256_loadu_pd(wb[q] + i);
			f[q] = simde_mm256_mul_pd(L, simde_mm256_sub_pd(a, b));
			simde_mm256_storeu_pd(wa[q] + i, simde_mm256_sub_pd(a, f[q]));
			simde_mm256_storeu_pd(wb[q] + i, simde_mm256_add_pd(b, f[q]));
		}
		const VD t0 = simde_mm256_unpacklo_pd(f[0], f[1]), t1 = simde_mm256_unpackhi_pd(f[0], f[1]),
		         t2 = simde_mm256_unpacklo_pd(f[2], f[3]), t3 = simde_mm256_unpackhi_pd(f[2], f[3]);
		const VD F[4] = {simde_mm256_permute2f128_pd(t0, t2, 0x20), simde_mm256_permute2f128_pd(t1, t3, 0x20),
		                 simde_mm256_permute2f128_pd(t0, t2, 0x31), simde_mm256_permute2f128_pd(t1, t3, 0x31)};
		for (int c = 0; c < 4; c++) {
			S = simde_mm256_add_pd(S, simde_mm256_andnot_pd(sign, F[c]));
			R = simde_mm256_max_pd(R, F[c]);
			Lf = simde_mm256_max_pd(Lf, simde_mm256_xor_pd(F[c], sign));
		}
	}
	for (; i < n; i++) {
		double x[4];
		for (int q = 0; q < 4; q++) {
			x[q] = J->lambda * (wa[q][i] - wb[q][i]);
			wa[q][i] -= x[q];
			wb[q][i] += x[q];
		}
		const VD F = simde_mm256_loadu_pd(x);
		S = simde_mm256_add_pd(S, simde_mm256_andnot_pd(sign, F));
		R = simde_mm256_max_pd(R, F);
		Lf = simde_mm256_max_pd(Lf, simde_mm256_xor_pd(F, sign));
	}
	simde_mm256_storeu_pd(sum, S);
	simde_mm256_storeu_pd(rr, R);
	simde_mm256_storeu_pd(ll, Lf);
}
#endif

/* The rows of block [r0, r0 + k) on outer axis d with a pair of colour col:
 * each with its partner row (the next coordinate on d) in lanes; the real
 * flows of up to G rows go to the thread's buffer fb, whose chains (the
 * amount moved, the maxima) then run side by side. */
static void outer(const job *J, int d, int col, int64_t r0, int k, double *fb, part *A)
{
	const lbt_view *v = J->v;
	const int last = v->dims - 1;
	const int64_t n = v->ext[last], nd = v->ext[d], ns = (n + 7) / 8 * 8; /* fb's rows stay 64-byte aligned */
	int64_t q = 1;
	for (int e = last - 1; e > d; e--)
		q *= v->ext[e];
	const double lam = J->lambda;
	int64_t act[RB];
	int na = 0;
	for (int j = 0; j < k; j++) {
		const int64_t r = r0 + j, kd = (r / q) % nd;
		J->rowsum[r] = 0;
		if (lbt_de_color(kd, nd, v->torus[d]) == col)
			act[na++] = r;
	}
	for (int a0 = 0; a0 < na; a0 += G) {
		const int g = na - a0 < G ? na - a0 : G;
		double sum[G] = {0}, rr[G], ll[G];
#if W >= 8
		if (J->real && g == 4) {
			double *wa[4], *wb[4];
			for (int j = 0; j < 4; j++) {
				const int64_t r = act[a0 + j], kd = (r / q) % nd;
				const int64_t row = lbt_fiber_base(v, last, r) - v->load;
				wa[j] = v->real + row;
				wb[j] = v->real + row + ((kd + 1) % nd - kd) * v->stride[d];
			}
			lanes_outer(J, wa, wb, sum, rr, ll);
			for (int j = 0; j < 4; j++) {
				J->rowsum[act[a0 + j]] = sum[j];
				A->right = maxd(A->right, rr[j]);
				A->left = maxd(A->left, ll[j]);
			}
			continue;
		}
#endif
		for (int j = 0; j < g; j++) {
			const int64_t r = act[a0 + j], kd = (r / q) % nd;
			const int64_t row = lbt_fiber_base(v, last, r) - v->load;
			const int64_t partner = row + ((kd + 1) % nd - kd) * v->stride[d];
			rr[j] = ll[j] = -HUGE_VAL;
			int64_t i = 0;
			if (J->real) {
				double *wa = v->real + row, *wb = v->real + partner, *f_ = fb + j * ns;
				const VR L = RSET1(lam);
				for (; i + WD <= n; i += WD) {
					VR a = RLOAD(wa + i), b = RLOAD(wb + i), f = RMUL(L, RSUB(a, b));
					RSTORE(wa + i, RSUB(a, f));
					RSTORE(wb + i, RADD(b, f));
					RSTORE(f_ + i, f);
				}
				for (; i < n; i++) {
					double f = lam * (wa[i] - wb[i]);
					wa[i] -= f;
					wb[i] += f;
					f_[i] = f;
				}
			} else { /* the integer maxima in lanes */
				int32_t *pa = v->load + row, *pb = v->load + partner;
				V acc = VSET1(0), rm = VSET1(INT32_MIN), lm = VSET1(INT32_MIN);
				for (; i + W <= n; i += W) {
					V a = VLOAD(pa + i), b = VLOAD(pb + i), f = vconv(VSUB(a, b), lam, 0);
					VSTORE(pa + i, VSUB(a, f));
					VSTORE(pb + i, VADD(b, f));
					acc = FADD64(acc, VABS(f));
					rm = VMAX(rm, f);
					lm = VMAX(lm, VSUB(VSET1(0), f));
				}
				int64_t moved = fsum64(acc);
				int32_t mr = vmax32(rm), ml = vmax32(lm);
				for (; i < n; i++) {
					int64_t f = (int64_t)(lam * (double)((int64_t)pa[i] - pb[i]));
					pa[i] = (int32_t)(pa[i] - f);
					pb[i] = (int32_t)(pb[i] + f);
					moved += f > 0 ? f : -f;
					mr = f > mr ? (int32_t)f : mr;
					ml = -f > ml ? (int32_t)-f : ml;
				}
				A->moved += moved;
				rr[j] = (double)mr;
				ll[j] = (double)ml;
			}
		}
		if (J->real) {
			if (g == G)
				for (int64_t i = 0; i < n; i++)
					for (int j = 0; j < G; j++) {
						const double f = fb[j * ns + i];
						sum[j] += fabs(f);
						rr[j] = maxd(rr[j], f);
						ll[j] = maxd(ll[j], -f);
					}
			else
				for (int64_t i = 0; i < n; i++)
					for (int j = 0; j < g; j++) {
						const double f = fb[j * ns + i];
						sum[j] += fabs(f);
						rr[j] = maxd(rr[j], f);
						ll[j] = maxd(ll[j], -f);
					}
		}
		for (int j = 0; j < g; j++) {
			J->rowsum[act[a0 + j]] = sum[j];
			A->right = maxd(A->right, rr[j]);
			A->left = maxd(A->left, ll[j]);
		}
	}
}

/* After a substep: its folds (threads in order, from the reference's +0) and sums into c. */
static void substep_counts(const job *J, const part *pt, int NT, const double *rs, lbt_counts *c)
{
	const int64_t rows = lbt_fiber_count(J->v, J->v->dims - 1);
	double right = 0, left = 0;
	int64_t moved = 0;
	for (int t = 0; t < NT; t++) {
		right = maxd(right, pt[t].right);
		left = maxd(left, pt[t].left);
		moved += pt[t].moved;
	}
	if (J->real) {
		for (int64_t r = 0; r < rows; r++)
			c->real_moved += rs[r];
		c->real_shifts += right + left;
	} else {
		c->moved += moved;
		c->shifts += (int64_t)(right + left);
	}
	c->link_max = fmax(c->link_max, fmax(right, left));
}

#if W >= 8
/* The last axis, every colour, in lanes (lanes_rows; the rows of a last
 * group of fewer than four one by one); fin: the statistics too. */
static void lanes_axis(const job *J, int fin, double *tot, stat *st, lbt_counts *c)
{
	const lbt_view *v = J->v;
	const int last = v->dims - 1;
	const int64_t n = v->ext[last], rows = lbt_fiber_count(v, last);
	const lbt_scratch *S = v->scratch;
	const int T = v->threads < S->threads ? v->threads : S->threads, par = rows * n > 16384;
	const int NT = par ? T : 1;
	int has[3];
	double *rs[3];
	part pt[3][NT];
	for (int col = 0; col < 3; col++) {
		has[col] = has_colour(n, v->torus[last], col);
		rs[col] = (double *)S->link[0] + col * rows; /* cells >= P >= 4 rows */
		for (int t = 0; t < NT; t++)
			pt[col][t] = (part){-HUGE_VAL, -HUGE_VAL, 0};
	}
#pragma omp parallel num_threads(NT) if (par)
	{
		const int t = lbt_thread_id();
		VD *TB = lbt_scratch_row(S, t);
		part A[3];
		for (int col = 0; col < 3; col++)
			A[col] = (part){-HUGE_VAL, -HUGE_VAL, 0};
		stat X = {-HUGE_VAL, HUGE_VAL, 0};
#pragma omp for schedule(static)
		for (int64_t b = 0; b < (rows + 3) / 4; b++) {
			if (rows - b * 4 >= 4) {
				lanes_rows(J, b * 4, TB, has, rs, A, tot, fin ? &X : NULL);
				continue;
			}
			const int g = (int)(rows - b * 4);
			for (int col = 0; col < 3; col++)
				if (has[col]) {
					job K = *J;
					K.rowsum = rs[col];
					inrow(&K, col, b * 4, g, &A[col], tot, NULL);
				}
			if (fin)
				row_stats(J, b * 4, g, tot, &X);
		}
		for (int col = 0; col < 3; col++)
			pt[col][t] = A[col];
		if (fin)
			st[t] = X;
	}
	for (int col = 0; col < 3; col++)
		if (has[col])
			substep_counts(J, pt[col], NT, rs[col], c);
}
#endif

/* The step's statistics into c: the loads' extremes and total, as
 * lbt_field_stats forms them (real: the rows' totals added in row order),
 * so the engine makes no pass of its own. */
static void put_stats(lbt_counts *c, int real, double mx, double mn, const double *tot, int64_t rows, int64_t itotal)
{
	c->has_stats = 1;
	if (real) {
		double total = 0;
		for (int64_t r = 0; r < rows; r++)
			total += tot[r];
		c->real_max = mx;
		c->real_min = mn;
		c->real_total = total;
	} else {
		c->max = (int32_t)mx;
		c->min = (int32_t)mn;
		c->total = itotal;
	}
}

/* Axes d0 .. d1-1 in turn (a sweep: all of them; de-axis: one). */
static void de_step(const lbt_view *v, double lambda, int real, int d0, int d1, lbt_counts *c)
{
	const int last = v->dims - 1;
	const int64_t n = v->ext[last], rows = lbt_fiber_count(v, last);
	const lbt_scratch *S = v->scratch;
	const int T = v->threads < S->threads ? v->threads : S->threads, par = rows * n > 16384;
	const int NT = par ? T : 1;
	job J = {.v = v, .lambda = lambda, .real = real, .rowsum = S->rowsum};
	double *tot = S->rowsum + rows; /* the real rows' totals */
	part pt[NT];
	stat st[NT];
	int fin_d = -1, fin_col = -1; /* the step's last substep */
	for (int d = d0; d < d1; d++)
		for (int col = 0; col < 3; col++)
			if (has_colour(v->ext[d], v->torus[d], col))
				fin_d = d, fin_col = col;
	const int fused = fin_d == last; /* the statistics in the last substep's pass */
	for (int t = 0; t < NT; t++)
		st[t] = (stat){-HUGE_VAL, HUGE_VAL, 0};
	for (int d = d0; d < d1; d++) {
#if W >= 8
		if (d == last && n >= 4 && n <= ((int64_t)1 << 22)) { /* every colour of the last axis in lanes */
			lanes_axis(&J, fused, tot, st, c);
			continue;
		}
#endif
		for (int col = 0; col < 3; col++) {
			if (!has_colour(v->ext[d], v->torus[d], col))
				continue; /* no pair: the reference adds only zeros */
			for (int t = 0; t < NT; t++)
				pt[t] = (part){-HUGE_VAL, -HUGE_VAL, 0};
			const int fin = fused && d == fin_d && col == fin_col;
#pragma omp parallel num_threads(NT) if (par)
			{
				const int t = lbt_thread_id();
				double *fb = lbt_scratch_row(S, t);
				part A = {-HUGE_VAL, -HUGE_VAL, 0};
				stat X = {-HUGE_VAL, HUGE_VAL, 0};
#pragma omp for schedule(static)
				for (int64_t b = 0; b < (rows + RB - 1) / RB; b++) {
					const int k = rows - b * RB < RB ? (int)(rows - b * RB) : RB;
					if (d == last)
						for (int j = 0; j < k; j += G)
							inrow(&J, col, b * RB + j, k - j < G ? k - j : G, &A, tot, fin ? &X : NULL);
					else
						outer(&J, d, col, b * RB, k, fb, &A);
				}
				pt[t] = A;
				if (fin)
					st[t] = X;
			}
			substep_counts(&J, pt, NT, J.rowsum, c);
		}
	}
	if (!fused) { /* the last substep on an outer axis (de-axis): a pass of its own */
#pragma omp parallel num_threads(NT) if (par)
		{
			stat A = {-HUGE_VAL, HUGE_VAL, 0};
#pragma omp for schedule(static)
			for (int64_t b = 0; b < (rows + G - 1) / G; b++)
				row_stats(&J, b * G, rows - b * G < G ? (int)(rows - b * G) : G, tot, &A);
			st[lbt_thread_id()] = A;
		}
	}
	double mx = -HUGE_VAL, mn = HUGE_VAL;
	int64_t itotal = 0;
	for (int t = 0; t < NT; t++) { /* ties keep the first: threads (runs of rows) in order */
		mx = st[t].mx > mx ? st[t].mx : mx;
		mn = st[t].mn < mn ? st[t].mn : mn;
		itotal += st[t].total;
	}
	put_stats(c, real, mx, mn, tot, rows, itotal);
}

#if W >= 8
/* Several steps a call, the grid in lanes for the whole call (AVX2, AVX-512). The
 * rows are four bands of B = R/4 consecutive rows (R rows of the last axis;
 * the first axis cut in four, its extent a multiple of 8), and group j holds
 * the band's j-th rows side by side: vector i of group j (G[j n + i]) holds
 * PE i of rows j, B + j, 2B + j, 3B + j. Every pair of every axis is then a
 * vertical operation: on the last axis (i, i+1) of a group; on an outer axis
 * d >= 1 group j with the group of the next coordinate on d; on the first
 * axis group j with group j + Q (Q = R / ext[0]) inside a band, and the last
 * groups of the bands with the first ones rotated by a lane (band q's last
 * row pairs with band q+1's first, band 3's with band 0's: the wrap-around,
 * colour 1 as every band's last pair, ext[0] / 4 being even). Each lane is
 * one row at a time, in its band's order, so the chains keep the reference's
 * order: a row's amount moved and its total, in the lane; the rows' sums
 * added in row order after each step. The extremes fold per lane through
 * the band's rows in order, then band by band: row-major order, ties keeping
 * the first as lbt_field_stats. */
typedef struct {
	job J;
	int64_t n, R, B, Q, h; /* PEs a row, rows, groups, groups a coordinate of the first axis, ext[0] / 4 */
	VD *G;                 /* the groups */
	double *rs;            /* rs[u R + r]: row r's amount moved in the step's substep u */
	double *tot;           /* the rows' totals */
} lanes;

/* The grid's shapes the lanes take: D >= 2, the first axis's extent a
 * multiple of 8, rows of 4 to 2^22 PEs, and room in the scratch for a sum per
 * row and substep. */
static int lanes_fit(const lbt_view *v)
{
	const int last = v->dims - 1;
	if (v->dims < 2 || v->ext[0] % 8 || v->ext[last] < 4 || v->ext[last] > ((int64_t)1 << 22))
		return 0;
	int sub = 0;
	for (int d = 0; d < v->dims; d++)
		for (int col = 0; col < 3; col++)
			sub += has_colour(v->ext[d], v->torus[d], col);
	return (int64_t)sub * lbt_fiber_count(v, last) <= v->scratch->cells;
}

/* The grid into the groups (in) or back (!in), groups shared by the threads. */
static void lanes_move(const lanes *X, int in, int NT, int par)
{
	const lbt_view *v = X->J.v;
	const int last = v->dims - 1;
#pragma omp parallel for num_threads(NT) if (par) schedule(static)
	for (int64_t j = 0; j < X->B; j++) {
		int64_t off[4];
		for (int q = 0; q < 4; q++)
			off[q] = lbt_fiber_base(v, last, q * X->B + j) - v->load;
		if (in)
			lanes_in(&X->J, off, X->G + j * X->n);
		else
			lanes_out(&X->J, off, X->G + j * X->n);
	}
}

/* Pair a, b over the group's n vectors (b rotated by a lane if rot; mask:
 * the lanes that have a pair), the lanes' sums, maxima and least flows into sum, rr, lo. */
static ALWAYS_INLINE void lanes_pairs(const lanes *X, VD *a, VD *b, int rot, VD mask, VD *sum, simde__m256i *mv,
                                      VD *rr, VD *lo)
{
	const VD L = simde_mm256_set1_pd(X->J.lambda), sign = simde_mm256_set1_pd(-0.0),
	         magic = simde_mm256_set1_pd(4503599627370496.0); /* 2^52 */
	const int real = X->J.real;
	for (int64_t i = 0; i < X->n; i++) {
		if (!rot) {
			lanes_pair(&a[i], &b[i], L, real, sum, mv, rr, lo);
			continue;
		}
		const VD x = a[i], y = simde_mm256_permute4x64_pd(b[i], 0x39); /* lane q: b's lane q + 1 */
		VD f = simde_mm256_mul_pd(L, simde_mm256_sub_pd(x, y));
		if (!real)
			f = simde_mm256_round_pd(f, SIMDE_MM_FROUND_TO_ZERO | SIMDE_MM_FROUND_NO_EXC);
		f = simde_mm256_and_pd(f, mask); /* +0 where there is no pair */
		a[i] = simde_mm256_sub_pd(x, f);
		const VD yn = simde_mm256_blendv_pd(y, simde_mm256_add_pd(y, f), mask); /* -0 + 0 would be +0 */
		b[i] = simde_mm256_permute4x64_pd(yn, 0x93);
		const VD af = simde_mm256_andnot_pd(sign, f);
		if (real)
			*sum = simde_mm256_add_pd(*sum, af);
		else
			*mv = simde_mm256_add_epi64(*mv, simde_mm256_sub_epi64(simde_mm256_castpd_si256(simde_mm256_add_pd(af, magic)),
			                                                       simde_mm256_castpd_si256(magic)));
		*rr = simde_mm256_max_pd(*rr, f);
		*lo = simde_mm256_min_pd(*lo, f);
	}
}

/* A group j's lanes after its pairs of one colour: the rows' sums into rs, the folds into A. */
static void group_fold(const lanes *X, int64_t j, VD sum, VD rr, VD lo, simde__m256i mv, double *rs, part *A)
{
	double s[4], r[4], l[4];
	int64_t m[4];
	simde_mm256_storeu_pd(s, sum);
	simde_mm256_storeu_pd(r, rr);
	simde_mm256_storeu_pd(l, lo);
	simde_mm256_storeu_si256((void *)m, mv);
	for (int q = 0; q < 4; q++) {
		rs[q * X->B + j] = s[q];
		A->right = maxd(A->right, r[q]);
		A->left = maxd(A->left, -l[q]);
		A->moved += m[q];
	}
}

/* Group j on outer axis d, colour col: paired with its partner if its rows
 * have colour col on d; the rows' sums into rs (0: no pair), the folds into A. */
static void outer_group(const lanes *X, int d, int col, int64_t j, double *rs, part *A)
{
	const lbt_view *v = X->J.v;
	const int last = v->dims - 1;
	const int64_t nd = v->ext[d];
	int64_t qd = 1; /* groups a coordinate of d (d >= 1) */
	for (int e = last - 1; e > d; e--)
		qd *= v->ext[e];
	int64_t partner = -1;
	int rot = 0;
	if (d == 0) {
		const int64_t k = j / X->Q; /* the coordinate in the band */
		if (k + 1 < X->h && k % 2 == col)
			partner = j + X->Q;
		else if (k + 1 == X->h && col == 1)
			partner = j - (X->h - 1) * X->Q, rot = 1;
	} else {
		const int64_t k = (j / qd) % nd;
		if (lbt_de_color(k, nd, v->torus[d]) == col)
			partner = j + ((k + 1) % nd - k) * qd;
	}
	if (partner >= 0) {
		const VD all = simde_mm256_castsi256_pd(simde_mm256_set1_epi64x(-1)),
		         wrap = v->torus[0] ? all : simde_mm256_castsi256_pd(simde_mm256_set_epi64x(0, -1, -1, -1));
		VD sum = simde_mm256_setzero_pd(), rr = simde_mm256_set1_pd(-HUGE_VAL), lo = simde_mm256_set1_pd(HUGE_VAL);
		simde__m256i mv = simde_mm256_setzero_si256();
		VD *a = X->G + j * X->n, *b = X->G + partner * X->n;
		if (rot)
			lanes_pairs(X, a, b, 1, wrap, &sum, &mv, &rr, &lo);
		else
			lanes_pairs(X, a, b, 0, all, &sum, &mv, &rr, &lo);
		group_fold(X, j, sum, rr, lo, mv, rs, A);
		return;
	}
	for (int q = 0; q < 4; q++)
		rs[q * X->B + j] = 0;
}

/* The first axis's pairs (ja, ja + Q) of one colour and (jb, jb + Q) of the
 * next, none rotated, side by side (two independent chains): the second
 * colour's pair at PE i after the first's, which is all it reads of it. */
static void outer_two(const lanes *X, int64_t ja, int64_t jb, double *rsa, part *Aa, double *rsb, part *Ab)
{
	const VD L = simde_mm256_set1_pd(X->J.lambda);
	VD sum[2], rr[2], lo[2];
	simde__m256i mv[2];
	for (int g = 0; g < 2; g++) {
		sum[g] = simde_mm256_setzero_pd();
		rr[g] = simde_mm256_set1_pd(-HUGE_VAL);
		lo[g] = simde_mm256_set1_pd(HUGE_VAL);
		mv[g] = simde_mm256_setzero_si256();
	}
	VD *a0 = X->G + ja * X->n, *b0 = X->G + (ja + X->Q) * X->n, *a1 = X->G + jb * X->n, *b1 = X->G + (jb + X->Q) * X->n;
	if (X->J.real)
		for (int64_t i = 0; i < X->n; i++) {
			lanes_pair(&a0[i], &b0[i], L, 1, &sum[0], &mv[0], &rr[0], &lo[0]);
			lanes_pair(&a1[i], &b1[i], L, 1, &sum[1], &mv[1], &rr[1], &lo[1]);
		}
	else
		for (int64_t i = 0; i < X->n; i++) {
			lanes_pair(&a0[i], &b0[i], L, 0, &sum[0], &mv[0], &rr[0], &lo[0]);
			lanes_pair(&a1[i], &b1[i], L, 0, &sum[1], &mv[1], &rr[1], &lo[1]);
		}
	group_fold(X, ja, sum[0], rr[0], lo[0], mv[0], rsa, Aa);
	group_fold(X, jb, sum[1], rr[1], lo[1], mv[1], rsb, Ab);
}

/* Substep u: outer axis d, colour col, every group. */
static void lanes_outer_sub(const lanes *X, int d, int col, int u, part *pt, int NT, int par)
{
	double *rs = X->rs + u * X->R;
	for (int t = 0; t < NT; t++) /* a team smaller than NT (in a caller's region) leaves its other parts empty */
		pt[t] = (part){-HUGE_VAL, -HUGE_VAL, 0};
#pragma omp parallel num_threads(NT) if (par)
	{
		part A = {-HUGE_VAL, -HUGE_VAL, 0};
#pragma omp for schedule(static)
		for (int64_t j = 0; j < X->B; j++)
			outer_group(X, d, col, j, rs, &A);
		pt[lbt_thread_id()] = A;
	}
}

/* A thread's extremes per lane (its groups' rows in order) and integer total. */
typedef struct {
	double mx[4], mn[4];
	int64_t total;
} lstat;

/* The last axis's substeps u .. (every colour, has[col]) and, if ls, the
 * statistics; or, if only, the statistics alone. */
static void lanes_last_sub(const lanes *X, const int *has, int u, part (*pt)[3], lstat *ls, int only, int NT, int par)
{
	double *rs[3];
	for (int col = 0, k = u; col < 3; col++)
		rs[col] = X->rs + (has[col] ? k++ : 0) * X->R;
	const int none[3] = {0, 0, 0};
	for (int t = 0; t < NT; t++) { /* a team smaller than NT (in a caller's region) leaves its other parts empty */
		for (int col = 0; col < 3; col++)
			pt[t][col] = (part){-HUGE_VAL, -HUGE_VAL, 0};
		for (int q = 0; ls && q < 4; q++)
			ls[t].mx[q] = -HUGE_VAL, ls[t].mn[q] = HUGE_VAL;
		if (ls)
			ls[t].total = 0;
	}
#pragma omp parallel num_threads(NT) if (par)
	{
		const int t = lbt_thread_id();
		part A[3];
		for (int col = 0; col < 3; col++)
			A[col] = (part){-HUGE_VAL, -HUGE_VAL, 0};
		VD mx = simde_mm256_set1_pd(-HUGE_VAL), mn = simde_mm256_set1_pd(HUGE_VAL);
		int64_t itot = 0;
#pragma omp for schedule(static)
		for (int64_t j2 = 0; j2 < X->B / 2; j2++) { /* two groups side by side (B = Q ext[0] / 4 is even) */
			const int64_t j = 2 * j2, row[4] = {j, X->B + j, 2 * X->B + j, 3 * X->B + j};
			const int64_t row1[4] = {j + 1, X->B + j + 1, 2 * X->B + j + 1, 3 * X->B + j + 1};
			VD x[2] = {mx, simde_mm256_set1_pd(-HUGE_VAL)}, y[2] = {mn, simde_mm256_set1_pd(HUGE_VAL)};
			lanes_last2(&X->J, X->G + j * X->n, X->G + (j + 1) * X->n, row, row1, only ? none : has, rs, A,
			            ls ? X->tot : NULL, x, y, &itot);
			mx = simde_mm256_max_pd(x[1], x[0]); /* ties keep group j's */
			mn = simde_mm256_min_pd(y[1], y[0]);
		}
		for (int col = 0; col < 3; col++)
			pt[t][col] = A[col];
		if (ls) {
			simde_mm256_storeu_pd(ls[t].mx, mx);
			simde_mm256_storeu_pd(ls[t].mn, mn);
			ls[t].total = itot;
		}
	}
}

/* A sweep of a 2-D grid on one thread, in one pass over the groups (a
 * group is a row of each band): the first axis's colour 0 pairs (j, j+1),
 * j even, and colour 1 pairs (j, j+1), j odd, the last band's rows with the
 * next band's first (rotated), then the last axis of each group as soon as
 * both its pairs on the first axis are done, while it is in cache; group 0
 * last (its colour 1 pair is the rotated one). The substeps' sums and folds
 * go where the passes put them (substeps 0, 1, then the last axis's from
 * 2), and group 0's extremes are folded in first, as its rows come first in
 * their lanes. has: the last axis's colours; none for a de-axis step on the
 * first axis, whose statistics the pass measures all the same. */
static void lanes_sweep2(const lanes *X, const int *has, part (*pt)[1], part (*pl)[3], lstat *ls)
{
	part A0 = {-HUGE_VAL, -HUGE_VAL, 0}, A1 = A0, A[3] = {A0, A0, A0};
	double *rs[3];
	for (int col = 0, k = 2; col < 3; col++)
		rs[col] = X->rs + (has[col] ? k++ : 0) * X->R;
	VD mx = simde_mm256_set1_pd(-HUGE_VAL), mn = simde_mm256_set1_pd(HUGE_VAL), mx0 = mx, mn0 = mn;
	int64_t itot = 0;
	double *rs0 = X->rs, *rs1 = X->rs + X->R;
	const int64_t h = X->h;
#define ROW(j) ((const int64_t[4]){(j), X->B + (j), 2 * X->B + (j), 3 * X->B + (j)})
#define LAST2(j, k, x, y) \
	lanes_last2(&X->J, X->G + (j) * X->n, X->G + (k) * X->n, ROW(j), ROW(k), has, rs, A, X->tot, x, y, &itot)
	outer_group(X, 0, 0, 0, rs0, &A0);
	for (int64_t m = 1; m + 2 < h; m += 2) {
		outer_two(X, m + 1, m, rs0, &A0, rs1, &A1);
		outer_group(X, 0, 0, m, rs0, &A0); /* no pair: its rows' sums 0 */
		outer_group(X, 0, 1, m + 1, rs1, &A1);
		VD x[2] = {mx, simde_mm256_set1_pd(-HUGE_VAL)}, y[2] = {mn, simde_mm256_set1_pd(HUGE_VAL)};
		LAST2(m, m + 1, x, y);
		mx = simde_mm256_max_pd(x[1], x[0]); /* ties keep group m's */
		mn = simde_mm256_min_pd(y[1], y[0]);
	}
	outer_group(X, 0, 1, h - 1, rs1, &A1);
	outer_group(X, 0, 0, h - 1, rs0, &A0);
	outer_group(X, 0, 1, 0, rs1, &A1);
	{
		VD x[2] = {mx, mx0}, y[2] = {mn, mn0};
		LAST2(h - 1, 0, x, y);
		mx = x[0], mn = y[0], mx0 = x[1], mn0 = y[1];
	}
#undef LAST2
#undef ROW
	mx = simde_mm256_max_pd(mx, mx0); /* ties keep group 0's */
	mn = simde_mm256_min_pd(mn, mn0);
	pt[0][0] = A0;
	pt[1][0] = A1;
	for (int col = 0; col < 3; col++)
		pl[0][col] = A[col];
	simde_mm256_storeu_pd(ls[0].mx, mx);
	simde_mm256_storeu_pd(ls[0].mn, mn);
	ls[0].total = itot;
}

/* Whether a step's counts meet the call's stop (kernels.h; real loads: the
 * extremes truncated, a superset of the engine's exact ones). */
static int stop_met(const lbt_steps_stop *st, const lbt_counts *c, int real)
{
	if (!st)
		return 0;
	if (!real)
		return (int64_t)c->max - c->min <= st->ldiff || (st->shared && c->min > 0) ||
		       (c->max == st->max && c->min == st->min);
	return c->real_max - c->real_min <= (double)st->ldiff || (st->shared && c->real_min > 0) ||
	       (st->max >= st->min && trunc(c->real_max) == st->max && trunc(c->real_min) == st->min);
}

static int lane_steps(const lbt_view *v, double lambda, int kind, int n, const lbt_steps_stop *stop, lbt_counts *c)
{
	const int last = v->dims - 1, real = kind != LBT_DE_INT;
	const lbt_scratch *S = v->scratch;
	const int64_t rows = lbt_fiber_count(v, last);
	const int T = v->threads < S->threads ? v->threads : S->threads, par = rows * v->ext[last] > 16384;
	const int NT = par ? T : 1;
	lanes X = {.J = {.v = v, .lambda = lambda, .real = real}, .n = v->ext[last], .R = rows, .B = rows / 4,
	           .Q = rows / v->ext[0], .h = v->ext[0] / 4, .G = S->link[1], .rs = S->link[0], .tot = S->rowsum};
	int has[8][3];
	for (int d = 0; d < v->dims; d++)
		for (int col = 0; col < 3; col++)
			has[d][col] = has_colour(v->ext[d], v->torus[d], col);
	part pt[3 * 8][NT], pl[NT][3];
	lstat ls[NT];
	lanes_move(&X, 1, NT, par);
	int s = 0;
	while (s < n) {
		lbt_counts *k = &c[s];
		*k = (lbt_counts){0};
		const int axis = kind == LBT_DE_AXIS ? lbt_de_axis_at(v, v->step + s) : -1; /* >= 0: ext[0] >= 8 */
		int d0 = kind == LBT_DE_AXIS ? axis : 0;
		const int d1 = kind == LBT_DE_AXIS ? axis + 1 : v->dims;
		s++;
		int u = 0, measured = 0;
		if (v->dims == 2 && NT == 1 && d0 == 0) { /* one pass (de-axis on the first axis: its statistics in it) */
			static const int none[3] = {0, 0, 0};
			const int *hl = kind == LBT_DE_AXIS ? none : has[last];
			lanes_sweep2(&X, hl, pt, pl, ls);
			u = 2;
			for (int col = 0; col < 3; col++)
				if (hl[col])
					pt[u++][0] = pl[0][col];
			d0 = d1;
			measured = 1;
		}
		for (int d = d0; d < d1; d++) {
			if (d == last) {
				lanes_last_sub(&X, has[d], u, pl, ls, 0, NT, par);
				for (int col = 0; col < 3; col++)
					if (has[d][col]) {
						for (int t = 0; t < NT; t++)
							pt[u][t] = pl[t][col];
						u++;
					}
				continue;
			}
			for (int col = 0; col < 3; col++)
				if (has[d][col])
					lanes_outer_sub(&X, d, col, u, pt[u], NT, par), u++;
		}
		if (d1 - 1 != last && !measured) /* the step ends on an outer axis: the statistics alone */
			lanes_last_sub(&X, has[last], 0, pl, ls, 1, NT, par);
		for (int w = 0; w < u; w++)
			substep_counts(&X.J, pt[w], NT, X.rs + w * X.R, k);
		double mx = -HUGE_VAL, mn = HUGE_VAL;
		int64_t itotal = 0;
		for (int q = 0; q < 4; q++) /* row-major: band by band, each band's threads in order */
			for (int t = 0; t < NT; t++) {
				mx = ls[t].mx[q] > mx ? ls[t].mx[q] : mx;
				mn = ls[t].mn[q] < mn ? ls[t].mn[q] : mn;
			}
		for (int t = 0; t < NT; t++)
			itotal += ls[t].total;
		put_stats(k, real, mx, mn, X.tot, rows, itotal);
		if (stop_met(stop, k, real))
			break;
	}
	lanes_move(&X, 0, NT, par);
	return s;
}
#endif

/* Without a scratch (a caller that allocated none) the reference does the step. */
void LBT_SIMD_FN(lbt_simd_de_step)(const lbt_view *v, double lambda, lbt_counts *c)
{
	if (v->scratch && !v->cut) /* a cut view: the reference's */
		de_step(v, lambda, 1, 0, v->dims, c);
	else
		lbt_ref_de_step(v, lambda, c);
}
void LBT_SIMD_FN(lbt_simd_de_int_step)(const lbt_view *v, double lambda, lbt_counts *c)
{
	if (v->scratch && !v->cut) /* a cut view: the reference's */
		de_step(v, lambda, 0, 0, v->dims, c);
	else
		lbt_ref_de_int_step(v, lambda, c);
}
void LBT_SIMD_FN(lbt_simd_de_axis_step)(const lbt_view *v, double lambda, int axis, lbt_counts *c)
{
	if (v->scratch && !v->cut) /* a cut view: the reference's */
		de_step(v, lambda, 1, axis, axis + 1, c);
	else
		lbt_ref_de_axis_step(v, lambda, axis, c);
}

int LBT_SIMD_FN(lbt_simd_de_steps)(const lbt_view *v, double lambda, int kind, int n, const lbt_steps_stop *stop,
                                   lbt_counts *c)
{
#if W >= 8
	if (v->scratch && !v->cut && lanes_fit(v))
		return lane_steps(v, lambda, kind, n, stop, c);
#endif
	(void)n;
	(void)stop;
	*c = (lbt_counts){0};
	const int axis = kind == LBT_DE_AXIS ? lbt_de_axis_at(v, v->step) : 0;
	if (kind == LBT_DE_REAL)
		LBT_SIMD_FN(lbt_simd_de_step)(v, lambda, c);
	else if (kind == LBT_DE_INT)
		LBT_SIMD_FN(lbt_simd_de_int_step)(v, lambda, c);
	else if (axis >= 0)
		LBT_SIMD_FN(lbt_simd_de_axis_step)(v, lambda, axis, c);
	return 1;
}

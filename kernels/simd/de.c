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
 * engine makes no statistics pass of its own.
 *
 * With AVX2 and AVX-512 the last axis's pairs run in lanes (four rows a
 * 256-bit vector), and `de_steps` keeps the whole grid in lanes for a call
 * (de_lanes.h: four rows a 256-bit vector, or on AVX-512 eight a 512-bit
 * one where the first extent is a multiple of 16). */
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

/* PEs i .. i+3 of the four rows at off[0..3], transposed: x[k] holds the rows' PE i + k. */
static ALWAYS_INLINE void tr_in4(const job *J, const int64_t *off, int64_t i, VD *x)
{
	const lbt_view *v = J->v;
	VD y[4];
	for (int q = 0; q < 4; q++)
		y[q] = J->real ? simde_mm256_loadu_pd(v->real + off[q] + i)
		               : simde_mm256_cvtepi32_pd(simde_mm_loadu_si128((const void *)(v->load + off[q] + i)));
	const VD t0 = simde_mm256_unpacklo_pd(y[0], y[1]), t1 = simde_mm256_unpackhi_pd(y[0], y[1]),
	         t2 = simde_mm256_unpacklo_pd(y[2], y[3]), t3 = simde_mm256_unpackhi_pd(y[2], y[3]);
	x[0] = simde_mm256_permute2f128_pd(t0, t2, 0x20);
	x[1] = simde_mm256_permute2f128_pd(t1, t3, 0x20);
	x[2] = simde_mm256_permute2f128_pd(t0, t2, 0x31);
	x[3] = simde_mm256_permute2f128_pd(t1, t3, 0x31);
}

/* tr_in4's inverse: x[k] (the rows' PE i + k) back into the four rows at off[0..3]. */
static ALWAYS_INLINE void tr_out4(const job *J, const int64_t *off, int64_t i, const VD *x)
{
	const lbt_view *v = J->v;
	const VD t0 = simde_mm256_unpacklo_pd(x[0], x[1]), t1 = simde_mm256_unpackhi_pd(x[0], x[1]),
	         t2 = simde_mm256_unpacklo_pd(x[2], x[3]), t3 = simde_mm256_unpackhi_pd(x[2], x[3]);
	const VD y[4] = {simde_mm256_permute2f128_pd(t0, t2, 0x20), simde_mm256_permute2f128_pd(t1, t3, 0x20),
	                 simde_mm256_permute2f128_pd(t0, t2, 0x31), simde_mm256_permute2f128_pd(t1, t3, 0x31)};
	for (int q = 0; q < 4; q++)
		if (J->real)
			simde_mm256_storeu_pd(v->real + off[q] + i, y[q]);
		else
			simde_mm_storeu_si128((void *)(v->load + off[q] + i), simde_mm256_cvtpd_epi32(y[q]));
}

/* A row's last PEs (fewer than four left) one by one: PE i of k rows at off into x[0..k-1], or back (!in). */
static ALWAYS_INLINE void lane_pe(const job *J, const int64_t *off, int k, int64_t i, double *x, int in)
{
	const lbt_view *v = J->v;
	for (int q = 0; q < k; q++)
		if (in)
			x[q] = J->real ? v->real[off[q] + i] : (double)v->load[off[q] + i];
		else if (J->real)
			v->real[off[q] + i] = x[q];
		else
			v->load[off[q] + i] = (int32_t)x[q];
}

#define NL 4
#define VL VD
#define VLI simde__m256i
#define LMASK VD
#define LN(x) x##_4
#define L_SET1(x) simde_mm256_set1_pd(x)
#define L_ZERO() simde_mm256_setzero_pd()
#define L_ADD(a, b) simde_mm256_add_pd((a), (b))
#define L_SUB(a, b) simde_mm256_sub_pd((a), (b))
#define L_MUL(a, b) simde_mm256_mul_pd((a), (b))
#define L_MAX(a, b) simde_mm256_max_pd((a), (b))
#define L_MIN(a, b) simde_mm256_min_pd((a), (b))
#define L_ABS(a) simde_mm256_andnot_pd(simde_mm256_set1_pd(-0.0), (a))
#define L_TRUNC(a) simde_mm256_round_pd((a), SIMDE_MM_FROUND_TO_ZERO | SIMDE_MM_FROUND_NO_EXC)
#define L_STOREU(p, a) simde_mm256_storeu_pd((p), (a))
#define L_IZERO() simde_mm256_setzero_si256()
#define L_IADD(a, b) simde_mm256_add_epi64((a), (b))
#define L_ISUB(a, b) simde_mm256_sub_epi64((a), (b))
#define L_CASTI(a) simde_mm256_castpd_si256(a)
#define L_ISTOREU(p, a) simde_mm256_storeu_si256((void *)(p), (a))
#define L_ROTDN(a) simde_mm256_permute4x64_pd((a), 0x39) /* lane q: lane q + 1's */
#define L_ROTUP(a) simde_mm256_permute4x64_pd((a), 0x93) /* lane q: lane q - 1's */
#define L_MASKALL simde_mm256_castsi256_pd(simde_mm256_set1_epi64x(-1))
#define L_MASKMESH simde_mm256_castsi256_pd(simde_mm256_set_epi64x(0, -1, -1, -1)) /* the last lane off */
#define L_MASKZ(m, a) simde_mm256_and_pd((a), (m))                                 /* +0 where m is off */
#define L_MASKADD(y, m, a) simde_mm256_blendv_pd((y), simde_mm256_add_pd((y), (a)), (m)) /* y where m is off */
#define L_LOADU(p) simde_mm256_loadu_pd(p)
#define L_TR_IN tr_in4
#define L_TR_OUT tr_out4
#include "de_lanes.h" /* which undefines NL and the L_* it was given */

#if W == 16
/* AVX-512: the grid in lanes of eight doubles (de_lanes.h with NL = 8, the
 * first extent a multiple of 16): half the vector operations a pair of the
 * four lanes. Eight rows go into lanes as two 4x4 transposes, rows 0-3 in
 * the low half and 4-7 in the high one. */
typedef simde__m512d VD8;

/* PEs i .. i+3 of the eight rows at off into x[0..3] (tr_in4's rows 0-3 the low half, 4-7 the high one),
 * or back. */
static ALWAYS_INLINE void tr_in8(const job *J, const int64_t *off, int64_t i, VD8 *x)
{
	VD lo[4], hi[4];
	tr_in4(J, off, i, lo);
	tr_in4(J, off + 4, i, hi);
	for (int k = 0; k < 4; k++)
		x[k] = simde_mm512_insertf64x4(simde_mm512_castpd256_pd512(lo[k]), hi[k], 1);
}
static ALWAYS_INLINE void tr_out8(const job *J, const int64_t *off, int64_t i, const VD8 *x)
{
	VD lo[4], hi[4];
	for (int k = 0; k < 4; k++) {
		lo[k] = simde_mm512_castpd512_pd256(x[k]);
		hi[k] = simde_mm512_extractf64x4_pd(x[k], 1);
	}
	tr_out4(J, off, i, lo);
	tr_out4(J, off + 4, i, hi);
}

#define NL 8
#define VL VD8
#define VLI simde__m512i
#define LMASK simde__mmask8
#define LN(x) x##_8
#define L_SET1(x) simde_mm512_set1_pd(x)
#define L_ZERO() simde_mm512_setzero_pd()
#define L_ADD(a, b) simde_mm512_add_pd((a), (b))
#define L_SUB(a, b) simde_mm512_sub_pd((a), (b))
#define L_MUL(a, b) simde_mm512_mul_pd((a), (b))
#define L_MAX(a, b) simde_mm512_max_pd((a), (b))
#define L_MIN(a, b) simde_mm512_min_pd((a), (b))
#define L_ABS(a) simde_mm512_abs_pd(a)
/* Truncation (imm 3; with SIMDE_MM_FROUND_NO_EXC, SIMDe's emulation of
 * VRNDSCALEPD, avx512emu's, rounds to eighths instead). */
#define L_TRUNC(a) simde_mm512_roundscale_pd((a), SIMDE_MM_FROUND_TO_ZERO)
#define L_STOREU(p, a) simde_mm512_storeu_pd((p), (a))
#define L_IZERO() simde_mm512_setzero_si512()
#define L_IADD(a, b) simde_mm512_add_epi64((a), (b))
#define L_ISUB(a, b) simde_mm512_sub_epi64((a), (b))
#define L_CASTI(a) simde_mm512_castpd_si512(a)
#define L_ISTOREU(p, a) simde_mm512_storeu_si512((void *)(p), (a))
#define L_ROTDN(a) simde_mm512_permutexvar_pd(simde_mm512_set_epi64(0, 7, 6, 5, 4, 3, 2, 1), (a))
#define L_ROTUP(a) simde_mm512_permutexvar_pd(simde_mm512_set_epi64(6, 5, 4, 3, 2, 1, 0, 7), (a))
#define L_MASKALL ((simde__mmask8)0xff)
#define L_MASKMESH ((simde__mmask8)0x7f)
#define L_MASKZ(m, a) simde_mm512_maskz_mov_pd((m), (a))
#define L_MASKADD(y, m, a) simde_mm512_mask_add_pd((y), (m), (y), (a))
#define L_LOADU(p) simde_mm512_loadu_pd(p)
#define L_TR_IN tr_in8
#define L_TR_OUT tr_out8
#include "de_lanes.h" /* which undefines NL and the L_* it was given */
#endif

static void lanes_last(const job *J, VD *T, const int64_t *row, const int *has, double *const *rs, lpart_4 *A,
                       double *tot, VD *mx, VD *mn, int64_t *itot)
{
	lanes_last_k_4(J, 1, &T, &row, has, rs, A, tot, mx, mn, itot);
}

/* Rows r0 .. r0+3 through a buffer T: lanes_last, the statistics into tot and X if X. */
static void lanes_rows(const job *J, int64_t r0, VD *T, const int *has, double *const *rs, lpart_4 *A, double *tot,
                       stat *X)
{
	const lbt_view *v = J->v;
	const int last = v->dims - 1;
	int64_t off[4], row[4];
	for (int q = 0; q < 4; q++) {
		row[q] = r0 + q;
		off[q] = lbt_fiber_base(v, last, r0 + q) - v->load;
	}
	lanes_in_4(J, off, T);
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
	lanes_out_4(J, off, T);
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
		lpart_4 LA[3] = {lpart_none_4(), lpart_none_4(), lpart_none_4()}; /* the rows in lanes */
		for (int col = 0; col < 3; col++)
			A[col] = (part){-HUGE_VAL, -HUGE_VAL, 0};
		stat X = {-HUGE_VAL, HUGE_VAL, 0};
#pragma omp for schedule(static)
		for (int64_t b = 0; b < (rows + 3) / 4; b++) {
			if (rows - b * 4 >= 4) {
				lanes_rows(J, b * 4, TB, has, rs, LA, tot, fin ? &X : NULL);
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
		for (int col = 0; col < 3; col++) {
			part P;
			lpart_put_4(&LA[col], &P);
			pt[col][t] = (part){maxd(P.right, A[col].right), maxd(P.left, A[col].left), P.moved + A[col].moved};
		}
		if (fin)
			st[t] = X;
	}
	for (int col = 0; col < 3; col++)
		if (has[col])
			substep_counts(J, pt[col], NT, rs[col], c);
}
#endif

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
#if W == 16
	if (v->scratch && !v->cut && lanes_fit_8(v))
		return lane_steps_8(v, lambda, kind, n, stop, c);
#endif
#if W >= 8
	if (v->scratch && !v->cut && lanes_fit_4(v))
		return lane_steps_4(v, lambda, kind, n, stop, c);
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

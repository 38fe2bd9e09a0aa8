/* de.c — Cybenko's dimension exchange (seed 002 §4, kernels/ref/de.c: `de`,
 * `de-int`, and `de-axis`, one axis per step) as a vector kernel. Compiled once per ISA target (see
 * simd.h); checked bit for bit against the reference by tests/checkasm/de.c.
 *
 * A substep (one axis, one edge colour) exchanges over disjoint pairs, so its
 * rows can run in any order and in parallel. On an outer axis a pair of rows
 * (coordinates k and k+1 on the axis) exchanges W lanes at a time, with the
 * reference's operations: f = lambda (a - b), a - f, b + f (integer:
 * f = trunc(lambda (a - b)) through doubles, see extra.h). Pairs inside a row
 * (the last axis) are neighbouring lanes and run one at a time, as in the
 * reference. The real amount moved is summed per row in the reference's order
 * (a scalar pass over the row's flows), the rows' sums added in row order
 * after the parallel loop; the integer one is an exact sum; shifts and
 * link_max are maxima. So every thread count gives the same bits. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../fiber.h"
#include "extra.h"

typedef struct {
	const lbt_view *v;
	double lambda;
	int real;
	double *rowsum;   /* real amount moved per row */
	double *fbuf;     /* per thread: one row of flows */
} job;

/* fmax(a, b) without the library call, for the per-pair maxima (a quarter
 * of a step's time went to the calls): no operand is NaN, and on equal
 * operands (+0 and -0) it returns b, as glibc's fmax does (maxsd), so the
 * bits are the reference's. */
static inline double maxd(double a, double b) { return a > b ? a : b; }

/* One row's pairs in substep (d, col); returns whether it had any. */
static int row_exchange(const job *J, int d, int col, int64_t r, double *fb, double *right, double *left,
                        int64_t *moved)
{
	const lbt_view *v = J->v;
	const int last = v->dims - 1;
	const int64_t n = v->ext[last], row = lbt_fiber_base(v, last, r) - v->load;
	const double lam = J->lambda;
	double sum = 0;
	int any = 0;
	if (d == last) {
		for (int64_t i = 0; i < n; i++) {
			if (lbt_de_color(i, n, v->torus[d]) != col)
				continue;
			any = 1;
			const int64_t a = row + i, b = row + (i + 1) % n;
			double f;
			if (J->real) {
				double *w = v->real;
				f = lam * (w[a] - w[b]);
				w[a] -= f;
				w[b] += f;
			} else {
				int32_t *p = v->load;
				int64_t g = (int64_t)(lam * (double)((int64_t)p[a] - p[b]));
				p[a] = (int32_t)(p[a] - g);
				p[b] = (int32_t)(p[b] + g);
				*moved += g > 0 ? g : -g;
				f = (double)g;
			}
			sum += fabs(f);
			*right = maxd(*right, f);
			*left = maxd(*left, -f);
		}
	} else {
		int64_t q = 1;
		for (int e = last - 1; e > d; e--)
			q *= v->ext[e];
		const int64_t nd = v->ext[d], k = (r / q) % nd;
		if (lbt_de_color(k, nd, v->torus[d]) != col) {
			J->rowsum[r] = 0;
			return 0;
		}
		any = 1;
		const int64_t partner = row + ((k + 1) % nd - k) * v->stride[d];
		int64_t i = 0;
		if (J->real) {
			double *wa = v->real + row, *wb = v->real + partner;
			const VR L = RSET1(lam);
			for (; i + WD <= n; i += WD) {
				VR a = RLOAD(wa + i), b = RLOAD(wb + i), f = RMUL(L, RSUB(a, b));
				RSTORE(wa + i, RSUB(a, f));
				RSTORE(wb + i, RADD(b, f));
				RSTORE(fb + i, f);
			}
			for (; i < n; i++) {
				double f = lam * (wa[i] - wb[i]);
				wa[i] -= f;
				wb[i] += f;
				fb[i] = f;
			}
			for (int64_t j = 0; j < n; j++) {
				sum += fabs(fb[j]);
				*right = maxd(*right, fb[j]);
				*left = maxd(*left, -fb[j]);
			}
		} else {
			int32_t *pa = v->load + row, *pb = v->load + partner;
			V acc = VSET1(0), rm = VSET1(0), lm = VSET1(0);
			for (; i + W <= n; i += W) {
				V a = VLOAD(pa + i), b = VLOAD(pb + i), f = vconv(VSUB(a, b), lam, 0);
				VSTORE(pa + i, VSUB(a, f));
				VSTORE(pb + i, VADD(b, f));
				acc = FADD64(acc, VABS(f));
				rm = VMAX(rm, f);
				lm = VMAX(lm, VSUB(VSET1(0), f));
			}
			*moved += fsum64(acc);
			*right = fmax(*right, (double)vmax32(rm));
			*left = fmax(*left, (double)vmax32(lm));
			for (; i < n; i++) {
				int64_t g = (int64_t)(lam * (double)((int64_t)pa[i] - pb[i]));
				pa[i] = (int32_t)(pa[i] - g);
				pb[i] = (int32_t)(pb[i] + g);
				*moved += g > 0 ? g : -g;
				*right = maxd(*right, (double)g);
				*left = maxd(*left, (double)-g);
			}
		}
	}
	J->rowsum[r] = sum;
	return any;
}

/* Axes d0 .. d1-1 in turn (a sweep: all of them; de-axis: one). */
static void de_step(const lbt_view *v, double lambda, int real, int d0, int d1, lbt_counts *c)
{
	const int last = v->dims - 1;
	const int64_t n = v->ext[last], rows = lbt_fiber_count(v, last);
	const lbt_scratch *S = v->scratch;
	const int T = v->threads < S->threads ? v->threads : S->threads;
	job J = {.v = v, .lambda = lambda, .real = real, .rowsum = S->rowsum};
	for (int d = d0; d < d1; d++)
		for (int col = 0; col < 3; col++) {
			int any = 0;
			int64_t moved = 0;
			double right = 0, left = 0;
#pragma omp parallel num_threads(T) if (rows * n > 16384)
			{
				double *fb = lbt_scratch_row(S, lbt_thread_id());
				double r_ = 0, l_ = 0;
				int64_t m_ = 0;
				int a_ = 0;
#pragma omp for schedule(static)
				for (int64_t r = 0; r < rows; r++)
					a_ |= row_exchange(&J, d, col, r, fb, &r_, &l_, &m_);
#pragma omp critical(lbt_simd_de)
				{
					any |= a_;
					moved += m_;
					right = fmax(right, r_);
					left = fmax(left, l_);
				}
			}
			if (!any)
				continue;
			if (real) {
				for (int64_t r = 0; r < rows; r++)
					c->real_moved += J.rowsum[r];
				c->real_shifts += right + left;
			} else {
				c->moved += moved;
				c->shifts += (int64_t)(right + left);
			}
			c->link_max = fmax(c->link_max, fmax(right, left));
		}
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

/* nnadef.c — the deficiency-based NNA (Henrich, "The liquid model load
 * balancing method", 1996, §2.3 eq. (4), §5's rounding) as a vector kernel,
 * bit for bit kernels/ref/nna_def.c. Compiled once per ISA target (simd.h);
 * checked against the reference by tests/checkasm/flows.c.
 *
 * Two passes, as kernels/simd/flows.c. Pass 1 computes, for every PE i and
 * every one of its 2D link slots s (s = d: to i+1_d, s = D+d: to i-1_d), the
 * amount R_s[i] it sends, into scratch grids of the loads' layout (link[d]
 * holds R_{D+d} in its first int32 half and R_d in its second). Pass 2
 * writes L_i - sum_s R_s[i] + sum_d (R_d[i-1_d] + R_{D+d}[i+1_d]) in place
 * and counts moved, shifts and link_max, and the new loads' extremes and
 * total (has_stats: the engine makes no statistics pass of its own).
 *
 * Exact arithmetic in doubles. A missing link is a neighbour holding L_i
 * itself (it adds nothing to the surplus, the deficiencies or the degree).
 * With L_i and its neighbours below 2^31, surplus = sum_s (L_i - L_s) =
 * (|Δ|+1)(L_i - L̄_i) and H = sum_s h_s are integers below 2^36, den =
 * (|Δ|+1) H below 2^41, and every quantity is exact in a double. The
 * reference forms surplus h_s / den in 128 bits. Where surplus H < 2^53
 * (checked per group of lanes: a double product at or above 2^53 means the
 * exact one may be too), every numerator surplus h_s <= surplus H is below
 * 2^53, and the correctly rounded quotient of two such integers lies within
 * num 2^-53 < 1/den of num/den, so truncating it gives floor(num / den)
 * (a non-integral num/den is at least 1/den from every integer), and q den
 * = num (q den <= num: exact) says whether the quotient had a fraction. A
 * group with a larger product takes the reference's 128-bit formula, lane by
 * lane. Loads up to about 2^24 always take the fast path.
 *
 * Scope. Every shape and boundary (each lane's links and degree from its
 * coordinates); a view cut between ranks takes the reference.
 *
 * Threads. Rows are split statically; every counter is an exact integer sum
 * or maximum, so the result is the same for any thread count. */
#include <string.h>

#include "../fiber.h"
#include "dv.h"
#include "extra.h"

static int link_right(int64_t c, int64_t n, int torus) { return n >= 2 && (c < n - 1 || (torus && n > 2)); }
static int link_left(int64_t c, int64_t n, int torus) { return n >= 2 && (c > 0 || (torus && n > 2)); }

/* One row's place: its loads p (B: a copy with B[-1], B[n] the last axis's
 * wrap-around), its offset in the grid, and per outer axis whether its PEs
 * have the links to i+1_d and i-1_d. */
typedef struct {
	const lbt_view *v;
	int32_t *p;
	const int32_t *B;
	int64_t off, n;
	int tl;                /* the last axis wraps (torus, extent > 2) */
	int right[8], left[8]; /* outer axes */
	int32_t *R[16];        /* R_s at the loads' offsets */
} row;

/* The reference's formula for the PE at position k of the row, in 128 bits. */
static void exact_pe(const row *w, int64_t k)
{
	const lbt_view *v = w->v;
	const int D = v->dims, last = D - 1;
	const int64_t n = w->n, l = w->B[k];
	int64_t S = l, H = 0, h[16];
	int deg = 0;
	for (int s = 0; s < 2 * D; s++) {
		const int up = s < D, d = up ? s : s - D;
		int has;
		int64_t nb;
		if (d == last) {
			has = up ? link_right(k, n, v->torus[d]) : link_left(k, n, v->torus[d]);
			nb = w->B[k + (up ? 1 : -1)];
		} else {
			has = up ? w->right[d] : w->left[d];
			nb = has ? w->p[k + (up ? 1 : -1) * v->stride[d]] : l;
		}
		h[s] = has && l > nb ? l - nb : 0;
		S += has ? nb : 0;
		H += h[s];
		deg += has;
	}
	const __int128 surplus = (__int128)l * (deg + 1) - S;
	int64_t q[16] = {0};
	if (surplus > 0 && H > 0) {
		const __int128 den = (__int128)(deg + 1) * H;
		int64_t sent = 0;
		int frac[16];
		for (int s = 0; s < 2 * D; s++) {
			const __int128 num = surplus * h[s];
			q[s] = (int64_t)(num / den);
			frac[s] = num % den != 0;
			sent += q[s];
		}
		for (int d = 0; d < D; d++)
			if (frac[d] && sent + 1 <= l) {
				q[d]++;
				sent++;
			}
	}
	for (int s = 0; s < 2 * D; s++)
		w->R[s][w->off + k] = (int32_t)q[s];
}

/* Pass 1 on the DW PEs from position i of the row. */
static ALWAYS_INLINE void pass1_group(const row *w, int64_t i, const int D)
{
	const lbt_view *v = w->v;
	const int last = D - 1;
	const int64_t n = w->n;
	const DV zero = DSET1(0), one = DSET1(1), pos = DADD(DIOTA(), DSET1((double)i));
	const DV valid = DGT(DSET1((double)n), pos);
	const DV l = DSEL(valid, DLOADI(w->B + i), zero);
	DV diff[16], surplus = zero, H = zero, deg1 = one;
	for (int s = 0; s < 2 * D; s++) {
		const int up = s < D, d = up ? s : s - D;
		DV nb, has;
		if (d == last) {
			nb = DLOADI(w->B + i + (up ? 1 : -1));
			has = n < 2 ? zero : w->tl ? valid : up ? DGT(DSET1((double)(n - 1)), pos) : DAND(valid, DGT(pos, zero));
		} else {
			const int on = up ? w->right[d] : w->left[d];
			if (!on) {
				diff[s] = zero;
				continue;
			}
			nb = DLOADI(w->p + i + (up ? 1 : -1) * v->stride[d]);
			has = valid;
		}
		diff[s] = DSUB(l, DSEL(has, nb, l));
		surplus = DADD(surplus, diff[s]);
		H = DADD(H, DMAX(diff[s], zero));
		deg1 = DADD(deg1, DAND(has, one));
	}
	if (DANY(DGE(DMUL(surplus, H), DSET1(0x1p53)))) { /* a product too wide for a double: 128 bits */
		for (int64_t k = i; k < i + DW && k < n; k++)
			exact_pe(w, k);
		for (int64_t k = n > i ? n : i; k < i + DW; k++)
			for (int s = 0; s < 2 * D; s++)
				w->R[s][w->off + k] = 0;
		return;
	}
	const DV active = DGT(surplus, zero); /* then H >= surplus > 0 */
	const DV den = DSEL(active, DMUL(deg1, H), one);
	DV q[16], frac[16], sent = zero;
	for (int s = 0; s < 2 * D; s++) {
		const DV num = DMUL(surplus, DMAX(diff[s], zero));
		q[s] = DSEL(active, DTRUNC(DDIV(num, den)), zero);
		frac[s] = DAND(active, DNE(DMUL(q[s], den), num));
		sent = DADD(sent, q[s]);
	}
	for (int d = 0; d < D; d++) { /* towards i+1_d: rounded up while P_i can afford it */
		const DV up = DAND(frac[d], DGE(l, DADD(sent, one)));
		q[d] = DADD(q[d], DAND(up, one));
		sent = DADD(sent, DAND(up, one));
	}
	for (int s = 0; s < 2 * D; s++)
		DSTOREI(w->R[s] + w->off + i, q[s]);
}

static void row_of(row *w, const lbt_view *v, int32_t *const *R, int64_t r)
{
	const int D = v->dims, last = D - 1;
	w->v = v;
	w->n = v->ext[last];
	w->tl = v->torus[last] && w->n > 2;
	w->p = lbt_fiber_base(v, last, r);
	w->off = w->p - v->load;
	for (int64_t d = last - 1, t = r; d >= 0; d--) {
		const int64_t c = t % v->ext[d];
		t /= v->ext[d];
		w->right[d] = link_right(c, v->ext[d], v->torus[d]);
		w->left[d] = link_left(c, v->ext[d], v->torus[d]);
	}
	for (int s = 0; s < 2 * D; s++)
		w->R[s] = R[s];
}

static void pass1_row(const lbt_view *v, int32_t *const *R, int64_t r, int32_t *B)
{
	row w;
	row_of(&w, v, R, r);
	const int64_t n = w.n;
	memcpy(B, w.p, (size_t)n * sizeof *B);
	B[-1] = w.tl ? w.p[n - 1] : 0;
	B[n] = w.tl ? w.p[0] : 0;
	w.B = B;
	const int D = v->dims; /* a constant in the common cases: the slots' loops unrolled, their vectors in registers */
	for (int64_t i = 0; i < n; i += DW)
		if (D == 1)
			pass1_group(&w, i, 1);
		else if (D == 2)
			pass1_group(&w, i, 2);
		else if (D == 3)
			pass1_group(&w, i, 3);
		else
			pass1_group(&w, i, D);
	const int last = D - 1; /* the last axis's flows over the wrap-around (0: none) */
	int32_t *rr = R[last] + w.off, *rl = R[D + last] + w.off;
	rr[-1] = w.tl ? rr[n - 1] : 0;
	rl[n] = w.tl ? rl[0] : 0;
}

typedef struct {
	V max[16];         /* per slot, the largest amount on one link */
	V moved, total;    /* W/2 int64 lanes */
	V hi, lo;          /* the new loads' extremes */
} acc;

/* Pass 2 on row r, counting what crosses the links. */
static void pass2_row(const lbt_view *v, int32_t *const *R, int64_t r, acc *A)
{
	row w;
	row_of(&w, v, R, r);
	const int D = v->dims, last = D - 1;
	const int64_t n = w.n;
	const int32_t *rr = R[last] + w.off, *rl = R[D + last] + w.off;
	for (int64_t i = 0; i < n; i += W) {
		const M valid = MFIRST(n - i < W ? n - i : W);
		const V l = VLOAD(w.p + i);
		V x = VADD(VSUB(l, VADD(VLOAD(rr + i), VLOAD(rl + i))), VADD(VLOADU(rr + i - 1), VLOADU(rl + i + 1)));
		for (int d = 0; d < last; d++) {
			const int64_t s = v->stride[d];
			x = VSUB(x, VADD(VLOAD(R[d] + w.off + i), VLOAD(R[D + d] + w.off + i)));
			if (w.left[d])
				x = VADD(x, VLOAD(R[d] + w.off + i - s));
			if (w.right[d])
				x = VADD(x, VLOAD(R[D + d] + w.off + i + s));
		}
		for (int s = 0; s < 2 * D; s++) {
			const V q = VSEL(valid, VLOAD(R[s] + w.off + i), VSET1(0));
			A->max[s] = VMAX(A->max[s], q);
			A->moved = FADD64(A->moved, q);
		}
		VSTORE(w.p + i, VSEL(valid, x, l));
		A->hi = VMAX(A->hi, VSEL(valid, x, VSET1(0)));
		A->lo = VMIN(A->lo, VSEL(valid, x, VSET1(INT32_MAX)));
		A->total = FADD64(A->total, VSEL(valid, x, VSET1(0))); /* loads stay non-negative */
	}
}

void LBT_SIMD_FN(lbt_simd_nna_def_step)(const lbt_view *v, lbt_counts *c)
{
	if (!v->scratch || v->cut) { /* a cut view: the reference's */
		lbt_ref_nna_def_step(v, c);
		return;
	}
	const int D = v->dims, last = D - 1;
	const int64_t n = v->ext[last];
	const lbt_scratch *S = v->scratch;
	int32_t *R[16];
	for (int d = 0; d < D; d++) {
		R[D + d] = (int32_t *)S->link[d] + S->origin;             /* to i-1_d: the first half */
		R[d] = (int32_t *)S->link[d] + S->cells + S->origin;      /* to i+1_d: the second */
	}
	const int T = v->threads < S->threads ? v->threads : S->threads;
	for (int d = 0; d < last; d++)
		lbt_halo_fill(v, d); /* outer neighbours at the torus edges */
	const int64_t rows = lbt_fiber_count(v, last);
#pragma omp parallel num_threads(T) if (rows * n > 16384)
	{
		int32_t *buf = lbt_scratch_row(S, lbt_thread_id());
		memset(buf, 0, (size_t)(n + 2 * 64) * sizeof *buf);
#pragma omp for schedule(static)
		for (int64_t r = 0; r < rows; r++)
			pass1_row(v, R, r, buf + 64);
	}
	for (int s = 0; s < 2 * D; s++) {
		const int d = s < D ? s : s - D;
		if (d == last)
			continue;
		lbt_view fv = *v;
		fv.load = R[s];
		lbt_halo_fill(&fv, d); /* flows arriving over the wrap-around of axis d */
	}
	int64_t moved = 0, total = 0, dir[16] = {0};
	int32_t hi = 0, lo = INT32_MAX;
#pragma omp parallel num_threads(T) if (rows * n > 16384)
	{
		acc A;
		memset(&A, 0, sizeof A);
		A.lo = VSET1(INT32_MAX);
#pragma omp for schedule(static)
		for (int64_t r = 0; r < rows; r++)
			pass2_row(v, R, r, &A);
#pragma omp critical(lbt_simd_nnadef)
		{
			moved += fsum64(A.moved);
			total += fsum64(A.total);
			hi = vmax32(A.hi) > hi ? vmax32(A.hi) : hi;
			lo = vmin32(A.lo) < lo ? vmin32(A.lo) : lo;
			for (int s = 0; s < 2 * D; s++) {
				const int32_t m = vmax32(A.max[s]);
				dir[s] = m > dir[s] ? m : dir[s];
			}
		}
	}
	int64_t shifts = 0, link_max = 0;
	for (int s = 0; s < 2 * D; s++) {
		shifts += dir[s];
		link_max = dir[s] > link_max ? dir[s] : link_max;
	}
	c->moved += moved;
	c->shifts += shifts;
	c->has_stats = 1; /* the step's statistics, measured on the way: no pass of the engine's */
	c->max = hi;
	c->min = lo;
	c->total = total;
	c->link_max = (double)link_max > c->link_max ? (double)link_max : c->link_max;
}

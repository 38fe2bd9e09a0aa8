/* speed.c — relative-speed diffusion with cost/benefit and the annealing
 * shake (E. Jeannot, F. Vernier, A Practical Approach of Diffusion Load
 * Balancing Algorithms, Euro-Par 2006; kernels/ref/speed.c: `fos-speed`,
 * `fos-speed-int`) as a vector kernel, W/2 doubles per vector. Compiled once
 * per ISA target (see simd.h); checked bit for bit against the reference by
 * tests/checkasm/speed.c.
 *
 * Bit for bit: every link's predicted flow, its truncation, cost, benefit
 * and blocked test are the reference's IEEE operations in its order, W/2
 * links at a time (fmax of the reference becomes MAXPD, a > b ? a : b: its
 * operands are never NaN, and only the sign of a zero could differ, which
 * no comparison sees). What depends on an order keeps the reference's:
 *   - a PE's balancing time is the sum of its links' times in the order the
 *     reference visits the links (by the lower PE's row-major index, then
 *     the axis): per row that order is fixed for every PE but the first
 *     (whose wrap-around link on the last axis is visited last), so it is
 *     worked out once per row and the first PE and the row's ends run the
 *     same sum one PE at a time;
 *   - the new real loads are (w - out) + in, out and in summed axis by axis
 *     from +0, a missing link adding +0 (as kernels/simd/fos.c);
 *   - the real amount moved is summed in the reference's order: each
 *     row's sum (axis by axis, from 0) into the scratch's row sums, the
 *     rows' sums in row order after the parallel passes; the rows' sums
 *     (and the new loads' totals and extremes) run RB rows side by side,
 *     a row a vector lane (rows_real); the largest flows per axis and
 *     direction (maxima: any order) per thread;
 *   - the shake draws and spends in row-major link order, one link at a time
 *     (a scalar pass over the blocked links, only when the shake is on).
 * What the reference sends in a step (`out`, the shake's budget) is an
 * exact sum for integer flows, so it is gathered per PE after the flows;
 * real loads with the shake on go to the reference, whose budget depends on
 * the order of a real sum.
 *
 * Passes over rows in a team (kernels/team.h; one thread up to 16384 PEs),
 * a barrier between each: the flows, read from the grid's loads (integer
 * loads converted in lanes), and, with the shake on, each link's blocked
 * count (U: +1 if blocked, else 0, the reference's pass 2 without the
 * shake) into the scratch grids, in the loads' layout; the shake, on one
 * thread; then per row the balancing times (if asked for), the counters
 * and the new loads, with integer loads their extremes and exact total
 * (has_stats). Without the shake (ring_step) the flows go to a ring of
 * row buffers per thread instead of the grids, and a row is counted and
 * updated as soon as the flows into it are formed, while they are in
 * cache: no grid of flows is written and read back (the grids' path,
 * team_step, stays for the shake and for grids too small to hold the
 * buffers); on one or two axes without cost/benefit, blocked counts or
 * times (Mr symmetric), a row's flows, counters and new loads are one
 * pass (fused_row), the row updated as its flows are formed, its last
 * vector too, and the counters kept in the thread's lanes until its
 * end. What nothing reads is not formed: without the shake no blocked
 * test (its divisions), without lb no balancing times, without
 * cost/benefit or the shake no speeds read, and Mr given as one number
 * (equal speeds on a torus) is not read per link. */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "../fiber.h"
#include "../net.h"
#include "../team.h"
#define CHAIN_G WD /* chains' rows side by side: see extra.h */
#include "extra.h"
#include "lbtorus/rng.h"

#define LBT_RNG_SHAKE 0x53484bULL /* kernels/ref/speed.c's purpose */

static int link_right(int64_t c, int64_t n, int torus) { return n >= 2 && (c < n - 1 || (torus && n > 2)); }
static int link_left(int64_t c, int64_t n, int torus) { return n >= 2 && (c > 0 || (torus && n > 2)); }

#if W == 16
#define RABS(a) simde_mm512_abs_pd(a)
#define RTRUNC(a) simde_mm512_roundscale_pd((a), SIMDE_MM_FROUND_TO_ZERO) /* imm 3: keep no fraction bit, truncate */
typedef simde__mmask8 MR;
#define RGT(a, b) simde_mm512_cmp_pd_mask((a), (b), SIMDE_CMP_GT_OQ)
#define RLT(a, b) simde_mm512_cmp_pd_mask((a), (b), SIMDE_CMP_LT_OQ)
#define RNE(a, b) simde_mm512_cmp_pd_mask((a), (b), SIMDE_CMP_NEQ_UQ)
#define RAND(a, b) ((MR)((a) & (b)))
#define ROR(a, b) ((MR)((a) | (b)))
#define RANDN(a, b) ((MR)(~(a) & (b))) /* !a && b */
#define RSEL(m, a, b) simde_mm512_mask_blend_pd((m), (b), (a))
#define RBITS(m) ((unsigned)(m))
#elif W == 8
#define RABS(a) simde_mm256_andnot_pd(simde_mm256_set1_pd(-0.0), (a))
#define RTRUNC(a) simde_mm256_round_pd((a), SIMDE_MM_FROUND_TO_ZERO | SIMDE_MM_FROUND_NO_EXC)
typedef simde__m256d MR;
#define RGT(a, b) simde_mm256_cmp_pd((a), (b), SIMDE_CMP_GT_OQ)
#define RLT(a, b) simde_mm256_cmp_pd((a), (b), SIMDE_CMP_LT_OQ)
#define RNE(a, b) simde_mm256_cmp_pd((a), (b), SIMDE_CMP_NEQ_UQ)
#define RAND(a, b) simde_mm256_and_pd((a), (b))
#define ROR(a, b) simde_mm256_or_pd((a), (b))
#define RANDN(a, b) simde_mm256_andnot_pd((a), (b))
#define RSEL(m, a, b) simde_mm256_blendv_pd((b), (a), (m))
#define RBITS(m) ((unsigned)simde_mm256_movemask_pd(m))
#else
#define RABS(a) simde_mm_andnot_pd(simde_mm_set1_pd(-0.0), (a))
#define RTRUNC(a) simde_mm_round_pd((a), SIMDE_MM_FROUND_TO_ZERO | SIMDE_MM_FROUND_NO_EXC)
typedef simde__m128d MR;
#define RGT(a, b) simde_mm_cmpgt_pd((a), (b))
#define RLT(a, b) simde_mm_cmplt_pd((a), (b))
#define RNE(a, b) simde_mm_cmpneq_pd((a), (b))
#define RAND(a, b) simde_mm_and_pd((a), (b))
#define ROR(a, b) simde_mm_or_pd((a), (b))
#define RANDN(a, b) simde_mm_andnot_pd((a), (b))
#define RSEL(m, a, b) simde_mm_blendv_pd((b), (a), (m))
#define RBITS(m) ((unsigned)simde_mm_movemask_pd(m))
#endif
/* RMAX(a, b): a > b ? a : b, RMIN(a, b): a < b ? a : b (x86's MAXPD and MINPD: the second operand when equal
   or unordered); RI: W/2 int64 lanes, RCOUNT(c, m): c + 1 in m's lanes */
#if W == 16
#define RMAX(a, b) simde_mm512_max_pd((a), (b))
#define RMIN(a, b) simde_mm512_min_pd((a), (b))
typedef simde__m512i RI;
#define RCOUNT(c, m) simde_mm512_mask_add_epi64((c), (m), (c), simde_mm512_set1_epi64(1))
#define RIZERO() simde_mm512_setzero_si512()
#define RISTOREU(p, x) simde_mm512_storeu_si512((void *)(p), (x))
#elif W == 8
#define RMAX(a, b) simde_mm256_max_pd((a), (b))
#define RMIN(a, b) simde_mm256_min_pd((a), (b))
typedef simde__m256i RI;
#define RCOUNT(c, m) simde_mm256_sub_epi64((c), simde_mm256_castpd_si256(m)) /* m's lanes: -1 or 0 */
#define RIZERO() simde_mm256_setzero_si256()
#define RISTOREU(p, x) simde_mm256_storeu_si256((void *)(p), (x))
#else
#define RMAX(a, b) simde_mm_max_pd((a), (b))
#define RMIN(a, b) simde_mm_min_pd((a), (b))
typedef simde__m128i RI;
#define RCOUNT(c, m) simde_mm_sub_epi64((c), simde_mm_castpd_si128(m))
#define RIZERO() simde_mm_setzero_si128()
#define RISTOREU(p, x) simde_mm_storeu_si128((void *)(p), (x))
#endif
/* RSHL1: the lanes (prev's last, cur's but its last), a row's flows at x - 1; RSHR1: the lanes (cur's but
   its first, next's first), a row's loads at x + 1; RLAST: the last lane */
#if W == 16
#define RSHL1(prev, cur) simde_mm512_castsi512_pd(SHL2(simde_mm512_castpd_si512(prev), simde_mm512_castpd_si512(cur)))
#define RSHR1(cur, next) simde_mm512_castsi512_pd(simde_mm512_permutex2var_epi32( \
	simde_mm512_castpd_si512(cur), VLOADU(lbt_simd_iota + 2), simde_mm512_castpd_si512(next)))
#define RLAST ((MR)(1u << (WD - 1)))
#elif W == 8
#define RSHL1(prev, cur) simde_mm256_castsi256_pd(SHL2(simde_mm256_castpd_si256(prev), simde_mm256_castpd_si256(cur)))
#define RSHR1(cur, next) simde_mm256_castsi256_pd(simde_mm256_alignr_epi8(simde_mm256_permute2x128_si256( \
	simde_mm256_castpd_si256(cur), simde_mm256_castpd_si256(next), 0x21), simde_mm256_castpd_si256(cur), 8))
#define RLAST simde_mm256_castsi256_pd(simde_mm256_set_epi64x(-1, 0, 0, 0))
#else
#define RSHL1(prev, cur) simde_mm_castsi128_pd(SHL2(simde_mm_castpd_si128(prev), simde_mm_castpd_si128(cur)))
#define RSHR1(cur, next) simde_mm_shuffle_pd((cur), (next), 1)
#define RLAST simde_mm_castsi128_pd(simde_mm_set_epi64x(-1, 0))
#endif

/* WD int32 loads from p as doubles (extra.h's RCVT; RCVTT takes doubles that hold integers back, exact) */
#define RLOADI(p) RCVT(HLOADU(p))
#if W == 16
#define HLOADU(p) simde_mm256_loadu_si256((const void *)(p))
#define HSTOREU(p, x) simde_mm256_storeu_si256((void *)(p), (x))
#define HMAX(a, b) simde_mm256_max_epi32((a), (b))
#define HMIN(a, b) simde_mm256_min_epi32((a), (b))
#define HSET1(x) simde_mm256_set1_epi32(x)
#elif W == 8
#define HLOADU(p) simde_mm_loadu_si128((const void *)(p))
#define HSTOREU(p, x) simde_mm_storeu_si128((void *)(p), (x))
#define HMAX(a, b) simde_mm_max_epi32((a), (b))
#define HMIN(a, b) simde_mm_min_epi32((a), (b))
#define HSET1(x) simde_mm_set1_epi32(x)
#else /* two int32 lanes in the low half */
#define HLOADU(p) simde_mm_loadl_epi64((const void *)(p))
#define HSTOREU(p, x) simde_mm_storel_epi64((void *)(p), (x))
#define HMAX(a, b) simde_mm_max_epi32((a), (b))
#define HMIN(a, b) simde_mm_min_epi32((a), (b))
#define HSET1(x) simde_mm_set1_epi32(x)
#endif

typedef struct {
	const lbt_view *v;
	const lbt_speed_args *a;
	int64_t P, n, rows, ds[8]; /* PEs, the last extent, rows, dense strides */
	double *F[8];              /* the flows at the loads' offsets */
	double info;               /* an information message's time */
	int64_t rmax[8], lmax[8];  /* integer flows: the largest each way per axis */
	double rrmax[8], rlmax[8]; /* real flows: the same */
	int64_t shaken, links, moved; /* links that carried load; integer loads: the amount moved */
	int shake;                 /* the shake is on (integer loads) */
	int fused;                 /* ring_step forms, counts and updates a row in one pass (fused_row) */
	int64_t lag;               /* rows from a row to its neighbour on axis 0 (1-D: 0, one row) */
	int64_t R, rc;             /* row buffers (ring_step; R = 0: the scratch grids): rows a thread keeps,
	                              doubles a row */
	int32_t max, min;          /* integer loads: the new loads' extremes */
	int64_t total;             /*   and their total */
	double rmx, rmn;           /* real loads: the new loads' extremes */
} job;

/* The loads at grid offset off, as doubles: one, or WD from there. */
static double load_at(const job *J, int64_t off)
{
	return J->a->real ? J->v->real[off] : (double)J->v->load[off];
}
static VR loads_at(const job *J, int64_t off)
{
	return J->a->real ? RLOADU(J->v->real + off) : RLOADI(J->v->load + off);
}

/* The same from a row of loads at p (the grid's or a copy's). */
static double load_p(const job *J, const void *p, int64_t x)
{
	return J->a->real ? ((const double *)p)[x] : (double)((const int32_t *)p)[x];
}
static VR loads_p(const job *J, const void *p, int64_t x)
{
	return J->a->real ? RLOADU((const double *)p + x) : RLOADI((const int32_t *)p + x);
}

/* Row r's coordinates on the outer axes. */
static void row_coords(const lbt_view *v, int64_t r, int64_t *c)
{
	for (int d = v->dims - 2; d >= 0; d--) {
		c[d] = r % v->ext[d];
		r /= v->ext[d];
	}
}


/* The flow predicted on link l from loads wi (its lower PE) and wj, as
 * the reference forms it (Mr per link or one number), truncated for
 * integer loads, + 0: a flow of -0 is the reference's +0 (it keeps no
 * flow of 0), so a flow is never -0. The vector passes form the same in
 * lanes (plain_links, fused_vec). */
static double flow_of(const lbt_speed_args *a, int64_t l, double wi, double wj)
{
	const double x = a->mr_fwd ? a->mr_fwd[l] * wi - a->mr_bwd[l] * wj : a->mr * wi - a->mr * wj;
	return (a->real ? x : trunc(x)) + 0;
}

/* One link, the reference's pass 1 for PEs i and j = i+1_d (dense) with
 * loads wi, wj: returns the flow kept, sets *blocked. */
static double link1(const job *J, int64_t l, int64_t i, int64_t j, double wi, double wj, int *blocked)
{
	const lbt_speed_args *a = J->a;
	const double *cn = a->cn;
	const double x = flow_of(a, l, wi, wj);
	const int fwd = x > 0;
	const double ws = fwd ? wi : wj, wr = fwd ? wj : wi, cs = fwd ? cn[i] : cn[j], cr = fwd ? cn[j] : cn[i];
	*blocked = 0;
	if (x != 0 && (!a->cb || lbt_net_cost(&a->net, x) <
	                         a->k[fwd ? i : j] * lbt_net_benefit(&a->net, ws, cs, wr, cr, fabs(x))))
		return x;
	const int up = wi / cn[i] > wj / cn[j];
	*blocked = a->real ? wi / cn[i] != wj / cn[j]
	                   : lbt_net_benefit(&a->net, up ? wi : wj, up ? cn[i] : cn[j], up ? wj : wi, up ? cn[j] : cn[i], 1) > 0;
	return 0;
}

/* The predicted flows alone (no cost/benefit, no blocked counts, Mr one
 * number or one array m) of the links x < end whole vectors cover, from
 * the loads at pi (the lower PEs) and pj: F = m wi - m wj, truncated for
 * integer loads, + 0 (a flow of -0 is kept as the reference's +0: it
 * keeps no flow of 0). Returns the first link left. Inlined with constant
 * real and uni, so the loop holds nothing but the arithmetic. */
static ALWAYS_INLINE int64_t plain_links(const void *pi, const void *pj, const double *m, VR mr, double *F,
                                         int64_t end, int real, int uni)
{
	const VR zero = RSET1(0);
	int64_t x = 0;
	for (; x + WD <= end; x += WD) {
		const VR wi = real ? RLOADU((const double *)pi + x) : RLOADI((const int32_t *)pi + x);
		const VR wj = real ? RLOADU((const double *)pj + x) : RLOADI((const int32_t *)pj + x);
		const VR mx = uni ? mr : RLOADU(m + x);
		const VR f = RSUB(RMUL(mx, wi), RMUL(mx, wj));
		RSTORE(F + x, RADD(real ? f : RTRUNC(f), zero));
	}
	return x;
}

/* Pass 1 over row r: the flow of every link (i, i+1_d) of its PEs into
 * dst[d], and its blocked count if the shake keeps them, from the grid's
 * loads (its neighbour row on axis 0 from nb0 if not NULL). */
static void pass1_row(const job *J, int64_t r, double *const *dst, const void *nb0)
{
	const lbt_view *v = J->v;
	const lbt_speed_args *a = J->a;
	const int D = v->dims, last = D - 1;
	const int64_t n = J->n, P = J->P, off = lbt_fiber_base(v, last, r) - v->load, i0 = r * n;
	const int tl = v->torus[last] && n > 2;
	int64_t c[8];
	row_coords(v, r, c);
	const lbt_net net = a->net;
	const VR lat = RSET1(net.lat), pack = RSET1(net.pack_s), ub = RSET1(net.unit_bytes), bw = RSET1(net.bw),
	         us = RSET1(net.unit_s), zero = RSET1(0), one = RSET1(1);
	const int uni = !a->mr_fwd, sym = a->mr_bwd == a->mr_fwd; /* Mr one number; symmetric, one array: read once */
	const VR mr = RSET1(a->mr);
	for (int d = 0; d < D; d++) {
		double *F = dst[d];
		int32_t *U = a->U ? a->U + (int64_t)d * P + i0 : NULL;
		const int64_t l0 = (int64_t)d * P + i0;
		int64_t step = 1, gstep = 1, end = n - 1; /* the neighbour's dense and grid offsets; links x < end in
		                                            vectors, the rest below */
		if (d != last) {
			if (!link_right(c[d], v->ext[d], v->torus[d])) {
				memset(F, 0, (size_t)n * sizeof *F);
				if (U)
					memset(U, 0, (size_t)n * sizeof *U);
				continue;
			}
			const int64_t by = c[d] < v->ext[d] - 1 ? 1 : -(v->ext[d] - 1);
			step = by * J->ds[d];
			gstep = by * v->stride[d];
			end = n;
		}
		const void *nb = d == 0 && nb0 && d != last ? nb0 : a->real ? (const void *)(v->real + off + gstep)
		                                                            : (const void *)(v->load + off + gstep);
		const double *ci_ = a->cn + i0, *cj_ = a->cn + i0 + step, *ki_ = a->k + i0, *kj_ = a->k + i0 + step,
		             *mf = uni ? NULL : a->mr_fwd + l0, *mb = uni ? NULL : a->mr_bwd + l0;
		int64_t x = 0;
		if (!a->cb && !U && sym) {
			const void *pi = a->real ? (const void *)(v->real + off) : (const void *)(v->load + off);
			x = a->real ? uni ? plain_links(pi, nb, mf, mr, F, end, 1, 1) : plain_links(pi, nb, mf, mr, F, end, 1, 0)
			    : uni   ? plain_links(pi, nb, mf, mr, F, end, 0, 1)
			            : plain_links(pi, nb, mf, mr, F, end, 0, 0);
		}
		for (; x + WD <= end; x += WD) {
			const VR wi = loads_at(J, off + x), wj = loads_p(J, nb, x);
			const VR m = uni ? mr : RLOADU(mf + x);
			VR f = RSUB(RMUL(m, wi), RMUL(sym ? m : RLOADU(mb + x), wj));
			if (!a->real)
				f = RTRUNC(f);
			MR keep = RNE(f, zero);
			if (a->cb) {
				const VR cni = RLOADU(ci_ + x), cnj = RLOADU(cj_ + x);
				const MR fwd = RGT(f, zero);
				const VR ax = RABS(f), ws = RSEL(fwd, wi, wj), wr = RSEL(fwd, wj, wi), cs = RSEL(fwd, cni, cnj),
				         cr = RSEL(fwd, cnj, cni), k = RSEL(fwd, RLOADU(ki_ + x), RLOADU(kj_ + x));
				const VR cst = RADD(RADD(RMUL(ax, pack), lat), RDIV(RMUL(ax, ub), bw));
				const VR before = RMAX(RDIV(ws, cs), RDIV(wr, cr)),
				         after = RMAX(RDIV(RSUB(ws, ax), cs), RDIV(RADD(wr, ax), cr));
				keep = RAND(keep, RLT(cst, RMUL(k, RMUL(RSUB(before, after), us))));
			}
			RSTORE(F + x, RSEL(keep, f, zero));
			if (!U)
				continue;
			MR blocked = RNE(zero, zero); /* none, if every lane kept its flow */
			if (RBITS(keep) != (1u << WD) - 1) {
				const VR cni = RLOADU(ci_ + x), cnj = RLOADU(cj_ + x), ri = RDIV(wi, cni), rj = RDIV(wj, cnj);
				if (a->real)
					blocked = RANDN(keep, RNE(ri, rj));
				else {
					const MR up = RGT(ri, rj);
					const VR wh = RSEL(up, wi, wj), wl = RSEL(up, wj, wi), ch = RSEL(up, cni, cnj),
					         cl = RSEL(up, cnj, cni);
					const VR before = RMAX(RSEL(up, ri, rj), RSEL(up, rj, ri)), /* wh / ch, wl / cl */
					         after = RMAX(RDIV(RSUB(wh, one), ch), RDIV(RADD(wl, one), cl));
					blocked = RANDN(keep, RGT(RMUL(RSUB(before, after), us), zero));
				}
			}
			const unsigned bits = RBITS(blocked);
			for (int q = 0; q < WD; q++)
				U[x + q] = (U[x + q] + 1) & -(int32_t)(bits >> q & 1);
		}
		for (; x < n; x++) {
			int blocked = 0;
			double f = 0;
			if (d != last || x < n - 1 || tl) {
				const int wrap = d == last && x == n - 1;
				f = link1(J, l0 + x, i0 + x, wrap ? i0 : i0 + x + step, load_at(J, off + x),
				          wrap ? load_at(J, off) : load_p(J, nb, x), &blocked);
			}
			F[x] = f;
			if (U)
				U[x] = blocked ? U[x] + 1 : 0;
		}
	}
}

/* Dense index i's neighbour at +1 on axis d (there is a link). */
static int64_t right_of(const job *J, int d, int64_t i)
{
	const int64_t cd = (i / J->ds[d]) % J->v->ext[d];
	return cd < J->v->ext[d] - 1 ? i + J->ds[d] : i - (J->v->ext[d] - 1) * J->ds[d];
}

/* The reference's shake on the blocked links (U > 0), in row-major link
 * order, on one thread (integer loads): the budget out[s] starts as what
 * PE s sends in the kept flows, an exact sum gathered first. */
static void shake(job *J, double *out)
{
	const lbt_view *v = J->v;
	const lbt_speed_args *a = J->a;
	const int D = v->dims, last = D - 1;
	const int64_t n = J->n, P = J->P;
	memset(out, 0, (size_t)P * sizeof *out);
	for (int64_t r = 0; r < J->rows; r++) {
		const int64_t off = lbt_fiber_base(v, last, r) - v->load;
		for (int d = 0; d < D; d++)
			for (int64_t x = 0; x < n; x++) {
				const double f = J->F[d][off + x];
				if (f != 0)
					out[f > 0 ? r * n + x : right_of(J, d, r * n + x)] += fabs(f);
			}
	}
	for (int64_t r = 0; r < J->rows; r++) {
		const int64_t off = lbt_fiber_base(v, last, r) - v->load;
		for (int64_t x = 0; x < n; x++)
			for (int d = 0; d < D; d++) {
				const int64_t i = r * n + x, l = (int64_t)d * P + i;
				if (a->U[l] <= 0)
					continue;
				const uint64_t rn = lbt_rand(v->seed, (uint64_t)v->step, (uint64_t)(i * D + d), LBT_RNG_SHAKE);
				const double u = (double)(rn >> 11) * 0x1p-53;
				if (!(u < pow(a->shake_p, (double)a->U[l] / a->shake_tau)))
					continue;
				const int64_t j = right_of(J, d, i);
				const double wi = v->load[off + x], wj = v->load[lbt_fiber_base(v, last, j / n) - v->load + j % n];
				double f = flow_of(a, l, wi, wj);
				if (f == 0) /* one unit down the relative load */
					f = wi / a->cn[i] > wj / a->cn[j] ? 1 : -1;
				const int64_t s = f > 0 ? i : j;
				if (out[s] + fabs(f) > (s == i ? wi : wj))
					continue;
				out[s] += fabs(f);
				J->F[d][off + x] = f;
				a->U[l] = 0;
				J->shaken++;
			}
	}
}

/* The links at a PE in the reference's visiting order: kind 0 its own link
 * on axis d (to i+1_d), kind 1 the link from i-1_d; by the lower PE's dense
 * offset from i, then the axis. */
typedef struct {
	int kind, d;
	int64_t at;
} slot;
static int slot_cmp(const void *p, const void *q)
{
	const slot *a = p, *b = q;
	return a->at < b->at ? -1 : a->at > b->at ? 1 : a->d - b->d;
}

/* A row's flows: own[d] those of its PEs' links on axis d (to i+1_d),
 * from[d] (d < last) those of the links into them from i-1_d, NULL where
 * there is none; along the last axis a PE's in-flow is own[last][x - 1],
 * PE 0's over the wrap-around own[last][n - 1]. */
typedef struct {
	double *own[8];
	const double *from[8];
} rowf;

/* real loads: the rows whose sums run side by side (rows_real): two groups of G = 8 in 512-bit lanes, 8 rows
   in narrower ones (16 rows in 256-bit lanes were slower: more live vectors, a longer ring) */
enum { RB = W == 16 ? 16 : 8 };
/* A thread's run of rows counted and updated one after another, given to
 * rows_real RB at a time (real loads): as soon as it has RB, or when the
 * next row does not follow, or at the end (flush). */
typedef struct {
	int64_t r0;
	int k;
	rowf f[RB];
	double rmx, rmn;
} pending;

/* fused_row's counters in lanes, a thread's rows' (folded into its part at its end): the largest flow and
 * the least (from +0) on axis 0 and along the row, the links that carry load, and integer loads' amount
 * moved and new loads' total (exact integers in doubles: flushed every 2^20 PEs, acc since the last) and
 * the new loads' extremes. */
typedef struct {
	VR r0, n0, rl, nl, vs, vt;
	RI links;
	VH hmx, hmn;
	int64_t acc;
} lanes;

/* A thread's counters, combined into the job at its end. */
typedef struct {
	int64_t rmax[8], lmax[8], links, moved, total;
	double rrmax[8], rlmax[8];
	int32_t mx, mn;
	pending q;
	lanes ln;
} part;

/* Axis d's largest flows each way into the part's: the lanes of vr and
 * vl and the scalars sr and sl (the flows the vectors left). Maxima from
 * +0, in any order: a flow is never -0 and never NaN. */
static void fold_max(part *p, int real, int d, VR vr, VR vl, double sr, double sl)
{
	double q[2][WD];
	RSTOREU(q[0], vr);
	RSTOREU(q[1], vl);
	for (int k = 0; k < WD; k++) {
		sr = q[0][k] > sr ? q[0][k] : sr;
		sl = q[1][k] > sl ? q[1][k] : sl;
	}
	if (real) {
		p->rrmax[d] = sr > p->rrmax[d] ? sr : p->rrmax[d];
		p->rlmax[d] = sl > p->rlmax[d] ? sl : p->rlmax[d];
	} else {
		p->rmax[d] = (int64_t)sr > p->rmax[d] ? (int64_t)sr : p->rmax[d];
		p->lmax[d] = (int64_t)sl > p->lmax[d] ? (int64_t)sl : p->lmax[d];
	}
}

/* Integer loads: the new loads' extremes in the lanes of hmx and hmn into
 * the part's. */
static void fold_ext(part *p, VH hmx, VH hmn)
{
	int32_t e[2][WD];
	HSTOREU(e[0], hmx);
	HSTOREU(e[1], hmn);
	for (int k = 0; k < WD; k++) {
		p->mx = e[0][k] > p->mx ? e[0][k] : p->mx;
		p->mn = e[1][k] < p->mn ? e[1][k] : p->mn;
	}
}

/* Row r's flows in the scratch grids. */
static void grid_rowf(const job *J, int64_t r, rowf *f)
{
	const lbt_view *v = J->v;
	const int last = v->dims - 1;
	const int64_t off = lbt_fiber_base(v, last, r) - v->load;
	int64_t c[8];
	row_coords(v, r, c);
	for (int d = 0; d <= last; d++) {
		f->own[d] = J->F[d] + off;
		const int64_t e = v->ext[d];
		f->from[d] = d == last || !link_left(c[d], e, v->torus[d]) ? NULL
		           : c[d] > 0 ? J->F[d] + off - v->stride[d] : J->F[d] + off + (e - 1) * v->stride[d];
	}
}

/* Pass 3 over row r (flows f): balancing times (if asked for), and into
 * the part links, the largest flows, and integer flows' amount moved. */
static void pass3_row(const job *J, int64_t r, const rowf *f, part *pt)
{
	const lbt_view *v = J->v;
	const lbt_speed_args *a = J->a;
	const int D = v->dims, last = D - 1;
	const int64_t n = J->n, i0 = r * n;
	const int tl = v->torus[last] && n > 2;
	double *const *own = f->own;
	const double *from[8] = {0}; /* each axis's flows into the row's PEs (NULL: no link) */
	int ns = 0, ns0 = 0;
	slot S[16], S0[16]; /* the order for PEs 1..n-1 and for PE 0 */
	int64_t c[8];
	row_coords(v, r, c);
	for (int d = 0; a->lb && d < D; d++) {
		if (d == last) {
			from[d] = own[d] - 1;
			S[ns++] = (slot){1, d, -1};
			if (tl)
				S0[ns0++] = (slot){1, d, n - 1};
			S[ns++] = S0[ns0++] = (slot){0, d, 0};
			continue;
		}
		const int64_t e = v->ext[d];
		from[d] = f->from[d];
		if (from[d])
			S[ns++] = S0[ns0++] = (slot){1, d, c[d] > 0 ? -J->ds[d] : (e - 1) * J->ds[d]};
		if (link_right(c[d], e, v->torus[d]))
			S[ns++] = S0[ns0++] = (slot){0, d, 0};
	}
	if (a->lb) {
		qsort(S, (size_t)ns, sizeof *S, slot_cmp);
		qsort(S0, (size_t)ns0, sizeof *S0, slot_cmp);
	}
	const lbt_net *net = &a->net;
	const VR zero = RSET1(0), info = RSET1(J->info), lat = RSET1(net->lat), pack = RSET1(net->pack_s),
	         ub = RSET1(net->unit_bytes), bw = RSET1(net->bw);
	int64_t x = 1;
	for (; a->lb && x + WD <= n - 1; x += WD) { /* PEs 1 .. n-2: every link of the order is there */
		VR lb = zero;
		for (int s = 0; s < ns; s++) {
			const VR g = RLOADU((S[s].kind ? from[S[s].d] : own[S[s].d]) + x);
			const MR nz = RNE(g, zero);
			if (!RBITS(nz)) { /* no lane carries load: the information message alone */
				lb = RADD(lb, RADD(info, zero));
				continue;
			}
			const VR ax = RABS(g), cst = RADD(RADD(RMUL(ax, pack), lat), RDIV(RMUL(ax, ub), bw));
			lb = RADD(lb, RADD(info, RSEL(nz, cst, zero)));
		}
		RSTOREU(a->lb + i0 + x, lb);
	}
	for (int64_t p = 0; a->lb && p < n; p = p ? p + 1 : x) { /* PE 0, then the PEs the vectors left */
		const slot *o = p ? S : S0;
		double lb = 0;
		for (int s = 0; s < (p ? ns : ns0); s++) {
			const int d = o[s].d;
			if (d == last && !tl && ((o[s].kind == 0 && p == n - 1) || (o[s].kind == 1 && p == 0)))
				continue; /* a row without a wrap-around: its ends */
			const double g = o[s].kind == 0 ? own[d][p] : d == last && p == 0 ? own[d][n - 1] : from[d][p];
			lb += J->info + (g != 0 ? lbt_net_cost(net, g) : 0);
		}
		a->lb[i0 + p] = lb;
	}
	/* the counters per axis in lanes: links that carry load, the largest flow each way (integer
	   values, or real ones from +0, whose maxima do not depend on the order), integer loads' amount
	   moved (integers in doubles, exact below 2^53: converted every 2^20 lanes' worth) */
	for (int d = 0; d < D; d++) {
		const double *fd = own[d];
		VR vr = zero, vl = zero;
		int64_t p = 0;
		while (p + WD <= n) {
			VR vs = zero;
			const int64_t stop = n - p > ((int64_t)1 << 20) ? p + ((int64_t)1 << 20) : n;
			for (; p + WD <= stop; p += WD) {
				const VR x = RLOADU(fd + p);
				pt->links += __builtin_popcount(RBITS(RNE(x, zero)));
				vr = RMAX(x, vr);
				vl = RMAX(RSUB(zero, x), vl);
				vs = RADD(vs, RABS(x));
			}
			double sum[WD];
			RSTOREU(sum, vs);
			for (int k = 0; k < WD && !a->real; k++)
				pt->moved += (int64_t)sum[k];
		}
		double sr = 0, sl = 0;
		for (; p < n; p++) {
			pt->links += fd[p] != 0;
			if (!a->real)
				pt->moved += (int64_t)fabs(fd[p]);
			sr = fd[p] > sr ? fd[p] : sr;
			sl = -fd[p] > sl ? -fd[p] : sl;
		}
		fold_max(pt, a->real, d, vr, vl, sr, sl);
	}
}

/* The flows out of and into the WD PEs from x of a row (flows f), axis by
 * axis from +0. */
static ALWAYS_INLINE void flows_at(int D, const rowf *f, int64_t x, VR *out, VR *in)
{
	*out = *in = RSET1(0);
	for (int d = 0; d < D; d++) {
		*out = RADD(*out, RLOADU(f->own[d] + x));
		if (d == D - 1)
			*in = RADD(*in, RLOADU(f->own[d] + x - 1));
		else if (f->from[d])
			*in = RADD(*in, RLOADU(f->from[d] + x));
	}
}

/* The new loads of row r: (w - out) + in, axis by axis from +0 (integer
 * flows: exact sums of integers in doubles, so the new load is exact too),
 * and integer loads' statistics into the part: their extremes and their
 * total (real loads': rows_real). */
static void apply_row(const job *J, int64_t r, const rowf *f, part *pt)
{
	const lbt_view *v = J->v;
	const int D = v->dims, last = D - 1;
	const int64_t n = J->n, off = lbt_fiber_base(v, last, r) - v->load;
	const int tl = v->torus[last] && n > 2;
	const double *const *from = f->from, *fl = f->own[last];
	const double wrap = tl ? fl[n - 1] : 0; /* the flow arriving at PE 0 over the wrap-around */
	int64_t x = 1;
	if (J->a->real)
		for (; x + WD <= n; x += WD) {
			VR out, in;
			flows_at(D, f, x, &out, &in);
			RSTOREU(v->real + off + x, RADD(RSUB(RLOADU(v->real + off + x), out), in));
		}
	else {
		VH hmx = HSET1(INT32_MIN), hmn = HSET1(INT32_MAX);
		for (; x + WD <= n; x += WD) {
			VR out, in;
			flows_at(D, f, x, &out, &in);
			const VH l = RCVTT(RADD(RSUB(RLOADI(v->load + off + x), out), in));
			HSTOREU(v->load + off + x, l);
			hmx = HMAX(hmx, l);
			hmn = HMIN(hmn, l);
		}
		fold_ext(pt, hmx, hmn);
	}
	for (int64_t p = 0; p < n; p = p ? p + 1 : x) {
		double out = 0, in = 0;
		for (int d = 0; d < D; d++) {
			out += f->own[d][p];
			if (d == last)
				in += p ? fl[p - 1] : wrap;
			else if (from[d])
				in += from[d][p];
		}
		if (J->a->real)
			v->real[off + p] = v->real[off + p] - out + in;
		else {
			const int32_t l = (int32_t)((double)v->load[off + p] - out + in);
			v->load[off + p] = l;
			pt->mx = l > pt->mx ? l : pt->mx;
			pt->mn = l < pt->mn ? l : pt->mn;
		}
	}
	if (!J->a->real) {
		int64_t sum = 0; /* exact; GCC adds it in lanes */
		for (int64_t p = 0; p < n; p++)
			sum += v->load[off + p];
		pt->total += sum;
	}
}

/* Real loads: rows whose sums run side by side, RB at a time (as
 * kernels/simd/fos.c's chains). Each row's amount moved (|F_d| axis by
 * axis, left to right, from 0) and total (its new loads left to right
 * from 0) is a chain of dependent adds, and its extremes (`w > m ? w : m`,
 * lbt_field_stats's comparison, from -inf) a chain of compare-and-selects;
 * a row is a lane, filled G PEs at a time by a GxG transpose of G rows'
 * values, so each lane takes its row's values in order and every add and
 * selection is the scalar chain's (MAXPD(w, m) is w > m ? w : m, MINPD(w,
 * m) w < m ? w : m). G = 8 (512 bits) on AVX-512, 4 (256 bits) on AVX2,
 * 2 on SSE4.1 (extra.h). */

/* RB rows' chains, a row a lane: s[j] += |p[j][i]| for i = 0 .. n-1 in
 * that order, or with `loads` s[j] += p[j][i] and the extremes hi[j], lo[j]
 * of the same values. */
static void chains(const double *const *p, int64_t n, int loads, double *s, double *hi, double *lo)
{
	const VG sign = GSET1(-0.0);
	VG S[RB / G], H[RB / G], L[RB / G];
	for (int g = 0; g < RB / G; g++) {
		S[g] = GLOADU(s + g * G);
		H[g] = GLOADU(hi + g * G);
		L[g] = GLOADU(lo + g * G);
	}
	int64_t i = 0;
	for (; i + G <= n; i += G)
		for (int g = 0; g < RB / G; g++) { /* a group of G rows at a time: fewer vectors live at once */
			VG c[G];
			GTRANSPOSE(p + g * G, i, c);
			for (int k = 0; k < G; k++) {
				S[g] = GADD(S[g], loads ? c[k] : GANDN(sign, c[k]));
				if (loads) {
					H[g] = GMAX(c[k], H[g]);
					L[g] = GMIN(c[k], L[g]);
				}
			}
		}
	for (; i < n; i++)
		for (int g = 0; g < RB / G; g++) {
			double a[G];
			for (int j = 0; j < G; j++)
				a[j] = p[g * G + j][i];
			const VG c = GLOADU(a);
			S[g] = GADD(S[g], loads ? c : GANDN(sign, c));
			if (loads) {
				H[g] = GMAX(c, H[g]);
				L[g] = GMIN(c, L[g]);
			}
		}
	for (int g = 0; g < RB / G; g++) {
		GSTOREU(s + g * G, S[g]);
		GSTOREU(hi + g * G, H[g]);
		GSTOREU(lo + g * G, L[g]);
	}
}

/* Real loads, rows r0 .. r0+k-1 (k <= RB, counted and updated; flows f):
 * each row's amount moved and total into the scratch's row sums, and the
 * rows' extremes, row after row, into *rmx, *rmn. */
static void rows_real(const job *J, int64_t r0, int k, const rowf *f, double *rmx, double *rmn)
{
	const lbt_view *v = J->v;
	const int D = v->dims, last = D - 1;
	const int64_t n = J->n;
	double moved[RB] = {0}, tot[RB] = {0}, hi[RB], lo[RB];
	const double *p[RB];
	for (int j = 0; j < RB; j++) {
		hi[j] = -HUGE_VAL;
		lo[j] = HUGE_VAL;
	}
	for (int d = 0; d <= D; d++) { /* the flows axis by axis, then the loads */
		for (int j = 0; j < k; j++)
			p[j] = d < D ? f[j].own[d] : v->real + (lbt_fiber_base(v, last, r0 + j) - v->load);
		double *s = d < D ? moved : tot;
		if (k == RB)
			chains(p, n, d == D, s, hi, lo);
		else
			for (int j = 0; j < k; j++)
				for (int64_t i = 0; i < n; i++) {
					const double w = p[j][i];
					s[j] += d < D ? fabs(w) : w;
					if (d == D) {
						hi[j] = w > hi[j] ? w : hi[j];
						lo[j] = w < lo[j] ? w : lo[j];
					}
				}
	}
	for (int j = 0; j < k; j++) {
		v->scratch->rowsum[r0 + j] = moved[j];
		v->scratch->rowsum[J->rows + r0 + j] = tot[j];
		*rmx = hi[j] > *rmx ? hi[j] : *rmx; /* the first of the largest in row order, as one chain over the rows */
		*rmn = lo[j] < *rmn ? lo[j] : *rmn;
	}
}

static void flush(const job *J, pending *q)
{
	if (q->k)
		rows_real(J, q->r0, q->k, q->f, &q->rmx, &q->rmn);
	q->k = 0;
}
static void real_row(const job *J, pending *q, int64_t r, const rowf *f)
{
	if (!J->a->real)
		return;
	if (q->k && q->r0 + q->k != r)
		flush(J, q);
	if (!q->k)
		q->r0 = r;
	q->f[q->k++] = *f;
	if (q->k == RB)
		flush(J, q);
}

/* Rows [lo, hi) of thread t of n. */
static void share(const job *J, const lbt_team *t, int64_t *lo, int64_t *hi)
{
	*lo = J->rows * t->id / t->n;
	*hi = J->rows * (t->id + 1) / t->n;
}

static void part_open(part *p)
{
	memset(p, 0, offsetof(part, q));
	p->mx = INT32_MIN;
	p->mn = INT32_MAX;
	p->q.k = 0;
	p->q.rmx = -HUGE_VAL;
	p->q.rmn = HUGE_VAL;
	const VR zero = RSET1(0);
	p->ln = (lanes){.r0 = zero, .n0 = zero, .rl = zero, .nl = zero, .vs = zero, .vt = zero, .links = RIZERO(),
	                .hmx = HSET1(INT32_MIN), .hmn = HSET1(INT32_MAX), .acc = 0};
}

/* The lanes' amount moved and total into the part's (integer loads; real
 * loads' lanes hold 0), the lanes from 0 again. */
static void flush_sums(lanes *s, part *p)
{
	double q[2][WD];
	RSTOREU(q[0], s->vs);
	RSTOREU(q[1], s->vt);
	for (int k = 0; k < WD; k++) {
		p->moved += (int64_t)q[0][k];
		p->total += (int64_t)q[1][k];
	}
	s->vs = s->vt = RSET1(0);
	s->acc = 0;
}

/* Row r counted and updated (flows f). */
static void finish_row(const job *J, int64_t r, const rowf *f, part *p)
{
	pass3_row(J, r, f, p);
	apply_row(J, r, f, p);
	real_row(J, &p->q, r, f);
}

static void part_close(job *J, part *p)
{
	flush(J, &p->q);
	lanes *s = &p->ln; /* fused_row's lanes (a largest flow each way: 0 - the least) */
	int64_t c[WD];
	flush_sums(s, p);
	RISTOREU(c, s->links);
	for (int k = 0; k < WD; k++)
		p->links += c[k];
	fold_max(p, J->a->real, 0, s->r0, RSUB(RSET1(0), s->n0), 0, 0);
	fold_max(p, J->a->real, J->v->dims - 1, s->rl, RSUB(RSET1(0), s->nl), 0, 0);
	fold_ext(p, s->hmx, s->hmn);
#pragma omp critical(lbt_simd_speed)
	{
		J->links += p->links; /* integer sums: any order */
		J->moved += p->moved;
		J->total += p->total;
		J->max = p->mx > J->max ? p->mx : J->max;
		J->min = p->mn < J->min ? p->mn : J->min;
		J->rmx = fmax(J->rmx, p->q.rmx); /* lbt_field_stats's combination of its threads' extremes */
		J->rmn = fmin(J->rmn, p->q.rmn);
		for (int d = 0; d < J->v->dims; d++) {
			J->rmax[d] = p->rmax[d] > J->rmax[d] ? p->rmax[d] : J->rmax[d];
			J->lmax[d] = p->lmax[d] > J->lmax[d] ? p->lmax[d] : J->lmax[d];
			J->rrmax[d] = p->rrmax[d] > J->rrmax[d] ? p->rrmax[d] : J->rrmax[d]; /* maxima: any order */
			J->rlmax[d] = p->rlmax[d] > J->rlmax[d] ? p->rlmax[d] : J->rlmax[d];
		}
	}
}

/* WD loads from q + x (a row's), as doubles. */
static ALWAYS_INLINE VR ldv(const void *q, int64_t x, int real)
{
	return real ? RLOADU((const double *)q + x) : RLOADI((const int32_t *)q + x);
}

/* fused_row_k's PEs x .. x+WD-1, loads wi, their neighbours' along the row wj: their flows formed and
 * counted, their new loads written; prev: the flows along the row of the vector before. At the row's end
 * (end) the last lane's link is the wrap-around, whose flow wrap is formed first (0 without the link),
 * whatever wj's last lane holds. Integer flows are left as trunc gives them: a -0 is 0 in every count,
 * sum and conversion they reach. */
static ALWAYS_INLINE void fused_vec(lanes *s, VR *prev, int64_t x, VR wi, VR wj, int end, VR wrap, VR mr,
                                    const double *ml, const double *m0, const void *nb, const double *from0,
                                    double *f0, double *fl, double *wr, int32_t *wl, int real, int uni, int two,
                                    int has0)
{
	const VR zero = RSET1(0);
	const VR mx = uni ? mr : RLOADU(ml + x), g = RSUB(RMUL(mx, wi), RMUL(mx, wj));
	VR fx = real ? RADD(g, zero) : RTRUNC(g);
	if (end)
		fx = RSEL(RLAST, wrap, fx);
	VR out = fx, in = RSHL1(*prev, fx), moved = real ? zero : RABS(fx);
	*prev = fx;
	s->links = RCOUNT(s->links, RNE(fx, zero));
	s->rl = RMAX(fx, s->rl);
	s->nl = RMIN(fx, s->nl);
	if (two) {
		VR f = zero;
		if (has0) {
			const VR m = uni ? mr : RLOADU(m0 + x), h = RSUB(RMUL(m, wi), RMUL(m, ldv(nb, x, real)));
			f = real ? RADD(h, zero) : RTRUNC(h);
			s->links = RCOUNT(s->links, RNE(f, zero));
			s->r0 = RMAX(f, s->r0);
			s->n0 = RMIN(f, s->n0);
			if (!real)
				moved = RADD(moved, RABS(f));
		}
		RSTORE(f0 + x, f);
		out = RADD(f, fx);
		in = RADD(from0 ? RLOADU(from0 + x) : zero, in);
	}
	const VR w = RADD(RSUB(wi, out), in);
	if (real) {
		RSTORE(fl + x, fx);
		RSTOREU(wr + x, w);
	} else {
		const VH l = RCVTT(w);
		HSTOREU(wl + x, l);
		s->hmx = HMAX(s->hmx, l);
		s->hmn = HMIN(s->hmn, l);
		s->vs = RADD(s->vs, moved);
		s->vt = RADD(s->vt, w);
	}
}

/* One or two axes without cost/benefit, blocked counts or balancing times, Mr symmetric (ring_step, J->fused):
 * row r in one pass, WD PEs a vector (fused_vec): its links' flows (axis 0's into f0, the next row's
 * in-flows; real loads' along the row into fl, for rows_real), counted (links, the largest each way, integer
 * flows' amount moved) in the part's lanes, and its new loads (w - out) + in, integer loads' extremes and
 * total. On two axes no later row's flows read row r's loads (axis 0's read the row below: from the grid
 * before it changes, or the copy nb0), and the flows into it from the row above are formed (from0; NULL:
 * none). Along the row a PE's in-flow is the flow at x - 1, the previous vector's last lane; PE 0's, over the
 * wrap-around, is formed first, from the old loads, and is also the last vector's last flow. The operations
 * of pass1_row (plain_links), pass3_row and apply_row: a real flow is never -0, so flows_at's 0 + F is F and
 * its sums are out = F0 + Fl, in = from0 + Fl(x - 1) (without from0: Fl(x - 1)). The PEs a row's vectors
 * leave (n not a multiple of WD), one at a time. */
static ALWAYS_INLINE void fused_row_k(const job *J, int64_t r, double *f0, double *fl, const double *from0,
                                      const void *nb0, part *p, int real, int uni)
{
	const lbt_view *v = J->v;
	const lbt_speed_args *a = J->a;
	const int D = v->dims, last = D - 1, two = D == 2;
	const int64_t n = J->n, off = lbt_fiber_base(v, last, r) - v->load;
	const int64_t lr = (int64_t)last * J->P + r * n; /* link lr + x: PE x's along the row; r n + x: on axis 0 */
	const int tl = v->torus[last] && n > 2;
	double *wr = real ? v->real + off : NULL;
	int32_t *wl = real ? NULL : v->load + off;
	const void *w = real ? (const void *)wr : (const void *)wl;
	const void *nb = NULL; /* axis 0: the loads of the row below (2-D: row r is at r on axis 0) */
	const int has0 = two && link_right(r, v->ext[0], v->torus[0]);
	if (has0) {
		const int64_t g = off + (r < v->ext[0] - 1 ? 1 : -(v->ext[0] - 1)) * v->stride[0];
		nb = nb0 ? nb0 : real ? (const void *)(v->real + g) : (const void *)(v->load + g);
	}
	const double *m0 = uni ? NULL : a->mr_fwd + r * n, *ml = uni ? NULL : a->mr_fwd + lr;
	/* a prefetch's address, made as an integer (it may lie past the grid: a prefetch never faults) */
	const uintptr_t cell = real ? sizeof(double) : sizeof(int32_t);
	const uintptr_t pf = (uintptr_t)nb + (uintptr_t)v->stride[0] * cell;
#define LD(q, x) (real ? ((const double *)(q))[x] : (double)((const int32_t *)(q))[x])
	const double wrap = tl ? flow_of(a, lr + n - 1, LD(w, n - 1), LD(w, 0)) : 0; /* PE n-1 -> PE 0 */
	const VR mr = RSET1(a->mr), vwrap = RSET1(wrap);
	VR prev = vwrap;
	lanes s; /* the part's lanes, field by field (a copy of the whole struct goes through memory) */
#define LANES(to, from) (to).r0 = (from).r0, (to).n0 = (from).n0, (to).rl = (from).rl, (to).nl = (from).nl, \
	                    (to).vs = (from).vs, (to).vt = (from).vt, (to).links = (from).links, (to).hmx = (from).hmx, \
	                    (to).hmn = (from).hmn, (to).acc = (from).acc
	LANES(s, p->ln);
	int64_t x = 0;
	while (x + WD <= n) { /* the PEs x .. x+WD-1, as many as the sums in lanes may still take */
		const int64_t room = ((int64_t)1 << 20) - s.acc, x0 = x, stop = n - 1 - x > room ? x + room : n - 1;
		for (; x + WD <= stop; x += WD) { /* their links along the row, x .. x+WD-1 < n-1 */
			if (has0) /* the loads a row below nb, which the next row reads first: from memory at 1024² */
				__builtin_prefetch((const void *)(pf + (uintptr_t)x * cell));
			fused_vec(&s, &prev, x, ldv(w, x, real), ldv(w, x + 1, real), 0, vwrap, mr, ml, m0, nb, from0, f0,
			          fl, wr, wl, real, uni, two, has0);
		}
		if (x + WD == n && n - x0 <= room) { /* the row's last vector: its last lane's link is the wrap-around */
			const VR wi = ldv(w, x, real);
			fused_vec(&s, &prev, x, wi, RSHR1(wi, wi), 1, vwrap, mr, ml, m0, nb, from0, f0, fl, wr, wl, real, uni,
			          two, has0);
			x += WD;
		}
		s.acc += x - x0;
		if (x == x0)
			flush_sums(&s, p);
	}
	if (x < n) { /* the PEs the vectors left, one at a time */
		double q[WD];
		RSTOREU(q, prev);
		double inl = q[WD - 1]; /* the flow into PE x along the row */
		for (; x < n; x++) {
			const double wi = LD(w, x), fx = x < n - 1 ? flow_of(a, lr + x, wi, LD(w, x + 1)) : wrap;
			const double f = has0 ? flow_of(a, r * n + x, wi, LD(nb, x)) : 0;
			if (two)
				f0[x] = f;
			p->links += (fx != 0) + (f != 0);
			s.rl = RMAX(RSET1(fx), s.rl);
			s.nl = RMIN(RSET1(fx), s.nl);
			s.r0 = RMAX(RSET1(f), s.r0);
			s.n0 = RMIN(RSET1(f), s.n0);
			const double wn = (wi - (two ? f + fx : fx)) + (two ? (from0 ? from0[x] : 0) + inl : inl);
			inl = fx;
			if (real) {
				fl[x] = fx;
				wr[x] = wn;
				continue;
			}
			const int32_t l = (int32_t)wn;
			wl[x] = l;
			p->moved += (int64_t)fabs(f) + (int64_t)fabs(fx);
			p->total += l;
			p->mx = l > p->mx ? l : p->mx;
			p->mn = l < p->mn ? l : p->mn;
		}
	}
#undef LD
	LANES(p->ln, s);
#undef LANES
}

/* Row r by fused_row_k, inlined per load kind and Mr (one number or one array); real loads' rows then to
 * rows_real. */
static void fused_row(const job *J, int64_t r, double *f0, double *fl, const double *from0, const void *nb0, part *p)
{
	const int uni = !J->a->mr_fwd;
	if (J->a->real) {
		if (uni)
			fused_row_k(J, r, f0, fl, from0, nb0, p, 1, 1);
		else
			fused_row_k(J, r, f0, fl, from0, nb0, p, 1, 0);
		const rowf f = {.own = {J->v->dims == 2 ? f0 : fl, fl}};
		real_row(J, &p->q, r, &f);
	} else if (uni)
		fused_row_k(J, r, f0, fl, from0, nb0, p, 0, 1);
	else
		fused_row_k(J, r, f0, fl, from0, nb0, p, 0, 0);
}

/* The flows in the scratch grids (with the shake, or where the row
 * buffers do not fit). */
static void team_step(void *ctx, const lbt_team *t)
{
	job *J = ctx;
	int64_t lo, hi;
	part p;
	part_open(&p);
	share(J, t, &lo, &hi);
	/* Without the shake a row is counted and updated `lag` rows behind its flows, while they are in
	   cache: by then no flows' pass reads its loads again (axis 0 reads `lag` rows ahead, an inner
	   axis's wrap-around at most lag - 1 rows back) and the flows into it are formed (from lag rows
	   back, an inner wrap-around's from less than lag rows ahead). The rows whose readers or flows
	   another thread may have, a block's first and last lag rows, wait for the barrier (the first
	   block's first rows are those axis 0's wrap-around reads). With the shake every flow is formed
	   first. */
	const int64_t lag = J->shake ? hi - lo : J->lag;
#define WAITS(r) ((r) < lo + lag || (r) >= hi - lag)
	for (int64_t r = lo; r < hi; r++) {
		rowf f;
		grid_rowf(J, r, &f);
		pass1_row(J, r, f.own, NULL);
		if (r - lag >= lo && !WAITS(r - lag)) {
			grid_rowf(J, r - lag, &f);
			finish_row(J, r - lag, &f, &p);
		}
	}
	lbt_team_barrier(t); /* every row's flows are formed, every load read */
	if (J->shake) {
		if (t->id == 0)
			shake(J, J->a->lb); /* the budgets: lb is given with the shake, its times come after */
		lbt_team_barrier(t);
	}
	for (int64_t r = lo; r < hi; r++) /* the flows are final: a row's loads change once it is counted */
		if (WAITS(r)) {
			rowf f;
			grid_rowf(J, r, &f);
			finish_row(J, r, &f, &p);
		}
#undef WAITS
	part_close(J, &p);
}

/* Without the shake, the flows in row buffers: a thread takes whole slabs
 * of axis 0 (lag rows each; 1-D: its one row), [lo, hi), and keeps the
 * flows of its last R rows in a ring of row buffers (R >= 2 lag + 1: a row
 * is counted and updated lag rows behind its flows, and reads the flows
 * of the rows up to lag before and after it; real loads, R >= lag + RB:
 * rows_real's RB rows). Before a barrier, while no load has changed, it
 * forms the flows of the slab before its block (lo - lag .. lo - 1, over
 * the torus's wrap-around: the flows into its first slab) and copies the
 * loads of the slab after it (hi .. hi + lag - 1, which its last slab's
 * flows read and their thread changes); after it, no thread reads a row
 * another may change: an inner axis's neighbours are in the row's slab. */
static void ring_step(void *ctx, const lbt_team *t)
{
	job *J = ctx;
	const lbt_view *v = J->v;
	const lbt_scratch *S = v->scratch;
	const int D = v->dims, last = D - 1;
	const int64_t lag = J->lag, unit = lag ? lag : 1, slabs = J->rows / unit, R = J->R, rc = J->rc;
	const int64_t lo = slabs * t->id / t->n * unit, hi = slabs * (t->id + 1) / t->n * unit;
	double *ring[8];
	for (int d = 0; d < D; d++)
		ring[d] = (double *)S->link[d] + t->id * (R + lag) * rc;
	char *copy = (char *)(ring[0] + R * rc); /* the loads of rows hi .. hi + lag - 1, a row every rc doubles */
	const size_t cell = J->a->real ? sizeof(double) : sizeof(int32_t);
#define SLOT(d, r) (ring[d] + (((r) - lo + lag) % R) * rc) /* the flows of row r (lo - lag <= r < hi) */
	double *dst[8];
	for (int64_t r = lo - lag; r < lo && lo < hi; r++) { /* the slab before the block, from the loads before the step */
		for (int d = 0; d < D; d++)
			dst[d] = SLOT(d, r);
		pass1_row(J, (r + J->rows) % J->rows, dst, NULL);
	}
	for (int64_t r = hi; r < hi + lag && lo < hi; r++) {
		const int64_t g = lbt_fiber_base(v, last, r % J->rows) - v->load;
		memcpy(copy + (r - hi) * rc * 8, J->a->real ? (const void *)(v->real + g) : (const void *)(v->load + g),
		       (size_t)J->n * cell);
	}
	lbt_team_barrier(t); /* no load changes before every thread has read what it needs of others' */
	part p;
	part_open(&p);
	int64_t c[8];
	for (int64_t r = lo; r < hi + (J->fused ? 0 : lag); r++) {
		/* axis 0's next row's loads: the copy where another thread changes them */
		const void *nb0 = r < hi && r + lag >= hi ? copy + (r + lag - hi) * rc * 8 : NULL;
		if (J->fused) { /* formed, counted and updated at once; 2-D: the row above is lag = 1 back */
			fused_row(J, r, SLOT(0, r), SLOT(last, r),
			          D == 2 && link_left(r, v->ext[0], v->torus[0]) ? SLOT(0, r - lag) : NULL, nb0, &p);
			continue;
		}
		if (r < hi) {
			for (int d = 0; d < D; d++)
				dst[d] = SLOT(d, r);
			pass1_row(J, r, dst, nb0);
		}
		const int64_t q = r - lag; /* counted and updated: its flows and those into it are formed */
		if (q < lo || q >= hi)
			continue;
		rowf f;
		row_coords(v, q, c);
		for (int d = 0; d < D; d++) {
			f.own[d] = SLOT(d, q);
			const int64_t e = v->ext[d], by = J->ds[d] / J->n; /* rows between neighbours on axis d */
			f.from[d] = d == last || !link_left(c[d], e, v->torus[d]) ? NULL
			          : d == 0 ? SLOT(0, q - lag) /* the slab before, or its ring slot over the wrap-around */
			          : SLOT(d, c[d] > 0 ? q - by : q + (e - 1) * by);
		}
		finish_row(J, q, &f, &p);
	}
#undef SLOT
	part_close(J, &p);
}

void LBT_SIMD_FN(lbt_simd_speed_step)(const lbt_view *v, const lbt_speed_args *a, lbt_counts *c)
{
	const lbt_scratch *S = v->scratch;
	if (!S || v->cut || (a->real && a->shake_p > 0)) { /* the shake's real budget: the reference's order */
		lbt_ref_speed_step(v, a, c);
		return;
	}
	const int D = v->dims, last = D - 1;
	job J = {.v = v, .a = a, .n = v->ext[last], .rows = lbt_fiber_count(v, last),
	         .info = a->net.lat + a->net.info_bytes / a->net.bw, .shake = a->shake_p > 0, .max = INT32_MIN,
	         .min = INT32_MAX, .rmx = -HUGE_VAL, .rmn = HUGE_VAL};
	J.P = J.n * J.rows;
	J.lag = D == 1 ? 0 : J.rows / v->ext[0];
	for (int d = D - 1, s = 1; d >= 0; s *= (int)v->ext[d], d--)
		J.ds[d] = s;
	for (int d = 0; d < D; d++)
		J.F[d] = (double *)S->link[d] + S->origin; /* F_d at the loads' offsets */
	const int T = v->threads < S->threads ? v->threads : S->threads;
	const int64_t rc = (J.n + 7) / 8 * 8, R = a->real && RB > J.lag + 1 ? J.lag + RB : 2 * J.lag + 1;
	if (!J.shake && S->threads * (R + J.lag) * rc <= S->cells) { /* the row buffers fit in the scratch grids */
		J.R = R;
		J.rc = rc;
		J.fused = D <= 2 && !a->lb && !a->cb && a->mr_bwd == a->mr_fwd;
	}
	lbt_team_run(J.P > 16384 ? T : 1, J.R ? ring_step : team_step, &J);
	c->links_exchanged += J.links;
	c->shaken += J.shaken;
	if (!a->real) {
		int64_t shifts = 0, link_max = 0;
		for (int d = 0; d < D; d++) {
			shifts += J.rmax[d] + J.lmax[d];
			link_max = J.rmax[d] > link_max ? J.rmax[d] : link_max;
			link_max = J.lmax[d] > link_max ? J.lmax[d] : link_max;
		}
		c->moved += J.moved;
		c->shifts += shifts;
		c->has_stats = 1; /* exact: any order */
		c->max = J.max;
		c->min = J.min;
		c->total = J.total;
		c->link_max = (double)link_max > c->link_max ? (double)link_max : c->link_max;
		return;
	}
	/* real loads: the rows' sums added in row order (the reference's order),
	 * the maxima per axis and direction summed axis by axis */
	double rmoved = 0, total = 0, shifts = 0, link_max = 0;
	for (int64_t r = 0; r < J.rows; r++) {
		rmoved += S->rowsum[r];
		total += S->rowsum[J.rows + r];
	}
	for (int d = 0; d < D; d++) {
		shifts += J.rrmax[d] + J.rlmax[d];
		link_max = J.rrmax[d] > link_max ? J.rrmax[d] : link_max;
		link_max = J.rlmax[d] > link_max ? J.rlmax[d] : link_max;
	}
	c->has_stats = 1; /* the loads' extremes and total, as lbt_field_stats forms them */
	c->real_max = J.rmx;
	c->real_min = J.rmn;
	c->real_total = total;
	c->real_moved += rmoved;
	c->real_shifts += shifts;
	c->link_max = link_max > c->link_max ? link_max : c->link_max;
}

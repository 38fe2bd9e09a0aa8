/* lm_narrow.h — the Liquid model step in narrow lanes (int8 or int16) with an
 * exact escape for the few loads that do not fit. Included by lm_n8.c and
 * lm_n16.c with NBITS = 8 or 16; compiled per ISA target like simd.h.
 *
 * Saturation is exact for small PEs. Let TOP = 127 (int8) or 32767 (int16)
 * and sat(x) = min(x, TOP). Every test of Table 1 compares a load with 0, 1
 * or 2, or L_i with L_{i+1}, or L_{i-1} with L_i. If L_i <= TOP - 1, both C_i
 * (from L_{i-1}, L_i, L_{i+1}) and C_{i-1} (from L_{i-2}, L_{i-1}, L_i) come
 * out the same on sat() of the neighbours: x > 0, x > 1, x == 1 survive
 * sat(), and L_i >= L_{i+1} (or L_{i-1} >= L_i) has L_i < TOP on one side, so
 * a neighbour >= TOP answers the same as its sat(). The new load
 * L_i - C_i + C_{i-1} <= TOP fits. So one narrow pass over sat() of the grid
 * gives every small PE's new load and its C_i exactly.
 *
 * The escape. The PEs with L >= TOP (stored as TOP) are listed, with their
 * exact loads kept in the int32 grid at their own cells. After each narrow
 * substep the listed PEs are redone exactly in scalar code (their C_i, from
 * exact neighbours, also corrects the count of moved elements), and PEs the
 * narrow pass raised to exactly TOP join the list (rows where that happened
 * are flagged by the pass). On the worst case (one pile) the list holds one
 * PE; uniform loads below TOP have none.
 *
 * When it runs. A step starts from the int32 grid and leaves it exact, with
 * max, min and total, like the int32 kernel: the grid is converted (sat) into
 * narrow rows, the D substeps run narrow row after row (each from buffer A
 * into B, rows in any order, so threads split rows), and the result is
 * widened back. If more than 1/32 of the PEs are >= TOP the conversion
 * stops early and the caller takes the int32 kernel; if the list outgrows
 * its room during the step, the state is written back and the remaining
 * substeps run on the scalar reference (the driver then measures). */
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "simd.h"

#if NBITS == 8
typedef int8_t E;
#define TOP 127
#define NFN(x) x##8
#elif NBITS == 16
typedef int16_t E;
#define TOP 32767
#define NFN(x) x##16
#else
#error "lm_narrow.h: NBITS must be 8 or 16"
#endif
#define NB (W * 32 / NBITS) /* narrow lanes per vector */

/* The narrow vocabulary: N a vector of NB lanes of E, NM a lane mask. */
#if W == 16
/* Debian's SIMDe lacks a few AVX-512BW intrinsics (16-bit compares and
 * masked sub, 8/16 -> 32 widening); this target is built for x86 with
 * -mavx512bw only, so those few are the compiler's own. */
#include <immintrin.h>
typedef simde__m512i N;
#if NBITS == 8
typedef simde__mmask64 NM;
#define NX(op) simde_mm512_##op##_epi8
#define NXM(op) simde_mm512_##op##_epi8_mask
#define NMSUB(v, m) simde_mm512_mask_sub_epi8((v), (m), (v), NSET1(1))
#else
typedef simde__mmask32 NM;
#define NX(op) simde_mm512_##op##_epi16
#define NXM(op) _mm512_##op##_epi16_mask
#define NMSUB(v, m) _mm512_mask_sub_epi16((v), (m), (v), NSET1(1))
#endif
#define NLOAD(p) simde_mm512_load_si512((const void *)(p))
#define NLOADU(p) simde_mm512_loadu_si512((const void *)(p))
#define NSTORE(p, x) simde_mm512_store_si512((void *)(p), (x))
#define NSET1(x) NX(set1)(x)
#define NMAXV(a, b) NX(max)((a), (b))
#define NMINV(a, b) NX(min)((a), (b))
#define NGT(a, b) NXM(cmpgt)((a), (b))
#define NGE(a, b) NXM(cmpge)((a), (b))
#define NEQ(a, b) NXM(cmpeq)((a), (b))
#define NMAND(a, b) ((NM)((a) & (b)))
#define NMOR(a, b) ((NM)((a) | (b)))
#define NMANDNOT(a, b) ((NM)((a) & ~(b))) /* a and not b */
#define NMALL ((NM)~(NM)0)
#define NMNONE ((NM)0)
#define NMFIRST(k) ((k) >= NB ? NMALL : (NM)(((uint64_t)1 << (k)) - 1))
#define NMBITS(m) ((uint64_t)(m))
#define NINC(v, m) NX(mask_adds)((v), (m), (v), NSET1(1)) /* saturating: an escape lane stays <= TOP */
#define NDEC(v, m) NMSUB((v), (m))
#define NSEL(m, a, b) NX(mask_blend)((m), (b), (a))
#if NBITS == 8
#define NPACK(p) simde_mm512_inserti32x4(simde_mm512_inserti32x4(simde_mm512_inserti32x4( \
	simde_mm512_castsi128_si512(simde_mm512_cvtsepi32_epi8(VLOAD(p))), \
	simde_mm512_cvtsepi32_epi8(VLOAD((p) + 16)), 1), simde_mm512_cvtsepi32_epi8(VLOAD((p) + 32)), 2), \
	simde_mm512_cvtsepi32_epi8(VLOAD((p) + 48)), 3)
#define NWIDEN(p) _mm512_cvtepi8_epi32(_mm_loadu_si128((const void *)(p)))
#define NSUM(acc, x) simde_mm512_add_epi64((acc), simde_mm512_sad_epu8((x), simde_mm512_setzero_si512()))
#else
#define NPACK(p) simde_mm512_inserti64x4(simde_mm512_castsi256_si512(simde_mm512_cvtsepi32_epi16(VLOAD(p))), \
	simde_mm512_cvtsepi32_epi16(VLOAD((p) + 16)), 1)
#define NWIDEN(p) _mm512_cvtepi16_epi32(_mm256_loadu_si256((const void *)(p)))
#define NSUM(acc, x) simde_mm512_add_epi32((acc), simde_mm512_madd_epi16((x), simde_mm512_set1_epi16(1)))
#endif
#else /* W == 8, 4: masks are vectors of 0 / -1 lanes */
#if W == 8
typedef simde__m256i N;
#define NV(op) simde_mm256_##op
#define NLOAD(p) simde_mm256_load_si256((const void *)(p))
#define NLOADU(p) simde_mm256_loadu_si256((const void *)(p))
#define NSTORE(p, x) simde_mm256_store_si256((void *)(p), (x))
#else
typedef simde__m128i N;
#define NV(op) simde_mm_##op
#define NLOAD(p) simde_mm_load_si128((const void *)(p))
#define NLOADU(p) simde_mm_loadu_si128((const void *)(p))
#define NSTORE(p, x) simde_mm_store_si128((void *)(p), (x))
#endif
typedef N NM;
#if NBITS == 8
#define NX(op) NV(op##_epi8)
#else
#define NX(op) NV(op##_epi16)
#endif
#define NSET1(x) NX(set1)(x)
#define NMAXV(a, b) NX(max)((a), (b))
#define NMINV(a, b) NX(min)((a), (b))
#define NGT(a, b) NX(cmpgt)((a), (b))
#define NEQ(a, b) NX(cmpeq)((a), (b))
#define NGE(a, b) NEQ(NMAXV((a), (b)), (a))
#define NMALL NSET1(-1)
#define NMNONE NSET1(0)
#define NINC(v, m) NX(subs)((v), (m)) /* a true lane is -1; saturating: an escape lane stays <= TOP */
#define NDEC(v, m) NX(add)((v), (m))
#define NSEL(m, a, b) NV(blendv_epi8)((b), (a), (m))
#define NMFIRST(k) NGT(NSET1((E)((k) < NB ? (k) : NB)), NLOAD(lbt_narrow_iota))
static const E lbt_narrow_iota[NB] __attribute__((aligned(64))) = {
	0, 1, 2, 3, 4, 5, 6, 7,
#if NB > 8
	8, 9, 10, 11, 12, 13, 14, 15,
#endif
#if NB > 16
	16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31,
#endif
};
#if W == 8
#define NMAND(a, b) simde_mm256_and_si256((a), (b))
#define NMOR(a, b) simde_mm256_or_si256((a), (b))
#define NMANDNOT(a, b) simde_mm256_andnot_si256((b), (a))
#if NBITS == 8
#define NMBITS(m) ((uint64_t)(uint32_t)simde_mm256_movemask_epi8(m))
#define NPACK(p) simde_mm256_permutevar8x32_epi32(simde_mm256_packs_epi16( \
	simde_mm256_packs_epi32(VLOAD(p), VLOAD((p) + 8)), simde_mm256_packs_epi32(VLOAD((p) + 16), VLOAD((p) + 24))), \
	simde_mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7))
#define NWIDEN(p) simde_mm256_cvtepi8_epi32(simde_mm_loadl_epi64((const void *)(p)))
#define NSUM(acc, x) simde_mm256_add_epi64((acc), simde_mm256_sad_epu8((x), simde_mm256_setzero_si256()))
#else
static inline uint64_t nmbits16(N m)
{
	uint32_t b = (uint32_t)simde_mm256_movemask_epi8(simde_mm256_packs_epi16(m, m));
	return (b & 0xff) | ((b >> 8) & 0xff00);
}
#define NMBITS(m) nmbits16(m)
#define NPACK(p) simde_mm256_permute4x64_epi64(simde_mm256_packs_epi32(VLOAD(p), VLOAD((p) + 8)), 0xd8)
#define NWIDEN(p) simde_mm256_cvtepi16_epi32(simde_mm_loadu_si128((const void *)(p)))
#define NSUM(acc, x) simde_mm256_add_epi32((acc), simde_mm256_madd_epi16((x), simde_mm256_set1_epi16(1)))
#endif
#else
#define NMAND(a, b) simde_mm_and_si128((a), (b))
#define NMOR(a, b) simde_mm_or_si128((a), (b))
#define NMANDNOT(a, b) simde_mm_andnot_si128((b), (a))
#if NBITS == 8
#define NMBITS(m) ((uint64_t)(uint32_t)simde_mm_movemask_epi8(m))
#define NPACK(p) simde_mm_packs_epi16(simde_mm_packs_epi32(VLOAD(p), VLOAD((p) + 4)), \
	simde_mm_packs_epi32(VLOAD((p) + 8), VLOAD((p) + 12)))
static ALWAYS_INLINE V nwiden8(const E *p)
{
	int32_t x;
	memcpy(&x, p, 4);
	return simde_mm_cvtepi8_epi32(simde_mm_cvtsi32_si128(x));
}
#define NWIDEN(p) nwiden8(p)
#define NSUM(acc, x) simde_mm_add_epi64((acc), simde_mm_sad_epu8((x), simde_mm_setzero_si128()))
#else
#define NMBITS(m) ((uint64_t)((uint32_t)simde_mm_movemask_epi8(simde_mm_packs_epi16((m), (m))) & 0xff))
#define NPACK(p) simde_mm_packs_epi32(VLOAD(p), VLOAD((p) + 4))
#define NWIDEN(p) simde_mm_cvtepi16_epi32(simde_mm_loadl_epi64((const void *)(p)))
#define NSUM(acc, x) simde_mm_add_epi32((acc), simde_mm_madd_epi16((x), simde_mm_set1_epi16(1)))
#endif
#endif
#endif
#define NCOUNT(m) __builtin_popcountll(NMBITS(m))

/* The sum accumulator of NSUM: 64-bit lanes for int8, 32-bit lanes for int16
 * (at most 2 * 32767 per lane and chunk: flushed every SUMSEG chunks). */
enum { SUMSEG = 16384 };
static inline int64_t nsum_flush(N acc)
{
	int64_t a[NB * NBITS / 64] __attribute__((aligned(64)));
	int64_t s = 0;
	NSTORE(a, acc);
#if NBITS == 8
	for (int i = 0; i < W / 2; i++)
		s += a[i];
#else
	const int32_t *b = (const int32_t *)a;
	for (int i = 0; i < W; i++)
		s += b[i];
#endif
	return s;
}

/* C_i from (L_{i-1}, L_i, L_{i+1}), lane by lane, as lm.c's shift_cond. */
static ALWAYS_INLINE NM ncond(const int cond, N lp, N l, N ln)
{
	const N one = NSET1(1), two = NSET1(2);
	switch (cond) {
	case LBT_C0: return NGT(l, NSET1(0));
	case LBT_C1: return NGT(l, one);
	case LBT_C2: return NMOR(NGT(l, one), NMAND(NEQ(l, one), NGT(lp, one)));
	case LBT_C3: return NGE(l, NMAXV(ln, two));
	case LBT_C4: return NMAND(NMOR(NGT(l, one), NMAND(NEQ(l, one), NGT(lp, one))), NGE(l, ln));
	default:     return NGE(l, NMAXV(ln, one)); /* C5 */
	}
}

/* The same condition on exact int32 loads, for the escape (Table 1 as
 * kernels/ref/lm.c reads it: a missing neighbour has load 0). */
static int xcond(int cond, int64_t lp, int64_t l, int64_t ln, int has_next)
{
	if (!has_next)
		return 0;
	int c1 = l > 1, c2 = c1 || (l == 1 && lp > 1), nl = l >= ln;
	switch (cond) {
	case LBT_C0: return l > 0;
	case LBT_C1: return c1;
	case LBT_C2: return c2;
	case LBT_C3: return c1 && nl;
	case LBT_C4: return c2 && nl;
	default:     return l > 0 && nl;
	}
}

/* A PE whose load is >= TOP: its offsets in the narrow rows and the grid,
 * its exact load, and its load after the current substep. */
typedef struct {
	int64_t n, g;
	int32_t val, nval;
} esc;

/* One step's narrow state. Row r (the r-th row of the last axis in row-major
 * order) sits at A + r * np: PEs 0..n-1, then its halo cells n, n+1 and the
 * next row's -2, -1 inside the NB cells after its last vector. */
typedef struct {
	const lbt_view *v;
	int cond, last, T;
	int64_t n, np, rows;
	int64_t rstride[8]; /* rows per step along an outer axis */
	E *A, *B, *zrow;
	unsigned char *flag; /* per row: a PE below TOP reached TOP in the last pass */
	esc *e;
	int64_t ne, cap;
} nctx;

typedef struct {
	int64_t moved, total, big;
	int32_t max, min;
} nres;

static int64_t nround(int64_t x, int64_t m) { return (x + m - 1) / m * m; }

/* A row's coordinates on the outer axes and its grid offset, stepped from
 * row to row without divisions (a pass over short rows would spend more
 * on them than on the rows). */
typedef struct {
	int64_t c[8], goff;
} rowcur;

static void cur_init(const nctx *k, int64_t r, rowcur *u)
{
	u->goff = 0;
	for (int d = k->last - 1; d >= 0; d--) {
		u->c[d] = r % k->v->ext[d];
		u->goff += u->c[d] * k->v->stride[d];
		r /= k->v->ext[d];
	}
}

static inline void cur_next(const nctx *k, rowcur *u)
{
	for (int d = k->last - 1; d >= 0; d--) {
		u->goff += k->v->stride[d];
		if (++u->c[d] < k->v->ext[d])
			return;
		u->goff -= k->v->ext[d] * k->v->stride[d];
		u->c[d] = 0;
	}
}

static int64_t row_goff(const nctx *k, int64_t r)
{
	rowcur u;
	cur_init(k, r, &u);
	return u.goff;
}

/* Rows [r0, r1) of thread id of T. */
#define ROWS_OF(k, id, r0, r1) const int64_t r0 = (k)->rows * (id) / (k)->T, r1 = (k)->rows * ((id) + 1) / (k)->T

/* Convert rows [r0, r1) to sat() in A; flag rows holding a TOP. Returns the
 * TOP lanes seen, stopping once that exceeds lim. */
static int64_t convert_rows(const nctx *k, int64_t r0, int64_t r1, int64_t lim)
{
	const int64_t n = k->n;
	int64_t big = 0;
	rowcur u;
	cur_init(k, r0, &u);
	for (int64_t r = r0; r < r1 && big <= lim; r++, cur_next(k, &u)) {
		const int32_t *g = k->v->load + u.goff;
		E *a = k->A + r * k->np;
		NM any = NMNONE;
		for (int64_t i = 0; i < n; i += NB) {
			N x;
			NM valid = NMALL;
			if (i + NB <= n)
				x = NPACK(g + i);
			else { /* the row's end: through a zero-padded copy */
				int32_t t[NB] __attribute__((aligned(64))) = {0};
				memcpy(t, g + i, (size_t)(n - i) * sizeof *t);
				x = NPACK(t);
				valid = NMFIRST(n - i);
			}
			NSTORE(a + i, x);
			NM top = NMAND(NEQ(x, NSET1(TOP)), valid);
			big += NCOUNT(top);
			any = NMOR(any, top);
		}
		k->flag[r] = NMBITS(any) != 0;
	}
	return big;
}

/* The substep along outer axis d for rows [r0, r1), A to B; returns the
 * number of C_i counted (narrow). */
static ALWAYS_INLINE int64_t outer_impl(const int cond, const nctx *k, int d, int64_t r0, int64_t r1)
{
	const int64_t n = k->n, np = k->np, ext = k->v->ext[d], rs = k->rstride[d];
	const int torus = k->v->torus[d];
	int64_t moved = 0;
	rowcur u;
	cur_init(k, r0, &u);
	for (int64_t r = r0; r < r1; r++, cur_next(k, &u)) {
		const int64_t c = u.c[d];
		const E *row[4]; /* old rows c-2, c-1, c, c+1 along d */
		for (int h = 0; h < 4; h++) {
			int64_t cc = c + h - 2;
			if (cc >= 0 && cc < ext)
				row[h] = k->A + (r + (h - 2) * rs) * np;
			else
				row[h] = torus ? k->A + (r + (h - 2) * rs + (cc < 0 ? ext : -ext) * rs) * np : k->zrow;
		}
		const NM nm = torus || c + 1 < ext ? NMALL : NMNONE;
		E *out = k->B + r * np;
		NM any = NMNONE;
		for (int64_t i = 0; i < n; i += NB) {
			const NM valid = i + NB <= n ? NMALL : NMFIRST(n - i);
			N a = NLOAD(row[0] + i), b = NLOAD(row[1] + i), l = NLOAD(row[2] + i), dd = NLOAD(row[3] + i);
			NM cp = ncond(cond, a, b, l);
			NM cs = NMAND(ncond(cond, b, l, dd), NMAND(nm, valid));
			N x = NINC(NDEC(l, cs), cp);
			NSTORE(out + i, x);
			moved += NCOUNT(cs);
			any = NMOR(any, NMAND(NMANDNOT(NEQ(x, NSET1(TOP)), NEQ(l, NSET1(TOP))), valid));
		}
		k->flag[r] = NMBITS(any) != 0;
	}
	return moved;
}

/* Max, min and total of sat() over a thread's rows, in registers. */
typedef struct {
	N mx, mn, s;
	int64_t chunks, total;
} nstat;

static ALWAYS_INLINE void stat_add(nstat *t, N x, NM valid, int full)
{
	if (!full) {
		t->mx = NMAXV(t->mx, NSEL(valid, x, NSET1(0)));
		t->mn = NMINV(t->mn, NSEL(valid, x, NSET1(TOP)));
		x = NSEL(valid, x, NSET1(0));
	} else {
		t->mx = NMAXV(t->mx, x);
		t->mn = NMINV(t->mn, x);
	}
	t->s = NSUM(t->s, x);
	if (++t->chunks == SUMSEG) {
		t->total += nsum_flush(t->s);
		t->s = NSET1(0);
		t->chunks = 0;
	}
}

static void stat_end(const nstat *t, nres *o)
{
	E b[NB] __attribute__((aligned(64)));
	o->total = t->total + nsum_flush(t->s);
	NSTORE(b, t->mx);
	o->max = 0;
	for (int i = 0; i < NB; i++)
		o->max = b[i] > o->max ? b[i] : o->max;
	NSTORE(b, t->mn);
	o->min = TOP;
	for (int i = 0; i < NB; i++)
		o->min = b[i] < o->min ? b[i] : o->min;
}

/* Widen the narrow row a (n PEs) into the grid row g; g's other cells stay. */
static ALWAYS_INLINE void widen_row(int32_t *g, const E *a, int64_t n)
{
	int64_t i = 0;
	for (; i + W <= n; i += W)
		VSTORE(g + i, NWIDEN(a + i));
	if (i < n)
		VSTORE(g + i, VSEL(MFIRST(n - i), NWIDEN(a + i), VLOAD(g + i)));
}

/* The substep along the last axis for rows [r0, r1), A to B: neighbours
 * along the row by unaligned loads, after writing the row's halo cells.
 * The step's last substep: each row also widened into the grid, with the
 * statistics (o). */
static ALWAYS_INLINE int64_t last_impl(const int cond, const nctx *k, int64_t r0, int64_t r1, nres *o)
{
	nstat st = {.mx = NSET1(0), .mn = NSET1(TOP), .s = NSET1(0)};
	rowcur u;
	cur_init(k, r0, &u);
	const int64_t n = k->n, np = k->np;
	const int torus = k->v->torus[k->last];
	int64_t moved = 0;
	for (int64_t r = r0; r < r1; r++) { /* all halos first: a vector load right after a byte store stalls */
		E *a = k->A + r * np;
		a[-2] = torus ? a[n >= 3 ? n - 2 : 0] : 0; /* n >= 2: the axis has links */
		a[-1] = torus ? a[n - 1] : 0;
		a[n] = torus ? a[0] : 0;
		a[n + 1] = torus ? a[1] : 0;
	}
	for (int64_t r = r0; r < r1; r++, cur_next(k, &u)) {
		E *a = k->A + r * np, *out = k->B + r * np;
		NM any = NMNONE;
		for (int64_t i = 0; i < n; i += NB) {
			const int full = i + NB <= n;
			const NM valid = full ? NMALL : NMFIRST(n - i);
			const NM linked = torus ? valid : NMFIRST(n - 1 - i < 0 ? 0 : n - 1 - i);
			N p2 = NLOADU(a + i - 2), p1 = NLOADU(a + i - 1), l = NLOAD(a + i), nx = NLOADU(a + i + 1);
			NM cp = ncond(cond, p2, p1, l);
			NM cs = NMAND(ncond(cond, p1, l, nx), linked);
			N x = NINC(NDEC(l, cs), cp);
			NSTORE(out + i, x);
			stat_add(&st, x, valid, full);
			moved += NCOUNT(cs);
			any = NMOR(any, NMAND(NMANDNOT(NEQ(x, NSET1(TOP)), NEQ(l, NSET1(TOP))), valid));
		}
		widen_row(k->v->load + u.goff, out, n);
		k->flag[r] = NMBITS(any) != 0;
	}
	stat_end(&st, o);
	return moved;
}

typedef int64_t (*outer_fn)(const nctx *, int, int64_t, int64_t);
typedef int64_t (*last_fn)(const nctx *, int64_t, int64_t, nres *);
#define NPASS(c) \
	static int64_t NFN(outer_##c)(const nctx *k, int d, int64_t r0, int64_t r1) { return outer_impl(c, k, d, r0, r1); } \
	static int64_t NFN(last_##c)(const nctx *k, int64_t r0, int64_t r1, nres *o) { return last_impl(c, k, r0, r1, o); }
NPASS(0) NPASS(1) NPASS(2) NPASS(3) NPASS(4) NPASS(5)
static const outer_fn NFN(outers)[LBT_NCOND] = {NFN(outer_0), NFN(outer_1), NFN(outer_2), NFN(outer_3), NFN(outer_4), NFN(outer_5)};
static const last_fn NFN(lasts)[LBT_NCOND] = {NFN(last_0), NFN(last_1), NFN(last_2), NFN(last_3), NFN(last_4), NFN(last_5)};

/* The exact load of the PE at narrow offset q, grid offset g (before the substep). */
static int64_t exact(const nctx *k, int64_t q, int64_t g)
{
	return k->A[q] != TOP ? k->A[q] : k->v->load[g];
}

/* Redo the listed PEs exactly for the substep along axis d (A holds the
 * state before it, B the narrow result), then put their loads into B and
 * the grid. Returns the correction to the narrow count of moved elements;
 * adds to *tfix what their loads differ from the narrow results. */
static int64_t escape_substep(nctx *k, int d, int64_t *tfix)
{
	const lbt_view *v = k->v;
	const int last = k->last, torus = v->torus[d];
	const int64_t ext = v->ext[d], ns = d == last ? 1 : k->rstride[d] * k->np, gs = v->stride[d];
	int64_t fix = 0;
	for (int64_t j = 0; j < k->ne; j++) {
		esc *e = &k->e[j];
		const int64_t r = e->n / k->np, c = d == last ? e->n % k->np : r / k->rstride[d] % ext;
		int64_t L[4], S[4]; /* exact and sat() loads of c-2 .. c+1 */
		int has[4];
		for (int h = 0; h < 4; h++) {
			int64_t cc = c + h - 2, w = 0;
			has[h] = torus || (cc >= 0 && cc < ext);
			if (cc < 0)
				w = ext;
			else if (cc >= ext)
				w = -ext;
			if (!has[h]) {
				L[h] = S[h] = 0;
				continue;
			}
			int64_t q = e->n + (h - 2 + w) * ns;
			L[h] = exact(k, q, e->g + (h - 2 + w) * gs);
			S[h] = k->A[q];
		}
		int cs = xcond(k->cond, L[1], L[2], L[3], has[3]);
		int cp = has[1] ? xcond(k->cond, L[0], L[1], L[2], 1) : 0;
		int cs_sat = xcond(k->cond, S[1], S[2], S[3], has[3]);
		e->nval = (int32_t)(L[2] - cs + cp);
		fix += cs - cs_sat;
	}
	int64_t keep = 0;
	for (int64_t j = 0; j < k->ne; j++) {
		esc e = k->e[j];
		*tfix += e.nval - k->B[e.n];
		k->B[e.n] = (E)(e.nval < TOP ? e.nval : TOP);
		v->load[e.g] = e.nval;
		e.val = e.nval;
		if (e.val >= TOP)
			k->e[keep++] = e;
	}
	k->ne = keep;
	return fix;
}

/* List the PEs of flagged rows that hold TOP in buf and not in was (NULL:
 * every TOP, with its load from the grid; otherwise exactly TOP, written
 * to the grid). Returns 0 if the list ran out of room. */
static int collect(nctx *k, const E *buf, const E *was)
{
	for (int64_t r = 0; r < k->rows; r++) {
		if (!k->flag[r])
			continue;
		k->flag[r] = 0;
		const int64_t go = row_goff(k, r);
		for (int64_t i = 0; i < k->n; i++) {
			const int64_t q = r * k->np + i;
			if (buf[q] != TOP || (was && was[q] == TOP))
				continue;
			if (k->ne == k->cap)
				return 0;
			if (was)
				k->v->load[go + i] = TOP;
			k->e[k->ne++] = (esc){.n = q, .g = go + i, .val = k->v->load[go + i]};
		}
	}
	return 1;
}

/* Widen A's rows [r0, r1) into the grid, with the statistics (when the
 * last axis has no links, so no substep along it did this). */
static void writeback_rows(const nctx *k, int64_t r0, int64_t r1, nres *o)
{
	const int64_t n = k->n;
	nstat st = {.mx = NSET1(0), .mn = NSET1(TOP), .s = NSET1(0)};
	rowcur u;
	cur_init(k, r0, &u);
	for (int64_t r = r0; r < r1; r++, cur_next(k, &u)) {
		const E *a = k->A + r * k->np;
		for (int64_t i = 0; i < n; i += NB)
			stat_add(&st, NLOAD(a + i), i + NB <= n ? NMALL : NMFIRST(n - i), i + NB <= n);
		widen_row(k->v->load + u.goff, a, n);
	}
	stat_end(&st, o);
}

/* Run body(id) on T threads (or inline for one). */
#define ON_THREADS(k, id, ...)                                   \
	do {                                                        \
		if ((k)->T == 1) {                                      \
			const int id = 0;                               \
			__VA_ARGS__                                     \
		} else {                                                \
			const int nthreads = (k)->T;                    \
			_Pragma("omp parallel num_threads(nthreads)")   \
			{                                               \
				int id = 0;                             \
				NTHREAD_ID(id);                         \
				__VA_ARGS__                             \
			}                                               \
		}                                                       \
	} while (0)
#ifdef _OPENMP
#define NTHREAD_ID(id) ((id) = omp_get_thread_num())
#else
#define NTHREAD_ID(id) ((void)(id))
#endif

int LBT_SIMD_FN(NFN(lbt_simd_lm_narrow))(const lbt_view *v, int cond, int threads, lbt_counts *c)
{
	const int D = v->dims, last = D - 1;
	nctx k = {.v = v, .cond = cond, .last = last, .T = threads, .n = v->ext[last]};
	k.rows = 1;
	for (int d = last - 1; d >= 0; d--) {
		k.rstride[d] = k.rows;
		k.rows *= v->ext[d];
	}
	k.np = nround(k.n, NB) + NB;
	const int64_t P = k.rows * k.n, cells = k.rows * k.np + 2 * NB;
	k.cap = P / 16 + 64;
	const int64_t lim = P / 32; /* more TOP loads than this: the int32 kernel */
	/* One allocation: A's cells, B's cells, a row of zeros, the flags, the list. */
	const size_t flag_at = (size_t)(2 * cells + k.np) * sizeof(E), esc_at = (size_t)nround((int64_t)flag_at + k.rows, 64);
	char *mem = lbt_alloc_aligned(esc_at + (size_t)k.cap * sizeof(esc));
	if (!mem)
		return 0;
	k.A = (E *)mem + NB;
	k.B = k.A + cells;
	k.zrow = k.B + cells - NB;
	memset(k.zrow, 0, (size_t)k.np * sizeof(E));
	k.flag = (unsigned char *)mem + flag_at;
	k.e = (esc *)(mem + esc_at);

	int64_t big[LBT_SIMD_NMAXT] = {0};
	ON_THREADS(&k, id, {
		ROWS_OF(&k, id, r0, r1);
		big[id] = convert_rows(&k, r0, r1, lim / k.T);
	});
	int refuse = 0;
	for (int t = 0; t < k.T; t++)
		refuse |= big[t] > lim / k.T; /* that thread stopped early */
	if (refuse || !collect(&k, k.A, NULL)) {
		free(mem);
		return 0; /* too many loads do not fit: the grid is untouched */
	}

	int64_t moved = 0, shifts = 0;
	int d = 0, ok = 1, widened = 0;
	int64_t tfix = 0;
	nres o[LBT_SIMD_NMAXT];
	for (; d < D && ok; d++) {
		if (v->ext[d] < 2)
			continue;
		int64_t m[LBT_SIMD_NMAXT] = {0};
		if (d == last) {
			ON_THREADS(&k, id, {
				ROWS_OF(&k, id, r0, r1);
				m[id] = NFN(lasts)[cond](&k, r0, r1, &o[id]);
			});
			for (int64_t j = 0; j < k.ne; j++) /* the widening wrote TOP over the listed loads */
				v->load[k.e[j].g] = k.e[j].val;
			widened = 1;
		} else
			ON_THREADS(&k, id, {
				ROWS_OF(&k, id, r0, r1);
				m[id] = NFN(outers)[cond](&k, d, r0, r1);
			});
		for (int t = 0; t < k.T; t++)
			moved += m[t];
		if (d == last)
			tfix = 0; /* the narrow statistics are the last substep's */
		moved += escape_substep(&k, d, &tfix);
		ok = collect(&k, k.B, k.A);
		E *t = k.A;
		k.A = k.B;
		k.B = t;
		shifts++;
	}
	if (!widened) /* no substep along the last axis, or the list ran out of room before it */
		ON_THREADS(&k, id, {
			ROWS_OF(&k, id, r0, r1);
			writeback_rows(&k, r0, r1, &o[id]);
		});
	nres s = o[0];
	for (int t = 1; t < k.T; t++) {
		s.total += o[t].total;
		s.max = o[t].max > s.max ? o[t].max : s.max;
		s.min = o[t].min < s.min ? o[t].min : s.min;
	}
	/* The statistics saw sat() of every load, except that with `widened`
	 * they saw the narrow results (TOP - 1 or TOP) for the PEs listed
	 * before the last substep, whose loads are now >= TOP - 1: tfix. Every
	 * load >= TOP is listed now. */
	int32_t emin = INT32_MAX, emax = 0;
	for (int64_t j = 0; j < k.ne; j++) {
		const esc *e = &k.e[j];
		v->load[e->g] = e->val;
		if (!widened)
			s.total += e->val - TOP;
		emax = e->val > emax ? e->val : emax;
		emin = e->val < emin ? e->val : emin;
	}
	s.total += widened ? tfix : 0;
	s.max = k.ne > 0 ? emax : s.max == TOP ? TOP - 1 : s.max;
	if (k.ne == P)
		s.min = emin;
	free(mem);
	c->moved += moved;
	c->shifts += shifts;
	if (!ok) { /* the list ran out of room: the rest of the step on the reference */
		for (; d < D; d++)
			if (v->ext[d] >= 2) {
				lbt_halo_fill(v, d);
				lbt_ref_lm_substep(v, d, cond, c);
			}
		c->has_stats = 0;
		return 1;
	}
	c->has_stats = 1;
	c->max = s.max;
	c->min = s.min;
	c->total = s.total;
	return 1;
}

/* workload.c — the workload phase's kernels for one ISA target: Cybenko's
 * eq. (12) on a row of integer loads with Poisson arrivals, and with uniform
 * or Bernoulli arrivals, Lüling and Monien's phases, and eq. (12) on a row
 * of real-valued loads with every distribution (at the end: it uses the
 * phases' words for doubles), bit for bit the references
 * (kernels/ref/workload.c). The draws are the workloads' 32-bit
 * stream (lbt_rand32: four 32-bit multiplies a PE, one PE a 32-bit lane).
 * Poisson's inversion is a count of integer thresholds (eta = #{k < K : r >=
 * T_k}, no floating point: the same k as the reference's loop, see
 * lbt_poisson in kernels.h).
 *
 * For a small mean (at most one draw in 512 reaches the L-th threshold, L =
 * 2, 4, 6, 8, 12 or 16) one pass over the row in vectors (fused, written in
 * simd.h's words) does everything: the draws, the count against the first
 * L thresholds held in registers, the update with its counters and the sum
 * of squares of the new loads (exact integer sums); a vector with a draw at
 * or above the L-th threshold goes on counting in scalar code. A larger mean takes three passes over the
 * row: the draws, one pass per threshold below the row's largest draw, the
 * update. */
#include <math.h>

#include "simd.h"
#include "lbtorus/rng.h"

/* lbt_rand32(key, i) with k1, k2 its two round keys (k2 = lbt_rand32_k2:
 * fixed while i's bits above 32 are), i's low 32 bits as a lane. */
static ALWAYS_INLINE uint32_t draw32(uint32_t k1, uint32_t k2, uint32_t i) { return lbt_hash32(lbt_hash32(i ^ k1) + k2); }

/* A row cut where the index's bits above 32 change (at most once: a row is
 * shorter than 2^32): each piece from j, of len PEs, its low index lo and
 * its k2. */
#define SEGMENTS(n, i0, key, ...) \
	for (int64_t j = 0; j < (n);) { \
		const uint64_t ig = (uint64_t)((i0) + j); \
		const int64_t room = (int64_t)((((ig >> 32) + 1) << 32) - ig); \
		const int64_t len = (n) - j < room ? (n) - j : room; \
		const uint32_t lo = (uint32_t)ig, k1 = (uint32_t)(key), k2 = lbt_rand32_k2((key), ig); \
		__VA_ARGS__; \
		j += len; \
	}

/* AVX-512's 64-bit multiplies (the squares' sums) are one instruction with
 * AVX-512DQ, which every CPU with AVX-512BW has (init.c asks the CPU all
 * the same); the emulated target (avx512emu, compiled for AVX2) has no
 * AVX-512 at all. */
#if W == 16 && defined(__AVX512F__)
#define WL_FN __attribute__((target("avx512dq")))
#else
#define WL_FN
#endif

/* The update of PE x by eta arrivals: the counters, and its new load's
 * square as hi 2^32 + lo, each part a 32-bit number (their sums over a row
 * are exact for rows shorter than 2^32). The idle capacity is C per PE less
 * what was completed; top: the largest new load before its cast to int32. */
typedef struct {
	int64_t gen, comp, top;
	uint64_t hi, lo;
} sums;

static ALWAYS_INLINE int32_t update1(int32_t x, uint64_t eta, int32_t C, sums *s)
{
	int64_t have = (int64_t)x + (int64_t)eta, done = have < C ? have : C, y = have - done;
	const uint32_t u = (uint32_t)y;
	const uint64_t q = (uint64_t)u * u;
	s->top = y > s->top ? y : s->top;
	s->hi += q >> 32;
	s->lo += q & 0xffffffffu;
	s->gen += (int64_t)eta;
	s->comp += done;
	return (int32_t)y;
}

static ALWAYS_INLINE void add_sums(lbt_wl_counts *c, const sums *s, int64_t n, int32_t C)
{
	c->generated += s->gen;
	c->completed += s->comp;
	c->idle += n * C - s->comp;
	c->overflow |= s->top > INT32_MAX;
	c->sq_hi += s->hi;
	c->sq_lo += s->lo;
}

/* The vector words the Poisson pass needs beyond simd.h's (u: unsigned). */
#if W == 16
#define WXOR(a, b) simde_mm512_xor_si512((a), (b))
#define WOR(a, b) simde_mm512_or_si512((a), (b))
#define WAND(a, b) simde_mm512_and_si512((a), (b))
#define WSUB(a, b) simde_mm512_sub_epi32((a), (b))
#define WSRL(x, k) simde_mm512_srli_epi32((x), (k))
#define WMUL(a, b) simde_mm512_mullo_epi32((a), (b))
#define WMINU(a, b) simde_mm512_min_epu32((a), (b))
#define WSQ15(x) simde_mm512_madd_epi16((x), (x)) /* x^2 for 0 <= x < 2^15 */
#define WSTOREU(p, x) simde_mm512_storeu_si512((void *)(p), (x))
#define MANY(m) ((m) != 0)
#define VANY(v) (simde_mm512_test_epi32_mask((v), (v)) != 0) /* a lane not 0 */
#elif W == 8
#define WXOR(a, b) simde_mm256_xor_si256((a), (b))
#define WOR(a, b) simde_mm256_or_si256((a), (b))
#define WAND(a, b) simde_mm256_and_si256((a), (b))
#define WSUB(a, b) simde_mm256_sub_epi32((a), (b))
#define WSRL(x, k) simde_mm256_srli_epi32((x), (k))
#define WMUL(a, b) simde_mm256_mullo_epi32((a), (b))
#define WMINU(a, b) simde_mm256_min_epu32((a), (b))
#define WSQ15(x) simde_mm256_madd_epi16((x), (x))
#define WSTOREU(p, x) simde_mm256_storeu_si256((void *)(p), (x))
#define MANY(m) (!simde_mm256_testz_si256((m), (m)))
#define VANY(v) MANY(v)
#else
#define WXOR(a, b) simde_mm_xor_si128((a), (b))
#define WOR(a, b) simde_mm_or_si128((a), (b))
#define WAND(a, b) simde_mm_and_si128((a), (b))
#define WSUB(a, b) simde_mm_sub_epi32((a), (b))
#define WSRL(x, k) simde_mm_srli_epi32((x), (k))
#define WMUL(a, b) simde_mm_mullo_epi32((a), (b))
#define WMINU(a, b) simde_mm_min_epu32((a), (b))
#define WSQ15(x) simde_mm_madd_epi16((x), (x))
#define WSTOREU(p, x) simde_mm_storeu_si128((void *)(p), (x))
#define MANY(m) (!simde_mm_testz_si128((m), (m)))
#define VANY(v) MANY(v)
#endif

/* lbt_hash32 in every lane. */
static ALWAYS_INLINE V vhash32(V x)
{
	x = WXOR(x, WSRL(x, 16));
	x = WMUL(x, VSET1(0x7feb352d));
	x = WXOR(x, WSRL(x, 15));
	x = WMUL(x, VSET1((int32_t)0x846ca68bu));
	return WXOR(x, WSRL(x, 16));
}

/* One pass over the rows in vectors of W PEs, thresholds 0..L-1 in
 * registers (T[k] for k >= K: never reached): the draws, eta as the count
 * of thresholds below, the update, and its sums in 32-bit lanes. A vector
 * with a draw at the L-th threshold or above (one in about 60 at W = 8 for
 * a small mean) goes on counting those lanes in scalar code before the
 * update. The squares: y^2 by one 16-bit multiply-add, summed in 32-bit
 * lanes, exact while every new load of a block of at most BV = 64 vectors
 * is below 2^13 (64 (2^13 - 1)^2 < 2^32; the block's OR of the loads says
 * so); a block with a larger load sums its squares again in 64 bits from
 * the loads it stored, while they are in cache. The blocks' square sums go
 * into simd.h's exact sums (s, h), and all the lanes' sums are reduced
 * once a call, or every RV vectors: they fit their lanes (eta <= K <= 512
 * and done <= C <= 10^6 a PE, 64 blocks). The setup (thresholds, keys) is
 * once a call, for all its rows. */
enum { BV = 64, RV = 4096 };
typedef struct {
	V S[16], vk1, sign, vC, big;
	V gen, comp, sq, sqh, over; /* the lanes' sums since the last flush, and the OR of the loads */
	int64_t since;              /* vectors since the last flush */
} pass;

static ALWAYS_INLINE void flush(pass *q, sums *s)
{
	s->gen += vsum32(q->gen);
	s->comp += vsum32(q->comp);
	s->lo += (uint64_t)vtotal(q->sq, q->sqh);
	q->gen = q->comp = q->sq = q->sqh = VSET1(0);
	q->since = 0;
}

/* The draw of the vector at idx (lanes idx .. idx + W - 1). */
static ALWAYS_INLINE V vdraw(V idx, V vk1, V vk2) { return vhash32(VADD(vhash32(WXOR(idx, vk1)), vk2)); }

/* A piece of a row: len PEs from x, low index lo, round keys k1 (in q) and
 * k2. The draws run two vectors ahead of the update (software pipelined):
 * a draw is a chain of some 30 cycles of latency, and with the next two
 * vectors' draws issued before this one's count and update the core
 * overlaps them (on Zen 3, AVX2: a quarter fewer cycles per PE). */
static ALWAYS_INLINE void piece(pass *q, int32_t *x, int64_t len, uint32_t lo, uint32_t k1, uint32_t k2,
                                const lbt_poisson *p, int32_t C, sums *s, const int L)
{
	const V vk2 = VSET1((int32_t)k2), step = VSET1(W);
	V idx = VADD(VSET1((int32_t)lo), VLOADU(lbt_simd_iota));
	const int64_t nv = len / W;
	V ra = VSET1(0), rb = VSET1(0); /* the draws of vectors v and v + 1 */
	if (nv > 0)
		ra = vdraw(idx, q->vk1, vk2);
	if (nv > 1)
		rb = vdraw(VADD(idx, step), q->vk1, vk2);
	idx = VADD(idx, VADD(step, step));
	for (int64_t v0 = 0; v0 < nv; v0 += BV) {
		const int64_t vb = nv - v0 < BV ? nv - v0 : BV;
		if (q->since + vb > RV)
			flush(q, s);
		q->since += vb;
		int32_t *xb = x + v0 * W;
		V any = VSET1(0), bsq = VSET1(0), gen = q->gen, comp = q->comp;
		for (int64_t b = 0; b < vb; b++) {
			const V r = ra, rs = WXOR(r, q->sign);
			ra = rb;
			if (v0 + b + 2 < nv) {
				rb = vdraw(idx, q->vk1, vk2);
				idx = VADD(idx, step);
			}
			V e = VSET1(0);
			for (int k = 0; k < L - 1; k++)
				e = VINC(e, MGT(rs, q->S[k]));
			const M tail = MGT(rs, q->S[L - 1]);
			e = VINC(e, tail);
			if (__builtin_expect(MANY(tail), 0)) { /* rare: count on past the L-th threshold */
				uint32_t rr[W], ee[W];
				WSTOREU(rr, r);
				WSTOREU(ee, e);
				for (int l = 0; l < W; l++) /* a lane below the L-th threshold stops at once */
					while (ee[l] < (uint32_t)p->K && rr[l] >= p->T[ee[l]])
						ee[l]++;
				e = VLOADU(ee);
			}
			const V have = VADD(VLOADU(xb + b * W), e), done = WMINU(have, q->vC), y = WSUB(have, done);
			WSTOREU(xb + b * W, y);
			any = WOR(any, y);
			gen = VADD(gen, e);
			comp = VADD(comp, done);
			bsq = VADD(bsq, WSQ15(y));
		}
		q->gen = gen;
		q->comp = comp;
		if (VANY(WAND(any, q->big))) { /* a load of 2^13 or more: the squares in 64 bits */
			uint64_t hi = 0, lo2 = 0;
			for (int64_t j = 0; j < vb * W; j++) {
				const uint64_t sq = (uint64_t)(uint32_t)xb[j] * (uint32_t)xb[j];
				hi += sq >> 32;
				lo2 += sq & 0xffffffffu;
			}
			s->hi += hi;
			s->lo += lo2;
			q->over = WOR(q->over, any); /* its top bit: a load past INT32_MAX */
		} else {
			q->sq = VADD(q->sq, bsq);
			q->sqh = VADD(q->sqh, WSRL(bsq, 16));
		}
	}
	for (int64_t j = nv * W; j < len; j++) { /* the piece's tail */
		const uint32_t r = draw32(k1, k2, lo + (uint32_t)j);
		uint64_t e = 0;
		while (e < (uint64_t)p->K && r >= p->T[e])
			e++;
		x[j] = update1(x[j], e, C, s);
	}
}

static ALWAYS_INLINE WL_FN void fused(int32_t *x, int64_t n, int64_t rows, int64_t pitch, int64_t i0, uint64_t key,
                                      const lbt_poisson *p, int32_t C, sums *s, const int L)
{
	pass q;
	/* r >= T_k as a signed comparison, which every target has: (r ^ 2^31) >
	 * (T_k - 1) ^ 2^31 (T_k >= T_0 >= 1); for k >= K, where every 32-bit
	 * threshold would be reached by some draw, S[k] = INT32_MAX: never. */
	for (int k = 0; k < L; k++)
		q.S[k] = VSET1(k < p->K ? (int32_t)((p->T[k] - 1) ^ 0x80000000u) : INT32_MAX);
	q.vk1 = VSET1((int32_t)(uint32_t)key);
	q.sign = VSET1(INT32_MIN);
	q.vC = VSET1(C);
	q.big = VSET1((int32_t)0xffffe000u);
	q.gen = q.comp = q.sq = q.sqh = q.over = VSET1(0);
	q.since = 0;
	for (int64_t r = 0; r < rows; r++) {
		int32_t *xr = x + r * pitch;
		SEGMENTS(n, i0 + r * n, key, piece(&q, xr + j, len, lo, k1, k2, p, C, s, L))
	}
	flush(&q, s);
	if (VANY(WAND(q.over, q.sign)))
		s->top = (int64_t)INT32_MAX + 1;
}

WL_FN void LBT_SIMD_FN(lbt_simd_wl_poisson_row)(int32_t *x, int64_t n, int64_t rows, int64_t pitch, int64_t i0,
                                                uint64_t key, const lbt_poisson *p, int32_t C, uint32_t *restrict m,
                                                uint32_t *restrict eta, lbt_wl_counts *c)
{
	const uint32_t rare = UINT32_MAX - (1u << 23); /* a share 2^-9 of the draws lies above */
	sums s = {0};
	int L = 0;
	for (int l = 2; l <= 16 && !L; l += l < 8 ? 2 : 4)
		if (p->K <= l || p->T[l - 1] >= rare)
			L = l;
	if (L) {
#define FUSED(l) case l: fused(x, n, rows, pitch, i0, key, p, C, &s, l); break
		switch (L) {
		FUSED(2); FUSED(4); FUSED(6); FUSED(8); FUSED(12); FUSED(16);
		}
#undef FUSED
		add_sums(c, &s, n * rows, C);
		return;
	}
	for (int64_t rw = 0; rw < rows; rw++) {
		int32_t *xr = x + rw * pitch;
		uint32_t top = 0;
		SEGMENTS(n, i0 + rw * n, key, for (int64_t q = 0; q < len; q++) {
			m[j + q] = draw32(k1, k2, lo + (uint32_t)q);
			eta[j + q] = 0;
			top = m[j + q] > top ? m[j + q] : top;
		})
		for (int k = 0; k < p->K && p->T[k] <= top; k++) { /* thresholds above every draw count nothing */
			const uint32_t t = p->T[k];
			for (int64_t j = 0; j < n; j++)
				eta[j] += m[j] >= t;
		}
		for (int64_t j = 0; j < n; j++)
			xr[j] = update1(xr[j], eta[j], C, &s);
	}
	add_sums(c, &s, n * rows, C);
}

/* Uniform or Bernoulli arrivals: one pass, the draw a multiply-shift or one comparison. */
WL_FN void LBT_SIMD_FN(lbt_simd_wl_draw_row)(int32_t *x, int64_t n, int64_t i0, uint64_t key, const lbt_wl_draw *d,
                                             int32_t C, lbt_wl_counts *c)
{
	const uint64_t dlo = (uint64_t)d->lo, span = d->span, below = d->below;
	sums s = {0};
	if (span)
		SEGMENTS(n, i0, key, for (int64_t q = 0; q < len; q++) {
			const uint32_t r = draw32(k1, k2, lo + (uint32_t)q);
			x[j + q] = update1(x[j + q], dlo + (((uint64_t)r * span) >> 32), C, &s);
		})
	else
		SEGMENTS(n, i0, key, for (int64_t q = 0; q < len; q++) {
			const uint32_t r = draw32(k1, k2, lo + (uint32_t)q);
			x[j + q] = update1(x[j + q], (uint64_t)r < below, C, &s);
		})
	add_sums(c, &s, n, C);
}

/* Phases, in vectors of W PEs. The state is 12 bytes a PE (kernels.h: two
 * thresholds mod 2^32 and the steps left), all in 32-bit lanes, a PE a lane:
 * r < t is an unsigned compare, or'ed with t = 0 where a kept 0 stands for
 * 2^32. A vector holding a PE whose phase ends (left = 0) draws the next
 * phases of all its lanes in vectors, the thresholds in doubles in 64-bit
 * lanes (the even PEs, then the odd, joined back into 32-bit lanes), and
 * keeps the others; a vector where a PE at INT32_MAX generates (the
 * overflow) goes PE by PE. The rest: the two draws, the update, its counters
 * in 32-bit lanes and the squares of the new loads as 64-bit products, their
 * halves summed in 64-bit lanes (exact: a row is shorter than 2^32). */
#if W == 16
#define D_SET1(x) simde_mm512_set1_epi64((int64_t)(x))
#define D_SUB(a, b) simde_mm512_sub_epi64((a), (b))
#define D_ADD(a, b) simde_mm512_add_epi64((a), (b))
#define D_SRL(x) simde_mm512_srli_epi64((x), 32)
#define D_SLL(x) simde_mm512_slli_epi64((x), 32)
#define D_MUL(a, b) simde_mm512_mul_epu32((a), (b))
#define BELOWU(r, t) ((M)~simde_mm512_cmple_epu32_mask((t), (r)))
typedef simde__m512d VD;
#define D_AS_PD(x) simde_mm512_castsi512_pd(x)
#define D_AS_I(x) simde_mm512_castpd_si512(x)
#define D_OR(a, b) simde_mm512_or_si512((a), (b))
#define PD_SET1(x) simde_mm512_set1_pd(x)
#define PD_ADD(a, b) simde_mm512_add_pd((a), (b))
#define PD_SUB(a, b) simde_mm512_sub_pd((a), (b))
#define PD_MUL(a, b) simde_mm512_mul_pd((a), (b))
#define PD_CEIL(x) simde_mm512_roundscale_pd((x), SIMDE_MM_FROUND_TO_POS_INF)
#elif W == 8
#define D_SET1(x) simde_mm256_set1_epi64x((int64_t)(x))
#define D_SUB(a, b) simde_mm256_sub_epi64((a), (b))
#define D_ADD(a, b) simde_mm256_add_epi64((a), (b))
#define D_SRL(x) simde_mm256_srli_epi64((x), 32)
#define D_SLL(x) simde_mm256_slli_epi64((x), 32)
#define D_MUL(a, b) simde_mm256_mul_epu32((a), (b))
#define BELOWU(r, t) simde_mm256_xor_si256(MEQ(WMINU((r), (t)), (t)), VSET1(-1))
typedef simde__m256d VD;
#define D_AS_PD(x) simde_mm256_castsi256_pd(x)
#define D_AS_I(x) simde_mm256_castpd_si256(x)
#define D_OR(a, b) simde_mm256_or_si256((a), (b))
#define PD_SET1(x) simde_mm256_set1_pd(x)
#define PD_ADD(a, b) simde_mm256_add_pd((a), (b))
#define PD_SUB(a, b) simde_mm256_sub_pd((a), (b))
#define PD_MUL(a, b) simde_mm256_mul_pd((a), (b))
#define PD_CEIL(x) simde_mm256_ceil_pd(x)
#else
#define D_SET1(x) simde_mm_set1_epi64x((int64_t)(x))
#define D_SUB(a, b) simde_mm_sub_epi64((a), (b))
#define D_ADD(a, b) simde_mm_add_epi64((a), (b))
#define D_SRL(x) simde_mm_srli_epi64((x), 32)
#define D_SLL(x) simde_mm_slli_epi64((x), 32)
#define D_MUL(a, b) simde_mm_mul_epu32((a), (b))
#define BELOWU(r, t) simde_mm_xor_si128(MEQ(WMINU((r), (t)), (t)), VSET1(-1))
typedef simde__m128d VD;
#define D_AS_PD(x) simde_mm_castsi128_pd(x)
#define D_AS_I(x) simde_mm_castpd_si128(x)
#define D_OR(a, b) simde_mm_or_si128((a), (b))
#define PD_SET1(x) simde_mm_set1_pd(x)
#define PD_ADD(a, b) simde_mm_add_pd((a), (b))
#define PD_SUB(a, b) simde_mm_sub_pd((a), (b))
#define PD_MUL(a, b) simde_mm_mul_pd((a), (b))
#define PD_CEIL(x) simde_mm_ceil_pd(x)
#endif
/* BELOWU(r, t): the lanes' masks r < t, unsigned. */

/* The sums of one call: counters, and the squares' halves (scalar PEs). */
typedef struct {
	int64_t gen, comp, idle, top;
	uint64_t hi, lo;
} psums;

/* A threshold kept mod 2^32, lo its phase's low bound: a 0 is 2^32 if lo > 0 (kernels.h). */
static ALWAYS_INLINE uint64_t kept(uint32_t t, double lo) { return t || !(lo > 0) ? t : (uint64_t)1 << 32; }

/* PE j's state at a step, as the reference keeps it: its next phase if this one ends, else a step less left. */
static ALWAYS_INLINE void next1(const lbt_wl_phases *p, uint64_t i, uint32_t *tg, uint32_t *tc, uint32_t *left)
{
	const double *a = p->arg;
	if (*left) {
		--*left;
		return;
	}
	/* ceil(...) may be 2^32: through 64 bits, then mod 2^32 (a double beyond
	 * uint32_t converted to it is undefined: AVX-512's vcvttsd2usi gives
	 * 2^32 - 1 where the 64-bit conversion gives 0) */
	*tg = (uint32_t)(uint64_t)ceil((a[0] + (a[1] - a[0]) * lbt_unit32(lbt_rand32(p->key[0], i))) * 0x1p32);
	*tc = (uint32_t)(uint64_t)ceil((a[2] + (a[3] - a[2]) * lbt_unit32(lbt_rand32(p->key[1], i))) * 0x1p32);
	*left = (uint32_t)(lbt_range32(lbt_rand32(p->key[2], i), (int64_t)a[4], (int64_t)a[5]) - 1);
}

/* One PE's step from its two draws rg, rc (branch-free: an overflowing PE counts nothing). */
static ALWAYS_INLINE void phase1(int32_t *x, uint32_t rg, uint32_t rc, uint64_t tg, uint64_t tc, psums *s)
{
	const int64_t g = rg < tg, k = rc < tc;
	int64_t y = (int64_t)*x + g;
	const int64_t ok = y <= INT32_MAX, done = k & (y > 0) & ok;
	s->top = y > s->top ? y : s->top;
	y = ok ? y - done : -1;
	*x = (int32_t)y;
	const uint64_t v = (uint32_t)y, q = v * v & (0 - (uint64_t)ok);
	s->hi += q >> 32;
	s->lo += q & 0xffffffffu;
	s->gen += g & ok;
	s->comp += done;
	s->idle += (k & ok) - done;
}

/* A phase's threshold ceil((lo + (hi - lo) u) 2^32), u = r 2^-32, for the
 * W/2 draws r of r64 (zero-extended), in the reference's operations and
 * order (no fused multiply-add: the intrinsics say each one); r and the
 * threshold (an integer at most 2^32) pass to and from doubles exactly by
 * way of 2^52's bits. */
static ALWAYS_INLINE V threshold(V r64, double lo, double hi)
{
	const V two52 = D_SET1(0x4330000000000000);
	const VD u = PD_MUL(PD_SUB(D_AS_PD(D_OR(r64, two52)), PD_SET1(0x1p52)), PD_SET1(0x1p-32));
	const VD t = PD_CEIL(PD_MUL(PD_ADD(PD_SET1(lo), PD_MUL(PD_SET1(hi - lo), u)), PD_SET1(0x1p32)));
	return D_SUB(D_AS_I(PD_ADD(t, PD_SET1(0x1p52))), two52);
}

/* The thresholds of the W draws r, mod 2^32, a PE a 32-bit lane: the even
 * lanes' in the low halves of 64-bit lanes, the odd lanes' shifted up. */
static ALWAYS_INLINE V threshold32(V r, double lo, double hi)
{
	const V m32 = D_SET1(0xffffffffu);
	return WOR(WAND(threshold(WAND(r, m32), lo, hi), m32), D_SLL(threshold(D_SRL(r), lo, hi)));
}

/* The next state of the W PEs of tg, tc, left whose phase ends (ends, lv:
 * their steps left), all drawn in vectors (idx: the lanes' low indices; k:
 * the round keys of the draws for g, c and the length; len1: LENL - 1;
 * span: the lengths' count, below 2^32: L - 1 = LENL - 1 + the high half of
 * r span, per lane); the others a step less left. */
static ALWAYS_INLINE void vnext(V idx, const V k[6], const double *a, V len1, V span, M ends, V lv, uint32_t *tg,
                                uint32_t *tc, uint32_t *left)
{
	const V rg = vhash32(VADD(vhash32(WXOR(idx, k[0])), k[1])), rc = vhash32(VADD(vhash32(WXOR(idx, k[2])), k[3]));
	const V rl = vhash32(VADD(vhash32(WXOR(idx, k[4])), k[5]));
	WSTOREU(tg, VSEL(ends, threshold32(rg, a[0], a[1]), VLOADU(tg)));
	WSTOREU(tc, VSEL(ends, threshold32(rc, a[2], a[3]), VLOADU(tc)));
	const V hi = WOR(D_SRL(D_MUL(rl, span)), WAND(D_MUL(D_SRL(rl), span), D_SET1(0xffffffff00000000u)));
	WSTOREU(left, VSEL(ends, VADD(len1, hi), VADD(lv, VSET1(-1))));
}

/* A piece of a row: len PEs from x, global index i0 (its low 32 bits lo), the
 * generation draws' round keys g1, g2. */
static ALWAYS_INLINE void phases_piece(int32_t *x, int64_t len, uint64_t i0, uint32_t lo, uint32_t g1, uint32_t g2,
                                       const lbt_wl_phases *p, uint32_t *tg, uint32_t *tc, uint32_t *left, psums *s)
{
	const uint32_t c1 = (uint32_t)p->key[4], c2 = lbt_rand32_k2(p->key[4], i0);
	const V vg1 = VSET1((int32_t)g1), vg2 = VSET1((int32_t)g2), vc1 = VSET1((int32_t)c1), vc2 = VSET1((int32_t)c2);
	const V top = VSET1(INT32_MAX), zero = VSET1(0), vstep = VSET1(W), m32 = D_SET1(0xffffffffu), one = VSET1(1);
	const M gfull = p->arg[0] > 0 ? MALL : MNONE, cfull = p->arg[2] > 0 ? MALL : MNONE; /* a kept 0 is 2^32 */
	V idx = VADD(VSET1((int32_t)lo), VLOADU(lbt_simd_iota));
	V gen = zero, comp = zero, con = zero, sqlo = zero, sqhi = zero;
	V k[6]; /* the redraws' round keys */
	for (int q = 0; q < 3; q++) {
		k[2 * q] = VSET1((int32_t)(uint32_t)p->key[q]);
		k[2 * q + 1] = VSET1((int32_t)lbt_rand32_k2(p->key[q], i0));
	}
	const uint64_t span = (uint64_t)((int64_t)p->arg[5] - (int64_t)p->arg[4]) + 1; /* as lbt_range32 */
	const V vspan = D_SET1(span), len1 = VSET1((int32_t)(uint32_t)((int64_t)p->arg[4] - 1));
	const int64_t nv = len / W;
	/* the draws run a vector ahead of the update (as the Poisson pass's) */
	V ahead = VADD(idx, vstep), rg1 = zero, rc1 = zero;
	if (nv > 0) {
		rg1 = vhash32(VADD(vhash32(WXOR(idx, vg1)), vg2));
		rc1 = vhash32(VADD(vhash32(WXOR(idx, vc1)), vc2));
	}
	for (int64_t b = 0; b < nv; b++) {
		const int64_t j = b * W;
		const V rg = rg1, rc = rc1;
		if (b + 1 < nv) {
			rg1 = vhash32(VADD(vhash32(WXOR(ahead, vg1)), vg2));
			rc1 = vhash32(VADD(vhash32(WXOR(ahead, vc1)), vc2));
			ahead = VADD(ahead, vstep);
		}
		const V lv = VLOADU(left + j);
		const M ends = MEQ(lv, zero);
		if (__builtin_expect(!MANY(ends), 1))
			WSTOREU(left + j, WSUB(lv, one));
		else if (span <= UINT32_MAX) /* a phase ends here: its next */
			vnext(idx, k, p->arg, len1, vspan, ends, lv, tg + j, tc + j, left + j);
		else
			for (int l = 0; l < W; l++)
				next1(p, i0 + (uint64_t)(j + l), tg + j + l, tc + j + l, left + j + l);
		idx = VADD(idx, vstep);
		const V tgv = VLOADU(tg + j), tcv = VLOADU(tc + j);
		const M gm = MOR(BELOWU(rg, tgv), MAND(MEQ(tgv, zero), gfull));
		const M km = MOR(BELOWU(rc, tcv), MAND(MEQ(tcv, zero), cfull));
		const V xv = VLOADU(x + j);
		if (__builtin_expect(MANY(MAND(gm, MEQ(xv, top))), 0)) { /* a PE overflows: PE by PE */
			uint32_t ag[W], ac[W];
			WSTOREU(ag, rg);
			WSTOREU(ac, rc);
			for (int l = 0; l < W; l++)
				phase1(x + j + l, ag[l], ac[l], kept(tg[j + l], p->arg[0]), kept(tc[j + l], p->arg[2]), s);
			continue;
		}
		V y = VINC(xv, gm);
		const M done = MAND(km, MGT(y, zero));
		y = VDEC(y, done);
		WSTOREU(x + j, y);
		gen = VINC(gen, gm);
		comp = VINC(comp, done);
		con = VINC(con, km);
		const V pe = D_MUL(y, y), yo = D_SRL(y), po = D_MUL(yo, yo);
		sqlo = D_ADD(sqlo, D_ADD(WAND(pe, m32), WAND(po, m32)));
		sqhi = D_ADD(sqhi, D_ADD(D_SRL(pe), D_SRL(po)));
	}
	const int64_t nc = vsum32(comp);
	s->gen += vsum32(gen);
	s->comp += nc;
	s->idle += vsum32(con) - nc;
	uint64_t l64[W / 2], h64[W / 2];
	WSTOREU(l64, sqlo);
	WSTOREU(h64, sqhi);
	for (int l = 0; l < W / 2; l++) {
		s->lo += l64[l];
		s->hi += h64[l];
	}
	for (int64_t j = nv * W; j < len; j++) { /* the piece's tail */
		next1(p, i0 + (uint64_t)j, tg + j, tc + j, left + j);
		phase1(x + j, draw32(g1, g2, lo + (uint32_t)j), draw32(c1, c2, lo + (uint32_t)j), kept(tg[j], p->arg[0]),
		       kept(tc[j], p->arg[2]), s);
	}
}

WL_FN void LBT_SIMD_FN(lbt_simd_wl_phases_row)(int32_t *x, int64_t n, int64_t i0, const lbt_wl_phases *p,
                                               uint32_t *restrict tg, uint32_t *restrict tc, uint32_t *restrict left,
                                               lbt_wl_counts *c)
{
	psums s = {0};
	SEGMENTS(n, i0, p->key[3], phases_piece(x + j, len, ig, lo, k1, k2, p, tg + j, tc + j, left + j, &s))
	c->generated += s.gen;
	c->completed += s.comp;
	c->idle += s.idle;
	c->overflow |= s.top > INT32_MAX;
	c->sq_hi += s.hi;
	c->sq_lo += s.lo;
}

/* Real-valued loads: blocks of LBT_WL_LANES PEs, lane l of a block adding
 * to the sums' lane l, as the reference does PE by PE; a start off lane 0
 * (lane0) and the row's tail go one PE at a time (arrival, add_pe). Exp,
 * uniform, Bernoulli and Poisson go in vectors of WD doubles (8, 4, 2), the
 * W draws of a vector of 32-bit lanes (a PE a lane) in two of them, each
 * arrival in the reference's IEEE operations and order (no fused
 * multiply-add: the project's -std=c11 leaves GCC's contraction off, which
 * would fuse the intrinsics' too), so every lane is the reference's bits; the sums are
 * NS = LBT_WL_LANES / WD vectors, vector h of a block adding to lanes
 * h WD .. h WD + WD - 1. The normal's cosine is libm's, called per PE as
 * the reference does. */
static ALWAYS_INLINE double arrival(const lbt_wl_real *d, uint32_t r, uint32_t r2)
{
	switch (d->dist) {
	case LBT_DIST_POISSON: {
		uint32_t e = 0;
		for (int k = 0; k < d->pt.K; k++)
			e += r >= d->pt.T[k];
		return (double)e;
	}
	case LBT_DIST_UNIFORM: return (double)(d->draw.lo + (int64_t)(((uint64_t)r * d->draw.span) >> 32));
	case LBT_DIST_BERNOULLI: return (double)((uint64_t)r < d->draw.below);
	case LBT_DIST_EXP: return -d->mu * lbt_log_unit(1.0 - lbt_unit32(r));
	default:
		return d->mu + d->sigma * sqrt(-2.0 * lbt_log_unit(1.0 - lbt_unit32(r))) * cos(2.0 * M_PI * lbt_unit32(r2));
	}
}

static ALWAYS_INLINE void add_pe(double *x, double eta, double C, double shift, int l, lbt_wl_rsums *s)
{
	*x += eta - C;
	const double dv = *x - shift;
	s->gen[l] += eta;
	s->dev[l] += dv;
	s->sq[l] += dv * dv;
}

#if W == 16
#define PD_LOADU(p) simde_mm512_loadu_pd(p)
#define PD_STOREU(p, x) simde_mm512_storeu_pd((p), (x))
#define PD_DIV(a, b) simde_mm512_div_pd((a), (b))
#define D_SRL52(x) simde_mm512_srli_epi64((x), 52)
#elif W == 8
#define PD_LOADU(p) simde_mm256_loadu_pd(p)
#define PD_STOREU(p, x) simde_mm256_storeu_pd((p), (x))
#define PD_DIV(a, b) simde_mm256_div_pd((a), (b))
#define D_SRL52(x) simde_mm256_srli_epi64((x), 52)
#else
#define PD_LOADU(p) simde_mm_loadu_pd(p)
#define PD_STOREU(p, x) simde_mm_storeu_pd((p), (x))
#define PD_DIV(a, b) simde_mm_div_pd((a), (b))
#define D_SRL52(x) simde_mm_srli_epi64((x), 52)
#endif
enum { WD = W / 2, NS = LBT_WL_LANES / WD };

/* The W 32-bit lanes of r (unsigned) as doubles, exact: lanes 0 .. WD - 1
 * in *lo, the others in *hi (AVX-512: lane l below 2^52's high word, less
 * 2^52; below: r - 2^31 as a signed lane, plus 2^31). */
static ALWAYS_INLINE void u32_pd(V r, VD *lo, VD *hi)
{
#if W == 16
	static const int32_t up[2][16] __attribute__((aligned(64))) = {
		{0, 16, 1, 16, 2, 16, 3, 16, 4, 16, 5, 16, 6, 16, 7, 16}, {8, 16, 9, 16, 10, 16, 11, 16, 12, 16, 13, 16, 14, 16, 15, 16}};
	const V two52 = VSET1(0x43300000);
	*lo = PD_SUB(D_AS_PD(simde_mm512_permutex2var_epi32(r, VLOAD(up[0]), two52)), PD_SET1(0x1p52));
	*hi = PD_SUB(D_AS_PD(simde_mm512_permutex2var_epi32(r, VLOAD(up[1]), two52)), PD_SET1(0x1p52));
#else
	const V s = WXOR(r, VSET1(INT32_MIN));
#if W == 8
	*lo = PD_ADD(simde_mm256_cvtepi32_pd(simde_mm256_castsi256_si128(s)), PD_SET1(0x1p31));
	*hi = PD_ADD(simde_mm256_cvtepi32_pd(simde_mm256_extracti128_si256(s, 1)), PD_SET1(0x1p31));
#else
	*lo = PD_ADD(simde_mm_cvtepi32_pd(s), PD_SET1(0x1p31));
	*hi = PD_ADD(simde_mm_cvtepi32_pd(simde_mm_unpackhi_epi64(s, s)), PD_SET1(0x1p31));
#endif
#endif
}

/* lbt_log_unit in every lane, its operations in its order: the high word's
 * arithmetic in 64-bit lanes (adding c 2^32 adds c to the high word, the
 * low word kept), k from the exponent's bits by way of 2^52's. */
static ALWAYS_INLINE VD vlog_unit(VD v)
{
	const V b = D_ADD(D_AS_I(v), D_SET1((uint64_t)(0x3ff00000u - 0x3fe6a09eu) << 32));
	const VD dk = PD_SUB(D_AS_PD(D_OR(D_SRL52(b), D_SET1(0x4330000000000000))), PD_SET1(0x1p52 + 0x3ff));
	const VD f = PD_SUB(D_AS_PD(D_ADD(WAND(b, D_SET1(0x000fffffffffffff)), D_SET1((uint64_t)0x3fe6a09eu << 32))),
	                    PD_SET1(1.0));
	const VD hfsq = PD_MUL(PD_MUL(PD_SET1(0.5), f), f), s = PD_DIV(f, PD_ADD(PD_SET1(2.0), f));
	const VD z = PD_MUL(s, s), w = PD_MUL(z, z);
	const VD t1 = PD_MUL(w, PD_ADD(PD_SET1(3.999999999940941908e-01),
	                               PD_MUL(w, PD_ADD(PD_SET1(2.222219843214978396e-01),
	                                                PD_MUL(w, PD_SET1(1.531383769920937332e-01))))));
	const VD t2 = PD_MUL(z, PD_ADD(PD_SET1(6.666666666666735130e-01),
	                               PD_MUL(w, PD_ADD(PD_SET1(2.857142874366239149e-01),
	                                                PD_MUL(w, PD_ADD(PD_SET1(1.818357216161805012e-01),
	                                                                 PD_MUL(w, PD_SET1(1.479819860511658591e-01))))))));
	const VD R = PD_ADD(t2, t1);
	const VD a = PD_ADD(PD_MUL(s, PD_ADD(hfsq, R)), PD_MUL(dk, PD_SET1(1.90821492927058770002e-10)));
	return PD_ADD(PD_ADD(PD_SUB(a, hfsq), f), PD_MUL(dk, PD_SET1(6.93147180369123816490e-01)));
}

/* What a row's vectors need of its distribution, set once a call. */
typedef struct {
	V sign, vspan, vbelow;
	VD nmu, dlo;
	int wide, all; /* uniform: span 2^32 (the draw itself); Bernoulli: every draw below */
} rdist;

/* The arrivals of the W PEs of the draws r, in the lanes of *lo and *hi. */
static ALWAYS_INLINE void varrivals(const lbt_wl_real *d, const rdist *k, V r, VD *lo, VD *hi, const int dist)
{
	if (dist == LBT_DIST_EXP) {
		u32_pd(r, lo, hi);
		*lo = PD_MUL(k->nmu, vlog_unit(PD_SUB(PD_SET1(1.0), PD_MUL(*lo, PD_SET1(0x1p-32)))));
		*hi = PD_MUL(k->nmu, vlog_unit(PD_SUB(PD_SET1(1.0), PD_MUL(*hi, PD_SET1(0x1p-32)))));
		return;
	}
	V e = VSET1(0);
	if (dist == LBT_DIST_POISSON) { /* #{k : r >= T_k}: T is nondecreasing, the count stops where no lane is */
		const V rs = WXOR(r, k->sign);
		for (int j = 0; j < d->pt.K; j++) {
			const M ge = MGT(rs, VSET1((int32_t)((d->pt.T[j] - 1) ^ 0x80000000u))); /* T_j >= 1 */
			if (!MANY(ge))
				break;
			e = VINC(e, ge);
		}
	}
	else if (dist == LBT_DIST_BERNOULLI)
		e = VINC(e, k->all ? MALL : BELOWU(r, k->vbelow));
	else /* uniform: the high halves of r span, lo + that exact in doubles (|lo| <= 2^53) */
		e = k->wide ? r
		            : WOR(D_SRL(D_MUL(r, k->vspan)), WAND(D_MUL(D_SRL(r), k->vspan), D_SET1(0xffffffff00000000u)));
	u32_pd(e, lo, hi);
	if (dist == LBT_DIST_UNIFORM) {
		*lo = PD_ADD(k->dlo, *lo);
		*hi = PD_ADD(k->dlo, *hi);
	}
}

/* WD PEs from x: the new loads, and the sums' vector h. */
static ALWAYS_INLINE void vadd_pe(double *x, VD eta, VD C, VD shift, VD *g, VD *dv, VD *sq)
{
	const VD y = PD_ADD(PD_LOADU(x), PD_SUB(eta, C)), dd = PD_SUB(y, shift);
	PD_STOREU(x, y);
	*g = PD_ADD(*g, eta);
	*dv = PD_ADD(*dv, dd);
	*sq = PD_ADD(*sq, PD_MUL(dd, dd));
}

/* The draws of a piece, vector after vector, two ahead of their use (as
 * the Poisson pass's: a draw's chain of multiplies overlaps the arrivals
 * and updates of the two vectors before it). */
typedef struct {
	V a, b, idx, vk1, vk2;
	int64_t t, nd; /* the next vector's number; how many there are */
} draws;

static ALWAYS_INLINE draws draws_open(uint32_t lo, uint32_t k1, uint32_t k2, int64_t nd)
{
	draws q = {.idx = VADD(VSET1((int32_t)lo), VLOADU(lbt_simd_iota)), .vk1 = VSET1((int32_t)k1),
	           .vk2 = VSET1((int32_t)k2), .t = 0, .nd = nd};
	q.a = q.b = vdraw(q.idx, q.vk1, q.vk2);
	q.idx = VADD(q.idx, VSET1(W));
	if (nd > 1)
		q.b = vdraw(q.idx, q.vk1, q.vk2);
	q.idx = VADD(q.idx, VSET1(W));
	return q;
}

static ALWAYS_INLINE V draws_next(draws *q)
{
	const V r = q->a;
	q->a = q->b;
	if (q->t + 2 < q->nd) {
		q->b = vdraw(q->idx, q->vk1, q->vk2);
		q->idx = VADD(q->idx, VSET1(W));
	}
	q->t++;
	return r;
}

/* nb >= 1 blocks of LBT_WL_LANES PEs from x (low index lo, round keys k1,
 * k2), in units of U PEs: one draw vector at W = 16 (two blocks), one or
 * two below (one block); at W = 16 an odd last block takes the low half of
 * a draw vector. */
static ALWAYS_INLINE void vblocks(double *x, int64_t nb, uint32_t lo, uint32_t k1, uint32_t k2, const lbt_wl_real *d,
                                  const rdist *k, double shift, lbt_wl_rsums *s, const int dist)
{
	enum { NL = LBT_WL_LANES, U = W > NL ? W : NL };
	const VD vC = PD_SET1(d->C), vsh = PD_SET1(shift);
	VD g[NS], dv[NS], sq[NS];
	for (int h = 0; h < NS; h++) {
		g[h] = PD_LOADU(s->gen + h * WD);
		dv[h] = PD_LOADU(s->dev + h * WD);
		sq[h] = PD_LOADU(s->sq + h * WD);
	}
	draws q = draws_open(lo, k1, k2, (nb * NL + W - 1) / W);
	const int64_t nu = nb / (U / NL);
	for (int64_t u = 0; u < nu; u++) {
		double *xu = x + u * U;
		for (int v = 0; v < U / W; v++) {
			VD e0, e1;
			varrivals(d, k, draws_next(&q), &e0, &e1, dist);
			vadd_pe(xu + v * W, e0, vC, vsh, &g[2 * v % NS], &dv[2 * v % NS], &sq[2 * v % NS]);
			vadd_pe(xu + v * W + WD, e1, vC, vsh, &g[(2 * v + 1) % NS], &dv[(2 * v + 1) % NS], &sq[(2 * v + 1) % NS]);
		}
	}
	if (U > NL && nb % 2) { /* W = 16 (NS = 1): the last block */
		VD e0, e1;
		varrivals(d, k, draws_next(&q), &e0, &e1, dist);
		vadd_pe(x + nu * U, e0, vC, vsh, &g[0], &dv[0], &sq[0]);
	}
	for (int h = 0; h < NS; h++) {
		PD_STOREU(s->gen + h * WD, g[h]);
		PD_STOREU(s->dev + h * WD, dv[h]);
		PD_STOREU(s->sq + h * WD, sq[h]);
	}
}

/* A row's pieces (SEGMENTS): from lane0 to lane 0 and the tail PE by PE,
 * the blocks between in vectors (vec) or PE by PE. */
static ALWAYS_INLINE void real_pieces(double *x, int64_t n, int64_t i0, int lane0, uint64_t key, uint64_t key2,
                                      const lbt_wl_real *d, const rdist *k, double shift, lbt_wl_rsums *s,
                                      const int dist, const int vec)
{
	enum { NL = LBT_WL_LANES };
	const double C = d->C;
	SEGMENTS(n, i0, key, {
		const uint32_t k21 = (uint32_t)key2, k22 = lbt_rand32_k2(key2, ig);
		int64_t q = 0;
		for (; q < len && (lane0 + j + q) % NL; q++) /* up to lane 0 */
			add_pe(x + j + q, arrival(d, draw32(k1, k2, lo + (uint32_t)q), draw32(k21, k22, lo + (uint32_t)q)), C, shift,
			       (int)((lane0 + j + q) % NL), s);
		const int64_t nb = (len - q) / NL;
		if (vec && nb)
			vblocks(x + j + q, nb, lo + (uint32_t)q, k1, k2, d, k, shift, s, dist);
		else
			for (int64_t b = 0; b < nb; b++)
				for (int l = 0; l < NL; l++) {
					const uint32_t i = lo + (uint32_t)(q + b * NL + l);
					add_pe(x + j + q + b * NL + l, arrival(d, draw32(k1, k2, i), draw32(k21, k22, i)), C, shift, l, s);
				}
		for (q += nb * NL; q < len; q++) /* the tail, from lane 0 */
			add_pe(x + j + q, arrival(d, draw32(k1, k2, lo + (uint32_t)q), draw32(k21, k22, lo + (uint32_t)q)), C, shift,
			       (int)((lane0 + j + q) % NL), s);
	})
}

WL_FN void LBT_SIMD_FN(lbt_simd_wl_real_row)(double *x, int64_t n, int64_t i0, int lane0, uint64_t key, uint64_t key2,
                                             const lbt_wl_real *d, double shift, lbt_wl_rsums *s)
{
	const rdist k = {.sign = VSET1(INT32_MIN),
	                 .vspan = D_SET1(d->draw.span),
	                 .vbelow = VSET1((int32_t)(uint32_t)d->draw.below),
	                 .nmu = PD_SET1(-d->mu),
	                 .dlo = PD_SET1((double)d->draw.lo),
	                 .wide = d->draw.span > UINT32_MAX,
	                 .all = d->draw.below > UINT32_MAX};
	switch (d->dist) {
	case LBT_DIST_EXP: real_pieces(x, n, i0, lane0, key, key2, d, &k, shift, s, LBT_DIST_EXP, 1); break;
	case LBT_DIST_POISSON: real_pieces(x, n, i0, lane0, key, key2, d, &k, shift, s, LBT_DIST_POISSON, 1); break;
	case LBT_DIST_BERNOULLI: real_pieces(x, n, i0, lane0, key, key2, d, &k, shift, s, LBT_DIST_BERNOULLI, 1); break;
	case LBT_DIST_UNIFORM: /* lo + q in doubles is the reference's (double)(lo + q) where lo is exact */
		real_pieces(x, n, i0, lane0, key, key2, d, &k, shift, s, LBT_DIST_UNIFORM,
		            d->draw.lo >= -((int64_t)1 << 53) && d->draw.lo <= (int64_t)1 << 53);
		break;
	default: real_pieces(x, n, i0, lane0, key, key2, d, &k, shift, s, LBT_DIST_NORMAL, 0);
	}
}

/* lm_avx512.h — the Liquid model's narrow rows with AVX-512 BW (part of
 * lm.c, included for W == 16): rows in 32 int16 or 64 int8 lanes, chosen
 * per row and step, and lone rings in them. */
#ifndef LBT_LM_AVX512_H
#define LBT_LM_AVX512_H

#include "avx512bw.h"

/* Narrow rows (AVX-512 BW). A roll over rows takes a row in 32 int16 lanes per
 * vector instead of 16 int32 lanes whenever the row's old loads are all at
 * most HTOP = 32765 (Henrich's Definition 1: in a substep a PE gives at most
 * one element and receives at most one, so after the row's two substeps its
 * load still fits). Its neighbours along the outer axis need not fit: they
 * are packed with signed saturation, and a load above 32767 read as 32767
 * compares with any load <= 32765 exactly as it would itself (a condition
 * compares a PE's load with its successor's; C2 and C4 also ask whether the
 * predecessor's is above 1, which each row notes for the next as a mask,
 * gtb). So the choice is per row: a row with a big load, and only that row,
 * takes the int32 path, and a run narrows as its loads fall, with the same
 * bits.
 *
 * Each narrow row packs the old row after it (which it reads as its
 * successor anyway) and notes whether it fits; rows of up to NARROW_BUF
 * PEs leave it in a buffer where that row finds its own loads, longer rows
 * pack their own loads again (plane_impl says why). After an int32 row the
 * next row is checked alone. The masks of C_i along the outer axis stay in
 * cpb as 16-lane halves, so int32 and int16 rows hand them on to each
 * other (gtb too; an int32 row finds its predecessor in the ring, where
 * row_from_gt writes it after a narrow row). Maximum, minimum and counts
 * are widened once per roll (or flush), the total goes into the exact sums
 * in int32 pairs. */
typedef simde__mmask32 HM;
enum { HW = 2 * W, HTOP = 32765, BTOP = 125 };
#define HSET1(x) simde_mm512_set1_epi16(x)
#define HMAX(a, b) simde_mm512_max_epi16((a), (b))
#define HMIN(a, b) simde_mm512_min_epi16((a), (b))
#define HGE(a, b) simde_mm512_cmpge_epi16_mask((a), (b))
#define HINC(v, m) simde_mm512_mask_add_epi16((v), (m), (v), HSET1(1))
#define HDEC(v, m) simde_mm512_mask_add_epi16((v), (m), (v), HSET1(-1))
/* int16 lanes 0..15 or 16..31 widened (SIMDe 0.7 lacks it; this target is always native AVX-512 BW) */
#define HWIDEN(x, half) simde_mm512_cvtepi16_epi32(simde_mm512_extracti64x4_epi64((x), (half)))
static const int16_t lbt_simd_iota16[64] __attribute__((aligned(64))) = {
	0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21,
	22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42,
	43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63};
#define HSHL1(prev, cur) simde_mm512_permutex2var_epi16((prev), VLOADU(lbt_simd_iota16 + 31), (cur))
#define HSHL2(prev, cur) simde_mm512_permutex2var_epi16((prev), VLOADU(lbt_simd_iota16 + 30), (cur))
#define HSHR1(cur, next) simde_mm512_permutex2var_epi16((cur), VLOADU(lbt_simd_iota16 + 1), (next))
/* The same in int8 lanes (byte rows, below): lane i-1 (prev's last at 0)
 * and i+1 (next's first at 63): a 64-bit align brings the neighbouring
 * 128-bit lane, a byte align within the lanes (AVX-512 BW has no byte
 * permute across the vector). */
#define BSHL1(prev, cur) simde_mm512_alignr_epi8((cur), simde_mm512_alignr_epi64((cur), (prev), 6), 15)
#define BSHL2(prev, cur) simde_mm512_alignr_epi8((cur), simde_mm512_alignr_epi64((cur), (prev), 6), 14)
#define BSHR1(cur, next) simde_mm512_alignr_epi8(simde_mm512_alignr_epi64((next), (cur), 2), (cur), 1)
/* int16 lanes summed in pairs into int32 lanes */
#define HPAIRS(x) simde_mm512_madd_epi16((x), HSET1(1))


/* lone rings (below): their largest size; lone_top's unsigned maximum */
enum { LONE_MAX_N = 1 << 16 };
#define VMAXU(a, b) simde_mm512_max_epu32((a), (b))
#define VABOVE(x, t) (simde_mm512_cmpgt_epu32_mask((x), VSET1(t)) != 0) /* a lane of x above t, unsigned */

#include "lm_narrow.h"

/* 32 loads of two int32 vectors in lane order, saturated to int16. */
static ALWAYS_INLINE V hpack(V a, V b)
{
	static const int64_t order[8] __attribute__((aligned(64))) = {0, 2, 4, 6, 1, 3, 5, 7};
	return simde_mm512_permutexvar_epi64(VLOAD(order), simde_mm512_packs_epi32(a, b));
}

/* "l > 1", lane by lane, in 32 int16 lanes or (bytes) 64 int8 lanes: what
 * C2 and C4 ask of the predecessor L_{i-1}. */
static ALWAYS_INLINE uint64_t ngt1(const int bytes, V l)
{
	return bytes ? simde_mm512_cmpgt_epi8_mask(l, simde_mm512_set1_epi8(1)) : simde_mm512_cmpgt_epi16_mask(l, HSET1(1));
}

/* C_i of shift_cond in 32 int16 lanes or (bytes) 64 int8 lanes: l >= t, or
 * l >= max(ln, t) for C3 and C5; for C2 and C4, whose C_i also looks at the
 * predecessor, pg is its "L_{i-1} > 1" (ngt1): C2 is l > 1 or (l = 1 and
 * L_{i-1} > 1), C4 is C2 and l >= ln. */
static ALWAYS_INLINE uint64_t nshift_cond(const int cond, const int bytes, uint64_t pg, V l, V ln)
{
	if (cond == LBT_C2 || cond == LBT_C4) {
		const uint64_t one = bytes ? simde_mm512_cmpeq_epi8_mask(l, simde_mm512_set1_epi8(1)) : simde_mm512_cmpeq_epi16_mask(l, HSET1(1));
		const uint64_t c2 = ngt1(bytes, l) | (one & pg);
		if (cond == LBT_C2)
			return c2;
		return c2 & (bytes ? simde_mm512_cmpge_epi8_mask(l, ln) : HGE(l, ln));
	}
	const int t = cond == LBT_C1 || cond == LBT_C3 ? 2 : 1, next = cond == LBT_C3 || cond == LBT_C5;
	if (bytes)
		return simde_mm512_cmpge_epi8_mask(l, next ? simde_mm512_max_epi8(ln, simde_mm512_set1_epi8((char)t)) : simde_mm512_set1_epi8((char)t));
	return HGE(l, next ? HMAX(ln, HSET1(t)) : HSET1(t));
}

/* The masks narrow chunk j (32 lanes, or 64 with bytes) hands on along the
 * outer axis, kept in cpb and gtb at the place of int32 chunk 2 j (4 j):
 * returns its C_i (masked by nm), left in cpb for the next row, and puts in *cp
 * the C_{i-1} the previous row left there; C2 and C4 take the previous
 * row's "L > 1" from gtb and leave their own. (x86: a mask's low bytes
 * are its first lanes.) */
static ALWAYS_INLINE uint64_t nhand_on(const int cond, const int bytes, V l, V ln, uint64_t nm, int64_t j, M *cpb,
                                       M *gtb, uint64_t *cp)
{
	const int64_t at = (bytes ? 4 : 2) * j;
	const size_t size = bytes ? 8 : 4;
	uint64_t pg = 0, before = 0;
	if (cond == LBT_C2 || cond == LBT_C4) {
		const uint64_t g = ngt1(bytes, l);
		memcpy(&pg, gtb + at, size);
		memcpy(gtb + at, &g, size);
	}
	const uint64_t cs = nshift_cond(cond, bytes, pg, l, ln) & nm;
	memcpy(&before, cpb + at, size);
	memcpy(cpb + at, &cs, size);
	*cp = before;
	return cs;
}

/* C_{i-1} (*cp) and C_i (returned) along a narrow row for chunk cur
 * between prev and next, in 32 int16 lanes or (bytes) 64 int8 lanes. */
static ALWAYS_INLINE uint64_t nrow_cond(const int cond, const int bytes, V prev, V cur, V next, uint64_t *cp)
{
	const int lp = cond == LBT_C2 || cond == LBT_C4;
	V b = bytes ? BSHL1(prev, cur) : HSHL1(prev, cur), d = bytes ? BSHR1(cur, next) : HSHR1(cur, next);
	*cp = nshift_cond(cond, bytes, lp ? ngt1(bytes, bytes ? BSHL2(prev, cur) : HSHL2(prev, cur)) : 0, b, cur);
	return nshift_cond(cond, bytes, lp ? ngt1(bytes, b) : 0, cur, d);
}

/* Outer-axis update of narrow chunk j: the successor row's loads from p1,
 * packed on the way; own old loads from p0, packed too, or (buf) from pl,
 * where the previous row left them, with the successor's stored into pd
 * for the next row. C_{i-1} from cpb; for C2 and C4, the predecessor's
 * "L > 1" from gtb, where the row leaves its own for the next. */
static ALWAYS_INLINE V fchunk16(const int cond, const int buf, const lrow *r, int64_t j, HM nm, V *cnt, V *top)
{
	const int32_t *p0 = r->p0, *p1 = r->p1;
	const int16_t *pl = r->pl;
	int16_t *pd = r->pd;
	V l = buf ? VLOAD(pl + j * HW) : hpack(VLOAD(p0 + j * HW), VLOAD(p0 + j * HW + W));
	if (!buf) /* long rows: the successor's loads 16 vectors ahead, as fchunk does */
		for (int c = 0; c < 2; c++)
			PREFETCH(p1 + j * HW, 16 * HW + c * W);
	V d = hpack(VLOAD(p1 + j * HW), VLOAD(p1 + j * HW + W));
	if (buf)
		VSTORE(pd + j * HW, d);
	*top = simde_mm512_max_epu16(*top, d); /* unsigned: a negative load would not fit */
	uint64_t cp;
	const HM cs = (HM)nhand_on(cond, 0, l, d, nm, j, r->cpb, r->gtb, &cp);
	*cnt = HINC(*cnt, cs);
	return HINC(HDEC(l, cs), (HM)cp);
}

/* Row update of narrow chunk cur, widened into out. */
static ALWAYS_INLINE void hchunk16(const int cond, V prev, V cur, V next, HM linked, int32_t *out, hregs *H, regs *R)
{
	uint64_t cp;
	const HM cs = (HM)nrow_cond(cond, 0, prev, cur, next, &cp) & linked;
	H->cnt = HINC(H->cnt, cs);
	V x = HINC(HDEC(cur, cs), (HM)cp);
	H->mx = HMAX(H->mx, x);
	H->mn = HMIN(H->mn, x);
	R->s = VADD(R->s, HPAIRS(x)); /* pairs < 65536: h is unchanged */
	VSTORE(out, HWIDEN(x, 0));
	VSTORE(out + W, HWIDEN(x, 1));
}

/* The class of a row from the unsigned maximum of its loads packed to
 * int16 (row_class). */
static ALWAYS_INLINE int top_class(V top, int bytes)
{
	return simde_mm512_cmpge_epu16_mask(top, HSET1(HTOP + 1)) ? 0 : bytes && !simde_mm512_cmpge_epu16_mask(top, HSET1(BTOP + 1)) ? 2 : 1;
}

/* frow_body (have_cp) on a row of n = a whole number of narrow chunks
 * whose old loads fit; returns the class of the next row's (row_class).
 * Writes p0 in place: chunk j is stored after chunk j+1 was read. */
static ALWAYS_INLINE int frow16_body(const int cond, const int buf, const lrow *r, int bytes, hregs *H, regs *R)
{
	int32_t *p0 = r->p0;
	const int64_t n = r->n;
	const int torus = r->torus;
	const HM nm = r->has_next ? (HM)0xffffffffu : 0;
	const int64_t J = n / HW;
	V top = HSET1(0);
	H->used = 1;
	V first = fchunk16(cond, buf, r, 0, nm, &H->cnt, &top);
	V lastv = J > 1 ? fchunk16(cond, buf, r, J - 1, nm, &H->cnt, &top) : first;
	/* a cut row's neighbours saturated to int16: the same comparisons with its own loads, which fit */
	V prev = torus == ROW_TORUS ? lastv : torus ? hpack(VSET1(0), vlanes(p0 - 2, W - 2, 2)) : VSET1(0), cur = first;
	int64_t j = 0;
	for (; j + 2 < J; j++) {
		V next = fchunk16(cond, buf, r, j + 1, nm, &H->cnt, &top);
		hchunk16(cond, prev, cur, next, (HM)0xffffffffu, p0 + j * HW, H, R);
		prev = cur;
		cur = next;
		PIN(H->mx, H->mn, H->cnt, R->s, prev);
	}
	if (j + 1 < J) {
		hchunk16(cond, prev, cur, lastv, (HM)0xffffffffu, p0 + j * HW, H, R);
		prev = cur;
		cur = lastv;
		j++;
	}
	hchunk16(cond, prev, cur, torus == ROW_TORUS ? first : torus ? hpack(vlanes(p0 + n, 0, 1), VSET1(0)) : VSET1(0),
	         torus == ROW_TORUS || torus == ROW_CUT ? (HM)0xffffffffu : (HM)0x7fffffffu, p0 + j * HW, H, R);
	return top_class(top, bytes);
}

/* The class of old row src: 2 if its n loads fit a byte row (and bytes
 * allows one), else 1 if they fit a narrow row, else 0; packed to int16
 * into dst if not NULL. */
static int row_class(const int32_t *src, int16_t *dst, int64_t n, int bytes)
{
	V top = HSET1(0);
	for (int64_t i = 0; i < n; i += HW) {
		V d = hpack(VLOAD(src + i), VLOAD(src + i + W));
		if (dst)
			VSTORE(dst + i, d);
		top = simde_mm512_max_epu16(top, d);
	}
	return top_class(top, bytes);
}

/* Byte rows: the same in 64 int8 lanes, for rows whose old loads are all
 * in 0 .. BTOP = 125 (n a whole number of byte chunks, at most BMAX_N PEs).
 * Neighbours packed with signed saturation (126 and above read as 126 or
 * 127, exact for the same reason). The sum goes into 64-bit lanes by
 * vpsadbw (loads are never negative: a byte row holds 0 .. 127); the
 * counts into int8 lanes, emptied into 64-bit lanes before a row could
 * take one past 255 (a row adds at most 2 per lane and byte chunk). */
typedef simde__mmask64 BM;
enum { BW = 4 * W, BMAX_N = 4096 };
#define BSET1(x) simde_mm512_set1_epi8(x)
#define BINC(v, m) simde_mm512_mask_add_epi8((v), (m), (v), BSET1(1))
#define BDEC(v, m) simde_mm512_mask_sub_epi8((v), (m), (v), BSET1(1))
/* int8 lanes 16 q .. 16 q + 15 widened (q a constant: an immediate) */
#define BWIDEN(x, q) simde_mm512_cvtepi8_epi32(simde_mm512_extracti32x4_epi32((x), (q)))

/* 64 loads of four int32 vectors at p in lane order, saturated to int8:
 * the packs leave each 128-bit lane as four dwords of a, b, c, d. */
static ALWAYS_INLINE V bpack(const int32_t *p)
{
	static const int32_t order[16] __attribute__((aligned(64))) = {0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15};
	V ab = simde_mm512_packs_epi32(VLOAD(p), VLOAD(p + W)), cd = simde_mm512_packs_epi32(VLOAD(p + 2 * W), VLOAD(p + 3 * W));
	return simde_mm512_permutexvar_epi32(VLOAD(order), simde_mm512_packs_epi16(ab, cd));
}

typedef struct {
	V mx, mn, cnt;  /* int8 lanes */
	V sum, moved;   /* 64-bit lanes */
	int64_t adds;   /* most a cnt lane may have gained since it was emptied */
	int used;
} bregs;
#define BREGS_EMPTY {BSET1(INT8_MIN), BSET1(INT8_MAX), BSET1(0), VSET1(0), VSET1(0), 0, 0}

/* Room in the byte counts for a row of J byte chunks. */
static ALWAYS_INLINE void bcount_room(bregs *B, int64_t J)
{
	if (B->adds + 2 * J > 255) {
		B->moved = simde_mm512_add_epi64(B->moved, simde_mm512_sad_epu8(B->cnt, BSET1(0)));
		B->cnt = BSET1(0);
		B->adds = 0;
	}
	B->adds += 2 * J;
	B->used = 1;
}

static ALWAYS_INLINE void bmerge(bregs *B, regs *R, acc *A)
{
	if (!B->used)
		return;
	R->mx = VMAX(R->mx, VMAX(VMAX(BWIDEN(B->mx, 0), BWIDEN(B->mx, 1)), VMAX(BWIDEN(B->mx, 2), BWIDEN(B->mx, 3))));
	R->mn = VMIN(R->mn, VMIN(VMIN(BWIDEN(B->mn, 0), BWIDEN(B->mn, 1)), VMIN(BWIDEN(B->mn, 2), BWIDEN(B->mn, 3))));
	A->moved += simde_mm512_reduce_add_epi64(simde_mm512_add_epi64(B->moved, simde_mm512_sad_epu8(B->cnt, BSET1(0))));
	A->total += simde_mm512_reduce_add_epi64(B->sum);
	*B = (bregs)BREGS_EMPTY;
}

/* fchunk16 in bytes: own old loads from pl (own) or packed from p0; the
 * successor's packed into pd (buf). res (lm_steps, the named byte rows
 * below): the row is pl, its successor pn (res 1 and 3, bytes already) or
 * packed from p1 (res 2); res 1 does not look at whether the successor fits
 * (the caller knows). */
static ALWAYS_INLINE V fchunk8(const int cond, const int res, const int own, const int buf, const lrow *r, int64_t j,
                               BM nm, bregs *B, V *top)
{
	const int32_t *p0 = r->p0, *p1 = r->p1;
	const int8_t *pl = r->pl, *pn = r->pn;
	int8_t *pd = r->pd;
	V l = own || res ? VLOAD(pl + j * BW) : bpack(p0 + j * BW);
	if (!buf && !res) /* long rows: the successor's loads 8 vectors ahead, as fchunk does */
		for (int c = 0; c < 4; c++)
			PREFETCH(p1 + j * BW, 8 * BW + c * W);
	V d = res == 1 || res == 3 ? VLOAD(pn + j * BW) : bpack(p1 + j * BW);
	if (buf)
		VSTORE(pd + j * BW, d);
	if (res != 1)
		*top = simde_mm512_max_epu8(*top, d);
	uint64_t cp;
	const BM cs = nhand_on(cond, 1, l, d, nm, j, r->cpb, r->gtb, &cp);
	B->cnt = BINC(B->cnt, cs);
	return BINC(BDEC(l, cs), cp);
}

/* 64 loads in int8 lanes (all >= 0) widened into four int32 vectors at out. */
static ALWAYS_INLINE void bwiden_store(int32_t *out, V x)
{
	VSTORE(out, simde_mm512_cvtepi8_epi32(simde_mm512_castsi512_si128(x)));
	VSTORE(out + W, BWIDEN(x, 1));
	VSTORE(out + 2 * W, BWIDEN(x, 2));
	VSTORE(out + 3 * W, BWIDEN(x, 3));
}

/* Row update of byte chunk j (cur), widened into the int32 row p0, or
 * (res) stored as bytes into the byte row pb. */
static ALWAYS_INLINE void hchunk8(const int cond, const int res, V prev, V cur, V next, BM linked, int32_t *p0,
                                  int8_t *pb, int64_t j, bregs *B)
{
	uint64_t cp;
	const BM cs = nrow_cond(cond, 1, prev, cur, next, &cp) & linked;
	B->cnt = BINC(B->cnt, cs);
	V x = BINC(BDEC(cur, cs), cp);
	B->mx = simde_mm512_max_epi8(B->mx, x);
	B->mn = simde_mm512_min_epi8(B->mn, x);
	B->sum = simde_mm512_add_epi64(B->sum, simde_mm512_sad_epu8(x, BSET1(0)));
	if (res)
		VSTORE(pb + j * BW, x);
	else
		bwiden_store(p0 + j * BW, x);
}

/* frow16_body in bytes; returns whether the next row's old loads fit a byte
 * row (res 1: 1). res: the row (pl, updated in place) is a row of
 * lm_steps's byte copy, p0 unused; its successor is too (res 1 and 3: pn,
 * p1 unused) or is an int32 row (res 2: p1, pn unused). Called through the
 * named byte rows below. */
static ALWAYS_INLINE int frow8_body(const int cond, const int res, const int own, const int buf, const lrow *r,
                                    bregs *B)
{
	int32_t *p0 = r->p0;
	const int64_t n = r->n;
	const int torus = r->torus;
	const BM nm = r->has_next ? ~(BM)0 : 0;
	const int64_t J = n / BW;
	int8_t *const pb = (int8_t *)r->pl; /* res: in place */
	V top = BSET1(0);
	bcount_room(B, J);
	V first = fchunk8(cond, res, own, buf, r, 0, nm, B, &top);
	V lastv = J > 1 ? fchunk8(cond, res, own, buf, r, J - 1, nm, B, &top) : first;
	V prev = torus ? lastv : VSET1(0), cur = first;
	int64_t j = 0;
	for (; j + 2 < J; j++) {
		V next = fchunk8(cond, res, own, buf, r, j + 1, nm, B, &top);
		hchunk8(cond, res, prev, cur, next, ~(BM)0, p0, pb, j, B);
		prev = cur;
		cur = next;
		PIN(B->mx, B->mn, B->cnt, B->sum, prev);
	}
	if (j + 1 < J) {
		hchunk8(cond, res, prev, cur, lastv, ~(BM)0, p0, pb, j, B);
		prev = cur;
		cur = lastv;
		j++;
	}
	hchunk8(cond, res, prev, cur, torus ? first : VSET1(0), torus ? ~(BM)0 : ~(BM)0 >> 1, p0, pb, j, B);
	return !simde_mm512_cmpge_epu8_mask(top, BSET1(BTOP + 1));
}

/* The byte rows by where their loads live. In a roll over the int32 grid
 * (plane_impl): own loads and successor's packed from the grid (long rows);
 * the same with the successor's packed bytes left in pd for the next row;
 * own loads from pl, where the previous row left them. In lm_steps's byte
 * copy (the row pl, updated in place): its successor pn in the copy and
 * known to fit; in the copy, looked at; in the grid, packed into pd. Each
 * returns whether the successor's old loads fit a byte row. */
static ALWAYS_INLINE int brow_grid(const int cond, const lrow *r, bregs *B) { return frow8_body(cond, 0, 0, 0, r, B); }
static ALWAYS_INLINE int brow_grid_keep(const int cond, const lrow *r, bregs *B) { return frow8_body(cond, 0, 0, 1, r, B); }
static ALWAYS_INLINE int brow_kept(const int cond, const lrow *r, bregs *B) { return frow8_body(cond, 0, 1, 1, r, B); }
static ALWAYS_INLINE int brow_copy_clean(const int cond, const lrow *r, bregs *B) { return frow8_body(cond, 1, 0, 0, r, B); }
static ALWAYS_INLINE int brow_copy(const int cond, const lrow *r, bregs *B) { return frow8_body(cond, 3, 0, 0, r, B); }
static ALWAYS_INLINE int brow_copy_from_grid(const int cond, const lrow *r, bregs *B) { return frow8_body(cond, 2, 0, 1, r, B); }

/* C2 and C4 read the predecessor row only as "L > 1": gtb from an int32
 * old row n PEs long, and back, as the int32 row after a narrow one reads
 * it (frow_body with have_cp compares it only with 1): 2 where L > 1, else 0. */
static void gt_from_row(M *gtb, const int32_t *row, int64_t n)
{
	for (int64_t j = 0; j < n / W; j++)
		gtb[j] = MGT(VLOAD(row + j * W), VSET1(1));
}
static void row_from_gt(int32_t *row, const M *gtb, int64_t n)
{
	for (int64_t j = 0; j < n / W; j++)
		VSTORE(row + j * W, VSEL(gtb[j], VSET1(2), VSET1(0)));
}

/* A lone row (a 1-D grid) has no outer axis to hand its class along, so
 * it takes narrow lanes only when all its loads fit (lone_top). That
 * reads the row once more, so only rings of up to LONE_MAX_N PEs (256 KiB
 * of int32, in L2) take them: on longer ones that read cost more than
 * the narrow lanes saved (LM-C5, 262144 PEs: 4-12 % slower).
 *
 * lone_narrow: hrow_impl on a lone row of n = a whole number of narrow chunks whose
 * loads all fit them (lone_top): each chunk packed from p as it is read
 * and widened back in place, chunk j stored after chunk j+1 was read, the
 * old first and last chunks kept for the torus's wrap. One substep adds
 * at most 1 per lane and chunk to a count: the byte counts are emptied
 * every 64 chunks (bcount_room); a row of at most LONE_MAX_N PEs adds
 * too little to the int16 counts and the sums to need it. */
static ALWAYS_INLINE void lone_narrow(const int cond, const int bytes, int32_t *p, int64_t n, int torus, acc *A)
{
	_Static_assert(LONE_MAX_N / HW + 2 <= SEG, "a lone int16 row is one segment");
	const int64_t L = bytes ? BW : HW, J = n / L, S = bytes ? 64 : J;
	const uint64_t all = bytes ? ~(uint64_t)0 : 0xffffffffu;
	regs R = REGS_IN(A);
	hregs H = HREGS_EMPTY;
	bregs B = BREGS_EMPTY;
#define LONE_LOAD(j) (bytes ? bpack(p + (j) * L) : hpack(VLOAD(p + (j) * L), VLOAD(p + (j) * L + W)))
#define LONE_CHUNK(prev, cur, next, linked, j)                                      \
	(bytes ? hchunk8(cond, 0, (prev), (cur), (next), (linked), p, NULL, (j), &B)        \
	       : hchunk16(cond, (prev), (cur), (next), (HM)(linked), p + (j) * L, &H, &R))
	const V first = LONE_LOAD(0), lastv = LONE_LOAD(J - 1);
	V prev = torus ? lastv : VSET1(0), cur = first;
	int64_t j = 0;
	H.used = 1;
	do { /* segments of S chunks, then the last two */
		if (bytes)
			bcount_room(&B, S);
		const int64_t lim = J - 2 < j + S ? J - 2 : j + S;
		for (; j < lim; j++) {
			V next = LONE_LOAD(j + 1);
			LONE_CHUNK(prev, cur, next, all, j);
			prev = cur;
			cur = next;
			if (bytes)
				PIN(B.mx, B.mn, B.cnt, B.sum, prev);
			else
				PIN(H.mx, H.mn, H.cnt, R.s, prev);
		}
	} while (j + 2 < J);
	if (j + 1 < J) {
		LONE_CHUNK(prev, cur, lastv, all, j);
		prev = cur;
		cur = lastv;
		j++;
	}
	LONE_CHUNK(prev, cur, torus ? first : VSET1(0), torus ? all : all >> 1, j);
#undef LONE_LOAD
#undef LONE_CHUNK
	if (bytes)
		bmerge(&B, &R, A);
	else
		hmerge(&H, &R);
	REGS_OUT(A, R);
	acc_flush(A, bytes ? 0 : J + 2);
}
typedef void (*lone_fn)(int32_t *, int64_t, int, acc *);
#define LONES(k)                                                                                               \
	static void lone16_##k(int32_t *p, int64_t n, int torus, acc *A) { lone_narrow(k, 0, p, n, torus, A); } \
	static void lone8_##k(int32_t *p, int64_t n, int torus, acc *A) { lone_narrow(k, 1, p, n, torus, A); }
LONES(0) LONES(1) LONES(2) LONES(3) LONES(4) LONES(5)
static const lone_fn lones[2][LBT_NCOND] = {{lone16_0, lone16_1, lone16_2, lone16_3, lone16_4, lone16_5},
                                            {lone8_0, lone8_1, lone8_2, lone8_3, lone8_4, lone8_5}};

#endif

/* lm_avx2.h — the Liquid model's narrow rows with AVX2 (part of lm.c,
 * included for W == 8): rows and rings in 16 int16 lanes. */
#ifndef LBT_LM_AVX2_H
#define LBT_LM_AVX2_H

/* Narrow rows and rings with AVX2: int16 lanes only, 16 PEs per vector,
 * under the rules of the AVX-512 rows and rings (the W == 16 branches,
 * which give the reasons), but: no byte lanes; no packed-row buffer (a row packs its own
 * loads again); the masks are vectors of -1 (true) and 0 as in the int32
 * code, so l - C_i + C_{i-1} is l + cs - cp; and the masks a row hands on
 * along the outer axis (cpb; gtb for C2 and C4) stay in the format of the
 * row that wrote them: an int32 row's in 8 lanes per vector, a narrow
 * row's in 16 int16 lanes in the vector of the first of its two int32
 * chunks. cp_narrow converts them when the kind of row changes. */
enum { HW = 2 * W, HTOP = 32765, LONE_MAX_N = 1 << 16 };
#define HSET1(x) simde_mm256_set1_epi16(x)
#define HGT1(x) simde_mm256_cmpgt_epi16((x), HSET1(1))
#define HGE(a, b) simde_mm256_cmpeq_epi16(simde_mm256_max_epi16((a), (b)), (a))
#define HSHL1(prev, cur) simde_mm256_alignr_epi8((cur), simde_mm256_permute2x128_si256((prev), (cur), 0x21), 14)
#define HSHL2(prev, cur) simde_mm256_alignr_epi8((cur), simde_mm256_permute2x128_si256((prev), (cur), 0x21), 12)
#define HSHR1(cur, next) simde_mm256_alignr_epi8(simde_mm256_permute2x128_si256((cur), (next), 0x21), (cur), 2)
/* int16 lanes 0..7 or 8..15 widened (half a constant) */
#define HWIDEN(x, half) \
	simde_mm256_cvtepi16_epi32((half) ? simde_mm256_extracti128_si256((x), 1) : simde_mm256_castsi256_si128(x))
#define VMAXU(a, b) simde_mm256_max_epu32((a), (b))
#define VABOVE(x, t) (simde_mm256_movemask_epi8(simde_mm256_cmpeq_epi32(VMAXU((x), VSET1(t)), VSET1(t))) != -1)
#define HPAIRS(x) simde_mm256_madd_epi16((x), HSET1(1))


#include "lm_narrow.h"

/* 16 loads of two int32 vectors (or masks) in lane order, saturated to int16. */
static ALWAYS_INLINE V hpack(V a, V b) { return simde_mm256_permute4x64_epi64(simde_mm256_packs_epi32(a, b), 0xd8); }

/* shift_cond in 16 int16 lanes; for C2 and C4, pg is "L_{i-1} > 1". */
static ALWAYS_INLINE V hcond(const int cond, V pg, V l, V ln)
{
	const V one = HSET1(1);
	switch (cond) {
	case LBT_C0: return simde_mm256_cmpgt_epi16(l, HSET1(0));
	case LBT_C1: return HGT1(l);
	case LBT_C2:
	case LBT_C4: {
		const V c2 = simde_mm256_or_si256(HGT1(l), simde_mm256_and_si256(simde_mm256_cmpeq_epi16(l, one), pg));
		return cond == LBT_C2 ? c2 : simde_mm256_and_si256(c2, HGE(l, ln));
	}
	case LBT_C3: return HGE(l, simde_mm256_max_epi16(ln, HSET1(2)));
	default: return HGE(l, simde_mm256_max_epi16(ln, one)); /* C5 */
	}
}

/* The row update of chunk cur (16 PEs), counted: its new loads. */
static ALWAYS_INLINE V hnew16(const int cond, V prev, V cur, V next, V linked, hregs *H, regs *R)
{
	const int lp = cond == LBT_C2 || cond == LBT_C4;
	const V b = HSHL1(prev, cur);
	const V cp = hcond(cond, lp ? HGT1(HSHL2(prev, cur)) : b, b, cur);
	const V cs = simde_mm256_and_si256(hcond(cond, lp ? HGT1(b) : b, cur, HSHR1(cur, next)), linked);
	H->cnt = simde_mm256_sub_epi16(H->cnt, cs);
	const V x = simde_mm256_sub_epi16(simde_mm256_add_epi16(cur, cs), cp);
	H->mx = simde_mm256_max_epi16(H->mx, x);
	H->mn = simde_mm256_min_epi16(H->mn, x);
	R->s = VADD(R->s, HPAIRS(x)); /* pairs < 65536: h is unchanged */
	return x;
}

/* The same, widened into out (16 PEs). */
static ALWAYS_INLINE void hchunk16(const int cond, V prev, V cur, V next, V linked, int32_t *out, hregs *H, regs *R)
{
	const V x = hnew16(cond, prev, cur, next, linked, H, R);
	VSTORE(out, HWIDEN(x, 0));
	VSTORE(out + W, HWIDEN(x, 1));
}

/* Outer-axis update of narrow chunk j: own and successor loads packed
 * from p0 and p1; C_{i-1} from cpb, C_i left there; for C2 and C4 the
 * predecessor's "L > 1" from gtb, the row's own left there. */
static ALWAYS_INLINE V fchunk16(const int cond, const int32_t *p0, const int32_t *p1, int64_t j, V nm, M *cpb, M *gtb,
                                V *cnt, V *top)
{
	const int64_t i = j * HW;
	const V l = hpack(VLOAD(p0 + i), VLOAD(p0 + i + W));
	PREFETCH(p1 + i, 16 * HW); /* the successor's loads 16 vectors ahead, as fchunk does */
	const V d = hpack(VLOAD(p1 + i), VLOAD(p1 + i + W));
	*top = simde_mm256_max_epu16(*top, d); /* unsigned: a negative load would not fit */
	V pg = l;
	if (cond == LBT_C2 || cond == LBT_C4) {
		pg = gtb[2 * j];
		gtb[2 * j] = HGT1(l);
	}
	const V cs = simde_mm256_and_si256(hcond(cond, pg, l, d), nm), cp = cpb[2 * j];
	cpb[2 * j] = cs;
	*cnt = simde_mm256_sub_epi16(*cnt, cs);
	return simde_mm256_sub_epi16(simde_mm256_add_epi16(l, cs), cp);
}

/* 1 if the loads packed into top all fit a narrow row, else 0. */
static ALWAYS_INLINE int top_class(V top)
{
	const V t = HSET1(HTOP);
	return simde_mm256_movemask_epi8(simde_mm256_cmpeq_epi16(simde_mm256_max_epu16(top, t), t)) == -1;
}

/* frow16_body of the AVX-512 rows: a row of n = a whole number of narrow
 * chunks whose old loads fit; returns the class of the next row's. */
static ALWAYS_INLINE int frow16_body(const int cond, const lrow *r, hregs *H, regs *R)
{
	int32_t *const p0 = r->p0;
	const int32_t *const p1 = r->p1;
	const int64_t n = r->n;
	const int torus = r->torus;
	M *const cpb = r->cpb, *const gtb = r->gtb;
	const V all = VSET1(-1), nm = r->has_next ? all : VSET1(0);
	const int64_t J = n / HW;
	V top = HSET1(0);
	H->used = 1;
	const V first = fchunk16(cond, p0, p1, 0, nm, cpb, gtb, &H->cnt, &top);
	const V lastv = J > 1 ? fchunk16(cond, p0, p1, J - 1, nm, cpb, gtb, &H->cnt, &top) : first;
	/* a cut row's neighbours saturated to int16: the same comparisons with its own loads, which fit */
	V prev = torus == ROW_TORUS ? lastv : torus ? hpack(VSET1(0), vlanes(p0 - 2, W - 2, 2)) : VSET1(0), cur = first;
	int64_t j = 0;
	for (; j + 2 < J; j++) {
		V next = fchunk16(cond, p0, p1, j + 1, nm, cpb, gtb, &H->cnt, &top);
		hchunk16(cond, prev, cur, next, all, p0 + j * HW, H, R);
		prev = cur;
		cur = next;
		PIN(H->mx, H->mn, H->cnt, R->s, prev);
	}
	if (j + 1 < J) {
		hchunk16(cond, prev, cur, lastv, all, p0 + j * HW, H, R);
		prev = cur;
		cur = lastv;
		j++;
	}
	hchunk16(cond, prev, cur, torus == ROW_TORUS ? first : torus ? hpack(vlanes(p0 + n, 0, 1), VSET1(0)) : VSET1(0),
	         torus == ROW_TORUS || torus == ROW_CUT ? all : simde_mm256_insert_epi16(all, 0, 15), p0 + j * HW, H, R);
	return top_class(top);
}

/* The class of old row src (n loads): 1 if they fit a narrow row. */
static int row_class(const int32_t *src, int64_t n)
{
	V top = HSET1(0);
	for (int64_t i = 0; i < n; i += HW)
		top = simde_mm256_max_epu16(top, hpack(VLOAD(src + i), VLOAD(src + i + W)));
	return top_class(top);
}

/* cpb (n PEs) from the int32 rows' format to the narrow rows' (narrow),
 * or back. */
static void cp_narrow(M *cpb, int64_t n, int narrow)
{
	for (int64_t j = 0; j < n / HW; j++)
		if (narrow)
			cpb[2 * j] = hpack(cpb[2 * j], cpb[2 * j + 1]);
		else {
			const V c = cpb[2 * j];
			cpb[2 * j] = HWIDEN(c, 0);
			cpb[2 * j + 1] = HWIDEN(c, 1);
		}
}

/* gtb from an int32 old row n PEs long, and back (2 where L > 1, else 0),
 * as with AVX-512. */
static void gt_from_row(M *gtb, const int32_t *row, int64_t n)
{
	for (int64_t j = 0; j < n / HW; j++)
		gtb[2 * j] = HGT1(hpack(VLOAD(row + j * HW), VLOAD(row + j * HW + W)));
}
static void row_from_gt(int32_t *row, const M *gtb, int64_t n)
{
	for (int64_t j = 0; j < n / HW; j++) {
		VSTORE(row + j * HW, simde_mm256_and_si256(HWIDEN(gtb[2 * j], 0), VSET1(2)));
		VSTORE(row + j * HW + W, simde_mm256_and_si256(HWIDEN(gtb[2 * j], 1), VSET1(2)));
	}
}

/* lone_narrow of the AVX-512 code in int16 lanes: a ring of at most
 * LONE_MAX_N PEs adds at most 4096 to a count's or a sum's lane. */
static ALWAYS_INLINE void lone16(const int cond, int32_t *p, int64_t n, int torus, acc *A)
{
	const int64_t J = n / HW;
	const V all = VSET1(-1);
	regs R = REGS_IN(A);
	hregs H = HREGS_EMPTY;
	H.used = 1;
	const V first = hpack(VLOAD(p), VLOAD(p + W)), lastv = hpack(VLOAD(p + (J - 1) * HW), VLOAD(p + (J - 1) * HW + W));
	V prev = torus ? lastv : VSET1(0), cur = first;
	int64_t j = 0;
	for (; j + 2 < J; j++) {
		V next = hpack(VLOAD(p + (j + 1) * HW), VLOAD(p + (j + 1) * HW + W));
		hchunk16(cond, prev, cur, next, all, p + j * HW, &H, &R);
		prev = cur;
		cur = next;
		PIN(H.mx, H.mn, H.cnt, R.s, prev);
	}
	if (j + 1 < J) {
		hchunk16(cond, prev, cur, lastv, all, p + j * HW, &H, &R);
		prev = cur;
		cur = lastv;
		j++;
	}
	hchunk16(cond, prev, cur, torus ? first : VSET1(0), torus ? all : simde_mm256_insert_epi16(all, 0, 15), p + j * HW,
	         &H, &R);
	hmerge(&H, &R);
	REGS_OUT(A, R);
	acc_flush(A, J);
}
typedef void (*lone_fn)(int32_t *, int64_t, int, acc *);
#define LONES(k) \
	static void lone16_##k(int32_t *p, int64_t n, int torus, acc *A) { lone16(k, p, n, torus, A); }
LONES(0) LONES(1) LONES(2) LONES(3) LONES(4) LONES(5)
static const lone_fn lones[1][LBT_NCOND] = {{lone16_0, lone16_1, lone16_2, lone16_3, lone16_4, lone16_5}};

#endif

/* lm.c — the Liquid model (seed 000, Table 1, Definition 1) as a fused vector
 * kernel: one step, all D substeps, in about one pass over the load array.
 * Compiled once per ISA target (see simd.h); checked bit for bit against
 * kernels/ref/lm.c by tests/checkasm/lm.c.
 *
 * Fusion. Substep d only mixes PEs along axis d, so a step factors by slabs:
 * slab r of the first active axis a (all PEs with i_a = r) gets its axis-a
 * update from the OLD slabs r-2..r+1, and after that the substeps of the
 * inner axes touch nothing outside slab r. So the kernel rolls over axis a:
 * for r = 0, 1, ... it saves old slab r in a ring of two slab buffers (slabs
 * r+1 and r+2 still need it), writes slab r's axis-a update in place, and
 * runs the inner axes on slab r the same way, recursively, while slab r is
 * still in cache. Old slabs beyond the ends are read in place (the wrap of
 * a torus) or copied once; the grid's halo cells are never used.
 *
 * Rows. When rows are whole vectors (frow_impl), the last two substeps of a
 * row happen in registers: the outer-axis update of vector j+1 just before
 * the row update of vector j, neighbours along the row by lane permutes. A
 * roll over such rows (a 2-D grid, or a plane of one in 3-D and up) keeps
 * its counters in registers from row to row (plane_impl); in 3-D and up,
 * the update along the axis before the plane runs a row ahead of it. Other
 * rows take the outer-axis update into a row buffer B with its own halo and
 * the row update from B (vrow_impl, hrow_impl). The last writer of a PE also
 * counts what moved and the max, min and total of the state it leaves, so
 * the driver needs no extra pass. With AVX-512, a roll over rows takes each
 * row whose loads fit in int16 or int8 lanes that way ("Narrow rows" below),
 * and a ring (1-D) whose loads all fit does too (lone_top); with AVX2, int16
 * lanes only, and lm_steps keeps such a ring in them for several steps
 * (ring16_impl).
 *
 * Conditions. With integer loads, "l > 0 and l >= l_next" is l >= max(l_next, 1)
 * (C5), and C3 is l >= max(l_next, 2); a PE's new load is l - C_i + C_{i-1}.
 * Mesh boundaries: a missing predecessor reads as a PE with load 0 (every
 * condition is false for it, and C2's "L_{i-1} > 1" is false too), which is
 * exactly the reference's rule; the last PE of a mesh axis has its C masked.
 * Cells outside the PEs are never changed.
 *
 * Threads. The first active axis is cut into one contiguous range of slabs
 * per thread. Before anyone writes, each thread copies the old slabs its
 * range needs from its neighbours' ranges (r0-2, r0-1 and r1); after a
 * barrier all ranges run independently. Every sum is an exact integer sum,
 * so the result is the same for any thread count.
 *
 * Ranks. A view cut between ranks (lbt_cut) along its first active axis is
 * rolled like a thread's range: the old slabs around the block are the
 * halo's, filled by the comm layer before anything is written, and whether
 * a neighbouring slab exists is decided by global coordinates (a mesh ends
 * only at global 0 and N-1). A cut along the last axis (a 1-D torus) takes
 * the reference. The statistics are the block's; the engine reduces them. */
#include <stdlib.h>
#include <string.h>

#include "simd.h"
#include "../team.h"

/* Counters a thread accumulates. The row functions copy them into registers
 * and back once per row; cnt (int32 lanes) is flushed into moved well
 * before a lane could overflow. */
typedef struct {
	V mx, mn;        /* max, min */
	V s, h;          /* the total, as s and h of simd.h's exact sums */
	V cnt;           /* shifts counted per lane */
	int64_t pending; /* additions per lane since the last flush, at most */
	int64_t moved, total;
} acc;

/* Rows flush their registers every SEG chunks, and acc_flush every 2 SEG. */
enum { SEG = 16384 };
#define LBT_SIMD_MAXT 4096 /* threads a step may use (lbtorus run allows 1..4096) */
static void regs_flush(V s, V h, V cnt, acc *A);

static void acc_flush(acc *A, int64_t more)
{
	A->pending += more < SEG ? more : SEG;
	if (A->pending >= 32768) { /* well before 65536 */
		A->moved += vsum32(A->cnt);
		A->total += vtotal(A->s, A->h);
		A->cnt = A->s = A->h = VSET1(0);
		A->pending = 0;
	}
}

/* Empty the sum and count registers of a long row into A. */
static __attribute__((noinline)) void regs_flush(V s, V h, V cnt, acc *A)
{
	A->moved += vsum32(cnt);
	A->total += vtotal(s, h);
}
/* A prefetch of the cell `ahead` cells after p, which may lie past the
 * row's end (a prefetch never faults): the address made as an integer, so
 * no pointer points outside its array. */
#define PREFETCH(p, ahead) __builtin_prefetch((const void *)((uintptr_t)(p) + (uintptr_t)(ahead) * sizeof *(p)))
#define SEG_FLUSH(R, A) (regs_flush((R).s, (R).h, (R).cnt, (A)), (R).s = (R).h = (R).cnt = VSET1(0))

/* C_i given (L_{i-1}, L_i, L_{i+1}), lane by lane; cond is a constant after inlining. */
static ALWAYS_INLINE M shift_cond(const int cond, V lp, V l, V ln)
{
	const V one = VSET1(1), two = VSET1(2);
	switch (cond) {
	case LBT_C0: return MGT(l, VSET1(0));
	case LBT_C1: return MGT(l, one);
	case LBT_C2: return MOR(MGT(l, one), MAND(MEQ(l, one), MGT(lp, one)));
	case LBT_C3: return MGE(l, VMAX(ln, two));
	case LBT_C4: return MAND(MOR(MGT(l, one), MAND(MEQ(l, one), MGT(lp, one))), MGE(l, ln));
	default:     return MGE(l, VMAX(ln, one)); /* C5 */
	}
}

/* Keeps loop-carried vectors in their registers: GCC 12 otherwise copies
 * them around every round of the fused row loop (about 5% of its time).
 * (avx512emu's 512-bit vectors are no register's: nothing to pin.) */
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__)) && (W < 16 || defined(__AVX512F__))
#define PIN(a, b, c, d, e) __asm__("" : "+v"(a), "+v"(b), "+v"(c), "+v"(d), "+v"(e))
#else
#define PIN(a, b, c, d, e) ((void)0)
#endif

/* Registers of one row call: the accumulators and the outer-axis operands. */
typedef struct {
	V mx, mn, s, h, cnt;
} regs;
#define REGS_IN(A) {(A)->mx, (A)->mn, (A)->s, (A)->h, (A)->cnt}
#define REGS_OUT(A, R) ((A)->mx = (R).mx, (A)->mn = (R).mn, (A)->s = (R).s, (A)->h = (R).h, (A)->cnt = (R).cnt)

static ALWAYS_INLINE void stats_add(regs *R, V x)
{
	R->mx = VMAX(R->mx, x);
	R->mn = VMIN(R->mn, x);
	R->s = VADD(R->s, x);
	R->h = VADD(R->h, VSRL16(x));
}
static ALWAYS_INLINE void stats_add_masked(regs *R, M valid, V x)
{
	R->mx = VMAX(R->mx, VSEL(valid, x, VSET1(INT32_MIN)));
	R->mn = VMIN(R->mn, VSEL(valid, x, VSET1(INT32_MAX)));
	x = VSEL(valid, x, VSET1(0));
	R->s = VADD(R->s, x);
	R->h = VADD(R->h, VSRL16(x));
}

/* The outer-axis update of chunk i: old rows m2, m1, p0, p1 (i-2 .. i+1 on
 * that axis) give p0's new chunk; the old chunk goes to save first. */
static ALWAYS_INLINE V vchunk(const int cond, const int32_t *m2, const int32_t *m1, const int32_t *p0,
                              const int32_t *p1, int32_t *save, int64_t i, M nm, regs *R)
{
	V a = VLOAD(m2 + i), b = VLOAD(m1 + i), l = VLOAD(p0 + i), d = VLOAD(p1 + i);
	VSTORE(save + i, l);
	M cp = shift_cond(cond, a, b, l);
	M cs = MAND(shift_cond(cond, b, l, d), nm);
	R->cnt = VINC(R->cnt, cs);
	return VINC(VDEC(l, cs), cp);
}

/* The last-axis update of chunk cur, between its neighbours prev and next. */
static ALWAYS_INLINE V hchunk(const int cond, V prev, V cur, V next, M linked, regs *R)
{
	V a = SHL2(prev, cur), b = SHL1(prev, cur), d = SHR1(cur, next);
	M cp = shift_cond(cond, a, b, cur);
	M cs = MAND(shift_cond(cond, b, cur, d), linked);
	R->cnt = VINC(R->cnt, cs);
	return VINC(VDEC(cur, cs), cp);
}

/* Substep of an outer axis on one row of n PEs, into out (p0 itself or the
 * row buffer B). Old row i is saved to `save` (which may be m2: each chunk
 * is read first). With `stats` this is the last substep of the step. */
static ALWAYS_INLINE void vrow_impl(const int cond, const int stats, const int32_t *m2, const int32_t *m1,
                                    const int32_t *p0, const int32_t *p1, int32_t *save, int32_t *out,
                                    int64_t n, int has_next, acc *A)
{
	const M nm = has_next ? MALL : MNONE;
	regs R = REGS_IN(A);
	int64_t i = 0;
	while (i + W <= n) { /* segments of SEG chunks, the registers emptied between them */
		const int64_t lim = n - W < i + (SEG - 1) * W ? n - W : i + (SEG - 1) * W;
		for (; i <= lim; i += W) {
			V x = vchunk(cond, m2, m1, p0, p1, save, i, nm, &R);
			VSTORE(out + i, x);
			if (stats)
				stats_add(&R, x);
			PIN(R.mx, R.mn, R.s, R.h, R.cnt);
		}
		if (i + W <= n)
			SEG_FLUSH(R, A);
	}
	if (i < n) { /* the last, partial chunk: lanes >= n keep what they held */
		const M valid = MFIRST(n - i);
		V l = VLOAD(p0 + i);
		V x = VSEL(valid, vchunk(cond, m2, m1, p0, p1, save, i, MAND(nm, valid), &R), l);
		VSTORE(out + i, x);
		if (stats)
			stats_add_masked(&R, valid, x);
	}
	REGS_OUT(A, R);
	acc_flush(A, n / W + 1);
}

/* Substep of the last (contiguous) axis from B to out. The neighbours of
 * the row's ends: for a torus whose n is a whole number of chunks, the
 * row's own last and first chunks (in registers); for other tori, B's halo
 * cells B[-2], B[-1], B[n], B[n+1] (filled by the caller); for a mesh, zeros. */
static ALWAYS_INLINE void hrow_impl(const int cond, const int32_t *B, int32_t *out, int64_t n, int torus, acc *A)
{
	regs R = REGS_IN(A);
	const int whole = n % W == 0;
	V prev = !torus ? VSET1(0) : whole ? VLOAD(B + n - W) : VLOAD(B - W);
	V cur = VLOAD(B), first = cur; /* kept: B may be out itself (lone_row) */
	int64_t i = 0;
	while (i + W < n) { /* every chunk before the one holding PE n-1, in segments of SEG */
		const int64_t lim = n - W - 1 < i + (SEG - 1) * W ? n - W - 1 : i + (SEG - 1) * W;
		for (; i <= lim; i += W) {
			V next = VLOAD(B + i + W);
			V x = hchunk(cond, prev, cur, next, MALL, &R);
			VSTORE(out + i, x);
			stats_add(&R, x);
			prev = cur;
			cur = next;
			PIN(R.mx, R.mn, R.s, R.h, R.cnt);
		}
		if (i + W < n)
			SEG_FLUSH(R, A);
	}
	const M valid = MFIRST(n - i), linked = torus ? valid : MFIRST(n - 1 - i);
	V next = !torus ? VSET1(0) : whole ? first : VLOAD(B + i + W);
	V x = VSEL(valid, hchunk(cond, prev, cur, next, linked, &R), VLOAD(out + i));
	VSTORE(out + i, x);
	stats_add_masked(&R, valid, x);
	REGS_OUT(A, R);
	acc_flush(A, n / W + 1);
}

/* Both substeps of a 2-D step for one row of n = a whole number of chunks,
 * in registers: the outer-axis update of chunk j+1 is made just before the
 * row update of chunk j needs it; chunks 0 and J-1 are made first, as the
 * torus neighbours of the row's ends. Writes p0 in place: chunk j is stored
 * after chunk j+1 was read.
 *
 * Rows of at most SEG chunks: the registers are flushed after the row.
 *
 * Along the outer axis C_{i-1} of row i is C_i of row i-1: with have_cp it
 * comes from cpb, where the previous row left its C_i, so the row reads only
 * old rows i and i+1 (and i-1 for C2 and C4, whose C_i looks at L_{i-1}),
 * and the ring needs saving only for C2 and C4. */
static ALWAYS_INLINE V fchunk(const int cond, const int have_cp, const int32_t *m2, const int32_t *m1,
                              const int32_t *p0, const int32_t *p1, int32_t *save, int64_t j, M nm, M *cpb,
                              regs *R)
{
	const int64_t i = j * W;
	const int lp = cond == LBT_C2 || cond == LBT_C4;
	V l = VLOAD(p0 + i), d = VLOAD(p1 + i);
	/* The successor row 32 vectors ahead: on rows of 4096 PEs and a grid
	 * beyond the caches the hardware prefetcher alone left the step waiting
	 * for these loads (4096x4096 20 % faster with it, C4 40 %; no change
	 * on 128 or 1024 PEs). */
	PREFETCH(p1 + i, 32 * W);
	V b = lp ? VLOAD(m1 + i) : l;
	M cp = have_cp ? cpb[j] : shift_cond(cond, VLOAD(m2 + i), VLOAD(m1 + i), l);
	if (lp)
		VSTORE(save + i, l);
	M cs = MAND(shift_cond(cond, b, l, d), nm);
	cpb[j] = cs;
	R->cnt = VINC(R->cnt, cs);
	return VINC(VDEC(l, cs), cp);
}

static ALWAYS_INLINE void frow_body(const int cond, const int have_cp, const int32_t *m2, const int32_t *m1,
                                    int32_t *p0, const int32_t *p1, int32_t *save, int64_t n, int has_next,
                                    int torus, M *cpb, regs *RR)
{
	const M nm = has_next ? MALL : MNONE;
	regs R = *RR;
	const int64_t J = n / W;
	V first = fchunk(cond, have_cp, m2, m1, p0, p1, save, 0, nm, cpb, &R);
	V lastv = J > 1 ? fchunk(cond, have_cp, m2, m1, p0, p1, save, J - 1, nm, cpb, &R) : first;
	V prev = torus ? lastv : VSET1(0), cur = first;
	int64_t j = 0;
	for (; j + 4 < J; j += 3) { /* by three: prev, cur, next rotate without copies */
		V n1 = fchunk(cond, have_cp, m2, m1, p0, p1, save, j + 1, nm, cpb, &R);
		V x = hchunk(cond, prev, cur, n1, MALL, &R);
		VSTORE(p0 + j * W, x);
		stats_add(&R, x);
		V n2 = fchunk(cond, have_cp, m2, m1, p0, p1, save, j + 2, nm, cpb, &R);
		x = hchunk(cond, cur, n1, n2, MALL, &R);
		VSTORE(p0 + (j + 1) * W, x);
		stats_add(&R, x);
		V n3 = fchunk(cond, have_cp, m2, m1, p0, p1, save, j + 3, nm, cpb, &R);
		x = hchunk(cond, n1, n2, n3, MALL, &R);
		VSTORE(p0 + (j + 2) * W, x);
		stats_add(&R, x);
		prev = n2;
		cur = n3;
		PIN(R.mx, R.mn, R.s, R.h, R.cnt);
	}
	for (; j + 2 < J; j++) {
		V next = fchunk(cond, have_cp, m2, m1, p0, p1, save, j + 1, nm, cpb, &R);
		V x = hchunk(cond, prev, cur, next, MALL, &R);
		VSTORE(p0 + j * W, x);
		stats_add(&R, x);
		prev = cur;
		cur = next;
		PIN(R.mx, R.mn, R.s, R.h, R.cnt);
	}
	if (j + 1 < J) {
		V x = hchunk(cond, prev, cur, lastv, MALL, &R);
		VSTORE(p0 + j * W, x);
		stats_add(&R, x);
		prev = cur;
		cur = lastv;
		j++;
	}
	V x = hchunk(cond, prev, cur, torus ? first : VSET1(0), torus ? MALL : MFIRST(W - 1), &R);
	VSTORE(p0 + j * W, x);
	stats_add(&R, x);
	*RR = R;
}

static ALWAYS_INLINE void frow_impl(const int cond, const int have_cp, const int32_t *m2, const int32_t *m1,
                                    int32_t *p0, const int32_t *p1, int32_t *save, int64_t n, int has_next,
                                    int torus, M *cpb, acc *A)
{
	regs R = REGS_IN(A);
	frow_body(cond, have_cp, m2, m1, p0, p1, save, n, has_next, torus, cpb, &R);
	REGS_OUT(A, R);
	acc_flush(A, 2 * (n / W));
}

#if W == 16
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

#elif W == 8
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

#endif

#if W == 16 || W == 8
/* The narrow rows' counters, int16 lanes but for the total (int32 pairs,
 * into the exact sums' s): merged into the int32 registers by hmerge
 * whenever the roll flushes, before an int16 count could overflow. */
typedef struct {
	V mx, mn, cnt;
	int used; /* a narrow row ran since the last merge (else mn's 32767 is no load) */
} hregs;
#define HREGS_EMPTY {HSET1(INT16_MIN), HSET1(INT16_MAX), HSET1(0), 0}
static ALWAYS_INLINE void hmerge(hregs *H, regs *R)
{
	if (!H->used)
		return;
	R->mx = VMAX(R->mx, VMAX(HWIDEN(H->mx, 0), HWIDEN(H->mx, 1)));
	R->mn = VMIN(R->mn, VMIN(HWIDEN(H->mn, 0), HWIDEN(H->mn, 1)));
	R->cnt = VADD(R->cnt, HPAIRS(H->cnt));
	*H = (hregs)HREGS_EMPTY;
}
#endif

#if W == 16
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
static ALWAYS_INLINE V fchunk16(const int cond, const int buf, const int32_t *p0, const int16_t *pl,
                                const int32_t *p1, int16_t *pd, int64_t j, HM nm, M *cpb, M *gtb, V *cnt, V *top)
{
	V l = buf ? VLOAD(pl + j * HW) : hpack(VLOAD(p0 + j * HW), VLOAD(p0 + j * HW + W));
	if (!buf) /* long rows: the successor's loads 16 vectors ahead, as fchunk does */
		for (int c = 0; c < 2; c++)
			PREFETCH(p1 + j * HW, 16 * HW + c * W);
	V d = hpack(VLOAD(p1 + j * HW), VLOAD(p1 + j * HW + W));
	if (buf)
		VSTORE(pd + j * HW, d);
	*top = simde_mm512_max_epu16(*top, d); /* unsigned: a negative load would not fit */
	uint64_t cp;
	const HM cs = (HM)nhand_on(cond, 0, l, d, nm, j, cpb, gtb, &cp);
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
static ALWAYS_INLINE int frow16_body(const int cond, const int buf, int32_t *p0, const int16_t *pl,
                                     const int32_t *p1, int16_t *pd, int64_t n, int has_next, int torus, M *cpb,
                                     M *gtb, int bytes, hregs *H, regs *R)
{
	const HM nm = has_next ? (HM)0xffffffffu : 0;
	const int64_t J = n / HW;
	V top = HSET1(0);
	H->used = 1;
	V first = fchunk16(cond, buf, p0, pl, p1, pd, 0, nm, cpb, gtb, &H->cnt, &top);
	V lastv = J > 1 ? fchunk16(cond, buf, p0, pl, p1, pd, J - 1, nm, cpb, gtb, &H->cnt, &top) : first;
	V prev = torus ? lastv : VSET1(0), cur = first;
	int64_t j = 0;
	for (; j + 2 < J; j++) {
		V next = fchunk16(cond, buf, p0, pl, p1, pd, j + 1, nm, cpb, gtb, &H->cnt, &top);
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
	hchunk16(cond, prev, cur, torus ? first : VSET1(0), torus ? (HM)0xffffffffu : (HM)0x7fffffffu, p0 + j * HW, H, R);
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
 * successor's packed into pd (buf). res (lm_steps): the row is pl, its
 * successor pn (res 1 and 3, bytes already) or packed from p1 (res 2);
 * res 1 does not look at whether the successor fits (the caller knows). */
static ALWAYS_INLINE V fchunk8(const int cond, const int res, const int own, const int buf, const int32_t *p0,
                               const int8_t *pl, const int32_t *p1, const int8_t *pn, int8_t *pd, int64_t j, BM nm,
                               M *cpb, M *gtb, bregs *B, V *top)
{
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
	const BM cs = nhand_on(cond, 1, l, d, nm, j, cpb, gtb, &cp);
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
 * p1 unused) or is an int32 row (res 2: p1, pn unused). */
static ALWAYS_INLINE int frow8_body(const int cond, const int res, const int own, const int buf, int32_t *p0,
                                    const int8_t *pl, const int32_t *p1, const int8_t *pn, int8_t *pd, int64_t n,
                                    int has_next, int torus, M *cpb, M *gtb, bregs *B)
{
	const BM nm = has_next ? ~(BM)0 : 0;
	const int64_t J = n / BW;
	int8_t *const pb = (int8_t *)pl; /* res: in place */
	V top = BSET1(0);
	bcount_room(B, J);
	V first = fchunk8(cond, res, own, buf, p0, pl, p1, pn, pd, 0, nm, cpb, gtb, B, &top);
	V lastv = J > 1 ? fchunk8(cond, res, own, buf, p0, pl, p1, pn, pd, J - 1, nm, cpb, gtb, B, &top) : first;
	V prev = torus ? lastv : VSET1(0), cur = first;
	int64_t j = 0;
	for (; j + 2 < J; j++) {
		V next = fchunk8(cond, res, own, buf, p0, pl, p1, pn, pd, j + 1, nm, cpb, gtb, B, &top);
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
 * the narrow lanes saved (LM-C5, 262144 PEs: 4-12 % slower). */
enum { LONE_MAX_N = 1 << 16 };
#define VMAXU(a, b) simde_mm512_max_epu32((a), (b))
#define VABOVE(x, t) (simde_mm512_cmpgt_epu32_mask((x), VSET1(t)) != 0) /* a lane of x above t, unsigned */

/* hrow_impl on a lone row of n = a whole number of narrow chunks whose
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
#elif W == 8
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
static ALWAYS_INLINE int frow16_body(const int cond, int32_t *p0, const int32_t *p1, int64_t n, int has_next, int torus,
                                     M *cpb, M *gtb, hregs *H, regs *R)
{
	const V all = VSET1(-1), nm = has_next ? all : VSET1(0);
	const int64_t J = n / HW;
	V top = HSET1(0);
	H->used = 1;
	const V first = fchunk16(cond, p0, p1, 0, nm, cpb, gtb, &H->cnt, &top);
	const V lastv = J > 1 ? fchunk16(cond, p0, p1, J - 1, nm, cpb, gtb, &H->cnt, &top) : first;
	V prev = torus ? lastv : VSET1(0), cur = first;
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
	hchunk16(cond, prev, cur, torus ? first : VSET1(0), torus ? all : simde_mm256_insert_epi16(all, 0, 15),
	         p0 + j * HW, H, R);
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

/* One step of a ring (a 1-D grid) of n = a whole number of narrow chunks,
 * its loads kept in the int16 ring b between steps (lm_steps): lone16 with
 * no packing and no widening. Its counts and statistics into *out. */
static ALWAYS_INLINE void ring16_impl(const int cond, int16_t *b, int64_t n, int torus, lbt_counts *out)
{
	const int64_t J = n / HW;
	const V all = VSET1(-1);
	regs R = {VSET1(INT32_MIN), VSET1(INT32_MAX), VSET1(0), VSET1(0), VSET1(0)};
	hregs H = HREGS_EMPTY;
	H.used = 1;
	const V first = VLOAD(b), lastv = VLOAD(b + (J - 1) * HW);
	V prev = torus ? lastv : VSET1(0), cur = first;
	int64_t j = 0;
	for (; j + 2 < J; j++) {
		V next = VLOAD(b + (j + 1) * HW);
		VSTORE(b + j * HW, hnew16(cond, prev, cur, next, all, &H, &R));
		prev = cur;
		cur = next;
		PIN(H.mx, H.mn, H.cnt, R.s, prev);
	}
	if (j + 1 < J) {
		VSTORE(b + j * HW, hnew16(cond, prev, cur, lastv, all, &H, &R));
		prev = cur;
		cur = lastv;
		j++;
	}
	VSTORE(b + j * HW, hnew16(cond, prev, cur, torus ? first : VSET1(0),
	                          torus ? all : simde_mm256_insert_epi16(all, 0, 15), &H, &R));
	hmerge(&H, &R);
	*out = (lbt_counts){.moved = vsum32(R.cnt), .total = vtotal(R.s, R.h), .max = vmax32(R.mx), .min = vmin32(R.mn),
	                    .shifts = 1, .has_stats = 1};
}
typedef void (*ring_fn)(int16_t *, int64_t, int, lbt_counts *);
#define RINGS(k) \
	static void ring16_##k(int16_t *b, int64_t n, int torus, lbt_counts *out) { ring16_impl(k, b, n, torus, out); }
RINGS(0) RINGS(1) RINGS(2) RINGS(3) RINGS(4) RINGS(5)
static const ring_fn rings[LBT_NCOND] = {ring16_0, ring16_1, ring16_2, ring16_3, ring16_4, ring16_5};
#endif

#if W == 16 || W == 8
/* The unsigned maximum of the n loads at p (a negative load would not fit),
 * or of a prefix of them once that is above HTOP: the pass stops after
 * the first block of 8 vectors with such a load. */
static V lone_top(const int32_t *p, int64_t n)
{
	V t0 = VSET1(0), t1 = t0, t2 = t0, t3 = t0;
	int64_t i = 0;
	for (; i + 8 * W <= n; i += 8 * W) {
		t0 = VMAXU(t0, VMAXU(VLOAD(p + i), VLOAD(p + i + W)));
		t1 = VMAXU(t1, VMAXU(VLOAD(p + i + 2 * W), VLOAD(p + i + 3 * W)));
		t2 = VMAXU(t2, VMAXU(VLOAD(p + i + 4 * W), VLOAD(p + i + 5 * W)));
		t3 = VMAXU(t3, VMAXU(VLOAD(p + i + 6 * W), VLOAD(p + i + 7 * W)));
		const V m = VMAXU(VMAXU(t0, t1), VMAXU(t2, t3));
		if (VABOVE(m, HTOP))
			return m;
	}
	for (; i < n; i += W)
		t0 = VMAXU(t0, VLOAD(p + i));
	return VMAXU(VMAXU(t0, t1), VMAXU(t2, t3));
}
#endif

/* One specialization per condition (and per stats flag), chosen by table. */
typedef void (*vrow_fn)(const int32_t *, const int32_t *, const int32_t *, const int32_t *, int32_t *, int32_t *,
                        int64_t, int, acc *);
typedef void (*hrow_fn)(const int32_t *, int32_t *, int64_t, int, acc *);
typedef void (*frow_fn)(const int32_t *, const int32_t *, int32_t *, const int32_t *, int32_t *, int64_t, int, int,
                        M *, acc *);
#define ROWS(k)                                                                                               \
	static void vrow_##k(const int32_t *m2, const int32_t *m1, const int32_t *p0, const int32_t *p1,      \
	                     int32_t *save, int32_t *out, int64_t n, int has_next, acc *A)                    \
	{ vrow_impl(k, 0, m2, m1, p0, p1, save, out, n, has_next, A); }                                       \
	static void vrow_stats_##k(const int32_t *m2, const int32_t *m1, const int32_t *p0, const int32_t *p1, \
	                           int32_t *save, int32_t *out, int64_t n, int has_next, acc *A)              \
	{ vrow_impl(k, 1, m2, m1, p0, p1, save, out, n, has_next, A); }                                       \
	static void hrow_##k(const int32_t *B, int32_t *out, int64_t n, int torus, acc *A)                     \
	{ hrow_impl(k, B, out, n, torus, A); }                                                                \
	static void frow_##k(const int32_t *m2, const int32_t *m1, int32_t *p0, const int32_t *p1,            \
	                     int32_t *save, int64_t n, int has_next, int torus, M *cpb, acc *A)               \
	{ frow_impl(k, 0, m2, m1, p0, p1, save, n, has_next, torus, cpb, A); }                                \
	static void frow_cp_##k(const int32_t *m2, const int32_t *m1, int32_t *p0, const int32_t *p1,         \
	                        int32_t *save, int64_t n, int has_next, int torus, M *cpb, acc *A)            \
	{ frow_impl(k, 1, m2, m1, p0, p1, save, n, has_next, torus, cpb, A); }
ROWS(0) ROWS(1) ROWS(2) ROWS(3) ROWS(4) ROWS(5)
static const vrow_fn vrows[LBT_NCOND] = {vrow_0, vrow_1, vrow_2, vrow_3, vrow_4, vrow_5};
static const vrow_fn vrows_stats[LBT_NCOND] = {vrow_stats_0, vrow_stats_1, vrow_stats_2,
                                               vrow_stats_3, vrow_stats_4, vrow_stats_5};
static const hrow_fn hrows[LBT_NCOND] = {hrow_0, hrow_1, hrow_2, hrow_3, hrow_4, hrow_5};
static const frow_fn frows[LBT_NCOND] = {frow_0, frow_1, frow_2, frow_3, frow_4, frow_5};
static const frow_fn frows_cp[LBT_NCOND] = {frow_cp_0, frow_cp_1, frow_cp_2, frow_cp_3, frow_cp_4, frow_cp_5};

struct kctx;
/* vslab_impl, per condition and stats flag */
typedef void (*vslab_fn)(const struct kctx *, int, const int32_t *, const int32_t *, int32_t *, const int32_t *,
                         int32_t *, int, acc *);

/* What every thread shares: the view, and per axis a the offset from a
 * slab's first PE back to the start of its memory (slabs are copied whole). */
typedef struct kctx {
	const lbt_view *v;
	int last;           /* D - 1 */
	int cond;
	int64_t lo[8], N[8]; /* per axis: the global coordinate of local 0, the global extent */
	int next[8];        /* next active axis after a (-1: none) */
	int64_t back[8];    /* cells from slab origin back to the slab's first cell */
	vrow_fn vrow, vrow_stats;
	hrow_fn hrow;
	frow_fn frow, frow_cp;
	const int32_t *zrow; /* a zeroed row: the missing neighbours of a mesh */
	vslab_fn vslab, vslab_stats;
} kctx;

/* A thread's buffers, per outer axis: two old slabs (the ring) and the old
 * slab after the range it rolls over (next); the row buffer B and cpb.
 * Origins, like grid pointers. */
typedef struct {
	int32_t *ring[8][2];
	int32_t *next[8];
	int32_t *B;
	M *cpb;          /* a row's C along the outer axis, for the next row (frow) */
#if W == 16
	int16_t *pk[2];  /* rows of at most NARROW_BUF PEs: old rows packed to int16, by parity */
#endif
#if W == 16 || W == 8
	M *gtb;          /* C2, C4: a narrow row's "L > 1", for the next row (fchunk16, fchunk8) */
#endif
	acc A;
	acc Ax;          /* the counts of the outer axis's rows run ahead of a plane (ahead_row) */
} kthread;


/* vrow_impl on a row of n PEs, in place (out = p0), with no segments: the
 * caller empties the registers (vslab_impl). */
static ALWAYS_INLINE void vrow_regs(const int cond, const int stats, const int32_t *m2, const int32_t *m1, int32_t *p0,
                                    const int32_t *p1, int32_t *save, int64_t n, M nm, regs *R)
{
	int64_t i = 0;
	for (; i + W <= n; i += W) {
		V x = vchunk(cond, m2, m1, p0, p1, save, i, nm, R);
		VSTORE(p0 + i, x);
		if (stats)
			stats_add(R, x);
	}
	if (i < n) { /* the last, partial chunk: lanes >= n keep what they held */
		const M valid = MFIRST(n - i);
		V l = VLOAD(p0 + i);
		V x = VSEL(valid, vchunk(cond, m2, m1, p0, p1, save, i, MAND(nm, valid), R), l);
		VSTORE(p0 + i, x);
		if (stats)
			stats_add_masked(R, valid, x);
	}
}

/* The update along outer axis a of every row of a slab (origin p0; its
 * rows by the odometer over axes a+1 .. D-2; old slabs m2, m1, p1, NULL
 * beyond a mesh edge) in one call, the registers kept from row to row: in
 * 3-D and up with a short last axis, a call per row and its register
 * traffic cost more than the row's work. Rows of at most SEG - 1 chunks;
 * the registers are emptied before SEG chunks' additions. */
static ALWAYS_INLINE void vslab_impl(const int cond, const int stats, const kctx *k, int a, const int32_t *m2,
                                     const int32_t *m1, int32_t *p0, const int32_t *p1, int32_t *save, int has_next,
                                     acc *A)
{
	const lbt_view *v = k->v;
	const int last = k->last;
	const int64_t n = v->ext[last], per = n / W + 1;
	const M nm = has_next ? MALL : MNONE;
	regs R = REGS_IN(A);
	int64_t adds = 0, c[8] = {0};
	for (;;) {
		int64_t o = 0;
		for (int d = a + 1; d < last; d++)
			o += c[d] * v->stride[d];
		if (adds + per > SEG) {
			SEG_FLUSH(R, A);
			A->pending = 0; /* the registers, R's, are empty */
			adds = 0;
		}
		vrow_regs(cond, stats, m2 ? m2 + o : k->zrow, m1 ? m1 + o : k->zrow, p0 + o, p1 ? p1 + o : k->zrow, save + o, n,
		          nm, &R);
		adds += per;
		int d = last - 1;
		while (d > a && ++c[d] == v->ext[d])
			c[d--] = 0;
		if (d == a)
			break;
	}
	REGS_OUT(A, R);
	acc_flush(A, adds);
}
#define SLABS(k)                                                                                                    \
	static void vslab_##k(const kctx *x, int a, const int32_t *m2, const int32_t *m1, int32_t *p0,                  \
	                      const int32_t *p1, int32_t *save, int has_next, acc *A)                                   \
	{ vslab_impl(k, 0, x, a, m2, m1, p0, p1, save, has_next, A); }                                                  \
	static void vslab_stats_##k(const kctx *x, int a, const int32_t *m2, const int32_t *m1, int32_t *p0,            \
	                            const int32_t *p1, int32_t *save, int has_next, acc *A)                             \
	{ vslab_impl(k, 1, x, a, m2, m1, p0, p1, save, has_next, A); }
SLABS(0) SLABS(1) SLABS(2) SLABS(3) SLABS(4) SLABS(5)
static const vslab_fn vslabs[2][LBT_NCOND] = {{vslab_0, vslab_1, vslab_2, vslab_3, vslab_4, vslab_5},
                                              {vslab_stats_0, vslab_stats_1, vslab_stats_2, vslab_stats_3,
                                               vslab_stats_4, vslab_stats_5}};

/* The row buffer's halo, for a torus whose n is not a whole number of
 * chunks (hrow_impl makes the others in registers). */
static void row_halo(int32_t *B, int64_t n, int torus)
{
	if (torus && n % W) {
		B[-1] = B[n - 1];
		B[-2] = B[n >= 2 ? n - 2 : 0];
		B[n] = B[0];
		B[n + 1] = B[n >= 2 ? 1 : 0];
	}
}

static void roll(const kctx *k, kthread *t, int a, int32_t *base, int64_t q0, int64_t q1, int direct);
/* In 3-D and up, a plane of rows (slab of the axis before the rows' outer
 * axis) gets its update along that axis a row at a time, just before the
 * roll along the plane reads the row: each row is updated along all three
 * axes while it is in L1. The plane's old slabs along that axis; NULL
 * beyond a mesh edge. */
typedef struct {
	const int32_t *m2, *m1, *p1;
	int32_t *p0, *save;
	int64_t sb; /* from one row of the plane to the next */
	int has_next;
} ahead;
static void ahead_row(const kctx *k, kthread *t, const ahead *x, int64_t j)
{
	const int64_t o = j * x->sb;
	k->vrow(x->m2 ? x->m2 + o : k->zrow, x->m1 ? x->m1 + o : k->zrow, x->p0 + o, x->p1 ? x->p1 + o : k->zrow,
	        x->save + o, x->p0 + o, k->v->ext[k->last], x->has_next, &t->Ax);
}

static void plane(const kctx *k, kthread *t, int a, int32_t *base, int64_t q0, int64_t q1, int direct, const ahead *x);
static inline void roll_one(const kctx *k, kthread *t, int a, int32_t *base, int64_t q0, int64_t q1, int direct, int64_t q);
static void copy_slab(const kctx *k, int a, int32_t *dst, const int32_t *src);
static int64_t wrap(int64_t i, int64_t n) { return i < 0 ? i + n : i >= n ? i - n : i; }
/* Is there a slab at local coordinate x of axis a (a torus wraps; a mesh ends at global 0 and N-1)? */
static ALWAYS_INLINE int exists(const kctx *k, int a, int64_t x)
{
	return k->v->torus[a] || (k->lo[a] + x >= 0 && k->lo[a] + x < k->N[a]);
}

/* Slab (origin p0) of axis a: its update along a from old m2, m1, p0, p1,
 * then the inner axes. The slab's rows are visited with an odometer over
 * axes a+1 .. D-2. */
static void slab(const kctx *k, kthread *t, int a, const int32_t *m2, const int32_t *m1, int32_t *p0,
                 const int32_t *p1, int32_t *save, int has_next, int have_cp)
{
	const lbt_view *v = k->v;
	const int last = k->last, nb = k->next[a];
	const int64_t n = v->ext[last];
	/* NULL: an old slab beyond a mesh edge, read as rows of zeros */
	const int32_t *z2 = m2 ? m2 : k->zrow, *z1 = m1 ? m1 : k->zrow, *zp = p1 ? p1 : k->zrow;
	if (nb == last && a + 1 == last && n % W == 0 && n / W <= SEG) { /* one row of whole chunks: in registers */
		(have_cp ? k->frow_cp : k->frow)(z2, z1, p0, zp, save, n, has_next, v->torus[last], t->cpb, &t->A);
		return;
	}
	if (nb == last && a + 1 == last) { /* the slab is one row: through B, then along the row */
		k->vrow(z2, z1, p0, zp, save, t->B, n, has_next, &t->A);
		row_halo(t->B, n, v->torus[last]);
		k->hrow(t->B, p0, n, v->torus[last], &t->A);
		return;
	}
	/* A plane of whole-chunk rows beyond the first level's cache:
	 * rolled along nb like a 2-D grid (plane_impl), with the axis-a update
	 * of each row run just ahead while it is in L1. A smaller plane takes
	 * the update along a first, all rows in one call, then the same roll
	 * (below). */
	enum { PLANE_AHEAD = 8192 }; /* cells */
	if (nb == last - 1 && a + 1 == nb && n % W == 0 && n / W <= SEG && v->ext[nb] * v->stride[nb] > PLANE_AHEAD) {
		const ahead x = {m2, m1, p1, p0, save, v->stride[nb], has_next};
		plane(k, t, nb, p0, 0, v->ext[nb], 1, &x);
		return;
	}
	if (nb != last && n / W < SEG) /* the slab's rows along a, in one call */
		(nb < 0 ? k->vslab_stats : k->vslab)(k, a, m2, m1, p0, p1, save, has_next, &t->A);
	else { /* a row at a time: through B, or rows too long for one segment */
		vrow_fn f = nb < 0 ? k->vrow_stats : k->vrow;
		int64_t c[8] = {0};
		for (;;) {
			int64_t o = 0;
			for (int d = a + 1; d < last; d++)
				o += c[d] * v->stride[d];
			const int32_t *r2 = m2 ? m2 + o : k->zrow, *r1 = m1 ? m1 + o : k->zrow, *rp = p1 ? p1 + o : k->zrow;
			if (nb == last) { /* inner axes of extent 1 between a and the row */
				k->vrow(r2, r1, p0 + o, rp, save + o, t->B, n, has_next, &t->A);
				row_halo(t->B, n, v->torus[last]);
				k->hrow(t->B, p0 + o, n, v->torus[last], &t->A);
			} else
				f(r2, r1, p0 + o, rp, save + o, p0 + o, n, has_next, &t->A);
			int d = last - 1;
			while (d > a && ++c[d] == v->ext[d])
				c[d--] = 0;
			if (d == a)
				break;
		}
	}
	if (nb >= 0 && nb != last) { /* the inner axis, in this slab, from its start */
		if (v->torus[nb])
			copy_slab(k, nb, t->next[nb], p0);
		roll(k, t, nb, p0, 0, v->ext[nb], 1);
	}
}

/* Roll over slabs q0..q1-1 of axis a inside the block whose origin is base.
 * Old slab q1 (wrapped on a torus) must be in t->next[a]; old slabs q0-2
 * and q0-1 either are still unchanged in place (direct: the roll starts the
 * block, or it is the only thread) or were copied into the ring. */
static ALWAYS_INLINE void roll_one(const kctx *k, kthread *t, int a, int32_t *base, int64_t q0, int64_t q1, int direct, int64_t q)
{
	const lbt_view *v = k->v;
	const int64_t n = v->ext[a], s = v->stride[a];
	const int32_t *m[2];
	for (int h = 0; h < 2; h++) { /* old slabs q-2, q-1 */
		int64_t x = q - 2 + h;
		m[h] = x >= q0 || (!direct && exists(k, a, x)) ? t->ring[a][x & 1]
		     : !exists(k, a, x) ? NULL : base + wrap(x, n) * s;
	}
	const int has_next = exists(k, a, q + 1);
	const int32_t *p1 = q + 1 < q1 ? base + (q + 1) * s : has_next ? t->next[a] : NULL;
	slab(k, t, a, m[0], m[1], base + q * s, p1, t->ring[a][q & 1], has_next, q > q0);
}

/* A roll over rows of whole chunks (a = D-2, or with x the rows of a plane
 * in 3-D and up): the first row as any slab, the others with the counters
 * in registers from row to row. */
static ALWAYS_INLINE void plane_impl(const int cond, const kctx *k, kthread *t, int a, int32_t *base, int64_t q0,
                                     int64_t q1, int direct, const ahead *x)
{
	const lbt_view *v = k->v;
	const int64_t s = v->stride[a], len = v->ext[k->last], J = len / W;
	const int row_torus = v->torus[k->last];
	if (x) { /* a whole plane (q0 = 0, q1 = its rows): the rows the roll reads first (0, 1 and, on a torus, q1-2, q1-1) go first */
		ahead_row(k, t, x, 0);
		ahead_row(k, t, x, 1);
		if (v->torus[a]) {
			for (int64_t j = q1 - 2 > 2 ? q1 - 2 : 2; j < q1; j++)
				ahead_row(k, t, x, j);
			copy_slab(k, a, t->next[a], base);
		}
	}
	roll_one(k, t, a, base, q0, q1, direct, q0);
	regs R = REGS_IN(&t->A);
	int64_t pend = 0;
#if W == 16
	const int narrow = len % HW == 0, lp = cond == LBT_C2 || cond == LBT_C4;
	/* Short rows keep the packed old row for the next row: fewer
	 * instructions. Long ones pack it again: with the buffer, a row's
	 * working set (two int32 rows, two packed rows) outgrew L1 at 4096 PEs
	 * and a 4096x4096 step ran 50% slower. In a plane of a 3-D grid the
	 * rows run ahead along the outer axis fill L1 as well: packing again
	 * measured as fast or faster on every size (256^3, C0, 60 steps: 0.61
	 * -> 0.45 s). */
	enum { NARROW_BUF = 2048 };
	const int buf = len <= NARROW_BUF && !x, bytes = narrow && len % BW == 0 && len <= BMAX_N;
	/* the class of row q (row_class); own8: pk[q & 1] holds it as bytes */
	int cls = narrow && q0 + 1 < q1 ? row_class(base + (q0 + 1) * s, buf ? t->pk[(q0 + 1) & 1] : NULL, len, bytes) : 0;
	int own8 = 0;
	if (lp && cls) /* row q0 went through frow (int32), which saved it */
		gt_from_row(t->gtb, t->ring[a][q0 & 1], len);
	hregs H = HREGS_EMPTY;
	bregs B = BREGS_EMPTY;
	int64_t wait = 0, backoff = 1; /* rows of big loads: try packing after 1, 2, 4, ... 16 rows */
#elif W == 8
	const int narrow = len % HW == 0, lp = cond == LBT_C2 || cond == LBT_C4;
	int cls = narrow && q0 + 1 < q1 ? row_class(base + (q0 + 1) * s, len) : 0;
	if (cls) { /* row q0 went through frow (int32), which saved it */
		cp_narrow(t->cpb, len, 1);
		if (lp)
			gt_from_row(t->gtb, t->ring[a][q0 & 1], len);
	}
	hregs H = HREGS_EMPTY;
	int64_t wait = 0, backoff = 1;
#endif
	for (int64_t q = q0 + 1; q < q1; q++) {
		if (x && q + 1 >= 2 && q + 1 < q1 && (!v->torus[a] || q + 1 < q1 - 2))
			ahead_row(k, t, x, q + 1);
		const int32_t *m1 = q - 1 >= q0 ? t->ring[a][(q - 1) & 1] : NULL; /* read by C2, C4 only */
		const int has_next = exists(k, a, q + 1);
		const int32_t *p1 = q + 1 < q1 ? base + (q + 1) * s : has_next ? t->next[a] : k->zrow;
#if W == 16
		int32_t *p0 = base + q * s;
		const int was = cls;
		if (cls == 2) {
			const int8_t *pl = (const int8_t *)t->pk[q & 1];
			int8_t *pd = (int8_t *)t->pk[(q + 1) & 1];
			const int next8 = !buf ? frow8_body(cond, 0, 0, 0, p0, NULL, p1, NULL, NULL, len, has_next, row_torus, t->cpb, t->gtb, &B)
			                : own8 ? frow8_body(cond, 0, 1, 1, p0, pl, p1, NULL, pd, len, has_next, row_torus, t->cpb, t->gtb, &B)
			                       : frow8_body(cond, 0, 0, 1, p0, NULL, p1, NULL, pd, len, has_next, row_torus, t->cpb, t->gtb, &B);
			own8 = next8 && buf;
			cls = next8 ? 2 : row_class(p1, buf ? t->pk[(q + 1) & 1] : NULL, len, 0);
		} else if (cls == 1) {
			cls = buf ? frow16_body(cond, 1, p0, t->pk[q & 1], p1, t->pk[(q + 1) & 1], len, has_next, row_torus,
			                        t->cpb, t->gtb, bytes, &H, &R)
			          : frow16_body(cond, 0, p0, NULL, p1, NULL, len, has_next, row_torus, t->cpb, t->gtb, bytes, &H, &R);
			own8 = 0;
		} else {
			frow_body(cond, 1, m1, m1, p0, p1, t->ring[a][q & 1], len, has_next, row_torus, t->cpb, &R);
			if (narrow && --wait < 0) {
				cls = row_class(p1, buf ? t->pk[(q + 1) & 1] : NULL, len, bytes);
				backoff = cls ? 1 : backoff < 16 ? 2 * backoff : 16;
				wait = cls ? 0 : backoff - 1;
			}
			own8 = 0;
		}
		/* C2 and C4 between row kinds: the next row reads this one's
		 * "L > 1" from gtb (narrow) or from its saved old row (int32) */
		if (lp && !was != !cls)
			(cls ? gt_from_row(t->gtb, t->ring[a][q & 1], len) : row_from_gt(t->ring[a][q & 1], t->gtb, len));
#elif W == 8
		int32_t *p0 = base + q * s;
		const int was = cls;
		if (cls)
			cls = frow16_body(cond, p0, p1, len, has_next, row_torus, t->cpb, t->gtb, &H, &R);
		else {
			frow_body(cond, 1, m1, m1, p0, p1, t->ring[a][q & 1], len, has_next, row_torus, t->cpb, &R);
			if (narrow && --wait < 0) {
				cls = row_class(p1, len);
				backoff = cls ? 1 : backoff < 16 ? 2 * backoff : 16;
				wait = cls ? 0 : backoff - 1;
			}
		}
		if (!was != !cls) { /* the next row reads cpb (and gtb) in its own format */
			cp_narrow(t->cpb, len, cls);
			if (lp)
				(cls ? gt_from_row(t->gtb, t->ring[a][q & 1], len) : row_from_gt(t->ring[a][q & 1], t->gtb, len));
		}
#else
		frow_body(cond, 1, m1, m1, base + q * s, p1, t->ring[a][q & 1], len, has_next, row_torus, t->cpb, &R);
#endif
		if ((pend += 2 * J) >= SEG) {
#if W == 16
			hmerge(&H, &R);
			bmerge(&B, &R, &t->A);
#elif W == 8
			hmerge(&H, &R);
#endif
			REGS_OUT(&t->A, R);
			acc_flush(&t->A, 2 * SEG); /* flushes */
			R = (regs)REGS_IN(&t->A);
			pend = 0;
		}
	}
#if W == 16
	hmerge(&H, &R);
	bmerge(&B, &R, &t->A);
#elif W == 8
	hmerge(&H, &R);
#endif
	REGS_OUT(&t->A, R);
	acc_flush(&t->A, pend);
}
/* Two instances per condition: 2-D rolls (no rows run ahead: x is NULL
 * at compile time, which keeps the 2-D loop as tight as before) and planes. */
typedef void (*plane_fn)(const kctx *, kthread *, int, int32_t *, int64_t, int64_t, int, const ahead *);
#define PLANE(c)                                                                                                   \
	static void plane2_##c(const kctx *k, kthread *t, int a, int32_t *base, int64_t q0, int64_t q1, int direct, \
	                       const ahead *x)                                                                      \
	{ (void)x; plane_impl(c, k, t, a, base, q0, q1, direct, NULL); }                                           \
	static void plane3_##c(const kctx *k, kthread *t, int a, int32_t *base, int64_t q0, int64_t q1, int direct, \
	                       const ahead *x)                                                                      \
	{ plane_impl(c, k, t, a, base, q0, q1, direct, x); }
PLANE(0) PLANE(1) PLANE(2) PLANE(3) PLANE(4) PLANE(5)
static const plane_fn planes[2][LBT_NCOND] = {{plane2_0, plane2_1, plane2_2, plane2_3, plane2_4, plane2_5},
                                              {plane3_0, plane3_1, plane3_2, plane3_3, plane3_4, plane3_5}};
static void plane(const kctx *k, kthread *t, int a, int32_t *base, int64_t q0, int64_t q1, int direct, const ahead *x)
{
	planes[x != NULL][k->cond](k, t, a, base, q0, q1, direct, x);
}

static void roll(const kctx *k, kthread *t, int a, int32_t *base, int64_t q0, int64_t q1, int direct)
{
	const int64_t len = k->v->ext[k->last];
	if (a + 1 == k->last && len >= 2 && len % W == 0 && len / W <= SEG) {
		plane(k, t, a, base, q0, q1, direct, NULL);
		return;
	}
	for (int64_t q = q0; q < q1; q++)
		roll_one(k, t, a, base, q0, q1, direct, q);
}

/* Copy the rows of PEs of a slab of axis a (whole chunks). */
static void copy_slab(const kctx *k, int a, int32_t *dst, const int32_t *src)
{
	const lbt_view *v = k->v;
	const int last = k->last;
	const size_t len = (size_t)((v->ext[last] + W - 1) / W * W) * sizeof *dst;
	int64_t c[8] = {0};
	for (;;) {
		int64_t o = 0;
		for (int d = a + 1; d < last; d++)
			o += c[d] * v->stride[d];
		memcpy(dst + o, src + o, len);
		int d = last - 1;
		while (d > a && ++c[d] == v->ext[d])
			c[d--] = 0;
		if (d == a)
			break;
	}
}

/* A lone row (the only active axis is the last): in place when it is whole
 * vectors (hrow_impl reads a vector before it writes the one before it, and
 * keeps the first), otherwise through B. */
static void lone_row(const kctx *k, kthread *t)
{
	const lbt_view *v = k->v;
	const int64_t n = v->ext[k->last];
#if W == 16 || W == 8
	/* 2: the loads fit a byte ring (AVX-512, n whole byte vectors), 1: int16 lanes, 0: neither */
	int cls = 0;
	if (n % HW == 0 && n <= LONE_MAX_N) {
		const V top = lone_top(v->load, n);
#if W == 16
		cls = VABOVE(top, HTOP) ? 0 : n % BW == 0 && !VABOVE(top, BTOP) ? 2 : 1;
#else
		cls = !VABOVE(top, HTOP);
#endif
	}
	if (cls) {
		lones[cls - 1][k->cond](v->load, n, v->torus[k->last], &t->A);
		return;
	}
#endif
	if (n % W == 0) {
		k->hrow(v->load, v->load, n, v->torus[k->last], &t->A);
		return;
	}
	for (int64_t i = 0; i < n; i += W)
		VSTORE(t->B + i, VLOAD(v->load + i));
	row_halo(t->B, n, v->torus[k->last]);
	k->hrow(t->B, v->load, n, v->torus[k->last], &t->A);
}

static int64_t round_up(int64_t x, int64_t m) { return (x + m - 1) / m * m; }

typedef struct {
	int64_t moved, total;
	int32_t max, min;
} kresult;

/* The results of T threads as one: counts and totals summed, extremes of all. */
static kresult ksum(const kresult *res, int64_t T)
{
	kresult r = res[0];
	for (int64_t i = 1; i < T; i++) {
		r.moved += res[i].moved;
		r.total += res[i].total;
		r.max = res[i].max > r.max ? res[i].max : r.max;
		r.min = res[i].min < r.min ? res[i].min : r.min;
	}
	return r;
}

/* Thread id of the team's T: its buffers in mem, its range of slabs of axis a0. */
static void run_thread(const kctx *k, int a0, int32_t *mem, int64_t per, const lbt_team *team, kresult *out)
{
	const int id = team->id, T = team->n;
	const lbt_view *v = k->v;
	const int last = k->last;
	const acc A0 = {.mx = VSET1(INT32_MIN), .mn = VSET1(INT32_MAX), .s = VSET1(0), .h = VSET1(0), .cnt = VSET1(0)};
	kthread t = {.A = A0, .Ax = A0};
	int32_t *p = mem + id * per;
	for (int a = a0; a < last; a++)
		if (k->N[a] >= 2)
			for (int j = 0; j < 3; j++, p += v->stride[a]) {
				int32_t *origin = p + k->back[a];
				if (j < 2)
					t.ring[a][j] = origin;
				else
					t.next[a] = origin;
			}
	t.B = p + LBT_ROW_LEAD;
	t.cpb = (M *)(p + round_up(LBT_ROW_LEAD + v->ext[last] + 2 * W, 16));
#if W == 16
	t.pk[0] = (int16_t *)(p + round_up(LBT_ROW_LEAD + v->ext[last] + 2 * W, 16) + round_up(v->ext[last] + W, 16));
	t.pk[1] = t.pk[0] + round_up(v->ext[last], 32);
	t.gtb = t.cpb + round_up(v->ext[last] / W + 1, 32); /* cpb's cells hold both: 4 bytes a PE, 2 bits used */
#elif W == 8
	t.gtb = (M *)(p + round_up(LBT_ROW_LEAD + v->ext[last] + 2 * W, 16) + round_up(v->ext[last] + W, 16));
#endif
	if (a0 == last)
		lone_row(k, &t);
	else {
		const int64_t n0 = v->ext[a0], r0 = n0 * id / T, r1 = n0 * (id + 1) / T, s = v->stride[a0];
		/* a cut view's old slabs beyond the block are in its halo (local -2, -1, n0) */
		const int cut = v->cut != NULL;
#define OLD_SLAB(q) (v->load + (cut ? (q) : wrap((q), n0)) * s)
		if (T > 1 || cut) /* the old slabs next to the range, before anyone writes */
			for (int64_t q = r0 - 2; q < r0; q++)
				if (exists(k, a0, q))
					copy_slab(k, a0, t.ring[a0][q & 1], OLD_SLAB(q));
		if (exists(k, a0, r1))
			copy_slab(k, a0, t.next[a0], OLD_SLAB(r1));
#undef OLD_SLAB
		lbt_team_barrier(team);
		roll(k, &t, a0, v->load, r0, r1, T == 1 && !cut);
	}
	out->moved = t.A.moved + vsum32(t.A.cnt) + t.Ax.moved + vsum32(t.Ax.cnt);
	out->total = t.A.total + vtotal(t.A.s, t.A.h);
	out->max = vmax32(t.A.mx);
	out->min = vmin32(t.A.mn);
}

typedef struct {
	const kctx *k;
	int a0;
	int32_t *mem;
	int64_t per;
	kresult *res;
} step_job;
static void step_thread(void *ctx, const lbt_team *team)
{
	const step_job *j = ctx;
	run_thread(j->k, j->a0, j->mem, j->per, team, &j->res[team->id]);
}

void LBT_SIMD_FN(lbt_simd_lm_step)(const lbt_view *v, int cond, lbt_counts *c)
{
	const int D = v->dims, last = D - 1;
	int a0 = -1, active = 0;
	for (int d = last; d >= 0; d--)
		if (lbt_gext(v, d) >= 2) {
			active++;
			a0 = d;
		}
	if (!active)
		return; /* one PE: no links, nothing moves, no statistics */
	if (v->cut && v->cut->axis == last) { /* a 1-D torus cut between ranks */
		lbt_ref_lm_step(v, cond, c);
		return;
	}
	/* The layout the kernel relies on (lbt_grid's): aligned rows, whole-vector pitch. */
	if ((uintptr_t)v->load % LBT_ALIGN || (D > 1 && v->stride[last - 1] % 16) || v->stride[last] != 1) {
		lbt_ref_lm_step(v, cond, c);
		return;
	}
	kctx k = {.v = v, .last = last, .cond = cond, .vrow = vrows[cond], .vrow_stats = vrows_stats[cond], .hrow = hrows[cond],
	          .frow = frows[cond], .frow_cp = frows_cp[cond], .vslab = vslabs[0][cond], .vslab_stats = vslabs[1][cond]};
	for (int a = 0; a < D; a++) {
		k.lo[a] = v->cut && a == v->cut->axis ? v->origin[a] : 0;
		k.N[a] = lbt_gext(v, a);
	}
	for (int a = 0; a < D; a++) {
		k.next[a] = -1;
		for (int d = a + 1; d < D; d++)
			if (k.N[d] >= 2) {
				k.next[a] = d;
				break;
			}
		k.back[a] = LBT_ROW_LEAD;
		for (int d = a + 1; d < last; d++)
			k.back[a] += LBT_HALO * v->stride[d];
	}
	const int64_t n0 = v->ext[a0];
	int64_t pes = 1;
	for (int d = 0; d < D; d++)
		pes *= v->ext[d];
	/* Threads: at most one per slab, and one per MIN_PES PEs: a smaller step
	 * takes microseconds, less than waking a thread costs. */
	enum { MIN_PES = 1 << 16 };
	int64_t T = v->threads > 1 ? v->threads : 1;
	T = T < n0 ? T : n0;
	T = T < pes / MIN_PES ? T : pes / MIN_PES;
	if (a0 == last || T < 1)
		T = 1;

	/* One allocation: the zero slab, then per thread its rings, next copy, B and cpb. */
	const int64_t rowcells = round_up(LBT_ROW_LEAD + v->ext[last] + 2 * W, 16);
	int64_t per = rowcells + round_up(v->ext[last] + W, 16); /* B, cpb */
#if W == 16
	per += round_up(v->ext[last], 32); /* pk: two rows of int16 */
#elif W == 8
	per += round_up(v->ext[last] + W, 16); /* gtb, as large as cpb */
#endif
	for (int a = a0; a < last; a++)
		if (k.N[a] >= 2)
			per += 3 * v->stride[a];
	const int64_t zcells = rowcells;
	T = T < LBT_SIMD_MAXT ? T : LBT_SIMD_MAXT;
	const int64_t rescells = round_up(T * (int64_t)sizeof(kresult), LBT_ALIGN) / 4;
	/* A small grid's buffers on the stack: a step of 128x128 takes about
	 * 2 us, and malloc and free of its buffers cost about 3% of that. */
	enum { STACK_CELLS = 4096 };
	int32_t stack[STACK_CELLS] __attribute__((aligned(LBT_ALIGN)));
	const int64_t cells = zcells + T * per + rescells;
	int32_t *mem = cells <= STACK_CELLS ? stack : lbt_alloc_aligned((size_t)cells * sizeof *mem);
	if (!mem) { /* no memory for the buffers: the reference needs only a few KiB */
		lbt_ref_lm_step(v, cond, c);
		return;
	}
	memset(mem, 0, (size_t)zcells * sizeof *mem);
	k.zrow = mem + LBT_ROW_LEAD;
	if (v->cut) /* the neighbouring ranks' old slabs, into the halo */
		lbt_halo_fill(v, a0);

	kresult *res = (kresult *)(mem + zcells + T * per);
	step_job job = {&k, a0, mem + zcells, per, res};
	const kresult r = ksum(res, lbt_team_run((int)T, step_thread, &job));
	if (mem != stack)
		free(mem);
	c->moved += r.moved;
	c->shifts += active;
	c->has_stats = 1;
	c->max = r.max;
	c->min = r.min;
	c->total = r.total;
}

/* Several steps with rows in bytes (lm_steps). In a 2-D grid where most
 * rows hold loads of at most BTOP (all, on a torus that starts so: Henrich's
 * Lemma 1, no condition lifts the maximum above max(initial max, 2); in the
 * worst case, all rows but the pile's), each such row lives in a byte copy
 * between steps and is stepped there by the byte rows (frow8_body with res),
 * so a step reads and writes one byte per PE of it instead of four; the
 * other rows stay in the grid and take the int32 rows (frow_body). A row
 * moves between the two where the row before it finds out, as it reads it
 * as its successor: a byte row whose loads rose above BTOP is widened into
 * the grid, a grid row whose loads fit is packed into the copy. The masks
 * along the outer axis are handed on in cpb as in plane_impl (C2 and C4:
 * gtb, or the ring for an int32 row). The first row of a thread's range
 * gets what its predecessor would have handed on from int32 copies of the
 * old rows before it (bprologue), taken, as is the row after the range,
 * before anyone writes. A call also ends after a step where the caller must
 * look at the grid (stop). */
#if W == 16
typedef struct {
	const lbt_view *v;
	const lbt_steps_stop *stop;
	int cond, n;
	int64_t N0, len;
	int8_t *g;        /* the byte copy, row q at g + q len */
	uint8_t *in8;     /* row q is in g (its loads were at most BTOP when last looked at), else in the grid */
	char *buf;        /* per thread: bper bytes */
	int64_t bper;
	int64_t *miss;    /* per thread: its rows that do not fit bytes (counted until too many) */
	kresult *res;     /* per step and thread */
	int go, done;     /* enough rows fit; steps done */
} bctx;

/* A thread's rows: int32 copies of old rows q0-2 (m2), q0-1 (in ring[(q0-1) & 1])
 * and q1 (nx), zeros beyond a mesh edge; the ring for C2 and C4; a byte row
 * to pack the successor into where it has no place in g; cpb and gtb. */
typedef struct {
	int32_t *m2, *ring[2], *nx;
	int8_t *scr;
	M *cpb, *gtb;
	int clean; /* the loads of the thread's rows in g are all at most BTOP */
} bthread;

/* Int32 row p packed (saturated) into byte row b, n PEs: do all its loads fit (0 .. BTOP)? */
static int bpack_row(int8_t *b, const int32_t *p, int64_t n)
{
	V top = BSET1(0);
	for (int64_t j = 0; j < n; j += BW) {
		const V d = bpack(p + j);
		VSTORE(b + j, d);
		top = simde_mm512_max_epu8(top, d);
	}
	return !simde_mm512_cmpgt_epu8_mask(top, BSET1(BTOP));
}
static int brow_fits(const int8_t *b, int64_t n)
{
	V top = BSET1(0);
	for (int64_t j = 0; j < n; j += BW)
		top = simde_mm512_max_epu8(top, VLOAD(b + j));
	return !simde_mm512_cmpgt_epu8_mask(top, BSET1(BTOP));
}
static void bwiden_row(int32_t *p, const int8_t *b, int64_t n)
{
	for (int64_t j = 0; j < n; j += BW)
		bwiden_store(p + j, VLOAD(b + j));
}

/* What old row m1 hands on to row r along the outer axis (C_i of m1, m2
 * its predecessor) into cpb, as frow would leave it. A row of zeros beyond
 * a mesh edge hands on nothing and counts as "L > 1" nowhere (no condition
 * holds for a load of 0), as the reference's missing neighbour. */
static ALWAYS_INLINE void bprologue(const int cond, const int32_t *m2, const int32_t *m1, const int32_t *r,
                                    int64_t n, M *cpb)
{
	for (int64_t j = 0; j < n / W; j++)
		cpb[j] = shift_cond(cond, VLOAD(m2 + j * W), VLOAD(m1 + j * W), VLOAD(r + j * W));
}

/* Rows q0..q1-1, one step, each in g (byte rows) or in the grid (int32). */
static ALWAYS_INLINE void broll_impl(const int cond, const bctx *x, bthread *t, int64_t q0, int64_t q1,
                                     kresult *out)
{
	const lbt_view *v = x->v;
	const int64_t n = x->len, s0 = v->stride[0], J = n / W;
	const int torus0 = v->torus[0], row_torus = v->torus[1], lp = cond == LBT_C2 || cond == LBT_C4;
	int8_t *const g = x->g;
	uint8_t *const in8 = x->in8;
#define GROW(q) (v->load + (q) * s0)
#define BROW(q) (g + (q) * n)
	acc A = {.mx = VSET1(INT32_MIN), .mn = VSET1(INT32_MAX), .s = VSET1(0), .h = VSET1(0), .cnt = VSET1(0)};
	regs R = REGS_IN(&A);
	bregs B = BREGS_EMPTY;
	int64_t pend = 0;
	/* row q0 as int32 (in the grid) for the prologue; if it is a byte row that rose above BTOP, it stays there */
	if (in8[q0]) {
		bwiden_row(GROW(q0), BROW(q0), n);
		in8[q0] = (uint8_t)brow_fits(BROW(q0), n);
	}
	int b8 = in8[q0];
	bprologue(cond, t->m2, t->ring[(q0 - 1) & 1], GROW(q0), n, t->cpb);
	if (lp && b8)
		gt_from_row(t->gtb, t->ring[(q0 - 1) & 1], n);
	for (int64_t q = q0; q < q1; q++) {
		if (b8 && t->clean) /* byte rows whose successors are byte rows known to fit */
			for (; q + 1 < q1 && in8[q + 1]; q++)
				frow8_body(cond, 1, 0, 0, NULL, BROW(q), NULL, BROW(q + 1), NULL, n, 1, row_torus, t->cpb, t->gtb, &B);
		const int has_next = torus0 || q + 1 < x->N0, inside = q + 1 < q1;
		int nb8 = 0;
		if (b8 && inside && in8[q + 1]) {
			nb8 = frow8_body(cond, 3, 0, 0, NULL, BROW(q), NULL, BROW(q + 1), NULL, n, 1, row_torus, t->cpb, t->gtb, &B);
			if (!nb8) { /* the next row rose above BTOP: into the grid */
				bwiden_row(GROW(q + 1), BROW(q + 1), n);
				in8[q + 1] = 0;
			}
		} else if (b8) { /* the next row from the grid (or the copy nx), packed into g where it fits */
			nb8 = frow8_body(cond, 2, 0, 1, NULL, BROW(q), inside ? GROW(q + 1) : t->nx, NULL,
			                 inside ? BROW(q + 1) : t->scr, n, has_next, row_torus, t->cpb, t->gtb, &B);
			if (inside)
				in8[q + 1] = (uint8_t)nb8;
		} else {
			if (inside && in8[q + 1])
				bwiden_row(GROW(q + 1), BROW(q + 1), n);
			const int32_t *m1 = t->ring[(q - 1) & 1];
			frow_body(cond, 1, m1, m1, GROW(q), inside ? GROW(q + 1) : t->nx, t->ring[q & 1], n, has_next, row_torus,
			          t->cpb, &R);
			if (inside)
				nb8 = in8[q + 1] = (uint8_t)(in8[q + 1] ? brow_fits(BROW(q + 1), n) : bpack_row(BROW(q + 1), GROW(q + 1), n));
			if ((pend += 2 * J) >= SEG) {
				REGS_OUT(&A, R);
				acc_flush(&A, 2 * SEG);
				R = (regs)REGS_IN(&A);
				pend = 0;
			}
		}
		/* C2 and C4 between row kinds: the next row reads this one's "L > 1"
		 * from gtb (byte row) or from its saved old row (int32) */
		if (lp && inside && b8 != nb8)
			(nb8 ? gt_from_row(t->gtb, t->ring[q & 1], n) : row_from_gt(t->ring[q & 1], t->gtb, n));
		b8 = nb8;
	}
#undef GROW
#undef BROW
	/* every row now in g went through the byte rows: do they all still fit? */
	t->clean = !simde_mm512_cmpgt_epi8_mask(B.mx, BSET1(BTOP));
	bmerge(&B, &R, &A);
	REGS_OUT(&A, R);
	*out = (kresult){.moved = A.moved + vsum32(A.cnt), .total = A.total + vtotal(A.s, A.h), .max = vmax32(A.mx),
	                 .min = vmin32(A.mn)};
}
typedef void (*broll_fn)(const bctx *, bthread *, int64_t, int64_t, kresult *);
#define BROLL(c)                                                                                                 \
	static void broll_##c(const bctx *x, bthread *t, int64_t q0, int64_t q1, kresult *out) \
	{ broll_impl(c, x, t, q0, q1, out); }
BROLL(0) BROLL(1) BROLL(2) BROLL(3) BROLL(4) BROLL(5)
static const broll_fn brolls[LBT_NCOND] = {broll_0, broll_1, broll_2, broll_3, broll_4, broll_5};

/* Thread id of the team's T: pack its rows; if enough rows of the grid fit,
 * step them with the others until n steps are done or a step meets the
 * stop, and widen the byte rows back. */
static void bsteps_thread(void *ctx, const lbt_team *team)
{
	bctx *x = ctx;
	const lbt_view *v = x->v;
	const int id = team->id, T = team->n, torus = v->torus[0];
	const int64_t N0 = x->N0, n = x->len, r0 = N0 * id / T, r1 = N0 * (id + 1) / T, s0 = v->stride[0];
	char *b = x->buf + id * x->bper;
	bthread t = {.m2 = (int32_t *)b, .clean = 1}; /* the rows packed are checked */
	t.ring[0] = t.m2 + n;
	t.ring[1] = t.ring[0] + n;
	t.nx = t.ring[1] + n;
	t.scr = (int8_t *)(t.nx + n);
	t.cpb = (M *)(t.scr + n);
	t.gtb = t.cpb + n / W + 4;
	/* the rows left in the grid take int32 lanes (plane_impl would take
	 * int16 where they fit): worth it only where they are few, at most N0 / 8 */
	int64_t miss = 0;
	for (int64_t q = r0; q < r1 && 8 * miss <= N0; q++) /* stops once there are too many */
		miss += !(x->in8[q] = (uint8_t)bpack_row(x->g + q * n, v->load + q * s0, n));
	x->miss[id] = miss;
	lbt_team_barrier(team);
	int64_t all = 0; /* each thread sums the same counts */
	for (int i = 0; i < T; i++)
		all += x->miss[i];
	if (id == 0)
		x->go = 8 * all <= N0;
	if (8 * all > N0)
		return; /* the grid is untouched */
	/* old row q as int32 into dst: from g or the grid (wrapped on a torus), zeros beyond a mesh edge */
#define OLD_ROW(q, dst)                                                                     \
	do {                                                                                    \
		const int64_t q_ = (q), w_ = wrap(q_, N0);                                          \
		if (!torus && (q_ < 0 || q_ >= N0))                                                 \
			memset((dst), 0, (size_t)n * sizeof(int32_t));                                  \
		else if (x->in8[w_])                                                                \
			bwiden_row((dst), x->g + w_ * n, n);                                            \
		else                                                                                \
			memcpy((dst), v->load + w_ * s0, (size_t)n * sizeof(int32_t));                 \
	} while (0)
	int s = 0;
	for (;;) {
		OLD_ROW(r0 - 2, t.m2);
		OLD_ROW(r0 - 1, t.ring[(r0 - 1) & 1]);
		OLD_ROW(r1, t.nx);
		lbt_team_barrier(team);
		brolls[x->cond](x, &t, r0, r1, &x->res[s * T + id]);
		lbt_team_barrier(team);
		const kresult r = ksum(&x->res[s * T], T);
		const lbt_steps_stop *st = x->stop;
		if (++s == x->n || (st && ((int64_t)r.max - r.min <= st->ldiff || (st->shared && r.min > 0) ||
		                           (r.max == st->max && r.min == st->min))))
			break;
	}
#undef OLD_ROW
	if (id == 0)
		x->done = s;
	for (int64_t q = r0; q < r1; q++)
		if (x->in8[q])
			bwiden_row(v->load + q * s0, x->g + q * n, n);
}
#endif

int LBT_SIMD_FN(lbt_simd_lm_steps)(const lbt_view *v, int cond, int n, int32_t max, const lbt_steps_stop *stop,
                                   lbt_lm_cache *cache, lbt_counts *c)
{
#if W == 16
	const int64_t N0 = v->ext[0], len = v->dims == 2 ? v->ext[1] : 0;
	if (n >= 2 && cache && v->dims == 2 && !v->cut && N0 >= 3 && len >= BW && len % BW == 0 && len <= BMAX_N &&
	    (uintptr_t)v->load % LBT_ALIGN == 0 && v->stride[0] % 16 == 0 && v->stride[1] == 1 &&
	    (max <= BTOP || cache->wait-- <= 0)) {
		enum { MIN_PES = 1 << 16 };
		int64_t T = v->threads > 1 ? v->threads : 1;
		T = T < N0 ? T : N0;
		T = T < N0 * len / MIN_PES ? T : N0 * len / MIN_PES;
		T = T < 1 ? 1 : T < LBT_SIMD_MAXT ? T : LBT_SIMD_MAXT;
		const int64_t bper = round_up(4 * (int64_t)sizeof(int32_t) * len + len + 2 * (int64_t)sizeof(M) * (len / W + 4),
		                              LBT_ALIGN);
		const int64_t gsize = round_up(N0 * len, LBT_ALIGN), isize = round_up(N0, LBT_ALIGN);
		const int64_t fsize = round_up(T * (int64_t)sizeof(int64_t), LBT_ALIGN);
		const size_t need = (size_t)(gsize + isize + fsize + T * bper) + (size_t)(n * T) * sizeof(kresult);
		if (cache->size < need) {
			free(cache->mem);
			cache->mem = lbt_alloc_aligned(need);
			cache->size = cache->mem ? need : 0;
		}
		char *mem = cache->mem;
		if (mem) {
			bctx x = {.v = v, .stop = stop, .cond = cond, .n = n, .N0 = N0, .len = len, .g = (int8_t *)mem,
			          .in8 = (uint8_t *)(mem + gsize), .miss = (int64_t *)(mem + gsize + isize),
			          .buf = mem + gsize + isize + fsize, .bper = bper,
			          .res = (kresult *)(mem + gsize + isize + fsize + T * bper)};
			const int got = lbt_team_run((int)T, bsteps_thread, &x); /* at most T */
			/* too few rows fit: try again after 1, 2, 4, ... 256 calls (a
			 * try packs the grid, a third of a step's memory traffic) */
			cache->backoff = x.go ? 0 : cache->backoff ? (cache->backoff < 256 ? 2 * cache->backoff : 256) : 1;
			cache->wait = cache->backoff;
			const int done = x.go ? x.done : 0;
			for (int s = 0; s < done; s++) {
				const kresult r = ksum(&x.res[s * got], got);
				c[s] = (lbt_counts){.moved = r.moved, .total = r.total, .max = r.max, .min = r.min, .shifts = 2,
				                    .has_stats = 1};
			}
			if (done)
				return done;
		}
	}
#elif W == 8
	/* A ring (only the last axis has extent above 1) of whole narrow chunks
	 * whose loads are at most INT16_MAX - n: kept in int16 lanes for the
	 * call's n steps (a step changes a load by at most 1, so they fit),
	 * packed once and widened back once. */
	const int last = v->dims - 1;
	int ring = n >= 2 && cache && !v->cut && max <= INT16_MAX - n && v->ext[last] % HW == 0 &&
	           v->ext[last] <= LONE_MAX_N && (uintptr_t)v->load % LBT_ALIGN == 0 && v->stride[last] == 1;
	for (int d = 0; d < last; d++)
		ring &= v->ext[d] == 1 && lbt_gext(v, d) == 1;
	if (ring) {
		const int64_t len = v->ext[last];
		const size_t need = (size_t)len * sizeof(int16_t);
		if (cache->size < need) {
			free(cache->mem);
			cache->mem = lbt_alloc_aligned(need);
			cache->size = cache->mem ? need : 0;
		}
		int16_t *b = cache->mem;
		V top = HSET1(0);
		for (int64_t i = 0; b && i < len; i += HW) { /* packed with saturation: does every load fit? */
			const V x = hpack(VLOAD(v->load + i), VLOAD(v->load + i + W));
			VSTORE(b + i, x);
			top = simde_mm256_max_epu16(top, x);
		}
		const V t = HSET1((int16_t)(INT16_MAX - n));
		if (b && simde_mm256_movemask_epi8(simde_mm256_cmpeq_epi16(simde_mm256_max_epu16(top, t), t)) == -1) {
			int s = 0;
			while (s < n) {
				rings[cond](b, len, v->torus[last], &c[s]);
				const lbt_counts *r = &c[s++];
				if (stop && ((int64_t)r->max - r->min <= stop->ldiff || (stop->shared && r->min > 0) ||
				             (r->max == stop->max && r->min == stop->min)))
					break;
			}
			for (int64_t i = 0; i < len; i += HW) {
				const V x = VLOAD(b + i);
				VSTORE(v->load + i, HWIDEN(x, 0));
				VSTORE(v->load + i + W, HWIDEN(x, 1));
			}
			return s;
		}
	}
#else
	(void)n;
	(void)max;
	(void)stop;
	(void)cache;
#endif
	*c = (lbt_counts){0};
	LBT_SIMD_FN(lbt_simd_lm_step)(v, cond, c);
	return 1;
}

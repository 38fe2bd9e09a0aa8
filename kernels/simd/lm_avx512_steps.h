/* lm_avx512_steps.h — lm_steps with AVX-512 (part of lm.c, included for
 * W == 16 after the step's driver): a 2-D grid's rows kept in a byte copy
 * for several steps, and a cut slab's for a call's rounds (bcut_*). */
#ifndef LBT_LM_AVX512_STEPS_H
#define LBT_LM_AVX512_STEPS_H

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
				brow_copy_clean(cond, &(const lrow){.pl = BROW(q), .pn = BROW(q + 1), .n = n, .has_next = 1,
				                                    .torus = row_torus, .cpb = t->cpb, .gtb = t->gtb}, &B);
		const int has_next = torus0 || q + 1 < x->N0, inside = q + 1 < q1;
		int nb8 = 0;
		if (b8 && inside && in8[q + 1]) {
			nb8 = brow_copy(cond, &(const lrow){.pl = BROW(q), .pn = BROW(q + 1), .n = n, .has_next = 1, .torus = row_torus,
			                                    .cpb = t->cpb, .gtb = t->gtb}, &B);
			if (!nb8) { /* the next row rose above BTOP: into the grid */
				bwiden_row(GROW(q + 1), BROW(q + 1), n);
				in8[q + 1] = 0;
			}
		} else if (b8) { /* the next row from the grid (or the copy nx), packed into g where it fits */
			nb8 = brow_copy_from_grid(cond, &(const lrow){.pl = BROW(q), .p1 = inside ? GROW(q + 1) : t->nx,
			                                              .pd = inside ? BROW(q + 1) : t->scr, .n = n, .has_next = has_next,
			                                              .torus = row_torus, .cpb = t->cpb, .gtb = t->gtb}, &B);
			if (inside)
				in8[q + 1] = (uint8_t)nb8;
		} else {
			if (inside && in8[q + 1])
				bwiden_row(GROW(q + 1), BROW(q + 1), n);
			const int32_t *m1 = t->ring[(q - 1) & 1];
			frow_body(cond, 1, &(const lrow){.m2 = m1, .m1 = m1, .p0 = GROW(q), .p1 = inside ? GROW(q + 1) : t->nx,
			                                 .save = t->ring[q & 1], .n = n, .has_next = has_next, .torus = row_torus,
			                                 .cpb = t->cpb}, &R);
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
		if (++s == x->n || stop_met(x->stop, r.max, r.min))
			break;
	}
#undef OLD_ROW
	if (id == 0)
		x->done = s;
	for (int64_t q = r0; q < r1; q++)
		if (x->in8[q])
			bwiden_row(v->load + q * s0, x->g + q * n, n);
}

/* lm_steps in bytes: the steps done (each one's counts into c), or 0 where
 * the grid does not take them (then nothing was changed). */
static int bytes_steps(const lbt_view *v, int cond, int n, int32_t max, const lbt_steps_stop *stop, lbt_lm_cache *cache,
                       lbt_counts *c)
{
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
			return done;
		}
	}
	return 0;
}

/* Byte steps on a cut view (deep halos: cut_round; bcut_* in lm_bcut.h,
 * shared with AVX2, whose comments say why each step is exact): a 2-D block
 * cut along its rows' axis (rows whole) keeps its rows in a byte copy for
 * all of a call's rounds; before a round's fill the rows the fill sends
 * (the block's first and last `layers`) are widened into the grid, after
 * it the halo rows the round reads (2m-1 below the block, m above,
 * clipped at a mesh's ends) are packed into the copy, and the round's m
 * steps run on the copy as cut_round runs them on the grid, each row by
 * the byte rows of lm_steps's copy (brow_copy_clean: row and successor
 * both bytes, known to fit). Only the block's rows are counted. A round
 * whose loads do not all fit widens the block back and takes cut_round's
 * rows. Every row is a byte row here (no int32 rows between them, unlike
 * bytes_steps above), and only the conditions that look at no
 * predecessor's load (C0, C1, C3, C5) take it: C2's and C4's "L > 1" of
 * the row before a thread's first would need the row before that. Copy row
 * b is local row b - 2k (k: the deepest round); the block's rows are
 * 2k .. 2k + ext0 - 1. */

/* One step of copy rows r0 .. r1-1 (n PEs each): each row with its
 * successor, the last with nx (after: it has one), C_i along the outer
 * axis handed on in cpb. */
static ALWAYS_INLINE void bcstep_impl(const int cond, int8_t *g, int64_t r0, int64_t r1, int64_t n, const int8_t *nx,
                                      int after, int torus, M *cpb, bregs *out)
{
	bregs B = BREGS_EMPTY;
	int8_t *const last = g + (r1 - 1) * n;
	for (int8_t *p = g + r0 * n; p < last; p += n)
		brow_copy_clean(cond, &(const lrow){.pl = p, .pn = p + n, .n = n, .has_next = 1, .torus = torus, .cpb = cpb}, &B);
	brow_copy_clean(cond, &(const lrow){.pl = last, .pn = nx, .n = n, .has_next = after, .torus = torus, .cpb = cpb}, &B);
	*out = B;
}
typedef void (*bcstep_fn)(int8_t *, int64_t, int64_t, int64_t, const int8_t *, int, int, M *, bregs *);
#define BCSTEP(k)                                                                                               \
	static void bcstep_##k(int8_t *g, int64_t r0, int64_t r1, int64_t n, const int8_t *nx, int after, int torus, \
	                       M *cpb, bregs *out)                                                                  \
	{ bcstep_impl(k, g, r0, r1, n, nx, after, torus, cpb, out); }
BCSTEP(0) BCSTEP(1) BCSTEP(3) BCSTEP(5)
static const bcstep_fn bcsteps[LBT_NCOND] = {bcstep_0, bcstep_1, NULL, bcstep_3, NULL, bcstep_5};

/* What byte row pm hands on to row pr along the outer axis (its C_i;
 * none: no predecessor) into cpb, where chunk j's mask lives at 4 j. */
static void bcut_first(const int cond, const int8_t *pm, const int8_t *pr, int64_t n, M *cpb)
{
	for (int64_t j = 0; j < n / BW; j++) {
		const uint64_t cs = pm ? nshift_cond(cond, 1, 0, VLOAD(pm + j * BW), VLOAD(pr + j * BW)) : 0;
		memcpy(cpb + 4 * j, &cs, sizeof cs);
	}
}

/* The counters of a range's byte rows. */
static kresult bcut_counts(const bregs *B)
{
	int8_t mx[BW] __attribute__((aligned(LBT_ALIGN))), mn[BW] __attribute__((aligned(LBT_ALIGN)));
	VSTORE(mx, B->mx);
	VSTORE(mn, B->mn);
	kresult r = {.moved = simde_mm512_reduce_add_epi64(simde_mm512_add_epi64(B->moved, simde_mm512_sad_epu8(B->cnt, BSET1(0)))),
	             .total = simde_mm512_reduce_add_epi64(B->sum), .max = mx[0], .min = mn[0]};
	for (int i = 1; i < BW; i++) {
		r.max = mx[i] > r.max ? mx[i] : r.max;
		r.min = mn[i] < r.min ? mn[i] : r.min;
	}
	return r;
}


#define BCUT_STEPS bcsteps
#define BCUT_STEP_FN bcstep_fn
#define BCUT_CPB M
#define BCUT_CPB_BYTES(len) ((int64_t)sizeof(M) * ((len) / W))
static V bmax_u8(V a, V b) { return simde_mm512_max_epu8(a, b); }
static int bfits_u8(V top, int lim) { return !simde_mm512_cmpgt_epu8_mask(top, BSET1((char)lim)); }
static void bcut_widen(int32_t *at, int64_t s0, const int8_t *g, int64_t n, int64_t p0, int64_t p1, int64_t total)
{
	(void)total;
	for (int64_t q = p0; q < p1; q++)
		bwiden_row(at + q * s0, g + q * n, n);
}
#include "lm_bcut.h"

/* lm_dense.h's byte copy (AVX2's, which AVX-512's lm_steps calls) along
 * the row: d8_lanes with s = 1 in 64 byte lanes, a block of e PEs (a
 * multiple of 64) J vectors, the successor's loads one lane across vectors
 * (BSHR1) and the C_i of the predecessor the mask shifted by one (the
 * previous vector's last bit in its first); a torus wraps inside the
 * block, a mesh block's last PE has no link. d8row64_vec updates vector
 * cur (at p; next the vector after it, csp the previous vector's C_i),
 * counted, with the statistics, and returns its C_i. */
typedef struct {
	V mx, mn, sum;
	int64_t moved;
} d8row_regs;
static ALWAYS_INLINE uint64_t d8row64_vec(const int cond, int8_t *p, V cur, V next, uint64_t csp, uint64_t linked,
                                          d8row_regs *R)
{
	const uint64_t cs = nshift_cond(cond, 1, 0, cur, BSHR1(cur, next)) & linked;
	const V x = BINC(BDEC(cur, cs), cs << 1 | csp >> 63);
	R->moved += __builtin_popcountll(cs);
	R->mx = simde_mm512_max_epi8(R->mx, x);
	R->mn = simde_mm512_min_epi8(R->mn, x);
	R->sum = simde_mm512_add_epi64(R->sum, simde_mm512_sad_epu8(x, BSET1(0)));
	VSTORE(p, x);
	return cs;
}
/* The largest (max) or smallest int8 lane of x. */
static int64_t d8row_reduce(V x, const int max)
{
	const simde__m128i a = simde_mm512_castsi512_si128(x), b = simde_mm512_extracti32x4_epi32(x, 1),
	                   c = simde_mm512_extracti32x4_epi32(x, 2), d = simde_mm512_extracti32x4_epi32(x, 3);
	simde__m128i m = max ? simde_mm_max_epi8(simde_mm_max_epi8(a, b), simde_mm_max_epi8(c, d))
	                     : simde_mm_min_epi8(simde_mm_min_epi8(a, b), simde_mm_min_epi8(c, d));
	int8_t q[16];
	simde_mm_storeu_si128((void *)q, m);
	int64_t r = q[0];
	for (int i = 1; i < 16; i++)
		r = max ? (q[i] > r ? q[i] : r) : (q[i] < r ? q[i] : r);
	return r;
}
static ALWAYS_INLINE void d8row64_impl(const int cond, int8_t *b, int64_t e, int torus, int64_t u0, int64_t u1,
                                       int64_t *out)
{
	const int64_t J = e / BW;
	d8row_regs R = {BSET1(INT8_MIN), BSET1(INT8_MAX), VSET1(0), 0};
	for (int64_t u = u0; u < u1; u++) {
		int8_t *p = b + u * e;
		const V first = VLOAD(p), lastv = VLOAD(p + (J - 1) * BW);
		/* C_i of the last vector, whose last lane hands it to the first on a torus */
		uint64_t csp = torus ? nshift_cond(cond, 1, 0, lastv, BSHR1(lastv, first)) : 0;
		V cur = first;
		int64_t j = 0;
		for (; j + 1 < J; j++) {
			const V next = VLOAD(p + (j + 1) * BW);
			csp = d8row64_vec(cond, p + j * BW, cur, next, csp, ~(uint64_t)0, &R);
			cur = next;
		}
		d8row64_vec(cond, p + j * BW, cur, torus ? first : BSET1(0), csp, torus ? ~(uint64_t)0 : ~(uint64_t)0 >> 1, &R);
	}
	out[0] = R.moved;
	out[1] = simde_mm512_reduce_add_epi64(R.sum);
	out[2] = d8row_reduce(R.mx, 1);
	out[3] = d8row_reduce(R.mn, 0);
}
/* lbt_d8row_fn (lm.c), for C0, C1, C3, C5 (the byte copy's) */
static void d8row64(int cond, int8_t *b, int64_t e, int torus, int64_t u0, int64_t u1, int64_t *out)
{
	switch (cond) {
	case LBT_C0: d8row64_impl(LBT_C0, b, e, torus, u0, u1, out); break;
	case LBT_C1: d8row64_impl(LBT_C1, b, e, torus, u0, u1, out); break;
	case LBT_C3: d8row64_impl(LBT_C3, b, e, torus, u0, u1, out); break;
	default: d8row64_impl(LBT_C5, b, e, torus, u0, u1, out); break;
	}
}

/* The byte copy's other passes (lm_dense.h, d8_pass) in 64 byte lanes:
 * columns (d8_cols, and d8_tiles on a streamed axis), lanes S = 4, 8 or
 * 16 bytes across (d8_lanes, a block of whole 64-byte vectors) and groups
 * (d8_groups, blocks of 4, 8 or 16 PEs inside each 128-bit lane, the
 * shuffles of a 128-bit lane the same in all four). Units are d8_pass's,
 * 32 PEs: two units side by side in memory (a block's two neighbouring
 * columns, two vectors of groups) make one 64-byte vector; a unit alone
 * (a range that starts or ends between the two, a block 32 PEs wide) is
 * the low half of one, its high half masked off (h) and never stored. A
 * column's or a lanes block's C_i goes to the next slice or vector as a
 * mask, a lane's C_{i-1} being the mask shifted by S (the previous
 * vector's last S bits first). */
enum { D8U = 32 }; /* d8_pass's unit (lm_dense.h's D8) */
typedef struct {
	V mx, mn, sum;
	int64_t moved;
} d8pass_regs;
/* A vector at p, or (half) its low 32 bytes, the high ones zero. */
static ALWAYS_INLINE V d8load(const int half, const int8_t *p)
{
	return half ? simde_mm512_inserti64x4(simde_mm512_setzero_si512(), simde_mm256_loadu_si256((const void *)p), 0)
	            : VLOADU(p);
}
static ALWAYS_INLINE void d8store(const int half, int8_t *p, V x)
{
	if (half)
		simde_mm256_storeu_si256((void *)p, simde_mm512_castsi512_si256(x));
	else
		simde_mm512_storeu_si512((void *)p, x);
}
/* One column of e slices s PEs apart at p (half: its low 32 lanes). */
static ALWAYS_INLINE void d8col64(const int cond, const int half, int8_t *p, int64_t e, int64_t s, int torus,
                                  d8pass_regs *R)
{
	const uint64_t h = half ? 0xffffffffu : ~(uint64_t)0;
	const V first = d8load(half, p);
	/* the last slice's C_i, handed to the first on a torus */
	uint64_t cp = torus ? nshift_cond(cond, 1, 0, d8load(half, p + (e - 1) * s), first) & h : 0;
	V l = first;
	int64_t i = 0;
	for (; i + 1 < e; i++) {
		const V ln = d8load(half, p + (i + 1) * s);
		const uint64_t cs = nshift_cond(cond, 1, 0, l, ln) & h;
		R->moved += __builtin_popcountll(cs);
		d8store(half, p + i * s, BINC(BDEC(l, cs), cp));
		cp = cs;
		l = ln;
	}
	const uint64_t cs = torus ? nshift_cond(cond, 1, 0, l, first) & h : 0;
	R->moved += __builtin_popcountll(cs);
	d8store(half, p + i * s, BINC(BDEC(l, cs), cp));
}
/* m whole 64-byte columns side by side at p, slice by slice (d8_tiles:
 * the prefetchers follow a slice), each column's C_i and old first slice
 * in buffers. */
enum { D8TILE64 = 64 };
static ALWAYS_INLINE void d8tile64(const int cond, int8_t *p, int64_t e, int64_t s, int torus, int64_t m,
                                   d8pass_regs *R)
{
	uint64_t cp[D8TILE64];
	V fv[D8TILE64];
	for (int64_t t = 0; t < m; t++) {
		fv[t] = VLOADU(p + t * BW);
		cp[t] = torus ? nshift_cond(cond, 1, 0, VLOADU(p + (e - 1) * s + t * BW), fv[t]) : 0;
	}
	for (int64_t i = 0; i < e; i++) {
		int8_t *q = p + i * s;
		for (int64_t t = 0; t < m; t++) {
			const V l = VLOADU(q + t * BW);
			const uint64_t cs = i + 1 < e ? nshift_cond(cond, 1, 0, l, VLOADU(q + s + t * BW))
			                              : torus ? nshift_cond(cond, 1, 0, l, fv[t]) : 0;
			R->moved += __builtin_popcountll(cs);
			simde_mm512_storeu_si512((void *)(q + t * BW), BINC(BDEC(l, cs), cp[t]));
			cp[t] = cs;
		}
	}
}
/* Units u0 .. u1-1 of columns (per units a block): pairs in one vector,
 * streamed in tiles of up to D8TILE64 vectors of one block. */
static ALWAYS_INLINE void d8cols64(const int cond, int8_t *b, int64_t e, int64_t s, int torus, int streamed,
                                   int64_t u0, int64_t u1, d8pass_regs *R)
{
	const int64_t per = s / D8U;
	for (int64_t u = u0; u < u1;) {
		int8_t *p = b + u / per * (s * e) + u % per * D8U;
		int64_t m = per - u % per; /* units to the block's end or the range's */
		m = m < u1 - u ? m : u1 - u;
		if (m == 1) {
			d8col64(cond, 1, p, e, s, torus, R);
			u++;
		} else if (streamed) {
			m = m / 2 < D8TILE64 ? m / 2 : D8TILE64;
			d8tile64(cond, p, e, s, torus, m, R);
			u += 2 * m;
		} else {
			d8col64(cond, 0, p, e, s, torus, R);
			u += 2;
		}
	}
}
/* The lanes S across: bytes i + S (the next vector's first in the last S). */
static ALWAYS_INLINE V d8shr64(const int S, V cur, V next)
{
	const V t = simde_mm512_alignr_epi64(next, cur, 2); /* 128-bit lane k + 1 of cur:next */
	switch (S) {
	case 4: return simde_mm512_alignr_epi8(t, cur, 4);
	case 8: return simde_mm512_alignr_epi8(t, cur, 8);
	default: return t;
	}
}
/* Blocks u0 .. u1-1 of e PEs S apart, S e a multiple of 64: a mesh block's
 * last S lanes have no link. */
static ALWAYS_INLINE void d8lanes64(const int cond, const int S, int8_t *b, int64_t e, int torus, int64_t u0,
                                    int64_t u1, d8pass_regs *R)
{
	const int64_t J = S * e / BW;
	for (int64_t u = u0; u < u1; u++) {
		int8_t *p = b + u * S * e;
		const V first = VLOADU(p), lastv = VLOADU(p + (J - 1) * BW);
		/* C_i of the last vector, whose last S lanes hand it to the first on a torus */
		uint64_t csp = torus ? nshift_cond(cond, 1, 0, lastv, d8shr64(S, lastv, first)) : 0;
		V cur = first;
		for (int64_t j = 0; j < J; j++) {
			const int last = j + 1 == J;
			const V next = last ? (torus ? first : BSET1(0)) : VLOADU(p + (j + 1) * BW);
			const uint64_t cs =
			    nshift_cond(cond, 1, 0, cur, d8shr64(S, cur, next)) & (last && !torus ? ~(uint64_t)0 >> S : ~(uint64_t)0);
			R->moved += __builtin_popcountll(cs);
			simde_mm512_storeu_si512((void *)(p + j * BW), BINC(BDEC(cur, cs), cs << S | csp >> (64 - S)));
			csp = cs;
			cur = next;
		}
	}
}
/* Slice i of d8_fused's tile of m units at p (lbt_d8slice_fn): vector t
 * (half: a unit alone, the tile's last) of it, slice 0 first opening the
 * tile's buffers. */
static ALWAYS_INLINE int64_t d8slice64_vec(const int cond, const int half, int8_t *p, int64_t e, int64_t s, int torus,
                                           int64_t i, int64_t t, uint64_t *cp, int8_t *fv)
{
	const uint64_t h = half ? 0xffffffffu : ~(uint64_t)0;
	int8_t *q = p + i * s + t * BW;
	const V l = d8load(half, q);
	if (i == 0) {
		d8store(half, fv + t * BW, l);
		cp[t] = torus ? nshift_cond(cond, 1, 0, d8load(half, p + (e - 1) * s + t * BW), l) & h : 0;
	}
	const uint64_t cs = i + 1 < e ? nshift_cond(cond, 1, 0, l, d8load(half, q + s)) & h
	                    : torus   ? nshift_cond(cond, 1, 0, l, d8load(half, fv + t * BW)) & h
	                              : 0;
	d8store(half, q, BINC(BDEC(l, cs), cp[t]));
	cp[t] = cs;
	return __builtin_popcountll(cs);
}
static ALWAYS_INLINE void d8slice64_impl(const int cond, int8_t *p, int64_t e, int64_t s, int torus, int64_t m, int64_t i,
                                         uint64_t *cp, int8_t *fv, int64_t *moved)
{
	int64_t t = 0;
	for (; 2 * t + 1 < m; t++)
		*moved += d8slice64_vec(cond, 0, p, e, s, torus, i, t, cp, fv);
	if (2 * t < m)
		*moved += d8slice64_vec(cond, 1, p, e, s, torus, i, t, cp, fv);
}
/* lbt_d8slice_fn (lm.c), for C0, C1, C3, C5 */
static void d8slice64(int cond, int8_t *p, int64_t e, int64_t s, int torus, int64_t m, int64_t i, uint64_t *cp, int8_t *fv,
                      int64_t *moved)
{
	switch (cond) {
	case LBT_C0: d8slice64_impl(LBT_C0, p, e, s, torus, m, i, cp, fv, moved); break;
	case LBT_C1: d8slice64_impl(LBT_C1, p, e, s, torus, m, i, cp, fv, moved); break;
	case LBT_C3: d8slice64_impl(LBT_C3, p, e, s, torus, m, i, cp, fv, moved); break;
	default: d8slice64_impl(LBT_C5, p, e, s, torus, m, i, cp, fv, moved); break;
	}
}

/* Vectors of groups, units u0 .. u1-1 (contiguous), the statistics on the
 * row's axis. */
static ALWAYS_INLINE void d8groups64(const int cond, const int stats, int8_t *b, const lbt_d8axis *a, int64_t u0,
                                     int64_t u1, d8pass_regs *R)
{
	const V nx = simde_mm512_broadcast_i32x4(simde_mm_loadu_si128((const void *)a->next));
	const V pv = simde_mm512_broadcast_i32x4(simde_mm_loadu_si128((const void *)a->prev));
	const uint64_t edge = simde_mm512_movepi8_mask(simde_mm512_broadcast_i32x4(simde_mm_loadu_si128((const void *)a->edge)));
	for (int64_t i = u0 * D8U; i < u1 * D8U; i += BW) {
		const int half = i + BW > u1 * D8U;
		const uint64_t h = half ? 0xffffffffu : ~(uint64_t)0;
		const V l = d8load(half, b + i);
		const uint64_t cs = nshift_cond(cond, 1, 0, l, simde_mm512_shuffle_epi8(l, nx)) & edge & h;
		/* y = l - C_i + C_{i-1}, the predecessor's C_i by the shuffle back */
		const V y = simde_mm512_sub_epi8(BDEC(l, cs), simde_mm512_shuffle_epi8(simde_mm512_movm_epi8(cs), pv));
		R->moved += __builtin_popcountll(cs);
		if (stats) {
			R->mx = simde_mm512_mask_max_epi8(R->mx, h, R->mx, y);
			R->mn = simde_mm512_mask_min_epi8(R->mn, h, R->mn, y);
			R->sum = simde_mm512_add_epi64(R->sum, simde_mm512_sad_epu8(y, BSET1(0))); /* a half's high lanes are 0 */
		}
		d8store(half, b + i, y);
	}
}
static ALWAYS_INLINE void d8pass64_impl(const int cond, int8_t *b, const lbt_d8axis *a, int streamed, int64_t u0,
                                        int64_t u1, int64_t *out)
{
	d8pass_regs R = {BSET1(INT8_MIN), BSET1(INT8_MAX), VSET1(0), 0};
	if (a->kind == DCOL)
		d8cols64(cond, b, a->e, a->s, a->torus, streamed, u0, u1, &R);
	else if (a->kind == DGROUP)
		(a->s == 1 ? d8groups64(cond, 1, b, a, u0, u1, &R) : d8groups64(cond, 0, b, a, u0, u1, &R));
	else
		switch (a->s) {
		case 4: d8lanes64(cond, 4, b, a->e, a->torus, u0, u1, &R); break;
		case 8: d8lanes64(cond, 8, b, a->e, a->torus, u0, u1, &R); break;
		default: d8lanes64(cond, 16, b, a->e, a->torus, u0, u1, &R); break;
		}
	out[0] = R.moved;
	out[1] = a->s == 1 ? simde_mm512_reduce_add_epi64(R.sum) : 0;
	out[2] = a->s == 1 ? d8row_reduce(R.mx, 1) : INT8_MIN;
	out[3] = a->s == 1 ? d8row_reduce(R.mn, 0) : INT8_MAX;
}
/* lbt_d8pass_fn (lm.c), for C0, C1, C3, C5 (the byte copy's) */
static void d8pass64(int cond, int8_t *b, const lbt_d8axis *a, int streamed, int64_t u0, int64_t u1, int64_t *out)
{
	switch (cond) {
	case LBT_C0: d8pass64_impl(LBT_C0, b, a, streamed, u0, u1, out); break;
	case LBT_C1: d8pass64_impl(LBT_C1, b, a, streamed, u0, u1, out); break;
	case LBT_C3: d8pass64_impl(LBT_C3, b, a, streamed, u0, u1, out); break;
	default: d8pass64_impl(LBT_C5, b, a, streamed, u0, u1, out); break;
	}
}

/* The int16 copy's pass along the row (lm_dense.h, dense_lanes with s =
 * 1) in 32 int16 lanes, every condition: a block of e PEs (a multiple of
 * 32), the neighbours one lane across vectors (HSHL1, HSHR1), the C_i of
 * the predecessor the mask shifted by one; the sum in int32 pairs emptied
 * every D16FLUSH vectors (a pair's lane gains at most 65534 a vector). */
enum { D16FLUSH = 1 << 14 };
typedef struct {
	V mx, mn, sum;
	int64_t moved, total, k;
} d16row_regs;
static ALWAYS_INLINE uint32_t d16row64_vec(const int cond, int16_t *p, V prev, V cur, V next, uint32_t csp,
                                           uint32_t linked, d16row_regs *R)
{
	const uint64_t pg = cond == LBT_C2 || cond == LBT_C4 ? ngt1(0, HSHL1(prev, cur)) : 0;
	const uint32_t cs = (uint32_t)nshift_cond(cond, 0, pg, cur, HSHR1(cur, next)) & linked;
	const V x = HINC(HDEC(cur, cs), cs << 1 | csp >> 31);
	R->moved += __builtin_popcount(cs);
	R->mx = HMAX(R->mx, x);
	R->mn = HMIN(R->mn, x);
	R->sum = VADD(R->sum, HPAIRS(x));
	if (++R->k == D16FLUSH) {
		R->total += vsum32(R->sum);
		R->sum = VSET1(0);
		R->k = 0;
	}
	VSTORE(p, x);
	return cs;
}
static ALWAYS_INLINE void d16row64_impl(const int cond, int16_t *b, int64_t e, int torus, int64_t u0, int64_t u1,
                                        int64_t *out)
{
	const int64_t J = e / (2 * W);
	d16row_regs R = {HSET1(INT16_MIN), HSET1(INT16_MAX), VSET1(0), 0, 0, 0};
	for (int64_t u = u0; u < u1; u++) {
		int16_t *p = b + u * e;
		const V first = VLOAD(p), lastv = VLOAD(p + (J - 1) * 2 * W);
		V prev = torus ? lastv : VSET1(0), cur = first;
		uint32_t csp = 0;
		if (torus) { /* C_i of the last vector, whose last lane hands it to the first */
			const V before = J > 1 ? VLOAD(p + (J - 2) * 2 * W) : lastv;
			const uint64_t pg = cond == LBT_C2 || cond == LBT_C4 ? ngt1(0, HSHL1(before, lastv)) : 0;
			csp = (uint32_t)nshift_cond(cond, 0, pg, lastv, HSHR1(lastv, first));
		}
		int64_t j = 0;
		for (; j + 1 < J; j++) {
			const V next = VLOAD(p + (j + 1) * 2 * W);
			csp = d16row64_vec(cond, p + j * 2 * W, prev, cur, next, csp, ~(uint32_t)0, &R);
			prev = cur;
			cur = next;
		}
		d16row64_vec(cond, p + j * 2 * W, prev, cur, torus ? first : VSET1(0), csp,
		             torus ? ~(uint32_t)0 : ~(uint32_t)0 >> 1, &R);
	}
	int16_t mx[2 * W] __attribute__((aligned(64))), mn[2 * W] __attribute__((aligned(64)));
	VSTORE(mx, R.mx);
	VSTORE(mn, R.mn);
	out[0] = R.moved;
	out[1] = R.total + vsum32(R.sum);
	out[2] = INT16_MIN;
	out[3] = INT16_MAX;
	for (int i = 0; i < 2 * W; i++) {
		out[2] = mx[i] > out[2] ? mx[i] : out[2];
		out[3] = mn[i] < out[3] ? mn[i] : out[3];
	}
}
/* lbt_d16row_fn (lm.c) */
static void d16row64(int cond, int16_t *b, int64_t e, int torus, int64_t u0, int64_t u1, int64_t *out)
{
	switch (cond) {
	case LBT_C0: d16row64_impl(LBT_C0, b, e, torus, u0, u1, out); break;
	case LBT_C1: d16row64_impl(LBT_C1, b, e, torus, u0, u1, out); break;
	case LBT_C2: d16row64_impl(LBT_C2, b, e, torus, u0, u1, out); break;
	case LBT_C3: d16row64_impl(LBT_C3, b, e, torus, u0, u1, out); break;
	case LBT_C4: d16row64_impl(LBT_C4, b, e, torus, u0, u1, out); break;
	default: d16row64_impl(LBT_C5, b, e, torus, u0, u1, out); break;
	}
}

#endif

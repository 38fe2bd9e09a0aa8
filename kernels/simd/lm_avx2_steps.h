/* lm_avx2_steps.h — lm_steps with AVX2 (part of lm.c, included for W == 8
 * after the step's driver): a 2-D grid whose loads all fit bytes, kept in a
 * byte copy for the call's steps. */
#ifndef LBT_LM_AVX2_STEPS_H
#define LBT_LM_AVX2_STEPS_H

/* Byte steps. In a 2-D torus whose loads are all in 0 .. BTOP they stay
 * there for any number of steps: no condition lifts the maximum above
 * max(initial maximum, 2) (Henrich's Lemma 1) and none takes a load below
 * 0 (a PE gives only if its load is at least 1); on a mesh, whose last PE
 * of an axis gives nothing, a load grows by at most 2 a step, so a call of
 * n steps takes loads up to 127 - 2n. So lm_steps packs such a grid once into a byte copy, steps it there n times, 32 PEs a vector, one
 * byte a PE read and written per step instead of four (the int32 and int16
 * rows of plane_impl pack and widen every row every step), and widens it
 * back once. A row's two substeps are made in registers as frow_body makes
 * them (the outer-axis update of chunk j+1 just before the row update of
 * chunk j; C_i along the outer axis handed on to the next row in cpb). No
 * byte ever saturates, so every step is exact. Only the conditions that
 * look at no predecessor's load (C0, C1, C3, C5): C2 and C4 take the rows
 * of lm_step. Unlike AVX-512's byte copy (lm_avx512_steps.h), every row is
 * a byte row: a grid with a load above BTOP takes lm_step. Threads take
 * contiguous ranges of rows and meet at one barrier a step; the rows
 * before and after a range come from copies its neighbours made before
 * it (b2steps_thread). */
enum { BW = 4 * W, BTOP = 125, BMAX_N = 4096 };
#define BSET1(x) simde_mm256_set1_epi8(x)
#define BGE(a, b) simde_mm256_cmpeq_epi8(simde_mm256_max_epi8((a), (b)), (a))
/* lane i-1 (prev's last at 0) and lane i+1 (next's first at 31) */
#define BSHL1(prev, cur) simde_mm256_alignr_epi8((cur), simde_mm256_permute2x128_si256((prev), (cur), 0x21), 15)
#define BSHR1(cur, next) simde_mm256_alignr_epi8(simde_mm256_permute2x128_si256((cur), (next), 0x21), (cur), 1)

/* shift_cond in 32 int8 lanes, -1 where it holds (not for C2, C4). */
static ALWAYS_INLINE V bcond(const int cond, V l, V ln)
{
	switch (cond) {
	case LBT_C0: return simde_mm256_cmpgt_epi8(l, BSET1(0));
	case LBT_C1: return simde_mm256_cmpgt_epi8(l, BSET1(1));
	case LBT_C3: return BGE(l, simde_mm256_max_epi8(ln, BSET1(2)));
	default: return BGE(l, simde_mm256_max_epi8(ln, BSET1(1))); /* C5 */
	}
}

/* A thread's counters of one step: max and min in int8 lanes; the shifts
 * along the outer axis (cv) and along the row (ch) in uint8 lanes, each
 * gaining at most 1 per lane and chunk, emptied into mv (64-bit lanes)
 * before they could pass 255; the total in 64-bit lanes. */
typedef struct {
	V mx, mn, cv, ch, sum, mv;
	int64_t adds;
} bregs;
#define BREGS_EMPTY {BSET1(INT8_MIN), BSET1(INT8_MAX), BSET1(0), BSET1(0), VSET1(0), VSET1(0), 0}

/* 32 loads of four int32 vectors at p in lane order, saturated to int8. */
static ALWAYS_INLINE V bpack(const int32_t *p)
{
	const V ab = simde_mm256_packs_epi32(VLOAD(p), VLOAD(p + W)), cd = simde_mm256_packs_epi32(VLOAD(p + 2 * W), VLOAD(p + 3 * W));
	return simde_mm256_permutevar8x32_epi32(simde_mm256_packs_epi16(ab, cd), simde_mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
}
/* 32 loads in int8 lanes (all >= 0) widened into four int32 vectors at
 * out; with stream, by streaming stores (the caller fences). */
static ALWAYS_INLINE void bwiden_store(int32_t *out, V x, const int stream)
{
	const simde__m128i lo = simde_mm256_castsi256_si128(x), hi = simde_mm256_extracti128_si256(x, 1);
	const V w[4] = {simde_mm256_cvtepi8_epi32(lo), simde_mm256_cvtepi8_epi32(simde_mm_srli_si128(lo, 8)),
	                simde_mm256_cvtepi8_epi32(hi), simde_mm256_cvtepi8_epi32(simde_mm_srli_si128(hi, 8))};
	for (int k = 0; k < 4; k++)
		if (stream)
			simde_mm256_stream_si256((void *)(out + k * W), w[k]);
		else
			VSTORE(out + k * W, w[k]);
}

/* Outer-axis update of byte chunk j of row pl, its successor pn: C_{i-1}
 * from cpb, C_i (masked by nm) left there. */
static ALWAYS_INLINE V bvert(const int cond, const int8_t *pl, const int8_t *pn, int64_t j, V nm, V *cpb, bregs *B)
{
	const V l = VLOAD(pl + j * BW), d = VLOAD(pn + j * BW);
	const V cs = simde_mm256_and_si256(bcond(cond, l, d), nm), cp = cpb[j];
	cpb[j] = cs;
	B->cv = simde_mm256_sub_epi8(B->cv, cs);
	return simde_mm256_sub_epi8(simde_mm256_add_epi8(l, cs), cp);
}

/* Row update of byte chunk cur, stored at out. */
static ALWAYS_INLINE void bhorz(const int cond, V prev, V cur, V next, V linked, int8_t *out, bregs *B)
{
	const V cp = bcond(cond, BSHL1(prev, cur), cur);
	const V cs = simde_mm256_and_si256(bcond(cond, cur, BSHR1(cur, next)), linked);
	B->ch = simde_mm256_sub_epi8(B->ch, cs);
	const V x = simde_mm256_sub_epi8(simde_mm256_add_epi8(cur, cs), cp);
	B->mx = simde_mm256_max_epi8(B->mx, x);
	B->mn = simde_mm256_min_epi8(B->mn, x);
	B->sum = simde_mm256_add_epi64(B->sum, simde_mm256_sad_epu8(x, BSET1(0)));
	VSTORE(out, x);
}

/* Both substeps of byte row pl (n PEs, a whole number of byte chunks), in
 * place: chunk j is stored after chunk j+1 was read; chunks 0 and J-1 are
 * made first, the torus neighbours of the row's ends. */
static ALWAYS_INLINE void brow_impl(const int cond, int8_t *pl, const int8_t *pn, int64_t n, int has_next, int torus,
                                    V *cpb, bregs *B)
{
	const int64_t J = n / BW;
	const V all = VSET1(-1), nm = has_next ? all : VSET1(0);
	if (B->adds + J > 255) {
		B->mv = simde_mm256_add_epi64(B->mv, simde_mm256_add_epi64(simde_mm256_sad_epu8(B->cv, BSET1(0)),
		                                                           simde_mm256_sad_epu8(B->ch, BSET1(0))));
		B->cv = B->ch = BSET1(0);
		B->adds = 0;
	}
	B->adds += J;
	const V first = bvert(cond, pl, pn, 0, nm, cpb, B);
	const V lastv = J > 1 ? bvert(cond, pl, pn, J - 1, nm, cpb, B) : first;
	V prev = torus ? lastv : VSET1(0), cur = first;
	int64_t j = 0;
	for (; j + 2 < J; j++) {
		const V next = bvert(cond, pl, pn, j + 1, nm, cpb, B);
		bhorz(cond, prev, cur, next, all, pl + j * BW, B);
		prev = cur;
		cur = next;
		PIN(B->mx, B->mn, B->ch, B->sum, prev);
	}
	if (j + 1 < J) {
		bhorz(cond, prev, cur, lastv, all, pl + j * BW, B);
		prev = cur;
		cur = lastv;
		j++;
	}
	bhorz(cond, prev, cur, torus ? first : VSET1(0), torus ? all : simde_mm256_insert_epi8(all, 0, 31), pl + j * BW, B);
}

/* One step of a thread's rows r0 .. r1-1 of the byte copy g (rows of n
 * PEs): each row with its successor, the last with nx (after: it has one);
 * the counters in a local that no store into the rows can alias (through
 * an int8_t pointer a store may reach any object whose address escaped:
 * the counters would be loaded and stored at every chunk). */
static ALWAYS_INLINE void bstep_impl(const int cond, int8_t *g, int64_t r0, int64_t r1, int64_t n, const int8_t *nx,
                                     int after, int torus, V *cpb, bregs *out)
{
	bregs B = BREGS_EMPTY;
	int8_t *const last = g + (r1 - 1) * n;
	for (int8_t *p = g + r0 * n; p < last; p += n)
		brow_impl(cond, p, p + n, n, 1, torus, cpb, &B);
	brow_impl(cond, last, nx, n, after, torus, cpb, &B);
	*out = B;
}
typedef void (*bstep_fn)(int8_t *, int64_t, int64_t, int64_t, const int8_t *, int, int, V *, bregs *);
#define BSTEPS(k)                                                                                               \
	static void bstep_##k(int8_t *g, int64_t r0, int64_t r1, int64_t n, const int8_t *nx, int after, int torus, \
	                      V *cpb, bregs *out)                                                                   \
	{ bstep_impl(k, g, r0, r1, n, nx, after, torus, cpb, out); }
BSTEPS(0) BSTEPS(1) BSTEPS(3) BSTEPS(5)
static const bstep_fn bsteps[LBT_NCOND] = {bstep_0, bstep_1, NULL, bstep_3, NULL, bstep_5};

/* The largest and smallest of 32 int8 lanes. */
static int32_t bmax8(V x)
{
	int8_t b[BW] __attribute__((aligned(LBT_ALIGN)));
	VSTORE(b, x);
	int32_t m = b[0];
	for (int i = 1; i < BW; i++)
		m = b[i] > m ? b[i] : m;
	return m;
}
static int32_t bmin8(V x)
{
	int8_t b[BW] __attribute__((aligned(LBT_ALIGN)));
	VSTORE(b, x);
	int32_t m = b[0];
	for (int i = 1; i < BW; i++)
		m = b[i] < m ? b[i] : m;
	return m;
}
static int64_t bsum64(V x)
{
	int64_t q[4] __attribute__((aligned(LBT_ALIGN)));
	VSTORE(q, x);
	return q[0] + q[1] + q[2] + q[3];
}

typedef struct {
	const lbt_view *v;
	const lbt_steps_stop *stop;
	int cond, n, top; /* top: the largest load that lets the copy take the call's steps */
	int64_t N0, len;
	int8_t *g;     /* the byte copy, row q at g + q len */
	char *buf;     /* per thread: bper bytes (its first and last rows as the two last steps left them, then cpb) */
	int64_t bper;
	int *fits;     /* per thread: its rows' loads all fit */
	kresult *res;  /* per step and thread */
	int go, done;
} b2ctx;

/* Thread id of the team's T: pack its rows; if every thread's fit, step
 * them until n steps are done or a step meets the stop, and widen them
 * back. After each step (and the packing) a thread copies its first and
 * last rows into its buffer, by the step's parity, and waits at the one
 * barrier of the step; then its first row takes what the row before it
 * hands on from the copy of the thread before, and its last row takes the
 * next thread's copy as its successor. The other parity's copies, which
 * the next step reads, are written again only after the next barrier. */
static void b2steps_thread(void *ctx, const lbt_team *team)
{
	b2ctx *x = ctx;
	const lbt_view *v = x->v;
	const int id = team->id, T = team->n, torus = v->torus[0], row_torus = v->torus[1];
	const int64_t N0 = x->N0, n = x->len, J = n / BW, r0 = N0 * id / T, r1 = N0 * (id + 1) / T, s0 = v->stride[0];
	int8_t *const g = x->g;
	V *const cpb = (V *)(x->buf + id * x->bper + 4 * n);
	/* thread t's copy of its first (k = 0) or last (k = 1) row, parity p */
#define BEDGE(t, p, k) ((int8_t *)(x->buf + (t) * x->bper + (2 * (p) + (k)) * n))
	const int prev = id > 0 ? id - 1 : T - 1, next = id < T - 1 ? id + 1 : 0;
	V top = BSET1(0);
	for (int64_t q = r0; q < r1; q++)
		for (int64_t j = 0; j < n; j += BW) {
			const V d = bpack(v->load + q * s0 + j);
			VSTORE(g + q * n + j, d);
			top = simde_mm256_max_epu8(top, d);
		}
	memcpy(BEDGE(id, 1, 0), g + r0 * n, (size_t)n);
	memcpy(BEDGE(id, 1, 1), g + (r1 - 1) * n, (size_t)n);
	const V lim = BSET1((char)x->top);
	x->fits[id] = simde_mm256_movemask_epi8(simde_mm256_cmpeq_epi8(simde_mm256_max_epu8(top, lim), lim)) == -1;
	lbt_team_barrier(team);
	int all = 1; /* each thread sees the same */
	for (int i = 0; i < T; i++)
		all &= x->fits[i];
	if (id == 0)
		x->go = all;
	if (!all)
		return; /* the grid is untouched */
	const bstep_fn f = bsteps[x->cond];
	const int before = torus || r0 > 0, after = torus || r1 < N0;
	int s = 0;
	for (;;) {
		const int p = s & 1, q = p ^ 1; /* this step's parity, and the last one's */
		const int8_t *pm = BEDGE(prev, q, 1), *p0 = g + r0 * n;
		for (int64_t j = 0; j < J; j++)
			cpb[j] = before ? bcond(x->cond, VLOAD(pm + j * BW), VLOAD(p0 + j * BW)) : VSET1(0);
		bregs B;
		f(g, r0, r1, n, BEDGE(next, q, 0), after, row_torus, cpb, &B);
		memcpy(BEDGE(id, p, 0), g + r0 * n, (size_t)n);
		memcpy(BEDGE(id, p, 1), g + (r1 - 1) * n, (size_t)n);
		x->res[s * T + id] = (kresult){.moved = bsum64(simde_mm256_add_epi64(B.mv, simde_mm256_add_epi64(
		                                           simde_mm256_sad_epu8(B.cv, BSET1(0)), simde_mm256_sad_epu8(B.ch, BSET1(0))))),
		                               .total = bsum64(B.sum), .max = bmax8(B.mx), .min = bmin8(B.mn)};
		lbt_team_barrier(team);
		const kresult r = ksum(&x->res[s * T], T);
		if (++s == x->n || stop_met(x->stop, r.max, r.min))
			break;
	}
#undef BEDGE
	if (id == 0)
		x->done = s;
	/* widened back; a grid beyond the second-level cache with streaming stores, whose
	 * old lines need not be read first (on 4096x4096, a fifth of a call's
	 * memory traffic) */
	if (N0 * n >= (1 << 17)) /* 512 KiB of int32: beyond Zen 3's L2 */
		for (int64_t q = r0; q < r1; q++)
			for (int64_t j = 0; j < n; j += BW)
				bwiden_store(v->load + q * s0 + j, VLOAD(g + q * n + j), 1);
	else
		for (int64_t q = r0; q < r1; q++)
			for (int64_t j = 0; j < n; j += BW)
				bwiden_store(v->load + q * s0 + j, VLOAD(g + q * n + j), 0);
	simde_mm_sfence();
}

/* What lm_bcut.h needs (its head says what each is). */
#define BCUT_STEPS bsteps
#define BCUT_STEP_FN bstep_fn
#define BCUT_CPB V
#define BCUT_CPB_BYTES(len) ((int64_t)sizeof(V) * ((len) / BW))
static void bcut_first(const int cond, const int8_t *pm, const int8_t *pr, int64_t n, V *cpb)
{
	for (int64_t j = 0; j < n / BW; j++)
		cpb[j] = pm ? bcond(cond, VLOAD(pm + j * BW), VLOAD(pr + j * BW)) : VSET1(0);
}
static kresult bcut_counts(const bregs *B)
{
	return (kresult){.moved = bsum64(simde_mm256_add_epi64(B->mv, simde_mm256_add_epi64(simde_mm256_sad_epu8(B->cv, BSET1(0)),
	                                                                                     simde_mm256_sad_epu8(B->ch, BSET1(0))))),
	                 .total = bsum64(B->sum), .max = bmax8(B->mx), .min = bmin8(B->mn)};
}
static V bmax_u8(V a, V b) { return simde_mm256_max_epu8(a, b); }
static int bfits_u8(V top, int lim)
{
	const V l = BSET1((char)lim);
	return simde_mm256_movemask_epi8(simde_mm256_cmpeq_epi8(simde_mm256_max_epu8(top, l), l)) == -1;
}
static void bcut_widen(int32_t *at, int64_t s0, const int8_t *g, int64_t n, int64_t p0, int64_t p1, int64_t total)
{
	const int stream = total >= (1 << 17); /* beyond Zen 3's L2, as b2steps_thread */
	for (int64_t q = p0; q < p1; q++)
		for (int64_t j = 0; j < n; j += BW)
			bwiden_store(at + q * s0 + j, VLOAD(g + q * n + j), stream);
	simde_mm_sfence();
}
#include "lm_bcut.h"

/* lm_steps in bytes: the steps done (each one's counts into c), or 0 where
 * the grid does not take them (then nothing was changed). */
static int bytes2_steps(const lbt_view *v, int cond, int n, int32_t max, const lbt_steps_stop *stop, lbt_lm_cache *cache,
                        lbt_counts *c)
{
	const int64_t N0 = v->ext[0], len = v->dims == 2 ? v->ext[1] : 0;
	if (n < 2 || !cache || v->dims != 2 || v->cut || !bsteps[cond] || N0 < 3 || len < BW || len % BW || len > BMAX_N ||
	    (uintptr_t)v->load % LBT_ALIGN || v->stride[0] % 16 || v->stride[1] != 1 || max > BTOP || cache->wait-- > 0)
		return 0;
	bspace S;
	if (!bspace_get(v, cache, N0, N0, len, n, BCUT_CPB_BYTES(len), &S))
		return 0;
	/* On a torus the loads stay at most BTOP (Lemma 1); the last PE of a
	 * mesh axis gives nothing and may pile up, by at most 2 a step. */
	const int top = v->torus[0] && v->torus[1] ? BTOP : INT8_MAX - 2 * n;
	if (top < 2)
		return 0;
	b2ctx x = {.v = v, .stop = stop, .cond = cond, .n = n, .top = top, .N0 = N0, .len = len, .g = S.g,
	           .fits = S.fits, .buf = S.buf, .bper = S.bper, .res = S.res};
	const int got = lbt_team_run((int)S.T, b2steps_thread, &x); /* at most S.T */
	/* loads that do not fit (a negative one): try again after 1, 2, 4, ... 256 calls */
	cache->backoff = x.go ? 0 : cache->backoff ? (cache->backoff < 256 ? 2 * cache->backoff : 256) : 1;
	cache->wait = cache->backoff;
	const int done = x.go ? x.done : 0;
	for (int s = 0; s < done; s++) {
		const kresult r = ksum(&x.res[s * got], got);
		c[s] = (lbt_counts){.moved = r.moved, .total = r.total, .max = r.max, .min = r.min, .shifts = 2, .has_stats = 1};
	}
	return done;
}

#endif

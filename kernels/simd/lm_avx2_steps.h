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

/* The byte steps' memory in the cache: a copy of `rows` rows of len
 * bytes, a flag a thread, each thread's bper bytes (its edge rows' copies,
 * then cpb) and `steps` steps' counters a thread, for T threads over ext0
 * rows (at least 2^16 PEs a thread). 0: no memory. */
typedef struct {
	int64_t T, bper;
	int8_t *g;
	int *fits;
	char *buf;
	kresult *res;
} bspace;

static int bspace_get(const lbt_view *v, lbt_lm_cache *cache, int64_t ext0, int64_t rows, int64_t len, int64_t steps,
                      bspace *S)
{
	enum { MIN_PES = 1 << 16 };
	int64_t T = v->threads > 1 ? v->threads : 1;
	T = T < ext0 ? T : ext0;
	T = T < ext0 * len / MIN_PES ? T : ext0 * len / MIN_PES;
	T = T < 1 ? 1 : T < LBT_SIMD_MAXT ? T : LBT_SIMD_MAXT;
	const int64_t bper = round_up(4 * len + (int64_t)sizeof(V) * (len / BW), LBT_ALIGN);
	const int64_t gsize = round_up(rows * len, LBT_ALIGN), fsize = round_up(T * (int64_t)sizeof(int), LBT_ALIGN);
	const size_t need = (size_t)(gsize + fsize + T * bper) + (size_t)(steps * T) * sizeof(kresult);
	if (cache->size < need) {
		free(cache->mem);
		cache->mem = lbt_alloc_aligned(need);
		cache->size = cache->mem ? need : 0;
	}
	char *mem = cache->mem;
	if (!mem)
		return 0;
	*S = (bspace){.T = T, .bper = bper, .g = (int8_t *)mem, .fits = (int *)(mem + gsize), .buf = mem + gsize + fsize,
	              .res = (kresult *)(mem + gsize + fsize + T * bper)};
	return 1;
}

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
	if (!bspace_get(v, cache, N0, N0, len, n, &S))
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

/* Byte steps on a cut view (deep halos: cut_round). A 2-D block cut along
 * its rows' axis (rows whole) keeps its rows in a byte copy for all of a
 * call's rounds: before a round's fill the rows the fill sends (the block's
 * first and last `layers`) are widened into the grid, after it the halo
 * rows the round reads (2m-1 below the block, m above, clipped at a mesh's
 * ends) are packed into the copy, and the round's m steps run on the copy
 * as cut_round runs them on the grid: step j updates the block and the
 * halo within 2(m-j) rows below it and m-j above it, whose old rows it
 * reads lie in step j-1's range or its packed halo. Only the block's rows
 * are counted (a halo row's counters are dropped). A round whose loads do
 * not all fit (a halo row beyond top, say) widens the block back and takes
 * cut_round's int32 rows. Copy row b is local row b - 2k (k: the deepest
 * round); the block's rows are 2k .. 2k + ext0 - 1. */
typedef struct {
	const lbt_view *v;
	lbt_lm_cache *cache;
	int cond, active, top, held, off; /* held: the block's loads are in the copy, not the grid */
	int32_t omax;                     /* the block's largest load after the last round */
	int Tr;                           /* the threads a round asks for */
	int m;                            /* this round's steps */
	int64_t k, len, rows, ext0, T;
	int64_t lo[LBT_CUT_MAX_STEPS], hi[LBT_CUT_MAX_STEPS]; /* step j+1's copy rows */
	int pred, succ;                   /* whether the copy rows before lo[0] and at hi[0] are PEs */
	int8_t *g;
	char *buf; /* per thread: bper bytes (its first and last rows as the two last steps left them, then cpb) */
	int64_t bper;
	int64_t p0, p1; /* a team's job: copy rows p0 .. p1-1 */
	int *fits;
	kresult *res; /* per step and thread */
} bcut;

/* Can v's steps take the byte copy? Then b is set up (nothing held yet). */
static int bcut_open(const lbt_view *v, int cond, int active, lbt_lm_cache *cache, bcut *b)
{
	const lbt_cut *cut = v->cut;
	const int64_t ext0 = v->ext[0], len = v->dims == 2 ? v->ext[1] : 0, k = cut ? cut->depth / LBT_HALO : 0;
	if (!cache || !cut || v->dims != 2 || !cut->on[0] || cut->on[1] || !bsteps[cond] || len < BW || len % BW ||
	    len > BMAX_N || k < 1 || k > LBT_CUT_MAX_STEPS || cache->wait-- > 0)
		return 0;
	const int64_t rows = ext0 + 3 * k;
	bspace S;
	if (!bspace_get(v, cache, ext0, rows, len, k, &S))
		return 0;
	*b = (bcut){.v = v, .cache = cache, .cond = cond, .active = active, .k = k, .len = len, .rows = rows, .ext0 = ext0, .T = S.T,
	            .g = S.g, .fits = S.fits, .buf = S.buf, .bper = S.bper, .res = S.res};
	return 1;
}

/* Thread id's share of copy rows p0 .. p1-1: packed from the grid (its
 * loads fit: fits[id]), or widened back into it. */
static void bcut_pack_thread(void *ctx, const lbt_team *team)
{
	bcut *b = ctx;
	const int64_t n = b->len, s0 = b->v->stride[0], p0 = b->p0 + (b->p1 - b->p0) * team->id / team->n,
	              p1 = b->p0 + (b->p1 - b->p0) * (team->id + 1) / team->n;
	int32_t *const at = b->v->load - 2 * b->k * s0; /* copy row 0 */
	V top = BSET1(0);
	for (int64_t q = p0; q < p1; q++)
		for (int64_t j = 0; j < n; j += BW) {
			const V d = bpack(at + q * s0 + j);
			VSTORE(b->g + q * n + j, d);
			top = simde_mm256_max_epu8(top, d);
		}
	const V lim = BSET1((char)b->top);
	b->fits[team->id] = simde_mm256_movemask_epi8(simde_mm256_cmpeq_epi8(simde_mm256_max_epu8(top, lim), lim)) == -1;
}
static void bcut_widen_thread(void *ctx, const lbt_team *team)
{
	bcut *b = ctx;
	const int64_t n = b->len, s0 = b->v->stride[0], p0 = b->p0 + (b->p1 - b->p0) * team->id / team->n,
	              p1 = b->p0 + (b->p1 - b->p0) * (team->id + 1) / team->n;
	int32_t *const at = b->v->load - 2 * b->k * s0;
	const int stream = (b->p1 - b->p0) * n >= (1 << 17); /* beyond Zen 3's L2, as b2steps_thread */
	for (int64_t q = p0; q < p1; q++)
		for (int64_t j = 0; j < n; j += BW)
			bwiden_store(at + q * s0 + j, VLOAD(b->g + q * n + j), stream);
	simde_mm_sfence();
}

/* Pack (or widen) copy rows p0 .. p1-1 (threads for the whole block, one
 * for a few halo rows); packed: do they all fit? */
static int bcut_pack(bcut *b, int64_t p0, int64_t p1, int widen)
{
	if (p0 >= p1)
		return 1;
	b->p0 = p0;
	b->p1 = p1;
	const int T = p1 - p0 >= b->ext0 ? (int)b->T : 1;
	const int got = lbt_team_run(T, widen ? bcut_widen_thread : bcut_pack_thread, b);
	int all = 1;
	for (int i = 0; !widen && i < got; i++)
		all &= b->fits[i];
	return all;
}

/* Before a fill of `layers` rows: the block's rows it sends, from the copy. */
static void bcut_edges(bcut *b, int layers)
{
	if (!b->held)
		return;
	const int64_t o0 = 2 * b->k, o1 = o0 + b->ext0, l = layers < b->ext0 ? layers : b->ext0;
	bcut_pack(b, o0, o0 + l, 1);
	bcut_pack(b, o1 - l > o0 + l ? o1 - l : o0 + l, o1, 1);
}

/* The block's loads back into the grid; the copy holds nothing. */
static void bcut_drop(bcut *b)
{
	if (b->held)
		bcut_pack(b, 2 * b->k, 2 * b->k + b->ext0, 1);
	b->held = 0;
}

/* A round's m steps of thread id, on copy rows r0 .. r1-1 of the first
 * step's range, each step's range clipped to them. Its first row's
 * predecessor and last row's successor, where another thread steps them,
 * come from that thread's copies of its first and last rows made after the
 * last step (b2steps_thread); elsewhere they are read in place (this step
 * writes no row outside its range). */
static void bcut_thread(void *ctx, const lbt_team *team)
{
	bcut *b = ctx;
	const int id = team->id, T = team->n, row_torus = b->v->torus[1];
	const int64_t n = b->len, J = n / BW, L0 = b->lo[0], L1 = b->hi[0], r0 = L0 + (L1 - L0) * id / T,
	              r1 = L0 + (L1 - L0) * (id + 1) / T, o0 = 2 * b->k, o1 = o0 + b->ext0;
	int8_t *const g = b->g;
	V *const cpb = (V *)(b->buf + id * b->bper + 4 * n);
#define BEDGE(t, p, k) ((int8_t *)(b->buf + (t) * b->bper + (2 * (p) + (k)) * n))
	if (T != b->Tr) { /* fewer threads than bcut_round made the first copies for: its rows are others' */
		if (T > 1) {
			memcpy(BEDGE(id, 1, 0), g + r0 * n, (size_t)n);
			memcpy(BEDGE(id, 1, 1), g + (r1 - 1) * n, (size_t)n);
		}
		lbt_team_barrier(team);
	}
	const bstep_fn f = bsteps[b->cond];
	for (int s = 0; s < b->m; s++) {
		const int p = s & 1, q = p ^ 1;
		const int64_t lo = b->lo[s], hi = b->hi[s], a = r0 > lo ? r0 : lo, e = r1 < hi ? r1 : hi;
		kresult r = {.max = INT32_MIN, .min = INT32_MAX};
		if (a < e) {
			const int8_t *pm = a == r0 && id > 0 && r0 > lo ? BEDGE(id - 1, q, 1)
			                   : a > L0 || b->pred             ? g + (a - 1) * n
			                                                   : NULL;
			const int8_t *nx = e == r1 && id < T - 1 && r1 < hi ? BEDGE(id + 1, q, 0)
			                   : e < L1 || b->succ             ? g + e * n
			                                                   : NULL;
			for (int64_t j = 0; j < J; j++)
				cpb[j] = pm ? bcond(b->cond, VLOAD(pm + j * BW), VLOAD(g + a * n + j * BW)) : VSET1(0);
			/* below the block, the block, above it: only the block's counters kept */
			const int64_t at[4] = {a, a > o0 ? a : e < o0 ? e : o0, e < o1 ? e : a > o1 ? a : o1, e};
			for (int h = 0; h < 3; h++) {
				if (at[h] == at[h + 1])
					continue;
				const int end = at[h + 1] == e;
				bregs B;
				f(g, at[h], at[h + 1], n, end ? (nx ? nx : g) : g + at[h + 1] * n, !end || nx, row_torus, cpb, &B);
				if (h == 1)
					r = (kresult){.moved = bsum64(simde_mm256_add_epi64(
					                  B.mv, simde_mm256_add_epi64(simde_mm256_sad_epu8(B.cv, BSET1(0)),
					                                              simde_mm256_sad_epu8(B.ch, BSET1(0))))),
					              .total = bsum64(B.sum), .max = bmax8(B.mx), .min = bmin8(B.mn)};
			}
		}
		b->res[s * T + id] = r;
		if (T > 1 && s + 1 < b->m) { /* after the round's last step the team's join waits */
			memcpy(BEDGE(id, p, 0), g + r0 * n, (size_t)n);
			memcpy(BEDGE(id, p, 1), g + (r1 - 1) * n, (size_t)n);
			lbt_team_barrier(team);
		}
	}
#undef BEDGE
}

/* After a fill of a round of m steps: the round in the copy (its counts
 * into c), or 0 where its loads do not all fit (then the grid holds the
 * block again and the copy is left for the rest of the call). */
static int bcut_round(bcut *b, int m, lbt_counts *c)
{
	if (b->off)
		return 0;
	const lbt_view *v = b->v;
	const lbt_cut *cut = v->cut;
	const int64_t N = cut->gext[0], g0 = v->origin[0], o0 = 2 * b->k, ext0 = b->ext0;
	const int torus = cut->torus[0];
	/* On a torus the loads stay at most BTOP (Lemma 1), in the copy too: a
	 * new load is at most the largest of the old ones it is made from, or
	 * 2; the last PE of a mesh axis gives nothing and may pile up, by at
	 * most 2 a step. */
	b->top = torus && v->torus[1] ? BTOP : INT8_MAX - 2 * m;
	b->m = m;
	for (int j = 1; j <= m; j++) {
		int64_t lo = -(int64_t)LBT_HALO * (m - j), hi = ext0 + (m - j);
		if (!torus) {
			lo = g0 + lo < 0 ? -g0 : lo;
			hi = g0 + hi > N ? N - g0 : hi;
		}
		b->lo[j - 1] = o0 + lo;
		b->hi[j - 1] = o0 + hi;
	}
	b->pred = torus || g0 + b->lo[0] - o0 > 0;
	b->succ = torus || g0 + b->hi[0] - o0 < N;
	const int64_t p0 = b->lo[0] - b->pred, p1 = b->hi[0] + b->succ; /* the rows the round reads */
	int fits = b->top >= 2;
	if (fits && !b->held)
		fits = bcut_pack(b, p0, p1, 0);
	else if (fits) /* the block's loads: at most the last step's maximum */
		fits = b->omax <= b->top && bcut_pack(b, p0, o0, 0) && bcut_pack(b, o0 + ext0, p1, 0);
	/* loads that do not fit: try again after 1, 2, 4, ... 256 calls */
	lbt_lm_cache *cache = b->cache;
	cache->backoff = fits ? 0 : cache->backoff ? (cache->backoff < 256 ? 2 * cache->backoff : 256) : 1;
	cache->wait = cache->backoff;
	if (!fits) {
		bcut_drop(b);
		b->off = 1;
		return 0;
	}
	b->held = 1;
	const int64_t T = b->T < b->hi[0] - b->lo[0] ? b->T : b->hi[0] - b->lo[0];
	/* the copies of each thread's first and last rows its neighbours read in the first step */
	b->Tr = (int)T;
	for (int64_t t = 0; T > 1 && t < T; t++) {
		const int64_t r0 = b->lo[0] + (b->hi[0] - b->lo[0]) * t / T, r1 = b->lo[0] + (b->hi[0] - b->lo[0]) * (t + 1) / T;
		memcpy(b->buf + t * b->bper + 2 * b->len, b->g + r0 * b->len, (size_t)b->len);
		memcpy(b->buf + t * b->bper + 3 * b->len, b->g + (r1 - 1) * b->len, (size_t)b->len);
	}
	const int got = lbt_team_run((int)T, bcut_thread, b);
	for (int s = 0; s < m; s++) {
		const kresult r = ksum(&b->res[s * got], got);
		c[s] = (lbt_counts){.moved = r.moved, .total = r.total, .max = r.max, .min = r.min, .shifts = b->active,
		                    .has_stats = 1};
	}
	b->omax = c[m - 1].max;
	return 1;
}

#endif

/* lm_bcut.h — byte steps on a cut slab, shared by AVX2 and AVX-512 (part
 * of lm.c: included by lm_avx2_steps.h and lm_avx512_steps.h after their
 * byte rows), and the byte steps' memory (bspace_get, which AVX2's uncut
 * byte steps take too). Each includer defines first, for its vectors:
 *   BCUT_STEPS, BCUT_STEP_FN  its table of steps of copy rows r0 .. r1-1,
 *                             C_i along the outer axis handed on in cpb
 *                             (NULL for a condition it does not take);
 *   BCUT_CPB, BCUT_CPB_BYTES  cpb's element, and its bytes for rows of len;
 *   bcut_first                what byte row pm hands on to row pr (its C_i;
 *                             pm NULL: none) into cpb;
 *   bcut_counts               the counters of a step of rows (bregs);
 *   bmax_u8, bfits_u8         unsigned byte maxima, and whether all of a
 *                             vector's are at most a top;
 *   bcut_widen                copy rows p0 .. p1-1 widened into the grid
 *                             (of a job of `total` bytes in all). */
#ifndef LBT_LM_BCUT_H
#define LBT_LM_BCUT_H

/* The byte steps' memory in the cache: a copy of `rows` rows of len
 * bytes, a flag a thread, each thread's bper bytes (its edge rows' copies,
 * then cpb: `cpb` bytes) and `steps` steps' counters a thread, for T
 * threads over ext0 rows (at least 2^16 PEs a thread). 0: no memory. */
typedef struct {
	int64_t T, bper;
	int8_t *g;
	int *fits;
	char *buf;
	kresult *res;
} bspace;

static int bspace_get(const lbt_view *v, lbt_lm_cache *cache, int64_t ext0, int64_t rows, int64_t len, int64_t steps,
                      int64_t cpb, bspace *S)
{
	enum { MIN_PES = 1 << 16 };
	int64_t T = v->threads > 1 ? v->threads : 1;
	T = T < ext0 ? T : ext0;
	T = T < ext0 * len / MIN_PES ? T : ext0 * len / MIN_PES;
	T = T < 1 ? 1 : T < LBT_SIMD_MAXT ? T : LBT_SIMD_MAXT;
	const int64_t bper = round_up(4 * len + cpb, LBT_ALIGN);
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
	if (!cache || !cut || v->dims != 2 || !cut->on[0] || cut->on[1] || !BCUT_STEPS[cond] || len < BW || len % BW ||
	    len > BMAX_N || k < 1 || k > LBT_CUT_MAX_STEPS || cache->wait-- > 0)
		return 0;
	const int64_t rows = ext0 + 3 * k;
	bspace S;
	if (!bspace_get(v, cache, ext0, rows, len, k, BCUT_CPB_BYTES(len), &S))
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
			top = bmax_u8(top, d); /* unsigned: a negative load does not fit */
		}
	b->fits[team->id] = bfits_u8(top, b->top);
}
static void bcut_widen_thread(void *ctx, const lbt_team *team)
{
	bcut *b = ctx;
	const int64_t n = b->len, s0 = b->v->stride[0], p0 = b->p0 + (b->p1 - b->p0) * team->id / team->n,
	              p1 = b->p0 + (b->p1 - b->p0) * (team->id + 1) / team->n;
	int32_t *const at = b->v->load - 2 * b->k * s0;
	bcut_widen(at, s0, b->g, n, p0, p1, (b->p1 - b->p0) * n);
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
 * last step; elsewhere they are read in place (this step
 * writes no row outside its range). */
static void bcut_thread(void *ctx, const lbt_team *team)
{
	bcut *b = ctx;
	const int id = team->id, T = team->n, row_torus = b->v->torus[1];
	const int64_t n = b->len, L0 = b->lo[0], L1 = b->hi[0], r0 = L0 + (L1 - L0) * id / T,
	              r1 = L0 + (L1 - L0) * (id + 1) / T, o0 = 2 * b->k, o1 = o0 + b->ext0;
	int8_t *const g = b->g;
	BCUT_CPB *const cpb = (BCUT_CPB *)(b->buf + id * b->bper + 4 * n);
#define BEDGE(t, p, k) ((int8_t *)(b->buf + (t) * b->bper + (2 * (p) + (k)) * n))
	if (T != b->Tr) { /* fewer threads than bcut_round made the first copies for: its rows are others' */
		if (T > 1) {
			memcpy(BEDGE(id, 1, 0), g + r0 * n, (size_t)n);
			memcpy(BEDGE(id, 1, 1), g + (r1 - 1) * n, (size_t)n);
		}
		lbt_team_barrier(team);
	}
	const BCUT_STEP_FN f = BCUT_STEPS[b->cond];
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
			bcut_first(b->cond, pm, g + a * n, n, cpb);
			/* below the block, the block, above it: only the block's counters kept */
			const int64_t at[4] = {a, a > o0 ? a : e < o0 ? e : o0, e < o1 ? e : a > o1 ? a : o1, e};
			for (int h = 0; h < 3; h++) {
				if (at[h] == at[h + 1])
					continue;
				const int end = at[h + 1] == e;
				bregs B;
				f(g, at[h], at[h + 1], n, end ? (nx ? nx : g) : g + at[h + 1] * n, !end || nx, row_torus, cpb, &B);
				if (h == 1)
					r = bcut_counts(&B);
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

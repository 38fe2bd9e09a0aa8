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

/* Byte steps on a cut view (deep halos: cut_round), as AVX2's (bcut_* in
 * lm_avx2_steps.h, whose comments say why each step is exact): a 2-D block
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

/* Can v's steps take the byte copy? Then b is set up (nothing held yet). */
static int bcut_open(const lbt_view *v, int cond, int active, lbt_lm_cache *cache, bcut *b)
{
	enum { MIN_PES = 1 << 16 };
	const lbt_cut *cut = v->cut;
	const int64_t ext0 = v->ext[0], len = v->dims == 2 ? v->ext[1] : 0, k = cut ? cut->depth / LBT_HALO : 0;
	if (!cache || !cut || v->dims != 2 || !cut->on[0] || cut->on[1] || !bcsteps[cond] || len < BW || len % BW ||
	    len > BMAX_N || k < 1 || k > LBT_CUT_MAX_STEPS || cache->wait-- > 0)
		return 0;
	const int64_t rows = ext0 + 3 * k;
	int64_t T = v->threads > 1 ? v->threads : 1; /* at least 2^16 PEs a thread */
	T = T < ext0 ? T : ext0;
	T = T < ext0 * len / MIN_PES ? T : ext0 * len / MIN_PES;
	T = T < 1 ? 1 : T < LBT_SIMD_MAXT ? T : LBT_SIMD_MAXT;
	const int64_t bper = round_up(4 * len + (int64_t)sizeof(M) * (len / W), LBT_ALIGN);
	const int64_t gsize = round_up(rows * len, LBT_ALIGN), fsize = round_up(T * (int64_t)sizeof(int), LBT_ALIGN);
	const size_t need = (size_t)(gsize + fsize + T * bper) + (size_t)(k * T) * sizeof(kresult);
	if (cache->size < need) {
		free(cache->mem);
		cache->mem = lbt_alloc_aligned(need);
		cache->size = cache->mem ? need : 0;
	}
	char *mem = cache->mem;
	if (!mem)
		return 0;
	*b = (bcut){.v = v, .cache = cache, .cond = cond, .active = active, .k = k, .len = len, .rows = rows, .ext0 = ext0,
	            .T = T, .g = (int8_t *)mem, .fits = (int *)(mem + gsize), .buf = mem + gsize + fsize, .bper = bper,
	            .res = (kresult *)(mem + gsize + fsize + T * bper)};
	return 1;
}

/* Thread id's share of copy rows p0 .. p1-1: packed from the grid (its
 * loads fit: fits[id]), or widened back into it. */
static void bcut_pack_thread(void *ctx, const lbt_team *team)
{
	bcut *b = ctx;
	const int64_t n = b->len, s0 = b->v->stride[0], p0 = b->p0 + (b->p1 - b->p0) * team->id / team->n,
	              p1 = b->p0 + (b->p1 - b->p0) * (team->id + 1) / team->n;
	const int32_t *const at = b->v->load - 2 * b->k * s0; /* copy row 0 */
	V top = BSET1(0);
	for (int64_t q = p0; q < p1; q++)
		for (int64_t j = 0; j < n; j += BW) {
			const V d = bpack(at + q * s0 + j);
			VSTORE(b->g + q * n + j, d);
			top = simde_mm512_max_epu8(top, d); /* unsigned: a negative load does not fit */
		}
	b->fits[team->id] = !simde_mm512_cmpgt_epu8_mask(top, BSET1((char)b->top));
}
static void bcut_widen_thread(void *ctx, const lbt_team *team)
{
	bcut *b = ctx;
	const int64_t n = b->len, s0 = b->v->stride[0], p0 = b->p0 + (b->p1 - b->p0) * team->id / team->n,
	              p1 = b->p0 + (b->p1 - b->p0) * (team->id + 1) / team->n;
	int32_t *const at = b->v->load - 2 * b->k * s0;
	for (int64_t q = p0; q < p1; q++)
		bwiden_row(at + q * s0, b->g + q * n, n);
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
 * step's range, each step's range clipped to them; the rows before and
 * after it that another thread steps from that thread's copies of its
 * first and last rows made after the last step (as AVX2's bcut_thread). */
static void bcut_thread(void *ctx, const lbt_team *team)
{
	bcut *b = ctx;
	const int id = team->id, T = team->n, row_torus = b->v->torus[1];
	const int64_t n = b->len, L0 = b->lo[0], L1 = b->hi[0], r0 = L0 + (L1 - L0) * id / T,
	              r1 = L0 + (L1 - L0) * (id + 1) / T, o0 = 2 * b->k, o1 = o0 + b->ext0;
	int8_t *const g = b->g;
	M *const cpb = (M *)(b->buf + id * b->bper + 4 * n);
#define BEDGE(t, p, k) ((int8_t *)(b->buf + (t) * b->bper + (2 * (p) + (k)) * n))
	if (T != b->Tr) { /* fewer threads than bcut_round made the first copies for: its rows are others' */
		if (T > 1) {
			memcpy(BEDGE(id, 1, 0), g + r0 * n, (size_t)n);
			memcpy(BEDGE(id, 1, 1), g + (r1 - 1) * n, (size_t)n);
		}
		lbt_team_barrier(team);
	}
	const bcstep_fn f = bcsteps[b->cond];
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
	/* at most BTOP on a torus (Lemma 1); the last PE of a mesh axis gives
	 * nothing and may pile up, by at most 2 a step */
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

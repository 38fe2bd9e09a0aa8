/* lm_avx2_rows8.h — lm_steps with AVX2 (part of lm.c, included for W == 8
 * after lm_avx2_steps.h): a 2-D grid most of whose rows fit bytes, those
 * rows kept in a byte copy for the call's steps, the others in the grid. */
#ifndef LBT_LM_AVX2_ROWS8_H
#define LBT_LM_AVX2_ROWS8_H

/* Byte rows beside int32 rows. bytes2_steps needs every load of the grid
 * in 0 .. BTOP; the worst case (a pile on one PE) keeps one row above that
 * for nearly the whole run, and its rows took lm_step's int16 rows, packed
 * and widened every step. Here, as with AVX-512 (lm_avx512_steps.h), each
 * row whose loads are in 0 .. BTOP lives in the byte copy g between steps
 * and is stepped there by the byte rows (brow_impl: its loads stay within
 * 0 .. BTOP + 2, no byte saturates); the other rows stay in the grid and
 * take the int32 rows (frow_body). A row's kind is decided after its own
 * update, from its new loads (in8[q]): a byte row that rose above BTOP is
 * widened into the grid, an int32 row that fits is packed into g. Between
 * the kinds: a byte row whose successor is an int32 row reads it packed
 * with saturation (a load above 127 reads as 127, beyond the row's own
 * loads: no condition it takes changes); an int32 row reads a byte
 * successor widened into the grid; cpb, what a row hands on along the
 * outer axis, is converted in place where the kind changes (one vector per
 * 32 PEs in bytes, per 8 in int32). Only the conditions that look at no
 * predecessor's load (C0, C1, C3, C5), as bytes2_steps. Threads take
 * contiguous ranges of rows: before a step each copies, as int32, the old
 * row before its range (its first row's C_{i-1}) and the one after it (its
 * last row's successor); a barrier; the step; a barrier. A call goes on
 * while at most an eighth of the rows are int32 rows when it starts. */

/* Int32 row p packed (saturated) into byte row b, n PEs: do all its loads fit (0 .. BTOP)? */
static int r8pack(int8_t *b, const int32_t *p, int64_t n)
{
	V top = BSET1(0);
	for (int64_t j = 0; j < n; j += BW) {
		const V d = bpack(p + j);
		VSTORE(b + j, d);
		top = simde_mm256_max_epu8(top, d);
	}
	return !simde_mm256_movemask_epi8(simde_mm256_cmpeq_epi8(simde_mm256_max_epu8(top, BSET1(BTOP + 1)), top));
}
static void r8widen(int32_t *p, const int8_t *b, int64_t n)
{
	for (int64_t j = 0; j < n; j += BW)
		bwiden_store(p + j, VLOAD(b + j), 0);
}
/* cpb of n PEs from the int32 rows' format (cpb[j]: 8 PEs) to the byte
 * rows' (cpb[j]: 32 PEs), in place, or back. */
static void r8cp(V *cpb, int64_t n, int to_bytes)
{
	const int64_t J = n / BW;
	if (to_bytes)
		for (int64_t j = 0; j < J; j++) /* reads 4j .. 4j+3 >= j */
			cpb[j] = bpack((const int32_t *)(cpb + 4 * j));
	else
		for (int64_t j = J - 1; j >= 0; j--) { /* writes 4j .. 4j+3 >= j */
			const V c = cpb[j];
			bwiden_store((int32_t *)(cpb + 4 * j), c, 0);
		}
}

typedef struct {
	const lbt_view *v;
	const lbt_steps_stop *stop;
	int cond, n;
	int64_t N0, len;
	int8_t *g;     /* the byte copy, row q at g + q len */
	uint8_t *in8;  /* row q's loads are in g (and fit), else in the grid */
	char *buf;     /* per thread: bper bytes */
	int64_t bper;
	int64_t *miss; /* per thread: its rows that do not fit bytes (counted until too many) */
	kresult *res;  /* per step and thread */
	int go, done;
} r8ctx;

/* A thread's rows: int32 copies of the old rows before its range (pm) and
 * after it (nx), zeros beyond a mesh edge; a byte row for a successor
 * packed; cpb. */
typedef struct {
	int32_t *pm, *nx;
	int8_t *scr;
	V *cpb;
} r8thread;

/* Rows q0..q1-1, one step, each in g (byte rows) or in the grid (int32). */
static ALWAYS_INLINE void r8roll_impl(const int cond, const r8ctx *x, r8thread *t, int64_t q0, int64_t q1, kresult *out)
{
	const lbt_view *v = x->v;
	const int64_t n = x->len, s0 = v->stride[0], J = n / W;
	const int torus0 = v->torus[0], row_torus = v->torus[1];
	int8_t *const g = x->g;
	uint8_t *const in8 = x->in8;
	V *const cpb = t->cpb;
#define GROW(q) (v->load + (q) * s0)
#define BROW(q) (g + (q) * n)
	acc A = acc_empty();
	regs R = REGS_IN(&A);
	bregs B = BREGS_EMPTY;
	V bmx = BSET1(INT8_MIN);
	int used8 = 0;
	int64_t pend = 0;
	/* C_{q0-1} along the outer axis, from old rows q0-1 (pm) and q0 as int32 */
	int b8 = in8[q0];
	if (b8)
		r8widen(GROW(q0), BROW(q0), n);
	for (int64_t j = 0; j < J; j++)
		cpb[j] = shift_cond(cond, VSET1(0), VLOAD(t->pm + j * W), VLOAD(GROW(q0) + j * W));
	if (b8)
		r8cp(cpb, n, 1);
	for (int64_t q = q0; q < q1; q++) {
		const int inside = q + 1 < q1, has_next = torus0 || q + 1 < x->N0, nb8 = inside && in8[q + 1];
		if (b8) {
			const int8_t *pn = BROW(q + 1);
			if (!nb8) { /* the successor from the grid (or nx), saturated */
				r8pack(t->scr, inside ? GROW(q + 1) : t->nx, n);
				pn = t->scr;
			}
			const V keep = B.mx;
			B.mx = BSET1(INT8_MIN);
			brow_impl(cond, BROW(q), pn, n, has_next, row_torus, cpb, &B);
			used8 = 1;
			if (simde_mm256_movemask_epi8(simde_mm256_cmpgt_epi8(B.mx, BSET1(BTOP)))) { /* rose above BTOP: into the grid */
				r8widen(GROW(q), BROW(q), n);
				in8[q] = 0;
			}
			bmx = simde_mm256_max_epi8(bmx, B.mx);
			B.mx = keep;
		} else {
			if (nb8)
				r8widen(GROW(q + 1), BROW(q + 1), n);
			frow_body(cond, 1, &(const lrow){.p0 = GROW(q), .p1 = inside ? GROW(q + 1) : t->nx, .n = n,
			                                 .has_next = has_next, .torus = row_torus, .cpb = cpb}, &R);
			if ((pend += 2 * J) >= SEG) {
				REGS_OUT(&A, R);
				acc_flush(&A, 2 * SEG);
				R = (regs)REGS_IN(&A);
				pend = 0;
			}
			in8[q] = (uint8_t)r8pack(BROW(q), GROW(q), n); /* fits now: into g */
		}
		if (inside && nb8 != b8)
			r8cp(cpb, n, nb8);
		b8 = nb8;
	}
#undef GROW
#undef BROW
	REGS_OUT(&A, R);
	kresult r = {.moved = A.moved + vsum32(A.cnt), .total = A.total + vtotal(A.s, A.h), .max = vmax32(A.mx),
	             .min = vmin32(A.mn)};
	if (used8) {
		const int32_t mx = bmax8(bmx), mn = bmin8(B.mn);
		r.moved += bsum64(simde_mm256_add_epi64(
		        B.mv, simde_mm256_add_epi64(simde_mm256_sad_epu8(B.cv, BSET1(0)), simde_mm256_sad_epu8(B.ch, BSET1(0)))));
		r.total += bsum64(B.sum);
		r.max = mx > r.max ? mx : r.max;
		r.min = mn < r.min ? mn : r.min;
	}
	*out = r;
}
typedef void (*r8roll_fn)(const r8ctx *, r8thread *, int64_t, int64_t, kresult *);
#define R8ROLL(c)                                                                            \
	static void r8roll_##c(const r8ctx *x, r8thread *t, int64_t q0, int64_t q1, kresult *out) \
	{ r8roll_impl(c, x, t, q0, q1, out); }
R8ROLL(0) R8ROLL(1) R8ROLL(3) R8ROLL(5)
static const r8roll_fn r8rolls[LBT_NCOND] = {r8roll_0, r8roll_1, NULL, r8roll_3, NULL, r8roll_5};

/* Thread id of the team's T: pack its rows; if enough rows of the grid fit,
 * step them with the others until n steps are done or a step meets the
 * stop, and widen the byte rows back. */
static void r8steps_thread(void *ctx, const lbt_team *team)
{
	r8ctx *x = ctx;
	const lbt_view *v = x->v;
	const int id = team->id, T = team->n, torus = v->torus[0];
	const int64_t N0 = x->N0, n = x->len, r0 = N0 * id / T, r1 = N0 * (id + 1) / T, s0 = v->stride[0];
	char *b = x->buf + id * x->bper;
	r8thread t = {.pm = (int32_t *)b};
	t.nx = t.pm + n;
	t.scr = (int8_t *)(t.nx + n);
	t.cpb = (V *)(t.scr + n);
	int64_t miss = 0;
	for (int64_t q = r0; q < r1 && 8 * miss <= N0; q++) /* stops once there are too many */
		miss += !(x->in8[q] = (uint8_t)r8pack(x->g + q * n, v->load + q * s0, n));
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
			r8widen((dst), x->g + w_ * n, n);                                               \
		else                                                                                \
			memcpy((dst), v->load + w_ * s0, (size_t)n * sizeof(int32_t));                 \
	} while (0)
	int s = 0;
	for (;;) {
		OLD_ROW(r0 - 1, t.pm);
		OLD_ROW(r1, t.nx);
		lbt_team_barrier(team);
		r8rolls[x->cond](x, &t, r0, r1, &x->res[s * T + id]);
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
			r8widen(v->load + q * s0, x->g + q * n, n);
}

/* lm_steps with rows in bytes where they fit: the steps done (each one's
 * counts into c), or 0 where the grid does not take them (then nothing was
 * changed). A grid with too many rows beyond bytes is tried again after 1,
 * 2, 4, ... 256 calls (a try packs up to an eighth of the grid). */
static int rows8_steps(const lbt_view *v, int cond, int n, const lbt_steps_stop *stop, lbt_lm_cache *cache,
                       lbt_counts *c)
{
	const int64_t N0 = v->ext[0], len = v->dims == 2 ? v->ext[1] : 0;
	if (n < 2 || !cache || v->dims != 2 || v->cut || !r8rolls[cond] || N0 < 3 || len < BW || len % BW ||
	    len > BMAX_N || (uintptr_t)v->load % LBT_ALIGN || v->stride[0] % 16 || v->stride[1] != 1 ||
	    cache->rows_wait-- > 0)
		return 0;
	enum { MIN_PES = 1 << 16 };
	int64_t T = v->threads > 1 ? v->threads : 1;
	T = T < N0 ? T : N0;
	T = T < N0 * len / MIN_PES ? T : N0 * len / MIN_PES;
	T = T < 1 ? 1 : T < LBT_SIMD_MAXT ? T : LBT_SIMD_MAXT;
	const int64_t bper = round_up(2 * (int64_t)sizeof(int32_t) * len + len + (int64_t)sizeof(V) * (len / W), LBT_ALIGN);
	const int64_t gsize = round_up(N0 * len, LBT_ALIGN), isize = round_up(N0, LBT_ALIGN);
	const int64_t fsize = round_up(T * (int64_t)sizeof(int64_t), LBT_ALIGN);
	const size_t need = (size_t)(gsize + isize + fsize + T * bper) + (size_t)(n * T) * sizeof(kresult);
	if (cache->size < need) {
		free(cache->mem);
		cache->mem = lbt_alloc_aligned(need);
		cache->size = cache->mem ? need : 0;
	}
	char *mem = cache->mem;
	if (!mem)
		return 0;
	r8ctx x = {.v = v, .stop = stop, .cond = cond, .n = n, .N0 = N0, .len = len, .g = (int8_t *)mem,
	           .in8 = (uint8_t *)(mem + gsize), .miss = (int64_t *)(mem + gsize + isize),
	           .buf = mem + gsize + isize + fsize, .bper = bper, .res = (kresult *)(mem + gsize + isize + fsize + T * bper)};
	const int got = lbt_team_run((int)T, r8steps_thread, &x); /* at most T */
	cache->rows_backoff = x.go ? 0 : cache->rows_backoff ? (cache->rows_backoff < 256 ? 2 * cache->rows_backoff : 256) : 1;
	cache->rows_wait = cache->rows_backoff;
	const int done = x.go ? x.done : 0;
	for (int s = 0; s < done; s++) {
		const kresult r = ksum(&x.res[s * got], got);
		c[s] = (lbt_counts){.moved = r.moved, .total = r.total, .max = r.max, .min = r.min, .shifts = 2, .has_stats = 1};
	}
	return done;
}

#endif

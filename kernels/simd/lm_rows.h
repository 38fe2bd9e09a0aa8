/* lm_rows.h — the Liquid model's int32 rows (part of lm.c, included once per
 * ISA target): a thread's counters, the shift conditions in int32 lanes, the
 * outer-axis and last-axis updates of a row (vrow, hrow) and both substeps of
 * a row of whole vectors in registers (frow), one specialization per
 * condition. lm.c says how they make a step. */
#ifndef LBT_LM_ROWS_H
#define LBT_LM_ROWS_H

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

/* How a row ends (the rows' `torus` argument): as its axis does, a mesh
 * (ROW_MESH, 0) or a torus (ROW_TORUS, 1), or cut between ranks: its
 * neighbours L_{-2}, L_{-1} and L_n, after the outer axes' substeps, in the
 * cells around it (row_ends in lm.c puts them there; zeros before a mesh's
 * first PE), its last PE linked to L_n (ROW_CUT) or a mesh's last
 * (ROW_CUT_END). */
enum { ROW_MESH, ROW_TORUS, ROW_CUT, ROW_CUT_END };

/* A vector of zeros with lanes at .. at+k-1 from x[0 .. k-1]: a cut row's
 * neighbours before it (at W - 2, k 2) or after it (at 0, k 1). */
static ALWAYS_INLINE V vlanes(const int32_t *x, int at, int k)
{
	int32_t t[W] = {0};
	for (int i = 0; i < k; i++)
		t[at + i] = x[i];
	return VLOADU(t);
}

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
 * row's own last and first chunks (in registers); for other tori and a cut
 * row (torus: ROW_*), B's halo cells B[-2], B[-1], B[n], B[n+1] (filled by
 * the caller); for a mesh, zeros. */
static ALWAYS_INLINE void hrow_impl(const int cond, const int32_t *B, int32_t *out, int64_t n, int torus, acc *A)
{
	regs R = REGS_IN(A);
	const int whole = n % W == 0 && torus == ROW_TORUS;
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
	const M valid = MFIRST(n - i), linked = torus == ROW_TORUS || torus == ROW_CUT ? valid : MFIRST(n - 1 - i);
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
/* A row of a roll over rows, as the row functions (frow, and the narrow
 * rows' frow16 and frow8) take it: the row p0, updated in place; its old
 * neighbours along the outer axis (m2, m1 before it: C_{i-1} where there is
 * no cpb to take it from, and C2's and C4's predecessor; p1 after it); save,
 * where C2 and C4 keep its old loads for the next row; its n PEs, whether
 * it has a successor along the outer axis and whether the row is a torus;
 * what the rows hand on to each other (cpb: C_i; gtb: C2's and C4's
 * "L > 1" of a narrow row). The narrow rows' copies: pl, the row's own old
 * loads packed (int16 or bytes); pn, its successor's as bytes (lm_steps's
 * byte copy); pd, where its successor's packed loads go for the next row. */
typedef struct {
	const int32_t *m2, *m1;
	int32_t *p0;
	const int32_t *p1;
	int32_t *save;
	int64_t n;
	int has_next, torus;
	M *cpb, *gtb;
	const void *pl, *pn;
	void *pd;
} lrow;

static ALWAYS_INLINE V fchunk(const int cond, const int have_cp, const lrow *r, int64_t j, M nm, regs *R)
{
	const int32_t *m2 = r->m2, *m1 = r->m1, *p0 = r->p0, *p1 = r->p1;
	int32_t *save = r->save;
	M *cpb = r->cpb;
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

static ALWAYS_INLINE void frow_body(const int cond, const int have_cp, const lrow *r, regs *RR)
{
	int32_t *p0 = r->p0;
	const int64_t n = r->n;
	const int torus = r->torus;
	const M nm = r->has_next ? MALL : MNONE;
	regs R = *RR;
	const int64_t J = n / W;
	V first = fchunk(cond, have_cp, r, 0, nm, &R);
	V lastv = J > 1 ? fchunk(cond, have_cp, r, J - 1, nm, &R) : first;
	V prev = torus == ROW_TORUS ? lastv : torus ? vlanes(p0 - 2, W - 2, 2) : VSET1(0), cur = first;
	int64_t j = 0;
	for (; j + 4 < J; j += 3) { /* by three: prev, cur, next rotate without copies */
		V n1 = fchunk(cond, have_cp, r, j + 1, nm, &R);
		V x = hchunk(cond, prev, cur, n1, MALL, &R);
		VSTORE(p0 + j * W, x);
		stats_add(&R, x);
		V n2 = fchunk(cond, have_cp, r, j + 2, nm, &R);
		x = hchunk(cond, cur, n1, n2, MALL, &R);
		VSTORE(p0 + (j + 1) * W, x);
		stats_add(&R, x);
		V n3 = fchunk(cond, have_cp, r, j + 3, nm, &R);
		x = hchunk(cond, n1, n2, n3, MALL, &R);
		VSTORE(p0 + (j + 2) * W, x);
		stats_add(&R, x);
		prev = n2;
		cur = n3;
		PIN(R.mx, R.mn, R.s, R.h, R.cnt);
	}
	for (; j + 2 < J; j++) {
		V next = fchunk(cond, have_cp, r, j + 1, nm, &R);
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
	V x = hchunk(cond, prev, cur, torus == ROW_TORUS ? first : torus ? vlanes(p0 + n, 0, 1) : VSET1(0),
	             torus == ROW_TORUS || torus == ROW_CUT ? MALL : MFIRST(W - 1), &R);
	VSTORE(p0 + j * W, x);
	stats_add(&R, x);
	*RR = R;
}

static ALWAYS_INLINE void frow_impl(const int cond, const int have_cp, const int32_t *m2, const int32_t *m1,
                                    int32_t *p0, const int32_t *p1, int32_t *save, int64_t n, int has_next,
                                    int torus, M *cpb, acc *A)
{
	regs R = REGS_IN(A);
	const lrow r = {.m2 = m2, .m1 = m1, .p0 = p0, .p1 = p1, .save = save, .n = n, .has_next = has_next, .torus = torus,
	                .cpb = cpb};
	frow_body(cond, have_cp, &r, &R);
	REGS_OUT(A, R);
	acc_flush(A, 2 * (n / W));
}


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

#endif

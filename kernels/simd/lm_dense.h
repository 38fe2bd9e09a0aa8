/* lm_dense.h — grids of three and more dimensions, and rings, in one dense
 * int16 copy (AVX2; part of lm.c, included for W == 8 after lm_avx2.h;
 * AVX-512's lm_steps calls it too: lbt_simd_lm_dense_avx2, at the end,
 * with the pass along rows of whole 512-bit vectors in AVX-512's lanes,
 * and the byte copy's other passes: dshape's row64, row16 and pass64,
 * lm_avx512_steps.h).
 *
 * A ring (one active axis) of whole 16-lane vectors is the copy's one
 * lanes block (lm_steps only): for a call in bytes where they fit, in
 * either with its piles out of the lanes where not, up to 2^24 PEs, on one
 * thread (one unit, and a step of one pass has no barrier before the next
 * step rewrites its counts); its block empties its counts inside
 * (dense_lanes). The 2-D grids have their own kernels (lm_avx2*.h,
 * lm_avx512*.h).
 *
 * In 3-D and up the fused roll of lm.c makes a pass per outer axis in int32
 * lanes over a grid whose rows are padded to a whole-vector pitch with halo
 * cells on every axis (8^4's 4096 PEs take 55 296 cells), and rows of fewer
 * than 16 PEs cannot take the int16 rows at all. A grid of at most
 * DENSE_BIG PEs (lm_step: DENSE_MAX) whose loads fit int16
 * for the call's steps (a substep changes a load by at most 1: max +
 * steps x D <= 32767), but for a few piles kept out of the lanes (dbig,
 * below), is instead packed once into a copy with no padding
 * (axes of extent 1 dropped, the last axis contiguous), stepped there one
 * substep at a time in axis order, as Definition 1 reads, and widened
 * back: 16 PEs per vector.
 *
 * One substep along an axis of extent e and stride s (PEs of the copy): a
 * PE's C_i is computed once and handed on, C_{i-1} of a PE being C_i of
 * the PE s before it, so each vector is loaded and stored once and its
 * condition evaluated once (l + cs - cp, the masks -1 and 0). Three kinds
 * by where the neighbour at +-s lies:
 *  - columns (s a multiple of 16): whole vectors s apart, walked along the
 *    axis with the previous vector's C_i in a register (on an axis
 *    streamed over a copy beyond the caches, slice by slice over a tile of
 *    columns, the C_i in a buffer: dense_tiles, dense_fused);
 *  - lanes (s = 1, 4 or 8, s e a multiple of 16): the axis's block of
 *    s e PEs is a row of whole vectors, the neighbours shifted across
 *    vectors by s lanes (alignr), as the int16 rows of lm_avx2.h;
 *  - groups (s e = 4 or 8): several blocks in each 128-bit lane, the
 *    neighbours rotated inside each block by one byte shuffle.
 * A torus wraps inside the block; on a mesh the last slice's C is masked,
 * and a missing predecessor reads 0 as in the reference. The last substep
 * (the row's axis, s = 1) also takes max, min and total of the state it
 * leaves.
 *
 * Each substep's work is units that touch only their own PEs: a column
 * (e vectors), a lanes block (s e / 16 vectors), a vector of groups. A
 * team of threads (kernels/team.h; one per DTHREAD PEs) packs, steps and
 * widens the copy, each thread a contiguous range of every substep's units
 * and of the copy's vectors, with a barrier between substeps: a substep
 * reads what the one before wrote in other threads' ranges. Each thread
 * empties its int16 counts and int32 sums into int64 at least every
 * DFLUSH vectors (a lane's count stays above -32768 and its sum of pairs
 * below 2^31); the team's counts are sums, maxima and minima of the
 * threads', the same for every thread count. */
#ifndef LBT_LM_DENSE_H
#define LBT_LM_DENSE_H

/* DENSE_MAX: lm_step's copy (on the stack); DENSE_BIG: lm_steps's (the
 * largest measured: 256^3, 64^4, 16^6); DFLUSH: vectors between a thread's
 * emptying of its counts; DTHREAD: PEs a thread (a substep of 2^16 PEs
 * takes a few microseconds, about what a barrier costs) */
enum { DENSE_MAX = 1 << 16, DENSE_BIG = 1 << 24, DENSE_L1 = 1 << 13, DFLUSH = 1 << 14, DTHREAD = 1 << 16 };

/* The copy's shape: its active axes in the grid's order. */
typedef struct {
	int D;                               /* active axes */
	int64_t P, n;                        /* PEs; the row (last axis) length */
	int64_t e[8], s[8];                  /* per active axis: extent, stride in PEs */
	int64_t units[8], per[8];            /* per active axis: a substep's units, and a unit's vectors */
	int torus[8], kind[8];
	int top;                             /* the byte copy: the largest load a step takes */
	lbt_d8row_fn row64;                  /* the byte copy on AVX-512: its pass along rows of whole 64-byte vectors (else NULL) */
	lbt_d16row_fn row16;                 /* the int16 copy on AVX-512: the same, rows of whole 32-lane vectors */
	lbt_d8pass_fn pass64;                /* the byte copy on AVX-512: its other passes in 64 byte lanes (else NULL) */
	lbt_d8slice_fn slice64;              /* the byte copy on AVX-512: its folded axis in 64 byte lanes (else NULL) */
	lbt_d8axis ax[8];                    /* the byte copy: each axis as d8_pass and pass64 read it */
	simde__m256i next[8], prev[8];        /* the int16 copy's groups: the byte shuffles to the PE s after and s before */
	simde__m256i edge[8], first[8];       /* the int16 copy's groups: -1 in lanes with a link (a successor), with a predecessor */
} dshape;

/* Does the grid take the dense copy, of at most `most` PEs? Fills x. */
static int dense_shape(const lbt_view *v, int64_t most, dshape *x)
{
	const int last = v->dims - 1;
	if (v->cut || v->ext[last] < 2 || (uintptr_t)v->load % LBT_ALIGN || v->stride[last] != 1 ||
	    (last > 0 && v->stride[last - 1] % 16))
		return 0;
	const int64_t n = v->ext[last];
	if (!(n == 4 || n == 8 || n % HW == 0))
		return 0;
	int64_t P = 1;
	x->D = 0;
	x->n = n;
	for (int d = last; d >= 0; d--) { /* strides from the last axis out */
		if (v->ext[d] < 2)
			continue;
		for (int k = x->D; k > 0; k--) { /* kept in the grid's order: shift the inner ones */
			x->e[k] = x->e[k - 1];
			x->s[k] = x->s[k - 1];
			x->torus[k] = x->torus[k - 1];
		}
		x->e[0] = v->ext[d];
		x->s[0] = P;
		x->torus[0] = v->torus[d];
		x->D++;
		P *= v->ext[d];
		if (P > most)
			return 0;
	}
	x->P = P;
	x->row64 = NULL;
	x->row16 = NULL;
	x->pass64 = NULL;
	if (x->D == 2 || P % HW) /* a ring (one active axis) or three and more */
		return 0;
	for (int k = 0; k < x->D; k++) {
		const int64_t s = x->s[k], B = s * x->e[k];
		if (s % HW == 0) {
			x->kind[k] = DCOL;
			x->per[k] = x->e[k];
		} else if ((s == 1 || s == 4 || s == 8) && B % HW == 0) {
			x->kind[k] = DLANE;
			x->per[k] = B / HW;
		} else if (B == 4 || B == 8) {
			x->kind[k] = DGROUP;
			x->per[k] = 1;
			int8_t nx[32], pv[32];
			int16_t ed[16], fi[16];
			for (int i = 0; i < 16; i++) {
				const int pos = (int)(i % B), base = i - pos;
				const int to = (int)(base + (pos + s) % B), from = (int)(base + (pos - s + B) % B);
				nx[2 * i] = (int8_t)(2 * (to % 8));
				nx[2 * i + 1] = (int8_t)(2 * (to % 8) + 1);
				pv[2 * i] = (int8_t)(2 * (from % 8));
				pv[2 * i + 1] = (int8_t)(2 * (from % 8) + 1);
				ed[i] = (int16_t)(x->torus[k] || pos < B - s ? -1 : 0);
				fi[i] = (int16_t)(x->torus[k] || pos >= s ? -1 : 0);
			}
			x->next[k] = simde_mm256_loadu_si256((const void *)nx);
			x->prev[k] = simde_mm256_loadu_si256((const void *)pv);
			x->edge[k] = simde_mm256_loadu_si256((const void *)ed);
			x->first[k] = simde_mm256_loadu_si256((const void *)fi);
		} else
			return 0;
		if (x->per[k] > DFLUSH && x->kind[k] != DLANE) /* a unit's counts must fit between two emptyings (a lanes block empties them inside) */
			return 0;
		x->units[k] = P / (x->per[k] * HW);
	}
	return 1;
}

/* The grid's rows in the copy's order: along axis D-2 (j of E, S2 apart),
 * then an odometer over the axes before it ... */
typedef struct {
	int64_t c[8], off, j, E, S2;
} drows;
/* ... starting at row r of that order */
static drows drows_at(const lbt_view *v, int64_t r)
{
	if (v->dims == 1) /* a ring: one row */
		return (drows){.E = 1};
	drows o = {.E = v->ext[v->dims - 2], .S2 = v->stride[v->dims - 2]};
	o.j = r % o.E;
	o.off = o.j * o.S2;
	r /= o.E;
	for (int d = v->dims - 3; d >= 0; d--) {
		o.c[d] = r % v->ext[d];
		o.off += o.c[d] * v->stride[d];
		r /= v->ext[d];
	}
	return o;
}
static ALWAYS_INLINE void drows_next(drows *o, const lbt_view *v)
{
	if (++o->j < o->E) {
		o->off += o->S2;
		return;
	}
	o->off -= (o->E - 1) * o->S2;
	o->j = 0;
	for (int d = v->dims - 3; d >= 0; d--) {
		o->off += v->stride[d];
		if (++o->c[d] < v->ext[d])
			return;
		o->off -= v->ext[d] * v->stride[d];
		o->c[d] = 0;
	}
}

/* Piles beyond int16 (the worst case's point while it holds more than
 * 32767 - n D) stay out of the lanes: such a PE holds the stand-in
 * DSTAND(n D) in the copy and its excess over it here. A Liquid-model
 * condition reads a load only against 0 and 1 and against a neighbour's,
 * so a stand-in gives every condition the bits of the true load while the
 * stand-ins stay above all other loads and no two such PEs are
 * neighbours: at least DHI(n D) = 16384 + n D against at most DLO(n D) =
 * 16383 - n D, a load changing by at most 1 a substep. Their excess is
 * constant while the copy steps; the maximum is theirs, their excess adds
 * to the total. */
enum { DBIG = 16, DNMAX = 256 };
#define DSTAND(nd) (INT16_MAX - (nd))
#define DLO(nd) (16383 - (nd))
#define DHI(nd) (16384 + (nd))
typedef struct {
	int n;
	int64_t at[DBIG], excess[DBIG], total; /* their places in the copy, excess over the stand-in, and its sum */
	int32_t *to[DBIG];                    /* and in the grid */
} dbig;

/* Are copy places i and j neighbours along some axis? */
static int dense_linked(const dshape *x, int64_t i, int64_t j)
{
	int differ = 0, next = 0;
	for (int k = 0; k < x->D; k++) {
		const int64_t a = i / x->s[k] % x->e[k], b = j / x->s[k] % x->e[k], d = a > b ? a - b : b - a;
		differ += d != 0;
		next += d == 1 || (x->torus[k] && d == x->e[k] - 1);
	}
	return differ == 1 && next == 1;
}

/* A vector of 16 loads (lanes 0-7 a, 8-15 c, lane l at r[l / (16 / nr)] +
 * l % (16 / nr)) beyond *lim, lane by lane into p: 1 if each fits *lim or
 * takes a stand-in (recorded in B), else 0. *lim: the other loads' bound,
 * 32767 - n D until the first pile, then DLO(n D) (*most, the largest
 * load before it, must be within). */
static int dense_pack_big(V a, V c, int32_t *const *r, int nr, int16_t *p, int64_t at, int64_t nd, int16_t *lim,
                          int32_t *most, dbig *B)
{
	int32_t g[HW] __attribute__((aligned(LBT_ALIGN)));
	VSTORE(g, a);
	VSTORE(g + W, c);
	for (int l = 0; l < HW; l++) {
		if (g[l] < 0)
			return 0;
		if (g[l] <= *lim) {
			p[l] = (int16_t)g[l];
			*most = g[l] > *most ? g[l] : *most;
			continue;
		}
		if (g[l] < DHI(nd) || B->n == DBIG || *most > DLO(nd))
			return 0;
		*lim = (int16_t)DLO(nd);
		B->at[B->n] = at + l;
		B->excess[B->n] = (int64_t)g[l] - DSTAND(nd);
		B->total += B->excess[B->n];
		B->to[B->n++] = r[l / (HW / nr)] + l % (HW / nr);
		p[l] = (int16_t)DSTAND(nd);
	}
	return 1;
}

/* Copy vectors i0/16 .. i1/16 - 1 of the grid packed (with signed
 * saturation) into b for calls of nd = n D substeps: 1 if every load there
 * is at most 32767 - n D or a pile out of the lanes (B, the range's),
 * else 0, found where the packing stops (a negative load, a load between
 * a pile's and the others', too many piles). *top: the largest load it
 * put in the lanes. Whether the piles of all ranges make one valid set is
 * dense_piles's to say. */
static int dense_pack(const lbt_view *v, const dshape *x, int16_t *b, int64_t nd, int64_t i0, int64_t i1, dbig *B,
                      int32_t *top)
{
	int16_t lim = (int16_t)DSTAND(nd);
	V t = HSET1(lim), most = HSET1(0);
	int32_t *g = v->load;
	const int64_t e = x->n;
	B->n = 0;
	B->total = 0;
	drows o = drows_at(v, i0 / e);
	for (int64_t i = i0; i < i1; i += HW) {
		V a, c;
		int32_t *r[4];
		int nr;
		if (e == 8) {
			r[0] = g + o.off;
			drows_next(&o, v);
			r[1] = g + o.off;
			drows_next(&o, v);
			a = VLOAD(r[0]);
			c = VLOAD(r[1]);
			nr = 2;
		} else if (e == 4) {
			simde__m128i q[4];
			for (int k = 0; k < 4; k++) {
				r[k] = g + o.off;
				q[k] = simde_mm_load_si128((const void *)r[k]);
				drows_next(&o, v);
			}
			a = simde_mm256_set_m128i(q[1], q[0]);
			c = simde_mm256_set_m128i(q[3], q[2]);
			nr = 4;
		} else {
			const int64_t j = i % e;
			r[0] = g + o.off + j;
			a = VLOAD(r[0]);
			c = VLOAD(r[0] + W);
			nr = 1;
			if (j + HW == e)
				drows_next(&o, v);
		}
		const V p = hpack(a, c);
		if (simde_mm256_movemask_epi8(simde_mm256_cmpeq_epi16(simde_mm256_max_epu16(p, t), t)) == -1) {
			most = simde_mm256_max_epi16(most, p);
			VSTORE(b + i, p);
			continue;
		}
		int32_t m = vmax32(VMAX(HWIDEN(most, 0), HWIDEN(most, 1)));
		if (!dense_pack_big(a, c, r, nr, b + i, i, nd, &lim, &m, B))
			return 0;
		t = HSET1(lim);
		most = HSET1((int16_t)m);
	}
	*top = vmax32(VMAX(HWIDEN(most, 0), HWIDEN(most, 1)));
	return 1;
}

/* A thread's share of a call: its range's piles and largest load in the
 * lanes (dense_pack, ok if it packed), and the counts of its part of the
 * last step. */
typedef struct {
	int64_t moved, total;
	int32_t max, min;
} dpart;
typedef struct {
	dbig B;
	int32_t top;
	int ok;
	dpart part;
} dthread;

/* The piles of the team's nt ranges as one set in B: 1 if all packed and
 * the set is valid — at most DBIG piles; where there are any, every other
 * load at most lo (DLO(nd); the byte copy's D8LO: a range without piles
 * took loads above it into its lanes) and no two piles neighbours. */
static int dense_piles(const dshape *x, int32_t lo, const dthread *th, int nt, dbig *B)
{
	int piles = 0;
	for (int q = 0; q < nt; q++) {
		if (!th[q].ok)
			return 0;
		piles += th[q].B.n;
	}
	B->n = 0;
	B->total = 0;
	if (piles > DBIG)
		return 0;
	for (int q = 0; q < nt; q++) {
		if (piles && !th[q].B.n && th[q].top > lo)
			return 0;
		for (int k = 0; k < th[q].B.n; k++, B->n++) {
			B->at[B->n] = th[q].B.at[k];
			B->excess[B->n] = th[q].B.excess[k];
			B->to[B->n] = th[q].B.to[k];
			B->total += th[q].B.excess[k];
		}
	}
	for (int k = 0; k < B->n; k++)
		for (int q = 0; q < k; q++)
			if (dense_linked(x, B->at[k], B->at[q]))
				return 0;
	return 1;
}

/* Copy vectors i0/16 .. i1/16 - 1 widened back into the grid (a pile's
 * PE takes its stand-in: dense_steps adds the excess). */
static void dense_unpack(const lbt_view *v, const dshape *x, const int16_t *b, int64_t i0, int64_t i1)
{
	int32_t *g = v->load;
	const int64_t n = x->n;
	drows o = drows_at(v, i0 / n);
	for (int64_t i = i0; i < i1; i += HW) {
		const V p = VLOAD(b + i), a = HWIDEN(p, 0), c = HWIDEN(p, 1);
		if (n == 8) {
			VSTORE(g + o.off, a);
			drows_next(&o, v);
			VSTORE(g + o.off, c);
			drows_next(&o, v);
		} else if (n == 4) {
			const simde__m128i r[4] = {simde_mm256_castsi256_si128(a), simde_mm256_extracti128_si256(a, 1),
			                           simde_mm256_castsi256_si128(c), simde_mm256_extracti128_si256(c, 1)};
			for (int k = 0; k < 4; k++) {
				simde_mm_store_si128((void *)(g + o.off), r[k]);
				drows_next(&o, v);
			}
		} else {
			const int64_t j = i % n;
			VSTORE(g + o.off + j, a);
			VSTORE(g + o.off + j + W, c);
			if (j + HW == n)
				drows_next(&o, v);
		}
	}
}

/* A thread's counters: C_i counted (int16 lanes, -1 each); with stats,
 * max and min (int16) and the total (int32 pairs); the counts and the
 * total emptied into moved and total (dflush). */
typedef struct {
	V cnt, mx, mn, sum;
	int64_t moved, total;
} dregs;
static ALWAYS_INLINE void dflush(dregs *R, const int stats)
{
	R->moved -= vsum32(simde_mm256_madd_epi16(R->cnt, HSET1(1)));
	R->cnt = HSET1(0);
	if (stats) {
		R->total += vsum32(R->sum);
		R->sum = VSET1(0);
	}
}

/* The update of vector l (its neighbours' loads at -s lp, +s ln; cp the
 * C_i of the PEs at -s), counted: stores l's new loads at p and returns
 * its C_i (masked by linked). */
static ALWAYS_INLINE V dense_put(const int cond, const int stats, int16_t *p, V lp, V l, V ln, V cp, V linked, dregs *R)
{
	const V cs = simde_mm256_and_si256(hcond(cond, HGT1(lp), l, ln), linked);
	const V x = simde_mm256_sub_epi16(simde_mm256_add_epi16(l, cs), cp);
	R->cnt = simde_mm256_add_epi16(R->cnt, cs);
	if (stats) {
		R->mx = simde_mm256_max_epi16(R->mx, x);
		R->mn = simde_mm256_min_epi16(R->mn, x);
		R->sum = VADD(R->sum, HPAIRS(x));
	}
	VSTORE(p, x);
	return cs;
}

/* Columns: blocks of e slices s PEs apart, s a multiple of 16; units
 * u0 .. u1-1, a unit the column of one vector of a block. */
static ALWAYS_INLINE void dense_cols(const int cond, int16_t *b, int64_t e, int64_t s, int torus, int64_t u0, int64_t u1,
                                     dregs *R)
{
	const V all = VSET1(-1), zero = VSET1(0);
	const int64_t per = s / HW, chunk = DFLUSH / e;
	int64_t blk = u0 / per * (s * e), c = u0 % per * HW;
	for (int64_t u = u0; u < u1;) {
		for (const int64_t end = u1 - u > chunk ? u + chunk : u1; u < end; u++) {
			int16_t *p = b + blk + c;
			const V first = VLOAD(p), lastv = VLOAD(p + (e - 1) * s);
			V lp = torus ? lastv : zero, l = first;
			/* C_i of the last slice, handed to the first on a torus */
			V cp = torus ? simde_mm256_and_si256(hcond(cond, HGT1(VLOAD(p + (e - 2) * s)), lastv, first), all) : zero;
			int64_t i = 0;
			for (; i + 1 < e; i++) {
				const V ln = VLOAD(p + (i + 1) * s);
				cp = dense_put(cond, 0, p + i * s, lp, l, ln, cp, all, R);
				lp = l;
				l = ln;
			}
			dense_put(cond, 0, p + i * s, lp, l, torus ? first : zero, cp, torus ? all : zero, R);
			if ((c += HW) == s) {
				c = 0;
				blk += s * e;
			}
		}
		dflush(R, 0);
	}
}

/* Columns of an axis streamed over a copy beyond the caches (dense_step_part's
 * axes before K): the update of dense_cols, slice by slice over a tile of m
 * neighbouring columns of one block at p, each column's old load of the
 * slice before (lp), its C_i (cp) and its old first slice (fv) in buffers.
 * A tile's slice is m vectors of contiguous memory that the hardware
 * prefetchers follow, where a column's vectors lie a page or more apart
 * (64^4: 512 KiB). The same bits as dense_cols: each column's operations in
 * the same order, counts summed over the tile. dtile_open fills the
 * buffers, dtile_slice updates slice i (reading the old slice i + 1, or fv
 * after the last). */
static ALWAYS_INLINE void dtile_open(const int cond, const int16_t *p, int64_t e, int64_t s, int torus, int64_t m, V *lp,
                                     V *cp, V *fv)
{
	const V zero = VSET1(0);
	for (int64_t t = 0; t < m; t++) {
		const V first = VLOAD(p + t * HW), lastv = VLOAD(p + (e - 1) * s + t * HW);
		fv[t] = first;
		lp[t] = torus ? lastv : zero;
		/* C_i of the last slice, handed to the first on a torus */
		cp[t] = torus ? hcond(cond, HGT1(VLOAD(p + (e - 2) * s + t * HW)), lastv, first) : zero;
	}
}
static ALWAYS_INLINE void dtile_slice(const int cond, int16_t *p, int64_t e, int64_t s, int torus, int64_t m, int64_t i,
                                      V *lp, V *cp, const V *fv, dregs *R)
{
	const V all = VSET1(-1), zero = VSET1(0);
	int16_t *q = p + i * s;
	if (i + 1 < e)
		for (int64_t t = 0; t < m; t++) {
			const V l = VLOAD(q + t * HW);
			cp[t] = dense_put(cond, 0, q + t * HW, lp[t], l, VLOAD(q + s + t * HW), cp[t], all, R);
			lp[t] = l;
		}
	else
		for (int64_t t = 0; t < m; t++)
			dense_put(cond, 0, q + t * HW, lp[t], VLOAD(q + t * HW), torus ? fv[t] : zero, cp[t], torus ? all : zero, R);
}
/* Units u0 .. u1-1 (as dense_cols's) in tiles of at most DTILE columns and
 * DFLUSH / e (the counts emptied after each). */
enum { DTILE = 256 };
static ALWAYS_INLINE void dense_tiles(const int cond, int16_t *b, int64_t e, int64_t s, int torus, int64_t u0,
                                      int64_t u1, dregs *R)
{
	V lp[DTILE], cp[DTILE], fv[DTILE];
	const int64_t per = s / HW, most = DFLUSH / e < DTILE ? DFLUSH / e : DTILE;
	for (int64_t u = u0; u < u1;) {
		int64_t m = per - u % per; /* the tile: to the block's end, the range's, or most */
		m = m < u1 - u ? m : u1 - u;
		m = m < most ? m : most;
		int16_t *p = b + u / per * (s * e) + u % per * HW;
		dtile_open(cond, p, e, s, torus, m, lp, cp, fv);
		for (int64_t i = 0; i < e; i++)
			dtile_slice(cond, p, e, s, torus, m, i, lp, cp, fv, R);
		dflush(R, 0);
		u += m;
	}
}

/* Lanes: blocks of s e PEs, a whole number J of vectors, neighbours S lanes
 * across (S = s: 1, 4 or 8). alignr's shift must be an integer constant
 * expression to clang even where the inlined S is one to gcc: each S its
 * literal, the switch folded away once dense_lanes is inlined. */
#define DSHL_N(N, prev, cur) simde_mm256_alignr_epi8((cur), simde_mm256_permute2x128_si256((prev), (cur), 0x21), 16 - 2 * (N))
#define DSHR_N(N, cur, next) simde_mm256_alignr_epi8(simde_mm256_permute2x128_si256((cur), (next), 0x21), (cur), 2 * (N))
static ALWAYS_INLINE V dshl(const int S, V prev, V cur)
{
	switch (S) {
	case 1: return DSHL_N(1, prev, cur);
	case 4: return DSHL_N(4, prev, cur);
	default: return DSHL_N(8, prev, cur);
	}
}
static ALWAYS_INLINE V dshr(const int S, V cur, V next)
{
	switch (S) {
	case 1: return DSHR_N(1, cur, next);
	case 4: return DSHR_N(4, cur, next);
	default: return DSHR_N(8, cur, next);
	}
}
#define DSHL(S, prev, cur) dshl((S), (prev), (cur))
#define DSHR(S, cur, next) dshr((S), (cur), (next))
/* The update of vector cur of a lanes block (prev and next the vectors
 * beside it, csp the C_i of prev), counted, with the statistics on the
 * row's axis (S = 1): stores its new loads at p and returns its C_i
 * (masked by linked). */
static ALWAYS_INLINE V dense_lane(const int cond, const int S, int16_t *p, V prev, V cur, V next, V csp, V linked,
                                  dregs *R)
{
	const V cs = simde_mm256_and_si256(hcond(cond, HGT1(DSHL(S, prev, cur)), cur, DSHR(S, cur, next)), linked);
	const V x = simde_mm256_sub_epi16(simde_mm256_add_epi16(cur, cs), DSHL(S, csp, cs));
	R->cnt = simde_mm256_add_epi16(R->cnt, cs);
	if (S == 1) {
		R->mx = simde_mm256_max_epi16(R->mx, x);
		R->mn = simde_mm256_min_epi16(R->mn, x);
		R->sum = VADD(R->sum, HPAIRS(x));
	}
	VSTORE(p, x);
	return cs;
}
/* Units u0 .. u1-1: a unit a block. */
static ALWAYS_INLINE void dense_lanes(const int cond, const int S, int16_t *b, int64_t e, int torus, int64_t u0,
                                      int64_t u1, dregs *R)
{
	const int64_t J = S * e / HW, chunk = J < DFLUSH ? DFLUSH / J : 1;
	const V all = VSET1(-1), zero = VSET1(0);
	/* the last vector of a mesh block: its last S lanes have no link */
	const V tail = simde_mm256_cmpgt_epi16(HSET1((int16_t)(HW - S)),
	                                       simde_mm256_setr_epi16(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15));
	for (int64_t u = u0; u < u1;) {
		for (const int64_t end = u1 - u > chunk ? u + chunk : u1; u < end; u++) {
			int16_t *p = b + u * S * e;
			const V first = VLOAD(p), lastv = VLOAD(p + (J - 1) * HW);
			V prev = torus ? lastv : zero, cur = first, csp = zero;
			if (torus) { /* C_i of the last vector, whose lanes hand it to the first */
				const V before = J > 1 ? VLOAD(p + (J - 2) * HW) : lastv;
				csp = hcond(cond, HGT1(DSHL(S, before, lastv)), lastv, DSHR(S, lastv, first));
			}
			int64_t j = 0;
			while (j + 1 < J) { /* a block of more than DFLUSH vectors (a long ring) empties its counts inside */
				for (const int64_t end = J - 1 - j > DFLUSH ? j + DFLUSH : J - 1; j < end; j++) {
					const V next = VLOAD(p + (j + 1) * HW);
					csp = dense_lane(cond, S, p + j * HW, prev, cur, next, csp, all, R);
					prev = cur;
					cur = next;
				}
				if (j + 1 < J)
					dflush(R, S == 1);
			}
			dense_lane(cond, S, p + j * HW, prev, cur, torus ? first : zero, csp, torus ? all : tail, R);
		}
		dflush(R, S == 1);
	}
}

/* Groups: blocks of 4 or 8 PEs inside each 128-bit lane, the
 * neighbours by a byte shuffle (x->next, x->prev); on a mesh, edge masks
 * the last slice's C and first zeroes the missing predecessor. Units
 * u0 .. u1-1: a unit a vector. */
static ALWAYS_INLINE void dense_groups(const int cond, const int stats, int16_t *b, const dshape *x, int k, int64_t u0,
                                       int64_t u1, dregs *R)
{
	const V nx = x->next[k], pv = x->prev[k], edge = x->edge[k], first = x->first[k];
	for (int64_t u = u0; u < u1;) {
		for (const int64_t end = u1 - u > DFLUSH ? u + DFLUSH : u1; u < end; u++) {
			int16_t *p = b + u * HW;
			const V l = VLOAD(p);
			const V lp = simde_mm256_and_si256(simde_mm256_shuffle_epi8(l, pv), first);
			const V cs = simde_mm256_and_si256(hcond(cond, HGT1(lp), l, simde_mm256_shuffle_epi8(l, nx)), edge);
			const V y = simde_mm256_sub_epi16(simde_mm256_add_epi16(l, cs), simde_mm256_shuffle_epi8(cs, pv));
			R->cnt = simde_mm256_add_epi16(R->cnt, cs);
			if (stats) {
				R->mx = simde_mm256_max_epi16(R->mx, y);
				R->mn = simde_mm256_min_epi16(R->mn, y);
				R->sum = VADD(R->sum, HPAIRS(y));
			}
			VSTORE(p, y);
		}
		dflush(R, stats);
	}
}

/* Units u0 .. u1-1 of the substep along active axis k (streamed: an axis
 * before dense_blocks's K). */
static ALWAYS_INLINE void dense_pass(const int cond, int16_t *b, const dshape *x, int k, int streamed, int64_t u0,
                                     int64_t u1, dregs *R)
{
	const int64_t e = x->e[k], s = x->s[k];
	const int torus = x->torus[k];
	if (x->kind[k] == DCOL && streamed)
		dense_tiles(cond, b, e, s, torus, u0, u1, R);
	else if (x->kind[k] == DCOL)
		dense_cols(cond, b, e, s, torus, u0, u1, R);
	else if (x->kind[k] == DGROUP)
		(s == 1 ? dense_groups(cond, 1, b, x, k, u0, u1, R) : dense_groups(cond, 0, b, x, k, u0, u1, R));
	else if (s == 1 && x->row16) { /* AVX-512's 32 int16 lanes, its counts into R */
		int64_t o[4];
		x->row16(cond, b, e, torus, u0, u1, o);
		R->moved += o[0];
		R->total += o[1];
		R->mx = simde_mm256_max_epi16(R->mx, HSET1((int16_t)o[2]));
		R->mn = simde_mm256_min_epi16(R->mn, HSET1((int16_t)o[3]));
	} else
		switch (s) {
		case 1: dense_lanes(cond, 1, b, e, torus, u0, u1, R); break;
		case 4: dense_lanes(cond, 4, b, e, torus, u0, u1, R); break;
		default: dense_lanes(cond, 8, b, e, torus, u0, u1, R); break;
		}
}

/* How a team of T steps the copy: the substeps along active axes K and on
 * touch only their own block of PEs (blk PEs: the stride of axis K-1, or
 * P), so those are done block by block while a block stays in the cache,
 * each thread a range of blocks; the axes before K each in a pass over the
 * copy, each thread a range of its units. K is the first axis whose block
 * is at most DBLOCK PEs, with at least 4 blocks a thread for T > 1. A
 * grid beyond the caches is then read and written K + 1 times a step, not
 * D times (K where dense_step_part folds axis K-1 into the blocks). */
enum { DBLOCK = 1 << 17 };
static void dense_blocks(const dshape *x, int T, int *K, int64_t *blk)
{
	int k = 0;
	int64_t B = x->P;
	while (k < x->D && (B > DBLOCK || (T > 1 && x->P / B < 4 * T)))
		B = x->s[k++];
	*K = k;
	*blk = B;
}

/* The last streamed axis K-1 (columns; its slices are the blocks, of at
 * most DFUSE PEs) folded into the block phase: blocks q0 .. q1-1 of axis
 * K-2 (s e PEs; the copy for K = 1), each walked slice by slice as one
 * tile (dtile_slice), each slice, once it holds its loads after the
 * substep along K-1, taken through the substeps from K while it is in L1.
 * The substep along K-1 reads only its buffers and the slices after,
 * which the later substeps have not touched yet; so the grid is streamed
 * once less a step. */
enum { DFUSE = 1 << 12 };
static ALWAYS_INLINE void dense_fused(const int cond, int16_t *b, const dshape *x, int K, int64_t q0, int64_t q1,
                                      dregs *R)
{
	V lp[DFUSE / HW], cp[DFUSE / HW], fv[DFUSE / HW];
	const int64_t e = x->e[K - 1], s = x->s[K - 1], m = s / HW, nb = x->P / s;
	const int torus = x->torus[K - 1];
	for (int64_t q = q0; q < q1; q++) {
		int16_t *p = b + q * s * e;
		dtile_open(cond, p, e, s, torus, m, lp, cp, fv);
		for (int64_t i = 0; i < e; i++) {
			dtile_slice(cond, p, e, s, torus, m, i, lp, cp, fv, R);
			dflush(R, 0);
			for (int k = K; k < x->D; k++) {
				const int64_t per = x->units[k] / nb;
				dense_pass(cond, b, x, k, 0, (q * e + i) * per, (q * e + i + 1) * per, R);
			}
		}
	}
}

/* Thread t's part of one step of the copy (K, blk: dense_blocks's): its
 * range of the units of each substep before K, a barrier before each
 * (a substep reads what the one before wrote in the other threads'
 * ranges), then its range of blocks through the substeps from K; its
 * counts into *out. Where axis K-1's slices (blk PEs) are columns of at
 * most DFUSE PEs and its blocks (of axis K-2) at least one a thread, that
 * axis goes with the blocks (dense_fused), each thread a range of its
 * blocks. */
static ALWAYS_INLINE void dense_step_part(const int cond, int16_t *b, const dshape *x, int K, int64_t blk,
                                          const lbt_team *t, dpart *out)
{
	dregs R = {HSET1(0), HSET1(INT16_MIN), HSET1(INT16_MAX), VSET1(0), 0, 0};
	const int fuse = K >= 1 && K < x->D && x->kind[K - 1] == DCOL && blk <= DFUSE && x->P / (blk * x->e[K - 1]) >= t->n;
	const int F = fuse ? K - 1 : K;
	for (int k = 0; k < F; k++) {
		const int64_t U = x->units[k];
		if (k)
			lbt_team_barrier(t);
		dense_pass(cond, b, x, k, 1, U * t->id / t->n, U * (t->id + 1) / t->n, &R);
	}
	if (fuse) {
		const int64_t nb = x->P / (blk * x->e[K - 1]);
		if (F)
			lbt_team_barrier(t);
		dense_fused(cond, b, x, K, nb * t->id / t->n, nb * (t->id + 1) / t->n, &R);
	} else if (K < x->D) {
		const int64_t nb = x->P / blk;
		if (K)
			lbt_team_barrier(t);
		for (int64_t q = nb * t->id / t->n; q < nb * (t->id + 1) / t->n; q++)
			for (int k = K; k < x->D; k++) {
				const int64_t per = x->units[k] / nb;
				dense_pass(cond, b, x, k, 0, q * per, (q + 1) * per, &R);
			}
	}
	*out = (dpart){.moved = R.moved, .total = R.total, .max = vmax32(VMAX(HWIDEN(R.mx, 0), HWIDEN(R.mx, 1))),
	               .min = vmin32(VMIN(HWIDEN(R.mn, 0), HWIDEN(R.mn, 1)))};
}

/* A call in the copy: the grid, its copy b and shape, the call's steps and
 * stop, where the steps' counts go; per thread its share (th), the piles
 * (B), whether the copy took the grid and the steps done. */
typedef struct {
	const lbt_view *v;
	const dshape *x;
	int n;
	const lbt_steps_stop *stop;
	int16_t *b;
	lbt_counts *c;
	dthread *th;
	dbig B;
	int ok, done;
} djob;

/* Thread t's share of a call: pack its range of the copy's vectors; the
 * piles judged as one set (thread 0); the steps, each followed by a
 * barrier after which every thread sums the same parts into the same
 * counts and so makes the same choice to stop (a part is rewritten only
 * after the next step's first barrier, which every thread reaches after
 * reading it; the piles' places in the copy, with a second barrier); then
 * widen its range back. */
static ALWAYS_INLINE void dense_run_impl(const int cond, djob *j, const lbt_team *t)
{
	const dshape *x = j->x;
	const int64_t nd = (int64_t)j->n * x->D, nv = x->P / HW;
	const int64_t i0 = nv * t->id / t->n * HW, i1 = nv * (t->id + 1) / t->n * HW;
	dthread *me = &j->th[t->id];
	me->ok = dense_pack(j->v, x, j->b, nd, i0, i1, &me->B, &me->top);
	lbt_team_barrier(t);
	if (t->id == 0)
		j->ok = dense_piles(x, (int32_t)DLO(nd), j->th, t->n, &j->B);
	lbt_team_barrier(t);
	if (!j->ok)
		return;
	int K, s = 0;
	int64_t blk;
	dense_blocks(x, t->n, &K, &blk);
	while (s < j->n) {
		dense_step_part(cond, j->b, x, K, blk, t, &me->part);
		lbt_team_barrier(t);
		lbt_counts r = {.max = INT32_MIN, .min = INT32_MAX, .shifts = x->D, .has_stats = 1};
		for (int q = 0; q < t->n; q++) {
			const dpart *p = &j->th[q].part;
			r.moved += p->moved;
			r.total += p->total;
			r.max = r.max > p->max ? r.max : p->max;
			r.min = r.min < p->min ? r.min : p->min;
		}
		for (int k = 0; k < j->B.n; k++) { /* the piles' loads: the maximum, and their excess in the total */
			const int64_t l = j->b[j->B.at[k]] + j->B.excess[k];
			r.max = r.max > l ? r.max : (int32_t)l;
		}
		r.total += j->B.total;
		/* the piles' places are read in the copy, which the next step
		 * rewrites: every thread reads them before any goes on (without
		 * this a thread read a pile already stepped again, and threads
		 * could disagree on the stop) */
		if (j->B.n && t->n > 1)
			lbt_team_barrier(t);
		if (t->id == 0)
			j->c[s] = r;
		s++;
		if (stop_met(j->stop, r.max, r.min))
			break;
	}
	dense_unpack(j->v, x, j->b, i0, i1);
	if (t->id == 0)
		j->done = s;
}
#define DENSE_RUNS(k) \
	static void dense_run_##k(void *j, const lbt_team *t) { dense_run_impl(k, j, t); }
DENSE_RUNS(0) DENSE_RUNS(1) DENSE_RUNS(2) DENSE_RUNS(3) DENSE_RUNS(4) DENSE_RUNS(5)
static const lbt_team_fn dense_runs[LBT_NCOND] = {dense_run_0, dense_run_1, dense_run_2, dense_run_3, dense_run_4,
                                                 dense_run_5};

/* The copy's team: a thread per DTHREAD PEs, at most v->threads, at least
 * one; a ring is one unit, so one thread. */
static int64_t dense_team(const lbt_view *v, const dshape *x)
{
	int64_t T = v->threads > 1 && x->D > 1 ? v->threads : 1;
	T = T < x->P / DTHREAD ? T : x->P / DTHREAD;
	return T > 1 ? T : 1;
}

/* Up to n steps of a grid that takes the copy (x), in the copy b (P
 * int16), on a thread per DTHREAD PEs (at most v->threads): the steps
 * done, each one's counts into c, a call ending after a step that meets
 * stop; 0 where the loads do not fit (then the grid is unchanged). A call
 * does at most DNMAX steps (n D at most 2048: the stand-ins' window stays
 * open). */
static int dense_steps(const lbt_view *v, const dshape *x, int cond, int n, const lbt_steps_stop *stop, int16_t *b,
                       lbt_counts *c)
{
	const int64_t T = dense_team(v, x);
	dthread one, *th = T == 1 ? &one : lbt_alloc_aligned((size_t)T * sizeof *th);
	if (!th)
		return 0;
	djob j = {.v = v, .x = x, .n = n < DNMAX ? n : DNMAX, .stop = stop, .b = b, .c = c, .th = th};
	lbt_team_run((int)T, dense_runs[cond], &j);
	for (int k = 0; j.ok && k < j.B.n; k++) /* the piles' PEs hold their stand-ins */
		*j.B.to[k] = (int32_t)(b[j.B.at[k]] + j.B.excess[k]);
	if (th != &one)
		free(th);
	return j.ok ? j.done : 0;
}

/* Byte steps at D >= 3. Where the conditions look at no predecessor's load
 * (C0, C1, C3, C5: lm_avx2_steps.h's bcond) and every load fits, the copy
 * is int8, 32 PEs a vector: half the int16 copy's memory streamed per
 * substep. A substep along a torus axis leaves every load at most
 * max(old maximum, 2) (Henrich's Lemma 1, ring by ring) and takes none
 * below 0; along a mesh axis only the last PE of a line, which gives
 * nothing, may pass the old maximum, by 1. So a step of a grid with m
 * mesh axes whose loads are at most 126 - m (D8LIM; 127 is where the
 * packing saturates a larger load) keeps them in int8 and every substep
 * is exact. The copy has the int16 copy's order and the same
 * kinds of axis in 32 lanes: columns (s a multiple of 32), lanes (s = 1,
 * 4, 8 or 16, s e a multiple of 32), groups (s e = 4, 8 or 16 inside each
 * 128-bit lane); the units, blocks, tiles and fused axis of dense_step_part
 * with the same team and barriers. A step after which the maximum is
 * above the limit ends the bytes: the loads are widened back and the call
 * goes on in the int16 copy (dense_many).
 *
 * Piles beyond the bytes (the worst case's point: a load of at least
 * D8HI = 128) stay out of the lanes as in the int16 copy (dbig), up to
 * DBIG of them, no two neighbours, every other load at most
 * D8LO(D) = 126 - 3 D: a pile's lane holds the stand-in D8STAND(D) =
 * 127 - D at the start of every step (after it, the lane's change goes
 * into the pile's excess), so within a step a pile's lane is in
 * 127 - 2 D .. 127 and its load above 127 - D, any other load at most
 * 126 - 2 D (a substep changes a load by at most 1): every condition
 * (bcond: a load against 0, 1, 2 and its successor's) has the bits of the
 * true loads. The others' maximum is bounded by its value at the packing
 * plus D a step, and read again in the copy (d8_top) when the bound passes
 * D8LO(D); a step that leaves it above, or a pile below D8HI, ends the
 * bytes as the limit does. */
enum { D8 = 32, D8TILE = 128, D8HI = INT8_MAX + 1 };
static V bcond(int cond, V l, V ln); /* lm_avx2_steps.h: the conditions in int8 lanes, the 32 loads of four int32 vectors */
static V bpack(const int32_t *p);
static void bwiden_store(int32_t *out, V x, int stream);
#define D8LIM(m) (INT8_MAX - 1 - (m))
#define D8STAND(D) (INT8_MAX - (D))
#define D8LO(D) (INT8_MAX - 1 - 3 * (D))

/* The byte copy's kinds of axis for the int16 copy's shape x (cond one of
 * bcond's): 1 and y filled, else 0. y->top holds the largest load a step
 * takes (D8LIM); y->row64 (AVX-512's, or NULL) takes the rows' pass where
 * a row is whole 64-byte vectors, y->pass64 (AVX-512's, or NULL) the
 * others (d8_pass says which), y->slice64 (AVX-512's, or NULL) the folded
 * axis's slices (d8_fused). */
static int d8_shape(const dshape *x, int cond, lbt_d8row_fn row64, lbt_d8pass_fn pass64, lbt_d8slice_fn slice64,
                    dshape *y)
{
	if (!(cond == LBT_C0 || cond == LBT_C1 || cond == LBT_C3 || cond == LBT_C5) || x->P % D8 ||
	    !(x->n == 4 || x->n == 8 || x->n == 16 || x->n % D8 == 0))
		return 0;
	*y = *x;
	int mesh = 0;
	for (int k = 0; k < x->D; k++) {
		const int64_t s = x->s[k], B = s * x->e[k];
		mesh += !x->torus[k];
		if (s % D8 == 0) {
			y->kind[k] = DCOL;
			y->per[k] = x->e[k];
		} else if ((s == 1 || s == 4 || s == 8 || s == 16) && B % D8 == 0) {
			y->kind[k] = DLANE;
			y->per[k] = B / D8;
		} else if (B == 4 || B == 8 || B == 16) {
			y->kind[k] = DGROUP;
			y->per[k] = 1;
			for (int i = 0; i < 16; i++) { /* one 128-bit lane's, the same in all */
				const int pos = (int)(i % B), base = i - pos;
				y->ax[k].next[i] = (int8_t)(base + (pos + s) % B);
				y->ax[k].prev[i] = (int8_t)(base + (pos - s + B) % B);
				y->ax[k].edge[i] = (int8_t)(x->torus[k] || pos < B - s ? -1 : 0);
			}
		} else
			return 0;
		y->units[k] = x->P / (y->per[k] * D8);
		y->ax[k].e = x->e[k];
		y->ax[k].s = s;
		y->ax[k].torus = x->torus[k];
		y->ax[k].kind = y->kind[k];
	}
	y->top = D8LIM(mesh);
	y->row64 = x->n % 64 ? NULL : row64;
	y->pass64 = pass64;
	y->slice64 = slice64;
	return 1;
}

/* The unsigned maximum of the 32 bytes of x. */
static int32_t d8_umax(V x)
{
	uint8_t m[D8] __attribute__((aligned(LBT_ALIGN)));
	VSTORE(m, x);
	int32_t most = 0;
	for (int k = 0; k < D8; k++)
		most = m[k] > most ? m[k] : most;
	return most;
}

/* Copy vectors i0/32 .. i1/32 - 1 of the grid packed (with signed
 * saturation) into b (dense_pack in bytes; rows of fewer than 32 PEs
 * through a buffer): 1 if every load there is at most x->top, or a pile
 * out of the lanes (B, the range's: at least D8HI, and every other load
 * at most D8LO(D) from the first pile on), else 0. *top: the largest load
 * it put in the lanes. */
static int d8_pack(const lbt_view *v, const dshape *x, int8_t *b, int64_t i0, int64_t i1, dbig *B, int32_t *top)
{
	int32_t t[D8] __attribute__((aligned(LBT_ALIGN)));
	int32_t *r[D8];
	const int64_t n = x->n;
	int32_t lim = x->top;
	V most = VSET1(0), lv = simde_mm256_set1_epi8((int8_t)lim);
	B->n = 0;
	B->total = 0;
	drows o = drows_at(v, i0 / n);
	for (int64_t i = i0; i < i1; i += D8) {
		const int32_t *g = t;
		if (n >= D8) {
			const int64_t j = i % n;
			g = r[0] = v->load + o.off + j;
			if (j + D8 == n)
				drows_next(&o, v);
		} else
			for (int64_t k = 0; k < D8; k += n) {
				r[k / n] = v->load + o.off;
				memcpy(t + k, r[k / n], (size_t)n * sizeof *t);
				drows_next(&o, v);
			}
		const V d = bpack(g); /* a negative load is above lim (unsigned) */
		if (simde_mm256_movemask_epi8(simde_mm256_cmpeq_epi8(simde_mm256_max_epu8(d, lv), lv)) == -1) {
			most = simde_mm256_max_epu8(most, d);
			VSTORE(b + i, d);
			continue;
		}
		int32_t m = d8_umax(most);
		for (int l = 0; l < D8; l++) {
			if (g[l] < 0)
				return 0;
			if (g[l] <= lim) {
				b[i + l] = (int8_t)g[l];
				m = g[l] > m ? g[l] : m;
				continue;
			}
			if (g[l] < D8HI || B->n == DBIG || m > D8LO(x->D))
				return 0;
			lim = D8LO(x->D);
			B->at[B->n] = i + l;
			B->excess[B->n] = (int64_t)g[l] - D8STAND(x->D);
			B->total += B->excess[B->n];
			B->to[B->n++] = n >= D8 ? r[0] + l : r[l / n] + l % n;
			b[i + l] = (int8_t)D8STAND(x->D);
		}
		lv = simde_mm256_set1_epi8((int8_t)lim);
		most = simde_mm256_set1_epi8((int8_t)m);
	}
	*top = d8_umax(most);
	return 1;
}

/* The largest load in the copy's vectors i0/32 .. i1/32 - 1 but at the
 * piles' places (B's, in increasing order). */
static int32_t d8_top(const int8_t *b, int64_t i0, int64_t i1, const dbig *B)
{
	V most = VSET1(0);
	int32_t m = 0;
	int k = 0;
	for (int64_t i = i0; i < i1; i += D8) {
		while (k < B->n && B->at[k] < i)
			k++;
		if (k == B->n || B->at[k] >= i + D8) {
			most = simde_mm256_max_epu8(most, VLOAD(b + i));
			continue;
		}
		for (int l = 0, q = k; l < D8; l++) {
			if (q < B->n && B->at[q] == i + l) {
				q++;
				continue;
			}
			m = (uint8_t)b[i + l] > m ? (uint8_t)b[i + l] : m;
		}
	}
	const int32_t mv = d8_umax(most);
	return mv > m ? mv : m;
}

/* Copy vectors i0/32 .. i1/32 - 1 widened back into the grid (a grid
 * beyond the second-level cache by streaming stores: the caller fences). */
static void d8_unpack(const lbt_view *v, int64_t n, const int8_t *b, int64_t i0, int64_t i1)
{
	int32_t t[D8] __attribute__((aligned(LBT_ALIGN)));
	const int stream = i1 - i0 >= (1 << 17);
	drows o = drows_at(v, i0 / n);
	for (int64_t i = i0; i < i1; i += D8) {
		if (n >= D8) {
			const int64_t j = i % n;
			bwiden_store(v->load + o.off + j, VLOAD(b + i), stream);
			if (j + D8 == n)
				drows_next(&o, v);
		} else {
			bwiden_store(t, VLOAD(b + i), 0);
			for (int64_t k = 0; k < D8; k += n) {
				memcpy(v->load + o.off, t + k, (size_t)n * sizeof *t);
				drows_next(&o, v);
			}
		}
	}
}

/* A thread's counters: C_i counted in uint8 lanes (-1 each), emptied into
 * 64-bit lanes (mv) before a lane could pass 255; with stats, max and min
 * (int8) and the total (64-bit lanes). */
typedef struct {
	V cnt, mx, mn, sum, mv;
	int adds;
} d8regs;
static ALWAYS_INLINE void d8count(d8regs *R, V cs)
{
	if (R->adds == 255) {
		R->mv = simde_mm256_add_epi64(R->mv, simde_mm256_sad_epu8(R->cnt, VSET1(0)));
		R->cnt = VSET1(0);
		R->adds = 0;
	}
	R->adds++;
	R->cnt = simde_mm256_sub_epi8(R->cnt, cs);
}
static ALWAYS_INLINE void d8stats(d8regs *R, V x)
{
	R->mx = simde_mm256_max_epi8(R->mx, x);
	R->mn = simde_mm256_min_epi8(R->mn, x);
	R->sum = simde_mm256_add_epi64(R->sum, simde_mm256_sad_epu8(x, VSET1(0)));
}

/* The update of vector l (its successors' loads ln; cp the C_i of the PEs
 * before it), counted: stores l's new loads at p and returns its C_i
 * (masked by linked). */
static ALWAYS_INLINE V d8_put(const int cond, int8_t *p, V l, V ln, V cp, V linked, d8regs *R)
{
	const V cs = simde_mm256_and_si256(bcond(cond, l, ln), linked);
	d8count(R, cs);
	VSTORE(p, simde_mm256_sub_epi8(simde_mm256_add_epi8(l, cs), cp));
	return cs;
}

/* Columns (dense_cols in bytes): units u0 .. u1-1, a unit the column of
 * one vector of a block. */
static ALWAYS_INLINE void d8_cols(const int cond, int8_t *b, int64_t e, int64_t s, int torus, int64_t u0, int64_t u1,
                                  d8regs *R)
{
	const V all = VSET1(-1), zero = VSET1(0);
	const int64_t per = s / D8;
	for (int64_t u = u0; u < u1; u++) {
		int8_t *p = b + u / per * (s * e) + u % per * D8;
		const V first = VLOAD(p), lastv = VLOAD(p + (e - 1) * s);
		V l = first, cp = torus ? bcond(cond, lastv, first) : zero; /* the last slice's C_i, handed to the first on a torus */
		int64_t i = 0;
		for (; i + 1 < e; i++) {
			const V ln = VLOAD(p + (i + 1) * s);
			cp = d8_put(cond, p + i * s, l, ln, cp, all, R);
			l = ln;
		}
		d8_put(cond, p + i * s, l, torus ? first : zero, cp, torus ? all : zero, R);
	}
}

/* Columns of a streamed axis (dense_tiles in bytes): slice by slice over
 * tiles of at most D8TILE columns of a block, each column's C_i (cp) and
 * old first slice (fv) in buffers. d8tile_open fills them, d8tile_slice
 * updates slice i of the tile at p. */
static ALWAYS_INLINE void d8tile_open(const int cond, const int8_t *p, int64_t e, int64_t s, int torus, int64_t m, V *cp,
                                      V *fv)
{
	for (int64_t t = 0; t < m; t++) {
		const V first = VLOAD(p + t * D8);
		fv[t] = first;
		cp[t] = torus ? bcond(cond, VLOAD(p + (e - 1) * s + t * D8), first) : VSET1(0);
	}
}
static ALWAYS_INLINE void d8tile_slice(const int cond, int8_t *p, int64_t e, int64_t s, int torus, int64_t m, int64_t i,
                                       V *cp, const V *fv, d8regs *R)
{
	const V all = VSET1(-1), zero = VSET1(0);
	int8_t *q = p + i * s;
	if (i + 1 < e)
		for (int64_t t = 0; t < m; t++)
			cp[t] = d8_put(cond, q + t * D8, VLOAD(q + t * D8), VLOAD(q + s + t * D8), cp[t], all, R);
	else
		for (int64_t t = 0; t < m; t++)
			d8_put(cond, q + t * D8, VLOAD(q + t * D8), torus ? fv[t] : zero, cp[t], torus ? all : zero, R);
}
static ALWAYS_INLINE void d8_tiles(const int cond, int8_t *b, int64_t e, int64_t s, int torus, int64_t u0, int64_t u1,
                                   d8regs *R)
{
	V cp[D8TILE], fv[D8TILE];
	const int64_t per = s / D8;
	for (int64_t u = u0; u < u1;) {
		int64_t m = per - u % per; /* the tile: to the block's end, the range's, or D8TILE */
		m = m < u1 - u ? m : u1 - u;
		m = m < D8TILE ? m : D8TILE;
		int8_t *p = b + u / per * (s * e) + u % per * D8;
		d8tile_open(cond, p, e, s, torus, m, cp, fv);
		for (int64_t i = 0; i < e; i++)
			d8tile_slice(cond, p, e, s, torus, m, i, cp, fv, R);
		u += m;
	}
}

/* Lanes: blocks of s e PEs, J whole vectors, neighbours S bytes across (S =
 * s: 1, 4, 8 or 16; each its literal for alignr, as dshl). */
#define D8SHL_N(N, prev, cur) simde_mm256_alignr_epi8((cur), simde_mm256_permute2x128_si256((prev), (cur), 0x21), 16 - (N))
#define D8SHR_N(N, cur, next) simde_mm256_alignr_epi8(simde_mm256_permute2x128_si256((cur), (next), 0x21), (cur), (N))
static ALWAYS_INLINE V d8shl(const int S, V prev, V cur)
{
	switch (S) {
	case 1: return D8SHL_N(1, prev, cur);
	case 4: return D8SHL_N(4, prev, cur);
	case 8: return D8SHL_N(8, prev, cur);
	default: return simde_mm256_permute2x128_si256(prev, cur, 0x21);
	}
}
static ALWAYS_INLINE V d8shr(const int S, V cur, V next)
{
	switch (S) {
	case 1: return D8SHR_N(1, cur, next);
	case 4: return D8SHR_N(4, cur, next);
	case 8: return D8SHR_N(8, cur, next);
	default: return simde_mm256_permute2x128_si256(cur, next, 0x21);
	}
}
/* The update of vector cur of a lanes block (next the vector after it, csp
 * the C_i of the one before), counted, with the statistics on the row's
 * axis (S = 1): stores its new loads at p and returns its C_i (masked by
 * linked). */
static ALWAYS_INLINE V d8_lane(const int cond, const int S, int8_t *p, V cur, V next, V csp, V linked, d8regs *R)
{
	const V cs = simde_mm256_and_si256(bcond(cond, cur, d8shr(S, cur, next)), linked);
	const V x = simde_mm256_sub_epi8(simde_mm256_add_epi8(cur, cs), d8shl(S, csp, cs));
	d8count(R, cs);
	if (S == 1)
		d8stats(R, x);
	VSTORE(p, x);
	return cs;
}
static ALWAYS_INLINE void d8_lanes(const int cond, const int S, int8_t *b, int64_t e, int torus, int64_t u0, int64_t u1,
                                   d8regs *R)
{
	const int64_t J = S * e / D8;
	const V all = VSET1(-1), zero = VSET1(0);
	/* the last vector of a mesh block: its last S lanes have no link */
	const V tail = simde_mm256_cmpgt_epi8(simde_mm256_set1_epi8((char)(D8 - S)),
	                                      simde_mm256_setr_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16,
	                                                            17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31));
	for (int64_t u = u0; u < u1; u++) {
		int8_t *p = b + u * S * e;
		const V first = VLOAD(p), lastv = VLOAD(p + (J - 1) * D8);
		/* C_i of the last vector, whose lanes hand it to the first on a torus */
		V cur = first, csp = torus ? bcond(cond, lastv, d8shr(S, lastv, first)) : zero;
		int64_t j = 0;
		for (; j + 1 < J; j++) {
			const V next = VLOAD(p + (j + 1) * D8);
			csp = d8_lane(cond, S, p + j * D8, cur, next, csp, all, R);
			cur = next;
		}
		d8_lane(cond, S, p + j * D8, cur, torus ? first : zero, csp, torus ? all : tail, R);
	}
}

/* Groups: blocks of 4, 8 or 16 PEs inside each 128-bit lane, the
 * successor by a byte shuffle (x->ax[k].next) and the C_i of the
 * predecessor by another (prev); on a mesh, edge masks the last slice's C.
 * Each is one 128-bit lane's, broadcast. */
static ALWAYS_INLINE V d8bcast(const int8_t *p)
{
	return simde_mm256_broadcastsi128_si256(simde_mm_loadu_si128((const void *)p));
}
static ALWAYS_INLINE void d8_groups(const int cond, const int stats, int8_t *b, const dshape *x, int k, int64_t u0,
                                    int64_t u1, d8regs *R)
{
	const V nx = d8bcast(x->ax[k].next), pv = d8bcast(x->ax[k].prev), edge = d8bcast(x->ax[k].edge);
	for (int64_t u = u0; u < u1; u++) {
		int8_t *p = b + u * D8;
		const V l = VLOAD(p);
		const V cs = simde_mm256_and_si256(bcond(cond, l, simde_mm256_shuffle_epi8(l, nx)), edge);
		const V y = simde_mm256_sub_epi8(simde_mm256_add_epi8(l, cs), simde_mm256_shuffle_epi8(cs, pv));
		d8count(R, cs);
		if (stats)
			d8stats(R, y);
		VSTORE(p, y);
	}
}

/* Units u0 .. u1-1 of the substep along active axis k (dense_pass). */
static ALWAYS_INLINE void d8_pass(const int cond, int8_t *b, const dshape *x, int k, int streamed, int64_t u0, int64_t u1,
                                  d8regs *R)
{
	const int64_t e = x->e[k], s = x->s[k];
	const int torus = x->torus[k];
	if (x->pass64 && (x->kind[k] != DLANE || (s > 1 && s * e % 64 == 0))) { /* AVX-512's 64 lanes, its counts into R */
		int64_t o[4];
		x->pass64(cond, b, &x->ax[k], streamed, u0, u1, o);
		R->mv = simde_mm256_add_epi64(R->mv, simde_mm256_set_epi64x(0, 0, 0, o[0]));
		if (s == 1) {
			R->sum = simde_mm256_add_epi64(R->sum, simde_mm256_set_epi64x(0, 0, 0, o[1]));
			R->mx = simde_mm256_max_epi8(R->mx, simde_mm256_set1_epi8((int8_t)o[2]));
			R->mn = simde_mm256_min_epi8(R->mn, simde_mm256_set1_epi8((int8_t)o[3]));
		}
	} else if (x->kind[k] == DCOL && streamed)
		d8_tiles(cond, b, e, s, torus, u0, u1, R);
	else if (x->kind[k] == DCOL)
		d8_cols(cond, b, e, s, torus, u0, u1, R);
	else if (x->kind[k] == DGROUP)
		(s == 1 ? d8_groups(cond, 1, b, x, k, u0, u1, R) : d8_groups(cond, 0, b, x, k, u0, u1, R));
	else if (s == 1 && x->row64) { /* AVX-512's 64 lanes, its counts into R */
		int64_t o[4];
		x->row64(cond, b, e, torus, u0, u1, o);
		R->mv = simde_mm256_add_epi64(R->mv, simde_mm256_set_epi64x(0, 0, 0, o[0]));
		R->sum = simde_mm256_add_epi64(R->sum, simde_mm256_set_epi64x(0, 0, 0, o[1]));
		R->mx = simde_mm256_max_epi8(R->mx, simde_mm256_set1_epi8((int8_t)o[2]));
		R->mn = simde_mm256_min_epi8(R->mn, simde_mm256_set1_epi8((int8_t)o[3]));
	} else
		switch (s) {
		case 1: d8_lanes(cond, 1, b, e, torus, u0, u1, R); break;
		case 4: d8_lanes(cond, 4, b, e, torus, u0, u1, R); break;
		case 8: d8_lanes(cond, 8, b, e, torus, u0, u1, R); break;
		default: d8_lanes(cond, 16, b, e, torus, u0, u1, R); break;
		}
}

/* The last streamed axis K-1 folded into the block phase (dense_fused).
 * On AVX-512 its slices go in 64 byte lanes (x->slice64), of up to
 * DBLOCK PEs (16^6's axis 1: 64 KiB), their buffers in buf (d8_step_part). */
static ALWAYS_INLINE void d8_fused(const int cond, int8_t *b, const dshape *x, int K, int64_t q0, int64_t q1, int8_t *buf,
                                   d8regs *R)
{
	V cp[DFUSE / D8], fv[DFUSE / D8];
	const int64_t e = x->e[K - 1], s = x->s[K - 1], m = s / D8, nb = x->P / s;
	const int torus = x->torus[K - 1];
	for (int64_t q = q0; q < q1; q++) {
		int8_t *p = b + q * s * e;
		int64_t moved = 0;
		if (!x->slice64)
			d8tile_open(cond, p, e, s, torus, m, cp, fv);
		for (int64_t i = 0; i < e; i++) {
			if (x->slice64) /* the old first slice, then the C_i masks */
				x->slice64(cond, p, e, s, torus, m, i, (uint64_t *)(void *)(buf + s), buf, &moved);
			else
				d8tile_slice(cond, p, e, s, torus, m, i, cp, fv, R);
			for (int k = K; k < x->D; k++) {
				const int64_t per = x->units[k] / nb;
				d8_pass(cond, b, x, k, 0, (q * e + i) * per, (q * e + i + 1) * per, R);
			}
		}
		R->mv = simde_mm256_add_epi64(R->mv, simde_mm256_set_epi64x(0, 0, 0, moved));
	}
}

/* Thread t's part of one step of the byte copy (dense_step_part; with
 * x->slice64 the folded axis's slices of up to DBLOCK PEs, each thread's
 * buffers in its share of the copy's second half, the int16 copy's room:
 * a block a thread is at least 2 blk bytes, the buffers 9/8 blk and 8). */
static ALWAYS_INLINE void d8_step_part(const int cond, int8_t *b, const dshape *x, int K, int64_t blk, const lbt_team *t,
                                       dpart *out)
{
	d8regs R = {VSET1(0), simde_mm256_set1_epi8(INT8_MIN), simde_mm256_set1_epi8(INT8_MAX), VSET1(0), VSET1(0), 0};
	const int fuse = K >= 1 && K < x->D && x->kind[K - 1] == DCOL && (blk <= DFUSE || x->slice64) &&
	                 x->P / (blk * x->e[K - 1]) >= t->n;
	const int F = fuse ? K - 1 : K;
	for (int k = 0; k < F; k++) {
		const int64_t U = x->units[k];
		if (k)
			lbt_team_barrier(t);
		d8_pass(cond, b, x, k, 1, U * t->id / t->n, U * (t->id + 1) / t->n, &R);
	}
	if (fuse) {
		const int64_t nb = x->P / (blk * x->e[K - 1]);
		if (F)
			lbt_team_barrier(t);
		d8_fused(cond, b, x, K, nb * t->id / t->n, nb * (t->id + 1) / t->n, b + x->P + (x->P / t->n & ~(int64_t)63) * t->id,
		         &R);
	} else if (K < x->D) {
		const int64_t nb = x->P / blk;
		if (K)
			lbt_team_barrier(t);
		for (int64_t q = nb * t->id / t->n; q < nb * (t->id + 1) / t->n; q++)
			for (int k = K; k < x->D; k++) {
				const int64_t per = x->units[k] / nb;
				d8_pass(cond, b, x, k, 0, q * per, (q + 1) * per, &R);
			}
	}
	int8_t mx[D8] __attribute__((aligned(LBT_ALIGN))), mn[D8] __attribute__((aligned(LBT_ALIGN)));
	int64_t q[8] __attribute__((aligned(LBT_ALIGN)));
	VSTORE(mx, R.mx);
	VSTORE(mn, R.mn);
	VSTORE(q, simde_mm256_add_epi64(R.mv, simde_mm256_sad_epu8(R.cnt, VSET1(0))));
	VSTORE(q + 4, R.sum);
	*out = (dpart){.moved = q[0] + q[1] + q[2] + q[3], .total = q[4] + q[5] + q[6] + q[7], .max = INT8_MIN, .min = INT8_MAX};
	for (int i = 0; i < D8; i++) {
		out->max = mx[i] > out->max ? mx[i] : out->max;
		out->min = mn[i] < out->min ? mn[i] : out->min;
	}
}

/* A call in the byte copy (djob's): the grid, the copy b and its shape x,
 * the call's steps and stop, the steps' counts; per thread its share
 * (th: its range's piles and largest load in the lanes, then the others'
 * largest load read again); the piles (B), whether the copy took the
 * grid, the steps done, and whether they ended for a load beyond the
 * bytes. */
typedef struct {
	const lbt_view *v;
	const dshape *x;
	int n;
	const lbt_steps_stop *stop;
	int8_t *b;
	lbt_counts *c;
	dthread *th;
	dbig B;
	int ok, go, done, left;
} d8job;

/* Thread t's share (dense_run_impl's): pack its range; if every range
 * fits (the piles one valid set), the steps until n are done, a step meets
 * the stop or leaves a load beyond the bytes (above the limit; with piles,
 * another load above D8LO(D) or a pile below D8HI); its range widened
 * back. With piles, after each step every thread reads the piles' loads
 * and (where the bound has passed D8LO) its range's largest other load,
 * then thread 0 puts the stand-ins back, a barrier before and after it. */
static ALWAYS_INLINE void d8_run_impl(const int cond, d8job *j, const lbt_team *t)
{
	const dshape *x = j->x;
	const int64_t nv = x->P / D8, i0 = nv * t->id / t->n * D8, i1 = nv * (t->id + 1) / t->n * D8;
	int K;
	int64_t blk;
	dense_blocks(x, t->n, &K, &blk);
	for (int k = K; k < x->D; k++) /* a block of whole units on every axis from K (every thread the same) */
		if (x->units[k] % (x->P / blk))
			return;
	dthread *me = &j->th[t->id];
	me->ok = d8_pack(j->v, x, j->b, i0, i1, &me->B, &me->top);
	lbt_team_barrier(t);
	if (t->id == 0)
		j->ok = dense_piles(x, D8LO(x->D), j->th, t->n, &j->B);
	lbt_team_barrier(t);
	if (!j->ok)
		return; /* every thread the same: the grid untouched */
	dbig *B = &j->B;
	const int piles = B->n > 0, sync = piles && t->n > 1;
	int32_t others = 0; /* with piles: a bound on the other loads */
	for (int q = 0; q < t->n; q++)
		others = others > j->th[q].top ? others : j->th[q].top;
	int s = 0, left = 0;
	while (s < j->n) {
		d8_step_part(cond, j->b, x, K, blk, t, &me->part);
		lbt_team_barrier(t);
		lbt_counts r = {.max = INT32_MIN, .min = INT32_MAX, .shifts = x->D, .has_stats = 1};
		for (int q = 0; q < t->n; q++) {
			const dpart *p = &j->th[q].part;
			r.moved += p->moved;
			r.total += p->total;
			r.max = r.max > p->max ? r.max : p->max;
			r.min = r.min < p->min ? r.min : p->min;
		}
		int low = 0;
		if (piles) { /* the maximum is a pile's (above every other load); their excess in the total */
			r.max = INT32_MIN;
			for (int k = 0; k < B->n; k++) {
				const int64_t l = j->b[B->at[k]] + B->excess[k];
				r.max = r.max > l ? r.max : (int32_t)l;
				low |= l < D8HI;
			}
			r.total += B->total;
			others += x->D;
			if (others > D8LO(x->D))
				me->top = d8_top(j->b, i0, i1, B);
			if (sync)
				lbt_team_barrier(t);
			if (others > D8LO(x->D)) {
				others = 0;
				for (int q = 0; q < t->n; q++)
					others = others > j->th[q].top ? others : j->th[q].top;
			}
			if (t->id == 0)
				for (int k = 0; k < B->n; k++) { /* the stand-ins back, their change into the excess */
					const int64_t d = j->b[B->at[k]] - D8STAND(x->D);
					B->excess[k] += d;
					B->total += d;
					j->b[B->at[k]] = (int8_t)D8STAND(x->D);
				}
		}
		if (t->id == 0)
			j->c[s] = r;
		if (sync)
			lbt_team_barrier(t);
		s++;
		if (stop_met(j->stop, r.max, r.min))
			break;
		if (piles ? low || others > D8LO(x->D) : r.max > x->top) { /* the next step might not fit */
			left = s < j->n;
			break;
		}
	}
	d8_unpack(j->v, x->n, j->b, i0, i1);
	simde_mm_sfence();
	if (t->id == 0) {
		j->go = 1;
		j->done = s;
		j->left = left;
	}
}
#define D8_RUNS(k) \
	static void d8_run_##k(void *j, const lbt_team *t) { d8_run_impl(k, j, t); }
D8_RUNS(0) D8_RUNS(1) D8_RUNS(3) D8_RUNS(5)
static const lbt_team_fn d8_runs[LBT_NCOND] = {d8_run_0, d8_run_1, NULL, d8_run_3, NULL, d8_run_5};

/* Up to n steps of a grid that takes the byte copy (y: d8_shape's), in the
 * copy b (P bytes), on a thread per DTHREAD PEs (at most v->threads): the
 * steps done (each one's counts into c), *left set where they ended for a
 * load beyond the bytes before n; 0 where the loads do not fit (the grid
 * unchanged). */
static int d8_steps(const lbt_view *v, const dshape *y, int cond, int n, const lbt_steps_stop *stop, int8_t *b,
                    lbt_counts *c, int *left)
{
	const int64_t T = dense_team(v, y);
	dthread one, *th = T == 1 ? &one : lbt_alloc_aligned((size_t)T * sizeof *th);
	if (!th)
		return 0;
	d8job j = {.v = v, .x = y, .n = n, .stop = stop, .b = b, .c = c, .th = th};
	lbt_team_run((int)T, d8_runs[cond], &j);
	for (int k = 0; j.go && k < j.B.n; k++) /* the piles' PEs hold their stand-ins */
		*j.B.to[k] = (int32_t)(b[j.B.at[k]] + j.B.excess[k]);
	if (th != &one)
		free(th);
	*left = j.go && j.left;
	return j.go ? j.done : 0;
}

/* Is the copy worth it for calls of `steps` steps? A ring for several
 * (one step a call packs and widens it for nothing). The roll serves worst
 * rows of 4 or 8 PEs (no narrow rows there) and four axes and more; a 3-D
 * grid of long rows takes the copy only for several steps a call and while
 * the copy stays in L1 (DENSE_L1 PEs: 16 KiB). Measured on LM-C5, CPU time,
 * AVX2: 32x32x64 one step a call 82 ms for 400 steps in the copy against 63
 * in the roll, several a call 0.9 of the roll's rate; 16x16x16 several a
 * call 4.6 times the roll's rate, one a call 10 ms against 9; 256^3 (2^24
 * PEs, beyond the caches, one thread) 1.2-1.5e9 site updates per CPU
 * second in the copy against 2.3-3.1e9 in the roll. */
static int dense_worth(const dshape *x, int steps)
{
	return x->n < HW || x->D >= 4 || (steps > 1 && (x->D == 1 || x->P <= DENSE_L1));
}

/* lm_step on a grid that takes the copy: 1 if done, else 0 (the grid
 * unchanged). The copy on the stack: at most 128 KiB. */
static __attribute__((noinline)) int dense_one(const lbt_view *v, int cond, lbt_counts *c)
{
	dshape x;
	if (!dense_shape(v, DENSE_MAX, &x) || !dense_worth(&x, 1))
		return 0;
	int16_t b[DENSE_MAX] __attribute__((aligned(LBT_ALIGN)));
	lbt_counts r;
	if (!dense_steps(v, &x, cond, 1, NULL, b, &r))
		return 0;
	c->moved += r.moved;
	c->shifts += r.shifts;
	c->has_stats = 1;
	c->max = r.max;
	c->min = r.min;
	c->total = r.total;
	return 1;
}

/* lm_steps on a grid that takes the copy, kept for the call (on a team):
 * the byte copy where the condition and the loads allow (for any number
 * of steps a call: a byte step is cheaper than the roll's), else the int16
 * copy where it is worth it. max, the caller's maximum of the loads, may
 * be too low (the packing checks them); where it is too high for the lanes (a pile: stand-ins, or
 * no copy), a copy that failed is tried again only after a wait that
 * doubles (with one thread, 8^6 ran 15-25 % slower when its cache was
 * allocated and the packing tried every call). */
static int dense_many(const lbt_view *v, int cond, int n, int32_t max, const lbt_steps_stop *stop,
                      lbt_lm_cache *cache, lbt_counts *c, lbt_d8row_fn row64, lbt_d16row_fn row16,
                      lbt_d8pass_fn pass64, lbt_d8slice_fn slice64)
{
	dshape x, y;
	if (n < 2 || !cache || !dense_shape(v, DENSE_BIG, &x))
		return 0;
	x.row16 = x.n % 32 ? NULL : row16;
	const int bytes = d8_shape(&x, cond, row64, pass64, slice64, &y) && (max <= y.top || max >= D8HI); /* the lanes, or piles out of them */
	if (!bytes && !dense_worth(&x, n))
		return 0;
	const size_t need = (size_t)x.P * sizeof(int16_t);
	if (cache->size < need) {
		free(cache->mem);
		cache->mem = lbt_alloc_aligned(need);
		cache->size = cache->mem ? need : 0;
	}
	if (!cache->mem)
		return 0;
	int left;
	const int got = bytes ? d8_steps(v, &y, cond, n, stop, cache->mem, c, &left) : 0;
	if (got && left) /* a load beyond the bytes: the rest of the call in the int16 copy (its loads fit) */
		return got + dense_steps(v, &x, cond, n - got, stop, cache->mem, c + got);
	if (got || !dense_worth(&x, n))
		return got;
	const int pile = (int64_t)max > DSTAND((int64_t)(n < DNMAX ? n : DNMAX) * x.D);
	if (pile && cache->wait-- > 0)
		return 0;
	const int done = dense_steps(v, &x, cond, n, stop, cache->mem, c);
	if (pile) { /* a pile that did not take stand-ins: tried again after 1, 2, 4 ... 256 calls */
		cache->backoff = done ? 0 : cache->backoff ? (cache->backoff < 256 ? 2 * cache->backoff : 256) : 1;
		cache->wait = cache->backoff;
	}
	return done;
}

/* dense_many for AVX-512's lm_steps (lm.c, W == 16), whose kernels have
 * no dense copy: a CPU with AVX-512 runs AVX2's, the copies' passes
 * along the rows in AVX-512's vectors (row64, row16), the byte copy's
 * others too (pass64); the same bits. */
int lbt_simd_lm_dense_avx2(const lbt_view *v, int cond, int n, int32_t max, const lbt_steps_stop *stop,
                           lbt_lm_cache *cache, lbt_counts *c, lbt_d8row_fn row64, lbt_d16row_fn row16,
                           lbt_d8pass_fn pass64, lbt_d8slice_fn slice64);
int lbt_simd_lm_dense_avx2(const lbt_view *v, int cond, int n, int32_t max, const lbt_steps_stop *stop,
                           lbt_lm_cache *cache, lbt_counts *c, lbt_d8row_fn row64, lbt_d16row_fn row16,
                           lbt_d8pass_fn pass64, lbt_d8slice_fn slice64)
{
	return dense_many(v, cond, n, max, stop, cache, c, row64, row16, pass64, slice64);
}

#endif

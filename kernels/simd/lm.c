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
 * lanes only. lm_steps keeps a ring of whole 16-lane vectors for several
 * steps in the dense copy of lm_dense.h (bytes, or int16 with its piles
 * out of the lanes), with AVX2 and AVX-512.
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
 * only at global 0 and N-1). A block cut along more axes before the last
 * ("inner" axes) has every halo filled before the step too, axis after
 * axis: the substeps of the axes before an inner one also update the 2
 * slabs below its range and the 1 above (halo, uncounted), so its roll
 * reads there what the ranks holding them have when they reach that
 * substep: one exchange a step, not one a substep (roll_inner). A block
 * whose last axis is cut too (rows shared between ranks) rolls its own
 * columns only: before the roll, the halo's columns next to them (L_{-2},
 * L_{-1}, L_n of every row) are stepped along the outer axes by the
 * reference, and the rows' ends read them (row_ends, ROW_CUT), so no lane
 * outside the block is updated or counted; such a block takes one step an
 * exchange. A cut ring (1-D), or a block whose first active axis is
 * whole, takes the reference. The statistics are the
 * block's; the engine reduces them. With a deep halo (lbt_cut.depth),
 * lm_steps takes several steps after one exchange (cut_steps): each step
 * rolls the block and the part of the halo the later steps read, that
 * part's counters dropped (roll_counted, roll_inner).
 *
 * Files. This one is the step's driver (slabs, planes, threads, lm_step and
 * lm_steps); it includes, once per ISA target, the int32 rows (lm_rows.h)
 * and the narrow rows of its ISA: AVX-512's int16 and byte rows
 * (lm_avx512.h; lm_steps's byte copy, lm_avx512_steps.h) or AVX2's int16
 * rows and rings (lm_avx2.h), its dense int16 and int8 copies of grids
 * of three and more dimensions and of rings (lm_dense.h), its byte steps of a
 * 2-D grid (lm_avx2_steps.h) and its byte rows beside int32 rows
 * (lm_avx2_rows8.h), with what the two share (lm_narrow.h; a cut slab's
 * byte steps, lm_bcut.h). */
#include <stdlib.h>
#include <string.h>

#include "simd.h"
#include "../team.h"

/* The byte copy's pass along the row (lm_dense.h, d8_lanes with s = 1) in
 * 64 byte lanes, for AVX-512's lm_steps, which calls AVX2's dense copy
 * (lm_avx512_steps.h, d8row64): blocks u0 .. u1-1 of e PEs (e a multiple
 * of 64) at b, their counts into out (moved, total, max, min). */
typedef void (*lbt_d8row_fn)(int cond, int8_t *b, int64_t e, int torus, int64_t u0, int64_t u1, int64_t *out);
/* The same for the int16 copy (dense_lanes with s = 1) in 32 int16 lanes,
 * e a multiple of 32 (d16row64). */
typedef void (*lbt_d16row_fn)(int cond, int16_t *b, int64_t e, int torus, int64_t u0, int64_t u1, int64_t *out);
/* The byte copy's other passes (lm_dense.h, d8_pass: columns, lanes 4, 8
 * or 16 bytes across, groups) in 64 byte lanes (lm_avx512_steps.h,
 * d8pass64): units u0 .. u1-1 of axis a as d8_pass counts them (32 PEs
 * each), streamed or not, their counts into out as lbt_d8row_fn's (max
 * and min only where the axis is the row's, s = 1). */
enum { DCOL = 0, DLANE = 1, DGROUP = 2 }; /* an axis's kind: columns, lanes, groups (lm_dense.h) */
typedef struct {
	int64_t e, s;                        /* extent, stride in PEs */
	int torus, kind;
	int8_t next[16], prev[16], edge[16]; /* groups: the byte shuffles to the PE s after and s before, -1 where linked */
} lbt_d8axis;
typedef void (*lbt_d8pass_fn)(int cond, int8_t *b, const lbt_d8axis *a, int streamed, int64_t u0, int64_t u1,
                              int64_t *out);
/* The byte copy's folded axis (lm_dense.h, d8_fused) in 64 byte lanes
 * (lm_avx512_steps.h, d8slice64): slice i of a tile of m units of 32 PEs
 * side by side at p, a column of e slices s PEs apart; slice 0 opens the
 * tile (each vector's C_i into cp, m 64-bit masks at most, the old first
 * slice into fv, 32 m bytes), the later ones read and update them; the
 * slice's moved count added to *moved. */
typedef void (*lbt_d8slice_fn)(int cond, int8_t *p, int64_t e, int64_t s, int torus, int64_t m, int64_t i, uint64_t *cp,
                               int8_t *fv, int64_t *moved);

/* Has a step with these extremes met the stop of an lm_steps call (NULL: none)? */
static inline int stop_met(const lbt_steps_stop *st, int32_t max, int32_t min)
{
	return st && ((int64_t)max - min <= st->ldiff || (st->shared && min > 0) || (max == st->max && min == st->min));
}

#include "lm_rows.h"
#if W == 16
#include "lm_avx512.h"
#elif W == 8
#include "lm_avx2.h"
#include "lm_dense.h"
#endif

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
	int64_t b0, b1;     /* the slabs of the first active axis that count (the block; the rest is halo) */
	/* A cut view's cut axes after the first (a block's, "inner"): their
	 * old slabs beyond the range are in place (the halo's); the range
	 * reaches 2 slabs below the roll's and 1 above (e0, e1), which only the
	 * substeps of the axes before take, so that the roll reads them as a
	 * process holding them would; c0 .. c1 - 1: the slabs that count. */
	unsigned char inner[8];
	int64_t e0[8], e1[8], c0[8], c1[8];
	int inners;         /* some axis is inner: rows outside the block count nothing */
	int rmode;          /* how rows end (ROW_*, lm_rows.h): a mesh, a torus, or cut between ranks */
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
	int32_t *keep[8][4]; /* an inner axis's old slabs before the block's part and after it (roll_inner) */
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
 * chunks (hrow_impl makes the others in registers) and a cut row (torus:
 * ROW_*). */
static void row_halo(int32_t *B, const int32_t *row, int64_t n, int torus)
{
	if (torus >= ROW_CUT) { /* a cut row: its neighbours, which row_ends left around it */
		B[-2] = row[-2];
		B[-1] = row[-1];
		B[n] = row[n];
	} else if (torus && n % W) {
		B[-1] = B[n - 1];
		B[-2] = B[n >= 2 ? n - 2 : 0];
		B[n] = B[0];
		B[n + 1] = B[n >= 2 ? 1 : 0];
	}
}

static void roll(const kctx *k, kthread *t, int a, int32_t *base, int64_t q0, int64_t q1, int direct);
static void roll_inner(const kctx *k, kthread *t, int a, int32_t *base);
static acc acc_empty(void);
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
		(have_cp ? k->frow_cp : k->frow)(z2, z1, p0, zp, save, n, has_next, k->rmode, t->cpb, &t->A);
		return;
	}
	if (nb == last && a + 1 == last) { /* the slab is one row: through B, then along the row */
		k->vrow(z2, z1, p0, zp, save, t->B, n, has_next, &t->A);
		row_halo(t->B, p0, n, k->rmode);
		k->hrow(t->B, p0, n, k->rmode, &t->A);
		return;
	}
	/* A plane of whole-chunk rows beyond the first level's cache:
	 * rolled along nb like a 2-D grid (plane_impl), with the axis-a update
	 * of each row run just ahead while it is in L1. A smaller plane takes
	 * the update along a first, all rows in one call, then the same roll
	 * (below). */
	enum { PLANE_AHEAD = 8192 }; /* cells */
	if (nb == last - 1 && a + 1 == nb && n % W == 0 && n / W <= SEG && v->ext[nb] * v->stride[nb] > PLANE_AHEAD &&
	    !k->inners) {
		const ahead x = {m2, m1, p1, p0, save, v->stride[nb], has_next};
		plane(k, t, nb, p0, 0, v->ext[nb], 1, &x);
		return;
	}
	if (nb != last && n / W < SEG && !k->inners) /* the slab's rows along a, in one call */
		(nb < 0 ? k->vslab_stats : k->vslab)(k, a, m2, m1, p0, p1, save, has_next, &t->A);
	else { /* a row at a time: through B, or rows too long for one segment, or rows of inner axes */
		vrow_fn f = nb < 0 ? k->vrow_stats : k->vrow;
		int64_t c[8] = {0};
		for (;;) {
			int64_t o = 0;
			int in = 1; /* a row of the block on the inner axes: counted */
			for (int d = a + 1; d < last; d++) {
				o += c[d] * v->stride[d];
				in &= !k->inner[d] || (c[d] >= k->c0[d] && c[d] < k->c1[d]);
			}
			acc none = acc_empty(), *A = in ? &t->A : &none;
			const int32_t *r2 = m2 ? m2 + o : k->zrow, *r1 = m1 ? m1 + o : k->zrow, *rp = p1 ? p1 + o : k->zrow;
			if (nb == last) { /* inner axes of extent 1 between a and the row */
				k->vrow(r2, r1, p0 + o, rp, save + o, t->B, n, has_next, A);
				row_halo(t->B, p0 + o, n, k->rmode);
				k->hrow(t->B, p0 + o, n, k->rmode, A);
			} else
				f(r2, r1, p0 + o, rp, save + o, p0 + o, n, has_next, A);
			int d = last - 1;
			while (d > a && ++c[d] == v->ext[d])
				c[d--] = 0;
			if (d == a)
				break;
		}
	}
	if (nb >= 0 && nb != last && k->inner[nb]) /* the inner axis, in this slab: a cut one */
		roll_inner(k, t, nb, p0);
	else if (nb >= 0 && nb != last) { /* from its start */
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
		     : !exists(k, a, x) ? NULL : base + (k->inner[a] ? x : wrap(x, n)) * s;
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
	const int row_torus = k->rmode;
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
	/* byte rows take no cut row's neighbours */
	const int buf = len <= NARROW_BUF && !x, bytes = narrow && len % BW == 0 && len <= BMAX_N && row_torus < ROW_CUT;
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
		lrow r = {.m2 = m1, .m1 = m1, .p0 = base + q * s, .p1 = p1, .save = t->ring[a][q & 1], .n = len,
		          .has_next = has_next, .torus = row_torus, .cpb = t->cpb};
#if W == 16
		r.gtb = t->gtb;
		r.pl = t->pk[q & 1]; /* used where buf */
		r.pd = t->pk[(q + 1) & 1];
		const int was = cls;
		if (cls == 2) {
			const int next8 = !buf ? brow_grid(cond, &r, &B) : own8 ? brow_kept(cond, &r, &B) : brow_grid_keep(cond, &r, &B);
			own8 = next8 && buf;
			cls = next8 ? 2 : row_class(p1, buf ? t->pk[(q + 1) & 1] : NULL, len, 0);
		} else if (cls == 1) {
			cls = buf ? frow16_body(cond, 1, &r, bytes, &H, &R) : frow16_body(cond, 0, &r, bytes, &H, &R);
			own8 = 0;
		} else {
			frow_body(cond, 1, &r, &R);
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
		r.gtb = t->gtb;
		const int was = cls;
		if (cls)
			cls = frow16_body(cond, &r, &H, &R);
		else {
			frow_body(cond, 1, &r, &R);
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
		frow_body(cond, 1, &r, &R);
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

/* The roll along an inner axis a of a slab (origin base): over e0 .. e1-1,
 * the old slabs around it in place (the substeps of the axes before have
 * updated them: the halo, or the range's reach); the slabs before the
 * block's and after them with their counters dropped, as roll_counted
 * does on the first axis, each part after the first from the two old
 * slabs before it, copied before anyone writes. */
static void roll_inner(const kctx *k, kthread *t, int a, int32_t *base)
{
	const int64_t s = k->v->stride[a];
	const int64_t at[4] = {k->e0[a], k->c0[a], k->c1[a], k->e1[a]};
	int32_t *const next = t->next[a], *const ring0 = t->ring[a][0], *const ring1 = t->ring[a][1];
	for (int j = 1; j < 3; j++)
		for (int h = 0; h < 2; h++) {
			const int64_t q = at[j] - 2 + h;
			if (at[j] > at[0] && at[j] < at[3] && exists(k, a, q))
				copy_slab(k, a, t->keep[a][2 * j - 2 + h], base + q * s);
		}
	for (int j = 0; j < 3; j++) {
		const int64_t q0 = at[j], q1 = at[j + 1];
		if (q0 == q1)
			continue;
		if (q0 > at[0]) { /* the old slabs q0-2, q0-1 */
			t->ring[a][(q0 - 2) & 1] = t->keep[a][2 * j - 2];
			t->ring[a][(q0 - 1) & 1] = t->keep[a][2 * j - 1];
		}
		t->next[a] = base + q1 * s; /* old slab q1 in place: nothing has written it yet */
		if (j == 1)
			roll(k, t, a, base, q0, q1, q0 == at[0]);
		else {
			const acc A = t->A, Ax = t->Ax;
			t->A = t->Ax = acc_empty();
			roll(k, t, a, base, q0, q1, q0 == at[0]);
			t->A = A;
			t->Ax = Ax;
		}
	}
	t->next[a] = next;
	t->ring[a][0] = ring0;
	t->ring[a][1] = ring1;
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
	row_halo(t->B, v->load, n, v->torus[k->last]);
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

static acc acc_empty(void)
{
	return (acc){.mx = VSET1(INT32_MIN), .mn = VSET1(INT32_MAX), .s = VSET1(0), .h = VSET1(0), .cnt = VSET1(0)};
}

/* A thread's slabs r0..r1-1 of axis a0 in three parts: before the block
 * (k->b0 .. k->b1-1), the block, after it; at[j] .. at[j+1]-1 is part j. */
static void parts(const kctx *k, int64_t r0, int64_t r1, int64_t at[4])
{
	at[0] = r0;
	at[1] = k->b0 < r0 ? r0 : k->b0 > r1 ? r1 : k->b0;
	at[2] = k->b1 < r0 ? r0 : k->b1 > r1 ? r1 : k->b1;
	at[3] = r1;
}

/* Roll over a thread's slabs r0..r1-1 of axis a0, counting only the
 * block's: a halo stepped ahead for the steps to come (lm_steps on a cut
 * view) is rolled with counters that are dropped. A part after the first
 * finds the two old slabs before it in keep (copied before anyone wrote:
 * a roll over rows saves its old rows in the ring for C2 and C4 only) and
 * the old slab after it in place (nothing has written it yet). */
static void roll_counted(const kctx *k, kthread *t, int a0, int64_t r0, int64_t r1, int direct, int32_t *const keep[4])
{
	const lbt_view *v = k->v;
	const int64_t s = v->stride[a0];
	int64_t at[4];
	parts(k, r0, r1, at);
	int32_t *next = t->next[a0];
	for (int j = 0; j < 3; j++) {
		const int64_t q0 = at[j], q1 = at[j + 1];
		if (q0 == q1)
			continue;
		if (q0 > r0) { /* the old slabs q0-2, q0-1 */
			t->ring[a0][(q0 - 2) & 1] = keep[2 * j - 2];
			t->ring[a0][(q0 - 1) & 1] = keep[2 * j - 1];
		}
		t->next[a0] = q1 < r1 ? v->load + q1 * s : next;
		if (j == 1)
			roll(k, t, a0, v->load, q0, q1, direct && q0 == r0);
		else {
			const acc A = t->A, Ax = t->Ax;
			t->A = t->Ax = acc_empty();
			roll(k, t, a0, v->load, q0, q1, direct && q0 == r0);
			t->A = A;
			t->Ax = Ax;
		}
	}
	t->next[a0] = next;
}

/* Thread id of the team's T: its buffers in mem, its range of slabs of axis a0. */
static void run_thread(const kctx *k, int a0, int32_t *mem, int64_t per, const lbt_team *team, kresult *out)
{
	const int id = team->id, T = team->n;
	const lbt_view *v = k->v;
	const int last = k->last;
	kthread t = {.A = acc_empty(), .Ax = acc_empty()};
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
	int32_t *keep[4] = {NULL, NULL, NULL, NULL}; /* a cut view's: the old slabs before the block's parts (roll_counted) */
	if (v->cut)
		for (int j = 0; j < 4; j++, p += v->stride[a0])
			keep[j] = p + k->back[a0];
	for (int a = a0 + 1; a < last; a++)
		for (int j = 0; k->inner[a] && j < 4; j++, p += v->stride[a])
			t.keep[a][j] = p + k->back[a];
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
		int64_t at[4];
		parts(k, r0, r1, at);
		for (int j = 1; cut && j < 3; j++)
			for (int h = 0; h < 2; h++) {
				const int64_t q = at[j] - 2 + h;
				if (at[j] > r0 && at[j] < r1 && exists(k, a0, q))
					copy_slab(k, a0, keep[2 * j - 2 + h], OLD_SLAB(q));
			}
#undef OLD_SLAB
		lbt_team_barrier(team);
		roll_counted(k, &t, a0, r0, r1, T == 1 && !cut, keep);
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

/* How the rows of v end (ROW_*, lm_rows.h). */
static int row_mode(const lbt_view *v)
{
	const int last = v->dims - 1;
	if (!lbt_cut_on(v, last))
		return v->torus[last] ? ROW_TORUS : ROW_MESH;
	return v->torus[last] || v->origin[last] + v->ext[last] < v->cut->gext[last] ? ROW_CUT : ROW_CUT_END;
}

/* A block whose rows are cut between ranks (its last axis cut, every halo
 * filled): the neighbours of its rows' ends, L_{-2}, L_{-1} and L_n, after
 * this step's substeps of the outer axes, into their halo cells, where the
 * row kernels read them (ROW_CUT); zeros before a mesh's first PE. Each of
 * the three columns is copied over the block's rows and, on every cut
 * outer axis, the 2 layers below them and the 1 above (clipped at a
 * mesh's ends), stepped by the reference along the outer axes one after
 * the other, its copy's ends a mesh's or the halo's (open on a mesh, a
 * ring on a torus: their errors stay in those 3 layers, as in
 * cut_round), and written back at the
 * block's rows. A (D-1)-dimensional face: little work beside the block's.
 * Returns 0 if out of memory. */
static int row_ends(const lbt_view *v, int cond)
{
	const int last = v->dims - 1;
	const lbt_cut *cut = v->cut;
	lbt_view e = {.dims = last, .threads = 1}; /* a column's copy, with a halo of its own */
	int64_t x0[8] = {0}, cells = 1, o = 0;
	for (int d = last - 1; d >= 0; d--) {
		int64_t lo = 0, hi = v->ext[d];
		if (cut->on[d]) {
			const int64_t g0 = v->origin[d], N = cut->gext[d];
			lo = v->torus[d] || g0 >= 2 ? -2 : -g0;
			hi = v->torus[d] || g0 + hi + 1 <= N ? hi + 1 : N - g0;
		}
		x0[d] = lo;
		e.ext[d] = hi - lo;
		/* a torus axis wraps in the copy too: cut, its copy's ends are the
		 * halo's, which, open, could only receive (past INT32_MAX on loads
		 * near it); closed into a ring of 3 layers more than the block's,
		 * no block PE reads across the seam, and on a ring LM never raises
		 * the maximum */
		e.torus[d] = v->torus[d];
		e.stride[d] = cells;
		o += LBT_HALO * cells;
		cells *= e.ext[d] + 2 * LBT_HALO;
	}
	int32_t *mem = malloc((size_t)cells * sizeof *mem);
	if (!mem)
		return 0;
	e.load = mem + o;
	const int64_t n = v->ext[last], col[3] = {-2, -1, n};
	for (int j = 0; j < 3; j++) {
		/* beyond a mesh's end: no neighbour (zeros; the last PE's link is masked) */
		const int none = !v->torus[last] && (j < 2 ? v->origin[last] == 0 : v->origin[last] + n == cut->gext[last]);
		lbt_counts dropped = {0};
		for (int out = none; out < 2; out++) { /* 0: the copy in, stepped; 1: the block's rows out */
			int64_t c[8] = {0};
			for (;;) {
				int64_t oe = 0, ov = col[j], in = 1;
				for (int d = 0; d < last; d++) {
					oe += c[d] * e.stride[d];
					ov += (c[d] + x0[d]) * v->stride[d];
					in &= c[d] + x0[d] >= 0 && c[d] + x0[d] < v->ext[d];
				}
				if (!out)
					e.load[oe] = v->load[ov];
				else if (in)
					v->load[ov] = none ? 0 : e.load[oe];
				int d = last - 1;
				while (d >= 0 && ++c[d] == e.ext[d])
					c[d--] = 0;
				if (d < 0)
					break;
			}
			for (int d = 0; !out && d < last; d++)
				if (lbt_gext(v, d) >= 2) {
					lbt_halo_fill(&e, d);
					lbt_ref_lm_substep(&e, d, cond, &dropped);
				}
		}
		if (dropped.nomem) {
			free(mem);
			return 0;
		}
	}
	free(mem);
	return 1;
}

/* One step of the range rlo[d] .. rhi[d]-1 of every cut axis d of v (on a
 * cut view it may reach into its halo: steps to come read it there; every
 * other axis whole), counting the block's PEs only. The old slabs around
 * the range are read in place (a cut view's halo, filled before) or,
 * beyond a mesh's end, are none. The range of an inner axis (kctx) is
 * widened by the slabs its roll reads around it. */
static void step_range(const lbt_view *view, int cond, int a0, int active, const int64_t *rlo, const int64_t *rhi,
                       lbt_counts *c)
{
	const int D = view->dims, last = D - 1;
	lbt_view w = *view; /* the range as a view of its own */
	kctx k = {.v = &w, .last = last, .cond = cond, .vrow = vrows[cond], .vrow_stats = vrows_stats[cond], .hrow = hrows[cond],
	          .frow = frows[cond], .frow_cp = frows_cp[cond], .vslab = vslabs[0][cond], .vslab_stats = vslabs[1][cond],
	          .b0 = -rlo[a0], .b1 = view->ext[a0] - rlo[a0]};
	for (int a = 0; a < D; a++) {
		int64_t lo = rlo[a], hi = rhi[a];
		const int cut = view->cut && view->cut->on[a];
		k.inner[a] = cut && a != a0 && a != last; /* a cut last axis: its rows' ends (row_ends) */
		k.inners |= k.inner[a];
		if (k.inner[a]) { /* 2 slabs below the roll's range and 1 above, where they exist */
			const int64_t g0 = view->origin[a], N = lbt_gext(view, a);
			lo -= 2;
			hi += 1;
			if (!view->torus[a]) {
				lo = g0 + lo < 0 ? -g0 : lo;
				hi = g0 + hi > N ? N - g0 : hi;
			}
			k.e0[a] = rlo[a] - lo;
			k.e1[a] = rhi[a] - lo;
			k.c0[a] = -lo;
			k.c1[a] = view->ext[a] - lo;
		}
		w.ext[a] = hi - lo;
		w.load += lo * view->stride[a];
		w.origin[a] += lo;
		k.lo[a] = cut ? w.origin[a] : 0;
		k.N[a] = lbt_gext(view, a);
	}
	const lbt_view *v = &w;
	for (int a = 0; a < D; a++) {
		k.next[a] = -1;
		for (int d = a + 1; d < D; d++)
			if (k.N[d] >= 2) {
				k.next[a] = d;
				break;
			}
		k.back[a] = LBT_ROW_LEAD; /* an inner axis's range starts in its halo, which the slab's copy needs no room before */
		for (int d = a + 1; d < last; d++)
			k.back[a] += k.inner[d] ? 0 : LBT_HALO * v->stride[d];
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
	if (v->cut)
		per += 4 * v->stride[a0]; /* keep (run_thread) */
	for (int a = a0 + 1; a < last; a++)
		per += k.inner[a] ? 4 * v->stride[a] : 0; /* keep (roll_inner) */
	const int64_t zcells = rowcells;
	T = T < LBT_SIMD_MAXT ? T : LBT_SIMD_MAXT;
	const int64_t rescells = round_up(T * (int64_t)sizeof(kresult), LBT_ALIGN) / 4;
	/* A small grid's buffers on the stack: a step of 128x128 takes about
	 * 2 us, and malloc and free of its buffers cost about 3% of that. */
	enum { STACK_CELLS = 4096 };
	int32_t stack[STACK_CELLS] __attribute__((aligned(LBT_ALIGN)));
	const int64_t cells = zcells + T * per + rescells;
	int32_t *mem = cells <= STACK_CELLS ? stack : lbt_alloc_aligned((size_t)cells * sizeof *mem);
	if (!mem) { /* no memory for the buffers: the reference needs only a few KiB, but fills a cut view's halo */
		if (v->cut) /* itself: a second exchange, which the other ranks do not make */
			c->nomem = 1;
		else
			lbt_ref_lm_step(v, cond, c);
		return;
	}
	memset(mem, 0, (size_t)zcells * sizeof *mem);
	k.zrow = mem + LBT_ROW_LEAD;
	k.rmode = row_mode(view);
	if (k.rmode >= ROW_CUT && !row_ends(view, cond)) {
		if (mem != stack)
			free(mem);
		c->nomem = 1;
		return;
	}

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


/* Slab q of axis a0 (its PEs' rows, axes a0+1 .. D-1) to or from a buffer of as many packed rows. */
static void slab_move(const lbt_view *v, int a0, int64_t q, int32_t *buf, int to_grid)
{
	const int last = v->dims - 1;
	const int64_t n = v->ext[last];
	int64_t c[8] = {0};
	for (int32_t *b = buf;; b += n) {
		int32_t *p = v->load + q * v->stride[a0];
		for (int d = a0 + 1; d < last; d++)
			p += c[d] * v->stride[d];
		memcpy(to_grid ? p : b, to_grid ? b : p, (size_t)n * sizeof *p);
		int d = last - 1;
		while (d > a0 && ++c[d] == v->ext[d])
			c[d--] = 0;
		if (d <= a0)
			break;
	}
}

/* One step of a slab (a0 its only cut axis) with the fill of its halo
 * (`layers` deep) overlapped: the fill started, the interior (local slabs
 * 2 .. n-2, which read old slabs 0 .. n-1 only) stepped while the
 * messages travel, the fill finished, then the rim (slabs n-1, then 0 and
 * 1) from the halo and the old slabs 2, n-3, n-2 it reads, saved before
 * the interior wrote them and put back for the rim's step (the interior's
 * new ones kept aside meanwhile). The same PEs, the same old slabs, the
 * same step as one range: the bits of the step unsplit. 0 where it does
 * not apply (a block of more cut axes, a slab thinner than 4, no split
 * fill, no memory): nothing was done. */
static int step_overlap(const lbt_view *v, int cond, int a0, int active, int layers, lbt_counts *c)
{
	const lbt_cut *cut = v->cut;
	const int D = v->dims;
	const int64_t n = v->ext[a0];
	if (!cut->start || !cut->finish || n < 4)
		return 0;
	int64_t slab_pes = 1;
	for (int d = 0; d < D; d++) {
		if (cut->on[d] && d != a0)
			return 0;
		slab_pes *= d == a0 ? 1 : v->ext[d];
	}
	int64_t save[3];
	int ns = 0;
	for (int i = 0; i < 3; i++) { /* the interior's old slabs the rim reads, each once */
		const int64_t q = i == 0 ? 2 : n - 4 + i;
		if (q >= 2 && q <= n - 2 && (ns == 0 || save[ns - 1] != q))
			save[ns++] = q;
	}
	int32_t *keep = malloc((size_t)(2 * ns * slab_pes) * sizeof *keep); /* old slabs, then the interior's new ones */
	if (!keep)
		return 0;
	for (int i = 0; i < ns; i++)
		slab_move(v, a0, save[i], keep + i * slab_pes, 0);
	cut->start(v, cut, a0, layers);
	int64_t rlo[8], rhi[8];
	for (int d = 0; d < D; d++) {
		rlo[d] = 0;
		rhi[d] = v->ext[d];
	}
	lbt_counts part[3] = {{0}}; /* the interior, the rim above, the rim below */
	rlo[a0] = 2;
	rhi[a0] = n - 1;
	step_range(v, cond, a0, active, rlo, rhi, &part[0]);
	cut->finish(v, cut, a0, layers, part[0].nomem ? 0 : (n - 3) * slab_pes);
	for (int i = 0; i < ns; i++) {
		slab_move(v, a0, save[i], keep + (ns + i) * slab_pes, 0);
		slab_move(v, a0, save[i], keep + i * slab_pes, 1);
	}
	rlo[a0] = n - 1; /* first: n - 3 may be slab 1, which the rim below writes */
	rhi[a0] = n;
	step_range(v, cond, a0, active, rlo, rhi, &part[1]);
	rlo[a0] = 0;
	rhi[a0] = 2;
	step_range(v, cond, a0, active, rlo, rhi, &part[2]);
	for (int i = 0; i < ns; i++)
		slab_move(v, a0, save[i], keep + (ns + i) * slab_pes, 1);
	free(keep);
	c->shifts += active;
	c->has_stats = 1;
	c->max = INT32_MIN;
	c->min = INT32_MAX;
	c->total = 0;
	for (int i = 0; i < 3; i++) {
		c->moved += part[i].moved;
		c->total += part[i].total;
		c->max = part[i].max > c->max ? part[i].max : c->max;
		c->min = part[i].min < c->min ? part[i].min : c->min;
		c->nomem |= part[i].nomem;
	}
	return 1;
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
	if (v->cut && (!v->cut->on[a0] || a0 == last)) { /* a block whose first axis is whole, or a cut ring */
		lbt_ref_lm_step(v, cond, c);
		return;
	}
	/* The layout the kernel relies on (lbt_grid's): aligned rows, whole-vector pitch. */
	if ((uintptr_t)v->load % LBT_ALIGN || (D > 1 && v->stride[last - 1] % 16) || v->stride[last] != 1) {
		lbt_ref_lm_step(v, cond, c);
		return;
	}
#if W == 8
	if (active >= 3 && dense_one(v, cond, c)) /* a small grid in one dense int16 copy (lm_dense.h) */
		return;
#endif
	if (v->cut && step_overlap(v, cond, a0, active, LBT_HALO, c)) /* a slab: its fill overlapped */
		return;
	int64_t rlo[8], rhi[8];
	for (int d = 0; d < D; d++) {
		rlo[d] = 0;
		rhi[d] = v->ext[d];
		if (v->cut && v->cut->on[d]) /* the neighbouring ranks' old slabs, into the halo, axis after axis */
			lbt_halo_fill(v, d);
	}
	step_range(v, cond, a0, active, rlo, rhi, c);
}

#if W == 16
#include "lm_avx512_steps.h"
#elif W == 8
#include "lm_avx2_steps.h"
#include "lm_avx2_rows8.h"
#endif

/* Steps on a cut view between two halo exchanges (deep halos): with a
 * halo of 2m layers below the block and m above on every cut axis, filled
 * once, axis after axis, step j = 1..m updates the block and the halo's
 * layers within 2(m-j) below it and m-j above it on each cut axis (clipped
 * at a mesh's ends). Each step's range reads old layers 2 below and 1
 * above it, all inside the last step's range (along an inner axis after
 * the substeps of the axes before, which step_range takes there too), so
 * every layer it writes holds what the rank owning it computes: the
 * block's last step reads the exact layers a one-step exchange would have
 * filled. Counts are the block's. Returns the steps done: m, fewer if a
 * step had no memory (its counts say so). */
static int cut_round(const lbt_view *v, int cond, int a0, int active, int m, lbt_counts *c, void *bytes)
{
	const lbt_cut *cut = v->cut;
	const int D = v->dims, last = D - 1;
	if (m == 1 && !bytes) { /* one step a round: a slab's fill overlapped with its interior */
		c[0] = (lbt_counts){0};
		if (step_overlap(v, cond, a0, active, LBT_HALO, c))
			return 1; /* a step without memory: its counts say so */
	}
#if W == 8 || W == 16
	if (bytes) /* the block's rows the fill sends, from the byte copy */
		bcut_edges(bytes, LBT_HALO * m);
#endif
	for (int d = a0; d < last; d++)
		if (cut->on[d])
			cut->fill(v, cut, d, LBT_HALO * m);
#if W == 8 || W == 16
	if (bytes && bcut_round(bytes, m, c)) /* a 2-D block whose loads fit bytes (lm_bcut.h) */
		return m;
#else
	(void)bytes;
#endif
	for (int j = 1; j <= m; j++) {
		int64_t rlo[8], rhi[8];
		for (int d = 0; d < D; d++) {
			rlo[d] = 0;
			rhi[d] = v->ext[d];
			if (!cut->on[d])
				continue;
			const int64_t N = cut->gext[d], g0 = v->origin[d];
			rlo[d] = -(int64_t)LBT_HALO * (m - j);
			rhi[d] += m - j;
			if (!cut->torus[d]) {
				rlo[d] = g0 + rlo[d] < 0 ? -g0 : rlo[d];
				rhi[d] = g0 + rhi[d] > N ? N - g0 : rhi[d];
			}
		}
		c[j - 1] = (lbt_counts){0};
		step_range(v, cond, a0, active, rlo, rhi, &c[j - 1]);
		if (c[j - 1].nomem)
			return j;
	}
	return m;
}

/* Several steps on a cut view whose blocks the vector kernel steps (the
 * first active axis cut, the last not), in rounds of as many steps as the
 * halo is deep for (cut_round; one a round at depth LBT_HALO): a call's
 * steps then take one reduction of their counters, not one each. Only
 * where no stop can end the call early: a stop decides on extremes over
 * all ranks, which no rank knows here. With AVX2 and AVX-512 a 2-D block
 * whose rows are whole byte vectors keeps its loads in the byte copy for
 * all the call's rounds while they fit (bcut_*, lm_bcut.h). Returns the
 * steps done, 0: none (one step at a time instead). */
static int cut_steps(const lbt_view *v, int cond, int n, const lbt_steps_stop *stop, lbt_lm_cache *cache, lbt_counts *c)
{
	const lbt_cut *cut = v->cut;
	const int D = v->dims, last = D - 1;
	if (!cut || n < 2 || D < 2 || cut->on[last] || (stop && (stop->ldiff >= 0 || stop->shared || stop->max >= stop->min)))
		return 0;
	if ((uintptr_t)v->load % LBT_ALIGN || v->stride[last - 1] % 16 || v->stride[last] != 1)
		return 0;
	int active = 0, a0 = -1;
	for (int d = last; d >= 0; d--)
		if (lbt_gext(v, d) >= 2) {
			active++;
			a0 = d;
		}
	if (a0 < 0 || !cut->on[a0])
		return 0;
	const int k = cut->depth / LBT_HALO;
	void *bytes = NULL; /* the byte copy of a 2-D block, kept for all the call's rounds (AVX2, AVX-512) */
#if W == 8 || W == 16
	bcut b;
	bytes = bcut_open(v, cond, active, cache, &b) ? &b : NULL;
#else
	(void)cache;
#endif
	int done = 0;
	while (done < n) {
		const int m = n - done < k ? n - done : k, got = cut_round(v, cond, a0, active, m, c + done, bytes);
		done += got;
		if (got < m)
			break;
#if W == 8
		if (bytes && b.off) /* the loads left the bytes for the call: the int32 rows, overlapped */
			bytes = NULL;
#endif
	}
#if W == 8 || W == 16
	if (bytes)
		bcut_drop(bytes);
#endif
	return done;
}

#if W == 16
int lbt_simd_lm_dense_avx2(const lbt_view *v, int cond, int n, int32_t max, const lbt_steps_stop *stop,
                           lbt_lm_cache *cache, lbt_counts *c, lbt_d8row_fn row64, lbt_d16row_fn row16,
                           lbt_d8pass_fn pass64, lbt_d8slice_fn slice64); /* lm_dense.h, in the AVX2 kernels */
#endif
int LBT_SIMD_FN(lbt_simd_lm_steps)(const lbt_view *v, int cond, int n, int32_t max, const lbt_steps_stop *stop,
                                   lbt_lm_cache *cache, lbt_counts *c)
{
	int done = cut_steps(v, cond, n, stop, cache, c);
	if (done)
		return done;
#if W == 16
	done = lbt_simd_lm_dense_avx2(v, cond, n, max, stop, cache, c, d8row64, d16row64, d8pass64, d8slice64); /* three axes and more, and rings: AVX2's dense copy, its passes in 512-bit vectors */
	if (!done)
		done = bytes_steps(v, cond, n, max, stop, cache, c);
#elif W == 8
	done = dense_many(v, cond, n, max, stop, cache, c, NULL, NULL, NULL, NULL); /* three axes and more, and rings */
	if (!done)
		done = bytes2_steps(v, cond, n, max, stop, cache, c);
	if (!done)
		done = rows8_steps(v, cond, n, stop, cache, c);
#else
	(void)n;
	(void)max;
	(void)stop;
	(void)cache;
#endif
	if (done)
		return done;
	*c = (lbt_counts){0};
	LBT_SIMD_FN(lbt_simd_lm_step)(v, cond, c);
	return 1;
}

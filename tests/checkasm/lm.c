/* lm.c — the Liquid model's kernels (kernels/simd/lm.c against
 * kernels/ref/lm.c): lm_step and lm_steps, every condition C0..C5. Kernels
 * give a thread at least 64 Ki PEs, so threads are checked on grids of a
 * few hundred thousand PEs, cut into 2 and 3 ranges whose seams fall inside
 * and between vectors. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checkasm.h"
#include "comm/comm.h" /* lbt_comm_slab, the hand-made cuts' buffers */

static void lm(const lbt_kernels *k, const lbt_view *v, const void *cond, lbt_counts *c)
{
	k->lm_step(v, *(const int *)cond, c);
}

/* `steps` steps of reference and kernel from the same grid: loads, moved,
 * shifts and the statistics the kernel returns. */
static void lm_case(int cond, const lbt_shape *s, int kind, int threads, int steps)
{
	char what[16];
	snprintf(what, sizeof what, "lm-c%d", cond);
	const ck_stepper k = {what, lm, &cond, C_MOVED | C_SHIFTS | C_STATS, 131, CK_MESHTOP | CK_NOSCRATCH};
	ck_steps(&k, s, kind, threads, steps);
}

/* Rows of every length around the vector widths (40 steps), and D = 8
 * (extents 1, 2, 3 and 5, torus and mesh mixed). */
static void lm_quick(void)
{
	for (int n = 1; n <= 40; n++)
		for (int b = 0; b < 2; b++) {
			char text[32];
			snprintf(text, sizeof text, "3x%d", n);
			const lbt_shape s = ck_grid(text, b ? "mesh" : "torus");
			lm_case(LBT_C4, &s, L_SMALL, 1, 40);
			lm_case(LBT_C5, &s, L_POINT, 2, 40);
		}
	lbt_shape s = ck_grid("2x1x3x2x1x2x2x5", "torus");
	for (int d = 0; d < 8; d++)
		s.bnd[d] = d % 3 == 1 ? LBT_MESH : LBT_TORUS;
	for (int cond = 0; cond < LBT_NCOND; cond++)
		lm_case(cond, &s, cond % 2 ? L_SMALL : L_RUNS, 1 + cond % 2, 12);
	/* two grids of the dense int16 copy (AVX2, lm_dense.h; lm_full has more) */
	static const char *const dense[][2] = {{"8x8x8x8", "torus"}, {"3x4x2x4", "mesh,torus,torus,mesh"}};
	for (size_t i = 0; i < sizeof dense / sizeof *dense; i++) {
		const lbt_shape d = ck_grid(dense[i][0], dense[i][1]);
		for (int cond = 0; cond < LBT_NCOND; cond++)
			lm_case(cond, &d, cond % 2 ? L_SMALL : cond == 2 ? L_PILES16 : L_EDGE16, 1, 8);
	}
	ck_pair p;
	const lbt_shape big = ck_grid("256x256", "torus");
	ck_pair_open(&p, &big, L_SMALL, 1, 1, CK_NOSCRATCH);
	int cond = LBT_C4;
	lbt_counts c = {0};
	bench_new(lm_step, 200, &p.vv, cond, &c);
	ck_pair_close(&p);
}

static void every_condition_and_load(const lbt_shape *s, int *n, const void *arg)
{
	(void)n, (void)arg;
	for (int cond = 0; cond < LBT_NCOND; cond++)
		for (int kind = 0; kind < NLOADS; kind++)
			lm_case(cond, s, kind, 1, 24);
}

/* Grids of 3-D and up of at most 65536 PEs (lm_steps: 2^24) whose loads fit int16 (AVX2 steps them in one dense int16 copy,
 * lm_dense.h): rows of 4, 8, 16 and 32
 * PEs; every kind of axis there (slices whole vectors apart; 4 or 8 lanes
 * across vectors; blocks of 4 or 8 PEs inside a 128-bit lane), torus and
 * mesh, extents of 2, axes of extent 1 between; 16^4, lm_step's largest
 * copy, and 2x16^4, beyond it (lm_steps takes it with one thread); and
 * grids that do not take it (a row of 12; a block of 40 PEs along an axis
 * 8 PEs apart). Loads at int16's edge (L_EDGE16's 32760 fits one step of
 * D = 4, not two; L_SHORT does not fit), piles beyond it (kept out of the
 * lanes: L_POINT beyond 32767 from 6554 PEs, L_PILE; L_PILES16 at and
 * around the edges of the stand-ins' window, for some calls' n D and not
 * others, with a load beside one near the others' bound; L_TWIN,
 * neighbours: no stand-ins), zeros; 1 and 2 threads (a team takes the
 * copy from 131 072 PEs on: team_steps below). */
static const char *const dense_grids[][2] = {
	{"8x8x8x8", "torus"}, {"4x4x4x4x4x4", "torus,mesh,torus,mesh,torus,mesh"}, {"3x4x2x4", "mesh,torus,torus,mesh"},
	{"5x2x16", "torus,torus,mesh"}, {"2x3x1x32", "torus,mesh,torus,torus"}, {"6x8x8", "mesh,mesh,torus"},
	{"4x1x8x8", "mesh,torus,torus,torus"}, {"2x2x2x2x4", "mesh"}, {"3x5x12", "torus"}, {"3x5x8", "torus,mesh,torus"},
	{"16x16x16x16", "torus,mesh,torus,torus"}, {"2x16x16x16x16", "torus,mesh,torus,torus,mesh"}};
enum { DENSE_GRIDS = sizeof dense_grids / sizeof *dense_grids };
static const int dense_kinds[] = {L_SMALL, L_RUNS,  L_EDGE16,   L_SHORT,   L_POINT,
                                  L_PILE,  L_ZEROS, L_UPTO125, L_PILES16, L_TWIN};

static void dense_full(void)
{
	for (size_t i = 0; i < DENSE_GRIDS; i++) {
		const lbt_shape s = ck_grid(dense_grids[i][0], dense_grids[i][1]);
		const int big = lbt_shape_pes(&s) > 4096;
		for (int cond = 0; cond < LBT_NCOND; cond++)
			for (size_t j = 0; j < sizeof dense_kinds / sizeof *dense_kinds; j += 1 + big)
				lm_case(cond, &s, dense_kinds[j], 1 + (int)(i + j) % 2, big ? 4 : 30);
	}
}

/* Every condition x shape x boundary x load (24 steps); longer runs on
 * loads that cross the int8 and int16 edges (127, 32767, where a kernel
 * with narrow lanes must switch or escape) while they run, and on a single
 * huge pile, every condition, torus and mesh, on grids of a few thousand
 * PEs; rows of 32 to 192 PEs and one of 2560 (AVX-512 keeps the packed row
 * for the next one only up to 2048); 300 rows of 64 (more than a byte count
 * holds: AVX-512's byte rows empty their counts every 127 rows of 64);
 * planes of such rows in 3-D and 4-D, two and three rows deep too, and
 * 4-D grids of short rows (13 PEs: a partial vector; 8); rings of
 * one to three vectors of int16 or int8 lanes, and of 16384 and 16448 PEs
 * (AVX-512's byte rings empty their counts every 64 byte vectors, and a
 * byte count holds 255); rings of 48 and 80 PEs, whose loads AVX2's class
 * pass reads after its blocks of 64 (L_TAIL puts the one load too big
 * there; on the ring of 16384, in the last vector of a block, L_TAIL8
 * too). Then several threads, which must change no bit. */
static void lm_full(void)
{
	ck_each_shape(every_condition_and_load, NULL);
	static const char *const grids[][2] = {{"64x64", "torus"}, {"33x70", "mesh,torus"}, {"9x10x11", "torus,mesh,torus"},
	                                       {"3000", "torus"}, {"40x64", "mesh,torus"}, {"20x32", "torus,mesh"},
	                                       {"9x192", "torus"}, {"5x2560", "mesh,torus"}, {"300x64", "torus"},
	                                       {"6x9x64", "torus,mesh,torus"}, {"5x7x128", "mesh,torus,mesh"},
	                                       {"4x2x64", "torus"}, {"3x3x192", "torus,torus,mesh"}, {"3x2x5x96", "torus"},
	                                       {"4x6x7x13", "mesh,torus,torus,mesh"}, {"5x4x3x8", "torus,mesh,torus,torus"},
	                                       {"64", "torus"}, {"96", "mesh"}, {"128", "torus"}, {"16448", "torus"},
	                                       {"16384", "mesh"}, {"48", "torus"}, {"80", "mesh"}};
	for (size_t i = 0; i < sizeof grids / sizeof *grids; i++) {
		const lbt_shape s = ck_grid(grids[i][0], grids[i][1]);
		for (int cond = 0; cond < LBT_NCOND; cond++)
			for (int kind = L_BYTE; kind <= L_PILE; kind++)
				lm_case(cond, &s, kind, 1, 150);
	}
	/* a roll over more rows than a narrow row's int16 count holds: on
	 * 16400 rows of 32 PEs, all 1, LM-C0 moves every element in both
	 * substeps, so a count lane gains 2 a row and must be emptied on the way */
	const lbt_shape roll = ck_grid("16400x32", "torus");
	lm_case(LBT_C0, &roll, L_ONES, 1, 2);
	/* planes of more than 8192 cells (the rows run ahead of the roll) and
	 * 4-D slabs of more rows than one segment of counts holds (16900 rows
	 * of 8: emptied on the way) */
	static const char *const big[][2] = {
		{"3x260x260", "torus,mesh,torus"}, {"2x70001", "torus"}, {"17x8192", "mesh,torus"}, {"5x3x9000", "mesh"},
		{"4x200x256", "torus"}, {"5x160x256", "mesh,torus,mesh"}, {"3x130x130x8", "torus,mesh,torus,torus"},
	};
	for (size_t i = 0; i < sizeof big / sizeof *big; i++) {
		const lbt_shape s = ck_grid(big[i][0], big[i][1]);
		for (int cond = LBT_C3; cond < LBT_NCOND; cond++)
			lm_case(cond, &s, cond == LBT_C4 ? L_SMALL : L_RUNS, 2 + (int)(i + cond) % 2, 3);
	}
	dense_full();
}

CK_CASE(lm_step, lm_quick, lm_full);

/* lm_steps (several steps a call; AVX-512 keeps the rows of a 2-D grid
 * whose loads fit bytes in a byte copy between them, the others in the
 * grid; AVX2 keeps a 2-D grid of conditions C0, C1, C3, C5 whose loads all
 * fit bytes in a byte copy for the call) against as many reference steps: the loads after every call, and
 * every step's counters and statistics. Calls of 1 to 13 steps; max_hint
 * 0 claims a maximum lower than the grid's, which the kernel must not
 * trust (it checks the loads it packs). With use_stop, each call must end
 * after the first step that meets its stop (the extremes the reference has
 * after step 3, and with use_stop 2 also max - min at most 2 + cond, or for
 * odd cond min > 0) and, if it did more than one, only there. */
static int meets(const lbt_steps_stop *st, const lbt_counts *c)
{
	return (int64_t)c->max - c->min <= st->ldiff || (st->shared && c->min > 0) || (c->max == st->max && c->min == st->min);
}

enum { LONGEST = 64 }; /* the engine's longest call (src/exec/run.c, BATCH) */

/* This file's own load (beyond checkasm.c's kinds), for the byte copy's
 * piles (lm_dense.h): on a torus of 3-D and up, a pile of 2^20 at PE
 * 3P/4 + 5 with a cone of loads around it (117, the others' bound at D =
 * 3, up to 3 steps from it, then 6 less a step), a pile of 134 at P/4 + 7
 * (below 128 after a few steps), every other load 0..3. */
enum { L_CONE = NLOADS };
static const char *load_name(int kind)
{
	return kind == L_CONE ? "cone" : ck_load_names[kind];
}
static void cone_fill(ck_pair *p, const lbt_shape *s)
{
	const int64_t P = lbt_shape_pes(s), c = 3 * P / 4 + 5;
	int32_t *d = malloc((size_t)P * sizeof *d);
	cr_assert(d);
	ck_fill(d, P, L_SMALL, (uint64_t)P, 0);
	for (int64_t i = 0; i < P; i++) {
		int64_t dist = 0, a = i, b = c;
		for (int k = s->dims - 1; k >= 0; k--) {
			const int64_t x = a % s->ext[k], y = b % s->ext[k], e = x > y ? x - y : y - x;
			dist += e < s->ext[k] - e ? e : s->ext[k] - e;
			a /= s->ext[k];
			b /= s->ext[k];
		}
		const int64_t cone = dist <= 3 ? 117 : 117 - 6 * (dist - 3);
		d[i] = dist ? (cone > d[i] ? (int32_t)cone : d[i]) : 1 << 20;
	}
	d[P / 4 + 7] = 134;
	lbt_grid_import(&p->ref, d);
	lbt_grid_import(&p->vec, d);
	free(d);
}

/* Returns the calls that did several steps from a grid with a load beyond
 * bytes (above 125). */
static int steps_calls(int cond, const lbt_shape *s, int kind, int threads, int steps, int max_hint, int use_stop,
                        int most)
{
	const uint64_t seed = (uint64_t)lbt_shape_pes(s) * 131 + (uint64_t)kind;
	ck_pair p, q; /* q: the extremes after step 3 (for a stop) */
	ck_pair_open(&p, s, kind == L_CONE ? L_ZEROS : kind, threads, seed, CK_MESHTOP | CK_NOSCRATCH);
	if (kind == L_CONE)
		cone_fill(&p, s);
	lbt_stats st, s3 = {0};
	lbt_grid_stats(&p.vec, &st);
	int32_t max = (int32_t)st.max;
	if (use_stop) {
		ck_pair_open(&q, s, kind == L_CONE ? L_ZEROS : kind, 1, seed, CK_MESHTOP | CK_NOSCRATCH);
		if (kind == L_CONE)
			cone_fill(&q, s);
		for (int i = 0; i < 3; i++) {
			lbt_counts c = {0};
			call_ref(lm_step, &q.vr, cond, &c);
		}
		lbt_grid_stats(&q.ref, &s3);
		ck_pair_close(&q);
	}
	const lbt_steps_stop stop = {use_stop == 2 ? 2 + cond : -1, use_stop == 2 && cond % 2, (int32_t)s3.max, (int32_t)s3.min};
	lbt_lm_cache cache = {0};
	int several = 0;
	for (int t = 0, call = 0; t < steps; call++) {
		lbt_counts cv[LONGEST];
		memset(cv, 0xa5, sizeof cv); /* set whole by the kernel */
		const int want = 1 + (call * 5 + cond) % most < steps - t ? 1 + (call * 5 + cond) % most : steps - t;
		const int got = call_new(lm_steps, &p.vv, cond, want, max_hint ? max : 0, use_stop ? &stop : NULL, &cache, cv);
		cr_assert(got >= 1 && got <= want, "lm-c%d on %s: lm_steps asked for %d did %d", cond, ck_new->isa, want, got);
		for (int i = 0; use_stop && i + 1 < got; i++)
			cr_assert(!meets(&stop, &cv[i]), "lm-c%d on %s: shape %s, load %s: a call went on after step %d of %d, "
			          "which met its stop", cond, ck_new->isa, p.sh, load_name(kind), i + 1, got);
		cr_assert(!use_stop || got == 1 || got == want || meets(&stop, &cv[got - 1]),
		          "lm-c%d on %s: shape %s, load %s: a call of %d steps ended after %d for nothing", cond, ck_new->isa,
		          p.sh, load_name(kind), want, got);
		several += got > 1 && max > 125;
		for (int i = 0; i < got; i++, t++) {
			lbt_counts cr = {0};
			call_ref(lm_step, &p.vr, cond, &cr);
			lbt_grid_stats(&p.ref, &st);
			if (cr.moved != cv[i].moved || cr.shifts != cv[i].shifts || !cv[i].has_stats || st.max != cv[i].max ||
			    st.min != cv[i].min || st.total != cv[i].total)
				cr_assert_fail("lm-c%d lm_steps on %s: shape %s (%s), load %s, %d threads: step %d (%d of a call of "
				               "%d) counts moved %lld shifts %lld max %d min %d total %lld, want %lld %lld %d %d %lld",
				               cond, ck_new->isa, p.sh, p.bd, load_name(kind), threads, t + 1, i + 1, got,
				               (long long)cv[i].moved, (long long)cv[i].shifts, cv[i].max, cv[i].min,
				               (long long)cv[i].total, (long long)cr.moved, (long long)cr.shifts, (int)st.max,
				               (int)st.min, (long long)st.total);
			max = cv[i].max;
		}
		char what[40];
		snprintf(what, sizeof what, kind == L_CONE ? "lm-c%d lm_steps (cone, not zeros)" : "lm-c%d lm_steps", cond);
		ck_same_grids(&p, what, kind == L_CONE ? L_ZEROS : kind, t);
	}
	free(cache.mem);
	ck_pair_close(&p);
	return several;
}

/* Calls of 1 to 13 steps. */
static void steps_case(int cond, const lbt_shape *s, int kind, int threads, int steps, int max_hint, int use_stop)
{
	steps_calls(cond, s, kind, threads, steps, max_hint, use_stop, 13);
}

/* Loads in 0..125 and at and beyond it (told the true maximum, or not:
 * 0..3, and 125 or around 127 with a few too big for bytes), on tori and
 * meshes (where a pile at the end outgrows bytes during a call), with and
 * without stops, rows of 64 to 4096 PEs, 3 to 300 rows (a byte count of a
 * thread holds 255: emptied on the way), grids too small for byte steps (a
 * row of 32, 96 or 4160 PEs, 2 rows, 3-D; on the 9x128 mesh LM-C1 takes a
 * load of 126 that a byte row reached during a call to 128 in the next step,
 * so such a row must leave bytes); grids with a few rows beyond bytes (a
 * pile, the worst case's point, spots) whose rows move between the byte copy
 * and the grid during a call, and grids with too many such rows to take byte
 * steps; and 2 and 3 threads on grids of a few hundred thousand PEs with
 * seams inside the rows' range (L_PILE and L_POINT put the pile in the first
 * row of a thread's range). The quick tier: the first three grids. */
static const char *const steps_grids[][2] = {{"3x64", "torus"}, {"5x64", "mesh"}, {"64x64", "torus"},
                                             {"33x128", "mesh,torus"}, {"40x192", "torus,mesh"}, {"300x64", "torus"},
                                             {"7x4096", "mesh,torus"}, {"9x32", "torus"}, {"6x96", "torus"},
                                             {"3x4160", "torus"}, {"2x64", "torus"}, {"4x3x64", "torus"},
                                             {"9x128", "mesh"}};
enum { STEPS_QUICK = 3, STEPS_GRIDS = sizeof steps_grids / sizeof *steps_grids };

static void steps_on(size_t from, size_t to)
{
	static const int kinds[] = {L_UPTO125, L_SMALL, L_ONES, L_ZEROS, L_BANDS8, L_TAIL8, L_BYTE, L_PILE, L_POINT, L_SPOTS, L_ROWS8};
	for (size_t i = from; i < to; i++) {
		const lbt_shape s = ck_grid(steps_grids[i][0], steps_grids[i][1]);
		for (int cond = 0; cond < LBT_NCOND; cond++)
			for (size_t j = 0; j < sizeof kinds / sizeof *kinds; j++)
				steps_case(cond, &s, kinds[j], 1, 90, !(j == 1 || j == 5), j == 0 || j == 8 ? 1 : j == 2 ? 2 : 0);
	}
}

/* Rings (with AVX2 and AVX-512, lm_steps keeps a ring of whole 16-lane
 * vectors in the dense copy, lm_dense.h: bytes where they fit, int16 lanes
 * if its loads are at most 32767 - n for a call of n steps, piles out of
 * them): tori and meshes, whole vectors or not, one beyond the
 * limit, 1-D and as the last axis of a 3-D shape; loads at int16's edge
 * (L_EDGE16's maximum 32760 takes calls of up to 7 steps, the others not),
 * piles beyond it, zeros. The quick tier: the first two. */
static const char *const ring_grids[][2] = {{"48", "torus"}, {"64", "mesh"}, {"16", "torus"}, {"40", "torus"},
                                            {"4096", "mesh"}, {"1x1x256", "torus"}, {"65536", "torus"},
                                            {"65552", "mesh"}};
enum { RINGS_QUICK = 2, RING_GRIDS = sizeof ring_grids / sizeof *ring_grids };

static void rings_on(size_t from, size_t to)
{
	static const int kinds[] = {L_SMALL, L_EDGE16, L_SHORT, L_TAIL, L_POINT, L_PILE, L_ZEROS, L_WIDE};
	for (size_t i = from; i < to; i++) {
		const lbt_shape s = ck_grid(ring_grids[i][0], ring_grids[i][1]);
		for (int cond = 0; cond < LBT_NCOND; cond++)
			for (size_t j = 0; j < sizeof kinds / sizeof *kinds; j++)
				steps_case(cond, &s, kinds[j], 1, i < 6 ? 60 : 15, j % 2, j % 3);
	}
}

/* Rings in the dense copy (lm_dense.h: a ring of whole 16-lane vectors is
 * one lanes block, AVX2's and AVX-512's lm_steps, on one thread): a mesh
 * ring of 131 088 PEs asked for 2 threads (a team of 2 there read a step's
 * counts after the one thread had rewritten them with the next step's) in
 * int16 (L_WIDE), in int16 with a pile out of the lanes (L_POINT) and in
 * bytes (L_UPTO125: not a whole number of byte vectors, so int16 too);
 * a ring of 2^20 PEs whose block empties its int16 counts inside (65 536
 * vectors: LM-C0 on L_WIDE moves almost every PE, beyond a count lane's
 * -32768 if it did not). */
static void big_rings(void)
{
	static const int kinds[] = {L_UPTO125, L_WIDE, L_POINT};
	const lbt_shape mesh = ck_grid("131088", "mesh"), ring = ck_grid("1048576", "torus");
	for (int cond = 0; cond < LBT_NCOND; cond++)
		steps_calls(cond, &mesh, kinds[cond % 3], 2, 4, cond % 2, 0, 4);
	steps_calls(LBT_C0, &ring, L_WIDE, 1, 3, 1, 0, 3); /* a call of 1 step, then one of 2 */
}

/* Piles out of the byte copy's lanes (lm_dense.h), in calls of up to 64
 * steps: L_POINT on 4x4x8 (the others' bound passes D8LO within a call
 * and is read again; the other loads pass it; the pile falls below 128 and
 * the call goes on in the int16 copy), torus and mesh; the cone on
 * 64x32x64 asked for 2 threads (a team of 2, each with a pile in its
 * range; the others read again every step; told no maximum, 4 steps:
 * LM-C1 a call of 2 in bytes, then one whose first step leaves the small
 * pile below 128; LM-C5 a call of 4 that leaves the bytes after its third
 * step, the small pile below 128). */
static void byte_piles(void)
{
	const lbt_shape small[] = {ck_grid("4x4x8", "torus"), ck_grid("4x4x8", "mesh,torus,torus")},
	                cone = ck_grid("64x32x64", "torus");
	static const int conds[] = {LBT_C0, LBT_C1, LBT_C3, LBT_C5}; /* the byte copy's */
	for (size_t i = 0; i < sizeof conds / sizeof *conds; i++)
		for (int b = 0; b < 2; b++)
			steps_calls(conds[i], &small[b], L_POINT, 1, 200, 1, 0, LONGEST);
	steps_calls(LBT_C1, &cone, L_CONE, 2, 4, 0, 0, LONGEST);
	steps_calls(LBT_C5, &cone, L_CONE, 2, 4, 0, 0, LONGEST);
}

/* lm_steps on the grids of the dense int16 copy: calls of up to 13 steps in
 * the copy, with and without stops, loads that fit the copy for some calls
 * (L_EDGE16: a call of one step at D = 4) and not for others. */
static void dense_steps_on(void)
{
	for (size_t i = 0; i < DENSE_GRIDS; i++) {
		const lbt_shape s = ck_grid(dense_grids[i][0], dense_grids[i][1]);
		const int big = lbt_shape_pes(&s) > 4096;
		for (int cond = 0; cond < LBT_NCOND; cond++)
			for (size_t j = 0; j < sizeof dense_kinds / sizeof *dense_kinds; j += 1 + big)
				steps_case(cond, &s, dense_kinds[j], 1 + (int)j % 2, big ? 6 : 40, (int)(i + j) % 2, (int)(j + cond) % 3);
	}
}

/* lm_steps on grids the dense copy steps on a team (a thread per 65536
 * PEs), 2 and 3 threads whose ranges of units, blocks and vectors are
 * unequal (odd counts in every substep): rows of 4 (lanes 4 apart, groups)
 * and 8, 131 376 and 131 600 PEs; 7x9x101x48, above the one-thread copy's
 * old limit of 262 144, stepped in blocks of 4848 PEs after two passes over
 * the copy (43 632 after one with one thread); piles in different threads'
 * ranges (L_PILES16: on two threads the second finds 16420 in its lanes
 * before its pile and the call takes the roll), the worst case's point. */
static const char *const team_grids[][2] = {{"7x5x940x4", "torus,mesh,torus,mesh"},
                                            {"3x7x782x8", "mesh,torus,torus,torus"},
                                            {"7x9x101x48", "torus,mesh,torus,torus"}};

/* The streamed axes' columns go slice by slice over tiles of up to 256
 * columns of a block (lm_dense.h, dense_tiles), at most 16384 / e of them:
 * an axis of 300 on a mesh whose blocks of 55 vectors take a tile of 54
 * and one of 1; a torus of extent 2 (the last slice's C_i from the first)
 * with blocks of 4125 vectors (a partial last tile). The last streamed
 * axis goes with the blocks where its slices are at most 4096 PEs
 * (dense_fused): 33x16^3 with one thread (the whole copy one block of
 * axis 0; tiles with more), 3x34x16^3 (blocks of axis 0, two ranges
 * unequal on 2 threads). 1 to 3 threads, whose ranges cut tiles. */
static const char *const tile_grids[][2] = {{"300x5x11x16", "mesh,torus,mesh,torus"},
                                            {"2x3x11x2000", "torus,mesh,torus,mesh"},
                                            {"33x16x16x16", "torus,mesh,torus,torus"},
                                            {"3x34x16x16x16", "mesh,torus,mesh,torus,torus"}};

static void team_steps(void)
{
	static const int kinds[] = {L_SMALL, L_POINT, L_PILES16, L_EDGE16};
	for (size_t i = 0; i < sizeof team_grids / sizeof *team_grids; i++) {
		const lbt_shape s = ck_grid(team_grids[i][0], team_grids[i][1]);
		for (int cond = 0; cond < LBT_NCOND; cond++)
			for (size_t j = 0; j < sizeof kinds / sizeof *kinds; j++)
				steps_case(cond, &s, kinds[j], 2 + (int)(i + j + cond) % 2, 5, (int)j % 2, (int)(j + cond) % 3);
	}
	for (size_t i = 0; i < sizeof tile_grids / sizeof *tile_grids; i++) {
		const lbt_shape s = ck_grid(tile_grids[i][0], tile_grids[i][1]);
		for (int cond = 0; cond < LBT_NCOND; cond++)
			for (size_t j = 0; j < sizeof kinds / sizeof *kinds; j += 2)
				steps_case(cond, &s, kinds[j + (i + cond) % 2], 1 + (int)(i + j + cond) % 3, 4, (int)j % 4 == 0, (int)(j + cond) % 3);
	}
	/* Calls of up to 16 + cond steps (1 + cond, 6 + cond, 11 + cond, 16 +
	 * cond, then the rest), as the engine makes them on grids of 2^24 PEs
	 * at D >= 3 (2^30 site updates a call): the copy's counts of every step
	 * of a long call, the stand-ins' window for n D up to 84. Folded and
	 * team grids, 1 and 2 threads. */
	static const int longkinds[] = {L_SMALL, L_POINT};
	for (size_t i = 0; i < 2; i++) {
		const lbt_shape s = ck_grid(tile_grids[2][0], tile_grids[2][1]), t = ck_grid(team_grids[0][0], team_grids[0][1]);
		for (int cond = 0; cond < LBT_NCOND; cond++)
			steps_calls(cond, i ? &t : &s, longkinds[(i + cond) % 2], 1 + (int)(i + cond) % 2, 40, cond % 2, cond % 3,
			            LONGEST);
	}
}

/* lm_steps on a cut view: a slab of one rank holding the whole first axis
 * (what LBTORUS_CUT=1 runs), its halo deep enough for K steps between fills
 * (cut_steps; with AVX2 and AVX-512 a 2-D slab of rows of whole byte
 * vectors stays in the byte copy for the call, the halo rows packed after
 * each fill), calls
 * of several steps against as many reference steps on the whole torus:
 * every step's counters and the loads after every call. The fill copies
 * the slab's own rows into its halo (a torus; a mesh's is never read). */
static void slab_fill(const lbt_view *v, const lbt_cut *cut, int axis, int layers)
{
	const int64_t n = v->ext[axis], s = v->stride[axis], cells = v->ext[v->dims - 1];
	if (!cut->torus[axis])
		return;
	for (int64_t h = 1; h <= layers; h++) {
		memcpy(v->load - h * s, v->load + ((n - h) % n + n) % n * s, (size_t)cells * sizeof *v->load);
		memcpy(v->load + (n + h - 1) * s, v->load + (h - 1) % n * s, (size_t)cells * sizeof *v->load);
	}
}

static void cut_case(int cond, const lbt_shape *s, int kind, int threads, int K, int steps)
{
	ck_pair p;
	ck_pair_open(&p, s, kind, 1, (uint64_t)lbt_shape_pes(s) * 7 + (uint64_t)kind, CK_MESHTOP | CK_NOSCRATCH);
	const int64_t n = s->ext[0], len = s->ext[1], P = n * len, depth = (int64_t)LBT_HALO * K,
	              stride = (len + LBT_ROW_LEAD + 15) / 16 * 16;
	lbt_cut cut = {.dims = 2, .on = {1, 0}, .nr = {1, 1}, .gext = {n, len}, .len = {n, len},
	               .torus = {s->bnd[0] == LBT_TORUS, s->bnd[1] == LBT_TORUS}, .ranks = 1, .depth = (int)depth,
	               .fill = slab_fill};
	int32_t *mem = lbt_alloc_aligned((size_t)((n + 2 * depth) * stride) * sizeof *mem), *want = malloc((size_t)P * 4);
	cr_assert(mem && want);
	memset(mem, 0, (size_t)((n + 2 * depth) * stride) * sizeof *mem);
	lbt_view v = {.load = mem + depth * stride, .dims = 2, .ext = {n, len}, .stride = {stride, 1},
	              .torus = {cut.torus[0], cut.torus[1]}, .threads = threads, .cut = &cut};
	lbt_grid_export(&p.ref, want);
	for (int64_t q = 0; q < n; q++)
		memcpy(v.load + q * stride, want + q * len, (size_t)len * sizeof *want);
	lbt_lm_cache cache = {0};
	for (int t = 0, call = 0; t < steps; call++) {
		lbt_counts cv[16];
		memset(cv, 0xa5, sizeof cv);
		const int want_n = 2 + (call * 3 + cond) % 13 < steps - t ? 2 + (call * 3 + cond) % 13 : steps - t;
		const int got = call_new(lm_steps, &v, cond, want_n, 0, NULL, &cache, cv);
		cr_assert(got >= 1 && got <= want_n, "lm-c%d on %s, a cut slab: lm_steps asked for %d did %d", cond,
		          ck_new->isa, want_n, got);
		for (int i = 0; i < got; i++, t++) {
			lbt_counts cr = {0};
			lbt_stats st;
			call_ref(lm_step, &p.vr, cond, &cr);
			lbt_grid_stats(&p.ref, &st);
			if (cr.moved != cv[i].moved || cr.shifts != cv[i].shifts || !cv[i].has_stats || st.max != cv[i].max ||
			    st.min != cv[i].min || st.total != cv[i].total)
				cr_assert_fail("lm-c%d lm_steps on %s, a cut slab (halo of %d steps): shape %s (%s), load %s, %d "
				               "threads: step %d counts moved %lld shifts %lld max %d min %d total %lld, want %lld "
				               "%lld %d %d %lld", cond, ck_new->isa, K, p.sh, p.bd, ck_load_names[kind], threads,
				               t + 1, (long long)cv[i].moved, (long long)cv[i].shifts, cv[i].max, cv[i].min,
				               (long long)cv[i].total, (long long)cr.moved, (long long)cr.shifts, (int)st.max,
				               (int)st.min, (long long)st.total);
		}
		lbt_grid_export(&p.ref, want);
		for (int64_t q = 0; q < n; q++)
			cr_assert(!memcmp(v.load + q * stride, want + q * len, (size_t)len * sizeof *want),
			          "lm-c%d lm_steps on %s, a cut slab (halo of %d steps): shape %s (%s), load %s, %d threads: "
			          "row %lld differs after step %d", cond, ck_new->isa, K, p.sh, p.bd, ck_load_names[kind], threads,
			          (long long)q, t);
	}
	free(cache.mem);
	free(mem);
	free(want);
	ck_pair_close(&p);
}

/* Tori, meshes and mixed, rows of whole byte vectors and not (AVX2: 96
 * and 40 PEs, 3 and 1.25 vectors; AVX-512: 192 and 96, 3 and 1.5), slabs thinner than the halo (3 rows, K = 3),
 * loads in bytes, beyond them (a pile: the slab stays out of the byte copy
 * or leaves it mid-call as the pile spreads into rows it holds), halos of
 * 1, 2 and 3 steps; the full tier adds 2 threads on 512x256. */
static void cut_on(int full)
{
	static const char *const grids[][2] = {{"64x64", "torus"}, {"33x128", "mesh,torus"}, {"20x96", "torus,mesh"},
	                                       {"3x64", "torus"}, {"12x40", "mesh"}, {"9x192", "torus,mesh"}};
	static const int kinds[] = {L_UPTO125, L_SMALL, L_PILE, L_BYTE};
	for (size_t i = 0; i < sizeof grids / sizeof *grids; i++) {
		const lbt_shape s = ck_grid(grids[i][0], grids[i][1]);
		for (int cond = 0; cond < LBT_NCOND; cond++)
			for (size_t j = 0; j < sizeof kinds / sizeof *kinds; j++)
				cut_case(cond, &s, kinds[j], 1, 1 + (int)(i + j + (size_t)cond) % 3, full ? 40 : 20);
	}
	if (full) {
		const lbt_shape s = ck_grid("512x256", "torus");
		for (int cond = 0; cond < LBT_NCOND; cond += 5)
			for (int K = 1; K <= 2; K++)
				cut_case(cond, &s, K == 1 ? L_UPTO125 : L_PILE, 2, K, 12);
	}
}

/* Byte rows beside int32 rows (AVX2: lm_avx2_rows8.h; AVX-512: its byte
 * copy): the worst case's point (worst:5, whose pile keeps one row beyond
 * bytes for the whole run), rows whose loads cross 125 both ways during a
 * call (L_ROWS8, L_SPOTS: rows leave the byte copy and come back), a pile
 * near INT32_MAX; tori, meshes and mixed; rows of 1, 2, 3 and 4 byte
 * vectors and rows that are not whole byte vectors (40, 37 and 16 PEs: the
 * old paths), 3 rows; calls of up to 13 steps and of the engine's 64. The
 * full tier adds 2 threads (2 x 65536 PEs and more: a thread's range
 * starting at the pile's row, and between rows beyond bytes). The calls
 * that did several steps while a load was beyond bytes are counted per
 * condition: with AVX2 every C0, C1, C3, C5 case set takes some, C2 and C4
 * none (one step a call: lm_step); SSE4.1 none. */
static void rows8_on(int full)
{
	static const char *const grids[][2] = {{"128x128", "torus"}, {"37x64", "mesh"}, {"33x96", "torus,mesh"},
	                                       {"3x32", "torus"},     {"20x128", "mesh,torus"}, {"21x40", "torus"},
	                                       {"100x37", "mesh"},     {"9x16", "mesh,torus"}};
	static const int kinds[] = {L_POINT, L_ROWS8, L_SPOTS, L_PILE};
	int several[LBT_NCOND] = {0};
	for (size_t i = 0; i < sizeof grids / sizeof *grids; i++) {
		const lbt_shape s = ck_grid(grids[i][0], grids[i][1]);
		for (int cond = 0; cond < LBT_NCOND; cond++)
			for (size_t j = 0; j < sizeof kinds / sizeof *kinds; j++)
				several[cond] += steps_calls(cond, &s, kinds[j], 1, full ? 150 : 70, (int)(i + j) % 2,
				                             (int)(i + j + (size_t)cond) % 3, (i + j) % 2 ? LONGEST : 13);
	}
	if (full) {
		static const char *const big[][2] = {{"256x512", "torus"}, {"300x512", "mesh,torus"}, {"257x1024", "torus,mesh"}};
		for (size_t i = 0; i < sizeof big / sizeof *big; i++) {
			const lbt_shape s = ck_grid(big[i][0], big[i][1]);
			for (int cond = 0; cond < LBT_NCOND; cond++)
				for (size_t j = 0; j < 2; j++)
					several[cond] += steps_calls(cond, &s, kinds[(i + j) % 4], 2, 40, (int)j, (int)(i + (size_t)cond) % 3,
					                             LONGEST);
		}
	}
	cr_log_info("lm_steps on %s, calls of several steps beyond bytes per condition C0..C5: %d %d %d %d %d %d",
	            ck_new->isa, several[0], several[1], several[2], several[3], several[4], several[5]);
	for (int cond = 0; cond < LBT_NCOND; cond++)
		if (!strcmp(ck_new->isa, "avx2") || !strcmp(ck_new->isa, "sse41"))
			cr_assert(!strcmp(ck_new->isa, "avx2") && cond != LBT_C2 && cond != LBT_C4 ? several[cond] > 0
			                                                                          : several[cond] == 0,
			          "lm-c%d lm_steps on %s: %d calls of several steps beyond bytes", cond, ck_new->isa,
			          several[cond]);
}

/* lm_step and lm_steps on blocks whose rows are cut too (2x2, 3x2, 2x3,
 * 2x2x2, 2x1x2 grids of blocks on one process): every block of the grid
 * stepped by the kernel, its halo filled from the reference's whole torus
 * at the same step (rowcut_fill: what the ranks holding them send, the
 * halos of the cut axes before included), then the reference's step; the
 * blocks' loads must be the torus's, their counters summed (moved, total)
 * and reduced (extremes) the reference's. lm_steps steps such a block one
 * step a call (one exchange a step). */
static const lbt_view *rowcut_whole; /* the reference's torus, at the step the blocks take */
static void rowcut_fill(const lbt_view *v, const lbt_cut *cut, int axis, int layers)
{
	const int D = v->dims;
	int64_t from[8] = {0}, to[8], c[8];
	for (int d = 0; d < D; d++) {
		const int wide = cut->on[d] && d < axis;
		from[d] = wide ? -layers : 0;
		to[d] = v->ext[d] + (wide ? layers : 0);
	}
	for (int h = 0; h < 2 * layers; h++) {
		from[axis] = h < layers ? h - layers : v->ext[axis] + h - layers;
		to[axis] = from[axis] + 1;
		memcpy(c, from, sizeof c);
		for (;;) {
			int64_t off = 0, goff = 0, in = 1;
			for (int d = 0; d < D; d++) {
				int64_t g = v->origin[d] + c[d];
				const int64_t N = cut->gext[d];
				in &= cut->torus[d] || (g >= 0 && g < N);
				g = (g % N + N) % N;
				off += c[d] * v->stride[d];
				goff += g * rowcut_whole->stride[d];
			}
			if (in)
				v->load[off] = rowcut_whole->load[goff];
			int d = D - 1;
			while (d >= 0 && ++c[d] == to[d])
				c[d] = from[d], d--;
			if (d < 0)
				break;
		}
	}
}

/* Every PE of block v against the torus w: 0 if they are the same, else 1 + the PE's index in the block. */
static int64_t rowcut_diff(const lbt_view *v, const lbt_view *w)
{
	int64_t c[8] = {0}, i = 0;
	for (;; i++) {
		int64_t off = 0, goff = 0;
		for (int d = 0; d < v->dims; d++) {
			off += c[d] * v->stride[d];
			goff += (v->origin[d] + c[d]) * w->stride[d];
		}
		if (v->load[off] != w->load[goff])
			return 1 + i;
		int d = v->dims - 1;
		while (d >= 0 && ++c[d] == v->ext[d])
			c[d--] = 0;
		if (d < 0)
			return 0;
	}
}

static void rowcut_case(int cond, const lbt_shape *s, const int *nr, int kind, int threads, int steps)
{
	enum { MAXB = 8 };
	const int D = s->dims;
	ck_pair p;
	ck_pair_open(&p, s, kind, 1, (uint64_t)lbt_shape_pes(s) * 11 + (uint64_t)kind, CK_MESHTOP | CK_NOSCRATCH);
	rowcut_whole = &p.vr;
	int nb = 1;
	unsigned char on[8];
	for (int d = 0; d < D; d++) {
		nb *= nr[d];
		on[d] = nr[d] > 1;
	}
	cr_assert(nb <= MAXB);
	lbt_cut cut[MAXB];
	lbt_view v[MAXB];
	int32_t *mem[MAXB];
	char grid[32] = "";
	for (int d = 0; d < D; d++)
		snprintf(grid + strlen(grid), sizeof grid - strlen(grid), "%s%d", d ? "x" : "", nr[d]);
	for (int b = 0; b < nb; b++) { /* block b of the grid, laid out as lbt_grid lays out a rank's */
		int64_t lo[8], len[8], cells = 1, origin = LBT_ROW_LEAD;
		for (int d = D - 1, r = b; d >= 0; d--) {
			lbt_comm_slab(s->ext[d], nr[d], r % nr[d], &lo[d], &len[d]);
			r /= nr[d];
		}
		th_cut_block(&cut[b], s, lo, len, on, rowcut_fill);
		v[b] = (lbt_view){.dims = D, .threads = threads, .cut = &cut[b]};
		for (int d = D - 1; d >= 0; d--) {
			v[b].ext[d] = len[d];
			v[b].origin[d] = lo[d];
			v[b].torus[d] = s->bnd[d] == LBT_TORUS;
			v[b].stride[d] = d == D - 1 ? 1 : s->ext[d] >= 2 ? cells : 0;
			const int64_t span = d == D - 1 ? (LBT_ROW_LEAD + len[d] + LBT_HALO + 15) / 16 * 16
			                   : s->ext[d] >= 2 ? len[d] + 2 * LBT_HALO : 1;
			origin += d < D - 1 ? LBT_HALO * v[b].stride[d] : 0;
			cells *= span;
		}
		mem[b] = lbt_alloc_aligned((size_t)cells * sizeof *mem[b]);
		cr_assert(mem[b]);
		memset(mem[b], 0, (size_t)cells * sizeof *mem[b]);
		v[b].load = mem[b] + origin;
		for (int64_t c[8] = {0};;) { /* the block's loads from the torus */
			int64_t off = 0, goff = 0;
			for (int d = 0; d < D; d++) {
				off += c[d] * v[b].stride[d];
				goff += (lo[d] + c[d]) * p.vr.stride[d];
			}
			v[b].load[off] = p.vr.load[goff];
			int d = D - 1;
			while (d >= 0 && ++c[d] == len[d])
				c[d--] = 0;
			if (d < 0)
				break;
		}
	}
	lbt_lm_cache cache = {0};
	for (int t = 0; t < steps; t++) {
		lbt_counts sum = {.max = INT32_MIN, .min = INT32_MAX}, cr = {0};
		for (int b = 0; b < nb; b++) {
			lbt_counts cv[4];
			memset(cv, 0, sizeof cv);
			if (t % 2)
				cr_assert_eq(call_new(lm_steps, &v[b], cond, 3, 0, NULL, &cache, cv), 1,
				             "lm-c%d lm_steps on %s, blocks %s with rows cut: more than a step a call", cond,
				             ck_new->isa, grid);
			else
				call_new(lm_step, &v[b], cond, &cv[0]);
			cr_assert(cv[0].has_stats && !cv[0].nomem, "lm-c%d on %s, blocks %s with rows cut: no statistics", cond,
			          ck_new->isa, grid);
			sum.moved += cv[0].moved;
			sum.shifts = cv[0].shifts;
			sum.total += cv[0].total;
			sum.max = cv[0].max > sum.max ? cv[0].max : sum.max;
			sum.min = cv[0].min < sum.min ? cv[0].min : sum.min;
		}
		lbt_stats st;
		call_ref(lm_step, &p.vr, cond, &cr);
		lbt_grid_stats(&p.ref, &st);
		for (int b = 0; b < nb; b++) {
			const int64_t at = rowcut_diff(&v[b], &p.vr);
			if (at)
				cr_assert_fail("lm-c%d on %s, blocks %s with rows cut: shape %s (%s), load %s, %d threads: block %d's "
				               "PE %lld (row-major in the block) differs after step %d", cond, ck_new->isa, grid, p.sh,
				               p.bd, ck_load_names[kind], threads, b, (long long)at - 1, t + 1);
		}
		if (cr.moved != sum.moved || cr.shifts != sum.shifts || st.max != sum.max || st.min != sum.min ||
		    st.total != sum.total)
			cr_assert_fail("lm-c%d on %s, blocks %s with rows cut: shape %s (%s), load %s, %d threads: step %d counts "
			               "moved %lld shifts %lld max %d min %d total %lld, want %lld %lld %d %d %lld", cond,
			               ck_new->isa, grid, p.sh, p.bd, ck_load_names[kind], threads, t + 1, (long long)sum.moved,
			               (long long)sum.shifts, sum.max, sum.min, (long long)sum.total, (long long)cr.moved,
			               (long long)cr.shifts, (int)st.max, (int)st.min, (long long)st.total);
	}
	free(cache.mem);
	for (int b = 0; b < nb; b++) {
		free(mem[b]);
		lbt_cut_close(&cut[b]);
	}
	ck_pair_close(&p);
}

/* Tori, meshes and mixed; rows of whole vectors (the int32 and int16
 * rows, a plane run ahead on 2x1x2) and not, rows narrower than a vector
 * (5 PEs), a block of 1 column (3 ranks on 5); loads of every size. The
 * full tier adds more loads and blocks of 2 threads. */
static void rowcut_on(int full)
{
	static const struct {
		const char *shape, *bnd;
		int nr[3];
	} grids[] = {{"16x64", "torus", {2, 2}},        {"13x37", "torus", {2, 2}},        {"12x64", "mesh", {3, 2}},
	             {"9x48", "torus,mesh", {2, 2}},    {"10x10", "mesh,torus", {2, 2}},  {"8x30", "torus", {2, 3}},
	             {"7x5", "mesh", {2, 3}},           {"6x8x32", "torus", {2, 2, 2}},  {"5x6x40", "mesh,torus,mesh", {2, 2, 2}},
	             {"8x64x256", "torus", {2, 1, 2}}, {"4x3x64", "torus,mesh,torus", {2, 1, 2}}};
	static const int kinds[] = {L_SMALL, L_UPTO125, L_PILE, L_BYTE, L_POINT, L_NEARMAX, L_EDGE16, L_RUNS};
	const int nk = full ? 8 : 3;
	for (size_t i = 0; i < sizeof grids / sizeof *grids; i++) {
		const lbt_shape s = ck_grid(grids[i].shape, grids[i].bnd);
		for (int cond = 0; cond < LBT_NCOND; cond++)
			for (int j = 0; j < nk; j++)
				if (full || (j + cond + (int)i) % 2 == 0)
					rowcut_case(cond, &s, grids[i].nr, kinds[(j + cond + (int)i) % 8], 1, full ? 12 : 6);
	}
	if (full) { /* blocks of 2 threads (a thread per 65536 PEs at least) */
		static const int two[][2] = {{2, 2}, {2, 3}};
		const lbt_shape s = ck_grid("520x1030", "torus,mesh");
		for (int cond = 0; cond < LBT_NCOND; cond += 5)
			for (int g = 0; g < 2; g++)
				rowcut_case(cond, &s, two[g], g ? L_PILE : L_UPTO125, 2, 4);
	}
}

/* lm_steps on grids of 3-D and up whose loads fit bytes (AVX2 steps C0,
 * C1, C3 and C5 there in a dense int8 copy while every load is at most 126
 * minus the grid's mesh axes, lm_dense.h d8_*): rows of 4, 8, 16, 32 and 96
 * PEs, axes of every byte kind (groups of 4, 8 and 16 PEs, lanes 1, 4, 8
 * and 16 bytes across, columns), odd extents, D = 3, 4 and 6, tori,
 * meshes and mixed; loads at the limit and one above it (L_BANDS8's 126
 * on a torus, L_UPTO125's 125 with one mesh axis; L_BANDS8 with one,
 * L_UPTO125 with two, L_BYTE's 127-129 and L_TAIL8's 128 on tori, which
 * the packing saturates to 127), loads that grow beyond it on a mesh during a call
 * (which then goes on in the int16 copy), piles; 1 and 2 threads, the
 * last three grids on a team of 2 (67x3x7x96 with odd extents, 33x16^3
 * with axis 0 folded into the blocks). The quick tier: the first three. */
static const char *const byte_grids[][2] = {{"5x3x64", "torus,mesh,torus"}, {"3x7x4x8", "torus"},
                                            {"2x3x4x4x4x4", "mesh,torus,torus,mesh,torus,torus"},
                                            {"9x5x32", "mesh"}, {"3x2x16x16", "torus,torus,mesh,torus"},
                                            {"4x4x4x4x4x4", "torus"}, {"7x5x96", "mesh,torus,torus"},
                                            {"2x2x2x2x2x32", "torus,mesh,torus,torus,torus,torus"},
                                            {"16x16x16x16", "torus,torus,mesh,torus"}, {"67x3x7x96", "torus,mesh,torus,torus"},
                                            {"33x16x16x16", "mesh,torus,torus,torus"}, {"9x16x16x64", "torus"}};
enum { BYTES_QUICK = 3, BYTE_GRIDS = sizeof byte_grids / sizeof *byte_grids };

static void bytes_on(size_t from, size_t to)
{
	static const int kinds[] = {L_UPTO125, L_BANDS8, L_SMALL, L_BYTE, L_ONES, L_TAIL8, L_ZEROS, L_PILE};
	for (size_t i = from; i < to; i++) {
		const lbt_shape s = ck_grid(byte_grids[i][0], byte_grids[i][1]);
		const int big = lbt_shape_pes(&s) > 65536;
		for (int cond = 0; cond < LBT_NCOND; cond++)
			for (size_t j = 0; j < sizeof kinds / sizeof *kinds; j += 1 + big)
				steps_case(cond, &s, kinds[(j + (size_t)big * (i + (size_t)cond)) % (sizeof kinds / sizeof *kinds)],
				           big ? 2 : 1 + (int)(i + j + (size_t)cond) % 2, big ? 6 : 40, (int)(i + j) % 2,
				           (int)(j + (size_t)cond) % 3);
	}
}

/* Groups and lanes on mesh axes in the byte copy (quick; AVX-512 steps
 * them in 64 byte lanes, d8pass64): 3x4x4x4, rows of 4 PEs (groups of 4,
 * with the statistics) and axis 2 (groups of 16 PEs 4 apart) mesh, axis 1
 * a lanes block of one 64-byte vector, mesh: a block's last PE has no
 * link. */
static void bytes_mesh_groups(void)
{
	static const int kinds[] = {L_SMALL, L_UPTO125, L_PILE};
	const lbt_shape s = ck_grid("3x4x4x4", "torus,mesh,mesh,mesh");
	for (int cond = 0; cond < LBT_NCOND; cond++)
		for (size_t j = 0; j < sizeof kinds / sizeof *kinds; j++)
			steps_case(cond, &s, kinds[j], 1 + (cond + (int)j) % 2, 40, (int)j % 2, 0);
}

/* The byte copy's folded axis (d8_fused; AVX-512 steps its slices in 64
 * byte lanes, d8slice64, and folds slices beyond 4096 PEs too): grids
 * beyond one block (2^17 PEs) whose slices are vectors and a unit alone:
 * 1400x3x32 with one thread (axis 0, mesh, slices of 96 PEs; C0, C3),
 * 2x9x9x15x96 on a team of 2 (axis 1, slices of 12960 PEs, a block a
 * thread; C1, C5). */
static void bytes_fused(void)
{
	static const char *const grids[][2] = {{"1400x3x32", "mesh,torus,torus"},
	                                       {"2x9x9x15x96", "torus,torus,mesh,torus,torus"}};
	static const int conds[] = {LBT_C0, LBT_C3, LBT_C1, LBT_C5};
	for (size_t i = 0; i < 2; i++) {
		const lbt_shape s = ck_grid(grids[i][0], grids[i][1]);
		for (size_t c = 2 * i; c < 2 * i + 2; c++)
			steps_case(conds[c], &s, L_SMALL, 1 + (int)i, 4, (int)c % 2, 0);
	}
}

static void steps_quick(void)
{
	rows8_on(0);
	steps_on(0, STEPS_QUICK);
	rings_on(0, RINGS_QUICK);
	bytes_on(0, BYTES_QUICK);
	bytes_mesh_groups();
	bytes_fused();
	cut_on(0);
	rowcut_on(0);
}

static void steps_full(void)
{
	rows8_on(1);
	steps_on(STEPS_QUICK, STEPS_GRIDS);
	rings_on(RINGS_QUICK, RING_GRIDS);
	big_rings();
	byte_piles();
	dense_steps_on();
	bytes_on(BYTES_QUICK, BYTE_GRIDS);
	team_steps();
	cut_on(1);
	rowcut_on(1);
	/* planes of more than 8192 cells (the rows run ahead of the roll) and
	 * 4-D slabs of more rows than one segment of counts holds (16900 rows
	 * of 8: emptied on the way) */
	static const char *const big[][2] = {{"300x512", "torus"}, {"301x1024", "mesh,torus"}, {"520x512", "torus,mesh"}};
	static const int bigkinds[] = {L_UPTO125, L_PILE, L_POINT, L_SPOTS};
	for (size_t i = 0; i < sizeof big / sizeof *big; i++) {
		const lbt_shape s = ck_grid(big[i][0], big[i][1]);
		for (int cond = 0; cond < LBT_NCOND; cond++)
			for (size_t j = 0; j < sizeof bigkinds / sizeof *bigkinds; j++)
				steps_case(cond, &s, j == 0 && cond % 2 == 0 ? L_SMALL : bigkinds[j], 2 + (int)(i + cond + j) % 2, 20, 1,
				           cond > 2 ? 1 + cond % 2 : 0);
	}
}

CK_CASE(lm_steps, steps_quick, steps_full);

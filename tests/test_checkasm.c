/* test_checkasm.c — every vector kernel equals its scalar reference bit for
 * bit (DESIGN.md, "Kernels: reference beside vector"; after dav1d's checkasm):
 * every ISA target this CPU runs x LM-C0..C5 x awkward shapes x edge loads.
 *
 * Reference and vector kernel step copies of the same grid for many steps;
 * after every step the loads, the counters (moved, shifts) and the
 * statistics the vector kernel returns must agree. A mismatch names the
 * kernel, ISA, shape, boundary, load, thread count, step and the first
 * differing PE by its coordinates. Kernels give a thread at least 64 Ki
 * PEs, so threads are checked on grids of a few hundred thousand PEs, cut
 * into 2 and 3 ranges whose seams fall inside and between vectors. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "helpers.h"
#include "../kernels/internal.h" /* the scalar references */

/* K in {1, 2, 3, 5, 7, 8, 17, 64, 127}; rows shorter and longer than a
 * vector (4, 8 or 16 lanes) and not a multiple of one; D = 1..4, and D = 8
 * with most axes of extent 1, which have no halo (issue 14 item 12; D = 8
 * with every axis linked has its own test: a halo on each makes it big). */
static const char *const shapes[] = {
	"1", "2", "3", "5", "7", "8", "17", "64", "127", "16448", /* 257 AVX-512 byte vectors: a byte count holds 255 */
	"2x2", "3x3", "1x5", "5x1", "2x17", "3x64", "7x8", "8x7", "5x127", "17x3", "64x2", "127x2", "2x16",
	"2x3x5", "3x1x17", "1x1x7", "4x4x4", "5x2x8", "1x7x1", "7x1x1", "3x17x2", "3x2x16", "2x5x64", "4x3x32",
	"2x2x2x2", "3x2x5x17", "2x1x3x9", "1x3x1x33", "2x3x2x16", "1x1x3x1x2x1x1x17", "1x1x1x1x1x1x5x1",
};

enum { L_ZEROS, L_ONES, L_RUNS, L_POINT, L_NEARMAX, L_MAXRUNS, L_SMALL, L_WIDE, L_BYTE, L_BANDS8, L_SHORT, L_BANDS, L_TAIL, L_TAIL8, L_PILE, L_UPTO125, L_SPOTS, L_ROWS8, NLOADS };
static const char *const load_names[NLOADS] = {
	"zeros", "ones", "runs of equal loads", "point (worst:5)", "near INT32_MAX", "runs of 0 and INT32_MAX",
	"random 0..3", "random 0..1000", "around 127 (int8's edge)",
	"bands of 125, 125, 126 (the byte rows' edge, 64 PEs each)", "around 32767 (int16's edge)",
	"bands of 32767, 32767, 32768 (int16's edge, 64 PEs each)",
	"32765 (int16's edge) but one 32768 near the end",
	"125 (int8's edge) but one 128 near the end",
	"one huge pile on random 0..3",
	"random 0..125, one in four 125 (all within AVX-512's byte steps)",
	"random 120..125 but eight spots of 126..140 (a few rows beyond bytes)",
	"random 122..125 but one run of 64 in nine random 124..130 (rows of 64: a few beyond bytes)",
};

static uint64_t rnd(uint64_t *s)
{
	*s += 0x9e3779b97f4a7c15ULL;
	return lbt_mix64(*s);
}

/* Near the int32 limit the method allows: on a torus LM never raises the
 * maximum (a PE receives at most one element per substep, and only from a
 * neighbour while it gives one itself, or while it holds less than the max);
 * on a mesh the last PE of an axis only receives, so there only totals up to
 * INT32_MAX are safe. */
static void fill(int32_t *d, int64_t P, int kind, uint64_t seed, int mesh)
{
	uint64_t s = seed;
	const int32_t top = mesh ? (int32_t)(INT32_MAX / P) : INT32_MAX;
	for (int64_t i = 0; i < P;) {
		int64_t run = kind == L_RUNS || kind == L_MAXRUNS ? 1 + (int64_t)(rnd(&s) % 9) : 1;
		int32_t v = 0;
		switch (kind) {
		case L_ZEROS: v = 0; break;
		case L_ONES: v = 1; break;
		case L_RUNS: v = (int32_t)(rnd(&s) % 5); if (v == 4) v = 1000000; break;
		case L_POINT: v = i == 0 ? (int32_t)(5 * P) : 0; break;
		case L_NEARMAX: v = top - (int32_t)(rnd(&s) % 4 % ((uint64_t)top + 1)); break;
		case L_MAXRUNS: v = rnd(&s) & 1 ? top : 0; break;
		case L_SMALL: v = (int32_t)(rnd(&s) % 4); break;
		case L_WIDE: v = (int32_t)(rnd(&s) % 1001); break;
		/* mostly just below a narrow type's maximum, some at or above it:
		 * loads cross the edge both ways during the run */
		case L_BYTE: v = 124 + (int32_t)(rnd(&s) % 3) + (rnd(&s) % 40 == 0 ? 3 + (int32_t)(rnd(&s) % 3) : 0); break;
		case L_SHORT: v = 32764 + (int32_t)(rnd(&s) % 3) + (rnd(&s) % 40 == 0 ? 3 + (int32_t)(rnd(&s) % 3) : 0); break;
		/* on rows of 64 PEs, a row at 32767 between rows at 32767 and
		 * 32768 receives along the outer axis and gives nothing: 32768 */
		case L_BANDS: v = 32767 + (i / 64 % 3 == 2); break;
		/* the same at the AVX-512 byte rows' edge: old loads 0..125 */
		case L_BANDS8: v = 125 + (i / 64 % 3 == 2); break;
		/* a ring's one load too big for int16 lanes where a class pass
		 * over blocks of vectors reads it last */
		case L_TAIL: v = i == P - 1 - P / 8 ? 32768 : 32765; break;
		case L_TAIL8: v = i == P - 1 - P / 8 ? 128 : 125; break;
		case L_PILE: v = i == P / 2 ? INT32_MAX - 3 * (int32_t)P : (int32_t)(rnd(&s) % 4); break; /* total <= INT32_MAX */
		case L_SPOTS: v = P >= 16 && i % (P / 8) == P / 16 ? 126 + (int32_t)(i % 15) : 120 + (int32_t)(rnd(&s) % 6); break;
		case L_ROWS8: v = i / 64 % 9 == 3 ? 124 + (int32_t)(rnd(&s) % 7) : 122 + (int32_t)(rnd(&s) % 4); break;
		case L_UPTO125: v = rnd(&s) % 4 ? (int32_t)(rnd(&s) % 126) : 125; break;
		}
		for (int64_t j = 0; j < run && i < P; j++)
			d[i++] = v;
	}
}

static void set_view(lbt_view *v, lbt_grid *g, int threads)
{
	memset(v, 0, sizeof *v);
	v->load = g->load;
	v->dims = g->shape.dims;
	for (int d = 0; d < v->dims && d < LBT_MAXD; d++) { /* the bound for GCC 12 (-Wstringop-overflow) */
		v->ext[d] = g->shape.ext[d];
		v->stride[d] = g->stride[d];
		v->torus[d] = g->shape.bnd[d] == LBT_TORUS;
	}
	v->threads = threads;
}

/* The vector kernels' workspace for view v, as a method's open makes it. */
static void add_scratch(lbt_view *v, const lbt_grid *g, lbt_scratch *sc)
{
	cr_assert_eq(lbt_scratch_open(sc, v, g->cells, g->origin), LBT_OK);
	v->scratch = sc;
}

/* The same load in a grid for the reference (one thread) and one for the
 * kernel under test (threads, with its scratch), and the shape as text. */
typedef struct {
	lbt_grid ref, vec;
	lbt_view vr, vv;
	lbt_scratch sc;
	char sh[128], bd[128];
} pair;
static void pair_open(pair *p, const lbt_shape *s, int kind, int threads)
{
	lbt_err e;
	cr_assert_eq(lbt_grid_init(&p->ref, s, &e), LBT_OK, "%s", e.msg);
	cr_assert_eq(lbt_grid_init(&p->vec, s, &e), LBT_OK, "%s", e.msg);
	int64_t P = lbt_shape_pes(s);
	int32_t *dense = malloc((size_t)P * sizeof *dense);
	int mesh = 0;
	for (int d = 0; d < s->dims; d++)
		mesh |= s->bnd[d] == LBT_MESH && s->ext[d] >= 2;
	fill(dense, P, kind, (uint64_t)P * 131 + (uint64_t)kind, mesh);
	lbt_grid_import(&p->ref, dense);
	lbt_grid_import(&p->vec, dense);
	free(dense);
	set_view(&p->vr, &p->ref, 1);
	set_view(&p->vv, &p->vec, threads);
	add_scratch(&p->vv, &p->vec, &p->sc);
	lbt_shape_format(s, p->sh, sizeof p->sh);
	lbt_boundary_format(s, p->bd, sizeof p->bd);
}
static void pair_close(pair *p)
{
	lbt_grid_free(&p->ref);
	lbt_grid_free(&p->vec);
	lbt_scratch_close(&p->sc);
}

/* A shape and its boundary from their texts. */
static lbt_shape grid_of(const char *shape, const char *boundary)
{
	lbt_shape s;
	lbt_err e;
	cr_assert_eq(lbt_shape_parse(&s, shape, &e), LBT_OK, "%s", e.msg);
	cr_assert_eq(lbt_boundary_parse(&s, boundary, &e), LBT_OK, "%s", e.msg);
	return s;
}

/* One case: `steps` steps of reference and vector kernel from the same grid. */
static void check_case(const lbt_kernels *k, int cond, const lbt_shape *s, int kind, int threads, int steps)
{
	pair p;
	pair_open(&p, s, kind, threads);
	for (int t = 1; t <= steps; t++) {
		lbt_counts cr = {0}, cv = {0};
		lbt_ref_lm_step(&p.vr, cond, &cr);
		k->lm_step(&p.vv, cond, &cv);
		int64_t at = lbt_grid_first_diff(&p.ref, &p.vec);
		if (at >= 0) {
			char where[160];
			lbt_shape_coords(s, at, where, sizeof where);
			int64_t c[LBT_MAXD], q = at;
			for (int d = s->dims - 1; d >= 0; d--) {
				c[d] = q % s->ext[d];
				q /= s->ext[d];
			}
			cr_assert_fail("lm-c%d on %s: shape %s (%s), load %s, %d threads: step %d differs first at PE %s: "
			         "reference %d, vector %d", cond, k->isa, p.sh, p.bd, load_names[kind], threads, t, where, p.ref.load[lbt_grid_offset(&p.ref, c)], p.vec.load[lbt_grid_offset(&p.vec, c)]);
		}
		if (cr.moved != cv.moved || cr.shifts != cv.shifts)
			cr_assert_fail("lm-c%d on %s: shape %s (%s), load %s, %d threads: step %d counts moved %lld shifts %lld, "
			         "reference %lld and %lld", cond, k->isa, p.sh, p.bd, load_names[kind], threads, t,
			         (long long)cv.moved, (long long)cv.shifts, (long long)cr.moved, (long long)cr.shifts);
		if (cv.has_stats) {
			lbt_stats st;
			lbt_grid_stats(&p.ref, &st);
			if (st.max != cv.max || st.min != cv.min || st.total != cv.total)
				cr_assert_fail("lm-c%d on %s: shape %s (%s), load %s: step %d statistics max %d min %d total %lld, "
				         "want %d %d %lld", cond, k->isa, p.sh, p.bd, load_names[kind], t, cv.max, cv.min,
				         (long long)cv.total, (int)st.max, (int)st.min, (long long)st.total);
		} else
			cr_assert_eq(lbt_shape_active_dims(s), 0, "lm-c%d on %s: shape %s gave no statistics", cond, k->isa, p.sh);
	}
	pair_close(&p);
}

/* Fill k with the kernels of isa, a vector ISA this CPU runs; 0 (nothing
 * to compare) for the scalar reference itself or an ISA it cannot run. */
static int vector_kernels(const char *isa, lbt_kernels *k)
{
	if (!strcmp(isa, "scalar") || !lbt_isa_supported(isa))
		return 0;
	lbt_err e;
	cr_assert_eq(lbt_kernels_select(k, isa, &e), LBT_OK, "%s", e.msg);
	return 1;
}

/* Fill k with the kernels of isa; skip the test (returning 0) where this CPU
 * cannot run it or the build lacks it. */
static int select_or_skip(const char *isa, lbt_kernels *k)
{
	if (!lbt_isa_supported(isa)) {
		cr_skip_test("this CPU cannot run %s", isa);
		return 0;
	}
	int compiled = 0;
	for (const char *const *t = lbt_isa_compiled(); *t; t++)
		compiled |= !strcmp(*t, isa);
	if (!compiled) {
		cr_skip_test("%s is not compiled in", isa);
		return 0;
	}
	lbt_err e;
	cr_assert_eq(lbt_kernels_select(k, isa, &e), LBT_OK, "%s", e.msg);
	return 1;
}

/* Every condition x shape x boundary (torus, mesh, two mixes) x load on one ISA. */
static void check_isa(const char *isa)
{
	lbt_kernels k;
	lbt_err e;
	if (!select_or_skip(isa, &k))
		return;
	cr_assert_str_eq(k.isa, isa);
	cr_assert_neq((void *)k.lm_step, (void *)lbt_ref_lm_step, "%s did not replace the reference", isa);
	for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++)
		for (int b = 0; b < 4; b++) {
			lbt_shape s;
			cr_assert_eq(lbt_shape_parse(&s, shapes[i], &e), LBT_OK);
			for (int d = 0; d < s.dims; d++) /* torus, mesh, mesh on odd axes, mesh on even axes */
				s.bnd[d] = b == 0 ? LBT_TORUS : b == 1 ? LBT_MESH : (d % 2 == b - 2) ? LBT_MESH : LBT_TORUS;
			if (b >= 2 && s.dims == 1)
				continue;
			for (int cond = 0; cond < LBT_NCOND; cond++)
				for (int kind = 0; kind < NLOADS; kind++)
					check_case(&k, cond, &s, kind, 1, 24);
		}
}

Test(checkasm, lm_sse41_equals_reference) { check_isa("sse41"); }
Test(checkasm, lm_avx2_equals_reference) { check_isa("avx2"); }
Test(checkasm, lm_avx512_equals_reference) { check_isa("avx512"); }

/* Longer runs on rows of every length around the vector widths. */
Test(checkasm, lm_every_row_length_to_40)
{
	for (const char *const *t = lbt_isa_compiled(); *t; t++) {
		lbt_kernels k;
		lbt_err e;
		if (!vector_kernels(*t, &k))
			continue;
		for (int n = 1; n <= 40; n++)
			for (int b = 0; b < 2; b++) {
				lbt_shape s;
				char text[32];
				snprintf(text, sizeof text, "3x%d", n);
				lbt_shape_parse(&s, text, &e);
				s.bnd[0] = s.bnd[1] = b ? LBT_MESH : LBT_TORUS;
				check_case(&k, LBT_C4, &s, L_SMALL, 1, 40);
				check_case(&k, LBT_C5, &s, L_POINT, 2, 40);
			}
	}
}

/* Longer runs on loads that cross the int8 and int16 edges (127, 32767,
 * where a kernel with narrow lanes must switch or escape)
 * while they run, and on a single huge pile, every condition, torus and
 * mesh, on grids of a few thousand PEs; rows of 32 to 192 PEs and one of
 * 2560 (AVX-512 keeps the packed row for the next one only up to 2048);
 * 300 rows of 64 (more than a byte count holds: AVX-512's byte rows empty
 * their counts every 127 rows of 64); planes of such rows in 3-D and 4-D,
 * two and three rows deep too; rings of one to three vectors of int16 or
 * int8 lanes, and of 16384 and 16448 PEs (AVX-512's byte rings empty
 * their counts every 64 byte vectors, and a byte count holds 255); rings
 * of 48 and 80 PEs, whose loads AVX2's class pass reads after its blocks
 * of 64 (L_TAIL puts the one load too big there; on the ring of 16384, in
 * the last vector of a block, L_TAIL8 too). */
Test(checkasm, lm_loads_crossing_narrow_edges)
{
	static const char *const grids[][2] = {{"64x64", "torus"}, {"33x70", "mesh,torus"}, {"9x10x11", "torus,mesh,torus"},
	                                       {"3000", "torus"}, {"40x64", "mesh,torus"}, {"20x32", "torus,mesh"},
	                                       {"9x192", "torus"}, {"5x2560", "mesh,torus"}, {"300x64", "torus"},
	                                       {"6x9x64", "torus,mesh,torus"}, {"5x7x128", "mesh,torus,mesh"},
	                                       {"4x2x64", "torus"}, {"3x3x192", "torus,torus,mesh"}, {"3x2x5x96", "torus"},
	                                       {"64", "torus"}, {"96", "mesh"}, {"128", "torus"}, {"16448", "torus"},
	                                       {"16384", "mesh"}, {"48", "torus"}, {"80", "mesh"}};
	for (const char *const *t = lbt_isa_compiled(); *t; t++) {
		lbt_kernels k;
		lbt_err e;
		if (!vector_kernels(*t, &k))
			continue;
		for (size_t i = 0; i < sizeof grids / sizeof *grids; i++) {
			const lbt_shape s = grid_of(grids[i][0], grids[i][1]);
			for (int cond = 0; cond < LBT_NCOND; cond++)
				for (int kind = L_BYTE; kind <= L_PILE; kind++)
					check_case(&k, cond, &s, kind, 1, 150);
		}
		/* a roll over more rows than a narrow row's int16 count holds: on
		 * 16400 rows of 32 PEs, all 1, LM-C0 moves every element in both
		 * substeps, so a count lane gains 2 a row and must be emptied on
		 * the way */
		lbt_shape s;
		cr_assert_eq(lbt_shape_parse(&s, "16400x32", &e), LBT_OK);
		check_case(&k, LBT_C0, &s, L_ONES, 1, 2);
	}
}

/* Several threads give the same bits as the reference (and so as one thread). */
Test(checkasm, lm_threads_change_no_bit)
{
	static const char *const big[][2] = {
		{"3x260x260", "torus,mesh,torus"}, {"2x70001", "torus"}, {"17x8192", "mesh,torus"}, {"5x3x9000", "mesh"},
		{"4x200x256", "torus"}, {"5x160x256", "mesh,torus,mesh"},
	};
	for (const char *const *t = lbt_isa_compiled(); *t; t++) {
		lbt_kernels k;
		if (!vector_kernels(*t, &k))
			continue;
		for (size_t i = 0; i < sizeof big / sizeof *big; i++) {
			const lbt_shape s = grid_of(big[i][0], big[i][1]);
			for (int cond = LBT_C3; cond < LBT_NCOND; cond++)
				check_case(&k, cond, &s, cond == LBT_C4 ? L_SMALL : L_RUNS, 2 + (int)(i + cond) % 2, 3);
		}
	}
}

/* D = 8, extents 1, 2, 3 and 5, torus and mesh mixed, on every ISA. */
Test(checkasm, lm_eight_dimensions)
{
	for (const char *const *t = lbt_isa_compiled(); *t; t++) {
		lbt_kernels k;
		lbt_err e;
		if (!vector_kernels(*t, &k))
			continue;
		lbt_shape s;
		lbt_shape_parse(&s, "2x1x3x2x1x2x2x5", &e);
		for (int d = 0; d < 8; d++)
			s.bnd[d] = d % 3 == 1 ? LBT_MESH : LBT_TORUS;
		for (int cond = 0; cond < LBT_NCOND; cond++)
			check_case(&k, cond, &s, cond % 2 ? L_SMALL : L_RUNS, 1 + cond % 2, 12);
	}
}

/* lm_steps (several steps a call; AVX-512 keeps the rows of a 2-D grid
 * whose loads fit bytes in a byte copy between them, the others in the
 * grid) against as many reference steps: the loads after every call, and
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
static void check_steps_case(const lbt_kernels *k, int cond, const lbt_shape *s, int kind, int threads, int steps,
                             int max_hint, int use_stop)
{
	pair p;
	pair_open(&p, s, kind, threads);
	lbt_stats st;
	lbt_grid_stats(&p.vec, &st);
	int32_t max = (int32_t)st.max;
	pair q; /* the extremes after step 3 */
	pair_open(&q, s, kind, 1);
	for (int i = 0; i < 3; i++) {
		lbt_counts c = {0};
		lbt_ref_lm_step(&q.vr, cond, &c);
	}
	lbt_stats s3;
	lbt_grid_stats(&q.ref, &s3);
	pair_close(&q);
	const lbt_steps_stop stop = {use_stop == 2 ? 2 + cond : -1, use_stop == 2 && cond % 2, (int32_t)s3.max, (int32_t)s3.min};
	lbt_lm_cache cache = {0};
	for (int t = 0, call = 0; t < steps; call++) {
		lbt_counts cv[13];
		memset(cv, 0xa5, sizeof cv); /* set whole by the kernel */
		const int want = 1 + (call * 5 + cond) % 13 < steps - t ? 1 + (call * 5 + cond) % 13 : steps - t;
		const int got = k->lm_steps(&p.vv, cond, want, max_hint ? max : 0, use_stop ? &stop : NULL, &cache, cv);
		cr_assert(got >= 1 && got <= want, "lm-c%d on %s: lm_steps asked for %d did %d", cond, k->isa, want, got);
		for (int i = 0; use_stop && i + 1 < got; i++)
			cr_assert(!meets(&stop, &cv[i]), "lm-c%d on %s: shape %s, load %s: a call went on after step %d of %d, "
			          "which met its stop", cond, k->isa, p.sh, load_names[kind], i + 1, got);
		cr_assert(!use_stop || got == 1 || got == want || meets(&stop, &cv[got - 1]),
		          "lm-c%d on %s: shape %s, load %s: a call of %d steps ended after %d for nothing", cond, k->isa, p.sh,
		          load_names[kind], want, got);
		for (int i = 0; i < got; i++, t++) {
			lbt_counts cr = {0};
			lbt_ref_lm_step(&p.vr, cond, &cr);
			lbt_grid_stats(&p.ref, &st);
			if (cr.moved != cv[i].moved || cr.shifts != cv[i].shifts || !cv[i].has_stats || st.max != cv[i].max ||
			    st.min != cv[i].min || st.total != cv[i].total)
				cr_assert_fail("lm-c%d lm_steps on %s: shape %s (%s), load %s, %d threads: step %d (%d of a call of "
				               "%d) counts moved %lld shifts %lld max %d min %d total %lld, want %lld %lld %d %d %lld",
				               cond, k->isa, p.sh, p.bd, load_names[kind], threads, t + 1, i + 1, got, (long long)cv[i].moved,
				               (long long)cv[i].shifts, cv[i].max, cv[i].min, (long long)cv[i].total,
				               (long long)cr.moved, (long long)cr.shifts, (int)st.max, (int)st.min, (long long)st.total);
			max = cv[i].max;
		}
		const int64_t at = lbt_grid_first_diff(&p.ref, &p.vec);
		if (at >= 0) {
			char where[160];
			lbt_shape_coords(s, at, where, sizeof where);
			cr_assert_fail("lm-c%d lm_steps on %s: shape %s (%s), load %s, %d threads: after step %d the loads differ "
			               "first at PE %s", cond, k->isa, p.sh, p.bd, load_names[kind], threads, t, where);
		}
	}
	free(cache.mem);
	pair_close(&p);
}

/* Loads in 0..125 and at and beyond it (told the true maximum, or not:
 * 0..3, and 125 or around 127 with a few too big for bytes), on tori and
 * meshes (where a pile at the end outgrows bytes during a call), with and
 * without stops, rows of 64 to 4096 PEs, 3 to 300 rows (a byte count of a thread
 * holds 255: emptied on the way), grids too small for byte steps (a row of
 * 32, 96 or 4160 PEs, 2 rows, 3-D; on the 9x128 mesh LM-C1 takes a load of
 * 126 that a byte row reached during a call to 128 in the next step, so such
 * a row must leave bytes); grids with a few rows beyond bytes (a
 * pile, the worst case's point, spots) whose rows move between the byte
 * copy and the grid during a call, and grids with too many such rows to
 * take byte steps; and 2 and 3 threads on grids of a few hundred thousand
 * PEs with seams inside the rows' range (L_PILE and L_POINT put the pile in
 * the first row of a thread's range). */
Test(checkasm, lm_steps_equal_reference_steps)
{
	static const char *const grids[][2] = {{"3x64", "torus"}, {"5x64", "mesh"}, {"64x64", "torus"},
	                                       {"33x128", "mesh,torus"}, {"40x192", "torus,mesh"}, {"300x64", "torus"},
	                                       {"7x4096", "mesh,torus"}, {"9x32", "torus"}, {"6x96", "torus"},
	                                       {"3x4160", "torus"}, {"2x64", "torus"}, {"4x3x64", "torus"},
	                                       {"9x128", "mesh"}};
	static const int kinds[] = {L_UPTO125, L_SMALL, L_ONES, L_ZEROS, L_BANDS8, L_TAIL8, L_BYTE, L_PILE, L_POINT, L_SPOTS, L_ROWS8};
	for (const char *const *t = lbt_isa_compiled(); *t; t++) {
		lbt_kernels k;
		if (!vector_kernels(*t, &k))
			continue;
		for (size_t i = 0; i < sizeof grids / sizeof *grids; i++) {
			const lbt_shape s = grid_of(grids[i][0], grids[i][1]);
			for (int cond = 0; cond < LBT_NCOND; cond++)
				for (size_t j = 0; j < sizeof kinds / sizeof *kinds; j++)
					check_steps_case(&k, cond, &s, kinds[j], 1, 90, !(j == 1 || j == 5), j == 0 || j == 8 ? 1 : j == 2 ? 2 : 0);
		}
		static const char *const big[][2] = {{"300x512", "torus"}, {"301x1024", "mesh,torus"}, {"520x512", "torus,mesh"}};
		static const int bigkinds[] = {L_UPTO125, L_PILE, L_POINT, L_SPOTS};
		for (size_t i = 0; i < sizeof big / sizeof *big; i++) {
			const lbt_shape s = grid_of(big[i][0], big[i][1]);
			for (int cond = 0; cond < LBT_NCOND; cond++)
				for (size_t j = 0; j < sizeof bigkinds / sizeof *bigkinds; j++)
					check_steps_case(&k, cond, &s, j == 0 && cond % 2 == 0 ? L_SMALL : bigkinds[j], 2 + (int)(i + cond + j) % 2,
					                 20, 1, cond > 2 ? 1 + cond % 2 : 0);
		}
	}
}

static unsigned char *read_file(const char *dir, const char *name, size_t *n)
{
	char path[256];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	return (unsigned char *)th_read(path, n);
}

/* What auto chooses: the best target this CPU runs natively (never avx512emu). */
static const char *best_isa(void)
{
	lbt_kernels k;
	lbt_err e;
	cr_assert_eq(lbt_kernels_select(&k, "auto", &e), LBT_OK, "%s", e.msg);
	return k.isa;
}

/* `lbtorus run` uses the vector kernels by default, --verify checks every
 * step against the reference, and --isa scalar, the best vector ISA and
 * 1 or 2 threads all dump the same bits. */
Test(checkasm, run_verify_and_dumps_agree_across_isa_and_threads)
{
	char dir[64];
	th_tmpdir(dir, sizeof dir);
	char *out, *err;
	const char *isa = best_isa();
	int rc = th_cli(dir, TH_ARGS("run", "--shape", "37x45", "--boundary", "torus,mesh", "--method", "lm-c4",
	                          "--init", "uniform:0:9", "--until", "steps:60", "--verify", "--threads", "2",
	                          "--quiet", "--dump", "v.npy"), &out, &err);
	cr_assert_eq(rc, 0, "run --verify failed: %s", err);
	char want[64];
	snprintf(want, sizeof want, "\"isa\":\"%s\"", isa);
	cr_assert(strstr(out, want), "the default ISA should be %s: %s", isa, out);
	cr_assert(strstr(out, "\"threads\":2"), "%s", out);
	free(out);
	free(err);
	const char *runs[][2] = {{"scalar", "1"}, {isa, "1"}, {isa, "2"}};
	const char *names[] = {"a.npy", "b.npy", "c.npy"};
	for (int i = 0; i < 3; i++)
		cr_assert_eq(th_cli(dir, TH_ARGS("run", "--shape", "24x17x6", "--boundary", "mesh,torus,torus", "--init", "worst:3",
		                              "--until", "steps:50", "--isa", runs[i][0], "--threads", runs[i][1], "--quiet",
		                              "--dump", names[i], "--json", "run.json"), NULL, NULL), 0);
	size_t na, nb, nc;
	unsigned char *a = read_file(dir, "a.npy", &na), *b = read_file(dir, "b.npy", &nb), *c = read_file(dir, "c.npy", &nc);
	cr_assert(na == nb && !memcmp(a, b, na), "--isa scalar and --isa %s dump different grids", isa);
	cr_assert(nb == nc && !memcmp(b, c, nb), "--threads 1 and --threads 2 dump different grids on %s", isa);
	free(a);
	free(b);
	free(c);
	th_rm_tree(dir);
}

/* `run --verify` on runs whose loads cross 127 and 32767 while they run,
 * on rows of 80 PEs (int16 rows with AVX-512) and 128 (byte rows too), in
 * 2-D and 3-D, and on a ring of 4096, for every condition of Henrich's
 * Table 1. */
Test(checkasm, run_verify_across_narrow_edges)
{
	char dir[64];
	th_tmpdir(dir, sizeof dir);
	static const char *const inits[] = {"worst:5", "uniform:100:140", "uniform:32760:32770"};
	static const char *const grids[] = {"48x80", "40x128", "5x8x128", "4096"};
	for (int c = 0; c < LBT_NCOND; c++)
		for (int i = 0; i < 12; i++) {
			char method[8], *err;
			snprintf(method, sizeof method, "lm-c%d", c);
			int rc = th_cli(dir, TH_ARGS("run", "--shape", grids[i / 3], "--init", inits[i % 3], "--method", method,
			                          "--until", "steps:400", "--verify", "--quiet", "--json", "run.json"), NULL, &err);
			cr_assert_eq(rc, 0, "run --shape %s --method %s --verify --init %s failed: %s", grids[i / 3], method,
			             inits[i % 3], err);
			free(err);
		}
	th_rm_tree(dir);
}

/* `lbtorus bench` measures every ISA this CPU runs natively (an emulated
 * one only if named) beside the scalar reference and the copy bandwidth,
 * and writes the same as JSON (timings are not checked). */
Test(checkasm, bench_reports_every_isa_with_its_bound)
{
	char dir[64];
	th_tmpdir(dir, sizeof dir);
	char *out, *err;
	int rc = th_cli(dir, TH_ARGS("bench", "--sizes", "16x16,4x4x4", "--methods", "lm-c5", "--seconds", "0.01",
	                          "--threads", "1", "--no-headline", "--json", "b.json"), &out, &err);
	cr_assert_eq(rc, 0, "bench failed: %s", err);
	for (const char *const *t = lbt_isa_compiled(); *t; t++)
		if (lbt_isa_supported(*t)) {
			char want[64];
			snprintf(want, sizeof want, "\"isa\":\"%s\"", *t);
			size_t n;
			unsigned char *j = read_file(dir, "b.json", &n); /* NUL-terminated */
			cr_assert_eq(!strstr((char *)j, want), lbt_isa_emulated(*t), "%s %s the JSON", *t,
			             lbt_isa_emulated(*t) ? "(emulated) in" : "not in");
			if (lbt_isa_emulated(*t)) {
				free(j);
				continue;
			}
			cr_assert(strstr((char *)j, "\"size\":\"4x4x4\"") && strstr((char *)j, "\"of_bound\":"), "%s", j);
			free(j);
			snprintf(want, sizeof want, "lm-c5  %-7s", *t);
			cr_assert(strstr(out, want), "no table row for %s:\n%s", *t, out);
		}
	free(out);
	free(err);
	th_rm_tree(dir);
}

/* The integer link-flow methods (kernels/simd/flows.c): NNA and integer
 * first-order diffusion with every kind of weight, on every ISA x shape x
 * boundary x load, against kernels/ref/nna.c and kernels/ref/diffusion.c.
 * Loads near the int32 limit stay 1024 below it: NNA's rounding can lift a
 * PE a few elements above the largest initial load. */
enum { F_NNA, F_FOS_INT };

static void check_flows_case(const lbt_kernels *k, int which, const lbt_diffusion *p, const lbt_shape *s, int kind,
                             int threads, int steps)
{
	lbt_err e;
	lbt_grid ref, vec;
	cr_assert_eq(lbt_grid_init(&ref, s, &e), LBT_OK, "%s", e.msg);
	cr_assert_eq(lbt_grid_init(&vec, s, &e), LBT_OK, "%s", e.msg);
	int64_t P = lbt_shape_pes(s);
	int32_t *dense = malloc((size_t)P * sizeof *dense);
	fill(dense, P, kind, (uint64_t)P * 977 + (uint64_t)kind, 0);
	for (int64_t i = 0; i < P; i++)
		dense[i] = dense[i] > INT32_MAX - 1024 ? INT32_MAX - 1024 - (dense[i] & 3) : dense[i];
	lbt_grid_import(&ref, dense);
	lbt_grid_import(&vec, dense);
	free(dense);
	lbt_view vr, vv;
	set_view(&vr, &ref, 1);
	set_view(&vv, &vec, threads);
	lbt_scratch sc;
	add_scratch(&vv, &vec, &sc);
	char sh[128], bd[128], what[64];
	lbt_shape_format(s, sh, sizeof sh);
	lbt_boundary_format(s, bd, sizeof bd);
	if (which == F_NNA)
		snprintf(what, sizeof what, "nna");
	else if (p->by_degree)
		snprintf(what, sizeof what, "fos-int (1/(max deg + %d))", p->k);
	else
		snprintf(what, sizeof what, "fos-int (alpha %.6g)", p->alpha);
	for (int t = 1; t <= steps; t++) {
		lbt_counts cr = {0}, cv = {0};
		if (which == F_NNA) {
			lbt_ref_nna_step(&vr, &cr);
			k->nna_step(&vv, &cv);
		} else {
			lbt_ref_fos_int_step(&vr, p, &cr);
			k->fos_int_step(&vv, p, &cv);
		}
		int64_t at = lbt_grid_first_diff(&ref, &vec);
		if (at >= 0) {
			char where[160];
			lbt_shape_coords(s, at, where, sizeof where);
			cr_assert_fail("%s on %s: shape %s (%s), load %s, %d threads: step %d differs first at PE %s", what, k->isa,
			               sh, bd, load_names[kind], threads, t, where);
		}
		if (cr.moved != cv.moved || cr.shifts != cv.shifts || cr.link_max != cv.link_max)
			cr_assert_fail("%s on %s: shape %s (%s), load %s, %d threads: step %d counts moved %lld shifts %lld "
			               "link_max %g, reference %lld, %lld, %g", what, k->isa, sh, bd, load_names[kind], threads, t,
			               (long long)cv.moved, (long long)cv.shifts, cv.link_max, (long long)cr.moved,
			               (long long)cr.shifts, cr.link_max);
	}
	lbt_grid_free(&ref);
	lbt_grid_free(&vec);
	lbt_scratch_close(&sc);
}

static void check_flows_isa(const char *isa)
{
	lbt_kernels k;
	lbt_err e;
	if (!select_or_skip(isa, &k))
		return;
	cr_assert_neq((void *)k.nna_step, (void *)lbt_ref_nna_step, "%s did not replace the NNA reference", isa);
	cr_assert_neq((void *)k.fos_int_step, (void *)lbt_ref_fos_int_step, "%s did not replace fos-int", isa);
	const lbt_diffusion weights[] = {
		{.alpha = 0.1}, {.alpha = 1.0 / 3}, {.alpha = 0.2071}, {.by_degree = 1, .k = 1}, {.by_degree = 1, .k = 0},
	};
	int n = 0;
	for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++)
		for (int b = 0; b < 4; b++) {
			lbt_shape s;
			cr_assert_eq(lbt_shape_parse(&s, shapes[i], &e), LBT_OK);
			for (int d = 0; d < s.dims; d++)
				s.bnd[d] = b == 0 ? LBT_TORUS : b == 1 ? LBT_MESH : (d % 2 == b - 2) ? LBT_MESH : LBT_TORUS;
			if (b >= 2 && s.dims == 1)
				continue;
			double cap = 1.0 / (lbt_max_degree(&s) ? lbt_max_degree(&s) : 1);
			for (int kind = 0; kind < NLOADS; kind++) {
				check_flows_case(&k, F_NNA, NULL, &s, kind, 1 + n++ % 3, 12);
				for (size_t w = 0; w < sizeof weights / sizeof *weights; w++)
					if (weights[w].by_degree || weights[w].alpha <= cap)
						check_flows_case(&k, F_FOS_INT, &weights[w], &s, kind, 1 + n++ % 3, 6);
			}
		}
}

Test(checkasm, nna_fos_int_sse41_equal_reference) { check_flows_isa("sse41"); }
Test(checkasm, nna_fos_int_avx2_equal_reference) { check_flows_isa("avx2"); }
Test(checkasm, nna_fos_int_avx512_equal_reference) { check_flows_isa("avx512"); }

/* Rows of every length around the vector widths, on the flows kernels. */
Test(checkasm, nna_fos_int_every_row_length_to_40)
{
	const lbt_diffusion boillat = {.by_degree = 1, .k = 1}, a = {.alpha = 0.2};
	for (const char *const *t = lbt_isa_compiled(); *t; t++) {
		lbt_kernels k;
		lbt_err e;
		if (!vector_kernels(*t, &k))
			continue;
		for (int n = 1; n <= 40; n++)
			for (int b = 0; b < 2; b++) {
				lbt_shape s;
				char text[32];
				snprintf(text, sizeof text, "3x%d", n);
				lbt_shape_parse(&s, text, &e);
				s.bnd[0] = s.bnd[1] = b ? LBT_MESH : LBT_TORUS;
				check_flows_case(&k, F_NNA, NULL, &s, L_POINT, 2, 30);
				check_flows_case(&k, F_NNA, NULL, &s, L_SMALL, 1, 30);
				check_flows_case(&k, F_FOS_INT, &boillat, &s, L_WIDE, 2, 10);
				check_flows_case(&k, F_FOS_INT, &a, &s, L_POINT, 1, 10);
			}
	}
}

/* Real-valued diffusion (kernels/simd/fos.c: fos and Dickens's ca): loads,
 * amount moved, shifts and link_max equal to the reference's bit for bit. */
static void check_fos_case(const lbt_kernels *k, const lbt_diffusion *p, const lbt_shape *s, int kind, int threads,
                           int steps)
{
	lbt_err e;
	lbt_grid ref, vec;
	cr_assert_eq(lbt_grid_init(&ref, s, &e), LBT_OK, "%s", e.msg);
	cr_assert_eq(lbt_grid_init(&vec, s, &e), LBT_OK, "%s", e.msg);
	int64_t P = lbt_shape_pes(s);
	int32_t *dense = malloc((size_t)P * sizeof *dense);
	fill(dense, P, kind, (uint64_t)P * 31 + (uint64_t)kind, 0);
	lbt_grid_import(&ref, dense);
	free(dense);
	cr_assert_eq(lbt_grid_add_real(&ref, &e), LBT_OK);
	cr_assert_eq(lbt_grid_add_real(&vec, &e), LBT_OK);
	lbt_grid_copy(&vec, &ref);
	lbt_view vr, vv;
	set_view(&vr, &ref, 1);
	set_view(&vv, &vec, threads);
	lbt_scratch sc;
	add_scratch(&vv, &vec, &sc);
	vr.real = ref.real;
	vv.real = vec.real;
	char sh[128], bd[128];
	lbt_shape_format(s, sh, sizeof sh);
	lbt_boundary_format(s, bd, sizeof bd);
	for (int t = 1; t <= steps; t++) {
		lbt_counts cr = {0}, cv = {0};
		lbt_ref_fos_step(&vr, p, &cr);
		k->fos_step(&vv, p, &cv);
		int64_t at = lbt_grid_first_diff(&ref, &vec);
		if (at >= 0) {
			char where[160];
			lbt_shape_coords(s, at, where, sizeof where);
			cr_assert_fail("fos (alpha %g, by degree %d, k %d) on %s: shape %s (%s), load %s, %d threads: step %d "
			               "differs first at PE %s", p->alpha, p->by_degree, p->k, k->isa, sh, bd, load_names[kind],
			               threads, t, where);
		}
		if (memcmp(&cr.real_moved, &cv.real_moved, sizeof cr.real_moved) ||
		    memcmp(&cr.real_shifts, &cv.real_shifts, sizeof cr.real_shifts) || cr.link_max != cv.link_max)
			cr_assert_fail("fos on %s: shape %s (%s), load %s: step %d counters moved %.17g shifts %.17g link_max "
			               "%.17g, reference %.17g %.17g %.17g", k->isa, sh, bd, load_names[kind], t, cv.real_moved,
			               cv.real_shifts, cv.link_max, cr.real_moved, cr.real_shifts, cr.link_max);
	}
	lbt_grid_free(&ref);
	lbt_grid_free(&vec);
	lbt_scratch_close(&sc);
}

static void check_fos_isa(const char *isa)
{
	lbt_kernels k;
	lbt_err e;
	if (!select_or_skip(isa, &k))
		return;
	cr_assert_neq((void *)k.fos_step, (void *)lbt_ref_fos_step, "%s did not replace the fos reference", isa);
	const lbt_diffusion weights[] = {{.alpha = 0.1}, {.alpha = 0.2071}, {.by_degree = 1, .k = 1}, {.by_degree = 1, .k = 0}};
	int n = 0;
	for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++)
		for (int b = 0; b < 4; b++) {
			lbt_shape s;
			cr_assert_eq(lbt_shape_parse(&s, shapes[i], &e), LBT_OK);
			for (int d = 0; d < s.dims; d++)
				s.bnd[d] = b == 0 ? LBT_TORUS : b == 1 ? LBT_MESH : (d % 2 == b - 2) ? LBT_MESH : LBT_TORUS;
			if (b >= 2 && s.dims == 1)
				continue;
			double cap = 1.0 / (lbt_max_degree(&s) ? lbt_max_degree(&s) : 1);
			for (int kind = 0; kind < NLOADS; kind += 2)
				for (size_t w = 0; w < sizeof weights / sizeof *weights; w++)
					if (weights[w].by_degree || weights[w].alpha <= cap)
						check_fos_case(&k, &weights[w], &s, kind, 1 + n++ % 3, 5);
		}
}

Test(checkasm, fos_sse41_equals_reference) { check_fos_isa("sse41"); }
Test(checkasm, fos_avx2_equals_reference) { check_fos_isa("avx2"); }
Test(checkasm, fos_avx512_equals_reference) { check_fos_isa("avx512"); }

/* Dimension exchange (kernels/simd/de.c), real and integer, several lambda:
 * loads and counters equal to kernels/ref/de.c bit for bit. */
static void check_de_case(const lbt_kernels *k, int real, double lambda, const lbt_shape *s, int kind, int threads,
                          int steps)
{
	lbt_err e;
	lbt_grid ref, vec;
	cr_assert_eq(lbt_grid_init(&ref, s, &e), LBT_OK, "%s", e.msg);
	cr_assert_eq(lbt_grid_init(&vec, s, &e), LBT_OK, "%s", e.msg);
	int64_t P = lbt_shape_pes(s);
	int32_t *dense = malloc((size_t)P * sizeof *dense);
	fill(dense, P, kind, (uint64_t)P * 7 + (uint64_t)kind, 0);
	lbt_grid_import(&ref, dense);
	lbt_grid_import(&vec, dense);
	free(dense);
	if (real) {
		cr_assert_eq(lbt_grid_add_real(&ref, &e), LBT_OK);
		cr_assert_eq(lbt_grid_add_real(&vec, &e), LBT_OK);
	}
	lbt_view vr, vv;
	set_view(&vr, &ref, 1);
	set_view(&vv, &vec, threads);
	lbt_scratch sc;
	add_scratch(&vv, &vec, &sc);
	vr.real = ref.real;
	vv.real = vec.real;
	char sh[128], bd[128];
	lbt_shape_format(s, sh, sizeof sh);
	lbt_boundary_format(s, bd, sizeof bd);
	for (int t = 1; t <= steps; t++) {
		lbt_counts cr = {0}, cv = {0};
		if (real) {
			lbt_ref_de_step(&vr, lambda, &cr);
			k->de_step(&vv, lambda, &cv);
		} else {
			lbt_ref_de_int_step(&vr, lambda, &cr);
			k->de_int_step(&vv, lambda, &cv);
		}
		int64_t at = lbt_grid_first_diff(&ref, &vec);
		if (at >= 0) {
			char where[160];
			lbt_shape_coords(s, at, where, sizeof where);
			cr_assert_fail("%s (lambda %g) on %s: shape %s (%s), load %s, %d threads: step %d differs first at PE %s",
			               real ? "de" : "de-int", lambda, k->isa, sh, bd, load_names[kind], threads, t, where);
		}
		if (cr.moved != cv.moved || cr.shifts != cv.shifts || cr.link_max != cv.link_max ||
		    memcmp(&cr.real_moved, &cv.real_moved, sizeof cr.real_moved) ||
		    memcmp(&cr.real_shifts, &cv.real_shifts, sizeof cr.real_shifts))
			cr_assert_fail("%s on %s: shape %s (%s), load %s: step %d counters differ", real ? "de" : "de-int", k->isa,
			               sh, bd, load_names[kind], t);
	}
	lbt_grid_free(&ref);
	lbt_grid_free(&vec);
	lbt_scratch_close(&sc);
}

static void check_de_isa(const char *isa)
{
	lbt_kernels k;
	lbt_err e;
	if (!select_or_skip(isa, &k))
		return;
	cr_assert_neq((void *)k.de_step, (void *)lbt_ref_de_step, "%s did not replace de", isa);
	cr_assert_neq((void *)k.de_int_step, (void *)lbt_ref_de_int_step, "%s did not replace de-int", isa);
	static const double lambdas[] = {0.5, 0.3, 1};
	int n = 0;
	for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++)
		for (int b = 0; b < 4; b++) {
			lbt_shape s;
			cr_assert_eq(lbt_shape_parse(&s, shapes[i], &e), LBT_OK);
			for (int d = 0; d < s.dims; d++)
				s.bnd[d] = b == 0 ? LBT_TORUS : b == 1 ? LBT_MESH : (d % 2 == b - 2) ? LBT_MESH : LBT_TORUS;
			if (b >= 2 && s.dims == 1)
				continue;
			for (int kind = 0; kind < NLOADS; kind++)
				for (int l = 0; l < 3; l++) {
					check_de_case(&k, 1, lambdas[l], &s, kind, 1 + n++ % 3, 4);
					check_de_case(&k, 0, lambdas[l], &s, kind, 1 + n++ % 3, 4);
				}
		}
}

Test(checkasm, de_sse41_equals_reference) { check_de_isa("sse41"); }
Test(checkasm, de_avx2_equals_reference) { check_de_isa("avx2"); }
Test(checkasm, de_avx512_equals_reference) { check_de_isa("avx512"); }

/* A workload row kernel's result against its reference's: the loads and
 * every counter, with `what` (the ISA and the case) in the message. */
static void assert_same_row(const char *what, const int32_t *a, const int32_t *b, int n, const lbt_wl_counts *cr,
                            const lbt_wl_counts *cv)
{
	cr_assert(!memcmp(a, b, (size_t)n * sizeof *a) && cr->generated == cv->generated &&
	          cr->completed == cv->completed && cr->idle == cv->idle && cr->overflow == cv->overflow &&
	          cr->sq_hi == cv->sq_hi && cr->sq_lo == cv->sq_lo,
	          "%s: loads %s, generated %lld/%lld, completed %lld/%lld, idle %lld/%lld, overflow %d/%d, "
	          "squares %llu:%llu/%llu:%llu", what, memcmp(a, b, (size_t)n * sizeof *a) ? "differ" : "equal",
	          (long long)cr->generated, (long long)cv->generated, (long long)cr->completed, (long long)cv->completed,
	          (long long)cr->idle, (long long)cv->idle, cr->overflow, cv->overflow, (unsigned long long)cr->sq_hi,
	          (unsigned long long)cr->sq_lo, (unsigned long long)cv->sq_hi, (unsigned long long)cv->sq_lo);
}

/* The workload phase's kernel (cybenko:poisson:MU:C on integer loads, kernels/simd/workload.c):
 * loads and counters equal to the reference's bit for bit on every ISA, for
 * rows of every length to 70 and a few past two blocks of 64, means from
 * 0.01 to the largest allowed (100: each of the kernel's paths, a count
 * against the first 2, 4, 6, 8, 12, 16 thresholds and the pass per threshold),
 * C = 0..3 and 50, loads near 0 (idle capacity) and near INT32_MAX (the
 * overflow flag), many steps and seeds. The thresholds' count equals the
 * reference's inversion loop by construction (kernels.h); this checks it,
 * and the sums of the new loads' squares (issue 9: sqdev without a pass). */
Test(checkasm, workload_poisson_row_equals_reference)
{
	static const double mus[] = {0.01, 0.1, 0.5, 1, 2, 2.5, 4, 5, 7, 37.5, 100};
	static const int32_t Cs[] = {0, 1, 2, 3, 50};
	static const int ns[] = {127, 128, 129, 150};
	int32_t a[160], b[160];
	uint64_t scratch[320];
	for (const char *const *t = lbt_isa_compiled(); *t; t++) {
		lbt_kernels k;
		if (!vector_kernels(*t, &k))
			continue;
		cr_assert(k.wl_poisson_row != lbt_ref_wl_poisson_row, "%s has no workload kernel", *t);
		for (size_t im = 0; im < sizeof mus / sizeof *mus; im++) {
			lbt_poisson pt;
			cr_assert_eq(lbt_poisson_init(&pt, mus[im]), LBT_OK);
			cr_assert(pt.K > 0 && pt.K < LBT_POISSON_MAX);
			for (int in = 0; in < 74; in++)
				for (size_t ic = 0; ic < sizeof Cs / sizeof *Cs; ic++)
					for (int step = 0, n = in < 70 ? in + 1 : ns[in - 70]; step < 6; step++) {
						for (int j = 0; j < n; j++) /* small loads, and one near the top */
							a[j] = b[j] = j == n / 2 && step == 5 ? INT32_MAX - 3 : (int32_t)((j * 7 + step) % 4);
						lbt_wl_counts cr = {0}, cv = {0};
						const uint64_t seed = 12345 + (uint64_t)n;
						lbt_ref_wl_poisson_row(a, n, 1000 * n + 3, seed, step, 101, &pt, Cs[ic], NULL, NULL, &cr);
						k.wl_poisson_row(b, n, 1000 * n + 3, seed, step, 101, &pt, Cs[ic], scratch, scratch + n, &cv);
						char what[96];
						snprintf(what, sizeof what, "%s: mu %g, n %d, C %d, step %d", *t, mus[im], n, Cs[ic], step);
						assert_same_row(what, a, b, n, &cr, &cv);
					}
		}
	}
}

/* The uniform and Bernoulli row kernel (cybenko:uniform:LO:HI:C and
 * cybenko:bernoulli:P:C on integer loads, kernels/simd/workload.c): loads,
 * counters and sums of squares equal to the reference's on every ISA, for
 * rows of every length to 70 and past two blocks of 64, ranges from one
 * value to the widest allowed (10^6), probabilities 0, 1, the smallest
 * double above 0 and the largest below 1 (the threshold's ends) and one
 * equal to a draw of the row (u < p there must be false), loads near
 * INT32_MAX (the overflow flag). */
Test(checkasm, workload_draw_row_equals_reference)
{
	static const int64_t ranges[][2] = {{0, 0}, {0, 1}, {0, 2}, {3, 9}, {0, 1000000}, {999999, 1000000}};
	static const double ps[] = {0, 0x1p-1074, 0.3, 0.5, 0x1.fffffffffffffp-1, 1};
	static const int32_t Cs[] = {0, 1, 3, 50};
	int32_t a[160], b[160];
	for (const char *const *t = lbt_isa_compiled(); *t; t++) {
		lbt_kernels k;
		if (!vector_kernels(*t, &k))
			continue;
		cr_assert(k.wl_draw_row != lbt_ref_wl_draw_row, "%s has no workload kernel", *t);
		for (int id = 0; id < 13; id++) {
			lbt_wl_draw d;
			if (id < 6)
				lbt_wl_draw_init(&d, ranges[id][0], ranges[id][1]);
			else if (id < 12)
				lbt_wl_bernoulli_init(&d, ps[id - 6]);
			for (int n = 1; n <= 150; n += n < 70 ? 1 : 19)
				for (size_t ic = 0; ic < sizeof Cs / sizeof *Cs; ic++)
					for (int step = 0; step < 6; step++) {
						for (int j = 0; j < n; j++)
							a[j] = b[j] = j == n / 2 && step == 5 ? INT32_MAX - 3 : (int32_t)((j * 7 + step) % 4);
						lbt_wl_counts cr = {0}, cv = {0};
						const uint64_t seed = 777 + (uint64_t)n;
						if (id == 12) /* p = the draw of the row's PE n/2 */
							lbt_wl_bernoulli_init(&d, lbt_rand_unit(lbt_rand(seed, (uint64_t)step,
							                                                 (uint64_t)(1000 * n + 3 + n / 2), 101)));
						lbt_ref_wl_draw_row(a, n, 1000 * n + 3, seed, step, 101, &d, Cs[ic], &cr);
						k.wl_draw_row(b, n, 1000 * n + 3, seed, step, 101, &d, Cs[ic], &cv);
						char what[96];
						snprintf(what, sizeof what, "%s: draw %d, n %d, C %d, step %d", *t, id, n, Cs[ic], step);
						assert_same_row(what, a, b, n, &cr, &cv);
					}
		}
	}
}

/* The phases row kernel (phases:GL:GH:CL:CH:LENL:LENH, kernels/simd/workload.c):
 * loads, counters, sums of squares and the phases' state (thresholds and
 * ends) equal to the reference's on every ISA over 12 consecutive steps,
 * for rows of every length to 70 and past two blocks of 64, phases of one
 * step (redrawn every step), of a few and of 10^9 steps, probabilities 0 and
 * 1 at the ends, loads at 0 (idle capacity) and at INT32_MAX (the overflow
 * flag and the -1 left there). */
Test(checkasm, workload_phases_row_equals_reference)
{
	static const double args[][6] = {{0.1, 0.4, 0.1, 0.4, 2, 9}, {0, 1, 0, 1, 1, 1}, {1, 1, 0, 0, 1, 3},
	                                 {0.1, 0.9, 0.1, 0.7, 150, 400}, {0.5, 0.5, 1, 1, 1, 1e9}};
	int32_t a[160], b[160];
	uint64_t ga[160], ca[160], gb[160], cb[160];
	int64_t ea[160], eb[160];
	for (const char *const *t = lbt_isa_compiled(); *t; t++) {
		lbt_kernels k;
		if (!vector_kernels(*t, &k))
			continue;
		cr_assert(k.wl_phases_row != lbt_ref_wl_phases_row, "%s has no workload kernel", *t);
		for (size_t ia = 0; ia < sizeof args / sizeof *args; ia++) {
			lbt_wl_phases ph = {.purpose = {102, 103, 104, 105, 106}};
			memcpy(ph.arg, args[ia], sizeof ph.arg);
			for (int n = 1; n <= 150; n += n < 70 ? 1 : 19) {
				for (int j = 0; j < n; j++) {
					a[j] = b[j] = j == n / 3 ? INT32_MAX - 2 : (int32_t)(j % 3);
					ea[j] = eb[j] = 0;
				}
				for (int step = 0; step < 12; step++) {
					lbt_wl_counts cr = {0}, cv = {0};
					const uint64_t seed = 99 + (uint64_t)n;
					lbt_ref_wl_phases_row(a, n, 1000 * n + 3, seed, step, &ph, ga, ca, ea, &cr);
					k.wl_phases_row(b, n, 1000 * n + 3, seed, step, &ph, gb, cb, eb, &cv);
					cr_assert(!memcmp(ga, gb, (size_t)n * sizeof *ga) && !memcmp(ca, cb, (size_t)n * sizeof *ca) &&
					          !memcmp(ea, eb, (size_t)n * sizeof *ea), "%s: phases %zu, n %d, step %d: the phases' state differs",
					          *t, ia, n, step);
					char what[96];
					snprintf(what, sizeof what, "%s: phases %zu, n %d, step %d", *t, ia, n, step);
					assert_same_row(what, a, b, n, &cr, &cv);
				}
			}
		}
	}
}

/* nnadef.c — Henrich's deficiency-based NNA, eq. (4) (kernels/simd/nnadef.c
 * against kernels/ref/nna_def.c): loads, moved, shifts and link_max equal
 * step by step (and the statistics the kernel measures on the way equal to
 * the grid's) on every shape x boundary x load, rows of every length
 * around the vector widths, grids large enough for two threads to share
 * the rows, and loads at the edge of the kernel's double path, where the
 * product surplus x H of a PE crosses 2^53 and a group of lanes takes the
 * 128-bit formula instead. Loads near the int32 limit stay 1024 below it
 * (eq. (4)'s rounding can lift a PE a few elements above its neighbours). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "checkasm.h"

static void nna_def(const lbt_kernels *k, const lbt_view *v, const void *arg, lbt_counts *c)
{
	(void)arg;
	k->nna_def_step(v, c);
}
static const ck_stepper nna_def_k = {"nna (eq. 4)", nna_def, NULL, C_MOVED | C_SHIFTS | C_LINKMAX | C_STATS, 977,
                                     CK_BELOW_MAX};

/* A PE of load X whose k neighbours hold 0 has surplus = H = k X, so its
 * product crosses 2^53 at X = 2^26.5 / k. Each PE draws: 0; X = 2^26.5 / k
 * rounded down, plus -1, 0 or +1, for k = 1..16; a load spread evenly in
 * log over 2^22..2^28; or a small one. */
static void edge_fill(int32_t *d, int64_t P, uint64_t seed)
{
	for (int64_t i = 0; i < P; i++) {
		const uint64_t r = lbt_mix64(seed * 0x9e3779b97f4a7c15ULL + (uint64_t)i);
		switch (r % 4) {
		case 0: d[i] = 0; break;
		case 1: d[i] = (int32_t)floor(sqrt(0x1p53) / (double)(1 + (r >> 8) % 16)) + (int32_t)((r >> 16) % 3) - 1; break;
		case 2: d[i] = (int32_t)exp2(22 + 6 * (double)((r >> 8) % 1000000) / 1e6); break;
		default: d[i] = (int32_t)((r >> 8) % 1000); break;
		}
	}
}

static void edge_steps(const lbt_shape *s, int threads, int steps, uint64_t seed)
{
	ck_pair p;
	ck_pair_open(&p, s, L_ZEROS, threads, seed, 0);
	const int64_t P = lbt_shape_pes(s);
	int32_t *dense = malloc((size_t)P * sizeof *dense);
	cr_assert(dense);
	edge_fill(dense, P, seed);
	lbt_grid_import(&p.ref, dense);
	lbt_grid_import(&p.vec, dense);
	free(dense);
	for (int t = 1; t <= steps; t++) {
		lbt_counts cr = {0}, cv = {0};
		call_ref(nna_def_step, &p.vr, &cr);
		call_new(nna_def_step, &p.vv, &cv);
		const int64_t at = lbt_grid_first_diff(&p.ref, &p.vec);
		char where[160] = "";
		if (at >= 0)
			lbt_shape_coords(s, at, where, sizeof where);
		cr_assert(at < 0, "nna (eq. 4) on %s: shape %s (%s), loads at the double path's edge, %d threads: step %d "
		          "differs first at PE %s", ck_new->isa, p.sh, p.bd, threads, t, where);
		cr_assert(cr.moved == cv.moved && cr.shifts == cv.shifts && cr.link_max == cv.link_max,
		          "nna (eq. 4) on %s: shape %s (%s), loads at the double path's edge, %d threads: step %d counts "
		          "moved %lld shifts %lld link_max %.17g, reference %lld %lld %.17g", ck_new->isa, p.sh, p.bd, threads,
		          t, (long long)cv.moved, (long long)cv.shifts, cv.link_max, (long long)cr.moved, (long long)cr.shifts,
		          cr.link_max);
		lbt_stats st;
		lbt_grid_stats(&p.ref, &st);
		cr_assert(!cv.has_stats || (st.max == cv.max && st.min == cv.min && st.total == cv.total),
		          "nna (eq. 4) on %s: shape %s, loads at the double path's edge: step %d statistics max %d min %d "
		          "total %lld, want %d %d %lld", ck_new->isa, p.sh, t, cv.max, cv.min, (long long)cv.total,
		          (int)st.max, (int)st.min, (long long)st.total);
	}
	ck_pair_close(&p);
}

/* Rows of every length around the vector widths, torus and mesh. */
static void rows_to_40(int kind, int threads, int steps)
{
	for (int n = 1; n <= 40; n++)
		for (int m = 0; m < 2; m++) {
			char text[32];
			snprintf(text, sizeof text, "3x%d", n);
			const lbt_shape s = ck_grid(text, m ? "mesh" : "torus");
			ck_steps(&nna_def_k, &s, kind, threads, steps);
		}
}

/* Grids of more than 16384 PEs, whose rows the kernel shares out to threads. */
static const char *const big[][2] = {{"131x129", "torus"}, {"131x129", "mesh"}, {"3x67x83", "mesh,torus,torus"},
                                     {"16448", "torus"}};

static void nna_def_quick(void)
{
	rows_to_40(L_POINT, 2, 20);
	rows_to_40(L_SMALL, 1, 20);
	const char *const small[][2] = {{"127", "torus"}, {"17x3", "mesh"}, {"4x3x32", "torus"}, {"2x5x64", "mesh"}};
	for (int i = 0; i < 4; i++) {
		const lbt_shape s = ck_grid(small[i][0], small[i][1]);
		edge_steps(&s, 1 + i % 2, 12, (uint64_t)i + 1);
	}
	for (int i = 0; i < 4; i++) {
		const lbt_shape s = ck_grid(big[i][0], big[i][1]);
		ck_steps(&nna_def_k, &s, L_WIDE, 2, 4);
		edge_steps(&s, 2, 4, (uint64_t)i + 11);
	}
	ck_pair p;
	const lbt_shape b = ck_grid("256x256", "torus");
	ck_pair_open(&p, &b, L_WIDE, 1, 1, 0);
	lbt_counts c = {0};
	bench_new(nna_def_step, 100, &p.vv, &c);
	ck_pair_close(&p);
}

/* Every shape x boundary x load, 8 steps on 1, 2 and 3 threads in turn, and
 * the edge loads on each; the large grids with every load on 1 and 2. */
static void nna_def_shape(const lbt_shape *s, int *n, const void *arg)
{
	(void)arg;
	for (int kind = 0; kind < NLOADS; kind++)
		ck_steps(&nna_def_k, s, kind, 1 + (*n)++ % 3, 8);
	const int t = 1 + (*n)++ % 2;
	edge_steps(s, t, 8, (uint64_t)*n);
}
static void nna_def_full(void)
{
	ck_each_shape(nna_def_shape, NULL);
	for (int i = 0; i < 4; i++)
		for (int kind = 0; kind < NLOADS; kind++) {
			const lbt_shape s = ck_grid(big[i][0], big[i][1]);
			ck_steps(&nna_def_k, &s, kind, 1 + kind % 2, 3);
		}
}
CK_CASE(nna_def_step, nna_def_quick, nna_def_full);

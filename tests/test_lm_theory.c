/* test_lm_theory.c — seed 000's analysis checked on random configurations:
 * Lemma 1 (conservativity of LM-C5), Theorem 2 (convergence of C3..C5),
 * conservation of load by every condition on every boundary, and the
 * degenerate extents the paper leaves open (K = 1, K = 2, mesh edges). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>

#include "helpers.h"

static void random_shape(uint64_t seed, int D, int kmin, int kmax, char *buf, size_t n)
{
	size_t used = 0;
	for (int d = 0; d < D; d++)
		used += (size_t)snprintf(buf + used, n - used, d ? "x%lld" : "%lld",
		                         (long long)lbt_rand_range(lbt_rand(seed, 1, (uint64_t)d, 99), kmin, kmax));
}

static void step(lbt_state *st, lbt_counts *c)
{
	lbt_counts k = {0};
	st->method->step(st, c ? c : &k);
}

/* Lemma 1: after an LM-C5 step, Lmax(t+1) <= Lmax(t) and Lmin(t+1) >= Lmin(t).
 * A torus property: on a mesh the first PE of a line has no predecessor to
 * refill it, so there the minimum can fall (e.g. 1 0 0 -> 0 1 0). */
Test(lemma1, lm_c5_max_never_rises_min_never_falls)
{
	static const char *inits[] = {"uniform:0:3", "uniform:0:40", "uniform:1:1000", "point:500"};
	for (uint64_t seed = 1; seed <= 160; seed++) {
		int D = 1 + (int)(seed % 4);
		char shape[64], seedinit[64];
		random_shape(seed, D, 1, D == 4 ? 5 : 9, shape, sizeof shape);
		snprintf(seedinit, sizeof seedinit, "%s", inits[seed % 4]);
		lbt_state st;
		th_open(&st, shape, "torus", "lm-c5", seedinit, NULL);
		st.seed = seed;
		lbt_stats a, b;
		lbt_grid_stats(&st.grid, &a);
		for (int t = 0; t < 60; t++) {
			step(&st, NULL);
			lbt_grid_stats(&st.grid, &b);
			cr_assert_leq(b.max, a.max, "Lemma 1: max rose %g -> %g (%s, %s, step %d)", a.max, b.max, shape, seedinit, t + 1);
			cr_assert_geq(b.min, a.min, "Lemma 1: min fell %g -> %g (%s, %s, step %d)", a.min, b.min, shape, seedinit, t + 1);
			a = b;
		}
		lbt_state_close(&st);
	}
}

/* Theorem 2: an unbalanced configuration with all L_i > 0 on a D-torus
 * converges to a balanced one (Definition 2: max - min <= D) under LM-C5;
 * "the other conditions C3 through C4 can be treated in the similar way". */
Test(theorem2, c3_c4_c5_converge_on_random_tori, .timeout = 300)
{
	static const char *methods[] = {"lm-c3", "lm-c4", "lm-c5"};
	for (uint64_t seed = 1; seed <= 90; seed++) {
		int D = 1 + (int)(seed % 3);
		char shape[64];
		random_shape(seed * 7, D, 2, D == 3 ? 6 : 12, shape, sizeof shape);
		const char *init = seed % 2 ? "uniform:1:30" : "uniform:1:200";
		lbt_state st;
		th_open(&st, shape, NULL, methods[seed % 3], init, NULL);
		lbt_run_opts o = lbt_run_opts_default(); o.until = (lbt_until){LBT_UNTIL_BALANCED, 0, 0}; o.max_steps = 200000;
		lbt_summary s;
		lbt_err e;
		cr_assert_eq(lbt_run(&st, &o, &s, &e), LBT_OK, "%s", e.msg);
		cr_assert(s.reached, "Theorem 2: %s on %s from %s not balanced after %lld steps (ldiff %g)",
		          methods[seed % 3], shape, init, (long long)s.steps, s.final_max - s.final_min);
		cr_assert_leq(s.final_max - s.final_min, lbt_shape_active_dims(&st.grid.shape));
		lbt_state_close(&st);
	}
}

/* Conservation: every condition, every boundary, the total after every step. */
Test(conservation, every_condition_every_boundary)
{
	static const char *bnd[] = {"torus", "mesh", "torus,mesh", "mesh,torus"};
	for (int cond = 0; cond < LBT_NCOND; cond++)
		for (int b = 0; b < 4; b++)
			for (uint64_t seed = 1; seed <= 6; seed++) {
				char method[16], shape[64];
				snprintf(method, sizeof method, "lm-c%d", cond);
				random_shape(seed * 31 + (uint64_t)b, b < 2 ? 1 + (int)(seed % 3) : 2, 1, 11, shape, sizeof shape);
				lbt_state st;
				th_open(&st, shape, b < 2 ? bnd[b] : bnd[b], method, seed % 2 ? "uniform:0:9" : "point:77", NULL);
				int64_t total = th_total(&st);
				for (int t = 0; t < 40; t++) {
					step(&st, NULL);
					cr_assert_eq(th_total(&st), total, "%s on %s (%s) lost load at step %d", method, shape, bnd[b], t + 1);
				}
				lbt_state_close(&st);
			}
}

/* K = 2: the two neighbours coincide but the two links are distinct; Definition 1
 * applies as written. (3,1): P0 shifts (3 >= 1), P1 does not (1 < 3): (2,2).
 * From (2,2) both shift over their own link: loads stay, 2 elements move. */
Test(degenerate, k2_ring_uses_both_links)
{
	lbt_state st;
	th_open(&st, "2", NULL, "lm-c5", "const:0", NULL);
	th_set(&st, (const int32_t[]){3, 1});
	lbt_counts c = {0};
	step(&st, &c);
	int32_t *L = th_loads(&st);
	cr_assert(L[0] == 2 && L[1] == 2, "(3,1) -> (%d,%d), want (2,2)", L[0], L[1]);
	cr_assert_eq(c.moved, 1);
	free(L);
	lbt_counts d = {0};
	step(&st, &d);
	L = th_loads(&st);
	cr_assert(L[0] == 2 && L[1] == 2);
	cr_assert_eq(d.moved, 2, "both PEs shift over their own link");
	free(L);
	lbt_state_close(&st);
}

/* K = 1: an extent-1 axis has no links, so it has no substep and costs no
 * shift; 1x8 runs exactly as the ring of 8, and a single PE never changes. */
Test(degenerate, extent_1_axis_has_no_links)
{
	lbt_state a, b;
	th_open(&a, "8", NULL, "lm-c5", "point:16", NULL);
	th_open(&b, "1x8", NULL, "lm-c5", "point:16", NULL);
	for (int t = 0; t < 20; t++) {
		lbt_counts ca = {0}, cb = {0};
		step(&a, &ca);
		step(&b, &cb);
		int32_t *x = th_loads(&a), *y = th_loads(&b);
		for (int i = 0; i < 8; i++)
			cr_assert_eq(x[i], y[i]);
		cr_assert_eq(ca.shifts, 1);
		cr_assert_eq(cb.shifts, 1);
		free(x); free(y);
	}
	lbt_state_close(&a);
	lbt_state_close(&b);
	lbt_state one;
	th_open(&one, "1", NULL, "lm-c0", "point:5", NULL);
	lbt_counts c = {0};
	step(&one, &c);
	int32_t *L = th_loads(&one);
	cr_assert_eq(L[0], 5);
	cr_assert_eq(c.shifts, 0);
	cr_assert_eq(c.moved, 0);
	free(L);
	lbt_state_close(&one);
}

/* Mesh: the last PE has no link to shift over and the first no predecessor. */
Test(degenerate, mesh_edges_have_no_links)
{
	lbt_state st;
	th_open(&st, "3", "mesh", "lm-c0", "const:0", NULL);
	th_set(&st, (const int32_t[]){0, 0, 5});
	step(&st, NULL);
	int32_t *L = th_loads(&st);
	cr_assert(L[0] == 0 && L[1] == 0 && L[2] == 5, "the last PE of a mesh never sends");
	free(L);
	th_set(&st, (const int32_t[]){5, 0, 0});
	step(&st, NULL);
	L = th_loads(&st);
	cr_assert(L[0] == 4 && L[1] == 1 && L[2] == 0, "got (%d,%d,%d)", L[0], L[1], L[2]);
	free(L);
	lbt_state_close(&st);
	/* C2 at the first PE: "(L_i = 1 and L_{i-1} > 1)" has no L_{i-1} on a mesh.
	 * On the torus, (1,0,2): P0 shifts (L_{-1} = L_2 = 2 > 1), P2 shifts: (1,1,1).
	 * On the mesh P0 has no predecessor and P2 no successor: nothing moves. */
	static const char *bnd[] = {"torus", "mesh"};
	static const int32_t want[2][3] = {{1, 1, 1}, {1, 0, 2}};
	for (int b = 0; b < 2; b++) {
		th_open(&st, "3", bnd[b], "lm-c2", "const:0", NULL);
		th_set(&st, (const int32_t[]){1, 0, 2});
		step(&st, NULL);
		L = th_loads(&st);
		for (int i = 0; i < 3; i++)
			cr_assert_eq(L[i], want[b][i], "C2 on a %s: PE %d got %d want %d", bnd[b], i, L[i], want[b][i]);
		free(L);
		lbt_state_close(&st);
	}
}

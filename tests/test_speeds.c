/* test_speeds.c — the claims of E. Jeannot, F. Vernier, A Practical
 * Approach of Diffusion Load Balancing Algorithms (Euro-Par 2006) as lbtorus
 * implements them: the relative-speed matrix Mr of §3.2 is stochastic,
 * Theorem 1 (convergence to w proportional to C iff Mr is irreducible and
 * aperiodic), the cost/benefit choice of §3.1 at its limits, the annealing
 * shake's draws, the spanning-tree convergence detection of §3.3, and the
 * application model of §4. */
#include <criterion/criterion.h>
#include <float.h>
#include <math.h>
#include <string.h>

#include "helpers.h"

typedef struct {
	const char *shape, *boundary, *method, *init, *speeds, *link;
	int threads;
	uint64_t seed;
	lbt_param_arg params[LBT_MAX_PARAMS];
} setup;

static void open_state(lbt_state *st, const setup *s)
{
	lbt_setup set = {.shape = s->shape, .boundary = s->boundary, .method = s->method, .init = s->init,
	                 .speeds = s->speeds, .link = s->link, .isa = "scalar", .seed = s->seed ? s->seed : 7,
	                 .threads = s->threads ? s->threads : 1};
	memcpy(set.params, s->params, sizeof set.params);
	lbt_err e;
	int r = lbt_state_open(st, &set, &e);
	cr_assert_eq(r, LBT_OK, "%s %s %s: %s", s->shape, s->method, s->init, e.msg);
}

static void run_steps(lbt_state *st, int64_t steps, int64_t app, lbt_summary *sum)
{
	lbt_run_opts o = lbt_run_opts_default();
	o.until.kind = LBT_UNTIL_STEPS;
	o.until.steps = steps;
	o.app_iterations = app;
	lbt_err e;
	int r = lbt_run(st, &o, sum, &e);
	cr_assert_eq(r, LBT_OK, "%s", e.msg);
}

static double *reals(const lbt_state *st, const char *field)
{
	int64_t P = lbt_shape_pes(&st->grid.shape);
	const lbt_field *f = lbt_grid_field(&st->grid, field);
	cr_assert(f, "no field %s", field);
	double *d = malloc((size_t)P * sizeof *d);
	cr_assert(d);
	lbt_field_export(&st->grid, f, d);
	return d;
}

/* §3.2: "By construction, Mr_ij >= 0 and sum_j Mr_ij = 1": for random speeds
 * on tori and meshes of 1-3 dimensions, both forms. A row is the sum of at
 * most 7 terms below 1, so its rounding error is below 8 ulp of 1; the
 * diagonal 1 - sum may be that much below 0. Also C_i Mr_ij = C_j Mr_ji
 * (the fixed point C of Theorem 1's proof), to a few ulp relative. */
Test(speeds, mr_is_stochastic_for_random_speeds_and_shapes)
{
	const char *shapes[][2] = {{"8", "torus"}, {"7", "mesh"}, {"2", "torus"}, {"5x6", "torus"},
	                           {"5x6", "mesh"}, {"4x4x3", "torus"}, {"2x3", "torus,mesh"}, {"1x9", "torus"}};
	for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++)
		for (int self = 0; self <= 1; self++) {
			lbt_shape s;
			lbt_err e;
			cr_assert_eq(lbt_shape_parse(&s, shapes[k][0], &e), LBT_OK);
			cr_assert_eq(lbt_boundary_parse(&s, shapes[k][1], &e), LBT_OK);
			int64_t P = lbt_shape_pes(&s);
			double *C = malloc((size_t)P * sizeof *C), *M = malloc((size_t)(P * P) * sizeof *M);
			cr_assert(C && M);
			for (int64_t i = 0; i < P; i++) /* speeds in [0.1, 10): a factor 100 apart */
				C[i] = 0.1 * pow(100, (double)(lbt_rand(k, self, (uint64_t)i, 99) >> 11) * 0x1p-53);
			cr_assert_eq(lbt_mr_matrix(&s, C, self, M, &e), LBT_OK);
			for (int64_t i = 0; i < P; i++) {
				double row = 0;
				for (int64_t j = 0; j < P; j++) {
					cr_assert_geq(M[i * P + j], -8 * DBL_EPSILON, "%s self=%d: Mr[%lld][%lld] = %g", shapes[k][0], self,
					              (long long)i, (long long)j, M[i * P + j]);
					row += M[i * P + j];
					cr_assert_leq(fabs(C[i] * M[i * P + j] - C[j] * M[j * P + i]),
					              8 * DBL_EPSILON * C[i] * fabs(M[i * P + j]) + 1e-300);
				}
				cr_assert_leq(fabs(row - 1), 16 * DBL_EPSILON, "%s self=%d row %lld sums to 1%+g", shapes[k][0], self,
				              (long long)i, row - 1);
			}
			free(C);
			free(M);
		}
}

/* Hand-derived Mr: equal speeds on a ring, Cr = 1/2. Without the self term
 * delta = 1/(2 * 1/2) = 1 and Mr_ij = 1/2, Mr_ii = 0; with it delta =
 * 1/(1 + 1/2) = 2/3 and Mr_ij = 1/3 = Mr_ii. */
Test(speeds, mr_of_equal_speeds_on_a_ring_by_hand)
{
	lbt_shape s;
	lbt_err e;
	cr_assert_eq(lbt_shape_parse(&s, "6", &e), LBT_OK);
	double C[6] = {2, 2, 2, 2, 2, 2}, M[36];
	cr_assert_eq(lbt_mr_matrix(&s, C, 0, M, &e), LBT_OK);
	cr_assert_eq(M[0 * 6 + 1], 0.5);
	cr_assert_eq(M[0 * 6 + 5], 0.5);
	cr_assert_eq(M[0], 0);
	cr_assert_eq(lbt_mr_matrix(&s, C, 1, M, &e), LBT_OK);
	cr_assert_float_eq(M[0 * 6 + 1], 1.0 / 3, 1e-15);
	cr_assert_float_eq(M[0], 1.0 / 3, 1e-15);
}

/* Theorem 1, "if": on a connected aperiodic graph the loads tend to h C with
 * sum w = h sum C. A 6x5 torus with speeds from 1 to 4, self term on; the
 * second eigenvalue of Mr is below 1 - 1e-2 here, so 4000 steps shrink the
 * initial error (< total) by far more than 1e-9. */
Test(speeds, theorem1_converges_to_load_proportional_to_speed_on_an_aperiodic_torus)
{
	lbt_state st;
	open_state(&st, &(setup){.shape = "6x5", .method = "fos-speed", .init = "uniform:0:1000", .speeds = "uniform:1:4"});
	lbt_summary sum;
	run_steps(&st, 4000, 0, &sum);
	double *w = reals(&st, "real"), *C = reals(&st, "speed");
	double W = 0, S = 0;
	for (int i = 0; i < 30; i++) {
		W += w[i];
		S += C[i];
	}
	for (int i = 0; i < 30; i++)
		cr_assert_leq(fabs(w[i] - W * C[i] / S), 1e-9 * W, "PE %d: %.17g, expected %.17g", i, w[i], W * C[i] / S);
	cr_assert_eq(sum.speed_balanced_step >= 0, 1);
	free(w);
	free(C);
	lbt_state_close(&st);
}

/* Theorem 1, "only if": on the even ring (bipartite) with equal speeds and no
 * self term Mr_ij = 1/2 and Mr_ii = 0, so the alternating vector (-1)^i is an
 * eigenvector of eigenvalue -1: the alternating sum of point:800 stays +-800
 * for ever, flipping sign every step, and the loads never converge. With the
 * self term (Mr_ii = 1/3) the same mode has eigenvalue -1/3 and dies out. */
Test(speeds, theorem1_bipartite_even_ring_without_self_term_does_not_converge)
{
	for (int self = 0; self <= 1; self++) {
		lbt_state st;
		open_state(&st, &(setup){.shape = "8", .method = "fos-speed", .init = "point:800",
		                         .params = {{"self", self ? "1" : "0"}}});
		lbt_summary sum;
		for (int t = 1000; t <= 1001; t++) {
			run_steps(&st, t - st.step, 0, &sum);
			double *w = reals(&st, "real"), alt = 0;
			for (int i = 0; i < 8; i++)
				alt += (i % 2 ? -1 : 1) * w[i];
			if (self)
				cr_assert_leq(fabs(alt), 1e-9, "self term: alternating sum %g at step %d", alt, t);
			else
				cr_assert_leq(fabs(alt - (t % 2 ? -800 : 800)), 1e-9, "no self term: %g at step %d", alt, t);
			free(w);
		}
		cr_assert_eq(sum.speed_balanced_step >= 0, self, "self=%d", self);
		lbt_state_close(&st);
	}
}

/* The integer version moves whole units: the total is the same after every
 * step (the engine checks it and would fail the run), no load goes negative,
 * with every feature on. */
Test(speeds, integer_version_conserves_load_exactly)
{
	lbt_state st;
	open_state(&st, &(setup){.shape = "6x7", .method = "fos-speed-int", .init = "uniform:0:50",
	                         .speeds = "classes:1,2,5", .link = "dsl",
	                         .params = {{"cb_k", "adaptive"}, {"shake", "0.8"}, {"shake_tau", "3"}}});
	int64_t before = th_total(&st);
	lbt_summary sum;
	run_steps(&st, 500, 0, &sum);
	cr_assert_eq(th_total(&st), before);
	int32_t *l = th_loads(&st);
	for (int i = 0; i < 42; i++)
		cr_assert_geq(l[i], 0);
	free(l);
	lbt_state_close(&st);
}

static void same_bits(const char *method, const char *shake)
{
	lbt_state a, b;
	setup s = {.shape = "9x8", .method = method, .init = "uniform:0:20", .speeds = "uniform:0.5:3",
	           .params = {{"shake", shake}, {"cb_k", "dec"}}, .threads = 1};
	open_state(&a, &s);
	s.threads = 2;
	open_state(&b, &s);
	lbt_summary sa, sb;
	run_steps(&a, 300, 0, &sa);
	run_steps(&b, 300, 0, &sb);
	cr_assert_eq(lbt_grid_first_diff(&a.grid, &b.grid), -1, "%s shake=%s: 1 and 2 threads differ", method, shake);
	cr_assert_eq(sa.shaken, sb.shaken);
	cr_assert_eq(sa.links_exchanged, sb.links_exchanged);
	if (strcmp(shake, "0"))
		cr_assert_gt(sa.shaken, 0, "%s: the shake never fired, the test would prove nothing", method);
	lbt_state_close(&a);
	lbt_state_close(&b);
}

/* Same inputs and seed: the same bits for 1 and 2 threads. */
Test(speeds, same_bits_for_1_and_2_threads)
{
	same_bits("fos-speed", "0");
	same_bits("fos-speed-int", "0");
}

/* The shake draws lbt_rand(seed, step, link, purpose): for any thread count
 * the same links are shaken. */
Test(speeds, shake_draws_are_the_same_for_any_thread_count)
{
	same_bits("fos-speed-int", "0.9");
	same_bits("fos-speed", "0.9");
}

/* §3.1: f_ij = 1 iff Cost < k Benefit. With k = 0 the right side is 0 and a
 * cost is at least Lat > 0: nothing is ever exchanged. */
Test(speeds, cost_benefit_with_k_0_exchanges_nothing)
{
	const char *methods[] = {"fos-speed", "fos-speed-int"};
	for (int m = 0; m < 2; m++) {
		lbt_state st;
		open_state(&st, &(setup){.shape = "5x4", .method = methods[m], .init = "uniform:0:100",
		                         .speeds = "classes:1,4", .params = {{"cb_k", "0"}}});
		int32_t *l0 = th_loads(&st);
		lbt_summary sum;
		run_steps(&st, 50, 0, &sum);
		cr_assert_eq(sum.links_exchanged, 0);
		cr_assert_eq(sum.moved, 0);
		if (m == 1) {
			int32_t *l = th_loads(&st);
			cr_assert_arr_eq(l, l0, 20 * sizeof *l);
			free(l);
		}
		free(l0);
		lbt_state_close(&st);
	}
}

/* With a huge k every exchange of a positive benefit is kept. An integer flow
 * is at least one unit from the relatively more loaded PE, and never
 * overshoots (|L| <= min(delta) (C_i C_j/(C_i+C_j)) (r_i - r_j) with
 * min(delta) <= 1), so its benefit is > 0: k = 1e300 is plain Mr diffusion,
 * bit for bit. */
Test(speeds, cost_benefit_with_a_huge_k_is_plain_diffusion)
{
	lbt_state a, b;
	setup s = {.shape = "7x6", .method = "fos-speed-int", .init = "uniform:0:1000", .speeds = "classes:1,3"};
	open_state(&a, &s);
	s.params[0] = (lbt_param_arg){"cb_k", "1e300"};
	open_state(&b, &s);
	lbt_summary sa, sb;
	run_steps(&a, 200, 0, &sa);
	run_steps(&b, 200, 0, &sb);
	cr_assert_gt(sa.links_exchanged, 0);
	cr_assert_eq(sa.links_exchanged, sb.links_exchanged);
	cr_assert_eq(lbt_grid_first_diff(&a.grid, &b.grid), -1);
	lbt_state_close(&a);
	lbt_state_close(&b);
}

/* The longest path of a tree (two breadth-first searches). */
static int64_t tree_diameter(int64_t P, const int64_t *edges)
{
	int64_t *dist = malloc((size_t)P * sizeof *dist), far = 0, best = 0;
	cr_assert(dist);
	for (int pass = 0; pass < 2; pass++) {
		for (int64_t i = 0; i < P; i++)
			dist[i] = -1;
		dist[far] = 0;
		for (int changed = 1; changed;) { /* Bellman-Ford on unit edges: fine for small trees */
			changed = 0;
			for (int64_t k = 0; k < P - 1; k++)
				for (int s = 0; s < 2; s++) {
					int64_t a = edges[2 * k + s], b = edges[2 * k + 1 - s];
					if (dist[a] >= 0 && dist[b] < 0) {
						dist[b] = dist[a] + 1;
						changed = 1;
					}
				}
		}
		best = 0;
		for (int64_t i = 0; i < P; i++)
			if (dist[i] > best) {
				best = dist[i];
				far = i;
			}
	}
	free(dist);
	return best;
}

static void check_protocol(int64_t P, const int64_t *edges, lbt_detect *r)
{
	int64_t *parent = malloc((size_t)P * sizeof *parent), *reached = malloc((size_t)P * sizeof *reached);
	lbt_err e;
	cr_assert_eq(lbt_detect_run(P, edges, r, parent, reached, &e), LBT_OK, "%s", e.msg);
	int64_t roots = 0;
	for (int64_t i = 0; i < P; i++) {
		roots += parent[i] < 0;
		cr_assert_geq(reached[i], r->up_rounds, "PE %lld never receives the decision", (long long)i);
		cr_assert_leq(reached[i], r->rounds);
	}
	cr_assert_eq(roots, 1);
	cr_assert_eq(parent[r->root], -1);
	/* ceil(d/2) rounds each way, contention iff d is odd (detect.c's derivation) */
	int64_t d = tree_diameter(P, edges);
	cr_assert_eq(r->up_rounds, (d + 1) / 2, "P=%lld diameter %lld", (long long)P, (long long)d);
	cr_assert_eq(r->down_rounds, (d + 1) / 2);
	cr_assert_eq(r->contention, (int)(d % 2));
	cr_assert_eq(r->messages, 2 * (P - 1) + r->contention); /* every non-root sends up once, every non-root hears once */
	free(parent);
	free(reached);
}

/* Exactly one root, every PE reached, on random trees (random attachments,
 * then random labels). */
Test(speeds, detection_elects_one_root_and_reaches_every_pe_on_random_trees)
{
	for (uint64_t t = 0; t < 200; t++) {
		int64_t P = 1 + (int64_t)(lbt_rand(t, 0, 0, 5) % 60);
		int64_t *edges = malloc((size_t)(2 * P) * sizeof *edges), *label = malloc((size_t)P * sizeof *label);
		for (int64_t i = 0; i < P; i++)
			label[i] = i;
		for (int64_t i = P - 1; i > 0; i--) { /* Fisher-Yates */
			int64_t j = (int64_t)(lbt_rand(t, 1, (uint64_t)i, 5) % (uint64_t)(i + 1)), x = label[i];
			label[i] = label[j];
			label[j] = x;
		}
		for (int64_t i = 1; i < P; i++) {
			edges[2 * (i - 1)] = label[i];
			edges[2 * (i - 1) + 1] = label[(int64_t)(lbt_rand(t, 2, (uint64_t)i, 5) % (uint64_t)i)];
		}
		lbt_detect r;
		check_protocol(P, edges, &r);
		free(edges);
		free(label);
	}
}

/* A line of n PEs (the comb of a 1-D shape is the line without its wrap
 * link): the waves from both ends meet in the middle. Odd n = 2m+1: the
 * middle PE hears both in round m and broadcasts for m rounds: n - 1 rounds.
 * Even n = 2m: PEs m-1 and m send to each other in round m (contention, m-1
 * is root), whose broadcast needs m rounds to reach PE 2m-1: n rounds. */
Test(speeds, detection_round_count_on_a_line)
{
	for (int64_t n = 1; n <= 64; n++) {
		lbt_shape s;
		lbt_err e;
		char text[16];
		snprintf(text, sizeof text, "%lld", (long long)n);
		cr_assert_eq(lbt_shape_parse(&s, text, &e), LBT_OK);
		int64_t *edges = malloc((size_t)(2 * n) * sizeof *edges);
		cr_assert_eq(lbt_detect_shape_tree(&s, edges), n - 1);
		lbt_detect r;
		check_protocol(n, edges, &r);
		cr_assert_eq(r.rounds, n % 2 ? n - 1 : n, "n=%lld", (long long)n);
		cr_assert_eq(r.root, n % 2 ? n / 2 : n / 2 - 1);
		free(edges);
	}
}

/* An R x C torus: the comb is every row (a path of C) joined by the column at
 * m = floor((C-1)/2). Its diameter joins the far ends of rows 0 and R-1:
 * (C-1-m) + (R-1) + (C-1-m) = R - 1 + 2 ceil((C-1)/2); the protocol takes
 * 2 ceil(diameter/2) rounds. 8x8: 15 -> 16; 5x7: 10 -> 10; 4x5: 7 -> 8;
 * 64x64: 127 -> 128. */
Test(speeds, detection_round_count_on_a_torus)
{
	const struct { const char *shape; int64_t rounds; } cases[] = {{"8x8", 16}, {"5x7", 10}, {"4x5", 8}, {"64x64", 128}};
	for (int k = 0; k < 4; k++) {
		lbt_shape s;
		lbt_err e;
		cr_assert_eq(lbt_shape_parse(&s, cases[k].shape, &e), LBT_OK);
		int64_t P = lbt_shape_pes(&s);
		int64_t *edges = malloc((size_t)(2 * P) * sizeof *edges);
		cr_assert_eq(lbt_detect_shape_tree(&s, edges), P - 1);
		lbt_detect r;
		check_protocol(P, edges, &r);
		cr_assert_eq(r.rounds, cases[k].rounds, "%s: %lld rounds", cases[k].shape, (long long)r.rounds);
		free(edges);
	}
}

/* What the method uses, the rounds from the comb's diameter, is the
 * protocol's count on the comb itself, for 1-D to 4-D shapes with extents 1
 * to 5 on each axis (extent 1 and 2 included: a lone PE, one link). */
Test(speeds, detection_rounds_from_the_diameter_are_the_protocols)
{
	for (int D = 1; D <= 4; D++) {
		int64_t shapes = 1;
		for (int d = 0; d < D; d++)
			shapes *= 5;
		for (int64_t k = 0; k < shapes; k++) {
			char text[64] = "";
			int64_t x = k;
			for (int d = 0; d < D; d++, x /= 5)
				snprintf(text + strlen(text), sizeof text - strlen(text), "%s%lld", d ? "x" : "", (long long)(x % 5 + 1));
			lbt_shape s;
			lbt_err e;
			cr_assert_eq(lbt_shape_parse(&s, text, &e), LBT_OK, "%s", e.msg);
			const int64_t P = lbt_shape_pes(&s);
			int64_t *edges = malloc((size_t)(2 * P) * sizeof *edges);
			cr_assert_eq(lbt_detect_shape_tree(&s, edges), P - 1);
			lbt_detect r;
			check_protocol(P, edges, &r);
			cr_assert_eq(lbt_detect_shape_rounds(&s), r.rounds, "%s: %lld rounds, the protocol %lld", text,
			             (long long)lbt_detect_shape_rounds(&s), (long long)r.rounds);
			free(edges);
		}
	}
}

/* Detection stops balancing `rounds` iterations after the last exchange: on a
 * 16-PE line with cost/benefit k = 1000 - t, k reaches 0 by step 1000 at the
 * latest, so the run stops before its cap, and the stop is at least 16
 * steps (the line's round count) after the last step that moved load. */
Test(speeds, detection_stops_balancing_after_the_protocol_rounds)
{
	lbt_state st;
	open_state(&st, &(setup){.shape = "16", .boundary = "mesh", .method = "fos-speed-int", .init = "point:640",
	                         .params = {{"cb_k", "dec"}, {"detect", "1"}}});
	lbt_summary sum;
	lbt_run_opts o = lbt_run_opts_default();
	o.until.kind = LBT_UNTIL_STEPS;
	o.until.steps = 2000;
	lbt_err e;
	cr_assert_eq(lbt_run(&st, &o, &sum, &e), LBT_OK);
	cr_assert_eq(sum.stop, LBT_STOP_DETECTED);
	cr_assert_lt(sum.detected_step, 1000 + 16 + 1);
	/* one more step would exchange nothing: the state is static */
	int32_t *l0 = th_loads(&st);
	lbt_counts c = {0};
	st.method->step(&st, &c);
	cr_assert_eq(c.links_exchanged, 0);
	free(l0);
	lbt_state_close(&st);
}

/* §4's application, by hand: speeds equal, PE loads (2, 2) on a 2-PE line of
 * the LAN. Each PE computes 2 units (2e-5 s) and sends its loaded neighbour
 * app_bytes = 1000 bytes (0.15 ms + 1000/12.5e6 s = 0.23 ms): 2.5e-4 s. */
Test(speeds, app_iteration_time_by_hand)
{
	lbt_state st;
	open_state(&st, &(setup){.shape = "2", .method = "fos-speed-int", .init = "const:2", .link = "lan"});
	cr_assert_float_eq(lbt_app_iteration(&st, NULL, NULL), 2e-5 + 1.5e-4 + 8e-5, 1e-15);
	lbt_state_close(&st);
}

/* An application that never balances (0 steps) with all its load on one PE
 * takes exactly the sequential time: speed-up 1. */
Test(speeds, app_without_balancing_is_sequential)
{
	lbt_state st;
	open_state(&st, &(setup){.shape = "64", .boundary = "mesh", .method = "fos-speed-int", .init = "point:640"});
	lbt_summary sum;
	run_steps(&st, 0, 1000, &sum);
	cr_assert_float_eq(sum.app_time, 1000 * 640 * 1e-5, 1e-9);
	cr_assert_float_eq(sum.speedup, 1, 1e-12);
	lbt_state_close(&st);
}

/* --speeds: classes are drawn from the list, uniform stays in its range, and
 * bad specs are refused with the reason. */
Test(speeds, speeds_specs)
{
	lbt_state st;
	open_state(&st, &(setup){.shape = "10x10", .method = "fos", .init = "const:1", .speeds = "classes:1,3"});
	double *C = reals(&st, "speed");
	int seen[2] = {0};
	for (int i = 0; i < 100; i++) {
		cr_assert(C[i] == 1 || C[i] == 3);
		seen[C[i] == 3]++;
	}
	cr_assert(seen[0] && seen[1]);
	free(C);
	lbt_state_close(&st);
	open_state(&st, &(setup){.shape = "10x10", .method = "fos", .init = "const:1", .speeds = "uniform:2:5"});
	C = reals(&st, "speed");
	for (int i = 0; i < 100; i++)
		cr_assert(C[i] >= 2 && C[i] < 5);
	free(C);
	lbt_state_close(&st);
	const char *bad[] = {"const:0", "uniform:3:2", "classes:1,,2", "fast", "const:-1", "classes:", "file:"};
	for (int k = 0; k < 7; k++) {
		lbt_speeds sp;
		lbt_err e;
		cr_assert_neq(lbt_speeds_parse(&sp, bad[k], &e), LBT_OK, "%s accepted", bad[k]);
	}
	lbt_net n;
	lbt_err e;
	cr_assert_eq(lbt_link_parse(&n, "dsl", &e), LBT_OK);
	cr_assert_float_eq(n.lat, 0.04, 1e-15);
	cr_assert_float_eq(n.bw, 125000, 1e-9);
	cr_assert_neq(lbt_link_parse(&n, "1:0", &e), LBT_OK);
}

/* Issue 25 item 4: --speeds file: takes what a NumPy user writes. Speeds are
 * real numbers in Jeannot and Vernier (2006), and np.save of [1.0, 2.0, 5.0]
 * is float64; float32 and the integer dtypes are read too. The file's values
 * become the field "speed" exactly. A speed that is not a finite number in
 * [1e-6, 1e6] (the range of every speed) is refused in one line, exit 2,
 * nothing written. The files are made here,
 * header and all, as NumPy 1.x writes them (format 1.0, a header padded to 64
 * bytes). */
Test(speeds, npy_speeds_of_every_dtype_numpy_writes)
{
	char dir[64], path[128], spec[160];
	th_tmpdir(dir, sizeof dir);
	const double f8[3] = {1.0, 2.0, 5.0};
	const float f4[3] = {0.5f, 2.25f, 3.0f};
	const int32_t i4[3] = {3, 1, 2};
	const int64_t i8[3] = {7, 1, 4};
	const struct {
		const char *descr;
		const void *data;
		size_t size;
		double want[3];
	} ok[] = {{"<f8", f8, sizeof f8, {1, 2, 5}}, {"<f4", f4, sizeof f4, {0.5, 2.25, 3}},
	          {"<i4", i4, sizeof i4, {3, 1, 2}}, {"<i8", i8, sizeof i8, {7, 1, 4}}};
	for (size_t k = 0; k < sizeof ok / sizeof ok[0]; k++) {
		char header[128];
		snprintf(header, sizeof header, "{'descr': '%s', 'fortran_order': False, 'shape': (3,), }", ok[k].descr);
		snprintf(path, sizeof path, "%s/s%zu.npy", dir, k);
		th_write_npy(path, 1, header, 0, ok[k].data, ok[k].size);
		snprintf(spec, sizeof spec, "file:%s", path);
		lbt_state st;
		open_state(&st, &(setup){.shape = "3", .method = "fos-speed", .init = "const:4", .speeds = spec});
		double *C = reals(&st, "speed");
		for (int i = 0; i < 3; i++)
			cr_assert_eq(C[i], ok[k].want[i], "%s: speed %d is %g, the file says %g", ok[k].descr, i, C[i], ok[k].want[i]);
		free(C);
		lbt_state_close(&st);
		char *out, *err;
		cr_assert_eq(th_cli(dir, TH_ARGS("run", "--shape", "3", "--method", "fos-speed", "--speeds", spec, "--until",
		                                 "steps:3", "--quiet"), &out, &err), 0, "%s: %s", ok[k].descr, err);
		free(out);
		free(err);
	}
	const struct {
		double v;
		const char *why;
	} bad[] = {{0, "speed 0 at flat index 1 is not a number in [1e-06, 1e+06]"},
	           {-2, "speed -2 at flat index 1 is not a number in [1e-06, 1e+06]"},
	           {2e6, "speed 2e+06 at flat index 1 is not a number in [1e-06, 1e+06]"},
	           {INFINITY, "at flat index 1 is not a finite number"}, {NAN, "at flat index 1 is not a finite number"}};
	for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
		double v[3] = {1, bad[k].v, 5};
		snprintf(path, sizeof path, "%s/bad%zu.npy", dir, k);
		th_write_npy(path, 1, "{'descr': '<f8', 'fortran_order': False, 'shape': (3,), }", 0, v, sizeof v);
		snprintf(spec, sizeof spec, "file:%s", path);
		th_usage_error(dir, TH_ARGS("run", "--shape", "3", "--method", "fos-speed", "--speeds", spec, "--json", "o.json"),
		               bad[k].why);
	}
	th_rm_tree(dir);
}

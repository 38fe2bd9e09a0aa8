/* test_diffusion.c — Cybenko's first-order scheme (seed 002, eq. (1)/(2)):
 * Fourier modes decay by their eigenvalues, the measured convergence factor
 * is gamma, the optimal alpha beats its neighbours, and the integer version
 * conserves load exactly without negative loads. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"

static double *real_loads(const lbt_state *st)
{
	double *w = malloc((size_t)lbt_shape_pes(&st->grid.shape) * sizeof *w);
	cr_assert(w);
	lbt_field_export(&st->grid, lbt_grid_field(&st->grid, "real"), w);
	return w;
}

static double norm_dev(const double *w, int64_t P)
{
	double m = 0, s = 0;
	for (int64_t i = 0; i < P; i++)
		m += w[i];
	m /= (double)P;
	for (int64_t i = 0; i < P; i++)
		s += (w[i] - m) * (w[i] - m);
	return sqrt(s);
}

/* Set w = 10 + cos(2 pi sum_d j_d x_d / K_d), one (real) Fourier mode. */
/* fos on shape with one alpha on every link, from const:0 (set_mode fills it). */
static void open_fos(lbt_state *st, const char *shape, double alpha)
{
	char a[32];
	snprintf(a, sizeof a, "%.17g", alpha);
	lbt_setup set = {.shape = shape, .method = "fos", .init = "const:0", .isa = "scalar", .seed = 7, .threads = 1,
	                 .params = {{"alpha", a}}};
	lbt_err e;
	cr_assert_eq(lbt_state_open(st, &set, &e), LBT_OK, "%s alpha %g: %s", shape, alpha, e.msg);
}

static void set_mode(lbt_state *st, const int *j)
{
	const lbt_shape *s = &st->grid.shape;
	int64_t P = lbt_shape_pes(s);
	double *w = malloc((size_t)P * sizeof *w);
	for (int64_t i = 0; i < P; i++) {
		int64_t q = i;
		double ph = 0;
		for (int d = s->dims - 1; d >= 0; d--) {
			ph += 2 * M_PI * (double)j[d] * (double)(q % s->ext[d]) / (double)s->ext[d];
			q /= s->ext[d];
		}
		w[i] = 10 + cos(ph);
	}
	lbt_field_import(&st->grid, lbt_grid_field(&st->grid, "real"), w);
	free(w);
}

/* Seed 002 §2-3: on a torus with extents K_d >= 3, the mode j decays by exactly
 * lambda_j = 1 - 2 alpha sum_d (1 - cos(2 pi j_d / K_d)) per step. */
Test(cybenko1989, fourier_mode_decays_by_its_eigenvalue)
{
	static const struct { const char *shape; int j[4]; } cases[] = {
		{"16", {3}}, {"7", {2}}, {"9x12", {2, 5}}, {"8x8", {4, 4}}, {"5x6x7", {1, 2, 3}}, {"4x3x4x5", {1, 1, 0, 2}},
	};
	static const double alphas[] = {0.05, 0.1, 0.125};
	for (size_t c = 0; c < sizeof cases / sizeof *cases; c++)
		for (size_t a = 0; a < 3; a++) {
			lbt_state st;
			open_fos(&st, cases[c].shape, alphas[a]);
			set_mode(&st, cases[c].j);
			const lbt_shape *s = &st.grid.shape;
			double lam = 1;
			for (int d = 0; d < s->dims; d++)
				lam -= 2 * alphas[a] * (1 - cos(2 * M_PI * cases[c].j[d] / (double)s->ext[d]));
			int64_t P = lbt_shape_pes(s);
			double *w0 = real_loads(&st);
			for (int t = 1; t <= 3; t++) {
				lbt_counts k = {0};
				st.method->step(&st, &k);
				double *w = real_loads(&st);
				for (int64_t i = 0; i < P; i++)
					cr_assert_float_eq(w[i] - 10, pow(lam, t) * (w0[i] - 10), 1e-12,
					                   "%s j=(%d,...) alpha %g step %d PE %lld: %.17g vs lambda^t * %.17g",
					                   cases[c].shape, cases[c].j[0], alphas[a], t, (long long)i, w[i] - 10, w0[i] - 10);
				free(w);
			}
			free(w0);
			lbt_state_close(&st);
		}
}

/* On a hypercube (every extent 2, one link per dimension) the eigenvalues are
 * 1 - 2 alpha |j| (|j| = number of dimensions in which the mode alternates). */
Test(cybenko1989, hypercube_mode_decays_by_its_eigenvalue)
{
	lbt_state st;
	open_fos(&st, "2x2x2x2", 0.2);
	int j[4] = {1, 0, 1, 1};
	set_mode(&st, j);
	double *w0 = real_loads(&st);
	lbt_counts k = {0};
	st.method->step(&st, &k);
	double *w = real_loads(&st);
	for (int i = 0; i < 16; i++)
		cr_assert_float_eq(w[i] - 10, (1 - 2 * 0.2 * 3) * (w0[i] - 10), 1e-12);
	free(w);
	free(w0);
	lbt_state_close(&st);
}

/* Measured ||w(t) - mean|| / ||w(t-1) - mean|| late in a run from random
 * loads: the slowest mode's |eigenvalue|, Cybenko's gamma. */
static double measured_factor(const char *shape, const char *alpha, int steps, double *gamma)
{
	lbt_setup set = {.shape = shape, .method = "fos", .init = "uniform:0:100", .isa = "scalar", .seed = 3,
	                 .threads = 1, .params = {{"alpha", alpha}}};
	lbt_state st;
	lbt_err e;
	cr_assert_eq(lbt_state_open(&st, &set, &e), LBT_OK, "%s", e.msg);
	int64_t P = lbt_shape_pes(&st.grid.shape);
	double prev = 0, now = 0;
	for (int t = 0; t < steps; t++) {
		lbt_counts k = {0};
		st.method->step(&st, &k);
		double *w = real_loads(&st);
		prev = now;
		now = norm_dev(w, P);
		free(w);
	}
	*gamma = st.method->gamma(&st);
	lbt_state_close(&st);
	return now / prev;
}

Test(cybenko1989, measured_convergence_factor_is_gamma)
{
	static const struct { const char *shape, *alpha; } cases[] = {
		{"8x8", "optimal"}, {"8x8", "boillat"}, {"16", "0.3"}, {"6x6x6", "optimal"}, {"12", "optimal"},
	};
	for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
		double gamma, f = measured_factor(cases[c].shape, cases[c].alpha, 120, &gamma);
		cr_expect(fabs(f - gamma) < 1e-6, "%s alpha %s: measured factor %.10f, gamma %.10f", cases[c].shape,
		          cases[c].alpha, f, gamma);
	}
}

/* alpha* = 2/(mu_min + mu_max): the two extreme modes decay alike; moving alpha
 * either way makes one of them slower: gamma rises, and from random loads a
 * run needs more steps to come within rel 1e-10 of uniform. */
static int64_t steps_to_rel(const char *shape, const char *alpha)
{
	lbt_setup set = {.shape = shape, .method = "fos", .init = "uniform:0:100", .isa = "scalar", .seed = 3,
	                 .threads = 1, .params = {{"alpha", alpha}}};
	lbt_run_opts o = lbt_run_opts_default(); o.until = (lbt_until){LBT_UNTIL_REL, 0, 1e-10}; o.max_steps = 100000;
	lbt_summary r;
	lbt_state st;
	lbt_err e;
	cr_assert_eq(lbt_state_open(&st, &set, &e), LBT_OK, "%s", e.msg);
	cr_assert_eq(lbt_run(&st, &o, &r, &e), LBT_OK, "%s", e.msg);
	cr_assert(r.reached);
	lbt_state_close(&st);
	return r.steps;
}

Test(cybenko1989, optimal_alpha_beats_nearby_values)
{
	static const char *shapes[] = {"8x8", "16", "6x6x6", "2x2x2x2x2"};
	for (size_t c = 0; c < sizeof shapes / sizeof *shapes; c++) {
		lbt_shape s;
		lbt_err e;
		cr_assert_eq(lbt_shape_parse(&s, shapes[c], &e), LBT_OK);
		double opt = lbt_alpha_optimal(&s), g_opt = lbt_gamma(&s, opt);
		int64_t n_opt = steps_to_rel(shapes[c], "optimal");
		static const double f[] = {0.8, 0.9, 0.95, 0.99, 1.01, 1.05, 1.1};
		for (int i = 0; i < 7; i++) {
			double a = opt * f[i];
			if (a > 1.0 / lbt_max_degree(&s))
				continue;
			cr_expect_gt(lbt_gamma(&s, a), g_opt, "%s: gamma(%.4f) not above gamma(alpha*) = %.6f", shapes[c], a, g_opt);
			if (f[i] == 0.99 || f[i] == 1.01)
				continue; /* gamma differs by < 1%: the transient decides a finite run */
			char text[32];
			snprintf(text, sizeof text, "%.17g", a);
			int64_t n = steps_to_rel(shapes[c], text);
			cr_expect_leq(n_opt, n, "%s: alpha* needs %lld steps to rel 1e-10, alpha = %.4f only %lld", shapes[c],
			              (long long)n_opt, a, (long long)n);
		}
	}
}

/* Seed 002 §3: the optimal alpha of the hypercube of dimension d is 1/(d+1);
 * on an even K-ary D-cube it is 1/(2D + 1 - cos(2 pi/K)), close to NNA's
 * 1/(2D+1); on a 2-D mesh 2/(mu_min+mu_max) > 1/4 is infeasible and the cap
 * 1/max_degree applies. */
Test(cybenko1989, optimal_alpha_closed_forms)
{
	lbt_shape s;
	lbt_err e;
	for (int d = 1; d <= 8; d++) {
		char shape[32] = "2";
		for (int i = 1; i < d; i++)
			strcat(shape, "x2");
		cr_assert_eq(lbt_shape_parse(&s, shape, &e), LBT_OK);
		cr_expect_float_eq(lbt_alpha_optimal(&s), 1.0 / (d + 1), 1e-15, "hypercube d = %d", d);
	}
	cr_assert_eq(lbt_shape_parse(&s, "16x16", &e), LBT_OK);
	cr_expect_float_eq(lbt_alpha_optimal(&s), 1 / (5 - cos(2 * M_PI / 16)), 1e-15);
	cr_assert_eq(lbt_shape_parse(&s, "16x16", &e), LBT_OK);
	cr_assert_eq(lbt_boundary_parse(&s, "mesh", &e), LBT_OK);
	cr_expect_float_eq(lbt_alpha_optimal(&s), 0.25, 1e-15);
}

static double inv_one_minus_sq(double mu, void *ctx)
{
	double l = 1 - *(double *)ctx * mu;
	return 1 / (1 - l * l);
}

/* `reproduce cybenko` runs the 9- and 10-cube (Table II goes to d = 10, a
 * shape to 8 axes) as tori of 4-rings: the 4-ring is the 2-cube, so a torus
 * of d/2 4-rings (and a 2-axis when d is odd) has the d-cube's Laplacian
 * spectrum 2k with multiplicity C(d, k) (by hand: the d-cube is the product
 * of d edges, each with spectrum {0, 2}). Then the optimal alpha is 1/(d+1)
 * and Theorem 2's exact sum is sum_k C(d,k) / (1 - (1 - 2k/(d+1))^2). */
Test(cybenko1989, four_rings_have_the_hypercube_spectrum)
{
	for (int d = 2; d <= 10; d++) {
		char shape[32] = "";
		for (int i = 0; i < d / 2; i++)
			strcat(shape, i ? "x4" : "4");
		if (d % 2)
			strcat(shape, "x2");
		lbt_shape s;
		lbt_err e;
		cr_assert_eq(lbt_shape_parse(&s, shape, &e), LBT_OK, "%s", shape);
		double alpha = lbt_alpha_optimal(&s), want = 0, binom = 1;
		cr_expect_float_eq(alpha, 1.0 / (d + 1), 1e-15, "%s", shape);
		for (int k = 1; k <= d; k++) {
			binom = binom * (d - k + 1) / k;
			double l = 1 - 2.0 * k / (d + 1);
			want += binom / (1 - l * l);
		}
		cr_expect_float_eq(lbt_spectrum_sum(&s, inv_one_minus_sq, &alpha), want, 1e-12 * want, "%s (d = %d)", shape, d);
	}
}

/* Integer flows: the total is exact and no load is ever negative, for every
 * alpha choice, on tori, meshes, hypercubes, D = 1..3. */
Test(conservation, fos_int_exact_and_non_negative)
{
	static const char *shapes[] = {"9", "2", "5x4", "3x3", "2x2x2", "4x3x5"};
	static const char *bnds[] = {"torus", "mesh"};
	static const char *alphas[] = {"optimal", "boillat", "0.25", "0.1"};
	static const char *inits[] = {"uniform:0:1", "uniform:0:50", "worst:5"};
	for (size_t a = 0; a < 6; a++)
		for (size_t b = 0; b < 2; b++)
			for (size_t al = 0; al < 4; al++)
				for (size_t c = 0; c < 3; c++) {
					lbt_setup set = {.shape = shapes[a], .boundary = bnds[b], .method = "fos-int", .init = inits[c],
					                 .isa = "scalar", .seed = 5, .threads = 1, .params = {{"alpha", alphas[al]}}};
					lbt_state st;
					lbt_err e;
					int status = lbt_state_open(&st, &set, &e);
					if (status == LBT_EINVAL && strstr(e.msg, "1/max_degree"))
						continue; /* 0.25 on a 3-D torus: refused, as it should be */
					cr_assert_eq(status, LBT_OK, "%s", e.msg);
					int64_t total = th_total(&st), P = lbt_shape_pes(&st.grid.shape);
					for (int t = 0; t < 30; t++) {
						lbt_counts k = {0};
						st.method->step(&st, &k);
						cr_assert_eq(th_total(&st), total, "%s %s alpha %s %s: total changed", shapes[a], bnds[b],
						             alphas[al], inits[c]);
						int32_t *L = th_loads(&st);
						for (int64_t i = 0; i < P; i++)
							cr_assert_geq(L[i], 0, "%s %s alpha %s %s: negative load", shapes[a], bnds[b], alphas[al],
							              inits[c]);
						free(L);
					}
					lbt_state_close(&st);
				}
}

/* Cybenko's constraint (b): an alpha above 1/max_degree is refused. */
Test(cli_params, alpha_above_one_over_degree_is_refused)
{
	lbt_setup set = {.shape = "8x8", .method = "fos", .init = "const:1", .isa = "scalar", .threads = 1, .params = {{"alpha", "0.3"}}};
	lbt_state st;
	lbt_err e;
	cr_expect_eq(lbt_state_open(&st, &set, &e), LBT_EINVAL);
	cr_expect(strstr(e.msg, "1/max_degree"), "%s", e.msg);
}

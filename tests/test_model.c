/* test_model.c — the model layer: shapes, the aligned padded grid and its
 * halo, initial loads and their overflow checks, .npy files, the
 * counter-based generator and the bounds of seed 000's Theorem 3. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "helpers.h"
#include "../kernels/internal.h" /* lbt_halo_fill */

Test(shape, numpy_order_and_bad_shapes)
{
	lbt_shape s;
	lbt_err e;
	cr_assert_eq(lbt_shape_parse(&s, "64x128", &e), LBT_OK);
	cr_assert(s.dims == 2 && s.ext[0] == 64 && s.ext[1] == 128 && s.bnd[0] == LBT_TORUS);
	cr_assert_eq(lbt_shape_parse(&s, "2x2x2x2x2x2x2x2", &e), LBT_OK);
	cr_assert_eq(s.dims, 8);
	static const char *bad[] = {"", "0x4", "4x0", "-3", "12xx3", "4x", "x4", "4y4", "2x2x2x2x2x2x2x2x2", "99999999999x99999999"};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
		cr_assert_eq(lbt_shape_parse(&s, bad[i], &e), LBT_EINVAL, "shape '%s' accepted", bad[i]);
	cr_assert_eq(lbt_shape_parse(&s, "4x1x6", &e), LBT_OK);
	cr_assert_eq(lbt_shape_active_dims(&s), 2);
	cr_assert_eq(lbt_boundary_parse(&s, "torus,mesh", &e), LBT_EINVAL, "3 axes, 2 boundaries");
	cr_assert_eq(lbt_boundary_parse(&s, "mesh,torus,mesh", &e), LBT_OK);
	cr_assert(s.bnd[0] == LBT_MESH && s.bnd[1] == LBT_TORUS && s.bnd[2] == LBT_MESH);
}

/* Loads from dense into g, then every axis's halo filled as a step does it. */
static void import_and_fill_halos(lbt_grid *g, const int32_t *dense)
{
	lbt_grid_import(g, dense);
	lbt_state st = {.grid = *g, .threads = 1};
	lbt_view v;
	lbt_state_view(&st, &v);
	for (int ax = 0; ax < g->shape.dims; ax++)
		lbt_halo_fill(&v, ax);
}

Test(grid, rows_are_aligned_and_halo_wraps)
{
	lbt_shape s;
	lbt_err e;
	lbt_shape_parse(&s, "3x5x7", &e);
	lbt_grid g;
	cr_assert_eq(lbt_grid_init(&g, &s, &e), LBT_OK);
	for (int64_t a = 0; a < 3; a++)
		for (int64_t b = 0; b < 5; b++) {
			int64_t c[3] = {a, b, 0};
			cr_assert_eq((uintptr_t)(g.load + lbt_grid_offset(&g, c)) % LBT_ALIGN, 0, "row (%lld,%lld) unaligned", (long long)a, (long long)b);
		}
	cr_assert_eq(g.stride[1] % 16, 0, "rows padded to whole 64-byte vectors");
	int32_t dense[105];
	for (int i = 0; i < 105; i++)
		dense[i] = i;
	import_and_fill_halos(&g, dense);
	/* axis 2 (n=7): cell -1 holds PE 6, cell -2 PE 5, cell 7 PE 0, cell 8 PE 1 */
	int32_t *row = g.load + g.stride[0] * 2 + g.stride[1] * 3; /* PE (2,3,0) = 2*35+3*7 = 91 */
	cr_assert(row[-1] == 97 && row[-2] == 96 && row[7] == 91 && row[8] == 92);
	/* axis 0 (n=3): halo layer -1 holds layer 2, layer 3 holds layer 0 */
	int32_t *p = g.load + g.stride[1] * 1 + 4; /* PE (0,1,4) = 11 */
	cr_assert(p[-g.stride[0]] == 81 && p[-2 * g.stride[0]] == 46 && p[3 * g.stride[0]] == 11 && p[4 * g.stride[0]] == 46);
	lbt_stats st2;
	lbt_grid_stats(&g, &st2);
	cr_assert(st2.max == 104 && st2.min == 0 && st2.total == 104 * 105 / 2 && st2.idle == 1);
	lbt_grid_free(&g);
}

/* The statistics walk a grid's rows in blocks of 256, each block's row
 * offsets carried axis by axis (no division per row), and square integer
 * loads in 64 bits when every |load| < 2^16, else flushing into 128 bits
 * before a wrap. Against the dense array summed here, exactly: 5x7x9x6 has
 * 315 rows of 6 (a block boundary inside axis 2, carries over axes 1 and
 * 0); loads i mod 97 (the 64-bit squares), then +-2e9 (4e18 a square: four
 * wrap 64 bits). P * var = sumsq - total^2 / P (grid.c's int_stddev). */
Test(grid, statistics_are_exact_over_blocks_of_rows)
{
	lbt_shape s;
	lbt_err e;
	cr_assert_eq(lbt_shape_parse(&s, "5x7x9x6", &e), LBT_OK);
	enum { P = 5 * 7 * 9 * 6 };
	static int32_t dense[P];
	for (int big = 0; big < 2; big++) {
		lbt_grid g;
		cr_assert_eq(lbt_grid_init(&g, &s, &e), LBT_OK);
		int64_t total = 0, idle = 0;
		int32_t mx = INT32_MIN, mn = INT32_MAX;
		unsigned __int128 sumsq = 0;
		for (int i = 0; i < P; i++) {
			dense[i] = big ? (i % 3 ? 2000000000 : -2000000000) + i : i % 97;
			total += dense[i];
			idle += dense[i] == 0;
			mx = dense[i] > mx ? dense[i] : mx;
			mn = dense[i] < mn ? dense[i] : mn;
			sumsq += (unsigned __int128)((int64_t)dense[i] * dense[i]);
		}
		lbt_grid_import(&g, dense);
		lbt_stats st;
		for (int threads = 1; threads <= 2; threads++) {
			lbt_field_stats(&g, &g.field[0], threads, &st);
			long double var = ((long double)sumsq - (long double)total * total / P) / P;
			cr_assert(st.total == total && st.idle == idle && st.max == mx && st.min == mn, "big %d: total %lld want %lld",
			          big, (long long)st.total, (long long)total);
			cr_assert_eq(st.stddev, (double)sqrtl(var), "big %d: stddev %.17g want %.17g", big, st.stddev,
			             (double)sqrtl(var));
		}
		lbt_grid_free(&g);
	}
}

/* Issue 14 item 12: an axis of extent 1 has no links, so the layout gives it
 * no halo (it multiplied the memory by 5 per such axis: 1x1x1x1x1x1x256x1024
 * took 16.7 GB). By hand: rows of round_up(16 + 1024 + 2, 16) = 1056 cells,
 * 256 + 2 * 2 of them on axis 6, one layer of each extent-1 axis. The
 * neighbours along such an axis read as the PE itself (stride 0), what a
 * torus's halo held; the halo fill leaves it alone. */
Test(grid, extent_one_axes_take_no_halo)
{
	lbt_shape s;
	lbt_err e;
	cr_assert_eq(lbt_shape_parse(&s, "1x1x1x1x1x1x256x1024", &e), LBT_OK);
	cr_assert_eq(lbt_grid_cells(&s), (int64_t)260 * 1056);
	cr_assert_eq(lbt_shape_parse(&s, "4x1x6", &e), LBT_OK);
	lbt_grid g;
	cr_assert_eq(lbt_grid_init(&g, &s, &e), LBT_OK);
	cr_assert_eq(g.cells, (4 + 4) * 32, "rows of 32 cells, a halo on axis 0 only");
	cr_assert(g.stride[1] == 0 && g.span[1] == 1 && g.stride[0] == 32);
	int32_t dense[24], back[24];
	for (int i = 0; i < 24; i++)
		dense[i] = 100 + i;
	import_and_fill_halos(&g, dense);
	lbt_grid_export(&g, back);
	cr_assert_arr_eq(dense, back, sizeof dense, "the fill of the extent-1 axis wrote over PEs");
	/* axis 0's halo: layer -1 holds layer 3 (PE (3,0,2) = 100 + 3*6 + 2) */
	cr_assert_eq(g.load[2 - g.stride[0]], 120);
	lbt_grid_free(&g);
}

/* A per-PE field added by name (here a float64 "speed") has load's layout:
 * the same cell offsets, every row 64-byte aligned; the whole-field
 * operations (dense import/export, statistics, copy, first difference) see
 * it without code of their own. */
Test(grid, named_fields_share_the_layout)
{
	lbt_shape s;
	lbt_err e;
	cr_assert_eq(lbt_shape_parse(&s, "3x5x7", &e), LBT_OK);
	lbt_grid g, h;
	cr_assert_eq(lbt_grid_init(&g, &s, &e), LBT_OK);
	cr_assert_eq(lbt_grid_init(&h, &s, &e), LBT_OK);
	cr_assert_eq(lbt_grid_add_field(&g, "speed", LBT_F64, &e), LBT_OK, "%s", e.msg);
	cr_assert_eq(lbt_grid_add_field(&h, "speed", LBT_F64, &e), LBT_OK, "%s", e.msg);
	cr_assert_eq(lbt_grid_add_field(&g, "speed", LBT_I32, &e), LBT_EINVAL, "a name has one type");
	const lbt_field *f = lbt_grid_field(&g, "speed");
	cr_assert(f && f->type == LBT_F64 && !lbt_grid_field(&g, "real"));
	const double *sp = f->pe0;
	for (int a = 0; a < 3; a++)
		for (int b = 0; b < 5; b++) {
			int64_t c[3] = {a, b, 0};
			cr_assert_eq((uintptr_t)(sp + lbt_grid_offset(&g, c)) % LBT_ALIGN, 0, "speed row (%d,%d) unaligned", a, b);
		}
	double dense[105], back[105];
	for (int i = 0; i < 105; i++)
		dense[i] = 0.5 * i;
	lbt_field_import(&g, f, dense);
	int64_t c[3] = {2, 3, 4}; /* PE 2*35 + 3*7 + 4 = 95 */
	cr_assert_eq(sp[lbt_grid_offset(&g, c)], 47.5);
	lbt_field_export(&g, f, back);
	cr_assert(!memcmp(dense, back, sizeof dense));
	lbt_stats st;
	lbt_field_stats(&g, f, 2, &st);
	cr_assert(st.max == 52 && st.min == 0 && st.rtotal == 0.5 * 104 * 105 / 2 && st.idle == 1);
	cr_assert_eq(lbt_grid_first_diff(&g, &h), 1, "the speed fields differ first at PE 1 (PE 0 is 0 in both)");
	lbt_grid_copy(&h, &g);
	cr_assert_eq(lbt_grid_first_diff(&g, &h), -1);
	lbt_grid_free(&g);
	lbt_grid_free(&h);
}

Test(init, specs_and_overflow)
{
	lbt_init in;
	lbt_err e;
	cr_assert_eq(lbt_init_parse(&in, "worst:5", &e), LBT_OK);
	cr_assert_eq(lbt_init_parse(&in, "uniform:0:100", &e), LBT_OK);
	static const char *bad[] = {"worst", "worst:-1", "worst:x", "uniform:5", "uniform:9:3", "nope:3", "point:", "file:"};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
		cr_assert_neq(lbt_init_parse(&in, bad[i], &e), LBT_OK, "init '%s' accepted", bad[i]);
	lbt_state st;
	/* worst:C puts C*P on one PE: 2^31 does not fit in int32. */
	lbt_shape s;
	lbt_shape_parse(&s, "1024x1024", &e);
	lbt_grid g;
	lbt_grid_init(&g, &s, &e);
	lbt_init_parse(&in, "worst:2048", &e);
	cr_assert_eq(lbt_init_apply(&in, &g, 1, NULL, &e), LBT_ERANGE, "C*P = 2^31 must be refused");
	cr_assert(strstr(e.msg, "int32"), "message names the limit: %s", e.msg);
	lbt_init_parse(&in, "worst:2047", &e);
	cr_assert_eq(lbt_init_apply(&in, &g, 1, NULL, &e), LBT_OK);
	lbt_grid_free(&g);
	/* uniform is reproducible and within [LO, HI] */
	th_open(&st, "13x17", NULL, NULL, "uniform:3:9", NULL);
	int32_t *a = th_loads(&st);
	lbt_state st2;
	th_open(&st2, "13x17", NULL, NULL, "uniform:3:9", NULL);
	int32_t *b = th_loads(&st2);
	int seen[10] = {0};
	for (int i = 0; i < 13 * 17; i++) {
		cr_assert_eq(a[i], b[i]);
		cr_assert(a[i] >= 3 && a[i] <= 9);
		seen[a[i]] = 1;
	}
	for (int v = 3; v <= 9; v++)
		cr_assert(seen[v], "value %d never drawn in 221 draws", v);
	free(a); free(b);
	lbt_state_close(&st);
	lbt_state_close(&st2);
}

Test(npy, roundtrip_int32_and_read_int64)
{
	char dir[64], path[128], p64[128];
	th_tmpdir(dir, sizeof dir);
	snprintf(path, sizeof path, "%s/a.npy", dir);
	snprintf(p64, sizeof p64, "%s/b.npy", dir);
	lbt_shape s;
	lbt_err e;
	lbt_shape_parse(&s, "3x4", &e);
	int32_t data[12], back[12];
	for (int i = 0; i < 12; i++)
		data[i] = i * 1000 - 1;
	data[5] = INT32_MAX;
	cr_assert_eq(lbt_npy_write(path, &s, data, &e), LBT_OK, "%s", e.msg);
	cr_assert_eq(lbt_npy_read(path, &s, back, &e), LBT_OK, "%s", e.msg);
	cr_assert_arr_eq(data, back, sizeof data);
	lbt_shape s2;
	cr_assert_eq(lbt_npy_shape(path, &s2, &e), LBT_OK);
	cr_assert(s2.dims == 2 && s2.ext[0] == 3 && s2.ext[1] == 4);
	/* A hand-written int64 file, as numpy.save(np.arange(4, dtype='<i8')) writes it. */
	FILE *f = fopen(p64, "wb");
	const char hdr[] = "{'descr': '<i8', 'fortran_order': False, 'shape': (4,), }";
	char pad[118];
	memset(pad, ' ', sizeof pad);
	fwrite("\x93NUMPY\x01\x00\x76\x00", 1, 10, f);
	fwrite(hdr, 1, strlen(hdr), f);
	fwrite(pad, 1, 118 - 1 - strlen(hdr), f);
	fputc('\n', f);
	int64_t v[4] = {7, 0, 1, 5000000000LL};
	fwrite(v, 8, 4, f);
	fclose(f);
	lbt_shape_parse(&s, "4", &e);
	int32_t out[4];
	cr_assert_eq(lbt_npy_read(p64, &s, out, &e), LBT_ERANGE, "5e9 does not fit in int32");
	lbt_shape_parse(&s, "2x2", &e);
	cr_assert_eq(lbt_npy_read(p64, &s, out, &e), LBT_EINVAL, "shape (4,) is not 2x2");
	cr_assert(strstr(e.msg, "shape"), "%s", e.msg);
	unlink(path);
	unlink(p64);
	rmdir(dir);
}

Test(rng, counter_based_is_a_pure_function)
{
	cr_assert_eq(lbt_rand(1, 2, 3, 4), lbt_rand(1, 2, 3, 4));
	cr_assert_neq(lbt_rand(1, 2, 3, 4), lbt_rand(1, 2, 3, 5));
	cr_assert_neq(lbt_rand(1, 2, 3, 4), lbt_rand(1, 2, 4, 4));
	cr_assert_neq(lbt_rand(1, 2, 3, 4), lbt_rand(1, 3, 3, 4));
	cr_assert_neq(lbt_rand(1, 2, 3, 4), lbt_rand(2, 2, 3, 4));
	/* the mean of 100000 draws in [0, 100] is 50 within 0.5 (sd of mean ~0.09) */
	double m = 0;
	for (int i = 0; i < 100000; i++)
		m += (double)lbt_rand_range(lbt_rand(9, 0, (uint64_t)i, 1), 0, 100);
	cr_assert_float_eq(m / 100000, 50.0, 0.5);
}

/* Theorem 3's scale and the trivial lower bound, by hand:
 * 128x128, worst:5: Lmax = 81920, mean 5, D = 2, K = 128, Ldiff = 81920.
 * D*K*Ldiff = 2*128*81920 = 20971520; ceil((81920 - 5)/2) = ceil(40957.5) = 40958.
 * Ring of 8, point:16: ceil((16 - 2)/1) = 14; 3x3 const:4: 0. */
Test(bounds, hand_checked)
{
	lbt_shape s;
	lbt_err e;
	lbt_shape_parse(&s, "128x128", &e);
	cr_assert_eq(lbt_bound_dkl(&s, 81920), 20971520);
	cr_assert_eq(lbt_bound_lower_steps(&s, 81920, 81920), 40958);
	lbt_shape_parse(&s, "8", &e);
	cr_assert_eq(lbt_bound_lower_steps(&s, 16, 16), 14);
	lbt_shape_parse(&s, "3x3", &e);
	cr_assert_eq(lbt_bound_lower_steps(&s, 4, 36), 0);
	lbt_shape_parse(&s, "1x8x1", &e);
	cr_assert_eq(lbt_bound_dkl(&s, 10), 80, "D counts only axes with links");
}

/* A file with a negative load before an int64 load beyond int32: a sweep's
 * plan (lbt_init_check_values, which reads the file in pieces) and a run
 * (lbt_init_apply, which reads a grid's block) name the same value — the
 * conversion, checked for every value before any sign — and a file whose
 * only fault is the negative load is named by its flat index. */
Test(model, a_file_bad_twice_is_named_alike_by_the_plan_and_the_run)
{
	char dir[64], path[128], init[160];
	th_tmpdir(dir, sizeof dir);
	snprintf(path, sizeof path, "%s/bad.npy", dir);
	snprintf(init, sizeof init, "file:%s", path);
	static const char hdr[] = "{'descr': '<i8', 'fortran_order': False, 'shape': (2, 4), }";
	for (int both = 0; both < 2; both++) {
		int64_t v[8] = {3, -2, 0, 1, 4, 4, both ? (int64_t)1 << 33 : 9, 0};
		th_write_npy(path, 1, hdr, 0, v, sizeof v);
		const char *want = both ? "load 8589934592 at flat index 6 does not fit in int32" : "load -2 at flat index 1 is negative";
		lbt_init in;
		lbt_shape s;
		lbt_err e;
		cr_assert_eq(lbt_init_parse(&in, init, &e), LBT_OK, "%s", e.msg);
		cr_assert_eq(lbt_shape_parse(&s, "2x4", &e), LBT_OK, "%s", e.msg);
		cr_assert_neq(lbt_init_check_values(&in, &s, &e), LBT_OK);
		cr_assert(strstr(e.msg, want), "the plan: %s", e.msg);
		lbt_setup set = {.shape = "2x4", .method = "lm-c5", .init = init, .threads = 1};
		lbt_state st;
		cr_assert_neq(lbt_state_open(&st, &set, &e), LBT_OK);
		cr_assert(strstr(e.msg, want), "the run: %s", e.msg);
	}
	th_rm_tree(dir);
}

/* test_comm.c — a torus cut between ranks (src/comm/, lbt_cut) gives one
 * process's bits. On one process a cut is one slab whose halo the comm
 * layer fills from itself: every code path of a distributed run (the
 * kernels' global coordinates and held-PE counting, the reducer of maxima
 * and real partial sums, the statistics, the gather) runs, in every build,
 * and must equal the serial run step by step — every step's record, the
 * summary and the final loads, for every local method on awkward shapes,
 * torus and mesh, D = 1..4. Under MPI, tests/mpi_identity.py checks 1..4 ranks. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"
#include "comm/comm.h" /* the slab arithmetic */

#define MAX_STEPS 40

typedef struct {
	int n;
	lbt_step_record r[MAX_STEPS + 1];
} steps;

static void keep(void *ctx, const lbt_step_record *r)
{
	steps *s = ctx;
	if (s->n <= MAX_STEPS)
		s->r[s->n++] = *r;
}

/* Run shape/boundary/method/init on one process, cut or not, on the
 * kernels of isa (NULL: the best this CPU runs); the steps, the summary
 * and the final field (dense, caller frees). */
static void *run(int cut, const char *isa, const char *shape, const char *bnd, const char *method, const char *init, const char *until,
                 steps *st, lbt_summary *sum, size_t *bytes)
{
	lbt_setup set = {.shape = shape, .boundary = bnd, .method = method, .init = init, .isa = isa, .seed = 7,
	                 .threads = 2, .cut = cut};
	lbt_state s;
	lbt_err e;
	cr_assert_eq(lbt_state_open(&s, &set, &e), LBT_OK, "%s", e.msg);
	cr_assert_eq(s.grid.cut != NULL, cut);
	lbt_run_opts o = lbt_run_opts_default();
	cr_assert_eq(lbt_until_parse(&o.until, until, &e), LBT_OK, "%s", e.msg);
	o.max_steps = MAX_STEPS;
	o.full_stats = 1;
	o.on_step = keep;
	o.ctx = st;
	st->n = 0;
	cr_assert_eq(lbt_run(&s, &o, sum, &e), LBT_OK, "%s", e.msg);
	const lbt_field *f = lbt_grid_field(&s.grid, s.method->load == LBT_LOAD_REAL ? "real" : "load");
	*bytes = (size_t)lbt_shape_pes(&s.grid.whole) * lbt_type_size(f->type);
	void *dense = malloc(*bytes);
	cr_assert_eq(lbt_field_gather(&s.grid, f, dense, &e), LBT_OK, "%s", e.msg);
	lbt_state_close(&s);
	return dense;
}

static void same_as_serial_on(const char *shape, const char *bnd, const char *method, const char *init,
                              const char *until, const char *isa)
{
	static steps a, b;
	lbt_summary sa, sb;
	size_t na, nb;
	void *da = run(0, NULL, shape, bnd, method, init, until, &a, &sa, &na);
	void *db = run(1, isa, shape, bnd, method, init, until, &b, &sb, &nb);
	cr_assert_eq(a.n, b.n, "%s %s %s: %d steps serial, %d cut (isa %s)", method, shape, bnd, a.n, b.n, isa);
	for (int i = 0; i < a.n; i++)
		cr_assert(!memcmp(&a.r[i], &b.r[i], sizeof a.r[i]), "%s %s %s %s: step %lld's record differs (moved %.17g / %.17g, "
		          "shifts %.17g / %.17g, stddev %.17g / %.17g)", method, shape, bnd, init, (long long)a.r[i].step,
		          a.r[i].moved, b.r[i].moved, a.r[i].shifts, b.r[i].shifts, a.r[i].stddev, b.r[i].stddev);
	sa.seconds = sb.seconds = 0;
	cr_assert(!memcmp(&sa, &sb, sizeof sa), "%s %s %s: the summaries differ", method, shape, bnd);
	cr_assert(na == nb && !memcmp(da, db, na), "%s %s %s: the final loads differ", method, shape, bnd);
	free(da);
	free(db);
}

static void same_as_serial(const char *shape, const char *bnd, const char *method, const char *init, const char *until)
{
	same_as_serial_on(shape, bnd, method, init, until, "scalar");
	same_as_serial_on(shape, bnd, method, init, until, NULL);
}

static const char *const methods[] = {"lm-c0", "lm-c1", "lm-c2", "lm-c3", "lm-c4", "lm-c5", "nna", "nna-def",
                                      "fos", "fos-int", "de", "de-int", "ca", NULL};

Test(comm, one_slab_equals_one_process_for_every_method)
{
	static const char *const shapes[] = {"7x5", "10", "3x4x5", "2x3x2x3", "1x5x3", "4x1x6", "2", "1x1x6", NULL};
	for (const char *const *m = methods; *m; m++)
		for (const char *const *s = shapes; *s; s++) {
			same_as_serial(*s, "torus", *m, "uniform:0:9", "steps:12");
			same_as_serial(*s, "mesh", *m, "uniform:0:9", "steps:12");
		}
}

/* The fused Liquid-model kernel rolls a cut block like a thread's range:
 * on every ISA this CPU runs, rows of whole vectors or not, and with two
 * threads inside the block (a big enough torus). */
Test(comm, vector_lm_on_a_slab)
{
	static const char *const shapes[] = {"5x16", "3x4x16", "4x8", "7x5x32", "2x3x2x48", NULL};
	for (const char *const *isa = lbt_isa_compiled(); *isa; isa++) {
		if (!lbt_isa_supported(*isa))
			continue;
		for (int c = 0; c < 6; c++) {
			char m[8];
			snprintf(m, sizeof m, "lm-c%d", c);
			for (const char *const *s = shapes; *s; s++) {
				same_as_serial_on(*s, "torus", m, "uniform:0:5", "steps:6", *isa);
				same_as_serial_on(*s, "mesh", m, "uniform:0:5", "steps:6", *isa);
			}
		}
	}
	/* 147456 PEs: two threads share the block */
	same_as_serial_on("9x16384", "torus", "lm-c5", "uniform:0:5", "steps:3", NULL);
	same_as_serial_on("9x16384", "mesh", "lm-c2", "uniform:0:5", "steps:3", NULL);
}

Test(comm, one_slab_equals_one_process_until_balanced)
{
	for (const char *const *m = methods; *m; m++) {
		same_as_serial("6x5", "torus,mesh", *m, "worst:3", "balanced");
		same_as_serial("9", "mesh", *m, "half:4", "balanced");
	}
}

/* A method whose kernels do not take cut views (LBT_M_CUT), and --speeds,
 * are refused on a cut torus, with one message. */
Test(comm, methods_without_cut_kernels_refuse)
{
	for (const lbt_method *const *m = lbt_methods(); *m; m++) {
		lbt_setup set = {.shape = "6x5", .method = (*m)->name, .init = "uniform:0:9", .seed = 1, .threads = 1, .cut = 1};
		lbt_state s;
		lbt_err e;
		int st = lbt_state_open(&s, &set, &e);
		if ((*m)->flags & LBT_M_CUT) {
			cr_assert_eq(st, LBT_OK, "%s: %s", (*m)->name, e.msg);
			lbt_state_close(&s);
		} else
			cr_assert(st == LBT_EINVAL && strstr(e.msg, "runs on one process only"), "%s: %d %s", (*m)->name, st, e.msg);
	}
	lbt_setup set = {.shape = "6x5", .method = "lm-c5", .speeds = "const:2", .seed = 1, .threads = 1, .cut = 1};
	lbt_state s;
	lbt_err e;
	cr_assert_eq(lbt_state_open(&s, &set, &e), LBT_EINVAL);
	cr_assert(strstr(e.msg, "--speeds"), "%s", e.msg);
}

/* Slabs: uneven ones hold one layer more on the first ranks; every layer
 * has one owner; an extent below the rank count cannot be cut. */
Test(comm, slabs)
{
	for (int64_t n = 1; n < 40; n++)
		for (int R = 1; R <= n && R < 9; R++) {
			int64_t next = 0;
			for (int r = 0; r < R; r++) {
				int64_t lo, len;
				lbt_comm_slab(n, R, r, &lo, &len);
				cr_assert(lo == next && len >= n / R && len <= n / R + 1);
				for (int64_t i = lo; i < lo + len; i++)
					cr_assert_eq(lbt_comm_owner(n, R, i), r);
				next = lo + len;
			}
			cr_assert_eq(next, n);
		}
}

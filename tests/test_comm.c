/* test_comm.c — a torus cut between ranks (src/comm/, lbt_cut) gives one
 * process's bits. On one process a cut is one slab whose halo the comm
 * layer fills from itself: every code path of a distributed run (the
 * kernels' global coordinates and held-PE counting, the reducer of maxima
 * and real partial sums, the statistics, the gather) runs, in every build,
 * and must equal the serial run step by step — every step's record, the
 * summary and the final loads, for every local method on awkward shapes,
 * torus and mesh, D = 1..4, with and without a workload (issue 12). A
 * slab that is not the first is checked in every build too: a workload's
 * phase on slabs made by hand at their global offsets gives one process's
 * loads and counters. Under MPI, tests/mpi_identity.py checks 1..4 ranks. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"
#include "comm/comm.h" /* the slab arithmetic */

#define MAX_STEPS 200

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

/* Run shape/boundary/method/init (and the workload spec wl, if not NULL)
 * on one process, cut (with a halo for `cut` steps between exchanges) or
 * not (0), on the kernels of isa (NULL: the best this CPU runs), with the
 * statistics of every step measured on the grid (full) or taken from the
 * kernel (then the Liquid model takes several steps a call); the steps,
 * the summary and the final field (dense, caller frees). */
static void *run_full(int cut, int full, const char *isa, const char *shape, const char *bnd, const char *method,
                      const char *init, const char *until, const char *wl, steps *st, lbt_summary *sum, size_t *bytes)
{
	lbt_setup set = {.shape = shape, .boundary = bnd, .method = method, .init = init, .isa = isa, .seed = 7,
	                 .threads = 2, .cut = cut};
	lbt_state s;
	lbt_err e;
	cr_assert_eq(lbt_state_open(&s, &set, &e), LBT_OK, "%s", e.msg);
	cr_assert_eq(s.grid.cut != NULL, cut != 0);
	lbt_run_opts o = lbt_run_opts_default();
	cr_assert_eq(lbt_until_parse(&o.until, until, &e), LBT_OK, "%s", e.msg);
	o.max_steps = MAX_STEPS;
	o.full_stats = full;
	o.batch = !full; /* several steps a call where the method can (on_step still sees every step) */
	static lbt_workload w; /* the options point at it during the run */
	if (wl) {
		cr_assert_eq(lbt_workload_parse(&w, wl, s.method->load, &e), LBT_OK, "%s", e.msg);
		o.workload = &w;
	}
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

static void *run(int cut, const char *isa, const char *shape, const char *bnd, const char *method, const char *init,
                 const char *until, const char *wl, steps *st, lbt_summary *sum, size_t *bytes)
{
	return run_full(cut, 1, isa, shape, bnd, method, init, until, wl, st, sum, bytes);
}

static void same_as_serial_wl(const char *shape, const char *bnd, const char *method, const char *init,
                              const char *until, const char *isa, const char *wl)
{
	static steps a, b;
	lbt_summary sa, sb;
	size_t na, nb;
	void *da = run(0, NULL, shape, bnd, method, init, until, wl, &a, &sa, &na);
	void *db = run(1, isa, shape, bnd, method, init, until, wl, &b, &sb, &nb);
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

static void same_as_serial_on(const char *shape, const char *bnd, const char *method, const char *init,
                              const char *until, const char *isa)
{
	same_as_serial_wl(shape, bnd, method, init, until, isa, NULL);
}

static void same_as_serial(const char *shape, const char *bnd, const char *method, const char *init, const char *until)
{
	same_as_serial_on(shape, bnd, method, init, until, "scalar");
	same_as_serial_on(shape, bnd, method, init, until, NULL);
}

/* The methods of the registry whose kernels take cut views (LBT_M_CUT). */
#define FOR_CUT_METHODS(m) \
	for (const lbt_method *const *m = lbt_methods(); *m; m++) \
		if ((*m)->flags & LBT_M_CUT)

Test(comm, one_slab_equals_one_process_for_every_method)
{
	static const char *const shapes[] = {"7x5", "10", "3x4x5", "2x3x2x3", "1x5x3", "4x1x6", "2", "1x1x6", NULL};
	FOR_CUT_METHODS(m)
		for (const char *const *s = shapes; *s; s++) {
			same_as_serial(*s, "torus", (*m)->name, "uniform:0:9", "steps:12");
			same_as_serial(*s, "mesh", (*m)->name, "uniform:0:9", "steps:12");
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

/* Deep halos (issue 28): with a halo for k steps between exchanges, the
 * Liquid model's vector kernel steps a cut block and a shrinking part of
 * its halo k times a call, counting the block's PEs only; every step's
 * record, the summary and the loads equal one process's, uncut, on every
 * ISA this CPU runs: tori and meshes, 2-D and 3-D, rows of whole vectors
 * or not, a torus shorter than the halo, two threads in the block, byte-
 * and int32-sized loads, runs of a fixed number of steps (several steps a
 * call) and to balanced (one step a call, the deep halo filled two layers
 * deep). */
Test(comm, deep_halos_equal_one_process)
{
	static const char *const shapes[] = {"9x16", "5x21", "3x4x16", "6x5x7", "2x64", "20x8", NULL};
	static const char *const inits[] = {"uniform:0:9", "uniform:0:100000", "worst:3", NULL};
	static const int halos[] = {1, 2, 8};
	static steps a, b;
	for (const char *const *isa = lbt_isa_compiled(); *isa; isa++) {
		if (!lbt_isa_supported(*isa))
			continue;
		for (const char *const *sh = shapes; *sh; sh++)
			for (const char *const *in = inits; *in; in++)
				for (int h = 0; h < 3; h++)
					for (int mesh = 0; mesh < 2; mesh++) {
						const char *bnd = mesh ? "mesh" : "torus", *m = mesh ? "lm-c2" : "lm-c5";
						const char *until = h == 1 && mesh ? "balanced" : "steps:37";
						lbt_summary sa, sb;
						size_t na, nb;
						void *da = run_full(0, 0, *isa, *sh, bnd, m, *in, until, NULL, &a, &sa, &na);
						void *db = run_full(halos[h], 0, *isa, *sh, bnd, m, *in, until, NULL, &b, &sb, &nb);
						cr_assert_eq(a.n, b.n, "%s %s %s halo %d (%s): %d steps serial, %d cut", m, *sh, *in, halos[h],
						             *isa, a.n, b.n);
						for (int i = 0; i < a.n; i++)
							cr_assert(!memcmp(&a.r[i], &b.r[i], sizeof a.r[i]), "%s %s %s %s halo %d (%s): step %lld's "
							          "record differs (moved %.17g / %.17g, max %.17g / %.17g)", m, *sh, bnd, *in,
							          halos[h], *isa, (long long)a.r[i].step, a.r[i].moved, b.r[i].moved, a.r[i].max,
							          b.r[i].max);
						sa.seconds = sb.seconds = 0;
						cr_assert(!memcmp(&sa, &sb, sizeof sa), "%s %s %s %s halo %d (%s): the summaries differ", m, *sh,
						          bnd, *in, halos[h], *isa);
						cr_assert(na == nb && !memcmp(da, db, na), "%s %s %s %s halo %d (%s): the final loads differ", m,
						          *sh, bnd, *in, halos[h], *isa);
						free(da);
						free(db);
					}
	}
	/* 147456 PEs: two threads share the block and its halo */
	for (int h = 0; h < 3; h++) {
		lbt_summary sa, sb;
		size_t na, nb;
		void *da = run_full(0, 0, NULL, "9x16384", "torus", "lm-c5", "uniform:0:5", "steps:9", NULL, &a, &sa, &na);
		void *db = run_full(halos[h], 0, NULL, "9x16384", "torus", "lm-c5", "uniform:0:5", "steps:9", NULL, &b, &sb, &nb);
		cr_assert(a.n == b.n && !memcmp(a.r, b.r, (size_t)a.n * sizeof a.r[0]), "9x16384 halo %d: the records differ",
		          halos[h]);
		cr_assert(na == nb && !memcmp(da, db, na), "9x16384 halo %d: the final loads differ", halos[h]);
		free(da);
		free(db);
	}
}

Test(comm, one_slab_equals_one_process_until_balanced)
{
	FOR_CUT_METHODS(m) {
		same_as_serial("6x5", "torus,mesh", (*m)->name, "worst:3", "balanced");
		same_as_serial("9", "mesh", (*m)->name, "half:4", "balanced");
	}
}

/* A method of the registry that runs cut, on loads of kind `load`, taken
 * in turn (the k-th such); NULL if none. */
static const lbt_method *cut_method(lbt_load_kind load, int k)
{
	int n = 0;
	FOR_CUT_METHODS(m)
		n += (*m)->load == load;
	FOR_CUT_METHODS(m)
		if ((*m)->load == load && k-- % n == 0)
			return *m;
	return NULL;
}

/* Every distribution of Cybenko's arrivals, beyond the registry's example
 * (the integer row kernels and the real-valued path). */
static const char *const cybenko_int[] = {"cybenko:poisson:1.5:1", "cybenko:uniform:0:3:1", "cybenko:bernoulli:0.4:1", NULL};
static const char *const cybenko_real[] = {"cybenko:exp:1:1", "cybenko:normal:1:0.5:1", "cybenko:exp:2:1.5", NULL};

/* One workload spec on a cut torus: one process's records (generated,
 * completed, idle capacity, sqdev among them), summary and final loads,
 * and the conservation law exactly (the engine checks total after =
 * before + generated - completed every step and stops with an error if
 * not; checked here once more on the last record). A search tree runs
 * until no node is left. */
static void workload_as_serial(const char *method, const char *wl, int tasks)
{
	static const char *const shapes[] = {"7x5", "10", "3x4x5", "1x6x3", "2", NULL};
	const char *init = tasks ? "const:0" : "uniform:0:9", *until = tasks ? "done" : "steps:20";
	for (const char *const *sh = shapes; *sh; sh++)
		for (int mesh = 0; mesh < 2; mesh++) {
			const char *bnd = mesh ? "mesh" : "torus";
			same_as_serial_wl(*sh, bnd, method, init, until, NULL, wl);
			static steps a;
			lbt_summary s;
			size_t n;
			free(run(1, NULL, *sh, bnd, method, init, until, wl, &a, &s, &n));
			const lbt_step_record *last = &a.r[a.n - 1];
			if (!s.real)
				cr_assert_eq((int64_t)last->total, (int64_t)(s.total + s.generated - s.completed),
				             "%s %s %s: total %.17g after %.17g + %.17g - %.17g", wl, *sh, bnd, last->total, s.total,
				             s.generated, s.completed);
			if (tasks)
				cr_assert(s.reached && last->total == 0, "%s with %s on %s %s: nodes left", wl, method, *sh, bnd);
		}
}

/* Issue 12, "with and without a workload": every workload of the registry
 * (its example), with methods of each kind of loads it takes, taken in
 * turn; and every distribution of Cybenko's arrivals. */
Test(comm, one_slab_equals_one_process_with_a_workload)
{
	int turn[2] = {0, 0};
	for (const lbt_workload *const *w = lbt_workloads(); *w; w++)
		for (int load = LBT_LOAD_INT; load <= LBT_LOAD_REAL; load++) {
			lbt_workload x;
			lbt_err e;
			if (lbt_workload_parse(&x, (*w)->example, (lbt_load_kind)load, &e))
				continue; /* not on these loads */
			for (int k = 0; k < 2; k++)
				workload_as_serial(cut_method((lbt_load_kind)load, turn[load]++)->name, (*w)->example, (*w)->tasks);
		}
	for (int k = 0; cybenko_int[k]; k++)
		workload_as_serial(cut_method(LBT_LOAD_INT, k)->name, cybenko_int[k], 0);
	for (int k = 0; cybenko_real[k]; k++)
		workload_as_serial(cut_method(LBT_LOAD_REAL, k)->name, cybenko_real[k], 0);
}

/* A slab that is not the first, in every build (th_workload_on_blocks: the
 * slabs' loads and counters are one process's). (tests/test_contract.c
 * checks every workload of the registry so, on every method that runs cut.) */
static void slabs_draw_as_one(const char *whole, const int64_t *layers, int nslabs, const char *method, const char *spec)
{
	const lbt_setup set = {.shape = whole, .method = method, .init = "uniform:0:4", .seed = 3, .threads = 2};
	lbt_shape sh;
	cr_assert_eq(lbt_shape_parse(&sh, whole, NULL), LBT_OK);
	int first = 0, nr[LBT_MAXD];
	while (first < sh.dims - 1 && sh.ext[first] < 2)
		first++;
	int64_t l[LBT_MAXD][4] = {{0}};
	for (int d = 0; d < sh.dims; d++)
		nr[d] = d == first ? nslabs : 1;
	memcpy(l[first], layers, (size_t)nslabs * sizeof *layers);
	th_workload_on_blocks(&set, spec, nr, l);
}

Test(comm, a_slab_draws_with_its_global_indices)
{
	const int64_t l7[] = {2, 3, 2}, l10[] = {4, 6}, l9[] = {1, 5, 3};
	for (int k = 0; cybenko_int[k]; k++) {
		slabs_draw_as_one("7x5", l7, 3, cut_method(LBT_LOAD_INT, k)->name, cybenko_int[k]);
		slabs_draw_as_one("10", l10, 2, cut_method(LBT_LOAD_INT, k + 1)->name, cybenko_int[k]);
		slabs_draw_as_one("1x9x4", l9, 3, cut_method(LBT_LOAD_INT, k + 2)->name, cybenko_int[k]);
	}
	int k = 0; /* every workload of the registry with a phase that draws (a search starts on an empty machine) */
	for (const lbt_workload *const *w = lbt_workloads(); *w; w++)
		if ((*w)->open_spec && !(*w)->tasks) {
			slabs_draw_as_one("7x5", l7, 3, cut_method(LBT_LOAD_INT, k++)->name, (*w)->example);
			slabs_draw_as_one("1x9x4", l9, 3, cut_method(LBT_LOAD_INT, k++)->name, (*w)->example);
		}
	for (k = 0; cybenko_real[k]; k++) {
		slabs_draw_as_one("7x5", l7, 3, cut_method(LBT_LOAD_REAL, k)->name, cybenko_real[k]);
		slabs_draw_as_one("1x9x4", l9, 3, cut_method(LBT_LOAD_REAL, k + 1)->name, cybenko_real[k]);
	}
}

/* A block cut along two axes draws with its rows' global indices (the
 * last axis cut too: a row's PEs on two blocks). */
Test(comm, a_block_draws_with_its_global_indices)
{
	static const int nr7[] = {2, 2}, nr9[] = {1, 2, 2};
	static const int64_t l7[LBT_MAXD][4] = {{4, 3}, {2, 3}}, l9[LBT_MAXD][4] = {{1}, {5, 4}, {1, 3}};
	int k = 0;
	for (const lbt_workload *const *w = lbt_workloads(); *w; w++)
		if ((*w)->open_spec && !(*w)->tasks)
			for (int load = LBT_LOAD_INT; load <= LBT_LOAD_REAL; load++) {
				lbt_workload x;
				lbt_err e;
				if (lbt_workload_parse(&x, (*w)->example, (lbt_load_kind)load, &e))
					continue;
				const char *m = cut_method((lbt_load_kind)load, k++)->name;
				const lbt_setup s7 = {.shape = "7x5", .method = m, .init = "uniform:0:4", .seed = 3, .threads = 2};
				const lbt_setup s9 = {.shape = "1x9x4", .method = m, .init = "uniform:0:4", .seed = 3, .threads = 2};
				th_workload_on_blocks(&s7, (*w)->example, nr7, l7);
				th_workload_on_blocks(&s9, (*w)->example, nr9, l9);
			}
}

/* The grid of ranks: by default the one whose blocks exchange the least
 * halo (worked out by hand: per cut axis 2 x 2 layers of the block's face,
 * the faces of later axes spanning the earlier cut axes' halo), slabs when
 * that is least, the last axis whole unless no grid leaves it so; --ranks as given, unless its product is not the rank
 * count or it cuts an axis into more blocks than layers. */
Test(comm, grid_of_ranks)
{
	static const struct {
		int R, D;
		int64_t ext[3];
		int nr[3];
	} best[] = {
		/* 1-D: its one axis */
		{3, 1, {10}, {3}},
		/* 4 x 64: slabs 4x1 exchange 2*2*64 = 256 cells; 2x2 2*2*32 + 2*2*(32+4) = 272 */
		{4, 2, {64, 64}, {4, 1}},
		/* 16: 4x4 (2*2*16 + 2*2*(16+4) = 144) would exchange less than 16x1 (256), but cuts the
		   rows, which a grid that leaves them whole is chosen over */
		{16, 2, {64, 64}, {16, 1}},
		/* 16 on 64^3: 16x1x1 2*2*64*64 = 16384; 4x4x1 2*2*16*64 + 2*2*(16+4)*64 = 9216; 8x2x1 8192 +
		   2*2*(8+4)*64 = 11264; 2x8x1 2048 + 2*2*(32+4)*64 = 11264 */
		{16, 3, {64, 64, 64}, {4, 4, 1}},
		/* 8 on 32^3: 8x1x1 4096; 2x2x2 1024 + 1280 + 1600 = 3904; 4x2x1 2048 + 1536 = 3584, as
		   2x4x1 and 4x1x2 (a tie goes to the grid that cuts the outer axes more) */
		{8, 3, {32, 32, 32}, {4, 2, 1}},
		/* an axis of extent 1 is never cut; 3 ranks on 1x9x4: 1x3x1 (2*2*4 = 16) */
		{3, 3, {1, 9, 4}, {1, 3, 1}},
		/* an axis shorter than the ranks: 5 on 2x5 cuts the second, the last (no other grid) */
		{5, 2, {2, 5}, {1, 5}},
	};
	for (size_t i = 0; i < sizeof best / sizeof *best; i++) {
		int nr[3];
		lbt_err e;
		cr_assert_eq(lbt_cut_grid(best[i].R, best[i].D, best[i].ext, NULL, nr, &e), LBT_OK, "%s", e.msg);
		for (int d = 0; d < best[i].D; d++)
			cr_assert_eq(nr[d], best[i].nr[d], "case %zu axis %d: %d ranks, want %d", i, d, nr[d], best[i].nr[d]);
	}
	const int64_t ext[2] = {7, 5};
	int nr[2];
	lbt_err e;
	cr_assert_eq(lbt_cut_grid(4, 2, ext, (const int[]){2, 2}, nr, &e), LBT_OK, "%s", e.msg);
	cr_assert_eq(lbt_cut_grid(2, 2, ext, (const int[]){3, 1}, nr, &e), LBT_EINVAL);
	cr_assert(strstr(e.msg, "3 ranks, but 2"), "%s", e.msg);
	cr_assert_eq(lbt_cut_grid(8, 2, ext, (const int[]){8, 1}, nr, &e), LBT_EINVAL);
	cr_assert(strstr(e.msg, "does not divide"), "%s", e.msg);
	cr_assert_eq(lbt_cut_grid(7, 2, (const int64_t[]){1, 5}, NULL, nr, &e), LBT_EINVAL);
}

/* The Liquid model's default grid: of the grids whose blocks its vector
 * kernel steps (the first axis with links cut, the last whole), the least
 * halo, worked out by hand as above (per cut axis 2 x 2 layers of the
 * block's face, a later axis's face spanning the earlier cut axes' halo);
 * none (LBT_EINVAL) where no such grid has R ranks. */
Test(comm, grid_of_ranks_vector)
{
	static const struct {
		int R, D;
		int64_t ext[3];
		int nr[3]; /* {0}: none */
	} best[] = {
		/* 2-D: the rows whole and the first axis cut leave slabs only */
		{4, 2, {64, 64}, {4, 1}},
		/* 8 on 32^3: 8x1x1 2*2*32*32 = 4096; 4x2x1 (blocks 8x16x32) 2*2*16*32 + 2*2*(8+4)*32 = 3584;
		   2x4x1 (16x8x32) 2*2*8*32 + 2*2*(16+4)*32 = 3584, a tie the outer axes cut more take */
		{8, 3, {32, 32, 32}, {4, 2, 1}},
		/* 4 on 128^3: slabs 4x1x1 2*2*128*128 = 65536 cells; 2x2x1 (64x64x128) 2*2*64*128 +
		   2*2*(64+4)*128 = 67584: slabs exchange less */
		{4, 3, {128, 128, 128}, {4, 1, 1}},
		/* 4 on 2x64x64: lbt_cut_grid's 1x4x1 (2*2*2*64 = 512) leaves the first axis whole; of the
		   grids that cut it only 2x2x1 (blocks 1x32x64: 2*2*32*64 + 2*2*(1+4)*64 = 9472) */
		{4, 3, {2, 64, 64}, {2, 2, 1}},
		/* an axis of extent 1 is not the first with links: 3 on 1x9x4 cut the second */
		{3, 3, {1, 9, 4}, {1, 3, 1}},
		/* one rank: nothing cut */
		{1, 2, {8, 8}, {1, 1}},
		/* none: 3 on 2x64x64 (the first axis has 2 layers, 3 is prime), 5 on 2x5, a 1-D torus */
		{3, 3, {2, 64, 64}, {0}},
		{5, 2, {2, 5}, {0}},
		{3, 1, {10}, {0}},
	};
	for (size_t i = 0; i < sizeof best / sizeof *best; i++) {
		int nr[3];
		const int st = lbt_cut_grid_vector(best[i].R, best[i].D, best[i].ext, nr);
		cr_assert_eq(st, best[i].nr[0] ? LBT_OK : LBT_EINVAL, "case %zu: status %d", i, st);
		for (int d = 0; best[i].nr[0] && d < best[i].D; d++)
			cr_assert_eq(nr[d], best[i].nr[d], "case %zu axis %d: %d ranks, want %d", i, d, nr[d], best[i].nr[d]);
	}
}

/* A method whose kernels do not take cut views (LBT_M_CUT) is refused on
 * a cut torus, with one message; --speeds opens there (its relative loads
 * are reduced over the ranks: tests/mpi_identity.py compares them). */
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
	cr_assert_eq(lbt_state_open(&s, &set, &e), LBT_OK, "%s", e.msg);
	lbt_state_close(&s);
}

/* --ranks (lbt_setup.ranks) on one process, cut (LBTORUS_CUT=1) or not: a
 * grid of one rank per axis runs; a grid of more ranks than are running,
 * one of another length than the torus's axes, or not a grid, is refused
 * with one line naming it. */
Test(comm, a_grid_of_ranks_is_checked)
{
	for (int cut = 0; cut < 2; cut++) {
		lbt_setup set = {.shape = "6x5", .method = "nna", .seed = 1, .threads = 1, .cut = cut, .ranks = "1x1"};
		lbt_state s;
		lbt_err e;
		cr_assert_eq(lbt_state_open(&s, &set, &e), LBT_OK, "%s", e.msg);
		cr_assert_eq(s.grid.cut != NULL, cut);
		lbt_state_close(&s);
		static const struct {
			const char *ranks, *words;
		} bad[] = {{"2x2", "has 4 ranks, but 1 is running"}, {"1x1x1", "3 counts for a torus of 2 axes"},
		           {"2x", "not a grid of ranks"}, {"x1", "not a grid of ranks"}, {"0x1", "not a grid of ranks"},
		           {"1x7", "does not divide the torus"}};
		for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
			set.ranks = bad[i].ranks;
			cr_assert_eq(lbt_state_open(&s, &set, &e), LBT_EINVAL, "--ranks %s accepted", bad[i].ranks);
			cr_assert(strstr(e.msg, bad[i].words) && !strchr(e.msg, '\n'), "--ranks %s: %s", bad[i].ranks, e.msg);
		}
	}
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

/* The data of the .npy file at path (after its header), read whole. */
static char *npy_data(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	cr_assert(f, "%s", path);
	static char buf[1 << 16];
	size_t got = fread(buf, 1, sizeof buf, f);
	fclose(f);
	cr_assert(got > 10 && got < sizeof buf, "%s: %zu bytes", path, got);
	const size_t hlen = 10 + ((unsigned char)buf[8] | (size_t)(unsigned char)buf[9] << 8);
	*n = got - hlen;
	return buf + hlen;
}

/* The grid a setup opens (unrun) dumped as --dump does (lbt_npy_dump). */
static void dump_unrun(const lbt_setup *set, const char *path)
{
	lbt_state s;
	lbt_err e;
	lbt_outfile o;
	cr_assert_eq(lbt_state_open(&s, set, &e), LBT_OK, "%s", e.msg);
	cr_assert_eq(s.grid.cut != NULL, set->cut);
	const lbt_field *f = lbt_grid_field(&s.grid, s.method->load == LBT_LOAD_REAL ? "real" : "load");
	cr_assert_eq(lbt_out_open(&o, path, &e), LBT_OK, "%s", e.msg);
	cr_assert_eq(lbt_npy_dump(&o, path, &s.grid, f, &e), LBT_OK, "%s", e.msg);
	cr_assert_eq(lbt_out_commit(&o, &e), LBT_OK, "%s", e.msg);
	lbt_state_close(&s);
}

/* A file: init is read and --dump written block by block (core/npy_block.c:
 * on one process, cut or not, with pread and pwrite; under MPI each rank
 * its slab, tests/mpi_io.py): the dump of an unrun torus holds the values
 * of the file, which lbt_npy_write wrote in one piece — as int32 for an
 * integer method, as float64 for a real-valued one — and a run from the
 * file on a cut torus equals the uncut run. */
Test(comm, a_file_is_read_and_dumped_by_block)
{
	char dir[64], in[128], out[128], init[160];
	th_tmpdir(dir, sizeof dir);
	snprintf(in, sizeof in, "%s/in.npy", dir);
	snprintf(out, sizeof out, "%s/out.npy", dir);
	snprintf(init, sizeof init, "file:%s", in);
	static const char *const shapes[] = {"7x5", "3x4x5", "1x9x4", "13", NULL};
	for (const char *const *sh = shapes; *sh; sh++) {
		lbt_shape s;
		lbt_err e;
		cr_assert_eq(lbt_shape_parse(&s, *sh, &e), LBT_OK, "%s", e.msg);
		const int64_t P = lbt_shape_pes(&s);
		int32_t v[64];
		double d[64];
		for (int64_t i = 0; i < P; i++)
			d[i] = v[i] = (int32_t)(i * 7919 % 23);
		cr_assert_eq(lbt_npy_write(in, &s, v, &e), LBT_OK, "%s", e.msg);
		for (int cut = 0; cut < 2; cut++)
			for (int real = 0; real < 2; real++) {
				lbt_setup set = {.method = real ? "fos" : "none", .init = init, .seed = 1, .threads = 2, .cut = cut};
				dump_unrun(&set, out);
				size_t n;
				const char *got = npy_data(out, &n);
				cr_assert(n == (size_t)P * (real ? 8 : 4) && !memcmp(got, real ? (void *)d : (void *)v, n),
				          "%s %s%s: the dump is not the file's values", *sh, set.method, cut ? ", cut" : "");
			}
		same_as_serial(*sh, "torus", "nna", init, "steps:12");
	}
	th_rm_tree(dir);
}

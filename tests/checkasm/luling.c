/* luling.c — Lüling and Monien's randomized step: the vector kernel
 * (kernels/simd/luling.c: the trigger scan in lanes, the shuffle's draws on
 * a hoisted key, the operations prefetched) against the reference
 * (kernels/ref/luling.c; the paper's §2 algorithm and its Appendix's load
 * classes, which the kernel hands to the reference), and each against
 * itself the way a kernel can differ from itself: the same run in a second
 * state, stepped with another run's step between each of its own (a kernel
 * that kept anything between calls outside its state, or read beyond it,
 * would carry the other run into this one). Loads, the step's packets and
 * packet-hops, every counter of the state (operations, conflicts,
 * cancelled, borrowing), the loads' extremes and sum the step measured,
 * and the grid's every cell (padding and halo too: the step works on the
 * grid's rows in place) equal, step by step, for both algorithms, local and
 * global partners, on rings, tori and meshes of 1 to 3 axes, odd extents,
 * and more PEs than the kernel's blocks and prefetch distance. The
 * workload's one-packet changes put PEs exactly at the factor f, where
 * f l_old rounds to just above the load or l_old / f to just below it (f =
 * 1.5000000000000002: 2 -> 3 and 3 -> 2): the trigger's tolerance decides.
 * The kernel runs on one thread (its operations are a chain). */
#include <string.h>

#include "checkasm.h"
#include "method/luling.h"

typedef struct {
	const char *shape, *boundary, *init, *f, *delta, *borrow, *partners;
} luling_run;

static void open_run(lbt_state *st, const luling_run *r, uint64_t seed)
{
	lbt_setup set = {.shape = r->shape, .boundary = r->boundary, .method = "luling-monien", .init = r->init,
	                 .isa = "scalar", .seed = seed, .threads = 1,
	                 .params = {{"f", r->f}, {"delta", r->delta}, {"borrow", r->borrow}, {"partners", r->partners}}};
	lbt_err e;
	cr_assert_eq(lbt_state_open(st, &set, &e), LBT_OK, "%s", e.msg);
}

/* One step of the run in st: its loads changed as a workload would change
 * them (without it the loads never leave l_old by the factor f, and no
 * operation is ever triggered: PE i consumes one packet where (i + t) mod 4
 * = 0 and it has one, else gains one where (5i + t) mod 3 = 0; the same
 * change in every run), stepped on the grid's rows in place (rows padded,
 * a halo around), exported into dense. */
static void step(lbt_state *st, int32_t *dense, int ref, int64_t *packets, int64_t *hops)
{
	lbt_grid_export(&st->grid, dense);
	const int64_t P = lbt_shape_pes(&st->grid.shape), t = st->step;
	for (int64_t i = 0; i < P; i++) {
		if ((i + t) % 4 == 0 && dense[i] > 0)
			dense[i]--;
		else if ((5 * i + t) % 3 == 0)
			dense[i]++;
	}
	lbt_grid_import(&st->grid, dense);
	if (ref)
		call_ref(luling_step, lbt_luling_of(st), st->grid.load, st->seed, st->step, packets, hops);
	else
		call_new(luling_step, lbt_luling_of(st), st->grid.load, st->seed, st->step, packets, hops);
	lbt_grid_export(&st->grid, dense);
	st->step++;
}

static void luling_case(const luling_run *r, int steps)
{
	lbt_state a, b, other;
	open_run(&a, r, 5);
	open_run(&b, r, 5);
	open_run(&other, r, 6);
	const int64_t P = lbt_shape_pes(&a.grid.shape);
	int32_t *da = malloc((size_t)P * sizeof *da), *db = malloc((size_t)P * sizeof *db),
	        *dx = malloc((size_t)P * sizeof *dx);
	cr_assert(da && db && dx);
	for (int t = 1; t <= steps; t++) {
		int64_t pa = 0, ha = 0, pb = 0, hb = 0, px = 0, hx = 0;
		step(&a, da, 1, &pa, &ha);
		step(&other, dx, 0, &px, &hx);
		step(&b, db, 0, &pb, &hb);
		const lbt_luling_stats *sa = lbt_luling_stats_of(&a), *sb = lbt_luling_stats_of(&b);
		const lbt_luling *ka = lbt_luling_of(&a), *kb = lbt_luling_of(&b);
		cr_assert(!memcmp(da, db, (size_t)P * sizeof *da) && pa == pb && ha == hb && !memcmp(sa, sb, sizeof *sa) &&
		              !memcmp(a.grid.load - a.grid.origin, b.grid.load - b.grid.origin, (size_t)a.grid.cells * sizeof *da) &&
		              ka->max == kb->max && ka->min == kb->min && ka->total == kb->total,
		          "luling_step on %s: %s %s, f %s, delta %s, borrow %s, partners %s, init %s: step %d differs from the reference "
		          "stepping alone (packets %lld/%lld, hops %lld/%lld, operations %lld/%lld)", ck_new->isa, r->shape,
		          r->boundary, r->f, r->delta, r->borrow, r->partners, r->init, t, (long long)pa, (long long)pb,
		          (long long)ha, (long long)hb, (long long)sa->operations, (long long)sb->operations);
	}
	const int64_t ops = lbt_luling_stats_of(&a)->operations;
	cr_assert(ops >= steps, "luling_step on %s %s: only %lld operations in %d steps: the comparison compared little",
	          r->shape, r->boundary, (long long)ops, steps);
	free(da), free(db), free(dx);
	lbt_state_close(&a);
	lbt_state_close(&b);
	lbt_state_close(&other);
}

static const luling_run quick_runs[] = {
	{"8x8", "torus", "uniform:0:40", "1.1", "1", "0", "global"},
	{"5x7", "mesh", "point:300", "1.5", "2", "2", "global"},
	{"17", "torus", "uniform:0:9", "1.2", "3", "0", "local:2"},
	{"37x41", "torus", "uniform:0:12", "1.1", "2", "0", "global"},
	{"3x5x7", "mesh", "uniform:0:4", "1.5", "5", "0", "global"},
	/* f 2 = 3.0000000000000004, 3 (1 / f) = 1.9999999999999996: 2 -> 3 and 3 -> 2 trigger by the tolerance alone */
	{"16x16", "torus", "uniform:0:4", "1.5000000000000002", "1", "0", "global"},
	{"16x17", "mesh", "uniform:1:7", "1.2000000000000002", "2", "0", "global"}, /* f 5 = 6.000000000000001 */
};
static const luling_run full_runs[] = {
	{"16x16", "torus", "uniform:0:10", "1.1", "4", "0", "global"},
	{"6x6", "mesh,torus", "worst:20", "1.8", "1", "1", "local:1"},
	{"3x4x5", "torus", "uniform:0:30", "1.3", "2", "3", "global"},
	{"64", "mesh", "uniform:0:5", "1.05", "3", "0", "local:3"},
	{"1031", "torus", "uniform:0:20", "1.1", "1", "0", "global"},
	{"9x11x13", "mesh,torus,mesh", "uniform:0:8", "1.1", "63", "0", "global"},
	{"33x31", "mesh", "worst:3", "2", "2", "0", "local:2"},
	{"7x5", "torus", "uniform:0:3", "1.5", "1", "0", "global"},
};

static void luling_quick(void)
{
	for (size_t i = 0; i < sizeof quick_runs / sizeof *quick_runs; i++)
		luling_case(&quick_runs[i], 30);
}
static void luling_full(void)
{
	for (size_t i = 0; i < sizeof full_runs / sizeof *full_runs; i++)
		luling_case(&full_runs[i], 60);
}
CK_CASE(luling_step, luling_quick, luling_full);

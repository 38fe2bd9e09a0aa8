/* de.c — dimension exchange (kernels/simd/de.c against kernels/ref/de.c),
 * real and integer, several lambda: loads and counters bit for bit; and
 * de_axis_step (Cybenko's one dimension per step), the same kernel on one
 * axis. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "checkasm.h"

typedef struct {
	double lambda;
	int axis;
} de_arg;

static void de(const lbt_kernels *k, const lbt_view *v, const void *a, lbt_counts *c)
{
	k->de_step(v, ((const de_arg *)a)->lambda, c);
}
static void de_int(const lbt_kernels *k, const lbt_view *v, const void *a, lbt_counts *c)
{
	k->de_int_step(v, ((const de_arg *)a)->lambda, c);
}
static void de_axis(const lbt_kernels *k, const lbt_view *v, const void *a, lbt_counts *c)
{
	const de_arg *d = a;
	k->de_axis_step(v, d->lambda, d->axis, c);
}

/* The counters, and the statistics the kernel gives (C_STATS: on every shape with a link). */
enum { INT = C_MOVED | C_SHIFTS | C_LINKMAX | C_STATS, ALL = INT | C_REAL };
static const de_arg lambdas[] = {{0.5, 0}, {0.3, 0}, {1, 0}};

/* Every shape x boundary x load x lambda, real then integer, 4 steps,
 * threads 1, 2, 3 in turn over both. */
static void de_shape(const lbt_shape *s, int *n, const void *real)
{
	for (int kind = 0; kind < NLOADS; kind++)
		for (int l = 0; l < 3; l++) {
			char what[32];
			snprintf(what, sizeof what, "%s (lambda %g)", real ? "de" : "de-int", lambdas[l].lambda);
			const ck_stepper k = {what, real ? de : de_int, &lambdas[l], real ? ALL : INT, 7, real ? CK_REAL : 0};
			const int tr = 1 + (*n)++ % 3, ti = 1 + (*n)++ % 3;
			ck_steps(&k, s, kind, real ? tr : ti, 4);
		}
}

static void rows_to_40(void (*step)(const lbt_kernels *, const lbt_view *, const void *, lbt_counts *), int flags)
{
	for (int n = 1; n <= 40; n++)
		for (int m = 0; m < 2; m++) {
			char text[32];
			snprintf(text, sizeof text, "3x%d", n);
			const lbt_shape s = ck_grid(text, m ? "mesh" : "torus");
			for (int l = 0; l < 3; l++) {
				de_arg a = lambdas[l];
				for (a.axis = 0; a.axis < (step == de_axis ? 2 : 1); a.axis++) {
					const ck_stepper k = {step == de ? "de" : step == de_int ? "de-int" : "de-axis", step, &a,
				                      flags & CK_REAL ? ALL : INT, 7, flags};
					ck_steps(&k, &s, l ? L_WIDE : L_POINT, 1 + (n + l) % 3, 6);
				}
			}
		}
}

/* Grids above the kernel's threshold for threads (16384 PEs), where rows are
 * shared by threads in runs: odd and even extents, torus and mesh, 1-3
 * threads, every axis for de-axis; loads near INT32_MAX and single piles. */
static void big(void (*step)(const lbt_kernels *, const lbt_view *, const void *, lbt_counts *), int flags)
{
	static const char *const shapes[] = {"131x127", "128x130", "3x67x97", "2x41x5x43"};
	static const int kinds[] = {L_WIDE, L_NEARMAX, L_PILE, L_ZEROS};
	int n = 0;
	for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++)
		for (int m = 0; m < 2; m++) {
			const lbt_shape s = ck_grid(shapes[i], m ? "mesh" : "torus");
			for (int a = 0; a < (step == de_axis ? s.dims : 1); a++) {
				const de_arg arg = {lambdas[n % 3].lambda, a};
				const ck_stepper k = {step == de ? "de" : step == de_int ? "de-int" : "de-axis", step, &arg,
				                      flags & CK_REAL ? ALL : INT, 7, flags};
				ck_steps(&k, &s, kinds[n % 4], 1 + n % 3, 3);
				n++;
			}
		}
}

static void de_quick(void)
{
	rows_to_40(de, CK_REAL);
	big(de, CK_REAL);
	ck_pair p;
	const lbt_shape g256 = ck_grid("256x256", "torus");
	ck_pair_open(&p, &g256, L_WIDE, 1, 1, CK_REAL);
	lbt_counts c = {0};
	bench_new(de_step, 100, &p.vv, 0.5, &c);
	ck_pair_close(&p);
}
static void de_full(void) { ck_each_shape(de_shape, "real"); }
CK_CASE(de_step, de_quick, de_full);

static void de_int_quick(void)
{
	rows_to_40(de_int, 0);
	big(de_int, 0);
}
static void de_int_full(void) { ck_each_shape(de_shape, NULL); }
CK_CASE(de_int_step, de_int_quick, de_int_full);

/* de_axis_step on every axis in turn, real loads: every shape x boundary x
 * every third load, 2 and 3 threads against one. */
static void axis_shape(const lbt_shape *s, int *n, const void *arg)
{
	(void)arg;
	for (int kind = 0; kind < NLOADS; kind += 3)
		for (int d = 0; d < s->dims; d++) {
			const de_arg a = {lambdas[*n % 3].lambda, d};
			const ck_stepper k = {"de-axis", de_axis, &a, ALL, 7, CK_REAL};
			ck_steps(&k, s, kind, 1 + (*n)++ % 3, 3);
		}
}
static void de_axis_quick(void)
{
	rows_to_40(de_axis, CK_REAL);
	big(de_axis, CK_REAL);
}
static void de_axis_full(void) { ck_each_shape(axis_shape, NULL); }
CK_CASE(de_axis_step, de_axis_quick, de_axis_full);

/* de_steps (several steps a call; AVX2 and AVX-512 keep the grid in lanes, four bands
 * of rows side by side, for the call) against as many reference steps: the
 * loads after every call, and every step's counters and statistics (bits,
 * as lbt_field_stats forms them). Calls of 1 to 13 steps. With use_stop the
 * call must end after the first step that meets its stop (the extremes the
 * reference has after step 3, truncated for real loads, and with use_stop 2
 * also max - min <= 2) and, if it did more than one, only there. de-axis:
 * the view's step chooses the axis, so both views carry the step. */
static int meets(const lbt_steps_stop *st, const lbt_counts *c, int real)
{
	if (!real)
		return (int64_t)c->max - c->min <= st->ldiff || (st->shared && c->min > 0) ||
		       (c->max == st->max && c->min == st->min);
	return c->real_max - c->real_min <= (double)st->ldiff || (st->shared && c->real_min > 0) ||
	       ((double)st->max == trunc(c->real_max) && (double)st->min == trunc(c->real_min));
}

static const char *const kind_names[] = {"de", "de-int", "de-axis"};

static void steps_case(int dk, const lbt_shape *s, int kind, int threads, int steps, double lambda, int use_stop)
{
	const int real = dk != LBT_DE_INT;
	const uint64_t seed = (uint64_t)lbt_shape_pes(s) * 7 + (uint64_t)kind;
	ck_pair p, q; /* q: the extremes after step 3 */
	ck_pair_open(&p, s, kind, threads, seed, real ? CK_REAL : 0);
	ck_pair_open(&q, s, kind, 1, seed, real ? CK_REAL : 0);
	for (int i = 0; i < 3; i++) {
		lbt_counts c;
		q.vr.step = i;
		call_ref(de_steps, &q.vr, lambda, dk, 1, NULL, &c);
	}
	lbt_stats s3;
	lbt_field_stats(&q.ref, lbt_grid_field(&q.ref, real ? "real" : "load"), 1, &s3);
	ck_pair_close(&q);
	const lbt_steps_stop stop = {use_stop == 2 ? 2 : -1, use_stop == 2 && dk == LBT_DE_INT, (int32_t)s3.max,
	                             (int32_t)s3.min};
	for (int t = 0, call = 0; t < steps; call++) {
		lbt_counts cv[13];
		memset(cv, 0xa5, sizeof cv); /* set whole by the kernel */
		const int want = 1 + (call * 5 + dk) % 13 < steps - t ? 1 + (call * 5 + dk) % 13 : steps - t;
		p.vv.step = t;
		const int got = call_new(de_steps, &p.vv, lambda, dk, want, use_stop ? &stop : NULL, cv);
		cr_assert(got >= 1 && got <= want, "%s on %s: de_steps asked for %d did %d", kind_names[dk], ck_new->isa, want,
		          got);
		for (int i = 0; use_stop && i + 1 < got; i++)
			cr_assert(!meets(&stop, &cv[i], real), "%s on %s: shape %s, load %s: a call went on after step %d of %d, "
			          "which met its stop", kind_names[dk], ck_new->isa, p.sh, ck_load_names[kind], i + 1, got);
		cr_assert(!use_stop || got == 1 || got == want || meets(&stop, &cv[got - 1], real),
		          "%s on %s: shape %s, load %s: a call of %d steps ended after %d for nothing", kind_names[dk],
		          ck_new->isa, p.sh, ck_load_names[kind], want, got);
		for (int i = 0; i < got; i++, t++) {
			lbt_counts cr;
			p.vr.step = t;
			call_ref(de_steps, &p.vr, lambda, dk, 1, NULL, &cr);
			lbt_stats st;
			lbt_field_stats(&p.ref, lbt_grid_field(&p.ref, real ? "real" : "load"), 1, &st);
			const lbt_counts *c = &cv[i];
			const int same_counts = cr.moved == c->moved && cr.shifts == c->shifts && cr.link_max == c->link_max &&
			                        !memcmp(&cr.real_moved, &c->real_moved, sizeof cr.real_moved) &&
			                        !memcmp(&cr.real_shifts, &c->real_shifts, sizeof cr.real_shifts);
			const int same_stats = c->has_stats &&
			                       (real ? !memcmp(&st.max, &c->real_max, sizeof st.max) &&
			                                   !memcmp(&st.min, &c->real_min, sizeof st.min) &&
			                                   !memcmp(&st.rtotal, &c->real_total, sizeof st.rtotal)
			                             : st.max == c->max && st.min == c->min && st.total == c->total);
			if (!same_counts || !same_stats)
				cr_assert_fail("%s de_steps (lambda %g) on %s: shape %s (%s), load %s, %d threads: step %d (%d of a "
				               "call of %d) counts moved %lld shifts %lld link_max %.17g real moved %.17g shifts %.17g, "
				               "statistics %s max %.17g min %.17g total %.17g; want %lld %lld %.17g %.17g %.17g, %.17g "
				               "%.17g %.17g",
				               kind_names[dk], lambda, ck_new->isa, p.sh, p.bd, ck_load_names[kind], threads, t + 1, i + 1,
				               got, (long long)c->moved, (long long)c->shifts, c->link_max, c->real_moved,
				               c->real_shifts, c->has_stats ? "given" : "none",
				               real ? c->real_max : c->max, real ? c->real_min : c->min,
				               real ? c->real_total : (double)c->total, (long long)cr.moved, (long long)cr.shifts,
				               cr.link_max, cr.real_moved, cr.real_shifts, st.max, st.min, real ? st.rtotal : (double)st.total);
		}
		ck_same_grids(&p, kind_names[dk], kind, t);
	}
	ck_pair_close(&p);
}

/* Grids the lanes take (the first extent a multiple of 8, rows of 4 PEs or
 * more: 8x4, odd rows, D = 3 and 4, an axis of extent 1 or 2, above the
 * threads' threshold of 16384 PEs) and grids they do not (the first extent
 * 12, 7 or 2, a ring, rows of 3), tori, meshes and mixes; 1-3 threads; loads
 * wide, near INT32_MAX, one pile, zeros, one point. The quick tier: the
 * first eight. */
static const char *const steps_grids[][2] = {
	{"8x4", "torus"}, {"16x7", "mesh"}, {"8x3x6", "torus,mesh,torus"}, {"16x2x3x5", "mesh,torus,mesh,torus"},
	{"24x33", "torus,mesh"}, {"128x130", "torus"}, {"12x8", "torus"}, {"7x9", "mesh"},
	{"8x1x9", "torus"}, {"40x64", "mesh,torus"}, {"136x127", "mesh"}, {"8x41x5x43", "torus,torus,mesh,torus"},
	{"64", "torus"}, {"2x16x8", "torus"}, {"16x3", "torus"}, {"32x32", "torus"}};
enum { STEPS_QUICK = 8, STEPS_GRIDS = sizeof steps_grids / sizeof *steps_grids };

static void steps_on(size_t from, size_t to)
{
	static const int kinds[] = {L_WIDE, L_NEARMAX, L_PILE, L_ZEROS, L_POINT, L_SMALL};
	static const double lam[] = {0.5, 0.3, 1};
	int n = 0;
	for (size_t i = from; i < to; i++) {
		const lbt_shape s = ck_grid(steps_grids[i][0], steps_grids[i][1]);
		const int big = lbt_shape_pes(&s) > 16384;
		for (int dk = 0; dk < 3; dk++)
			for (size_t j = 0; j < sizeof kinds / sizeof *kinds; j += 1 + big, n++)
				steps_case(dk, &s, kinds[j], 1 + n % 3, big ? 8 : 30, lam[n % 3], n % 3);
	}
}
static void steps_quick(void) { steps_on(0, STEPS_QUICK); }
static void steps_full(void) { steps_on(STEPS_QUICK, STEPS_GRIDS); }
CK_CASE(de_steps, steps_quick, steps_full);

/* de.c — dimension exchange (kernels/simd/de.c against kernels/ref/de.c),
 * real and integer, several lambda: loads and counters bit for bit; and
 * de_axis_step (Cybenko's one dimension per step), the same kernel on one
 * axis. */
#include <stdio.h>

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

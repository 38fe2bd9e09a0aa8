/* flows.c — the integer link-flow kernels (kernels/simd/flows.c against
 * kernels/ref/nna.c and kernels/ref/diffusion.c): nearest-neighbour
 * averaging and integer first-order diffusion with every kind of weight;
 * and the real-valued diffusion (kernels/simd/fos.c: fos and Dickens's
 * ca); NNA's eq. (4) is in nnadef.c. Loads near the int32
 * limit stay 1024 below it: NNA's rounding can lift a PE a few elements
 * above the largest initial load. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "checkasm.h"

static void nna(const lbt_kernels *k, const lbt_view *v, const void *arg, lbt_counts *c)
{
	(void)arg;
	k->nna_step(v, c);
}
static void fos_int(const lbt_kernels *k, const lbt_view *v, const void *p, lbt_counts *c) { k->fos_int_step(v, p, c); }
static void fos(const lbt_kernels *k, const lbt_view *v, const void *p, lbt_counts *c) { k->fos_step(v, p, c); }

enum { FLOWS = C_MOVED | C_SHIFTS | C_LINKMAX };
static const ck_stepper nna_k = {"nna", nna, NULL, FLOWS, 977, CK_BELOW_MAX};

static const lbt_diffusion weights[] = {
	{.alpha = 0.1}, {.alpha = 1.0 / 3}, {.alpha = 0.2071}, {.by_degree = 1, .k = 1}, {.by_degree = 1, .k = 0},
};
enum { NW = sizeof weights / sizeof *weights };

static ck_stepper fos_int_k(const lbt_diffusion *p, char *what, size_t n)
{
	if (p->by_degree)
		snprintf(what, n, "fos-int (1/(max deg + %d))", p->k);
	else
		snprintf(what, n, "fos-int (alpha %.6g)", p->alpha);
	return (ck_stepper){what, fos_int, p, FLOWS, 977, CK_BELOW_MAX};
}

/* Rows of every length around the vector widths. */
static void rows_to_40(const ck_stepper *a, int ka, int ta, int sa, const ck_stepper *b, int kb, int tb, int sb)
{
	for (int n = 1; n <= 40; n++)
		for (int m = 0; m < 2; m++) {
			char text[32];
			snprintf(text, sizeof text, "3x%d", n);
			const lbt_shape s = ck_grid(text, m ? "mesh" : "torus");
			ck_steps(a, &s, ka, ta, sa);
			ck_steps(b, &s, kb, tb, sb);
		}
}

/* Every shape x boundary x load: nna 12 steps and fos-int with every weight
 * the shape allows 6 steps, threads 1, 2, 3 in turn over both. */
static void flows_shape(const lbt_shape *s, int *n, const void *which)
{
	const double cap = 1.0 / (lbt_max_degree(s) ? lbt_max_degree(s) : 1);
	for (int kind = 0; kind < NLOADS; kind++) {
		const int t = 1 + (*n)++ % 3;
		if (which == &nna_k)
			ck_steps(&nna_k, s, kind, t, 12);
		for (int w = 0; w < NW; w++)
			if (weights[w].by_degree || weights[w].alpha <= cap) {
				const int tw = 1 + (*n)++ % 3;
				char what[64];
				const ck_stepper k = fos_int_k(&weights[w], what, sizeof what);
				if (which != &nna_k)
					ck_steps(&k, s, kind, tw, 6);
			}
	}
}

/* 2-D grids above the kernels' threshold for threads (16384 PEs), on 2
 * and 3 threads: blocks of rows meet inside the grid and over the
 * wrap-around, blocks of one row, a thread without rows (2 rows, 3
 * threads), and a grid of one row. */
static void flows_threads(const ck_stepper *k, int steps)
{
	static const char *const big[] = {"131x127", "128x130", "3x5501", "2x8209", "1x16411", "5x3301"};
	static const int kinds[] = {L_WIDE, L_POINT, L_NEARMAX, L_PILE};
	int n = 0;
	for (size_t i = 0; i < sizeof big / sizeof *big; i++)
		for (int b = 0; b < 4; b++) {
			lbt_shape s;
			if (ck_boundary(&s, big[i], b))
				for (size_t j = 0; j < sizeof kinds / sizeof *kinds; j++)
					ck_steps(k, &s, kinds[j], 2 + n++ % 2, steps);
		}
}

static void nna_quick(void)
{
	rows_to_40(&nna_k, L_POINT, 2, 30, &nna_k, L_SMALL, 1, 30);
	ck_pair p;
	const lbt_shape big = ck_grid("256x256", "torus");
	ck_pair_open(&p, &big, L_WIDE, 1, 1, 0);
	lbt_counts c = {0};
	bench_new(nna_step, 100, &p.vv, &c);
	ck_pair_close(&p);
}
static void nna_full(void)
{
	ck_each_shape(flows_shape, &nna_k);
	flows_threads(&nna_k, 12);
}
CK_CASE(nna_step, nna_quick, nna_full);

static void fos_int_quick(void)
{
	char w1[64], w2[64];
	const ck_stepper boillat = fos_int_k(&weights[3], w1, sizeof w1), a = fos_int_k(&(lbt_diffusion){.alpha = 0.2}, w2, sizeof w2);
	rows_to_40(&boillat, L_WIDE, 2, 10, &a, L_POINT, 1, 10);
	ck_pair p;
	const lbt_shape big = ck_grid("256x256", "torus");
	ck_pair_open(&p, &big, L_WIDE, 1, 1, 0);
	lbt_counts c = {0};
	bench_new(fos_int_step, 100, &p.vv, &weights[3], &c);
	ck_pair_close(&p);
}
static void fos_int_full(void)
{
	ck_each_shape(flows_shape, NULL);
	for (int w = 0; w < NW; w++)
		if (weights[w].by_degree || weights[w].alpha <= 0.25) {
			char what[64];
			const ck_stepper k = fos_int_k(&weights[w], what, sizeof what);
			flows_threads(&k, 6);
		}
}
CK_CASE(fos_int_step, fos_int_quick, fos_int_full);

/* Real-valued diffusion: loads, amount moved, shifts and link_max equal to
 * the reference's bit for bit, every shape x boundary x every other load x
 * the weights the shape allows, 5 steps. */
static const lbt_diffusion fos_weights[] = {{.alpha = 0.1}, {.alpha = 0.2071}, {.by_degree = 1, .k = 1}, {.by_degree = 1, .k = 0}};

static ck_stepper fos_k(const lbt_diffusion *p)
{
	return (ck_stepper){"fos", fos, p, C_REAL | C_LINKMAX, 31, CK_REAL};
}

static void fos_shape(const lbt_shape *s, int *n, const void *arg)
{
	(void)arg;
	const double cap = 1.0 / (lbt_max_degree(s) ? lbt_max_degree(s) : 1);
	for (int kind = 0; kind < NLOADS; kind += 2)
		for (size_t w = 0; w < sizeof fos_weights / sizeof *fos_weights; w++)
			if (fos_weights[w].by_degree || fos_weights[w].alpha <= cap) {
				const ck_stepper k = fos_k(&fos_weights[w]);
				ck_steps(&k, s, kind, 1 + (*n)++ % 3, 5);
			}
}

static void fos_quick(void)
{
	const ck_stepper a = fos_k(&fos_weights[2]), b = fos_k(&fos_weights[0]);
	rows_to_40(&a, L_WIDE, 2, 10, &b, L_POINT, 1, 10);
	/* grids of 8 rows and more, whose amount moved fos.c sums 8 rows side
	 * by side (chain8, its rows in lanes by a transpose): a transpose that
	 * mixes rows shows only in the rounding of the total */
	const lbt_shape s1 = ck_grid("17x37", "torus"), s2 = ck_grid("9x21", "mesh");
	ck_steps(&a, &s1, L_WIDE, 1, 6);
	ck_steps(&b, &s2, L_WIDE, 2, 6);
}
static void fos_full(void) { ck_each_shape(fos_shape, NULL); }
CK_CASE(fos_step, fos_quick, fos_full);

/* fos_steps (several steps a call; AVX2 keeps a 2-D torus in lanes, four
 * bands of rows side by side, for the call) against as many reference
 * steps: the loads after every call, and every step's amount moved, shifts,
 * link_max and the statistics it gives (bits, as lbt_field_stats forms
 * them; the lanes give them always, the reference never). Calls of 1
 * to 13 steps. With use_stop the call must end after the first step that
 * meets its stop (the extremes the reference has after step 3, truncated,
 * and with use_stop 2 also max - min <= 2) and, if it did more than one,
 * only there. */
static int fos_meets(const lbt_steps_stop *st, const lbt_counts *c)
{
	return c->real_max - c->real_min <= (double)st->ldiff || (st->shared && c->real_min > 0) ||
	       ((double)st->max == trunc(c->real_max) && (double)st->min == trunc(c->real_min));
}

static void fos_steps_case(const lbt_diffusion *w, const lbt_shape *s, int kind, int threads, int steps, int use_stop)
{
	const uint64_t seed = (uint64_t)lbt_shape_pes(s) * 31 + (uint64_t)kind;
	ck_pair p, q; /* q: the extremes after step 3 */
	ck_pair_open(&p, s, kind, threads, seed, CK_REAL);
	ck_pair_open(&q, s, kind, 1, seed, CK_REAL);
	for (int i = 0; i < 3; i++) {
		lbt_counts c;
		call_ref(fos_steps, &q.vr, w, 1, NULL, &c);
	}
	lbt_stats s3;
	lbt_field_stats(&q.ref, lbt_grid_field(&q.ref, "real"), 1, &s3);
	ck_pair_close(&q);
	const lbt_steps_stop stop = {use_stop == 2 ? 2 : -1, use_stop == 2, (int32_t)s3.max, (int32_t)s3.min};
	char what[48];
	if (w->by_degree)
		snprintf(what, sizeof what, "fos_steps (1/(deg + %d))", w->k);
	else
		snprintf(what, sizeof what, "fos_steps (alpha %.6g)", w->alpha);
	for (int t = 0, call = 0; t < steps; call++) {
		lbt_counts cv[13];
		memset(cv, 0xa5, sizeof cv); /* set whole by the kernel */
		const int want = 1 + (call * 5 + kind) % 13 < steps - t ? 1 + (call * 5 + kind) % 13 : steps - t;
		const int got = call_new(fos_steps, &p.vv, w, want, use_stop ? &stop : NULL, cv);
		cr_assert(got >= 1 && got <= want, "%s on %s: asked for %d did %d", what, ck_new->isa, want, got);
		for (int i = 0; use_stop && i + 1 < got; i++)
			cr_assert(!fos_meets(&stop, &cv[i]), "%s on %s: shape %s, load %s: a call went on after step %d of %d, "
			          "which met its stop", what, ck_new->isa, p.sh, ck_load_names[kind], i + 1, got);
		cr_assert(!use_stop || got == 1 || got == want || fos_meets(&stop, &cv[got - 1]),
		          "%s on %s: shape %s, load %s: a call of %d steps ended after %d for nothing", what, ck_new->isa, p.sh,
		          ck_load_names[kind], want, got);
		for (int i = 0; i < got; i++, t++) {
			lbt_counts cr;
			call_ref(fos_steps, &p.vr, w, 1, NULL, &cr);
			lbt_stats st;
			lbt_field_stats(&p.ref, lbt_grid_field(&p.ref, "real"), 1, &st);
			const lbt_counts *c = &cv[i];
			const int same = !memcmp(&cr.link_max, &c->link_max, sizeof cr.link_max) &&
			                 !memcmp(&cr.real_moved, &c->real_moved, sizeof cr.real_moved) &&
			                 !memcmp(&cr.real_shifts, &c->real_shifts, sizeof cr.real_shifts) &&
			                 (!c->has_stats || (!memcmp(&st.max, &c->real_max, sizeof st.max) &&
			                                    !memcmp(&st.min, &c->real_min, sizeof st.min) &&
			                                    !memcmp(&st.rtotal, &c->real_total, sizeof st.rtotal)));
			if (!same)
				cr_assert_fail("%s on %s: shape %s (%s), load %s, %d threads: step %d (%d of a call of %d) moved %.17g "
				               "shifts %.17g link_max %.17g, statistics %s max %.17g min %.17g total %.17g; want %.17g "
				               "%.17g %.17g, %.17g %.17g %.17g",
				               what, ck_new->isa, p.sh, p.bd, ck_load_names[kind], threads, t + 1, i + 1, got, c->real_moved,
				               c->real_shifts, c->link_max, c->has_stats ? "given" : "none", c->real_max, c->real_min,
				               c->real_total, cr.real_moved, cr.real_shifts, cr.link_max, st.max, st.min, st.rtotal);
		}
		ck_same_grids(&p, what, kind, t);
	}
	ck_pair_close(&p);
}

/* Grids the lanes take (2-D tori, the first extent a multiple of 4, rows of
 * 3 PEs or more: one group, rows shorter than a vector, odd rows, above the
 * threads' threshold of 16384 PEs, where two threads take the one-step
 * kernel) and grids they do not (a mesh on either axis, the first extent 6
 * or 2, rows of 2, D = 1 and 3); 1-3 threads; every weight; loads wide, near
 * INT32_MAX, one pile, zeros, one point, small. The quick tier: the first
 * eight (16x16: AVX-512's 8x8 transposes of rows into lanes). */
static const char *const fos_steps_grids[][2] = {
	{"4x3", "torus"}, {"8x5", "torus"}, {"12x7", "torus"}, {"4x40", "torus"}, {"20x33", "torus"},
	{"132x127", "torus"}, {"8x8", "mesh,torus"}, {"16x16", "torus"},
	{"4x4", "torus"}, {"6x8", "torus"}, {"128x130", "torus"}, {"8x9", "torus,mesh"}, {"2x16", "torus"},
	{"8x2", "torus"}, {"64", "torus"}, {"4x3x5", "torus"}, {"7x9", "mesh"}, {"36x1", "torus"}};
enum { FOS_STEPS_QUICK = 8, FOS_STEPS_GRIDS = sizeof fos_steps_grids / sizeof *fos_steps_grids };

static void fos_steps_on(size_t from, size_t to)
{
	static const int kinds[] = {L_WIDE, L_NEARMAX, L_PILE, L_ZEROS, L_POINT, L_SMALL};
	int n = 0;
	for (size_t i = from; i < to; i++) {
		const lbt_shape s = ck_grid(fos_steps_grids[i][0], fos_steps_grids[i][1]);
		const int big = lbt_shape_pes(&s) > 16384;
		const double cap = 1.0 / (lbt_max_degree(&s) ? lbt_max_degree(&s) : 1);
		for (size_t w = 0; w < sizeof fos_weights / sizeof *fos_weights; w++)
			for (size_t j = 0; j < sizeof kinds / sizeof *kinds; j += 1 + big, n++)
				if (fos_weights[w].by_degree || fos_weights[w].alpha <= cap)
					fos_steps_case(&fos_weights[w], &s, kinds[j], 1 + n % 3, big ? 8 : 30, n % 3);
	}
}
static void fos_steps_quick(void) { fos_steps_on(0, FOS_STEPS_QUICK); }
static void fos_steps_full(void) { fos_steps_on(FOS_STEPS_QUICK, FOS_STEPS_GRIDS); }
CK_CASE(fos_steps, fos_steps_quick, fos_steps_full);

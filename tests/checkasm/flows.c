/* flows.c — the integer link-flow kernels (kernels/simd/flows.c against
 * kernels/ref/nna.c and kernels/ref/diffusion.c): nearest-neighbour
 * averaging and integer first-order diffusion with every kind of weight;
 * and the real-valued diffusion (kernels/simd/fos.c: fos and Dickens's
 * ca); NNA's eq. (4) is in nnadef.c. Loads near the int32
 * limit stay 1024 below it: NNA's rounding can lift a PE a few elements
 * above the largest initial load. */
#include <stdio.h>

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
	//PLANT ck_each_shape(flows_shape, &nna_k);
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
}
static void fos_full(void) { ck_each_shape(fos_shape, NULL); }
CK_CASE(fos_step, fos_quick, fos_full);

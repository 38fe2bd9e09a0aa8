/* method.c — the table of methods a run can name. */
#include <string.h>

#include "lbtorus/lbtorus.h"

void lbt_state_view(const lbt_state *st, lbt_view *v)
{
	const lbt_grid *g = &st->grid;
	memset(v, 0, sizeof *v);
	v->load = g->load;
	v->dims = g->shape.dims;
	for (int d = 0; d < v->dims && d < LBT_MAXD; d++) {
		v->ext[d] = g->shape.ext[d];
		v->stride[d] = g->stride[d];
		v->torus[d] = g->shape.bnd[d] == LBT_TORUS;
	}
	v->threads = st->threads > 0 ? st->threads : 1;
	v->real = g->real;
}

static void lm_step(lbt_state *st, lbt_counts *c)
{
	lbt_view v;
	lbt_state_view(st, &v);
	st->kern->lm_step(&v, st->method->cond, c);
	c->link_max = c->moved > 0; /* one element per link and substep */
}

static void nna_step(lbt_state *st, lbt_counts *c)
{
	lbt_view v;
	lbt_state_view(st, &v);
	st->kern->nna_step(&v, c);
}

static void nna_def_step(lbt_state *st, lbt_counts *c)
{
	lbt_view v;
	lbt_state_view(st, &v);
	st->kern->nna_def_step(&v, c);
}

static void fos_step(lbt_state *st, lbt_counts *c)
{
	lbt_view v;
	lbt_state_view(st, &v);
	st->kern->fos_step(&v, &st->diff, c);
}

static void fos_int_step(lbt_state *st, lbt_counts *c)
{
	lbt_view v;
	lbt_state_view(st, &v);
	st->kern->fos_int_step(&v, &st->diff, c);
}

static void de_step(lbt_state *st, lbt_counts *c)
{
	lbt_view v;
	lbt_state_view(st, &v);
	st->kern->de_step(&v, st->lambda, c);
}

static void de_int_step(lbt_state *st, lbt_counts *c)
{
	lbt_view v;
	lbt_state_view(st, &v);
	st->kern->de_int_step(&v, st->lambda, c);
}

static void ca_step(lbt_state *st, lbt_counts *c)
{
	lbt_view v;
	lbt_state_view(st, &v);
	lbt_diffusion p = {.by_degree = 1, .k = st->ca_k};
	st->kern->fos_step(&v, &p, c);
}

#define LM(n, what) \
	{"lm-c" #n, "Liquid model, shift while " what, "Henrich 1996, Table 1 (C" #n "), Definition 1", LBT_C##n, lm_step, 0, "", LBT_BOUNDED_TORUS}

static const lbt_method methods[] = {
	LM(0, "L_i > 0"),
	LM(1, "L_i > 1"),
	LM(2, "L_i > 1, or L_i = 1 and L_{i-1} > 1"),
	LM(3, "L_i > 1 and L_i >= L_{i+1}"),
	LM(4, "C2 holds and L_i >= L_{i+1}"),
	LM(5, "L_i > 0 and L_i >= L_{i+1}"),
	{"nna", "nearest-neighbour averaging, net flow L_i/(|Δi|+1) - L_j/(|Δj|+1), rightward rounded up",
	 "Henrich 1996, §2.3 eq. (3)/(5), fn. 3, §5", 0, nna_step, 0, "", LBT_UNBOUNDED},
	{"nna-def", "deficiency-based NNA: surplus over the local mean to lower neighbours, by deficiency",
	 "Henrich 1996, §2.3 eq. (4), §5 rounding", 0, nna_def_step, 0, "", LBT_UNBOUNDED},
	{"fos", "first-order diffusion, real-valued loads", "Cybenko 1989, eq. (1)/(2)", 0, fos_step, 1, "--alpha", LBT_UNBOUNDED},
	{"fos-int", "first-order diffusion, integer flows truncated towards zero", "Cybenko 1989, eq. (1)/(2)", 0,
	 fos_int_step, 0, "--alpha", LBT_BOUNDED},
	{"de", "dimension exchange, real-valued loads", "Cybenko 1989, §4 (Theorem 4)", 0, de_step, 1, "--lambda", LBT_UNBOUNDED},
	{"de-int", "dimension exchange, integer flows truncated towards zero", "Cybenko 1989, §4", 0, de_int_step, 0,
	 "--lambda", LBT_BOUNDED},
	{"ca", "cellular-automaton diffusion, proportion 1/(max(y,n)+k), real-valued work",
	 "Dickens 1992, §4.0", 0, ca_step, 1, "--ca-k", LBT_UNBOUNDED},
};

const lbt_method *const *lbt_methods(void)
{
	enum { N = sizeof methods / sizeof methods[0] };
	static const lbt_method *list[N + 1];
	for (int i = 0; i < N; i++)
		list[i] = &methods[i];
	return list;
}

const lbt_method *lbt_method_find(const char *name)
{
	for (const lbt_method *const *m = lbt_methods(); *m; m++)
		if (!strcmp((*m)->name, name))
			return *m;
	return NULL;
}

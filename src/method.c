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
}

static void lm_step(lbt_state *st, lbt_counts *c)
{
	lbt_view v;
	lbt_state_view(st, &v);
	st->kern->lm_step(&v, st->method->cond, c);
}

#define LM(n, what) \
	{"lm-c" #n, "Liquid model, shift while " what, "seed 000, Table 1 (C" #n "), Definition 1", LBT_C##n, lm_step}

static const lbt_method methods[] = {
	LM(0, "L_i > 0"),
	LM(1, "L_i > 1"),
	LM(2, "L_i > 1, or L_i = 1 and L_{i-1} > 1"),
	LM(3, "L_i > 1 and L_i >= L_{i+1}"),
	LM(4, "C2 holds and L_i >= L_{i+1}"),
	LM(5, "L_i > 0 and L_i >= L_{i+1}"),
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

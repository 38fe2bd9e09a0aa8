/* diffusion.c — first-order diffusion: Cybenko's scheme with one alpha on
 * every link or Boillat's by-degree weights, on real loads (fos) or with
 * integer flows (fos-int), and Dickens's cellular automaton (ca), the same
 * step with weights 1/(max(deg_i, deg_j) + k). The workspace holds the
 * resolved weights, the predicted gamma and the kernels' scratch. */
#include <math.h>
#include <stdlib.h>

#include "family.h"

typedef struct {
	lbt_scratch scratch; /* first: lbt_method_view reads it */
	lbt_diffusion diff;
	double gamma;        /* -1: not one number on this shape */
} ws;

static const lbt_param alpha[] = {
	{"alpha", NULL, LBT_PARAM_REAL, 0, INFINITY, 1, "boillat,optimal", "optimal",
	 "diffusion parameter: a number in (0, 1/max_degree], boillat (1/(max(deg_i, deg_j) + 1)) "
	 "or optimal (2/(mu_min + mu_max), minimizing Cybenko's gamma)"},
};
static const lbt_param ca_k[] = {
	{"ca_k", "k", LBT_PARAM_INT, 0, 1000000, 0, NULL, "1", "Dickens's k in the proportion 1/(max(y,n)+k), an integer 0 <= k <= 1000000"},
};

/* Every PE has the same degree: the weight is one number. */
static int regular(const lbt_shape *s)
{
	int r = 1;
	for (int d = 0; d < s->dims; d++)
		r &= s->bnd[d] == LBT_TORUS || s->ext[d] <= 2;
	return r;
}

static int open_ws(lbt_state *st, const lbt_diffusion *p, double gamma, lbt_err *e)
{
	if (!(st->method->flags & LBT_M_SCRATCH)) /* the memory estimate would leave it out */
		return lbt_errf(e, LBT_EINTERNAL, "%s opens the kernels' scratch without LBT_M_SCRATCH", st->method->name);
	ws *w = calloc(1, sizeof *w);
	if (!w)
		return lbt_errf(e, LBT_ENOMEM, "no memory for %s's workspace", st->method->name);
	w->diff = *p;
	w->gamma = gamma;
	st->ws = w;
	lbt_view v;
	lbt_state_view(st, &v);
	if (lbt_scratch_open(&w->scratch, &v, st->grid.cells, st->grid.origin)) {
		free(w);
		st->ws = NULL;
		return lbt_errf(e, LBT_ENOMEM, "no memory for %s's scratch (%lld cells)", st->method->name,
		                (long long)st->grid.cells);
	}
	return LBT_OK;
}

static int fos_check(const lbt_shape *s, const lbt_param_value *pv, lbt_err *e)
{
	lbt_diffusion p;
	return lbt_alpha_parse(&p, s, pv[0].text, e);
}

static int fos_open(lbt_state *st, lbt_err *e)
{
	const lbt_shape *s = &st->grid.whole;
	lbt_diffusion p;
	int status = lbt_alpha_parse(&p, s, st->param[0].text, e);
	if (status)
		return status;
	double gamma = -1;
	if (!p.by_degree)
		gamma = lbt_gamma(s, p.alpha);
	else if (regular(s))
		gamma = lbt_gamma(s, 1.0 / (lbt_max_degree(s) + p.k));
	if (!p.by_degree) { /* the JSON record gives the alpha used */
		st->param[0].num = p.alpha;
		st->param[0].word = NULL;
	}
	return open_ws(st, &p, gamma, e);
}

static int ca_open(lbt_state *st, lbt_err *e)
{
	const lbt_shape *s = &st->grid.whole;
	lbt_diffusion p = {.by_degree = 1, .k = (int)st->param[0].num};
	return open_ws(st, &p, regular(s) ? lbt_gamma(s, 1.0 / (lbt_max_degree(s) + p.k)) : -1, e);
}

static void diffusion_close(lbt_state *st)
{
	ws *w = st->ws;
	if (w)
		lbt_scratch_close(&w->scratch);
	free(w);
	st->ws = NULL;
}

static double gamma_of(const lbt_state *st) { return ((const ws *)st->ws)->gamma; }

static void fos_step(lbt_state *st, lbt_counts *c)
{
	lbt_view v;
	lbt_method_view(st, &v);
	st->kern->fos_step(&v, &((const ws *)st->ws)->diff, c);
}

/* Several steps a call (the engine's batch): the kernel may keep the grid in
 * its own layout between them (kernels/simd/fos.c, AVX2). */
static int fos_steps(lbt_state *st, int n, int32_t max, const lbt_steps_stop *stop, lbt_counts *c)
{
	(void)max;
	lbt_view v;
	lbt_method_view(st, &v);
	return st->kern->fos_steps(&v, &((const ws *)st->ws)->diff, n, stop, c);
}

static void fos_int_step(lbt_state *st, lbt_counts *c)
{
	lbt_view v;
	lbt_method_view(st, &v);
	st->kern->fos_int_step(&v, &((const ws *)st->ws)->diff, c);
}

#define CYBENKO "G. Cybenko, Dynamic load balancing for distributed memory multiprocessors, J. Parallel Distrib. Comput., 1989: "

LBT_METHOD(lbt_fos) = {
	.name = "fos",
	.summary = "first-order diffusion, real-valued loads",
	.citation = CYBENKO "eq. (1)/(2)",
	.load = LBT_LOAD_REAL,
	.flags = LBT_M_DETERMINISTIC | LBT_M_CUT | LBT_M_SCRATCH,
	.kernels = LBT_K(FOS_STEP) | LBT_K(FOS_STEPS),
	.bounded = LBT_UNBOUNDED,
	.params = alpha,
	.nparams = sizeof alpha / sizeof *alpha,
	.check = fos_check,
	.open = fos_open,
	.step = fos_step,
	.close = diffusion_close,
	.gamma = gamma_of,
	.steps = fos_steps,
};

LBT_METHOD(lbt_fos_int) = {
	.name = "fos-int",
	.summary = "first-order diffusion, integer flows truncated towards zero",
	.citation = CYBENKO "eq. (1)/(2)",
	.load = LBT_LOAD_INT,
	.flags = LBT_M_DETERMINISTIC | LBT_M_CUT | LBT_M_SCRATCH,
	.kernels = LBT_K(FOS_INT_STEP),
	.bounded = LBT_BOUNDED,
	.params = alpha,
	.nparams = sizeof alpha / sizeof *alpha,
	.check = fos_check,
	.open = fos_open,
	.step = fos_int_step,
	.close = diffusion_close,
	.gamma = gamma_of,
};

LBT_METHOD(lbt_ca) = {
	.name = "ca",
	.summary = "cellular-automaton diffusion, proportion 1/(max(y,n)+k), real-valued work",
	.citation = "B. Dickens, Load balancing on massively parallel networks: a cellular automaton approach, 1992: §4.0",
	.load = LBT_LOAD_REAL,
	.flags = LBT_M_DETERMINISTIC | LBT_M_CUT | LBT_M_SCRATCH,
	.kernels = LBT_K(FOS_STEP) | LBT_K(FOS_STEPS),
	.bounded = LBT_UNBOUNDED,
	.params = ca_k,
	.nparams = sizeof ca_k / sizeof *ca_k,
	.open = ca_open,
	.step = fos_step,
	.close = diffusion_close,
	.gamma = gamma_of,
	.steps = fos_steps,
};

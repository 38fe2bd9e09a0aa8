/* state.c — from a textual set-up to a loaded grid with its kernels. */
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "lbtorus/init.h"
#include "lbtorus/npy.h"
#include "lbtorus/method.h"

/* --alpha, --lambda, --ca-k: parsed for every method (so a typo is caught),
 * used by the ones that read them. */
static int method_params(lbt_state *st, const lbt_setup *cfg, lbt_err *e)
{
	const lbt_shape *s = &st->grid.shape;
	int status = lbt_alpha_parse(&st->diff, s, cfg->alpha ? cfg->alpha : "optimal", e);
	if (status)
		return status;
	st->gamma = -1;
	int regular = 1; /* every PE has the same degree: alpha_ij is one number */
	for (int d = 0; d < s->dims; d++)
		regular &= s->bnd[d] == LBT_TORUS || s->ext[d] <= 2;
	if (!st->diff.by_degree)
		st->gamma = lbt_gamma(s, st->diff.alpha);
	else if (regular)
		st->gamma = lbt_gamma(s, 1.0 / (lbt_max_degree(s) + st->diff.k));
	char *end;
	const char *lam = cfg->lambda ? cfg->lambda : "0.5";
	st->lambda = strtod(lam, &end);
	if (end == lam || *end || !(st->lambda > 0 && st->lambda <= 1))
		return lbt_errf(e, LBT_EINVAL, "--lambda '%s': give a number with 0 < lambda <= 1", lam);
	const char *k = cfg->ca_k ? cfg->ca_k : "1";
	long kv = strtol(k, &end, 10);
	if (end == k || *end || kv < 0 || kv > 1000000)
		return lbt_errf(e, LBT_EINVAL, "--ca-k '%s': give an integer k >= 0", k);
	st->ca_k = (int)kv;
	if (!strcmp(st->method->name, "ca") && regular)
		st->gamma = lbt_gamma(s, 1.0 / (lbt_max_degree(s) + st->ca_k));
	else if (strcmp(st->method->name, "fos") && strcmp(st->method->name, "fos-int"))
		st->gamma = -1;
	return LBT_OK;
}

int lbt_state_open(lbt_state *st, const lbt_setup *cfg, lbt_err *e)
{
	memset(st, 0, sizeof *st);
	const char *mname = cfg->method ? cfg->method : "lm-c5";
	st->method = lbt_method_find(mname);
	if (!st->method)
		return lbt_errf(e, LBT_EINVAL, "unknown method '%s' (see lbtorus run --help for the list)", mname);
	lbt_init init;
	int status = lbt_init_parse(&init, cfg->init ? cfg->init : "worst:5", e);
	if (status)
		return status;
	lbt_shape shape;
	if (cfg->shape)
		status = lbt_shape_parse(&shape, cfg->shape, e);
	else if (init.kind == LBT_INIT_FILE)
		status = lbt_npy_shape(init.path, &shape, e);
	else
		status = lbt_errf(e, LBT_EINVAL, "no shape: give --shape (e.g. --shape 128x128)");
	if (status)
		return status;
	if (cfg->boundary && (status = lbt_boundary_parse(&shape, cfg->boundary, e)))
		return status;
	if ((status = lbt_init_check(&init, &shape, e)))
		return status;
	if (cfg->threads < 0)
		return lbt_errf(e, LBT_EINVAL, "threads must be positive");
#ifdef _OPENMP
	st->threads = cfg->threads > 0 ? cfg->threads : omp_get_num_procs();
	omp_set_num_threads(st->threads);
#else
	st->threads = 1;
#endif
	if ((status = lbt_kernels_select(&st->table, cfg->isa, e)))
		return status;
	st->kern = &st->table;
	st->seed = cfg->seed;
	if ((status = lbt_grid_init(&st->grid, &shape, e)))
		return status;
	if ((status = lbt_init_apply(&init, &st->grid, cfg->seed, e)) ||
	    (st->method->real && (status = lbt_grid_add_real(&st->grid, e))) ||
	    (status = method_params(st, cfg, e)))
		lbt_state_close(st);
	return status;
}

void lbt_state_close(lbt_state *st)
{
	lbt_grid_free(&st->grid);
}

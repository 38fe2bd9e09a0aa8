/* state.c — from a textual set-up to a loaded grid with its kernels. */
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "lbtorus/lbtorus.h"

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
	if ((status = lbt_init_apply(&init, &st->grid, cfg->seed, e)))
		lbt_state_close(st);
	return status;
}

void lbt_state_close(lbt_state *st)
{
	lbt_grid_free(&st->grid);
}

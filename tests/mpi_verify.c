/* mpi_verify.c — a run with --verify that must fail, alone or cut between
 * ranks (tests/mpi_identity.py starts it both ways and compares).
 *
 * No hook makes a kernel err, so the state is changed behind the engine's
 * back, as a caller's on_step may: after step T the load of global PE a
 * goes up by one and that of PE b down by one (the total stays, so the
 * conservation check passes and the verification is what fails). The next
 * step then differs from the scalar reference's, which stepped from the
 * unchanged state. Every rank prints its status and message; on every rank
 * they must be those of one process.
 *
 * usage: mpi_verify SHAPE METHOD RANKS|- T A B (A, B: global flat indices) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lbtorus/comm.h"
#include "lbtorus/method.h"
#include "lbtorus/run.h"

typedef struct {
	lbt_state *st;
	int64_t T, pe[2];
} probe;

/* The load cell of global flat index i if this rank holds it, else NULL. */
static int32_t *cell(lbt_grid *g, int64_t i)
{
	const int D = g->whole.dims;
	int64_t c[LBT_MAXD], row = 0;
	for (int d = D - 1; d >= 0; d--) {
		c[d] = i % g->whole.ext[d] - lbt_grid_lo(g, d);
		i /= g->whole.ext[d];
		if (c[d] < 0 || c[d] >= g->shape.ext[d])
			return NULL;
	}
	for (int d = 0; d < D - 1; d++)
		row = row * g->shape.ext[d] + c[d];
	return (int32_t *)lbt_field_row(g, lbt_grid_field(g, "load"), row) + c[D - 1];
}

static void on_step(void *ctx, const lbt_step_record *r)
{
	probe *p = ctx;
	if (r->step != p->T)
		return;
	for (int k = 0; k < 2; k++) {
		int32_t *v = cell(&p->st->grid, p->pe[k]);
		if (v)
			*v += k ? -1 : 1;
	}
}

int main(int argc, char **argv)
{
	lbt_err e = {0};
	if (lbt_comm_init(&argc, &argv, &e) || argc != 7) {
		fprintf(stderr, "usage: mpi_verify SHAPE METHOD RANKS|- T A B %s\n", e.msg);
		return 2;
	}
	lbt_state st;
	lbt_setup cfg = {.shape = argv[1], .method = argv[2], .init = "uniform:1:100", .seed = 3, .threads = 1,
	                 .cut = lbt_comm_size() > 1, .ranks = strcmp(argv[3], "-") ? argv[3] : NULL};
	probe p = {.st = &st, .T = atoll(argv[4]), .pe = {atoll(argv[5]), atoll(argv[6])}};
	int status = lbt_state_open(&st, &cfg, &e);
	if (!status) {
		lbt_run_opts o = lbt_run_opts_default();
		o.verify = 1;
		o.on_step = on_step;
		o.ctx = &p;
		lbt_summary sum;
		lbt_until_parse(&o.until, "steps:20", NULL);
		status = lbt_run(&st, &o, &sum, &e);
		lbt_state_close(&st);
	}
	printf("%d %s\n", status, status ? e.msg : "");
	lbt_comm_finalize();
	return 0;
}

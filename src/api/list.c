/* list.c — the public API's registries and batches (lbtorus.h): the
 * methods, their parameter schemas and the workloads by index, and the
 * papers' experiments by name (sweeps: batch.c). */
#include <stdio.h>
#include <string.h>

#include "lbtorus/kernels.h"
#include "lbtorus/method.h"
#include "lbtorus/provenance.h"
#include "lbtorus/reproduce.h"
#include "lbtorus/run.h"

#define BATCH_VERSION 0x4c424231u /* "LBB1": made by lbt_batch_default */

const char *lbt_version(void) { return LBT_VERSION; }

static const lbt_method *method_at(int i)
{
	const lbt_method *const *m = lbt_methods();
	for (int k = 0; i >= 0 && m[k]; k++)
		if (k == i)
			return m[k];
	return NULL;
}

int lbt_method_describe(int i, lbt_method_info *d)
{
#define SLOT_NAME(id, field) #field,
	static const char *const slot[] = {LBT_KERNEL_SLOTS(SLOT_NAME) NULL};
#undef SLOT_NAME
	const lbt_method *m = method_at(i);
	if (!m || !d)
		return LBT_EINVAL;
	*d = (lbt_method_info){.name = m->name, .summary = m->summary, .citation = m->citation,
	                       .real = m->load == LBT_LOAD_REAL, .deterministic = !!(m->flags & LBT_M_DETERMINISTIC),
	                       .speeds = !!(m->flags & LBT_M_SPEEDS), .nparams = m->nparams,
	                       .random = !!(m->flags & LBT_M_RANDOM), .cut = !!(m->flags & LBT_M_CUT),
	                       .scratch = !!(m->flags & LBT_M_SCRATCH), .kernels = m->kernels, .slot = slot};
	return LBT_OK;
}

int lbt_param_describe(int i, int j, lbt_param_info *d)
{
	const lbt_method *m = method_at(i);
	if (!m || !d || j < 0 || j >= m->nparams)
		return LBT_EINVAL;
	const lbt_param *p = &m->params[j];
	*d = (lbt_param_info){.name = p->name, .short_name = p->short_name, .integer = p->type == LBT_PARAM_INT,
	                      .lo = p->lo, .hi = p->hi, .lo_open = p->lo_open, .words = p->words, .def = p->def,
	                      .help = p->help};
	return LBT_OK;
}

int lbt_workload_describe(int i, lbt_workload_info *d)
{
	const lbt_workload *const *w = lbt_workloads();
	for (int k = 0; i >= 0 && d && w[k]; k++)
		if (k == i) {
			lbt_workload x; /* which loads its example runs on: what its parse accepts */
			lbt_err e;
			*d = (lbt_workload_info){.name = w[k]->name, .summary = w[k]->summary, .usage = w[k]->usage,
			                         .tasks = w[k]->tasks, .example = w[k]->example,
			                         .int_loads = !lbt_workload_parse(&x, w[k]->example, LBT_LOAD_INT, &e),
			                         .real_loads = !lbt_workload_parse(&x, w[k]->example, LBT_LOAD_REAL, &e)};
			return LBT_OK;
		}
	return LBT_EINVAL;
}

lbt_batch lbt_batch_default(void) { return (lbt_batch){.version = BATCH_VERSION}; }

const char *lbt_experiment(int i)
{
	const char *const *n = lbt_repro_names();
	for (int k = 0; i >= 0 && n[k]; k++)
		if (k == i)
			return n[k];
	return NULL;
}

int lbt_experiment_run(const char *name, const char *out_dir, const lbt_batch *b, int64_t *differs, lbt_err *e)
{
	if (!b || b->version != BATCH_VERSION)
		return lbt_errf(e, LBT_EINVAL, "batch options not made by lbt_batch_default()");
	if (!name || !out_dir)
		return lbt_errf(e, LBT_EINVAL, "an experiment needs a name and an output directory");
	const lbt_repro_opts o = {.out_dir = out_dir, .data_dir = b->data_dir, .quick = b->quick, .threads = b->threads,
	                          .isa = b->isa, .note = b->note, .ctx = b->ctx, .titles = b->titles,
	                          .interrupt = b->interrupt};
	return lbt_reproduce(name, &o, differs, e);
}

void lbt_set_call(const char *call)
{
	lbt_provenance_set_call(call ? call : "C API");
}

int lbt_isa_describe(int i, lbt_isa_info *d)
{
	const char *const *t = lbt_isa_compiled();
	int n = 0;
	while (t[n])
		n++;
	if (!d || i < 0 || i >= n)
		return LBT_EINVAL;
	lbt_kernels k;
	int chosen = !lbt_kernels_select(&k, NULL, NULL) && !strcmp(k.isa, t[i]);
	*d = (lbt_isa_info){.name = t[i], .supported = lbt_isa_supported(t[i]), .emulated = lbt_isa_emulated(t[i]),
	                    .chosen = chosen};
	return LBT_OK;
}

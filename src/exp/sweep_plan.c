/* sweep_plan.c — from a spec's lists to the distinct runs of the sweep.
 *
 * Runs are enumerated in a fixed order (method outermost, seed innermost) and
 * named by a key made of their canonical inputs, which is all that decides a
 * run's result: the same key always gives the same record (up to timing), for
 * any ISA, thread count or number of runs at once. Combinations that name
 * the same run (a seed listed twice) are run once. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lbtorus/init.h"
#include "lbtorus/run.h"
#include "lbtorus/sweep.h"
#include "exp/records.h"

int lbt_run_key(lbt_plan_run *r, lbt_err *e)
{
	free(r->key);
	char seed[24] = "any";
	if (r->seeded)
		snprintf(seed, sizeof seed, "%llu", (unsigned long long)r->seed);
	const int wl = r->workload && strcmp(r->workload, "none");
	char warm[32] = ""; /* only where it changes the record: a sweep without keeps its keys */
	if (wl && r->warmup > 0)
		snprintf(warm, sizeof warm, " warmup=%lld", (long long)r->warmup);
	if (asprintf(&r->key, "method=%s shape=%s boundary=%s init=%s until=%s%s%s%s max_steps=%lld seed=%s",
	         r->method, r->shape, r->boundary, r->init, r->until, wl ? " workload=" : "", wl ? r->workload : "",
	         warm, (long long)r->max_steps, seed) < 0) {
		r->key = NULL;
		return lbt_errf(e, LBT_ENOMEM, "no memory for a run key");
	}
	uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a 64 */
	for (const unsigned char *p = (const unsigned char *)r->key; *p; p++)
		h = (h ^ *p) * 0x100000001b3ull;
	h ^= h >> 33; /* finalizer (murmur3's fmix64): similar keys, unlike ids */
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ull;
	h ^= h >> 33;
	snprintf(r->id, sizeof r->id, "%016llx", (unsigned long long)h);
	return LBT_OK;
}

const char *lbt_record_input(const lbt_jobj *o, const char *name, char *buf, size_t n)
{
	const char *k = lbt_jobj_str(o, "run_key"), *m = lbt_jobj_str(o, name);
	size_t nl = strlen(name);
	for (const char *p = k; p && *p; p += strcspn(p, " "), p += *p == ' ') /* "a=x b=y ..." */
		if (!strncmp(p, name, nl) && p[nl] == '=') {
			snprintf(buf, n, "%.*s", (int)strcspn(p + nl + 1, " "), p + nl + 1);
			return buf;
		}
	snprintf(buf, n, "%s", m ? m : "");
	return buf;
}

static int make_run(lbt_plan_run *r, const lbt_spec *sp, const int64_t *ix, lbt_err *e)
{
	memset(r, 0, sizeof *r);
	lbt_shape s;
	lbt_init in;
	lbt_until u;
	int st;
	const char *shape = sp->item[LBT_AX_SHAPE][ix[LBT_AX_SHAPE]];
	const char *bnd = sp->item[LBT_AX_BOUNDARY][ix[LBT_AX_BOUNDARY]];
	const char *init = sp->item[LBT_AX_INIT][ix[LBT_AX_INIT]];
	const char *until = sp->item[LBT_AX_UNTIL][ix[LBT_AX_UNTIL]];
	if ((st = lbt_shape_parse(&s, shape, e)) || (st = lbt_boundary_parse(&s, bnd, e)) ||
	    (st = lbt_init_parse(&in, init, e)) || (st = lbt_init_check(&in, &s, e)) ||
	    (st = lbt_until_parse(&u, until, e)))
		return st;
	r->workload = sp->item[LBT_AX_WORKLOAD][ix[LBT_AX_WORKLOAD]];
	if (u.kind == LBT_UNTIL_STEPS && u.steps > sp->max_steps)
		return lbt_errf(e, LBT_EINVAL, "until %s conflicts with max_steps %lld", until, (long long)sp->max_steps);
	r->method = sp->item[LBT_AX_METHOD][ix[LBT_AX_METHOD]];
	if ((st = lbt_method_split(r->method, r->mname, sizeof r->mname, &r->args, e)))
		return st;
	const lbt_method *m = lbt_method_find(r->mname);
	lbt_workload w;
	if ((st = lbt_workload_parse(&w, r->workload, m->load, e)) || (st = lbt_workload_fits(&w, &s, e)))
		return st;
	if (w.tasks && (in.kind != LBT_INIT_CONST || in.a != 0))
		return lbt_errf(e, LBT_EINVAL, "workload %s starts on an empty machine: use init const:0", r->workload);
	if (m->check) { /* the values against this shape: the schema's defaults, the item's parameter */
		lbt_param_value pv[LBT_MAX_PARAMS];
		char why[160];
		for (int i = 0; i < m->nparams; i++) {
			const char *text = m->params[i].def;
			for (int j = 0; j < r->args.n; j++)
				if (r->args.p[j] == &m->params[i])
					text = r->args.value[j];
			lbt_param_parse(&m->params[i], text, &pv[i], why, sizeof why);
		}
		if ((st = m->check(&s, pv, e)))
			return st;
	}
	if (in.kind == LBT_INIT_FILE) { /* the file's header, size, dtype and shape, as the run will see them */
		lbt_setup set = {.shape = shape, .boundary = bnd, .method = r->mname, .init = init};
		for (int j = 0; j < r->args.n; j++)
			set.params[j] = (lbt_param_arg){r->args.p[j]->name, r->args.value[j]};
		if ((st = lbt_setup_check(&set, e)) || (st = lbt_init_check_values(&in, &s, e)))
			return st;
	}
	r->shape = shape; /* items are canonical already */
	r->init = init;
	r->until = until;
	lbt_boundary_format(&s, r->boundary, sizeof r->boundary);
	r->seed = strtoull(sp->item[LBT_AX_SEED][ix[LBT_AX_SEED]], NULL, 10);
	r->max_steps = sp->max_steps;
	r->warmup = w.phase ? sp->warmup : 0;
	r->seeded = in.kind == LBT_INIT_UNIFORM || !(m->flags & LBT_M_DETERMINISTIC) ||
	            (w.phase && strcmp(w.name, "tree")); /* every workload but the complete tree draws */
	r->pes = lbt_shape_pes(&s);
	r->k = lbt_shape_kmax(&s);
	return lbt_run_key(r, e);
}

static const lbt_plan_run *sort_base;
static int by_key(const void *a, const void *b)
{
	int64_t i = *(const int64_t *)a, j = *(const int64_t *)b;
	int c = strcmp(sort_base[i].key, sort_base[j].key);
	return c ? c : (i > j) - (i < j);
}

int lbt_plan_build(lbt_plan *pl, const lbt_spec *sp, lbt_err *e)
{
	memset(pl, 0, sizeof *pl);
	int64_t total = 1;
	for (int a = 0; a < LBT_NAXES; a++) {
		if (!sp->n[a])
			return lbt_errf(e, LBT_EINVAL, "the sweep has no %s", lbt_spec_axis_name(a));
		if (total > LBT_SWEEP_MAX_RUNS / sp->n[a])
			return lbt_errf(e, LBT_EINVAL, "the sweep has more than %d runs: split it", LBT_SWEEP_MAX_RUNS);
		total *= sp->n[a];
	}
	if (!(pl->run = calloc((size_t)total, sizeof *pl->run)))
		return lbt_errf(e, LBT_ENOMEM, "no memory for a plan of %lld runs", (long long)total);
	int64_t ix[LBT_NAXES] = {0};
	for (int64_t n = 0; n < total; n++) {
		lbt_err sub;
		int st = make_run(&pl->run[n], sp, ix, &sub);
		pl->n = n + 1; /* for lbt_plan_free */
		if (st) {
			lbt_errf(e, st, "run method=%s shape=%s boundary=%s init=%s: %s",
			         sp->item[LBT_AX_METHOD][ix[LBT_AX_METHOD]], sp->item[LBT_AX_SHAPE][ix[LBT_AX_SHAPE]],
			         sp->item[LBT_AX_BOUNDARY][ix[LBT_AX_BOUNDARY]], sp->item[LBT_AX_INIT][ix[LBT_AX_INIT]], sub.msg);
			lbt_plan_free(pl);
			return st;
		}
		for (int a = LBT_NAXES - 1; a >= 0 && ++ix[a] == sp->n[a]; a--)
			ix[a] = 0; /* odometer, seed fastest */
	}
	int warm = 0;
	for (int64_t i = 0; i < total; i++)
		warm |= pl->run[i].warmup > 0;
	if (sp->warmup > 0 && !warm) {
		lbt_plan_free(pl);
		return lbt_errf(e, LBT_EINVAL, "warmup %lld: no run of the sweep has a workload (give --workload)",
		                (long long)sp->warmup);
	}
	/* Drop repeated keys, keeping each run's first place in the order. */
	int64_t *order = malloc((size_t)total * sizeof *order);
	char *dup = calloc((size_t)total, 1);
	if (!order || !dup) {
		free(order);
		free(dup);
		lbt_plan_free(pl);
		return lbt_errf(e, LBT_ENOMEM, "no memory for a plan of %lld runs", (long long)total);
	}
	for (int64_t i = 0; i < total; i++)
		order[i] = i;
	sort_base = pl->run;
	qsort(order, (size_t)total, sizeof *order, by_key);
	for (int64_t i = 1; i < total; i++)
		if (!strcmp(pl->run[order[i]].key, pl->run[order[i - 1]].key))
			dup[order[i]] = 1;
	pl->n = 0;
	for (int64_t i = 0; i < total; i++) {
		if (dup[i])
			free(pl->run[i].key);
		else
			pl->run[pl->n++] = pl->run[i];
	}
	pl->duplicates = total - pl->n;
	free(order);
	free(dup);
	return LBT_OK;
}

void lbt_plan_free(lbt_plan *pl)
{
	for (int64_t i = 0; i < pl->n; i++)
		free(pl->run[i].key);
	free(pl->run);
	memset(pl, 0, sizeof *pl);
}

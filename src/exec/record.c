/* record.c — a finished run as one JSON object: what ran, what it reached,
 * and the bounds of seed 000's Theorem 3 beside the measurement. */
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lbtorus/provenance.h"
#include "lbtorus/run.h"
#include "out/jsonl.h"

static void jstr(FILE *f, const char *k, const char *v)
{
	fprintf(f, ",\"%s\":", k);
	lbt_json_string(f, v);
}

static void jint(FILE *f, const char *k, int64_t v) { fprintf(f, ",\"%s\":%lld", k, (long long)v); }
static void jopt(FILE *f, const char *k, int64_t v) /* -1: never */
{
	if (v < 0)
		fprintf(f, ",\"%s\":null", k);
	else
		jint(f, k, v);
}
/* Real numbers go through lbt_json_number: null, never inf or nan. */
static void jnum(FILE *f, const char *k, double v)
{
	fprintf(f, ",\"%s\":", k);
	lbt_json_number(f, v, 9);
}
static void jreal(FILE *f, const char *k, double v) /* all digits */
{
	fprintf(f, ",\"%s\":", k);
	lbt_json_number(f, v, 17);
}
static void jload(FILE *f, const lbt_summary *s, const char *k, double v)
{
	fprintf(f, ",\"%s\":", k);
	if (s->real)
		lbt_json_number(f, v, 17);
	else
		lbt_fprint_load(f, 0, v);
}
static void jload_opt(FILE *f, const lbt_summary *s, const char *k, double v) /* -1: never */
{
	if (v < 0)
		fprintf(f, ",\"%s\":null", k);
	else
		jload(f, s, k, v);
}

void lbt_fprint_load(FILE *f, int real, double v)
{
	if (real)
		fprintf(f, "%.17g", v);
	else
		fprintf(f, "%lld", (long long)v);
}

/* What ran: the method, the torus, the initial load, the criterion, the kernels. */
static void json_config(FILE *f, const lbt_state *st, const char *init, const lbt_run_opts *o, const lbt_summary *s)
{
	const lbt_shape *sh = &st->grid.whole;
	char buf[256];
	fprintf(f, "{\"lbtorus\":\"%s\"", LBT_VERSION);
	jstr(f, "method", st->method->name);
	lbt_shape_format(sh, buf, sizeof buf);
	jstr(f, "shape", buf);
	lbt_boundary_format(sh, buf, sizeof buf);
	jstr(f, "boundary", buf);
	jint(f, "dims", sh->dims);
	jint(f, "active_dims", lbt_shape_active_dims(sh));
	jint(f, "k", lbt_shape_kmax(sh));
	jint(f, "pes", lbt_shape_pes(sh));
	jstr(f, "init", init);
	fprintf(f, ",\"seed\":%llu", (unsigned long long)st->seed);
	if (o->until.kind == LBT_UNTIL_STEPS)
		snprintf(buf, sizeof buf, "steps:%lld", (long long)o->until.steps);
	else if (o->until.kind == LBT_UNTIL_REL) /* as given: rel:0.01, the shortest text that reads back */
		for (int p = 1; p <= 17; p++) {
			snprintf(buf, sizeof buf, "rel:%.*g", p, o->until.rel);
			if (strtod(buf + 4, NULL) == o->until.rel)
				break;
		}
	else
		snprintf(buf, sizeof buf, "%s", lbt_until_name(o->until.kind));
	jstr(f, "until", buf);
	jint(f, "max_steps", o->max_steps);
	jstr(f, "isa", st->kern->isa);
	jint(f, "threads", st->threads);
	fprintf(f, ",\"real\":%s", s->real ? "true" : "false");
	lbt_params_json(f, st);
	if (st->method->record)
		st->method->record(f, st);
}

/* The loads before and after, the steps taken and why the run stopped. */
static void json_loads(FILE *f, int64_t P, const lbt_summary *s)
{
	jload(f, s, "total", s->total);
	jnum(f, "mean", s->total / (double)P);
	jload(f, s, "initial_max", s->initial_max);
	jload(f, s, "initial_min", s->initial_min);
	jload(f, s, "initial_ldiff", s->initial_max - s->initial_min);
	jload(f, s, "final_max", s->final_max);
	jload(f, s, "final_min", s->final_min);
	jload(f, s, "final_ldiff", s->final_max - s->final_min);
	jnum(f, "initial_stddev", s->initial_stddev);
	if (s->final_rel >= 0) {
		jnum(f, "final_stddev", s->final_stddev);
		jnum(f, "final_rel", s->final_rel);
	} else
		fprintf(f, ",\"final_stddev\":null,\"final_rel\":null");
	jint(f, "steps", s->steps);
	jload(f, s, "shifts", s->shifts);
	jload(f, s, "moved", s->moved);
	fprintf(f, ",\"reached\":%s", s->reached ? "true" : "false");
	jstr(f, "stop_reason", lbt_stop_name(s->stop));
	if (s->stop == LBT_STOP_CYCLE)
		jint(f, "cycle_period", s->period);
}

/* With a workload: what it generated and completed, sqdev, a search tree's efficiency. */
static void json_workload(FILE *f, int64_t P, const lbt_run_opts *o, const lbt_summary *s)
{
	const lbt_workload *w = o->workload;
	jstr(f, "workload", w->spec[0] ? w->spec : w->name);
	jload(f, s, "generated", s->generated);
	jload(f, s, "completed", s->completed);
	jload(f, s, "idle_total", s->idle_capacity);
	jint(f, "warmup", o->warmup);
	jreal(f, "sqdev_mean", s->sqdev_mean);
	if (s->sqdev_se >= 0)
		jreal(f, "sqdev_se", s->sqdev_se);
	else
		fprintf(f, ",\"sqdev_se\":null");
	jint(f, "sqdev_steps", s->sqdev_steps);
	jint(f, "sqdev_batches", s->sqdev_batches);
	if (s->tree_levels >= 0) { /* a search tree: its nodes, and the ideal machine's lower bound */
		int64_t nodes = (int64_t)s->completed, ideal = (nodes + P - 1) / P;
		if (ideal < s->tree_levels)
			ideal = s->tree_levels;
		jint(f, "nodes", nodes);
		jint(f, "tree_levels", s->tree_levels);
		jnum(f, "efficiency", s->steps > 0 ? (double)nodes / ((double)P * (double)s->steps) : 0.0);
		jint(f, "ideal_steps", ideal);
		jnum(f, "ideal_efficiency", ideal > 0 ? (double)nodes / ((double)P * (double)ideal) : 0.0);
	}
}

/* The speeds' relative loads, a speed method's network, the application. */
static void json_speeds(FILE *f, const lbt_state *st, const lbt_run_opts *o, const lbt_summary *s)
{
	if (st->speeds[0]) { /* relative loads (Jeannot and Vernier 2006, §3.2) */
		jstr(f, "speeds", st->speeds);
		jnum(f, "rel_load_max", s->rel_load_max);
		jnum(f, "rel_load_min", s->rel_load_min);
		jnum(f, "rel_load_bound", s->rel_load_bound);
		jopt(f, "speed_balanced_step", s->speed_balanced_step);
	}
	if (st->method->flags & LBT_M_SPEEDS) {
		jstr(f, "link", st->link);
		jint(f, "links_exchanged", s->links_exchanged);
		jint(f, "shaken", s->shaken);
		jopt(f, "detected_step", s->detected_step);
	}
	if (o->app_iterations > 0) {
		jint(f, "app_iterations", o->app_iterations);
		jnum(f, "app_time", s->app_time);
		jnum(f, "lb_time", s->lb_time);
		jnum(f, "seq_time", s->seq_time);
		jnum(f, "speedup", s->speedup);
	}
}

/* Seed 000's bounds (Theorem 3 and the lower bounds) beside the measurement. */
static void json_bounds(FILE *f, const lbt_shape *sh, const lbt_summary *s)
{
	const int64_t dkl = lbt_bound_dkl(sh, (int64_t)ceil(s->initial_max - s->initial_min));
	jint(f, "dkl_bound", dkl);
	if (s->balanced_step >= 0 && dkl > 0)
		jnum(f, "balanced_over_dkl", (double)s->balanced_step / (double)dkl);
	else
		fprintf(f, ",\"balanced_over_dkl\":null");
	const int32_t max0 = (int32_t)fmin(fmax(floor(s->initial_max), INT32_MIN), INT32_MAX);
	const int64_t total = llround(s->total);
	jint(f, "lower_bound_steps", lbt_bound_lower_steps(sh, max0, total));
	jint(f, "balanced_lower_bound_steps", lbt_bound_lower_balanced(sh, max0, total));
}

void lbt_summary_json(FILE *f, const lbt_state *st, const char *init, const lbt_run_opts *o,
                      const lbt_summary *s)
{
	const lbt_shape *sh = &st->grid.whole;
	const int64_t P = lbt_shape_pes(sh);
	json_config(f, st, init, o, s);
	json_loads(f, P, s);
	if (o->workload && o->workload->phase)
		json_workload(f, P, o, s);
	jopt(f, "shared_step", s->shared_step);
	jload_opt(f, s, "shared_shifts", s->shared_shifts);
	jopt(f, "balanced_step", s->balanced_step);
	jload_opt(f, s, "balanced_shifts", s->balanced_shifts);
	jopt(f, "flat_step", s->flat_step);
	jload_opt(f, s, "flat_shifts", s->flat_shifts);
	jopt(f, "rel_step", s->rel_step);
	json_speeds(f, st, o, s);
	json_bounds(f, sh, s);
	jnum(f, "seconds", s->seconds);
	jint(f, "site_updates", s->site_updates);
	jnum(f, "site_updates_per_second", s->seconds > 0 ? (double)s->site_updates / s->seconds : 0.0);
	lbt_provenance_json(f, NULL, 0); /* isa and threads are above */
	if (!strncmp(init, "file:", 5))
		lbt_provenance_file_json(f, "init", init + 5);
	if (!strncmp(st->speeds, "file:", 5))
		lbt_provenance_file_json(f, "speeds", st->speeds + 5);
	fputc('}', f);
}

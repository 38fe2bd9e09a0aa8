/* repro_jv_shake.c — `lbtorus reproduce jv-shake`: the annealing shake of
 * Jeannot and Vernier (2006), §3.3, measured on integer loads. The paper
 * describes the shake but reports no experiment of it: this one is ours. */
#include <math.h>
#include <stddef.h>
#include <stdio.h>

#include "repro.h"

enum { NV = 5, NSEED = 5 };
static const char *const shake_p[NV] = {"0", "0.5", "0.5", "0.9", "0.9"};
static const char *const shake_tau[NV] = {"2", "1", "10", "1", "10"};

/* One run: a variant and a seed. */
typedef struct {
	int v, seed;
	int64_t T;
	/* results */
	lbt_summary sum;
	int status;
	char msg[sizeof(lbt_err){0}.msg];
} shake_run;

typedef struct {
	shake_run *r;
	const lbt_repro_opts *o;
} shake_batch;

static void shake_job(void *ctx, int64_t i)
{
	const shake_batch *b = ctx;
	const lbt_repro_opts *o = b->o;
	shake_run *r = &b->r[i];
	lbt_setup set = {.shape = "16x16", .method = "fos-speed-int", .init = "uniform:0:100",
	                 .speeds = "classes:1,2,4", .isa = o->isa, .seed = (uint64_t)r->seed, .threads = 1,
	                 .params = {{"shake", shake_p[r->v]}, {"shake_tau", shake_tau[r->v]}}, .interrupt = o->interrupt};
	lbt_state st;
	lbt_err le;
	if (!(r->status = lbt_state_open(&st, &set, &le))) {
		lbt_run_opts ro = rp_run_opts(o);
		ro.until.kind = LBT_UNTIL_STEPS;
		ro.until.steps = r->T;
		r->status = lbt_run(&st, &ro, &r->sum, &le);
		lbt_state_close(&st);
		if (!r->status && o->interrupt && *o->interrupt) /* cut short: not the run's result (on any rank) */
			r->status = lbt_errf(&le, LBT_EINTR, "interrupted");
	}
	if (r->status)
		snprintf(r->msg, sizeof r->msg, "%s", le.msg);
}

static int shake_result(void *ctx, int64_t i, void *at[LBT_SPREAD_REGIONS], size_t n[LBT_SPREAD_REGIONS])
{
	shake_run *r = &((const shake_batch *)ctx)->r[i];
	at[0] = &r->sum; /* the results: sum to the end of the struct */
	n[0] = sizeof *r - offsetof(shake_run, sum);
	return 1;
}

int rp_jv_shake(const lbt_repro_opts *o, lbt_err *e)
{
	const int64_t T = o->quick ? 300 : 2000;
	const int seeds = o->quick ? 2 : NSEED;
	static shake_run runs[NV * NSEED];
	lbt_summary sum[NV][NSEED];
	rp_note(o, "jv-shake: 16x16 torus, speeds 1/2/4, %d variants x %d seeds, %lld steps", NV, seeds, (long long)T);
	for (int v = 0; v < NV; v++)
		for (int s = 0; s < seeds; s++)
			runs[v * seeds + s] = (shake_run){.v = v, .seed = s + 1, .T = T};
	shake_batch b = {runs, o};
	const lbt_spread sp = {.run = shake_job, .result = shake_result, .ctx = &b};
	int st = rp_spread(&sp, NV * seeds, o, e);
	for (int i = 0; i < NV * seeds && !st; i++)
		if (runs[i].status)
			st = lbt_errf(e, runs[i].status, "%s", runs[i].msg);
	if (st)
		return st;
	for (int v = 0; v < NV; v++)
		for (int s = 0; s < seeds; s++)
			sum[v][s] = runs[v * seeds + s].sum;
	lbt_outfile csv, md;
	if ((st = rp_open(o, "jv-shake.csv", &csv, e)))
		return st;
	fputs("shake,shake_tau,seed,steps,rel_spread,rel_bound,speed_balanced_step,shaken,moved\n", csv.f);
	for (int v = 0; v < NV; v++)
		for (int s = 0; s < seeds; s++) {
			const lbt_summary *u = &sum[v][s];
			fprintf(csv.f, "%s,%s,%d,%lld,%.6g,%.6g,%lld,%lld,%.0f\n", shake_p[v], shake_tau[v], s + 1, (long long)T,
			        u->rel_load_max - u->rel_load_min, u->rel_load_bound, (long long)u->speed_balanced_step,
			        (long long)u->shaken, u->moved);
		}
	if ((st = lbt_out_commit(&csv, e)) || (st = rp_open(o, "jv-shake.md", &md, e)))
		return st;
	FILE *f = md.f;
	fprintf(f, "# The annealing shake of Jeannot and Vernier (2006), §3.3\n\n"
	           "The paper describes the shake (a link blocked for U iterations exchanges with probability\n"
	           "p^(U/τ), docs/methods.md) but reports no experiment of it: this one is ours. `fos-speed-int`\n"
	           "(integer loads: truncated flows block links) on a 16x16 torus, speeds 1, 2 or 4 at random\n"
	           "(`classes:1,2,4`), loads uniform 0..100, %lld steps, seeds 1..%d. Speed-balanced: max − min of\n"
	           "the relative loads w_i/Cn_i ≤ D / min Cn (the bound the integer loads allow). Means over the\n"
	           "seeds. Data: `jv-shake.csv`.\n\n"
	           "| shake p | τ | seeds speed-balanced | first step speed-balanced (those seeds) | final max − min of "
	           "w_i/Cn_i | bound | links shaken | load moved |\n|---:|---:|---:|---:|---:|---:|---:|---:|\n",
	        (long long)T, seeds);
	for (int v = 0; v < NV; v++) {
		double spread = 0, bound = 0, first = 0, shaken = 0, moved = 0;
		int bal = 0;
		for (int s = 0; s < seeds; s++) {
			const lbt_summary *u = &sum[v][s];
			spread += (u->rel_load_max - u->rel_load_min) / seeds, bound += u->rel_load_bound / seeds;
			shaken += (double)u->shaken / seeds, moved += u->moved / seeds;
			if (u->speed_balanced_step >= 0)
				bal++, first += (double)u->speed_balanced_step;
		}
		char fs[32] = "—";
		if (bal)
			snprintf(fs, sizeof fs, "%.0f", first / bal);
		fprintf(f, "| %s | %s | %d of %d | %s | %.2f | %.2f | %.0f | %.0f |\n", shake_p[v], v ? shake_tau[v] : "—", bal,
		        seeds, fs, spread, bound, shaken, moved);
	}
	return lbt_out_commit(&md, e);
}

/* repro_jv_shake.c — `lbtorus reproduce jv-shake`: the annealing shake of
 * Jeannot and Vernier (2006), §3.3, measured on integer loads. The paper
 * describes the shake but reports no experiment of it: this one is ours. */
#include <math.h>
#include <stdio.h>

#include "repro.h"

enum { NV = 5, NSEED = 5 };
static const char *const shake_p[NV] = {"0", "0.5", "0.5", "0.9", "0.9"};
static const char *const shake_tau[NV] = {"2", "1", "10", "1", "10"};

int rp_jv_shake(const lbt_repro_opts *o, lbt_err *e)
{
	const int64_t T = o->quick ? 300 : 2000;
	const int seeds = o->quick ? 2 : NSEED;
	lbt_summary sum[NV][NSEED];
	rp_note(o, "jv-shake: 16x16 torus, speeds 1/2/4, %d variants x %d seeds, %lld steps", NV, seeds, (long long)T);
	for (int v = 0; v < NV; v++)
		for (int s = 0; s < seeds; s++) {
			lbt_setup set = {.shape = "16x16", .method = "fos-speed-int", .init = "uniform:0:100",
			                 .speeds = "classes:1,2,4", .isa = o->isa, .seed = (uint64_t)s + 1, .threads = 1,
			                 .params = {{"shake", shake_p[v]}, {"shake_tau", shake_tau[v]}}, .interrupt = o->interrupt};
			lbt_state st;
			int status = lbt_state_open(&st, &set, e);
			if (status)
				return status;
			lbt_run_opts ro = rp_run_opts(o);
			ro.until.kind = LBT_UNTIL_STEPS;
			ro.until.steps = T;
			status = lbt_run(&st, &ro, &sum[v][s], e);
			lbt_state_close(&st);
			if (status)
				return status;
		}
	lbt_outfile csv, md;
	int st = rp_open(o, "jv-shake.csv", &csv, e);
	if (st)
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

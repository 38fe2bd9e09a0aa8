/* repro_trees.c — `lbtorus reproduce trees`: the Liquid model's application
 * claim (Henrich 1996, §5): on the 16384-PE MasPar, solving search trees,
 * "All three conditions performing only the load sharing task (C0 through
 * C2) are average. In contrast, the LM using any shift condition including
 * load balancing (C3 through C5) are very efficient. All of them outperform
 * the NNA method."
 *
 * Ours: K x K tori, K = 32, 64, 128; a complete binary tree with about 128
 * nodes per PE (tree:2:DEPTH), random Galton-Watson trees (gw:2:0.499:K:
 * a node has 2 children with probability 0.499, K roots; nearly critical,
 * so thin and deep; seeds 1..5; every method searches the same tree of a
 * seed), and on 128 x 128 a tree of the paper's size (10^6..10^8 nodes),
 * tree:2:23 (1.7e7 nodes; a random tree that large would need thousands of
 * roots on one PE, a start unlike a search's); all roots on PE (0, 0); every
 * LM condition, NNA, FOS on integer loads (fos-int: trees need whole tasks).
 * The run ends when no node is left (--until done). Measured: steps to
 * finish (one expansion and one balancing step each), the balancing's time
 * in shifts (the paper's unit in §5: an LM step is D = 2 shifts, an NNA or
 * FOS iteration its largest per-link transfer per direction) and efficiency
 * = nodes / (P x steps), beside the ideal machine's max(ceil(nodes/P),
 * levels). The claim's verdicts are computed per unit from the times printed
 * beside them. Without balancing PE (0, 0) expands every node, one per step,
 * so it needs exactly `nodes` steps (tests/test_workload.c checks it); those
 * runs are not made here. The tree model (which nodes a balancing step
 * moves) is described in src/exec/tree.c and docs/usage.md. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "repro.h"

enum { NM = 8, NC = 3, SEEDS = 5, NT = 3 };

static const char *const methods[NM] = {"lm-c0", "lm-c1", "lm-c2", "lm-c3", "lm-c4", "lm-c5", "nna", "fos-int"};
static const char *const labels[NM] = {"LM-C0", "LM-C1", "LM-C2", "LM-C3", "LM-C4", "LM-C5", "NNA", "FOS (integer)"};
static const char *const titles[NT] = {"Complete binary trees (~128 nodes per PE)",
                                       "Random Galton-Watson trees (nearly critical: thin and deep)",
                                       "A complete tree of the paper's size (10^6..10^8 nodes)"};

/* One column of a table: a torus and a tree, run for `seeds` seeds. */
typedef struct {
	int64_t K;
	char spec[40];
	int seeds;
	/* results per method: means over seeds (as printed: rounded to 0.1) */
	double eff[NM], lo[NM], hi[NM], rel[NM], rlo[NM], rhi[NM], steps[NM], shifts[NM], nodes, ideal;
} tcol;

static double round1(double x) { return round(x * 10) / 10; }

/* Which of C0..C5 take the least (best) or the most time: "C2" or "C0 = C5". */
static void extreme(const double *t, int most, char *buf, size_t n)
{
	double v = t[0];
	for (int m = 1; m < 6; m++)
		v = most ? fmax(v, t[m]) : fmin(v, t[m]);
	size_t len = 0;
	buf[0] = 0;
	for (int m = 0; m < 6; m++)
		if (t[m] == v && len < n)
			len += (size_t)snprintf(buf + len, n - len, "%sC%d", len ? " = " : "", m);
}

/* The claim on one column in one unit: C3..C5 each take less time than every
 * one of C0..C2; every one of C0..C5 less than NNA. */
static void verdict(const double *t, int *c35_c02, int *lm_nna)
{
	double worst35 = fmax(t[3], fmax(t[4], t[5])), best02 = fmin(t[0], fmin(t[1], t[2]));
	double worst05 = fmax(worst35, fmax(t[0], fmax(t[1], t[2])));
	*c35_c02 = worst35 < best02;
	*lm_nna = worst05 < t[6];
}

static int write_md(const lbt_repro_opts *o, const tcol cols[NT][NC], const int nc[NT], const rp_claim *cl,
                    int unfinished, lbt_err *e)
{
	lbt_outfile out;
	int st = rp_open(o, "trees.md", &out, e);
	if (st)
		return st;
	FILE *f = out.f;
	fprintf(f, "# The Liquid model on search trees (Henrich 1996, §5)\n\n"
	        "K x K tori, every root on PE (0, 0), one node expanded per PE and step, the children on the\n"
	        "expanding PE, then one step of the method (src/exec/tree.c: a PE works depth-first and gives\n"
	        "away its shallowest nodes). Complete: tree:2:DEPTH. Random: gw:2:P:ROOTS (Galton-Watson: a node\n"
	        "has 2 children with probability P; every method searches the same tree of a seed), mean over\n"
	        "the seeds with [min, max]. Time in two units: **steps** (one expansion and one balancing step\n"
	        "each) and **shifts**, the balancing's time in the paper's unit (§5: \"As time unit T, the number\n"
	        "of shifts executed synchronously is used\"; an LM step is D = 2 shifts, an NNA or FOS iteration\n"
	        "costs per direction the largest amount crossing one link). The paper's search-tree paragraph\n"
	        "names no unit; shifts are the unit of all its other results. Efficiency = nodes / (P × steps);\n"
	        "ideal steps = max(⌈nodes/P⌉, levels). Without balancing PE (0, 0) expands every node: steps =\n"
	        "nodes, efficiency 1/P. The plots show ideal steps / steps (random trees: mean over seeds, bars\n"
	        "from min to max). Data: `trees.csv`; plots: `trees_complete.png`, `trees_random.png`.%s\n\n",
	        unfinished ? " Some runs did not finish within the step cap (see `trees.csv`, finished = 0)." : "");
	for (int t = 0; t < NT; t++) {
		fprintf(f, "## %s%s\n\n| method |", titles[t], t == 2 && o->quick ? " (--quick: smaller)" : "");
		for (int k = 0; k < nc[t]; k++) {
			const tcol *c = &cols[t][k];
			fprintf(f, " %lldx%lld %s, %.3g nodes: efficiency |", (long long)c->K, (long long)c->K, c->spec, c->nodes);
			if (c->seeds > 1)
				fputs(" ideal steps / steps |", f);
			fputs(" steps | shifts |", f);
		}
		fputs("\n|---|", f);
		for (int k = 0; k < nc[t]; k++)
			fputs(cols[t][k].seeds > 1 ? "---:|---:|---:|---:|" : "---:|---:|---:|", f);
		fputs("\n", f);
		for (int m = 0; m < NM; m++) {
			fprintf(f, "| %s |", labels[m]);
			for (int k = 0; k < nc[t]; k++) {
				const tcol *c = &cols[t][k];
				if (c->seeds > 1)
					fprintf(f, " %.4f [%.4f, %.4f] | %.2f [%.2f, %.2f] | %.1f | %.1f |", c->eff[m], c->lo[m], c->hi[m],
					        c->rel[m], c->rlo[m], c->rhi[m], c->steps[m], c->shifts[m]);
				else
					fprintf(f, " %.3f | %.0f | %.0f |", c->eff[m], c->steps[m], c->shifts[m]);
			}
			fputs("\n", f);
		}
		fputs("| ideal machine |", f);
		for (int k = 0; k < nc[t]; k++)
			fprintf(f, cols[t][k].seeds > 1 ? " %.4f | 1 | | |" : " %.3f | | |", cols[t][k].ideal);
		fputs("\n\n", f);
	}
	/* the claim per column and unit, from the times printed above */
	fputs("## The claim per tree, torus and unit\n\n"
	      "Computed from the steps and shifts above (less time = better; a tie is not \"faster\"). "
	      "Shifts are the paper's unit.\n\n"
	      "| trees | torus, tree | unit | C3–C5 each faster than every one of C0–C2 | C0–C5 each faster than NNA | "
	      "fastest of C0–C5 | slowest of C0–C5 |\n|---|---|---|---|---|---|---|\n", f);
	int n = 0, yes[2][2] = {{0}};
	for (int t = 0; t < NT; t++)
		for (int k = 0; k < nc[t]; k++)
			for (int u = 0; u < 2; u++) {
				const tcol *c = &cols[t][k];
				const double *tm = u ? c->shifts : c->steps;
				int a, b;
				char best[32], worst[32];
				verdict(tm, &a, &b);
				extreme(tm, 0, best, sizeof best);
				extreme(tm, 1, worst, sizeof worst);
				fprintf(f, "| %s | %lldx%lld %s | %s | %s | %s | %s | %s |\n", t == 0 ? "complete" : t == 1 ? "random" : "paper's size",
				        (long long)c->K, (long long)c->K, c->spec, u ? "shifts" : "steps", a ? "yes" : "no", b ? "yes" : "no",
				        best, worst);
				yes[u][0] += a, yes[u][1] += b;
				n += !u;
			}
	char ours[700];
	snprintf(ours, sizeof ours,
	         "in shifts (the paper's unit): C3–C5 faster than every one of C0–C2 on %d of %d trees, C0–C5 all faster "
	         "than NNA on %d of %d; in steps: %d of %d and %d of %d. %s",
	         yes[1][0], n, yes[1][1], n, yes[0][0], n, yes[0][1], n,
	         yes[1][0] == n && yes[1][1] == n ? "Our numbers support the claim in the paper's unit."
	                                          : "Our numbers do not support the claim as stated in the paper's unit.");
	fputs("\n## The paper beside ours\n\n", f);
	rp_md_claims_head(f);
	rp_md_claim(f, cl, NAN, ours);
	return lbt_out_commit(&out, e);
}

/* The columns: complete and random trees on K x K tori, and one complete
 * tree of the paper's size on the paper's machine (--quick: the same
 * kinds, smaller). */
static void trees_columns(const lbt_repro_opts *o, tcol cols[NT][NC], int nc[NT])
{
	static const int64_t Kf[NC] = {32, 64, 128}, Kq[NC] = {16, 32, 0};
	static const int depth_f[NC] = {16, 18, 20}, depth_q[NC] = {14, 16, 0};
	memset(cols, 0, NT * sizeof *cols);
	nc[0] = nc[1] = o->quick ? 2 : 3;
	nc[2] = 1;
	for (int k = 0; k < NC; k++) {
		int64_t K = o->quick ? Kq[k] : Kf[k];
		cols[0][k] = (tcol){.K = K, .seeds = 1};
		snprintf(cols[0][k].spec, sizeof cols[0][k].spec, "tree:2:%d", o->quick ? depth_q[k] : depth_f[k]);
		cols[1][k] = (tcol){.K = K, .seeds = o->quick ? 2 : SEEDS};
		snprintf(cols[1][k].spec, sizeof cols[1][k].spec, "gw:2:0.499:%lld", (long long)K);
	}
	cols[2][0] = (tcol){.K = o->quick ? 32 : 128, .seeds = 1};
	snprintf(cols[2][0].spec, sizeof cols[2][0].spec, o->quick ? "tree:2:18" : "tree:2:23");
}

/* Every column x method x seed as a job, in that order (*shape: their
 * shapes' text); *n: how many. */
static int trees_jobs(const tcol cols[NT][NC], const int nc[NT], rp_wjob **jobs, char (**shape)[24], int *n,
                      lbt_err *e)
{
	int total = 0;
	for (int t = 0; t < NT; t++)
		for (int k = 0; k < nc[t]; k++)
			total += NM * cols[t][k].seeds;
	*jobs = calloc((size_t)total, sizeof **jobs);
	*shape = calloc((size_t)total, sizeof **shape);
	if (!*jobs || !*shape)
		return lbt_errf(e, LBT_ENOMEM, "trees: no memory");
	*n = 0;
	for (int t = 0; t < NT; t++)
		for (int k = 0; k < nc[t]; k++)
			for (int m = 0; m < NM; m++)
				for (int s = 0; s < cols[t][k].seeds; s++, ++*n) {
					snprintf((*shape)[*n], sizeof (*shape)[*n], "%lldx%lld", (long long)cols[t][k].K,
					         (long long)cols[t][k].K);
					(*jobs)[*n] = (rp_wjob){.shape = (*shape)[*n], .method = methods[m], .spec = cols[t][k].spec,
					                        .init = "const:0", .until = {LBT_UNTIL_DONE, 0, 0},
					                        .max_steps = 200 * 128 + 20000, .seed = (uint64_t)s + 1};
				}
	return LBT_OK;
}

/* trees.csv: a row per run; *unfinished: the runs that did not finish. */
static int trees_csv(const lbt_repro_opts *o, const rp_wjob *jobs, int n, int *unfinished, lbt_err *e)
{
	lbt_outfile out;
	int st = rp_open(o, "trees.csv", &out, e);
	if (st)
		return st;
	fputs("tree,K,P,method,seed,finished,nodes,levels,steps,shifts,ideal_steps,efficiency,ideal_efficiency,"
	      "idle_capacity\n", out.f);
	for (int i = 0; i < n; i++) {
		const rp_wjob *j = &jobs[i];
		int64_t K = strtoll(j->shape, NULL, 10), P = K * K, nodes = (int64_t)j->s.completed;
		int64_t ideal = (nodes + P - 1) / P > j->s.tree_levels ? (nodes + P - 1) / P : j->s.tree_levels;
		*unfinished += !j->s.reached;
		fprintf(out.f, "%s,%lld,%lld,%s,%llu,%d,%lld,%lld,%lld,%.0f,%lld,%.6f,%.6f,%.0f\n", j->spec, (long long)K,
		        (long long)P, j->method, (unsigned long long)j->seed, j->s.reached, (long long)nodes,
		        (long long)j->s.tree_levels, (long long)j->s.steps, j->s.shifts, (long long)ideal,
		        (double)nodes / ((double)P * (double)j->s.steps), (double)nodes / ((double)P * (double)ideal),
		        j->s.idle_capacity);
	}
	return lbt_out_commit(&out, e);
}

/* Each column's results per method from its jobs (in trees_jobs' order):
 * efficiency and relative efficiency (ideal steps / steps) over seeds. */
static void trees_summary(tcol cols[NT][NC], const int nc[NT], const rp_wjob *jobs)
{
	int n = 0;
	for (int t = 0; t < NT; t++)
		for (int k = 0; k < nc[t]; k++) {
			tcol *c = &cols[t][k];
			const double P = (double)(c->K * c->K);
			for (int m = 0; m < NM; m++) {
				double sum = 0, ss = 0, sh = 0, mn = INFINITY, mx = -INFINITY, rs = 0, rmn = INFINITY, rmx = -INFINITY;
				for (int s = 0; s < c->seeds; s++, n++) {
					const rp_wjob *j = &jobs[n];
					double nodes = j->s.completed, ef = nodes / (P * (double)j->s.steps);
					double id = fmax(ceil(nodes / P), (double)j->s.tree_levels), r = id / (double)j->s.steps;
					sum += ef, ss += (double)j->s.steps, sh += j->s.shifts, mn = fmin(mn, ef), mx = fmax(mx, ef);
					rs += r, rmn = fmin(rmn, r), rmx = fmax(rmx, r);
					if (m == 0)
						c->nodes += nodes / c->seeds, c->ideal += nodes / (P * id) / c->seeds;
				}
				c->eff[m] = sum / c->seeds, c->lo[m] = mn, c->hi[m] = mx;
				c->rel[m] = rs / c->seeds, c->rlo[m] = rmn, c->rhi[m] = rmx;
				c->steps[m] = round1(ss / c->seeds), c->shifts[m] = round1(sh / c->seeds);
			}
		}
}

/* The relative efficiency against P of the complete (t = 0) and the random
 * trees (t = 1, with min..max over seeds). */
static int trees_plot(const lbt_repro_opts *o, const tcol cols[NT][NC], const int nc[NT], int t, lbt_err *e)
{
	lbt_series s[NM];
	double x[NC], y[NM][NC], ylo[NM][NC], yhi[NM][NC];
	for (int k = 0; k < nc[t]; k++) {
		x[k] = (double)(cols[t][k].K * cols[t][k].K);
		for (int m = 0; m < NM; m++)
			y[m][k] = cols[t][k].rel[m], ylo[m][k] = cols[t][k].rlo[m], yhi[m][k] = cols[t][k].rhi[m];
	}
	for (int m = 0; m < NM; m++)
		s[m] = (lbt_series){labels[m], x, y[m], nc[t], LBT_DRAW_POINTS, 0, 0, 0, t ? ylo[m] : NULL, t ? yhi[m] : NULL};
	char note[512];
	rp_mark_coinciding(s, NM, note, sizeof note);
	lbt_axes ax = {t ? "Random search trees (Galton-Watson), roots on PE (0,0)" : "Complete binary search trees, root on PE (0,0)",
	               "PEs P (K x K torus)", "ideal steps / steps (efficiency relative to the ideal machine)", 1, 0, 1,
	               0, note[0] ? note : NULL, "outside right top"};
	return rp_plot(o, t ? "trees_random" : "trees_complete", &ax, s, NM, e);
}

int rp_trees(const lbt_repro_opts *o, lbt_err *e)
{
	tcol cols[NT][NC];
	int nc[NT];
	trees_columns(o, cols, nc);
	rp_claim cl;
	int st = rp_claim_get(o, "trees_c3_c5_very_efficient", &cl, e);
	if (st)
		return st;
	rp_wjob *jobs = NULL;
	char (*shape)[24] = NULL;
	int n = 0, unfinished = 0;
	if (!(st = trees_jobs((const tcol(*)[NC])cols, nc, &jobs, &shape, &n, e))) {
		rp_note(o, "trees: %d runs", n);
		st = rp_run_wjobs(jobs, n, o, e);
	}
	if (!st)
		st = trees_csv(o, jobs, n, &unfinished, e);
	if (!st) {
		trees_summary(cols, nc, jobs);
		st = write_md(o, (const tcol(*)[NC])cols, nc, &cl, unfinished, e);
	}
	for (int t = 0; !st && t < 2; t++)
		st = trees_plot(o, (const tcol(*)[NC])cols, nc, t, e);
	free(jobs), free(shape);
	return st;
}

/* repro_trees.c — `lbtorus reproduce trees`: the Liquid model's application
 * claim (Henrich 1996, §5): on the 16384-PE MasPar, solving search trees,
 * "All three conditions performing only the load sharing task (C0 through
 * C2) are average. In contrast, the LM using any shift condition including
 * load balancing (C3 through C5) are very efficient. All of them outperform
 * the NNA method."
 *
 * Ours: K x K tori, K = 32, 64, 128; a complete binary tree with about 128
 * nodes per PE (tree:2:DEPTH) and random Galton-Watson trees (gw:2:0.499:K:
 * a node has 2 children with probability 0.499, K roots; nearly critical,
 * so thin and deep; seeds 1..5; every method searches the same tree of a
 * seed), all roots on PE (0, 0); every LM condition, NNA, FOS on
 * integer loads (fos-int: trees need whole tasks) and no balancing. The run
 * ends when no node is left (--until done). Measured: steps to finish and
 * efficiency = nodes / (P x steps), beside the ideal machine's
 * max(ceil(nodes/P), levels). Without balancing PE (0, 0) expands every
 * node, one per step, so it needs exactly `nodes` steps (tests/test_workload.c
 * checks it); those runs are not made here. The tree model (which nodes a
 * balancing step moves) is described in src/exec/tree.c and docs/usage.md. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "repro.h"

enum { NM = 8, NK = 3, SEEDS = 5, NT = 2 };

static const char *const methods[NM] = {"lm-c0", "lm-c1", "lm-c2", "lm-c3", "lm-c4", "lm-c5", "nna", "fos-int"};
static const char *const labels[NM] = {"LM-C0", "LM-C1", "LM-C2", "LM-C3", "LM-C4", "LM-C5", "NNA", "FOS (integer)"};

int rp_trees(const lbt_repro_opts *o, lbt_err *e)
{
	static const int64_t full[NK] = {32, 64, 128}, quick[NK] = {16, 32, 0};
	static const int depth_full[NK] = {16, 18, 20}, depth_quick[NK] = {14, 16, 0};
	const int64_t *Ks = o->quick ? quick : full;
	const int *depth = o->quick ? depth_quick : depth_full;
	const int nk = o->quick ? 2 : NK, seeds = o->quick ? 2 : SEEDS;
	rp_claim cl;
	int st = rp_claim_get(o, "trees_c3_c5_very_efficient", &cl, e);
	if (st)
		return st;
	/* jobs[tree][m][k][seed]: tree 0 complete (seed slot 0), 1 Galton-Watson */
	rp_wjob *jobs = calloc((size_t)NT * NM * NK * SEEDS, sizeof *jobs);
	char (*text)[2][48] = calloc((size_t)NT * NM * NK * SEEDS, sizeof *text);
	if (!jobs || !text) {
		free(jobs), free(text);
		return lbt_errf(e, LBT_ENOMEM, "trees: no memory");
	}
#define J(t, m, k, s) jobs[(((t) * NM + (m)) * NK + (k)) * SEEDS + (s)]
	rp_wjob *flat = calloc((size_t)NT * NM * NK * SEEDS, sizeof *flat);
	int *where = calloc((size_t)NT * NM * NK * SEEDS, sizeof *where);
	int n = 0;
	for (int t = 0; t < NT; t++)
		for (int m = 0; m < NM; m++)
			for (int k = 0; k < nk; k++)
				for (int s = 0; s < (t ? seeds : 1); s++) {
					int i = (((t * NM) + m) * NK + k) * SEEDS + s;
					snprintf(text[i][0], sizeof text[i][0], "%lldx%lld", (long long)Ks[k], (long long)Ks[k]);
					if (t)
						snprintf(text[i][1], sizeof text[i][1], "gw:2:0.499:%lld", (long long)Ks[k]);
					else
						snprintf(text[i][1], sizeof text[i][1], "tree:2:%d", depth[k]);
					jobs[i] = (rp_wjob){.shape = text[i][0], .method = methods[m], .spec = text[i][1],
					                    .init = "const:0", .until = {LBT_UNTIL_DONE, 0, 0},
					                    .max_steps = 200 * 128 + 20000, .seed = (uint64_t)s + 1};
					where[n] = i;
					flat[n++] = jobs[i];
				}
	rp_note(o, "trees: %d runs on tori of %lldx%lld..%lldx%lld", n, (long long)Ks[0], (long long)Ks[0],
	        (long long)Ks[nk - 1], (long long)Ks[nk - 1]);
	if (!flat || !where)
		st = lbt_errf(e, LBT_ENOMEM, "trees: no memory");
	else
		st = rp_run_wjobs(flat, n, o, e);
	for (int i = 0; !st && i < n; i++)
		jobs[where[i]] = flat[i];

	lbt_outfile out;
	if (!st && !(st = rp_open(o, "trees.csv", &out, e))) {
		fputs("tree,K,P,method,seed,finished,nodes,levels,steps,ideal_steps,efficiency,ideal_efficiency,"
		      "idle_capacity\n", out.f);
		for (int i = 0; i < n; i++) {
			const rp_wjob *j = &flat[i];
			int64_t K = strtoll(j->shape, NULL, 10), P = K * K, nodes = (int64_t)j->s.completed;
			int64_t ideal = (nodes + P - 1) / P > j->s.tree_levels ? (nodes + P - 1) / P : j->s.tree_levels;
			fprintf(out.f, "%s,%lld,%lld,%s,%llu,%d,%lld,%lld,%lld,%lld,%.6f,%.6f,%.0f\n", j->spec, (long long)K,
			        (long long)P, j->method, (unsigned long long)j->seed, j->s.reached, (long long)nodes,
			        (long long)j->s.tree_levels, (long long)j->s.steps, (long long)ideal,
			        (double)nodes / ((double)P * (double)j->s.steps), (double)nodes / ((double)P * (double)ideal),
			        j->s.idle_capacity);
		}
		st = lbt_out_commit(&out, e);
	}
	/* eff[t][m][k]: mean efficiency over seeds, with min and max */
	double eff[NT][NM][NK], lo[NT][NM][NK], hi[NT][NM][NK], stp[NT][NM][NK], ideal[NT][NK], x[NK];
	double rel[NT][NM][NK], rlo[NT][NM][NK], rhi[NT][NM][NK]; /* ideal steps / steps: efficiency / the ideal's */
	int unfinished = 0;
	for (int t = 0; t < NT; t++)
		for (int k = 0; k < nk; k++) {
			int64_t P = Ks[k] * Ks[k];
			x[k] = (double)P;
			ideal[t][k] = 0;
			for (int m = 0; m < NM; m++) {
				double sum = 0, ss = 0, mn = INFINITY, mx = -INFINITY, rs = 0, rmn = INFINITY, rmx = -INFINITY;
				int ns = t ? seeds : 1;
				for (int s = 0; s < ns; s++) {
					const rp_wjob *j = &J(t, m, k, s);
					unfinished += !j->s.reached;
					double ef = (double)j->s.completed / ((double)P * (double)j->s.steps);
					sum += ef, ss += (double)j->s.steps, mn = fmin(mn, ef), mx = fmax(mx, ef);
					int64_t nodes = (int64_t)j->s.completed, id = (nodes + P - 1) / P;
					if (id < j->s.tree_levels)
						id = j->s.tree_levels;
					if (m == 0)
						ideal[t][k] += (double)nodes / ((double)P * (double)id) / ns;
					double r = (double)id / (double)j->s.steps;
					rs += r, rmn = fmin(rmn, r), rmx = fmax(rmx, r);
				}
				rel[t][m][k] = rs / ns;
				rlo[t][m][k] = rmn;
				rhi[t][m][k] = rmx;
				eff[t][m][k] = sum / ns;
				stp[t][m][k] = ss / ns;
				lo[t][m][k] = mn;
				hi[t][m][k] = mx;
			}
		}
	/* the claim, part by part, on every torus and tree */
	int c35_beat_c02 = 1, all_beat_nna = 1, c35_beat_nna = 1;
	for (int t = 0; t < NT; t++)
		for (int k = 0; k < nk; k++) {
			double best02 = fmax(eff[t][0][k], fmax(eff[t][1][k], eff[t][2][k]));
			double worst35 = fmin(eff[t][3][k], fmin(eff[t][4][k], eff[t][5][k]));
			c35_beat_c02 &= worst35 > best02;
			c35_beat_nna &= worst35 > eff[t][6][k];
			for (int m = 0; m < 6; m++)
				all_beat_nna &= eff[t][m][k] > eff[t][6][k];
		}
	if (!st && !(st = rp_open(o, "trees.md", &out, e))) {
		FILE *f = out.f;
		fprintf(f, "# The Liquid model on search trees (Henrich 1996, §5)\n\n"
		        "K x K tori, every root on PE (0, 0), one node expanded per PE and step, the children on the\n"
		        "expanding PE, then one step of the method (src/exec/tree.c: a PE works depth-first and gives\n"
		        "away its shallowest nodes). Complete: tree:2:DEPTH, ~128 nodes per PE. Random: gw:2:0.499:K\n"
		        "(Galton-Watson, K roots, nearly critical: thin and deep; every method searches the same tree of\n"
		        "a seed), mean over seeds 1..%d with [min, max]. Efficiency = nodes / (P × steps);\n"
		        "ideal = the lower bound max(⌈nodes/P⌉, levels). Without balancing PE (0, 0) expands every\n"
		        "node: steps = nodes, efficiency 1/P. The plots show ideal steps / steps, the efficiency\n"
		        "relative to the ideal machine's (random trees: mean over seeds, bars from min to max).\n"
		        "Data: `trees.csv`; plots: `trees_complete.png`, `trees_random.png`.%s\n\n", seeds,
		        unfinished ? " Some runs did not finish within the step cap (see `trees.csv`, finished = 0)." : "");
		for (int t = 0; t < NT; t++) {
			fprintf(f, "## %s trees: efficiency (steps)%s\n\n| method |", t ? "Random (Galton-Watson)" : "Complete binary",
			        t ? "; ideal steps / steps" : "");
			for (int k = 0; k < nk; k++)
				fprintf(f, " %lldx%lld (%s) |", (long long)Ks[k], (long long)Ks[k], J(t, 0, k, 0).spec);
			fputs("\n|---|", f);
			for (int k = 0; k < nk; k++)
				fputs("---:|", f);
			fputs("\n", f);
			for (int m = 0; m < NM; m++) {
				fprintf(f, "| %s |", labels[m]);
				for (int k = 0; k < nk; k++) {
					if (t)
						fprintf(f, " %.4f [%.4f, %.4f] (%.0f); %.2f [%.2f, %.2f] |", eff[t][m][k], lo[t][m][k], hi[t][m][k],
						        stp[t][m][k], rel[t][m][k], rlo[t][m][k], rhi[t][m][k]);
					else
						fprintf(f, " %.3f (%.0f) |", eff[t][m][k], stp[t][m][k]);
				}
				fputs("\n", f);
			}
			fputs("| no balancing | ", f);
			for (int k = 0; k < nk; k++)
				fprintf(f, "1/P = %.2g (nodes) |", 1.0 / x[k]);
			fputs("\n| ideal machine |", f);
			for (int k = 0; k < nk; k++)
				fprintf(f, " %.3f |", ideal[t][k]);
			fputs("\n\n", f);
		}
		char ours[600];
		snprintf(ours, sizeof ours, "C3–C5 above every one of C0–C2 on every torus and tree: %s; C3–C5 above NNA: %s; "
		         "all of C0–C5 above NNA: %s. %s", c35_beat_c02 ? "yes" : "no", c35_beat_nna ? "yes" : "no",
		         all_beat_nna ? "yes" : "no",
		         c35_beat_c02 && all_beat_nna ? "Our numbers support the claim."
		                                      : "Our numbers do not support the claim as stated (see above).");
		fputs("## The paper beside ours\n\n", f);
		rp_md_claims_head(f);
		rp_md_claim(f, &cl, NAN, ours);
		st = lbt_out_commit(&out, e);
	}
	for (int t = 0; !st && t < NT; t++) {
		lbt_series s[NM];
		for (int m = 0; m < NM; m++)
			s[m] = (lbt_series){labels[m], x, rel[t][m], nk, LBT_DRAW_POINTS, 0, 0, 0, t ? rlo[t][m] : NULL,
			                    t ? rhi[t][m] : NULL};
		char note[512];
		rp_mark_coinciding(s, NM, note, sizeof note);
		lbt_axes ax = {t ? "Random search trees (Galton-Watson), roots on PE (0,0)" : "Complete binary search trees, root on PE (0,0)",
		               "PEs P (K x K torus)", "ideal steps / steps (efficiency relative to the ideal machine)", 1, 0, 1,
		               0, note[0] ? note : NULL, t ? "center right" : "top right"};
		int ps = rp_plot(o, t ? "trees_random" : "trees_complete", &ax, s, NM, e);
		if (ps)
			st = ps;
	}
#undef J
	free(jobs), free(text), free(flat), free(where);
	return st;
}

/* repro_jv.c — the experiments of E. Jeannot and F. Vernier, A Practical
 * Approach of Diffusion Load Balancing Algorithms (Euro-Par 2006, §4): a
 * line of 64 PEs with all the load 64 w* on the first, an application of
 * 1000 iterations, one balancing step per iteration for the first "LB
 * iterations" (or until the convergence detection stops balancing).
 *   jv-fig1   LAN: gain (T1 - T2)/T1 of cost/benefit k = 1000 - t with
 *             detection (Algo2) over plain diffusion (Algo1)
 *   jv-fig23  DSL: application time of plain diffusion (Fig. 2) and of the
 *             adaptive k with detection (Fig. 3), beside one PE's time
 *   jv-table1 DSL: PEs the adaptive version ends up using, beside the optimum
 *             with global knowledge
 *   jv-speeds heterogeneous speeds on a 2-D torus: Mr against Boillat's alpha
 * The paper gives surfaces; we draw one curve per w* (the surface's sections)
 * and say in NAME.md where the shapes agree. */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "repro.h"
#include "lbtorus/method.h"
#include "lbtorus/speeds.h"

typedef rp_jv_run jv_run;

static int jv_one(rp_jv_run *r, const lbt_repro_opts *o, lbt_err *e)
{
	lbt_setup set = {.shape = r->shape ? r->shape : "64", .boundary = r->boundary ? r->boundary : "mesh",
	                 .method = r->method ? r->method : "fos-speed-int", .init = r->init, .isa = o->isa,
	                 .seed = 1, .threads = 1, .speeds = r->speeds, .link = r->link, .interrupt = o->interrupt};
	int np = 0;
	if (r->cb)
		set.params[np++] = (lbt_param_arg){"cb_k", r->cb};
	if (r->detect)
		set.params[np++] = (lbt_param_arg){"detect", r->detect};
	if (r->alpha)
		set.params[np++] = (lbt_param_arg){"alpha", r->alpha};
	lbt_state st;
	int status = lbt_state_open(&st, &set, e);
	if (status)
		return status;
	if (r->unit_s > 0) /* another calibration (the time model reads st.net at every use) */
		st.net.unit_s = r->unit_s;
	if (r->unit_bytes > 0)
		st.net.unit_bytes = r->unit_bytes;
	lbt_run_opts ro = rp_run_opts(o);
	ro.until.kind = LBT_UNTIL_STEPS;
	ro.until.steps = r->steps;
	ro.app_iterations = JV_N;
	status = lbt_run(&st, &ro, &r->sum, e);
	int32_t *l = malloc((size_t)lbt_shape_pes(&st.grid.shape) * sizeof *l);
	if (!status && !l)
		status = lbt_errf(e, LBT_ENOMEM, "no memory");
	if (!status) {
		lbt_grid_export(&st.grid, l);
		r->used = 0;
		for (int64_t i = 0; i < lbt_shape_pes(&st.grid.shape); i++)
			r->used += l[i] > 0;
	}
	free(l);
	lbt_state_close(&st);
	return status;
}

/* A batch of runs as rp_spread takes it. */
typedef struct {
	rp_jv_run *r;
	const lbt_repro_opts *o;
} jv_batch;

static void jv_job(void *ctx, int64_t i)
{
	const jv_batch *b = ctx;
	rp_jv_run *r = &b->r[i];
	lbt_err le;
	if ((r->status = jv_one(r, b->o, &le)))
		snprintf(r->msg, sizeof r->msg, "%s", le.msg);
	else if (b->o->interrupt && *b->o->interrupt) /* cut short: not the run's result (on any rank) */
		r->status = lbt_errf(&le, LBT_EINTR, "interrupted"), snprintf(r->msg, sizeof r->msg, "%s", le.msg);
}

static int jv_result(void *ctx, int64_t i, void *at[LBT_SPREAD_REGIONS], size_t n[LBT_SPREAD_REGIONS])
{
	rp_jv_run *r = &((const jv_batch *)ctx)->r[i];
	at[0] = &r->sum; /* the results: sum to the end of the struct */
	n[0] = sizeof *r - offsetof(rp_jv_run, sum);
	return 1;
}

int rp_jv_runs(rp_jv_run *r, int n, const lbt_repro_opts *o, lbt_err *e)
{
	jv_batch b = {r, o};
	const lbt_spread sp = {.run = jv_job, .result = jv_result, .ctx = &b};
	int st = rp_spread(&sp, n, o, e);
	for (int i = 0; i < n && !st; i++)
		if (r[i].status)
			st = lbt_errf(e, r[i].status, "%s", r[i].msg);
	return st;
}

static const double WSTAR[] = {1, 2, 5, 10, 20, 50, 100, 200, 500, 1000};
static const int64_t LBITE[] = {0, 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000};
enum { NW = sizeof WSTAR / sizeof WSTAR[0], NL = sizeof LBITE / sizeof LBITE[0] };

/* Algo1 (plain, no detection) and Algo2 (cb k, detection) over w* x LB iterations. */
static int jv_grid(const lbt_repro_opts *o, const char *link, const char *cb2, double t1[NW][NL], double t2[NW][NL],
                   double seq[NW], int nw, lbt_err *e)
{
	static jv_run r[NW][NL][2];
	for (int a = 0; a < nw; a++)
		for (int b = 0; b < NL; b++) {
			r[a][b][0] = (jv_run){.link = link, .steps = LBITE[b]};
			r[a][b][1] = (jv_run){.link = link, .cb = cb2, .detect = "1", .steps = LBITE[b]};
			for (int k = 0; k < 2; k++)
				snprintf(r[a][b][k].init, sizeof r[a][b][k].init, "point:%.0f", 64 * WSTAR[a]);
		}
	int st = rp_jv_runs(&r[0][0][0], nw * NL * 2, o, e);
	for (int a = 0; a < nw && !st; a++)
		for (int b = 0; b < NL; b++) {
			t1[a][b] = r[a][b][0].sum.app_time;
			t2[a][b] = r[a][b][1].sum.app_time;
			seq[a] = r[a][b][0].sum.seq_time;
		}
	return st;
}

/* The rest of a w* x LB iterations table's header, after its "| w* |". */
static void grid_head(FILE *f)
{
	for (int b = 0; b < NL; b++)
		fprintf(f, " %lld |", (long long)LBITE[b]);
	fprintf(f, "\n|---:|");
	for (int b = 0; b < NL; b++)
		fprintf(f, "---:|");
	fprintf(f, "\n");
}

int rp_jv_fig1(const lbt_repro_opts *o, lbt_err *e)
{
	static double t1[NW][NL], t2[NW][NL], seq[NW];
	const int nw = o->quick ? 4 : NW;
	rp_note(o, "jv-fig1: LAN, 64-PE line, %d loads x %d LB iterations, Algo1 and Algo2", nw, NL);
	int st = jv_grid(o, "lan", "dec", t1, t2, seq, nw, e);
	if (st)
		return st;
	lbt_outfile csv, md;
	if ((st = rp_open(o, "jv-fig1.csv", &csv, e)))
		return st;
	fprintf(csv.f, "w_star,lb_iterations,t1_plain,t2_cb_detect,gain\n");
	double min_gain = INFINITY, gain_small = 0, gain_large = 0;
	static double gains[NW][NL], x[NL];
	for (int b = 0; b < NL; b++)
		x[b] = (double)LBITE[b];
	for (int a = 0; a < nw; a++)
		for (int b = 0; b < NL; b++) {
			gains[a][b] = (t1[a][b] - t2[a][b]) / t1[a][b];
			fprintf(csv.f, "%g,%lld,%.9g,%.9g,%.6f\n", WSTAR[a], (long long)LBITE[b], t1[a][b], t2[a][b], gains[a][b]);
			min_gain = fmin(min_gain, gains[a][b]);
		}
	gain_small = gains[0][NL - 1];
	gain_large = gains[nw - 1][NL - 1];
	int am = 0, bm = 0; /* the largest gain */
	for (int a = 0; a < nw; a++)
		for (int b = 0; b < NL; b++)
			if (gains[a][b] > gains[am][bm])
				am = a, bm = b;
	if ((st = lbt_out_commit(&csv, e)) || (st = rp_open(o, "jv-fig1.md", &md, e)))
		return st;
	FILE *f = md.f;
	fprintf(f, "# Fig. 1 of Jeannot and Vernier (2006): gain of cost/benefit and detection on a LAN\n\n"
	           "64-PE line, all load 64 w* on PE 0, 1000 application iterations, LAN (0.15 ms, 100 Mb/s).\n"
	           "Algo1: fos-speed-int, f = 1, no detection, balancing for the first LB iterations.\n"
	           "Algo2: k(t) = 1000 - t and detection. Gain (T1 - T2)/T1.\n\n| w* |");
	grid_head(f);
	for (int a = 0; a < nw; a++) {
		fprintf(f, "| %g |", WSTAR[a]);
		for (int b = 0; b < NL; b++)
			fprintf(f, " %.3f |", gains[a][b]);
		fprintf(f, "\n");
	}
	fprintf(f, "\n| the paper (§4.1, Fig. 1) | ours |\n|---|---|\n"
	           "| gain significant at small w* | %.3f at w* = %g, 1000 LB iterations |\n"
	           "| gain null at large w* | %.3f at w* = %g, 1000 LB iterations (%s) |\n"
	           "| gain never negative on the LAN | smallest gain %.4f (%s) |\n",
	        gain_small, WSTAR[0], gain_large, WSTAR[nw - 1],
	        round(gain_large * 1e3) == 0 ? "agrees: 0.000" : "differs: not 0.000", /* judged as printed */
	        min_gain, round(min_gain * 1e4) >= 0 ? "agrees" : "differs: negative");
	/* §1: "performance gains greater than 100%"; §5: "100% of performance increase". The gain of
	 * §4.1 cannot reach 1; a performance increase T1/T2 - 1 = g/(1 - g) passes 100 % iff g > 0.5 */
	const double gmax = gains[am][bm], incr = gmax / (1 - gmax);
	fprintf(f, "| \"The obtained results give in the better case, performance gains greater than 100%%\" (§1; §5: "
	           "\"can lead (in the best case) to 100%% of performance increase\") | largest gain %.3f at w* = %g, %lld LB "
	           "iterations: T1/T2 − 1 = %.0f %% (%s; the gain (T1 − T2)/T1 of Fig. 1 is below 1 = 100 %% by its "
	           "definition, so the sentence can only mean T1/T2 − 1, which passes 100 %% where the gain passes 0.5) |\n",
	        gmax, WSTAR[am], (long long)LBITE[bm], 100 * incr, round(gmax * 1e3) > 500 ? "agrees: above 100 %" : "differs: not above 100 %");
	if ((st = lbt_out_commit(&md, e)))
		return st;
	lbt_series s[NW];
	char labels[NW][32];
	for (int a = 0; a < nw; a++) {
		snprintf(labels[a], sizeof labels[a], "w* = %g", WSTAR[a]);
		s[a] = (lbt_series){.label = labels[a], .x = x + 1, .y = gains[a] + 1, .n = NL - 1};
	}
	lbt_axes ax = {.title = o->titles ? "Fig. 1: gain of cost/benefit + detection, LAN" : NULL,
	               .xlabel = "LB iterations", .ylabel = "gain (T1 - T2)/T1", .logx = 1, .key = "outside right top"};
	return rp_plot(o, "jv-fig1", &ax, s, nw, e);
}

int rp_jv_fig23(const lbt_repro_opts *o, lbt_err *e)
{
	static double t1[NW][NL], t2[NW][NL], seq[NW], x[NL];
	const int nw = o->quick ? 4 : NW;
	rp_note(o, "jv-fig23: DSL, 64-PE line, %d loads x %d LB iterations, plain and adaptive k", nw, NL);
	int st = jv_grid(o, "dsl", "adaptive", t1, t2, seq, nw, e);
	if (st)
		return st;
	lbt_outfile csv, md;
	if ((st = rp_open(o, "jv-fig23.csv", &csv, e)))
		return st;
	fprintf(csv.f, "w_star,lb_iterations,t_plain,t_adaptive_detect,t_one_pe\n");
	for (int b = 0; b < NL; b++)
		x[b] = (double)LBITE[b];
	int plain_worse = 0, adaptive_worse = 0;
	double worst_ratio = 0;
	for (int a = 0; a < nw; a++)
		for (int b = 0; b < NL; b++) {
			fprintf(csv.f, "%g,%lld,%.9g,%.9g,%.9g\n", WSTAR[a], (long long)LBITE[b], t1[a][b], t2[a][b], seq[a]);
			plain_worse += t1[a][b] > seq[a];
			adaptive_worse += t2[a][b] > seq[a];
			worst_ratio = fmax(worst_ratio, t2[a][b] / seq[a]);
		}
	if ((st = lbt_out_commit(&csv, e)) || (st = rp_open(o, "jv-fig23.md", &md, e)))
		return st;
	FILE *f = md.f;
	fprintf(f, "# Figs. 2 and 3 of Jeannot and Vernier (2006): application time on a DSL\n\n"
	           "64-PE line, all load 64 w* on PE 0, 1000 iterations, DSL (40 ms, 1 Mb/s). Seconds.\n"
	           "Plain: fos-speed-int, f = 1, no detection (Fig. 2). Adaptive: k halves when a PE's\n"
	           "iteration got slower, with detection (Fig. 3). One PE: the whole load on one PE.\n\n"
	           "| w* | one PE | plain, 10 LB it. | plain, 1000 LB it. | adaptive, 10 LB it. | adaptive, 1000 LB it. |\n"
	           "|---:|---:|---:|---:|---:|---:|\n");
	int b10 = 4, b1000 = NL - 1;
	for (int a = 0; a < nw; a++)
		fprintf(f, "| %g | %.4g | %.4g | %.4g | %.4g | %.4g |\n", WSTAR[a], seq[a], t1[a][b10], t1[a][b1000], t2[a][b10],
		        t2[a][b1000]);
	/* the gain of the adaptive version with detection over plain diffusion, at each LB iteration count */
	fprintf(f, "\nT_plain/T_adaptive per w* and LB iterations (above 2: the adaptive version more than 100 %% faster "
	           "than plain diffusion):\n\n| w* |");
	grid_head(f);
	int am = 0, bm = 0;
	for (int a = 0; a < nw; a++) {
		fprintf(f, "| %g |", WSTAR[a]);
		for (int b = 0; b < NL; b++) {
			fprintf(f, " %.4g |", t1[a][b] / t2[a][b]);
			if (t1[a][b] / t2[a][b] > t1[am][bm] / t2[am][bm])
				am = a, bm = b;
		}
		fprintf(f, "\n");
	}
	const double ratio = t1[am][bm] / t2[am][bm];
	fprintf(f, "\n| the paper (§4.2) | ours |\n|---|---|\n"
	           "| plain: the first iterations gain, later ones make the program much slower than sequential | "
	           "plain slower than one PE in %d of %d cells |\n"
	           "| adaptive: balancing stops after a few iterations; beneficial in quasi all configurations, "
	           "its cost negligible where parallel is costlier than sequential | adaptive slower than one PE in %d of "
	           "%d cells, at worst %.2f x one PE |\n"
	           "| \"performance gains greater than 100%%\" in the better case (§1) | the adaptive version over plain "
	           "diffusion: at most T_plain/T_adaptive = %.4g at w* = %g, %lld LB iterations, a speed increase of %.0f %% "
	           "(%s) |\n",
	        plain_worse, nw * NL, adaptive_worse, nw * NL, worst_ratio, ratio, WSTAR[am], (long long)LBITE[bm],
	        100 * (ratio - 1), round((ratio - 1) * 1e4) > 1e4 ? "agrees: above 100 %" : "differs: not above 100 %");
	if ((st = lbt_out_commit(&md, e)))
		return st;
	/* sections at w* = 1, 10, 100, 1000 (quick: the first ones) */
	lbt_series s[12];
	char labels[12][48];
	int ns = 0;
	static double seqline[NW][NL];
	for (int a = 0; a < nw; a += 3) {
		if (ns + 3 > 12)
			break;
		for (int b = 0; b < NL; b++)
			seqline[a][b] = seq[a];
		snprintf(labels[ns], 48, "plain, w* = %g", WSTAR[a]);
		s[ns] = (lbt_series){.label = labels[ns], .x = x + 1, .y = t1[a] + 1, .n = NL - 1, .colour = 1 + a / 3};
		ns++;
		snprintf(labels[ns], 48, "adaptive, w* = %g", WSTAR[a]);
		s[ns] = (lbt_series){.label = labels[ns], .x = x + 1, .y = t2[a] + 1, .n = NL - 1, .colour = 1 + a / 3,
		                       .dash = 2};
		ns++;
		snprintf(labels[ns], 48, "one PE, w* = %g", WSTAR[a]);
		s[ns] = (lbt_series){.label = labels[ns], .x = x + 1, .y = seqline[a] + 1, .n = NL - 1,
		                       .colour = 1 + a / 3, .draw = LBT_DRAW_LINE, .dash = 3};
		ns++;
	}
	lbt_axes ax = {.title = o->titles ? "Figs. 2-3: application time on a DSL" : NULL, .xlabel = "LB iterations",
	               .ylabel = "application time [s]", .logx = 1, .logy = 1, .key = "outside right top"};
	return rp_plot(o, "jv-fig23", &ax, s, ns, e);
}

/* The optimum with global knowledge: the load spread evenly on the first p
 * PEs, costing N iterations at that distribution plus the cheapest move
 * there (the first link carries W (p-1)/p units, pipelined over p-1 hops). */
static int64_t jv_optimum(double wstar, const lbt_net *n)
{
	const double W = 64 * wstar;
	double best = INFINITY;
	int64_t arg = 1;
	for (int64_t p = 1; p <= 64; p++) {
		double most = ceil(W / (double)p);
		double comm = p == 1 ? 0 : (p == 2 ? 1 : 2) * (n->lat + n->app_bytes / n->bw);
		double move = p == 1 ? 0 : (double)(p - 1) * n->lat + W * (double)(p - 1) / (double)p * n->unit_bytes / n->bw;
		double t = JV_N * (most * n->unit_s + comm) + move;
		if (t < best) {
			best = t;
			arg = p;
		}
	}
	return arg;
}

/* How v (PEs used at loads 64 x W[0..n-1]) moves as the load grows, counted
 * from the numbers: "rises at U of the n-1 steps of load and falls at D (2 at
 * 64x1, 3 at 64x5..64x1000)". */
static void jv_trend(const int64_t *v, const double *W, int n, char *buf, size_t size)
{
	int up = 0, down = 0;
	for (int a = 1; a < n; a++)
		up += v[a] > v[a - 1], down += v[a] < v[a - 1];
	size_t len = (size_t)snprintf(buf, size, "rises at %d of the %d steps of load and falls at %d (", up, n - 1, down);
	for (int a = 0; a < n && len < size; a++) {
		int b = a;
		while (b + 1 < n && v[b + 1] == v[a])
			b++;
		len += (size_t)snprintf(buf + len, size - len, "%s%lld at 64x%g", a ? ", " : "", (long long)v[a], W[a]);
		if (b > a && len < size)
			len += (size_t)snprintf(buf + len, size - len, "..64x%g", W[b]);
		a = b;
	}
	if (len < size)
		snprintf(buf + len, size - len, ")");
}

int rp_jv_table1(const lbt_repro_opts *o, lbt_err *e)
{
	/* Table 1 of the paper: PEs used and the optimum, loads 64 x w* */
	static const double W[] = {1, 5, 10, 50, 100, 500, 1000};
	static const int used_paper[] = {3, 5, 6, 7, 8, 9, 10}, opt_paper[] = {1, 1, 1, 1, 3, 5, 10};
	const int nw = o->quick ? 4 : 7;
	rp_note(o, "jv-table1: DSL, 64-PE line, %d loads, adaptive k with detection", nw);
	lbt_net net;
	int st = lbt_link_parse(&net, "dsl", e);
	if (st)
		return st;
	jv_run runs[7];
	for (int a = 0; a < nw; a++) {
		runs[a] = (jv_run){.link = "dsl", .cb = "adaptive", .detect = "1", .steps = JV_N};
		snprintf(runs[a].init, sizeof runs[a].init, "point:%.0f", 64 * W[a]);
	}
	if ((st = rp_jv_runs(runs, nw, o, e)))
		return st;
	lbt_outfile csv, md;
	if ((st = rp_open(o, "jv-table1.csv", &csv, e)))
		return st;
	fprintf(csv.f, "w_star,used,optimum,used_paper,optimum_paper,detected_step,speedup\n");
	int64_t used[7], opt[7];
	double speedup[7];
	for (int a = 0; a < nw; a++) {
		const jv_run *r = &runs[a];
		used[a] = r->used;
		opt[a] = jv_optimum(W[a], &net);
		speedup[a] = r->sum.speedup;
		fprintf(csv.f, "%g,%lld,%lld,%d,%d,%lld,%.6g\n", W[a], (long long)used[a], (long long)opt[a], used_paper[a],
		        opt_paper[a], (long long)r->sum.detected_step, speedup[a]);
	}
	if ((st = lbt_out_commit(&csv, e)) || (st = rp_open(o, "jv-table1.md", &md, e)))
		return st;
	FILE *f = md.f;
	fprintf(f, "# Table 1 of Jeannot and Vernier (2006): PEs used on a DSL\n\n"
	           "Adaptive k with detection, 64-PE line, load 64 x w* on PE 0, 1000 iterations. Optimum: the p\n"
	           "minimizing 1000 iterations with the load spread evenly on the first p PEs plus the cheapest\n"
	           "move there (global knowledge; the paper does not say how it computed its own).\n\n"
	           "| load | used (paper) | used (ours) | optimum (paper) | optimum (ours) | speed-up (ours) |\n"
	           "|---|---:|---:|---:|---:|---:|\n");
	int64_t paper[7];
	for (int a = 0; a < nw; a++) {
		fprintf(f, "| 64x%g | %d/64 | %lld/64 | %d/64 | %lld/64 | %.3g |\n", W[a], used_paper[a], (long long)used[a],
		        opt_paper[a], (long long)opt[a], speedup[a]);
		paper[a] = used_paper[a];
	}
	char ours[256], theirs[256];
	jv_trend(paper, W, nw, theirs, sizeof theirs);
	jv_trend(used, W, nw, ours, sizeof ours);
	fprintf(f, "\nPEs used as the load grows: the paper %s; ours %s.\n", theirs, ours);
	return lbt_out_commit(&md, e);
}

/* One step at a time: the spread of relative loads (max - min of w_i/Cn_i) over their mean. */
static int jv_trace(const char *method, const char *alpha, int64_t steps, double *y, lbt_err *e, const lbt_repro_opts *o)
{
	lbt_setup set = {.shape = "16x16", .method = method, .init = "uniform:0:100", .speeds = "classes:1,2,4",
	                 .isa = o->isa, .seed = 1, .threads = 1, .interrupt = o->interrupt};
	if (alpha)
		set.params[0] = (lbt_param_arg){"alpha", alpha};
	lbt_state st;
	int status = lbt_state_open(&st, &set, e);
	if (status)
		return status;
	lbt_run_opts ro = rp_run_opts(o);
	ro.until.kind = LBT_UNTIL_STEPS;
	ro.until.steps = 1;
	lbt_summary sum;
	for (int64_t t = 0; t <= steps && !status; t++) {
		double hi, lo, bound;
		if (lbt_rel_load_stats(&st, &hi, &lo, &bound)) {
			status = lbt_errf(e, LBT_ENOMEM, "no memory");
			break;
		}
		lbt_stats s;
		lbt_field_stats(&st.grid, lbt_grid_field(&st.grid, "real"), 1, &s);
		y[t] = (hi - lo) / (s.rtotal / 256);
		if (t < steps)
			status = lbt_run(&st, &ro, &sum, e);
	}
	lbt_state_close(&st);
	return status;
}

/* The two traces of jv-speeds as rp_spread takes them. */
typedef struct {
	const char *method, *alpha;
	int64_t T;
	double *y; /* T + 1 values */
	int status;
	char msg[sizeof(lbt_err){0}.msg];
} jv_traced;

typedef struct {
	jv_traced *t;
	const lbt_repro_opts *o;
} trace_batch;

static void trace_job(void *ctx, int64_t i)
{
	const trace_batch *b = ctx;
	jv_traced *t = &b->t[i];
	const lbt_repro_opts *o = b->o;
	lbt_err le;
	if ((t->status = jv_trace(t->method, t->alpha, t->T, t->y, &le, o)))
		snprintf(t->msg, sizeof t->msg, "%s", le.msg);
	else if (o->interrupt && *o->interrupt) /* cut short: not the run's result (on any rank) */
		t->status = lbt_errf(&le, LBT_EINTR, "interrupted"), snprintf(t->msg, sizeof t->msg, "%s", le.msg);
}

static int trace_result(void *ctx, int64_t i, void *at[LBT_SPREAD_REGIONS], size_t n[LBT_SPREAD_REGIONS])
{
	jv_traced *t = &((const trace_batch *)ctx)->t[i];
	at[0] = t->y;
	n[0] = (size_t)(t->T + 1) * sizeof *t->y;
	at[1] = &t->status; /* status and msg */
	n[1] = sizeof *t - offsetof(jv_traced, status);
	return 2;
}

int rp_jv_speeds(const lbt_repro_opts *o, lbt_err *e)
{
	const int64_t T = o->quick ? 100 : 400;
	rp_note(o, "jv-speeds: 16x16 torus, speeds 1, 2, 4 at random, %lld steps", (long long)T);
	double *x = malloc((size_t)(T + 1) * sizeof *x), *ymr = malloc((size_t)(T + 1) * sizeof *ymr),
	       *yb = malloc((size_t)(T + 1) * sizeof *yb);
	int st = rp_agree_room(x && ymr && yb, e);
	jv_traced t[2] = {{.method = "fos-speed", .T = T, .y = ymr}, {.method = "fos", .alpha = "boillat", .T = T, .y = yb}};
	trace_batch b = {t, o};
	const lbt_spread sp = {.run = trace_job, .result = trace_result, .ctx = &b};
	if (!st)
		st = rp_spread(&sp, 2, o, e);
	for (int i = 0; i < 2 && !st; i++)
		if (t[i].status)
			st = lbt_errf(e, t[i].status, "%s", t[i].msg);
	lbt_outfile csv, md;
	if (!st && !(st = rp_open(o, "jv-speeds.csv", &csv, e))) {
		fprintf(csv.f, "step,mr_spread,boillat_spread\n");
		for (int64_t t = 0; t <= T; t++) {
			x[t] = (double)t;
			fprintf(csv.f, "%lld,%.9g,%.9g\n", (long long)t, ymr[t], yb[t]);
		}
		st = lbt_out_commit(&csv, e);
	}
	if (!st && !(st = rp_open(o, "jv-speeds.md", &md, e))) {
		fprintf(md.f, "# Heterogeneous speeds on a 16x16 torus\n\n"
		              "Speeds 1, 2 or 4 at random, loads uniform 0..100 (real-valued). Spread of the relative\n"
		              "loads w_i/Cn_i over their mean, after %lld steps.\n\n"
		              "| method | spread at step 0 | at step %lld |\n|---|---:|---:|\n"
		              "| fos-speed (Mr, self term) | %.3g | %.3g |\n| fos, Boillat's alpha | %.3g | %.3g |\n\n"
		              "Theorem 1: Mr converges to w proportional to C (spread to 0); Boillat's alpha balances w itself, "
		              "so the relative loads keep the spread of the speeds (ours, reading \"to 0\" as below 0.001 and \"keep\" "
		              "as above 0.5: %s).\n",
		        (long long)T, (long long)T, ymr[0], ymr[T], yb[0], yb[T],
		        ymr[T] < 1e-3 && yb[T] > 0.5 ? "agrees" : "differs");
		st = lbt_out_commit(&md, e);
	}
	if (!st) {
		lbt_series s[2] = {{.label = "fos-speed (Mr)", .x = x, .y = ymr, .n = T + 1, .draw = LBT_DRAW_LINE},
		                   {.label = "fos, Boillat's alpha", .x = x, .y = yb, .n = T + 1, .draw = LBT_DRAW_LINE}};
		lbt_axes ax = {.title = o->titles ? "relative-load spread, speeds 1/2/4, 16x16 torus" : NULL,
		               .xlabel = "steps", .ylabel = "(max - min of w_i/Cn_i) / mean", .logy = 1, .intx = 1,
		               .key = "center right"};
		st = rp_plot(o, "jv-speeds", &ax, s, 2, e);
	}
	free(x);
	free(ymr);
	free(yb);
	return st;
}

/* repro_luling_dyn.c — the experiments of R. Lüling and B. Monien, "A dynamic
 * distributed load balancing algorithm with provable good performance"
 * (SPAA 1993), §7, on the §7 workload `phases:0.1:0.9:0.1:0.7:150:400`
 * (each PE runs phases of random length 150..400 steps with generation
 * probability 0.1..0.9 and consumption probability 0.1..0.7):
 *
 *   luling-figs     Figures 7-10: 64 PEs, 500 steps, 100 runs, f in {1.1,
 *                   1.8}, delta in {1, 4}, C = 4: the average, minimum and
 *                   maximum load over time, and the load of every PE at
 *                   steps 50, 200 and 400; and Theorem 4's ratio
 *                   E(l_i)/(E(l_j) + C) against f^2 delta/(delta + 1 - f);
 *   luling-table1   Table 1: C in {4, 8, 16, 32}, f = 1.1, delta = 1: the
 *                   borrow counters per run, beside the paper's;
 *   luling-compare  beyond the paper: luling-monien (global and local
 *                   partners), LM-C5, integer FOS, NNA and no balancing on
 *                   the same workload, on a 64-PE ring, an 8x8 and a 128x128
 *                   torus: max/mean over time and packet-hops, over seeds.
 *
 * Every run goes through the run engine with the workload; runs are
 * independent and single-threaded, so a batch runs in parallel and gives
 * the same numbers for any thread count. */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "repro.h"
#include "method/luling.h"

#define PHASES "phases:0.1:0.9:0.1:0.7:150:400"

/* One run: what it recorded at every step 0..steps. */
typedef struct {
	const char *method, *shape;
	char params[4][24];  /* luling-monien: f, delta, borrow, partners */
	uint64_t seed;
	int64_t steps;
	int keep_pe;         /* record every PE's load at steps 50, 200, 400 ... */
	int keep_all;        /* ... or at every step */
	/* results */
	double *mean, *min, *max; /* steps + 1 each */
	int32_t *pe[3];
	int32_t *all;        /* keep_all: (steps + 1) x P loads */
	int64_t P;
	double moved;        /* packet-hops over the run */
	lbt_luling_stats stats;
	int status;
	char msg[sizeof(lbt_err){0}.msg];
} dyn_run;

static const int64_t pe_steps[3] = {50, 200, 400};

typedef struct {
	dyn_run *r;
	lbt_state *st;
	int32_t *buf;
} dyn_ctx;

static void dyn_on_step(void *ctx, const lbt_step_record *rec)
{
	dyn_ctx *c = ctx;
	dyn_run *r = c->r;
	int64_t t = rec->step;
	if (t > r->steps)
		return;
	lbt_grid_export(&c->st->grid, c->buf);
	int64_t sum = 0;
	int32_t lo = INT32_MAX, hi = INT32_MIN;
	for (int64_t i = 0; i < r->P; i++) {
		sum += c->buf[i];
		lo = c->buf[i] < lo ? c->buf[i] : lo;
		hi = c->buf[i] > hi ? c->buf[i] : hi;
	}
	r->mean[t] = (double)sum / (double)r->P;
	r->min[t] = lo;
	r->max[t] = hi;
	for (int k = 0; k < 3; k++)
		if (r->keep_pe && t == pe_steps[k])
			memcpy(r->pe[k], c->buf, (size_t)r->P * sizeof *c->buf);
	if (r->all)
		memcpy(r->all + t * r->P, c->buf, (size_t)r->P * sizeof *c->buf);
}

static void dyn_one(dyn_run *r, const lbt_repro_opts *o)
{
	lbt_setup set = {.shape = r->shape, .method = r->method, .init = "const:0", .isa = o->isa, .seed = r->seed,
	                 .threads = 1, .interrupt = o->interrupt};
	if (!strcmp(r->method, "luling-monien")) {
		static const char *names[4] = {"f", "delta", "borrow", "partners"};
		for (int i = 0; i < 4; i++)
			set.params[i] = (lbt_param_arg){names[i], r->params[i]};
	}
	lbt_state st;
	lbt_err e;
	lbt_workload w;
	if ((r->status = lbt_state_open(&st, &set, &e))) {
		snprintf(r->msg, sizeof r->msg, "%s", e.msg);
		return;
	}
	dyn_ctx c = {r, &st, malloc((size_t)r->P * sizeof(int32_t))};
	if (!c.buf)
		r->status = lbt_errf(&e, LBT_ENOMEM, "no memory for a run's record");
	else if (!(r->status = lbt_workload_parse(&w, PHASES, st.method->load, &e))) {
		lbt_run_opts ro = rp_run_opts(o);
		ro.until.kind = LBT_UNTIL_STEPS;
		ro.until.steps = r->steps;
		ro.workload = &w;
		ro.on_step = dyn_on_step;
		ro.ctx = &c;
		lbt_summary s;
		if (!(r->status = lbt_run(&st, &ro, &s, &e))) {
			r->moved = s.moved;
			if (!strcmp(r->method, "luling-monien"))
				r->stats = *lbt_luling_stats_of(&st);
			if (o->interrupt && *o->interrupt) /* cut short: not the run's result (on any rank) */
				r->status = lbt_errf(&e, LBT_EINTR, "interrupted");
		}
	}
	if (r->status)
		snprintf(r->msg, sizeof r->msg, "%s", e.msg);
	free(c.buf);
	lbt_state_close(&st);
}

static void dyn_free(dyn_run *r, int n)
{
	for (int i = 0; i < n; i++) {
		free(r[i].mean);
		free(r[i].all);
		for (int k = 0; k < 3; k++)
			free(r[i].pe[k]);
	}
	free(r);
}

/* A run's record, allocated on every rank before the runs (dyn_batch): 0 if
 * there was no room. */
static int dyn_alloc(dyn_run *r)
{
	lbt_shape sh;
	r->P = lbt_shape_parse(&sh, r->shape, NULL) ? 1 : lbt_shape_pes(&sh); /* a bad shape fails in dyn_one */
	const size_t n = (size_t)(r->steps + 1);
	if (!(r->mean = malloc(3 * n * sizeof *r->mean)))
		return 0;
	r->min = r->mean + n;
	r->max = r->mean + 2 * n;
	for (int k = 0; k < 3; k++)
		if (r->keep_pe && !(r->pe[k] = malloc((size_t)r->P * sizeof(int32_t))))
			return 0;
	return !r->keep_all || (r->all = malloc(n * (size_t)r->P * sizeof(int32_t)));
}

/* A batch as lbt_spread takes it. */
typedef struct {
	dyn_run *runs;
	const lbt_repro_opts *o;
	const char *what;
	int mine, done; /* mine: the runs this rank makes */
} dyn_spread;

static void dyn_job(void *ctx, int64_t i)
{
	dyn_spread *b = ctx;
	dyn_one(&b->runs[i], b->o);
#pragma omp critical(rp_progress)
	if (++b->done % 50 == 0 || b->done == b->mine)
		rp_note(b->o, "  %s: %d/%d runs", b->what, b->done, b->mine);
}

static int dyn_result(void *ctx, int64_t i, void *at[LBT_SPREAD_REGIONS], size_t n[LBT_SPREAD_REGIONS])
{
	dyn_run *r = &((dyn_spread *)ctx)->runs[i];
	const size_t steps = (size_t)(r->steps + 1), pes = (size_t)r->P * sizeof(int32_t);
	int k = 0;
	at[k] = &r->P, n[k++] = sizeof *r - offsetof(dyn_run, P); /* P to the end of the struct */
	at[k] = r->mean, n[k++] = 3 * steps * sizeof *r->mean;    /* mean, min, max */
	for (int q = 0; q < 3 && r->keep_pe; q++)
		at[k] = r->pe[q], n[k++] = pes;
	if (r->keep_all)
		at[k] = r->all, n[k++] = steps * pes;
	return k;
}

/* Run them all in parallel, biggest first (they are given biggest first),
 * under MPI over the ranks (collective: every record on every rank). */
static int dyn_batch(dyn_run *runs, int n, const lbt_repro_opts *o, const char *what, lbt_err *e)
{
	int room = 1;
	for (int i = 0; i < n; i++)
		room &= dyn_alloc(&runs[i]);
	int status = rp_agree_room(room, e);
	dyn_spread b = {.runs = runs, .o = o, .what = what, .mine = (int)lbt_spread_mine(n)};
	const lbt_spread sp = {.run = dyn_job, .result = dyn_result, .ctx = &b};
	if (!status)
		status = rp_spread(&sp, n, o, e);
	for (int i = 0; i < n && !status; i++)
		if (runs[i].status)
			return lbt_errf(e, runs[i].status, "%s %s seed %llu: %s", runs[i].method, runs[i].shape,
			                (unsigned long long)runs[i].seed, runs[i].msg);
	return status;
}

static void lm_params(dyn_run *r, double f, int delta, int C, const char *partners)
{
	r->method = "luling-monien";
	snprintf(r->params[0], sizeof r->params[0], "%g", f);
	snprintf(r->params[1], sizeof r->params[1], "%d", delta);
	snprintf(r->params[2], sizeof r->params[2], "%d", C);
	snprintf(r->params[3], sizeof r->params[3], "%s", partners);
}

/* ---------------------------------------------------------------- Figures 7-10 */

enum { FIG_CFG = 4 };
static const int fig_delta[FIG_CFG] = {1, 1, 4, 4};
static const double fig_f[FIG_CFG] = {1.1, 1.8, 1.1, 1.8};

/* Over the runs of one configuration: per step the average load, the
 * minimum and maximum over all runs and PEs, and the mean over runs of each
 * run's max and min; per PE at the three steps the mean, min, max over runs. */
typedef struct {
	double *avg, *lo, *hi, *emax, *emin; /* steps + 1 */
	double pe_mean[3][64], pe_lo[3][64], pe_hi[3][64];
} fig_agg;

static void fig_aggregate(const dyn_run *r, int R, int64_t steps, fig_agg *a)
{
	for (int64_t t = 0; t <= steps; t++) {
		double s = 0, lo = INFINITY, hi = -INFINITY, smax = 0, smin = 0;
		for (int k = 0; k < R; k++) {
			s += r[k].mean[t];
			lo = fmin(lo, r[k].min[t]);
			hi = fmax(hi, r[k].max[t]);
			smax += r[k].max[t];
			smin += r[k].min[t];
		}
		a->avg[t] = s / R, a->lo[t] = lo, a->hi[t] = hi, a->emax[t] = smax / R, a->emin[t] = smin / R;
	}
	for (int k = 0; k < 3; k++)
		for (int64_t i = 0; i < r[0].P && i < 64; i++) {
			double s = 0, lo = INFINITY, hi = -INFINITY;
			for (int q = 0; q < R; q++) {
				double x = r[q].pe[k][i];
				s += x, lo = fmin(lo, x), hi = fmax(hi, x);
			}
			a->pe_mean[k][i] = s / R, a->pe_lo[k][i] = lo, a->pe_hi[k][i] = hi;
		}
}

/* The time average over steps from..steps of hi/avg (avg > 0). */
static double time_avg_ratio(const double *hi, const double *avg, int64_t from, int64_t steps)
{
	double s = 0;
	int64_t n = 0;
	for (int64_t t = from; t <= steps; t++)
		if (avg[t] > 0)
			s += hi[t] / avg[t], n++;
	return n ? s / (double)n : NAN;
}

/* Figures 7-10's runs and their aggregates: the four configurations, then
 * no balancing (FIG_CFG), R runs each. */
typedef struct {
	const lbt_repro_opts *o;
	int R, n;
	int64_t steps;
	dyn_run *runs;
	fig_agg *agg;
	double *store;
	rp_claim cl[3];
} figs;

/* luling-figs.csv (average, extremes per step) and luling-figs-pe.csv (each PE at three steps). */
static int figs_csvs(const figs *g, lbt_err *e)
{
	const fig_agg *agg = g->agg;
	lbt_outfile csv;
	int status = rp_open(g->o, "luling-figs.csv", &csv, e);
	if (status)
		return status;
	fprintf(csv.f, "# Lüling, Monien 1993, Figures 7-8: 8x8 torus (64 PEs), %s, C = 4, %d runs; config 'none': no balancing\n",
	        PHASES, g->R);
	fprintf(csv.f, "config,delta,f,step,average,min,max,mean_of_run_max,mean_of_run_min\n");
	for (int c = 0; c <= FIG_CFG; c++)
		for (int64_t t = 0; t <= g->steps; t++)
			fprintf(csv.f, "%s,%d,%g,%lld,%.6f,%g,%g,%.4f,%.4f\n", c < FIG_CFG ? "luling-monien" : "none",
			        c < FIG_CFG ? fig_delta[c] : 0, c < FIG_CFG ? fig_f[c] : 0, (long long)t, agg[c].avg[t],
			        agg[c].lo[t], agg[c].hi[t], agg[c].emax[t], agg[c].emin[t]);
	if ((status = lbt_out_commit(&csv, e)) || (status = rp_open(g->o, "luling-figs-pe.csv", &csv, e)))
		return status;
	fprintf(csv.f, "# Lüling, Monien 1993, Figures 9-10: the load of every PE at steps 50, 200, 400 over %d runs\n", g->R);
	fprintf(csv.f, "delta,f,step,pe,mean,min,max\n");
	for (int c = 0; c < FIG_CFG; c++)
		for (int k = 0; k < 3; k++)
			for (int i = 0; i < 64; i++)
				fprintf(csv.f, "%d,%g,%lld,%d,%.4f,%g,%g\n", fig_delta[c], fig_f[c], (long long)pe_steps[k], i,
				        agg[c].pe_mean[k][i], agg[c].pe_lo[k][i], agg[c].pe_hi[k][i]);
	return lbt_out_commit(&csv, e);
}

/* The plots: Fig. 7 (delta 1) and Fig. 8 (delta 4), average/min/max for
 * both f; Figs. 9, 10 per f. *plot_status: LBT_EUNSUP where a plot could
 * not be drawn (no PNG support), which does not stop the experiment. */
static int figs_plots(const figs *g, int *plot_status, lbt_err *e)
{
	const fig_agg *agg = g->agg;
	const int64_t steps = g->steps;
	int status = LBT_OK;
	double *x = malloc((size_t)(steps + 1) * sizeof *x), px[3][64];
	for (int64_t t = 0; x && t <= steps; t++)
		x[t] = (double)t;
	for (int k = 0; k < 3; k++) /* the three steps side by side at each PE */
		for (int i = 0; i < 64; i++)
			px[k][i] = i + 0.25 * (k - 1);
	for (int fig = 0; fig < 2 && !status && x; fig++) {
		lbt_series s[7];
		char lab[6][48];
		int ns = 0;
		for (int q = 0; q < 2; q++) {
			const fig_agg *a = &agg[2 * fig + q];
			snprintf(lab[3 * q], 48, "average, f = %g", fig_f[2 * fig + q]);
			snprintf(lab[3 * q + 1], 48, "maximum, f = %g", fig_f[2 * fig + q]);
			snprintf(lab[3 * q + 2], 48, "minimum, f = %g", fig_f[2 * fig + q]);
			s[ns++] = (lbt_series){.label = lab[3 * q], .x = x, .y = a->avg, .n = steps + 1, .draw = LBT_DRAW_LINE, .colour = 1 + q};
			s[ns++] = (lbt_series){.label = lab[3 * q + 1], .x = x, .y = a->hi, .n = steps + 1, .draw = LBT_DRAW_LINE, .colour = 1 + q, .dash = 2};
			s[ns++] = (lbt_series){.label = lab[3 * q + 2], .x = x, .y = a->lo, .n = steps + 1, .draw = LBT_DRAW_LINE, .colour = 1 + q, .dash = 3};
		}
		s[ns++] = (lbt_series){.label = "maximum without balancing", .x = x, .y = agg[FIG_CFG].hi, .n = steps + 1,
		                       .draw = LBT_DRAW_LINE, .colour = 4, .dash = 4};
		char title[96];
		snprintf(title, sizeof title, "Fig. %d: balancing quality, delta = %d, f in {1.1, 1.8}, %d runs", 7 + fig, fig_delta[2 * fig], g->R);
		lbt_axes ax = {.title = title, .xlabel = "time step", .ylabel = "load [packets]: average, and min/max over all runs and PEs",
		               .intx = 1, .key = "top left"};
		int ps = rp_plot(g->o, fig ? "luling-fig8" : "luling-fig7", &ax, s, ns, e);
		if (ps == LBT_EUNSUP)
			*plot_status = ps;
		else if (ps)
			status = ps;
	}
	for (int c = 0; c < FIG_CFG && !status; c++) {
		lbt_series s[3];
		char lab[3][48];
		for (int k = 0; k < 3; k++) {
			snprintf(lab[k], 48, "step %lld", (long long)pe_steps[k]);
			s[k] = (lbt_series){.label = lab[k], .x = px[k], .y = agg[c].pe_mean[k], .n = 64, .lo = agg[c].pe_lo[k],
			                    .hi = agg[c].pe_hi[k], .colour = 1 + k};
		}
		char title[96], stem[48];
		snprintf(title, sizeof title, "Fig. %d: distribution, delta = %d, f = %g, %d runs", c < 2 ? 9 : 10, fig_delta[c], fig_f[c], g->R);
		snprintf(stem, sizeof stem, "luling-fig%d-f%g", c < 2 ? 9 : 10, fig_f[c]);
		lbt_axes ax = {.title = title, .xlabel = "PE (row-major index)", .ylabel = "load [packets]",
		               .note = "each PE's mean over the runs, bars min..max over the runs", .key = "outside right top"};
		int ps = rp_plot(g->o, stem, &ax, s, 3, e);
		if (ps == LBT_EUNSUP)
			*plot_status = ps;
		else if (ps)
			status = ps;
	}
	free(x);
	return status;
}

/* Theorem 4 (2): E(l_i) <= f^2 delta/(delta + 1 - f) (E(l_j) + C) for any i,
 * j at any t: per configuration the largest E(l_i)/(E(l_j) + C) over pairs
 * and steps, E the mean over the runs. */
static void figs_theorem4(const figs *g, FILE *f)
{
	const int R = g->R;
	fprintf(f, "\nTheorem 4: E(l_i) ≤ f²·δ/(δ+1−f)·(E(l_j) + C) for any two PEs i, j at any time, from a balanced "
	           "start (here: empty). E over the %d runs per PE and step; ours is the largest E(l_i)/(E(l_j) + C) over "
	           "all pairs and steps 1..500 (with %d runs the per-PE means carry sampling noise, which only raises "
	           "this maximum):\n\n| δ | f | C | ours: max over i, j, t | at step | paper's bound f²δ/(δ+1−f) |\n"
	           "|---:|---:|---:|---:|---:|---:|\n", R, R);
	double Em[64];
	for (int c = 0; c < FIG_CFG; c++) {
		double worst4 = 0;
		int64_t at = 0;
		for (int64_t s = 1; s <= g->steps; s++) {
			double hi = -INFINITY, lo = INFINITY;
			for (int i = 0; i < 64; i++) {
				double sum = 0;
				for (int k = 0; k < R; k++)
					sum += g->runs[c * R + k].all[s * 64 + i];
				Em[i] = sum / R;
				hi = fmax(hi, Em[i]);
				lo = fmin(lo, Em[i]);
			}
			if (hi / (lo + 4) > worst4)
				worst4 = hi / (lo + 4), at = s;
		}
		double d = fig_delta[c], fv = fig_f[c];
		fprintf(f, "| %d | %g | 4 | %.3f | %lld | %.3f |\n", fig_delta[c], fv, worst4, (long long)at, fv * fv * d / (d + 1 - fv));
	}
}

/* luling-figs.md: the figures' quantities per configuration, Figures 9-10's
 * spread, Theorem 4, and the paper's sentences beside our numbers. */
static int figs_markdown(const figs *g, lbt_err *e)
{
	const fig_agg *agg = g->agg;
	const int R = g->R;
	const int64_t steps = g->steps;
	lbt_outfile md;
	int status = rp_open(g->o, "luling-figs.md", &md, e);
	if (status)
		return status;
	FILE *f = md.f;
	fprintf(f, "# Lüling and Monien 1993, Figures 7-10\n\n64 PEs (8x8 torus, global partners), 500 steps, "
	           "`--workload %s`, C = 4, %d runs (seeds 1..%d, the same workload seeds for every row), all PEs "
	           "starting empty. The paper's figures are pictures; its text states what they show, quoted below "
	           "beside our numbers.\n\n", PHASES, R, R);
	fprintf(f, "| δ | f | average at 50 / 200 / 400 | max over runs and PEs at 50 / 200 / 400 | min at 50 / 200 / 400 | "
	           "time average of max/average (steps 50..500) | of the runs' mean max/average | operations per run | packet-hops per run |\n"
	           "|---:|---:|---|---|---|---:|---:|---:|---:|\n");
	double q[FIG_CFG + 1], qe[FIG_CFG + 1];
	for (int c = 0; c <= FIG_CFG; c++) {
		const fig_agg *a = &agg[c];
		q[c] = time_avg_ratio(a->hi, a->avg, 50, steps);
		qe[c] = time_avg_ratio(a->emax, a->avg, 50, steps);
		double ops = 0, hops = 0;
		for (int k = 0; k < R; k++)
			ops += (double)g->runs[c * R + k].stats.operations, hops += g->runs[c * R + k].moved;
		if (c < FIG_CFG)
			fprintf(f, "| %d | %g ", fig_delta[c], fig_f[c]);
		else
			fprintf(f, "| no balancing | ");
		fprintf(f, "| %.1f / %.1f / %.1f | %g / %g / %g | %g / %g / %g | %.2f | %.2f | %.0f | %.0f |\n", a->avg[50],
		        a->avg[200], a->avg[400], a->hi[50], a->hi[200], a->hi[400], a->lo[50], a->lo[200], a->lo[400], q[c],
		        qe[c], ops / R, hops / R);
	}
	/* per PE at the three steps: the mean over PEs of the spread max - min over runs */
	fprintf(f, "\nFigures 9-10: at steps 50, 200, 400 the load of each PE over the runs; the mean over the 64 PEs of "
	           "(max − min over runs), and the range of the PEs' mean loads:\n\n"
	           "| δ | f | spread at 50 / 200 / 400 | PEs' mean loads at 200: lowest .. highest |\n|---:|---:|---|---|\n");
	double spread200[FIG_CFG];
	for (int c = 0; c < FIG_CFG; c++) {
		double sp[3];
		for (int k = 0; k < 3; k++) {
			sp[k] = 0;
			for (int i = 0; i < 64; i++)
				sp[k] += (agg[c].pe_hi[k][i] - agg[c].pe_lo[k][i]) / 64;
		}
		spread200[c] = sp[1];
		double ml = INFINITY, mh = -INFINITY;
		for (int i = 0; i < 64; i++)
			ml = fmin(ml, agg[c].pe_mean[1][i]), mh = fmax(mh, agg[c].pe_mean[1][i]);
		fprintf(f, "| %d | %g | %.1f / %.1f / %.1f | %.1f .. %.1f |\n", fig_delta[c], fig_f[c], sp[0], sp[1], sp[2], ml, mh);
	}
	figs_theorem4(g, f);
	char t[400];
	fprintf(f, "\n");
	rp_md_claims_head(f);
	snprintf(t, sizeof t, "a run's max/average, averaged over steps 50..500 and the runs: δ = 1: %.2f (f = 1.1), %.2f "
	                      "(f = 1.8); δ = 4: %.2f, %.2f; no balancing %.2f", qe[0], qe[1], qe[2], qe[3], qe[FIG_CFG]);
	rp_md_claim(f, &g->cl[0], NAN, t);
	double worst = 0;
	for (int c = 0; c < FIG_CFG; c++)
		for (int64_t s = 50; s <= steps; s++)
			if (agg[c].avg[s] > 0)
				worst = fmax(worst, agg[c].hi[s] / agg[c].avg[s]);
	snprintf(t, sizeof t, "the largest load of any PE in any run stays within %.2f × the average (steps 50..500, "
	                      "all four settings); without balancing %.2f on average", worst, q[FIG_CFG]);
	rp_md_claim(f, &g->cl[1], NAN, t);
	snprintf(t, sizeof t, "spread over runs at step 200: δ = 1: %.1f (f = 1.1), %.1f (f = 1.8); δ = 4: %.1f, %.1f",
	         spread200[0], spread200[1], spread200[2], spread200[3]);
	rp_md_claim(f, &g->cl[2], NAN, t);
	return lbt_out_commit(&md, e);
}

/* Figures 7-10: the runs (the four configurations and no balancing, the
 * same workload seeds for each), their aggregates, then the files. */
int rp_luling_figs(const lbt_repro_opts *o, lbt_err *e)
{
	static const char *ids[3] = {"luling1993_fig7_8_low_f_high_delta", "luling1993_fig7_8_deviations_low",
	                             "luling1993_fig9_10_delta_impact"};
	figs g = {.o = o, .R = o->quick ? 10 : 100, .steps = 500};
	int status = LBT_OK;
	for (int i = 0; i < 3 && !status; i++)
		status = rp_claim_get(o, ids[i], &g.cl[i], e);
	if (status)
		return status;
	const int R = g.R;
	const int64_t steps = g.steps;
	g.n = (FIG_CFG + 1) * R; /* the four configurations, then no balancing */
	g.runs = calloc((size_t)g.n, sizeof *g.runs);
	g.agg = calloc(FIG_CFG + 1, sizeof *g.agg);
	g.store = malloc((size_t)(FIG_CFG + 1) * 5 * (size_t)(steps + 1) * sizeof *g.store);
	if (rp_agree_room(g.runs && g.agg && g.store, e)) { /* every rank's answer: the runs are collective */
		free(g.agg);
		free(g.store);
		free(g.runs);
		return LBT_ENOMEM;
	}
	for (int c = 0; c <= FIG_CFG; c++)
		for (int k = 0; k < R; k++) {
			dyn_run *r = &g.runs[c * R + k];
			if (c < FIG_CFG)
				lm_params(r, fig_f[c], fig_delta[c], 4, "global");
			else
				r->method = "none";
			r->shape = "8x8";
			r->seed = 1 + (uint64_t)k; /* the same workload seeds for every configuration */
			r->steps = steps;
			r->keep_pe = 1;
			r->keep_all = c < FIG_CFG;
		}
	status = dyn_batch(g.runs, g.n, o, "figs", e);
	for (int c = 0; c <= FIG_CFG && !status; c++) {
		double *s = g.store + (size_t)c * 5 * (size_t)(steps + 1);
		g.agg[c] = (fig_agg){s, s + steps + 1, s + 2 * (steps + 1), s + 3 * (steps + 1), s + 4 * (steps + 1), {{0}}, {{0}}, {{0}}};
		fig_aggregate(g.runs + c * R, R, steps, &g.agg[c]);
	}
	int plot_status = LBT_OK;
	if (!status)
		status = figs_csvs(&g, e);
	if (!status)
		status = figs_plots(&g, &plot_status, e);
	if (!status)
		status = figs_markdown(&g, e);
	free(g.store);
	free(g.agg);
	dyn_free(g.runs, g.n);
	return status ? status : plot_status;
}

/* ---------------------------------------------------------------- Table 1 */

int rp_luling_table1(const lbt_repro_opts *o, lbt_err *e)
{
	static const int Cs[4] = {4, 8, 16, 32};
	static const char *rows[4] = {"total_borrow", "remote_borrow", "borrow_fail", "decrease_sim"};
	static const char *names[4] = {"total borrow", "remote borrow", "borrow fail", "decrease sim"};
	const int R = o->quick ? 10 : 100;
	rp_claim cl[4][4];
	int status = LBT_OK;
	for (int q = 0; q < 4 && !status; q++)
		for (int c = 0; c < 4 && !status; c++) {
			char id[64];
			snprintf(id, sizeof id, "luling1993_table1_%s_c%d", rows[q], Cs[c]);
			status = rp_claim_get(o, id, &cl[q][c], e);
		}
	if (status)
		return status;
	dyn_run *runs = calloc(4 * (size_t)R, sizeof *runs);
	if (rp_agree_room(runs != NULL, e)) /* every rank's answer: the runs are collective */
		return LBT_ENOMEM;
	for (int c = 0; c < 4; c++)
		for (int k = 0; k < R; k++) {
			dyn_run *r = &runs[c * R + k];
			lm_params(r, 1.1, 1, Cs[c], "global");
			r->shape = "8x8";
			r->seed = 1 + (uint64_t)k;
			r->steps = 500;
		}
	status = dyn_batch(runs, 4 * R, o, "table1", e);
	double ours[4][4] = {{0}}, sd[4][4] = {{0}};
	for (int c = 0; c < 4 && !status; c++)
		for (int q = 0; q < 4; q++) {
			double s = 0, ss = 0;
			for (int k = 0; k < R; k++) {
				const lbt_luling_stats *x = &runs[c * R + k].stats;
				double v = (double)(q == 0 ? x->total_borrow : q == 1 ? x->remote_borrow : q == 2 ? x->borrow_fail : x->decrease_sim);
				s += v, ss += v * v;
			}
			ours[q][c] = s / R;
			sd[q][c] = sqrt(fmax(0, ss / R - ours[q][c] * ours[q][c]) / (R - 1) * R);
		}
	lbt_outfile csv, md;
	if (!status && !(status = rp_open(o, "luling-table1.csv", &csv, e))) {
		fprintf(csv.f, "# Lüling, Monien 1993, Table 1: 64 PEs (8x8 torus), %s, 500 steps, f = 1.1, delta = 1; "
		               "per-run counters\nC,seed,total_borrow,remote_borrow,borrow_fail,decrease_sim,operations\n", PHASES);
		for (int c = 0; c < 4; c++)
			for (int k = 0; k < R; k++) {
				const lbt_luling_stats *x = &runs[c * R + k].stats;
				fprintf(csv.f, "%d,%llu,%lld,%lld,%lld,%lld,%lld\n", Cs[c], (unsigned long long)runs[c * R + k].seed,
				        (long long)x->total_borrow, (long long)x->remote_borrow, (long long)x->borrow_fail,
				        (long long)x->decrease_sim, (long long)x->operations);
			}
		status = lbt_out_commit(&csv, e);
	}
	if (!status && !(status = rp_open(o, "luling-table1.md", &md, e))) {
		FILE *f = md.f;
		fprintf(f, "# Lüling and Monien 1993, Table 1\n\nPer run (mean over %d runs ± standard deviation of one run), "
		           "64 PEs, 500 steps, `--workload %s`, f = 1.1, δ = 1, global partners.\n\n"
		           "| | C = 4 paper | ours | C = 8 paper | ours | C = 16 paper | ours | C = 32 paper | ours |\n"
		           "|---|---:|---:|---:|---:|---:|---:|---:|---:|\n", R, PHASES);
		for (int q = 0; q < 4; q++) {
			fprintf(f, "| %s |", names[q]);
			for (int c = 0; c < 4; c++)
				fprintf(f, " %.3f | %.3f ± %.3f |", cl[q][c].value, ours[q][c], sd[q][c]);
			fprintf(f, "\n");
		}
		fprintf(f, "\nThe paper does not say whether its counts are per run or per processor and run; ours divided by "
		           "the 64 PEs:\n\n| per PE | C = 4 paper | ours / 64 | C = 8 paper | ours / 64 | C = 16 paper | ours / 64 "
		           "| C = 32 paper | ours / 64 |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
		for (int q = 0; q < 4; q++) {
			fprintf(f, "| %s |", names[q]);
			for (int c = 0; c < 4; c++)
				fprintf(f, " %.3f | %.3f |", cl[q][c].value, ours[q][c] / 64);
			fprintf(f, "\n");
		}
		fprintf(f, "\n");
		rp_md_claims_head(f);
		for (int q = 0; q < 4; q++)
			for (int c = 0; c < 4; c++)
				rp_md_claim(f, &cl[q][c], ours[q][c], "per run");
		status = lbt_out_commit(&md, e);
	}
	dyn_free(runs, 4 * R);
	return status;
}

/* ---------------------------------------------------------------- across papers */

enum { CMP_M = 6, CMP_S = 3 };

static const char *const cmp_labels[CMP_M] = {"Lüling-Monien, global", "Lüling-Monien, local:2", "LM-C5",
                                              "FOS (integer flows)", "NNA", "no balancing"};

/* The comparison: the runs of every shape x method x seed, in that order,
 * and the curves' storage. */
typedef struct {
	const lbt_repro_opts *o;
	const char *const *shapes;
	int seeds[CMP_S];
	int64_t steps;
	dyn_run *runs;
	int n;
	double *x, *buf; /* the time axis; per method the mean, min and max of max/mean over seeds */
} cmp;

static int cmp_runs(cmp *c, lbt_err *e)
{
	for (int s = 0; s < CMP_S; s++)
		c->n += CMP_M * c->seeds[s];
	c->runs = calloc((size_t)c->n, sizeof *c->runs);
	if (rp_agree_room(c->runs != NULL, e)) /* every rank's answer: the runs are collective */
		return LBT_ENOMEM;
	int k = 0;
	for (int s = 0; s < CMP_S; s++)
		for (int m = 0; m < CMP_M; m++)
			for (int q = 0; q < c->seeds[s]; q++, k++) {
				dyn_run *r = &c->runs[k];
				if (m < 2)
					lm_params(r, 1.1, 4, 0, m ? "local:2" : "global");
				else
					r->method = m == 2 ? "lm-c5" : m == 3 ? "fos-int" : m == 4 ? "nna" : "none";
				r->shape = c->shapes[s];
				r->seed = 1 + (uint64_t)q;
				r->steps = c->steps;
			}
	return LBT_OK;
}

static int cmp_csv(const cmp *c, lbt_err *e)
{
	lbt_outfile csv;
	int status = rp_open(c->o, "luling-compare.csv", &csv, e);
	if (status)
		return status;
	fprintf(csv.f, "# Lüling-Monien (f = 1.1, delta = 4), LM-C5, FOS with integer flows (optimal alpha), NNA and no balancing "
	               "on %s from empty PEs, 500 steps; per run\nshape,method,seed,mean_max_over_mean,final_max_over_mean,packet_hops\n",
	        PHASES);
	for (int i = 0; i < c->n; i++) {
		const dyn_run *r = &c->runs[i];
		fprintf(csv.f, "%s,%s%s%s,%llu,%.4f,%.4f,%.0f\n", r->shape, r->method, r->params[3][0] ? ":" : "", r->params[3],
		        (unsigned long long)r->seed, time_avg_ratio(r->max, r->mean, 50, c->steps),
		        r->mean[c->steps] > 0 ? r->max[c->steps] / r->mean[c->steps] : NAN, r->moved);
	}
	return lbt_out_commit(&csv, e);
}

/* Shape s (its runs from c->runs[k]): a table row per method into f, and
 * the plot of max/mean over time. LBT_EUNSUP (no gnuplot) goes to
 * *plot_status. */
static int cmp_shape(const cmp *c, int s, int k, FILE *f, int *plot_status, lbt_err *e)
{
	const int64_t steps = c->steps;
	const int seeds = c->seeds[s];
	lbt_series ser[CMP_M];
	for (int m = 0; m < CMP_M; m++, k += seeds) {
		const dyn_run *r = &c->runs[k];
		double qs = 0, ql = INFINITY, qh = -INFINITY, hs = 0, hl = INFINITY, hh = -INFINITY;
		double *y = c->buf + (size_t)m * 3 * (size_t)(steps + 1), *lo = y + steps + 1, *hi = lo + steps + 1;
		for (int64_t t = 0; t <= steps; t++)
			y[t] = 0, lo[t] = INFINITY, hi[t] = -INFINITY;
		for (int q = 0; q < seeds; q++) {
			double v = time_avg_ratio(r[q].max, r[q].mean, 50, steps);
			qs += v, ql = fmin(ql, v), qh = fmax(qh, v);
			hs += r[q].moved, hl = fmin(hl, r[q].moved), hh = fmax(hh, r[q].moved);
			for (int64_t t = 0; t <= steps; t++) {
				double z = r[q].mean[t] > 0 ? r[q].max[t] / r[q].mean[t] : NAN;
				y[t] += z / seeds, lo[t] = fmin(lo[t], z), hi[t] = fmax(hi[t], z);
			}
		}
		for (int64_t t = 0; t <= steps; t++)
			if (!isfinite(y[t]) || (t + 3 * m) % 25) /* error bars every 25 steps, staggered by method */
				lo[t] = hi[t] = y[t];
		fprintf(f, "| %s | %s | %d | %.3f [%.3f, %.3f] | %.3g [%.3g, %.3g] |\n", s == 2 ? "ring of 64" : c->shapes[s],
		        cmp_labels[m], seeds, qs / seeds, ql, qh, hs / seeds, hl, hh);
		ser[m] = (lbt_series){.label = cmp_labels[m], .x = c->x + 10, .y = y + 10, .n = steps - 9, .lo = lo + 10,
		                      .hi = hi + 10, .draw = LBT_DRAW_LINE, .colour = 1 + m}; /* from step 10: the mean is ~0 before */
	}
	char title[128], stem[48];
	snprintf(title, sizeof title, "max/mean load on %s, %s (mean over seeds; bars: min..max)",
	         s == 2 ? "a ring of 64" : c->shapes[s], PHASES);
	snprintf(stem, sizeof stem, "luling-compare-%s", s == 2 ? "ring64" : c->shapes[s]);
	lbt_axes ax = {.title = title, .xlabel = "time step", .ylabel = "max / mean load", .intx = 1,
	               .key = "outside right top"};
	int ps = rp_plot(c->o, stem, &ax, ser, CMP_M, e);
	if (ps == LBT_EUNSUP)
		*plot_status = ps;
	return ps == LBT_EUNSUP ? LBT_OK : ps;
}

static int cmp_markdown(const cmp *c, int *plot_status, lbt_err *e)
{
	lbt_outfile md;
	int status = rp_open(c->o, "luling-compare.md", &md, e);
	if (status)
		return status;
	fprintf(md.f, "# Across papers: the same dynamic workload\n\n`--workload %s` from empty PEs, 500 steps. "
	              "Lüling-Monien with f = 1.1, δ = 4, basic algorithm (global partners, and partners within torus distance 2); "
	              "LM-C5 (Henrich 1996); FOS with integer flows and the optimal α (Cybenko 1989); NNA (Henrich 1996). "
	              "Quality: max/mean of the loads, averaged over steps 50..500; cost: packet-hops (a packet crossing one "
	              "link counts 1; a Lüling-Monien packet counts the torus distance it travels). Mean over seeds, [min, max] "
	              "over seeds. None of the three papers whose methods it compares reports this comparison.\n\n"
	              "| shape | method | seeds | max/mean | packet-hops per run |\n|---|---|---:|---|---|\n",
	        PHASES);
	for (int64_t t = 0; t <= c->steps; t++)
		c->x[t] = (double)t;
	for (int s = 0, k = 0; s < CMP_S; k += CMP_M * c->seeds[s], s++) {
		int ps = cmp_shape(c, s, k, md.f, plot_status, e);
		status = status ? status : ps; /* the first failure; the other shapes' plots are still drawn */
	}
	if (status) {
		lbt_out_abort(&md);
		return status;
	}
	return lbt_out_commit(&md, e);
}

int rp_luling_compare(const lbt_repro_opts *o, lbt_err *e)
{
	static const char *const shapes_full[CMP_S] = {"128x128", "8x8", "64"}, *const shapes_quick[CMP_S] = {"16x16", "8x8", "64"};
	cmp c = {.o = o, .shapes = o->quick ? shapes_quick : shapes_full,
	         .seeds = {o->quick ? 3 : 5, o->quick ? 5 : 20, o->quick ? 5 : 20}, .steps = 500};
	int status = cmp_runs(&c, e), plot_status = LBT_OK;
	if (status)
		return status;
	status = dyn_batch(c.runs, c.n, o, "compare", e);
	c.x = malloc((size_t)(c.steps + 1) * sizeof *c.x);
	c.buf = malloc((size_t)(c.steps + 1) * 3 * CMP_M * sizeof *c.buf);
	if (!c.x || !c.buf)
		status = status ? status : lbt_errf(e, LBT_ENOMEM, "no memory for the curves");
	if (!status)
		status = cmp_csv(&c, e);
	if (!status)
		status = cmp_markdown(&c, &plot_status, e);
	free(c.x);
	free(c.buf);
	dyn_free(c.runs, c.n);
	return status ? status : plot_status;
}

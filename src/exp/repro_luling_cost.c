/* repro_luling_cost.c — `lbtorus reproduce luling-cost`: R. Lüling and B.
 * Monien, "A dynamic distributed load balancing algorithm with provable good
 * performance" (SPAA 1993), §6: Lemmas 5 and 6 bound the expected number of
 * load balancing operations while processor i's own load falls from x to
 * x - c (a simulated workload decrease of c packets), and the paper says of
 * its simulation that "the bounds are very close to reality", that the
 * number "is nearly independent of the parameter δ and the number of
 * processors n, but ... very sensitive to the parameter f", and "nearly
 * independent of the actual x-value" for a constant c/x.
 *
 * The process: the basic algorithm (global partners) on n PEs; PE 0 consumes
 * c of its packets, one at a time, and every time its load falls to l_old/f
 * it balances with delta random partners, which refills it. Between two of
 * its operations nothing happens but its consumption, so a workload phase
 * (`consume`) moves PE 0 at once down to its next trigger, or by what is
 * left of c if that comes first: the same operations as one packet per step,
 * in fewer steps, through the run engine. Two starting states:
 *   balanced     every PE holds x (l_old = x), as the paper's theorems start;
 *   generated    every PE holds 1000, then PE 0 generates (jumping to its
 *                trigger f l_old) for t_g operations, t_g where G^t(1) is
 *                within 1e-4 of FIX(n, delta, f): its load x, about FIX times
 *                the others', the state Lemma 6's D_0 assumes; c = round(c/x · x).
 * The operations counted are PE 0's, from the first consumption to the one
 * the c-th packet triggers (inclusive). */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>

#include "repro.h"
#include "exp/luling_theory.h"
#include "method/luling.h"

enum { NN = 3, ND = 3, NF = 3, NRHO = 3, NSTART = 3 };
static const int64_t cost_n[NN] = {16, 64, 256};
static const int cost_delta[ND] = {1, 2, 4};
static const double cost_f[NF] = {1.1, 1.2, 1.8};
static const double cost_rho[NRHO] = {0.5, 0.75, 0.9};
/* the starts: balanced with x = 1000, balanced with x = 100000, generated */
static const int64_t start_x[NSTART] = {1000, 100000, 0};
enum { GEN_L0 = 1000, LEMMA6_TMAX = 100000 };

/* One run's state, reached by the phase and the hook through the method's on_op_ctx. */
typedef struct {
	double f, rho;
	int64_t gen_ops;  /* generated start: operations of generation before consuming */
	int64_t t;        /* PE 0's operations so far */
	int consuming;
	int64_t x, c, consumed, ops; /* from the first consumption on */
	volatile sig_atomic_t stop;
} cost_rec;

static void cost_on_op(void *ctx, const lbt_luling *w, const int64_t *set, int m)
{
	(void)w;
	(void)m;
	cost_rec *r = ctx;
	if (set[0] != 0) /* only PE 0 triggers in this process (the others' l_old follows their load) */
		return;
	r->t++;
	r->ops += r->consuming;
}

static int cost_phase(void *ws, lbt_state *st, int64_t step, uint64_t seed, lbt_work_counts *c, lbt_err *e)
{
	(void)ws;
	(void)step;
	(void)seed;
	lbt_luling *w = lbt_luling_of(st);
	cost_rec *r = w->on_op_ctx;
	const int64_t cur = st->grid.load[0], lold = w->pe[0].lold;
	if (!r->consuming && r->t < r->gen_ops) /* generating: up to f l_old */
		return rp_luling_set_pe0(st, rp_luling_up(r->f, lold), c, e);
	if (!r->consuming) {
		r->consuming = 1;
		r->x = cur;
		r->c = llround(r->rho * (double)cur);
	}
	int64_t trig = (int64_t)floor((double)lold / r->f * (1 + 1e-12)), left = r->c - r->consumed;
	if (trig >= lold)
		trig = lold - 1;
	const int64_t target = cur - trig <= left ? trig : cur - left;
	r->consumed += cur - target;
	r->stop = r->consumed >= r->c;
	return rp_luling_set_pe0(st, target, c, e);
}

static const lbt_workload consume = {.name = "consume", .summary = "PE 0 consumes down to its next trigger",
                                     .phase = cost_phase};

typedef struct {
	const volatile sig_atomic_t *interrupt; /* the caller's (lbt_repro_opts); the rest travels (cost_result) */
	int64_t n;
	int delta, start;
	double f, rho;
	/* results over the runs */
	double mean, se, xmean, xmin, xmax;
	int64_t lo5, up5, up6; /* the bounds at x = round(xmean), c = round(rho x): -1 none */
	int status;
	char msg[sizeof(lbt_err){0}.msg];
} cost_cfg;

static int cost_run(cost_cfg *g, uint64_t seed, cost_rec *r, lbt_err *e)
{
	lbt_state st;
	const int64_t L0 = start_x[g->start] ? start_x[g->start] : GEN_L0;
	int status = rp_luling_open(&st, g->n, g->delta, g->f, 0, seed, L0, g->interrupt, e);
	if (status)
		return status;
	*r = (cost_rec){.f = g->f, .rho = g->rho,
	                .gen_ops = start_x[g->start] ? 0 : rp_luling_settle_t(g->n, g->delta, g->f, 1e-4)};
	lbt_luling *w = lbt_luling_of(&st);
	w->on_op = cost_on_op;
	w->on_op_ctx = r;
	status = rp_luling_run_until(&st, &consume, &r->stop, e);
	lbt_state_close(&st);
	return status;
}

static void cost_measure(cost_cfg *g, int R)
{
	double s = 0, ss = 0, xs = 0;
	g->xmin = INFINITY, g->xmax = -INFINITY;
	lbt_err e;
	for (int k = 0; k < R && !g->status; k++) {
		cost_rec r;
		if ((g->status = cost_run(g, 9000001ULL + (uint64_t)k, &r, &e))) {
			snprintf(g->msg, sizeof g->msg, "%s", e.msg);
			break;
		}
		s += (double)r.ops, ss += (double)r.ops * (double)r.ops, xs += (double)r.x;
		g->xmin = fmin(g->xmin, (double)r.x), g->xmax = fmax(g->xmax, (double)r.x);
	}
	g->mean = s / R;
	g->se = sqrt(fmax(0, ss / R - g->mean * g->mean) / (R - 1));
	g->xmean = xs / R;
	const int64_t x = llround(g->xmean), c = llround(g->rho * (double)x);
	g->lo5 = rp_lm5_lower(g->n, g->delta, g->f, x, c);
	g->up5 = rp_lm5_upper(g->n, g->delta, g->f, x, c);
	g->up6 = rp_lm6_upper(g->n, g->delta, g->f, x, c, LEMMA6_TMAX);
}

/* "yes" iff lower - 3 se <= mean <= upper + 3 se (upper: Lemma 6's, the tighter one). */
static int within(const cost_cfg *g) { return g->lo5 <= g->mean + 3 * g->se && (g->up6 < 0 || g->mean - 3 * g->se <= g->up6); }
/* "close": both bounds within 2 operations of the measured mean. */
static int close_to(const cost_cfg *g) { return g->up6 >= 0 && g->mean - (double)g->lo5 <= 2 && (double)g->up6 - g->mean <= 2; }

static void put_bound(FILE *f, int64_t b)
{
	if (b < 0)
		fputs(" — |", f);
	else
		fprintf(f, " %lld |", (long long)b);
}

/* The largest max/min of the measured means when only parameter p (0 n, 1
 * delta, 2 f, 3 x) changes, the others fixed, over the starts in `starts`
 * (a bit mask; for x: the two balanced starts, compared with each other);
 * with smallest, the smallest instead. */
static double spread(const cost_cfg *cfg, int nc, int p, int starts, int smallest)
{
	double best = smallest ? INFINITY : 0;
	for (int i = 0; i < nc; i++) {
		const cost_cfg *a = &cfg[i];
		if (!(starts >> a->start & 1) || (p == 3 && a->start != 0))
			continue;
		double lo = INFINITY, hi = 0;
		for (int j = 0; j < nc; j++) {
			const cost_cfg *b = &cfg[j];
			int same = b->rho == a->rho && (starts >> b->start & 1) && (p == 0 || b->n == a->n) &&
			           (p == 1 || b->delta == a->delta) && (p == 2 || b->f == a->f) && (p == 3 || b->start == a->start);
			if (same)
				lo = fmin(lo, b->mean), hi = fmax(hi, b->mean);
		}
		double r = hi / lo;
		best = smallest ? fmin(best, r) : fmax(best, r);
	}
	return best;
}

static const char *const start_name[NSTART] = {"balanced, x = 1000", "balanced, x = 100000", "generated"};

/* The configurations as lbt_spread takes them. */
typedef struct {
	cost_cfg *cfg;
	int R, mine, done; /* mine: the configurations this rank runs */
	const lbt_repro_opts *o;
} cost_batch;

static void cost_job(void *ctx, int64_t j)
{
	cost_batch *b = ctx;
	cost_measure(&b->cfg[j], b->R);
#pragma omp critical(rp_progress)
	if (++b->done % 27 == 0 || b->done == b->mine)
		rp_note(b->o, "  luling-cost: %d/%d settings", b->done, b->mine);
}

static int cost_result(void *ctx, int64_t j, void *at[LBT_SPREAD_REGIONS], size_t n[LBT_SPREAD_REGIONS])
{
	cost_cfg *g = &((cost_batch *)ctx)->cfg[j];
	at[0] = &g->n; /* all but the interrupt flag's address, this process's own */
	n[0] = sizeof *g - offsetof(cost_cfg, n);
	return 1;
}

/* Every configuration's R runs, in parallel, under MPI over the ranks (the
 * largest n first; collective). */
static int cost_runs(cost_cfg *cfg, int nc, int nn, int R, const lbt_repro_opts *o, lbt_err *e)
{
	int i = 0;
	for (int s = 0; s < NSTART; s++)
		for (int a = 0; a < nn; a++)
			for (int b = 0; b < ND; b++)
				for (int k = 0; k < NF; k++)
					for (int q = 0; q < NRHO; q++, i++)
						cfg[i] = (cost_cfg){.n = cost_n[a], .delta = cost_delta[b], .f = cost_f[k], .rho = cost_rho[q],
						                    .start = s, .interrupt = o->interrupt};
	int *order = malloc((size_t)nc * sizeof *order);
	int status = rp_agree_room(order != NULL, e);
	for (int j = 0; j < nc && !status; j++)
		order[j] = nc - 1 - j; /* the largest n first */
	cost_batch b = {.cfg = cfg, .R = R, .mine = (int)lbt_spread_mine(nc), .o = o};
	const lbt_spread sp = {.run = cost_job, .result = cost_result, .ctx = &b, .interrupt = o->interrupt};
	if (!status)
		status = lbt_spread_run(&sp, order, nc, rp_threads(o), e);
	free(order);
	for (int j = 0; j < nc && !status; j++)
		if (cfg[j].status)
			status = lbt_errf(e, cfg[j].status, "%s", cfg[j].msg);
	return status;
}

/* luling-cost.csv: a row per configuration. */
static int cost_csv(const cost_cfg *cfg, int nc, int R, const lbt_repro_opts *o, lbt_err *e)
{
	lbt_outfile csv;
	int status = rp_open(o, "luling-cost.csv", &csv, e);
	if (status)
		return status;
	fprintf(csv.f, "# Lüling, Monien 1993, §6, Lemmas 5 and 6: PE 0's operations while it consumes c = rho x of its "
	               "x packets, %d runs per row\n"
	               "start,n,delta,f,c_over_x,x_mean,x_min,x_max,ops_mean,ops_se,lemma5_lower,lemma5_upper,lemma6_upper\n",
	        R);
	for (int j = 0; j < nc; j++) {
		const cost_cfg *g = &cfg[j];
		fprintf(csv.f, "%s,%lld,%d,%g,%g,%.1f,%.0f,%.0f,%.4f,%.4f,%lld,%lld,%lld\n", start_name[g->start], (long long)g->n,
		        g->delta, g->f, g->rho, g->xmean, g->xmin, g->xmax, g->mean, g->se, (long long)g->lo5,
		        (long long)g->up5, (long long)g->up6);
	}
	return lbt_out_commit(&csv, e);
}

/* luling-cost.md's tables, a start each, and the summary of their rows;
 * *nin, *nclose: rows within the bounds, and close to both. */
static void cost_md_rows(FILE *f, const cost_cfg *cfg, int nc, int *nin, int *nclose)
{
	int nup5 = 0, nup6 = 0;
	double lo_gap = 0, up_gap = 0;
	*nin = *nclose = 0;
	for (int s = 0; s < NSTART; s++) {
		fprintf(f, "## Start: %s\n\n| n | δ | f | c/x | x | paper: Lemma 5 lower | ours | paper: Lemma 6 upper | "
		           "paper: Lemma 5 upper | within | close |\n|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|\n",
		        start_name[s]);
		for (int j = 0; j < nc; j++) {
			const cost_cfg *g = &cfg[j];
			if (g->start != s)
				continue;
			fprintf(f, "| %lld | %d | %g | %g | %.0f |", (long long)g->n, g->delta, g->f, g->rho, g->xmean);
			put_bound(f, g->lo5);
			fprintf(f, " %.3f ± %.3f |", g->mean, g->se);
			put_bound(f, g->up6);
			put_bound(f, g->up5);
			fprintf(f, " %s | %s |\n", within(g) ? "yes" : "no", close_to(g) ? "yes" : "no");
			*nin += within(g), *nclose += close_to(g), nup5 += g->up5 >= 0, nup6 += g->up6 >= 0;
			lo_gap = fmax(lo_gap, g->mean - (double)g->lo5);
			if (g->up6 >= 0)
				up_gap = fmax(up_gap, (double)g->up6 - g->mean);
		}
		fprintf(f, "\n");
	}
	fprintf(f, "Over the %d rows: ours within the bounds in %d, both bounds within 2 operations of ours (close) in "
	           "%d. Lemma 5's upper bound exists in %d rows, Lemma 6's in %d. The lower bound is at most %.2f "
	           "operations below ours, Lemma 6's upper bound at most %.2f above.\n\n",
	        nc, *nin, *nclose, nup5, nup6, lo_gap, up_gap);
}

/* The paper's sentences, each beside the spread of our means. */
static void cost_md_statements(FILE *f, const cost_cfg *cfg, int nc, int nin, int nclose, const lbt_repro_opts *o)
{
	double sp[2][4];
	for (int b = 0; b < 2; b++)
		for (int p = 0; p < 4; p++)
			sp[b][p] = spread(cfg, nc, p, b ? 4 : 3, p == 2);
	fprintf(f, "## The paper's statements beside ours\n\n"
	           "For each c/x: the largest max/min of our mean number of operations when only the named parameter "
	           "changes, the others fixed (for f: the smallest), over the two balanced starts, and over the "
	           "generated start. Rule: nearly independent iff max/min ≤ 1.2; very sensitive iff max/min ≥ 2.\n\n"
	           "| the paper (§6) | parameter | balanced: max/min | holds | generated: max/min | holds |\n"
	           "|---|---|---:|---|---:|---|\n");
	static const char *said[4] = {
		"\"and the number of processors n\"",
		"\"the expected number of iterations is nearly independent of the parameter δ\"",
		"\"but that it is very sensitive to the parameter f of the load balancing algorithm\"",
		"\"the number of iterations is nearly independent of the actual x-value ... if c/x remains constant\""};
	const char *param[4] = {o->quick ? "n = 16, 64" : "n = 16, 64, 256", "δ = 1, 2, 4",
	                        "f = 1.1, 1.2, 1.8 (the smallest over the others)", "x = 1000, 100000"};
	static const int order[4] = {1, 0, 2, 3};
	for (int q = 0; q < 4; q++) {
		const int p = order[q];
		const char *rule0 = p == 2 ? (sp[0][p] >= 2 ? "yes" : "no") : (sp[0][p] <= 1.2 ? "yes" : "no");
		const char *rule1 = p == 2 ? (sp[1][p] >= 2 ? "yes" : "no") : (sp[1][p] <= 1.2 ? "yes" : "no");
		fprintf(f, "| %s | %s | %.3f | %s |", said[p], param[p], sp[0][p], rule0);
		if (p == 3)
			fprintf(f, " — | — |\n");
		else
			fprintf(f, " %.3f | %s |\n", sp[1][p], rule1);
	}
	fprintf(f, "\n\"We observed that the bounds are very close to reality\": ours within the bounds in %d of %d rows, "
	           "both bounds within 2 operations of ours in %d of %d.\n",
	        nin, nc, nclose, nc);
}

int rp_luling_cost(const lbt_repro_opts *o, lbt_err *e)
{
	const int nn = o->quick ? 2 : NN, R = o->quick ? 20 : 400;
	const int nc = nn * ND * NF * NRHO * NSTART;
	cost_cfg *cfg = calloc((size_t)nc, sizeof *cfg);
	int status = rp_agree_room(cfg != NULL, e);
	if (!status)
		status = cost_runs(cfg, nc, nn, R, o, e);
	if (!status)
		status = cost_csv(cfg, nc, R, o, e);
	lbt_outfile md;
	if (!status && !(status = rp_open(o, "luling-cost.md", &md, e))) {
		FILE *f = md.f;
		fprintf(f, "# Lüling and Monien 1993, §6: the cost of a load decrease (Lemmas 5 and 6)\n\n"
		           "PE 0 consumes c = (c/x)·x of its x packets; every time its load falls to l_old/f it balances with δ "
		           "random partners (basic algorithm, global partners), which refills it. Ours: PE 0's operations from "
		           "the first consumption to the one the c-th packet triggers, mean over %d seeds ± standard error. "
		           "Start *balanced*: every PE holds x. Start *generated*: every PE holds %d, then PE 0 generates for "
		           "t_g operations (G^t(1) within 1e-4 of FIX(n,δ,f)), so it holds about FIX(n,δ,f) times the others' "
		           "load; x is its load then (mean over the seeds; the bounds are taken at that x). The paper's "
		           "bounds are its formulas: Lemma 5's lower bound (with U, from FIX(n,δ,1/f)) and upper bound (with D, "
		           "from FIX(n,δ,f); — where its condition 1/(1−D) ≥ (c+xf−x−f)/((x−1)f(1−1/f)) fails), and Lemma 6's "
		           "upper bound (with D_i, from C^i(FIX(n,δ,f))). Within: Lemma 5's lower − 3 s.e. ≤ ours ≤ Lemma 6's "
		           "upper + 3 s.e.; close: both bounds within 2 operations of ours (ours − lower ≤ 2, upper − ours ≤ 2).\n\n",
		        R, GEN_L0);
		int nin, nclose;
		cost_md_rows(f, cfg, nc, &nin, &nclose);
		cost_md_statements(f, cfg, nc, nin, nclose, o);
		status = lbt_out_commit(&md, e);
	}
	free(cfg);
	return status;
}

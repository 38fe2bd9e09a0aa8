/* repro_cybenko.c — `lbtorus reproduce cybenko`: Cybenko (1989), "Dynamic load
 * balancing for distributed memory multiprocessors", under the model of its
 * eq. (12): every step each PE receives eta tasks (mean mu, variance sigma^2)
 * and completes c.
 *
 * (a) Theorem 2, steady state: FOS with the optimal alpha on a ring, an 8x8
 *     torus, a 4x4x4 torus and hypercubes d = 3..10 under cybenko:exp:1:1
 *     (sigma^2 = 1): the measured mean of ||w - mean||^2 (after the arrivals,
 *     i.e. the w(t) of eq. (12)) beside the exact value sigma^2 sum_k
 *     1/(1 - lambda_k^2) over the non-unit eigenvalues of M and beside the
 *     theorem's bound (n - 1) sigma^2/(1 - gamma^2). On the hypercubes also
 *     dimension exchange with one complete sweep per step (Table II, Model
 *     A), which balances exactly, so it leaves the arrivals' own spread:
 *     (n - 1) sigma^2, the paper's n sigma^2, and with one dimension per step
 *     (Model B, Theorem 5). A shape has at most 8 axes, so the 9- and 10-cube
 *     are tori of 4-rings (a 4-ring is the 2-cube): 4x4x4x4x2 and 4x4x4x4x4,
 *     the same graph, so FOS and a complete sweep are the hypercube's; one
 *     dimension per step is not (de-axis exchanges a whole 4-ring axis, two
 *     of the cube's dimensions, in one step), so Model B stops at d = 8.
 * (b) The transient of Theorem 2 and the growth without balancing (the
 *     remark after Theorem 2) on the 8x8 torus: the mean over seeds of
 *     ||w(t) - mean||^2 for t = 1..T beside sigma^2 sum_k (1 - lambda_k^{2t})/(1 -
 *     lambda_k^2) (exact), (n - 1) sigma^2 (1 - gamma^{2t})/(1 - gamma^2) (the
 *     theorem's bound; w(0) is constant, so its second term is 0), and
 *     (n - 1) t sigma^2 without balancing.
 * Every run is single-threaded; the runs go in parallel. */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "repro.h"
#include "comm/comm.h"
#include "exp/spread.h"

static void keep_sqdev(void *ctx, const lbt_step_record *r) { ((double *)ctx)[r->step] = r->sqdev; }

static void wjob_run(rp_wjob *j, const lbt_repro_opts *o)
{
	lbt_setup set = {.shape = j->shape, .method = j->method, .init = j->init, .isa = o->isa, .seed = j->seed,
	                 .threads = 1, .interrupt = o->interrupt};
	if (j->pname)
		set.params[0] = (lbt_param_arg){j->pname, j->pvalue};
	lbt_state st;
	lbt_err e;
	lbt_workload w;
	if ((j->status = lbt_state_open(&st, &set, &e))) {
		snprintf(j->msg, sizeof j->msg, "%s", e.msg);
		return;
	}
	if (!(j->status = lbt_workload_parse(&w, j->spec, st.method->load, &e))) {
		lbt_run_opts ro = rp_run_opts(o);
		ro.workload = &w;
		ro.until = j->until;
		ro.warmup = j->warmup;
		if (j->max_steps > 0)
			ro.max_steps = j->max_steps;
		if (j->trace) {
			ro.on_step = keep_sqdev;
			ro.ctx = j->trace;
		}
		j->status = lbt_run(&st, &ro, &j->s, &e);
		if (!strcmp(j->method, "fos")) {
			j->alpha = st.param[0].num;
			j->gamma = lbt_gamma(&st.grid.shape, j->alpha);
		}
	}
	if (j->status)
		snprintf(j->msg, sizeof j->msg, "%s", e.msg);
	lbt_state_close(&st);
}

/* A batch of rp_wjobs as lbt_spread takes it. */
typedef struct {
	rp_wjob *jobs;
	const lbt_repro_opts *o;
} wjob_batch;

static void wjob_spread_run(void *ctx, int64_t i)
{
	const wjob_batch *b = ctx;
	rp_wjob *j = &b->jobs[i];
	wjob_run(j, b->o);
	if (!j->status && b->o->interrupt && *b->o->interrupt) { /* cut short: not the run's result (on any rank) */
		j->status = LBT_EINTR;
		snprintf(j->msg, sizeof j->msg, "interrupted");
	}
}

static int wjob_result(void *ctx, int64_t i, void *at[2], size_t n[2])
{
	rp_wjob *j = &((const wjob_batch *)ctx)->jobs[i];
	at[0] = &j->s; /* the results: s to the end of the struct */
	n[0] = sizeof *j - offsetof(rp_wjob, s);
	if (!j->trace)
		return 1;
	at[1] = j->trace;
	n[1] = (size_t)(j->until.steps + 1) * sizeof *j->trace;
	return 2;
}

/* The text fields of a job, in the order they travel. */
#define WJOB_TEXT(j) {&(j)->shape, &(j)->method, &(j)->pname, &(j)->pvalue, &(j)->spec, &(j)->init}

/* Rank 0's jobs as bytes for the other ranks (buf NULL: their length):
 * each job's struct, then its texts, each a length (-1: NULL) and bytes. */
static size_t wjobs_pack(rp_wjob *jobs, int n, char *buf)
{
	size_t len = 0;
	for (int i = 0; i < n; i++) {
		if (buf)
			memcpy(buf + len, &jobs[i], sizeof jobs[i]);
		len += sizeof jobs[i];
		const char **text[6] = WJOB_TEXT(&jobs[i]);
		for (int k = 0; k < 6; k++) {
			const int32_t l = *text[k] ? (int32_t)strlen(*text[k]) : -1;
			if (buf) {
				memcpy(buf + len, &l, sizeof l);
				memcpy(buf + len + sizeof l, *text[k], l > 0 ? (size_t)l : 0);
			}
			len += sizeof l + (l > 0 ? (size_t)l : 0);
		}
	}
	return len;
}

/* Rank 0's packed jobs into jobs, their texts into text (room for len
 * bytes) and their traces (zeroed, as rank 0's) into *traces; 0: no memory. */
static int wjobs_unpack(rp_wjob *jobs, int n, const char *buf, char *text, double **traces)
{
	size_t at = 0, room = 0;
	for (int i = 0; i < n; i++) {
		memcpy(&jobs[i], buf + at, sizeof jobs[i]);
		at += sizeof jobs[i];
		const char **t[6] = WJOB_TEXT(&jobs[i]);
		for (int k = 0; k < 6; k++) {
			int32_t l;
			memcpy(&l, buf + at, sizeof l);
			at += sizeof l;
			*t[k] = NULL;
			if (l < 0)
				continue;
			memcpy(text, buf + at, (size_t)l);
			text[l] = 0;
			*t[k] = text;
			text += l + 1;
			at += (size_t)l;
		}
		room += jobs[i].trace ? (size_t)(jobs[i].until.steps + 1) : 0;
	}
	if (!(*traces = calloc(room ? room : 1, sizeof **traces)))
		return 0;
	for (int i = 0, off = 0; i < n; i++)
		if (jobs[i].trace) {
			jobs[i].trace = *traces + off;
			off += (int)(jobs[i].until.steps + 1);
		}
	return 1;
}

/* The batch on every rank (collective): run over the ranks, every result
 * on every rank. */
static int wjobs_spread(rp_wjob *jobs, int n, const lbt_repro_opts *o, lbt_err *e)
{
	wjob_batch b = {jobs, o};
	const lbt_spread sp = {.run = wjob_spread_run, .result = wjob_result, .ctx = &b, .interrupt = o->interrupt};
	return lbt_spread_run(&sp, NULL, n, rp_threads(o), e);
}

int rp_serve_wjobs(int n, const lbt_repro_opts *o, lbt_err *e)
{
	int64_t len = 0;
	lbt_comm_bcast(&len, sizeof len);
	char *buf = malloc((size_t)len + 1), *text = malloc((size_t)len + 1);
	rp_wjob *jobs = calloc((size_t)(n > 0 ? n : 1), sizeof *jobs);
	double *traces = NULL;
	int st = rp_agree_room(buf && text && jobs, e);
	if (!st)
		lbt_comm_bcast(buf, (int)len);
	if (!st)
		st = rp_agree_room(wjobs_unpack(jobs, n, buf, text, &traces), e);
	if (!st)
		st = wjobs_spread(jobs, n, o, e);
	free(buf), free(text), free(jobs), free(traces);
	return st;
}

int rp_run_wjobs(rp_wjob *jobs, int n, const lbt_repro_opts *o, lbt_err *e)
{
	int st = LBT_OK;
	if (lbt_comm_size() > 1) { /* the jobs to the other ranks (rp_serve_wjobs) */
		rp_announce(RP_WJOBS, n);
		int64_t len = (int64_t)wjobs_pack(jobs, n, NULL);
		lbt_comm_bcast(&len, sizeof len);
		char *buf = malloc((size_t)len + 1);
		if (!(st = rp_agree_room(buf != NULL, e))) {
			wjobs_pack(jobs, n, buf);
			lbt_comm_bcast(buf, (int)len);
			st = rp_agree_room(1, e);
		}
		free(buf);
	}
	if (!st)
		st = wjobs_spread(jobs, n, o, e);
	for (int i = 0; !st && i < n; i++)
		if (jobs[i].status)
			return lbt_errf(e, jobs[i].status, "%s %s %s: %s", jobs[i].method, jobs[i].shape, jobs[i].spec,
			                jobs[i].msg);
	return st;
}

typedef struct {
	double alpha, t; /* t: steps for the transient sum, 0: the steady state */
} cy_sum;

static double steady_term(double mu, void *ctx)
{
	const cy_sum *c = ctx;
	double l2 = (1 - c->alpha * mu) * (1 - c->alpha * mu);
	return c->t > 0 ? (1 - pow(l2, c->t)) / (1 - l2) : 1 / (1 - l2);
}

/* sigma^2 sum_k (1 - lambda_k^{2t})/(1 - lambda_k^2) over M's non-unit eigenvalues (t = 0: t -> infinity). */
static double exact_value(const char *shape, double alpha, double t)
{
	lbt_shape s;
	if (lbt_shape_parse(&s, shape, NULL))
		return NAN;
	cy_sum c = {alpha, t};
	return lbt_spectrum_sum(&s, steady_term, &c);
}

enum { NSH = 11, NCUBE = 8, T = 60 }; /* hypercubes d = 3..10 */

static lbt_until until(int64_t steps) { return (lbt_until){LBT_UNTIL_STEPS, steps, 0}; }

/* A steady-state run's exact value and the paper's value (sigma^2 = 1):
 * fos: sigma^2 sum 1/(1 - lambda_k^2), Theorem 2's (n - 1)/(1 - gamma^2);
 * de (a sweep per step, Model A): it balances exactly, leaving (n - 1), paper n;
 * de-axis (eq. (17), Model B): the products of the s < d latest F's average
 * over 2^s-subcubes, E = sum_{s<d} (n/2^s - 1) = 2^(d+1) - d - 2; Theorem 5's
 * bound 2^(d+1) - 1. */
static void steady_values(const rp_wjob *j, int64_t P, int d, double *exact, double *paper)
{
	if (!strcmp(j->method, "fos")) {
		*exact = exact_value(j->shape, j->alpha, 0);
		*paper = (double)(P - 1) / (1 - j->gamma * j->gamma);
	} else if (!strcmp(j->method, "de")) {
		*exact = (double)(P - 1);
		*paper = (double)P;
	} else {
		*exact = ldexp(1, d + 1) - d - 2;
		*paper = ldexp(1, d + 1) - 1;
	}
}

/* The experiment's runs and what is derived from them. */
typedef struct {
	const lbt_repro_opts *o;
	int nsh, seeds, n, nsteady;
	rp_wjob *jobs;
	int *topo;      /* per job: its shape's index */
	double *traces; /* the transient's sqdev per step: FOS's seeds, then no balancing's */
	/* per steady-state run: n, d (hypercubes: log2 n), exact and the paper's value; per
	 * hypercube the index of its FOS, Model A and Model B runs (-1: not run) */
	double exact[3 * NSH], paper[3 * NSH];
	int64_t pes[3 * NSH];
	int dim[3 * NSH], jf[NSH], ja[NSH], jb[NSH], within;
	/* the transient: means over seeds per step, with their standard errors */
	double t[T], fm[T], fse[T], nm[T], nse[T], fex[T], fbd[T], nex[T];
} cyb;

static const char *const shapes[NSH] = {"64",          "8x8",           "4x4x4",          "2x2x2",
                                        "2x2x2x2",     "2x2x2x2x2",     "2x2x2x2x2x2",    "2x2x2x2x2x2x2",
                                        "2x2x2x2x2x2x2x2", "4x4x4x4x2", "4x4x4x4x4"};
static const char *const names[NSH] = {"ring of 64", "8x8 torus", "4x4x4 torus", "3-cube", "4-cube", "5-cube",
                                       "6-cube",     "7-cube",    "8-cube",      "9-cube (4x4x4x4x2)", "10-cube (4x4x4x4x4)"};
enum { CUBE0 = 3, AXIS_CUBES = 9 }; /* shapes[3..8] have an axis per dimension: Model B runs on them only */

/* The runs: per shape FOS in the steady state (and on hypercubes DE under
 * Models A and B), then the transient's seeds, FOS and no balancing. */
static void plan(cyb *c)
{
	const lbt_repro_opts *o = c->o;
	const int64_t base = o->quick ? 4000 : 20000, warm = o->quick ? 200 : 1000;
	int n = 0;
	for (int k = 0; k < c->nsh; k++) {
		lbt_shape s;
		lbt_shape_parse(&s, shapes[k], NULL);
		/* enough steps for ~50 batches much longer than the correlation time 1/(1 - gamma) */
		double g = lbt_gamma(&s, lbt_alpha_optimal(&s));
		int64_t steps = base, need = (int64_t)(5000 / (1 - g));
		if (!o->quick && need > steps)
			steps = need;
		c->topo[n] = k;
		c->jobs[n++] = (rp_wjob){.shape = shapes[k], .method = "fos", .pname = "alpha", .pvalue = "optimal",
		                         .spec = "cybenko:exp:1:1", .init = "const:100", .until = until(steps + warm),
		                         .warmup = warm, .seed = 1};
		for (int m = 0; k >= CUBE0 && m < (k < AXIS_CUBES ? 2 : 1); m++) { /* hypercubes: DE, Models A and B */
			c->topo[n] = k;
			c->jobs[n++] = (rp_wjob){.shape = shapes[k], .method = m ? "de-axis" : "de", .pname = "lambda",
			                         .pvalue = "0.5", .spec = "cybenko:exp:1:1", .init = "const:100",
			                         .until = until(base + warm), .warmup = warm, .seed = 1};
		}
	}
	c->nsteady = n;
	for (int s = 0; s < c->seeds; s++) {
		c->jobs[n++] = (rp_wjob){.shape = "8x8", .method = "fos", .pname = "alpha", .pvalue = "optimal",
		                         .spec = "cybenko:poisson:1:1", .init = "const:100", .until = until(T),
		                         .seed = (uint64_t)s + 1, .trace = c->traces + (size_t)s * (T + 1)};
		c->jobs[n++] = (rp_wjob){.shape = "8x8", .method = "none", .spec = "cybenko:poisson:1:1",
		                         .init = "const:1000", .until = until(T), .seed = (uint64_t)s + 1,
		                         .trace = c->traces + (size_t)(c->seeds + s) * (T + 1)};
	}
	c->n = n;
}

/* Each steady-state run's exact and paper's values, whether every run is
 * within 4 standard errors of its exact value, and the transient's means. */
static void derive(cyb *c)
{
	for (int k = 0; k < NSH; k++)
		c->jf[k] = c->ja[k] = c->jb[k] = -1;
	c->within = 1;
	for (int i = 0; i < c->nsteady; i++) {
		const rp_wjob *j = &c->jobs[i];
		lbt_shape s;
		lbt_shape_parse(&s, j->shape, NULL);
		c->pes[i] = lbt_shape_pes(&s);
		c->dim[i] = c->topo[i] >= CUBE0 ? ilogb((double)c->pes[i]) : 0;
		*(!strcmp(j->method, "fos") ? &c->jf[c->topo[i]] : !strcmp(j->method, "de") ? &c->ja[c->topo[i]]
		                                                                               : &c->jb[c->topo[i]]) = i;
		steady_values(j, c->pes[i], c->dim[i], &c->exact[i], &c->paper[i]);
		c->within &= fabs(j->s.sqdev_mean - c->exact[i]) <= 4 * j->s.sqdev_se;
	}
	const int seeds = c->seeds;
	const double alpha = c->jobs[c->nsteady].alpha, gamma = c->jobs[c->nsteady].gamma;
	for (int k = 1; k <= T; k++) {
		double sf = 0, sf2 = 0, sn = 0, sn2 = 0;
		for (int s = 0; s < seeds; s++) {
			double a = c->traces[(size_t)s * (T + 1) + k], b = c->traces[(size_t)(seeds + s) * (T + 1) + k];
			sf += a, sf2 += a * a, sn += b, sn2 += b * b;
		}
		c->t[k - 1] = k;
		c->fm[k - 1] = sf / seeds;
		c->nm[k - 1] = sn / seeds;
		c->fse[k - 1] = sqrt(fmax(0, (sf2 - sf * sf / seeds) / (seeds - 1)) / seeds);
		c->nse[k - 1] = sqrt(fmax(0, (sn2 - sn * sn / seeds) / (seeds - 1)) / seeds);
		c->fex[k - 1] = exact_value("8x8", alpha, k);
		c->fbd[k - 1] = 63 * (1 - pow(gamma * gamma, k)) / (1 - gamma * gamma);
		c->nex[k - 1] = 63.0 * k;
	}
}

/* cybenko.csv (every steady-state run) and cybenko_transient.csv. */
static int write_csvs(const cyb *c, lbt_err *e)
{
	lbt_outfile out;
	int st = rp_open(c->o, "cybenko.csv", &out, e);
	if (st)
		return st;
	fputs("topology,shape,n,method,alpha,gamma,steps,warmup,sqdev_mean,sqdev_se,batches,exact,paper\n", out.f);
	for (int i = 0; i < c->nsteady; i++) {
		const rp_wjob *j = &c->jobs[i];
		int fos = !strcmp(j->method, "fos");
		fprintf(out.f, "%s,%s,%lld,%s,%.17g,%.17g,%lld,%lld,%.17g,%.17g,%lld,%.17g,%.17g\n", names[c->topo[i]],
		        j->shape, (long long)c->pes[i], j->method, fos ? j->alpha : 0.5, fos ? j->gamma : 0.0,
		        (long long)j->until.steps, (long long)j->warmup, j->s.sqdev_mean, j->s.sqdev_se,
		        (long long)j->s.sqdev_batches, c->exact[i], c->paper[i]);
	}
	if ((st = lbt_out_commit(&out, e)) || (st = rp_open(c->o, "cybenko_transient.csv", &out, e)))
		return st;
	fputs("t,fos_mean,fos_se,fos_exact,fos_bound,none_mean,none_se,none_exact,seeds\n", out.f);
	for (int k = 0; k < T; k++)
		fprintf(out.f, "%d,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%d\n", k + 1, c->fm[k], c->fse[k], c->fex[k],
		        c->fbd[k], c->nm[k], c->nse[k], c->nex[k], c->seeds);
	return lbt_out_commit(&out, e);
}

/* cybenko.md: Theorem 2, Table II, the transient, then Table I (rp_cybenko_fixed). */
static int write_markdown(const cyb *c, lbt_err *e)
{
	lbt_outfile out;
	int st = rp_open(c->o, "cybenko.md", &out, e);
	if (st)
		return st;
	FILE *f = out.f;
	const rp_wjob *jobs = c->jobs;
	fprintf(f, "# Cybenko (1989), Theorem 2, Tables I and II: diffusion and dimension exchange\n\n"
	        "Model (eq. (12)): every step each PE receives η ~ Exp(1) tasks (σ² = 1) and completes c = 1.\n"
	        "E‖w − w̄‖² is measured on the loads the balancing step receives (after the arrivals), as the\n"
	        "mean over the steps after a warm-up; ± is the standard error by batch means (32..63 batches of\n"
	        "consecutive steps, each far longer than the correlation time 1/(1 − γ)). FOS: α optimal.\n"
	        "Exact: σ² Σ_k 1/(1 − λ_k²) over the non-unit eigenvalues λ_k of M = I − α·Lap (not in the paper;\n"
	        "it is what the theorem's proof gives before bounding every λ_k² by γ²). Bound: the theorem's\n"
	        "(n − 1)σ²/(1 − γ²). Data: `cybenko.csv`, `cybenko_transient.csv`; plots: `cybenko_cube.png`,\n"
	        "`cybenko_transient.png`.\n\n## Theorem 2: FOS in the steady state\n\n");
	fputs("| topology | n | γ | paper: Theorem 2's bound | exact | ours | ours / exact | exact / bound |\n"
	      "|---|---:|---:|---:|---:|---:|---:|---:|\n", f);
	for (int i = 0; i < c->nsteady; i++) {
		const rp_wjob *j = &jobs[i];
		if (strcmp(j->method, "fos"))
			continue;
		fprintf(f, "| %s | %lld | %.4f | %.2f | %.2f | %.2f ± %.2f | %.4f | %.3f |\n", names[c->topo[i]],
		        (long long)c->pes[i], j->gamma, c->paper[i], c->exact[i], j->s.sqdev_mean, j->s.sqdev_se,
		        j->s.sqdev_mean / c->exact[i], c->exact[i] / c->paper[i]);
	}
	fputs("\n## Table II: diffusion against dimension exchange on hypercubes\n\n"
	      "The paper's asymptotic variances (σ² = 1): diffusion about ¼·n·log₂n (Theorem 2 with α = 1/(d+1),\n"
	      "eq. (20)); dimension exchange nσ² under Model A (a complete sweep per diffusion step) and, under\n"
	      "Model B (a dimension per step, eq. (17)), Theorem 5's (2^(d+1) − 1)σ² ≤ 2nσ². Exact for a\n"
	      "dimension per step: the latest s < d exchanges average over 2^s-subcubes, so E = Σ_{s<d}(n/2^s − 1)σ²\n"
	      "= (2^(d+1) − d − 2)σ² (our derivation, the proof's sum without its bound). A shape has at most\n"
	      "8 axes: the 9- and 10-cube run as 4x4x4x4x2 and 4x4x4x4x4 (a 4-ring is the 2-cube, so the graph,\n"
	      "FOS and a complete sweep are the hypercube's); one dimension per step needs an axis per\n"
	      "dimension, so Model B is not run there (—).\n\n"
	      "| d | n | diffusion: paper ¼·n·d | FOS exact | FOS ours | DE A: paper nσ² | DE A exact (n − 1)σ² | DE A ours | DE B: paper 2^(d+1) − 1 | DE B exact | DE B ours |\n"
	      "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n", f);
	for (int k = CUBE0; k < c->nsh; k++) {
		const int i = c->jf[k], a = c->ja[k], b = c->jb[k], d = c->dim[i];
		fprintf(f, "| %d | %lld | %.0f | %.2f | %.2f ± %.2f | %.0f | %.0f | %.2f ± %.2f | %.0f | %.0f |", d,
		        (long long)c->pes[i], 0.25 * (double)c->pes[i] * d, c->exact[i], jobs[i].s.sqdev_mean,
		        jobs[i].s.sqdev_se, c->paper[a], c->exact[a], jobs[a].s.sqdev_mean, jobs[a].s.sqdev_se,
		        ldexp(1, d + 1) - 1, ldexp(1, d + 1) - d - 2);
		if (b >= 0)
			fprintf(f, " %.2f ± %.2f |\n", jobs[b].s.sqdev_mean, jobs[b].s.sqdev_se);
		else
			fputs(" — |\n", f);
	}
	fprintf(f, "\nEvery measurement (FOS, DE under Models A and B) is within 4 standard errors of its exact value: %s.\n",
	        c->within ? "yes" : "NO");
	fprintf(f, "\n\n## The transient (8x8 torus) and the growth without balancing\n\n"
	        "η ~ Poisson(1), c = 1, from a constant start; mean over %d seeds ± its standard error.\n"
	        "Bound: (n − 1)σ²(1 − γ^{2t})/(1 − γ²) (Theorem 2; its second term is 0 for a constant w(0)).\n"
	        "Without balancing the paper says the deviation grows as (t + 1)σ² per PE; from a constant\n"
	        "start (no random w(0)) that is (n − 1)tσ² in all.\n\n"
	        "| t | FOS ours | FOS exact | paper: bound | no balancing ours | paper: (n − 1)tσ² | ours / paper |\n"
	        "|---:|---:|---:|---:|---:|---:|---:|\n", c->seeds);
	static const int rows[] = {1, 2, 5, 10, 20, 40, 60};
	for (int r = 0; r < 7; r++) {
		int k = rows[r] - 1;
		fprintf(f, "| %d | %.2f ± %.2f | %.2f | %.2f | %.1f ± %.1f | %.0f | %.4f |\n", k + 1, c->fm[k], c->fse[k],
		        c->fex[k], c->fbd[k], c->nm[k], c->nse[k], c->nex[k], c->nm[k] / c->nex[k]);
	}
	st = rp_cybenko_fixed(c->o, f, e);
	if (st)
		lbt_out_abort(&out);
	else
		st = lbt_out_commit(&out, e);
	return st;
}

/* The plots: the hypercubes (Theorem 2 and Table II), and the transient. */
static int plot(const cyb *c, lbt_err *e)
{
	const rp_wjob *jobs = c->jobs;
	double d[NCUBE], meas[NCUBE], lo[NCUBE], hi[NCUBE], ex[NCUBE], bd[NCUBE], dea[NCUBE], deap[NCUBE], deb[NCUBE],
	       debx[NCUBE], debp[NCUBE];
	int nc = 0, nb = 0; /* hypercubes; those with Model B runs (the first nb) */
	for (int k = CUBE0; k < c->nsh; k++, nc++) {
		const int i = c->jf[k];
		d[nc] = c->dim[i];
		meas[nc] = jobs[i].s.sqdev_mean;
		lo[nc] = meas[nc] - 2 * jobs[i].s.sqdev_se;
		hi[nc] = meas[nc] + 2 * jobs[i].s.sqdev_se;
		ex[nc] = c->exact[i];
		bd[nc] = c->paper[i];
		dea[nc] = jobs[c->ja[k]].s.sqdev_mean;
		deap[nc] = c->paper[c->ja[k]];
		debx[nc] = ldexp(1, c->dim[i] + 1) - c->dim[i] - 2;
		debp[nc] = ldexp(1, c->dim[i] + 1) - 1;
		if (c->jb[k] >= 0)
			deb[nb++] = jobs[c->jb[k]].s.sqdev_mean;
	}
	lbt_series sc[] = {
		{"FOS, ours (±2 s.e.)", d, meas, nc, LBT_DRAW_MARKS, 0, 1, 7, lo, hi},
		{"FOS, exact", d, ex, nc, LBT_DRAW_LINE, 0, 1, 0, NULL, NULL},
		{"FOS, Theorem 2's bound", d, bd, nc, LBT_DRAW_LINE, 2, 1, 0, NULL, NULL},
		{"DE by dimension, ours", d, deb, nb, LBT_DRAW_MARKS, 0, 3, 9, NULL, NULL},
		{"DE by dimension, exact", d, debx, nc, LBT_DRAW_LINE, 0, 3, 0, NULL, NULL},
		{"DE by dimension, Theorem 5", d, debp, nc, LBT_DRAW_LINE, 2, 3, 0, NULL, NULL},
		{"DE by sweep, ours", d, dea, nc, LBT_DRAW_MARKS, 0, 2, 5, NULL, NULL},
		{"DE by sweep, Table II: nσ²", d, deap, nc, LBT_DRAW_LINE, 2, 2, 0, NULL, NULL},
	};
	lbt_axes ax = {"Cybenko (1989), Theorem 2 and Table II (Model A) on hypercubes", "hypercube dimension d",
	               "steady-state E||w − w̄||² (σ² = 1)", 0, 1, 1, 0, NULL, "bottom right"};
	int ps = rp_plot(c->o, "cybenko_cube", &ax, sc, 8, e);
	double flo[T], fhi[T];
	for (int k = 0; k < T; k++) {
		flo[k] = c->fm[k] - 2 * c->fse[k];
		fhi[k] = c->fm[k] + 2 * c->fse[k];
	}
	lbt_series tr[] = {
		{"FOS, ours (±2 s.e.)", c->t, c->fm, T, LBT_DRAW_MARKS, 0, 1, 7, flo, fhi},
		{"FOS, exact", c->t, c->fex, T, LBT_DRAW_LINE, 0, 1, 0, NULL, NULL},
		{"FOS, Theorem 2's bound", c->t, c->fbd, T, LBT_DRAW_LINE, 2, 1, 0, NULL, NULL},
		{"no balancing, ours", c->t, c->nm, T, LBT_DRAW_MARKS, 0, 2, 5, NULL, NULL},
		{"no balancing, (n−1)tσ²", c->t, c->nex, T, LBT_DRAW_LINE, 2, 2, 0, NULL, NULL},
	};
	lbt_axes at = {"Cybenko (1989): the transient of Theorem 2, 8x8 torus", "step t", "E||w(t) − w̄||² (σ² = 1)",
	               0, 1, 1, 0, NULL, "center right"};
	int pt = rp_plot(c->o, "cybenko_transient", &at, tr, 5, e);
	return ps ? ps : pt;
}

int rp_cybenko(const lbt_repro_opts *o, lbt_err *e)
{
	cyb *c = calloc(1, sizeof *c);
	if (!c)
		return lbt_errf(e, LBT_ENOMEM, "cybenko: no memory");
	c->o = o;
	c->nsh = o->quick ? 5 : NSH;
	c->seeds = o->quick ? 50 : 400;
	const int njobs = 3 * c->nsh + 2 * c->seeds;
	c->jobs = calloc((size_t)njobs, sizeof *c->jobs);
	c->topo = calloc((size_t)njobs, sizeof *c->topo);
	c->traces = calloc((size_t)(2 * c->seeds) * (T + 1), sizeof *c->traces);
	int st = c->jobs && c->topo && c->traces ? LBT_OK : lbt_errf(e, LBT_ENOMEM, "cybenko: no memory");
	if (!st) {
		plan(c);
		rp_note(o, "cybenko: %d steady-state runs, %d transient runs of %d steps", c->nsteady, c->n - c->nsteady, T);
		st = rp_run_wjobs(c->jobs, c->n, o, e);
	}
	if (!st) {
		derive(c);
		st = write_csvs(c, e);
	}
	if (!st)
		st = write_markdown(c, e);
	if (!st)
		st = plot(c, e);
	free(c->jobs);
	free(c->topo);
	free(c->traces);
	free(c);
	return st;
}

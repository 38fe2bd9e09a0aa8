/* repro_luling.c — `lbtorus reproduce luling-theorems`: R. Lüling and B.
 * Monien, "A dynamic distributed load balancing algorithm with provable good
 * performance" (SPAA 1993), Theorems 1-4 measured in the one-processor
 * generator (and producer-consumer, and consumer) model of §3.
 *
 * The process: every PE starts with L0 packets (a balanced state) and l_old
 * = L0; PE 0 alone generates one packet per step (`--workload generator:1`)
 * and runs luling-monien (borrow 0); nobody consumes. Between two of PE 0's
 * operations nothing happens but PE 0's generation, so the experiment gives
 * PE 0 at once the packets it would generate up to its trigger (the first
 * load >= f l_old) and steps the method: the same sequence of operations in
 * (f - 1) fewer steps per l_old. The jump is a workload phase of its own
 * (`jump`), so every run goes through the run engine (lbt_run), which checks
 * that the load changes only by what the phase says it generated or
 * consumed. `--workload generator:1` runs the process step by step: a second
 * table does that for a few settings as a cross-check. Theorem 3's
 * producer-consumer: before each operation PE 0 either grows to f l_old or
 * shrinks to l_old / f, each with probability 1/2 (drawn from lbt_rand).
 *
 * E(l_1,t)/E(l_i,t) is estimated right after PE 0's t-th operation as the
 * ratio of the means over R seeds of l_0 and of the mean load of the other
 * PEs; its standard error by the delta method. */
#include <math.h>
#include <signal.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "repro.h"
#include "lbtorus/rng.h"
#include "method/luling.h"

enum { TMAX = 400, T_EARLY = 5 };
/* The engine cross-check: fewer runs, and smaller loads (PE 0 generates one
 * packet per step, so a run takes about (f - 1) l_old steps per operation;
 * the trigger's rounding then adds up to 1/(f l_old) ~ 0.5 % to f). */
enum { R_ENGINE = 200, R_ENGINE_QUICK = 40, L0_ENGINE = 100 };

/* What one run recorded right after each of PE 0's operations 1..T. */
typedef struct {
	int64_t t, T;
	double *l0, *others;
	volatile sig_atomic_t stop; /* the engine's interrupt flag: set after operation T */
	const volatile sig_atomic_t *interrupt; /* the caller's: once set, no run opens */
	int mode;                   /* the jump's direction (thm_run) */
	double f;
} thm_rec;

static void thm_on_op(void *ctx, const lbt_luling *w, const int64_t *set, int m)
{
	(void)set;
	(void)m;
	thm_rec *r = ctx;
	if (r->t >= r->T)
		return;
	int64_t sum = 0;
	for (int64_t i = 1; i < w->P; i++)
		sum += w->pe[i].cur;
	r->l0[r->t] = (double)w->pe[0].cur;
	r->others[r->t] = (double)sum / (double)(w->P - 1);
	r->stop = ++r->t >= r->T;
}

int rp_luling_set_pe0(lbt_state *st, int64_t target, lbt_work_counts *c, lbt_err *e)
{
	int32_t *l0 = &st->grid.load[0]; /* one process, so PE 0 is here */
	if (target < 0 || target > INT32_MAX)
		return lbt_errf(e, LBT_ERANGE, "PE 0's load %lld is outside 0..2^31-1", (long long)target);
	if (target > *l0)
		c->generated = (double)(target - *l0);
	else
		c->completed = (double)(*l0 - target);
	*l0 = (int32_t)target;
	return LBT_OK;
}

int64_t rp_luling_up(double f, int64_t lold)
{
	int64_t target = (int64_t)ceil(f * (double)lold * (1 - 1e-12));
	return target > lold ? target : lold + 1;
}

/* The jump of thm_run as a workload phase: PE 0's load becomes the first
 * integer >= f l_old (mode 0, and mode 1 with probability 1/2) or the first
 * integer <= l_old / f (mode 3, and mode 1 otherwise), drawn from the run's
 * seed and the number of operations so far. */
static int jump_phase(void *ws, lbt_state *st, int64_t step, uint64_t seed, lbt_work_counts *c, lbt_err *e)
{
	(void)ws;
	(void)step;
	lbt_luling *w = lbt_luling_of(st);
	const thm_rec *r = w->on_op_ctx;
	int64_t old = w->pe[0].lold, target;
	int grow = r->mode == 0 || (r->mode == 1 && lbt_rand(seed, (uint64_t)r->t, 0, 301) >> 63);
	if (grow)
		target = rp_luling_up(r->f, old);
	else { /* the first integer <= l_old / f (below l_old) */
		target = (int64_t)floor((double)old / r->f * (1 + 1e-12));
		if (target >= old)
			target = old - 1;
	}
	if (target > INT32_MAX / 2 || target < 0)
		return lbt_errf(e, LBT_ERANGE, "luling-theorems: PE 0's load left the int32 range (n %lld, delta %d, f %g)",
		                (long long)w->P, w->delta, r->f);
	return rp_luling_set_pe0(st, target, c, e);
}

static const lbt_workload jump = {.name = "jump", .summary = "PE 0 jumps to its next trigger", .phase = jump_phase};

/* The engine reads one interrupt flag: the run's own stop (after its last
 * operation), into which a signal's flag (the default interrupt,
 * lbt_run_interrupt_default; cli_stop_cleanly) is copied after every step. */
typedef struct {
	volatile sig_atomic_t *stop;
	const volatile sig_atomic_t *signal;
} until_watch;

static void watch_signal(void *ctx, const lbt_step_record *r)
{
	(void)r;
	const until_watch *w = ctx;
	if (*w->signal)
		*w->stop = 1;
}

int rp_luling_run_until(lbt_state *st, const lbt_workload *wl, volatile sig_atomic_t *stop, lbt_err *e)
{
	lbt_run_opts ro = lbt_run_opts_default();
	until_watch w = {stop, ro.interrupt};
	ro.until.kind = LBT_UNTIL_STEPS;
	ro.until.steps = INT64_MAX / 2;
	ro.max_steps = INT64_MAX / 2;
	ro.workload = wl;
	ro.interrupt = stop;
	if (w.signal) {
		ro.on_step = watch_signal;
		ro.ctx = &w;
	}
	lbt_summary s;
	int status = lbt_run(st, &ro, &s, e);
	if (!status && w.signal && *w.signal) /* stopped by the signal, not after its last operation */
		status = lbt_errf(e, LBT_EINTR, "interrupted");
	return status;
}

int rp_luling_open(lbt_state *st, int64_t n, int delta, double f, int C, uint64_t seed, int64_t L0,
                   const volatile sig_atomic_t *interrupt, lbt_err *e)
{
	char shape[32], init[48], fs[32], ds[16], cs[16];
	snprintf(cs, sizeof cs, "%d", C);
	snprintf(shape, sizeof shape, "%lld", (long long)n);
	snprintf(init, sizeof init, "const:%lld", (long long)L0);
	snprintf(fs, sizeof fs, "%.17g", f);
	snprintf(ds, sizeof ds, "%d", delta);
	lbt_setup set = {.shape = shape, .method = "luling-monien", .init = init, .isa = "scalar", .seed = seed,
	                 .threads = 1, .params = {{"f", fs}, {"delta", ds}, {"borrow", cs}, {"partners", "global"}},
	                 .interrupt = interrupt};
	return lbt_state_open(st, &set, e);
}

/* The same process step by step through the run engine with `--workload
 * generator:1`, stopped after PE 0's T-th operation. */
static int thm_run_engine(int64_t n, int delta, double f, int C, uint64_t seed, int64_t L0, thm_rec *r, lbt_err *e)
{
	lbt_state st;
	lbt_workload w;
	int status = rp_luling_open(&st, n, delta, f, C, seed, L0, r->interrupt, e);
	if (status)
		return status;
	if (!(status = lbt_workload_parse(&w, "generator:1", st.method->load, e))) {
		lbt_luling *k = lbt_luling_of(&st);
		k->on_op = thm_on_op;
		k->on_op_ctx = r;
		r->t = 0;
		r->stop = 0;
		status = rp_luling_run_until(&st, &w, &r->stop, e);
		if (!status && r->t < r->T)
			status = lbt_errf(e, LBT_EINTERNAL, "luling-theorems: the run stopped before operation %lld", (long long)r->T);
	}
	lbt_state_close(&st);
	return status;
}

/* One run of the one-generator (mode 0: PE 0 always grows), producer-consumer
 * (mode 1: grows or shrinks at random) or one-consumer (mode 3: always
 * shrinks) model, through the engine with the jump phase. */
static int thm_run(int64_t n, int delta, double f, int mode, uint64_t seed, int64_t L0, thm_rec *r, lbt_err *e)
{
	lbt_state st;
	int status = rp_luling_open(&st, n, delta, f, 0, seed, L0, r->interrupt, e);
	if (status)
		return status;
	lbt_luling *w = lbt_luling_of(&st);
	w->on_op = thm_on_op;
	w->on_op_ctx = r;
	r->t = 0;
	r->stop = 0;
	r->mode = mode;
	r->f = f;
	status = rp_luling_run_until(&st, &jump, &r->stop, e);
	lbt_state_close(&st);
	return status;
}

/* The t at which G^t(1) is within rel of FIX (at least 20, at most TMAX). */
int64_t rp_luling_settle_t(int64_t n, int delta, double f, double rel)
{
	double fix = lbt_luling_fix(n, delta, f), k = 1;
	int64_t t = 0;
	while (t < TMAX && (t < 20 || fabs(k - fix) > rel * fix)) {
		k = lbt_luling_G(n, delta, f, k);
		t++;
	}
	return t;
}

/* E(l_0)/(E(l_j) + C) at operation t over R runs (l_j: the other PEs' mean), and its standard error. */
static void ratio_c_at(thm_rec *runs, int R, int64_t t, double C, double *ratio, double *se)
{
	double sa = 0, sb = 0, saa = 0, sbb = 0, sab = 0;
	for (int r = 0; r < R; r++) {
		double a = runs[r].l0[t - 1], b = runs[r].others[t - 1] + C;
		sa += a, sb += b, saa += a * a, sbb += b * b, sab += a * b;
	}
	double ma = sa / R, mb = sb / R, va = saa / R - ma * ma, vb = sbb / R - mb * mb, c = sab / R - ma * mb;
	*ratio = ma / mb;
	double v = (va / (ma * ma) + vb / (mb * mb) - 2 * c / (ma * mb)) / R;
	*se = *ratio * sqrt(v > 0 ? v : 0);
}

/* Ratio of the means over R runs at operation t, and its standard error. */
static void ratio_at(thm_rec *runs, int R, int64_t t, double *ratio, double *se) { ratio_c_at(runs, R, t, 0, ratio, se); }

typedef struct {
	const volatile sig_atomic_t *interrupt; /* the caller's (lbt_repro_opts); the rest travels (thm_result) */
	int64_t n;
	int delta;
	double f;
	int64_t T;
	double early, early_se, late, late_se; /* Theorems 1-2 */
	double pc, pc_se, pc_lo, pc_hi;        /* Theorem 3: at T, and the extremes of the ratio over t = 1..T */
	int64_t Ts;                            /* Theorem 3, always shrinking: where G^t for 1/f settles */
	double sh, sh_se, sh_lo;               /*   the ratio at Ts, and its lowest over t = 1..Ts */
	int t4;                                /* Theorem 4: the class version (C = 4) through the engine, one generator */
	double t4_max, t4_se;                  /*   the largest E(l_0)/(E(l_j) + C) after PE 0's operations 1..T */
	int64_t t4_at;
	int engine;                            /* also run step by step through the engine (generator:1) */
	double eng, eng_se;                    /*   its ratio at T */
	int status;
	char msg[sizeof(lbt_err){0}.msg];
} thm_cfg;

/* mode 0: one generator, 1: producer-consumer, 2: one generator through the
 * engine, 3: one consumer (until Ts), 4: as 2 with the classes (C = T4_C) */
enum { T4_C = 4 };
static int run_cfg(thm_cfg *c, int mode, int R, int64_t L0, thm_rec *runs, double *buf, lbt_err *e)
{
	for (int r = 0; r < R; r++) {
		runs[r] = (thm_rec){.T = mode == 3 ? c->Ts : c->T, .l0 = buf + (size_t)r * 2 * TMAX,
		                    .others = buf + (size_t)r * 2 * TMAX + TMAX, .interrupt = c->interrupt};
		uint64_t seed = 1000003ULL * (uint64_t)(mode + 1) + (uint64_t)r;
		int st = mode == 2 || mode == 4
		                 ? thm_run_engine(c->n, c->delta, c->f, mode == 4 ? T4_C : 0, seed, L0, &runs[r], e)
		                 : thm_run(c->n, c->delta, c->f, mode, seed, L0, &runs[r], e);
		if (st)
			return st;
	}
	return LBT_OK;
}


/* One configuration's runs: the generator (Theorems 1-2, early and late),
 * the producer-consumer (Theorem 3), the engine's cross-check, the consumer
 * (Theorem 3's lower bound) and the class version's extreme (Theorem 4). */
static void thm_config_runs(thm_cfg *x, const lbt_repro_opts *o, int R, int64_t L0)
{
	const int most = R > R_ENGINE ? R : R_ENGINE, RE = o->quick ? R_ENGINE_QUICK : R_ENGINE;
	thm_rec *runs = malloc((size_t)most * sizeof *runs);
	double *buf = malloc((size_t)most * 2 * TMAX * sizeof *buf);
	lbt_err le;
	if (!runs || !buf)
		x->status = lbt_errf(&le, LBT_ENOMEM, "no memory for %d runs", most);
	else if (!(x->status = run_cfg(x, 0, R, L0, runs, buf, &le))) {
		ratio_at(runs, R, T_EARLY, &x->early, &x->early_se);
		ratio_at(runs, R, x->T, &x->late, &x->late_se);
		if (!(x->status = run_cfg(x, 1, R, L0, runs, buf, &le))) {
			ratio_at(runs, R, x->T, &x->pc, &x->pc_se);
			x->pc_lo = INFINITY, x->pc_hi = -INFINITY;
			for (int64_t t = 1; t <= x->T; t++) {
				double r, s;
				ratio_at(runs, R, t, &r, &s);
				x->pc_lo = r < x->pc_lo ? r : x->pc_lo;
				x->pc_hi = r > x->pc_hi ? r : x->pc_hi;
			}
		}
		if (!x->status && x->engine && !(x->status = run_cfg(x, 2, RE, L0_ENGINE, runs, buf, &le)))
			ratio_at(runs, RE, x->T, &x->eng, &x->eng_se);
		if (!x->status && !(x->status = run_cfg(x, 3, R, L0, runs, buf, &le))) { /* Theorem 3's lower bound */
			ratio_at(runs, R, x->Ts, &x->sh, &x->sh_se);
			x->sh_lo = INFINITY;
			for (int64_t t = 1; t <= x->Ts; t++) {
				double r, s;
				ratio_at(runs, R, t, &r, &s);
				x->sh_lo = fmin(x->sh_lo, r);
			}
		}
		if (!x->status && x->t4 && !(x->status = run_cfg(x, 4, RE, L0_ENGINE, runs, buf, &le))) {
			x->t4_max = -INFINITY;
			for (int64_t t = 1; t <= x->T; t++) {
				double r, s;
				ratio_c_at(runs, RE, t, T4_C, &r, &s);
				if (r > x->t4_max)
					x->t4_max = r, x->t4_se = s, x->t4_at = t;
			}
		}
	}
	if (x->status)
		snprintf(x->msg, sizeof x->msg, "%s", le.msg);
	free(runs);
	free(buf);
}

/* luling-theorems.csv: a row per configuration. */
static int thm_csv(const thm_cfg *cfg, int nc, int R, int64_t L0, const lbt_repro_opts *o, lbt_err *e)
{
	lbt_outfile csv;
	int status = rp_open(o, "luling-theorems.csv", &csv, e);
	if (status)
		return status;
	fprintf(csv.f, "# Lüling, Monien 1993, Theorems 1-4: one-processor generator (and producer-consumer, consumer) model, "
	               "%d runs per row, every PE starting with %lld packets\n",
	        R, (long long)L0);
	fprintf(csv.f, "n,delta,f,t_early,ratio_early,se_early,G_t_early,t,ratio,se,G_t,FIX,limit,"
	               "pc_ratio,pc_se,pc_min,pc_max,FIX_1_over_f,limit_1_over_f,t_shrink,shrink_ratio,shrink_se,"
	               "shrink_min,t4_max,t4_se,t4_operation\n");
	for (int i = 0; i < nc; i++) {
		const thm_cfg *x = &cfg[i];
		fprintf(csv.f, "%lld,%d,%g,%d,%.6f,%.6f,%.6f,%lld,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,"
		               "%lld,%.6f,%.6f,%.6f,",
		        (long long)x->n, x->delta, x->f, T_EARLY, x->early, x->early_se,
		        lbt_luling_Gt(x->n, x->delta, x->f, T_EARLY), (long long)x->T, x->late, x->late_se,
		        lbt_luling_Gt(x->n, x->delta, x->f, x->T), lbt_luling_fix(x->n, x->delta, x->f),
		        x->delta / (x->delta + 1 - x->f), x->pc, x->pc_se, x->pc_lo, x->pc_hi,
		        lbt_luling_fix(x->n, x->delta, 1 / x->f), x->delta / (x->delta + 1 - 1 / x->f), (long long)x->Ts,
		        x->sh, x->sh_se, x->sh_lo);
		if (x->t4)
			fprintf(csv.f, "%.6f,%.6f,%lld\n", x->t4_max, x->t4_se, (long long)x->t4_at);
		else
			fputs(",,\n", csv.f);
	}
	return lbt_out_commit(&csv, e);
}

/* Theorems 1 and 2 (the generator), and the engine's cross-check. */
static void thm_md_generator(FILE *f, const thm_cfg *cfg, int nc, int R, int64_t L0, const lbt_repro_opts *o)
{
	fprintf(f, "# Lüling and Monien 1993, Theorems 1-4 measured\n\n"
	           "One-processor generator model (§3): every PE starts with %lld packets, PE 0 alone generates and "
	           "runs luling-monien (basic algorithm, global partners). Ratio = E(l_1,t)/E(l_i,t) right after PE "
	           "0's t-th operation, the ratio of the means over %d seeds, ± one standard error (delta method). "
	           "The paper's values are its formulas: G^t(1) (Lemma 1), FIX(n, δ, f) (Theorem 1: the limit), "
	           "δ/(δ+1−f) (Theorem 2: the bound for any n). t is where G^t(1) is within 1e-4 of FIX.\n\n",
	        (long long)L0, R);
	fprintf(f, "| n | δ | f | ours, t = %d | paper G^%d(1) | t | ours at t | paper G^t(1) | paper FIX(n,δ,f) | "
	           "ours / FIX | paper δ/(δ+1−f) |\n|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n",
	        T_EARLY, T_EARLY);
	int within = 0;
	for (int i = 0; i < nc; i++) {
		const thm_cfg *x = &cfg[i];
		double fix = lbt_luling_fix(x->n, x->delta, x->f);
		within += fabs(x->late - fix) <= 3 * x->late_se;
		fprintf(f, "| %lld | %d | %g | %.4f ± %.4f | %.4f | %lld | %.4f ± %.4f | %.4f | %.4f | %.4f | %.4f |\n",
		        (long long)x->n, x->delta, x->f, x->early, x->early_se,
		        lbt_luling_Gt(x->n, x->delta, x->f, T_EARLY), (long long)x->T, x->late, x->late_se,
		        lbt_luling_Gt(x->n, x->delta, x->f, x->T), fix, x->late / fix, x->delta / (x->delta + 1 - x->f));
	}
	fprintf(f, "\n%d of %d measured ratios at t are within 3 standard errors of FIX.\n\n", within, nc);
	fprintf(f, "Cross-check: the same process step by step through the run engine, `--workload generator:1` (PE 0 "
	           "generates one packet per step), %d seeds, every PE starting with %d packets:\n\n"
	           "| n | δ | f | t | engine, generator:1 | above (jumps to the trigger) | paper FIX(n,δ,f) |\n"
	           "|---:|---:|---:|---:|---:|---:|---:|\n", o->quick ? R_ENGINE_QUICK : R_ENGINE, L0_ENGINE);
	for (int i = 0; i < nc; i++)
		if (cfg[i].engine)
			fprintf(f, "| %lld | %d | %g | %lld | %.4f ± %.4f | %.4f ± %.4f | %.4f |\n", (long long)cfg[i].n,
			        cfg[i].delta, cfg[i].f, (long long)cfg[i].T, cfg[i].eng, cfg[i].eng_se, cfg[i].late,
			        cfg[i].late_se, lbt_luling_fix(cfg[i].n, cfg[i].delta, cfg[i].f));
	fprintf(f, "\n");
}

/* Theorem 3 (one producer-consumer), and Theorems 3 and 4 pushed to their
 * bounds by the extreme sequences. */
static void thm_md_bounds(FILE *f, const thm_cfg *cfg, int nc, int R, const lbt_repro_opts *o)
{
	fprintf(f, "## Theorem 3: one producer-consumer\n\nBefore each operation PE 0 grows its load to f·l_old or "
	           "shrinks it to l_old/f, each with probability 1/2. Theorem 3: FIX(n, δ, 1/f) ≤ ratio ≤ FIX(n, δ, "
	           "f) after any number t of operations, and δ/(δ+1−1/f) ≤ ratio ≤ δ/(δ+1−f) for any n.\n\n");
	fprintf(f, "| n | δ | f | paper FIX(n,δ,1/f) | ours: lowest over t | ours at t | ours: highest over t | "
	           "paper FIX(n,δ,f) | inside |\n|---:|---:|---:|---:|---:|---:|---:|---:|---|\n");
	int inside = 0;
	for (int i = 0; i < nc; i++) {
		const thm_cfg *x = &cfg[i];
		double lo = lbt_luling_fix(x->n, x->delta, 1 / x->f), hi = lbt_luling_fix(x->n, x->delta, x->f);
		int in = x->pc_lo >= lo - 3 * x->pc_se && x->pc_hi <= hi + 3 * x->pc_se;
		inside += in;
		fprintf(f, "| %lld | %d | %g | %.4f | %.4f | %.4f ± %.4f | %.4f | %.4f | %s |\n", (long long)x->n,
		        x->delta, x->f, lo, x->pc_lo, x->pc, x->pc_se, x->pc_hi, hi, in ? "yes" : "no");
	}
	fprintf(f, "\n%d of %d rows stay inside Theorem 3's bounds (within 3 standard errors at t) over t = 1..t.\n",
	        inside, nc);
	fprintf(f, "\n## Theorems 3 and 4 where they bite\n\nThe random pattern above stays near 1. The two extreme "
	           "sequences of Theorem 3 push towards its bounds: PE 0 always growing (the generator of Theorems 1-2: "
	           "the ratio at t of the first table) towards FIX(n, δ, f), and PE 0 always shrinking to l_old/f before "
	           "each operation (a consumer, %d seeds, until t_s, where G^t for 1/f is within 1e-4 of its limit) "
	           "towards FIX(n, δ, 1/f). Inside: the shrinking run's lowest ratio ≥ FIX(n,δ,1/f) − 3 s.e. and the "
	           "growing run's ratio ≤ FIX(n,δ,f) + 3 s.e.\n\n"
	           "| n | δ | f | paper FIX(n,δ,1/f) | t_s | ours, always shrinking, at t_s | lowest over t | ours / FIX(1/f) "
	           "| paper FIX(n,δ,f) | ours, always growing, at t | ours / FIX(f) | inside both |\n"
	           "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n", R);
	for (int i = 0; i < nc; i++) {
		const thm_cfg *x = &cfg[i];
		double lo = lbt_luling_fix(x->n, x->delta, 1 / x->f), hi = lbt_luling_fix(x->n, x->delta, x->f);
		int in = x->sh_lo >= lo - 3 * x->sh_se && x->late <= hi + 3 * x->late_se;
		fprintf(f, "| %lld | %d | %g | %.4f | %lld | %.4f ± %.4f | %.4f | %.4f | %.4f | %.4f ± %.4f | %.4f | %s |\n",
		        (long long)x->n, x->delta, x->f, lo, (long long)x->Ts, x->sh, x->sh_se, x->sh_lo, x->sh / lo, hi,
		        x->late, x->late_se, x->late / hi, in ? "yes" : "no");
	}
	fprintf(f, "\nTheorem 4 (the class version: E(l_i) ≤ f²δ/(δ+1−f)·(E(l_j) + C) for any two PEs at any time from a "
	           "balanced start), pushed by the extreme sequence: PE 0 alone generating (`--workload generator:1`, "
	           "C = %d, every PE starting with %d packets, %d seeds) — the largest E(l_0)/(E(l_j) + C) right after PE "
	           "0's operations 1..t (l_j: the mean of the others; between two operations PE 0 grows by less than a "
	           "factor f):\n\n| n | δ | f | C | t | ours: max over operations | at operation | paper's bound "
	           "f²δ/(δ+1−f) | ours / bound | FIX(n,δ,f) | below |\n|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n",
	        T4_C, L0_ENGINE, o->quick ? R_ENGINE_QUICK : R_ENGINE);
	for (int i = 0; i < nc; i++) {
		const thm_cfg *x = &cfg[i];
		if (!x->t4)
			continue;
		double b = x->f * x->f * x->delta / (x->delta + 1 - x->f);
		fprintf(f, "| %lld | %d | %g | %d | %lld | %.4f ± %.4f | %lld | %.4f | %.4f | %.4f | %s |\n", (long long)x->n,
		        x->delta, x->f, T4_C, (long long)x->T, x->t4_max, x->t4_se, (long long)x->t4_at, b, x->t4_max / b,
		        lbt_luling_fix(x->n, x->delta, x->f), x->t4_max <= b + 3 * x->t4_se ? "yes" : "no");
	}
}

/* The configurations as rp_spread takes them. */
typedef struct {
	thm_cfg *cfg;
	int mine, R, done; /* mine: the configurations this rank runs */
	int64_t L0;
	const lbt_repro_opts *o;
} thm_batch;

static void thm_job(void *ctx, int64_t i)
{
	thm_batch *b = ctx;
	thm_cfg *x = &b->cfg[i];
	thm_config_runs(x, b->o, b->R, b->L0);
#pragma omp critical(rp_progress)
	rp_note(b->o, "  [%d/%d] n %lld, delta %d, f %g: t = %lld, ratio %.4f (FIX %.4f)", ++b->done, b->mine,
	        (long long)x->n, x->delta, x->f, (long long)x->T, x->late, lbt_luling_fix(x->n, x->delta, x->f));
}

static int thm_result(void *ctx, int64_t i, void *at[LBT_SPREAD_REGIONS], size_t n[LBT_SPREAD_REGIONS])
{
	thm_cfg *x = &((thm_batch *)ctx)->cfg[i];
	at[0] = &x->n; /* all but the interrupt flag's address, this process's own */
	n[0] = sizeof *x - offsetof(thm_cfg, n);
	return 1;
}

/* Theorems 1-4: every configuration (n, δ, f) planned, run in parallel
 * (thm_config_runs), then the CSV and the Markdown with §5's Figure 6 after it. */
int rp_luling_theorems(const lbt_repro_opts *o, lbt_err *e)
{
	static const int64_t ns_full[] = {16, 64, 256, 1024}, ns_quick[] = {16, 64};
	static const int deltas[] = {1, 2, 4};
	static const double fs[] = {1.1, 1.2, 1.8};
	const int64_t *ns = o->quick ? ns_quick : ns_full;
	const int nn = o->quick ? 2 : 4, R = o->quick ? 100 : 2000;
	const int64_t L0 = 100000;
	int nc = nn * 3 * 3;
	thm_cfg *cfg = calloc((size_t)nc, sizeof *cfg);
	if (rp_agree_room(cfg != NULL, e)) {
		free(cfg);
		return LBT_ENOMEM;
	}
	int c = 0;
	for (int a = 0; a < nn; a++)
		for (int b = 0; b < 3; b++)
			for (int k = 0; k < 3; k++, c++) {
				cfg[c].n = ns[a];
				cfg[c].delta = deltas[b];
				cfg[c].f = fs[k];
				cfg[c].T = rp_luling_settle_t(ns[a], deltas[b], fs[k], 1e-4);
				cfg[c].engine = ns[a] <= (o->quick ? 16 : 64) && ((deltas[b] == 1 && k == 2) || (deltas[b] == 2 && k == 1));
				cfg[c].Ts = rp_luling_settle_t(ns[a], deltas[b], 1 / fs[k], 1e-4);
				cfg[c].t4 = ns[a] <= (o->quick ? 16 : 64) && k == 2;
				cfg[c].interrupt = o->interrupt;
			}
	thm_batch b = {.cfg = cfg, .mine = (int)lbt_spread_mine(nc), .R = R, .L0 = L0, .o = o};
	const lbt_spread sp = {.run = thm_job, .result = thm_result, .ctx = &b};
	int status = rp_spread(&sp, nc, o, e);
	for (int i = 0; i < nc && !status; i++)
		if (cfg[i].status)
			status = lbt_errf(e, cfg[i].status, "%s", cfg[i].msg);
	/* §5, Figure 6: the variation density (repro_luling_vd.c), its runs before any file is written */
	rp_vd *vd = NULL;
	if (!status)
		status = rp_luling_vd(o, &vd, e);
	if (!status)
		status = thm_csv(cfg, nc, R, L0, o, e);
	lbt_outfile md;
	if (!status && !(status = rp_open(o, "luling-theorems.md", &md, e))) {
		thm_md_generator(md.f, cfg, nc, R, L0, o);
		thm_md_bounds(md.f, cfg, nc, R, o);
		status = rp_luling_vd_write(o, md.f, vd, e); /* its section and plots */
		if (!status)
			status = lbt_out_commit(&md, e);
		else
			lbt_out_abort(&md);
	}
	free(vd);
	free(cfg);
	return status;
}

/* repro.h — internals shared by the reproduce experiments: batches of
 * independent runs, the paper's claims, CSV and Markdown helpers. */
#ifndef LBTORUS_REPRO_H
#define LBTORUS_REPRO_H

#include <stdio.h>

#include "lbtorus/io.h"
#include "lbtorus/plot.h"
#include "lbtorus/run.h"
#include "lbtorus/reproduce.h"
#include "exp/spread.h"

/* One run: method on shape from init, until balanced and shared, at most
 * cap steps, through the run engine, which stops a deterministic method
 * whose state recurs (src/exec/cycle.c): a recurrence proves the run never
 * reaches a criterion it has not reached yet. */
typedef struct {
	char method[32], shape[48], init[64];
	uint64_t seed;
	int64_t cap;
	/* results */
	int64_t steps, shifts, total, pes;
	int64_t shared_step, shared_shifts, balanced_step, balanced_shifts; /* -1: never */
	int64_t period;      /* > 0: the state recurs with this period (step `steps`) */
	int capped;          /* stopped at cap, unresolved */
	int status;
	char msg[512];
} rp_job;

/* lbt_run_opts_default() stopped by the caller's interrupt flag
 * (o->interrupt), as every run of an experiment is; a run's lbt_setup takes
 * the same flag. */
lbt_run_opts rp_run_opts(const lbt_repro_opts *o);

/* Run n jobs, in parallel (each single-threaded), biggest first; under MPI
 * spread over the ranks (spread.h). A run cut short by a signal fails with
 * LBT_EINTR. */
int rp_threads(const lbt_repro_opts *o); /* runs at once on a rank: --threads, else every core */
int rp_run_jobs(rp_job *jobs, int n, const lbt_repro_opts *o, lbt_err *e);
/* Under MPI rank 0 runs the experiment, writes its files and announces
 * each batch of runs (rp_run_jobs, rp_run_wjobs) to the other ranks, which
 * serve them (rp_serve in reproduce.c) until it announces the end with its
 * outcome. rp_announce: rank 0's word to the others (nothing on one
 * process); rp_agree_room: LBT_OK on every rank if every rank had room
 * (ok), else LBT_ENOMEM on all; rp_serve_wjobs: a rank's part of a batch
 * of n rp_wjobs. */
enum { RP_END, RP_JOBS, RP_WJOBS };
/* The jv-* and luling-* experiments run on every rank instead: each rank
 * plans the same runs and calls rp_spread at the same points (collective:
 * its share of the n jobs runs, rp_threads(o) at once, then every result is
 * on every rank), so what follows is the same everywhere; rp_open and rp_plot
 * write nothing on ranks other than 0 (lbt_reproduce). Such an experiment
 * makes all its rp_spread calls before it writes, so a failed write on rank 0
 * leaves no rank waiting. */
int rp_spread(const lbt_spread *s, int64_t n, const lbt_repro_opts *o, lbt_err *e);
void rp_announce(int kind, int64_t n);
int rp_agree_room(int ok, lbt_err *e);
int rp_serve_wjobs(int n, const lbt_repro_opts *o, lbt_err *e);
void rp_note(const lbt_repro_opts *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The papers' stated results (data/henrich1996_claims.csv; ids luling1993_*:
 * data/luling1993_claims.csv). */
typedef struct {
	char id[64], experiment[16], quantity[200], source[400];
	int has_value;
	double value;
} rp_claim;
int rp_claim_get(const lbt_repro_opts *o, const char *id, rp_claim *c, lbt_err *e);

/* A Markdown paper-vs-ours table: header, then one row per claim. `ours` is
 * NAN when ours has no number (then `text` says what we found). */
void rp_md_claims_head(FILE *f);
void rp_md_claim(FILE *f, const rp_claim *c, double ours, const char *text);

/* Read an integer CSV table (# comments, one header row); returns rows or -1. */
int rp_read_table(const lbt_repro_opts *o, const char *name, int64_t *rows, int max, int cols, lbt_err *e);

/* out_dir/name (creating out_dir). */
int rp_path(const lbt_repro_opts *o, const char *name, char *buf, size_t n, lbt_err *e);
/* Open out_dir/name for writing (lbt_out_open: committed by lbt_out_commit). */
int rp_open(const lbt_repro_opts *o, const char *name, lbt_outfile *f, lbt_err *e);
/* Plot into out_dir/stem; a missing gnuplot is noted and returned as LBT_EUNSUP. */
int rp_plot(const lbt_repro_opts *o, const char *stem, const lbt_axes *ax, const lbt_series *s, int ns,
            lbt_err *e);

/* Series with identical points are drawn on top of each other: give every
 * later one of a group a dashed line and its own marker, and write
 * "A = B = C" (groups joined by "; ") into note for the plot. */
void rp_mark_coinciding(lbt_series *s, int ns, char *note, size_t n);

/* Least squares: slope of log y over log x between the last two points;
 * fit y = a x + b x^2 (through the origin). */
double rp_loglog_slope(const double *x, const double *y, int n);
/* A log-log slope against the paper's "linear", the rule in the words:
 * "far below linear (slope < 0.9)", "linear (slope 0.9..1.1)", "faster than
 * linear (slope > 1.1)", or "no slope". */
const char *rp_linear_word(double slope);
void rp_fit_lin_quad(const double *x, const double *y, int n, double *a, double *b);

int rp_table3(const lbt_repro_opts *o, int64_t *differs, lbt_err *e);
int rp_fig5(const lbt_repro_opts *o, lbt_err *e);
int rp_fig6(const lbt_repro_opts *o, lbt_err *e);
int rp_fig7(const lbt_repro_opts *o, lbt_err *e);
/* One run with a workload (repro_cybenko.c), single-threaded; rp_run_wjobs
 * runs n of them in parallel, under MPI spread over the ranks (a run cut
 * short by a signal fails with LBT_EINTR). */
typedef struct {
	const char *shape, *method, *pname, *pvalue, *spec, *init; /* pname, pvalue: one method parameter or NULL */
	lbt_until until;
	int64_t warmup, max_steps; /* max_steps 0: the default cap */
	uint64_t seed;
	double *trace;             /* NULL, or room for until.steps + 1 values: sqdev per step */
	/* results */
	lbt_summary s;
	double alpha, gamma;       /* fos: the resolved alpha and Cybenko's gamma */
	int status;
	char msg[512];
} rp_wjob;
int rp_run_wjobs(rp_wjob *jobs, int n, const lbt_repro_opts *o, lbt_err *e);

int rp_cybenko(const lbt_repro_opts *o, lbt_err *e); /* repro_cybenko.c */
/* Table I and eq. (15)/(16), a fixed load: its section of cybenko.md into md,
 * and cybenko_fixed.csv (repro_cybenko_fixed.c). */
int rp_cybenko_fixed(const lbt_repro_opts *o, FILE *md, lbt_err *e);
int rp_trees(const lbt_repro_opts *o, lbt_err *e);   /* repro_trees.c */
/* Jeannot and Vernier (2006), §4: repro_jv.c. One run of the application
 * (JV_N iterations) on a 64-PE line unless shape says otherwise; unit_s,
 * unit_bytes > 0 replace the link's calibration (lbt_link_parse's). */
#define JV_N 1000 /* the application's iterations (§4) */
typedef struct {
	const char *method, *link, *cb, *detect, *shape, *boundary, *speeds, *alpha;
	char init[64];
	int64_t steps;
	double unit_s, unit_bytes;
	/* results */
	lbt_summary sum;
	int64_t used; /* PEs holding load at the end */
	int status;
	char msg[sizeof(lbt_err){0}.msg];
} rp_jv_run;
/* n runs, in parallel, under MPI spread over the ranks (rp_spread): the
 * first failure's status and message, LBT_EINTR for a run a signal cut
 * short. */
int rp_jv_runs(rp_jv_run *r, int n, const lbt_repro_opts *o, lbt_err *e);
int rp_jv_calibration(const lbt_repro_opts *o, lbt_err *e); /* repro_jv_calib.c */
int rp_jv_shake(const lbt_repro_opts *o, lbt_err *e);       /* repro_jv_shake.c */
int rp_jv_fig1(const lbt_repro_opts *o, lbt_err *e);
int rp_jv_fig23(const lbt_repro_opts *o, lbt_err *e);
int rp_jv_table1(const lbt_repro_opts *o, lbt_err *e);
int rp_jv_speeds(const lbt_repro_opts *o, lbt_err *e);

/* Lüling and Monien (1993), repro_luling.c: the basic algorithm (C = 0) or
 * the class version (C >= 1) with global partners on a ring of n PEs holding
 * L0 each, scalar, one thread (refused, LBT_EINTR, once *interrupt is set); */
int rp_luling_open(lbt_state *st, int64_t n, int delta, double f, int C, uint64_t seed, int64_t L0,
                   const volatile sig_atomic_t *interrupt, lbt_err *e);
/* st stepped through the run engine with workload wl until *stop is set (by
 * the method's on_op hook or the phase), or LBT_EINTR at the end of the
 * step in which a signal set the default interrupt (cli_stop_cleanly); */
int rp_luling_run_until(lbt_state *st, const lbt_workload *wl, volatile sig_atomic_t *stop, lbt_err *e);
/* PE 0's load set by a workload phase, what that generated or consumed in c
 * (an error outside 0..2^31-1); PE 0's next trigger going up, the first
 * integer >= f l_old above l_old; and the first t >= 20 (at most 400) with
 * G^t(1) within rel of FIX(n, delta, f). */
int rp_luling_set_pe0(lbt_state *st, int64_t target, lbt_work_counts *c, lbt_err *e);
int64_t rp_luling_up(double f, int64_t lold);
int64_t rp_luling_settle_t(int64_t n, int delta, double f, double rel);
int rp_luling_theorems(const lbt_repro_opts *o, lbt_err *e); /* repro_luling.c */
/* §5, the variation density and Figure 6 (repro_luling_vd.c): its runs
 * (collective: rp_spread), into *out (the caller frees it), then its section
 * of luling-theorems.md into md, and its plots. */
typedef struct rp_vd rp_vd;
int rp_luling_vd(const lbt_repro_opts *o, rp_vd **out, lbt_err *e);
int rp_luling_vd_write(const lbt_repro_opts *o, FILE *md, const rp_vd *out, lbt_err *e);
int rp_luling_cost(const lbt_repro_opts *o, lbt_err *e);     /* repro_luling_cost.c */
int rp_luling_figs(const lbt_repro_opts *o, lbt_err *e);     /* repro_luling_dyn.c */
int rp_luling_table1(const lbt_repro_opts *o, lbt_err *e);
int rp_luling_compare(const lbt_repro_opts *o, lbt_err *e);


#endif

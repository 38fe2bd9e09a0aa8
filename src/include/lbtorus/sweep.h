/* sweep.h — many runs: the cartesian product of methods, shapes, boundaries,
 * initial loads, criteria and seeds, appended one JSON line per finished run
 * to a results file that a later invocation resumes. */
#ifndef LBTORUS_SWEEP_H
#define LBTORUS_SWEEP_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "lbtorus/status.h"
#include "lbtorus/method.h"

/* The axes of a sweep, in the order runs are enumerated (seed innermost). */
enum { LBT_AX_METHOD, LBT_AX_SHAPE, LBT_AX_BOUNDARY, LBT_AX_INIT, LBT_AX_UNTIL, LBT_AX_WORKLOAD, LBT_AX_SEED,
       LBT_NAXES };

#define LBT_SWEEP_MAX_RUNS 1000000 /* a larger product is refused, naming its size */

/* Lists of items per axis, as text after expansion of ranges and families. */
typedef struct {
	char **item[LBT_NAXES];
	int64_t n[LBT_NAXES], cap[LBT_NAXES];
	int64_t max_steps;   /* one value for the whole sweep */
	int max_steps_set;
	int64_t warmup;      /* one value for the whole sweep's runs with a workload (default 0) */
	int warmup_set;
} lbt_spec;

const char *lbt_spec_axis_name(int axis);     /* "method", "shape", ... */
int lbt_spec_axis_find(const char *name);     /* -1 if unknown; also "seeds"; "max_steps" = LBT_NAXES,
                                                 "warmup" = LBT_NAXES + 1 */
void lbt_spec_init(lbt_spec *sp);
void lbt_spec_free(lbt_spec *sp);
/* Append the items of one value: comma-separated, each expanded (see sweep_spec.c). */
int lbt_spec_add(lbt_spec *sp, int axis, const char *value, lbt_err *e);
/* Read a spec file of `key = value` lines; errors name the file and line. */
int lbt_spec_read(lbt_spec *sp, const char *path, lbt_err *e);
/* For every axis empty in sp: take over's items if over (may be NULL) has
 * them, else, with fill_defaults, the default (lm-c5, torus, worst:5,
 * balanced, workload none, seed 1; shapes have none: then an error). Same for max_steps. */
int lbt_spec_merge(lbt_spec *sp, const lbt_spec *over, int fill_defaults, lbt_err *e);

/* A method item's parameters: "luling-monien:delta=4:f=1.5" (NAME=VALUE
 * fields joined by colons; a field without '=' continues the value before
 * it: partners=local:3), each from the method's schema, as given. */
typedef struct {
	int n;
	const lbt_param *p[LBT_MAX_PARAMS];
	char value[LBT_MAX_PARAMS][64];
} lbt_method_args;

/* A method item, "fos:alpha=0.25": the name into name[n], its parameters
 * into *a (n = 0 if none). Each value is checked against the schema's
 * range; a parameter the method does not take, or one given twice, is an error. */
int lbt_method_split(const char *item, char *name, size_t n, lbt_method_args *a, lbt_err *e);

/* One run of a sweep, with its inputs in canonical text (the strings point
 * into the spec the plan was built from, which must outlive the plan). */
typedef struct {
	const char *method, *shape, *init, *until; /* method: the item, "fos:alpha=0.25", "luling-monien:f=1.5:delta=4" */
	const char *workload; /* the workload's spec, "none" for none */
	char mname[64];      /* the method's name: "fos" */
	lbt_method_args args; /* the method's parameters given in the item */
	int64_t warmup;      /* with a workload: steps 1..warmup left out of sqdev_mean */
	char boundary[64];
	uint64_t seed;
	int seeded;          /* the run draws random numbers: the seed is in the key */
	int64_t max_steps;
	int64_t pes, k;
	char *key;       /* "method=lm-c5 shape=8 boundary=torus init=uniform:0:9 until=balanced max_steps=1000000 seed=1"
	                  * ("seed=any" when the seed cannot change the result; " workload=SPEC" before
	                  * max_steps unless the workload is none, so a sweep without one keeps its keys;
	                  * " warmup=N" after it when N > 0) */
	char id[17];     /* 16 hex digits: FNV-1a 64 of key, then murmur3 fmix64 */
} lbt_plan_run;

typedef struct {
	lbt_plan_run *run;
	int64_t n;
	int64_t duplicates; /* combinations that named a run already in the plan */
} lbt_plan;

/* Validate every combination (no grid is allocated) and list the distinct runs. */
int lbt_plan_build(lbt_plan *pl, const lbt_spec *sp, lbt_err *e);
void lbt_plan_free(lbt_plan *pl);
int lbt_run_key(lbt_plan_run *r, lbt_err *e); /* allocate key, fill id, from the other fields */

typedef struct {
	int64_t total;      /* runs in the plan */
	int64_t skipped;    /* already in the results file */
	int64_t done;       /* finished by this invocation */
	int64_t failed;     /* stopped by an error (nothing recorded) */
	int64_t unconverged;/* recorded with reached = false */
	int64_t in_flight;
	int64_t interrupted; /* stopped by *opts.interrupt: not recorded, a later invocation runs them */
	int truncated;      /* a torn last line was moved from the results file to RESULTS.torn */
	int completed;      /* the last record lacked its newline: it was added */
	double work_total, work_done; /* estimated cost (PEs x K per run) of this invocation's runs */
	double seconds;
	char last_error[512];
} lbt_sweep_progress;

typedef struct {
	int jobs;           /* runs at once, one thread each (<= 0: $OMP_NUM_THREADS or all cores) */
	int threads;        /* threads of a run with >= solo_pes PEs (<= 0: all cores) */
	int64_t solo_pes;   /* such runs go one at a time on all threads */
	const char *isa;
	int verify;
	int mpi;            /* 1: spread the runs over the MPI ranks (lbtorus/comm.h), one at a time
	                       per rank; rank 0 writes the results file (on_progress: rank 0 only) */
	void (*on_progress)(void *ctx, const lbt_sweep_progress *p); /* after each run, serialized */
	void *ctx;
	/* if set non-zero (a signal handler): no run starts any more, runs in
	 * flight stop after their current step and are not recorded */
	const volatile sig_atomic_t *interrupt;
} lbt_exec_opts;

/* Run every run of pl not yet recorded in `results` (created if missing),
 * appending one line per finished run: the run's lbt_summary_json object with
 * "run_id" and "run_key" first, flushed and fsync'ed. A last line without
 * its newline is first completed if it is a record (out->completed), else
 * moved to RESULTS.torn (out->truncated): nothing is deleted. Refuses a
 * results file that is not a regular file, one another sweep holds locked
 * and one whose lines are not sweep records. The first record that cannot
 * be appended (a full disk) stops the sweep: no run starts after it, what
 * was written stays, and LBT_EIO says so. Returns LBT_OK when every run is
 * recorded (or the sweep was interrupted: out->interrupted, or
 * runs left unstarted), else the first run error's status (the others still ran). */
int lbt_sweep_exec(const lbt_plan *pl, const char *results, const lbt_exec_opts *o,
                   lbt_sweep_progress *out, lbt_err *e);

#endif

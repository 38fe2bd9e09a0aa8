/* run.h — the run engine: the one step loop of lbtorus. It steps a method
 * until a criterion holds, the safety cap is hit, the state recurs or the
 * caller interrupts, keeping the counters and the first step at which the
 * load was shared, balanced and flat. One step is
 *   workload phase -> method step -> reductions -> criteria -> observers
 * (docs/engine.md). */
#ifndef LBTORUS_RUN_H
#define LBTORUS_RUN_H

#include <signal.h>
#include <stdint.h>
#include <stdio.h>

#include "lbtorus/method.h"

#define LBT_REAL_TOTAL_TOL 1e-9

typedef enum {
	LBT_UNTIL_SHARED,   /* every PE holds load: min > 0 */
	LBT_UNTIL_BALANCED, /* seed 000, Definition 2: max - min <= D */
	LBT_UNTIL_FLAT,     /* max - min <= 1 */
	LBT_UNTIL_STEPS,    /* exactly `steps` steps */
	LBT_UNTIL_REL,      /* ||w - mean|| / ||w0 - mean|| <= rel (Cybenko's distance to uniform) */
	LBT_UNTIL_SHARED_BALANCED, /* both shared and balanced have held (not necessarily at once) */
	LBT_UNTIL_DONE,     /* no task is left anywhere: total = 0 (a workload's task set is finished) */
	LBT_UNTIL_KINDS     /* how many kinds there are (not a kind) */
} lbt_until_kind;

typedef struct {
	lbt_until_kind kind;
	int64_t steps;
	double rel;
} lbt_until;

int lbt_until_parse(lbt_until *u, const char *text, lbt_err *e); /* "balanced", "steps:100", "rel:1e-6", "shared+balanced", "done" */
const char *lbt_until_name(lbt_until_kind k);
/* As --until writes kind k ("steps:N", "rel:X", ...) and one line saying what it
 * means: the --help texts and the parser's error list every kind from these. */
const char *lbt_until_syntax(lbt_until_kind k);
const char *lbt_until_help(lbt_until_kind k);

/* Quantities of load (extremes, totals, amounts moved, generated and
 * completed) are doubles in the load field's units: for an integer method
 * they hold integers, exactly below 2^53 (the engine checks conservation of
 * integer loads on exact int64 sums). `real` says which: it decides how they
 * are printed (lbt_fprint_load). */

/* The state after one step (step 0: the initial state). */
typedef struct {
	int64_t step;
	int real;              /* the method's loads are real-valued */
	double max, min, total;
	double shifts;         /* time in the paper's unit, over the run so far */
	double moved;          /* load that crossed a link in this step */
	double moved_total;
	int64_t idle;          /* PEs with no load (only if opts.full_stats: else stale */
	double stddev;         /*   where the kernel measured the state: integer methods, fos, ca) */
	double rel;            /* stddev / initial stddev = ||w - mean|| / ||w0 - mean|| (0 if w0 is flat);
	                          the same as idle */
	double link_max;       /* the largest amount on one link in this step */
	/* With a workload (else 0): what its phase of this step generated and
	 * completed, the capacity it left unused (an integer load completes at
	 * most what a PE holds), and sqdev = ||w - mean(w)||^2 of the loads the
	 * method's step received, i.e. just after the workload phase (Cybenko's
	 * w(t) of eq. (12)); step 0: of the initial loads. */
	double generated, completed, idle_capacity, sqdev;
} lbt_step_record;

/* A workload: a process that generates and completes load on the PEs, run
 * as the first phase of every step, before the method's step. A phase may
 * change the load field(s) of st and adds what it generated and completed
 * to c; draws for PE i must be a function of (seed, step, global index of
 * i, purpose) alone (lbtorus/rng.h), so that they do not depend on
 * threads, ISA or ranks. */
typedef struct {
	double generated, completed; /* load units (integers for integer loads) */
	double idle_capacity;        /* work the PEs could have done but had no task for */
	/* Integer loads, optionally (sq_known = 1): the sum of the squares of
	 * the loads the phase leaves, sq_hi 2^32 + sq_lo exactly, so that the
	 * engine needs no pass of its own for sqdev. */
	int sq_known;
	uint64_t sq_hi, sq_lo;
	/* Real-valued loads: shift (given to the phase: the mean of the loads
	 * before it, as the engine knows it, or 0) and, optionally (dev_known =
	 * 1), the sums dev = sum(w - shift) and sq = sum((w - shift)^2) over the
	 * loads the phase leaves, so that sqdev = sq - dev^2 / P needs no pass
	 * of the engine's own. The phase adds to them, and to generated and
	 * completed, in the global order of its sums (so that slabs of a torus
	 * cut by hand, each a rank of one, chain through one c); a torus of one
	 * row (a ring) keeps its row's lanes in lanes, so that its pieces pass
	 * them on through c too (between ranks they pass along the last axis:
	 * lbt_cut_chain). */
	double shift;
	int dev_known;
	double dev, sq;
	lbt_wl_rsums lanes;
} lbt_work_counts;

#define LBT_WORKLOAD_ARGS 8

typedef struct lbt_workload {
	const char *name;    /* as on the command line */
	const char *summary; /* one line for --help */
	int (*open)(void **ws, const lbt_state *st, lbt_err *e); /* NULL: no workspace */
	int (*phase)(void *ws, lbt_state *st, int64_t step, uint64_t seed, lbt_work_counts *c, lbt_err *e);
	void (*close)(void *ws);
	/* The workloads of lbt_workload_parse also have (a value written as
	 * above leaves them zero): */
	int (*open_spec)(void **ws, const struct lbt_workload *w, lbt_state *st, lbt_err *e); /* used instead of open; may place
	                                                                                    the first tasks (a tree's roots) */
	int (*settle)(void *ws, lbt_state *st, lbt_err *e); /* after the method's step (tree nodes follow the load); NULL: nothing */
	int64_t (*levels)(const void *ws); /* a search tree: the levels it had so far (its depth + 1); NULL: not a tree */
	/* Read the spec's text after "name:" (rest; NULL if the spec is the
	 * bare name) into w->arg and w->dist, for a method whose loads are of
	 * kind `load`; w is a copy of the registered value with w->spec set. */
	int (*parse)(struct lbt_workload *w, const char *rest, lbt_load_kind load, lbt_err *e);
	const char *usage;   /* "cybenko:DIST:C": the spec's form, for --help and errors */
	const char *example; /* a spec that runs on a small torus with an integer method (tests/test_contract.c) */
	int tasks;           /* 1: a finite set of tasks (search trees): --until done is the natural end */
	char spec[96];       /* the spec as parsed */
	int dist;            /* cybenko: which distribution (LBT_DIST_*) */
	double arg[LBT_WORKLOAD_ARGS]; /* the spec's numbers, in order */
} lbt_workload;

/* Cybenko's arrival distributions (eq. (12)), LBT_DIST_*: in lbtorus/kernels.h. */

const lbt_workload *lbt_workload_find(const char *name); /* "none", "cybenko", ... NULL if unknown */
const lbt_workload *const *lbt_workloads(void);          /* NULL-terminated */
/* Parse a spec ("cybenko:poisson:1:1", "tree:2:10", "none") into w, for a
 * method whose loads are of kind `load` (real-valued arrivals need a
 * real-valued method; tasks need integer loads). w is self-contained: the
 * run options may point at it. */
int lbt_workload_parse(lbt_workload *w, const char *spec, lbt_load_kind load, lbt_err *e);
/* Refuse, before anything is allocated, a workload that cannot run on shape
 * s (a search tree keeps at most 2^28 node counts, levels x PEs); its open
 * checks again. */
int lbt_workload_fits(const lbt_workload *w, const lbt_shape *s, lbt_err *e);

typedef enum {
	LBT_STOP_UNTIL,       /* the criterion held */
	LBT_STOP_MAX_STEPS,   /* the safety cap */
	LBT_STOP_STALLED,     /* a step moved nothing: a fixed point */
	LBT_STOP_CYCLE,       /* the state recurred (period in the summary): it never changes course */
	LBT_STOP_INTERRUPTED, /* *opts.interrupt was set */
	LBT_STOP_DETECTED     /* the method's convergence detection decided that balancing is over */
} lbt_stop;
const char *lbt_stop_name(lbt_stop s); /* the JSON's stop_reason: "until", "max_steps", ... */

#define LBT_RUN_OPTS_VERSION 0x4c425431u /* set by lbt_run_opts_default */

typedef struct {
	uint32_t version;      /* LBT_RUN_OPTS_VERSION: made by lbt_run_opts_default() */
	lbt_until until;       /* default balanced */
	int64_t max_steps;     /* safety cap (default 1000000): stop unconverged after this many steps */
	int verify;            /* also run the scalar reference and compare every step */
	int full_stats;        /* fill idle and stddev in every record */
	int detect_cycles;     /* default 1: stop a deterministic run without a workload whose state recurs */
	int bare;              /* only step, until.steps steps (each after the workload's phase, if any):
	                          no reductions, checks or observers (bench) */
	const lbt_workload *workload; /* NULL or "none": no load is generated or completed */
	const volatile sig_atomic_t *interrupt; /* if set non-zero, stop after the current step */
	void (*on_step)(void *ctx, const lbt_step_record *r); /* after every step, and for step 0 */
	void *ctx;
	int64_t warmup;        /* with a workload: steps 1..warmup are left out of sqdev_mean (default 0) */
	int64_t app_iterations; /* > 0: an application of this many iterations (Jeannot and Vernier
	                           2006, §4), one balancing step per iteration until the run stops,
	                           then none; needs a method with LBT_M_SPEEDS. Caps the steps. */
	int batch;             /* 1: a run of steps:N or until shared, balanced or flat may take its
	                          steps several a call (lbt_method.steps) where nothing reads the
	                          grid between them: no workload, --verify, full_stats or
	                          application (a torus cut between ranks too: deep halos,
	                          LBTORUS_HALO); on_step then must not read the grid
	                          (its records are complete). Default 0: one step a call. */
} lbt_run_opts;

/* Options with every default filled in; a struct not made by this function
 * is refused by lbt_run (a zero-initialised one would run zero steps). */
lbt_run_opts lbt_run_opts_default(void);
/* From now on lbt_run_opts_default() gives interrupt = flag (NULL: none):
 * a program whose every run should stop on a signal sets it once. */
void lbt_run_interrupt_default(const volatile sig_atomic_t *flag);

typedef struct {
	int64_t steps;
	int real;           /* real-valued method (how the load quantities print) */
	double total;       /* the initial total */
	double initial_max, initial_min, final_max, final_min;
	double shifts, moved;
	int64_t shared_step, balanced_step, flat_step; /* -1: never reached */
	double shared_shifts, balanced_shifts, flat_shifts; /* -1: never reached */
	int reached;        /* the --until criterion held when the run stopped */
	lbt_stop stop;      /* why the run stopped */
	int64_t period;     /* stop == LBT_STOP_CYCLE: the state at `steps` equals the one `period` steps before */
	double seconds;     /* wall time of the stepping loop */
	int64_t site_updates; /* PEs x substeps processed */
	double generated, completed; /* by the workload, over the run */
	double initial_stddev, final_stddev, final_rel; /* of every run that returns LBT_OK */
	int64_t rel_step;   /* first step with rel <= the --until rel:X bound, -1 if never or not asked */
	/* With a workload: */
	double idle_capacity; /* over the run: work the PEs could have done but had no task for */
	double sqdev_mean;    /* the mean of the records' sqdev over steps warmup+1 .. steps */
	double sqdev_se;      /* its standard error by batch means (docs/usage.md); -1: fewer than 2 batches */
	int64_t sqdev_steps, sqdev_batches; /* how many steps sqdev_mean averages; batches behind sqdev_se */
	int64_t tree_levels;  /* a search tree: its depth + 1 (levels that held a node); -1: not a tree */
	/* With a field "speed": relative loads r_i = w_i / Cn_i (Cn: speeds over their mean) */
	double rel_load_max, rel_load_min; /* at the end */
	double rel_load_bound;             /* D / min Cn: "speed-balanced" is max r - min r <= it */
	int64_t speed_balanced_step;       /* first step speed-balanced, -1 if never */
	/* The application (opts.app_iterations > 0), in seconds */
	double app_time;    /* all iterations: the slowest PE's compute + communication + balancing each */
	double lb_time;     /* of which balancing: per balancing step, the busiest PE's exchange time */
	double seq_time;    /* the same iterations on one PE (the fastest) holding all the load */
	double speedup;     /* seq_time / app_time */
	int64_t links_exchanged, shaken; /* over the run: link-steps that carried load, and by the shake */
	int64_t detected_step; /* the step at which the convergence detection stopped balancing, -1 if not */
} lbt_summary;

/* Step st until opts->until holds (checked on the initial state too), or
 * max_steps steps have run, or *opts->interrupt is set, or — for a
 * deterministic method without a workload, whose future the state decides,
 * and unless until is steps:N — a step moved nothing or the state recurs
 * (opts->detect_cycles). Checks after every step that total after = total before +
 * generated - completed: exactly for integer loads; for real-valued loads to
 * within LBT_REAL_TOTAL_TOL relative to the load the run has handled:
 * the initial total plus every step's generated and completed, in absolute
 * value (each step's rounding of w_i - out + in, and of the workload's
 * sums, perturbs the total by a few ulps of what it adds up; a workload's
 * load can cross zero, so the present total is no measure of it). */
int lbt_run(lbt_state *st, const lbt_run_opts *opts, lbt_summary *out, lbt_err *e);

/* The same run kept open between calls, N steps a call (the public
 * lbt_sim_step): lbt_loop_open opens it as lbt_run does (the workload, step
 * 0's record and on_step, the observers) from options with until steps:N
 * (N is ignored: the run starts at 0 steps); each lbt_loop_steps(n) then
 * takes n more, so that calls of n1, n2, ... leave the bits, records,
 * on_step calls and summary of one lbt_run of steps:n1+n2+... (a phase,
 * Cybenko's arrivals, a search tree and the batch means go on across the
 * calls). A run the state ended (a method's detection) stays ended; a
 * failed one takes no further steps. lbt_loop_summary gives the summary and
 * the options (until steps:N) of that one run, as lbt_summary_json takes
 * them; the state st must stay open and untouched between the calls. */
typedef struct lbt_loop lbt_loop;
int lbt_loop_open(lbt_loop **l, lbt_state *st, const lbt_run_opts *opts, lbt_err *e);
int lbt_loop_steps(lbt_loop *l, int64_t n, lbt_err *e);
void lbt_loop_summary(const lbt_loop *l, lbt_run_opts *opts, lbt_summary *out);
void lbt_loop_close(lbt_loop *l); /* NULL: nothing */

/* A quantity of load as the JSON and the trace write it: an integer for an
 * integer method, all 17 digits for a real-valued one. */
void lbt_fprint_load(FILE *f, int real, double v);

/* Monotonic wall-clock seconds, for rates and progress lines. */
double lbt_seconds(void);
/* LBT_INSTRUMENTED: this build is instrumented by sanitizers, which check
 * every plain load and store but not the AVX-512 kernels' masked ones: its
 * timings are not the hardware's, and a kernel can pass a bandwidth bound
 * measured with a plain loop (lbtorus bench). */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define LBT_INSTRUMENTED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
#define LBT_INSTRUMENTED 1
#endif
#endif

/* Theorem 3 of seed 000 and the trivial bound, for records. */
int64_t lbt_bound_dkl(const lbt_shape *s, int64_t ldiff);            /* D*K*Ldiff */
/* The most loaded PE gives away at most one element per substep, so it needs
 * ceil((Lmax - mean)/D) steps to come down to the mean ... */
int64_t lbt_bound_lower_steps(const lbt_shape *s, int32_t max, int64_t total);
/* ... and, since balanced needs max <= min + D <= floor(mean) + D,
 * ceil((Lmax - floor(mean) - D)/D) steps to be balanced (0 if D = 0). */
int64_t lbt_bound_lower_balanced(const lbt_shape *s, int32_t max, int64_t total);

/* One JSON object describing a finished run (the keys are documented in
 * README.md); `init` is the spec as given. No trailing newline. */
void lbt_summary_json(FILE *f, const lbt_state *st, const char *init, const lbt_run_opts *o,
                      const lbt_summary *s);

#endif

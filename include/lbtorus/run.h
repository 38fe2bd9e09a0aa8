/* run.h — the run driver: steps a method until a criterion holds or the
 * safety cap is hit, keeping the counters and the first step at which the
 * load was shared, balanced and flat. */
#ifndef LBTORUS_RUN_H
#define LBTORUS_RUN_H

#include <stdint.h>
#include <stdio.h>

#include "lbtorus/method.h"

#define LBT_REAL_TOTAL_TOL 1e-9

typedef enum {
	LBT_UNTIL_SHARED,   /* every PE holds load: min > 0 */
	LBT_UNTIL_BALANCED, /* seed 000, Definition 2: max - min <= D */
	LBT_UNTIL_FLAT,     /* max - min <= 1 */
	LBT_UNTIL_STEPS,    /* exactly `steps` steps */
	LBT_UNTIL_REL       /* ||w - mean|| / ||w0 - mean|| <= rel (seed 002's distance to uniform) */
} lbt_until_kind;

typedef struct {
	lbt_until_kind kind;
	int64_t steps;
	double rel;
} lbt_until;

int lbt_until_parse(lbt_until *u, const char *text, lbt_err *e); /* "balanced", "steps:100", "rel:1e-6" */
const char *lbt_until_name(lbt_until_kind k);

/* The state after one step (step 0: the initial state). */
typedef struct {
	int64_t step, shifts;
	int32_t max, min;
	int64_t total;
	int64_t idle;          /* PEs with no load (only if opts.full_stats) */
	double stddev;         /* (only if opts.full_stats) */
	int64_t moved;         /* in this step */
	int64_t moved_total;
	/* Real-valued methods (real = 1) keep their loads and counters here; for
	 * integer methods these hold the integer values as doubles. */
	int real;
	double rmax, rmin, rtotal, rshifts, rmoved, rmoved_total;
	double rel;            /* stddev / initial stddev = ||w - mean|| / ||w0 - mean|| (0 if w0 is flat);
	                          integer methods: only if opts.full_stats */
	double link_max;       /* the largest amount on one link in this step */
} lbt_step_record;

typedef struct {
	lbt_until until;
	int64_t max_steps;     /* safety cap: stop unconverged after this many steps */
	int verify;            /* also run the scalar reference and compare every step */
	int full_stats;        /* fill idle and stddev in every record */
	void (*on_step)(void *ctx, const lbt_step_record *r); /* after every step, and for step 0 */
	void *ctx;
} lbt_run_opts;

typedef struct {
	int64_t steps, shifts, moved;
	int64_t total;
	int32_t initial_max, initial_min, final_max, final_min;
	int64_t shared_step, balanced_step, flat_step;       /* -1: never reached */
	int64_t shared_shifts, balanced_shifts, flat_shifts; /* -1: never reached */
	int reached;        /* the --until criterion held when the run stopped */
	double seconds;     /* wall time of the stepping loop */
	int64_t site_updates; /* PEs x substeps processed */
	int stalled;        /* stopped because a step moved nothing: a fixed point */
	int real;           /* real-valued method: the r* fields hold its loads and counters */
	double rtotal, rinitial_max, rinitial_min, rfinal_max, rfinal_min, rshifts, rmoved;
	double initial_stddev, final_stddev, final_rel; /* final_rel: -1 if not measured */
	double shared_rshifts, balanced_rshifts, flat_rshifts; /* the *_shifts of a real-valued method */
	int64_t rel_step;   /* first step with rel <= the --until rel:X bound, -1 if never or not asked */
} lbt_summary;

/* Step st until opts->until holds (checked on the initial state too) or
 * max_steps steps have run, or (unless until is steps:N) a step moved
 * nothing, a fixed point of these deterministic methods. Checks that the
 * total load never changes: exactly for integer loads; for real-valued loads
 * to within LBT_REAL_TOTAL_TOL relative to the initial total (each step's
 * rounding of w_i - out + in perturbs the sum by a few ulps). */
int lbt_run(lbt_state *st, const lbt_run_opts *opts, lbt_summary *out, lbt_err *e);

/* Monotonic wall-clock seconds, for rates and progress lines. */
double lbt_seconds(void);

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

/* search.h — worst-case search: among initial loads on a small torus with a
 * given total and a given Ldiff = max - min, find one a method (LM-C5 by
 * default) takes as many steps as possible to balance. */
#ifndef LBTORUS_SEARCH_H
#define LBTORUS_SEARCH_H

#include <signal.h>
#include <stdint.h>

#include "lbtorus/shape.h"

typedef struct {
	const char *shape;     /* a small torus: "8", "6x6" */
	const char *boundary;  /* NULL: torus */
	const char *method;    /* NULL: lm-c5 */
	int64_t ldiff;         /* max - min of every candidate (>= 1) */
	int64_t total;         /* sum of the loads of every candidate */
	int64_t restarts;      /* independent random starting configurations (>= 1) */
	int64_t moves;         /* local moves tried per restart */
	double temperature;    /* annealing: start temperature in steps, cooled linearly to 0; 0 = hill climbing */
	uint64_t seed;         /* the counter-based generator's seed */
	int64_t max_steps;     /* cap per evaluation (0: 1000 * D * K * Ldiff + 1000) */
	int threads;           /* restarts in parallel (<= 0: all cores) */
	const char *isa;
	/* A workload (lbt_workload_parse) every evaluation runs, from step 0
	 * with the same seed: every candidate meets the same arrivals. NULL or
	 * none: the static problem. Not a search tree (it places its own tasks). */
	const struct lbt_workload *workload;
	void (*note)(void *ctx, const char *line); /* one line per finished restart; may be NULL */
	void *ctx;
	/* if set non-zero (a signal): every run stops after its current step and
	 * the search fails; NULL: lbt_run_opts_default()'s */
	const volatile sig_atomic_t *interrupt;
} lbt_search_opts;

typedef struct {
	lbt_shape shape;
	int32_t *loads;        /* the worst configuration found, row-major (free it) */
	int64_t steps;         /* its steps until balanced */
	int64_t shifts;
	int64_t dkl;           /* D * K * Ldiff (Theorem 3) */
	double ratio;          /* steps / dkl */
	int64_t restart;       /* which restart found it */
	int64_t evaluations;   /* runs simulated in all */
	int64_t min;           /* its minimum load (its maximum is min + ldiff) */
} lbt_search_result;

/* Random restarts, each improved by local moves of load elements (from one
 * PE to a neighbour or to any PE) that keep the total and Ldiff. Results
 * depend only on the options (seed included), never on the thread or rank
 * count: each restart draws from its own stream and ties go to the lowest
 * restart. Under MPI every rank calls it (collective): restart r runs on
 * rank r mod R and every rank gets the result; LBT_EINTR on every rank if a
 * signal reached any (o->interrupt). */
int lbt_search(const lbt_search_opts *o, lbt_search_result *r, lbt_err *e);

#endif

/* method.h — the load-balancing methods a run can use, by name. A method
 * owns how one step changes the state; the run driver owns everything else. */
#ifndef LBTORUS_METHOD_H
#define LBTORUS_METHOD_H

#include <stdint.h>

#include "lbtorus/grid.h"
#include "lbtorus/kernels.h"

struct lbt_method;

/* Everything a method's step may touch. */
typedef struct {
	lbt_grid grid;                  /* integer loads */
	const struct lbt_method *method;
	const lbt_kernels *kern;        /* the dispatch table in use */
	int threads;
	uint64_t seed;
	int64_t step;                   /* steps completed so far */
	lbt_kernels table;              /* storage kern points at */
	lbt_diffusion diff;             /* fos, fos-int: link weights (from --alpha) */
	double lambda;                  /* de, de-int: exchange parameter (--lambda) */
	int ca_k;                       /* ca: Dickens's k (--ca-k) */
	double gamma;                   /* fos: convergence factor of alpha on this shape, -1 if not known */
} lbt_state;

typedef struct lbt_method {
	const char *name;    /* as on the command line: "lm-c5" */
	const char *summary; /* one line for --help */
	const char *source;  /* paper and equation behind it */
	int cond;            /* Liquid-model condition LBT_C0..LBT_C5 */
	void (*step)(lbt_state *st, lbt_counts *c);
	int real;            /* 1: real-valued loads (grid.real), 0: integer loads */
	const char *params;  /* the options it reads, for --help ("" if none) */
	int bounded;         /* integer loads never exceed max(initial max, 2): LBT_BOUNDED_* */
} lbt_method;

/* How far an integer method can pile load onto one PE. Unless bounded, a run
 * is refused when its total exceeds INT32_MAX (loads are never negative and
 * the total is conserved, so no PE can then overflow). */
enum {
	LBT_UNBOUNDED = 0,     /* rounding may lift a PE above the initial max (NNA) */
	LBT_BOUNDED_TORUS = 1, /* bounded on torus axes only: LM shifts one way, so a mesh piles load at its end */
	LBT_BOUNDED = 2        /* bounded on any boundary: truncated averaging (fos-int, de-int) */
};

const lbt_method *lbt_method_find(const char *name);
const lbt_method *const *lbt_methods(void); /* NULL-terminated, in --help order */
/* What a run is made of, as text from a command line or a spec file. */
typedef struct {
	const char *shape;    /* NULL: taken from an init file's header */
	const char *boundary; /* NULL: torus */
	const char *method;   /* NULL: lm-c5 */
	const char *init;     /* NULL: worst:5 */
	const char *isa;      /* NULL or "auto": the best this CPU runs */
	uint64_t seed;
	int threads;          /* <= 0: all cores */
	const char *alpha;    /* fos, fos-int: a number, "boillat" or "optimal" (NULL: optimal) */
	const char *lambda;   /* de, de-int: 0 < lambda <= 1 (NULL: 0.5) */
	const char *ca_k;     /* ca: integer k >= 0 (NULL: 1) */
} lbt_setup;

/* Build the grid, load it, choose the kernels. Undone by lbt_state_close. */
int lbt_state_open(lbt_state *st, const lbt_setup *cfg, lbt_err *e);
void lbt_state_close(lbt_state *st);
void lbt_state_view(const lbt_state *st, lbt_view *v);

/* The diffusion spectrum of a shape (seed 002 §2-3): with one alpha on every
 * link, M = I - alpha*Lap, and the Laplacian of a product of rings/paths has
 * the eigenvalues mu = sum_d mu_d(j_d), per axis of extent n:
 *   torus n >= 3: 2(1 - cos(2 pi j/n));  mesh: 2(1 - cos(pi j/n));  n = 2: {0, 2}.
 * mu_min: the smallest non-zero one, mu_max: the largest. gamma(alpha) =
 * max(|1 - alpha mu_min|, |1 - alpha mu_max|); the optimal alpha is
 * 2/(mu_min + mu_max) (both extremes decay equally fast), capped at
 * 1/max_degree so that no PE sends more than it holds (Cybenko's (b)). */
void lbt_spectrum(const lbt_shape *s, double *mu_min, double *mu_max);
int lbt_max_degree(const lbt_shape *s);
double lbt_alpha_optimal(const lbt_shape *s);
double lbt_gamma(const lbt_shape *s, double alpha);
/* Parse --alpha: a number in (0, 1/max_degree], "boillat" or "optimal". */
int lbt_alpha_parse(lbt_diffusion *p, const lbt_shape *s, const char *text, lbt_err *e);

#endif

/* method.h — the load-balancing methods a run can use, by name. A method
 * is one value (lbt_method): what it is, its parameter schema, and
 * open/step/close. It owns how one step changes the state; the run engine
 * (run.h) owns everything else. docs/engine.md: how to add one. */
#ifndef LBTORUS_METHOD_H
#define LBTORUS_METHOD_H

#include <signal.h>
#include <stdint.h>
#include <stdio.h>

#include "lbtorus/grid.h"
#include "lbtorus/kernels.h"

struct lbt_method;

#define LBT_MAX_PARAMS 8 /* parameters one method may take */

/* One parameter in a method's schema. Its names: `name` in the JSON record
 * and in a sweep spec, `--name` with '_' written '-' on the command line
 * (ca_k: --ca-k), and `short_name` (if not NULL) as a sweep's canonical key
 * (ca:k=2). A value is a number in the range, or one of `words`; a word
 * ending in ':' takes the number after it ("local:3": word "local:", num 3),
 * and a schema with such a word takes no bare number. */
typedef enum { LBT_PARAM_REAL, LBT_PARAM_INT } lbt_param_type;
typedef struct {
	const char *name, *short_name;
	lbt_param_type type;
	double lo, hi;       /* the range; hi = INFINITY: no upper bound */
	int lo_open;         /* 1: lo itself is excluded (lo < x), else lo <= x */
	const char *words;   /* other accepted values, comma-separated ("boillat,optimal"), or NULL */
	const char *def;     /* the default, as text */
	const char *help;    /* one line for --help */
} lbt_param;

/* A parameter's value: a number, or one of its words (word != NULL). A
 * method's open may resolve a word into a number ("optimal" -> 0.2071...). */
typedef struct {
	double num;
	const char *word;
	const char *text; /* as given (the schema's default if not given) */
} lbt_param_value;

/* A parameter as given, by name ("alpha", "ca_k", "ca-k" or "k"), as text. */
typedef struct {
	const char *name, *value;
} lbt_param_arg;

/* Everything a method's step may touch. */
typedef struct lbt_state {
	lbt_grid grid;                  /* the loads (and the real-valued field for a real method) */
	const struct lbt_method *method;
	const lbt_kernels *kern;        /* the dispatch table in use */
	int threads;                    /* threads a kernel may use (passed on, never set globally) */
	uint64_t seed;
	int64_t step;                   /* steps completed so far */
	lbt_kernels table;              /* storage kern points at */
	lbt_param_value param[LBT_MAX_PARAMS]; /* in the order of method->params */
	void *ws;                       /* the method's workspace, from its open */
	char speeds[128];               /* the --speeds spec of the field "speed" ("": no such field) */
	char link[64];                  /* the --link spec of net */
	lbt_net net;                    /* the network and application model (LBT_M_SPEEDS methods) */
	int app;                        /* the run reads the application's times (lbt_run sets it: app_iterations
	                                   > 0); an LBT_M_SPEEDS method forms them only then */
} lbt_state;

/* What a method is (flags). Every method conserves load exactly (integer
 * loads; real ones to rounding): the engine checks it every step. Each flag
 * is read by the engine and checked by tests/test_contract.c. */
enum {
	LBT_M_DETERMINISTIC = 1, /* the next state depends on the current loads alone (no draws, no memory, not the
	                            step): the engine's cycle detection; else some parameter setting shows otherwise */
	LBT_M_RANDOM = 4,        /* may draw from lbt_rand(seed, step, global PE, purpose); without it the seed is never
	                            read (same bits for any seed); with it some parameter setting shows the seed */
	LBT_M_SPEEDS = 8,        /* reads a per-PE speed field */
	LBT_M_CUT = 16,          /* runs on a torus cut between ranks (lbtorus/comm.h): its kernels take cut views */
	LBT_M_SCRATCH = 32,      /* its open allocates the kernels' scratch (lbt_scratch): counted in a run's memory estimate */
	LBT_M_GATHERS = 64       /* with LBT_M_CUT: on a cut torus its step also talks to ranks beyond the halo fills
	                            (gathers and exchanges between all ranks, src/comm/comm.h), which blocks made by hand
	                            in one process cannot do: checked on one slab here, on ranks by tests/mpi_identity.py */
};

typedef enum { LBT_LOAD_INT, LBT_LOAD_REAL } lbt_load_kind;

typedef struct lbt_method {
	const char *name;     /* as on the command line: "lm-c5" */
	const char *summary;  /* one line for --help */
	const char *citation; /* authors, title, year, and the equation or table */
	lbt_load_kind load;   /* LBT_LOAD_REAL: the grid's real-valued field holds the loads */
	unsigned flags;       /* LBT_M_* */
	unsigned kernels;     /* the dispatch slots its step (and steps) call: LBT_K(ID) bits (lbtorus/kernels.h) */
	int bounded;          /* integer loads never exceed max(initial max, 2): LBT_BOUNDED_* */
	int variant;          /* a family's member: the Liquid model's condition LBT_C0..LBT_C5 */
	const lbt_param *params; /* the schema, nparams entries */
	int nparams;
	/* Check parameter values against a shape, allocating nothing (a sweep
	 * plan checks every run this way). NULL: the schema's ranges suffice. */
	int (*check)(const lbt_shape *s, const lbt_param_value *pv, lbt_err *e);
	/* Check st->param against the shape, resolve words, allocate the
	 * workspace st->ws. NULL: nothing to do. */
	int (*open)(lbt_state *st, lbt_err *e);
	void (*step)(lbt_state *st, lbt_counts *c);
	void (*close)(lbt_state *st); /* free st->ws; NULL if open allocates nothing */
	/* The per-step contraction factor this set-up predicts (Cybenko's gamma),
	 * -1 if not known; NULL: the method has none (no "gamma" key). */
	double (*gamma)(const lbt_state *st);
	/* Write the method's own counters as JSON keys (",\"operations\":12"), after
	 * its parameters; NULL: none. */
	void (*record)(FILE *f, const lbt_state *st);
	/* Up to n steps (n >= 1) in one call, each step's counts in c[0..]
	 * as step gives them (c[s] set whole), the grid's largest load being
	 * max, ending early where stop says (NULL: nowhere); returns how many
	 * it did, at least 1. The run engine calls it only when nothing reads
	 * the grid between those steps (lbt_run_opts.batch). NULL: one step at
	 * a time. */
	int (*steps)(lbt_state *st, int n, int32_t max, const lbt_steps_stop *stop, lbt_counts *c);
} lbt_method;

/* How far an integer method can pile load onto one PE. Unless bounded, a run
 * is refused when its total exceeds INT32_MAX (loads are never negative and
 * the total is conserved, so no PE can then overflow). */
enum {
	LBT_UNBOUNDED = 0,     /* rounding may lift a PE above the initial max (NNA) */
	LBT_BOUNDED_TORUS = 1, /* bounded on torus axes only: LM shifts one way, so a mesh piles load at its end */
	LBT_BOUNDED = 2        /* bounded on any boundary: truncated averaging (fos-int, de-int) */
};

/* Refuse a total load that m could pile onto one PE beyond int32 on s
 * (integer methods that are not bounded there): lbt_run with the loads in
 * place, lbt_setup_check_total before anything is allocated. */
int lbt_total_check(const lbt_method *m, const lbt_shape *s, int64_t total, lbt_err *e);

const lbt_method *lbt_method_find(const char *name);
const lbt_method *const *lbt_methods(void); /* NULL-terminated, in --help order */

/* The schema entry of m named `name` (any of its names), or NULL. */
const lbt_param *lbt_param_find(const lbt_method *m, const char *name);
/* Every distinct parameter (by name) of every method into all[0..n-1]; returns how many (for option tables). */
int lbt_params_all(const lbt_param **all, int n);
/* Parse text as a value of p, by the one number grammar (lbtorus/number.h:
 * an integer parameter takes digits only). On failure fills why with what p accepts
 * ("a number with 0 < lambda <= 1") and returns LBT_EINVAL. */
int lbt_param_parse(const lbt_param *p, const char *text, lbt_param_value *v, char *why, size_t n);
/* "alpha=A (fos), lambda=L (de)": what m takes, for messages; "" if nothing. */
void lbt_params_describe(const lbt_method *m, char *buf, size_t n);
/* Write m's parameters of st as JSON keys (",\"alpha\":0.25"), then gamma if m has it. */
void lbt_params_json(FILE *f, const lbt_state *st);

/* What a run is made of, as text from a command line or a spec file. */
typedef struct {
	const char *shape;    /* NULL: taken from an init file's header */
	const char *boundary; /* NULL: torus */
	const char *method;   /* NULL: lm-c5 */
	const char *init;     /* NULL: worst:5 */
	const char *isa;      /* NULL or "auto": the best this CPU runs */
	uint64_t seed;
	int threads;          /* <= 0: all cores */
	lbt_param_arg params[LBT_MAX_PARAMS]; /* the method's parameters; name NULL ends the list.
	                                         One the method does not take is an error. */
	const char *speeds;   /* NULL: no field "speed", or const:1 for a method that reads one (speeds.h) */
	const char *link;     /* NULL: lan (speeds.h, lbt_link_parse) */
	int cut;              /* k >= 1: cut the torus between all ranks (lbtorus/comm.h; on one rank:
	                         one slab, the distributed code paths), with a halo for k steps
	                         between exchanges (at most LBT_CUT_MAX_STEPS; a slab only, else 1) */
	const char *ranks;    /* NULL, or the grid of ranks of a cut torus, "4x2x1": one count per
	                         axis, their product the rank count (NULL: the grid with the least
	                         halo, lbtorus/comm.h) */
	const char *as_command; /* a command's (lbt_config.as_command): messages name ranks as its
	                           option --ranks; NULL: as the field ranks */
	int slabs;            /* without ranks: slabs of the first axis with links when it has a layer
	                         for every rank (a search tree numbers its nodes across slabs only) */
	const volatile sig_atomic_t *interrupt; /* non-NULL: lbt_state_open stops within a second once
	                                           *interrupt is non-zero (LBT_EINTR, nothing kept) */
	int grid_copies;      /* copies of the grid's loads the caller will hold beside the run (bench's
	                         start), counted in the memory estimate */
	int row_sums;         /* the run's workload keeps real-valued sums per row (Cybenko's on real
	                         loads), counted in the memory estimate */
} lbt_setup;

/* Check everything lbt_state_open would, without allocating the grid: the
 * method and its parameters, shape, boundary, initial load (an init file's
 * header, size, dtype and shape included), threads and the ISA. */
int lbt_setup_check(const lbt_setup *cfg, lbt_err *e);
/* lbt_setup_check, and lbt_run's check that the total load cannot pile onto
 * one PE beyond int32 (lbt_total_check) wherever the initial load's total is
 * known without a grid (not a file's): a command that will run the setup
 * refuses it before allocating (a library user may open and step a state
 * with a larger total, as the kernel tests do). Both are collective on a
 * cut setup with a file: init (rank 0 reads the file's header for all). */
int lbt_setup_check_total(const lbt_setup *cfg, lbt_err *e);
/* Build the grid, load it, choose the kernels, open the method. Undone by
 * lbt_state_close. On a torus cut between ranks (cfg->cut) collective:
 * every rank returns the same status, with the lowest failing rank's
 * message (a file: init is read block by block, lbt_init_apply). */
int lbt_state_open(lbt_state *st, const lbt_setup *cfg, lbt_err *e);
void lbt_state_close(lbt_state *st);
/* The kernel's view of the whole grid: origin 0, the state's step and seed. */
void lbt_state_view(const lbt_state *st, lbt_view *v);
/* Open st->method on st (already holding grid, threads and params): used by
 * lbt_state_open and by the engine for --verify's reference copy. */
int lbt_method_open(lbt_state *st, lbt_err *e);
void lbt_method_close(lbt_state *st);

/* The diffusion spectrum of a shape (Cybenko 1989, §2-3): with one alpha on every
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
/* The sum of f(mu) over the Laplacian's eigenvalues mu of every mode but
 * the mean's (P - 1 terms, in a fixed order): e.g. Cybenko's Theorem 2
 * steady state sigma^2 sum 1/(1 - (1 - alpha mu)^2). */
double lbt_spectrum_sum(const lbt_shape *s, double (*f)(double mu, void *ctx), void *ctx);
double lbt_gamma(const lbt_shape *s, double alpha);
/* Parse --alpha: a number in (0, 1/max_degree], "boillat" or "optimal". */
int lbt_alpha_parse(lbt_diffusion *p, const lbt_shape *s, const char *text, lbt_err *e);

/* Relative-speed diffusion (Jeannot and Vernier, A Practical Approach of
 * Diffusion Load Balancing Algorithms, 2006, §3.2). With Cr_ij = C_j/(C_i + C_j)
 * for a link (i, j), delta_i = 1/(sum_{j in N(i)} Cr_ij [+ 1/2 with the self
 * term Cr_ii = C_i/(2 C_i)]): Mr_ij = Cr_ij min(delta_i, delta_j) for a link,
 * Mr_ii = 1 - sum_j Mr_ij, 0 elsewhere. Rows sum to 1, entries are >= 0 and
 * C_i Mr_ij = C_j Mr_ji, so w = M^T w holds for w proportional to C.
 * lbt_mr_matrix fills the dense P x P matrix M[i*P + j] of a shape with the
 * speeds C (row-major PEs, links as the kernels see them). */
int lbt_mr_matrix(const lbt_shape *s, const double *C, int self, double *M, lbt_err *e);

/* One application iteration on st's loads (Jeannot and Vernier 2006, §4):
 * PE i takes w_i unit_s / Cn_i (Cn: speeds over their mean; all 1 without a
 * field "speed") plus, if it holds load, Lat + app_bytes/Bw per neighbour
 * that holds load, plus lb[i] (its balancing time; lb NULL: none). Returns
 * the slowest PE's time; per_pe (if not NULL) receives every PE's. lb and
 * per_pe are dense row-major; on a torus cut between ranks (collective)
 * over the rank's block widened by LBT_HALO layers a side on its cut axes
 * (kernels/ref/links.h's layout), the time the slowest of all ranks'. */
double lbt_app_iteration(const lbt_state *st, const double *lb, double *per_pe);
/* Relative loads r_i = w_i / Cn_i: their extremes, and the bound D / min Cn
 * under which their spread counts as balanced (D = active dimensions: for
 * equal speeds the Definition 2 of Henrich 1996 that --until balanced uses;
 * one load unit moves a PE's relative load by 1/Cn_i). LBT_ENOMEM or LBT_OK. */
int lbt_rel_load_stats(const lbt_state *st, double *max, double *min, double *bound);
/* The same from the loads' extremes a speed method's kernel measured after its step (k->has_stats; the grid
 * unchanged since), where they are the same numbers (every normalised speed 1, no cut); returns 0, setting
 * nothing, where they are not known so. */
int lbt_rel_load_known(const lbt_state *st, const lbt_counts *k, double *max, double *min, double *bound);
/* One PE doing all the work: N iterations of W unit_s / max_i Cn_i (the fastest PE). */
double lbt_app_sequential(const lbt_state *st, int64_t iterations);
/* What a run with speeds allocates beside its grid's fields, for `pes` PEs
 * of `dims` axes (a rank's block and its halo on a cut torus, `cut`): a speed method's
 * workspace (st's method and parameters) and its kernel's arrays of a step,
 * any other method's dense copies for the relative loads (a memory estimate,
 * allocating nothing). */
double lbt_speeds_bytes(const lbt_state *st, int dims, int cut, int64_t pes);

/* The convergence detection of Jeannot and Vernier (2006, §3.3), emulated
 * round by round on a spanning tree (src/method/detect.c). */
typedef struct {
	int64_t root;         /* the PE that decides */
	int64_t up_rounds;    /* rounds until the root has heard every sub-tree */
	int64_t down_rounds;  /* rounds of the broadcast of its decision */
	int64_t rounds;       /* up + down */
	int64_t messages;     /* over both stages */
	int contention;       /* the last two nodes sent to each other (smaller index is root) */
} lbt_detect;
/* The comb spanning tree of a shape: P-1 edges (pairs of row-major PE
 * indices) into edges[2*(P-1)]; returns how many. */
int64_t lbt_detect_shape_tree(const lbt_shape *s, int64_t *edges);
/* The protocol's rounds on that tree (lbt_detect_run's rounds) from its
 * diameter, allocating nothing: 2 ceil(d/2). */
int64_t lbt_detect_shape_rounds(const lbt_shape *s);
/* Run the protocol on a tree of P nodes given as P-1 edges: parent[i] (-1 for
 * the root), reached[i] the round at which the decision reached i. An error
 * if the edges are not a spanning tree. */
int lbt_detect_run(int64_t P, const int64_t *edges, lbt_detect *r, int64_t *parent, int64_t *reached, lbt_err *e);

/* Lüling and Monien 1993, the one-processor-generator model on n PEs: Lemma
 * 1's operator G(k) = (k f + delta)(n - 1) / (delta k f + delta (n - 2) + n - 1)
 * (with f -> 1/f: the operator C of §3), G^t(1), and Lemma 2's fixed point
 * FIX(n, delta, f) = sqrt((n - 1)/f + A^2) - A, A = (f - f n + delta (n - 2)
 * + n - 1)/(2 delta f); Theorem 2: FIX -> delta/(delta + 1 - f) as n grows. */
double lbt_luling_G(int64_t n, int delta, double f, double k);
double lbt_luling_Gt(int64_t n, int delta, double f, int64_t t);
double lbt_luling_fix(int64_t n, int delta, double f);

#endif

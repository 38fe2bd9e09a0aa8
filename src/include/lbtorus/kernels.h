/* kernels.h — the kernel layer: one substep or step of one method on plain
 * pointers, extents and strides. Kernels know nothing of files, options or
 * printing; they return counters. A table of function pointers per ISA. */
#ifndef LBTORUS_KERNELS_H
#define LBTORUS_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#include "lbtorus/status.h"

#define LBT_HALO 2      /* halo width per side on every axis with links (stencils reach i-2..i+1) */
#define LBT_ALIGN 64    /* bytes: one cache line, one AVX-512 vector; every row of a field starts on one */

/* Scratch memory a kernel may use, allocated once per run (a method's open)
 * so that no kernel allocates per step or has to fail: per axis one array
 * of `cells` 8-byte cells laid out as the grid (PE 0 at cell `origin`, the
 * halo addressable, 64-byte aligned), two doubles per fiber of the last axis,
 * and per thread a buffer of `row_cells` 8-byte cells (four rows with room
 * around them). A kernel uses at
 * most `threads` threads with it (results do not depend on the count). */
typedef struct {
	void *link[8];
	int64_t origin, cells;
	double *rowsum;
	char *rows;
	int64_t row_cells;
	int threads;
} lbt_scratch;

struct lbt_view;

/* A block of a torus cut between ranks (lbtorus/comm.h): a Cartesian grid
 * of nr[0] x ... x nr[D-1] ranks; along every axis d with on[d] (its
 * "cut axes") the torus of extent gext[d] is split into consecutive
 * layers, and this block holds the global coordinates lo[d] .. lo[d] +
 * ext[d] - 1 (= origin[d] of its views). Its halo cells on a cut axis hold
 * the neighbouring blocks' PEs once `fill` has run for that axis
 * (lbt_halo_fill calls it: a collective call, made by every rank in the
 * same order; a layer of axis d spans the halo of the cut axes before d,
 * so after fills in axis order the edge and corner cells are the
 * neighbours'). A slab (`slab`: one cut axis, `axis`, the first with links)
 * is the one-axis case. The halo of every cut axis is `depth` layers
 * deep on each side: LBT_HALO for one step between exchanges; 2k for k
 * (a Liquid-model step reads old layers i-2..i+1 along each axis, so a
 * rank that steps its block and a halo shrinking by 2 below and 1 above on
 * every cut axis, k times, needs 2k layers below and k above), where the
 * first axis with links is cut and the last is not only (lbt_cut_open; on
 * any other cut every halo is LBT_HALO deep and the kernels take one step
 * an exchange). `fill` fills `layers` <= depth of them on each side, a
 * layer spanning as many layers of the halo of the cut axes before. A kernel working on a cut view reads its
 * neighbours there, decides every boundary by global coordinates, counts
 * only the links whose lower PE it holds, and hands over what a single
 * process would reduce in a fixed order:
 *   - real-valued sums, as the parts it would have added one by one, in
 *     `parts` (it appends; counts.nparts says how many): the same number of
 *     segments on every rank; a segment holds, per row of the block in
 *     row-major order, the row's sum, or, if the last axis is cut (by_pe: a
 *     row is shared by several ranks), its terms PE by PE (counts.terms
 *     terms a PE, 0 or 1: one; several: term t of every PE of the piece,
 *     then term t + 1). The reducer adds segment by segment, rows in global
 *     order, a row's terms from 0 in the order one process adds them
 *     (term by term, piece by piece along the last axis, PE by PE), then
 *     that row's sum, as one process adds its row's sum;
 *   - per-direction maxima of the amount on one link, in counts.slot[]
 *     (pairs: rightward then leftward), summed pair by pair by the reducer. */
#define LBT_CUT_MAXD 8
typedef struct lbt_cut {
	int dims;
	unsigned char on[LBT_CUT_MAXD];   /* 1: axis d is cut (halo from fill; global coordinates) */
	int nr[LBT_CUT_MAXD];             /* ranks along axis d */
	int coord[LBT_CUT_MAXD];          /* this rank's place in the grid of ranks */
	int64_t gext[LBT_CUT_MAXD];       /* the torus's extents */
	int64_t lo[LBT_CUT_MAXD];         /* the first global layer this rank holds (0 on an axis not cut) */
	int64_t len[LBT_CUT_MAXD];        /* and how many (gext[d] on an axis not cut) */
	unsigned char torus[LBT_CUT_MAXD]; /* axis d wraps */
	int axis;              /* the first cut axis */
	int slab;              /* 1: the only cut axis is the first with links (a slab of one axis) */
	int rank, ranks;
	int depth;             /* halo layers on each side of every cut axis (>= LBT_HALO, even) */
	void (*fill)(const struct lbt_view *v, const struct lbt_cut *cut, int axis, int layers);
	/* `fill` in two halves, so that a kernel steps what reads no halo
	   while the messages travel: start (the layers sent taken from the
	   block, the messages on their way) and finish (received, into the
	   halo; `stepped`: the PEs the caller stepped in between, for the
	   tally). Between them the caller may change its block's PEs but not
	   the halo. NULL: none (then `fill`). */
	void (*start)(const struct lbt_view *v, const struct lbt_cut *cut, int axis, int layers);
	void (*finish)(const struct lbt_view *v, const struct lbt_cut *cut, int axis, int layers, int64_t stepped);
	double *parts;         /* room for LBT_CUT_SEGMENTS x `rows` parts */
	int64_t rows;          /* parts per segment and term: rows of the last axis in this block, or,
	                          if the last axis is cut (by_pe), its PEs (segments x terms <= LBT_CUT_SEGMENTS) */
	int by_pe;
	char *halo;            /* the fill's buffers: 4 depth layers of load cells (and real cells if real-valued) */
	void *comm;            /* the MPI layer's Cartesian communicator and its exchanges (NULL: none) */
} lbt_cut;
/* The fill's buffers hold 2 depth halo layers received and 2 depth sent:
 * others need only a block's depth first and depth last layers. */
#define LBT_CUT_MAX_STEPS 16 /* steps between exchanges (depth 2k) at most */
#define LBT_CUT_SEGMENTS 24 /* 3 colours x 8 axes: dimension exchange's substeps */
#define LBT_CUT_SLOTS 48    /* per substep and direction */

/* What a kernel sees of a grid: the PE at the origin, extents and strides
 * (in int32 cells), which axes wrap, and how many threads it may use. Halo
 * cells at coordinates -2, -1, n, n+1 of every axis are addressable. A call
 * also carries what a random or distributed kernel needs to draw the same
 * numbers on any thread, ISA or rank: the step, the seed, and the global
 * coordinates of the block's first PE (so a draw for PE i is
 * lbt_rand(seed, step, global index, purpose)). */
typedef struct lbt_view {
	int32_t *load;
	int dims;
	int64_t ext[8];
	int64_t stride[8];
	unsigned char torus[8]; /* 1: wrap-around, 0: open mesh boundary */
	int threads;            /* OpenMP threads the kernel may use (>= 1) */
	double *real;           /* real-valued loads, same offsets as load (NULL: none) */
	int64_t step;           /* steps completed before this call */
	uint64_t seed;
	int64_t origin[8];      /* global coordinates of the block's PE (0, ..., 0) */
	lbt_scratch *scratch;   /* NULL: none (kernels that need one then use the reference path) */
	const lbt_cut *cut;     /* NULL: the whole torus is here; else this block's place in it (above) */
} lbt_view;

/* Allocate s for kernels on v's grid (cells per field, PE 0 at cell origin);
 * LBT_OK or LBT_ENOMEM (nothing allocated). */
int lbt_scratch_open(lbt_scratch *s, const lbt_view *v, int64_t cells, int64_t origin);
/* The bytes lbt_scratch_open allocates for a grid of extents ext[0..dims-1]
 * and `cells` cells per field, with `threads` threads (allocating nothing:
 * a run's memory estimate). */
double lbt_scratch_bytes(int dims, const int64_t *ext, int64_t cells, int threads);
void lbt_scratch_close(lbt_scratch *s);
/* Thread t's row buffer (t < s->threads). */
static inline void *lbt_scratch_row(const lbt_scratch *s, int t) { return s->rows + (size_t)t * (size_t)s->row_cells * 8; }

/* Counters a kernel returns, for the step or substep it ran. */
typedef struct {
	int64_t moved;     /* load elements that crossed a link */
	int64_t shifts;    /* time in the paper's unit: transfer slots used */
	int has_stats;     /* 1 if the kernel also measured the state it left: */
	int32_t max, min;  /*   extremes over the PEs */
	int64_t total;     /*   sum over the PEs */
	double real_max, real_min, real_total; /* real-valued methods' has_stats: the same, as lbt_field_stats
	                                          forms them (the total: each row left to right, rows in order) */
	double real_moved;  /* real-valued methods: the amount that crossed links */
	double real_shifts; /*   and the time: per direction the largest amount on one link, summed */
	double link_max;    /* the largest amount that crossed any single link (Dickens's communication time) */
	int nomem;          /* the kernel could not get its memory: the step is incomplete (the engine stops with an error) */
	/* Methods that model their network and application (LBT_M_SPEEDS, Jeannot and Vernier 2006): */
	double app_time;    /*   seconds of this application iteration: max over PEs of compute + communication + balancing */
	double lb_time;     /*   seconds of balancing in it: max over PEs of the PE's exchange costs */
	int64_t links_exchanged; /* links on which load crossed (0: the step was quiet) */
	int64_t shaken;     /*   links on which the annealing shake made the exchange */
	int detected;       /*   the convergence detection decided that balancing is over (the engine stops) */
	/* on a cut view only (lbt_cut): */
	int nslots;         /*   per-direction maxima in slot[] (pairs: rightward, leftward) */
	double slot[LBT_CUT_SLOTS];
	int64_t nparts;     /*   real-valued parts appended to cut->parts */
	int terms;          /*   terms per PE of a shared row in them (0: one) */
} lbt_counts;

/* The Liquid model's shift conditions C0..C5 (seed 000, Table 1). */
enum { LBT_C0, LBT_C1, LBT_C2, LBT_C3, LBT_C4, LBT_C5, LBT_NCOND };

/* One LM step: the D substeps of Definition 1, axis 0 first. Counts shifts
 * as 1 per substep of an axis with extent >= 2. Fills halos as it needs. */
typedef void (*lbt_lm_step_fn)(const lbt_view *v, int cond, lbt_counts *c);
/* Up to n LM steps (n >= 1) on a grid whose largest load is max (from the
 * last step's statistics): c[s] gets step s's counts as lm_step would give
 * them into a zeroed struct (c need not be zeroed: c[s] is set whole);
 * returns how many steps it did, at least 1. A kernel may do more than one
 * only where it can keep the loads narrower between steps (AVX-512: a 2-D
 * grid most of whose rows fit bytes; AVX2: a ring whose loads fit int16);
 * the others do one. cache: what it
 * keeps from call to call (its byte copy of the grid, and when to look
 * for one again; zeroed before the first call, mem freed with free() after
 * the last); without it (or memory) it does one step. */
typedef struct {
	void *mem;
	size_t size;
	int wait, backoff; /* calls to do one step in before trying again, and the next such wait */
	int rows_wait, rows_backoff; /* the same for AVX2's byte rows beside int32 rows (lm_avx2_rows8.h) */
} lbt_lm_cache;
/* Where a call of several steps must end early, so that the caller finds
 * the grid at a step it has to look at: after a step whose extremes have
 * max - min <= ldiff (ldiff < 0: never), or min > 0 (shared), or are
 * exactly max and min (max < min: never). NULL: none. */
typedef struct {
	int64_t ldiff;
	int shared;
	int32_t max, min;
} lbt_steps_stop;
typedef int (*lbt_lm_steps_fn)(const lbt_view *v, int cond, int n, int32_t max, const lbt_steps_stop *stop,
                               lbt_lm_cache *cache, lbt_counts *c);

/* Nearest-neighbour averaging (seed 000, §2.3 eq. (3)/(5), §5's rounding):
 * one synchronous step on all links of all axes. See kernels/ref/nna.c. */
typedef void (*lbt_nna_step_fn)(const lbt_view *v, lbt_counts *c);

/* Diffusion weights of a link (i, j) (seed 002 eq. (1)): alpha_ij = alpha for
 * every link, or, if by_degree, 1 / (max(deg_i, deg_j) + k) (Boillat for k = 1,
 * Dickens's proportion for any k >= 0). */
typedef struct {
	double alpha;
	int by_degree;
	int k;
} lbt_diffusion;
/* One step of the first-order scheme, seed 002 eq. (2), on v->real (fos_step)
 * or, with integer flows, on v->load (fos_int_step). See kernels/ref/diffusion.c. */
typedef void (*lbt_fos_step_fn)(const lbt_view *v, const lbt_diffusion *p, lbt_counts *c);
/* Up to n steps (n >= 1) of the real-valued scheme (fos, ca), each step's
 * counts in c[s] as fos_step gives them (c[s] set whole, statistics
 * included), ending after the first step that meets stop (as lbt_de_steps_fn
 * for real loads) or earlier; returns how many it did, at least 1. A kernel
 * may do more than one where it keeps the grid in its own layout between
 * steps (AVX2: a 2-D torus on one thread). */
typedef int (*lbt_fos_steps_fn)(const lbt_view *v, const lbt_diffusion *p, int n, const lbt_steps_stop *stop,
                                lbt_counts *c);
/* One sweep of dimension exchange (seed 002 §4) with exchange parameter lambda,
 * on v->real (de_step) or v->load (de_int_step). See kernels/ref/de.c. */
typedef void (*lbt_de_step_fn)(const lbt_view *v, double lambda, lbt_counts *c);
/* Dimension exchange over one axis only (Cybenko eq. (17): one dimension per
 * step), on v->real. */
typedef void (*lbt_de_axis_fn)(const lbt_view *v, double lambda, int axis, lbt_counts *c);
/* Up to n steps (n >= 1) of de (LBT_DE_REAL), de-int (LBT_DE_INT) or
 * de-axis (LBT_DE_AXIS: step s of the call on the axis (v->step + s) mod D'
 * of the D' axes of global extent >= 2), each step's counts in c[s] as the
 * step kernel gives them (c[s] set whole, statistics included), ending after
 * the first step that meets stop (lbt_steps_stop; real loads: max - min <=
 * ldiff, min > 0, or both extremes truncated equal to max and min) or
 * earlier; returns how many it did, at least 1. A kernel may do more than one
 * where it keeps the grid in its own layout between steps (AVX2). */
enum { LBT_DE_REAL, LBT_DE_INT, LBT_DE_AXIS };
typedef int (*lbt_de_steps_fn)(const lbt_view *v, double lambda, int kind, int n, const lbt_steps_stop *stop,
                               lbt_counts *c);

/* Cybenko's eq. (12) on rows of integer loads (the workload phase of
 * cybenko:poisson:MU:C): `rows` rows of n PEs, row r at x + r pitch; PE j
 * of row r (global row-major index i0 + r n + j: the rows follow each other
 * in the global order, one run of them of one plane) receives
 * eta = lbt_poisson32(lbt_rand32(key, i0 + j), mu) tasks (key =
 * lbt_rand_key(seed, step, purpose), lbtorus/rng.h), then completes min(C,
 * what it holds); the rest of C is idle capacity. The table holds the
 * inversion's thresholds as integers, so that a vector kernel needs no
 * floating point: for a 32-bit draw r, u = r 2^-32 >= F_k iff r >= T_k =
 * ceil(F_k 2^32), and eta = #{k < K : r >= T_k} (F is nondecreasing; K: the
 * first k with p_k = 0 or T_k >= 2^32, where no draw reaches). Every T_k
 * with k < K is below 2^32. lbt_poisson_init (kernels/ref/workload.c) fills
 * it, summing the F_k as lbt_poisson32. */
#define LBT_POISSON_MAX 512
typedef struct {
	double mu;
	int K;
	uint32_t T[LBT_POISSON_MAX];
} lbt_poisson;
int lbt_poisson_init(lbt_poisson *p, double mu); /* 0 < mu <= 100: LBT_OK, else LBT_EINVAL */
typedef struct {
	int64_t generated, completed, idle;
	int overflow;     /* a PE would have held more than INT32_MAX */
	uint64_t sq_hi, sq_lo; /* the sum of the new loads' squares x^2 = hi 2^32 + lo: */
} lbt_wl_counts;        /*   the sums of the hi and of the lo parts (< 2^32 each), exact */
/* m, eta: scratch of n uint32_t each (vector kernels use them). */
typedef void (*lbt_wl_poisson_fn)(int32_t *x, int64_t n, int64_t rows, int64_t pitch, int64_t i0, uint64_t key,
                                  const lbt_poisson *p, int32_t C, uint32_t *m, uint32_t *eta, lbt_wl_counts *c);
/* The same for cybenko:uniform:LO:HI and cybenko:bernoulli:P: eta =
 * lbt_range32(r, lo, lo + span - 1) (span >= 1), or, with span = 0,
 * eta = lbt_unit32(r) < p, which is r < below = ceil(p 2^32) (r 2^-32 < p
 * iff r < p 2^32, exact: a power-of-two scaling). */
typedef struct {
	int64_t lo;
	uint64_t span, below;
	double p;
} lbt_wl_draw;
void lbt_wl_draw_init(lbt_wl_draw *d, int64_t lo, int64_t hi);   /* uniform on lo..hi (hi - lo < 2^32) */
void lbt_wl_bernoulli_init(lbt_wl_draw *d, double p);            /* 0 <= p <= 1 */
typedef void (*lbt_wl_draw_fn)(int32_t *x, int64_t n, int64_t i0, uint64_t key, const lbt_wl_draw *d, int32_t C,
                               lbt_wl_counts *c);
/* Lüling and Monien's phases (phases:GL:GH:CL:CH:LENL:LENH) on a row of
 * integer loads, 12 bytes of state a PE: when its phase ends (left[j] = 0,
 * the steps it has left after this one) PE j (global index i0 + j) draws
 * g = GL + (GH - GL) u, c = CL + (CH - CL) u' and the phase's length
 * L = lbt_range32(r'', LENL, LENH), keeping g and c as the thresholds
 * ceil(g 2^32), ceil(c 2^32) in [0, 2^32] (u < g iff r < ceil(g 2^32), as for
 * Bernoulli), each mod 2^32 in tg[j], tc[j], and left[j] = L - 1; otherwise
 * left[j] goes down by one. A kept 0 stands for 2^32 where the low bound
 * (GL, CL) is above 0 and for 0 where it is 0: with 0 <= GL <= GH <= 1 a
 * threshold is 0 only if GL = 0 (g >= GL in floating point) and 2^32 only if
 * GL > 0 (GL = 0: g = GH u <= u <= 1 - 2^-32). Then every step it generates
 * a task if its draw for `gen` is below its g threshold and consumes one, if
 * it has one, if its draw for `con` is below its c threshold (a consumption
 * that finds no task is idle capacity). Every draw is lbt_rand32(key[k],
 * i0 + j) with key[k] = lbt_rand_key(seed, step, purpose) of the draws for g,
 * c, the length, gen, con. arg: GL, GH, CL, CH, LENL, LENH, with 0 <= GL <=
 * GH <= 1, 0 <= CL <= CH <= 1, 1 <= LENL <= LENH <= 2^32 (L - 1 fits 32 bits).
 * The state starts at 0 (every phase ends at the first step). A PE that would
 * hold more than INT32_MAX is flagged and left at -1. */
typedef struct {
	double arg[6];
	uint64_t key[5];
} lbt_wl_phases;
typedef void (*lbt_wl_phases_fn)(int32_t *x, int64_t n, int64_t i0, const lbt_wl_phases *p, uint32_t *tg,
                                 uint32_t *tc, uint32_t *left, lbt_wl_counts *c);

/* Cybenko's eq. (12) on a row of real-valued loads, as it stands (loads may
 * go negative: his interpretation (b)): PE j (global index i0 + j) gets
 * x += eta - C with eta drawn from r = lbt_rand32(key, i0 + j) by `dist`
 * (Cybenko's arrival distributions, LBT_DIST_*: poisson, uniform and
 * bernoulli as on integer loads, exp: eta = -mu lbt_log_unit(1 - u), normal:
 * Box-Muller on u and u' = lbt_unit32(lbt_rand32(key2, i0 + j)), eta = mu +
 * sigma sqrt(-2 lbt_log_unit(1 - u)) cos(2 pi u')), and, with the new
 * loads, three sums in the fixed order of LBT_WL_LANES lanes: PE j adds to
 * lane (lane0 + j) mod LBT_WL_LANES of gen (eta), dev (x - shift) and sq
 * ((x - shift)^2), each lane in order of j; the caller folds the lanes
 * (lbt_wl_fold). So a vector kernel adds exactly what the reference adds,
 * and sqdev = sq - dev^2 / P needs no pass of its own (shift: the mean
 * before the phase, near the new one, so the difference loses nothing). */
enum { LBT_DIST_POISSON, LBT_DIST_UNIFORM, LBT_DIST_BERNOULLI, LBT_DIST_EXP, LBT_DIST_NORMAL };
enum { LBT_WL_LANES = 8 };
typedef struct {
	int dist;          /* LBT_DIST_* */
	double mu, sigma;  /* exp: mu; normal: mu, sigma */
	double C;          /* completed per PE and step */
	lbt_wl_draw draw;  /* uniform, bernoulli */
	lbt_poisson pt;    /* poisson */
} lbt_wl_real;
typedef struct {
	double gen[LBT_WL_LANES], dev[LBT_WL_LANES], sq[LBT_WL_LANES];
} lbt_wl_rsums;
typedef void (*lbt_wl_real_fn)(double *x, int64_t n, int64_t i0, int lane0, uint64_t key, uint64_t key2,
                               const lbt_wl_real *d, double shift, lbt_wl_rsums *s);
/* The lanes' sum in a fixed order: ((l0 + l1) + (l2 + l3)) + ((l4 + l5) + (l6 + l7)). */
static inline double lbt_wl_fold(const double *l)
{
	return ((l[0] + l[1]) + (l[2] + l[3])) + ((l[4] + l[5]) + (l[6] + l[7]));
}
/* log(v) for 0 < v <= 1 (normal), in basic IEEE operations only (fdlibm's
 * e_log.c polynomial, under 1 ulp), so that every ISA computes the same
 * bits lane by lane: the real-valued arrivals' logarithm. */
static inline double lbt_log_unit(double v)
{
	union { double d; uint64_t u; } b = {.d = v};
	uint32_t hx = (uint32_t)(b.u >> 32) + (0x3ff00000u - 0x3fe6a09eu); /* the mantissa into [sqrt(2)/2, sqrt(2)) */
	const int k = (int)(hx >> 20) - 0x3ff;
	hx = (hx & 0x000fffffu) + 0x3fe6a09eu;
	b.u = (uint64_t)hx << 32 | (b.u & 0xffffffffu);
	const double f = b.d - 1.0, hfsq = 0.5 * f * f, s = f / (2.0 + f), z = s * s, w = z * z;
	const double t1 = w * (3.999999999940941908e-01 + w * (2.222219843214978396e-01 + w * 1.531383769920937332e-01));
	const double t2 = z * (6.666666666666735130e-01 + w * (2.857142874366239149e-01 +
	                  w * (1.818357216161805012e-01 + w * 1.479819860511658591e-01)));
	const double R = t2 + t1, dk = (double)k;
	return s * (hfsq + R) + dk * 1.90821492927058770002e-10 - hfsq + f + dk * 6.93147180369123816490e-01;
}

/* The network and application time model of Jeannot and Vernier (2006), §3.1
 * and §4: every link has latency `lat` and bandwidth `bw`; a load unit is
 * `unit_bytes` bytes on the wire and costs `unit_s` seconds of computation on
 * a PE of relative speed 1 (speeds normalised to mean 1). An exchange of |L|
 * units on a link costs PreExc + Lat + |L|*unit_bytes/Bw + PostExc, with
 * PreExc + PostExc = |L|*pack_s. A balancing iteration also sends every
 * neighbour an `info_bytes` message (the loads Mr needs); an application
 * iteration sends every loaded neighbour of a loaded PE `app_bytes` (its data
 * dependency). docs/methods.md gives the calibration. */
typedef struct {
	double lat;        /* seconds */
	double bw;         /* bytes per second */
	double unit_bytes, unit_s, pack_s, info_bytes, app_bytes;
} lbt_net;

/* One step of relative-speed diffusion (Jeannot and Vernier 2006, §3.1-3.3)
 * on v->real (real) or v->load: per link (i, i+1_d), with the weights of Mr
 * fixed at open, the predicted flow L = Mr_ij w_i - Mr_ji w_j, kept only if
 * Cost(L) < k Benefit(L) (f_ij), and otherwise, if the pair is unbalanced,
 * made anyway with the annealing shake's probability. Dense row-major arrays
 * of P PEs (D*P for links, index d*P + i for the link i -> i+1_d). */
typedef struct {
	int real;             /* 1: v->real, else integer flows truncated towards zero */
	const double *cn;     /* [P] speeds normalised to mean 1 */
	const double *mr_fwd; /* [D*P] Mr_{i, i+1_d} (0 where there is no link) */
	const double *mr_bwd; /* [D*P] Mr_{i+1_d, i} */
	double mr;            /* mr_fwd = mr_bwd = NULL: Mr_ij of every link (equal speeds on a torus) */
	int cb;               /* 0: f_ij = 1 always; 1: cost/benefit with k of the sender */
	const double *k;      /* [P] each PE's k (cb = 1) */
	double shake_p, shake_tau; /* shake_p > 0: exchange with probability p^(U/tau) when blocked */
	int32_t *U;           /* [D*P] successive blocked iterations per link (updated); NULL without the shake
	                         (shake_p = 0), whose draws alone read them: not kept */
	lbt_net net;
	double *lb;           /* [P] out: each PE's balancing time in this step (seconds); NULL: not wanted (only
	                         without the shake: the vector kernel keeps the shake's budgets there first) */
} lbt_speed_args;
typedef void (*lbt_speed_step_fn)(const lbt_view *v, const lbt_speed_args *a, lbt_counts *c);

/* One step of Lüling and Monien's randomized balancing (SPAA 1993) on the
 * loads of the whole torus, laid out as its state w says (kernels/ref/
 * luling.h): adds the step's packets and packet-hops to *packets, *hops. */
struct lbt_luling_s;
typedef void (*lbt_luling_step_fn)(struct lbt_luling_s *w, int32_t *load, uint64_t seed, int64_t step, int64_t *packets,
                                   int64_t *hops);

/* The dispatch table. It starts as the scalar references (kernels/dispatch.c);
 * each ISA target overwrites what it optimizes, and a slot a target leaves
 * NULL falls back to its reference, so every slot with a reference is valid.
 * A method names the slots its step calls (lbt_method.kernels: LBT_K(ID)
 * bits); opening a method whose declared slot has no function is an error. */
typedef struct {
	const char *isa;        /* "scalar", "sse41", "avx2", "avx512" */
	lbt_lm_step_fn lm_step;
	lbt_lm_steps_fn lm_steps;
	lbt_nna_step_fn nna_step;
	lbt_nna_step_fn nna_def_step;
	lbt_fos_step_fn fos_step, fos_int_step;
	lbt_fos_steps_fn fos_steps;
	lbt_de_step_fn de_step, de_int_step;
	lbt_de_axis_fn de_axis_step;
	lbt_de_steps_fn de_steps;
	lbt_wl_poisson_fn wl_poisson_row;
	lbt_wl_draw_fn wl_draw_row;
	lbt_wl_phases_fn wl_phases_row;
	lbt_wl_real_fn wl_real_row;
	lbt_speed_step_fn speed_step;
	lbt_luling_step_fn luling_step;
} lbt_kernels;

/* Every slot of lbt_kernels after isa, in order: X(ID, field). A slot added
 * to the struct but not here fails to compile (kernels/dispatch.c). */
#define LBT_KERNEL_SLOTS(X) \
	X(LM_STEP, lm_step) X(LM_STEPS, lm_steps) X(NNA_STEP, nna_step) X(NNA_DEF_STEP, nna_def_step) \
	X(FOS_STEP, fos_step) X(FOS_INT_STEP, fos_int_step) \
	X(FOS_STEPS, fos_steps) \
	X(DE_STEP, de_step) X(DE_INT_STEP, de_int_step) \
	X(DE_AXIS_STEP, de_axis_step) X(DE_STEPS, de_steps) X(WL_POISSON_ROW, wl_poisson_row) X(WL_DRAW_ROW, wl_draw_row) \
	X(WL_PHASES_ROW, wl_phases_row) X(WL_REAL_ROW, wl_real_row) X(SPEED_STEP, speed_step) X(LULING_STEP, luling_step)
enum {
#define LBT_SLOT_ENUM(id, field) LBT_KS_##id,
	LBT_KERNEL_SLOTS(LBT_SLOT_ENUM)
#undef LBT_SLOT_ENUM
	LBT_NSLOTS
};
#define LBT_K(id) (1u << LBT_KS_##id) /* a slot as a bit of lbt_method.kernels */

/* The name of slot i ("nna_step"), NULL past the last. */
const char *lbt_kernel_slot_name(int i);
/* The first slot of the mask `slots` (LBT_K bits) that k leaves NULL, or -1. */
int lbt_kernels_missing(const lbt_kernels *k, unsigned slots);

/* The ISA targets compiled in, best last; NULL-terminated. */
const char *const *lbt_isa_compiled(void);
int lbt_isa_supported(const char *isa);  /* 1 if this CPU can run it */
int lbt_isa_emulated(const char *isa);   /* 1 for a target that emulates another (avx512emu): auto never picks it */
/* Fill k for the named ISA ("auto" or NULL: LBTORUS_ISA if set, else the best
 * the CPU supports). Unknown or unsupported names are an error. */
int lbt_kernels_select(lbt_kernels *k, const char *isa, lbt_err *e);

#endif

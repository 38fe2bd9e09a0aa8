/* workload.c — the workload processes of a run (docs/usage.md, "Workloads"):
 * their specs, parsed into an lbt_workload value, and the processes without
 * per-task state:
 *
 *   cybenko:DIST:C   Cybenko 1989, eq. (12): every PE receives eta tasks drawn
 *                    from DIST and completes C per step;
 *   phases:GL:GH:CL:CH:LENL:LENH   Lüling and Monien 1993, §7: a PE runs
 *                    phases of random length, generation and consumption
 *                    probability;
 *   generator:G      Lüling and Monien's one-generator model: PE 0 makes a
 *                    task with probability G per step, nobody consumes.
 *
 * The search trees (tree:, gw:) are in tree.c. Every draw for PE i at step
 * t comes from the workloads' 32-bit stream, lbt_rand32(lbt_rand_key(seed,
 * t, purpose), i) with i the PE's row-major index (lbtorus/rng.h), so a run
 * has the same bits for any thread count, ISA and rank count. Cybenko's
 * process and the phases run one of the dispatch table's row kernels
 * (wl_poisson_row, wl_draw_row, wl_phases_row on integer loads, wl_real_row
 * on real-valued ones: a scalar reference and a vector kernel per ISA,
 * checked bit for bit by checkasm) on the grid's rows in parallel, in place,
 * one pass that also sums what the engine's sqdev needs: integer loads'
 * counters and squares are integer sums, exact in any order; real-valued
 * loads' sums are taken per row in the kernel's fixed lanes, and the rows'
 * sums added in global row order. On a torus cut between ranks (MPI,
 * lbtorus/comm.h) each rank works on its block with the global indices; the
 * integer counters are summed exactly over the ranks (lbt_wl_done); a row
 * shared by the ranks along the last axis passes its lanes from rank to
 * rank (lbt_cut_chain), and the rows' sums are added in global row order
 * (lbt_cut_row_sums): the bits of one process for any rank count and grid. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "lbtorus/number.h"
#include "lbtorus/rng.h"
#include "comm/comm.h"
#include "workload.h"

/* Purposes of the draws (lbt_rand_key's p), apart from the methods' own;
 * P_ARRIVE2: the normal distribution's second uniform. */
enum { P_ARRIVE = 101, P_PHASE_G, P_PHASE_C, P_PHASE_LEN, P_GEN, P_CONSUME, P_ARRIVE2 };

double lbt_wl_unit(uint64_t r) { return lbt_rand_unit(r); }

int64_t lbt_wl_first(const lbt_grid *g) { return g->cut ? lbt_grid_row_global(g, 0) : 0; }

int lbt_wl_done(const lbt_state *st, int64_t *v, int extra, int status, lbt_work_counts *c, lbt_err *e)
{
	const int n = 3 + extra;
	if (st->grid.cut) {
		int64_t all[8];
		memcpy(all, v, (size_t)n * sizeof *v);
		all[n] = status != LBT_OK;
		lbt_comm_sum_i64(all, n + 1);
		if (all[n])
			return lbt_comm_agree(status, e);
		memcpy(v, all, (size_t)n * sizeof *v);
	} else if (status)
		return status;
	c->generated += (double)v[0];
	c->completed += (double)v[1];
	c->idle_capacity += (double)v[2];
	return LBT_OK;
}

typedef struct {
	const lbt_workload *w;
	int64_t P;        /* PEs here */
	int64_t first;    /* the global row-major index of this rank's first PE (lbt_wl_first) */
	int real;         /* a real-valued method's loads */
	double *rows4;    /* cybenko on real loads: each row's sums gen, C n, dev, sq */
	double *lanes;    /*   each row's lanes (lbt_wl_rsums) if the last axis is cut, not one row */
	lbt_wl_real rd;   /*   its distribution */
	uint32_t *g, *c;  /* phases: the current phase's probabilities per PE, as thresholds (kernels.h) */
	uint32_t *left;   /* phases: the steps the current phase has left after this one */
	lbt_wl_phases ph; /* phases: the row kernel's parameters */
	int rows;         /* the row kernel on integer loads (ROW_*); cybenko:poisson's with */
	lbt_poisson pt;   /*   its thresholds and */
	uint32_t *scratch; /*   2 rows of uint32 per thread, */
	lbt_wl_draw dt;   /*   or uniform's or Bernoulli's */
} simple_ws;

enum { ROW_NONE, ROW_POISSON, ROW_DRAW, ROW_PHASES };

static void simple_close(void *p)
{
	simple_ws *ws = p;
	if (!ws)
		return;
	free(ws->rows4);
	free(ws->lanes);
	free(ws->g);
	free(ws->c);
	free(ws->left);
	free(ws->scratch);
	free(ws);
}

/* Cybenko on real-valued loads: the distribution for wl_real_row and the rows' sums. */
static int real_open(simple_ws *ws, const lbt_workload *w, lbt_state *st, lbt_err *e)
{
	const double *a = w->arg;
	lbt_wl_real *d = &ws->rd;
	d->dist = w->dist;
	d->mu = a[0];
	d->sigma = a[1];
	d->C = a[w->dist == LBT_DIST_UNIFORM || w->dist == LBT_DIST_NORMAL ? 2 : 1];
	if (w->dist == LBT_DIST_UNIFORM)
		lbt_wl_draw_init(&d->draw, (int64_t)a[0], (int64_t)a[1]);
	else if (w->dist == LBT_DIST_BERNOULLI)
		lbt_wl_bernoulli_init(&d->draw, a[0]);
	else if (w->dist == LBT_DIST_POISSON && lbt_poisson_init(&d->pt, a[0]))
		return lbt_errf(e, LBT_EINVAL, "workload %s: no Poisson table for this mean", w->spec);
	const lbt_grid *g = &st->grid;
	const int last = g->shape.dims - 1;
	const int64_t R = ws->P / g->shape.ext[last];
	const int shared = g->shape.ext[last] < g->whole.ext[last] && lbt_shape_pes(&g->whole) > g->whole.ext[last];
	if (!(ws->rows4 = malloc((size_t)(4 * R) * sizeof *ws->rows4)) ||
	    (shared && !(ws->lanes = malloc((size_t)R * sizeof(lbt_wl_rsums)))))
		return lbt_errf(e, LBT_ENOMEM, "no memory for the workload's sums");
	return LBT_OK;
}

static int simple_open(void **out, const lbt_workload *w, lbt_state *st, lbt_err *e)
{
	simple_ws *ws = calloc(1, sizeof *ws);
	if (!ws)
		return lbt_errf(e, LBT_ENOMEM, "no memory for the workload");
	ws->w = w;
	const lbt_grid *g = &st->grid;
	ws->P = lbt_shape_pes(&g->shape);
	ws->first = lbt_wl_first(g);
	ws->real = st->method->load == LBT_LOAD_REAL;
	int s = LBT_OK;
	if (!strcmp(w->name, "cybenko") && !ws->real && w->dist != LBT_DIST_POISSON) {
		ws->rows = ROW_DRAW;
		if (w->dist == LBT_DIST_UNIFORM)
			lbt_wl_draw_init(&ws->dt, (int64_t)w->arg[0], (int64_t)w->arg[1]);
		else
			lbt_wl_bernoulli_init(&ws->dt, w->arg[0]);
	}
	if (!strcmp(w->name, "cybenko") && w->dist == LBT_DIST_POISSON && !ws->real) {
		const lbt_shape *sh = &st->grid.shape;
		ws->rows = ROW_POISSON;
		if (lbt_poisson_init(&ws->pt, w->arg[0]))
			s = lbt_errf(e, LBT_EINVAL, "workload %s: no Poisson table for this mean", w->spec);
		else if (!(ws->scratch = malloc((size_t)(2 * (st->threads > 0 ? st->threads : 1)) *
		                                (size_t)sh->ext[sh->dims - 1] * sizeof *ws->scratch)))
			s = lbt_errf(e, LBT_ENOMEM, "no memory for the workload's rows");
	}
	if (!s && !strcmp(w->name, "cybenko") && ws->real)
		s = real_open(ws, w, st, e);
	if (!s && !strcmp(w->name, "phases")) {
		size_t P = (size_t)ws->P;
		ws->rows = ROW_PHASES;
		ws->g = malloc(P * sizeof *ws->g);
		ws->c = malloc(P * sizeof *ws->c);
		ws->left = calloc(P, sizeof *ws->left); /* every phase ends at the first step: the first is drawn then */
		if (!ws->g || !ws->c || !ws->left)
			s = lbt_errf(e, LBT_ENOMEM, "no memory for the workload's phases");
		memcpy(ws->ph.arg, w->arg, sizeof ws->ph.arg);
	}
	if (s) {
		simple_close(ws);
		return s;
	}
	*out = ws;
	return LBT_OK;
}

static int overflow(lbt_err *e, int64_t i)
{
	return lbt_errf(e, LBT_ERANGE, "workload: PE %lld would hold more than 2^31-1 tasks", (long long)i);
}

/* The cell offset of row r (row-major) of g. */
static int64_t row_offset(const lbt_grid *g, int64_t r)
{
	const lbt_shape *sh = &g->shape;
	int64_t off = 0;
	for (int d = sh->dims - 2; d >= 0; d--) {
		off += (r % sh->ext[d]) * g->stride[d];
		r /= sh->ext[d];
	}
	return off;
}

/* A row kernel left a load beyond INT32_MAX (at most 2^31 - 1 + 10^6: the
 * largest arrival) cast to int32, which made it negative: name the first such
 * PE in row-major order, as the PE-by-PE loop does. */
static int row_overflow(const lbt_grid *g, int64_t n, int64_t R, lbt_err *e)
{
	for (int64_t r = 0; r < R; r++) {
		const int32_t *x = g->load + row_offset(g, r);
		for (int64_t j = 0; j < n; j++)
			if (x[j] < 0)
				return overflow(e, lbt_grid_row_global(g, r) + j);
	}
	return lbt_errf(e, LBT_EINTERNAL, "workload: an overflow without a negative load");
}

/* A row kernel's counters added to a sum (the phase's reduction over threads). */
static void wl_add(lbt_wl_counts *sum, const lbt_wl_counts *k)
{
	sum->generated += k->generated;
	sum->completed += k->completed;
	sum->idle += k->idle;
	sum->overflow |= k->overflow;
	sum->sq_hi += k->sq_hi;
	sum->sq_lo += k->sq_lo;
}
#pragma omp declare reduction(wl_sum : lbt_wl_counts : wl_add(&omp_out, &omp_in)) \
	initializer(omp_priv = (lbt_wl_counts){0})

/* The end of a phase of row kernels: the counters s and their sums of
 * squares, over every rank on a cut torus (lbt_wl_done), into c. */
static int rows_done(const lbt_state *st, const lbt_wl_counts *s, int status, lbt_work_counts *c, lbt_err *e)
{
	int64_t v[5] = {s->generated, s->completed, s->idle, (int64_t)s->sq_hi, (int64_t)s->sq_lo}; /* each < 2^63: P < 2^31 */
	if ((status = lbt_wl_done(st, v, 2, status, c, e)))
		return status;
	c->sq_known = 1;
	c->sq_hi += (uint64_t)v[3];
	c->sq_lo += (uint64_t)v[4];
	return LBT_OK;
}

/* A row kernel on every row of the grid, in place, rows shared among the
 * threads: cybenko on integer loads with Poisson, uniform or Bernoulli
 * arrivals, or phases; exact integer counters and the sum of squares. */
static int rows_phase(simple_ws *ws, lbt_state *st, int64_t t, uint64_t seed, lbt_work_counts *c, lbt_err *e)
{
	const lbt_grid *g = &st->grid;
	const lbt_shape *sh = &g->shape;
	const int64_t n = sh->ext[sh->dims - 1], R = ws->P / n;
	const int threads = st->threads > 0 ? st->threads : 1;
	const int32_t C = (int32_t)ws->w->arg[ws->w->dist == LBT_DIST_UNIFORM ? 2 : 1]; /* cybenko's */
	lbt_wl_counts sum = {0};
	const uint64_t key = lbt_rand_key(seed, (uint64_t)t, P_ARRIVE);
	if (ws->rows == ROW_POISSON) { /* each thread its range of rows, one kernel call per plane's run of them */
		const int D = sh->dims;
		const int64_t pitch = D >= 2 ? g->stride[D - 2] : 0;
		/* a run's rows are n apart in global order unless the last axis is cut (blocks): then a row a call */
		const int64_t per = D >= 2 && n == g->whole.ext[D - 1] ? sh->ext[D - 2] : 1;
#pragma omp parallel num_threads(threads) reduction(wl_sum : sum)
		{
			int tid = 0, T = 1;
#ifdef _OPENMP
			tid = omp_get_thread_num();
			T = omp_get_num_threads();
#endif
			uint32_t *m = ws->scratch + (size_t)(2 * tid) * (size_t)n;
			for (int64_t r = R * tid / T, r1 = R * (tid + 1) / T; r < r1;) {
				const int64_t run = per - r % per < r1 - r ? per - r % per : r1 - r;
				st->kern->wl_poisson_row(g->load + row_offset(g, r), n, run, pitch, lbt_grid_row_global(g, r), key,
				                         &ws->pt, C, m, m + n, &sum);
				r += run;
			}
		}
	} else {
		if (ws->rows == ROW_PHASES) {
			const uint64_t purpose[5] = {P_PHASE_G, P_PHASE_C, P_PHASE_LEN, P_GEN, P_CONSUME};
			for (int k = 0; k < 5; k++)
				ws->ph.key[k] = lbt_rand_key(seed, (uint64_t)t, purpose[k]);
		}
#pragma omp parallel for schedule(static) num_threads(threads) reduction(wl_sum : sum)
		for (int64_t r = 0; r < R; r++) {
			lbt_wl_counts k = {0};
			int32_t *x = g->load + row_offset(g, r);
			const int64_t i0 = lbt_grid_row_global(g, r);
			if (ws->rows == ROW_PHASES)
				st->kern->wl_phases_row(x, n, i0, &ws->ph, ws->g + r * n, ws->c + r * n, ws->left + r * n, &k);
			else
				st->kern->wl_draw_row(x, n, i0, key, &ws->dt, C, &k);
			wl_add(&sum, &k);
		}
	}
	return rows_done(st, &sum, sum.overflow ? row_overflow(g, n, R, e) : LBT_OK, c, e);
}

/* Real-valued loads: a pass of wl_real_row over this rank's pieces of its
 * rows, the rows in parallel. A row's sums run in the kernel's lanes from
 * its first PE to its last: a piece starts from the lanes the piece before
 * it on the row left (lanes: passed along the ranks of the last axis by
 * lbt_cut_chain; NULL: every row starts and ends here, from zero), and the
 * block that ends a row folds them (lbt_wl_fold) into the row's sums in
 * rows4: generated, completed (C n), dev, sq. */
typedef struct {
	simple_ws *ws;
	const lbt_state *st;
	uint64_t key, key2;
	double shift;
} real_pass;

static void real_rows(void *p, double *lanes)
{
	const real_pass *q = p;
	simple_ws *ws = q->ws;
	const lbt_grid *g = &q->st->grid;
	const int last = g->shape.dims - 1;
	const int64_t n = g->shape.ext[last], R = ws->P / n, lo = lbt_grid_lo(g, last), whole = g->whole.ext[last];
	const int ends = lo + n == whole, lane0 = (int)(lo % LBT_WL_LANES);
	const double Cn = ws->rd.C * (double)whole;
	const int threads = q->st->threads > 0 ? q->st->threads : 1;
#pragma omp parallel for schedule(static) num_threads(threads) if (ws->P > 65536)
	for (int64_t r = 0; r < R; r++) {
		lbt_wl_rsums a = {0};
		if (lanes)
			memcpy(&a, lanes + r * 3 * LBT_WL_LANES, sizeof a);
		q->st->kern->wl_real_row(g->real + row_offset(g, r), n, lbt_grid_row_global(g, r), lane0, q->key, q->key2,
		                         &ws->rd, q->shift, &a);
		if (lanes)
			memcpy(lanes + r * 3 * LBT_WL_LANES, &a, sizeof a);
		if (ends) {
			double *s = ws->rows4 + 4 * r;
			s[0] = lbt_wl_fold(a.gen);
			s[1] = Cn;
			s[2] = lbt_wl_fold(a.dev);
			s[3] = lbt_wl_fold(a.sq);
		}
	}
}

/* Real-valued loads: eq. (12) as it stands, loads may go negative (Cybenko's
 * interpretation (b)), by wl_real_row (lbt_wl_real), with the sums about
 * c->shift from which the engine takes sqdev. Every PE completes C. The
 * rows' sums (real_rows) are added to c's in global row order. A torus of
 * one row (a ring) keeps its lanes in c->lanes, so that the pieces of a ring
 * cut by hand, each a rank of one, pass them on through one c as ranks do. */
static int real_phase(simple_ws *ws, lbt_state *st, int64_t t, uint64_t seed, lbt_work_counts *c, lbt_err *e)
{
	const lbt_grid *g = &st->grid;
	const int last = g->shape.dims - 1;
	const int64_t R = ws->P / g->shape.ext[last];
	real_pass q = {ws, st, lbt_rand_key(seed, (uint64_t)t, P_ARRIVE), lbt_rand_key(seed, (uint64_t)t, P_ARRIVE2),
	               c->shift};
	double *lanes = ws->lanes;
	if (lbt_shape_pes(&g->whole) == g->whole.ext[g->whole.dims - 1])
		lanes = (double *)&c->lanes;
	else if (lanes)
		memset(lanes, 0, (size_t)R * sizeof(lbt_wl_rsums));
	if (g->cut && lanes)
		lbt_cut_chain(g->cut, last, lanes, R * 3 * LBT_WL_LANES, real_rows, &q);
	else
		real_rows(&q, lanes);
	double acc[4] = {c->generated, c->completed, c->dev, c->sq};
	int nomem = 0;
	if (g->cut)
		lbt_cut_row_sums(g->cut, ws->rows4, lbt_grid_lo(g, last) + g->shape.ext[last] == g->whole.ext[last] ? R : 0,
		                 4, acc, &nomem);
	else
		for (int64_t r = 0; r < R; r++)
			for (int k = 0; k < 4; k++)
				acc[k] += ws->rows4[4 * r + k];
	if (g->cut && !lbt_comm_min_int(!nomem))
		return lbt_errf(e, LBT_ENOMEM, "no memory to add the arrivals' sums in global order");
	c->dev_known = 1;
	c->generated = acc[0];
	c->completed = acc[1];
	c->dev = acc[2];
	c->sq = acc[3];
	return LBT_OK;
}

static int cybenko_phase(void *p, lbt_state *st, int64_t t, uint64_t seed, lbt_work_counts *c, lbt_err *e)
{
	simple_ws *ws = p;
	return ws->rows ? rows_phase(ws, st, t, seed, c, e) : real_phase(ws, st, t, seed, c, e);
}

/* Lüling and Monien §7: at the step a PE's phase ends it draws the next one
 * (generation probability in [GL, GH], consumption probability in [CL, CH],
 * length in [LENL, LENH] steps, each uniform); every step it generates one
 * task with the first probability, then consumes one, if it has one, with
 * the second (a consumption draw that finds no task is idle capacity). The
 * row kernel wl_phases_row on every row, in place, rows shared among the
 * threads; exact integer counters and the sum of squares for sqdev. */
static int phases_phase(void *p, lbt_state *st, int64_t t, uint64_t seed, lbt_work_counts *c, lbt_err *e)
{
	return rows_phase(p, st, t, seed, c, e);
}

/* One task at PE (0, ..., 0) with probability G; nobody consumes. Every
 * rank of a cut torus draws the same number; the one holding PE 0 adds the
 * task and counts it, and the count is summed over the ranks (lbt_wl_done),
 * as every workload's. */
static int generator_phase(void *p, lbt_state *st, int64_t t, uint64_t seed, lbt_work_counts *c, lbt_err *e)
{
	simple_ws *ws = p;
	if (lbt_unit32(lbt_rand32(lbt_rand_key(seed, (uint64_t)t, P_GEN), 0)) >= ws->w->arg[0])
		return LBT_OK;
	int64_t v[3] = {0, 0, 0};
	int status = LBT_OK;
	if (ws->first == 0 && st->grid.load[0] == INT32_MAX)
		status = overflow(e, 0);
	else if (ws->first == 0) {
		st->grid.load[0]++;
		v[0] = 1;
	}
	return lbt_wl_done(st, v, 0, status, c, e);
}

/* ---- specs ---- */

int lbt_wl_bad(lbt_err *e, const char *spec, const char *want)
{
	return lbt_errf(e, LBT_EINVAL, "workload '%s': %s", spec, want);
}

int lbt_wl_numbers(const char *spec, const char *text, const char *form, const char *ints, const char *want,
                   double *out, lbt_err *e)
{
	for (int n = 0;; n++) {
		char field[64], name[16], key[20];
		size_t k = strcspn(text, ":"), nk = strcspn(form, ":");
		if (n == LBT_WORKLOAD_ARGS || !*form || k >= sizeof field || nk >= sizeof name)
			return lbt_wl_bad(e, spec, want);
		memcpy(field, text, k);
		field[k] = 0;
		memcpy(name, form, nk);
		name[nk] = 0;
		snprintf(key, sizeof key, "%s=", name);
		const char *range = strstr(ints, key);
		while (range && range != ints && range[-1] != ' ')
			range = strstr(range + 1, key);
		long long lo, hi;
		int64_t v;
		lbt_err fe;
		int st;
		if (range && sscanf(range + strlen(key), "%lld..%lld", &lo, &hi) == 2) {
			st = lbt_parse_i64(field, lo, hi, name, &v, &fe);
			out[n] = (double)v;
		} else
			st = lbt_parse_f64(field, -HUGE_VAL, HUGE_VAL, 0, name, &out[n], &fe);
		if (st)
			return lbt_wl_bad(e, spec, fe.msg);
		text += k;
		form += nk;
		if (!*text != !*form)
			return lbt_wl_bad(e, spec, want);
		if (!*text)
			return LBT_OK;
		text++;
		form++;
	}
}

/* cybenko:DIST:C — DIST's name and numbers, then C. */
static int parse_cybenko(lbt_workload *w, const char *rest, lbt_load_kind load, lbt_err *e)
{
	const char *spec = w->spec;
	static const struct {
		const char *name;
		int n;
		const char *form;
	} dists[] = {{"poisson", 1, "poisson:MU"}, {"uniform", 2, "uniform:LO:HI"}, {"bernoulli", 1, "bernoulli:P"},
	             {"exp", 1, "exp:MU"}, {"normal", 2, "normal:MU:SIGMA"}};
	const char *want = "write cybenko:DIST:C with DIST poisson:MU, uniform:LO:HI, bernoulli:P "
	                   "(or, for a real-valued method, exp:MU, normal:MU:SIGMA)";
	if (!rest)
		return lbt_wl_bad(e, spec, "write cybenko:DIST:C");
	size_t len = strcspn(rest, ":");
	int d = -1;
	for (int k = 0; k < 5; k++)
		if (strlen(dists[k].name) == len && !strncmp(rest, dists[k].name, len))
			d = k;
	if (d < 0 || !rest[len])
		return lbt_wl_bad(e, spec, want);
	char form[32];
	snprintf(form, sizeof form, "%s:C", dists[d].form + len + 1);
	int st = lbt_wl_numbers(spec, rest + len + 1, form, load == LBT_LOAD_INT ? "LO=0..1000000 HI=0..1000000 C=0..1000000"
	                 : "LO=0..1000000 HI=0..1000000", want, w->arg, e);
	if (st)
		return st;
	w->dist = d;
	const double *a = w->arg, C = a[dists[d].n];
	char why[200];
	why[0] = 0;
	if (d >= LBT_DIST_EXP && load == LBT_LOAD_INT) {
		char real[120] = "";
		for (const lbt_method *const *m = lbt_methods(); *m; m++)
			if ((*m)->load == LBT_LOAD_REAL)
				snprintf(real + strlen(real), sizeof real - strlen(real), "%s%s", *real ? ", " : "", (*m)->name);
		snprintf(why, sizeof why, "%s draws real numbers: use it with a real-valued method (%s), "
		         "or poisson, uniform or bernoulli", dists[d].name, real);
	}
	else if (d == LBT_DIST_POISSON && !(a[0] > 0 && a[0] <= 100))
		snprintf(why, sizeof why, "poisson:MU wants 0 < MU <= 100");
	else if (d == LBT_DIST_UNIFORM && !(a[0] <= a[1]))
		snprintf(why, sizeof why, "uniform:LO:HI wants LO <= HI");
	else if (d == LBT_DIST_BERNOULLI && !(a[0] >= 0 && a[0] <= 1))
		snprintf(why, sizeof why, "bernoulli:P wants 0 <= P <= 1");
	else if (d == LBT_DIST_EXP && !(a[0] > 0 && a[0] <= 1e6))
		snprintf(why, sizeof why, "exp:MU wants a mean 0 < MU <= 1000000");
	else if (d == LBT_DIST_NORMAL && !(fabs(a[0]) <= 1e6 && a[1] >= 0 && a[1] <= 1e6))
		snprintf(why, sizeof why, "normal:MU:SIGMA wants |MU| <= 1000000 and 0 <= SIGMA <= 1000000");
	else if (!(C >= 0 && C <= 1e6))
		snprintf(why, sizeof why, "C (tasks completed per PE and step) wants 0 <= C <= 1000000");
	return why[0] ? lbt_wl_bad(e, spec, why) : LBT_OK;
}

/* none: no parameters. */
static int parse_none(lbt_workload *w, const char *rest, lbt_load_kind load, lbt_err *e)
{
	(void)load;
	return rest ? lbt_wl_bad(e, w->spec, "none takes no parameters") : LBT_OK;
}

/* The numbers of w's usage after its name ("phases:GL:GH:..."), LENL and
 * LENH integers. */
static int usage_numbers(lbt_workload *w, const char *rest, lbt_err *e)
{
	char want[160];
	snprintf(want, sizeof want, "write %s", w->usage);
	if (!rest)
		return lbt_wl_bad(e, w->spec, want);
	return lbt_wl_numbers(w->spec, rest, w->usage + strlen(w->name) + 1, "LENL=1..1000000000 LENH=1..1000000000", want,
	                      w->arg, e);
}

/* phases:GL:GH:CL:CH:LENL:LENH */
static int parse_phases(lbt_workload *w, const char *rest, lbt_load_kind load, lbt_err *e)
{
	int st = usage_numbers(w, rest, e);
	if (st)
		return st;
	const double *a = w->arg;
	if (!(0 <= a[0] && a[0] <= a[1] && a[1] <= 1 && 0 <= a[2] && a[2] <= a[3] && a[3] <= 1))
		return lbt_wl_bad(e, w->spec, "probabilities want 0 <= GL <= GH <= 1 and 0 <= CL <= CH <= 1");
	if (!(a[4] <= a[5]))
		return lbt_wl_bad(e, w->spec, "phase lengths want LENL <= LENH");
	if (load == LBT_LOAD_REAL)
		return lbt_wl_bad(e, w->spec, "phases generate whole tasks: use an integer method");
	return LBT_OK;
}

/* generator:G */
static int parse_generator(lbt_workload *w, const char *rest, lbt_load_kind load, lbt_err *e)
{
	int st = usage_numbers(w, rest, e);
	if (st)
		return st;
	if (!(w->arg[0] >= 0 && w->arg[0] <= 1))
		return lbt_wl_bad(e, w->spec, "write generator:G with 0 <= G <= 1");
	if (load == LBT_LOAD_REAL)
		return lbt_wl_bad(e, w->spec, "the generator makes whole tasks: use an integer method");
	return LBT_OK;
}

LBT_WORKLOAD(lbt_workload_none) = {
	.name = "none",
	.summary = "no load is generated or completed during the run",
	.parse = parse_none,
	.usage = "none",
	.example = "none",
};
LBT_WORKLOAD(lbt_workload_cybenko) = {
	.name = "cybenko",
	.summary = "every PE receives eta ~ DIST tasks and completes C per step (Cybenko 1989, eq. (12))",
	.phase = cybenko_phase,
	.close = simple_close,
	.open_spec = simple_open,
	.parse = parse_cybenko,
	.usage = "cybenko:DIST:C",
	.example = "cybenko:poisson:1.5:1",
};
LBT_WORKLOAD(lbt_workload_phases) = {
	.name = "phases",
	.summary = "random phases of generation and consumption per PE (Lüling, Monien 1993, §7)",
	.phase = phases_phase,
	.close = simple_close,
	.open_spec = simple_open,
	.parse = parse_phases,
	.usage = "phases:GL:GH:CL:CH:LENL:LENH",
	.example = "phases:0.1:0.9:0.1:0.7:2:5",
};
LBT_WORKLOAD(lbt_workload_generator) = {
	.name = "generator",
	.summary = "PE 0 generates a task with probability G per step, nobody consumes (Lüling, Monien 1993)",
	.phase = generator_phase,
	.close = simple_close,
	.open_spec = simple_open,
	.parse = parse_generator,
	.usage = "generator:G",
	.example = "generator:0.7",
};

#define LBT_WORKLOAD_ADDRESS(w) &w,
static const lbt_workload *const workloads[] = {LBT_WORKLOADS(LBT_WORKLOAD_ADDRESS) NULL};
#undef LBT_WORKLOAD_ADDRESS

const lbt_workload *const *lbt_workloads(void) { return workloads; }

const lbt_workload *lbt_workload_find(const char *name)
{
	for (const lbt_workload *const *w = workloads; *w; w++)
		if (!strcmp((*w)->name, name))
			return *w;
	return NULL;
}

int lbt_workload_parse(lbt_workload *w, const char *spec, lbt_load_kind load, lbt_err *e)
{
	size_t len = strcspn(spec, ":");
	const lbt_workload *kind = NULL;
	for (const lbt_workload *const *k = workloads; *k; k++)
		if (strlen((*k)->name) == len && !strncmp((*k)->name, spec, len))
			kind = *k;
	if (!kind) {
		char names[160] = "";
		for (const lbt_workload *const *k = workloads; *k; k++)
			snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", k == workloads ? "" : ", ",
			         (*k)->usage);
		return lbt_errf(e, LBT_EINVAL, "unknown workload '%s': use %s", spec, names);
	}
	if (strlen(spec) >= sizeof w->spec)
		return lbt_wl_bad(e, spec, "too long");
	*w = *kind;
	snprintf(w->spec, sizeof w->spec, "%s", spec);
	return kind->parse(w, spec[len] ? spec + len + 1 : NULL, load, e);
}

int lbt_workload_fits(const lbt_workload *w, const lbt_shape *s, lbt_err *e)
{
	return w->tasks ? lbt_wl_tree_fits(w, s, e) : LBT_OK;
}

/* search.c — worst-case search for the Liquid model (no paper has this).
 *
 * The space: loads on P PEs, each >= 0, summing to `total`, with max - min
 * exactly `ldiff`. A restart draws a random member: a minimum m (uniform
 * over the feasible ones), one PE at m and one at m + ldiff, the remaining
 * units piled around the maximum (even restarts) or scattered on random PEs
 * with room (odd restarts). A move takes 1..ldiff/4
 * units from a random PE to a neighbour (half the time) or to any PE, and is
 * kept only if the result is still in the space. A candidate's score is the
 * method's steps until balanced (Definition 2); a move is accepted if the
 * score does not drop, or, annealing, with probability exp(delta / temp).
 *
 * With a workload every evaluation runs it from step 0 with the search's
 * seed, so candidates are compared under the same arrivals.
 *
 * Determinism: restart r draws every random number as lbt_rand(seed, r, i,
 * purpose) with its own counter i, restarts run in parallel on private
 * states (spread over the MPI ranks, restart r on rank r mod R, and over
 * each rank's threads: spread.h), and the best is the highest score with
 * ties to the lowest restart, chosen once every rank has every restart's
 * outcome: the same search on any number of threads and ranks. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "lbtorus/rng.h"
#include "lbtorus/run.h"
#include "lbtorus/search.h"
#include "comm/comm.h"
#include "exp/spread.h"

enum { R_MIN = 0x5ea1, R_PICK, R_FILL, R_SRC, R_DST, R_HOW, R_AMT, R_ACC };

typedef struct {
	uint64_t seed, restart, i; /* stream of one restart */
} stream;

static uint64_t draw(stream *s, int purpose) { return lbt_rand(s->seed, s->restart, s->i++, (uint64_t)purpose); }
static int64_t pick(stream *s, int purpose, int64_t lo, int64_t hi) { return lbt_rand_range(draw(s, purpose), lo, hi); }

static void extremes(const int32_t *L, int64_t P, int32_t *mx, int32_t *mn)
{
	*mx = *mn = L[0];
	for (int64_t i = 1; i < P; i++) {
		*mx = L[i] > *mx ? L[i] : *mx;
		*mn = L[i] < *mn ? L[i] : *mn;
	}
}

/* Torus (or mesh) distance between dense indices i and j. */
static int64_t distance(const lbt_shape *sh, int64_t i, int64_t j)
{
	int64_t d = 0;
	for (int k = sh->dims - 1; k >= 0; k--) {
		int64_t n = sh->ext[k], a = i % n, b = j % n, x = a > b ? a - b : b - a;
		if (sh->bnd[k] == LBT_TORUS && n - x < x)
			x = n - x;
		d += x;
		i /= n, j /= n;
	}
	return d;
}

typedef struct {
	int64_t key, pe;
} ranked;

static int by_key(const void *a, const void *b)
{
	const ranked *x = a, *y = b;
	return x->key < y->key ? -1 : x->key > y->key;
}

/* A random member of the space with minimum in [mlo, mhi]: one PE a at
 * m + ldiff, one PE b at m, the remaining units dropped either on random
 * PEs with room (scattered) or on the PEs nearest to a first, in random
 * order within a distance (clustered: a compact pile, the kind of start
 * the worst cases are made of). rank: scratch for P entries. */
static void random_start(stream *s, const lbt_shape *sh, int32_t *L, ranked *rank, int clustered, int64_t ldiff,
                         int64_t total, int64_t mlo, int64_t mhi)
{
	const int64_t P = lbt_shape_pes(sh);
	int64_t m = pick(s, R_MIN, mlo, mhi);
	int64_t a = pick(s, R_PICK, 0, P - 1), b = (a + pick(s, R_PICK, 1, P - 1)) % P;
	for (int64_t i = 0; i < P; i++)
		L[i] = (int32_t)m;
	L[a] = (int32_t)(m + ldiff);
	int64_t left = total - P * m - ldiff;
	if (clustered) {
		for (int64_t i = 0; i < P; i++)
			rank[i] = (ranked){distance(sh, a, i) << 32 | (int64_t)(draw(s, R_FILL) >> 33), i};
		qsort(rank, (size_t)P, sizeof *rank, by_key);
		for (int64_t k = 0; k < P && left > 0; k++) {
			int64_t i = rank[k].pe, room = i == b ? 0 : m + ldiff - L[i];
			room = room < left ? room : left;
			L[i] += (int32_t)room;
			left -= room;
		}
	}
	for (; left > 0; left--) {
		int64_t i = pick(s, R_FILL, 0, P - 1);
		while (i == b || L[i] >= m + ldiff) /* probe to the next PE with room: there is one */
			i = (i + 1) % P;
		L[i]++;
	}
}

/* The PE one step from i along a random axis and direction (torus wrap; at
 * a mesh edge, the other direction). Row-major dense indices. */
static int64_t neighbour(stream *s, const lbt_shape *sh, int64_t i)
{
	int d = (int)pick(s, R_DST, 0, sh->dims - 1);
	int64_t stride = 1;
	for (int k = sh->dims - 1; k > d; k--)
		stride *= sh->ext[k];
	int64_t n = sh->ext[d], x = i / stride % n, dir = pick(s, R_DST, 0, 1) ? 1 : -1, y = x + dir;
	if (y < 0 || y >= n)
		y = sh->bnd[d] == LBT_TORUS ? (y + n) % n : x - dir;
	if (y < 0 || y >= n)
		return i; /* extent 1 */
	return i + (y - x) * stride;
}

/* Steps until balanced of L (cap: -1 if not reached), under o's workload if any. */
static int64_t score(lbt_state *st, const int32_t *L, const lbt_search_opts *o, int64_t cap, int64_t *shifts,
                     lbt_err *e, int *status)
{
	lbt_grid_import(&st->grid, L);
	st->step = 0;
	lbt_run_opts ro = lbt_run_opts_default();
	ro.until.kind = LBT_UNTIL_BALANCED;
	ro.max_steps = cap;
	ro.workload = o->workload;
	if (o->interrupt)
		ro.interrupt = o->interrupt;
	lbt_summary sum;
	if ((*status = lbt_run(st, &ro, &sum, e)))
		return -1;
	if (sum.stop == LBT_STOP_INTERRUPTED) { /* a signal: the search stops, a cut-short run scores nothing */
		*status = lbt_errf(e, LBT_EIO, "interrupted");
		return -1;
	}
	*shifts = (int64_t)sum.balanced_shifts; /* an integer method: exact */
	return sum.balanced_step;
}

typedef struct {
	int64_t steps, shifts, evals;
	int status;
	lbt_err err;
} outcome;

static void one_restart(const lbt_search_opts *o, lbt_state *st, int64_t r, int64_t mlo, int64_t mhi,
                        int64_t cap, int32_t *best, int32_t *cur, ranked *rank, outcome *out)
{
	const lbt_shape *sh = &st->grid.shape;
	const int64_t P = lbt_shape_pes(sh);
	stream s = {o->seed, (uint64_t)r, 0};
	random_start(&s, sh, cur, rank, !(r & 1), o->ldiff, o->total, mlo, mhi);
	int64_t sh_cur = 0, sh_try = 0;
	out->evals = 1;
	int64_t cur_steps = score(st, cur, o, cap, &sh_cur, &out->err, &out->status);
	memcpy(best, cur, (size_t)P * sizeof *cur);
	out->steps = cur_steps;
	out->shifts = sh_cur;
	int64_t amax = o->ldiff / 4 > 1 ? o->ldiff / 4 : 1;
	for (int64_t k = 0; k < o->moves && !out->status; k++) {
		int64_t from = pick(&s, R_SRC, 0, P - 1);
		if (!cur[from])
			continue;
		int64_t to = pick(&s, R_HOW, 0, 1) ? neighbour(&s, sh, from) : pick(&s, R_DST, 0, P - 1);
		int32_t amt = (int32_t)pick(&s, R_AMT, 1, amax);
		if (to == from)
			continue;
		amt = amt < cur[from] ? amt : cur[from];
		cur[from] -= amt;
		cur[to] += amt;
		int32_t mx, mn;
		extremes(cur, P, &mx, &mn);
		int64_t steps = -2;
		if (mx - mn == o->ldiff) {
			out->evals++;
			steps = score(st, cur, o, cap, &sh_try, &out->err, &out->status);
		}
		double temp = o->temperature * (1.0 - (double)k / (double)o->moves);
		int accept = steps >= 0 && (steps >= cur_steps ||
		             (temp > 0 && (double)(draw(&s, R_ACC) >> 11) * 0x1p-53 < exp((double)(steps - cur_steps) / temp)));
		if (!accept) {
			cur[from] += amt;
			cur[to] -= amt;
			continue;
		}
		cur_steps = steps;
		if (steps > out->steps) {
			out->steps = steps;
			out->shifts = sh_try;
			memcpy(best, cur, (size_t)P * sizeof *cur);
		}
	}
}

/* The options checked, r->shape parsed; [*mlo, *mhi]: the feasible minima m,
 * P*m + ldiff <= total <= P*m + (P - 1)*ldiff. */
static int search_check(const lbt_search_opts *o, lbt_search_result *r, int64_t *mlo, int64_t *mhi, lbt_err *e)
{
	if (!o->shape)
		return lbt_errf(e, LBT_EINVAL, "search: give a shape (a small torus, e.g. 6x6)");
	int status = lbt_shape_parse(&r->shape, o->shape, e);
	if (!status && o->boundary)
		status = lbt_boundary_parse(&r->shape, o->boundary, e);
	if (status)
		return status;
	const int64_t P = lbt_shape_pes(&r->shape);
	if (P < 2 || P > 65536)
		return lbt_errf(e, LBT_EINVAL, "search: %lld PEs; the search is for small tori (2..65536 PEs)", (long long)P);
	if (o->workload && o->workload->tasks)
		return lbt_errf(e, LBT_EINVAL, "search: workload %s: a search tree places its own first tasks; search "
		                "under a process of arrivals (cybenko:, phases:, generator:)", o->workload->spec);
	if (o->ldiff < 1 || o->ldiff > INT32_MAX / 2 || o->total < 0 || o->restarts < 1 || o->moves < 0)
		return lbt_errf(e, LBT_EINVAL, "search: want ldiff >= 1, total >= 0, restarts >= 1, moves >= 0");
	int64_t slack = o->total - (P - 1) * o->ldiff;
	*mhi = (o->total - o->ldiff) / P;
	*mlo = slack <= 0 ? 0 : (slack + P - 1) / P;
	if (o->total < o->ldiff || *mlo > *mhi || *mhi > INT32_MAX - o->ldiff)
		return lbt_errf(e, LBT_EINVAL,
		                "search: no loads on %lld PEs sum to %lld with max - min = %lld "
		                "(need P*m + ldiff <= total <= P*m + (P-1)*ldiff for some m >= 0)",
		                (long long)P, (long long)o->total, (long long)o->ldiff);
	return LBT_OK;
}

/* Threads for this rank's restarts: o->threads (all cores if <= 0), at
 * most one a restart. */
static int search_threads(const lbt_search_opts *o)
{
	int threads = o->threads;
#ifdef _OPENMP
	if (threads <= 0)
		threads = omp_get_num_procs();
#endif
	const int64_t mine = lbt_spread_mine(o->restarts);
	if (threads > mine)
		threads = (int)mine;
	return threads < 1 ? 1 : threads;
}

/* The restarts as jobs for lbt_spread: a state and scratch per thread. */
typedef struct {
	const lbt_search_opts *o;
	int64_t P, mlo, mhi, cap, done, mine;
	outcome *outs;
	int32_t *bests, *work;
	ranked *ranks;
	lbt_state *st;
} restarts;

static void restart_run(void *ctx, int64_t k)
{
	restarts *x = ctx;
	int t = 0;
#ifdef _OPENMP
	t = omp_get_thread_num();
#endif
	one_restart(x->o, &x->st[t], k, x->mlo, x->mhi, x->cap, x->bests + k * x->P, x->work + (int64_t)t * x->P,
	            x->ranks + (int64_t)t * x->P, &x->outs[k]);
#pragma omp critical(search_note)
	{
		x->done++;
		if (x->o->note && lbt_comm_rank() == 0) { /* rank 0 tells of its restarts */
			char line[200];
			snprintf(line, sizeof line, "  restart %lld (%lld/%lld done): %lld steps after %lld runs", (long long)k,
			         (long long)x->done, (long long)x->mine, (long long)x->outs[k].steps,
			         (long long)x->outs[k].evals);
			x->o->note(x->o->ctx, line);
		}
	}
}

static int restart_result(void *ctx, int64_t k, void *at[2], size_t n[2])
{
	restarts *x = ctx;
	at[0] = &x->outs[k];
	n[0] = sizeof x->outs[k];
	at[1] = x->bests + k * x->P;
	n[1] = (size_t)x->P * sizeof *x->bests;
	return 2;
}

/* Every restart k into outs[k] and its best loads into bests + k*P, the
 * restarts spread over the ranks (spread.h) and this rank's over its
 * threads, a state per thread; then every rank has them all. LBT_OK, or
 * (on every rank) the first rank's failure to open its states. */
static int search_restarts(const lbt_search_opts *o, int threads, int64_t P, int64_t mlo, int64_t mhi, int64_t cap,
                           outcome *outs, int32_t *bests, int32_t *work, ranked *ranks, lbt_err *e)
{
	lbt_setup set = {.shape = o->shape, .boundary = o->boundary, .method = o->method ? o->method : "lm-c5",
	                 .init = "const:0", .isa = o->isa, .seed = o->seed, .threads = 1};
	restarts x = {.o = o, .P = P, .mlo = mlo, .mhi = mhi, .cap = cap, .mine = lbt_spread_mine(o->restarts),
	              .outs = outs, .bests = bests, .work = work, .ranks = ranks, .st = calloc((size_t)threads, sizeof *x.st)};
	int opened = 0, st = x.st ? LBT_OK : lbt_errf(e, LBT_ENOMEM, "search: no memory");
	while (!st && opened < threads && !(st = lbt_state_open(&x.st[opened], &set, e)))
		opened++;
	if (!(st = lbt_comm_agree(st, e))) {
		const lbt_spread sp = {.run = restart_run, .result = restart_result, .ctx = &x, .interrupt = o->interrupt};
		st = lbt_spread_run(&sp, NULL, o->restarts, threads, e);
	}
	for (int t = 0; t < opened; t++)
		lbt_state_close(&x.st[t]);
	free(x.st);
	return st;
}

/* The best of the restarts into r (the first of the longest). */
static int search_best(const lbt_search_opts *o, const outcome *outs, const int32_t *bests, int64_t P, int64_t cap,
                       lbt_search_result *r, lbt_err *e)
{
	int status = LBT_OK, failed = 0;
	int64_t best = -1;
	for (int64_t k = 0; k < o->restarts && !failed; k++) {
		r->evaluations += outs[k].evals;
		if (outs[k].status) {
			failed = 1;
			status = lbt_errf(e, outs[k].status, "%s", outs[k].err.msg);
		} else if (best < 0 || outs[k].steps > outs[best].steps)
			best = k;
	}
	if (!failed && outs[best].steps < 0)
		return lbt_errf(e, LBT_ERANGE, "search: a candidate did not balance within %lld steps (--max-steps)",
		                (long long)cap);
	if (failed)
		return status;
	if (!(r->loads = malloc((size_t)P * sizeof *r->loads)))
		return lbt_errf(e, LBT_ENOMEM, "search: no memory");
	memcpy(r->loads, bests + best * P, (size_t)P * sizeof *r->loads);
	r->steps = outs[best].steps;
	r->shifts = outs[best].shifts;
	r->restart = best;
	r->ratio = r->dkl ? (double)r->steps / (double)r->dkl : 0;
	int32_t mx, mn;
	extremes(r->loads, P, &mx, &mn);
	r->min = mn;
	return LBT_OK;
}

int lbt_search(const lbt_search_opts *o, lbt_search_result *r, lbt_err *e)
{
	memset(r, 0, sizeof *r);
	int64_t mlo = 0, mhi = 0;
	int status = search_check(o, r, &mlo, &mhi, e);
	if (status)
		return status;
	const int64_t P = lbt_shape_pes(&r->shape);
	r->dkl = lbt_bound_dkl(&r->shape, o->ldiff);
	int64_t cap = o->max_steps > 0 ? o->max_steps : 1000 * r->dkl + 1000;
	const int threads = search_threads(o);
	outcome *outs = calloc((size_t)o->restarts, sizeof *outs);
	int32_t *bests = malloc((size_t)o->restarts * (size_t)P * sizeof *bests);
	int32_t *work = malloc((size_t)threads * (size_t)P * sizeof *work);
	ranked *ranks = malloc((size_t)threads * (size_t)P * sizeof *ranks);
	if (!outs || !bests || !work || !ranks)
		status = lbt_errf(e, LBT_ENOMEM, "search: no memory for %lld restarts", (long long)o->restarts);
	else {
		status = search_restarts(o, threads, P, mlo, mhi, cap, outs, bests, work, ranks, e);
		/* a signal on any rank: its restarts were cut short, so the search's result is not one process's */
		if (lbt_comm_stop(o->interrupt, 0))
			status = lbt_errf(e, LBT_EINTR, "search: interrupted");
		if (!status)
			status = search_best(o, outs, bests, P, cap, r, e);
	}
	free(outs), free(bests), free(work), free(ranks);
	return status;
}

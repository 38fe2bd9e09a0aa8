/* run.c — the run engine: the one loop that steps a method.
 *
 * One step: the workload phase (generation and completion of load), the
 * method's step, the reductions (extremes, total, spread: from the kernel
 * when it measured them, else from the grid), the criteria, then the
 * observers — the caller's on_step (trace rows, snapshots, progress),
 * --verify against the scalar reference, and, for a deterministic method
 * without a workload, the stall and cycle checks. Criteria are judged on the
 * state after each full step, and on the initial state (step 0).
 *
 * Invariants checked on every step: total after = total before + generated
 * - completed (exactly for integer loads), and with `verify` the state
 * equals what the scalar reference makes of the same input, PE for PE. */
#include <stdlib.h>
#include <string.h>
#include <math.h>

#include "cycle.h"
#include "comm/comm.h"

/* Which criteria hold: bit 0 shared, 1 balanced, 2 flat (exact for int32
 * values, which doubles hold exactly). */
static unsigned criteria(double max, double min, int D)
{
	double diff = max - min;
	return (min > 0) | (diff <= D) << 1 | (diff <= 1) << 2;
}

/* Fill r's extremes, total and spread from the method's load field; the
 * exact total of an integer field goes to *exact. */
static void measure(const lbt_state *st, lbt_step_record *r, double stddev0, int64_t *exact)
{
	lbt_stats s;
	lbt_field_stats(&st->grid, lbt_grid_field(&st->grid, st->method->load == LBT_LOAD_REAL ? "real" : "load"),
	                st->threads, &s);
	r->max = s.max;
	r->min = s.min;
	r->total = s.rtotal;
	*exact = s.total;
	r->idle = s.idle;
	r->stddev = s.stddev;
	r->rel = stddev0 > 0 ? r->stddev / stddev0 : 0;
}

/* The scalar reference's copy of st, for --verify. On a torus cut between
 * ranks it is cut as st is (the same grid of ranks, its own halo and
 * communicator, one step an exchange: the reference takes one step a
 * call), each rank holding the same block of it; a failure on some ranks
 * is every rank's (lbt_comm_agree), so that all reach the same collectives. */
static int open_reference(lbt_state *ref, const lbt_state *st, lbt_kernels *scalar, lbt_err *e)
{
	*ref = *st;
	ref->ws = NULL;
	const lbt_cut *cut = st->grid.cut;
	const int speed = lbt_grid_field(&st->grid, "speed") != NULL; /* a method may read the speeds in its open */
	int status = lbt_kernels_select(scalar, "scalar", e), made = 0;
	if (!status)
		made = !(status = cut ? lbt_grid_init_cut(&ref->grid, &st->grid.whole, cut->nr,
		                                          st->method->load == LBT_LOAD_REAL, 1, e)
		                      : lbt_grid_init(&ref->grid, &st->grid.shape, e));
	if (!status && st->grid.real)
		status = lbt_grid_add_real(&ref->grid, e);
	if (!status && speed)
		status = lbt_grid_add_field(&ref->grid, "speed", LBT_F64, e);
	if (cut)
		status = lbt_comm_agree(status, e);
	if (status) {
		if (made)
			lbt_grid_free(&ref->grid);
		return status;
	}
	lbt_grid_copy(&ref->grid, &st->grid);
	const int opened = !(status = lbt_method_open(ref, e));
	if (cut)
		status = lbt_comm_agree(status, e);
	if (status) {
		if (opened)
			lbt_method_close(ref);
		lbt_grid_free(&ref->grid);
		return status;
	}
	lbt_grid_copy(&ref->grid, &st->grid);
	ref->kern = scalar;
	return LBT_OK;
}

/* Where st's grid first differs from the reference's, as one process would
 * find it: the first field (in st's order) that differs anywhere, and its
 * first PE in global row-major order, as field * P + global PE; -1 if
 * nowhere. On a cut view this rank's block only. */
static int64_t first_diff(const lbt_grid *a, const lbt_grid *b)
{
	const int64_t at = lbt_grid_first_diff(a, b);
	if (at < 0)
		return -1;
	const int64_t n = a->shape.ext[a->shape.dims - 1], r = at / n, k = at % n;
	int f = 0; /* the first field that differs at `at`: none before it differs anywhere */
	for (;; f++) {
		const lbt_field *x = &a->field[f], *y = lbt_grid_field(b, x->name);
		const size_t cell = lbt_type_size(x->type);
		if (y && memcmp((char *)lbt_field_row(a, x, r) + k * cell, (char *)lbt_field_row(b, y, r) + k * cell, cell))
			break;
	}
	return f * lbt_shape_pes(&a->whole) + lbt_grid_row_global(a, r) + k;
}

/* After st's step (counters k, reduced over the ranks if cut): the
 * reference's, and the comparison of states and counters. On a cut torus
 * every rank compares its block and one reduction brings the first
 * difference of all to every rank: the run fails on every rank, with one
 * process's message (the first differing PE of the whole torus). */
static int verify_step(lbt_state *ref, const lbt_state *st, const lbt_counts *k, int64_t step, lbt_err *e)
{
	lbt_counts kr = {0};
	ref->method->step(ref, &kr);
	ref->step++;
	if (ref->grid.cut)
		lbt_cut_counts(ref->grid.cut, &kr, ref->method->load == LBT_LOAD_REAL); /* nomem too: every rank's */
	if (kr.nomem)
		return lbt_errf(e, LBT_ENOMEM, "verify: no memory for the scalar reference's step");
	int64_t at = first_diff(&st->grid, &ref->grid);
	if (st->grid.cut) { /* the least over the ranks (keys below 2^53: exact as doubles), reached by every rank */
		double x = at < 0 ? -INFINITY : -(double)at;
		lbt_comm_max_f64(&x, 1);
		at = isinf(x) ? -1 : (int64_t)-x;
	}
	if (at < 0 && kr.moved == k->moved && kr.shifts == k->shifts &&
	    !memcmp(&kr.real_moved, &k->real_moved, sizeof k->real_moved) &&
	    !memcmp(&kr.real_shifts, &k->real_shifts, sizeof k->real_shifts))
		return LBT_OK;
	char where[160] = "in its counters";
	if (at >= 0)
		lbt_shape_coords(&st->grid.whole, at % lbt_shape_pes(&st->grid.whole),
		                 where + snprintf(where, sizeof where, "at PE "), sizeof where - 6);
	return lbt_errf(e, LBT_EINTERNAL, "verify: %s on ISA %s differs from the scalar reference at step %lld, %s",
	                st->method->name, st->kern->isa, (long long)step, where);
}

/* First step (and shifts) at which each criterion held. */
static void note_criteria(lbt_summary *out, const lbt_step_record *r, int D)
{
	unsigned c = criteria(r->max, r->min, D);
	if ((c & 1) && out->shared_step < 0) {
		out->shared_step = r->step;
		out->shared_shifts = r->shifts;
	}
	if ((c & 2) && out->balanced_step < 0) {
		out->balanced_step = r->step;
		out->balanced_shifts = r->shifts;
	}
	if ((c & 4) && out->flat_step < 0) {
		out->flat_step = r->step;
		out->flat_shifts = r->shifts;
	}
}

static int until_holds(const lbt_until *u, const lbt_summary *out, const lbt_step_record *r, int D)
{
	switch (u->kind) {
	case LBT_UNTIL_STEPS: return r->step >= u->steps;
	case LBT_UNTIL_REL: return r->rel <= u->rel;
	case LBT_UNTIL_SHARED_BALANCED: return out->shared_step >= 0 && out->balanced_step >= 0;
	case LBT_UNTIL_DONE: return r->total == 0;
	default: return (int)((criteria(r->max, r->min, D) >> u->kind) & 1);
	}
}

/* Batch means (docs/usage.md, "Measures"): consecutive steps' sqdev are
 * correlated, so its standard error comes from the means of batches of
 * consecutive steps, long enough to be nearly independent. The batches have
 * equal length, which starts at 1 and doubles (merging neighbours) whenever
 * 64 are full, so a run of any length ends with 32..63 complete batches of a
 * length near N/48 and memory stays fixed. */
typedef struct {
	double sum, cur, b[64];
	int64_t n, curn, len;
	int nb;
} batches;

static void batch_add(batches *m, double x)
{
	m->sum += x;
	m->n++;
	m->cur += x;
	if (++m->curn < m->len)
		return;
	m->b[m->nb++] = m->cur / (double)m->len;
	m->cur = 0;
	m->curn = 0;
	if (m->nb == 64) {
		for (int k = 0; k < 32; k++)
			m->b[k] = (m->b[2 * k] + m->b[2 * k + 1]) / 2;
		m->nb = 32;
		m->len *= 2;
	}
}

/* The mean over every step added, and the standard error of the batch means. */
static void batch_done(const batches *m, lbt_summary *out)
{
	out->sqdev_steps = m->n;
	out->sqdev_batches = m->nb;
	out->sqdev_mean = m->n ? m->sum / (double)m->n : 0;
	out->sqdev_se = -1;
	if (m->nb < 2)
		return;
	double mean = 0, ss = 0;
	for (int k = 0; k < m->nb; k++)
		mean += m->b[k];
	mean /= m->nb;
	for (int k = 0; k < m->nb; k++)
		ss += (m->b[k] - mean) * (m->b[k] - mean);
	out->sqdev_se = sqrt(ss / (m->nb - 1) / m->nb);
}

/* ||w - mean(w)||^2 of the method's load field. */
static double sqdev(const lbt_state *st)
{
	lbt_stats s;
	lbt_field_stats(&st->grid, lbt_grid_field(&st->grid, st->method->load == LBT_LOAD_REAL ? "real" : "load"),
	                st->threads, &s);
	return s.stddev * s.stddev * (double)lbt_shape_pes(&st->grid.whole);
}

/* The same from the sum of squares the workload's phase gave, and the exact total. */
static double sqdev_known(const lbt_work_counts *w, int64_t total, int64_t P)
{
	double s = lbt_int_stddev(w->sq_hi, w->sq_lo, total, P);
	return s * s * (double)P;
}

/* With a field "speed": the relative loads' extremes, and the first step they were speed-balanced. k: the
 * step's counts where nothing changed the grid after the method's step (NULL: step 0, or a workload settled):
 * where its kernel measured the loads' extremes and they are the relative loads' (lbt_rel_load_known), the
 * grid is not read again. */
static int note_speed(const lbt_state *st, const lbt_counts *k, lbt_summary *out, int64_t step, lbt_err *e)
{
	if (!lbt_grid_field(&st->grid, "speed"))
		return LBT_OK;
	double *hi = &out->rel_load_max, *lo = &out->rel_load_min, *bound = &out->rel_load_bound;
	if (!(k && k->has_stats && lbt_rel_load_known(st, k, hi, lo, bound)) && lbt_rel_load_stats(st, hi, lo, bound))
		return lbt_errf(e, LBT_ENOMEM, "no memory for the relative loads");
	if (out->speed_balanced_step < 0 && out->rel_load_max - out->rel_load_min <= out->rel_load_bound)
		out->speed_balanced_step = step;
	return LBT_OK;
}

/* The workload's workspace (a parsed spec's open_spec, else open); NULL:
 * none. On a cut torus every rank opens it, or none. */
static int open_workload(const lbt_workload *wl, lbt_state *st, void **wws, lbt_err *e)
{
	int status = LBT_OK;
	if (wl && wl->open_spec)
		status = wl->open_spec(wws, wl, st, e);
	else if (wl && wl->open)
		status = wl->open(wws, st, e);
	if (wl && st->grid.cut) {
		int all = lbt_comm_agree(status, e); /* the lowest failing rank's error */
		if (all && !status) { /* this rank opened it, another failed: close it again */
			if (wl->close)
				wl->close(*wws);
			*wws = NULL;
		}
		status = all;
	}
	return status;
}

/* --bench: only the method's steps (after the workload's phase, if any),
 * timed; an interrupt stops it after the current step. */
static int run_bare(lbt_state *st, const lbt_run_opts *o, lbt_summary *out, lbt_err *e)
{
	const int64_t su = lbt_shape_pes(&st->grid.whole) * lbt_shape_active_dims(&st->grid.whole);
	const int real = st->method->load == LBT_LOAD_REAL;
	const lbt_workload *wl = o->workload && o->workload->phase ? o->workload : NULL;
	void *wws = NULL;
	int status = open_workload(wl, st, &wws, e);
	if (status)
		return status;
	double t0 = lbt_seconds();
	int64_t done = 0;
	for (; done < o->until.steps && !status; done++) {
		int interrupted = o->interrupt && *o->interrupt;
		if (st->grid.cut && o->interrupt) /* every rank stops at the same step, and knows the signal */
			interrupted = lbt_comm_stop(o->interrupt, 0);
		if (interrupted)
			break;
		lbt_work_counts w = {0};
		if (wl && (status = wl->phase(wws, st, st->step, st->seed, &w, e)))
			break;
		out->generated += w.generated;
		out->completed += w.completed;
		lbt_counts k = {0};
		st->method->step(st, &k);
		st->step++;
		if (st->grid.cut)
			lbt_cut_counts(st->grid.cut, &k, real);
		if (k.nomem)
			status = lbt_errf(e, LBT_ENOMEM, "%s: no memory for a step's scratch", st->method->name);
		else if (wl && wl->settle)
			status = wl->settle(wws, st, e);
	}
	out->seconds = lbt_seconds() - t0;
	if (wl && wl->close)
		wl->close(wws);
	if (status)
		return status;
	out->steps = done;
	out->site_updates = su * done;
	out->reached = done == o->until.steps;
	out->stop = out->reached ? LBT_STOP_UNTIL : LBT_STOP_INTERRUPTED;
	return LBT_OK;
}

/* One run of lbt_run: its options, what it keeps between steps, and the
 * observers' state (--verify's reference, the cycle detector, the batch
 * means of sqdev). */
enum { BATCH = 64 };
_Static_assert(BATCH <= LBT_CUT_BATCH, "a call's steps on a cut torus are reduced at once (lbt_cut_counts_steps)");
typedef struct {
	lbt_state *st;
	const lbt_run_opts *o;
	lbt_summary *out;
	lbt_err *e;
	const lbt_workload *wl;
	void *wws;
	int D, real, full, closed, watch, batch, cap;
	int64_t P, N;
	lbt_step_record r;
	int64_t total, expect; /* integer loads: the exact total, and what it must be after this step */
	double rexpect;        /* real-valued loads: the same to within rounding */
	double rvolume;        /* real-valued loads: |initial total| + every step's |generated| + |completed| */
	double stddev0;
	int64_t shifts, moved_total; /* integer methods' counters, exact */
	lbt_counts pend[BATCH];      /* steps done by the last call of steps() ... */
	int npend, ipend;            /* ... how many, and taken from it so far */
	batches bm;
	lbt_cycle cyc;
	lbt_state ref;
	lbt_kernels scalar;
	int ref_open;
} run_loop;

/* The cycle detector, --verify's reference and the workload, as far as
 * they are open. */
static void close_opened(run_loop *l)
{
	if (l->watch)
		lbt_cycle_close(&l->cyc);
	if (l->ref_open) {
		lbt_method_close(&l->ref);
		lbt_grid_free(&l->ref.grid);
	}
	if (l->wl && l->wl->close)
		l->wl->close(l->wws);
}

/* Open: the workload (it may place the first tasks, a tree's roots), step
 * 0's record and its checks, then the observers: --verify's reference and
 * the cycle detector. On failure everything opened is closed again. */
static int loop_open(run_loop *l)
{
	lbt_state *st = l->st;
	const lbt_run_opts *o = l->o;
	lbt_summary *out = l->out;
	int status = open_workload(l->wl, st, &l->wws, l->e);
	if (status)
		return status;
	l->r.real = l->real;
	measure(st, &l->r, 0, &l->total);
	if ((status = lbt_total_check(st->method, &st->grid.whole, l->total, l->e)) ||
	    (status = note_speed(st, NULL, out, 0, l->e)) ||
	    (o->verify && (status = open_reference(&l->ref, st, &l->scalar, l->e))))
		goto fail;
	l->ref_open = o->verify;
	l->bm = (batches){.len = 1};
	if (l->wl)
		l->r.sqdev = l->r.stddev * l->r.stddev * (double)l->P;
	l->watch = l->closed && o->detect_cycles && o->until.kind != LBT_UNTIL_STEPS;
	if (l->watch && (status = lbt_cycle_open(&l->cyc, st, l->r.max, l->r.min, l->e)))
		goto fail;
	l->stddev0 = l->r.stddev;
	l->r.rel = l->stddev0 > 0 ? 1 : 0;
	out->total = l->r.total;
	out->initial_max = l->r.max;
	out->initial_min = l->r.min;
	out->initial_stddev = l->stddev0;
	l->expect = l->total;
	l->rexpect = l->r.total;
	l->rvolume = fabs(l->r.total);
	return LBT_OK;
fail:
	l->watch = 0; /* the detector is the last opened: it failed, or was not asked for */
	close_opened(l);
	return status;
}

/* Before a step: the criteria on the state the record describes, and
 * whether the run ends here (1). */
static int loop_ends(run_loop *l)
{
	const lbt_run_opts *o = l->o;
	lbt_summary *out = l->out;
	const lbt_step_record *r = &l->r;
	note_criteria(out, r, l->D);
	if (o->until.kind == LBT_UNTIL_REL && r->rel <= o->until.rel && out->rel_step < 0)
		out->rel_step = r->step;
	if (until_holds(&o->until, out, r, l->D)) {
		out->reached = 1;
		out->stop = LBT_STOP_UNTIL;
		return 1;
	}
	if (r->step >= o->max_steps || (l->N > 0 && r->step >= l->N))
		return 1;
	int interrupted = l->ipend == l->npend && o->interrupt && *o->interrupt; /* the grid is at this step */
	if (l->st->grid.cut && o->interrupt) /* every rank stops at the same step, and knows the signal */
		interrupted = lbt_comm_stop(interrupted ? o->interrupt : NULL, 0);
	if (interrupted)
		out->stop = LBT_STOP_INTERRUPTED;
	return interrupted;
}

/* The workload's phase: generation and completion, and what the method's
 * step receives (Cybenko's w(t)) for the batch means. */
static int workload_phase(run_loop *l)
{
	lbt_state *st = l->st;
	lbt_summary *out = l->out;
	lbt_work_counts w = {.shift = l->real ? l->rexpect / (double)l->P : 0};
	int status;
	if (l->wl && (status = l->wl->phase(l->wws, st, st->step, st->seed, &w, l->e)))
		return status;
	out->generated += w.generated;
	out->completed += w.completed;
	out->idle_capacity += w.idle_capacity;
	l->expect += (int64_t)w.generated - (int64_t)w.completed;
	l->rexpect += w.generated - w.completed;
	l->rvolume += fabs(w.generated) + fabs(w.completed);
	if (l->wl) {
		l->r.generated = w.generated;
		l->r.completed = w.completed;
		l->r.idle_capacity = w.idle_capacity;
		l->r.sqdev = w.sq_known    ? sqdev_known(&w, l->expect, l->P)
		             : w.dev_known ? fmax(0, w.sq - w.dev * w.dev / (double)l->P)
		                           : sqdev(st);
		if (l->r.step + 1 > l->o->warmup)
			batch_add(&l->bm, l->r.sqdev);
		if (l->ref_open)
			lbt_grid_copy(&l->ref.grid, &st->grid); /* the reference steps from the same input */
	}
	return LBT_OK;
}

/* The method's step: one, or the next of several a call (batch: only where
 * no one reads the grid between them; a call ends where the run may end,
 * and where the cycle detector reads the grid). */
static int method_step(run_loop *l, lbt_counts *k)
{
	lbt_state *st = l->st;
	const lbt_run_opts *o = l->o;
	lbt_summary *out = l->out;
	const lbt_until_kind uk = o->until.kind;
	*k = (lbt_counts){0};
	if (l->ipend < l->npend)
		*k = l->pend[l->ipend++];
	else if (l->batch) {
		int64_t left = (uk == LBT_UNTIL_STEPS && o->until.steps < o->max_steps ? o->until.steps : o->max_steps) -
		               l->r.step;
		lbt_steps_stop stop = {.ldiff = uk == LBT_UNTIL_BALANCED ? l->D : uk == LBT_UNTIL_FLAT ? 1 : -1,
		                       .shared = uk == LBT_UNTIL_SHARED, .max = 0, .min = 1};
		if (l->watch) { /* the detector takes a checkpoint at step chk_step + power and samples
		                   the grid after a step with the checkpoint's extremes */
			const int64_t due = l->cyc.chk_step + l->cyc.power - l->r.step;
			left = due < left ? due : left;
			stop.max = (int32_t)l->cyc.max;
			stop.min = (int32_t)l->cyc.min;
		}
		l->npend = st->method->steps(st, left < l->cap ? (int)left : l->cap, (int32_t)l->r.max, &stop, l->pend);
		if (st->grid.cut) /* the call's steps reduced at once, each as one process counts it */
			lbt_cut_counts_steps(st->grid.cut, l->pend, l->npend, l->real);
		l->ipend = 1;
		*k = l->pend[0];
	} else {
		st->method->step(st, k);
		if (st->grid.cut)
			lbt_cut_counts(st->grid.cut, k, l->real);
	}
	if (k->nomem)
		return lbt_errf(l->e, LBT_ENOMEM, "%s: no memory for a step's scratch (ISA %s)", st->method->name,
		                st->kern->isa);
	st->step++;
	out->app_time += k->app_time;
	out->lb_time += k->lb_time;
	out->links_exchanged += k->links_exchanged;
	out->shaken += k->shaken;
	return LBT_OK;
}

/* The reductions into the record (from the kernel when it measured them,
 * else from the grid), and the invariant: total after = total before +
 * generated - completed. */
static int reduce(run_loop *l, const lbt_counts *k)
{
	lbt_state *st = l->st;
	lbt_step_record *r = &l->r;
	r->step++;
	l->shifts += k->shifts;
	l->moved_total += k->moved;
	r->shifts = l->real ? r->shifts + k->real_shifts : (double)l->shifts;
	r->moved = l->real ? k->real_moved : (double)k->moved;
	r->moved_total = l->real ? r->moved_total + k->real_moved : (double)l->moved_total;
	r->link_max = k->link_max;
	if (k->has_stats && !l->full && !(l->real && st->grid.cut)) { /* a cut view's real sums: not reduced */
		r->max = l->real ? k->real_max : k->max;
		r->min = l->real ? k->real_min : k->min;
		r->total = l->real ? k->real_total : (double)k->total;
		l->total = l->real ? llround(k->real_total) : k->total;
	} else
		measure(st, r, l->stddev0, &l->total);
	if (!l->real && l->total != l->expect)
		return lbt_errf(l->e, LBT_EINTERNAL, "%s lost load at step %lld: total %lld became %lld (ISA %s)",
		                st->method->name, (long long)r->step, (long long)l->expect, (long long)l->total,
		                st->kern->isa);
	if (l->real && !(fabs(r->total - l->rexpect) <= LBT_REAL_TOTAL_TOL * fmax(1, l->rvolume)))
		return lbt_errf(l->e, LBT_EINTERNAL, "%s lost load at step %lld: total %.17g became %.17g (ISA %s)",
		                st->method->name, (long long)r->step, l->rexpect, r->total, st->kern->isa);
	return LBT_OK;
}

/* After a step: the workload settles, then the observers in order — the
 * speeds' balance, --verify, the caller's on_step — and the stops the state
 * decides (the method's own detection, a fixed point, a cycle). Returns the
 * status; *stop: the run ends here. */
static int observe(run_loop *l, const lbt_counts *k, int *stop)
{
	lbt_state *st = l->st;
	const lbt_run_opts *o = l->o;
	lbt_summary *out = l->out;
	int status;
	if (l->wl && l->wl->settle && (status = l->wl->settle(l->wws, st, l->e)))
		return status;
	if ((status = note_speed(st, l->wl && l->wl->settle ? NULL : k, out, l->r.step, l->e)))
		return status;
	if (l->ref_open && (status = verify_step(&l->ref, st, k, l->r.step, l->e)))
		return status;
	out->site_updates += l->P * l->D;
	if (o->on_step)
		o->on_step(o->ctx, &l->r);
	*stop = 1;
	if (k->detected) {
		out->stop = LBT_STOP_DETECTED; /* the method's own termination (Jeannot and Vernier 2006, §3.3) */
		out->detected_step = l->r.step;
	} else if (l->closed && k->moved == 0 && k->real_moved == 0 && o->until.kind != LBT_UNTIL_STEPS)
		out->stop = LBT_STOP_STALLED; /* the next step would see the same state and do the same: nothing */
	else if (l->watch && (out->period = lbt_cycle_check(&l->cyc, st, l->r.step, l->r.max, l->r.min)))
		out->stop = LBT_STOP_CYCLE; /* this state was judged already, period steps ago */
	else
		*stop = 0;
	return LBT_OK;
}

/* The summary's final fields into out, which holds the running ones: the
 * spread once more where the steps took the kernel's extremes, the batch
 * means, the tree's levels, the application's time after the balancing
 * stopped. Reads the loop and changes nothing in it, so that a loop kept
 * open (lbt_loop_summary) can be summed up after every call. */
static void loop_summary(const run_loop *l, int status, lbt_summary *out)
{
	const lbt_state *st = l->st;
	lbt_step_record r = l->r;
	out->steps = r.step;
	out->shifts = r.shifts;
	out->moved = r.moved_total;
	out->final_max = r.max;
	out->final_min = r.min;
	int64_t total;
	if (!status && !l->full) /* the steps took the kernel's extremes and total: the spread once, at the end */
		measure(st, &r, l->stddev0, &total);
	out->final_stddev = status ? -1 : r.stddev;
	out->final_rel = status ? -1 : r.rel;
	if (l->wl) {
		batch_done(&l->bm, out);
		if (l->wl->levels)
			out->tree_levels = l->wl->levels(l->wws);
	}
	if (!status && l->N > 0) { /* the iterations after balancing stopped run on the final loads */
		out->app_time += (double)(l->N - r.step) * lbt_app_iteration(st, NULL, NULL);
		out->seq_time = lbt_app_sequential(st, l->N);
		out->speedup = out->seq_time / out->app_time;
	}
}

/* Refuse options lbt_run cannot run, before anything is allocated. */
static int run_check(const lbt_state *st, const lbt_run_opts *o, lbt_err *e)
{
	if (!o || o->version != LBT_RUN_OPTS_VERSION)
		return lbt_errf(e, LBT_EINVAL, "run options not made by lbt_run_opts_default()");
	if (o->max_steps < 0 || (o->until.kind == LBT_UNTIL_STEPS && o->until.steps < 0))
		return lbt_errf(e, LBT_EINVAL, "a run needs max_steps >= 0 and steps:N with N >= 0");
	if (o->bare)
		return LBT_OK;
	if (o->app_iterations < 0 || (o->app_iterations > 0 && !(st->method->flags & LBT_M_SPEEDS)))
		return lbt_errf(e, LBT_EINVAL, "an application (iterations:%lld) needs iterations >= 0 and a method that "
		                "models its exchanges (fos-speed, fos-speed-int), not %s", (long long)o->app_iterations,
		                st->method->name);
	return LBT_OK;
}

/* What a run keeps from its options, and the summary's never-reached marks. */
static void loop_init(run_loop *l, lbt_state *st, const lbt_run_opts *o, lbt_summary *out, lbt_err *e)
{
	memset(out, 0, sizeof *out);
	*l = (run_loop){.st = st, .o = o, .out = out, .e = e, .N = o->app_iterations};
	st->app = l->N > 0; /* the application's times are read: a speed method forms them */
	l->wl = o->workload && o->workload->phase ? o->workload : NULL;
	l->D = lbt_shape_active_dims(&st->grid.whole);
	l->P = lbt_shape_pes(&st->grid.whole);
	l->real = st->method->load == LBT_LOAD_REAL;
	l->full = o->full_stats || o->until.kind == LBT_UNTIL_REL;
	/* The state alone decides the future: a step that moves nothing, or a recurring state, ends the run. */
	l->closed = !l->wl && (st->method->flags & LBT_M_DETERMINISTIC);
	const lbt_until_kind uk = o->until.kind;
	l->batch = o->batch && st->method->steps && !l->wl && !o->verify && !l->full && l->N == 0 &&
	           (uk == LBT_UNTIL_STEPS || uk == LBT_UNTIL_SHARED || uk == LBT_UNTIL_BALANCED || uk == LBT_UNTIL_FLAT);
	if (st->grid.cut) { /* every rank's calls the same: rank 0 alone may watch each step (a progress line) */
		int64_t watching = !l->batch;
		lbt_comm_sum_i64(&watching, 1);
		l->batch = watching == 0;
	}
	/* at most 64 steps and about 2^28 site updates a call, an interrupt
	 * waiting for the call; 2^31 for the Liquid model on a 2-D torus of one
	 * process, whose calls of several steps keep the loads in bytes: 64
	 * steps of 4096x4096 in about 0.4 s of a core, packing the grid into
	 * the byte copy and widening it back once a call instead of every 8 (a
	 * mesh keeps 2^28: a call of n steps takes its bytes only for loads up
	 * to 127 - 2n); 2^32 for it at three axes and more on one process,
	 * whose calls of several steps keep the grid in the dense copy (bytes
	 * or int16; lm_dense.h; elsewhere a call there is one step): 64 steps
	 * of 64^4 or 42 of 16^6, packing and widening the grid once in those
	 * steps (at 16^6, 2026-11-28, Zen 5: the packing and widening of 64 MiB
	 * of rows of 16 PEs took about as long as 7 to 11 byte steps, in a call of
	 * 10 steps at 2^30) */
	const lbt_shape *w = &st->grid.whole;
	const int big = (st->method->kernels & LBT_K(LM_STEPS)) && l->D == 2 && w->dims == 2 && w->bnd[0] == LBT_TORUS &&
	                w->bnd[1] == LBT_TORUS && !st->grid.cut;
	const int dense = (st->method->kernels & LBT_K(LM_STEPS)) && l->D >= 3 && !st->grid.cut;
	const int64_t per_call = ((int64_t)1 << (big ? 31 : dense ? 32 : 28)) / (l->P * (l->D > 0 ? l->D : 1));
	l->cap = per_call < 2 ? 2 : per_call < BATCH ? (int)per_call : BATCH;
	out->shared_step = out->balanced_step = out->flat_step = out->rel_step = -1;
	out->speed_balanced_step = out->detected_step = -1;
	out->shared_shifts = out->balanced_shifts = out->flat_shifts = -1;
	out->real = l->real;
	out->tree_levels = -1;
}

/* Open: the loop, and the caller's on_step for step 0. */
static int loop_start(run_loop *l)
{
	int status = loop_open(l);
	if (!status && l->o->on_step)
		l->o->on_step(l->o->ctx, &l->r);
	return status;
}

/* Steps until the run ends; *ended: by the state itself (the method's
 * detection, a fixed point, a cycle), which no later call undoes. */
static int loop_steps(run_loop *l, int *ended)
{
	const double t0 = lbt_seconds();
	l->out->stop = LBT_STOP_MAX_STEPS;
	l->out->reached = 0;
	int stop = 0, status = LBT_OK;
	while (!stop && !loop_ends(l)) {
		lbt_counts k;
		if ((status = workload_phase(l)) || (status = method_step(l, &k)) || (status = reduce(l, &k)) ||
		    (status = observe(l, &k, &stop)))
			break;
	}
	l->out->seconds += lbt_seconds() - t0;
	*ended = stop;
	return status;
}

int lbt_run(lbt_state *st, const lbt_run_opts *o, lbt_summary *out, lbt_err *e)
{
	memset(out, 0, sizeof *out);
	int status = run_check(st, o, e);
	if (status)
		return status;
	st->app = 0; /* bare timing reads no application's times */
	if (o->bare)
		return run_bare(st, o, out, e);
	run_loop *l = calloc(1, sizeof *l);
	if (!l)
		return lbt_errf(e, LBT_ENOMEM, "no memory for a run");
	loop_init(l, st, o, out, e);
	if (!(status = loop_start(l))) {
		int ended;
		status = loop_steps(l, &ended);
		loop_summary(l, status, out);
		close_opened(l);
	}
	free(l);
	return status;
}

/* ---- A run kept open between calls (lbt_sim_step) ------------------------ */

struct lbt_loop {
	run_loop l;
	lbt_run_opts o;  /* the loop's own: until steps:N grows by each call */
	lbt_summary sum; /* the running summary */
	int ended, failed;
};

int lbt_loop_open(lbt_loop **lp, lbt_state *st, const lbt_run_opts *o, lbt_err *e)
{
	*lp = NULL;
	int status = run_check(st, o, e);
	if (status)
		return status;
	if (o->bare || o->until.kind != LBT_UNTIL_STEPS || o->app_iterations > 0)
		return lbt_errf(e, LBT_EINVAL, "a run kept open takes its steps N at a time: until steps:N, without "
		                "bare timing or an application");
	lbt_loop *p = calloc(1, sizeof *p);
	if (!p)
		return lbt_errf(e, LBT_ENOMEM, "no memory for a run");
	p->o = *o;
	p->o.until.steps = 0;
	loop_init(&p->l, st, &p->o, &p->sum, e);
	if ((status = loop_start(&p->l))) {
		free(p);
		return status;
	}
	*lp = p;
	return LBT_OK;
}

int lbt_loop_steps(lbt_loop *p, int64_t n, lbt_err *e)
{
	if (p->failed)
		return lbt_errf(e, LBT_EINVAL, "this run failed at step %lld: it takes no further steps",
		                (long long)p->l.r.step);
	if (n < 0 || n > INT64_MAX - p->o.until.steps)
		return lbt_errf(e, LBT_EINVAL, "a run takes n >= 0 more steps, not %lld", (long long)n);
	p->o.until.steps += n;
	if (p->ended) /* the state ended it (a detection, a fixed point, a cycle): as one run, it stays ended */
		return LBT_OK;
	p->l.e = e;
	int status = loop_steps(&p->l, &p->ended);
	p->failed = status != LBT_OK;
	return status;
}

void lbt_loop_summary(const lbt_loop *p, lbt_run_opts *o, lbt_summary *out)
{
	*o = p->o;
	*out = p->sum;
	loop_summary(&p->l, p->failed, out);
}

void lbt_loop_close(lbt_loop *p)
{
	if (!p)
		return;
	close_opened(&p->l);
	free(p);
}

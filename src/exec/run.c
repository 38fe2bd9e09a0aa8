/* run.c — the run driver: step a method until a criterion holds.
 *
 * Invariants checked on every step: the total load never changes (every
 * method here is conservative), and with `verify` the state equals what the
 * scalar reference makes of the same input, PE for PE. Criteria are judged on
 * the state after each full step, and on the initial state (step 0). */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <math.h>

#include "lbtorus/run.h"

int lbt_until_parse(lbt_until *u, const char *text, lbt_err *e)
{
	memset(u, 0, sizeof *u);
	if (!strcmp(text, "shared")) u->kind = LBT_UNTIL_SHARED;
	else if (!strcmp(text, "balanced")) u->kind = LBT_UNTIL_BALANCED;
	else if (!strcmp(text, "flat")) u->kind = LBT_UNTIL_FLAT;
	else if (!strncmp(text, "steps:", 6)) {
		char *end;
		long long n = strtoll(text + 6, &end, 10);
		if (end == text + 6 || *end || n < 0)
			return lbt_errf(e, LBT_EINVAL, "criterion '%s': write steps:N with N >= 0", text);
		u->kind = LBT_UNTIL_STEPS;
		u->steps = n;
	} else if (!strncmp(text, "rel:", 4)) {
		char *end;
		double x = strtod(text + 4, &end);
		if (end == text + 4 || *end || !(x > 0 && x < 1))
			return lbt_errf(e, LBT_EINVAL, "criterion '%s': write rel:X with 0 < X < 1, e.g. rel:1e-6", text);
		u->kind = LBT_UNTIL_REL;
		u->rel = x;
	} else
		return lbt_errf(e, LBT_EINVAL, "unknown criterion '%s': use shared, balanced, flat, steps:N or rel:X", text);
	return LBT_OK;
}

const char *lbt_until_name(lbt_until_kind k)
{
	static const char *const n[] = {"shared", "balanced", "flat", "steps", "rel"};
	return n[k];
}

int64_t lbt_bound_dkl(const lbt_shape *s, int64_t ldiff)
{
	return (int64_t)lbt_shape_active_dims(s) * lbt_shape_kmax(s) * ldiff;
}

int64_t lbt_bound_lower_steps(const lbt_shape *s, int32_t max, int64_t total)
{ /* ceil((max - total/P) / D) = ceil((max*P - total) / (P*D)), exactly */
	__int128 P = lbt_shape_pes(s), D = lbt_shape_active_dims(s);
	__int128 num = (__int128)max * P - total, den = P * D;
	if (D == 0 || num <= 0)
		return 0;
	return (int64_t)((num + den - 1) / den);
}

int64_t lbt_bound_lower_balanced(const lbt_shape *s, int32_t max, int64_t total)
{
	int64_t P = lbt_shape_pes(s), D = lbt_shape_active_dims(s);
	int64_t num = (int64_t)max - total / P - D;
	return D == 0 || num <= 0 ? 0 : (num + D - 1) / D;
}

double lbt_seconds(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Which criteria hold: bit 0 shared, 1 balanced, 2 flat (exact for int32
 * values, which doubles hold exactly). */
static unsigned criteria(double max, double min, int D)
{
	double diff = max - min;
	return (min > 0) | (diff <= D) << 1 | (diff <= 1) << 2;
}

/* Fill r's extremes, total and spread from the grid (the real field for a
 * real-valued method). */
static void measure(const lbt_state *st, lbt_step_record *r, double stddev0)
{
	if (st->method->real) {
		lbt_rstats rs;
		lbt_grid_rstats(&st->grid, &rs);
		r->rmax = rs.max;
		r->rmin = rs.min;
		r->rtotal = rs.total;
		r->stddev = rs.stddev;
		r->max = (int32_t)fmin(fmax(floor(rs.max), INT32_MIN), INT32_MAX);
		r->min = (int32_t)fmin(fmax(floor(rs.min), INT32_MIN), INT32_MAX);
		r->total = (int64_t)llround(rs.total);
		r->idle = rs.idle;
	} else {
		lbt_stats sts;
		lbt_grid_stats(&st->grid, &sts);
		r->max = sts.max;
		r->min = sts.min;
		r->total = sts.total;
		r->idle = sts.idle;
		r->stddev = sts.stddev;
		r->rmax = r->max;
		r->rmin = r->min;
		r->rtotal = (double)r->total;
	}
	r->rel = stddev0 > 0 ? r->stddev / stddev0 : 0;
}

int lbt_run(lbt_state *st, const lbt_run_opts *o, lbt_summary *out, lbt_err *e)
{
	const lbt_shape *s = &st->grid.shape;
	const int D = lbt_shape_active_dims(s);
	const int64_t P = lbt_shape_pes(s);
	const int real = st->method->real;
	const int want_rel = o->until.kind == LBT_UNTIL_REL;
	const int full = o->full_stats || want_rel || real;
	memset(out, 0, sizeof *out);
	out->shared_step = out->balanced_step = out->flat_step = out->rel_step = -1;
	out->shared_shifts = out->balanced_shifts = out->flat_shifts = -1;
	out->real = real;

	lbt_state ref = *st; /* --verify: the same method on the scalar reference */
	lbt_kernels scalar;
	int status = LBT_OK;
	if (o->verify) {
		if ((status = lbt_kernels_select(&scalar, "scalar", e)))
			return status;
		if ((status = lbt_grid_init(&ref.grid, s, e)))
			return status;
		if (real && (status = lbt_grid_add_real(&ref.grid, e))) {
			lbt_grid_free(&ref.grid);
			return status;
		}
		lbt_grid_copy(&ref.grid, &st->grid);
		ref.kern = &scalar;
	}

	lbt_step_record r = {0};
	r.real = real;
	measure(st, &r, 0);
	int torus = 1;
	for (int d = 0; d < s->dims; d++)
		torus &= s->bnd[d] == LBT_TORUS || s->ext[d] == 1;
	int bounded = st->method->bounded == LBT_BOUNDED || (st->method->bounded == LBT_BOUNDED_TORUS && torus);
	if (!real && !bounded && r.total > INT32_MAX) {
		if (o->verify)
			lbt_grid_free(&ref.grid);
		return lbt_errf(e, LBT_ERANGE, "total load %lld could pile onto one PE beyond int32 with %s%s; "
		                "use a total <= %d", (long long)r.total, st->method->name,
		                st->method->bounded == LBT_BOUNDED_TORUS ? " on a mesh" : "", INT32_MAX);
	}
	const double stddev0 = r.stddev;
	r.rel = stddev0 > 0 ? 1 : 0;
	out->total = r.total;
	out->rtotal = r.rtotal;
	out->initial_max = r.max;
	out->initial_min = r.min;
	out->rinitial_max = r.rmax;
	out->rinitial_min = r.rmin;
	out->initial_stddev = stddev0;
	if (o->on_step)
		o->on_step(o->ctx, &r);

	double t0 = lbt_seconds();
	for (;;) {
		unsigned c = criteria(r.rmax, r.rmin, D);
		if ((c & 1) && out->shared_step < 0) {
			out->shared_step = r.step;
			out->shared_shifts = r.shifts;
			out->shared_rshifts = r.rshifts;
		}
		if ((c & 2) && out->balanced_step < 0) {
			out->balanced_step = r.step;
			out->balanced_shifts = r.shifts;
			out->balanced_rshifts = r.rshifts;
		}
		if ((c & 4) && out->flat_step < 0) {
			out->flat_step = r.step;
			out->flat_shifts = r.shifts;
			out->flat_rshifts = r.rshifts;
		}
		int rel_ok = want_rel && r.rel <= o->until.rel;
		if (rel_ok && out->rel_step < 0)
			out->rel_step = r.step;
		int done = o->until.kind == LBT_UNTIL_STEPS ? r.step >= o->until.steps
		         : want_rel ? rel_ok : (int)((c >> o->until.kind) & 1);
		if (done) {
			out->reached = 1;
			break;
		}
		if (r.step >= o->max_steps)
			break;

		lbt_counts k = {0};
		st->method->step(st, &k);
		st->step++;
		r.step++;
		r.shifts += k.shifts;
		r.moved = k.moved;
		r.moved_total += k.moved;
		r.rshifts += real ? k.real_shifts : (double)k.shifts;
		r.rmoved = real ? k.real_moved : (double)k.moved;
		r.rmoved_total += r.rmoved;
		r.link_max = k.link_max;
		if (k.has_stats && !full) {
			r.max = k.max;
			r.min = k.min;
			r.total = k.total;
			r.rmax = r.max;
			r.rmin = r.min;
			r.rtotal = (double)r.total;
		} else
			measure(st, &r, stddev0);
		if (!real && r.total != out->total) {
			status = lbt_errf(e, LBT_EINTERNAL, "%s lost load at step %lld: total %lld became %lld (ISA %s)",
			                  st->method->name, (long long)r.step, (long long)out->total,
			                  (long long)r.total, st->kern->isa);
			break;
		}
		if (real && !(fabs(r.rtotal - out->rtotal) <= LBT_REAL_TOTAL_TOL * fmax(1, fabs(out->rtotal)))) {
			status = lbt_errf(e, LBT_EINTERNAL, "%s lost load at step %lld: total %.17g became %.17g (ISA %s)",
			                  st->method->name, (long long)r.step, out->rtotal, r.rtotal, st->kern->isa);
			break;
		}
		if (o->verify) {
			lbt_counts kr = {0};
			ref.method->step(&ref, &kr);
			ref.step++;
			int64_t at = lbt_grid_first_diff(&st->grid, &ref.grid);
			if (at >= 0 || kr.moved != k.moved || kr.shifts != k.shifts ||
			    memcmp(&kr.real_moved, &k.real_moved, sizeof k.real_moved) ||
			    memcmp(&kr.real_shifts, &k.real_shifts, sizeof k.real_shifts)) {
				char where[160] = "in its counters";
				if (at >= 0)
					lbt_shape_coords(s, at, where + snprintf(where, sizeof where, "at PE "), sizeof where - 6);
				status = lbt_errf(e, LBT_EINTERNAL, "verify: %s on ISA %s differs from the scalar reference at step %lld, %s",
				                  st->method->name, st->kern->isa, (long long)r.step, where);
				break;
			}
		}
		out->site_updates += P * D;
		if (o->on_step)
			o->on_step(o->ctx, &r);
		if (k.moved == 0 && k.real_moved == 0 && o->until.kind != LBT_UNTIL_STEPS) {
			out->stalled = 1; /* the next step would see the same state and do the same: nothing */
			break;
		}
	}
	out->seconds = lbt_seconds() - t0;
	out->steps = r.step;
	out->shifts = r.shifts;
	out->moved = r.moved_total;
	out->final_max = r.max;
	out->final_min = r.min;
	out->rfinal_max = r.rmax;
	out->rfinal_min = r.rmin;
	out->rshifts = r.rshifts;
	out->rmoved = r.rmoved_total;
	out->final_stddev = full ? r.stddev : -1;
	out->final_rel = full ? r.rel : -1;
	if (o->verify)
		lbt_grid_free(&ref.grid);
	return status;
}

/* sim.c — the public API's run (lbtorus.h): an opaque lbt_sim around the
 * engine's lbt_state, opened from an lbt_config as `lbtorus run` opens one
 * from its options, run by lbt_run, read back as a struct, as JSON and as
 * NumPy-compatible arrays. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lbtorus/comm.h"
#include "lbtorus/number.h"
#include "sim.h"

#define CONFIG_VERSION 0x4c424331u /* "LBC1": made by lbt_config_default */

_Static_assert(sizeof ((lbt_config *)0)->param / sizeof ((lbt_config *)0)->param[0] == LBT_MAX_PARAMS,
               "lbt_config.param holds as many parameters as lbt_setup.params");
_Static_assert(sizeof ((lbt_array *)0)->shape / sizeof (int64_t) == LBT_MAXD, "lbt_array holds every shape");

lbt_config lbt_config_default(void)
{
	return (lbt_config){.version = CONFIG_VERSION, .seed = 1, .max_steps = 1000000};
}

int lbt_config_param(lbt_config *c, const char *name, const char *value, lbt_err *e)
{
	if (!c || !name || !value)
		return lbt_errf(e, LBT_EINVAL, "lbt_config_param: a config, a name and a value");
	for (int i = 0; i < LBT_MAX_PARAMS; i++)
		if (!c->param[i].name) {
			c->param[i].name = name;
			c->param[i].value = value;
			return LBT_OK;
		}
	return lbt_errf(e, LBT_ERANGE, "more than %d method parameters", LBT_MAX_PARAMS);
}

/* "CMD: " before e's message (cmd "": none); returns status. */
static int err_prefix(lbt_err *e, int status, const char *cmd, const char *sep)
{
	if (e && *cmd) {
		char msg[sizeof e->msg];
		snprintf(msg, sizeof msg, "%s", e->msg);
		snprintf(e->msg, sizeof e->msg, "%s%s%.480s", cmd, sep, msg);
	}
	return status;
}

/* The engine's set-up, workload and run options from c, checked as
 * `lbtorus run` checks its options, before anything is allocated. */
static int translate(const lbt_config *c, lbt_setup *set, lbt_workload *wl, lbt_run_opts *ro, lbt_err *e)
{
	if (!c || c->version != CONFIG_VERSION)
		return lbt_errf(e, LBT_EINVAL, "configuration not made by lbt_config_default()");
	*set = (lbt_setup){.shape = c->shape, .boundary = c->boundary, .method = c->method, .init = c->init,
	                   .isa = c->isa, .seed = c->seed, .threads = c->threads, .speeds = c->speeds,
	                   .link = c->link, .interrupt = c->interrupt, .ranks = c->ranks,
	                   .as_command = c->as_command};
	for (int i = 0; i < LBT_MAX_PARAMS && c->param[i].name; i++)
		set->params[i] = (lbt_param_arg){c->param[i].name, c->param[i].value};
	*ro = lbt_run_opts_default();
	ro->max_steps = c->max_steps;
	ro->full_stats = c->full_stats;
	ro->verify = c->verify;
	set->cut = lbt_sim_cut();
	const char *halo = getenv("LBTORUS_HALO"); /* steps between halo exchanges (lbtorus/comm.h) */
	if (set->cut && halo) {
		int64_t k;
		int st = lbt_parse_i64(halo, 1, LBT_CUT_MAX_STEPS, "LBTORUS_HALO (steps between halo exchanges)", &k, e);
		if (st)
			return st;
		set->cut = (int)k;
	}
	if (c->max_steps < 0)
		return lbt_errf(e, LBT_EINVAL, "max_steps %lld: give a number >= 0", (long long)c->max_steps);
	/* as_command "run": the words of `lbtorus run` (its options, "run: " before what it checks itself) */
	const int cli = c->as_command != NULL;
	const char *cmd = cli ? c->as_command : "", *sep = cli ? ": " : "", *dash = cli ? "--" : "";
	if (c->app && strncmp(c->app, "iterations:", 11))
		return lbt_errf(e, LBT_EINVAL, "%sapp '%s': give iterations:N with N >= 1", dash, c->app);
	int status = c->app ? lbt_parse_i64(c->app + 11, 1, INT64_MAX, cli ? "--app iterations:N" : "app iterations:N",
	                                    &ro->app_iterations, e) : LBT_OK;
	if (status)
		return status;
	const char *until = c->until ? c->until : "balanced";
	if ((status = lbt_until_parse(&ro->until, until, e)))
		return status;
	if (ro->until.kind == LBT_UNTIL_STEPS && ro->until.steps > c->max_steps)
		return lbt_errf(e, LBT_EINVAL, "%s%s%suntil %s conflicts with %smax%ssteps %lld", cmd, sep, dash, until, dash,
		                cli ? "-" : "_", (long long)c->max_steps);
	const lbt_method *m = lbt_method_find(c->method ? c->method : "lm-c5");
	if (c->workload && (status = lbt_workload_parse(wl, c->workload, m ? m->load : LBT_LOAD_INT, e)))
		return err_prefix(e, status, cmd, sep);
	lbt_shape shape;
	if (c->workload && c->shape && !lbt_shape_parse(&shape, c->shape, e) && (status = lbt_workload_fits(wl, &shape, e)))
		return err_prefix(e, status, cmd, sep);
	set->slabs = c->workload && wl->tasks; /* a search tree numbers its nodes across slabs */
	set->row_sums = c->workload && !strcmp(wl->name, "cybenko") && m && m->load == LBT_LOAD_REAL;
	if (c->workload && wl->phase) {
		ro->workload = wl;
		ro->warmup = c->warmup;
		if (wl->tasks && !set->init)
			set->init = "const:0"; /* a search starts on an empty machine */
	}
	if (!ro->workload && c->warmup)
		return lbt_errf(e, LBT_EINVAL, "%s%s%swarmup needs a %sworkload", cmd, sep, dash, dash);
	return lbt_setup_check_total(set, e);
}

int lbt_config_check(const lbt_config *c, lbt_err *e)
{
	lbt_setup set;
	lbt_workload wl;
	lbt_run_opts ro;
	return translate(c, &set, &wl, &ro, e);
}

int lbt_sim_open(lbt_sim **out, const lbt_config *c, lbt_err *e)
{
	if (!out)
		return lbt_errf(e, LBT_EINVAL, "lbt_sim_open: nowhere to put the run");
	*out = NULL;
	lbt_sim *s = calloc(1, sizeof *s);
	if (!s)
		return lbt_errf(e, LBT_ENOMEM, "no memory for a run");
	lbt_setup set;
	int status = translate(c, &set, &s->wl, &s->ro, e);
	if (lbt_sim_cut()) /* every rank opens the state (collective on a cut torus), or none */
		status = lbt_comm_agree(status, e);
	if (!status && !(s->init = strdup(set.init ? set.init : "worst:5")))
		status = lbt_errf(e, LBT_ENOMEM, "no memory for a run");
	if (!status && !(status = lbt_state_open(&s->st, &set, e))) {
		if (s->ro.workload)
			s->ro.workload = &s->wl;
		s->interrupt = c->interrupt ? c->interrupt : s->ro.interrupt; /* else lbt_interrupt_all's */
		if ((s->inputs = lbt_sim_inputs(&s->st, &set, c->until ? c->until : "balanced", &s->ro))) {
			*out = s;
			return LBT_OK;
		}
		lbt_state_close(&s->st);
		status = lbt_errf(e, LBT_ENOMEM, "no memory for a run");
	}
	free(s->init);
	free(s);
	return status;
}

void lbt_sim_close(lbt_sim *s)
{
	if (!s)
		return;
	lbt_loop_close(s->loop);
	lbt_sim_files_close(s);
	lbt_state_close(&s->st);
	free(s->init);
	free(s->inputs);
	free(s);
}

/* After every step: the caller's observer and interrupt flag may stop the run. */
static void on_step(void *ctx, const lbt_step_record *r)
{
	lbt_sim *s = ctx;
	if (s->files)
		lbt_sim_files_step(s, r);
	if (s->observe) {
		const lbt_record p = {.step = r->step, .max = r->max, .min = r->min, .total = r->total,
		                      .shifts = r->shifts, .moved = r->moved, .moved_total = r->moved_total,
		                      .link_max = r->link_max, .idle = r->idle, .stddev = r->stddev, .rel = r->rel,
		                      .generated = r->generated, .completed = r->completed,
		                      .idle_capacity = r->idle_capacity, .sqdev = r->sqdev};
		if (s->observe(s->octx, &p))
			s->halt = -1; /* a stop without a signal (lbt_comm_stop) */
	}
	if (s->interrupt && *s->interrupt)
		s->halt = *s->interrupt; /* the signal's number, for the ranks' agreement on a cut torus */
}

/* The run's hooks: the caller's observer (NULL: none) and interrupt flag. */
static void hook(lbt_sim *s, lbt_run_opts *ro, lbt_observer observe, void *ctx)
{
	s->observe = observe;
	s->octx = ctx;
	s->halt = 0;
	ro->on_step = on_step;
	ro->ctx = s;
	ro->interrupt = &s->halt;
	ro->batch = observe == NULL && lbt_sim_files_batch(s); /* an observer stops the run at the very step it says */
}

/* The run lbt_sim_step keeps open ends: the next run or steps start afresh
 * from the state it left. */
static void end_steps(lbt_sim *s)
{
	lbt_loop_close(s->loop);
	s->loop = NULL;
}

int lbt_sim_run(lbt_sim *s, lbt_observer observe, void *ctx, lbt_err *e)
{
	if (!s)
		return lbt_errf(e, LBT_EINVAL, "lbt_sim_run: no run");
	end_steps(s);
	lbt_run_opts ro = s->ro;
	hook(s, &ro, observe, ctx);
	s->ran = 0;
	if (s->files)
		lbt_comm_tally_reset(); /* the run's communication, not the set-up's */
	const double began = lbt_seconds();
	int status = lbt_run(&s->st, &ro, &s->sum, e);
	s->last = ro;
	s->ran = status == LBT_OK;
	return s->files ? lbt_sim_files_finish(s, status, lbt_seconds() - began, e) : status;
}

int lbt_sim_step(lbt_sim *s, int64_t n, lbt_err *e)
{
	if (!s || n < 0)
		return lbt_errf(e, LBT_EINVAL, "lbt_sim_step: a run and n >= 0 steps");
	int status;
	s->ran = 0;
	if (!s->loop) {
		lbt_run_opts ro = s->ro;
		ro.until = (lbt_until){.kind = LBT_UNTIL_STEPS};
		hook(s, &ro, NULL, NULL);
		if ((status = lbt_loop_open(&s->loop, &s->st, &ro, e)))
			return status;
	}
	s->halt = 0;
	if ((status = lbt_loop_steps(s->loop, n, e))) {
		end_steps(s); /* a failed run takes no further steps: the next call opens a new one */
		return status;
	}
	lbt_loop_summary(s->loop, &s->last, &s->sum);
	s->ran = 1;
	return LBT_OK;
}

int lbt_sim_result(const lbt_sim *s, lbt_result *r, lbt_err *e)
{
	if (!s || !r)
		return lbt_errf(e, LBT_EINVAL, "lbt_sim_result: a run and a result");
	memset(r, 0, sizeof *r);
	r->step = s->st.step;
	r->real = s->st.method->load == LBT_LOAD_REAL;
	r->stop = "none";
	if (!s->ran)
		return LBT_OK;
	const lbt_summary *u = &s->sum;
	r->steps = u->steps;
	r->reached = u->reached;
	r->stop = lbt_stop_name(u->stop);
	r->total = u->total;
	r->initial_max = u->initial_max;
	r->initial_min = u->initial_min;
	r->final_max = u->final_max;
	r->final_min = u->final_min;
	r->shifts = u->shifts;
	r->moved = u->moved;
	r->seconds = u->seconds;
	r->shared_step = u->shared_step;
	r->balanced_step = u->balanced_step;
	r->flat_step = u->flat_step;
	r->shared_shifts = u->shared_shifts;
	r->balanced_shifts = u->balanced_shifts;
	r->flat_shifts = u->flat_shifts;
	r->generated = u->generated;
	r->completed = u->completed;
	r->period = u->period;
	r->site_updates = u->site_updates;
	return LBT_OK;
}

int lbt_sim_json(const lbt_sim *s, char *buf, size_t cap, size_t *len, lbt_err *e)
{
	if (!s || (!buf && cap))
		return lbt_errf(e, LBT_EINVAL, "lbt_sim_json: a run and a buffer");
	if (!s->ran)
		return lbt_errf(e, LBT_EINVAL, "no run has finished yet: nothing to describe");
	char *text = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&text, &n);
	if (!f)
		return lbt_errf(e, LBT_ENOMEM, "no memory for the JSON");
	lbt_summary_json(f, &s->st, s->init, &s->last, &s->sum);
	if (fclose(f)) {
		free(text);
		return lbt_errf(e, LBT_ENOMEM, "no memory for the JSON");
	}
	if (len)
		*len = n;
	int status = LBT_OK;
	if (n < cap)
		memcpy(buf, text, n + 1);
	else
		status = lbt_errf(e, LBT_ERANGE, "the JSON takes %zu bytes and its NUL; the buffer holds %zu", n, cap);
	free(text);
	return status;
}

/* ---- fields ------------------------------------------------------------ */

static int field_of(const lbt_sim *s, const char *name, const lbt_field **f, lbt_array *a, lbt_err *e)
{
	if (!s || !name || !a)
		return lbt_errf(e, LBT_EINVAL, "a field needs a run, a name and an array");
	if (!(*f = lbt_grid_field(&s->st.grid, name))) {
		char names[128] = "";
		size_t n = 0;
		for (int i = 0; i < s->st.grid.nfields && n < sizeof names; i++)
			n += (size_t)snprintf(names + n, sizeof names - n, "%s%s", i ? ", " : "", s->st.grid.field[i].name);
		return lbt_errf(e, LBT_EINVAL, "this run has no field '%s' (it has %s)", name, names);
	}
	const lbt_shape *sh = &s->st.grid.whole;
	const size_t size = lbt_type_size((*f)->type);
	memset(a, 0, sizeof *a);
	snprintf(a->dtype, sizeof a->dtype, "%s", (*f)->type == LBT_I32 ? "<i4" : "<f8");
	a->ndim = sh->dims;
	int64_t stride = (int64_t)size;
	for (int d = sh->dims - 1; d >= 0; d--) {
		a->shape[d] = sh->ext[d];
		a->strides[d] = stride;
		stride *= sh->ext[d];
	}
	return LBT_OK;
}

int lbt_sim_field(const lbt_sim *s, const char *name, lbt_array *a, lbt_err *e)
{
	const lbt_field *f;
	return field_of(s, name, &f, a, e);
}

/* The caller's array u must be the field's (a) in dtype and shape. */
static int same(const char *name, const lbt_array *a, const lbt_array *u, lbt_err *e)
{
	if (!u || !u->data)
		return lbt_errf(e, LBT_EINVAL, "field '%s': no array data", name);
	if (strcmp(u->dtype, a->dtype))
		return lbt_errf(e, LBT_EINVAL, "field '%s' is of dtype %s, the array of %.8s", name, a->dtype, u->dtype);
	int ok = u->ndim == a->ndim;
	for (int d = 0; ok && d < a->ndim; d++)
		ok = u->shape[d] == a->shape[d];
	if (!ok)
		return lbt_errf(e, LBT_EINVAL, "field '%s': the array's shape is not the torus's", name);
	return LBT_OK;
}

/* Copy between the dense row-major field and the strided array, PE by PE. */
static void strided(const lbt_array *u, char *dense, size_t size, int64_t P, int to_array)
{
	int64_t idx[LBT_MAXD] = {0};
	for (int64_t i = 0; i < P; i++) {
		int64_t off = 0;
		for (int d = 0; d < u->ndim; d++)
			off += idx[d] * u->strides[d];
		char *at = (char *)u->data + off;
		if (to_array)
			memcpy(at, dense + (size_t)i * size, size);
		else
			memcpy(dense + (size_t)i * size, at, size);
		for (int d = u->ndim - 1; d >= 0 && ++idx[d] == u->shape[d]; d--)
			idx[d] = 0;
	}
}

int lbt_sim_field_read(const lbt_sim *s, const char *name, const lbt_array *dst, lbt_err *e)
{
	const lbt_field *f;
	lbt_array a;
	int status = field_of(s, name, &f, &a, e);
	if (status || (status = same(name, &a, dst, e)))
		return status;
	const size_t size = lbt_type_size(f->type);
	const int64_t P = lbt_shape_pes(&s->st.grid.whole);
	char *dense = malloc((size_t)P * size);
	if (!dense)
		return lbt_errf(e, LBT_ENOMEM, "no memory to copy the field '%s'", name);
	lbt_field_export(&s->st.grid, f, dense);
	strided(dst, dense, size, P, 1);
	free(dense);
	return LBT_OK;
}

int lbt_sim_field_write(lbt_sim *s, const char *name, const lbt_array *src, lbt_err *e)
{
	const lbt_field *f;
	lbt_array a;
	int status = field_of(s, name, &f, &a, e);
	if (status || (status = same(name, &a, src, e)))
		return status;
	if (strcmp(name, "load") && strcmp(name, "real"))
		return lbt_errf(e, LBT_EINVAL, "field '%s' is read-only: a method derives its coefficients from it "
		                "when the run opens", name);
	const size_t size = lbt_type_size(f->type);
	const int64_t P = lbt_shape_pes(&s->st.grid.whole);
	char *dense = malloc((size_t)P * size);
	if (!dense)
		return lbt_errf(e, LBT_ENOMEM, "no memory to copy the field '%s'", name);
	strided(src, dense, size, P, 0);
	for (int64_t i = 0; i < P && !status; i++) {
		if (f->type == LBT_I32 && ((const int32_t *)dense)[i] < 0)
			status = lbt_errf(e, LBT_EINVAL, "field '%s': PE %lld holds %d: loads are >= 0", name, (long long)i,
			                  ((const int32_t *)dense)[i]);
		else if (f->type == LBT_F64 && !isfinite(((const double *)dense)[i]))
			status = lbt_errf(e, LBT_EINVAL, "field '%s': PE %lld holds a value that is not finite", name,
			                  (long long)i);
	}
	if (!status) {
		end_steps(s); /* the loads changed under the run: its totals no longer hold */
		lbt_field_import(&s->st.grid, f, dense);
	}
	free(dense);
	return status;
}

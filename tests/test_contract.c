/* test_contract.c — every method and workload keeps what it declares.
 * Table-driven over lbt_methods() x lbt_workloads() x a few awkward shapes
 * (torus, mesh and mixed, D = 1..4, extents 1 and 2), never a list kept by
 * hand: a new entry is checked by what its value says (lbtorus/method.h,
 * lbtorus/run.h), and a false declaration fails here.
 *
 *   conservation  total after = before + generated - completed (exact for
 *                 integer loads), with every workload;
 *   seed          LBT_M_RANDOM absent: two seeds give the same bits, for
 *                 every probed parameter setting; present: some setting
 *                 shows the seed;
 *   deterministic LBT_M_DETERMINISTIC: a step from the same loads gives the
 *                 same loads whatever came before (another seed, another
 *                 step number, a fresh state); absent: some setting shows
 *                 otherwise;
 *   cut           LBT_M_CUT: one slab (lbt_setup.cut, what LBTORUS_CUT=1
 *                 runs) equals one process, records and loads, with every
 *                 workload; and every step on 2 to 4 blocks made by
 *                 hand (their halos from the other blocks) gives one
 *                 process's loads, unless LBT_M_GATHERS (its step talks
 *                 to all ranks: tests/mpi_identity.py); absent: a cut
 *                 run is refused (and LBT_M_GATHERS is never without it);
 *   counters      a workload's phase on blocks made by hand gives one
 *                 process's loads and counters when the blocks' counters
 *                 are summed, as the reduction over ranks sums them: a
 *                 counter added on every rank shows;
 *   isa, threads  every ISA this CPU runs, 1 and 2 threads: the scalar
 *                 reference's bits, with every workload;
 *   kernels       a declared dispatch slot has a function on every ISA; a
 *                 method calls no slot it does not declare;
 *   parameters    values outside the schema are refused with the
 *                 parameter's name; the schema's defaults run and equal
 *                 giving them.
 *
 * A parameter setting is the defaults or one parameter changed to a value
 * of its schema: each word, the closed ends of its range and a value
 * inside. A setting the method's check refuses on a shape is skipped (the
 * defaults never are). */
#include <criterion/criterion.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "helpers.h"
#include "comm/comm.h" /* the hand-made cuts' buffers */

#define MAX_STEPS 16

static const struct {
	const char *shape, *bnd;
} shapes[] = {
	{"7x5", "torus"}, {"10", "mesh"}, {"3x4x5", "torus,mesh,torus"}, {"2x3x2x3", "torus"}, {"1x6x4", "mesh,mesh,torus"},
};
enum { NSHAPES = sizeof shapes / sizeof *shapes };

/* ---- parameter settings ---- */

typedef struct {
	const char *name[2]; /* NULL: the schema's default */
	char value[2][48];
} setting;

static int add(setting *s, int n, int max, const char *name, const char *value)
{
	cr_assert(n < max, "too many settings");
	memset(&s[n], 0, sizeof s[n]);
	s[n].name[0] = name;
	snprintf(s[n].value[0], sizeof s[n].value[0], "%s", value);
	return n + 1;
}

static void number(const lbt_param *p, double x, char *buf, size_t n)
{
	if (p->type == LBT_PARAM_INT)
		snprintf(buf, n, "%lld", (long long)ceil(x));
	else
		snprintf(buf, n, "%.17g", x);
}

/* The defaults; each parameter alone at each word and at values of its
 * range (the closed ends and one inside); every pair of those of two
 * parameters (a shake needs a cost/benefit that blocks). */
static int settings(const lbt_method *m, setting *s, int max)
{
	int n = add(s, 0, max, NULL, "");
	for (int i = 0; i < m->nparams; i++) {
		const lbt_param *p = &m->params[i];
		const double lo = p->lo_open ? (p->type == LBT_PARAM_INT ? floor(p->lo) + 1 : p->lo) : p->lo;
		int bare = 1;
		for (const char *w = p->words; w && *w; w += strcspn(w, ","), w += *w == ',') {
			char v[48];
			int l = (int)strcspn(w, ",");
			if (w[l - 1] == ':') {
				bare = 0;
				snprintf(v, sizeof v, "%.*s%lld", l, w, (long long)ceil(lo));
			} else
				snprintf(v, sizeof v, "%.*s", l, w);
			n = add(s, n, max, p->name, v);
		}
		if (!bare)
			continue;
		char v[48];
		if (!p->lo_open) {
			number(p, p->lo, v, sizeof v);
			n = add(s, n, max, p->name, v);
		}
		if (isfinite(p->hi)) {
			number(p, p->hi, v, sizeof v);
			n = add(s, n, max, p->name, v);
		}
		number(p, isfinite(p->hi) ? (p->lo + p->hi) / 2 : lo + 1, v, sizeof v);
		n = add(s, n, max, p->name, v);
	}
	const int singles = n;
	for (int a = 1; a < singles; a++)
		for (int b = a + 1; b < singles; b++)
			if (strcmp(s[a].name[0], s[b].name[0])) {
				n = add(s, n, max, s[a].name[0], s[a].value[0]);
				s[n - 1].name[1] = s[b].name[0];
				snprintf(s[n - 1].value[1], sizeof s[n - 1].value[1], "%s", s[b].value[0]);
			}
	return n;
}

static const char *what(const setting *s, char *buf, size_t n)
{
	if (!s->name[0])
		snprintf(buf, n, "defaults");
	else
		snprintf(buf, n, "%s=%s%s%s%s%s", s->name[0], s->value[0], s->name[1] ? ", " : "", s->name[1] ? s->name[1] : "",
		         s->name[1] ? "=" : "", s->name[1] ? s->value[1] : "");
	return buf;
}

/* ---- runs ---- */

typedef struct {
	const char *shape, *bnd, *init, *isa, *wl; /* wl: a workload spec or NULL */
	const lbt_method *m;
	const setting *set; /* NULL: the defaults */
	uint64_t seed;
	int threads, cut, steps;
} spec;

typedef struct {
	int n;
	lbt_step_record r[MAX_STEPS + 1];
	lbt_summary sum;
	void *dense; /* the final field, gathered */
	size_t bytes;
	int64_t itotal; /* integer loads: the final total, summed here */
	double rtotal;
} result;

static void keep(void *ctx, const lbt_step_record *r)
{
	result *o = ctx;
	if (o->n <= MAX_STEPS)
		o->r[o->n++] = *r;
}

static const char *field_of(const lbt_method *m) { return m->load == LBT_LOAD_REAL ? "real" : "load"; }

static void setup_of(const spec *s, lbt_setup *set)
{
	*set = (lbt_setup){.shape = s->shape, .boundary = s->bnd, .method = s->m->name, .init = s->init,
	                   .isa = s->isa ? s->isa : "scalar", .seed = s->seed, .threads = s->threads ? s->threads : 1,
	                   .cut = s->cut};
	for (int i = 0, k = 0; s->set && i < 2; i++)
		if (s->set->name[i])
			set->params[k++] = (lbt_param_arg){s->set->name[i], s->set->value[i]};
}

/* Open and run s; LBT_OK, or the status of an open the method's check
 * refused (LBT_EINVAL: the setting does not apply to the shape). A run
 * that fails after opening fails the test. */
static int run(const spec *s, result *o)
{
	lbt_setup set;
	setup_of(s, &set);
	lbt_state st;
	lbt_err e;
	int status = lbt_state_open(&st, &set, &e);
	if (status == LBT_EINVAL && s->set && s->set->name[0])
		return status;
	char buf[120];
	cr_assert_eq(status, LBT_OK, "%s on %s %s (%s): %s", s->m->name, s->shape, s->bnd,
	             s->set ? what(s->set, buf, sizeof buf) : "defaults", e.msg);
	lbt_run_opts ro = lbt_run_opts_default();
	char until[32];
	snprintf(until, sizeof until, "steps:%d", s->steps);
	cr_assert_eq(lbt_until_parse(&ro.until, until, &e), LBT_OK, "%s", e.msg);
	ro.max_steps = s->steps;
	ro.full_stats = 1;
	ro.on_step = keep;
	ro.ctx = o;
	static lbt_workload w; /* the options point at it during the run */
	if (s->wl) {
		cr_assert_eq(lbt_workload_parse(&w, s->wl, s->m->load, &e), LBT_OK, "%s", e.msg);
		ro.workload = &w;
	}
	o->n = 0;
	status = lbt_run(&st, &ro, &o->sum, &e);
	cr_assert_eq(status, LBT_OK, "%s on %s %s, workload %s, isa %s, %d threads%s: %s", s->m->name, s->shape, s->bnd,
	             s->wl ? s->wl : "none", st.kern->isa, set.threads, s->cut ? ", cut" : "", e.msg);
	o->sum.seconds = 0;
	const lbt_field *f = lbt_grid_field(&st.grid, field_of(s->m));
	const int64_t P = lbt_shape_pes(&st.grid.whole);
	o->bytes = (size_t)P * lbt_type_size(f->type);
	o->dense = malloc(o->bytes);
	cr_assert_eq(lbt_field_gather(&st.grid, f, o->dense, &e), LBT_OK, "%s", e.msg);
	o->itotal = 0;
	o->rtotal = 0;
	for (int64_t i = 0; i < P; i++)
		if (s->m->load == LBT_LOAD_REAL)
			o->rtotal += ((const double *)o->dense)[i];
		else
			o->itotal += ((const int32_t *)o->dense)[i];
	lbt_state_close(&st);
	return LBT_OK;
}

/* Every record, the summary and the final field equal, bit for bit. */
static int same(const result *a, const result *b)
{
	if (a->n != b->n || a->bytes != b->bytes || memcmp(a->dense, b->dense, a->bytes) ||
	    memcmp(&a->sum, &b->sum, sizeof a->sum))
		return 0;
	for (int i = 0; i < a->n; i++)
		if (memcmp(&a->r[i], &b->r[i], sizeof a->r[i]))
			return 0;
	return 1;
}


/* The workload's example fits the method's loads (a search tree or the
 * phases need integer loads: its parse says so). */
static int fits(const lbt_workload *w, const lbt_method *m)
{
	lbt_workload x;
	lbt_err e;
	return lbt_workload_parse(&x, w->example, m->load, &e) == LBT_OK;
}

static const char *init_for(const lbt_workload *w) { return w && w->tasks ? "const:0" : "uniform:0:9"; }

/* ---- conservation ---- */

Test(contract, conservation_with_every_workload)
{
	for (const lbt_method *const *m = lbt_methods(); *m; m++)
		for (const lbt_workload *const *w = lbt_workloads(); *w; w++) {
			if (!fits(*w, *m))
				continue;
			for (int k = 0; k < NSHAPES; k++) {
				spec s = {.shape = shapes[k].shape, .bnd = shapes[k].bnd, .init = init_for(*w), .m = *m,
				          .wl = (*w)->example, .seed = 5, .steps = 12};
				result o;
				run(&s, &o);
				const double expect = o.sum.total + o.sum.generated - o.sum.completed;
				if ((*m)->load == LBT_LOAD_INT)
					cr_assert_eq(o.itotal, (int64_t)expect, "%s with %s on %s %s: total %lld after %.17g + %.17g - %.17g",
					             (*m)->name, (*w)->example, s.shape, s.bnd, (long long)o.itotal, o.sum.total,
					             o.sum.generated, o.sum.completed);
				else /* the engine's bound on a real total's rounding (lbtorus/run.h) */
					cr_assert(fabs(o.rtotal - expect) <= LBT_REAL_TOTAL_TOL * fmax(1, fabs(o.sum.total)),
					          "%s with %s on %s %s: total %.17g after %.17g", (*m)->name, (*w)->example, s.shape,
					          s.bnd, o.rtotal, expect);
				free(o.dense);
			}
		}
}

/* ---- the seed and determinism: the method's step itself ---- */

/* Open m (setting set) on shape with seed; LBT_OK or a refused setting. */
static int open_direct(lbt_state *st, const lbt_method *m, const setting *set, const char *shape, const char *bnd,
                       uint64_t seed)
{
	spec s = {.shape = shape, .bnd = bnd, .init = "worst:4", .m = m, .set = set, .seed = seed};
	lbt_setup cfg;
	setup_of(&s, &cfg);
	lbt_err e;
	int status = lbt_state_open(st, &cfg, &e);
	if (status == LBT_EINVAL && set && set->name[0])
		return status;
	cr_assert_eq(status, LBT_OK, "%s on %s: %s", m->name, shape, e.msg);
	return LBT_OK;
}

/* One step of the method itself, as the engine makes it. */
static void step(lbt_state *st)
{
	lbt_counts c;
	memset(&c, 0, sizeof c);
	st->method->step(st, &c);
	cr_assert(!c.nomem, "%s: no memory", st->method->name);
	st->step++;
}

static void *export(const lbt_state *st, size_t *bytes)
{
	const lbt_field *f = lbt_grid_field(&st->grid, field_of(st->method));
	*bytes = (size_t)lbt_shape_pes(&st->grid.shape) * lbt_type_size(f->type);
	void *d = malloc(*bytes);
	lbt_field_export(&st->grid, f, d);
	return d;
}

/* Before step t, a change of the loads that draws nothing (PE i gains
 * (5i + t) mod 3), as a workload's phase changes them: a method that acts
 * on changes (Lüling and Monien's trigger) acts. */
static void drip(lbt_state *st, int64_t t)
{
	size_t n;
	void *d = export(st, &n);
	const int64_t P = lbt_shape_pes(&st->grid.shape);
	for (int64_t i = 0; i < P; i++)
		if (st->method->load == LBT_LOAD_REAL)
			((double *)d)[i] += (double)((5 * i + t) % 3);
		else
			((int32_t *)d)[i] += (int32_t)((5 * i + t) % 3);
	lbt_field_import(&st->grid, lbt_grid_field(&st->grid, field_of(st->method)), d);
	free(d);
}

/* Seeds 1 and 2, the same drips: the same loads after each of 6 steps?
 * -1: the setting does not apply. */
static int seeds_equal(const lbt_method *m, const setting *set, const char *shape, const char *bnd)
{
	lbt_state a, b;
	if (open_direct(&a, m, set, shape, bnd, 1))
		return -1;
	cr_assert_eq(open_direct(&b, m, set, shape, bnd, 2), LBT_OK);
	int eq = 1;
	for (int t = 0; t < 6 && eq; t++) {
		drip(&a, t);
		drip(&b, t);
		step(&a);
		step(&b);
		size_t n;
		void *x = export(&a, &n), *y = export(&b, &n);
		eq = !memcmp(x, y, n);
		free(x);
		free(y);
	}
	lbt_state_close(&a);
	lbt_state_close(&b);
	return eq;
}

Test(contract, random_iff_the_seed_shows)
{
	static setting set[1024];
	for (const lbt_method *const *m = lbt_methods(); *m; m++) {
		const int n = settings(*m, set, 1024), random = ((*m)->flags & LBT_M_RANDOM) != 0;
		int shown = 0, ran = 0;
		for (int i = 0; i < n; i++)
			for (int k = 0; k < NSHAPES; k++) {
				const int eq = seeds_equal(*m, &set[i], shapes[k].shape, shapes[k].bnd);
				if (eq < 0)
					continue;
				ran++;
				char buf[120];
				cr_assert(random || eq, "%s (%s) on %s %s: seeds 1 and 2 give different loads, but %s lacks LBT_M_RANDOM",
				          (*m)->name, what(&set[i], buf, sizeof buf), shapes[k].shape, shapes[k].bnd, (*m)->name);
				shown |= !eq;
			}
		cr_assert(ran > 0, "%s: no setting ran", (*m)->name);
		cr_assert(!random || shown, "%s declares LBT_M_RANDOM, but no setting of its schema on any shape shows the seed",
		          (*m)->name);
	}
}

/* k + 1 drips and steps with seed 1, against a fresh state with seed 2
 * given the loads the last step started from, stepping once from step 0:
 * the same loads? -1: the setting does not apply. */
static int restart_equal(const lbt_method *m, const setting *set, const char *shape, const char *bnd, int k)
{
	lbt_state a, b;
	if (open_direct(&a, m, set, shape, bnd, 1))
		return -1;
	for (int t = 0; t < k; t++) {
		drip(&a, t);
		step(&a);
	}
	drip(&a, k);
	size_t n;
	void *mid = export(&a, &n);
	step(&a);
	void *want = export(&a, &n);
	cr_assert_eq(open_direct(&b, m, set, shape, bnd, 2), LBT_OK);
	lbt_field_import(&b.grid, lbt_grid_field(&b.grid, field_of(m)), mid);
	lbt_method_close(&b); /* opened again on these loads, as a run starting from them is */
	lbt_err e;
	cr_assert_eq(lbt_method_open(&b, &e), LBT_OK, "%s", e.msg);
	step(&b);
	void *got = export(&b, &n);
	const int eq = !memcmp(got, want, n);
	free(mid);
	free(want);
	free(got);
	lbt_state_close(&a);
	lbt_state_close(&b);
	return eq;
}

Test(contract, deterministic_iff_the_loads_alone_decide)
{
	static setting set[1024];
	for (const lbt_method *const *m = lbt_methods(); *m; m++) {
		const int n = settings(*m, set, 1024), det = ((*m)->flags & LBT_M_DETERMINISTIC) != 0;
		int shown = 0, ran = 0;
		for (int i = 0; i < n; i++)
			for (int k = 0; k < NSHAPES; k++)
				for (int t = 1; t <= 3; t += 2) {
					const int eq = restart_equal(*m, &set[i], shapes[k].shape, shapes[k].bnd, t);
					if (eq < 0)
						continue;
					ran++;
					char buf[120];
					cr_assert(!det || eq, "%s (%s) on %s %s: step %d from the same loads differs in a fresh state with "
					          "another seed, but %s declares LBT_M_DETERMINISTIC", (*m)->name,
					          what(&set[i], buf, sizeof buf), shapes[k].shape, shapes[k].bnd, t + 1, (*m)->name);
					shown |= !eq;
				}
		cr_assert(ran, "%s: no setting ran", (*m)->name);
		cr_assert(det || shown, "%s lacks LBT_M_DETERMINISTIC, but on every setting and shape its loads alone decide its "
		          "step (declare it: the engine then detects fixed points and cycles)", (*m)->name);
	}
}

/* ---- cut ---- */

Test(contract, cut_on_one_slab_equals_one_process)
{
	for (const lbt_method *const *m = lbt_methods(); *m; m++) {
		if (!((*m)->flags & LBT_M_CUT)) {
			cr_assert(!((*m)->flags & LBT_M_GATHERS), "%s declares LBT_M_GATHERS without LBT_M_CUT", (*m)->name);
			lbt_setup set = {.shape = "6x5", .method = (*m)->name, .seed = 1, .threads = 1, .cut = 1};
			lbt_state st;
			lbt_err e;
			cr_assert_eq(lbt_state_open(&st, &set, &e), LBT_EINVAL, "%s lacks LBT_M_CUT but opens cut", (*m)->name);
			continue;
		}
		for (const lbt_workload *const *w = lbt_workloads(); *w; w++) {
			if (!fits(*w, *m))
				continue;
			for (int k = 0; k < NSHAPES; k++) {
				spec s = {.shape = shapes[k].shape, .bnd = shapes[k].bnd, .init = init_for(*w), .m = *m,
				          .wl = (*w)->example, .seed = 3, .threads = 2, .steps = 10};
				result a, b;
				run(&s, &a);
				s.cut = 1;
				run(&s, &b);
				cr_assert(same(&a, &b), "%s with %s on %s %s: one slab differs from one process", (*m)->name,
				          (*w)->example, s.shape, s.bnd);
				free(a.dense);
				free(b.dense);
			}
		}
	}
}

/* Blocks made by hand step together, one thread each, as ranks do: a
 * halo fill of an axis (collective) publishes every block's PEs into the
 * whole torus's dense copy, waits for all, reads its halo layers of that
 * axis from there (spanning the halo of the cut axes before it, as the
 * comm layer's fill does) and waits again, so that a fill in the middle of
 * a step (a substep, an exchange pass) sees the other blocks at the same
 * point. */
static struct {
	int32_t *load;
	double *real;
	lbt_shape whole;
	pthread_barrier_t all;
} shared;

/* The cells of v with local coordinates c on every axis (c[axis] = k):
 * to (put = 0) or from (put = 1) the shared copy; a cell beyond a mesh's
 * end is skipped. */
static void cell_copy(const lbt_view *v, const lbt_cut *cut, const int64_t *c, int put)
{
	const lbt_shape *w = &shared.whole;
	int64_t off = 0, gi = 0;
	for (int d = 0; d < v->dims; d++) {
		int64_t g = cut->lo[d] + c[d], n = w->ext[d];
		if (g < 0 || g >= n) {
			if (!cut->torus[d])
				return;
			g = ((g % n) + n) % n;
		}
		off += c[d] * v->stride[d];
		gi = gi * n + g;
	}
	if (put) {
		v->load[off] = shared.load[gi];
		if (v->real)
			v->real[off] = shared.real[gi];
	} else {
		shared.load[gi] = v->load[off];
		if (v->real)
			shared.real[gi] = v->real[off];
	}
}

/* Every cell of the box from[d] .. to[d] - 1 of v, to or from the shared copy. */
static void box_copy(const lbt_view *v, const lbt_cut *cut, const int64_t *from, const int64_t *to, int put)
{
	int64_t c[LBT_MAXD];
	memcpy(c, from, sizeof c);
	for (;;) {
		cell_copy(v, cut, c, put);
		int d = v->dims - 1;
		while (d >= 0 && ++c[d] == to[d])
			c[d] = from[d], d--;
		if (d < 0)
			return;
	}
}

static void blocks_fill(const lbt_view *v, const lbt_cut *cut, int axis, int layers)
{
	int64_t from[LBT_MAXD] = {0}, to[LBT_MAXD];
	for (int d = 0; d < v->dims; d++)
		to[d] = v->ext[d];
	box_copy(v, cut, from, to, 0);
	pthread_barrier_wait(&shared.all);
	for (int d = 0; d < axis; d++)
		if (cut->on[d])
			from[d] = -LBT_HALO, to[d] = v->ext[d] + LBT_HALO;
	for (int h = 0; h < 2 * layers; h++) {
		from[axis] = h < layers ? h - layers : v->ext[axis] + h - layers;
		to[axis] = from[axis] + 1;
		box_copy(v, cut, from, to, 1);
	}
	pthread_barrier_wait(&shared.all);
}

typedef struct {
	lbt_state st;
	lbt_cut cut;
	int64_t lo[LBT_MAXD], len[LBT_MAXD];
} block;

/* Block k of the grid nr of `whole` (open in one), each axis cut evenly
 * (lbt_comm_slab), made by hand: its own state of the block's shape, with
 * a cut saying where it lies (th_cut_block) and the whole shape, the
 * method opened on it again as a cut run's is. */
static void block_open(block *b, const lbt_state *one, const lbt_setup *cfg, const int *nr, int k)
{
	const lbt_shape *sh = &one->grid.shape;
	char shape[64] = "";
	unsigned char on[LBT_MAXD];
	for (int d = sh->dims - 1, r = k; d >= 0; d--) {
		lbt_comm_slab(sh->ext[d], nr[d], r % nr[d], &b->lo[d], &b->len[d]);
		r /= nr[d];
		on[d] = nr[d] > 1;
	}
	for (int d = 0; d < sh->dims; d++)
		snprintf(shape + strlen(shape), sizeof shape - strlen(shape), "%s%lld", d ? "x" : "", (long long)b->len[d]);
	lbt_setup ss = *cfg;
	ss.shape = shape;
	ss.init = "const:0";
	ss.cut = 0;
	lbt_err e;
	cr_assert_eq(lbt_state_open(&b->st, &ss, &e), LBT_OK, "%s", e.msg);
	lbt_method_close(&b->st);
	th_cut_block(&b->cut, sh, b->lo, b->len, on, blocks_fill);
	b->st.grid.cut = &b->cut;
	b->st.grid.whole = *sh;
	cr_assert_eq(lbt_method_open(&b->st, &e), LBT_OK, "%s on a block: %s", cfg->method, e.msg);
}

static void block_close(block *b)
{
	lbt_method_close(&b->st);
	b->st.grid.cut = NULL; /* the hand-made cut is not the grid's to free */
	b->st.grid.whole = b->st.grid.shape;
	lbt_cut_close(&b->cut);
	lbt_state_close(&b->st);
}

static void *block_step(void *p)
{
	lbt_state *st = p;
	lbt_counts c;
	memset(&c, 0, sizeof c);
	st->method->step(st, &c);
	st->step++;
	return NULL;
}

/* Grids of blocks made by hand: slabs of the first axis with links (the
 * one-axis case), and blocks cut along two axes, the last among them, on
 * tori and meshes of 1 to 4 axes. Every cut axis keeps two layers a
 * block, as the halo is two deep. */
static const struct {
	const char *shape, *bnd;
	int nr[4];
} hand_cuts[] = {
	{"7x5", "torus", {3, 1}},       {"7x5", "torus", {2, 2}},          {"10", "mesh", {3}},
	{"6x3x4", "mesh,torus,torus", {2, 1, 2}}, {"6x4x5", "torus", {1, 2, 2}}, {"1x9x4", "torus", {1, 3, 1}},
	{"4x2x3x2", "torus", {2, 1, 1, 1}}, {"4x4x2x5", "mesh", {2, 2, 1, 1}}, {"4x2x4x4", "torus,mesh,torus,torus", {2, 1, 1, 2}},
};

Test(contract, cut_on_blocks_made_by_hand_equals_one_process)
{
	for (const lbt_method *const *m = lbt_methods(); *m; m++) {
		if (!((*m)->flags & LBT_M_CUT) || ((*m)->flags & LBT_M_GATHERS))
			continue;
		for (size_t k = 0; k < sizeof hand_cuts / sizeof *hand_cuts; k++) {
			lbt_setup cfg = {.shape = hand_cuts[k].shape, .boundary = hand_cuts[k].bnd, .method = (*m)->name,
			                 .init = "uniform:0:9", .isa = "scalar", .seed = 4, .threads = 1};
			lbt_state one;
			lbt_err e;
			cr_assert_eq(lbt_state_open(&one, &cfg, &e), LBT_OK, "%s", e.msg);
			const lbt_shape *sh = &one.grid.shape;
			int nb = 1;
			for (int d = 0; d < sh->dims; d++)
				nb *= hand_cuts[k].nr[d];
			block b[4];
			for (int i = 0; i < nb; i++)
				block_open(&b[i], &one, &cfg, hand_cuts[k].nr, i);
			const lbt_field *f = lbt_grid_field(&one.grid, field_of(*m));
			const size_t cell = lbt_type_size(f->type);
			const int64_t P = lbt_shape_pes(sh);
			int32_t *load = malloc((size_t)P * sizeof *load), *part = malloc((size_t)P * sizeof *part);
			double *real = malloc((size_t)P * sizeof *real), *rpart = malloc((size_t)P * sizeof *rpart);
			char *want = malloc((size_t)P * cell), *got = malloc((size_t)P * cell), *mine = malloc((size_t)P * cell);
			shared.load = malloc((size_t)P * sizeof *shared.load);
			shared.real = malloc((size_t)P * sizeof *shared.real);
			shared.whole = *sh;
			cr_assert_eq(pthread_barrier_init(&shared.all, NULL, (unsigned)nb), 0);
			for (int t = 0; t < 6; t++) {
				lbt_grid_export(&one.grid, load);
				if (one.grid.real)
					lbt_field_export(&one.grid, lbt_grid_field(&one.grid, "real"), real);
				for (int i = 0; i < nb; i++) {
					th_block_copy(sh, b[i].lo, b[i].len, load, part, sizeof *part, 1);
					lbt_grid_import(&b[i].st.grid, part);
					if (one.grid.real) {
						th_block_copy(sh, b[i].lo, b[i].len, real, rpart, sizeof *rpart, 1);
						lbt_field_import(&b[i].st.grid, lbt_grid_field(&b[i].st.grid, "real"), rpart);
					}
					b[i].st.step = one.step;
					b[i].st.seed = one.seed;
				}
				step(&one);
				lbt_field_export(&one.grid, f, want);
				pthread_t th[4];
				for (int i = 0; i < nb; i++)
					cr_assert_eq(pthread_create(&th[i], NULL, block_step, &b[i].st), 0);
				for (int i = 0; i < nb; i++)
					pthread_join(th[i], NULL);
				for (int i = 0; i < nb; i++) {
					lbt_field_export(&b[i].st.grid, lbt_grid_field(&b[i].st.grid, f->name), mine);
					th_block_copy(sh, b[i].lo, b[i].len, got, mine, cell, 0);
				}
				cr_assert(!memcmp(got, want, (size_t)P * cell),
				          "%s declares LBT_M_CUT, but on %s %s cut by hand into %d blocks (grid %dx%dx%dx%d), step %d "
				          "differs from one process", (*m)->name, hand_cuts[k].shape, hand_cuts[k].bnd, nb,
				          hand_cuts[k].nr[0], hand_cuts[k].nr[1], hand_cuts[k].nr[2], hand_cuts[k].nr[3], t + 1);
			}
			pthread_barrier_destroy(&shared.all);
			for (int i = 0; i < nb; i++)
				block_close(&b[i]);
			free(shared.load);
			free(shared.real);
			free(load);
			free(part);
			free(real);
			free(rpart);
			free(want);
			free(got);
			free(mine);
			lbt_state_close(&one);
		}
	}
}

/* ---- a workload's counters over ranks ---- */

/* Every workload's phase, on blocks made by hand (the same grids), with
 * the blocks' counters summed as the reduction over ranks sums every
 * rank's (each block is one rank of one, so its own reductions are the
 * identity): one process's loads and counters, bit for bit. A counter
 * that every rank adds for the whole torus counts once per block and
 * shows. A search tree numbers its nodes across slabs only (a block cut
 * along several axes refuses it: tests/mpi_identity.py). */
Test(contract, workload_counters_summed_over_blocks_equal_one_process)
{
	for (const lbt_workload *const *w = lbt_workloads(); *w; w++) {
		if (!(*w)->phase && !(*w)->open_spec)
			continue; /* generates and completes nothing */
		for (const lbt_method *const *m = lbt_methods(); *m; m++) {
			if (!((*m)->flags & LBT_M_CUT) || ((*m)->flags & LBT_M_GATHERS) || !fits(*w, *m))
				continue;
			for (size_t h = 0; h < sizeof hand_cuts / sizeof *hand_cuts; h++) {
				const lbt_setup cfg = {.shape = hand_cuts[h].shape, .method = (*m)->name, .init = init_for(*w),
				                       .isa = "scalar", .seed = 3, .threads = 2};
				lbt_shape sh;
				cr_assert_eq(lbt_shape_parse(&sh, hand_cuts[h].shape, NULL), LBT_OK);
				int64_t layers[LBT_MAXD][4] = {{0}}, lo;
				int axes = 0, first = 0;
				while (first < sh.dims - 1 && sh.ext[first] < 2)
					first++;
				for (int d = 0; d < sh.dims; d++) {
					axes += hand_cuts[h].nr[d] > 1;
					for (int q = 0; q < hand_cuts[h].nr[d]; q++)
						lbt_comm_slab(sh.ext[d], hand_cuts[h].nr[d], q, &lo, &layers[d][q]);
				}
				if ((*w)->tasks && (axes > 1 || hand_cuts[h].nr[first] == 1))
					continue;
				th_workload_on_blocks(&cfg, (*w)->example, hand_cuts[h].nr, layers);
			}
		}
	}
}

/* ---- ISAs and threads ---- */

Test(contract, every_isa_and_thread_count_gives_the_reference_bits)
{
	for (const lbt_method *const *m = lbt_methods(); *m; m++)
		for (const lbt_workload *const *w = lbt_workloads(); *w; w++) {
			if (!fits(*w, *m))
				continue;
			for (int k = 0; k < NSHAPES; k += 2) {
				spec s = {.shape = shapes[k].shape, .bnd = shapes[k].bnd, .init = init_for(*w), .m = *m,
				          .wl = (*w)->example, .seed = 6, .threads = 1, .steps = 10};
				result ref;
				run(&s, &ref);
				for (const char *const *isa = lbt_isa_compiled(); *isa; isa++) {
					if (!lbt_isa_supported(*isa))
						continue;
					for (int t = 1; t <= 2; t++) {
						s.isa = *isa;
						s.threads = t;
						result o;
						run(&s, &o);
						cr_assert(same(&ref, &o), "%s with %s on %s %s: ISA %s with %d thread%s differs from the scalar "
						          "reference", (*m)->name, (*w)->example, s.shape, s.bnd, *isa, t, t > 1 ? "s" : "");
						free(o.dense);
					}
				}
				free(ref.dense);
			}
		}
}

/* ---- kernels ---- */

Test(contract, declared_kernels_exist_on_every_isa)
{
	for (const char *const *isa = lbt_isa_compiled(); *isa; isa++) {
		if (!lbt_isa_supported(*isa))
			continue;
		lbt_kernels k;
		lbt_err e;
		cr_assert_eq(lbt_kernels_select(&k, *isa, &e), LBT_OK, "%s", e.msg);
		const int miss = lbt_kernels_missing(&k, ~0u >> (32 - LBT_NSLOTS));
		cr_assert_eq(miss, -1, "ISA %s: the dispatch slot %s has no function, not even a reference (kernels/dispatch.c)",
		             *isa, lbt_kernel_slot_name(miss));
		for (const lbt_method *const *m = lbt_methods(); *m; m++) {
			cr_assert_eq((*m)->kernels >> LBT_NSLOTS, 0u, "%s declares slots beyond LBT_KERNEL_SLOTS", (*m)->name);
			lbt_setup set = {.shape = "6x5", .method = (*m)->name, .isa = *isa, .seed = 1, .threads = 1};
			lbt_state st;
			cr_assert_eq(lbt_state_open(&st, &set, &e), LBT_OK, "%s on ISA %s: %s", (*m)->name, *isa, e.msg);
			lbt_state_close(&st);
		}
	}
}

/* Every slot the method does not declare emptied: its steps (in a child,
 * so that a call of an empty slot is reported by name) must not call one. */
Test(contract, methods_call_only_the_kernels_they_declare)
{
	for (const lbt_method *const *m = lbt_methods(); *m; m++)
		for (int k = 0; k < NSHAPES; k++) {
			fflush(NULL);
			pid_t pid = fork();
			cr_assert(pid >= 0);
			if (pid == 0) {
				lbt_setup set = {.shape = shapes[k].shape, .boundary = shapes[k].bnd, .method = (*m)->name,
				                 .init = "worst:4", .isa = "scalar", .seed = 1, .threads = 1};
				lbt_state st;
				lbt_err e;
				if (lbt_state_open(&st, &set, &e))
					_exit(3);
#define EMPTY(id, field) \
	if (!((*m)->kernels & LBT_K(id))) \
		st.table.field = NULL;
				LBT_KERNEL_SLOTS(EMPTY)
#undef EMPTY
				for (int t = 0; t < 4; t++)
					step(&st);
				if (st.method->steps) {
					lbt_counts c[4];
					st.method->steps(&st, 4, INT32_MAX, NULL, c);
				}
				lbt_state_close(&st);
				_exit(0);
			}
			int status;
			cr_assert_eq(waitpid(pid, &status, 0), pid);
			cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0,
			          "%s on %s %s: %s with only its declared kernel slots (.kernels) filled", (*m)->name,
			          shapes[k].shape, shapes[k].bnd, WIFSIGNALED(status) ? "killed by a signal (a NULL call?)" : "failed");
		}
}

/* ---- parameters ---- */

/* A value outside p's schema: refused by the set-up, the message naming p. */
static void refused(const lbt_method *m, const lbt_param *p, const char *value)
{
	lbt_setup set = {.shape = "7x5", .method = m->name, .seed = 1, .threads = 1};
	set.params[0] = (lbt_param_arg){p->name, value};
	lbt_err e;
	cr_assert_eq(lbt_setup_check(&set, &e), LBT_EINVAL, "%s: --%s %s is outside the schema but accepted", m->name,
	             p->name, value);
	char dashed[64];
	snprintf(dashed, sizeof dashed, "%s", p->name);
	for (char *c = dashed; *c; c++)
		*c = *c == '_' ? '-' : *c;
	cr_assert(strstr(e.msg, dashed) || (p->short_name && strstr(e.msg, p->short_name)),
	          "%s: --%s %s: the message does not name the parameter: %s", m->name, p->name, value, e.msg);
}

Test(contract, parameters_outside_their_schema_are_refused)
{
	for (const lbt_method *const *m = lbt_methods(); *m; m++)
		for (int i = 0; i < (*m)->nparams; i++) {
			const lbt_param *p = &(*m)->params[i];
			char v[48];
			if (p->lo_open)
				number(p, p->lo, v, sizeof v);
			else
				number(p, p->lo - 1, v, sizeof v);
			refused(*m, p, v);
			if (isfinite(p->hi)) {
				number(p, p->hi + 1, v, sizeof v);
				refused(*m, p, v);
			}
			if (p->type == LBT_PARAM_INT)
				refused(*m, p, "1.5");
			refused(*m, p, "nonsense");
			for (const char *w = p->words; w && *w; w += strcspn(w, ","), w += *w == ',') {
				const int l = (int)strcspn(w, ",");
				if (w[l - 1] != ':')
					continue;
				char below[64]; /* "local:" and a number below the range */
				number(p, p->lo_open ? p->lo : p->lo - 1, v, sizeof v);
				snprintf(below, sizeof below, "%.*s%s", l, w, v);
				refused(*m, p, below);
			}
		}
}

Test(contract, the_schema_defaults_run_and_equal_giving_them)
{
	for (const lbt_method *const *m = lbt_methods(); *m; m++) {
		for (int i = 0; i < (*m)->nparams; i++) {
			const lbt_param *p = &(*m)->params[i];
			lbt_param_value v;
			char why[160];
			cr_assert_eq(lbt_param_parse(p, p->def, &v, why, sizeof why), LBT_OK, "%s: the default %s=%s: %s",
			             (*m)->name, p->name, p->def, why);
		}
		for (int k = 0; k < NSHAPES; k++) {
			spec s = {.shape = shapes[k].shape, .bnd = shapes[k].bnd, .init = "uniform:0:9", .m = *m, .seed = 2,
			          .steps = 6};
			result a, b;
			run(&s, &a);
			lbt_setup set;
			setup_of(&s, &set);
			for (int i = 0; i < (*m)->nparams; i++)
				set.params[i] = (lbt_param_arg){(*m)->params[i].name, (*m)->params[i].def};
			lbt_state st;
			lbt_err e;
			cr_assert_eq(lbt_state_open(&st, &set, &e), LBT_OK, "%s with its defaults given: %s", (*m)->name, e.msg);
			lbt_state_close(&st);
			for (int i = 0; i < (*m)->nparams; i++) {
				setting given = {.name = {(*m)->params[i].name}};
				snprintf(given.value[0], sizeof given.value[0], "%s", (*m)->params[i].def);
				s.set = &given;
				cr_assert_eq(run(&s, &b), LBT_OK);
				cr_assert(same(&a, &b), "%s on %s: giving %s=%s differs from leaving it out", (*m)->name, s.shape,
				          given.name[0], given.value[0]);
				free(b.dense);
			}
			free(a.dense);
		}
	}
}

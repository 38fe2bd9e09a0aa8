/* bench.c — the public API's kernel timing (lbtorus.h), what `lbtorus bench`
 * measures: site updates per second (one PE in one substep) for every
 * method x ISA x thread count x size, beside the scalar reference and a
 * memory-bandwidth bound measured in the same run; and output files
 * written whole (lbt_output_*, around the engine's lbt_out_*).
 *
 * The bound: a step must read and write every PE's load at least once, 2 x
 * its cell bytes (8 for int32 loads, 16 for a real-valued method's float64),
 * and makes D site updates, so bandwidth / (2 x cell bytes) x D site
 * updates/s is the most a kernel can reach without blocking several steps in
 * cache. The bandwidth is a STREAM-like copy (bytes read + bytes written per
 * second) between two arrays of the grid's bytes (PEs x cell bytes), with
 * the same thread count.
 * A copy also pays for reading each destination line before writing it
 * (write-allocate), which an in-place step does not, so an in-place kernel
 * can pass that bound by up to 1.5x without blocking steps; the in-place
 * bound (a[i] += 1 over the same size, read + write bytes) is given too.
 * A kernel given T threads may use fewer (the Liquid model's takes one per
 * 65536 PEs: a step of 128x128 runs on one), so the bandwidth for T threads
 * is the best of 1, 2, 4, ... and T threads: a bound for any of them. */
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "lbtorus/io.h"
#include "lbtorus/method.h"
#include "lbtorus/provenance.h"
#include "lbtorus/run.h"

#define BENCH_VERSION 0x4c424e31u /* "LBN1": made by lbt_bench_default */
#define THREADS_MAX 4096

lbt_bench lbt_bench_default(void) { return (lbt_bench){.version = BENCH_VERSION}; }

/* The options with their defaults filled in and the lists split (in the
 * buffers, in place). */
typedef struct {
	char sizes_buf[512], methods_buf[512], isa_buf[256];
	char *sizes[16], *methods[16], *isas[16];
	int nsizes, nmethods, nisas, nthreads;
	int threads[16], max_threads, ncores;
	const char *init;
	double budget;
	const lbt_bench *b;
} plan;

/* Split a comma-separated list in place; returns the count (at most max). */
static int split(char *s, char **out, int max)
{
	int n = 0;
	char *save;
	for (char *t = strtok_r(s, ",", &save); t && n < max; t = strtok_r(NULL, ",", &save))
		out[n++] = t;
	return n;
}

/* b's lists, defaults filled in; every item checked, and every run fits
 * with the copy it restarts from, before anything is measured. */
static int plan_make(plan *p, const lbt_bench *b, lbt_err *e)
{
	if (!b || b->version != BENCH_VERSION)
		return lbt_errf(e, LBT_EINVAL, "bench options not made by lbt_bench_default()");
	memset(p, 0, sizeof *p);
	p->b = b;
	p->init = b->init ? b->init : "uniform:0:20";
	/* the results must not replace the init file */
	const lbt_io_name in = {"--init", strncmp(p->init, "file:", 5) ? NULL : p->init + 5}, out = {"--json", b->out};
	int s = lbt_io_distinct(&in, 1, &out, 1, e);
	if (s)
		return s;
	p->budget = b->seconds > 0 ? b->seconds : b->quick ? 0.1 : 0.5;
	snprintf(p->sizes_buf, sizeof p->sizes_buf, "%s", b->sizes ? b->sizes : b->quick ?
	         "128x128,1024x1024,4096x4096,64x64x64" : "128x128,1024x1024,4096x4096,256x256x256");
	snprintf(p->methods_buf, sizeof p->methods_buf, "%s", b->methods ? b->methods : b->quick ?
	         "lm-c4,lm-c5" : "lm-c0,lm-c1,lm-c2,lm-c3,lm-c4,lm-c5");
	p->ncores = 1;
#ifdef _OPENMP
	p->ncores = omp_get_num_procs();
#endif
	if (b->isa)
		snprintf(p->isa_buf, sizeof p->isa_buf, "%s", b->isa);
	else
		for (const char *const *t = lbt_isa_compiled(); *t; t++)
			if (lbt_isa_supported(*t) && !lbt_isa_emulated(*t))
				snprintf(p->isa_buf + strlen(p->isa_buf), sizeof p->isa_buf - strlen(p->isa_buf), "%s%s",
				         *p->isa_buf ? "," : "", *t);
	p->nsizes = split(p->sizes_buf, p->sizes, 16);
	p->nmethods = split(p->methods_buf, p->methods, 16);
	p->nisas = split(p->isa_buf, p->isas, 16);
	for (int i = 0; i < 16 && b->threads[i]; i++)
		p->threads[p->nthreads++] = b->threads[i];
	if (!p->nthreads) { /* 1 and all cores */
		p->threads[p->nthreads++] = 1;
		if (p->ncores > 1)
			p->threads[p->nthreads++] = p->ncores;
	}
	for (int i = 0; i < p->nmethods; i++) {
		const lbt_method *m = lbt_method_find(p->methods[i]);
		lbt_workload w;
		if (!m)
			return lbt_errf(e, LBT_EINVAL, "unknown method '%s'", p->methods[i]);
		if (b->workload && (s = lbt_workload_parse(&w, b->workload, m->load, e)))
			return s;
		if (b->workload && w.tasks)
			return lbt_errf(e, LBT_EINVAL, "--workload %s: a search tree starts empty; time a process of arrivals "
			                "(cybenko:, phases:, generator:)", b->workload);
	}
	for (int i = 0; i < p->nisas; i++) {
		lbt_kernels k;
		if ((s = lbt_kernels_select(&k, p->isas[i], e)))
			return s;
	}
	p->max_threads = 1;
	for (int i = 0; i < p->nthreads; i++) {
		if (p->threads[i] < 1 || p->threads[i] > THREADS_MAX)
			return lbt_errf(e, LBT_EINVAL, "%d threads: give 1..%d", p->threads[i], THREADS_MAX);
		p->max_threads = p->threads[i] > p->max_threads ? p->threads[i] : p->max_threads;
	}
	for (int i = 0; i < p->nsizes; i++) {
		lbt_shape sh;
		if ((s = lbt_shape_parse(&sh, p->sizes[i], e)))
			return s;
		for (int k = 0; k < p->nmethods; k++) {
			lbt_setup set = {.shape = p->sizes[i], .method = p->methods[k], .init = p->init, .isa = "scalar",
			                 .seed = 1, .threads = p->max_threads, .grid_copies = 1};
			if ((s = lbt_setup_check(&set, e)))
				return s;
		}
	}
	return LBT_OK;
}

int lbt_bench_check(const lbt_bench *b, lbt_bench_info *info, lbt_err *e)
{
	plan p;
	int s = plan_make(&p, b, e);
	if (s || !info)
		return s;
	memset(info, 0, sizeof *info);
	lbt_cpu_model(info->cpu, sizeof info->cpu);
	info->cores = p.ncores;
#ifdef LBT_INSTRUMENTED
	info->instrumented = 1;
#endif
	info->seconds = p.budget;
	info->init = p.init;
	return LBT_OK;
}

static int stopped(const volatile sig_atomic_t *stop) { return stop && *stop; }

/* Read + write bytes per second of a parallel copy of `cells` int32 (or
 * of an in-place increment, in_place): at most 2^26 of them (256 MiB an
 * array, far beyond any cache: a larger copy runs at the same rate). Stops
 * when *stop is set (0 then). A grid of float64 is timed as twice its PEs
 * in int32: the same bytes. */
static double bandwidth(int64_t cells, int threads, double budget, int in_place, const volatile sig_atomic_t *stop)
{
	if (stopped(stop))
		return 0;
	cells = cells < ((int64_t)1 << 26) ? cells : (int64_t)1 << 26;
	size_t bytes = ((size_t)cells * 4 + LBT_ALIGN - 1) / LBT_ALIGN * LBT_ALIGN; /* C11: a multiple of the alignment */
	int32_t *a = aligned_alloc(LBT_ALIGN, bytes), *b = aligned_alloc(LBT_ALIGN, bytes);
	if (!a || !b) {
		free(a);
		free(b);
		return 0;
	}
	const int64_t block = (int64_t)1 << 16; /* a signal stops the first touch of the pages within a block */
#pragma omp parallel for schedule(static) num_threads(threads)
	for (int64_t k = 0; k < cells; k += block) {
		if (stopped(stop))
			continue;
		for (int64_t i = k; i < k + block && i < cells; i++) {
			a[i] = (int32_t)i;
			b[i] = 0;
		}
	}
	double best = 0, t0 = lbt_seconds();
	int reps = 0;
	do {
		double t = lbt_seconds();
		if (in_place) {
#pragma omp parallel for schedule(static) num_threads(threads)
			for (int64_t i = 0; i < cells; i++)
				b[i] += 1;
		} else {
#pragma omp parallel for schedule(static) num_threads(threads)
			for (int64_t i = 0; i < cells; i++)
				b[i] = a[i];
		}
		t = lbt_seconds() - t;
		double bw = 2.0 * 4.0 * (double)cells / t;
		best = bw > best ? bw : best; /* STREAM reports the best repetition */
		int32_t *x = a;
		a = b;
		b = x;
	} while (!stopped(stop) && (++reps < 3 || lbt_seconds() - t0 < budget));
	free(a);
	free(b);
	return best;
}

/* The best bandwidth of 1, 2, 4, ... and T threads; memo[k]: what 2^k
 * threads measured on this size so far (0: not yet), so that a thread
 * count's bound is at least every smaller power of two's, as measured for
 * its own row. */
static double bandwidth_upto(int64_t cells, int T, double budget, int in_place, double memo[32],
                             const volatile sig_atomic_t *stop)
{
	double best = 0;
	int k = 0;
	for (; k < 31 && (1 << k) < T; k++) {
		if (memo[k] == 0)
			memo[k] = bandwidth(cells, 1 << k, budget, in_place, stop);
		best = memo[k] > best ? memo[k] : best;
	}
	if (k < 31 && (1 << k) == T && memo[k] == 0)
		memo[k] = bandwidth(cells, T, budget, in_place, stop);
	const double own = k < 31 && (1 << k) == T ? memo[k] : bandwidth(cells, T, budget, in_place, stop);
	return own > best ? own : best;
}

/* Step st's method from the grid start (its loads, and its real-valued
 * loads for a continuous method) for about `budget` seconds, through the
 * engine's bare mode (the method's steps alone: no reductions or checks);
 * the steps, seconds and rate into r. */
static int time_steps(lbt_state *st, const lbt_grid *start, const lbt_workload *wl, const plan *p, lbt_bench_row *r,
                      lbt_err *e)
{
	lbt_grid_copy(&st->grid, start);
	lbt_run_opts o = lbt_run_opts_default();
	o.bare = 1;
	o.workload = wl; /* NULL: the method's steps alone */
	o.interrupt = p->b->interrupt;
	o.until.kind = LBT_UNTIL_STEPS;
	o.until.steps = 1;
	lbt_summary sum;
	int status = lbt_run(st, &o, &sum, e); /* warm the caches and the thread pool */
	int64_t su = 0;
	r->steps = 0;
	r->seconds = 0;
	while (!status) {
		if (stopped(o.interrupt)) /* no more measuring */
			return lbt_errf(e, LBT_EINTR, "interrupted");
		if ((status = lbt_run(st, &o, &sum, e)))
			break;
		if (sum.stop == LBT_STOP_INTERRUPTED) /* after a step: no rate from a part of a measurement */
			return lbt_errf(e, LBT_EINTR, "interrupted");
		r->steps += sum.steps;
		r->seconds += sum.seconds;
		su += sum.site_updates;
		if (r->seconds >= p->budget)
			break;
		o.until.steps = r->steps; /* double until the budget is spent */
	}
	r->rate = status ? 0 : (double)su / r->seconds;
	return status;
}

/* A row handed to the caller: a non-zero answer stops. */
static int give(lbt_bench_fn row, void *ctx, const lbt_bench_row *r, lbt_err *e)
{
	return row && row(ctx, r) ? lbt_errf(e, LBT_EINTR, "stopped by the caller") : LBT_OK;
}

int lbt_bench_headline(const lbt_bench *b, lbt_bench_fn row, void *ctx, lbt_err *e)
{
	plan p;
	int s = plan_make(&p, b, e);
	if (s)
		return s;
	for (int i = 0; i < p.nisas && !s; i++) {
		lbt_setup set = {.shape = "128x128", .method = "lm-c5", .init = "worst:5", .isa = p.isas[i], .seed = 1,
		                 .threads = 1, .interrupt = b->interrupt};
		lbt_state st;
		if ((s = lbt_state_open(&st, &set, e)))
			break;
		lbt_run_opts o = lbt_run_opts_default(); /* as lbtorus run */
		o.interrupt = b->interrupt;
		lbt_summary sum;
		s = lbt_run(&st, &o, &sum, e);
		if (!s && sum.stop == LBT_STOP_INTERRUPTED)
			s = lbt_errf(e, LBT_EINTR, "interrupted");
		if (!s) {
			const lbt_bench_row r = {.size = "128x128", .method = "lm-c5", .isa = p.isas[i], .dims = 2, .threads = 1,
			                         .pes = 128 * 128, .steps = sum.steps, .seconds = sum.seconds,
			                         .rate = (double)sum.site_updates / sum.seconds};
			s = give(row, ctx, &r, e);
		}
		lbt_state_close(&st);
	}
	return s;
}

/* One size's bounds, for each thread count: copy and in-place bandwidth,
 * over the bytes of int32 loads ([0]) and of float64 ones ([1], measured
 * when a real-valued method first needs them). */
typedef struct {
	const char *size;
	int64_t P;
	int D;
	int have[2];
	double bw[2][16], rmw[2][16];
} bench_size;

/* z's bandwidths for loads of `real` ? 8 : 4 bytes, measured once. */
static void size_bounds(const plan *p, bench_size *z, int real)
{
	if (z->have[real])
		return;
	double memo[2][32] = {{0}};
	const int64_t cells = z->P * (real ? 2 : 1); /* in int32 */
	for (int ti = 0; ti < p->nthreads; ti++) {
		z->bw[real][ti] = bandwidth_upto(cells, p->threads[ti], p->budget, 0, memo[0], p->b->interrupt);
		z->rmw[real][ti] = bandwidth_upto(cells, p->threads[ti], p->budget, 1, memo[1], p->b->interrupt);
	}
	z->have[real] = 1;
}

/* One method on one size: a state made for it (its parameters, its real
 * field) and a copy to restart from, timed on every ISA and thread count,
 * statically and (with a workload) under the workload. */
static int bench_method(const plan *p, bench_size *z, const char *method, lbt_bench_fn row, void *ctx,
                        lbt_err *e)
{
	lbt_setup set = {.shape = z->size, .method = method, .init = p->init, .isa = "scalar", .seed = 1,
	                 .threads = p->max_threads, /* the method's scratch serves up to this many */
	                 .interrupt = p->b->interrupt};
	lbt_state st;
	lbt_grid start;
	int status;
	if ((status = lbt_state_open(&st, &set, e)))
		return status;
	if ((status = lbt_grid_init(&start, &st.grid.shape, e)) ||
	    (st.grid.real && (status = lbt_grid_add_real(&start, e)))) {
		lbt_state_close(&st);
		return status;
	}
	lbt_grid_copy(&start, &st.grid);
	const int real = st.method->load == LBT_LOAD_REAL, cell = real ? 8 : 4;
	size_bounds(p, z, real);
	lbt_workload wl;
	if (p->b->workload)
		lbt_workload_parse(&wl, p->b->workload, st.method->load, e); /* checked in plan_make */
	const int kinds = 1 + (p->b->workload && wl.phase); /* static, and under the workload */
	double scalar_rate = 0, static_rate = 0;
	for (int ii = 0; ii < p->nisas && !status; ii++)
		for (int k = 0; k < p->nthreads * kinds && !status; k++) {
			const int ti = k / kinds, dyn = k % kinds;
			if (!strcmp(p->isas[ii], "scalar") && ti > 0 && p->threads[ti] != p->threads[0])
				continue; /* the reference has one thread whatever it is given */
			lbt_kernels_select(&st.table, p->isas[ii], e);
			st.kern = &st.table;
			st.threads = p->threads[ti];
			lbt_bench_row r = {.size = z->size, .method = method, .isa = p->isas[ii], .workload = dyn ? wl.spec : NULL,
			                   .dims = z->D, .threads = p->threads[ti], .pes = z->P, .copy_bw = z->bw[real][ti],
			                   .in_place_bw = z->rmw[real][ti], .bound = z->bw[real][ti] / (2.0 * cell) * z->D,
			                   .in_place_bound = z->rmw[real][ti] / (2.0 * cell) * z->D, .cell_bytes = cell};
			if ((status = time_steps(&st, &start, dyn ? &wl : NULL, p, &r, e)))
				break;
			if (!strcmp(p->isas[ii], "scalar") && scalar_rate == 0 && !dyn)
				scalar_rate = r.rate;
			if (!dyn)
				static_rate = r.rate;
			r.scalar_rate = scalar_rate;
			r.static_rate = dyn ? static_rate : 0;
			status = give(row, ctx, &r, e);
		}
	lbt_grid_free(&start);
	lbt_state_close(&st);
	return status;
}

int lbt_bench_run(const lbt_bench *b, lbt_bench_fn row, void *ctx, lbt_err *e)
{
	plan p;
	int status = plan_make(&p, b, e);
	if (status)
		return status;
	for (int si = 0; si < p.nsizes && !status; si++) {
		bench_size z = {.size = p.sizes[si]};
		lbt_shape sh;
		lbt_shape_parse(&sh, z.size, e); /* checked in plan_make */
		z.P = lbt_shape_pes(&sh);
		z.D = lbt_shape_active_dims(&sh);
		for (int mi = 0; mi < p.nmethods && !status; mi++)
			status = bench_method(&p, &z, p.methods[mi], row, ctx, e);
	}
	return status;
}

/* ---- files written whole ---------------------------------------------- */

struct lbt_output {
	lbt_outfile f;
};

int lbt_output_open(lbt_output **o, const char *path, FILE **f, lbt_err *e)
{
	if (!o || !path || !f)
		return lbt_errf(e, LBT_EINVAL, "lbt_output_open: an output, a path and a place for the stream");
	*o = NULL;
	lbt_output *n = malloc(sizeof *n);
	if (!n)
		return lbt_errf(e, LBT_ENOMEM, "no memory for an output file");
	int s = lbt_out_open(&n->f, path, e);
	if (s) {
		free(n);
		return s;
	}
	*o = n;
	*f = n->f.f;
	return LBT_OK;
}

int lbt_output_commit(lbt_output *o, lbt_err *e)
{
	if (!o)
		return lbt_errf(e, LBT_EINVAL, "lbt_output_commit: no output");
	int s = lbt_out_commit(&o->f, e);
	free(o);
	return s;
}

void lbt_output_abort(lbt_output *o)
{
	if (!o)
		return;
	lbt_out_abort(&o->f);
	free(o);
}

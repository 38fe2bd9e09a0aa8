/* bench_peers.c — `lbtorus bench --peers`: lbtorus beside what a researcher
 * writes first, timed in the same run on the same grids: the plain C loop
 * of LM-C5 (bench/peer_lm_c5.c), the strong peer (bench/peer_lm_c5_strong.c:
 * narrow loads, branch-free, restrict, OpenMP over rows, on the case's
 * threads) and, when python3 has NumPy, the NumPy version (bench/peer_numpy.py).
 *
 * Each case runs lbtorus (through lbt_run, as `lbtorus run` does) and the C
 * loop `reps` times, interleaved, and keeps the minimum of each: on a shared
 * machine the minimum is the least disturbed run. The C loop must end in
 * the same state, bit for bit, or the row says so (so must the strong peer). NumPy runs once, under a
 * time budget; when it stops early, its time per step is what is compared.
 * Ratios (peer time / lbtorus time, per step) are the figures to quote.
 *
 * Then every other method (but luling-monien, whose random partner choice
 * has no plain loop of a few lines) beside its plain C loop
 * (bench/peer_methods.c) on 2-D tori from uniform:0:100, one thread each,
 * a fixed number of steps; the loop must end in lbtorus's state, bit for
 * bit, or the run fails. Both are timed in CPU time of the process (one
 * thread each), which a machine shared with other work disturbs far less
 * than the wall clock. */
#include <stdio.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli_internal.h"
#include "../../bench/peer_lm_c5.h"
#include "../../bench/peer_lm_c5_strong.h"
#include "../../bench/peer_methods.h"

#ifndef LBT_SOURCE_BENCHDIR
#error "meson passes -DLBT_SOURCE_BENCHDIR (the peers' scripts)"
#endif

typedef struct {
	const char *shape, *init;
	int64_t steps; /* 0: until balanced */
	int threads;   /* 0: all cores */
} pcase;

typedef struct {
	double seconds;
	int64_t steps;
} ptime;

/* One lbtorus run of case c; the final grid (dense) into out if not NULL. */
/* One run of the plain C loop (strong = 0) or the strong peer from init,
 * left in grid; its steps (negative: out of memory) and time into *t. */
static int64_t time_peer(int strong, int32_t *grid, const int32_t *init, const lbt_shape *sh, int64_t steps,
                         int thr, ptime *t)
{
	memcpy(grid, init, (size_t)lbt_shape_pes(sh) * sizeof *grid);
	const int64_t cap = steps ? steps : INT64_MAX;
	double t0 = lbt_seconds();
	t->steps = strong ? peer_lm_c5_strong(grid, sh->ext[0], sh->ext[1], cap, !steps, thr)
	                  : peer_lm_c5(grid, sh->ext[0], sh->ext[1], cap, !steps);
	t->seconds = lbt_seconds() - t0;
	return t->steps;
}

static int time_lbtorus(const pcase *c, int threads, ptime *t, int32_t *init, int32_t *out, lbt_err *e)
{
	lbt_setup set = {.shape = c->shape, .method = "lm-c5", .init = c->init, .seed = 1, .threads = threads};
	lbt_state st;
	int s = lbt_state_open(&st, &set, e);
	if (s)
		return s;
	if (init)
		lbt_grid_export(&st.grid, init);
	lbt_run_opts o = lbt_run_opts_default(); /* what lbtorus run does */
	o.max_steps = c->steps ? c->steps : INT64_MAX;
	o.until = (lbt_until){.kind = c->steps ? LBT_UNTIL_STEPS : LBT_UNTIL_BALANCED, .steps = c->steps};
	o.batch = 1; /* as lbtorus run without pictures */
	lbt_summary sum;
	s = lbt_run(&st, &o, &sum, e);
	if (!s) {
		t->seconds = sum.seconds;
		t->steps = sum.steps;
		if (out)
			lbt_grid_export(&st.grid, out);
	}
	lbt_state_close(&st);
	return s;
}

/* NumPy on the grid in path: returns 0 and fills t, or -1 if it did not run. */
static int time_numpy(const pcase *c, const char *path, double budget, ptime *t)
{
	char cmd[1024];
	snprintf(cmd, sizeof cmd, "/usr/bin/python3 '%s/peer_numpy.py' '%s' %s %lld %g 2>/dev/null", LBT_SOURCE_BENCHDIR,
	         path, c->steps ? "steps" : "balanced", (long long)(c->steps ? c->steps : INT64_MAX / 2), budget);
	FILE *p = popen(cmd, "r");
	if (!p)
		return -1;
	long long steps = 0;
	int ok = fscanf(p, "%lld %lf", &steps, &t->seconds) == 2;
	t->steps = steps;
	return pclose(p) == 0 && ok && steps > 0 ? 0 : -1;
}

static int have_numpy(void)
{
	return access("/usr/bin/python3", X_OK) == 0 &&
	       system("/usr/bin/python3 -c 'import numpy' >/dev/null 2>&1") == 0;
}

/* CPU seconds of the process so far. */
static double cpu_seconds(void)
{
	struct timespec t;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* A method beside its plain loop (bench/peer_methods.c). */
typedef struct {
	const char *method, *pname, *pvalue; /* lbtorus's method and the parameter that makes it the loop's */
	int peer, real;
	double param; /* the loop's number: the same alpha, lambda, or the weight Mr of uniform speeds */
} mcase;

/* lbtorus on one method case for `steps` steps, one thread (as lbtorus run
 * does it), its initial and final grids dense (int32 or double) into init,
 * out; the run's CPU seconds into *sec. */
static int run_method(const mcase *m, const char *shape, int64_t steps, void *init, void *out, double *sec, lbt_err *e)
{
	lbt_setup set = {.shape = shape, .method = m->method, .init = "uniform:0:100", .seed = 1, .threads = 1};
	if (m->pname)
		set.params[0] = (lbt_param_arg){m->pname, m->pvalue};
	lbt_state st;
	int s = lbt_state_open(&st, &set, e);
	if (s)
		return s;
	const lbt_field *f = lbt_grid_field(&st.grid, m->real ? "real" : "load");
	lbt_field_export(&st.grid, f, init);
	lbt_run_opts o = lbt_run_opts_default();
	o.max_steps = steps;
	o.until = (lbt_until){.kind = LBT_UNTIL_STEPS, .steps = steps};
	o.batch = 1;
	lbt_summary sum;
	const double t0 = cpu_seconds();
	s = lbt_run(&st, &o, &sum, e);
	const double t1 = cpu_seconds();
	if (!s && sum.steps != steps)
		s = lbt_errf(e, LBT_EINTERNAL, "%s stopped after %lld of %lld steps", m->method, (long long)sum.steps,
		             (long long)steps);
	if (!s) {
		*sec = t1 - t0;
		lbt_field_export(&st.grid, f, out);
	}
	lbt_state_close(&st);
	return s;
}

static int bench_methods(int quick, FILE *js)
{
	const mcase ms[] = {
		{"nna", NULL, NULL, PEER_NNA, 0, 0},
		{"nna-def", NULL, NULL, PEER_NNA_DEF, 0, 0},
		{"fos", "alpha", "0.2", PEER_FOS, 1, 0.2},
		{"fos-int", "alpha", "0.2", PEER_FOS_INT, 0, 0.2},
		{"ca", NULL, NULL, PEER_FOS, 1, 1.0 / 5}, /* Dickens's 1/(max(y,n)+k), k = 1, |Δ| = 4 */
		{"de", NULL, NULL, PEER_DE, 1, 0.5},
		{"de-int", NULL, NULL, PEER_DE_INT, 0, 0.5},
		{"de-axis", NULL, NULL, PEER_DE_AXIS, 1, 0.5},
		/* uniform speeds: Mr_ij = 1/2 min(delta_i, delta_j), delta = 1 / (1/2 + 4 * 1/2) (src/method/speed.c) */
		{"fos-speed", NULL, NULL, PEER_FOS_SPEED, 1, 0.5 * (1 / 2.5)},
		{"fos-speed-int", NULL, NULL, PEER_FOS_SPEED_INT, 0, 0.5 * (1 / 2.5)},
	};
	const struct {
		const char *shape;
		int64_t R, C, steps;
	} sizes[] = {{"128x128", 128, 128, quick ? 50 : 400}, {"1024x1024", 1024, 1024, quick ? 5 : 20}};
	const int reps = quick ? 2 : 3;
	printf("\npeers of the other methods: lbtorus run (1 thread) against the plain C loop (bench/peer_methods.c,\n"
	       "-O3 -march=native, 1 thread), 2-D torus, uniform:0:100, the same final state bit for bit;\n"
	       "CPU seconds, minimum of %d runs each; ratio = C loop time / lbtorus time\n", reps);
	printf("%-14s %-10s %6s %11s %11s %12s %8s\n", "method", "shape", "steps", "lbtorus cpu", "C loop cpu", "lbt upd/s",
	       "C/lbt");
	if (js)
		fprintf(js, ",\"method_peers\":[");
	int status = 0, first = 1;
	for (size_t z = 0; z < sizeof sizes / sizeof *sizes && !status; z++)
		for (size_t k = 0; k < sizeof ms / sizeof *ms && !status; k++) {
			const mcase *m = &ms[k];
			const int64_t P = sizes[z].R * sizes[z].C, cell = m->real ? 8 : 4;
			char *init = malloc((size_t)(P * cell)), *want = malloc((size_t)(P * cell)), *grid = malloc((size_t)(P * cell));
			double lbt = 1e300, cl = 1e300;
			int same = 1;
			lbt_err e;
			if (!init || !want || !grid)
				status = cli_fail(LBT_ENOMEM, "bench --peers: out of memory for %s", sizes[z].shape);
			for (int r = 0; r < reps && !status; r++) {
				double t;
				if ((status = run_method(m, sizes[z].shape, sizes[z].steps, init, want, &t, &e))) {
					status = cli_fail(status, "bench --peers: %s", e.msg);
					break;
				}
				lbt = t < lbt ? t : lbt;
				memcpy(grid, init, (size_t)(P * cell));
				const double t0 = cpu_seconds();
				if (peer_method_run(m->peer, grid, sizes[z].R, sizes[z].C, sizes[z].steps, m->param)) {
					status = cli_fail(LBT_ENOMEM, "bench --peers: out of memory in the C loop");
					break;
				}
				t = cpu_seconds() - t0;
				cl = t < cl ? t : cl;
				same &= !memcmp(grid, want, (size_t)(P * cell));
			}
			free(init);
			free(want);
			free(grid);
			if (status)
				break;
			const double rate = (double)(P * 2 * sizes[z].steps) / lbt; /* site updates: PEs x D per step */
			printf("%-14s %-10s %6lld %11.4f %11.4f %12.3g %8.2f%s\n", m->method, sizes[z].shape,
			       (long long)sizes[z].steps, lbt, cl, rate, cl / lbt, same ? "" : "  (C loop ended elsewhere!)");
			if (js)
				fprintf(js, "%s{\"method\":\"%s\",\"shape\":\"%s\",\"steps\":%lld,\"threads\":1,\"lbtorus_seconds\":%.6f,"
				            "\"c_loop_seconds\":%.6f,\"c_loop_same_state\":%s,\"site_updates_per_second\":%.6g,"
				            "\"c_loop_ratio\":%.4f}",
				        first ? "" : ",", m->method, sizes[z].shape, (long long)sizes[z].steps, lbt, cl,
				        same ? "true" : "false", rate, cl / lbt);
			first = 0;
			if (!same)
				status = cli_fail(LBT_EINTERNAL, "bench --peers: the C loop and lbtorus disagree on %s %s", m->method,
				                  sizes[z].shape);
		}
	if (js)
		fprintf(js, "]");
	return status;
}

int cli_bench_peers(int quick, int ncores, FILE *js)
{
	const int64_t big_steps = quick ? 20 : 2000;
	const pcase cases[] = {
		{"128x128", "worst:5", 0, 1},
		{"128x128", "uniform:0:100", 2000, 1},
		{"128x128", "uniform:0:100", 2000, 0},
		{"4096x4096", "uniform:0:100", big_steps, 1},
		{"4096x4096", "uniform:0:100", big_steps, 0},
	};
	const int reps = quick ? 1 : 3;
	const double np_budget = quick ? 5 : 30;
	const int numpy = have_numpy();
	printf("\npeers: lm-c5 on a torus, lbtorus (%s) against a plain C loop (bench/peer_lm_c5.c, one thread),\n"
	       "the strong peer (bench/peer_lm_c5_strong.c, the case's threads)%s;\n"
	       "minimum of %d runs each; ratio = peer time / lbtorus time per step\n",
	       "lbtorus run", numpy ? " and NumPy (bench/peer_numpy.py, once)" : " (no NumPy: python3 -c 'import numpy' failed)",
	       reps);
	printf("%-10s %-14s %6s %3s %10s %10s %10s %10s %7s %8s %8s %8s\n", "shape", "init", "steps", "thr", "lbtorus s",
	       "C loop s", "strong s", "NumPy s", "np steps", "C/lbt", "strong/lbt", "NumPy/lbt");
	if (js)
		fprintf(js, ",\"peers\":[");
	int status = 0;
	for (size_t ci = 0; ci < sizeof cases / sizeof cases[0] && !status; ci++) {
		const pcase *c = &cases[ci];
		const int thr = c->threads ? c->threads : ncores;
		lbt_shape sh;
		lbt_err e;
		if (lbt_shape_parse(&sh, c->shape, &e))
			return cli_fail(LBT_EINTERNAL, "bench --peers: %s", e.msg);
		const int64_t P = lbt_shape_pes(&sh);
		int32_t *init = malloc((size_t)P * sizeof *init), *want = malloc((size_t)P * sizeof *want);
		int32_t *grid = malloc((size_t)P * sizeof *grid);
		if (!init || !want || !grid) {
			free(init);
			free(want);
			free(grid);
			return cli_fail(LBT_ENOMEM, "bench --peers: out of memory for %s", c->shape);
		}
		ptime lbt = {1e300, 0}, cl = {1e300, 0}, sp = {1e300, 0}, np = {0, 0};
		int same = 1;
		for (int r = 0; r < reps && !status; r++) {
			ptime t;
			int s = time_lbtorus(c, thr, &t, init, want, &e);
			if (s) {
				status = cli_fail(s, "bench --peers: %s", e.msg);
				break;
			}
			lbt = t.seconds < lbt.seconds ? t : lbt;
			for (int strong = 0; strong < 2 && !status; strong++) {
				const int64_t steps = time_peer(strong, grid, init, &sh, c->steps, thr, &t);
				if (steps < 0) {
					status = cli_fail(LBT_ENOMEM, "bench --peers: out of memory in %s",
					                  strong ? "the strong peer" : "the C loop");
					break;
				}
				ptime *best = strong ? &sp : &cl;
				*best = t.seconds < best->seconds ? t : *best;
				same &= steps == lbt.steps && !memcmp(grid, want, (size_t)P * sizeof *grid);
			}
		}
		int have_np = 0;
		if (!status && numpy) {
			char path[] = "/tmp/lbtorus-peers-XXXXXX";
			int fd = mkstemp(path);
			if (fd >= 0) {
				close(fd);
				if (!lbt_npy_write(path, &sh, init, &e))
					have_np = !time_numpy(c, path, np_budget, &np);
				unlink(path);
			}
		}
		free(init);
		free(want);
		free(grid);
		if (status)
			break;
		const double per = lbt.seconds / (double)lbt.steps;
		const double rc = cl.seconds / (double)cl.steps / per, rs = sp.seconds / (double)sp.steps / per;
		const double rn = have_np ? np.seconds / (double)np.steps / per : 0;
		char nps[32] = "-", npn[32] = "-", rns[32] = "-";
		if (have_np) {
			snprintf(nps, sizeof nps, "%.3f", np.seconds);
			snprintf(npn, sizeof npn, "%lld", (long long)np.steps);
			snprintf(rns, sizeof rns, "%.1f", rn);
		}
		printf("%-10s %-14s %6lld %3d %10.4f %10.4f %10.4f %10s %7s %8.2f %10.2f %8s%s\n", c->shape, c->init,
		       (long long)lbt.steps, thr, lbt.seconds, cl.seconds, sp.seconds, nps, npn, rc, rs, rns,
		       same ? "" : "  (a C loop ended elsewhere!)");
		if (js)
			fprintf(js, "%s{\"shape\":\"%s\",\"init\":\"%s\",\"steps\":%lld,\"threads\":%d,\"lbtorus_seconds\":%.6f,"
			            "\"c_loop_seconds\":%.6f,\"c_loop_same_state\":%s,\"c_loop_ratio\":%.4f,"
			            "\"strong_seconds\":%.6f,\"strong_ratio\":%.4f,"
			            "\"numpy_seconds\":%.6f,\"numpy_steps\":%lld,\"numpy_ratio\":%.4f}",
			        ci ? "," : "", c->shape, c->init, (long long)lbt.steps, thr, lbt.seconds, cl.seconds,
			        same ? "true" : "false", rc, sp.seconds, rs, np.seconds, (long long)np.steps, rn);
		if (!same)
			status = cli_fail(LBT_EINTERNAL, "bench --peers: the C loop and lbtorus disagree on %s %s", c->shape, c->init);
	}
	if (js)
		fprintf(js, "]");
	return status ? status : bench_methods(quick, js);
}

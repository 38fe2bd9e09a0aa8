/* bench_peers.c — `lbtorus bench --peers`: lbtorus beside what a researcher
 * writes first, timed in the same run on the same grids: the plain C loop
 * of LM-C5 (bench/peer_lm_c5.c), the strong peer (bench/peer_lm_c5_strong.c:
 * narrow loads, branch-free, restrict, OpenMP over rows, on the case's
 * threads) and, when python3 has NumPy, the NumPy version (bench/peer_numpy.py).
 *
 * Each case runs lbtorus (through the public API's lbt_sim_run, as `lbtorus
 * run` does) and the C loop `reps` times, interleaved, and keeps the minimum
 * of each: on a shared machine the minimum is the least disturbed run. The C
 * loop must end in the same state, bit for bit, or the row says so (so must
 * the strong peer). A case of N fixed steps times the N - 1 steps after the
 * first on each side: the least run of N steps less the least run of one
 * (as docs/performance.md's CPU-time tables do), so that what a run does
 * once (allocating and first touching its buffers, the statistics at its
 * ends) is in neither side's figure; a case until balanced times the whole
 * run. NumPy runs once, under a time budget; when it stops early, its time
 * per step is what is compared. Ratios (peer time / lbtorus time, per step)
 * are the figures to quote.
 *
 * Then every other method (the Liquid model's C0-C4 too) beside its plain C
 * loop (bench/peer_methods.c) on 2-D tori from uniform:0:100 (luling-monien,
 * which acts only on a change of a PE's load, with the workload
 * PEER_LULING_WORKLOAD, which its loop runs too), one thread each, a fixed
 * number of steps (method_steps); the loop must end in lbtorus's state, bit
 * for bit, or the run fails. Both are timed in CPU time of the process (one
 * thread each), which a machine shared with other work disturbs far less
 * than the wall clock.
 *
 * The peers are the CLI's own code (bench/, outside the library): this file
 * includes their headers beside cli.h, and reaches lbtorus through the public
 * API only. */
#ifndef _GNU_SOURCE /* meson gives -D_GNU_SOURCE; compiled alone, POSIX 2008 has clock_gettime, mkstemp, popen */
#define _POSIX_C_SOURCE 200809L
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "../../bench/peer_lm_c5.h"
#include "../../bench/peer_lm_c5_strong.h"
#include "../../bench/peer_methods.h"

#ifndef LBT_SOURCE_BENCHDIR
#error "meson passes -DLBT_SOURCE_BENCHDIR (the peers' scripts)"
#endif

/* Seconds of the clock `id` (CLOCK_MONOTONIC: the wall; CLOCK_PROCESS_CPUTIME_ID: the process's CPU). */
static double seconds(clockid_t id)
{
	struct timespec t;
	clock_gettime(id, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* ---- lbtorus through the public API ------------------------------------- */

/* A dense row-major R x C array of `dtype` ("<i4" or "<f8", cell bytes) at data. */
static lbt_array dense(void *data, const char *dtype, int64_t R, int64_t C, int64_t cell)
{
	lbt_array a = {.data = data, .ndim = 2, .shape = {R, C}, .strides = {C * cell, cell}};
	snprintf(a.dtype, sizeof a.dtype, "%s", dtype);
	return a;
}

/* One run of c as `lbtorus run` runs it, on an R x C torus: the field's
 * ("load" or "real") initial and final states into init and out (dense), the
 * result into *r and the process's CPU seconds of the run into *cpu. */
static int run_lbtorus(const lbt_config *c, const char *field, int64_t R, int64_t C, void *init, void *out,
                       lbt_result *r, double *cpu, lbt_err *e)
{
	const int real = !strcmp(field, "real");
	const lbt_array a0 = dense(init, real ? "<f8" : "<i4", R, C, real ? 8 : 4),
	                a1 = dense(out, real ? "<f8" : "<i4", R, C, real ? 8 : 4);
	lbt_sim *sim;
	int s = lbt_sim_open(&sim, c, e);
	if (s)
		return s;
	if (!(s = lbt_sim_field_read(sim, field, &a0, e))) {
		const double t0 = seconds(CLOCK_PROCESS_CPUTIME_ID);
		s = lbt_sim_run(sim, NULL, NULL, e);
		*cpu = seconds(CLOCK_PROCESS_CPUTIME_ID) - t0;
	}
	if (!s && !(s = lbt_sim_result(sim, r, e)))
		s = lbt_sim_field_read(sim, field, &a1, e);
	lbt_sim_close(sim);
	return s;
}

/* ---- LM-C5 beside the plain C loop, the strong peer and NumPy ----------- */

typedef struct {
	const char *shape;
	int64_t R, C; /* the shape's extents */
	const char *init;
	int64_t steps; /* 0: until balanced */
	int threads;   /* 0: all cores */
} pcase;

typedef struct {
	double seconds;
	int64_t steps;
} ptime;

/* One side's least runs (lbtorus or a peer): of the case, and of one step
 * (its steps 0 where the case does not time one). */
typedef struct {
	ptime whole, one;
} pside;

#define PSIDE_NONE ((pside){{1e300, 0}, {1e300, 0}})

static void keep_least(ptime *k, ptime t)
{
	if (t.seconds < k->seconds)
		*k = t;
}

/* The steps after the first: the least run of the case less the least run
 * of one step (what a run does once left out); a case that timed no
 * one-step run (until balanced) is its whole run. */
static ptime warm(const pside *s)
{
	return s->one.steps ? (ptime){s->whole.seconds - s->one.seconds, s->whole.steps - s->one.steps} : s->whole;
}

/* A case's grids (dense int32): the initial one, lbtorus's final one, the peers'. */
typedef struct {
	int32_t *init, *want, *grid;
} pgrids;

/* One run of the plain C loop (strong = 0) or the strong peer from init for
 * `steps` steps (0: until balanced), left in grid; its steps (negative: out
 * of memory) and time into *t. */
static int64_t time_peer(int strong, const pcase *c, int64_t steps, const pgrids *g, int thr, ptime *t)
{
	memcpy(g->grid, g->init, (size_t)(c->R * c->C) * sizeof *g->grid);
	const int64_t cap = steps ? steps : INT64_MAX;
	double t0 = seconds(CLOCK_MONOTONIC);
	t->steps = strong ? peer_lm_c5_strong(g->grid, c->R, c->C, cap, !steps, thr)
	                  : peer_lm_c5(g->grid, c->R, c->C, cap, !steps);
	t->seconds = seconds(CLOCK_MONOTONIC) - t0;
	return t->steps;
}

/* One lbtorus run of case c for `steps` steps (0: until balanced) from
 * g->init, its final grid into out, its time (the run's own) into *t. */
static int time_lbtorus(const pcase *c, int64_t steps, int threads, const volatile sig_atomic_t *stop, ptime *t,
                        const pgrids *g, int32_t *out, lbt_err *e)
{
	char until[40];
	snprintf(until, sizeof until, steps ? "steps:%lld" : "balanced", (long long)steps);
	lbt_config cf = lbt_config_default();
	cf.shape = c->shape;
	cf.method = "lm-c5";
	cf.init = c->init;
	cf.threads = threads;
	cf.until = until;
	cf.max_steps = steps ? steps : INT64_MAX;
	cf.interrupt = stop;
	lbt_result r;
	double cpu;
	int s = run_lbtorus(&cf, "load", c->R, c->C, g->init, out, &r, &cpu, e);
	if (!s) {
		t->seconds = r.seconds;
		t->steps = r.steps;
	}
	return s;
}

/* Case c `reps` times, lbtorus and the two peers interleaved, each its run
 * of the case and (a case of N > 1 fixed steps) its run of one step, the
 * least of each kind into side[0] (lbtorus), side[1] (the C loop) and
 * side[2] (the strong peer); *same: both peers' runs of the case ended in
 * lbtorus's state. */
static int time_lm_case(const pcase *c, int thr, int reps, const volatile sig_atomic_t *stop, const pgrids *g,
                        pside side[3], int *same)
{
	const int warm_too = c->steps > 1;
	for (int r = 0; r < reps; r++)
		for (int w = 0; w <= warm_too; w++) {
			const int64_t steps = w ? 1 : c->steps;
			ptime t;
			lbt_err e;
			int s = time_lbtorus(c, steps, thr, stop, &t, g, w ? g->grid : g->want, &e);
			if (s)
				return cli_fail(s, "bench --peers: %s", e.msg);
			const int64_t ran = t.steps;
			for (int i = 0; i < 3; i++) { /* i = 1 + strong */
				if (i && time_peer(i - 1, c, steps, g, thr, &t) < 0)
					return cli_fail(LBT_ENOMEM, "bench --peers: out of memory in %s",
					                i == 2 ? "the strong peer" : "the C loop");
				keep_least(w ? &side[i].one : &side[i].whole, t);
				if (i && !w)
					*same &= t.steps == ran && !memcmp(g->grid, g->want, (size_t)(c->R * c->C) * sizeof *g->grid);
			}
		}
	return 0;
}

/* The R x C int32 grid as a NumPy .npy file (format 1.0, little-endian). */
static int write_npy(const char *path, const int32_t *grid, int64_t R, int64_t C)
{
	char h[128];
	int n = snprintf(h, sizeof h, "{'descr': '<i4', 'fortran_order': False, 'shape': (%lld, %lld), }",
	                 (long long)R, (long long)C);
	const int total = (10 + n + 1 + 63) / 64 * 64; /* magic, version, length, the dict, '\n': a multiple of 64 */
	while (10 + n + 1 < total)
		h[n++] = ' ';
	h[n++] = '\n';
	FILE *f = fopen(path, "wb");
	if (!f)
		return -1;
	const unsigned char len[2] = {(unsigned char)(n & 0xff), (unsigned char)(n >> 8)};
	int ok = fwrite("\x93NUMPY\x01\x00", 1, 8, f) == 8 && fwrite(len, 1, 2, f) == 2 &&
	         fwrite(h, 1, (size_t)n, f) == (size_t)n &&
	         fwrite(grid, sizeof *grid, (size_t)(R * C), f) == (size_t)(R * C);
	return fclose(f) == 0 && ok ? 0 : -1;
}

/* NumPy on case c from init, under a time budget: returns 0 and fills t, or -1 if it did not run. */
static int time_numpy(const pcase *c, const int32_t *init, double budget, ptime *t)
{
	char path[] = "/tmp/lbtorus-peers-XXXXXX";
	int fd = mkstemp(path);
	if (fd < 0)
		return -1;
	close(fd);
	int ok = -1;
	char cmd[1024];
	snprintf(cmd, sizeof cmd, "/usr/bin/python3 '%s/peer_numpy.py' '%s' %s %lld %g 2>/dev/null", LBT_SOURCE_BENCHDIR,
	         path, c->steps ? "steps" : "balanced", (long long)(c->steps ? c->steps : INT64_MAX / 2), budget);
	FILE *p = write_npy(path, init, c->R, c->C) ? NULL : popen(cmd, "r");
	if (p) {
		long long steps = 0;
		int read = fscanf(p, "%lld %lf", &steps, &t->seconds) == 2;
		t->steps = steps;
		ok = pclose(p) == 0 && read && steps > 0 ? 0 : -1;
	}
	unlink(path);
	return ok;
}

static int have_numpy(void)
{
	return access("/usr/bin/python3", X_OK) == 0 &&
	       system("/usr/bin/python3 -c 'import numpy' >/dev/null 2>&1") == 0;
}

/* The table's row of case ci and its element of the JSON array "peers";
 * np: NULL if NumPy did not run. */
static void print_lm_row(size_t ci, const pcase *c, int thr, const pside side[3], const ptime *np, int same, FILE *js)
{
	const ptime l = warm(&side[0]), k = warm(&side[1]), p = warm(&side[2]), *lbt = &l, *cl = &k, *sp = &p;
	const double per = lbt->seconds / (double)lbt->steps;
	const double rc = cl->seconds / (double)cl->steps / per, rs = sp->seconds / (double)sp->steps / per;
	const double rn = np ? np->seconds / (double)np->steps / per : 0;
	char nps[32] = "-", npn[32] = "-", rns[32] = "-";
	if (np) {
		snprintf(nps, sizeof nps, "%.3f", np->seconds);
		snprintf(npn, sizeof npn, "%lld", (long long)np->steps);
		snprintf(rns, sizeof rns, "%.1f", rn);
	}
	printf("%-10s %-14s %6lld %3d %10.4f %10.4f %10.4f %10s %7s %8.2f %10.2f %8s%s\n", c->shape, c->init,
	       (long long)lbt->steps, thr, lbt->seconds, cl->seconds, sp->seconds, nps, npn, rc, rs, rns,
	       same ? "" : "  (a C loop ended elsewhere!)");
	if (js)
		fprintf(js, "%s{\"shape\":\"%s\",\"init\":\"%s\",\"steps\":%lld,\"timed\":\"%s\",\"threads\":%d,"
		            "\"lbtorus_seconds\":%.6f,"
		            "\"c_loop_seconds\":%.6f,\"c_loop_same_state\":%s,\"c_loop_ratio\":%.4f,"
		            "\"strong_seconds\":%.6f,\"strong_ratio\":%.4f,"
		            "\"numpy_seconds\":%.6f,\"numpy_steps\":%lld,\"numpy_ratio\":%.4f}",
		        ci ? "," : "", c->shape, c->init, (long long)lbt->steps, c->steps > 1 ? "after the first" : "the run",
		        thr, lbt->seconds, cl->seconds,
		        same ? "true" : "false", rc, sp->seconds, rs, np ? np->seconds : 0, np ? (long long)np->steps : 0, rn);
}

/* The LM-C5 cases: the table and the JSON array "peers"; an exit status. */
static int bench_lm(int quick, int ncores, const volatile sig_atomic_t *stop, FILE *js)
{
	const int64_t big_steps = quick ? 20 : 2000;
	const pcase cases[] = {
		{"128x128", 128, 128, "worst:5", 0, 1},
		{"128x128", 128, 128, "uniform:0:100", 2000, 1},
		{"128x128", 128, 128, "uniform:0:100", 2000, 0},
		{"4096x4096", 4096, 4096, "uniform:0:100", big_steps, 1},
		{"4096x4096", 4096, 4096, "uniform:0:100", big_steps, 0},
	};
	const int reps = quick ? 2 : 3;
	const double np_budget = quick ? 5 : 30;
	const int numpy = have_numpy();
	printf("\npeers: lm-c5 on a torus, lbtorus (%s) against a plain C loop (bench/peer_lm_c5.c, one thread),\n"
	       "the strong peer (bench/peer_lm_c5_strong.c, the case's threads)%s;\n"
	       "minimum of %d runs each; ratio = peer time / lbtorus time per step; a case of N fixed steps\n"
	       "times the N-1 after the first (the least run of N less the least of 1, each side), one until\n"
	       "balanced the whole run\n",
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
		const size_t bytes = (size_t)(c->R * c->C) * sizeof(int32_t);
		pgrids g = {malloc(bytes), malloc(bytes), malloc(bytes)};
		pside side[3] = {PSIDE_NONE, PSIDE_NONE, PSIDE_NONE};
		ptime np = {0, 0};
		int same = 1, have_np = 0;
		if (!g.init || !g.want || !g.grid)
			status = cli_fail(LBT_ENOMEM, "bench --peers: out of memory for %s", c->shape);
		if (!status)
			status = time_lm_case(c, thr, reps, stop, &g, side, &same);
		if (!status && numpy)
			have_np = !time_numpy(c, g.init, np_budget, &np);
		free(g.init);
		free(g.want);
		free(g.grid);
		if (status)
			break;
		print_lm_row(ci, c, thr, side, have_np ? &np : NULL, same, js);
		if (!same)
			status = cli_fail(LBT_EINTERNAL, "bench --peers: the C loop and lbtorus disagree on %s %s", c->shape, c->init);
	}
	if (js)
		fprintf(js, "]");
	return status;
}

/* ---- the other methods beside their plain C loops ----------------------- */

/* A method beside its plain loop (bench/peer_methods.c). */
typedef struct {
	const char *method, *pname, *pvalue; /* lbtorus's method and the parameter that makes it the loop's */
	int peer, real;
	double param; /* the loop's number: the same alpha, lambda, or the weight Mr of uniform speeds */
} mcase;

typedef struct {
	const char *shape;
	int64_t R, C, steps;
} msize;

/* lbtorus on one method case for `steps` steps, one thread (as lbtorus run
 * does it), its initial and final grids dense (int32 or double) into init,
 * out; the run's CPU seconds into *sec. */
static int run_method(const mcase *m, const msize *z, int64_t steps, const volatile sig_atomic_t *stop, void *init,
                      void *out, double *sec, lbt_err *e)
{
	char until[40];
	snprintf(until, sizeof until, "steps:%lld", (long long)steps);
	lbt_config cf = lbt_config_default();
	cf.shape = z->shape;
	cf.method = m->method;
	cf.init = "uniform:0:100";
	cf.threads = 1;
	cf.until = until;
	cf.max_steps = steps;
	cf.interrupt = stop;
	cf.workload = m->peer == PEER_LULING ? PEER_LULING_WORKLOAD : NULL;
	int s = m->pname ? lbt_config_param(&cf, m->pname, m->pvalue, e) : 0;
	lbt_result r;
	if (!s)
		s = run_lbtorus(&cf, m->real ? "real" : "load", z->R, z->C, init, out, &r, sec, e);
	if (!s && r.steps != steps)
		s = cli_fail(LBT_EINTERNAL, "bench --peers: %s stopped after %lld of %lld steps", m->method,
		             (long long)r.steps, (long long)steps);
	else if (s)
		s = cli_fail(s, "bench --peers: %s", e->msg);
	return s;
}

/* The steps of method m's case on size z: the Liquid model's, a tenth of
 * the others' cost a step, twenty times as many (a case of 50 such steps
 * on 128x128 is some 50 microseconds). */
static int64_t method_steps(const mcase *m, const msize *z)
{
	return m->peer == PEER_LM ? 20 * (z->steps - 1) + 1 : z->steps;
}

/* Method m on size z `reps` times, lbtorus and its C loop interleaved, each
 * a run of its steps (method_steps) and a run of one step, the least CPU seconds of each
 * kind into side[0] (lbtorus) and side[1] (the C loop); *same: the loop's
 * runs of its steps ended in lbtorus's state every time. init, want, grid:
 * room for the grid; ws: the C loop's workspace (peer_method_run), touched
 * before. */
static int time_method_case(const mcase *m, const msize *z, int reps, const volatile sig_atomic_t *stop, char *init,
                            char *want, char *grid, int64_t *ws, pside side[2], int *same)
{
	const size_t bytes = (size_t)(z->R * z->C * (m->real ? 8 : 4));
	for (int r = 0; r < reps; r++)
		for (int w = 0; w < 2; w++) {
			const int64_t steps = w ? 1 : method_steps(m, z);
			ptime t = {0, steps};
			lbt_err e;
			int s = run_method(m, z, steps, stop, init, w ? grid : want, &t.seconds, &e);
			if (s)
				return s;
			keep_least(w ? &side[0].one : &side[0].whole, t);
			memcpy(grid, init, bytes);
			const double t0 = seconds(CLOCK_PROCESS_CPUTIME_ID);
			if (m->peer == PEER_LULING) /* lbtorus's draws: the run's seed, the default delta */
				peer_luling_run((int32_t *)grid, z->R, z->C, steps, lbt_config_default().seed, m->param, 1, ws);
			else
				peer_method_run(m->peer, grid, z->R, z->C, steps, m->param, ws);
			t.seconds = seconds(CLOCK_PROCESS_CPUTIME_ID) - t0;
			keep_least(w ? &side[1].one : &side[1].whole, t);
			if (!w)
				*same &= !memcmp(grid, want, bytes);
		}
	return 0;
}

/* The table's row and the element of the JSON array "method_peers": the
 * steps after the first, each side, and the whole runs' ratio beside. */
static void print_method_row(const mcase *m, const msize *z, const pside side[2], int same, int first, FILE *js)
{
	const ptime l = warm(&side[0]), k = warm(&side[1]);
	const double lbt = l.seconds, cl = k.seconds, run[2] = {side[0].whole.seconds, side[1].whole.seconds};
	const double rate = (double)(z->R * z->C * 2 * l.steps) / lbt; /* site updates: PEs x D per step */
	printf("%-14s %-10s %6lld %11.4f %11.4f %12.3g %8.2f %8.2f%s\n", m->method, z->shape, (long long)l.steps,
	       lbt, cl, rate, cl / lbt, run[1] / run[0], same ? "" : "  (C loop ended elsewhere!)");
	if (js)
		fprintf(js, "%s{\"method\":\"%s\",\"shape\":\"%s\",\"steps\":%lld,\"timed\":\"after the first\","
		            "\"threads\":1,\"lbtorus_seconds\":%.6f,\"c_loop_seconds\":%.6f,\"c_loop_same_state\":%s,"
		            "\"site_updates_per_second\":%.6g,\"c_loop_ratio\":%.4f,\"run_steps\":%lld,"
		            "\"lbtorus_run_seconds\":%.6f,\"c_loop_run_seconds\":%.6f,\"c_loop_run_ratio\":%.4f}",
		        first ? "" : ",", m->method, z->shape, (long long)l.steps, lbt, cl, same ? "true" : "false",
		        rate, cl / lbt, (long long)side[0].whole.steps, run[0], run[1], run[1] / run[0]);
}

static const mcase ms[] = {
	/* the Liquid model's other conditions (LM-C5 has its own cases, above) */
	{"lm-c0", NULL, NULL, PEER_LM, 0, 0},
	{"lm-c1", NULL, NULL, PEER_LM, 0, 1},
	{"lm-c2", NULL, NULL, PEER_LM, 0, 2},
	{"lm-c3", NULL, NULL, PEER_LM, 0, 3},
	{"lm-c4", NULL, NULL, PEER_LM, 0, 4},
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
	{"luling-monien", NULL, NULL, PEER_LULING, 0, 1.1}, /* the defaults: f = 1.1, delta 1, partners anywhere */
};

/* Whether the comma-separated list `methods` names `name` (NULL: every method). */
static int wanted(const char *methods, const char *name)
{
	const size_t n = strlen(name);
	for (const char *p = methods; p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
		if (!strncmp(p, name, n) && (p[n] == ',' || !p[n]))
			return 1;
	return !methods;
}

static int bench_methods(int quick, const char *methods, const volatile sig_atomic_t *stop, FILE *js)
{
	const msize sizes[] = {{"128x128", 128, 128, quick ? 51 : 401}, {"1024x1024", 1024, 1024, quick ? 41 : 101}};
	const int reps = quick ? 2 : 3;
	printf("\npeers of the other methods: lbtorus run (1 thread) against the plain C loop (bench/peer_methods.c,\n"
	       "-O3 -march=native, 1 thread), 2-D torus, uniform:0:100 (luling-monien with the workload\n"
	       "%s), the same final state bit for bit;\n"
	       "CPU seconds of the steps after the first: the least of %d runs of steps + 1 less the least of\n"
	       "%d runs of one step, each side (what a run does once left out); C/lbt = C loop time / lbtorus\n"
	       "time; whole runs: the same of the whole runs of steps + 1\n", PEER_LULING_WORKLOAD, reps, reps);
	printf("%-14s %-10s %6s %11s %11s %12s %8s %8s\n", "method", "shape", "steps", "lbtorus cpu", "C loop cpu",
	       "lbt upd/s", "C/lbt", "whole runs");
	if (js)
		fprintf(js, ",\"method_peers\":[");
	int status = 0, first = 1;
	for (size_t zi = 0; zi < sizeof sizes / sizeof *sizes && !status; zi++)
		for (size_t k = 0; k < sizeof ms / sizeof *ms && !status; k++) {
			const mcase *m = &ms[k];
			const msize *z = &sizes[zi];
			if (!wanted(methods, m->method))
				continue;
			const size_t bytes = (size_t)(z->R * z->C * (m->real ? 8 : 4));
			char *init = malloc(bytes), *want = malloc(bytes), *grid = malloc(bytes);
			int64_t *ws = malloc((size_t)(4 * z->R * z->C) * sizeof *ws); /* the C loop's flows, touched here */
			pside side[2] = {PSIDE_NONE, PSIDE_NONE};
			int same = 1;
			if (!init || !want || !grid || !ws)
				status = cli_fail(LBT_ENOMEM, "bench --peers: out of memory for %s", z->shape);
			else {
				memset(ws, 0, (size_t)(4 * z->R * z->C) * sizeof *ws);
				status = time_method_case(m, z, reps, stop, init, want, grid, ws, side, &same);
			}
			free(init);
			free(want);
			free(grid);
			free(ws);
			if (status)
				break;
			print_method_row(m, z, side, same, first, js);
			first = 0;
			if (!same)
				status = cli_fail(LBT_EINTERNAL, "bench --peers: the C loop and lbtorus disagree on %s %s", m->method,
				                  z->shape);
		}
	if (js)
		fprintf(js, "]");
	return status;
}

int cli_bench_peers(int quick, const char *methods, int ncores, const volatile sig_atomic_t *stop, FILE *js)
{
	for (const char *p = methods; p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL) {
		const size_t n = strcspn(p, ",");
		int known = n == 5 && !strncmp(p, "lm-c5", 5);
		for (size_t k = 0; k < sizeof ms / sizeof *ms && !known; k++)
			known = strlen(ms[k].method) == n && !strncmp(p, ms[k].method, n);
		if (!known) {
			char list[256] = "lm-c5";
			for (size_t k = 0; k < sizeof ms / sizeof *ms; k++)
				snprintf(list + strlen(list), sizeof list - strlen(list), ", %s", ms[k].method);
			return cli_fail(LBT_EINVAL, "bench --peers: no peer for method '%.*s' (peers: %s)", (int)n, p, list);
		}
	}
	int status = 0, others = 0;
	if (wanted(methods, "lm-c5"))
		status = bench_lm(quick, ncores, stop, js);
	else if (js)
		fprintf(js, ",\"peers\":[]");
	for (size_t k = 0; k < sizeof ms / sizeof *ms; k++)
		others |= wanted(methods, ms[k].method);
	if (!others && js)
		fprintf(js, ",\"method_peers\":[]");
	return status || !others ? status : bench_methods(quick, methods, stop, js);
}

/* speed.c — relative-speed diffusion with cost/benefit and the annealing
 * shake (kernels/ref/speed.c; Jeannot and Vernier 2006) against its vector
 * kernel (kernels/simd/speed.c) on every ISA, on 1 to 3 threads, integer and
 * real loads, with and without cost/benefit and shake, with and without
 * the balancing times, every shape x boundary x every third load: loads,
 * counters, the statistics a kernel gives, each PE's balancing time and the
 * links' blocked counts (kept with the shake only, as the method keeps them). */
#include <stdlib.h>
#include <string.h>

#include "checkasm.h"

typedef struct {
	int real, cb;
	double shake_p;
	int times; /* the balancing times asked for (the shake asks for them: its budgets) */
	int sym;   /* Mr symmetric, passed as one array (1) or as one number (2: the method's equal speeds on a torus) */
} speed_mode;

/* One side's state: what a step updates (U, lb, active) is per side. */
typedef struct {
	lbt_speed_args a;
	double *cn, *fwd, *bwd, *k;
} side;

static void side_open(side *s, const lbt_shape *sh, const speed_mode *m)
{
	const int64_t P = lbt_shape_pes(sh), L = sh->dims * P;
	s->cn = malloc((size_t)P * sizeof *s->cn);
	s->k = malloc((size_t)P * sizeof *s->k);
	s->fwd = m->sym == 2 ? NULL : malloc((size_t)L * sizeof *s->fwd);
	s->bwd = m->sym ? s->fwd : malloc((size_t)L * sizeof *s->bwd);
	for (int64_t i = 0; i < P; i++) {
		s->cn[i] = (double)(1 + i % 3) / 2; /* speeds 0.5, 1, 1.5: mean 1 over whole periods */
		s->k[i] = 1 + (double)(i % 5);
	}
	for (int64_t l = 0; l < L && s->fwd; l++) { /* weights of a few links of each PE: at most 1 in all */
		s->fwd[l] = (double)(1 + l % 4) / (4.0 * (2 * sh->dims + 1));
		if (!m->sym)
			s->bwd[l] = (double)(1 + (l + 1) % 4) / (4.0 * (2 * sh->dims + 1));
	}
	s->a = (lbt_speed_args){.real = m->real, .cn = s->cn, .mr_fwd = s->fwd, .mr_bwd = s->bwd, .cb = m->cb, .k = s->k,
	                        .mr = 3.0 / (7.0 * (2 * sh->dims + 1)), /* sym 2: one weight, an awkward one */
	                        .shake_p = m->shake_p, .shake_tau = 3,
	                        .U = m->shake_p > 0 ? calloc((size_t)L, sizeof(int32_t)) : NULL,
	                        .net = {.lat = 1e-5, .bw = 1e8, .unit_bytes = 1e3, .unit_s = 1e-4, .pack_s = 1e-6,
	                                .info_bytes = 16, .app_bytes = 1e3},
	                        .lb = m->times || m->shake_p > 0 ? calloc((size_t)P, sizeof(double)) : NULL};
}

static void side_close(side *s)
{
	if (s->bwd != s->fwd)
		free(s->bwd);
	free(s->cn), free(s->k), free(s->fwd);
	free(s->a.U), free(s->a.lb);
}

static void speed_case(const lbt_shape *s, const speed_mode *m, int kind, int threads, int steps)
{
	ck_pair p;
	ck_pair_open(&p, s, kind, threads, (uint64_t)lbt_shape_pes(s) * 53 + (uint64_t)kind, CK_BELOW_MAX | (m->real ? CK_REAL : 0));
	p.vr.seed = p.vv.seed = 11;
	side r, v;
	side_open(&r, s, m);
	side_open(&v, s, m);
	const int64_t P = lbt_shape_pes(s), L = s->dims * P;
	for (int t = 1; t <= steps; t++) {
		p.vr.step = p.vv.step = t - 1;
		lbt_counts cr = {0}, cv = {0};
		call_ref(speed_step, &p.vr, &r.a, &cr);
		call_new(speed_step, &p.vv, &v.a, &cv);
		ck_same_grids(&p, m->real ? "speed (real)" : "speed", kind, t);
		cr_assert(cr.moved == cv.moved && cr.shifts == cv.shifts && cr.links_exchanged == cv.links_exchanged &&
		          cr.shaken == cv.shaken && !memcmp(&cr.real_moved, &cv.real_moved, sizeof cr.real_moved) &&
		          !memcmp(&cr.real_shifts, &cv.real_shifts, sizeof cr.real_shifts) && cr.link_max == cv.link_max,
		          "speed (real %d, cb %d, shake %g) on %s: shape %s (%s), load %s, %d threads: step %d counters differ",
		          m->real, m->cb, m->shake_p, ck_new->isa, p.sh, p.bd, ck_load_names[kind], threads, t);
		cr_assert((!r.a.U || !memcmp(r.a.U, v.a.U, (size_t)L * sizeof *r.a.U)) &&
		          (!r.a.lb || !memcmp(r.a.lb, v.a.lb, (size_t)P * sizeof *r.a.lb)),
		          "speed (real %d, cb %d, shake %g) on %s: shape %s (%s), load %s: step %d: blocked counts or balancing "
		          "times differ", m->real, m->cb, m->shake_p, ck_new->isa, p.sh, p.bd, ck_load_names[kind], t);
		lbt_stats st; /* a kernel that measured the state it left measured it as the engine would */
		if (m->real) {
			lbt_field_stats(&p.ref, lbt_grid_field(&p.ref, "real"), 1, &st);
			cr_assert(!cv.has_stats || (!memcmp(&st.max, &cv.real_max, sizeof st.max) &&
			                            !memcmp(&st.min, &cv.real_min, sizeof st.min) &&
			                            !memcmp(&st.rtotal, &cv.real_total, sizeof st.rtotal)),
			          "speed (real) on %s: shape %s (%s), load %s, %d threads: step %d statistics max %.17g min %.17g "
			          "total %.17g, want %.17g %.17g %.17g", ck_new->isa, p.sh, p.bd, ck_load_names[kind], threads, t,
			          cv.real_max, cv.real_min, cv.real_total, st.max, st.min, st.rtotal);
		} else {
			lbt_grid_stats(&p.ref, &st);
			cr_assert(!cv.has_stats || (st.max == cv.max && st.min == cv.min && st.total == cv.total),
			          "speed on %s: shape %s (%s), load %s, %d threads: step %d statistics max %d min %d total %lld, "
			          "want %d %d %lld", ck_new->isa, p.sh, p.bd, ck_load_names[kind], threads, t, cv.max, cv.min,
			          (long long)cv.total, (int)st.max, (int)st.min, (long long)st.total);
		}
	}
	side_close(&r);
	side_close(&v);
	ck_pair_close(&p);
}

/* integer and real loads, each with neither, cost/benefit, the shake and both,
 * without the shake with and without the balancing times, Mr in two arrays,
 * one or one number (real loads with the shake: the reference's own path,
 * compared all the same) */
static const speed_mode modes[] = {{0, 0, 0, 1, 0},   {0, 1, 0.5, 1, 0}, {1, 0, 0, 0, 1}, {1, 1, 0.5, 1, 0},
                                   {0, 1, 0, 0, 1},   {0, 0, 0.5, 1, 1}, {1, 1, 0, 1, 0}, {1, 0, 0.5, 1, 0},
                                   {0, 0, 0, 0, 1},   {1, 0, 0, 1, 0},   {0, 1, 0, 1, 0}, {1, 1, 0, 0, 1},
                                   {0, 0, 0, 0, 2},   {1, 0, 0, 0, 2},   {0, 1, 0.5, 1, 2}, {1, 1, 0, 1, 2},
                                   {1, 0, 0.5, 0, 2}, {0, 1, 0, 1, 2}};
enum { NMODES = sizeof modes / sizeof *modes };

static void speed_shape(const lbt_shape *s, int *n, const void *arg)
{
	(void)arg;
	for (int kind = 0; kind < NLOADS; kind += 3) {
		speed_case(s, &modes[*n % NMODES], kind, 1 + *n % 3, 6);
		++*n;
	}
}

static void speed_quick(void)
{
	static const char *const grids[][2] = {{"8x8", "torus"}, {"5x7", "mesh"}, {"17", "torus"}, {"3x4x5", "mesh,torus,mesh"},
	                                       {"21x9", "torus"}, {"6x5x7", "torus,mesh,torus"}, /* rows side by side, */
	                                       {"70x9", "mesh,torus"}, {"16x5x7", "torus,mesh,torus"}, /* in row buffers */
	                                       {"9x16", "torus,mesh"}, {"6x32", "mesh,torus"}, /* rows whose last */
	                                       {"24", "torus"}, {"5x2", "torus"},            /* vector ends them */
	                                       {"123x136", "mesh,torus"}, {"131x130", "torus,mesh"}, /* the last four: */
	                                       {"5x61x57", "torus,torus,mesh"}, {"16411", "torus"}}; /* above the kernel's
	                                                                                            one-thread size */
	for (size_t i = 0; i < sizeof grids / sizeof *grids; i++)
		for (size_t m = 0; m < NMODES; m++) {
			const lbt_shape s = ck_grid(grids[i][0], grids[i][1]);
			speed_case(&s, &modes[m], m % 2 ? L_WIDE : L_POINT, 2 + (int)(i + m) % 2, 12);
		}
}
static void speed_full(void) { ck_each_shape(speed_shape, NULL); }
CK_CASE(speed_step, speed_quick, speed_full);

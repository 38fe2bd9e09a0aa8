/* repro_luling_vd.c — the §5 part of `lbtorus reproduce luling-theorems`: R.
 * Lüling and B. Monien, "A dynamic distributed load balancing algorithm with
 * provable good performance" (SPAA 1993), the variation density VD(l) =
 * sqrt(E(l^2) - E(l)^2)/E(l) in the one-generator model, and Figure 6.
 *
 * Measured: the loads of PE 1 (not the generator) and of PE 0 (the
 * generator) right after PE 0's t-th operation, over R runs of the algorithm
 * (PE 0 jumping to its trigger, through the run engine, as the theorems'
 * runs). The paper's Figure 6 is its recursion's value: E(v_t^2) of the
 * generator's load v_t averaged over all computation graphs, exactly for
 * delta = 1 and for a relaxed algorithm for delta > 1 (the delta candidates
 * drawn one at a time); luling_theory.c computes the same averages exactly
 * from the loads' moments, for the relaxed and for the actual algorithm,
 * and for another PE's load. */
#include <math.h>
#include <signal.h>
#include <stdlib.h>

#include "repro.h"
#include "exp/luling_theory.h"
#include "method/luling.h"

enum { VD_T = 150, VD_NN = 9, VD_CFG = 6, VD_L0 = 1000 /* every PE's initial load */ };
static const int vd_ns[VD_NN] = {2, 3, 5, 10, 15, 20, 25, 30, 35};
static const int vd_delta[VD_CFG] = {1, 1, 2, 2, 4, 4};
static const double vd_f[VD_CFG] = {1.1, 1.2, 1.1, 1.2, 1.1, 1.2};

/* One run: the loads of PE 1 and PE 0 after each of PE 0's operations,
 * until operation T; the pilot (T = VD_T at first) also stops, setting T,
 * where PE 0's next trigger would exceed 2^27. */
typedef struct {
	int64_t t, T;
	double f;
	int pilot;
	double *pe1, *pe0; /* VD_T values each */
	volatile sig_atomic_t stop;
} vd_rec;

static void vd_on_op(void *ctx, const lbt_luling *w, const int64_t *set, int m)
{
	(void)set;
	(void)m;
	vd_rec *r = ctx;
	if (r->t < VD_T) {
		r->pe0[r->t] = (double)w->pe[0].cur;
		r->pe1[r->t++] = (double)w->pe[1].cur;
	}
	if (r->pilot && r->t < r->T && rp_luling_up(r->f, w->pe[0].lold) > (1 << 27))
		r->T = r->t;
	r->stop = r->t >= r->T;
}

/* PE 0 up to its trigger (as the theorems' jump, always growing). */
static int vd_phase(void *ws, lbt_state *st, int64_t step, uint64_t seed, lbt_work_counts *c, lbt_err *e)
{
	(void)ws;
	(void)step;
	(void)seed;
	lbt_luling *w = lbt_luling_of(st);
	const vd_rec *r = w->on_op_ctx;
	int64_t target = rp_luling_up(r->f, w->pe[0].lold);
	if (target > INT32_MAX / 2)
		return lbt_errf(e, LBT_ERANGE, "variation density: a load left the int32 range");
	return rp_luling_set_pe0(st, target, c, e);
}

static const lbt_workload vd_jump = {.name = "vd-jump", .summary = "PE 0 jumps to its next trigger", .phase = vd_phase};

/* VD of the R samples x[r * VD_T + t], and its standard error by the delta
 * method: VD = g(E x, E x^2) = sqrt(b - a^2)/a, Var = grad' Cov grad / R with
 * the sample's central moments (for normal samples VD^2 (1/2 + VD^2)/R). */
static void vd_of(const double *x, int R, int64_t t, double *vd, double *se)
{
	double m = 0, m2 = 0, m3 = 0, m4 = 0;
	for (int r = 0; r < R; r++)
		m += x[(size_t)r * VD_T + (size_t)t];
	m /= R;
	for (int r = 0; r < R; r++) {
		double d = x[(size_t)r * VD_T + (size_t)t] - m;
		m2 += d * d, m3 += d * d * d, m4 += d * d * d * d;
	}
	m2 /= R, m3 /= R, m4 /= R;
	const double s = sqrt(m2);
	*vd = s / m;
	if (!(s > 0)) {
		*se = 0;
		return;
	}
	const double v11 = m2, v12 = m3 + 2 * m * m2, v22 = m4 - m2 * m2 + 4 * m * m3 + 4 * m * m * m2;
	const double ga = -(m * m + m2) / (s * m * m), gb = 1 / (2 * s * m);
	const double var = (ga * ga * v11 + 2 * ga * gb * v12 + gb * gb * v22) / R;
	*se = sqrt(var > 0 ? var : 0);
}

/* One configuration (delta and f) on one n: the job rp_spread runs. */
typedef struct {
	double vd, se;   /* PE 1 at t */
	double vg, seg;  /* PE 0, the generator, at t */
	int64_t t;       /* VD_T, or fewer where the loads would near the int32 range */
	int status;
	char msg[sizeof(lbt_err){0}.msg];
} vd_cell;

struct rp_vd {
	int R;                                          /* runs of each cell */
	const lbt_repro_opts *o;
	vd_cell cell[VD_CFG][VD_NN];
	double curve[VD_CFG][VD_T];                     /* PE 1 against t, n = vd_ns[VD_NN - 1] */
	double gcurve[VD_CFG][VD_T], gse[VD_CFG][VD_T]; /* the generator against t, same n */
};
typedef rp_vd vd_out;

/* Cell i = c VD_NN + k: its R runs (after a pilot) and their moments. */
static void vd_job(void *ctx, int64_t i)
{
	vd_out *out = ctx;
	const int c = (int)(i / VD_NN), k = (int)(i % VD_NN), R = out->R;
	const lbt_repro_opts *o = out->o;
	vd_cell *x = &out->cell[c][k];
	x->vd = x->vg = NAN;
	x->t = 0;
	if (vd_delta[c] >= vd_ns[k])
		return;
	double *v = malloc((size_t)R * VD_T * sizeof *v), *v0 = malloc((size_t)R * VD_T * sizeof *v0);
	double *pilot = malloc(2 * VD_T * sizeof *pilot);
	lbt_err le;
	int st = v && v0 && pilot ? LBT_OK : lbt_errf(&le, LBT_ENOMEM, "no memory for the runs");
	/* runs r = -1 (a pilot: how many operations before a load nears 2^27, leaving a factor 16 to
	 * int32 for the other seeds; small machines grow fast), then 0..R-1 up to that many */
	int64_t T = VD_T;
	for (int r = -1; r < R && !st; r++) {
		vd_rec rec = {.T = T, .f = vd_f[c], .pilot = r < 0, .pe1 = r < 0 ? pilot : v + (size_t)r * VD_T,
		              .pe0 = r < 0 ? pilot + VD_T : v0 + (size_t)r * VD_T};
		lbt_state sto;
		if ((st = rp_luling_open(&sto, vd_ns[k], vd_delta[c], vd_f[c], 0, 7000001ULL + (uint64_t)(r + 1), VD_L0,
		                         o->interrupt, &le)))
			break;
		lbt_luling *w = lbt_luling_of(&sto);
		w->on_op = vd_on_op;
		w->on_op_ctx = &rec;
		st = rp_luling_run_until(&sto, &vd_jump, &rec.stop, &le);
		T = rec.T;
		lbt_state_close(&sto);
	}
	free(pilot);
	x->t = T;
	if (!st) {
		for (int64_t t = 0; t < T && k == VD_NN - 1; t++) {
			double s1 = 0, s2 = 0;
			for (int r = 0; r < R; r++) {
				double y = v[(size_t)r * VD_T + (size_t)t];
				s1 += y, s2 += y * y;
			}
			double m = s1 / R, var = s2 / R - m * m;
			out->curve[c][t] = sqrt(var > 0 ? var : 0) / m;
			vd_of(v0, R, t, &out->gcurve[c][t], &out->gse[c][t]);
		}
		vd_of(v, R, T - 1, &x->vd, &x->se);
		vd_of(v0, R, T - 1, &x->vg, &x->seg);
	}
	free(v);
	free(v0);
	if ((x->status = st))
		snprintf(x->msg, sizeof x->msg, "%s", le.msg);
}

static int vd_result(void *ctx, int64_t i, void *at[LBT_SPREAD_REGIONS], size_t n[LBT_SPREAD_REGIONS])
{
	vd_out *out = ctx;
	const int c = (int)(i / VD_NN), k = (int)(i % VD_NN);
	at[0] = &out->cell[c][k];
	n[0] = sizeof out->cell[c][k];
	if (k < VD_NN - 1)
		return 1;
	at[1] = out->curve[c], at[2] = out->gcurve[c], at[3] = out->gse[c];
	n[1] = n[2] = n[3] = sizeof out->curve[c];
	return 4;
}

static int vd_measure(const lbt_repro_opts *o, int R, vd_out *out, lbt_err *e)
{
	out->R = R;
	out->o = o;
	const lbt_spread sp = {.run = vd_job, .result = vd_result, .ctx = out};
	int status = rp_spread(&sp, VD_CFG * VD_NN, o, e);
	for (int c = 0; c < VD_CFG && !status; c++)
		for (int k = 0; k < VD_NN && !status; k++)
			if (out->cell[c][k].status)
				status = lbt_errf(e, out->cell[c][k].status, "%s", out->cell[c][k].msg);
	return status;
}

/* The exact moments after t operations (relaxed: the paper's relaxed algorithm). */
static rp_lm_moments exact(int64_t n, int delta, double f, int64_t t, int relaxed)
{
	rp_lm_moments m;
	rp_lm_moments_start(&m);
	for (int64_t i = 0; i < t; i++)
		rp_lm_moments_step(&m, n, delta, f, relaxed);
	return m;
}

/* ours beside the exact value: within 3 standard errors plus 1/L0, one
 * packet of the L0 = 1000 every PE starts with (the integer loads' relative
 * resolution: each operation rounds to whole packets, and the loads then
 * grow in proportion). */
static int agrees(double ours, double se, double exact_vd) { return fabs(ours - exact_vd) <= 3 * se + 1.0 / VD_L0; }

/* §5: the variation density of PE 1 per (δ, f) and n. */
static void vd_md_table(FILE *f, const vd_out *out, int R)
{
	fprintf(f, "\n## §5: variation density\n\nVD(l_i,t) = sqrt(E(l_i,t²) − E(l_i,t)²)/E(l_i,t) of PE 1 (not the "
	           "generator) right after PE 0's t-th operation, t = %d (fewer where marked: the loads grow "
	           "geometrically and would leave the int32 range), over %d seeds, every PE starting with 1000 "
	           "packets. The paper computes it exactly for δ = 1 (and for a relaxed algorithm for δ > 1) "
	           "and shows it in its Figure 6, whose values the text does not give; it says the variation "
	           "density \"is small in general and converges very quickly as the number of processors and load "
	           "balancing steps increases\".\n\n| δ | f |", VD_T, R);
	for (int k = 0; k < VD_NN; k++)
		fprintf(f, " n = %d |", vd_ns[k]);
	fprintf(f, "\n|---:|---:|");
	for (int k = 0; k < VD_NN; k++)
		fprintf(f, "---:|");
	fprintf(f, "\n");
	for (int c = 0; c < VD_CFG; c++) {
		fprintf(f, "| %d | %g |", vd_delta[c], vd_f[c]);
		for (int k = 0; k < VD_NN; k++)
			if (isfinite(out->cell[c][k].vd) && out->cell[c][k].t < VD_T)
				fprintf(f, " %.3f (t = %lld) |", out->cell[c][k].vd + 0.0, (long long)out->cell[c][k].t);
			else if (isfinite(out->cell[c][k].vd))
				fprintf(f, " %.3f |", out->cell[c][k].vd + 0.0);
			else
				fprintf(f, " — |");
		fprintf(f, "\n");
	}
}

/* Figure 6: the paper's recursion, the exact values for the algorithm and
 * another PE, and our runs, side by side. */
static void vd_md_fig6(FILE *f, const vd_out *out, int R)
{
	/* Figure 6: the recursion's values beside ours */
	fprintf(f, "\n## Figure 6: the paper's recursion beside our runs\n\n"
	           "§5's recursion computes E(v_t) and E(v_t²) of v_t, the load of the generator (the paper's processor "
	           "1, our PE 0) after its t-th operation, averaged over all computation graphs (every sequence of "
	           "candidates equally likely), with real-valued loads: exactly for δ = 1, and for δ > 1 for a relaxed "
	           "algorithm whose δ candidates are drawn one at a time (we read \"δ times one candidate\" as drawn "
	           "independently, with replacement, the generator's edge weighted f/(δ+1) as for δ = 1). We compute "
	           "the same averages exactly from the loads' moments (the paper's O(p²t³) recursion is not printed in "
	           "full), for the relaxed and for the actual algorithm (δ distinct partners), and for another PE's "
	           "load. Ours: the generator's and PE 1's loads in our %d runs (integer loads from %d packets), ± "
	           "one standard error (delta method). Agrees: ours within 3 standard errors plus 1/%d (one packet of "
	           "the initial load: the integer loads' resolution) of the exact value for the actual algorithm.\n\n"
	           "| δ | f | n | t | paper: VD(v_t), %s | exact, the algorithm | ours: the generator | agrees | "
	           "exact: another PE | ours: PE 1 | exact: generator / another PE |\n"
	           "|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|\n",
	        R, VD_L0, VD_L0, "recursion (δ = 1) or relaxed (δ > 1)");
	int nrows = 0, nagree = 0;
	double rel_lo = INFINITY, rel_hi = 0, half_lo = INFINITY, half_hi = 0;
	for (int c = 0; c < VD_CFG; c++)
		for (int k = 0; k < VD_NN; k++) {
			if (!isfinite(out->cell[c][k].vd))
				continue;
			const int64_t n = vd_ns[k], t = out->cell[c][k].t;
			const rp_lm_moments p = exact(n, vd_delta[c], vd_f[c], t, 1), a = exact(n, vd_delta[c], vd_f[c], t, 0);
			const double pv = rp_lm_vd_generator(&p), av = rp_lm_vd_generator(&a), ao = rp_lm_vd_other(&a);
			const int ok = agrees(out->cell[c][k].vg, out->cell[c][k].seg, av);
			fprintf(f, "| %d | %g | %lld | %lld | %.4f | %.4f | %.4f ± %.4f | %s | %.4f | %.4f ± %.4f |", vd_delta[c],
			        vd_f[c], (long long)n, (long long)t, pv + 0.0, av + 0.0, out->cell[c][k].vg + 0.0, out->cell[c][k].seg,
			        ok ? "yes" : "no", ao + 0.0, out->cell[c][k].vd + 0.0, out->cell[c][k].se);
			if (ao > 1e-6) { /* VD = 0 up to the rounding of E(l^2) - E(l)^2 */
				fprintf(f, " %.3f |\n", av / ao);
				half_lo = fmin(half_lo, av / ao), half_hi = fmax(half_hi, av / ao);
			} else /* n = delta + 1: every operation takes all the others, the loads stay equal */
				fprintf(f, " — |\n");
			nrows++, nagree += ok;
			if (vd_delta[c] > 1 && k == VD_NN - 1)
				rel_lo = fmin(rel_lo, pv / av), rel_hi = fmax(rel_hi, pv / av);
		}
	fprintf(f, "\nOurs agrees with the exact value in %d of %d rows. For δ > 1 the relaxed algorithm's VD is %.2f..%.2f "
	           "times the actual algorithm's at n = %d, more at smaller n (at n = δ + 1 the algorithm always takes "
	           "all the others and VD = 0, the relaxed one not). The generator's VD is %.2f..%.2f times another PE's "
	           "(exact, where that is not 0).\n",
	        nagree, nrows, rel_lo, rel_hi, vd_ns[VD_NN - 1], half_lo, half_hi);
}

/* The plots: PE 1 against t (n = 35); Fig. 6: the generator against t
 * (n = 35) and n (at t). A missing gnuplot (LBT_EUNSUP) is not an error. */
static int vd_plots(const lbt_repro_opts *o, const vd_out *out, lbt_err *e)
{
	double x[VD_T], xs[VD_T / 10], ys[VD_CFG][VD_T / 10], ss[VD_CFG][2][VD_T / 10], pc[VD_CFG][VD_T];
	double nx[VD_NN], py[VD_CFG][VD_NN], ay[VD_CFG][VD_NN], gy[VD_CFG][VD_NN], gb[VD_CFG][2][VD_NN];
	lbt_series ser[3 * VD_CFG];
	char lab[3 * VD_CFG][64];
	for (int t = 0; t < VD_T; t++)
		x[t] = t + 1;
	for (int c = 0; c < VD_CFG; c++) {
		snprintf(lab[c], sizeof lab[c], "delta = %d, f = %g", vd_delta[c], vd_f[c]);
		ser[c] = (lbt_series){.label = lab[c], .x = x, .y = out->curve[c], .n = VD_T, .draw = LBT_DRAW_LINE,
		                      .colour = 1 + c, .dash = 1 + c % 2};
	}
	lbt_axes ax = {.title = "variation density of PE 1, n = 35 (one generator)", .xlabel = "operations t of PE 0",
	               .ylabel = "VD(l_i,t)", .intx = 1, .key = "outside right"};
	int ps = rp_plot(o, "luling-vd", &ax, ser, VD_CFG, e);
	/* the recursion's curves, ours every 10th operation with ± one standard error */
	const int k35 = VD_NN - 1;
	for (int c = 0; c < VD_CFG; c++) {
		rp_lm_moments m;
		rp_lm_moments_start(&m);
		for (int t = 0; t < VD_T; t++) {
			rp_lm_moments_step(&m, vd_ns[k35], vd_delta[c], vd_f[c], 1);
			pc[c][t] = rp_lm_vd_generator(&m);
		}
		for (int q = 0; q < VD_T / 10; q++) {
			const int t = 10 * q + 9;
			xs[q] = t + 1;
			ys[c][q] = out->gcurve[c][t];
			ss[c][0][q] = ys[c][q] - out->gse[c][t];
			ss[c][1][q] = ys[c][q] + out->gse[c][t];
		}
		snprintf(lab[2 * c], sizeof lab[0], "paper, delta = %d, f = %g", vd_delta[c], vd_f[c]);
		snprintf(lab[2 * c + 1], sizeof lab[0], "ours, delta = %d, f = %g", vd_delta[c], vd_f[c]);
		ser[2 * c] = (lbt_series){.label = lab[2 * c], .x = x, .y = pc[c], .n = VD_T, .draw = LBT_DRAW_LINE,
		                          .colour = 1 + c, .dash = 1 + c % 2};
		ser[2 * c + 1] = (lbt_series){.label = lab[2 * c + 1], .x = xs, .y = ys[c], .n = VD_T / 10,
		                              .draw = LBT_DRAW_MARKS, .colour = 1 + c, .lo = ss[c][0], .hi = ss[c][1]};
	}
	lbt_axes a6 = {.title = "Fig. 6: variation density of the generator, n = 35", .xlabel = "operations t of the generator",
	               .ylabel = "VD(v_t)", .intx = 1, .key = "outside right",
	               .note = "lines: the paper's recursion (delta > 1: relaxed); marks: our runs, ± 1 s.e."};
	int p6 = rp_plot(o, "luling-fig6", &a6, ser, 2 * VD_CFG, e);
	for (int k = 0; k < VD_NN; k++)
		nx[k] = vd_ns[k];
	int ns = 2 * VD_CFG;
	for (int c = 0; c < VD_CFG; c++) {
		for (int k = 0; k < VD_NN; k++) {
			py[c][k] = ay[c][k] = gy[c][k] = gb[c][0][k] = gb[c][1][k] = NAN;
			if (!isfinite(out->cell[c][k].vg))
				continue;
			const rp_lm_moments m = exact(vd_ns[k], vd_delta[c], vd_f[c], out->cell[c][k].t, 1),
			                    a = exact(vd_ns[k], vd_delta[c], vd_f[c], out->cell[c][k].t, 0);
			py[c][k] = rp_lm_vd_generator(&m);
			ay[c][k] = rp_lm_vd_generator(&a);
			gy[c][k] = out->cell[c][k].vg;
			gb[c][0][k] = gy[c][k] - out->cell[c][k].seg;
			gb[c][1][k] = gy[c][k] + out->cell[c][k].seg;
		}
		ser[2 * c].x = ser[2 * c + 1].x = nx;
		ser[2 * c].y = py[c];
		ser[2 * c + 1].y = gy[c];
		ser[2 * c].n = ser[2 * c + 1].n = VD_NN;
		ser[2 * c + 1].lo = gb[c][0];
		ser[2 * c + 1].hi = gb[c][1];
		if (vd_delta[c] > 1) { /* for delta = 1 the algorithm is the paper's recursion */
			snprintf(lab[ns], sizeof lab[0], "exact, the algorithm, delta = %d, f = %g", vd_delta[c], vd_f[c]);
			ser[ns] = (lbt_series){.label = lab[ns], .x = nx, .y = ay[c], .n = VD_NN, .draw = LBT_DRAW_LINE,
			                       .colour = 1 + c, .dash = 3};
			ns++;
		}
	}
	lbt_axes an = {.title = "Fig. 6: variation density of the generator after t operations (t as in the table)",
	               .xlabel = "processors n", .ylabel = "VD(v_t)", .intx = 1, .key = "outside right",
	               .note = "the paper's recursion (delta > 1: relaxed); exact, the algorithm: dotted; marks: our runs, ± 1 s.e."};
	int pn = rp_plot(o, "luling-fig6-n", &an, ser, ns, e);
	/* a missing gnuplot is noted (rp_plot) and leaves the tables as they are */
	return ps && ps != LBT_EUNSUP ? ps : p6 && p6 != LBT_EUNSUP ? p6 : pn && pn != LBT_EUNSUP ? pn : LBT_OK;
}

int rp_luling_vd(const lbt_repro_opts *o, rp_vd **out, lbt_err *e)
{
	*out = calloc(1, sizeof **out);
	int status = rp_agree_room(*out != NULL, e);
	if (!status)
		status = vd_measure(o, o->quick ? 200 : 2000, *out, e);
	return status;
}

int rp_luling_vd_write(const lbt_repro_opts *o, FILE *f, const rp_vd *out, lbt_err *e)
{
	vd_md_table(f, out, out->R);
	vd_md_fig6(f, out, out->R);
	return vd_plots(o, out, e);
}

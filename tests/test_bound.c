/* test_bound.c — Henrich's (1996) Theorem 3 columns and fit, checked by hand.
 * Every expected number below is derived in the comment beside it from the
 * definitions in README.md: D counts axes with extent >= 2, K is the largest
 * extent, Ldiff = max - min of the initial load, L̄ = total / P,
 *   dkl_bound                  = D·K·Ldiff
 *   balanced_over_dkl          = balanced_step / dkl_bound
 *   lower_bound_steps          = ⌈(Lmax − L̄)/D⌉
 *   balanced_lower_bound_steps = ⌈(Lmax − ⌊L̄⌋ − D)/D⌉ (0 if not positive). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "helpers.h"
#include "out/jsonl.h"


/* Run to balanced on the scalar reference; the record, parsed. */
static void record(lbt_jobj *o, const char *shape, const char *init)
{
	lbt_state st;
	th_open(&st, shape, NULL, "lm-c5", init, NULL);
	lbt_run_opts ro = lbt_run_opts_default(); ro.max_steps = 100000;
	lbt_err e;
	lbt_summary s;
	cr_assert_eq(lbt_until_parse(&ro.until, "balanced", &e), 0);
	cr_assert_eq(lbt_run(&st, &ro, &s, &e), 0, "%s", e.msg);
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	lbt_summary_json(m, &st, init, &ro, &s);
	fclose(m);
	cr_assert_eq(lbt_jobj_parse(o, buf, &e), 0, "%s: %s", e.msg, buf);
	free(buf);
	lbt_state_close(&st);
}

static double num(const lbt_jobj *o, const char *k)
{
	double v;
	cr_assert(lbt_jobj_num(o, k, &v), "%s is missing or null", k);
	return v;
}

Test(theorem3, record_bound_columns_hand_checked)
{
	lbt_jobj o = {0};
	/* Table 3: ring of 8, 16 units on PE 0 (worst:2). D = 1, K = 8, Ldiff = 16,
	 * so D·K·Ldiff = 128; the paper balances at step 18: 18/128 = 0.140625.
	 * L̄ = 2: ⌈(16 − 2)/1⌉ = 14 and ⌈(16 − 2 − 1)/1⌉ = 13. */
	record(&o, "8", "worst:2");
	cr_assert_eq(num(&o, "dkl_bound"), 128);
	cr_assert_eq(num(&o, "balanced_step"), 18);
	cr_assert_eq(num(&o, "balanced_over_dkl"), 0.140625);
	cr_assert_eq(num(&o, "lower_bound_steps"), 14);
	cr_assert_eq(num(&o, "balanced_lower_bound_steps"), 13);
	/* The same ring as 1x8: the extent-1 axis has no links, D = 1, K = 8. */
	record(&o, "1x8", "worst:2");
	cr_assert_eq(num(&o, "active_dims"), 1);
	cr_assert_eq(num(&o, "dkl_bound"), 128);
	cr_assert_eq(num(&o, "balanced_step"), 18);
	/* 4x4, 16 units on PE 0: D = 2, K = 4, Ldiff = 16 → 128; L̄ = 1:
	 * ⌈(16 − 1)/2⌉ = ⌈7.5⌉ = 8 and ⌈(16 − 1 − 2)/2⌉ = ⌈6.5⌉ = 7. */
	record(&o, "4x4", "worst:1");
	cr_assert_eq(num(&o, "dkl_bound"), 128);
	cr_assert_eq(num(&o, "lower_bound_steps"), 8);
	cr_assert_eq(num(&o, "balanced_lower_bound_steps"), 7);
	cr_assert_eq(num(&o, "balanced_over_dkl"), num(&o, "balanced_step") / 128);
	cr_assert_geq(num(&o, "balanced_step"), 7);
	/* 3x5, 7 units on PE 0: D = 2, K = 5 (the larger extent), Ldiff = 7 → 70;
	 * L̄ = 7/15: ⌈(7 − 7/15)/2⌉ = ⌈49/15⌉ = ⌈3.27⌉ = 4; ⌊L̄⌋ = 0: ⌈(7 − 0 − 2)/2⌉ = 3. */
	record(&o, "3x5", "point:7");
	cr_assert_eq(num(&o, "k"), 5);
	cr_assert_eq(num(&o, "dkl_bound"), 70);
	cr_assert_eq(num(&o, "lower_bound_steps"), 4);
	cr_assert_eq(num(&o, "balanced_lower_bound_steps"), 3);
	/* Already balanced (const:3): Ldiff = 0, D·K·Ldiff = 0, so no ratio (null),
	 * and both lower bounds are 0 (Lmax = L̄ = 3). */
	record(&o, "4x4", "const:3");
	cr_assert_eq(num(&o, "dkl_bound"), 0);
	cr_assert_eq(num(&o, "balanced_step"), 0);
	const lbt_jfield *r = lbt_jobj_get(&o, "balanced_over_dkl");
	cr_assert(r && r->type == LBT_JNULL);
	cr_assert_eq(num(&o, "lower_bound_steps"), 0);
	cr_assert_eq(num(&o, "balanced_lower_bound_steps"), 0);
	lbt_jobj_free(&o);
}

static lbt_bound_point pt(int d, int64_t k, int64_t ldiff, int64_t t)
{
	lbt_bound_point p = {.method = "lm-c5", .shape = "-", .init = "-", .key = "-", .d = d, .k = k,
	                     .ldiff = ldiff, .t = t, .t_shifts = d * t, .dkl = d * k * ldiff, .all_loaded = 1};
	p.ratio = (double)t / (double)p.dkl;
	return p;
}

#define NEAR(a, b) cr_assert(fabs((double)(a) - (double)(b)) < 1e-9 * (1 + fabs((double)(b))), "%s = %.12g, want %.12g", #a, (double)(a), (double)(b))

Test(theorem3, fitted_constant_hand_checked)
{
	/* D·K·Ldiff = 80, 160, 320 with T = 8, 32, 96: ratios 0.1, 0.2, 0.3.
	 * The mean of the ratios (least squares on relative residuals): c = 0.2;
	 * its 95 % interval: sd 0.1, t(2 df) = 4.303, so 0.2 ± 4.303·0.1/√3;
	 * envelope 0.3 (the third point); quartiles (linear interpolation)
	 * 0.15, 0.2, 0.25; rms of (r − c)/c = sqrt((0.25 + 0 + 0.25)/3).
	 * Ordinary least squares: (80·8 + 160·32 + 320·96)/(80² + 160² + 320²)
	 * = 36480/134400 = 0.271428571...; shifts: D = 1, the same c.
	 * Two more runs stay out of the fit: one with an idle PE at the start
	 * (Theorem 3's premise broken; ratio 0.9) and one censored at its cap
	 * (T > 50: ratio > 0.625). */
	lbt_bound_point p[] = {pt(1, 8, 10, 8), pt(1, 8, 20, 32), pt(1, 8, 40, 96), pt(1, 8, 10, 72), pt(1, 8, 10, 50)};
	p[3].all_loaded = 0;
	p[4].censored = 1;
	lbt_bound_stats f;
	cr_assert_eq(lbt_bound_fit(p, 5, &f), 0);
	cr_assert_eq(f.n, 3);
	NEAR(f.c, 0.2);
	NEAR(f.c_lo95, 0.2 - 4.303 * 0.1 / sqrt(3));
	NEAR(f.c_hi95, 0.2 + 4.303 * 0.1 / sqrt(3));
	NEAR(f.c_shifts, 0.2);
	NEAR(f.c_abs, 36480.0 / 134400.0);
	NEAR(f.max_ratio, 0.3);
	cr_assert_eq(f.argmax, 2);
	NEAR(f.q1_ratio, 0.15);
	NEAR(f.median_ratio, 0.2);
	NEAR(f.q3_ratio, 0.25);
	NEAR(f.min_ratio, 0.1);
	NEAR(f.rms_rel, sqrt(0.5 / 3));
	cr_assert_eq(f.broken_n, 1);
	NEAR(f.broken_max_ratio, 0.9);
	cr_assert_eq(f.censored_n, 1);
	NEAR(f.censored_max_ratio, 0.625);
	/* Nothing to fit when every run is outside the premise. */
	cr_assert_eq(lbt_bound_fit(p + 3, 2, &f), LBT_EINVAL);

	/* T = D · K^0.5 · Ldiff exactly: the power law recovers exponents 1, 0.5, 1,
	 * log a = 0 and R² = 1. */
	lbt_bound_point q[] = {pt(1, 4, 3, 6), pt(2, 4, 5, 20), pt(1, 16, 7, 28),
	                       pt(2, 16, 2, 16), pt(1, 4, 9, 18), pt(2, 16, 9, 72)};
	cr_assert_eq(lbt_bound_fit(q, 6, &f), 0);
	cr_assert(f.power_ok);
	NEAR(f.pd, 1);
	NEAR(f.pk, 0.5);
	NEAR(f.pl, 1);
	cr_assert(fabs(f.a) < 1e-9 && fabs(f.r2 - 1.0) < 1e-9);
	/* Only Ldiff varies: T = L^1.5 at L = 4, 16, 64; D and K drop out. */
	lbt_bound_point s[] = {pt(2, 8, 4, 8), pt(2, 8, 16, 64), pt(2, 8, 64, 512)};
	cr_assert_eq(lbt_bound_fit(s, 3, &f), 0);
	cr_assert(f.power_ok);
	NEAR(f.pl, 1.5);
	cr_assert_eq(f.pd, 0);
	cr_assert_eq(f.pk, 0);
}

/* An exponent fitted on a variable that barely varies is not a finding:
 * T = L^3.5 over L = 10..13 (a span of 1.3) fits "Ldiff^3.50, R² 1" and is
 * flagged; over L = 4..64 (a span of 16) it is not. */
Test(theorem3, warns_when_a_fitted_variable_spans_less_than_4)
{
	lbt_bound_point s[] = {pt(2, 8, 10, 3162), pt(2, 8, 12, 5986), pt(2, 8, 13, 7921)};
	lbt_bound_stats f;
	cr_assert_eq(lbt_bound_fit(s, 3, &f), 0);
	NEAR(f.span_l, 1.3);
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	lbt_bound_describe(m, &f, "  ");
	fclose(m);
	cr_assert(strstr(buf, "  warning: Ldiff spans only a factor 1.3 in the fitted runs (< 4): its exponent 3.50 is not "
	                      "determined by these runs\n"), "%s", buf);
	free(buf);
	lbt_bound_point w[] = {pt(2, 8, 4, 8), pt(2, 8, 16, 64), pt(2, 8, 64, 512)};
	cr_assert_eq(lbt_bound_fit(w, 3, &f), 0);
	m = open_memstream(&buf, &len);
	lbt_bound_describe(m, &f, "  ");
	fclose(m);
	cr_assert(!strstr(buf, "warning"), "%s", buf);
	cr_assert(strstr(buf, "Ldiff^1.50: on average over these runs T grows faster than the bound's Ldiff^1"), "%s", buf);
	free(buf);
}

Test(theorem3, points_come_only_from_symmetric_tori)
{
	char path[] = "/tmp/lbt_boundXXXXXX";
	int fd = mkstemp(path);
	FILE *f = fdopen(fd, "w");
	const char *fmt = "{\"run_key\":\"%s\",\"method\":\"%s\",\"shape\":\"%s\",\"boundary\":\"%s\",\"init\":\"worst:1\","
	                  "\"seed\":1,\"active_dims\":%d,\"k\":%d,\"pes\":%d,\"initial_ldiff\":8,\"initial_min\":0,"
	                  "\"balanced_step\":%s,\"balanced_shifts\":7,\"dkl_bound\":%d,\"balanced_lower_bound_steps\":6}\n";
	fprintf(f, fmt, "a", "lm-c5", "8", "torus", 1, 8, 8, "7", 64);      /* kept */
	fprintf(f, fmt, "b", "lm-c5", "1x8", "torus", 1, 8, 8, "7", 64);    /* kept: extent 1 has no links */
	fprintf(f, fmt, "c", "lm-c5", "4x8", "torus", 2, 8, 32, "7", 128);  /* not K^D */
	fprintf(f, fmt, "d", "lm-c5", "8", "mesh", 1, 8, 8, "7", 64);       /* not a torus */
	fprintf(f, fmt, "e", "lm-c5", "8", "torus", 1, 8, 8, "null", 64);   /* never balanced */
	fprintf(f, fmt, "f", "lm-c3", "8", "torus", 1, 8, 8, "7", 64);      /* another method */
	fputs("{\"run_key\":\"g\",\"method\":\"lm-c5\"", f);                /* partial last line */
	fclose(f);
	lbt_jsonl l;
	lbt_err e;
	lbt_bound_point *p;
	int64_t n, skipped;
	cr_assert_eq(lbt_jsonl_load(&l, path, &e), 0, "%s", e.msg);
	cr_assert_eq(l.n, 6);
	cr_assert_eq(lbt_bound_points(&l, "lm-c5", &p, &n, &skipped, &e), 0);
	cr_assert_eq(n, 2);
	cr_assert_eq(skipped, 4);
	cr_assert_str_eq(p[0].key, "a");
	cr_assert_str_eq(p[1].key, "b");
	cr_assert_eq(p[1].ratio, 7.0 / 64);
	free(p);
	lbt_jsonl_free(&l);
	unlink(path);
}

Test(bound, command_writes_csv_json_and_plots, .timeout = 120)
{
	char dir[64], out[128], p[160];
	th_tmpdir(dir, sizeof dir);
	snprintf(out, sizeof out, "%s/b", dir);
	char *so, *se;
	int rc = th_cli(NULL, TH_ARGS("bound", "--out", out, "--shape", "ring:8..16*2,4x4", "--init", "worst:1,uniform:1:8",
	                           "--seed", "1"), &so, &se);
	cr_assert_eq(rc, 0, "bound: %s", se);
	cr_assert(strstr(so, "c, mean of ratios   T ~ "), "%s", so);
	cr_assert(strstr(so, "c, OLS              T ~ "), "%s", so);
	cr_assert(strstr(so, "outside the premise 3 runs with an idle PE at the start"), "%s", so);
	/* Ring of 8, worst:1: sharing and balance after P − 1 = 7 steps (Henrich
	 * 1996, §5); Ldiff = 8, D·K·Ldiff = 64: ratio 7/64 = 0.109375; PEs 1..7
	 * idle at the start: outside the premise, not fitted. */
	snprintf(p, sizeof p, "%s/bound.csv", out);
	char *csv = th_read(p, NULL);
	const char *head = "method,shape,d,k,pes,init,seed,all_loaded,censored,ldiff,balanced_step,balanced_shifts,dkl,ratio,";
	cr_assert(!strncmp(csv, head, strlen(head)), "%s", csv);
	cr_assert(strstr(csv, "\nlm-c5,8,1,8,8,worst:1,1,0,0,8,7,7,64,0.109375,6,"), "%s", csv);
	int rows = 0;
	for (char *c = csv; *c; c++)
		rows += *c == '\n';
	cr_assert_eq(rows, 1 + 6);
	snprintf(p, sizeof p, "%s/bound.json", out);
	lbt_jobj o = {0};
	lbt_err e;
	char *js = th_read(p, NULL);
	cr_assert_eq(lbt_jobj_parse(&o, js, &e), 0, "%s", e.msg);
	cr_assert_eq(num(&o, "points"), 3);
	cr_assert_eq(num(&o, "premise_broken_points"), 3);
	cr_assert_geq(num(&o, "premise_broken_max_ratio"), 0.109375);
	cr_assert_eq(num(&o, "censored_points"), 0);
	cr_assert_geq(num(&o, "c_envelope"), num(&o, "c_fit"));
	cr_assert_leq(num(&o, "c_fit_ci95_lo"), num(&o, "c_fit"));
	cr_assert_eq(num(&o, "runs_below_lower_bound"), 0);
	cr_assert_eq(num(&o, "worst_ratio"), num(&o, "c_envelope"));
	for (const char *const *s = (const char *const[]){"_d", "_k", "_ldiff", NULL}; *s; s++)
		for (const char *const *x = (const char *const[]){".dat", ".gp", ".png", ".svg", NULL}; *x; x++) {
			snprintf(p, sizeof p, "%s/bound%s%s", out, *s, *x);
			cr_assert_eq(access(p, R_OK), 0, "%s is missing", p);
		}
	lbt_jobj_free(&o);
	free(csv);
	free(js);
	free(so);
	free(se);
	th_rm_tree(dir);
}

/* A run stopped at --max-steps is censored (T > cap): in bound.csv with
 * censored = 1 and the steps run, out of the fit, said in the output. Ring
 * of 8, worst:1 and uniform:1:8 need more than 5 steps; 4x4 uniform:1:8
 * seed 1 balances within 5. */
Test(bound, runs_at_the_step_cap_are_censored_not_dropped, .timeout = 120)
{
	char dir[64], out[128], p[160];
	th_tmpdir(dir, sizeof dir);
	snprintf(out, sizeof out, "%s/b", dir);
	char *so, *se;
	int rc = th_cli(NULL, TH_ARGS("bound", "--out", out, "--shape", "8", "--init", "uniform:1:8", "--seed", "1",
	                           "--max-steps", "5"), &so, &se);
	cr_assert_eq(rc, 2, "nothing to fit: exit 2; %s", se);
	cr_assert(strstr(se, "1 stopped at --max-steps"), "%s", se);
	free(so), free(se);
	rc = th_cli(NULL, TH_ARGS("bound", "--out", out, "--shape", "8,4x4", "--init", "uniform:1:8", "--seed", "1",
	                       "--max-steps", "5"), &so, &se);
	cr_assert_eq(rc, 0, "%s", se);
	cr_assert(strstr(so, "censored            1 runs stopped at --max-steps before balanced (T > cap)"), "%s", so);
	snprintf(p, sizeof p, "%s/bound.csv", out);
	char *csv = th_read(p, NULL);
	cr_assert(strstr(csv, "\nlm-c5,8,1,8,8,uniform:1:8,1,1,1,7,5,5,56,"), "%s", csv);
	snprintf(p, sizeof p, "%s/bound.json", out);
	char *js = th_read(p, NULL);
	lbt_jobj o = {0};
	lbt_err e;
	cr_assert_eq(lbt_jobj_parse(&o, js, &e), 0, "%s", e.msg);
	cr_assert_eq(num(&o, "points"), 1);
	cr_assert_eq(num(&o, "censored_points"), 1);
	NEAR(num(&o, "censored_max_ratio_lower"), 5.0 / 56);
	const lbt_jfield *lo = lbt_jobj_get(&o, "c_fit_ci95_lo");
	cr_assert(lo && lo->type == LBT_JNULL, "one run has no interval: null");
	lbt_jobj_free(&o);
	free(csv), free(js), free(so), free(se);
	th_rm_tree(dir);
}

Test(theorem3, half_init_is_a_step_on_the_first_axis_with_links)
{
	/* half:H: coordinate < floor(n/2) on the first axis with extent >= 2
	 * holds H + 1, the rest 1. */
	static const struct {
		const char *shape;
		int32_t want[16];
	} c[] = {
		{"8", {11, 11, 11, 11, 1, 1, 1, 1}},
		{"1x8", {11, 11, 11, 11, 1, 1, 1, 1}},                  /* axis 0 has no links: axis 1 */
		{"3x5", {11, 11, 11, 11, 11, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1}}, /* floor(3/2) = 1 row */
		{"4x2", {11, 11, 11, 11, 1, 1, 1, 1}},
	};
	for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
		lbt_state st;
		th_open(&st, c[i].shape, NULL, "lm-c5", "half:10", NULL);
		int32_t *d = th_loads(&st);
		for (int64_t j = 0; j < lbt_shape_pes(&st.grid.shape); j++)
			cr_assert_eq(d[j], c[i].want[j], "%s: PE %lld holds %d, want %d", c[i].shape, (long long)j, d[j], c[i].want[j]);
		free(d);
		lbt_state_close(&st);
	}
	/* Ring of 8, half:10: total 4·11 + 4·1 = 48, L̄ = 6, Ldiff = 10, D·K·Ldiff = 80;
	 * ⌈(11 − 6)/1⌉ = 5 and ⌈(11 − 6 − 1)/1⌉ = 4. */
	lbt_jobj o = {0};
	record(&o, "8", "half:10");
	cr_assert_eq(num(&o, "total"), 48);
	cr_assert_eq(num(&o, "initial_ldiff"), 10);
	cr_assert_eq(num(&o, "dkl_bound"), 80);
	cr_assert_eq(num(&o, "lower_bound_steps"), 5);
	cr_assert_eq(num(&o, "balanced_lower_bound_steps"), 4);
	lbt_jobj_free(&o);
}

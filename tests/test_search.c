/* test_search.c — `lbtorus search`: the worst configuration found has the
 * requested Ldiff and total, replays to the reported step count with
 * `lbtorus run --init file:`, and does not depend on the thread count. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"


static long long json_int(const char *json, const char *key)
{
	char k[64];
	snprintf(k, sizeof k, "\"%s\":", key);
	const char *p = strstr(json, k);
	cr_assert(p, "no %s in %s", key, json);
	return strtoll(p + strlen(k), NULL, 10);
}

Test(search, worst_found_has_the_ldiff_and_total_and_replays, .timeout = 120)
{
	char dir[256];
	th_tmpdir(dir, sizeof dir);
	char *out, *err;
	int rc = th_cli(dir, TH_ARGS("search", "--shape", "4x4", "--ldiff", "12", "--total", "70", "--restarts", "3",
	                          "--moves", "150", "--seed", "7", "--out", "w.npy", "--quiet", "--threads", "1"), &out, &err);
	cr_assert_eq(rc, 0, "%s", err);
	free(err);
	long long steps = json_int(out, "steps"), dkl = json_int(out, "dkl_bound");
	cr_assert_gt(steps, 0);
	cr_assert_eq(dkl, 2 * 4 * 12, "D*K*Ldiff = 2*4*12");

	char path[300];
	snprintf(path, sizeof path, "%s/w.npy", dir);
	lbt_shape s;
	lbt_err e;
	cr_assert_eq(lbt_shape_parse(&s, "4x4", &e), LBT_OK);
	int32_t L[16];
	cr_assert_eq(lbt_npy_read(path, &s, L, &e), LBT_OK, "%s", e.msg);
	int64_t total = 0;
	int32_t mx = L[0], mn = L[0];
	for (int i = 0; i < 16; i++) {
		total += L[i];
		mx = L[i] > mx ? L[i] : mx;
		mn = L[i] < mn ? L[i] : mn;
	}
	cr_assert_eq(total, 70);
	cr_assert_eq(mx - mn, 12);

	char *rout;
	rc = th_cli(dir, TH_ARGS("run", "--init", "file:w.npy", "--until", "balanced", "--quiet", "--threads", "1"), &rout, &err);
	cr_assert_eq(rc, 0, "%s", err);
	cr_assert_eq(json_int(rout, "balanced_step"), steps, "replay: %s vs search: %s", rout, out);
	free(out), free(rout), free(err);
}

/* A search of an 8-PE ring on one thread and on two: the same worst case,
 * found in the same restart; the one-thread result. */
static lbt_search_result same_on_one_and_two_threads(lbt_search_opts *o)
{
	lbt_search_result a, b;
	lbt_err e;
	o->threads = 1;
	cr_assert_eq(lbt_search(o, &a, &e), LBT_OK, "%s", e.msg);
	o->threads = 2;
	cr_assert_eq(lbt_search(o, &b, &e), LBT_OK, "%s", e.msg);
	cr_assert_eq(a.steps, b.steps);
	cr_assert_eq(a.restart, b.restart);
	cr_assert(!memcmp(a.loads, b.loads, 8 * sizeof *a.loads));
	free(b.loads);
	return a;
}

Test(search, same_seed_same_result_on_one_or_two_threads, .timeout = 120)
{
	lbt_search_opts o = {.shape = "8", .ldiff = 9, .total = 40, .restarts = 4, .moves = 100, .seed = 3, .threads = 1};
	lbt_search_result a = same_on_one_and_two_threads(&o);
	lbt_err e;
	/* hill climbing keeps the best of its start: never below a plain random start */
	lbt_search_opts z = o;
	z.moves = 0;
	lbt_search_result c;
	cr_assert_eq(lbt_search(&z, &c, &e), LBT_OK, "%s", e.msg);
	cr_assert_geq(a.steps, c.steps);
	free(a.loads), free(c.loads);
}

Test(search, refuses_an_impossible_ldiff_and_total)
{
	lbt_search_opts o = {.shape = "4", .ldiff = 10, .total = 5, .restarts = 1, .moves = 1, .seed = 1, .threads = 1};
	lbt_search_result r;
	lbt_err e;
	cr_assert_eq(lbt_search(&o, &r, &e), LBT_EINVAL);
	cr_assert(strstr(e.msg, "no loads on 4 PEs sum to 5 with max - min = 10"), "%s", e.msg);
}

/* Issue 9: search takes a workload. Every evaluation runs it from step 0
 * with the search's seed, so the worst configuration found replays to its
 * step count with `lbtorus run --workload SPEC --seed S`, and the result does
 * not depend on the thread count. */
Test(search, under_a_workload_replays_and_keeps_to_the_seed, .timeout = 120)
{
	char dir[256];
	th_tmpdir(dir, sizeof dir);
	char *out, *err;
	int rc = th_cli(dir, TH_ARGS("search", "--shape", "4x4", "--ldiff", "12", "--total", "70", "--restarts", "3",
	                          "--moves", "100", "--seed", "5", "--out", "w.npy", "--quiet", "--threads", "2",
	                          "--workload", "cybenko:poisson:1:1"), &out, &err);
	cr_assert_eq(rc, 0, "%s", err);
	cr_assert(strstr(out, "\"workload\":\"cybenko:poisson:1:1\""), "%s", out);
	long long steps = json_int(out, "steps");
	cr_assert_gt(steps, 0);
	free(err);
	char *rout;
	rc = th_cli(dir, TH_ARGS("run", "--init", "file:w.npy", "--until", "balanced", "--quiet", "--threads", "1",
	                         "--seed", "5", "--workload", "cybenko:poisson:1:1"), &rout, &err);
	cr_assert_eq(rc, 0, "%s", err);
	cr_assert_eq(json_int(rout, "balanced_step"), steps, "replay: %s vs search: %s", rout, out);
	free(out), free(rout), free(err);

	lbt_workload w;
	lbt_err e;
	cr_assert_eq(lbt_workload_parse(&w, "phases:0.1:0.4:0.1:0.4:2:9", LBT_LOAD_INT, &e), LBT_OK, "%s", e.msg);
	lbt_search_opts o = {.shape = "8", .ldiff = 9, .total = 40, .restarts = 4, .moves = 60, .seed = 3, .threads = 1,
	                     .workload = &w};
	free(same_on_one_and_two_threads(&o).loads);
}

/* Issue 9: a workload search cannot use is refused in one line, exit 2, no file written. */
Test(search, refuses_a_tree_or_a_bad_workload)
{
	char dir[256];
	th_tmpdir(dir, sizeof dir);
	th_usage_error(dir, TH_ARGS("search", "--shape", "4x4", "--ldiff", "4", "--mean", "3", "--out", "w.npy",
	                            "--workload", "tree:2:5"), "a search tree places its own first tasks");
	th_usage_error(dir, TH_ARGS("search", "--shape", "4x4", "--ldiff", "4", "--mean", "3", "--out", "w.npy",
	                            "--workload", "cybenko:exp:1:1"), "exp draws real numbers");
	th_usage_error(dir, TH_ARGS("search", "--shape", "4x4", "--ldiff", "4", "--mean", "3", "--out", "w.npy",
	                            "--workload", "cybenko:poisson:0:1"), "poisson:MU wants 0 < MU <= 100");
	th_usage_error(dir, TH_ARGS("search", "--shape", "4x4", "--ldiff", "4", "--mean", "3", "--out", "w.npy",
	                            "--workload", "bogus"), "unknown workload 'bogus'");
}

/* test_api.c — the public API (include/lbtorus.h) as a program sees it: this
 * file includes nothing else. A run stepped in pieces is bit for bit the run
 * taken whole (with every method and workload: the run stays open between
 * the calls), an
 * observer stops a run at the step it says, fields go out and in through
 * strided arrays and the load they carry is what the next run conserves,
 * bad arrays, configs and buffers are refused with a status and one line,
 * every method and parameter the registries describe can be configured, a
 * sweep from a spec file resumes, a sweep's options are checked when set and
 * its counts reach the callback, Theorem 3's constant is the mean of what
 * bound.csv publishes, an experiment stops on its batch's own interrupt
 * flag, bench's rows cover every case and agree with each other and with a
 * run, and an output file appears whole at its commit. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <lbtorus.h>

static lbt_sim *open_cfg(const lbt_config *c)
{
	lbt_sim *s = NULL;
	lbt_err e;
	int rc = lbt_sim_open(&s, c, &e);
	cr_assert_eq(rc, LBT_OK, "%s", e.msg);
	return s;
}

/* The field "load" of s as C-order int32 values into w[0..n-1]. */
static void loads(const lbt_sim *s, int32_t *w, int64_t n)
{
	lbt_array a;
	lbt_err e;
	cr_assert_eq(lbt_sim_field(s, "load", &a, &e), LBT_OK, "%s", e.msg);
	int64_t P = 1;
	for (int d = 0; d < a.ndim; d++)
		P *= a.shape[d];
	cr_assert_eq(P, n);
	a.data = w;
	cr_assert_eq(lbt_sim_field_read(s, "load", &a, &e), LBT_OK, "%s", e.msg);
}

/* The method's loads ("load" or "real") of s as raw bytes into w. */
static size_t load_bytes(const lbt_sim *s, int real, void *w, size_t cap)
{
	const char *name = real ? "real" : "load";
	lbt_array a;
	lbt_err e;
	cr_assert_eq(lbt_sim_field(s, name, &a, &e), LBT_OK, "%s", e.msg);
	size_t n = real ? sizeof(double) : sizeof(int32_t);
	for (int d = 0; d < a.ndim; d++)
		n *= (size_t)a.shape[d];
	cr_assert_leq(n, cap);
	a.data = w;
	cr_assert_eq(lbt_sim_field_read(s, name, &a, &e), LBT_OK, "%s", e.msg);
	return n;
}

/* The JSON record of s's last run without its timing and what follows it
 * (",\"seconds\":...": the rate and the provenance's date), into buf. */
static void json_untimed(const lbt_sim *s, char *buf, size_t cap)
{
	lbt_err e;
	cr_assert_eq(lbt_sim_json(s, buf, cap, NULL, &e), LBT_OK, "%s", e.msg);
	char *t = strstr(buf, ",\"seconds\":");
	cr_assert_not_null(t, "%s", buf);
	*t = 0;
}

/* N = 12 calls of lbt_sim_step(1), after a step(0), leave the loads, the
 * result and the JSON record (timing aside) of one lbt_sim_run of
 * steps:12, for every method with every workload the registries describe
 * whose example fits its loads: a phase, Cybenko's arrivals and a search
 * tree go on across the calls as in one run. */
Test(api, steps_one_at_a_time_are_the_whole_run)
{
	enum { N = 12 };
	lbt_method_info m;
	lbt_workload_info w;
	int runs = 0;
	for (int j = 0; lbt_workload_describe(j, &w) == LBT_OK; j++) {
		int fits = 0;
		for (int i = 0; lbt_method_describe(i, &m) == LBT_OK; i++) {
			lbt_config c = lbt_config_default();
			c.shape = "6x10";
			c.method = m.name;
			c.init = w.tasks ? NULL : "uniform:0:9"; /* a search starts on an empty machine */
			c.workload = w.example;
			c.seed = 3;
			c.threads = 1;
			lbt_err e;
			if (lbt_config_check(&c, &e) != LBT_OK) {
				cr_assert(strstr(e.msg, w.name), "%s with %s: refused without naming the workload: %s", m.name,
				          w.example, e.msg);
				continue; /* the example is for the other kind of load */
			}
			fits++;
			lbt_sim *a = open_cfg(&c);
			c.until = "steps:12";
			lbt_sim *b = open_cfg(&c);
			cr_assert_eq(lbt_sim_step(a, 0, &e), LBT_OK, "%s", e.msg);
			for (int k = 0; k < N; k++)
				cr_assert_eq(lbt_sim_step(a, 1, &e), LBT_OK, "%s with %s, call %d: %s", m.name, w.example, k,
				             e.msg);
			cr_assert_eq(lbt_sim_run(b, NULL, NULL, &e), LBT_OK, "%s", e.msg);
			lbt_result ra, rb;
			cr_assert_eq(lbt_sim_result(a, &ra, &e), LBT_OK);
			cr_assert_eq(lbt_sim_result(b, &rb, &e), LBT_OK);
			cr_assert_str_eq(ra.stop, rb.stop, "%s with %s", m.name, w.example);
			cr_assert(rb.steps == N || !strcmp(rb.stop, "detected"), "%s with %s: %lld steps", m.name, w.example,
			          (long long)rb.steps);
			ra.stop = rb.stop;
			ra.seconds = rb.seconds;
			cr_assert(!memcmp(&ra, &rb, sizeof ra), "%s with %s: 12 steps one at a time differ from 12 at once "
			          "in the result (steps %lld/%lld, generated %g/%g, final max %g/%g)", m.name, w.example,
			          (long long)ra.steps, (long long)rb.steps, ra.generated, rb.generated, ra.final_max,
			          rb.final_max);
			static double la[60], lb[60];
			const size_t na = load_bytes(a, m.real, la, sizeof la), nb = load_bytes(b, m.real, lb, sizeof lb);
			cr_assert(na == nb && !memcmp(la, lb, na), "%s with %s: the loads differ", m.name, w.example);
			static char ja[8192], jb[8192];
			json_untimed(a, ja, sizeof ja);
			json_untimed(b, jb, sizeof jb);
			cr_assert_str_eq(ja, jb, "%s with %s: the JSON records differ", m.name, w.example);
			lbt_sim_close(a);
			lbt_sim_close(b);
		}
		cr_assert_gt(fits, 0, "no method runs the workload %s's example %s", w.name, w.example);
		runs += fits;
	}
	cr_assert_gt(runs, 0);
}

/* 7 + 13 steps, and 20 steps, of the same set-up leave the same loads and
 * results (the pieces are one run of 20 steps). */
static void pieces_equal_whole(const char *method, const char *workload)
{
	lbt_config c = lbt_config_default();
	c.shape = "6x10";
	c.method = method;
	c.init = "uniform:0:9";
	c.workload = workload;
	c.seed = 3;
	c.threads = 1;
	lbt_sim *a = open_cfg(&c), *b = open_cfg(&c);
	lbt_err e;
	cr_assert_eq(lbt_sim_step(a, 7, &e), LBT_OK, "%s", e.msg);
	cr_assert_eq(lbt_sim_step(a, 13, &e), LBT_OK, "%s", e.msg);
	cr_assert_eq(lbt_sim_step(b, 20, &e), LBT_OK, "%s", e.msg);
	lbt_result ra, rb;
	cr_assert_eq(lbt_sim_result(a, &ra, &e), LBT_OK);
	cr_assert_eq(lbt_sim_result(b, &rb, &e), LBT_OK);
	cr_assert_eq(ra.step, 20);
	cr_assert_eq(rb.step, 20);
	cr_assert_eq(ra.steps, 20, "the pieces are one run of 20 steps, not %lld", (long long)ra.steps);
	int32_t wa[60], wb[60];
	loads(a, wa, 60);
	loads(b, wb, 60);
	cr_assert(!memcmp(wa, wb, sizeof wa), "%s with %s: 7 + 13 steps differ from 20", method,
	          workload ? workload : "no workload");
	lbt_sim_close(a);
	lbt_sim_close(b);
}

Test(api, steps_in_pieces_are_the_whole_run)
{
	pieces_equal_whole("nna", NULL);
	pieces_equal_whole("fos-int", "cybenko:poisson:1:1");
	pieces_equal_whole("lm-c5", "phases:0.1:0.9:0.1:0.7:2:5");
}

/* A written field ends the steps' run (the next call starts a new one), and
 * so does lbt_sim_run: the result counts only the new run's steps, and the
 * state has taken the same 15 steps as 5 steps and a run of 10. */
Test(api, a_run_or_a_written_field_ends_the_steps)
{
	lbt_config c = lbt_config_default();
	c.shape = "6x10";
	c.method = "nna";
	c.init = "uniform:0:9";
	c.threads = 1;
	c.until = "steps:5";
	lbt_sim *a = open_cfg(&c);
	c.until = "steps:10";
	lbt_sim *b = open_cfg(&c);
	lbt_err e;
	cr_assert_eq(lbt_sim_step(a, 3, &e), LBT_OK, "%s", e.msg);
	int32_t w[60], v[60];
	loads(a, w, 60);
	lbt_array arr;
	cr_assert_eq(lbt_sim_field(a, "load", &arr, &e), LBT_OK, "%s", e.msg);
	arr.data = w;
	cr_assert_eq(lbt_sim_field_write(a, "load", &arr, &e), LBT_OK, "%s", e.msg);
	cr_assert_eq(lbt_sim_step(a, 2, &e), LBT_OK, "%s", e.msg);
	lbt_result r;
	cr_assert_eq(lbt_sim_result(a, &r, &e), LBT_OK);
	cr_assert_eq(r.steps, 2, "the write ended the run of 3: a new one took 2, not %lld", (long long)r.steps);
	cr_assert_eq(lbt_sim_run(a, NULL, NULL, &e), LBT_OK, "%s", e.msg); /* 5 more */
	cr_assert_eq(lbt_sim_step(a, 5, &e), LBT_OK, "%s", e.msg);
	cr_assert_eq(lbt_sim_result(a, &r, &e), LBT_OK);
	cr_assert_eq(r.steps, 5);
	cr_assert_eq(r.step, 15);
	cr_assert_eq(lbt_sim_step(b, 5, &e), LBT_OK, "%s", e.msg);
	cr_assert_eq(lbt_sim_run(b, NULL, NULL, &e), LBT_OK, "%s", e.msg);
	loads(a, w, 60);
	loads(b, v, 60);
	cr_assert(!memcmp(w, v, sizeof w), "3 + 2 steps, a run of 5 and 5 steps differ from 5 steps and a run of 10");
	lbt_sim_close(a);
	lbt_sim_close(b);
}

/* The observer sees steps 0, 1, ... in order and stops the run at step 5. */
static int stop_at_5(void *ctx, const lbt_record *r)
{
	int64_t *seen = ctx;
	cr_assert_eq(r->step, *seen, "record of step %lld after %lld records", (long long)r->step, (long long)*seen);
	++*seen;
	return r->step == 5;
}

Test(api, an_observer_stops_the_run_at_its_step)
{
	lbt_config c = lbt_config_default();
	c.shape = "64x64"; /* worst:5 takes 10237 steps to balance (installed.py) */
	c.threads = 1;
	lbt_sim *s = open_cfg(&c);
	int64_t seen = 0;
	lbt_err e;
	cr_assert_eq(lbt_sim_run(s, stop_at_5, &seen, &e), LBT_OK, "%s", e.msg);
	lbt_result r;
	cr_assert_eq(lbt_sim_result(s, &r, &e), LBT_OK);
	cr_assert_eq(seen, 6);
	cr_assert_eq(r.steps, 5);
	cr_assert_eq(r.step, 5);
	cr_assert(!r.reached);
	cr_assert_str_eq(r.stop, "interrupted");
	lbt_sim_close(s);
}

/* A 3x4 pattern w[i][j] = 10 i + j written from a Fortran-order array reads
 * back in C order; its total, 4*10*(0+1+2) + 3*(0+1+2+3) = 138, is what the
 * next run starts from and conserves. */
Test(api, fields_out_and_in_through_strides)
{
	lbt_config c = lbt_config_default();
	c.shape = "3x4";
	c.init = "const:0";
	c.threads = 1;
	lbt_sim *s = open_cfg(&c);
	lbt_array a;
	lbt_err e;
	cr_assert_eq(lbt_sim_field(s, "load", &a, &e), LBT_OK, "%s", e.msg);
	cr_assert_str_eq(a.dtype, "<i4");
	cr_assert(a.ndim == 2 && a.shape[0] == 3 && a.shape[1] == 4 && a.strides[0] == 16 && a.strides[1] == 4);
	int32_t fortran[12], back[12];
	for (int i = 0; i < 3; i++)
		for (int j = 0; j < 4; j++)
			fortran[i + 3 * j] = 10 * i + j;
	lbt_array f = a;
	f.data = fortran;
	f.strides[0] = 4;
	f.strides[1] = 12;
	cr_assert_eq(lbt_sim_field_write(s, "load", &f, &e), LBT_OK, "%s", e.msg);
	loads(s, back, 12);
	for (int k = 0; k < 12; k++)
		cr_assert_eq(back[k], 10 * (k / 4) + k % 4, "PE %d holds %d", k, back[k]);
	cr_assert_eq(lbt_sim_run(s, NULL, NULL, &e), LBT_OK, "%s", e.msg);
	lbt_result r;
	cr_assert_eq(lbt_sim_result(s, &r, &e), LBT_OK);
	cr_assert_eq(r.total, 138);
	cr_assert_eq(r.initial_max, 23);
	cr_assert(r.reached && r.final_max - r.final_min <= 2, "not balanced: %g..%g", r.final_min, r.final_max);
	loads(s, back, 12);
	int64_t sum = 0;
	for (int k = 0; k < 12; k++)
		sum += back[k];
	cr_assert_eq(sum, 138);
	lbt_sim_close(s);
}

Test(api, bad_arrays_are_refused)
{
	lbt_config c = lbt_config_default();
	c.shape = "3x4";
	c.threads = 1;
	c.method = "fos-speed";
	lbt_sim *s = open_cfg(&c);
	lbt_array a;
	lbt_err e;
	int32_t w[12] = {0};
	double x[12] = {0};
	cr_assert_eq(lbt_sim_field(s, "load", &a, &e), LBT_OK, "%s", e.msg);
	a.data = w;
	w[5] = -1;
	cr_assert_eq(lbt_sim_field_write(s, "load", &a, &e), LBT_EINVAL);
	cr_assert(strstr(e.msg, "PE 5 holds -1"), "%s", e.msg);
	lbt_array wrong = a;
	snprintf(wrong.dtype, sizeof wrong.dtype, "<f8");
	cr_assert_eq(lbt_sim_field_read(s, "load", &wrong, &e), LBT_EINVAL);
	cr_assert(strstr(e.msg, "dtype <i4"), "%s", e.msg);
	wrong = a;
	wrong.shape[1] = 3;
	cr_assert_eq(lbt_sim_field_read(s, "load", &wrong, &e), LBT_EINVAL);
	cr_assert_eq(lbt_sim_field(s, "nothing", &a, &e), LBT_EINVAL);
	cr_assert(strstr(e.msg, "no field 'nothing'"), "%s", e.msg);
	cr_assert_eq(lbt_sim_field(s, "speed", &a, &e), LBT_OK, "%s", e.msg);
	cr_assert_str_eq(a.dtype, "<f8");
	a.data = x;
	cr_assert_eq(lbt_sim_field_read(s, "speed", &a, &e), LBT_OK, "%s", e.msg);
	cr_assert_eq(x[0], 1.0, "speeds default to const:1, not %g", x[0]);
	cr_assert_eq(lbt_sim_field_write(s, "speed", &a, &e), LBT_EINVAL);
	cr_assert(strstr(e.msg, "read-only"), "%s", e.msg);
	lbt_sim_close(s);
}

Test(api, json_fits_or_says_how_long_it_is)
{
	lbt_config c = lbt_config_default();
	c.shape = "8x8";
	c.threads = 1;
	lbt_sim *s = open_cfg(&c);
	char small[16], big[8192];
	size_t n = 0;
	lbt_err e;
	cr_assert_eq(lbt_sim_json(s, big, sizeof big, &n, &e), LBT_EINVAL); /* nothing has run */
	cr_assert_eq(lbt_sim_run(s, NULL, NULL, &e), LBT_OK, "%s", e.msg);
	cr_assert_eq(lbt_sim_json(s, small, sizeof small, &n, &e), LBT_ERANGE);
	cr_assert_gt(n, sizeof small);
	cr_assert_eq(lbt_sim_json(s, big, n, NULL, &e), LBT_ERANGE, "no room for the NUL");
	cr_assert_eq(lbt_sim_json(s, big, n + 1, NULL, &e), LBT_OK, "%s", e.msg);
	cr_assert_eq(strlen(big), n);
	cr_assert(!strncmp(big, "{\"lbtorus\":\"" LBT_VERSION "\",\"method\":\"lm-c5\",\"shape\":\"8x8\"", 40), "%s", big);
	lbt_sim_close(s);
}

Test(api, configs_are_checked)
{
	lbt_err e;
	lbt_config zero;
	memset(&zero, 0, sizeof zero);
	cr_assert_eq(lbt_config_check(&zero, &e), LBT_EINVAL);
	cr_assert(strstr(e.msg, "lbt_config_default"), "%s", e.msg);
	lbt_config c = lbt_config_default();
	c.shape = "8x8";
	c.method = "lm-c5";
	cr_assert_eq(lbt_config_param(&c, "alpha", "0.25", &e), LBT_OK);
	cr_assert_eq(lbt_config_check(&c, &e), LBT_EINVAL);
	cr_assert(strstr(e.msg, "lm-c5 takes no parameter --alpha"), "%s", e.msg);
	/* a value checked against the shape (the method's check), as opening it
	 * would: on the 8x8 torus each PE has 4 links, so alpha <= 1/4 (Cybenko
	 * 1989, constraint (b): a PE never sends more than it holds) */
	c.method = "fos";
	cr_assert_eq(lbt_config_check(&c, &e), LBT_OK, "%s", e.msg);
	c.param[0].value = "0.26";
	cr_assert_eq(lbt_config_check(&c, &e), LBT_EINVAL);
	cr_assert(strstr(e.msg, "--alpha 0.26: above 1/max_degree = 1/4"), "%s", e.msg);
	c = lbt_config_default();
	c.until = "steps:10";
	c.max_steps = 5;
	cr_assert_eq(lbt_config_check(&c, &e), LBT_EINVAL);
	for (int i = 0; i < 8; i++)
		cr_assert_eq(lbt_config_param(&c, "alpha", "0.25", &e), LBT_OK);
	cr_assert_eq(lbt_config_param(&c, "alpha", "0.25", &e), LBT_ERANGE);
	c = lbt_config_default();
	c.shape = "8x8";
	lbt_sim *s = NULL;
	cr_assert_eq(lbt_sim_open(&s, &c, &e), LBT_OK, "%s", e.msg);
	cr_assert_eq(lbt_sim_step(s, -1, &e), LBT_EINVAL);
	lbt_sim_close(s);
}

/* Every method the registry describes is configured by name with every
 * parameter at its schema's default, and a value below an integer
 * parameter's range or a closed range's low end is refused. */
Test(api, every_described_method_and_parameter_configures)
{
	lbt_method_info m;
	lbt_err e;
	int i = 0;
	for (; lbt_method_describe(i, &m) == LBT_OK; i++) {
		lbt_config c = lbt_config_default();
		c.shape = "8x8";
		c.method = m.name;
		c.init = m.real ? "uniform:0:9" : "worst:5";
		lbt_param_info p;
		int j = 0;
		for (; lbt_param_describe(i, j, &p) == LBT_OK; j++)
			cr_assert_eq(lbt_config_param(&c, p.name, p.def, &e), LBT_OK);
		cr_assert_eq(j, m.nparams, "%s: %d parameters described, %d declared", m.name, j, m.nparams);
		cr_assert_eq(lbt_config_check(&c, &e), LBT_OK, "%s: %s", m.name, e.msg);
		for (j = 0; lbt_param_describe(i, j, &p) == LBT_OK; j++) {
			if (p.lo_open || p.words || p.lo < -1e300)
				continue;
			char below[64];
			snprintf(below, sizeof below, "%.17g", p.lo - 1);
			lbt_config d = c;
			memset(d.param, 0, sizeof d.param);
			cr_assert_eq(lbt_config_param(&d, p.name, below, &e), LBT_OK);
			cr_assert_eq(lbt_config_check(&d, &e), LBT_EINVAL, "%s: %s = %s accepted", m.name, p.name, below);
		}
	}
	cr_assert_gt(i, 0);
	cr_assert_eq(lbt_method_describe(-1, &m), LBT_EINVAL);
	lbt_workload_info w;
	int none = 0;
	for (i = 0; lbt_workload_describe(i, &w) == LBT_OK; i++)
		none += !strcmp(w.name, "none");
	cr_assert_eq(none, 1);
	cr_assert_not_null(lbt_experiment(0));
	cr_assert_null(lbt_experiment(-1));
}

Test(api, version)
{
	char v[32];
	snprintf(v, sizeof v, "%d.%d.%d", LBT_VERSION_MAJOR, LBT_VERSION_MINOR, LBT_VERSION_PATCH);
	cr_assert_str_eq(lbt_version(), LBT_VERSION);
	cr_assert_str_eq(v, LBT_VERSION);
	cr_assert_str_eq(lbt_status_name(LBT_EINVAL), "invalid");
	cr_assert_str_eq(lbt_status_name(LBT_EINTR + 1), "unknown");
}

/* A sweep of 2 methods x 2 shapes x 2 inits, the seed deciding nothing for
 * these deterministic methods from worst:5 and const:3, writes 8 records;
 * a second call finds them all and adds none. */
Test(api, a_sweep_runs_once_and_resumes)
{
	char dir[] = "/tmp/lbt-api-XXXXXX", spec[64], results[64], line[8192];
	cr_assert_not_null(mkdtemp(dir));
	snprintf(spec, sizeof spec, "%s/s.spec", dir);
	snprintf(results, sizeof results, "%s/r.jsonl", dir);
	FILE *f = fopen(spec, "w");
	cr_assert_not_null(f);
	fputs("method = lm-c5, nna\nshape = 8x8, 4x16\ninit = worst:5, const:3\nseed = 1..2\n", f);
	fclose(f);
	lbt_batch b = lbt_batch_default();
	b.threads = 1;
	lbt_err e;
	for (int pass = 0; pass < 2; pass++) {
		cr_assert_eq(lbt_sweep_file(spec, results, &b, &e), LBT_OK, "%s", e.msg);
		int n = 0;
		f = fopen(results, "r");
		cr_assert_not_null(f);
		while (fgets(line, sizeof line, f))
			n += !strncmp(line, "{\"run_id\":", 10);
		fclose(f);
		cr_assert_eq(n, 8, "pass %d: %d records", pass, n);
	}
	lbt_batch zero;
	memset(&zero, 0, sizeof zero);
	cr_assert_eq(lbt_sweep_file(spec, results, &zero, &e), LBT_EINVAL);
	remove(results);
	remove(spec);
	rmdir(dir);
}

/* The names in dir other than "." and "..", counted; -1: no such directory. */
static int entries(const char *dir)
{
	DIR *d = opendir(dir);
	if (!d)
		return -1;
	int n = 0;
	for (struct dirent *de; (de = readdir(d));)
		n += strcmp(de->d_name, ".") && strcmp(de->d_name, "..");
	closedir(d);
	return n;
}

/* Remove dir and the files in it. */
static void remove_dir(const char *dir)
{
	DIR *d = opendir(dir);
	char p[4200];
	for (struct dirent *de; d && (de = readdir(d));)
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..")) {
			snprintf(p, sizeof p, "%s/%s", dir, de->d_name);
			remove(p);
		}
	if (d)
		closedir(d);
	rmdir(dir);
}

static volatile sig_atomic_t stop_flag;
static int notes_before_stop;

/* A progress note: the first run's line of a batch ("  [1/N] ...") sets the flag. */
static void stop_after_first_run(void *ctx, const char *line)
{
	(void)ctx;
	if (!stop_flag)
		notes_before_stop++;
	if (strstr(line, "[1/"))
		stop_flag = 1;
}

/* lbt_experiment_run stops on lbt_batch.interrupt alone (no signal handler,
 * nothing set process-wide): set before the call, nothing is made; set
 * during fig5, after its first run, the call returns LBT_EINTR and out_dir
 * keeps only what it held. Left at zero, the flag stops nothing. */
Test(api, an_experiment_stops_on_its_batch_interrupt)
{
	char dir[] = "/tmp/lbt-api-XXXXXX", out[96], keep[128];
	cr_assert_not_null(mkdtemp(dir));
	lbt_batch b = lbt_batch_default();
	b.threads = 1;
	b.quick = 1;
	b.interrupt = &stop_flag;
	lbt_err e = {{0}};
	int64_t differs = -1;

	stop_flag = 1;
	snprintf(out, sizeof out, "%s/before", dir);
	cr_assert_eq(lbt_experiment_run("table3", out, &b, &differs, &e), LBT_EINTR, "%s", e.msg);
	cr_assert(strstr(e.msg, "interrupted"), "%s", e.msg);
	cr_assert_eq(entries(out), -1, "%s made by an interrupted experiment", out);

	stop_flag = 0;
	b.note = stop_after_first_run;
	snprintf(out, sizeof out, "%s/during", dir);
	snprintf(keep, sizeof keep, "%s/keep", out);
	cr_assert_eq(mkdir(out, 0777), 0);
	FILE *f = fopen(keep, "w");
	cr_assert_not_null(f);
	fclose(f);
	cr_assert_eq(lbt_experiment_run("fig5", out, &b, &differs, &e), LBT_EINTR, "%s", e.msg);
	cr_assert_eq(stop_flag, 1, "fig5 never noted its first run");
	cr_assert_gt(notes_before_stop, 0);
	cr_assert_eq(entries(out), 1, "fig5's files (or its staging directory) published after the interrupt");
	remove_dir(out);

	stop_flag = 0;
	b.note = NULL;
	snprintf(out, sizeof out, "%s/after", dir);
	snprintf(keep, sizeof keep, "%s/table3.md", out);
	cr_assert_eq(lbt_experiment_run("table3", out, &b, &differs, &e), LBT_OK, "%s", e.msg);
	cr_assert_eq(differs, 0);
	cr_assert_eq(access(keep, F_OK), 0);
	remove_dir(out);
	rmdir(dir);
}

/* lbt_isa_describe: the targets compiled in, scalar always among them, and
 * "auto" takes exactly one, which this CPU runs and which is not emulated;
 * the same one a run with isa NULL reports in its JSON record. */
Test(api, the_isas_and_the_one_auto_takes)
{
	int n = 0, chosen = -1, scalar = 0;
	lbt_isa_info t;
	while (lbt_isa_describe(n, &t) == LBT_OK) {
		scalar |= !strcmp(t.name, "scalar");
		if (t.chosen) {
			cr_assert_eq(chosen, -1, "two targets chosen");
			chosen = n;
			cr_assert(t.supported && (getenv("LBTORUS_ISA") || !t.emulated), "%s chosen", t.name);
		}
		n++;
	}
	cr_assert(scalar && n >= 1);
	cr_assert_neq(chosen, -1);
	cr_assert_eq(lbt_isa_describe(-1, &t), LBT_EINVAL);
	cr_assert_eq(lbt_isa_describe(0, NULL), LBT_EINVAL);
	lbt_isa_describe(chosen, &t);
	lbt_config c = lbt_config_default();
	c.shape = "8x8";
	lbt_sim *s;
	cr_assert_eq(lbt_sim_open(&s, &c, NULL), LBT_OK);
	cr_assert_eq(lbt_sim_run(s, NULL, NULL, NULL), LBT_OK);
	char json[8192], want[64];
	cr_assert_eq(lbt_sim_json(s, json, sizeof json, NULL, NULL), LBT_OK);
	snprintf(want, sizeof want, "\"isa\":\"%s\"", t.name);
	cr_assert(strstr(json, want), "%s not in %s", want, json);
	lbt_sim_close(s);
}

/* ---- The command line's tools: numbers, processes, search, report, figures */

/* The number parsers: the text whole, within the range, never clamped; the
 * refusal names the option, the text and the range (src/core/number.c's
 * forms: "WHAT 'TEXT' is out of range: give LO..HI"). */
Test(api, numbers_are_parsed_whole_and_in_range)
{
	int64_t i = 0;
	uint64_t u = 0;
	double x = 0;
	lbt_err e;
	cr_assert_eq(lbt_parse_i64("-7", -10, 10, "--n", &i, &e), LBT_OK, "%s", e.msg);
	cr_assert_eq(i, -7);
	cr_assert_eq(lbt_parse_i64("11", 1, 10, "--n", &i, &e), LBT_EINVAL);
	cr_assert_str_eq(e.msg, "--n '11' is out of range: give 1..10");
	cr_assert_eq(lbt_parse_i64("1x", 1, 10, "--n", &i, &e), LBT_EINVAL);
	cr_assert_str_eq(e.msg, "--n '1x': give a non-negative integer in 1..10");
	cr_assert_eq(i, -7, "a refused text leaves the value");
	cr_assert_eq(lbt_parse_u64("18446744073709551615", 0, UINT64_MAX, "seed", &u, &e), LBT_OK, "%s", e.msg);
	cr_assert_eq(u, UINT64_MAX);
	cr_assert_eq(lbt_parse_u64("18446744073709551616", 0, UINT64_MAX, "seed", &u, &e), LBT_EINVAL);
	cr_assert_eq(lbt_parse_f64("0.25", 0, 1, 1, "alpha", &x, &e), LBT_OK, "%s", e.msg);
	cr_assert_eq(x, 0.25);
	cr_assert_eq(lbt_parse_f64("0", 0, 1, 1, "alpha", &x, &e), LBT_EINVAL);
	cr_assert_str_eq(e.msg, "alpha '0' is out of range: give a number in (0, 1]");
}

/* Started without an MPI launcher the process is rank 0 of 1 after init,
 * whether or not the library has MPI; finalize is safe to call. */
Test(api, mpi_alone_is_rank_0_of_1)
{
	char name[] = "test_api", *args[] = {name, NULL}, **argv = args;
	int argc = 1;
	lbt_err e;
	cr_assert_eq(lbt_comm_init(&argc, &argv, &e), LBT_OK, "%s", e.msg);
	cr_assert_eq(lbt_comm_rank(), 0);
	cr_assert_eq(lbt_comm_size(), 1);
	cr_assert(lbt_comm_mpi() == 0 || lbt_comm_mpi() == 1);
	lbt_comm_finalize();
}

/* lbt_set_argv: the record's "command" is the command line as a shell reads
 * it (an argument with a blank or a quote quoted), JSON-escaped. */
Test(api, the_command_line_names_the_records)
{
	char *argv[] = {"prog", "--shape", "8x8", "a b", "it's", NULL};
	lbt_set_argv(5, argv);
	lbt_config c = lbt_config_default();
	c.shape = "8x8";
	lbt_sim *s = open_cfg(&c);
	cr_assert_eq(lbt_sim_run(s, NULL, NULL, NULL), LBT_OK);
	char json[16384];
	cr_assert_eq(lbt_sim_json(s, json, sizeof json, NULL, NULL), LBT_OK);
	cr_assert(strstr(json, "\"command\":\"prog --shape 8x8 'a b' 'it'\\\\''s'\""), "%s", json);
	lbt_sim_close(s);
	lbt_set_call(NULL);
}

/* lbt_interrupt_all: a run whose config has no flag of its own stops after
 * its first step once the process-wide one is set. */
Test(api, one_interrupt_stops_every_run)
{
	static volatile sig_atomic_t flag = 1;
	lbt_interrupt_all(&flag);
	lbt_config c = lbt_config_default();
	c.shape = "64x64";
	lbt_sim *s = open_cfg(&c);
	cr_assert_eq(lbt_sim_run(s, NULL, NULL, NULL), LBT_OK);
	lbt_result r;
	cr_assert_eq(lbt_sim_result(s, &r, NULL), LBT_OK);
	cr_assert_str_eq(r.stop, "interrupted");
	cr_assert_leq(r.steps, 1);
	lbt_sim_close(s);
	lbt_interrupt_all(NULL);
}

Test(api, the_data_dir_follows_LBTORUS_DATA)
{
	setenv("LBTORUS_DATA", "/some/where", 1);
	cr_assert_str_eq(lbt_data_dir(), "/some/where");
	unsetenv("LBTORUS_DATA");
	cr_assert(lbt_data_dir()[0] == '/', "%s", lbt_data_dir());
}

/* Every method's flags and kernel slots as lbtorus info --json names them:
 * a deterministic method draws nothing, every declared slot has a name;
 * LM-C5's step is the Liquid model's kernel. Every workload's example runs
 * on the loads it says, and a run of it is refused on those it does not. */
Test(api, methods_and_workloads_say_what_they_run_on)
{
	lbt_method_info m;
	int nslots = 0, lm = 0;
	cr_assert_eq(lbt_method_describe(0, &m), LBT_OK);
	while (m.slot[nslots])
		nslots++;
	for (int i = 0; lbt_method_describe(i, &m) == LBT_OK; i++) {
		cr_assert(!(m.deterministic && m.random), "%s", m.name);
		cr_assert_eq(m.kernels >> nslots, 0u, "%s: a slot without a name", m.name);
		if (!strcmp(m.name, "lm-c5")) {
			lm = 1;
			cr_assert(!m.random && m.cut, "lm-c5 is deterministic and runs cut");
			int step = 0;
			for (int k = 0; k < nslots; k++)
				step |= (m.kernels >> k & 1) && !strcmp(m.slot[k], "lm_step");
			cr_assert(step);
		}
	}
	cr_assert(lm);
	lbt_workload_info w;
	for (int i = 0; lbt_workload_describe(i, &w) == LBT_OK; i++) {
		cr_assert(w.int_loads || w.real_loads, "%s", w.name);
		for (int real = 0; real < 2; real++) {
			lbt_config c = lbt_config_default();
			c.shape = "8x8";
			c.method = real ? "fos" : "fos-int";
			c.workload = w.example;
			lbt_err e;
			int ok = lbt_config_check(&c, &e) == LBT_OK;
			cr_assert_eq(ok, real ? w.real_loads : w.int_loads, "%s on %s: %s", w.example, c.method, e.msg);
		}
	}
}

/* The int32 loads of a .npy file written by lbtorus (version 1.0, "<i4",
 * C order) into L[0..n-1]; returns n. */
static int64_t npy_loads(const char *path, int32_t *L, int64_t cap)
{
	FILE *f = fopen(path, "rb");
	cr_assert_not_null(f, "%s", path);
	unsigned char head[10];
	cr_assert_eq(fread(head, 1, 10, f), 10u);
	cr_assert(!memcmp(head, "\x93NUMPY\x01\x00", 8));
	char dict[4096] = "";
	size_t hl = head[8] | (size_t)head[9] << 8;
	cr_assert(hl < sizeof dict && fread(dict, 1, hl, f) == hl);
	cr_assert(strstr(dict, "'descr': '<i4'") && strstr(dict, "'fortran_order': False"), "%s", dict);
	int64_t n = (int64_t)fread(L, sizeof *L, (size_t)cap, f);
	fclose(f);
	return n;
}

static void collect(void *ctx, const char *line)
{
	char *buf = ctx;
	strncat(buf, line, 16383 - strlen(buf));
	strncat(buf, "\n", 16383 - strlen(buf));
}

/* The worst-case search: its .npy has the asked total and max - min, a run
 * from it balances in the steps the JSON says, and the result is the same
 * on one thread and on two. */
Test(api, a_search_finds_what_it_says)
{
	char dir[] = "/tmp/lbt-api-XXXXXX", out[64], json[2][16384];
	cr_assert_not_null(mkdtemp(dir));
	snprintf(out, sizeof out, "%s/w.npy", dir);
	int32_t L[16];
	for (int threads = 1; threads <= 2; threads++) {
		lbt_search_spec s = lbt_search_default();
		s.shape = "4x4";
		s.ldiff = 4;
		s.mean = 2;
		s.restarts = 3;
		s.moves = 40;
		s.out = out;
		s.print = collect;
		s.ctx = json[threads - 1];
		json[threads - 1][0] = 0;
		lbt_batch b = lbt_batch_default();
		b.threads = threads;
		lbt_err e;
		cr_assert_eq(lbt_search_run(&s, &b, &e), LBT_OK, "%s", e.msg);
		*strstr(json[threads - 1], ",\"format\":") = 0; /* the provenance: the date, the threads */
		cr_assert_eq(npy_loads(out, L, 16), 16);
		int64_t total = 0, mx = L[0], mn = L[0];
		for (int i = 0; i < 16; i++) {
			total += L[i];
			mx = L[i] > mx ? L[i] : mx;
			mn = L[i] < mn ? L[i] : mn;
		}
		cr_assert_eq(total, 32);
		cr_assert_eq(mx - mn, 4);
	}
	cr_assert_str_eq(json[0], json[1]);
	char init[80];
	snprintf(init, sizeof init, "file:%s", out);
	lbt_config c = lbt_config_default();
	c.init = init;
	lbt_sim *sim = open_cfg(&c);
	cr_assert_eq(lbt_sim_run(sim, NULL, NULL, NULL), LBT_OK);
	lbt_result r;
	cr_assert_eq(lbt_sim_result(sim, &r, NULL), LBT_OK);
	char want[64];
	snprintf(want, sizeof want, "\"steps\":%lld,", (long long)r.steps);
	cr_assert(strstr(json[0], want), "%s not in %s", want, json[0]);
	lbt_sim_close(sim);
	remove(out);
	rmdir(dir);
}

/* A search stopped by its batch's flag writes nothing and says LBT_EINTR,
 * at once: its billion moves would run past the timeout unless every run
 * stops; a spec not made by lbt_search_default is refused. */
Test(api, an_interrupted_search_writes_nothing, .timeout = 60)
{
	static volatile sig_atomic_t flag = 1;
	char dir[] = "/tmp/lbt-api-XXXXXX", out[64];
	cr_assert_not_null(mkdtemp(dir));
	snprintf(out, sizeof out, "%s/w.npy", dir);
	lbt_search_spec s = lbt_search_default();
	s.shape = "4x4";
	s.ldiff = 4;
	s.total = 32;
	s.restarts = 4;
	s.moves = 1000000000;
	s.out = out;
	lbt_batch b = lbt_batch_default();
	b.interrupt = &flag;
	lbt_err e;
	cr_assert_eq(lbt_search_run(&s, &b, &e), LBT_EINTR, "%s", e.msg);
	cr_assert_eq(entries(dir), 0);
	lbt_search_spec zero;
	memset(&zero, 0, sizeof zero);
	cr_assert_eq(lbt_search_run(&zero, &b, &e), LBT_EINVAL);
	rmdir(dir);
}

/* A figure of records on the line t = 1 + 2k: the linear fit's a and b
 * exactly, R^2 = 1, a line for the group and one for the files; an unknown
 * fit and an output over an input are refused. */
Test(api, a_figure_fits_and_refuses)
{
	char dir[] = "/tmp/lbt-api-XXXXXX", in[64], stem[64], text[16384] = "";
	cr_assert_not_null(mkdtemp(dir));
	snprintf(in, sizeof in, "%s/r.jsonl", dir);
	snprintf(stem, sizeof stem, "%s/f", dir);
	FILE *f = fopen(in, "w");
	cr_assert_not_null(f);
	for (int k = 1; k <= 3; k++)
		fprintf(f, "{\"method\":\"lm-c5\",\"seed\":1,\"k\":%d,\"t\":%d}\n", k, 1 + 2 * k);
	fclose(f);
	const char *inputs[] = {in};
	lbt_figure_spec s = lbt_figure_default();
	s.inputs = inputs;
	s.ninputs = 1;
	s.x = "k";
	s.y = "t";
	s.fit = "linear";
	s.stem = stem;
	s.print = collect;
	s.ctx = text;
	lbt_err e;
	cr_assert_eq(lbt_figure_write(&s, &e), LBT_OK, "%s", e.msg);
	cr_assert(strstr(text, ": 3 points; t = a + b * k, a = 1, b = 2") && strstr(text, "R^2 = 1.0000\n"), "%s", text);
	cr_assert(strstr(text, ".csv, ") && strstr(text, ".fit.json"), "%s", text);
	cr_assert_eq(lbt_figure_check(&s, &e), LBT_OK, "%s", e.msg);
	s.fit = "cubic";
	cr_assert_eq(lbt_figure_check(&s, &e), LBT_EINVAL);
	cr_assert(strstr(e.msg, "fit 'cubic'"), "%s", e.msg);
	cr_assert_eq(lbt_figure_write(&s, &e), LBT_EINVAL);
	cr_assert(strstr(e.msg, "fit 'cubic'"), "%s", e.msg);
	s.fit = NULL;
	snprintf(stem, sizeof stem, "%s/r", dir); /* r.csv ... but r.jsonl is no output: allowed */
	inputs[0] = in;
	char csv[80];
	snprintf(csv, sizeof csv, "%s/r.csv", dir);
	const char *two[] = {in, csv};
	f = fopen(csv, "w");
	cr_assert_not_null(f);
	fputs("step,t\n0,1\n", f);
	fclose(f);
	s.inputs = two;
	s.ninputs = 2;
	cr_assert_eq(lbt_figure_write(&s, &e), LBT_EINVAL);
	cr_assert(strstr(e.msg, "r.csv"), "%s", e.msg);
	remove_dir(dir);
}

/* ---- Sweeps and Theorem 3 ---------------------------------------------- */

static void count_planned(void *ctx, const char *id, const char *key)
{
	int *n = ctx;
	cr_assert_eq(strlen(id), 16, "%s", id);
	cr_assert(!strncmp(key, "method=", 7), "%s", key);
	++*n;
}

/* lbt_sweep_set checks an option when it is given, with the message the
 * command line prints; the axes given as options replace the spec file's,
 * which fills the rest: 2 methods x 2 shapes = 4 runs planned, none run. */
Test(api, sweep_options_are_checked_when_set_and_replace_the_file)
{
	char dir[] = "/tmp/lbt-api-XXXXXX", spec[64];
	cr_assert_not_null(mkdtemp(dir));
	snprintf(spec, sizeof spec, "%s/s.spec", dir);
	FILE *f = fopen(spec, "w");
	cr_assert_not_null(f);
	fputs("method = lm-c5\nshape = 8, 16, 32\n", f);
	fclose(f);
	lbt_sweep_opts o = lbt_sweep_default();
	lbt_err e;
	cr_assert_eq(lbt_sweep_set(&o, "shape", "8,8", &e), LBT_EINVAL);
	cr_assert(strstr(e.msg, "8,8"), "%s", e.msg);
	cr_assert_eq(lbt_sweep_set(&o, "solo-pes", "0", &e), LBT_EINVAL);
	cr_assert(strstr(e.msg, "--solo-pes"), "%s", e.msg);
	cr_assert_eq(lbt_sweep_set(&o, "colour", "red", &e), LBT_EINVAL);
	cr_assert_null(o.axis[0].name, "a refused option is not kept");
	cr_assert_eq(lbt_sweep_set(&o, "method", "lm-c5,fos", &e), LBT_OK, "%s", e.msg);
	cr_assert_eq(lbt_sweep_set(&o, "shape", "8", &e), LBT_OK, "%s", e.msg);
	cr_assert_eq(lbt_sweep_set(&o, "shape", "4x4", &e), LBT_OK, "%s", e.msg); /* repeated: appended */
	int n = 0;
	o.spec = spec;
	o.dry_run = 1;
	o.planned = count_planned;
	o.ctx = &n;
	lbt_batch b = lbt_batch_default();
	lbt_sweep_counts c;
	cr_assert_eq(lbt_sweep_run(&o, &b, &c, &e), LBT_OK, "%s", e.msg);
	cr_assert_eq(n, 4);
	cr_assert_eq(c.total, 4);
	cr_assert_eq(c.done, 0);
	b.isa = "no-such-isa";
	cr_assert_eq(lbt_batch_check(&b, &e), LBT_EINVAL);
	cr_assert(strstr(e.msg, "no-such-isa"), "%s", e.msg);
	remove(spec);
	rmdir(dir);
}

typedef struct {
	int calls, ends;
	lbt_sweep_counts last;
} counted;

static void count_progress(void *ctx, const lbt_sweep_counts *c)
{
	counted *k = ctx;
	cr_assert_eq(k->ends, 0, "a call after the end");
	k->calls++;
	k->ends += c->end;
	cr_assert_leq(c->done + c->failed + c->skipped, c->total);
	k->last = *c;
}

/* The progress callback gets the counts after every run (and once before
 * the first) and once more with end set: 3 runs, then on resume 3 skipped
 * and none run. A results file that is also an input is refused before
 * anything is written. */
Test(api, sweep_counts_reach_the_callback_and_the_end)
{
	char dir[] = "/tmp/lbt-api-XXXXXX", results[64];
	cr_assert_not_null(mkdtemp(dir));
	snprintf(results, sizeof results, "%s/r.jsonl", dir);
	lbt_sweep_opts o = lbt_sweep_default();
	lbt_err e;
	cr_assert_eq(lbt_sweep_set(&o, "shape", "ring:8..32*2", &e), LBT_OK, "%s", e.msg);
	counted k = {0};
	o.results = results;
	o.progress = count_progress;
	o.ctx = &k;
	lbt_batch b = lbt_batch_default();
	b.threads = 1;
	for (int pass = 0; pass < 2; pass++) {
		k = (counted){0};
		lbt_sweep_counts c;
		cr_assert_eq(lbt_sweep_run(&o, &b, &c, &e), LBT_OK, "%s", e.msg);
		cr_assert_eq(k.ends, 1);
		cr_assert_eq(k.calls, pass ? 2 : 5, "pass %d: %d calls", pass, k.calls); /* before, per run, end */
		cr_assert_eq(k.last.status, LBT_OK);
		cr_assert_eq(c.total, 3);
		cr_assert_eq(c.done, pass ? 0 : 3);
		cr_assert_eq(c.skipped, pass ? 3 : 0);
		if (!pass)
			cr_assert(c.rate > 0 && c.eta == 0, "rate %g, eta %g", c.rate, c.eta);
	}
	char spec[64];
	snprintf(spec, sizeof spec, "%s/s.spec", dir);
	FILE *f = fopen(spec, "w");
	cr_assert_not_null(f);
	fputs("shape = 8\n", f);
	fclose(f);
	o.spec = o.results = spec; /* the spec file as the results file too */
	cr_assert_eq(lbt_sweep_run(&o, &b, NULL, &e), LBT_EINVAL);
	cr_assert(strstr(e.msg, "--spec") && strstr(e.msg, "--results"), "%s", e.msg);
	struct stat sb;
	cr_assert_eq(stat(spec, &sb), 0);
	cr_assert_eq(sb.st_size, 10, "the spec file was written to");
	remove(spec);
	remove(results);
	rmdir(dir);
}

static void keep_line(void *ctx, const char *line)
{
	int *n = ctx;
	cr_assert_null(strchr(line, '\n'));
	++*n;
}

/* Theorem 3 on three rings from three uniform loads (every PE loaded:
 * fitted) and from worst:1 (an idle PE: outside the premise), one seed: the constant returned is
 * the mean of T/(D·K·Ldiff) over the fitted rows of the bound.csv it
 * published, and fitting the same records again (from) gives it again. */
Test(api, bound_fits_what_it_publishes, .timeout = 120)
{
	char dir[] = "/tmp/lbt-api-XXXXXX", out[64], out2[64], csv[96], runs[96], line[4096];
	cr_assert_not_null(mkdtemp(dir));
	snprintf(out, sizeof out, "%s/b", dir);
	snprintf(out2, sizeof out2, "%s/b2", dir);
	lbt_bound_opts o = lbt_bound_default();
	lbt_err e;
	cr_assert_eq(lbt_sweep_set(&o.sweep, "method", "lm-c5,fos", &e), LBT_OK, "%s", e.msg);
	lbt_batch b = lbt_batch_default();
	cr_assert_eq(lbt_bound_run(&o, &b, NULL, &e), LBT_EINVAL, "two methods refused");
	o = lbt_bound_default();
	o.out_dir = out;
	cr_assert_eq(lbt_sweep_set(&o.sweep, "shape", "ring:8..32*2", &e), LBT_OK, "%s", e.msg);
	cr_assert_eq(lbt_sweep_set(&o.sweep, "init", "uniform:1:8..32*2, worst:1", &e), LBT_OK, "%s", e.msg);
	cr_assert_eq(lbt_sweep_set(&o.sweep, "seed", "1", &e), LBT_OK, "%s", e.msg);
	int lines = 0;
	b.threads = 1;
	b.note = keep_line;
	b.ctx = &lines;
	lbt_bound_result r;
	cr_assert_eq(lbt_bound_run(&o, &b, &r, &e), LBT_OK, "%s", e.msg);
	cr_assert(r.ran && r.published);
	cr_assert(r.drawn || r.plots[0]);
	cr_assert_eq(r.sweep.total, 12);
	cr_assert_eq(r.points, 12);
	cr_assert_eq(r.fitted, 9);
	cr_assert_gt(lines, 8);
	snprintf(csv, sizeof csv, "%s/bound.csv", out);
	FILE *f = fopen(csv, "r");
	cr_assert_not_null(f);
	double sum = 0;
	int n = 0;
	cr_assert_not_null(fgets(line, sizeof line, f)); /* the header */
	while (fgets(line, sizeof line, f)) {
		long long col[16];
		char *p = line;
		for (int i = 0; i < 13; i++, p = strchr(p, ',') + 1)
			col[i] = strtoll(p, NULL, 10);
		if (col[7] && !col[8]) { /* all_loaded, not censored */
			sum += (double)col[10] / (double)col[12]; /* balanced_step / dkl */
			n++;
		}
	}
	fclose(f);
	cr_assert_eq(n, 9);
	cr_assert_float_eq(r.c, sum / n, 1e-12 * r.c);
	cr_assert(r.c_lo95 <= r.c && r.c <= r.c_hi95 && r.c <= r.envelope);
	const double c = r.c;
	snprintf(runs, sizeof runs, "%s/runs.jsonl", out);
	o.from = runs;
	o.out_dir = out2;
	cr_assert_eq(lbt_bound_run(&o, &b, &r, &e), LBT_OK, "%s", e.msg);
	cr_assert(!r.ran && r.published);
	cr_assert_eq(r.c, c);
	remove_dir(out);
	remove_dir(out2);
	rmdir(dir);
}

/* ---- lbtorus run's files, bounds and words (lbt_outputs, lbt_sim_describe, ...) ---- */

/* The whole of a small file, NUL-terminated; NULL if it cannot be read. */
static char *slurp(const char *path, long *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	rewind(f);
	char *b = malloc((size_t)n + 1);
	if (b && fread(b, 1, (size_t)n, f) != (size_t)n) {
		free(b);
		b = NULL;
	}
	fclose(f);
	if (b)
		b[n] = 0;
	if (len)
		*len = n;
	return b;
}

/* lbt_sim_outputs: the JSON file is lbt_sim_json's object and a newline; the
 * trace has its "# key: value" lines, a header and one row per step 0..steps
 * ending at the result's extremes; the dump's data are the loads
 * lbt_sim_field_read gives (8x8 int32: the last 256 bytes); nothing is left
 * under a temporary name. */
Test(api, outputs_are_the_runs_record_trace_and_loads)
{
	char dir[] = "/tmp/lbt_api_outXXXXXX", json[64], trace[64], dump[64];
	cr_assert_not_null(mkdtemp(dir));
	snprintf(json, sizeof json, "%s/r.json", dir);
	snprintf(trace, sizeof trace, "%s/t.csv", dir);
	snprintf(dump, sizeof dump, "%s/d.npy", dir);
	lbt_config c = lbt_config_default();
	c.shape = "8x8";
	c.full_stats = 1;
	lbt_outputs o = lbt_outputs_default();
	o.json = json;
	o.trace = trace;
	o.dump = dump;
	lbt_err e;
	lbt_sim *s;
	cr_assert_eq(lbt_outputs_check(&o, &c, &e), LBT_OK, "%s", e.msg);
	cr_assert_eq(lbt_sim_open(&s, &c, &e), LBT_OK, "%s", e.msg);
	cr_assert_eq(lbt_sim_outputs(s, &o, &e), LBT_OK, "%s", e.msg);
	cr_assert_eq(access(json, F_OK), -1, "the JSON is published only when the run ends");
	cr_assert_eq(lbt_sim_run(s, NULL, NULL, &e), LBT_OK, "%s", e.msg);
	lbt_result r;
	lbt_sim_result(s, &r, NULL);
	cr_assert(r.reached && r.steps > 0);
	char want[8192];
	size_t n;
	cr_assert_eq(lbt_sim_json(s, want, sizeof want, &n, &e), LBT_OK, "%s", e.msg);
	long len;
	char *got = slurp(json, &len);
	cr_assert_not_null(got);
	cr_assert_eq((size_t)len, n + 1);
	want[n] = 0;
	/* the provenance's date is the second each record was made: the file's and want's may differ */
	char *dg = strstr(got, "\"date_utc\":\""), *dw = strstr(want, "\"date_utc\":\"");
	cr_assert(dg && dw && dg - got == dw - want);
	memcpy(dg, dw, strlen("\"date_utc\":\"2026-11-26T22:57:44Z\""));
	cr_assert(!memcmp(got, want, n) && got[n] == '\n', "%s\n%.*s", got, (int)n, want);
	free(got);

	char *t = slurp(trace, NULL);
	cr_assert_not_null(t);
	cr_assert(strstr(t, "\n# method: lm-c5\n# shape: 8x8\n# boundary: torus\n# init: worst:5\n# seed: 1\n# until: balanced\n"),
	          "%s", t);
	char *rows = strstr(t, "step,shifts,max,min,ldiff,");
	cr_assert_not_null(rows);
	int64_t nrows = 0;
	const char *last = NULL;
	for (char *p = strchr(rows, '\n') + 1; *p; p = strchr(p, '\n') + 1) {
		last = p;
		nrows++;
	}
	cr_assert_eq(nrows, r.steps + 1, "rows for steps 0..%lld", (long long)r.steps);
	long long step, shifts, max, min;
	cr_assert_eq(sscanf(last, "%lld,%lld,%lld,%lld", &step, &shifts, &max, &min), 4);
	cr_assert(step == r.steps && max == (long long)r.final_max && min == (long long)r.final_min);
	free(t);

	int32_t loads[64];
	lbt_array a;
	cr_assert_eq(lbt_sim_field(s, "load", &a, NULL), LBT_OK);
	a.data = loads;
	cr_assert_eq(lbt_sim_field_read(s, "load", &a, NULL), LBT_OK);
	char *d = slurp(dump, &len);
	cr_assert_not_null(d);
	cr_assert(len > 256 && !memcmp(d, "\x93NUMPY", 6));
	cr_assert(!memcmp(d + len - 256, loads, 256), "the dump holds the final loads");
	free(d);
	lbt_sim_close(s);
	DIR *dd = opendir(dir);
	struct dirent *de;
	int files = 0;
	while ((de = readdir(dd)))
		files += de->d_name[0] != '.';
	closedir(dd);
	cr_assert_eq(files, 3, "json, trace and dump, and no temporary");
	unlink(json);
	unlink(trace);
	unlink(dump);
	rmdir(dir);
}

/* A path that cannot be written fails at lbt_sim_outputs, before the run,
 * and the files opened before it are removed; a run's files are never left
 * behind when the run is closed without running. */
Test(api, outputs_fail_before_the_run_and_leave_nothing)
{
	char dir[] = "/tmp/lbt_api_badXXXXXX", json[64];
	cr_assert_not_null(mkdtemp(dir));
	snprintf(json, sizeof json, "%s/r.json", dir);
	lbt_config c = lbt_config_default();
	c.shape = "8";
	lbt_outputs o = lbt_outputs_default();
	o.json = json;
	o.dump = "/nonexistent/d.npy";
	lbt_err e;
	lbt_sim *s;
	cr_assert_eq(lbt_sim_open(&s, &c, &e), LBT_OK, "%s", e.msg);
	cr_assert_eq(lbt_sim_outputs(s, &o, &e), LBT_EIO);
	cr_assert(strstr(e.msg, "/nonexistent/d.npy"), "%s", e.msg);
	o.dump = NULL;
	cr_assert_eq(lbt_sim_outputs(s, &o, &e), LBT_OK, "%s", e.msg);
	lbt_sim_close(s);
	cr_assert_eq(rmdir(dir), 0, "a file was left in %s", dir);
}

/* lbt_outputs_check: two outputs that are one file, an output over an input
 * file, in the config's words or `lbtorus run`'s (as_command). */
Test(api, outputs_are_checked_against_each_other_and_the_inputs)
{
	lbt_config c = lbt_config_default();
	c.shape = "8";
	c.init = "file:w.npy";
	lbt_outputs o = lbt_outputs_default();
	lbt_err e;
	o.json = "F";
	o.trace = "./F";
	cr_assert_eq(lbt_outputs_check(&o, &c, &e), LBT_EINVAL);
	cr_assert_str_eq(e.msg, "--json F and --trace ./F are the same file: give each output its own");
	o.trace = NULL;
	o.dump = "./w.npy";
	c.as_command = "run";
	cr_assert_eq(lbt_outputs_check(&o, &c, &e), LBT_EINVAL);
	cr_assert_str_eq(e.msg, "run: --dump ./w.npy is the same file as --init w.npy: an output must not replace an input");
	o.dump = "d.npy";
	cr_assert_eq(lbt_outputs_check(&o, &c, &e), LBT_OK, "%s", e.msg);
	lbt_outputs bad = {0};
	cr_assert_eq(lbt_outputs_check(&bad, &c, &e), LBT_EINVAL, "outputs not made by lbt_outputs_default");
}

/* lbt_config.app: Jeannot and Vernier's application of N iterations, one
 * balancing step each, caps the run at N steps; its text is checked in the
 * config's words or run's. */
Test(api, app_iterations_cap_the_run)
{
	lbt_config c = lbt_config_default();
	c.shape = "8x8";
	c.method = "fos-speed";
	c.speeds = "uniform:1:4";
	c.app = "iterations:20";
	lbt_err e;
	lbt_sim *s;
	cr_assert_eq(lbt_sim_open(&s, &c, &e), LBT_OK, "%s", e.msg);
	cr_assert_eq(lbt_sim_run(s, NULL, NULL, &e), LBT_OK, "%s", e.msg);
	lbt_result r;
	lbt_sim_result(s, &r, NULL);
	cr_assert_eq(r.steps, 20);
	char json[8192];
	cr_assert_eq(lbt_sim_json(s, json, sizeof json, NULL, NULL), LBT_OK);
	cr_assert(strstr(json, "\"app_iterations\":20,"), "%s", json);
	lbt_sim_close(s);
	c.app = "foo";
	cr_assert_eq(lbt_config_check(&c, &e), LBT_EINVAL);
	cr_assert_str_eq(e.msg, "app 'foo': give iterations:N with N >= 1");
	c.as_command = "run";
	cr_assert_eq(lbt_config_check(&c, &e), LBT_EINVAL);
	cr_assert_str_eq(e.msg, "--app 'foo': give iterations:N with N >= 1");
	c.app = "iterations:0";
	cr_assert_eq(lbt_config_check(&c, &e), LBT_EINVAL);
	cr_assert(strstr(e.msg, "--app iterations:N '0'"), "%s", e.msg);
}

/* as_command "run": what `lbtorus run` checks itself is said in its words. */
Test(api, messages_in_the_commands_words)
{
	lbt_config c = lbt_config_default();
	c.shape = "8";
	c.warmup = 3;
	lbt_err e;
	cr_assert_eq(lbt_config_check(&c, &e), LBT_EINVAL);
	cr_assert_str_eq(e.msg, "warmup needs a workload");
	c.as_command = "run";
	cr_assert_eq(lbt_config_check(&c, &e), LBT_EINVAL);
	cr_assert_str_eq(e.msg, "run: --warmup needs a --workload");
	c.warmup = 0;
	c.until = "steps:10";
	c.max_steps = 5;
	cr_assert_eq(lbt_config_check(&c, &e), LBT_EINVAL);
	cr_assert_str_eq(e.msg, "run: --until steps:10 conflicts with --max-steps 5");
	c.as_command = NULL;
	cr_assert_eq(lbt_config_check(&c, &e), LBT_EINVAL);
	cr_assert_str_eq(e.msg, "until steps:10 conflicts with max_steps 5");
}

/* lbt_config.ranks: the grid of ranks under MPI, checked on one process
 * too: a grid of ones is the whole torus (the same run as without one); a
 * grid of another rank count, of another length than the shape's, or
 * cutting an axis into more parts than its extent is refused with one line. */
Test(api, ranks_give_the_grid_of_ranks)
{
	lbt_config c = lbt_config_default();
	c.shape = "6x5";
	c.init = "uniform:0:9";
	c.until = "steps:7";
	c.method = "nna";
	lbt_err e;
	lbt_result r[2];
	for (int k = 0; k < 2; k++) {
		c.ranks = k ? "1x1" : NULL;
		lbt_sim *s;
		cr_assert_eq(lbt_sim_open(&s, &c, &e), LBT_OK, "%s", e.msg);
		cr_assert_eq(lbt_sim_run(s, NULL, NULL, &e), LBT_OK, "%s", e.msg);
		lbt_sim_result(s, &r[k], NULL);
		lbt_sim_close(s);
	}
	cr_assert(r[0].steps == 7 && r[1].steps == 7 && r[0].final_max == r[1].final_max && r[0].final_min == r[1].final_min &&
	          r[0].shifts == r[1].shifts);
	c.ranks = "2x1";
	cr_assert_eq(lbt_config_check(&c, &e), LBT_EINVAL);
	cr_assert(strstr(e.msg, "the grid of ranks has 2 ranks, but 1 is running"), "%s", e.msg);
	c.ranks = "1";
	cr_assert_eq(lbt_config_check(&c, &e), LBT_EINVAL);
	cr_assert(strstr(e.msg, "1 counts for a torus of 2 axes"), "%s", e.msg);
	cr_assert(!strncmp(e.msg, "ranks '1': ", 11), "%s", e.msg); /* the field's name: no command here */
	c.as_command = "run";
	cr_assert_eq(lbt_config_check(&c, &e), LBT_EINVAL);
	cr_assert(strstr(e.msg, "--ranks '1': 1 counts"), "%s", e.msg); /* the option, as `lbtorus run` names it */
	c.ranks = "2y";
	cr_assert_eq(lbt_config_check(&c, &e), LBT_EINVAL);
	cr_assert(strstr(e.msg, "--ranks '2y': not a grid of ranks"), "%s", e.msg);
	c.as_command = NULL;
	cr_assert_eq(lbt_config_check(&c, &e), LBT_EINVAL);
	cr_assert(!strncmp(e.msg, "ranks '2y': not a grid of ranks", 31), "%s", e.msg);
	c.shape = "6x1";
	c.ranks = "1x2";
	cr_assert_eq(lbt_config_check(&c, &e), LBT_EINVAL);
	cr_assert(strstr(e.msg, "cannot be cut into 2 blocks"), "%s", e.msg);
}

/* lbt_sim_describe on Table 3's ring (Henrich 1996): 8 PEs, D = 1, K = 8,
 * 16 units on PE 0, mean 2: D*K*Ldiff = 1*8*16 = 128, the trivial bound
 * ceil((16 - 2)/1) = 14, to balanced ceil((16 - 2 - 1)/1) = 13; and the
 * result's site updates (PEs x substeps) and a cycle's period. */
Test(api, describe_gives_the_bounds_of_the_current_loads)
{
	lbt_config c = lbt_config_default();
	c.shape = "8";
	c.init = "point:16";
	c.isa = "scalar";
	c.threads = 1;
	lbt_err e;
	lbt_sim *s;
	cr_assert_eq(lbt_sim_open(&s, &c, &e), LBT_OK, "%s", e.msg);
	lbt_sim_info in;
	cr_assert_eq(lbt_sim_describe(s, &in, &e), LBT_OK, "%s", e.msg);
	cr_assert_str_eq(in.method, "lm-c5");
	cr_assert_str_eq(in.isa, "scalar");
	cr_assert(in.threads == 1 && in.dims == 1 && in.active_dims == 1 && in.pes == 8 && in.k == 8);
	cr_assert(in.rank == 0 && in.ranks == 1);
	const char *cut = getenv("LBTORUS_CUT");
	cr_assert_eq(in.cut, cut && !strcmp(cut, "1"));
	cr_assert_eq(in.dkl_bound, 128);
	cr_assert_eq(in.lower_bound_steps, 14);
	cr_assert_eq(in.balanced_lower_bound_steps, 13);
	cr_assert_eq(lbt_sim_run(s, NULL, NULL, &e), LBT_OK, "%s", e.msg);
	lbt_result r;
	lbt_sim_result(s, &r, NULL);
	cr_assert_eq(r.steps, 18, "Table 3: balanced at step 18");
	cr_assert_eq(r.site_updates, 18 * 8);
	cr_assert_eq(lbt_sim_describe(s, &in, &e), LBT_OK);
	cr_assert_leq(in.lower_bound_steps, 1, "balanced: max - mean <= D");
	lbt_sim_close(s);

	c.method = "lm-c0"; /* C0 alone: the state of step 7 recurs at step 8 (lbtorus run's test of it) */
	c.max_steps = 50;
	cr_assert_eq(lbt_sim_open(&s, &c, &e), LBT_OK, "%s", e.msg);
	cr_assert_eq(lbt_sim_run(s, NULL, NULL, &e), LBT_OK, "%s", e.msg);
	lbt_sim_result(s, &r, NULL);
	cr_assert_str_eq(r.stop, "cycle");
	cr_assert(r.steps == 8 && r.period == 1, "%lld, %lld", (long long)r.steps, (long long)r.period);
	lbt_sim_close(s);
}

/* lbt_until_describe lists every criterion lbt_config.until takes: each
 * syntax (N and X given a value) passes lbt_config_check. */
Test(api, until_describe_lists_what_until_takes)
{
	lbt_until_info u;
	int n = 0, balanced = 0;
	for (; lbt_until_describe(n, &u) == LBT_OK; n++) {
		cr_assert(u.syntax && *u.syntax && u.help && *u.help);
		balanced |= !strcmp(u.syntax, "balanced");
		char text[64];
		snprintf(text, sizeof text, "%s", u.syntax);
		char *colon = strchr(text, ':');
		if (colon)
			strcpy(colon + 1, colon[1] == 'N' ? "3" : "0.5");
		lbt_config c = lbt_config_default();
		c.shape = "8";
		c.until = text;
		lbt_err e;
		cr_assert_eq(lbt_config_check(&c, &e), LBT_OK, "%s: %s", text, e.msg);
	}
	cr_assert(balanced && n >= 7, "%d criteria", n);
	cr_assert_eq(lbt_until_describe(n, &u), LBT_EINVAL);
	cr_assert_eq(lbt_until_describe(-1, &u), LBT_EINVAL);
}

/* lbt_claim_value: Henrich (1996), Table 3: LM balances the 8-PE ring in
 * 18 steps, NNA in 24 shifts; a missing directory is LBT_EIO. */
Test(api, claims_are_the_papers_numbers)
{
	double v;
	lbt_err e;
	const char *data = getenv("LBTORUS_DATA");
	cr_assert_eq(lbt_claim_value(data, "table3_lm_balanced", &v, &e), LBT_OK, "%s", e.msg);
	cr_assert_eq(v, 18);
	cr_assert_eq(lbt_claim_value(data, "table3_nna_balanced", &v, &e), LBT_OK, "%s", e.msg);
	cr_assert_eq(v, 24);
	cr_assert_eq(lbt_claim_value("/nonexistent", "table3_lm_balanced", &v, &e), LBT_EIO);
	cr_assert_eq(lbt_claim_value(data, "no_such_claim", &v, &e), LBT_EINVAL);
}

/* ---- lbt_bench_*, lbt_output_* ---------------------------------------- */

typedef struct {
	lbt_bench_row row[64];
	char text[64][4][32]; /* the rows' strings, which live only during the callback */
	int n, stop_at;       /* stop_at > 0: the row callback stops after that many */
} bench_rows;

static int keep_row(void *ctx, const lbt_bench_row *r)
{
	bench_rows *k = ctx;
	cr_assert_lt(k->n, 64);
	lbt_bench_row *c = &k->row[k->n];
	*c = *r;
	const char **s[4] = {&c->size, &c->method, &c->isa, &c->workload};
	for (int i = 0; i < 4; i++)
		if (*s[i]) {
			snprintf(k->text[k->n][i], sizeof k->text[k->n][i], "%s", *s[i]);
			*s[i] = k->text[k->n][i];
		}
	k->n++;
	return k->stop_at && k->n >= k->stop_at;
}

/* The ISA "auto" takes (lbt_isa_describe). */
static const char *chosen_isa(void)
{
	lbt_isa_info t;
	for (int i = 0; lbt_isa_describe(i, &t) == LBT_OK; i++)
		if (t.chosen)
			return t.name;
	cr_assert_fail("no ISA chosen");
	return NULL;
}

/* Every size x method x ISA x thread count gives one row, in that order,
 * the scalar reference on one thread only; each row's numbers agree with
 * each other: the rate is the site updates (PEs x D a step) over the
 * seconds, the bound the bandwidth / (2 x cell bytes) x D, the cell bytes
 * the method's load's (LM-C5 int32: 4; fos float64: 8), the scalar rate the
 * scalar row's; a measurement lasts at least its budget. */
Test(api, bench_rows_cover_every_case)
{
	char isa[64];
	snprintf(isa, sizeof isa, "scalar,%s", chosen_isa());
	const int vector = strcmp(chosen_isa(), "scalar") != 0;
	lbt_bench b = lbt_bench_default();
	b.sizes = "8x8,4x4x4";
	b.methods = "lm-c5,fos";
	b.isa = vector ? isa : "scalar";
	b.threads[0] = 1;
	b.threads[1] = 2;
	b.seconds = 0.01;
	static bench_rows k;
	k.n = 0;
	lbt_err e;
	cr_assert_eq(lbt_bench_run(&b, keep_row, &k, &e), LBT_OK, "%s", e.msg);
	cr_assert_eq(k.n, 2 * 2 * (1 + 2 * vector));
	int i = 0;
	for (int z = 0; z < 2; z++)
		for (int m = 0; m < 2; m++)
			for (int v = 0; v < 1 + vector; v++)
				for (int t = 0; t < (v ? 2 : 1); t++, i++) {
					const lbt_bench_row *r = &k.row[i];
					cr_assert_str_eq(r->size, z ? "4x4x4" : "8x8");
					cr_assert_str_eq(r->method, m ? "fos" : "lm-c5");
					cr_assert_eq(r->cell_bytes, m ? 8 : 4);
					cr_assert_str_eq(r->isa, v ? chosen_isa() : "scalar");
					cr_assert_eq(r->threads, t + 1);
					cr_assert_null(r->workload);
					cr_assert_eq(r->pes, 64);
					cr_assert_eq(r->dims, 2 + z);
					cr_assert_gt(r->steps, 0);
					cr_assert_geq(r->seconds, 0.01);
					cr_assert_float_eq(r->rate * r->seconds, (double)(r->steps * r->pes * r->dims), 1e-6 * r->rate);
					cr_assert_gt(r->copy_bw, 0);
					cr_assert_gt(r->in_place_bw, 0);
					cr_assert_eq(r->bound, r->copy_bw / (2.0 * r->cell_bytes) * r->dims);
					cr_assert_eq(r->in_place_bound, r->in_place_bw / (2.0 * r->cell_bytes) * r->dims);
					cr_assert_eq(r->scalar_rate, k.row[i - (v ? 1 + t : 0)].rate);
				}
}

/* With a workload every case is timed twice, statically and under it; the
 * second row names the workload and carries the first one's rate. */
Test(api, bench_times_a_workload_beside_the_static_case)
{
	lbt_bench b = lbt_bench_default();
	b.sizes = "8x8";
	b.methods = "lm-c5";
	b.isa = "scalar";
	b.threads[0] = 1;
	b.seconds = 0.01;
	b.workload = "cybenko:poisson:1:1";
	static bench_rows k;
	k.n = 0;
	lbt_err e;
	cr_assert_eq(lbt_bench_run(&b, keep_row, &k, &e), LBT_OK, "%s", e.msg);
	cr_assert_eq(k.n, 2);
	cr_assert_null(k.row[0].workload);
	cr_assert_str_eq(k.row[1].workload, "cybenko:poisson:1:1");
	cr_assert_eq(k.row[1].static_rate, k.row[0].rate);
	cr_assert_eq(k.row[1].scalar_rate, k.row[0].rate);
}

/* The headline is `lbtorus run`'s run: as many steps to balanced as
 * lbt_sim_run takes on the same configuration. */
Test(api, bench_headline_is_the_run_to_balanced, .timeout = 120)
{
	lbt_bench b = lbt_bench_default();
	b.isa = chosen_isa();
	static bench_rows k;
	k.n = 0;
	lbt_err e;
	cr_assert_eq(lbt_bench_headline(&b, keep_row, &k, &e), LBT_OK, "%s", e.msg);
	cr_assert_eq(k.n, 1);
	lbt_config c = lbt_config_default();
	c.shape = "128x128";
	c.threads = 1;
	lbt_sim *s = open_cfg(&c);
	lbt_result r;
	cr_assert_eq(lbt_sim_run(s, NULL, NULL, &e), LBT_OK, "%s", e.msg);
	cr_assert_eq(lbt_sim_result(s, &r, &e), LBT_OK, "%s", e.msg);
	lbt_sim_close(s);
	cr_assert(r.reached);
	cr_assert_str_eq(k.row[0].isa, chosen_isa());
	cr_assert_eq(k.row[0].steps, r.steps);
	cr_assert_eq(k.row[0].pes, 128 * 128);
	cr_assert_float_eq(k.row[0].rate * k.row[0].seconds, (double)(r.steps * 128 * 128 * 2), 1e-6 * k.row[0].rate);
}

/* The row callback and the interrupt flag stop the measuring: LBT_EINTR,
 * no row after. */
Test(api, bench_stops_on_its_callback_and_its_interrupt)
{
	lbt_bench b = lbt_bench_default();
	b.sizes = "8x8,16x16";
	b.methods = "lm-c5";
	b.isa = "scalar";
	b.threads[0] = 1;
	b.seconds = 0.01;
	static bench_rows k;
	k.n = 0;
	k.stop_at = 1;
	lbt_err e;
	cr_assert_eq(lbt_bench_run(&b, keep_row, &k, &e), LBT_EINTR);
	cr_assert_eq(k.n, 1);
	k.n = k.stop_at = 0;
	static volatile sig_atomic_t flag = 1;
	b.interrupt = &flag;
	cr_assert_eq(lbt_bench_run(&b, keep_row, &k, &e), LBT_EINTR);
	cr_assert_eq(lbt_bench_headline(&b, keep_row, &k, &e), LBT_EINTR);
	cr_assert_eq(k.n, 0);
}

/* lbt_bench_check: the defaults it leaves to the library, the machine, and
 * each bad option refused with one line naming it. */
Test(api, bench_options_are_checked)
{
	lbt_bench b = lbt_bench_default();
	lbt_bench_info info;
	lbt_err e;
	b.sizes = "8x8";
	cr_assert_eq(lbt_bench_check(&b, &info, &e), LBT_OK, "%s", e.msg);
	cr_assert_eq(info.seconds, 0.5);
	cr_assert_str_eq(info.init, "uniform:0:20");
	cr_assert_geq(info.cores, 1);
	cr_assert_gt(strlen(info.cpu), 0);
	b.quick = 1;
	cr_assert_eq(lbt_bench_check(&b, &info, NULL), LBT_OK);
	cr_assert_eq(info.seconds, 0.1);
	b.seconds = 2;
	b.init = "worst:3";
	cr_assert_eq(lbt_bench_check(&b, &info, NULL), LBT_OK);
	cr_assert_eq(info.seconds, 2);
	cr_assert_str_eq(info.init, "worst:3");

	const struct {
		const char *sizes, *methods, *isa, *workload, *init, *out;
		int threads;
		const char *says;
	} bad[] = {
		{"8x8", "lm-c9", NULL, NULL, NULL, NULL, 1, "unknown method 'lm-c9'"},
		{"8x8", "lm-c5", "mmx", NULL, NULL, NULL, 1, "mmx"},
		{"8x8", "lm-c5", NULL, "tree:2:4", NULL, NULL, 1, "a search tree starts empty"},
		{"8x8", "lm-c5", NULL, "cybenko:nope:1:1", NULL, NULL, 1, "nope"},
		{"8x", "lm-c5", NULL, NULL, NULL, NULL, 1, "8x"},
		{"8x8", "lm-c5", NULL, NULL, NULL, NULL, 5000, "5000 threads"},
		{"8x8", "lm-c5", NULL, NULL, NULL, NULL, -1, "-1 threads"},
		{"8x8", "lm-c5", NULL, NULL, "file:w.npy", "./w.npy", 1, "same file"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		b = lbt_bench_default();
		b.sizes = bad[i].sizes;
		b.methods = bad[i].methods;
		b.isa = bad[i].isa;
		b.workload = bad[i].workload;
		b.init = bad[i].init;
		b.out = bad[i].out;
		b.threads[0] = bad[i].threads;
		e.msg[0] = 0;
		cr_assert_eq(lbt_bench_check(&b, NULL, &e), LBT_EINVAL, "case %zu", i);
		cr_assert(strstr(e.msg, bad[i].says), "case %zu: '%s' does not say '%s'", i, e.msg, bad[i].says);
		cr_assert_null(strchr(e.msg, '\n'), "%s", e.msg);
		cr_assert_eq(lbt_bench_run(&b, keep_row, NULL, NULL), LBT_EINVAL, "case %zu", i);
	}
	lbt_bench z = {0};
	cr_assert_eq(lbt_bench_check(&z, NULL, &e), LBT_EINVAL);
	cr_assert(strstr(e.msg, "lbt_bench_default"), "%s", e.msg);
}

/* An output file appears whole at its commit, and never after an abort. */
Test(api, output_files_appear_whole_at_their_commit)
{
	char dir[] = "/tmp/lbtorus-api-out-XXXXXX", path[64];
	cr_assert_not_null(mkdtemp(dir));
	snprintf(path, sizeof path, "%s/r.json", dir);
	lbt_output *o;
	FILE *f;
	lbt_err e;
	cr_assert_eq(lbt_output_open(&o, path, &f, &e), LBT_OK, "%s", e.msg);
	fputs("{\"a\":1}\n", f);
	cr_assert_eq(access(path, F_OK), -1, "%s is there before its commit", path);
	cr_assert_eq(lbt_output_commit(o, &e), LBT_OK, "%s", e.msg);
	char got[32] = "";
	FILE *r = fopen(path, "r");
	cr_assert_not_null(r);
	cr_assert_not_null(fgets(got, sizeof got, r));
	fclose(r);
	cr_assert_str_eq(got, "{\"a\":1}\n");

	cr_assert_eq(lbt_output_open(&o, path, &f, &e), LBT_OK, "%s", e.msg);
	fputs("half", f);
	lbt_output_abort(o);
	r = fopen(path, "r");
	cr_assert_not_null(r);
	cr_assert_not_null(fgets(got, sizeof got, r));
	fclose(r);
	cr_assert_str_eq(got, "{\"a\":1}\n", "an abort changed the file");
	cr_assert_eq(entries(dir), 1, "an abort left its temporary");
	lbt_output_abort(NULL);

	cr_assert_eq(lbt_output_open(&o, dir, &f, &e), LBT_EINVAL);
	cr_assert(strstr(e.msg, "directory"), "%s", e.msg);
	unlink(path);
	rmdir(dir);
}

/* test_parallel.c — parallel code is safe from any caller: a run gives the
 * same bits whether the library is called from the main thread, from a
 * user's OpenMP threads or from a user's pthreads, and sweeps, bound and
 * search with two jobs finish (a kernel's barrier once bound to the sweep's
 * team and hung for ever: the byte steps' `single`, kernels/team.h).
 *
 * Every method of the registry and every ISA this CPU runs (avx512emu, the
 * AVX-512 kernels emulated, included) takes part; grids are large enough
 * that a kernel asked for two threads uses two (at least 2^17 PEs), and
 * loads take each path of the Liquid model's kernel: rows in bytes
 * (uniform:0:100, several steps a call), in int16 (uniform:1:2048), mixed
 * rows (worst:5), a ring, 3-D; every workload of the registry runs in
 * two-job sweeps. CLI runs are killed after a deadline, so a hang fails the
 * test instead of stopping CI. */
#include <criterion/criterion.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "helpers.h"

typedef struct {
	const char *shape, *init, *workload;
} grid_case;

/* Each a path of a kernel (docs/development.md, "Rows in bytes or in the grid"). */
static const grid_case GRIDS[] = {
	{"512x256", "uniform:0:100", NULL},  /* 2-D rows in bytes, several steps a call */
	{"512x256", "uniform:1:2048", NULL}, /* int16 rows */
	{"512x256", "worst:5", NULL},        /* the pile's row in int32, the rest in bytes */
	{"131072", "uniform:0:100", NULL},   /* a ring */
	{"64x64x32", "uniform:0:100", NULL}, /* 3-D */
	{"512x256", "const:3", "cybenko:poisson:1:1"},
};
enum { NGRIDS = sizeof GRIDS / sizeof GRIDS[0], STEPS = 12 };

typedef struct {
	const char *method, *isa;
	const grid_case *g;
	int32_t *loads; /* out: the final loads (caller frees) */
	int status;
	char msg[600];
} job;

/* One run of STEPS steps on two kernel threads, several steps a call where it can. */
static void run_job(job *j)
{
	lbt_setup set = {.shape = j->g->shape, .method = j->method, .init = j->g->init, .isa = j->isa,
	                 .seed = 3, .threads = 2};
	if (lbt_method_find(j->method)->flags & LBT_M_SPEEDS)
		set.speeds = "const:1";
	lbt_state st;
	lbt_err e;
	j->loads = NULL;
	j->status = lbt_state_open(&st, &set, &e);
	if (j->status != LBT_OK) {
		snprintf(j->msg, sizeof j->msg, "open: %s", e.msg);
		return;
	}
	lbt_workload w;
	lbt_run_opts o = lbt_run_opts_default();
	o.until = (lbt_until){.kind = LBT_UNTIL_STEPS, .steps = STEPS};
	o.batch = 1;
	if (j->g->workload) {
		j->status = lbt_workload_parse(&w, j->g->workload, st.method->load, &e);
		o.workload = &w;
	}
	lbt_summary s;
	if (j->status == LBT_OK)
		j->status = lbt_run(&st, &o, &s, &e);
	if (j->status != LBT_OK)
		snprintf(j->msg, sizeof j->msg, "run: %s", e.msg);
	else
		j->loads = th_loads(&st);
	lbt_state_close(&st);
}

/* Does grid g test method m? Every method runs the 2-D grid and the
 * workload; the paths of one kernel's other grids only a method that takes
 * several steps a call (the Liquid model's byte steps, lbt_method.steps).
 * A real-valued method takes no integer workload. */
static int applies(const lbt_method *m, const grid_case *g)
{
	if (g != &GRIDS[0] && !g->workload && !m->steps)
		return 0;
	if (!g->workload)
		return 1;
	lbt_workload w;
	lbt_err e;
	return lbt_workload_parse(&w, g->workload, m->load, &e) == LBT_OK;
}

static void *pthread_job(void *p)
{
	run_job(p);
	return NULL;
}

typedef enum { FROM_MAIN, FROM_OPENMP, FROM_PTHREADS } caller;

/* Run a and b (the same job) at once from two threads of the given kind. */
static void run_pair(job *a, job *b, caller how)
{
	if (how == FROM_OPENMP) {
#pragma omp parallel num_threads(2)
		{
#pragma omp single nowait
			run_job(a);
#pragma omp single nowait
			run_job(b);
		}
	} else {
		pthread_t t[2];
		cr_assert_eq(pthread_create(&t[0], NULL, pthread_job, a), 0);
		cr_assert_eq(pthread_create(&t[1], NULL, pthread_job, b), 0);
		pthread_join(t[0], NULL);
		pthread_join(t[1], NULL);
	}
}

static void same_bits_from(caller how)
{
	int compared = 0;
	for (const char *const *isa = lbt_isa_compiled(); *isa; isa++) {
		if (!lbt_isa_supported(*isa))
			continue;
		for (const lbt_method *const *m = lbt_methods(); *m; m++)
			for (int g = 0; g < NGRIDS; g++) {
				if (!applies(*m, &GRIDS[g]))
					continue;
				job ref = {.method = (*m)->name, .isa = *isa, .g = &GRIDS[g]};
				run_job(&ref);
				if (ref.status != LBT_OK) /* a method that refuses the grid must refuse it from any thread */
					cr_assert(strstr(ref.msg, "open:") || strstr(ref.msg, "run:"), "%s", ref.msg);
				job a = ref, b = ref;
				run_pair(&a, &b, how);
				for (job *j = &a; j; j = j == &a ? &b : NULL) {
					cr_assert_eq(j->status, ref.status, "%s %s %s %s: status %d, from the main thread %d (%s)", *isa,
					             (*m)->name, GRIDS[g].shape, GRIDS[g].init, j->status, ref.status, j->msg);
					if (ref.loads) {
						lbt_shape sh;
						lbt_err e;
						cr_assert_eq(lbt_shape_parse(&sh, GRIDS[g].shape, &e), LBT_OK);
						const int64_t n = lbt_shape_pes(&sh);
						int64_t i = 0;
						while (i < n && j->loads[i] == ref.loads[i])
							i++;
						cr_assert_eq(i, n, "%s %s %s %s from two %s threads: PE %lld holds %d, from the main thread %d",
						             *isa, (*m)->name, GRIDS[g].shape, GRIDS[g].init,
						             how == FROM_OPENMP ? "OpenMP" : "POSIX", (long long)i, j->loads[i], ref.loads[i]);
						compared++;
					}
					free(j->loads);
				}
				free(ref.loads);
			}
	}
	cr_assert_gt(compared, 0);
	cr_log_info("%d runs compared bit for bit", compared);
}

/* A user's program may call lbt_run from its own OpenMP threads: the
 * kernels' regions then nest and get one thread, and must still step the
 * whole grid (a kernel that shares its rows out by the threads it asked
 * for, not those it got, leaves half the grid unstepped). */
Test(parallel, runs_from_a_users_openmp_threads_give_the_same_bits, .timeout = 600)
{
	same_bits_from(FROM_OPENMP);
}

Test(parallel, runs_from_a_users_pthreads_give_the_same_bits, .timeout = 600)
{
	same_bits_from(FROM_PTHREADS);
}

/* Wait for pid at most `seconds`, then kill it: its exit status, or -1 if
 * it had to be killed. */
static int wait_within(pid_t pid, double seconds)
{
	for (int ms = 0; ms < seconds * 1000; ms += 20) {
		int status;
		if (waitpid(pid, &status, WNOHANG) == pid)
			return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
		usleep(20000);
	}
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	return -1;
}

/* The CLI's exit status; 142 (SIGALRM, th_cli's alarm) if it was still
 * running after `seconds`: hung. */
static int cli_within(const char *dir, const char *const *argv, unsigned seconds)
{
	th_cli_seconds = seconds;
	return th_cli(dir, argv, NULL, NULL);
}

/* The smallest case and the README's sweep, with two jobs, on every
 * ISA this CPU runs: each finishes (within a deadline far above its time),
 * with one record per run. */
Test(parallel, sweeps_with_two_jobs_finish_on_every_isa, .timeout = 900)
{
	char dir[64];
	th_tmpdir(dir, sizeof dir);
	static const char *const sweeps[][8] = {
		{"--shape", "128x128,64x64", "--init", "uniform:1:2048", "--seed", "1..3", NULL},
		{"--shape", "torus2:8..128*2", "--init", "uniform:0:100", "--seed", "1..4", NULL},
		{"--shape", "256x256,512", "--init", "worst:5,uniform:0:100", "--until", "steps:300", NULL},
		{"--shape", "16x16x16,8x8x8x8", "--init", "uniform:0:100", "--seed", "1..2", NULL},
	};
	static const int runs[] = {6, 20, 4, 4};
	int ran = 0;
	for (const char *const *isa = lbt_isa_compiled(); *isa; isa++) {
		if (!lbt_isa_supported(*isa))
			continue;
		for (size_t s = 0; s < sizeof sweeps / sizeof sweeps[0]; s++) {
			char res[128];
			snprintf(res, sizeof res, "%s_%zu.jsonl", *isa, s);
			const char *argv[24] = {"sweep", "--results", res, "--jobs", "2", "--isa", *isa, "--quiet"};
			int n = 8;
			for (int i = 0; sweeps[s][i]; i++)
				argv[n++] = sweeps[s][i];
			argv[n] = NULL;
			const int rc = cli_within(dir, argv, 120);
			cr_assert_eq(rc, 0, "%s: sweep %zu %s (exit %d; 142: killed after 120 s, hung)", *isa, s, sweeps[s][1], rc);
			char path[256];
			snprintf(path, sizeof path, "%s/%s", dir, res);
			cr_assert_eq(th_count_lines(path), runs[s], "%s: sweep %zu", *isa, s);
			ran++;
		}
	}
	cr_assert_gt(ran, 0);
	th_rm_tree(dir);
}

/* Every method of the registry in one two-job sweep, per ISA. */
Test(parallel, a_sweep_of_every_method_with_two_jobs_finishes, .timeout = 900)
{
	char dir[64], methods[1024] = "";
	th_tmpdir(dir, sizeof dir);
	int nm = 0;
	for (const lbt_method *const *m = lbt_methods(); *m; m++)
		if (!((*m)->flags & LBT_M_SPEEDS)) { /* a sweep gives no speeds: those need lbtorus run --speeds */
			strcat(strcat(methods, nm ? "," : ""), (*m)->name);
			nm++;
		}
	for (const char *const *isa = lbt_isa_compiled(); *isa; isa++) {
		if (!lbt_isa_supported(*isa))
			continue;
		const int rc = cli_within(dir, TH_ARGS("sweep", "--results", "m.jsonl", "--jobs", "2", "--isa", *isa, "--quiet",
		                                       "--method", methods, "--shape", "64x64,256", "--init", "uniform:0:100",
		                                       "--until", "steps:200", "--seed", "1..2"), 300);
		cr_assert_eq(rc, 0, "%s: exit %d (142: killed after 300 s, hung)", *isa, rc);
		char path[256];
		snprintf(path, sizeof path, "%s/m.jsonl", dir);
		cr_assert_eq(th_count_lines(path), 4 * nm, "%s", *isa);
		unlink(path);
	}
	th_rm_tree(dir);
}

/* bound shares its runs out to two jobs as a sweep does; search its
 * restarts to two threads. bound's 64x64 and 128x128 take the byte steps
 * (2-D rows of whole 64-PE chunks, loads at most 125: the path that hung
 * `bound --out bound` at 419/420); search steps one step a call (int16 rows
 * on 64x64, rows shorter than a vector on 8x8). */
Test(parallel, bound_and_search_with_two_jobs_finish, .timeout = 900)
{
	char dir[64];
	th_tmpdir(dir, sizeof dir);
	for (const char *const *isa = lbt_isa_compiled(); *isa; isa++) {
		if (!lbt_isa_supported(*isa))
			continue;
		int rc = cli_within(dir, TH_ARGS("bound", "--jobs", "2", "--isa", *isa, "--out", "b", "--shape",
		                                 "torus2:8..128*2,torus3:4..8*2", "--init", "uniform:1:9,uniform:1:33",
		                                 "--seed", "1..2", "--quiet"), 300);
		cr_assert_eq(rc, 0, "%s: bound exit %d (142: killed after 300 s, hung)", *isa, rc);
		char path[256];
		snprintf(path, sizeof path, "%s/b/runs.jsonl", dir);
		cr_assert_eq(th_count_lines(path), 7 * 2 * 2, "%s: bound's runs", *isa); /* 5 + 2 shapes, 2 inits, 2 seeds */
		snprintf(path, sizeof path, "%s/b", dir);
		th_rm_tree(path);
		rc = cli_within(dir, TH_ARGS("search", "--shape", "8x8", "--ldiff", "20", "--mean", "10", "--threads", "2",
		                             "--isa", *isa, "--out", "w.npy", "--quiet"), 300);
		cr_assert_eq(rc, 0, "%s: search exit %d (142: killed after 300 s, hung)", *isa, rc);
		rc = cli_within(dir, TH_ARGS("search", "--shape", "64x64", "--ldiff", "20", "--mean", "10", "--threads", "2",
		                             "--restarts", "4", "--moves", "4", "--isa", *isa, "--out", "w.npy", "--quiet"), 300);
		cr_assert_eq(rc, 0, "%s: search 64x64 exit %d (142: killed after 300 s, hung)", *isa, rc);
	}
	th_rm_tree(dir);
}

/* Every workload of the registry (its example spec) in two-job sweeps, per
 * ISA: a workload's phase runs threads of its own before the method's step.
 * The search trees start on an empty machine and run until done. */
Test(parallel, a_sweep_of_every_workload_with_two_jobs_finishes, .timeout = 900)
{
	char dir[64], flows[1024] = "", tasks[1024] = "";
	th_tmpdir(dir, sizeof dir);
	int nf = 0, nt = 0;
	for (const lbt_workload *const *w = lbt_workloads(); *w; w++) {
		char *list = (*w)->tasks ? tasks : flows;
		int *n = (*w)->tasks ? &nt : &nf;
		cr_assert_lt(strlen(list) + strlen((*w)->example) + 2, sizeof flows);
		strcat(strcat(list, *n ? "," : ""), (*w)->example);
		(*n)++;
	}
	cr_assert_gt(nf, 0);
	cr_assert_gt(nt, 0);
	for (const char *const *isa = lbt_isa_compiled(); *isa; isa++) {
		if (!lbt_isa_supported(*isa))
			continue;
		int rc = cli_within(dir, TH_ARGS("sweep", "--results", "f.jsonl", "--jobs", "2", "--isa", *isa, "--quiet",
		                                 "--workload", flows, "--shape", "64x64,256", "--init", "uniform:0:100",
		                                 "--until", "steps:100", "--seed", "1..2"), 300);
		cr_assert_eq(rc, 0, "%s: %s: exit %d (142: killed after 300 s, hung)", *isa, flows, rc);
		rc = cli_within(dir, TH_ARGS("sweep", "--results", "t.jsonl", "--jobs", "2", "--isa", *isa, "--quiet",
		                             "--workload", tasks, "--shape", "64x64,256", "--init", "const:0", "--until", "done",
		                             "--seed", "1..2"), 300);
		cr_assert_eq(rc, 0, "%s: %s: exit %d (142: killed after 300 s, hung)", *isa, tasks, rc);
		char path[2][256];
		snprintf(path[0], sizeof path[0], "%s/f.jsonl", dir);
		snprintf(path[1], sizeof path[1], "%s/t.jsonl", dir);
		for (const lbt_workload *const *w = lbt_workloads(); *w; w++) {
			/* one record per shape at least (a tree that draws nothing runs once for any seed) */
			char key[160];
			snprintf(key, sizeof key, "\"workload\":\"%s\"", (*w)->example);
			const int none = !strcmp((*w)->name, "none"); /* a record without a workload has no such key */
			char *text = th_read(path[(*w)->tasks], NULL), *save = NULL;
			int runs = 0;
			for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
				cr_assert(strstr(line, "\"stop_reason\":\"until\""), "%s: %s", *isa, line);
				runs += none ? !strstr(line, "\"workload\":") : !!strstr(line, key);
			}
			free(text);
			cr_assert_geq(runs, 2, "%s: %s: %d records", *isa, (*w)->example, runs);
		}
		unlink(path[0]);
		unlink(path[1]);
	}
	th_rm_tree(dir);
}

/* The first SIGINT or SIGTERM to a two-job sweep whose runs are inside the
 * kernels ends it promptly with the interrupted status, the finished runs'
 * records kept whole (a sweep hung at a kernel's barrier once ignored it).
 * The command starts with both at their default action (a background job's
 * SIGINT is ignored, and lbtorus keeps an inherited ignore). */
Test(parallel, a_two_job_sweep_answers_the_first_signal, .timeout = 600)
{
	char dir[64];
	th_tmpdir(dir, sizeof dir);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	static const int sigs[] = {SIGINT, SIGTERM};
	for (const char *const *isa = lbt_isa_compiled(); *isa; isa++) {
		if (!lbt_isa_supported(*isa))
			continue;
		for (size_t k = 0; k < sizeof sigs / sizeof *sigs; k++) {
			pid_t pid = th_spawn(dir, TH_ARGS("sweep", "--results", "s.jsonl", "--jobs", "2", "--isa", *isa, "--quiet",
			                                   "--shape", "64x64,128x128", "--init", "uniform:1:2048,uniform:0:100",
			                                   "--until", "steps:200000", "--seed", "1..20"));
			th_wait_caught(pid, sigs[k]);
			usleep(1500000);
			kill(pid, sigs[k]);
			const int rc = wait_within(pid, 10);
			cr_assert_eq(rc, 3, "%s: exit %d after %s (3: interrupted; -1: still running 10 s later)", *isa, rc,
			             strsignal(sigs[k]));
			char path[256];
			snprintf(path, sizeof path, "%s/s.jsonl", dir);
			FILE *f = fopen(path, "r");
			if (f) { /* every line a whole record */
				char line[8192];
				while (fgets(line, sizeof line, f))
					cr_assert(line[0] == '{' && strstr(line, "}\n"), "%s: a torn record: %s", *isa, line);
				fclose(f);
				unlink(path);
			}
		}
	}
	th_rm_tree(dir);
}

/* test_badinput.c — the bad-input table (issue 14): every numeric option of
 * every subcommand given a missing value, an empty one, a non-number, a
 * negative number, zero (where zero is not allowed) and an overflowing
 * number; every file input missing, a directory, unreadable, truncated and of
 * the wrong type; and each case the audit found. Every case must exit 2 with
 * exactly one line on stderr naming the problem and leave the directory as it
 * was: no file created, changed or removed (th_usage_error). */
#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "helpers.h"

static int cases; /* per test, logged: the report's count */

/* base + extra (both NULL-terminated) into one argv. */
static void run_case(const char *dir, const char *const *base, const char *const *extra, const char *needle)
{
	const char *argv[48];
	int n = 0;
	for (int i = 0; base[i]; i++)
		argv[n++] = base[i];
	for (int i = 0; extra && extra[i]; i++)
		argv[n++] = extra[i];
	argv[n] = NULL;
	th_usage_error(dir, argv, needle);
	cases++;
}

typedef struct {
	const char *base[10]; /* a command line that is valid without the option */
	const char *opt;      /* the numeric option */
	int zero_ok, needle_plain; /* needle_plain: the message names the option without dashes (a spec key) */
	const char *over;     /* a value just beyond the range */
	int real;             /* takes a real number: 1e999 overflows it, 10^23 may not */
} numeric;

#define RUN8 {"run", "--shape", "8", "--until", "steps:1", "--json", "o.json", NULL}
#define SEARCH {"search", "--shape", "8", "--ldiff", "4", "--mean", "3", "--out", "w.npy", NULL}
#define SWEEP {"sweep", "--results", "r.jsonl", "--shape", "8", "--until", "steps:1", NULL}
#define BOUND {"bound", "--out", "b", "--shape", "8", "--init", "half:2", "--until", "steps:1", NULL}
#define BENCH {"bench", "--sizes", "8", "--methods", "lm-c5", "--isa", "scalar", "--no-headline", NULL}

static const numeric numerics[] = {
	{RUN8, "--max-steps", 1, 0, "9223372036854775808", 0},
	{RUN8, "--seed", 1, 0, "18446744073709551616", 0},
	{RUN8, "--threads", 0, 0, "4097", 0},
	{RUN8, "--every", 0, 0, "9223372036854775808", 0},
	{RUN8, "--heat-max", 0, 0, "2147483648", 0},
	{RUN8, "--zoom", 0, 0, "65", 0},
	{RUN8, "--delay", 1, 0, "65536", 0},
	{{"run", "--shape", "8", "--workload", "cybenko:poisson:1:1", "--until", "steps:2", "--json", "o.json", NULL}, "--warmup", 1, 0,
	 "9223372036854775808", 0},
	{{"run", "--shape", "8", "--method", "fos", "--until", "steps:1", "--json", "o.json", NULL}, "--alpha", 0, 0, "1e999", 1},
	{{"run", "--shape", "8", "--method", "de", "--until", "steps:1", "--json", "o.json", NULL}, "--lambda", 0, 0, "2", 1},
	{{"run", "--shape", "8", "--method", "ca", "--until", "steps:1", "--json", "o.json", NULL}, "--ca-k", 1, 0, "99999999999999999999", 0},
	{{"demo", "--quiet", NULL}, "--threads", 0, 0, "4097", 0},
	{{"reproduce", "table3", "--out", "rp", NULL}, "--threads", 0, 0, "4097", 0},
	{SEARCH, "--ldiff", 0, 0, "2147483648", 0},
	{SEARCH, "--total", 1, 0, "9223372036854775808", 0},
	{{"search", "--shape", "8", "--ldiff", "4", "--out", "w.npy", NULL}, "--mean", 1, 0, "2147483648", 0},
	{SEARCH, "--restarts", 0, 0, "2147483648", 0},
	{SEARCH, "--moves", 1, 0, "9223372036854775808", 0},
	{SEARCH, "--anneal", 1, 0, "1e999", 1},
	{SEARCH, "--seed", 1, 0, "18446744073709551616", 0},
	{SEARCH, "--max-steps", 0, 0, "9223372036854775808", 0},
	{SEARCH, "--threads", 0, 0, "4097", 0},
	{BENCH, "--seconds", 0, 0, "3601", 1},
	{BENCH, "--threads", 0, 0, "4097", 0},
	{SWEEP, "--max-steps", 1, 0, "9223372036854775808", 0},
	{SWEEP, "--jobs", 0, 0, "4097", 0},
	{SWEEP, "--threads", 0, 0, "4097", 0},
	{SWEEP, "--solo-pes", 0, 0, "68719476737", 0},
	{SWEEP, "--seed", 1, 1, "18446744073709551616", 0},
	{BOUND, "--max-steps", 1, 0, "9223372036854775808", 0},
	{BOUND, "--jobs", 0, 0, "4097", 0},
	{BOUND, "--threads", 0, 0, "4097", 0},
	{BOUND, "--solo-pes", 0, 0, "68719476737", 0},
	{BOUND, "--seed", 1, 1, "18446744073709551616", 0},
};

Test(badinput, every_numeric_option_every_bad_value, .timeout = 300)
{
	char dir[64];
	th_tmpdir(dir, sizeof dir);
	cases = 0;
	for (size_t i = 0; i < sizeof numerics / sizeof *numerics; i++) {
		const numeric *c = &numerics[i];
		const char *name = c->needle_plain ? c->opt + 2 : c->opt;
		run_case(dir, c->base, TH_ARGS(c->opt), c->opt);             /* missing value */
		run_case(dir, c->base, TH_ARGS(c->opt, ""), c->opt);         /* empty */
		run_case(dir, c->base, TH_ARGS(c->opt, "12abc"), name);      /* not a number */
		run_case(dir, c->base, TH_ARGS(c->opt, "0x10"), name);       /* hex */
		run_case(dir, c->base, TH_ARGS(c->opt, "-3"), name);         /* negative */
		if (!c->zero_ok)
			run_case(dir, c->base, TH_ARGS(c->opt, "0"), name);      /* zero */
		run_case(dir, c->base, TH_ARGS(c->opt, c->over), name);      /* just out of range */
		run_case(dir, c->base, TH_ARGS(c->opt, c->real ? "1e999" : "99999999999999999999999"), name); /* overflow */
	}
	cr_log_info("badinput: %d numeric cases", cases);
	th_rm_tree(dir);
}

/* The file inputs: "file:" stands for an --init file: item. */
typedef struct {
	const char *base[10];
	const char *opt; /* the option taking the file ("--init" gets "file:PATH"); NULL: a positional argument */
	int init;
	const char *wrong; /* content of the wrong type (for the truncated case: the first half of a good file) */
} file_input;

static const file_input files[] = {
	{RUN8, "--init", 1, "step,max\n0,1\n"},
	{{"run", "--until", "steps:1", "--json", "o.json", NULL}, "--init", 1, "step,max\n0,1\n"},
	{SWEEP, "--init", 1, "step,max\n0,1\n"},
	{SWEEP, "--spec", 0, "\x93NUMPY\x01\x00"},
	{BOUND, "--init", 1, "step,max\n0,1\n"},
	{BOUND, "--spec", 0, "\x93NUMPY\x01\x00"},
	{{"bound", "--out", "b", NULL}, "--from", 0, "\x93NUMPY\x01\x00"},
	{BENCH, "--init", 1, "step,max\n0,1\n"},
	{{"report", "--out", "rep.md", NULL}, NULL, 0, "\x93NUMPY\x01\x00"},
};

static void put(const char *path, const char *text, size_t n)
{
	FILE *f = fopen(path, "wb");
	cr_assert(f);
	fwrite(text, 1, n, f);
	fclose(f);
}

Test(badinput, every_file_input_missing_dir_unreadable_truncated_wrong, .timeout = 300)
{
	char root[64], dir[96], in[96];
	th_tmpdir(root, sizeof root);
	snprintf(dir, sizeof dir, "%s/w", root);
	snprintf(in, sizeof in, "%s/in", root);
	cr_assert(!mkdir(dir, 0700) && !mkdir(in, 0700));
	/* inputs: a directory, an unreadable file, a truncated .npy, a truncated results file */
	char d[160], unread[160], trunc_npy[160], trunc_txt[160], wrong[160];
	snprintf(d, sizeof d, "%s/adir", in);
	cr_assert(!mkdir(d, 0700));
	snprintf(unread, sizeof unread, "%s/unreadable", in);
	put(unread, "method = lm-c5\n", 15);
	chmod(unread, 0);
	int root_user = geteuid() == 0; /* root reads anything: that case is skipped */
	snprintf(trunc_npy, sizeof trunc_npy, "%s/trunc.npy", in);
	int32_t eight[8] = {1, 2, 3, 4, 5, 6, 7, 8};
	th_write_npy(trunc_npy, 1, "{'descr': '<i4', 'fortran_order': False, 'shape': (8,), }", 0, eight, 13);
	snprintf(trunc_txt, sizeof trunc_txt, "%s/trunc.jsonl", in);
	put(trunc_txt, "{\"run_id\":\"0123456789abcdef\",\"run_key\":\"method=lm", 48);
	snprintf(wrong, sizeof wrong, "%s/wrong", in);
	cases = 0;
	for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
		const file_input *c = &files[i];
		put(wrong, c->wrong, strlen(c->wrong) + (c->wrong[0] == '\x93' ? 2 : 0));
		const char *paths[] = {"/nonexistent/x", d, unread, c->init ? trunc_npy : trunc_txt, wrong};
		for (size_t k = 0; k < sizeof paths / sizeof *paths; k++) {
			if ((paths[k] == unread && root_user) || (paths[k] == d && !c->opt))
				continue; /* root reads anything; report takes a directory of results */
			if (paths[k] == trunc_txt && (!strcmp(c->opt ? c->opt : "", "--spec")))
				continue; /* a spec file cut short is a shorter spec: nothing to detect */
			char arg[200];
			snprintf(arg, sizeof arg, "%s%s", c->init ? "file:" : "", paths[k]);
			const char *shown = paths[k] == d ? "adir" : paths[k] == unread ? "unreadable"
			                  : paths[k] == wrong ? "wrong" : paths[k] == trunc_npy ? "trunc.npy"
			                  : paths[k] == trunc_txt ? "trunc.jsonl" : "/nonexistent/x";
			if (c->opt)
				run_case(dir, c->base, TH_ARGS(c->opt, arg), shown);
			else
				run_case(dir, c->base, TH_ARGS(arg), shown);
		}
	}
	cr_log_info("badinput: %d file cases", cases);
	chmod(unread, 0600);
	th_rm_tree(root);
}

/* Each failure the audit found (issue 14, items 6, 7, 9) and the empty
 * values and odd inputs around them. */
Test(badinput, the_audits_cases, .timeout = 300)
{
	char dir[64];
	th_tmpdir(dir, sizeof dir);
	cases = 0;
	static const char *const empties[][4] = {
		{"run", "--shape", "8", "--isa"}, {"run", "--shape", "8", "--json"}, {"run", "--shape", "8", "--trace"},
		{"run", "--shape", "8", "--dump"}, {"run", "--shape", "8", "--init"}, {"run", "--shape", "8", "--method"},
		{"run", "--shape", "8", "--boundary"}, {"run", "--shape", "8", "--until"}, {"run", "--shape", "8", "--snapshots"},
		{"run", "--shape", "8", "--animate"}, {"run", "--shape", "8", "--shape"},
		{"bench", "--quick", "--sizes", NULL}, {"bench", "--quick", "--methods", NULL}, {"bench", "--quick", "--isa", NULL},
		{"bench", "--quick", "--threads", NULL}, {"bench", "--quick", "--json", NULL},
		{"reproduce", "table3", "--out", NULL}, {"reproduce", "table3", "--data", NULL}, {"demo", "--data", NULL, NULL},
		{"demo", "--isa", NULL, NULL}, {"search", "--shape", "8", "--out"}, {"search", "--shape", "8", "--isa"},
		{"sweep", "--shape", "8", "--results"}, {"sweep", "--results", "r.jsonl", "--isa"},
		{"sweep", "--results", "r.jsonl", "--spec"}, {"sweep", "--results", "r.jsonl", "--method"},
		{"bound", "--shape", "8", "--out"}, {"bound", "--shape", "8", "--from"}, {"report", "x.jsonl", "--out", NULL},
	};
	for (size_t i = 0; i < sizeof empties / sizeof *empties; i++) {
		const char *argv[8] = {0};
		int n = 0;
		for (int k = 0; k < 4 && empties[i][k]; k++)
			argv[n++] = empties[i][k];
		char want[64];
		snprintf(want, sizeof want, "%s wants a value", argv[n - 1]);
		argv[n++] = "";
		th_usage_error(dir, argv, want);
		cases++;
	}
	/* item 7: no clamping; run and sweep take the same seeds */
	run_case(dir, TH_ARGS("run", "--shape", "8", "--max-steps", "99999999999999999999"), NULL, "--max-steps");
	run_case(dir, TH_ARGS("run", "--shape", "8", "--seed", "18446744073709551616"), NULL, "out of range");
	run_case(dir, TH_ARGS("sweep", "--results", "r.jsonl", "--shape", "8", "--seed", "18446744073709551616"), NULL, "seed");
	run_case(dir, TH_ARGS("run", "--shape", "8", "--until", "steps:99999999999999999999"), NULL, "steps:");
	run_case(dir, TH_ARGS("run", "--shape", "8", "--init", "point:99999999999999999999"), NULL, "point:");
	run_case(dir, TH_ARGS("run", "--shape", "8", "--init", "uniform:0:99999999999999999999"), NULL, "uniform");
	run_case(dir, TH_ARGS("run", "--shape", "8", "--until", "rel:nan"), NULL, "rel:");
	run_case(dir, TH_ARGS("run", "--shape", "99999999999999999999"), NULL, "extent too large");
	run_case(dir, TH_ARGS("run", "--shape", "8", "--method", "fos-speed", "--speeds", "const:0x10"), NULL, "0x10");
	run_case(dir, TH_ARGS("run", "--shape", "8", "--method", "fos-speed", "--speeds", "uniform:1:1e999"), NULL, "1e999");
	run_case(dir, TH_ARGS("run", "--shape", "8", "--method", "fos-speed", "--link", "1:0"), NULL, "--link");
	run_case(dir, TH_ARGS("run", "--shape", "8", "--method", "fos-speed", "--link", "nan:1"), NULL, "--link");
	run_case(dir, TH_ARGS("run", "--shape", "8", "--method", "fos-speed", "--app", "iterations:0"), NULL, "--app");
	run_case(dir, TH_ARGS("run", "--shape", "8", "--method", "fos-speed", "--app", "iterations:99999999999999999999"), NULL,
	         "--app");
	run_case(dir, TH_ARGS("run", "--shape", "8", "--workload", "cybenko:poisson:0x1:1"), NULL, "workload");
	run_case(dir, TH_ARGS("run", "--shape", "8", "--workload", "cybenko:poisson:nan:1"), NULL, "workload");
	/* item 9 */
	run_case(dir, TH_ARGS("demo", "--threads", "0"), NULL, "--threads");
	run_case(dir, TH_ARGS("search", "--shape", "8", "--ldiff", "4", "--mean", "3", "--max-steps", "0"), NULL, "--max-steps");
	run_case(dir, TH_ARGS("lbtorus-no-such-command"), NULL, "unknown command");
	char afile[128];
	snprintf(afile, sizeof afile, "%s/afile", dir);
	put(afile, "x", 1);
	run_case(dir, TH_ARGS("reproduce", "table3", "--out", "afile"), NULL, "not a directory");
	run_case(dir, TH_ARGS("bound", "--out", "bd", "--shape", "8", "--init", "file:none.npy"), NULL, "none.npy");
	run_case(dir, TH_ARGS("bound", "--out", "bd", "--from", "none.jsonl"), NULL, "none.jsonl");
	run_case(dir, TH_ARGS("bound", "--out", "afile", "--shape", "8", "--init", "half:2", "--until", "steps:1"), NULL, "afile");
	/* item 6: sweep validates every combination before the results file exists */
	run_case(dir, TH_ARGS("sweep", "--results", "r.jsonl", "--shape", "8,16", "--init", "worst:1,file:none.npy"), NULL,
	         "none.npy");
	run_case(dir, TH_ARGS("sweep", "--results", "r.jsonl", "--shape", "8", "--isa", "vax"), NULL, "vax");
	run_case(dir, TH_ARGS("sweep", "--results", "r.jsonl", "--shape", "8", "--spec", "."), NULL, "directory");
	run_case(dir, TH_ARGS("run", "--shape", "8", "--json", "."), NULL, "directory");
	/* found by fuzzing: a NUL byte hid the rest of a line from the parsers */
	char p[128];
	snprintf(p, sizeof p, "%s/nul.spec", dir);
	static const char nul_spec[] = "shape = 8\nmethod = lm-c5\0garbage\n";
	put(p, nul_spec, sizeof nul_spec - 1);
	run_case(dir, TH_ARGS("sweep", "--results", "r.jsonl", "--spec", "nul.spec"), NULL, "nul.spec:2: a NUL byte");
	snprintf(p, sizeof p, "%s/nul.jsonl", dir);
	static const char nul_rec[] = "{\"run_id\":\"0123456789abcdef\",\"run_key\":\"k\"}\0x\n";
	put(p, nul_rec, sizeof nul_rec - 1);
	run_case(dir, TH_ARGS("sweep", "--results", "nul.jsonl", "--shape", "8"), NULL, "NUL byte");
	run_case(dir, TH_ARGS("report", "nul.jsonl", "--out", "rep.md"), NULL, "NUL byte");
	run_case(dir, TH_ARGS("run", "--shape", "8", "--boundary", "torus/"), NULL, "boundary");
	cr_log_info("badinput: %d audit cases", cases);
	th_rm_tree(dir);
}

/* `lbtorus` alone: one line pointing to --help, exit 2. */
Test(badinput, no_command_is_one_line)
{
	char dir[64];
	th_tmpdir(dir, sizeof dir);
	th_usage_error(dir, (const char *const[]){NULL}, "--help");
	th_rm_tree(dir);
}

/* Item 7: run takes every seed sweep takes, and both agree on the result. */
Test(badinput, run_reproduces_a_sweep_record_with_the_largest_seed)
{
	char dir[64];
	th_tmpdir(dir, sizeof dir);
	char *out, *err;
	cr_assert_eq(th_cli(dir, TH_ARGS("sweep", "--results", "r.jsonl", "--shape", "16", "--init", "uniform:0:9",
	                                 "--seed", "18446744073709551615", "--quiet"), &out, &err), 0, "%s", err);
	free(out);
	free(err);
	cr_assert_eq(th_cli(dir, TH_ARGS("run", "--shape", "16", "--init", "uniform:0:9", "--seed", "18446744073709551615"),
	                    &out, &err), 0, "%s", err);
	char p[128];
	snprintf(p, sizeof p, "%s/r.jsonl", dir);
	char *rec = th_read(p, NULL);
	const char *a = strstr(rec, "\"balanced_step\":"), *b = strstr(out, "\"balanced_step\":");
	cr_assert(a && b && atoll(a + 16) == atoll(b + 16), "sweep %.40s, run %.40s", a, b);
	cr_assert(strstr(out, "\"seed\":18446744073709551615"), "%s", out);
	free(rec);
	free(out);
	free(err);
	th_rm_tree(dir);
}

/* Item 9: output that cannot be written fails with a message, not exit 0. */
Test(badinput, a_full_stdout_is_an_error)
{
	static const char *const cmds[][4] = {{"info", NULL}, {"--help", NULL}, {"run", "--help", NULL}, {"--version", NULL},
	                                      {"run", "--shape", "8", NULL}};
	for (size_t i = 0; i < sizeof cmds / sizeof *cmds; i++) {
		char cmd[256] = "\"$LBTORUS\"";
		for (int k = 0; cmds[i][k]; k++)
			snprintf(cmd + strlen(cmd), sizeof cmd - strlen(cmd), " %s", cmds[i][k]);
		strcat(cmd, " > /dev/full 2> /dev/null");
		int st = system(cmd);
		cr_assert(st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 2, "%s: status %d", cmd, st);
	}
}

#ifndef __SANITIZE_ADDRESS__ /* whose shadow memory needs the whole address space */
/* Limit this process's address space (and its children's: th_cli forks)
 * to `bytes`; the old limit, for setrlimit(RLIMIT_AS, &old) after. */
static struct rlimit limit_address_space(rlim_t bytes)
{
	struct rlimit old, lim;
	cr_assert(!getrlimit(RLIMIT_AS, &old));
	lim = old;
	lim.rlim_cur = bytes;
	cr_assert(!setrlimit(RLIMIT_AS, &lim));
	return old;
}

/* th_usage_error under a 1 GiB address space, restored after. */
static void usage_error_in_1gib(const char *dir, const char *const *argv, const char *needle)
{
	struct rlimit old = limit_address_space((rlim_t)1 << 30);
	th_usage_error(dir, argv, needle);
	cr_assert(!setrlimit(RLIMIT_AS, &old));
}
#endif

/* Item 3: a run that cannot fit is refused before anything is allocated,
 * naming what it needs and what there is (it used to pass every allocation
 * one by one and then meet the OOM killer). Under AddressSanitizer, whose
 * shadow memory needs the whole address space, ulimit -v cannot be tried. */
Test(badinput, a_run_that_cannot_fit_is_refused_before_it_allocates)
{
	char dir[64];
	th_tmpdir(dir, sizeof dir);
	/* 200000^2 PEs of fos: at least 40e9 cells x 12 bytes, more than this machine has */
	th_usage_error(dir, TH_ARGS("run", "--shape", "200000x200000", "--method", "fos", "--init", "uniform:0:9", "--json", "o.json"),
	               "needs at least");
#ifndef __SANITIZE_ADDRESS__
	/* fos on 16384^2 needs 3 GiB for its loads */
	usage_error_in_1gib(dir, TH_ARGS("run", "--shape", "16384x16384", "--method", "fos", "--init", "uniform:0:9", "--json", "o.json"),
	                    "ulimit -v");
#endif
	th_rm_tree(dir);
}

/* Item 3: the kernels' scratch counts in the estimate: fos on 8192x8192 has
 * 0.75 GiB of loads (8196 rows of 8224 cells, 12 bytes a cell), which a
 * 1 GiB address space held, and 1 GiB of scratch more (two link arrays of 8
 * bytes a cell), which it did not: the run got as far as opening fos. */
Test(badinput, the_kernels_scratch_counts_in_the_estimate)
{
#ifndef __SANITIZE_ADDRESS__
	char dir[64];
	th_tmpdir(dir, sizeof dir);
	usage_error_in_1gib(dir, TH_ARGS("run", "--shape", "8192x8192", "--method", "fos", "--init", "uniform:0:9", "--json", "o.json"),
	                    "its kernels' scratch");
	th_rm_tree(dir);
#endif
}

/* Issue 31, item 5: --speeds enters the estimate (a field of 8 bytes a
 * cell, and the dense copy it is drawn into): lm-c5 on 8192x8192 has 0.25
 * GiB of loads, which 1 GiB held, and 1 GiB of speeds more, which it did
 * not; the run got as far as drawing them ("no memory for 67108864 speeds";
 * on 60000x60000, 77 s and 14 GB). */
Test(badinput, speeds_count_in_the_estimate)
{
#ifndef __SANITIZE_ADDRESS__
	char dir[64];
	th_tmpdir(dir, sizeof dir);
	usage_error_in_1gib(dir, TH_ARGS("run", "--shape", "8192x8192", "--speeds", "const:1", "--init", "const:1", "--json", "o.json"),
	                    "its speeds");
	th_rm_tree(dir);
#endif
}

/* Item 3: NNA's refusal of a total beyond int32 comes before the grid is
 * allocated (it came after 9.7 GB). const:100 on 8192x4096 is 3355443200
 * units; the grid and scratch would be 135 MB + 541 MB, touched when
 * zeroed, so a child that refuses first stays far below 64 MB. */
Test(badinput, a_total_beyond_int32_is_refused_before_allocating)
{
	char dir[64];
	th_tmpdir(dir, sizeof dir);
	th_usage_error(dir, TH_ARGS("run", "--shape", "8192x4096", "--method", "nna", "--init", "const:100", "--json", "o.json"),
	               "total load 3355443200 could pile onto one PE beyond int32 with nna");
#ifndef __SANITIZE_ADDRESS__
	struct rusage ru;
	cr_assert(!getrusage(RUSAGE_CHILDREN, &ru));
	cr_assert_lt(ru.ru_maxrss, 64 * 1024, "the child reached %ld KiB", ru.ru_maxrss);
#endif
	/* the same for a drawn total (uniform:0:200 averages 100 a PE) */
	th_usage_error(dir, TH_ARGS("run", "--shape", "8192x4096", "--method", "nna-def", "--init", "uniform:0:200"), "beyond int32");
	th_rm_tree(dir);
}

/* Item 12: axes of extent 1 get no halo. 1x1x1x1x1x1x256x1024 (262144 PEs)
 * took 16.7 GB (5^6 times its 1.1 MB of loads) and was refused under a
 * 1 GiB address space; it now runs there. Not under AddressSanitizer (see
 * above). */
Test(badinput, extent_one_axes_fit_where_their_pes_fit)
{
#ifndef __SANITIZE_ADDRESS__
	char dir[64];
	th_tmpdir(dir, sizeof dir);
	struct rlimit old = limit_address_space((rlim_t)1 << 30);
	char *out, *err;
	int rc = th_cli(dir, TH_ARGS("run", "--shape", "1x1x1x1x1x1x256x1024", "--until", "steps:2", "--threads", "1"), &out, &err);
	cr_assert(!setrlimit(RLIMIT_AS, &old));
	cr_assert_eq(rc, 0, "%s", err);
	cr_assert(strstr(out, "\"steps\":2,"), "%s", out);
	free(out);
	free(err);
	th_rm_tree(dir);
#endif
}

/* Item 9: one per-axis boundary syntax, torus/mesh, for run and sweep alike
 * (run wrote a comma, sweep a slash, each refusing the other's). */
Test(badinput, one_boundary_syntax_for_run_and_sweep)
{
	char dir[64];
	th_tmpdir(dir, sizeof dir);
	char *out, *err;
	cr_assert_eq(th_cli(dir, TH_ARGS("run", "--shape", "2x4", "--boundary", "torus/mesh", "--until", "steps:1"), &out, &err), 0,
	             "%s", err);
	cr_assert(strstr(out, "\"boundary\":\"torus,mesh\""), "%s", out);
	free(out);
	free(err);
	cr_assert_eq(th_cli(dir, TH_ARGS("sweep", "--results", "r.jsonl", "--shape", "2x4", "--boundary", "torus/mesh", "--until",
	                                 "steps:1", "--quiet"), &out, &err), 0, "%s", err);
	free(out);
	free(err);
	char p[128];
	snprintf(p, sizeof p, "%s/r.jsonl", dir);
	char *rec = th_read(p, NULL);
	cr_assert(strstr(rec, "\"boundary\":\"torus,mesh\""), "%s", rec);
	free(rec);
	th_rm_tree(dir);
}

/* Issue 31, item 6: a workload's integer fields are read as integers, by
 * lbt_parse_i64, so 1e300 or 2^63-1 as a tree's DEPTH is refused naming the
 * field (it was converted from a double: UBSan's float-to-integer overflow
 * in tree.c), and 2.0, +3 or 3e0 are not integers (they ran). */
Test(badinput, workload_integers_are_read_as_integers, .timeout = 120)
{
	char dir[64];
	th_tmpdir(dir, sizeof dir);
	cases = 0;
	static const char *const rows[][2] = {
		{"tree:2:1e300", "DEPTH '1e300'"},
		{"tree:2:9223372036854775807", "DEPTH '9223372036854775807' is out of range"},
		{"tree:2:2.0", "DEPTH '2.0'"},
		{"tree:2:+3", "DEPTH '+3'"},
		{"tree:2:3e0", "DEPTH '3e0'"},
		{"tree:1e300:2", "B '1e300'"},
		{"gw:2:0.5:1e300", "ROOTS '1e300'"},
		{"gw:2.5:0.5:1", "B '2.5'"},
		{"cybenko:uniform:0:1e300:1", "HI '1e300'"},
		{"cybenko:poisson:1:1e300", "C '1e300'"},
		{"phases:0:1:0:1:1:1e300", "LENH '1e300'"},
		{"phases:0:1:0:1:+1:2", "LENL '+1'"},
	};
	for (size_t i = 0; i < sizeof rows / sizeof *rows; i++)
		run_case(dir, TH_ARGS("run", "--shape", "8x8", "--init", "const:0", "--until", "steps:3", "--workload", rows[i][0]),
		         NULL, rows[i][1]);
	cr_log_info("badinput: %d workload integer cases", cases);
	th_rm_tree(dir);
}

/* Issue 31, item 9: one number grammar for every option and parameter
 * (docs/usage.md, "Numbers"): an integer is digits with a '-' only where the
 * range has negatives; a real number adds a fraction and an exponent; no
 * '+', and a number too small for a double is not read as 0. Method
 * parameters, --speeds, --until and the real-valued options took all three. */
Test(badinput, one_number_grammar_for_every_parameter, .timeout = 120)
{
	char dir[64];
	th_tmpdir(dir, sizeof dir);
	cases = 0;
	static const char *const rows[][4] = {
		{"luling-monien", "--delta", "+5", "--delta '+5'"},
		{"ca", "--ca-k", "+5", "--ca-k '+5'"},
		{"ca", "--ca-k", "1e2", "--ca-k '1e2'"},
		{"ca", "--ca-k", "2.5", "--ca-k '2.5': give an integer with 0 <= k <= 1000000"}, /* as usage.md says, not 1e+06 */
		{"fos-speed", "--detect", "-0", "--detect '-0'"},
		{"luling-monien", "--borrow", "1e-400", "--borrow '1e-400'"},
		{"fos-speed", "--shake", "1e-400", "--shake '1e-400'"},
		{"fos-speed", "--shake", "+0.5", "--shake '+0.5'"},
		{"fos-speed", "--shake", "-0", "--shake '-0'"},
		{"fos", "--alpha", "+0.1", "--alpha '+0.1'"},
		{"fos-speed", "--speeds", "const:+5", "+5"},
		{"lm-c5", "--until", "rel:+0.5", "rel:"},
	};
	for (size_t i = 0; i < sizeof rows / sizeof *rows; i++)
		run_case(dir, TH_ARGS("run", "--shape", "8x8", "--until", "steps:2", "--json", "o.json", "--method", rows[i][0],
		                      rows[i][1], rows[i][2]), NULL, rows[i][3]);
	run_case(dir, TH_ARGS("bench", "--sizes", "8", "--methods", "lm-c5", "--isa", "scalar", "--no-headline", "--seconds",
	                      "+1"), NULL, "--seconds");
	run_case(dir, TH_ARGS("search", "--shape", "8", "--ldiff", "4", "--mean", "3", "--out", "w.npy", "--anneal", "1e-400"),
	         NULL, "--anneal");
	cr_log_info("badinput: %d number grammar cases", cases);
	th_rm_tree(dir);
}

/* Issue 31, item 7: inputs whose arithmetic would overflow a double are
 * refused before the run, naming the value: speeds whose sum over the PEs
 * is inf (rel_load_max was written as inf, invalid JSON, exit 0), arrivals
 * whose mean is beyond any load (fos stopped with "total inf became -nan",
 * exit 1), a link whose bandwidth in bytes/s is inf, and a real-valued
 * init file whose total is inf. */
Test(badinput, inputs_whose_arithmetic_overflows_are_refused, .timeout = 120)
{
	char dir[64];
	th_tmpdir(dir, sizeof dir);
	cases = 0;
	static const char *const rows[][4] = {
		{"fos-speed", "--speeds", "const:1e308", "const:1e308"},
		{"fos-speed", "--speeds", "uniform:1:1e300", "uniform:1:1e300"},
		{"fos-speed", "--speeds", "classes:1,1e300", "classes:1,1e300"},
		{"fos-speed", "--speeds", "classes:1e-300,1", "classes:1e-300,1"},
		{"fos-speed", "--link", "1:1e308", "--link '1:1e308'"},
		{"fos-speed", "--link", "1e308:1", "--link '1e308:1'"},
		{"fos", "--workload", "cybenko:exp:1e308:1", "0 < MU <= 1000000"},
		{"fos", "--workload", "cybenko:normal:1e308:1:1", "|MU| <= 1000000"},
		{"fos", "--workload", "cybenko:normal:0:1e308:1", "SIGMA <= 1000000"},
	};
	for (size_t i = 0; i < sizeof rows / sizeof *rows; i++)
		run_case(dir, TH_ARGS("run", "--shape", "8x8", "--until", "steps:5", "--json", "o.json", "--method", rows[i][0],
		                      rows[i][1], rows[i][2]), NULL, rows[i][3]);
	char p[128];
	snprintf(p, sizeof p, "%s/big.npy", dir);
	const double big[2] = {1e300, 1e300}; /* a finite total, but not its squares (final_stddev was inf) */
	th_write_npy(p, 1, "{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }", 0, big, sizeof big);
	run_case(dir, TH_ARGS("run", "--method", "fos", "--init", "file:big.npy", "--until", "steps:5", "--json", "o.json"),
	         NULL, "big.npy");
	cr_log_info("badinput: %d overflow cases", cases);
	th_rm_tree(dir);
}

/* Issue 31, item 10: a search tree keeps its nodes as counts per level and
 * PE, at most 2^28 of them; a complete tree that needs more, or a torus on
 * which not even one level fits, is refused before anything is allocated,
 * naming the limit (the run stopped late with exit 2; 16385x16384 said
 * "deeper than 0 levels"). */
Test(badinput, search_tree_caps_before_the_first_step, .timeout = 120)
{
	char dir[64];
	th_tmpdir(dir, sizeof dir);
	cases = 0;
	run_case(dir, TH_ARGS("run", "--shape", "4096x4096", "--workload", "tree:2:20", "--until", "done", "--json", "o.json"), NULL,
	         "21 levels x 16777216 PEs of node counts, beyond the limit of 2^28");
	run_case(dir, TH_ARGS("run", "--shape", "16385x16384", "--workload", "gw:2:0.5:1", "--until", "done", "--json", "o.json"),
	         NULL, "1 level x 268451840 PEs of node counts, beyond the limit of 2^28");
	run_case(dir, TH_ARGS("sweep", "--results", "r.jsonl", "--shape", "8,4096x4096", "--init", "const:0", "--workload",
	                      "tree:2:20", "--until", "done"), NULL, "beyond the limit of 2^28");
	cr_log_info("badinput: %d search tree cap cases", cases);
	th_rm_tree(dir);
}

/* Issue 25, item 6: bench refuses a size that cannot fit before it measures
 * anything, as run does, counting the copy of the grid it restarts every
 * measurement from: 12000x12000 has 0.54 GiB of loads, twice that is more
 * than a 1 GiB address space (it measured the bandwidth, opened the run and
 * failed allocating the copy; on 4294967297 PEs, 16 GiB each, it thrashed
 * for ever, deaf to SIGTERM). Not under AddressSanitizer (see above). */
Test(badinput, bench_refuses_a_size_that_cannot_fit)
{
#ifndef __SANITIZE_ADDRESS__
	char dir[64];
	th_tmpdir(dir, sizeof dir);
	usage_error_in_1gib(dir, TH_ARGS("bench", "--sizes", "128,12000x12000", "--methods", "lm-c5", "--isa", "scalar",
	                                 "--threads", "1", "--no-headline"), "bench: lm-c5 on 12000x12000 needs at least");
	th_rm_tree(dir);
#endif
}

/* Issue 31 (items 2, 4, 8, 16-19) and issue 25 (items 5, 6): an output over
 * an input or another output (a report over a table it embeds or over
 * bound.json, a sweep's torn-line file over its spec), special files as inputs (a FIFO, /dev/zero,
 * /dev/null: each used to block, grow without end or run everything), an
 * endless line, results lines that are not strict JSON, file loads the plan
 * let through, and the same mistake answered alike. Each command gets 20 s:
 * one that blocks on a FIFO or reads /dev/zero for ever fails its row. */
Test(badinput, the_second_audits_cases, .timeout = 300)
{
	char dir[64], p[160];
	th_tmpdir(dir, sizeof dir);
	th_cli_seconds = 20;
	cases = 0;
	char *out, *err;
	cr_assert_eq(th_cli(dir, TH_ARGS("sweep", "--results", "r.jsonl", "--shape", "8", "--until", "steps:1", "--quiet"), &out,
	                    &err), 0, "%s", err);
	free(out);
	free(err);
	snprintf(p, sizeof p, "%s/fifo", dir);
	cr_assert(!mkfifo(p, 0600));
	snprintf(p, sizeof p, "%s/adir", dir);
	cr_assert(!mkdir(p, 0700));
	/* 31.2, 25.6: one file under two names, an output over an input */
	run_case(dir, TH_ARGS("report", "r.jsonl", "--out", "r.jsonl"), NULL, "same file");
	run_case(dir, TH_ARGS("report", "r.jsonl", "--out", "./r.jsonl"), NULL, "same file");
	run_case(dir, TH_ARGS("run", "--shape", "8", "--json", "F", "--trace", "./F"), NULL, "same file");
	run_case(dir, TH_ARGS("run", "--shape", "8", "--json", "r.jsonl", "--dump", "adir/../r.jsonl"), NULL, "same file");
	run_case(dir, TH_ARGS("run", "--shape", "8", "--init", "file:w.npy", "--dump", "./w.npy"), NULL, "same file");
	snprintf(p, sizeof p, "%s/bound.csv", dir);
	FILE *f = fopen(p, "w");
	fputs("x\n", f);
	fclose(f);
	run_case(dir, TH_ARGS("bound", "--from", "bound.csv", "--out", "adir/.."), NULL, "same file");
	snprintf(p, sizeof p, "%s/s.spec", dir);
	f = fopen(p, "w");
	fputs("shape = 8\n", f);
	fclose(f);
	run_case(dir, TH_ARGS("sweep", "--results", "s.spec", "--spec", "./s.spec"), NULL, "same file");
	snprintf(p, sizeof p, "%s/w.npy", dir);
	int32_t w8[8] = {1, 2, 3, 4, 5, 6, 7, 8};
	th_write_npy(p, 1, "{'descr': '<i4', 'fortran_order': False, 'shape': (8,), }", 0, w8, sizeof w8);
	run_case(dir, TH_ARGS("sweep", "--results", "w.npy", "--shape", "8", "--init", "file:adir/../w.npy"), NULL, "same file");
	run_case(dir, TH_ARGS("bench", "--sizes", "8", "--init", "file:w.npy", "--json", "./w.npy"), NULL, "same file");
	/* the torn-line file a sweep may append to (RESULTS.torn) is an output too */
	snprintf(p, sizeof p, "%s/sp.torn", dir);
	f = fopen(p, "w");
	fputs("shape = 8\n", f);
	fclose(f);
	run_case(dir, TH_ARGS("sweep", "--results", "sp", "--spec", "sp.torn"), NULL, "same file");
	/* report reads the tables beside the records (embedded) and bound.json:
	 * it replaced reproduce's table3.md, or bound's fit, with itself */
	snprintf(p, sizeof p, "%s/t.md", dir);
	f = fopen(p, "w");
	fputs("# A table\n\n| a |\n|---|\n| 1 |\n", f);
	fclose(f);
	run_case(dir, TH_ARGS("report", "r.jsonl", "--out", "t.md"), NULL, "same file");
	run_case(dir, TH_ARGS("report", "adir/../r.jsonl", "--out", "./t.md"), NULL, "same file");
	snprintf(p, sizeof p, "%s/bdir", dir);
	cr_assert(!mkdir(p, 0700));
	snprintf(p, sizeof p, "%s/bdir/bound.json", dir);
	f = fopen(p, "w");
	fputs("{\"method\":\"lm-c5\",\"points\":4}\n", f);
	fclose(f);
	run_case(dir, TH_ARGS("report", "bdir", "--out", "bdir/bound.json"), NULL, "same file");
	/* 31.16, 25.5: a results file must be a regular file */
	run_case(dir, TH_ARGS("sweep", "--results", "/dev/null", "--shape", "8", "--init", "uniform:0:9"), NULL, "not a regular file");
	run_case(dir, TH_ARGS("sweep", "--results", "/dev/full", "--shape", "8", "--init", "uniform:0:9", "--seed", "1"), NULL,
	         "not a regular file");
	run_case(dir, TH_ARGS("sweep", "--results", "fifo", "--shape", "8"), NULL, "not a regular file");
	/* 31.4: special files as inputs */
	run_case(dir, TH_ARGS("sweep", "--results", "s.jsonl", "--spec", "/dev/zero", "--dry-run"), NULL, "not a regular file");
	run_case(dir, TH_ARGS("sweep", "--results", "s.jsonl", "--spec", "fifo"), NULL, "not a regular file");
	run_case(dir, TH_ARGS("report", "/dev/zero", "--out", "rep.md"), NULL, "not a regular file");
	run_case(dir, TH_ARGS("report", "fifo", "--out", "rep.md"), NULL, "not a regular file");
	run_case(dir, TH_ARGS("run", "--shape", "8", "--init", "file:fifo"), NULL, "not a regular file");
	run_case(dir, TH_ARGS("run", "--shape", "8", "--init", "file:/dev/zero"), NULL, "not a regular file");
	run_case(dir, TH_ARGS("run", "--shape", "8", "--method", "fos-speed", "--speeds", "file:fifo"), NULL, "not a regular file");
	run_case(dir, TH_ARGS("bound", "--out", "b", "--from", "fifo"), NULL, "not a regular file");
	/* 31.18: what is wrong with --from */
	run_case(dir, TH_ARGS("bound", "--out", "b", "--from", "/dev/null"), NULL, "not a regular file");
	run_case(dir, TH_ARGS("bound", "--out", "b", "--from", "adir"), NULL, "directory");
	run_case(dir, TH_ARGS("bound", "--out", "b", "--from", "/proc/self/mem"), NULL, "cannot read");
	/* 31.4: a line has a length limit (a 2 MiB line, no newline) */
	snprintf(p, sizeof p, "%s/long.spec", dir);
	f = fopen(p, "w");
	fputs("shape = 8\nmethod = ", f);
	for (int i = 0; i < 2 << 20; i++)
		fputc('x', f);
	fclose(f);
	run_case(dir, TH_ARGS("sweep", "--results", "s.jsonl", "--spec", "long.spec"), NULL, "long.spec:2: longer than");
	snprintf(p, sizeof p, "%s/long.jsonl", dir);
	f = fopen(p, "w");
	fputc('{', f);
	for (int i = 0; i < 2 << 20; i++)
		fputc(' ', f);
	fputs("}\n", f);
	fclose(f);
	run_case(dir, TH_ARGS("report", "long.jsonl", "--out", "rep.md"), NULL, "long.jsonl:1: longer than");
	/* ... in a table report embeds too (it ended the table there, without a word), and bound.json must be JSON */
	snprintf(p, sizeof p, "%s/ldir", dir);
	cr_assert(!mkdir(p, 0700));
	snprintf(p, sizeof p, "%s/ldir/long.md", dir);
	f = fopen(p, "w");
	fputs("| a |\n|---|\n| ", f);
	for (int i = 0; i < 2 << 20; i++)
		fputc('x', f);
	fputs(" |\n", f);
	fclose(f);
	run_case(dir, TH_ARGS("report", "ldir", "--out", "rep.md"), NULL, "long.md:3: longer than");
	snprintf(p, sizeof p, "%s/bdir/bound.json", dir);
	f = fopen(p, "w");
	fputs("{\"method\":NaN}\n", f);
	fclose(f);
	run_case(dir, TH_ARGS("report", "bdir", "--out", "rep.md"), NULL, "bound.json:1:");
	/* 31.8: a results line that is not strict JSON, named by its line */
	char *rec = NULL;
	snprintf(p, sizeof p, "%s/r.jsonl", dir);
	rec = th_read(p, NULL);
	static const char *const bad[][2] = {{"nan.jsonl", "\"x\":NaN"}, {"inf.jsonl", "\"x\":-Infinity"},
	                                     {"utf8.jsonl", "\"x\":\"\xc3\x28\""}, {"lone.jsonl", "\"x\":\"\\ud800\""},
	                                     {"hex.jsonl", "\"x\":0x10"}, {"plus.jsonl", "\"x\":+1"}, {"dot.jsonl", "\"x\":1."}};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		snprintf(p, sizeof p, "%s/%s", dir, bad[i][0]);
		f = fopen(p, "w");
		fprintf(f, "%s{%s,%s", rec, bad[i][1], rec + 1);
		fclose(f);
		char needle[64];
		snprintf(needle, sizeof needle, "%s:2:", bad[i][0]);
		run_case(dir, TH_ARGS("report", bad[i][0], "--out", "rep.md"), NULL, needle);
	}
	free(rec);
	/* 31.17: the plan reads an --init file's values: NaN, inf, negative, beyond int32 */
	double nan8[8] = {1, 1, 1, 1, 1, 1, 1, NAN}, inf8[8] = {1, 1, 1, 1, 1, 1, 1, INFINITY},
	       neg8[8] = {1, 1, 1, 1, 1, 1, 1, -1};
	int64_t big8[8] = {1, 1, 1, 1, 1, 1, 1, (int64_t)1 << 31}, nbig8[8] = {1, 1, 1, 1, 1, 1, 1, -1};
	static const char real8[] = "{'descr': '<f8', 'fortran_order': False, 'shape': (8,), }",
	                  int8_[] = "{'descr': '<i8', 'fortran_order': False, 'shape': (8,), }";
	snprintf(p, sizeof p, "%s/nan.npy", dir);
	th_write_npy(p, 1, real8, 0, nan8, sizeof nan8);
	snprintf(p, sizeof p, "%s/inf.npy", dir);
	th_write_npy(p, 1, real8, 0, inf8, sizeof inf8);
	snprintf(p, sizeof p, "%s/neg.npy", dir);
	th_write_npy(p, 1, real8, 0, neg8, sizeof neg8);
	snprintf(p, sizeof p, "%s/big.npy", dir);
	th_write_npy(p, 1, int8_, 0, big8, sizeof big8);
	snprintf(p, sizeof p, "%s/nbig.npy", dir);
	th_write_npy(p, 1, int8_, 0, nbig8, sizeof nbig8);
	static const char *const loads[][2] = {{"file:nan.npy", "fos"}, {"file:inf.npy", "fos"}, {"file:neg.npy", "fos"},
	                                       {"file:big.npy", "lm-c5"}, {"file:nbig.npy", "lm-c5"}};
	for (size_t i = 0; i < sizeof loads / sizeof *loads; i++)
		run_case(dir, TH_ARGS("sweep", "--results", "new.jsonl", "--shape", "8", "--method", loads[i][1], "--init", loads[i][0],
		                      "--until", "steps:1"), NULL, loads[i][0] + 5);
	/* 31.19: validate before the first progress line; the same mistake, the same answer */
	run_case(dir, TH_ARGS("reproduce", "table3", "--out", "/proc/nope"), NULL, "/proc/nope");
	run_case(dir, TH_ARGS("demo", "--data", "/nonexistent", "--quiet"), NULL, "/nonexistent");
	run_case(dir, TH_ARGS("reproduce", "table3", "--data", "/nonexistent", "--out", "rp"), NULL, "/nonexistent");
	/* reproduce --data reads whole lines: a line over the limit (2 MiB, in a
	 * comment) is refused by file and line, not split into rows; a claim too
	 * long for its fields is refused, not cut short */
	const char *data = getenv("LBTORUS_DATA");
	cr_assert(data);
	static const char *const tables[] = {"table3_lm_c5.csv", "table3_nna.csv", "henrich1996_claims.csv"};
	for (int k = 0; k < 2; k++) {
		snprintf(p, sizeof p, "%s/data%d", dir, k);
		cr_assert(!mkdir(p, 0700));
		for (size_t i = 0; i < sizeof tables / sizeof *tables; i++) {
			char src[4200], dst[200];
			snprintf(src, sizeof src, "%s/%s", data, tables[i]);
			snprintf(dst, sizeof dst, "%s/%s", p, tables[i]);
			size_t n;
			char *body = th_read(src, &n);
			f = fopen(dst, "w");
			if (k == 0 && i == 0) { /* line 1: a comment of 2 MiB */
				fputs("# ", f);
				for (int j = 0; j < 2 << 20; j++)
					fputc('x', f);
				fputc('\n', f);
			}
			if (k == 1 && i == 2) { /* line 1, the claim found first: a source of 3000 bytes */
				fputs("table3_lm_shared,table3,steps until shared,7,", f);
				for (int j = 0; j < 3000; j++)
					fputc('s', f);
				fputc('\n', f);
			}
			fwrite(body, 1, n, f);
			fclose(f);
			free(body);
		}
	}
	run_case(dir, TH_ARGS("reproduce", "table3", "--data", "data0", "--out", "rp"), NULL, "data0/table3_lm_c5.csv:1: longer than");
	run_case(dir, TH_ARGS("reproduce", "table3", "--data", "data1", "--out", "rp"), NULL,
	         "data1/henrich1996_claims.csv:1: claim 'table3_lm_shared'");
	cr_log_info("badinput: %d second-audit cases", cases);
	th_rm_tree(dir);
}

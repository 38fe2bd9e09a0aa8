/* test_sweep.c — lbtorus sweep as the issue asks: a sweep killed mid-way
 * and run again loses nothing and duplicates nothing, and its records equal
 * an uninterrupted sweep's; results do not depend on how many runs go at
 * once; ranges and families expand as README.md says; every malformed spec
 * gets one clear line and exit 2, before any file is touched. */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <pty.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "helpers.h"
#include "out/jsonl.h"


/* Fields that say how a run was scheduled, not what it computed: its time
 * and threads, and the provenance of the invocation (docs/formats.md). */
static int timing(const char *k)
{
	static const char *const sched[] = {"seconds", "site_updates_per_second", "threads", "date_utc", "command", "host",
	                                    "ranks"};
	for (size_t i = 0; i < sizeof sched / sizeof *sched; i++)
		if (!strcmp(k, sched[i]))
			return 1;
	return 0;
}

/* Check that b holds exactly a's run keys, once each, with equal records. */
static void same_records(const char *pa, const char *pb)
{
	lbt_jsonl a, b;
	lbt_err e;
	cr_assert_eq(lbt_jsonl_load(&a, pa, &e), 0, "%s", e.msg);
	cr_assert_eq(lbt_jsonl_load(&b, pb, &e), 0, "%s", e.msg);
	cr_assert_eq(a.n, b.n, "%s has %lld records, %s %lld", pa, (long long)a.n, pb, (long long)b.n);
	for (int64_t i = 0; i < a.n; i++) {
		const char *key = lbt_jobj_str(&a.rec[i], "run_key");
		cr_assert(key);
		int found = 0;
		for (int64_t j = 0; j < b.n; j++) {
			const char *kb = lbt_jobj_str(&b.rec[j], "run_key");
			cr_assert(kb, "%s: record %lld has no run_key", pb, (long long)j + 1);
			if (strcmp(key, kb))
				continue;
			found++;
			const lbt_jobj *x = &a.rec[i], *y = &b.rec[j];
			cr_assert_eq(x->n, y->n, "%s: field count differs", key);
			for (int f = 0; f < x->n; f++) {
				if (timing(x->f[f].key))
					continue;
				const lbt_jfield *g = lbt_jobj_get(y, x->f[f].key);
				cr_assert(g, "%s: %s missing", key, x->f[f].key);
				cr_assert_eq(g->type, x->f[f].type, "%s: %s differs in type", key, x->f[f].key);
				if (g->type == LBT_JSTR || g->type == LBT_JNUM)
					cr_assert_str_eq(g->str, x->f[f].str, "%s: %s", key, x->f[f].key);
				else
					cr_assert_eq(g->num, x->f[f].num, "%s: %s", key, x->f[f].key);
			}
		}
		cr_assert_eq(found, 1, "run %s appears %d times in %s", key, found, pb);
	}
	lbt_jsonl_free(&a);
	lbt_jsonl_free(&b);
}

/* 24 runs of 10..100 ms each (on the scalar kernels, so on any CPU), long
 * enough to be killed in the middle: 18
 * worst-case runs (seed=any: they draw no random numbers) and 6 seeded ones. */
#define KILL_SWEEP "--shape", "16x16,24x24,32x32", "--init", "worst:1..6,uniform:0:20", "--seed", "1..2", "--isa", "scalar"
#define KILL_RUNS 24

Test(sweep, resume_after_kill_loses_nothing_and_duplicates_nothing, .timeout = 120)
{
	char dir[64], ref[128], res[128];
	th_tmpdir(dir, sizeof dir);
	snprintf(ref, sizeof ref, "%s/ref.jsonl", dir);
	snprintf(res, sizeof res, "%s/killed.jsonl", dir);
	char *err;
	int rc = th_cli(NULL, TH_ARGS("sweep", "--results", ref, "--jobs", "1", KILL_SWEEP), NULL, &err);
	cr_assert_eq(rc, 0, "uninterrupted sweep: %s", err);
	free(err);
	cr_assert_eq(th_count_lines(ref), KILL_RUNS);

	pid_t pid = th_spawn(NULL, TH_ARGS("sweep", "--results", res, "--jobs", "2", KILL_SWEEP));
	int lines = 0;
	for (int t = 0; t < 60000 && (lines = th_count_lines(res)) < 3; t++)
		usleep(1000);
	kill(pid, SIGKILL);
	int status;
	waitpid(pid, &status, 0);
	lines = th_count_lines(res);
	cr_assert(WIFSIGNALED(status) && lines >= 3 && lines < KILL_RUNS,
	          "the sweep was to be killed mid-way; it had written %d of %d lines", lines, KILL_RUNS);
	FILE *f = fopen(res, "a"); /* what a writer killed inside write() would leave */
	fputs("{\"run_id\":\"0123456789abcdef\",\"run_key\":\"method=lm-c5 sha", f);
	fclose(f);

	rc = th_cli(NULL, TH_ARGS("sweep", "--results", res, KILL_SWEEP), NULL, &err);
	cr_assert_eq(rc, 0, "resumed sweep: %s", err);
	cr_assert(strstr(err, "torn line") && strstr(err, ".torn"), "the torn line set aside goes unmentioned: %s", err);
	free(err);
	same_records(ref, res);

	/* Once complete, running again changes nothing. */
	rc = th_cli(NULL, TH_ARGS("sweep", "--results", res, KILL_SWEEP), NULL, NULL);
	cr_assert_eq(rc, 0);
	cr_assert_eq(th_count_lines(res), KILL_RUNS);
	th_rm_tree(dir);
}

Test(sweep, records_do_not_depend_on_parallelism, .timeout = 120)
{
	char dir[64], a[128], b[128];
	th_tmpdir(dir, sizeof dir);
	snprintf(a, sizeof a, "%s/a.jsonl", dir);
	snprintf(b, sizeof b, "%s/b.jsonl", dir);
	/* Serial, one thread; then two runs at once, and 256-PE runs alone on two
	 * threads. LM never balances a mesh (load piles up at the open end): those
	 * runs stop at --max-steps, recorded with reached = false. */
	cr_assert_eq(th_cli(NULL, TH_ARGS("sweep", "--results", a, "--jobs", "1", "--solo-pes", "1000000",
	                               "--shape", "ring:8..64*2,16x16", "--boundary", "torus,mesh",
	                               "--init", "uniform:0:9,worst:3", "--seed", "1..3", "--until", "balanced,flat",
	                               "--max-steps", "3000"),
	                    NULL, NULL), 0);
	cr_assert_eq(th_cli(NULL, TH_ARGS("sweep", "--results", b, "--jobs", "2", "--solo-pes", "256", "--threads", "2",
	                               "--shape", "ring:8..64*2,16x16", "--boundary", "torus,mesh",
	                               "--init", "uniform:0:9,worst:3", "--seed", "1..3", "--until", "balanced,flat",
	                               "--max-steps", "3000"),
	                    NULL, NULL), 0);
	/* shapes x boundaries x (uniform x 3 seeds + worst, seed=any) x criteria */
	cr_assert_eq(th_count_lines(a), 5 * 2 * (3 + 1) * 2);
	same_records(a, b);
	unlink(a);
	unlink(b);
	rmdir(dir);
}

static void items(int axis, const char *value, const char *want)
{
	lbt_spec sp;
	lbt_err e;
	lbt_spec_init(&sp);
	cr_assert_eq(lbt_spec_add(&sp, axis, value, &e), 0, "%s: %s", value, e.msg);
	char got[4096] = "";
	for (int64_t i = 0; i < sp.n[axis]; i++)
		snprintf(got + strlen(got), sizeof got - strlen(got), "%s%s", i ? " " : "", sp.item[axis][i]);
	cr_assert_str_eq(got, want, "'%s' expanded to '%s'", value, got);
	lbt_spec_free(&sp);
}

Test(spec, ranges_and_families_expand_as_documented)
{
	items(LBT_AX_SHAPE, "ring:8..2048*2", "8 16 32 64 128 256 512 1024 2048");
	items(LBT_AX_SHAPE, "torus2:8..256*2", "8x8 16x16 32x32 64x64 128x128 256x256");
	items(LBT_AX_SHAPE, "torus3:4..12+4, 64x128 ,7", "4x4x4 8x8x8 12x12x12 64x128 7");
	items(LBT_AX_SHAPE, "ring:3..20*3", "3 9");
	items(LBT_AX_SEED, "1..10+3,42", "1 4 7 10 42");
	items(LBT_AX_INIT, "worst:1..16*2", "worst:1 worst:2 worst:4 worst:8 worst:16");
	items(LBT_AX_INIT, "uniform:0:10..30+10", "uniform:0:10 uniform:0:20 uniform:0:30");
	items(LBT_AX_INIT, "worst:05", "worst:5");
	items(LBT_AX_UNTIL, "shared,steps:0..100+50", "shared steps:0 steps:50 steps:100");
	items(LBT_AX_BOUNDARY, "torus,torus/mesh", "torus torus,mesh");
	items(LBT_AX_METHOD, "lm-c3, lm-c5", "lm-c3 lm-c5");
	items(LBT_AX_METHOD, "ca:k=0..2,fos:alpha=0.250,de:lambda=.5,ca:ca-k=03,fos:alpha=boillat",
	      "ca:k=0 ca:k=1 ca:k=2 fos:alpha=0.25 de:lambda=0.5 ca:k=3 fos:alpha=boillat");
	items(LBT_AX_UNTIL, "rel:1e-6,rel:0.001", "rel:1e-06 rel:0.001");
	/* several parameters: joined by colons, canonical in the schema's order,
	 * a range in the last field, a word holding a colon (local:R) kept whole */
	items(LBT_AX_METHOD, "luling-monien:delta=4:f=1.50,luling-monien:f=1.5:delta=4",
	      "luling-monien:f=1.5:delta=4 luling-monien:f=1.5:delta=4");
	items(LBT_AX_METHOD, "luling-monien:f=2:delta=1..3", "luling-monien:f=2:delta=1 luling-monien:f=2:delta=2 "
	      "luling-monien:f=2:delta=3");
	items(LBT_AX_METHOD, "luling-monien:partners=local:2:delta=3", "luling-monien:delta=3:partners=local:2");

	/* The plan: a product, seed fastest, each distinct run once; a run that
	 * draws no random numbers (worst:5 with LM) once for all seeds. */
	lbt_spec sp;
	lbt_plan pl;
	lbt_err e;
	lbt_spec_init(&sp);
	cr_assert_eq(lbt_spec_add(&sp, LBT_AX_SHAPE, "8,ring:8,4x4", &e), 0);
	cr_assert_eq(lbt_spec_add(&sp, LBT_AX_INIT, "uniform:0:9,worst:5", &e), 0);
	cr_assert_eq(lbt_spec_add(&sp, LBT_AX_SEED, "1,2,1", &e), 0);
	cr_assert_eq(lbt_spec_merge(&sp, NULL, 1, &e), 0, "%s", e.msg);
	cr_assert_eq(lbt_plan_build(&pl, &sp, &e), 0, "%s", e.msg);
	cr_assert_eq(pl.n, 2 * (2 + 1));
	cr_assert_eq(pl.duplicates, 3 * 2 * 3 - 6);
	cr_assert_str_eq(pl.run[0].key, "method=lm-c5 shape=8 boundary=torus init=uniform:0:9 until=balanced max_steps=1000000 seed=1");
	cr_assert_str_eq(pl.run[1].key, "method=lm-c5 shape=8 boundary=torus init=uniform:0:9 until=balanced max_steps=1000000 seed=2");
	cr_assert_str_eq(pl.run[2].key, "method=lm-c5 shape=8 boundary=torus init=worst:5 until=balanced max_steps=1000000 seed=any");
	cr_assert_eq(pl.run[2].seed, 1);
	cr_assert_str_eq(pl.run[3].shape, "4x4");
	cr_assert_neq(strcmp(pl.run[0].id, pl.run[1].id), 0);
	lbt_plan_free(&pl);
	lbt_spec_free(&sp);
}

/* A spec file with this text makes the sweep exit 2 with one line naming
 * the problem (and the line, `where`), and creates no results file. */
static void bad_spec(const char *text, const char *where, const char *needle)
{
	char dir[64], spec[128], res[128];
	th_tmpdir(dir, sizeof dir);
	snprintf(spec, sizeof spec, "/tmp/lbt_spec_%d.txt", (int)getpid());
	snprintf(res, sizeof res, "%s/r.jsonl", dir);
	FILE *f = fopen(spec, "w");
	fputs(text, f);
	fclose(f);
	char *err;
	int rc = th_cli(NULL, TH_ARGS("sweep", "--spec", spec, "--results", res), NULL, &err);
	size_t len = strlen(err);
	cr_assert_eq(rc, 2, "spec '%s' exited %d; stderr: %s", text, rc, err);
	cr_assert(len > 10 && err[len - 1] == '\n' && !strchr(err, '\n')[1], "want one line, got: %s", err);
	cr_assert(strstr(err, needle), "message '%s' does not mention '%s'", err, needle);
	if (where) {
		char at[160];
		snprintf(at, sizeof at, "%s:%s:", spec, where);
		cr_assert(strstr(err, at), "message '%s' does not name %s", err, at);
	}
	cr_assert_eq(th_count_files(dir), 0, "a rejected spec left a file behind");
	free(err);
	unlink(spec);
	rmdir(dir);
}

Test(spec, malformed_specs_exit_2_with_one_clear_line)
{
	bad_spec("method = lm-c5\nshape 8\n", "2", "key = value");
	bad_spec("# a comment\ncolour = red\n", "2", "unknown key 'colour'");
	bad_spec("shape = ring:8..4\n", "1", "ends below");
	bad_spec("shape = ring:8..64*1\n", "1", "FACTOR >= 2");
	bad_spec("shape = ring:8..64+0\n", "1", "STEP");
	bad_spec("shape = ring:8..x\n", "1", "LO..HI");
	bad_spec("shape = cube:8\n", "1", "families");
	bad_spec("shape = torus9:4\n", "1", "families");
	bad_spec("shape = 8,,16\n", "1", "empty item");
	bad_spec("shape = 0x4\n", "1", "positive");
	bad_spec("shape = 8\nmethod = lm-c9\n", "2", "lm-c9");
	bad_spec("shape = 8\ninit = worst:x\n", "2", "worst:x");
	bad_spec("shape = 8\nmethod = lm-c5:alpha=1\n", "2", "no parameters");
	bad_spec("shape = 8\nmethod = de:lambda=2\n", "2", "0 < lambda <= 1");
	bad_spec("shape = 8\nmethod = fos:lambda=0.5\n", "2", "alpha=A (fos)");
	bad_spec("shape = 8x8\nmethod = fos:alpha=0.9\n", NULL, "1/max_degree");
	bad_spec("shape = 8\ninit = uniform:5:1\n", "2", "below LO");
	bad_spec("shape = 8\nseed = -1\n", "2", "seed '-1'");
	bad_spec("shape = 8\nuntil = soon\n", "2", "soon");
	bad_spec("shape = 8\nboundary = klein\n", "2", "klein");
	bad_spec("shape = 8\nmax_steps = many\n", "2", "max_steps");
	bad_spec("shape = 8\nmethod = luling-monien:delta=4:delta=3\n", "2", "delta is given twice");
	bad_spec("shape = 8\nmethod = luling-monien:4\n", "2", "NAME=VALUE, joined by colons");
	bad_spec("shape = 8\nmethod = luling-monien:delta=4:g=2\n", "2", "parameters, joined by colons: f=F");
	bad_spec("shape = 8\nwarmup = -3\n", "2", "warmup");
	bad_spec("shape = 8\nwarmup = 10\n", NULL, "no run of the sweep has a workload");
	bad_spec("shape =\n", "1", "no value");
	/* Combinations are checked before anything runs. */
	bad_spec("shape = 8, 4x4\nboundary = torus/mesh\n", NULL, "names 2 axes");
	bad_spec("shape = 8\nuntil = steps:100\nmax_steps = 10\n", NULL, "conflicts with max_steps");
	bad_spec("shape = 65536x65536\ninit = worst:1\n", NULL, "int32");
	bad_spec("seed = 1..3\n", NULL, "no shape");
	bad_spec("shape = ring:1..100000000\nseed = 1..100\n", NULL, "more than");

	char *err;
	cr_assert_eq(th_cli(NULL, TH_ARGS("sweep", "--spec", "/nonexistent/s.txt", "--results", "/tmp/x"), NULL, &err), 2);
	cr_assert(strstr(err, "/nonexistent/s.txt"), "%s", err);
	free(err);
	cr_assert_eq(th_cli(NULL, TH_ARGS("sweep", "--shape", "8", "--seed", "1..x", "--results", "/tmp/x"), NULL, &err), 2);
	cr_assert(strstr(err, "seed '1..x'"), "%s", err);
	free(err);
	cr_assert_eq(th_cli(NULL, TH_ARGS("sweep", "--shape", "8"), NULL, &err), 2);
	cr_assert(strstr(err, "--results"), "%s", err);
	free(err);
}

Test(sweep, refuses_a_locked_or_foreign_results_file)
{
	char dir[64], res[128];
	th_tmpdir(dir, sizeof dir);
	snprintf(res, sizeof res, "%s/r.jsonl", dir);
	int fd = open(res, O_RDWR | O_CREAT, 0644);
	cr_assert(fd >= 0 && !flock(fd, LOCK_EX));
	char *err;
	cr_assert_eq(th_cli(NULL, TH_ARGS("sweep", "--shape", "8", "--results", res), NULL, &err), 2);
	cr_assert(strstr(err, "locked"), "%s", err);
	free(err);
	close(fd);
	FILE *f = fopen(res, "w");
	fputs("{\"method\":\"lm-c5\"}\n", f); /* a run record, but not a sweep's */
	fclose(f);
	cr_assert_eq(th_cli(NULL, TH_ARGS("sweep", "--shape", "8", "--results", res), NULL, &err), 2);
	cr_assert(strstr(err, ":1 is not a sweep record"), "%s", err);
	free(err);
	unlink(res);
	rmdir(dir);
}

Test(sweep, progress_on_a_terminal_silence_otherwise, .timeout = 60)
{
	char dir[64], a[128], b[128];
	th_tmpdir(dir, sizeof dir);
	snprintf(a, sizeof a, "%s/a.jsonl", dir);
	snprintf(b, sizeof b, "%s/b.jsonl", dir);
	char *out, *err;
	cr_assert_eq(th_cli(NULL, TH_ARGS("sweep", "--results", a, "--shape", "ring:8..64*2", "--init", "uniform:0:9",
	                               "--seed", "1..3"), &out, &err), 0);
	cr_assert_str_empty(out);
	cr_assert_str_empty(err, "stderr is not a terminal, yet: %s", err);
	free(out);
	free(err);

	int master;
	pid_t pid = forkpty(&master, NULL, NULL, NULL);
	if (pid < 0)
		cr_skip_test("no pseudo-terminal here (%s)", strerror(errno));
	if (pid == 0) {
		execl(getenv("LBTORUS"), "lbtorus", "sweep", "--results", b, "--shape", "ring:8..64*2", "--init", "uniform:0:9",
		      "--seed", "1..3", (char *)NULL);
		_exit(127);
	}
	char buf[8192];
	size_t len = 0;
	ssize_t k;
	while (len < sizeof buf - 1 && (k = read(master, buf + len, sizeof buf - 1 - len)) > 0)
		len += (size_t)k;
	buf[len] = 0;
	int status;
	waitpid(pid, &status, 0);
	close(master);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "%s", buf);
	cr_assert(strstr(buf, "/12 runs") && strstr(buf, "runs/s") && strstr(buf, "ETA"), "no progress line: %s", buf);
	cr_assert(strstr(buf, "12 runs in"), "no closing summary: %s", buf);
	unlink(a);
	unlink(b);
	rmdir(dir);
}

/* Issue 25 item 4: one syntax, one meaning for --shape. Extents are joined
 * with x (8x8: one 8x8 torus) and a comma separates the shapes of a list
 * (sweep and bound: 8,16 is a ring of 8 and a ring of 16), in every command.
 * `run --shape 8,8` once meant 8x8 while `sweep --shape 8,8` meant the ring
 * of 8 (twice): a command that takes one shape refuses a comma, and a list
 * that names the same ring twice is refused, both naming the two spellings. */
Test(spec, a_comma_separates_shapes_in_every_command)
{
	char dir[64];
	th_tmpdir(dir, sizeof dir);
	th_usage_error(dir, TH_ARGS("run", "--shape", "8,8", "--json", "o.json"), "write 8x8 for one 8x8 torus");
	th_usage_error(dir, TH_ARGS("run", "--shape", "4,6,2", "--json", "o.json"), "write 4x6x2 for one 4x6x2 torus");
	th_usage_error(dir, TH_ARGS("search", "--shape", "4,4", "--ldiff", "4", "--mean", "2", "--out", "w.npy"),
	               "write 4x4 for one 4x4 torus");
	th_usage_error(dir, TH_ARGS("sweep", "--results", "r.jsonl", "--shape", "8,8"), "write 8x8 for one 8x8 torus");
	th_usage_error(dir, TH_ARGS("bound", "--out", "b", "--shape", "16,16"), "write 16x16 for one 16x16 torus");
	lbt_spec sp;
	lbt_err e;
	lbt_spec_init(&sp);
	cr_assert_neq(lbt_spec_add(&sp, LBT_AX_SHAPE, "8, 8", &e), LBT_OK, "8, 8 accepted");
	cr_assert(strstr(e.msg, "8x8") && strstr(e.msg, "ring"), "%s", e.msg);
	lbt_spec_free(&sp);
	/* the list meaning, as documented */
	items(LBT_AX_SHAPE, "8,16", "8 16");
	items(LBT_AX_SHAPE, "8, 16,32", "8 16 32");
	items(LBT_AX_SHAPE, "16, 16x16,ring:16", "16 16x16 16");
	items(LBT_AX_SHAPE, "8x8,8", "8x8 8");
	char *out, *err;
	cr_assert_eq(th_cli(dir, TH_ARGS("run", "--shape", "8x8", "--json", "o.json"), &out, &err), 0, "%s", err);
	free(out);
	free(err);
	th_rm_tree(dir);
}

/* Issue 31, item 1: a results file whose last line is a whole record
 * without its newline (another tool, an editor, head -c) keeps it: the
 * newline is added and the run is not repeated. A last line that does not
 * parse is moved to RESULTS.torn, never deleted. */
Test(sweep, a_last_record_without_its_newline_is_kept_a_torn_line_set_aside, .timeout = 60)
{
	char dir[64], res[128], other[128], torn[160];
	th_tmpdir(dir, sizeof dir);
	snprintf(res, sizeof res, "%s/c.jsonl", dir);
	snprintf(other, sizeof other, "%s/o.jsonl", dir);
	snprintf(torn, sizeof torn, "%s/c.jsonl.torn", dir);
	char *err;
	cr_assert_eq(th_cli(NULL, TH_ARGS("sweep", "--results", res, "--shape", "4", "--init", "worst:1..3", "--quiet"), NULL, &err),
	             0, "%s", err);
	free(err);
	cr_assert_eq(th_cli(NULL, TH_ARGS("sweep", "--results", other, "--shape", "6", "--init", "worst:1", "--quiet"), NULL, &err),
	             0, "%s", err);
	free(err);
	size_t n, m;
	char *three = th_read(res, &n), *rec = th_read(other, &m);
	FILE *f = fopen(res, "a");
	fwrite(rec, 1, m - 1, f); /* another sweep's record, without its newline */
	fclose(f);
	cr_assert_eq(th_cli(NULL, TH_ARGS("sweep", "--results", res, "--shape", "4", "--init", "worst:1"), NULL, &err), 0, "%s", err);
	char *now = th_read(res, NULL);
	cr_assert(!strncmp(now, three, n) && !strncmp(now + n, rec, m) && !now[n + m], "the record was not kept whole:\n%s\n(%s)",
	          now, err);
	cr_assert(strstr(err, "newline"), "%s", err);
	cr_assert(access(torn, F_OK), "nothing is torn");
	free(err);
	free(now);
	/* a torn line: set aside, the same bytes */
	f = fopen(res, "a");
	fwrite(rec, 1, m / 2, f);
	fclose(f);
	cr_assert_eq(th_cli(NULL, TH_ARGS("sweep", "--results", res, "--shape", "4", "--init", "worst:1"), NULL, &err), 0, "%s", err);
	free(err);
	now = th_read(res, NULL);
	cr_assert(!strncmp(now, three, n) && !strncmp(now + n, rec, m) && !now[n + m], "the file lost or gained:\n%s", now);
	char *aside = th_read(torn, NULL);
	cr_assert(!strncmp(aside, rec, m / 2) && aside[m / 2] == '\n' && !aside[m / 2 + 1], "%s", aside);
	free(aside);
	free(now);
	free(three);
	free(rec);
	th_rm_tree(dir);
}

/* Issue 31, item 3, and issue 25, item 5: the first record a sweep cannot
 * append stops it (one line, exit 2), keeping what was written; no run is
 * computed after it to be thrown away. A full disk is emulated with
 * RLIMIT_FSIZE (the results file cannot grow past its size: EFBIG), which
 * works as root and as any user. */
Test(sweep, a_full_disk_stops_the_sweep_at_the_first_failed_append, .timeout = 120)
{
	char dir[64], res[128];
	th_tmpdir(dir, sizeof dir);
	snprintf(res, sizeof res, "%s/r.jsonl", dir);
	char *err;
	cr_assert_eq(th_cli(NULL, TH_ARGS("sweep", "--results", res, "--shape", "8", "--init", "worst:1", "--quiet"), NULL, &err), 0,
	             "%s", err);
	free(err);
	size_t n;
	char *before = th_read(res, &n);
	struct rlimit old, lim;
	cr_assert(!getrlimit(RLIMIT_FSIZE, &old));
	lim = old;
	lim.rlim_cur = n + 100; /* room for a part of one more record */
	signal(SIGXFSZ, SIG_IGN); /* then write() fails with EFBIG; the child inherits both */
	cr_assert(!setrlimit(RLIMIT_FSIZE, &lim));
	int rc = th_cli(NULL, TH_ARGS("sweep", "--results", res, "--shape", "8", "--init", "worst:1,uniform:0:9", "--seed", "1..40",
	                              "--jobs", "1", "--quiet"), NULL, &err);
	cr_assert(!setrlimit(RLIMIT_FSIZE, &old));
	signal(SIGXFSZ, SIG_DFL);
	char *after = th_read(res, NULL);
	cr_assert_str_eq(after, before, "the records written before were changed");
	cr_assert_eq(rc, 2, "exit %d: %s", rc, err);
	size_t len = strlen(err);
	cr_assert(len && err[len - 1] == '\n' && !strchr(err, '\n')[1], "want one line: %s", err);
	cr_assert(strstr(err, "cannot append") && strstr(err, "stopped") && strstr(err, "1 of 41"), "%s", err);
	free(err);
	free(before);
	free(after);
	th_rm_tree(dir);
}

/* sweep --warmup: runs with a workload leave steps 1..N out of sqdev_mean,
 * and N is part of their key (only then: a sweep without --warmup keeps
 * its keys, so results files from before still resume); a method item with
 * several parameters runs the method with all of them. */
Test(sweep, warmup_and_several_parameters_per_method, .timeout = 120)
{
	char dir[64], p[160];
	th_tmpdir(dir, sizeof dir);
	char *so, *se;
	cr_assert_eq(th_cli(dir, TH_ARGS("sweep", "--results", "d.jsonl", "--method",
	                                 "luling-monien:delta=2:f=1.5,luling-monien:f=1.5:delta=2,fos", "--shape", "8x8",
	                                 "--init", "const:0", "--workload", "cybenko:poisson:1:1", "--until", "steps:60",
	                                 "--warmup", "20", "--quiet"), &so, &se), 0, "%s", se);
	free(so), free(se);
	lbt_jsonl l;
	lbt_err e;
	snprintf(p, sizeof p, "%s/d.jsonl", dir);
	cr_assert_eq(lbt_jsonl_load(&l, p, &e), 0, "%s", e.msg);
	cr_assert_eq(l.n, 2, "the two spellings of one item are one run");
	for (int64_t i = 0; i < l.n; i++) {
		const lbt_jobj *o = &l.rec[i];
		double v;
		cr_assert(strstr(lbt_jobj_str(o, "run_key"), " workload=cybenko:poisson:1:1 warmup=20 max_steps="), "%s",
		          lbt_jobj_str(o, "run_key"));
		cr_assert(lbt_jobj_num(o, "warmup", &v) && v == 20);
		cr_assert(lbt_jobj_num(o, "sqdev_steps", &v) && v == 60 - 20, "steps 21..60 averaged");
		if (!strcmp(lbt_jobj_str(o, "method"), "luling-monien")) {
			cr_assert(lbt_jobj_num(o, "delta", &v) && v == 2, "delta as given");
			cr_assert(lbt_jobj_num(o, "f", &v) && v == 1.5, "f as given");
		}
	}
	lbt_jsonl_free(&l);
	/* without --warmup the key has no warmup, as before */
	cr_assert_eq(th_cli(dir, TH_ARGS("sweep", "--results", "x.jsonl", "--shape", "8x8", "--init", "const:0",
	                                 "--workload", "cybenko:poisson:1:1", "--until", "steps:5", "--dry-run"), &so, &se), 0);
	cr_assert(strstr(so, " workload=cybenko:poisson:1:1 max_steps=1000000 seed=1\n"), "%s", so);
	free(so), free(se);
	th_rm_tree(dir);
}

/* A results file written before records carried their provenance resumes:
 * its records are recognised by their keys (which hold no date, host or
 * command), nothing runs again, and report reads old and new records alike. */
Test(sweep, records_without_provenance_still_resume_and_report, .timeout = 120)
{
	char dir[64], p[160];
	th_tmpdir(dir, sizeof dir);
	char *so, *se;
	cr_assert_eq(th_cli(dir, TH_ARGS("sweep", "--results", "r.jsonl", "--shape", "8", "--init", "uniform:0:9",
	                                 "--seed", "1..3", "--quiet"), &so, &se), 0, "%s", se);
	free(so), free(se);
	snprintf(p, sizeof p, "%s/r.jsonl", dir);
	char *all = th_read(p, NULL);
	FILE *f = fopen(p, "w");
	for (char *line = strtok(all, "\n"); line; line = strtok(NULL, "\n")) { /* cut off from "format" on */
		char *cut = strstr(line, ",\"format\":");
		cr_assert(cut, "%s", line);
		fprintf(f, "%.*s}\n", (int)(cut - line), line);
	}
	fclose(f);
	free(all);
	cr_assert_eq(th_cli(dir, TH_ARGS("sweep", "--results", "r.jsonl", "--shape", "8", "--init", "uniform:0:9",
	                                 "--seed", "1..4", "--quiet"), &so, &se), 0, "%s", se);
	free(so), free(se);
	cr_assert_eq(th_count_lines(p), 4, "only seed 4 ran");
	cr_assert_eq(th_cli(dir, TH_ARGS("report", "r.jsonl", "--out", "-"), &so, &se), 0, "%s", se);
	cr_assert(strstr(so, "| 8 | 8 | torus | uniform:0:9 | balanced | 4 | 4/4 |"), "%s", so);
	cr_assert(strstr(so, " 3 records carry no provenance (written before version 3 of the formats)."), "%s", so);
	free(so), free(se);
	th_rm_tree(dir);
}

/* test_outputs.c — what an output name may be (issue 14, item 5): a device
 * or a FIFO is written through and never replaced, a symbolic link is
 * followed (the file it names is replaced, the link stays), a directory is
 * refused; no temporary is left beside any of them. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "helpers.h"
#include "core/sha256.h"
#include "out/jsonl.h"

static int hidden(const char *dir)
{
	DIR *d = opendir(dir);
	cr_assert(d);
	int n = 0;
	struct dirent *de;
	while ((de = readdir(d)))
		n += de->d_name[0] == '.' && strcmp(de->d_name, ".") && strcmp(de->d_name, "..");
	closedir(d);
	return n;
}

Test(outputs, links_are_followed_and_stay_links)
{
	char dir[64], p[160], q[160];
	th_tmpdir(dir, sizeof dir);
	snprintf(p, sizeof p, "%s/real.json", dir);
	FILE *f = fopen(p, "w");
	fputs("old\n", f);
	fclose(f);
	snprintf(q, sizeof q, "%s/link.json", dir);
	cr_assert(!symlink("real.json", q));
	snprintf(q, sizeof q, "%s/dangling.csv", dir);
	cr_assert(!symlink("new.csv", q));
	cr_assert_eq(th_cli(dir, TH_ARGS("run", "--shape", "8", "--json", "link.json", "--trace", "dangling.csv"), NULL, NULL), 0);
	struct stat sb;
	snprintf(q, sizeof q, "%s/link.json", dir);
	cr_assert(!lstat(q, &sb) && S_ISLNK(sb.st_mode), "the link was replaced by a file");
	char *s = th_read(p, NULL);
	cr_assert(!strncmp(s, "{\"lbtorus\"", 10), "the file the link names holds the summary: %s", s);
	free(s);
	snprintf(q, sizeof q, "%s/dangling.csv", dir);
	cr_assert(!lstat(q, &sb) && S_ISLNK(sb.st_mode));
	snprintf(q, sizeof q, "%s/new.csv", dir);
	s = th_read(q, NULL);
	cr_assert(!strncmp(th_csv_body(s), "step,", 5), "%s", s);
	free(s);
	cr_assert_eq(hidden(dir), 0, "a temporary was left");
	th_rm_tree(dir);
}

Test(outputs, fifos_and_devices_are_written_through)
{
	char dir[64], p[160];
	th_tmpdir(dir, sizeof dir);
	snprintf(p, sizeof p, "%s/pipe", dir);
	cr_assert(!mkfifo(p, 0600));
	int rd = open(p, O_RDONLY | O_NONBLOCK); /* a reader, so the writer's open does not block */
	cr_assert(rd >= 0);
	char *err;
	cr_assert_eq(th_cli(dir, TH_ARGS("run", "--shape", "8", "--json", "pipe"), NULL, &err), 0, "%s", err);
	free(err);
	char buf[64] = "";
	cr_assert(read(rd, buf, sizeof buf - 1) > 10 && !strncmp(buf, "{\"lbtorus\"", 10), "the summary came through the FIFO: %s",
	          buf);
	close(rd);
	struct stat sb;
	cr_assert(!lstat(p, &sb) && S_ISFIFO(sb.st_mode), "the FIFO was replaced");
	cr_assert_eq(th_cli(dir, TH_ARGS("run", "--shape", "8", "--json", "/dev/null", "--dump", "/dev/null"), NULL, &err), 2,
	                    "the same file twice is refused");
	free(err);
	cr_assert_eq(th_cli(dir, TH_ARGS("run", "--shape", "8", "--json", "/dev/null", "--trace", "/dev/stderr"), NULL, &err), 0,
	             "%s", err);
	cr_assert(strstr(err, "step,shifts,max"), "the trace went to stderr: %s", err);
	free(err);
	cr_assert(!stat("/dev/null", &sb) && S_ISCHR(sb.st_mode), "/dev/null is still a device");
	cr_assert_eq(hidden(dir), 0, "a temporary was left");
	th_rm_tree(dir);
}

/* Issue 25, item 5: every writing command on a nearly full disk. A small
 * tmpfs is mounted over a fresh directory (root) and filled to leave 0, 4
 * KiB and 60 KiB; without the privilege to mount, RLIMIT_FSIZE stands in
 * (a file cannot grow past that many bytes, 1 KiB at least so that the
 * captured stderr holds its line: EFBIG), which the log says. Each
 * command either succeeds or fails with exit 2 and one line; on failure
 * the outputs it would replace are as they were (names, sizes, times), and
 * no temporary is left. */
static int mounted;

static void squeeze(const char *dir, long room)
{
	struct statvfs vs;
	char filler[160];
	snprintf(filler, sizeof filler, "%s/.filler", dir);
	unlink(filler);
	cr_assert(!statvfs(dir, &vs));
	long avail = (long)(vs.f_bavail * vs.f_frsize);
	FILE *f = fopen(filler, "w");
	cr_assert(f);
	static char zero[4096];
	for (long left = avail - room; left > 0; left -= (long)sizeof zero)
		if (fwrite(zero, 1, left < (long)sizeof zero ? (size_t)left : sizeof zero, f) == 0)
			break;
	fclose(f);
}

/* The state of dir's visible entries (th_dir_state without the filler). */
static char *visible(const char *dir)
{
	char *s = th_dir_state(dir), *at = strstr(s, ".filler ");
	if (at) {
		char *nl = strchr(at, '\n');
		memmove(at, nl + 1, strlen(nl + 1) + 1);
	}
	return s;
}

static void one_command(const char *dir, const char *out, const char *const *argv, long room)
{
	const int appends = !strcmp(argv[0], "sweep"); /* its results file grows by whole records */
	char res[200];
	snprintf(res, sizeof res, "%s/s.jsonl", dir);
	char *before = appends ? th_read(res, NULL) : visible(out), *err;
	struct rlimit old, lim;
	if (!mounted) {
		cr_assert(!getrlimit(RLIMIT_FSIZE, &old));
		lim = old;
		lim.rlim_cur = (rlim_t)(room < 1024 ? 1024 : room); /* the captured stderr is a file too */
		signal(SIGXFSZ, SIG_IGN);
		cr_assert(!setrlimit(RLIMIT_FSIZE, &lim));
	} else
		squeeze(dir, room);
	int rc = th_cli(dir, argv, NULL, &err);
	if (!mounted)
		cr_assert(!setrlimit(RLIMIT_FSIZE, &old));
	char *after = appends ? th_read(res, NULL) : visible(out);
	if (appends) { /* the old records stay, and only whole new ones follow */
		size_t n = strlen(before), m = strlen(after);
		cr_assert(!strncmp(after, before, n) && after[m - 1] == '\n', "sweep, %ld bytes free: the records changed", room);
		after[n] = 0;
	}
	cr_assert(rc == 0 || rc == 2, "%s with %ld bytes free: exit %d: %s", argv[0], room, rc, err);
	if (rc) {
		size_t len = strlen(err);
		cr_assert(len && err[len - 1] == '\n' && !strchr(err, '\n')[1], "%s, %ld bytes free: want one line: %s", argv[0],
		          room, err);
		cr_assert_str_eq(after, before, "%s, %ld bytes free (%s): the old outputs changed", argv[0], room, err);
	}
	cr_assert_eq(hidden(out) - (mounted && !strcmp(out + strlen(out) - 2, "/.")), 0, "%s, %ld bytes free: a temporary was left in %s", argv[0],
	             room, out);
	free(before);
	free(after);
	free(err);
}

Test(outputs, every_writing_command_on_a_nearly_full_disk, .timeout = 300)
{
	char dir[64], src[64], p[200];
	th_tmpdir(dir, sizeof dir);
	th_tmpdir(src, sizeof src);
	/* in a mount namespace of its own, so a failed test leaves no mount behind */
	mounted = geteuid() == 0 && !unshare(CLONE_NEWNS) && !mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) &&
	          !mount("tmpfs", dir, "tmpfs", 0, "size=1m");
	if (!mounted)
		cr_log_warn("outputs: cannot mount a tmpfs (%s): a full disk is emulated with RLIMIT_FSIZE",
		            geteuid() ? "not root" : strerror(errno));
	char *err;
	snprintf(p, sizeof p, "%s/runs.jsonl", src);
	cr_assert_eq(th_cli(NULL, TH_ARGS("sweep", "--results", p, "--shape", "8,16", "--init", "uniform:1:9", "--seed", "1..2",
	                                  "--quiet"), NULL, &err), 0, "%s", err);
	free(err);
	/* the earlier, good outputs each command would replace */
	static const char *const first[][12] = {
		{"reproduce", "table3", "--out", "rp", "--quiet", NULL},
		{"bound", "--from", "RUNS", "--out", "bd", NULL},
		{"run", "--shape", "8", "--json", "o.json", "--trace", "t.csv", "--dump", "d.npy", NULL},
		{"report", "RUNS", "--out", "rep.md", NULL},
		{"search", "--shape", "8", "--ldiff", "4", "--mean", "3", "--out", "w.npy", "--quiet", NULL},
		{"bench", "--sizes", "8", "--methods", "lm-c5", "--isa", "scalar", "--threads", "1", "--no-headline", "--json", NULL},
		{"sweep", "--results", "s.jsonl", "--shape", "8", "--init", "uniform:0:9", "--seed", "1..30", "--quiet", NULL},
		{"run", "--shape", "32x32", "--until", "steps:4", "--every", "2", "--snapshots", "sn", "--json", "o2.json", NULL},
	};
	static const char *const outdir[] = {"rp", "bd", ".", ".", ".", ".", ".", "sn"};
	static const long rooms[] = {0, 4096, 61440};
	for (size_t r = 0; r < sizeof rooms / sizeof *rooms; r++)
		for (size_t i = 0; i < sizeof first / sizeof *first; i++) {
			const char *argv[16] = {0};
			int n = 0;
			for (; first[i][n]; n++)
				argv[n] = !strcmp(first[i][n], "RUNS") ? p : first[i][n];
			if (!strcmp(argv[0], "bench"))
				argv[n++] = "b.json";
			if (mounted)
				squeeze(dir, 1 << 19);
			if (r == 0) { /* the good set, once */
				cr_assert_eq(th_cli(dir, argv, NULL, &err), 0, "%s: %s", argv[0], err);
				free(err);
			}
			char out[200];
			snprintf(out, sizeof out, "%s/%s", dir, outdir[i]);
			if (!strcmp(argv[0], "sweep")) /* a new seed to append */
				argv[8] = rooms[r] == 0 ? "31..40" : rooms[r] == 4096 ? "41..50" : "51..60";
			one_command(dir, out, argv, rooms[r]);
		}
	if (mounted)
		umount2(dir, MNT_DETACH);
	th_rm_tree(dir);
	th_rm_tree(src);
}

/* Issue 31, item 15: one failure, one line. A full stdout was reported by
 * the command and again by the process's last flush; libpng printed its own
 * "Write Error" before lbtorus's line. */
static void one_line(const char *shell, const char *what)
{
	char cmd[600], errf[] = "/tmp/lbt_errXXXXXX";
	int fd = mkstemp(errf);
	cr_assert(fd >= 0);
	close(fd);
	snprintf(cmd, sizeof cmd, "%s 2> %s", shell, errf);
	int st = system(cmd);
	char *err = th_read(errf, NULL);
	unlink(errf);
	cr_assert(st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 2, "%s: status %d: %s", what, st, err);
	size_t len = strlen(err);
	cr_assert(len && err[len - 1] == '\n' && !strchr(err, '\n')[1], "%s: want one line, got:\n%s", what, err);
	free(err);
}

Test(outputs, one_failure_one_line, .timeout = 120)
{
	char dir[64], cmd[400];
	th_tmpdir(dir, sizeof dir);
	snprintf(cmd, sizeof cmd, "cd %s && \"$LBTORUS\" sweep --results r.jsonl --shape 8 --quiet", dir);
	cr_assert_eq(system(cmd), 0);
	one_line("\"$LBTORUS\" run --shape 8 > /dev/full", "run > /dev/full");
	snprintf(cmd, sizeof cmd, "\"$LBTORUS\" report %s/r.jsonl --out - > /dev/full", dir);
	one_line(cmd, "report --out - > /dev/full");
	/* snapshots where a PNG cannot be written: ulimit -f 1 (512-byte blocks) lets a file hold 512 bytes */
	snprintf(cmd, sizeof cmd, "cd %s && ulimit -f 1 && trap '' XFSZ && \"$LBTORUS\" run --shape 64x64 --init worst:5 "
	         "--until steps:2 --snapshots snaps --json o.json > /dev/null", dir);
	one_line(cmd, "--snapshots, files of at most 512 bytes");
	th_rm_tree(dir);
}

/* Provenance (docs/formats.md, version 3): every output of run, sweep,
 * bound, reproduce and report says which build, machine, time and command
 * made it. The values are checked against what the test itself knows: the
 * host name, the clock around the command, the arguments it gave, and the
 * checksums `sha256sum` computes. */
static void sha256sum(const char *path, char hex[65])
{
	char cmd[600];
	snprintf(cmd, sizeof cmd, "sha256sum '%s'", path);
	FILE *p = popen(cmd, "r");
	cr_assert(p && fscanf(p, "%64s", hex) == 1, "sha256sum %s", path);
	pclose(p);
}

static void check_provenance(const lbt_jobj *o, const char *what, const char *args, time_t t0, time_t t1)
{
	double v;
	cr_assert(lbt_jobj_num(o, "format", &v) && v == LBT_FORMATS_VERSION, "%s: format", what);
	static const char *const text[] = {"git", "compiler", "cflags", "cpu", "host", "date_utc", "command"};
	for (size_t i = 0; i < sizeof text / sizeof *text; i++) {
		const char *s = lbt_jobj_str(o, text[i]);
		cr_assert(s && *s, "%s: no %s", what, text[i]);
	}
	char host[256] = "";
	gethostname(host, sizeof host);
	cr_assert_str_eq(lbt_jobj_str(o, "host"), host, "%s: host", what);
	struct tm tm = {0};
	const char *d = lbt_jobj_str(o, "date_utc");
	cr_assert(strptime(d, "%Y-%m-%dT%H:%M:%SZ", &tm), "%s: date_utc %s is not ISO 8601 UTC", what, d);
	time_t t = timegm(&tm);
	cr_assert(t >= t0 && t <= t1, "%s: date_utc %s is not the time the command ran", what, d);
	cr_assert(strstr(lbt_jobj_str(o, "command"), args), "%s: command '%s' lacks '%s'", what,
	          lbt_jobj_str(o, "command"), args);
	cr_assert(lbt_jobj_num(o, "ranks", &v) && v == 1, "%s: ranks", what);
	cr_assert(lbt_jobj_str(o, "isa") && lbt_jobj_num(o, "threads", &v) && v >= 1, "%s: isa and threads", what);
}

static void parse_file(lbt_jobj *o, const char *path)
{
	char *s = th_read(path, NULL);
	lbt_err e;
	cr_assert_eq(lbt_jobj_parse(o, s, &e), 0, "%s: %s", path, e.msg);
	free(s);
}

/* The "# key: value" comment lines of a text output (a .dat, a .gp) as one
 * JSON object for check_provenance: a value of digits a number, else a string. */
static void parse_comments(lbt_jobj *o, const char *path)
{
	char *s = th_read(path, NULL), *j = malloc(2 * strlen(s) + 3), *w = j;
	*w++ = '{';
	for (char *l = s; *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : l + strlen(l)) {
		size_t k = strspn(l + 2, "abcdefghijklmnopqrstuvwxyz0123456789_");
		if (strncmp(l, "# ", 2) || !k || strncmp(l + 2 + k, ": ", 2))
			continue;
		const char *v = l + 4 + k;
		size_t n = strcspn(v, "\n"), d = strspn(v, "0123456789");
		w += sprintf(w, "%s\"%.*s\":", w - j > 1 ? "," : "", (int)k, l + 2);
		if (d && d == n)
			w += sprintf(w, "%.*s", (int)n, v);
		else {
			*w++ = '"';
			for (size_t i = 0; i < n; i++) {
				if (v[i] == '"' || v[i] == '\\')
					*w++ = '\\';
				*w++ = v[i];
			}
			*w++ = '"';
		}
	}
	strcpy(w, "}");
	lbt_err e;
	cr_assert_eq(lbt_jobj_parse(o, j, &e), 0, "%s: %s in %s", path, e.msg, j);
	free(j);
	free(s);
}

/* Every .dat and .gp in dir (a plot's data and script, wherever a command
 * draws one) carries the provenance in comment lines; how many there are. */
static int plot_files_carry_provenance(const char *dir, const char *args, time_t t0, time_t t1)
{
	DIR *d = opendir(dir);
	cr_assert(d, "%s", dir);
	struct dirent *de;
	int n = 0;
	while ((de = readdir(d))) {
		size_t len = strlen(de->d_name);
		if (de->d_name[0] == '.' || !((len > 4 && !strcmp(de->d_name + len - 4, ".dat")) ||
		                              (len > 3 && !strcmp(de->d_name + len - 3, ".gp"))))
			continue;
		char p[600];
		snprintf(p, sizeof p, "%s/%s", dir, de->d_name);
		lbt_jobj o = {0};
		parse_comments(&o, p);
		check_provenance(&o, p, args, t0, t1);
		lbt_jobj_free(&o);
		n++;
	}
	closedir(d);
	return n;
}

Test(outputs, every_output_carries_its_provenance, .timeout = 300)
{
	char dir[64], p[200], q[200], hex[65];
	th_tmpdir(dir, sizeof dir);
	lbt_jobj o = {0};
	char *so, *se;
	/* run: the JSON (until as given, the init file's checksum) and the trace's header */
	int32_t loads[8] = {9, 0, 0, 0, 0, 0, 0, 7};
	snprintf(p, sizeof p, "%s/w.npy", dir);
	th_write_npy(p, 1, "{'descr': '<i4', 'fortran_order': False, 'shape': (8,), }", 0, loads, sizeof loads);
	time_t t0 = time(NULL);
	cr_assert_eq(th_cli(dir, TH_ARGS("run", "--init", "file:w.npy", "--method", "fos", "--until", "rel:0.01",
	                                 "--json", "r.json", "--trace", "t.csv", "--quiet"), &so, &se), 0, "%s", se);
	time_t t1 = time(NULL);
	snprintf(q, sizeof q, "%s/r.json", dir);
	parse_file(&o, q);
	check_provenance(&o, "run", "run --init file:w.npy --method fos --until rel:0.01", t0, t1);
	cr_assert_str_eq(lbt_jobj_str(&o, "until"), "rel:0.01", "the criterion as given");
	sha256sum(p, hex);
	cr_assert_str_eq(lbt_jobj_str(&o, "init_sha256"), hex);
	snprintf(q, sizeof q, "%s/t.csv", dir);
	char *t = th_read(q, NULL);
	cr_assert(!strncmp(t, "# lbtorus: ", 11) && strstr(t, "\n# command: ") && strstr(t, "\n# date_utc: ") &&
	          strstr(t, "\n# git: ") && strstr(t, "\n# cpu: ") && strstr(t, "\n# host: ") && strstr(t, "\nstep,shifts,"),
	          "the trace's header:\n%.600s", t);
	free(t), free(so), free(se);

	/* sweep: every record, with the spec file's checksum */
	snprintf(p, sizeof p, "%s/s.spec", dir);
	FILE *f = fopen(p, "w");
	fputs("shape = 8\nseed = 1..2\ninit = uniform:0:9\n", f);
	fclose(f);
	t0 = time(NULL);
	cr_assert_eq(th_cli(dir, TH_ARGS("sweep", "--results", "s.jsonl", "--spec", "s.spec", "--quiet"), &so, &se), 0, "%s", se);
	t1 = time(NULL);
	free(so), free(se);
	lbt_jsonl l;
	lbt_err e;
	snprintf(q, sizeof q, "%s/s.jsonl", dir);
	cr_assert_eq(lbt_jsonl_load(&l, q, &e), 0, "%s", e.msg);
	cr_assert_eq(l.n, 2);
	sha256sum(p, hex);
	for (int64_t i = 0; i < l.n; i++) {
		check_provenance(&l.rec[i], "sweep", "sweep --results s.jsonl --spec s.spec", t0, t1);
		cr_assert_str_eq(lbt_jobj_str(&l.rec[i], "spec_sha256"), hex);
	}
	lbt_jsonl_free(&l);

	/* report: its provenance, machine-readable in a comment */
	t0 = time(NULL);
	cr_assert_eq(th_cli(dir, TH_ARGS("report", "s.jsonl"), &so, &se), 0, "%s", se);
	t1 = time(NULL);
	free(so), free(se);
	snprintf(q, sizeof q, "%s/report.md", dir);
	char *md = th_read(q, NULL);
	char *c = strstr(md, "<!-- provenance ");
	cr_assert(c && strstr(c, " -->"), "%s", md);
	*strstr(c, " -->") = 0;
	cr_assert_eq(lbt_jobj_parse(&o, c + 16, &e), 0, "%s", e.msg);
	check_provenance(&o, "report", "report s.jsonl", t0, t1);
	cr_assert(strstr(md, "## Provenance\n\nThe records were made by git "), "%s", md);
	free(md);

	/* bound: bound.json and the manifest of its directory */
	t0 = time(NULL);
	cr_assert_eq(th_cli(dir, TH_ARGS("bound", "--out", "b", "--shape", "ring:8..16*2", "--init", "uniform:1:8",
	                                 "--seed", "1"), &so, &se), 0, "%s", se);
	t1 = time(NULL);
	free(so), free(se);
	snprintf(q, sizeof q, "%s/b/bound.json", dir);
	parse_file(&o, q);
	check_provenance(&o, "bound.json", "bound --out b", t0, t1);
	snprintf(q, sizeof q, "%s/b/bound.manifest.json", dir);
	parse_file(&o, q);
	check_provenance(&o, "bound's manifest", "bound --out b", t0, t1);
	snprintf(q, sizeof q, "%s/b/bound.csv", dir);
	sha256sum(q, hex);
	cr_assert_str_eq(lbt_jobj_str(&o, "file:bound.csv"), hex);
	snprintf(q, sizeof q, "%s/b", dir);
	cr_assert_geq(plot_files_carry_provenance(q, "bound --out b", t0, t1), 6, "bound's three plots");

	/* plot: its data and script (the fits are JSON, the means a CSV with the provenance) */
	snprintf(q, sizeof q, "%s/pl", dir);
	cr_assert(!mkdir(q, 0700));
	t0 = time(NULL);
	/* a title of two lines: the comments stay one line each (a control character as \xHH) */
	cr_assert_eq(th_cli(dir, TH_ARGS("plot", "s.jsonl", "--x", "seed", "--y", "steps", "--out", "pl/f", "--title", "a\nb c"),
	                    &so, &se), 0, "%s", se);
	t1 = time(NULL);
	free(so), free(se);
	snprintf(q, sizeof q, "%s/pl", dir);
	cr_assert_eq(plot_files_carry_provenance(q, "plot s.jsonl --x seed --y steps --out pl/f --title 'a\\x0ab c'", t0, t1), 2);
	snprintf(q, sizeof q, "%s/pl/f.dat", dir);
	char *dat = th_read(q, NULL);
	cr_assert(strstr(dat, "# lbtorus plot data: a\\x0ab c\n") && !strstr(dat, "\nb c"), "%s", dat);
	free(dat);

	/* search: its record (a .npy has no room for it: the record gives its checksum) */
	t0 = time(NULL);
	cr_assert_eq(th_cli(dir, TH_ARGS("search", "--shape", "8", "--ldiff", "4", "--mean", "3", "--out", "w8.npy", "--moves",
	                                 "50", "--quiet"), &so, &se), 0, "%s", se);
	t1 = time(NULL);
	cr_assert_eq(lbt_jobj_parse(&o, so, &e), 0, "%s: %s", so, e.msg);
	check_provenance(&o, "search", "search --shape 8 --ldiff 4", t0, t1);
	snprintf(q, sizeof q, "%s/w8.npy", dir);
	sha256sum(q, hex);
	cr_assert_str_eq(lbt_jobj_str(&o, "npy_sha256"), hex);
	free(so), free(se);

	/* reproduce: the manifest of its directory */
	t0 = time(NULL);
	cr_assert_eq(th_cli(dir, TH_ARGS("reproduce", "table3", "--out", "r", "--quiet", "--threads", "1"), &so, &se), 0,
	             "%s", se);
	t1 = time(NULL);
	free(so), free(se);
	snprintf(q, sizeof q, "%s/r/table3.manifest.json", dir);
	parse_file(&o, q);
	check_provenance(&o, "reproduce's manifest", "reproduce table3 --out r", t0, t1);
	snprintf(q, sizeof q, "%s/r/table3.csv", dir);
	sha256sum(q, hex);
	cr_assert_str_eq(lbt_jobj_str(&o, "file:table3.csv"), hex);
	cr_assert_eq(th_cli(dir, TH_ARGS("reproduce", "fig6", "--out", "r6", "--quick", "--quiet", "--threads", "1"), &so, &se), 0,
	             "%s", se);
	t1 = time(NULL);
	free(so), free(se);
	snprintf(q, sizeof q, "%s/r6", dir);
	cr_assert_geq(plot_files_carry_provenance(q, "reproduce fig6 --out r6", t0, t1), 2, "fig6's plot");
	lbt_jobj_free(&o);
	th_rm_tree(dir);
}

/* The checksums are SHA-256 as `sha256sum` computes it, across the padding's
 * boundaries (a message of 55 bytes pads within its block, 56 needs another)
 * and FIPS 180-4's example "abc". */
Test(outputs, checksums_are_sha256)
{
	char dir[64], p[160], hex[65], want[65];
	th_tmpdir(dir, sizeof dir);
	lbt_err e;
	static const size_t sizes[] = {0, 3, 55, 56, 63, 64, 65, 119, 120, 1000, 70000};
	for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
		snprintf(p, sizeof p, "%s/f%zu", dir, sizes[k]);
		FILE *f = fopen(p, "wb");
		for (size_t i = 0; i < sizes[k]; i++)
			fputc(sizes[k] == 3 ? "abc"[i] : (int)(i * 7 % 251), f);
		fclose(f);
		cr_assert_eq(lbt_sha256_file(p, hex, &e), 0, "%s", e.msg);
		sha256sum(p, want);
		cr_assert_str_eq(hex, want, "%zu bytes", sizes[k]);
	}
	snprintf(p, sizeof p, "%s/f3", dir);
	lbt_sha256_file(p, hex, &e);
	cr_assert_str_eq(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad", "FIPS 180-4's \"abc\"");
	th_rm_tree(dir);
}

/* A string written into JSON is valid JSON whatever its bytes: a command line
 * or a file name may hold bytes that are not UTF-8. Each byte that does not
 * begin a well-formed sequence (RFC 3629, Table 3-7 of the Unicode Standard:
 * no overlong forms, no surrogates, nothing above U+10FFFF) becomes U+FFFD;
 * the expected strings below are derived from those rules by hand. */
Test(outputs, json_strings_are_valid_utf8)
{
	static const struct { const char *in, *out; } c[] = {
		{ "plain", "\"plain\"" },
		{ "q\"b\\n\n", "\"q\\\"b\\\\n\\u000a\"" },
		{ "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", "\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"" },
		{ "a\xff" "b", "\"a\\ufffdb\"" },
		{ "\xc0\xaf", "\"\\ufffd\\ufffd\"" },            /* overlong '/' */
		{ "\xe0\x80\xaf", "\"\\ufffd\\ufffd\\ufffd\"" },  /* overlong, 3 bytes */
		{ "\xed\xa0\x80", "\"\\ufffd\\ufffd\\ufffd\"" },  /* surrogate U+D800 */
		{ "\xf4\x90\x80\x80", "\"\\ufffd\\ufffd\\ufffd\\ufffd\"" }, /* > U+10FFFF */
		{ "x\xe2\x82", "\"x\\ufffd\\ufffd\"" },           /* cut short at the end */
		{ "\xe2\x82" "a", "\"\\ufffd\\ufffda\"" },        /* cut short by an ASCII byte */
		{ "\x80", "\"\\ufffd\"" },                        /* a lone continuation */
	};
	for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
		char *buf = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);
		cr_assert(f);
		lbt_json_string(f, c[i].in);
		fclose(f);
		cr_expect_str_eq(buf, c[i].out, "case %zu: got %s", i, buf);
		free(buf);
	}
}

/* io.c — output files: atomic (temp + fsync + rename) for regular files,
 * written through for devices and FIFOs.
 *
 * The temporary file is DIR/.NAME.tmp.HOST.PID beside the file it replaces,
 * so it can be recognised: opening NAME again removes the temporaries of
 * NAME that processes of this host left behind when they were killed
 * (kill -9, a crash) — those whose PID no longer runs. A symbolic link is
 * followed: the file it points to is replaced, the link stays. Names under
 * /dev and /proc are always written through. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lbtorus/io.h"

/* Split path into its directory ("." if none) and base name. */
static void split(const char *path, char *dir, size_t nd, const char **base)
{
	const char *slash = strrchr(path, '/');
	*base = slash ? slash + 1 : path;
	if (!slash)
		snprintf(dir, nd, ".");
	else if (slash == path)
		snprintf(dir, nd, "/");
	else
		snprintf(dir, nd, "%.*s", (int)(slash - path), path);
}

static void host(char *h, size_t n)
{
	if (gethostname(h, n) || !*h)
		snprintf(h, n, "localhost");
	h[n - 1] = 0;
	for (char *c = h; *c; c++)
		if (*c == '/' || *c == '.')
			*c = '_';
}

static int rm_one(const char *p, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb, (void)flag, (void)ftw;
	remove(p);
	return 0;
}

/* Remove a file or a directory tree. */
static void rm_tree(const char *path) { nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS); }

/* Remove DIR/.BASE.tmp.HOST.PID files (or staging directories) whose PID is
 * not running on this host. */
static void remove_stale(const char *dir, const char *base, const char *h)
{
	DIR *d = opendir(dir);
	if (!d)
		return;
	char prefix[4200];
	int n = snprintf(prefix, sizeof prefix, ".%s.tmp.%s.", base, h);
	struct dirent *de;
	while ((de = readdir(d))) {
		if (strncmp(de->d_name, prefix, (size_t)n))
			continue;
		const char *p = de->d_name + n;
		char *end;
		errno = 0;
		long pid = strtol(p, &end, 10);
		if (end == p || *end || errno || pid <= 0 || pid == (long)getpid())
			continue;
		if (kill((pid_t)pid, 0) && errno == ESRCH) {
			char stale[8400];
			snprintf(stale, sizeof stale, "%s/%s", dir, de->d_name);
			rm_tree(stale);
		}
	}
	closedir(d);
}

int lbt_out_tmpname(const char *path, char *tmp, size_t n, lbt_err *e)
{
	char dir[PATH_MAX], h[64];
	const char *base;
	split(path, dir, sizeof dir, &base);
	host(h, sizeof h);
	remove_stale(dir, base, h);
	if ((size_t)snprintf(tmp, n, "%s/.%s.tmp.%s.%ld", dir, base, h, (long)getpid()) >= n)
		return lbt_errf(e, LBT_EINVAL, "output path too long: %.60s...", path);
	return LBT_OK;
}

static const volatile sig_atomic_t *hold;

void lbt_out_hold(const volatile sig_atomic_t *flag) { hold = flag; }
int lbt_out_held(void) { return hold && *hold; }

int lbt_out_open(lbt_outfile *o, const char *path, lbt_err *e)
{
	memset(o, 0, sizeof *o);
	if (!strcmp(path, "-")) {
		o->f = stdout;
		return LBT_OK;
	}
	if (!*path)
		return lbt_errf(e, LBT_EINVAL, "empty output file name");
	if (strlen(path) >= sizeof o->path)
		return lbt_errf(e, LBT_EINVAL, "output path too long: %.60s...", path);
	strcpy(o->path, path);
	struct stat sb, lsb;
	int exists = stat(path, &sb) == 0;
	if (exists && S_ISDIR(sb.st_mode))
		return lbt_errf(e, LBT_EINVAL, "cannot write %s: it is a directory", path);
	int link = lstat(path, &lsb) == 0 && S_ISLNK(lsb.st_mode);
	int special = !strncmp(path, "/dev/", 5) || !strncmp(path, "/proc/", 6);
	if ((exists && !S_ISREG(sb.st_mode)) || (link && !exists) || special) {
		/* a device, a FIFO, a socket, a link to a file not there yet, or a
		 * name under /dev or /proc (/dev/stdout is the file stdout is open
		 * on, whatever it is): write through (nothing to rename, nothing to
		 * remove on failure) */
		o->direct = 1;
		o->f = fopen(path, "w");
		return o->f ? LBT_OK : lbt_errf(e, LBT_EIO, "cannot write %s: %s", path, strerror(errno));
	}
	char target[PATH_MAX];
	if (link) { /* replace the file the link names, keep the link */
		if (!realpath(path, target))
			return lbt_errf(e, LBT_EIO, "cannot write %s: %s", path, strerror(errno));
		if (strlen(target) >= sizeof o->path)
			return lbt_errf(e, LBT_EINVAL, "output path too long: %.60s...", target);
		strcpy(o->path, target);
	}
	int st = lbt_out_tmpname(o->path, o->tmp, sizeof o->tmp, e);
	if (st)
		return st;
	mode_t mask = umask(0); /* give the result a normal file's mode */
	umask(mask);
	int fd = open(o->tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0666 & ~mask);
	if (fd < 0)
		return lbt_errf(e, LBT_EIO, "cannot write %s: %s", path, strerror(errno));
	o->f = fdopen(fd, "w");
	if (!o->f) {
		close(fd);
		unlink(o->tmp);
		return lbt_errf(e, LBT_EIO, "cannot write %s: %s", path, strerror(errno));
	}
	return LBT_OK;
}

int lbt_out_commit(lbt_outfile *o, lbt_err *e)
{
	if (o->f == stdout) {
		if (!fflush(stdout) && !ferror(stdout))
			return LBT_OK;
		/* the caller says so, once: drop what stdout still holds, so
		 * that the process's last flush does not fail and say it again */
		int st = lbt_errf(e, LBT_EIO, "cannot write to stdout: %s", strerror(errno));
		__fpurge(stdout);
		clearerr(stdout);
		return st;
	}
	if (lbt_out_held() && !o->direct) {
		lbt_out_abort(o);
		return lbt_errf(e, LBT_EIO, "interrupted: %s not written", o->path);
	}
	int bad = fflush(o->f) || ferror(o->f) || (!o->direct && fsync(fileno(o->f)));
	int err = errno;
	bad |= fclose(o->f);
	o->f = NULL;
	if (o->direct)
		return bad ? lbt_errf(e, LBT_EIO, "cannot write %s: %s", o->path, strerror(err)) : LBT_OK;
	if (bad || rename(o->tmp, o->path)) {
		if (!bad)
			err = errno;
		unlink(o->tmp);
		return lbt_errf(e, LBT_EIO, "cannot write %s: %s", o->path, strerror(err));
	}
	return LBT_OK;
}

void lbt_out_abort(lbt_outfile *o)
{
	if (o->f && o->f != stdout) {
		fclose(o->f);
		if (!o->direct)
			unlink(o->tmp);
	}
	o->f = NULL;
}

/* Who path is: the device and inode of the file it names (links followed,
 * a dangling link by the name it points to), or, for a file not there yet,
 * those of its directory and its name. 0 if even the directory is missing. */
typedef struct {
	dev_t dev;
	ino_t ino;
	char name[256]; /* empty for an existing file */
} ident;

static int ident_of(const char *path, ident *id)
{
	char p[PATH_MAX], dir[PATH_MAX];
	const char *base;
	struct stat sb;
	snprintf(p, sizeof p, "%s", path);
	for (int hops = 0; hops < 16; hops++) {
		if (!stat(p, &sb)) {
			*id = (ident){.dev = sb.st_dev, .ino = sb.st_ino};
			return 1;
		}
		char to[PATH_MAX];
		ssize_t n = readlink(p, to, sizeof to - 1);
		if (n <= 0)
			break;
		to[n] = 0;
		split(p, dir, sizeof dir, &base);
		if (to[0] == '/' || !strcmp(dir, "."))
			snprintf(p, sizeof p, "%s", to);
		else if ((size_t)snprintf(dir + strlen(dir), sizeof dir - strlen(dir), "/%s", to) < sizeof dir - strlen(dir))
			snprintf(p, sizeof p, "%s", dir);
	}
	split(p, dir, sizeof dir, &base);
	if (stat(dir, &sb) || strlen(base) >= sizeof id->name)
		return 0;
	*id = (ident){.dev = sb.st_dev, .ino = sb.st_ino};
	snprintf(id->name, sizeof id->name, "%s", base);
	return 1;
}

int lbt_same_file(const char *a, const char *b)
{
	ident x, y;
	return a && b && strcmp(a, "-") && strcmp(b, "-") && ident_of(a, &x) && ident_of(b, &y) && x.dev == y.dev &&
	       x.ino == y.ino && !strcmp(x.name, y.name);
}

int lbt_io_distinct(const lbt_io_name *in, int nin, const lbt_io_name *out, int nout, lbt_err *e)
{
	for (int i = 0; i < nout; i++) {
		for (int j = i + 1; j < nout; j++)
			if (lbt_same_file(out[i].path, out[j].path))
				return lbt_errf(e, LBT_EINVAL, "%s %s and %s %s are the same file: give each output its own",
				                out[i].what, out[i].path, out[j].what, out[j].path);
		for (int j = 0; j < nin; j++)
			if (lbt_same_file(out[i].path, in[j].path))
				return lbt_errf(e, LBT_EINVAL, "%s %s is the same file as %s %s: an output must not replace an input",
				                out[i].what, out[i].path, in[j].what, in[j].path);
	}
	return LBT_OK;
}

int lbt_outdir_open(lbt_outdir *d, const char *dir, lbt_err *e)
{
	memset(d, 0, sizeof *d);
	if (!*dir)
		dir = ".";
	char name[4200];
	if ((size_t)snprintf(d->dir, sizeof d->dir, "%s", dir) >= sizeof d->dir ||
	    (size_t)snprintf(name, sizeof name, "%s/lbtorus", dir) >= sizeof name)
		return lbt_errf(e, LBT_EINVAL, "output directory name too long: %.60s...", dir);
	struct stat sb;
	if (!stat(dir, &sb) && !S_ISDIR(sb.st_mode))
		return lbt_errf(e, LBT_EINVAL, "%s exists and is not a directory", dir);
	if (mkdir(dir, 0777)) {
		if (errno != EEXIST)
			return lbt_errf(e, LBT_EIO, "cannot create %s: %s", dir, strerror(errno));
	} else
		d->created = 1;
	int st = lbt_out_tmpname(name, d->stage, sizeof d->stage, e);
	if (!st && mkdir(d->stage, 0777))
		st = lbt_errf(e, LBT_EIO, "cannot write in %s: %s", dir, strerror(errno));
	if (st && d->created)
		rmdir(dir);
	return st;
}

int lbt_outdir_commit(lbt_outdir *d, lbt_err *e)
{
	if (lbt_out_held()) {
		lbt_outdir_abort(d, NULL);
		return lbt_errf(e, LBT_EIO, "interrupted: nothing written to %s", d->dir);
	}
	DIR *s = opendir(d->stage);
	int st = s ? LBT_OK : lbt_errf(e, LBT_EIO, "cannot read %s: %s", d->stage, strerror(errno));
	struct dirent *de;
	while (!st && (de = readdir(s))) {
		if (de->d_name[0] == '.') /* ".", "..", and no temporary is published */
			continue;
		char from[8400], to[8400];
		snprintf(from, sizeof from, "%s/%s", d->stage, de->d_name);
		snprintf(to, sizeof to, "%s/%s", d->dir, de->d_name);
		if (rename(from, to))
			st = lbt_errf(e, LBT_EIO, "cannot move %s into %s: %s", de->d_name, d->dir, strerror(errno));
	}
	if (s)
		closedir(s);
	rm_tree(d->stage);
	d->stage[0] = 0;
	return st;
}

/* Say DIR where a message names the staging directory. */
static void unstage(const lbt_outdir *d, lbt_err *e)
{
	char *at = e && d->stage[0] ? strstr(e->msg, d->stage) : NULL;
	if (!at)
		return;
	char rest[sizeof e->msg];
	snprintf(rest, sizeof rest, "%s", at + strlen(d->stage));
	snprintf(at, sizeof e->msg - (size_t)(at - e->msg), "%s%s", d->dir, rest);
}

void lbt_outdir_abort(lbt_outdir *d, lbt_err *e)
{
	unstage(d, e);
	if (!d->stage[0])
		return;
	rm_tree(d->stage);
	if (d->created)
		rmdir(d->dir); /* only if still empty */
	d->stage[0] = 0;
}

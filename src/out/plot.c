/* plot.c — line plots through gnuplot: STEM.dat, STEM.gp, STEM.png, STEM.svg.
 *
 * Invariants: every file appears whole or not at all (data and script go
 * through lbt_out_*, the pictures are drawn by gnuplot into temporary names
 * beside the target and renamed into place). The script refers to its files
 * by base name and runs in the stem's directory, so a reader can edit and
 * rerun it there. Text reaches gnuplot only inside single-quoted strings
 * (where '' is the one escape) and in noenhanced mode, so labels print as
 * given. gnuplot runs by fork + exec, never through a shell. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lbtorus/io.h"
#include "lbtorus/plot.h"
#include "lbtorus/provenance.h"

static void gp_quote(FILE *f, const char *s)
{
	fputc('\'', f);
	for (; s && *s; s++) {
		if (*s == '\'')
			fputc('\'', f);
		fputc(*s == '\n' ? ' ' : *s, f);
	}
	fputc('\'', f);
}

/* A row of the data file: x usable on its axis; y a value for it or a gap. */
static int plottable(const lbt_axes *ax, double x, double y)
{
	if (!isfinite(x) || (ax->logx && x <= 0))
		return 0;
	return !(isfinite(y) && ax->logy && y <= 0);
}

/* Points of series s that gnuplot can draw (gaps do not count). */
static int64_t kept(const lbt_axes *ax, const lbt_series *s)
{
	int64_t k = 0;
	for (int64_t i = 0; i < s->n; i++)
		k += plottable(ax, s->x[i], s->y[i]) && isfinite(s->y[i]);
	return k;
}

/* "# KEY: TEXT" on one line: a control character of TEXT (a newline in a
 * --title or a group's value) as \xHH, so it cannot start a line of data. */
static void dat_comment(FILE *f, const char *key, const char *text)
{
	fprintf(f, "# %s: ", key);
	for (; text && *text; text++)
		if ((unsigned char)*text < 0x20 || *text == 0x7f)
			fprintf(f, "\\x%02x", (unsigned char)*text);
		else
			fputc(*text, f);
	fputc('\n', f);
}

static int write_dat(const char *path, const lbt_axes *ax, const lbt_series *s, int ns, lbt_err *e)
{
	lbt_outfile o;
	int st = lbt_out_open(&o, path, e);
	if (st)
		return st;
	dat_comment(o.f, "lbtorus plot data", ax->title);
	lbt_provenance_comment(o.f, "", 0); /* which build, machine and command made it */
	dat_comment(o.f, "x", ax->xlabel);
	dat_comment(o.f, "y", ax->ylabel);
	fputs("# one block per series (gnuplot: index N), blocks separated by two blank lines; NaN = no value;\n"
	      "# columns x y, and y_low y_high where the series has error bars\n", o.f);
	int block = 0;
	for (int j = 0; j < ns; j++) {
		if (!kept(ax, &s[j]))
			continue;
		char key[32];
		snprintf(key, sizeof key, "index %d", block);
		fputs(block ? "\n\n" : "", o.f);
		dat_comment(o.f, key, s[j].label);
		block++;
		for (int64_t i = 0; i < s[j].n; i++) {
			double x = s[j].x[i], y = s[j].y[i];
			if (!plottable(ax, x, y))
				continue;
			if (!isfinite(y))
				fprintf(o.f, "%.10g NaN%s\n", x, s[j].lo ? " NaN NaN" : "");
			else if (s[j].lo)
				fprintf(o.f, "%.10g %.10g %.10g %.10g\n", x, y, s[j].lo[i], s[j].hi[i]);
			else
				fprintf(o.f, "%.10g %.10g\n", x, y);
		}
	}
	return lbt_out_commit(&o, e);
}

/* Integer ticks on an axis that counts whole things: on a log axis the
 * distinct values themselves when there are few (8, 16, ..., 2048), else
 * whole-number labels; on a linear axis a whole-number step. */
static void int_ticks(FILE *f, char axis, int on, int log_axis, const lbt_series *s, int ns)
{
	if (!on)
		return;
	double v[16], lo = INFINITY, hi = -INFINITY;
	int n = 0, few = 1;
	for (int j = 0; j < ns; j++)
		for (int64_t i = 0; i < s[j].n; i++) {
			double a = axis == 'x' ? s[j].x[i] : s[j].y[i];
			if (!isfinite(a) || (log_axis && a <= 0))
				continue;
			lo = fmin(lo, a), hi = fmax(hi, a);
			int seen = 0;
			for (int k = 0; k < n && !seen; k++)
				seen = v[k] == a;
			if (!seen && n < 16)
				v[n++] = a;
			else if (!seen)
				few = 0;
		}
	if (!isfinite(lo))
		return;
	if (log_axis && axis == 'x' && few && n <= 12) {
		fputs("set xtics (", f);
		for (int k = 0; k < n; k++)
			fprintf(f, "%s%.0f", k ? ", " : "", v[k]);
		fputs(")\n", f);
		return;
	}
	fprintf(f, "set format %c '%%.0f'\n", axis);
	if (!log_axis && hi - lo <= 12)
		fprintf(f, "set %ctics 1\n", axis);
	else if (!log_axis)
		fprintf(f, "set %ctics %.0f\n", axis, fmax(1, pow(10, floor(log10((hi - lo) / 5)))) *
		        ((hi - lo) / pow(10, floor(log10((hi - lo) / 5))) > 25 ? 5 : (hi - lo) / pow(10, floor(log10((hi - lo) / 5))) > 10 ? 2 : 1));
	else
		fprintf(f, "set m%ctics 10\n", axis);
}

static int write_gp(const char *path, const char *base, const lbt_axes *ax, const lbt_series *s, int ns,
                    lbt_err *e)
{
	lbt_outfile o;
	int st = lbt_out_open(&o, path, e);
	if (st)
		return st;
	FILE *f = o.f;
	fprintf(f, "# %s.gp — written by lbtorus; remake the pictures with: gnuplot %s.gp\n", base, base);
	fprintf(f, "# (lbtorus passes png_out and svg_out to draw into temporary files first)\n");
	lbt_provenance_comment(f, "", 0); /* which build, machine and command made it */
	fprintf(f, "if (!exists(\"png_out\")) png_out = '%s.png'\n", base);
	fprintf(f, "if (!exists(\"svg_out\")) svg_out = '%s.svg'\n", base);
	fputs("set encoding utf8\n", f);
	if (ax->title && *ax->title) {
		fputs("set title ", f);
		gp_quote(f, ax->title);
		fputs(" noenhanced\n", f);
	}
	fputs("set xlabel ", f);
	gp_quote(f, ax->xlabel);
	fputs(" noenhanced\nset ylabel ", f);
	gp_quote(f, ax->ylabel);
	fputs(" noenhanced\n", f);
	if (ax->logx)
		fputs("set logscale x\n", f);
	if (ax->logy)
		fputs("set logscale y\n", f);
	int_ticks(f, 'x', ax->intx, ax->logx, s, ns);
	int_ticks(f, 'y', ax->inty, ax->logy, s, ns);
	const char *key = ax->key && *ax->key ? ax->key : "top left";
	fprintf(f, "set grid\nset key %s%s", strstr(key, "outside") ? "" : "inside ", key);
	fputs(" reverse Left samplen 2.5 spacing 1.1 width 1 opaque box lw 0.5 font ',10' noenhanced\n"
	      "set autoscale fix\nset offsets graph 0.04, graph 0.04, graph 0.06, graph 0.06\nset datafile missing 'NaN'\n"
	      "set pointsize 1.1\nset border lw 1\nset tics nomirror out\n", f);
	if (ax->note && *ax->note) {
		fputs("set label 1 ", f);
		gp_quote(f, ax->note);
		fputs(" at screen 0.98, screen 0.025 right front noenhanced font ',10'\nset bmargin 5\n", f);
	}
	/* Okabe-Ito colours (no yellow: too faint on white), readable by colour-blind readers */
	static const char *const colour[] = {"#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#999999"};
	for (int i = 0; i < 8; i++)
		fprintf(f, "set linetype %d lc rgb '%s'\n", i + 1, colour[i]);
	fputs("set term pngcairo size 800,560 font 'sans,11' noenhanced\nset output png_out\nplot ", f);
	int block = 0;
	for (int j = 0; j < ns; j++) {
		if (!kept(ax, &s[j]))
			continue;
		const lbt_series *c = &s[j];
		int lt = c->colour > 0 ? c->colour : 1 + block % 8, pt = c->point > 0 ? c->point : 1 + block % 13;
		fprintf(f, "%s\\\n  '%s.dat' index %d using 1:2%s title ", block ? ", " : "", base, block, c->lo ? ":3:4" : "");
		gp_quote(f, c->label);
		if (c->lo && c->draw == LBT_DRAW_MARKS)
			fprintf(f, " with yerrorbars lt %d pt %d ps 1.4", lt, pt);
		else if (c->lo)
			fprintf(f, " with yerrorlines lt %d lw 2 pt %d", lt, pt);
		else if (c->draw == LBT_DRAW_LINE)
			fprintf(f, " with lines lt %d lw 1.5", lt);
		else if (c->draw == LBT_DRAW_STEPS)
			fprintf(f, " with steps lt %d lw 2", lt);
		else if (c->draw == LBT_DRAW_MARKS)
			fprintf(f, " with points lt %d pt %d ps 1.4", lt, pt);
		else
			fprintf(f, " with linespoints lt %d lw 2 pt %d", lt, pt);
		if (c->dash > 1)
			fprintf(f, " dt %d", c->dash);
		block++;
	}
	fputs("\nset term svg size 800,560 dynamic font 'sans,11' noenhanced background rgb 'white'\n"
	      "set output svg_out\nreplot\nset output\n", f);
	return lbt_out_commit(&o, e);
}

/* Run gnuplot on BASE.gp in dir, drawing into png_tmp and svg_tmp (base names). */
static int run_gnuplot(const char *dir, const char *base, const char *png_tmp, const char *svg_tmp,
                       lbt_err *e)
{
	const char *prog = getenv("LBTORUS_GNUPLOT");
	if (!prog || !*prog)
		prog = "gnuplot";
	char vars[9000], script[4200];
	FILE *mf = fmemopen(vars, sizeof vars, "w");
	if (!mf)
		return lbt_errf(e, LBT_ENOMEM, "no memory to start gnuplot");
	fputs("png_out=", mf);
	gp_quote(mf, png_tmp);
	fputs("; svg_out=", mf);
	gp_quote(mf, svg_tmp);
	fclose(mf);
	snprintf(script, sizeof script, "%s.gp", base);

	int ep[2], op[2]; /* exec-failure report (close-on-exec), gnuplot's stderr */
	if (pipe2(ep, O_CLOEXEC))
		return lbt_errf(e, LBT_EIO, "cannot start gnuplot: %s", strerror(errno));
	if (pipe(op)) {
		close(ep[0]), close(ep[1]);
		return lbt_errf(e, LBT_EIO, "cannot start gnuplot: %s", strerror(errno));
	}
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0) {
		close(ep[0]), close(ep[1]), close(op[0]), close(op[1]);
		return lbt_errf(e, LBT_EIO, "cannot start gnuplot: %s", strerror(errno));
	}
	if (pid == 0) { /* only async-signal-safe calls until exec */
		int null = open("/dev/null", O_RDWR);
		if (null >= 0) {
			dup2(null, 0);
			dup2(null, 1);
		}
		dup2(op[1], 2);
		close(op[0]);
		if (chdir(dir) == 0)
			execlp(prog, prog, "-e", vars, script, (char *)NULL);
		int err = errno;
		if (write(ep[1], &err, sizeof err) < 0)
			_exit(126);
		_exit(127);
	}
	close(ep[1]);
	close(op[1]);
	int child_errno = 0;
	ssize_t got = read(ep[0], &child_errno, sizeof child_errno);
	close(ep[0]);
	char msg[400] = "";
	size_t len = 0;
	char buf[4096];
	ssize_t r;
	while ((r = read(op[0], buf, sizeof buf)) > 0 || (r < 0 && errno == EINTR))
		for (ssize_t i = 0; i < r && len + 1 < sizeof msg; i++)
			if (buf[i] != '\n' || len)
				msg[len++] = buf[i] == '\n' ? ' ' : buf[i];
	msg[len] = 0;
	close(op[0]);
	int status;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (got == (ssize_t)sizeof child_errno)
		return child_errno == ENOENT
			? lbt_errf(e, LBT_EUNSUP, "gnuplot not found (install Debian's gnuplot-nox: make deps does it); "
			           "wrote %s.dat and %s.gp only", base, base)
			: lbt_errf(e, LBT_EUNSUP, "cannot run %s in %s: %s; wrote %s.dat and %s.gp only", prog, dir,
			           strerror(child_errno), base, base);
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		return lbt_errf(e, LBT_EIO, "gnuplot failed on %s/%s.gp: %.300s", dir, base, len ? msg : "no message");
	return LBT_OK;
}

/* Create the empty temporary file of output `path` (lbt_out_tmpname's
 * .NAME.tmp.HOST.PID, so a killed run's are removed by the next), with a
 * normal file's mode. */
static int make_tmp(const char *path, char *tmp, size_t n, lbt_err *e)
{
	int st = lbt_out_tmpname(path, tmp, n, e);
	if (st)
		return st;
	mode_t mask = umask(0);
	umask(mask);
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0666 & ~mask);
	if (fd < 0)
		return lbt_errf(e, LBT_EIO, "cannot write %s: %s", path, strerror(errno));
	close(fd);
	return LBT_OK;
}

int lbt_plot(const char *stem, const lbt_axes *ax, const lbt_series *s, int ns, lbt_err *e)
{
	size_t n = strlen(stem);
	if (!n || stem[n - 1] == '/' || n > 4000)
		return lbt_errf(e, LBT_EINVAL, "plot: bad output stem '%.100s'", stem);
	int any = 0;
	for (int j = 0; j < ns; j++)
		any |= kept(ax, &s[j]) > 0;
	if (!any)
		return lbt_errf(e, LBT_EINVAL, "plot %s: no series has a point to plot", stem);

	char dir[4100], base[4100], path[4200], png[4200], svg[4200];
	const char *slash = strrchr(stem, '/');
	if (slash) {
		snprintf(dir, sizeof dir, "%.*s", (int)(slash - stem) + (slash == stem), stem);
		snprintf(base, sizeof base, "%s", slash + 1);
	} else {
		strcpy(dir, ".");
		snprintf(base, sizeof base, "%s", stem);
	}
	int st;
	snprintf(path, sizeof path, "%s.dat", stem);
	if ((st = write_dat(path, ax, s, ns, e)))
		return st;
	snprintf(path, sizeof path, "%s.gp", stem);
	if ((st = write_gp(path, base, ax, s, ns, e)))
		return st;

	/* Temporary pictures beside the targets, renamed into place when both are drawn. */
	char target[4200];
	snprintf(target, sizeof target, "%s.png", stem);
	if ((st = make_tmp(target, png, sizeof png, e)))
		return st;
	snprintf(target, sizeof target, "%s.svg", stem);
	if ((st = make_tmp(target, svg, sizeof svg, e))) {
		unlink(png);
		return st;
	}
	/* gnuplot runs in dir: base names */
	st = run_gnuplot(dir, base, strrchr(png, '/') + 1, strrchr(svg, '/') + 1, e);
	if (!st && lbt_out_held()) /* a signal came: nothing more is published */
		st = lbt_errf(e, LBT_EIO, "interrupted: %s.png and .svg not written", stem);
	const char *tmp[2] = {png, svg}, *ext[2] = {"png", "svg"};
	for (int i = 0; i < 2 && !st; i++) {
		snprintf(path, sizeof path, "%s.%s", stem, ext[i]);
		int fd = open(tmp[i], O_RDONLY);
		if (fd < 0 || fsync(fd) || rename(tmp[i], path))
			st = lbt_errf(e, LBT_EIO, "cannot write %s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
	}
	unlink(png);
	unlink(svg);
	return st;
}

/* reproduce.c — the machinery behind `lbtorus reproduce`: batches of
 * independent runs, the paper's stated results, CSV/Markdown/plot output.
 *
 * Invariants: every run is single-threaded and independent, so a batch runs
 * in parallel and gives the same numbers for any thread count (the kernels
 * are bit-exact). Every run conserves load (checked each step). A run that
 * stops without reaching a criterion says why: a proven recurrence of its
 * state (period > 0, found by the run engine) or the cap (capped = 1) —
 * never silently. The paper's
 * values come from data/, never from this code. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "repro.h"
#include "comm/comm.h"
#include "core/input.h"
#include "exp/spread.h"
#include "out/latex.h"
#include "lbtorus/provenance.h"

void rp_note(const lbt_repro_opts *o, const char *fmt, ...)
{
	if (!o->note)
		return;
	char line[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	o->note(o->ctx, line);
}

lbt_run_opts rp_run_opts(const lbt_repro_opts *o)
{
	lbt_run_opts ro = lbt_run_opts_default();
	ro.interrupt = o->interrupt;
	return ro;
}

static void run_one(rp_job *j, const lbt_repro_opts *o)
{
	lbt_setup set = {.shape = j->shape, .method = j->method, .init = j->init, .isa = o->isa,
	                 .seed = j->seed, .threads = 1, .interrupt = o->interrupt};
	lbt_state st;
	lbt_err e;
	j->shared_step = j->shared_shifts = j->balanced_step = j->balanced_shifts = -1;
	j->period = j->capped = 0;
	j->steps = j->shifts = 0;
	if ((j->status = lbt_state_open(&st, &set, &e))) {
		snprintf(j->msg, sizeof j->msg, "%s", e.msg);
		return;
	}
	j->pes = lbt_shape_pes(&st.grid.shape);
	lbt_run_opts ro = rp_run_opts(o);
	ro.until.kind = LBT_UNTIL_SHARED_BALANCED;
	ro.max_steps = j->cap;
	lbt_summary s;
	if ((j->status = lbt_run(&st, &ro, &s, &e)))
		snprintf(j->msg, sizeof j->msg, "%s", e.msg);
	/* integer methods only: the summary's load quantities hold integers exactly */
	j->total = (int64_t)s.total;
	j->shared_step = s.shared_step;
	j->shared_shifts = (int64_t)s.shared_shifts;
	j->balanced_step = s.balanced_step;
	j->balanced_shifts = (int64_t)s.balanced_shifts;
	j->period = s.stop == LBT_STOP_CYCLE ? s.period : s.stop == LBT_STOP_STALLED; /* a fixed point: period 1 */
	j->capped = s.stop == LBT_STOP_MAX_STEPS;
	j->steps = s.steps;
	j->shifts = (int64_t)s.shifts;
	lbt_state_close(&st);
}

static int by_size(const void *a, const void *b, void *jobs)
{
	const rp_job *x = (const rp_job *)jobs + *(const int *)a, *y = (const rp_job *)jobs + *(const int *)b;
	double cx = (double)x->pes * (double)x->cap, cy = (double)y->pes * (double)y->cap;
	return cx < cy ? 1 : cx > cy ? -1 : *(const int *)a - *(const int *)b;
}

/* How many runs go at once: --threads, else every core. */
int rp_threads(const lbt_repro_opts *o)
{
	int threads = o->threads;
#ifdef _OPENMP
	if (threads <= 0)
		threads = omp_get_num_procs();
#endif
	return threads < 1 ? 1 : threads;
}

void rp_announce(int kind, int64_t n)
{
	int64_t h[3] = {kind, n, 0};
	if (lbt_comm_size() > 1 && lbt_comm_rank() == 0)
		lbt_comm_bcast(h, sizeof h);
}

int rp_agree_room(int ok, lbt_err *e)
{
	return lbt_comm_min_int(ok) ? LBT_OK : lbt_errf(e, LBT_ENOMEM, "no memory for a batch of runs");
}

int rp_spread(const lbt_spread *s, int64_t n, const lbt_repro_opts *o, lbt_err *e)
{
	lbt_spread t = *s;
	t.interrupt = o->interrupt; /* a signal to one rank stops all after their current runs */
	return lbt_spread_run(&t, NULL, n, rp_threads(o), e);
}

/* A batch of jobs as lbt_spread takes it. */
typedef struct {
	rp_job *jobs;
	const lbt_repro_opts *o;
	int n, mine, done;
} job_batch;

static void job_run(void *ctx, int64_t i)
{
	job_batch *b = ctx;
	const lbt_repro_opts *o = b->o;
	rp_job *j = &b->jobs[i];
	run_one(j, o);
	if (!j->status && o->interrupt && *o->interrupt) { /* cut short: not the run's result (on any rank) */
		j->status = LBT_EINTR;
		snprintf(j->msg, sizeof j->msg, "interrupted");
	}
#pragma omp critical(rp_progress)
	{
		b->done++;
		if (j->status)
			rp_note(o, "  [%d/%d] %s %s %s: %s", b->done, b->mine, j->method, j->shape, j->init, j->msg);
		else {
			char sh[32], ba[32];
			snprintf(sh, sizeof sh, j->shared_step < 0 ? "never" : "%lld", (long long)j->shared_step);
			snprintf(ba, sizeof ba, j->balanced_step < 0 ? "never" : "%lld", (long long)j->balanced_step);
			rp_note(o, "  [%d/%d] %-6s %-9s %-14s steps to shared %s, to balanced %s%s", b->done, b->mine, j->method,
			        j->shape, j->init, sh, ba, j->period ? " (the state recurs)" : j->capped ? " (stopped at the cap)" : "");
		}
	}
}

static int job_result(void *ctx, int64_t i, void *at[2], size_t n[2])
{
	job_batch *b = ctx;
	at[0] = &b->jobs[i]; /* a job is plain data: its inputs travel back unchanged */
	n[0] = sizeof b->jobs[i];
	return 1;
}

/* Rank 0's n jobs (on the others: room for them) to every rank, run over
 * the ranks biggest first, every result on every rank (collective). */
static int jobs_spread(rp_job *jobs, int n, const lbt_repro_opts *o, lbt_err *e)
{
	int *order = malloc((size_t)(n > 0 ? n : 1) * sizeof *order);
	int st = rp_agree_room(jobs && order, e);
	if (!st)
		lbt_comm_bcast(jobs, n * (int)sizeof *jobs);
	for (int i = 0; !st && i < n; i++) {
		lbt_shape s;
		order[i] = i;
		jobs[i].pes = lbt_shape_parse(&s, jobs[i].shape, NULL) ? 1 : lbt_shape_pes(&s);
	}
	if (!st) {
		qsort_r(order, (size_t)n, sizeof *order, by_size, jobs);
		job_batch b = {.jobs = jobs, .o = o, .n = n, .mine = (int)lbt_spread_mine(n)};
		const lbt_spread sp = {.run = job_run, .result = job_result, .ctx = &b, .interrupt = o->interrupt};
		st = lbt_spread_run(&sp, order, n, rp_threads(o), e);
	}
	free(order);
	return st;
}

int rp_run_jobs(rp_job *jobs, int n, const lbt_repro_opts *o, lbt_err *e)
{
	rp_announce(RP_JOBS, n);
	int st = jobs_spread(jobs, n, o, e);
	for (int i = 0; !st && i < n; i++)
		if (jobs[i].status)
			return lbt_errf(e, jobs[i].status, "%s", jobs[i].msg);
	return st;
}

/* Ranks other than 0 under MPI: run the batches rank 0 announces until it
 * says the experiment is over; then its status, differences and message. */
static int rp_serve(const lbt_repro_opts *o, int64_t *differs, lbt_err *e)
{
	lbt_repro_opts w = *o;
	w.note = NULL; /* rank 0 tells of its runs */
	for (;;) {
		int64_t h[3];
		lbt_comm_bcast(h, sizeof h);
		if (h[0] == RP_JOBS) {
			rp_job *jobs = calloc((size_t)(h[1] > 0 ? h[1] : 1), sizeof *jobs);
			jobs_spread(jobs, (int)h[1], &w, e);
			free(jobs);
		} else if (h[0] == RP_WJOBS)
			rp_serve_wjobs((int)h[1], &w, e);
		else {
			lbt_comm_bcast(e->msg, sizeof e->msg);
			if (differs)
				*differs = h[2];
			return (int)h[1];
		}
	}
}

int rp_path(const lbt_repro_opts *o, const char *name, char *buf, size_t n, lbt_err *e)
{
	const char *dir = o->out_dir && *o->out_dir ? o->out_dir : ".";
	if (mkdir(dir, 0777) && errno != EEXIST)
		return lbt_errf(e, LBT_EIO, "cannot create %s: %s", dir, strerror(errno));
	if ((size_t)snprintf(buf, n, "%s/%s", dir, name) >= n)
		return lbt_errf(e, LBT_EINVAL, "output path too long: %s/%s", dir, name);
	return LBT_OK;
}

int rp_open(const lbt_repro_opts *o, const char *name, lbt_outfile *f, lbt_err *e)
{
	if (lbt_comm_rank() != 0) /* an experiment every rank runs: rank 0 writes */
		return lbt_out_open(f, "/dev/null", e);
	char path[4096];
	int st = rp_path(o, name, path, sizeof path, e);
	return st ? st : lbt_out_open(f, path, e);
}

int rp_plot(const lbt_repro_opts *o, const char *stem, const lbt_axes *ax, const lbt_series *s, int ns,
            lbt_err *e)
{
	if (lbt_comm_rank() != 0) /* an experiment every rank runs: rank 0 draws */
		return LBT_OK;
	char path[4096];
	lbt_axes a = *ax;
	if (!o->titles)
		a.title = NULL;
	int st = rp_path(o, stem, path, sizeof path, e);
	if (!st)
		st = lbt_plot(path, &a, s, ns, e);
	if (st == LBT_EUNSUP)
		rp_note(o, "%s", e->msg);
	return st;
}

const char *lbt_data_dir(void)
{
	const char *env = getenv("LBTORUS_DATA");
	return env && *env ? env : LBT_DATADIR;
}

static int same_points(const lbt_series *a, const lbt_series *b)
{
	if (a->n != b->n || !a->n)
		return 0;
	int any = 0;
	for (int64_t i = 0; i < a->n; i++) {
		if (a->x[i] != b->x[i] || isfinite(a->y[i]) != isfinite(b->y[i]) ||
		    (isfinite(a->y[i]) && a->y[i] != b->y[i]))
			return 0;
		any |= isfinite(a->y[i]);
	}
	return any;
}

void rp_mark_coinciding(lbt_series *s, int ns, char *note, size_t n)
{
	static const int marker[] = {6, 8, 4, 10, 12};
	size_t len = 0;
	note[0] = 0;
	char taken[64] = {0};
	for (int i = 0; i < ns && i < 64; i++) {
		if (taken[i])
			continue;
		int k = 0;
		for (int j = i + 1; j < ns && j < 64; j++) {
			if (taken[j] || !same_points(&s[i], &s[j]))
				continue;
			taken[j] = 1;
			if (!k++)
				len += (size_t)snprintf(note + len, len < n ? n - len : 0, "%s%s", len ? "; " : "", s[i].label);
			len += (size_t)snprintf(note + len, len < n ? n - len : 0, " = %s", s[j].label);
			s[j].dash = 1 + k;
			s[j].point = marker[(k - 1) % 5];
		}
	}
	if (len && len < n)
		snprintf(note + len, n - len, " (identical)");
}

static FILE *open_data(const lbt_repro_opts *o, const char *name, char *path, size_t n, lbt_err *e)
{
	const char *dir = o->data_dir && *o->data_dir ? o->data_dir : lbt_data_dir();
	snprintf(path, n, "%s/%s", dir, name);
	FILE *f;
	lbt_err sub;
	if (lbt_in_open(path, NULL, &f, &sub))
		lbt_errf(e, LBT_EIO, "%s (give --data DIR or set LBTORUS_DATA)", sub.msg);
	return f;
}

int rp_claim_get(const lbt_repro_opts *o, const char *id, rp_claim *c, lbt_err *e)
{
	char path[4200];
	/* each paper's stated results in a file of its own */
	FILE *f = open_data(o, strncmp(id, "luling1993_", 11) ? "henrich1996_claims.csv" : "luling1993_claims.csv", path,
	                    sizeof path, e);
	if (!f)
		return LBT_EIO;
	size_t n = strlen(id), cap = 0, len;
	char *line = NULL;
	long long ln = 0;
	int found = 0, st = LBT_OK;
	lbt_err sub;
	while (!found && !st) {
		if ((st = lbt_in_line(f, &line, &cap, &len, &sub))) /* whole lines: a long one is refused, never split */
			lbt_errf(e, st, "%s:%lld: %s", path, ln + 1, sub.msg);
		if (st || !len)
			break;
		ln++;
		if (strncmp(line, id, n) || line[n] != ',')
			continue;
		char *field[5] = {line};
		for (int i = 1; i < 5 && field[i - 1]; i++) { /* the source is the rest of the line */
			char *p = strchr(field[i - 1], ',');
			if (p)
				*p++ = 0;
			field[i] = p;
		}
		if (!field[4])
			break;
		field[4][strcspn(field[4], "\r\n")] = 0;
		memset(c, 0, sizeof *c);
		if (strlen(field[1]) >= sizeof c->experiment || strlen(field[2]) >= sizeof c->quantity ||
		    strlen(field[4]) >= sizeof c->source) {
			st = lbt_errf(e, LBT_EINVAL, "%s:%lld: claim '%s': experiment, quantity or source longer than %zu, %zu or %zu bytes",
			              path, ln, id, sizeof c->experiment - 1, sizeof c->quantity - 1, sizeof c->source - 1);
			break;
		}
		found = 1;
		snprintf(c->id, sizeof c->id, "%s", field[0]);
		snprintf(c->experiment, sizeof c->experiment, "%s", field[1]);
		snprintf(c->quantity, sizeof c->quantity, "%s", field[2]);
		snprintf(c->source, sizeof c->source, "%s", field[4]);
		char *end;
		c->value = strtod(field[3], &end);
		c->has_value = end != field[3];
	}
	free(line);
	fclose(f);
	if (st)
		return st;
	return found ? LBT_OK : lbt_errf(e, LBT_EINVAL, "%s has no well-formed claim '%s'", path, id);
}

int lbt_repro_claim_value(const char *data_dir, const char *id, double *value, lbt_err *e)
{
	const lbt_repro_opts o = {.data_dir = data_dir};
	rp_claim c;
	int st = rp_claim_get(&o, id, &c, e);
	if (st)
		return st;
	if (!c.has_value)
		return lbt_errf(e, LBT_EINVAL, "claim '%s' is a statement without a number", id);
	*value = c.value;
	return LBT_OK;
}

void rp_md_claims_head(FILE *f)
{
	fputs("| claim | paper | ours | ours / paper | the paper says |\n|---|---:|---:|---:|---|\n", f);
}

void rp_md_claim(FILE *f, const rp_claim *c, double ours, const char *text)
{
	fprintf(f, "| %s | ", c->quantity);
	if (c->has_value) fprintf(f, "%.4g", c->value); else fputs("(statement)", f);
	fputs(" | ", f);
	if (isfinite(ours)) fprintf(f, "%.4g", ours);
	if (text && *text) fprintf(f, "%s%s", isfinite(ours) ? " — " : "", text);
	fputs(" | ", f);
	if (c->has_value && c->value != 0 && isfinite(ours)) fprintf(f, "%.3f", ours / c->value);
	else if (c->has_value && isfinite(ours)) fprintf(f, "(difference %.3g)", ours - c->value);
	else fputs("—", f);
	fprintf(f, " | %s |\n", c->source);
}

int rp_read_table(const lbt_repro_opts *o, const char *name, int64_t *rows, int max, int cols, lbt_err *e)
{
	char path[4200];
	FILE *f = open_data(o, name, path, sizeof path, e);
	if (!f)
		return -1;
	char *line = NULL;
	size_t cap = 0, len;
	long long ln = 0;
	int n = 0, header = 1, st = LBT_OK;
	lbt_err sub;
	while (!st) {
		if ((st = lbt_in_line(f, &line, &cap, &len, &sub))) /* whole lines: a long one is refused, never split */
			lbt_errf(e, st, "%s:%lld: %s", path, ln + 1, sub.msg);
		if (st || !len)
			break;
		ln++;
		if (line[0] == '#' || line[0] == '\n')
			continue;
		if (header) {
			header = 0;
			continue;
		}
		if (n == max) {
			st = lbt_errf(e, LBT_EINVAL, "%s:%lld: more than %d rows", path, ln, max);
			break;
		}
		char *p = line, *end;
		for (int c = 0; c < cols && !st; c++) {
			rows[n * cols + c] = strtoll(p, &end, 10);
			if (end == p || (c < cols - 1 && *end != ','))
				st = lbt_errf(e, LBT_EINVAL, "%s:%lld: row %d, column %d is not an integer", path, ln, n + 1, c + 1);
			p = end + 1;
		}
		n++;
	}
	free(line);
	fclose(f);
	return st ? -1 : n;
}

double rp_loglog_slope(const double *x, const double *y, int n)
{
	if (n < 2 || !(x[n - 1] > 0 && x[n - 2] > 0 && y[n - 1] > 0 && y[n - 2] > 0) || x[n - 1] == x[n - 2])
		return NAN;
	return log(y[n - 1] / y[n - 2]) / log(x[n - 1] / x[n - 2]);
}

const char *rp_linear_word(double sl)
{
	return !isfinite(sl) ? "no slope"
	       : sl < 0.9    ? "far below linear (slope < 0.9)"
	       : sl <= 1.1   ? "linear (slope 0.9..1.1)"
	                     : "faster than linear (slope > 1.1)";
}

void rp_fit_lin_quad(const double *x, const double *y, int n, double *a, double *b)
{ /* normal equations of min sum (y - a x - b x^2)^2 */
	double s2 = 0, s3 = 0, s4 = 0, sy1 = 0, sy2 = 0;
	int used = 0;
	for (int i = 0; i < n; i++) {
		if (!isfinite(y[i]))
			continue;
		double x2 = x[i] * x[i];
		s2 += x2, s3 += x2 * x[i], s4 += x2 * x2, sy1 += y[i] * x[i], sy2 += y[i] * x2;
		used++;
	}
	double det = s2 * s4 - s3 * s3;
	if (used < 2 || det == 0) {
		*a = *b = NAN;
		return;
	}
	*a = (sy1 * s4 - sy2 * s3) / det;
	*b = (s2 * sy2 - s3 * sy1) / det;
}

const char *const *lbt_repro_names(void)
{
	static const char *const names[] = {"table3", "fig5", "fig6", "fig7", "cybenko", "trees", "jv-fig1", "jv-fig23",
	                                    "jv-table1", "jv-speeds", "jv-calibration", "jv-shake", "luling-theorems", "luling-cost", "luling-figs",
	                                    "luling-table1", "luling-compare", NULL};
	return names;
}

typedef int (*experiment)(const lbt_repro_opts *o, lbt_err *e);

/* One experiment (run NULL: Table 3) into out_dir, its files published
 * together (rank 0 under MPI). */
static int run_experiment(experiment run, int every, const char *name, const lbt_repro_opts *o, int64_t *differs,
                          lbt_err *e)
{
	/* the experiment's files are written into a staging directory and
	 * published together (lbt_outdir): a failure leaves out_dir as it was */
	lbt_outdir d;
	int st = lbt_outdir_open(&d, o->out_dir && *o->out_dir ? o->out_dir : ".", e);
	if (every) /* the other ranks start its runs only if its files have somewhere to go (rp_follow) */
		lbt_comm_min_int(st == LBT_OK);
	if (st)
		return st;
	lbt_repro_opts so = *o;
	so.out_dir = d.stage;
	int64_t dd = 0;
	st = run ? run(&so, e) : rp_table3(&so, &dd, e);
	if ((o->interrupt && *o->interrupt) || st == LBT_EINTR) { /* its runs stopped early (on any rank), or never
	                                                         started: nothing is published */
		lbt_outdir_abort(&d, NULL);
		return lbt_errf(e, LBT_EINTR, "interrupted: nothing of %s written to %s", name, d.dir);
	}
	if (differs)
		*differs = dd;
	char md[4096], tex[4104];
	lbt_err te;
	if ((st == LBT_OK || st == LBT_EUNSUP) && !rp_path(&so, name, md, sizeof md - 4, &te)) { /* NAME.md as LaTeX */
		snprintf(tex, sizeof tex, "%s.tex", md);
		strcat(md, ".md");
		struct stat sb;
		if (!stat(md, &sb)) {
			int ts = lbt_md_tables_to_latex(md, tex, &te);
			if (ts && st == LBT_OK) {
				*e = te;
				st = ts;
			}
		}
	}
	if (st == LBT_OK || st == LBT_EUNSUP) { /* NAME.manifest.json: what made the files, and their checksums */
		int cs = lbt_provenance_manifest(d.stage, name, o->isa, o->threads, &te);
		if (!cs)
			cs = lbt_outdir_commit(&d, &te);
		if (cs) {
			*e = te;
			st = cs;
		}
	} else
		lbt_outdir_abort(&d, e);
	return st;
}

/* Ranks other than 0 in an experiment every rank runs (lbt_reproduce's
 * `every`): the same runs planned, this rank's share of them run (rp_spread),
 * nothing written (rp_open, rp_plot), then rank 0's outcome. */
static int rp_follow(experiment run, const lbt_repro_opts *o, int64_t *differs, lbt_err *e)
{
	lbt_repro_opts w = *o;
	w.note = NULL; /* rank 0 tells of its runs */
	if (lbt_comm_min_int(1)) /* rank 0 could open the output directory (run_experiment) */
		run(&w, e);
	int64_t h[3];
	lbt_comm_bcast(h, sizeof h);
	lbt_comm_bcast(e->msg, sizeof e->msg);
	if (differs)
		*differs = h[2];
	return (int)h[1];
}

int lbt_reproduce(const char *name, const lbt_repro_opts *o, int64_t *differs, lbt_err *e)
{
	/* every: each rank plans the experiment's runs itself and runs its share
	 * (rp_spread); else rank 0 announces its batches (rp_serve) */
	static const struct { const char *name; experiment run; int every; } list[] = {
		{"table3", NULL /* rp_table3 counts differences */, 0}, {"fig5", rp_fig5, 0}, {"fig6", rp_fig6, 0},
		{"fig7", rp_fig7, 0}, {"cybenko", rp_cybenko, 0}, {"trees", rp_trees, 0}, {"jv-fig1", rp_jv_fig1, 1},
		{"jv-fig23", rp_jv_fig23, 1}, {"jv-table1", rp_jv_table1, 1}, {"jv-speeds", rp_jv_speeds, 1},
		{"jv-calibration", rp_jv_calibration, 1}, {"jv-shake", rp_jv_shake, 1},
		{"luling-theorems", rp_luling_theorems, 1}, {"luling-cost", rp_luling_cost, 1},
		{"luling-figs", rp_luling_figs, 1}, {"luling-table1", rp_luling_table1, 1},
		{"luling-compare", rp_luling_compare, 1}};
	size_t k = 0;
	while (k < sizeof list / sizeof *list && strcmp(name, list[k].name))
		k++;
	if (differs)
		*differs = 0;
	if (k == sizeof list / sizeof *list)
		return lbt_errf(e, LBT_EINVAL, "unknown experiment '%s': table3, fig5, fig6, fig7, cybenko, trees, jv-fig1, "
		                "jv-fig23, jv-table1, jv-speeds, jv-calibration, jv-shake, luling-theorems, luling-cost, luling-figs, luling-table1 "
		                "or luling-compare",
		                name);
	if (lbt_comm_stop(o->interrupt, 0)) /* a signal on any rank before it starts */
		return lbt_errf(e, LBT_EINTR, "interrupted: nothing of %s written", name);
	if (lbt_comm_size() > 1 && lbt_comm_rank() != 0)
		return list[k].every ? rp_follow(list[k].run, o, differs, e) : rp_serve(o, differs, e);
	const int st = run_experiment(list[k].run, list[k].every, name, o, differs, e);
	int64_t h[3] = {RP_END, st, differs ? *differs : 0};
	if (lbt_comm_size() > 1) { /* the end of the experiment, its outcome every rank's */
		lbt_comm_bcast(h, sizeof h);
		lbt_comm_bcast(e->msg, sizeof e->msg);
	}
	return st;
}

/* tools.c — the public API's calls behind the command line's smaller
 * commands (lbtorus.h): the command line as provenance, one interrupt for
 * the whole process, the worst-case search with its .npy and its JSON, and
 * a figure of results files with its fits as text. The number parsers, MPI,
 * the data directory and the report are the engine's own calls, declared
 * public as they are. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <math.h>

#include "lbtorus/comm.h"
#include "lbtorus/figure.h"
#include "lbtorus/io.h"
#include "lbtorus/method.h"
#include "lbtorus/npy.h"
#include "lbtorus/provenance.h"
#include "lbtorus/run.h"
#include "lbtorus/search.h"

#define SEARCH_VERSION 0x4c425331u /* "LBS1": made by lbt_search_default */
#define FIGURE_VERSION 0x4c424631u /* "LBF1": made by lbt_figure_default */

void lbt_set_argv(int argc, char *const argv[]) { lbt_provenance_set_argv(argc, argv); }

void lbt_interrupt_all(const volatile sig_atomic_t *flag)
{
	lbt_run_interrupt_default(flag);
	lbt_out_hold(flag);
}

static int batch_ok(const lbt_batch *b) { return b && b->version == lbt_batch_default().version; }
static int stopped(const lbt_batch *b) { return b->interrupt && *b->interrupt; }

/* One line, formatted, to the caller's print (nothing if print is NULL). */
static int say(lbt_print print, void *ctx, lbt_err *e, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static int say(lbt_print print, void *ctx, lbt_err *e, const char *fmt, ...)
{
	if (!print)
		return LBT_OK;
	char *line;
	va_list ap;
	va_start(ap, fmt);
	int n = vasprintf(&line, fmt, ap);
	va_end(ap);
	if (n < 0)
		return lbt_errf(e, LBT_ENOMEM, "no memory");
	print(ctx, line);
	free(line);
	return LBT_OK;
}

lbt_search_spec lbt_search_default(void)
{
	return (lbt_search_spec){.version = SEARCH_VERSION, .mean = -1, .restarts = 8, .moves = 2000, .seed = 1};
}

/* The search's result as the one JSON object `lbtorus search` prints. */
static int search_json(const lbt_search_spec *s, const lbt_search_opts *so, const lbt_search_result *r,
                       const char *out, lbt_err *e)
{
	char *text = NULL, shape[128], bnd[128];
	size_t n = 0;
	FILE *f = open_memstream(&text, &n);
	if (!f)
		return lbt_errf(e, LBT_ENOMEM, "search: no memory");
	lbt_shape_format(&r->shape, shape, sizeof shape);
	lbt_boundary_format(&r->shape, bnd, sizeof bnd);
	fprintf(f, "{\"shape\":\"%s\",\"boundary\":\"%s\",\"method\":\"%s\",\"ldiff\":%lld,\"total\":%lld,\"min\":%lld,"
	        "\"max\":%lld,\"seed\":%llu,\"restarts\":%lld,\"moves\":%lld,\"anneal\":%g,\"evaluations\":%lld,"
	        "\"best_restart\":%lld,\"steps\":%lld,\"shifts\":%lld,\"dkl_bound\":%lld,\"steps_over_dkl\":%.6g,"
	        "\"npy\":\"%s\"%s%s%s",
	        shape, bnd, so->method, (long long)so->ldiff, (long long)so->total, (long long)r->min,
	        (long long)(r->min + so->ldiff), (unsigned long long)so->seed, (long long)so->restarts,
	        (long long)so->moves, so->temperature, (long long)r->evaluations, (long long)r->restart,
	        (long long)r->steps, (long long)r->shifts, (long long)r->dkl, r->ratio, out,
	        so->workload ? ",\"workload\":\"" : "", so->workload ? so->workload->spec : "", so->workload ? "\"" : "");
	lbt_provenance_file_json(f, "npy", out); /* the grid's checksum: a .npy has no room for provenance */
	lbt_provenance_json(f, so->isa ? so->isa : "", so->threads);
	fputc('}', f);
	if (fclose(f))
		return lbt_errf(e, LBT_ENOMEM, "search: no memory");
	int st = say(s->print, s->ctx, e, "%s", text);
	free(text);
	return st;
}

/* The engine's options from the caller's, the total from the mean, the
 * workload parsed for the method's kind of load (wl: its storage). */
static int search_opts(const lbt_search_spec *s, const lbt_batch *b, lbt_search_opts *so, lbt_workload *wl,
                       lbt_err *e)
{
	*so = (lbt_search_opts){.shape = s->shape, .boundary = s->boundary, .method = s->method ? s->method : "lm-c5",
	                        .ldiff = s->ldiff, .total = s->total, .restarts = s->restarts, .moves = s->moves,
	                        .temperature = s->anneal, .seed = s->seed, .max_steps = s->max_steps,
	                        .threads = b->threads, .isa = b->isa, .note = b->note, .ctx = b->ctx,
	                        .interrupt = b->interrupt};
	lbt_shape sh;
	int st = s->shape ? lbt_shape_parse(&sh, s->shape, e) : LBT_OK;
	if (st)
		return st;
	if (s->shape && s->mean >= 0)
		so->total = s->mean * lbt_shape_pes(&sh);
	if (!s->workload)
		return LBT_OK;
	const lbt_method *m = lbt_method_find(so->method); /* an unknown one: the search says so */
	lbt_err sub;
	if ((st = lbt_workload_parse(wl, s->workload, m ? m->load : LBT_LOAD_INT, &sub)))
		return lbt_errf(e, st, "search: %s", sub.msg);
	so->workload = wl->phase ? wl : NULL; /* "none": the static problem */
	return LBT_OK;
}

int lbt_search_run(const lbt_search_spec *s, const lbt_batch *b, lbt_err *e)
{
	if (!s || s->version != SEARCH_VERSION)
		return lbt_errf(e, LBT_EINVAL, "search options not made by lbt_search_default()");
	if (!batch_ok(b))
		return lbt_errf(e, LBT_EINVAL, "batch options not made by lbt_batch_default()");
	lbt_search_opts so;
	lbt_workload wl;
	const char *out = s->out ? s->out : "worst.npy";
	lbt_outfile f;
	const int writer = lbt_comm_rank() == 0; /* under MPI: the restarts go over the ranks, rank 0 writes */
	int st = search_opts(s, b, &so, &wl, e), opened = 0;
	if (!st && writer) /* a bad path fails before the search */
		opened = !(st = lbt_out_open(&f, out, e));
	if ((st = lbt_comm_agree(st, e))) {
		if (opened)
			lbt_out_abort(&f);
		return st;
	}
	lbt_search_result r;
	st = lbt_search(&so, &r, e);
	if (stopped(b) || st == LBT_EINTR) { /* its runs stopped early: the result is not the search's */
		if (writer)
			lbt_out_abort(&f);
		if (!st)
			free(r.loads);
		return lbt_errf(e, LBT_EINTR, "search: interrupted");
	}
	if (st || !writer) {
		if (writer)
			lbt_out_abort(&f);
		if (!st)
			free(r.loads);
		return st;
	}
	if (lbt_npy_write_file(f.f, &r.shape, r.loads))
		st = lbt_errf(e, LBT_EIO, "cannot write %s", out);
	free(r.loads);
	if (!st && stopped(b))
		st = lbt_errf(e, LBT_EINTR, "search: interrupted");
	if (!st)
		st = lbt_out_commit(&f, e);
	else
		lbt_out_abort(&f);
	return st ? st : search_json(s, &so, &r, out, e);
}

lbt_figure_spec lbt_figure_default(void) { return (lbt_figure_spec){.version = FIGURE_VERSION}; }

/* What lbt_figure found, a line per group and the files, as `lbtorus plot` prints it. */
static int figure_lines(const lbt_figure_spec *s, const lbt_figure_opts *fo, const lbt_figure_result *r, lbt_err *e)
{
	int st = LBT_OK;
	for (int g = 0; g < r->ngroups && !st; g++) {
		const lbt_fit *f = &r->fit[g];
		char fit[512] = "", ci[256] = "";
		if (f->kind == LBT_FIT_POWER)
			snprintf(fit, sizeof fit, "; %s = a * %s^b, a = %.4g, b = %.4g", fo->y, fo->x, f->a, f->b);
		else if (f->kind == LBT_FIT_LINEAR)
			snprintf(fit, sizeof fit, "; %s = a + b * %s, a = %.4g, b = %.4g", fo->y, fo->x, f->a, f->b);
		if (f->kind != LBT_FIT_NONE && isfinite(f->t))
			snprintf(ci, sizeof ci, " (95%% CI: a %.4g..%.4g, b %.4g..%.4g), R^2 = %.4f", f->a_lo, f->a_hi, f->b_lo,
			         f->b_hi, f->r2);
		else if (f->kind != LBT_FIT_NONE)
			snprintf(ci, sizeof ci, " (two points: no interval)");
		st = say(s->print, s->ctx, e, "%s: %lld points%s%s", r->label[g], (long long)r->points[g], fit, ci);
	}
	if (!st && r->skipped)
		st = say(s->print, s->ctx, e, "skipped %lld records or rows without numbers at both %s and %s",
		         (long long)r->skipped, fo->x, fo->y);
	if (!st)
		st = say(s->print, s->ctx, e, "%s.%s, %s.csv, %s.py, %s.fit.json%s", fo->stem,
		         r->drawn ? "png, .svg, .gp, .dat" : "gp, .dat", fo->stem, fo->stem, fo->stem,
		         r->drawn ? "" : " (no gnuplot: no pictures; the .py script draws them with matplotlib)");
	return st;
}

/* The outputs STEM.* must not overwrite an input. */
static int figure_distinct(const lbt_figure_opts *fo, lbt_err *e)
{
	static const char *const ext[] = {".csv", ".dat", ".gp", ".py", ".fit.json", ".png", ".svg"};
	enum { NOUT = sizeof ext / sizeof *ext };
	char outp[NOUT][4200];
	lbt_io_name outs[NOUT];
	for (int i = 0; i < NOUT; i++) {
		snprintf(outp[i], sizeof outp[i], "%s%s", fo->stem, ext[i]);
		outs[i] = (lbt_io_name){"--out", outp[i]};
	}
	lbt_io_name *ins = malloc((size_t)(fo->ninputs + 1) * sizeof *ins);
	if (!ins)
		return lbt_errf(e, LBT_ENOMEM, "no memory");
	for (int i = 0; i < fo->ninputs; i++)
		ins[i] = (lbt_io_name){"the input", fo->inputs[i]};
	int st = lbt_io_distinct(ins, fo->ninputs, outs, NOUT, e);
	free(ins);
	return st;
}

/* The engine's options from the caller's, checked (the fit by name). */
static int figure_opts(const lbt_figure_spec *s, lbt_figure_opts *fo, lbt_err *e)
{
	if (!s || s->version != FIGURE_VERSION)
		return lbt_errf(e, LBT_EINVAL, "figure options not made by lbt_figure_default()");
	*fo = (lbt_figure_opts){.inputs = s->inputs, .ninputs = s->ninputs, .x = s->x, .y = s->y, .group = s->group,
	                        .logx = s->logx, .logy = s->logy, .title = s->title, .stem = s->stem ? s->stem : "plot"};
	lbt_err sub;
	if (s->fit && lbt_fit_parse(s->fit, &fo->fit, &sub))
		return lbt_errf(e, LBT_EINVAL, "plot: %s", sub.msg);
	if (!fo->x || !fo->y || fo->ninputs < 0 || (fo->ninputs && !fo->inputs))
		return lbt_errf(e, LBT_EINVAL, "plot: a figure needs the keys x and y and its inputs");
	return figure_distinct(fo, e);
}

int lbt_figure_check(const lbt_figure_spec *s, lbt_err *e)
{
	lbt_figure_opts fo;
	return figure_opts(s, &fo, e);
}

int lbt_figure_write(const lbt_figure_spec *s, lbt_err *e)
{
	lbt_figure_opts fo;
	lbt_figure_result r;
	int st = figure_opts(s, &fo, e);
	if (!st)
		st = lbt_figure(&fo, &r, e);
	return st ? st : figure_lines(s, &fo, &r, e);
}

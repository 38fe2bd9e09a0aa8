/* batch.c — the public API's sweeps and Theorem 3 (lbtorus.h): the options
 * of `lbtorus sweep` and `lbtorus bound` as text, checked here with their
 * one-line messages; the plan from a spec file, the axes and the defaults;
 * the outputs checked against the inputs; the runs with their counts; and
 * Henrich's (1996) Theorem 3 fitted and published as one directory. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lbtorus/bound.h"
#include "lbtorus/comm.h"
#include "comm/comm.h"
#include "lbtorus/io.h"
#include "lbtorus/kernels.h"
#include "lbtorus/number.h"
#include "lbtorus/provenance.h"
#include "lbtorus/run.h"
#include "lbtorus/sweep.h"

#define SWEEP_VERSION 0x4c425331u /* "LBS1": made by lbt_sweep_default */
#define BOUND_VERSION 0x4c425431u /* "LBT1": made by lbt_bound_default */
#define NAXIS (int)(sizeof ((lbt_sweep_opts *)0)->axis / sizeof ((lbt_sweep_opts *)0)->axis[0])

lbt_sweep_opts lbt_sweep_default(void) { return (lbt_sweep_opts){.version = SWEEP_VERSION, .solo_pes = 65536}; }

/* The spec's axis of an option name, as lbt_spec_add takes it; -1: none. */
static int option_axis(const char *name)
{
	if (!strcmp(name, "max-steps"))
		return LBT_NAXES;
	if (!strcmp(name, "warmup"))
		return LBT_NAXES + 1;
	const int a = lbt_spec_axis_find(name);
	return a >= LBT_NAXES || !strcmp(name, "seeds") ? -1 : a;
}

/* One axis option into sp, with the message the command line gets. */
static int add_axis(lbt_spec *sp, int axis, const char *name, const char *value, lbt_err *e)
{
	int64_t v;
	char opt[32];
	snprintf(opt, sizeof opt, "--%s", name);
	if (axis >= LBT_NAXES && lbt_parse_i64(value, 0, INT64_MAX, opt, &v, e))
		return LBT_EINVAL;
	return lbt_spec_add(sp, axis, value, e);
}

int lbt_sweep_set(lbt_sweep_opts *o, const char *name, const char *value, lbt_err *e)
{
	if (!o || o->version != SWEEP_VERSION || !name || !value)
		return lbt_errf(e, LBT_EINVAL, "lbt_sweep_set: options made by lbt_sweep_default(), a name and a value");
	if (!strcmp(name, "solo-pes"))
		return lbt_parse_i64(value, 1, LBT_MAX_PES, "--solo-pes", &o->solo_pes, e) ? LBT_EINVAL : LBT_OK;
	const int axis = option_axis(name);
	if (axis < 0)
		return lbt_errf(e, LBT_EINVAL, "lbt_sweep_set: no sweep option '%s'", name);
	lbt_spec sp;
	lbt_spec_init(&sp);
	int st = add_axis(&sp, axis, name, value, e); /* checked now: the message comes where the option is */
	lbt_spec_free(&sp);
	for (int i = 0; !st && i < NAXIS; i++)
		if (!o->axis[i].name) {
			o->axis[i].name = name;
			o->axis[i].value = value;
			return LBT_OK;
		}
	return st ? st : lbt_errf(e, LBT_ERANGE, "more than %d axis options", NAXIS);
}

int lbt_batch_check(const lbt_batch *b, lbt_err *e)
{
	if (!b || b->version != lbt_batch_default().version)
		return lbt_errf(e, LBT_EINVAL, "batch options not made by lbt_batch_default()");
	lbt_kernels k;
	return lbt_kernels_select(&k, b->isa, e);
}

/* A sweep being made: its plan and what it needs until the end. */
typedef struct {
	const lbt_sweep_opts *o;
	const lbt_batch *b;
	lbt_spec cmd, spec;
	lbt_plan pl;
	int named;             /* the spec file is a provenance input */
	lbt_sweep_counts c;
} sweep;

static void sweep_free(sweep *s)
{
	lbt_plan_free(&s->pl);
	lbt_spec_free(&s->spec);
	lbt_spec_free(&s->cmd);
	if (s->named)
		lbt_provenance_drop_input("spec");
}

static int check_opts(const lbt_sweep_opts *o, const lbt_batch *b, lbt_err *e)
{
	if (!o || o->version != SWEEP_VERSION)
		return lbt_errf(e, LBT_EINVAL, "sweep options not made by lbt_sweep_default()");
	if (!b || b->version != lbt_batch_default().version)
		return lbt_errf(e, LBT_EINVAL, "batch options not made by lbt_batch_default()");
	return LBT_OK;
}

/* The axes given as options, in their order. */
static int sweep_axes(sweep *s, lbt_err *e)
{
	lbt_spec_init(&s->cmd);
	lbt_spec_init(&s->spec);
	int st = LBT_OK;
	for (int i = 0; !st && i < NAXIS && s->o->axis[i].name; i++) {
		const int axis = option_axis(s->o->axis[i].name);
		st = axis < 0 ? lbt_errf(e, LBT_EINVAL, "no sweep option '%s'", s->o->axis[i].name)
		              : add_axis(&s->cmd, axis, s->o->axis[i].name, s->o->axis[i].value, e);
	}
	return st;
}

/* The plan: the options' axes over the spec file's over base's (may be
 * NULL) over the defaults. */
static int sweep_plan(sweep *s, const lbt_spec *base, lbt_err *e)
{
	lbt_spec file;
	lbt_spec_init(&file);
	int st = LBT_OK;
	s->spec = s->cmd;
	lbt_spec_init(&s->cmd); /* spec owns the items now */
	if (s->o->spec && !(st = lbt_spec_read(&file, s->o->spec, e)) &&
	    !(st = lbt_provenance_add_input("spec", s->o->spec, e))) /* its checksum in every record */
		s->named = 1;
	if (!st)
		st = lbt_spec_merge(&s->spec, &file, 0, e);
	if (!st)
		st = lbt_spec_merge(&s->spec, base, 1, e);
	if (!st)
		st = lbt_plan_build(&s->pl, &s->spec, e);
	lbt_spec_free(&file);
	return st;
}

/* The plan's runs to o->planned (rank 0), nothing run. */
static void sweep_dry(sweep *s)
{
	s->c.total = s->pl.n;
	for (int64_t i = 0; s->c.rank == 0 && s->o->planned && i < s->pl.n; i++)
		s->o->planned(s->o->ctx, s->pl.run[i].id, s->pl.run[i].key);
}

/* The outputs against each other and against the inputs: the spec file,
 * `from` (NULL: none) and the init files; out[0] is the results file (path
 * NULL: none), whose RESULTS.torn is an output too. */
static int sweep_distinct(const sweep *s, const char *from, const lbt_io_name *out, int nout, lbt_err *e)
{
	const int64_t ni = s->spec.n[LBT_AX_INIT];
	lbt_io_name *in = malloc((size_t)(ni + 2) * sizeof *in), *outs = malloc((size_t)(nout + 1) * sizeof *outs);
	char torn[4200];
	int st = in && outs ? LBT_OK : lbt_errf(e, LBT_ENOMEM, "no memory to compare the files");
	if (!st) {
		memcpy(outs, out, (size_t)nout * sizeof *outs);
		outs[nout] = (lbt_io_name){"the torn-line file", NULL};
		if (out[0].path && (size_t)snprintf(torn, sizeof torn, "%s.torn", out[0].path) < sizeof torn)
			outs[nout].path = torn;
		in[0] = (lbt_io_name){"--spec", s->o->spec};
		in[1] = (lbt_io_name){"--from", from};
		for (int64_t i = 0; i < ni; i++) {
			const char *it = s->spec.item[LBT_AX_INIT][i];
			in[i + 2] = (lbt_io_name){"--init", strncmp(it, "file:", 5) ? NULL : it + 5};
		}
		st = lbt_io_distinct(in, (int)ni + 2, outs, nout + 1, e);
	}
	free(in);
	free(outs);
	return st;
}

static void counts_of(lbt_sweep_counts *c, const lbt_sweep_progress *p)
{
	const int64_t fin = p->done + p->failed;
	c->total = p->total;
	c->skipped = p->skipped;
	c->done = p->done;
	c->failed = p->failed;
	c->unconverged = p->unconverged;
	c->seconds = p->seconds;
	c->rate = p->seconds > 0 ? (double)fin / p->seconds : 0.0;
	c->eta = p->work_done > 0 ? p->seconds * (p->work_total - p->work_done) / p->work_done : -1;
	c->torn = p->truncated;
	c->completed = p->completed;
}

static void on_progress(void *ctx, const lbt_sweep_progress *p)
{
	sweep *s = ctx;
	counts_of(&s->c, p);
	s->o->progress(s->o->ctx, &s->c);
}

/* The plan's runs into results; the last progress call has end set.
 * LBT_EINTR: stopped by the batch's interrupt (under MPI: some rank's, on
 * every rank; the sweep's outcome is already every rank's). */
static int sweep_exec(sweep *s, const char *results, lbt_err *e)
{
	const lbt_sweep_opts *o = s->o;
	lbt_exec_opts so = {.jobs = s->b->threads, .threads = o->threads, .solo_pes = o->solo_pes, .isa = s->b->isa,
	                    .verify = o->verify, .mpi = lbt_comm_size() > 1, .interrupt = s->b->interrupt,
	                    .on_progress = o->progress ? on_progress : NULL, .ctx = s};
	lbt_sweep_progress p;
	int st = lbt_sweep_exec(&s->pl, results, &so, &p, e);
	if (!st && lbt_comm_stop(s->b->interrupt, 0))
		st = lbt_errf(e, LBT_EINTR, "interrupted: %lld of %lld runs are in %s", (long long)(p.done + p.skipped),
		              (long long)p.total, results);
	counts_of(&s->c, &p);
	s->c.end = 1;
	s->c.status = st;
	if (s->c.rank == 0 && o->progress)
		o->progress(o->ctx, &s->c);
	return st;
}

int lbt_sweep_run(const lbt_sweep_opts *o, const lbt_batch *b, lbt_sweep_counts *c, lbt_err *e)
{
	sweep s = {.o = o, .b = b, .c = {.rank = lbt_comm_rank()}};
	int st = check_opts(o, b, e);
	if (!st && !o->results && !o->dry_run)
		st = lbt_errf(e, LBT_EINVAL, "a sweep needs a results file");
	const lbt_io_name out = {"--results", o ? o->results : NULL};
	if (!st && !(st = sweep_axes(&s, e)) && !(st = sweep_plan(&s, NULL, e)) &&
	    !(st = sweep_distinct(&s, NULL, &out, 1, e))) {
		if (o->dry_run)
			sweep_dry(&s);
		else
			st = sweep_exec(&s, o->results, e);
	}
	if (c)
		*c = s.c;
	sweep_free(&s);
	return st;
}

/* lbt_sweep_file's progress as one line for the caller's note. */
static void file_note(void *ctx, const lbt_sweep_counts *c)
{
	const lbt_batch *b = ctx;
	char line[160];
	if (c->end)
		return;
	snprintf(line, sizeof line, "%lld of %lld runs done (%lld skipped, %lld failed)", (long long)(c->done + c->failed),
	         (long long)(c->total - c->skipped), (long long)c->skipped, (long long)c->failed);
	b->note(b->ctx, line);
}

int lbt_sweep_file(const char *spec, const char *results, const lbt_batch *b, lbt_err *e)
{
	if (!spec || !results)
		return lbt_errf(e, LBT_EINVAL, "a sweep needs a spec file and a results file");
	lbt_sweep_opts o = lbt_sweep_default();
	o.spec = spec;
	o.results = results;
	o.progress = b->note ? file_note : NULL;
	o.ctx = (void *)b;
	return lbt_sweep_run(&o, b, NULL, e);
}

/* ---- Theorem 3 -------------------------------------------------------- */

/* The default sweep: rings, K x K and K^3, K^4 tori; the paper's worst case
 * (Ldiff = c·P, all load on one PE), a step of height H (half the torus
 * holds H + 1, the rest 1: the tight case) and uniform loads 1..L (every PE
 * loaded, as the theorem assumes), Ldiff up to 2047: 420 runs, 8 s on 2
 * cores with the AVX2 kernels (docs/usage.md). */
lbt_bound_opts lbt_bound_default(void)
{
	return (lbt_bound_opts){.version = BOUND_VERSION, .sweep = lbt_sweep_default(), .out_dir = "bound",
	                        .shape = "ring:8..2048*2, torus2:4..128*2, torus3:4..16*2, torus4:4..8*2",
	                        .init = "worst:1, worst:5, half:4..256*4, uniform:1:8..2048*4", .seed = "1..3",
	                        .until = "balanced"};
}

/* One lbt_bound_run: the sweep, the points fitted, and how far it got. */
typedef struct {
	const lbt_bound_opts *o;
	sweep s;
	lbt_spec base;
	const char *from;
	char runs[4200];        /* DIR/runs.jsonl */
	int created;            /* made DIR: removed again if still empty when bound fails */
	int from_named;         /* --from is a provenance input */
	lbt_jsonl *recs;
	lbt_bound_point *pts;
	int64_t n, skipped;
	char *method;
	lbt_bound_stats f;
	lbt_bound_result *r;
} bound;

static int stopped(const bound *t) { return t->s.b->interrupt && *t->s.b->interrupt; }

/* The plan (bound's default axes under the options; dry_run: only listed),
 * the outputs checked against the inputs, DIR made, and the sweep run into
 * DIR/runs.jsonl unless `from` gives the records. */
static int bound_sweep(bound *t, lbt_err *e)
{
	const lbt_bound_opts *o = t->o;
	int st = LBT_OK;
	if (!t->from) {
		const char *const base[][2] = {{"shape", o->shape}, {"init", o->init}, {"seed", o->seed}, {"until", o->until}};
		for (size_t i = 0; !st && i < sizeof base / sizeof base[0]; i++)
			if (base[i][1])
				st = lbt_spec_add(&t->base, lbt_spec_axis_find(base[i][0]), base[i][1], e);
		if (!st)
			st = sweep_plan(&t->s, &t->base, e);
		if (!st && o->sweep.dry_run) {
			sweep_dry(&t->s);
			return st;
		}
	}
	char csv[4200], json[4200];
	snprintf(t->runs, sizeof t->runs, "%s/runs.jsonl", o->out_dir);
	snprintf(csv, sizeof csv, "%s/bound.csv", o->out_dir);
	snprintf(json, sizeof json, "%s/bound.json", o->out_dir);
	const lbt_io_name outs[] = {{"bound's", t->from ? NULL : t->runs}, {"bound's", csv}, {"bound's", json}};
	if (!st)
		st = sweep_distinct(&t->s, t->from, outs, 3, e);
	struct stat sb;
	if (!st && t->s.c.rank == 0 && !stat(o->out_dir, &sb) && !S_ISDIR(sb.st_mode)) /* under MPI rank 0 writes */
		st = lbt_errf(e, LBT_EINVAL, "bound: --out %s exists and is not a directory", o->out_dir);
	if (!st && t->s.c.rank == 0 && !(t->created = !mkdir(o->out_dir, 0777)) && errno != EEXIST)
		st = lbt_errf(e, LBT_EIO, "bound: cannot create directory %s: %s", o->out_dir, strerror(errno));
	if ((st = lbt_comm_agree(st, e)) || t->from)
		return st;
	if ((st = sweep_exec(&t->s, t->runs, e))) /* LBT_EINTR: a signal on some rank cut its runs short */
		return st;
	t->from = t->runs;
	t->r->ran = 1;
	return LBT_OK;
}

/* A plan's run key and its place in the plan. */
typedef struct {
	const char *key;
	int64_t at;
	lbt_bound_point p;
} planned;

static int cmp_planned_key(const void *a, const void *b) { return strcmp(((const planned *)a)->key, ((const planned *)b)->key); }
static int cmp_planned_at(const void *a, const void *b)
{
	const int64_t x = ((const planned *)a)->at, y = ((const planned *)b)->at;
	return (x > y) - (x < y);
}

/* Keep of the points only this plan's runs (the file may hold others), in
 * the plan's order: the file's is the order the runs finished in, which
 * depends on the threads and ranks that ran them. */
static int bound_this_plan(bound *t, lbt_err *e)
{
	const lbt_plan *pl = &t->s.pl;
	planned *keys = malloc((size_t)pl->n * sizeof *keys), *mine = malloc((size_t)(t->n ? t->n : 1) * sizeof *mine);
	if (!keys || !mine) {
		free(keys);
		free(mine);
		return lbt_errf(e, LBT_ENOMEM, "no memory for the plan's keys");
	}
	for (int64_t j = 0; j < pl->n; j++)
		keys[j] = (planned){.key = pl->run[j].key, .at = j};
	qsort(keys, (size_t)pl->n, sizeof *keys, cmp_planned_key);
	int64_t k = 0;
	for (int64_t i = 0; i < t->n; i++) {
		const planned want = {.key = t->pts[i].key}, *hit = bsearch(&want, keys, (size_t)pl->n, sizeof *keys,
		                                                            cmp_planned_key);
		if (hit)
			mine[k++] = (planned){.key = hit->key, .at = hit->at, .p = t->pts[i]};
	}
	qsort(mine, (size_t)k, sizeof *mine, cmp_planned_at);
	for (int64_t i = 0; i < k; i++)
		t->pts[i] = mine[i].p;
	t->skipped += t->n - k;
	t->n = k;
	free(keys);
	free(mine);
	return LBT_OK;
}

/* The method's points of the records, fitted. */
static int bound_fit(bound *t, lbt_err *e)
{
	int st = lbt_jsonl_open(&t->recs, t->from, e);
	if (!st && !t->r->ran && !(st = lbt_provenance_add_input("from", t->from, e))) /* given: in the manifest */
		t->from_named = 1;
	if (!st)
		st = lbt_bound_points(t->recs, t->method, &t->pts, &t->n, &t->skipped, e);
	if (!st && t->s.pl.n)
		st = bound_this_plan(t, e);
	if (!st && t->n == 0)
		st = lbt_errf(e, LBT_EINVAL, "no %s run in %s reached balanced on a symmetric torus", t->method, t->from);
	if (!st && lbt_bound_fit(t->pts, t->n, &t->f))
		st = lbt_errf(e, LBT_EINVAL, "no %s run in %s to fit: %lld with an idle PE at the start (outside Theorem "
		              "3's premise: every PE loaded, e.g. uniform:1:100 rather than uniform:0:100), %lld stopped at "
		              "--max-steps", t->method, t->from, (long long)t->f.broken_n, (long long)t->f.censored_n);
	return st;
}

/* bound.csv, bound.json, the plots and the manifest, published together
 * (lbt_outdir) unless a signal came: a failure leaves the earlier ones in
 * DIR whole. Without gnuplot the data files are published all the same. */
static int bound_publish(bound *t, lbt_err *e)
{
	lbt_outdir od = {0};
	char path[4500];
	int st = lbt_outdir_open(&od, t->o->out_dir, e);
	if (!st) {
		snprintf(path, sizeof path, "%s/bound.csv", od.stage);
		st = lbt_bound_write_csv(path, t->pts, t->n, e);
	}
	if (!st) {
		snprintf(path, sizeof path, "%s/bound.json", od.stage);
		st = lbt_bound_write_json(path, t->method, &t->f, t->pts, t->n, e);
	}
	if (!st && !stopped(t)) { /* no plot is drawn after a signal */
		lbt_err pe;
		snprintf(path, sizeof path, "%s/bound", od.stage);
		const int plots = lbt_bound_plots(path, t->o->titles, &t->f, t->pts, t->n, &pe);
		if (plots && plots != LBT_EUNSUP)
			st = lbt_errf(e, plots, "plots: %s", pe.msg);
		if (plots)
			snprintf(t->r->plots, sizeof t->r->plots, "%s", pe.msg);
		t->r->drawn = !plots;
	}
	if (!st && !stopped(t)) /* bound.manifest.json: what made these files, and their checksums */
		st = lbt_provenance_manifest(od.stage, "bound", t->s.b->isa, t->o->sweep.threads, e);
	const int go = !st && !stopped(t); /* after a signal the commit is refused too */
	if (go)
		st = lbt_outdir_commit(&od, e);
	else
		lbt_outdir_abort(&od, e);
	t->r->published = go && !st;
	return st;
}

/* The summary `lbtorus bound` prints, a line at a time to b->note. */
static void bound_summary(const bound *t)
{
	const lbt_bound_stats *f = &t->f;
	const lbt_bound_point *w = &t->pts[f->argmax];
	const char *dir = t->o->out_dir;
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);
	if (!m)
		return;
	fprintf(m, "Theorem 3 (Henrich 1996), %s: T = steps until balanced; %lld runs (%lld records skipped)\n", t->method,
	        (long long)t->n, (long long)t->skipped);
	fprintf(m, "  fitted runs         %lld, every PE loaded at the start (the theorem's premise L_i > 0)\n",
	        (long long)f->n);
	if (f->broken_n)
		fprintf(m, "  outside the premise %lld runs with an idle PE at the start (e.g. worst:C), not fitted: "
		        "T/(D*K*Ldiff) mean %.4g, max %.4g\n", (long long)f->broken_n, f->broken_mean_ratio,
		        f->broken_max_ratio);
	if (f->censored_n)
		fprintf(m, "  censored            %lld runs stopped at --max-steps before balanced (T > cap), not fitted: "
		        "T/(D*K*Ldiff) > %.4g for the largest%s\n", (long long)f->censored_n, f->censored_max_ratio,
		        f->censored_max_ratio > f->max_ratio ? " -- above the envelope, which is therefore only a lower bound"
		                                             : "");
	if (f->n > 1)
		fprintf(m, "  c, mean of ratios   T ~ %.4g * D*K*Ldiff   (95%% CI %.4g..%.4g, n = %lld; rms relative residual "
		        "%.2g)\n", f->c, f->c_lo95, f->c_hi95, (long long)f->n, f->rms_rel);
	else
		fprintf(m, "  c, mean of ratios   T ~ %.4g * D*K*Ldiff   (one run: no interval)\n", f->c);
	fprintf(m, "  c, OLS              T ~ %.4g * D*K*Ldiff   (least squares of T on D*K*Ldiff through 0; "
	        "rms relative residual %.2g)\n", f->c_abs, f->rms_rel_ols);
	fprintf(m, "  T/(D*K*Ldiff)       min %.4g, quartiles %.4g / %.4g / %.4g, max %.4g\n", f->min_ratio, f->q1_ratio,
	        f->median_ratio, f->q3_ratio, f->max_ratio);
	fprintf(m, "  envelope            T <= %.4g * D*K*Ldiff on every fitted run; the tightest: %s\n", f->max_ratio,
	        w->key);
	fprintf(m, "  T in shifts         mean of T_shifts/(D*K*Ldiff) %.4g (the paper's unit; D shifts per LM step)\n",
	        f->c_shifts);
	if (f->power_ok)
		fprintf(m, "  power law           T ~ %.3g * D^%.2f * K^%.2f * Ldiff^%.2f   (R^2 %.3f, %d runs; spans x%.3g, "
		        "x%.3g, x%.3g)\n", exp(f->a), f->pd, f->pk, f->pl, f->r2, f->power_n, f->span_d, f->span_k,
		        f->span_l);
	lbt_bound_describe(m, f, "  ");
	fprintf(m, "  files               %s/bound.csv, %s/bound.json\n", dir, dir);
	if (t->r->drawn)
		fprintf(m, "  plots               %s/bound_d.png, %s/bound_k.png, %s/bound_ldiff.png (and .svg)\n", dir, dir,
		        dir);
	fclose(m);
	for (char *l = text, *nl; l < text + len; l = nl + 1) {
		nl = strchr(l, '\n');
		*nl = 0;
		t->s.b->note(t->s.b->ctx, l);
	}
	free(text);
}

static void bound_result(bound *t)
{
	lbt_bound_result *r = t->r;
	r->sweep = t->s.c;
	r->points = t->n;
	r->skipped = t->skipped;
	r->fitted = t->f.n;
	r->c = t->f.c;
	r->c_lo95 = t->f.c_lo95;
	r->c_hi95 = t->f.c_hi95;
	r->c_ols = t->f.c_abs;
	r->envelope = t->f.max_ratio;
}

int lbt_bound_run(const lbt_bound_opts *o, const lbt_batch *b, lbt_bound_result *r, lbt_err *e)
{
	lbt_bound_result ignored;
	if (!r)
		r = &ignored;
	memset(r, 0, sizeof *r);
	if (!o || o->version != BOUND_VERSION)
		return lbt_errf(e, LBT_EINVAL, "bound options not made by lbt_bound_default()");
	bound t = {.o = o, .s = {.o = &o->sweep, .b = b, .c = {.rank = lbt_comm_rank()}}, .from = o->from, .r = r};
	lbt_spec_init(&t.base);
	int st = check_opts(&o->sweep, b, e);
	if (!st && !o->out_dir)
		st = lbt_errf(e, LBT_EINVAL, "bound: no output directory (out_dir is NULL)");
	if (!st && !(st = sweep_axes(&t.s, e)) && t.s.cmd.n[LBT_AX_METHOD] > 1)
		st = lbt_errf(e, LBT_EINVAL, "bound: give one --method (the constant is per method)");
	if (!st && !(t.method = strdup(t.s.cmd.n[LBT_AX_METHOD] ? t.s.cmd.item[LBT_AX_METHOD][0] : "lm-c5")))
		st = lbt_errf(e, LBT_ENOMEM, "bound: no memory");
	if (!st && t.from)
		lbt_spec_free(&t.s.cmd); /* the records are given: no sweep */
	if (!st)
		st = bound_sweep(&t, e);
	const int fit = !st && !(o->sweep.dry_run && !o->from);
	if (fit && t.s.c.rank == 0) { /* under MPI rank 0 fits, writes and tells */
		st = bound_fit(&t, e);
		if (!st)
			st = bound_publish(&t, e);
		if (!st && !stopped(&t) && b->note)
			bound_summary(&t);
	}
	if (fit) /* its outcome every rank's */
		st = lbt_comm_agree(st, e);
	if (stopped(&t) && !st)
		st = lbt_errf(e, LBT_EINTR, "bound: interrupted");
	if (st && t.created)
		rmdir(o->out_dir);
	bound_result(&t);
	if (fit)
		lbt_comm_bcast(r, sizeof *r);
	free(t.pts);
	free(t.method);
	lbt_jsonl_close(t.recs);
	lbt_spec_free(&t.base);
	if (t.from_named)
		lbt_provenance_drop_input("from");
	sweep_free(&t.s);
	return st;
}

/* outputs.c — the files `lbtorus run` writes, as the public API writes them
 * for any program (lbt_sim_outputs): the JSON record, the trace, the dump,
 * snapshots and an animation, each written to a temporary and committed
 * together when the run ends; and what a run is, its bounds, the stop
 * criteria and the papers' numbers, for what a program prints beside them. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lbtorus/comm.h"
#include "lbtorus/heatmap.h"
#include "lbtorus/io.h"
#include "lbtorus/npy.h"
#include "lbtorus/provenance.h"
#include "lbtorus/reproduce.h"
#include "sim.h"

#define OUTPUTS_VERSION 0x4c424f31u /* "LBO1": made by lbt_outputs_default */

struct lbt_sim_files {
	lbt_outfile json, trace, dump;
	int writer;           /* rank 0: it writes the files (every rank its block of the dump) */
	int has_trace, has_dump, workload;
	const char *comm_stats;
	/* pictures: snapshots, animation (on a cut torus rank 0 takes them of
	   the whole torus, gathered at each picture: every rank has pics) */
	int pics, cut;
	lbt_grid whole;       /* cut, rank 0: the whole torus's loads (whole_open) */
	int whole_open;
	int32_t *dense;       /*   and the buffer they are gathered into */
	const char *snap_dir; /* the staging directory of snaps; NULL: none */
	lbt_outdir snaps;     /* published together at the end */
	lbt_anim *anim;
	lbt_heat heat;
	int64_t every, last_pic;
	int pic_status;
	lbt_err pic_err;
};

int lbt_sim_cut(void)
{
	const char *env = getenv("LBTORUS_CUT");
	return lbt_comm_size() > 1 || (env && !strcmp(env, "1"));
}

/* The run's inputs as given, "# key: value" lines after the provenance at
 * the top of a trace, so that `lbtorus plot --group method` (or shape,
 * seed, ...) groups traces as it groups records. */
char *lbt_sim_inputs(const lbt_state *st, const lbt_setup *set, const char *until, const lbt_run_opts *ro)
{
	char *text = NULL, buf[256];
	size_t n = 0;
	FILE *f = open_memstream(&text, &n);
	if (!f)
		return NULL;
	fprintf(f, "# method: %s", st->method->name);
	for (int i = 0; i < LBT_MAX_PARAMS && set->params[i].name; i++)
		fprintf(f, ":%s=%s", set->params[i].name, set->params[i].value);
	lbt_shape_format(&st->grid.whole, buf, sizeof buf);
	fprintf(f, "\n# shape: %s\n", buf);
	lbt_boundary_format(&st->grid.whole, buf, sizeof buf);
	fprintf(f, "# boundary: %s\n# init: %s\n# seed: %llu\n# until: %s\n", buf, set->init ? set->init : "worst:5",
	        (unsigned long long)set->seed, until);
	if (ro->workload)
		fprintf(f, "# workload: %s\n# warmup: %lld\n", ro->workload->spec, (long long)ro->warmup);
	if (fclose(f)) {
		free(text);
		return NULL;
	}
	return text;
}

lbt_outputs lbt_outputs_default(void)
{
	return (lbt_outputs){.version = OUTPUTS_VERSION, .every = 10, .delay = 8};
}

/* The pictures' numbers in range (the CLI's options check them first). */
static int picturable(const lbt_outputs *o)
{
	return o->every >= 1 && o->heat_max >= 0 && o->heat_max <= INT32_MAX && o->zoom >= 0 && o->zoom <= 64 &&
	       o->delay >= 0 && o->delay <= 65535;
}

int lbt_outputs_check(const lbt_outputs *o, const lbt_config *c, lbt_err *e)
{
	if (!o || o->version != OUTPUTS_VERSION || !c)
		return lbt_errf(e, LBT_EINVAL, "outputs not made by lbt_outputs_default(), or no configuration");
	const char *cmd = c->as_command ? c->as_command : "", *sep = c->as_command ? ": " : "";
	if (!picturable(o))
		return lbt_errf(e, LBT_EINVAL, "%s%soutputs: every >= 1, heat_max 0..2^31-1, zoom 0..64, delay 0..65535", cmd,
		                sep);
	/* no output over another or over an input, however spelled */
	const lbt_io_name in[] = {{"--init", c->init && !strncmp(c->init, "file:", 5) ? c->init + 5 : NULL},
	                          {"--speeds", c->speeds && !strncmp(c->speeds, "file:", 5) ? c->speeds + 5 : NULL}};
	const lbt_io_name out[] = {{"--json", o->json}, {"--trace", o->trace}, {"--dump", o->dump},
	                           {"--animate", o->animate}};
	int status = lbt_io_distinct(in, 2, out, 4, e);
	if (status && *cmd) {
		char msg[sizeof e->msg];
		snprintf(msg, sizeof msg, "%s", e->msg);
		snprintf(e->msg, sizeof e->msg, "%s%s%.480s", cmd, sep, msg);
	}
	return status;
}

/* On a cut torus: every rank's loads into rank 0's copy of the whole
 * torus (collective). */
static int gather_whole(lbt_sim_files *f, const lbt_grid *g, lbt_err *e)
{
	int st = lbt_field_gather(g, lbt_grid_field(g, "load"), f->dense, e);
	if (!st && f->whole_open)
		lbt_grid_import(&f->whole, f->dense);
	return st;
}

/* One snapshot (PNG + .npy) and/or GIF frame of the current state: on a cut
 * torus of the whole torus, gathered on rank 0, which writes them, its
 * status then every rank's. */
static void picture(lbt_sim_files *f, const lbt_grid *g, int64_t step)
{
	if (f->pic_status || step == f->last_pic)
		return;
	f->last_pic = step;
	if (f->cut) {
		f->pic_status = gather_whole(f, g, &f->pic_err);
		g = &f->whole;
	}
	if (f->snap_dir && !f->pic_status) {
		char path[4200];
		snprintf(path, sizeof path, "%s/step_%08lld.png", f->snap_dir, (long long)step);
		int32_t *dense = NULL;
		if (!(f->pic_status = lbt_heat_png(path, g, &f->heat, step, &f->pic_err)) &&
		    !(dense = malloc((size_t)lbt_shape_pes(&g->shape) * sizeof *dense)))
			f->pic_status = lbt_errf(&f->pic_err, LBT_ENOMEM, "no memory for a snapshot");
		if (dense) {
			lbt_grid_export(g, dense);
			snprintf(path, sizeof path, "%s/step_%08lld.npy", f->snap_dir, (long long)step);
			f->pic_status = lbt_npy_write(path, &g->shape, dense, &f->pic_err);
			free(dense);
		}
	}
	if (f->anim && !f->pic_status)
		f->pic_status = lbt_anim_frame(f->anim, g, step, &f->pic_err);
	if (f->cut)
		f->pic_status = lbt_comm_agree(f->pic_status, &f->pic_err);
}

/* Scale, zoom, the output folder and the GIF, before the run starts: on a
 * cut torus rank 0's, of the whole torus gathered, its status every rank's. */
static int open_pictures(lbt_sim_files *f, const lbt_grid *g, const lbt_outputs *o, lbt_err *e)
{
	f->pics = 1;
	f->cut = g->cut != NULL;
	f->every = o->every;
	f->last_pic = -1;
	int s = LBT_OK;
	if (f->cut) {
		if (f->writer && !(s = lbt_grid_init(&f->whole, &g->whole, e)))
			f->whole_open = 1;
		if (f->writer && !s && !(f->dense = malloc((size_t)lbt_shape_pes(&g->whole) * sizeof *f->dense)))
			s = lbt_errf(e, LBT_ENOMEM, "no memory for the pictures of the whole torus");
		if (!(s = lbt_comm_agree(s, e)))
			s = lbt_comm_agree(gather_whole(f, g, e), e);
		g = &f->whole;
	}
	if (!s && f->writer) {
		s = lbt_heat_default(&f->heat, g, e);
		if (!s && o->heat_max)
			f->heat.hi = (int32_t)o->heat_max;
		if (!s && o->zoom)
			f->heat.zoom = (int)o->zoom;
		if (!s && o->snapshots && !(s = lbt_outdir_open(&f->snaps, o->snapshots, e)))
			f->snap_dir = f->snaps.stage;
		if (!s && o->animate)
			s = lbt_anim_open(&f->anim, o->animate, g, &f->heat, (int)o->delay, e);
	}
	return f->cut ? lbt_comm_agree(s, e) : s;
}

/* The whole torus's copy and buffer (a cut torus's pictures, rank 0). */
static void pictures_free(lbt_sim_files *f)
{
	if (f->whole_open)
		lbt_grid_free(&f->whole);
	f->whole_open = 0;
	free(f->dense);
	f->dense = NULL;
}

/* Every file, opened before running, so a bad path fails in a second, not
 * after an hour. On a cut torus rank 0 writes them, and all ranks learn
 * whether it could. The trace's header is written. */
static int open_files(lbt_sim *s, lbt_sim_files *f, const lbt_outputs *o, lbt_err *e)
{
	f->writer = lbt_comm_rank() == 0;
	f->has_trace = o->trace && f->writer;
	f->has_dump = o->dump != NULL;
	f->workload = s->ro.workload != NULL;
	f->comm_stats = o->comm_stats;
	int st = f->writer && o->json ? lbt_out_open(&f->json, o->json, e) : LBT_OK;
	int json = !st && f->writer && o->json, trace = 0, dump = 0; /* which are open */
	if (!st && f->has_trace)
		trace = !(st = lbt_out_open(&f->trace, o->trace, e));
	if (!st && o->dump && f->writer)
		dump = !(st = lbt_out_open(&f->dump, o->dump, e));
	if (!lbt_comm_min_int(!st) && !st)
		st = lbt_errf(e, LBT_EIO, "rank 0 could not open an output file");
	if (!st && (o->snapshots || o->animate))
		st = open_pictures(f, &s->st.grid, o, e);
	if (st) {
		if (json) lbt_out_abort(&f->json);
		if (trace) lbt_out_abort(&f->trace);
		if (dump) lbt_out_abort(&f->dump);
		if (o->snapshots) lbt_outdir_abort(&f->snaps, e);
		pictures_free(f);
		return st;
	}
	if (f->has_trace) { /* "# key: value" lines first: the provenance, the inputs */
		lbt_provenance_comment(f->trace.f, s->st.kern->isa, s->st.threads);
		fputs(s->inputs, f->trace.f);
		fputs(f->workload ? "step,shifts,max,min,ldiff,idle,stddev,moved,moved_total,rel,link_max,total,"
		                    "generated,completed,idle_capacity,sqdev\n"
		                  : "step,shifts,max,min,ldiff,idle,stddev,moved,moved_total,rel,link_max,total\n", f->trace.f);
	}
	return LBT_OK;
}

int lbt_sim_outputs(lbt_sim *s, const lbt_outputs *o, lbt_err *e)
{
	if (!s || !o || o->version != OUTPUTS_VERSION)
		return lbt_errf(e, LBT_EINVAL, "lbt_sim_outputs: a run and outputs made by lbt_outputs_default()");
	if (!picturable(o))
		return lbt_errf(e, LBT_EINVAL, "outputs: every >= 1, heat_max 0..2^31-1, zoom 0..64, delay 0..65535");
	lbt_sim_files_close(s);
	lbt_sim_files *f = calloc(1, sizeof *f);
	if (!f)
		return lbt_errf(e, LBT_ENOMEM, "no memory for the outputs");
	int status = open_files(s, f, o, e);
	if (status)
		free(f);
	else
		s->files = f;
	return status;
}

static void load_col(FILE *f, int real, double x)
{
	fputc(',', f);
	lbt_fprint_load(f, real, x);
}

void lbt_sim_files_step(lbt_sim *s, const lbt_step_record *r)
{
	lbt_sim_files *fs = s->files;
	if (fs->has_trace) {
		FILE *f = fs->trace.f;
		fprintf(f, "%lld", (long long)r->step);
		load_col(f, r->real, r->shifts);
		load_col(f, r->real, r->max);
		load_col(f, r->real, r->min);
		load_col(f, r->real, r->max - r->min);
		fprintf(f, ",%lld,%.6f", (long long)r->idle, r->stddev);
		load_col(f, r->real, r->moved);
		load_col(f, r->real, r->moved_total);
		fprintf(f, ",%.9g,%.17g", r->rel, r->link_max);
		load_col(f, r->real, r->total);
		if (fs->workload) {
			load_col(f, r->real, r->generated);
			load_col(f, r->real, r->completed);
			load_col(f, r->real, r->idle_capacity);
			fprintf(f, ",%.17g", r->sqdev);
		}
		fputc('\n', f);
	}
	if (fs->pics && r->step % fs->every == 0)
		picture(fs, &s->st.grid, r->step);
}

int lbt_sim_files_batch(const lbt_sim *s)
{
	return !s->files || !s->files->pics; /* a picture reads the grid after its step */
}

/* The last picture, the dump and the record; all files committed or none
 * (the files are rank 0's). */
int lbt_sim_files_finish(lbt_sim *s, int st, double seconds, lbt_err *err)
{
	lbt_sim_files *f = s->files;
	s->files = NULL;
	const lbt_grid *g = &s->st.grid;
	if (!st && f->pics) { /* collective on a cut torus: before what one rank alone may fail */
		picture(f, g, s->sum.steps); /* the last state, if not taken already */
		if ((st = f->pic_status))
			*err = f->pic_err;
	}
	if (!st && f->comm_stats) /* this rank's own time in lbt_run, whose collectives the tally counts */
		st = lbt_comm_tally_write(f->comm_stats, seconds, lbt_shape_pes(&g->shape), s->sum.steps, err);
	if (f->anim) {
		if (!st)
			st = lbt_anim_close(f->anim, err);
		else
			lbt_anim_abort(f->anim);
		f->anim = NULL;
	}
	if (g->cut && f->has_dump) /* the dump is collective: every rank enters it or none (the animation,
	                               * the tally's file may fail on one rank alone) */
		st = lbt_comm_agree(st, err);
	if (!st && f->has_dump) /* int32, or float64 for a real-valued method; every rank its slab */
		st = lbt_npy_dump(f->writer ? &f->dump : NULL, f->dump.path, g,
		                  lbt_grid_field(g, s->st.method->load == LBT_LOAD_REAL ? "real" : "load"), err);
	if (!st && f->json.f) {
		lbt_summary_json(f->json.f, &s->st, s->init, &s->last, &s->sum);
		fputc('\n', f->json.f);
	}
	if (f->writer) {
		if (!st && f->has_trace) st = lbt_out_commit(&f->trace, err);
		if (!st && f->has_dump) st = lbt_out_commit(&f->dump, err);
		if (!st && f->snap_dir) st = lbt_outdir_commit(&f->snaps, err);
		if (!st && f->json.f) st = lbt_out_commit(&f->json, err);
		if (st) {
			if (f->json.f) lbt_out_abort(&f->json);
			if (f->has_trace) lbt_out_abort(&f->trace);
			if (f->has_dump) lbt_out_abort(&f->dump);
			if (f->snap_dir) lbt_outdir_abort(&f->snaps, err);
		}
	}
	pictures_free(f);
	free(f);
	return st;
}

void lbt_sim_files_close(lbt_sim *s)
{
	lbt_sim_files *f = s->files;
	if (!f)
		return;
	if (f->anim)
		lbt_anim_abort(f->anim);
	if (f->writer) {
		if (f->json.f) lbt_out_abort(&f->json);
		if (f->has_trace) lbt_out_abort(&f->trace);
		if (f->has_dump) lbt_out_abort(&f->dump);
	}
	if (f->snap_dir)
		lbt_outdir_abort(&f->snaps, NULL);
	pictures_free(f);
	free(f);
	s->files = NULL;
}

int lbt_sim_describe(const lbt_sim *s, lbt_sim_info *i, lbt_err *e)
{
	if (!s || !i)
		return lbt_errf(e, LBT_EINVAL, "lbt_sim_describe: a run and a description");
	const lbt_grid *g = &s->st.grid;
	const lbt_shape *sh = &g->whole;
	const lbt_field *f = lbt_grid_field(g, s->st.method->load == LBT_LOAD_REAL ? "real" : "load");
	lbt_stats st;
	lbt_field_stats(g, f, 1, &st); /* collective on a cut torus */
	/* as the JSON record computes them from a run's initial loads */
	const int32_t max = (int32_t)fmin(fmax(floor(st.max), INT32_MIN), INT32_MAX);
	const int64_t total = f->type == LBT_I32 ? st.total : llround(st.rtotal);
	*i = (lbt_sim_info){.method = s->st.method->name, .isa = s->st.kern->isa, .threads = s->st.threads,
	                    .dims = sh->dims, .active_dims = lbt_shape_active_dims(sh), .pes = lbt_shape_pes(sh),
	                    .k = lbt_shape_kmax(sh), .rank = lbt_comm_rank(), .ranks = g->cut ? lbt_comm_size() : 1,
	                    .cut = g->cut != NULL, .dkl_bound = lbt_bound_dkl(sh, (int64_t)ceil(st.max - st.min)),
	                    .lower_bound_steps = lbt_bound_lower_steps(sh, max, total),
	                    .balanced_lower_bound_steps = lbt_bound_lower_balanced(sh, max, total)};
	return LBT_OK;
}

int lbt_until_describe(int i, lbt_until_info *u)
{
	if (i < 0 || i >= LBT_UNTIL_KINDS || !u)
		return LBT_EINVAL;
	*u = (lbt_until_info){.syntax = lbt_until_syntax((lbt_until_kind)i), .help = lbt_until_help((lbt_until_kind)i)};
	return LBT_OK;
}

int lbt_claim_value(const char *data_dir, const char *id, double *value, lbt_err *e)
{
	if (!id || !value)
		return lbt_errf(e, LBT_EINVAL, "lbt_claim_value: a claim id and somewhere to put its value");
	return lbt_repro_claim_value(data_dir, id, value, e);
}

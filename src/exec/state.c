/* state.c — from a textual set-up to a loaded grid with its kernels and an
 * open method. The method's parameters are checked against its schema here:
 * one it does not take is an error, one not given takes the default. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "lbtorus/comm.h"
#include "lbtorus/init.h"
#include "lbtorus/npy.h"
#include "lbtorus/method.h"
#include "lbtorus/speeds.h"
#include "comm/comm.h"
#include "../../kernels/internal.h" /* the Liquid model's reference, for blocks cut along several axes */

/* Fill st->param from cfg's arguments and the schema's defaults. */
static int method_params(lbt_state *st, const lbt_setup *cfg, lbt_err *e)
{
	const lbt_method *m = st->method;
	const char *given[LBT_MAX_PARAMS] = {0};
	for (int i = 0; i < LBT_MAX_PARAMS && cfg->params[i].name; i++) {
		const lbt_param *p = lbt_param_find(m, cfg->params[i].name);
		if (!p) {
			char takes[256];
			lbt_params_describe(m, takes, sizeof takes);
			return lbt_errf(e, LBT_EINVAL, "%s takes no parameter --%s (%s%s)", m->name, cfg->params[i].name,
			                *takes ? "it takes " : "it takes none", takes);
		}
		given[p - m->params] = cfg->params[i].value;
	}
	for (int i = 0; i < m->nparams; i++) {
		const lbt_param *p = &m->params[i];
		char why[160], opt[64];
		snprintf(opt, sizeof opt, "%s", p->name);
		for (char *c = opt; *c; c++)
			*c = *c == '_' ? '-' : *c;
		const char *text = given[i] ? given[i] : p->def;
		if (lbt_param_parse(p, text, &st->param[i], why, sizeof why))
			return lbt_errf(e, LBT_EINVAL, "--%s '%s': give %s", opt, text, why);
	}
	return LBT_OK;
}

/* An init file's header: its shape is the torus's when --shape is not
 * given (want NULL), and real values start only a real-valued method. On
 * a cut setup rank 0 reads it and sends it to every rank (collective). */
static int file_fits(const lbt_method *m, const lbt_init *init, const lbt_shape *want, lbt_shape *shape, int cut,
                     lbt_err *e)
{
	lbt_npy_info info;
	int status = lbt_npy_info_read_all(init->path, &info, cut, e);
	if (status)
		return status;
	if (!want)
		*shape = info.shape;
	if (info.real && m->load != LBT_LOAD_REAL) {
		char names[256] = "";
		size_t n = 0;
		for (const lbt_method *const *r = lbt_methods(); *r; r++)
			if ((*r)->load == LBT_LOAD_REAL && n < sizeof names)
				n += (size_t)snprintf(names + n, sizeof names - n, "%s%s", n ? ", " : "", (*r)->name);
		return lbt_errf(e, LBT_EINVAL, "%s holds real values (dtype float%d): only the real-valued methods (%s) "
		                "start from them; %s takes int32 or int64 loads", init->path, info.elem * 8, names, m->name);
	}
	int same = want ? info.shape.dims == want->dims : 1;
	for (int d = 0; want && same && d < want->dims; d++)
		same = info.shape.ext[d] == want->ext[d];
	if (!same) {
		char a[128], b[128];
		lbt_shape_format(&info.shape, a, sizeof a);
		lbt_shape_format(want, b, sizeof b);
		return lbt_errf(e, LBT_EINVAL, "%s has shape %s but the torus is %s", init->path, a, b);
	}
	return LBT_OK;
}

/* The memory this system can still give us, in bytes: MemAvailable plus free
 * swap, and no more than the address-space limit leaves; -1 if unknown. */
static double memory_available(void)
{
	double avail = -1;
	FILE *f = fopen("/proc/meminfo", "r");
	if (f) {
		char line[256];
		double kb, mem = -1, swap = 0;
		while (fgets(line, sizeof line, f)) {
			if (sscanf(line, "MemAvailable: %lf kB", &kb) == 1)
				mem = kb * 1024;
			else if (sscanf(line, "SwapFree: %lf kB", &kb) == 1)
				swap = kb * 1024;
		}
		fclose(f);
		avail = mem < 0 ? -1 : mem + swap;
	}
	struct rlimit rl;
	if (!getrlimit(RLIMIT_AS, &rl) && rl.rlim_cur != RLIM_INFINITY && (avail < 0 || (double)rl.rlim_cur < avail))
		avail = (double)rl.rlim_cur; /* what the process has mapped already comes off this too: an upper bound */
	return avail;
}

/* The grid of ranks s ("4x2x1") of a torus of shape sh, into nr: its
 * counts, one per axis, their product the rank count, none above its
 * axis's extent (lbt_cut_grid); on a torus not cut, one rank. */
static int ranks_parse(const char *s, const lbt_setup *cfg, const lbt_shape *sh, int *nr, lbt_err *e)
{
	const char *dash = cfg->as_command ? "--" : ""; /* a command's option, or the field */
	int D = 0;
	for (const char *p = s;; p++) {
		char *end;
		long k = strtol(p, &end, 10);
		if (end == p || k < 1 || k > INT32_MAX || D == LBT_MAXD || (*end && *end != 'x'))
			return lbt_errf(e, LBT_EINVAL, "%sranks '%s': not a grid of ranks of the %d-axis torus (e.g. %s)", dash, s,
			                sh->dims, sh->dims == 1 ? "4" : sh->dims == 2 ? "2x2" : "2x2x1");
		if (D < sh->dims)
			nr[D] = (int)k;
		D++;
		if (!*(p = end))
			break;
	}
	if (D != sh->dims)
		return lbt_errf(e, LBT_EINVAL, "%sranks '%s': %d counts for a torus of %d axes", dash, s, D, sh->dims);
	int want[LBT_MAXD];
	memcpy(want, nr, sizeof want);
	return lbt_cut_grid(cfg->cut ? lbt_comm_size() : 1, D, sh->ext, want, nr, e);
}

/* The grid of ranks lbt_state_open cuts the torus on, into nr: given
 * (--ranks, checked), or slabs when asked for (a search tree) and the
 * first axis with links has a layer for every rank; for the Liquid
 * model's vector kernel the grid with the least halo of those it steps
 * (the first axis with links cut, the last whole: lbt_cut_grid_vector;
 * on other grids its ranks would run the reference, tens of times
 * slower: docs/performance.md); NULL: the grid with the least halo
 * (lbt_cut_grid chooses), also where the vector kernel has no grid. */
static const int *ranks_of(const lbt_state *st, const lbt_setup *cfg, const lbt_shape *shape, int *nr)
{
	if (cfg->ranks)
		return ranks_parse(cfg->ranks, cfg, shape, nr, NULL) ? NULL : nr;
	const int R = lbt_comm_size();
	int first = 0;
	while (first < shape->dims - 1 && shape->ext[first] < 2)
		first++;
	if (cfg->slabs && shape->ext[first] >= R) {
		for (int d = 0; d < shape->dims; d++)
			nr[d] = d == first ? R : 1;
		return nr;
	}
	const int vector = (st->method->kernels & LBT_K(LM_STEP)) && st->table.lm_step != lbt_ref_lm_step;
	return vector && !lbt_cut_grid_vector(R, shape->dims, shape->ext, nr) ? nr : NULL;
}

/* A run needs at least its fields (4 bytes per cell of integer loads, 8 more
 * for real-valued ones, 8 for speeds), the kernels' scratch if its method
 * opens one, the copies of the loads the caller holds beside the run
 * (`copies`: bench's restart copy), and for speeds what lbt_speeds_bytes
 * counts (a speed method's workspace); an init file is read in pieces
 * (lbt_npy_read_block). On a torus cut between ranks (cfg->cut: k steps
 * between exchanges) a rank holds the block of the largest rank (rank 0's:
 * lbt_comm_slab gives the extra layers to the first) as lbt_grid_init_cut
 * lays it out, its cut axes' halos as deep as the cut says (2k layers a
 * side where the Liquid model's vector kernel steps the blocks), with the
 * fill's buffers and the parts of real-valued sums (lbt_cut_rows); a real-valued Cybenko workload (cfg->row_sums) adds
 * its rows' sums (4 doubles a row), its rows' lanes where the last axis is
 * cut (lbt_cut_chain), and, on several ranks, every rank's rows' sums
 * gathered (lbt_cut_row_sums: 4 doubles per row of the torus). Refuse
 * before allocating anything when even that cannot fit, and say how many
 * ranks would hold it when more would (the share that shrinks with the
 * ranks, the whole torus's fields over the ranks, over what a rank can give
 * it beside what does not shrink: its block's halo and buffers beyond its
 * share, taken as they are here). */
static int memory_fits(const lbt_state *st, const lbt_setup *cfg, const lbt_speeds *speeds, const lbt_shape *s,
                       int threads, lbt_err *e)
{
	const lbt_method *m = st->method;
	double avail = memory_available();
	int64_t cells = lbt_grid_cells(s);
	if (avail < 0 || cells < 0)
		return LBT_OK;
	const int scratch = (m->flags & LBT_M_SCRATCH) != 0, real = m->load == LBT_LOAD_REAL, D = s->dims, last = D - 1;
	const int ranks = cfg->cut ? lbt_comm_size() : 1, copies = cfg->grid_copies;
	const double field = real ? 12 : 4;
	double shared = (double)cells * field * (1 + copies), fixed = 0;
	if (scratch)
		shared += lbt_scratch_bytes(D, s->ext, cells, threads);
	if (speeds) /* the field, and the method's workspace or the relative loads' dense copies */
		shared += (double)cells * 8 + lbt_speeds_bytes(st, D, 0, lbt_shape_pes(s));
	double block = shared / ranks;                  /* a rank's share, or its block's exact bytes: */
	int64_t rows = lbt_shape_pes(s) / s->ext[last]; /* its rows of the last axis */
	int shared_rows = 0;                            /* rows cut along the last axis: their lanes passed on */
	int nr[LBT_MAXD];
	const int *want = cfg->cut ? ranks_of(st, cfg, s, nr) : NULL;
	lbt_cut c;
	unsigned char wrap[LBT_MAXD];
	for (int d = 0; d < D; d++)
		wrap[d] = s->bnd[d] == LBT_TORUS;
	if (cfg->cut && !lbt_cut_grid(ranks, D, s->ext, want, nr, NULL) &&
	    !lbt_cut_plan(&c, ranks, 0, D, s->ext, wrap, nr, cfg->cut, NULL)) { /* else lbt_grid_init_cut says why */
		const int64_t bc = lbt_grid_block_cells(s, &c);
		block = (double)bc * field * (1 + copies) + (scratch ? lbt_scratch_bytes(D, c.len, bc, threads) : 0) +
		        lbt_cut_rows_bytes(&c, lbt_cut_part_rows(&c), real, lbt_cut_layer_cells(&c)) +
		        (speeds ? (double)bc * 8 + lbt_speeds_bytes(st, D, 1, bc) : 0);
		rows = 1;
		for (int d = 0; d < last; d++)
			rows *= c.len[d];
		shared_rows = c.len[last] < s->ext[last] && lbt_shape_pes(s) > s->ext[last];
		if (cfg->row_sums && ranks > 1)
			fixed += (double)(lbt_shape_pes(s) / s->ext[last]) * 4 * sizeof(double);
	}
	if (cfg->row_sums) /* real_open: each row's 4 sums, and its lanes where rows are shared */
		block += (double)rows * 4 * sizeof(double) + (shared_rows ? (double)rows * sizeof(lbt_wl_rsums) : 0);
	const double need = block + fixed, beyond = block > shared / ranks ? block - shared / ranks : 0;
	if (need <= avail)
		return LBT_OK;
	char sh[128], more[160] = "";
	lbt_shape_format(s, sh, sizeof sh);
	/* ranks of this memory that would do */
	const double enough = avail > fixed + beyond ? ceil(shared / (avail - fixed - beyond)) : 0;
	if (lbt_comm_mpi() && (m->flags & LBT_M_CUT) && enough > ranks && enough <= (double)INT32_MAX)
		snprintf(more, sizeof more, "; cut between at least %.0f ranks of this memory (mpirun -np %.0f) it would fit",
		         enough, enough);
	return lbt_errf(e, LBT_ENOMEM, "%s on %s needs at least %.1f GiB%s (%s%s%s); %.1f GiB are available "
	                "(free memory and swap, or ulimit -v)%s", m->name, sh, need / 1073741824.0,
	                ranks > 1 ? " per rank" : "",
	                scratch && speeds ? "its loads, its speeds and its kernels' scratch"
	                : scratch ? "its loads and its kernels' scratch" : speeds ? "its loads and its speeds" : "its loads alone",
	                cfg->cut ? ", its halo and exchange buffers" : "", copies ? ", and a copy of the loads" : "",
	                avail / 1073741824.0, more);
}

int lbt_total_check(const lbt_method *m, const lbt_shape *s, int64_t total, lbt_err *e)
{
	int torus = 1;
	for (int d = 0; d < s->dims; d++)
		torus &= s->bnd[d] == LBT_TORUS || s->ext[d] == 1;
	int bounded = m->bounded == LBT_BOUNDED || (m->bounded == LBT_BOUNDED_TORUS && torus);
	if (m->load == LBT_LOAD_REAL || bounded || total <= INT32_MAX)
		return LBT_OK;
	return lbt_errf(e, LBT_ERANGE, "total load %lld could pile onto one PE beyond int32 with %s%s; "
	                "use a total <= %d", (long long)total, m->name,
	                m->bounded == LBT_BOUNDED_TORUS ? " on a mesh" : "", INT32_MAX);
}

/* lbt_run's total check before anything is allocated, wherever the total
 * is known without a grid (not a file's). A uniform load is drawn only when
 * its largest possible total would not pass. */
static int total_fits(const lbt_method *m, const lbt_init *init, const lbt_shape *s, uint64_t seed, lbt_err *e)
{
	int64_t total;
	if (lbt_total_check(m, s, INT64_MAX, NULL) == LBT_OK)
		return LBT_OK; /* any total passes */
	if (init->kind == LBT_INIT_UNIFORM && init->b <= INT32_MAX / lbt_shape_pes(s))
		return LBT_OK;
	return lbt_init_total(init, s, seed, &total) ? lbt_total_check(m, s, total, e) : LBT_OK;
}

/* Everything lbt_state_open checks before it allocates the grid. */
static int prepare(lbt_state *st, const lbt_setup *cfg, lbt_init *initp, lbt_shape *shapep, lbt_err *e)
{
	memset(st, 0, sizeof *st);
	const char *mname = cfg->method ? cfg->method : "lm-c5";
	st->method = lbt_method_find(mname);
	if (!st->method)
		return lbt_errf(e, LBT_EINVAL, "unknown method '%s' (see lbtorus run --help for the list)", mname);
	lbt_init init;
	int status = lbt_init_parse(&init, cfg->init ? cfg->init : "worst:5", e);
	if (status)
		return status;
	lbt_shape shape;
	if (cfg->shape)
		status = lbt_shape_parse(&shape, cfg->shape, e);
	else if (init.kind != LBT_INIT_FILE)
		status = lbt_errf(e, LBT_EINVAL, "no shape: give --shape (e.g. --shape 128x128)");
	if (status)
		return status;
	if (init.kind == LBT_INIT_FILE && (status = file_fits(st->method, &init, cfg->shape ? &shape : NULL, &shape, cfg->cut, e)))
		return status;
	if (cfg->boundary && (status = lbt_boundary_parse(&shape, cfg->boundary, e)))
		return status;
#ifdef _OPENMP
	const int threads = cfg->threads > 0 ? cfg->threads : omp_get_num_procs();
#else
	const int threads = 1;
#endif
	/* speeds: given, or const:1 for a method that reads them */
	const char *speeds = cfg->speeds ? cfg->speeds : (st->method->flags & LBT_M_SPEEDS) ? "const:1" : NULL;
	lbt_speeds sp;
	if (speeds && (status = lbt_speeds_parse(&sp, speeds, e)))
		return status;
	if ((status = lbt_init_check(&init, &shape, e)))
		return status;
	int nr[LBT_MAXD];
	if (cfg->ranks && (status = ranks_parse(cfg->ranks, cfg, &shape, nr, e)))
		return status;
	if (cfg->threads < 0)
		return lbt_errf(e, LBT_EINVAL, "threads must be positive");
	if ((status = method_params(st, cfg, e)) ||
	    (st->method->check && (status = st->method->check(&shape, st->param, e)))) /* the values on this shape */
		return status;
	if (speeds && strlen(speeds) >= sizeof st->speeds)
		return lbt_errf(e, LBT_EINVAL, "--speeds '%s': longer than %zu bytes", speeds, sizeof st->speeds - 1);
	if (cfg->cut && !(st->method->flags & LBT_M_CUT))
		return lbt_errf(e, LBT_EINVAL, "%s runs on one process only, not on a torus cut between ranks (under MPI: "
		                "start it without mpirun)", st->method->name);
	const char *link = cfg->link ? cfg->link : "lan";
	if (strlen(link) >= sizeof st->link)
		return lbt_errf(e, LBT_EINVAL, "--link '%s': longer than %zu bytes", link, sizeof st->link - 1);
	if ((status = lbt_link_parse(&st->net, link, e)))
		return status;
	snprintf(st->speeds, sizeof st->speeds, "%s", speeds ? speeds : "");
	snprintf(st->link, sizeof st->link, "%s", link);
	st->threads = threads; /* passed to kernels, never set globally */
	if ((status = lbt_kernels_select(&st->table, cfg->isa, e)))
		return status;
	st->kern = &st->table;
	const int slot = lbt_kernels_missing(st->kern, st->method->kernels);
	if (slot >= 0) /* a slot without even a reference (kernels/dispatch.c): refuse rather than call NULL */
		return lbt_errf(e, LBT_EINTERNAL, "%s: the dispatch table has no kernel %s on ISA %s", st->method->name,
		                lbt_kernel_slot_name(slot), st->kern->isa);
	if ((status = memory_fits(st, cfg, speeds ? &sp : NULL, &shape, threads, e)))
		return status;
	st->seed = cfg->seed;
	*initp = init;
	*shapep = shape;
	return LBT_OK;
}

int lbt_setup_check(const lbt_setup *cfg, lbt_err *e)
{
	lbt_state st;
	lbt_init init;
	lbt_shape shape;
	return prepare(&st, cfg, &init, &shape, e);
}

int lbt_setup_check_total(const lbt_setup *cfg, lbt_err *e)
{
	lbt_state st;
	lbt_init init;
	lbt_shape shape;
	int status = prepare(&st, cfg, &init, &shape, e);
	return status ? status : total_fits(st.method, &init, &shape, cfg->seed, e);
}

/* On a cut setup every step that may fail on some ranks only is followed by
 * an agreement (lbt_comm_agree): every rank reaches the collective reads of
 * a file: init together, and returns the same status with the lowest
 * failing rank's message. */
int lbt_state_open(lbt_state *st, const lbt_setup *cfg, lbt_err *e)
{
	lbt_init init;
	lbt_shape shape;
	int status = prepare(st, cfg, &init, &shape, e);
	if (cfg->cut)
		status = lbt_comm_agree(status, e);
	if (status)
		return status;
	const int speeds = st->speeds[0] != 0; /* checked by prepare */
	lbt_speeds sp;
	if (speeds && (status = lbt_speeds_parse(&sp, st->speeds, e)))
		return status;
	const volatile sig_atomic_t *stop = cfg->interrupt;
	int nr[LBT_MAXD];
	status = cfg->cut ? lbt_grid_init_cut(&st->grid, &shape, ranks_of(st, cfg, &shape, nr),
	                                      st->method->load == LBT_LOAD_REAL, cfg->cut, e)
	                  : lbt_grid_init(&st->grid, &shape, e);
	if (cfg->cut) {
		const int all = lbt_comm_agree(status, e);
		if (all && !status)
			lbt_grid_free(&st->grid); /* allocated here, not everywhere */
		status = all;
	}
	if (status)
		return status;
	if (st->grid.cut && !lbt_cut_vector(st->grid.cut)) {
		/* the Liquid model's vector kernel rolls slabs of its first axis with
		   links, its rows whole: a block whose first axis is not cut, or
		   whose last is, takes the reference */
		st->table.lm_step = lbt_ref_lm_step;
		st->table.lm_steps = lbt_ref_lm_steps;
	}
	if ((status = lbt_init_apply(&init, &st->grid, cfg->seed, stop, e)) ||
	    (speeds && (status = lbt_speeds_apply(&sp, &st->grid, cfg->seed, stop, e))) ||
	    (st->method->load == LBT_LOAD_REAL && (status = lbt_grid_add_real(&st->grid, e))) ||
	    (stop && *stop && (status = lbt_errf(e, LBT_EINTR, "interrupted while the run was set up"))) ||
	    (status = lbt_method_open(st, e)))
		lbt_grid_free(&st->grid);
	if (cfg->cut) {
		const int all = lbt_comm_agree(status, e);
		if (all && !status)
			lbt_state_close(st); /* opened here, not everywhere */
		status = all;
		if (status == LBT_EINTR) /* every rank's: all learn the signal (lbt_comm_signal) */
			lbt_comm_stop(stop, 0);
	}
	return status;
}

void lbt_state_close(lbt_state *st)
{
	lbt_method_close(st);
	lbt_grid_free(&st->grid);
}

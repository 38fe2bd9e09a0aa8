/* grid.c — the structure-of-arrays grid of named per-PE fields, and what is
 * done to a whole field: statistics, copies, comparisons, dense export.
 *
 * Invariants: every field is `cells` cells from an LBT_ALIGN boundary
 * inside its allocation, with PE (0,...,0) at cell `origin`; PE (0,...,0) and the first PE of
 * every row sit on a 64-byte boundary (the lead of LBT_ROW_LEAD cells and
 * the pitch, a multiple of 16 cells, keep 4- and 8-byte cells aligned); the
 * cells between rows (lead, halo, padding) are never PEs and never counted.
 * A row of the last axis is the unit of work: there are P / n_{D-1} of them.
 * Every function here is written once over the field's type. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "lbtorus/grid.h"
#include "../../kernels/internal.h" /* the row lead and halo the layout shares with the kernels */
#include "comm/comm.h"

#ifdef _OPENMP
#include <omp.h>
#define THREAD_NUM() omp_get_thread_num()
#else
#define THREAD_NUM() 0
#endif

static int64_t round_up(int64_t v, int64_t m) { return (v + m - 1) / m * m; }

size_t lbt_type_size(lbt_type t) { return t == LBT_F64 ? sizeof(double) : sizeof(int32_t); }

/* Spans, strides, cells and origin of a valid shape s, a block of the torus
 * `whole` (whole = s unless the grid is a rank's slab). Only the outer axes
 * with links get a halo: an axis of extent 1 in `whole` has no link in any
 * method, so it takes one layer (span 1) and stride 0 -- its coordinate is
 * always 0, and a kernel reading "the next PE" along it reads the PE itself,
 * which is what a torus's halo held. The cut axes of a block keep their
 * halo even when a rank holds one layer of one. */
static void layout(lbt_grid *g, const lbt_shape *s, const lbt_shape *whole, const lbt_cut *cut)
{
	g->shape = *s;
	g->whole = *s;
	int D = s->dims;
	g->span[D - 1] = round_up(LBT_ROW_LEAD + s->ext[D - 1] + LBT_HALO, LBT_ALIGN / 4);
	g->stride[D - 1] = 1;
	int64_t slab = g->span[D - 1]; /* cells of one layer of the axes inside d */
	g->origin = LBT_ROW_LEAD;
	for (int d = D - 2; d >= 0; d--) {
		const int links = whole->ext[d] >= 2;
		g->stride[d] = links ? slab : 0;
		const int64_t halo = cut && cut->on[d] ? cut->depth : LBT_HALO; /* a cut axis: as deep as its cut says */
		g->span[d] = links ? s->ext[d] + 2 * halo : 1;
		g->origin += halo * g->stride[d];
		slab *= g->span[d];
	}
	g->cells = slab;
}

int64_t lbt_grid_cells(const lbt_shape *s)
{
	lbt_grid g;
	if (lbt_shape_check(s, "shape", NULL))
		return -1;
	memset(&g, 0, sizeof g);
	layout(&g, s, s, NULL);
	return g.cells;
}

int64_t lbt_grid_block_cells(const lbt_shape *whole, const lbt_cut *cut)
{
	lbt_grid g;
	lbt_shape local = *whole;
	for (int d = 0; d < whole->dims; d++)
		local.ext[d] = cut->len[d];
	memset(&g, 0, sizeof g);
	layout(&g, &local, whole, cut);
	return g.cells;
}

/* A grid of shape s laid out as a block of `whole` (cut: its place in it). */
static int grid_init(lbt_grid *g, const lbt_shape *s, const lbt_shape *whole, const lbt_cut *cut, lbt_err *e)
{
	memset(g, 0, sizeof *g);
	int status = lbt_shape_check(s, "grid shape", e);
	if (status)
		return status;
	layout(g, s, whole, cut);
	if ((uint64_t)g->cells > (UINT64_C(1) << 40))
		return lbt_errf(e, LBT_ENOMEM, "grid of %lld cells is too large", (long long)g->cells);
	return lbt_grid_add_field(g, "load", LBT_I32, e);
}

int lbt_grid_init(lbt_grid *g, const lbt_shape *s, lbt_err *e) { return grid_init(g, s, s, NULL, e); }

int lbt_grid_init_cut(lbt_grid *g, const lbt_shape *whole, const int *ranks, int real, int steps, lbt_err *e)
{
	lbt_cut *cut = calloc(1, sizeof *cut);
	if (!cut)
		return lbt_errf(e, LBT_ENOMEM, "no memory for a cut");
	lbt_shape local = *whole;
	const int D = whole->dims;
	unsigned char wrap[LBT_MAXD];
	int nr[LBT_MAXD];
	for (int d = 0; d < D; d++)
		wrap[d] = whole->bnd[d] == LBT_TORUS;
	int status = lbt_cut_grid(lbt_comm_size(), D, whole->ext, ranks, nr, e), opened = 0;
	if (!status)
		opened = !(status = lbt_cut_open(cut, D, whole->ext, wrap, nr, steps, e));
	if (!status) {
		for (int d = 0; d < D; d++)
			local.ext[d] = cut->len[d];
		status = lbt_cut_rows(cut, lbt_cut_part_rows(cut), real, lbt_cut_layer_cells(cut), e);
	}
	if (!status)
		status = grid_init(g, &local, whole, cut, e);
	if (status) {
		if (opened)
			lbt_cut_close(cut);
		free(cut);
		return status;
	}
	g->whole = *whole;
	g->cut = cut;
	return LBT_OK;
}

int64_t lbt_grid_lo(const lbt_grid *g, int d) { return g->cut ? g->cut->lo[d] : 0; }

int64_t lbt_grid_row_global(const lbt_grid *g, int64_t r)
{
	const int D = g->shape.dims;
	int64_t c[LBT_MAXD], at = 0;
	for (int d = D - 2; d >= 0; d--) {
		c[d] = r % g->shape.ext[d];
		r /= g->shape.ext[d];
	}
	for (int d = 0; d < D - 1; d++)
		at = at * g->whole.ext[d] + c[d] + lbt_grid_lo(g, d);
	return at * g->whole.ext[D - 1] + lbt_grid_lo(g, D - 1);
}

/* A field's zeroed memory. A large one is mapped from the system, whose
 * pages are zero and touched only when first written: allocating a huge
 * grid takes no time, and the set-up loops that fill it answer a signal
 * (an allocation and memset of 1 GiB took seconds on a loaded machine, deaf
 * to it). The field's bytes start on an LBT_ALIGN boundary inside. */
enum { MAPPED = 1 << 26 };
static size_t field_bytes(const lbt_grid *g, lbt_type t) { return (size_t)g->cells * lbt_type_size(t) + LBT_ALIGN; }

static void *field_alloc(size_t bytes)
{
	if (bytes < MAPPED)
		return calloc(bytes, 1);
	void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	return p == MAP_FAILED ? NULL : p;
}

static void field_free(void *p, size_t bytes)
{
	if (bytes < MAPPED)
		free(p);
	else if (p)
		munmap(p, bytes);
}

void lbt_grid_free(lbt_grid *g)
{
	if (g->cut) {
		lbt_cut_close(g->cut);
		free(g->cut);
		g->cut = NULL;
	}
	for (int i = 0; i < g->nfields; i++)
		field_free(g->field[i].alloc, field_bytes(g, g->field[i].type));
	g->nfields = 0;
	g->load = NULL;
	g->real = NULL;
}

const lbt_field *lbt_grid_field(const lbt_grid *g, const char *name)
{
	for (int i = 0; i < g->nfields; i++)
		if (!strcmp(g->field[i].name, name))
			return &g->field[i];
	return NULL;
}

int lbt_grid_add_field(lbt_grid *g, const char *name, lbt_type t, lbt_err *e)
{
	const lbt_field *have = lbt_grid_field(g, name);
	if (have)
		return have->type == t ? LBT_OK : lbt_errf(e, LBT_EINVAL, "field '%s' exists with another type", name);
	if (g->nfields == LBT_MAX_FIELDS)
		return lbt_errf(e, LBT_EINVAL, "no room for a field '%s' (at most %d)", name, LBT_MAX_FIELDS);
	size_t bytes = field_bytes(g, t);
	char *z = field_alloc(bytes);
	if (!z)
		return lbt_errf(e, LBT_ENOMEM, "cannot allocate %.1f MiB for the field '%s'", bytes / 1048576.0, name);
	char *a = z + (LBT_ALIGN - (uintptr_t)z % LBT_ALIGN) % LBT_ALIGN;
	lbt_field *f = &g->field[g->nfields++];
	*f = (lbt_field){name, t, z, a + (size_t)g->origin * lbt_type_size(t)};
	if (!strcmp(name, "load"))
		g->load = f->pe0;
	if (!strcmp(name, "real"))
		g->real = f->pe0;
	return LBT_OK;
}

int64_t lbt_grid_offset(const lbt_grid *g, const int64_t *coord)
{
	int64_t off = 0;
	for (int d = 0; d < g->shape.dims; d++)
		off += coord[d] * g->stride[d];
	return off;
}

/* From a row's offset and coordinates c[0 .. D-2] (row_first) to the next
 * row's, carried like a counter's digits: no division per row. */
static void row_next(const lbt_grid *g, int64_t *c, int64_t *off)
{
	for (int d = g->shape.dims - 2; d >= 0; d--) {
		*off += g->stride[d];
		if (++c[d] < g->shape.ext[d])
			return;
		c[d] = 0;
		*off -= g->shape.ext[d] * g->stride[d];
	}
}

/* Row r's coordinates along axes 0 .. D-2 into c; its offset returned (row_off's). */
static int64_t row_first(const lbt_grid *g, int64_t r, int64_t *c)
{
	int64_t off = 0;
	for (int d = g->shape.dims - 2; d >= 0; d--) {
		c[d] = r % g->shape.ext[d];
		off += c[d] * g->stride[d];
		r /= g->shape.ext[d];
	}
	return off;
}

/* The cell offset of row r (0 <= r < P / n_last) of the last axis, in row-major order. */
static int64_t row_off(const lbt_grid *g, int64_t r)
{
	int64_t c[LBT_MAXD];
	return row_first(g, r, c);
}

static void *row_at(const lbt_field *f, int64_t off) { return (char *)f->pe0 + off * (int64_t)lbt_type_size(f->type); }
static int64_t rows(const lbt_grid *g) { return lbt_shape_pes(&g->shape) / g->shape.ext[g->shape.dims - 1]; }
static int64_t row_len(const lbt_grid *g) { return g->shape.ext[g->shape.dims - 1]; }

int lbt_grid_add_real(lbt_grid *g, lbt_err *e)
{
	int had = g->real != NULL, status = lbt_grid_add_field(g, "real", LBT_F64, e);
	if (status || had)
		return status;
	const int64_t n = row_len(g), R = rows(g);
	for (int64_t r = 0; r < R; r++) {
		int64_t off = row_off(g, r);
		for (int64_t i = 0; i < n; i++)
			g->real[off + i] = g->load[off + i];
	}
	return LBT_OK;
}

void lbt_field_export(const lbt_grid *g, const lbt_field *f, void *dense)
{
	const int64_t n = row_len(g), R = rows(g);
	const size_t row = (size_t)n * lbt_type_size(f->type);
	for (int64_t r = 0; r < R; r++)
		memcpy((char *)dense + (size_t)r * row, row_at(f, row_off(g, r)), row);
}

void *lbt_field_row(const lbt_grid *g, const lbt_field *f, int64_t r) { return row_at(f, row_off(g, r)); }

void lbt_field_import_rows(lbt_grid *g, const lbt_field *f, const void *dense, int64_t r0, int64_t r1)
{
	const size_t row = (size_t)row_len(g) * lbt_type_size(f->type);
	for (int64_t r = r0; r < r1; r++)
		memcpy(row_at(f, row_off(g, r)), (const char *)dense + (size_t)(r - r0) * row, row);
}

void lbt_field_import(lbt_grid *g, const lbt_field *f, const void *dense) { lbt_field_import_rows(g, f, dense, 0, rows(g)); }

int lbt_field_gather(const lbt_grid *g, const lbt_field *f, void *dense, lbt_err *e)
{
	if (!g->cut) {
		lbt_field_export(g, f, dense);
		return LBT_OK;
	}
	/* every rank's block to rank 0, in rank order (one rank: into place),
	 * then each row of each block to its place in the torus */
	const lbt_cut *cut = g->cut;
	const size_t cell = lbt_type_size(f->type), bytes = (size_t)lbt_shape_pes(&g->shape) * cell;
	const int many = cut->ranks > 1 && lbt_comm_rank() == 0, last = g->shape.dims - 1;
	void *mine = malloc(bytes ? bytes : 1);
	char *all = many ? malloc((size_t)lbt_shape_pes(&g->whole) * cell) : NULL;
	int bad = !mine || (many && !all);
	if (mine)
		lbt_field_export(g, f, mine);
	bad = lbt_comm_min_int(!bad) == 0 || lbt_comm_gather(mine, bytes, cut->ranks > 1 ? all : dense);
	const char *p = all;
	for (int r = 0; !bad && many && r < cut->ranks; r++) {
		int coord[LBT_MAXD];
		int64_t lo[LBT_MAXD], len[LBT_MAXD], rows = 1;
		lbt_cut_block(cut, r, coord, lo, len);
		for (int d = 0; d < last; d++)
			rows *= len[d];
		for (int64_t j = 0; j < rows; j++, p += (size_t)len[last] * cell) {
			int64_t rest = j, c[LBT_MAXD], at = 0;
			for (int d = last - 1; d >= 0; d--) {
				c[d] = rest % len[d] + lo[d];
				rest /= len[d];
			}
			for (int d = 0; d < last; d++)
				at = at * g->whole.ext[d] + c[d];
			memcpy((char *)dense + (size_t)(at * g->whole.ext[last] + lo[last]) * cell, p, (size_t)len[last] * cell);
		}
	}
	free(all);
	free(mine);
	return bad ? lbt_errf(e, LBT_ENOMEM, "no memory to gather the field '%s'", f->name) : LBT_OK;
}

void lbt_grid_export(const lbt_grid *g, int32_t *dense) { lbt_field_export(g, &g->field[0], dense); }
void lbt_grid_import(lbt_grid *g, const int32_t *dense) { lbt_field_import(g, &g->field[0], dense); }

/* One row's extremes, idle count and sum: exact (int64, and the sum of
 * squares in 128 bits) for an integer field; left to right for a real one. */
typedef struct {
	double max, min, rsum;
	int64_t sum, idle;
	unsigned __int128 sumsq;
} row_acc;

static void row_stats(const lbt_field *f, int64_t off, int64_t n, row_acc *a)
{
	if (f->type == LBT_I32) {
		const int32_t *w = row_at(f, off);
		int32_t mx = INT32_MIN, mn = INT32_MAX;
		int64_t sum = 0, idle = 0;
		for (int64_t i = 0; i < n; i++) {
			mx = w[i] > mx ? w[i] : mx;
			mn = w[i] < mn ? w[i] : mn;
			sum += w[i];
			idle += w[i] == 0;
		}
		uint64_t sq = 0;
		if (mx < 65536 && mn > -65536 && n < INT64_C(1) << 32) /* each square < 2^32: n of them fit */
			for (int64_t i = 0; i < n; i++)
				sq += (uint64_t)((int64_t)w[i] * w[i]);
		else /* flushed before it could wrap */
			for (int64_t i = 0; i < n; i++) {
				uint64_t s2 = (uint64_t)((int64_t)w[i] * w[i]);
				if (sq > UINT64_MAX - s2) {
					a->sumsq += sq;
					sq = 0;
				}
				sq += s2;
			}
		a->sumsq += sq;
		a->max = mx > a->max ? mx : a->max;
		a->min = mn < a->min ? mn : a->min;
		a->sum += sum;
		a->rsum = (double)sum;
		a->idle += idle;
	} else {
		const double *w = row_at(f, off);
		double sum = 0;
		for (int64_t i = 0; i < n; i++) {
			a->idle += w[i] == 0;
			a->max = w[i] > a->max ? w[i] : a->max;
			a->min = w[i] < a->min ? w[i] : a->min;
			sum += w[i];
		}
		a->rsum = sum;
	}
}

static double row_sqdev(const lbt_field *f, int64_t off, int64_t n, double mean)
{
	const double *w = row_at(f, off);
	double sum = 0;
	for (int64_t i = 0; i < n; i++)
		sum += (w[i] - mean) * (w[i] - mean);
	return sum;
}

/* P * var = sumsq - total^2 / P, evaluated in long double */
static double int_stddev(unsigned __int128 sumsq, int64_t total, int64_t P)
{
	long double var = ((long double)sumsq - (long double)total * (long double)total / P) / P;
	return var > 0 ? (double)sqrtl(var) : 0.0;
}

double lbt_int_stddev(uint64_t sq_hi, uint64_t sq_lo, int64_t total, int64_t P)
{
	return int_stddev(((unsigned __int128)sq_hi << 32) + sq_lo, total, P);
}

/* Rows run in parallel; what is not exact (a real field's sums) is summed
 * per row and the rows' sums added in row order by one thread. On a cut
 * grid the rows' sums of all ranks are added in global row order and the
 * exact parts reduced exactly, so the bits equal one process's. */
void lbt_field_stats(const lbt_grid *g, const lbt_field *f, int threads, lbt_stats *st)
{
	const int64_t n = row_len(g), R = rows(g), P = lbt_shape_pes(&g->whole);
	const int real = f->type == LBT_F64;
	double mx = -HUGE_VAL, mn = HUGE_VAL, rtotal = 0, sq = 0;
	int64_t total = 0, idle = 0;
	unsigned __int128 sumsq = 0;
	lbt_cut *cut = g->cut;
	double *rs = !real ? NULL : cut ? cut->parts : malloc((size_t)R * sizeof *rs);
	/* no row sums: the same sums, serially; at most SLOTS threads (each its own slot of
	   exact partial results, combined after the region: no lock that the concurrent runs
	   of a sweep or an experiment would all wait for) */
	enum { SLOTS = 64 };
	const int T = real && !rs ? 1 : threads <= 0 ? 1 : threads < SLOTS ? threads : SLOTS;
	row_acc part[SLOTS];
	for (int t = 0; t < T; t++)
		part[t] = (row_acc){-HUGE_VAL, HUGE_VAL, 0, 0, 0, 0};
	/* rows in blocks of BLOCK, each block's rows' offsets by row_next (a grid of short rows,
	   16^6, spent more in row_off's divisions than in its rows) */
	enum { BLOCK = 256 };
	const int64_t blocks = (R + BLOCK - 1) / BLOCK;
#pragma omp parallel num_threads(T) if (R * n > 65536)
	{
		row_acc a = {-HUGE_VAL, HUGE_VAL, 0, 0, 0, 0};
#pragma omp for schedule(static)
		for (int64_t b = 0; b < blocks; b++) {
			int64_t c[LBT_MAXD], off = row_first(g, b * BLOCK, c);
			for (int64_t r = b * BLOCK; r < R && r < (b + 1) * BLOCK; r++, row_next(g, c, &off)) {
				row_stats(f, off, n, &a);
				if (rs)
					rs[r] = a.rsum;
				else if (real)
					rtotal += a.rsum; /* one thread, row order */
			}
		}
		part[THREAD_NUM()] = a;
	}
	for (int t = 0; t < T; t++) { /* extremes, integer counts: exact in any order */
		mx = fmax(mx, part[t].max);
		mn = fmin(mn, part[t].min);
		total += part[t].sum;
		idle += part[t].idle;
		sumsq += part[t].sumsq;
	}
	int nomem = 0;
	if (cut) {
		double x[2] = {mx, -mn};
		int64_t i[2] = {total, idle};
		lbt_comm_max_f64(x, 2);
		lbt_comm_sum_i64(i, 2);
		mx = x[0];
		mn = -x[1];
		total = i[0];
		idle = i[1];
		if (!real) { /* the sums of squares, exactly */
			unsigned __int128 all[cut->ranks];
			lbt_comm_allgather(&sumsq, sizeof sumsq, all);
			sumsq = 0;
			for (int r = 0; r < cut->ranks; r++)
				sumsq += all[r];
		}
	}
	/* the last axis cut: rows shared by ranks, whose sums go PE by PE */
	const int by_pe = real && cut && cut->by_pe;
	const int64_t nrs = by_pe ? R * n : R;
	for (int64_t r = 0; by_pe && r < R; r++)
		memcpy(rs + r * n, row_at(f, row_off(g, r)), (size_t)n * sizeof *rs);
	if (real) {
		if (cut)
			rtotal = lbt_cut_sum(cut, rs, nrs, 1, 0, &nomem);
		for (int64_t r = 0; !cut && rs && r < R; r++)
			rtotal += rs[r];
		const double mean = rtotal / (double)P;
#pragma omp parallel for schedule(static) num_threads(T) if (R * n > 65536)
		for (int64_t b = 0; b < (by_pe ? 0 : blocks); b++) {
			int64_t c[LBT_MAXD], off = row_first(g, b * BLOCK, c);
			for (int64_t r = b * BLOCK; r < R && r < (b + 1) * BLOCK; r++, row_next(g, c, &off)) {
				double d = row_sqdev(f, off, n, mean);
				if (rs)
					rs[r] = d;
				else
					sq += d; /* one thread, row order */
			}
		}
		for (int64_t r = 0; by_pe && r < R; r++) {
			const double *w = row_at(f, row_off(g, r));
			for (int64_t i = 0; i < n; i++)
				rs[r * n + i] = (w[i] - mean) * (w[i] - mean);
		}
		if (cut)
			sq = lbt_cut_sum(cut, rs, nrs, 1, 0, &nomem);
		for (int64_t r = 0; !cut && rs && r < R; r++)
			sq += rs[r];
		if (!cut)
			free(rs);
		if (nomem) /* the rows' sums could not be gathered: the engine's total check fails */
			rtotal = sq = NAN;
		st->total = (int64_t)llround(rtotal);
		st->rtotal = rtotal;
		st->stddev = sqrt(sq / (double)P);
	} else {
		st->total = total;
		st->rtotal = (double)total;
		st->stddev = int_stddev(sumsq, total, P);
	}
	st->max = mx;
	st->min = mn;
	st->idle = idle;
}

void lbt_grid_stats(const lbt_grid *g, lbt_stats *st) { lbt_field_stats(g, &g->field[0], 1, st); }

void lbt_grid_copy(lbt_grid *dst, const lbt_grid *src)
{
	const int64_t n = row_len(src), R = rows(src);
	for (int i = 0; i < src->nfields; i++) {
		const lbt_field *a = &src->field[i], *b = lbt_grid_field(dst, a->name);
		if (!b)
			continue;
		const size_t row = (size_t)n * lbt_type_size(a->type);
		for (int64_t r = 0; r < R; r++)
			memcpy(row_at(b, row_off(dst, r)), row_at(a, row_off(src, r)), row);
	}
}

int64_t lbt_grid_first_diff(const lbt_grid *a, const lbt_grid *b)
{
	const int64_t n = row_len(a), R = rows(a);
	for (int i = 0; i < a->nfields; i++) {
		const lbt_field *x = &a->field[i], *y = lbt_grid_field(b, x->name);
		if (!y)
			continue;
		const size_t cell = lbt_type_size(x->type);
		for (int64_t r = 0; r < R; r++) {
			const char *p = row_at(x, row_off(a, r)), *q = row_at(y, row_off(b, r));
			if (memcmp(p, q, (size_t)n * cell))
				for (int64_t k = 0; k < n; k++)
					if (memcmp(p + k * (int64_t)cell, q + k * (int64_t)cell, cell))
						return r * n + k;
		}
	}
	return -1;
}

void lbt_shape_coords(const lbt_shape *s, int64_t i, char *buf, size_t n)
{
	int64_t c[LBT_MAXD];
	for (int d = s->dims - 1; d >= 0; d--) {
		c[d] = i % s->ext[d];
		i /= s->ext[d];
	}
	size_t used = (size_t)snprintf(buf, n, "(");
	for (int d = 0; d < s->dims && used < n; d++)
		used += (size_t)snprintf(buf + used, n - used, "%lld%s", (long long)c[d], d + 1 < s->dims ? ", " : ")");
}

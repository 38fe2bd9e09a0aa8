/* comm.c — what the serial and the MPI communication layers share: the
 * Cartesian decomposition, opening a cut, and turning a step's counters on each
 * rank into the counters one process would have made. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "comm.h"
#include "../../kernels/fiber.h" /* walking a layer's rows */

void lbt_comm_slab(int64_t n, int R, int r, int64_t *lo, int64_t *len)
{
	const int64_t q = n / R, extra = n % R;
	*len = q + (r < extra);
	*lo = r * q + (r < extra ? r : extra);
}

int lbt_comm_owner(int64_t n, int R, int64_t i)
{
	const int64_t q = n / R, extra = n % R, big = extra * (q + 1);
	return (int)(i < big ? i / (q + 1) : extra + (i - big) / q);
}

/* The halo cells a block exchanges per step on grid nr: per cut axis two
 * faces of LBT_HALO layers, each spanning the halo of the cut axes before. */
static double halo_cells(int D, const int64_t *ext, const int *nr)
{
	double cells = 0;
	for (int d = 0; d < D; d++) {
		if (nr[d] < 2)
			continue;
		double face = 2.0 * LBT_HALO;
		for (int e = 0; e < D; e++)
			if (e != d)
				face *= (double)((ext[e] + nr[e] - 1) / nr[e]) + (nr[e] > 1 && e < d ? 2 * LBT_HALO : 0);
		cells += face;
	}
	return cells;
}

/* Every factorization of the ranks left (R) over axes d .. n-1 of a torus
 * of D axes (the others not cut) that cuts axis `must` (-1: any) into best. */
static void factor(int R, int d, int n, int D, const int64_t *ext, int must, int *nr, int *best, double *cost)
{
	if (d == n) {
		if (R != 1 || (must >= 0 && nr[must] < 2))
			return;
		double c = halo_cells(D, ext, nr);
		int axes = 0, baxes = 0;
		for (int e = 0; e < D; e++) {
			axes += nr[e] > 1;
			baxes += best[e] > 1;
		}
		int better = *cost < 0 || c < *cost || (c == *cost && axes < baxes);
		for (int e = 0; !better && c == *cost && axes == baxes && e < D && nr[e] >= best[e]; e++)
			better = nr[e] > best[e];
		if (better) {
			*cost = c;
			memcpy(best, nr, (size_t)D * sizeof *nr);
		}
		return;
	}
	for (int k = 1; k <= R; k++)
		if (R % k == 0 && (k == 1 || k <= ext[d])) {
			nr[d] = k;
			factor(R / k, d + 1, n, D, ext, must, nr, best, cost);
		}
	nr[d] = 1;
}

int lbt_cut_grid(int R, int D, const int64_t *ext, const int *want, int *nr, lbt_err *e)
{
	if (want) {
		int64_t prod = 1;
		for (int d = 0; d < D; d++) {
			nr[d] = want[d];
			prod *= want[d];
			if (want[d] < 1 || want[d] > ext[d])
				return lbt_errf(e, LBT_EINVAL, "the grid of ranks does not divide the torus: axis %d of extent %lld "
				                "cannot be cut into %d blocks", d, (long long)ext[d], want[d]);
		}
		if (prod != R)
			return lbt_errf(e, LBT_EINVAL, "the grid of ranks has %lld ranks, but %d %s running", (long long)prod, R,
			                R == 1 ? "is" : "are");
		return LBT_OK;
	}
	int cur[LBT_CUT_MAXD];
	double cost = -1;
	for (int d = 0; d < D; d++)
		cur[d] = nr[d] = 1;
	/* rows whole first (the last axis not cut: no row shared by ranks); else any grid */
	factor(R, 0, D > 1 ? D - 1 : D, D, ext, -1, cur, nr, &cost);
	if (cost < 0 && D > 1)
		factor(R, 0, D, D, ext, -1, cur, nr, &cost);
	if (cost < 0) {
		int64_t most = 1;
		for (int d = 0; d < D; d++)
			most *= ext[d];
		return lbt_errf(e, LBT_EINVAL, "the torus cannot be cut into %d blocks (every rank needs at least one PE: "
		                "use at most %lld ranks, and a count its extents can be cut into)", R, (long long)most);
	}
	return LBT_OK;
}

int lbt_cut_grid_vector(int R, int D, const int64_t *ext, int *nr)
{
	int first = 0, cur[LBT_CUT_MAXD];
	while (first < D - 1 && ext[first] < 2)
		first++;
	double cost = -1;
	for (int d = 0; d < D; d++)
		cur[d] = nr[d] = 1;
	if (D > 1 && first < D - 1) /* rows whole, the first axis with links cut (on one rank: not cut, a slab of one) */
		factor(R, 0, D - 1, D, ext, R > 1 ? first : -1, cur, nr, &cost);
	return cost < 0 ? LBT_EINVAL : LBT_OK;
}

void lbt_cut_block(const lbt_cut *c, int r, int *coord, int64_t *lo, int64_t *len)
{
	if (c->ranks == 1) { /* one rank: its block (made by hand in the tests, or the whole torus) */
		for (int d = 0; d < c->dims; d++) {
			coord[d] = 0;
			lo[d] = c->lo[d];
			len[d] = c->len[d];
		}
		return;
	}
	for (int d = c->dims - 1; d >= 0; d--) {
		coord[d] = r % c->nr[d];
		r /= c->nr[d];
		lbt_comm_slab(c->gext[d], c->nr[d], coord[d], &lo[d], &len[d]);
	}
}

int lbt_cut_plan(lbt_cut *c, int R, int r, int D, const int64_t *ext, const unsigned char *wrap, const int *nr,
                 int steps, lbt_err *e)
{
	memset(c, 0, sizeof *c);
	if (D < 1 || D > LBT_CUT_MAXD)
		return lbt_errf(e, LBT_EINVAL, "a torus of %d axes cannot be cut (at most %d)", D, LBT_CUT_MAXD);
	if (steps < 1 || steps > LBT_CUT_MAX_STEPS)
		return lbt_errf(e, LBT_EINVAL, "halo of %d steps: give 1 to %d steps between halo exchanges", steps,
		                LBT_CUT_MAX_STEPS);
	c->ranks = R;
	c->rank = r;
	c->fill = lbt_comm_fill;
	c->start = lbt_comm_fill_start;
	c->finish = lbt_comm_fill_finish;
	c->dims = D;
	int first = 0;
	while (first < D - 1 && ext[first] < 2)
		first++;
	int cuts = 0;
	for (int d = 0; d < D; d++) {
		c->nr[d] = nr[d];
		c->gext[d] = ext[d];
		c->torus[d] = wrap[d];
		c->on[d] = nr[d] > 1;
		c->lo[d] = 0;
		c->len[d] = ext[d];
		cuts += c->on[d];
	}
	if (!cuts)
		c->on[first] = 1; /* one rank: a slab of one, the distributed paths on one process */
	while (!c->on[c->axis])
		c->axis++;
	c->slab = cuts <= 1 && c->axis == first;
	c->by_pe = c->on[D - 1];
	/* deep halos on every cut axis of a block the Liquid model's vector
	   kernel steps: its first axis with links cut (the kernel rolls that
	   axis's slabs), its last not (rows whole, the row kernels' counters a
	   row's); a block whose rows are cut too, one step an exchange (the
	   vector kernel, its rows' ends from the halo); a cut ring, or a block
	   whose first axis is whole, one step at a time (the reference) */
	c->depth = lbt_cut_vector(c) && !c->on[D - 1] ? steps * LBT_HALO : LBT_HALO;
	lbt_cut_block(c, c->rank, c->coord, c->lo, c->len);
	return LBT_OK;
}

int lbt_cut_vector(const lbt_cut *c)
{
	int first = 0;
	while (first < c->dims - 1 && c->gext[first] < 2)
		first++;
	return c->on[first] && first < c->dims - 1;
}

int lbt_cut_open(lbt_cut *c, int D, const int64_t *ext, const unsigned char *wrap, const int *nr, int steps,
                 lbt_err *e)
{
	int st = lbt_cut_plan(c, lbt_comm_size(), lbt_comm_rank(), D, ext, wrap, nr, steps, e);
	return st ? st : lbt_comm_cart_open(c, e);
}

int64_t lbt_cut_layer_cells(const lbt_cut *c)
{
	int64_t layer = 0;
	for (int d = 0; d < c->dims; d++) {
		int64_t cells = 1;
		for (int x = 0; c->on[d] && x < c->dims; x++)
			cells *= x == d ? 1 : c->len[x] + (c->on[x] && x < d ? 2 * c->depth : 0);
		layer = c->on[d] && cells > layer ? cells : layer;
	}
	return layer;
}

int64_t lbt_cut_part_rows(const lbt_cut *c)
{
	int64_t pes = 1;
	for (int d = 0; d < c->dims; d++)
		pes *= c->len[d];
	return c->by_pe ? pes : pes / c->len[c->dims - 1];
}

/* The fill's buffers: 4 depth layers of load cells, and of real cells if the loads are real-valued. */
static size_t halo_bytes(const lbt_cut *c, int real, int64_t layer_cells)
{
	return (size_t)layer_cells * (size_t)(4 * c->depth) * (sizeof(int32_t) + (real ? sizeof(double) : 0));
}

double lbt_cut_rows_bytes(const lbt_cut *c, int64_t rows, int real, int64_t layer_cells)
{
	return (real ? (double)rows * LBT_CUT_SEGMENTS * sizeof(double) : 0) + (double)halo_bytes(c, real, layer_cells);
}

int lbt_cut_rows(lbt_cut *c, int64_t rows, int real, int64_t layer_cells, lbt_err *e)
{
	c->rows = rows;
	c->parts = real ? malloc((size_t)(rows * LBT_CUT_SEGMENTS) * sizeof *c->parts) : NULL;
	c->halo = malloc(halo_bytes(c, real, layer_cells));
	if ((c->parts || !real) && c->halo)
		return LBT_OK;
	lbt_cut_close(c);
	return lbt_errf(e, LBT_ENOMEM, "no memory for the exchange buffers of %lld rows", (long long)rows);
}

void lbt_cut_close(lbt_cut *c)
{
	lbt_comm_cart_close(c);
	free(c->parts);
	free(c->halo);
	c->parts = NULL;
	c->halo = NULL;
}

/* Every rank's block, for sums in global row order (lbt_cut_block). */
typedef struct {
	int64_t (*lo)[LBT_CUT_MAXD], (*len)[LBT_CUT_MAXD];
	int64_t rows; /* the global rows (on one rank: its block's) */
} blocks;

static int blocks_open(const lbt_cut *cut, blocks *b)
{
	const int R = cut->ranks, last = cut->dims - 1;
	int coord[LBT_CUT_MAXD];
	b->lo = malloc((size_t)R * sizeof *b->lo);
	b->len = malloc((size_t)R * sizeof *b->len);
	if (!b->lo || !b->len) {
		free(b->lo), free(b->len);
		return LBT_ENOMEM;
	}
	for (int r = 0; r < R; r++)
		lbt_cut_block(cut, r, coord, b->lo[r], b->len[r]);
	b->rows = 1;
	for (int d = 0; d < last; d++)
		b->rows *= R == 1 ? b->len[0][d] : cut->gext[d];
	return LBT_OK;
}

static void blocks_close(blocks *b)
{
	free(b->lo);
	free(b->len);
}

/* Global row G (0 <= G < b->rows, row-major over the axes before the last):
 * the rank holding its q-th piece along the last axis, and its row there. */
static int64_t row_at(const lbt_cut *cut, const blocks *b, int64_t G, int q, int *rank)
{
	const int last = cut->dims - 1;
	*rank = 0;
	if (cut->ranks == 1)
		return G;
	int64_t c[LBT_CUT_MAXD];
	for (int d = last - 1; d >= 0; d--) {
		c[d] = G % cut->gext[d];
		G /= cut->gext[d];
	}
	int r = 0;
	for (int d = 0; d < last; d++)
		r = r * cut->nr[d] + lbt_comm_owner(cut->gext[d], cut->nr[d], c[d]);
	*rank = r = r * cut->nr[last] + q;
	int64_t j = 0;
	for (int d = 0; d < last; d++)
		j = j * b->len[r][d] + c[d] - b->lo[r][d];
	return j;
}

double lbt_cut_sum(const lbt_cut *cut, const double *parts, int64_t n, int terms, double init, int *nomem)
{
	const int R = cut->ranks, last = cut->dims - 1, pe = cut->by_pe;
	terms = terms > 1 ? terms : 1;
	double *all = (double *)parts;
	int64_t counts[R], at[R + 1];
	counts[0] = n;
	blocks b;
	if (R > 1 && lbt_comm_allgather_f64(parts, n, &all, counts)) {
		*nomem = 1;
		return 0;
	}
	if (blocks_open(cut, &b)) {
		*nomem = 1;
		if (all != parts)
			free(all);
		return 0;
	}
	int64_t seg[R]; /* a segment's parts on each rank */
	at[0] = 0;
	for (int r = 0; r < R; r++) {
		int64_t rows = 1;
		for (int d = 0; d < last; d++)
			rows *= b.len[r][d];
		seg[r] = pe ? rows * b.len[r][last] * terms : rows;
		at[r + 1] = at[r] + counts[r];
	}
	const int64_t segments = seg[cut->rank] ? counts[cut->rank] / seg[cut->rank] : 0;
	const int pieces = pe && R > 1 ? cut->nr[last] : 1;
	double sum = init;
	for (int64_t s = 0; s < segments; s++)
		for (int64_t G = 0; G < b.rows; G++) {
			double row = 0;
			for (int t = 0; t < terms; t++)
				for (int q = 0; q < pieces; q++) {
					int r;
					const int64_t j = row_at(cut, &b, G, q, &r);
					const double *p = all + at[r] + s * seg[r];
					if (!pe) {
						row = p[j];
						continue;
					}
					const int64_t w = b.len[r][last];
					p += (j * terms + t) * w;
					for (int64_t i = 0; i < w; i++)
						row += p[i];
				}
			sum += row;
		}
	blocks_close(&b);
	if (all != parts)
		free(all);
	return sum;
}

void lbt_cut_row_sums(const lbt_cut *cut, const double *rows, int64_t nrows, int k, double *acc, int *nomem)
{
	const int R = cut->ranks;
	double *all = (double *)rows;
	int64_t counts[R], at[R + 1];
	counts[0] = nrows * k;
	blocks b;
	if (R > 1 && lbt_comm_allgather_f64(rows, nrows * k, &all, counts)) {
		*nomem = 1;
		return;
	}
	if (blocks_open(cut, &b)) {
		*nomem = 1;
		if (all != rows)
			free(all);
		return;
	}
	at[0] = 0;
	for (int r = 0; r < R; r++)
		at[r + 1] = at[r] + counts[r];
	const int end = R > 1 ? cut->nr[cut->dims - 1] - 1 : 0; /* the piece that ends a row */
	for (int64_t G = 0; G < b.rows; G++) {
		int r;
		const int64_t j = row_at(cut, &b, G, end, &r);
		if ((j + 1) * k > counts[r]) /* on one rank: a block that does not end its rows */
			continue;
		for (int i = 0; i < k; i++)
			acc[i] += all[at[r] + j * k + i];
	}
	blocks_close(&b);
	if (all != rows)
		free(all);
}

/* Step j's counters (of n) made what one process would have counted, from
 * i (3 sums a step) and x (3 + nslots maxima a step, from x[at[j]]) reduced
 * over the ranks. */
static void counts_set(lbt_counts *c, const int64_t *i, const double *x, int real)
{
	c->moved = i[0];
	c->link_max = x[0];
	if (c->has_stats) {
		c->total = i[1];
		c->max = (int32_t)x[1];
		c->min = (int32_t)-x[2];
	}
	if (c->nslots) { /* every rank ran the same substeps: the same slots */
		double rs = 0;
		int64_t is = 0;
		for (int k = 0; k + 1 < c->nslots; k += 2) {
			rs += x[3 + k] + x[3 + k + 1];
			is += (int64_t)(x[3 + k] + x[3 + k + 1]);
		}
		if (real)
			c->real_shifts = rs;
		else
			c->shifts = is;
		memcpy(c->slot, x + 3, (size_t)c->nslots * sizeof *x);
	}
	c->nomem = i[2] > 0;
}

/* Step j's sums and maxima as counts_set reads them. */
static void counts_get(const lbt_counts *c, int64_t *i, double *x)
{
	i[0] = c->moved;
	i[1] = c->total;
	i[2] = c->nomem;
	x[0] = c->link_max;
	x[1] = c->max;
	x[2] = -(double)c->min;
	memcpy(x + 3, c->slot, (size_t)c->nslots * sizeof *x);
}

void lbt_cut_counts(const lbt_cut *cut, lbt_counts *c, int real)
{
	int64_t i[3];
	double x[3 + LBT_CUT_SLOTS];
	counts_get(c, i, x);
	lbt_comm_sum_i64(i, 3);
	lbt_comm_max_f64(x, 3 + c->nslots);
	counts_set(c, i, x, real);
	if (real) {
		int nomem = 0;
		c->real_moved = lbt_cut_sum(cut, cut->parts, c->nparts, c->terms, 0, &nomem);
		c->nomem |= !lbt_comm_min_int(!nomem);
	}
}

void lbt_cut_counts_steps(const lbt_cut *cut, lbt_counts *c, int n, int real)
{
	if (real || n > LBT_CUT_BATCH) { /* a real step's parts are in cut->parts only until the next */
		for (int j = 0; j < n; j++)
			lbt_cut_counts(cut, &c[j], real);
		return;
	}
	int64_t i[3 * LBT_CUT_BATCH];
	double x[(3 + LBT_CUT_SLOTS) * LBT_CUT_BATCH];
	int nx = 0;
	for (int j = 0; j < n; nx += 3 + c[j].nslots, j++)
		counts_get(&c[j], i + 3 * j, x + nx);
	lbt_comm_sum_i64(i, 3 * n);
	lbt_comm_max_f64(x, nx);
	nx = 0;
	for (int j = 0; j < n; nx += 3 + c[j].nslots, j++)
		counts_set(&c[j], i + 3 * j, x + nx, real);
}

int64_t lbt_comm_halo_layer(const lbt_cut *cut, int axis, int q, int h, int layers, int64_t *k)
{
	int64_t lo, len;
	if (cut->ranks == 1)
		lo = cut->lo[axis], len = cut->len[axis];
	else
		lbt_comm_slab(cut->gext[axis], cut->nr[axis], q, &lo, &len);
	*k = h < layers ? h - layers : len + h - layers;
	int64_t g = lo + *k, n = cut->gext[axis];
	if (g >= 0 && g < n)
		return g;
	return cut->torus[axis] ? ((g % n) + n) % n : -1;
}

/* Layer k of `axis` as a view of its own: that axis of extent 1 at k, the
 * cut axes before it widened by the `layers` of their halo a fill of as
 * many layers filled before. */
static void layer_view(const lbt_view *v, const lbt_cut *cut, int axis, int layers, int64_t k, lbt_view *w)
{
	*w = *v;
	w->ext[axis] = 1;
	int64_t off = k * v->stride[axis];
	for (int e = 0; e < axis; e++)
		if (cut->on[e]) {
			w->ext[e] += 2 * layers;
			off -= layers * v->stride[e];
		}
	w->load = v->load + off;
	w->real = v->real ? v->real + off : NULL;
}

size_t lbt_comm_layer_bytes(const lbt_view *v, const lbt_cut *cut, int axis, int layers)
{
	lbt_view w;
	layer_view(v, cut, axis, layers, 0, &w);
	int64_t cells = 1;
	for (int d = 0; d < v->dims; d++)
		cells *= w.ext[d];
	return (size_t)cells * (sizeof(int32_t) + (v->real ? sizeof(double) : 0));
}

void lbt_comm_layer_get(const lbt_view *v, const lbt_cut *cut, int axis, int layers, int64_t k, void *buf)
{
	lbt_view w;
	layer_view(v, cut, axis, layers, k, &w);
	const int last = v->dims - 1;
	const int64_t n = w.ext[last], rows = lbt_fiber_count(&w, last);
	int32_t *ld = buf;
	char *re = (char *)(ld + rows * n); /* doubles, maybe not 8-byte aligned */
	for (int64_t r = 0; r < rows; r++) {
		const int64_t off = lbt_fiber_base(&w, last, r) - w.load;
		memcpy(ld + r * n, w.load + off, (size_t)n * sizeof *ld);
		if (w.real)
			memcpy(re + r * n * 8, w.real + off, (size_t)n * 8);
	}
}

void lbt_comm_layer_put(const lbt_view *v, const lbt_cut *cut, int axis, int layers, int64_t k, const void *buf)
{
	lbt_view w;
	layer_view(v, cut, axis, layers, k, &w);
	const int last = v->dims - 1;
	const int64_t n = w.ext[last], rows = lbt_fiber_count(&w, last);
	const int32_t *ld = buf;
	const char *re = (const char *)(ld + rows * n);
	for (int64_t r = 0; r < rows; r++) {
		const int64_t off = lbt_fiber_base(&w, last, r) - w.load;
		memcpy(w.load + off, ld + r * n, (size_t)n * sizeof *ld);
		if (w.real)
			memcpy(w.real + off, re + r * n * 8, (size_t)n * 8);
	}
}

int lbt_posix_read_at(int fd, const char *path, int64_t off, void *buf, size_t n, lbt_err *e)
{
	for (char *p = buf; n;) {
		ssize_t k = pread(fd, p, n, (off_t)off);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return k ? lbt_errf(e, LBT_EIO, "cannot read %s: %s", path, strerror(errno))
			         : lbt_errf(e, LBT_EINVAL, "%s: data ends early (file truncated while read?)", path);
		p += k, off += k, n -= (size_t)k;
	}
	return LBT_OK;
}

int lbt_posix_write_at(int fd, const char *path, int64_t off, const void *buf, size_t n, lbt_err *e)
{
	for (const char *p = buf; n;) {
		ssize_t k = pwrite(fd, p, n, (off_t)off);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return lbt_errf(e, LBT_EIO, "cannot write %s: %s", path, k ? strerror(errno) : "nothing written");
		p += k, off += k, n -= (size_t)k;
	}
	return LBT_OK;
}

int lbt_pfile_whole(const char *path, int dims, const int64_t *gext, const int64_t *lo, const int64_t *len,
                    lbt_err *e)
{
	for (int d = 0; d < dims; d++)
		if (lo[d] || len[d] != gext[d])
			return lbt_errf(e, LBT_EINTERNAL, "%s: a process alone was given a block, not the whole array", path);
	return LBT_OK;
}

int lbt_posix_open(const char *path, int write, int *fd, lbt_err *e)
{
	*fd = open(path, (write ? O_WRONLY : O_RDONLY) | O_CLOEXEC);
	return *fd < 0 ? lbt_errf(e, LBT_EIO, "cannot %s %s: %s", write ? "write" : "read", path, strerror(errno)) : LBT_OK;
}

int lbt_posix_close(int fd, const char *path, int write, lbt_err *e)
{
	int bad = write && fsync(fd), err = errno;
	if (close(fd) && !bad)
		bad = 1, err = errno;
	return bad ? lbt_errf(e, LBT_EIO, "cannot %s %s: %s", write ? "write" : "read", path, strerror(err)) : LBT_OK;
}

int lbt_comm_tally_write(const char *path, double seconds, int64_t pes, int64_t steps, lbt_err *e)
{
	const int R = lbt_comm_size();
	struct row {
		lbt_comm_tally t;
		double seconds;
		int64_t pes;
	} mine = {.seconds = seconds, .pes = pes}, *all = malloc((size_t)R * sizeof *all);
	lbt_comm_tally_get(&mine.t);
	int st = lbt_comm_min_int(all != NULL) ? LBT_OK : lbt_errf(e, LBT_ENOMEM, "no memory for the ranks' tallies");
	if (!st)
		lbt_comm_allgather(&mine, sizeof mine, all);
	FILE *f = !st && lbt_comm_rank() == 0 ? fopen(path, "w") : NULL;
	if (f) {
		fprintf(f, "{\"ranks\": %d, \"steps\": %lld", R, (long long)steps);
#define ROW(key, fmt, expr) \
	do { \
		fprintf(f, ", \"" key "\": ["); \
		for (int r = 0; r < R; r++) \
			fprintf(f, "%s" fmt, r ? ", " : "", expr); \
		fputc(']', f); \
	} while (0)
		ROW("seconds", "%.9g", all[r].seconds);
		ROW("pes", "%lld", (long long)all[r].pes);
		ROW("fills", "%lld", (long long)all[r].t.fills);
		ROW("halo_messages", "%lld", (long long)all[r].t.halo_messages);
		ROW("halo_bytes", "%lld", (long long)all[r].t.halo_bytes);
		ROW("halo_seconds", "%.9g", all[r].t.halo_seconds);
		ROW("halo_wait_seconds", "%.9g", all[r].t.halo_wait_seconds);
		ROW("overlapped_fills", "%lld", (long long)all[r].t.overlapped_fills);
		ROW("overlap_pes", "%lld", (long long)all[r].t.overlap_pes);
		ROW("collectives", "%lld", (long long)all[r].t.collectives);
		ROW("collective_seconds", "%.9g", all[r].t.collective_seconds);
#undef ROW
		fputs("}\n", f);
	}
	if (!st && lbt_comm_rank() == 0 && (!f || fclose(f)))
		st = lbt_errf(e, LBT_EIO, "cannot write %s", path);
	free(all);
	return lbt_comm_agree(st, e);
}

/* The signal the last lbt_comm_stop found (0: none yet). */
static int agreed_signal;

int lbt_comm_stop(const volatile sig_atomic_t *flag, int stop)
{
	/* one reduction: a signal s (>= 1) counts s + 1, a stop alone 1; the largest wins */
	const int sig = flag ? (int)*flag : 0, mine = sig > 0 ? sig + 1 : stop != 0 || sig != 0;
	const int most = -lbt_comm_min_int(-mine);
	if (most > 1)
		agreed_signal = most - 1;
	return most > 0;
}

int lbt_comm_signal(void) { return agreed_signal; }

/* comm.c — what the serial and the MPI communication layers share: the
 * slab decomposition, opening a cut, and turning a step's counters on each
 * rank into the counters one process would have made. */
#include <stdlib.h>
#include <string.h>

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

int lbt_cut_open(lbt_cut *c, int D, const int64_t *ext, const unsigned char *wrap, int64_t *len, lbt_err *e)
{
	memset(c, 0, sizeof *c);
	c->ranks = lbt_comm_size();
	c->rank = lbt_comm_rank();
	c->fill = lbt_comm_fill;
	c->axis = 0;
	while (c->axis < D - 1 && ext[c->axis] < 2)
		c->axis++;
	c->gext = ext[c->axis];
	c->torus = wrap[c->axis];
	c->by_pe = c->axis == D - 1;
	if (c->gext < c->ranks)
		return lbt_errf(e, LBT_EINVAL, "the torus cannot be cut into %d slabs: its first axis with links has "
		                "extent %lld (every rank needs at least one layer; use at most %lld ranks)",
		                c->ranks, (long long)c->gext, (long long)c->gext);
	lbt_comm_slab(c->gext, c->ranks, c->rank, &c->lo, len);
	return LBT_OK;
}

int lbt_cut_rows(lbt_cut *c, int64_t rows, int64_t layer_cells, lbt_err *e)
{
	c->rows = rows;
	c->parts = malloc((size_t)(rows * LBT_CUT_SEGMENTS) * sizeof *c->parts);
	c->halo = malloc((size_t)layer_cells * LBT_CUT_BUFFERS * (sizeof(int32_t) + sizeof(double)));
	if (c->parts && c->halo)
		return LBT_OK;
	lbt_cut_close(c);
	return lbt_errf(e, LBT_ENOMEM, "no memory for the exchange buffers of %lld rows", (long long)rows);
}

void lbt_cut_close(lbt_cut *c)
{
	free(c->parts);
	free(c->halo);
	c->parts = NULL;
	c->halo = NULL;
}

double lbt_comm_ordered_sum(const double *mine, int64_t n, int *nomem)
{
	double *all, sum = 0;
	int64_t counts[lbt_comm_size()], total = 0;
	if (lbt_comm_allgather_f64(mine, n, &all, counts)) {
		*nomem = 1;
		return 0;
	}
	for (int r = 0; r < lbt_comm_size(); r++)
		total += counts[r];
	for (int64_t i = 0; i < total; i++)
		sum += all[i];
	free(all);
	return sum;
}

/* The parts are segments of one part per row (lbt_cut): segment by
 * segment, rank by rank, row by row, as one process adds them; or, if the
 * cut axis is the last, of one part per PE of the one row: a segment's
 * parts summed from 0 are the row's sum, which one process adds to the
 * total. */
static double parts_sum(const lbt_cut *cut, const lbt_counts *c, int *nomem)
{
	const int R = cut->ranks;
	double *all, sum = 0;
	int64_t counts[R], rows[R];
	lbt_comm_allgather(&cut->rows, sizeof cut->rows, rows);
	if (lbt_comm_allgather_f64(cut->parts, c->nparts, &all, counts)) {
		*nomem = 1;
		return 0;
	}
	const int64_t segments = cut->rows ? c->nparts / cut->rows : 0;
	for (int64_t s = 0; s < segments; s++) {
		const double *p = all;
		double row = 0;
		for (int r = 0; r < R; p += counts[r], r++)
			for (int64_t j = 0; j < rows[r]; j++)
				if (cut->by_pe)
					row += p[s * rows[r] + j];
				else
					sum += p[s * rows[r] + j];
		sum += row;
	}
	free(all);
	return sum;
}

void lbt_cut_counts(const lbt_cut *cut, lbt_counts *c, int real)
{
	int64_t i[4] = {c->moved, c->total, c->nomem, 0};
	lbt_comm_sum_i64(i, 3);
	double x[3 + LBT_CUT_SLOTS] = {c->link_max, c->max, -(double)c->min};
	memcpy(x + 3, c->slot, (size_t)c->nslots * sizeof *x);
	lbt_comm_max_f64(x, 3 + c->nslots);
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
	if (real) {
		int nomem = 0;
		c->real_moved = parts_sum(cut, c, &nomem);
		c->nomem |= !lbt_comm_min_int(!nomem);
	}
}

int64_t lbt_comm_halo_layer(const lbt_cut *cut, int r, int h, int64_t *k)
{
	int64_t lo, len;
	lbt_comm_slab(cut->gext, cut->ranks, r, &lo, &len);
	*k = h < 2 ? h - LBT_HALO : len + h - LBT_HALO;
	int64_t g = lo + *k, n = cut->gext;
	if (g >= 0 && g < n)
		return g;
	return cut->torus ? ((g % n) + n) % n : -1;
}

size_t lbt_comm_layer_bytes(const lbt_view *v, const lbt_cut *cut)
{
	int64_t cells = 1;
	for (int d = 0; d < v->dims; d++)
		cells *= d == cut->axis ? 1 : v->ext[d];
	return (size_t)cells * (sizeof(int32_t) + (v->real ? sizeof(double) : 0));
}

/* Layer k as a view of its own: the cut axis of extent 1 at k. */
static void layer_view(const lbt_view *v, const lbt_cut *cut, int64_t k, lbt_view *w)
{
	*w = *v;
	w->ext[cut->axis] = 1;
	w->load = v->load + k * v->stride[cut->axis];
	w->real = v->real ? v->real + k * v->stride[cut->axis] : NULL;
}

void lbt_comm_layer_get(const lbt_view *v, const lbt_cut *cut, int64_t k, void *buf)
{
	lbt_view w;
	layer_view(v, cut, k, &w);
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

void lbt_comm_layer_put(const lbt_view *v, const lbt_cut *cut, int64_t k, const void *buf)
{
	lbt_view w;
	layer_view(v, cut, k, &w);
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

/* grid.c — the structure-of-arrays grid and its whole-grid statistics.
 *
 * Invariants: every field is one LBT_ALIGN-aligned allocation; PE (0,...,0)
 * and the first PE of every row sit on a 64-byte boundary; the cells between
 * rows (lead, halo, padding) are never PEs and never counted. A row of the
 * last axis is the unit of work: there are P / n_{D-1} of them. */
#include <stdlib.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "lbtorus/grid.h"

static int64_t round_up(int64_t v, int64_t m) { return (v + m - 1) / m * m; }

int lbt_grid_init(lbt_grid *g, const lbt_shape *s, lbt_err *e)
{
	memset(g, 0, sizeof *g);
	g->shape = *s;
	int D = s->dims;
	g->span[D - 1] = round_up(LBT_ROW_LEAD + s->ext[D - 1] + LBT_HALO, LBT_ALIGN / 4);
	g->stride[D - 1] = 1;
	for (int d = D - 2; d >= 0; d--) {
		g->stride[d] = d == D - 2 ? g->span[D - 1] : g->stride[d + 1] * g->span[d + 1];
		g->span[d] = s->ext[d] + 2 * LBT_HALO;
	}
	g->cells = D == 1 ? g->span[0] : g->stride[0] * g->span[0];
	if ((uint64_t)g->cells > (UINT64_C(1) << 40))
		return lbt_errf(e, LBT_ENOMEM, "grid of %lld cells is too large", (long long)g->cells);
	size_t bytes = (size_t)g->cells * sizeof(int32_t);
	g->base = lbt_alloc_aligned(bytes);
	if (!g->base)
		return lbt_errf(e, LBT_ENOMEM, "cannot allocate %.1f MiB for the grid", bytes / 1048576.0);
	memset(g->base, 0, bytes);
	int64_t origin = LBT_ROW_LEAD;
	for (int d = 0; d < D - 1; d++)
		origin += LBT_HALO * g->stride[d];
	g->load = g->base + origin;
	return LBT_OK;
}

void lbt_grid_free(lbt_grid *g)
{
	free(g->base);
	free(g->rbase);
	g->base = g->load = NULL;
	g->rbase = g->real = NULL;
}

int lbt_grid_add_real(lbt_grid *g, lbt_err *e)
{
	if (g->rbase)
		return LBT_OK;
	size_t bytes = (size_t)g->cells * sizeof(double);
	g->rbase = lbt_alloc_aligned(bytes);
	if (!g->rbase)
		return lbt_errf(e, LBT_ENOMEM, "cannot allocate %.1f MiB for the real-valued loads", bytes / 1048576.0);
	memset(g->rbase, 0, bytes);
	g->real = g->rbase + (g->load - g->base); /* the same cell offsets as load */
	int64_t n = g->shape.ext[g->shape.dims - 1], R = lbt_shape_pes(&g->shape) / n;
	for (int64_t r = 0; r < R; r++) {
		int64_t off = 0, q = r;
		for (int d = g->shape.dims - 2; d >= 0; d--) {
			off += (q % g->shape.ext[d]) * g->stride[d];
			q /= g->shape.ext[d];
		}
		for (int64_t i = 0; i < n; i++)
			g->real[off + i] = g->load[off + i];
	}
	return LBT_OK;
}

int64_t lbt_grid_offset(const lbt_grid *g, const int64_t *coord)
{
	int64_t off = 0;
	for (int d = 0; d < g->shape.dims; d++)
		off += coord[d] * g->stride[d];
	return off;
}

/* Row r (0 <= r < P / n_last) of the last axis, in row-major order. */
static int32_t *row_ptr(const lbt_grid *g, int64_t r)
{
	int64_t off = 0;
	for (int d = g->shape.dims - 2; d >= 0; d--) {
		off += (r % g->shape.ext[d]) * g->stride[d];
		r /= g->shape.ext[d];
	}
	return g->load + off;
}

static int64_t rows(const lbt_grid *g) { return lbt_shape_pes(&g->shape) / g->shape.ext[g->shape.dims - 1]; }

void lbt_grid_export(const lbt_grid *g, int32_t *dense)
{
	int64_t n = g->shape.ext[g->shape.dims - 1], R = rows(g);
	for (int64_t r = 0; r < R; r++)
		memcpy(dense + r * n, row_ptr(g, r), (size_t)n * sizeof *dense);
}

void lbt_grid_import(lbt_grid *g, const int32_t *dense)
{
	int64_t n = g->shape.ext[g->shape.dims - 1], R = rows(g);
	for (int64_t r = 0; r < R; r++)
		memcpy(row_ptr(g, r), dense + r * n, (size_t)n * sizeof *dense);
}

/* Statistics are exact integer sums, so the result is the same for every
 * thread count; only stddev's final division is floating point. */
void lbt_grid_stats(const lbt_grid *g, lbt_stats *st)
{
	int64_t n = g->shape.ext[g->shape.dims - 1], R = rows(g);
	int32_t mx = INT32_MIN, mn = INT32_MAX;
	int64_t total = 0, idle = 0;
	unsigned __int128 sumsq = 0;
#pragma omp parallel if (R * n > 65536)
	{
		unsigned __int128 sq = 0;
#pragma omp for schedule(static) reduction(max : mx) reduction(min : mn) reduction(+ : total, idle)
		for (int64_t r = 0; r < R; r++) {
			const int32_t *row = row_ptr(g, r);
			uint64_t rsq = 0; /* a row of int32 squares fits: n < 2^36 would not, so flush often */
			for (int64_t i = 0; i < n; i++) {
				int32_t v = row[i];
				mx = v > mx ? v : mx;
				mn = v < mn ? v : mn;
				total += v;
				idle += v == 0;
				uint64_t s2 = (uint64_t)((int64_t)v * v);
				if (rsq > UINT64_MAX - s2) {
					sq += rsq;
					rsq = 0;
				}
				rsq += s2;
			}
			sq += rsq;
		}
#pragma omp critical(lbt_grid_stats)
		sumsq += sq;
	}
	int64_t P = lbt_shape_pes(&g->shape);
	st->max = mx;
	st->min = mn;
	st->total = total;
	st->idle = idle;
	/* P * var = sumsq - total^2 / P, evaluated in long double */
	long double var = ((long double)sumsq - (long double)total * (long double)total / P) / P;
	st->stddev = var > 0 ? (double)sqrtl(var) : 0.0;
}

/* The real-valued row r: the same offset as the integer row. */
static double *real_row(const lbt_grid *g, int64_t r) { return g->real + (row_ptr(g, r) - g->load); }

void lbt_grid_export_real(const lbt_grid *g, double *dense)
{
	int64_t n = g->shape.ext[g->shape.dims - 1], R = rows(g);
	for (int64_t r = 0; r < R; r++)
		memcpy(dense + r * n, real_row(g, r), (size_t)n * sizeof *dense);
}

void lbt_grid_import_real(lbt_grid *g, const double *dense)
{
	int64_t n = g->shape.ext[g->shape.dims - 1], R = rows(g);
	for (int64_t r = 0; r < R; r++)
		memcpy(real_row(g, r), dense + r * n, (size_t)n * sizeof *dense);
}

/* One row's sum (and extremes, idle PEs), or its sum of squared deviations,
 * left to right. */
static double rrow_sum(const double *w, int64_t n, double *mx, double *mn, int64_t *idle)
{
	double sum = 0;
	for (int64_t i = 0; i < n; i++) {
		*idle += w[i] == 0;
		*mx = w[i] > *mx ? w[i] : *mx;
		*mn = w[i] < *mn ? w[i] : *mn;
		sum += w[i];
	}
	return sum;
}

static double rrow_sq(const double *w, int64_t n, double mean)
{
	double sum = 0;
	for (int64_t i = 0; i < n; i++)
		sum += (w[i] - mean) * (w[i] - mean);
	return sum;
}

/* Each row is summed on its own; the rows' sums are then added in row order
 * by one thread. Rows run in parallel, yet the bits are those of the serial
 * loop for every thread count. */
void lbt_grid_rstats(const lbt_grid *g, lbt_rstats *st)
{
	const int64_t n = g->shape.ext[g->shape.dims - 1], R = rows(g), P = R * n;
	double mx = -HUGE_VAL, mn = HUGE_VAL, total = 0, sq = 0;
	int64_t idle = 0;
	double *rs = malloc((size_t)R * sizeof *rs);
	if (!rs) { /* no scratch: the same sums, serially */
		for (int64_t r = 0; r < R; r++)
			total += rrow_sum(real_row(g, r), n, &mx, &mn, &idle);
		for (int64_t r = 0; r < R; r++)
			sq += rrow_sq(real_row(g, r), n, total / (double)P);
	} else {
#pragma omp parallel for schedule(static) reduction(max : mx) reduction(min : mn) reduction(+ : idle) if (P > 65536)
		for (int64_t r = 0; r < R; r++)
			rs[r] = rrow_sum(real_row(g, r), n, &mx, &mn, &idle);
		for (int64_t r = 0; r < R; r++)
			total += rs[r];
		const double mean = total / (double)P;
#pragma omp parallel for schedule(static) if (P > 65536)
		for (int64_t r = 0; r < R; r++)
			rs[r] = rrow_sq(real_row(g, r), n, mean);
		for (int64_t r = 0; r < R; r++)
			sq += rs[r];
		free(rs);
	}
	st->max = mx;
	st->min = mn;
	st->total = total;
	st->stddev = sqrt(sq / (double)P);
	st->idle = idle;
}

void lbt_grid_copy(lbt_grid *dst, const lbt_grid *src)
{
	int64_t n = src->shape.ext[src->shape.dims - 1], R = rows(src);
	for (int64_t r = 0; r < R; r++)
		memcpy(row_ptr(dst, r), row_ptr(src, r), (size_t)n * sizeof(int32_t));
	if (src->real && dst->real)
		for (int64_t r = 0; r < R; r++)
			memcpy(real_row(dst, r), real_row(src, r), (size_t)n * sizeof(double));
}

int64_t lbt_grid_first_diff(const lbt_grid *a, const lbt_grid *b)
{
	int64_t n = a->shape.ext[a->shape.dims - 1], R = rows(a);
	for (int64_t r = 0; r < R; r++) {
		const int32_t *x = row_ptr(a, r), *y = row_ptr(b, r);
		if (memcmp(x, y, (size_t)n * sizeof *x))
			for (int64_t i = 0; i < n; i++)
				if (x[i] != y[i])
					return r * n + i;
	}
	if (a->real && b->real)
		for (int64_t r = 0; r < R; r++) {
			const double *x = real_row(a, r), *y = real_row(b, r);
			if (memcmp(x, y, (size_t)n * sizeof *x))
				for (int64_t i = 0; i < n; i++)
					if (memcmp(x + i, y + i, sizeof *x))
						return r * n + i;
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

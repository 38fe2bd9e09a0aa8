/* comm.c — what the serial and the MPI communication layers share: the
 * slab decomposition, opening a cut, and turning a step's counters on each
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

int lbt_cut_open(lbt_cut *c, int D, const int64_t *ext, const unsigned char *wrap, int steps, int64_t *len,
                 lbt_err *e)
{
	memset(c, 0, sizeof *c);
	if (steps < 1 || steps > LBT_CUT_MAX_STEPS)
		return lbt_errf(e, LBT_EINVAL, "halo of %d steps: give 1 to %d steps between halo exchanges", steps,
		                LBT_CUT_MAX_STEPS);
	c->ranks = lbt_comm_size();
	c->rank = lbt_comm_rank();
	c->fill = lbt_comm_fill;
	c->axis = 0;
	while (c->axis < D - 1 && ext[c->axis] < 2)
		c->axis++;
	c->gext = ext[c->axis];
	c->torus = wrap[c->axis];
	c->by_pe = c->axis == D - 1;
	c->depth = c->by_pe ? LBT_HALO : steps * LBT_HALO; /* a cut last axis: one step at a time (the reference) */
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
	c->halo = malloc((size_t)layer_cells * (size_t)(4 * c->depth) * (sizeof(int32_t) + sizeof(double)));
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

int64_t lbt_comm_halo_layer(const lbt_cut *cut, int r, int h, int layers, int64_t *k)
{
	int64_t lo, len;
	lbt_comm_slab(cut->gext, cut->ranks, r, &lo, &len);
	*k = h < layers ? h - layers : len + h - layers;
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

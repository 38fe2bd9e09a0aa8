/* npy_block.c — a grid's block of a .npy file: a rank reads only the PEs of
 * its block and writes only those, at their offsets in the file, in pieces
 * of PIECE values, so no rank ever holds the whole torus, nor even a dense
 * copy of its own block. A process alone reads and writes runs of rows
 * contiguous in the file (a block's rows of the last axis are runs in the
 * torus's row-major order). A torus cut between ranks goes through
 * collective MPI-IO (lbt_pfile_block: a file view of the block, then
 * MPI_File_read_at_all / write_at_all), so that the MPI library may merge
 * the ranks' rows into large contiguous accesses: every rank takes part in
 * every call, as many as the largest block needs, with nothing once its
 * block is done or after it failed, and a failure before a collective call
 * is every rank's (lbt_comm_agree) before it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lbtorus/grid.h"
#include "lbtorus/io.h"
#include "lbtorus/npy.h"
#include "comm/comm.h"
#include "core/npy_stream.h"

enum { PIECE = 1 << 18 }; /* values per read or write: 2 MiB of float64 */

/* Copy n values between dense and the grid's PEs of local flat indices
 * from .. from+n-1 (rows of n_last values; put: into the grid). */
static void span(const lbt_grid *g, const lbt_field *f, int64_t from, int64_t n, void *dense, int put)
{
	const int64_t len = g->shape.ext[g->shape.dims - 1];
	const size_t cell = lbt_type_size(f->type);
	char *d = dense;
	while (n > 0) {
		const int64_t r = from / len, c = from % len, k = len - c < n ? len - c : n;
		char *pe = (char *)lbt_field_row(g, f, r) + c * (int64_t)cell;
		if (put)
			memcpy(pe, d, (size_t)k * cell);
		else
			memcpy(d, pe, (size_t)k * cell);
		d += k * (int64_t)cell, from += k, n -= k;
	}
}

/* Call piece(ctx, local, global, n) for the block's PEs in pieces of at
 * most PIECE values, each contiguous in the file (global: its flat index). */
static int pieces(const lbt_grid *g, int (*piece)(void *ctx, int64_t local, int64_t global, int64_t n), void *ctx)
{
	const int64_t len = g->shape.ext[g->shape.dims - 1], rows = lbt_shape_pes(&g->shape) / len;
	for (int64_t r0 = 0, r1; r0 < rows; r0 = r1) {
		const int64_t at = lbt_grid_row_global(g, r0);
		for (r1 = r0 + 1; r1 < rows && lbt_grid_row_global(g, r1) == at + (r1 - r0) * len; r1++)
			;
		for (int64_t k = 0, n = (r1 - r0) * len; k < n; k += PIECE) {
			int st = piece(ctx, r0 * len + k, at + k, n - k < PIECE ? n - k : PIECE);
			if (st)
				return st;
		}
	}
	return LBT_OK;
}

typedef struct {
	lbt_pfile *file;
	const char *name;
	const lbt_npy_info *h;
	int64_t data;   /* the data's first byte */
	const lbt_grid *g;
	const lbt_field *f;
	void *raw, *cells;
	lbt_err *e;
} io_ctx;

/* pieces() over c's open file, then the file closed: the first error, the
 * close's if the pieces went well. */
static int pieces_closed(io_ctx *c, int (*piece)(void *ctx, int64_t local, int64_t global, int64_t n))
{
	int st = pieces(c->g, piece, c);
	lbt_err ce;
	int cst = lbt_pfile_close(c->file, &ce);
	if (!st && cst)
		st = cst, *c->e = ce;
	return st;
}

/* A cut grid's block (c->g, on every rank): the file view of it from
 * c->data (values of elem bytes), then rounds of at most PIECE values of
 * the block in its row-major order, piece(c, k, n) for values k .. k+n-1,
 * as many rounds on every rank as the largest block takes (n = 0 once
 * done or failed: each round is a collective call), then the file closed.
 * The first error; every rank's status is agreed by the caller. */
static int block_closed(io_ctx *c, int elem, int (*piece)(io_ctx *c, int64_t k, int64_t n, lbt_err *e))
{
	const lbt_grid *g = c->g;
	int64_t lo[LBT_MAXD];
	for (int d = 0; d < g->whole.dims; d++)
		lo[d] = lbt_grid_lo(g, d);
	int st = lbt_pfile_block(c->file, c->data, elem, g->whole.dims, g->whole.ext, lo, g->shape.ext, c->e);
	st = lbt_comm_agree(st, c->e); /* the view is every rank's, or none's */
	const int64_t P = lbt_shape_pes(&g->shape);
	double most = (double)P; /* the largest block's PEs (exact: fewer than 2^53) */
	lbt_comm_max_f64(&most, 1);
	for (int64_t k = 0; !st && k < (int64_t)most; k += PIECE) {
		const int64_t n = k >= P ? 0 : P - k < PIECE ? P - k : PIECE;
		if ((st = piece(c, k, n, c->e))) {
			lbt_err later; /* the other rounds with nothing: the other ranks' calls wait for this one's */
			for (k += PIECE; k < (int64_t)most; k += PIECE)
				piece(c, k, 0, &later);
		}
	}
	lbt_err ce;
	int cst = lbt_pfile_close(c->file, &ce);
	if (!st && cst)
		st = cst, *c->e = ce;
	return st;
}

/* Values k .. k+n-1 of the block from the file into the grid, checked row
 * by row with their global flat indices (lbt_npy_convert's messages). */
static int read_block_piece(io_ctx *c, int64_t k, int64_t n, lbt_err *e)
{
	const int real = c->f->type == LBT_F64;
	int st = lbt_pfile_read_all(c->file, k, c->raw, n, e);
	const int64_t len = c->g->shape.ext[c->g->shape.dims - 1];
	for (int64_t j = 0, m; !st && j < n; j += m) { /* a run within one row of the block */
		const int64_t r = (k + j) / len, col = (k + j) % len;
		m = len - col < n - j ? len - col : n - j;
		st = lbt_npy_convert(c->name, c->h, (char *)c->raw + j * c->h->elem, lbt_grid_row_global(c->g, r) + col, m,
		                     real ? NULL : (int32_t *)c->cells + j, real ? (double *)c->cells + j : NULL, e);
	}
	if (!st)
		span(c->g, c->f, k, n, c->cells, 1);
	return st;
}

static int read_piece(void *ctx, int64_t local, int64_t global, int64_t n)
{
	io_ctx *c = ctx;
	const int real = c->f->type == LBT_F64;
	int st = lbt_pfile_read(c->file, c->data + global * c->h->elem, c->raw, (size_t)(n * c->h->elem), c->e);
	if (!st)
		st = lbt_npy_convert(c->name, c->h, c->raw, global, n, real ? NULL : c->cells, real ? c->cells : NULL, c->e);
	if (!st)
		span(c->g, c->f, local, n, c->cells, 1);
	return st;
}

int lbt_npy_read_block(const char *path, const lbt_npy_info *h, lbt_grid *g, const lbt_field *f, lbt_err *e)
{
	io_ctx c = {.name = path, .h = h, .data = h->offset, .g = g, .f = f, .e = e};
	c.raw = malloc((size_t)PIECE * 8);
	c.cells = malloc((size_t)PIECE * 8);
	int st = c.raw && c.cells ? LBT_OK : lbt_errf(e, LBT_ENOMEM, "no memory to read %s", path);
	const int all = g->cut != NULL; /* collective: every rank opens, reads and closes it */
	if (all)
		st = lbt_comm_agree(st, e);
	if (!st)
		st = lbt_pfile_open(&c.file, path, 0, all, e);
	if (all && lbt_comm_agree(st, e) && !st) { /* opened here, not everywhere */
		lbt_pfile_close(c.file, NULL);
		st = LBT_EIO;
	}
	if (!st)
		st = all ? block_closed(&c, h->elem, read_block_piece) : pieces_closed(&c, read_piece);
	free(c.raw);
	free(c.cells);
	return st;
}

static int write_block_piece(io_ctx *c, int64_t k, int64_t n, lbt_err *e)
{
	span(c->g, c->f, k, n, c->cells, 0);
	return lbt_pfile_write_all(c->file, k, c->cells, n, e);
}

static int write_piece(void *ctx, int64_t local, int64_t global, int64_t n)
{
	io_ctx *c = ctx;
	const int64_t cell = (int64_t)lbt_type_size(c->f->type);
	span(c->g, c->f, local, n, c->cells, 0);
	return lbt_pfile_write(c->file, c->data + global * cell, c->cells, (size_t)(n * cell), c->e);
}

/* A device, FIFO or stdout cannot be written at offsets: the field is
 * gathered on rank 0 (all: the grid is cut between the ranks), which
 * writes it after the header. */
static int dump_through(FILE *f, const char *path, const lbt_grid *g, const lbt_field *fl, int all, lbt_err *e)
{
	void *dense = f ? malloc((size_t)lbt_shape_pes(&g->whole) * lbt_type_size(fl->type)) : NULL;
	const int ok = !f || dense;
	if (!(all ? lbt_comm_min_int(ok) : ok)) {
		free(dense);
		return lbt_errf(e, LBT_ENOMEM, "no memory to dump the grid");
	}
	int st = lbt_field_gather(g, fl, dense, e);
	size_t P = (size_t)lbt_shape_pes(&g->whole);
	if (!st && f && fwrite(dense, lbt_type_size(fl->type), P, f) != P)
		st = lbt_errf(e, LBT_EIO, "cannot write %s", path);
	free(dense);
	return st;
}

int lbt_npy_dump(lbt_outfile *o, const char *path, const lbt_grid *g, const lbt_field *f, lbt_err *e)
{
	const int all = g->cut != NULL, writer = !all || lbt_comm_rank() == 0;
	char h[LBT_NPY_HEADER_MAX];
	const int hlen = lbt_npy_header(h, &g->whole, f->type == LBT_F64 ? "<f8" : "<i4");
	struct {
		int direct;
		char tmp[sizeof o->tmp];
	} where = {0, ""}; /* rank 0's output: written through, or the temporary file to write into */
	int st = LBT_OK;
	if (writer) {
		where.direct = o->direct || o->f == stdout;
		snprintf(where.tmp, sizeof where.tmp, "%s", o->tmp);
		if (fwrite(h, 1, (size_t)hlen, o->f) != (size_t)hlen || (!where.direct && fflush(o->f)))
			st = lbt_errf(e, LBT_EIO, "cannot write %s", path);
	}
	if (all) {
		lbt_comm_bcast(&where, (int)sizeof where);
		st = lbt_comm_agree(st, e);
	}
	if (st || where.direct)
		return st ? st : dump_through(writer ? o->f : NULL, path, g, f, all, e);
	io_ctx c = {.name = path, .data = hlen, .g = g, .f = f, .e = e};
	c.cells = malloc((size_t)PIECE * 8);
	st = c.cells ? LBT_OK : lbt_errf(e, LBT_ENOMEM, "no memory to write %s", path);
	if (all) /* the open is collective: every rank goes on, or none */
		st = lbt_comm_agree(st, e);
	if (!st)
		st = lbt_pfile_open(&c.file, where.tmp, 1, all, e);
	if (all && lbt_comm_agree(st, e) && !st) { /* opened here, not everywhere */
		lbt_pfile_close(c.file, NULL);
		st = LBT_EIO;
	}
	if (!st)
		st = all ? block_closed(&c, (int)lbt_type_size(f->type), write_block_piece) : pieces_closed(&c, write_piece);
	free(c.cells);
	if (st == LBT_EIO) { /* name the output, not its temporary */
		const char *why = strrchr(e->msg, ':');
		char text[sizeof e->msg];
		snprintf(text, sizeof text, "%s", why ? why + 2 : e->msg);
		lbt_errf(e, LBT_EIO, "cannot write %s: %s", path, text);
	}
	return all ? lbt_comm_agree(st, e) : st;
}

int lbt_npy_info_read_all(const char *path, lbt_npy_info *info, int all, lbt_err *e)
{
	int st = !all || lbt_comm_rank() == 0 ? lbt_npy_info_read(path, info, e) : LBT_OK;
	if (all && !(st = lbt_comm_agree(st, e)))
		lbt_comm_bcast(info, (int)sizeof *info);
	return st;
}

int lbt_npy_info_read_shaped(const char *path, const lbt_shape *want, lbt_npy_info *info, int all, lbt_err *e)
{
	int st = lbt_npy_info_read_all(path, info, all, e);
	int same = !st && info->shape.dims == want->dims;
	for (int d = 0; same && d < want->dims; d++)
		same = info->shape.ext[d] == want->ext[d];
	if (!st && !same) {
		char a[128], b[128];
		lbt_shape_format(&info->shape, a, sizeof a);
		lbt_shape_format(want, b, sizeof b);
		st = lbt_errf(e, LBT_EINVAL, "%s has shape %s but the torus is %s", path, a, b);
	}
	return st;
}

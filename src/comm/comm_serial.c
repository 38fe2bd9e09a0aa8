/* comm_serial.c — the communication layer of a build without MPI: one
 * process, rank 0 of 1; reductions over one rank are the values themselves
 * and a cut (made on one rank only when asked for, to test the distributed
 * paths: lbt_setup.cut) fills its halo from its own block. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "comm.h"

int lbt_comm_mpi(void) { return 0; }
int lbt_comm_init(int *argc, char ***argv, lbt_err *e)
{
	(void)argc, (void)argv, (void)e;
	return LBT_OK;
}
void lbt_comm_finalize(void) {}
int lbt_comm_rank(void) { return 0; }
int lbt_comm_size(void) { return 1; }
void lbt_comm_bcast(void *buf, int n) { (void)buf, (void)n; }
int lbt_comm_min_int(int v) { return v; }
void lbt_comm_sum_i64(int64_t *v, int n) { (void)v, (void)n; }
void lbt_comm_max_f64(double *v, int n) { (void)v, (void)n; }
void lbt_comm_allgather(const void *mine, size_t n, void *all) { memmove(all, mine, n); }

int lbt_comm_allgatherv(const void *mine, size_t n, void **all, int64_t *counts)
{
	if (!(*all = malloc(n ? n : 1)))
		return LBT_ENOMEM;
	memcpy(*all, mine, n);
	counts[0] = (int64_t)n;
	return LBT_OK;
}

int lbt_comm_allgather_f64(const double *mine, int64_t n, double **all, int64_t *counts)
{
	*all = malloc((size_t)(n ? n : 1) * sizeof **all);
	if (!*all)
		return LBT_ENOMEM;
	memcpy(*all, mine, (size_t)n * sizeof **all);
	counts[0] = n;
	return LBT_OK;
}

void lbt_comm_exscan_i64(const int64_t *v, int64_t *before, int64_t *total, int n)
{
	memset(before, 0, (size_t)n * sizeof *before);
	memcpy(total, v, (size_t)n * sizeof *total);
}

int lbt_comm_agree(int status, lbt_err *e)
{
	(void)e;
	return status;
}

int lbt_comm_alltoallv(const void *send, const int64_t *sendn, void **recv, int64_t *recvn)
{
	if (!(*recv = malloc((size_t)(sendn[0] ? sendn[0] : 1))))
		return LBT_ENOMEM;
	memcpy(*recv, send, (size_t)sendn[0]);
	recvn[0] = sendn[0];
	return LBT_OK;
}

int lbt_comm_gather(const void *mine, size_t n, void *all)
{
	memmove(all, mine, n);
	return LBT_OK;
}

int lbt_comm_send(int to, int tag, const void *buf, size_t n)
{
	(void)to, (void)tag, (void)buf, (void)n;
	return LBT_EINVAL;
}

int lbt_comm_recv(int wait, int *from, int *tag, char **buf, size_t *n)
{
	(void)wait, (void)from, (void)tag, (void)buf, (void)n;
	return 0;
}

struct lbt_comm_watch {
	const volatile sig_atomic_t *flag;
};

int lbt_comm_watch_open(lbt_comm_watch **w, const volatile sig_atomic_t *flag)
{
	if (!(*w = malloc(sizeof **w)))
		return LBT_ENOMEM;
	(*w)->flag = flag;
	return LBT_OK;
}

int lbt_comm_watch_poll(lbt_comm_watch *w, int stop) { return stop || (w->flag && *w->flag); }

int lbt_comm_watch_send(lbt_comm_watch *w, int to, int tag, const void *buf, size_t n)
{
	(void)w;
	return lbt_comm_send(to, tag, buf, n);
}

int lbt_comm_watch_close(lbt_comm_watch *w, int stop)
{
	stop = lbt_comm_watch_poll(w, stop);
	free(w);
	return stop;
}

void lbt_cut_chain(const lbt_cut *cut, int axis, double *acc, int64_t n, void (*add)(void *ctx, double *acc), void *ctx)
{
	(void)cut, (void)axis, (void)n;
	add(ctx, acc);
}

void lbt_comm_fill(const lbt_view *v, const lbt_cut *cut, int axis, int layers)
{
	for (int h = 0; h < 2 * layers; h++) {
		int64_t k, g = lbt_comm_halo_layer(cut, axis, 0, h, layers, &k);
		if (g < 0)
			continue;
		lbt_comm_layer_get(v, cut, axis, layers, g - v->origin[axis], cut->halo);
		lbt_comm_layer_put(v, cut, axis, layers, k, cut->halo);
	}
}

/* No messages: all of it at the start. */
void lbt_comm_fill_start(const lbt_view *v, const lbt_cut *cut, int axis, int layers)
{
	lbt_comm_fill(v, cut, axis, layers);
}

void lbt_comm_fill_finish(const lbt_view *v, const lbt_cut *cut, int axis, int layers, int64_t stepped)
{
	(void)v, (void)cut, (void)axis, (void)layers, (void)stepped;
}

int lbt_comm_cart_open(lbt_cut *c, lbt_err *e)
{
	(void)c, (void)e;
	return LBT_OK;
}
void lbt_comm_cart_close(lbt_cut *c) { (void)c; }

struct lbt_pfile {
	int fd, write, elem;
	int64_t disp; /* lbt_pfile_block's array */
	char path[4400];
};

int lbt_pfile_open(lbt_pfile **f, const char *path, int write, int all, lbt_err *e)
{
	(void)all; /* one process: it alone */
	if (!(*f = malloc(sizeof **f)))
		return lbt_errf(e, LBT_ENOMEM, "no memory to open %s", path);
	snprintf((*f)->path, sizeof (*f)->path, "%s", path);
	(*f)->write = write;
	int st = lbt_posix_open(path, write, &(*f)->fd, e);
	if (st) {
		free(*f);
		*f = NULL;
	}
	return st;
}

int lbt_pfile_read(lbt_pfile *f, int64_t off, void *buf, size_t n, lbt_err *e) { return lbt_posix_read_at(f->fd, f->path, off, buf, n, e); }
int lbt_pfile_write(lbt_pfile *f, int64_t off, const void *buf, size_t n, lbt_err *e) { return lbt_posix_write_at(f->fd, f->path, off, buf, n, e); }

int lbt_pfile_block(lbt_pfile *f, int64_t disp, int elem, int dims, const int64_t *gext, const int64_t *lo,
                    const int64_t *len, lbt_err *e)
{
	f->disp = disp;
	f->elem = elem;
	return lbt_pfile_whole(f->path, dims, gext, lo, len, e);
}

int lbt_pfile_read_all(lbt_pfile *f, int64_t k, void *buf, int64_t n, lbt_err *e)
{
	return lbt_posix_read_at(f->fd, f->path, f->disp + k * f->elem, buf, (size_t)(n * f->elem), e);
}

int lbt_pfile_write_all(lbt_pfile *f, int64_t k, const void *buf, int64_t n, lbt_err *e)
{
	return lbt_posix_write_at(f->fd, f->path, f->disp + k * f->elem, buf, (size_t)(n * f->elem), e);
}

int lbt_pfile_close(lbt_pfile *f, lbt_err *e)
{
	int st = lbt_posix_close(f->fd, f->path, f->write, e);
	free(f);
	return st;
}

void lbt_comm_tally_reset(void) {}
void lbt_comm_tally_get(lbt_comm_tally *t) { memset(t, 0, sizeof *t); }

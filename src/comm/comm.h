/* comm.h (private) — the communication layer's interface to the layers
 * above: the slab decomposition, the cut a grid and its views carry, the
 * reductions that keep a distributed run's numbers equal to one process's.
 * Two implementations: comm_mpi.c (MPI) and comm_serial.c (one process);
 * comm.c is what they share. Every function taking a cut is collective:
 * all ranks call it, in the same order. */
#ifndef LBTORUS_COMM_PRIV_H
#define LBTORUS_COMM_PRIV_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "lbtorus/comm.h"
#include "lbtorus/kernels.h"

/* Rank r's slab of an axis of extent n over R ranks: layers lo .. lo+len-1. */
void lbt_comm_slab(int64_t n, int R, int r, int64_t *lo, int64_t *len);
/* The rank holding layer i (0 <= i < n). */
int lbt_comm_owner(int64_t n, int R, int64_t i);

/* The grid of ranks for a torus of D axes with extents ext cut between R
 * ranks: want (D entries, their product R; NULL: choose) or, by default,
 * of the factorizations of R over the axes with links, the one whose
 * blocks have the least halo (per rank, 2 * LBT_HALO layers per cut axis,
 * each the block's face spanning the halo of the cut axes before; ties:
 * fewer cut axes, then the outer axes cut more), the last axis cut only if
 * no grid leaves it whole (a row shared by ranks costs a real-valued
 * method a reduction term per PE, and the Liquid model its vector kernel). An axis cut into more parts than its extent, a grid whose
 * product is not R or whose length is not D: LBT_EINVAL, one line. */
int lbt_cut_grid(int R, int D, const int64_t *ext, const int *want, int *nr, lbt_err *e);
/* Of the grids of R ranks whose blocks the Liquid model's vector kernel
 * steps with deep halos (lbt_cut_vector: the first axis with links cut; and the last whole),
 * the one lbt_cut_grid would choose among them (the least halo; ties:
 * fewer cut axes, then the outer axes cut more), into nr; LBT_EINVAL
 * (nothing said) if there is none: a 1-D torus, or R not a product of
 * counts the axes before the last can take with the first cut. */
int lbt_cut_grid_vector(int R, int D, const int64_t *ext, int *nr);
/* A cut of a torus of D axes with extents ext (wrap[d]: axis d wraps) over
 * all ranks on the grid nr (lbt_cut_grid): this rank's block, its place,
 * the cut axes (those cut into 2 or more; on one rank the first axis with
 * links: a slab of one), a halo on every cut axis deep enough for `steps`
 * steps between exchanges (1 .. LBT_CUT_MAX_STEPS, else LBT_EINVAL; depth
 * = LBT_HALO steps) where the first axis with links is cut and the last
 * is not (the Liquid model's vector kernel steps such a block, its halos
 * filled axis after axis, several steps an exchange), for one step
 * (LBT_HALO) otherwise (a block whose last axis is cut too: the vector
 * kernel, one step an exchange). Then lbt_cut_rows allocates the parts of `rows`
 * rows if the loads are real-valued (real; integer sums are reduced
 * exactly, without parts) and the fill's buffers for layers of layer_cells
 * PEs. */
int lbt_cut_open(lbt_cut *c, int D, const int64_t *ext, const unsigned char *wrap, const int *nr, int steps,
                 lbt_err *e);
int lbt_cut_rows(lbt_cut *c, int64_t rows, int real, int64_t layer_cells, lbt_err *e);
/* Does the Liquid model's vector kernel step c's blocks (their first axis
 * with links cut, and not the last: a ring is the reference's)? Then
 * their halos are as deep as the steps between exchanges ask where their
 * last axis is whole (lbt_cut_open), one step deep where it is cut; else
 * the reference steps them, one step an exchange. */
int lbt_cut_vector(const lbt_cut *c);
/* lbt_cut_open's cut as rank r of R ranks would have it, without a
 * communicator (nothing to close): what a rank will hold, for the memory
 * estimate. */
int lbt_cut_plan(lbt_cut *c, int R, int r, int D, const int64_t *ext, const unsigned char *wrap, const int *nr,
                 int steps, lbt_err *e);
/* Of c's block: the largest layer a fill moves (a cut axis's, spanning
 * the halo of the cut axes before it), in cells; the rows of parts
 * lbt_cut_rows takes (the block's rows of the last axis, or its PEs if the
 * last axis is cut); and the bytes lbt_cut_rows allocates for them. */
int64_t lbt_cut_layer_cells(const lbt_cut *c);
int64_t lbt_cut_part_rows(const lbt_cut *c);
double lbt_cut_rows_bytes(const lbt_cut *c, int64_t rows, int real, int64_t layer_cells);
void lbt_cut_close(lbt_cut *c);
/* The block of rank r of c's grid: its coordinates, first layers and extents. */
void lbt_cut_block(const lbt_cut *c, int r, int *coord, int64_t *lo, int64_t *len);
/* The communicator of c's grid (MPI_Cart_create; nothing without MPI). */
int lbt_comm_cart_open(lbt_cut *c, lbt_err *e);
void lbt_comm_cart_close(lbt_cut *c);

/* After a step on a cut view: make c what one process would have counted
 * (moved and has_stats totals summed, extremes and link_max reduced, the
 * per-direction maxima reduced and summed pair by pair, the real parts
 * added in global order). real: the method's loads are real-valued. */
void lbt_cut_counts(const lbt_cut *cut, lbt_counts *c, int real);
/* The same for the n steps of one call of several (c[0..n-1], in step
 * order) in one reduction of each kind for them all, the same values as
 * n calls of lbt_cut_counts (on real-valued loads, or more than
 * LBT_CUT_BATCH steps: those n calls). */
#define LBT_CUT_BATCH 64
void lbt_cut_counts_steps(const lbt_cut *cut, lbt_counts *c, int n, int real);
/* Every rank's n parts laid out as lbt_cut says (segments of a part per
 * row, or per PE and term if the last axis is cut), added as one process
 * adds them: from init, segment by segment, rows in global order, each
 * row's terms from 0 and then the row's sum. *nomem is set if the parts
 * could not be gathered. */
double lbt_cut_sum(const lbt_cut *cut, const double *parts, int64_t n, int terms, double init, int *nomem);
/* Sums of k quantities taken a row at a time (a workload's real-valued
 * counters): every rank's k values for each of its block's nrows rows (in
 * its row-major order; nrows 0 on a rank whose block does not end its rows
 * on the last axis: a row's values are those of the block that ends it),
 * added to acc[0..k-1] row by row in global row order, as one process adds
 * them. *nomem is set if the values could not be gathered. */
void lbt_cut_row_sums(const lbt_cut *cut, const double *rows, int64_t nrows, int k, double *acc, int *nomem);
/* A pass along the line of c's grid on `axis` through this rank: acc (n
 * doubles) from the rank before on the line, add(ctx, acc), acc to the rank
 * after (nothing from or to beyond the line's ends; on one rank just add).
 * What one process computes running along a row in order, such as the
 * lanes of a row shared by the ranks of the last axis. Collective on the line. */
void lbt_cut_chain(const lbt_cut *cut, int axis, double *acc, int64_t n, void (*add)(void *ctx, double *acc), void *ctx);

/* Rank 0's n bytes at buf to every rank. */
void lbt_comm_bcast(void *buf, int n);

/* Reductions over all ranks (collective). */
void lbt_comm_sum_i64(int64_t *v, int n);
void lbt_comm_max_f64(double *v, int n);
/* The gathers and the exchange below move any number of bytes (more than
 * an int counts: in pieces, comm_mpi.c). Every rank's n bytes at mine (the
 * same n on every rank), in rank order, into all (R * n bytes). */
void lbt_comm_allgather(const void *mine, size_t n, void *all);
/* Every rank's n_r bytes, in rank order, into *all (allocated; on no
 * memory anywhere LBT_ENOMEM on every rank, *all NULL); counts[r]: n_r
 * (counts: room for lbt_comm_size() entries). */
int lbt_comm_allgatherv(const void *mine, size_t n, void **all, int64_t *counts);
/* The same of n_r doubles (counts[r]: n_r). */
int lbt_comm_allgather_f64(const double *mine, int64_t n, double **all, int64_t *counts);
/* Every rank's n_r bytes to rank 0, in rank order, into all (rank 0 only). */
int lbt_comm_gather(const void *mine, size_t n, void *all);
/* Exclusive prefix sums over the ranks: before[j] = the sum of v[j] over
 * the ranks below this one (0 on rank 0), total[j] over all ranks. */
void lbt_comm_exscan_i64(const int64_t *v, int64_t *before, int64_t *total, int n);
/* Every rank sends sendn[r] bytes (from send, in rank order) to rank r and
 * receives recvn[r] bytes from rank r into *recv (allocated, in rank order;
 * recvn: room for lbt_comm_size() entries). On no memory anywhere
 * LBT_ENOMEM on every rank, *recv NULL. */
int lbt_comm_alltoallv(const void *send, const int64_t *sendn, void **recv, int64_t *recvn);

/* Messages between ranks (a sweep's records to rank 0). Send n bytes to
 * rank `to` with a tag (>= 0); receive the next message for this rank
 * (wait: until one comes; else 0 if none is there): its sender, tag and
 * bytes (*buf allocated, NUL-terminated). On one process there is no one to
 * talk to: send fails (LBT_EINVAL), receive finds nothing. */
int lbt_comm_send(int to, int tag, const void *buf, size_t n);
int lbt_comm_recv(int wait, int *from, int *tag, char **buf, size_t *n);

/* A stop agreement that never waits (a sweep's or a spread's runs, each
 * rank at its own pace). A rank whose flag is set (the command line's
 * holds the signal's number) or that asks to stop tells every other rank
 * at once, by a message of its own (on a communicator of the watch's, so
 * that no other message matches it); a rank hears of it at its next poll,
 * between two of its runs, so a signal to any rank stops every rank
 * within about one run, and no rank waits for another's runs until the
 * end (close). On one process: the flag and the stop alone.
 * open and close are collective; poll is not, and never waits; on a
 * thread other than MPI's main one it only reads what the main thread
 * heard last and the flag. */
typedef struct lbt_comm_watch lbt_comm_watch;
/* A watch of flag (NULL: none); LBT_ENOMEM on every rank if some rank had no memory. */
int lbt_comm_watch_open(lbt_comm_watch **w, const volatile sig_atomic_t *flag);
/* 1 once this rank's flag or `stop` is set or another rank's word came. */
int lbt_comm_watch_poll(lbt_comm_watch *w, int stop);
/* n bytes to rank `to` with a tag, as lbt_comm_send, without waiting for
 * the receiver (copied; the send completes by close at the latest). */
int lbt_comm_watch_send(lbt_comm_watch *w, int to, int tag, const void *buf, size_t n);
/* Wait until every rank closes (polling: a signal meanwhile still stops
 * the ranks still running); then whether any rank stopped, the same on
 * every rank, with the largest signal for lbt_comm_signal. Frees w. */
int lbt_comm_watch_close(lbt_comm_watch *w, int stop);

/* A file each rank reads or writes its own byte ranges of: MPI-IO under a
 * launcher, pread/pwrite otherwise. all: every rank opens it together
 * (collective: a torus cut between the ranks, each its block); else this
 * rank alone. To write, the file exists (rank 0 made it and wrote its
 * header); closing one opened by all syncs it on every rank.
 * lbt_pfile_read / write are this rank's own (not collective), of any
 * size; a cut torus's blocks go through lbt_pfile_block (below). */
typedef struct lbt_pfile lbt_pfile;
int lbt_pfile_open(lbt_pfile **f, const char *path, int write, int all, lbt_err *e);
int lbt_pfile_read(lbt_pfile *f, int64_t off, void *buf, size_t n, lbt_err *e);
int lbt_pfile_write(lbt_pfile *f, int64_t off, const void *buf, size_t n, lbt_err *e);
int lbt_pfile_close(lbt_pfile *f, lbt_err *e);
/* Collective I/O of a torus cut between the ranks, on a file opened by all:
 * the file holds, from byte disp, a row-major array of dims axes with
 * extents gext and values of elem bytes, of which this rank's block is
 * lo[d] .. lo[d] + len[d] - 1 on every axis (lbt_pfile_block, collective:
 * under MPI-IO a file view of the block, a subarray). Then each
 * lbt_pfile_read_all / write_all moves the block's values k .. k + n - 1
 * in its own row-major order (n < 2^31; MPI_File_read_at_all /
 * write_at_all): every rank makes every call, n = 0 where it has nothing
 * left, or after it failed. A process alone holds the whole array (else
 * LBT_EINTERNAL), read and written at its offsets. */
int lbt_pfile_block(lbt_pfile *f, int64_t disp, int elem, int dims, const int64_t *gext, const int64_t *lo,
                    const int64_t *len, lbt_err *e);
int lbt_pfile_read_all(lbt_pfile *f, int64_t k, void *buf, int64_t n, lbt_err *e);
int lbt_pfile_write_all(lbt_pfile *f, int64_t k, const void *buf, int64_t n, lbt_err *e);
/* lbt_pfile_block of a process alone: LBT_OK if the block is the whole
 * array, else LBT_EINTERNAL naming the file. */
int lbt_pfile_whole(const char *path, int dims, const int64_t *gext, const int64_t *lo, const int64_t *len,
                    lbt_err *e);
/* The same on a file descriptor: what a process without MPI-IO does
 * (open: the descriptor into *fd; close: fsync first if written). */
int lbt_posix_open(const char *path, int write, int *fd, lbt_err *e);
int lbt_posix_close(int fd, const char *path, int write, lbt_err *e);
int lbt_posix_read_at(int fd, const char *path, int64_t off, void *buf, size_t n, lbt_err *e);
int lbt_posix_write_at(int fd, const char *path, int64_t off, const void *buf, size_t n, lbt_err *e);

/* The halo of a cut view's cut axis `axis` from the neighbouring blocks,
 * `layers` on each side (at most the axis's halo): the load field, and the
 * real field if the view has one (lbt_cut.fill). */
void lbt_comm_fill(const lbt_view *v, const lbt_cut *cut, int axis, int layers);
/* The same in two halves (lbt_cut.start, .finish): start takes the layers
 * it sends from the block (and, on a short axis, the block's own layers
 * its halo takes) and sets the messages on their way; finish waits for
 * them and writes the halo. In between the caller may change its block's
 * PEs, not its halo, and makes no other fill. `stepped`: the PEs the
 * caller stepped in between (tallied: overlapped_fills, overlap_pes).
 * Without messages (one process) start does the whole fill. */
void lbt_comm_fill_start(const lbt_view *v, const lbt_cut *cut, int axis, int layers);
void lbt_comm_fill_finish(const lbt_view *v, const lbt_cut *cut, int axis, int layers, int64_t stepped);

/* What the fills share. A layer of a fill of `layers` layers: the PEs with
 * one coordinate k (local) on the axis, spanning `layers` layers of the
 * halo of each cut axis before it (what the same fill filled there),
 * packed (load cells, then real cells if the view has them). */
size_t lbt_comm_layer_bytes(const lbt_view *v, const lbt_cut *cut, int axis, int layers);
void lbt_comm_layer_get(const lbt_view *v, const lbt_cut *cut, int axis, int layers, int64_t k, void *buf);
void lbt_comm_layer_put(const lbt_view *v, const lbt_cut *cut, int axis, int layers, int64_t k, const void *buf);
/* Halo layer h (0 .. 2 layers - 1: local -layers .. -1, n .. n + layers -
 * 1) on axis `axis` of the block at place q of that axis: its global
 * layer, or -1 if there is none (beyond a mesh's end); *k its local index. */
int64_t lbt_comm_halo_layer(const lbt_cut *cut, int axis, int q, int h, int layers, int64_t *k);

#endif

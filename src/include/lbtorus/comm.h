/* comm.h — one torus or one sweep over several processes (MPI).
 *
 * Built with -Dmpi=enabled (or auto, when the MPI development files are
 * found), lbtorus joins MPI when it is started by an MPI launcher (mpirun,
 * mpiexec, srun: the launcher's environment says so); started alone, or
 * built without MPI, it is one process and nothing here communicates.
 *
 * A run on R > 1 ranks cuts its torus into blocks on a Cartesian grid of
 * ranks (lbt_setup.ranks, or the grid whose blocks exchange the least halo:
 * slabs along the first axis with links are the one-axis case); along an
 * axis cut into k parts the blocks hold consecutive layers (uneven: the
 * first ext % k hold one more); every rank needs at least one PE, so a
 * torus no grid of R ranks cuts is an error. Results equal one process's
 * bit for bit. */
#ifndef LBTORUS_COMM_H
#define LBTORUS_COMM_H

#include <signal.h>
#include <stdint.h>

#include "lbtorus/status.h"

/* 1 if this library was built with MPI. */
int lbt_comm_mpi(void);
/* Join MPI if started by an MPI launcher (else nothing); LBT_OK or LBT_EIO. */
int lbt_comm_init(int *argc, char ***argv, lbt_err *e);
/* Leave MPI (a no-op when not joined). */
void lbt_comm_finalize(void);
/* This process's rank and the number of ranks (0 and 1 when not joined). */
int lbt_comm_rank(void);
int lbt_comm_size(void);
/* The smallest of every rank's v (so 1 on all ranks iff every rank says 1). */
int lbt_comm_min_int(int v);
/* A failure on some ranks made every rank's: LBT_OK if every rank's status
 * is, else, on every rank, the status and message (in e) of the lowest
 * rank that failed. */
int lbt_comm_agree(int status, lbt_err *e);
/* Whether to stop, agreed by every rank in one reduction (collective): 1 on
 * every rank if some rank's *flag is set (flag NULL: not; the command
 * line's flag holds the signal's number) or its `stop` is, else 0. The
 * largest signal number found is kept for lbt_comm_signal. */
int lbt_comm_stop(const volatile sig_atomic_t *flag, int stop);
/* The signal the last lbt_comm_stop that found one found (0: none did):
 * what stopped a rank that was not signalled itself. */
int lbt_comm_signal(void);

/* What this rank spent communicating since the last reset (all zero on one
 * process): halo fills of the cut axes (calls; messages and bytes sent;
 * seconds in them, and of those seconds waiting for the messages), and
 * every other collective (calls, seconds); of the fills, those overlapped
 * with the kernel's work (started, PEs stepped, then finished), and the
 * PEs stepped while their messages were under way. For the scaling
 * harness (bench/mpi_scaling.py). */
typedef struct {
	int64_t fills, halo_messages, halo_bytes, collectives;
	double halo_seconds, halo_wait_seconds, collective_seconds;
	int64_t overlapped_fills, overlap_pes;
} lbt_comm_tally;
void lbt_comm_tally_reset(void);
void lbt_comm_tally_get(lbt_comm_tally *t);
/* Every rank's tally, with its run's seconds and PEs, as one JSON object
 * of per-rank arrays written by rank 0 to path (collective; LBT_EIO on
 * every rank if rank 0 could not write it). */
#include <stdint.h>
int lbt_comm_tally_write(const char *path, double seconds, int64_t pes, int64_t steps, lbt_err *e);

#endif

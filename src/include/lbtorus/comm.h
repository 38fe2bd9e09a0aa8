/* comm.h — one torus or one sweep over several processes (MPI).
 *
 * Built with -Dmpi=enabled (or auto, when the MPI development files are
 * found), lbtorus joins MPI when it is started by an MPI launcher (mpirun,
 * mpiexec, srun: the launcher's environment says so); started alone, or
 * built without MPI, it is one process and nothing here communicates.
 *
 * A run on R > 1 ranks cuts its torus into slabs along the first axis with
 * links (uneven slabs: the first ext % R ranks hold one more layer); every
 * rank needs at least one layer, so an extent below R is an error. Results
 * equal one process's bit for bit. */
#ifndef LBTORUS_COMM_H
#define LBTORUS_COMM_H

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

#endif

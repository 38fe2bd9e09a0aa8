"""mpi_launch.py — how the MPI suites (mpi_identity.py, mpi_io.py) start mpirun.

ENV: the environment of every launch. Open MPI runs as root (CI), oversubscribed
on small machines, and the ranks of a job share one node: ob1 over shared
memory (vader) and self, not UCX, OFI or PSM probed and opened at every start
(a sixth less CPU a launch of 4 ranks here; the environment may say otherwise).

launcher(mpirun): a command that runs mpirun with a session directory of its
own. Open MPI 4 makes one per host and user (TMPDIR/ompi.HOST.UID) as a job
starts and removes it as the job ends, and an mpirun starting while another
ends can fail on it ("A call to mkdir was unable to create the desired
directory ... File exists", orte_session_dir failed: open-mpi/ompi issue
8510). The suites start two jobs at a time, and meson runs two suites at a
time: here 2 launches in 240 failed so, three loops of `mpirun -np 1 true` side
by side (0 in 480 with the launcher). So every launch gets its own base
(orte_tmpdir_base), under one directory removed when the suite exits. The
command execs mpirun: its pid is mpirun's, for the suites that signal it.
"""
import atexit
import os
import shlex
import shutil
import tempfile

ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT='1', OMPI_ALLOW_RUN_AS_ROOT_CONFIRM='1',
           OMPI_MCA_rmaps_base_oversubscribe='1', OMPI_MCA_btl_vader_single_copy_mechanism='none')
for key, value in (('OMPI_MCA_pml', 'ob1'), ('OMPI_MCA_btl', 'self,vader'), ('OMPI_MCA_mtl', '^ofi,psm,psm2'),
                   ('OMPI_MCA_osc', '^ucx')):
    ENV.setdefault(key, value)


def launcher(mpirun):
    """The path of a script that runs `mpirun --mca orte_tmpdir_base NEW ARGS...` (NEW a new directory each
    call)."""
    base = tempfile.mkdtemp(prefix='lbt-mpi-')
    atexit.register(shutil.rmtree, base, True)
    path = os.path.join(base, 'mpirun')
    with open(path, 'w') as f:
        f.write('#!/bin/sh\nd=$(mktemp -d -p "$0.d") || exit 1\n'
                f'exec {shlex.quote(mpirun)} --mca orte_tmpdir_base "$d" "$@"\n')
    os.mkdir(path + '.d')
    os.chmod(path, 0o755)
    return path
